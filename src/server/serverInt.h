/*
 * serverInt.h — private to src/server: the server, its rooms (one live game
 * each), connections, the AI worker pool and the pieces that join them.
 *
 * Threads and locks (the invariants every file here keeps):
 *   - the HTTP thread (libmicrohttpd) answers requests; the WebSocket thread
 *     (ws.c) reads and writes every upgraded socket; AI workers (ai.c) run
 *     searches.  Only AI workers ever run a search, and they run it on a copy
 *     of the state with no lock held, so HTTP and WebSocket threads never
 *     wait on one.
 *   - a room's mutex guards everything in the room.  Lock order: the
 *     registry lock, then one room, then the store (internal to the store),
 *     then one connection's outbox.  No thread holds two rooms at once.
 *   - a room, once in the registry, lives until srv_stop, which first stops
 *     every thread that could touch it.
 *   - a connection is reference counted: the WebSocket thread, the room it
 *     is attached to and the list of connections waiting to be flushed each
 *     hold one reference.
 *   - the true state of a game never leaves its room: a connection receives
 *     tb_view_json for its own seat (spectators: seat -1) and, on its turn,
 *     its legal decisions; the seed appears only in records of finished games.
 */
#ifndef TB_SERVER_INT_H
#define TB_SERVER_INT_H

#include "server.h"
#include "store.h"
#include "tabula.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define SRV_MAX_BODY 16384            /* bytes of an HTTP request body */
#define SRV_MAX_MESSAGE 16384         /* bytes of one WebSocket message */
#define SRV_MAX_FRAME (64u << 20)     /* a frame beyond this closes (1009) */
#define SRV_MAX_BACKLOG (8u << 20)    /* unsent bytes before a reader counts as gone */
#define SRV_RATE_PER_SEC 20.0         /* messages per second per connection */
#define SRV_RATE_BURST 40.0
#define SRV_TOKEN_BYTES 32            /* 256 random bits per seat token */
#define SRV_MAX_CONNECTIONS 8192
#define SRV_MAX_ROOMS 50000           /* running games before creation is refused */
#define SRV_REQUEST_SECONDS 10        /* to send one request's headers and body */
#define SRV_IDLE_SECONDS 60           /* an HTTP connection between requests */
#define SRV_PER_ADDRESS 256u          /* open connections from one client address */

/* The reply when a reply cannot be built (no memory): that one request
 * fails, the server goes on. */
#define SRV_INTERNAL_MESSAGE "the server could not build its answer; nothing changed, try again"
#define SRV_INTERNAL_ERROR_JSON                                                              \
    "{\"type\":\"error\",\"code\":\"internal\",\"message\":\"" SRV_INTERNAL_MESSAGE      \
    "\",\"error\":{\"code\":\"internal\",\"message\":\"" SRV_INTERNAL_MESSAGE "\"}}"

typedef struct srv_conn srv_conn;
typedef struct srv_ws srv_ws;
typedef struct srv_ai_pool srv_ai_pool;
typedef struct srv_http srv_http;
typedef struct srv_lease srv_lease;

enum { SRV_HUMAN, SRV_AI };

typedef struct srv_seat {
    int kind;
    char name[SRV_NAME_LEN];
    char level[SRV_LEVEL_LEN];  /* what was asked for */
    const tb_agent *agent;      /* AI seats: who decides */
    tb_budget budget;
    char note[200];             /* e.g. why a level fell back to another agent */
    uint8_t token_hash[SRV_HASH_LEN];
    bool joined;
    int connected;              /* live connections holding this seat */
} srv_seat;

typedef struct srv_log_entry {
    int8_t seat;
    bool by_ai;
} srv_log_entry;

typedef struct srv_room {
    char id[SRV_ID_LEN + 1];
    pthread_mutex_t lock;
    struct srv_server *server;
    const tb_game *game;
    int players;
    tb_options options;
    tb_state *state;     /* the truth; NULL when the game is broken */
    tb_record *record;   /* every decision in canonical text */
    srv_log_entry *log;  /* who made each decision, parallel to the record */
    int log_cap;
    srv_seat seat[TB_MAX_SEATS];
    char created[SRV_TIME_LEN], finished[SRV_TIME_LEN];
    char broken[TB_ERR_LEN]; /* why a stored game does not replay, or "" */
    srv_conn **conns;
    int nconns, conn_cap;
    bool ai_queued;      /* an AI job for the current position is pending */
    atomic_bool away;    /* another instance holds the game's lease (PostgreSQL):
                          * the room is stale and decides nothing until reloaded */
    struct srv_room *next; /* registry chain */
} srv_room;

struct srv_server {
    srv_config cfg;
    char web_dir[1024];
    srv_store *store;
    srv_http *http;
    srv_ws *ws;
    srv_ai_pool *ai;
    pthread_mutex_t registry_lock;
    srv_room **buckets;
    int nbuckets, nrooms;
    atomic_int running; /* games in memory that are not over (the --max-games cap) */
    int resumed;
    int port;
    int lock_fd; /* flock on DB.lock: one server per database (SQLite) */
    srv_lease *lease; /* PostgreSQL: renews leases, takes over free games */
    char db_label[256]; /* the database for messages (no password) */
};

