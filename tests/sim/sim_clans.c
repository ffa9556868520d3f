/*
 * sim_clans.c — the invariants of a Clans state (clans.h) checked after
 * every random decision: huts on the board + removed = 60 and at most 12 of
 * a colour, sizes and masks consistent, chips within 12 and matching the
 * villages, villages isolated, ruins empty, pending villages isolated, the
 * occupied neighbours counted per territory, and every colour's track never
 * decreasing.
 */
#include "sim.h"

#include "games/clans/clans.h"

#include <stdio.h>
#include <string.h>

int sim_clans_check(const tb_state *before, const tb_state *after, char *err, size_t n)
{
    const clans_state *c = (const clans_state *)after;
    int total = 0, per_colour[CLANS_COLOURS] = {0};
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        int size = 0;
        for (int k = 0; k < CLANS_COLOURS; k++) {
            size += clans__huts(c, t, k);
            per_colour[k] += clans__huts(c, t, k);
        }
        if (size != c->size[t])
            return snprintf(err, n, "territory %d: size %d but %d huts", t + 1, c->size[t], size), -1;
        if ((size > 0) != (int)(c->occupied >> t & 1))
            return snprintf(err, n, "territory %d: occupied mask is wrong", t + 1), -1;
        bool isolated = !(clans__adjacent[t] & c->occupied);
        if ((c->villages >> t & 1) && size && !isolated)
            return snprintf(err, n, "village %d has an occupied neighbour", t + 1), -1;
        if ((c->ruins >> t & 1) && (size || !(c->villages >> t & 1)))
            return snprintf(err, n, "ruin %d holds huts or is no village", t + 1), -1;
        if ((c->pending >> t & 1) && (!size || !isolated))
            return snprintf(err, n, "pending village %d is not an isolated group", t + 1), -1;
        if (clans__crowd(c, t) != __builtin_popcountll(clans__adjacent[t] & c->occupied))
            return snprintf(err, n, "territory %d: %d occupied neighbours counted, %d on the board",
                            t + 1, clans__crowd(c, t),
                            __builtin_popcountll(clans__adjacent[t] & c->occupied)), -1;
        total += size;
    }
    clans_state fresh = *c;
    clans__compute_live(&fresh);
    if (memcmp(fresh.live, c->live, sizeof c->live) != 0)
        return snprintf(err, n, "the live-edge mask is out of date"), -1;
    if (total + c->removed != 60)
        return snprintf(err, n, "huts: %d on the board + %d removed != 60", total, c->removed), -1;
    for (int k = 0; k < CLANS_COLOURS; k++)
        if (per_colour[k] > CLANS_HUTS_PER_COLOUR)
            return snprintf(err, n, "%d %s huts", per_colour[k], clans__colour_name[k]), -1;
    for (int k = CLANS_COLOURS; k < 8; k++)
        if (c->track[k] != 0)
            return snprintf(err, n, "spare track entry %d is %d, not 0", k, c->track[k]), -1;
    int chips = 0;
    for (int p = 0; p < after->players; p++)
        chips += c->chips[p];
    if (c->chips_taken > CLANS_CHIPS || chips != c->chips_taken ||
        __builtin_popcountll(c->villages) != c->chips_taken)
        return snprintf(err, n, "chips %d, held %d, villages %d disagree", c->chips_taken, chips,
                        __builtin_popcountll(c->villages)), -1;
    if (before) {
        const clans_state *b = (const clans_state *)before;
        for (int k = 0; k < CLANS_COLOURS; k++)
            if (c->track[k] < b->track[k])
                return snprintf(err, n, "the %s track went down", clans__colour_name[k]), -1;
        if (c->chips_taken < b->chips_taken)
            return snprintf(err, n, "chips went back onto the chart"), -1;
    }
    return 0;
}
