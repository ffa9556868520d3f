/*
 * test_khronos_rules.c — Khronos properties the scenario files cannot show:
 * random games with the Hold'em option (which the simulation test does not
 * set) keep every invariant of sim_khronos.c, load back from their JSON and
 * resample soundly, and the display always offers one card of each colour
 * while cards of it remain; replays are deterministic; the heuristic is
 * good enough that a one-ply player using it beats random players; and the
 * decisions left out of searches (an adventurer travelling again before it
 * plays a card) are exactly those, and stay legal; a state written with
 * each player's adventurers in either order reads as the same state; every
 * legal decision's text (a block of squares by its corners, "c4-d5") reads
 * back as that decision, and a decision legal a moment ago but not now is
 * refused with the rule that refuses it, never a bare "not allowed now";
 * a random decision is uniform over the legal ones also where a build or an
 * upgrade the cards allow finds no room (the draw searches for room only when it lands
 * on a build or an upgrade, and draws again when there is none).
 */
#include "tabula.h"
#include "../sim/sim.h"
#include "games/khronos/khronos.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "test_draws.h"

static tb_state *new_game(int players, uint64_t seed, bool holdem)
{
    const tb_game *g = tb_game_find("khronos");
    tb_state *s = tb_state_new(g);
    tb_options o;
    tb_options_clear(&o);
    char err[TB_ERR_LEN];
    if (holdem)
        assert_int_equal(tb_options_set(&o, "holdem", "on", err, sizeof err), 0);
    assert_int_equal(tb_setup(s, players, &o, seed, err, sizeof err), 0);
    return s;
}

static void check_round_trip_and_views(const tb_state *s, tb_rng *rng)
{
    char err[TB_ERR_LEN];
    char *json = tb_state_json(s);
    tb_state *back = tb_state_load(json, err, sizeof err);
    assert_non_null(back);
    assert_true(tb_state_equal(back, s));
    tb_state_free(back);
    free(json);
    for (int seat = TB_SPECTATOR; seat < tb_players(s); seat++) {
        tb_state *c = tb_state_dup(s);
        tb_resample(c, seat, rng);
        char *v1 = tb_view_json(s, seat), *v2 = tb_view_json(c, seat);
        assert_string_equal(v1, v2);
        free(v1);
        free(v2);
        tb_state_free(c);
    }
}

static void holdem_games_keep_every_invariant(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    tb_rng rng;
    tb_rng_seed(&rng, 99);
    long swaps = 0;
    for (int k = 0; k < 40; k++) {
        int players = 2 + k % 4;
        tb_state *s = new_game(players, (uint64_t)k, true), *before = tb_state_dup(s);
        while (!tb_is_over(s)) {
            char *view = tb_view_json(s, TB_SPECTATOR);
            const char *d = strstr(view, "\"display\":\"");
            assert_non_null(d);
            /* three face-up cards, one of each colour (the deck is far from empty) */
            assert_memory_equal(d + 11, "mrc\"", 4);
            free(view);
            if (k < 10)
                check_round_trip_and_views(s, &rng);
            tb_move m = tb_random_move(s, &rng);
            char text[TB_MOVE_TEXT];
            tb_move_to_text(s, m, text, sizeof text);
            swaps += strncmp(text, "swap", 4) == 0;
            tb_state_copy(before, s);
            tb_apply(s, m);
            if (sim_khronos_check(before, s, err, sizeof err) != 0)
                fail_msg("holdem game %d: %s", k, err);
        }
        tb_state_free(before);
        tb_state_free(s);
    }
    assert_true(swaps > 50);
}

