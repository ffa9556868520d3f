/*
 * match.c — `tabula match`: a seeded tournament between agents, to measure
 * strength instead of claiming it.
 *
 * Game g deals seed + g / N (N players) and seats the agents rotated by
 * g mod N, so every block of N games plays one deal from every seat.  Each
 * decision is asked of tb_agent_decide (the agent sees the mover's view
 * only) with a seed derived from the match seed, the game and the decision,
 * so a match with iteration budgets replays exactly, whatever --threads is:
 * games may run in parallel, but each game's result is stored by its index
 * and the summary is computed in index order.
 *
 * The summary gives per agent (agents written identically are pooled): seat
 * appearances, wins (a shared win counts 1/winners), win rate with a 95%
 * Wilson interval, mean final score, time per decision; and an Elo table
 * fitted (Bradley-Terry, minorise-maximise) to every pair of seats held by
 * different agents in a game, plus head-to-head scores with intervals.
 */
#include "match.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int match_help(void)
{
    printf("usage: tabula match --game G --agents A,B,... --games K [--players N]\n"
           "                    [--seed S] [--threads T] [--board FILE] [--out FILE] [--quiet]\n"
           "                    [--shard K/N] [KEY=VALUE ...]\n"
           "       tabula match merge SHARD... [--out FILE]\n\n"
           "Plays K seeded games of G between the agents, one agent per seat (the number\n"
           "of agents is the number of players; --players, if given, must agree).  Game g\n"
           "is dealt from seed S + g/N and the agents are rotated one seat per game, so\n"
           "every deal is played from every seat.  An agent is NAME[:LEVEL][:KEY=VALUE...]:\n"
           "  random, greedy, ismcts            the built-in agents\n"
           "  ismcts:easy, ismcts:hard, hard    a player level (docs/ai.md)\n"
           "  ismcts:iterations=2000            an iteration budget per decision\n"
           "  ismcts:time_ms=500:threads=2      a time budget, threads within a decision\n"
           "  ismcts:normal:infer=on            deal the others' secret roles (Clans: colours)\n"
           "                                    by what their play has shown, not uniformly\n"
           "Agents written the same way are pooled in the summary.\n\n"
           "At the end, per agent: seat appearances, wins (a shared win counts as a\n"
           "fraction), win rate with a 95%% Wilson interval, mean score and time per\n"
           "decision; an Elo table fitted to every pairing of different agents, and\n"
           "head-to-head scores with 95%% intervals.  With iteration budgets a match\n"
           "replays exactly from its seed (default 1), whatever --threads is.\n\n"
           "  --threads T  play T games at once (default 1)\n"
           "  --board FILE play Khronos or Arkadia on the board and components of FILE\n"
           "               (docs/data-format.md); the records name it, for 'tabula replay'\n"
           "  --out FILE   write every game's record and the summary as JSON\n"
           "  --quiet      no progress bar (it is shown only when stderr is a terminal)\n"
           "  --shard K/N  play only games K, K+N, K+2N, ... (K from 0 to N-1; games are\n"
           "               numbered from 0) of the same match: the same deals and agent\n"
           "               seeds as the whole run; --out FILE is required and receives the\n"
           "               shard's results and records (no table is printed)\n"
           "  KEY=VALUE    a game option, as for 'tabula play'\n\n"
           "'tabula match merge' reads the N shard files of one match (any order), checks\n"
           "that they are the shards 0 to N-1 of the same match (game, options, agents,\n"
           "seed, board), each once and complete, and prints the table the whole match\n"
           "would print; --out FILE writes the merged records and summary as --out does.\n"
           "For Slurm array jobs see docs/research.md.\n");
    return 0;
}

