/*
 * seats.c — what a room knows of its seats beyond the game itself: who
 * plays each one (a person, the computer, or the computer standing in for a
 * person who resigned or is away), which are still free, the creator's key,
 * the keys of a new game's seats, and the result once a resignation changed
 * it (docs/server.md, "Lobby").  room.c reads and writes these through the
 * srv_seats_* functions, always with the room locked.
 *
 * Layering: this file is below the room: it calls nothing in room.c,
 * rooms.c, lobby.c or lease.c (only the store's types, secret.c and the
 * library), so calls among the server's files go one way (docs/server.md,
 * "Inside the server").
 *
 * Invariants:
 *   - a game with a free seat is waiting: nobody decides, the computer does
 *     not move, until every seat is taken;
 *   - a resigned or absent seat is played by the computer at `normal`; an
 *     absent one is its person's again at their next action; a resignation
 *     never makes its seat a winner;
 *   - only hashes of seat tokens and creator keys are kept; a request key's
 *     tokens are derived from the key itself (secret.c).
 */
#include "roomsInt.h"
#include "core/msg.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int seats_free(const srv_room *r)
{
    int n = 0;
    for (int i = 0; i < r->players; i++)
        n += r->seat[i].open;
    return n;
}

/* The computer that stands in for a person (resigned or away): `normal`. */
void srv_seats_stand_in(srv_room *r, int seat)
{
    srv_seat *st = &r->seat[seat];
    if (st->agent)
        return;
    const tb_agent *agent = NULL;
    tb_budget budget;
    memset(&budget, 0, sizeof budget);
    if (r->game && tb_level_lookup(r->game, "normal", &agent, &budget) == 0) {
        st->agent = agent;
        st->budget = budget;
    } else {
        st->agent = tb_agent_find("random");
        memset(&st->budget, 0, sizeof st->budget);
    }
}

void srv_seats_token_label(char *label, size_t len, const char *id, int seat)
{
    snprintf(label, len, "tabula seat %s %d", id, seat);
}

void srv_seats_create_keys(srv_room *r, const srv_lobby_create *lc, char tokens[][64],
                           char *creator, size_t creatorlen)
{
    char label[64];
    bool open = false;
    for (int i = 0; i < r->players; i++) {
        srv_seat *st = &r->seat[i];
        open |= st->open;
        if (st->kind != SRV_HUMAN || st->open)
            continue;
        if (lc->has_key) {
            srv_seats_token_label(label, sizeof label, r->id, i);
            srv_secret_derive(lc->key, label, tokens[i], 64, st->token_hash);
        } else {
            srv_secret_token(tokens[i], 64, st->token_hash);
        }
    }
    if (lc->has_key) {
        snprintf(label, sizeof label, "tabula creator %s", r->id);
        srv_secret_derive(lc->key, label, creator, creatorlen, r->creator_hash);
    } else {
        srv_secret_token(creator, creatorlen, r->creator_hash);
    }
    r->has_creator = true;
    /* Friends' games wait for their people; open tables (strangers) do not. */
    int fallback = r->rooms->cfg.absent_after < 0    ? 0
                   : r->rooms->cfg.absent_after == 0 ? SRV_ABSENT_DEFAULT_S
                                                     : r->rooms->cfg.absent_after;
    r->absent_after = lc->absent_after >= 0 ? lc->absent_after : open ? fallback : 0;
}

void srv_seats_create_row(srv_room *r, const srv_lobby_create *lc, srv_game_row *row)
{
    row->has_creator = r->has_creator;
    memcpy(row->creator_hash, r->creator_hash, SRV_HASH_LEN);
    row->absent_after = r->absent_after;
    row->has_request = lc->has_key;
    memcpy(row->request_hash, lc->key_hash, SRV_HASH_LEN);
    snprintf(row->request_since, sizeof row->request_since, "%s", lc->since);
}

