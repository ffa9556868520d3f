/*
 * test_msg.c — messages (src/core/msg.c, tabula.h "Messages"): the
 * formatter fills named placeholders with numbers, names and nested
 * messages, in English or through a lookup (plurals by the lookup's count,
 * a missing entry falls back to English, a broken translation gives way to
 * the English template, a message that is not one is refused); and the
 * narration of every game as a message (tb_narrate_json) renders in English
 * to exactly tb_narrate's text, and the prompt as a message (tb_prompt_json)
 * to tb_prompt_text's, over many random games of each game, player count and
 * naming.
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

/* A tiny catalogue: pairs of msgid and translation; plural entries give
 * the singular form for n == 1 and the plural one otherwise. */
typedef struct entry {
    const char *msgid, *plural, *one, *other;
} entry;

static const entry toy[] = {
    {"{who} moves {n} hut", "{who} moves {n} huts", "{who} mueve {n} choza", "{who} mueve {n} chozas"},
    {"Seat {n}", NULL, "Asiento {n}", NULL},
    {"forest", NULL, "bosque", NULL},
    {"{who} enters the {land}", NULL, "{who} entra en el {land}", NULL},
    {"broken {who", NULL, "roto {quien}", NULL},
    {"unknown name {who}", NULL, "nombre {nadie}", NULL},
    {"stray } brace", NULL, "llave } suelta", NULL},
    {NULL, NULL, NULL, NULL},
};

static int lookups;

static const char *toy_lookup(void *ctx, const char *msgid, const char *plural, long n)
{
    const entry *e = ctx;
    lookups++;
    for (; e->msgid; e++)
        if (strcmp(e->msgid, msgid) == 0 && (!plural) == (!e->plural))
            return plural && n != 1 ? e->other : e->one;
    return NULL;
}

static void expect(const char *json, const char *english, const char *spanish)
{
    char *en = tb_msg_text(json, NULL, NULL);
    char *es = tb_msg_text(json, toy_lookup, (void *)toy);
    if (english) {
        assert_non_null(en);
        assert_string_equal(en, english);
    } else {
        assert_null(en);
    }
    if (spanish) {
        assert_non_null(es);
        assert_string_equal(es, spanish);
    } else {
        assert_null(es);
    }
    free(en);
    free(es);
}

static void placeholders_and_nesting(void **state)
{
    (void)state;
    expect("{\"msg\":\"{who} enters the {land}\",\"args\":{\"who\":\"Anna\",\"land\":{\"msg\":\"forest\"}}}",
           "Anna enters the forest", "Anna entra en el bosque");
    /* a nested seat name translates too; a string name never does */
    expect("{\"msg\":\"{who} enters the {land}\",\"args\":{\"who\":{\"msg\":\"Seat {n}\",\"args\":{\"n\":2}},"
           "\"land\":{\"msg\":\"forest\"}}}",
           "Seat 2 enters the forest", "Asiento 2 entra en el bosque");
    expect("{\"msg\":\"{who} enters the {land}\",\"args\":{\"who\":\"forest\",\"land\":\"forest\"}}",
           "forest enters the forest", "forest entra en el forest");
    /* braces doubled stand for themselves; a number as it is */
    expect("{\"msg\":\"{{x}} = {x}}}\",\"args\":{\"x\":-12}}", "{x} = -12}", "{x} = -12}");
    expect("{\"msg\":\"no args at all\"}", "no args at all", "no args at all");
}

static void plurals(void **state)
{
    (void)state;
    expect("{\"msg\":\"{who} moves {n} hut\",\"plural\":\"{who} moves {n} huts\",\"args\":{\"n\":1,\"who\":\"Eve\"}}",
           "Eve moves 1 hut", "Eve mueve 1 choza");
    expect("{\"msg\":\"{who} moves {n} hut\",\"plural\":\"{who} moves {n} huts\",\"args\":{\"n\":3,\"who\":\"Eve\"}}",
           "Eve moves 3 huts", "Eve mueve 3 chozas");
    /* a plural without its count is no message */
    expect("{\"msg\":\"{who} moves {n} hut\",\"plural\":\"{who} moves {n} huts\",\"args\":{\"who\":\"Eve\"}}",
           NULL, NULL);
}

static void missing_entries_fall_back_to_english(void **state)
{
    (void)state;
    lookups = 0;
    expect("{\"msg\":\"{who} waits\",\"args\":{\"who\":{\"msg\":\"Seat {n}\",\"args\":{\"n\":3}}}}",
           "Seat 3 waits", "Asiento 3 waits");
    assert_int_equal(lookups, 2);
}

static void bad_translations_give_way_to_english(void **state)
{
    (void)state;
    expect("{\"msg\":\"broken {who\",\"args\":{\"who\":\"x\"}}", NULL, NULL); /* broken in English: refused */
    expect("{\"msg\":\"unknown name {who}\",\"args\":{\"who\":\"Ana\"}}", "unknown name Ana",
           "unknown name Ana");
    expect("{\"msg\":\"stray } brace\"}", NULL, NULL);
}

