/*
 * store.h — the server's persistence interface (src/server only).
 *
 * A store keeps games, their seats and every decision.  It is a small table
 * of functions (SQLite io_methods style): a backend embeds `srv_store` as the
 * first member of its own struct and points `m` at its methods.  SQLite
 * (store_sqlite.c) is the default; PostgreSQL (store_pg.c, DESIGN.md §9)
 * fills in the same table plus the lease methods that let several server
 * instances share one database.
 *
 * Invariants every backend keeps:
 *   - a call returns only after its write is durable against a crash of the
 *     server process (the server acknowledges a decision only after
 *     srv_store_methods.decision_add returned 0);
 *   - decisions of one game are numbered 1, 2, 3... without gaps, and a
 *     second write of the same number fails, changing nothing;
 *   - seat tokens are never stored, only their 32-byte hashes;
 *   - every method is safe to call from any thread (backends serialise);
 *   - a write that fails changes nothing, and the store stays whole (a
 *     full disk, an I/O error, a database server that went away): the same
 *     write works once the cause is gone;
 *   - an error text that begins with SRV_NOMEM_PREFIX says this process ran
 *     out of memory, not that storage failed (commit.c does not count it as
 *     storage failing: the next write may well work).
 *
 * Several instances on one database (backends with lease methods): a running
 * game is played by the one instance holding its lease.  The backend fences
 * by it: decision_add returns 1 and stores nothing when this instance does
 * not hold the game's lease, so an instance that lost a game (paused past
 * its lease, then resumed) can never write into it.
 */
#ifndef TB_SERVER_STORE_H
#define TB_SERVER_STORE_H

#include "tabula.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV_ID_LEN 12    /* characters of a game id */
#define SRV_NAME_LEN 48  /* bytes of a seat name, NUL included */
#define SRV_LEVEL_LEN 24
#define SRV_HASH_LEN 32
#define SRV_TIME_LEN 32
#define SRV_NOMEM_PREFIX "out of memory"

typedef struct srv_seat_row {
    char kind[8]; /* "human" or "ai" */
    char name[SRV_NAME_LEN];
    char level[SRV_LEVEL_LEN]; /* AI seats: the level asked for */
    uint8_t token_hash[SRV_HASH_LEN]; /* human seats; zero for AI */
    bool joined; /* a person has connected with the seat's token */
    bool open;     /* a free seat of an open table: no token until someone takes it */
    bool resigned; /* the person resigned (lobby.c) */
    int64_t account_id; /* accounts: the account the seat belongs to; 0: none */
} srv_seat_row;

typedef struct srv_game_row {
    char id[SRV_ID_LEN + 1];
    char game[32];
    int players;
    char *options; /* JSON object text (malloc'd) */
    uint64_t seed;
    char status[12]; /* "running" or "over" */
    char created[SRV_TIME_LEN];
    char finished[SRV_TIME_LEN]; /* "" while running */
    char *result; /* JSON text when over (malloc'd), else NULL */
    char *takebacks; /* game_load: JSON array of the game's take-backs (malloc'd), or NULL */
    int decisions;
    srv_seat_row seat[TB_MAX_SEATS];
    /* lobby (lobby.c): the creator's key, the absent-seat time, the
     * creation request's key; game_load fills the first two */
    bool has_creator;
    uint8_t creator_hash[SRV_HASH_LEN];
    int absent_after; /* seconds a human seat's turn may wait; 0: never handed over */
    bool has_request;
    uint8_t request_hash[SRV_HASH_LEN];
    char request_since[SRV_TIME_LEN]; /* an older request with that key is forgotten */
    /* accounts: a rated game (every person's seat an account); game_load,
     * games_list and account_games fill it */
    bool rated;
    char updated[SRV_TIME_LEN]; /* account_games: the last decision's time, else created */
} srv_game_row;

/* accounts (accounts.c): one account as the store keeps it. */
#define SRV_PWHASH_LEN 128 /* crypto_pwhash_STRBYTES */
typedef struct srv_account_row {
    int64_t id;
    char name[SRV_NAME_LEN];
    char pw_hash[SRV_PWHASH_LEN];
    char created[SRV_TIME_LEN];
    char lang[16];
    char email[256];
    bool email_confirmed;
} srv_account_row;

