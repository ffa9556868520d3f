/*
 * registry.c — the table of games, sorted by name.
 *
 * Adding a game: declare its `const struct tb_game` in game.h and list it
 * here, keeping the list sorted by name (tb_game_at relies on the order).
 */
#include "game.h"

#include <string.h>

static const struct tb_game *const registry_games[] = {
    &tb__arkadia_game,
    &tb__clans_game,
    &tb__khronos_game,
};

#define REGISTRY_COUNT ((int)(sizeof registry_games / sizeof registry_games[0]))

int tb_game_count(void)
{
    return REGISTRY_COUNT;
}

const tb_game *tb_game_at(int index)
{
    if (index < 0 || index >= REGISTRY_COUNT)
        return NULL;
    return registry_games[index];
}

const tb_game *tb_game_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < REGISTRY_COUNT; i++)
        if (strcmp(registry_games[i]->name, name) == 0)
            return registry_games[i];
    return NULL;
}

const char *tb_game_name(const tb_game *game) { return game->name; }
const char *tb_game_title(const tb_game *game) { return game->title; }
int tb_game_min_players(const tb_game *game) { return game->min_players; }
int tb_game_max_players(const tb_game *game) { return game->max_players; }
int tb_game_default_players(const tb_game *game) { return game->default_players; }
const char *tb_game_notice(const tb_game *game) { return game->notice; }
size_t tb_state_size(const tb_game *game) { return game->state_size; }
bool tb_game_has_heuristic(const tb_game *game) { return game->heuristic != NULL; }
bool tb_game_public_decisions(const tb_game *game) { return game->public_decisions; }
const tb_option_spec *tb_game_options(const tb_game *game) { return game->options; }
