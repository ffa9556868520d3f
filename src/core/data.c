/*
 * data.c — board and component data a program loads (tabula.h, "board and
 * component data"; docs/data-format.md): reading a data file through its
 * game's parser, naming it (name and content hash), and the set of data a
 * program keeps for its whole run.
 *
 * Invariants: a tb_data never changes once made; a read one is malloc'd here
 * and freed only by tb_data_free (or its set), the built-in ones are static
 * const and never freed.  A set holds every game's built-in data first, and
 * never two data of one game under one name.  Nothing here keeps global
 * state: the sets belong to their callers.
 */
#include "game.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const tb_data *tb_data_builtin(const tb_game *game)
{
    return game ? game->data_builtin : NULL;
}

bool tb_data_name_ok(const char *name)
{
    if (!name || !*name || strlen(name) >= TB_DATA_NAME)
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_'))
            return false;
    return true;
}

tb_data *tb_data_read(const tb_game *game, const char *name, const char *text, size_t len,
                      const char *where, char *err, size_t errlen)
{
    if (!game || !game->data_read) {
        tb__errf(err, errlen, "%s reads no board or component files",
                 game ? game->title : "this game");
        return NULL;
    }
    if (!tb_data_name_ok(name)) {
        tb__errf(err, errlen,
                 "%s: '%s' cannot name a board (a word of at most %d letters, digits, '-' or "
                 "'_')",
                 where, name ? name : "", TB_DATA_NAME - 1);
        return NULL;
    }
    void *tables = game->data_read(text, len, where, err, errlen);
    if (!tables)
        return NULL;
    tb_data *d = calloc(1, sizeof *d);
    if (!d) {
        game->data_free(tables);
        tb__errf(err, errlen, "%s: out of memory while reading it", where);
        return NULL;
    }
    d->game = game;
    d->tables = tables;
    snprintf(d->name, sizeof d->name, "%s", name);
    tb__data_hash(text, len, d->hash);
    d->builtin = false;
    return d;
}

tb_data *tb_data_read_file(const tb_game *game, const char *path, char *err, size_t errlen)
{
    /* the board's name: the file's name without its folder and ".txt" */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char name[TB_DATA_NAME + 8];
    snprintf(name, sizeof name, "%s", base);
    size_t n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".txt") == 0)
        name[n - 4] = '\0';
    if (!game || !game->data_read) {
        tb__errf(err, errlen, "%s has no boards to choose from", game ? game->title : "this game");
        errno = 0;
        return NULL;
    }
    if (!tb_data_name_ok(name)) {
        tb__errf(err, errlen,
                 "%s: a board file is named NAME.txt, NAME being at most %d letters, digits, "
                 "'-' or '_' (the board's name)",
                 path, TB_DATA_NAME - 1);
        errno = 0;
        return NULL;
    }
    if (strcmp(name, TB_DATA_DEFAULT) == 0) {
        tb__errf(err, errlen, "%s: '%s' is the name of the built-in board; call the file something else",
                 path, TB_DATA_DEFAULT);
        errno = 0;
        return NULL;
    }
    size_t len;
    char *text = tb_file_read(path, &len, err, errlen);
    if (!text)
        return NULL;
    tb_data *d = tb_data_read(game, name, text, len, path, err, errlen);
    free(text);
    if (!d)
        errno = 0; /* the file was read: its content is at fault */
    return d;
}

void tb_data_free(tb_data *data)
{
    if (!data || data->builtin)
        return;
    data->game->data_free((void *)(uintptr_t)data->tables);
    free(data);
}

const tb_game *tb_data_game(const tb_data *data) { return data->game; }
const char *tb_data_name(const tb_data *data) { return data->name; }
const char *tb_data_hash(const tb_data *data) { return data->hash; }
bool tb_data_is_builtin(const tb_data *data) { return data->builtin; }

struct tb_data_set {
    const tb_data **item; /* built-in data first (game order), then read ones */
    int count, cap;
    int builtins;
};

/* -1 when memory runs out (the set unchanged). */
static int set_push(tb_data_set *set, const tb_data *d)
{
    if (set->count == set->cap) {
        int cap = set->cap ? set->cap * 2 : 8;
        const tb_data **item = realloc(set->item, (size_t)cap * sizeof *item);
        if (!item)
            return -1;
        set->item = item;
        set->cap = cap;
    }
    set->item[set->count++] = d;
    return 0;
}

