/*
 * me.c — what the rooms do for accounts (issue 28), above the rooms like
 * lobby.c: an account's games for GET /api/me, a guest's seats kept when
 * they sign up or log in (claiming by link), and a deleted account's seats
 * renamed in memory.  Account tables are read only through the store's
 * account methods and accounts.h, never by a room.
 *
 * Invariants: a seat is claimed only with its own token and only while it
 * belongs to no account (the store's conditional update decides); a room
 * is locked alone, never two at once; the list of GET /api/me is built from
 * one store read plus a short look at each game in memory (its status and
 * whose turn it is), so 1,000 games answer in milliseconds.
 */
#include "roomsInt.h"
#include "accounts.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srv_rooms_set_accounts(srv_rooms *s, struct srv_accounts *accounts)
{
    s->accounts = accounts;
}

/* The answer is written as text straight from the rows (no JSON tree of
 * 1,000 games built and freed per request). */
typedef struct me_buf {
    char *p;
    size_t len, cap;
    bool failed;
} me_buf;

static void me_put(me_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->p, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void me_raw(me_buf *b, const char *s)
{
    me_put(b, s, strlen(s));
}

/* A JSON string: quotes, backslashes and control characters escaped (the
 * text itself is UTF-8 already: names and ids were checked coming in). */
static void me_str(me_buf *b, const char *s)
{
    me_put(b, "\"", 1);
    const char *run = s;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x20 && *p != '"' && *p != '\\')
            continue;
        me_put(b, run, (size_t)((const char *)p - run));
        char esc[8];
        if (*p == '"' || *p == '\\')
            snprintf(esc, sizeof esc, "\\%c", *p);
        else
            snprintf(esc, sizeof esc, "\\u%04x", *p);
        me_raw(b, esc);
        run = (const char *)p + 1;
    }
    me_raw(b, run);
    me_put(b, "\"", 1);
}

static void me_key(me_buf *b, const char *key, bool first)
{
    if (!first)
        me_put(b, ",", 1);
    me_str(b, key);
    me_put(b, ":", 1);
}

typedef struct me_game {
    const srv_game_row *row;
    char status[16];
    bool your_turn;
    int group; /* 0 your turn, 1 running (or open), 2 finished */
} me_game;

static int me_order(const void *pa, const void *pb)
{
    const me_game *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group - b->group;
    return strcmp(b->row->updated, a->row->updated); /* the latest first */
}

static void me_game_text(me_buf *b, const me_game *m, int64_t account)
{
    const srv_game_row *row = m->row;
    const tb_game *g = tb_game_find(row->game);
    char num[32];
    me_put(b, "{", 1);
    me_key(b, "id", true);
    me_str(b, row->id);
    me_key(b, "game", false);
    me_str(b, row->game);
    me_key(b, "title", false);
    me_str(b, g ? tb_game_title(g) : row->game);
    me_key(b, "status", false);
    me_str(b, m->status);
    me_key(b, "your_turn", false);
    me_raw(b, m->your_turn ? "true" : "false");
    const char *lists[3] = {"seats", "players", "opponents"};
    for (int l = 0; l < 3; l++) {
        me_key(b, lists[l], false);
        me_put(b, "[", 1);
        bool first = true;
        for (int k = 0; k < row->players && k < TB_MAX_SEATS; k++) {
            bool mine = row->seat[k].account_id == account;
            if ((l == 0 && !mine) || (l == 2 && mine))
                continue;
            if (!first)
                me_put(b, ",", 1);
            first = false;
            if (l == 0) {
                snprintf(num, sizeof num, "%d", k);
                me_raw(b, num);
            } else {
                me_str(b, row->seat[k].name);
            }
        }
        me_put(b, "]", 1);
    }
    me_key(b, "updated", false);
    me_str(b, row->updated);
    me_key(b, "created", false);
    me_str(b, row->created);
    me_key(b, "finished", false);
    if (row->finished[0])
        me_str(b, row->finished);
    else
        me_raw(b, "null");
    me_key(b, "rated", false);
    me_raw(b, row->rated ? "true" : "false");
    me_key(b, "decisions", false);
    snprintf(num, sizeof num, "%d", row->decisions);
    me_raw(b, num);
    me_put(b, "}", 1);
}

