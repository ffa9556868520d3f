/*
 * test_breakdown.c — the score breakdown (tb_score_breakdown, game.h's
 * score_breakdown hook): over many seeded random games of every game and
 * player count, each seat's parts add up to its score at the end and all
 * along the way, survive the state JSON round trip, and name their sources
 * in words; a state the game cannot explain, or a bad seat, gets no
 * breakdown (and nothing crashes).  Points by stage (tb_record_story_json,
 * what the result page's graph and tables read) agree with the breakdown
 * stage by stage over 200 finished games of each game.  The known numbers
 * of particular positions are in the rules scenarios (tests/rules, "expect
 * breakdown").
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

/* ---- points by stage (tb_record_story_json) ---- */

/* Does a breakdown source name a stage: begin with the stage's name up to
 * any " of " ("Turn 4 of 7": "Turn 4"), then a space or a comma? */
static bool source_names_stage(const char *source, const char *stage)
{
    const char *of = strstr(stage, " of ");
    size_t len = of ? (size_t)(of - stage) : strlen(stage);
    return strncmp(source, stage, len) == 0 && (source[len] == ' ' || source[len] == ',');
}

typedef struct seat_parts {
    int n;
    tb_score_part part[TB_BREAKDOWN_MAX];
} seat_parts;

static int part_of(const seat_parts *sp, const char *source)
{
    for (int i = 0; i < sp->n; i++)
        if (strcmp(sp->part[i].source, source) == 0)
            return sp->part[i].points;
    return 0;
}

/* The points an entry should give `source`: its change over the entry's
 * steps, or, for a source named after a stage, all of its final points in
 * that stage's entry and none elsewhere. */
static int expected_part(const char *source, const char *stage, const seat_parts *a, const seat_parts *z,
                         const seat_parts *fin, char (*names)[64], int stage_count)
{
    for (int i = 0; i < stage_count; i++)
        if (source_names_stage(source, names[i]))
            return strcmp(names[i], stage) == 0 ? part_of(fin, source) : 0;
    return part_of(z, source) - (a ? part_of(a, source) : 0);
}

/* Checks one finished game's story against the game replayed here: the
 * scores and stages of every step; stages that follow each other and cover
 * every decision; each stage's parts are exactly the breakdown's change over
 * its steps, a source named after a stage ("Epoch III villages") counting
 * whole in that stage, and its points their sum; each seat's stages add up
 * to its final score and final breakdown.  Returns how many times a source
 * named after a stage gained outside its stage's steps (one Clans decision
 * founding villages of two epochs). */
