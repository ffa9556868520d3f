/*
 * loadtest.c — `tabula loadtest`: a load generator for `tabula serve`
 * (issues 12 and 32).  It keeps N games live, each created through the HTTP API
 * with two human seats and played by two real WebSocket clients (wslay's
 * client side) that answer their seat's state with a random legal decision
 * at R decisions per second per game, for S seconds, then reports
 * decisions per second, the acknowledgement latency (decision sent -> its
 * `ack` received) at p50/p95/p99/max, the errors, and the server's CPU and
 * memory from /proc.  `--spawn` runs its own server (this binary's `serve`)
 * on a free loopback port and a temporary SQLite database.
 *
 * Invariants:
 *   - only loopback is ever contacted: --url must name 127.0.0.0/8,
 *     localhost or [::1] (and a --db URL for --spawn a loopback host or a
 *     local socket); everything else is refused before any socket opens;
 *   - one thread, one epoll set, non-blocking sockets: no socket operation
 *     ever waits, so a slow connection never delays another's latency
 *     figure; at most LT_OPENING connections are being opened at once;
 *   - a seat has at most one decision in flight, sends only on its own
 *     turn (your_turn, a position it has not answered yet), and never more
 *     messages than the server's announced rate limit allows (a token
 *     bucket at 90% of it), so a correct server answers every decision with
 *     `ack` and `errors` counts real failures only;
 *   - the run is bounded: setup (at most LT_SETUP_US), then exactly the
 *     measured window of --seconds, then a drain of at most LT_DRAIN_US for
 *     the acknowledgements still due; Ctrl-C (SIGINT/SIGTERM) ends the
 *     window early and still reports;
 *   - figures cover the decisions sent inside the window only (decisions
 *     during setup are counted apart as warm-up);
 *   - a game lives while its slot or one of its connections refers to it
 *     (lt_game.refs); a game that ends frees its slot at once, and the slot
 *     opens a new game (a second later when the old one failed);
 *   - against IPv4, each slot's connections come from their own loopback
 *     source address (127.100.X.Y), so a server's per-address connection
 *     limit is not what is measured;
 *   - a spawned server runs in its own process group (Ctrl-C reaches only
 *     this process, which stops it with SIGTERM and then SIGKILL after
 *     15 s), dies with this process (PR_SET_PDEATHSIG), and its temporary
 *     directory is removed at the end in every case this process survives;
 *   - faults (issue 32): --verify remembers every acknowledged decision
 *     (game, number, canonical text, from the `ack`) and reads every game
 *     back at the end; `lost` counts the ones missing or different.
 *     --chaos-kills K kills the spawned server with SIGKILL at K random
 *     moments of the window's first 80% and starts it again (same database,
 *     same port) before anything else happens; every connection opened
 *     before a kill is its casualty (lt_conn.gen < kills): what the server
 *     wrote before dying is read first (acks count), then the connection is
 *     dropped without an error, a seat of a game still on is opened again
 *     (at most LT_OPENING at once), a decision in flight is counted as
 *     unacknowledged and a game being created is given up.  A failure of a
 *     connection opened after the last kill is an error as ever.  A game
 *     live at a kill is unplayable until both its seats have their
 *     `welcome` again (or the window ends); that gap is reported;
 *   - --servers N (PostgreSQL): N spawned servers share the database; games
 *     are created on each in turn, each seat first connects to any of them
 *     and follows `elsewhere` (to the address it names, else to a running
 *     server half a second later); kills take the servers in turn, never
 *     the last one up (the kill waits for one being started), and the
 *     victim starts again in the background at once (lt_starting), so each
 *     kill's games are taken over by another.  A seat never connects to a
 *     server known to be down.  Proc figures (CPU, RSS) are the first
 *     server's.
 */
#include "cli.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wslay/wslay.h>

#define LT_OPENING 64                 /* connections being opened at once */
/* The first N games must be live within 10 s + 20 ms per game (30 s for
 * 1,000), else the window starts anyway and `setup_timeout` is an error. */
#define LT_SETUP_US(games) ((10000u + 20u * (uint64_t)(games)) * 1000u)
#define LT_DRAIN_US (3u * 1000000u)   /* waiting for acks after the window */
#define LT_ACK_TIMEOUT_US (10u * 1000000u)
#define LT_MAX_GAMES 4000             /* the server takes 8192 connections */
#define LT_MOVE_LEN 256

enum { LT_CREATE, LT_SEAT };
enum { LT_CONNECTING, LT_REQUEST, LT_RESPONSE, LT_OPEN, LT_DONE };
enum { LT_SETUP, LT_WINDOW, LT_DRAIN, LT_FINISHED };

typedef struct lt_run lt_run;

#define LT_SERVERS_MAX 4

typedef struct lt_server {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char host[80];  /* Host header */
    pid_t pid;      /* 0: unknown */
    bool spawned;
    int port;       /* a spawned server's, kept across restarts */
    int kills;      /* times it was killed (--chaos-kills) */
    bool up;        /* listening (printed its URL) */
    int out_fd;     /* its stdout while it starts, else -1 */
    uint64_t start_limit, start_us;
    char out[1024];
    size_t out_len;
} lt_server;
typedef struct lt_game lt_game;

typedef struct lt_conn {
    lt_run *run;
    lt_game *game;
    int kind, seat, phase, fd;
    uint32_t events;
    char *req;
    size_t req_len, req_off;
    char *resp;
    size_t resp_len, resp_cap, extra_off, extra_end;
    wslay_event_context_ptr ctx;
    bool closing;  /* we sent a close frame */
    bool settling; /* the caller sends what wslay queued (lt_ws_settle) */
    char *in;      /* the message being received */
    size_t in_len, in_cap;
    bool in_ctrl, in_text;
    /* a seat's play */
    int answered_n;        /* the last position this seat decided on, -1: none */
    bool pending;          /* a decision in flight */
    bool pending_counted;  /* sent inside the window */
    long pending_id;
    uint64_t sent_us;
    char move[LT_MOVE_LEN];
    int move_n;
    bool has_move;         /* chosen, waiting for its time */
    uint64_t due_us;
    int heap_i;            /* -1: not in the timer heap */
    double tokens, tok_rate, tok_burst;
    uint64_t refill_us;
    int server;            /* the index of the server it talks to */
    int gen;               /* that server's kills when it was opened (--chaos-kills) */
    bool welcomed;         /* a seat that got its `welcome` */
    struct lt_conn *prev, *next; /* every conn */
} lt_conn;

struct lt_game {
    int slot, refs, live_seats;
    int server; /* the index of the server it was created on */
    int at[2];  /* the server each seat connects to (--servers: follows `elsewhere`) */
    bool live, over, dead;
    char id[32];
    char token[2][96];
    lt_conn *seat[2];
    uint64_t next_us; /* pacing: no decision of this game before this time */
    int vi;           /* its entry in lt_run.vgames, -1: none (--verify) */
    bool down;        /* live when the server was killed, not live again yet */
    uint64_t down_us; /* the kill that took it down */
};

/* --verify: the decisions a game's seats saw acknowledged. */
typedef struct lt_vdec {
    int n;
    char *move;
} lt_vdec;

typedef struct lt_vgame {
    char id[32];
    int count, cap;
    lt_vdec *d;
} lt_vgame;

/* A seat to open again: its connection died in a kill (--chaos-kills), or
 * it was sent `elsewhere` (--servers); not before due_us. */
typedef struct lt_redial {
    lt_game *g; /* holds a reference */
    int seat;
    uint64_t due_us;
} lt_redial;

typedef struct lt_slot {
    lt_game *game;
    uint64_t retry_us;
} lt_slot;

typedef struct lt_errcode {
    char code[32];
    long count;
} lt_errcode;

#define LT_THREADS 64

typedef struct lt_proc {
    bool known;
    uint64_t cpu_ticks;
    long rss_kb, hwm_kb;
    /* per thread, from schedstat: time on a CPU and time runnable but
     * waiting for one (nanoseconds) */
    int nthreads;
    long tid[LT_THREADS];
    uint64_t run_ns[LT_THREADS], wait_ns[LT_THREADS];
} lt_proc;

struct lt_run {
    /* options */
    int games;
    double rate, seconds;
    const char *game_name;
    bool json, quiet, spawn, verify;
    int chaos; /* --chaos-kills */
    const char *url, *db;
    uint64_t seed;
    /* targets: one server, or with --servers several on one PostgreSQL
     * database; games are created on them in turn */
    lt_server srv[LT_SERVERS_MAX];
    int nservers;
    char tmpdir[256];
    /* --chaos-kills and --verify */
    uint64_t *kill_at;  /* chaos kill times, in order */
    int kills;
    lt_redial *redial;  /* FIFO of seats to reconnect */
    int redial_head, redial_len, redial_cap;
    uint32_t *gaps;     /* per game and kill: kill -> playable again, microseconds */
    size_t ngaps, gaps_cap;
    uint64_t restart_max_us;
    long unacked_at_kill, reconnects, elsewhere;
    lt_vgame *vgames;
    int nvgames, vcap;
    long acked, verified, lost, lost_games;
    bool stop;          /* end the window early (the server could not restart) */
    /* loop */
    int epfd;
    int phase;
    uint64_t start_us, window_us, end_us, drain_us;
    lt_slot *slots;
    int *waiting; /* FIFO of slot indices that need a game */
    int wait_head, wait_len;
    int opening, live_games;
    lt_conn *conns;
    lt_conn **heap;
    int heap_len, heap_cap;
    uint64_t rng;
    long next_id;
    /* results */
    uint32_t *lat; /* microseconds, window decisions */
    size_t nlat, lat_cap;
    uint32_t sec_lat[65536];
    size_t nsec;
    long moves, warmup_moves, sec_moves, errors, started, finished, pending_count;
    lt_errcode errcodes[24];
    int nerrcodes;
    lt_proc proc0, proc1, proc_sec, self0, self1;
    uint64_t client_cpu0;
    double setup_s;
    bool progress_tty, progress_drawn;
    uint64_t next_tick_us;
};

static volatile sig_atomic_t lt_interrupted;

static void lt_on_signal(int sig)
{
    (void)sig;
    lt_interrupted = 1;
}

/* ---- small helpers ---- */

static uint64_t lt_rand(lt_run *r)
{
    /* xorshift64*: choices and masks, not secrets */
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return r->rng * 2685821657736338717u;
}

static double lt_unit(lt_run *r)
{
    return (double)(lt_rand(r) >> 11) / 9007199254740992.0;
}

static void lt_error(lt_run *r, const char *code)
{
    r->errors++;
    for (int i = 0; i < r->nerrcodes; i++) {
        if (strcmp(r->errcodes[i].code, code) == 0) {
            r->errcodes[i].count++;
            return;
        }
    }
    int i = r->nerrcodes < (int)(sizeof r->errcodes / sizeof r->errcodes[0])
                ? r->nerrcodes++
                : r->nerrcodes - 1; /* the last one collects the rest */
    if (r->errcodes[i].count == 0)
        snprintf(r->errcodes[i].code, sizeof r->errcodes[i].code, "%s", code);
    else
        snprintf(r->errcodes[i].code, sizeof r->errcodes[i].code, "other");
    r->errcodes[i].count++;
}

static _Noreturn void lt_oom(void)
{
    fprintf(stderr, "tabula loadtest: out of memory\n");
    exit(1);
}

static void *lt_xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        lt_oom();
    return p;
}

/* The value of a header (case-insensitive name) in a reply's head. */
static const char *lt_header(const char *head, const char *end, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(head, "\r\n"); p && p < end; p = strstr(p + 2, "\r\n"))
        if (strncasecmp(p + 2, name, n) == 0 && p[2 + n] == ':')
            return p + 3 + n;
    return NULL;
}

static bool lt_parse_double(const char *text, double lo, double hi, double *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (*end || errno || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

/* ---- the target: loopback only ---- */

/* Fills r->addr from a loopback host; false when the host is not loopback. */
static bool lt_loopback(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        if ((ntohl(v4->sin_addr.s_addr) >> 24) != 127)
            return false;
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = sizeof *v4;
        return true;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        if (!IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr))
            return false;
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = sizeof *v6;
        return true;
    }
    return false;
}

/* http://HOST[:PORT][/] with a loopback HOST; 0 on success, else the usage
 * error is in `why`. */
