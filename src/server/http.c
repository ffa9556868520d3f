/*
 * http.c — the HTTP side (libmicrohttpd): the JSON API of docs/http-api.md,
 * the WebSocket upgrade at /ws, and the static UI from the web directory.
 *
 * Invariants: every API answer is JSON, errors as {"error":{"code","message"}}
 * with a 4xx/5xx status, and a reply that cannot be built is a 503
 * (internal), never
 * the end of the process; a request body over SRV_MAX_BODY bytes is refused
 * with 413 without being kept (at once when Content-Length announces it); an
 * address with a control character (a decoded %00 included) is refused with
 * 400; static paths are checked character by character (no "..", no hidden
 * files) and resolved only inside the web directory, and /i18n/NAME only
 * to LINGUAS or a LANG.po file of the po directory; no answer ever contains
 * a seat token except the reply to the POST that created it.
 *
 * Accounts (accounts.h): the session cookie is resolved here to an account
 * id, which goes with a WebSocket upgrade and a game's creation; a request
 * that changes something (or upgrades) with a session cookie and a foreign
 * Origin is refused (403) before anything else; the Argon2id work of
 * sign-up, log-in, a password change and deletion runs on the hashing
 * threads while its connection waits suspended, so this daemon's one thread
 * never waits on it.  A Set-Cookie goes only with a successful answer.
 *
 * Slow clients: every connection is watched from the moment it opens.  A
 * request (headers and body) must arrive within `request_seconds`, and a
 * connection between requests is closed after `idle_seconds`; the watchdog
 * thread shuts such a socket down (libmicrohttpd then closes it).  A socket
 * upgraded to a WebSocket is ws.c's and never watched here.  One address
 * may hold at most `per_address` connections.  The watch list lock is held
 * whenever a watched socket is shut down, and a connection leaves the list
 * (under the lock) before libmicrohttpd closes its socket, so the watchdog
 * never touches a descriptor that was closed and reused.
 */
#include "transport.h"
#include "ratings.h"
#include "core/text.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* One open connection, as the watchdog sees it. */
typedef enum { HTTP_READING, HTTP_ANSWERING, HTTP_IDLE, HTTP_UPGRADED } http_phase;

typedef struct http_watch {
    int fd;
    http_phase phase;
    uint64_t since_us; /* when the phase began */
    bool shut;         /* the watchdog shut it down already */
    struct http_watch *prev, *next;
} http_watch;

struct srv_http {
    srv_config cfg;
    char web_dir[1024];
    srv_rooms *rooms;
    srv_ws *ws;
    srv_reviews *reviews;
    srv_accounts *accounts;
    srv_mailer *mailer; /* e-mail addresses, their links (mail.h) */
    struct MHD_Daemon *daemon;
    int port;
    uint64_t request_us, idle_us;
    pthread_mutex_t watch_lock;
    http_watch *watched;
    pthread_t watchdog;
    bool watchdog_started;
    bool stopping; /* under watch_lock */
    pthread_cond_t wake;
    /* the hashing threads: account requests leave the daemon's one thread */
    pthread_mutex_t slow_lock;
    pthread_cond_t slow_wake;
    struct http_req *slow_head, *slow_tail;
    int slow_queued, hashers;
    bool slow_stopping; /* under slow_lock */
    pthread_t hasher[2]; /* HTTP_HASHERS */
};

typedef struct http_req {
    srv_ws_pending ws; /* first: the upgrade handler reads it through con_cls */
    char *body;
    size_t len;
    bool too_big;
    /* an account request whose Argon2id work runs on a hashing thread
     * while the connection is suspended (http_slow_*) */
    int slow;                 /* HTTP_SLOW_*: what to do; 0: nothing */
    char address[80];         /* the client's (log-in limits) */
    int64_t account;          /* the session's account */
    uint8_t session[SRV_HASH_LEN];
    struct MHD_Connection *conn;
    srv_account_answer answer;
    bool answered;            /* `answer` is ready: the resumed request sends it */
    struct http_req *next;    /* the hashing queue */
} http_req;

/* Requests whose answer needs Argon2id (some 50-100 ms and 64 MiB each):
 * sign-up, log-in, a password change, deleting an account. */
enum { HTTP_SLOW_SIGNUP = 1, HTTP_SLOW_LOGIN, HTTP_SLOW_PASSWORD, HTTP_SLOW_DELETE };
#define HTTP_HASHERS 2     /* hashing threads (srv_http.hasher): at most this many hashes at once */
#define HTTP_HASH_QUEUE 64 /* requests waiting beyond those: more are refused (503) */

/* ---- slow clients ---- */

static void http_watch_set(srv_http *h, struct MHD_Connection *c, http_phase phase)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    http_watch *w = info ? info->socket_context : NULL;
    if (!w)
        return;
    pthread_mutex_lock(&h->watch_lock);
    if (w->phase != HTTP_UPGRADED) {
        w->phase = phase;
        w->since_us = srv_now_us();
    }
    pthread_mutex_unlock(&h->watch_lock);
}

static void http_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                                   enum MHD_ConnectionNotificationCode code)
{
    srv_http *h = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        http_watch *w = info ? calloc(1, sizeof *w) : NULL;
        if (!w)
            return; /* not watched: libmicrohttpd's own idle timeout still holds */
        w->fd = info->connect_fd;
        w->phase = HTTP_READING;
        w->since_us = srv_now_us();
        pthread_mutex_lock(&h->watch_lock);
        w->next = h->watched;
        if (h->watched)
            h->watched->prev = w;
        h->watched = w;
        pthread_mutex_unlock(&h->watch_lock);
        *socket_context = w;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        http_watch *w = *socket_context;
        if (!w)
            return;
        pthread_mutex_lock(&h->watch_lock);
        if (w->prev)
            w->prev->next = w->next;
        else
            h->watched = w->next;
        if (w->next)
            w->next->prev = w->prev;
        pthread_mutex_unlock(&h->watch_lock);
        free(w);
        *socket_context = NULL;
    }
}

