/*
 * accounts.c — sign up, log in and out, sessions, password change, account
 * deletion, the remembered language, log-in rate limits and the CSRF origin
 * check (accounts.h; docs/server.md "Accounts and sessions").
 *
 * Invariants: a password never leaves this file except as its Argon2id hash
 * (crypto_pwhash_str, OPSLIMIT/MEMLIMIT_INTERACTIVE), and the buffers that
 * held it are wiped; a session token is sent once, in its cookie, and only
 * its hash (srv_secret_hash) is stored; every refusal changes nothing; the
 * log-in answer for an unknown name and for a wrong password is the same
 * body after the same Argon2id work.  The rate-limit tables are this
 * module's only mutable state, under one mutex.
 */
#include "accounts.h"
#include "core/text.h"

#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ACC_LIMIT_SLOTS 2048
#define ACC_LIMIT_WINDOW_US 60000000u /* one minute */

/* Failures of one key (a folded name or an address) in the current minute. */
typedef struct acc_limit {
    char key[72];
    uint64_t since_us;
    int failures;
} acc_limit;

struct srv_accounts {
    srv_config cfg;
    srv_store *store;
    char dummy_hash[crypto_pwhash_STRBYTES]; /* what unknown names are checked against */
    pthread_mutex_t lock;
    acc_limit names[ACC_LIMIT_SLOTS], addresses[ACC_LIMIT_SLOTS];
};

/* Checks a password against its hash: 0 right, 1 wrong, -1 the check could
 * not be made (no memory for Argon2id's work): then nobody may be told
 * "wrong".  libsodium says a mismatch with errno EINVAL. */
static int acc_verify(const char *hash, const char *password)
{
    errno = 0;
    if (crypto_pwhash_str_verify(hash, password, strlen(password)) == 0)
        return 0;
    return errno == EINVAL ? 1 : -1;
}

static int acc_pwhash(char out[crypto_pwhash_STRBYTES], const char *password)
{
    return crypto_pwhash_str(out, password, strlen(password), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                             crypto_pwhash_MEMLIMIT_INTERACTIVE);
}

srv_accounts *srv_accounts_open(const srv_config *cfg, srv_store *store, char *err, size_t errlen)
{
    srv_accounts *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->cfg = *cfg;
    a->store = store;
    char random[33];
    uint8_t raw[16];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(random, sizeof random, raw, sizeof raw);
    if (acc_pwhash(a->dummy_hash, random)) {
        snprintf(err, errlen, "cannot hash a password (out of memory?)");
        free(a);
        return NULL;
    }
    pthread_mutex_init(&a->lock, NULL);
    return a;
}

void srv_accounts_close(srv_accounts *a)
{
    if (!a)
        return;
    pthread_mutex_destroy(&a->lock);
    free(a);
}

/* ---- small helpers ---- */

/* The answer (j stolen); no memory to build it: 503 internal instead. */
static void acc_answer(srv_account_answer *ans, int status, json_t *j)
{
    ans->status = status;
    ans->reply = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!ans->reply) {
        ans->status = SRV_INTERNAL_STATUS;
        ans->reply = srv_internal_error("an account answer");
    }
}

static void acc_error(srv_account_answer *ans, int status, const char *code, const char *msg)
{
    ans->status = srv_error_reply(&ans->reply, status, code, "%s", msg);
}

static void acc_store_error(const srv_accounts *a, srv_account_answer *ans, const char *err)
{
    srv_log(&a->cfg, "accounts: %s", err);
    acc_error(ans, 500, "store_failed", "the server could not reach its database; try again");
}

