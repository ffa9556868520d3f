/*
 * social.c — a table's people talking to each other: the table chat, and the
 * links between a game and its rematch ("Play again", made by rematch.c).
 * room.c calls these with the room locked (docs/server.md, "Chat and Play
 * again"; the messages in docs/http-api.md).
 *
 * Layering: below the room, like seats.c: it calls nothing in room.c,
 * rooms.c, lobby.c, rematch.c or lease.c (only the store, the basics and
 * jansson), so calls among the server's files go one way.
 *
 * Invariants:
 *   - a chat line is 1 to SRV_CHAT_MAX_CHARS characters of valid UTF-8
 *     (jansson guarantees the encoding) without control characters other
 *     than a newline, and not only white space; a seat says at most
 *     SRV_CHAT_BURST lines in SRV_CHAT_WINDOW_US; a refused line changes
 *     nothing (room.c lets only a seated player's connection say one);
 *   - a line is stored before anyone hears it, so every line a connection
 *     saw is in the game's chat after a restart; its text is kept verbatim
 *     (the browser shows it as text, never as markup);
 *   - the cache holds the game's last SRV_CHAT_KEEP lines in order, or is
 *     NULL and read again from the store.
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

int srv_social_say(srv_room *r, int seat, const char *text, json_t **line, const char **code,
                   char *why, size_t whylen)
{
    char err[TB_ERR_LEN];
    *line = NULL;
    if (social_check(text, code, why, whylen))
        return -1;
    uint64_t now = srv_now_us();
    uint64_t *slot = &r->social.said_us[seat][r->social.said_next[seat]];
    if (*slot && now - *slot < SRV_CHAT_WINDOW_US) {
        *code = "slow_down";
        snprintf(why, whylen, "at most %d chat lines in %u seconds; wait a moment, then say it again",
                 SRV_CHAT_BURST, SRV_CHAT_WINDOW_US / 1000000u);
        return -1;
    }
    if (social_chat_ready(r, err, sizeof err)) {
        srv_log(&r->rooms->cfg, "game %s: reading the chat: %s", r->id, err);
        *code = "store_failed";
        snprintf(why, whylen, "the chat could not be read, so nothing was said");
        return -1;
    }
    /* the line and its room in the cache first: once it is stored, telling
     * everyone cannot fail for want of memory, and a refusal changed nothing */
    char at[SRV_TIME_LEN];
    srv_iso_now(at);
    size_t have = json_array_size(r->social.chat);
    json_t *last = have ? json_array_get(r->social.chat, have - 1) : NULL;
    int n = last ? (int)json_integer_value(json_object_get(last, "n")) + 1 : 1;
    int decisions = r->state ? tb_decisions_made(r->state) : 0;
    const char *name = r->seat[seat].name;
    *line = social_line(n, seat, name, text, at, decisions);
    if (!*line || json_array_append(r->social.chat, *line) != 0) {
        json_decref(*line);
        *line = NULL;
        *code = "internal";
        snprintf(why, whylen, "%s", SRV_INTERNAL_MESSAGE);
        return -1;
    }
    srv_store *st = r->rooms->store;
    if (st->m->chat_add(st, r->id, n, seat, name, text, at, decisions, err, sizeof err)) {
        srv_log(&r->rooms->cfg, "game %s: saving a chat line: %s", r->id, err);
        json_decref(*line);
        *line = NULL;
        json_decref(r->social.chat); /* read again: another instance may have said one */
        r->social.chat = NULL;
        *code = "store_failed";
        snprintf(why, whylen, "the line could not be saved, so nothing was said: %s", err);
        return -1;
    }
    *slot = now;
    r->social.said_next[seat] = (r->social.said_next[seat] + 1) % SRV_CHAT_BURST;
    if (json_array_size(r->social.chat) > SRV_CHAT_KEEP)
        json_array_remove(r->social.chat, 0);
    return 0;
}

char *srv_social_chat_log(srv_room *r)
{
    char err[TB_ERR_LEN];
    if (social_chat_ready(r, err, sizeof err)) {
        srv_log(&r->rooms->cfg, "game %s: reading the chat: %s", r->id, err);
        return NULL; /* the page works without the old lines; new ones still come */
    }
    json_t *msg = json_pack("{s:s,s:O,s:i,s:i,s:f}", "type", "chat_log", "lines", r->social.chat,
                            "max_chars", SRV_CHAT_MAX_CHARS, "burst", SRV_CHAT_BURST, "seconds",
                            SRV_CHAT_WINDOW_US / 1e6);
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    return text;
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

/* ---- "Play again": the links (rematch.c makes the games) ---- */

void srv_social_load(srv_room *r)
{
    char err[TB_ERR_LEN];
    srv_store *st = r->rooms->store;
    if (st->m->rematch_get(st, r->id, r->social.rematch, r->social.rematch_of, err,
                           sizeof err) < 0)
        srv_log(&r->rooms->cfg, "game %s: reading its rematch: %s", r->id, err);
}

void srv_social_reloaded(srv_room *r, const srv_room *fresh)
{
    srv_social_free(r); /* lines said on another instance: read again when needed */
    memcpy(r->social.rematch, fresh->social.rematch, sizeof r->social.rematch);
    memcpy(r->social.rematch_of, fresh->social.rematch_of, sizeof r->social.rematch_of);
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