/* Parses NAME[:LEVEL][:KEY=VALUE...]; 0 on success, else err says why. */
int match_parse_agent(const tb_game *game, const char *spec, match_agent *a, char *err,
                             size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (!*spec || strlen(spec) >= sizeof a->label) {
        snprintf(err, errlen, "agent '%s' must be 1 to %zu characters", spec,
                 sizeof a->label - 1);
        return -1;
    }
    for (const char *p = spec; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
              *p == ':' || *p == '=' || *p == '.' || *p == '/')) {
            snprintf(err, errlen, "agent '%s' has a character other than a-z 0-9 _ - : = . /",
                     spec);
            return -1;
        }
    }
    snprintf(a->label, sizeof a->label, "%s", spec);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    char *name = strtok_r(buf, ":", &save);
    if (!name) {
        snprintf(err, errlen, "agent '%s' has no name", spec);
        return -1;
    }
    a->agent = tb_agent_find(name);
    if (!a->agent && tb_level_lookup(game, name, &a->agent, &a->budget) != 0) {
        char known[200] = "";
        for (int k = 0; k < tb_agent_count(); k++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "",
                     tb_agent_at(k)->name);
        }
        snprintf(err, errlen, "unknown agent '%s' (agents: %s; levels: easy, normal, hard)",
                 name, known);
        return -1;
    }
    for (char *part = strtok_r(NULL, ":", &save); part; part = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(part, '=');
        if (!eq) {
            const tb_agent *level_agent;
            tb_budget b;
            if (tb_level_lookup(game, part, &level_agent, &b) != 0 || level_agent != a->agent) {
                snprintf(err, errlen, "'%s' in agent '%s' is not a level of %s (easy, normal, "
                         "hard) nor KEY=VALUE", part, spec, a->agent->name);
                return -1;
            }
            b.threads = a->budget.threads;
            a->budget = b;
            continue;
        }
        *eq = '\0';
        if (strcmp(part, "net") == 0) {
            if (a->agent != tb_agent_find("ismcts")) {
                snprintf(err, errlen, "'net' in agent '%s': only ismcts searches with a "
                         "network", spec);
                return -1;
            }
            tb_net_free(a->net);
            a->net = match_read_net(game, 0, eq + 1, err, errlen);
            if (!a->net)
                return -1;
            a->budget.net = a->net;
            continue;
        }
        if (strcmp(part, "infer") == 0) {
            if (strcmp(eq + 1, "on") != 0 && strcmp(eq + 1, "off") != 0) {
                snprintf(err, errlen, "'infer' in agent '%s' must be on or off", spec);
                return -1;
            }
            a->infer = strcmp(eq + 1, "on") == 0;
            continue;
        }
        long v;
        long hi = strcmp(part, "threads") == 0 ? MATCH_MAX_THREADS : 1000000000L;
        if (cli_parse_int(eq + 1, 1, hi, &v) != 0) {
            snprintf(err, errlen, "'%s' in agent '%s' must be a whole number from 1 to %ld",
                     part, spec, hi);
            return -1;
        }
        if (strcmp(part, "iterations") == 0) {
            a->budget.iterations = v;
        } else if (strcmp(part, "time_ms") == 0) {
            a->budget.time_ms = v;
        } else if (strcmp(part, "threads") == 0) {
            a->budget.threads = (int)v;
        } else {
            snprintf(err, errlen, "unknown key '%s' in agent '%s' (keys: iterations, time_ms, "
                     "threads, infer, net)", part, spec);
            return -1;
        }
    }
    a->budget.now_us = cli_now_us;
    return 0;
}

static void match_progress(match_run *r)
{
    uint64_t now = cli_now_us();
    double elapsed = (double)(now - r->start) / 1e6;
    double eta = r->finished ? elapsed / r->finished * (r->ngames - r->finished) : 0.0;
    int width = 30, done = (int)((long)width * r->finished / r->ngames);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < done ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %d/%d games%s  %.0fs elapsed  ETA %.0fs   ", bar, r->finished,
            r->ngames, r->stride > 1 ? " of this shard" : "", elapsed, eta);
    fflush(stderr);
}

