/*
 * bench.c — `tabula bench`: random playouts per second, decisions per
 * second, nanoseconds per decision and per state copy, on one thread; with
 * --agent, an agent's search iterations per second.  A benchmark program,
 * not a test: results go to bench/RESULTS.md by hand with the command and
 * machine that produced them.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct bench_result {
    const char *game;
    int players;
    double seconds;
    double cpu_seconds; /* this thread's CPU time: robust on a shared machine */
    long games;
    long decisions;
    double clone_ns;
    size_t state_bytes;
} bench_result;

static void bench_playouts(const tb_game *g, const tb_data *data, int players, double seconds,
                           bench_result *r)
{
    tb_state *s = tb_state_new(g);
    tb_rng rng;
    tb_rng_seed(&rng, 12345);
    char err[TB_ERR_LEN];
    uint64_t start = cli_now_us(), limit = (uint64_t)(seconds * 1e6), now = start;
    uint64_t cpu_start = cli_cpu_us();
    long games = 0, decisions = 0;
    while (now - start < limit) {
        for (int batch = 0; batch < 64; batch++) {
            if (tb_setup_data(s, data, players, NULL, (uint64_t)games, err, sizeof err)) {
                fprintf(stderr, "tabula bench: %s\n", err);
                exit(1);
            }
            decisions += tb_playout(s, &rng, 0);
            games++;
        }
        now = cli_now_us();
    }
    r->seconds = (double)(now - start) / 1e6;
    r->cpu_seconds = (double)(cli_cpu_us() - cpu_start) / 1e6;
    r->games = games;
    r->decisions = decisions;
    /* Copy cost: a state copied back and forth, enough times to time. */
    tb_state *t = tb_state_new(g);
    tb_setup_data(s, data, players, NULL, 1, err, sizeof err);
    long copies = 0;
    start = cli_now_us();
    do {
        for (int i = 0; i < 100000; i++) {
            tb_state_copy(t, s);
            tb_state_copy(s, t);
        }
        copies += 200000;
        now = cli_now_us();
    } while (now - start < 200000);
    r->clone_ns = (double)(now - start) * 1000.0 / (double)copies;
    r->state_bytes = tb_state_size(g);
    r->game = tb_game_name(g);
    r->players = players;
    tb_state_free(t);
    tb_state_free(s);
}

/* Asks the agent for decisions in a fixed sequence of positions (seeded), for
 * `seconds` or, when `count` > 0, for exactly `count` positions: the same
 * positions whatever the thread count, so two runs compare like with like.
 * Each decision's budget is `iterations`, or `ms` milliseconds when that is
 * not 0 (every thread then searches until the time is up).  With several
 * thread counts, each position is searched with each in turn, so that all
 * of them meet the machine at the same moments (a shared machine's speed
 * drifts from one second to the next), and each is timed apart. */
#define BENCH_MAX_COUNTS 4
static void bench_agent(const tb_game *g, const tb_data *data, int players, const tb_agent *agent,
                        long iterations, long ms, const int *threads, int counts, double seconds,
                        long count, bool json)
{
    tb_state *s = tb_state_new(g);
    tb_rng rng;
    tb_rng_seed(&rng, 777);
    char err[TB_ERR_LEN];
    tb_budget budget = {.iterations = ms ? 0 : iterations, .time_ms = ms, .now_us = cli_now_us};
    int64_t done[BENCH_MAX_COUNTS] = {0};
    uint64_t spent[BENCH_MAX_COUNTS] = {0};
    long decisions = 0;
    uint64_t start = cli_now_us(), used = 0;
    uint64_t seed = 1;
    while (count > 0 ? decisions < count : used < (uint64_t)(seconds * 1e6)) {
        if (tb_setup_data(s, data, players, NULL, seed++, err, sizeof err)) {
            fprintf(stderr, "tabula bench: %s\n", err);
            exit(1);
        }
        /* Search from a position some way into the game, reached by drawing
         * from the legal list (not tb_random_move: a game's own random draws
         * may change, and the positions must not) */
        int skip = (int)tb_rng_below(&rng, 20);
        for (int i = 0; i < skip && !tb_is_over(s); i++) {
            tb_move moves[TB_MAX_MOVES];
            int n = tb_legal(s, moves);
            tb_apply(s, moves[tb_rng_below(&rng, (uint32_t)n)]);
        }
        if (tb_is_over(s))
            continue;
        for (int k = 0; k < counts; k++) {
            tb_agent_report report;
            budget.threads = threads[k];
            uint64_t before = cli_now_us();
            tb_agent_decide(agent, s, &budget, seed, &report);
            spent[k] += cli_now_us() - before;
            done[k] += report.iterations;
        }
        decisions++;
        used = cli_now_us() - start;
    }
    double first = spent[0] ? (double)done[0] / ((double)spent[0] / 1e6) : 0; /* its iterations/s */
    for (int k = 0; k < counts; k++) {
        double secs = (double)spent[k] / 1e6;
        double ips = secs > 0 ? (double)done[k] / secs : 0;
        if (json) {
            printf("{\"game\":\"%s\",\"players\":%d,\"agent\":\"%s\",\"threads\":%d,\"decisions\":%ld,"
                   "\"iterations\":%lld,\"seconds\":%.3f,\"iterations_per_s\":%.0f",
                   tb_game_name(g), players, agent->name, threads[k], decisions,
                   (long long)done[k], secs, ips);
            if (counts > 1)
                printf(",\"times_first\":%.3f", first > 0 ? ips / first : 0);
            printf("}\n");
        } else {
            printf("%-8s %d players  agent %s  threads %d: %ld decisions, %lld iterations in %.2f s = %.0f iterations/s",
                   tb_game_name(g), players, agent->name, threads[k], decisions,
                   (long long)done[k], secs, ips);
            if (k > 0 && first > 0)
                printf(" (%.2f times %d thread%s)", ips / first, threads[0], threads[0] == 1 ? "" : "s");
            printf("\n");
        }
    }
    tb_state_free(s);
}

