/*
 * test_ai.c — unit tests of the agents (src/ai): no agent can peek at
 * secrets the mover cannot see, decisions are legal and deterministic, the
 * search honours its budgets, its node cap and its threads, it leaves out the
 * decisions a game knows to be dominated, the report is well formed, and the
 * agents are stronger than chance where they should be.
 *
 * Positions come from seeded random games of every registered game at every
 * player count, so a game that joins the registry is tested here too.
 */
#include "tabula.h"
#include "ai/agents.h"
#include "test_positions.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

static bool test_same_view(const tb_state *a, const tb_state *b, int seat)
{
    char *va = tb_view_json(a, seat), *vb = tb_view_json(b, seat);
    bool same = strcmp(va, vb) == 0;
    free(va);
    free(vb);
    return same;
}

/* ---- a spy agent: records exactly what tb_agent_decide hands an agent ---- */
typedef struct test_spy_log {
    char *state[2];
    int seat[2];
    int calls;
} test_spy_log;

static test_spy_log spy_log;

static tb_move spy_choose(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                          tb_agent_report *report)
{
    (void)budget;
    (void)report;
    if (spy_log.calls < 2) {
        spy_log.state[spy_log.calls] = tb_state_json(view);
        spy_log.seat[spy_log.calls] = seat;
    }
    spy_log.calls++;
    return tb_random_move(view, rng);
}

static const tb_agent spy_agent = {"spy", "records the state it is handed", spy_choose};

static void decide_hands_agents_the_same_state_for_both_truths(void **unused)
{
    (void)unused;
    int pairs = 0;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        for (int players = tb_game_min_players(g); players <= tb_game_max_players(g); players++) {
            for (uint64_t seed = 1; seed <= 6; seed++) {
                tb_state *a = test_position(g, players, seed, (int)(seed * 7));
                tb_state *b = test_other_truth(a, tb_to_move(a), 1000);
                if (!b) {
                    tb_state_free(a);
                    continue;
                }
                int mover = tb_to_move(a);
                assert_true(test_same_view(a, b, mover));
                memset(&spy_log, 0, sizeof spy_log);
                tb_budget budget = {.iterations = 10};
                tb_move ma = tb_agent_decide(&spy_agent, a, &budget, 99 + seed, NULL);
                tb_move mb = tb_agent_decide(&spy_agent, b, &budget, 99 + seed, NULL);
                assert_int_equal(spy_log.calls, 2);
                assert_int_equal(spy_log.seat[0], mover);
                assert_int_equal(spy_log.seat[1], mover);
                if (strcmp(spy_log.state[0], spy_log.state[1]) != 0)
                    fail_msg("%s/%d seed %llu: the agent was handed different states for two "
                             "truths the mover cannot tell apart", tb_game_name(g), players,
                             (unsigned long long)seed);
                assert_int_equal(ma, mb);
                free(spy_log.state[0]);
                free(spy_log.state[1]);
                pairs++;
                tb_state_free(a);
                tb_state_free(b);
            }
        }
    }
    assert_true(pairs > 0); /* Clans hides colours: there are always pairs */
}

static void no_agent_decides_differently_on_secrets_it_cannot_see(void **unused)
{
    (void)unused;
    int pairs = 0;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        for (int players = tb_game_min_players(g); players <= tb_game_max_players(g); players++) {
            for (uint64_t seed = 11; seed <= 14; seed++) {
                tb_state *a = test_position(g, players, seed, (int)(seed * 3));
                tb_state *b = test_other_truth(a, tb_to_move(a), 1000);
                if (!b) {
                    tb_state_free(a);
                    continue;
                }
                for (int k = 0; k < tb_agent_count(); k++) {
                    const tb_agent *agent = tb_agent_at(k);
                    tb_budget budget = {.iterations = 200};
                    tb_agent_report ra, rb;
                    tb_move ma = tb_agent_decide(agent, a, &budget, seed * 31, &ra);
                    tb_move mb = tb_agent_decide(agent, b, &budget, seed * 31, &rb);
                    if (ma != mb)
                        fail_msg("%s chose differently on two truths seat %d cannot tell "
                                 "apart (%s/%d seed %llu)", agent->name, tb_to_move(a),
                                 tb_game_name(g), players, (unsigned long long)seed);
                    assert_memory_equal(&ra, &rb, sizeof ra);
                }
                pairs++;
                tb_state_free(a);
                tb_state_free(b);
            }
        }
    }
    assert_true(pairs > 0);
}

