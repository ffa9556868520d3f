/*
 * test_belief.c — unit tests of the inference of hidden roles (src/ai/belief.c)
 * on Clans, the game with them: beliefs are distributions (they sum to 1,
 * give each seat its own colour, never two seats one colour); they use only
 * what the seat knows (two truths that differ only in other seats' colours
 * give the same inference, the same belief and the same search decision);
 * a decision ruled out under a colour rules that colour out exactly and
 * for good, while the floor keeps every legal decision possible; a
 * constructed position where only one colour would make the decision gives
 * certainty; and the search deals colours from the belief.
 */
#include "tabula.h"
#include "ai/agents.h"
#include "ai/belief.h"
#include "games/clans/clans.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const tb_game *clans(void)
{
    const tb_game *g = tb_game_find("clans");
    assert_non_null(g);
    return g;
}

static tb_state *new_game(int players, uint64_t seed)
{
    tb_state *s = tb_state_new(clans());
    assert_int_equal(tb_setup(s, players, NULL, seed, NULL, 0), 0);
    return s;
}

/* Checks the belief of `seat` in `s` is a distribution over assignments that
 * agree with what the seat knows, and that the chances agree with it. */
static void check_belief(const tb_inference *inf, const tb_state *s, int seat)
{
    tb__deals *d = malloc(sizeof *d);
    assert_non_null(d);
    assert_int_equal(tb__inference_deals(inf, s, seat, d), 0);
    int players = tb_players(s);
    int expect = 1;
    for (int k = 0; k < players - 1; k++)
        expect *= CLANS_COLOURS - 1 - k;
    assert_int_equal(d->count, expect);
    double sum = 0.0;
    for (int i = 0; i < d->count; i++) {
        assert_true(d->p[i] >= 0.0);
        sum += d->p[i];
        assert_int_equal(d->roles[i][seat], tb_role_of(s, seat));
        for (int p = 0; p < players; p++)
            for (int q = 0; q < p; q++)
                assert_int_not_equal(d->roles[i][p], d->roles[i][q]);
    }
    assert_true(fabs(sum - 1.0) < 1e-9);
    assert_true(fabs(d->cum[d->count - 1] - 1.0) < 1e-12);
    for (int other = 0; other < players; other++) {
        double total = 0.0;
        for (int r = 0; r < CLANS_COLOURS; r++) {
            double chance = tb_inference_chance(inf, s, seat, other, r);
            assert_true(chance >= 0.0 && chance <= 1.0 + 1e-12);
            total += chance;
            if (other == seat)
                assert_true(chance == (r == tb_role_of(s, seat) ? 1.0 : 0.0));
            else if (r == tb_role_of(s, seat))
                assert_true(chance == 0.0);
        }
        assert_true(fabs(total - 1.0) < 1e-9);
    }
    free(d);
}

static void beliefs_are_distributions_over_what_the_seat_may_think(void **unused)
{
    (void)unused;
    const tb_agent *greedy = tb_agent_find("greedy");
    for (int players = 2; players <= 4; players++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            tb_state *s = new_game(players, seed);
            tb_inference *inf = tb_inference_new(clans(), players);
            assert_non_null(inf);
            while (!tb_is_over(s)) {
                for (int seat = 0; seat < players; seat++)
                    check_belief(inf, s, seat);
                tb_move m = tb_agent_decide(greedy, s, NULL, seed * 977 + (uint64_t)tb_decisions_made(s), NULL);
                tb_inference_observe(inf, s, m);
                tb_apply(s, m);
                assert_int_equal(tb_inference_decisions(inf), tb_decisions_made(s));
            }
            tb_inference_free(inf);
            tb_state_free(s);
        }
    }
}

