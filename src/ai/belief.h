/*
 * belief.h — inference of hidden roles (Clans: the colours), private to
 * src/ai and to the tests and tuning tools that reach its knobs.
 *
 * A tb_inference holds, for every seat and role, the log-likelihood of the
 * seat's decisions so far had it held that role.  It is public information:
 * the positions are read with every role overwritten by each hypothesis, so
 * the true roles never enter.  A seat's belief combines it with the seat's
 * own role: every complete assignment of distinct roles that gives the seat
 * its own role has a weight, the product of the other seats' likelihoods of
 * their roles in it (the decisions of a seat are judged by the mover's role
 * only: the heuristic of a seat reads nothing else that is secret).
 */
#ifndef TB_AI_BELIEF_H
#define TB_AI_BELIEF_H

#include "tabula.h"

#define TB__BELIEF_MAX_ROLES 8
/* Complete assignments of a seat's belief: at most 7 * 6 * 5 * 4 (five
 * players, eight roles). */
#define TB__BELIEF_MAX_DEALS 840

/* The fast model of play that judges how likely a decision is under each
 * role: the mover picks decision i with probability
 *   (1 - floor) * softmax(value_i / temperature) + floor / legal,
 * value_i being the heuristic's value for the mover after it (the exact
 * return when it ends the game).  A decision illegal under a role gets 0. */
typedef struct tb__belief_model {
    double temperature;
    double floor;
} tb__belief_model;

tb__belief_model tb__belief_default_model(void);

struct tb_inference {
    const tb_game *game;
    int players, roles;
    int decisions; /* decisions taken note of */
    tb__belief_model model;
    double log_evidence[TB_MAX_SEATS][TB__BELIEF_MAX_ROLES]; /* -INFINITY: impossible */
};

/* Like tb_inference_new, with a model of play of the caller's. */
tb_inference *tb__inference_new_model(const tb_game *game, int players,
                                      const tb__belief_model *model);

/* The likelihood of `move` in `before` had the mover held each role (out[r],
 * r < the game's role count).  Returns 0, or -1 when the move tells nothing
 * (it is not legal, or it was the only legal decision): out[] is all 1. */
int tb__inference_likelihoods(const tb_inference *inf, const tb_state *before, tb_move move,
                              double out[TB__BELIEF_MAX_ROLES]);

/* Multiplies the mover's evidence by likelihood[r] for each role (0 makes a
 * role impossible for that seat for good) and counts one decision. */
void tb__inference_update(tb_inference *inf, int mover, const double likelihood[]);

/* A seat's belief over complete role assignments. */
typedef struct tb__deals {
    int count;
    int roles[TB__BELIEF_MAX_DEALS][TB_MAX_SEATS];
    double p[TB__BELIEF_MAX_DEALS];   /* sums to 1 */
    double cum[TB__BELIEF_MAX_DEALS]; /* running sums of p; the last is 1 */
} tb__deals;

/* Fills `out` with the belief of `seat` (its own role read from `state`):
 * every assignment of distinct roles giving the seat its own, with its
 * probability.  If no assignment is possible (evidence that contradicts
 * itself) every one is equally likely.  inf may be NULL: uniform.  Returns
 * 0, or -1 when the game has no roles or the arguments do not fit. */
int tb__inference_deals(const tb_inference *inf, const tb_state *state, int seat, tb__deals *out);

/* Overwrites the roles of `s` with an assignment drawn from `deals` (one
 * draw from rng). */
void tb__deals_apply(const tb__deals *deals, tb_state *s, tb_rng *rng);

#endif