static void every_decision_is_legal(void **unused)
{
    (void)unused;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        for (int players = tb_game_min_players(g); players <= tb_game_max_players(g); players++) {
            for (uint64_t seed = 1; seed <= 12; seed++) {
                tb_state *s = test_position(g, players, seed * 101, (int)(seed * 5 % 60));
                for (int k = 0; k < tb_agent_count(); k++) {
                    const tb_agent *agent = tb_agent_at(k);
                    tb_budget budget = {.iterations = 60};
                    tb_move m = tb_agent_decide(agent, s, &budget, seed, NULL);
                    if (!tb_is_legal(s, m))
                        fail_msg("%s chose an illegal decision in %s/%d seed %llu",
                                 agent->name, tb_game_name(g), players,
                                 (unsigned long long)seed);
                }
                tb_state_free(s);
            }
        }
    }
}

static void agents_play_whole_games_legally(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    for (int players = 2; players <= 4; players++) {
        tb_state *s = tb_state_new(g);
        tb_setup(s, players, NULL, (uint64_t)players, NULL, 0);
        tb_budget budget = {.iterations = 50};
        int n = 0;
        while (!tb_is_over(s)) {
            const tb_agent *agent = tb_agent_at(n % tb_agent_count());
            tb_move m = tb_agent_decide(agent, s, &budget, (uint64_t)n, NULL);
            char err[TB_ERR_LEN];
            if (tb_apply_checked(s, m, err, sizeof err) != 0)
                fail_msg("%s: %s", agent->name, err);
            n++;
        }
        assert_true(n > 10);
        tb_state_free(s);
    }
}

static void search_is_deterministic_for_a_seed_and_iterations(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    const tb_agent *ismcts = tb_agent_find("ismcts");
    assert_non_null(ismcts);
    int differs_with_seed = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        tb_state *s = test_position(g, 3, seed, 4);
        for (int threads = 1; threads <= 3; threads += 2) {
            tb_budget budget = {.iterations = 600, .threads = threads};
            tb_agent_report r1, r2, r3;
            tb_move a = tb_agent_decide(ismcts, s, &budget, 42, &r1);
            tb_move b = tb_agent_decide(ismcts, s, &budget, 42, &r2);
            tb_move c = tb_agent_decide(ismcts, s, &budget, 43, &r3);
            assert_int_equal(a, b);
            assert_memory_equal(&r1, &r2, sizeof r1);
            differs_with_seed += memcmp(&r1, &r3, sizeof r1) != 0;
            (void)c;
        }
        tb_state_free(s);
    }
    /* The seed matters: another seed searches another tree. */
    assert_true(differs_with_seed > 0);
}

/* The agent searches each game with that game's settings: its report is
 * the search's with tb__ismcts_defaults(game), and for Khronos, whose
 * playouts are set apart, not the one with the general settings. */