static int lt_parse_url(lt_server *r, const char *url, char *why, size_t whylen)
{
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(why, whylen, "--url must be http://HOST:PORT/ (plain HTTP on loopback), got '%s'",
                 url);
        return -1;
    }
    const char *p = url + 7, *hend;
    char host[64];
    if (*p == '[') {
        hend = strchr(p, ']');
        if (!hend || (size_t)(hend - p - 1) >= sizeof host) {
            snprintf(why, whylen, "bad IPv6 address in --url '%s'", url);
            return -1;
        }
        memcpy(host, p + 1, (size_t)(hend - p - 1));
        host[hend - p - 1] = '\0';
        hend++;
    } else {
        hend = p + strcspn(p, ":/");
        if (hend == p || (size_t)(hend - p) >= sizeof host) {
            snprintf(why, whylen, "no host in --url '%s'", url);
            return -1;
        }
        memcpy(host, p, (size_t)(hend - p));
        host[hend - p] = '\0';
    }
    long port = 80;
    const char *rest = hend;
    if (*rest == ':') {
        char *end;
        errno = 0;
        port = strtol(rest + 1, &end, 10);
        if (end == rest + 1 || errno || port < 1 || port > 65535) {
            snprintf(why, whylen, "bad port in --url '%s'", url);
            return -1;
        }
        rest = end;
    }
    if (*rest && strcmp(rest, "/") != 0) {
        snprintf(why, whylen, "--url is the server's root, http://HOST:PORT/, got '%s'", url);
        return -1;
    }
    if (!lt_loopback(host, (int)port, &r->addr, &r->addrlen)) {
        snprintf(why, whylen,
                 "--url must name a loopback host (127.0.0.0/8, localhost or [::1]), got '%s'",
                 host);
        return -1;
    }
    snprintf(r->host, sizeof r->host, "%s%s%s:%ld", r->addr.ss_family == AF_INET6 ? "[" : "",
             r->addr.ss_family == AF_INET6 ? "::1" : host,
             r->addr.ss_family == AF_INET6 ? "]" : "", port);
    return 0;
}

/* A PostgreSQL URL for --spawn --db: its host must be loopback or absent
 * (a local socket). */
static bool lt_db_is_local(const char *db)
{
    const char *p = strstr(db, "://");
    if (!p)
        return true; /* an SQLite file */
    p += 3;
    const char *at = strchr(p, '@'), *slash = strchr(p, '/');
    if (at && (!slash || at < slash))
        p = at + 1;
    char host[64];
    size_t n;
    if (*p == '[') {
        const char *e = strchr(p, ']');
        if (!e)
            return false;
        n = (size_t)(e - p - 1);
        if (n >= sizeof host)
            return false;
        memcpy(host, p + 1, n);
    } else {
        n = strcspn(p, ":/?,");
        if (n >= sizeof host)
            return false;
        memcpy(host, p, n);
    }
    host[n] = '\0';
    if (!*host)
        return strstr(p, "host=") == NULL || strstr(p, "host=/") != NULL;
    if (strstr(p, "host=") && !strstr(p, "host=/") && !strstr(p, "host=127.") &&
        !strstr(p, "host=localhost"))
        return false;
    struct sockaddr_storage ss;
    socklen_t len;
    return lt_loopback(host, 1, &ss, &len);
}

/* ---- the server's process: /proc ---- */

static lt_proc lt_proc_read(pid_t pid)
{
    lt_proc p = {0};
    if (pid <= 0)
        return p;
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return p;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *s = strrchr(buf, ')');
    if (!s)
        return p;
    /* after "comm)": state ppid pgrp session tty tpgid flags minflt cminflt
     * majflt cmajflt utime stime */
    unsigned long long utime = 0, stime = 0;
    char state = '?';
    if (sscanf(s + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &utime,
               &stime) != 3 ||
        state == 'Z' || state == 'X') /* ended: nothing left to measure */
        return p;
    p.cpu_ticks = utime + stime;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    f = fopen(path, "r");
    if (!f)
        return p;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0)
            p.rss_kb = strtol(line + 6, NULL, 10);
        else if (strncmp(line, "VmHWM:", 6) == 0)
            p.hwm_kb = strtol(line + 6, NULL, 10);
    }
    fclose(f);
    p.known = true;
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && p.nthreads < LT_THREADS && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char sp[300];
        snprintf(sp, sizeof sp, "/proc/%ld/task/%s/schedstat", (long)pid, e->d_name);
        FILE *sf = fopen(sp, "r");
        unsigned long long run = 0, wait = 0;
        if (sf && fscanf(sf, "%llu %llu", &run, &wait) == 2) {
            p.tid[p.nthreads] = strtol(e->d_name, NULL, 10);
            p.run_ns[p.nthreads] = run;
            p.wait_ns[p.nthreads] = wait;
            p.nthreads++;
        }
        if (sf)
            fclose(sf);
    }
    if (d)
        closedir(d);
    return p;
}

/* The thread that ran most between two readings: its share of the
 * interval on a CPU and waiting for one, in percent; false if unknown. */
static bool lt_busiest(const lt_proc *a, const lt_proc *b, double secs, double *run_pct,
                       double *wait_pct)
{
    uint64_t best_run = 0, best_wait = 0;
    bool found = false;
    for (int i = 0; i < b->nthreads; i++)
        for (int k = 0; k < a->nthreads; k++)
            if (a->tid[k] == b->tid[i] && b->run_ns[i] - a->run_ns[k] >= best_run) {
                best_run = b->run_ns[i] - a->run_ns[k];
                best_wait = b->wait_ns[i] - a->wait_ns[k];
                found = true;
            }
    if (!found || secs <= 0)
        return false;
    *run_pct = (double)best_run / (secs * 1e7);
    *wait_pct = (double)best_wait / (secs * 1e7);
    return true;
}

/* The process listening on the loopback port of --url, through the socket
 * tables and every process's descriptors; 0 when not found (another user's
 * process, another network namespace). */
static pid_t lt_find_listener(int port)
{
    unsigned long inode = 0;
    const char *tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    for (int t = 0; t < 2 && !inode; t++) {
        FILE *f = fopen(tables[t], "r");
        if (!f)
            continue;
        char line[512];
        while (!inode && fgets(line, sizeof line, f)) {
            char local[64];
            unsigned st;
            unsigned long ino;
            if (sscanf(line, " %*d: %63s %*s %x %*s %*s %*s %*u %*d %lu", local, &st, &ino) != 3)
                continue;
            const char *colon = strrchr(local, ':');
            if (st == 0x0A && colon && strtol(colon + 1, NULL, 16) == port)
                inode = ino;
        }
        fclose(f);
    }
    if (!inode)
        return 0;
    char want[64];
    snprintf(want, sizeof want, "socket:[%lu]", inode);
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    pid_t found = 0;
    struct dirent *e;
    while (!found && (e = readdir(proc))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char fdpath[300];
        snprintf(fdpath, sizeof fdpath, "/proc/%s/fd", e->d_name);
        DIR *fds = opendir(fdpath);
        if (!fds)
            continue;
        struct dirent *d;
        while (!found && (d = readdir(fds))) {
            char link[600], target[64];
            snprintf(link, sizeof link, "%s/%s", fdpath, d->d_name);
            ssize_t n = readlink(link, target, sizeof target - 1);
            if (n > 0) {
                target[n] = '\0';
                if (strcmp(target, want) == 0)
                    found = (pid_t)strtol(e->d_name, NULL, 10);
            }
        }
        closedir(fds);
    }
    closedir(proc);
    return found == getpid() ? 0 : found;
}

/* ---- a spawned server ---- */

static void lt_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Starts `tabula serve` on 127.0.0.1, a free port and a database in a
 * fresh temporary directory; returns once it printed its URL (it prints it
 * only once it listens).  Started again after a kill (r->tmpdir made),
 * it serves the same database on the same port.  0 on success, else err
 * says why. */
static int lt_spawn_wait(lt_run *r, int k, bool block, char *err, size_t errlen);

/* With `wait` false it returns once the process runs: the loop sees it come
 * up (lt_spawn_wait). */