/* The other seats' colours of `s` (as `seat` sees them) dealt otherwise. */
static tb_state *other_truth(const tb_state *s, int seat)
{
    for (uint64_t k = 1; k < 100; k++) {
        tb_state *t = tb_state_dup(s);
        tb_rng rng;
        tb_rng_seed(&rng, k);
        tb_resample(t, seat, &rng);
        bool differs = false;
        for (int p = 0; p < tb_players(s); p++)
            differs = differs || tb_role_of(t, p) != tb_role_of(s, p);
        if (differs)
            return t;
        tb_state_free(t);
    }
    fail_msg("no other deal found");
    return NULL;
}

static void the_belief_uses_only_what_the_seat_knows(void **unused)
{
    (void)unused;
    const tb_agent *greedy = tb_agent_find("greedy"), *ismcts = tb_agent_find("ismcts");
    for (int players = 2; players <= 4; players++) {
        tb_state *a = new_game(players, 40 + (uint64_t)players);
        tb_state *b = other_truth(a, 0); /* differs in seats 1.. only */
        assert_int_equal(tb_role_of(a, 0), tb_role_of(b, 0));
        tb_inference *ia = tb_inference_new(clans(), players);
        tb_inference *ib = tb_inference_new(clans(), players);
        for (int step = 0; step < 24 && !tb_is_over(a); step++) {
            tb_move m = tb_agent_decide(greedy, a, NULL, (uint64_t)step, NULL);
            tb_inference_observe(ia, a, m);
            tb_inference_observe(ib, b, m);
            tb_apply(a, m);
            tb_apply(b, m);
        }
        /* The public record of evidence is the same whatever the truth. */
        assert_memory_equal(ia->log_evidence, ib->log_evidence, sizeof ia->log_evidence);
        /* So is seat 0's belief, which adds only seat 0's colour. */
        tb__deals *da = malloc(sizeof *da), *db = malloc(sizeof *db);
        assert_int_equal(tb__inference_deals(ia, a, 0, da), 0);
        assert_int_equal(tb__inference_deals(ib, b, 0, db), 0);
        assert_int_equal(da->count, db->count);
        assert_memory_equal(da->p, db->p, (size_t)da->count * sizeof da->p[0]);
        assert_memory_equal(da->roles, db->roles, (size_t)da->count * sizeof da->roles[0]);
        /* And the evidence has moved away from uniform: it is not trivially equal. */
        bool informative = false;
        for (int i = 1; i < da->count; i++)
            informative = informative || fabs(da->p[i] - da->p[0]) > 1e-6;
        assert_true(informative);
        /* A search dealing by the belief decides the same for both truths,
         * when seat 0 is to move. */
        while (tb_to_move(a) != 0 && !tb_is_over(a)) {
            tb_move m = tb_agent_decide(greedy, a, NULL, 7, NULL);
            tb_inference_observe(ia, a, m);
            tb_inference_observe(ib, b, m);
            tb_apply(a, m);
            tb_apply(b, m);
        }
        if (!tb_is_over(a)) {
            tb_budget ba = {.iterations = 300, .inference = ia};
            tb_budget bb = {.iterations = 300, .inference = ib};
            tb_agent_report ra, rb;
            assert_int_equal(tb_agent_decide(ismcts, a, &ba, 99, &ra),
                             tb_agent_decide(ismcts, b, &bb, 99, &rb));
            assert_memory_equal(&ra, &rb, sizeof ra);
        }
        free(da);
        free(db);
        tb_inference_free(ia);
        tb_inference_free(ib);
        tb_state_free(a);
        tb_state_free(b);
    }
}

