/*
 * rematch.c — "Play again": POST /api/games/{id}/rematch makes the rematch of
 * a finished game (the same game, board, options and absent time; the same
 * people and computer levels, everyone one seat on) and offers it to every
 * connection of the old game (docs/server.md, "Chat and Play again").
 *
 * Layering: above the rooms, like lobby.c: it builds the new room through
 * room.c (srv_room_make, srv_room_row, srv_room_start), its keys through
 * seats.c, registers it (rooms.c) and reads the old room; nothing below calls
 * into this file.
 *
 * Invariants:
 *   - only the person of a seat of a finished game (shown by that seat's
 *     key, or for an account's seat by the account's session) makes or
 *     fetches its rematch; a spectator, a stranger, a running
 *     or broken game is refused and nothing is made;
 *   - a game has at most one rematch: the store links the first one
 *     (rematch_link, one transaction) and a game made for a second request
 *     is deleted again, that request answered with the first;
 *   - a rematch seat's key is the key of the person's seat in the old game
 *     (only its hash is stored: copied), so the server hands a person's link
 *     to the new game only to whoever shows that key: in the answer to their
 *     own request, or over their own connection (srv_client.token).  No
 *     one's key goes to anyone else;
 *   - a seat's store row is copied whole into the new game before its game
 *     columns are set, so whatever else a seat row carries (an account)
 *     stays with its person.
 */
#include "roomsInt.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The new game's request (as POST /api/games) and its seats' rows: the
 * same game, board, options and absent time; new seat j is old seat j - 1
 * (everyone moves one seat on), people and computer levels kept.  Room
 * locked; NULL when memory runs out. */
static json_t *rematch_request(srv_room *r, const srv_game_row *row,
                               srv_seat_row rows[TB_MAX_SEATS])
{
    json_t *req = json_object(), *opts = json_object(), *seats = json_array();
    bool whole = req && opts && seats;
    for (int i = 0; whole && i < r->options.count; i++)
        whole = json_object_set_new(opts, r->options.item[i].key,
                                    json_string(r->options.item[i].value)) == 0;
    int n = r->players;
    for (int j = 0; whole && j < n; j++) {
        int old = (j + n - 1) % n;
        const srv_seat *st = &r->seat[old];
        rows[j] = row->seat[old];
        json_t *o = json_pack("{s:s,s:s}", "kind", st->kind == SRV_AI ? "ai" : "human", "name",
                              st->name);
        if (o && st->kind == SRV_AI)
            json_object_set_new(o, "level", json_string(st->level));
        whole = o && json_array_append_new(seats, o) == 0;
    }
    const char *board = r->record ? tb_record_data_name(r->record) : NULL;
    whole = whole && json_object_set_new(req, "game", json_string(tb_game_name(r->game))) == 0 &&
            json_object_set_new(req, "players", json_integer(n)) == 0 &&
            json_object_set_new(req, "absent_after", json_integer(r->absent_after)) == 0 &&
            json_object_set(req, "options", opts) == 0 && json_object_set(req, "seats", seats) == 0 &&
            (!board || strcmp(board, TB_DATA_DEFAULT) == 0 ||
             json_object_set_new(req, "board", json_string(board)) == 0);
    json_decref(opts);
    json_decref(seats);
    if (!whole) {
        json_decref(req);
        return NULL;
    }
    return req;
}

/* Makes, stores, links and starts the rematch of game `of` from `req` and
 * its seats' rows: 201 with made[] the new game; 200 with made[] the
 * rematch another request linked first (the game made here deleted again);
 * else the HTTP status of *reply. */
