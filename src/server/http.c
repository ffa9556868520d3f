/*
 * http.c — the HTTP side (libmicrohttpd): the JSON API of docs/http-api.md,
 * the WebSocket upgrade at /ws, and the static UI from the web directory.
 *
 * Invariants: every API answer is JSON, errors as {"error":{"code","message"}}
 * with a 4xx/5xx status; a request body over SRV_MAX_BODY bytes is refused
 * with 413 without being kept; static paths are checked character by
 * character (no "..", no hidden files) and resolved only inside the web
 * directory; no answer ever contains a seat token except the reply to the
 * POST that created it.
 */
#include "serverInt.h"

#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct srv_http {
    srv_server *server;
    struct MHD_Daemon *daemon;
    int port;
};

typedef struct http_req {
    srv_ws_pending ws; /* first: the upgrade handler reads it through con_cls */
    char *body;
    size_t len;
    bool too_big;
} http_req;

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

static enum MHD_Result http_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!text)
        abort();
    return http_send(c, status, "application/json", text);
}

static enum MHD_Result http_error(struct MHD_Connection *c, unsigned status, const char *code,
                                  const char *message)
{
    return http_json(c, status,
                     json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", message));
}

static enum MHD_Result http_method_not_allowed(struct MHD_Connection *c, const char *allow)
{
    json_t *j = json_pack("{s:{s:s,s:s}}", "error", "code", "method_not_allowed", "message",
                          "this address does not take that method");
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Allow", allow);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- the API ---- */

static json_t *http_catalog(void)
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
            json_array_append_new(opts, json_pack("{s:s,s:o,s:s,s:s}", "key", o->key, "values",
                                                  values, "default",
                                                  o->fallback ? o->fallback : "", "help",
                                                  o->help ? o->help : ""));
        }
        const char *notice = tb_game_notice(g);
        json_array_append_new(
            games, json_pack("{s:s,s:s,s:i,s:i,s:i,s:o,s:o}", "name", tb_game_name(g), "title",
                             tb_game_title(g), "min_players", tb_game_min_players(g),
                             "max_players", tb_game_max_players(g), "default_players",
                             tb_game_default_players(g), "notice",
                             notice ? json_string(notice) : json_null(), "options", opts));
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

static enum MHD_Result http_list_games(srv_server *s, struct MHD_Connection *c)
{
    const char *status = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "status");
    const char *lim = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    const char *filter = "running";
    if (status && strcmp(status, "over") == 0)
        filter = "over";
    else if (status && strcmp(status, "all") == 0)
        filter = NULL;
    else if (status && strcmp(status, "running") != 0 && strcmp(status, "open") != 0)
        return http_error(c, 400, "bad_request", "status must be open, running, over or all");
    long limit = 100;
    if (lim) {
        char *end;
        limit = strtol(lim, &end, 10);
        if (*end || limit < 1 || limit > 500)
            return http_error(c, 400, "bad_request", "limit must be 1 to 500");
    }
    srv_game_row *rows;
    int n;
    char err[TB_ERR_LEN];
    if (s->store->m->games_list(s->store, filter, (int)limit, &rows, &n, err, sizeof err))
        return http_error(c, 500, "store_failed", err);
    json_t *games = json_array();
    for (int i = 0; i < n; i++) {
        srv_room *r = srv_room_peek(s, rows[i].id);
        json_t *g = r ? srv_room_summary(r) : srv_row_summary(&rows[i]);
        const char *st = json_string_value(json_object_get(g, "status"));
        if (status && strcmp(status, "open") == 0 && (!st || strcmp(st, "open") != 0)) {
            json_decref(g);
            continue;
        }
        json_array_append_new(games, g);
    }
    for (int i = 0; i < n; i++)
        srv_game_row_clear(&rows[i]);
    free(rows);
    return http_json(c, 200, json_pack("{s:o}", "games", games));
}

