/*
 * actions.c — the integer action space and observation tensors of the public
 * API (tb_num_actions … tb_observation), over the game table's functions.
 *
 * Invariants: an action index is in [0, game->num_actions(players)); move → action →
 * move is the identity for every decision of the game; indexes depend only on
 * the move encoding, never on the state or the data.  The layout helpers give
 * the games whose moves are kind << shift | payload their mapping from a table
 * of widths.
 */
#include "game.h"

#include <stdlib.h>
#include <string.h>

int tb__layout_total(const tb_action_layout *l)
{
    int total = 0;
    for (int k = 1; k <= l->count; k++)
        total += l->width[k];
    return total;
}

int tb__layout_to_action(const tb_action_layout *l, tb_move m)
{
    uint32_t kind = m >> l->shift, payload = m & ((1u << l->shift) - 1u);
    if (kind < 1 || kind > (uint32_t)l->count || payload >= (uint32_t)l->width[kind])
        return -1;
    int offset = 0;
    for (uint32_t k = 1; k < kind; k++)
        offset += l->width[k];
    return offset + (int)payload;
}

int tb__layout_to_move(const tb_action_layout *l, int action, tb_move *out)
{
    if (action < 0)
        return -1;
    for (int k = 1; k <= l->count; k++) {
        if (action < l->width[k]) {
            *out = (tb_move)k << l->shift | (tb_move)action;
            return 0;
        }
        action -= l->width[k];
    }
    return -1;
}

int tb_num_actions(const tb_game *game, int players)
{
    if (players < game->min_players || players > game->max_players)
        return 0;
    return game->num_actions(players);
}

int tb_move_to_action(const tb_game *game, tb_move move)
{
    return game->move_to_action(move);
}

int tb_action_to_move(const tb_game *game, int action, tb_move *out)
{
    return game->action_to_move(action, out);
}

int tb_legal_actions(const tb_state *state, int32_t out[TB_MAX_MOVES])
{
    tb_move moves[TB_MAX_MOVES];
    int n = tb_legal(state, moves);
    for (int i = 0; i < n; i++)
        out[i] = state->game->move_to_action(moves[i]);
    return n;
}

int tb_observation_size(const tb_game *game, int players)
{
    if (!game->observation_size || players < game->min_players || players > game->max_players)
        return 0;
    return game->observation_size(players);
}

int tb_observation(const tb_state *state, int seat, float *out)
{
    const tb_game *g = state->game;
    if (!g->observation || seat < 0 || seat >= state->players)
        return 0;
    int n = g->observation_size(state->players);
    memset(out, 0, (size_t)n * sizeof *out);
    tb_obs_out w = {.out = out};
    g->observation(state, seat, &w);
    return n;
}

/* Observations of at most this many bytes (Clans's 2,108) are simply
 * cleared and written again: their encoders set most of what they hold. */
#define TB_OBS_SMALL 4096

/* What tb_observation_update keeps between calls: the entries its last
 * encoding turned non-zero, and what the data-only entries were written for. */
struct tb_obs_track {
    int32_t *touched;
    int n, cap;
    bool valid;                /* out holds the last encoding (else: clear it all) */
    const tb_game *game;
    const struct tb_data *data;
    int players;
};

void tb__obs_grow(tb_obs_out *w)
{
    int cap = w->cap ? w->cap * 2 : 256;
    int32_t *t = realloc(w->touched, (size_t)cap * sizeof *t);
    if (t) {
        w->touched = t;
        w->cap = cap;
    }
}

tb_obs_track *tb_obs_track_new(void)
{
    return calloc(1, sizeof(tb_obs_track));
}

void tb_obs_track_free(tb_obs_track *t)
{
    if (t)
        free(t->touched);
    free(t);
}

int tb_observation_update(const tb_state *state, int seat, float *out, tb_obs_track *t)
{
    const tb_game *g = state->game;
    if (!g->observation || seat < 0 || seat >= state->players)
        return 0;
    int size = g->observation_size(state->players);
    if ((size_t)size * sizeof *out <= TB_OBS_SMALL) { /* clearing it all costs less than keeping a list */
        t->valid = false;
        return tb_observation(state, seat, out);
    }
    bool same = t->valid && t->game == g && t->data == state->data && t->players == state->players;
    if (same) {
        for (int i = 0; i < t->n; i++)
            out[t->touched[i]] = 0.0f;
    } else {
        memset(out, 0, (size_t)size * sizeof *out);
    }
    tb_obs_out w = {.out = out, .touched = t->touched, .cap = t->cap, .skip_static = same};
    if (!w.touched)
        tb__obs_grow(&w);
    g->observation(state, seat, &w);
    t->touched = w.touched;
    t->cap = w.cap;
    t->n = w.n;
    t->valid = w.touched && !w.overflow;
    t->game = g;
    t->data = state->data;
    t->players = state->players;
    return size;
}
