/*
 * commit.c — the rooms' store writer.  A room hands every decision it has
 * checked to this queue and goes on; committer threads take the waiting
 * decisions, write them to the store (all of them in one transaction when
 * the store can, SQLite and PostgreSQL both; with as many writers at once as
 * the store says serve it best: SQLite one, PostgreSQL two, one writing
 * while the other's commit flushes), and only then hand each back to its
 * room through the function it was started with (srv_room_committed: this
 * file calls nothing in room.c, so calls go one way), which applies it, acknowledges it and sends
 * every client the new position.  So the WebSocket thread never waits on a disk,
 * and one commit serves every decision that arrived meanwhile.
 *
 * Invariants: a decision is applied and acknowledged only after the store
 * said it is stored (write before acknowledge); each room has at most one
 * decision here at a time (the room's commit_pending flag), so decisions
 * of one game are written in order even with several threads;
 * srv_committer_stop writes and hands back everything queued before it
 * joins the threads, so no decision handed in is lost at shutdown; after
 * it, srv_committer_push refuses (the queue lives until srv_committer_free).
 *
 * The store's health lives here too (docs/server.md "When storage fails"):
 * a write that failed as a whole (the store is failing: a full disk, an I/O
 * error, a database server that is down) marks storage failing, a write
 * that worked marks it working.  The log says so once at each change, never
 * per decision; /api/health answers 503 with the reason while it fails; and
 * while it fails one writer thread tries the store's probe (a small write)
 * every second, so storage is seen working again without a player's move.
 */
#include "roomsInt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COMMIT_BATCH 256 /* decisions in one transaction at most */
#define COMMIT_PROBE_MS 1000 /* while storage fails: a probe this often */

struct srv_committer {
    srv_rooms *rooms;
    srv_committed_fn committed; /* back to the room (srv_room_committed) */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    srv_pending *head, *tail;
    bool stopping;
    int nthreads;
    pthread_t threads[SRV_COMMIT_THREADS_MAX];
    /* the store's health (under lock) */
    bool failing;
    bool probing;                   /* a thread is running the probe */
    char why[TB_ERR_LEN];           /* the first failure's reason */
    char since[SRV_TIME_LEN];       /* when it began (ISO time) */
    uint64_t since_us;
};

/* Records what a write found (lock held): logs a change, once. */
static void commit_health_locked(srv_committer *q, bool ok, const char *why)
{
    if (ok && q->failing) {
        q->failing = false;
        unsigned long secs = (unsigned long)((srv_now_us() - q->since_us) / 1000000u);
        srv_log(&q->rooms->cfg,
                "storage works again (it failed for %lu s): decisions are stored and taken as "
                "before",
                secs);
    } else if (!ok && !q->failing) {
        q->failing = true;
        snprintf(q->why, sizeof q->why, "%s", why && why[0] ? why : "the database refused a write");
        srv_iso_now(q->since);
        q->since_us = srv_now_us();
        srv_log(&q->rooms->cfg,
                "storage is failing: %s; until it works again every decision is refused with "
                "store_failed and changes nothing, and /api/health answers 503",
                q->why);
    }
}

void srv_store_report(srv_rooms *rooms, bool ok, const char *why)
{
    srv_committer *q = rooms ? rooms->committer : NULL;
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    commit_health_locked(q, ok, why);
    pthread_mutex_unlock(&q->lock);
}

bool srv_rooms_store_failing(srv_rooms *rooms, char *why, size_t whylen, char *since,
                             size_t sincelen)
{
    srv_committer *q = rooms ? rooms->committer : NULL;
    if (!q)
        return false;
    pthread_mutex_lock(&q->lock);
    bool failing = q->failing;
    if (failing) {
        if (why)
            snprintf(why, whylen, "%s", q->why);
        if (since)
            snprintf(since, sincelen, "%s", q->since);
    }
    pthread_mutex_unlock(&q->lock);
    return failing;
}

/* While storage fails and nothing is queued, waits at most COMMIT_PROBE_MS,
 * then (one thread at a time) tries the store's probe.  Lock held; it is
 * released around the probe. */
