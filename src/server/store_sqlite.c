/*
 * store_sqlite.c — the SQLite store: one database file in WAL mode.
 *
 * Schema (docs/server.md): games, seats, decisions, versioned by PRAGMA
 * user_version and brought up to date by the migrations table below, each
 * applied in its own transaction, so an old database is upgraded in place
 * and a database from a newer build is refused rather than damaged.
 *
 * Invariants: one connection, used under one mutex; every write is a single
 * transaction that either commits or changes nothing.  With WAL and
 * synchronous=NORMAL a committed transaction survives a crash of the
 * process (kill -9); synchronous=FULL (full_sync) also survives a crash of
 * the machine, at the price of an fsync per decision.
 */
#include "store.h"
#include "rating.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sqlstore {
    srv_store base;
    sqlite3 *db;
    pthread_mutex_t lock;
    sqlite3_stmt *add_decision, *finish, *joined;
} sqlstore;

/* Migration k (1-based) brings the schema from version k-1 to k. */
static const char *const sqlstore_migrations[] = {
    /* 1: games, seats, decisions */
    "CREATE TABLE games ("
    "  id TEXT PRIMARY KEY,"
    "  game TEXT NOT NULL,"
    "  players INTEGER NOT NULL,"
    "  options TEXT NOT NULL DEFAULT '{}',"
    "  seed TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('running','over')),"
    "  created TEXT NOT NULL,"
    "  finished TEXT,"
    "  result TEXT"
    ");"
    "CREATE INDEX games_status ON games(status, created);"
    "CREATE TABLE seats ("
    "  game_id TEXT NOT NULL REFERENCES games(id),"
    "  seat INTEGER NOT NULL,"
    "  kind TEXT NOT NULL CHECK (kind IN ('human','ai')),"
    "  name TEXT NOT NULL,"
    "  level TEXT NOT NULL DEFAULT '',"
    "  token_hash BLOB,"
    "  joined INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (game_id, seat)"
    ");"
    "CREATE TABLE decisions ("
    "  game_id TEXT NOT NULL REFERENCES games(id),"
    "  n INTEGER NOT NULL,"
    "  seat INTEGER NOT NULL,"
    "  move TEXT NOT NULL,"
    "  by TEXT NOT NULL CHECK (by IN ('human','ai')),"
    "  at TEXT NOT NULL,"
    "  PRIMARY KEY (game_id, n)"
    ");",
    /* 2: the review of a finished game (review.c), one per game */
    "CREATE TABLE reviews ("
    "  game_id TEXT PRIMARY KEY REFERENCES games(id),"
    "  review TEXT NOT NULL,"
    "  at TEXT NOT NULL"
    ");",
    /* 3 (lobby.c): open seats, resignations, the creator's key, absent
     * seats, idempotent creation */
    "ALTER TABLE seats ADD COLUMN is_open INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN resigned INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE game_lobby ("
    "  game_id TEXT PRIMARY KEY REFERENCES games(id),"
    "  creator_hash BLOB,"
    "  absent_after INTEGER NOT NULL DEFAULT 0"
    ");"
    "CREATE TABLE create_requests ("
    "  key_hash BLOB PRIMARY KEY,"
    "  game_id TEXT NOT NULL REFERENCES games(id),"
    "  at TEXT NOT NULL"
    ");"
    "CREATE INDEX create_requests_game ON create_requests(game_id);",
    /* 4: take-backs against the computer, kept for the record */
    "CREATE TABLE takebacks ("
    "  game_id TEXT NOT NULL REFERENCES games(id),"
    "  k INTEGER NOT NULL,"
    "  note TEXT NOT NULL,"
    "  PRIMARY KEY (game_id, k)"
    ");",    /* 5: players who come back: accounts and their sessions, a seat that
     * belongs to an account, rated games, "play again", table chat,
     * ratings with their history, and the turn e-mails already sent.
     * Deleting an account is explicit (accounts.c): its seats keep a neutral
     * name with account_id NULL, and its sessions, ratings, history and
     * e-mail rows go in the same transaction. */
    "CREATE TABLE accounts ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  name_key TEXT NOT NULL UNIQUE," /* the name folded for comparison */
    "  pw_hash TEXT NOT NULL,"         /* crypto_pwhash_str: Argon2id */
    "  created TEXT NOT NULL,"
    "  lang TEXT NOT NULL DEFAULT '',"
    "  email TEXT NOT NULL DEFAULT '',"
    "  email_confirmed INTEGER NOT NULL DEFAULT 0,"
    "  email_token_hash BLOB,"     /* the pending confirmation link */
    "  unsubscribe_hash BLOB,"     /* the one-click unsubscribe link */
    "  turn_emails INTEGER NOT NULL DEFAULT 1"
    ");"
    "CREATE TABLE sessions ("
    "  token_hash BLOB PRIMARY KEY,"
    "  account_id BIGINT NOT NULL REFERENCES accounts (id),"
    "  created TEXT NOT NULL,"
    "  last_used TEXT NOT NULL"
    ");"
    "CREATE INDEX sessions_account ON sessions (account_id);"
    "ALTER TABLE seats ADD COLUMN account_id BIGINT REFERENCES accounts (id);"
    "CREATE INDEX seats_account ON seats (account_id);"
    "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE games ADD COLUMN rematch_of TEXT;" /* the game this one plays again */
    "ALTER TABLE games ADD COLUMN rematch TEXT;"    /* the game "Play again" made of it */
    "CREATE TABLE chat ("
    "  game_id TEXT NOT NULL REFERENCES games (id),"
    "  n INTEGER NOT NULL,"
    "  seat INTEGER NOT NULL,"
    "  name TEXT NOT NULL,"
    "  text TEXT NOT NULL,"
    "  at TEXT NOT NULL,"
    "  decisions INTEGER NOT NULL DEFAULT 0," /* decisions made when it was said */
    "  PRIMARY KEY (game_id, n)"
    ");"
    "CREATE TABLE ratings ("
    "  account_id BIGINT NOT NULL REFERENCES accounts (id),"
    "  game TEXT NOT NULL,"
    "  mu DOUBLE PRECISION NOT NULL,"
    "  sigma DOUBLE PRECISION NOT NULL,"
    "  games INTEGER NOT NULL DEFAULT 0,"
    "  wins INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (account_id, game)"
    ");"
    "CREATE INDEX ratings_game ON ratings (game, mu);"
    "CREATE TABLE rating_history ("
    "  account_id BIGINT NOT NULL REFERENCES accounts (id),"
    "  game_id TEXT NOT NULL REFERENCES games (id),"
    "  game TEXT NOT NULL,"
    "  at TEXT NOT NULL,"
    "  rank INTEGER NOT NULL," /* 1 = first; ties share a rank */
    "  mu DOUBLE PRECISION NOT NULL,"
    "  sigma DOUBLE PRECISION NOT NULL,"
    "  PRIMARY KEY (account_id, game_id)"
    ");"
    "CREATE TABLE turn_emails ("
    "  game_id TEXT NOT NULL REFERENCES games (id),"
    "  n INTEGER NOT NULL," /* decisions played when the turn began */
    "  account_id BIGINT NOT NULL REFERENCES accounts (id),"
    "  at TEXT NOT NULL,"
    "  PRIMARY KEY (game_id, n, account_id)"
    ");",
};

#define SQLSTORE_VERSION ((int)(sizeof sqlstore_migrations / sizeof sqlstore_migrations[0]))

int srv_store_sqlite_version(void)
{
    return SQLSTORE_VERSION;
}

static int sqlstore_fail(sqlstore *s, char *err, size_t errlen, const char *what)
{
    if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_NOMEM) /* memory's failure, not the disk's */
        snprintf(err, errlen, SRV_NOMEM_PREFIX " (database: %s)", what);
    else
        snprintf(err, errlen, "database: %s: %s", what, sqlite3_errmsg(s->db));
    return -1;
}

