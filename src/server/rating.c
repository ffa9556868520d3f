/*
 * rating.c — the Weng–Lin Bayesian approximation with the Plackett–Luce
 * model (rating.h; docs/ratings.md has the formulas with the paper's names).
 *
 * For seats i = 1..n with ratings (mu_i, sigma_i) and ranks r(i):
 *   sigma_i^2 += tau^2                       (dynamics: skill drifts a little)
 *   c   = sqrt(sum_i (sigma_i^2 + beta^2))
 *   C_q = { s : r(s) >= r(q) }               (q and every seat not better)
 *   A_q = |{ s : r(s) = r(q) }|              (how many share q's rank)
 *   p_{i,q} = exp(mu_i / c) / sum_{s in C_q} exp(mu_s / c)
 *   Omega_i = sigma_i^2 / c * sum_{q : r(q) <= r(i)} ([q = i] - p_{i,q}) / A_q
 *   Delta_i = gamma_i * sigma_i^2 / c^2 * sum_{q : r(q) <= r(i)} p_{i,q} (1 - p_{i,q}) / A_q,
 *             gamma_i = sigma_i / c
 *   mu_i' = mu_i + Omega_i,  sigma_i'^2 = sigma_i^2 * max(1 - Delta_i, kappa)
 * The exponentials of C_q are taken relative to its largest mu, which
 * changes no p but keeps them finite (and the sum at least 1) whatever the
 * ratings.
 *
 * Invariants: rating.h.  No I/O, no allocation, no global state.
 */
#include "rating.h"

#include <math.h>
#include <string.h>

srv_rating_params srv_rating_defaults(void)
{
    srv_rating_params p = {SRV_RATING_BETA, SRV_RATING_TAU, SRV_RATING_KAPPA};
    return p;
}

int srv_rating_update(const srv_rating_params *p, int n, const srv_rating *in, const int *rank,
                      const bool *fixed, srv_rating *out)
{
    if (!p || !in || !rank || !out || n < 2 || n > SRV_RATING_MAX || !isfinite(p->beta) ||
        p->beta <= 0 || !isfinite(p->tau) || p->tau < 0 || !(p->kappa > 0 && p->kappa <= 1))
        return -1;
    for (int i = 0; i < n; i++)
        if (rank[i] < 1 || rank[i] > n || !isfinite(in[i].mu) || !isfinite(in[i].sigma) ||
            in[i].sigma <= 0)
            return -1;
    double var[SRV_RATING_MAX], top[SRV_RATING_MAX], sum[SRV_RATING_MAX];
    int tied[SRV_RATING_MAX];
    double c2 = 0;
    for (int i = 0; i < n; i++) {
        var[i] = in[i].sigma * in[i].sigma + p->tau * p->tau;
        c2 += var[i] + p->beta * p->beta;
    }
    double c = sqrt(c2);
    for (int q = 0; q < n; q++) { /* C_q's largest mu, its sum, the ties */
        top[q] = in[q].mu;
        for (int s = 0; s < n; s++)
            if (rank[s] >= rank[q] && in[s].mu > top[q])
                top[q] = in[s].mu;
        sum[q] = 0;
        tied[q] = 0;
        for (int s = 0; s < n; s++) {
            if (rank[s] >= rank[q])
                sum[q] += exp((in[s].mu - top[q]) / c);
            tied[q] += rank[s] == rank[q];
        }
    }
    srv_rating next[SRV_RATING_MAX];
    for (int i = 0; i < n; i++) {
        double omega = 0, delta = 0;
        for (int q = 0; q < n; q++) {
            if (rank[q] > rank[i])
                continue;
            double pq = exp((in[i].mu - top[q]) / c) / sum[q];
            omega += ((q == i ? 1.0 : 0.0) - pq) / tied[q];
            delta += pq * (1 - pq) / tied[q];
        }
        double gamma = sqrt(var[i]) / c;
        omega *= var[i] / c;
        delta *= gamma * var[i] / c2;
        if (fixed && fixed[i]) {
            next[i] = in[i];
        } else {
            double shrink = 1 - delta;
            if (shrink < p->kappa)
                shrink = p->kappa;
            next[i].mu = in[i].mu + omega;
            next[i].sigma = sqrt(var[i] * shrink);
        }
    }
    memcpy(out, next, (size_t)n * sizeof *out);
    return 0;
}

double srv_rating_shown(srv_rating r)
{
    return r.mu - 3 * r.sigma;
}

int srv_rating_computer(const char *game, const char *level, srv_rating *out)
{
    for (int i = 0; game && level && i < srv_computer_ratings_count; i++)
        if (strcmp(srv_computer_ratings[i].game, game) == 0 &&
            strcmp(srv_computer_ratings[i].level, level) == 0) {
            out->mu = srv_computer_ratings[i].mu;
            out->sigma = srv_computer_ratings[i].sigma;
            return 0;
        }
    return -1;
}

int srv_rating_game(const char *game, int n, srv_rated_seat *seat)
{
    if (n < 2 || n > SRV_RATING_MAX)
        return -1;
    srv_rating in[SRV_RATING_MAX], out[SRV_RATING_MAX];
    int rank[SRV_RATING_MAX];
    bool fixed[SRV_RATING_MAX];
    int accounts = 0;
    for (int i = 0; i < n; i++) {
        srv_rated_seat *st = &seat[i];
        rank[i] = st->rank;
        fixed[i] = st->account <= 0;
        in[i] = (srv_rating){SRV_RATING_MU0, SRV_RATING_SIGMA0};
        if (st->account > 0) {
            accounts++;
            for (int j = 0; j < i; j++)
                if (seat[j].account == st->account)
                    return 1;
            if (st->known)
                in[i] = st->before;
        } else if (st->ai) {
            srv_rating_computer(game, st->level, &in[i]); /* unrated levels: mu0, sigma0 */
        }
    }
    if (!accounts)
        return 1;
    srv_rating_params p = srv_rating_defaults();
    if (srv_rating_update(&p, n, in, rank, fixed, out))
        return -1;
    for (int i = 0; i < n; i++) {
        seat[i].before = in[i];
        seat[i].after = out[i];
        if (seat[i].account > 0) {
            seat[i].games++;
            seat[i].wins += seat[i].rank == 1;
        }
    }
    return 0;
}
