/*
 * ismcts.c — single-observer information-set Monte Carlo tree search
 * (Cowling, Powley & Whitehouse 2012), for any registered game.
 *
 * One iteration: copy the view the agent was handed and re-deal every secret
 * the searching seat cannot see (tb_resample), so each iteration searches a
 * different guess of the hidden state (with budget->inference, the other
 * seats' hidden roles are then dealt by the mover's belief: belief.c); descend one tree whose edges are
 * decisions (tb_move values, which never encode a secret), choosing among
 * the children that are legal in this guess by UCB with availability counts
 * (a child's exploration term uses how often it was available, not how often
 * its parent was visited), leaving out the decisions the game knows to be
 * dominated (tb_legal_undominated); add one new child; play out a few decisions,
 * each the heuristic's favourite (for the seat making it) of a few random
 * draws (how many of each, and the exploration constant: per game,
 * ism_game_settings), and let the game's
 * heuristic judge every seat (a game without a
 * heuristic is played out uniformly at random to the end); back up one
 * return per seat,
 * each node crediting the seat that made its decision (max^n).
 *
 * With a trained network (budget->net, net.c): every root decision is
 * seeded, its network policy P is added to its score as AlphaZero's PUCT
 * term (c_net * P * sqrt(avail) / (1 + visits)), and a leaf is judged by
 * the network's value for the seat to move there (the others share the
 * rest) instead of a playout.
 *
 * Invariants:
 *   - the search reads the view and its own generator only: no clock unless
 *     the caller supplies budget->now_us, no globals, so a fixed seed and an
 *     iteration budget give the same tree, and the same decision, every time
 *     (with any fixed number of threads);
 *   - nodes live in one pool per tree, indexed (never pointers), children of
 *     a node in a sibling list sorted by move; the pool never holds more than
 *     its cap: when full the search stops adding nodes and keeps descending
 *     through the ones it has, so any cap of one node or more gives a legal
 *     decision;
 *   - with threads, each thread grows its own tree from its own split
 *     generator (root parallelism) and the root statistics are summed by
 *     move; threads share only the read-only view.
 */
#include "agents.h"
#include "belief.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ISM_MAX_THREADS 64
#define ISM_MAX_DEPTH 512          /* deepest descent; beyond it, play out */
#define ISM_CLOCK_EVERY 16         /* iterations between looks at the clock */
#define ISM_MAX_VISITS 2000000000  /* stop before a node's int32 counts overflow */
#define ISM_MAX_PICK 16            /* most random draws one playout decision compares */
#define ISM_LIST_CAP (1 << 21)     /* most decisions one tree remembers (8 MiB) */
#define ISM_NET_PRIOR 1.0          /* weight of a network's policy at the root (c_net) */

/* The settings a game searches best with, where they differ from the
 * general ones.  Each row was measured against the general settings on the
 * same deals (docs/ai.md, "Search settings per game"): Khronos's turns are
 * long chains of decisions whose worth shows only once the turn's buildings
 * stand, so shorter playouts with a sharper choice of each decision judge a
 * leaf better; and its decisions differ in value by little, so a smaller
 * exploration constant lets a longer search settle on the best of them
 * (level head to head at 5000 iterations; with it 10,000 iterations beat
 * 5000, which at 0.3 they did not, and 25,000 beat 5000 clearly). */
static const struct {
    const char *game;
    int playout_depth;
    int playout_pick;
    double exploration;
} ism_game_settings[] = {
    {"khronos", 2, 4, 0.15},
};

tb__ismcts_config tb__ismcts_defaults(const tb_game *game)
{
    tb__ismcts_config c = {
        .exploration = 0.3,
        .playout_depth = 4,
        .playout_pick = 2,
        .root_prior = 0,
        .node_cap = (int64_t)1 << 21,
        .default_iterations = 5000, /* the `normal` level */
    };
    for (size_t i = 0; game && i < sizeof ism_game_settings / sizeof ism_game_settings[0]; i++) {
        if (strcmp(ism_game_settings[i].game, tb_game_name(game)) == 0) {
            c.playout_depth = ism_game_settings[i].playout_depth;
            c.playout_pick = ism_game_settings[i].playout_pick;
            c.exploration = ism_game_settings[i].exploration;
        }
    }
    return c;
}

typedef struct ism_node {
    tb_move move;    /* the decision that leads here from the parent */
    int32_t child;   /* first child (lowest move), or -1 */
    int32_t sibling; /* next child of the same parent (higher move), or -1 */
    int8_t seat;     /* the seat that made `move` (-1 at the root) */
    uint8_t full;    /* every decision here is a child, in every guess */
    int16_t prior;   /* virtual visits included in visits (root_prior) */
    int32_t visits;
    int32_t avail;   /* visits of the parent in which this decision was legal */
    double reward;   /* sum of the returns of `seat` over visits */
    double mean;     /* reward / visits, kept with them (UCB reads it often) */
} ism_node;

