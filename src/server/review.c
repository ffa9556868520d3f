/*
 * review.c — the server's game reviews (review.h): a FIFO of finished games,
 * one worker thread at the lowest scheduling priority that reviews them one
 * at a time (tb_review_record, SRV_REVIEW_ITERATIONS per decision), and the
 * store's `reviews` table that keeps each result with its game.
 *
 * Invariants:
 *   - a game has at most one job (queued, running or failed) and the store
 *     at most one review, so asking twice never starts two reviews;
 *   - only records of finished games (over by the rules or by a
 *     resignation) are reviewed: a sealed record (a game still running) is
 *     refused, so a review never reveals a secret of a
 *     game in play; and each decision is searched from its seat's view only
 *     (the library re-deals what that seat could not see);
 *   - the worker never holds the lock while searching or writing the store;
 *     the lock guards the job list only, so a poll never waits on a search;
 *   - srv_reviews_stop makes the running review stop at its next decision
 *     (its progress callback says so) and joins the thread: afterwards
 *     nothing touches the store.
 */
#define _GNU_SOURCE
#include "review.h"
#include "core/text.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sets e[key] to the narration of m in s as a message (the twin of the
 * English "played_said"/"best_said", docs/translating.md); nothing when
 * memory runs out. */
static void review_said_msg(json_t *e, const char *key, const tb_state *s, tb_move m,
                            const char *const *names)
{
    char *text = tb_narrate_json(s, m, names);
    json_t *msg = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    if (msg)
        json_object_set_new(e, key, msg);
}

typedef enum { REVIEW_QUEUED, REVIEW_RUNNING, REVIEW_FAILED } review_phase;

typedef struct review_job {
    char id[SRV_ID_LEN + 1];
    char *record; /* the record's JSON text (malloc'd) */
    review_phase phase;
    int done, total;
    char error[TB_ERR_LEN];
    struct review_job *next;
} review_job;

struct srv_reviews {
    srv_config cfg;
    srv_store *store;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    review_job *jobs; /* oldest first */
    bool stopping;
    bool started;
    pthread_t thread;
};

static char *review_dump(json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6))
                   : NULL;
    json_decref(j);
    return text ? text : srv_internal_error("a review answer");
}