/* The name folded for comparison: ASCII letters in lower case. */
static void acc_fold(const char *name, char out[SRV_NAME_LEN])
{
    size_t i = 0;
    for (; name[i] && i + 1 < SRV_NAME_LEN; i++) {
        char c = name[i];
        out[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    out[i] = '\0';
}

/* A name players can tell apart: 1 to SRV_ACCOUNT_NAME_MAX bytes, no
 * control characters, no space at either end, not the deleted accounts'
 * name.  Any other characters (even "<" and "&") are allowed: the pages
 * show names as text. */
static bool acc_valid_name(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len > SRV_ACCOUNT_NAME_MAX || !srv_valid_name(name))
        return false;
    if (name[0] == ' ' || name[len - 1] == ' ')
        return false;
    char folded[SRV_NAME_LEN];
    acc_fold(name, folded);
    return strcmp(folded, SRV_FORMER_PLAYER) != 0;
}

/* Parses a JSON object body; NULL with the answer set when it is not one. */
static json_t *acc_body(const char *body, size_t len, srv_account_answer *ans)
{
    json_error_t jerr;
    json_t *j = tb__json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j && tb__json_no_memory(&jerr)) {
        acc_error(ans, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        acc_error(ans, 400, "bad_request", "the body must be a JSON object");
        return NULL;
    }
    return j;
}

static const char *acc_string(json_t *j, const char *key)
{
    return json_string_value(json_object_get(j, key));
}

static void acc_set_cookie(const srv_accounts *a, srv_account_answer *ans, const char *token,
                           int max_age)
{
    snprintf(ans->cookie, sizeof ans->cookie, "%s=%s; HttpOnly; SameSite=Lax; Path=/; Max-Age=%d%s",
             SRV_SESSION_COOKIE, token, max_age, a->cfg.behind_tls ? "; Secure" : "");
}

/* The session token in a Cookie header, copied into `out`; false: none. */
static bool acc_cookie_token(const char *header, char *out, size_t outlen)
{
    if (!header)
        return false;
    const char *p = header;
    size_t nlen = strlen(SRV_SESSION_COOKIE);
    while (*p) {
        while (*p == ' ' || *p == ';')
            p++;
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > nlen && strncmp(p, SRV_SESSION_COOKIE, nlen) == 0 && p[nlen] == '=') {
            size_t vlen = len - nlen - 1;
            if (vlen == 0 || vlen >= outlen)
                return false;
            memcpy(out, p + nlen + 1, vlen);
            out[vlen] = '\0';
            return true;
        }
        p += len;
    }
    return false;
}

bool srv_accounts_has_cookie(const char *cookie_header)
{
    char token[128];
    return acc_cookie_token(cookie_header, token, sizeof token);
}

/* An ISO time `seconds` before now (same format as srv_iso_now). */
static void acc_iso_ago(long seconds, char buf[SRV_TIME_LEN])
{
    time_t t = time(NULL) - seconds;
    struct tm tm;
    gmtime_r(&t, &tm);
    char base[24];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, SRV_TIME_LEN, "%.20s.000Z", base);
}

/* ---- rate limits ---- */

static acc_limit *acc_limit_slot(acc_limit *table, const char *key, uint64_t now, bool make)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    /* a short open-addressing probe; a stale slot is reused */
    acc_limit *free_slot = NULL;
    for (int k = 0; k < 16; k++) {
        acc_limit *l = &table[(h + (uint32_t)k) % ACC_LIMIT_SLOTS];
        bool stale = !l->key[0] || now - l->since_us >= ACC_LIMIT_WINDOW_US;
        if (l->key[0] && strcmp(l->key, key) == 0) {
            if (stale) {
                l->failures = 0;
                l->since_us = now;
            }
            return l;
        }
        if (stale && !free_slot)
            free_slot = l;
    }
    if (!make)
        return NULL;
    if (!free_slot) /* every probed slot busy this minute: the oldest goes */
        free_slot = &table[h % ACC_LIMIT_SLOTS];
    snprintf(free_slot->key, sizeof free_slot->key, "%s", key);
    free_slot->since_us = now;
    free_slot->failures = 0;
    return free_slot;
}

/* Seconds until log-ins for the name or the address are allowed again, 0 now. */
static int acc_limited(srv_accounts *a, const char *name_key, const char *address)
{
    uint64_t now = srv_now_us();
    int wait = 0;
    pthread_mutex_lock(&a->lock);
    acc_limit *l[2] = {acc_limit_slot(a->names, name_key, now, false),
                       acc_limit_slot(a->addresses, address, now, false)};
    for (int i = 0; i < 2; i++)
        if (l[i] && l[i]->failures >= SRV_LOGIN_FAILURES) {
            int left = (int)((ACC_LIMIT_WINDOW_US - (now - l[i]->since_us)) / 1000000u) + 1;
            if (left > wait)
                wait = left;
        }
    pthread_mutex_unlock(&a->lock);
    return wait;
}

