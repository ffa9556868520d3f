/*
 * serve.c — `tabula serve`: runs the game server (src/server) until SIGINT
 * or SIGTERM, then stops it cleanly.
 *
 * Invariants: the signals are blocked before any server thread starts, so
 * only this thread receives them (sigwait); the URL line is printed and
 * flushed only once the server listens and every unfinished game resumed,
 * so a script may wait for it.
 */
#include "cli.h"
#include "server/server.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int serve_help(void)
{
    printf("usage: tabula serve [--host ADDR] [--port N] [--db FILE|URL] [--web DIR]\n"
           "                    [--ai-delay-ms MS] [--ai-step-ms MS] [--workers N]\n"
           "                    [--sync full|normal]\n"
           "                    [--max-games N] [--lease-seconds N] [--advertise URL]\n"
           "                    [--request-timeout S] [--idle-timeout S] [--max-per-address N]\n"
           "                    [--data-dir DIR] [--unstarted-expiry DURATION]\n"
           "                    [--absent-after S] [--behind-tls] [--smtp URL]\n"
           "                    [--mail-from ADDRESS] [--public-url URL] [--turn-email-after S]\n"
           "                    [--quiet]\n\n"
           "Serves the browser UI and the game API (docs/http-api.md) until interrupted.\n"
           "  --host ADDR       address to listen on (default 127.0.0.1; :: or 0.0.0.0 for all)\n"
           "  --port N          port (default 8080; 0 picks a free one)\n"
           "  --db FILE         SQLite database (default tabula.db); unfinished games resume\n"
           "  --db URL          PostgreSQL instead (postgresql://USER:PASSWORD@HOST:PORT/DB),\n"
           "                    which several servers may share (docs/server.md)\n"
           "  --web DIR         the static UI (default: the web/ folder of the source tree)\n"
           "  --data-dir DIR    offer the boards DIR/GAME/NAME.txt (Khronos, Arkadia) by name,\n"
           "                    besides the built-in ones (docs/data-format.md); a bad file\n"
           "                    stops the server before it starts, naming file and line\n"
           "  --ai-delay-ms MS  pause before a computer player's turn (default 700)\n"
           "  --ai-step-ms MS   pause between the decisions of one computer turn (default 0:\n"
           "                    the pages play a turn out at each player's pace)\n"
           "  --workers N       AI worker threads (default: one per CPU, at least 2)\n"
           "  --sync full       fsync every decision (default normal: survives a crash of\n"
           "                    the server process; full also survives power loss)\n"
           "  --max-games N     running games before new ones are refused (default 50000)\n"
           "  --lease-seconds N PostgreSQL: a game moves to another server when its server\n"
           "                    is silent this long (default 10)\n"
           "  --advertise URL   PostgreSQL: where the other servers send this one's players\n"
           "                    (default http://HOST:PORT/)\n"
           "  --request-timeout S  a client must send a whole request (headers and body)\n"
           "                    within S seconds, or it is disconnected (default 10)\n"
           "  --idle-timeout S  an HTTP connection idle this long is closed (default 60;\n"
           "                    game WebSockets are not affected)\n"
           "  --max-per-address N  open connections from one client address, WebSockets\n"
           "                    included (default 256; 0: no limit)\n"
           "  --unstarted-expiry DURATION  a game nobody has made a decision in is deleted\n"
           "                    this long after its creation: 90s, 30m, 12h, 7d (default 7d;\n"
           "                    0 or off: never)\n"
           "  --absent-after S  at an open table, a person whose turn waits S seconds is\n"
           "                    replaced by the computer until they are back (default 180;\n"
           "                    0: never; a game may set its own)\n"
           "  --behind-tls      the server sits behind a TLS proxy (https): session cookies\n"
           "                    are sent Secure, only https origins count as this server's,\n"
           "                    and a client's address is the last X-Forwarded-For entry\n"
           "  --smtp URL        send e-mail through this relay: smtp://HOST:PORT or\n"
           "                    smtps://HOST:PORT (default: none, no e-mail is sent): address\n"
           "                    confirmations, and turn e-mails of slow games to players\n"
           "                    with an account (docs/server.md)\n"
           "  --mail-from ADDRESS  the sender of those e-mails (default tabula@localhost)\n"
           "  --public-url URL  where links in e-mails point, e.g. https://games.example.org/\n"
           "                    (default: --advertise, else http://HOST:PORT/)\n"
           "  --turn-email-after S  e-mail a player whose turn waits S seconds in a game\n"
           "                    they do not have open (default 600; 0: never)\n"
           "  --quiet           no log lines\n");
    return 0;
}

