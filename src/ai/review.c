/*
 * review.c — game review: for each decision of a record, how it compares
 * with what the search would have played (docs/ai.md, "Game review").
 *
 * Invariants:
 *   - only what the deciding seat knew is used: every search starts from a
 *     copy of the true position whose secrets hidden from that seat were
 *     re-dealt (tb_resample) from a generator seeded by the review's seed,
 *     exactly as tb_agent_decide hands an agent a position, and the texts of
 *     the decisions are read from that copy too; so two truths the seat cannot
 *     tell apart give byte-identical entries at equal seeds (tests/unit/
 *     test_review.c checks it);
 *   - with an iteration budget a review is a function of the record, the
 *     settings and the seed (and the number of threads);
 *   - the true state is only replayed, never searched, and nothing global is
 *     touched: a review may run on any thread beside play.
 */
#include "agents.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int review_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int review_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The seed of decision `index`: the review's seed and the index, mixed
 * (splitmix64's finaliser), so neighbouring decisions search unrelated
 * guesses. */
static uint64_t review_seed(uint64_t seed, int index)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (uint64_t)(index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int review_mark(double loss, const tb_review_settings *s)
{
    double mistake = s->mistake > 0 ? s->mistake : TB_REVIEW_MISTAKE;
    double blunder = s->blunder > 0 ? s->blunder : TB_REVIEW_BLUNDER;
    if (loss > blunder)
        return TB_REVIEW_BLUNDER_MARK;
    if (loss > mistake)
        return TB_REVIEW_MISTAKE_MARK;
    return TB_REVIEW_GOOD;
}

const char *tb_review_mark_name(int mark)
{
    switch (mark) {
    case TB_REVIEW_MISTAKE_MARK:
        return "mistake";
    case TB_REVIEW_BLUNDER_MARK:
        return "blunder";
    default:
        return NULL;
    }
}

int tb_review_decision(const tb_state *truth, tb_move played, const tb_review_settings *settings,
                       uint64_t seed, tb_review_entry *out, char *err, size_t errlen)
{
    tb_review_settings none = {0};
    if (!settings)
        settings = &none;
    memset(out, 0, sizeof *out);
    if (tb_is_over(truth))
        return review_fail(err, errlen, "the game is over: there is no decision to review");
    if (!tb_is_legal(truth, played))
        return review_fail(err, errlen, "the decision to review is not legal in this position");
    int seat = tb_to_move(truth);
    tb_budget budget = settings->budget;
    if (budget.iterations <= 0 && (budget.time_ms <= 0 || !budget.now_us))
        budget.iterations = TB_REVIEW_ITERATIONS;

    /* What the seat knew: the truth with its unseen secrets re-dealt, as
     * tb_agent_decide does it. */
    tb_state *view = tb_state_dup(truth);
    if (!view)
        return review_fail(err, errlen, "out of memory");
    tb_rng rng;
    tb_rng_seed(&rng, seed);
    tb_rng deal = tb_rng_split(&rng);
    tb_resample(view, seat, &deal);
    tb_rng second = tb_rng_split(&rng);

    tb_move *legal = malloc(TB_MAX_MOVES * sizeof *legal);
    out->choices = legal ? tb_legal(view, legal) : 0;
    free(legal);

    /* 1. The search picks its preferred decision. */
    tb__ismcts_config cfg = tb__ismcts_defaults(tb_state_game(view));
    cfg.search_forced = true;
    tb_agent_report report;
    double mean[TB_MAX_SEATS] = {0};
    tb_move best = tb__ismcts_search_values(view, seat, &budget, &rng, &report, &cfg, mean);
    out->index = tb_decisions_made(truth);
    out->seat = seat;
    out->players = tb_players(view);
    out->played = played;
    out->best = best;
    out->iterations = report.iterations;
    /* 2. The preferred and the played decision are each valued by a search
     * of the same budget whose root may take only that decision, so neither
     * value carries the optimism of being the best of many noisy ones, and a
     * decision the free search hardly tried gets the whole budget too. */
    cfg.root_restricted = true;
    cfg.root_move = best;
    double with_best[TB_MAX_SEATS] = {0};
    tb_rng best_rng = tb_rng_split(&second);
    tb__ismcts_search_values(view, seat, &budget, &best_rng, &report, &cfg, with_best);
    out->iterations += report.iterations;
    out->best_value = with_best[seat];
    out->before = with_best[seat];
    for (int p = 0; p < tb_players(view); p++)
        out->win_rate[p] = with_best[p];
    if (played == best) {
        out->after = out->best_value;
    } else {
        cfg.root_move = played;
        double with_played[TB_MAX_SEATS] = {0};
        tb__ismcts_search_values(view, seat, &budget, &second, &report, &cfg, with_played);
        out->after = with_played[seat];
        out->iterations += report.iterations;
    }
    out->loss = out->best_value > out->after ? out->best_value - out->after : 0.0;
    out->mark = review_mark(out->loss, settings);
    if (tb_move_to_text(view, played, out->played_text, sizeof out->played_text) < 0)
        snprintf(out->played_text, sizeof out->played_text, "?");
    if (tb_move_to_text(view, best, out->best_text, sizeof out->best_text) < 0)
        snprintf(out->best_text, sizeof out->best_text, "?");
    tb_state_free(view);
    return 0;
}

void tb_review_free(tb_review *review)
{
    if (!review)
        return;
    free(review->entry);
    free(review);
}

int tb_review_record(const tb_record *rec, int seat, const tb_review_settings *settings,
                     tb_review_progress progress, void *ctx, tb_review **out, char *err,
                     size_t errlen)
{
    *out = NULL;
    tb_review_settings none = {0};
    if (!settings)
        settings = &none;
    int players = tb_record_players(rec);
    if (seat < -1 || seat >= players)
        return review_fail(err, errlen, "there is no seat %d in a game of %d players", seat + 1,
                           players);
    tb_state *s = tb_record_replay_in(rec, 0, settings->boards, err, errlen);
    if (!s)
        return -1;
    /* Check the whole record first, so a bad one costs no search. */
    tb_state *end = tb_record_replay_in(rec, -1, settings->boards, err, errlen);
    if (!end) {
        tb_state_free(s);
        return -1;
    }
    int n = tb_record_length(rec);
    int total = 0;
    {
        tb_state *walk = tb_state_dup(s);
        char ignored[TB_ERR_LEN];
        for (int i = 0; walk && i < n; i++) {
            if (seat < 0 || tb_to_move(walk) == seat)
                total++;
            tb_play_text(walk, tb_record_move(rec, i), ignored, sizeof ignored);
        }
        tb_state_free(walk);
    }
    tb_review *r = calloc(1, sizeof *r);
    if (r)
        r->entry = calloc((size_t)(total > 0 ? total : 1), sizeof *r->entry);
    if (!r || !r->entry) {
        tb_review_free(r);
        tb_state_free(s);
        tb_state_free(end);
        return review_fail(err, errlen, "out of memory");
    }
    r->players = players;
    r->decisions = n;
    r->over = tb_is_over(end);
    if (r->over)
        tb_returns(end, r->final);
    tb_state_free(end);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const char *text = tb_record_move(rec, i);
        tb_move m;
        if (tb_text_to_move(s, text, &m, err, errlen) != 0) {
            rc = -1;
            break;
        }
        if (seat < 0 || tb_to_move(s) == seat) {
            rc = tb_review_decision(s, m, settings, review_seed(settings->seed, i),
                                    &r->entry[r->count], err, errlen);
            if (rc != 0)
                break;
            r->count++;
            if (progress && progress(ctx, r->count, total) != 0)
                rc = review_fail(err, errlen, "the review was stopped");
        }
        if (rc == 0)
            tb_apply(s, m);
    }
    tb_state_free(s);
    if (rc != 0) {
        tb_review_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

/* Rounded to four places: enough for a graph, and short lines. */
static json_t *review_rate(double v)
{
    return json_real((double)(long long)(v * 10000.0 + (v >= 0 ? 0.5 : -0.5)) / 10000.0);
}

char *tb_review_entry_json(const tb_review_entry *e)
{
    json_t *j = json_object();
    json_t *rates = json_array();
    if (!j || !rates) {
        json_decref(j);
        json_decref(rates);
        return NULL;
    }
    /* jansson's setters fail quietly when memory runs out: an entry with a
     * member missing is not written (NULL, as for no memory at all) */
    bool ok = true;
    for (int p = 0; p < e->players && p < TB_MAX_SEATS; p++)
        ok &= json_array_append_new(rates, review_rate(e->win_rate[p])) == 0;
    const char *mark = tb_review_mark_name(e->mark);
    ok &= json_object_set_new(j, "index", json_integer(e->index)) == 0;
    ok &= json_object_set_new(j, "seat", json_integer(e->seat)) == 0;
    ok &= json_object_set_new(j, "played", json_string(e->played_text)) == 0;
    ok &= json_object_set_new(j, "best", json_string(e->best_text)) == 0;
    ok &= json_object_set_new(j, "before", review_rate(e->before)) == 0;
    ok &= json_object_set_new(j, "after", review_rate(e->after)) == 0;
    ok &= json_object_set_new(j, "best_value", review_rate(e->best_value)) == 0;
    ok &= json_object_set_new(j, "loss", review_rate(e->loss)) == 0;
    ok &= json_object_set_new(j, "mark", mark ? json_string(mark) : json_null()) == 0;
    ok &= json_object_set_new(j, "choices", json_integer(e->choices)) == 0;
    ok &= json_object_set_new(j, "iterations", json_integer(e->iterations)) == 0;
    ok &= json_object_set_new(j, "win_rates", rates) == 0;
    char *text = ok ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(j);
    return text;
}
