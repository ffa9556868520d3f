/*
 * rooms.h — the rooms layer as the layers above it see it (the transport in
 * http.c and ws.c, the lifecycle in server.c): the games in play, their
 * seats and turns, the registry of rooms, and the clients a room talks to.
 *
 * A room never knows what carries its messages: a client is anything that
 * embeds `srv_client` first and fills in its operations (ws.c's WebSocket
 * connections do).  A room holds a reference on every client attached to
 * it and sends each one only what its seat may see (tb_view_json for that
 * seat; spectators: seat -1); the true state never leaves the room.
 *
 * Threads: every function here may be called from any thread; a room's
 * mutex guards the room (lock order: the registry, then one room, then the
 * store, then a client's outbox; no thread holds two rooms).  A room, once
 * registered, lives until srv_rooms_close.
 */
#ifndef TB_SERVER_ROOMS_H
#define TB_SERVER_ROOMS_H

#include "server.h"
#include "store.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct srv_rooms srv_rooms;
typedef struct srv_room srv_room;

/* ---- clients ---- */

typedef struct srv_client srv_client;
typedef struct srv_client_ops {
    /* Queues `text` (malloc'd JSON; the client takes it; NULL: the message
     * could not be built) for the client.  Never blocks on the network. */
    void (*send)(srv_client *c, char *text);
    void (*ref)(srv_client *c);
    void (*unref)(srv_client *c);
} srv_client_ops;

struct srv_client {
    const srv_client_ops *ops;
    int seat; /* -1: a spectator; set before srv_room_attach */
    /* The seat key the client showed ("": none).  Only ever sent back to
     * this client: its own link to a rematch (social.c). */
    char token[136];
};

/* ---- the registry, for server.c ---- */

/* Opens the rooms over an open store (which stays the caller's), starts
 * `workers` AI threads and loads every unfinished game this instance may
 * play; their computer seats wait for srv_rooms_resume. */
srv_rooms *srv_rooms_open(const srv_config *cfg, srv_store *store, int workers, char *err,
                          size_t errlen);
void srv_rooms_resume(srv_rooms *rooms); /* computer seats of resumed games start */
int srv_rooms_resumed(const srv_rooms *rooms);
/* Lets the AI workers finish their current decision and joins them, then
 * stores and answers every decision handed in.  The lobby's sweeper and the
 * lease thread (above the rooms) are stopped before. */
void srv_rooms_quiesce(srv_rooms *rooms);
void srv_rooms_close(srv_rooms *rooms); /* frees every room */

/* ---- above the rooms: started and stopped by server.c ---- */

/* lobby.c: the sweeper thread (expires games never started, hands absent
 * seats to the computer); NULL with err when it cannot start. */
typedef struct srv_sweeper srv_sweeper;
/* `mailer` (mail.h, may be NULL) gets the turns that wait on a person who
 * does not have the game open. */
struct srv_mailer;
srv_sweeper *srv_lobby_start(srv_rooms *rooms, struct srv_mailer *mailer, char *err,
                             size_t errlen);
void srv_lobby_stop(srv_sweeper *sweeper); /* joins the thread and frees; NULL is fine */
/* lease.c, several instances (a store with leases): the thread that keeps
 * this instance's games and takes over those of instances that stopped;
 * `port` is where this instance listens (for the address others send
 * players to). */
typedef struct srv_lease srv_lease;
srv_lease *srv_lease_start(srv_rooms *rooms, int port, char *err, size_t errlen);
void srv_lease_stop(srv_lease *lease); /* joins the thread and frees; NULL is fine */

/* ---- for the HTTP API ---- */

int srv_rooms_in_memory(srv_rooms *rooms);
/* The store the rooms were opened over (ratings.c reads through it). */
srv_store *srv_rooms_store(srv_rooms *rooms);
/* Whether storage is failing now (commit.c): writes fail as a whole, so
 * decisions are refused; `why` gets the reason and `since` when it began
 * (ISO time).  Either may be NULL. */
bool srv_rooms_store_failing(srv_rooms *rooms, char *why, size_t whylen, char *since,
                             size_t sincelen);
/* The games of GET /api/games: status "open", "running", "over" or NULL for
 * all; a JSON array, or NULL with err. */
json_t *srv_rooms_list(srv_rooms *rooms, const char *status, int limit, char *err,
                       size_t errlen);
