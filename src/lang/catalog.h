/*
 * catalog.h — one language's compiled catalogue (po/LANG.po built by msgfmt
 * to LANG/LC_MESSAGES/tabula.mo), for the parts of the program that make
 * words for people outside the browser: the command line (src/cli/lang.c,
 * the locale's language) and the server's e-mails (src/server/mail.c, each
 * account's language).  docs/translating.md says how a language is added.
 *
 * Invariants: a catalogue is used only when it reads whole (magic, tables
 * and every string inside the file, NUL-terminated); its plural rule only
 * when it parses, else n != 1.  A catalogue never changes once open, so any
 * number of threads may look words up in it at once.  A missing msgid gives
 * NULL (the caller then says the English msgid).
 */
#ifndef TB_LANG_CATALOG_H
#define TB_LANG_CATALOG_H

#include <stdbool.h>

typedef struct lang_catalog lang_catalog;

/* The catalogue of language `code` ("es", "pt_BR"), looked for under
 * $TABULA_LOCALE_DIR, the build tree and the installed locale folder; NULL
 * when there is none (English needs none) or memory ran out. */
lang_catalog *lang_catalog_open(const char *code);
void lang_catalog_free(lang_catalog *cat);
const char *lang_catalog_code(const lang_catalog *cat);
/* The translation of msgid (with msgid_plural: the form for n); NULL when
 * the catalogue (which may be NULL) has none.  A tb_translate_fn's shape:
 * ctx is the catalogue. */
const char *lang_catalog_translate(void *ctx, const char *msgid, const char *msgid_plural, long n);
/* The language code of a name such as "es_ES.UTF-8@euro", "es-MX" or "es"
 * (the part before the codeset and modifier, '-' read as '_'), in out;
 * false when it is empty or too long. */
bool lang_code_of(const char *name, char *out, unsigned outlen);

#endif
