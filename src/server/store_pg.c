/*
 * store_pg.c — the PostgreSQL store (libpq), for several server instances
 * sharing one database (DESIGN.md §9, docs/server.md "PostgreSQL").
 *
 * Schema (docs/server.md): the SQLite tables (games, seats, decisions) plus
 * instances and leases, versioned by the one row of tabula_schema and
 * brought up to date by the migrations below, all missing ones in one
 * transaction under an advisory lock, so instances starting together never
 * race and a database from a newer build is refused rather than damaged.
 *
 * Invariants:
 *   - PGSTORE_SESSIONS connections, each used by one thread at a time; every
 *     write is one statement or one transaction, acknowledged only after
 *     PostgreSQL committed it
 *     (synchronous_commit = on for this session, whatever the server's
 *     default); a batch of decisions (decisions_add) is one INSERT of all
 *     its rows, passed as arrays: one round trip and one commit;
 *   - decisions are numbered 1, 2, 3... by the database itself: (game_id, n)
 *     is the primary key and (game_id, n - 1) a foreign key into the same
 *     table, so a number can be neither stored twice nor skipped;
 *   - leases: a running game is played by the instance whose id is in its
 *     lease row.  Each instance holds a session advisory lock while it runs
 *     on its main connection (class PGSTORE_LOCK_CLASS, key
 *     instances.lock_key), so the database
 *     itself knows which instances are alive: a lease is free when it has
 *     expired or its holder's session is gone (a killed process).  A
 *     decision is inserted only while this instance's lease row exists,
 *     locked FOR SHARE in the same statement, so a takeover (which updates
 *     the row) and a decision of the old holder are ordered by the database
 *     and a game never has two writers.  Statements that lock several lease
 *     rows (a batch of decisions, lease_renew) lock them in game id order,
 *     so they never deadlock;
 *   - a lost connection is re-opened on the next call; a statement that may
 *     have committed before the connection dropped is checked, never blindly
 *     repeated (a decision already stored with the same content counts as
 *     stored).  A batch whose statement failed (a key broken by one row, a
 *     dropped connection) is written again row by row that way, so no row
 *     is reported unstored while stored.
 */
#include "store.h"
#include "rating.h"

#include <ctype.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PGSTORE_LOCK_CLASS 1952539244 /* "tabl": advisory locks of Tabula instances */
#define PGSTORE_ADDRESS_LEN 256
/* Connections per instance: commits of different games overlap, so the
 * database can flush them together (group commit). */
#define PGSTORE_SESSIONS 4

typedef struct pgstore pgstore;

/* One connection; used by one thread at a time (busy). */
typedef struct pgsession {
    pgstore *store;
    PGconn *db;
    bool busy;
    bool main; /* holds the instance's advisory lock; runs the lease statements */
} pgsession;

struct pgstore {
    srv_store base;
    pthread_mutex_t lock; /* guards the busy flags */
    pthread_cond_t freed;
    pgsession session[PGSTORE_SESSIONS];
    char instance[33]; /* random id of this process: the owner in lease rows */
    int lock_key;      /* the advisory lock session 0 holds */
    int lease_seconds;
    char address[PGSTORE_ADDRESS_LEN];
    char label[256]; /* the URL without its password */
};

/* Migration k (1-based) brings the schema from version k-1 to k. */
static const char *const pgstore_migrations[] = {
    /* 1: games, seats, decisions (as in SQLite), instances and leases */
    "CREATE TABLE games ("
    "  id TEXT PRIMARY KEY,"
    "  seq BIGINT GENERATED ALWAYS AS IDENTITY,"
    "  game TEXT NOT NULL,"
    "  players INTEGER NOT NULL,"
    "  options TEXT NOT NULL DEFAULT '{}',"
    "  seed TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('running','over')),"
    "  created TEXT NOT NULL,"
    "  finished TEXT,"
    "  result TEXT"
    ");"
    "CREATE INDEX games_status ON games (status, created);"
    "CREATE TABLE seats ("
    "  game_id TEXT NOT NULL REFERENCES games (id),"
    "  seat INTEGER NOT NULL,"
    "  kind TEXT NOT NULL CHECK (kind IN ('human','ai')),"
    "  name TEXT NOT NULL,"
    "  level TEXT NOT NULL DEFAULT '',"
    "  token_hash BYTEA CHECK (length(token_hash) = 32),"
    "  joined BOOLEAN NOT NULL DEFAULT false,"
    "  PRIMARY KEY (game_id, seat)"
    ");"
    "CREATE TABLE decisions ("
    "  game_id TEXT NOT NULL REFERENCES games (id),"
    "  n INTEGER NOT NULL CHECK (n >= 1),"
    "  prev INTEGER GENERATED ALWAYS AS (NULLIF(n - 1, 0)) STORED,"
    "  seat INTEGER NOT NULL,"
    "  move TEXT NOT NULL,"
    "  by TEXT NOT NULL CHECK (by IN ('human','ai')),"
    "  at TEXT NOT NULL,"
    "  PRIMARY KEY (game_id, n),"
    "  FOREIGN KEY (game_id, prev) REFERENCES decisions (game_id, n)"
    ");"
    "CREATE TABLE instances ("
    "  id TEXT PRIMARY KEY,"
    "  lock_key INTEGER NOT NULL,"
    "  address TEXT NOT NULL DEFAULT '',"
    "  started TIMESTAMPTZ NOT NULL DEFAULT now(),"
    "  seen TIMESTAMPTZ NOT NULL DEFAULT now()"
    ");"
    "CREATE TABLE leases ("
    "  game_id TEXT PRIMARY KEY REFERENCES games (id),"
    "  owner TEXT NOT NULL,"
    "  expires TIMESTAMPTZ NOT NULL"
    ");"
    "CREATE INDEX leases_owner ON leases (owner);"
    "CREATE VIEW live_instances AS"
    "  SELECT i.id, i.address FROM instances i JOIN pg_locks p"
    "    ON p.locktype = 'advisory' AND p.granted AND p.objsubid = 2"
    "   AND p.classid = 1952539244 AND p.objid = i.lock_key::oid"
    "   AND p.database = (SELECT oid FROM pg_database WHERE datname = current_database());",
    /* 2: the review of a finished game (review.c), one per game */
    "CREATE TABLE reviews ("
    "  game_id TEXT PRIMARY KEY REFERENCES games (id),"
    "  review TEXT NOT NULL,"
    "  at TEXT NOT NULL"
    ");",
    /* 3 (lobby.c): open seats, resignations, the creator's key, absent
     * seats, idempotent creation (as in SQLite) */
    "ALTER TABLE seats ADD COLUMN is_open BOOLEAN NOT NULL DEFAULT false;"
    "ALTER TABLE seats ADD COLUMN resigned BOOLEAN NOT NULL DEFAULT false;"
    "CREATE TABLE game_lobby ("
    "  game_id TEXT PRIMARY KEY REFERENCES games (id),"
    "  creator_hash BYTEA CHECK (length(creator_hash) = 32),"
    "  absent_after INTEGER NOT NULL DEFAULT 0"
    ");"
    "CREATE TABLE create_requests ("
    "  key_hash BYTEA PRIMARY KEY CHECK (length(key_hash) = 32),"
    "  game_id TEXT NOT NULL REFERENCES games (id),"
    "  at TEXT NOT NULL"
    ");"
    "CREATE INDEX create_requests_game ON create_requests (game_id);",
    /* 4: take-backs against the computer, kept for the record */
    "CREATE TABLE takebacks ("
    "  game_id TEXT NOT NULL REFERENCES games (id),"
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
    "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  name_key TEXT NOT NULL UNIQUE," /* the name folded for comparison */
    "  pw_hash TEXT NOT NULL,"         /* crypto_pwhash_str: Argon2id */
    "  created TEXT NOT NULL,"
    "  lang TEXT NOT NULL DEFAULT '',"
    "  email TEXT NOT NULL DEFAULT '',"
    "  email_confirmed BOOLEAN NOT NULL DEFAULT false,"
    "  email_token_hash BYTEA,"     /* the pending confirmation link */
    "  unsubscribe_hash BYTEA,"     /* the one-click unsubscribe link */
    "  turn_emails BOOLEAN NOT NULL DEFAULT true"
    ");"
    "CREATE TABLE sessions ("
    "  token_hash BYTEA PRIMARY KEY,"
    "  account_id BIGINT NOT NULL REFERENCES accounts (id),"
    "  created TEXT NOT NULL,"
    "  last_used TEXT NOT NULL"
    ");"
    "CREATE INDEX sessions_account ON sessions (account_id);"
    "ALTER TABLE seats ADD COLUMN account_id BIGINT REFERENCES accounts (id);"
    "CREATE INDEX seats_account ON seats (account_id);"
    "ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;"
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

#define PGSTORE_VERSION ((int)(sizeof pgstore_migrations / sizeof pgstore_migrations[0]))

/* A lease row `l` that no live instance holds (SQL condition). */
#define PGSTORE_LEASE_FREE "(l.expires < now() OR l.owner NOT IN (SELECT id FROM live_instances))"

int srv_store_pg_version(void)
{
    return PGSTORE_VERSION;
}

bool srv_store_is_pg_url(const char *db)
{
    return db && (strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0);
}

/* Copies `src` as one line: runs of white space become one space. */
static void pgstore_oneline(char *dst, size_t n, const char *src)
{
    size_t o = 0;
    bool space = false;
    for (; src && *src && o + 1 < n; src++) {
        if (isspace((unsigned char)*src)) {
            space = o > 0;
            continue;
        }
        if (space && o + 2 < n)
            dst[o++] = ' ';
        space = false;
        dst[o++] = *src;
    }
    if (n)
        dst[o < n ? o : n - 1] = '\0';
}

void srv_store_pg_label(const char *url, char *out, size_t outlen)
{
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(url, &msg);
    PQfreemem(msg);
    const char *user = "", *host = "", *port = "", *dbname = "";
    for (PQconninfoOption *o = opts; o && o->keyword; o++) {
        const char *v = o->val ? o->val : "";
        if (strcmp(o->keyword, "user") == 0)
            user = v;
        else if (strcmp(o->keyword, "host") == 0)
            host = v;
        else if (strcmp(o->keyword, "port") == 0)
            port = v;
        else if (strcmp(o->keyword, "dbname") == 0)
            dbname = v;
    }
    snprintf(out, outlen, "postgresql://%s%s%s%s%s/%s", user, *user ? "@" : "", host,
             *port ? ":" : "", port, dbname);
    PQconninfoFree(opts);
}

static int pgstore_fail(pgsession *s, const PGresult *res, char *err, size_t errlen,
                        const char *what)
{
    if (!res && PQstatus(s->db) == CONNECTION_OK) {
        /* no result on a sound connection: libpq ran out of memory */
        snprintf(err, errlen, SRV_NOMEM_PREFIX " (database: %s)", what);
        return -1;
    }
    const char *m = res ? PQresultErrorMessage(res) : NULL;
    if (!m || !*m)
        m = PQerrorMessage(s->db);
    char line[512];
    pgstore_oneline(line, sizeof line, m && *m ? m : "unknown error");
    /* a long server message is cut to fit: the start says what went wrong */
    if (snprintf(err, errlen, "database: %s: %s", what, line) >= (int)errlen && errlen > 4)
        memcpy(err + errlen - 4, "...", 4);
    return -1;
}

static bool pgstore_is(const PGresult *res, ExecStatusType want)
{
    return res && PQresultStatus(res) == want;
}

static bool pgstore_sqlstate(const PGresult *res, const char *state)
{
    const char *c = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return c && strcmp(c, state) == 0;
}

static PGresult *pgstore_params(pgsession *s, const char *sql, int n, const char *const *values)
{
    return PQexecParams(s->db, sql, n, NULL, values, NULL, NULL, 0);
}

/* Runs a statement without parameters and checks it succeeded. */
static int pgstore_exec(pgsession *s, const char *sql, char *err, size_t errlen, const char *what)
{
    PGresult *r = PQexec(s->db, sql);
    int rc = pgstore_is(r, PGRES_COMMAND_OK) || pgstore_is(r, PGRES_TUPLES_OK)
                 ? 0
                 : pgstore_fail(s, r, err, errlen, what);
    PQclear(r);
    return rc;
}

static void pgstore_quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message; /* NOTICEs (e.g. "relation already exists") are not for the log */
}

/* Takes this instance's advisory lock (a new key if another session holds
 * this one) and records it in the instances row. */
static int pgstore_hold_lock(pgsession *s, bool fresh, char *err, size_t errlen)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        if (fresh || attempt > 0)
            s->store->lock_key = (int)(randombytes_uniform(0x7ffffffeu) + 1u);
        char cls[16], key[16];
        snprintf(cls, sizeof cls, "%d", PGSTORE_LOCK_CLASS);
        snprintf(key, sizeof key, "%d", s->store->lock_key);
        const char *p[] = {cls, key};
        PGresult *r = pgstore_params(s, "SELECT pg_try_advisory_lock($1::int, $2::int)", 2, p);
        if (!pgstore_is(r, PGRES_TUPLES_OK)) {
            pgstore_fail(s, r, err, errlen, "taking the instance lock");
            PQclear(r);
            return -1;
        }
        bool got = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
        PQclear(r);
        if (got)
            return 0;
    }
    snprintf(err, errlen, "database: cannot take an instance lock");
    return -1;
}