static void the_agent_searches_each_game_with_its_settings(void **unused)
{
    (void)unused;
    tb__ismcts_config general = tb__ismcts_defaults(NULL);
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        tb__ismcts_config own = tb__ismcts_defaults(g);
        bool set_apart = strcmp(tb_game_name(g), "khronos") == 0;
        assert_int_equal(own.playout_depth != general.playout_depth ||
                             own.playout_pick != general.playout_pick ||
                             own.exploration != general.exploration,
                         set_apart);
        int differs_from_general = 0;
        for (uint64_t seed = 1; seed <= 3; seed++) {
            tb_state *s = test_position(g, 2, seed, 6);
            int seat = tb_to_move(s);
            tb_budget budget = {.iterations = 400};
            tb_agent_report by_agent, by_own, by_general;
            tb_state *view = tb_state_dup(s);
            tb_rng rng;
            tb_rng_seed(&rng, seed);
            tb__ismcts_agent.choose(view, seat, &budget, &rng, &by_agent);
            tb_state_copy(view, s);
            tb_rng_seed(&rng, seed);
            tb__ismcts_search(view, seat, &budget, &rng, &by_own, &own);
            tb_state_copy(view, s);
            tb_rng_seed(&rng, seed);
            tb__ismcts_search(view, seat, &budget, &rng, &by_general, &general);
            assert_memory_equal(&by_agent, &by_own, sizeof by_agent);
            differs_from_general += memcmp(&by_own, &by_general, sizeof by_own) != 0;
            tb_state_free(view);
            tb_state_free(s);
        }
        if (set_apart)
            assert_true(differs_from_general > 0);
        else
            assert_int_equal(differs_from_general, 0);
    }
}

/* A Khronos position where the player to move has sent both adventurers
 * travelling (so travelling either again is dominated) and keeps only the
 * first `keep` cards of the hand (the rest go to the discards). */
static tb_state *test_khronos_after_travels(uint64_t seed, size_t keep)
{
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_new(tb_game_find("khronos"));
    assert_int_equal(tb_setup(s, 2, NULL, seed, err, sizeof err), 0);
    int p = tb_to_move(s);
    assert_int_equal(tb_play_text(s, "travel might faith", err, sizeof err), 0);
    assert_int_equal(tb_play_text(s, "travel might reason", err, sizeof err), 0);
    char *text = tb_state_json(s);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    json_t *hands = json_object_get(j, "hands");
    const char *hand = json_string_value(json_array_get(hands, (size_t)p));
    const char *discard = json_string_value(json_object_get(j, "discard"));
    assert_non_null(hand);
    assert_non_null(discard);
    assert_true(strlen(hand) >= keep);
    char kept[16], thrown[128];
    snprintf(kept, sizeof kept, "%.*s", (int)keep, hand);
    snprintf(thrown, sizeof thrown, "%s%s", discard, hand + keep);
    json_array_set_new(hands, (size_t)p, json_string(kept));
    json_object_set_new(j, "discard", json_string(thrown));
    text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    tb_state *t = tb_state_load(text, err, sizeof err);
    free(text);
    if (!t)
        fail_msg("%s", err);
    tb_state_free(s);
    return t;
}

static void the_search_leaves_out_dominated_decisions(void **unused)
{
    (void)unused;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        /* no cards: of the legal decisions (four travels and the end of the
         * turn) only the end is worth searching, so it is chosen at once */
        tb_state *s = test_khronos_after_travels(seed, 0);
        tb_move all[TB_MAX_MOVES], kept[TB_MAX_MOVES];
        assert_int_equal(tb_legal(s, all), 5);
        assert_int_equal(tb_legal_undominated(s, kept), 1);
        tb_budget budget = {.iterations = 300};
        tb_agent_report r;
        tb_move m = tb_agent_decide(&tb__ismcts_agent, s, &budget, seed, &r);
        assert_int_equal(m, kept[0]);
        assert_int_equal(r.count, 1);
        tb_state_free(s);
        /* one card: the search grows every undominated decision at the root
         * (with and without virtual visits there), and nothing else */
        s = test_khronos_after_travels(seed, 1);
        int n = tb_legal_undominated(s, kept);
        assert_true(n >= 2 && n <= TB_REPORT_MOVES);
        assert_true(tb_legal(s, all) == n + 4);
        for (int prior = 0; prior <= 5; prior += 5) {
            tb__ismcts_config cfg = tb__ismcts_defaults(tb_state_game(s));
            cfg.root_prior = prior;
            tb_state *view = tb_state_dup(s);
            tb_rng rng;
            tb_rng_seed(&rng, seed);
            budget.iterations = 2000;
            tb__ismcts_search(view, tb_to_move(s), &budget, &rng, &r, &cfg);
            assert_int_equal(r.count, n);
            for (int i = 0; i < r.count; i++) {
                bool listed = false;
                for (int k = 0; k < n; k++)
                    listed = listed || r.move[i] == kept[k];
                assert_true(listed);
                assert_true(r.visits[i] > 0);
            }
            tb_state_free(view);
        }
        tb_state_free(s);
    }
}