tb_data_set *tb_data_set_new(void)
{
    tb_data_set *set = calloc(1, sizeof *set);
    if (!set)
        return NULL;
    for (int i = 0; i < tb_game_count(); i++)
        if (tb_game_at(i)->data_builtin && set_push(set, tb_game_at(i)->data_builtin)) {
            free(set->item);
            free(set);
            return NULL;
        }
    set->builtins = set->count;
    return set;
}

void tb_data_set_free(tb_data_set *set)
{
    if (!set)
        return;
    for (int i = set->builtins; i < set->count; i++)
        tb_data_free((tb_data *)(uintptr_t)set->item[i]);
    free(set->item);
    free(set);
}

int tb_data_set_add(tb_data_set *set, tb_data *data, char *err, size_t errlen)
{
    if (!data)
        return tb__errf(err, errlen, "no data to add");
    if (tb_data_set_find(set, data->game, data->name)) {
        tb__errf(err, errlen, "%s already has a board called '%s'", data->game->title,
                 data->name);
        tb_data_free(data);
        return -1;
    }
    /* keep each game's read data sorted by name */
    if (set_push(set, data)) {
        tb__errf(err, errlen, "out of memory while adding the board '%s'", data->name);
        tb_data_free(data);
        return -1;
    }
    for (int i = set->count - 1; i > set->builtins; i--) {
        const tb_data *a = set->item[i - 1], *b = set->item[i];
        if (strcmp(a->game->name, b->game->name) < 0 ||
            (a->game == b->game && strcmp(a->name, b->name) < 0))
            break;
        set->item[i - 1] = b;
        set->item[i] = a;
    }
    return 0;
}

int tb_data_set_count(const tb_data_set *set, const tb_game *game)
{
    int n = 0;
    for (int i = 0; set && i < set->count; i++)
        n += set->item[i]->game == game;
    return n;
}

const tb_data *tb_data_set_at(const tb_data_set *set, const tb_game *game, int index)
{
    for (int i = 0; set && i < set->count; i++)
        if (set->item[i]->game == game && index-- == 0)
            return set->item[i];
    return NULL;
}

const tb_data *tb_data_set_find(const tb_data_set *set, const tb_game *game, const char *name)
{
    if (!name || !*name)
        return game ? game->data_builtin : NULL;
    if (!set)
        return game && game->data_builtin && strcmp(name, game->data_builtin->name) == 0
                   ? game->data_builtin
                   : NULL;
    for (int i = 0; i < set->count; i++)
        if (set->item[i]->game == game && strcmp(set->item[i]->name, name) == 0)
            return set->item[i];
    return NULL;
}

bool tb__data_hash_ok(const char *hash)
{
    if (!hash || strlen(hash) != TB_DATA_HASH_LEN - 1)
        return false;
    for (const char *p = hash; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

json_t *tb__data_json(const tb_data *data)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(data->name));
    json_object_set_new(j, "hash", json_string(data->hash));
    return j;
}

int tb__data_lookup(const tb_game *game, const char *name, const char *hash,
                    const tb_data_set *boards, const tb_data **out, char *err, size_t errlen)
{
    if (!game->data_builtin) {
        if (name)
            return tb__errf(err, errlen, "%s has no boards to choose from, but this names '%s'",
                            game->title, name);
        *out = NULL;
        return 0;
    }
    if (!name) { /* made before boards could be chosen: the built-in board */
        *out = game->data_builtin;
        return 0;
    }
    const tb_data *d = tb_data_set_find(boards, game, name);
    if (!d)
        return tb__errf(err, errlen,
                        "this game was played on the %s board '%s', which is not installed here",
                        game->title, name);
    if (hash && strcmp(hash, d->hash) != 0)
        return tb__errf(err, errlen,
                        "this game was played on a different version of the %s board '%s' (its "
                        "file has changed since: content %s, installed %s)",
                        game->title, name, hash, d->hash);
    *out = d;
    return 0;
}

int tb__data_from_json(const tb_game *game, const json_t *board, const tb_data_set *boards,
                       const tb_data **out, char *err, size_t errlen)
{
    if (!board)
        return tb__data_lookup(game, NULL, NULL, boards, out, err, errlen);
    const char *name = json_string_value(json_object_get(board, "name"));
    const char *hash = json_string_value(json_object_get(board, "hash"));
    if (!json_is_object(board) || !tb_data_name_ok(name) || !tb__data_hash_ok(hash))
        return tb__errf(err, errlen,
                        "'data' must be an object with a 'name' and a 16-digit 'hash'");
    return tb__data_lookup(game, name, hash, boards, out, err, errlen);
}
