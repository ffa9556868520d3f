/*
 * reveal.c — tb_reveals: which seats a decision showed something hidden
 * (docs/api.md; the server's undo rule, docs/server.md).
 *
 * A seat learns something from a decision when what it sees afterwards
 * does not follow from what it saw before plus the decision itself: a card
 * drawn, a tile taken from a bag, an outcome of chance, or a secret of the
 * mover's that the decision showed.
 *   - A game that fills in the `reveals` hook (game.h) answers alone: it
 *     knows its secrets, and its answer costs one apply.  The hook must
 *     cover every card or tile drawn or shown: tests/unit/test_core.c
 *     checks it against the generic check below over random games.
 *   - Otherwise the generic check: for each seat, the position before is
 *     re-dealt the way that seat could imagine it (tb_resample, and a fresh
 *     generator for chance), the decision is played there too, and the
 *     seat's view afterwards compared with the true one.  A difference means
 *     the seat learned something.  Deals in which the decision would be
 *     impossible are passed over: what the choice itself implies of the
 *     mover's secrets (that it could afford it) is the mover's own to show,
 *     and taking the decision back gives the mover nothing.  The deals come from a fixed seed, so the answer
 *     is the same every time it is asked (a restarted server agrees).  It
 *     costs a few milliseconds (dozens of views), so the server asks it
 *     once per decision at most.
 *
 * tb_settles_chance: whether a decision settles an outcome of chance — a
 * card or tile taken from a pile no seat can see into, a shuffle, a die.
 * That is a different question: paying a card from one's hand shows it to
 * the others (tb_reveals) but settles nothing, and taking it back gives the
 * mover nothing; a draw can be seen by everybody, so after it nobody may
 * take the decision back (the outcome is known).  Two parts: the state's
 * generator moved (every random draw after setup comes from it, game.h),
 * or the game's `settles_chance` hook says a card left a pile that was
 * dealt in order at setup (Arkadia's stack, Khronos's deck).  One apply.
 * Invariant: the state passed in is never changed; the answer depends only
 * on the state and the decision.
 */
#include "game.h"

#include <stdlib.h>
#include <string.h>

/* Imagined deals per seat: enough that a drawn card of two or more kinds
 * is seen with near certainty. */
#define REVEAL_SAMPLES 16

/* Whether `seat`'s view after `move` differs in some deal it could imagine;
 * `truth` is its view of the real outcome.  -1: out of memory. */
static int reveal_seat_learns(const tb_state *state, tb_move move, int seat, const char *truth)
{
    tb_rng rng;
    tb_rng_seed(&rng, 0x7265766561ULL ^ ((uint64_t)(seat + 1) << 40) ^
                          (uint64_t)state->decisions);
    for (int k = 0; k < REVEAL_SAMPLES; k++) {
        tb_state *imagined = tb_state_dup(state);
        if (!imagined)
            return -1;
        tb_resample(imagined, seat, &rng);
        imagined->rng = tb_rng_split(&rng); /* chance to come is a secret too */
        if (!tb_is_legal(imagined, move)) {
            /* what the choice itself implies of the mover's secrets (it
             * could afford it) is the mover's to show: not a reveal */
            tb_state_free(imagined);
            continue;
        }
        tb_apply(imagined, move);
        char *view = tb_view_json(imagined, seat);
        tb_state_free(imagined);
        if (!view)
            return -1;
        int differs = strcmp(view, truth) != 0;
        free(view);
        if (differs)
            return 1;
    }
    return 0;
}

/* A copy of `state` with `move` played, or NULL when the game is over, the
 * move is not legal there or memory runs out (what the three questions
 * below each start from). */
static tb_state *reveal_after(const tb_state *state, tb_move move)
{
    if (tb_is_over(state) || !tb_is_legal(state, move))
        return NULL;
    tb_state *after = tb_state_dup(state);
    if (after)
        tb_apply(after, move);
    return after;
}

/* The generic check alone (tb_reveals without the game's hook). */
long tb__reveals_generic(const tb_state *state, tb_move move)
{
    tb_state *after = reveal_after(state, move);
    if (!after)
        return -1;
    long seats = 0;
    for (int seat = 0; seat < state->players; seat++) {
        char *truth = tb_view_json(after, seat);
        int learns = truth ? reveal_seat_learns(state, move, seat, truth) : -1;
        free(truth);
        if (learns < 0) {
            seats = -1;
            break;
        }
        if (learns)
            seats |= 1L << seat;
    }
    tb_state_free(after);
    return seats;
}

long tb_reveals(const tb_state *state, tb_move move)
{
    if (!state->game->reveals)
        return tb__reveals_generic(state, move);
    tb_state *after = reveal_after(state, move);
    if (!after)
        return -1;
    long seats = (long)state->game->reveals(state, move, after);
    tb_state_free(after);
    return seats;
}

int tb_settles_chance(const tb_state *state, tb_move move)
{
    tb_state *after = reveal_after(state, move);
    if (!after)
        return -1;
    bool chance = memcmp(&after->rng, &state->rng, sizeof state->rng) != 0 ||
                  (state->game->settles_chance && state->game->settles_chance(state, move, after));
    tb_state_free(after);
    return chance ? 1 : 0;
}
