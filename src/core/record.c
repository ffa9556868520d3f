/*
 * record.c — game records (docs/records.md): who played, with which options
 * and seed, every decision in canonical text, and the result.
 *
 * Invariants: a record names a registered game, a legal player count and
 * normalized options; its decisions are stored as text exactly as notation
 * prints them.  Replaying a record sets the game up from its seed and plays
 * every decision through the checked path, so a record that does not replay
 * (tampered, or written under other rules) is reported, never half-applied.
 * A sealed record carries a seat's view instead of the seed.  A record of a
 * game with loadable data names the data (name and content hash, "data")
 * and replays only on those very data; one without "data" (written before
 * data could be chosen) replays on the built-in data.
 */
#include "game.h"
#include "text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tb_record {
    const tb_game *game;
    int players;
    tb_options options;
    uint64_t seed;
    bool sealed;
    char name[TB_MAX_SEATS][64];
    char kind[TB_MAX_SEATS][32];
    char started[40], finished[40];
    char **moves;
    int count, cap;
    char *spare; /* tb_record_reserve's copy of the next decision, or NULL */
    json_t *result; /* as read from a file, or NULL */
    bool has_board; /* board/board_hash name the data (else: the built-in data) */
    char board[TB_DATA_NAME];
    char board_hash[TB_DATA_HASH_LEN];
};

tb_record *tb_record_new(const tb_game *game, int players, const tb_options *opts, uint64_t seed)
{
    tb_record *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->game = game;
    r->players = players;
    if (opts)
        r->options = *opts;
    tb_options_normalize(game, &r->options, NULL, 0);
    r->seed = seed;
    tb_record_set_data(r, NULL);
    for (int i = 0; i < TB_MAX_SEATS; i++) {
        snprintf(r->name[i], sizeof r->name[i], "seat %d", i);
        snprintf(r->kind[i], sizeof r->kind[i], "human");
    }
    return r;
}

void tb_record_free(tb_record *rec)
{
    if (!rec)
        return;
    for (int i = 0; i < rec->count; i++)
        free(rec->moves[i]);
    free(rec->moves);
    free(rec->spare);
    json_decref(rec->result);
    free(rec);
}

tb_record *tb_record_dup(const tb_record *rec)
{
    if (!rec)
        return NULL;
    tb_record *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    *r = *rec;
    r->moves = NULL;
    r->spare = NULL;
    r->count = r->cap = 0;
    r->result = rec->result ? json_deep_copy(rec->result) : NULL;
    if (rec->result && !r->result) {
        free(r);
        return NULL;
    }
    if (rec->count > 0) {
        r->moves = malloc((size_t)rec->count * sizeof *r->moves);
        if (!r->moves) {
            tb_record_free(r);
            return NULL;
        }
        r->cap = rec->count;
        for (; r->count < rec->count; r->count++) {
            r->moves[r->count] = strdup(rec->moves[r->count]);
            if (!r->moves[r->count]) {
                tb_record_free(r);
                return NULL;
            }
        }
    }
    return r;
}

void tb_record_set_data(tb_record *rec, const tb_data *data)
{
    if (!data)
        data = rec->game->data_builtin;
    rec->has_board = data && data->game == rec->game;
    if (rec->has_board) {
        snprintf(rec->board, sizeof rec->board, "%s", data->name);
        snprintf(rec->board_hash, sizeof rec->board_hash, "%s", data->hash);
    }
}

const char *tb_record_data_name(const tb_record *rec)
{
    if (!rec->game->data_builtin)
        return NULL;
    return rec->has_board ? rec->board : TB_DATA_DEFAULT;
}

const char *tb_record_data_hash(const tb_record *rec)
{
    return rec->has_board ? rec->board_hash : NULL;
}

const tb_game *tb_record_game(const tb_record *rec) { return rec->game; }
int tb_record_players(const tb_record *rec) { return rec->players; }
uint64_t tb_record_seed(const tb_record *rec) { return rec->seed; }
int tb_record_length(const tb_record *rec) { return rec->count; }