/* Trees are allocated one after another by the thread that starts the
 * search, each next to the previous tree's hot states; the guards keep a
 * tree's own hot fields (generator, counters) off the cache lines another
 * thread writes, whatever the allocator puts next to them. */
#define ISM_GUARD 128

typedef struct ism_tree {
    char guard_head[ISM_GUARD];
    const tb_state *view;
    const tb__deals *deals;   /* hidden roles dealt by belief, or NULL: uniformly */
    int seat, players;
    bool judge;               /* cut playouts short and ask the heuristic */
    bool public_moves;        /* the game's decisions never depend on the re-deal */
    /* With public decisions: a node's sorted decisions, listed once and
     * remembered (list_at[node]: offset in lists of its count, then the
     * decisions; -1 when not listed), until lists holds ISM_LIST_CAP. */
    int32_t *list_at;
    tb_move *lists;
    int64_t lists_used, lists_alloc;
    tb_rng rng;
    const tb__ismcts_config *cfg;
    uint64_t (*now_us)(void);
    int64_t target;           /* iterations to run; 0: until the deadline */
    uint64_t deadline;        /* microseconds on now_us; 0: none */
    int64_t cap;              /* most nodes this tree may hold */
    ism_node *pool;
    int64_t used, alloc;
    int64_t done;             /* iterations run */
    double root_sum[TB_MAX_SEATS]; /* every seat's returns summed over iterations */
    tb_state *det;            /* this iteration's guess of the hidden state */
    /* For judging playout decisions: a candidate's position is played on
     * one, and the best so far kept on the other; the chosen one then
     * changes places with det (no second apply of the chosen decision). */
    tb_state *scratch, *kept;
    /* sqrt(log a) and 1/sqrt(v) for the small counts UCB meets most: entries
     * [0, filled) are computed, one more per iteration, so a table never
     * lags the counts (a count never exceeds iterations + 1). */
    double *sqrt_log, *inv_sqrt;
    int64_t tab_n, filled;
    int32_t path[ISM_MAX_DEPTH + 1];
    tb_move moves[TB_MAX_MOVES];
    tb_move untried[TB_MAX_MOVES];
    /* The root's sorted decisions when the searching seat makes them: the
     * same in every guess (a seat's own decisions never depend on secrets it
     * cannot see; the simulations check it for every game), so listed at the
     * first visit only and then treated as public decisions (root_n < 0: not
     * yet, or not the searching seat's). */
    int root_n;
    tb_move root_moves[TB_MAX_MOVES];
    /* With a network: the root children's policy by pool index (the seeded
     * children are 1 .. root_bias_n), shared read-only, and this tree's room
     * for an observation and an evaluation. */
    const tb_net *net;
    const float *root_bias;
    int32_t root_bias_n;
    float *obs, *net_scratch;
    char guard_tail[ISM_GUARD];
} ism_tree;

static int ism_cmp_move(const void *a, const void *b)
{
    tb_move x = *(const tb_move *)a, y = *(const tb_move *)b;
    return x < y ? -1 : x > y;
}

/* Games list decisions in their canonical order, which need not be numeric;
 * the merge with a node's children needs ascending values. */
static void ism_sort(tb_move *m, int n)
{
    for (int i = 1; i < n; i++) {
        if (m[i - 1] > m[i]) {
            qsort(m, (size_t)n, sizeof *m, ism_cmp_move);
            return;
        }
    }
}

/* Memory one thread writes: whole cache lines of its own, so that no two
 * threads' buffers share a line (malloc packs small blocks together, and a
 * line written by two cores moves between them at every write). */
#define ISM_LINE 64

static void *ism_alloc(size_t size)
{
    size_t rounded = (size + ISM_LINE - 1) / ISM_LINE * ISM_LINE;
    return aligned_alloc(ISM_LINE, rounded ? rounded : ISM_LINE);
}

static tb_state *ism_state_dup(const tb_state *view)
{
    tb_state *s = ism_alloc(tb_state_size(tb_state_game(view)));
    if (s)
        tb_state_copy(s, view);
    return s;
}

