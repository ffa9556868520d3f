/*
 * test_rating.c — unit tests of the rating maths (src/server/rating.c,
 * docs/ratings.md): the Weng–Lin Plackett–Luce update against numbers
 * worked by hand from the paper's formulas (a two-player game, a
 * three-player game with a tie for second), its invariants over many random
 * games (the better rank gains, sigma shrinks, what moves sums to nearly
 * nothing among equals, fixed seats stay, ties between equals change
 * nothing), refusals of bad input, and the computer levels' compiled table
 * (data/computer_ratings.txt: every game and level, easy anchored at 25
 * and below the others, hard above normal or not told apart from it).
 */
#include "tabula.h"
#include "server/rating.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define EPS 1e-9

/* cmocka's assert_float_equal works in float: too coarse for these numbers */
#define assert_near(a, b, eps)                                                         \
    do {                                                                               \
        double a_ = (a), b_ = (b);                                                     \
        if (!(fabs(a_ - b_) <= (eps)))                                                 \
            fail_msg("%s = %.15g, expected %.15g", #a, a_, b_);                        \
    } while (0)

static const srv_rating_params no_tau = {25.0 / 6.0, 0.0, 0.0001};

/* Two players at (25, 25/3), the first wins.  By hand, beta = 25/6:
 * c^2 = 2 (625/9 + 625/36) = 3125/18; sigma^2/c^2 = 2/5; p = 1/2 for the
 * winner's only term (C = both), so Omega = sigma^2/c (1 - 1/2) = c/5 =
 * 2.6352313834736..., and the loser's one term is -(1/2) sigma^2/c = -c/5.
 * gamma = sqrt(2/5); Delta = gamma (2/5) (1/2)(1/2) = sqrt(0.4)/10 for
 * both (the loser's own term has p = 1, p(1 - p) = 0), so
 * sigma' = sqrt(625/9 (1 - sqrt(0.4)/10)) = 8.0655063163235... */
static void two_players_by_hand(void **unused)
{
    (void)unused;
    srv_rating in[2] = {{25, 25.0 / 3}, {25, 25.0 / 3}}, out[2];
    int rank[2] = {1, 2};
    assert_int_equal(srv_rating_update(&no_tau, 2, in, rank, NULL, out), 0);
    assert_near(out[0].mu, 27.63523138347365, EPS);
    assert_near(out[1].mu, 22.36476861652635, EPS);
    assert_near(out[0].sigma, 8.065506316323546, EPS);
    assert_near(out[1].sigma, 8.065506316323546, EPS);
    /* the seat order does not matter */
    int rank2[2] = {2, 1};
    assert_int_equal(srv_rating_update(&no_tau, 2, in, rank2, NULL, out), 0);
    assert_near(out[1].mu, 27.63523138347365, EPS);
}

/* Three players at (25, 25/3): A first, B and C tied second.  By hand:
 * c^2 = 3 (3125/36) = 3125/12 (c = 16.137430609197...), sigma^2/c^2 = 4/15,
 * so sigma^2/c = 4c/15 = 4.3033148291...; C_A = {A,B,C} (p = 1/3, A_A = 1),
 * C_B = C_C = {B,C} (p = 1/2, A = 2).
 *   Omega_A = 4c/15 (1 - 1/3) = 2.8688765527...
 *   Omega_B = 4c/15 (-1/3 + (1 - 1/2)/2 - (1/2)/2) = -4c/45 = -1.4344382763...
 *   Delta_A = sqrt(4/15) (4/15) (1/3)(2/3) = 0.0306025...
 *   Delta_B = sqrt(4/15) (4/15) ((1/3)(2/3) + (1/4)/2 + (1/4)/2) = 0.0650285...
 * sigma_A' = sqrt(625/9 (1 - Delta_A)) = 8.2048370307..., sigma_B' = 8.0578297475... */
static void three_players_with_a_tie_by_hand(void **unused)
{
    (void)unused;
    srv_rating in[3] = {{25, 25.0 / 3}, {25, 25.0 / 3}, {25, 25.0 / 3}}, out[3];
    int rank[3] = {1, 2, 2};
    assert_int_equal(srv_rating_update(&no_tau, 3, in, rank, NULL, out), 0);
    assert_near(out[0].mu, 27.868876552746237, EPS);
    assert_near(out[1].mu, 23.56556172362688, EPS);
    assert_near(out[2].mu, 23.56556172362688, EPS);
    assert_near(out[0].sigma, 8.20483703078065, EPS);
    assert_near(out[1].sigma, 8.057829747583874, EPS);
    assert_near(out[2].sigma, 8.057829747583874, EPS);
    /* zero sum among equals */
    assert_near(out[0].mu + out[1].mu + out[2].mu, 75, EPS);
}

static double test_uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Random games of 2..8 seats with random ratings and ranks. */
static void invariants_of_random_games(void **unused)
{
    (void)unused;
    srv_rating_params p = srv_rating_defaults();
    uint64_t seed = 7;
    for (int g = 0; g < 20000; g++) {
        int n = 2 + (int)(test_uniform(&seed) * (SRV_RATING_MAX - 1));
        srv_rating in[SRV_RATING_MAX], out[SRV_RATING_MAX];
        int rank[SRV_RATING_MAX];
        bool fixed[SRV_RATING_MAX];
        for (int i = 0; i < n; i++) {
            in[i].mu = 10 + 30 * test_uniform(&seed);
            in[i].sigma = 0.5 + 9 * test_uniform(&seed);
            rank[i] = 1 + (int)(test_uniform(&seed) * n);
            fixed[i] = test_uniform(&seed) < 0.2;
        }
        /* ranks as a game gives them: 1 + how many are strictly better */
        int r2[SRV_RATING_MAX];
        for (int i = 0; i < n; i++) {
            r2[i] = 1;
            for (int j = 0; j < n; j++)
                r2[i] += rank[j] < rank[i];
        }
        assert_int_equal(srv_rating_update(&p, n, in, r2, fixed, out), 0);
        for (int i = 0; i < n; i++) {
            if (fixed[i]) {
                assert_true(out[i].mu == in[i].mu && out[i].sigma == in[i].sigma);
                continue;
            }
            /* sigma shrinks (from its value with tau added) and stays positive */
            assert_true(out[i].sigma > 0);
            assert_true(out[i].sigma <= sqrt(in[i].sigma * in[i].sigma + p.tau * p.tau) + EPS);
            /* first alone gains, last alone loses (a weak seat tied with
             * strong ones may gain: a tie is news about it too) */
            bool best = true, worst = true;
            for (int j = 0; j < n; j++) {
                best = best && (j == i || r2[i] < r2[j]);
                worst = worst && (j == i || r2[i] > r2[j]);
            }
            if (best)
                assert_true(out[i].mu > in[i].mu);
            if (worst)
                assert_true(out[i].mu < in[i].mu);
        }
    }
    /* equal ratings, distinct ranks, nothing fixed: the mus sum to the same
     * and a better rank gains more */
    for (int n = 2; n <= SRV_RATING_MAX; n++) {
        srv_rating in[SRV_RATING_MAX], out[SRV_RATING_MAX];
        int rank[SRV_RATING_MAX];
        for (int i = 0; i < n; i++) {
            in[i] = (srv_rating){SRV_RATING_MU0, SRV_RATING_SIGMA0};
            rank[i] = i + 1;
        }
        assert_int_equal(srv_rating_update(&p, n, in, rank, NULL, out), 0);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += out[i].mu;
            if (i)
                assert_true(out[i].mu < out[i - 1].mu);
        }
        assert_near(sum, n * SRV_RATING_MU0, 1e-9);
        /* all tied: nobody moves, everyone's sigma shrinks */
        for (int i = 0; i < n; i++)
            rank[i] = 1;
        assert_int_equal(srv_rating_update(&p, n, in, rank, NULL, out), 0);
        for (int i = 0; i < n; i++) {
            assert_near(out[i].mu, SRV_RATING_MU0, 1e-9);
            assert_true(out[i].sigma < SRV_RATING_SIGMA0);
        }
    }
    /* beating a much stronger player gains more than beating an equal one */
    srv_rating eq[2] = {{25, 3}, {25, 3}}, strong[2] = {{25, 3}, {35, 3}}, o1[2], o2[2];
    int rank[2] = {1, 2};
    assert_int_equal(srv_rating_update(&p, 2, eq, rank, NULL, o1), 0);
    assert_int_equal(srv_rating_update(&p, 2, strong, rank, NULL, o2), 0);
    assert_true(o2[0].mu - 25 > o1[0].mu - 25);
    /* huge ratings stay finite */
    srv_rating big[2] = {{1e6, 1}, {-1e6, 1}};
    assert_int_equal(srv_rating_update(&p, 2, big, rank, NULL, o1), 0);
    assert_true(isfinite(o1[0].mu) && isfinite(o1[1].mu));
}