static void an_impossible_decision_rules_a_colour_out_for_good(void **unused)
{
    (void)unused;
    for (int players = 2; players <= 4; players++) {
        tb_state *s = new_game(players, 7);
        tb_inference *inf = tb_inference_new(clans(), players);
        int other = 1, own = tb_role_of(s, 0), truth = tb_role_of(s, other);
        /* A decision of seat 1 impossible under every colour but its own. */
        double lik[TB__BELIEF_MAX_ROLES] = {0};
        lik[truth] = 0.3;
        tb__inference_update(inf, other, lik);
        for (int r = 0; r < CLANS_COLOURS; r++) {
            double chance = tb_inference_chance(inf, s, 0, other, r);
            if (r == truth)
                assert_true(fabs(chance - 1.0) < 1e-12);
            else
                assert_true(chance == 0.0); /* exactly: no floor for the impossible */
        }
        /* Later evidence, however strong, never brings a ruled-out colour back. */
        double strong[TB__BELIEF_MAX_ROLES];
        for (int r = 0; r < TB__BELIEF_MAX_ROLES; r++)
            strong[r] = r == truth ? 1e-200 : 1.0;
        for (int k = 0; k < 5; k++)
            tb__inference_update(inf, other, strong);
        assert_true(fabs(tb_inference_chance(inf, s, 0, other, truth) - 1.0) < 1e-12);
        check_belief(inf, s, 0);
        /* The seats' own colours are certain to themselves, whatever others did. */
        assert_true(tb_inference_chance(inf, s, 0, 0, own) == 1.0);
        /* Contradictory evidence (every colour ruled out) leaves the belief
         * uniform rather than empty. */
        double none[TB__BELIEF_MAX_ROLES] = {0};
        tb__inference_update(inf, other, none);
        check_belief(inf, s, 0);
        tb_inference_free(inf);
        tb_state_free(s);
    }
}

static void the_floor_keeps_every_legal_decision_possible(void **unused)
{
    (void)unused;
    tb_state *s = new_game(4, 3);
    tb_inference *inf = tb_inference_new(clans(), 4);
    tb_rng rng;
    tb_rng_seed(&rng, 5);
    tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
    int checked = 0;
    while (!tb_is_over(s)) {
        int n = tb_legal(s, moves);
        /* The worst decision too: even it has a likelihood above 0 under
         * every colour, at least floor / (legal decisions). */
        tb_move m = moves[tb_rng_below(&rng, (uint32_t)n)];
        double lik[TB__BELIEF_MAX_ROLES];
        int told = tb__inference_likelihoods(inf, s, m, lik);
        assert_int_equal(told, n < 2 ? -1 : 0);
        for (int r = 0; r < CLANS_COLOURS; r++) {
            assert_true(lik[r] > 0.0 && lik[r] <= 1.0);
            if (told == 0)
                assert_true(lik[r] >= inf->model.floor / n * (1 - 1e-12));
        }
        checked += told == 0;
        tb_inference_observe(inf, s, m);
        tb_apply(s, m);
    }
    assert_true(checked > 10);
    /* A decision that is not legal tells nothing. */
    tb_state *fresh = new_game(4, 3);
    double lik[TB__BELIEF_MAX_ROLES];
    assert_int_equal(tb__inference_likelihoods(inf, fresh, 0xffffu, lik), -1);
    for (int r = 0; r < CLANS_COLOURS; r++)
        assert_true(lik[r] == 1.0);
    free(moves);
    tb_inference_free(inf);
    tb_state_free(s);
    tb_state_free(fresh);
}

/* Empties the board of `c` but for `pairs` pairs of adjacent territories, no
 * two pairs bordering each other, pair k holding two huts of colour
 * colours[k] on each territory.  Writes each pair's territories. */
static int isolated_pairs(clans_state *c, const int *colours, int pairs, int pair[][2])
{
    uint64_t taken = 0, near = 0;
    int found = 0;
    for (int a = 0; a < CLANS_TERRITORIES && found < pairs; a++) {
        for (int b = a + 1; b < CLANS_TERRITORIES && found < pairs; b++) {
            uint64_t both = (1ull << a) | (1ull << b);
            if (!(clans__adjacent[a] >> b & 1) || (both & (taken | near)))
                continue;
            /* Each end must be a terrain that scores in epoch I (not mountain). */
            if (clans__territory[a].terrain == CLANS_MOUNTAIN ||
                clans__territory[b].terrain == CLANS_MOUNTAIN)
                continue;
            taken |= both;
            near |= clans__adjacent[a] | clans__adjacent[b];
            pair[found][0] = a;
            pair[found][1] = b;
            found++;
        }
    }
    memset(c->huts, 0, sizeof c->huts);
    memset(c->size, 0, sizeof c->size);
    c->occupied = 0;
    int kept = 0;
    for (int k = 0; k < found; k++) {
        for (int e = 0; e < 2; e++) {
            int t = pair[k][e];
            clans__set_huts(c, t, colours[k], 2);
            c->size[t] = 2;
            c->occupied |= 1ull << t;
            kept += 2;
        }
    }
    c->removed = (uint8_t)(CLANS_TERRITORIES - kept);
    clans__compute_live(c);
    return found;
}

