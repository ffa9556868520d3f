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

typedef struct me_game {
    json_t *j;
    int group; /* 0 your turn, 1 running (or open), 2 finished */
    const char *updated;
} me_game;

static int me_order(const void *pa, const void *pb)
{
    const me_game *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group - b->group;
    return strcmp(b->updated, a->updated); /* the latest first */
}

json_t *srv_rooms_account_games(srv_rooms *s, int64_t account, char *err, size_t errlen)
{
    srv_game_row *rows = NULL;
    int n = 0;
    if (!s->store->m->account_games ||
        s->store->m->account_games(s->store, account, &rows, &n, err, errlen))
        return NULL;
    me_game *list = calloc((size_t)(n > 0 ? n : 1), sizeof *list);
    json_t *games = json_array();
    bool ok = list && games;
    int kept = 0;
    for (int i = 0; ok && i < n; i++) {
        srv_game_row *row = &rows[i];
        char status[16];
        bool your_turn = false;
        srv_room *r = srv_room_peek(s, row->id);
        if (r) {
            srv_room_brief(r, account, status, &your_turn);
        } else {
            /* not in memory (finished, or played by another instance) */
            snprintf(status, sizeof status, "%s", row->status);
            for (int k = 0; strcmp(status, "running") == 0 && k < row->players; k++)
                if (strcmp(row->seat[k].kind, "human") == 0 && !row->seat[k].joined &&
                    row->seat[k].account_id != account)
                    snprintf(status, sizeof status, "open");
        }
        const tb_game *g = tb_game_find(row->game);
        json_t *players = json_array(), *opponents = json_array(), *you = json_array();
        for (int k = 0; k < row->players && k < TB_MAX_SEATS; k++) {
            const srv_seat_row *sr = &row->seat[k];
            json_array_append_new(players, json_string(sr->name));
            if (sr->account_id == account)
                json_array_append_new(you, json_integer(k));
            else
                json_array_append_new(opponents, json_string(sr->name));
        }
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:b,s:o,s:o,s:o,s:s,s:s,s:o,s:b,s:i}", "id",
                              row->id, "game", row->game, "title", g ? tb_game_title(g) : row->game,
                              "status", status, "your_turn", your_turn, "seats", you, "players",
                              players, "opponents", opponents, "updated", row->updated, "created",
                              row->created, "finished",
                              row->finished[0] ? json_string(row->finished) : json_null(),
                              "rated", row->rated, "decisions", row->decisions);
        if (!o) {
            ok = false;
            break;
        }
        list[kept].j = o;
        list[kept].group = your_turn ? 0 : strcmp(status, "over") == 0 ? 2 : 1;
        list[kept].updated = row->updated;
        kept++;
    }
    if (ok) {
        qsort(list, (size_t)kept, sizeof *list, me_order);
        for (int i = 0; i < kept; i++)
            if (json_array_append_new(games, list[i].j))
                ok = false;
    } else {
        for (int i = 0; i < kept; i++)
            json_decref(list[i].j);
    }
    for (int i = 0; i < n; i++)
        srv_game_row_clear(&rows[i]);
    free(rows);
    free(list);
    if (!ok) {
        json_decref(games);
        snprintf(err, errlen, "out of memory listing an account's games");
        return NULL;
    }
    return games;
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