static void report_is_well_formed(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    for (int k = 0; k < tb_agent_count(); k++) {
        const tb_agent *agent = tb_agent_at(k);
        for (uint64_t seed = 1; seed <= 5; seed++) {
            tb_state *s = test_position(g, 2, seed, (int)seed * 6);
            tb_budget budget = {.iterations = 500};
            tb_agent_report r;
            memset(&r, 0xff, sizeof r); /* the agent must fill it in */
            tb_move m = tb_agent_decide(agent, s, &budget, seed, &r);
            assert_in_range(r.count, 0, TB_REPORT_MOVES);
            if (strcmp(agent->name, "random") == 0) {
                tb_state_free(s);
                continue;
            }
            assert_true(r.count >= 1);
            assert_int_equal(r.move[0], m);
            int64_t visits = 0;
            for (int i = 0; i < r.count; i++) {
                assert_true(tb_is_legal(s, r.move[i]));
                assert_true(r.value[i] >= 0.0 && r.value[i] <= 1.0);
                assert_true(r.visits[i] >= 0);
                if (i > 0 && strcmp(agent->name, "ismcts") == 0)
                    assert_true(r.visits[i] <= r.visits[i - 1]);
                if (i > 0 && strcmp(agent->name, "greedy") == 0)
                    assert_true(r.value[i] <= r.value[0]);
                visits += r.visits[i];
            }
            if (strcmp(agent->name, "ismcts") == 0) {
                assert_int_equal(r.iterations, 500);
                assert_true(visits <= 500);
                assert_true(r.visits[0] >= 2); /* the search came back to its best */
            }
            tb_state_free(s);
        }
    }
}

static void tiny_node_caps_still_give_legal_decisions(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    int64_t caps[] = {1, 2, 3, 10, 100};
    for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
        for (uint64_t seed = 1; seed <= 4; seed++) {
            tb_state *s = test_position(g, 4, seed, (int)seed * 9);
            for (int threads = 1; threads <= 2; threads++) {
                tb__ismcts_config cfg = tb__ismcts_defaults(g);
                cfg.node_cap = caps[c];
                tb_state *view = tb_state_dup(s);
                tb_rng rng;
                tb_rng_seed(&rng, seed);
                tb_budget budget = {.iterations = 300, .threads = threads};
                tb_agent_report r;
                tb_move m = tb__ismcts_search(view, tb_to_move(s), &budget, &rng, &r, &cfg);
                assert_true(tb_is_legal(s, m));
                assert_int_equal(r.iterations, 300); /* it kept searching */
                int64_t visits = 0;
                for (int i = 0; i < r.count; i++)
                    visits += r.visits[i];
                assert_true(visits <= 300);
                /* Each tree holds at most cap/threads nodes: a root and
                 * its children, so at most that many decisions are reported. */
                int64_t per_tree = caps[c] / threads < 1 ? 1 : caps[c] / threads;
                assert_true(r.count <= (per_tree - 1) * threads || r.count <= 1);
                tb_state_free(view);
            }
            tb_state_free(s);
        }
    }
}

