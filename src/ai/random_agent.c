/*
 * random_agent.c — the uniform random agent: a legal decision chosen with
 * equal probability, from the generator it is handed (so a fixed seed gives
 * a fixed choice).
 */
#include "agents.h"

static tb_move random_choose(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                             tb_agent_report *report)
{
    (void)seat;
    (void)budget;
    tb_move m = tb_random_move(view, rng);
    if (report) {
        report->iterations = 0;
        report->count = 0;
    }
    return m;
}

const tb_agent tb__random_agent = {
    .name = "random",
    .summary = "picks a legal decision uniformly at random",
    .choose = random_choose,
};
