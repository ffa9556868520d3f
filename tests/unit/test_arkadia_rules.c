/*
 * test_arkadia_rules.c — Arkadia checks that scenario files and the default
 * random-game test cannot make:
 *   - state_from_json refuses inconsistent states, each with a message that
 *     names the problem, and leaves the state unchanged;
 *   - random games under every option (mirror, lot_workers, first-game,
 *     random lot) keep the invariants of sim_arkadia.c, round-trip through
 *     JSON, resample soundly, and every legal decision's text parses back to
 *     it (placements also in any square order);
 *   - a card taken face up stays known through resampling;
 *   - the heuristic lies in [0,1] and a one-ply greedy player using it beats
 *     random players clearly;
 *   - the playout fast path makes exactly the decisions of random_move + apply.
 */
#include "games/arkadia/arkadia.h"
#include "../sim/sim.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const tb_game *game(void)
{
    return tb_game_find("arkadia");
}

static tb_state *new_game(int players, uint64_t seed, const char *opts)
{
    tb_state *s = tb_state_new(game());
    tb_options o;
    tb_options_clear(&o);
    char err[TB_ERR_LEN], buf[160];
    snprintf(buf, sizeof buf, "%s", opts ? opts : "");
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        assert_int_equal(tb_options_set_pair(&o, w, err, sizeof err), 0);
    assert_int_equal(tb_setup(s, players, &o, seed, err, sizeof err), 0);
    return s;
}

static void play_random(tb_state *s, int decisions, tb_rng *rng)
{
    for (int i = 0; i < decisions && !tb_is_over(s); i++)
        tb_apply(s, tb_random_move(s, rng));
}

/* ---- state validation ---- */

typedef void (*mutate_fn)(json_t *j);

static void m_worker_on_building(json_t *j)
{
    const char *sq = json_string_value(json_object_get(json_array_get(json_object_get(j, "buildings"), 0), "squares"));
    char first[4] = {sq[0], sq[1], sq[2] == '-' ? '\0' : sq[2], '\0'};
    json_array_append_new(json_object_get(json_object_get(j, "workers"), "yellow"), json_string(first));
}
static void m_hand_of_five(json_t *j)
{
    json_array_append_new(json_object_get(json_array_get(json_object_get(j, "seats"), 0), "hand"),
                          json_string("house red"));
}
static void m_card_missing(json_t *j)
{
    json_array_remove(json_object_get(j, "stack"), 0);
}
static void m_bad_shape(json_t *j)
{
    /* as many squares as the building covers, but never touching */
    json_t *b = json_array_get(json_object_get(j, "buildings"), 0);
    const char *sq = json_string_value(json_object_get(b, "squares"));
    int n = 1;
    for (; *sq; sq++)
        n += *sq == '-';
    static const char *const apart[] = {"a1", "a1-c1", "a1-c1-e1", "a1-c1-e1-g1"};
    json_object_set_new(b, "squares", json_string(apart[n - 1]));
}
static void m_floor2_early(json_t *j)
{
    json_t *castle = json_object_get(j, "castle");
    json_array_set_new(castle, 0, json_pack("[s,s]", "red", "red"));
}
static void m_trigger(json_t *j)
{
    json_object_set_new(j, "trigger_turn", json_integer(0));
}
static void m_extra_worker(json_t *j)
{
    json_t *seat = json_array_get(json_object_get(j, "seats"), 0);
    json_object_set_new(seat, "workers", json_integer(json_integer_value(json_object_get(seat, "workers")) + 1));
}
static void m_phase_without_card(json_t *j)
{
    json_object_set_new(j, "phase", json_string("place"));
    json_object_set_new(j, "action", json_string("build"));
}
static void m_done_not_enclosed(json_t *j)
{
    json_t *b = json_object_get(j, "buildings");
    for (size_t i = 0; i < json_array_size(b); i++)
        json_object_set_new(json_array_get(b, i), "done", json_true());
}
static void m_lot_on_tent(json_t *j)
{
    json_object_set_new(j, "lot", json_string("a1"));
}
static void m_seen_not_held(json_t *j)
{
    json_t *seat = json_array_get(json_object_get(j, "seats"), 1);
    json_object_set_new(seat, "seen", json_pack("[s]", "monastery silver"));
    json_object_set_new(seat, "hand", json_pack("[s,s,s,s]", "house red", "house red", "farm red", "farm red"));
}
static void m_idle(json_t *j)
{
    json_object_set_new(j, "idle", json_integer(3));
}
static void m_seals_missing(json_t *j)
{
    json_object_set_new(json_array_get(json_object_get(j, "seats"), 0), "seals", json_pack("{s:i}", "red", 1));
}
static void m_bad_square(json_t *j)
{
    json_array_append_new(json_object_get(json_object_get(j, "workers"), "orange"), json_string("q9"));
}
static void m_action_mismatch(json_t *j)
{
    json_object_set_new(j, "phase", json_string("banner"));
    json_object_set_new(j, "action", json_string("none"));
}
static void m_absent_colour(json_t *j)
{
    json_object_set_new(json_object_get(j, "workers"), "violet", json_pack("[]"));
}

