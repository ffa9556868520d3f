/*
 * test_positions.h — positions the unit tests of the computer players share
 * (test_ai.c, test_review.c): a seeded game set up, a position some random
 * decisions into it, and a second truth of a position that differs only in
 * what one seat cannot see.  Header-only: each test is its own program.
 *
 * Invariants: everything is a function of its arguments (seeds), so a
 * failing test fails again the same way; a returned state is the caller's.
 */
#ifndef TABULA_TEST_POSITIONS_H
#define TABULA_TEST_POSITIONS_H

#include "tabula.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* A new game of `g` for `players`, set up with `seed` (fails the test if
 * the game refuses). */
static inline tb_state *test_setup(const tb_game *g, int players, uint64_t seed)
{
    tb_state *s = tb_state_new(g);
    char err[TB_ERR_LEN];
    if (tb_setup(s, players, NULL, seed, err, sizeof err) != 0)
        fail_msg("setup %s/%d: %s", tb_game_name(g), players, err);
    return s;
}

/* A position `steps` random decisions into a seeded game (fewer if the game
 * ends first; then the last position before the end), so never over. */
static inline tb_state *test_position(const tb_game *g, int players, uint64_t seed, int steps)
{
    tb_state *s = test_setup(g, players, seed);
    tb_rng rng;
    tb_rng_seed(&rng, seed ^ 0x5eed);
    tb_state *prev = tb_state_dup(s);
    for (int i = 0; i < steps && !tb_is_over(s); i++) {
        tb_state_copy(prev, s);
        tb_apply(s, tb_random_move(s, &rng));
    }
    if (tb_is_over(s))
        tb_state_copy(s, prev);
    tb_state_free(prev);
    return s;
}

/* A second truth that differs from `s` only in secrets `seat` cannot see:
 * the same position with those secrets re-dealt (re-deal seeds from
 * `seed_base` + 1 on).  NULL when no re-deal changed anything (the game
 * hides nothing from the seat here). */
static inline tb_state *test_other_truth(const tb_state *s, int seat, uint64_t seed_base)
{
    char *want = tb_state_json(s);
    for (uint64_t k = 1; k < 50; k++) {
        tb_state *t = tb_state_dup(s);
        tb_rng rng;
        tb_rng_seed(&rng, seed_base + k);
        tb_resample(t, seat, &rng);
        char *got = tb_state_json(t);
        bool differs = strcmp(got, want) != 0;
        free(got);
        if (differs) {
            free(want);
            return t;
        }
        tb_state_free(t);
    }
    free(want);
    return NULL;
}

#endif