/* Plays games[i], which is game first + i * stride of the match. */
static void match_play(match_run *r, int i)
{
    match_game *mg = &r->games[i];
    int g = r->first + i * r->stride;
    int n = r->players;
    uint64_t deal = r->seed + (uint64_t)(g / n);
    tb_state *s = tb_state_new(r->game);
    char err[TB_ERR_LEN];
    if (tb_setup_data(s, r->data, n, &r->opts, deal, err, sizeof err) != 0) {
        snprintf(mg->error, sizeof mg->error, "%s", err);
        tb_state_free(s);
        return;
    }
    tb_options norm;
    tb_state_options(s, &norm);
    tb_record *rec = tb_record_new(r->game, n, &norm, deal);
    tb_record_set_data(rec, r->data);
    char when[40];
    cli_iso_time(when, sizeof when);
    tb_record_set_times(rec, when, NULL);
    for (int seat = 0; seat < n; seat++) {
        mg->entry[seat] = (seat + g) % n;
        const match_agent *a = &r->entry[mg->entry[seat]];
        tb_record_set_player(rec, seat, a->label, a->agent->name);
    }
    uint64_t base = (r->seed * 1000003u + (uint64_t)g) * 0x9e3779b97f4a7c15ULL;
    bool infer = false;
    for (int k = 0; k < n; k++)
        infer = infer || r->entry[k].infer;
    tb_inference *inference = infer ? tb_inference_new(r->game, n) : NULL;
    while (!tb_is_over(s)) {
        int seat = tb_to_move(s);
        const match_agent *a = &r->entry[mg->entry[seat]];
        tb_budget budget = a->budget;
        budget.inference = a->infer ? inference : NULL;
        uint64_t t0 = cli_now_us();
        tb_move m = tb_agent_decide(a->agent, s, &budget,
                                    base + (uint64_t)tb_decisions_made(s), NULL);
        if (inference) /* before the clock stops: inferring is the agent's work */
            tb_inference_observe(inference, s, m);
        mg->seconds[seat] += (double)(cli_now_us() - t0) / 1e6;
        mg->decisions[seat]++;
        char text[TB_MOVE_TEXT];
        tb_move_to_text(s, m, text, sizeof text);
        if (tb_apply_checked(s, m, err, sizeof err) != 0) {
            snprintf(mg->error, sizeof mg->error, "agent %s chose '%s' after %d decisions: %s",
                     a->label, text, tb_decisions_made(s), err);
            break;
        }
        tb_record_push(rec, text);
    }
    if (!mg->error[0]) {
        tb_scores(s, mg->scores);
        tb_ranks(s, mg->ranks);
        tb_returns(s, mg->returns);
        cli_iso_time(when, sizeof when);
        tb_record_set_times(rec, NULL, when);
        mg->record = tb_record_json(rec, s);
    }
    tb_record_free(rec);
    tb_inference_free(inference);
    tb_state_free(s);
}

static void *match_worker(void *arg)
{
    match_run *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        int g = r->next < r->ngames ? r->next++ : -1;
        pthread_mutex_unlock(&r->lock);
        if (g < 0)
            break;
        match_play(r, g);
        pthread_mutex_lock(&r->lock);
        r->finished++;
        if (r->progress)
            match_progress(r);
        pthread_mutex_unlock(&r->lock);
    }
    return NULL;
}

/* ---- statistics ---- */


static double match_ratio(double a, double b)
{
    return b > 0 ? a / b : 0.0;
}

static void match_wilson(double wins, double n, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    const double z = 1.959964;
    double p = wins / n, z2 = z * z;
    double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    *lo = centre - half < 0 ? 0 : centre - half;
    *hi = centre + half > 1 ? 1 : centre + half;
}

/* Elo difference for a score fraction; infinite at 0 and 1. */
static double match_elo_of(double p)
{
    if (p <= 1e-9) /* 0, up to rounding in the interval's arithmetic */
        return -INFINITY;
    if (p >= 1.0 - 1e-9)
        return INFINITY;
    return -400.0 * log10(1.0 / p - 1.0);
}

/* Bradley-Terry strengths by minorise-maximise (Hunter 2004), with one
 * virtual draw added to every pair that met so that a clean sweep gives a
 * finite rating; the first agent listed is rated 0. */