/* A fresh node, or -1 when the pool is at its cap (or memory ran out). */
static int32_t ism_new_node(ism_tree *t, tb_move move, int seat)
{
    if (t->used >= t->cap)
        return -1;
    if (t->used == t->alloc) {
        int64_t want = t->alloc * 2;
        if (want > t->cap)
            want = t->cap;
        ism_node *p = ism_alloc((size_t)want * sizeof *p);
        if (!p) {
            t->cap = t->used; /* degrade: no more nodes */
            return -1;
        }
        int32_t *at = NULL;
        if (t->list_at) {
            at = ism_alloc((size_t)want * sizeof *at);
            if (!at) {
                free(p);
                t->cap = t->used;
                return -1;
            }
            memcpy(at, t->list_at, (size_t)t->used * sizeof *at);
            free(t->list_at);
            t->list_at = at;
        }
        memcpy(p, t->pool, (size_t)t->used * sizeof *p);
        free(t->pool);
        t->pool = p;
        t->alloc = want;
    }
    int32_t i = (int32_t)t->used++;
    if (t->list_at)
        t->list_at[i] = -1;
    ism_node *n = &t->pool[i];
    n->move = move;
    n->child = -1;
    n->sibling = -1;
    n->seat = (int8_t)seat;
    n->full = 0;
    n->prior = 0;
    n->visits = 0;
    n->avail = 0;
    n->reward = 0.0;
    n->mean = NAN; /* 0 / 0, as the quotient was before the first visit */
    return i;
}

/* Links child c into parent p's sorted sibling list. */
static void ism_link(ism_tree *t, int32_t p, int32_t c)
{
    int32_t *link = &t->pool[p].child;
    while (*link >= 0 && t->pool[*link].move < t->pool[c].move)
        link = &t->pool[*link].sibling;
    t->pool[c].sibling = *link;
    *link = c;
}

static inline double ism_sqrt_log(const ism_tree *t, int32_t a)
{
    return a < t->filled ? t->sqrt_log[a] : sqrt(log((double)a));
}

static inline double ism_inv_sqrt(const ism_tree *t, int32_t v)
{
    return v < t->filled ? t->inv_sqrt[v] : 1.0 / sqrt((double)v);
}

static void ism_fill_tables(ism_tree *t)
{
    while (t->filled < t->tab_n && t->filled <= t->done + 2) {
        int64_t k = t->filled++;
        t->sqrt_log[k] = k ? sqrt(log((double)k)) : 0.0;
        t->inv_sqrt[k] = k ? 1.0 / sqrt((double)k) : 0.0;
    }
}

/* The sorted decisions of node `at` (whose position is s): remembered from
 * an earlier visit, or listed now and remembered while there is room. */
static const tb_move *ism_public_list(ism_tree *t, int32_t at, const tb_state *s, int *n)
{
    int32_t off = t->list_at[at];
    if (off >= 0) {
        *n = (int)t->lists[off];
        return t->lists + off + 1;
    }
    *n = tb_legal_undominated(s, t->moves);
    ism_sort(t->moves, *n);
    int64_t need = t->lists_used + *n + 1;
    if (need <= ISM_LIST_CAP) {
        if (need > t->lists_alloc) {
            int64_t want = t->lists_alloc ? t->lists_alloc * 2 : 4096;
            while (want < need)
                want *= 2;
            if (want > ISM_LIST_CAP)
                want = ISM_LIST_CAP;
            tb_move *p = ism_alloc((size_t)want * sizeof *p);
            if (!p)
                return t->moves; /* not remembered: listed again next time */
            if (t->lists_used)
                memcpy(p, t->lists, (size_t)t->lists_used * sizeof *p);
            free(t->lists);
            t->lists = p;
            t->lists_alloc = want;
        }
        t->list_at[at] = (int32_t)t->lists_used;
        t->lists[t->lists_used] = (tb_move)*n;
        memcpy(t->lists + t->lists_used + 1, t->moves, (size_t)*n * sizeof *t->moves);
        t->lists_used = need;
    }
    return t->moves;
}

/* A child's UCB score (its availability counted first when `bump`). */
static inline double ism_score(ism_tree *t, ism_node *ch, double c, bool bump)
{
    if (bump)
        ch->avail++;
    return ch->mean +
           c * ism_sqrt_log(t, ch->avail) * ism_inv_sqrt(t, ch->visits);
}

/* The child of `parent` with the highest score, the first of equals in
 * sibling order (the merge's choice), or -1 when it has none. */
