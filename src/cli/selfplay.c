/*
 * selfplay.c — `tabula selfplay`: games an agent plays against itself,
 * written as training data (docs/research.md, "Self-play data").
 *
 * For every decision: the mover's seat, the mover's observation
 * (tb_observation: what the seat sees, float32), the legal actions, the
 * agent's policy over them (the search's visits normalised; one-hot on the
 * chosen action for agents without visits), the action chosen, and when the
 * game is over every seat's return.  One .npz per shard (npz.h), complete
 * or absent.
 *
 * Invariants: game g of a run deals seed + g and seeds decision d with
 * (seed, g, d) as `tabula match` does, so a split into shards writes the
 * very decisions of the whole run and the same seed replays; a decision's
 * policy sums to 1 over its legal actions and the chosen action is legal;
 * only complete games are written, in game order.
 */
#include "match.h"
#include "npz.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SELFPLAY_MAX_GAMES 10000000
#define SELFPLAY_MAX_SHARDS 100000

/* Set by SIGINT/SIGTERM: stop after the decision at hand, write nothing. */
static volatile sig_atomic_t selfplay_stop;

static void selfplay_on_signal(int sig)
{
    (void)sig;
    selfplay_stop = 1;
}

static int selfplay_help(void)
{
    printf("usage: tabula selfplay GAME --out DIR [--players N] [--agent SPEC] [--games G]\n"
           "                        [--seed S] [--shard K/N] [--quiet] [KEY=VALUE ...]\n\n"
           "Plays G games (default 100) of GAME with the agent in every seat and writes,\n"
           "for every decision, training data to DIR/selfplay-K-of-N.npz (NumPy; read\n"
           "it with tabula.datasets.load(DIR); layout in docs/research.md):\n"
           "  seat           the mover's seat\n"
           "  observation    the mover's observation tensor (float32, as observation())\n"
           "  legal, policy  the legal actions and the agent's visits over them,\n"
           "                 normalised (one-hot on the choice for agents without visits)\n"
           "  action         the action chosen\n"
           "  returns        every seat's return once the game is over\n\n"
           "  --players N   players per game (default 2)\n"
           "  --agent SPEC  the agent in every seat, as in 'tabula match' (default\n"
           "                ismcts:normal; e.g. ismcts:easy, ismcts:iterations=800, greedy,\n"
           "                ismcts:iterations=800:net=FILE with a trained network)\n"
           "  --games G     games in the whole run (default 100)\n"
           "  --seed S      game g deals S + g (default 1); the same seed replays\n"
           "  --shard K/N   play only games K, K+N, K+2N, ... (K from 0 to N-1): the very\n"
           "                games of the whole run, for N machines or Slurm array tasks\n"
           "  --quiet       no progress bar (shown only when stderr is a terminal)\n"
           "  KEY=VALUE     a game option, as for 'tabula play'\n\n"
           "The file appears only when the shard is complete: an interrupted run leaves\n"
           "no file (and no half of one).\n");
    return 0;
}

/* What one game adds, kept until its returns are known. */
typedef struct selfplay_game {
    int8_t *seat;
    int32_t *decision, *action, *legal;
    float *obs, *policy;
    int64_t *legal_count;
    size_t n, cap, nlegal, legal_cap;
} selfplay_game;

/* Grows *p (of *cap items of `item` bytes) to hold `need` items. */
static int selfplay_grow(void **p, size_t *cap, size_t need, size_t item)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * item);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Adds one decision to the game's arrays; -1 when out of memory (the
 * arrays then hold what they held). */