static void *http_watchdog(void *arg)
{
    srv_http *h = arg;
    pthread_mutex_lock(&h->watch_lock);
    while (!h->stopping) {
        uint64_t now = srv_now_us();
        int slow = 0, idle = 0;
        for (http_watch *w = h->watched; w; w = w->next) {
            if (w->shut)
                continue;
            bool late = (w->phase == HTTP_READING && now - w->since_us > h->request_us) ||
                        (w->phase == HTTP_IDLE && now - w->since_us > h->idle_us);
            if (!late)
                continue;
            shutdown(w->fd, SHUT_RDWR);
            w->shut = true;
            if (w->phase == HTTP_READING)
                slow++;
            else
                idle++;
        }
        if (slow)
            srv_log(&h->cfg, "closed %d connection%s that took over %d s to send a request",
                    slow, slow == 1 ? "" : "s", (int)(h->request_us / 1000000u));
        (void)idle; /* idle keep-alive connections closing is ordinary */
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += 250000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->wake, &h->watch_lock, &until);
    }
    pthread_mutex_unlock(&h->watch_lock);
    return NULL;
}

static int http_hex(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Decodes %HH escapes in an address or its arguments in place.  A decoded
 * NUL would cut the text short without anyone noticing ("/index.html%00.png"
 * would read as "/index.html"), so it becomes the control character 0x01,
 * which every reader refuses. */
static size_t http_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    char *out = s;
    for (const char *in = s; *in; in++) {
        int hi, lo;
        if (in[0] == '%' && (hi = http_hex(in[1])) >= 0 && (lo = http_hex(in[2])) >= 0) {
            char ch = (char)(hi << 4 | lo);
            *out++ = ch ? ch : '\x01';
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

static bool http_has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return true;
    return false;
}

/* ---- answers ---- */

static enum MHD_Result http_send(struct MHD_Connection *c, unsigned status, const char *type,
                                 char *body)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* Sends j (stolen).  A reply that cannot be built (NULL, or no memory to
 * print it) becomes a 503 (internal) for this request alone. */
static enum MHD_Result http_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) {
        status = SRV_INTERNAL_STATUS;
        text = srv_internal_error("an HTTP answer");
        if (!text)
            return MHD_NO;
    }
    return http_send(c, status, "application/json", text);
}

static enum MHD_Result http_error(struct MHD_Connection *c, unsigned status, const char *code,
                                  const char *message)
{
    char text[TB_ERR_LEN * 2];
    snprintf(text, sizeof text, "%s", message);
    tb__utf8_repair(text);
    return http_json(c, status,
                     json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", text));
}

static enum MHD_Result http_method_not_allowed(struct MHD_Connection *c, const char *allow)
{
    json_t *j = json_pack("{s:{s:s,s:s}}", "error", "code", "method_not_allowed", "message",
                          "this address does not take that method");
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    struct MHD_Response *r =
        text ? MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE) : NULL;
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Allow", allow);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- accounts and sessions (accounts.h; docs/http-api.md "Accounts") ---- */

static const char *http_header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* The client's address as text: the socket's peer, or behind a TLS proxy
 * (--behind-tls) the last X-Forwarded-For entry, the one the proxy added. */
static void http_client_address(const srv_http *h, struct MHD_Connection *c, char *out,
                                size_t outlen)
{
    snprintf(out, outlen, "unknown");
    const char *xff = h->cfg.behind_tls ? http_header(c, "X-Forwarded-For") : NULL;
    if (xff && *xff) {
        const char *last = strrchr(xff, ',');
        last = last ? last + 1 : xff;
        while (*last == ' ')
            last++;
        snprintf(out, outlen, "%.64s", last);
        return;
    }
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = info ? info->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)outlen);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                  (socklen_t)outlen);
}

/* Sends an account answer with its Set-Cookie and Retry-After headers. */
static enum MHD_Result http_send_answer(struct MHD_Connection *c, srv_account_answer *ans)
{
    char *body = ans->reply ? ans->reply : srv_internal_error("an account answer");
    unsigned status = ans->reply ? (unsigned)ans->status : SRV_INTERNAL_STATUS;
    ans->reply = NULL;
    if (!body)
        return MHD_NO;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (ans->cookie[0] && status < 300) /* a failed request sets no session */
        MHD_add_response_header(r, "Set-Cookie", ans->cookie);
    if (ans->retry_after > 0) {
        char secs[16];
        snprintf(secs, sizeof secs, "%d", ans->retry_after);
        MHD_add_response_header(r, "Retry-After", secs);
    }
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    sodium_memzero(ans->cookie, sizeof ans->cookie);
    return ret;
}

/* After a sign-up or log-in: the seats of the links the browser holds
 * ("claim": [{"game", "token"}]) become the account's; the reply says how
 * many ("claimed"). */
static void http_claim(srv_http *h, const http_req *rq, srv_account_answer *ans)
{
    if (ans->account <= 0 || !ans->reply)
        return;
    json_error_t jerr;
    json_t *body = tb__json_loadb(rq->body ? rq->body : "", rq->len, 0, &jerr);
    json_t *claim = json_object_get(body, "claim");
    int n = json_is_array(claim) ? srv_rooms_claim_seats(h->rooms, ans->account, claim) : 0;
    json_decref(body);
    json_t *reply = tb__json_loads(ans->reply, 0, &jerr);
    if (reply && json_object_set_new(reply, "claimed", json_integer(n)) == 0) {
        char *text = json_dumps(reply, JSON_COMPACT);
        if (text) {
            free(ans->reply);
            ans->reply = text;
        }
    }
    json_decref(reply);
}

/* Does the account work of a suspended (or, failing that, this) request. */
static void http_slow_run(srv_http *h, http_req *rq)
{
    const char *body = rq->body ? rq->body : "";
    srv_account_answer *ans = &rq->answer;
    switch (rq->slow) {
    case HTTP_SLOW_SIGNUP:
        srv_accounts_signup(h->accounts, body, rq->len, rq->address, ans);
        http_claim(h, rq, ans);
        break;
    case HTTP_SLOW_LOGIN:
        srv_accounts_login(h->accounts, body, rq->len, rq->address, ans);
        http_claim(h, rq, ans);
        break;
    case HTTP_SLOW_PASSWORD:
        srv_accounts_password(h->accounts, rq->account, rq->session, body, rq->len, ans);
        break;
    case HTTP_SLOW_DELETE:
        srv_accounts_delete(h->accounts, rq->account, body, rq->len, ans);
        if (ans->status == 200)
            srv_rooms_forget_account(h->rooms, rq->account, SRV_FORMER_PLAYER);
        break;
    default:
        break;
    }
    rq->answered = true;
}