static void a_decision_only_one_colour_would_make_gives_certainty(void **unused)
{
    (void)unused;
    /* Two players; seat 0 holds red; seat 1 is to move.  Four isolated
     * pairs, one of each other colour: any move founds a village of one
     * colour.  A sharp model (no floor, a small temperature) of a seat that
     * founds the blue village must conclude that seat is blue. */
    const tb__belief_model sharp = {.temperature = 0.001, .floor = 0.0};
    const int colours[4] = {1, 2, 3, 4}; /* blue, green, yellow, black */
    for (int holder = 1; holder <= 4; holder++) {
        tb_state *s = new_game(2, 11);
        clans_state *c = (clans_state *)s;
        int pair[4][2];
        assert_int_equal(isolated_pairs(c, colours, 4, pair), 4);
        c->colour[0] = 0;
        c->colour[1] = (uint8_t)holder;
        c->turn = 1;
        assert_int_equal(tb_to_move(s), 1);
        /* The decision: move the holder's pair onto itself. */
        int k = holder - 1;
        tb_move m = ((tb_move)(pair[k][0] + 1) << 8) | (tb_move)(pair[k][1] + 1);
        assert_true(tb_is_legal(s, m));
        tb_inference *inf = tb__inference_new_model(clans(), 2, &sharp);
        tb_inference_observe(inf, s, m);
        double sure = tb_inference_chance(inf, s, 0, 1, holder);
        assert_true(fabs(sure - 1.0) < 1e-9);
        check_belief(inf, s, 0);
        /* The shipped model, with its floor, leans the same way and rules
         * nothing out. */
        tb_inference *soft = tb_inference_new(clans(), 2);
        tb_inference_observe(soft, s, m);
        double lean = tb_inference_chance(soft, s, 0, 1, holder);
        assert_true(lean > 0.25);
        for (int r = 1; r < CLANS_COLOURS; r++) {
            double p = tb_inference_chance(soft, s, 0, 1, r);
            assert_true(p > 0.0);
            if (r != holder)
                assert_true(p < lean);
        }
        tb_inference_free(soft);
        tb_inference_free(inf);
        tb_state_free(s);
    }
}

static void the_search_deals_colours_by_the_belief(void **unused)
{
    (void)unused;
    /* Seat 0 is certain seat 1 is black: every dealing of the search gives
     * black to seat 1.  Checked through the deal draw itself. */
    tb_state *s = new_game(2, 21);
    int own = tb_role_of(s, 0);
    int black = own == 4 ? 3 : 4;
    tb_inference *inf = tb_inference_new(clans(), 2);
    double lik[TB__BELIEF_MAX_ROLES] = {0};
    lik[black] = 1.0;
    tb__inference_update(inf, 1, lik);
    inf->decisions = tb_decisions_made(s); /* as if it had seen this game's decisions */
    tb__deals *d = malloc(sizeof *d);
    assert_int_equal(tb__inference_deals(inf, s, 0, d), 0);
    tb_rng rng;
    tb_rng_seed(&rng, 3);
    tb_state *t = tb_state_dup(s);
    for (int i = 0; i < 200; i++) {
        tb__deals_apply(d, t, &rng);
        assert_int_equal(tb_role_of(t, 1), black);
        assert_int_equal(tb_role_of(t, 0), own);
    }
    /* Uniform without evidence: each of the four colours turns up. */
    tb__deals *u = malloc(sizeof *u);
    assert_int_equal(tb__inference_deals(NULL, s, 0, u), 0);
    int seen[CLANS_COLOURS] = {0};
    for (int i = 0; i < 400; i++) {
        tb__deals_apply(u, t, &rng);
        seen[tb_role_of(t, 1)]++;
    }
    for (int r = 0; r < CLANS_COLOURS; r++)
        assert_true(r == own ? seen[r] == 0 : seen[r] > 50);
    /* The search with the inference is deterministic for a seed. */
    const tb_agent *ismcts = tb_agent_find("ismcts");
    tb_budget b = {.iterations = 500, .inference = inf};
    tb_agent_report r1, r2;
    tb_move m1 = tb_agent_decide(ismcts, s, &b, 17, &r1);
    tb_move m2 = tb_agent_decide(ismcts, s, &b, 17, &r2);
    assert_int_equal(m1, m2);
    assert_memory_equal(&r1, &r2, sizeof r1);
    assert_true(tb_is_legal(s, m1));
    free(d);
    free(u);
    tb_state_free(t);
    tb_inference_free(inf);
    tb_state_free(s);
}

