/*
 * base.h — what every layer of the server may use: the clocks, the log,
 * game ids, secrets (secret.c), the limits, and error messages in the shape
 * the API answers them.  It knows no layer above it: only the store's row
 * sizes (store.h, the bottom layer) and the server's configuration.
 *
 * The layers (DESIGN.md §9), each including only the headers below it:
 *
 *     server.c                     the lifecycle: starts and stops the rest
 *     transport.h: http.c, ws.c    HTTP, WebSocket framing, connections
 *     rooms.h: lobby.c, lease.c    above the rooms: creating games, open tables,
 *                                  the sweeper; several instances (leases)
 *              rooms.c             the registry of rooms
 *              room.c              one game: its turns, its connections
 *              seats.c, undo.c,    below the room: its seats, take-backs, the
 *              commit.c            store writer (roomsInt.h is private to these)
 *   Calls go down this list only; a lower file reports back through a
 *   function it was handed (commit.c: srv_room_committed).
 *     ai.h: ai.c                   AI workers beside the rooms: a job queue
 *     review.h: review.c           game reviews beside the rooms: a queue, a thread
 *     base.h: base.c, secret.c     this header
 *     store.h: store_sqlite.c,     persistence
 *              store_pg.c
 *
 * Invariants: nothing here keeps state between calls except what the
 * caller passes in; srv_log writes one whole line per call.
 */
#ifndef TB_SERVER_BASE_H
#define TB_SERVER_BASE_H

#include "server.h"
#include "store.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
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
 * fails with SRV_INTERNAL_STATUS (503: try again), nothing changed, and the
 * server goes on.  Readable as an HTTP error and as a message. */
#define SRV_INTERNAL_STATUS 503
#define SRV_INTERNAL_MESSAGE "the server could not build its answer; nothing changed, try again"
#define SRV_INTERNAL_ERROR_JSON                                                              \
    "{\"type\":\"error\",\"code\":\"internal\",\"message\":\"" SRV_INTERNAL_MESSAGE      \
    "\",\"error\":{\"code\":\"internal\",\"message\":\"" SRV_INTERNAL_MESSAGE "\"}}"

/* base.c */
/* SRV_INTERNAL_ERROR_JSON (malloc'd; NULL only without memory at all) for a
 * reply that could not be built, with a log line naming `what` (always
 * logged: it means the server is short of memory). */
char *srv_internal_error(const char *what);
uint64_t srv_now_us(void); /* monotonic */
void srv_iso_now(char buf[SRV_TIME_LEN]);
/* One line on stderr with the time, unless cfg->quiet. */
void srv_log(const srv_config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool srv_valid_id(const char *id);
/* A WebSocket error message {"type":"error","code","message"[,"id"]} as
 * text (malloc'd); the message is mended to valid UTF-8 whatever it quotes.
 * Never NULL: SRV_INTERNAL_ERROR_JSON when it cannot be built. */
char *srv_error_message(const json_t *id, const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* The compact text of `j` (stolen); SRV_INTERNAL_ERROR_JSON when it cannot be
 * built (NULL only without memory at all). */
char *srv_json_text(json_t *j);
/* An HTTP error body {"error":{"code","message"}} in *reply (the message
 * mended to valid UTF-8 whatever it quotes); returns `status`. */
int srv_error_reply(char **reply, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Whether a seat name is usable: 1 to SRV_NAME_LEN - 1 bytes, no control
 * characters. */
bool srv_valid_name(const char *name);

/* secret.c: random ids, seeds and tokens (libsodium) */
int srv_secret_init(void);
void srv_secret_id(char out[SRV_ID_LEN + 1]);
uint64_t srv_secret_u64(void);
/* A fresh token (base64url text) and its hash. */
void srv_secret_token(char *text, size_t textlen, uint8_t hash[SRV_HASH_LEN]);
void srv_secret_hash(const char *token, uint8_t hash[SRV_HASH_LEN]);
/* A token derived from a secret key (16 to 64 bytes) and a label. */
void srv_secret_derive(const char *key, const char *label, char *text, size_t textlen,
                       uint8_t hash[SRV_HASH_LEN]);
bool srv_secret_equal(const uint8_t a[SRV_HASH_LEN], const uint8_t b[SRV_HASH_LEN]);
/* Sec-WebSocket-Accept for a Sec-WebSocket-Key (GnuTLS SHA-1); 0 on success. */
int srv_secret_ws_accept(const char *key, char out[64]);

#endif
