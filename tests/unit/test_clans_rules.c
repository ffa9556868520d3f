/*
 * test_clans_rules.c — Clans properties that are about many positions rather
 * than one (the positions are in tests/rules/clans): setup (clans.md §3),
 * hidden colours in views (§9, DESIGN.md §4), resampling that depends only
 * on what the seat sees, the playout's fast path against random_move +
 * apply, and when the order of new villages matters (5A).
 */
#include "games/clans/clans.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The playout founds villages at the end of a run of hut moves, and several
 * at once without leaving its loop when their order cannot matter: cut into
 * pieces of every length, it must still make exactly the decisions, states
 * and draws of random_move + apply, piece by piece. */
static void playout_in_pieces_matches_random_moves(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    long villages_at_once = 0, village_choices = 0;
    for (int seed = 0; seed < 600; seed++) {
        int players = 2 + seed % 3;
        tb_state *a = tb_state_new(g), *b = tb_state_new(g);
        assert_int_equal(tb_setup(a, players, NULL, (uint64_t)seed, NULL, 0), 0);
        assert_int_equal(tb_setup(b, players, NULL, (uint64_t)seed, NULL, 0), 0);
        tb_rng ra, rb;
        tb_rng_seed(&ra, (uint64_t)seed * 7 + 1);
        tb_rng_seed(&rb, (uint64_t)seed * 7 + 1);
        for (int piece = 0; !tb_is_over(a); piece++) {
            int limit = 1 + (seed + piece) % 9, made = tb_playout(a, &ra, limit), played = 0;
            while (played < limit && !tb_is_over(b)) {
                const clans_state *cb = (const clans_state *)b;
                int chips = cb->chips_taken;
                tb_move m = tb_random_move(b, &rb);
                village_choices += (m & CLANS_VILLAGE_FLAG) != 0;
                tb_apply(b, m);
                villages_at_once += cb->chips_taken - chips >= 2;
                played++;
            }
            assert_int_equal(made, played);
            assert_true(tb_state_equal(a, b));
            assert_memory_equal(&ra, &rb, sizeof ra);
        }
        assert_true(tb_is_over(b));
        tb_state_free(a);
        tb_state_free(b);
    }
    /* Both kinds of move that make several villages came up. */
    assert_true(villages_at_once > 100);
    assert_true(village_choices > 100);
}

/* Whether the order of two new villages matters, against founding them both
 * ways: in random games, every hut move that leaves two territories alone
 * is made by hand up to the villages, then each order is chosen, and the
 * outcomes compared. */
static void order_of_two_villages_matters_exactly_when_outcomes_differ(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    int matters = 0, same_across_epochs = 0;
    tb_state *s = tb_state_new(g), *x = tb_state_new(g), *y = tb_state_new(g);
    for (int seed = 0; seed < 20000; seed++) {
        tb_setup(s, 2 + seed % 3, NULL, (uint64_t)seed, NULL, 0);
        tb_rng rng;
        tb_rng_seed(&rng, (uint64_t)seed);
        while (!tb_is_over(s)) {
            tb_move m = tb_random_move(s, &rng);
            if (!(m & CLANS_VILLAGE_FLAG)) {
                tb_state_copy(x, s);
                clans_state *c = (clans_state *)x;
                int from = (int)(m >> 8) - 1, to = (int)(m & 0xff) - 1;
                c->huts[to] += c->huts[from];
                c->huts[from] = 0;
                c->size[to] = (uint8_t)(c->size[to] + c->size[from]);
                c->size[from] = 0;
                c->occupied &= ~(1ULL << from);
                clans__compute_live(c);
                uint64_t alone = 0;
                for (int t = 0; t < CLANS_TERRITORIES; t++)
                    if ((c->occupied >> t & 1) && !(clans__adjacent[t] & c->occupied) &&
                        !(c->villages >> t & 1))
                        alone |= 1ULL << t;
                if (__builtin_popcountll(alone) == 2) {
                    c->pending = alone;
                    bool said = clans__order_matters(c);
                    bool two_epochs =
                        clans__chip_epoch(c->chips_taken) != clans__chip_epoch(c->chips_taken + 1);
                    tb_state_copy(y, x);
                    int a = __builtin_ctzll(alone), b = 63 - __builtin_clzll(alone);
                    /* a first, then b (or the game ends); and b first */
                    tb_apply(x, CLANS_VILLAGE_FLAG | (tb_move)(a + 1));
                    tb_apply(y, CLANS_VILLAGE_FLAG | (tb_move)(b + 1));
                    /* The outcome is the huts, points and ruins: the epoch each
                     * village is labelled with may differ, and with the 12th
                     * chip (the game ends) so may which one became a village. */
                    clans_state *cx = (clans_state *)x, *cy = (clans_state *)y;
                    memcpy(cy->village_epoch, cx->village_epoch, sizeof cy->village_epoch);
                    cy->villages = cx->villages;
                    assert_int_equal(said, !tb_state_equal(x, y));
                    matters += said;
                    same_across_epochs += !said && two_epochs;
                }
            }
            tb_apply(s, m);
        }
    }
    tb_state_free(s);
    tb_state_free(x);
    tb_state_free(y);
    /* Both answers came up, and "no" also where the chips span two epochs
     * (the case that needs the comparison, not the epochs alone). */
    assert_true(matters > 50);
    assert_true(same_across_epochs > 20);
}

