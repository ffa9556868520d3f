/*
 * test_infer.c — the decision with the game's history (src/ai/history.c)
 * as its three callers make it: tabula play (its own start position and
 * record), the server (srv_room_search: a copy of the record, the start
 * replayed from it) and a caller that keeps an inference decision by
 * decision (tabula match).  For the same history and seed they give the
 * same decision and the same report; where the rule says to infer, that
 * differs from the uniform search (so a path that stopped inferring fails
 * here), and where it says not to, it equals it.  Also: the rule itself,
 * infer=on/off, a history that does not fit, and the chances in words.
 */
#include "tabula.h"
#include "server/roomsInt.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

typedef struct game {
    tb_state *start, *truth;
    tb_record *rec;
    tb_inference *kept; /* observed decision by decision */
} game;

/* A Clans game of `players` after `decisions` greedy decisions. */
static game play_greedy(int players, uint64_t seed, int decisions)
{
    const tb_game *g = tb_game_find("clans");
    assert_non_null(g);
    game out;
    out.start = tb_state_new(g);
    assert_int_equal(tb_setup(out.start, players, NULL, seed, NULL, 0), 0);
    out.truth = tb_state_dup(out.start);
    out.rec = tb_record_new(g, players, NULL, seed);
    out.kept = tb_inference_new(g, players);
    assert_non_null(out.kept);
    const tb_agent *greedy = tb_agent_find("greedy");
    for (int k = 0; k < decisions && !tb_is_over(out.truth); k++) {
        tb_move m = tb_agent_decide(greedy, out.truth, NULL, seed + (uint64_t)k, NULL);
        char text[TB_MOVE_TEXT];
        tb_move_to_text(out.truth, m, text, sizeof text);
        tb_inference_observe(out.kept, out.truth, m);
        tb_apply(out.truth, m);
        assert_int_equal(tb_record_push(out.rec, text), 0);
    }
    return out;
}

static void game_free(game *g)
{
    tb_state_free(g->start);
    tb_state_free(g->truth);
    tb_record_free(g->rec);
    tb_inference_free(g->kept);
}

static void assert_same_report(const tb_agent_report *a, const tb_agent_report *b)
{
    assert_int_equal(a->iterations, b->iterations);
    assert_int_equal(a->count, b->count);
    for (int i = 0; i < a->count; i++) {
        assert_int_equal(a->move[i], b->move[i]);
        assert_int_equal(a->visits[i], b->visits[i]);
    }
}

static bool same_report(const tb_agent_report *a, const tb_agent_report *b)
{
    if (a->count != b->count)
        return false;
    for (int i = 0; i < a->count; i++)
        if (a->move[i] != b->move[i] || a->visits[i] != b->visits[i])
            return false;
    return true;
}

/* The three paths at one position; *differs says whether they differ from
 * the uniform search at any of a few seeds. */
static void check_paths(int players, int64_t iterations, bool expect_infer)
{
    game g = play_greedy(players, 11, 12);
    const tb_agent *ismcts = tb_agent_find("ismcts");
    tb_budget budget = {.iterations = iterations};
    bool differs = false;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        tb_agent_report play, server, kept, uniform;
        bool inferred = false;
        /* tabula play: its start position and its record */
        tb_move a = tb_agent_decide_game(ismcts, g.truth, g.start, g.rec, &budget, TB_INFER_RULE,
                                         seed, &play, &inferred);
        assert_int_equal(inferred, expect_infer);
        /* the server: a copy of the record, the start replayed from it */
        tb_record *copy = tb_record_dup(g.rec);
        assert_non_null(copy);
        tb_move b = srv_room_search(NULL, ismcts, g.truth, copy, &budget, seed, &server);
        tb_record_free(copy);
        assert_int_equal(a, b);
        assert_same_report(&play, &server);
        /* a caller that kept the inference itself */
        tb_budget with = budget;
        with.inference = expect_infer ? g.kept : NULL;
        tb_move c = tb_agent_decide(ismcts, g.truth, &with, seed, &kept);
        assert_int_equal(a, c);
        assert_same_report(&play, &kept);
        tb_agent_decide(ismcts, g.truth, &budget, seed, &uniform);
        differs |= !same_report(&play, &uniform);
    }
    assert_int_equal(differs, expect_infer);
    game_free(&g);
}

/* Two players: the rule infers at every budget. */
static void test_paths_two_players(void **st)
{
    (void)st;
    check_paths(2, 300, true);
}

/* Four players: not at 1000 iterations, from 5000 up. */
static void test_paths_four_players(void **st)
{
    (void)st;
    check_paths(4, 1000, false);
    check_paths(4, 5000, true);
}