/* "2" or "1,2": thread counts from 1 to 64, at most BENCH_MAX_COUNTS; 0 when good. */
static int bench_thread_counts(const char *text, int *out, int *counts)
{
    char buf[64];
    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    int n = 0;
    char *save = NULL;
    for (char *part = strtok_r(buf, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        long t;
        if (n == BENCH_MAX_COUNTS || cli_parse_int(part, 1, 64, &t))
            return -1;
        out[n++] = (int)t;
    }
    if (n == 0 || text[strlen(text) - 1] == ',' || text[0] == ',' || strstr(text, ",,"))
        return -1;
    *counts = n;
    return 0;
}

static int bench_help(void)
{
    printf("usage: tabula bench [GAME ...] [--players N] [--seconds S] [--json]\n"
           "       tabula bench --agent NAME [--iterations N | --ms M] [--threads T[,T...]] [--decisions D] GAME\n"
           "       tabula bench GAME --board FILE [...]\n\n"
           "Plays uniformly random games on one thread for S seconds per game (default 3)\n"
           "and reports games/s, decisions/s, ns per decision and ns per state copy.\n"
           "With no GAME every game is measured; --players defaults to 4 (or the game's\n"
           "maximum).  --json prints one JSON object per game with the fields game,\n"
           "players, seconds, cpu_seconds, games, decisions, games_per_s,\n"
           "games_per_cpu_s, decisions_per_s, ns_per_decision, clone_ns and state_bytes\n"
           "(per CPU second: the thread's CPU time, steadier on a shared machine).\n\n"
           "With --agent, asks the agent for decisions in positions of random games with\n"
           "a budget of N iterations each (default 1000) and reports iterations/s.\n"
           "The positions are the same on every run; --decisions D stops after D of\n"
           "them instead of after S seconds, so runs with different --threads search\n"
           "exactly the same positions.  --ms M gives each decision M milliseconds\n"
           "instead of N iterations: every thread searches until the time is up, so\n"
           "with --threads the iterations/s add up what each thread did (a thread held\n"
           "up by the machine does less, instead of the others waiting for it).\n"
           "--threads 1,2 (up to four counts) searches each position with each count in\n"
           "turn and reports each, with its iterations/s as a multiple of the first's:\n"
           "all of them meet a shared machine's changing speed at the same moments.\n\n"
           "--board FILE measures GAME (Khronos or Arkadia) on the board and components\n"
           "of FILE (docs/data-format.md) instead of the built-in ones.\n");
    return 0;
}

/* The player count to measure g with (`players`, or 4 within the game's
 * range when 0); 0 after saying why it cannot be. */
static int bench_players(const tb_game *g, long players)
{
    int p = players ? (int)players : 4;
    if (!players && p > tb_game_max_players(g))
        p = tb_game_max_players(g);
    if (p < tb_game_min_players(g)) {
        cli_usage("bench", "%s needs at least %d players", tb_game_name(g), tb_game_min_players(g));
        return 0;
    }
    if (p > tb_game_max_players(g)) {
        cli_usage("bench", "%s allows at most %d players", tb_game_name(g), tb_game_max_players(g));
        return 0;
    }
    return p;
}

int cmd_bench(int argc, char **argv)
{
    const tb_game *games[8];
    int ngames = 0;
    long players = 0, iterations = 1000, count = 0, ms = 0;
    int threads[BENCH_MAX_COUNTS] = {1}, nthreads = 1;
    bool iterations_given = false;
    double seconds = 3;
    bool json = false;
    const tb_agent *agent = NULL;
    const char *board_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return bench_help();
        if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--seconds") == 0 || strcmp(a, "--players") == 0 ||
                   strcmp(a, "--agent") == 0 || strcmp(a, "--iterations") == 0 ||
                   strcmp(a, "--threads") == 0 || strcmp(a, "--decisions") == 0 ||
                   strcmp(a, "--board") == 0 || strcmp(a, "--ms") == 0) {
            if (i + 1 >= argc)
                return cli_usage("bench", "%s needs a value", a);
            const char *v = argv[++i];
            long n;
            if (strcmp(a, "--board") == 0) {
                board_arg = v;
            } else if (strcmp(a, "--seconds") == 0) {
                char *end;
                seconds = strtod(v, &end);
                if (*end || !(seconds > 0 && seconds <= 3600))
                    return cli_usage("bench", "--seconds must be a number of seconds from 0 to 3600, not '%s'", v);
            } else if (strcmp(a, "--agent") == 0) {
                agent = tb_agent_find(v);
                if (!agent)
                    return cli_usage("bench", "unknown agent '%s'", v);
            } else if (strcmp(a, "--threads") == 0) {
                if (bench_thread_counts(v, threads, &nthreads))
                    return cli_usage("bench", "--threads takes a count from 1 to 64, or up to %d "
                                              "of them separated by commas (1,2), not '%s'",
                                     BENCH_MAX_COUNTS, v);
            } else if (cli_parse_int(v, 1, 100000000, &n)) {
                return cli_usage("bench", "%s must be a positive whole number, not '%s'", a, v);
            } else if (strcmp(a, "--players") == 0) {
                players = n;
            } else if (strcmp(a, "--iterations") == 0) {
                iterations = n;
                iterations_given = true;
            } else if (strcmp(a, "--ms") == 0) {
                ms = n;
            } else {
                count = n; /* --decisions */
            }
        } else if (a[0] == '-') {
            return cli_usage("bench", "unknown option '%s'", a);
        } else {
            const tb_game *g = cli_game_arg("bench", a);
            if (!g)
                return 2;
            if (ngames < 8)
                games[ngames++] = g;
        }
    }
    if (count && !agent)
        return cli_usage("bench", "--decisions goes with --agent");
    if ((nthreads > 1 || threads[0] > 1) && !agent)
        return cli_usage("bench", "--threads goes with --agent (random games run on one thread)");
    if (ms && !agent)
        return cli_usage("bench", "--ms goes with --agent");
    if (ms && iterations_given)
        return cli_usage("bench", "give one budget: --iterations or --ms, not both");
    if (board_arg && ngames != 1)
        return cli_usage("bench", "--board goes with one game (tabula bench khronos --board FILE)");
    if (!ngames)
        for (int i = 0; i < tb_game_count() && i < 8; i++)
            games[ngames++] = tb_game_at(i);
    int counts[8];
    for (int i = 0; i < ngames; i++)
        if (!(counts[i] = bench_players(games[i], players)))
            return 2;
    char err[TB_ERR_LEN];
    tb_data_set *boards = tb_data_set_new(); /* alive until the end */
    const tb_data *data = NULL;
    if (board_arg) {
        data = cli_board_arg(boards, games[0], board_arg, err, sizeof err);
        if (!data) {
            tb_data_set_free(boards);
            return cli_usage("bench", "%s", err);
        }
        if (!json)
            printf("on the board '%s' (%s)\n", tb_data_name(data), tb_data_hash(data));
    }
    for (int i = 0; i < ngames; i++) {
        const tb_game *g = games[i];
        int p = counts[i];
        if (agent) {
            bench_agent(g, data, p, agent, iterations, ms, threads, nthreads, seconds, count, json);
            continue;
        }
        bench_result r;
        bench_playouts(g, data, p, seconds, &r);
        double gps = (double)r.games / r.seconds, dps = (double)r.decisions / r.seconds;
        double cpu_gps = r.cpu_seconds > 0 ? (double)r.games / r.cpu_seconds : 0;
        if (json)
            printf("{\"game\":\"%s\",\"players\":%d,\"seconds\":%.3f,\"cpu_seconds\":%.3f,"
                   "\"games\":%ld,\"decisions\":%ld,\"games_per_s\":%.0f,\"games_per_cpu_s\":%.0f,"
                   "\"decisions_per_s\":%.0f,\"ns_per_decision\":%.1f,\"clone_ns\":%.1f,"
                   "\"state_bytes\":%zu}\n",
                   r.game, r.players, r.seconds, r.cpu_seconds, r.games, r.decisions, gps, cpu_gps,
                   dps, 1e9 / dps, r.clone_ns, r.state_bytes);
        else
            printf("%-8s %d players: %ld random games in %.2f s on one thread (%.2f s of CPU)\n"
                   "         %.0f games/s (%.0f per CPU second), %.0f decisions/s, %.1f ns per decision,\n"
                   "         %.1f ns per state copy (%zu bytes)\n",
                   r.game, r.players, r.games, r.seconds, r.cpu_seconds, gps, cpu_gps, dps, 1e9 / dps,
                   r.clone_ns, r.state_bytes);
    }
    tb_data_set_free(boards);
    return 0;
}
