/*
 * clans_tensor.c — Clans for learning code: the integer action space and the
 * observation tensor (layouts documented in docs/python.md).
 *
 * Actions (3660): a hut move from territory F to T (0-based) is F*60 + T; the
 * choice of village territory T is 3600 + T.  Only neighbour pairs are ever
 * legal; the layout follows the move encoding alone, so it never changes.
 *
 * Observation (527 floats, every player count): built only from what the
 * seat's view shows (clans__view_json): the board, tracks, chips and the
 * seat's own colour; the other seats' colours only once the game is over.
 * Seat-indexed blocks are rotated so the observing seat comes first.
 */
#include "clans.h"

#define CLANS_HUT_ACTIONS (CLANS_TERRITORIES * CLANS_TERRITORIES)
#define CLANS_ACTIONS (CLANS_HUT_ACTIONS + CLANS_TERRITORIES)
#define CLANS_OBS_TERRITORY (CLANS_COLOURS + 3)
#define CLANS_OBS_SIZE                                                                       \
    (CLANS_TERRITORIES * CLANS_OBS_TERRITORY + CLANS_COLOURS * 2 + TB_MAX_SEATS * 2 + 2 +    \
     TB_MAX_SEATS * CLANS_COLOURS)

_Static_assert(CLANS_ACTIONS == 3660, "the documented Clans action space");
_Static_assert(CLANS_OBS_SIZE == 527, "the documented Clans observation");

int clans__move_to_action(tb_move m)
{
    if (m & CLANS_VILLAGE_FLAG) {
        uint32_t t = (m & ~CLANS_VILLAGE_FLAG) - 1u;
        return t < CLANS_TERRITORIES ? CLANS_HUT_ACTIONS + (int)t : -1;
    }
    uint32_t from = (m >> 8) - 1u, to = (m & 0xffu) - 1u;
    if (from >= CLANS_TERRITORIES || to >= CLANS_TERRITORIES || (m >> 8) > 0xffu)
        return -1;
    return (int)(from * CLANS_TERRITORIES + to);
}

int clans__action_to_move(int action, tb_move *out)
{
    if (action < 0 || action >= CLANS_ACTIONS)
        return -1;
    if (action >= CLANS_HUT_ACTIONS)
        *out = CLANS_VILLAGE_FLAG | (tb_move)(action - CLANS_HUT_ACTIONS + 1);
    else
        *out = (tb_move)(action / CLANS_TERRITORIES + 1) << 8 | (tb_move)(action % CLANS_TERRITORIES + 1);
    return 0;
}

int clans__num_actions(int players)
{
    (void)players;
    return CLANS_ACTIONS;
}

int clans__observation_size(int players)
{
    (void)players;
    return CLANS_OBS_SIZE;
}

/* Layout: per territory (60 × 8): huts of each colour, village epoch (0 none,
 * 1..5), ruin, pending; then the five tracks; the seat's colour one-hot;
 * chips by relative seat (5); the seat to move one-hot by relative seat (5,
 * zeros when over); chips taken; over; then, when over, each relative seat's
 * colour one-hot (5 × 5). */
void clans__observation(const tb_state *s, int seat, tb_obs_out *w)
{
    float *out = w->out; /* small: tb_observation_update clears it whole, so no list is kept */
    const clans_state *c = (const clans_state *)s;
    int players = s->players;
    float *o = out;
    for (int t = 0; t < CLANS_TERRITORIES; t++, o += CLANS_OBS_TERRITORY) {
        for (int k = 0; k < CLANS_COLOURS; k++)
            o[k] = (float)clans__huts(c, t, k);
        uint64_t bit = 1ULL << t;
        o[CLANS_COLOURS] = (c->villages & bit) ? (float)c->village_epoch[t] : 0.0f;
        o[CLANS_COLOURS + 1] = (c->ruins & bit) ? 1.0f : 0.0f;
        o[CLANS_COLOURS + 2] = (c->pending & bit) ? 1.0f : 0.0f;
    }
    for (int k = 0; k < CLANS_COLOURS; k++)
        *o++ = (float)c->track[k];
    o[c->colour[seat]] = 1.0f;
    o += CLANS_COLOURS;
    for (int r = 0; r < players; r++)
        o[r] = (float)c->chips[(seat + r) % players];
    o += TB_MAX_SEATS;
    int tm = clans__to_move(s);
    if (tm != TB_OVER)
        o[(tm - seat + players) % players] = 1.0f;
    o += TB_MAX_SEATS;
    *o++ = (float)c->chips_taken;
    *o++ = c->over ? 1.0f : 0.0f;
    if (c->over)
        for (int r = 0; r < players; r++)
            o[r * CLANS_COLOURS + c->colour[(seat + r) % players]] = 1.0f;
}