static int32_t ism_best_child(ism_tree *t, int32_t parent, double c, bool bump)
{
    int32_t best = -1;
    double best_score = -1.0;
    if (parent == 0 && t->root_bias) { /* the network's prior: the PUCT term */
        for (int32_t k = t->pool[0].child; k >= 0; k = t->pool[k].sibling) {
            ism_node *ch = &t->pool[k];
            double score = ism_score(t, ch, c, bump);
            if (k <= t->root_bias_n)
                score += ISM_NET_PRIOR * t->root_bias[k] * sqrt((double)ch->avail) /
                         (1.0 + ch->visits);
            if (score > best_score) {
                best_score = score;
                best = k;
            }
        }
        return best;
    }
    for (int32_t k = t->pool[parent].child; k >= 0; k = t->pool[k].sibling) {
        double score = ism_score(t, &t->pool[k], c, bump);
        if (score > best_score) {
            best_score = score;
            best = k;
        }
    }
    return best;
}

/* The exact return of a finished game for one seat. */
static double ism_final(const tb_state *s, int seat)
{
    double r[TB_MAX_SEATS];
    tb_returns(s, r);
    return r[seat];
}

/* Credits every node of the path with its seat's return. */
static void ism_back_up(ism_tree *t, const double r[TB_MAX_SEATS], int depth)
{
    for (int p = 0; p < t->players; p++)
        t->root_sum[p] += r[p];
    t->pool[0].visits++;
    for (int d = 1; d < depth; d++) {
        ism_node *nd = &t->pool[t->path[d]];
        nd->visits++;
        nd->reward += r[nd->seat];
        nd->mean = nd->reward / (double)nd->visits;
    }
    t->done++;
}

