/*
 * util.c — small helpers shared by the core and the games: error text,
 * canonical JSON dumping, a growable text buffer, shuffling and checked
 * JSON integer reads.  No state is kept between calls.
 */
#include "game.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

int tb__errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        tb__utf8_repair(err); /* a message cut at errlen, or quoting bad bytes */
    }
    return -1;
}

/* Length of the valid UTF-8 sequence at s (1-4), 0 when s starts none,
 * -1 when it is a valid beginning cut off by the end of the text. */
static int util_utf8_seq(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    int n;
    unsigned char lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; /* no overlong forms */
        else if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; /* nothing above U+10FFFF */
    } else
        return 0;
    for (int i = 1; i < n; i++) {
        unsigned char b = s[i];
        if (b == 0)
            return -1;
        if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
            return 0;
    }
    return n;
}

size_t tb__utf8_fit(const char *s, size_t max)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t at = 0;
    while (u[at]) {
        int n = util_utf8_seq(u + at);
        size_t step = n > 0 ? (size_t)n : 1;
        if (n < 0) /* a cut-off character at the very end: never quoted */
            break;
        if (at + step > max)
            break;
        at += step;
    }
    return at;
}

void tb__utf8_repair(char *s)
{
    unsigned char *u = (unsigned char *)s;
    size_t at = 0;
    while (u[at]) {
        int n = util_utf8_seq(u + at);
        if (n < 0) {
            u[at] = 0;
            return;
        }
        if (n == 0) {
            u[at] = '?';
            n = 1;
        }
        at += (size_t)n;
    }
}

bool tb__utf8_valid(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        int n = util_utf8_seq(u);
        if (n <= 0)
            return false;
        u += n;
    }
    return true;
}

size_t tb__utf8_prefix(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t at = 0;
    for (int n; u[at] && (n = util_utf8_seq(u + at)) > 0;)
        at += (size_t)n;
    return at;
}

const char *tb__json_error_words(const json_error_t *e)
{
    switch (json_error_code(e)) {
    case json_error_null_character:
        return "text may not contain a NUL character (\\u0000)";
    case json_error_invalid_utf8:
        return "the text is not valid UTF-8";
    case json_error_out_of_memory:
        return "out of memory while reading it";
    default:
        return e->text;
    }
}

/* A compact serializer for jansson trees.  jansson's own json_dumps spends
 * hundreds of instructions per byte; views are printed at every decision of
 * the tests and at every push of the server, so this one writes straight
 * into a growing buffer.  Object members keep their insertion order (the
 * order the code adds them, so output is stable); strings are valid UTF-8
 * (jansson guarantees it) and only '"', '\\' and control characters are
 * escaped. */
typedef struct util_out {
    char *data;
    size_t len, cap;
    bool failed; /* memory ran out: nothing more is written, the dump is NULL */
} util_out;

/* Room for `more` bytes; false (and o->failed) when memory runs out. */
static bool util_reserve(util_out *o, size_t more)
{
    if (o->len + more <= o->cap)
        return true;
    if (o->failed)
        return false;
    size_t cap = o->cap ? o->cap : 1024;
    while (cap < o->len + more)
        cap *= 2;
    char *p = realloc(o->data, cap);
    if (!p) {
        o->failed = true;
        return false;
    }
    o->data = p;
    o->cap = cap;
    return true;
}

static void util_put(util_out *o, const char *text, size_t n)
{
    if (!util_reserve(o, n))
        return;
    memcpy(o->data + o->len, text, n);
    o->len += n;
}

static void util_string(util_out *o, const char *str, size_t n)
{
    if (!util_reserve(o, n + 2))
        return;
    o->data[o->len++] = '"';
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)str[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\')
            continue;
        util_put(o, str + start, i - start);
        char esc[8];
        int len;
        switch (ch) {
        case '"': len = snprintf(esc, sizeof esc, "\\\""); break;
        case '\\': len = snprintf(esc, sizeof esc, "\\\\"); break;
        case '\n': len = snprintf(esc, sizeof esc, "\\n"); break;
        case '\t': len = snprintf(esc, sizeof esc, "\\t"); break;
        case '\r': len = snprintf(esc, sizeof esc, "\\r"); break;
        default: len = snprintf(esc, sizeof esc, "\\u%04x", ch); break;
        }
        util_put(o, esc, (size_t)len);
        start = i + 1;
    }
    util_put(o, str + start, n - start);
    util_put(o, "\"", 1);
}