const char *tb_record_move(const tb_record *rec, int index)
{
    return index >= 0 && index < rec->count ? rec->moves[index] : NULL;
}

void tb_record_set_player(tb_record *rec, int seat, const char *name, const char *kind)
{
    if (seat < 0 || seat >= TB_MAX_SEATS)
        return;
    if (name)
        snprintf(rec->name[seat], sizeof rec->name[seat], "%s", name);
    if (kind)
        snprintf(rec->kind[seat], sizeof rec->kind[seat], "%s", kind);
}

const char *tb_record_player_name(const tb_record *rec, int seat)
{
    return seat >= 0 && seat < rec->players ? rec->name[seat] : NULL;
}

const char *tb_record_player_kind(const tb_record *rec, int seat)
{
    return seat >= 0 && seat < rec->players ? rec->kind[seat] : NULL;
}

void tb_record_set_times(tb_record *rec, const char *started, const char *finished)
{
    if (started)
        snprintf(rec->started, sizeof rec->started, "%s", started);
    if (finished)
        snprintf(rec->finished, sizeof rec->finished, "%s", finished);
}

/* Room for one more decision in the list; -1 when memory runs out. */
static int record_room(tb_record *rec)
{
    if (rec->count == rec->cap) {
        int cap = rec->cap ? rec->cap * 2 : 64;
        char **m = realloc(rec->moves, (size_t)cap * sizeof *m);
        if (!m)
            return -1;
        rec->moves = m;
        rec->cap = cap;
    }
    return 0;
}

int tb_record_reserve(tb_record *rec, const char *move_text)
{
    if (rec->spare && strcmp(rec->spare, move_text) == 0)
        return record_room(rec);
    char *copy = strdup(move_text);
    if (!copy || record_room(rec)) {
        free(copy);
        return -1;
    }
    free(rec->spare);
    rec->spare = copy;
    return 0;
}

int tb_record_push(tb_record *rec, const char *move_text)
{
    if (record_room(rec))
        return -1;
    char *copy;
    if (rec->spare && strcmp(rec->spare, move_text) == 0) {
        copy = rec->spare;
        rec->spare = NULL;
    } else if ((copy = strdup(move_text)) == NULL)
        return -1;
    rec->moves[rec->count++] = copy;
    return 0;
}

void tb_record_pop(tb_record *rec)
{
    if (rec->count > 0)
        free(rec->moves[--rec->count]);
}

static json_t *record_to_object(const tb_record *rec, bool with_seed)
{
    json_t *j = json_object();
    json_object_set_new(j, "format", json_string("tabula-record"));
    json_object_set_new(j, "version", json_integer(1));
    json_object_set_new(j, "game", json_string(rec->game->name));
    json_t *players = json_array();
    for (int i = 0; i < rec->players; i++)
        json_array_append_new(players,
                              json_pack("{s:s,s:s}", "name", rec->name[i], "kind", rec->kind[i]));
    json_object_set_new(j, "players", players);
    json_t *opts = json_object();
    for (int i = 0; i < rec->options.count; i++)
        json_object_set_new(opts, rec->options.item[i].key,
                            json_string(rec->options.item[i].value));
    json_object_set_new(j, "options", opts);
    if (rec->has_board)
        json_object_set_new(j, "data", json_pack("{s:s,s:s}", "name", rec->board, "hash",
                                                  rec->board_hash));
    if (with_seed) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRIu64, rec->seed);
        json_object_set_new(j, "seed", json_string(buf));
    }
    json_t *moves = json_array();
    for (int i = 0; i < rec->count; i++)
        json_array_append_new(moves, json_string(rec->moves[i]));
    json_object_set_new(j, "moves", moves);
    if (rec->started[0])
        json_object_set_new(j, "started", json_string(rec->started));
    if (rec->finished[0])
        json_object_set_new(j, "finished", json_string(rec->finished));
    return j;
}

static void record_attach_result(json_t *j, const tb_state *final)
{
    json_object_set_new(j, "result", tb__result_tree(final));
}