void srv_seats_reply_extras(const srv_room *r, json_t *reply)
{
    json_object_set_new(reply, "absent_after", json_integer(r->absent_after));
    json_object_set_new(reply, "free_seats", json_integer(seats_free(r)));
}

void srv_seats_load(srv_room *r, const srv_game_row *row)
{
    r->has_creator = row->has_creator;
    memcpy(r->creator_hash, row->creator_hash, SRV_HASH_LEN);
    r->absent_after = row->absent_after;
    r->resigned_seat = -1;
    for (int i = 0; i < r->players && i < TB_MAX_SEATS; i++) {
        srv_seat *st = &r->seat[i];
        st->open = row->seat[i].open;
        st->resigned = row->seat[i].resigned && st->kind == SRV_HUMAN;
        if (!st->resigned)
            continue;
        r->resigned_seat = i;
        srv_seats_stand_in(r, i);
        if (r->record)
            tb_record_set_player(r->record, i, st->name, "human, resigned");
    }
    /* Stored as over while the rules say it goes on: a resignation ended it. */
    if (r->state && !r->broken[0] && strcmp(row->status, "over") == 0 && !tb_is_over(r->state) &&
        r->resigned_seat >= 0)
        r->conceded = true;
    srv_seats_new_turn(r);
}

void srv_seats_reloaded(srv_room *r, const srv_room *fresh)
{
    r->has_creator = fresh->has_creator;
    memcpy(r->creator_hash, fresh->creator_hash, SRV_HASH_LEN);
    r->absent_after = fresh->absent_after;
    r->conceded = fresh->conceded;
    r->resigned_seat = fresh->resigned_seat;
    srv_seats_new_turn(r);
}

/* ---- the seats' state ---- */

bool srv_seats_computer_plays(const srv_room *r, int seat)
{
    const srv_seat *st = &r->seat[seat];
    return st->kind == SRV_AI || st->resigned || st->away;
}

bool srv_seats_waiting(const srv_room *r)
{
    return seats_free(r) > 0;
}

void srv_seats_new_turn(srv_room *r)
{
    r->turn_since_us = srv_now_us();
}

bool srv_seats_seen(srv_room *r, int seat)
{
    if (seat < 0 || seat >= r->players || !r->seat[seat].away)
        return false;
    r->seat[seat].away = false;
    srv_seats_new_turn(r);
    srv_log(&r->rooms->cfg, "game %s: seat %d is back", r->id, seat + 1);
    return true;
}

/* Whether the log says at decision k that the computer starts playing for
 * the person (once, where it starts). */
static bool seats_log_stands_in(const srv_room *r, int k)
{
    if (!r->log || k >= r->log_cap)
        return false;
    int seat = r->log[k].seat;
    if (seat < 0 || seat >= r->players || !r->log[k].by_ai || r->seat[seat].kind != SRV_HUMAN)
        return false;
    for (int j = k - 1; j >= 0; j--)
        if (r->log[j].seat == seat)
            return !r->log[j].by_ai;
    return true;
}

json_t *srv_seats_log_msg(const srv_room *r, int k, json_t *said)
{
    if (!said || !seats_log_stands_in(r, k))
        return said;
    int seat = r->log[k].seat;
    const char *name = r->seat[seat].name;
    return r->seat[seat].resigned
               ? tb__msg(N_("{who} resigned; the computer plays for {who}. {said}"),
                         "who:s said:m", name, said)
               : tb__msg(N_("{who} was away; the computer plays for {who}. {said}"),
                         "who:s said:m", name, said);
}

void srv_seats_log_words(const srv_room *r, int k, char *said, size_t saidlen)
{
    if (!r->log || k >= r->log_cap)
        return;
    int seat = r->log[k].seat;
    if (seat < 0 || seat >= r->players || !r->log[k].by_ai || r->seat[seat].kind != SRV_HUMAN)
        return;
    /* Said once, where the computer starts playing for the person. */
    for (int j = k - 1; j >= 0; j--)
        if (r->log[j].seat == seat) {
            if (r->log[j].by_ai)
                return;
            break;
        }
    const char *name = r->seat[seat].name;
    char text[1024];
    snprintf(text, sizeof text, "%s %s; the computer plays for %s. %s", name,
             r->seat[seat].resigned ? "resigned" : "was away", name, said);
    snprintf(said, saidlen, "%s", text);
    tb__utf8_repair(said);
}