static void setup_places_one_hut_of_each_colour_per_region(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    for (int seed = 0; seed < 200; seed++) {
        for (int players = 2; players <= 4; players++) {
            tb_state *s = tb_state_new(g);
            assert_int_equal(tb_setup(s, players, NULL, (uint64_t)seed, NULL, 0), 0);
            const clans_state *c = (const clans_state *)s;
            for (int r = 1; r <= CLANS_REGIONS; r++) {
                int colours = 0;
                for (int t = 0; t < CLANS_TERRITORIES; t++) {
                    if (clans__territory[t].region != r)
                        continue;
                    assert_int_equal(c->size[t], 1);
                    for (int k = 0; k < CLANS_COLOURS; k++)
                        if (clans__huts(c, t, k))
                            colours |= 1 << k;
                }
                assert_int_equal(colours, 0x1f);
            }
            int held = 0;
            for (int p = 0; p < players; p++) {
                assert_true(c->colour[p] < CLANS_COLOURS);
                assert_false(held & (1 << c->colour[p]));
                held |= 1 << c->colour[p];
            }
            assert_true(c->turn < players);
            assert_int_equal(c->chips_taken, 0);
            assert_false(tb_is_over(s));
            tb_state_free(s);
        }
    }
}

static void deals_vary_with_the_seed(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    int first_colour[CLANS_COLOURS] = {0}, start[4] = {0};
    for (int seed = 0; seed < 500; seed++) {
        tb_state *s = tb_state_new(g);
        tb_setup(s, 4, NULL, (uint64_t)seed, NULL, 0);
        const clans_state *c = (const clans_state *)s;
        first_colour[c->colour[0]]++;
        start[c->turn]++;
        tb_state_free(s);
    }
    for (int k = 0; k < CLANS_COLOURS; k++)
        assert_in_range(first_colour[k], 60, 140);
    for (int p = 0; p < 4; p++)
        assert_in_range(start[p], 80, 170);
}

/* Two states that differ only in the colours of seats other than `seat`. */
static void swap_opponent_colours(clans_state *c, int seat, int players)
{
    int a = -1, b = -1;
    for (int p = 0; p < players; p++) {
        if (p == seat)
            continue;
        if (a < 0)
            a = p;
        else if (b < 0)
            b = p;
    }
    if (b >= 0) {
        uint8_t t = c->colour[a];
        c->colour[a] = c->colour[b];
        c->colour[b] = t;
    } else {
        /* one opponent: give it a colour nobody holds */
        for (int k = 0; k < CLANS_COLOURS; k++)
            if (k != c->colour[seat] && k != c->colour[a]) {
                c->colour[a] = (uint8_t)k;
                break;
            }
    }
}

