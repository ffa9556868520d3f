/*
 * test_net.c — the network of src/ai/net.c and its use by the search: a
 * small file evaluates to hand-computed numbers, every malformed file is
 * refused with its line, a file for another game or size is refused, and
 * ismcts with a network plays legal, repeatable decisions whose choice
 * follows the network's policy (a network that wants one decision makes a
 * short search pick it where the plain search does not); and
 * tb_agent_decide_policy gives the search's visits, summing to its
 * iterations, with the same decision as tb_agent_decide.
 */
#include "tabula.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* 2 inputs, one hidden layer of 2 (ReLU), 3 actions, the value head. */
static const char small_net[] = "tabula-net 1\n"
                                "game clans players 2 observation 2 actions 3\n"
                                "hidden 1 2\n"
                                "1 -1\n"  /* hidden row 0 */
                                "0.5 2\n" /* hidden row 1 */
                                "0 0.5\n" /* hidden biases */
                                "1 0\n0 1\n1 1\n" /* policy rows */
                                "0 0 -1\n"        /* policy biases */
                                "2 -1\n"          /* value row */
                                "0.25\n";         /* value bias */

static void small_network_evaluates_by_hand(void **unused)
{
    (void)unused;
    char err[256];
    tb_net *net = tb_net_parse(NULL, small_net, strlen(small_net), err, sizeof err);
    assert_non_null(net);
    float obs[2] = {3, 1}, scratch[64], probs[3];
    assert_true(tb_net_scratch(net) <= 64);
    /* hidden: relu(3 - 1 + 0) = 2, relu(1.5 + 2 + 0.5) = 4 */
    double v = tb_net_value(net, obs, scratch); /* 2*2 - 4 + 0.25 = 0.25 */
    assert_true(fabs(v - 1.0 / (1.0 + exp(-0.25))) < 1e-6);
    int32_t actions[3] = {0, 1, 2}; /* logits 2, 4, 5 */
    assert_int_equal(tb_net_policy(net, obs, actions, 3, probs, scratch), 0);
    double z = exp(2.0) + exp(4.0) + exp(5.0);
    assert_true(fabs(probs[0] - exp(2.0) / z) < 1e-6);
    assert_true(fabs(probs[2] - exp(5.0) / z) < 1e-6);
    int32_t two[2] = {2, 0}; /* a subset, in its own order */
    assert_int_equal(tb_net_policy(net, obs, two, 2, probs, scratch), 0);
    assert_true(fabs(probs[0] - exp(5.0) / (exp(5.0) + exp(2.0))) < 1e-6);
    int32_t bad[1] = {3};
    assert_int_equal(tb_net_policy(net, obs, bad, 1, probs, scratch), -1);
    assert_false(tb_net_fits(net, tb_game_find("clans"), 2)); /* not Clans's sizes */
    tb_net_free(net);
}

