/*
 * msg.h — words for people as messages: an English template with named
 * placeholders and the values that fill them, so the text can be made in
 * any language later (docs/translating.md, docs/api.md "Messages").
 *
 * A message is the JSON object {"msg": TEMPLATE, "args": {NAME: VALUE, ...}}
 * with an optional "plural": TEMPLATE_PLURAL (then args.n is the count that
 * chooses between them).  A VALUE is a number, a string (a name: never
 * translated) or a nested message (a colour, a territory, a building: those
 * translate too).  TEMPLATE is the catalogue's msgid, written in C inside
 * N_() (or NP_() for a plural pair) so xgettext finds it.  In a template
 * "{name}" is replaced by the value, "{{" and "}}" stand for "{" and "}".
 *
 * Invariants: the library keeps no state for messages: a language is only
 * ever a lookup function passed in (tb_translate_fn, tabula.h), and English
 * is no lookup at all.  A translated template that is broken (an unclosed
 * brace, a name not among the args) is never printed: the English one is
 * used instead, so a bad catalogue entry cannot lose words.  Every builder
 * gives NULL when memory runs out or a part given to it is NULL, so a
 * message is whole or absent.
 */
#ifndef TB_CORE_MSG_H
#define TB_CORE_MSG_H

#include "tabula.h"
#include "game.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Marks a constant English text as a catalogue msgid (xgettext --keyword=N_);
 * NP_ marks a singular/plural pair (--keyword=NP_:1,2).  Both are the text. */
#define N_(s) (s)
#define NP_(s, p) (s), (p)

/* A new message.  `spec` names the args in order, separated by spaces, each
 * NAME:TYPE with TYPE s (const char *: a name, never translated), d (int) or
 * m (json_t *, a nested message whose reference is taken, even on failure):
 *     tb__msg(N_("{who} moves to {t}"), "who:m t:d", who, 12)
 * NULL when memory runs out or a nested message is NULL. */
json_t *tb__msg(const char *tmpl, const char *spec, ...);
/* The same with a plural pair, `n` choosing (stored as args.n, which the
 * templates may show as "{n}"). */
json_t *tb__msg_plural(const char *tmpl, const char *plural, int n, const char *spec, ...);
/* tb__msg_plural with a va_list (plural NULL: tb__msg). */
json_t *tb__msg_v(const char *tmpl, const char *plural, int n, const char *spec, va_list ap);
/* A message of a constant text alone ({"msg": text}). */
json_t *tb__msg_word(const char *text);
/* A message of a constant text made at run time, e.g. the phrase "a house"
 * from a name in the game's data: the built-in data's phrases are msgids
 * (each game lists them with N_ next to its narration); a loaded board's own
 * names have none and stay English.  The text is before, word, after. */
json_t *tb__msg_phrase(const char *before, const char *word, const char *after);
/* "a" or "an" and the word, as a phrase (tb__article's choice). */
json_t *tb__msg_a(const char *word);

/* Two messages one after the other (the template "{head}{tail}", a joint of
 * clauses that each carry their own leading words and punctuation).  Takes
 * both references; NULL when either is NULL or memory runs out. */
json_t *tb__msg_join(json_t *head, json_t *tail);

/* items[0..n) as one message: "A, B, C" (and_last false) or "A, B and C"
 * (true); takes every item's reference; NULL when n is 0, an item is NULL or
 * memory runs out. */
json_t *tb__msg_list(json_t *const *items, int n, bool and_last);

/* Appends to b the text of the message (tmpl, spec, args as tb__msg) in
 * the language of tr (NULL: English); nothing when memory runs out (then b
 * fails as a whole, see tb_buf). */
void tb__buf_say(tb_buf *b, tb_translate_fn tr, void *ctx, const char *tmpl, const char *spec, ...);
/* A constant word or phrase (a msgid without placeholders) in the language. */
const char *tb__word(tb_translate_fn tr, void *ctx, const char *msgid);

/* The text of a message in a language: `tr` (NULL: English) gives a
 * template's translation or NULL for none.  A tb_buf-like growable result:
 * malloc'd, NULL when memory runs out or `msg` is not a message (not an
 * object with a string "msg", an arg of another type, a template broken in
 * English). */
char *tb__msg_text(const json_t *msg, tb_translate_fn tr, void *ctx);

#endif
