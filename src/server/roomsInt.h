/*
 * roomsInt.h — private to the rooms layer (room.c: one game; rooms.c: the
 * registry and the lifecycle; lease.c: several instances on one database).
 *
 * Invariants these files keep:
 *   - a room's mutex guards everything in the room; lock order: the
 *     registry lock, then one room, then the store (internal to the store),
 *     then a client's outbox.  No thread holds two rooms at once.
 *   - only AI workers run a search, on a copy of the state with no lock
 *     held, so no request ever waits on one.
 *   - a room, once in the registry, lives until srv_rooms_close, which first
 *     stops every thread that could touch it.
 *   - the true state of a game never leaves its room: a client receives
 *     tb_view_json for its own seat (spectators: seat -1) and, on its turn,
 *     its legal decisions; the seed appears only in records of finished games.
 */
#ifndef TB_SERVER_ROOMS_INT_H
#define TB_SERVER_ROOMS_INT_H

#include "ai.h"
#include "base.h"
#include "rooms.h"
#include "store.h"
#include "tabula.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct srv_lease srv_lease;
typedef struct srv_committer srv_committer;

#define SRV_COMMIT_THREADS_MAX 8 /* store writer threads at most */

/* A checked decision on its way to the store (commit.c), then back to its
 * room.  It holds a reference on `ack_to` and on `ack_id`. */
typedef struct srv_pending {
    srv_room *room;
    int n, seat;          /* decision number n (1-based), by this seat */
    tb_move move;
    bool by_ai;
    char text[TB_MOVE_TEXT];
    char at[SRV_TIME_LEN];
    srv_client *ack_to;   /* who hears the ack or the error; NULL for a computer */
    json_t *ack_id;
    struct srv_pending *next;
} srv_pending;

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
    int connected;              /* live clients holding this seat */
} srv_seat;

typedef struct srv_log_entry {
    int8_t seat;
    bool by_ai;
    char stage[24]; /* where the game stood before it: "Epoch II" (tb_stage_text) */
    char *said;     /* what it did, in players' words (tb_narrate, public); NULL if unknown */
} srv_log_entry;

struct srv_room {
    char id[SRV_ID_LEN + 1];
    pthread_mutex_t lock;
    srv_rooms *rooms;
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
    srv_client **clients;
    int nclients, client_cap;
    bool ai_queued;      /* an AI job for the current position is pending */
    bool commit_pending; /* a decision of this room is with the store writer */
    int hint_n;          /* the position (decisions made) a hint is for, -1: none */
    char *hint_text;     /* its message once computed (NULL while the search runs) */
    atomic_bool away;    /* another instance holds the game's lease (PostgreSQL):
                          * the room is stale and decides nothing until reloaded */
    struct srv_room *next; /* registry chain */
};

struct srv_rooms {
    srv_config cfg;
    srv_store *store;    /* the caller's; outlives the rooms */
    srv_ai_pool *ai;
    pthread_mutex_t registry_lock;
    srv_room **buckets;
    int nbuckets, nrooms;
    atomic_int running;  /* games in memory that are not over (the --max-games cap) */
    int resumed;
    srv_lease *lease;    /* several instances: renews leases, takes over free games */
    srv_committer *committer; /* writes decisions, then hands them back */
};

/* rooms.c: the registry */
/* The room if it is in memory and played here, without loading it. */
srv_room *srv_room_peek(srv_rooms *rooms, const char *id);
/* Adds a new room; the registry owns it from then on. */
void srv_room_register(srv_rooms *rooms, srv_room *room);
/* Rechecks a room whose lease this instance may have lost (lease.c). */
void srv_room_recheck(srv_rooms *rooms, srv_room *room);

/* room.c: one game */
/* Rebuilds a stored game; NULL and err when the store has no such game. */
srv_room *srv_room_load(srv_rooms *rooms, const char *id, char *err, size_t errlen);
/* Replaces a room's game by the stored one (after a lease came back), and
 * sends every client the new state; 0 on success. */
int srv_room_reload(srv_room *room, char *err, size_t errlen);
/* Another instance holds the game now: stop deciding, tell the clients. */
void srv_room_set_away(srv_room *room, const char *owner);
/* Resumes a loaded game: queues its AI seat if one is to move. */
void srv_room_resume(srv_room *room);
bool srv_room_running(srv_room *room);
json_t *srv_room_summary(srv_room *room);           /* takes the room lock */
json_t *srv_row_summary(const srv_game_row *row);   /* a game not in memory */
/* The AI pool's step: the position after `expect` decisions of room `owner`. */
void srv_room_ai_step(void *owner, int expect);
/* The store writer's answer for a decision (stored: 0 yes, 1 another
 * instance holds the game, -1 no, with why): applies, acknowledges and
 * broadcasts it, or tells its sender; frees p. */
void srv_room_committed(srv_pending *p, int stored, const char *why);

/* commit.c */
srv_committer *srv_committer_start(srv_rooms *rooms, char *err, size_t errlen);
/* Queues p; -1 (p not taken) once the writer is stopping. */
int srv_committer_push(srv_committer *q, srv_pending *p);
/* Writes and hands back everything queued, then joins the threads. */
void srv_committer_stop(srv_committer *q);
void srv_committer_free(srv_committer *q); /* stops it first */

/* lease.c */
srv_lease *srv_lease_start(srv_rooms *rooms, int port, char *err, size_t errlen);
void srv_lease_stop(srv_lease *lease); /* joins the thread and frees */

#endif
