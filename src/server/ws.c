/*
 * ws.c — WebSocket connections: the upgrade handshake, one thread that reads
 * and writes every upgraded socket (epoll + wslay framing), per-connection
 * outboxes any thread may fill, message size and rate limits.
 *
 * Invariants:
 *   - only the WebSocket thread touches a connection's wslay context and
 *     socket after the upgrade; other threads only append to its outbox
 *     (under the connection's lock) and wake the thread;
 *   - every complete text message is parsed and answered; a message that is
 *     too large, not JSON, sent too fast, or sent before the connection was
 *     accepted into a game gets an error message and changes nothing; the
 *     connection stays open (only broken framing, invalid UTF-8, a frame
 *     over SRV_MAX_FRAME or a reader that stops reading ends it);
 *   - wslay buffers nothing itself (no_buffering): this file assembles
 *     messages up to SRV_MAX_MESSAGE bytes and discards the rest of larger
 *     ones, so a peer cannot make the server hold big messages;
 *   - a closed connection is out of epoll before its socket is handed back
 *     to libmicrohttpd to close.
 */
#include "transport.h"
#include "core/text.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wslay/wslay.h>

typedef struct ws_out {
    char *text;
    size_t len;
    struct ws_out *next;
} ws_out;

typedef struct srv_conn srv_conn;

/* One WebSocket connection; to the rooms, a client (embedded first). */
struct srv_conn {
    srv_client client; /* ops and seat (-1: spectator) */
    atomic_int refs;
    srv_ws *ws;
    int fd;
    struct MHD_UpgradeResponseHandle *urh;
    wslay_event_context_ptr ctx;
    srv_room *room; /* NULL: refused (code/message say why) */
    char code[24], message[200];
    /* WebSocket thread only */
    char *extra;
    size_t extra_len, extra_off;
    char *in;
    size_t in_len;
    bool in_ctrl, in_big;
    double tokens;
    uint64_t refill_us, warned_us;
    bool registered, closed;
    uint32_t events;
    srv_conn *live_prev, *live_next;
    srv_conn *new_next;
    /* under lock */
    pthread_mutex_t lock;
    ws_out *out_head, *out_tail;
    ws_out *spare; /* a node kept for a message sent when malloc fails (NULL: in use) */
    bool dirty, dead;
    srv_conn *dirty_next;
};

struct srv_ws {
    srv_config cfg;
    srv_rooms *rooms;
    int epfd, evfd;
    pthread_t thread;
    bool started;
    pthread_mutex_t lock; /* incoming, dirty, stopping */
    srv_conn *incoming, *dirty;
    bool stopping;
    srv_conn *live; /* WebSocket thread only */
};

/* ---- references and outboxes (any thread) ---- */

static void ws_conn_ref(srv_conn *c)
{
    atomic_fetch_add(&c->refs, 1);
}

static void ws_conn_unref(srv_conn *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    for (ws_out *o = c->out_head, *next; o; o = next) {
        next = o->next;
        free(o->text);
        free(o);
    }
    free(c->spare);
    free(c->in);
    free(c->extra);
    pthread_mutex_destroy(&c->lock);
    free(c);
}


static void ws_wake(srv_ws *ws)
{
    uint64_t one = 1;
    ssize_t w = write(ws->evfd, &one, sizeof one);
    (void)w; /* a full counter already means "wake up" */
}

static void ws_conn_send(srv_conn *c, char *text)
{
    if (!text) /* a message that could not be built: the client hears so */
        text = srv_internal_error("a WebSocket message");
    if (!text) /* not even that: this one message is lost, the server goes on */
        return;
    ws_out *o = malloc(sizeof *o);
    pthread_mutex_lock(&c->lock);
    if (!o) { /* the connection's spare node carries it */
        o = c->spare;
        c->spare = NULL;
    } else if (!c->spare) { /* the spare comes back with the next node made */
        c->spare = o;
        o = malloc(sizeof *o);
        if (!o) {
            o = c->spare;
            c->spare = NULL;
        }
    }
    if (!o) { /* two messages without memory at once: this one is lost */
        pthread_mutex_unlock(&c->lock);
        free(text);
        return;
    }
    o->text = text;
    o->len = strlen(text);
    o->next = NULL;
    if (c->dead) {
        pthread_mutex_unlock(&c->lock);
        free(text);
        free(o);
        return;
    }
    if (c->out_tail)
        c->out_tail->next = o;
    else
        c->out_head = o;
    c->out_tail = o;
    bool wake = false;
    if (!c->dirty) {
        c->dirty = true;
        ws_conn_ref(c);
        pthread_mutex_lock(&c->ws->lock);
        /* One wake per batch: the thread takes the whole list when it wakes,
         * and needs none when it is the sender (it drains the list itself). */
        wake = !c->ws->dirty && !pthread_equal(pthread_self(), c->ws->thread);
        c->dirty_next = c->ws->dirty;
        c->ws->dirty = c;
        pthread_mutex_unlock(&c->ws->lock);
    }
    pthread_mutex_unlock(&c->lock);
    if (wake)
        ws_wake(c->ws);
}