static void views_do_not_leak_opponent_colours(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_rng rng;
    tb_rng_seed(&rng, 5);
    for (int players = 2; players <= 4; players++) {
        tb_state *s = tb_state_new(g);
        tb_setup(s, players, NULL, 11, NULL, 0);
        for (int step = 0; step < 30 && !tb_is_over(s); step++)
            tb_apply(s, tb_random_move(s, &rng));
        for (int seat = 0; seat < players; seat++) {
            tb_state *t = tb_state_dup(s);
            swap_opponent_colours((clans_state *)t, seat, players);
            assert_false(tb_state_equal(s, t));
            char *v1 = tb_view_json(s, seat), *v2 = tb_view_json(t, seat);
            assert_string_equal(v1, v2);
            char *r1 = tb_render_text(s, seat, 0), *r2 = tb_render_text(t, seat, 0);
            assert_string_equal(r1, r2);
            /* the seat does see its own colour */
            char want[64];
            snprintf(want, sizeof want, "\"your_colour\":\"%s\"",
                     clans__colour_name[((clans_state *)s)->colour[seat]]);
            assert_non_null(strstr(v1, want));
            free(v1);
            free(v2);
            free(r1);
            free(r2);
            /* resampling depends only on the seat's view */
            tb_rng r_a, r_b;
            tb_rng_seed(&r_a, 9);
            tb_rng_seed(&r_b, 9);
            tb_state *ra = tb_state_dup(s), *rb = tb_state_dup(t);
            tb_resample(ra, seat, &r_a);
            tb_resample(rb, seat, &r_b);
            assert_true(tb_state_equal(ra, rb));
            tb_state_free(ra);
            tb_state_free(rb);
            tb_state_free(t);
        }
        char *spectator = tb_view_json(s, TB_SPECTATOR);
        assert_null(strstr(spectator, "your_colour\":\""));
        assert_non_null(strstr(spectator, "\"colours\":[null,null"));
        free(spectator);
        tb_state_free(s);
    }
}

static void colours_are_revealed_at_the_end(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_rng rng;
    tb_rng_seed(&rng, 8);
    tb_state *s = tb_state_new(g);
    tb_setup(s, 3, NULL, 4, NULL, 0);
    while (!tb_is_over(s))
        tb_apply(s, tb_random_move(s, &rng));
    const clans_state *c = (const clans_state *)s;
    char *v = tb_view_json(s, TB_SPECTATOR);
    for (int p = 0; p < 3; p++)
        assert_non_null(strstr(v, clans__colour_name[c->colour[p]]));
    assert_null(strstr(v, "\"colours\":[null"));
    free(v);
    tb_state *r = tb_state_dup(s);
    tb_resample(r, 0, &rng);
    assert_true(tb_state_equal(r, s));
    tb_state_free(r);
    tb_state_free(s);
}

static void random_move_reaches_every_legal_move(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    tb_setup(s, 4, NULL, 21, NULL, 0);
    tb_move legal[TB_MAX_MOVES];
    int n = tb_legal(s, legal);
    int *hits = calloc((size_t)n, sizeof *hits);
    tb_rng rng;
    tb_rng_seed(&rng, 3);
    for (int i = 0; i < n * 200; i++) {
        tb_move m = tb_random_move(s, &rng);
        int k = 0;
        while (k < n && legal[k] != m)
            k++;
        assert_true(k < n);
        hits[k]++;
    }
    for (int k = 0; k < n; k++)
        assert_in_range(hits[k], 120, 290);
    free(hits);
    tb_state_free(s);
}

/* A territory key must be written canonically: "07" next to "7" would name
 * one territory twice (found by fuzzing). */
static void state_keys_must_be_canonical(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    tb_setup(s, 2, NULL, 1, NULL, 0);
    char *json = tb_state_json(s);
    const char *bad[] = {"\"07\":", "\"+7\":", "\" 7\":", "\"7.0\":"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *edited = malloc(strlen(json) + 8);
        char *at = strstr(json, "\"7\":");
        assert_non_null(at);
        size_t head = (size_t)(at - json);
        memcpy(edited, json, head);
        strcpy(edited + head, bad[i]);
        strcat(edited, at + 4);
        char err[TB_ERR_LEN];
        tb_state *t = tb_state_load(edited, err, sizeof err);
        if (t)
            fail_msg("key %s was accepted", bad[i]);
        assert_non_null(strstr(err, "not a territory"));
        free(edited);
    }
    free(json);
    tb_state_free(s);
}