static void state_json_rejects_inconsistent_states(void **unused)
{
    (void)unused;
    static const struct {
        mutate_fn fn;
        const char *expect;
    } cases[] = {
        {m_worker_on_building, "worker"},
        {m_hand_of_five, "at most 4 cards"},
        {m_card_missing, "appears"},
        {m_bad_shape, "not the shape"},
        {m_floor2_early, "not full"},
        {m_trigger, "trigger_turn"},
        {m_extra_worker, "own workers"},
        {m_phase_without_card, "'card'"},
        {m_done_not_enclosed, "done but not enclosed"},
        {m_lot_on_tent, "tent"},
        {m_seen_not_held, "not in the hand"},
        {m_idle, "idle"},
        {m_seals_missing, "seals"},
        {m_bad_square, "square"},
        {m_action_mismatch, "does not fit"},
        {m_absent_colour, "not a colour in play"},
    };
    tb_rng rng;
    tb_rng_seed(&rng, 8);
    tb_state *s = new_game(3, 8, "lot=random");
    /* a position with buildings, workers and cards in every place */
    while (((arkadia_state *)s)->nbld < 4 || ((arkadia_state *)s)->phase != ARK_PH_ACTION)
        tb_apply(s, tb_random_move(s, &rng));
    char *text = tb_state_json(s), err[TB_ERR_LEN];
    tb_state *t = tb_state_new(game());
    assert_int_equal(tb_state_from_json(t, game(), text, err, sizeof err), 0);
    assert_true(tb_state_equal(s, t));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = json_loads(text, 0, NULL);
        cases[i].fn(j);
        char *bad = json_dumps(j, JSON_COMPACT);
        err[0] = '\0';
        int rc = tb_state_from_json(t, game(), bad, err, sizeof err);
        if (rc == 0 || !strstr(err, cases[i].expect))
            fail_msg("case %zu: rc %d, message '%s', expected '%s'", i, rc, err, cases[i].expect);
        assert_true(tb_state_equal(s, t)); /* unchanged */
        free(bad);
        json_decref(j);
    }
    free(text);
    tb_state_free(t);
    tb_state_free(s);
}

/* ---- random games under every option ---- */

/* Checks one position; every seat's resampling only every `all_seats`-th call
 * (the mover's every time), to keep the test quick. */