static int lt_spawn(lt_run *r, int k, bool wait, char *err, size_t errlen)
{
    lt_server *sv = &r->srv[k];
    if (!r->tmpdir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(r->tmpdir, sizeof r->tmpdir, "%s/tabula-loadtest-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(r->tmpdir)) {
            snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
            r->tmpdir[0] = '\0';
            return -1;
        }
    }
    char db[320], log[320], portarg[16];
    snprintf(db, sizeof db, "%s/load.db", r->tmpdir);
    snprintf(log, sizeof log, "%s/server%d.log", r->tmpdir, k + 1);
    snprintf(portarg, sizeof portarg, "%d", sv->port);
    int out[2];
    if (pipe(out) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(out[0]);
        close(out[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0); /* Ctrl-C reaches the load test only, which stops us */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        dup2(out[1], 1);
        int lf = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (lf >= 0)
            dup2(lf, 2);
        close(out[0]);
        close(out[1]);
        signal(SIGPIPE, SIG_DFL);
        char *argv[] = {"tabula", "serve", "--host", "127.0.0.1", "--port", portarg,
                        "--db", r->db ? (char *)r->db : db, "--ai-delay-ms", "0", "--quiet",
                        NULL};
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(out[1]);
    sv->pid = pid;
    sv->spawned = true;
    sv->out_fd = out[0];
    sv->out_len = 0;
    sv->start_us = cli_now_us();
    sv->start_limit = sv->start_us + 30u * 1000000u;
    if (!wait)
        return 0;
    return lt_spawn_wait(r, k, true, err, errlen) == 1 ? 0 : -1;
}

/* A server being started: reads what it printed; once it printed its URL
 * (it does so only once it listens) it is up.  1: up, 0: not yet (only
 * when !block), -1: it failed (err says why; 30 s at most). */
static int lt_spawn_wait(lt_run *r, int k, bool block, char *err, size_t errlen)
{
    lt_server *sv = &r->srv[k];
    char log[320];
    snprintf(log, sizeof log, "%s/server%d.log", r->tmpdir, k + 1);
    int port = 0;
    while (!port) {
        int64_t left = (int64_t)(sv->start_limit - cli_now_us());
        struct pollfd pfd = {.fd = sv->out_fd, .events = POLLIN};
        if (left <= 0 || lt_interrupted) {
            snprintf(err, errlen, "%s", lt_interrupted ? "interrupted while the server started"
                                                       : "the server did not start within 30 s");
            break;
        }
        int n = poll(&pfd, 1, block ? (int)(left / 1000 + 1) : 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 && !block)
            return 0;
        if (n <= 0)
            continue;
        ssize_t got = read(sv->out_fd, sv->out + sv->out_len, sizeof sv->out - 1 - sv->out_len);
        if (got <= 0) {
            char tail[300] = "";
            FILE *f = fopen(log, "r");
            if (f) {
                size_t got_tail = fread(tail, 1, sizeof tail - 1, f);
                tail[got_tail] = '\0';
                tail[strcspn(tail, "\n")] = '\0';
                fclose(f);
            }
            snprintf(err, errlen, "the server exited before it listened%s%s", *tail ? ": " : "",
                     tail);
            break;
        }
        sv->out_len += (size_t)got;
        sv->out[sv->out_len] = '\0';
        const char *u = strstr(sv->out, "http://127.0.0.1:");
        char *after;
        long p = u ? strtol(u + 17, &after, 10) : 0;
        if (u && p > 0 && p < 65536 && *after == '/') {
            port = (int)p;
        } else if (sv->out_len == sizeof sv->out - 1) {
            snprintf(err, errlen, "the server printed no URL");
            break;
        }
    }
    close(sv->out_fd);
    sv->out_fd = -1;
    if (!port)
        return -1;
    sv->port = port;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
    if (lt_parse_url(sv, url, err, errlen) != 0)
        return -1;
    sv->up = true;
    return 1;
}

/* SIGTERM, then SIGKILL after 15 s; the exit status, or -1 when killed. */
static int lt_stop_server(lt_server *r)
{
    if (r->out_fd >= 0) {
        close(r->out_fd);
        r->out_fd = -1;
    }
    r->up = false;
    if (!r->spawned)
        return 0;
    r->spawned = false;
    kill(r->pid, SIGTERM);
    uint64_t limit = cli_now_us() + 15u * 1000000u;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(r->pid, &status, WNOHANG);
        if (w == r->pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        if (cli_now_us() > limit) {
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &status, 0);
            return -1;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A spawned server that failed: the end of its stderr, before its
 * directory goes. */
static void lt_show_server_log(const lt_run *r, int k)
{
    char path[320], buf[2048];
    snprintf(path, sizeof path, "%s/server%d.log", r->tmpdir, k + 1);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    if (size > (long)sizeof buf - 1)
        fseek(f, size - (long)sizeof buf + 1, SEEK_SET);
    else
        fseek(f, 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (n)
        fprintf(stderr, "tabula loadtest: the server's last words:\n%s%s", buf,
                buf[n - 1] == '\n' ? "" : "\n");
}

/* A blocking GET for the health check: 0 when the server answered 200. */
static int lt_health(const lt_server *r)
{
    int fd = socket(r->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int ok = -1;
    if (connect(fd, (struct sockaddr *)&r->addr, r->addrlen) == 0) {
        char req[256], resp[512];
        int n = snprintf(req, sizeof req,
                         "GET /api/health HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                         r->host);
        if (send(fd, req, (size_t)n, MSG_NOSIGNAL) == n) {
            ssize_t got = recv(fd, resp, sizeof resp - 1, 0);
            if (got > 12) {
                resp[got] = '\0';
                ok = strncmp(resp + 8, " 200", 4) == 0 ? 0 : -1;
            }
        }
    }
    close(fd);
    return ok;
}

/* ---- the timer heap (seats waiting to send) ---- */

static void lt_heap_swap(lt_run *r, int a, int b)
{
    lt_conn *t = r->heap[a];
    r->heap[a] = r->heap[b];
    r->heap[b] = t;
    r->heap[a]->heap_i = a;
    r->heap[b]->heap_i = b;
}

static void lt_heap_up(lt_run *r, int i)
{
    while (i > 0 && r->heap[(i - 1) / 2]->due_us > r->heap[i]->due_us) {
        lt_heap_swap(r, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void lt_heap_down(lt_run *r, int i)
{
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < r->heap_len && r->heap[l]->due_us < r->heap[m]->due_us)
            m = l;
        if (l + 1 < r->heap_len && r->heap[l + 1]->due_us < r->heap[m]->due_us)
            m = l + 1;
        if (m == i)
            return;
        lt_heap_swap(r, i, m);
        i = m;
    }
}

static void lt_heap_push(lt_run *r, lt_conn *c)
{
    if (r->heap_len == r->heap_cap) {
        r->heap_cap = r->heap_cap ? 2 * r->heap_cap : 256;
        lt_conn **h = realloc(r->heap, (size_t)r->heap_cap * sizeof *h);
        if (!h)
            lt_oom();
        r->heap = h;
    }
    c->heap_i = r->heap_len;
    r->heap[r->heap_len++] = c;
    lt_heap_up(r, c->heap_i);
}

static void lt_heap_remove(lt_run *r, lt_conn *c)
{
    int i = c->heap_i;
    if (i < 0)
        return;
    c->heap_i = -1;
    r->heap_len--;
    if (i == r->heap_len)
        return;
    r->heap[i] = r->heap[r->heap_len];
    r->heap[i]->heap_i = i;
    lt_heap_down(r, i);
    lt_heap_up(r, i);
}

/* ---- connections ---- */

static void lt_game_unref(lt_run *r, lt_game *g)
{
    (void)r;
    if (--g->refs == 0)
        free(g);
}

static void lt_slot_wait(lt_run *r, int slot, uint64_t not_before)
{
    r->slots[slot].game = NULL;
    r->slots[slot].retry_us = not_before;
    r->waiting[(r->wait_head + r->wait_len) % r->games] = slot;
    r->wait_len++;
}

static void lt_conn_free(lt_run *r, lt_conn *c)
{
    if (c->phase != LT_DONE) {
        if (c->phase < LT_OPEN)
            r->opening--;
        c->phase = LT_DONE;
    }
    if (c->fd >= 0) {
        epoll_ctl(r->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
    }
    lt_heap_remove(r, c);
    if (c->pending)
        r->pending_count--;
    if (c->ctx)
        wslay_event_context_free(c->ctx);
    if (c->prev)
        c->prev->next = c->next;
    else
        r->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    if (c->game) {
        if (c->kind == LT_SEAT && c->game->seat[c->seat] == c)
            c->game->seat[c->seat] = NULL;
        lt_game_unref(r, c->game);
    }
    free(c->req);
    free(c->resp);
    free(c->in);
    free(c);
}

static void lt_set_events(lt_run *r, lt_conn *c, uint32_t ev)
{
    if (ev == c->events || c->fd < 0)
        return;
    struct epoll_event e = {.events = ev, .data.ptr = c};
    epoll_ctl(r->epfd, EPOLL_CTL_MOD, c->fd, &e);
    c->events = ev;
}

/* Something was queued in wslay: send it now if the caller settles this
 * connection, else when the socket says it is writable (at once). */
static void lt_ws_queued(lt_run *r, lt_conn *c)
{
    if (!c->settling)
        lt_set_events(r, c, c->events | EPOLLOUT);
}

static void lt_ws_close(lt_run *r, lt_conn *c)
{
    if (c->ctx && !c->closing) {
        c->closing = true;
        wslay_event_queue_close(c->ctx, WSLAY_CODE_NORMAL_CLOSURE, NULL, 0);
        lt_ws_queued(r, c);
    }
}

/* A game ends, well or badly: both seats close and its slot gets a new
 * game (after a second when it failed). */
static void lt_game_end(lt_run *r, lt_game *g, bool failed)
{
    if (g->over || g->dead)
        return;
    if (failed)
        g->dead = true;
    else
        g->over = true;
    if (g->live)
        r->live_games--;
    g->live = false;
    for (int s = 0; s < 2; s++) {
        lt_conn *c = g->seat[s];
        if (!c)
            continue;
        lt_heap_remove(r, c);
        c->has_move = false;
        if (c->phase == LT_OPEN)
            lt_ws_close(r, c); /* one still opening closes once open */
    }
    if (g->slot >= 0) {
        int slot = g->slot;
        g->slot = -1;
        lt_slot_wait(r, slot, cli_now_us() + (failed ? 1000000u : 0u));
        lt_game_unref(r, g); /* the slot's reference */
    }
}

/* A seat to open again once the server is back (its game keeps a
 * reference while it waits). */
static void lt_redial_push(lt_run *r, lt_game *g, int seat, uint64_t due_us)
{
    if (r->redial_len == r->redial_cap) {
        int cap = r->redial_cap ? 2 * r->redial_cap : 256;
        lt_redial *q = lt_xmalloc((size_t)cap * sizeof *q);
        for (int i = 0; i < r->redial_len; i++)
            q[i] = r->redial[(r->redial_head + i) % r->redial_cap];
        free(r->redial);
        r->redial = q;
        r->redial_cap = cap;
        r->redial_head = 0;
    }
    g->refs++;
    r->redial[(r->redial_head + r->redial_len) % r->redial_cap] = (lt_redial){g, seat, due_us};
    r->redial_len++;
}

/* Where a seat goes when its server is down: that server if it is the
 * only one (it is being started again), else one of those running, at
 * random, as a client that knows the servers' addresses would. */
static int lt_live_server(lt_run *r, int k)
{
    if (r->srv[k].up || r->nservers == 1)
        return k;
    int live[LT_SERVERS_MAX], n = 0;
    for (int i = 0; i < r->nservers; i++)
        if (r->srv[i].up)
            live[n++] = i;
    return n ? live[lt_rand(r) % (uint64_t)n] : k;
}

/* A connection the load test's own kill cut (--chaos-kills): not an
 * error.  A seat of a game still on is opened again; a decision it had in
 * flight has an unknown fate (stored or not, never acknowledged); a game
 * being created is given up, and its slot starts another. */
static void lt_casualty(lt_run *r, lt_conn *c)
{
    lt_game *g = c->game;
    if (c->pending)
        r->unacked_at_kill++;
    if (c->kind == LT_CREATE) {
        if (g)
            lt_game_end(r, g, true);
        lt_conn_free(r, c);
        return;
    }
    int seat = c->seat;
    bool again = g && !g->over && !g->dead && g->seat[seat] == c && r->phase <= LT_WINDOW;
    if (again) {
        g->at[seat] = lt_live_server(r, c->server);
        lt_redial_push(r, g, seat, 0);
    }
    lt_conn_free(r, c);
}

static void lt_conn_fail(lt_run *r, lt_conn *c, const char *code)
{
    if (c->gen < r->srv[c->server].kills) {
        lt_casualty(r, c);
        return;
    }
    if (r->phase != LT_FINISHED)
        lt_error(r, code);
    if (c->game)
        lt_game_end(r, c->game, true);
    lt_conn_free(r, c);
}

static lt_conn *lt_connect(lt_run *r, int kind, lt_game *g, int seat, char *req, size_t req_len)
{
    lt_conn *c = calloc(1, sizeof *c);
    if (!c)
        lt_oom();
    c->run = r;
    c->kind = kind;
    c->seat = seat;
    c->game = g;
    g->refs++;
    c->heap_i = -1;
    c->answered_n = -1;
    c->server = kind == LT_SEAT ? g->at[seat] : g->server;
    c->gen = r->srv[c->server].kills;
    c->req = req;
    c->req_len = req_len;
    c->tok_rate = 18.0; /* until the welcome says otherwise */
    c->tok_burst = c->tokens = 30.0;
    c->next = r->conns;
    if (r->conns)
        r->conns->prev = c;
    r->conns = c;
    r->opening++;
    c->phase = LT_CONNECTING;
    const lt_server *sv = &r->srv[c->server];
    c->fd = socket(sv->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        lt_conn_fail(r, c, "socket");
        return NULL;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (sv->addr.ss_family == AF_INET) {
        /* Each game from its own loopback address, as players come from
         * their own machines: a per-address connection limit of the server
         * is not what this measures. */
        struct sockaddr_in src = {.sin_family = AF_INET};
        int k = g->slot >= 0 ? g->slot : 0;
        src.sin_addr.s_addr = htonl(0x7F640000u | (uint32_t)(k / 250) << 8 | (uint32_t)(k % 250 + 1));
        setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (bind(c->fd, (struct sockaddr *)&src, sizeof src) != 0) {
            lt_conn_fail(r, c, "bind");
            return NULL;
        }
    }
    if (connect(c->fd, (struct sockaddr *)&sv->addr, sv->addrlen) != 0 && errno != EINPROGRESS) {
        lt_conn_fail(r, c, "connect");
        return NULL;
    }
    c->events = EPOLLOUT;
    struct epoll_event e = {.events = EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, c->fd, &e) != 0) {
        lt_conn_fail(r, c, "epoll");
        return NULL;
    }
    return c;
}

/* POST /api/games for a slot. */
static void lt_create(lt_run *r, int slot)
{
    lt_game *g = calloc(1, sizeof *g);
    if (!g)
        lt_oom();
    g->slot = slot;
    g->vi = -1;
    g->server = (int)(r->started % r->nservers);
    for (int s = 0; s < 2; s++) /* seats spread over the servers: `elsewhere` is followed */
        g->at[s] = r->nservers > 1 ? lt_live_server(r, (int)(lt_rand(r) % (uint64_t)r->nservers))
                                   : g->server;
    g->server = lt_live_server(r, g->server);
    g->refs = 1; /* the slot's */
    r->slots[slot].game = g;
    char body[256];
    int blen = snprintf(body, sizeof body,
                        "{\"game\":\"%s\",\"players\":2,\"seats\":[{\"kind\":\"human\","
                        "\"name\":\"load %d a\"},{\"kind\":\"human\",\"name\":\"load %d b\"}]}",
                        r->game_name, slot, slot);
    char *req = lt_xmalloc(512 + (size_t)blen);
    int n = snprintf(req, 512 + (size_t)blen,
                     "POST /api/games HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
                     r->srv[g->server].host, blen, body);
    r->started++;
    lt_connect(r, LT_CREATE, g, -1, req, (size_t)n);
}

static void lt_b64(const uint8_t *in, size_t n, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
        out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    out[o] = '\0';
}

static int lt_live_server(lt_run *r, int k);

static void lt_open_seat(lt_run *r, lt_game *g, int seat)
{
    g->at[seat] = lt_live_server(r, g->at[seat]); /* it may have gone down meanwhile */
    uint8_t raw[16];
    for (int i = 0; i < 16; i++)
        raw[i] = (uint8_t)lt_rand(r);
    char key[32];
    lt_b64(raw, 16, key);
    char *req = lt_xmalloc(1024);
    int n = snprintf(req, 1024,
                     "GET /ws?game=%s&token=%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     g->id, g->token[seat], r->srv[g->at[seat]].host, key);
    g->seat[seat] = lt_connect(r, LT_SEAT, g, seat, req, (size_t)n);
}

/* The reply to POST /api/games: the game's id and the two seat tokens. */
static void lt_created(lt_run *r, lt_conn *c, const char *body, size_t len, int status)
{
    lt_game *g = c->game;
    if (status != 201) {
        char code[32];
        snprintf(code, sizeof code, "create_http_%d", status);
        lt_conn_fail(r, c, code);
        return;
    }
    json_t *j = json_loadb(body, len, 0, NULL);
    const char *id = json_string_value(json_object_get(j, "id"));
    json_t *seats = json_object_get(j, "seats");
    const char *t0 = json_string_value(json_object_get(json_array_get(seats, 0), "token"));
    const char *t1 = json_string_value(json_object_get(json_array_get(seats, 1), "token"));
    if (!id || !t0 || !t1 || strlen(id) >= sizeof g->id || strlen(t0) >= sizeof g->token[0] ||
        strlen(t1) >= sizeof g->token[1]) {
        json_decref(j);
        lt_conn_fail(r, c, "create_reply");
        return;
    }
    snprintf(g->id, sizeof g->id, "%s", id);
    snprintf(g->token[0], sizeof g->token[0], "%s", t0);
    snprintf(g->token[1], sizeof g->token[1], "%s", t1);
    json_decref(j);
    if (r->verify) {
        if (r->nvgames == r->vcap) {
            r->vcap = r->vcap ? 2 * r->vcap : 1024;
            lt_vgame *v = realloc(r->vgames, (size_t)r->vcap * sizeof *v);
            if (!v)
                lt_oom();
            r->vgames = v;
        }
        lt_vgame *v = &r->vgames[r->nvgames];
        memset(v, 0, sizeof *v);
        snprintf(v->id, sizeof v->id, "%s", g->id);
        g->vi = r->nvgames++;
    }
    g->refs++; /* over the next lines */
    lt_conn_free(r, c);
    if (!g->over && !g->dead)
        lt_open_seat(r, g, 0);
    if (!g->over && !g->dead)
        lt_open_seat(r, g, 1);
    lt_game_unref(r, g);
}

/* ---- WebSocket seats ---- */

static ssize_t lt_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags,
                          void *user)
{
    (void)flags;
    lt_conn *c = user;
    if (c->extra_off < c->extra_end) { /* bytes that came with the handshake */
        size_t n = c->extra_end - c->extra_off;
        if (n > len)
            n = len;
        memcpy(buf, c->resp + c->extra_off, n);
        c->extra_off += n;
        return (ssize_t)n;
    }
    ssize_t got;
    do
        got = recv(c->fd, buf, len, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        wslay_event_set_error(ctx, errno == EAGAIN || errno == EWOULDBLOCK
                                       ? WSLAY_ERR_WOULDBLOCK
                                       : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    if (got == 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return got;
}

static ssize_t lt_send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len,
                          int flags, void *user)
{
    lt_conn *c = user;
    ssize_t sent;
    do
        sent = send(c->fd, data, len,
                    MSG_NOSIGNAL | ((flags & WSLAY_MSG_MORE) ? MSG_MORE : 0));
    while (sent < 0 && errno == EINTR);
    if (sent < 0) {
        wslay_event_set_error(ctx, errno == EAGAIN || errno == EWOULDBLOCK
                                       ? WSLAY_ERR_WOULDBLOCK
                                       : WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return sent;
}

static int lt_genmask_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, void *user)
{
    (void)ctx;
    lt_conn *c = user;
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)lt_rand(c->run);
    return 0;
}

static void lt_ws_send_text(lt_run *r, lt_conn *c, const char *text, size_t len)
{
    struct wslay_event_msg m = {WSLAY_TEXT_FRAME, (const uint8_t *)text, len};
    wslay_event_queue_msg(c->ctx, &m); /* copies */
    lt_ws_queued(r, c);
}

static void lt_refill(lt_conn *c, uint64_t now)
{
    if (now <= c->refill_us)
        return;
    c->tokens += (double)(now - c->refill_us) * c->tok_rate / 1e6;
    if (c->tokens > c->tok_burst)
        c->tokens = c->tok_burst;
    c->refill_us = now;
}

/* Sends the chosen decision now, or puts the seat in the timer heap until
 * its game's pace and its rate limit allow it. */
static void lt_try_send(lt_run *r, lt_conn *c, uint64_t now)
{
    if (!c->has_move || c->pending || c->phase != LT_OPEN || c->closing || !c->game->live)
        return;
    if (r->phase != LT_SETUP && r->phase != LT_WINDOW)
        return; /* no new decisions in the drain */
    lt_refill(c, now);
    uint64_t due = c->game->next_us > now ? c->game->next_us : now;
    if (c->tokens < 1.0) {
        uint64_t t = now + (uint64_t)((1.0 - c->tokens) * 1e6 / c->tok_rate) + 1;
        if (t > due)
            due = t;
    }
    if (due > now) {
        c->due_us = due;
        if (c->heap_i >= 0) {
            lt_heap_down(r, c->heap_i);
            lt_heap_up(r, c->heap_i);
        } else {
            lt_heap_push(r, c);
        }
        return;
    }
    lt_heap_remove(r, c);
    char msg[LT_MOVE_LEN * 2 + 96];
    size_t o = (size_t)snprintf(msg, sizeof msg, "{\"type\":\"decide\",\"move\":\"");
    for (const char *p = c->move; *p && o < sizeof msg - 64; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\') {
            msg[o++] = '\\';
            msg[o++] = (char)ch;
        } else if (ch < 0x20) {
            o += (size_t)snprintf(msg + o, sizeof msg - o, "\\u%04x", ch);
        } else {
            msg[o++] = (char)ch;
        }
    }
    long id = ++r->next_id;
    o += (size_t)snprintf(msg + o, sizeof msg - o, "\",\"id\":%ld,\"n\":%d}", id, c->move_n);
    c->has_move = false;
    c->answered_n = c->move_n;
    c->pending = true;
    r->pending_count++;
    c->pending_id = id;
    c->pending_counted = r->phase == LT_WINDOW;
    c->tokens -= 1.0;
    c->sent_us = cli_now_us();
    lt_game *g = c->game;
    g->next_us = r->rate > 0 ? c->sent_us + (uint64_t)((0.5 + lt_unit(r)) * 1e6 / r->rate)
                             : c->sent_us;
    lt_ws_send_text(r, c, msg, o);
}

/* --verify: an acknowledged decision, to look for in the stored game at
 * the end. */
static void lt_remember(lt_run *r, lt_game *g, long n, const char *move)
{
    r->acked++;
    if (g->vi < 0)
        return;
    lt_vgame *v = &r->vgames[g->vi];
    if (v->count == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 64;
        lt_vdec *d = realloc(v->d, (size_t)v->cap * sizeof *d);
        if (!d)
            lt_oom();
        v->d = d;
    }
    char *m = strdup(move);
    if (!m)
        lt_oom();
    v->d[v->count++] = (lt_vdec){(int)n, m};
}

/* A game a kill took down is playable again (or the window ended). */
static void lt_gap(lt_run *r, lt_game *g, uint64_t now)
{
    g->down = false;
    if (r->ngaps == r->gaps_cap) {
        r->gaps_cap = r->gaps_cap ? 2 * r->gaps_cap : 4096;
        uint32_t *a = realloc(r->gaps, r->gaps_cap * sizeof *a);
        if (!a)
            lt_oom();
        r->gaps = a;
    }
    uint64_t gap = now - g->down_us;
    r->gaps[r->ngaps++] = gap > UINT32_MAX ? UINT32_MAX : (uint32_t)gap;
}

static void lt_record_ack(lt_run *r, lt_conn *c)
{
    uint64_t us = cli_now_us() - c->sent_us;
    uint32_t v = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    c->pending = false;
    r->pending_count--;
    if (!c->pending_counted) {
        r->warmup_moves++;
        return;
    }
    r->moves++;
    r->sec_moves++;
    if (r->nlat == r->lat_cap) {
        r->lat_cap = r->lat_cap ? 2 * r->lat_cap : 65536;
        uint32_t *a = realloc(r->lat, r->lat_cap * sizeof *a);
        if (!a)
            lt_oom();
        r->lat = a;
    }
    r->lat[r->nlat++] = v;
    if (r->nsec < sizeof r->sec_lat / sizeof r->sec_lat[0])
        r->sec_lat[r->nsec++] = v;
}

/* ---- reading the server's messages ----
 *
 * A state message is mostly the seat's view, which the load test does not
 * need: rather than building a tree of every message, lt_members walks the
 * top level of the object and records where the few members it reads are;
 * only small parts (the welcome's limits, an escaped decision) go through
 * jansson.  Anything malformed counts as an error from the server. */

typedef struct lt_span {
    const char *p; /* NULL: absent */
    size_t len;
} lt_span;

/* The end of the JSON value starting at p (before end), or NULL. */
static const char *lt_skip_value(const char *p, const char *end)
{
    if (p >= end)
        return NULL;
    if (*p == '"') {
        for (p++; p < end; p++) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                return p + 1;
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; p < end; p++) {
            if (*p == '"') {
                p = lt_skip_value(p, end);
                if (!p)
                    return NULL;
                p--;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if ((*p == '}' || *p == ']') && --depth == 0) {
                return p + 1;
            }
        }
        return NULL;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ')
        p++;
    return p;
}

static const char *lt_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* Fills val[i] with the value of member names[i] of the object in text;
 * false when the text is not an object. */
static bool lt_members(const char *text, size_t len, const char *const *names, lt_span *val,
                       int count)
{
    const char *p = text, *end = text + len;
    for (int i = 0; i < count; i++)
        val[i].p = NULL;
    p = lt_ws(p, end);
    if (p >= end || *p != '{')
        return false;
    p = lt_ws(p + 1, end);
    if (p < end && *p == '}')
        return true;
    for (;;) {
        if (p >= end || *p != '"')
            return false;
        const char *k = p + 1, *kend = lt_skip_value(p, end);
        if (!kend)
            return false;
        size_t klen = (size_t)(kend - 1 - k);
        p = lt_ws(kend, end);
        if (p >= end || *p != ':')
            return false;
        p = lt_ws(p + 1, end);
        const char *v = p;
        p = lt_skip_value(p, end);
        if (!p || p == v)
            return false;
        for (int i = 0; i < count; i++)
            if (strlen(names[i]) == klen && memcmp(names[i], k, klen) == 0) {
                val[i].p = v;
                val[i].len = (size_t)(p - v);
            }
        p = lt_ws(p, end);
        if (p < end && *p == '}')
            return true;
        if (p >= end || *p != ',')
            return false;
        p = lt_ws(p + 1, end);
    }
}

static bool lt_is(lt_span v, const char *lit)
{
    return v.p && v.len == strlen(lit) && memcmp(v.p, lit, v.len) == 0;
}

static long lt_long(lt_span v, long dflt)
{
    if (!v.p || v.len == 0 || v.len > 20 || !(*v.p == '-' || (*v.p >= '0' && *v.p <= '9')))
        return dflt;
    char buf[24];
    memcpy(buf, v.p, v.len);
    buf[v.len] = '\0';
    char *e;
    long n = strtol(buf, &e, 10);
    return *e ? dflt : n;
}

/* A JSON string value into out (unescaped); false if it is not one or
 * does not fit. */
static bool lt_string(lt_span v, char *out, size_t outlen)
{
    if (!v.p || v.len < 2 || v.p[0] != '"' || v.len - 2 >= outlen)
        return false;
    if (!memchr(v.p, '\\', v.len)) {
        memcpy(out, v.p + 1, v.len - 2);
        out[v.len - 2] = '\0';
        return true;
    }
    json_t *j = json_loadb(v.p, v.len, JSON_DECODE_ANY, NULL);
    const char *t = json_string_value(j);
    bool ok = t && strlen(t) < outlen;
    if (ok)
        snprintf(out, outlen, "%s", t);
    json_decref(j);
    return ok;
}

/* Picks a random element of a JSON array of strings. */
static bool lt_pick(lt_run *r, lt_span arr, char *out, size_t outlen)
{
    if (!arr.p || arr.len < 2 || arr.p[0] != '[')
        return false;
    const char *end = arr.p + arr.len - 1; /* the ']' */
    const char *start[TB_MAX_MOVES];
    size_t count = 0;
    const char *p = lt_ws(arr.p + 1, end);
    while (p < end) {
        const char *e = lt_skip_value(p, end);
        if (!e || *p != '"')
            return false;
        if (count < TB_MAX_MOVES)
            start[count++] = p;
        p = lt_ws(e, end);
        if (p < end && *p == ',')
            p = lt_ws(p + 1, end);
    }
    if (!count)
        return false;
    const char *s = start[lt_rand(r) % count];
    lt_span one = {s, (size_t)(lt_skip_value(s, end) - s)};
    return lt_string(one, out, outlen);
}

/* --servers: another server plays this seat's game.  The seat goes where
 * the message says (`address`, else the URL in its text), or, when it
 * names none yet, tries a running server again half a second later; a
 * decision in flight there was not taken.  Not an error: it is how
 * clients find a game's server. */
static void lt_elsewhere(lt_run *r, lt_conn *c, const char *text, size_t len)
{
    lt_game *g = c->game;
    int seat = c->seat, to = -1;
    r->elsewhere++;
    json_t *j = json_loadb(text, len, 0, NULL);
    const char *addr = json_string_value(json_object_get(j, "address"));
    const char *msg = json_string_value(json_object_get(j, "message"));
    const char *url = addr ? addr : msg ? strstr(msg, "http://") : NULL;
    for (int k = 0; url && k < r->nservers; k++) {
        size_t n = strlen(r->srv[k].host);
        if (strncmp(url + 7, r->srv[k].host, n) == 0 && url[7 + n] == '/')
            to = k;
    }
    json_decref(j);
    if (to >= 0 && !r->srv[to].up)
        to = -1; /* it names a server that is down (or not up again yet) */
    if (c->pending) {
        c->pending = false;
        r->pending_count--;
        r->unacked_at_kill++;
    }
    if (c->welcomed && g->live) { /* the game moved away under it */
        g->live = false;
        r->live_games--;
        if (!g->down) {
            g->down = true;
            g->down_us = cli_now_us();
        }
    }
    if (c->welcomed)
        g->live_seats--;
    lt_heap_remove(r, c);
    c->has_move = false;
    g->seat[seat] = NULL;
    lt_ws_close(r, c);
    if (g->over || g->dead || r->phase > LT_WINDOW)
        return;
    g->at[seat] = to >= 0 ? to : lt_live_server(r, (int)(lt_rand(r) % (uint64_t)r->nservers));
    lt_redial_push(r, g, seat, cli_now_us() + (to >= 0 ? 0 : 500000u));
}

static void lt_message(lt_run *r, lt_conn *c, const char *text, size_t len)
{
    enum { TYPE, STATUS, RESULT, YOUR_TURN, N, LEGAL, ID, CODE, LIMITS, MOVE, COUNT };
    static const char *const names[COUNT] = {"type", "status", "result", "your_turn", "n",
                                             "legal", "id", "code", "limits", "move"};
    lt_span v[COUNT];
    lt_game *g = c->game;
    if (c->closing || g->seat[c->seat] != c)
        return; /* a seat that moved on (`elsewhere`): what is left is not read */
    if (!lt_members(text, len, names, v, COUNT) || !v[TYPE].p) {
        lt_error(r, "bad_message_from_server");
    } else if (lt_is(v[TYPE], "\"state\"")) {
        if ((v[RESULT].p && !lt_is(v[RESULT], "null")) || lt_is(v[STATUS], "\"over\"")) {
            if (!g->over && !g->dead)
                r->finished++;
            lt_game_end(r, g, false);
        } else if (lt_is(v[YOUR_TURN], "true")) {
            long n = lt_long(v[N], -1);
            if (n > c->answered_n && !c->pending) {
                if (n >= 0 && lt_pick(r, v[LEGAL], c->move, sizeof c->move)) {
                    c->move_n = (int)n;
                    c->has_move = true;
                    lt_try_send(r, c, cli_now_us());
                } else {
                    lt_error(r, "bad_legal_from_server");
                }
            }
        }
    } else if (lt_is(v[TYPE], "\"ack\"")) {
        if (c->pending && lt_long(v[ID], -1) == c->pending_id) {
            if (r->verify) {
                char move[LT_MOVE_LEN];
                long n = lt_long(v[N], -1);
                if (n >= 1 && lt_string(v[MOVE], move, sizeof move))
                    lt_remember(r, g, n, move);
                else
                    lt_error(r, "bad_ack_from_server");
            }
            lt_record_ack(r, c);
        } else {
            lt_error(r, "unexpected_ack");
        }
    } else if (lt_is(v[TYPE], "\"error\"") && lt_is(v[CODE], "\"elsewhere\"") && r->nservers > 1) {
        lt_elsewhere(r, c, text, len);
    } else if (lt_is(v[TYPE], "\"error\"")) {
        char code[32];
        lt_error(r, lt_string(v[CODE], code, sizeof code) ? code : "error");
        if (c->pending && lt_long(v[ID], -1) == c->pending_id) {
            c->pending = false;
            r->pending_count--;
            static const char sync[] = "{\"type\":\"sync\"}";
            c->answered_n = -1;
            lt_ws_send_text(r, c, sync, sizeof sync - 1);
        }
    } else if (lt_is(v[TYPE], "\"welcome\"")) {
        json_t *limits = v[LIMITS].p ? json_loadb(v[LIMITS].p, v[LIMITS].len, 0, NULL) : NULL;
        double mps = json_number_value(json_object_get(limits, "messages_per_second"));
        double burst = json_number_value(json_object_get(limits, "burst"));
        json_decref(limits);
        if (mps > 0) {
            c->tok_rate = 0.9 * mps;
            c->tok_burst = burst >= 2 ? 0.75 * burst : 1.0;
            if (c->tokens > c->tok_burst)
                c->tokens = c->tok_burst;
        }
        c->refill_us = cli_now_us();
        c->welcomed = true;
        if (++g->live_seats == 2 && !g->over && !g->dead) {
            g->live = true;
            r->live_games++;
            if (g->down) /* back after a kill: how long it could not be played */
                lt_gap(r, g, cli_now_us());
            /* desynchronised start: games do not all move on the same tick */
            g->next_us = cli_now_us() + (r->rate > 0 ? (uint64_t)(lt_unit(r) * 1e6 / r->rate) : 0);
            for (int s = 0; s < 2; s++)
                if (g->seat[s])
                    lt_try_send(r, g->seat[s], cli_now_us());
        }
    } /* presence, pong: nothing to do */
}

/* wslay buffers nothing (no_buffering): each seat assembles its messages in
 * one buffer it keeps, so reading a message allocates nothing. */
static void lt_frame_start_cb(wslay_event_context_ptr ctx,
                              const struct wslay_event_on_frame_recv_start_arg *arg, void *user)
{
    (void)ctx;
    lt_conn *c = user;
    c->in_ctrl = (arg->opcode & 0x8) != 0;
    if (!c->in_ctrl && arg->opcode != WSLAY_CONTINUATION_FRAME) {
        c->in_len = 0;
        c->in_text = arg->opcode == WSLAY_TEXT_FRAME;
    }
}

static void lt_frame_chunk_cb(wslay_event_context_ptr ctx,
                              const struct wslay_event_on_frame_recv_chunk_arg *arg, void *user)
{
    (void)ctx;
    lt_conn *c = user;
    if (c->in_ctrl)
        return;
    if (c->in_len + arg->data_length > c->in_cap) {
        size_t cap = c->in_cap ? c->in_cap : 16384;
        while (cap < c->in_len + arg->data_length)
            cap *= 2;
        char *p = realloc(c->in, cap);
        if (!p)
            lt_oom();
        c->in = p;
        c->in_cap = cap;
    }
    memcpy(c->in + c->in_len, arg->data, arg->data_length);
    c->in_len += arg->data_length;
}

static void lt_msg_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                      void *user)
{
    (void)ctx;
    lt_conn *c = user;
    if (arg->opcode == WSLAY_TEXT_FRAME || arg->opcode == WSLAY_BINARY_FRAME) {
        if (c->in_text)
            lt_message(c->run, c, c->in, c->in_len);
        else
            lt_error(c->run, "binary_from_server");
        c->in_len = 0;
    }
}

static const struct wslay_event_callbacks lt_callbacks = {
    .recv_callback = lt_recv_cb,
    .send_callback = lt_send_cb,
    .genmask_callback = lt_genmask_cb,
    .on_frame_recv_start_callback = lt_frame_start_cb,
    .on_frame_recv_chunk_callback = lt_frame_chunk_cb,
    .on_msg_recv_callback = lt_msg_cb,
};

/* After wslay read or wrote: close when it is done, else watch for what it
 * wants next. */
static void lt_ws_settle(lt_run *r, lt_conn *c)
{
    if (wslay_event_send(c->ctx) != 0) {
        if (c->closing || c->game->over)
            lt_conn_free(r, c);
        else
            lt_conn_fail(r, c, "ws_send");
        return;
    }
    bool rd = wslay_event_want_read(c->ctx), wr = wslay_event_want_write(c->ctx);
    if (!rd && !wr) {
        if (!c->closing && !c->game->over && !c->game->dead && r->phase != LT_FINISHED)
            lt_conn_fail(r, c, "closed_by_server");
        else
            lt_conn_free(r, c);
        return;
    }
    lt_set_events(r, c, (rd ? EPOLLIN : 0) | (wr ? EPOLLOUT : 0));
}

/* ---- HTTP phases ---- */

static void lt_http_step(lt_run *r, lt_conn *c, uint32_t ev)
{
    if (c->phase == LT_CONNECTING) {
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
        if (soerr) {
            lt_conn_fail(r, c, "connect");
            return;
        }
        c->phase = LT_REQUEST;
    }
    if (c->phase == LT_REQUEST) {
        while (c->req_off < c->req_len) {
            ssize_t n = send(c->fd, c->req + c->req_off, c->req_len - c->req_off, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return;
            if (n <= 0) {
                lt_conn_fail(r, c, "send");
                return;
            }
            c->req_off += (size_t)n;
        }
        c->phase = LT_RESPONSE;
        lt_set_events(r, c, EPOLLIN);
        return;
    }
    if (c->phase != LT_RESPONSE || !(ev & (EPOLLIN | EPOLLHUP | EPOLLERR)))
        return;
    bool eof = false;
    for (;;) {
        if (c->resp_cap - c->resp_len < 4096) {
            c->resp_cap = c->resp_cap ? 2 * c->resp_cap : 8192;
            if (c->resp_cap > (1u << 20)) {
                lt_conn_fail(r, c, "reply_too_large");
                return;
            }
            char *p = realloc(c->resp, c->resp_cap);
            if (!p)
                lt_oom();
            c->resp = p;
        }
        /* A seat reads only up to the end of the headers' packet; what
         * follows them is WebSocket data for wslay. */
        ssize_t n = recv(c->fd, c->resp + c->resp_len, c->resp_cap - c->resp_len - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            eof = true;
            break;
        }
        c->resp_len += (size_t)n;
        if (c->kind == LT_SEAT)
            break;
    }
    c->resp[c->resp_len] = '\0';
    char *end = strstr(c->resp, "\r\n\r\n");
    if (!end) {
        if (eof)
            lt_conn_fail(r, c, c->kind == LT_SEAT ? "ws_handshake" : "create_reply");
        return;
    }
    int status = 0;
    if (strncmp(c->resp, "HTTP/1.", 7) == 0 && c->resp_len > 12)
        status = (int)strtol(c->resp + 9, NULL, 10);
    size_t head = (size_t)(end + 4 - c->resp);
    if (c->kind == LT_CREATE) {
        const char *cl = lt_header(c->resp, end, "Content-Length");
        size_t want = cl ? (size_t)strtoul(cl, NULL, 10) : 0;
        if (cl && c->resp_len - head < want) {
            if (eof)
                lt_conn_fail(r, c, "create_reply");
            return;
        }
        if (!cl && !eof)
            return; /* until the server closes */
        lt_created(r, c, c->resp + head, c->resp_len - head, status);
        return;
    }
    if (status != 101) {
        lt_conn_fail(r, c, "ws_handshake");
        return;
    }
    c->extra_off = head;
    c->extra_end = c->resp_len;
    if (wslay_event_context_client_init(&c->ctx, &lt_callbacks, c) != 0)
        lt_oom();
    wslay_event_config_set_no_buffering(c->ctx, 1);
    wslay_event_config_set_max_recv_msg_length(c->ctx, 1u << 24);
    c->phase = LT_OPEN;
    r->opening--;
    c->settling = true;
    if (c->game->over || c->game->dead)
        lt_ws_close(r, c);
    int rc = wslay_event_recv(c->ctx);
    c->settling = false;
    if (rc != 0) {
        lt_conn_fail(r, c, "ws_recv");
        return;
    }
    lt_ws_settle(r, c);
}

static void lt_event(lt_run *r, lt_conn *c, uint32_t ev)
{
    if (c->phase != LT_OPEN) {
        lt_http_step(r, c, ev);
        return;
    }
    if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        c->settling = true;
        int rc = wslay_event_recv(c->ctx);
        c->settling = false;
        if (rc != 0) {
            if (c->closing || c->game->over || c->game->dead || r->phase == LT_FINISHED)
                lt_conn_free(r, c);
            else
                lt_conn_fail(r, c, "closed_by_server");
            return;
        }
    }
    lt_ws_settle(r, c);
}

/* ---- the run ---- */

static int lt_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int lt_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array, in milliseconds. */
static double lt_pct(const uint32_t *v, size_t n, double p)
{
    if (!n)
        return 0.0;
    size_t k = (size_t)ceil(p * (double)n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1] / 1000.0;
}

static double lt_cpu_s(const lt_proc *a, const lt_proc *b)
{
    long hz = sysconf(_SC_CLK_TCK);
    return (double)(b->cpu_ticks - a->cpu_ticks) / (double)(hz > 0 ? hz : 100);
}

static uint64_t lt_self_cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
           (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
}

static void lt_progress(lt_run *r, uint64_t now)
{
    lt_proc p = lt_proc_read(r->srv[0].pid);
    if (r->quiet) {
        r->proc_sec = p;
        r->nsec = 0;
        r->sec_moves = 0;
        return;
    }
    qsort(r->sec_lat, r->nsec, sizeof r->sec_lat[0], lt_cmp_u32);
    char cpu[64] = "";
    if (p.known && r->proc_sec.known)
        snprintf(cpu, sizeof cpu, "  server cpu %.0f%% rss %.0f MB", 100.0 * lt_cpu_s(&r->proc_sec, &p),
                 (double)p.rss_kb / 1024.0);
    const char *what = r->phase == LT_SETUP ? "setup" : r->phase == LT_WINDOW ? "run" : "drain";
    double t = r->phase == LT_SETUP ? (double)(now - r->start_us) / 1e6
                                    : (double)(now - r->window_us) / 1e6;
    fprintf(stderr,
            "%sloadtest %s %4.0f/%g s  live %d/%d  moves %ld/s  ack p50 %.1f p99 %.1f ms  "
            "errors %ld%s%s",
            r->progress_tty ? "\r\033[K" : "", what, t, r->seconds, r->live_games, r->games,
            r->sec_moves, lt_pct(r->sec_lat, r->nsec, 0.5),
            lt_pct(r->sec_lat, r->nsec, 0.99), r->errors, cpu, r->progress_tty ? "" : "\n");
    fflush(stderr);
    r->progress_drawn = r->progress_tty;
    r->proc_sec = p;
    r->nsec = 0;
    r->sec_moves = 0;
}

static void lt_fill(lt_run *r, uint64_t now)
{
    while (r->redial_len && r->opening < LT_OPENING &&
           r->redial[r->redial_head].due_us <= now) {
        lt_redial d = r->redial[r->redial_head];
        r->redial_head = (r->redial_head + 1) % r->redial_cap;
        r->redial_len--;
        if (!d.g->over && !d.g->dead && !d.g->seat[d.seat] && r->phase <= LT_WINDOW) {
            r->reconnects++;
            lt_open_seat(r, d.g, d.seat);
        }
        lt_game_unref(r, d.g);
    }
    while (r->wait_len && r->opening < LT_OPENING && r->phase <= LT_WINDOW) {
        int slot = r->waiting[r->wait_head];
        if (r->slots[slot].retry_us > now)
            break;
        r->wait_head = (r->wait_head + 1) % r->games;
        r->wait_len--;
        lt_create(r, slot);
    }
}

/* Games a kill took down that are not back when the window ends: their
 * gap so far counts (at least that long unplayable). */
static void lt_still_down(lt_run *r, uint64_t now)
{
    for (int i = 0; i < r->games; i++) {
        lt_game *g = r->slots[i].game;
        if (g && g->down)
            lt_gap(r, g, now);
    }
}

/* Starts spawned server k again (same database, same port); false when
 * it does not come up, which ends the window. */
static bool lt_restart(lt_run *r, int k, uint64_t since)
{
    char err[600];
    if (lt_spawn(r, k, true, err, sizeof err) != 0) {
        fprintf(stderr, "%stabula loadtest: after kill %d: %s\n", r->progress_drawn ? "\n" : "",
                r->kills, err);
        r->progress_drawn = false;
        lt_error(r, "restart_failed");
        lt_show_server_log(r, k);
        lt_stop_server(&r->srv[k]);
        r->stop = true; /* nothing more to measure: end the window */
        return false;
    }
    uint64_t took = cli_now_us() - since;
    if (took > r->restart_max_us)
        r->restart_max_us = took;
    return true;
}

/* --chaos-kills: SIGKILL a spawned server, read what it sent before it
 * died (acknowledgements included), drop every connection to it as the
 * kill's casualty, and let lt_fill reopen the seats.  One server: it is
 * started again at once (same database, same port), and nothing happens
 * meanwhile.  Several on one PostgreSQL database: they are killed in turn
 * (never the last one up: the kill waits for one being started), the
 * victim's games are taken over by the others (its advisory lock died
 * with it), whose addresses the seats know or learn from `elsewhere`, and
 * the victim is started again in the background (lt_starting). */
static void lt_kill(lt_run *r)
{
    int v = r->kills % r->nservers, up = 0;
    for (int k = 0; k < r->nservers; k++)
        up += r->srv[k].up;
    for (int k = 0; r->nservers > 1 && up < 2 && k < r->nservers; k++) {
        char err[600];
        if (r->srv[k].out_fd < 0)
            continue;
        if (lt_spawn_wait(r, k, true, err, sizeof err) != 1) {
            fprintf(stderr, "%stabula loadtest: after kill %d: %s\n",
                    r->progress_drawn ? "\n" : "", r->kills, err);
            r->progress_drawn = false;
            lt_error(r, "restart_failed");
            lt_show_server_log(r, k);
            lt_stop_server(&r->srv[k]);
            r->stop = true;
            return;
        }
        up++;
    }
    while (!r->srv[v].up)
        v = (v + 1) % r->nservers;
    lt_server *sv = &r->srv[v];
    kill(sv->pid, SIGKILL);
    int status;
    while (waitpid(sv->pid, &status, 0) < 0 && errno == EINTR)
        ;
    sv->spawned = false;
    sv->up = false;
    uint64_t t = cli_now_us();
    r->kills++;
    sv->kills++;
    if (v == 0) {
        r->proc0.known = false; /* CPU over the window spans several processes: unknown */
        r->proc_sec.known = false;
    }
    for (int i = 0; i < r->games; i++) {
        lt_game *g = r->slots[i].game;
        if (!g || g->over || g->dead)
            continue;
        bool hit = false;
        for (int s = 0; s < 2; s++)
            if (g->seat[s] && g->seat[s]->server == v) {
                hit = true;
                lt_heap_remove(r, g->seat[s]);
                g->seat[s]->has_move = false;
            }
        if (hit && g->live) {
            g->live = false;
            r->live_games--;
            if (!g->down) {
                g->down = true;
                g->down_us = t;
            }
        }
    }
    /* what the server wrote before it died is still to be read */
    for (lt_conn *c = r->conns, *next; c; c = next) {
        next = c->next;
        if (c->phase == LT_OPEN && c->server == v && c->gen < sv->kills)
            lt_event(r, c, EPOLLIN);
    }
    for (lt_conn *c = r->conns, *next; c; c = next) {
        next = c->next;
        if (c->server == v && c->gen < sv->kills)
            lt_casualty(r, c);
    }
    for (int i = 0; i < r->games; i++) {
        lt_game *g = r->slots[i].game;
        if (g && !g->over && !g->dead)
            g->live_seats = (g->seat[0] && g->seat[0]->welcomed && !g->seat[0]->closing) +
                            (g->seat[1] && g->seat[1]->welcomed && !g->seat[1]->closing);
    }
    if (r->nservers == 1) {
        lt_restart(r, 0, t);
    } else {
        char err[600];
        if (lt_spawn(r, v, false, err, sizeof err) != 0) {
            fprintf(stderr, "%stabula loadtest: after kill %d: %s\n",
                    r->progress_drawn ? "\n" : "", r->kills, err);
            r->progress_drawn = false;
            lt_error(r, "restart_failed");
            r->stop = true;
        }
        sv->start_us = t;
    }
}

/* Servers being started again in the background (--servers): up once they
 * listen; one that fails ends the window. */
static void lt_starting(lt_run *r)
{
    for (int k = 0; k < r->nservers; k++) {
        lt_server *sv = &r->srv[k];
        if (sv->out_fd < 0)
            continue;
        char err[600];
        int st = lt_spawn_wait(r, k, false, err, sizeof err);
        if (st == 1 && cli_now_us() - sv->start_us > r->restart_max_us)
            r->restart_max_us = cli_now_us() - sv->start_us;
        if (st < 0) {
            fprintf(stderr, "%stabula loadtest: after kill %d: %s\n",
                    r->progress_drawn ? "\n" : "", r->kills, err);
            r->progress_drawn = false;
            lt_error(r, "restart_failed");
            lt_show_server_log(r, k);
            lt_stop_server(sv);
            r->stop = true;
        }
    }
}

static void lt_loop(lt_run *r)
{
    struct epoll_event evs[256];
    r->start_us = cli_now_us();
    r->next_tick_us = r->start_us + 1000000u;
    for (int i = 0; i < r->games; i++)
        lt_slot_wait(r, i, 0);
    while (r->phase != LT_FINISHED) {
        if (r->nservers > 1)
            lt_starting(r);
        uint64_t now = cli_now_us();
        lt_fill(r, now);
        uint64_t wake = r->next_tick_us;
        if (r->heap_len && r->heap[0]->due_us < wake)
            wake = r->heap[0]->due_us;
        if (r->phase == LT_WINDOW && r->end_us < wake)
            wake = r->end_us;
        if (r->phase == LT_WINDOW && r->kills < r->chaos && r->kill_at[r->kills] < wake)
            wake = r->kill_at[r->kills];
        for (int k = 0; k < r->nservers; k++)
            if (r->srv[k].out_fd >= 0 && now + 20000u < wake)
                wake = now + 20000u; /* a server coming up: look every 20 ms */
        if (r->redial_len && r->opening < LT_OPENING &&
            r->redial[r->redial_head].due_us < wake)
            wake = r->redial[r->redial_head].due_us;
        if (r->wait_len && r->opening < LT_OPENING) {
            uint64_t t = r->slots[r->waiting[r->wait_head]].retry_us;
            if (t < wake)
                wake = t;
        }
        int timeout = wake > now ? (int)((wake - now + 999) / 1000) : 0;
        int n = epoll_wait(r->epfd, evs, 256, timeout);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++)
            lt_event(r, evs[i].data.ptr, evs[i].events);
        now = cli_now_us();
        while (r->heap_len && r->heap[0]->due_us <= now) {
            lt_conn *c = r->heap[0];
            lt_heap_remove(r, c);
            c->settling = true;
            lt_try_send(r, c, now);
            c->settling = false;
            if (c->phase == LT_OPEN)
                lt_ws_settle(r, c);
        }
        if ((lt_interrupted || r->stop) && r->phase <= LT_WINDOW) {
            if (r->phase == LT_SETUP)
                r->window_us = now;
            lt_still_down(r, now);
            r->end_us = now;
            r->phase = LT_DRAIN;
            r->drain_us = now + LT_DRAIN_US;
        }
        if (r->phase == LT_SETUP &&
            (r->live_games == r->games || now - r->start_us > LT_SETUP_US(r->games))) {
            if (r->live_games < r->games)
                lt_error(r, "setup_timeout");
            r->setup_s = (double)(now - r->start_us) / 1e6;
            r->phase = LT_WINDOW;
            r->window_us = now;
            r->end_us = now + (uint64_t)(r->seconds * 1e6);
            /* kill moments, at random in the window's first 80% (so that the
             * last recovery is measured too) */
            for (int i = 0; i < r->chaos; i++)
                r->kill_at[i] = now + (uint64_t)(lt_unit(r) * 0.8 * r->seconds * 1e6);
            if (r->chaos > 0) /* no kills: no list (qsort must not see NULL) */
                qsort(r->kill_at, (size_t)r->chaos, sizeof r->kill_at[0], lt_cmp_u64);
            r->proc0 = lt_proc_read(r->srv[0].pid);
            r->self0 = lt_proc_read(getpid());
            r->client_cpu0 = lt_self_cpu_us();
            r->nsec = 0;
            r->sec_moves = 0;
        }
        if (r->phase == LT_WINDOW && r->kills < r->chaos && now >= r->kill_at[r->kills] &&
            now < r->end_us && !lt_interrupted) {
            lt_kill(r);
            now = cli_now_us();
        }
        if (r->phase == LT_WINDOW && now >= r->end_us) {
            lt_still_down(r, now);
            r->phase = LT_DRAIN;
            r->drain_us = now + LT_DRAIN_US;
            r->proc1 = lt_proc_read(r->srv[0].pid);
            r->self1 = lt_proc_read(getpid());
        }
        if (r->phase == LT_DRAIN && (r->pending_count == 0 || now >= r->drain_us)) {
            if (!r->proc1.known) {
                r->proc1 = lt_proc_read(r->srv[0].pid);
                r->self1 = lt_proc_read(getpid());
            }
            r->phase = LT_FINISHED;
        }
        if (now >= r->next_tick_us) {
            r->next_tick_us += 1000000u;
            if (r->next_tick_us <= now)
                r->next_tick_us = now + 1000000u;
            for (lt_conn *c = r->conns; c; c = c->next) {
                if (c->pending && now > c->sent_us + LT_ACK_TIMEOUT_US) {
                    lt_error(r, "ack_timeout");
                    c->pending = false;
                    r->pending_count--;
                    c->answered_n = -1;
                    static const char sync[] = "{\"type\":\"sync\"}";
                    lt_ws_send_text(r, c, sync, sizeof sync - 1);
                }
            }
            if (r->phase != LT_FINISHED)
                lt_progress(r, now);
        }
    }
    /* decisions still unanswered after the drain */
    for (lt_conn *c = r->conns; c; c = c->next)
        if (c->pending) {
            lt_error(r, "ack_timeout");
            c->pending = false;
            r->pending_count--;
        }
    if (r->progress_drawn)
        fprintf(stderr, "\n");
    /* close every seat politely, then everything */
    for (lt_conn *c = r->conns; c; c = c->next)
        if (c->phase == LT_OPEN) {
            lt_ws_close(r, c);
            wslay_event_send(c->ctx);
        }
    while (r->conns)
        lt_conn_free(r, r->conns);
    while (r->redial_len) {
        lt_game_unref(r, r->redial[r->redial_head].g);
        r->redial_head = (r->redial_head + 1) % r->redial_cap;
        r->redial_len--;
    }
    for (int i = 0; i < r->games; i++)
        if (r->slots[i].game) {
            lt_game *g = r->slots[i].game;
            r->slots[i].game = NULL;
            lt_game_unref(r, g);
        }
}

/* A blocking GET (Connection: close) with 10 s timeouts: the status, the
 * body in *body (malloc'd, NUL-terminated) and its length; -1 on a
 * connection failure. */
static int lt_get(const lt_server *r, const char *path, char **body, size_t *blen)
{
    *body = NULL;
    *blen = 0;
    int fd = socket(r->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&r->addr, r->addrlen) != 0) {
        close(fd);
        return -1;
    }
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                     path, r->host);
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        close(fd);
        return -1;
    }
    size_t len = 0, cap = 65536;
    char *buf = lt_xmalloc(cap);
    for (;;) {
        if (cap - len < 4096) {
            char *p = realloc(buf, cap *= 2);
            if (!p)
                lt_oom();
            buf = p;
        }
        ssize_t got = recv(fd, buf + len, cap - len - 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            close(fd);
            return -1;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    if (!end || strncmp(buf, "HTTP/1.", 7) != 0 || len < 12) {
        free(buf);
        return -1;
    }
    int status = (int)strtol(buf + 9, NULL, 10);
    size_t head = (size_t)(end + 4 - buf);
    memmove(buf, buf + head, len - head + 1);
    *body = buf;
    *blen = len - head;
    return status;
}

/* --verify, once the run is over: every acknowledged decision must be in
 * its game's stored log (GET /api/games/ID), with its number and text. */
static void lt_verify(lt_run *r)
{
    int shown = 0, at = 0;
    while (r->spawn && at + 1 < r->nservers && !r->srv[at].up)
        at++; /* a server that runs: they all read the same database */
    for (int i = 0; i < r->nvgames && !lt_interrupted; i++) {
        lt_vgame *v = &r->vgames[i];
        if (!v->count)
            continue;
        char path[96], *body;
        size_t blen;
        snprintf(path, sizeof path, "/api/games/%s", v->id);
        int status = lt_get(&r->srv[at], path, &body, &blen);
        json_t *j = status == 200 ? json_loadb(body, blen, 0, NULL) : NULL;
        free(body);
        json_t *log = json_object_get(j, "log");
        if (status != 200 && status != 404) {
            lt_error(r, status < 0 ? "verify_connect" : "verify_http");
            json_decref(j);
            continue;
        }
        if (status == 200 && !json_is_array(log)) {
            lt_error(r, "verify_reply");
            json_decref(j);
            continue;
        }
        bool game_lost = false;
        for (int k = 0; k < v->count; k++) {
            const lt_vdec *d = &v->d[k];
            json_t *e = json_array_get(log, (size_t)(d->n - 1));
            const char *stored = json_string_value(json_object_get(e, "move"));
            if (e && json_integer_value(json_object_get(e, "n")) != d->n)
                stored = NULL; /* the log is 1, 2, 3 … in order */
            r->verified++;
            if (stored && strcmp(stored, d->move) == 0)
                continue;
            r->lost++;
            game_lost = true;
            if (shown++ < 5)
                fprintf(stderr,
                        "tabula loadtest: lost: game %s, decision %d '%s' was acknowledged; "
                        "the server has %s%s%s\n",
                        v->id, d->n, d->move, stored ? "'" : "",
                        stored ? stored : (status == 404 ? "no such game" : "no such decision"),
                        stored ? "'" : "");
        }
        if (game_lost)
            r->lost_games++;
        json_decref(j);
    }
}

static void lt_report(lt_run *r, int server_exit)
{
    if (r->nlat > 0)
        qsort(r->lat, r->nlat, sizeof r->lat[0], lt_cmp_u32);
    double window = (double)(r->end_us - r->window_us) / 1e6;
    if (window <= 0)
        window = 1e-6;
    double mps = (double)r->moves / window;
    double p50 = lt_pct(r->lat, r->nlat, 0.50), p95 = lt_pct(r->lat, r->nlat, 0.95),
           p99 = lt_pct(r->lat, r->nlat, 0.99), mx = lt_pct(r->lat, r->nlat, 1.0);
    bool cpu_known = r->proc0.known && r->proc1.known;
    double cpu = cpu_known ? lt_cpu_s(&r->proc0, &r->proc1) : 0;
    double client_cpu = (double)(lt_self_cpu_us() - r->client_cpu0) / 1e6;
    double srun = 0, swait = 0, crun = 0, cwait = 0;
    bool sthread = cpu_known && lt_busiest(&r->proc0, &r->proc1, window, &srun, &swait);
    bool cthread = lt_busiest(&r->self0, &r->self1, window, &crun, &cwait);
    if (r->ngaps > 0) /* no kill, no gap list */
        qsort(r->gaps, r->ngaps, sizeof r->gaps[0], lt_cmp_u32);
    double gap50 = lt_pct(r->gaps, r->ngaps, 0.50), gapmax = lt_pct(r->gaps, r->ngaps, 1.0);
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) < 0)
        load[0] = load[1] = load[2] = -1;
    if (r->json) {
        json_t *j = json_object();
        json_object_set_new(j, "game", json_string(r->game_name));
        json_object_set_new(j, "games", json_integer(r->games));
        json_object_set_new(j, "rate", json_real(r->rate));
        json_object_set_new(j, "seconds", json_real(window));
        json_object_set_new(j, "server", json_string(r->spawn ? "spawned" : r->url));
        json_object_set_new(j, "setup_s", json_real(r->setup_s));
        json_object_set_new(j, "moves", json_integer(r->moves));
        json_object_set_new(j, "warmup_moves", json_integer(r->warmup_moves));
        json_object_set_new(j, "moves_per_s", json_real(round(mps * 10) / 10));
        json_object_set_new(j, "p50_ms", json_real(p50));
        json_object_set_new(j, "p95_ms", json_real(p95));
        json_object_set_new(j, "p99_ms", json_real(p99));
        json_object_set_new(j, "max_ms", json_real(mx));
        json_object_set_new(j, "errors", json_integer(r->errors));
        json_t *codes = json_object();
        for (int i = 0; i < r->nerrcodes; i++)
            json_object_set_new(codes, r->errcodes[i].code, json_integer(r->errcodes[i].count));
        json_object_set_new(j, "error_codes", codes);
        json_object_set_new(j, "games_started", json_integer(r->started));
        json_object_set_new(j, "games_finished", json_integer(r->finished));
        json_object_set_new(j, "server_pid",
                            r->srv[0].pid > 0 ? json_integer(r->srv[0].pid) : json_null());
        json_object_set_new(j, "server_cpu_s", cpu_known ? json_real(round(cpu * 100) / 100)
                                                         : json_null());
        json_object_set_new(j, "server_cpu_percent",
                            cpu_known ? json_real(round(1000 * cpu / window) / 10) : json_null());
        json_object_set_new(j, "server_rss_mb",
                            r->proc1.known ? json_real(round((double)r->proc1.rss_kb / 102.4) / 10)
                                           : json_null());
        json_object_set_new(j, "server_peak_rss_mb",
                            r->proc1.known ? json_real(round((double)r->proc1.hwm_kb / 102.4) / 10)
                                           : json_null());
        json_object_set_new(j, "server_busiest_thread_cpu_percent",
                            sthread ? json_real(round(srun * 10) / 10) : json_null());
        json_object_set_new(j, "server_busiest_thread_wait_percent",
                            sthread ? json_real(round(swait * 10) / 10) : json_null());
        json_object_set_new(j, "client_cpu_s", json_real(round(client_cpu * 100) / 100));
        json_object_set_new(j, "client_wait_percent",
                            cthread ? json_real(round(cwait * 10) / 10) : json_null());
        json_object_set_new(j, "server_exit", json_integer(server_exit));
        json_object_set_new(j, "verify", json_boolean(r->verify));
        json_object_set_new(j, "acked", json_integer(r->acked));
        json_object_set_new(j, "verified", r->verify ? json_integer(r->verified) : json_null());
        json_object_set_new(j, "lost", r->verify ? json_integer(r->lost) : json_null());
        json_object_set_new(j, "lost_games", r->verify ? json_integer(r->lost_games) : json_null());
        json_object_set_new(j, "kills", json_integer(r->kills));
        json_object_set_new(j, "servers", json_integer(r->nservers));
        json_object_set_new(j, "reconnects", json_integer(r->reconnects));
        json_object_set_new(j, "elsewhere", json_integer(r->elsewhere));
        json_object_set_new(j, "unacked_at_kill", json_integer(r->unacked_at_kill));
        json_object_set_new(j, "unplayable_games", json_integer((json_int_t)r->ngaps));
        json_object_set_new(j, "unplayable_p50_ms", r->ngaps ? json_real(gap50) : json_null());
        json_object_set_new(j, "unplayable_max_ms", r->ngaps ? json_real(gapmax) : json_null());
        json_object_set_new(j, "restart_max_ms",
                            r->kills ? json_real(round((double)r->restart_max_us / 100) / 10)
                                     : json_null());
        json_t *la = json_array();
        for (int i = 0; i < 3; i++)
            json_array_append_new(la, json_real(round(load[i] * 100) / 100));
        json_object_set_new(j, "load_average", la);
        char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
        printf("%s\n", text);
        free(text);
        json_decref(j);
        return;
    }
    printf("tabula loadtest: %s, %d games, %g decisions/s/game%s, %.1f s measured "
           "(setup %.1f s), server %s\n",
           r->game_name, r->games, r->rate, r->rate > 0 ? "" : " (flat out)", window, r->setup_s,
           r->spawn ? "spawned" : r->url);
    printf("moves:   %ld in the window = %.1f/s (%ld during setup); games started %ld, "
           "finished %ld\n",
           r->moves, mps, r->warmup_moves, r->started, r->finished);
    printf("ack:     p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms (%zu decisions)\n", p50,
           p95, p99, mx, r->nlat);
    printf("errors:  %ld", r->errors);
    for (int i = 0; i < r->nerrcodes; i++)
        printf("%s%s %ld", i ? ", " : " (", r->errcodes[i].code, r->errcodes[i].count);
    printf("%s\n", r->nerrcodes ? ")" : "");
    if (cpu_known)
        printf("server:  pid %ld, CPU %.2f s (%.0f%% of one core), RSS %.1f MB (peak %.1f MB)\n",
               (long)r->srv[0].pid, cpu, 100 * cpu / window, (double)r->proc1.rss_kb / 1024.0,
               (double)r->proc1.hwm_kb / 1024.0);
    else if (r->kills && r->proc1.known)
        printf("server:  pid %ld (after %d kills): CPU not measured across processes, RSS %.1f "
               "MB (peak %.1f MB)\n",
               (long)r->srv[0].pid, r->kills, (double)r->proc1.rss_kb / 1024.0,
               (double)r->proc1.hwm_kb / 1024.0);
    else if (r->srv[0].pid > 0)
        printf("server:  pid %ld: CPU and RSS unavailable (it ended, or the window never began)\n",
               (long)r->srv[0].pid);
    else
        printf("server:  CPU and RSS unavailable (its process was not found on this machine)\n");
    if (sthread)
        printf("         its busiest thread ran %.0f%% of the time and waited for a CPU %.0f%%\n",
               srun, swait);
    printf("client:  CPU %.2f s", client_cpu);
    if (cthread)
        printf(", waited for a CPU %.0f%% of the time", cwait);
    printf("; load average %.2f %.2f %.2f\n", load[0], load[1], load[2]);
    if (r->chaos)
        printf("kills:   %d; a game could not be played for at most %.0f ms after a kill "
               "(p50 %.0f ms over %zu games); restart at most %.0f ms; %ld reconnections; "
               "%ld decisions in flight at a kill (never acknowledged)\n",
               r->kills, gapmax, gap50, r->ngaps, (double)r->restart_max_us / 1000, r->reconnects,
               r->unacked_at_kill);
    if (r->nservers > 1)
        printf("servers: %d on one database; seats sent `elsewhere` and followed: %ld\n",
               r->nservers, r->elsewhere);
    if (r->verify)
        printf("verify:  %ld of %ld acknowledged decisions read back from the server: %ld lost"
               "%s\n",
               r->verified, r->acked, r->lost, r->lost ? " (examples above)" : "");
    if (server_exit > 0)
        printf("the server exited with status %d\n", server_exit);
}

static int lt_help(void)
{
    printf("usage: tabula loadtest [--url URL | --spawn [--db FILE|URL]] [--game GAME]\n"
           "                       [--games N] [--rate R] [--seconds S] [--seed S]\n"
           "                       [--verify] [--chaos-kills K] [--servers N] [--json] [--quiet]\n\n"
           "Keeps N two-seat games live on a Tabula server, each played by two WebSocket\n"
           "clients choosing random legal decisions, and measures it (docs/server.md).\n"
           "  --spawn       start `tabula serve` on a free loopback port and a temporary\n"
           "                SQLite database, stop it and delete it at the end (the default)\n"
           "  --db URL      with --spawn: this database instead (e.g. postgresql://…@127.0.0.1/…)\n"
           "  --url URL     a running server, http://127.0.0.1:PORT/ (loopback only:\n"
           "                127.0.0.0/8, localhost or [::1])\n"
           "  --game GAME   clans (default), arkadia or khronos\n"
           "  --games N     concurrent games, 1 to %d (default 100); finished games are\n"
           "                replaced by new ones\n"
           "  --rate R      decisions per second per game (default 2); 0 = flat out (each\n"
           "                seat still keeps under the server's per-connection rate limit)\n"
           "  --seconds S   the measured window (default 10), after all N games are live\n"
           "  --seed S      seed of the random choices\n"
           "  --verify      remember every acknowledged decision and, at the end, read\n"
           "                every game back from the server: `lost` counts decisions\n"
           "                acknowledged but missing or different there\n"
           "  --chaos-kills K  with --spawn: kill the server with SIGKILL at K random\n"
           "                moments of the window's first 80%% and start it again on the\n"
           "                same database and port; the seats reconnect and play on\n"
           "                (implies --verify; reports kills, lost, the longest time a\n"
           "                game could not be played after a kill)\n"
           "  --servers N   with --spawn and a PostgreSQL --db: N servers (up to %d) on that\n"
           "                database; games are created on each in turn, seats connect to\n"
           "                any and follow `elsewhere`; kills take them in turn, and the\n"
           "                one killed starts again at once while the others play on\n"
           "  --json        one JSON object on stdout: games, moves_per_s, p50_ms, p95_ms,\n"
           "                p99_ms, max_ms, errors, error_codes, server_cpu_s, server_rss_mb,\n"
           "                lost, kills, unplayable_p50_ms, unplayable_max_ms …\n"
           "  --quiet       no progress line (otherwise once a second on stderr)\n"
           "Latency is from a decision sent to its `ack` (sent after the decision is stored).\n"
           "Exit status: 0; 1 when any error occurred, a decision was lost or the server\n"
           "could not be started;\n"
           "130 when interrupted (Ctrl-C), after the report of what was measured.\n",
           LT_MAX_GAMES, LT_SERVERS_MAX);
    return 0;
}

int cmd_loadtest(int argc, char **argv)
{
    lt_run run = {.games = 100, .rate = 2.0, .seconds = 10.0, .game_name = "clans", .nservers = 1};
    lt_run *r = &run;
    bool seeded = false, url_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return lt_help();
        if (strcmp(a, "--json") == 0) {
            r->json = true;
            continue;
        }
        if (strcmp(a, "--quiet") == 0) {
            r->quiet = true;
            continue;
        }
        if (strcmp(a, "--spawn") == 0) {
            r->spawn = true;
            continue;
        }
        if (strcmp(a, "--verify") == 0) {
            r->verify = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return cli_usage("loadtest", "unexpected argument '%s'", a);
        if (strcmp(a, "--url") != 0 && strcmp(a, "--db") != 0 && strcmp(a, "--game") != 0 &&
            strcmp(a, "--games") != 0 && strcmp(a, "--rate") != 0 &&
            strcmp(a, "--seconds") != 0 && strcmp(a, "--seed") != 0 &&
            strcmp(a, "--chaos-kills") != 0 && strcmp(a, "--servers") != 0)
            return cli_usage("loadtest", "unknown option '%s'", a);
        if (i + 1 >= argc)
            return cli_usage("loadtest", "'%s' needs a value", a);
        const char *v = argv[++i];
        long n;
        if (strcmp(a, "--url") == 0) {
            r->url = v;
            url_given = true;
        } else if (strcmp(a, "--db") == 0) {
            r->db = v;
        } else if (strcmp(a, "--game") == 0) {
            const tb_game *g = cli_game_arg("loadtest", v);
            if (!g)
                return 2;
            if (tb_game_min_players(g) > 2)
                return cli_usage("loadtest", "game '%s' cannot be played by two", v);
            r->game_name = tb_game_name(g);
        } else if (strcmp(a, "--games") == 0) {
            if (cli_parse_int(v, 1, LT_MAX_GAMES, &n))
                return cli_usage("loadtest", "--games must be 1 to %d, got '%s'", LT_MAX_GAMES, v);
            r->games = (int)n;
        } else if (strcmp(a, "--rate") == 0) {
            if (!lt_parse_double(v, 0, 1000, &r->rate))
                return cli_usage("loadtest", "--rate must be 0 to 1000 decisions per second, "
                                             "got '%s'", v);
        } else if (strcmp(a, "--seconds") == 0) {
            if (!lt_parse_double(v, 0.1, 3600, &r->seconds))
                return cli_usage("loadtest", "--seconds must be 0.1 to 3600, got '%s'", v);
        } else if (strcmp(a, "--seed") == 0) {
            if (cli_parse_u64(v, &r->seed))
                return cli_usage("loadtest", "--seed must be a number, got '%s'", v);
            seeded = true;
        } else if (strcmp(a, "--servers") == 0) {
            if (cli_parse_int(v, 1, LT_SERVERS_MAX, &n))
                return cli_usage("loadtest", "--servers must be 1 to %d, got '%s'", LT_SERVERS_MAX,
                                 v);
            r->nservers = (int)n;
        } else if (strcmp(a, "--chaos-kills") == 0) {
            if (cli_parse_int(v, 0, 10000, &n))
                return cli_usage("loadtest", "--chaos-kills must be 0 to 10000, got '%s'", v);
            r->chaos = (int)n;
        }
    }
    if (url_given && r->spawn)
        return cli_usage("loadtest", "give --url or --spawn, not both");
    if (url_given && r->chaos)
        return cli_usage("loadtest", "--chaos-kills needs --spawn (it kills and restarts the "
                                     "server it started)");
    if (r->nservers > 1 && (url_given || !r->db || !strstr(r->db, "://")))
        return cli_usage("loadtest", "--servers needs --spawn and a PostgreSQL --db (the servers "
                                     "share it)");
    if (url_given && r->db)
        return cli_usage("loadtest", "--db goes with --spawn (a running server has its own)");
    char why[300];
    if (url_given && lt_parse_url(&r->srv[0], r->url, why, sizeof why))
        return cli_usage("loadtest", "%s", why);
    if (!url_given)
        r->spawn = true;
    if (r->db && !lt_db_is_local(r->db))
        return cli_usage("loadtest", "--db must be a file or a database on a loopback host");
    r->rng = (seeded ? r->seed : cli_random_seed() ^ cli_now_us()) * 2 + 1;
    if (r->chaos) {
        r->verify = true;
        r->kill_at = lt_xmalloc((size_t)r->chaos * sizeof *r->kill_at);
    }

    /* room for every socket, in this process and a spawned server */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct sigaction sa = {0};
    sa.sa_handler = lt_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int rc = 0, server_exit = 0;
    char err[600];
    int bad = -1;
    if (r->spawn) {
        for (int k = 0; k < r->nservers; k++)
            r->srv[k].out_fd = -1;
        for (int k = 0; k < r->nservers; k++)
            if (lt_spawn(r, k, true, err, sizeof err) != 0) {
                fprintf(stderr, "tabula loadtest: %s\n", err);
                for (int i = 0; i <= k; i++)
                    lt_stop_server(&r->srv[i]);
                if (r->tmpdir[0])
                    lt_rmdir(r->tmpdir);
                free(r->kill_at);
                return 1;
            }
    } else {
        lt_server *sv = &r->srv[0];
        sv->pid = lt_find_listener(ntohs(sv->addr.ss_family == AF_INET6
                                             ? ((struct sockaddr_in6 *)&sv->addr)->sin6_port
                                             : ((struct sockaddr_in *)&sv->addr)->sin_port));
    }
    for (int k = 0; k < r->nservers && bad < 0; k++)
        if (lt_health(&r->srv[k]) != 0)
            bad = k;
    if (bad >= 0) {
        fprintf(stderr, "tabula loadtest: no Tabula server answers at http://%s/\n",
                r->srv[bad].host);
        rc = 1;
    } else {
        r->epfd = epoll_create1(EPOLL_CLOEXEC);
        r->slots = calloc((size_t)r->games, sizeof *r->slots);
        r->waiting = calloc((size_t)r->games, sizeof *r->waiting);
        if (r->epfd < 0 || !r->slots || !r->waiting) {
            fprintf(stderr, "tabula loadtest: %s\n", strerror(errno));
            rc = 1;
        } else {
            r->progress_tty = isatty(2);
            lt_loop(r);
            bool up = !r->spawn;
            for (int k = 0; k < r->nservers; k++)
                up = up || r->srv[k].up;
            if (r->verify && up)
                lt_verify(r);
            for (int k = 0; k < r->nservers; k++) {
                if (!r->srv[k].spawned)
                    continue;
                int st = lt_stop_server(&r->srv[k]);
                if (st != 0) {
                    lt_error(r, "server_exit");
                    lt_show_server_log(r, k);
                    if (!server_exit)
                        server_exit = st;
                }
            }
            lt_report(r, server_exit);
            rc = r->errors || r->lost ? 1 : 0;
        }
        if (r->epfd >= 0)
            close(r->epfd);
        free(r->slots);
        free(r->waiting);
        free(r->heap);
        free(r->lat);
        free(r->gaps);
        free(r->redial);
        for (int i = 0; i < r->nvgames; i++) {
            for (int k = 0; k < r->vgames[i].count; k++)
                free(r->vgames[i].d[k].move);
            free(r->vgames[i].d);
        }
        free(r->vgames);
    }
    for (int k = 0; k < r->nservers; k++)
        lt_stop_server(&r->srv[k]);
    free(r->kill_at);
    if (r->tmpdir[0])
        lt_rmdir(r->tmpdir);
    if (lt_interrupted && rc == 0)
        rc = 130;
    return rc;
}