static int selfplay_push(selfplay_game *g, int seat, int decision, int action, const float *obs,
                         int obs_size, const int32_t *legal, const float *policy, int nl)
{
    size_t need = g->n + 1, cap = g->cap, lneed = g->nlegal + (size_t)nl;
    if (need > cap) {
        size_t c = cap;
        if (selfplay_grow((void **)&g->seat, &c, need, sizeof *g->seat))
            return -1;
        c = cap;
        if (selfplay_grow((void **)&g->decision, &c, need, sizeof *g->decision))
            return -1;
        c = cap;
        if (selfplay_grow((void **)&g->action, &c, need, sizeof *g->action))
            return -1;
        c = cap;
        if (selfplay_grow((void **)&g->legal_count, &c, need, sizeof *g->legal_count))
            return -1;
        c = cap;
        if (selfplay_grow((void **)&g->obs, &c, need, (size_t)obs_size * sizeof *g->obs))
            return -1;
        g->cap = c;
    }
    if (lneed > g->legal_cap) {
        size_t c = g->legal_cap;
        if (selfplay_grow((void **)&g->legal, &c, lneed, sizeof *g->legal))
            return -1;
        c = g->legal_cap;
        if (selfplay_grow((void **)&g->policy, &c, lneed, sizeof *g->policy))
            return -1;
        g->legal_cap = c;
    }
    g->seat[g->n] = (int8_t)seat;
    g->decision[g->n] = decision;
    g->action[g->n] = action;
    g->legal_count[g->n] = nl;
    memcpy(g->obs + g->n * (size_t)obs_size, obs, (size_t)obs_size * sizeof *obs);
    memcpy(g->legal + g->nlegal, legal, (size_t)nl * sizeof *legal);
    memcpy(g->policy + g->nlegal, policy, (size_t)nl * sizeof *policy);
    g->nlegal = lneed;
    g->n = need;
    return 0;
}

static void selfplay_game_free(selfplay_game *g)
{
    free(g->seat);
    free(g->decision);
    free(g->action);
    free(g->legal);
    free(g->obs);
    free(g->policy);
    free(g->legal_count);
}

enum { A_SEAT, A_GAME, A_DECISION, A_OBS, A_LEGAL_OFFSETS, A_LEGAL, A_POLICY, A_ACTION,
       A_RETURNS, A_GAMES, A_GAME_RETURNS, A_META, A_COUNT };

static int selfplay_main(int argc, char **argv, match_agent *ma);

int cmd_selfplay(int argc, char **argv)
{
    match_agent ma; /* --agent; a network it loads is freed here whatever happens */
    memset(&ma, 0, sizeof ma);
    int rc = selfplay_main(argc, argv, &ma);
    tb_net_free(ma.net);
    return rc;
}

