/*
 * lobby.c — the lobby's rules above the rooms (docs/server.md, "Lobby"):
 * creating a game (a repeated request key answers with the same game), open
 * tables (free seats anyone may take), deleting a game that has not started,
 * expiry of games never started, and absent seats the computer plays until
 * their person is back (the sweeper thread).  What a room keeps of its seats
 * is seats.c's, below the room; resigning is the room's own (room.c).
 *
 * Layering: lobby.c calls rooms.c (the registry), room.c and seats.c; none
 * of them calls back into it, so calls go one way (docs/server.md, "Inside
 * the server").  server.c starts and stops the sweeper.
 *
 * Invariants:
 *   - a seat is taken at most once (the room lock on one instance, the
 *     store's conditional update across instances), the loser of a race
 *     hears that plainly;
 *   - a game is deleted (by its creator, or by expiry) only while it has no
 *     decision; once deleted its room answers as if it never existed;
 *   - only hashes of seat tokens, creator keys and request keys are stored;
 *     a request key's tokens are derived from the key itself (secret.c).
 * Locking: as roomsInt.h; the sweeper takes the registry lock, then one room.
 */
#include "roomsInt.h"
#include "core/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOBBY_REQUEST_WINDOW_S (24L * 3600)    /* a request key answers for a day */
#define LOBBY_EXPIRY_DEFAULT_S (7L * 24 * 3600) /* --unstarted-expiry */
#define LOBBY_ABSENT_MAX_S 86400
#define LOBBY_KEY_MIN 22                        /* 132 bits of base64url at least */
#define LOBBY_KEY_MAX 64

/* ---- small helpers ---- */

static int lobby_reply(char **reply, int status, json_t *j) /* steals j */
{
    *reply = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!*reply) {
        *reply = srv_internal_error("a reply");
        return SRV_INTERNAL_STATUS;
    }
    return status;
}

/* The ISO time `seconds` ago, in srv_iso_now's format (so texts compare). */
static void lobby_iso_ago(long seconds, char out[SRV_TIME_LEN])
{
    time_t t = time(NULL) - seconds;
    struct tm tm;
    gmtime_r(&t, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, SRV_TIME_LEN, "%.20s.000Z", base);
}