static void bad_input_is_refused(void **unused)
{
    (void)unused;
    srv_rating_params p = srv_rating_defaults();
    srv_rating in[3] = {{25, 8}, {25, 8}, {25, 8}}, out[3] = {{1, 1}, {1, 1}, {1, 1}};
    int rank[3] = {1, 2, 3}, bad_rank[3] = {1, 2, 4}, zero_rank[3] = {0, 1, 2};
    assert_int_equal(srv_rating_update(&p, 1, in, rank, NULL, out), -1);
    assert_int_equal(srv_rating_update(&p, SRV_RATING_MAX + 1, in, rank, NULL, out), -1);
    assert_int_equal(srv_rating_update(&p, 3, in, bad_rank, NULL, out), -1);
    assert_int_equal(srv_rating_update(&p, 3, in, zero_rank, NULL, out), -1);
    in[1].sigma = 0;
    assert_int_equal(srv_rating_update(&p, 3, in, rank, NULL, out), -1);
    in[1].sigma = NAN;
    assert_int_equal(srv_rating_update(&p, 3, in, rank, NULL, out), -1);
    in[1] = (srv_rating){INFINITY, 8};
    assert_int_equal(srv_rating_update(&p, 3, in, rank, NULL, out), -1);
    for (int i = 0; i < 3; i++) /* nothing written */
        assert_true(out[i].mu == 1 && out[i].sigma == 1);
    assert_near(srv_rating_shown((srv_rating){30, 2}), 24, EPS);
}