static int sqlstore_exec(sqlstore *s, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        if ((rc & 0xff) == SQLITE_NOMEM) /* memory's failure, not the disk's */
            snprintf(err, errlen, SRV_NOMEM_PREFIX " (database)");
        else
            snprintf(err, errlen, "database: %s", msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* A transaction under the store's lock: a write one (BEGIN IMMEDIATE: the
 * database's write lock at once) or a read one (one consistent snapshot of
 * several tables).  On failure the lock is released again and -1 returned.
 * sqlstore_write_end or sqlstore_read_end closes it. */
/* Ends whatever transaction is still open (lock held).  A COMMIT or
 * ROLLBACK can itself fail when memory runs out (sqlite3_exec prepares a
 * statement): it is tried again, so one failure never leaves a transaction
 * open for every later request to trip over. */
static void sqlstore_rollback_open(sqlstore *s)
{
    for (int i = 0; i < 8 && !sqlite3_get_autocommit(s->db); i++)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static int sqlstore_begin(sqlstore *s, bool write, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->lock);
    sqlstore_rollback_open(s); /* none should be: a safeguard */
    if (sqlstore_exec(s, write ? "BEGIN IMMEDIATE" : "BEGIN", err, errlen)) {
        sqlstore_rollback_open(s);
        pthread_mutex_unlock(&s->lock);
        return -1;
    }
    return 0;
}

/* Commits when rc is 0 (a failed commit makes it -1), else rolls back, so the
 * transaction either commits whole or changes nothing; releases the lock and
 * returns rc. */
static int sqlstore_write_end(sqlstore *s, int rc, char *err, size_t errlen)
{
    if (rc == 0 && sqlstore_exec(s, "COMMIT", err, errlen))
        rc = -1;
    if (rc != 0)
        sqlstore_rollback_open(s);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static void sqlstore_read_end(sqlstore *s)
{
    if (sqlstore_exec(s, "COMMIT", NULL, 0))
        sqlstore_rollback_open(s);
    pthread_mutex_unlock(&s->lock);
}

static int sqlstore_user_version(sqlstore *s)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

static int sqlstore_migrate(sqlstore *s, char *err, size_t errlen)
{
    int have = sqlstore_user_version(s);
    if (have < 0)
        return sqlstore_fail(s, err, errlen, "reading the schema version");
    if (have > SQLSTORE_VERSION) {
        snprintf(err, errlen,
                 "database: schema version %d is newer than this build knows (%d); "
                 "use a newer tabula",
                 have, SQLSTORE_VERSION);
        return -1;
    }
    for (int v = have; v < SQLSTORE_VERSION; v++) {
        char bump[64];
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d;", v + 1);
        if (sqlstore_begin(s, true, err, errlen))
            return -1;
        int rc = sqlstore_exec(s, sqlstore_migrations[v], err, errlen);
        if (rc == 0)
            rc = sqlstore_exec(s, bump, err, errlen);
        if (sqlstore_write_end(s, rc, err, errlen))
            return -1;
    }
    return 0;
}

static int sqlstore_prepare(sqlstore *s, const char *sql, sqlite3_stmt **st, char *err,
                            size_t errlen)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
        return sqlstore_fail(s, err, errlen, "preparing a statement");
    return 0;
}

/* Runs a prepared write statement to completion and resets it. */
static int sqlstore_step_done(sqlstore *s, sqlite3_stmt *st, char *err, size_t errlen,
                              const char *what)
{
    int rc = sqlite3_step(st);
    int ok = rc == SQLITE_DONE;
    if (!ok)
        sqlstore_fail(s, err, errlen, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return ok ? 0 : -1;
}

/* Binds a decision to the add_decision statement (which stores it only as
 * the next decision of its game). */
static void sqlstore_bind_decision(sqlite3_stmt *st, const char *id, int n, int seat,
                                   const char *move, const char *by, const char *at)
{
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, n);
    sqlite3_bind_int(st, 3, seat);
    sqlite3_bind_text(st, 4, move, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, by, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, at, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 8, n);
}

/* The lobby rows of a new game, inside game_create's transaction: 2 when
 * its request key already made a game since request_since. */
static int sqlstore_create_lobby(sqlstore *s, const srv_game_row *g, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlstore_prepare(s,
                         "INSERT INTO game_lobby (game_id, creator_hash, absent_after)"
                         " VALUES (?, ?, ?)",
                         &st, err, errlen))
        return -1;
    sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
    if (g->has_creator)
        sqlite3_bind_blob(st, 2, g->creator_hash, SRV_HASH_LEN, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int(st, 3, g->absent_after);
    int rc = sqlstore_step_done(s, st, err, errlen, "adding the game's lobby row");
    sqlite3_finalize(st);
    if (rc || !g->has_request)
        return rc;
    /* A key seen recently keeps its game; an old one is taken over. */
    if (sqlstore_prepare(s,
                         "INSERT INTO create_requests (key_hash, game_id, at) VALUES (?1, ?2, ?3)"
                         " ON CONFLICT (key_hash) DO UPDATE SET game_id = excluded.game_id,"
                         " at = excluded.at WHERE create_requests.at < ?4",
                         &st, err, errlen))
        return -1;
    sqlite3_bind_blob(st, 1, g->request_hash, SRV_HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, g->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, g->created, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, g->request_since, -1, SQLITE_STATIC);
    rc = sqlstore_step_done(s, st, err, errlen, "remembering the creation request");
    sqlite3_finalize(st);
    if (rc == 0 && sqlite3_changes(s->db) != 1)
        rc = 2;
    return rc;
}

static int sqlstore_game_create(srv_store *base, const srv_game_row *g, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    int rc = -1;
    sqlite3_stmt *gst = NULL, *sst = NULL;
    if (sqlstore_prepare(s,
                         "INSERT INTO games (id, game, players, options, seed, status, created,"
                         " rated) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)",
                         &gst, err, errlen) ||
        sqlstore_prepare(s,
                         "INSERT INTO seats (game_id, seat, kind, name, level, token_hash, is_open,"
                         " account_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         &sst, err, errlen))
        goto done;
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)g->seed);
    sqlite3_bind_text(gst, 1, g->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(gst, 2, g->game, -1, SQLITE_STATIC);
    sqlite3_bind_int(gst, 3, g->players);
    sqlite3_bind_text(gst, 4, g->options ? g->options : "{}", -1, SQLITE_STATIC);
    sqlite3_bind_text(gst, 5, seed, -1, SQLITE_STATIC);
    sqlite3_bind_text(gst, 6, g->created, -1, SQLITE_STATIC);
    sqlite3_bind_int(gst, 7, g->rated);
    if (sqlstore_step_done(s, gst, err, errlen, "adding the game"))
        goto done;
    for (int i = 0; i < g->players; i++) {
        const srv_seat_row *r = &g->seat[i];
        sqlite3_bind_text(sst, 1, g->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(sst, 2, i);
        sqlite3_bind_text(sst, 3, r->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(sst, 4, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(sst, 5, r->level, -1, SQLITE_STATIC);
        if (strcmp(r->kind, "human") == 0 && !r->open)
            sqlite3_bind_blob(sst, 6, r->token_hash, SRV_HASH_LEN, SQLITE_STATIC);
        else
            sqlite3_bind_null(sst, 6);
        sqlite3_bind_int(sst, 7, r->open);
        if (r->account_id > 0)
            sqlite3_bind_int64(sst, 8, r->account_id);
        else
            sqlite3_bind_null(sst, 8);
        if (sqlstore_step_done(s, sst, err, errlen, "adding a seat"))
            goto done;
    }
    rc = sqlstore_create_lobby(s, g, err, errlen);
done:
    sqlite3_finalize(gst);
    sqlite3_finalize(sst);
    return sqlstore_write_end(s, rc, err, errlen);
}

static int sqlstore_decision_add(srv_store *base, const char *id, int n, int seat,
                                 const char *move, const char *by, const char *at, char *err,
                                 size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->add_decision;
    sqlstore_bind_decision(st, id, n, seat, move, by, at);
    int rc = sqlstore_step_done(s, st, err, errlen, "storing a decision");
    if (rc == 0 && sqlite3_changes(s->db) != 1) {
        snprintf(err, errlen, "database: decision %d of game %s is not the next one", n, id);
        rc = -1;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* Many decisions, one transaction: one commit (and at most one WAL
 * checkpoint) for the whole batch.  A row that is not the next decision of
 * its game fails alone (it inserts nothing).  A statement that fails (a
 * full disk, an I/O error: SQLite may have rolled the whole transaction
 * back already, and the next rows would then run outside it) fails the
 * batch: everything is rolled back and every row reported unstored. */
static int sqlstore_decisions_add(srv_store *base, srv_decision_write *rows, int count, char *err,
                                  size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    for (int i = 0; i < count; i++)
        rows[i].result = -1;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    sqlite3_stmt *st = s->add_decision;
    for (int i = 0; i < count; i++) {
        srv_decision_write *w = &rows[i];
        sqlstore_bind_decision(st, w->id, w->n, w->seat, w->move, w->by, w->at);
        if (sqlstore_step_done(s, st, err, errlen, "storing a decision")) {
            sqlstore_write_end(s, -1, err, errlen);
            for (int k = 0; k < count; k++)
                rows[k].result = -1;
            return -1;
        }
        if (sqlite3_changes(s->db) == 1)
            w->result = 0;
    }
    if (sqlstore_write_end(s, 0, err, errlen)) {
        for (int i = 0; i < count; i++)
            rows[i].result = -1;
        return -1;
    }
    return 0;
}

/* Undo and take back: the decisions after `keep` go, and the take-back's
 * note (if any) is kept, in one transaction; only while the game runs. */
static int sqlstore_decisions_truncate(srv_store *base, const char *id, int keep,
                                       const char *note, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    sqlite3_stmt *del = NULL, *add = NULL;
    int rc = -1;
    if (sqlstore_prepare(s,
                         "DELETE FROM decisions WHERE game_id = ?1 AND n > ?2 AND EXISTS"
                         " (SELECT 1 FROM games WHERE id = ?1 AND status = 'running')",
                         &del, err, errlen))
        goto done;
    sqlite3_bind_text(del, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(del, 2, keep);
    if (sqlstore_step_done(s, del, err, errlen, "taking decisions back"))
        goto done;
    if (sqlite3_changes(s->db) < 1) {
        snprintf(err, errlen, "database: game %s has no decision after %d to take back, or is over",
                 id, keep);
        goto done;
    }
    if (note) {
        if (sqlstore_prepare(s,
                             "INSERT INTO takebacks (game_id, k, note) SELECT ?1,"
                             " (SELECT COUNT(*) + 1 FROM takebacks WHERE game_id = ?1), ?2",
                             &add, err, errlen))
            goto done;
        sqlite3_bind_text(add, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(add, 2, note, -1, SQLITE_STATIC);
        if (sqlstore_step_done(s, add, err, errlen, "keeping a take-back"))
            goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(del);
    sqlite3_finalize(add);
    return sqlstore_write_end(s, rc, err, errlen);
}

static int sqlstore_rate(sqlstore *s, const char *id, const char *at, const int *ranks,
                         char *err, size_t errlen);

/* The end of a game and, for a rated one that was still running, its
 * ratings: one transaction (store.h). */
static int sqlstore_game_finish(srv_store *base, const char *id, const char *finished,
                                const char *result, const int *ranks, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    int rc = ranks ? sqlstore_rate(s, id, finished, ranks, err, errlen) : 0;
    if (rc == 0) {
        sqlite3_stmt *st = s->finish;
        sqlite3_bind_text(st, 1, finished, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, result, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
        rc = sqlstore_step_done(s, st, err, errlen, "finishing a game");
    }
    return sqlstore_write_end(s, rc, err, errlen);
}

static int sqlstore_seat_joined(srv_store *base, const char *id, int seat, char *err,
                                size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->joined;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, seat);
    int rc = sqlstore_step_done(s, st, err, errlen, "marking a seat joined");
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static void sqlstore_copy(char *dst, size_t n, const unsigned char *src)
{
    snprintf(dst, n, "%s", src ? (const char *)src : "");
}

/* A malloc'd copy of text column `col` into *out (NULL for SQL NULL); -1
 * when memory runs out (SQLite's conversion or the copy). */
static int sqlstore_dup(sqlite3_stmt *st, int col, char **out)
{
    *out = NULL;
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return 0;
    const unsigned char *src = sqlite3_column_text(st, col);
    if (src)
        *out = strdup((const char *)src);
    return *out ? 0 : -1;
}

/* Fills the game columns of a row from a statement selecting
 * id, game, players, seed, status, created, finished, decisions. */
static void sqlstore_read_game(sqlite3_stmt *st, srv_game_row *g)
{
    memset(g, 0, sizeof *g);
    sqlstore_copy(g->id, sizeof g->id, sqlite3_column_text(st, 0));
    sqlstore_copy(g->game, sizeof g->game, sqlite3_column_text(st, 1));
    g->players = sqlite3_column_int(st, 2);
    const unsigned char *seed = sqlite3_column_text(st, 3);
    g->seed = seed ? strtoull((const char *)seed, NULL, 10) : 0;
    sqlstore_copy(g->status, sizeof g->status, sqlite3_column_text(st, 4));
    sqlstore_copy(g->created, sizeof g->created, sqlite3_column_text(st, 5));
    sqlstore_copy(g->finished, sizeof g->finished, sqlite3_column_text(st, 6));
    g->decisions = sqlite3_column_int(st, 7);
}

static int sqlstore_read_seats(sqlstore *s, srv_game_row *g, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlstore_prepare(s,
                         "SELECT seat, kind, name, level, token_hash, joined, is_open, resigned, account_id"
                         " FROM seats"
                         " WHERE game_id = ? ORDER BY seat",
                         &st, err, errlen))
        return -1;
    sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int seat = sqlite3_column_int(st, 0);
        if (seat < 0 || seat >= TB_MAX_SEATS)
            continue;
        srv_seat_row *r = &g->seat[seat];
        sqlstore_copy(r->kind, sizeof r->kind, sqlite3_column_text(st, 1));
        sqlstore_copy(r->name, sizeof r->name, sqlite3_column_text(st, 2));
        sqlstore_copy(r->level, sizeof r->level, sqlite3_column_text(st, 3));
        if (sqlite3_column_bytes(st, 4) == SRV_HASH_LEN)
            memcpy(r->token_hash, sqlite3_column_blob(st, 4), SRV_HASH_LEN);
        r->joined = sqlite3_column_int(st, 5) != 0;
        r->open = sqlite3_column_int(st, 6) != 0;
        r->resigned = sqlite3_column_int(st, 7) != 0;
        r->account_id = sqlite3_column_int64(st, 8);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlstore_fail(s, err, errlen, "reading seats");
}

#define SQLSTORE_GAME_COLUMNS                                                                    \
    "g.id, g.game, g.players, g.seed, g.status, g.created, g.finished,"                         \
    " (SELECT COUNT(*) FROM decisions d WHERE d.game_id = g.id)"

/* The game's take-backs as one JSON array text (g->takebacks), or NULL
 * when it has none. */
static int sqlstore_read_takebacks(sqlstore *s, const char *id, srv_game_row *g, char *err,
                                   size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlstore_prepare(s, "SELECT note FROM takebacks WHERE game_id = ? ORDER BY k", &st, err,
                         errlen))
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int step;
    size_t len = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *note = (const char *)sqlite3_column_text(st, 0);
        size_t add = strlen(note ? note : "{}");
        char *grown = realloc(g->takebacks, len + add + 3);
        if (!grown) {
            sqlite3_finalize(st);
            snprintf(err, errlen, "out of memory reading game %s", id);
            return -1;
        }
        g->takebacks = grown;
        grown[len] = len == 0 ? '[' : ',';
        len++;
        memcpy(grown + len, note ? note : "{}", add);
        len += add;
        grown[len] = ']';
        grown[len + 1] = '\0';
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE)
        return sqlstore_fail(s, err, errlen, "reading take-backs");
    return 0;
}

static int sqlstore_game_load(srv_store *base, const char *id, srv_game_row *g,
                              srv_decision_row **moves, int *count, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *moves = NULL;
    *count = 0;
    memset(g, 0, sizeof *g);
    if (sqlstore_begin(s, false, err, errlen))
        return -1;
    int rc = -1;
    sqlite3_stmt *st = NULL;
    if (sqlstore_prepare(s,
                         "SELECT " SQLSTORE_GAME_COLUMNS ", g.options, g.result, g.rated FROM games g"
                         " WHERE g.id = ?",
                         &st, err, errlen))
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        rc = 1;
        goto done;
    }
    if (step != SQLITE_ROW) {
        sqlstore_fail(s, err, errlen, "reading a game");
        goto done;
    }
    sqlstore_read_game(st, g);
    g->rated = sqlite3_column_int(st, 10) != 0;
    if (sqlstore_dup(st, 8, &g->options) || sqlstore_dup(st, 9, &g->result)) {
        snprintf(err, errlen, "out of memory reading game %s", id);
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlstore_read_seats(s, g, err, errlen) || sqlstore_read_takebacks(s, id, g, err, errlen))
        goto done;
    if (sqlstore_prepare(s, "SELECT creator_hash, absent_after FROM game_lobby WHERE game_id = ?",
                         &st, err, errlen))
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        g->has_creator = sqlite3_column_bytes(st, 0) == SRV_HASH_LEN;
        if (g->has_creator)
            memcpy(g->creator_hash, sqlite3_column_blob(st, 0), SRV_HASH_LEN);
        g->absent_after = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlstore_prepare(s, "SELECT n, seat, by, move FROM decisions WHERE game_id = ? ORDER BY n",
                         &st, err, errlen))
        goto done;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int cap = g->decisions > 0 ? g->decisions : 1;
    srv_decision_row *m = calloc((size_t)cap, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory reading game %s", id);
        goto done;
    }
    int n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int(st, 0) != n + 1 || n == cap) {
            snprintf(err, errlen, "database: the decisions of game %s are not numbered 1..n", id);
            srv_decisions_free(m, n);
            goto done;
        }
        m[n].seat = sqlite3_column_int(st, 1);
        sqlstore_copy(m[n].by, sizeof m[n].by, sqlite3_column_text(st, 2));
        if (sqlstore_dup(st, 3, &m[n].move) || (!m[n].move && !(m[n].move = strdup("")))) {
            snprintf(err, errlen, "out of memory reading game %s", id);
            srv_decisions_free(m, n);
            goto done;
        }
        n++;
    }
    if (step != SQLITE_DONE) {
        sqlstore_fail(s, err, errlen, "reading decisions");
        srv_decisions_free(m, n);
        goto done;
    }
    *moves = m;
    *count = n;
    rc = 0;
done:
    sqlite3_finalize(st);
    sqlstore_read_end(s);
    if (rc != 0)
        srv_game_row_clear(g);
    return rc;
}

static int sqlstore_games_list(srv_store *base, const char *status, int limit,
                               srv_game_row **rows, int *count, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *rows = NULL;
    *count = 0;
    if (sqlstore_begin(s, false, err, errlen))
        return -1;
    int rc = -1;
    sqlite3_stmt *st = NULL;
    if (sqlstore_prepare(s,
                         "SELECT " SQLSTORE_GAME_COLUMNS ", g.result, g.rated FROM games g"
                         " WHERE ?1 IS NULL OR g.status = ?1"
                         " ORDER BY g.created DESC, g.rowid DESC LIMIT ?2",
                         &st, err, errlen))
        goto done;
    if (status)
        sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_int(st, 2, limit);
    srv_game_row *r = NULL;
    int n = 0, cap = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW && n < limit) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            srv_game_row *g = realloc(r, (size_t)cap * sizeof *g);
            if (!g) {
                step = SQLITE_NOMEM;
                break;
            }
            r = g;
        }
        sqlstore_read_game(st, &r[n]);
        r[n].rated = sqlite3_column_int(st, 9) != 0;
        if (sqlstore_dup(st, 8, &r[n++].result)) {
            step = SQLITE_NOMEM;
            break;
        }
    }
    bool ok = step == SQLITE_DONE || step == SQLITE_ROW;
    if (!ok)
        sqlstore_fail(s, err, errlen, "listing games");
    for (int i = 0; ok && i < n; i++)
        ok = sqlstore_read_seats(s, &r[i], err, errlen) == 0;
    if (!ok) {
        for (int i = 0; i < n; i++)
            srv_game_row_clear(&r[i]);
        free(r);
        goto done;
    }
    *rows = r;
    *count = n;
    rc = 0;
done:
    sqlite3_finalize(st);
    sqlstore_read_end(s);
    return rc;
}

/* ---- the lobby (lobby.c) ---- */

static int sqlstore_request_find(srv_store *base, const uint8_t key_hash[SRV_HASH_LEN],
                                 const char *since, char id[SRV_ID_LEN + 1], char *err,
                                 size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlstore_prepare(s, "SELECT game_id FROM create_requests WHERE key_hash = ? AND at >= ?",
                         &st, err, errlen) == 0) {
        sqlite3_bind_blob(st, 1, key_hash, SRV_HASH_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, since, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            sqlstore_copy(id, SRV_ID_LEN + 1, sqlite3_column_text(st, 0));
            rc = 0;
        } else if (step == SQLITE_DONE) {
            rc = 1;
        } else {
            sqlstore_fail(s, err, errlen, "looking up a creation request");
        }
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* One write statement with text and integer parameters ("t" / "i" / "b"
 * for a 32-byte hash); *changes gets the rows it changed. */
static int sqlstore_run(sqlstore *s, const char *sql, const char *types, const void *const *args,
                        int *changes, char *err, size_t errlen, const char *what)
{
    sqlite3_stmt *st = NULL;
    if (sqlstore_prepare(s, sql, &st, err, errlen))
        return -1;
    for (int i = 0; types[i]; i++) {
        if (types[i] == 't')
            sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_STATIC);
        else if (types[i] == 'i')
            sqlite3_bind_int(st, i + 1, *(const int *)args[i]);
        else
            sqlite3_bind_blob(st, i + 1, args[i], SRV_HASH_LEN, SQLITE_STATIC);
    }
    int rc = sqlstore_step_done(s, st, err, errlen, what);
    if (changes)
        *changes = sqlite3_changes(s->db);
    sqlite3_finalize(st);
    return rc;
}

static int sqlstore_seat_take(srv_store *base, const char *id, int seat, const char *name,
                              const uint8_t token_hash[SRV_HASH_LEN], char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    int changes = 0;
    const void *args[] = {name, token_hash, id, &seat};
    int rc = sqlstore_run(s,
                          "UPDATE seats SET name = ?1, token_hash = ?2, is_open = 0"
                          " WHERE game_id = ?3 AND seat = ?4 AND is_open = 1 AND kind = 'human'"
                          " AND EXISTS (SELECT 1 FROM games WHERE id = ?3 AND status = 'running')",
                          "tbti", args, &changes, err, errlen, "taking a seat");
    pthread_mutex_unlock(&s->lock);
    return rc ? rc : changes == 1 ? 0 : 1;
}

static int sqlstore_seat_resign(srv_store *base, const char *id, int seat, char *err,
                                size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    const void *args[] = {id, &seat};
    int rc = sqlstore_run(s, "UPDATE seats SET resigned = 1 WHERE game_id = ?1 AND seat = ?2",
                          "ti", args, NULL, err, errlen, "recording a resignation");
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_game_delete(srv_store *base, const char *id, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    const void *args[] = {id};
    int changes = 0, rc;
    sqlite3_stmt *st = NULL;
    rc = sqlstore_prepare(s,
                          "SELECT (SELECT COUNT(*) FROM games WHERE id = ?1),"
                          " (SELECT COUNT(*) FROM decisions WHERE game_id = ?1)",
                          &st, err, errlen);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_ROW)
            rc = sqlstore_fail(s, err, errlen, "reading a game");
        else if (sqlite3_column_int(st, 0) == 0)
            rc = 1;
        else if (sqlite3_column_int(st, 1) > 0)
            rc = 2;
    }
    sqlite3_finalize(st);
    if (rc == 0)
        rc = sqlstore_run(s, "DELETE FROM create_requests WHERE game_id = ?1", "t", args, NULL,
                          err, errlen, "deleting a game") ||
             sqlstore_run(s, "DELETE FROM game_lobby WHERE game_id = ?1", "t", args, NULL, err,
                          errlen, "deleting a game") ||
             sqlstore_run(s, "DELETE FROM seats WHERE game_id = ?1", "t", args, NULL, err,
                          errlen, "deleting a game") ||
             sqlstore_run(s, "DELETE FROM chat WHERE game_id = ?1", "t", args, NULL, err,
                          errlen, "deleting a game") ||
             sqlstore_run(s, "UPDATE games SET rematch = NULL WHERE rematch = ?1", "t", args,
                          NULL, err, errlen, "deleting a game") ||
             sqlstore_run(s, "DELETE FROM games WHERE id = ?1", "t", args, &changes, err, errlen,
                          "deleting a game")
             ? -1
             : 0;
    return sqlstore_write_end(s, rc, err, errlen);
}

