/*
 * agent.c — the table of agents, the one door through which a holder of
 * the true state asks an agent for a decision, and the player levels.
 *
 * Invariant (DESIGN.md §4, "no peeking AI"): tb_agent_decide hands the agent
 * a copy whose secrets hidden from the mover were re-dealt by tb_resample
 * from a generator seeded only by the caller's seed, so the agent's choice
 * is a function of the mover's view, the budget and the seed.
 */
#include "agents.h"

#include <string.h>

static const tb_agent *const agent_table[] = {
    &tb__random_agent,
    &tb__greedy_agent,
    &tb__ismcts_agent,
};

#define AGENT_COUNT ((int)(sizeof agent_table / sizeof agent_table[0]))

int tb_agent_count(void)
{
    return AGENT_COUNT;
}

const tb_agent *tb_agent_at(int index)
{
    return index >= 0 && index < AGENT_COUNT ? agent_table[index] : NULL;
}

const tb_agent *tb_agent_find(const char *name)
{
    for (int i = 0; name && i < AGENT_COUNT; i++)
        if (strcmp(agent_table[i]->name, name) == 0)
            return agent_table[i];
    return NULL;
}

tb_move tb_agent_decide(const tb_agent *agent, const tb_state *truth, const tb_budget *budget,
                        uint64_t seed, tb_agent_report *report)
{
    int seat = tb_to_move(truth);
    tb_state *view = tb_state_dup(truth);
    tb_rng rng;
    tb_rng_seed(&rng, seed);
    tb_rng deal = tb_rng_split(&rng);
    tb_budget none = {0};
    if (report)
        memset(report, 0, sizeof *report);
    if (!view) /* no memory for the seat's view: a legal decision all the same (as the
                * search falls back when it has no room), from what the mover may know */
        return tb_random_move(truth, &rng);
    tb_resample(view, seat, &deal);
    tb_move m = agent->choose(view, seat, budget ? budget : &none, &rng, report);
    tb_state_free(view);
    return m;
}

tb_move tb_agent_decide_policy(const tb_agent *agent, const tb_state *truth,
                               const tb_budget *budget, uint64_t seed, tb_agent_report *report,
                               tb_move *moves, int64_t *visits, int cap, int *count)
{
    int seat = tb_to_move(truth);
    tb_state *view = tb_state_dup(truth);
    tb_rng rng;
    tb_rng_seed(&rng, seed);
    tb_rng deal = tb_rng_split(&rng);
    tb_resample(view, seat, &deal);
    tb_budget none = {0};
    if (report)
        memset(report, 0, sizeof *report);
    tb__visit_sink sink = {.move = moves, .visits = visits, .cap = cap, .count = 0};
    tb_move m;
    if (agent == &tb__ismcts_agent) { /* the same search as its choose, with a sink */
        tb__ismcts_config cfg = tb__ismcts_defaults(tb_state_game(view));
        cfg.sink = &sink;
        m = tb__ismcts_search(view, seat, budget ? budget : &none, &rng, report, &cfg);
    } else {
        m = agent->choose(view, seat, budget ? budget : &none, &rng, report);
    }
    if (sink.count == 0 && cap > 0) { /* no visits: the choice alone */
        moves[0] = m;
        visits[0] = 1;
        sink.count = 1;
    }
    *count = sink.count;
    tb_state_free(view);
    return m;
}

/* Levels for people.  Each names an agent and a budget; a level whose agent
 * is not built in is reported as unknown.  Iteration budgets, not time, so a
 * level plays the same on every machine (and replays from a seed).  A row
 * naming a game overrides the general row for that game.  Measured with
 * `tabula match` (docs/ai.md): in two-player Clans easy beats greedy in 60% of
 * games at about a millisecond of CPU per decision, normal in 81% at about
 * 20 ms, hard in 88% at about a quarter of a second (0.6 s in the opening,
 * the slowest position).  Khronos's hard level searches 25,000 iterations:
 * an iteration costs about five times one of Clans's, so 50,000 would pass a
 * second per decision, and 25,000 (about 0.7 s) beats normal in 66% of
 * 200 games where 10,000 managed only 55% of 160 (docs/ai.md, "Ladders"). */
static const struct {
    const char *level;
    const char *game; /* NULL: every game without a row of its own */
    const char *agent;
    int64_t iterations;
} level_table[] = {
    {"easy", NULL, "ismcts", 300},
    {"normal", NULL, "ismcts", 5000},
    {"hard", NULL, "ismcts", 50000},
    {"hard", "khronos", "ismcts", 25000},
};

int tb_level_lookup(const tb_game *game, const char *level, const tb_agent **agent,
                    tb_budget *budget)
{
    int found = -1;
    for (int i = 0; i < (int)(sizeof level_table / sizeof level_table[0]); i++) {
        if (strcmp(level_table[i].level, level) != 0)
            continue;
        if (!level_table[i].game && found < 0)
            found = i;
        if (level_table[i].game && game && strcmp(level_table[i].game, tb_game_name(game)) == 0)
            found = i;
    }
    if (found < 0)
        return -1;
    const tb_agent *a = tb_agent_find(level_table[found].agent);
    if (!a)
        return -1;
    *agent = a;
    memset(budget, 0, sizeof *budget);
    budget->iterations = level_table[found].iterations;
    return 0;
}