static void threads_share_the_iterations(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    const tb_agent *ismcts = tb_agent_find("ismcts");
    tb_state *s = test_position(g, 2, 77, 10);
    int threads[] = {1, 2, 4, 7};
    for (size_t i = 0; i < sizeof threads / sizeof *threads; i++) {
        tb_budget budget = {.iterations = 1001, .threads = threads[i]};
        tb_agent_report r;
        tb_move m = tb_agent_decide(ismcts, s, &budget, 5, &r);
        assert_true(tb_is_legal(s, m));
        assert_int_equal(r.iterations, 1001);
        int64_t visits = 0;
        for (int k = 0; k < r.count; k++)
            visits += r.visits[k];
        assert_true(visits > 0 && visits <= 1001);
    }
    tb_state_free(s);
}

/* A fake clock the test controls: each reading advances 250 microseconds. */
static uint64_t fake_clock_now;
static uint64_t fake_clock(void)
{
    return fake_clock_now += 250;
}

static void time_budgets_stop_on_the_callers_clock(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    const tb_agent *ismcts = tb_agent_find("ismcts");
    tb_state *s = test_position(g, 2, 8, 6);
    tb_budget budget = {.time_ms = 10, .now_us = fake_clock};
    tb_agent_report r;
    fake_clock_now = 0;
    tb_move m = tb_agent_decide(ismcts, s, &budget, 1, &r);
    assert_true(tb_is_legal(s, m));
    /* 10 ms are 40 readings of the fake clock, one per 16 iterations. */
    assert_in_range(r.iterations, 16 * 30, 16 * 50);
    /* With both limits the first one reached stops the search. */
    budget.iterations = 100;
    fake_clock_now = 0;
    tb_agent_decide(ismcts, s, &budget, 1, &r);
    assert_int_equal(r.iterations, 100);
    /* Without a clock a time limit cannot be honoured: the default
     * iteration budget applies instead of searching for ever. */
    tb_budget no_clock = {.time_ms = 10};
    tb_agent_decide(ismcts, s, &no_clock, 1, &r);
    assert_int_equal(r.iterations, tb__ismcts_defaults(NULL).default_iterations);
    tb_state_free(s);
}

static void greedy_takes_the_best_one_ply_decision(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    const tb_agent *greedy = tb_agent_find("greedy");
    assert_non_null(greedy);
    int checked = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        tb_state *s = test_position(g, 2, seed, 20 + (int)seed);
        int mover = tb_to_move(s);
        tb_move chosen = tb_agent_decide(greedy, s, NULL, seed, NULL);
        /* The Clans heuristic uses only what the mover knows, so it can be
         * checked on the true state. */
        tb_move moves[TB_MAX_MOVES];
        int n = tb_legal(s, moves);
        tb_state *t = tb_state_new(g);
        double best = -1.0, got = -1.0;
        for (int i = 0; i < n; i++) {
            tb_state_copy(t, s);
            tb_apply(t, moves[i]);
            double v;
            if (tb_is_over(t)) {
                double r[TB_MAX_SEATS];
                tb_returns(t, r);
                v = r[mover];
                tb_state_free(t);
                t = NULL;
                break; /* a decision that ends the game: skip this position */
            }
            v = tb_heuristic(t, mover);
            if (v > best)
                best = v;
            if (moves[i] == chosen)
                got = v;
        }
        if (t) {
            assert_true(got >= 0.0);
            assert_true(got == best);
            checked++;
            tb_state_free(t);
        }
        tb_state_free(s);
    }
    assert_true(checked > 10);
}

/* Plays `games` two-player games of Clans, seats alternating; returns the
 * first agent's share of the wins. */