static void match_fit_elo(const match_run *r, match_stats *st)
{
    int k = r->ids;
    double n[TB_MAX_SEATS][TB_MAX_SEATS], w[TB_MAX_SEATS] = {0}, gamma[TB_MAX_SEATS];
    bool any = false;
    for (int i = 0; i < k; i++) {
        gamma[i] = 1.0;
        for (int j = 0; j < k; j++) {
            n[i][j] = st->pair_n[i][j] > 0 ? st->pair_n[i][j] + 1 : 0;
            if (st->pair_n[i][j] > 0) {
                w[i] += st->pair_score[i][j] + 0.5;
                any = true;
            }
        }
    }
    st->has_elo = any;
    if (!any)
        return;
    for (int iter = 0; iter < 10000; iter++) {
        double change = 0;
        for (int i = 0; i < k; i++) {
            double denom = 0;
            for (int j = 0; j < k; j++)
                if (j != i && n[i][j] > 0)
                    denom += n[i][j] / (gamma[i] + gamma[j]);
            if (denom <= 0)
                continue;
            double g = w[i] / denom;
            change += fabs(log(g / gamma[i]));
            gamma[i] = g;
        }
        double anchor = gamma[0];
        for (int i = 0; i < k; i++)
            gamma[i] /= anchor;
        if (change < 1e-12)
            break;
    }
    for (int i = 0; i < k; i++)
        st->elo[i] = 400.0 * log10(gamma[i]);
}

void match_tally(const match_run *r, match_stats *st)
{
    memset(st, 0, sizeof *st);
    int n = r->players;
    for (int g = 0; g < r->ngames; g++) {
        const match_game *mg = &r->games[g];
        for (int seat = 0; seat < n; seat++) {
            int id = r->entry[mg->entry[seat]].id;
            st->appearances[id] += 1;
            st->wins[id] += mg->returns[seat];
            st->score[id] += mg->scores[seat];
            st->seconds[id] += mg->seconds[seat];
            st->decisions[id] += mg->decisions[seat];
            for (int other = 0; other < n; other++) {
                int oid = r->entry[mg->entry[other]].id;
                if (oid == id)
                    continue;
                st->pair_n[id][oid] += 1;
                st->pair_score[id][oid] += mg->ranks[seat] < mg->ranks[other]    ? 1.0
                                           : mg->ranks[seat] == mg->ranks[other] ? 0.5
                                                                                 : 0.0;
            }
        }
    }
    match_fit_elo(r, st);
}

static void match_print_elo(FILE *out, double e)
{
    if (isinf(e))
        fprintf(out, "%s", e > 0 ? "+inf" : "-inf");
    else
        fprintf(out, "%+.0f", e > -0.5 && e < 0.5 ? 0.0 : e); /* never "-0" */
}