typedef struct srv_decision_row {
    int seat;
    char by[8]; /* "human" or "ai" */
    char *move; /* canonical text (malloc'd) */
} srv_decision_row;

/* One decision to store with decisions_add. */
typedef struct srv_decision_write {
    const char *id; /* the game */
    int n, seat;
    const char *move, *by, *at;
    int result; /* set by the store: 0 stored, 1 another instance holds the game, -1 failed */
} srv_decision_write;

/* One line of table chat (social.c), as chat_list reads it back. */
typedef struct srv_chat_row {
    int n;         /* the line's number in its game: 1, 2, 3... */
    int seat;      /* 0-based, as everywhere in the server */
    int decisions; /* decisions of the game made when the line was said */
    char name[SRV_NAME_LEN];
    char *text;    /* malloc'd */
    char at[SRV_TIME_LEN];
} srv_chat_row;

typedef struct srv_game_id {
    char id[SRV_ID_LEN + 1];
} srv_game_id;

/* What lease_take found. */
enum {
    SRV_LEASE_TAKEN = 0,       /* this instance holds it now (load the game afresh) */
    SRV_LEASE_ELSEWHERE = 1,   /* a live instance holds it; its address filled in */
    SRV_LEASE_NOT_RUNNING = 2, /* no such game, or it is over: nothing to hold */
    SRV_LEASE_MINE = 3,        /* this instance already held it */
};

typedef struct srv_store srv_store;

/* ratings (ratings.c): a rating as the store keeps it */
typedef struct srv_rating_row {
    char name[SRV_NAME_LEN]; /* the account's name */
    char game[32];
    double mu, sigma;
    int games, wins; /* rated games of the title, and first places in them */
} srv_rating_row;

typedef struct srv_history_row {
    char game_id[SRV_ID_LEN + 1];
    char game[32];
    char at[SRV_TIME_LEN];
    int rank;
    double mu, sigma; /* after the game */
} srv_history_row;

typedef struct srv_played_row {
    char id[SRV_ID_LEN + 1];
    char game[32];
    char status[12];
    char created[SRV_TIME_LEN], finished[SRV_TIME_LEN];
    int players, seat;
    int rank; /* the seat's rank when over, else 0 */
    bool rated;
} srv_played_row;

typedef struct srv_wins_row {
    char game[32];
    int played, wins; /* finished games, and those the account ranked first in */
} srv_wins_row;

typedef struct srv_player {
    char name[SRV_NAME_LEN];
    char created[SRV_TIME_LEN];
    srv_rating_row *ratings;
    int nratings;
    srv_history_row *history;
    int nhistory;
    srv_played_row *games;
    int ngames;
    srv_wins_row *wins;
    int nwins;
} srv_player;

void srv_player_clear(srv_player *p);
/* ---- turn e-mails (mail.c): what an account's e-mail needs ---- */
#define SRV_EMAIL_LEN 256 /* bytes of an e-mail address, NUL included */
typedef struct srv_mail_account {
    char name[SRV_NAME_LEN];
    char lang[16];              /* "" : English */
    char email[SRV_EMAIL_LEN];  /* "" : none given */
    bool confirmed;             /* its confirmation link was opened */
    bool pending;               /* a confirmation link is out */
    bool turn_emails;           /* not unsubscribed */
    char key[160];              /* the account's password hash: the key its unsubscribe
                                 * link is derived with (never leaves the server) */
    bool has_unsubscribe;
    uint8_t unsubscribe_hash[SRV_HASH_LEN];
} srv_mail_account;