void srv_seats_seat_json(const srv_seat *st, json_t *o)
{
    if (st->open) {
        json_object_set_new(o, "open", json_true());
        json_object_set_new(o, "name", json_string(""));
    }
    if (st->resigned)
        json_object_set_new(o, "resigned", json_true());
    if (st->away)
        json_object_set_new(o, "away", json_true());
}

void srv_seats_summary_json(const srv_room *r, json_t *j)
{
    json_object_set_new(j, "free_seats", json_integer(seats_free(r)));
    json_object_set_new(j, "absent_after", json_integer(r->absent_after));
}

void srv_seats_row_seat_json(const srv_seat_row *s, json_t *o)
{
    if (s->open) {
        json_object_set_new(o, "open", json_true());
        json_object_set_new(o, "name", json_string(""));
    }
    if (s->resigned)
        json_object_set_new(o, "resigned", json_true());
}

void srv_seats_row_summary_json(const srv_game_row *row, json_t *j)
{
    int free_seats = 0;
    for (int i = 0; i < row->players && i < TB_MAX_SEATS; i++)
        free_seats += row->seat[i].open;
    json_object_set_new(j, "free_seats", json_integer(free_seats));
}

/* ---- results with resignations ---- */

bool srv_seats_result_changed(const srv_room *r)
{
    if (r->conceded)
        return true;
    for (int i = 0; i < r->players; i++)
        if (r->seat[i].resigned)
            return true;
    return false;
}

/* Ranks as the game gives them, except that a seat that resigned ranks
 * after every seat that did not (in a conceded two-player game: last). */
static void seats_ranks(const srv_room *r, int out[TB_MAX_SEATS])
{
    int base[TB_MAX_SEATS];
    if (r->conceded)
        for (int i = 0; i < r->players; i++)
            base[i] = r->seat[i].resigned ? 2 : 1;
    else
        tb_ranks(r->state, base);
    int staying = 0;
    for (int i = 0; i < r->players; i++)
        staying += !r->seat[i].resigned;
    for (int i = 0; i < r->players; i++) {
        int better = 0;
        for (int j = 0; j < r->players; j++)
            better += r->seat[j].resigned == r->seat[i].resigned && base[j] < base[i];
        out[i] = 1 + better + (r->seat[i].resigned ? staying : 0);
    }
}

json_t *srv_seats_winners(const srv_room *r)
{
    int ranks[TB_MAX_SEATS];
    seats_ranks(r, ranks);
    json_t *w = json_array();
    for (int i = 0; i < r->players; i++)
        if (ranks[i] == 1)
            json_array_append_new(w, json_integer(i));
    return w;
}

char *srv_seats_result_json(const srv_room *r, bool over)
{
    char *base = tb_result_breakdown_json(r->state);
    json_error_t jerr;
    json_t *j = base ? tb__json_loads(base, 0, &jerr) : NULL;
    free(base);
    if (!json_is_object(j)) { /* the library's result text always reads: memory ran out */
        json_decref(j);
        return NULL;
    }
    int ranks[TB_MAX_SEATS];
    seats_ranks(r, ranks);
    json_t *jr = json_array(), *resigned = json_array();
    for (int i = 0; i < r->players; i++) {
        json_array_append_new(jr, json_integer(ranks[i]));
        if (r->seat[i].resigned)
            json_array_append_new(resigned, json_integer(i));
    }
    json_object_set_new(j, "over", json_boolean(over));
    json_object_set_new(j, "ranks", jr);
    json_object_set_new(j, "winners", srv_seats_winners(r));
    json_object_set_new(j, "resigned", resigned);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return text;
}