/* lobby.c: creates a game from a POST /api/games body.  Returns the HTTP
 * status and sets *reply to the JSON reply (success or error). */
int srv_room_create(srv_rooms *rooms, const char *body, size_t len, char **reply);

/* ---- accounts (issue 28; accounts.h is below the rooms) ---- */
struct srv_accounts;
void srv_rooms_set_accounts(srv_rooms *rooms, struct srv_accounts *accounts);
/* lobby.c: srv_room_create by a creator with a session (`creator`: the
 * account id, 0 for a guest): a seat may name an account ({"kind":
 * "human", "account": NAME}); "rated": true needs every person's seat an
 * account's; the creator's own seat (the first person's seat naming no
 * account, when no seat names the creator) becomes the creator's. */
int srv_room_create_as(srv_rooms *rooms, const char *body, size_t len, int64_t creator,
                       char **reply);
/* me.c: GET /api/me's "games" (a JSON array's text, malloc'd): every game
 * with a seat of the account, the ones where it is the account's turn
 * first, then running, then finished (each group the latest first); NULL
 * with err. */
char *srv_rooms_account_games(srv_rooms *rooms, int64_t account, char *err, size_t errlen);
/* me.c: a guest who signs up or logs in keeps the seats of the links it
 * holds: `claim` is an array of {"game": ID, "token": T}; each seat named
 * that belongs to no account becomes the account's.  Returns how many did. */
int srv_rooms_claim_seats(srv_rooms *rooms, int64_t account, const json_t *claim);
/* me.c: a deleted account's seats in memory keep the neutral name `former`. */
void srv_rooms_forget_account(srv_rooms *rooms, int64_t account, const char *former);
/* lobby.c: POST /api/games/{id}/seats (take a free seat) and DELETE
 * /api/games/{id} (the creator, before the game started).  Return the HTTP
 * status and set *reply. */
int srv_room_take_seat(srv_rooms *rooms, const char *id, const char *body, size_t len,
                       char **reply);
int srv_room_delete(srv_rooms *rooms, const char *id, const char *body, size_t len,
                    char **reply);
/* rematch.c: POST /api/games/{id}/rematch {"token"}: "Play again" for the
 * person of that seat of a finished game (or, without a token, for the seat
 * of `account`, the session's account; 0 none): the new game (made once)
 * and their own link to it.  Returns the HTTP status and sets *reply. */
int srv_room_rematch(srv_rooms *rooms, const char *id, const char *body, size_t len,
                     int64_t account, char **reply);
/* The room in memory, else a finished game loaded just for this answer
 * (*temporary set: free it with srv_room_free).  NULL: no such game. */
srv_room *srv_room_borrow(srv_rooms *rooms, const char *id, bool *temporary);
void srv_room_free(srv_room *room);
char *srv_room_spectator_json(srv_room *room);
/* The record, sealed until the game is over; *status is the HTTP status. */
char *srv_room_record_json(srv_room *room, int *status);
/* The position after `step` decisions.  A finished game: as a spectator
 * sees it.  A running game (a look back from the log): as the token's seat
 * saw it then, or a spectator without a token; never the current position's
 * secrets.  *status is the HTTP status. */
char *srv_room_replay_json(srv_room *room, long step, const char *token, int *status);
/* A finished game's scores after every decision, for the score graph:
 * {"players", "total", "scores": [[...] per step 0..total], "stages": [...]}. */
char *srv_room_scores_json(srv_room *room, int *status);

/* ---- for live connections ---- */

/* The room of a game id, loaded if need be; NULL when there is none, or
 * (several instances) when another instance plays it: then `away` says
 * where (away may be NULL). */
srv_room *srv_room_claim(srv_rooms *rooms, const char *id, char *away, size_t awaylen);
/* Seat of a token (-1: spectator for NULL/empty; -2: no seat has it). */
int srv_room_seat_of_token(srv_room *room, const char *token);
/* The seat of an account here (its first), -1 when it has none. */
int srv_room_seat_of_account(srv_room *room, int64_t account);
/* Attaches a client (its seat set) and sends it the current state. */
void srv_room_attach(srv_room *room, srv_client *client);
void srv_room_detach(srv_room *room, srv_client *client);
/* A parsed message from a client (already rate-limited and size-checked). */
void srv_room_client_message(srv_room *room, srv_client *client, json_t *msg);

#endif