static bool lobby_valid_key(const char *key)
{
    size_t len = strlen(key);
    if (len < LOBBY_KEY_MIN || len > LOBBY_KEY_MAX)
        return false;
    for (const char *p = key; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_'))
            return false;
    return true;
}


/* ---- creating ---- */

static int lobby_create_repeat(srv_rooms *s, const srv_lobby_create *lc, char **reply)
{
    char id[SRV_ID_LEN + 1], err[TB_ERR_LEN], away[300];
    int rc = s->store->m->request_find(s->store, lc->key_hash, lc->since, id, err, sizeof err);
    if (rc < 0)
        return srv_error_reply(reply, 500, "store_failed", "the game could not be created: %s", err);
    srv_room *r = rc == 0 ? srv_room_claim(s, id, away, sizeof away) : NULL;
    if (!r)
        return srv_error_reply(reply, 409, "retry",
                           "a game made with this request a moment ago is gone; try again");
    pthread_mutex_lock(&r->lock);
    json_t *out = json_object();
    json_object_set_new(out, "id", json_string(r->id));
    json_object_set_new(out, "game", json_string(r->game ? tb_game_name(r->game) : ""));
    char path[200], label[64], token[64];
    snprintf(path, sizeof path, "/game.html?game=%s", r->id);
    json_object_set_new(out, "watch", json_string(path));
    json_t *seats = json_array();
    for (int i = 0; i < r->players; i++) {
        json_t *o = srv_room_seat_json_locked(r, i);
        uint8_t hash[SRV_HASH_LEN];
        srv_seats_token_label(label, sizeof label, r->id, i);
        srv_secret_derive(lc->key, label, token, sizeof token, hash);
        /* Only the seats this key made: not one somebody took at the table. */
        if (r->seat[i].kind == SRV_HUMAN && !r->seat[i].open &&
            srv_secret_equal(hash, r->seat[i].token_hash)) {
            json_object_set_new(o, "token", json_string(token));
            snprintf(path, sizeof path, "/game.html?game=%.12s&token=%.63s", r->id, token);
            json_object_set_new(o, "link", json_string(path));
        }
        json_array_append_new(seats, o);
    }
    json_object_set_new(out, "seats", seats);
    uint8_t hash[SRV_HASH_LEN];
    snprintf(label, sizeof label, "tabula creator %s", r->id);
    srv_secret_derive(lc->key, label, token, sizeof token, hash);
    if (r->has_creator && srv_secret_equal(hash, r->creator_hash))
        json_object_set_new(out, "creator_token", json_string(token));
    json_object_set_new(out, "repeated", json_true());
    srv_seats_reply_extras(r, out);
    pthread_mutex_unlock(&r->lock);
    memset(token, 0, sizeof token);
    return lobby_reply(reply, 200, out);
}

static int lobby_since(srv_lobby_create *lc)
{
    lobby_iso_ago(LOBBY_REQUEST_WINDOW_S, lc->since);
    return 0;
}

static int lobby_create_begin(srv_rooms *s, json_t *req, srv_lobby_create *lc, char **reply)
{
    memset(lc, 0, sizeof *lc);
    lc->absent_after = -1;
    const json_t *ja = json_object_get(req, "absent_after");
    if (ja) {
        if (!json_is_integer(ja) || json_integer_value(ja) < 0 ||
            json_integer_value(ja) > LOBBY_ABSENT_MAX_S)
            return srv_error_reply(reply, 400, "bad_request",
                               "'absent_after' is the seconds a person's turn may wait before "
                               "the computer plays it: 0 (never) to %d",
                               LOBBY_ABSENT_MAX_S);
        lc->absent_after = (int)json_integer_value(ja);
    }
    const json_t *jk = json_object_get(req, "request_key");
    if (!jk)
        return 0;
    const char *key = json_string_value(jk);
    if (!key || !lobby_valid_key(key))
        return srv_error_reply(reply, 400, "bad_request",
                           "'request_key' must be %d to %d characters of A-Z, a-z, 0-9, - and _ "
                           "(a random key the page makes once for each new game)",
                           LOBBY_KEY_MIN, LOBBY_KEY_MAX);
    lc->has_key = true;
    snprintf(lc->key, sizeof lc->key, "%s", key);
    srv_secret_hash(key, lc->key_hash);
    lobby_since(lc);
    char id[SRV_ID_LEN + 1], err[TB_ERR_LEN];
    int rc = s->store->m->request_find(s->store, lc->key_hash, lc->since, id, err, sizeof err);
    if (rc < 0)
        return srv_error_reply(reply, 500, "store_failed", "the game could not be created: %s", err);
    return rc == 0 ? lobby_create_repeat(s, lc, reply) : 0;
}

/* ---- taking a free seat ---- */

static srv_room *lobby_room(srv_rooms *s, const char *id, char **reply, int *status)
{
    char away[300];
    srv_room *r = srv_room_claim(s, id, away, sizeof away);
    if (!r)
        *status = away[0] ? srv_error_reply(reply, 409, "elsewhere", "%s", away)
                          : srv_error_reply(reply, 404, "unknown_game", "there is no such game");
    return r;
}

static json_t *lobby_body(const char *body, size_t len, const char *const *fields, char **reply,
                          int *status)
{
    json_error_t jerr;
    json_t *req = tb__json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!req && tb__json_no_memory(&jerr)) {
        *status = srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        return NULL;
    }
    if (!req) {
        *status = srv_error_reply(reply, 400, "bad_json", "the body is not JSON: %s (line %d, column %d)",
                              tb__json_error_words(&jerr), jerr.line, jerr.column);
        return NULL;
    }
    if (!json_is_object(req)) {
        json_decref(req);
        *status = srv_error_reply(reply, 400, "bad_request", "the body must be a JSON object");
        return NULL;
    }
    const char *key;
    json_t *val;
    json_object_foreach(req, key, val) {
        bool known = false;
        for (int i = 0; fields[i]; i++)
            known |= strcmp(key, fields[i]) == 0;
        if (!known) {
            *status = srv_error_reply(reply, 400, "bad_request", "unknown field '%.*s'",
                                  TB__CLIP(key, 40));
            json_decref(req);
            return NULL;
        }
    }
    return req;
}

