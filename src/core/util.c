/*
 * util.c — small helpers shared by the core and the games: error text,
 * canonical JSON dumping, a growable text buffer, shuffling and checked
 * JSON integer reads.  No state is kept between calls.
 */
#include "game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tb__errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

char *tb__json_dump(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!s)
        abort(); /* only on allocation failure */
    return s;
}

void tb__buf_printf(tb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p)
            abort();
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
    if (!s) {
        s = malloc(1);
        if (!s)
            abort();
        s[0] = '\0';
    }
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}

void tb__shuffle(void *items, size_t n, size_t size, tb_rng *rng)
{
    unsigned char *p = items;
    unsigned char tmp[64];
    if (size > sizeof tmp)
        abort();
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
