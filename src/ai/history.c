/*
 * history.c — decisions made with the game's history: the one rule for when
 * the computer infers hidden roles, the inference rebuilt from a record, the
 * decision every caller that holds a game asks for (tabula play, the
 * server's computer seats and hints, the engine's genmove), and the
 * deduction aid's chances in words.
 *
 * Invariants: the inference is rebuilt from public information only (the
 * positions before each decision and the decisions, as belief.c reads them);
 * a history that does not replay, or does not end at the position decided,
 * gives no inference (the uniform search), never a wrong one; nothing here
 * keeps state between calls.
 */
#include "agents.h"
#include "belief.h"

#include <stdio.h>
#include <stdlib.h>

bool tb_infer_rule(const tb_game *game, int players, const tb_budget *budget)
{
    if (!game || tb_role_count(game) == 0)
        return false;
    /* Measured (docs/ai.md): two-player Clans at 300, 1000 and 5000
     * iterations; three and four players from the `normal` level's 5000 up
     * (at 1000, four players, it did not help).  No budget: the search's
     * 5000. */
    int64_t iterations = budget ? budget->iterations : 0, time_ms = budget ? budget->time_ms : 0;
    bool deep = iterations >= 5000 || (iterations == 0 && time_ms == 0);
    return players == 2 || deep;
}

tb_inference *tb_inference_replay(const tb_state *start, const tb_record *rec)
{
    if (!start || !rec || tb_record_game(rec) != tb_state_game(start) ||
        tb_record_players(rec) != tb_players(start))
        return NULL;
    tb_inference *inf = tb_inference_new(tb_state_game(start), tb_players(start));
    tb_state *s = inf ? tb_state_dup(start) : NULL;
    if (!s) {
        tb_inference_free(inf);
        return NULL;
    }
    int n = tb_record_length(rec);
    for (int k = 0; k < n; k++) {
        tb_move m;
        if (tb_is_over(s) || tb_text_to_move(s, tb_record_move(rec, k), &m, NULL, 0) != 0) {
            tb_inference_free(inf);
            inf = NULL;
            break;
        }
        tb_inference_observe(inf, s, m);
        tb_apply(s, m);
    }
    tb_state_free(s);
    return inf;
}

tb_move tb_agent_decide_game(const tb_agent *agent, const tb_state *truth, const tb_state *start,
                             const tb_record *rec, const tb_budget *budget, tb_infer infer,
                             uint64_t seed, tb_agent_report *report, bool *inferred)
{
    tb_budget b = {0};
    if (budget)
        b = *budget;
    b.inference = NULL;
    bool want = infer == TB_INFER_ON ||
                (infer == TB_INFER_RULE && agent == &tb__ismcts_agent &&
                 tb_infer_rule(tb_state_game(truth), tb_players(truth), &b));
    tb_inference *inf = want && start && rec &&
                                tb_decisions_made(start) + tb_record_length(rec) ==
                                    tb_decisions_made(truth)
                            ? tb_inference_replay(start, rec)
                            : NULL;
    if (inf && tb_inference_decisions(inf) == tb_decisions_made(truth))
        b.inference = inf;
    if (inferred)
        *inferred = b.inference != NULL;
    tb_move m = tb_agent_decide(agent, truth, &b, seed, report);
    tb_inference_free(inf);
    return m;
}

int tb_inference_chances(const tb_inference *inference, const tb_state *state, int seat, int other,
                         tb_role_chance *out, int max)
{
    if (!inference || !state || !out || max < 0 || seat < 0 || seat >= tb_players(state) ||
        other < 0 || other >= tb_players(state))
        return -1;
    int roles = tb_role_count(tb_state_game(state)), n = 0;
    if (roles > TB__BELIEF_MAX_ROLES)
        return -1;
    tb_role_chance all[TB__BELIEF_MAX_ROLES];
    for (int r = 0; r < roles; r++) {
        double c = tb_inference_chance(inference, state, seat, other, r);
        if (c < 0.0)
            return -1;
        if (c <= 0.0)
            continue;
        int at = n++; /* insertion: most likely first, ties in role order */
        while (at > 0 && all[at - 1].chance < c) {
            all[at] = all[at - 1];
            at--;
        }
        all[at].role = r;
        all[at].chance = c;
    }
    if (n > max)
        n = max;
    for (int i = 0; i < n; i++) {
        out[i] = all[i];
        double p = out[i].chance;
        if (p < 0.005)
            snprintf(out[i].words, sizeof out[i].words, "under 1%%");
        else if (p < 1.0 && p > 0.995)
            snprintf(out[i].words, sizeof out[i].words, "over 99%%");
        else
            snprintf(out[i].words, sizeof out[i].words, "%.0f%%", 100.0 * p);
    }
    return n;
}
