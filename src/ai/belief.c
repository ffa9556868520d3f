/*
 * belief.c — inference of hidden roles (Clans: who holds which colour) from
 * the decisions the seats make, and the weighted deal a search draws from.
 *
 * After every decision the inference asks a fast model of play how likely
 * that decision was had the mover held each role (belief.h: the heuristic's
 * one-ply values, softened, with a uniform floor) and adds the log of it to
 * the mover's row.  A seat's belief over complete assignments multiplies the
 * rows of the others along the assignment.
 *
 * Invariants:
 *   - only public information enters: every position is judged with all the
 *     roles overwritten by the hypothesis (the mover's role) and a fixed
 *     filling of the others, so two states that differ only in roles give
 *     the same inference; a seat's belief adds its own role only;
 *   - a role gets likelihood 0 only when the decision is illegal under it
 *     (the floor keeps every legal decision above 0), so noise never rules a
 *     role out, and an impossible role stays impossible;
 *   - beliefs sum to 1; no globals, no randomness except tb__deals_apply's
 *     one draw from the generator it is handed.
 */
#include "belief.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tuned on the log-loss of the true colours over games of `normal` players
 * (docs/ai.md, "Clans colour inference"). */
tb__belief_model tb__belief_default_model(void)
{
    tb__belief_model m = {.temperature = 0.002, .floor = 0.1};
    return m;
}

tb_inference *tb__inference_new_model(const tb_game *game, int players,
                                      const tb__belief_model *model)
{
    int roles = game ? tb_role_count(game) : 0;
    if (roles < 2 || roles > TB__BELIEF_MAX_ROLES || players < tb_game_min_players(game) ||
        players > tb_game_max_players(game) || players > roles)
        return NULL;
    tb_inference *inf = calloc(1, sizeof *inf);
    if (!inf)
        return NULL;
    inf->game = game;
    inf->players = players;
    inf->roles = roles;
    inf->model = model ? *model : tb__belief_default_model();
    if (!(inf->model.temperature > 0.0))
        inf->model.temperature = tb__belief_default_model().temperature;
    if (!(inf->model.floor >= 0.0 && inf->model.floor <= 1.0))
        inf->model.floor = tb__belief_default_model().floor;
    return inf;
}

tb_inference *tb_inference_new(const tb_game *game, int players)
{
    return tb__inference_new_model(game, players, NULL);
}

void tb_inference_free(tb_inference *inference)
{
    free(inference);
}

int tb_inference_decisions(const tb_inference *inference)
{
    return inference ? inference->decisions : 0;
}

static bool belief_fits(const tb_inference *inf, const tb_state *s)
{
    return inf && s && tb_state_game(s) == inf->game && tb_players(s) == inf->players;
}

/* roles[] with `mover` holding `role` and the other seats the lowest other
 * roles in seat order: a hypothesis that says nothing about the others. */
static void belief_hypothesis(const tb_inference *inf, int mover, int role, int roles[TB_MAX_SEATS])
{
    int next = 0;
    for (int p = 0; p < inf->players; p++) {
        if (p == mover) {
            roles[p] = role;
            continue;
        }
        if (next == role)
            next++;
        roles[p] = next++;
    }
}

static double belief_value(const tb_state *s, int seat)
{
    if (tb_is_over(s)) {
        double r[TB_MAX_SEATS];
        tb_returns(s, r);
        return r[seat];
    }
    return tb_heuristic(s, seat);
}

int tb__inference_likelihoods(const tb_inference *inf, const tb_state *before, tb_move move,
                              double out[TB__BELIEF_MAX_ROLES])
{
    for (int r = 0; r < TB__BELIEF_MAX_ROLES; r++)
        out[r] = 1.0;
    if (!belief_fits(inf, before) || tb_is_over(before))
        return -1;
    int mover = tb_to_move(before);
    tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
    double *value = malloc((size_t)TB_MAX_MOVES * TB__BELIEF_MAX_ROLES * sizeof *value);
    tb_state *hyp = tb_state_dup(before);
    tb_state *trial = tb_state_dup(before);
    int result = -1;
    int n = moves ? tb_legal(before, moves) : 0;
    int chosen = -1;
    for (int i = 0; i < n && chosen < 0; i++)
        if (moves[i] == move)
            chosen = i;
    if (!value || !hyp || !trial || n < 2 || chosen < 0)
        goto done;
    /* The decisions and their effects do not depend on the roles: play each
     * once, then judge it under every role of the mover. */
    int roles[TB__BELIEF_MAX_ROLES][TB_MAX_SEATS];
    bool legal[TB__BELIEF_MAX_ROLES];
    for (int r = 0; r < inf->roles; r++) {
        belief_hypothesis(inf, mover, r, roles[r]);
        tb_set_roles(hyp, roles[r]);
        legal[r] = tb_is_legal(hyp, move);
    }
    for (int i = 0; i < n; i++) {
        tb_state_copy(trial, before);
        tb_apply(trial, moves[i]);
        for (int r = 0; r < inf->roles; r++) {
            tb_set_roles(trial, roles[r]);
            value[(size_t)i * TB__BELIEF_MAX_ROLES + (size_t)r] = belief_value(trial, mover);
        }
    }
    const double t = inf->model.temperature, floor = inf->model.floor;
    for (int r = 0; r < inf->roles; r++) {
        if (!legal[r]) {
            out[r] = 0.0;
            continue;
        }
        double top = -INFINITY;
        for (int i = 0; i < n; i++)
            top = fmax(top, value[(size_t)i * TB__BELIEF_MAX_ROLES + (size_t)r]);
        double z = 0.0;
        for (int i = 0; i < n; i++)
            z += exp((value[(size_t)i * TB__BELIEF_MAX_ROLES + (size_t)r] - top) / t);
        double pick = exp((value[(size_t)chosen * TB__BELIEF_MAX_ROLES + (size_t)r] - top) / t) / z;
        out[r] = (1.0 - floor) * pick + floor / n;
    }
    result = 0;
done:
    free(moves);
    free(value);
    tb_state_free(hyp);
    tb_state_free(trial);
    return result;
}