static void util_value(util_out *o, const json_t *j)
{
    char num[40];
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        util_put(o, "{", 1);
        bool first = true;
        for (void *it = json_object_iter((json_t *)j); it;
             it = json_object_iter_next((json_t *)j, it)) {
            if (!first)
                util_put(o, ",", 1);
            first = false;
            const char *key = json_object_iter_key(it);
            util_string(o, key, strlen(key));
            util_put(o, ":", 1);
            util_value(o, json_object_iter_value(it));
        }
        util_put(o, "}", 1);
        break;
    }
    case JSON_ARRAY: {
        util_put(o, "[", 1);
        size_t n = json_array_size(j);
        for (size_t i = 0; i < n; i++) {
            if (i)
                util_put(o, ",", 1);
            util_value(o, json_array_get(j, i));
        }
        util_put(o, "]", 1);
        break;
    }
    case JSON_STRING:
        util_string(o, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER: {
        json_int_t v = json_integer_value(j);
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
        char *p = num + sizeof num;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0)
            *--p = '-';
        util_put(o, p, (size_t)(num + sizeof num - p));
        break;
    }
    case JSON_REAL: {
        int len = snprintf(num, sizeof num, "%.17g", json_real_value(j));
        if (!strpbrk(num, ".eEn")) /* keep it a real: 2 -> 2.0 */
            len += snprintf(num + len, sizeof num - (size_t)len, ".0");
        util_put(o, num, (size_t)len);
        break;
    }
    case JSON_TRUE:
        util_put(o, "true", 4);
        break;
    case JSON_FALSE:
        util_put(o, "false", 5);
        break;
    case JSON_NULL:
        util_put(o, "null", 4);
        break;
    }
}

_Thread_local bool tb__json_oom;

char *tb__json_dumps(const json_t *j, size_t flags)
{
    /* jansson's own dumper does not check every append (an object's key can
     * lose its closing quote when memory runs out): compact text comes from
     * tb__json_dump, which checks each one and prints the same (members in
     * insertion order, as jansson 2.14 does); other flags (sorted keys, fewer
     * digits) go to jansson and the text must read back as JSON. */
    if ((flags & ~(size_t)(JSON_COMPACT | JSON_PRESERVE_ORDER)) == 0)
        return tb__json_dump(j);
    bool hole = tb__json_oom;
    tb__json_oom = false;
    char *text = j && !hole ? (json_dumps)(j, flags) : NULL;
    json_t *back = text ? json_loads(text, 0, NULL) : NULL; /* reals may be rounded: read, not compared */
    bool reads = back != NULL;
    json_decref(back);
    if (!reads) {
        free(text);
        return NULL;
    }
    return text;
}

json_t *tb__json_loads(const char *text, size_t flags, json_error_t *err)
{
    return tb__json_loadb(text, strlen(text), flags, err);
}

json_t *tb__json_loadb(const char *text, size_t len, size_t flags, json_error_t *err)
{
    json_t *a = json_loadb(text, len, flags, err);
    json_error_t again;
    json_t *b = json_loadb(text, len, flags, &again);
    /* The same verdict twice is the text's; anything else (one reading
     * fails, or they differ) only memory running out does. */
    bool same = a && b ? json_equal(a, b)
                       : !a && !b && err->position == again.position &&
                             strcmp(err->text, again.text) == 0;
    json_decref(b);
    if (same)
        return a;
    json_decref(a);
    memset(err, 0, sizeof *err);
    snprintf(err->text, sizeof err->text, "out of memory while reading it");
    err->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
    return NULL;
}

char *tb__json_dump(const json_t *j)
{
    bool hole = tb__json_oom; /* a member or element could not be added */
    tb__json_oom = false;
    if (!j || hole)
        return NULL; /* the tree could not be built whole: no memory */
    util_out o = {0};
    util_value(&o, j);
    util_put(&o, "", 1);
    if (o.failed) {
        free(o.data);
        return NULL;
    }
    return o.data;
}

void tb__buf_printf(tb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || b->failed) {
        va_end(ap2);
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) {
            b->failed = true;
            va_end(ap2);
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

char *tb__buf_take(tb_buf *b)
{
    char *s = b->data;
    if (b->failed) {
        free(s);
        s = NULL;
    } else if (!s && (s = malloc(1)) != NULL)
        s[0] = '\0';
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
    return s;
}

void tb__shuffle(void *items, size_t n, size_t size, tb_rng *rng)
{
    unsigned char *p = items;
    unsigned char tmp[64];
    if (size > sizeof tmp)
        abort();
    if (size == 1) { /* bytes (decks of cards): the same draws and swaps, without memcpy calls */
        for (size_t i = n; i > 1; i--) {
            size_t j = tb__rng_below(rng, (uint32_t)i);
            unsigned char t = p[j];
            p[j] = p[i - 1];
            p[i - 1] = t;
        }
        return;
    }
    for (size_t i = n; i > 1; i--) {
        size_t j = tb_rng_below(rng, (uint32_t)i);
        if (j != i - 1) {
            memcpy(tmp, p + j * size, size);
            memcpy(p + j * size, p + (i - 1) * size, size);
            memcpy(p + (i - 1) * size, tmp, size);
        }
    }
}

int tb__json_int(const json_t *obj, const char *key, long long lo, long long hi,
                 long long *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || !json_is_integer(v))
        return tb__errf(err, errlen, "'%s' must be an integer", key);
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return tb__errf(err, errlen, "'%s' is %lld, outside %lld..%lld", key, x, lo, hi);
    *out = x;
    return 0;
}