static void replays_are_deterministic(void **unused)
{
    (void)unused;
    tb_state *a = new_game(4, 77, false), *b = new_game(4, 77, false);
    assert_true(tb_state_equal(a, b));
    tb_rng rng;
    tb_rng_seed(&rng, 5);
    while (!tb_is_over(a)) {
        tb_move m = tb_random_move(a, &rng);
        char text[TB_MOVE_TEXT], err[TB_ERR_LEN];
        tb_move_to_text(a, m, text, sizeof text);
        tb_apply(a, m);
        assert_int_equal(tb_play_text(b, text, err, sizeof err), 0);
        assert_true(tb_state_equal(a, b));
    }
    tb_state_free(a);
    tb_state_free(b);
}

/* One ply: every legal decision tried on a copy the mover's view, judged by
 * the heuristic (exact returns at the end). */
static tb_move one_ply(const tb_state *truth, tb_rng *rng)
{
    int seat = tb_to_move(truth);
    tb_state *view = tb_state_dup(truth);
    tb_rng deal = tb_rng_split(rng);
    tb_resample(view, seat, &deal);
    tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
    int n = tb_legal(view, moves);
    tb_state *t = tb_state_dup(view);
    tb_move best = moves[0];
    double best_value = -1;
    for (int i = 0; i < n; i++) {
        tb_state_copy(t, view);
        tb_apply(t, moves[i]);
        double v;
        if (tb_is_over(t)) {
            double r[TB_MAX_SEATS];
            tb_returns(t, r);
            v = r[seat];
        } else {
            v = tb_heuristic(t, seat);
        }
        assert_true(v >= 0.0 && v <= 1.0);
        if (v > best_value) {
            best_value = v;
            best = moves[i];
        }
    }
    free(moves);
    tb_state_free(t);
    tb_state_free(view);
    return best;
}

static void one_ply_heuristic_beats_random(void **unused)
{
    (void)unused;
    tb_rng rng;
    tb_rng_seed(&rng, 2024);
    double share = 0;
    const int games = 24;
    for (int k = 0; k < games; k++) {
        int players = 2 + k % 3, greedy = k % players;
        tb_state *s = new_game(players, 500 + (uint64_t)k, false);
        while (!tb_is_over(s))
            tb_apply(s, tb_to_move(s) == greedy ? one_ply(s, &rng) : tb_random_move(s, &rng));
        double r[TB_MAX_SEATS];
        tb_returns(s, r);
        share += r[greedy];
        tb_state_free(s);
    }
    /* a fair share would be about 0.36; demand far more */
    assert_true(share / games > 0.8);
}

/* The decision `text` names in s (the test fails when it is not legal). */
static tb_move move_named(const tb_state *s, const char *text)
{
    tb_move m;
    char err[TB_ERR_LEN];
    if (tb_text_to_move(s, text, &m, err, sizeof err) != 0)
        fail_msg("%s: %s", text, err);
    return m;
}

static bool searched(const tb_state *s, const char *text)
{
    tb_move want = move_named(s, text), moves[TB_MAX_MOVES];
    int n = tb_legal_undominated(s, moves);
    for (int i = 0; i < n; i++)
        if (moves[i] == want)
            return true;
    return false;
}

/* Whether any travel is legal (so no choice inside an action is pending). */
static bool travel_listed(const tb_state *s)
{
    char *legal = tb_legal_text(s);
    bool any = strstr(legal, "travel ") != NULL;
    free(legal);
    return any;
}

/* The legal decisions that tb_legal_undominated leaves out. */
static int left_out(const tb_state *s)
{
    tb_move all[TB_MAX_MOVES], kept[TB_MAX_MOVES];
    int n = tb_legal(s, all), k = tb_legal_undominated(s, kept), j = 0;
    for (int i = 0; i < n && j < k; i++)
        j += all[i] == kept[j]; /* kept is a subsequence of all, in order */
    assert_int_equal(j, k);
    return n - k;
}