static int check_story(const tb_game *game, int players, uint64_t seed, uint64_t rng_seed)
{
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_new(game);
    assert_int_equal(tb_setup(s, players, NULL, seed, err, sizeof err), 0);
    tb_record *rec = tb_record_new(game, players, NULL, seed);
    tb_rng rng;
    tb_rng_seed(&rng, rng_seed);
    int cap = 256, n = 0;
    int(*scores)[TB_MAX_SEATS] = malloc(sizeof *scores * (size_t)cap);
    char(*stages)[64] = malloc(sizeof *stages * (size_t)cap);
    seat_parts(*bd)[TB_MAX_SEATS] = malloc(sizeof *bd * (size_t)cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            scores = realloc(scores, sizeof *scores * (size_t)cap);
            stages = realloc(stages, sizeof *stages * (size_t)cap);
            bd = realloc(bd, sizeof *bd * (size_t)cap);
        }
        tb_scores(s, scores[n]);
        tb_stage_text(s, stages[n], sizeof stages[n]);
        for (int p = 0; p < players; p++) {
            bd[n][p].n = tb_score_breakdown(s, p, bd[n][p].part);
            assert_true(bd[n][p].n >= 0);
        }
        if (tb_is_over(s))
            break;
        tb_move m = tb_random_move(s, &rng);
        char text[256];
        tb_move_to_text(s, m, text, sizeof text);
        assert_int_equal(tb_record_push(rec, text), 0);
        tb_apply(s, m);
        n++;
    }
    /* the game's stages, each once */
    char(*names)[64] = malloc(sizeof *names * (size_t)(n + 2));
    int stage_count = 0;
    for (int k = 0; k < (n ? n : 1); k++)
        if (k == 0 || strcmp(stages[k], stages[k - 1]) != 0)
            snprintf(names[stage_count++], sizeof names[0], "%s", stages[k]);
    /* the final step's stage, when only it is there and a source names it */
    bool last_named = false;
    for (int p = 0; n > 0 && p < players && strcmp(stages[n], stages[n - 1]) != 0; p++)
        for (int i = 0; i < bd[n][p].n; i++)
            last_named |= source_names_stage(bd[n][p].part[i].source, stages[n]);
    if (last_named)
        snprintf(names[stage_count++], sizeof names[0], "%s", stages[n]);
    char *story = tb_record_story_json(rec, NULL, err, sizeof err);
    assert_non_null(story);
    json_t *j = json_loads(story, 0, NULL);
    free(story);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "total")), n);
    const json_t *js = json_object_get(j, "scores"), *jt = json_object_get(j, "stages");
    assert_int_equal((int)json_array_size(js), n + 1);
    for (int k = 0; k <= n; k++) {
        assert_string_equal(json_string_value(json_array_get(jt, (size_t)k)), stages[k]);
        for (int p = 0; p < players; p++)
            assert_int_equal(json_integer_value(json_array_get(json_array_get(js, (size_t)k), (size_t)p)),
                             scores[k][p]);
    }
    const seat_parts *fin = bd[n];
    /* what each seat's entries add up to, source by source */
    seat_parts sum[TB_MAX_SEATS];
    memset(sum, 0, sizeof sum);
    int total[TB_MAX_SEATS] = {0}, moved = 0, at = 0, stage_entries = 0;
    const json_t *by = json_object_get(j, "by_stage");
    for (size_t e = 0; e < json_array_size(by); e++) {
        const json_t *entry = json_array_get(by, e);
        const char *stage = json_string_value(json_object_get(entry, "stage"));
        int from = (int)json_integer_value(json_object_get(entry, "from"));
        int to = (int)json_integer_value(json_object_get(entry, "to"));
        bool start = e == 0 && strcmp(stage, "At the start") == 0;
        if (start) {
            assert_int_equal(from, 0);
            assert_int_equal(to, 0);
        } else {
            /* the stages follow each other, each the stage of its decisions */
            assert_string_equal(stage, names[stage_entries]);
            stage_entries++;
            assert_int_equal(from, at);
            assert_true(to > from || n == 0 || (last_named && from == n));
            assert_true(to <= n);
            for (int k = from; k < to; k++)
                assert_string_equal(stages[k], stage);
            at = to;
        }
        const json_t *points = json_object_get(entry, "points"), *parts = json_object_get(entry, "parts");
        for (int p = 0; p < players; p++) {
            int pts = (int)json_integer_value(json_array_get(points, (size_t)p));
            total[p] += pts;
            const json_t *list = json_array_get(parts, (size_t)p);
            assert_true(json_is_array(list));
            const seat_parts *a = start ? NULL : &bd[from][p], *z = &bd[to][p];
            int add = 0, listed = 0;
            for (size_t i = 0; i < json_array_size(list); i++) {
                const char *source = json_string_value(json_object_get(json_array_get(list, i), "source"));
                int v = (int)json_integer_value(json_object_get(json_array_get(list, i), "points"));
                assert_non_null(source);
                assert_int_not_equal(v, 0);
                assert_int_equal(v, expected_part(source, start ? "" : stage, a, z, &fin[p], names,
                                                  stage_count));
                add += v;
                listed++;
                int q = 0;
                while (q < sum[p].n && strcmp(sum[p].part[q].source, source) != 0)
                    q++;
                if (q == sum[p].n) {
                    assert_true(q < TB_BREAKDOWN_MAX);
                    snprintf(sum[p].part[q].source, sizeof sum[p].part[q].source, "%s", source);
                    sum[p].n++;
                }
                sum[p].part[q].points += v;
            }
            /* and nothing left out: every source owed points here has them */
            const char *union_[3 * TB_BREAKDOWN_MAX];
            int un = 0, owed = 0;
            const seat_parts *lists[3] = {a, z, &fin[p]};
            for (int l = 0; l < 3; l++)
                for (int i = 0; lists[l] && i < lists[l]->n; i++) {
                    const char *source = lists[l]->part[i].source;
                    int u = 0;
                    while (u < un && strcmp(union_[u], source) != 0)
                        u++;
                    if (u == un)
                        union_[un++] = source;
                }
            for (int u = 0; u < un; u++)
                owed += expected_part(union_[u], start ? "" : stage, a, z, &fin[p], names, stage_count) != 0;
            assert_int_equal(listed, owed);
            assert_int_equal(add, pts);
            if (!start && pts != scores[to][p] - scores[from][p])
                moved++;
        }
    }
    assert_int_equal(at, n);
    assert_int_equal(stage_entries, stage_count);
    /* the entries add up to the final scores and the final breakdown */
    for (int p = 0; p < players; p++) {
        assert_int_equal(total[p], scores[n][p]);
        int nonzero = 0;
        for (int i = 0; i < fin[p].n; i++) {
            if (!fin[p].part[i].points)
                continue;
            nonzero++;
            assert_int_equal(part_of(&sum[p], fin[p].part[i].source), fin[p].part[i].points);
        }
        for (int q = 0; q < sum[p].n; q++)
            nonzero -= sum[p].part[q].points != 0;
        assert_int_equal(nonzero, 0);
    }
    json_decref(j);
    free(scores);
    free(stages);
    free(bd);
    free(names);
    tb_record_free(rec);
    tb_state_free(s);
    return moved;
}

