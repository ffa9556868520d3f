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

/* JSON built when memory runs out.  jansson's setters fail quietly (a member
 * or element whose value could not be made is just missing), so wherever
 * this header is included (the library, the engine, the server) every
 * json_object_set_new, json_object_set and json_array_append_new goes
 * through the checks below, which note a failure in a per-thread flag;
 * tb__json_dump and json_dumps (tb__json_dumps) read and clear it and give
 * NULL instead of a text with a hole in it.  The flag is the library's one
 * piece of non-const static data: it never carries anything but "memory ran
 * out since the last dump on this thread", and at worst makes the next dump
 * after a failure fail too.  (A tree whose building spans a dump of another
 * tree can lose its own failure to that dump: builders do not nest dumps.) */
extern _Thread_local bool tb__json_oom;
static inline int tb__json_set_new(json_t *object, const char *key, json_t *value)
{
    if (json_object_set_new(object, key, value) == 0)
        return 0;
    tb__json_oom = true;
    return -1;
}
static inline int tb__json_append_new(json_t *array, json_t *value)
{
    if (json_array_append_new(array, value) == 0)
        return 0;
    tb__json_oom = true;
    return -1;
}
#define json_object_set_new(o, k, v) tb__json_set_new((o), (k), (v))
#define json_array_append_new(a, v) tb__json_append_new((a), (v))
#define json_object_set(o, k, v) tb__json_set_new((o), (k), json_incref(v))
/* A unit of work starts (a request, a message, a stored decision, a job):
 * a failure noted for a tree that was never printed is not its concern. */
static inline void tb__json_fresh(void)
{
    tb__json_oom = false;
}
/* json_dumps, NULL when a setter failed on this thread since the last dump. */
char *tb__json_dumps(const json_t *j, size_t flags);
#define json_dumps(j, f) tb__json_dumps((j), (f))

/* jansson's parser, when memory runs out inside a token, may drop a byte of
 * it and go on (its lexer does not check one append): a text that reads may
 * then read as something else.  This reads the text twice and gives NULL
 * (err saying "out of memory", json_error_code json_error_out_of_memory)
 * unless both readings succeed and are equal.  For text that is kept or
 * decides something: requests, records, stored options. */
json_t *tb__json_loads(const char *text, size_t flags, json_error_t *err);
json_t *tb__json_loadb(const char *text, size_t len, size_t flags, json_error_t *err);
/* Whether a reading failed for want of memory (not the text's fault). */
static inline bool tb__json_no_memory(const json_error_t *e)
{
    return json_error_code(e) == json_error_out_of_memory;
}

/* A jansson parse error in a reader's words (jansson names its own flags
 * in some of its messages, e.g. for a NUL character inside a string). */
const char *tb__json_error_words(const json_error_t *e);

/* "a" or "an" before an English word, by its first letter (the log's words). */
static inline const char *tb__article(const char *word)
{
    return word[0] && strchr("AEIOUaeiou", word[0]) ? "an" : "a";
}

#endif
