/*
 * rooms.c — the registry of rooms and the rooms layer's lifecycle (rooms.h).
 *
 * srv_rooms_open starts the AI workers and resumes every unfinished game
 * (replaying seed + decisions); with several instances on one database a
 * running game is loaded only by the instance that holds its lease
 * (srv_room_claim), taken before the game is read.  The registry is a hash
 * table of rooms by game id; a room enters it once and stays until
 * srv_rooms_close.  Finished games are loaded from the store when a client
 * asks for them live, and only borrowed (loaded, answered, freed) by HTTP
 * reads, so looking at old games costs no memory.
 *
 * Invariants: the registry lock is taken before any room's lock, never
 * after; a game is in the registry at most once (loading happens under the
 * registry lock); `running` counts the rooms in memory whose game is not
 * over and played here.
 */
#include "roomsInt.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned rooms_hash(const char *id)
{
    unsigned h = 2166136261u;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h;
}

static srv_room *rooms_lookup(srv_rooms *s, const char *id)
{
    for (srv_room *r = s->buckets[rooms_hash(id) % (unsigned)s->nbuckets]; r; r = r->next)
        if (strcmp(r->id, id) == 0)
            return r;
    return NULL;
}

void srv_room_register(srv_rooms *s, srv_room *room)
{
    if (srv_room_running(room))
        atomic_fetch_add(&s->running, 1);
    pthread_mutex_lock(&s->registry_lock);
    unsigned b = rooms_hash(room->id) % (unsigned)s->nbuckets;
    room->next = s->buckets[b];
    s->buckets[b] = room;
    s->nrooms++;
    pthread_mutex_unlock(&s->registry_lock);
}

srv_room *srv_room_peek(srv_rooms *s, const char *id)
{
    pthread_mutex_lock(&s->registry_lock);
    srv_room *r = rooms_lookup(s, id);
    if (r && atomic_load(&r->away))
        r = NULL;
    pthread_mutex_unlock(&s->registry_lock);
    return r;
}

srv_room *srv_room_borrow(srv_rooms *s, const char *id, bool *temporary)
{
    *temporary = false;
    if (!srv_valid_id(id))
        return NULL;
    srv_room *r = srv_room_peek(s, id);
    if (r)
        return r;
    char err[TB_ERR_LEN];
    r = srv_room_load(s, id, err, sizeof err);
    if (r && srv_room_running(r) && !s->store->m->lease_take) {
        /* Not over: it belongs in the registry (another request may have
         * registered it meanwhile).  With several instances it is played
         * elsewhere, and this answer is the stored state. */
        srv_room_free(r);
        return srv_room_claim(s, id, NULL, 0);
    }
    *temporary = r != NULL;
    return r;
}


static void rooms_away_text(char *away, size_t awaylen, const char *id, const char *owner)
{
    if (!away || !awaylen)
        return;
    if (!owner)
        snprintf(away, awaylen,
                 "game %s cannot be opened: the database does not answer; try again soon", id);
    else if (*owner)
        snprintf(away, awaylen, "game %s is played by another server instance, at %.*s", id,
                 TB__CLIP(owner, 120));
    else
        snprintf(away, awaylen,
                 "game %s is played by another server instance (its address is not known yet); "
                 "try again in a few seconds",
                 id);
}

srv_room *srv_room_claim(srv_rooms *s, const char *id, char *away, size_t awaylen)
{
    if (away && awaylen)
        away[0] = '\0';
    if (!srv_valid_id(id))
        return NULL;
    srv_store *st = s->store;
    char err[TB_ERR_LEN], owner[256] = "";
    pthread_mutex_lock(&s->registry_lock);
    srv_room *r = rooms_lookup(s, id);
    if (r && atomic_load(&r->deleted)) { /* deleted or expired: no such game */
        pthread_mutex_unlock(&s->registry_lock);
        return NULL;
    }
    if (r && !atomic_load(&r->away)) {
        pthread_mutex_unlock(&s->registry_lock);
        return r;
    }
    /* Several instances: a running game is loaded only with its lease in
     * hand, so no decision of the previous holder can be missed. */
    int lease = SRV_LEASE_NOT_RUNNING;
    if (st->m->lease_take) {
        lease = st->m->lease_take(st, id, owner, sizeof owner, err, sizeof err);
        if (lease < 0 || lease == SRV_LEASE_ELSEWHERE) {
            pthread_mutex_unlock(&s->registry_lock);
            if (lease < 0)
                srv_log(&s->cfg, "game %s: %s", id, err);
            rooms_away_text(away, awaylen, id, lease < 0 ? NULL : owner);
            return NULL;
        }
    }
    if (r) {
        /* A room this instance had lost: it is back (or over). */
        if (srv_room_reload(r, err, sizeof err))
            srv_log(&s->cfg, "game %s: cannot reload: %s", id, err);
        else
            srv_log(&s->cfg, "game %s: taken back", id);
        pthread_mutex_unlock(&s->registry_lock);
        return r;
    }
    /* Loading under the registry lock keeps two requests from loading the
     * same game twice; it is a short replay. */
    r = srv_room_load(s, id, err, sizeof err);
    bool running = false;
    if (r) {
        running = srv_room_running(r);
        if (running)
            atomic_fetch_add(&s->running, 1);
        unsigned b = rooms_hash(r->id) % (unsigned)s->nbuckets;
        r->next = s->buckets[b];
        s->buckets[b] = r;
        s->nrooms++;
    }
    pthread_mutex_unlock(&s->registry_lock);
    if (r && running && lease == SRV_LEASE_TAKEN) {
        srv_log(&s->cfg, "game %s: taken over (its previous server stopped)", id);
        srv_room_resume(r);
    }
    return r;
}

