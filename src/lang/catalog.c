/*
 * catalog.c — a compiled catalogue (catalog.h): reads the GNU .mo format (a
 * header, two tables of lengths and offsets, the strings), looks msgids up
 * by binary search (msgfmt sorts them) and evaluates the catalogue's plural
 * rule (its Plural-Forms header, a C expression in n) without eval.
 *
 * Invariants: as catalog.h; nothing here is global: each catalogue is its
 * own object, read once, never written after.
 */
#include "catalog.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TB_LOCALE_DIR
#define TB_LOCALE_DIR "po"
#endif
#ifndef TB_LOCALE_DIR_INSTALLED
#define TB_LOCALE_DIR_INSTALLED "/usr/local/share/locale"
#endif

struct lang_catalog {
    char *data; /* the whole file */
    size_t size;
    uint32_t count;
    uint32_t orig, trans; /* offsets of the tables */
    bool swap;
    const char *plural_rule; /* the expression after "plural=", or NULL */
    char code[16];
};

static uint32_t lang_u32(const lang_catalog *cat, size_t at)
{
    uint32_t v;
    memcpy(&v, cat->data + at, 4);
    return cat->swap ? __builtin_bswap32(v) : v;
}

/* The string of table entry i (table at `table`); NULL when it does not fit. */
static const char *lang_string(const lang_catalog *cat, uint32_t table, uint32_t i, uint32_t *len)
{
    size_t at = (size_t)table + (size_t)i * 8;
    if (at + 8 > cat->size)
        return NULL;
    uint32_t n = lang_u32(cat, at), off = lang_u32(cat, at + 4);
    if ((size_t)off + n >= cat->size || cat->data[off + n] != '\0')
        return NULL;
    if (len)
        *len = n;
    return cat->data + off;
}

static bool lang_read(lang_catalog *cat, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size + 4096 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *p = realloc(data, cap);
            if (!p)
                break;
            data = p;
        }
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (!data || size < 28) {
        free(data);
        return false;
    }
    uint32_t magic;
    memcpy(&magic, data, 4);
    cat->data = data;
    cat->size = size;
    cat->swap = magic == 0xde120495u;
    if (magic != 0x950412deu && !cat->swap) {
        free(data);
        cat->data = NULL;
        return false;
    }
    cat->count = lang_u32(cat, 8);
    cat->orig = lang_u32(cat, 12);
    cat->trans = lang_u32(cat, 16);
    for (uint32_t i = 0; i < cat->count; i++)
        if (!lang_string(cat, cat->orig, i, NULL) || !lang_string(cat, cat->trans, i, NULL)) {
            free(data);
            cat->data = NULL;
            return false;
        }
    return true;
}

/* ---- the plural rule: a C expression in n (ternary, logic, comparison,
 * arithmetic, parentheses) ---- */

typedef struct rule {
    const char *p;
    unsigned long n;
    bool bad;
} rule;

static unsigned long rule_ternary(rule *r);

static void rule_space(rule *r)
{
    while (*r->p == ' ' || *r->p == '\t')
        r->p++;
}

