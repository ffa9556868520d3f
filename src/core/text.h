/*
 * text.h — text helpers every layer shares (library, engine, command line,
 * server): cutting quoted input at a UTF-8 character boundary, mending text
 * that is not valid UTF-8, and saying a JSON parse error in plain words.
 *
 * Invariants: text that went through tb__utf8_repair is valid UTF-8, so it
 * can always be packed into JSON; TB__CLIP never splits a character, so a
 * message that quotes input stays valid however the input was cut.  No state.
 */
#ifndef TB_CORE_TEXT_H
#define TB_CORE_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <string.h>
#include <stddef.h>

/* Bytes of the longest prefix of `s` (up to its NUL) that has at most `max`
 * bytes and ends at a character boundary.  A byte that starts no valid
 * UTF-8 sequence counts as a character of its own. */
size_t tb__utf8_fit(const char *s, size_t max);

/* For printf's "%.*s": quotes at most `max` bytes of `s`, whole characters
 * only, e.g. printf("no game '%.*s'", TB__CLIP(name, 40)). */
#define TB__CLIP(s, max) (int)tb__utf8_fit((s), (max)), (s)

/* In place: a character cut off at the end of the text is removed, every
 * other byte that is not part of a valid UTF-8 sequence becomes '?'. */
void tb__utf8_repair(char *s);

/* True when `s` is valid UTF-8 throughout (no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
bool tb__utf8_valid(const char *s);
/* The length of s's longest valid UTF-8 prefix: where its first bad byte is
 * (strlen(s) when there is none). */
size_t tb__utf8_prefix(const char *s);

/* jansson's parser, when memory runs out inside a token, may drop a byte of
 * it and go on (its lexer does not check one append): a text that reads may
 * then read as something else.  This reads the text twice and gives NULL
 * (err saying "out of memory", json_error_code json_error_out_of_memory)
 * unless both readings succeed and are equal.  For text that is kept or
 * decides something: states, records, stored options. */
json_t *tb__json_loads(const char *text, size_t flags, json_error_t *err);

/* A jansson parse error in a reader's words (jansson names its own flags
 * in some of its messages, e.g. for a NUL character inside a string). */
const char *tb__json_error_words(const json_error_t *e);

/* "a" or "an" before an English word, by its first letter (the log's words). */
static inline const char *tb__article(const char *word)
{
    return word[0] && strchr("AEIOUaeiou", word[0]) ? "an" : "a";
}

#endif
