/*
 * agents.h — the agents built into the library (private to src/ai, and to
 * the unit tests that reach the search's knobs).  Each is a const tb_agent
 * listed in agent.c's table.
 */
#ifndef TB_AI_AGENTS_H
#define TB_AI_AGENTS_H

#include "tabula.h"

extern const tb_agent tb__random_agent;
extern const tb_agent tb__greedy_agent;
extern const tb_agent tb__ismcts_agent;

/* The knobs of the information-set search (ismcts.c).  tb__ismcts_agent
 * uses tb__ismcts_defaults() for the game searched; tests and experiments
 * pass their own. */
typedef struct tb__ismcts_config {
    double exploration;       /* UCB constant for returns in [0,1] */
    int playout_depth;        /* random decisions played out before the heuristic
                                 judges every seat (0: it judges the new leaf at
                                 once); -1: to the end of the game, as always
                                 when the game has no heuristic */
    int playout_pick;         /* each playout decision is the heuristic's favourite
                                 (for the mover) of this many random draws; 1:
                                 uniformly random; at most 16 */
    int root_prior;           /* virtual visits at the heuristic's value given to
                                 each decision at the root; 0: none */
    int64_t node_cap;         /* most tree nodes per search, over all threads */
    int64_t default_iterations; /* used when the budget sets no limit */
    bool search_forced;       /* search a position with one legal decision too,
                                 instead of answering it at once (the review) */
    bool root_restricted;     /* the root considers root_move only, legal or
                                 dominated (the review's value of a decision) */
    tb_move root_move;
    /* Optional (NULL: none): receives every root decision searched with its
     * visits (the policy; tb_agent_decide_policy). */
    struct tb__visit_sink *sink;
} tb__ismcts_config;

typedef struct tb__visit_sink {
    tb_move *move;
    int64_t *visits;
    int cap, count;
} tb__visit_sink;

/* The settings the agent searches `game` with (NULL: the general ones). */
tb__ismcts_config tb__ismcts_defaults(const tb_game *game);
tb_move tb__ismcts_search(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                          tb_agent_report *report, const tb__ismcts_config *config);
/* The same search; root_mean (may be NULL) receives every seat's mean return
 * over all the search's iterations (the position's value for each seat, as
 * seen from `seat`'s information), or the heuristic's values when the
 * position was answered without search. */
tb_move tb__ismcts_search_values(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                                 tb_agent_report *report, const tb__ismcts_config *config,
                                 double root_mean[TB_MAX_SEATS]);

#endif
