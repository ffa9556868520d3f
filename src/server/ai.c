/*
 * ai.c — the pool of AI worker threads (ai.h).  A job names an owner (a
 * room), a kind and the number of decisions made when it was queued; a worker takes
 * the job whose time has come (not before `not_before`, which paces computer
 * players for people watching) and calls the pool's step function (the
 * rooms' srv_room_ai_step, which searches on a copy of the state with no
 * lock held and commits only if the position is still the one the job was
 * made for).
 *
 * Invariants: srv_ai_stop lets running jobs finish and joins every worker,
 * so no worker touches an owner afterwards, while srv_ai_schedule stays
 * safe to call (a no-op) until srv_ai_free.  (At most one job per room is
 * queued: the rooms keep that, with the room's ai_queued flag.)
 */
#include "ai.h"
#include "base.h"
#include "core/text.h"

#include <pthread.h>
#include <stdbool.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct ai_job {
    void *owner;
    int kind, expect;
    uint64_t not_before;
    struct ai_job *next;
} ai_job;

struct srv_ai_pool {
    srv_ai_step step;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    ai_job *jobs; /* unordered; a few hundred at most */
    bool stopping;
    int nthreads;
    pthread_t *threads;
};

/* Takes the due job with the earliest time, or says how long to wait. */
static ai_job *ai_take(srv_ai_pool *p, uint64_t now, uint64_t *wait_until)
{
    ai_job **best = NULL;
    *wait_until = 0;
    for (ai_job **j = &p->jobs; *j; j = &(*j)->next)
        if (!best || (*j)->not_before < (*best)->not_before)
            best = j;
    if (!best)
        return NULL;
    if ((*best)->not_before > now) {
        *wait_until = (*best)->not_before;
        return NULL;
    }
    ai_job *job = *best;
    *best = job->next;
    return job;
}

static void ai_deadline(struct timespec *ts, uint64_t mono_us)
{
    ts->tv_sec = (time_t)(mono_us / 1000000u);
    ts->tv_nsec = (long)(mono_us % 1000000u) * 1000L;
}

static void *ai_worker(void *arg)
{
    srv_ai_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        uint64_t wait_until;
        ai_job *job = ai_take(p, srv_now_us(), &wait_until);
        if (!job) {
            if (wait_until) {
                struct timespec ts;
                ai_deadline(&ts, wait_until);
                pthread_cond_timedwait(&p->wake, &p->lock, &ts);
            } else {
                pthread_cond_wait(&p->wake, &p->lock);
            }
            continue;
        }
        pthread_mutex_unlock(&p->lock);
        tb__json_fresh();
        p->step(job->owner, job->kind, job->expect);
        free(job);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

srv_ai_pool *srv_ai_start(int workers, srv_ai_step step, char *err, size_t errlen)
{
    srv_ai_pool *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->step = step;
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->wake, &ca);
    pthread_condattr_destroy(&ca);
    p->threads = calloc((size_t)workers, sizeof *p->threads);
    if (!p->threads) {
        snprintf(err, errlen, "out of memory");
        srv_ai_free(p);
        return NULL;
    }
    for (int i = 0; i < workers; i++) {
        int rc = pthread_create(&p->threads[i], NULL, ai_worker, p);
        if (rc) {
            snprintf(err, errlen, "cannot start AI worker threads: error %d", rc);
            srv_ai_free(p);
            return NULL;
        }
        p->nthreads++;
    }
    return p;
}

int srv_ai_schedule(srv_ai_pool *p, void *owner, int kind, int expect, uint64_t not_before_us)
{
    ai_job *job = calloc(1, sizeof *job);
    if (!job)
        return -1;
    job->owner = owner;
    job->kind = kind;
    job->expect = expect;
    job->not_before = not_before_us;
    pthread_mutex_lock(&p->lock);
    if (p->stopping) {
        pthread_mutex_unlock(&p->lock);
        free(job);
        return 0;
    }
    job->next = p->jobs;
    p->jobs = job;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

void srv_ai_stop(srv_ai_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
}

void srv_ai_free(srv_ai_pool *p)
{
    if (!p)
        return;
    srv_ai_stop(p);
    for (ai_job *j = p->jobs, *next; j; j = next) {
        next = j->next;
        free(j);
    }
    free(p->threads);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