static void ism_iterate(ism_tree *t)
{
    ism_fill_tables(t);
    tb_state *s = t->det;
    tb_state_copy(s, t->view);
    tb_resample(s, t->seat, &t->rng);
    if (t->deals)
        tb__deals_apply(t->deals, s, &t->rng);
    const double c = t->cfg->exploration;
    int depth = 0;
    int32_t cur = 0;
    t->path[depth++] = 0;
    int mover;
    while ((mover = tb_to_move(s)) != TB_OVER && depth <= ISM_MAX_DEPTH) {
        ism_node *node = &t->pool[cur];
        bool restricted = cur == 0 && t->cfg->root_restricted;
        /* the decisions here are the same in every guess, and so every
         * child is legal in this one: public decisions, or the root's once
         * listed (root_moves) */
        bool fixed = !restricted && (t->public_moves || (cur == 0 && t->root_n >= 0));
        int32_t best = -1;
        tb_move m = 0;
        int nu = 0;
        if (node->full) {
            /* Every decision here is a child, in every guess (fixed
             * decisions, all expanded): no list to merge with. */
            best = ism_best_child(t, cur, c, true);
        } else if (fixed) {
            /* Every child is legal in this guess too: count them as
             * available, and draw the untried decision by its rank among
             * the legal ones that are not children (the merge's untried
             * list, without writing it out). */
            int n;
            const tb_move *moves;
            if (t->public_moves) {
                moves = ism_public_list(t, cur, s, &n);
            } else {
                moves = t->root_moves;
                n = t->root_n;
            }
            int children = 0;
            for (int32_t k = node->child; k >= 0; k = t->pool[k].sibling) {
                t->pool[k].avail++;
                children++;
            }
            nu = n - children;
            if (nu <= 0) {
                node->full = n > 0;
                nu = 0;
            } else {
                uint32_t rank = nu == 1 ? 0 : tb_rng_below(&t->rng, (uint32_t)nu);
                int32_t k = node->child;
                for (int i = 0; i < n; i++) {
                    if (k >= 0 && t->pool[k].move == moves[i]) {
                        k = t->pool[k].sibling;
                    } else if (rank-- == 0) {
                        m = moves[i];
                        break;
                    }
                }
            }
        } else {
            int n;
            if (restricted) {
                t->moves[0] = t->cfg->root_move; /* legal in every guess: the mover's own view */
                n = 1;
            } else {
                n = tb_legal_undominated(s, t->moves);
                ism_sort(t->moves, n);
                if (cur == 0 && mover == t->seat) {
                    memcpy(t->root_moves, t->moves, (size_t)n * sizeof *t->moves);
                    t->root_n = n;
                }
            }
            /* Merge the legal decisions with the children: count
             * availability, find the best available child, and list the
             * untried decisions. */
            double best_score = -1.0;
            int i = 0;
            for (int32_t k = node->child; i < n || k >= 0;) {
                if (k >= 0 && (i >= n || t->pool[k].move < t->moves[i])) {
                    k = t->pool[k].sibling;
                } else if (k < 0 || t->moves[i] < t->pool[k].move) {
                    t->untried[nu++] = t->moves[i++];
                } else {
                    double score = ism_score(t, &t->pool[k], c, true);
                    if (score > best_score) {
                        best_score = score;
                        best = k;
                    }
                    i++;
                    k = t->pool[k].sibling;
                }
            }
            if (nu > 0)
                m = t->untried[nu == 1 ? 0 : tb_rng_below(&t->rng, (uint32_t)nu)];
        }
        if (nu > 0) {
            int32_t fresh = ism_new_node(t, m, mover);
            if (fresh >= 0) {
                ism_link(t, cur, fresh);
                t->pool[fresh].avail = 1;
                tb_apply(s, m);
                t->path[depth++] = fresh;
                break;
            }
            if (fixed && !t->pool[cur].full)
                best = ism_best_child(t, cur, c, false); /* the pool is full */
        } else if (fixed && best < 0) {
            best = ism_best_child(t, cur, c, false);
        }
        if (best < 0)
            break; /* nothing expanded here yet and the pool is full */
        tb_apply(s, t->pool[best].move);
        t->path[depth++] = best;
        cur = best;
    }
    /* Play out: to the end without a heuristic; else `limit` decisions,
     * each uniformly random or the heuristic's favourite of `pick` draws,
     * and then the heuristic judges. */
    if (t->net && !tb_is_over(s)) { /* the network judges the leaf */
        int who = tb_to_move(s);
        double r[TB_MAX_SEATS], v = 0.5;
        if (tb_observation(s, who, t->obs) > 0)
            v = tb_net_value(t->net, t->obs, t->net_scratch);
        for (int p = 0; p < t->players; p++)
            r[p] = t->players > 1 ? (1.0 - v) / (t->players - 1) : v;
        r[who] = v;
        ism_back_up(t, r, depth);
        return;
    }
    int limit = t->judge ? t->cfg->playout_depth : -1;
    int pick = t->judge ? t->cfg->playout_pick : 1;
    if (pick > ISM_MAX_PICK)
        pick = ISM_MAX_PICK;
    if (pick <= 1) {
        if (limit != 0)
            tb_playout(s, &t->rng, limit < 0 ? 0 : limit);
    } else {
        for (int steps = 0; steps < limit && !tb_is_over(s); steps++) {
            int who = tb_to_move(s);
            tb_move m = 0, cands[ISM_MAX_PICK];
            double best_v = -1.0;
            tb_random_moves(s, &t->rng, cands, pick);
            bool have = false;
            for (int k = 0; k < pick; k++) {
                tb_move cand = cands[k];
                bool seen = false; /* a repeated draw is judged the same: skip it */
                for (int j = 0; j < k && !seen; j++)
                    seen = cands[j] == cand;
                if (seen)
                    continue;
                tb_state *trial = t->scratch;
                tb_state_copy(trial, s);
                tb_apply(trial, cand);
                double v = tb_is_over(trial) ? ism_final(trial, who) : tb_heuristic(trial, who);
                if (v > best_v) {
                    best_v = v;
                    m = cand;
                    t->scratch = t->kept; /* keep the best candidate's position */
                    t->kept = trial;
                    have = true;
                }
            }
            if (have) { /* the chosen decision's position: det changes places with it */
                tb_state *chosen = t->kept;
                t->kept = s;
                t->det = s = chosen;
            } else {
                tb_apply(s, m);
            }
        }
    }
    double r[TB_MAX_SEATS];
    if (tb_is_over(s))
        tb_returns(s, r);
    else
        tb_heuristic_all(s, r);
    ism_back_up(t, r, depth);
}

/* Gives every decision at the root `prior` virtual visits worth the
 * heuristic's value for the root seat after it (the exact return when it
 * ends the game), so the search starts from the one-ply judgement. */
static void ism_seed_root(ism_tree *t, int prior)
{
    int n = tb_legal_undominated(t->view, t->moves);
    ism_sort(t->moves, n);
    int32_t last = -1;
    for (int i = 0; i < n; i++) {
        tb_state_copy(t->det, t->view);
        tb_apply(t->det, t->moves[i]);
        double v;
        if (tb_is_over(t->det)) {
            double r[TB_MAX_SEATS];
            tb_returns(t->det, r);
            v = r[t->seat];
        } else {
            v = tb_heuristic(t->det, t->seat);
        }
        int32_t k = ism_new_node(t, t->moves[i], t->seat);
        if (k < 0)
            break;
        ism_node *nd = &t->pool[k];
        nd->visits = prior;
        nd->prior = (int16_t)prior;
        nd->avail = prior;
        nd->reward = prior * v;
        nd->mean = nd->reward / (double)nd->visits;
        if (last < 0)
            t->pool[0].child = k;
        else
            t->pool[last].sibling = k;
        last = k;
    }
}