void tb__inference_update(tb_inference *inf, int mover, const double likelihood[])
{
    if (!inf)
        return;
    inf->decisions++;
    if (mover < 0 || mover >= inf->players)
        return;
    for (int r = 0; r < inf->roles; r++)
        inf->log_evidence[mover][r] += likelihood[r] > 0.0 ? log(likelihood[r]) : -INFINITY;
}

void tb_inference_observe(tb_inference *inference, const tb_state *before, tb_move move)
{
    if (!belief_fits(inference, before) || tb_is_over(before))
        return;
    double lik[TB__BELIEF_MAX_ROLES];
    tb__inference_likelihoods(inference, before, move, lik);
    tb__inference_update(inference, tb_to_move(before), lik);
}

/* Depth-first over the seats other than `seat`, each taking a role not yet
 * used; writes every complete assignment and its log-weight. */
static void belief_enumerate(const tb_inference *inf, int players, int roles, int seat, int p,
                             int assign[TB_MAX_SEATS], unsigned used, double logw, tb__deals *out)
{
    if (p == players) {
        if (out->count < TB__BELIEF_MAX_DEALS) {
            memcpy(out->roles[out->count], assign, sizeof out->roles[0]);
            out->p[out->count++] = logw;
        }
        return;
    }
    if (p == seat) {
        belief_enumerate(inf, players, roles, seat, p + 1, assign, used, logw, out);
        return;
    }
    for (int r = 0; r < roles; r++) {
        if (used & (1u << r))
            continue;
        assign[p] = r;
        double w = inf ? inf->log_evidence[p][r] : 0.0;
        belief_enumerate(inf, players, roles, seat, p + 1, assign, used | (1u << r), logw + w, out);
    }
}

int tb__inference_deals(const tb_inference *inf, const tb_state *state, int seat, tb__deals *out)
{
    out->count = 0;
    if (!state || (inf && !belief_fits(inf, state)))
        return -1;
    int roles = tb_role_count(tb_state_game(state)), players = tb_players(state);
    if (roles < 2 || roles > TB__BELIEF_MAX_ROLES || seat < 0 || seat >= players)
        return -1;
    int own = tb_role_of(state, seat);
    if (own < 0 || own >= roles)
        return -1;
    int assign[TB_MAX_SEATS] = {0};
    assign[seat] = own;
    belief_enumerate(inf, players, roles, seat, 0, assign, 1u << own, 0.0, out);
    if (out->count == 0)
        return -1;
    double top = -INFINITY;
    for (int i = 0; i < out->count; i++)
        top = fmax(top, out->p[i]);
    double sum = 0.0;
    for (int i = 0; i < out->count; i++) {
        out->p[i] = top == -INFINITY ? 1.0 : exp(out->p[i] - top); /* contradiction: uniform */
        sum += out->p[i];
    }
    double run = 0.0;
    for (int i = 0; i < out->count; i++) {
        out->p[i] /= sum;
        run += out->p[i];
        out->cum[i] = run;
    }
    out->cum[out->count - 1] = 1.0;
    return 0;
}

void tb__deals_apply(const tb__deals *deals, tb_state *s, tb_rng *rng)
{
    if (deals->count < 1)
        return;
    double u = tb_rng_unit(rng);
    int lo = 0, hi = deals->count - 1; /* the first with cum > u */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (deals->cum[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    tb_set_roles(s, deals->roles[lo]);
}

double tb_inference_chance(const tb_inference *inference, const tb_state *state, int seat,
                           int other, int role)
{
    if (!belief_fits(inference, state) || other < 0 || other >= inference->players || role < 0 ||
        role >= inference->roles)
        return -1.0;
    if (other == seat && seat >= 0 && seat < inference->players)
        return tb_role_of(state, seat) == role ? 1.0 : 0.0;
    tb__deals *deals = malloc(sizeof *deals);
    if (!deals || tb__inference_deals(inference, state, seat, deals) != 0) {
        free(deals);
        return -1.0;
    }
    double chance = 0.0;
    for (int i = 0; i < deals->count; i++)
        if (deals->roles[i][other] == role)
            chance += deals->p[i];
    free(deals);
    return chance;
}