static void a_second_travel_before_a_card_is_left_out_of_searches(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    int built = 0;
    for (uint64_t seed = 1; seed <= 40 && built < 3; seed++) {
        tb_state *s = new_game(2, seed, false);
        int p = tb_to_move(s);
        assert_int_equal(left_out(s), 0); /* nobody has travelled yet */
        assert_int_equal(tb_play_text(s, "travel might faith", err, sizeof err), 0);
        /* the adventurer now on Faith goes nowhere more in a search; the one
         * still on Might may; ending the turn stays */
        assert_false(searched(s, "travel faith might"));
        assert_false(searched(s, "travel faith reason"));
        assert_true(searched(s, "travel might faith"));
        assert_true(searched(s, "travel might reason"));
        assert_true(searched(s, "end"));
        assert_int_equal(left_out(s), 2);
        /* it is still legal: people may do it, and pay for it */
        tb_state *wander = tb_state_dup(s);
        int before[TB_MAX_SEATS], after[TB_MAX_SEATS];
        tb_scores(wander, before);
        assert_int_equal(tb_play_text(wander, "travel faith might", err, sizeof err), 0);
        tb_scores(wander, after);
        assert_int_equal(after[p], before[p] - 1);
        /* both have travelled: no travel is searched (four stay legal) */
        tb_state_copy(wander, s);
        assert_int_equal(tb_play_text(wander, "travel might reason", err, sizeof err), 0);
        assert_int_equal(left_out(wander), 4);
        /* the state's JSON carries it */
        char *json = tb_state_json(wander);
        assert_non_null(strstr(json, "\"travelled\":[true,true]"));
        tb_state *back = tb_state_load(json, err, sizeof err);
        assert_non_null(back);
        assert_true(tb_state_equal(back, wander));
        assert_int_equal(left_out(back), 4);
        tb_state_free(back);
        free(json);
        tb_state_free(wander);
        /* a card played on Faith: the adventurer there may travel again */
        char *legal = tb_legal_text(s);
        char *build = strstr(legal, "build faith ");
        char type[32], text[64];
        if (build && sscanf(build, "build faith %31s", type) == 1) {
            snprintf(text, sizeof text, "build faith %s", type);
            assert_int_equal(tb_play_text(s, text, err, sizeof err), 0);
            /* its squares (and any choice it leads to): the first listed */
            for (int step = 0; step < 50 && !(tb_to_move(s) == p && travel_listed(s)); step++) {
                tb_move m[TB_MAX_MOVES];
                assert_true(tb_legal(s, m) > 0);
                tb_apply(s, m[0]);
            }
            assert_true(tb_to_move(s) == p && travel_listed(s));
            assert_true(searched(s, "travel faith reason"));
            assert_int_equal(left_out(s), 0);
            built++;
        }
        free(legal);
        tb_state_free(s);
    }
    assert_int_equal(built, 3);
}

/* Reverses the two-element array at `key` (or at `key`[index] when index >= 0). */
static void reverse_pair(json_t *j, const char *key, int index)
{
    json_t *a = json_object_get(j, key);
    if (index >= 0)
        a = json_array_get(a, (size_t)index);
    assert_true(json_is_array(a) && json_array_size(a) == 2);
    json_t *first = json_incref(json_array_get(a, 0));
    assert_int_equal(json_array_remove(a, 0), 0);
    assert_int_equal(json_array_append_new(a, first), 0);
}

/* The order a state lists a player's two adventurers in is not part of the
 * position: every seat's listed the other way round (the current player's
 * with their cards left and travels) reads back as the same state. */
