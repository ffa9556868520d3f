/*
 * test_khronos_data.c — the invariants of the compiled Khronos data
 * (data/khronos.txt; khronos.md §1.1, §1.6, §2, §3): the component counts of
 * the rulebook (155 tiles, 55 cards, 25 cubes, 4 Ecus, 4 cards), the
 * surcharges by player count, a placeholder board that has every kind of
 * terrain with one connected river crossing it and ten printed Hamlets off
 * the river, room for 3x3 blocks off the river on both of its banks, and
 * placement tables that agree with a brute-force derivation: every tile of
 * size s is an s x s block of squares (§1.1.2), with its neighbour sets,
 * terrain flags, the anchor index and the lists of larger placements.
 */
#include "games/khronos/khronos.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define D khronos__tables.data

static void components_match_the_rulebook(void **unused)
{
    (void)unused;
    static const struct {
        const char *name;
        int count, renovation;
    } want[KH_TYPES] = {{"watchtower", 20, 0}, {"keep", 24, 1},      {"castle", 9, 2},
                        {"chapel", 20, 0},     {"monastery", 20, 1}, {"abbey", 9, 2},
                        {"hamlet", 20, 0},     {"town", 24, 0},      {"city", 9, 0}};
    int total = 0;
    for (int t = 0; t < KH_TYPES; t++) {
        assert_string_equal(D.tile[t].name, want[t].name);
        assert_int_equal(D.tile[t].count, want[t].count);
        assert_int_equal(D.tile[t].renovation, want[t].renovation);
        assert_int_equal(D.tile[t].family, t / 3);
        assert_int_equal(D.tile[t].size, t % 3 + 1);
        total += D.tile[t].count;
    }
    assert_int_equal(total, 155);
    assert_int_equal(D.cards[KH_MILITARY], 18);
    assert_int_equal(D.cards[KH_RELIGIOUS], 18);
    assert_int_equal(D.cards[KH_CIVIL], 19);
    assert_int_equal(D.cubes, 25);
    assert_int_equal(D.ecus, 4);
    assert_int_equal(D.hand, 4);
    assert_int_equal(D.start_board, KH_MIGHT);
    static const int forest[6] = {0, 0, 1, 1, 0, 0}, mountain[6] = {0, 0, 2, 2, 1, 0};
    for (int n = 2; n <= 5; n++) {
        assert_int_equal(D.surcharge_forest[n], forest[n]);
        assert_int_equal(D.surcharge_mountain[n], mountain[n]);
    }
}

static void board_has_every_terrain_and_one_river(void **unused)
{
    (void)unused;
    assert_true(D.squares == D.width * D.height && D.squares <= KH_MAXSQ);
    int count[KH_TERRAINS] = {0};
    kh_bits river = {{0}};
    for (int sq = 0; sq < D.squares; sq++) {
        assert_true(D.terrain[sq] < KH_TERRAINS);
        count[D.terrain[sq]]++;
        if (D.terrain[sq] == KH_RIVER)
            kh_bits_set(&river, sq);
    }
    for (int t = 0; t < KH_TERRAINS; t++)
        assert_true(count[t] > 0);
    /* one connected river that touches two different edges of the board */
    int first = -1;
    for (int sq = 0; sq < D.squares && first < 0; sq++)
        if (kh_bits_has(river, sq))
            first = sq;
    kh_bits reached = {{0}};
    kh_bits_set(&reached, first);
    int grown = 1;
    while (grown) {
        grown = 0;
        for (int sq = 0; sq < D.squares; sq++) {
            if (!kh_bits_has(reached, sq))
                continue;
            int r = sq / D.width, c = sq % D.width;
            int nb[4] = {r ? sq - D.width : -1, r + 1 < D.height ? sq + D.width : -1,
                         c ? sq - 1 : -1, c + 1 < D.width ? sq + 1 : -1};
            for (int d = 0; d < 4; d++)
                if (nb[d] >= 0 && kh_bits_has(river, nb[d]) && !kh_bits_has(reached, nb[d])) {
                    kh_bits_set(&reached, nb[d]);
                    grown = 1;
                }
        }
    }
    assert_memory_equal(&reached, &river, sizeof river);
    int edges = 0;
    for (int sq = 0; sq < D.squares; sq++) {
        if (!kh_bits_has(river, sq))
            continue;
        int r = sq / D.width, c = sq % D.width;
        edges |= (r == 0) | (r == D.height - 1) << 1 | (c == 0) << 2 | (c == D.width - 1) << 3;
    }
    assert_true(__builtin_popcount((unsigned)edges) >= 2);
}

static void ten_printed_hamlets_off_the_river(void **unused)
{
    (void)unused;
    assert_int_equal(D.hamlets, 10);
    kh_bits seen = {{0}};
    for (int h = 0; h < D.hamlets; h++) {
        int sq = D.hamlet[h];
        assert_true(sq >= 0 && sq < D.squares);
        assert_false(kh_bits_has(seen, sq));
        kh_bits_set(&seen, sq);
        assert_int_not_equal(D.terrain[sq], KH_RIVER);
    }
    assert_memory_equal(&seen, &D.printed, sizeof seen);
}

