/*
 * social.c — a table's people talking to each other: the table chat, and
 * "Play again" (the rematch of a finished game).  Part of the rooms layer
 * (roomsInt.h); docs/server.md and docs/http-api.md describe both.
 *
 * Invariants:
 *   - a chat line comes only from a seated player's connection, is 1 to
 *     SRV_CHAT_MAX_CHARS characters of valid UTF-8 (jansson guarantees the
 *     encoding) without control characters other than a newline, and not
 *     only white space; a seat says at most SRV_CHAT_BURST lines in
 *     SRV_CHAT_WINDOW_US; a refused line changes nothing;
 *   - a line is stored before anyone hears it, so every line a connection
 *     saw is in the game's chat after a restart; the text is kept verbatim
 *     (the browser shows it as text, never as markup);
 *   - a game has at most one rematch (games.rematch, linked in one store
 *     transaction; the first link wins and a game made for a second one is
 *     deleted again);
 *   - a rematch seat's key is the key of the person's seat in the old game
 *     (only its hash is stored, copied), so the server hands a person's link
 *     to the new game only to whoever shows that key: in the answer to their
 *     own POST, or over their own connection (srv_client.token).  No one's
 *     key goes to anyone else.
 */
#include "roomsInt.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- chat ---- */

/* The code point at p (valid UTF-8); returns the next character. */
static const char *social_next(const char *p, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)p;
    int extra = u[0] < 0x80 ? 0 : u[0] < 0xE0 ? 1 : u[0] < 0xF0 ? 2 : 3;
    uint32_t v = extra == 0 ? u[0] : extra == 1 ? u[0] & 0x1Fu : extra == 2 ? u[0] & 0x0Fu : u[0] & 0x07u;
    for (int i = 1; i <= extra && u[i]; i++)
        v = (v << 6) | (u[i] & 0x3Fu);
    *cp = v;
    for (int i = 0; i <= extra; i++)
        if (!*p++)
            return p - 1;
    return p;
}

static bool social_space(uint32_t cp)
{
    return cp == ' ' || cp == '\n' || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 ||
           cp == 0xFEFF;
}

/* Whether `text` may be said: 0, or -1 with the error's code and words. */
static int social_check(const char *text, const char **code, char *why, size_t whylen)
{
    int chars = 0;
    bool blank = true;
    for (const char *p = text; *p;) {
        uint32_t cp;
        p = social_next(p, &cp);
        chars++;
        if ((cp < 0x20 && cp != '\n') || (cp >= 0x7F && cp <= 0x9F)) {
            *code = "bad_text";
            snprintf(why, whylen, "a chat line may hold no control characters (a new line is "
                                  "fine); nothing was said");
            return -1;
        }
        blank &= social_space(cp);
    }
    if (blank) {
        *code = "empty";
        snprintf(why, whylen, "there is nothing to say in that line");
        return -1;
    }
    if (chars > SRV_CHAT_MAX_CHARS) {
        *code = "too_long";
        snprintf(why, whylen, "a chat line has at most %d characters; that one had %d, so "
                              "nothing was said", SRV_CHAT_MAX_CHARS, chars);
        return -1;
    }
    return 0;
}

static json_t *social_line(int n, int seat, const char *name, const char *text, const char *at,
                           int decisions)
{
    return json_pack("{s:s,s:i,s:i,s:s,s:s,s:s,s:i}", "type", "chat", "n", n, "seat", seat,
                     "name", name, "text", text, "at", at, "decisions", decisions);
}

/* The room's last lines, read from the store the first time (room locked):
 * 0, or -1 with err. */