/* "90", "90s", "30m", "12h", "7d" in seconds; "off" is 0; -1 when not a
 * duration (at most a year). */
static long serve_duration(const char *v)
{
    if (strcmp(v, "off") == 0)
        return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || n < 0)
        return -1;
    long unit = *end == '\0' || strcmp(end, "s") == 0 ? 1
                : strcmp(end, "m") == 0               ? 60
                : strcmp(end, "h") == 0               ? 3600
                : strcmp(end, "d") == 0               ? 86400
                                                      : -1;
    if (unit < 0 || n > 366L * 86400 / unit)
        return -1;
    return n * unit;
}

int cmd_serve(int argc, char **argv)
{
    srv_config cfg = {
        .host = "127.0.0.1", .port = 8080, .db_path = "tabula.db", .ai_delay_ms = 700,
    };
    const char *data_dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return serve_help();
        if (strcmp(a, "--quiet") == 0) {
            cfg.quiet = true;
            continue;
        }
        if (strcmp(a, "--behind-tls") == 0) {
            cfg.behind_tls = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return cli_usage("serve", "unexpected argument '%s'", a);
        if (i + 1 >= argc)
            return cli_usage("serve", "'%s' needs a value or is unknown", a);
        const char *v = argv[++i];
        long n;
        if (strcmp(a, "--host") == 0) {
            cfg.host = v;
        } else if (strcmp(a, "--data-dir") == 0) {
            data_dir = v;
        } else if (strcmp(a, "--port") == 0) {
            if (cli_parse_int(v, 0, 65535, &n))
                return cli_usage("serve", "--port must be 0 to 65535, got '%s'", v);
            cfg.port = (int)n;
        } else if (strcmp(a, "--db") == 0) {
            cfg.db_path = v;
        } else if (strcmp(a, "--web") == 0) {
            cfg.web_dir = v;
        } else if (strcmp(a, "--ai-delay-ms") == 0) {
            if (cli_parse_int(v, 0, 60000, &n))
                return cli_usage("serve", "--ai-delay-ms must be 0 to 60000, got '%s'", v);
            cfg.ai_delay_ms = (int)n;
        } else if (strcmp(a, "--ai-step-ms") == 0) {
            if (cli_parse_int(v, 0, 60000, &n))
                return cli_usage("serve", "--ai-step-ms must be 0 to 60000, got '%s'", v);
            cfg.ai_step_ms = (int)n;
        } else if (strcmp(a, "--workers") == 0) {
            if (cli_parse_int(v, 1, 256, &n))
                return cli_usage("serve", "--workers must be 1 to 256, got '%s'", v);
            cfg.workers = (int)n;
        } else if (strcmp(a, "--max-games") == 0) {
            if (cli_parse_int(v, 1, 10000000, &n))
                return cli_usage("serve", "--max-games must be 1 to 10000000, got '%s'", v);
            cfg.max_games = (int)n;
        } else if (strcmp(a, "--lease-seconds") == 0) {
            if (cli_parse_int(v, 1, 3600, &n))
                return cli_usage("serve", "--lease-seconds must be 1 to 3600, got '%s'", v);
            cfg.lease_seconds = (int)n;
        } else if (strcmp(a, "--request-timeout") == 0) {
            if (cli_parse_int(v, 1, 3600, &n))
                return cli_usage("serve", "--request-timeout must be 1 to 3600 seconds, got '%s'", v);
            cfg.request_seconds = (int)n;
        } else if (strcmp(a, "--idle-timeout") == 0) {
            if (cli_parse_int(v, 1, 86400, &n))
                return cli_usage("serve", "--idle-timeout must be 1 to 86400 seconds, got '%s'", v);
            cfg.idle_seconds = (int)n;
        } else if (strcmp(a, "--max-per-address") == 0) {
            if (cli_parse_int(v, 0, 1000000, &n))
                return cli_usage("serve", "--max-per-address must be 0 (no limit) to 1000000, got '%s'", v);
            cfg.per_address = n == 0 ? -1 : (int)n;
        } else if (strcmp(a, "--unstarted-expiry") == 0) {
            long seconds = serve_duration(v);
            if (seconds < 0)
                return cli_usage("serve",
                                 "--unstarted-expiry is a duration such as 90s, 30m, 12h or 7d "
                                 "(0 or off: never), got '%s'",
                                 v);
            cfg.unstarted_expiry = seconds == 0 ? -1 : seconds;
        } else if (strcmp(a, "--absent-after") == 0) {
            if (cli_parse_int(v, 0, 86400, &n))
                return cli_usage("serve", "--absent-after must be 0 (never) to 86400 seconds, got '%s'", v);
            cfg.absent_after = n == 0 ? -1 : (int)n;
        } else if (strcmp(a, "--smtp") == 0) {
            if (strncmp(v, "smtp://", 7) != 0 && strncmp(v, "smtps://", 8) != 0)
                return cli_usage("serve", "--smtp must be smtp://HOST:PORT or smtps://HOST:PORT, got '%s'", v);
            cfg.smtp_url = v;
        } else if (strcmp(a, "--mail-from") == 0) {
            cfg.mail_from = v;
        } else if (strcmp(a, "--public-url") == 0) {
            if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)
                return cli_usage("serve", "--public-url must start with http:// or https://, got '%s'", v);
            cfg.public_url = v;
        } else if (strcmp(a, "--turn-email-after") == 0) {
            if (cli_parse_int(v, 0, 30L * 86400, &n))
                return cli_usage("serve", "--turn-email-after must be 0 (never) to 2592000 seconds, got '%s'", v);
            cfg.turn_email_after = n == 0 ? -1 : (int)n;
        } else if (strcmp(a, "--advertise") == 0) {
            cfg.advertise = v;
        } else if (strcmp(a, "--sync") == 0) {
            if (strcmp(v, "full") != 0 && strcmp(v, "normal") != 0)
                return cli_usage("serve", "--sync must be full or normal, got '%s'", v);
            cfg.full_sync = strcmp(v, "full") == 0;
        } else {
            return cli_usage("serve", "unknown option '%s'", a);
        }
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    char err[512];
    tb_data_set *boards = tb_data_set_new(); /* alive until the server stops */
    if (data_dir && cli_load_data_dir(boards, data_dir, err, sizeof err)) {
        fprintf(stderr, "tabula serve: %s\n", err);
        tb_data_set_free(boards);
        return 1;
    }
    cfg.boards = boards;
    srv_server *server = srv_start(&cfg, err, sizeof err);
    if (!server) {
        fprintf(stderr, "tabula serve: %s\n", err);
        tb_data_set_free(boards);
        return 1;
    }
    const char *shown = strcmp(cfg.host, "0.0.0.0") == 0 || strcmp(cfg.host, "::") == 0
                            ? "localhost"
                            : cfg.host;
    bool v6 = strchr(shown, ':') != NULL;
    printf("Tabula is serving at http://%s%s%s:%d/  (database %s, %d unfinished game%s resumed; "
           "Ctrl-C stops)\n",
           v6 ? "[" : "", shown, v6 ? "]" : "", srv_port(server), srv_db_label(server),
           srv_resumed(server), srv_resumed(server) == 1 ? "" : "s");
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    fprintf(stderr, "tabula serve: %s, stopping\n", sig == SIGINT ? "interrupted" : "terminated");
    srv_stop(server);
    tb_data_set_free(boards);
    return 0;
}
