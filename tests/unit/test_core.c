/*
 * test_core.c — unit tests of the game-agnostic core: the generator, the
 * options, the registry, states' checked paths and JSON, and records.
 */
#include "tabula.h"
#include "game.h"
#include "text.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_draws.h"

static void rng_is_deterministic_and_seed_dependent(void **unused)
{
    (void)unused;
    tb_rng a, b, c;
    tb_rng_seed(&a, 42);
    tb_rng_seed(&b, 42);
    tb_rng_seed(&c, 43);
    int same_as_other_seed = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = tb_rng_next(&a);
        assert_int_equal(x, tb_rng_next(&b));
        same_as_other_seed += x == tb_rng_next(&c);
    }
    assert_int_equal(same_as_other_seed, 0);
}

static void rng_below_is_in_range_and_roughly_uniform(void **unused)
{
    (void)unused;
    tb_rng r;
    tb_rng_seed(&r, 7);
    int counts[6] = {0};
    for (int i = 0; i < 60000; i++) {
        uint32_t v = tb_rng_below(&r, 6);
        assert_true(v < 6);
        counts[v]++;
    }
    for (int k = 0; k < 6; k++)
        assert_in_range(counts[k], 9500, 10500);
    for (int i = 0; i < 1000; i++) {
        double u = tb_rng_unit(&r);
        assert_true(u >= 0.0 && u < 1.0);
    }
    assert_int_equal(tb_rng_below(&r, 1), 0);
}

static void registry_finds_games_sorted(void **unused)
{
    (void)unused;
    assert_true(tb_game_count() >= 1);
    for (int i = 1; i < tb_game_count(); i++)
        assert_true(strcmp(tb_game_name(tb_game_at(i - 1)), tb_game_name(tb_game_at(i))) < 0);
    assert_non_null(tb_game_find("clans"));
    assert_null(tb_game_find("chess"));
    assert_null(tb_game_find(NULL));
    assert_null(tb_game_at(-1));
    assert_null(tb_game_at(tb_game_count()));
}