static void *ism_run(void *arg)
{
    ism_tree *t = arg;
    for (;;) {
        if (t->target && t->done >= t->target)
            break;
        if (t->pool[0].visits >= ISM_MAX_VISITS)
            break;
        if (t->deadline && t->done % ISM_CLOCK_EVERY == 0 && t->done > 0 &&
            t->now_us() >= t->deadline)
            break;
        ism_iterate(t);
    }
    return NULL;
}

typedef struct ism_stat {
    tb_move move;
    int64_t visits, prior; /* prior: virtual visits included in visits */
    double reward;
} ism_stat;

static int ism_stat_by_move(const void *a, const void *b)
{
    const ism_stat *x = a, *y = b;
    return x->move < y->move ? -1 : x->move > y->move;
}

/* Most visits first; then the higher mean; then the lower move. */
static int ism_stat_by_rank(const void *a, const void *b)
{
    const ism_stat *x = a, *y = b;
    if (x->visits != y->visits)
        return x->visits > y->visits ? -1 : 1;
    double mx = x->visits ? x->reward / (double)x->visits : 0.0;
    double my = y->visits ? y->reward / (double)y->visits : 0.0;
    if (mx != my)
        return mx > my ? -1 : 1;
    return x->move < y->move ? -1 : x->move > y->move;
}

static void ism_fill_single(tb_agent_report *report, tb_move m, double value)
{
    if (!report)
        return;
    report->iterations = 0;
    report->count = 1;
    report->move[0] = m;
    report->value[0] = value;
    report->visits[0] = 0;
}

tb_move tb__ismcts_search(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                          tb_agent_report *report, const tb__ismcts_config *config)
{
    return tb__ismcts_search_values(view, seat, budget, rng, report, config, NULL);
}

/* The heuristic's value of `s` for every seat (the exact returns when over). */
static void ism_judge_all(const tb_state *s, double out[TB_MAX_SEATS])
{
    if (tb_is_over(s)) {
        tb_returns(s, out);
        return;
    }
    for (int p = 0; p < TB_MAX_SEATS; p++)
        out[p] = 0.0;
    tb_heuristic_all(s, out);
}