static int selfplay_main(int argc, char **argv, match_agent *ma)
{
    const char *game_name = NULL, *out_dir = NULL, *agent_arg = "ismcts:normal";
    long players = 2, games = 100;
    uint64_t seed = 1, shard = 0, shards = 1;
    bool quiet = false;
    tb_options opts;
    tb_options_clear(&opts);
    char err[TB_ERR_LEN + 256];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return selfplay_help();
        if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "--players") == 0 ||
                   strcmp(a, "--agent") == 0 || strcmp(a, "--games") == 0 ||
                   strcmp(a, "--seed") == 0 || strcmp(a, "--shard") == 0) {
            if (i + 1 >= argc)
                return cli_usage("selfplay", "%s needs a value", a);
            const char *v = argv[++i];
            if (strcmp(a, "--out") == 0) {
                out_dir = v;
            } else if (strcmp(a, "--agent") == 0) {
                agent_arg = v;
            } else if (strcmp(a, "--players") == 0) {
                if (cli_parse_int(v, 1, TB_MAX_SEATS, &players))
                    return cli_usage("selfplay", "--players must be a number, not '%s'", v);
            } else if (strcmp(a, "--games") == 0) {
                if (cli_parse_int(v, 1, SELFPLAY_MAX_GAMES, &games))
                    return cli_usage("selfplay", "--games must be a whole number from 1 to %d, "
                                     "not '%s'", SELFPLAY_MAX_GAMES, v);
            } else if (strcmp(a, "--seed") == 0) {
                if (cli_parse_u64(v, &seed))
                    return cli_usage("selfplay", "--seed must be a whole number, not '%s'", v);
            } else if (cli_parse_shard(v, SELFPLAY_MAX_SHARDS, &shard, &shards) != 0) {
                return cli_usage("selfplay", "--shard must be K/N with 0 <= K < N <= %d (e.g. "
                                 "0/4 for the first of four), not '%s'", SELFPLAY_MAX_SHARDS, v);
            }
        } else if (a[0] == '-') {
            return cli_usage("selfplay", "unknown option '%s'", a);
        } else if (strchr(a, '=')) {
            if (tb_options_set_pair(&opts, a, err, sizeof err))
                return cli_usage("selfplay", "%s", err);
        } else if (!game_name) {
            game_name = a;
        } else {
            return cli_usage("selfplay", "unexpected argument '%s'", a);
        }
    }
    if (!game_name)
        return cli_usage("selfplay", "which game? (tabula selfplay clans --out DIR)");
    const tb_game *game = cli_game_arg("selfplay", game_name);
    if (!game)
        return 2;
    if (!out_dir)
        return cli_usage("selfplay", "where to? (--out DIR)");
    if (players < tb_game_min_players(game) || players > tb_game_max_players(game))
        return cli_usage("selfplay", "%s is for %d to %d players, not %ld", game_name,
                         tb_game_min_players(game), tb_game_max_players(game), players);
    if (shards > (uint64_t)games)
        return cli_usage("selfplay", "--shard %llu/%llu: more shards than the %ld games",
                         (unsigned long long)shard, (unsigned long long)shards, games);
    {
        tb_options check = opts;
        if (tb_options_normalize(game, &check, err, sizeof err) != 0)
            return cli_usage("selfplay", "%s", err);
    }
    /* The agent: NAME[:LEVEL][:KEY=VALUE...] as tabula match reads it
     * (a network it loads is freed by cmd_selfplay). */
    if (strchr(agent_arg, ','))
        return cli_usage("selfplay", "--agent names one agent, e.g. ismcts:normal");
    if (match_parse_agent(game, agent_arg, ma, err, sizeof err) != 0)
        return cli_usage("selfplay", "%s", err);
    if (ma->infer)
        return cli_usage("selfplay", "infer=on is for tabula match and play; self-play deals "
                         "the others' secrets uniformly");
    if (ma->net && !tb_net_fits(ma->net, game, (int)players))
        return cli_usage("selfplay", "the network of --agent is for %d players, not %ld",
                         tb_net_players(ma->net), players);
    const tb_agent *agent = ma->agent;
    tb_budget budget = ma->budget;
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tabula selfplay: cannot make %s: %s\n", out_dir, strerror(errno));
        return 1;
    }
    struct stat st;
    if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tabula selfplay: %s is not a folder\n", out_dir);
        return 1;
    }
    int n = (int)players;
    int obs_size = tb_observation_size(game, n);
    int num_actions = tb_num_actions(game, n);
    if (obs_size <= 0 || num_actions <= 0) {
        fprintf(stderr, "tabula selfplay: %s has no observation tensor or action space\n",
                game_name);
        return 1;
    }
    char file[128];
    snprintf(file, sizeof file, "selfplay-%llu-of-%llu.npz", (unsigned long long)shard,
             (unsigned long long)shards);
    npz_writer *w = npz_new(out_dir, file, err, sizeof err);
    int arr[A_COUNT];
    static const struct {
        const char *name, *dtype;
        int columns; /* -1: observation size, -2: players */
    } layout[A_COUNT] = {
        [A_SEAT] = {"seat", "|i1", 0},          [A_GAME] = {"game", "<i4", 0},
        [A_DECISION] = {"decision", "<i4", 0},  [A_OBS] = {"observation", "<f4", -1},
        [A_LEGAL_OFFSETS] = {"legal_offsets", "<i8", 0},
        [A_LEGAL] = {"legal", "<i4", 0},        [A_POLICY] = {"policy", "<f4", 0},
        [A_ACTION] = {"action", "<i4", 0},      [A_RETURNS] = {"returns", "<f4", -2},
        [A_GAMES] = {"games", "<i4", 0},        [A_GAME_RETURNS] = {"game_returns", "<f4", -2},
        [A_META] = {"meta", "|u1", 0},
    };
    for (int a = 0; w && a < A_COUNT; a++) {
        int cols = layout[a].columns == -1 ? obs_size : layout[a].columns == -2 ? n : 0;
        arr[a] = npz_array(w, layout[a].name, layout[a].dtype, cols, err, sizeof err);
        if (arr[a] < 0) {
            npz_free(w);
            w = NULL;
        }
    }
    if (!w) {
        fprintf(stderr, "tabula selfplay: %s\n", err);
        return 1;
    }
    int64_t zero = 0, offset = 0;
    npz_append(w, arr[A_LEGAL_OFFSETS], &zero, 1, err, sizeof err);

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = selfplay_on_signal;
    sigemptyset(&sa.sa_mask);
    selfplay_stop = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int mine = (int)((games - (long)shard + (long)shards - 1) / (long)shards);
    bool progress = !quiet && isatty(STDERR_FILENO);
    uint64_t start = cli_now_us();
    tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
    int64_t *visits = malloc(TB_MAX_MOVES * sizeof *visits);
    int32_t *legal = malloc(TB_MAX_MOVES * sizeof *legal);
    float *obs = malloc((size_t)obs_size * sizeof *obs);
    float *pol = malloc(TB_MAX_MOVES * sizeof *pol);
    int rc = moves && visits && legal && obs && pol ? 0 : 1;
    if (rc)
        snprintf(err, sizeof err, "out of memory");
    long decisions_written = 0;
    for (int i = 0; rc == 0 && i < mine && !selfplay_stop; i++) {
        int g = (int)shard + i * (int)shards;
        tb_state *s = tb_state_new(game);
        char serr[TB_ERR_LEN];
        if (!s || tb_setup(s, n, &opts, seed + (uint64_t)g, serr, sizeof serr) != 0) {
            snprintf(err, sizeof err, "game %d: %s", g, s ? serr : "out of memory");
            tb_state_free(s);
            rc = 1;
            break;
        }
        uint64_t base = (seed * 1000003u + (uint64_t)g) * 0x9e3779b97f4a7c15ULL;
        selfplay_game sg = {0};
        while (rc == 0 && !tb_is_over(s) && !selfplay_stop) {
            int seat = tb_to_move(s);
            int d = tb_decisions_made(s);
            int count = 0;
            tb_move m = tb_agent_decide_policy(agent, s, &budget, base + (uint64_t)d, NULL, moves,
                                               visits, TB_MAX_MOVES, &count);
            int nl = tb_legal_actions(s, legal);
            int chosen = tb_move_to_action(game, m);
            /* visits onto the legal list (a search never weighs an illegal
             * decision; one that did would be left out) */
            double total = 0;
            for (int k = 0; k < nl; k++)
                pol[k] = 0;
            for (int v = 0; v < count; v++) {
                int act = tb_move_to_action(game, moves[v]);
                for (int k = 0; k < nl; k++)
                    if (legal[k] == act) {
                        pol[k] += (float)visits[v];
                        total += (double)visits[v];
                        break;
                    }
            }
            bool has_choice = false;
            for (int k = 0; k < nl; k++)
                has_choice = has_choice || legal[k] == chosen;
            if (!has_choice || tb_observation(s, seat, obs) != obs_size) {
                snprintf(err, sizeof err, "game %d, decision %d: %s", g, d,
                         has_choice ? "no observation"
                                    : "the agent's decision is not among the legal actions");
                rc = 1;
                break;
            }
            for (int k = 0; k < nl; k++)
                pol[k] = total > 0 ? (float)(pol[k] / total) : (legal[k] == chosen ? 1.0f : 0.0f);
            if (selfplay_push(&sg, seat, d, chosen, obs, obs_size, legal, pol, nl) != 0) {
                snprintf(err, sizeof err, "out of memory");
                rc = 1;
                break;
            }
            char aerr[TB_ERR_LEN];
            if (tb_apply_checked(s, m, aerr, sizeof aerr) != 0) {
                snprintf(err, sizeof err, "game %d, decision %d: %s", g, d, aerr);
                rc = 1;
            }
        }
        if (rc == 0 && !selfplay_stop) {
            double ret[TB_MAX_SEATS];
            float retf[TB_MAX_SEATS];
            tb_returns(s, ret);
            for (int p = 0; p < n; p++)
                retf[p] = (float)ret[p];
            int32_t gnum = g;
            for (size_t k = 0; rc == 0 && k < sg.n; k++) {
                offset += sg.legal_count[k];
                rc |= npz_append(w, arr[A_LEGAL_OFFSETS], &offset, 1, err, sizeof err);
                rc |= npz_append(w, arr[A_GAME], &gnum, 1, err, sizeof err);
                rc |= npz_append(w, arr[A_RETURNS], retf, (size_t)n, err, sizeof err);
            }
            rc = rc ? 1 : 0;
            if (rc == 0 &&
                (npz_append(w, arr[A_SEAT], sg.seat, sg.n, err, sizeof err) ||
                 npz_append(w, arr[A_DECISION], sg.decision, sg.n, err, sizeof err) ||
                 npz_append(w, arr[A_ACTION], sg.action, sg.n, err, sizeof err) ||
                 npz_append(w, arr[A_OBS], sg.obs, sg.n * (size_t)obs_size, err, sizeof err) ||
                 npz_append(w, arr[A_LEGAL], sg.legal, sg.nlegal, err, sizeof err) ||
                 npz_append(w, arr[A_POLICY], sg.policy, sg.nlegal, err, sizeof err) ||
                 npz_append(w, arr[A_GAMES], &gnum, 1, err, sizeof err) ||
                 npz_append(w, arr[A_GAME_RETURNS], retf, (size_t)n, err, sizeof err)))
                rc = 1;
            decisions_written += (long)sg.n;
        }
        selfplay_game_free(&sg);
        tb_state_free(s);
        if (progress && rc == 0) {
            double el = (double)(cli_now_us() - start) / 1e6;
            int width = 30, done = (int)((long)width * (i + 1) / mine);
            char bar[40];
            for (int b = 0; b < width; b++)
                bar[b] = b < done ? '#' : '.';
            bar[width] = '\0';
            fprintf(stderr, "\r[%s] %d/%d games  %ld decisions  %.0f/s  ETA %.0fs   ", bar, i + 1,
                    mine, decisions_written, el > 0 ? (double)decisions_written / el : 0.0,
                    el / (i + 1) * (mine - i - 1));
            fflush(stderr);
        }
    }
    if (progress)
        fprintf(stderr, "\n");
    double seconds = (double)(cli_now_us() - start) / 1e6;
    if (rc == 0 && !selfplay_stop) {
        char meta[1024];
        char options[TB_MAX_OPTIONS * (2 * TB_OPTION_LEN + 2)] = "";
        tb_options norm = opts;
        tb_options_normalize(game, &norm, err, sizeof err);
        size_t used = 0;
        for (int k = 0; k < norm.count && used < sizeof options; k++)
            used += (size_t)snprintf(options + used, sizeof options - used, "%s%s=%s",
                                     k ? " " : "", norm.item[k].key, norm.item[k].value);
        int len = snprintf(meta, sizeof meta,
                           "{\"format\":\"tabula-selfplay\",\"version\":1,\"game\":\"%s\","
                           "\"players\":%d,\"agent\":\"%s\",\"options\":\"%s\",\"seed\":\"%llu\","
                           "\"games\":%ld,\"shard\":%llu,\"shards\":%llu,"
                           "\"observation_size\":%d,\"num_actions\":%d,\"seconds\":%.3f}",
                           tb_game_name(game), n, agent_arg, options,
                           (unsigned long long)seed, games, (unsigned long long)shard,
                           (unsigned long long)shards, obs_size, num_actions, seconds);
        if (npz_append(w, arr[A_META], meta, (size_t)len, err, sizeof err) != 0 ||
            npz_finish(w, err, sizeof err) != 0)
            rc = 1;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    npz_free(w);
    free(moves);
    free(visits);
    free(legal);
    free(obs);
    free(pol);
    if (selfplay_stop) {
        fprintf(stderr, "tabula selfplay: interrupted; %s/%s was not written\n", out_dir, file);
        return 130;
    }
    if (rc) {
        fprintf(stderr, "tabula selfplay: %s\n", err);
        return 1;
    }
    printf("%d game%s, %ld decisions in %.1f s (%.0f decisions/s): %s/%s\n", mine,
           mine == 1 ? "" : "s",
           decisions_written, seconds, seconds > 0 ? (double)decisions_written / seconds : 0.0,
           out_dir, file);
    return 0;
}
