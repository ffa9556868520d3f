/*
 * server.c — the server's lifecycle and its registry of rooms.
 *
 * srv_start opens the store, resumes every unfinished game (replaying seed +
 * decisions), starts the AI workers, the WebSocket thread and the HTTP
 * daemon, in that order (and, with PostgreSQL, the lease thread); srv_stop
 * undoes it in reverse.  With PostgreSQL several instances share the
 * database and a running game is loaded only by the instance that holds
 * its lease (srv_room_claim), taken before the game is read.  The registry is a
 * hash table of rooms by game id; a room enters it once and stays until
 * srv_stop.  Finished games are loaded from the store when a WebSocket asks
 * for them, and only borrowed (loaded, answered, freed) by HTTP reads.
 */
#include "serverInt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef TB_WEB_DIR
#define TB_WEB_DIR "web"
#endif
#ifndef TB_WEB_DIR_INSTALLED
#define TB_WEB_DIR_INSTALLED TB_WEB_DIR
#endif

uint64_t srv_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void srv_iso_now(char buf[SRV_TIME_LEN])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char base[24];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, SRV_TIME_LEN, "%.20s.%03dZ", base, (int)(ts.tv_nsec / 1000000L) % 1000);
}

void srv_log(const srv_server *s, const char *fmt, ...)
{
    if (s && s->cfg.quiet)
        return;
    char when[SRV_TIME_LEN];
    srv_iso_now(when);
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s %s\n", when, line);
}

bool srv_valid_id(const char *id)
{
    if (!id || strlen(id) != SRV_ID_LEN)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

static unsigned server_hash(const char *id)
{
    unsigned h = 2166136261u;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h;
}

static srv_room *server_lookup(srv_server *s, const char *id)
{
    for (srv_room *r = s->buckets[server_hash(id) % (unsigned)s->nbuckets]; r; r = r->next)
        if (strcmp(r->id, id) == 0)
            return r;
    return NULL;
}

void srv_room_register(srv_server *s, srv_room *room)
{
    if (srv_room_running(room))
        atomic_fetch_add(&s->running, 1);
    pthread_mutex_lock(&s->registry_lock);
    unsigned b = server_hash(room->id) % (unsigned)s->nbuckets;
    room->next = s->buckets[b];
    s->buckets[b] = room;
    s->nrooms++;
    pthread_mutex_unlock(&s->registry_lock);
}

srv_room *srv_room_peek(srv_server *s, const char *id)
{
    pthread_mutex_lock(&s->registry_lock);
    srv_room *r = server_lookup(s, id);
    if (r && atomic_load(&r->away))
        r = NULL;
    pthread_mutex_unlock(&s->registry_lock);
    return r;
}

srv_room *srv_room_borrow(srv_server *s, const char *id, bool *temporary)
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
        return srv_room_find(s, id);
    }
    *temporary = r != NULL;
    return r;
}

srv_room *srv_room_find(srv_server *s, const char *id)
{
    return srv_room_claim(s, id, NULL, 0);
}

static void server_away_text(char *away, size_t awaylen, const char *id, const char *owner)
{
    if (!away || !awaylen)
        return;
    if (!owner)
        snprintf(away, awaylen,
                 "game %s cannot be opened: the database does not answer; try again soon", id);
    else if (*owner)
        snprintf(away, awaylen, "game %s is played by another server instance, at %.120s", id,
                 owner);
    else
        snprintf(away, awaylen,
                 "game %s is played by another server instance (its address is not known yet); "
                 "try again in a few seconds",
                 id);
}

srv_room *srv_room_claim(srv_server *s, const char *id, char *away, size_t awaylen)
{
    if (away && awaylen)
        away[0] = '\0';
    if (!srv_valid_id(id))
        return NULL;
    srv_store *st = s->store;
    char err[TB_ERR_LEN], owner[256] = "";
    pthread_mutex_lock(&s->registry_lock);
    srv_room *r = server_lookup(s, id);
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
                srv_log(s, "game %s: %s", id, err);
            server_away_text(away, awaylen, id, lease < 0 ? NULL : owner);
            return NULL;
        }
    }
    if (r) {
        /* A room this instance had lost: it is back (or over). */
        if (srv_room_reload(r, err, sizeof err))
            srv_log(s, "game %s: cannot reload: %s", id, err);
        else
            srv_log(s, "game %s: taken back", id);
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
        unsigned b = server_hash(r->id) % (unsigned)s->nbuckets;
        r->next = s->buckets[b];
        s->buckets[b] = r;
        s->nrooms++;
    }
    pthread_mutex_unlock(&s->registry_lock);
    if (r && running && lease == SRV_LEASE_TAKEN) {
        srv_log(s, "game %s: taken over (its previous server stopped)", id);
        srv_room_resume(r);
    }
    return r;
}

void srv_room_recheck(srv_server *s, srv_room *r)
{
    srv_store *st = s->store;
    char err[TB_ERR_LEN], owner[256] = "";
    int lease = st->m->lease_take(st, r->id, owner, sizeof owner, err, sizeof err);
    if (lease < 0) {
        srv_log(s, "game %s: %s", r->id, err);
    } else if (lease == SRV_LEASE_ELSEWHERE) {
        srv_log(s, "game %s: another server instance took it over", r->id);
        srv_room_set_away(r, owner);
    } else if (lease != SRV_LEASE_MINE) {
        /* Taken back after someone else held it, or over: read it again. */
        pthread_mutex_lock(&s->registry_lock);
        if (srv_room_reload(r, err, sizeof err))
            srv_log(s, "game %s: cannot reload: %s", r->id, err);
        pthread_mutex_unlock(&s->registry_lock);
    }
}