/* 200 finished games of `name`, the player counts in turn. */
static void stories_agree(const char *name, bool straddles)
{
    const tb_game *game = tb_game_find(name);
    assert_non_null(game);
    int lo = tb_game_min_players(game), span = tb_game_max_players(game) - lo + 1, moved = 0;
    for (int g = 0; g < 200; g++)
        moved += check_story(game, lo + g % span, (uint64_t)(5000 + g), (uint64_t)g * 7919u + 1u);
    /* in Clans some decisions found villages of two epochs (the case that
     * set the two tables apart); elsewhere a stage's points are its change */
    if (straddles)
        assert_true(moved > 0);
    else
        assert_int_equal(moved, 0);
}

static void clans_points_by_stage_agree(void **unused)
{
    (void)unused;
    stories_agree("clans", true);
}

static void arkadia_points_by_stage_agree(void **unused)
{
    (void)unused;
    stories_agree("arkadia", false);
}

static void khronos_points_by_stage_agree(void **unused)
{
    (void)unused;
    stories_agree("khronos", false);
}

/* A record that does not replay gets no story, and says why. */
static void bad_story_refused(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN] = "";
    assert_null(tb_record_story_json(NULL, NULL, err, sizeof err));
    assert_true(strlen(err) > 0);
    tb_record *rec = tb_record_new(tb_game_find("clans"), 3, NULL, 1);
    assert_int_equal(tb_record_push(rec, "no such move"), 0);
    err[0] = 0;
    assert_null(tb_record_story_json(rec, NULL, err, sizeof err));
    assert_true(strlen(err) > 0);
    tb_record_free(rec);
}

/* A game with no decision (resigned at once): Khronos' seats hold their
 * starting Ecus "At the start", then one stage of nothing. */
static void empty_story(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    tb_record *rec = tb_record_new(tb_game_find("khronos"), 3, NULL, 7);
    char *story = tb_record_story_json(rec, NULL, err, sizeof err);
    assert_non_null(story);
    json_t *j = json_loads(story, 0, NULL);
    free(story);
    const json_t *by = json_object_get(j, "by_stage");
    assert_int_equal((int)json_array_size(by), 2);
    const json_t *start = json_array_get(by, 0), *stage = json_array_get(by, 1);
    assert_string_equal(json_string_value(json_object_get(start, "stage")), "At the start");
    assert_string_equal(json_string_value(json_object_get(stage, "stage")), "Turn 1 of 7");
    int sc[TB_MAX_SEATS];
    tb_state *s = tb_record_replay(rec, -1, err, sizeof err);
    tb_scores(s, sc);
    for (int p = 0; p < 3; p++) {
        assert_int_equal(json_integer_value(json_array_get(json_object_get(start, "points"), (size_t)p)), sc[p]);
        assert_int_equal(json_integer_value(json_array_get(json_object_get(stage, "points"), (size_t)p)), 0);
        assert_int_equal((int)json_array_size(json_array_get(json_object_get(stage, "parts"), (size_t)p)), 0);
    }
    assert_true(sc[0] > 0);
    tb_state_free(s);
    json_decref(j);
    tb_record_free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clans_breakdowns_add_up),
        cmocka_unit_test(arkadia_breakdowns_add_up),
        cmocka_unit_test(khronos_breakdowns_add_up),
        cmocka_unit_test(unexplained_states_get_none),
        cmocka_unit_test(bad_seats_get_none),
        cmocka_unit_test(clans_points_by_stage_agree),
        cmocka_unit_test(arkadia_points_by_stage_agree),
        cmocka_unit_test(khronos_points_by_stage_agree),
        cmocka_unit_test(bad_story_refused),
        cmocka_unit_test(empty_story),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