static void acc_failed(srv_accounts *a, const char *name_key, const char *address)
{
    uint64_t now = srv_now_us();
    pthread_mutex_lock(&a->lock);
    acc_limit *l = acc_limit_slot(a->names, name_key, now, true);
    l->failures++;
    l = acc_limit_slot(a->addresses, address, now, true);
    l->failures++;
    pthread_mutex_unlock(&a->lock);
}

/* ---- sessions ---- */

/* A new session for the account: its cookie goes into the answer. */
static int acc_session_start(srv_accounts *a, int64_t account, srv_account_answer *ans,
                             char *err, size_t errlen)
{
    char token[64], now[SRV_TIME_LEN], idle[SRV_TIME_LEN];
    uint8_t hash[SRV_HASH_LEN];
    srv_secret_token(token, sizeof token, hash);
    srv_iso_now(now);
    acc_iso_ago((long)SRV_SESSION_IDLE_DAYS * 86400, idle);
    if (a->store->m->session_add(a->store, hash, account, now, idle, err, errlen)) {
        sodium_memzero(token, sizeof token);
        return -1;
    }
    acc_set_cookie(a, ans, token, SRV_SESSION_IDLE_DAYS * 86400);
    sodium_memzero(token, sizeof token);
    return 0;
}

int64_t srv_accounts_of_cookie(srv_accounts *a, const char *cookie_header,
                               uint8_t hash[SRV_HASH_LEN])
{
    char token[128];
    if (!a || !acc_cookie_token(cookie_header, token, sizeof token))
        return 0;
    uint8_t h[SRV_HASH_LEN];
    srv_secret_hash(token, h);
    sodium_memzero(token, sizeof token);
    if (hash)
        memcpy(hash, h, SRV_HASH_LEN);
    char idle[SRV_TIME_LEN], touch[SRV_TIME_LEN], now[SRV_TIME_LEN], err[TB_ERR_LEN];
    acc_iso_ago((long)SRV_SESSION_IDLE_DAYS * 86400, idle);
    acc_iso_ago(SRV_SESSION_TOUCH_SECONDS, touch);
    srv_iso_now(now);
    int64_t account = 0;
    int rc = a->store->m->session_find(a->store, h, idle, touch, now, &account, err, sizeof err);
    if (rc < 0) {
        srv_log(&a->cfg, "accounts: %s", err);
        return -1;
    }
    return rc == 0 ? account : 0;
}

void srv_accounts_cookie(const srv_accounts *a, const char *cookie_header,
                         srv_account_answer *ans)
{
    char token[128];
    if (acc_cookie_token(cookie_header, token, sizeof token))
        acc_set_cookie(a, ans, token, SRV_SESSION_IDLE_DAYS * 86400);
    sodium_memzero(token, sizeof token);
}

int srv_accounts_id_of(srv_accounts *a, const char *name, int64_t *id,
                       char canonical[SRV_NAME_LEN])
{
    if (!a || !name || strlen(name) >= SRV_NAME_LEN)
        return 1;
    char key[SRV_NAME_LEN], err[TB_ERR_LEN];
    acc_fold(name, key);
    srv_account_row row;
    int rc = a->store->m->account_find(a->store, key, 0, &row, err, sizeof err);
    if (rc < 0)
        srv_log(&a->cfg, "accounts: %s", err);
    if (rc == 0) {
        *id = row.id;
        if (canonical)
            snprintf(canonical, SRV_NAME_LEN, "%s", row.name);
    }
    sodium_memzero(&row, sizeof row);
    return rc;
}

int srv_accounts_find(srv_accounts *a, int64_t id, srv_account_row *row)
{
    char err[TB_ERR_LEN];
    int rc = a->store->m->account_find(a->store, NULL, id, row, err, sizeof err);
    if (rc < 0)
        srv_log(&a->cfg, "accounts: %s", err);
    sodium_memzero(row->pw_hash, sizeof row->pw_hash);
    return rc;
}

