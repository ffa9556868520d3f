/*
 * ai_tune.c — the tuning harness behind the search settings in docs/ai.md:
 * plays one agent against another with the information-set search's knobs
 * (tb__ismcts_config) set from the command line, which `tabula match`
 * deliberately does not expose.  Not part of the build; compile it against
 * a built library:
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -Isrc/core \
 *      bench/ai_tune.c build/libtabula.a -ljansson -lm -lpthread -o ai_tune
 *   ./ai_tune clans 2 ism:2000:8:0.3:0 greedy 200 [SEED]
 *
 * An agent is random, greedy, or
 * ism:ITERATIONS:PLAYOUT_DEPTH:EXPLORATION[:ROOT_PRIOR[:PLAYOUT_PICK]]
 * (PLAYOUT_DEPTH -1: play out to the end).
 * The first agent sits in seat g mod N of game g and the second in every
 * other seat; game g deals SEED + g / N, so every deal is played from every
 * seat.  Decisions go through tb_resample exactly as tb_agent_decide does.
 */
#include "tabula.h"
#include "ai/agents.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct tune_agent {
    int kind; /* 0 random, 1 greedy, 2 search */
    tb__ismcts_config cfg;
    int64_t iterations;
} tune_agent;

static uint64_t tune_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int tune_parse(const char *spec, tune_agent *a)
{
    memset(a, 0, sizeof *a);
    a->cfg = tb__ismcts_defaults(NULL);
    if (strcmp(spec, "random") == 0)
        return 0;
    if (strcmp(spec, "greedy") == 0) {
        a->kind = 1;
        return 0;
    }
    long long iterations;
    int depth, prior = 0, pick = 1;
    double c;
    if (sscanf(spec, "ism:%lld:%d:%lf:%d:%d", &iterations, &depth, &c, &prior, &pick) < 3)
        return -1;
    a->cfg.playout_pick = pick;
    a->kind = 2;
    a->iterations = iterations;
    a->cfg.playout_depth = depth;
    a->cfg.exploration = c;
    a->cfg.root_prior = prior;
    return 0;
}

static tb_move tune_decide(const tune_agent *a, const tb_state *truth, uint64_t seed, double *us)
{
    tb_state *view = tb_state_dup(truth);
    tb_rng rng;
    tb_rng_seed(&rng, seed);
    tb_rng deal = tb_rng_split(&rng);
    int seat = tb_to_move(truth);
    tb_resample(view, seat, &deal);
    tb_budget budget = {.iterations = a->iterations};
    uint64_t t0 = tune_now_us();
    tb_move m;
    if (a->kind == 0)
        m = tb__random_agent.choose(view, seat, &budget, &rng, NULL);
    else if (a->kind == 1)
        m = tb__greedy_agent.choose(view, seat, &budget, &rng, NULL);
    else
        m = tb__ismcts_search(view, seat, &budget, &rng, NULL, &a->cfg);
    *us += (double)(tune_now_us() - t0);
    tb_state_free(view);
    return m;
}

int main(int argc, char **argv)
{
    tune_agent a, b;
    const tb_game *g = argc >= 6 ? tb_game_find(argv[1]) : NULL;
    int players = argc >= 6 ? atoi(argv[2]) : 0;
    int games = argc >= 6 ? atoi(argv[5]) : 0;
    if (!g || players < tb_game_min_players(g) || players > tb_game_max_players(g) ||
        games < 1 || tune_parse(argv[3], &a) || tune_parse(argv[4], &b)) {
        fprintf(stderr, "usage: ai_tune GAME PLAYERS AGENT_A AGENT_B GAMES [SEED]\n");
        return 2;
    }
    uint64_t seed = argc > 6 ? strtoull(argv[6], NULL, 10) : 1;
    double won = 0, score_a = 0, score_b = 0, us_a = 0, us_b = 0;
    long decisions_a = 0, decisions_b = 0;
    tb_state *s = tb_state_new(g);
    for (int i = 0; i < games; i++) {
        tb_setup(s, players, NULL, seed + (uint64_t)(i / players), NULL, 0);
        int a_seat = i % players;
        while (!tb_is_over(s)) {
            uint64_t ds = (seed * 7919u + (uint64_t)i) * 100003u + (uint64_t)tb_decisions_made(s);
            tb_move m;
            if (tb_to_move(s) == a_seat) {
                m = tune_decide(&a, s, ds, &us_a);
                decisions_a++;
            } else {
                m = tune_decide(&b, s, ds, &us_b);
                decisions_b++;
            }
            tb_apply(s, m);
        }
        double r[TB_MAX_SEATS];
        int sc[TB_MAX_SEATS];
        tb_returns(s, r);
        tb_scores(s, sc);
        won += r[a_seat];
        for (int p = 0; p < players; p++) {
            if (p == a_seat)
                score_a += sc[p];
            else
                score_b += sc[p];
        }
    }
    tb_state_free(s);
    double p = won / games;
    printf("%s vs %s (%d players, %d games): A wins %.1f = %.3f +- %.3f; mean score A %.1f "
           "B %.1f; ms/decision A %.2f B %.2f\n",
           argv[3], argv[4], players, games, won, p, 1.96 * sqrt(p * (1 - p) / games),
           score_a / games, score_b / games / (players - 1),
           us_a / 1000 / (double)(decisions_a ? decisions_a : 1),
           us_b / 1000 / (double)(decisions_b ? decisions_b : 1));
    return 0;
}
