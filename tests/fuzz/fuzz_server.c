/*
 * fuzz_server.c — libFuzzer harness: arbitrary bytes against a live game
 * server in this process (`tabula serve` on 127.0.0.1, a port the kernel
 * picks, an SQLite database in a temporary folder).  The first byte picks
 * where the rest goes:
 *   0  raw bytes as a whole HTTP request (libmicrohttpd's parser, the router,
 *      the static files, the API);
 *   1  the body of POST /api/games (creating games: every field and option);
 *   2  the game id and token of a WebSocket upgrade (/ws?game=…&token=…);
 *   3  one WebSocket text message from a seat of a running game (the
 *      message handler: decide, sync, ping, errors);
 *   4  raw bytes on an upgraded WebSocket (wslay's framing, then the handler).
 * Every answer must be valid UTF-8, every JSON answer must parse, and the
 * server must still answer a health request afterwards: a crash, an abort,
 * a sanitizer report or a broken answer ends the run.
 *
 * Invariants: one server for the whole run (started on the first input);
 * every exchange uses a fresh connection with short timeouts, so a slow
 * answer never stalls the fuzzer; nothing leaves the loopback interface.
 */
#define _GNU_SOURCE /* strcasestr */
#include "server/server.h"
#include "core/text.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct fuzz_buf {
    uint8_t *data;
    size_t len, cap;
} fuzz_buf;

static struct {
    srv_server *server;
    int port;
    char game[64], token[2][128];
    int uses; /* inputs since the game was made; a fresh game now and then */
} fz;

static void fuzz_fail(const char *why, const uint8_t *data, size_t len)
{
    fprintf(stderr, "fuzz_server: %s (%zu bytes of answer)\n", why, len);
    if (data && len)
        fwrite(data, 1, len < 600 ? len : (getenv("FUZZ_FULL") ? len : 600), stderr);
    fputc('\n', stderr);
    abort();
}

static void fuzz_put(fuzz_buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (!d)
            abort();
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

static int fuzz_connect(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)fz.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void fuzz_send(int fd, const void *p, size_t n)
{
    const uint8_t *d = p;
    while (n) {
        ssize_t w = send(fd, d, n, MSG_NOSIGNAL);
        if (w <= 0)
            return; /* the server may close early on bad input: fine */
        d += w;
        n -= (size_t)w;
    }
}

/* Reads until the peer closes, `stop` says enough, or `ms` pass. */
static void fuzz_read(int fd, fuzz_buf *b, int ms, bool (*stop)(const fuzz_buf *))
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long spent = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (spent >= ms)
            return;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)(ms - spent)) <= 0)
            return;
        uint8_t chunk[8192];
        ssize_t r = recv(fd, chunk, sizeof chunk, 0);
        if (r <= 0)
            return;
        fuzz_put(b, chunk, (size_t)r);
        if (stop && stop(b))
            return;
    }
}

/* An HTTP answer: a status line, and a body that is valid UTF-8 (JSON
 * parsing when it says it is JSON).  Static files are not checked. */
static void fuzz_check_http(const fuzz_buf *b)
{
    if (b->len == 0)
        return; /* closed without an answer (e.g. a request it could not parse) */
    if (b->len < 12 || memcmp(b->data, "HTTP/1.", 7) != 0)
        fuzz_fail("an answer that is not HTTP", b->data, b->len);
    const char *head_end = strstr((const char *)b->data, "\r\n\r\n");
    if (!head_end)
        return; /* cut short by our time limit */
    const char *body = head_end + 4;
    bool json = strstr((const char *)b->data, "application/json") &&
                strstr((const char *)b->data, "application/json") < head_end;
    if (!json)
        return;
    size_t n = b->len - (size_t)((const uint8_t *)body - b->data);
    if (n == 0)
        return; /* HEAD, or a 1xx/204 */
    if (!tb__utf8_valid(body))
        fuzz_fail("a JSON answer that is not valid UTF-8", b->data, b->len);
    json_error_t e;
    json_t *j = json_loadb(body, n, 0, &e);
    if (!j)
        fuzz_fail("a JSON answer that does not parse", b->data, b->len);
    json_decref(j);
}