static void ws_conn_send_json(srv_conn *c, json_t *msg)
{
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    ws_conn_send(c, text);
}

static void ws_conn_error(srv_conn *c, const json_t *id, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void ws_conn_error(srv_conn *c, const json_t *id, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ws_conn_send(c, srv_error_message(id, code, fmt, ap));
    va_end(ap);
}

/* The connection as the rooms see it (rooms.h). */
static void ws_client_send(srv_client *client, char *text)
{
    ws_conn_send((srv_conn *)client, text);
}

static void ws_client_ref(srv_client *client)
{
    ws_conn_ref((srv_conn *)client);
}

static void ws_client_unref(srv_client *client)
{
    ws_conn_unref((srv_conn *)client);
}

static const srv_client_ops ws_client_ops = {ws_client_send, ws_client_ref, ws_client_unref};

/* ---- wslay callbacks (WebSocket thread) ---- */

static ssize_t ws_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags,
                          void *user)
{
    (void)flags;
    srv_conn *c = user;
    if (c->extra_off < c->extra_len) {
        size_t n = c->extra_len - c->extra_off;
        if (n > len)
            n = len;
        memcpy(buf, c->extra + c->extra_off, n);
        c->extra_off += n;
        return (ssize_t)n;
    }
    ssize_t r;
    do
        r = recv(c->fd, buf, len, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        wslay_event_set_error(ctx, errno == EAGAIN || errno == EWOULDBLOCK
                                       ? WSLAY_ERR_WOULDBLOCK
                                       : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    if (r == 0) { /* the peer went away */
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return r;
}

static ssize_t ws_send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len,
                          int flags, void *user)
{
    srv_conn *c = user;
    ssize_t r;
    do
        r = send(c->fd, data, len, MSG_NOSIGNAL | ((flags & WSLAY_MSG_MORE) ? MSG_MORE : 0));
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        wslay_event_set_error(ctx, errno == EAGAIN || errno == EWOULDBLOCK
                                       ? WSLAY_ERR_WOULDBLOCK
                                       : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return r;
}

static void ws_frame_start_cb(wslay_event_context_ptr ctx,
                              const struct wslay_event_on_frame_recv_start_arg *arg, void *user)
{
    (void)ctx;
    srv_conn *c = user;
    c->in_ctrl = (arg->opcode & 0x8) != 0;
    if (!c->in_ctrl && arg->opcode != WSLAY_CONTINUATION_FRAME) {
        c->in_len = 0; /* a new message */
        c->in_big = false;
    }
}

static void ws_frame_chunk_cb(wslay_event_context_ptr ctx,
                              const struct wslay_event_on_frame_recv_chunk_arg *arg, void *user)
{
    (void)ctx;
    srv_conn *c = user;
    if (c->in_ctrl || c->in_big)
        return;
    if (c->in_len + arg->data_length > SRV_MAX_MESSAGE) {
        c->in_big = true;
        return;
    }
    memcpy(c->in + c->in_len, arg->data, arg->data_length);
    c->in_len += arg->data_length;
}

static void ws_handle(srv_conn *c, int opcode)
{
    tb__json_fresh();
    uint64_t now = srv_now_us();
    c->tokens += (double)(now - c->refill_us) * (SRV_RATE_PER_SEC / 1e6);
    if (c->tokens > SRV_RATE_BURST)
        c->tokens = SRV_RATE_BURST;
    c->refill_us = now;
    if (c->tokens < 1.0) {
        if (now - c->warned_us >= 1000000u) {
            c->warned_us = now;
            ws_conn_error(c, NULL, "rate_limited",
                           "too many messages: at most %.0f per second (bursts of %.0f); "
                           "messages over the limit are ignored",
                           SRV_RATE_PER_SEC, SRV_RATE_BURST);
        }
        return;
    }
    c->tokens -= 1.0;
    if (opcode != WSLAY_TEXT_FRAME) {
        ws_conn_error(c, NULL, "bad_frame", "send JSON messages in text frames");
        return;
    }
    if (c->in_big) {
        ws_conn_error(c, NULL, "too_large", "a message may have at most %d bytes; it was ignored",
                       SRV_MAX_MESSAGE);
        return;
    }
    json_error_t jerr;
    json_t *msg = tb__json_loadb(c->in, c->in_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!msg && tb__json_no_memory(&jerr)) {
        ws_conn_error(c, NULL, "internal", SRV_INTERNAL_MESSAGE);
        return;
    }
    if (!msg) {
        ws_conn_error(c, NULL, "bad_json", "that message is not JSON: %s (column %d)",
                       tb__json_error_words(&jerr), jerr.column);
        return;
    }
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (!json_is_object(msg)) {
        ws_conn_error(c, NULL, "bad_message",
                       "a message is a JSON object with a \"type\" (decide, undo, take_back, hint, deduce, resign, sync or ping)");
    } else if (type && strcmp(type, "ping") == 0) {
        json_t *pong = json_pack("{s:s}", "type", "pong");
        json_t *id = json_object_get(msg, "id");
        if (json_is_integer(id) || (json_is_string(id) && json_string_length(id) <= 64))
            json_object_set(pong, "id", id);
        ws_conn_send_json(c, pong);
    } else if (!c->room) {
        json_t *id = json_object_get(msg, "id");
        if (!json_is_integer(id) && !(json_is_string(id) && json_string_length(id) <= 64))
            id = NULL;
        ws_conn_error(c, id, c->code, "%s", c->message);
    } else {
        srv_room_client_message(c->room, &c->client, msg);
    }
    json_decref(msg);
}

static void ws_msg_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                      void *user)
{
    (void)ctx;
    srv_conn *c = user;
    if (arg->opcode == WSLAY_TEXT_FRAME || arg->opcode == WSLAY_BINARY_FRAME) {
        ws_handle(c, arg->opcode);
        c->in_len = 0;
        c->in_big = false;
    }
}

static const struct wslay_event_callbacks ws_callbacks = {
    .recv_callback = ws_recv_cb,
    .send_callback = ws_send_cb,
    .on_frame_recv_start_callback = ws_frame_start_cb,
    .on_frame_recv_chunk_callback = ws_frame_chunk_cb,
    .on_msg_recv_callback = ws_msg_cb,
};

/* ---- the WebSocket thread ---- */

static void ws_close(srv_ws *ws, srv_conn *c)
{
    if (c->closed)
        return;
    c->closed = true;
    if (c->registered) {
        epoll_ctl(ws->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        if (c->live_prev)
            c->live_prev->live_next = c->live_next;
        else
            ws->live = c->live_next;
        if (c->live_next)
            c->live_next->live_prev = c->live_prev;
    }
    if (c->room)
        srv_room_detach(c->room, &c->client);
    pthread_mutex_lock(&c->lock);
    c->dead = true;
    for (ws_out *o = c->out_head, *next; o; o = next) {
        next = o->next;
        free(o->text);
        free(o);
    }
    c->out_head = c->out_tail = NULL;
    pthread_mutex_unlock(&c->lock);
    wslay_event_context_free(c->ctx);
    c->ctx = NULL;
    MHD_upgrade_action(c->urh, MHD_UPGRADE_ACTION_CLOSE);
    ws_conn_unref(c); /* the WebSocket thread's reference */
}

/* After reading or writing: close, or watch for what wslay wants next. */
static void ws_settle(srv_ws *ws, srv_conn *c)
{
    if (wslay_event_get_queued_msg_length(c->ctx) > SRV_MAX_BACKLOG) {
        srv_log(&ws->cfg, "a WebSocket client stopped reading; closing it");
        ws_close(ws, c);
        return;
    }
    bool r = wslay_event_want_read(c->ctx), w = wslay_event_want_write(c->ctx);
    if (!r && !w) {
        ws_close(ws, c);
        return;
    }
    uint32_t ev = (r ? EPOLLIN | EPOLLRDHUP : 0) | (w ? EPOLLOUT : 0);
    if (ev != c->events) {
        struct epoll_event e = {.events = ev, .data.ptr = c};
        epoll_ctl(ws->epfd, EPOLL_CTL_MOD, c->fd, &e);
        c->events = ev;
    }
}

/* Moves the outbox into wslay and sends what the socket takes. */
static void ws_flush(srv_ws *ws, srv_conn *c, bool from_dirty_list)
{
    pthread_mutex_lock(&c->lock);
    ws_out *list = c->out_head;
    c->out_head = c->out_tail = NULL;
    if (from_dirty_list)
        c->dirty = false;
    pthread_mutex_unlock(&c->lock);
    if (c->closed) {
        for (ws_out *o = list, *next; o; o = next) {
            next = o->next;
            free(o->text);
            free(o);
        }
        return;
    }
    for (ws_out *o = list, *next; o; o = next) {
        next = o->next;
        struct wslay_event_msg m = {WSLAY_TEXT_FRAME, (const uint8_t *)o->text, o->len};
        /* copies; fails once closing, or without memory: then this message and
         * the rest go back to the front of the outbox for the next flush */
        if (wslay_event_queue_msg(c->ctx, &m) == WSLAY_ERR_NOMEM) {
            pthread_mutex_lock(&c->lock);
            ws_out *last = o;
            while (last->next)
                last = last->next;
            last->next = c->out_head;
            c->out_head = o;
            if (!c->out_tail)
                c->out_tail = last;
            bool requeue = !c->dirty;
            if (requeue) {
                c->dirty = true;
                ws_conn_ref(c);
                pthread_mutex_lock(&ws->lock);
                c->dirty_next = ws->dirty;
                ws->dirty = c;
                pthread_mutex_unlock(&ws->lock);
            }
            pthread_mutex_unlock(&c->lock);
            ws_wake(ws);
            break;
        }
        free(o->text);
        free(o);
    }
    if (wslay_event_send(c->ctx) != 0) {
        ws_close(ws, c);
        return;
    }
    ws_settle(ws, c);
}

static void ws_register(srv_ws *ws, srv_conn *c)
{
    struct epoll_event e = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
    if (epoll_ctl(ws->epfd, EPOLL_CTL_ADD, c->fd, &e) != 0) {
        srv_log(&ws->cfg, "epoll: %s", strerror(errno));
        ws_close(ws, c);
        return;
    }
    c->events = e.events;
    c->registered = true;
    c->live_prev = NULL;
    c->live_next = ws->live;
    if (ws->live)
        ws->live->live_prev = c;
    ws->live = c;
    if (c->extra_len) { /* bytes that arrived with the handshake */
        if (wslay_event_recv(c->ctx) != 0) {
            ws_close(ws, c);
            return;
        }
        ws_flush(ws, c, false);
    }
}

static void ws_shutdown_all(srv_ws *ws)
{
    while (ws->live) {
        srv_conn *c = ws->live;
        wslay_event_queue_close(c->ctx, WSLAY_CODE_GOING_AWAY,
                                (const uint8_t *)"server shutting down", 20);
        wslay_event_send(c->ctx); /* best effort */
        ws_close(ws, c);
    }
}

static void *ws_loop(void *arg)
{
    srv_ws *ws = arg;
    struct epoll_event evs[128];
    for (;;) {
        int n = epoll_wait(ws->epfd, evs, 128, -1);
        if (n < 0 && errno != EINTR) {
            srv_log(&ws->cfg, "epoll_wait: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) {
            srv_conn *c = evs[i].data.ptr;
            if (!c) {
                uint64_t v;
                ssize_t r = read(ws->evfd, &v, sizeof v);
                (void)r;
                continue;
            }
            if (c->closed)
                continue;
            ws_conn_ref(c); /* closing below must not free it under us */
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
                if (wslay_event_recv(c->ctx) != 0)
                    ws_close(ws, c);
                else
                    ws_flush(ws, c, false); /* answers go out at once */
            }
            if (!c->closed && (evs[i].events & EPOLLOUT)) {
                if (wslay_event_send(c->ctx) != 0)
                    ws_close(ws, c);
                else
                    ws_settle(ws, c);
            }
            ws_conn_unref(c);
        }
        pthread_mutex_lock(&ws->lock);
        srv_conn *incoming = ws->incoming, *dirty = ws->dirty;
        ws->incoming = ws->dirty = NULL;
        bool stopping = ws->stopping;
        pthread_mutex_unlock(&ws->lock);
        /* Oldest first, so connections register in arrival order. */
        srv_conn *rev = NULL;
        while (incoming) {
            srv_conn *next = incoming->new_next;
            incoming->new_next = rev;
            rev = incoming;
            incoming = next;
        }
        for (srv_conn *c = rev, *next; c; c = next) {
            next = c->new_next;
            ws_register(ws, c);
        }
        for (srv_conn *c = dirty, *next; c; c = next) {
            next = c->dirty_next;
            ws_flush(ws, c, true);
            ws_conn_unref(c);
        }
        if (stopping) {
            ws_shutdown_all(ws);
            break;
        }
    }
    return NULL;
}

srv_ws *srv_ws_start(const srv_config *cfg, srv_rooms *rooms, char *err, size_t errlen)
{
    srv_ws *ws = calloc(1, sizeof *ws);
    if (!ws) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ws->cfg = *cfg;
    ws->rooms = rooms;
    pthread_mutex_init(&ws->lock, NULL);
    ws->epfd = epoll_create1(EPOLL_CLOEXEC);
    ws->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = NULL};
    if (ws->epfd < 0 || ws->evfd < 0 || epoll_ctl(ws->epfd, EPOLL_CTL_ADD, ws->evfd, &e) != 0 ||
        pthread_create(&ws->thread, NULL, ws_loop, ws) != 0) {
        snprintf(err, errlen, "cannot start the WebSocket thread: %s", strerror(errno));
        srv_ws_free(ws);
        return NULL;
    }
    ws->started = true;
    return ws;
}

void srv_ws_stop(srv_ws *ws)
{
    if (!ws)
        return;
    pthread_mutex_lock(&ws->lock);
    ws->stopping = true;
    pthread_mutex_unlock(&ws->lock);
    if (ws->started) {
        ws_wake(ws);
        pthread_join(ws->thread, NULL);
        ws->started = false;
    }
}

void srv_ws_free(srv_ws *ws)
{
    if (!ws)
        return;
    srv_ws_stop(ws);
    /* Sends that raced with the shutdown. */
    for (srv_conn *c = ws->dirty, *next; c; c = next) {
        next = c->dirty_next;
        ws_conn_unref(c);
    }
    if (ws->epfd >= 0)
        close(ws->epfd);
    if (ws->evfd >= 0)
        close(ws->evfd);
    pthread_mutex_destroy(&ws->lock);
    free(ws);
}

/* ---- the upgrade (HTTP thread) ---- */

static void ws_upgraded(void *cls, struct MHD_Connection *connection, void *con_cls,
                        const char *extra_in, size_t extra_in_size, MHD_socket sock,
                        struct MHD_UpgradeResponseHandle *urh)
{
    (void)connection;
    srv_ws *ws = cls;
    srv_ws_pending *p = con_cls;
    srv_conn *c = calloc(1, sizeof *c);
    char *in = c ? malloc(SRV_MAX_MESSAGE) : NULL;
    char *extra = in && extra_in_size ? malloc(extra_in_size) : NULL;
    wslay_event_context_ptr ctx = NULL;
    if (!in || (extra_in_size && !extra) ||
        wslay_event_context_server_init(&ctx, &ws_callbacks, c) != 0) {
        /* out of memory: this one connection is closed, the server goes on */
        free(extra);
        free(in);
        free(c);
        MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
        return;
    }
    atomic_init(&c->refs, 1); /* the WebSocket thread's */
    pthread_mutex_init(&c->lock, NULL);
    c->ws = ws;
    c->fd = sock;
    c->urh = urh;
    c->room = p->room;
    c->client.ops = &ws_client_ops;
    c->client.seat = p->seat;
    snprintf(c->code, sizeof c->code, "%s", p->code);
    snprintf(c->message, sizeof c->message, "%s", p->message);
    c->tokens = SRV_RATE_BURST;
    c->refill_us = srv_now_us();
    c->in = in;
    if (extra_in_size) {
        c->extra = extra;
        memcpy(c->extra, extra_in, extra_in_size);
        c->extra_len = extra_in_size;
    }
    int flags = fcntl(sock, F_GETFL);
    fcntl(sock, F_SETFL, flags | O_NONBLOCK);
    int one = 1;
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->ctx = ctx;
    wslay_event_config_set_no_buffering(c->ctx, 1);
    wslay_event_config_set_max_recv_msg_length(c->ctx, SRV_MAX_FRAME);
    pthread_mutex_lock(&ws->lock);
    bool stopping = ws->stopping;
    if (!stopping) {
        c->new_next = ws->incoming;
        ws->incoming = c;
    }
    pthread_mutex_unlock(&ws->lock);
    if (stopping) {
        c->dead = true;
        wslay_event_context_free(c->ctx);
        MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
        ws_conn_unref(c);
        return;
    }
    if (c->room)
        srv_room_attach(c->room, &c->client);
    else
        ws_conn_error(c, NULL, c->code, "%s", c->message);
    ws_wake(ws);
}

static bool ws_header_has(struct MHD_Connection *c, const char *name, const char *token)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    if (!v)
        return false;
    size_t n = strlen(token);
    for (const char *p = v; *p; p++)
        if (strncasecmp(p, token, n) == 0)
            return true;
    return false;
}

static int ws_refuse(struct MHD_Connection *c, unsigned status, const char *code, const char *msg)
{
    json_t *j = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    if (status == MHD_HTTP_UPGRADE_REQUIRED) {
        MHD_add_response_header(r, "Sec-WebSocket-Version", "13");
        MHD_add_response_header(r, "Upgrade", "websocket");
    }
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

int srv_ws_upgrade(srv_ws *ws, struct MHD_Connection *c, srv_ws_pending *p)
{
    return srv_ws_upgrade_as(ws, c, p, 0);
}

int srv_ws_upgrade_as(srv_ws *ws, struct MHD_Connection *c, srv_ws_pending *p, int64_t account)
{
    if (!ws_header_has(c, "Upgrade", "websocket") || !ws_header_has(c, "Connection", "upgrade"))
        return ws_refuse(c, MHD_HTTP_BAD_REQUEST, "not_websocket",
                         "this is the WebSocket endpoint: connect with a WebSocket client");
    const char *version = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Version");
    if (!version || strcmp(version, "13") != 0)
        return ws_refuse(c, MHD_HTTP_UPGRADE_REQUIRED, "ws_version", "WebSocket version 13 only");
    const char *key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Key");
    char accept[64];
    if (!key || strlen(key) != 24 || srv_secret_ws_accept(key, accept) != 0)
        return ws_refuse(c, MHD_HTTP_BAD_REQUEST, "ws_key", "missing or bad Sec-WebSocket-Key");
    /* Which game and seat: errors here are reported over the socket, so a
     * browser sees them (it cannot read an HTTP error on a WebSocket). */
    const char *game = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "game");
    const char *token = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    memset(p, 0, sizeof *p);
    p->seat = -1;
    char away[200] = "";
    p->room = game ? srv_room_claim(ws->rooms, game, away, sizeof away) : NULL;
    if (!game || !*game) {
        snprintf(p->code, sizeof p->code, "bad_request");
        snprintf(p->message, sizeof p->message, "connect to /ws?game=ID (and &token=T for a seat)");
    } else if (!p->room && away[0]) {
        /* Several instances: another one plays this game. */
        snprintf(p->code, sizeof p->code, "elsewhere");
        snprintf(p->message, sizeof p->message, "%s", away);
    } else if (!p->room) {
        snprintf(p->code, sizeof p->code, "unknown_game");
        snprintf(p->message, sizeof p->message, "there is no game '%.*s'", TB__CLIP(game, 40));
    } else {
        p->seat = srv_room_seat_of_token(p->room, token);
        if (p->seat == -1 && account > 0) /* no token: the session's own seat, if any */
            p->seat = srv_room_seat_of_account(p->room, account);
        if (p->seat == -2) {
            p->room = NULL;
            p->seat = -1;
            snprintf(p->code, sizeof p->code, "bad_token");
            snprintf(p->message, sizeof p->message,
                     "this link's token does not belong to any seat of game %s", game);
        }
    }
    struct MHD_Response *r = MHD_create_response_for_upgrade(ws_upgraded, ws);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Upgrade", "websocket");
    MHD_add_response_header(r, "Sec-WebSocket-Accept", accept);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_SWITCHING_PROTOCOLS, r);
    MHD_destroy_response(r);
    p->upgraded = ret == MHD_YES;
    return ret;
}