static enum MHD_Result http_api(srv_server *s, struct MHD_Connection *c, const char *url,
                                const char *method, http_req *rq)
{
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
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
    if (parts == 1 && strcmp(part[0], "catalog") == 0) {
        if (!get)
            return http_method_not_allowed(c, "GET");
        return http_json(c, 200, http_catalog());
    }
    if (parts == 1 && strcmp(part[0], "health") == 0) {
        if (!get)
            return http_method_not_allowed(c, "GET");
        pthread_mutex_lock(&s->registry_lock);
        int rooms = s->nrooms;
        pthread_mutex_unlock(&s->registry_lock);
        return http_json(c, 200, json_pack("{s:b,s:s,s:i}", "ok", true, "version", TB_VERSION,
                                           "games_in_memory", rooms));
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
            int status = srv_room_create(s, rq->body ? rq->body : "", rq->len, &reply);
            return http_send(c, (unsigned)status, "application/json", reply);
        }
        if (!get)
            return http_method_not_allowed(c, "GET, POST");
        return http_list_games(s, c);
    }
    if (!get)
        return http_method_not_allowed(c, "GET");
    if (!srv_valid_id(part[1]))
        return http_error(c, 404, "unknown_game", "there is no such game");
    bool temporary;
    srv_room *r = srv_room_borrow(s, part[1], &temporary);
    if (!r)
        return http_error(c, 404, "unknown_game", "there is no such game");
    int status = 200;
    char *out = NULL;
    if (parts == 2) {
        out = srv_room_spectator_json(r);
    } else if (parts == 3 && strcmp(part[2], "record") == 0) {
        out = srv_room_record_json(r, &status);
    } else if (parts == 4 && strcmp(part[2], "replay") == 0) {
        char *end;
        long step = strtol(part[3], &end, 10);
        if (*end || end == part[3]) {
            status = 404;
            out = strdup("{\"error\":{\"code\":\"bad_step\",\"message\":\"a replay step is a whole number\"}}");
        } else {
            out = srv_room_replay_json(r, step, &status);
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

static enum MHD_Result http_static(srv_server *s, struct MHD_Connection *c, const char *url)
{
    const char *path = strcmp(url, "/") == 0 ? "/index.html" : url;
    const char *type = http_safe_path(path) ? http_type(path) : NULL;
    char full[1400];
    int fd = -1;
    struct stat st;
    if (type) {
        snprintf(full, sizeof full, "%s%s", s->web_dir, path);
        fd = open(full, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        char *body = strdup("<!doctype html><title>Not found</title><p>Not found. "
                            "<a href=\"/\">Back to the lobby</a>.</p>\n");
        return http_send(c, 404, "text/html; charset=utf-8", body);
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
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
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
    srv_server *s = cls;
    http_req *rq = *req_cls;
    if (!rq) {
        rq = calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        *req_cls = rq;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > SRV_MAX_BODY)
            rq->too_big = true;
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
    if (strncmp(url, "/api/", 5) == 0)
        return http_api(s, c, url, method, rq);
    if (strcmp(url, "/ws") == 0) {
        if (strcmp(method, "GET") != 0)
            return http_method_not_allowed(c, "GET");
        return (enum MHD_Result)srv_ws_upgrade(s, c, &rq->ws);
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return http_method_not_allowed(c, "GET, HEAD");
    return http_static(s, c, url);
}

static void http_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                           enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    http_req *rq = *req_cls;
    if (rq) {
        free(rq->body);
        free(rq);
        *req_cls = NULL;
    }
}

srv_http *srv_http_start(srv_server *s, char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char port[16];
    snprintf(port, sizeof port, "%d", s->cfg.port);
    int gai = getaddrinfo(s->cfg.host, port, &hints, &ai);
    if (gai != 0) {
        snprintf(err, errlen, "cannot use host '%s': %s", s->cfg.host, gai_strerror(gai));
        return NULL;
    }
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_UPGRADE | MHD_USE_ITC;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (!s->cfg.quiet)
        flags |= MHD_USE_ERROR_LOG;
    srv_http *h = calloc(1, sizeof *h);
    if (!h)
        abort();
    h->server = s;
    h->daemon = MHD_start_daemon(flags, (uint16_t)s->cfg.port, NULL, NULL, http_access, s,
                                 MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)SRV_MAX_CONNECTIONS,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                                 MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
                                 MHD_OPTION_NOTIFY_COMPLETED, http_completed, NULL,
                                 MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!h->daemon) {
        snprintf(err, errlen, "cannot listen on %s port %d (in use, or not an address here?)",
                 s->cfg.host, s->cfg.port);
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : s->cfg.port;
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
    if (h->daemon)
        MHD_stop_daemon(h->daemon);
    free(h);
}