char *srv_rooms_account_games(srv_rooms *s, int64_t account, char *err, size_t errlen)
{
    srv_game_row *rows = NULL;
    int n = 0;
    if (!s->store->m->account_games ||
        s->store->m->account_games(s->store, account, &rows, &n, err, errlen))
        return NULL;
    me_game *list = calloc((size_t)(n > 0 ? n : 1), sizeof *list);
    me_buf b = {0};
    for (int i = 0; list && i < n; i++) {
        me_game *m = &list[i];
        const srv_game_row *row = &rows[i];
        m->row = row;
        srv_room *r = srv_room_peek(s, row->id);
        if (r) {
            srv_room_brief(r, account, m->status, &m->your_turn);
        } else {
            /* not in memory (finished, or played by another instance) */
            snprintf(m->status, sizeof m->status, "%s", row->status);
            for (int k = 0; strcmp(m->status, "running") == 0 && k < row->players; k++)
                if (strcmp(row->seat[k].kind, "human") == 0 && !row->seat[k].joined &&
                    row->seat[k].account_id != account)
                    snprintf(m->status, sizeof m->status, "open");
        }
        m->group = m->your_turn ? 0 : strcmp(m->status, "over") == 0 ? 2 : 1;
    }
    if (list) {
        qsort(list, (size_t)n, sizeof *list, me_order);
        me_put(&b, "[", 1);
        for (int i = 0; i < n; i++) {
            if (i)
                me_put(&b, ",", 1);
            me_game_text(&b, &list[i], account);
        }
        me_put(&b, "]", 1);
    }
    for (int i = 0; i < n; i++)
        srv_game_row_clear(&rows[i]);
    free(rows);
    if (!list || b.failed) {
        free(list);
        free(b.p);
        snprintf(err, errlen, "out of memory listing an account's games");
        return NULL;
    }
    free(list);
    return b.p;
}

int srv_rooms_claim_seats(srv_rooms *s, int64_t account, const json_t *claim)
{
    int claimed = 0;
    char name[SRV_NAME_LEN];
    if (srv_accounts_name_of(s->accounts, account, name) != 0)
        return 0;
    size_t i;
    const json_t *c;
    json_array_foreach(claim, i, c) {
        if (i >= 200)
            break; /* a browser keeps far fewer links */
        const char *id = json_string_value(json_object_get(c, "game"));
        const char *token = json_string_value(json_object_get(c, "token"));
        if (!id || !token || !*token || !srv_valid_id(id))
            continue;
        bool temporary = false;
        srv_room *r = srv_room_borrow(s, id, &temporary);
        if (!r)
            continue;
        int seat = srv_room_seat_of_token(r, token);
        char err[TB_ERR_LEN];
        if (seat >= 0 && s->store->m->seat_set_account(s->store, id, seat, account, name, err,
                                                       sizeof err) == 0) {
            claimed++;
            if (!temporary) {
                /* the seat is the account's, by its name, in memory too */
                pthread_mutex_lock(&r->lock);
                r->seat[seat].account_id = account;
                snprintf(r->seat[seat].name, sizeof r->seat[seat].name, "%s", name);
                if (r->record)
                    tb_record_set_player(r->record, seat, name, "human");
                srv_room_refresh_locked(r);
                pthread_mutex_unlock(&r->lock);
            }
        }
        if (temporary)
            srv_room_free(r);
    }
    return claimed;
}

void srv_rooms_forget_account(srv_rooms *s, int64_t account, const char *former)
{
    pthread_mutex_lock(&s->registry_lock);
    for (int b = 0; b < s->nbuckets; b++)
        for (srv_room *r = s->buckets[b]; r; r = r->next) {
            pthread_mutex_lock(&r->lock);
            for (int i = 0; i < r->players; i++)
                if (r->seat[i].kind == SRV_HUMAN && r->seat[i].account_id == account) {
                    r->seat[i].account_id = 0;
                    snprintf(r->seat[i].name, sizeof r->seat[i].name, "%s", former);
                    if (r->record)
                        tb_record_set_player(r->record, i, former, "human");
                }
            pthread_mutex_unlock(&r->lock);
        }
    pthread_mutex_unlock(&s->registry_lock);
}