static int rematch_create(srv_rooms *s, const char *of, const json_t *req,
                          const srv_seat_row seats[TB_MAX_SEATS], bool rated,
                          char made[SRV_ID_LEN + 1], char **reply)
{
    pthread_mutex_lock(&s->registry_lock);
    int limit = s->cfg.max_games > 0 ? s->cfg.max_games : SRV_MAX_ROOMS;
    bool full = atomic_load(&s->running) >= limit;
    pthread_mutex_unlock(&s->registry_lock);
    if (full)
        return srv_error_reply(reply, 503, "server_full",
                               "this server runs %d games, its limit; try again later", limit);
    srv_room *r = NULL;
    uint64_t seed = 0;
    int status = srv_room_make(s, req, &r, &seed, reply);
    if (status)
        return status;
    /* keys as for any game (the creator's: nobody's), then each person's own */
    srv_lobby_create lc;
    memset(&lc, 0, sizeof lc);
    lc.absent_after = json_is_integer(json_object_get(req, "absent_after"))
                          ? (int)json_integer_value(json_object_get(req, "absent_after"))
                          : -1;
    char tokens[TB_MAX_SEATS][64], creator[64];
    srv_seats_create_keys(r, &lc, tokens, creator, sizeof creator);
    memset(tokens, 0, sizeof tokens);
    memset(creator, 0, sizeof creator);
    for (int i = 0; i < r->players; i++)
        if (r->seat[i].kind == SRV_HUMAN) { /* the person's key and account come along */
            memcpy(r->seat[i].token_hash, seats[i].token_hash, SRV_HASH_LEN);
            r->seat[i].account_id = seats[i].account_id;
        }
    r->rated = rated; /* a rated table plays rated again (its seats are accounts still) */
    srv_game_row row;
    if (srv_room_row(r, seed, &row)) {
        srv_room_free(r);
        return srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    }
    for (int i = 0; i < r->players; i++) { /* the old row whole, then this game's columns */
        srv_seat_row mine = row.seat[i];
        row.seat[i] = seats[i];
        memcpy(row.seat[i].kind, mine.kind, sizeof mine.kind);
        memcpy(row.seat[i].name, mine.name, sizeof mine.name);
        memcpy(row.seat[i].level, mine.level, sizeof mine.level);
        memcpy(row.seat[i].token_hash, mine.token_hash, SRV_HASH_LEN);
        row.seat[i].open = mine.open;
        row.seat[i].joined = row.seat[i].resigned = false;
    }
    srv_seats_create_row(r, &lc, &row);
    char err[TB_ERR_LEN];
    int rc = s->store->m->game_create(s->store, &row, err, sizeof err);
    free(row.options);
    srv_store_report(s, rc == 0, err);
    if (rc == 0) {
        rc = s->store->m->rematch_link(s->store, of, r->id, made, err, sizeof err);
        if (rc != 0) { /* linked first by another request, or not at all: given up */
            char derr[TB_ERR_LEN];
            if (s->store->m->game_delete(s->store, r->id, derr, sizeof derr) < 0)
                srv_log(&s->cfg, "game %s: giving up a rematch: %s", r->id, derr);
        }
    }
    if (rc == 1) {
        srv_room_free(r);
        return 200;
    }
    if (rc) {
        srv_room_free(r);
        return srv_error_reply(reply, 500, "store_failed", "the game could not be saved: %s", err);
    }
    snprintf(made, SRV_ID_LEN + 1, "%s", r->id);
    snprintf(r->social.rematch_of, sizeof r->social.rematch_of, "%s", of);
    srv_room_register(s, r);
    srv_log(&s->cfg, "game %s: new %s for %d players, the rematch of %s", r->id,
            tb_game_name(r->game), r->players, of);
    srv_room_start(r);
    return 201;
}

/* Tells every connection of the old game about its rematch (room locked):
 * each person their own link, spectators where to watch. */
static void rematch_offer_locked(srv_room *r)
{
    for (int i = 0; i < r->nclients; i++) {
        srv_client *c = r->clients[i];
        char link[256];
        json_t *msg;
        if (c->seat >= 0) {
            /* the person's own link: with their key, or for an account's
             * seat (played by its session) the game's own address */
            int seat = (c->seat + 1) % r->players;
            if (c->token[0])
                snprintf(link, sizeof link, "/game.html?game=%s&token=%s", r->social.rematch,
                         c->token);
            else
                snprintf(link, sizeof link, "/game.html?game=%s", r->social.rematch);
            msg = json_pack("{s:s,s:s,s:s,s:i,s:s}", "type", "rematch", "id", r->social.rematch,
                            "of", r->id, "seat", seat, "link", link);
        } else {
            snprintf(link, sizeof link, "/game.html?game=%s", r->social.rematch);
            msg = json_pack("{s:s,s:s,s:s,s:n,s:s}", "type", "rematch", "id", r->social.rematch,
                            "of", r->id, "seat", "link", link);
        }
        char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
        json_decref(msg);
        memset(link, 0, sizeof link);
        if (text)
            c->ops->send(c, text);
    }
}