static void bad_arguments_change_nothing(void **unused)
{
    (void)unused;
    assert_null(tb_inference_new(tb_game_find("khronos"), 2)); /* no hidden roles */
    assert_null(tb_inference_new(clans(), 1));
    assert_null(tb_inference_new(clans(), 5));
    assert_int_equal(tb_role_count(tb_game_find("arkadia")), 0);
    assert_int_equal(tb_role_count(clans()), CLANS_COLOURS);
    assert_string_equal(tb_role_name(clans(), 1), "blue");
    assert_null(tb_role_name(clans(), 5));
    tb_inference *inf = tb_inference_new(clans(), 2);
    tb_state *four = new_game(4, 1);
    tb_inference_observe(inf, four, 0); /* wrong player count: ignored */
    assert_int_equal(tb_inference_decisions(inf), 0);
    assert_true(tb_inference_chance(inf, four, 0, 1, 1) == -1.0);
    tb_state *two = new_game(2, 1);
    assert_true(tb_inference_chance(inf, two, 0, 2, 1) == -1.0);
    assert_true(tb_inference_chance(inf, two, 0, 1, 5) == -1.0);
    int same[TB_MAX_SEATS] = {1, 1};
    int bad[TB_MAX_SEATS] = {0, 7};
    int before = tb_role_of(two, 1);
    assert_int_equal(tb_set_roles(two, same), -1);
    assert_int_equal(tb_set_roles(two, bad), -1);
    assert_int_equal(tb_role_of(two, 1), before);
    assert_int_equal(tb_role_of(two, 2), -1);
    /* An inference that has not seen the game's decisions is not used: the
     * search then decides as without one. */
    const tb_agent *ismcts = tb_agent_find("ismcts");
    tb_apply(two, tb_agent_decide(tb_agent_find("greedy"), two, NULL, 1, NULL));
    tb_budget with = {.iterations = 200, .inference = inf}, without = {.iterations = 200};
    tb_agent_report r1, r2;
    assert_int_equal(tb_agent_decide(ismcts, two, &with, 5, &r1),
                     tb_agent_decide(ismcts, two, &without, 5, &r2));
    assert_memory_equal(&r1, &r2, sizeof r1);
    tb_inference_free(inf);
    tb_inference_free(NULL);
    tb_state_free(two);
    tb_state_free(four);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(beliefs_are_distributions_over_what_the_seat_may_think),
        cmocka_unit_test(the_belief_uses_only_what_the_seat_knows),
        cmocka_unit_test(an_impossible_decision_rules_a_colour_out_for_good),
        cmocka_unit_test(the_floor_keeps_every_legal_decision_possible),
        cmocka_unit_test(a_decision_only_one_colour_would_make_gives_certainty),
        cmocka_unit_test(the_search_deals_colours_by_the_belief),
        cmocka_unit_test(bad_arguments_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
