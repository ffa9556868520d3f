/*
 * actions.c — the integer action space and observation tensors of the public
 * API (tb_num_actions … tb_observation), over the game table's functions.
 *
 * Invariants: an action index is in [0, game->num_actions(players)); move → action →
 * move is the identity for every decision of the game; indexes depend only on
 * the move encoding, never on the state or the data.  The layout helpers give
 * the games whose moves are kind << shift | payload their mapping from a table
 * of widths.  An observation updated in place (tb_observation_update, its
 * batch form) is always exactly tb_observation's: a track that cannot say
 * what its buffer holds (another game, count or board; a list that could not
 * grow) makes the next update clear the whole buffer.
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
/* The batch update compares values only for tensors above this size
 * (Khronos's 107,572 bytes), where the rows are too many to stay in cache and
 * writing only what changed saves memory traffic; below it (Arkadia's 12,364)
 * clearing the list and writing again is as fast. */
#define TB_OBS_DIFF 32768

/* What tb_observation_update keeps between calls: the entries its last
 * encoding turned non-zero, and what the data-only entries were written for. */
struct tb_obs_track {
    int32_t *touched;
    float *val;                /* the values written there (kept by the batch update; NULL: none) */
    int n, cap, val_cap;
    bool has_val;              /* val holds the values of touched */
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
    if (t) {
        free(t->touched);
        free(t->val);
    }
    free(t);
}

int tb_observation_update(const tb_state *state, int seat, float *out, tb_obs_track *t)
{
    const tb_game *g = state->game;
    if (!g->observation || seat < 0 || seat >= state->players)
        return 0;
    int size = g->observation_size(state->players);
    t->has_val = false;
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

/* Keeps the values at t's touched entries of `out` (0, -1 out of memory). */
static int obs_keep_values(tb_obs_track *t, const float *out)
{
    if (t->val_cap < t->cap) {
        float *v = realloc(t->val, (size_t)t->cap * sizeof *v);
        if (!v)
            return -1;
        t->val = v;
        t->val_cap = t->cap;
    }
    for (int i = 0; i < t->n; i++)
        t->val[i] = out[t->touched[i]];
    t->has_val = true;
    return 0;
}

/* One row of the batch update: encodes into the scratch `s` (all zeros, and
 * left so), then writes into `out` only the entries whose value changed:
 * those kept from the last encoding (marked in `m`, all zeros and left so)
 * and those the new one set.  `w` lends its growing list of what it set. */
static void obs_update_diff(const tb_state *state, int seat, float *out, tb_obs_track *t, float *s,
                            uint8_t *m, tb_obs_out *w)
{
    const tb_game *g = state->game;
    w->out = s;
    w->n = 0;
    w->overflow = false;
    w->skip_static = true; /* the board-only entries are in `out` already */
    g->observation(state, seat, w);
    if (w->overflow) { /* the list could not grow: write it all (slow, right) */
        for (int i = 0; i < t->n; i++)
            s[t->touched[i]] = 0.0f;
        tb_observation_update(state, seat, out, t);
        memset(s, 0, (size_t)g->observation_size(state->players) * sizeof *s);
        t->valid = false;
        return;
    }
    for (int i = 0; i < t->n; i++) {
        int32_t k = t->touched[i];
        if (s[k] != t->val[i])
            out[k] = s[k];
        m[k] = 1;
    }
    for (int i = 0; i < w->n; i++)
        if (!m[w->touched[i]])
            out[w->touched[i]] = s[w->touched[i]];
    for (int i = 0; i < t->n; i++)
        m[t->touched[i]] = 0;
    if (w->n > t->cap || w->n > t->val_cap) {
        int32_t *idx = realloc(t->touched, (size_t)w->n * sizeof *idx);
        float *val = idx ? realloc(t->val, (size_t)w->n * sizeof *val) : NULL;
        if (idx) {
            t->touched = idx;
            t->cap = w->n;
        }
        if (val) {
            t->val = val;
            t->val_cap = w->n;
        }
        if (!idx || !val) { /* `out` is right; the track cannot say what it holds */
            for (int i = 0; i < w->n; i++)
                s[w->touched[i]] = 0.0f;
            t->valid = t->has_val = false;
            return;
        }
    }
    for (int i = 0; i < w->n; i++) {
        t->touched[i] = w->touched[i];
        t->val[i] = s[w->touched[i]];
    }
    for (int i = 0; i < w->n; i++)
        s[w->touched[i]] = 0.0f;
    t->n = w->n;
}

int tb_observation_update_batch(const tb_state *const *states, const int *seats, int count, float *out,
                                size_t stride, tb_obs_track *const *tracks)
{
    int max = 0;
    for (int k = 0; k < count; k++) {
        const tb_game *g = states[k]->game;
        int size = g->observation ? g->observation_size(states[k]->players) : 0;
        max = size > max ? size : max;
    }
    if (max == 0)
        return 0;
    float *s = calloc((size_t)max, sizeof *s);
    uint8_t *m = calloc((size_t)max, 1);
    tb_obs_out w = {0};
    tb__obs_grow(&w);
    if (!s || !m || !w.touched) {
        free(s);
        free(m);
        free(w.touched);
        return -1;
    }
    for (int k = 0; k < count; k++) {
        const tb_state *st = states[k];
        tb_obs_track *t = tracks[k];
        float *row = out + (size_t)k * stride;
        const tb_game *g = st->game;
        int size = g->observation ? g->observation_size(st->players) : 0;
        bool same = t->valid && t->has_val && t->game == g && t->data == st->data && t->players == st->players;
        if (seats[k] < 0 || seats[k] >= st->players || (size_t)size * sizeof(float) <= TB_OBS_DIFF || !same) {
            tb_observation_update(st, seats[k], row, t);
            if (t->valid && obs_keep_values(t, row) != 0)
                t->valid = false;
            continue;
        }
        if (k + 1 < count && tracks[k + 1]->has_val) { /* the next row's kept list loads meanwhile */
            const tb_obs_track *next = tracks[k + 1];
            for (int i = 0; i < next->n; i += 16) {
                __builtin_prefetch(next->touched + i);
                __builtin_prefetch(next->val + i);
            }
        }
        obs_update_diff(st, seats[k], row, t, s, m, &w);
    }
    free(w.touched);
    free(s);
    free(m);
    return 0;
}