/* A whole HTTP answer is in: its headers and Content-Length bytes of body. */
static bool fuzz_http_done(const fuzz_buf *b)
{
    const char *text = (const char *)b->data;
    const char *end = text ? strstr(text, "\r\n\r\n") : NULL;
    if (!end)
        return false;
    const char *cl = strcasestr(text, "\r\nContent-Length:");
    if (!cl || cl > end)
        return false; /* read until the server closes */
    size_t want = strtoul(cl + 17, NULL, 10);
    return b->len - (size_t)(end + 4 - text) >= want;
}

static void fuzz_http(const uint8_t *req, size_t n)
{
    int fd = fuzz_connect();
    if (fd < 0)
        fuzz_fail("the server does not accept connections", NULL, 0);
    fuzz_send(fd, req, n);
    shutdown(fd, SHUT_WR);
    fuzz_buf b = {0};
    fuzz_read(fd, &b, 300, fuzz_http_done);
    close(fd);
    fuzz_check_http(&b);
    free(b.data);
}

static void fuzz_post(const char *path, const uint8_t *body, size_t n, fuzz_buf *out)
{
    char head[256];
    int hl = snprintf(head, sizeof head,
                      "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      "Connection: close\r\nContent-Length: %zu\r\n\r\n",
                      path, n);
    int fd = fuzz_connect();
    if (fd < 0)
        fuzz_fail("the server does not accept connections", NULL, 0);
    fuzz_send(fd, head, (size_t)hl);
    fuzz_send(fd, body, n);
    fuzz_read(fd, out, 1000, fuzz_http_done);
    close(fd);
    fuzz_check_http(out);
}

/* The server answers GET /api/health with 200. */
static void fuzz_health(void)
{
    const char *req = "GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    int fd = fuzz_connect();
    if (fd < 0)
        fuzz_fail("the server stopped accepting connections", NULL, 0);
    fuzz_send(fd, req, strlen(req));
    fuzz_buf b = {0};
    fuzz_read(fd, &b, 2000, fuzz_http_done);
    close(fd);
    if (b.len < 12 || memcmp(b.data, "HTTP/1.1 200", 12) != 0)
        fuzz_fail("the server no longer answers a health request", b.data, b.len);
    fuzz_check_http(&b);
    free(b.data);
}

/* A new two-person Clans game whose seat tokens the WebSocket modes use. */
static void fuzz_new_game(void)
{
    const char *body = "{\"game\":\"clans\",\"seats\":[{\"kind\":\"human\"},{\"kind\":\"human\"}]}";
    fuzz_buf b = {0};
    fuzz_post("/api/games", (const uint8_t *)body, strlen(body), &b);
    const char *json = b.data ? strstr((const char *)b.data, "\r\n\r\n") : NULL;
    json_t *j = json ? json_loads(json + 4, 0, NULL) : NULL;
    const char *id = json_string_value(json_object_get(j, "id"));
    json_t *seats = json_object_get(j, "seats");
    if (!id || json_array_size(seats) != 2)
        fuzz_fail("cannot create a game", b.data, b.len);
    snprintf(fz.game, sizeof fz.game, "%s", id);
    for (size_t i = 0; i < 2; i++)
        snprintf(fz.token[i], sizeof fz.token[i], "%s",
                 json_string_value(json_object_get(json_array_get(seats, i), "token")));
    json_decref(j);
    free(b.data);
    fz.uses = 0;
}

static char fz_dir[64], fz_db[96]; /* live as long as the server */

/* At exit: the temporary database goes (the server's files, then the folder). */
static void fuzz_cleanup(void)
{
    static const char *const suffix[] = {"", "-wal", "-shm", ".lock"};
    char path[128];
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(path, sizeof path, "%s%s", fz_db, suffix[i]);
        unlink(path);
    }
    rmdir(fz_dir);
}

