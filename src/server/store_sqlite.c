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
};

#define SQLSTORE_VERSION ((int)(sizeof sqlstore_migrations / sizeof sqlstore_migrations[0]))

int srv_store_sqlite_version(void)
{
    return SQLSTORE_VERSION;
}

static int sqlstore_fail(sqlstore *s, char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "database: %s: %s", what, sqlite3_errmsg(s->db));
    return -1;
}

static int sqlstore_exec(sqlstore *s, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "database: %s", msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
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
        if (sqlstore_exec(s, "BEGIN IMMEDIATE", err, errlen))
            return -1;
        if (sqlstore_exec(s, sqlstore_migrations[v], err, errlen) ||
            sqlstore_exec(s, bump, err, errlen)) {
            sqlstore_exec(s, "ROLLBACK", NULL, 0);
            return -1;
        }
        if (sqlstore_exec(s, "COMMIT", err, errlen))
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

static int sqlstore_game_create(srv_store *base, const srv_game_row *g, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    int rc = -1;
    sqlite3_stmt *gst = NULL, *sst = NULL;
    if (sqlstore_exec(s, "BEGIN IMMEDIATE", err, errlen)) {
        pthread_mutex_unlock(&s->lock);
        return -1;
    }
    if (sqlstore_prepare(s,
                         "INSERT INTO games (id, game, players, options, seed, status, created)"
                         " VALUES (?, ?, ?, ?, ?, 'running', ?)",
                         &gst, err, errlen) ||
        sqlstore_prepare(s,
                         "INSERT INTO seats (game_id, seat, kind, name, level, token_hash)"
                         " VALUES (?, ?, ?, ?, ?, ?)",
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
    if (sqlstore_step_done(s, gst, err, errlen, "adding the game"))
        goto done;
    for (int i = 0; i < g->players; i++) {
        const srv_seat_row *r = &g->seat[i];
        sqlite3_bind_text(sst, 1, g->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(sst, 2, i);
        sqlite3_bind_text(sst, 3, r->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(sst, 4, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(sst, 5, r->level, -1, SQLITE_STATIC);
        if (strcmp(r->kind, "human") == 0)
            sqlite3_bind_blob(sst, 6, r->token_hash, SRV_HASH_LEN, SQLITE_STATIC);
        else
            sqlite3_bind_null(sst, 6);
        if (sqlstore_step_done(s, sst, err, errlen, "adding a seat"))
            goto done;
    }
    rc = sqlstore_exec(s, "COMMIT", err, errlen);
done:
    if (rc)
        sqlstore_exec(s, "ROLLBACK", NULL, 0);
    sqlite3_finalize(gst);
    sqlite3_finalize(sst);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int sqlstore_decision_add(srv_store *base, const char *id, int n, int seat,
                                 const char *move, const char *by, const char *at, char *err,
                                 size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->add_decision;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, n);
    sqlite3_bind_int(st, 3, seat);
    sqlite3_bind_text(st, 4, move, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, by, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, at, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 8, n);
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
 * its game fails alone (its statement is rolled back, not the transaction). */
static int sqlstore_decisions_add(srv_store *base, srv_decision_write *rows, int count, char *err,
                                  size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    for (int i = 0; i < count; i++)
        rows[i].result = -1;
    pthread_mutex_lock(&s->lock);
    if (sqlstore_exec(s, "BEGIN IMMEDIATE", err, errlen)) {
        pthread_mutex_unlock(&s->lock);
        return -1;
    }
    sqlite3_stmt *st = s->add_decision;
    for (int i = 0; i < count; i++) {
        srv_decision_write *w = &rows[i];
        sqlite3_bind_text(st, 1, w->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, w->n);
        sqlite3_bind_int(st, 3, w->seat);
        sqlite3_bind_text(st, 4, w->move, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, w->by, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, w->at, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, w->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 8, w->n);
        char why[TB_ERR_LEN];
        if (sqlstore_step_done(s, st, why, sizeof why, "storing a decision") == 0 &&
            sqlite3_changes(s->db) == 1)
            w->result = 0;
    }
    if (sqlstore_exec(s, "COMMIT", err, errlen)) {
        sqlstore_exec(s, "ROLLBACK", NULL, 0);
        for (int i = 0; i < count; i++)
            rows[i].result = -1;
        pthread_mutex_unlock(&s->lock);
        return -1;
    }
    pthread_mutex_unlock(&s->lock);
    return 0;
}

static int sqlstore_game_finish(srv_store *base, const char *id, const char *finished,
                                const char *result, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->finish;
    sqlite3_bind_text(st, 1, finished, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, result, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
    int rc = sqlstore_step_done(s, st, err, errlen, "finishing a game");
    pthread_mutex_unlock(&s->lock);
    return rc;
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

static char *sqlstore_dup(const unsigned char *src)
{
    if (!src)
        return NULL;
    char *d = strdup((const char *)src);
    if (!d)
        abort();
    return d;
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
                         "SELECT seat, kind, name, level, token_hash, joined FROM seats"
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
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sqlstore_fail(s, err, errlen, "reading seats");
}

#define SQLSTORE_GAME_COLUMNS                                                                    \
    "g.id, g.game, g.players, g.seed, g.status, g.created, g.finished,"                         \
    " (SELECT COUNT(*) FROM decisions d WHERE d.game_id = g.id)"

static int sqlstore_game_load(srv_store *base, const char *id, srv_game_row *g,
                              srv_decision_row **moves, int *count, char *err, size_t errlen)
{
    sqlstore *s = (sqlstore *)base;
    *moves = NULL;
    *count = 0;
    memset(g, 0, sizeof *g);
    pthread_mutex_lock(&s->lock);
    int rc = -1;
    sqlite3_stmt *st = NULL;
    if (sqlstore_exec(s, "BEGIN", err, errlen))
        goto out;
    if (sqlstore_prepare(s,
                         "SELECT " SQLSTORE_GAME_COLUMNS ", g.options, g.result FROM games g"
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
    g->options = sqlstore_dup(sqlite3_column_text(st, 8));
    g->result = sqlstore_dup(sqlite3_column_text(st, 9));
    sqlite3_finalize(st);
    st = NULL;
    if (sqlstore_read_seats(s, g, err, errlen))
        goto done;
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
        m[n].move = sqlstore_dup(sqlite3_column_text(st, 3));
        if (!m[n].move)
            m[n].move = sqlstore_dup((const unsigned char *)"");
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
    sqlstore_exec(s, "COMMIT", NULL, 0);
out:
    pthread_mutex_unlock(&s->lock);
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
    pthread_mutex_lock(&s->lock);
    int rc = -1;
    sqlite3_stmt *st = NULL;
    if (sqlstore_exec(s, "BEGIN", err, errlen))
        goto out;
    if (sqlstore_prepare(s,
                         "SELECT " SQLSTORE_GAME_COLUMNS ", g.result FROM games g"
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
        r[n++].result = sqlstore_dup(sqlite3_column_text(st, 8));
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
    sqlstore_exec(s, "COMMIT", NULL, 0);
out:
    pthread_mutex_unlock(&s->lock);
    return rc;
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
            *json = sqlstore_dup(sqlite3_column_text(st, 0));
            rc = *json ? 0 : sqlstore_fail(s, err, errlen, "reading a review");
        } else {
            rc = step == SQLITE_DONE ? 1 : sqlstore_fail(s, err, errlen, "reading a review");
        }
        sqlite3_finalize(st);
    }
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

static const srv_store_methods sqlstore_methods = {
    .name = "sqlite",
    .writers = 1, /* one writer at a time: batches serve it best */
    .game_create = sqlstore_game_create,
    .decision_add = sqlstore_decision_add,
    .decisions_add = sqlstore_decisions_add,
    .game_finish = sqlstore_game_finish,
    .seat_joined = sqlstore_seat_joined,
    .game_load = sqlstore_game_load,
    .games_list = sqlstore_games_list,
    .close = sqlstore_close,
    .review_save = sqlstore_review_save,
    .review_load = sqlstore_review_load,
};

srv_store *srv_store_sqlite_open(const char *path, bool full_sync, char *err, size_t errlen)
{
    sqlstore *s = calloc(1, sizeof *s);
    if (!s)
        abort();
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
    g->options = g->result = NULL;
}

void srv_decisions_free(srv_decision_row *moves, int count)
{
    for (int i = 0; moves && i < count; i++)
        free(moves[i].move);
    free(moves);
}