/* Writes this instance's row (after its lock is held). */
static int pgstore_register(pgsession *s, char *err, size_t errlen)
{
    char key[16];
    snprintf(key, sizeof key, "%d", s->store->lock_key);
    const char *p[] = {s->store->instance, key, s->store->address};
    PGresult *r = pgstore_params(s,
                                 "INSERT INTO instances (id, lock_key, address) VALUES ($1, $2, $3)"
                                 " ON CONFLICT (id) DO UPDATE SET lock_key = EXCLUDED.lock_key,"
                                 " address = EXCLUDED.address, seen = now()",
                                 3, p);
    int rc = pgstore_is(r, PGRES_COMMAND_OK) ? 0 : pgstore_fail(s, r, err, errlen, "registering");
    PQclear(r);
    return rc;
}

static int pgstore_session(pgsession *s, char *err, size_t errlen)
{
    PQsetNoticeProcessor(s->db, pgstore_quiet, NULL);
    return pgstore_exec(s, "SET synchronous_commit = on", err, errlen, "setting up the session");
}

/* Re-opens a dropped connection (the lock and the instances row with it). */
static int pgstore_ensure(pgsession *s, char *err, size_t errlen)
{
    if (PQstatus(s->db) == CONNECTION_OK)
        return 0;
    PQreset(s->db);
    if (PQstatus(s->db) != CONNECTION_OK)
        return pgstore_fail(s, NULL, err, errlen, "the connection is lost");
    if (pgstore_session(s, err, errlen))
        return -1;
    if (s->main && (pgstore_hold_lock(s, false, err, errlen) || pgstore_register(s, err, errlen)))
        return -1;
    return 0;
}

static bool pgstore_lost(pgsession *s)
{
    return PQstatus(s->db) != CONNECTION_OK;
}

static int pgstore_migrate(pgsession *s, char *err, size_t errlen)
{
    char cls[16];
    snprintf(cls, sizeof cls, "%d", PGSTORE_LOCK_CLASS);
    const char *p[] = {cls};
    if (pgstore_exec(s, "BEGIN", err, errlen, "migrating"))
        return -1;
    PGresult *r = pgstore_params(s, "SELECT pg_advisory_xact_lock($1::int, 0)", 1, p);
    bool ok = pgstore_is(r, PGRES_TUPLES_OK);
    if (!ok)
        pgstore_fail(s, r, err, errlen, "locking the schema");
    PQclear(r);
    if (!ok || pgstore_exec(s, "CREATE TABLE IF NOT EXISTS tabula_schema (version INTEGER NOT NULL)",
                            err, errlen, "creating the version table"))
        goto fail;
    r = PQexec(s->db, "SELECT version FROM tabula_schema");
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "reading the schema version");
        PQclear(r);
        goto fail;
    }
    int have = PQntuples(r) > 0 ? atoi(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    if (have > PGSTORE_VERSION) {
        snprintf(err, errlen,
                 "database: schema version %d is newer than this build knows (%d); "
                 "use a newer tabula",
                 have, PGSTORE_VERSION);
        goto fail;
    }
    if (have < 0 && pgstore_exec(s, "INSERT INTO tabula_schema VALUES (0)", err, errlen,
                                 "writing the schema version"))
        goto fail;
    for (int v = have < 0 ? 0 : have; v < PGSTORE_VERSION; v++) {
        char bump[64];
        snprintf(bump, sizeof bump, "UPDATE tabula_schema SET version = %d", v + 1);
        if (pgstore_exec(s, pgstore_migrations[v], err, errlen, "migrating the schema") ||
            pgstore_exec(s, bump, err, errlen, "writing the schema version"))
            goto fail;
    }
    return pgstore_exec(s, "COMMIT", err, errlen, "migrating");
fail:
    pgstore_exec(s, "ROLLBACK", NULL, 0, "");
    return -1;
}

/* A free connection for one call (the main one when asked): waits while
 * every one is busy. */
static pgsession *pgstore_take(pgstore *st, bool main)
{
    pthread_mutex_lock(&st->lock);
    pgsession *s = NULL;
    while (!s) {
        for (int i = main ? 0 : PGSTORE_SESSIONS - 1; !s && i >= 0; i--)
            if (!st->session[i].busy && (!main || i == 0))
                s = &st->session[i];
        if (!s)
            pthread_cond_wait(&st->freed, &st->lock);
    }
    s->busy = true;
    pthread_mutex_unlock(&st->lock);
    return s;
}

static void pgstore_give(pgstore *st, pgsession *s)
{
    pthread_mutex_lock(&st->lock);
    s->busy = false;
    pthread_cond_broadcast(&st->freed);
    pthread_mutex_unlock(&st->lock);
}

/* ---- games ---- */

static void pgstore_hex_of(const uint8_t hash[SRV_HASH_LEN], char out[2 * SRV_HASH_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int k = 0; k < SRV_HASH_LEN; k++) {
        out[2 * k] = digits[hash[k] >> 4];
        out[2 * k + 1] = digits[hash[k] & 15];
    }
    out[2 * SRV_HASH_LEN] = '\0';
}

/* The lobby rows of a new game inside game_create's transaction: 2 when its
 * request key already made a game since request_since. */
static int pgstore_create_lobby(pgsession *s, const srv_game_row *g, char *err, size_t errlen)
{
    char creator[2 * SRV_HASH_LEN + 1], absent[16];
    pgstore_hex_of(g->creator_hash, creator);
    snprintf(absent, sizeof absent, "%d", g->absent_after);
    const char *lp[] = {g->id, g->has_creator ? creator : NULL, absent};
    PGresult *r = pgstore_params(s,
                                 "INSERT INTO game_lobby (game_id, creator_hash, absent_after)"
                                 " VALUES ($1, decode($2, 'hex'), $3::int)",
                                 3, lp);
    int rc = pgstore_is(r, PGRES_COMMAND_OK) ? 0
                                             : pgstore_fail(s, r, err, errlen, "adding the lobby row");
    PQclear(r);
    if (rc || !g->has_request)
        return rc;
    char key[2 * SRV_HASH_LEN + 1];
    pgstore_hex_of(g->request_hash, key);
    const char *rp[] = {key, g->id, g->created, g->request_since};
    r = pgstore_params(s,
                       "INSERT INTO create_requests (key_hash, game_id, at)"
                       " VALUES (decode($1, 'hex'), $2, $3) ON CONFLICT (key_hash) DO UPDATE"
                       " SET game_id = excluded.game_id, at = excluded.at"
                       " WHERE create_requests.at < $4",
                       4, rp);
    if (!pgstore_is(r, PGRES_COMMAND_OK))
        rc = pgstore_fail(s, r, err, errlen, "remembering the creation request");
    else if (strcmp(PQcmdTuples(r), "1") != 0)
        rc = 2;
    PQclear(r);
    return rc;
}

static int pgstore_create_once(pgsession *s, const srv_game_row *g, bool retry, char *err,
                               size_t errlen)
{
    if (pgstore_ensure(s, err, errlen))
        return -1;
    if (retry) {
        /* The first attempt may have committed before the connection
         * dropped; a game id is 60 random bits, so finding it means ours. */
        const char *p[] = {g->id};
        PGresult *r = pgstore_params(s, "SELECT 1 FROM games WHERE id = $1", 1, p);
        bool ok = pgstore_is(r, PGRES_TUPLES_OK), found = ok && PQntuples(r) == 1;
        if (!ok)
            pgstore_fail(s, r, err, errlen, "checking a new game");
        PQclear(r);
        if (!ok || found)
            return ok ? 0 : -1;
    }
    if (pgstore_exec(s, "BEGIN", err, errlen, "adding the game"))
        return -1;
    char players[16], seed[24], secs[16];
    snprintf(players, sizeof players, "%d", g->players);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)g->seed);
    snprintf(secs, sizeof secs, "%d", s->store->lease_seconds);
    const char *gp[] = {g->id, g->game, players, g->options ? g->options : "{}", seed, g->created,
                        g->rated ? "true" : "false"};
    PGresult *r = pgstore_params(s,
                                 "INSERT INTO games (id, game, players, options, seed, status, created,"
                                 " rated) VALUES ($1, $2, $3, $4, $5, 'running', $6, $7)",
                                 7, gp);
    bool ok = pgstore_is(r, PGRES_COMMAND_OK);
    if (!ok)
        pgstore_fail(s, r, err, errlen, "adding the game");
    PQclear(r);
    for (int i = 0; ok && i < g->players; i++) {
        const srv_seat_row *sr = &g->seat[i];
        char seat[16], account[24];
        snprintf(seat, sizeof seat, "%d", i);
        snprintf(account, sizeof account, "%lld", (long long)sr->account_id);
        bool human = strcmp(sr->kind, "human") == 0;
        const char *sp[] = {g->id, seat, sr->kind, sr->name, sr->level,
                            human && !sr->open ? (const char *)sr->token_hash : NULL,
                            sr->open ? "true" : "false", sr->account_id > 0 ? account : NULL};
        int lens[] = {0, 0, 0, 0, 0, SRV_HASH_LEN, 0, 0};
        int fmts[] = {0, 0, 0, 0, 0, 1, 0, 0};
        r = PQexecParams(s->db,
                         "INSERT INTO seats (game_id, seat, kind, name, level, token_hash, is_open,"
                         " account_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::bigint)",
                         8, NULL, sp, lens, fmts, 0);
        ok = pgstore_is(r, PGRES_COMMAND_OK);
        if (!ok)
            pgstore_fail(s, r, err, errlen, "adding a seat");
        PQclear(r);
    }
    if (ok) {
        const char *lp[] = {g->id, s->store->instance, secs};
        r = pgstore_params(s,
                           "INSERT INTO leases (game_id, owner, expires)"
                           " VALUES ($1, $2, now() + make_interval(secs => $3::int))",
                           3, lp);
        ok = pgstore_is(r, PGRES_COMMAND_OK);
        if (!ok)
            pgstore_fail(s, r, err, errlen, "taking the new game's lease");
        PQclear(r);
    }
    int lobby = ok ? pgstore_create_lobby(s, g, err, errlen) : -1;
    if (lobby == 0)
        return pgstore_exec(s, "COMMIT", err, errlen, "adding the game");
    pgstore_exec(s, "ROLLBACK", NULL, 0, "");
    return lobby == 2 ? 2 : -1;
}

static int pgstore_game_create(srv_store *base, const srv_game_row *g, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_create_once(s, g, false, err, errlen);
    if (rc < 0 && pgstore_lost(s))
        rc = pgstore_create_once(s, g, true, err, errlen);
    pgstore_give(st, s);
    return rc;
}

/* 0: decision n of game id is stored with this seat and move; 1: another
 * decision has that number; -1: error. */
static int pgstore_decision_is(pgsession *s, const char *id, const char *n, int seat,
                               const char *move, char *err, size_t errlen)
{
    const char *p[] = {id, n};
    PGresult *r = pgstore_params(s, "SELECT seat, move FROM decisions WHERE game_id = $1 AND n = $2",
                                 2, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "checking a decision");
        PQclear(r);
        return -1;
    }
    int rc = PQntuples(r) == 1 && atoi(PQgetvalue(r, 0, 0)) == seat &&
                     strcmp(PQgetvalue(r, 0, 1), move) == 0
                 ? 0
                 : 1;
    PQclear(r);
    return rc;
}

/* Why decision n of game id was not inserted although the statement ran:
 * 1 when another instance holds the game's lease, -1 (err says why) when the
 * game is over or unknown, or on an error. */
static int pgstore_decision_refused(pgsession *s, const char *id, int n, char *err,
                                    size_t errlen)
{
    const char *q[] = {id, s->store->instance};
    PGresult *r = pgstore_params(s,
                                 "SELECT g.status, l.owner = $2 FROM games g"
                                 " LEFT JOIN leases l ON l.game_id = g.id WHERE g.id = $1",
                                 2, q);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "checking a refused decision");
        PQclear(r);
        return -1;
    }
    int rc;
    if (PQntuples(r) == 0) {
        snprintf(err, errlen, "database: there is no game %s", id);
        rc = -1;
    } else if (strcmp(PQgetvalue(r, 0, 0), "running") != 0) {
        snprintf(err, errlen, "database: game %s is over", id);
        rc = -1;
    } else if (strcmp(PQgetvalue(r, 0, 1), "t") != 0) {
        snprintf(err, errlen, "database: another server instance plays game %s now", id);
        rc = 1;
    } else {
        snprintf(err, errlen, "database: decision %d of game %s was not stored", n, id);
        rc = -1;
    }
    PQclear(r);
    return rc;
}

static int pgstore_decision_once(pgsession *s, const char *id, int n, int seat, const char *move,
                                 const char *by, const char *at, bool retry, char *err,
                                 size_t errlen)
{
    if (pgstore_ensure(s, err, errlen))
        return -1;
    char nt[16], st[16];
    snprintf(nt, sizeof nt, "%d", n);
    snprintf(st, sizeof st, "%d", seat);
    const char *p[] = {id, nt, st, move, by, at, s->store->instance};
    PGresult *r = pgstore_params(
        s,
        "WITH fence AS (SELECT 1 FROM leases WHERE game_id = $1 AND owner = $7 FOR SHARE)"
        " INSERT INTO decisions (game_id, n, seat, move, by, at)"
        " SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM fence)"
        " AND EXISTS (SELECT 1 FROM games WHERE id = $1 AND status = 'running')",
        7, p);
    if (pgstore_is(r, PGRES_COMMAND_OK)) {
        bool stored = strcmp(PQcmdTuples(r), "1") == 0;
        PQclear(r);
        return stored ? 0 : pgstore_decision_refused(s, id, n, err, errlen);
    }
    int rc = -1;
    if (pgstore_sqlstate(r, "23505") || pgstore_sqlstate(r, "23503")) {
        /* Number n is taken (unique key) or n - 1 is missing (foreign key).
         * After a dropped connection the first attempt may be the one
         * stored. */
        int same = retry && pgstore_sqlstate(r, "23505")
                       ? pgstore_decision_is(s, id, nt, seat, move, err, errlen)
                       : 1;
        if (same == 0)
            rc = 0;
        else if (same == 1)
            snprintf(err, errlen, "database: decision %d of game %s is not the next one", n, id);
    } else {
        pgstore_fail(s, r, err, errlen, "storing a decision");
    }
    PQclear(r);
    return rc;
}