static void *http_hasher(void *arg)
{
    srv_http *h = arg;
    pthread_mutex_lock(&h->slow_lock);
    for (;;) {
        while (!h->slow_head && !h->slow_stopping)
            pthread_cond_wait(&h->slow_wake, &h->slow_lock);
        http_req *rq = h->slow_head;
        if (!rq)
            break; /* stopping, and nothing left to answer */
        h->slow_head = rq->next;
        if (!h->slow_head)
            h->slow_tail = NULL;
        h->slow_queued--;
        pthread_mutex_unlock(&h->slow_lock);
        tb__json_fresh();
        http_slow_run(h, rq);
        MHD_resume_connection(rq->conn); /* the daemon calls http_access again */
        pthread_mutex_lock(&h->slow_lock);
    }
    pthread_mutex_unlock(&h->slow_lock);
    return NULL;
}

/* Hands an account request to the hashing threads: the connection waits
 * suspended, so the daemon's thread goes on serving everyone else.  When
 * the threads are stopping (or never started) it is done here; when too
 * many wait already, 503. */
static enum MHD_Result http_slow(srv_http *h, struct MHD_Connection *c, http_req *rq, int kind)
{
    rq->slow = kind;
    rq->conn = c;
    pthread_mutex_lock(&h->slow_lock);
    bool here = h->slow_stopping || h->hashers == 0;
    bool full = !here && h->slow_queued >= HTTP_HASH_QUEUE;
    if (!here && !full) {
        /* suspended before a hasher can see it, so its resume comes after */
        MHD_suspend_connection(c);
        rq->next = NULL;
        if (h->slow_tail)
            h->slow_tail->next = rq;
        else
            h->slow_head = rq;
        h->slow_tail = rq;
        h->slow_queued++;
        pthread_cond_signal(&h->slow_wake);
    }
    pthread_mutex_unlock(&h->slow_lock);
    if (full)
        return http_error(c, 503, "busy", "the server has too many log-ins to check; try again");
    if (!here)
        return MHD_YES;
    http_slow_run(h, rq);
    return http_send_answer(c, &rq->answer);
}

static enum MHD_Result http_too_big(struct MHD_Connection *c)
{
    char msg[96];
    snprintf(msg, sizeof msg, "the body may have at most %d bytes", SRV_MAX_BODY);
    return http_error(c, 413, "too_large", msg);
}

/* POST /api/accounts, POST|DELETE /api/session, GET|DELETE /api/me,
 * POST /api/me/password, PUT /api/me/lang, POST /api/me/claim,
 * GET|PUT /api/me/email (mail.c). */