int srv_room_rematch(srv_rooms *s, const char *id, const char *body, size_t len, int64_t account,
                     char **reply)
{
    json_error_t jerr;
    json_t *body_json = tb__json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!body_json && tb__json_no_memory(&jerr))
        return srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    if (!body_json && len > 0)
        return srv_error_reply(reply, 400, "bad_json", "the body is not JSON: %s",
                               tb__json_error_words(&jerr));
    const char *token = json_string_value(json_object_get(body_json, "token"));
    char key[136] = "";
    bool long_key = token && strlen(token) >= sizeof key;
    if (token && !long_key)
        snprintf(key, sizeof key, "%s", token);
    json_decref(body_json);
    if (!key[0] && !long_key && account <= 0)
        return srv_error_reply(reply, 403, "not_a_player",
                               "only a player of this game can play it again: send your seat's "
                               "key as {\"token\": ...}, or log in to the account that plays it");
    int status, seat = -2, players = 0, count = 0;
    bool rated = false;
    bool temporary = false;
    srv_game_row row;
    srv_decision_row *moves = NULL;
    char err[TB_ERR_LEN];
    srv_seat_row seats[TB_MAX_SEATS];
    memset(seats, 0, sizeof seats);
    char made[SRV_ID_LEN + 1] = "";
    json_t *req = NULL;
    srv_room *r = srv_room_borrow(s, id, &temporary);
    if (!r) {
        status = srv_error_reply(reply, 404, "unknown_game", "there is no such game");
        goto out;
    }
    if (key[0])
        seat = srv_room_seat_of_token(r, key);
    else if (!long_key)
        seat = srv_room_seat_of_account(r, account); /* its session shows who it is */
    if (seat < 0) {
        status = srv_error_reply(reply, 403, "bad_token",
                                 "this key is not one of this game's seats, so only its players "
                                 "can play it again");
        goto out;
    }
    pthread_mutex_lock(&r->lock);
    players = r->players;
    if (!r->state || r->broken[0]) {
        status = srv_error_reply(reply, 409, "broken", "this game cannot be played again: %s",
                                 r->broken);
    } else if (!srv_room_over_locked(r)) {
        status = srv_error_reply(reply, 409, "not_over",
                                 "this game is still being played: play it again once it is over");
    } else if (r->social.rematch[0]) {
        snprintf(made, sizeof made, "%s", r->social.rematch);
        status = 200;
    } else if (s->store->m->game_load(s->store, id, &row, &moves, &count, err, sizeof err)) {
        status = srv_error_reply(reply, 500, "store_failed", "the game could not be read: %s", err);
    } else {
        srv_decisions_free(moves, count);
        req = rematch_request(r, &row, seats);
        rated = r->rated;
        srv_game_row_clear(&row);
        status = req ? 0
                     : srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    }
    pthread_mutex_unlock(&r->lock);
    if (req) { /* no room locked: creating takes the registry */
        char *made_reply = NULL;
        status = rematch_create(s, id, req, seats, rated, made, &made_reply);
        json_decref(req);
        if (status >= 300) {
            *reply = made_reply;
            goto out;
        }
        free(made_reply);
        /* 201 when this request made it, 200 when another was linked first */
        pthread_mutex_lock(&r->lock);
        bool fresh = !r->social.rematch[0];
        snprintf(r->social.rematch, sizeof r->social.rematch, "%s", made);
        if (fresh)
            rematch_offer_locked(r);
        pthread_mutex_unlock(&r->lock);
        srv_log(&s->cfg, "game %s: played again as %s", id, made);
    } else if (status != 200) {
        goto out;
    }
    char link[256];
    if (key[0])
        snprintf(link, sizeof link, "/game.html?game=%s&token=%s", made, key);
    else
        snprintf(link, sizeof link, "/game.html?game=%s", made); /* the session plays it */
    json_t *out = json_pack("{s:s,s:s,s:i,s:s}", "id", made, "of", id, "seat",
                            (seat + 1) % players, "link", link);
    if (out && key[0])
        json_object_set_new(out, "token", json_string(key));
    *reply = srv_json_text(out);
    memset(link, 0, sizeof link);
out:
    memset(key, 0, sizeof key);
    if (r && temporary)
        srv_room_free(r);
    return status;
}