void srv_room_recheck(srv_rooms *s, srv_room *r)
{
    srv_store *st = s->store;
    char err[TB_ERR_LEN], owner[256] = "";
    int lease = st->m->lease_take(st, r->id, owner, sizeof owner, err, sizeof err);
    if (lease < 0) {
        srv_log(&s->cfg, "game %s: %s", r->id, err);
    } else if (lease == SRV_LEASE_ELSEWHERE) {
        srv_log(&s->cfg, "game %s: another server instance took it over", r->id);
        srv_room_set_away(r, owner);
    } else if (lease != SRV_LEASE_MINE) {
        /* Taken back after someone else held it, or over: read it again. */
        pthread_mutex_lock(&s->registry_lock);
        if (srv_room_reload(r, err, sizeof err))
            srv_log(&s->cfg, "game %s: cannot reload: %s", r->id, err);
        pthread_mutex_unlock(&s->registry_lock);
    }
}

static int rooms_resume_all(srv_rooms *s, char *err, size_t errlen)
{
    srv_game_row *rows;
    int n;
    if (s->store->m->games_list(s->store, "running", 1 << 30, &rows, &n, err, errlen))
        return -1;
    for (int i = 0; i < n; i++) {
        char why[TB_ERR_LEN], owner[256];
        /* Several instances: only the games whose lease this one gets. */
        if (s->store->m->lease_take) {
            int lease = s->store->m->lease_take(s->store, rows[i].id, owner, sizeof owner, why,
                                                sizeof why);
            if (lease < 0)
                srv_log(&s->cfg, "game %s: %s", rows[i].id, why);
            if (lease != SRV_LEASE_TAKEN && lease != SRV_LEASE_MINE)
                continue;
        }
        srv_room *r = srv_room_load(s, rows[i].id, why, sizeof why);
        if (!r) {
            srv_log(&s->cfg, "game %s: cannot resume: %s", rows[i].id, why);
            continue;
        }
        srv_room_register(s, r);
        if (r->broken[0])
            srv_log(&s->cfg, "game %s: does not replay: %s", r->id, r->broken);
        else
            s->resumed++;
    }
    for (int i = 0; i < n; i++)
        srv_game_row_clear(&rows[i]);
    free(rows);
    return 0;
}

srv_rooms *srv_rooms_open(const srv_config *cfg, srv_store *store, int workers, char *err,
                          size_t errlen)
{
    srv_rooms *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->store = store;
    pthread_mutex_init(&s->registry_lock, NULL);
    s->nbuckets = 4096;
    s->buckets = calloc((size_t)s->nbuckets, sizeof *s->buckets);
    if (!s->buckets) {
        snprintf(err, errlen, "out of memory");
        srv_rooms_close(s);
        return NULL;
    }
    /* The pool exists before games resume, so resumed AI seats can queue. */
    s->ai = srv_ai_start(workers, srv_room_ai_step, err, errlen);
    if (s->ai)
        s->committer = srv_committer_start(s, srv_room_committed, err, errlen);
    if (!s->ai || !s->committer || rooms_resume_all(s, err, errlen)) {
        srv_rooms_close(s);
        return NULL;
    }
    return s;
}

void srv_rooms_resume(srv_rooms *s)
{
    pthread_mutex_lock(&s->registry_lock);
    for (int b = 0; b < s->nbuckets; b++)
        for (srv_room *r = s->buckets[b]; r; r = r->next)
            srv_room_resume(r);
    pthread_mutex_unlock(&s->registry_lock);
}

int srv_rooms_resumed(const srv_rooms *s)
{
    return s->resumed;
}

void srv_rooms_quiesce(srv_rooms *s)
{
    if (!s)
        return;
    if (s->ai)
        srv_ai_stop(s->ai); /* workers finish their current decision */
    if (s->committer)
        srv_committer_stop(s->committer); /* every decision handed in is stored and answered */
}

void srv_rooms_close(srv_rooms *s)
{
    if (!s)
        return;
    srv_rooms_quiesce(s);
    srv_ai_free(s->ai);
    srv_committer_free(s->committer);
    for (int b = 0; s->buckets && b < s->nbuckets; b++) {
        for (srv_room *r = s->buckets[b], *next; r; r = next) {
            next = r->next;
            srv_room_free(r);
        }
    }
    free(s->buckets);
    pthread_mutex_destroy(&s->registry_lock);
    free(s);
}

int srv_rooms_in_memory(srv_rooms *s)
{
    pthread_mutex_lock(&s->registry_lock);
    int n = s->nrooms;
    pthread_mutex_unlock(&s->registry_lock);
    return n;
}

json_t *srv_rooms_list(srv_rooms *s, const char *status, int limit, char *err, size_t errlen)
{
    /* "open" games are running games with a person yet to join */
    bool open = status && strcmp(status, "open") == 0;
    const char *filter = open ? "running" : status;
    srv_game_row *rows;
    int n;
    if (s->store->m->games_list(s->store, filter, limit, &rows, &n, err, errlen))
        return NULL;
    json_t *games = json_array();
    for (int i = 0; i < n; i++) {
        srv_room *r = srv_room_peek(s, rows[i].id);
        json_t *g = r ? srv_room_summary(r) : srv_row_summary(&rows[i]);
        const char *st = json_string_value(json_object_get(g, "status"));
        if (open && (!st || strcmp(st, "open") != 0))
            json_decref(g);
        else
            json_array_append_new(games, g);
    }
    for (int i = 0; i < n; i++)
        srv_game_row_clear(&rows[i]);
    free(rows);
    return games;
}