static void commit_wait(srv_committer *q)
{
    srv_store *st = q->rooms->store;
    if (!q->failing || q->probing || !st->m->probe) {
        pthread_cond_wait(&q->wake, &q->lock);
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long ns = until.tv_nsec + (long)(COMMIT_PROBE_MS % 1000) * 1000000L;
    until.tv_sec += COMMIT_PROBE_MS / 1000 + ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    if (pthread_cond_timedwait(&q->wake, &q->lock, &until) != ETIMEDOUT || q->head ||
        q->stopping || !q->failing || q->probing)
        return;
    q->probing = true;
    pthread_mutex_unlock(&q->lock);
    char err[TB_ERR_LEN] = "";
    int rc = st->m->probe(st, err, sizeof err);
    pthread_mutex_lock(&q->lock);
    q->probing = false;
    if (rc == 0)
        commit_health_locked(q, true, NULL);
}

/* Takes up to `max` waiting decisions, oldest first; NULL once stopping
 * and empty.  Called with the lock held. */
static srv_pending *commit_take(srv_committer *q, int max, int *count)
{
    while (!q->head && !q->stopping)
        commit_wait(q);
    srv_pending *first = q->head, *last = NULL;
    int n = 0;
    for (srv_pending *p = q->head; p && n < max; p = p->next) {
        last = p;
        n++;
    }
    if (!last)
        return NULL;
    q->head = last->next;
    if (!q->head)
        q->tail = NULL;
    last->next = NULL;
    *count = n;
    return first;
}

static void commit_write(srv_committer *q, srv_pending *batch, int n)
{
    srv_store *st = q->rooms->store;
    srv_decision_write rows[COMMIT_BATCH];
    int result[COMMIT_BATCH];
    char err[TB_ERR_LEN] = "", undo_err[TB_ERR_LEN] = "";
    int i = 0, count = 0;
    /* Undos are written one by one, decisions together: each room has one
     * item here at most, so no game's order changes. */
    for (srv_pending *p = batch; p; p = p->next, i++) {
        result[i] = -1;
        if (p->undo) {
            result[i] = st->m->decisions_truncate
                            ? st->m->decisions_truncate(st, p->room->id, p->keep, p->note,
                                                        undo_err, sizeof undo_err)
                            : -1;
            continue;
        }
        rows[count++] = (srv_decision_write){.id = p->room->id, .n = p->n, .seat = p->seat,
                                             .move = p->text, .by = p->by_ai ? "ai" : "human",
                                             .at = p->at, .result = -1};
    }
    /* Storage fails as a whole when a batch fails as a whole (a row
     * refused alone is that game's business); it works when anything was
     * stored.  Reported before the rooms hear it, so they need not log it. */
    bool stored = false, failed = false;
    if (count && st->m->decisions_add) {
        if (st->m->decisions_add(st, rows, count, err, sizeof err) != 0) {
            failed = true;
            if (!err[0])
                snprintf(err, sizeof err, "the database refused the write");
        }
    } else {
        for (i = 0; i < count; i++)
            rows[i].result = st->m->decision_add(st, rows[i].id, rows[i].n, rows[i].seat,
                                                  rows[i].move, rows[i].by, rows[i].at, err,
                                                  sizeof err);
    }
    for (i = 0; i < count; i++)
        stored |= rows[i].result == 0;
    i = 0;
    for (srv_pending *p = batch; p; p = p->next, i++)
        stored |= p->undo && result[i] == 0;
    /* An undo refused may be its game's business (nothing left to take
     * back) or the store's: the probe tells which. */
    bool undo_failed = false;
    i = 0;
    for (srv_pending *p = batch; p; p = p->next, i++)
        undo_failed |= p->undo && result[i] < 0;
    char probe_err[TB_ERR_LEN] = "";
    if (!failed && undo_failed && st->m->probe &&
        st->m->probe(st, probe_err, sizeof probe_err) != 0) {
        failed = true;
        snprintf(err, sizeof err, "%s", probe_err[0] ? probe_err : undo_err);
    }
    if (failed)
        srv_store_report(q->rooms, false, err);
    else if (stored)
        srv_store_report(q->rooms, true, NULL);
    /* An undo refused while storage fails was refused for that reason. */
    bool down = srv_rooms_store_failing(q->rooms, NULL, 0, NULL, 0);
    i = 0;
    int row = 0;
    for (srv_pending *p = batch, *next; p; p = next, i++) {
        next = p->next;
        if (p->undo) {
            q->committed(p, result[i] < 0 && down ? SRV_STORE_DOWN : result[i],
                         undo_err[0] ? undo_err : "the database did not take it");
        } else {
            int r = rows[row++].result;
            q->committed(p, r != 0 && failed ? SRV_STORE_DOWN : r,
                         err[0] ? err : "the database did not take it");
        }
    }
    (void)n;
}

static void *commit_loop(void *arg)
{
    srv_committer *q = arg;
    /* A store that batches takes every waiting decision at once; one that
     * does not, one at a time. */
    int max = q->rooms->store->m->decisions_add ? COMMIT_BATCH : 1;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        int n = 0;
        srv_pending *batch = commit_take(q, max, &n);
        if (!batch)
            break;
        pthread_mutex_unlock(&q->lock);
        commit_write(q, batch, n);
        pthread_mutex_lock(&q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

srv_committer *srv_committer_start(srv_rooms *rooms, srv_committed_fn committed, char *err,
                                   size_t errlen)
{
    srv_committer *q = calloc(1, sizeof *q);
    if (!q) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    q->rooms = rooms;
    q->committed = committed;
    pthread_mutex_init(&q->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->wake, &ca);
    pthread_condattr_destroy(&ca);
    int want = rooms->store->m->writers > 0 ? rooms->store->m->writers : 1;
    if (want > SRV_COMMIT_THREADS_MAX)
        want = SRV_COMMIT_THREADS_MAX;
    for (int i = 0; i < want; i++) {
        int rc = pthread_create(&q->threads[i], NULL, commit_loop, q);
        if (rc) {
            snprintf(err, errlen, "cannot start the store writer threads: error %d", rc);
            srv_committer_free(q);
            return NULL;
        }
        q->nthreads++;
    }
    return q;
}

int srv_committer_push(srv_committer *q, srv_pending *p)
{
    p->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->stopping || q->nthreads == 0) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

void srv_committer_stop(srv_committer *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    q->stopping = true; /* the threads drain the queue, then end */
    pthread_cond_broadcast(&q->wake);
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < q->nthreads; i++)
        pthread_join(q->threads[i], NULL);
    pthread_mutex_lock(&q->lock);
    q->nthreads = 0;
    pthread_mutex_unlock(&q->lock);
}

void srv_committer_free(srv_committer *q)
{
    if (!q)
        return;
    srv_committer_stop(q);
    pthread_cond_destroy(&q->wake);
    pthread_mutex_destroy(&q->lock);
    free(q);
}