static void adventurers_in_either_order_read_as_one_state(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    tb_rng rng;
    tb_rng_seed(&rng, 11);
    int apart = 0, differing_allowances = 0;
    for (int k = 0; k < 6; k++) {
        tb_state *s = new_game(2 + k % 3, (uint64_t)(500 + k), false);
        while (!tb_is_over(s)) {
            char *text = tb_state_json(s);
            json_t *j = json_loads(text, 0, NULL);
            assert_non_null(j);
            json_t *pawns = json_object_get(j, "pawns"), *left = json_object_get(j, "left");
            for (int p = 0; p < tb_players(s); p++) {
                json_t *pw = json_array_get(pawns, (size_t)p);
                apart += !json_equal(json_array_get(pw, 0), json_array_get(pw, 1));
                reverse_pair(j, "pawns", p);
            }
            differing_allowances += !json_equal(json_array_get(left, 0), json_array_get(left, 1));
            reverse_pair(j, "left", -1);
            reverse_pair(j, "travelled", -1);
            char *reversed = json_dumps(j, JSON_COMPACT);
            tb_state *back = tb_state_load(reversed, err, sizeof err);
            if (!back)
                fail_msg("%s: %s", reversed, err);
            assert_true(tb_state_equal(back, s));
            tb_state_free(back);
            free(reversed);
            json_decref(j);
            free(text);
            tb_apply(s, tb_random_move(s, &rng));
        }
        tb_state_free(s);
    }
    /* the reversal really changed the text often */
    assert_true(apart > 300);
    assert_true(differing_allowances > 50);
}

static void texts_read_back_and_refusals_name_their_rule(void **unused)
{
    (void)unused;
    tb_move *now = malloc(TB_MAX_MOVES * sizeof *now), *before = malloc(TB_MAX_MOVES * sizeof *before);
    assert_non_null(now);
    assert_non_null(before);
    tb_rng rng;
    tb_rng_seed(&rng, 7);
    int refusals = 0;
    for (int game = 0; game < 8; game++) {
        tb_state *s = new_game(2 + game % 4, 100 + (uint64_t)game, game % 2);
        tb_state *prev = tb_state_dup(s);
        int nb = 0;
        while (!tb_is_over(s)) {
            int n = tb_legal(s, now);
            for (int i = 0; i < n; i++) {
                char text[TB_MOVE_TEXT], err[TB_ERR_LEN];
                tb_move back;
                tb_move_to_text(s, now[i], text, sizeof text);
                assert_int_equal(tb_text_to_move(s, text, &back, err, sizeof err), 0);
                assert_true(back == now[i]);
            }
            /* the previous position's decisions that are not legal here */
            for (int i = 0; i < nb; i++) {
                bool legal = false;
                for (int j = 0; j < n && !legal; j++)
                    legal = now[j] == before[i];
                if (legal)
                    continue;
                char text[TB_MOVE_TEXT], err[TB_ERR_LEN];
                tb_move back;
                tb_move_to_text(prev, before[i], text, sizeof text);
                if (tb_text_to_move(s, text, &back, err, sizeof err) == 0)
                    continue; /* the same text means another decision now */
                refusals++;
                if (getenv("KH_SHOW_REFUSALS"))
                    printf("%s\n", err);
                assert_null(strstr(err, "not allowed now"));
                assert_true(strncmp(err, "illegal move: ", 14) == 0 || strstr(err, "write ") ||
                            strstr(err, "no tile covers"));
            }
            tb_state_free(prev);
            prev = tb_state_dup(s);
            memcpy(before, now, (size_t)n * sizeof *now);
            nb = n;
            tb_apply(s, tb_random_move(s, &rng));
        }
        tb_state_free(prev);
        tb_state_free(s);
    }
    assert_true(refusals > 1000);
    free(now);
    free(before);
}

/* Where a build or an upgrade the hand, stock and cubes allow has no room
 * (the fast random draw lists it unsearched, and must drop it and draw again
 * without favouring any other decision), many draws per legal decision are counted
 * and the chi-square statistic, summed over such positions of random games
 * with 2 to 5 players, stays within six standard deviations; 70,000 draws
 * at once are those of as many single draws. */
