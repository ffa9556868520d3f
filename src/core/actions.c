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
    for (int i = 0; i < n; i++)
        out[i] = 0.0f;
    g->observation(state, seat, out);
    return n;
}
