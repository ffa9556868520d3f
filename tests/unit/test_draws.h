/*
 * test_draws.h — whether random decisions are uniform over the legal ones,
 * for the unit tests that check it (test_core.c for every game,
 * test_khronos_rules.c where a Khronos build has no room): a tally of many
 * draws at one position, summed over positions into one chi-square test.
 * Header-only: each test is its own program.
 *
 * Invariants: the tally fails the test at once on a decision outside the
 * legal list; the verdict is deterministic for seeded draws.
 */
#ifndef TABULA_TEST_DRAWS_H
#define TABULA_TEST_DRAWS_H

#include "tabula.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

/* The chi-square statistic summed over positions and its degrees of freedom. */
typedef struct draw_tally {
    double chi2, df;
    int positions;
} draw_tally;

/* Draws per * n decisions at s (whose n legal decisions are `legal`) with
 * tb_random_move and adds their counts against the uniform `per` each. */
static inline void tally_draws(draw_tally *t, const tb_state *s, const tb_move *legal, int n, int per,
                               tb_rng *rng)
{
    static int count[TB_MAX_MOVES];
    memset(count, 0, sizeof count[0] * (size_t)n);
    for (int d = 0; d < per * n; d++) {
        tb_move m = tb_random_move(s, rng);
        int at = 0;
        while (at < n && legal[at] != m)
            at++;
        assert_true(at < n); /* only legal decisions */
        count[at]++;
    }
    for (int i = 0; i < n; i++)
        t->chi2 += (double)(count[i] - per) * (count[i] - per) / per;
    t->df += n - 1;
    t->positions++;
}

/* Fails the test when the sum is more than six standard deviations above
 * its expectation (uniform draws stay far below; a biased draw does not). */
static inline void tally_check(const draw_tally *t, const char *what)
{
    double limit = t->df + 6.0 * sqrt(2.0 * t->df);
    if (t->chi2 > limit)
        fail_msg("%s: chi-square %.0f over %d positions (%.0f degrees of freedom, limit %.0f)", what,
                 t->chi2, t->positions, t->df, limit);
}

#endif