int srv_room_take_seat(srv_rooms *s, const char *id, const char *body, size_t len, char **reply)
{
    static const char *const fields[] = {"seat", "name", NULL};
    int status = 400;
    json_t *req = lobby_body(body, len, fields, reply, &status);
    if (!req)
        return status;
    const json_t *jseat = json_object_get(req, "seat");
    const char *name = json_string_value(json_object_get(req, "name"));
    if (jseat && !json_is_integer(jseat)) {
        json_decref(req);
        return srv_error_reply(reply, 400, "bad_request", "'seat' must be a seat number (0 for the first)");
    }
    if (!name || !srv_valid_name(name)) {
        json_decref(req);
        return srv_error_reply(reply, 400, "bad_name",
                           "say your name to take a seat: 1 to %d bytes, no control characters",
                           SRV_NAME_LEN - 1);
    }
    srv_room *r = lobby_room(s, id, reply, &status);
    if (!r) {
        json_decref(req);
        return status;
    }
    pthread_mutex_lock(&r->lock);
    json_int_t want = jseat ? json_integer_value(jseat) : -1;
    int seat = -1;
    char token[64] = "", err[TB_ERR_LEN];
    if (atomic_load(&r->deleted)) {
        status = srv_error_reply(reply, 404, "unknown_game", "there is no such game");
    } else if (!r->state || r->broken[0] || srv_room_over_locked(r)) {
        status = srv_error_reply(reply, 409, "game_over", "this game is over: its seats are not free");
    } else if (jseat && (want < 0 || want >= r->players)) {
        status = srv_error_reply(reply, 400, "bad_seat",
                             "there is no such seat: \"seat\" is 0 to %d here (seat 1 to seat %d)",
                             r->players - 1, r->players);
    } else {
        for (int i = 0; i < r->players && seat < 0; i++)
            if (r->seat[i].open && (!jseat || i == want))
                seat = i;
        if (seat < 0 && jseat)
            status = srv_error_reply(reply, 409, "seat_taken",
                                 "seat %d is not free any more (%s sits there); choose another "
                                 "free seat",
                                 (int)want + 1, r->seat[want].name);
        else if (seat < 0)
            status = srv_error_reply(reply, 409, "seat_taken", "every seat of this game is taken");
    }
    char *answer = NULL; /* the reply, made before the seat is stored */
    if (seat >= 0) {
        uint8_t hash[SRV_HASH_LEN];
        srv_secret_token(token, sizeof token, hash);
        r->seat[seat].open = false; /* whether the game starts with this seat */
        bool will_start = !srv_seats_waiting(r);
        r->seat[seat].open = true;
        char path[200];
        snprintf(path, sizeof path, "/game.html?game=%.12s&token=%.63s", r->id, token);
        char shown[SRV_NAME_LEN];
        snprintf(shown, sizeof shown, "%s", name);
        json_t *j = json_pack("{s:s,s:i,s:s,s:s,s:s,s:b}", "id", r->id, "seat", seat, "name", shown,
                              "token", token, "link", path, "started", will_start);
        answer = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        int rc = answer ? s->store->m->seat_take(s->store, r->id, seat, name, hash, err, sizeof err) : -2;
        if (rc == -2) {
            status = srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        } else if (rc < 0) {
            srv_store_report(s, false, err); /* the store's failure: logged once */
            status = srv_error_reply(reply, 500, "store_failed", "the seat could not be taken: %s", err);
        } else if (rc == 1) {
            status = srv_error_reply(reply, 409, "seat_taken",
                                 "someone took seat %d a moment before you; choose another free seat",
                                 seat + 1);
        } else {
            srv_seat *st = &r->seat[seat];
            snprintf(st->name, sizeof st->name, "%s", name);
            memcpy(st->token_hash, hash, SRV_HASH_LEN);
            st->open = false;
            tb_record_set_player(r->record, seat, st->name, "human");
            bool starts = !srv_seats_waiting(r);
            if (starts) {
                srv_seats_new_turn(r);
                srv_log(&s->cfg, "game %s: every seat is taken; the game starts", r->id);
            }
            srv_room_refresh_locked(r);
            if (starts)
                srv_room_notice_locked(r, "started", seat, "Every seat is taken: the game starts.");
            *reply = answer;
            answer = NULL;
            status = 201;
        }
    }
    if (answer)
        memset(answer, 0, strlen(answer)); /* it holds the token */
    free(answer);
    pthread_mutex_unlock(&r->lock);
    memset(token, 0, sizeof token);
    json_decref(req);
    return status;
}