/* data/computer_ratings.txt as compiled: every game of the registry has
 * easy, normal and hard; easy is the anchor at mu0; the levels rise. */
static void the_computer_levels_table(void **unused)
{
    (void)unused;
    const char *levels[3] = {"easy", "normal", "hard"};
    assert_int_equal(srv_computer_ratings_count, 3 * tb_game_count());
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const char *game = tb_game_name(tb_game_at(gi));
        srv_rating r[3];
        for (int l = 0; l < 3; l++) {
            if (srv_rating_computer(game, levels[l], &r[l]))
                fail_msg("%s %s has no rating in data/computer_ratings.txt", game, levels[l]);
            assert_true(r[l].sigma > 0 && r[l].sigma < SRV_RATING_SIGMA0);
        }
        assert_near(r[0].mu, SRV_RATING_MU0, EPS);
        /* easy is clearly below both; hard above normal, or the two within
         * two standard errors of each other (the matches could not tell
         * them apart: Khronos at 24 games) */
        if (!(r[1].mu > r[0].mu && r[2].mu > r[0].mu))
            fail_msg("%s: easy (%g) is not below normal (%g) and hard (%g)", game, r[0].mu,
                     r[1].mu, r[2].mu);
        double apart = 2 * sqrt(r[1].sigma * r[1].sigma + r[2].sigma * r[2].sigma);
        if (!(r[2].mu > r[1].mu || r[1].mu - r[2].mu < apart))
            fail_msg("%s: hard (%g) is clearly below normal (%g)", game, r[2].mu, r[1].mu);
    }
    srv_rating r;
    assert_int_equal(srv_rating_computer("clans", "greedy", &r), -1);
    assert_int_equal(srv_rating_computer("chess", "easy", &r), -1);
}