static enum MHD_Result http_accounts(srv_http *h, struct MHD_Connection *c, char part[][64],
                                     int parts, const char *method, http_req *rq)
{
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    bool post = strcmp(method, "POST") == 0, del = strcmp(method, "DELETE") == 0;
    const char *cookie = http_header(c, "Cookie");
    const char *body = rq->body ? rq->body : "";
    srv_account_answer ans;
    memset(&ans, 0, sizeof ans);
    if (rq->too_big)
        return http_too_big(c);
    http_client_address(h, c, rq->address, sizeof rq->address);
    if (parts == 1 && strcmp(part[0], "accounts") == 0) {
        if (!post)
            return http_method_not_allowed(c, "POST");
        return http_slow(h, c, rq, HTTP_SLOW_SIGNUP);
    }
    if (parts == 1 && strcmp(part[0], "session") == 0) {
        if (post) {
            return http_slow(h, c, rq, HTTP_SLOW_LOGIN);
        } else if (del) {
            srv_accounts_logout(h->accounts, cookie, &ans);
        } else if (get) {
            /* who this browser is, without an error for a guest (pages ask it on every load) */
            int64_t account = srv_accounts_of_cookie(h->accounts, cookie, NULL);
            int status = 200;
            json_t *me = account > 0 ? srv_accounts_me_json(h->accounts, account, &status) : NULL;
            if (account < 0 || (account > 0 && !me && status != 401))
                return http_error(c, 500, "store_failed",
                                  "the server could not reach its database; try again");
            if (!me)
                return http_json(c, 200, json_pack("{s:b}", "signed_in", false));
            json_object_set_new(me, "signed_in", json_true());
            return http_json(c, 200, me);
        } else {
            return http_method_not_allowed(c, "GET, POST, DELETE");
        }
        return http_send_answer(c, &ans);
    }
    /* /api/me and below: a live session */
    bool email = parts == 2 && strcmp(part[1], "email") == 0;
    const char *allow = parts == 1                           ? "GET, DELETE"
                        : email                              ? "GET, PUT"
                        : strcmp(part[1], "lang") == 0       ? "PUT"
                                                             : "POST";
    bool ok_method = parts == 1 ? get || del
                     : email    ? get || strcmp(method, "PUT") == 0
                     : strcmp(part[1], "lang") == 0 ? strcmp(method, "PUT") == 0
                                                    : post;
    bool known = parts == 1 || email ||
                 (parts == 2 && (strcmp(part[1], "lang") == 0 ||
                                 strcmp(part[1], "password") == 0 ||
                                 strcmp(part[1], "claim") == 0));
    if (!known)
        return http_error(c, 404, "not_found", "no such API address (see docs/http-api.md)");
    if (!ok_method)
        return http_method_not_allowed(c, allow);
    uint8_t session[SRV_HASH_LEN];
    int64_t account = srv_accounts_of_cookie(h->accounts, cookie, session);
    if (account < 0)
        return http_error(c, 500, "store_failed",
                          "the server could not reach its database; try again");
    if (account == 0)
        return http_error(c, 401, "not_signed_in", "log in first");
    if (parts == 1 && get) {
        int status = 200;
        json_t *me = srv_accounts_me_json(h->accounts, account, &status);
        if (!me)
            return status == 401 ? http_error(c, 401, "not_signed_in", "log in first")
                                 : http_error(c, 500, "store_failed",
                                              "the server could not reach its database; try again");
        char err[TB_ERR_LEN];
        char *games = srv_rooms_account_games(h->rooms, account, err, sizeof err);
        bool listed = games != NULL;
        char *head = games ? json_dumps(me, JSON_COMPACT) : NULL;
        json_decref(me);
        /* {"name",...} and the games' text: {"name",...,"games":[...]} */
        size_t hl = head ? strlen(head) : 0, gl = games ? strlen(games) : 0;
        char *text = head && hl >= 2 ? malloc(hl + gl + 16) : NULL;
        if (text)
            snprintf(text, hl + gl + 16, "%.*s,\"games\":%s}", (int)(hl - 1), head, games);
        free(head);
        free(games);
        if (!text) {
            srv_log(&h->cfg, "GET /api/me: %s", listed ? "out of memory" : err);
            return listed || strstr(err, "out of memory")
                       ? http_error(c, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE)
                       : http_error(c, 500, "store_failed",
                                    "the server could not reach its database; try again");
        }
        ans.reply = text;
        ans.status = 200;
        srv_accounts_cookie(h->accounts, cookie, &ans); /* 30 more days from now */
        return http_send_answer(c, &ans);
    }
    rq->account = account;
    memcpy(rq->session, session, SRV_HASH_LEN);
    if (parts == 1) /* DELETE /api/me */
        return http_slow(h, c, rq, HTTP_SLOW_DELETE);
    if (email) { /* the address and its turn e-mails (mail.h) */
        char *reply = NULL;
        int status = get ? srv_mail_get(h->mailer, account, &reply)
                         : srv_mail_put(h->mailer, account, body, rq->len, &reply);
        if (!reply)
            return http_error(c, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        return http_send(c, (unsigned)status, "application/json", reply);
    }
    if (strcmp(part[1], "password") == 0) {
        return http_slow(h, c, rq, HTTP_SLOW_PASSWORD);
    } else if (strcmp(part[1], "lang") == 0) {
        srv_accounts_lang(h->accounts, account, body, rq->len, &ans);
    } else { /* claim */
        json_error_t jerr;
        json_t *j = tb__json_loadb(body, rq->len, JSON_REJECT_DUPLICATES, &jerr);
        json_t *claim = json_object_get(j, "claim");
        if (!json_is_array(claim)) {
            json_decref(j);
            return http_error(c, 400, "bad_request",
                              "give \"claim\": [{\"game\": ID, \"token\": T}, ...]");
        }
        int n = srv_rooms_claim_seats(h->rooms, account, claim);
        json_decref(j);
        return http_json(c, 200, json_pack("{s:i}", "claimed", n));
    }
    return http_send_answer(c, &ans);
}

/* A free seat taken by a browser with a session becomes the account's (and
 * goes by its name); `reply` (the seat's answer, stolen) is given back,
 * with the account's name when it did. */
static char *http_seat_for_account(srv_http *h, struct MHD_Connection *c, char *reply)
{
    int64_t account = srv_accounts_of_cookie(h->accounts, http_header(c, "Cookie"), NULL);
    if (account <= 0)
        return reply;
    json_error_t jerr;
    json_t *j = tb__json_loads(reply, 0, &jerr);
    json_t *claim = json_pack("[{s:O,s:O}]", "game", json_object_get(j, "id"), "token",
                              json_object_get(j, "token"));
    char name[SRV_NAME_LEN];
    if (claim && srv_rooms_claim_seats(h->rooms, account, claim) == 1 &&
        srv_accounts_name_of(h->accounts, account, name) == 0 &&
        json_object_set_new(j, "name", json_string(name)) == 0) {
        char *text = json_dumps(j, JSON_COMPACT);
        if (text) {
            free(reply);
            reply = text;
        }
    }
    json_decref(claim);
    json_decref(j);
    return reply;
}

/* CSRF: a state-changing request (or a WebSocket upgrade) that carries a
 * session cookie and an Origin other than this server's own (the Host
 * header's, accounts.c) is refused.  Without a cookie, or without an
 * Origin (not a browser's cross-site request), it goes on. */
static bool http_foreign(srv_http *h, struct MHD_Connection *c, const char *url,
                         const char *method)
{
    bool changes = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0 &&
                   strcmp(method, "OPTIONS") != 0;
    if (!changes && strcmp(url, "/ws") != 0)
        return false;
    if (!srv_accounts_has_cookie(http_header(c, "Cookie")))
        return false;
    const char *origin = http_header(c, "Origin");
    return origin && !srv_accounts_same_origin(h->accounts, origin, http_header(c, "Host"));
}

/* ---- the API ---- */

static json_t *http_catalog(const tb_data_set *boards)
{
    json_t *games = json_array();
    for (int i = 0; i < tb_game_count(); i++) {
        const tb_game *g = tb_game_at(i);
        json_t *opts = json_array();
        for (const tb_option_spec *o = tb_game_options(g); o && o->key; o++) {
            json_t *values = json_array();
            char buf[256];
            snprintf(buf, sizeof buf, "%s", o->values ? o->values : "");
            char *save = NULL;
            for (char *v = strtok_r(buf, "|", &save); v; v = strtok_r(NULL, "|", &save))
                json_array_append_new(values, json_string(v));
            /* the values' names for players, in the order of the values (the
             * value itself where the game names none) */
            json_t *labels = json_array();
            snprintf(buf, sizeof buf, "%s", o->values ? o->values : "");
            const char *names = o->value_labels ? o->value_labels : "";
            save = NULL;
            for (char *v = strtok_r(buf, "|", &save); v; v = strtok_r(NULL, "|", &save)) {
                size_t len = strcspn(names, "|");
                json_array_append_new(labels, len ? json_stringn(names, len) : json_string(v));
                names += names[len] ? len + 1 : len;
            }
            json_array_append_new(
                opts, json_pack("{s:s,s:o,s:s,s:s,s:s,s:o}", "key", o->key, "values", values,
                                "default", o->fallback ? o->fallback : "", "help",
                                o->help ? o->help : "", "label", o->label ? o->label : o->key,
                                "value_labels", labels));
        }
        const char *notice = tb_game_notice(g);
        /* the boards a game may be played on, by name (the built-in one first) */
        json_t *names = json_array();
        int nb = !tb_data_builtin(g) ? 0 : boards ? tb_data_set_count(boards, g) : 1;
        for (int k = 0; k < nb; k++)
            json_array_append_new(names, json_string(tb_data_name(
                                             boards ? tb_data_set_at(boards, g, k) : tb_data_builtin(g))));
        json_array_append_new(
            games, json_pack("{s:s,s:s,s:i,s:i,s:i,s:o,s:o,s:o}", "name", tb_game_name(g), "title",
                             tb_game_title(g), "min_players", tb_game_min_players(g),
                             "max_players", tb_game_max_players(g), "default_players",
                             tb_game_default_players(g), "notice",
                             notice ? json_string(notice) : json_null(), "options", opts,
                             "boards", names));
    }
    json_t *levels = json_array();
    static const char *const names[] = {"easy", "normal", "hard"};
    for (int i = 0; i < 3; i++) {
        const tb_agent *a = NULL;
        tb_budget b;
        bool ok = tb_level_lookup(NULL, names[i], &a, &b) == 0;
        json_t *o = json_pack("{s:s,s:b}", "name", names[i], "available", ok);
        if (ok)
            json_object_set_new(o, "agent", json_string(a->name));
        else
            json_object_set_new(o, "note",
                                json_string("not in this build yet: plays random legal moves"));
        json_array_append_new(levels, o);
    }
    json_t *agents = json_array();
    for (int i = 0; i < tb_agent_count(); i++)
        json_array_append_new(agents, json_pack("{s:s,s:s}", "name", tb_agent_at(i)->name,
                                                "summary", tb_agent_at(i)->summary));
    return json_pack("{s:s,s:o,s:o,s:o}", "version", TB_VERSION, "games", games, "levels",
                     levels, "agents", agents);
}

static enum MHD_Result http_list_games(srv_http *h, struct MHD_Connection *c)
{
    const char *status = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "status");
    const char *lim = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    if (status && strcmp(status, "over") && strcmp(status, "all") && strcmp(status, "running") &&
        strcmp(status, "open"))
        return http_error(c, 400, "bad_request", "status must be open, running, over or all");
    long limit = 100;
    if (lim) {
        char *end;
        limit = strtol(lim, &end, 10);
        if (*end || limit < 1 || limit > 500)
            return http_error(c, 400, "bad_request", "limit must be 1 to 500");
    }
    char err[TB_ERR_LEN];
    json_t *games = srv_rooms_list(h->rooms, status && strcmp(status, "all") == 0 ? NULL
                                             : status ? status : "running",
                                   (int)limit, err, sizeof err);
    if (!games)
        return http_error(c, 500, "store_failed", err);
    return http_json(c, 200, json_pack("{s:o}", "games", games));
}