/* One decision in its own statement, once more (checking) after a dropped
 * connection; `retry`: an earlier attempt may have stored it already. */
static int pgstore_decision_write(pgsession *s, const srv_decision_write *w, bool retry,
                                  char *err, size_t errlen)
{
    int rc = pgstore_decision_once(s, w->id, w->n, w->seat, w->move, w->by, w->at, retry, err,
                                   errlen);
    if (rc < 0 && pgstore_lost(s))
        rc = pgstore_decision_once(s, w->id, w->n, w->seat, w->move, w->by, w->at, true, err,
                                   errlen);
    return rc;
}

static int pgstore_decision_add(srv_store *base, const char *id, int n, int seat,
                                const char *move, const char *by, const char *at, char *err,
                                size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    const srv_decision_write w = {.id = id, .n = n, .seat = seat, .move = move, .by = by, .at = at};
    int rc = pgstore_decision_write(s, &w, false, err, errlen);
    pgstore_give(st, s);
    return rc;
}

/* A growing text buffer for array literals; `failed` once memory ran out. */
typedef struct pgstore_buf {
    char *p;
    size_t len, cap;
    bool failed;
} pgstore_buf;

static void pgstore_put(pgstore_buf *b, const char *text, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->p, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->len, text, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* Appends one element of a text[] literal: always double-quoted, with every
 * double quote and backslash escaped by a backslash, so spaces, commas,
 * braces and the word NULL stay plain text. */
static void pgstore_put_text(pgstore_buf *b, const char *text)
{
    pgstore_put(b, b->len > 1 ? ",\"" : "\"", b->len > 1 ? 2 : 1);
    for (const char *c = text; *c;) {
        size_t run = strcspn(c, "\"\\");
        pgstore_put(b, c, run);
        c += run;
        if (*c) {
            char esc[2] = {'\\', *c++};
            pgstore_put(b, esc, 2);
        }
    }
    pgstore_put(b, "\"", 1);
}

static void pgstore_put_int(pgstore_buf *b, int v)
{
    char num[16];
    int n = snprintf(num, sizeof num, "%s%d", b->len > 1 ? "," : "", v);
    pgstore_put(b, num, (size_t)n);
}

/* The columns of a batch as array literals, in the order of $1..$6. */
enum { PGSTORE_COL_ID, PGSTORE_COL_N, PGSTORE_COL_SEAT, PGSTORE_COL_MOVE, PGSTORE_COL_BY,
       PGSTORE_COL_AT, PGSTORE_COLS };

/* The whole batch in one statement: one round trip, one commit.  The fence
 * locks the lease rows of the batch's games that this instance holds, in
 * game order (lease_renew locks in the same order, so the two never
 * deadlock); a row is inserted only if its game's lease row was locked and
 * the game is running; RETURNING names the rows stored.  -1 (nothing
 * stored, or a dropped connection: maybe everything) when the statement
 * failed. */
static int pgstore_batch_once(pgsession *s, srv_decision_write *rows, int count, char *err,
                              size_t errlen)
{
    pgstore_buf col[PGSTORE_COLS] = {{0}};
    for (int c = 0; c < PGSTORE_COLS; c++)
        pgstore_put(&col[c], "{", 1);
    for (int i = 0; i < count; i++) {
        pgstore_put_text(&col[PGSTORE_COL_ID], rows[i].id);
        pgstore_put_int(&col[PGSTORE_COL_N], rows[i].n);
        pgstore_put_int(&col[PGSTORE_COL_SEAT], rows[i].seat);
        pgstore_put_text(&col[PGSTORE_COL_MOVE], rows[i].move);
        pgstore_put_text(&col[PGSTORE_COL_BY], rows[i].by);
        pgstore_put_text(&col[PGSTORE_COL_AT], rows[i].at);
    }
    bool failed = false;
    for (int c = 0; c < PGSTORE_COLS; c++) {
        pgstore_put(&col[c], "}", 1);
        failed = failed || col[c].failed;
    }
    int rc = -1;
    if (failed) {
        snprintf(err, errlen, "out of memory storing %d decisions", count);
        goto done;
    }
    const char *p[] = {col[0].p, col[1].p, col[2].p, col[3].p, col[4].p, col[5].p,
                       s->store->instance};
    PGresult *r = pgstore_params(
        s,
        "WITH r AS (SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[],"
        " $5::text[], $6::text[]) AS r (game_id, n, seat, move, by, at)),"
        " fence AS (SELECT l.game_id FROM leases l"
        "  WHERE l.game_id IN (SELECT game_id FROM r) AND l.owner = $7"
        "  ORDER BY l.game_id FOR SHARE)"
        " INSERT INTO decisions (game_id, n, seat, move, by, at)"
        " SELECT r.game_id, r.n, r.seat, r.move, r.by, r.at FROM r"
        " WHERE r.game_id IN (SELECT game_id FROM fence)"
        " AND EXISTS (SELECT 1 FROM games g WHERE g.id = r.game_id AND g.status = 'running')"
        " RETURNING game_id, n",
        7, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "storing decisions");
        PQclear(r);
        goto done;
    }
    for (int k = 0; k < PQntuples(r); k++) {
        const char *id = PQgetvalue(r, k, 0);
        int n = atoi(PQgetvalue(r, k, 1));
        for (int i = 0; i < count; i++)
            if (rows[i].result != 0 && rows[i].n == n && strcmp(rows[i].id, id) == 0) {
                rows[i].result = 0;
                break;
            }
    }
    PQclear(r);
    rc = 0;
done:
    for (int c = 0; c < PGSTORE_COLS; c++)
        free(col[c].p);
    return rc;
}

static int pgstore_decisions_add(srv_store *base, srv_decision_write *rows, int count, char *err,
                                 size_t errlen)
{
    pgstore *st = (pgstore *)base;
    for (int i = 0; i < count; i++)
        rows[i].result = -1;
    if (count <= 0)
        return 0;
    pgsession *s = pgstore_take(st, false);
    int rc = -1;
    if (pgstore_ensure(s, err, errlen))
        goto done;
    if (pgstore_batch_once(s, rows, count, err, errlen) == 0) {
        /* Rows not stored: ask why, one by one (the lease is elsewhere, or
         * the game is over or unknown). */
        for (int i = 0; i < count; i++)
            if (rows[i].result != 0)
                rows[i].result = pgstore_decision_refused(s, rows[i].id, rows[i].n, err, errlen);
        rc = 0;
        goto done;
    }
    /* The statement failed: one row broke a key (the others are fine), or
     * the connection dropped (the commit may have happened).  Each row on
     * its own, checking for one stored after all. */
    for (int i = 0; i < count; i++) {
        rows[i].result = pgstore_decision_write(s, &rows[i], true, err, errlen);
        if (rows[i].result >= 0)
            rc = 0;
        else if (pgstore_lost(s))
            break; /* no connection: the rest fail with this error */
    }
done:
    pgstore_give(st, s);
    return rc;
}

/* Undo and take back in one statement, fenced by the lease like a
 * decision: the decisions after `keep` go and the note (if any) is kept.
 * `retry`: an earlier attempt may have done it already. */
static int pgstore_truncate_once(pgsession *s, const char *id, int keep, const char *note,
                                 bool retry, char *err, size_t errlen)
{
    if (pgstore_ensure(s, err, errlen))
        return -1;
    char kt[16];
    snprintf(kt, sizeof kt, "%d", keep);
    const char *p[] = {id, kt, note, s->store->instance};
    PGresult *r = pgstore_params(
        s,
        "WITH fence AS (SELECT 1 FROM leases WHERE game_id = $1::text AND owner = $4::text"
        " FOR SHARE),"
        " gone AS (DELETE FROM decisions WHERE game_id = $1::text AND n > $2::int"
        " AND EXISTS (SELECT 1 FROM fence)"
        " AND EXISTS (SELECT 1 FROM games WHERE id = $1::text AND status = 'running')"
        " RETURNING n),"
        " kept AS (INSERT INTO takebacks (game_id, k, note) SELECT $1::text,"
        " (SELECT COUNT(*) + 1 FROM takebacks WHERE game_id = $1::text), $3::text"
        " WHERE $3::text IS NOT NULL AND EXISTS (SELECT 1 FROM gone) RETURNING k)"
        " SELECT (SELECT COUNT(*) FROM gone), (SELECT COUNT(*) FROM decisions"
        " WHERE game_id = $1::text AND n > $2::int)",
        4, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        int rc = pgstore_fail(s, r, err, errlen, "taking decisions back");
        PQclear(r);
        return rc;
    }
    bool removed = atoi(PQgetvalue(r, 0, 0)) > 0;
    bool none_left = atoi(PQgetvalue(r, 0, 1)) == 0;
    PQclear(r);
    if (removed)
        return 0;
    int refused = pgstore_decision_refused(s, id, keep + 1, err, errlen);
    if (refused == 1)
        return 1;
    if (retry && none_left && refused == -1 && strstr(err, "was not stored"))
        return 0; /* the first attempt did it before the connection dropped */
    if (refused != 1 && strstr(err, "was not stored"))
        snprintf(err, errlen, "database: game %s has no decision after %d to take back", id, keep);
    return -1;
}

static int pgstore_decisions_truncate(srv_store *base, const char *id, int keep,
                                      const char *note, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_truncate_once(s, id, keep, note, false, err, errlen);
    if (rc < 0 && pgstore_lost(s))
        rc = pgstore_truncate_once(s, id, keep, note, true, err, errlen);
    pgstore_give(st, s);
    return rc;
}

/* Runs one idempotent statement, once more after a dropped connection. */
static int pgstore_write(pgsession *s, const char *sql, int n, const char *const *p, char *err,
                         size_t errlen, const char *what)
{
    int rc = -1;
    for (int attempt = 0; attempt < 2 && rc; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        if (pgstore_ensure(s, err, errlen))
            continue;
        PGresult *r = pgstore_params(s, sql, n, p);
        rc = pgstore_is(r, PGRES_COMMAND_OK) || pgstore_is(r, PGRES_TUPLES_OK)
                 ? 0
                 : pgstore_fail(s, r, err, errlen, what);
        PQclear(r);
    }
    return rc;
}

static int pgstore_rate(pgsession *s, const char *id, const char *game, const char *at,
                        const int *ranks, char *err, size_t errlen);

/* The end of a game and, for a rated one, its ratings: one transaction
 * (store.h).  A retry after a dropped connection finds the game over if the
 * first attempt committed, and then does nothing. */
static int pgstore_finish_once(pgsession *s, const char *id, const char *finished,
                               const char *result, const int *ranks, char *err, size_t errlen)
{
    if (pgstore_ensure(s, err, errlen) || pgstore_exec(s, "BEGIN", err, errlen, "finishing a game"))
        return -1;
    /* The first instance to see the end finishes the game, unless another
     * live instance holds it (that one finishes it); the lease goes. */
    const char *p[] = {id, finished, result, s->store->instance};
    PGresult *r = pgstore_params(s,
                                 "WITH fin AS (UPDATE games SET status = 'over', finished = $2,"
                                 " result = $3 WHERE id = $1 AND status = 'running' AND NOT EXISTS"
                                 " (SELECT 1 FROM leases l WHERE l.game_id = $1 AND l.owner <> $4"
                                 " AND NOT " PGSTORE_LEASE_FREE ") RETURNING id, game, rated),"
                                 " gone AS (DELETE FROM leases WHERE game_id IN (SELECT id FROM fin))"
                                 " SELECT game, rated FROM fin",
                                 4, p);
    int rc = pgstore_is(r, PGRES_TUPLES_OK) ? 0 : pgstore_fail(s, r, err, errlen, "finishing a game");
    if (rc == 0 && ranks && PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 1), "t") == 0)
        rc = pgstore_rate(s, id, PQgetvalue(r, 0, 0), finished, ranks, err, errlen);
    PQclear(r);
    if (rc == 0)
        return pgstore_exec(s, "COMMIT", err, errlen, "finishing a game");
    pgstore_exec(s, "ROLLBACK", NULL, 0, "");
    return -1;
}

static int pgstore_game_finish(srv_store *base, const char *id, const char *finished,
                               const char *result, const int *ranks, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_finish_once(s, id, finished, result, ranks, err, errlen);
    if (rc < 0 && pgstore_lost(s))
        rc = pgstore_finish_once(s, id, finished, result, ranks, err, errlen);
    pgstore_give(st, s);
    return rc;
}

static int pgstore_seat_joined(srv_store *base, const char *id, int seat, char *err,
                               size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char seatno[16];
    snprintf(seatno, sizeof seatno, "%d", seat);
    const char *p[] = {id, seatno};
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_write(s, "UPDATE seats SET joined = true WHERE game_id = $1 AND seat = $2", 2,
                           p, err, errlen, "marking a seat joined");
    pgstore_give(st, s);
    return rc;
}

/* A malloc'd copy of a field into *out (NULL for SQL NULL); -1 when memory
 * runs out. */
