/*
 * accounts.h — players' accounts and their sessions (issue 28), a module
 * BELOW the rooms: it knows the store and the basics (base.h), never a room.
 *
 * What the rest of the server may call (stable names; helpers "ratings"
 * and "mail" build on them):
 *   srv_accounts_of_cookie(a, cookie_header, hash)  the Cookie header -> account id
 *   srv_accounts_id_of(a, name, &id, canonical)     an account's name -> its id
 *   srv_accounts_name_of(a, id, name)               an account id -> its name
 *   srv_accounts_find(a, id, &row)                  an account id -> its row (lang, e-mail)
 *   SRV_FORMER_PLAYER                               the name a deleted account's seats keep
 * The rooms ask "which seat may this connection play?" with the account id
 * the transport resolved from the cookie (srv_room_seat_of_account); they
 * never read account tables.
 *
 * Invariants: passwords are kept only as Argon2id hashes (crypto_pwhash_str,
 * interactive limits); a session is a 256-bit random token whose hash alone
 * is stored; a session idle for SRV_SESSION_IDLE_DAYS ends; a wrong password
 * and an unknown name get the same answer after the same work (an unknown
 * name is checked against a dummy hash); after SRV_LOGIN_FAILURES failed
 * log-ins in a minute for one name or from one address, log-ins for it are
 * refused with 429 until the minute is over.  Bad input changes nothing.
 */
#ifndef TB_SERVER_ACCOUNTS_H
#define TB_SERVER_ACCOUNTS_H

#include "base.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV_SESSION_COOKIE "tabula_session"
#define SRV_SESSION_IDLE_DAYS 30
#define SRV_SESSION_TOUCH_SECONDS 60 /* last_used is written at most this often */
#define SRV_LOGIN_FAILURES 10        /* failed log-ins per name and per address a minute */
#define SRV_ACCOUNT_NAME_MAX 32      /* bytes of an account name */
#define SRV_PASSWORD_MIN 8           /* characters (bytes) of a password, at least */
#define SRV_PASSWORD_MAX 512
#define SRV_FORMER_PLAYER "a former player"

typedef struct srv_accounts srv_accounts;

srv_accounts *srv_accounts_open(const srv_config *cfg, srv_store *store, char *err,
                                size_t errlen);
void srv_accounts_close(srv_accounts *a);

/* The account of the session cookie in a Cookie header (NULL: none): the
 * account id, 0 without a live session, -1 when the store failed.  `hash`
 * (may be NULL) gets the session's hash. */
int64_t srv_accounts_of_cookie(srv_accounts *a, const char *cookie_header,
                               uint8_t hash[SRV_HASH_LEN]);
/* Whether a Cookie header carries a session cookie at all (live or not). */
bool srv_accounts_has_cookie(const char *cookie_header);
/* An account by name (compared folded: case does not matter in ASCII):
 * 0 (*id and `canonical`, the name as signed up, set; canonical may be
 * NULL), 1 none, -1 store error. */
int srv_accounts_id_of(srv_accounts *a, const char *name, int64_t *id,
                       char canonical[SRV_NAME_LEN]);
int srv_accounts_name_of(srv_accounts *a, int64_t id, char name[SRV_NAME_LEN]);
int srv_accounts_find(srv_accounts *a, int64_t id, srv_account_row *row);

/* One HTTP answer of the account API (http.c sends it). */
typedef struct srv_account_answer {
    int status;
    char *reply;        /* JSON text (malloc'd) */
    char cookie[200];   /* a Set-Cookie value to send, or "" */
    int retry_after;    /* seconds, for a 429; 0: none */
    int64_t account;    /* the account signed up or logged in (0: none) */
} srv_account_answer;

/* POST /api/accounts {"name","password"} (201 and a session cookie) and
 * POST /api/session {"name","password"} (200 and the cookie; 401 bad_login;
 * 429 too_many_attempts).  `address` is the client's.  Other fields of the
 * body (such as "claim") are the caller's and left alone. */
void srv_accounts_signup(srv_accounts *a, const char *body, size_t len, const char *address,
                         srv_account_answer *ans);
void srv_accounts_login(srv_accounts *a, const char *body, size_t len, const char *address,
                        srv_account_answer *ans);
/* DELETE /api/session: ends the cookie's session (if any) and clears it. */
void srv_accounts_logout(srv_accounts *a, const char *cookie_header, srv_account_answer *ans);
/* The session cookie again (its life restarted), for a live session. */
void srv_accounts_cookie(const srv_accounts *a, const char *cookie_header,
                         srv_account_answer *ans);
/* POST /api/me/password {"old","new"}: every other session of it ends. */
void srv_accounts_password(srv_accounts *a, int64_t account, const uint8_t session[SRV_HASH_LEN],
                           const char *body, size_t len, srv_account_answer *ans);
/* DELETE /api/me {"password"}: 0 in ans->status's place means the caller
 * still has to tell the rooms (see http.c); the answer is set either way. */
void srv_accounts_delete(srv_accounts *a, int64_t account, const char *body, size_t len,
                         srv_account_answer *ans);
/* PUT /api/me/lang {"lang": "es"} ("" for the browser's own). */
void srv_accounts_lang(srv_accounts *a, int64_t account, const char *body, size_t len,
                       srv_account_answer *ans);
/* The account's own fields of GET /api/me: name, lang, email, ... (NULL:
 * the store failed; *status says 401 when there is no such account). */
json_t *srv_accounts_me_json(srv_accounts *a, int64_t account, int *status);

/* Whether `origin` (an Origin header) is this server's own: the same
 * host[:port] as the Host header, over http or https (https only behind
 * TLS).  Used for CSRF. */
bool srv_accounts_same_origin(const srv_accounts *a, const char *origin, const char *host);

#endif