/* ---- deleting and expiry ---- */

/* Deletes a room's game that has no decision (room locked); 0, or the
 * store's answer (1 no such game, 2 started, -1 with err). */
static int lobby_delete_locked(srv_room *r, const char *why, char *err, size_t errlen)
{
    if (r->commit_pending || (r->state && tb_decisions_made(r->state) > 0))
        return 2;
    int rc = r->rooms->store->m->game_delete(r->rooms->store, r->id, err, errlen);
    if (rc != 0)
        return rc;
    bool counted = r->state && !r->broken[0] && !tb_is_over(r->state) && !atomic_load(&r->away);
    if (counted)
        atomic_fetch_sub(&r->rooms->running, 1);
    atomic_store(&r->away, true); /* decides nothing more */
    atomic_store(&r->deleted, true);
    srv_room_broadcast_locked(r, json_pack("{s:s,s:s,s:s}", "type", "error", "code", "deleted",
                                           "message", why));
    return 0;
}

int srv_room_delete(srv_rooms *s, const char *id, const char *body, size_t len, char **reply)
{
    static const char *const fields[] = {"token", NULL};
    int status = 400;
    json_t *req = lobby_body(len ? body : "{}", len ? len : 2, fields, reply, &status);
    if (!req)
        return status;
    const char *token = json_string_value(json_object_get(req, "token"));
    srv_room *r = token ? lobby_room(s, id, reply, &status) : NULL;
    if (!token) {
        json_decref(req);
        return srv_error_reply(reply, 403, "bad_token",
                           "only the person who created a game can delete it: send its "
                           "creator's key as \"token\"");
    }
    if (!r) {
        json_decref(req);
        return status;
    }
    uint8_t hash[SRV_HASH_LEN];
    srv_secret_hash(token, hash);
    pthread_mutex_lock(&r->lock);
    char err[TB_ERR_LEN];
    if (atomic_load(&r->deleted)) {
        status = srv_error_reply(reply, 404, "unknown_game", "there is no such game");
    } else if (strlen(token) > 128 || !r->has_creator || !srv_secret_equal(hash, r->creator_hash)) {
        status = srv_error_reply(reply, 403, "bad_token",
                             "only the person who created this game can delete it, with the key "
                             "their lobby kept");
    } else {
        int rc = lobby_delete_locked(r, "this game was deleted by the person who created it", err,
                                     sizeof err);
        if (rc == 0) {
            srv_log(&s->cfg, "game %s: deleted by its creator", r->id);
            status = lobby_reply(reply, 200, json_pack("{s:s,s:b}", "id", r->id, "deleted", true));
        } else if (rc == 2) {
            status = srv_error_reply(reply, 409, "started",
                                 "this game has started, so it cannot be deleted; it stays until "
                                 "it ends (a player can resign)");
        } else if (rc == 1) {
            status = srv_error_reply(reply, 404, "unknown_game", "there is no such game");
        } else {
            srv_log(&s->cfg, "game %s: %s", r->id, err);
            status = srv_error_reply(reply, 500, "store_failed", "the game could not be deleted: %s", err);
        }
    }
    pthread_mutex_unlock(&r->lock);
    json_decref(req);
    return status;
}

