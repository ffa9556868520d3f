/*
 * server.h — the game server behind `tabula serve` (DESIGN.md §9), as the
 * command line sees it: start it, ask its port, stop it.
 *
 * srv_start returns only when the server listens and every unfinished game
 * in the database has been resumed; srv_stop closes every connection, lets
 * the AI workers finish their current decision, and closes the database.
 * Both are called from one thread (the command's main thread).
 */
#ifndef TB_SERVER_H
#define TB_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "tabula.h"

typedef struct srv_config {
    const char *host;    /* address to bind, e.g. "127.0.0.1" or "::" */
    int port;            /* 0: any free port (see srv_port) */
    const char *db_path; /* SQLite database file, or a postgresql:// URL */
    const char *web_dir; /* the static UI; NULL: the built-in default */
    const char *po_dir;  /* the language catalogues served at /i18n/ (set by srv_start:
                          * the po folder beside the web folder) */
    int ai_delay_ms;     /* pause before a computer's turn (its first decision) */
    int ai_step_ms;      /* pause between the decisions of one computer's turn */
    int workers;         /* AI worker threads; 0: one per CPU, at least 2 */
    bool full_sync;      /* fsync every decision (survives power loss too) */
    int max_games;       /* games in memory before creation is refused; 0: 50,000 */
    bool quiet;          /* no log lines on stderr */
    int lease_seconds;   /* PostgreSQL: how long a game stays with a silent instance; 0: 10 */
    const char *advertise; /* PostgreSQL: the URL other instances send players to;
                            * NULL: http://HOST:PORT/ */
    int request_seconds; /* a request's headers and body must arrive within this; 0: 10 */
    int idle_seconds;    /* an idle HTTP connection is closed after this; 0: 60 */
    int per_address;     /* connections (WebSockets included) from one address;
                          * 0: 256, -1: no limit */
    const tb_data_set *boards; /* the boards games may be played on (--data-dir), the
                                * caller's, alive until srv_stop; NULL: built-in only */
    long unstarted_expiry; /* seconds before a game never started is deleted;
                            * 0: 7 days, -1: never */
    int absent_after;    /* seconds a person's turn waits before the computer plays
                          * it, for open tables; 0: 180, -1: never */
} srv_config;

typedef struct srv_server srv_server;

srv_server *srv_start(const srv_config *cfg, char *err, size_t errlen);
int srv_port(const srv_server *server);
int srv_resumed(const srv_server *server); /* unfinished games picked up at start */
const char *srv_web_dir(const srv_server *server);
const char *srv_db_label(const srv_server *server); /* the database, without a password */
void srv_stop(srv_server *server);

#endif
