/*
 * test_review.c — unit tests of the game review (src/ai/review.c): a review
 * uses only what the deciding seat knew (two truths that differ only in
 * secrets the seat cannot see give byte-identical entries, decision after
 * decision through a whole game), it is deterministic, its numbers are
 * consistent with their definitions (docs/ai.md, "Game review"), it marks
 * bad decisions and not the search's own, and a bad record gets an error.
 */
#include "tabula.h"
#include "test_positions.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void test_assert_same_entry(const tb_review_entry *a, const tb_review_entry *b,
                                   const char *what)
{
    if (memcmp(a, b, sizeof *a) != 0) {
        char *ja = tb_review_entry_json(a), *jb = tb_review_entry_json(b);
        fail_msg("%s: the review differs on secrets the seat could not see:\n  %s\n  %s", what,
                 ja, jb);
    }
}

static void a_decision_is_reviewed_from_what_its_seat_knew(void **unused)
{
    (void)unused;
    int pairs = 0;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        for (int players = tb_game_min_players(g); players <= tb_game_max_players(g); players++) {
            for (uint64_t seed = 1; seed <= 3; seed++) {
                tb_state *a = test_position(g, players, seed, (int)(seed * 9));
                int mover = tb_to_move(a);
                tb_state *b = test_other_truth(a, mover, 7000);
                if (!b) {
                    tb_state_free(a);
                    continue;
                }
                char *va = tb_view_json(a, mover), *vb = tb_view_json(b, mover);
                assert_string_equal(va, vb);
                free(va);
                free(vb);
                /* Review a decision other than the search's favourite too, so
                 * the search restricted to the played decision runs. */
                tb_rng rng;
                tb_rng_seed(&rng, seed);
                for (int k = 0; k < 2; k++) {
                    tb_move played = tb_random_move(a, &rng);
                    tb_review_settings settings = {.budget = {.iterations = 150}, .seed = seed};
                    tb_review_entry ea, eb;
                    char err[TB_ERR_LEN];
                    assert_int_equal(tb_review_decision(a, played, &settings, 40 + seed, &ea, err,
                                                        sizeof err), 0);
                    assert_int_equal(tb_review_decision(b, played, &settings, 40 + seed, &eb, err,
                                                        sizeof err), 0);
                    char what[96];
                    snprintf(what, sizeof what, "%s/%d seed %llu", tb_game_name(g), players,
                             (unsigned long long)seed);
                    test_assert_same_entry(&ea, &eb, what);
                    assert_int_equal(ea.seat, mover);
                    assert_true(ea.iterations >= 150);
                }
                pairs++;
                tb_state_free(a);
                tb_state_free(b);
            }
        }
    }
    assert_true(pairs >= 6); /* every game hides something from the mover */
}

/* Two whole two-player Clans games, move for move the same, whose truths
 * differ from the start in the opponent's secret colour: every review of the
 * first seat's decisions is identical, though the games' truths differ. */
static void a_whole_game_review_ignores_the_opponents_secret(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    assert_non_null(g);
    int checked_games = 0;
    for (uint64_t seed = 1; seed <= 20 && checked_games < 1; seed++) {
        tb_state *a = test_setup(g, 2, seed);
        tb_state *b = test_other_truth(a, 0, 7000);
        if (!b) {
            tb_state_free(a);
            continue;
        }
        char *va = tb_view_json(a, 0), *vb = tb_view_json(b, 0);
        assert_string_equal(va, vb);
        free(va);
        free(vb);
        tb_rng rng;
        tb_rng_seed(&rng, seed * 3);
        int reviewed = 0;
        while (!tb_is_over(a)) {
            assert_false(tb_is_over(b));
            tb_move m = tb_random_move(a, &rng);
            assert_true(tb_is_legal(b, m)); /* Clans' decisions never depend on colours */
            if (tb_to_move(a) == 0) {
                assert_int_equal(tb_to_move(b), 0);
                tb_review_settings settings = {.budget = {.iterations = 100}};
                tb_review_entry ea, eb;
                char err[TB_ERR_LEN];
                uint64_t s = 1000 + (uint64_t)reviewed;
                assert_int_equal(tb_review_decision(a, m, &settings, s, &ea, err, sizeof err), 0);
                assert_int_equal(tb_review_decision(b, m, &settings, s, &eb, err, sizeof err), 0);
                test_assert_same_entry(&ea, &eb, "two-player Clans");
                reviewed++;
            }
            tb_apply(a, m);
            tb_apply(b, m);
        }
        assert_true(reviewed > 5);
        /* The secret is still different at the end. */
        char *ja = tb_state_json(a), *jb = tb_state_json(b);
        assert_true(strcmp(ja, jb) != 0);
        free(ja);
        free(jb);
        checked_games++;
        tb_state_free(a);
        tb_state_free(b);
    }
    assert_int_equal(checked_games, 1);
}

/* A record of a seeded game played by random moves to the end. */
static tb_record *test_random_record(const tb_game *g, int players, uint64_t seed)
{
    tb_state *s = test_setup(g, players, seed);
    tb_record *rec = tb_record_new(g, players, NULL, seed);
    tb_rng rng;
    tb_rng_seed(&rng, seed + 99);
    while (!tb_is_over(s)) {
        tb_move m = tb_random_move(s, &rng);
        char text[TB_MOVE_TEXT];
        assert_true(tb_move_to_text(s, m, text, sizeof text) > 0);
        assert_int_equal(tb_record_push(rec, text), 0);
        tb_apply(s, m);
    }
    tb_state_free(s);
    return rec;
}