/* ---- the sweeper: expiry and absent seats ---- */

struct srv_sweeper {
    srv_rooms *rooms;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    long expiry_s;      /* -1: never */
    uint64_t next_expiry_us;
};

static void lobby_expire(srv_sweeper *w)
{
    srv_rooms *s = w->rooms;
    char before[SRV_TIME_LEN], err[TB_ERR_LEN];
    lobby_iso_ago(w->expiry_s, before);
    srv_game_id *ids = NULL;
    int count = 0;
    if (s->store->m->games_unstarted(s->store, before, 100, &ids, &count, err, sizeof err)) {
        srv_log(&s->cfg, "expiry: %s", err);
        return;
    }
    for (int i = 0; i < count; i++) {
        srv_room *r = srv_room_claim(s, ids[i].id, NULL, 0);
        if (!r)
            continue; /* another instance plays it: that one expires it */
        pthread_mutex_lock(&r->lock);
        int rc = atomic_load(&r->deleted)
                     ? 1
                     : lobby_delete_locked(r, "this game was never started and has expired", err,
                                           sizeof err);
        pthread_mutex_unlock(&r->lock);
        if (rc == 0)
            srv_log(&s->cfg, "game %s: expired (never started)", ids[i].id);
        else if (rc < 0)
            srv_log(&s->cfg, "game %s: cannot expire: %s", ids[i].id, err);
    }
    free(ids);
}

/* The computer takes the seats whose person let the turn wait too long. */
static void lobby_absent(srv_rooms *s)
{
    uint64_t now = srv_now_us();
    pthread_mutex_lock(&s->registry_lock);
    for (int b = 0; b < s->nbuckets; b++) {
        for (srv_room *r = s->buckets[b]; r; r = r->next) {
            if (atomic_load(&r->away))
                continue;
            pthread_mutex_lock(&r->lock);
            int to = r->state && !r->broken[0] && !r->conceded ? tb_to_move(r->state) : TB_OVER;
            if (to >= 0 && r->absent_after > 0 && !srv_seats_waiting(r) &&
                !srv_seats_computer_plays(r, to) && !r->commit_pending &&
                now - r->turn_since_us >= (uint64_t)r->absent_after * 1000000u) {
                srv_seat *st = &r->seat[to];
                st->away = true;
                srv_seats_stand_in(r, to);
                char text[400];
                snprintf(text, sizeof text,
                         "%s was away; the computer plays for %s until %s is back.", st->name,
                         st->name, st->name);
                tb__utf8_repair(text);
                srv_log(&s->cfg, "game %s: seat %d away; the computer plays it", r->id, to + 1);
                srv_room_notice_locked(r, "away", to, text);
                srv_room_refresh_locked(r);
            }
            pthread_mutex_unlock(&r->lock);
        }
    }
    pthread_mutex_unlock(&s->registry_lock);
}

static void *lobby_sweeper(void *arg)
{
    srv_sweeper *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1; /* a round a second: absent times are whole seconds */
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->lock);
        lobby_absent(w->rooms);
        uint64_t now = srv_now_us();
        if (w->expiry_s >= 0 && now >= w->next_expiry_us) {
            /* A quarter of the expiry time between looks, a minute at most. */
            long every = w->expiry_s / 4;
            every = every < 1 ? 1 : every > 60 ? 60 : every;
            w->next_expiry_us = now + (uint64_t)every * 1000000u;
            lobby_expire(w);
        }
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

srv_sweeper *srv_lobby_start(srv_rooms *s, char *err, size_t errlen)
{
    srv_sweeper *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->rooms = s;
    w->expiry_s = s->cfg.unstarted_expiry < 0    ? -1
                  : s->cfg.unstarted_expiry == 0 ? LOBBY_EXPIRY_DEFAULT_S
                                                 : s->cfg.unstarted_expiry;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, lobby_sweeper, w) != 0) {
        snprintf(err, errlen, "cannot start the lobby's thread");
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        free(w);
        return NULL;
    }
    return w;
}

