/*
 * test_breakdown.c — the score breakdown (tb_score_breakdown, game.h's
 * score_breakdown hook): over many seeded random games of every game and
 * player count, each seat's parts add up to its score at the end and all
 * along the way, survive the state JSON round trip, and name their sources
 * in words; a state the game cannot explain, or a bad seat, gets no
 * breakdown (and nothing crashes).  The known numbers of particular
 * positions are in the rules scenarios (tests/rules, "expect breakdown").
 */
#include "tabula.h"

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Asserts that every seat of s has a breakdown of named parts that adds up
 * to its score, and that the JSON form says the same. */
static void check_breakdown(const tb_state *s)
{
    int sc[TB_MAX_SEATS];
    tb_scores(s, sc);
    char *text = tb_score_breakdown_json(s);
    assert_non_null(text);
    json_t *all = json_loads(text, 0, NULL);
    free(text);
    assert_true(json_is_array(all));
    assert_int_equal((int)json_array_size(all), tb_players(s));
    for (int p = 0; p < tb_players(s); p++) {
        tb_score_part parts[TB_BREAKDOWN_MAX];
        int n = tb_score_breakdown(s, p, parts), sum = 0;
        assert_in_range(n, 1, TB_BREAKDOWN_MAX);
        json_t *seat = json_array_get(all, (size_t)p);
        assert_int_equal((int)json_array_size(seat), n);
        for (int i = 0; i < n; i++) {
            assert_true(strlen(parts[i].source) > 0);
            /* words for players: no rule ids, no underscores */
            assert_null(strchr(parts[i].source, '_'));
            sum += parts[i].points;
            json_t *part = json_array_get(seat, (size_t)i);
            assert_string_equal(json_string_value(json_object_get(part, "source")),
                                parts[i].source);
            assert_int_equal(json_integer_value(json_object_get(part, "points")),
                             parts[i].points);
        }
        assert_int_equal(sum, sc[p]);
    }
    json_decref(all);
}

/* The breakdown of a state and of its JSON round trip are the same. */
static void check_round_trip(const tb_state *s)
{
    char err[TB_ERR_LEN];
    char *json = tb_state_json(s);
    tb_state *back = tb_state_load(json, err, sizeof err);
    free(json);
    assert_non_null(back);
    char *a = tb_score_breakdown_json(s), *b = tb_score_breakdown_json(back);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    free(a);
    free(b);
    tb_state_free(back);
}

static void random_games_add_up(const char *name, int games)
{
    const tb_game *game = tb_game_find(name);
    assert_non_null(game);
    char err[TB_ERR_LEN];
    for (int players = tb_game_min_players(game); players <= tb_game_max_players(game);
         players++) {
        int nonzero_seats = 0;
        for (int g = 0; g < games; g++) {
            tb_state *s = tb_state_new(game);
            assert_int_equal(tb_setup(s, players, NULL, (uint64_t)(1000 + g), err, sizeof err),
                             0);
            tb_rng rng;
            tb_rng_seed(&rng, (uint64_t)g * 31u + (uint64_t)players);
            check_breakdown(s);
            int d = 0;
            while (!tb_is_over(s)) {
                tb_apply(s, tb_random_move(s, &rng));
                if (++d % 40 == 0)
                    check_breakdown(s);
            }
            check_breakdown(s);
            check_round_trip(s);
            /* the parts say something: at the end a seat has more than one
             * source, or at least one that is not zero */
            for (int p = 0; p < players; p++) {
                tb_score_part parts[TB_BREAKDOWN_MAX];
                int n = tb_score_breakdown(s, p, parts);
                for (int i = 0; i < n; i++)
                    if (parts[i].points) {
                        nonzero_seats++;
                        break;
                    }
            }
            tb_state_free(s);
        }
        assert_true(nonzero_seats > games * players / 2);
    }
}

static void clans_breakdowns_add_up(void **unused)
{
    (void)unused;
    random_games_add_up("clans", 200);
}

static void arkadia_breakdowns_add_up(void **unused)
{
    (void)unused;
    random_games_add_up("arkadia", 60);
}

static void khronos_breakdowns_add_up(void **unused)
{
    (void)unused;
    random_games_add_up("khronos", 40);
}

/* A finished game of `name`, its state JSON edited by `edit` and loaded again
 * (NULL and err when the game refuses the edited state). */
static tb_state *edited_end(const char *name, int players, void (*edit)(json_t *),
                            char *err, size_t errlen)
{
    const tb_game *game = tb_game_find(name);
    tb_state *s = tb_state_new(game);
    assert_int_equal(tb_setup(s, players, NULL, 7, err, errlen), 0);
    tb_rng rng;
    tb_rng_seed(&rng, 7);
    while (!tb_is_over(s))
        tb_apply(s, tb_random_move(s, &rng));
    char *text = tb_state_json(s);
    tb_state_free(s);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    edit(j);
    text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    tb_state *back = tb_state_load(text, err, errlen);
    free(text);
    return back;
}