static void a_record_review_is_consistent_and_deterministic(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_record *rec = test_random_record(g, 2, 5);
    tb_review_settings settings = {.budget = {.iterations = 200}, .seed = 17};
    tb_review *r1, *r2, *all;
    char err[TB_ERR_LEN];
    assert_int_equal(tb_review_record(rec, 1, &settings, NULL, NULL, &r1, err, sizeof err), 0);
    assert_int_equal(tb_review_record(rec, 1, &settings, NULL, NULL, &r2, err, sizeof err), 0);
    assert_int_equal(tb_review_record(rec, -1, &settings, NULL, NULL, &all, err, sizeof err), 0);
    assert_int_equal(r1->count, r2->count);
    assert_memory_equal(r1->entry, r2->entry, (size_t)r1->count * sizeof *r1->entry);
    assert_true(r1->over);
    assert_int_equal(all->count, all->decisions);
    assert_int_equal(all->decisions, tb_record_length(rec));
    int marked = 0, of_seat = 0;
    for (int i = 0; i < all->count; i++) {
        const tb_review_entry *e = &all->entry[i];
        assert_int_equal(e->index, i);
        if (e->seat == 1) {
            /* The seat's own review is the same entry as in the full review. */
            assert_memory_equal(e, &r1->entry[of_seat], sizeof *e);
            of_seat++;
        }
        for (int p = 0; p < 2; p++)
            assert_true(e->win_rate[p] >= 0.0 && e->win_rate[p] <= 1.0);
        assert_true(e->before == e->win_rate[e->seat]);
        assert_true(e->loss >= 0.0);
        double expect = e->best_value > e->after ? e->best_value - e->after : 0.0;
        assert_true(e->loss == expect);
        if (e->played == e->best)
            assert_true(e->loss == 0.0);
        int want = e->loss > TB_REVIEW_BLUNDER   ? TB_REVIEW_BLUNDER_MARK
                   : e->loss > TB_REVIEW_MISTAKE ? TB_REVIEW_MISTAKE_MARK
                                                 : TB_REVIEW_GOOD;
        assert_int_equal(e->mark, want);
        marked += e->mark != TB_REVIEW_GOOD;
        assert_true(strlen(e->played_text) > 0 && strlen(e->best_text) > 0);
        char *j = tb_review_entry_json(e);
        assert_non_null(j);
        assert_non_null(strstr(j, "\"win_rates\":["));
        free(j);
    }
    assert_int_equal(of_seat, r1->count);
    /* Random play makes mistakes a search sees. */
    assert_true(marked > 0);
    tb_review_free(r1);
    tb_review_free(r2);
    tb_review_free(all);
    tb_record_free(rec);
}

static void the_searchs_own_decision_is_not_a_mistake(void **unused)
{
    (void)unused;
    for (int gi = 0; gi < tb_game_count(); gi++) {
        const tb_game *g = tb_game_at(gi);
        tb_state *s = test_position(g, 2, 3, 12);
        tb_review_settings settings = {.budget = {.iterations = 300}};
        tb_review_entry first, again;
        char err[TB_ERR_LEN];
        tb_rng rng;
        tb_rng_seed(&rng, 4);
        tb_move any = tb_random_move(s, &rng);
        assert_int_equal(tb_review_decision(s, any, &settings, 9, &first, err, sizeof err), 0);
        assert_int_equal(tb_review_decision(s, first.best, &settings, 9, &again, err, sizeof err),
                         0);
        assert_true(again.loss == 0.0);
        assert_int_equal(again.mark, TB_REVIEW_GOOD);
        assert_true(again.after == again.best_value);
        tb_state_free(s);
    }
}

static int test_stop_after_two(void *ctx, int done, int total)
{
    int *calls = ctx;
    (*calls)++;
    assert_true(done <= total);
    return done >= 2;
}

static void bad_input_gets_an_error(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_record *rec = test_random_record(g, 2, 8);
    tb_review *r = (tb_review *)1;
    char err[TB_ERR_LEN] = "";
    assert_int_equal(tb_review_record(rec, 2, NULL, NULL, NULL, &r, err, sizeof err), -1);
    assert_null(r);
    assert_non_null(strstr(err, "seat 3"));
    int calls = 0;
    tb_review_settings quick = {.budget = {.iterations = 20}};
    assert_int_equal(
        tb_review_record(rec, -1, &quick, test_stop_after_two, &calls, &r, err, sizeof err), -1);
    assert_int_equal(calls, 2);
    assert_non_null(strstr(err, "stopped"));
    /* A record with a decision that does not replay. */
    tb_record *bad = tb_record_new(g, 2, NULL, 8);
    assert_int_equal(tb_record_push(bad, "1-2"), 0);
    assert_int_equal(tb_record_push(bad, "1-2"), 0);
    assert_int_equal(tb_review_record(bad, -1, NULL, NULL, NULL, &r, err, sizeof err), -1);
    assert_null(r);
    assert_true(strlen(err) > 0);
    /* No decision to review at the end, and an illegal one. */
    tb_state *end = tb_record_replay(rec, -1, err, sizeof err);
    tb_review_entry e;
    assert_int_equal(tb_review_decision(end, 0, NULL, 1, &e, err, sizeof err), -1);
    tb_state *start = tb_record_replay(rec, 0, err, sizeof err);
    tb_move bogus = 0;
    while (tb_is_legal(start, bogus))
        bogus++;
    assert_int_equal(tb_review_decision(start, bogus, NULL, 1, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "not legal"));
    tb_state_free(end);
    tb_state_free(start);
    tb_record_free(bad);
    tb_record_free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_decision_is_reviewed_from_what_its_seat_knew),
        cmocka_unit_test(a_whole_game_review_ignores_the_opponents_secret),
        cmocka_unit_test(a_record_review_is_consistent_and_deterministic),
        cmocka_unit_test(the_searchs_own_decision_is_not_a_mistake),
        cmocka_unit_test(bad_input_gets_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