void srv_lobby_stop(srv_sweeper *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w);
}

/* POST /api/games: the request read here (its key, absent time), the room
 * built by room.c, its keys by seats.c, then stored and registered. */
int srv_room_create(srv_rooms *s, const char *body, size_t len, char **reply)
{
    static const char *const fields[] = {"game", "players", "options", "seats", "board",
                                         "request_key", "absent_after", NULL};
    int status = 400;
    json_t *req = lobby_body(body, len, fields, reply, &status);
    if (!req)
        return status;
    srv_room *r = NULL;
    char tokens[TB_MAX_SEATS][64] = {{0}};
    char creator_token[64] = "";
    srv_lobby_create lc;
    status = lobby_create_begin(s, req, &lc, reply); /* a request key seen before: its game */
    if (status)
        goto done;
    pthread_mutex_lock(&s->registry_lock);
    int limit = s->cfg.max_games > 0 ? s->cfg.max_games : SRV_MAX_ROOMS;
    bool full = atomic_load(&s->running) >= limit;
    pthread_mutex_unlock(&s->registry_lock);
    if (full) {
        status = srv_error_reply(reply, 503, "server_full",
                                 "this server runs %d games, its limit; try again later", limit);
        goto done;
    }
    uint64_t seed = 0;
    status = srv_room_make(s, req, &r, &seed, reply);
    if (status)
        goto done;
    srv_seats_create_keys(r, &lc, tokens, creator_token, sizeof creator_token);
    /* store, then register */
    srv_game_row row;
    if (srv_room_row(r, seed, &row)) {
        srv_log(&s->cfg, "creating a game: out of memory");
        status = srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        goto done;
    }
    srv_seats_create_row(r, &lc, &row);
    char err[TB_ERR_LEN];
    int rc = s->store->m->game_create(s->store, &row, err, sizeof err);
    free(row.options);
    if (rc == 2) { /* the same request key made a game a moment ago */
        status = lobby_create_repeat(s, &lc, reply);
        goto done;
    }
    srv_store_report(s, rc == 0, err); /* a failure here is the store's: logged once */
    if (rc) {
        status = srv_error_reply(reply, 500, "store_failed", "the game could not be saved: %s", err);
        goto done;
    }
    /* the reply: one secret link per human seat */
    json_t *out = json_object();
    json_object_set_new(out, "id", json_string(r->id));
    json_object_set_new(out, "game", json_string(tb_game_name(r->game)));
    char path[200];
    snprintf(path, sizeof path, "/game.html?game=%s", r->id);
    json_object_set_new(out, "watch", json_string(path));
    json_t *seats = json_array();
    for (int i = 0; i < r->players; i++) {
        json_t *o = srv_room_seat_json_locked(r, i);
        if (r->seat[i].kind == SRV_HUMAN && !r->seat[i].open) {
            json_object_set_new(o, "token", json_string(tokens[i]));
            snprintf(path, sizeof path, "/game.html?game=%.12s&token=%.63s", r->id, tokens[i]);
            json_object_set_new(o, "link", json_string(path));
        }
        json_array_append_new(seats, o);
    }
    json_object_set_new(out, "seats", seats);
    json_object_set_new(out, "creator_token", json_string(creator_token));
    srv_seats_reply_extras(r, out);
    *reply = srv_json_text(out);
    srv_room_register(s, r);
    srv_log(&s->cfg, "game %s: new %s for %d players", r->id, tb_game_name(r->game), r->players);
    srv_room_start(r);
    r = NULL;
    status = 201;
done:
    for (int i = 0; i < TB_MAX_SEATS; i++)
        memset(tokens[i], 0, sizeof tokens[i]);
    memset(creator_token, 0, sizeof creator_token);
    srv_room_free(r);
    json_decref(req);
    return status;
}