static double test_duel(const tb_agent *a, const tb_agent *b, int64_t iterations, int games)
{
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    double won = 0.0;
    for (int i = 0; i < games; i++) {
        tb_setup(s, 2, NULL, (uint64_t)(500 + i / 2), NULL, 0);
        int a_seat = i % 2;
        tb_budget budget = {.iterations = iterations};
        while (!tb_is_over(s)) {
            const tb_agent *who = tb_to_move(s) == a_seat ? a : b;
            tb_apply(s, tb_agent_decide(who, s, &budget,
                                        (uint64_t)(i * 1000 + tb_decisions_made(s)), NULL));
        }
        double r[TB_MAX_SEATS];
        tb_returns(s, r);
        won += r[a_seat];
    }
    tb_state_free(s);
    return won / games;
}

static void agents_beat_chance(void **unused)
{
    (void)unused;
    const tb_agent *random_agent = tb_agent_find("random");
    const tb_agent *greedy = tb_agent_find("greedy");
    const tb_agent *ismcts = tb_agent_find("ismcts");
    double g = test_duel(greedy, random_agent, 0, 20);
    double m = test_duel(ismcts, random_agent, 300, 10);
    if (g < 0.8 || m < 0.8)
        fail_msg("greedy won %.0f%% against random, ismcts (300 iterations) %.0f%%", 100 * g,
                 100 * m);
}

/* Levels map to the search with rising budgets; a game slow to search has
 * its own, smaller budget at `hard`; an unknown level is refused. */
static void levels_map_to_budgets_per_game(void **unused)
{
    (void)unused;
    const char *levels[] = {"easy", "normal", "hard"};
    for (int g = -1; g < tb_game_count(); g++) {
        const tb_game *game = g < 0 ? NULL : tb_game_at(g);
        int64_t last = 0;
        for (int i = 0; i < 3; i++) {
            const tb_agent *a = NULL;
            tb_budget b;
            memset(&b, 0xff, sizeof b);
            assert_int_equal(tb_level_lookup(game, levels[i], &a, &b), 0);
            assert_non_null(a);
            assert_string_equal(a->name, "ismcts");
            assert_int_equal(b.time_ms, 0); /* iterations only: the same on every machine */
            assert_int_equal(b.threads, 0);
            assert_true(b.iterations > last);
            last = b.iterations;
        }
    }
    const tb_agent *a;
    tb_budget b;
    assert_int_equal(tb_level_lookup(tb_game_find("clans"), "hard", &a, &b), 0);
    assert_int_equal(b.iterations, 50000);
    assert_int_equal(tb_level_lookup(NULL, "hard", &a, &b), 0);
    assert_int_equal(b.iterations, 50000);
    assert_int_equal(tb_level_lookup(tb_game_find("khronos"), "hard", &a, &b), 0);
    assert_int_equal(b.iterations, 25000);
    assert_int_equal(tb_level_lookup(tb_game_find("khronos"), "normal", &a, &b), 0);
    assert_int_equal(b.iterations, 5000);
    assert_int_equal(tb_level_lookup(NULL, "expert", &a, &b), -1);
    assert_int_equal(tb_level_lookup(tb_game_find("khronos"), "Hard", &a, &b), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decide_hands_agents_the_same_state_for_both_truths),
        cmocka_unit_test(no_agent_decides_differently_on_secrets_it_cannot_see),
        cmocka_unit_test(every_decision_is_legal),
        cmocka_unit_test(agents_play_whole_games_legally),
        cmocka_unit_test(search_is_deterministic_for_a_seed_and_iterations),
        cmocka_unit_test(the_agent_searches_each_game_with_its_settings),
        cmocka_unit_test(the_search_leaves_out_dominated_decisions),
        cmocka_unit_test(report_is_well_formed),
        cmocka_unit_test(tiny_node_caps_still_give_legal_decisions),
        cmocka_unit_test(threads_share_the_iterations),
        cmocka_unit_test(time_budgets_stop_on_the_callers_clock),
        cmocka_unit_test(greedy_takes_the_best_one_ply_decision),
        cmocka_unit_test(agents_beat_chance),
        cmocka_unit_test(levels_map_to_budgets_per_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
