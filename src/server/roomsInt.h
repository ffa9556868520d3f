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
    char *ack_text;       /* the ack, built before the store is asked (malloc'd; NULL: none) */
    struct tb_state *back; /* an undo's position, replayed before the store is asked */
    /* Undo or take back (undo.c): not a decision but the removal of every
     * decision after the first `keep`; `note` (malloc'd JSON, take back
     * only) goes into the record.  It travels the same queue as decisions,
     * so a decision and its undo are stored in the order they were made. */
    bool undo;
    int keep;
    char *note;
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
    /* lobby.c */
    bool open;                  /* a free seat: no person yet, no token */
    bool resigned;              /* the person resigned: the computer plays it */
    bool away;                  /* the person let the turn wait too long: the
                                 * computer plays it until they are back */
} srv_seat;

typedef struct srv_log_entry {
    int8_t seat;
    bool by_ai;
    char stage[24]; /* where the game stood before it: "Epoch II" (tb_stage_text) */
    char *said;     /* what it did, in players' words (tb_narrate, public); NULL if unknown */
    char *said_msg;  /* the same as a message (JSON text, docs/translating.md); NULL if unknown */
    char *stage_msg; /* stage as a message (tb_stage_json); NULL if unknown */
    bool reveals_known; /* reveals and chance below were worked out (undo.c) */
    bool chance;        /* tb_settles_chance of this decision: a card drawn, a shuffle */
    long reveals;       /* tb_reveals of this decision: seats that learned something */
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
    json_t *takebacks;   /* the record's "takebacks" array (undo.c), or NULL */
    srv_client **clients;
    int nclients, client_cap;
    bool ai_queued;      /* an AI job for the current position is pending */
    bool commit_pending; /* a decision of this room is with the store writer */
    int hint_n;          /* the position (decisions made) a hint is for, -1: none */
    char *hint_text;     /* its message once computed (NULL while the search runs) */
    int deduce_n[TB_MAX_SEATS];      /* per seat: the position its deduction is for, -1: none */
    char *deduce_text[TB_MAX_SEATS]; /* its message once computed (NULL meanwhile) */
    atomic_bool away;    /* another instance holds the game's lease (PostgreSQL):
                          * the room is stale and decides nothing until reloaded */
    /* lobby.c */
    bool has_creator;    /* the creator's key can delete the game before it starts */
    uint8_t creator_hash[SRV_HASH_LEN];
    int absent_after;    /* seconds a person's turn may wait; 0: never handed over */
    uint64_t turn_since_us; /* when the current position arrived (srv_now_us) */
    bool conceded;       /* over by a resignation, not by the rules */
    int resigned_seat;   /* who resigned when conceded */
    atomic_bool deleted; /* deleted by its creator or expired: no such game any more */
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
/* The computer's decision for the seat to move in `truth` (a copy), with
 * the game's history `rec` (a copy of the room's record taken under the
 * lock; its boards found in `boards`): run on an AI worker with no lock
 * held, touching no room.  The history's start is replayed from the copy,
 * and tb_agent_decide_game infers hidden roles from it where the rule says
 * so, exactly as tabula play does (tests/unit/test_infer.c). */
tb_move srv_room_search(const tb_data_set *boards, const tb_agent *agent, const tb_state *truth,
                        const tb_record *rec, const tb_budget *budget, uint64_t seed,
                        tb_agent_report *report);
/* The AI pool's step: job `kind` (room.c's ROOM_JOB_*) for the position
 * after `expect` decisions of room `owner`. */
void srv_room_ai_step(void *owner, int kind, int expect);
/* The store writer's answer for a decision (stored: 0 yes, 1 another
 * instance holds the game, -1 no, with why; SRV_STORE_DOWN no, because
 * storage is failing, which the writer logged once already): applies,
 * acknowledges and broadcasts it, or tells its sender; frees p. */
void srv_room_committed(srv_pending *p, int stored, const char *why);
#define SRV_STORE_DOWN (-2)

/* commit.c: the store's health.  A write reports what it found: ok false
 * when the store failed as a whole (why says how), true when it stored
 * something.  The log says so once when storage starts failing and once
 * when it works again; meanwhile srv_rooms_store_failing (rooms.h) is
 * true and /api/health answers 503. */
void srv_store_report(srv_rooms *rooms, bool ok, const char *why);

/* room.c: an error message {"type":"error",...} to one connection */
/* An error whose words are a message (msg.h; its reference taken): "message"
 * in English and "msg" the message itself, for each reader's language. */
void srv_client_error_msg(srv_client *c, const json_t *id, const char *code, json_t *msg);
void srv_client_error(srv_client *c, const json_t *id, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* room.c, for lobby.c and lease.c (room locked) */
/* The refusals every seat's request to change the game shares: a spectator
 * (`spectator_why` says what only a seat can do), a game another server
 * instance plays now, a game that cannot continue.  True when one applied
 * (the error is sent; nothing changed). */
bool srv_room_refuse_locked(srv_room *r, srv_client *c, const json_t *id, int seat,
                            const char *spectator_why);
/* Over by the rules, or cut short by a resignation (seats.c). */
bool srv_room_over_locked(const srv_room *r);
json_t *srv_room_seat_json_locked(const srv_room *r, int seat);
/* Every connection gets the state and the presence; the computer moves if
 * it is its turn. */
void srv_room_refresh_locked(srv_room *r);
void srv_room_broadcast_locked(srv_room *r, json_t *msg); /* steals msg */
void srv_room_finish_locked(srv_room *r);

/* seats.c: what a room knows of its seats (room locked unless said
 * otherwise).  A creation request's key and absent time, read by lobby.c: */
typedef struct srv_lobby_create {
    bool has_key;
    char key[72];                 /* the client's request key (secret, like a token) */
    uint8_t key_hash[SRV_HASH_LEN];
    char since[SRV_TIME_LEN];     /* a key older than this is forgotten */
    int absent_after;             /* -1: the server's default */
} srv_lobby_create;
#define SRV_ABSENT_DEFAULT_S 180 /* --absent-after */
/* The label a request key derives seat `seat`'s token from (secret.c). */
void srv_seats_token_label(char *label, size_t len, const char *id, int seat);
/* Seat tokens (human seats not open) and the creator's key of a new room. */
void srv_seats_create_keys(srv_room *r, const srv_lobby_create *lc, char tokens[][64],
                           char *creator, size_t creatorlen);
void srv_seats_create_row(srv_room *r, const srv_lobby_create *lc, srv_game_row *row);
void srv_seats_reply_extras(const srv_room *r, json_t *reply);
void srv_seats_load(srv_room *r, const srv_game_row *row);
void srv_seats_reloaded(srv_room *r, const srv_room *fresh); /* srv_room_reload */
/* The computer that stands in for a person (resigned or away): `normal`. */
void srv_seats_stand_in(srv_room *r, int seat);
bool srv_seats_computer_plays(const srv_room *r, int seat);
bool srv_seats_waiting(const srv_room *r); /* a seat is still free */
void srv_seats_new_turn(srv_room *r);
/* The person of `seat` acts: an absent seat is theirs again (true then). */
bool srv_seats_seen(srv_room *r, int seat);
void srv_seats_log_words(const srv_room *r, int k, char *said, size_t saidlen);
/* srv_seats_log_words for the message form: `said` (its reference taken)
 * inside the same words, or `said` itself when there are none to add. */
json_t *srv_seats_log_msg(const srv_room *r, int k, json_t *said);
void srv_seats_seat_json(const srv_seat *st, json_t *o);
void srv_seats_summary_json(const srv_room *r, json_t *j);
void srv_seats_row_seat_json(const srv_seat_row *s, json_t *o);
void srv_seats_row_summary_json(const srv_game_row *row, json_t *j);
/* A resignation changes the result: who ranks where, who wins. */
bool srv_seats_result_changed(const srv_room *r);
char *srv_seats_result_json(const srv_room *r, bool over);
json_t *srv_seats_winners(const srv_room *r);

/* room.c, for lobby.c: a new room from a creation request (0 and *made,
 * else the HTTP status of *reply), its store row (-1: out of memory), and
 * its start once registered. */
int srv_room_make(srv_rooms *s, const json_t *req, srv_room **made, uint64_t *seed, char **reply);
int srv_room_row(const srv_room *r, uint64_t seed, srv_game_row *row);
void srv_room_start(srv_room *r);
/* Tells everyone at the table what happened to a seat (room locked). */
void srv_room_notice_locked(srv_room *r, const char *code, int seat, const char *text);

/* undo.c: taking decisions back (docs/server.md) */
/* Whether `seat` may undo its last decision now (room locked): 0 yes, and
 * *keep is the decision count after it; -1 no, with why in players' words
 * and a machine code; *msg (when msg is not NULL) the same words as a
 * message for each reader's language (the caller's reference; NULL when
 * memory ran out). */
int srv_undo_check(srv_room *room, int seat, int *keep, const char **code, char *why,
                   size_t whylen, json_t **msg);
/* Works out and keeps, in log entry k, what decision k (the move `move`,
 * played from `before`) showed and whether it settled chance (room locked). */
void srv_undo_note(srv_room *room, int k, const tb_state *before, tb_move move);
/* The same for "take back my last turn" against the computer: back to the
 * start of the seat's latest turn, the computer's replies undone with it;
 * on success *note is the record's note (malloc'd JSON text). */
int srv_takeback_check(srv_room *room, int seat, int *keep, char **note, const char **code,
                       char *why, size_t whylen, json_t **msg);

/* commit.c: below the room, which it calls back through `committed`
 * (srv_room_committed) for each decision it stored or could not store. */
typedef void (*srv_committed_fn)(srv_pending *p, int stored, const char *why);
srv_committer *srv_committer_start(srv_rooms *rooms, srv_committed_fn committed, char *err,
                                   size_t errlen);
/* Queues p; -1 (p not taken) once the writer is stopping. */
int srv_committer_push(srv_committer *q, srv_pending *p);
/* Writes and hands back everything queued, then joins the threads. */
void srv_committer_stop(srv_committer *q);
void srv_committer_free(srv_committer *q); /* stops it first */

#endif