static void test_rule(void **st)
{
    (void)st;
    const tb_game *clans = tb_game_find("clans"), *arkadia = tb_game_find("arkadia");
    tb_budget b = {0};
    assert_true(tb_infer_rule(clans, 2, &b)); /* no budget: the search's 5000 */
    assert_true(tb_infer_rule(clans, 4, &b));
    b.iterations = 300;
    assert_true(tb_infer_rule(clans, 2, &b));
    assert_false(tb_infer_rule(clans, 3, &b));
    b.iterations = 4999;
    assert_false(tb_infer_rule(clans, 4, &b));
    b.iterations = 5000;
    assert_true(tb_infer_rule(clans, 4, &b));
    b.iterations = 0;
    b.time_ms = 100;
    assert_false(tb_infer_rule(clans, 4, &b));
    assert_false(tb_infer_rule(arkadia, 2, NULL));
}

/* infer=on and off override the rule; only the search infers by the rule;
 * a history that does not end at the position decided gives no inference. */
static void test_modes_and_bad_history(void **st)
{
    (void)st;
    game g = play_greedy(4, 5, 10);
    const tb_agent *ismcts = tb_agent_find("ismcts"), *greedy = tb_agent_find("greedy");
    tb_budget small = {.iterations = 200};
    bool inferred = true;
    tb_agent_decide_game(ismcts, g.truth, g.start, g.rec, &small, TB_INFER_ON, 1, NULL, &inferred);
    assert_true(inferred);
    tb_agent_decide_game(ismcts, g.truth, g.start, g.rec, NULL, TB_INFER_OFF, 1, NULL, &inferred);
    assert_false(inferred);
    tb_agent_decide_game(greedy, g.truth, g.start, g.rec, NULL, TB_INFER_RULE, 1, NULL, &inferred);
    assert_false(inferred);
    tb_agent_decide_game(ismcts, g.truth, g.start, NULL, &small, TB_INFER_ON, 1, NULL, &inferred);
    assert_false(inferred);
    /* one decision short of the truth */
    tb_record *shorter = tb_record_dup(g.rec);
    tb_record_pop(shorter);
    tb_agent_decide_game(ismcts, g.truth, g.start, shorter, &small, TB_INFER_ON, 1, NULL, &inferred);
    assert_false(inferred);
    /* a decision that does not replay */
    tb_record_push(shorter, "not a decision");
    assert_null(tb_inference_replay(g.start, shorter));
    tb_agent_decide_game(ismcts, g.truth, g.start, shorter, &small, TB_INFER_ON, 1, NULL, &inferred);
    assert_false(inferred);
    tb_record_free(shorter);
    game_free(&g);
}

/* tb_inference_chances: the replayed inference gives the kept one's chances,
 * most likely first, summing to 1, the seat's own colour never offered, the
 * words whole percents. */
static void test_chances(void **st)
{
    (void)st;
    game g = play_greedy(3, 9, 15);
    tb_inference *inf = tb_inference_replay(g.start, g.rec);
    assert_non_null(inf);
    assert_int_equal(tb_inference_decisions(inf), tb_decisions_made(g.truth));
    int seat = 0;
    for (int other = 1; other < 3; other++) {
        tb_role_chance c[8];
        int n = tb_inference_chances(inf, g.truth, seat, other, c, 8);
        assert_true(n >= 1 && n <= 4);
        double sum = 0.0;
        for (int i = 0; i < n; i++) {
            assert_int_not_equal(c[i].role, tb_role_of(g.truth, seat));
            if (i)
                assert_true(c[i].chance <= c[i - 1].chance);
            assert_true(c[i].chance > 0.0);
            double want = tb_inference_chance(g.kept, g.truth, seat, other, c[i].role);
            assert_true(c[i].chance > want - 1e-12 && c[i].chance < want + 1e-12);
            sum += c[i].chance;
            char words[16];
            if (c[i].chance < 0.005)
                snprintf(words, sizeof words, "under 1%%");
            else if (c[i].chance > 0.995)
                snprintf(words, sizeof words, "over 99%%");
            else
                snprintf(words, sizeof words, "%.0f%%", 100.0 * c[i].chance);
            assert_string_equal(c[i].words, words);
        }
        assert_true(sum > 1.0 - 1e-9 && sum < 1.0 + 1e-9);
        /* at most max, the most likely kept */
        tb_role_chance top;
        assert_int_equal(tb_inference_chances(inf, g.truth, seat, other, &top, 1), 1);
        assert_int_equal(top.role, c[0].role);
    }
    tb_role_chance c[8];
    assert_int_equal(tb_inference_chances(inf, g.truth, seat, 3, c, 8), -1);
    assert_int_equal(tb_inference_chances(NULL, g.truth, seat, 1, c, 8), -1);
    tb_inference_free(inf);
    game_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_two_players),
        cmocka_unit_test(test_paths_four_players),
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_modes_and_bad_history),
        cmocka_unit_test(test_chances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