/* The seat-level step both stores share (srv_rating_game). */
static void a_game_of_seats(void **unused)
{
    (void)unused;
    srv_rated_seat seat[3];
    memset(seat, 0, sizeof seat);
    seat[0] = (srv_rated_seat){.account = 7, .rank = 1, .games = 4, .wins = 2, .known = true,
                               .before = {30, 3}};
    seat[1] = (srv_rated_seat){.ai = true, .level = "hard", .rank = 2};
    seat[2] = (srv_rated_seat){.account = 9, .rank = 3}; /* new: mu0, sigma0 */
    assert_int_equal(srv_rating_game("clans", 3, seat), 0);
    srv_rating hard;
    assert_int_equal(srv_rating_computer("clans", "hard", &hard), 0);
    assert_true(seat[1].after.mu == hard.mu && seat[1].after.sigma == hard.sigma);
    assert_true(seat[0].after.mu > 30 && seat[0].games == 5 && seat[0].wins == 3);
    assert_true(seat[2].before.mu == SRV_RATING_MU0 && seat[2].after.mu < SRV_RATING_MU0);
    assert_true(seat[2].games == 1 && seat[2].wins == 0);
    /* the same numbers as the update itself, the computer fixed */
    srv_rating in[3] = {{30, 3}, hard, {SRV_RATING_MU0, SRV_RATING_SIGMA0}}, out[3];
    int rank[3] = {1, 2, 3};
    bool fixed[3] = {false, true, false};
    srv_rating_params p = srv_rating_defaults();
    assert_int_equal(srv_rating_update(&p, 3, in, rank, fixed, out), 0);
    assert_near(seat[0].after.mu, out[0].mu, 0);
    assert_near(seat[2].after.sigma, out[2].sigma, 0);
    /* an unrated level and a former player count as mu0, sigma0, fixed */
    srv_rated_seat odd[3] = {{.account = 1, .rank = 2}, {.ai = true, .level = "random", .rank = 1},
                             {.account = 0, .rank = 1}};
    assert_int_equal(srv_rating_game("clans", 3, odd), 0);
    assert_true(odd[1].after.mu == SRV_RATING_MU0 && odd[2].after.mu == SRV_RATING_MU0);
    /* one account in two seats, or no account: nothing to rate */
    srv_rated_seat twice[2] = {{.account = 3, .rank = 1}, {.account = 3, .rank = 2}};
    assert_int_equal(srv_rating_game("clans", 2, twice), 1);
    srv_rated_seat none[2] = {{.ai = true, .level = "easy", .rank = 1}, {.ai = true, .level = "hard", .rank = 2}};
    assert_int_equal(srv_rating_game("clans", 2, none), 1);
    srv_rated_seat bad[2] = {{.account = 3, .rank = 1}, {.account = 4, .rank = 5}};
    assert_int_equal(srv_rating_game("clans", 2, bad), -1);
    assert_int_equal(srv_rating_game("clans", 1, bad), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_players_by_hand),
        cmocka_unit_test(three_players_with_a_tie_by_hand),
        cmocka_unit_test(invariants_of_random_games),
        cmocka_unit_test(bad_input_is_refused),
        cmocka_unit_test(the_computer_levels_table),
        cmocka_unit_test(a_game_of_seats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