static void clans_more_points(json_t *j)
{
    json_t *tracks = json_object_get(j, "tracks");
    json_object_set_new(tracks, "red", json_integer(json_integer_value(json_object_get(tracks, "red")) + 5));
}

static void khronos_more_ecus(json_t *j)
{
    json_t *ecus = json_object_get(j, "ecus");
    json_array_set_new(ecus, 0, json_integer(json_integer_value(json_array_get(ecus, 0)) + 5));
    json_array_set_new(ecus, 1, json_integer(json_integer_value(json_array_get(ecus, 1)) + 5));
}

static void khronos_no_ledger(json_t *j)
{
    json_object_del(j, "ledger");
}

static void khronos_bad_ledger(json_t *j)
{
    json_object_set_new(json_array_get(json_object_get(j, "ledger"), 0), "spent",
                        json_integer(-3));
}

static void arkadia_too_many_cashed(json_t *j)
{
    json_t *seat = json_array_get(json_object_get(j, "seats"), 0);
    json_object_set_new(seat, "gold", json_integer(0));
    json_t *cashed = json_object_get(seat, "cashed");
    json_object_set_new(cashed, "red", json_integer(5));
}

static void arkadia_no_cashed(json_t *j)
{
    json_t *seats = json_object_get(j, "seats");
    for (size_t i = 0; i < json_array_size(seats); i++)
        json_object_del(json_array_get(seats, i), "cashed");
}

/* A seat whose score the state cannot explain gets no breakdown, and the
 * JSON form is then NULL; the scores themselves are untouched. */
static void unexplained_states_get_none(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    /* Clans: a track edited by hand (the colour holding it loses its parts) */
    tb_state *s = edited_end("clans", 4, clans_more_points, err, sizeof err);
    assert_non_null(s);
    int explained = 0;
    for (int p = 0; p < 4; p++) {
        tb_score_part parts[TB_BREAKDOWN_MAX];
        explained += tb_score_breakdown(s, p, parts) >= 0;
    }
    assert_int_equal(explained, 3); /* four seats, five colours: red is held by one */
    assert_null(tb_score_breakdown_json(s));
    tb_state_free(s);
    /* Khronos: Ecus the ledger does not account for */
    s = edited_end("khronos", 3, khronos_more_ecus, err, sizeof err);
    assert_non_null(s);
    tb_score_part parts[TB_BREAKDOWN_MAX];
    assert_int_equal(tb_score_breakdown(s, 0, parts), -1);
    assert_int_equal(tb_score_breakdown(s, 1, parts), -1);
    assert_true(tb_score_breakdown(s, 2, parts) > 0);
    assert_null(tb_score_breakdown_json(s));
    tb_state_free(s);
    /* Khronos: a state written before the ledger loads, without a breakdown
     * (unless its Ecus happen to be the starting ones) */
    s = edited_end("khronos", 3, khronos_no_ledger, err, sizeof err);
    assert_non_null(s);
    tb_state_free(s);
    /* Khronos: a negative cost is refused with a clear error */
    s = edited_end("khronos", 3, khronos_bad_ledger, err, sizeof err);
    assert_null(s);
    assert_non_null(strstr(err, "ledger[0]"));
    /* Arkadia: seals sold at the end worth more than the gold held */
    s = edited_end("arkadia", 2, arkadia_too_many_cashed, err, sizeof err);
    assert_null(s);
    assert_non_null(strstr(err, "sold at the end"));
    /* Arkadia: a finished state written before "cashed" still explains its
     * gold (all of it from sales, as far as it can tell) */
    s = edited_end("arkadia", 2, arkadia_no_cashed, err, sizeof err);
    assert_non_null(s);
    check_breakdown(s);
    tb_state_free(s);
}

static void bad_seats_get_none(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_new(tb_game_find("clans"));
    assert_int_equal(tb_setup(s, 3, NULL, 1, err, sizeof err), 0);
    tb_score_part parts[TB_BREAKDOWN_MAX];
    assert_int_equal(tb_score_breakdown(s, -1, parts), -1);
    assert_int_equal(tb_score_breakdown(s, 3, parts), -1);
    assert_int_equal(tb_score_breakdown(s, TB_MAX_SEATS, parts), -1);
    assert_int_equal(tb_score_breakdown(NULL, 0, parts), -1);
    assert_int_equal(tb_score_breakdown(s, 0, NULL), -1);
    tb_state_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clans_breakdowns_add_up),
        cmocka_unit_test(arkadia_breakdowns_add_up),
        cmocka_unit_test(khronos_breakdowns_add_up),
        cmocka_unit_test(unexplained_states_get_none),
        cmocka_unit_test(bad_seats_get_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