int srv_accounts_name_of(srv_accounts *a, int64_t id, char name[SRV_NAME_LEN])
{
    srv_account_row row;
    int rc = srv_accounts_find(a, id, &row);
    if (rc == 0)
        snprintf(name, SRV_NAME_LEN, "%s", row.name);
    return rc;
}

/* ---- the API ---- */

/* Reads {"name", "password"}: false with the answer set when either is
 * missing or not text. */
static bool acc_credentials(json_t *j, const char **name, const char **password,
                            srv_account_answer *ans)
{
    *name = acc_string(j, "name");
    *password = acc_string(j, "password");
    if (!*name || !*password) {
        acc_error(ans, 400, "bad_request", "give a \"name\" and a \"password\" (text)");
        return false;
    }
    return true;
}

void srv_accounts_signup(srv_accounts *a, const char *body, size_t len, const char *address,
                         srv_account_answer *ans)
{
    (void)address;
    memset(ans, 0, sizeof *ans);
    json_t *j = acc_body(body, len, ans);
    const char *name, *password;
    if (!j || !acc_credentials(j, &name, &password, ans)) {
        json_decref(j);
        return;
    }
    if (!acc_valid_name(name)) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "a name has 1 to %d bytes, no control characters and no space at either end",
                 SRV_ACCOUNT_NAME_MAX);
        acc_error(ans, 400, "bad_name", msg);
    } else if (strlen(password) < SRV_PASSWORD_MIN || strlen(password) > SRV_PASSWORD_MAX) {
        char msg[120];
        snprintf(msg, sizeof msg, "a password has %d to %d characters", SRV_PASSWORD_MIN,
                 SRV_PASSWORD_MAX);
        acc_error(ans, 400, "bad_password", msg);
    } else {
        char hash[crypto_pwhash_STRBYTES], key[SRV_NAME_LEN], now[SRV_TIME_LEN], err[TB_ERR_LEN];
        acc_fold(name, key);
        srv_iso_now(now);
        int64_t id = 0;
        /* the answer is built first: once the account exists, nothing can fail to tell it */
        json_t *reply = json_pack("{s:s}", "name", name);
        char *text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
        json_decref(reply);
        int rc = !text || acc_pwhash(hash, password)
                     ? -2
                     : a->store->m->account_create(a->store, name, key, hash, now, &id, err,
                                                   sizeof err);
        sodium_memzero(hash, sizeof hash);
        if (rc == -2)
            acc_error(ans, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        else if (rc == 1)
            acc_error(ans, 409, "name_taken", "that name is taken; choose another");
        else if (rc < 0)
            acc_store_error(a, ans, err);
        else if (acc_session_start(a, id, ans, err, sizeof err)) {
            /* no session, no account: the sign-up changed nothing */
            char why[TB_ERR_LEN];
            if (a->store->m->account_delete(a->store, id, SRV_FORMER_PLAYER, why, sizeof why) < 0)
                srv_log(&a->cfg, "accounts: %s", why);
            acc_store_error(a, ans, err);
        } else {
            ans->account = id;
            ans->status = 201;
            ans->reply = text;
            text = NULL;
            srv_log(&a->cfg, "account %lld signed up", (long long)id);
        }
        free(text);
    }
    sodium_memzero((char *)password, strlen(password));
    json_decref(j);
}

