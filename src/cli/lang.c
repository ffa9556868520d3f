/*
 * lang.c — the command line's language (lang.h): picks the language from
 * the environment as gettext does and opens its compiled catalogue
 * (src/lang/catalog.c reads it and evaluates its plural rule).
 *
 * Invariants: every lookup of a missing msgid gives NULL (the English
 * then).  The catalogue is read once and kept for the process.
 */
#include "lang.h"

#include "core/game.h"
#include "lang/catalog.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* The catalogue of the locale's language, read once at start (NULL:
 * English); this file's only state, never written after cli_lang_init. */
static lang_catalog *cli_catalog;

const char *cli_translate(void *ctx, const char *msgid, const char *msgid_plural, long n)
{
    (void)ctx;
    return lang_catalog_translate(cli_catalog, msgid, msgid_plural, n);
}

const char *cli_(const char *msgid)
{
    const char *t = cli_translate(NULL, msgid, NULL, 0);
    return t ? t : msgid;
}

const char *cli_lang(void)
{
    return lang_catalog_code(cli_catalog);
}

/* Tries the catalogue of one language name ("es_ES.UTF-8@euro", "es"):
 * the whole name without codeset and modifier, then its language alone. */
static bool lang_try(const char *name)
{
    char code[16];
    if (!lang_code_of(name, code, sizeof code))
        return false;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            size_t lang = strcspn(code, "_");
            if (code[lang] == '\0')
                break;
            code[lang] = '\0';
        }
        if (strcmp(code, "en") == 0)
            return true; /* English: the msgids themselves */
        cli_catalog = lang_catalog_open(code);
        if (cli_catalog)
            return true;
    }
    return false;
}

void cli_lang_init(void)
{
    const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    const char *locale = NULL;
    for (size_t i = 0; i < 3 && !locale; i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0])
            locale = v;
    }
    if (!locale || strcmp(locale, "C") == 0 || strcmp(locale, "POSIX") == 0 ||
        strncmp(locale, "C.", 2) == 0)
        return; /* gettext ignores LANGUAGE in the C locale */
    const char *language = getenv("LANGUAGE");
    if (language && language[0]) {
        char list[256];
        snprintf(list, sizeof list, "%s", language);
        for (char *save = NULL, *tok = strtok_r(list, ":", &save); tok;
             tok = strtok_r(NULL, ":", &save))
            if (lang_try(tok))
                return;
    }
    lang_try(locale);
}

void cli_say(FILE *out, const char *tmpl, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    json_t *m = tb__msg_v(tmpl, NULL, 0, spec, ap);
    va_end(ap);
    char *text = cli_msg_text(m);
    if (text)
        fputs(text, out);
    free(text);
    json_decref(m);
}

void cli_sayn(FILE *out, const char *tmpl, const char *plural, int n, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    json_t *m = tb__msg_v(tmpl, plural, n, spec, ap);
    va_end(ap);
    char *text = cli_msg_text(m);
    if (text)
        fputs(text, out);
    free(text);
    json_decref(m);
}

char *cli_msg_text(const json_t *msg)
{
    return msg ? tb__msg_text(msg, cli_translate, NULL) : NULL;
}
