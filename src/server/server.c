/*
 * server.c — the server's lifecycle, the top of its layers (base.h shows
 * them): srv_start opens the store (SQLite with a lock file, or PostgreSQL),
 * then the rooms (which start the AI workers and resume every unfinished
 * game), the WebSocket thread and the HTTP daemon, and with PostgreSQL the
 * lease thread; resumed computer seats start thinking only once all of it
 * is up.  srv_stop undoes it in reverse: no new connections, AI workers
 * finish their decision, every WebSocket closed, then the rooms, the store.
 *
 * Invariants: only this file knows every layer; each layer below gets only
 * what it uses (the configuration, the rooms, the store).
 */
#include "base.h"
#include "rooms.h"
#include "store.h"
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TB_WEB_DIR
#define TB_WEB_DIR "web"
#endif
#ifndef TB_WEB_DIR_INSTALLED
#define TB_WEB_DIR_INSTALLED TB_WEB_DIR
#endif

struct srv_server {
    srv_config cfg;
    char web_dir[1024];
    char po_dir[1100]; /* the catalogues: the "po" folder beside web_dir */
    srv_store *store;
    srv_rooms *rooms;
    srv_sweeper *sweeper; /* lobby.c, above the rooms */
    srv_lease *lease;     /* lease.c: several instances on one database */
    srv_reviews *reviews;
    srv_http *http;
    srv_ws *ws;
    int port;
    int lock_fd;        /* flock on DB.lock: one server per database (SQLite) */
    char db_label[256]; /* the database for messages (no password) */
};

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
    /* The language catalogues sit beside the web folder, in the source tree
     * (po/ next to web/) as installed (DATADIR/tabula/po next to .../web). */
    size_t len = strlen(s->web_dir);
    while (len > 1 && s->web_dir[len - 1] == '/')
        len--;
    while (len > 0 && s->web_dir[len - 1] != '/')
        len--;
    snprintf(s->po_dir, sizeof s->po_dir, "%.*spo", (int)len, s->web_dir);
    s->cfg.po_dir = s->po_dir;
}

srv_server *srv_start(const srv_config *cfg, char *err, size_t errlen)
{
    if (srv_secret_init()) {
        snprintf(err, errlen, "cannot initialise libsodium");
        return NULL;
    }
    srv_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
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
    s->lock_fd = -1;
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
    s->rooms = srv_rooms_open(&s->cfg, s->store, workers, err, errlen);
    if (!s->rooms)
        goto fail;
    s->sweeper = srv_lobby_start(s->rooms, err, errlen);
    if (!s->sweeper)
        goto fail;
    s->ws = srv_ws_start(&s->cfg, s->rooms, err, errlen);
    if (!s->ws)
        goto fail;
    s->reviews = srv_reviews_start(&s->cfg, s->store, err, errlen);
    if (!s->reviews)
        goto fail;
    s->http = srv_http_start(&s->cfg, s->web_dir, s->rooms, s->ws, s->reviews, err, errlen);
    if (!s->http)
        goto fail;
    s->port = srv_http_port(s->http);
    if (s->store->m->lease_take) { /* several instances may share this database */
        s->lease = srv_lease_start(s->rooms, s->port, err, errlen);
        if (!s->lease)
            goto fail;
    }
    /* Resumed games start thinking only once everything is up. */
    srv_rooms_resume(s->rooms);
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
    return srv_rooms_resumed(server->rooms);
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
    if (s->http)
        srv_http_quiesce(s->http); /* no new connections */
    srv_lobby_stop(s->sweeper);   /* no more expiry, no more absent seats */
    srv_lease_stop(s->lease);     /* no more takeovers */
    srv_rooms_quiesce(s->rooms);  /* workers finish their decision */
    srv_reviews_stop(s->reviews); /* a review under way stops at its next decision */
    if (s->ws)
        srv_ws_stop(s->ws); /* closes every WebSocket */
    if (s->http)
        srv_http_stop(s->http);
    srv_ws_free(s->ws);
    srv_rooms_close(s->rooms);
    srv_reviews_free(s->reviews);
    if (s->store)
        s->store->m->close(s->store);
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* releases the lock */
    free(s);
}
