/*
 * reveal.c — tb_reveals: which seats a decision showed something hidden
 * (docs/api.md; the server's undo rule, docs/server.md).
 *
 * A seat learns something from a decision when what it sees afterwards
 * does not follow from what it saw before plus the decision itself: a card
 * drawn, a tile taken from a bag, an outcome of chance, or a secret of the
 * mover's that the decision showed.  Two checks, their answers combined:
 *   - the game's own `reveals` hook (game.h), exact for what it knows
 *     (a card came off a hidden stack);
 *   - a generic one for every game: for each seat, the position before is
 *     re-dealt the way that seat could imagine it (tb_resample, and a fresh
 *     generator for chance), the decision is played there too, and the
 *     seat's view afterwards compared with the true one.  A difference, or
 *     the decision being impossible in an imagined deal, means the seat
 *     learned something.  The deals come from a fixed seed, so the answer
 *     is the same every time it is asked (a restarted server agrees).
 * Invariant: the state passed in is never changed; the answer depends only
 * on the state and the decision.
 */
#include "game.h"

#include <stdlib.h>
#include <string.h>

/* Imagined deals per seat: enough that a drawn card of two or more kinds
 * is seen with near certainty; the games' hooks cover the rest exactly. */
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
            tb_state_free(imagined);
            return 1;
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

long tb_reveals(const tb_state *state, tb_move move)
{
    if (tb_is_over(state) || !tb_is_legal(state, move))
        return -1;
    tb_state *after = tb_state_dup(state);
    if (!after)
        return -1;
    tb_apply(after, move);
    long seats = 0;
    if (state->game->reveals)
        seats = (long)state->game->reveals(state, move, after);
    for (int seat = 0; seat < state->players; seat++) {
        if (seats & (1L << seat))
            continue;
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
