/*
 * lease.c — several server instances on one database (PostgreSQL,
 * docs/server.md "Several instances"): one thread that keeps this instance's
 * games and picks up the games of instances that stopped.
 *
 * Every lease_seconds / 3 it (1) renews every lease this instance holds;
 * a running room whose game is missing from the renewed set was taken over
 * while this instance was silent (paused, cut off), so the room is rechecked
 * and normally goes away (it decides nothing more; its connections are told
 * where the game went); (2) takes the running games whose lease is free
 * (their instance stopped, was killed, or let the lease expire), loads them
 * and resumes their computer seats.
 *
 * Invariants: the thread touches rooms only through rooms.c and room.c
 * (their locks); srv_lease_stop joins it before any room is freed.
 */
#include "roomsInt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LEASE_TAKE_PER_BATCH 64     /* free games asked for at once */
#define LEASE_BATCHES_PER_ROUND 64  /* 4,096 games a round at most (the rest next round) */

struct srv_lease {
    srv_rooms *rooms;
    srv_game_id *absent; /* held last round but not in memory (sorted) */
    int nabsent;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping;
    int period_ms;
};

static int lease_cmp(const void *a, const void *b)
{
    return strcmp(((const srv_game_id *)a)->id, ((const srv_game_id *)b)->id);
}

/* Running rooms that are played here (pointers stay valid until srv_stop). */
static srv_room **lease_rooms(srv_rooms *s, int *count)
{
    pthread_mutex_lock(&s->registry_lock);
    srv_room **rooms = calloc((size_t)(s->nrooms > 0 ? s->nrooms : 1), sizeof *rooms);
    if (!rooms) { /* out of memory: this round checks no room */
        pthread_mutex_unlock(&s->registry_lock);
        *count = 0;
        return NULL;
    }
    int n = 0;
    for (int b = 0; b < s->nbuckets; b++)
        for (srv_room *r = s->buckets[b]; r; r = r->next)
            if (!atomic_load(&r->away) && n < s->nrooms)
                rooms[n++] = r;
    pthread_mutex_unlock(&s->registry_lock);
    *count = n;
    return rooms;
}

static bool lease_stopping(srv_lease *l)
{
    pthread_mutex_lock(&l->lock);
    bool stopping = l->stopping;
    pthread_mutex_unlock(&l->lock);
    return stopping;
}

static void lease_round(srv_lease *l)
{
    srv_rooms *s = l->rooms;
    srv_store *st = s->store;
    char err[TB_ERR_LEN];
    srv_game_id *held = NULL;
    int nheld = 0;
    /* Renewing is a write: what it finds is the store's health (commit.c
     * logs a change once). */
    if (st->m->lease_renew(st, &held, &nheld, err, sizeof err)) {
        free(held);
        srv_store_report(s, false, err);
        return;
    }
    srv_store_report(s, true, NULL);
    qsort(held, (size_t)nheld, sizeof *held, lease_cmp);
    int nrooms;
    srv_room **rooms = lease_rooms(s, &nrooms);
    for (int i = 0; i < nrooms; i++) {
        srv_game_id key;
        snprintf(key.id, sizeof key.id, "%s", rooms[i]->id);
        if (!bsearch(&key, held, (size_t)nheld, sizeof *held, lease_cmp) &&
            srv_room_running(rooms[i]))
            srv_room_recheck(s, rooms[i]);
    }
    free(rooms);
    /* Held but not in memory (a load that failed after the lease was
     * taken): loaded now, if it was so last round too — a game being
     * created is held a moment before its room is registered. */
    int nabsent = 0;
    for (int i = 0; i < nheld; i++) {
        if (srv_room_peek(s, held[i].id))
            continue;
        if (bsearch(&held[i], l->absent, (size_t)l->nabsent, sizeof *held, lease_cmp))
            srv_room_claim(s, held[i].id, NULL, 0);
        else
            held[nabsent++] = held[i]; /* sorted still */
    }
    free(l->absent);
    l->absent = held;
    l->nabsent = nabsent;
    /* The games of instances that stopped: every one of them this round, a
     * batch at a time (a killed instance's games are free at once, and each
     * round they wait is a pause their players see), unless this instance
     * is stopping or full. */
    int limit = s->cfg.max_games > 0 ? s->cfg.max_games : SRV_MAX_ROOMS;
    for (int batch = 0; batch < LEASE_BATCHES_PER_ROUND && !lease_stopping(l); batch++) {
        srv_game_id *free_ids = NULL;
        int nfree = 0;
        if (atomic_load(&s->running) >= limit)
            return;
        if (st->m->lease_orphans(st, LEASE_TAKE_PER_BATCH, &free_ids, &nfree, err, sizeof err)) {
            srv_log(&s->cfg, "leases: %s", err);
            return;
        }
        int taken = 0;
        for (int i = 0; i < nfree && atomic_load(&s->running) < limit; i++)
            taken += srv_room_claim(s, free_ids[i].id, NULL, 0) != NULL;
        free(free_ids);
        if (nfree < LEASE_TAKE_PER_BATCH || taken == 0)
            return; /* none left (or none could be taken: next round) */
    }
}

static void *lease_main(void *arg)
{
    srv_lease *l = arg;
    pthread_mutex_lock(&l->lock);
    while (!l->stopping) {
        pthread_mutex_unlock(&l->lock);
        lease_round(l);
        pthread_mutex_lock(&l->lock);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        long ns = until.tv_nsec + (long)(l->period_ms % 1000) * 1000000L;
        until.tv_sec += l->period_ms / 1000 + ns / 1000000000L;
        until.tv_nsec = ns % 1000000000L;
        while (!l->stopping && pthread_cond_timedwait(&l->wake, &l->lock, &until) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

srv_lease *srv_lease_start(srv_rooms *s, int port, char *err, size_t errlen)
{
    /* Where this instance's players are sent by the others. */
    char address[300];
    if (s->cfg.advertise) {
        snprintf(address, sizeof address, "%s", s->cfg.advertise);
    } else {
        const char *host = s->cfg.host ? s->cfg.host : "127.0.0.1";
        char name[256];
        if ((strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0) &&
            gethostname(name, sizeof name) == 0) {
            name[sizeof name - 1] = '\0';
            host = name;
        }
        bool v6 = strchr(host, ':') != NULL;
        snprintf(address, sizeof address, "http://%s%s%s:%d/", v6 ? "[" : "", host, v6 ? "]" : "",
                 port);
    }
    if (s->store->m->instance_address(s->store, address, err, errlen))
        return NULL;
    srv_lease *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->rooms = s;
    int secs = s->cfg.lease_seconds > 0 ? s->cfg.lease_seconds : 10;
    l->period_ms = secs * 1000 / 3;
    pthread_mutex_init(&l->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&l->thread, NULL, lease_main, l) != 0) {
        snprintf(err, errlen, "cannot start the lease thread");
        pthread_cond_destroy(&l->wake);
        pthread_mutex_destroy(&l->lock);
        free(l);
        return NULL;
    }
    return l;
}

void srv_lease_stop(srv_lease *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    l->stopping = true;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    pthread_cond_destroy(&l->wake);
    pthread_mutex_destroy(&l->lock);
    free(l->absent);
    free(l);
}