static int sqlstore_games_unstarted(srv_store *base, const char *before, int limit,
                                    srv_game_id **ids, int *count, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *ids = NULL;
    *count = 0;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlstore_prepare(s,
                         "SELECT id FROM games g WHERE status = 'running' AND created < ?1"
                         " AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.game_id = g.id)"
                         " ORDER BY created LIMIT ?2",
                         &st, err, errlen) == 0) {
        sqlite3_bind_text(st, 1, before, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, limit);
        srv_game_id *out = calloc((size_t)(limit > 0 ? limit : 1), sizeof *out);
        int n = 0;
        while (out && n < limit && sqlite3_step(st) == SQLITE_ROW) {
            sqlstore_copy(out[n].id, sizeof out[n].id, sqlite3_column_text(st, 0));
            n++;
        }
        if (!out) {
            snprintf(err, errlen, "out of memory");
        } else {
            *ids = out;
            *count = n;
            rc = 0;
        }
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static void sqlstore_close(srv_store *base)
{
    sqlstore *s = (sqlstore *)base;
    if (!s)
        return;
    sqlite3_finalize(s->add_decision);
    sqlite3_finalize(s->finish);
    sqlite3_finalize(s->joined);
    sqlite3_close(s->db);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static int sqlstore_review_save(srv_store *base, const char *id, const char *json,
                                const char *at, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = sqlstore_prepare(s,
                              "INSERT INTO reviews (game_id, review, at) VALUES (?1, ?2, ?3)"
                              " ON CONFLICT (game_id) DO UPDATE SET review = ?2, at = ?3",
                              &st, err, errlen);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, json, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, at, -1, SQLITE_STATIC);
        rc = sqlstore_step_done(s, st, err, errlen, "saving a review");
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_review_load(srv_store *base, const char *id, char **json, char *err,
                                size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *json = NULL;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = sqlstore_prepare(s, "SELECT review FROM reviews WHERE game_id = ?1", &st, err,
                              errlen);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            if (sqlstore_dup(st, 0, json)) {
                snprintf(err, errlen, "out of memory reading a review");
                rc = -1;
            } else
                rc = *json ? 0 : sqlstore_fail(s, err, errlen, "reading a review");
        } else {
            rc = step == SQLITE_DONE ? 1 : sqlstore_fail(s, err, errlen, "reading a review");
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- table chat and "Play again" (social.c) ---- */

static int sqlstore_chat_add(srv_store *base, const char *id, int n, int seat, const char *name,
                             const char *text, const char *at, int decisions, char *err,
                             size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    const void *args[] = {id, &n, &seat, name, text, at, &decisions};
    int rc = sqlstore_run(s,
                          "INSERT INTO chat (game_id, n, seat, name, text, at, decisions)"
                          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                          "tiittti", args, NULL, err, errlen, "saving a chat line");
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_chat_list(srv_store *base, const char *id, int limit, srv_chat_row **rows,
                              int *count, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *rows = NULL;
    *count = 0;
    if (sqlstore_begin(s, false, err, errlen))
        return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlstore_prepare(
        s,
        "SELECT c.n, c.seat, c.name, c.text, c.at, c.decisions"
        " FROM chat c WHERE c.game_id = ?1"
        " AND c.n > (SELECT COALESCE(MAX(n), 0) FROM chat WHERE game_id = ?1) - ?2"
        " ORDER BY c.n",
        &st, err, errlen);
    srv_chat_row *out = NULL;
    int n = 0, cap = 0, step = SQLITE_DONE;
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, limit > 0 ? limit : 1 << 30);
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            if (n == cap) {
                int grown_cap = cap ? cap * 2 : 32;
                srv_chat_row *g = realloc(out, (size_t)grown_cap * sizeof *g);
                if (!g)
                    break;
                out = g;
                cap = grown_cap;
            }
            srv_chat_row *c = &out[n];
            memset(c, 0, sizeof *c);
            c->n = sqlite3_column_int(st, 0);
            c->seat = sqlite3_column_int(st, 1);
            sqlstore_copy(c->name, sizeof c->name, sqlite3_column_text(st, 2));
            if (sqlstore_dup(st, 3, &c->text) || (!c->text && !(c->text = strdup(""))))
                break;
            sqlstore_copy(c->at, sizeof c->at, sqlite3_column_text(st, 4));
            c->decisions = sqlite3_column_int(st, 5);
            n++;
        }
        if (step == SQLITE_ROW) {
            snprintf(err, errlen, "out of memory reading the chat of game %s", id);
            rc = -1;
        } else if (step != SQLITE_DONE) {
            rc = sqlstore_fail(s, err, errlen, "reading the chat");
        }
    }
    sqlite3_finalize(st);
    sqlstore_read_end(s);
    if (rc) {
        srv_chat_free(out, n);
        return -1;
    }
    *rows = out;
    *count = n;
    return 0;
}

static int sqlstore_rematch_get(srv_store *base, const char *id, char rematch[SRV_ID_LEN + 1],
                                char rematch_of[SRV_ID_LEN + 1], char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    rematch[0] = rematch_of[0] = '\0';
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int rc = sqlstore_prepare(s, "SELECT rematch, rematch_of FROM games WHERE id = ?1", &st, err,
                              errlen);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            sqlstore_copy(rematch, SRV_ID_LEN + 1, sqlite3_column_text(st, 0));
            sqlstore_copy(rematch_of, SRV_ID_LEN + 1, sqlite3_column_text(st, 1));
        } else {
            rc = step == SQLITE_DONE ? 1 : sqlstore_fail(s, err, errlen, "reading a game");
        }
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_rematch_link(srv_store *base, const char *old, const char *fresh,
                                 char existing[SRV_ID_LEN + 1], char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    existing[0] = '\0';
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlstore_prepare(s, "SELECT rematch FROM games WHERE id = ?1", &st, err, errlen);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, old, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            sqlstore_copy(existing, SRV_ID_LEN + 1, sqlite3_column_text(st, 0));
        else if (step == SQLITE_DONE) {
            snprintf(err, errlen, "there is no game %s", old);
            rc = -1;
        } else
            rc = sqlstore_fail(s, err, errlen, "reading a game");
    }
    sqlite3_finalize(st);
    const void *args[] = {old, fresh};
    if (rc == 0 && existing[0])
        rc = 1;
    else if (rc == 0)
        rc = sqlstore_run(s, "UPDATE games SET rematch = ?2 WHERE id = ?1", "tt", args, NULL,
                          err, errlen, "linking a rematch") ||
                     sqlstore_run(s, "UPDATE games SET rematch_of = ?1 WHERE id = ?2", "tt",
                                  args, NULL, err, errlen, "linking a rematch")
                 ? -1
                 : 0;
    if (rc == 1) { /* nothing to change: ends the transaction as a read */
        sqlstore_read_end(s);
        return 1;
    }
    return sqlstore_write_end(s, rc, err, errlen);
}