static void bad_messages_refused(void **state)
{
    (void)state;
    const char *bad[] = {
        "", "[]", "42", "{\"args\":{}}", "{\"msg\":7}", "{\"msg\":\"{a}\"}",
        "{\"msg\":\"{a}\",\"args\":{\"a\":[1]}}", "{\"msg\":\"{a}\",\"args\":{\"a\":{\"msg\":3}}}",
        "{\"msg\":\"x\",\"args\":[]}", "{\"msg\":\"{}\",\"args\":{}}", "{\"msg\":\"x\",\"plural\":4}",
        "{\"msg\":\"{a{b}\",\"args\":{\"b\":1}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *t = tb_msg_text(bad[i], NULL, NULL);
        if (t)
            fail_msg("'%s' made '%s'", bad[i], t);
    }
    assert_null(tb_msg_text(NULL, NULL, NULL));
    /* nesting too deep for any narration is refused, not a crash */
    size_t depth = 500; /* jansson reads it; msg.c refuses beyond 200 */
    char *deep = malloc(depth * 40 + 64);
    assert_non_null(deep);
    char *p = deep;
    for (size_t i = 0; i < depth; i++)
        p += sprintf(p, "{\"msg\":\"{a}\",\"args\":{\"a\":");
    p += sprintf(p, "1");
    for (size_t i = 0; i < depth; i++)
        p += sprintf(p, "}}");
    assert_null(tb_msg_text(deep, NULL, NULL));
    free(deep);
}

/* Every decision of random games: tb_narrate's text is the English of
 * tb_narrate_json, which carries only well-formed messages. */
static void narration_renders_to_its_text(const char *game, int games)
{
    const char *named[] = {"Anna", NULL, "Carl", "", "Eve"};
    long checked = 0;
    for (int players = 2; players <= 4; players++)
        for (int seed = 1; seed <= games; seed++) {
            tb_state *s = tb_state_new(tb_game_find(game));
            assert_non_null(s);
            char err[200];
            if (tb_setup(s, players, NULL, (uint64_t)seed, err, sizeof err) != 0) {
                tb_state_free(s);
                continue;
            }
            tb_rng rng;
            tb_rng_seed(&rng, (uint64_t)seed * 31 + (uint64_t)players);
            const char *const *names = seed % 2 ? named : NULL;
            while (!tb_is_over(s)) {
                tb_move m = tb_random_move(s, &rng);
                char text[2048];
                int n = tb_narrate(s, m, names, text, sizeof text);
                assert_true(n > 0 && (size_t)n < sizeof text);
                char *json = tb_narrate_json(s, m, names);
                assert_non_null(json);
                char *english = tb_msg_text(json, NULL, NULL);
                if (!english || strcmp(english, text) != 0)
                    fail_msg("%s: '%s' renders '%s', not '%s'", game, json, english ? english : "(nothing)", text);
                /* through a lookup that knows nothing: English still */
                char *through = tb_msg_text(json, toy_lookup, (void *)&toy[7]);
                assert_string_equal(through, text);
                free(through);
                free(english);
                free(json);
                /* the stage likewise */
                char stage[128];
                tb_stage_text(s, stage, sizeof stage);
                json = tb_stage_json(s);
                english = json ? tb_msg_text(json, NULL, NULL) : NULL;
                if (!english || strcmp(english, stage) != 0)
                    fail_msg("%s: stage '%s' renders '%s', not '%s'", game, json ? json : "(none)",
                             english ? english : "(nothing)", stage);
                free(english);
                free(json);
                /* the prompt likewise */
                char prompt[512];
                tb_prompt_text(s, prompt, sizeof prompt);
                json = tb_prompt_json(s);
                english = json ? tb_msg_text(json, NULL, NULL) : NULL;
                if (!english || strcmp(english, prompt) != 0)
                    fail_msg("%s: prompt '%s' renders '%s', not '%s'", game, json ? json : "(none)",
                             english ? english : "(nothing)", prompt);
                free(english);
                free(json);
                checked++;
                tb_apply(s, m);
            }
            tb_state_free(s);
        }
    assert_true(checked > 1000);
    /* an illegal decision has no narration */
    tb_state *s = tb_state_new(tb_game_find(game));
    char err[200];
    assert_int_equal(tb_setup(s, 2, NULL, 1, err, sizeof err), 0);
    assert_null(tb_narrate_json(s, (tb_move)0x7fffffff, NULL));
    tb_state_free(s);
}

static void clans_narration(void **state)
{
    (void)state;
    narration_renders_to_its_text("clans", 10);
}

static void arkadia_narration(void **state)
{
    (void)state;
    narration_renders_to_its_text("arkadia", 6);
}

static void khronos_narration(void **state)
{
    (void)state;
    narration_renders_to_its_text("khronos", 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(placeholders_and_nesting),
        cmocka_unit_test(plurals),
        cmocka_unit_test(missing_entries_fall_back_to_english),
        cmocka_unit_test(bad_translations_give_way_to_english),
        cmocka_unit_test(bad_messages_refused),
        cmocka_unit_test(clans_narration),
        cmocka_unit_test(arkadia_narration),
        cmocka_unit_test(khronos_narration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