typedef struct srv_store_methods {
    const char *name;
    /* How many threads should write decisions at once (commit.c): 1 for a
     * store that takes one writer at a time, more where the database merges
     * concurrent commits.  0 counts as 1. */
    int writers;
    /* Creates a game and its seats in one transaction.  With has_request:
     * 2 (nothing created) when a game was already created with that request
     * key since request_since. */
    int (*game_create)(srv_store *st, const srv_game_row *g, char *err, size_t errlen);
    /* The game created with a request key since `since`: 0 (id filled in),
     * 1 none, -1 error. */
    int (*request_find)(srv_store *st, const uint8_t key_hash[SRV_HASH_LEN], const char *since,
                        char id[SRV_ID_LEN + 1], char *err, size_t errlen);
    /* Gives free seat `seat` of a running game a name and a token: 0 taken,
     * 1 it was not free (someone else took it first), -1 error. */
    int (*seat_take)(srv_store *st, const char *id, int seat, const char *name,
                     const uint8_t token_hash[SRV_HASH_LEN], char *err, size_t errlen);
    int (*seat_resign)(srv_store *st, const char *id, int seat, char *err, size_t errlen);
    /* Deletes a game without decisions with everything of it: 0 deleted,
     * 1 no such game, 2 it has decisions (started: nothing deleted), -1. */
    int (*game_delete)(srv_store *st, const char *id, char *err, size_t errlen);
    /* Running games created before `before` (ISO time) without a decision. */
    int (*games_unstarted)(srv_store *st, const char *before, int limit, srv_game_id **ids,
                           int *count, char *err, size_t errlen);
    /* Appends decision number n (1-based; must be the next one).  1 (nothing
     * stored) when another instance holds the game's lease. */
    int (*decision_add)(srv_store *st, const char *id, int n, int seat, const char *move,
                        const char *by, const char *at, char *err, size_t errlen);
    /* Optional: several decisions (of different games) in one transaction,
     * so one commit serves them all.  Each row's `result` is set as
     * decision_add would return it; a row's failure leaves the others
     * stored.  -1 when the whole batch failed (every result -1, err says
     * why).  NULL: the caller writes the rows one by one with decision_add. */
    int (*decisions_add)(srv_store *st, srv_decision_write *rows, int count, char *err,
                         size_t errlen);
    /* Removes the decisions after the first `keep` of running game `id`
     * (undo, take back; docs/server.md) and, when `note` is not NULL, keeps
     * it with the game in the same transaction (a JSON object: an entry of
     * the record's "takebacks", docs/records.md).  1 (nothing changed) when
     * another instance holds the game's lease.  The room sends it through
     * the store writer (commit.c) like a decision, so the two never swap. */
    int (*decisions_truncate)(srv_store *st, const char *id, int keep, const char *note,
                              char *err, size_t errlen);
    /* Marks game `id` over with its result.  With `ranks` (one per seat,
     * 1 = first, a resignation last: lobby.c) and a rated game that was
     * still running, every account seat's rating for the game title and a
     * rating_history row are written IN THE SAME TRANSACTION (rating.h:
     * srv_rating_game), so the end and the ratings are stored together or
     * not at all (docs/ratings.md). */
    int (*game_finish)(srv_store *st, const char *id, const char *finished, const char *result,
                       const int *ranks, char *err, size_t errlen);
    int (*seat_joined)(srv_store *st, const char *id, int seat, char *err, size_t errlen);
    /* Reads one game with its seats and decisions; 1 when there is no such
     * game, -1 on an error. */
    int (*game_load)(srv_store *st, const char *id, srv_game_row *g, srv_decision_row **moves,
                     int *count, char *err, size_t errlen);
    /* Lists games, newest first: status "running", "over" or NULL for all.
     * Rows come with their result but without options and decisions; the
     * caller clears each row (srv_game_row_clear) and frees the array. */
    int (*games_list)(srv_store *st, const char *status, int limit, srv_game_row **rows,
                      int *count, char *err, size_t errlen);
    /* Closing also gives up every lease this instance holds. */
    void (*close)(srv_store *st);
    /* A small write that needs what a decision needs (the database's disk,
     * its server): 0 when it was stored, changing no game.  While storage
     * fails the store writer tries it every second to see it work again
     * (commit.c).  NULL: only the next decision tells. */
    int (*probe)(srv_store *st, char *err, size_t errlen);

    /* ---- several server instances on one database; NULL in a backend that
     * one server holds alone (SQLite: the lock file) ---- */
    /* Takes the lease of running game `id` if it is free (never held, or its
     * holder stopped or let it expire); returns SRV_LEASE_*, -1 on an error.
     * `owner` gets the holder's address for SRV_LEASE_ELSEWHERE ("" unknown). */
    int (*lease_take)(srv_store *st, const char *id, char *owner, size_t ownerlen, char *err,
                      size_t errlen);
    /* Extends every lease this instance holds; *ids lists the games still
     * held (malloc'd).  A game missing from it was taken by another
     * instance or is over. */
    int (*lease_renew)(srv_store *st, srv_game_id **ids, int *count, char *err, size_t errlen);
    /* Running games whose lease is free (oldest first, at most `limit`). */
    int (*lease_orphans)(srv_store *st, int limit, srv_game_id **ids, int *count, char *err,
                         size_t errlen);
    /* The address other instances send this instance's players to. */
    int (*instance_address)(srv_store *st, const char *address, char *err, size_t errlen);

    /* ---- game reviews (review.c), one per finished game ---- */
    /* Stores the review of game `id` (JSON text), replacing any earlier one. */
    int (*review_save)(srv_store *st, const char *id, const char *json, const char *at,
                       char *err, size_t errlen);
    /* The stored review (malloc'd JSON text); 1 when there is none, -1 on an error. */
    int (*review_load)(srv_store *st, const char *id, char **json, char *err, size_t errlen);

    /* ---- table chat and "Play again" (social.c) ---- */
    /* Stores chat line number n (1-based: the next one) of game `id`, said
     * when the game had `decisions` decisions; a second line with that
     * number fails, changing nothing. */
    int (*chat_add)(srv_store *st, const char *id, int n, int seat, const char *name,
                    const char *text, const char *at, int decisions, char *err, size_t errlen);
    /* The last `limit` lines of game `id` (limit <= 0: all), oldest first,
     * each with the decisions made when it was said; the caller frees them
     * with srv_chat_free. */
    int (*chat_list)(srv_store *st, const char *id, int limit, srv_chat_row **rows, int *count,
                     char *err, size_t errlen);
    /* The game "Play again" made of game `id` and the game `id` plays again
     * ("" for none): 0, 1 when there is no such game, -1 on an error. */
    int (*rematch_get)(srv_store *st, const char *id, char rematch[SRV_ID_LEN + 1],
                       char rematch_of[SRV_ID_LEN + 1], char *err, size_t errlen);
    /* Links game `fresh` as the rematch of game `old` in one transaction:
     * 0 linked; 1 `old` had a rematch already (its id in `existing`, nothing
     * changed); -1 on an error. */
    int (*rematch_link)(srv_store *st, const char *old, const char *fresh,
                        char existing[SRV_ID_LEN + 1], char *err, size_t errlen);
    /* ---- ratings and profiles (ratings.c; issue 28, area "ratings") ---- */
    /* The accounts' ratings of game title `game`, best shown rating
     * (mu - 3 sigma) first, at most `limit`. */
    int (*ratings_list)(srv_store *st, const char *game, int limit, srv_rating_row **rows,
                        int *count, char *err, size_t errlen);
    /* The account named `name` (compared case-folded) with its ratings, its
     * rating history (oldest first), its games (newest first, at most
     * `limit`) and its wins by game title: 0, 1 no such account, -1.  The
     * caller frees with srv_player_clear. */
    int (*player_load)(srv_store *st, const char *name, int limit, srv_player *p, char *err,
                       size_t errlen);
    /* ---- accounts and sessions (accounts.c; issue 28, area "accounts") ---- */
    /* A new account: 0 (*id set), 1 the name (its folded key) is taken, -1. */
    int (*account_create)(srv_store *st, const char *name, const char *name_key,
                          const char *pw_hash, const char *created, int64_t *id, char *err,
                          size_t errlen);
    /* One account, by its folded name when name_key is not NULL, else by id:
     * 0 found, 1 none, -1. */
    int (*account_find)(srv_store *st, const char *name_key, int64_t id, srv_account_row *out,
                        char *err, size_t errlen);
    /* Changes an account's password hash (pw_hash not NULL: every session but
     * `keep` (may be NULL) ends in the same transaction) and/or its language
     * (lang not NULL).  0 done, 1 no such account, -1. */
    int (*account_update)(srv_store *st, int64_t id, const char *pw_hash,
                          const uint8_t keep[SRV_HASH_LEN], const char *lang, char *err,
                          size_t errlen);
    /* Deletes an account in one transaction: its seats keep `former_name`
     * and no account, its sessions, ratings, rating history and turn-e-mail
     * rows go.  0 done, 1 no such account, -1. */
    int (*account_delete)(srv_store *st, int64_t id, const char *former_name, char *err,
                          size_t errlen);
    /* A new session of the account; its sessions idle since before
     * `idle_since` go in the same transaction (nobody will present them). */
    int (*session_add)(srv_store *st, const uint8_t hash[SRV_HASH_LEN], int64_t account,
                       const char *now, const char *idle_since, char *err, size_t errlen);
    /* The account of a session: 0 (*account set), 1 none or idle since before
     * `idle_since` (then deleted), -1.  Its last use becomes `now` when it
     * was before `touch_before`. */
    int (*session_find)(srv_store *st, const uint8_t hash[SRV_HASH_LEN], const char *idle_since,
                        const char *touch_before, const char *now, int64_t *account, char *err,
                        size_t errlen);
    int (*session_delete)(srv_store *st, const uint8_t hash[SRV_HASH_LEN], char *err,
                          size_t errlen);
    /* Every game with a seat of the account, with its seats (and their
     * accounts), rated and updated; no options, result or decisions.  The
     * caller clears each row and frees the array. */
    int (*account_games)(srv_store *st, int64_t account, srv_game_row **rows, int *count,
                         char *err, size_t errlen);
    /* Gives seat `seat` of game `id` (a person's, taken) to an account,
     * the seat then named `name` (the account's): 0 done (or it was that
     * account's already), 1 it belongs to another account or is no
     * person's seat, -1. */
    int (*seat_set_account)(srv_store *st, const char *id, int seat, int64_t account,
                            const char *name, char *err, size_t errlen);

    /* ---- turn e-mails (mail.c); accounts are made by accounts.c ---- */
    /* The account's e-mail state: 0, 1 no such account, -1 an error. */
    int (*mail_account)(srv_store *st, int64_t account, srv_mail_account *a, char *err,
                        size_t errlen);
    /* Gives the account a new address ("" none), unconfirmed, whose
     * confirmation link hashes to `token_hash` (NULL: no link out). */
    int (*mail_address)(srv_store *st, int64_t account, const char *email,
                        const uint8_t *token_hash, char *err, size_t errlen);
    /* Confirms the address whose link hashes to `token_hash`, once: 0 (the
     * link is used up; *account set), 1 no such link. */
    int (*mail_confirm)(srv_store *st, const uint8_t token_hash[SRV_HASH_LEN], int64_t *account,
                        char *err, size_t errlen);
    /* Keeps the hash of the account's current unsubscribe link. */
    int (*mail_unsubscribe_key)(srv_store *st, int64_t account,
                                const uint8_t hash[SRV_HASH_LEN], char *err, size_t errlen);
    /* Turns turn e-mails off for the account whose unsubscribe link hashes to
     * `hash`: 0 (*account set), 1 no such link. */
    int (*mail_unsubscribe)(srv_store *st, const uint8_t hash[SRV_HASH_LEN], int64_t *account,
                            char *err, size_t errlen);
    int (*mail_turn_emails)(srv_store *st, int64_t account, bool on, char *err, size_t errlen);
    /* Claims the e-mail of game `id`'s turn after `n` decisions for the
     * account before sending it: 0 claimed (send it), 1 claimed already (by
     * this server or another on the same database: send nothing). */
    int (*mail_turn_claim)(srv_store *st, const char *id, int n, int64_t account, const char *at,
                           char *err, size_t errlen);
} srv_store_methods;

struct srv_store {
    const srv_store_methods *m;
};

/* store_sqlite.c: opens (creating and migrating) a SQLite database. */
srv_store *srv_store_sqlite_open(const char *path, bool full_sync, char *err, size_t errlen);
/* The schema version this build writes (docs/server.md). */
int srv_store_sqlite_version(void);

/* store_pg.c: connects to PostgreSQL (url: postgresql://… or postgres://…),
 * creating and migrating the schema; a lease lasts lease_seconds unless
 * renewed. */
srv_store *srv_store_pg_open(const char *url, int lease_seconds, char *err, size_t errlen);
int srv_store_pg_version(void);
/* Whether a --db value names a PostgreSQL database rather than a file. */
bool srv_store_is_pg_url(const char *db);
/* The URL without its password (user@host:port/dbname), for messages. */
void srv_store_pg_label(const char *url, char *out, size_t outlen);

void srv_game_row_clear(srv_game_row *g); /* frees options and result */
void srv_decisions_free(srv_decision_row *moves, int count);
void srv_chat_free(srv_chat_row *rows, int count);

#endif