static bool rule_take(rule *r, const char *op)
{
    rule_space(r);
    size_t len = strlen(op);
    if (strncmp(r->p, op, len) != 0)
        return false;
    /* "<" must not take the first half of "<=", "!" of "!=", "=" never alone */
    if (len == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!') && r->p[1] == '=')
        return false;
    if (len == 1 && (op[0] == '|' || op[0] == '&'))
        return false;
    r->p += len;
    return true;
}

static unsigned long rule_atom(rule *r)
{
    rule_space(r);
    if (rule_take(r, "!"))
        return !rule_atom(r);
    if (rule_take(r, "(")) {
        unsigned long v = rule_ternary(r);
        if (!rule_take(r, ")"))
            r->bad = true;
        return v;
    }
    if (*r->p == 'n') {
        r->p++;
        return r->n;
    }
    if (*r->p >= '0' && *r->p <= '9')
        return strtoul(r->p, (char **)&r->p, 10);
    r->bad = true;
    return 0;
}

static unsigned long rule_mul(rule *r)
{
    unsigned long v = rule_atom(r);
    for (;;) {
        if (rule_take(r, "*")) {
            v *= rule_atom(r);
        } else if (rule_take(r, "/") || rule_take(r, "%")) {
            char op = r->p[-1];
            unsigned long d = rule_atom(r);
            if (!d) {
                r->bad = true;
                return 0;
            }
            v = op == '/' ? v / d : v % d;
        } else {
            return v;
        }
    }
}

static unsigned long rule_add(rule *r)
{
    unsigned long v = rule_mul(r);
    for (;;) {
        if (rule_take(r, "+"))
            v += rule_mul(r);
        else if (rule_take(r, "-"))
            v -= rule_mul(r);
        else
            return v;
    }
}

static unsigned long rule_cmp(rule *r)
{
    unsigned long v = rule_add(r);
    for (;;) {
        if (rule_take(r, "<="))
            v = v <= rule_add(r);
        else if (rule_take(r, ">="))
            v = v >= rule_add(r);
        else if (rule_take(r, "<"))
            v = v < rule_add(r);
        else if (rule_take(r, ">"))
            v = v > rule_add(r);
        else if (rule_take(r, "=="))
            v = v == rule_add(r);
        else if (rule_take(r, "!="))
            v = v != rule_add(r);
        else
            return v;
    }
}

static unsigned long rule_and(rule *r)
{
    unsigned long v = rule_cmp(r);
    while (rule_take(r, "&&")) {
        unsigned long w = rule_cmp(r);
        v = v && w;
    }
    return v;
}

static unsigned long rule_or(rule *r)
{
    unsigned long v = rule_and(r);
    while (rule_take(r, "||")) {
        unsigned long w = rule_and(r);
        v = v || w;
    }
    return v;
}

static unsigned long rule_ternary(rule *r)
{
    unsigned long c = rule_or(r);
    if (!rule_take(r, "?"))
        return c;
    unsigned long a = rule_ternary(r);
    if (!rule_take(r, ":"))
        r->bad = true;
    unsigned long b = rule_ternary(r);
    return c ? a : b;
}

/* The index of the plural form for n; n != 1 when the rule is missing or bad. */
static unsigned long lang_plural_index(const lang_catalog *cat, long n)
{
    unsigned long un = n < 0 ? (unsigned long)-n : (unsigned long)n;
    if (!cat->plural_rule)
        return un != 1;
    rule r = {cat->plural_rule, un, false};
    unsigned long v = rule_ternary(&r);
    rule_space(&r);
    if (r.bad || (*r.p && *r.p != ';' && *r.p != '\n'))
        return un != 1;
    return v;
}

/* ---- lookup ---- */

/* The translation of the entry whose key is `key` (keylen bytes, may hold
 * a NUL between msgid and plural); NULL when absent or empty. */
static const char *lang_find(const lang_catalog *cat, const char *key, size_t keylen, uint32_t *tlen)
{
    if (!cat->data)
        return NULL;
    /* the msgids are sorted (msgfmt writes them so): binary search */
    uint32_t lo = 0, hi = cat->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, len = 0;
        const char *s = lang_string(cat, cat->orig, mid, &len);
        if (!s)
            return NULL; /* (lang_read checked every entry) */
        size_t common = len < keylen ? len : keylen;
        int c = memcmp(s, key, common);
        if (c == 0)
            c = len < keylen ? -1 : len > keylen ? 1 : 0;
        if (c == 0) {
            const char *t = lang_string(cat, cat->trans, mid, tlen);
            return t && *t ? t : NULL;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}


const char *lang_catalog_translate(void *ctx, const char *msgid, const char *msgid_plural, long n)
{
    const lang_catalog *cat = ctx;
    if (!cat || !cat->data)
        return NULL;
    if (!msgid_plural)
        return lang_find(cat, msgid, strlen(msgid), NULL);
    size_t a = strlen(msgid), b = strlen(msgid_plural);
    char *key = malloc(a + b + 2);
    if (!key)
        return NULL;
    memcpy(key, msgid, a + 1);
    memcpy(key + a + 1, msgid_plural, b + 1);
    uint32_t tlen = 0;
    const char *t = lang_find(cat, key, a + b + 1, &tlen);
    free(key);
    if (!t)
        return NULL;
    unsigned long want = lang_plural_index(cat, n);
    const char *form = t, *end = t + tlen;
    for (unsigned long i = 0; i < want && form < end; i++)
        form += strlen(form) + 1;
    return form < end && *form ? form : NULL;
}

const char *lang_catalog_code(const lang_catalog *cat)
{
    return cat ? cat->code : "en";
}

bool lang_code_of(const char *name, char *out, unsigned outlen)
{
    size_t n = name ? strcspn(name, ".@") : 0;
    if (n == 0 || n >= outlen)
        return false;
    for (size_t i = 0; i < n; i++)
        out[i] = name[i] == '-' ? '_' : name[i];
    out[n] = '\0';
    return true;
}

lang_catalog *lang_catalog_open(const char *code)
{
    if (!code || !code[0] || strlen(code) >= 16 || strchr(code, '/') || strcmp(code, "en") == 0)
        return NULL;
    lang_catalog *cat = calloc(1, sizeof *cat);
    if (!cat)
        return NULL;
    const char *dirs[] = {getenv("TABULA_LOCALE_DIR"), TB_LOCALE_DIR, TB_LOCALE_DIR_INSTALLED};
    for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
        if (!dirs[d] || !dirs[d][0])
            continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s/LC_MESSAGES/tabula.mo", dirs[d], code);
        if (lang_read(cat, path)) {
            snprintf(cat->code, sizeof cat->code, "%s", code);
            const char *header = lang_find(cat, "", 0, NULL);
            const char *expr = header ? strstr(header, "plural=") : NULL;
            cat->plural_rule = expr ? expr + 7 : NULL;
            return cat;
        }
    }
    free(cat);
    return NULL;
}

void lang_catalog_free(lang_catalog *cat)
{
    if (!cat)
        return;
    free(cat->data);
    free(cat);
}