/* The squash table holds exactly the doubles the expression computes. */
static void squash_table_matches_the_formula(void **unused)
{
    (void)unused;
    for (int lead = -600; lead <= 600; lead++)
        if (clans__squash(lead) != clans__squash_computed(lead))
            fail_msg("squash(%d): table %.17g, formula %.17g", lead, clans__squash(lead),
                     clans__squash_computed(lead));
}

/* The heuristic as first written: nested loops over the assignments of the
 * colours a seat may not hold to the other seats, squashing as it goes. */
static double reference_heuristic(const tb_state *s, int seat)
{
    const clans_state *c = (const clans_state *)s;
    int sc[TB_MAX_SEATS];
    tb_scores(s, sc);
    if (c->over) {
        int best_other = -1000;
        for (int p = 0; p < s->players; p++)
            if (p != seat && sc[p] > best_other)
                best_other = sc[p];
        return clans__squash_computed(sc[seat] - best_other);
    }
    int chips[TB_MAX_SEATS], no = 0, track[CLANS_COLOURS], nt = 0;
    for (int p = 0; p < s->players; p++)
        if (p != seat)
            chips[no++] = c->chips[p];
    for (int k = 0; k < CLANS_COLOURS; k++)
        if (k != c->colour[seat])
            track[nt++] = c->track[k];
    double sum = 0.0;
    int count = 0, own = sc[seat];
    for (int x = 0; x < nt; x++) {
        int bx = track[x] + chips[0];
        if (no == 1) {
            sum += clans__squash_computed(own - bx);
            count++;
            continue;
        }
        for (int y = 0; y < nt; y++) {
            if (y == x)
                continue;
            int by = track[y] + chips[1] > bx ? track[y] + chips[1] : bx;
            if (no == 2) {
                sum += clans__squash_computed(own - by);
                count++;
                continue;
            }
            for (int z = 0; z < nt; z++) {
                if (z == x || z == y)
                    continue;
                int bz = track[z] + chips[2] > by ? track[z] + chips[2] : by;
                sum += clans__squash_computed(own - bz);
                count++;
            }
        }
    }
    return count ? sum / count : 0.5;
}

/* The heuristic gives exactly (to the last bit) the value of the nested
 * loops, for every seat of every position of random games, 2 to 4 players,
 * including leads beyond the squash table (tracks pushed far apart). */
static void heuristic_matches_the_nested_loops(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_rng rng;
    tb_rng_seed(&rng, 11);
    int checked = 0;
    for (int seed = 0; seed < 60; seed++) {
        int players = 2 + seed % 3;
        tb_state *s = tb_state_new(g);
        assert_int_equal(tb_setup(s, players, NULL, (uint64_t)seed, NULL, 0), 0);
        for (;;) {
            if (seed % 10 == 9) {
                clans_state *c = (clans_state *)s;
                c->track[seed % CLANS_COLOURS] = (int16_t)(c->track[seed % CLANS_COLOURS] + 300);
            }
            for (int p = 0; p < players; p++) {
                double got = tb_heuristic(s, p), want = reference_heuristic(s, p);
                if (got != want)
                    fail_msg("seed %d seat %d: %.17g, nested loops %.17g", seed, p, got, want);
                checked++;
            }
            if (tb_is_over(s))
                break;
            tb_apply(s, tb_random_move(s, &rng));
        }
        tb_state_free(s);
    }
    assert_true(checked > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(setup_places_one_hut_of_each_colour_per_region),
        cmocka_unit_test(deals_vary_with_the_seed),
        cmocka_unit_test(views_do_not_leak_opponent_colours),
        cmocka_unit_test(colours_are_revealed_at_the_end),
        cmocka_unit_test(random_move_reaches_every_legal_move),
        cmocka_unit_test(state_keys_must_be_canonical),
        cmocka_unit_test(squash_table_matches_the_formula),
        cmocka_unit_test(heuristic_matches_the_nested_loops),
        cmocka_unit_test(playout_in_pieces_matches_random_moves),
        cmocka_unit_test(order_of_two_villages_matters_exactly_when_outcomes_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