void srv_accounts_login(srv_accounts *a, const char *body, size_t len, const char *address,
                        srv_account_answer *ans)
{
    memset(ans, 0, sizeof *ans);
    json_t *j = acc_body(body, len, ans);
    const char *name, *password;
    if (!j || !acc_credentials(j, &name, &password, ans)) {
        json_decref(j);
        return;
    }
    char key[SRV_NAME_LEN], err[TB_ERR_LEN];
    acc_fold(strlen(name) < SRV_NAME_LEN ? name : "", key);
    int wait = acc_limited(a, strlen(name) < SRV_NAME_LEN ? key : name, address);
    if (wait > 0) {
        ans->retry_after = wait;
        char msg[160];
        snprintf(msg, sizeof msg, "too many failed log-ins; wait %d seconds and try again", wait);
        acc_error(ans, 429, "too_many_attempts", msg);
        sodium_memzero((char *)password, strlen(password));
        json_decref(j);
        return;
    }
    srv_account_row row;
    int rc = strlen(name) < SRV_NAME_LEN
                 ? a->store->m->account_find(a->store, key, 0, &row, err, sizeof err)
                 : 1;
    if (rc < 0) {
        acc_store_error(a, ans, err);
    } else {
        /* the same Argon2id work whether the name exists or not */
        int v = acc_verify(rc == 0 ? row.pw_hash : a->dummy_hash, password);
        bool ok = v == 0 && rc == 0;
        if (v < 0) {
            acc_error(ans, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        } else if (!ok) {
            acc_failed(a, strlen(name) < SRV_NAME_LEN ? key : name, address);
            acc_error(ans, 401, "bad_login", "wrong name or password");
        } else {
            /* the answer first: a session is started only when it can be told */
            json_t *reply = json_pack("{s:s}", "name", row.name);
            char *text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
            json_decref(reply);
            if (!text) {
                acc_error(ans, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
            } else if (acc_session_start(a, row.id, ans, err, sizeof err)) {
                free(text);
                acc_store_error(a, ans, err);
            } else {
                ans->account = row.id;
                ans->status = 200;
                ans->reply = text;
            }
        }
    }
    sodium_memzero(&row, sizeof row);
    sodium_memzero((char *)password, strlen(password));
    json_decref(j);
}

void srv_accounts_logout(srv_accounts *a, const char *cookie_header, srv_account_answer *ans)
{
    memset(ans, 0, sizeof *ans);
    char token[128], err[TB_ERR_LEN];
    if (acc_cookie_token(cookie_header, token, sizeof token)) {
        uint8_t hash[SRV_HASH_LEN];
        srv_secret_hash(token, hash);
        sodium_memzero(token, sizeof token);
        if (a->store->m->session_delete(a->store, hash, err, sizeof err)) {
            acc_store_error(a, ans, err);
            return;
        }
    }
    acc_set_cookie(a, ans, "", 0);
    acc_answer(ans, 200, json_pack("{s:b}", "signed_in", false));
}

/* Checks the account's password: 0 right, 1 wrong (answer set), -1 (answer set). */
static int acc_check_password(srv_accounts *a, int64_t account, const char *password,
                              srv_account_answer *ans)
{
    char err[TB_ERR_LEN];
    srv_account_row row;
    int rc = a->store->m->account_find(a->store, NULL, account, &row, err, sizeof err);
    if (rc < 0) {
        acc_store_error(a, ans, err);
        return -1;
    }
    if (rc == 1) {
        acc_error(ans, 401, "not_signed_in", "log in first");
        return -1;
    }
    rc = acc_verify(row.pw_hash, password);
    sodium_memzero(&row, sizeof row);
    if (rc < 0)
        acc_error(ans, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    else if (rc)
        acc_error(ans, 403, "wrong_password", "the password is not right");
    return rc ? -1 : 0;
}

void srv_accounts_password(srv_accounts *a, int64_t account, const uint8_t session[SRV_HASH_LEN],
                           const char *body, size_t len, srv_account_answer *ans)
{
    memset(ans, 0, sizeof *ans);
    json_t *j = acc_body(body, len, ans);
    if (!j)
        return;
    const char *old = acc_string(j, "old"), *fresh = acc_string(j, "new");
    if (!old || !fresh) {
        acc_error(ans, 400, "bad_request", "give the \"old\" and the \"new\" password (text)");
    } else if (strlen(fresh) < SRV_PASSWORD_MIN || strlen(fresh) > SRV_PASSWORD_MAX) {
        char msg[120];
        snprintf(msg, sizeof msg, "a password has %d to %d characters", SRV_PASSWORD_MIN,
                 SRV_PASSWORD_MAX);
        acc_error(ans, 400, "bad_password", msg);
    } else if (acc_check_password(a, account, old, ans) == 0) {
        char hash[crypto_pwhash_STRBYTES], err[TB_ERR_LEN];
        int rc = acc_pwhash(hash, fresh) ? -2
                 : a->store->m->account_update(a->store, account, hash, session, NULL, err,
                                               sizeof err);
        sodium_memzero(hash, sizeof hash);
        if (rc == -2)
            acc_error(ans, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        else if (rc < 0)
            acc_store_error(a, ans, err);
        else if (rc == 1)
            acc_error(ans, 401, "not_signed_in", "log in first");
        else
            acc_answer(ans, 200, json_pack("{s:b}", "changed", true));
    }
    if (old)
        sodium_memzero((char *)old, strlen(old));
    if (fresh)
        sodium_memzero((char *)fresh, strlen(fresh));
    json_decref(j);
}

void srv_accounts_delete(srv_accounts *a, int64_t account, const char *body, size_t len,
                         srv_account_answer *ans)
{
    memset(ans, 0, sizeof *ans);
    json_t *j = acc_body(body, len, ans);
    if (!j)
        return;
    const char *password = acc_string(j, "password");
    if (!password) {
        acc_error(ans, 400, "bad_request", "give your \"password\" to delete the account");
    } else if (acc_check_password(a, account, password, ans) == 0) {
        char err[TB_ERR_LEN];
        int rc = a->store->m->account_delete(a->store, account, SRV_FORMER_PLAYER, err, sizeof err);
        if (rc < 0)
            acc_store_error(a, ans, err);
        else if (rc == 1)
            acc_error(ans, 401, "not_signed_in", "log in first");
        else {
            ans->account = account;
            acc_set_cookie(a, ans, "", 0);
            acc_answer(ans, 200, json_pack("{s:b}", "deleted", true));
            srv_log(&a->cfg, "account %lld deleted", (long long)account);
        }
    }
    if (password)
        sodium_memzero((char *)password, strlen(password));
    json_decref(j);
}

void srv_accounts_lang(srv_accounts *a, int64_t account, const char *body, size_t len,
                       srv_account_answer *ans)
{
    memset(ans, 0, sizeof *ans);
    json_t *j = acc_body(body, len, ans);
    if (!j)
        return;
    const char *lang = acc_string(j, "lang");
    bool ok = lang && strlen(lang) <= 8;
    for (const char *p = lang; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p == '-' && p != lang) || (*p >= 'A' && *p <= 'Z');
    if (!ok) {
        acc_error(ans, 400, "bad_lang", "\"lang\" is a language code such as \"es\", or \"\"");
    } else {
        char err[TB_ERR_LEN];
        int rc = a->store->m->account_update(a->store, account, NULL, NULL, lang, err, sizeof err);
        if (rc < 0)
            acc_store_error(a, ans, err);
        else if (rc == 1)
            acc_error(ans, 401, "not_signed_in", "log in first");
        else
            acc_answer(ans, 200, json_pack("{s:s}", "lang", lang));
    }
    json_decref(j);
}

json_t *srv_accounts_me_json(srv_accounts *a, int64_t account, int *status)
{
    srv_account_row row;
    int rc = srv_accounts_find(a, account, &row);
    *status = rc == 0 ? SRV_INTERNAL_STATUS : rc == 1 ? 401 : 500; /* 503: no memory */
    if (rc)
        return NULL;
    json_t *j = json_pack("{s:s,s:s,s:s,s:b,s:s}", "name", row.name, "lang", row.lang, "email",
                     row.email, "email_confirmed", row.email_confirmed, "created", row.created);
    if (j)
        *status = 200;
    return j;
}

bool srv_accounts_same_origin(const srv_accounts *a, const char *origin, const char *host)
{
    if (!origin || !host)
        return false;
    const char *rest;
    if (strncmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    else if (strncmp(origin, "http://", 7) == 0 && !a->cfg.behind_tls)
        rest = origin + 7;
    else
        return false; /* "null", another scheme, or plain http behind TLS */
    if (strlen(rest) != strlen(host))
        return false;
    for (size_t i = 0; rest[i]; i++) {
        char x = rest[i], y = host[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return false;
    }
    return true;
}