static void malformed_files_are_refused_with_their_line(void **unused)
{
    (void)unused;
    static const struct {
        const char *text, *words;
    } cases[] = {
        {"", "expected 'tabula-net'"},
        {"tabula-net 2\n", "the version must be"},
        {"tabula-net 1\ngame clans players 0", "players must be"},
        {"tabula-net 1\ngame clans players 2 observation 2 actions 3\nhidden 1 2\n1 2\n",
         "the file ends after 2 of its 18 numbers"},
        {"tabula-net 1\ngame clans players 2 observation 2 actions 3\nhidden 1 2\n"
         "1 -1 0.5 2 0 0.5 1 0 0 1 1 1 0 0 -1 2 -1 0.25 7\n",
         "more numbers than the layers hold"},
        {"tabula-net 1\ngame clans players 2 observation 2 actions 3\nhidden 1 2\n"
         "1 -1\nnan 2\n",
         "line 5: not a finite number"},
        {"tabula-net 1\ngame clans players 2 observation 2 actions 3\nhidden 1 2\n1 x\n",
         "line 4: not a finite number"},
        {"tabula-net 1\ngame clans players 2 observation 2 actions 3\nhidden 9 1 1 1 1 1 1 1 1 1",
         "number of hidden layers must be"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[256] = "";
        tb_net *net = tb_net_parse(NULL, cases[i].text, strlen(cases[i].text), err, sizeof err);
        if (net || !strstr(err, cases[i].words))
            fail_msg("case %zu: got '%s', wanted '%s'", i, err, cases[i].words);
    }
    char err[256];
    const tb_game *arkadia = tb_game_find("arkadia");
    assert_null(tb_net_parse(arkadia, small_net, strlen(small_net), err, sizeof err));
    assert_non_null(strstr(err, "the network is for clans, not arkadia"));
    assert_null(tb_net_parse(tb_game_find("clans"), small_net, strlen(small_net), err, sizeof err));
    assert_non_null(strstr(err, "are not clans's for 2 players"));
}

/* A linear network (no hidden layer) for two-player Clans whose policy
 * wants `action` above all and whose value is a constant 1/2. */
static tb_net *clans_net_wanting(int action)
{
    const tb_game *clans = tb_game_find("clans");
    int obs = tb_observation_size(clans, 2), actions = tb_num_actions(clans, 2);
    size_t numbers = (size_t)actions * (size_t)(obs + 1) + (size_t)obs + 1;
    char *text = malloc(numbers * 3 + 200);
    assert_non_null(text);
    int len = sprintf(text, "tabula-net 1\ngame clans players 2 observation %d actions %d\n"
                            "hidden 0\n", obs, actions);
    for (int a = 0; a < actions; a++) {
        for (int i = 0; i < obs; i++)
            len += sprintf(text + len, "0 ");
        text[len++] = '\n';
    }
    for (int a = 0; a < actions; a++)
        len += sprintf(text + len, "%s ", a == action ? "30" : "0");
    for (int i = 0; i <= obs; i++)
        len += sprintf(text + len, "0 ");
    char err[256];
    tb_net *net = tb_net_parse(clans, text, (size_t)len, err, sizeof err);
    if (!net)
        fail_msg("%s", err);
    free(text);
    assert_true(tb_net_fits(net, clans, 2));
    return net;
}

static void the_search_follows_the_network(void **unused)
{
    (void)unused;
    const tb_game *clans = tb_game_find("clans");
    const tb_agent *ismcts = tb_agent_find("ismcts");
    int wins_for_net = 0, plain_agrees = 0, positions = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        tb_state *s = tb_state_new(clans);
        char err[256];
        assert_int_equal(tb_setup(s, 2, NULL, seed, err, sizeof err), 0);
        tb_rng rng;
        tb_rng_seed(&rng, seed);
        for (int k = 0; k < (int)seed * 3 && !tb_is_over(s); k++)
            tb_apply(s, tb_random_move(s, &rng));
        if (tb_is_over(s)) {
            tb_state_free(s);
            continue;
        }
        tb_move legal[TB_MAX_MOVES];
        int n = tb_legal_undominated(s, legal);
        if (n < 3) {
            tb_state_free(s);
            continue;
        }
        /* the network wants the decision listed last: rarely the search's own pick */
        tb_move wanted = legal[n - 1];
        tb_net *net = clans_net_wanting(tb_move_to_action(clans, wanted));
        tb_budget plain = {.iterations = 200}, with = {.iterations = 200, .net = net};
        tb_move a = tb_agent_decide(ismcts, s, &with, 77, NULL);
        tb_move b = tb_agent_decide(ismcts, s, &with, 77, NULL);
        assert_int_equal(a, b); /* repeatable */
        assert_true(tb_is_legal(s, a));
        wins_for_net += a == wanted;
        plain_agrees += tb_agent_decide(ismcts, s, &plain, 77, NULL) == wanted;
        positions++;
        tb_net_free(net);
        tb_state_free(s);
    }
    assert_true(positions >= 4);
    assert_int_equal(wins_for_net, positions);
    assert_true(plain_agrees < positions);
}

static void decide_policy_gives_the_visits(void **unused)
{
    (void)unused;
    const tb_agent *ismcts = tb_agent_find("ismcts"), *greedy = tb_agent_find("greedy");
    const char *names[] = {"clans", "arkadia", "khronos"};
    for (int g = 0; g < 3; g++) {
        tb_state *s = tb_state_new(tb_game_find(names[g]));
        char err[256];
        assert_int_equal(tb_setup(s, 2, NULL, 5, err, sizeof err), 0);
        tb_budget b = {.iterations = 300};
        tb_move moves[TB_MAX_MOVES];
        int64_t visits[TB_MAX_MOVES];
        int count = 0;
        tb_agent_report report;
        tb_move m = tb_agent_decide_policy(ismcts, s, &b, 9, &report, moves, visits,
                                           TB_MAX_MOVES, &count);
        assert_int_equal(m, tb_agent_decide(ismcts, s, &b, 9, NULL));
        assert_true(count >= 1);
        int64_t total = 0;
        for (int i = 0; i < count; i++) {
            assert_true(tb_is_legal(s, moves[i]));
            total += visits[i];
        }
        if (report.iterations > 0) {
            assert_true(count > 1);
            assert_int_equal(moves[0], m); /* most visited first: the choice */
            assert_true(total <= report.iterations && total >= report.iterations - 1);
        }
        m = tb_agent_decide_policy(greedy, s, &b, 9, NULL, moves, visits, TB_MAX_MOVES, &count);
        assert_int_equal(count, 1);
        assert_int_equal(moves[0], m);
        assert_int_equal(visits[0], 1);
        tb_state_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_network_evaluates_by_hand),
        cmocka_unit_test(malformed_files_are_refused_with_their_line),
        cmocka_unit_test(the_search_follows_the_network),
        cmocka_unit_test(decide_policy_gives_the_visits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