static int pgstore_dup(const PGresult *r, int row, int col, char **out)
{
    *out = NULL;
    if (PQgetisnull(r, row, col))
        return 0;
    *out = strdup(PQgetvalue(r, row, col));
    return *out ? 0 : -1;
}

static void pgstore_copy(char *dst, size_t n, const PGresult *r, int row, int col)
{
    snprintf(dst, n, "%s", PQgetvalue(r, row, col)); /* "" for NULL */
}

/* Columns 0-7 of a row selecting PGSTORE_GAME_COLUMNS. */
#define PGSTORE_GAME_COLUMNS                                                                     \
    "g.id, g.game, g.players, g.seed, g.status, g.created, g.finished,"                         \
    " (SELECT count(*) FROM decisions d WHERE d.game_id = g.id)"

static void pgstore_read_game(const PGresult *r, int row, srv_game_row *g)
{
    memset(g, 0, sizeof *g);
    pgstore_copy(g->id, sizeof g->id, r, row, 0);
    pgstore_copy(g->game, sizeof g->game, r, row, 1);
    g->players = atoi(PQgetvalue(r, row, 2));
    g->seed = strtoull(PQgetvalue(r, row, 3), NULL, 10);
    pgstore_copy(g->status, sizeof g->status, r, row, 4);
    pgstore_copy(g->created, sizeof g->created, r, row, 5);
    pgstore_copy(g->finished, sizeof g->finished, r, row, 6);
    g->decisions = atoi(PQgetvalue(r, row, 7));
}

/* Seat columns from `col`: seat, kind, name, level, joined. */
static void pgstore_read_seat(const PGresult *r, int row, int col, srv_game_row *g)
{
    int seat = atoi(PQgetvalue(r, row, col));
    if (seat < 0 || seat >= TB_MAX_SEATS)
        return;
    srv_seat_row *sr = &g->seat[seat];
    pgstore_copy(sr->kind, sizeof sr->kind, r, row, col + 1);
    pgstore_copy(sr->name, sizeof sr->name, r, row, col + 2);
    pgstore_copy(sr->level, sizeof sr->level, r, row, col + 3);
    sr->joined = strcmp(PQgetvalue(r, row, col + 4), "t") == 0;
}

static int pgstore_hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int pgstore_load_once(pgsession *s, const char *id, srv_game_row *g,
                             srv_decision_row **moves, int *count, char *err, size_t errlen)
{
    if (pgstore_ensure(s, err, errlen))
        return -1;
    /* One snapshot for the game, its seats and its decisions. */
    if (pgstore_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err, errlen,
                     "reading a game"))
        return -1;
    int rc = -1;
    const char *p[] = {id};
    PGresult *r = pgstore_params(s,
                                 "SELECT " PGSTORE_GAME_COLUMNS ", g.options, g.result, g.rated FROM games g"
                                 " WHERE g.id = $1",
                                 1, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "reading a game");
        goto done;
    }
    if (PQntuples(r) == 0) {
        rc = 1;
        goto done;
    }
    pgstore_read_game(r, 0, g);
    g->rated = strcmp(PQgetvalue(r, 0, 10), "t") == 0;
    if (pgstore_dup(r, 0, 8, &g->options) || pgstore_dup(r, 0, 9, &g->result)) {
        snprintf(err, errlen, "out of memory reading game %s", id);
        goto done;
    }
    PQclear(r);
    r = pgstore_params(s,
                       "SELECT seat, kind, name, level, joined, encode(token_hash, 'hex'),"
                       " is_open, resigned, COALESCE(account_id, 0) FROM seats WHERE game_id = $1"
                       " ORDER BY seat",
                       1, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "reading seats");
        goto done;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        pgstore_read_seat(r, i, 0, g);
        int seat = atoi(PQgetvalue(r, i, 0));
        const char *hex = PQgetvalue(r, i, 5);
        if (seat >= 0 && seat < TB_MAX_SEATS) {
            g->seat[seat].open = strcmp(PQgetvalue(r, i, 6), "t") == 0;
            g->seat[seat].resigned = strcmp(PQgetvalue(r, i, 7), "t") == 0;
            g->seat[seat].account_id = strtoll(PQgetvalue(r, i, 8), NULL, 10);
        }
        if (seat < 0 || seat >= TB_MAX_SEATS || strlen(hex) != 2 * SRV_HASH_LEN)
            continue;
        for (int k = 0; k < SRV_HASH_LEN; k++)
            g->seat[seat].token_hash[k] =
                (uint8_t)(pgstore_hex(hex[2 * k]) << 4 | pgstore_hex(hex[2 * k + 1]));
    }
    PQclear(r);
    r = pgstore_params(s,
                       "SELECT encode(creator_hash, 'hex'), absent_after FROM game_lobby"
                       " WHERE game_id = $1",
                       1, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "reading the lobby row");
        goto done;
    }
    if (PQntuples(r) == 1) {
        const char *hex = PQgetvalue(r, 0, 0);
        g->has_creator = strlen(hex) == 2 * SRV_HASH_LEN;
        for (int k = 0; g->has_creator && k < SRV_HASH_LEN; k++)
            g->creator_hash[k] =
                (uint8_t)(pgstore_hex(hex[2 * k]) << 4 | pgstore_hex(hex[2 * k + 1]));
        g->absent_after = atoi(PQgetvalue(r, 0, 1));
    }
    PQclear(r);
    r = pgstore_params(s, "SELECT n, seat, by, move FROM decisions WHERE game_id = $1 ORDER BY n",
                       1, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "reading decisions");
        goto done;
    }
    int total = PQntuples(r);
    srv_decision_row *m = calloc((size_t)(total > 0 ? total : 1), sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory reading game %s", id);
        goto done;
    }
    for (int k = 0; k < total; k++) {
        if (atoi(PQgetvalue(r, k, 0)) != k + 1) {
            snprintf(err, errlen, "database: the decisions of game %s are not numbered 1..n", id);
            srv_decisions_free(m, k);
            goto done;
        }
        m[k].seat = atoi(PQgetvalue(r, k, 1));
        pgstore_copy(m[k].by, sizeof m[k].by, r, k, 2);
        if (pgstore_dup(r, k, 3, &m[k].move)) {
            snprintf(err, errlen, "out of memory reading game %s", id);
            srv_decisions_free(m, k);
            goto done;
        }
    }
    PQclear(r);
    r = pgstore_params(s,
                       "SELECT '[' || string_agg(note, ',' ORDER BY k) || ']' FROM takebacks"
                       " WHERE game_id = $1",
                       1, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK) || PQntuples(r) != 1) {
        pgstore_fail(s, r, err, errlen, "reading take-backs");
        srv_decisions_free(m, total);
        goto done;
    }
    if (pgstore_dup(r, 0, 0, &g->takebacks)) {
        snprintf(err, errlen, "out of memory reading game %s", id);
        srv_decisions_free(m, total);
        goto done;
    }
    *moves = m;
    *count = total;
    rc = 0;
done:
    PQclear(r);
    pgstore_exec(s, "COMMIT", NULL, 0, "");
    return rc;
}

static int pgstore_game_load(srv_store *base, const char *id, srv_game_row *g,
                             srv_decision_row **moves, int *count, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    int rc = -1;
    memset(g, 0, sizeof *g);
    for (int attempt = 0; attempt < 2 && rc < 0; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        srv_game_row_clear(g);
        memset(g, 0, sizeof *g);
        *moves = NULL;
        *count = 0;
        rc = pgstore_load_once(s, id, g, moves, count, err, errlen);
    }
    pgstore_give(st, s);
    if (rc != 0)
        srv_game_row_clear(g);
    return rc;
}

static int pgstore_list_once(pgsession *s, const char *status, int limit, srv_game_row **rows,
                             int *count, char *err, size_t errlen)
{
    if (pgstore_ensure(s, err, errlen))
        return -1;
    char lim[16];
    snprintf(lim, sizeof lim, "%d", limit);
    const char *p[] = {status, lim};
    /* One row per seat, games newest first, seats in order. */
    PGresult *r = pgstore_params(
        s,
        "SELECT g.*, s.seat, s.kind, s.name, s.level, s.joined, s.is_open, s.resigned FROM"
        " (SELECT " PGSTORE_GAME_COLUMNS ", g.result, g.seq, g.rated FROM games g"
        "  WHERE $1::text IS NULL OR g.status = $1"
        "  ORDER BY g.created DESC, g.seq DESC LIMIT $2::int) g"
        " LEFT JOIN seats s ON s.game_id = g.id ORDER BY g.created DESC, g.seq DESC, s.seat",
        2, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "listing games");
        PQclear(r);
        return -1;
    }
    srv_game_row *out = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        if (n == 0 || strcmp(out[n - 1].id, PQgetvalue(r, i, 0)) != 0) {
            if (n == cap) {
                int grown_cap = cap ? cap * 2 : 16;
                srv_game_row *grown = realloc(out, (size_t)grown_cap * sizeof *grown);
                if (!grown)
                    goto no_memory;
                out = grown;
                cap = grown_cap;
            }
            pgstore_read_game(r, i, &out[n]);
            out[n].rated = strcmp(PQgetvalue(r, i, 10), "t") == 0;
            if (pgstore_dup(r, i, 8, &out[n++].result))
                goto no_memory;
        }
        if (!PQgetisnull(r, i, 11)) {
            pgstore_read_seat(r, i, 11, &out[n - 1]);
            int seat = atoi(PQgetvalue(r, i, 11));
            if (seat >= 0 && seat < TB_MAX_SEATS) {
                out[n - 1].seat[seat].open = strcmp(PQgetvalue(r, i, 16), "t") == 0;
                out[n - 1].seat[seat].resigned = strcmp(PQgetvalue(r, i, 17), "t") == 0;
            }
        }
    }
    PQclear(r);
    *rows = out;
    *count = n;
    return 0;
no_memory:
    for (int k = 0; k < n; k++)
        srv_game_row_clear(&out[k]);
    free(out);
    PQclear(r);
    snprintf(err, errlen, "out of memory listing games");
    return -1;
}

static int pgstore_games_list(srv_store *base, const char *status, int limit,
                              srv_game_row **rows, int *count, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    *rows = NULL;
    *count = 0;
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_list_once(s, status, limit, rows, count, err, errlen);
    if (rc && pgstore_lost(s))
        rc = pgstore_list_once(s, status, limit, rows, count, err, errlen);
    pgstore_give(st, s);
    return rc;
}

/* ---- leases ---- */

static int pgstore_take_once(pgsession *s, const char *id, char *owner, size_t ownerlen,
                             char *err, size_t errlen)
{
    if (pgstore_ensure(s, err, errlen))
        return -1;
    char secs[16];
    snprintf(secs, sizeof secs, "%d", s->store->lease_seconds);
    const char *p[] = {id, s->store->instance, secs};
    /* Taking a lease waits for no disk flush: the lease is durable with the
     * first decision written under it (the WAL is flushed in order), and a
     * lease lost in a crash of the database is simply taken again, while
     * decision_add fences by the lease row it reads.  A killed instance's
     * games are taken a few hundred at a time: each flush saved is a pause
     * their players no longer see. */
    if (pgstore_exec(s, "SET synchronous_commit = off", err, errlen, "taking a lease"))
        return -1;
    PGresult *r = pgstore_params(
        s,
        "INSERT INTO leases AS l (game_id, owner, expires)"
        " SELECT g.id, $2, now() + make_interval(secs => $3::int) FROM games g"
        " WHERE g.id = $1 AND g.status = 'running'"
        " ON CONFLICT (game_id) DO UPDATE SET owner = EXCLUDED.owner, expires = EXCLUDED.expires"
        " WHERE l.owner <> EXCLUDED.owner AND " PGSTORE_LEASE_FREE,
        3, p);
    char restore[TB_ERR_LEN];
    if (pgstore_exec(s, "SET synchronous_commit = on", restore, sizeof restore, "taking a lease")) {
        /* (only a lost connection fails here: pgstore_ensure opens it
         * again with synchronous_commit on before any other write) */
        PQclear(r);
        snprintf(err, errlen, "%s", restore);
        return -1;
    }
    if (!pgstore_is(r, PGRES_COMMAND_OK)) {
        pgstore_fail(s, r, err, errlen, "taking a lease");
        PQclear(r);
        return -1;
    }
    bool taken = strcmp(PQcmdTuples(r), "1") == 0;
    PQclear(r);
    if (taken)
        return SRV_LEASE_TAKEN;
    r = pgstore_params(s,
                       "SELECT g.status, l.owner = $2, COALESCE(i.address, '') FROM games g"
                       " LEFT JOIN leases l ON l.game_id = g.id"
                       " LEFT JOIN instances i ON i.id = l.owner WHERE g.id = $1",
                       2, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        pgstore_fail(s, r, err, errlen, "reading a lease");
        PQclear(r);
        return -1;
    }
    int rc;
    if (PQntuples(r) == 0 || strcmp(PQgetvalue(r, 0, 0), "running") != 0) {
        rc = SRV_LEASE_NOT_RUNNING;
    } else if (strcmp(PQgetvalue(r, 0, 1), "t") == 0) {
        rc = SRV_LEASE_MINE;
    } else {
        rc = SRV_LEASE_ELSEWHERE;
        snprintf(owner, ownerlen, "%s", PQgetvalue(r, 0, 2));
    }
    PQclear(r);
    return rc;
}