static void fuzz_start(void)
{
    signal(SIGPIPE, SIG_IGN);
    snprintf(fz_dir, sizeof fz_dir, "/tmp/tabula-fuzz-server-XXXXXX");
    if (!mkdtemp(fz_dir))
        abort();
    snprintf(fz_db, sizeof fz_db, "%s/fuzz.db", fz_dir);
    const char *db = fz_db;
    atexit(fuzz_cleanup);
    srv_config cfg = {
        .host = "127.0.0.1", .port = 0, .db_path = db, .ai_delay_ms = 0, .workers = 1,
        .quiet = true, .per_address = -1, .request_seconds = 2, .idle_seconds = 5,
    };
    char err[512];
    fz.server = srv_start(&cfg, err, sizeof err);
    if (!fz.server) {
        fprintf(stderr, "fuzz_server: cannot start the server: %s\n", err);
        abort();
    }
    fz.port = srv_port(fz.server);
    fuzz_new_game();
}

/* Frames a client message (masked, as RFC 6455 requires). */
static void fuzz_frame(fuzz_buf *out, int opcode, const uint8_t *p, size_t n)
{
    uint8_t h[14];
    size_t hl = 0;
    h[hl++] = (uint8_t)(0x80 | opcode);
    if (n < 126) {
        h[hl++] = (uint8_t)(0x80 | n);
    } else if (n < 65536) {
        h[hl++] = 0x80 | 126;
        h[hl++] = (uint8_t)(n >> 8);
        h[hl++] = (uint8_t)n;
    } else {
        h[hl++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            h[hl++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
    memcpy(h + hl, mask, 4);
    hl += 4;
    fuzz_put(out, h, hl);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i] ^ mask[i & 3];
        fuzz_put(out, &c, 1);
    }
}

/* Checks every server frame in b (after the handshake): text frames are
 * valid UTF-8 JSON.  True when a pong with id 424242 came, or the server
 * closed the WebSocket (as it must on a text frame that is not UTF-8). */
static bool fuzz_check_frames(const fuzz_buf *b, size_t from, bool strict)
{
    size_t at = from;
    bool pong = false;
    while (at + 2 <= b->len) {
        const uint8_t *f = b->data + at;
        int op = f[0] & 0x0f;
        uint64_t n = f[1] & 0x7f;
        size_t off = 2;
        if (n == 126) {
            if (at + 4 > b->len)
                break;
            n = (uint64_t)f[2] << 8 | f[3];
            off = 4;
        } else if (n == 127) {
            if (at + 10 > b->len)
                break;
            n = 0;
            for (int i = 0; i < 8; i++)
                n = n << 8 | f[2 + i];
            off = 10;
        }
        if (at + off + n > b->len)
            break; /* cut short by our time limit */
        if (op == 8)
            pong = true; /* a close frame: the connection ended cleanly */
        if (op == 1) {
            char *text = malloc((size_t)n + 1);
            if (!text)
                abort();
            memcpy(text, f + off, (size_t)n);
            text[n] = 0;
            if (strict && !tb__utf8_valid(text))
                fuzz_fail("a WebSocket message that is not valid UTF-8", f + off, (size_t)n);
            json_t *j = json_loads(text, 0, NULL);
            if (strict && !j)
                fuzz_fail("a WebSocket message that is not JSON", f + off, (size_t)n);
            const char *type = json_string_value(json_object_get(j, "type"));
            if (json_integer_value(json_object_get(j, "id")) == 424242 && type &&
                strcmp(type, "pong") == 0)
                pong = true;
            json_decref(j);
            free(text);
        }
        at += off + (size_t)n;
    }
    return pong;
}

static size_t fuzz_handshake_end(const fuzz_buf *b)
{
    const char *e = b->data ? strstr((const char *)b->data, "\r\n\r\n") : NULL;
    return e ? (size_t)((const uint8_t *)e - b->data) + 4 : 0;
}

static bool fuzz_headers_done(const fuzz_buf *b)
{
    return fuzz_handshake_end(b) > 0;
}

static bool fuzz_ws_done(const fuzz_buf *b)
{
    size_t from = fuzz_handshake_end(b);
    return from && fuzz_check_frames(b, from, false);
}

/* Opens /ws with the query, sends `payload` (already framed, or NULL), then a
 * ping, and reads what comes back. */
static void fuzz_ws(const char *query, const uint8_t *payload, size_t n, bool expect_pong)
{
    int fd = fuzz_connect();
    if (fd < 0)
        fuzz_fail("the server does not accept connections", NULL, 0);
    char req[4096];
    int rl = snprintf(req, sizeof req,
                      "GET /ws%s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                      query);
    if (rl < 0 || (size_t)rl >= sizeof req) {
        close(fd);
        return;
    }
    fuzz_send(fd, req, (size_t)rl);
    fuzz_buf b = {0};
    fuzz_read(fd, &b, 1000, fuzz_headers_done);
    if (fuzz_handshake_end(&b) && memcmp(b.data, "HTTP/1.1 101", 12) != 0) {
        fuzz_read(fd, &b, 200, NULL); /* the refusal's body, until it closes */
        close(fd);
        fuzz_check_http(&b);
        free(b.data);
        return;
    }
    fuzz_buf out = {0};
    if (payload)
        fuzz_put(&out, payload, n);
    const char *ping = "{\"type\":\"ping\",\"id\":424242}";
    fuzz_frame(&out, 1, (const uint8_t *)ping, strlen(ping));
    fuzz_send(fd, out.data, out.len);
    free(out.data);
    fuzz_read(fd, &b, expect_pong ? 1000 : 300, fuzz_ws_done);
    close(fd);
    size_t from = fuzz_handshake_end(&b);
    if (!from || memcmp(b.data, "HTTP/1.1 101", 12) != 0) {
        fuzz_check_http(&b); /* refused before the upgrade: an HTTP answer */
    } else {
        bool pong = fuzz_check_frames(&b, from, true);
        if (expect_pong && !pong)
            fuzz_fail("a connection stopped answering after a message", b.data, b.len);
    }
    free(b.data);
}

static void fuzz_query_escape(char *out, size_t cap, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i++) {
        out[o++] = '%';
        out[o++] = hex[p[i] >> 4];
        out[o++] = hex[p[i] & 15];
    }
    out[o] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fz.server)
        fuzz_start();
    if (size < 1 || size > 8192)
        return 0;
    int mode = data[0] % 5;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    if (++fz.uses > 2000)
        fuzz_new_game(); /* a game played to its end refuses everything: start anew */
    switch (mode) {
    case 0:
        fuzz_http(p, n);
        break;
    case 1: {
        fuzz_buf b = {0};
        fuzz_post("/api/games", p, n, &b);
        free(b.data);
        break;
    }
    case 2: {
        size_t cut = n ? p[0] % (n + 1) : 0; /* the game's bytes, then the token's */
        char game[1024], token[1024], query[2200];
        fuzz_query_escape(game, sizeof game, p + (n ? 1 : 0), cut > 0 ? cut - (n ? 1 : 0) : 0);
        fuzz_query_escape(token, sizeof token, p + cut, n - cut);
        snprintf(query, sizeof query, "?game=%s&token=%s", (n && p[0] & 1) ? fz.game : game, token);
        fuzz_ws(query, NULL, 0, false);
        break;
    }
    case 3:
    case 4: {
        char query[300];
        snprintf(query, sizeof query, "?game=%s&token=%s", fz.game, fz.token[n && (p[0] & 1)]);
        fuzz_buf framed = {0};
        if (mode == 3)
            fuzz_frame(&framed, 1, p, n);
        else
            fuzz_put(&framed, p, n);
        /* a well-framed message leaves the connection open: it must answer the ping */
        fuzz_ws(query, framed.data, framed.len, mode == 3 && n < 16000);
        free(framed.data);
        break;
    }
    }
    fuzz_health(); /* still alive and answering */
    return 0;
}