static int social_chat_ready(srv_room *r, char *err, size_t errlen)
{
    if (r->social.chat)
        return 0;
    srv_chat_row *rows = NULL;
    int count = 0;
    srv_store *st = r->rooms->store;
    if (st->m->chat_list(st, r->id, SRV_CHAT_KEEP, &rows, &count, err, errlen))
        return -1;
    json_t *a = json_array();
    bool whole = a != NULL;
    for (int i = 0; whole && i < count; i++)
        whole = json_array_append_new(a, social_line(rows[i].n, rows[i].seat, rows[i].name,
                                                     rows[i].text, rows[i].at,
                                                     rows[i].decisions)) == 0;
    srv_chat_free(rows, count);
    if (!whole) {
        json_decref(a);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->social.chat = a;
    return 0;
}

void srv_social_chat(srv_room *r, srv_client *c, const json_t *msg, const json_t *id)
{
    const char *text = json_string_value(json_object_get(msg, "text"));
    if (!text) {
        srv_client_error(c, id, "bad_message",
                         "a chat message needs \"text\": {\"type\":\"chat\",\"text\":\"Hello\"}");
        return;
    }
    const char *code = NULL;
    char why[200], err[TB_ERR_LEN];
    int seat = c->seat;
    pthread_mutex_lock(&r->lock);
    if (srv_room_refuse_locked(r, c, id, seat,
                               "spectators read the table's chat; only its players write in it")) {
        /* (answered) */
    } else if (social_check(text, &code, why, sizeof why)) {
        srv_client_error(c, id, code, "%s", why);
    } else {
        uint64_t now = srv_now_us();
        uint64_t *slot = &r->social.said_us[seat][r->social.said_next[seat]];
        if (*slot && now - *slot < SRV_CHAT_WINDOW_US) {
            srv_client_error(c, id, "slow_down",
                             "at most %d chat lines in %u seconds; wait a moment, then say it "
                             "again", SRV_CHAT_BURST, SRV_CHAT_WINDOW_US / 1000000u);
        } else if (social_chat_ready(r, err, sizeof err)) {
            srv_log(&r->rooms->cfg, "game %s: reading the chat: %s", r->id, err);
            srv_client_error(c, id, "store_failed", "the chat could not be read, so nothing was said");
        } else {
            char at[SRV_TIME_LEN];
            srv_iso_now(at);
            int n = 0, decisions = tb_decisions_made(r->state);
            const char *name = r->seat[seat].name;
            srv_store *st = r->rooms->store;
            json_t *line = NULL;
            if (st->m->chat_add(st, r->id, seat, name, text, at, &n, err, sizeof err)) {
                srv_log(&r->rooms->cfg, "game %s: saving a chat line: %s", r->id, err);
                srv_client_error(c, id, "store_failed",
                                 "the line could not be saved, so nothing was said: %s", err);
            } else if (!(line = social_line(n, seat, name, text, at, decisions))) {
                /* stored but not sent: the next reading of the chat shows it */
                json_decref(r->social.chat);
                r->social.chat = NULL;
                srv_client_error(c, id, "internal", SRV_INTERNAL_MESSAGE);
            } else {
                *slot = now;
                r->social.said_next[seat] = (r->social.said_next[seat] + 1) % SRV_CHAT_BURST;
                if (json_array_append(r->social.chat, line) == 0 &&
                    json_array_size(r->social.chat) > SRV_CHAT_KEEP)
                    json_array_remove(r->social.chat, 0);
                srv_room_broadcast_locked(r, line);
            }
        }
    }
    pthread_mutex_unlock(&r->lock);
}

void srv_social_attach_locked(srv_room *r, srv_client *c)
{
    char err[TB_ERR_LEN];
    if (social_chat_ready(r, err, sizeof err)) {
        srv_log(&r->rooms->cfg, "game %s: reading the chat: %s", r->id, err);
        return; /* the page works without the old lines; new ones still come */
    }
    json_t *msg = json_pack("{s:s,s:O,s:i,s:i,s:f}", "type", "chat_log", "lines", r->social.chat,
                            "max_chars", SRV_CHAT_MAX_CHARS, "burst", SRV_CHAT_BURST, "seconds",
                            SRV_CHAT_WINDOW_US / 1e6);
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    if (text)
        c->ops->send(c, text);
}

void srv_social_replay_json(srv_room *r, json_t *j)
{
    srv_chat_row *rows = NULL;
    int count = 0;
    char err[TB_ERR_LEN];
    srv_store *st = r->rooms->store;
    json_t *a = json_array();
    if (st->m->chat_list(st, r->id, 0, &rows, &count, err, sizeof err)) {
        srv_log(&r->rooms->cfg, "game %s: reading the chat: %s", r->id, err);
    } else {
        for (int i = 0; i < count; i++) {
            json_t *line = social_line(rows[i].n, rows[i].seat, rows[i].name, rows[i].text,
                                       rows[i].at, rows[i].decisions);
            if (line)
                json_object_del(line, "type");
            json_array_append_new(a, line);
        }
        srv_chat_free(rows, count);
    }
    json_object_set_new(j, "chat", a);
}

/* ---- "Play again" ---- */

void srv_social_load(srv_room *r)
{
    char err[TB_ERR_LEN];
    srv_store *st = r->rooms->store;
    if (st->m->rematch_get(st, r->id, r->social.rematch, r->social.rematch_of, err,
                           sizeof err) < 0)
        srv_log(&r->rooms->cfg, "game %s: reading its rematch: %s", r->id, err);
}

void srv_social_free(srv_room *r)
{
    json_decref(r->social.chat);
    r->social.chat = NULL;
}

void srv_social_summary_json(const srv_room *r, json_t *j)
{
    json_object_set_new(j, "rematch", r->social.rematch[0] ? json_string(r->social.rematch)
                                                            : json_null());
    json_object_set_new(j, "rematch_of", r->social.rematch_of[0]
                                             ? json_string(r->social.rematch_of)
                                             : json_null());
}

/* The new game's request (as POST /api/games) and its seats' rows: the
 * same game, board, options and absent time; new seat j is old seat j - 1
 * (everyone moves one seat on), people and computer levels kept.  Room
 * locked; NULL when memory runs out. */
static json_t *social_rematch_request(srv_room *r, const srv_game_row *row, srv_room_copy *copy)
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
        copy->seat[j] = row->seat[old];
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

/* Tells every connection of the old game about its rematch (room locked):
 * each person their own link, spectators where to watch. */
static void social_offer_locked(srv_room *r)
{
    for (int i = 0; i < r->nclients; i++) {
        srv_client *c = r->clients[i];
        char link[256];
        json_t *msg;
        if (c->seat >= 0 && c->token[0]) {
            int seat = (c->seat + 1) % r->players;
            snprintf(link, sizeof link, "/game.html?game=%s&token=%s", r->social.rematch, c->token);
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

int srv_room_rematch(srv_rooms *s, const char *id, const char *body, size_t len, char **reply)
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
    if (!key[0] && !long_key)
        return srv_error_reply(reply, 403, "not_a_player",
                               "only a player of this game can play it again: send your seat's "
                               "key as {\"token\": ...}");
    int status, seat = -2, players = 0, count = 0;
    bool temporary = false;
    srv_game_row row;
    srv_decision_row *moves = NULL;
    char err[TB_ERR_LEN];
    srv_room_copy copy;
    memset(&copy, 0, sizeof copy);
    copy.of = id;
    json_t *req = NULL;
    srv_room *r = srv_room_borrow(s, id, &temporary);
    if (!r) {
        status = srv_error_reply(reply, 404, "unknown_game", "there is no such game");
        goto out;
    }
    if (!long_key)
        seat = srv_room_seat_of_token(r, key);
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
        snprintf(copy.made, sizeof copy.made, "%s", r->social.rematch);
        status = 200;
    } else if (s->store->m->game_load(s->store, id, &row, &moves, &count, err, sizeof err)) {
        status = srv_error_reply(reply, 500, "store_failed", "the game could not be read: %s", err);
    } else {
        srv_decisions_free(moves, count);
        req = social_rematch_request(r, &row, &copy);
        srv_game_row_clear(&row);
        status = req ? 0
                     : srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    }
    pthread_mutex_unlock(&r->lock);
    if (req) { /* no room locked: creating takes the registry */
        char *made_reply = NULL;
        status = srv_room_create_copy(s, req, &copy, &made_reply);
        json_decref(req);
        if (status >= 300) {
            *reply = made_reply;
            goto out;
        }
        free(made_reply);
        /* 201 when this request made it, 200 when another was linked first */
        pthread_mutex_lock(&r->lock);
        bool fresh = !r->social.rematch[0];
        snprintf(r->social.rematch, sizeof r->social.rematch, "%s", copy.made);
        if (fresh)
            social_offer_locked(r);
        pthread_mutex_unlock(&r->lock);
        srv_log(&s->cfg, "game %s: played again as %s", id, copy.made);
    } else if (status != 200) {
        goto out;
    }
    char link[256];
    snprintf(link, sizeof link, "/game.html?game=%s&token=%s", copy.made, key);
    *reply = srv_json_text(json_pack("{s:s,s:s,s:i,s:s,s:s}", "id", copy.made, "of", id, "seat",
                                     (seat + 1) % players, "token", key, "link", link));
    memset(link, 0, sizeof link);
out:
    memset(key, 0, sizeof key);
    if (r && temporary)
        srv_room_free(r);
    return status;
}