static int review_error(char **reply, int status, const char *code, const char *message)
{
    *reply = review_dump(json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", message));
    return status;
}

/* Under the lock. */
static review_job *review_find(srv_reviews *rv, const char *id)
{
    for (review_job *j = rv->jobs; j; j = j->next)
        if (strcmp(j->id, id) == 0)
            return j;
    return NULL;
}

/* Under the lock: the job's state as the API says it. */
static json_t *review_job_json(const review_job *j)
{
    if (j->phase == REVIEW_FAILED)
        return json_pack("{s:s,s:s}", "status", "failed", "message", j->error);
    return json_pack("{s:s,s:i,s:i}", "status", j->phase == REVIEW_QUEUED ? "queued" : "running",
                     "done", j->done, "total", j->total);
}

typedef struct review_ctx {
    srv_reviews *rv;
    review_job *job;
} review_ctx;

static int review_progress(void *arg, int done, int total)
{
    review_ctx *ctx = arg;
    pthread_mutex_lock(&ctx->rv->lock);
    ctx->job->done = done;
    ctx->job->total = total;
    bool stop = ctx->rv->stopping;
    pthread_mutex_unlock(&ctx->rv->lock);
    return stop;
}

/* The review of one record as the JSON the store keeps (docs/http-api.md);
 * NULL with err. */
static char *review_compute(srv_reviews *rv, review_job *job, char *err, size_t errlen)
{
    tb_record *rec = tb_record_from_json(job->record, err, errlen);
    if (!rec)
        return NULL;
    tb_review_settings settings = {.budget = {.iterations = SRV_REVIEW_ITERATIONS}, .seed = 1,
                                   .boards = rv->cfg.boards};
    review_ctx ctx = {rv, job};
    tb_review *r = NULL;
    if (tb_review_record(rec, -1, &settings, review_progress, &ctx, &r, err, errlen) != 0) {
        tb_record_free(rec);
        return NULL;
    }
    json_t *players = json_array();
    for (int p = 0; p < tb_record_players(rec); p++)
        json_array_append_new(players, json_pack("{s:s}", "name", tb_record_player_name(rec, p)));
    json_t *entries = json_array();
    /* Each decision in players' words too ("played_said", "best_said": the
     * log's narration, from the position before it), the notation beside. */
    const char *names[TB_MAX_SEATS] = {NULL};
    for (int p = 0; p < tb_record_players(rec) && p < TB_MAX_SEATS; p++)
        names[p] = tb_record_player_name(rec, p);
    char rerr[TB_ERR_LEN];
    tb_state *s = tb_record_replay_in(rec, 0, rv->cfg.boards, rerr, sizeof rerr);
    int at = 0;
    for (int i = 0; i < r->count; i++) {
        const tb_review_entry *re = &r->entry[i];
        char *text = tb_review_entry_json(re);
        json_t *e = text ? json_loads(text, 0, NULL) : NULL;
        free(text);
        tb_move m;
        while (s && at < re->index && at < tb_record_length(rec) &&
               tb_text_to_move(s, tb_record_move(rec, at), &m, rerr, sizeof rerr) == 0 &&
               tb_is_legal(s, m)) {
            tb_apply(s, m);
            at++;
        }
        char said[600];
        if (e && s && at == re->index) {
            if (tb_text_to_move(s, re->played_text, &m, rerr, sizeof rerr) == 0 &&
                tb_narrate(s, m, names, said, sizeof said) >= 0) {
                json_object_set_new(e, "played_said", json_string(said));
                review_said_msg(e, "played_said_msg", s, m, names);
            }
            if (tb_text_to_move(s, re->best_text, &m, rerr, sizeof rerr) == 0 &&
                tb_narrate(s, m, names, said, sizeof said) >= 0) {
                json_object_set_new(e, "best_said", json_string(said));
                review_said_msg(e, "best_said_msg", s, m, names);
            }
        }
        if (e)
            json_array_append_new(entries, e);
    }
    tb_state_free(s);
    json_t *final = json_array();
    for (int p = 0; r->over && p < r->players; p++)
        json_array_append_new(final, json_real(r->final[p]));
    char *out = review_dump(json_pack(
        "{s:s,s:o,s:i,s:I,s:f,s:f,s:o,s:o}", "game", tb_game_name(tb_record_game(rec)), "players",
        players, "decisions", r->decisions, "iterations", (json_int_t)SRV_REVIEW_ITERATIONS,
        "mistake", TB_REVIEW_MISTAKE, "blunder", TB_REVIEW_BLUNDER, "final", final, "entries",
        entries));
    tb_review_free(r);
    tb_record_free(rec);
    return out;
}

static void *review_worker(void *arg)
{
    srv_reviews *rv = arg;
    /* Reviews yield to play: the lowest priority for this thread only. */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
    pthread_mutex_lock(&rv->lock);
    while (!rv->stopping) {
        review_job *job = NULL;
        for (review_job *j = rv->jobs; j && !job; j = j->next)
            if (j->phase == REVIEW_QUEUED)
                job = j;
        if (!job) {
            pthread_cond_wait(&rv->wake, &rv->lock);
            continue;
        }
        job->phase = REVIEW_RUNNING;
        pthread_mutex_unlock(&rv->lock);

        char err[TB_ERR_LEN] = "";
        char *result = review_compute(rv, job, err, sizeof err);
        int saved = -1;
        if (result) {
            char at[SRV_TIME_LEN];
            srv_iso_now(at);
            saved = rv->store->m->review_save(rv->store, job->id, result, at, err, sizeof err);
        }
        free(result);

        pthread_mutex_lock(&rv->lock);
        if (saved == 0) {
            srv_log(&rv->cfg, "game %s: review stored", job->id);
            for (review_job **j = &rv->jobs; *j; j = &(*j)->next) {
                if (*j == job) {
                    *j = job->next;
                    break;
                }
            }
            free(job->record);
            free(job);
        } else {
            srv_log(&rv->cfg, "game %s: review failed: %s", job->id, err);
            job->phase = REVIEW_FAILED;
            snprintf(job->error, sizeof job->error, "%s", rv->stopping
                         ? "the server stopped before the review was done; ask again"
                         : "the review could not be made; ask again");
            free(job->record);
            job->record = NULL;
        }
    }
    pthread_mutex_unlock(&rv->lock);
    return NULL;
}

srv_reviews *srv_reviews_start(const srv_config *cfg, srv_store *store, char *err, size_t errlen)
{
    if (!store->m->review_save || !store->m->review_load) {
        snprintf(err, errlen, "this store cannot keep reviews");
        return NULL;
    }
    srv_reviews *rv = calloc(1, sizeof *rv);
    if (!rv) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    rv->cfg = *cfg;
    rv->store = store;
    pthread_mutex_init(&rv->lock, NULL);
    pthread_cond_init(&rv->wake, NULL);
    int rc = pthread_create(&rv->thread, NULL, review_worker, rv);
    if (rc) {
        snprintf(err, errlen, "cannot start the review thread: error %d", rc);
        srv_reviews_free(rv);
        return NULL;
    }
    rv->started = true;
    return rv;
}

void srv_reviews_stop(srv_reviews *rv)
{
    if (!rv)
        return;
    pthread_mutex_lock(&rv->lock);
    rv->stopping = true;
    pthread_cond_broadcast(&rv->wake);
    pthread_mutex_unlock(&rv->lock);
    if (rv->started)
        pthread_join(rv->thread, NULL);
    rv->started = false;
}

void srv_reviews_free(srv_reviews *rv)
{
    if (!rv)
        return;
    srv_reviews_stop(rv);
    for (review_job *j = rv->jobs, *next; j; j = next) {
        next = j->next;
        free(j->record);
        free(j);
    }
    pthread_cond_destroy(&rv->wake);
    pthread_mutex_destroy(&rv->lock);
    free(rv);
}

/* The stored review as the API answers it: 200, 1 when none, -1 on error. */
static int review_stored(srv_reviews *rv, const char *id, char **reply)
{
    char err[TB_ERR_LEN];
    char *text = NULL;
    int rc = rv->store->m->review_load(rv->store, id, &text, err, sizeof err);
    if (rc != 0)
        return rc;
    json_t *review = json_loads(text, 0, NULL);
    free(text);
    if (!review)
        return -1;
    *reply = review_dump(json_pack("{s:s,s:o}", "status", "done", "review", review));
    return 0;
}

/* Whether the record carries a result; -1 when memory ran out reading it. */
static int review_record_has_result(const char *record_json)
{
    json_error_t jerr;
    json_t *j = tb__json_loads(record_json, 0, &jerr);
    if (!j && tb__json_no_memory(&jerr))
        return -1;
    int has = json_is_object(json_object_get(j, "result"));
    json_decref(j);
    return has;
}

/* What is known of a game's review: a job in the list first, then the store
 * (a job leaves the list only after its review is stored, so this order
 * misses neither).  A job answers `job_status` with its progress (a failed
 * one only when `failed_counts`), a stored review 200, a store that cannot
 * be read 500; 0 when there is neither (nothing in *reply). */
static int review_known(srv_reviews *rv, const char *id, bool failed_counts, int job_status,
                        char **reply)
{
    pthread_mutex_lock(&rv->lock);
    review_job *job = review_find(rv, id);
    if (job && (failed_counts || job->phase != REVIEW_FAILED)) {
        *reply = review_dump(review_job_json(job));
        pthread_mutex_unlock(&rv->lock);
        return job_status;
    }
    pthread_mutex_unlock(&rv->lock);
    int stored = review_stored(rv, id, reply);
    if (stored == 0)
        return 200;
    if (stored < 0)
        return review_error(reply, 500, "store_failed", "the review could not be read; try again");
    return 0;
}

int srv_review_request(srv_reviews *rv, const char *id, const char *record_json, char **reply)
{
    /* a job under way answers with its progress; a failed one is tried again below */
    int known = review_known(rv, id, false, 202, reply);
    if (known)
        return known;
    char err[TB_ERR_LEN];
    tb_record *rec = tb_record_from_json(record_json, err, sizeof err);
    if (!rec && strstr(err, "out of memory"))
        return review_error(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    if (!rec)
        return review_error(reply, 409, "not_over",
                            "the game is still being played: it can be reviewed once it has "
                            "ended");
    /* Over by the rules, or by a resignation: the server gives a record its
     * result only once the game is over (room.c, srv_room_record_json). */
    tb_state *end = tb_record_replay_in(rec, -1, rv->cfg.boards, err, sizeof err);
    int has_result = end && !tb_is_over(end) ? review_record_has_result(record_json) : 0;
    bool no_memory = (!end && strstr(err, "out of memory")) || has_result < 0;
    bool over = end && (tb_is_over(end) || has_result > 0);
    tb_state_free(end);
    tb_record_free(rec);
    if (no_memory)
        return review_error(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    if (!over)
        return review_error(reply, 409, "not_over",
                            "the game is still being played: it can be reviewed once it has "
                            "ended");
    pthread_mutex_lock(&rv->lock);
    if (rv->stopping) {
        pthread_mutex_unlock(&rv->lock);
        return review_error(reply, 503, "stopping", "the server is stopping; try again later");
    }
    review_job *job = review_find(rv, id); /* another request may have queued it meanwhile */
    if (job && job->phase == REVIEW_FAILED) {
        /* Asked again after a failure: try once more. */
        job->record = strdup(record_json);
        if (!job->record) {
            pthread_mutex_unlock(&rv->lock);
            return review_error(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        }
        job->phase = REVIEW_QUEUED;
        job->done = job->total = 0;
        pthread_cond_signal(&rv->wake);
    } else if (!job) {
        int waiting = 0;
        for (review_job *j = rv->jobs; j; j = j->next)
            waiting += j->phase != REVIEW_FAILED;
        if (waiting >= SRV_REVIEW_QUEUE) {
            pthread_mutex_unlock(&rv->lock);
            return review_error(reply, 503, "busy",
                                "too many reviews are waiting; try again in a few minutes");
        }
        job = calloc(1, sizeof *job);
        char *copy = strdup(record_json);
        if (!job || !copy) {
            free(job);
            free(copy);
            pthread_mutex_unlock(&rv->lock);
            return review_error(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        }
        snprintf(job->id, sizeof job->id, "%s", id);
        job->record = copy;
        job->phase = REVIEW_QUEUED;
        review_job **tail = &rv->jobs;
        while (*tail)
            tail = &(*tail)->next;
        *tail = job;
        pthread_cond_signal(&rv->wake);
    }
    *reply = review_dump(review_job_json(job));
    pthread_mutex_unlock(&rv->lock);
    return 202;
}

int srv_review_get(srv_reviews *rv, const char *id, char **reply)
{
    int known = review_known(rv, id, true, 200, reply);
    if (known)
        return known;
    *reply = review_dump(json_pack("{s:s}", "status", "none"));
    return 200;
}