static int pgstore_lease_take(srv_store *base, const char *id, char *owner, size_t ownerlen,
                              char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    if (ownerlen)
        owner[0] = '\0';
    pgsession *s = pgstore_take(st, true);
    int rc = pgstore_take_once(s, id, owner, ownerlen, err, errlen);
    if (rc < 0 && pgstore_lost(s))
        rc = pgstore_take_once(s, id, owner, ownerlen, err, errlen);
    pgstore_give(st, s);
    return rc;
}

static int pgstore_ids(pgsession *s, const char *sql, int n, const char *const *p,
                       srv_game_id **ids, int *count, char *err, size_t errlen, const char *what)
{
    *ids = NULL;
    *count = 0;
    PGresult *r = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        PQclear(r);
        r = NULL;
        if (pgstore_ensure(s, err, errlen))
            continue;
        r = pgstore_params(s, sql, n, p);
        if (pgstore_is(r, PGRES_TUPLES_OK))
            break;
    }
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        if (r)
            pgstore_fail(s, r, err, errlen, what);
        PQclear(r);
        return -1;
    }
    int total = PQntuples(r);
    srv_game_id *out = calloc((size_t)(total > 0 ? total : 1), sizeof *out);
    if (!out) {
        snprintf(err, errlen, "out of memory: %s", what);
        PQclear(r);
        return -1;
    }
    for (int i = 0; i < total; i++)
        pgstore_copy(out[i].id, sizeof out[i].id, r, i, 0);
    PQclear(r);
    *ids = out;
    *count = total;
    return 0;
}

static int pgstore_lease_renew(srv_store *base, srv_game_id **ids, int *count, char *err,
                               size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char secs[16];
    snprintf(secs, sizeof secs, "%d", st->lease_seconds);
    const char *p[] = {st->instance, secs};
    pgsession *s = pgstore_take(st, true);
    /* The rows are locked in game order, as decisions_add's fence locks
     * them: the two wait for each other but never deadlock. */
    int rc = pgstore_ids(s,
                         "WITH seen AS (UPDATE instances SET seen = now() WHERE id = $1)"
                         " UPDATE leases SET expires = now() + make_interval(secs => $2::int)"
                         " WHERE owner = $1 AND game_id IN (SELECT game_id FROM leases"
                         " WHERE owner = $1 ORDER BY game_id FOR NO KEY UPDATE)"
                         " RETURNING game_id",
                         2, p, ids, count, err, errlen, "renewing leases");
    pgstore_give(st, s);
    return rc;
}

static int pgstore_lease_orphans(srv_store *base, int limit, srv_game_id **ids, int *count,
                                 char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char lim[16];
    snprintf(lim, sizeof lim, "%d", limit);
    const char *p[] = {st->instance, lim};
    pgsession *s = pgstore_take(st, true);
    int rc = pgstore_ids(s,
                         "SELECT g.id FROM games g LEFT JOIN leases l ON l.game_id = g.id"
                         " WHERE g.status = 'running' AND (l.owner IS NULL OR"
                         " (l.owner <> $1 AND " PGSTORE_LEASE_FREE "))"
                         " ORDER BY g.created, g.seq LIMIT $2::int",
                         2, p, ids, count, err, errlen, "looking for free games");
    pgstore_give(st, s);
    return rc;
}

static int pgstore_instance_address(srv_store *base, const char *address, char *err,
                                    size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, true);
    snprintf(s->store->address, sizeof s->store->address, "%s", address);
    const char *p[] = {s->store->instance, s->store->address};
    int rc = pgstore_write(s, "UPDATE instances SET address = $2, seen = now() WHERE id = $1", 2,
                           p, err, errlen, "publishing this instance's address");
    pgstore_give(st, s);
    return rc;
}

/* ---- the lobby (lobby.c) ---- */

static int pgstore_request_find(srv_store *base, const uint8_t key_hash[SRV_HASH_LEN],
                                const char *since, char id[SRV_ID_LEN + 1], char *err,
                                size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char key[2 * SRV_HASH_LEN + 1];
    pgstore_hex_of(key_hash, key);
    const char *p[] = {key, since};
    pgsession *s = pgstore_take(st, false);
    srv_game_id *ids = NULL;
    int count = 0;
    int rc = pgstore_ids(s,
                         "SELECT game_id FROM create_requests WHERE key_hash = decode($1, 'hex')"
                         " AND at >= $2",
                         2, p, &ids, &count, err, errlen, "looking up a creation request");
    pgstore_give(st, s);
    if (rc == 0 && count > 0)
        snprintf(id, SRV_ID_LEN + 1, "%s", ids[0].id);
    free(ids);
    return rc ? rc : count > 0 ? 0 : 1;
}

/* One statement that changes rows: *changes gets how many (PQcmdTuples). */
static int pgstore_change(pgstore *st, const char *sql, int n, const char *const *p, int *changes,
                          char *err, size_t errlen, const char *what)
{
    pgsession *s = pgstore_take(st, false);
    int rc = -1;
    if (pgstore_ensure(s, err, errlen) == 0) {
        PGresult *r = pgstore_params(s, sql, n, p);
        if (pgstore_is(r, PGRES_COMMAND_OK)) {
            rc = 0;
            if (changes)
                *changes = atoi(PQcmdTuples(r));
        } else {
            pgstore_fail(s, r, err, errlen, what);
        }
        PQclear(r);
    }
    pgstore_give(st, s);
    return rc;
}

static int pgstore_seat_take(srv_store *base, const char *id, int seat, const char *name,
                             const uint8_t token_hash[SRV_HASH_LEN], char *err, size_t errlen)
{
    char hash[2 * SRV_HASH_LEN + 1], seatno[16];
    pgstore_hex_of(token_hash, hash);
    snprintf(seatno, sizeof seatno, "%d", seat);
    const char *p[] = {name, hash, id, seatno};
    int changes = 0;
    int rc = pgstore_change((pgstore *)base,
                            "UPDATE seats SET name = $1, token_hash = decode($2, 'hex'),"
                            " is_open = false WHERE game_id = $3 AND seat = $4::int AND is_open"
                            " AND kind = 'human' AND EXISTS (SELECT 1 FROM games"
                            " WHERE id = $3 AND status = 'running')",
                            4, p, &changes, err, errlen, "taking a seat");
    return rc ? rc : changes == 1 ? 0 : 1;
}

static int pgstore_seat_resign(srv_store *base, const char *id, int seat, char *err,
                               size_t errlen)
{
    char seatno[16];
    snprintf(seatno, sizeof seatno, "%d", seat);
    const char *p[] = {id, seatno};
    return pgstore_change((pgstore *)base,
                          "UPDATE seats SET resigned = true WHERE game_id = $1 AND seat = $2::int",
                          2, p, NULL, err, errlen, "recording a resignation");
}

static int pgstore_game_delete(srv_store *base, const char *id, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    int rc = -1;
    const char *p[] = {id};
    if (pgstore_ensure(s, err, errlen) || pgstore_exec(s, "BEGIN", err, errlen, "deleting a game"))
        goto out;
    /* The game row locked first: a decision being inserted (its key share
     * on the game) and this deletion are ordered by the database. */
    PGresult *r = pgstore_params(s,
                                 "SELECT (SELECT count(*) FROM decisions WHERE game_id = $1)"
                                 " FROM games WHERE id = $1 FOR UPDATE",
                                 1, p);
    if (!pgstore_is(r, PGRES_TUPLES_OK))
        pgstore_fail(s, r, err, errlen, "deleting a game");
    else if (PQntuples(r) == 0)
        rc = 1;
    else if (atoi(PQgetvalue(r, 0, 0)) > 0)
        rc = 2;
    else
        rc = 0;
    PQclear(r);
    static const char *const deletes[] = {
        "DELETE FROM create_requests WHERE game_id = $1", "DELETE FROM game_lobby WHERE game_id = $1",
        "DELETE FROM leases WHERE game_id = $1",          "DELETE FROM seats WHERE game_id = $1",
        "DELETE FROM chat WHERE game_id = $1",
        "UPDATE games SET rematch = NULL WHERE rematch = $1",
        "DELETE FROM games WHERE id = $1",
    };
    for (size_t i = 0; rc == 0 && i < sizeof deletes / sizeof deletes[0]; i++) {
        r = pgstore_params(s, deletes[i], 1, p);
        if (!pgstore_is(r, PGRES_COMMAND_OK))
            rc = pgstore_fail(s, r, err, errlen, "deleting a game");
        PQclear(r);
    }
    if (rc == 0)
        rc = pgstore_exec(s, "COMMIT", err, errlen, "deleting a game");
    else
        pgstore_exec(s, "ROLLBACK", NULL, 0, "");
out:
    pgstore_give(st, s);
    return rc;
}

static int pgstore_games_unstarted(srv_store *base, const char *before, int limit,
                                   srv_game_id **ids, int *count, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char lim[16];
    snprintf(lim, sizeof lim, "%d", limit);
    const char *p[] = {before, lim};
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_ids(s,
                         "SELECT id FROM games g WHERE status = 'running' AND created < $1"
                         " AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.game_id = g.id)"
                         " ORDER BY created LIMIT $2::int",
                         2, p, ids, count, err, errlen, "looking for games never started");
    pgstore_give(st, s);
    return rc;
}

static void pgstore_close(srv_store *base)
{
    pgstore *st = (pgstore *)base;
    if (!st)
        return;
    pgsession *s = &st->session[0];
    if (s->db && PQstatus(s->db) == CONNECTION_OK && st->instance[0]) {
        /* Leaving cleanly: the games go to the other instances at once. */
        const char *p[] = {st->instance};
        PQclear(pgstore_params(s, "DELETE FROM leases WHERE owner = $1", 1, p));
        PQclear(pgstore_params(s, "DELETE FROM instances WHERE id = $1", 1, p));
    }
    for (int i = 0; i < PGSTORE_SESSIONS; i++)
        PQfinish(st->session[i].db);
    pthread_cond_destroy(&st->freed);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static int pgstore_review_save(srv_store *base, const char *id, const char *json,
                               const char *at, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    const char *p[] = {id, json, at};
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_write(s,
                           "INSERT INTO reviews (game_id, review, at) VALUES ($1, $2, $3)"
                           " ON CONFLICT (game_id) DO UPDATE SET review = $2, at = $3",
                           3, p, err, errlen, "saving a review");
    pgstore_give(st, s);
    return rc;
}

static int pgstore_review_load(srv_store *base, const char *id, char **json, char *err,
                               size_t errlen)
{
    pgstore *st = (pgstore *)base;
    const char *p[] = {id};
    *json = NULL;
    pgsession *s = pgstore_take(st, false);
    int rc = -1;
    for (int attempt = 0; attempt < 2 && rc < 0; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        if (pgstore_ensure(s, err, errlen))
            continue;
        PGresult *r = pgstore_params(s, "SELECT review FROM reviews WHERE game_id = $1", 1, p);
        if (!pgstore_is(r, PGRES_TUPLES_OK)) {
            rc = pgstore_fail(s, r, err, errlen, "reading a review");
        } else if (PQntuples(r) == 0) {
            rc = 1;
        } else {
            if (pgstore_dup(r, 0, 0, json)) {
                snprintf(err, errlen, "out of memory reading a review");
                rc = -1;
            } else
                rc = *json ? 0 : 1;
        }
        PQclear(r);
    }
    pgstore_give(st, s);
    return rc;
}

/* ---- table chat and "Play again" (social.c) ---- */

/* One statement returning rows (*out, for the caller to PQclear), once
 * more after a dropped connection: 0, or -1 with err. */
static int pgstore_query(pgsession *s, const char *sql, int n, const char *const *p,
                         PGresult **out, char *err, size_t errlen, const char *what)
{
    PGresult *r = NULL;
    *out = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        PQclear(r);
        r = NULL;
        if (pgstore_ensure(s, err, errlen))
            continue;
        r = pgstore_params(s, sql, n, p);
        if (pgstore_is(r, PGRES_TUPLES_OK))
            break;
    }
    if (!pgstore_is(r, PGRES_TUPLES_OK)) {
        if (r)
            pgstore_fail(s, r, err, errlen, what);
        PQclear(r);
        return -1;
    }
    *out = r;
    return 0;
}

static int pgstore_chat_add(srv_store *base, const char *id, int n, int seat, const char *name,
                            const char *text, const char *at, int decisions, char *err,
                            size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char seatno[16], num[16], made[16];
    snprintf(seatno, sizeof seatno, "%d", seat);
    snprintf(num, sizeof num, "%d", n);
    snprintf(made, sizeof made, "%d", decisions);
    const char *p[] = {id, num, seatno, name, text, at, made};
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_write(s,
                           "INSERT INTO chat (game_id, n, seat, name, text, at, decisions)"
                           " VALUES ($1, $2::int, $3::int, $4, $5, $6, $7::int)",
                           7, p, err, errlen, "saving a chat line");
    pgstore_give(st, s);
    return rc;
}