/* Whether placement p is an s x s block: s*s squares, in board order, from
 * its top-left square. */
static bool test_block(const kh_place *p, int s)
{
    if (p->n != s * s)
        return false;
    int r0 = p->sq[0] / D.width, c0 = p->sq[0] % D.width;
    for (int k = 0; k < p->n; k++)
        if (p->sq[k] != (r0 + k / s) * D.width + c0 + k % s)
            return false;
    return true;
}

static void placements_agree_with_brute_force(void **unused)
{
    (void)unused;
    /* one s x s block at every top-left square that leaves it on the board */
    int want[4] = {0, D.squares, (D.width - 1) * (D.height - 1), (D.width - 2) * (D.height - 2)};
    for (int s = 1; s <= 3; s++)
        assert_int_equal(D.place_end[s] - D.place_first[s], want[s]);
    assert_int_equal(D.place_first[1], 0);
    assert_int_equal(D.place_end[3], D.places);
    for (int i = 0; i < D.places; i++) {
        const kh_place *p = &khronos__tables.place[i];
        assert_true(i >= D.place_first[p->size] && i < D.place_end[p->size]);
        kh_bits mask = {{0}}, nbr = {{0}};
        int covers = 0;
        assert_true(test_block(p, p->size));
        for (int k = 0; k < p->n; k++) {
            assert_true(p->sq[k] < D.squares);
            if (k)
                assert_true(p->sq[k] > p->sq[k - 1]);
            kh_bits_set(&mask, p->sq[k]);
            int t = D.terrain[p->sq[k]];
            covers |= t == KH_RIVER ? KH_COVERS_RIVER : 0;
            covers |= t == KH_FOREST || t == KH_PLAIN_FOREST ? KH_COVERS_FOREST : 0;
            covers |= t == KH_MOUNTAIN || t == KH_FOREST_MOUNTAIN ? KH_COVERS_MOUNTAIN : 0;
        }
        for (int sq = 0; sq < D.squares; sq++) {
            if (kh_bits_has(mask, sq))
                continue;
            for (int k = 0; k < p->n; k++) {
                int a = p->sq[k];
                if (abs(a / D.width - sq / D.width) + abs(a % D.width - sq % D.width) == 1)
                    kh_bits_set(&nbr, sq);
            }
        }
        assert_memory_equal(&mask, &p->mask, sizeof mask);
        assert_memory_equal(&nbr, &p->nbr, sizeof nbr);
        assert_int_equal(covers, p->covers);
        if (i > D.place_first[p->size]) {
            const kh_place *q = &khronos__tables.place[i - 1];
            assert_true(memcmp(q->sq, p->sq, KH_MAXCELLS) != 0);
            assert_true(q->sq[0] <= p->sq[0]);
        }
        /* the anchor index finds it */
        assert_true(i >= khronos__tables.anchor[p->size][p->sq[0]] &&
                    i < khronos__tables.anchor[p->size][p->sq[0] + 1]);
        /* the larger placements containing it */
        int n = 0;
        for (int j = 0; j < D.places; j++) {
            const kh_place *q = &khronos__tables.place[j];
            if (q->size <= p->size || !kh_bits_subset(p->mask, q->mask))
                continue;
            bool listed = false;
            for (int s = khronos__tables.super_first[i]; s < khronos__tables.super_first[i + 1]; s++)
                listed |= khronos__tables.super[s] == j;
            assert_true(listed);
            n++;
        }
        assert_int_equal(n, khronos__tables.super_first[i + 1] - khronos__tables.super_first[i]);
    }
}

/* Castles and Abbeys (3x3, never on the river) find room on both banks: the
 * river parts the board, and each side has a free 3x3 block without a
 * printed Hamlet. */
static void room_for_castles_on_both_banks(void **unused)
{
    (void)unused;
    int west = 0, east = 0;
    for (int i = D.place_first[3]; i < D.place_end[3]; i++) {
        const kh_place *p = &khronos__tables.place[i];
        if ((p->covers & KH_COVERS_RIVER) || kh_bits_any(kh_bits_and(p->mask, D.printed)))
            continue;
        /* west of the river: some river square lies to the right on its first row */
        int r = p->sq[0] / D.width;
        bool river_right = false;
        for (int c = p->sq[0] % D.width; c < D.width; c++)
            river_right |= D.terrain[r * D.width + c] == KH_RIVER;
        west += river_right;
        east += !river_right;
    }
    assert_true(west >= 10);
    assert_true(east >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(components_match_the_rulebook),
        cmocka_unit_test(board_has_every_terrain_and_one_river),
        cmocka_unit_test(ten_printed_hamlets_off_the_river),
        cmocka_unit_test(placements_agree_with_brute_force),
        cmocka_unit_test(room_for_castles_on_both_banks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