static void check_decision(const tb_state *s, tb_rng *rng, bool all_seats)
{
    char err[TB_ERR_LEN];
    char *json = tb_state_json(s);
    tb_state *back = tb_state_load(json, err, sizeof err);
    if (!back)
        fail_msg("state JSON does not load: %s", err);
    assert_true(tb_state_equal(back, s));
    tb_state_free(back);
    free(json);
    int mover = tb_to_move(s);
    tb_state *c = tb_state_dup(s);
    tb_move moves[TB_MAX_MOVES];
    for (int seat = TB_SPECTATOR; seat < tb_players(s); seat++) {
        if (!all_seats && seat != mover)
            continue;
        tb_state_copy(c, s);
        tb_resample(c, seat, rng);
        char *v1 = tb_view_json(s, seat), *v2 = tb_view_json(c, seat);
        assert_string_equal(v1, v2);
        free(v1);
        free(v2);
        /* a re-dealt position is a playable one, and loads */
        if (tb_legal(c, moves) == 0)
            fail_msg("seat %d's resample leaves the mover without a decision", seat);
        char *cj = tb_state_json(c);
        tb_state *cl = tb_state_load(cj, err, sizeof err);
        if (!cl)
            fail_msg("seat %d's resample does not load: %s", seat, err);
        tb_state_free(cl);
        free(cj);
        if (seat == mover) {
            char *l1 = tb_legal_text(s), *l2 = tb_legal_text(c);
            assert_string_equal(l1, l2);
            free(l1);
            free(l2);
        }
    }
    tb_state_free(c);
    int n = tb_legal(s, moves);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        char text[TB_MOVE_TEXT];
        tb_move back_move;
        tb_move_to_text(s, moves[i], text, sizeof text);
        if (tb_text_to_move(s, text, &back_move, err, sizeof err) != 0 || back_move != moves[i])
            fail_msg("'%s' does not parse back: %s", text, err);
        if (i && moves[i - 1] >= moves[i])
            fail_msg("legal moves out of order at '%s'", text);
    }
}

static void options_keep_the_invariants(void **unused)
{
    (void)unused;
    static const char *const variants[] = {
        "mirror=on", "lot_workers=on", "variant=first-game", "lot=random",
        "mirror=on lot_workers=on variant=first-game",
    };
    char err[TB_ERR_LEN];
    tb_state *before = tb_state_new(game());
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        for (int players = 2; players <= 4; players++)
            for (uint64_t g = 0; g < 1; g++) {
                tb_state *s = new_game(players, 100 + g, variants[v]);
                tb_rng rng;
                tb_rng_seed(&rng, g * 31 + (uint64_t)players);
                if (sim_arkadia_check(NULL, s, err, sizeof err))
                    fail_msg("%s: after setup: %s", variants[v], err);
                int d = 0;
                while (!tb_is_over(s)) {
                    check_decision(s, &rng, d % 4 == 0);
                    tb_state_copy(before, s);
                    tb_apply(s, tb_random_move(s, &rng));
                    if (sim_arkadia_check(before, s, err, sizeof err))
                        fail_msg("%s players=%d game %d decision %d: %s", variants[v], players, (int)g, d, err);
                    assert_true(++d < 2000);
                }
                tb_state_free(s);
            }
    tb_state_free(before);
}

static void placements_parse_in_any_order(void **unused)
{
    (void)unused;
    tb_state *s = new_game(2, 1, "lot=random");
    arkadia_state *a = (arkadia_state *)s;
    tb_rng rng;
    tb_rng_seed(&rng, 2);
    while (a->phase != ARK_PH_PLACE)
        tb_apply(s, tb_random_move(s, &rng));
    tb_move moves[TB_MAX_MOVES], m;
    int n = tb_legal(s, moves);
    char text[TB_MOVE_TEXT], err[TB_ERR_LEN];
    tb_move_to_text(s, moves[n - 1], text, sizeof text);
    /* reverse the squares and separate them by spaces */
    char rev[TB_MOVE_TEXT] = "";
    char *parts[4];
    int k = 0;
    char *save = NULL;
    for (char *w = strtok_r(text, "-", &save); w; w = strtok_r(NULL, "-", &save))
        parts[k++] = w;
    for (int i = k - 1; i >= 0; i--) {
        strcat(rev, parts[i]);
        strcat(rev, i ? " " : "");
    }
    assert_int_equal(tb_text_to_move(s, rev, &m, err, sizeof err), 0);
    assert_true(m == moves[n - 1]);
    assert_int_not_equal(tb_text_to_move(s, "a1-a1", &m, err, sizeof err), 0);
    assert_int_not_equal(tb_text_to_move(s, "zz", &m, err, sizeof err), 0);
    assert_non_null(strstr(err, "not an Arkadia decision"));
    assert_int_not_equal(tb_text_to_move(s, "a1-b1 zz", &m, err, sizeof err), 0);
    assert_non_null(strstr(err, "'zz' is not a square"));
    tb_state_free(s);
}