static int pgstore_chat_list(srv_store *base, const char *id, int limit, srv_chat_row **rows,
                             int *count, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char lim[16];
    snprintf(lim, sizeof lim, "%d", limit > 0 ? limit : 1 << 30);
    const char *p[] = {id, lim};
    *rows = NULL;
    *count = 0;
    pgsession *s = pgstore_take(st, false);
    PGresult *r = NULL;
    int rc = pgstore_query(
        s,
        "SELECT c.n, c.seat, c.name, c.text, c.at, c.decisions"
        " FROM chat c WHERE c.game_id = $1"
        " AND c.n > (SELECT COALESCE(MAX(n), 0) FROM chat WHERE game_id = $1) - $2::int"
        " ORDER BY c.n",
        2, p, &r, err, errlen, "reading the chat");
    pgstore_give(st, s);
    if (rc)
        return -1;
    int total = PQntuples(r);
    srv_chat_row *out = calloc((size_t)(total > 0 ? total : 1), sizeof *out);
    int k = 0;
    for (; out && k < total; k++) {
        srv_chat_row *c = &out[k];
        c->n = atoi(PQgetvalue(r, k, 0));
        c->seat = atoi(PQgetvalue(r, k, 1));
        pgstore_copy(c->name, sizeof c->name, r, k, 2);
        if (!(c->text = strdup(PQgetvalue(r, k, 3))))
            break;
        pgstore_copy(c->at, sizeof c->at, r, k, 4);
        c->decisions = atoi(PQgetvalue(r, k, 5));
    }
    PQclear(r);
    if (!out || k < total) {
        srv_chat_free(out, k);
        snprintf(err, errlen, "out of memory reading the chat of game %s", id);
        return -1;
    }
    *rows = out;
    *count = total;
    return 0;
}

static int pgstore_rematch_get(srv_store *base, const char *id, char rematch[SRV_ID_LEN + 1],
                               char rematch_of[SRV_ID_LEN + 1], char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    const char *p[] = {id};
    rematch[0] = rematch_of[0] = '\0';
    pgsession *s = pgstore_take(st, false);
    PGresult *r = NULL;
    int rc = pgstore_query(s, "SELECT rematch, rematch_of FROM games WHERE id = $1", 1, p, &r,
                           err, errlen, "reading a game");
    pgstore_give(st, s);
    if (rc == 0 && PQntuples(r) == 0)
        rc = 1;
    else if (rc == 0) {
        pgstore_copy(rematch, SRV_ID_LEN + 1, r, 0, 0);
        pgstore_copy(rematch_of, SRV_ID_LEN + 1, r, 0, 1);
    }
    PQclear(r);
    return rc;
}

static int pgstore_rematch_link(srv_store *base, const char *old, const char *fresh,
                                char existing[SRV_ID_LEN + 1], char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    const char *p[] = {old, fresh};
    existing[0] = '\0';
    pgsession *s = pgstore_take(st, false);
    PGresult *r = NULL;
    /* one statement: the first link wins, and both columns change together */
    int rc = pgstore_query(s,
                           "WITH l AS (UPDATE games SET rematch = $2 WHERE id = $1"
                           " AND rematch IS NULL RETURNING id),"
                           " f AS (UPDATE games SET rematch_of = $1 WHERE id = $2"
                           " AND EXISTS (SELECT 1 FROM l) RETURNING id)"
                           " SELECT (SELECT count(*) FROM l), (SELECT rematch FROM games"
                           " WHERE id = $1)",
                           2, p, &r, err, errlen, "linking a rematch");
    pgstore_give(st, s);
    if (rc == 0 && PQntuples(r) == 1 && atoi(PQgetvalue(r, 0, 0)) == 0) {
        pgstore_copy(existing, SRV_ID_LEN + 1, r, 0, 1);
        rc = existing[0] ? 1 : -1;
        if (rc < 0)
            snprintf(err, errlen, "there is no game %s", old);
    }
    PQclear(r);
    return rc;
}

/* ---- turn e-mails (mail.c): an account's address, its links, the e-mails
 * claimed.  Accounts themselves are accounts.c's. ---- */

/* Runs a statement that answers rows (a dropped connection is opened
 * again once): its result (*out, the caller clears it), or -1. */
static int pgstore_mail_query(pgsession *s, const char *sql, int n, const char *const *p,
                              PGresult **out, char *err, size_t errlen, const char *what)
{
    *out = NULL;
    int rc = -1;
    for (int attempt = 0; attempt < 2 && rc; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        if (pgstore_ensure(s, err, errlen))
            continue;
        PGresult *r = pgstore_params(s, sql, n, p);
        if (pgstore_is(r, PGRES_TUPLES_OK)) {
            *out = r;
            rc = 0;
        } else {
            rc = pgstore_fail(s, r, err, errlen, what);
            PQclear(r);
        }
    }
    return rc;
}

static int pgstore_mail_account(srv_store *base, int64_t account, srv_mail_account *a,
                                char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    memset(a, 0, sizeof *a);
    char idtext[24];
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    const char *p[] = {idtext};
    pgsession *s = pgstore_take(st, false);
    PGresult *r;
    int rc = pgstore_mail_query(s,
                                "SELECT name, lang, email, email_confirmed, email_token_hash IS"
                                " NOT NULL, turn_emails, pw_hash,"
                                " coalesce(encode(unsubscribe_hash, 'hex'), '')"
                                " FROM accounts WHERE id = $1::bigint",
                                1, p, &r, err, errlen, "reading an account");
    if (rc == 0 && PQntuples(r) == 0)
        rc = 1;
    else if (rc == 0) {
        pgstore_copy(a->name, sizeof a->name, r, 0, 0);
        pgstore_copy(a->lang, sizeof a->lang, r, 0, 1);
        pgstore_copy(a->email, sizeof a->email, r, 0, 2);
        a->confirmed = strcmp(PQgetvalue(r, 0, 3), "t") == 0;
        a->pending = strcmp(PQgetvalue(r, 0, 4), "t") == 0;
        a->turn_emails = strcmp(PQgetvalue(r, 0, 5), "t") == 0;
        pgstore_copy(a->key, sizeof a->key, r, 0, 6);
        const char *hex = PQgetvalue(r, 0, 7);
        if (strlen(hex) == 2 * SRV_HASH_LEN) {
            a->has_unsubscribe = true;
            for (int k = 0; k < SRV_HASH_LEN; k++)
                a->unsubscribe_hash[k] =
                    (uint8_t)(pgstore_hex(hex[2 * k]) << 4 | pgstore_hex(hex[2 * k + 1]));
        }
    }
    PQclear(r);
    pgstore_give(st, s);
    return rc;
}

static int pgstore_mail_address(srv_store *base, int64_t account, const char *email,
                                const uint8_t *token_hash, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char idtext[24], hex[2 * SRV_HASH_LEN + 1] = "";
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    if (token_hash)
        pgstore_hex_of(token_hash, hex);
    const char *p[] = {idtext, email, token_hash ? hex : NULL};
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_write(s,
                           "UPDATE accounts SET email = $2, email_confirmed = false,"
                           " email_token_hash = decode($3, 'hex') WHERE id = $1::bigint",
                           3, p, err, errlen, "storing an e-mail address");
    pgstore_give(st, s);
    return rc;
}

/* `sql` takes a link's hash as $1 and answers the account's id: 0 (*account
 * set), 1 no such link. */
static int pgstore_mail_by_hash(srv_store *base, const char *sql,
                                const uint8_t hash[SRV_HASH_LEN], int64_t *account, char *err,
                                size_t errlen, const char *what)
{
    pgstore *st = (pgstore *)base;
    char hex[2 * SRV_HASH_LEN + 1];
    pgstore_hex_of(hash, hex);
    const char *p[] = {hex};
    pgsession *s = pgstore_take(st, false);
    PGresult *r;
    int rc = pgstore_mail_query(s, sql, 1, p, &r, err, errlen, what);
    if (rc == 0 && PQntuples(r) == 0)
        rc = 1;
    else if (rc == 0)
        *account = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    pgstore_give(st, s);
    return rc;
}

static int pgstore_mail_confirm(srv_store *base, const uint8_t token_hash[SRV_HASH_LEN],
                                int64_t *account, char *err, size_t errlen)
{
    return pgstore_mail_by_hash(base,
                                "UPDATE accounts SET email_confirmed = true,"
                                " email_token_hash = NULL, turn_emails = true"
                                " WHERE email_token_hash = decode($1, 'hex') RETURNING id",
                                token_hash, account, err, errlen, "confirming an e-mail address");
}

static int pgstore_mail_unsubscribe(srv_store *base, const uint8_t hash[SRV_HASH_LEN],
                                    int64_t *account, char *err, size_t errlen)
{
    return pgstore_mail_by_hash(base,
                                "UPDATE accounts SET turn_emails = false"
                                " WHERE unsubscribe_hash = decode($1, 'hex') RETURNING id",
                                hash, account, err, errlen, "turning turn e-mails off");
}

static int pgstore_mail_unsubscribe_key(srv_store *base, int64_t account,
                                        const uint8_t hash[SRV_HASH_LEN], char *err,
                                        size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char idtext[24], hex[2 * SRV_HASH_LEN + 1];
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    pgstore_hex_of(hash, hex);
    const char *p[] = {idtext, hex};
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_write(s,
                           "UPDATE accounts SET unsubscribe_hash = decode($2, 'hex')"
                           " WHERE id = $1::bigint",
                           2, p, err, errlen, "storing an unsubscribe link");
    pgstore_give(st, s);
    return rc;
}

static int pgstore_mail_turn_emails(srv_store *base, int64_t account, bool on, char *err,
                                    size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char idtext[24];
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    const char *p[] = {idtext, on ? "true" : "false"};
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_write(s, "UPDATE accounts SET turn_emails = $2::boolean WHERE id = $1::bigint",
                           2, p, err, errlen, "turning turn e-mails on or off");
    pgstore_give(st, s);
    return rc;
}

static int pgstore_mail_turn_claim(srv_store *base, const char *id, int n, int64_t account,
                                   const char *at, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    char ntext[16], idtext[24];
    snprintf(ntext, sizeof ntext, "%d", n);
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    const char *p[] = {id, ntext, idtext, at};
    pgsession *s = pgstore_take(st, false);
    PGresult *r;
    /* One INSERT: of two servers claiming at once, exactly one gets the row. */
    int rc = pgstore_mail_query(s,
                                "INSERT INTO turn_emails (game_id, n, account_id, at)"
                                " VALUES ($1, $2::int, $3::bigint, $4)"
                                " ON CONFLICT DO NOTHING RETURNING n",
                                4, p, &r, err, errlen, "claiming a turn e-mail");
    if (rc == 0)
        rc = PQntuples(r) == 1 ? 0 : 1;
    PQclear(r);
    pgstore_give(st, s);
    return rc;
}

/* Marks this instance seen: a committed write like a decision's (a
 * dropped connection is opened again first). */
static int pgstore_probe(srv_store *base, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    const char *p[] = {st->instance};
    int rc = pgstore_write(s, "UPDATE instances SET seen = now() WHERE id = $1", 1, p, err,
                           errlen, "checking the database");
    pgstore_give(st, s);
    return rc;
}

/* ---- accounts and sessions (accounts.c; issue 28, area "accounts") ---- */

/* One statement returning rows (or changing some): the result when it
 * worked (the caller clears it), else NULL with err. */
static PGresult *pgstore_account_query(pgstore *st, const char *sql, int n, const char *const *p,
                                       char *err, size_t errlen, const char *what)
{
    pgsession *s = pgstore_take(st, false);
    PGresult *out = NULL;
    for (int attempt = 0; attempt < 2 && !out; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        if (pgstore_ensure(s, err, errlen))
            continue;
        PGresult *r = pgstore_params(s, sql, n, p);
        if (pgstore_is(r, PGRES_TUPLES_OK) || pgstore_is(r, PGRES_COMMAND_OK)) {
            out = r;
        } else {
            pgstore_fail(s, r, err, errlen, what);
            PQclear(r);
        }
    }
    pgstore_give(st, s);
    return out;
}

static int pgstore_account_create(srv_store *base, const char *name, const char *name_key,
                                  const char *pw_hash, const char *created, int64_t *id,
                                  char *err, size_t errlen)
{
    const char *p[] = {name, name_key, pw_hash, created};
    PGresult *r = pgstore_account_query((pgstore *)base,
                                        "INSERT INTO accounts (name, name_key, pw_hash, created)"
                                        " VALUES ($1, $2, $3, $4) ON CONFLICT (name_key)"
                                        " DO NOTHING RETURNING id",
                                        4, p, err, errlen, "adding an account");
    if (!r)
        return -1;
    int rc = PQntuples(r) == 1 ? 0 : 1;
    if (rc == 0)
        *id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return rc;
}

static int pgstore_account_find(srv_store *base, const char *name_key, int64_t id,
                                srv_account_row *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char idtext[24];
    snprintf(idtext, sizeof idtext, "%lld", (long long)id);
    const char *p[] = {name_key ? name_key : idtext};
    PGresult *r = pgstore_account_query(
        (pgstore *)base,
        name_key ? "SELECT id, name, pw_hash, created, lang, email, email_confirmed FROM accounts"
                   " WHERE name_key = $1"
                 : "SELECT id, name, pw_hash, created, lang, email, email_confirmed FROM accounts"
                   " WHERE id = $1::bigint",
        1, p, err, errlen, "reading an account");
    if (!r)
        return -1;
    int rc = PQntuples(r) == 1 ? 0 : 1;
    if (rc == 0) {
        out->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        pgstore_copy(out->name, sizeof out->name, r, 0, 1);
        pgstore_copy(out->pw_hash, sizeof out->pw_hash, r, 0, 2);
        pgstore_copy(out->created, sizeof out->created, r, 0, 3);
        pgstore_copy(out->lang, sizeof out->lang, r, 0, 4);
        pgstore_copy(out->email, sizeof out->email, r, 0, 5);
        out->email_confirmed = strcmp(PQgetvalue(r, 0, 6), "t") == 0;
    }
    PQclear(r);
    return rc;
}

