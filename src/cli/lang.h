/*
 * lang.h — the command line's language (src/cli only): the catalogue of the
 * locale's language, read from its compiled GNU gettext file (po/LANG.po
 * built by msgfmt to LANG/LC_MESSAGES/tabula.mo, in the build tree or under
 * the installed locale folder), and the words of `tabula play` and
 * `tabula replay` made through it (docs/translating.md).
 *
 * Invariants: the language is chosen from the environment as gettext does
 * (LANGUAGE, unless the locale is C or POSIX; then LC_ALL, LC_MESSAGES,
 * LANG), without setlocale, so a locale the machine has not generated still
 * speaks its language; without a catalogue every word is the English msgid.
 * One catalogue for the process, read once at start, never written after.
 */
#ifndef TB_CLI_LANG_H
#define TB_CLI_LANG_H

#include "tabula.h"
#include "core/msg.h"

#include <stdio.h>

/* Reads the environment's catalogue (if any): call once, first thing. */
void cli_lang_init(void);
/* The code of the language spoken ("es"), "en" without a catalogue. */
const char *cli_lang(void);
/* A tb_translate_fn of the catalogue (ctx unused). */
const char *cli_translate(void *ctx, const char *msgid, const char *msgid_plural, long n);
/* The translation of a constant text (a msgid without placeholders). */
const char *cli_(const char *msgid);
#define _(s) cli_(s)
/* Prints a message made of a template and args (msg.h's spec: "name:d
 * who:s what:m") in the language; cli_sayn with a plural pair and count n
 * (args.n).  Nothing is printed when memory runs out. */
void cli_say(FILE *out, const char *tmpl, const char *spec, ...);
void cli_sayn(FILE *out, const char *tmpl, const char *plural, int n, const char *spec, ...);
/* The text of a message in the language (malloc'd; NULL: memory ran out). */
char *cli_msg_text(const json_t *msg);

#endif