char *tb_record_json(const tb_record *rec, const tb_state *final)
{
    json_t *j = record_to_object(rec, !rec->sealed);
    if (final && tb_is_over(final))
        record_attach_result(j, final);
    else if (rec->result)
        json_object_set_new(j, "result", json_incref(rec->result));
    char *s = tb__json_dump(j);
    json_decref(j);
    return s;
}

char *tb_record_json_sealed(const tb_record *rec, const tb_state *current, int seat)
{
    if (tb_is_over(current))
        return tb_record_json(rec, current);
    json_t *j = record_to_object(rec, false);
    json_object_set_new(j, "sealed", json_true());
    json_object_set_new(j, "seat", json_integer(seat));
    json_object_set_new(j, "view", current->game->view_json(current, seat));
    char *s = tb__json_dump(j);
    json_decref(j);
    return s;
}

tb_record *tb_record_from_json(const char *json, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *j = tb__json_loads(json, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        tb__errf(err, errlen, "bad JSON at line %d column %d: %s", jerr.line, jerr.column,
                 tb__json_error_words(&jerr));
        return NULL;
    }
    tb_record *rec = NULL;
    if (!json_is_object(j)) {
        tb__errf(err, errlen, "a record must be a JSON object");
        goto fail;
    }
    const char *format = json_string_value(json_object_get(j, "format"));
    if (!format || strcmp(format, "tabula-record") != 0) {
        tb__errf(err, errlen, "not a Tabula record ('format' must be \"tabula-record\")");
        goto fail;
    }
    json_int_t version = json_integer_value(json_object_get(j, "version"));
    if (version != 1) {
        tb__errf(err, errlen, "unsupported record version (this build reads version 1)");
        goto fail;
    }
    const char *gname = json_string_value(json_object_get(j, "game"));
    const tb_game *game = tb_game_find(gname);
    if (!game) {
        tb__errf(err, errlen, "unknown game '%s'", gname ? gname : "(missing)");
        goto fail;
    }
    const json_t *players = json_object_get(j, "players");
    if (!json_is_array(players) || (int)json_array_size(players) < game->min_players ||
        (int)json_array_size(players) > game->max_players) {
        tb__errf(err, errlen, "'players' must list %d to %d players", game->min_players,
                 game->max_players);
        goto fail;
    }
    tb_options opts;
    tb_options_clear(&opts);
    const json_t *jo = json_object_get(j, "options");
    if (jo && !json_is_object(jo)) {
        tb__errf(err, errlen, "'options' must be an object");
        goto fail;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)jo, key, val) {
        if (!json_is_string(val)) {
            tb__errf(err, errlen, "option '%s' must be a string", key);
            goto fail;
        }
        if (tb_options_set(&opts, key, json_string_value(val), err, errlen))
            goto fail;
    }
    if (tb_options_normalize(game, &opts, err, errlen))
        goto fail;
    const json_t *jseed = json_object_get(j, "seed");
    uint64_t seed = 0;
    bool sealed = false;
    if (!jseed) {
        sealed = true;
    } else {
        const char *ss = json_string_value(jseed);
        char *end = NULL;
        if (!ss || !*ss || *ss == '-' || *ss == '+' || *ss == ' ' ||
            (seed = strtoull(ss, &end, 10), *end)) {
            tb__errf(err, errlen, "'seed' must be a decimal string");
            goto fail;
        }
    }
    const json_t *board = json_object_get(j, "data");
    const char *board_name = json_string_value(json_object_get(board, "name"));
    const char *board_hash = json_string_value(json_object_get(board, "hash"));
    if (board && (!json_is_object(board) || !tb_data_name_ok(board_name) ||
                  !tb__data_hash_ok(board_hash))) {
        tb__errf(err, errlen, "'data' must be an object with a 'name' and a 16-digit 'hash'");
        goto fail;
    }
    if (board && !game->data_builtin) {
        tb__errf(err, errlen, "%s has no boards to choose from, but this record names '%s'",
                 game->title, board_name);
        goto fail;
    }
    rec = tb_record_new(game, (int)json_array_size(players), &opts, seed);
    if (!rec) {
        tb__errf(err, errlen, "out of memory while reading the record");
        goto fail;
    }
    rec->sealed = sealed;
    rec->has_board = board != NULL;
    if (board) {
        snprintf(rec->board, sizeof rec->board, "%s", board_name);
        snprintf(rec->board_hash, sizeof rec->board_hash, "%s", board_hash);
    }
    for (size_t i = 0; i < json_array_size(players); i++) {
        const json_t *p = json_array_get(players, i);
        const char *name = json_string_value(json_object_get(p, "name"));
        const char *kind = json_string_value(json_object_get(p, "kind"));
        if (!json_is_object(p) || !name || !kind) {
            tb__errf(err, errlen, "player %zu needs a 'name' and a 'kind'", i);
            goto fail;
        }
        tb_record_set_player(rec, (int)i, name, kind);
    }
    const json_t *moves = json_object_get(j, "moves");
    if (!json_is_array(moves)) {
        tb__errf(err, errlen, "'moves' must be an array of strings");
        goto fail;
    }
    for (size_t i = 0; i < json_array_size(moves); i++) {
        const char *m = json_string_value(json_array_get(moves, i));
        if (!m) {
            tb__errf(err, errlen, "move %zu is not a string", i + 1);
            goto fail;
        }
        if (tb_record_push(rec, m) != 0) {
            tb__errf(err, errlen, "out of memory while reading the record");
            goto fail;
        }
    }
    tb_record_set_times(rec, json_string_value(json_object_get(j, "started")),
                        json_string_value(json_object_get(j, "finished")));
    json_t *result = json_object_get(j, "result");
    if (result) {
        if (!json_is_object(result)) {
            tb__errf(err, errlen, "'result' must be an object");
            goto fail;
        }
        rec->result = json_incref(result);
    }
    json_decref(j);
    return rec;