static void seen_cards_survive_resampling(void **unused)
{
    (void)unused;
    tb_rng rng;
    tb_rng_seed(&rng, 3);
    for (uint64_t g = 0; g < 20; g++) {
        tb_state *s = new_game(4, g, "lot=random");
        arkadia_state *a = (arkadia_state *)s;
        play_random(s, 60, &rng);
        for (int seat = TB_SPECTATOR; seat < 4; seat++) {
            tb_state *c = tb_state_dup(s);
            tb_resample(c, seat, &rng);
            const arkadia_state *r = (const arkadia_state *)c;
            for (int p = 0; p < 4; p++) {
                assert_int_equal(r->hand_n[p], a->hand_n[p]);
                for (int i = 0, j = 0; i < a->hand_n[p]; i++) {
                    if (p == seat)
                        assert_int_equal(r->hand[p][i], a->hand[p][i]);
                    if (a->hand[p][i] & 1) { /* every seen card is still held, seen */
                        while (j < r->hand_n[p] && r->hand[p][j] != a->hand[p][i])
                            j++;
                        assert_true(j < r->hand_n[p]);
                        j++;
                    }
                }
            }
            assert_int_equal(r->stack_n, a->stack_n);
            tb_state_free(c);
        }
        tb_state_free(s);
    }
}

/* One-ply greedy: the decision whose result the heuristic likes best. */
static tb_move greedy_move(const tb_state *s)
{
    tb_move moves[TB_MAX_MOVES];
    int n = tb_legal(s, moves), seat = tb_to_move(s);
    tb_state *c = tb_state_dup(s);
    double best = -1;
    tb_move pick = moves[0];
    for (int i = 0; i < n; i++) {
        tb_state_copy(c, s);
        tb_apply(c, moves[i]);
        double h = tb_heuristic(c, seat);
        assert_true(h >= 0.0 && h <= 1.0);
        if (h > best) {
            best = h;
            pick = moves[i];
        }
    }
    tb_state_free(c);
    return pick;
}

static void greedy_beats_random(void **unused)
{
    (void)unused;
    const int players = 3, games = 30;
    double share = 0;
    tb_rng rng;
    tb_rng_seed(&rng, 77);
    for (int g = 0; g < games; g++) {
        int greedy = g % players;
        tb_state *s = new_game(players, (uint64_t)g, "lot=random");
        while (!tb_is_over(s))
            tb_apply(s, tb_to_move(s) == greedy ? greedy_move(s) : tb_random_move(s, &rng));
        double ret[TB_MAX_SEATS];
        tb_returns(s, ret);
        share += ret[greedy];
        tb_state_free(s);
    }
    /* random play would win a third of the games */
    if (share / games < 0.6)
        fail_msg("greedy won a share of %.2f of %d games against random players", share / games, games);
    print_message("greedy share of wins against 2 random players: %.2f\n", share / games);
}

static void playout_equals_random_moves(void **unused)
{
    (void)unused;
    for (uint64_t g = 0; g < 20; g++) {
        tb_state *a = new_game(2 + (int)(g % 3), g, g % 2 ? "lot=random" : NULL);
        tb_state *b = tb_state_dup(a);
        tb_rng ra, rb;
        tb_rng_seed(&ra, g);
        tb_rng_seed(&rb, g);
        int limit = g < 10 ? 37 : 0, n = 0;
        while ((limit <= 0 || n < limit) && !tb_is_over(a)) {
            tb_apply(a, tb_random_move(a, &ra));
            n++;
        }
        assert_int_equal(tb_playout(b, &rb, limit), n);
        assert_true(tb_state_equal(a, b));
        assert_true(memcmp(&ra, &rb, sizeof ra) == 0);
        tb_state_free(a);
        tb_state_free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_json_rejects_inconsistent_states),
        cmocka_unit_test(options_keep_the_invariants),
        cmocka_unit_test(placements_parse_in_any_order),
        cmocka_unit_test(seen_cards_survive_resampling),
        cmocka_unit_test(greedy_beats_random),
        cmocka_unit_test(playout_equals_random_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