static int pgstore_account_update(srv_store *base, int64_t id, const char *pw_hash,
                                  const uint8_t keep[SRV_HASH_LEN], const char *lang, char *err,
                                  size_t errlen)
{
    static const uint8_t none[SRV_HASH_LEN];
    char idtext[24], hex[2 * SRV_HASH_LEN + 1];
    snprintf(idtext, sizeof idtext, "%lld", (long long)id);
    pgstore_hex_of(keep ? keep : none, hex);
    /* one statement: the password, the language and the other sessions */
    const char *p[] = {idtext, pw_hash, lang, hex};
    PGresult *r = pgstore_account_query(
        (pgstore *)base,
        "WITH a AS (UPDATE accounts SET pw_hash = COALESCE($2, pw_hash),"
        " lang = COALESCE($3, lang) WHERE id = $1::bigint RETURNING id),"
        " s AS (DELETE FROM sessions WHERE $2::text IS NOT NULL AND account_id IN"
        " (SELECT id FROM a) AND token_hash <> decode($4, 'hex'))"
        " SELECT count(*) FROM a",
        4, p, err, errlen, "changing an account");
    if (!r)
        return -1;
    int rc = PQntuples(r) == 1 && atoi(PQgetvalue(r, 0, 0)) == 1 ? 0 : 1;
    PQclear(r);
    return rc;
}

static int pgstore_account_delete(srv_store *base, int64_t id, const char *former_name,
                                  char *err, size_t errlen)
{
    char idtext[24];
    snprintf(idtext, sizeof idtext, "%lld", (long long)id);
    const char *p[] = {idtext, former_name};
    /* one statement, so one transaction: the rows referring to the account
     * go before it (data-modifying CTEs see the same snapshot; the
     * foreign keys are checked at the statement's end) */
    PGresult *r = pgstore_account_query(
        (pgstore *)base,
        "WITH s1 AS (UPDATE seats SET name = $2, account_id = NULL WHERE account_id = $1::bigint),"
        " s2 AS (DELETE FROM sessions WHERE account_id = $1::bigint),"
        " s3 AS (DELETE FROM ratings WHERE account_id = $1::bigint),"
        " s4 AS (DELETE FROM rating_history WHERE account_id = $1::bigint),"
        " s5 AS (DELETE FROM turn_emails WHERE account_id = $1::bigint),"
        " a AS (DELETE FROM accounts WHERE id = $1::bigint RETURNING id)"
        " SELECT count(*) FROM a",
        2, p, err, errlen, "deleting an account");
    if (!r)
        return -1;
    int rc = PQntuples(r) == 1 && atoi(PQgetvalue(r, 0, 0)) == 1 ? 0 : 1;
    PQclear(r);
    return rc;
}

static int pgstore_session_add(srv_store *base, const uint8_t hash[SRV_HASH_LEN],
                               int64_t account, const char *now, const char *idle_since,
                               char *err, size_t errlen)
{
    char idtext[24], hex[2 * SRV_HASH_LEN + 1];
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    pgstore_hex_of(hash, hex);
    const char *p[] = {hex, idtext, now, idle_since};
    /* one statement: the account's idle sessions go as the new one comes */
    PGresult *r = pgstore_account_query((pgstore *)base,
                                        "WITH gone AS (DELETE FROM sessions WHERE account_id ="
                                        " $2::bigint AND last_used < $4)"
                                        " INSERT INTO sessions (token_hash, account_id, created,"
                                        " last_used) VALUES (decode($1, 'hex'), $2::bigint, $3, $3)",
                                        4, p, err, errlen, "starting a session");
    PQclear(r);
    return r ? 0 : -1;
}

static int pgstore_session_find(srv_store *base, const uint8_t hash[SRV_HASH_LEN],
                                const char *idle_since, const char *touch_before,
                                const char *now, int64_t *account, char *err, size_t errlen)
{
    *account = 0;
    char hex[2 * SRV_HASH_LEN + 1];
    pgstore_hex_of(hash, hex);
    const char *p[] = {hex, idle_since, touch_before, now};
    /* an idle session ends; a live one is marked used (at most so often) */
    PGresult *r = pgstore_account_query(
        (pgstore *)base,
        "WITH f AS (SELECT account_id, last_used FROM sessions WHERE token_hash = decode($1, 'hex')),"
        " gone AS (DELETE FROM sessions WHERE token_hash = decode($1, 'hex') AND last_used < $2),"
        " used AS (UPDATE sessions SET last_used = $4 WHERE token_hash = decode($1, 'hex')"
        " AND last_used >= $2 AND last_used < $3)"
        " SELECT account_id FROM f WHERE last_used >= $2",
        4, p, err, errlen, "reading a session");
    if (!r)
        return -1;
    int rc = PQntuples(r) == 1 ? 0 : 1;
    if (rc == 0)
        *account = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return rc;
}

static int pgstore_session_delete(srv_store *base, const uint8_t hash[SRV_HASH_LEN], char *err,
                                  size_t errlen)
{
    char hex[2 * SRV_HASH_LEN + 1];
    pgstore_hex_of(hash, hex);
    const char *p[] = {hex};
    PGresult *r = pgstore_account_query((pgstore *)base,
                                        "DELETE FROM sessions WHERE token_hash = decode($1, 'hex')",
                                        1, p, err, errlen, "ending a session");
    PQclear(r);
    return r ? 0 : -1;
}

static int pgstore_account_games(srv_store *base, int64_t account, srv_game_row **rows,
                                 int *count, char *err, size_t errlen)
{
    *rows = NULL;
    *count = 0;
    char idtext[24];
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    const char *p[] = {idtext};
    PGresult *r = pgstore_account_query(
        (pgstore *)base,
        "SELECT g.id, g.game, g.players, g.seed, g.status, g.created, g.finished,"
        " COALESCE((SELECT max(n) FROM decisions d WHERE d.game_id = g.id), 0),"
        " g.rated, COALESCE((SELECT d.at FROM decisions d WHERE d.game_id = g.id"
        " ORDER BY d.n DESC LIMIT 1), g.created),"
        " s.seat, s.kind, s.name, s.level, s.joined, s.is_open, s.resigned,"
        " COALESCE(s.account_id, 0)"
        " FROM games g JOIN seats s ON s.game_id = g.id"
        " WHERE g.id IN (SELECT game_id FROM seats WHERE account_id = $1::bigint)"
        " ORDER BY g.id, s.seat",
        1, p, err, errlen, "listing an account's games");
    if (!r)
        return -1;
    srv_game_row *out = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        if (n == 0 || strcmp(out[n - 1].id, PQgetvalue(r, i, 0)) != 0) {
            if (n == cap) {
                int grown_cap = cap ? cap * 2 : 16;
                srv_game_row *grown = realloc(out, (size_t)grown_cap * sizeof *grown);
                if (!grown) {
                    free(out);
                    PQclear(r);
                    snprintf(err, errlen, "out of memory listing an account's games");
                    return -1;
                }
                out = grown;
                cap = grown_cap;
            }
            pgstore_read_game(r, i, &out[n]);
            out[n].rated = strcmp(PQgetvalue(r, i, 8), "t") == 0;
            pgstore_copy(out[n].updated, sizeof out[n].updated, r, i, 9);
            n++;
        }
        pgstore_read_seat(r, i, 10, &out[n - 1]);
        int seat = atoi(PQgetvalue(r, i, 10));
        if (seat >= 0 && seat < TB_MAX_SEATS) {
            srv_seat_row *sr = &out[n - 1].seat[seat];
            sr->open = strcmp(PQgetvalue(r, i, 15), "t") == 0;
            sr->resigned = strcmp(PQgetvalue(r, i, 16), "t") == 0;
            sr->account_id = strtoll(PQgetvalue(r, i, 17), NULL, 10);
        }
    }
    PQclear(r);
    *rows = out;
    *count = n;
    return 0;
}

static int pgstore_seat_set_account(srv_store *base, const char *id, int seat, int64_t account,
                                    const char *name, char *err, size_t errlen)
{
    char idtext[24], seatno[16];
    snprintf(idtext, sizeof idtext, "%lld", (long long)account);
    snprintf(seatno, sizeof seatno, "%d", seat);
    const char *p[] = {idtext, id, seatno, name};
    int changes = 0;
    int rc = pgstore_change((pgstore *)base,
                            "UPDATE seats SET account_id = $1::bigint, name = $4 WHERE game_id = $2"
                            " AND seat = $3::int AND kind = 'human' AND NOT is_open"
                            " AND (account_id IS NULL OR account_id = $1::bigint)",
                            4, p, &changes, err, errlen, "giving a seat to an account");
    return rc ? rc : changes == 1 ? 0 : 1;
}

/* ---- ratings and profiles (issue 28, area "ratings"; rating.h) ---- */

/* A query's result, or NULL (err filled in). */
static PGresult *pgstore_rows(pgsession *s, const char *sql, int n, const char *const *p,
                              char *err, size_t errlen, const char *what)
{
    PGresult *r = pgstore_params(s, sql, n, p);
    if (pgstore_is(r, PGRES_TUPLES_OK))
        return r;
    pgstore_fail(s, r, err, errlen, what);
    PQclear(r);
    return NULL;
}

static int pgstore_ok(pgsession *s, const char *sql, int n, const char *const *p, char *err,
                      size_t errlen, const char *what)
{
    PGresult *r = pgstore_params(s, sql, n, p);
    int rc = pgstore_is(r, PGRES_COMMAND_OK) || pgstore_is(r, PGRES_TUPLES_OK)
                 ? 0
                 : pgstore_fail(s, r, err, errlen, what);
    PQclear(r);
    return rc;
}

/* Inside the finishing transaction of rated game `id` (just marked over by
 * this call): reads its seats, takes the row lock of every account's rating
 * of the title (creating it at mu0, sigma0 if new; in account order, so two
 * games ending at once on two servers wait for each other instead of
 * deadlocking or losing an update), rates the game and writes the ratings
 * and history rows. */
static int pgstore_rate(pgsession *s, const char *id, const char *game, const char *at,
                        const int *ranks, char *err, size_t errlen)
{
    srv_rated_seat seat[SRV_RATING_MAX];
    memset(seat, 0, sizeof seat);
    const char *p[] = {id};
    PGresult *r = pgstore_rows(s,
                               "SELECT kind, level, COALESCE(account_id, 0) FROM seats"
                               " WHERE game_id = $1 ORDER BY seat",
                               1, p, err, errlen, "reading a rated game's seats");
    if (!r)
        return -1;
    int n = PQntuples(r) < SRV_RATING_MAX ? PQntuples(r) : SRV_RATING_MAX;
    for (int i = 0; i < n; i++) {
        seat[i].ai = strcmp(PQgetvalue(r, i, 0), "ai") == 0;
        pgstore_copy(seat[i].level, sizeof seat[i].level, r, i, 1);
        seat[i].account = atoll(PQgetvalue(r, i, 2));
        seat[i].rank = ranks[i];
    }
    PQclear(r);
    char mu0[40], sigma0[40];
    snprintf(mu0, sizeof mu0, "%.17g", SRV_RATING_MU0);
    snprintf(sigma0, sizeof sigma0, "%.17g", SRV_RATING_SIGMA0);
    long long last = 0;
    for (;;) { /* the accounts in increasing order */
        int k = -1;
        for (int i = 0; i < n; i++)
            if (seat[i].account > last && (k < 0 || seat[i].account < seat[k].account))
                k = i;
        if (k < 0)
            break;
        last = seat[k].account;
        char acc[24];
        snprintf(acc, sizeof acc, "%lld", last);
        const char *q[] = {acc, game, mu0, sigma0};
        if (pgstore_ok(s, "INSERT INTO ratings (account_id, game, mu, sigma, games, wins)"
                          " VALUES ($1, $2, $3, $4, 0, 0) ON CONFLICT (account_id, game) DO NOTHING",
                       4, q, err, errlen, "storing a rating"))
            return -1;
        r = pgstore_rows(s, "SELECT mu, sigma, games, wins FROM ratings WHERE account_id = $1"
                            " AND game = $2 FOR UPDATE", 2, q, err, errlen, "reading a rating");
        if (!r)
            return -1;
        for (int i = 0; i < n; i++)
            if (seat[i].account == last && PQntuples(r) == 1) {
                seat[i].known = true;
                seat[i].before.mu = strtod(PQgetvalue(r, 0, 0), NULL);
                seat[i].before.sigma = strtod(PQgetvalue(r, 0, 1), NULL);
                seat[i].games = atoi(PQgetvalue(r, 0, 2));
                seat[i].wins = atoi(PQgetvalue(r, 0, 3));
            }
        PQclear(r);
    }
    int rated = srv_rating_game(game, n, seat);
    if (rated == 1)
        return 0;
    if (rated < 0) {
        snprintf(err, errlen, "game %s: its seats and ranks cannot be rated", id);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (seat[i].account <= 0)
            continue;
        char acc[24], mu[40], sigma[40], games[16], wins[16], rank[16];
        snprintf(acc, sizeof acc, "%lld", seat[i].account);
        snprintf(mu, sizeof mu, "%.17g", seat[i].after.mu);
        snprintf(sigma, sizeof sigma, "%.17g", seat[i].after.sigma);
        snprintf(games, sizeof games, "%d", seat[i].games);
        snprintf(wins, sizeof wins, "%d", seat[i].wins);
        snprintf(rank, sizeof rank, "%d", seat[i].rank);
        const char *u[] = {acc, game, mu, sigma, games, wins};
        const char *h[] = {acc, id, game, at, rank, mu, sigma};
        if (pgstore_ok(s, "UPDATE ratings SET mu = $3, sigma = $4, games = $5, wins = $6"
                          " WHERE account_id = $1 AND game = $2", 6, u, err, errlen,
                       "storing a rating") ||
            pgstore_ok(s, "INSERT INTO rating_history (account_id, game_id, game, at, rank, mu,"
                          " sigma) VALUES ($1, $2, $3, $4, $5, $6, $7)", 7, h, err, errlen,
                       "storing a rating's history"))
            return -1;
    }
    return 0;
}