static int server_resume_all(srv_server *s, char *err, size_t errlen)
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
                srv_log(s, "game %s: %s", rows[i].id, why);
            if (lease != SRV_LEASE_TAKEN && lease != SRV_LEASE_MINE)
                continue;
        }
        srv_room *r = srv_room_load(s, rows[i].id, why, sizeof why);
        if (!r) {
            srv_log(s, "game %s: cannot resume: %s", rows[i].id, why);
            continue;
        }
        srv_room_register(s, r);
        if (r->broken[0])
            srv_log(s, "game %s: does not replay: %s", r->id, r->broken);
        else
            s->resumed++;
    }
    for (int i = 0; i < n; i++)
        srv_game_row_clear(&rows[i]);
    free(rows);
    return 0;
}

static void server_raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void server_pick_web_dir(srv_server *s)
{
    const char *dir = s->cfg.web_dir;
    struct stat st;
    /* the source tree's assets (a build run in place), else the installed
     * copy (`meson install` puts it under DATADIR/tabula/web) */
    if (!dir && stat(TB_WEB_DIR "/index.html", &st) == 0)
        dir = TB_WEB_DIR;
    if (!dir && stat(TB_WEB_DIR_INSTALLED "/index.html", &st) == 0)
        dir = TB_WEB_DIR_INSTALLED;
    if (!dir)
        dir = "web";
    snprintf(s->web_dir, sizeof s->web_dir, "%s", dir);
    s->cfg.web_dir = s->web_dir;
}

srv_server *srv_start(const srv_config *cfg, char *err, size_t errlen)
{
    if (srv_secret_init()) {
        snprintf(err, errlen, "cannot initialise libsodium");
        return NULL;
    }
    srv_server *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->cfg = *cfg;
    server_pick_web_dir(s);
    struct stat st;
    char index[1100];
    snprintf(index, sizeof index, "%s/index.html", s->web_dir);
    if (stat(index, &st) != 0) {
        snprintf(err, errlen, "no web UI at %s (give --web DIR)", s->web_dir);
        free(s);
        return NULL;
    }
    server_raise_fd_limit();
    pthread_mutex_init(&s->registry_lock, NULL);
    s->lock_fd = -1;
    s->nbuckets = 4096;
    s->buckets = calloc((size_t)s->nbuckets, sizeof *s->buckets);
    if (!s->buckets)
        abort();
    if (srv_store_is_pg_url(cfg->db_path)) {
        /* PostgreSQL: several instances share it, each game leased to one. */
        srv_store_pg_label(cfg->db_path, s->db_label, sizeof s->db_label);
        s->store = srv_store_pg_open(cfg->db_path, cfg->lease_seconds, err, errlen);
        if (!s->store)
            goto fail;
    } else {
        /* One server per SQLite file: the rooms hold the games in memory. */
        snprintf(s->db_label, sizeof s->db_label, "%s", cfg->db_path);
        char lock_path[1100];
        snprintf(lock_path, sizeof lock_path, "%s.lock", cfg->db_path);
        s->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
            snprintf(err, errlen, "%s %s: %s",
                     s->lock_fd < 0 ? "cannot create" : "another server uses",
                     s->lock_fd < 0 ? lock_path : cfg->db_path,
                     s->lock_fd < 0 ? strerror(errno) : "stop it first, or give another --db");
            goto fail;
        }
        s->store = srv_store_sqlite_open(cfg->db_path, cfg->full_sync, err, errlen);
        if (!s->store)
            goto fail;
    }
    int workers = cfg->workers;
    if (workers <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        workers = cpus > 2 ? (int)cpus : 2;
    }
    /* The pool exists before games resume, so resumed AI seats can queue. */
    s->ai = srv_ai_start(s, workers, err, errlen);
    if (!s->ai || server_resume_all(s, err, errlen))
        goto fail;
    s->ws = srv_ws_start(s, err, errlen);
    if (!s->ws)
        goto fail;
    s->http = srv_http_start(s, err, errlen);
    if (!s->http)
        goto fail;
    s->port = srv_http_port(s->http);
    if (s->store->m->lease_take) {
        s->lease = srv_lease_start(s, err, errlen);
        if (!s->lease)
            goto fail;
    }
    /* Resumed games start thinking only once everything is up. */
    pthread_mutex_lock(&s->registry_lock);
    for (int b = 0; b < s->nbuckets; b++)
        for (srv_room *r = s->buckets[b]; r; r = r->next)
            srv_room_resume(r);
    pthread_mutex_unlock(&s->registry_lock);
    return s;
fail:
    srv_stop(s);
    return NULL;
}

int srv_port(const srv_server *server)
{
    return server->port;
}

int srv_resumed(const srv_server *server)
{
    return server->resumed;
}

const char *srv_web_dir(const srv_server *server)
{
    return server->web_dir;
}

const char *srv_db_label(const srv_server *server)
{
    return server->db_label;
}

void srv_stop(srv_server *s)
{
    if (!s)
        return;
    srv_lease_stop(s->lease); /* no more takeovers */
    if (s->http)
        srv_http_quiesce(s->http); /* no new connections */
    if (s->ai)
        srv_ai_stop(s->ai); /* workers finish their current decision */
    if (s->ws)
        srv_ws_stop(s->ws); /* closes every WebSocket */
    if (s->http)
        srv_http_stop(s->http);
    srv_ai_free(s->ai);
    srv_ws_free(s->ws);
    for (int b = 0; s->buckets && b < s->nbuckets; b++) {
        for (srv_room *r = s->buckets[b], *next; r; r = next) {
            next = r->next;
            srv_room_free(r);
        }
    }
    free(s->buckets);
    if (s->store)
        s->store->m->close(s->store);
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* releases the lock */
    pthread_mutex_destroy(&s->registry_lock);
    free(s);
}