/* GET or POST /api/games/ID/review (review.h): a finished game's review. */
static enum MHD_Result http_review(srv_http *h, struct MHD_Connection *c, const char *id,
                                   bool get, const char *method)
{
    bool post = strcmp(method, "POST") == 0;
    if (!get && !post)
        return http_method_not_allowed(c, "GET, POST");
    if (!srv_valid_id(id))
        return http_error(c, 404, "unknown_game", "there is no such game");
    bool temporary;
    srv_room *r = srv_room_borrow(h->rooms, id, &temporary);
    if (!r)
        return http_error(c, 404, "unknown_game", "there is no such game");
    int status = 200;
    char *out = NULL;
    if (get) {
        status = srv_review_get(h->reviews, id, &out);
    } else {
        char *record = srv_room_record_json(r, &status);
        if (status == 200 && record)
            status = srv_review_request(h->reviews, id, record, &out);
        else
            out = record ? record : NULL;
        if (out != record)
            free(record);
    }
    if (temporary)
        srv_room_free(r);
    if (!out)
        return http_error(c, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    return http_send(c, (unsigned)status, "application/json", out);
}

static enum MHD_Result http_api(srv_http *h, struct MHD_Connection *c, const char *url,
                                const char *method, http_req *rq)
{
    tb__json_fresh();
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (strncmp(url, "/api/players/", 13) == 0 && url[13]) {
        /* a player's name may hold any character, '/' too (the URL's
         * unescaped path: the rest of it is the name) */
        if (!get)
            return http_method_not_allowed(c, "GET");
        char *reply = NULL;
        int status = srv_ratings_player(srv_rooms_store(h->rooms), url + 13, &reply);
        return http_send(c, (unsigned)status, "application/json", reply);
    }
    char part[4][64] = {{0}};
    int parts = 0;
    const char *p = url + strlen("/api/");
    while (*p && parts < 4) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || len >= sizeof part[0])
            return http_error(c, 404, "not_found", "no such API address (see docs/http-api.md)");
        memcpy(part[parts++], p, len);
        p += len + (slash ? 1 : 0);
        if (slash && !*p)
            break;
    }
    if (*p)
        return http_error(c, 404, "not_found", "no such API address (see docs/http-api.md)");
    if ((parts == 1 && (strcmp(part[0], "accounts") == 0 || strcmp(part[0], "session") == 0)) ||
        strcmp(part[0], "me") == 0)
        return http_accounts(h, c, part, parts, method, rq);
    if (parts == 1 && strcmp(part[0], "catalog") == 0) {
        if (!get)
            return http_method_not_allowed(c, "GET");
        return http_json(c, 200, http_catalog(h->cfg.boards));
    }
    if (parts == 1 && strcmp(part[0], "health") == 0) {
        if (!get)
            return http_method_not_allowed(c, "GET");
        int rooms = srv_rooms_in_memory(h->rooms);
        char why[TB_ERR_LEN], since[SRV_TIME_LEN], reason[TB_ERR_LEN + 64];
        if (srv_rooms_store_failing(h->rooms, why, sizeof why, since, sizeof since)) {
            /* a host's monitoring sees it: decisions are refused meanwhile */
            snprintf(reason, sizeof reason, "storage is failing: %s", why);
            return http_json(c, 503, json_pack("{s:b,s:s,s:i,s:s,s:s}", "ok", false, "version",
                                               TB_VERSION, "games_in_memory", rooms, "reason",
                                               reason, "since", since));
        }
        return http_json(c, 200, json_pack("{s:b,s:s,s:i}", "ok", true, "version", TB_VERSION,
                                           "games_in_memory", rooms));
    }
    if (parts == 3 && strcmp(part[0], "catalog") == 0 && strcmp(part[2], "start") == 0) {
        /* a starting position as everybody sees it (the rules pages draw it) */
        if (!get)
            return http_method_not_allowed(c, "GET");
        const tb_game *g = tb_game_find(part[1]);
        if (!g)
            return http_error(c, 404, "unknown_game", "there is no such game");
        char err[TB_ERR_LEN];
        tb_state *s = tb_state_new(g);
        if (!s || tb_setup(s, tb_game_default_players(g), NULL, 1, err, sizeof err)) {
            tb_state_free(s);
            return http_error(c, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        }
        char *view = tb_view_json(s, TB_SPECTATOR);
        tb_state_free(s);
        if (!view)
            return http_error(c, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        return http_send(c, 200, "application/json", view);
    }
    if (parts == 3 && strcmp(part[0], "catalog") == 0 && strcmp(part[2], "board") == 0) {
        if (!get)
            return http_method_not_allowed(c, "GET");
        const tb_game *g = tb_game_find(part[1]);
        if (!g)
            return http_error(c, 404, "unknown_game", "there is no such game");
        char *board = tb_board_json(g);
        return http_send(c, 200, "application/json", board);
    }
    if (parts == 4 && strcmp(part[0], "catalog") == 0 && strcmp(part[2], "boards") == 0) {
        if (!get)
            return http_method_not_allowed(c, "GET");
        const tb_game *g = tb_game_find(part[1]);
        if (!g)
            return http_error(c, 404, "unknown_game", "there is no such game");
        const tb_data *d = tb_data_builtin(g) && tb_data_name_ok(part[3])
                               ? tb_data_set_find(h->cfg.boards, g, part[3])
                               : NULL;
        if (!d)
            return http_error(c, 404, "unknown_board", "this server has no such board of the game");
        return http_send(c, 200, "application/json", tb_board_json_data(g, d));
    }
    if (parts == 2 && strcmp(part[0], "ratings") == 0) { /* ratings.c: a leaderboard */
        if (!get)
            return http_method_not_allowed(c, "GET");
        char *reply = NULL;
        int status = srv_ratings_board(
            srv_rooms_store(h->rooms), part[1],
            MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit"), &reply);
        return http_send(c, (unsigned)status, "application/json", reply);
    }
    if (strcmp(part[0], "games") != 0)
        return http_error(c, 404, "not_found", "no such API address (see docs/http-api.md)");
    if (parts == 1) {
        if (strcmp(method, "POST") == 0) {
            if (rq->too_big) {
                char msg[96];
                snprintf(msg, sizeof msg, "the body may have at most %d bytes", SRV_MAX_BODY);
                return http_error(c, 413, "too_large", msg);
            }
            char *reply = NULL;
            /* a creator with a session: their seat is their account's */
            int64_t creator = srv_accounts_of_cookie(h->accounts, http_header(c, "Cookie"), NULL);
            int status = srv_room_create_as(h->rooms, rq->body ? rq->body : "", rq->len,
                                            creator > 0 ? creator : 0, &reply);
            return http_send(c, (unsigned)status, "application/json", reply);
        }
        if (!get)
            return http_method_not_allowed(c, "GET, POST");
        return http_list_games(h, c);
    }
    if (parts == 3 && strcmp(part[2], "review") == 0)
        return http_review(h, c, part[1], get, method);
    /* social.c: "Play again" */
    if (parts == 3 && strcmp(part[2], "rematch") == 0) {
        if (strcmp(method, "POST") != 0)
            return http_method_not_allowed(c, "POST");
        if (rq->too_big)
            return http_error(c, 413, "too_large", "the body is too large");
        if (!srv_valid_id(part[1]))
            return http_error(c, 404, "unknown_game", "there is no such game");
        char *reply = NULL;
        int64_t account = srv_accounts_of_cookie(h->accounts, http_header(c, "Cookie"), NULL);
        int status = srv_room_rematch(h->rooms, part[1], rq->body ? rq->body : "", rq->len,
                                      account > 0 ? account : 0, &reply);
        return http_send(c, (unsigned)status, "application/json", reply);
    }
    /* lobby.c: take a free seat; delete a game not started */
    bool seats = parts == 3 && strcmp(part[2], "seats") == 0;
    if ((seats && strcmp(method, "POST") == 0) || (parts == 2 && strcmp(method, "DELETE") == 0)) {
        if (rq->too_big) {
            char msg[96];
            snprintf(msg, sizeof msg, "the body may have at most %d bytes", SRV_MAX_BODY);
            return http_error(c, 413, "too_large", msg);
        }
        if (!srv_valid_id(part[1]))
            return http_error(c, 404, "unknown_game", "there is no such game");
        char *reply = NULL;
        int status = seats ? srv_room_take_seat(h->rooms, part[1], rq->body ? rq->body : "", rq->len,
                                                &reply)
                           : srv_room_delete(h->rooms, part[1], rq->body ? rq->body : "", rq->len,
                                             &reply);
        if (seats && status < 300 && reply)
            reply = http_seat_for_account(h, c, reply);
        return http_send(c, (unsigned)status, "application/json", reply);
    }
    if (seats)
        return http_method_not_allowed(c, "POST");
    if (!get)
        return http_method_not_allowed(c, parts == 2 ? "GET, DELETE" : "GET");
    if (!srv_valid_id(part[1]))
        return http_error(c, 404, "unknown_game", "there is no such game");
    bool temporary;
    srv_room *r = srv_room_borrow(h->rooms, part[1], &temporary);
    if (!r)
        return http_error(c, 404, "unknown_game", "there is no such game");
    int status = 200;
    char *out = NULL;
    if (parts == 2) {
        out = srv_room_spectator_json(r);
    } else if (parts == 3 && strcmp(part[2], "record") == 0) {
        out = srv_room_record_json(r, &status);
    } else if (parts == 3 && strcmp(part[2], "scores") == 0) {
        out = srv_room_scores_json(r, &status);
    } else if (parts == 4 && strcmp(part[2], "replay") == 0) {
        char *end;
        long step = strtol(part[3], &end, 10);
        if (*end || end == part[3]) {
            status = 404;
            out = strdup("{\"error\":{\"code\":\"bad_step\",\"message\":\"a replay step is a whole number\"}}");
        } else {
            out = srv_room_replay_json(
                r, step, MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token"), &status);
        }
    }
    if (temporary)
        srv_room_free(r);
    if (!out)
        return http_error(c, 404, "not_found", "no such API address (see docs/http-api.md)");
    return http_send(c, (unsigned)status, "application/json", out);
}

/* ---- static files ---- */

static const char *http_type(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"}, {".png", "image/png"}, {".ico", "image/x-icon"},
        {".json", "application/json"}, {".txt", "text/plain; charset=utf-8"},
        {".woff2", "font/woff2"},
    };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return NULL;
}

static bool http_safe_path(const char *path)
{
    if (path[0] != '/' || strlen(path) > 200)
        return false;
    for (const char *p = path; *p; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '-' || ch == '_' || ch == '.' || ch == '/';
        if (!ok)
            return false;
        if (ch == '/' && (p[1] == '.' || p[1] == '/'))
            return false; /* no "..", no hidden files, no empty segments */
    }
    return true;
}

/* /i18n/LINGUAS and /i18n/LANG.po: the language catalogues (docs/translating.md),
 * a name of letters, '_' and '@' only. */
static bool http_catalogue_name(const char *name)
{
    if (strcmp(name, "LINGUAS") == 0)
        return true;
    size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_@");
    return n > 0 && n <= 20 && strcmp(name + n, ".po") == 0;
}

static enum MHD_Result http_static(srv_http *h, struct MHD_Connection *c, const char *url)
{
    const char *path = strcmp(url, "/") == 0 ? "/index.html" : url;
    const char *type = http_safe_path(path) ? http_type(path) : NULL;
    const char *dir = h->web_dir;
    if (strncmp(path, "/i18n/", 6) == 0) {
        bool ok = http_catalogue_name(path + 6) && h->cfg.po_dir;
        type = ok ? "text/plain; charset=utf-8" : NULL;
        dir = h->cfg.po_dir;
        path += 5; /* "/LANG.po" */
    }
    char full[1400];
    int fd = -1;
    struct stat st;
    if (type) {
        snprintf(full, sizeof full, "%s%s", dir, path);
        fd = open(full, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            close(fd);
            fd = -1;
        }
    }
    unsigned status = MHD_HTTP_OK;
    if (fd < 0) {
        /* The UI's own page for it (web/404.html: in the player's language,
         * by its script), else a line of English. */
        snprintf(full, sizeof full, "%s/404.html", h->web_dir);
        fd = open(full, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            close(fd);
            fd = -1;
        }
        if (fd < 0) {
            char *body = strdup("<!doctype html><title>Not found</title><p>Not found. "
                                "<a href=\"/\">Back to the lobby</a>.</p>\n");
            return http_send(c, 404, "text/html; charset=utf-8", body);
        }
        status = MHD_HTTP_NOT_FOUND;
        type = "text/html; charset=utf-8";
    }
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
    if (!r) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer"); /* links carry tokens */
    if (strstr(type, "text/html"))
        MHD_add_response_header(r, "Content-Security-Policy",
                                "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                                "img-src 'self' data:; connect-src 'self' ws: wss:; "
                                "frame-ancestors 'none'");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* GET /email/confirm?token=… (the link of a confirmation e-mail), GET
 * /email/unsubscribe?token=… (the link of a turn e-mail: a page whose button
 * posts it) and POST /email/unsubscribe?token=… (that button, and the
 * one-click List-Unsubscribe-Post): a small page in players' words. */
static enum MHD_Result http_email(srv_http *h, struct MHD_Connection *c, const char *url,
                                  const char *method)
{
    bool confirm = strcmp(url, "/email/confirm") == 0;
    /* not HEAD: a link checker's look must not confirm or unsubscribe */
    bool get = strcmp(method, "GET") == 0;
    if (!get && (confirm || strcmp(method, "POST") != 0))
        return http_method_not_allowed(c, confirm ? "GET" : "GET, POST");
    const char *token = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    const char *lang = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "lang");
    char *page = NULL;
    int status = confirm ? srv_mail_confirm_page(h->mailer, token, lang, &page)
                 : get   ? srv_mail_unsubscribe_ask(h->mailer, token, lang, &page)
                         : srv_mail_unsubscribe_page(h->mailer, token, lang, &page);
    if (!page)
        return http_error(c, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(page), page, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(page);
        return MHD_NO;
    }
    /* as the UI's pages: the address holds a token, the page runs nothing */
    MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; style-src 'self' 'unsafe-inline'; "
                            "frame-ancestors 'none'");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- the daemon ---- */

static enum MHD_Result http_access(void *cls, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *version,
                                   const char *upload_data, size_t *upload_data_size,
                                   void **req_cls)
{
    (void)version;
    srv_http *h = cls;
    http_req *rq = *req_cls;
    if (!rq) {
        rq = calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        *req_cls = rq;
        if (http_has_control(url))
            return http_error(c, 400, "bad_request",
                              "the address contains a control character (such as %00)");
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > SRV_MAX_BODY) {
            /* Refused before the body is read: the client need not send it. */
            rq->too_big = true;
            char msg[96];
            snprintf(msg, sizeof msg, "the body may have at most %d bytes", SRV_MAX_BODY);
            return http_error(c, 413, "too_large", msg);
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!rq->too_big && rq->len + *upload_data_size > SRV_MAX_BODY) {
            rq->too_big = true;
            free(rq->body);
            rq->body = NULL;
            rq->len = 0;
        }
        if (!rq->too_big) {
            char *b = realloc(rq->body, rq->len + *upload_data_size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + rq->len, upload_data, *upload_data_size);
            rq->len += *upload_data_size;
            b[rq->len] = '\0';
            rq->body = b;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (rq->answered) /* back from a hashing thread (http_slow) */
        return http_send_answer(c, &rq->answer);
    http_watch_set(h, c, HTTP_ANSWERING);
    if (http_foreign(h, c, url, method))
        return http_error(c, 403, "foreign_origin",
                          "this request comes from another site's page; it was refused");
    if (strcmp(url, "/ws") == 0) {
        if (strcmp(method, "GET") != 0)
            return http_method_not_allowed(c, "GET");
        int64_t account = srv_accounts_of_cookie(h->accounts, http_header(c, "Cookie"), NULL);
        enum MHD_Result ret = (enum MHD_Result)srv_ws_upgrade_as(h->ws, c, &rq->ws,
                                                                  account > 0 ? account : 0);
        if (rq->ws.upgraded)
            http_watch_set(h, c, HTTP_UPGRADED);
        return ret;
    }
    if (strncmp(url, "/api/", 5) == 0)
        return http_api(h, c, url, method, rq);
    if (strcmp(url, "/email/confirm") == 0 || strcmp(url, "/email/unsubscribe") == 0)
        return http_email(h, c, url, method);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return http_method_not_allowed(c, "GET, HEAD");
    return http_static(h, c, url);
}

static void http_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                           enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    http_watch_set(cls, c, HTTP_IDLE); /* until the next request is read */
    http_req *rq = *req_cls;
    if (rq) {
        free(rq->body);
        free(rq->answer.reply);
        sodium_memzero(rq->answer.cookie, sizeof rq->answer.cookie);
        free(rq);
        *req_cls = NULL;
    }
}

srv_http *srv_http_start(const srv_config *cfg, const char *web_dir, srv_rooms *rooms,
                         srv_ws *ws, srv_reviews *reviews, srv_accounts *accounts,
                         srv_mailer *mailer, char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char port[16];
    snprintf(port, sizeof port, "%d", cfg->port);
    int gai = getaddrinfo(cfg->host, port, &hints, &ai);
    if (gai != 0) {
        snprintf(err, errlen, "cannot use host '%s': %s", cfg->host, gai_strerror(gai));
        return NULL;
    }
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_UPGRADE | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (!cfg->quiet)
        flags |= MHD_USE_ERROR_LOG;
    srv_http *h = calloc(1, sizeof *h);
    if (!h) {
        freeaddrinfo(ai);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->cfg = *cfg;
    snprintf(h->web_dir, sizeof h->web_dir, "%s", web_dir);
    h->rooms = rooms;
    h->ws = ws;
    h->reviews = reviews;
    h->accounts = accounts;
    h->mailer = mailer;
    int request_s = cfg->request_seconds > 0 ? cfg->request_seconds : SRV_REQUEST_SECONDS;
    int idle_s = cfg->idle_seconds > 0 ? cfg->idle_seconds : SRV_IDLE_SECONDS;
    unsigned per_address = cfg->per_address > 0    ? (unsigned)cfg->per_address
                           : cfg->per_address == 0 ? SRV_PER_ADDRESS
                                                     : 0u; /* 0: no limit */
    h->request_us = (uint64_t)request_s * 1000000u;
    h->idle_us = (uint64_t)idle_s * 1000000u;
    pthread_mutex_init(&h->watch_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&h->slow_lock, NULL);
    pthread_cond_init(&h->slow_wake, NULL);
    h->daemon = MHD_start_daemon(flags, (uint16_t)cfg->port, NULL, NULL, http_access, h,
                                 MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)SRV_MAX_CONNECTIONS,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)idle_s,
                                 MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
                                 MHD_OPTION_NOTIFY_COMPLETED, http_completed, h,
                                 MHD_OPTION_NOTIFY_CONNECTION, http_notify_connection, h,
                                 MHD_OPTION_UNESCAPE_CALLBACK, http_unescape, NULL,
                                 MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!h->daemon) {
        snprintf(err, errlen, "cannot listen on %s port %d (in use, or not an address here?)",
                 cfg->host, cfg->port);
        pthread_cond_destroy(&h->wake);
        pthread_mutex_destroy(&h->watch_lock);
        pthread_cond_destroy(&h->slow_wake);
        pthread_mutex_destroy(&h->slow_lock);
        free(h);
        return NULL;
    }
    for (int i = 0; i < HTTP_HASHERS; i++)
        if (pthread_create(&h->hasher[h->hashers], NULL, http_hasher, h) == 0)
            h->hashers++; /* none at all: account requests are answered in the daemon's thread */
    h->watchdog_started = pthread_create(&h->watchdog, NULL, http_watchdog, h) == 0;
    if (!h->watchdog_started)
        srv_log(&h->cfg, "cannot start the slow-client watchdog: idle timeouts only");
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : cfg->port;
    return h;
}

int srv_http_port(const srv_http *h)
{
    return h->port;
}

void srv_http_quiesce(srv_http *h)
{
    if (!h || !h->daemon)
        return;
    MHD_socket fd = MHD_quiesce_daemon(h->daemon);
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
}

void srv_http_stop(srv_http *h)
{
    if (!h)
        return;
    if (h->watchdog_started) {
        pthread_mutex_lock(&h->watch_lock);
        h->stopping = true;
        pthread_cond_signal(&h->wake);
        pthread_mutex_unlock(&h->watch_lock);
        pthread_join(h->watchdog, NULL);
    }
    /* the hashing threads answer what they hold (resuming its connection)
     * before the daemon goes */
    pthread_mutex_lock(&h->slow_lock);
    h->slow_stopping = true;
    pthread_cond_broadcast(&h->slow_wake);
    pthread_mutex_unlock(&h->slow_lock);
    for (int i = 0; i < h->hashers; i++)
        pthread_join(h->hasher[i], NULL);
    if (h->daemon)
        MHD_stop_daemon(h->daemon); /* every connection's CLOSED empties the list */
    pthread_cond_destroy(&h->slow_wake);
    pthread_mutex_destroy(&h->slow_lock);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->watch_lock);
    free(h);
}
