/*
 * test_clans_data.c — the invariants of the compiled Clans board
 * (data/clans_board.txt; clans.md §2.4): 60 territories, 15 of each terrain,
 * 12 regions of 5 contiguous territories with all four terrains, 135
 * symmetric adjacencies (90 inside regions, 45 across rivers), degrees 3-6
 * in the counts 12/18/18/12, and the epoch chart of §6.
 */
#include "games/clans/clans.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void terrains_are_fifteen_each(void **unused)
{
    (void)unused;
    int count[CLANS_TERRAINS] = {0};
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        assert_true(clans__territory[t].terrain < CLANS_TERRAINS);
        count[clans__territory[t].terrain]++;
    }
    for (int k = 0; k < CLANS_TERRAINS; k++)
        assert_int_equal(count[k], 15);
}

static void regions_are_five_contiguous_with_all_terrains(void **unused)
{
    (void)unused;
    for (int r = 1; r <= CLANS_REGIONS; r++) {
        uint64_t members = 0;
        int terrains = 0;
        for (int t = 0; t < CLANS_TERRITORIES; t++) {
            if (clans__territory[t].region != r)
                continue;
            members |= 1ULL << t;
            terrains |= 1 << clans__territory[t].terrain;
            assert_int_equal((t / 5) + 1, r); /* region r holds ids 5r-4..5r */
        }
        assert_int_equal(__builtin_popcountll(members), 5);
        assert_int_equal(terrains, 0xf);
        /* contiguous: a flood fill inside the region reaches all five */
        uint64_t reached = members & -members, grown;
        do {
            grown = reached;
            for (uint64_t m = reached; m; m &= m - 1)
                reached |= clans__adjacent[__builtin_ctzll(m)] & members;
        } while (reached != grown);
        assert_true(reached == members);
    }
}

static void adjacency_is_symmetric_with_135_edges(void **unused)
{
    (void)unused;
    int edges = 0, inside = 0, degree_count[8] = {0};
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        assert_false(clans__adjacent[t] >> t & 1);
        assert_int_equal(clans__adjacent[t] >> CLANS_TERRITORIES, 0);
        int degree = __builtin_popcountll(clans__adjacent[t]);
        assert_in_range(degree, 3, 6);
        degree_count[degree]++;
        for (int u = 0; u < CLANS_TERRITORIES; u++) {
            bool tu = clans__adjacent[t] >> u & 1, ut = clans__adjacent[u] >> t & 1;
            assert_true(tu == ut);
            if (tu && u > t) {
                edges++;
                inside += clans__territory[t].region == clans__territory[u].region;
            }
        }
    }
    assert_int_equal(edges, 135);
    assert_int_equal(inside, 90);
    assert_int_equal(degree_count[3], 12);
    assert_int_equal(degree_count[4], 18);
    assert_int_equal(degree_count[5], 18);
    assert_int_equal(degree_count[6], 12);
}

static void epoch_chart_matches_the_board(void **unused)
{
    (void)unused;
    static const clans_epoch want[CLANS_EPOCHS] = {
        {4, CLANS_FOREST, CLANS_MOUNTAIN, 1},   {3, CLANS_MOUNTAIN, CLANS_GRASSLAND, 2},
        {2, CLANS_STEPPE, CLANS_FOREST, 3},     {2, CLANS_GRASSLAND, CLANS_STEPPE, 4},
        {1, CLANS_ANY_TERRAIN, CLANS_ANY_TERRAIN, 5},
    };
    int chips = 0;
    for (int e = 0; e < CLANS_EPOCHS; e++) {
        assert_int_equal(clans__epoch[e].chips, want[e].chips);
        assert_int_equal(clans__epoch[e].favourable, want[e].favourable);
        assert_int_equal(clans__epoch[e].hostile, want[e].hostile);
        assert_int_equal(clans__epoch[e].bonus, want[e].bonus);
        chips += clans__epoch[e].chips;
    }
    assert_int_equal(chips, CLANS_CHIPS);
    assert_int_equal(clans__chip_epoch(0), 1);
    assert_int_equal(clans__chip_epoch(3), 1);
    assert_int_equal(clans__chip_epoch(4), 2);
    assert_int_equal(clans__chip_epoch(11), 5);
    assert_int_equal(clans__chip_epoch(12), 0);
}

/* The tables the rules code reads instead of working things out each time:
 * each must say what the board and the epoch chart say. */
static void derived_tables_match_the_board(void **unused)
{
    (void)unused;
    for (int e = 0; e < CLANS_EPOCHS; e++)
        for (int t = 0; t < CLANS_TERRITORIES; t++) {
            const clans_epoch *ep = &clans__epoch[e];
            int terrain = clans__territory[t].terrain;
            int want = ep->hostile == terrain ? CLANS_RUIN
                       : ep->favourable == terrain || ep->favourable == CLANS_ANY_TERRAIN
                           ? ep->bonus
                           : 0;
            assert_int_equal(clans__founding[e][t], want);
        }
    clans_state start = {.crowd = {clans__start_crowd[0], clans__start_crowd[1], clans__start_crowd[2]}};
    for (int t = 0; t < 64; t++)
        assert_int_equal(clans__crowd(&start, t),
                         t < CLANS_TERRITORIES ? __builtin_popcountll(clans__adjacent[t]) : 0);
    uint64_t seen[CLANS_TERRITORIES] = {0};
    for (int e = 0; e < clans__edge_count; e++) {
        int a = clans__edge[e][0], b = clans__edge[e][1];
        assert_true(a < b);
        assert_true(clans__adjacent[a] >> b & 1);
        assert_int_equal(clans__arc[2 * e], a | b << 8);
        assert_int_equal(clans__arc[2 * e + 1], b | a << 8);
        assert_true(clans__edges_of[a][e / 64] >> (e % 64) & 1);
        assert_true(clans__edges_of[b][e / 64] >> (e % 64) & 1);
        for (int d = 0; d < 2; d++) { /* the source of each arc, as vacating it clears */
            const clans_arc_source *src = &clans__arc_source[2 * e + d];
            int from = d ? b : a;
            assert_memory_equal(src->edges, clans__edges_of[from], sizeof src->edges);
            assert_true(src->adjacent == clans__adjacent[from]);
        }
        seen[a] |= 1ULL << b;
        seen[b] |= 1ULL << a;
    }
    for (int t = 0; t < CLANS_TERRITORIES; t++)
        assert_true(seen[t] == clans__adjacent[t]); /* every border is one edge */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(terrains_are_fifteen_each),
        cmocka_unit_test(regions_are_five_contiguous_with_all_terrains),
        cmocka_unit_test(adjacency_is_symmetric_with_135_edges),
        cmocka_unit_test(epoch_chart_matches_the_board),
        cmocka_unit_test(derived_tables_match_the_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