static void random_decisions_stay_uniform_where_a_build_or_upgrade_has_no_room(void **unused)
{
    (void)unused;
    static tb_move legal[TB_MAX_MOVES];
    tb_rng walk, draw;
    tb_rng_seed(&walk, 5);
    tb_rng_seed(&draw, 6);
    draw_tally tally = {0};
    int checked_many = 0;
    for (int game = 0; game < 200 && tally.positions < 60; game++) {
        tb_state *s = new_game(2 + game % 4, 900 + (uint64_t)game, false);
        const khronos_state *k = (const khronos_state *)s;
        while (!tb_is_over(s)) {
            /* the builds the cards, stock, cubes and adventurers allow
             * (what the draw lists unsearched) that are not legal: no room,
             * or no room whose surcharge can be paid (a tile is built on
             * Might or Faith; Reason has only shadows) */
            int n = tb_legal(s, legal), no_room = 0, p = k->cur;
            for (int b = KH_MIGHT; k->pend == KH_P_NONE && b <= KH_FAITH; b++) {
                int cap = kh_capacity(k, b), total = kh_total(k->hand[p]);
                int budget = cap < total ? cap : total;
                for (int t = 0; t < KH_TYPES; t++) {
                    int f = KH_FAMILY(t), v = KH_SIZE(t);
                    if (!k->stock[t] || (f != KH_CIVIL && !k->cubes[p]) || k->hand[p][f] < v || budget < v)
                        continue;
                    tb_move m = KH_MOVE(KH_M_BUILD, b << 4 | t);
                    bool listed = false;
                    for (int i = 0; i < n && !listed; i++)
                        listed = legal[i] == m;
                    no_room += !listed;
                }
                /* and the upgrades: a larger size in stock, the cards for
                 * the sizes gained, military and religious by their owner */
                const kh_board *bd = &k->board[b];
                for (int i = 0; k->pend == KH_P_NONE && i < bd->nb; i++) {
                    const kh_bld *x = &bd->b[i];
                    int f = KH_FAMILY(x->type), from = KH_SIZE(x->type);
                    if (f != KH_CIVIL && x->owner != p)
                        continue;
                    for (int v = from + 1; v <= 3; v++) {
                        if (!k->stock[KH_TYPE(f, v)] || k->hand[p][f] < v - from || budget < v - from)
                            continue;
                        tb_move m = KH_MOVE(KH_M_UPGRADE, b << 12 | kh_anchor(x) << 4 | KH_TYPE(f, v));
                        bool listed = false;
                        for (int j = 0; j < n && !listed; j++)
                            listed = legal[j] == m;
                        no_room += !listed;
                    }
                }
            }
            if (no_room && n > 1)
                tally_draws(&tally, s, legal, n, 100, &draw);
            if (no_room && n > 1 && checked_many < 3) {
                /* many draws at once (the groups' searches shared, past
                 * 65,536 of them) are those of as many single draws */
                enum { MANY = 70000 };
                tb_move *many = malloc(MANY * sizeof *many);
                assert_non_null(many);
                tb_rng ra = draw, rb = draw;
                tb_random_moves(s, &ra, many, MANY);
                for (int i = 0; i < MANY; i++)
                    if (many[i] != tb_random_move(s, &rb))
                        fail_msg("draw %d of %d differs from a single draw", i, MANY);
                free(many);
                checked_many++;
            }
            tb_apply(s, tb_random_move(s, &walk));
        }
        tb_state_free(s);
    }
    assert_true(tally.positions >= 30);
    assert_int_equal(checked_many, 3);
    tally_check(&tally, "khronos, where a build or an upgrade has no room");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(holdem_games_keep_every_invariant),
        cmocka_unit_test(replays_are_deterministic),
        cmocka_unit_test(one_ply_heuristic_beats_random),
        cmocka_unit_test(a_second_travel_before_a_card_is_left_out_of_searches),
        cmocka_unit_test(adventurers_in_either_order_read_as_one_state),
        cmocka_unit_test(texts_read_back_and_refusals_name_their_rule),
        cmocka_unit_test(random_decisions_stay_uniform_where_a_build_or_upgrade_has_no_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