fail:
    tb_record_free(rec);
    json_decref(j);
    return NULL;
}

tb_state *tb_record_replay(const tb_record *rec, int upto, char *err, size_t errlen)
{
    return tb_record_replay_in(rec, upto, NULL, err, errlen);
}

tb_state *tb_record_replay_in(const tb_record *rec, int upto, const tb_data_set *boards,
                              char *err, size_t errlen)
{
    const tb_data *data = NULL;
    if (tb__data_lookup(rec->game, rec->has_board ? rec->board : NULL,
                        rec->has_board ? rec->board_hash : NULL, boards, &data, err, errlen))
        return NULL;
    if (rec->sealed) {
        tb__errf(err, errlen, "this record is sealed (no seed) until its game is over");
        return NULL;
    }
    if (upto < 0 || upto > rec->count)
        upto = rec->count;
    tb_state *s = tb_state_new(rec->game);
    char why[TB_ERR_LEN];
    if (!s) {
        tb__errf(err, errlen, "out of memory while replaying the record");
        return NULL;
    }
    if (tb_setup_data(s, data, rec->players, &rec->options, rec->seed, why, sizeof why)) {
        tb__errf(err, errlen, "cannot set the game up: %s", why);
        tb_state_free(s);
        return NULL;
    }
    for (int i = 0; i < upto; i++) {
        if (tb_play_text(s, rec->moves[i], why, sizeof why)) {
            tb__errf(err, errlen, "decision %d '%s' does not replay: %s", i + 1, rec->moves[i],
                     why);
            tb_state_free(s);
            return NULL;
        }
    }
    if (upto == rec->count && rec->result && tb_is_over(s)) {
        json_t *mine = tb__result_tree(s);
        if (!mine || tb__json_oom) {
            tb__json_oom = false;
            json_decref(mine);
            tb__errf(err, errlen, "out of memory while replaying the record");
            tb_state_free(s);
            return NULL;
        }
        bool same = json_equal(mine, rec->result);
        json_decref(mine);
        if (!same) {
            tb__errf(err, errlen, "the replayed result differs from the result in the record");
            tb_state_free(s);
            return NULL;
        }
    }
    return s;
}