/* ---- ratings and profiles (issue 28, area "ratings"; rating.h) ---- */

/* Inside game_finish's transaction: when game `id` is rated and still
 * running, reads its seats and their accounts' ratings, rates the game
 * (srv_rating_game) and writes every account seat's rating and history row. */
static int sqlstore_rate(sqlstore *s, const char *id, const char *at, const int *ranks,
                         char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, n = 0;
    char game[32] = "";
    srv_rated_seat seat[SRV_RATING_MAX];
    memset(seat, 0, sizeof seat);
    if (sqlstore_prepare(s, "SELECT game FROM games WHERE id = ?1 AND rated <> 0"
                            " AND status = 'running'", &st, err, errlen))
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        sqlstore_copy(game, sizeof game, sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    st = NULL;
    if (step == SQLITE_DONE)
        return 0; /* unrated, or over already: nothing to rate */
    if (step != SQLITE_ROW)
        return sqlstore_fail(s, err, errlen, "reading a rated game");
    if (sqlstore_prepare(s, "SELECT s.kind, s.level, COALESCE(s.account_id, 0), r.mu, r.sigma,"
                            " COALESCE(r.games, 0), COALESCE(r.wins, 0), r.account_id IS NOT NULL"
                            " FROM seats s LEFT JOIN ratings r ON r.account_id = s.account_id"
                            " AND r.game = ?2 WHERE s.game_id = ?1 ORDER BY s.seat",
                         &st, err, errlen))
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, game, -1, SQLITE_STATIC);
    while ((step = sqlite3_step(st)) == SQLITE_ROW && n < SRV_RATING_MAX) {
        srv_rated_seat *x = &seat[n];
        x->ai = strcmp((const char *)sqlite3_column_text(st, 0), "ai") == 0;
        sqlstore_copy(x->level, sizeof x->level, sqlite3_column_text(st, 1));
        x->account = sqlite3_column_int64(st, 2);
        x->before.mu = sqlite3_column_double(st, 3);
        x->before.sigma = sqlite3_column_double(st, 4);
        x->games = sqlite3_column_int(st, 5);
        x->wins = sqlite3_column_int(st, 6);
        x->known = sqlite3_column_int(st, 7) != 0;
        x->rank = ranks[n];
        n++;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (step != SQLITE_DONE && step != SQLITE_ROW)
        return sqlstore_fail(s, err, errlen, "reading a rated game's seats");
    int rated = srv_rating_game(game, n, seat);
    if (rated == 1)
        return 0;
    if (rated < 0) {
        snprintf(err, errlen, "game %s: its seats and ranks cannot be rated", id);
        return -1;
    }
    sqlite3_stmt *hist = NULL;
    if (sqlstore_prepare(s, "INSERT INTO ratings (account_id, game, mu, sigma, games, wins)"
                            " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (account_id, game)"
                            " DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
                            " games = excluded.games, wins = excluded.wins",
                         &st, err, errlen) ||
        sqlstore_prepare(s, "INSERT INTO rating_history (account_id, game_id, game, at, rank,"
                            " mu, sigma) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                         &hist, err, errlen))
        goto done;
    for (int i = 0; i < n; i++) {
        if (seat[i].account <= 0)
            continue;
        sqlite3_bind_int64(st, 1, seat[i].account);
        sqlite3_bind_text(st, 2, game, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 3, seat[i].after.mu);
        sqlite3_bind_double(st, 4, seat[i].after.sigma);
        sqlite3_bind_int(st, 5, seat[i].games);
        sqlite3_bind_int(st, 6, seat[i].wins);
        if (sqlstore_step_done(s, st, err, errlen, "storing a rating"))
            goto done;
        sqlite3_bind_int64(hist, 1, seat[i].account);
        sqlite3_bind_text(hist, 2, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(hist, 3, game, -1, SQLITE_STATIC);
        sqlite3_bind_text(hist, 4, at, -1, SQLITE_STATIC);
        sqlite3_bind_int(hist, 5, seat[i].rank);
        sqlite3_bind_double(hist, 6, seat[i].after.mu);
        sqlite3_bind_double(hist, 7, seat[i].after.sigma);
        if (sqlstore_step_done(s, hist, err, errlen, "storing a rating's history"))
            goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    sqlite3_finalize(hist);
    return rc;
}

/* Grows *rows (of `size` bytes each) to hold one more; NULL when memory runs out. */
static void *sqlstore_push(void **rows, int *count, int *cap, size_t size)
{
    if (*count == *cap) {
        int want = *cap ? *cap * 2 : 16;
        void *grown = realloc(*rows, (size_t)want * size);
        if (!grown)
            return NULL;
        *rows = grown;
        *cap = want;
    }
    char *at = (char *)*rows + (size_t)(*count)++ * size;
    memset(at, 0, size);
    return at;
}

static int sqlstore_ratings_list(srv_store *base, const char *game, int limit,
                                 srv_rating_row **rows, int *count, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *rows = NULL;
    *count = 0;
    int cap = 0;
    if (sqlstore_begin(s, false, err, errlen))
        return -1;
    sqlite3_stmt *st;
    int rc = sqlstore_prepare(s, "SELECT a.name, r.game, r.mu, r.sigma, r.games, r.wins"
                                 " FROM ratings r JOIN accounts a ON a.id = r.account_id"
                                 " WHERE r.game = ?1 ORDER BY r.mu - 3 * r.sigma DESC, a.name"
                                 " LIMIT ?2", &st, err, errlen);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, game, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, limit);
        int step;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            srv_rating_row *r = sqlstore_push((void **)rows, count, &cap, sizeof **rows);
            if (!r) {
                snprintf(err, errlen, "out of memory reading ratings");
                rc = -1;
                break;
            }
            sqlstore_copy(r->name, sizeof r->name, sqlite3_column_text(st, 0));
            sqlstore_copy(r->game, sizeof r->game, sqlite3_column_text(st, 1));
            r->mu = sqlite3_column_double(st, 2);
            r->sigma = sqlite3_column_double(st, 3);
            r->games = sqlite3_column_int(st, 4);
            r->wins = sqlite3_column_int(st, 5);
        }
        if (rc == 0 && step != SQLITE_DONE)
            rc = sqlstore_fail(s, err, errlen, "reading ratings");
        sqlite3_finalize(st);
    }
    sqlstore_read_end(s);
    if (rc) {
        free(*rows);
        *rows = NULL;
        *count = 0;
    }
    return rc;
}

static int sqlstore_player_load(srv_store *base, const char *name, int limit, srv_player *p,
                                char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    memset(p, 0, sizeof *p);
    if (sqlstore_begin(s, false, err, errlen))
        return -1;
    sqlite3_stmt *st = NULL;
    int rc = -1, step, cap;
    sqlite3_int64 account = 0;
    if (sqlstore_prepare(s, "SELECT id, name, created FROM accounts WHERE lower(name) = lower(?1)",
                         &st, err, errlen))
        goto done;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        account = sqlite3_column_int64(st, 0);
        sqlstore_copy(p->name, sizeof p->name, sqlite3_column_text(st, 1));
        sqlstore_copy(p->created, sizeof p->created, sqlite3_column_text(st, 2));
    }
    sqlite3_finalize(st);
    st = NULL;
    if (step == SQLITE_DONE) {
        rc = 1;
        goto done;
    }
    if (step != SQLITE_ROW) {
        sqlstore_fail(s, err, errlen, "reading a player");
        goto done;
    }
    /* ratings */
    cap = 0;
    if (sqlstore_prepare(s, "SELECT game, mu, sigma, games, wins FROM ratings"
                            " WHERE account_id = ?1 ORDER BY game", &st, err, errlen))
        goto done;
    sqlite3_bind_int64(st, 1, account);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        srv_rating_row *r = sqlstore_push((void **)&p->ratings, &p->nratings, &cap, sizeof *r);
        if (!r)
            goto oom;
        snprintf(r->name, sizeof r->name, "%s", p->name);
        sqlstore_copy(r->game, sizeof r->game, sqlite3_column_text(st, 0));
        r->mu = sqlite3_column_double(st, 1);
        r->sigma = sqlite3_column_double(st, 2);
        r->games = sqlite3_column_int(st, 3);
        r->wins = sqlite3_column_int(st, 4);
    }
    if (step != SQLITE_DONE)
        goto failed;
    sqlite3_finalize(st);
    st = NULL;
    /* history, oldest first */
    cap = 0;
    if (sqlstore_prepare(s, "SELECT game_id, game, at, rank, mu, sigma FROM rating_history"
                            " WHERE account_id = ?1 ORDER BY at, game_id", &st, err, errlen))
        goto done;
    sqlite3_bind_int64(st, 1, account);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        srv_history_row *h = sqlstore_push((void **)&p->history, &p->nhistory, &cap, sizeof *h);
        if (!h)
            goto oom;
        sqlstore_copy(h->game_id, sizeof h->game_id, sqlite3_column_text(st, 0));
        sqlstore_copy(h->game, sizeof h->game, sqlite3_column_text(st, 1));
        sqlstore_copy(h->at, sizeof h->at, sqlite3_column_text(st, 2));
        h->rank = sqlite3_column_int(st, 3);
        h->mu = sqlite3_column_double(st, 4);
        h->sigma = sqlite3_column_double(st, 5);
    }
    if (step != SQLITE_DONE)
        goto failed;
    sqlite3_finalize(st);
    st = NULL;
    /* games, newest first */
    cap = 0;
    if (sqlstore_prepare(s, "SELECT g.id, g.game, g.status, g.created, COALESCE(g.finished, ''),"
                            " g.players, s.seat, g.rated, CASE WHEN g.status = 'over' THEN"
                            " COALESCE(json_extract(g.result, '$.ranks[' || s.seat || ']'), 0)"
                            " ELSE 0 END FROM seats s JOIN games g ON g.id = s.game_id"
                            " WHERE s.account_id = ?1 ORDER BY g.created DESC, g.id LIMIT ?2",
                         &st, err, errlen))
        goto done;
    sqlite3_bind_int64(st, 1, account);
    sqlite3_bind_int(st, 2, limit);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        srv_played_row *g = sqlstore_push((void **)&p->games, &p->ngames, &cap, sizeof *g);
        if (!g)
            goto oom;
        sqlstore_copy(g->id, sizeof g->id, sqlite3_column_text(st, 0));
        sqlstore_copy(g->game, sizeof g->game, sqlite3_column_text(st, 1));
        sqlstore_copy(g->status, sizeof g->status, sqlite3_column_text(st, 2));
        sqlstore_copy(g->created, sizeof g->created, sqlite3_column_text(st, 3));
        sqlstore_copy(g->finished, sizeof g->finished, sqlite3_column_text(st, 4));
        g->players = sqlite3_column_int(st, 5);
        g->seat = sqlite3_column_int(st, 6);
        g->rated = sqlite3_column_int(st, 7) != 0;
        g->rank = sqlite3_column_int(st, 8);
    }
    if (step != SQLITE_DONE)
        goto failed;
    sqlite3_finalize(st);
    st = NULL;
    /* wins by game title, over every finished game */
    cap = 0;
    if (sqlstore_prepare(s, "SELECT g.game, COUNT(*), SUM(COALESCE(json_extract(g.result,"
                            " '$.ranks[' || s.seat || ']'), 0) = 1) FROM seats s JOIN games g"
                            " ON g.id = s.game_id WHERE s.account_id = ?1 AND g.status = 'over'"
                            " GROUP BY g.game ORDER BY g.game", &st, err, errlen))
        goto done;
    sqlite3_bind_int64(st, 1, account);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        srv_wins_row *w = sqlstore_push((void **)&p->wins, &p->nwins, &cap, sizeof *w);
        if (!w)
            goto oom;
        sqlstore_copy(w->game, sizeof w->game, sqlite3_column_text(st, 0));
        w->played = sqlite3_column_int(st, 1);
        w->wins = sqlite3_column_int(st, 2);
    }
    if (step != SQLITE_DONE)
        goto failed;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory reading a player");
    goto done;