void match_print(const match_run *r, const match_stats *st, const char *how)
{
    printf("%s, %d players, %d games from seed %llu, seats rotated; %s",
           tb_game_title(r->game), r->players, r->ngames, (unsigned long long)r->seed, how);
    if (r->data_name[0])
        printf("; on the board '%s' (%s)", r->data_name, r->data_hash);
    printf("\n\n");
    int width = 5;
    for (int i = 0; i < r->ids; i++) {
        int len = (int)strlen(r->entry[r->label_of[i]].label);
        if (len > width)
            width = len;
    }
    printf("%-*s  %6s  %7s  %8s  %-17s  %10s  %11s\n", width, "agent", "seats", "wins",
           "win rate", "95% interval", "mean score", "ms/decision");
    for (int i = 0; i < r->ids; i++) {
        double lo, hi;
        match_wilson(st->wins[i], st->appearances[i], &lo, &hi);
        char interval[40];
        snprintf(interval, sizeof interval, "[%.1f%%, %.1f%%]", 100 * lo, 100 * hi);
        printf("%-*s  %6.0f  %7.1f  %7.1f%%  %-17s  %10.2f  %11.2f\n", width,
               r->entry[r->label_of[i]].label, st->appearances[i], st->wins[i],
               100 * match_ratio(st->wins[i], st->appearances[i]), interval,
               match_ratio(st->score[i], st->appearances[i]),
               1000 * match_ratio(st->seconds[i], st->decisions[i]));
    }
    if (!st->has_elo) {
        printf("\nElo: every seat was held by the same agent; nothing to compare.\n");
        return;
    }
    printf("\nElo (Bradley-Terry fit of every pairing of different agents; %s = 0):\n",
           r->entry[r->label_of[0]].label);
    int order[TB_MAX_SEATS];
    for (int i = 0; i < r->ids; i++)
        order[i] = i;
    for (int i = 1; i < r->ids; i++)
        for (int j = i; j > 0 && st->elo[order[j]] > st->elo[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < r->ids; i++) {
        printf("  %-*s  ", width, r->entry[r->label_of[order[i]]].label);
        match_print_elo(stdout, st->elo[order[i]]);
        printf("\n");
    }
    printf("\nHead to head (a pairing is two seats of one game; points: 1 for the better\n"
           "rank, 1/2 for the same):\n");
    for (int i = 0; i < r->ids; i++) {
        for (int j = i + 1; j < r->ids; j++) {
            double n = st->pair_n[i][j];
            if (n <= 0)
                continue;
            double p = st->pair_score[i][j] / n, lo, hi;
            match_wilson(st->pair_score[i][j], n, &lo, &hi);
            printf("  %s vs %s: %.1f/%.0f = %.1f%% [%.1f%%, %.1f%%], Elo ",
                   r->entry[r->label_of[i]].label, r->entry[r->label_of[j]].label,
                   st->pair_score[i][j], n, 100 * p, 100 * lo, 100 * hi);
            match_print_elo(stdout, match_elo_of(p));
            printf(" [");
            match_print_elo(stdout, match_elo_of(lo));
            printf(", ");
            match_print_elo(stdout, match_elo_of(hi));
            printf("]\n");
        }
    }
}

/* Appends printf-style text (match.h); after a failed allocation the text
 * is dropped and `failed` set. */
void match_put(match_text *t, const char *fmt, ...)
{
    while (!t->failed) {
        va_list ap;
        va_start(ap, fmt);
        int need = vsnprintf(t->data ? t->data + t->len : NULL, t->data ? t->cap - t->len : 0,
                             fmt, ap);
        va_end(ap);
        if (need < 0)
            return;
        if (t->data && t->len + (size_t)need < t->cap) {
            t->len += (size_t)need;
            return;
        }
        size_t cap = t->cap ? t->cap : 4096;
        while (cap <= t->len + (size_t)need)
            cap *= 2;
        char *p = realloc(t->data, cap);
        if (!p) {
            t->failed = true;
            return;
        }
        t->data = p;
        t->cap = cap;
    }
}

static void match_put_number(match_text *t, double v)
{
    if (isfinite(v))
        match_put(t, "%.6g", v);
    else
        match_put(t, "null");
}

char *match_json(const match_run *r, const match_stats *st, int threads, int shards)
{
    match_text t = {0};
    match_put(&t, "{\"format\":\"tabula-match\",\"version\":1,\"game\":\"%s\",\"players\":%d,"
                  "\"games\":%d,\"seed\":\"%llu\",\"threads\":%d,",
              tb_game_name(r->game), r->players, r->ngames, (unsigned long long)r->seed,
              threads);
    if (shards > 1)
        match_put(&t, "\"shards\":%d,", shards);
    match_put(&t, "\"agents\":[");
    for (int i = 0; i < r->players; i++)
        match_put(&t, "%s\"%s\"", i ? "," : "", r->entry[i].label);
    match_put(&t, "]");
    if (r->data_name[0]) /* letters, digits, '-' and '_' (tb_data_name_ok; merge checks) */
        match_put(&t, ",\"data\":{\"name\":\"%s\",\"hash\":\"%s\"}", r->data_name,
                  r->data_hash);
    match_put(&t, ",\"summary\":{\"agents\":[");
    for (int i = 0; i < r->ids; i++) {
        double lo, hi, n = st->appearances[i];
        match_wilson(st->wins[i], n, &lo, &hi);
        match_put(&t, "%s{\"agent\":\"%s\",\"seats\":%.0f,\"wins\":", i ? "," : "",
                  r->entry[r->label_of[i]].label, n);
        match_put_number(&t, st->wins[i]);
        match_put(&t, ",\"win_rate\":");
        match_put_number(&t, match_ratio(st->wins[i], n));
        match_put(&t, ",\"interval\":[");
        match_put_number(&t, lo);
        match_put(&t, ",");
        match_put_number(&t, hi);
        match_put(&t, "],\"mean_score\":");
        match_put_number(&t, match_ratio(st->score[i], n));
        match_put(&t, ",\"seconds_per_decision\":");
        match_put_number(&t, match_ratio(st->seconds[i], st->decisions[i]));
        match_put(&t, ",\"elo\":");
        match_put_number(&t, st->has_elo ? st->elo[i] : NAN);
        match_put(&t, "}");
    }
    match_put(&t, "],\"pairs\":[");
    bool first = true;
    for (int i = 0; i < r->ids; i++) {
        for (int j = i + 1; j < r->ids; j++) {
            double n = st->pair_n[i][j];
            if (n <= 0)
                continue;
            double lo, hi;
            match_wilson(st->pair_score[i][j], n, &lo, &hi);
            match_put(&t, "%s{\"a\":\"%s\",\"b\":\"%s\",\"pairings\":%.0f,\"score\":",
                      first ? "" : ",", r->entry[r->label_of[i]].label,
                      r->entry[r->label_of[j]].label, n);
            match_put_number(&t, st->pair_score[i][j]);
            match_put(&t, ",\"interval\":[");
            match_put_number(&t, lo);
            match_put(&t, ",");
            match_put_number(&t, hi);
            match_put(&t, "],\"elo\":");
            match_put_number(&t, match_elo_of(st->pair_score[i][j] / n));
            match_put(&t, "}");
            first = false;
        }
    }
    match_put(&t, "]},\"records\":[");
    for (int g = 0; g < r->ngames; g++)
        match_put(&t, "%s%s", g ? "," : "", r->games[g].record);
    match_put(&t, "]}");
    if (t.failed) {
        free(t.data);
        return NULL;
    }
    return t.data;
}

tb_net *match_read_net(const tb_game *game, int players, const char *path, char *err,
                       size_t errlen)
{
    char rerr[TB_ERR_LEN];
    size_t len = 0;
    char *text = tb_file_read(path, &len, rerr, sizeof rerr);
    if (!text) {
        snprintf(err, errlen, "net=%s: %s", path, rerr);
        return NULL;
    }
    tb_net *net = tb_net_parse(game, text, len, rerr, sizeof rerr);
    free(text);
    if (!net) {
        snprintf(err, errlen, "net=%s: %s", path, rerr);
        return NULL;
    }
    if (players && !tb_net_fits(net, game, players)) {
        snprintf(err, errlen, "net=%s is for %d players, not %d", path, tb_net_players(net),
                 players);
        tb_net_free(net);
        return NULL;
    }
    return net;
}

void match_pool_agents(match_run *r)
{
    r->ids = 0;
    for (int i = 0; i < r->players; i++) {
        r->entry[i].id = -1;
        for (int j = 0; j < i; j++)
            if (strcmp(r->entry[j].label, r->entry[i].label) == 0)
                r->entry[i].id = r->entry[j].id;
        if (r->entry[i].id < 0) {
            r->label_of[r->ids] = i;
            r->entry[i].id = r->ids++;
        }
    }
}

void match_options_text(const match_run *r, char *buf, size_t len)
{
    tb_options norm = r->opts;
    char err[TB_ERR_LEN];
    buf[0] = '\0';
    if (tb_options_normalize(r->game, &norm, err, sizeof err) != 0)
        return;
    size_t used = 0;
    for (int i = 0; i < norm.count && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "",
                                 norm.item[i].key, norm.item[i].value);
}

static int match_main(int argc, char **argv, match_run *rp);

int cmd_match(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return match_merge(argc - 1, argv + 1);
    match_run r;
    memset(&r, 0, sizeof r);
    int rc = match_main(argc, argv, &r);
    for (int i = 0; i < TB_MAX_SEATS; i++)
        tb_net_free(r.entry[i].net);
    return rc;
}

/* The match itself; nets the agents load stay in rp->entry for the caller
 * to free, whatever the outcome. */
static int match_main(int argc, char **argv, match_run *rp)
{
    const char *game_name = NULL, *agents_arg = NULL, *out_path = NULL, *board_arg = NULL;
    long players = 0, games = 0, threads = 1;
    uint64_t shard = 0, shards = 0; /* --shard K/N; shards 0: the whole match */
    uint64_t seed = 1;
    bool quiet = false;
    tb_options_clear(&rp->opts);
    char err[TB_ERR_LEN];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return match_help();
        if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--game") == 0 || strcmp(a, "--players") == 0 ||
                   strcmp(a, "--agents") == 0 || strcmp(a, "--games") == 0 ||
                   strcmp(a, "--seed") == 0 || strcmp(a, "--threads") == 0 ||
                   strcmp(a, "--out") == 0 || strcmp(a, "--board") == 0 ||
                   strcmp(a, "--shard") == 0) {
            if (i + 1 >= argc)
                return cli_usage("match", "%s needs a value", a);
            const char *v = argv[++i];
            if (strcmp(a, "--game") == 0) {
                game_name = v;
            } else if (strcmp(a, "--board") == 0) {
                board_arg = v;
            } else if (strcmp(a, "--agents") == 0) {
                agents_arg = v;
            } else if (strcmp(a, "--out") == 0) {
                out_path = v;
            } else if (strcmp(a, "--shard") == 0) {
                if (cli_parse_shard(v, MATCH_MAX_SHARDS, &shard, &shards) != 0)
                    return cli_usage("match", "--shard must be K/N with 0 <= K < N <= %d "
                                     "(e.g. 0/4 for the first of four), not '%s'",
                                     MATCH_MAX_SHARDS, v);
            } else if (strcmp(a, "--seed") == 0) {
                if (cli_parse_u64(v, &seed))
                    return cli_usage("match", "--seed must be a whole number, not '%s'", v);
            } else if (strcmp(a, "--players") == 0) {
                if (cli_parse_int(v, 1, 99, &players))
                    return cli_usage("match", "--players must be a number, not '%s'", v);
            } else if (strcmp(a, "--games") == 0) {
                if (cli_parse_int(v, 1, MATCH_MAX_GAMES, &games))
                    return cli_usage("match", "--games must be a whole number from 1 to %d, not '%s'",
                                     MATCH_MAX_GAMES, v);
            } else if (cli_parse_int(v, 1, MATCH_MAX_THREADS, &threads)) {
                return cli_usage("match", "--threads must be a whole number from 1 to %d, not '%s'",
                                 MATCH_MAX_THREADS, v);
            }
        } else if (a[0] == '-') {
            return cli_usage("match", "unknown option '%s'", a);
        } else if (strchr(a, '=')) {
            if (tb_options_set_pair(&rp->opts, a, err, sizeof err))
                return cli_usage("match", "%s", err);
        } else {
            return cli_usage("match", "unexpected argument '%s'", a);
        }
    }
    if (!game_name)
        return cli_usage("match", "which game? (--game clans)");
    if (!agents_arg)
        return cli_usage("match", "which agents? (--agents ismcts,greedy)");
    if (!games)
        return cli_usage("match", "how many games? (--games 100)");
    if (shards && !out_path)
        return cli_usage("match", "--shard needs --out FILE (the shard's results, for "
                         "'tabula match merge')");
    if (shards > (uint64_t)games)
        return cli_usage("match", "--shard %llu/%llu: more shards than the %ld games",
                         (unsigned long long)shard, (unsigned long long)shards, games);
    rp->game = cli_game_arg("match", game_name);
    if (!rp->game)
        return 2;
    int n = 0;
    {
        char buf[2048];
        if (strlen(agents_arg) >= sizeof buf)
            return cli_usage("match", "--agents is too long");
        snprintf(buf, sizeof buf, "%s", agents_arg);
        char *save = NULL;
        for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            if (n >= TB_MAX_SEATS)
                return cli_usage("match", "--agents names more than %d agents", TB_MAX_SEATS);
            if (match_parse_agent(rp->game, w, &rp->entry[n], err, sizeof err) != 0)
                return cli_usage("match", "%s", err);
            n++;
        }
    }
    if (players && players != n)
        return cli_usage("match", "--players %ld but --agents names %d agent%s (one per seat)",
                         players, n, n == 1 ? "" : "s");
    if (n < tb_game_min_players(rp->game) || n > tb_game_max_players(rp->game))
        return cli_usage("match", "%s is for %d to %d players; --agents names %d", game_name,
                         tb_game_min_players(rp->game), tb_game_max_players(rp->game), n);
    rp->players = n;
    for (int i = 0; i < n; i++)
        if (rp->entry[i].net && !tb_net_fits(rp->entry[i].net, rp->game, n))
            return cli_usage("match", "agent '%s': its network is for %d players, not %d",
                             rp->entry[i].label, tb_net_players(rp->entry[i].net), n);
    {
        tb_options check = rp->opts;
        if (tb_options_normalize(rp->game, &check, err, sizeof err) != 0)
            return cli_usage("match", "%s", err);
    }
    match_pool_agents(rp);
    tb_data_set *boards = tb_data_set_new(); /* alive until every game is over */
    if (board_arg) {
        rp->data = cli_board_arg(boards, rp->game, board_arg, err, sizeof err);
        if (!rp->data) {
            tb_data_set_free(boards);
            return cli_usage("match", "%s", err);
        }
        snprintf(rp->data_name, sizeof rp->data_name, "%s", tb_data_name(rp->data));
        snprintf(rp->data_hash, sizeof rp->data_hash, "%s", tb_data_hash(rp->data));
    }
    rp->seed = seed;
    rp->total = (int)games;
    rp->first = shards ? (int)shard : 0;
    rp->stride = shards ? (int)shards : 1;
    rp->ngames = (rp->total - rp->first + rp->stride - 1) / rp->stride;
    rp->games = calloc((size_t)rp->ngames, sizeof *rp->games);
    if (!rp->games) {
        fprintf(stderr, "tabula match: out of memory for %d games\n", rp->ngames);
        tb_data_set_free(boards);
        return 1;
    }
    rp->progress = !quiet && isatty(STDERR_FILENO);
    pthread_mutex_init(&rp->lock, NULL);
    rp->start = cli_now_us();
    if (threads > rp->ngames)
        threads = rp->ngames;
    pthread_t tid[MATCH_MAX_THREADS];
    bool started[MATCH_MAX_THREADS] = {false};
    for (int i = 1; i < threads; i++)
        started[i] = pthread_create(&tid[i], NULL, match_worker, rp) == 0;
    match_worker(rp);
    for (int i = 1; i < threads; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    double seconds = (double)(cli_now_us() - rp->start) / 1e6;
    if (rp->progress)
        fprintf(stderr, "\n");
    pthread_mutex_destroy(&rp->lock);
    int rc = 0;
    for (int g = 0; g < rp->ngames; g++) {
        if (rp->games[g].error[0]) {
            fprintf(stderr, "tabula match: game %d: %s\n", rp->first + g * rp->stride,
                    rp->games[g].error);
            rc = 1;
        }
    }
    if (rc == 0 && shards) {
        if (match_write_shard(rp, seconds, (int)threads, out_path, err, sizeof err) != 0) {
            fprintf(stderr, "tabula match: %s\n", err);
            rc = 1;
        } else {
            printf("Shard %d/%d: %d of the %d games played in %.1f s; results and records: %s\n"
                   "Put the shards together with 'tabula match merge'.\n",
                   rp->first, rp->stride, rp->ngames, rp->total, seconds, out_path);
        }
    } else if (rc == 0) {
        match_stats st;
        match_tally(rp, &st);
        char how[80];
        snprintf(how, sizeof how, "%.1f s on %d thread%s", seconds, (int)threads,
                 threads == 1 ? "" : "s");
        match_print(rp, &st, how);
        if (out_path) {
            char *json = match_json(rp, &st, (int)threads, 1);
            if (!json) {
                snprintf(err, sizeof err, "out of memory writing %s", out_path);
                fprintf(stderr, "tabula match: %s\n", err);
                rc = 1;
            } else if (cli_write_file(out_path, json, err, sizeof err) != 0) {
                fprintf(stderr, "tabula match: %s\n", err);
                rc = 1;
            } else {
                printf("\nEvery game's record and the summary: %s\n", out_path);
            }
            free(json);
        }
    }
    for (int g = 0; g < rp->ngames; g++)
        free(rp->games[g].record);
    free(rp->games);
    tb_data_set_free(boards);
    return rc;
}