/* server.c */
uint64_t srv_now_us(void);
void srv_iso_now(char buf[SRV_TIME_LEN]);
void srv_log(const srv_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The room of a game id (loading a finished game from the store on first
 * use); NULL when there is no such game.  The pointer stays valid until
 * srv_stop. */
srv_room *srv_room_find(srv_server *s, const char *id);
/* srv_room_find for a store shared by several instances: a running game
 * this instance does not hold is taken if its lease is free, else NULL with
 * `away` saying where it is played (away may be NULL). */
srv_room *srv_room_claim(srv_server *s, const char *id, char *away, size_t awaylen);
/* Rechecks a room whose lease this instance may have lost (lease.c). */
void srv_room_recheck(srv_server *s, srv_room *room);
/* The room if it is in memory and played here, without loading it. */
srv_room *srv_room_peek(srv_server *s, const char *id);
/* For one HTTP answer: the room in memory, else a finished game loaded from
 * the store just for this answer (*temporary set: free it with
 * srv_room_free).  Keeps finished games that are only looked at out of
 * memory.  NULL when there is no such game. */
srv_room *srv_room_borrow(srv_server *s, const char *id, bool *temporary);
/* Adds a new room; the registry owns it from then on. */
void srv_room_register(srv_server *s, srv_room *room);
bool srv_valid_id(const char *id);

/* secret.c: random ids, seeds and tokens (libsodium) */
int srv_secret_init(void);
void srv_secret_id(char out[SRV_ID_LEN + 1]);
uint64_t srv_secret_u64(void);
/* A fresh token (base64url text) and its hash. */
void srv_secret_token(char *text, size_t textlen, uint8_t hash[SRV_HASH_LEN]);
void srv_secret_hash(const char *token, uint8_t hash[SRV_HASH_LEN]);
bool srv_secret_equal(const uint8_t a[SRV_HASH_LEN], const uint8_t b[SRV_HASH_LEN]);
/* Sec-WebSocket-Accept for a Sec-WebSocket-Key (GnuTLS SHA-1); 0 on success. */
int srv_secret_ws_accept(const char *key, char out[64]);

/* room.c */
/* Creates a game from a POST /api/games body.  Returns the HTTP status and
 * sets *reply to the JSON reply (success or error). */
int srv_room_create(srv_server *s, const char *body, size_t len, char **reply);
/* Rebuilds a stored game; NULL and err when the store has no such game. */
srv_room *srv_room_load(srv_server *s, const char *id, char *err, size_t errlen);
void srv_room_free(srv_room *room);
/* Replaces a room's game by the stored one (after a lease came back), and
 * sends every connection the new state; 0 on success. */
int srv_room_reload(srv_room *room, char *err, size_t errlen);
/* Another instance holds the game now: stop deciding, tell the connections. */
void srv_room_set_away(srv_room *room, const char *owner);
/* Resumes a loaded game: queues its AI seat if one is to move. */
void srv_room_resume(srv_room *room);
bool srv_room_running(srv_room *room);
/* JSON (malloc'd) for the HTTP API. */
json_t *srv_room_summary(srv_room *room);           /* takes the room lock */
json_t *srv_row_summary(const srv_game_row *row);   /* a game not in memory */
char *srv_room_spectator_json(srv_room *room);
/* The record, sealed until the game is over; *status is the HTTP status. */
char *srv_room_record_json(srv_room *room, int *status);
char *srv_room_replay_json(srv_room *room, long step, int *status);
/* Seat of a token (-1: spectator for NULL/empty; -2: no seat has it). */
int srv_room_seat_of_token(srv_room *room, const char *token);
/* Attaches a connection to a seat (or -1) and sends it the current state. */
void srv_room_attach(srv_room *room, srv_conn *conn, int seat);
void srv_room_detach(srv_room *room, srv_conn *conn);
/* A parsed message from a client (already rate-limited and size-checked). */
void srv_room_client_message(srv_room *room, srv_conn *conn, int seat, json_t *msg);
/* Called by an AI worker for the position after `expect` decisions. */
void srv_room_ai_step(srv_room *room, int expect);

/* ai.c */
srv_ai_pool *srv_ai_start(srv_server *s, int workers, char *err, size_t errlen);
void srv_ai_schedule(srv_ai_pool *pool, srv_room *room, int expect, uint64_t not_before_us);
void srv_ai_stop(srv_ai_pool *pool); /* joins the workers; schedule becomes a no-op */
void srv_ai_free(srv_ai_pool *pool);

/* ws.c */
srv_ws *srv_ws_start(srv_server *s, char *err, size_t errlen);
void srv_ws_stop(srv_ws *ws); /* closes every connection; later upgrades close at once */
void srv_ws_free(srv_ws *ws);
/* Takes ownership of `text` (malloc'd JSON); safe from any thread. */
void srv_conn_send(srv_conn *conn, char *text);
void srv_conn_send_json(srv_conn *conn, json_t *msg); /* steals msg */
void srv_conn_error(srv_conn *conn, const json_t *id, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int srv_conn_seat(const srv_conn *conn); /* -1: spectator */
void srv_conn_ref(srv_conn *conn);
void srv_conn_unref(srv_conn *conn);

/* lease.c: several instances on one database (stores with lease methods) */
srv_lease *srv_lease_start(srv_server *s, char *err, size_t errlen);
void srv_lease_stop(srv_lease *lease); /* joins the thread and frees */

/* http.c */
srv_http *srv_http_start(srv_server *s, char *err, size_t errlen);
int srv_http_port(const srv_http *h);
void srv_http_quiesce(srv_http *h); /* stops accepting connections */
void srv_http_stop(srv_http *h);

/* What GET /ws decided before the upgrade (kept by http.c per request). */
typedef struct srv_ws_pending {
    srv_room *room;     /* NULL: the connection only reports `code` */
    int seat;           /* -1: spectator */
    char code[24];
    char message[200];
    bool upgraded;      /* the 101 answer is queued: the socket becomes ws.c's */
} srv_ws_pending;

/* ws.c, called by http.c for GET /ws: answers the upgrade request.  The
 * request's MHD context pointer (con_cls) must point at `pending`. */
struct MHD_Connection;
int srv_ws_upgrade(srv_server *s, struct MHD_Connection *c, srv_ws_pending *pending);

#endif
