/*
 * transport.h — the transport layer (http.c: HTTP and the static UI; ws.c:
 * WebSocket framing and connections), as server.c and the two files see
 * each other.  Below it only the rooms (rooms.h) and the basics (base.h).
 *
 * Threads: the HTTP daemon's thread answers requests and hands upgraded
 * sockets to the WebSocket thread, which reads and writes every one of them.
 * Neither ever waits on a search: rooms hand those to the AI workers.
 */
#ifndef TB_SERVER_TRANSPORT_H
#define TB_SERVER_TRANSPORT_H

#include "accounts.h"
#include "base.h"
#include "mail.h"
#include "review.h"
#include "rooms.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct srv_http srv_http;
typedef struct srv_ws srv_ws;

/* ws.c */
srv_ws *srv_ws_start(const srv_config *cfg, srv_rooms *rooms, char *err, size_t errlen);
void srv_ws_stop(srv_ws *ws); /* closes every connection; later upgrades close at once */
void srv_ws_free(srv_ws *ws);

/* What GET /ws decided before the upgrade (kept by http.c per request). */
typedef struct srv_ws_pending {
    srv_room *room;     /* NULL: the connection only reports `code` */
    int seat;           /* -1: spectator */
    char token[136];    /* the seat's key when seat >= 0 (srv_client.token) */
    char code[24];
    char message[200];
    bool upgraded;      /* the 101 answer is queued: the socket becomes ws.c's */
} srv_ws_pending;

/* ws.c, called by http.c for GET /ws: answers the upgrade request.  The
 * request's MHD context pointer (con_cls) must point at `pending`. */
struct MHD_Connection;
int srv_ws_upgrade(srv_ws *ws, struct MHD_Connection *c, srv_ws_pending *pending);
/* The same for a connection whose session cookie is `account`'s (http.c
 * resolved it; 0: none): without a token it plays the account's seat. */
int srv_ws_upgrade_as(srv_ws *ws, struct MHD_Connection *c, srv_ws_pending *pending,
                      int64_t account);

/* http.c: the daemon (its own thread) over the rooms and the WebSockets. */
srv_http *srv_http_start(const srv_config *cfg, const char *web_dir, srv_rooms *rooms,
                         srv_ws *ws, srv_reviews *reviews, srv_accounts *accounts,
                         srv_mailer *mailer, char *err, size_t errlen);
int srv_http_port(const srv_http *h);
void srv_http_quiesce(srv_http *h); /* stops accepting connections */
void srv_http_stop(srv_http *h);

#endif