static void options_reject_unknown_keys_and_values(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_options o;
    char err[TB_ERR_LEN];
    tb_options_clear(&o);
    assert_int_equal(tb_options_set_pair(&o, "novalue", err, sizeof err), -1);
    assert_non_null(strstr(err, "KEY=VALUE"));
    assert_int_equal(tb_options_set_pair(&o, "colour=red", err, sizeof err), 0);
    assert_string_equal(tb_options_get(&o, "colour"), "red");
    assert_int_equal(tb_options_normalize(g, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown option 'colour'"));
    tb_options_clear(&o);
    assert_int_equal(tb_options_normalize(g, &o, err, sizeof err), 0);
    assert_int_equal(o.count, 0);
}

static void setup_rejects_bad_player_counts(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    char err[TB_ERR_LEN];
    assert_int_equal(tb_setup(s, 1, NULL, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "2 to 4 players"));
    assert_int_equal(tb_setup(s, 5, NULL, 1, err, sizeof err), -1);
    assert_int_equal(tb_setup(s, 4, NULL, 1, err, sizeof err), 0);
    assert_int_equal(tb_players(s), 4);
    tb_state_free(s);
}

static void same_seed_same_game(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_state *a = tb_state_new(g), *b = tb_state_new(g), *c = tb_state_new(g);
    tb_setup(a, 3, NULL, 99, NULL, 0);
    tb_setup(b, 3, NULL, 99, NULL, 0);
    tb_setup(c, 3, NULL, 100, NULL, 0);
    assert_true(tb_state_equal(a, b));
    assert_false(tb_state_equal(a, c));
    tb_state_free(a);
    tb_state_free(b);
    tb_state_free(c);
}

static void checked_paths_leave_state_unchanged(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    tb_setup(s, 2, NULL, 5, NULL, 0);
    tb_state *before = tb_state_dup(s);
    char err[TB_ERR_LEN];
    const char *bad[] = {"", "1-", "-1", "1-1", "0-1", "61-1", "1-61", "1--2", "a-b", "1-40",
                         "village", "village 3", "village x", "1-2 extra", "99999999999-1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(tb_play_text(s, bad[i], err, sizeof err), -1);
        assert_true(strlen(err) > 0);
        assert_true(tb_state_equal(s, before));
    }
    assert_int_equal(tb_apply_checked(s, 0xdeadbeef, err, sizeof err), -1);
    assert_true(tb_state_equal(s, before));
    const char *bad_json[] = {"", "{", "[]", "{\"game\":\"arkadia\"}", "{\"game\":\"clans\"}",
                              "null", "{\"game\":\"clans\",\"players\":9}"};
    for (size_t i = 0; i < sizeof bad_json / sizeof *bad_json; i++) {
        assert_int_equal(tb_state_from_json(s, g, bad_json[i], err, sizeof err), -1);
        assert_true(tb_state_equal(s, before));
    }
    tb_state_free(before);
    tb_state_free(s);
}

static void record_round_trips_and_replays(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    tb_setup(s, 3, NULL, 2024, NULL, 0);
    tb_record *rec = tb_record_new(g, 3, NULL, 2024);
    tb_record_set_player(rec, 0, "Ada", "human");
    tb_record_set_player(rec, 1, "random", "random");
    tb_rng rng;
    tb_rng_seed(&rng, 1);
    while (!tb_is_over(s)) {
        tb_move m = tb_random_move(s, &rng);
        char text[TB_MOVE_TEXT];
        tb_move_to_text(s, m, text, sizeof text);
        assert_int_equal(tb_record_push(rec, text), 0);
        tb_apply(s, m);
    }
    char *json = tb_record_json(rec, s);
    char err[TB_ERR_LEN];
    tb_record *back = tb_record_from_json(json, err, sizeof err);
    assert_non_null(back);
    assert_int_equal(tb_record_length(back), tb_record_length(rec));
    assert_string_equal(tb_record_player_name(back, 0), "Ada");
    tb_state *replayed = tb_record_replay(back, -1, err, sizeof err);
    assert_non_null(replayed);
    assert_true(tb_state_equal(replayed, s));
    char *json2 = tb_record_json(back, replayed);
    assert_string_equal(json, json2);
    /* a tampered result is detected */
    char *tampered = strdup(json);
    char *p = strstr(tampered, "\"winners\":[");
    assert_non_null(p);
    p += strlen("\"winners\":[");
    *p = *p == '0' ? '1' : '0';
    tb_record *bad = tb_record_from_json(tampered, err, sizeof err);
    assert_non_null(bad);
    assert_null(tb_record_replay(bad, -1, err, sizeof err));
    assert_non_null(strstr(err, "differs"));
    tb_record_free(bad);
    free(tampered);
    /* a record with an illegal move names it */
    tb_record *wrong = tb_record_new(g, 3, NULL, 2024);
    tb_record_push(wrong, "1-60");
    assert_null(tb_record_replay(wrong, -1, err, sizeof err));
    assert_non_null(strstr(err, "decision 1 '1-60'"));
    tb_record_free(wrong);
    free(json);
    free(json2);
    tb_state_free(replayed);
    tb_record_free(back);
    tb_record_free(rec);
    tb_state_free(s);
}

static void sealed_record_hides_seed_until_the_end(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    tb_setup(s, 2, NULL, 31337, NULL, 0);
    tb_record *rec = tb_record_new(g, 2, NULL, 31337);
    char *sealed = tb_record_json_sealed(rec, s, 0);
    assert_null(strstr(sealed, "31337"));
    assert_non_null(strstr(sealed, "\"sealed\":true"));
    char err[TB_ERR_LEN];
    tb_record *back = tb_record_from_json(sealed, err, sizeof err);
    assert_non_null(back);
    assert_null(tb_record_replay(back, -1, err, sizeof err));
    assert_non_null(strstr(err, "sealed"));
    tb_record_free(back);
    free(sealed);
    tb_record_free(rec);
    tb_state_free(s);
}

static void bad_records_get_clear_errors(void **unused)
{
    (void)unused;
    const char *cases[][2] = {
        {"", "bad JSON"},
        {"[1]", "JSON object"},
        {"{\"format\":\"x\"}", "not a Tabula record"},
        {"{\"format\":\"tabula-record\",\"version\":2}", "version"},
        {"{\"format\":\"tabula-record\",\"version\":1,\"game\":\"go\"}", "unknown game"},
        {"{\"format\":\"tabula-record\",\"version\":1,\"game\":\"clans\",\"players\":[]}", "players"},
        {"{\"format\":\"tabula-record\",\"version\":1,\"game\":\"clans\",\"players\":[{\"name\":\"a\",\"kind\":\"h\"},{\"name\":\"b\",\"kind\":\"h\"}],\"seed\":\"-1\",\"moves\":[]}", "seed"},
        {"{\"format\":\"tabula-record\",\"version\":1,\"game\":\"clans\",\"players\":[{\"name\":\"a\",\"kind\":\"h\"},{\"name\":\"b\",\"kind\":\"h\"}],\"seed\":\"1\",\"moves\":[3]}", "move 1"},
        {"{\"format\":\"tabula-record\",\"version\":1,\"game\":\"clans\",\"players\":[{\"name\":\"a\",\"kind\":\"h\"},{\"name\":\"b\",\"kind\":\"h\"}],\"seed\":\"1\",\"options\":{\"x\":\"y\"},\"moves\":[]}", "unknown option"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[TB_ERR_LEN] = "";
        tb_record *r = tb_record_from_json(cases[i][0], err, sizeof err);
        assert_null(r);
        if (!strstr(err, cases[i][1]))
            fail_msg("record %zu: error '%s' does not mention '%s'", i, err, cases[i][1]);
    }
}

static void agents_are_listed_and_decide_legally(void **unused)
{
    (void)unused;
    const tb_agent *random_agent = tb_agent_find("random");
    assert_non_null(random_agent);
    assert_null(tb_agent_find("oracle"));
    const tb_game *g = tb_game_find("clans");
    tb_state *s = tb_state_new(g);
    tb_setup(s, 4, NULL, 3, NULL, 0);
    tb_move a = tb_agent_decide(random_agent, s, NULL, 77, NULL);
    tb_move b = tb_agent_decide(random_agent, s, NULL, 77, NULL);
    assert_int_equal(a, b);
    assert_true(tb_is_legal(s, a));
    tb_state_free(s);
}

/* tb_playout is the same as repeated random_move + apply, for every game. */
static void playout_matches_random_moves(void **unused)
{
    (void)unused;
    for (int g = 0; g < tb_game_count(); g++) {
        const tb_game *game = tb_game_at(g);
        for (int seed = 0; seed < 50; seed++) {
            int players = tb_game_min_players(game) + seed % (tb_game_max_players(game) - tb_game_min_players(game) + 1);
            tb_state *a = tb_state_new(game), *b = tb_state_new(game);
            tb_setup(a, players, NULL, (uint64_t)seed, NULL, 0);
            tb_setup(b, players, NULL, (uint64_t)seed, NULL, 0);
            tb_rng ra, rb;
            tb_rng_seed(&ra, (uint64_t)seed + 100);
            tb_rng_seed(&rb, (uint64_t)seed + 100);
            int first = tb_playout(a, &ra, 7), played = 0;
            while (played < 7 && !tb_is_over(b)) {
                tb_apply(b, tb_random_move(b, &rb));
                played++;
            }
            assert_int_equal(first, played);
            assert_true(tb_state_equal(a, b));
            int rest = tb_playout(a, &ra, 0);
            while (!tb_is_over(b)) {
                tb_apply(b, tb_random_move(b, &rb));
                played++;
            }
            assert_int_equal(first + rest, played);
            assert_true(tb_is_over(a));
            assert_true(tb_state_equal(a, b));
            assert_memory_equal(&ra, &rb, sizeof ra);
            assert_int_equal(tb_decisions_made(a), played);
            tb_state_free(a);
            tb_state_free(b);
        }
    }
}

/* tb_random_moves draws exactly what as many tb_random_move calls would, and
 * only legal decisions, in every game, all along random games. */
static void random_moves_match_random_move(void **unused)
{
    (void)unused;
    for (int g = 0; g < tb_game_count(); g++) {
        const tb_game *game = tb_game_at(g);
        for (int seed = 0; seed < 10; seed++) {
            tb_state *s = tb_state_new(game);
            tb_setup(s, tb_game_min_players(game), NULL, (uint64_t)seed, NULL, 0);
            tb_rng ra, rb, walk;
            tb_rng_seed(&ra, (uint64_t)seed + 7);
            tb_rng_seed(&rb, (uint64_t)seed + 7);
            tb_rng_seed(&walk, (uint64_t)seed);
            int distinct_draws = 0;
            while (!tb_is_over(s)) {
                tb_move many[5];
                tb_random_moves(s, &ra, many, 5);
                for (int i = 0; i < 5; i++) {
                    assert_int_equal(many[i], tb_random_move(s, &rb));
                    assert_true(tb_is_legal(s, many[i]));
                    distinct_draws += i > 0 && many[i] != many[0];
                }
                assert_memory_equal(&ra, &rb, sizeof ra);
                tb_apply(s, tb_random_move(s, &walk));
            }
            assert_true(distinct_draws > 0); /* the draws are not all one decision */
            tb_state_free(s);
        }
    }
}

/* tb_random_move draws every legal decision with the same chance, in every
 * game (each may have its own fast path: Khronos searches a build or an
 * upgrade for room only when the draw lands on it, and draws again when it
 * has none): at positions all along random games of every size, many draws
 * are counted by decision and compared with the legal list's uniform
 * counts; the chi-square statistic summed over the positions must stay
 * within six standard deviations of its expectation (deterministic seeds:
 * no flakiness), and a decision outside the list fails at once. */
static void random_move_is_uniform_over_legal_decisions(void **unused)
{
    (void)unused;
    static tb_move legal[TB_MAX_MOVES];
    for (int g = 0; g < tb_game_count(); g++) {
        const tb_game *game = tb_game_at(g);
        draw_tally tally = {0};
        for (int players = tb_game_min_players(game); players <= tb_game_max_players(game); players++) {
            tb_state *s = tb_state_new(game);
            tb_setup(s, players, NULL, (uint64_t)(players * 31), NULL, 0);
            tb_rng walk, draw;
            tb_rng_seed(&walk, (uint64_t)players);
            tb_rng_seed(&draw, (uint64_t)players + 1000);
            for (int step = 0; !tb_is_over(s); step++) {
                int n = tb_legal(s, legal);
                if (step % 5 == 0 && n > 1 && n <= 400)
                    tally_draws(&tally, s, legal, n, 24, &draw);
                tb_apply(s, tb_random_move(s, &walk));
            }
            tb_state_free(s);
        }
        assert_true(tally.positions >= 20);
        tally_check(&tally, tb_game_name(game));
    }
}

/* Text quoted in messages is cut at character boundaries and mended to
 * valid UTF-8 (DESIGN.md §10). */
static void utf8_cuts_at_characters_and_mends_bad_bytes(void **unused)
{
    (void)unused;
    /* "aé€𝄞": 1 + 2 + 3 + 4 bytes */
    const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e";
    const size_t want[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10};
    for (size_t max = 0; max < sizeof want / sizeof want[0]; max++)
        assert_int_equal(tb__utf8_fit(s, max), want[max]);
    /* a cut-off character at the end is never quoted; a bad byte counts as one */
    assert_int_equal(tb__utf8_fit("ab\xe2\x82", 10), 2);
    assert_int_equal(tb__utf8_fit("\xff\xfe" "ab", 3), 3);
    char buf[64];
    snprintf(buf, sizeof buf, "'%.*s'", TB__CLIP(s, 5));
    assert_string_equal(buf, "'a\xc3\xa9'");
    assert_true(tb__utf8_valid(buf));

    /* repair: cut-off tails go, invalid bytes become '?', valid text stays */
    char t1[] = "ok \xe2\x82";
    tb__utf8_repair(t1);
    assert_string_equal(t1, "ok ");
    char t2[] = "\xff-\xc0\xaf-\xed\xa0\x80-\xf4\x90\x80\x80-\xc3\xa9";
    tb__utf8_repair(t2);
    assert_true(tb__utf8_valid(t2));
    assert_string_equal(t2, "?-?" "?-?" "?" "?-?" "?" "?" "?-\xc3\xa9");
    assert_false(tb__utf8_valid("\xc3"));
    assert_false(tb__utf8_valid("\xe0\x80\x80")); /* overlong */
    assert_true(tb__utf8_valid(s));

    /* errf: a message cut by its buffer ends on a whole character */
    char err[TB_ERR_LEN];
    tb__errf(err, 7, "%s", "abcd\xe2\x82\xacxyz"); /* 'abcd' and 2 of the euro's 3 bytes fit */
    assert_string_equal(err, "abcd");
    tb__errf(err, 8, "%s", "abcd\xe2\x82\xacxyz"); /* the whole euro fits */
    assert_string_equal(err, "abcd\xe2\x82\xac");
    for (size_t len = 1; len < 20; len++) {
        char e2[20];
        tb__errf(e2, len, "no game '%s'", "\xf0\x9d\x84\x9e\xf0\x9d\x84\x9e");
        assert_true(tb__utf8_valid(e2));
    }

    /* every refusal of a move quotes whole characters, in every game */
    for (int g = 0; g < tb_game_count(); g++) {
        const tb_game *game = tb_game_at(g);
        tb_state *st = tb_state_new(game);
        assert_int_equal(tb_setup(st, tb_game_default_players(game), NULL, 1, err, sizeof err), 0);
        for (int n = 0; n < 60; n++) {
            char text[200];
            memset(text, 'x', (size_t)n);
            snprintf(text + n, sizeof text - (size_t)n, "\xe2\x82\xac\xe2\x82\xac");
            char why[TB_ERR_LEN];
            tb_move m;
            assert_int_not_equal(tb_text_to_move(st, text, &m, why, sizeof why), 0);
            assert_true(tb__utf8_valid(why));
        }
        tb_state_free(st);
    }
}

/* A NUL inside JSON text is named in plain words, not by a library flag. */
static void json_errors_are_in_plain_words(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    assert_null(tb_state_load("{\"game\":\"cl\\u0000ans\"}", err, sizeof err));
    assert_non_null(strstr(err, "NUL"));
    assert_null(strstr(err, "JSON_"));
}

static void json_dump_round_trips(void **unused)
{
    (void)unused;
    const char *cases[] = {
        "{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\"}}",
        "[\"quote \\\" backslash \\\\ slash / tab \\t nl \\n cr \\r ctl \\u0001 \\u001f\"]",
        "[\"caf\\u00e9 \\u65e5\\u672c \\ud83c\\udfb2\"]",
        "[-9223372036854775807,-1,0,7,9223372036854775807]",
        "[0.5,-2.0,1e-300,3.141592653589793,100.0]",
        "{\"\":{\"\":[]},\"k\":\"a\\u0000b\"}",
        "[]", "{}", "\"just a string\"", "42", "null",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_error_t jerr;
        json_t *v = json_loads(cases[i], JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (!v)
            fail_msg("case %zu does not parse: %s", i, jerr.text);
        char *text = tb__json_dump(v);
        json_t *back = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (!back || !json_equal(v, back))
            fail_msg("case %zu: %s does not round-trip (%s)", i, text, back ? "differs" : jerr.text);
        assert_null(strchr(text, '\n'));
        free(text);
        json_decref(back);
        json_decref(v);
    }
    /* members stay in insertion order */
    json_t *o = json_object();
    json_object_set_new(o, "zebra", json_integer(1));
    json_object_set_new(o, "apple", json_integer(2));
    char *text = tb__json_dump(o);
    assert_string_equal(text, "{\"zebra\":1,\"apple\":2}");
    free(text);
    json_decref(o);
}

/* tb_reveals over random games of every game: each game's hook answers
 * alone, so in Clans and Arkadia it must find everything the generic check
 * finds (Khronos's leaves out, on purpose, what the rules' flow implies of
 * a hand: docs/api.md); Clans' moves show nothing until the last (every colour is
 * shown at the end); in Arkadia and Khronos a card off the hidden stack
 * shows every seat something, and the generic check alone finds nearly
 * all such draws too; the answer never changes when asked again; many
 * decisions show nothing (so undo is possible). */
static void reveals_hooks_are_complete_and_find_draws(void **unused)
{
    (void)unused;
    const char *names[] = {"clans", "arkadia", "khronos"};
    for (int gi = 0; gi < 3; gi++) {
        const tb_game *g = tb_game_find(names[gi]);
        assert_non_null(g->reveals);
        tb_state *s = tb_state_new(g);
        char err[TB_ERR_LEN];
        assert_int_equal(tb_setup(s, 3, NULL, 11, err, sizeof err), 0);
        tb_rng rng;
        tb_rng_seed(&rng, 5);
        int drawn = 0, quiet = 0, generic_found = 0;
        for (int k = 0; k < 150 && !tb_is_over(s); k++) {
            tb_move m = tb_random_move(s, &rng);
            long seats = tb_reveals(s, m);
            long generic = tb__reveals_generic(s, m);
            assert_true(seats >= 0 && generic >= 0);
            assert_int_equal(seats, tb_reveals(s, m));
            if (gi != 2 && (generic & ~seats))
                fail_msg("%s, decision %d: the generic check finds seats %ld the hook misses (%ld)",
                         names[gi], k + 1, generic, seats);
            tb_state *next = tb_state_dup(s);
            tb_apply(next, m);
            /* a draw: the hidden stack (Arkadia) or deck (Khronos) changed */
            char *sj = tb_state_json(s), *nj = tb_state_json(next);
            json_t *bj = json_loads(sj, 0, NULL), *aj = json_loads(nj, 0, NULL);
            const char *key = gi == 1 ? "stack" : "deck";
            bool drew = gi > 0 && !json_equal(json_object_get(bj, key), json_object_get(aj, key));
            json_decref(bj);
            json_decref(aj);
            bool last = tb_is_over(next);
            free(sj);
            free(nj);
            tb_state_free(next);
            if (drew) {
                drawn++;
                assert_int_equal(seats, (1L << 3) - 1);
                generic_found += (generic & (1L << tb_to_move(s))) != 0;
            } else if (gi == 0) {
                assert_int_equal(seats, last ? (1L << 3) - 1 : 0);
            }
            quiet += seats == 0;
            tb_apply(s, m);
        }
        assert_true(quiet > 10);
        if (gi > 0) {
            assert_true(drawn > 3);
            assert_true(generic_found * 10 >= drawn * 9);
        }
        tb_state_free(s);
    }
    /* Not a legal move: -1, nothing changed. */
    const tb_game *clans = tb_game_find("clans");
    tb_state *s = tb_state_new(clans);
    char err[TB_ERR_LEN];
    assert_int_equal(tb_setup(s, 2, NULL, 1, err, sizeof err), 0);
    assert_int_equal(tb_reveals(s, (tb_move)0x7fffffff), -1);
    assert_int_equal(tb_decisions_made(s), 0);
    tb_state_free(s);
}

/* The position with what no seat can see dealt again: the hidden pile
 * (`key`: Arkadia's "stack", Khronos's "deck"; NULL: none) shuffled and the
 * generator re-seeded, through the state JSON; every hand, the display and
 * all the rest as they are. */
static tb_state *redeal_unseen(const tb_state *s, const char *key, tb_rng *rng)
{
    char *text = tb_state_json(s);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    json_t *pile = key ? json_object_get(j, key) : NULL;
    if (json_is_array(pile)) {
        for (size_t i = json_array_size(pile); i > 1; i--) {
            size_t k = tb_rng_below(rng, (uint32_t)i);
            json_t *a = json_incref(json_array_get(pile, i - 1));
            json_array_set(pile, i - 1, json_array_get(pile, k));
            json_array_set_new(pile, k, a);
        }
    } else if (json_is_string(pile)) {
        char *cards = strdup(json_string_value(pile));
        for (size_t i = strlen(cards); i > 1; i--) {
            size_t k = tb_rng_below(rng, (uint32_t)i);
            char c = cards[i - 1];
            cards[i - 1] = cards[k];
            cards[k] = c;
        }
        json_object_set_new(j, key, json_string(cards));
        free(cards);
    }
    json_t *words = json_array();
    for (int w = 0; w < 4; w++) {
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)tb_rng_next(rng));
        json_array_append_new(words, json_string(hex));
    }
    json_object_set_new(j, "rng", words);
    text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    char err[TB_ERR_LEN];
    tb_state *out = tb_state_load(text, err, sizeof err);
    if (!out)
        fail_msg("the re-dealt state does not load: %s", err);
    free(text);
    return out;
}

/* The full state JSON without what no seat sees (the pile and generator). */
static json_t *seen_part(const tb_state *s, const char *key)
{
    char *text = tb_state_json(s);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    if (key)
        json_object_del(j, key);
    json_object_del(j, "rng");
    return j;
}

/* tb_settles_chance over random games of every game (Khronos also with
 * Hold'em, whose display is refilled from the deck): it says 1 exactly
 * when a card left the hidden pile or the generator moved (a reshuffle),
 * read from the state JSON; when it says 0, dealing again what no seat can
 * see (the pile's order, the generator) never changes what the decision
 * does, and when it says 1 it mostly does; a draw shows the mover
 * something, and within a turn nothing else does (so the undo rule's
 * reasons agree; 160 games of 2 to 4 seats were checked once so); in
 * Arkadia and Khronos many
 * decisions show the others a card of the mover's and settle nothing
 * (paying or laying out a card: undo stays possible); Clans settles nothing;
 * the answer never changes when asked again; an illegal move gets -1. */
static void settles_chance_is_exactly_a_draw(void **unused)
{
    (void)unused;
    const char *names[] = {"clans", "arkadia", "khronos", "khronos"};
    const char *piles[] = {NULL, "stack", "deck", "deck"};
    for (int gi = 0; gi < 4; gi++) {
        tb_state *s = tb_state_new(tb_game_find(names[gi]));
        tb_options o;
        tb_options_clear(&o);
        char err[TB_ERR_LEN];
        if (gi == 3)
            assert_int_equal(tb_options_set(&o, "holdem", "on", err, sizeof err), 0);
        assert_int_equal(tb_setup(s, 3, &o, 17 + (uint64_t)gi, err, sizeof err), 0);
        tb_rng rng;
        tb_rng_seed(&rng, 9);
        int draws = 0, draws_felt = 0, shown_only = 0;
        for (int k = 0; k < 300 && !tb_is_over(s); k++) {
            tb_move m = tb_random_move(s, &rng);
            int chance = tb_settles_chance(s, m);
            assert_true(chance == 0 || chance == 1);
            assert_int_equal(chance, tb_settles_chance(s, m));
            tb_state *next = tb_state_dup(s);
            tb_apply(next, m);
            char *bt = tb_state_json(s), *at = tb_state_json(next);
            json_t *bj = json_loads(bt, 0, NULL), *aj = json_loads(at, 0, NULL);
            free(bt);
            free(at);
            bool drew = !json_equal(json_object_get(bj, "rng"), json_object_get(aj, "rng")) ||
                        (piles[gi] && !json_equal(json_object_get(bj, piles[gi]),
                                                  json_object_get(aj, piles[gi])));
            json_decref(bj);
            json_decref(aj);
            if (chance != (int)drew)
                fail_msg("%s, decision %d: tb_settles_chance %d, but the pile or generator %s",
                         names[gi], k + 1, chance, drew ? "changed" : "did not change");
            /* dealt again: the same outcome unless chance was settled */
            json_t *truth = seen_part(next, piles[gi]);
            bool differs = false;
            for (int t = 0; t < 4; t++) {
                tb_state *other = redeal_unseen(s, piles[gi], &rng);
                assert_true(tb_is_legal(other, m));
                tb_apply(other, m);
                json_t *seen = seen_part(other, piles[gi]);
                differs = differs || !json_equal(seen, truth);
                json_decref(seen);
                tb_state_free(other);
            }
            json_decref(truth);
            if (!chance && differs)
                fail_msg("%s, decision %d: settles nothing, yet its outcome depends on the "
                         "hidden pile or the generator", names[gi], k + 1);
            long seats = tb_reveals(s, m);
            /* in these games only a draw shows the mover anything */
            if (!chance && (seats & (1L << tb_to_move(s))) && !tb_is_over(next) &&
                tb_to_move(next) == tb_to_move(s))
                fail_msg("%s, decision %d: shows the mover something without a draw", names[gi],
                         k + 1);
            if (chance) {
                draws++;
                draws_felt += differs;
                assert_true(seats & (1L << tb_to_move(s)));
            } else if (seats && !tb_is_over(next)) {
                shown_only++;
            }
            tb_state_free(next);
            tb_apply(s, m);
        }
        if (gi == 0) {
            assert_int_equal(draws, 0);
        } else {
            assert_true(draws > 5);
            /* a pile's last card, or copies alike, come out the same in
             * every re-deal; Hold'em's display takes the deck's topmost
             * card of the colour it lacks: the colour is the rules', only
             * which copy is chance */
            assert_true(draws_felt * 10 >= draws * (gi == 3 ? 5 : 8));
            assert_true(shown_only > 5);
        }
        assert_int_equal(tb_settles_chance(s, (tb_move)0x7fffffff), -1);
        tb_state_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rng_is_deterministic_and_seed_dependent),
        cmocka_unit_test(rng_below_is_in_range_and_roughly_uniform),
        cmocka_unit_test(registry_finds_games_sorted),
        cmocka_unit_test(options_reject_unknown_keys_and_values),
        cmocka_unit_test(setup_rejects_bad_player_counts),
        cmocka_unit_test(same_seed_same_game),
        cmocka_unit_test(checked_paths_leave_state_unchanged),
        cmocka_unit_test(record_round_trips_and_replays),
        cmocka_unit_test(sealed_record_hides_seed_until_the_end),
        cmocka_unit_test(bad_records_get_clear_errors),
        cmocka_unit_test(agents_are_listed_and_decide_legally),
        cmocka_unit_test(json_dump_round_trips),
        cmocka_unit_test(utf8_cuts_at_characters_and_mends_bad_bytes),
        cmocka_unit_test(json_errors_are_in_plain_words),
        cmocka_unit_test(playout_matches_random_moves),
        cmocka_unit_test(random_moves_match_random_move),
        cmocka_unit_test(random_move_is_uniform_over_legal_decisions),
        cmocka_unit_test(reveals_hooks_are_complete_and_find_draws),
        cmocka_unit_test(settles_chance_is_exactly_a_draw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