static int pgstore_ratings_list(srv_store *base, const char *game, int limit,
                                srv_rating_row **rows, int *count, char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    *rows = NULL;
    *count = 0;
    char lim[16];
    snprintf(lim, sizeof lim, "%d", limit);
    const char *p[] = {game, lim};
    pgsession *s = pgstore_take(st, false);
    int rc = -1;
    for (int attempt = 0; attempt < 2 && rc < 0; attempt++) {
        if (attempt && !pgstore_lost(s))
            break;
        if (pgstore_ensure(s, err, errlen))
            continue;
        PGresult *r = pgstore_rows(s, "SELECT a.name, r.game, r.mu, r.sigma, r.games, r.wins"
                                      " FROM ratings r JOIN accounts a ON a.id = r.account_id"
                                      " WHERE r.game = $1 ORDER BY r.mu - 3 * r.sigma DESC, a.name"
                                      " LIMIT $2::int", 2, p, err, errlen, "reading ratings");
        if (!r)
            continue;
        int n = PQntuples(r);
        srv_rating_row *out = calloc((size_t)(n ? n : 1), sizeof *out);
        if (!out) {
            snprintf(err, errlen, "out of memory reading ratings");
            PQclear(r);
            break;
        }
        for (int i = 0; i < n; i++) {
            pgstore_copy(out[i].name, sizeof out[i].name, r, i, 0);
            pgstore_copy(out[i].game, sizeof out[i].game, r, i, 1);
            out[i].mu = strtod(PQgetvalue(r, i, 2), NULL);
            out[i].sigma = strtod(PQgetvalue(r, i, 3), NULL);
            out[i].games = atoi(PQgetvalue(r, i, 4));
            out[i].wins = atoi(PQgetvalue(r, i, 5));
        }
        PQclear(r);
        *rows = out;
        *count = n;
        rc = 0;
    }
    pgstore_give(st, s);
    return rc;
}

static int pgstore_player_once(pgsession *s, const char *name, int limit, srv_player *p,
                               char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (pgstore_ensure(s, err, errlen) ||
        pgstore_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err, errlen,
                     "reading a player"))
        return -1;
    int rc = -1;
    const char *q[] = {name};
    PGresult *r = pgstore_rows(s, "SELECT id, name, created FROM accounts"
                                  " WHERE lower(name) = lower($1)", 1, q, err, errlen,
                               "reading a player");
    if (!r)
        goto done;
    if (PQntuples(r) == 0) {
        PQclear(r);
        rc = 1;
        goto done;
    }
    char acc[24], lim[16];
    pgstore_copy(acc, sizeof acc, r, 0, 0);
    pgstore_copy(p->name, sizeof p->name, r, 0, 1);
    pgstore_copy(p->created, sizeof p->created, r, 0, 2);
    PQclear(r);
    snprintf(lim, sizeof lim, "%d", limit);
    const char *a[] = {acc, lim};
    r = pgstore_rows(s, "SELECT game, mu, sigma, games, wins FROM ratings WHERE account_id = $1"
                        " ORDER BY game", 1, a, err, errlen, "reading a player's ratings");
    if (!r)
        goto done;
    p->nratings = PQntuples(r);
    p->ratings = calloc((size_t)p->nratings + 1, sizeof *p->ratings);
    for (int i = 0; p->ratings && i < p->nratings; i++) {
        srv_rating_row *x = &p->ratings[i];
        snprintf(x->name, sizeof x->name, "%s", p->name);
        pgstore_copy(x->game, sizeof x->game, r, i, 0);
        x->mu = strtod(PQgetvalue(r, i, 1), NULL);
        x->sigma = strtod(PQgetvalue(r, i, 2), NULL);
        x->games = atoi(PQgetvalue(r, i, 3));
        x->wins = atoi(PQgetvalue(r, i, 4));
    }
    PQclear(r);
    if (!p->ratings)
        goto oom;
    r = pgstore_rows(s, "SELECT game_id, game, at, rank, mu, sigma FROM rating_history"
                        " WHERE account_id = $1 ORDER BY at, game_id", 1, a, err, errlen,
                     "reading a player's history");
    if (!r)
        goto done;
    p->nhistory = PQntuples(r);
    p->history = calloc((size_t)p->nhistory + 1, sizeof *p->history);
    for (int i = 0; p->history && i < p->nhistory; i++) {
        srv_history_row *x = &p->history[i];
        pgstore_copy(x->game_id, sizeof x->game_id, r, i, 0);
        pgstore_copy(x->game, sizeof x->game, r, i, 1);
        pgstore_copy(x->at, sizeof x->at, r, i, 2);
        x->rank = atoi(PQgetvalue(r, i, 3));
        x->mu = strtod(PQgetvalue(r, i, 4), NULL);
        x->sigma = strtod(PQgetvalue(r, i, 5), NULL);
    }
    PQclear(r);
    if (!p->history)
        goto oom;
    r = pgstore_rows(s, "SELECT g.id, g.game, g.status, g.created, COALESCE(g.finished, ''),"
                        " g.players, s.seat, g.rated, CASE WHEN g.status = 'over' THEN"
                        " COALESCE((g.result::jsonb -> 'ranks' ->> s.seat)::int, 0) ELSE 0 END"
                        " FROM seats s JOIN games g ON g.id = s.game_id WHERE s.account_id = $1"
                        " ORDER BY g.created DESC, g.id LIMIT $2::int", 2, a, err, errlen,
                     "reading a player's games");
    if (!r)
        goto done;
    p->ngames = PQntuples(r);
    p->games = calloc((size_t)p->ngames + 1, sizeof *p->games);
    for (int i = 0; p->games && i < p->ngames; i++) {
        srv_played_row *x = &p->games[i];
        pgstore_copy(x->id, sizeof x->id, r, i, 0);
        pgstore_copy(x->game, sizeof x->game, r, i, 1);
        pgstore_copy(x->status, sizeof x->status, r, i, 2);
        pgstore_copy(x->created, sizeof x->created, r, i, 3);
        pgstore_copy(x->finished, sizeof x->finished, r, i, 4);
        x->players = atoi(PQgetvalue(r, i, 5));
        x->seat = atoi(PQgetvalue(r, i, 6));
        x->rated = strcmp(PQgetvalue(r, i, 7), "t") == 0;
        x->rank = atoi(PQgetvalue(r, i, 8));
    }
    PQclear(r);
    if (!p->games)
        goto oom;
    r = pgstore_rows(s, "SELECT g.game, COUNT(*), COUNT(*) FILTER (WHERE"
                        " (g.result::jsonb -> 'ranks' ->> s.seat)::int = 1) FROM seats s"
                        " JOIN games g ON g.id = s.game_id WHERE s.account_id = $1"
                        " AND g.status = 'over' GROUP BY g.game ORDER BY g.game",
                     1, a, err, errlen, "reading a player's wins");
    if (!r)
        goto done;
    p->nwins = PQntuples(r);
    p->wins = calloc((size_t)p->nwins + 1, sizeof *p->wins);
    for (int i = 0; p->wins && i < p->nwins; i++) {
        pgstore_copy(p->wins[i].game, sizeof p->wins[i].game, r, i, 0);
        p->wins[i].played = atoi(PQgetvalue(r, i, 1));
        p->wins[i].wins = atoi(PQgetvalue(r, i, 2));
    }
    PQclear(r);
    if (!p->wins)
        goto oom;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory reading a player");
done:
    pgstore_exec(s, "COMMIT", NULL, 0, "");
    if (rc)
        srv_player_clear(p);
    return rc;
}

static int pgstore_player_load(srv_store *base, const char *name, int limit, srv_player *p,
                               char *err, size_t errlen)
{
    pgstore *st = (pgstore *)base;
    pgsession *s = pgstore_take(st, false);
    int rc = pgstore_player_once(s, name, limit, p, err, errlen);
    if (rc < 0 && pgstore_lost(s))
        rc = pgstore_player_once(s, name, limit, p, err, errlen);
    pgstore_give(st, s);
    return rc;
}

static const srv_store_methods pgstore_methods = {
    .name = "postgresql",
    /* Batches of one statement each (decisions_add), two at once: one
     * writes while the other's commit flushes.  Measured with
     * bench/pg_loadtest.sh against 4 and 8: as fast or faster, and more
     * writers took the connections game_create needs, so setting up games
     * lagged.  (A transaction of one INSERT per decision measured worse: its
     * lease locks, held across many round trips, held up lease renewals.) */
    .writers = 2,
    .game_create = pgstore_game_create,
    .decision_add = pgstore_decision_add,
    .decisions_add = pgstore_decisions_add,
    .decisions_truncate = pgstore_decisions_truncate,
    .game_finish = pgstore_game_finish,
    .seat_joined = pgstore_seat_joined,
    .game_load = pgstore_game_load,
    .games_list = pgstore_games_list,
    .request_find = pgstore_request_find,
    .seat_take = pgstore_seat_take,
    .seat_resign = pgstore_seat_resign,
    .game_delete = pgstore_game_delete,
    .games_unstarted = pgstore_games_unstarted,
    .review_save = pgstore_review_save,
    .review_load = pgstore_review_load,
    .chat_add = pgstore_chat_add,
    .chat_list = pgstore_chat_list,
    .rematch_get = pgstore_rematch_get,
    .rematch_link = pgstore_rematch_link,
    .ratings_list = pgstore_ratings_list,
    .player_load = pgstore_player_load,
    /* turn e-mails (mail.c) */
    .mail_account = pgstore_mail_account,
    .mail_address = pgstore_mail_address,
    .mail_confirm = pgstore_mail_confirm,
    .mail_unsubscribe_key = pgstore_mail_unsubscribe_key,
    .mail_unsubscribe = pgstore_mail_unsubscribe,
    .mail_turn_emails = pgstore_mail_turn_emails,
    .mail_turn_claim = pgstore_mail_turn_claim,
    .close = pgstore_close,
    .probe = pgstore_probe,
    .lease_take = pgstore_lease_take,
    .lease_renew = pgstore_lease_renew,
    .lease_orphans = pgstore_lease_orphans,
    .instance_address = pgstore_instance_address,
    /* accounts (accounts.c) */
    .account_create = pgstore_account_create,
    .account_find = pgstore_account_find,
    .account_update = pgstore_account_update,
    .account_delete = pgstore_account_delete,
    .session_add = pgstore_session_add,
    .session_find = pgstore_session_find,
    .session_delete = pgstore_session_delete,
    .account_games = pgstore_account_games,
    .seat_set_account = pgstore_seat_set_account,
};

/* Opens one connection; what the URL says overrides the defaults. */
static PGconn *pgstore_connect(const char *url)
{
    const char *keys[] = {"connect_timeout", "keepalives_idle", "keepalives_interval",
                          "keepalives_count", "application_name", "dbname", NULL};
    const char *vals[] = {"5", "10", "5", "3", "tabula", url, NULL};
    return PQconnectdbParams(keys, vals, 1);
}

srv_store *srv_store_pg_open(const char *url, int lease_seconds, char *err, size_t errlen)
{
    char label[256], why[512];
    srv_store_pg_label(url, label, sizeof label);
    char *msg = NULL;
    PQconninfoOption *parsed = PQconninfoParse(url, &msg);
    if (!parsed) {
        pgstore_oneline(why, sizeof why, msg ? msg : "out of memory");
        PQfreemem(msg);
        snprintf(err, errlen, "bad database URL: %s", why);
        return NULL;
    }
    PQconninfoFree(parsed);
    pgstore *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory opening the database");
        return NULL;
    }
    st->base.m = &pgstore_methods;
    pthread_mutex_init(&st->lock, NULL);
    pthread_cond_init(&st->freed, NULL);
    st->lease_seconds = lease_seconds > 0 ? lease_seconds : 10;
    snprintf(st->label, sizeof st->label, "%s", label);
    uint8_t rnd[16];
    randombytes_buf(rnd, sizeof rnd);
    for (int i = 0; i < 16; i++)
        snprintf(st->instance + 2 * i, 3, "%02x", rnd[i]);
    char local[512];
    for (int i = 0; i < PGSTORE_SESSIONS; i++) {
        pgsession *s = &st->session[i];
        s->store = st;
        s->main = i == 0;
        s->db = pgstore_connect(url);
        if (!s->db || PQstatus(s->db) != CONNECTION_OK) {
            pgstore_oneline(why, sizeof why, s->db ? PQerrorMessage(s->db) : "out of memory");
            snprintf(err, errlen, "cannot connect to the database %s: %s", label, why);
            pgstore_close(&st->base);
            return NULL;
        }
        if (pgstore_session(s, local, sizeof local))
            goto fail;
        if (s->main &&
            (pgstore_hold_lock(s, true, local, sizeof local) ||
             pgstore_migrate(s, local, sizeof local) || pgstore_register(s, local, sizeof local) ||
             pgstore_exec(s,
                          "DELETE FROM instances WHERE id NOT IN (SELECT id FROM live_instances)"
                          " AND id NOT IN (SELECT owner FROM leases)",
                          local, sizeof local, "forgetting stopped instances")))
            goto fail;
    }
    return &st->base;
fail:
    snprintf(err, errlen, "%s (%s)", local, label);
    pgstore_close(&st->base);
    return NULL;
}
