/*
 * greedy.c — the one-ply agent: every legal decision is tried on a copy of
 * the view and judged by the game's heuristic for the mover (a decision that
 * ends the game is judged by its exact return instead); the best is played,
 * ties broken uniformly by the generator it is handed.
 *
 * Invariants: the choice depends only on the view, the seat and the
 * generator (no clock, no globals); it is always one of tb_legal's
 * decisions; the report lists the best few with their values, best first.
 */
#include "agents.h"

#include <stdlib.h>

typedef struct greedy_entry {
    tb_move move;
    double value;
} greedy_entry;

static int greedy_by_value(const void *a, const void *b)
{
    const greedy_entry *x = a, *y = b;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    return x->move < y->move ? -1 : x->move > y->move;
}

static tb_move greedy_choose(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                             tb_agent_report *report)
{
    (void)budget;
    tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
    greedy_entry *entry = malloc(TB_MAX_MOVES * sizeof *entry);
    tb_state *trial = tb_state_dup(view);
    if (!moves || !entry || !trial) {
        free(moves);
        free(entry);
        tb_state_free(trial);
        return tb_random_move(view, rng);
    }
    int n = tb_legal(view, moves);
    tb_move best = n ? moves[0] : 0;
    double best_value = -1.0;
    int ties = 0;
    for (int i = 0; i < n; i++) {
        tb_state_copy(trial, view);
        tb_apply(trial, moves[i]);
        double v;
        if (tb_is_over(trial)) {
            double r[TB_MAX_SEATS];
            tb_returns(trial, r);
            v = r[seat];
        } else {
            v = tb_heuristic(trial, seat);
        }
        entry[i].move = moves[i];
        entry[i].value = v;
        if (v > best_value) {
            best_value = v;
            best = moves[i];
            ties = 1;
        } else if (v == best_value && tb_rng_below(rng, (uint32_t)++ties) == 0) {
            best = moves[i]; /* reservoir: each tied decision equally likely */
        }
    }
    if (report && n == 0) {
        report->iterations = 0;
        report->count = 0;
    } else if (report) {
        /* The chosen decision first (a tie may have sorted another ahead of
         * it), then the best of the rest. */
        qsort(entry, (size_t)n, sizeof *entry, greedy_by_value);
        report->iterations = n;
        report->count = 0;
        report->move[report->count] = best;
        report->value[report->count] = best_value;
        report->visits[report->count++] = 1;
        for (int i = 0; i < n && report->count < TB_REPORT_MOVES; i++) {
            if (entry[i].move == best)
                continue;
            report->move[report->count] = entry[i].move;
            report->value[report->count] = entry[i].value;
            report->visits[report->count++] = 1;
        }
    }
    free(moves);
    free(entry);
    tb_state_free(trial);
    return best;
}

const tb_agent tb__greedy_agent = {
    .name = "greedy",
    .summary = "one ply: the decision the game's heuristic likes best for the mover",
    .choose = greedy_choose,
};