failed:
    sqlstore_fail(s, err, errlen, "reading a player");
done:
    sqlite3_finalize(st);
    sqlstore_read_end(s);
    if (rc)
        srv_player_clear(p);
    return rc;
}

/* ---- turn e-mails (mail.c): an account's address, its links, the e-mails
 * claimed.  Accounts themselves are accounts.c's. ---- */

static void sqlstore_copy_text(sqlite3_stmt *st, int col, char *out, size_t outlen)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(out, outlen, "%s", t ? (const char *)t : "");
}

static int sqlstore_mail_account(srv_store *base, int64_t account, srv_mail_account *a,
                                 char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    memset(a, 0, sizeof *a);
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = sqlstore_prepare(s,
                              "SELECT name, lang, email, email_confirmed, email_token_hash IS NOT"
                              " NULL, turn_emails, pw_hash, unsubscribe_hash FROM accounts"
                              " WHERE id = ?1",
                              &st, err, errlen);
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, account);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            sqlstore_copy_text(st, 0, a->name, sizeof a->name);
            sqlstore_copy_text(st, 1, a->lang, sizeof a->lang);
            sqlstore_copy_text(st, 2, a->email, sizeof a->email);
            a->confirmed = sqlite3_column_int(st, 3) != 0;
            a->pending = sqlite3_column_int(st, 4) != 0;
            a->turn_emails = sqlite3_column_int(st, 5) != 0;
            sqlstore_copy_text(st, 6, a->key, sizeof a->key);
            if (sqlite3_column_bytes(st, 7) == SRV_HASH_LEN) {
                a->has_unsubscribe = true;
                memcpy(a->unsubscribe_hash, sqlite3_column_blob(st, 7), SRV_HASH_LEN);
            }
        } else {
            rc = step == SQLITE_DONE ? 1 : sqlstore_fail(s, err, errlen, "reading an account");
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* One write: `sql` with ?1 an account id (or the hash blob1), ?2 and ?3 as
 * given (NULL: not bound). */
static int sqlstore_mail_write(sqlstore *s, const char *sql, int64_t account, const void *blob1,
                               const char *text2, const void *blob3, char *err, size_t errlen,
                               const char *what)
{
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = sqlstore_prepare(s, sql, &st, err, errlen);
    if (rc == 0) {
        if (blob1)
            sqlite3_bind_blob(st, 1, blob1, SRV_HASH_LEN, SQLITE_STATIC);
        else
            sqlite3_bind_int64(st, 1, account);
        if (text2)
            sqlite3_bind_text(st, 2, text2, -1, SQLITE_STATIC);
        if (blob3)
            sqlite3_bind_blob(st, 3, blob3, SRV_HASH_LEN, SQLITE_STATIC);
        rc = sqlstore_step_done(s, st, err, errlen, what);
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_mail_address(srv_store *base, int64_t account, const char *email,
                                 const uint8_t *token_hash, char *err, size_t errlen)
{
    return sqlstore_mail_write((sqlstore *)base,
                               "UPDATE accounts SET email = ?2, email_confirmed = 0,"
                               " email_token_hash = ?3 WHERE id = ?1",
                               account, NULL, email, token_hash, err, errlen,
                               "storing an e-mail address");
}

/* Finds the account of a link hash in `column`, then runs `update` on it
 * (?1 the account): 0 (*account set), 1 no such link. */
static int sqlstore_mail_by_hash(sqlstore *s, const char *find, const char *update,
                                 const uint8_t hash[SRV_HASH_LEN], int64_t *account, char *err,
                                 size_t errlen, const char *what)
{
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = sqlstore_prepare(s, find, &st, err, errlen);
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, hash, SRV_HASH_LEN, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            *account = sqlite3_column_int64(st, 0);
        else
            rc = step == SQLITE_DONE ? 1 : sqlstore_fail(s, err, errlen, what);
        sqlite3_finalize(st);
    }
    if (rc == 0 && (rc = sqlstore_prepare(s, update, &st, err, errlen)) == 0) {
        sqlite3_bind_int64(st, 1, *account);
        rc = sqlstore_step_done(s, st, err, errlen, what);
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_mail_confirm(srv_store *base, const uint8_t token_hash[SRV_HASH_LEN],
                                 int64_t *account, char *err, size_t errlen)
{
    return sqlstore_mail_by_hash((sqlstore *)base,
                                 "SELECT id FROM accounts WHERE email_token_hash = ?1",
                                 "UPDATE accounts SET email_confirmed = 1, email_token_hash = NULL,"
                                 " turn_emails = 1 WHERE id = ?1",
                                 token_hash, account, err, errlen, "confirming an e-mail address");
}

static int sqlstore_mail_unsubscribe_key(srv_store *base, int64_t account,
                                         const uint8_t hash[SRV_HASH_LEN], char *err,
                                         size_t errlen)
{
    return sqlstore_mail_write((sqlstore *)base,
                               "UPDATE accounts SET unsubscribe_hash = ?3 WHERE id = ?1", account,
                               NULL, NULL, hash, err, errlen, "storing an unsubscribe link");
}

static int sqlstore_mail_unsubscribe(srv_store *base, const uint8_t hash[SRV_HASH_LEN],
                                     int64_t *account, char *err, size_t errlen)
{
    return sqlstore_mail_by_hash((sqlstore *)base,
                                 "SELECT id FROM accounts WHERE unsubscribe_hash = ?1",
                                 "UPDATE accounts SET turn_emails = 0 WHERE id = ?1", hash,
                                 account, err, errlen, "turning turn e-mails off");
}

static int sqlstore_mail_turn_emails(srv_store *base, int64_t account, bool on, char *err,
                                     size_t errlen)
{
    return sqlstore_mail_write((sqlstore *)base,
                               on ? "UPDATE accounts SET turn_emails = 1 WHERE id = ?1"
                                  : "UPDATE accounts SET turn_emails = 0 WHERE id = ?1",
                               account, NULL, NULL, NULL, err, errlen,
                               "turning turn e-mails on or off");
}

static int sqlstore_mail_turn_claim(srv_store *base, const char *id, int n, int64_t account,
                                    const char *at, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st;
    int rc = sqlstore_prepare(s,
                              "INSERT INTO turn_emails (game_id, n, account_id, at)"
                              " VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                              &st, err, errlen);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, n);
        sqlite3_bind_int64(st, 3, account);
        sqlite3_bind_text(st, 4, at, -1, SQLITE_STATIC);
        rc = sqlstore_step_done(s, st, err, errlen, "claiming a turn e-mail");
        if (rc == 0)
            rc = sqlite3_changes(s->db) == 1 ? 0 : 1;
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* Rewrites the schema version with its own value: a page written and
 * committed like a decision's, changing nothing. */
static int sqlstore_probe(srv_store *base, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", SQLSTORE_VERSION);
    return sqlstore_write_end(s, sqlstore_exec(s, sql, err, errlen), err, errlen);
}

/* ---- accounts and sessions (accounts.c; issue 28, area "accounts") ---- */

static int sqlstore_account_create(srv_store *base, const char *name, const char *name_key,
                                   const char *pw_hash, const char *created, int64_t *id,
                                   char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlstore_prepare(s,
                         "INSERT INTO accounts (name, name_key, pw_hash, created)"
                         " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name_key) DO NOTHING",
                         &st, err, errlen) == 0) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, name_key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, pw_hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, created, -1, SQLITE_STATIC);
        rc = sqlstore_step_done(s, st, err, errlen, "adding an account");
        if (rc == 0 && sqlite3_changes(s->db) != 1)
            rc = 1;
        else if (rc == 0)
            *id = sqlite3_last_insert_rowid(s->db);
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_account_find(srv_store *base, const char *name_key, int64_t id,
                                 srv_account_row *out, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlstore_prepare(s,
                         name_key ? "SELECT id, name, pw_hash, created, lang, email, email_confirmed"
                                    " FROM accounts WHERE name_key = ?1"
                                  : "SELECT id, name, pw_hash, created, lang, email, email_confirmed"
                                    " FROM accounts WHERE id = ?2",
                         &st, err, errlen) == 0) {
        if (name_key)
            sqlite3_bind_text(st, 1, name_key, -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(st, 2, id);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            out->id = sqlite3_column_int64(st, 0);
            sqlstore_copy(out->name, sizeof out->name, sqlite3_column_text(st, 1));
            sqlstore_copy(out->pw_hash, sizeof out->pw_hash, sqlite3_column_text(st, 2));
            sqlstore_copy(out->created, sizeof out->created, sqlite3_column_text(st, 3));
            sqlstore_copy(out->lang, sizeof out->lang, sqlite3_column_text(st, 4));
            sqlstore_copy(out->email, sizeof out->email, sqlite3_column_text(st, 5));
            out->email_confirmed = sqlite3_column_int(st, 6) != 0;
            rc = 0;
            if (!out->name[0] || !out->pw_hash[0]) { /* a text SQLite had no memory to give */
                snprintf(err, errlen, "out of memory reading an account");
                rc = -1;
            }
        } else {
            rc = step == SQLITE_DONE ? 1 : sqlstore_fail(s, err, errlen, "reading an account");
        }
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* One write statement binding an account id as ?1 and up to two texts or a
 * hash; *changes gets the rows it changed. */
static int sqlstore_account_run(sqlstore *s, const char *sql, int64_t id, const char *t2,
                                const uint8_t *h3, int *changes, char *err, size_t errlen,
                                const char *what)
{
    sqlite3_stmt *st = NULL;
    if (sqlstore_prepare(s, sql, &st, err, errlen))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    if (t2)
        sqlite3_bind_text(st, 2, t2, -1, SQLITE_STATIC);
    if (h3)
        sqlite3_bind_blob(st, 3, h3, SRV_HASH_LEN, SQLITE_STATIC);
    int rc = sqlstore_step_done(s, st, err, errlen, what);
    if (changes)
        *changes = sqlite3_changes(s->db);
    sqlite3_finalize(st);
    return rc;
}

static int sqlstore_account_update(srv_store *base, int64_t id, const char *pw_hash,
                                   const uint8_t keep[SRV_HASH_LEN], const char *lang,
                                   char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    int changes = 1, rc = 0;
    if (pw_hash) {
        static const uint8_t none[SRV_HASH_LEN];
        rc = sqlstore_account_run(s, "UPDATE accounts SET pw_hash = ?2 WHERE id = ?1", id,
                                  pw_hash, NULL, &changes, err, errlen, "changing a password");
        if (rc == 0 && changes == 1)
            rc = sqlstore_account_run(s,
                                      "DELETE FROM sessions WHERE account_id = ?1"
                                      " AND token_hash <> ?3",
                                      id, NULL, keep ? keep : none, NULL, err, errlen,
                                      "ending sessions");
    }
    if (rc == 0 && changes == 1 && lang)
        rc = sqlstore_account_run(s, "UPDATE accounts SET lang = ?2 WHERE id = ?1", id, lang,
                                  NULL, &changes, err, errlen, "changing a language");
    rc = sqlstore_write_end(s, rc, err, errlen);
    return rc ? rc : changes == 1 ? 0 : 1;
}

static int sqlstore_account_delete(srv_store *base, int64_t id, const char *former_name,
                                   char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    int changes = 0;
    int rc = sqlstore_account_run(s,
                                  "UPDATE seats SET name = ?2, account_id = NULL"
                                  " WHERE account_id = ?1",
                                  id, former_name, NULL, NULL, err, errlen,
                                  "deleting an account") ||
                     sqlstore_account_run(s, "DELETE FROM sessions WHERE account_id = ?1", id,
                                          NULL, NULL, NULL, err, errlen, "deleting an account") ||
                     sqlstore_account_run(s, "DELETE FROM ratings WHERE account_id = ?1", id,
                                          NULL, NULL, NULL, err, errlen, "deleting an account") ||
                     sqlstore_account_run(s, "DELETE FROM rating_history WHERE account_id = ?1",
                                          id, NULL, NULL, NULL, err, errlen,
                                          "deleting an account") ||
                     sqlstore_account_run(s, "DELETE FROM turn_emails WHERE account_id = ?1", id,
                                          NULL, NULL, NULL, err, errlen, "deleting an account") ||
                     sqlstore_account_run(s, "DELETE FROM accounts WHERE id = ?1", id, NULL,
                                          NULL, &changes, err, errlen, "deleting an account")
                 ? -1
                 : 0;
    if (rc == 0 && changes != 1)
        rc = 1; /* nothing to delete: rolled back */
    int end = sqlstore_write_end(s, rc, err, errlen);
    return rc == 1 ? 1 : end;
}

static int sqlstore_session_add(srv_store *base, const uint8_t hash[SRV_HASH_LEN],
                                int64_t account, const char *now, const char *idle_since,
                                char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    if (sqlstore_begin(s, true, err, errlen))
        return -1;
    int rc = sqlstore_account_run(s,
                                  "DELETE FROM sessions WHERE account_id = ?1 AND last_used < ?2",
                                  account, idle_since, NULL, NULL, err, errlen,
                                  "ending idle sessions") ||
                     sqlstore_account_run(s,
                                          "INSERT INTO sessions (token_hash, account_id, created,"
                                          " last_used) VALUES (?3, ?1, ?2, ?2)",
                                          account, now, hash, NULL, err, errlen,
                                          "starting a session")
                 ? -1
                 : 0;
    return sqlstore_write_end(s, rc, err, errlen);
}

static int sqlstore_session_find(srv_store *base, const uint8_t hash[SRV_HASH_LEN],
                                 const char *idle_since, const char *touch_before,
                                 const char *now, int64_t *account, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *account = 0;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    char last[SRV_TIME_LEN] = "";
    if (sqlstore_prepare(s, "SELECT account_id, last_used FROM sessions WHERE token_hash = ?1",
                         &st, err, errlen) == 0) {
        sqlite3_bind_blob(st, 1, hash, SRV_HASH_LEN, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            *account = sqlite3_column_int64(st, 0);
            sqlstore_copy(last, sizeof last, sqlite3_column_text(st, 1));
            rc = 0;
        } else {
            rc = step == SQLITE_DONE ? 1 : sqlstore_fail(s, err, errlen, "reading a session");
        }
    }
    sqlite3_finalize(st);
    if (rc == 0 && strcmp(last, idle_since) < 0) {
        /* idle too long: it ends now */
        *account = 0;
        rc = 1;
        sqlstore_account_run(s, "DELETE FROM sessions WHERE token_hash = ?3", 0, NULL, hash, NULL,
                             err, errlen, "ending a session");
    } else if (rc == 0 && strcmp(last, touch_before) < 0) {
        sqlstore_account_run(s, "UPDATE sessions SET last_used = ?2 WHERE token_hash = ?3", 0,
                             now, hash, NULL, err, errlen, "using a session");
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_session_delete(srv_store *base, const uint8_t hash[SRV_HASH_LEN], char *err,
                                   size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    int rc = sqlstore_account_run(s, "DELETE FROM sessions WHERE token_hash = ?3", 0, NULL, hash,
                                  NULL, err, errlen, "ending a session");
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_account_games(srv_store *base, int64_t account, srv_game_row **rows,
                                  int *count, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *rows = NULL;
    *count = 0;
    if (sqlstore_begin(s, false, err, errlen))
        return -1;
    sqlite3_stmt *st = NULL;
    srv_game_row *r = NULL;
    int n = 0, cap = 0, step = SQLITE_ERROR, rc = -1;
    /* the games the account sits in (seats_account), each once, with the
     * decision count and last time read off the decisions' key; in one
     * snapshot with their seats below */
    if (sqlstore_prepare(s,
                         "SELECT g.id, g.game, g.players, g.seed, g.status, g.created, g.finished,"
                         " COALESCE((SELECT MAX(n) FROM decisions d WHERE d.game_id = g.id), 0),"
                         " g.rated, COALESCE((SELECT d.at FROM decisions d WHERE d.game_id = g.id"
                         " ORDER BY d.n DESC LIMIT 1), g.created)"
                         " FROM games g WHERE g.id IN"
                         " (SELECT game_id FROM seats WHERE account_id = ?1) ORDER BY g.id",
                         &st, err, errlen))
        goto done;
    sqlite3_bind_int64(st, 1, account);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            int grown_cap = cap ? cap * 2 : 64;
            srv_game_row *grown = realloc(r, (size_t)grown_cap * sizeof *grown);
            if (!grown) {
                step = SQLITE_NOMEM;
                break;
            }
            r = grown;
            cap = grown_cap;
        }
        sqlstore_read_game(st, &r[n]);
        r[n].rated = sqlite3_column_int(st, 8) != 0;
        sqlstore_copy(r[n].updated, sizeof r[n].updated, sqlite3_column_text(st, 9));
        n++;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (step == SQLITE_DONE &&
        sqlstore_prepare(s,
                         "SELECT game_id, seat, kind, name, level, joined, is_open, resigned,"
                         " account_id FROM seats WHERE game_id IN"
                         " (SELECT game_id FROM seats WHERE account_id = ?1)"
                         " ORDER BY game_id, seat",
                         &st, err, errlen) == 0) {
        sqlite3_bind_int64(st, 1, account);
        int g = 0; /* both lists are in game id order */
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            const char *gid = (const char *)sqlite3_column_text(st, 0);
            while (gid && g < n && strcmp(r[g].id, gid) < 0)
                g++;
            int seat = sqlite3_column_int(st, 1);
            if (!gid || g == n || strcmp(r[g].id, gid) != 0 || seat < 0 || seat >= TB_MAX_SEATS)
                continue;
            srv_seat_row *sr = &r[g].seat[seat];
            sqlstore_copy(sr->kind, sizeof sr->kind, sqlite3_column_text(st, 2));
            sqlstore_copy(sr->name, sizeof sr->name, sqlite3_column_text(st, 3));
            sqlstore_copy(sr->level, sizeof sr->level, sqlite3_column_text(st, 4));
            sr->joined = sqlite3_column_int(st, 5) != 0;
            sr->open = sqlite3_column_int(st, 6) != 0;
            sr->resigned = sqlite3_column_int(st, 7) != 0;
            sr->account_id = sqlite3_column_int64(st, 8);
        }
    } else if (step == SQLITE_DONE) {
        step = SQLITE_ERROR; /* the statement could not be prepared: err says why */
        free(r);
        goto done;
    }
    if (step != SQLITE_DONE) {
        if (step == SQLITE_NOMEM)
            snprintf(err, errlen, "out of memory listing an account's games");
        else
            sqlstore_fail(s, err, errlen, "listing an account's games");
        free(r);
        goto done;
    }
    *rows = r;
    *count = n;
    rc = 0;
done:
    sqlite3_finalize(st);
    sqlstore_read_end(s);
    return rc;
}

static int sqlstore_seat_set_account(srv_store *base, const char *id, int seat, int64_t account,
                                     const char *name, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlstore_prepare(s,
                         "UPDATE seats SET account_id = ?1, name = ?4 WHERE game_id = ?2 AND seat = ?3"
                         " AND kind = 'human' AND is_open = 0"
                         " AND (account_id IS NULL OR account_id = ?1)",
                         &st, err, errlen) == 0) {
        sqlite3_bind_int64(st, 1, account);
        sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, seat);
        sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
        rc = sqlstore_step_done(s, st, err, errlen, "giving a seat to an account");
        if (rc == 0 && sqlite3_changes(s->db) != 1)
            rc = 1;
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static const srv_store_methods sqlstore_methods = {
    .name = "sqlite",
    .writers = 1, /* one writer at a time: batches serve it best */
    .game_create = sqlstore_game_create,
    .decision_add = sqlstore_decision_add,
    .decisions_add = sqlstore_decisions_add,
    .decisions_truncate = sqlstore_decisions_truncate,
    .game_finish = sqlstore_game_finish,
    .seat_joined = sqlstore_seat_joined,
    .game_load = sqlstore_game_load,
    .games_list = sqlstore_games_list,
    .request_find = sqlstore_request_find,
    .seat_take = sqlstore_seat_take,
    .seat_resign = sqlstore_seat_resign,
    .game_delete = sqlstore_game_delete,
    .games_unstarted = sqlstore_games_unstarted,
    .review_save = sqlstore_review_save,
    .review_load = sqlstore_review_load,
    .chat_add = sqlstore_chat_add,
    .chat_list = sqlstore_chat_list,
    .rematch_get = sqlstore_rematch_get,
    .rematch_link = sqlstore_rematch_link,
    .ratings_list = sqlstore_ratings_list,
    .player_load = sqlstore_player_load,
    /* turn e-mails (mail.c) */
    .mail_account = sqlstore_mail_account,
    .mail_address = sqlstore_mail_address,
    .mail_confirm = sqlstore_mail_confirm,
    .mail_unsubscribe_key = sqlstore_mail_unsubscribe_key,
    .mail_unsubscribe = sqlstore_mail_unsubscribe,
    .mail_turn_emails = sqlstore_mail_turn_emails,
    .mail_turn_claim = sqlstore_mail_turn_claim,
    .close = sqlstore_close,
    .probe = sqlstore_probe,
    /* accounts (accounts.c) */
    .account_create = sqlstore_account_create,
    .account_find = sqlstore_account_find,
    .account_update = sqlstore_account_update,
    .account_delete = sqlstore_account_delete,
    .session_add = sqlstore_session_add,
    .session_find = sqlstore_session_find,
    .session_delete = sqlstore_session_delete,
    .account_games = sqlstore_account_games,
    .seat_set_account = sqlstore_seat_set_account,
};

srv_store *srv_store_sqlite_open(const char *path, bool full_sync, char *err, size_t errlen)
{
    sqlstore *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory opening the database");
        return NULL;
    }
    s->base.m = &sqlstore_methods;
    pthread_mutex_init(&s->lock, NULL);
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        snprintf(err, errlen, "cannot open database %s: %s", path,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        sqlstore_close(&s->base);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, 5000);
    char local[TB_ERR_LEN];
    if (sqlstore_exec(s, "PRAGMA journal_mode = WAL", local, sizeof local) ||
        sqlstore_exec(s, full_sync ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                      local, sizeof local) ||
        sqlstore_exec(s, "PRAGMA foreign_keys = ON", local, sizeof local) ||
        sqlstore_migrate(s, local, sizeof local) ||
        sqlstore_prepare(s,
                         "INSERT INTO decisions (game_id, n, seat, move, by, at)"
                         " SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS"
                         " (SELECT 1 FROM games WHERE id = ?7 AND status = 'running')"
                         " AND (SELECT COUNT(*) FROM decisions WHERE game_id = ?7) = ?8 - 1",
                         &s->add_decision, local, sizeof local) ||
        sqlstore_prepare(s,
                         "UPDATE games SET status = 'over', finished = ?1, result = ?2"
                         " WHERE id = ?3",
                         &s->finish, local, sizeof local) ||
        sqlstore_prepare(s, "UPDATE seats SET joined = 1 WHERE game_id = ?1 AND seat = ?2",
                         &s->joined, local, sizeof local)) {
        snprintf(err, errlen, "%s (%s)", local, path);
        sqlstore_close(&s->base);
        return NULL;
    }
    return &s->base;
}

void srv_game_row_clear(srv_game_row *g)
{
    free(g->options);
    free(g->result);
    free(g->takebacks);
    g->options = g->result = g->takebacks = NULL;
}

void srv_chat_free(srv_chat_row *rows, int count)
{
    for (int i = 0; rows && i < count; i++)
        free(rows[i].text);
    free(rows);
}

void srv_decisions_free(srv_decision_row *moves, int count)
{
    for (int i = 0; moves && i < count; i++)
        free(moves[i].move);
    free(moves);
}