tb_move tb__ismcts_search_values(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                                 tb_agent_report *report, const tb__ismcts_config *config,
                                 double root_mean[TB_MAX_SEATS])
{
    tb__ismcts_config cfg = config ? *config : tb__ismcts_defaults(tb_state_game(view));
    tb_budget none = {0};
    if (!budget)
        budget = &none;
    if (report)
        memset(report, 0, sizeof *report);
    if (root_mean)
        ism_judge_all(view, root_mean);
    if (tb_is_over(view))
        return 0;
    if (!cfg.search_forced && !cfg.root_restricted) {
        tb_move only[2] = {0, 0};
        tb_move *all = malloc(TB_MAX_MOVES * sizeof *all);
        int n = all ? tb_legal_undominated(view, all) : 0;
        if (all && n == 1)
            only[0] = all[0];
        free(all);
        if (n == 1) {
            ism_fill_single(report, only[0], tb_heuristic(view, seat));
            return only[0];
        }
    }
    int threads = budget->threads < 1 ? 1 : budget->threads;
    if (threads > ISM_MAX_THREADS)
        threads = ISM_MAX_THREADS;
    int64_t iterations = budget->iterations > 0 ? budget->iterations : 0;
    uint64_t deadline = 0;
    if (budget->time_ms > 0 && budget->now_us)
        deadline = budget->now_us() + (uint64_t)budget->time_ms * 1000u;
    if (!iterations && !deadline)
        iterations = cfg.default_iterations > 0 ? cfg.default_iterations : 1000;
    if (iterations && iterations < threads)
        threads = (int)iterations;
    int64_t cap = cfg.node_cap / threads;
    if (cap < 1)
        cap = 1;
    if (cap > INT32_MAX)
        cap = INT32_MAX;

    /* With an inference that has seen every decision so far, each iteration
     * deals the other seats' hidden roles by the mover's belief (belief.c). */
    tb__deals *deals = NULL;
    if (budget->inference && tb_inference_decisions(budget->inference) == tb_decisions_made(view)) {
        deals = malloc(sizeof *deals);
        if (deals && tb__inference_deals(budget->inference, view, seat, deals) != 0) {
            free(deals);
            deals = NULL;
        }
    }
    ism_tree *tree[ISM_MAX_THREADS];
    int made = 0;
    bool judge = cfg.playout_depth >= 0 && tb_game_has_heuristic(tb_state_game(view));
    int prior = tb_game_has_heuristic(tb_state_game(view)) && cfg.root_prior > 0 ? cfg.root_prior : 0;
    if (prior > 10000)
        prior = 10000;
    /* A network that fits the game: the root's policy, by seeded child. */
    const tb_net *net = tb_net_fits(budget->net, tb_state_game(view), tb_players(view))
                            ? budget->net
                            : NULL;
    float *root_bias = NULL, *net_obs = NULL, *net_scratch = NULL;
    int32_t root_bias_n = 0;
    if (net && tb_game_has_heuristic(tb_state_game(view))) {
        tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
        int32_t *actions = malloc(TB_MAX_MOVES * sizeof *actions);
        int n = moves ? tb_legal_undominated(view, moves) : 0;
        ism_sort(moves, n);
        root_bias = malloc((size_t)(n + 1) * sizeof *root_bias);
        net_obs = malloc((size_t)tb_observation_size(tb_state_game(view), tb_players(view)) *
                         sizeof *net_obs);
        net_scratch = malloc((size_t)tb_net_scratch(net) * sizeof *net_scratch);
        bool ok = moves && actions && root_bias && net_obs && net_scratch && n > 0 &&
                  tb_observation(view, seat, net_obs) > 0;
        for (int i = 0; ok && i < n; i++)
            actions[i] = tb_move_to_action(tb_state_game(view), moves[i]);
        if (ok && tb_net_policy(net, net_obs, actions, n, root_bias + 1, net_scratch) == 0) {
            root_bias[0] = 0;
            root_bias_n = n;
            if (prior < 1)
                prior = 1; /* every root decision a child from the start */
        } else {
            free(root_bias);
            root_bias = NULL;
        }
        free(moves);
        free(actions);
    } else {
        net = NULL;
    }
    for (int i = 0; i < threads; i++) {
        ism_tree *t = calloc(1, sizeof *t);
        if (!t)
            break;
        t->view = view;
        t->deals = deals;
        t->seat = seat;
        t->root_n = -1;
        t->players = tb_players(view);
        t->judge = judge;
        t->public_moves = tb_game_public_decisions(tb_state_game(view));
        t->rng = tb_rng_split(rng);
        t->cfg = &cfg;
        t->now_us = budget->now_us;
        t->target = iterations ? iterations / threads + (i < iterations % threads) : 0;
        t->deadline = deadline;
        t->cap = cap;
        t->alloc = iterations && iterations + 1 < cap ? iterations + 1 : cap;
        if (t->alloc > 4096 && !iterations)
            t->alloc = 4096;
        t->pool = ism_alloc((size_t)t->alloc * sizeof *t->pool);
        if (!t->pool) {
            free(t);
            break;
        }
        t->tab_n = iterations && iterations + 3 < 65536 ? iterations + 3 : 65536;
        t->sqrt_log = ism_alloc((size_t)t->tab_n * sizeof(double));
        t->inv_sqrt = ism_alloc((size_t)t->tab_n * sizeof(double));
        if (!t->sqrt_log || !t->inv_sqrt)
            t->tab_n = 0; /* slower, not wrong: every lookup computes */
        t->det = ism_state_dup(view);
        t->scratch = ism_state_dup(view);
        t->kept = ism_state_dup(view);
        if (t->public_moves)
            t->list_at = ism_alloc((size_t)t->alloc * sizeof *t->list_at);
        if (!t->det || !t->scratch || !t->kept || (t->public_moves && !t->list_at)) {
            free(t->list_at);
            free(t->det);
            free(t->scratch);
            free(t->kept);
            free(t->sqrt_log);
            free(t->inv_sqrt);
            free(t->pool);
            free(t);
            break;
        }
        if (net) {
            t->net = net;
            t->root_bias = root_bias;
            t->root_bias_n = root_bias ? root_bias_n : 0;
            t->obs = malloc((size_t)tb_observation_size(tb_state_game(view), t->players) *
                            sizeof *t->obs);
            t->net_scratch = malloc((size_t)tb_net_scratch(net) * sizeof *t->net_scratch);
            if (!t->obs || !t->net_scratch) { /* out of memory: this tree plays out */
                free(t->obs);
                free(t->net_scratch);
                t->obs = t->net_scratch = NULL;
                t->net = NULL;
            }
        }
        ism_new_node(t, 0, -1);
        if (prior)
            ism_seed_root(t, prior);
        if (t->root_bias && t->used != t->root_bias_n + 1) /* the seeding ran out of room */
            t->root_bias = NULL;
        tree[made++] = t;
    }
    if (made == 0) {
        free(deals);
        free(root_bias);
        free(net_obs);
        free(net_scratch);
        return tb_random_move(view, rng);
    }
    if (made < threads) /* out of memory: the trees we have share all the work */
        for (int i = 0; i < made; i++)
            tree[i]->target = iterations ? iterations / made + (i < iterations % made) : 0;

    pthread_t tid[ISM_MAX_THREADS];
    bool started[ISM_MAX_THREADS] = {false};
    for (int i = 1; i < made; i++)
        started[i] = pthread_create(&tid[i], NULL, ism_run, tree[i]) == 0;
    ism_run(tree[0]);
    for (int i = 1; i < made; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            ism_run(tree[i]); /* no thread to be had: run it here */
    }

    /* Sum the root statistics of every tree by move. */
    int64_t total_children = 0, done = 0;
    if (root_mean) {
        double sum[TB_MAX_SEATS] = {0};
        for (int i = 0; i < made; i++) {
            done += tree[i]->done;
            for (int p = 0; p < TB_MAX_SEATS; p++)
                sum[p] += tree[i]->root_sum[p];
        }
        for (int p = 0; done > 0 && p < tb_players(view); p++)
            root_mean[p] = sum[p] / (double)done;
        done = 0;
    }
    for (int i = 0; i < made; i++)
        for (int32_t k = tree[i]->pool[0].child; k >= 0; k = tree[i]->pool[k].sibling)
            total_children++;
    ism_stat *stat = malloc((size_t)(total_children + 1) * sizeof *stat);
    int ns = 0;
    for (int i = 0; i < made; i++) {
        done += tree[i]->done;
        for (int32_t k = tree[i]->pool[0].child; stat && k >= 0; k = tree[i]->pool[k].sibling) {
            stat[ns].move = tree[i]->pool[k].move;
            stat[ns].visits = tree[i]->pool[k].visits;
            stat[ns].prior = tree[i]->pool[k].prior;
            stat[ns].reward = tree[i]->pool[k].reward;
            ns++;
        }
    }
    tb_move choice;
    if (!stat || ns == 0) {
        choice = tb_random_move(view, rng); /* the cap left no room for a single child */
        ism_fill_single(report, choice, tb_heuristic(view, seat));
        if (report)
            report->iterations = done;
    } else {
        qsort(stat, (size_t)ns, sizeof *stat, ism_stat_by_move);
        int m = 0;
        for (int i = 0; i < ns; i++) {
            if (m > 0 && stat[m - 1].move == stat[i].move) {
                stat[m - 1].visits += stat[i].visits;
                stat[m - 1].prior += stat[i].prior;
                stat[m - 1].reward += stat[i].reward;
            } else {
                stat[m++] = stat[i];
            }
        }
        qsort(stat, (size_t)m, sizeof *stat, ism_stat_by_rank);
        choice = stat[0].move;
        if (cfg.sink) {
            cfg.sink->count = 0;
            for (int i = 0; i < m && cfg.sink->count < cfg.sink->cap; i++) {
                cfg.sink->move[cfg.sink->count] = stat[i].move;
                cfg.sink->visits[cfg.sink->count++] = stat[i].visits - stat[i].prior;
            }
        }
        if (report) {
            report->iterations = done;
            report->count = m < TB_REPORT_MOVES ? m : TB_REPORT_MOVES;
            for (int i = 0; i < report->count; i++) {
                report->move[i] = stat[i].move;
                report->visits[i] = stat[i].visits - stat[i].prior;
                report->value[i] = stat[i].visits ? stat[i].reward / (double)stat[i].visits : 0.0;
            }
        }
    }
    free(stat);
    free(deals);
    free(root_bias);
    free(net_obs);
    free(net_scratch);
    for (int i = 0; i < made; i++) {
        free(tree[i]->obs);
        free(tree[i]->net_scratch);
        free(tree[i]->pool);
        free(tree[i]->sqrt_log);
        free(tree[i]->inv_sqrt);
        free(tree[i]->det);
        free(tree[i]->scratch);
        free(tree[i]->kept);
        free(tree[i]->list_at);
        free(tree[i]->lists);
        free(tree[i]);
    }
    return choice;
}

static tb_move ismcts_choose(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                             tb_agent_report *report)
{
    tb__ismcts_config cfg = tb__ismcts_defaults(tb_state_game(view));
    return tb__ismcts_search(view, seat, budget, rng, report, &cfg);
}

const tb_agent tb__ismcts_agent = {
    .name = "ismcts",
    .summary = "information-set Monte Carlo tree search over re-dealt hidden information",
    .choose = ismcts_choose,
};
