/*
 * lang.c — the command line's language (lang.h): picks the language from
 * the environment, reads its compiled catalogue (the GNU .mo format: a
 * header, two tables of lengths and offsets, the strings) and evaluates
 * the catalogue's plural rule (its Plural-Forms header, a C expression in n).
 *
 * Invariants: a catalogue is used only when it reads whole (magic, tables
 * and every string inside the file, NUL-terminated); its plural rule only
 * when it parses, else n != 1.  Every lookup of a missing msgid gives NULL
 * (the English then).  The catalogue is read once and kept for the process.
 */
#include "lang.h"

#include "core/game.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TB_LOCALE_DIR
#define TB_LOCALE_DIR "po"
#endif
#ifndef TB_LOCALE_DIR_INSTALLED
#define TB_LOCALE_DIR_INSTALLED "/usr/local/share/locale"
#endif

static struct {
    char *data; /* the whole file */
    size_t size;
    uint32_t count;
    uint32_t orig, trans; /* offsets of the tables */
    bool swap;
    const char *plural_rule; /* the expression after "plural=", or NULL */
    char code[16];
} cat;

static uint32_t lang_u32(size_t at)
{
    uint32_t v;
    memcpy(&v, cat.data + at, 4);
    return cat.swap ? __builtin_bswap32(v) : v;
}

/* The string of table entry i (table at `table`); NULL when it does not fit. */
static const char *lang_string(uint32_t table, uint32_t i, uint32_t *len)
{
    size_t at = (size_t)table + (size_t)i * 8;
    if (at + 8 > cat.size)
        return NULL;
    uint32_t n = lang_u32(at), off = lang_u32(at + 4);
    if ((size_t)off + n >= cat.size || cat.data[off + n] != '\0')
        return NULL;
    if (len)
        *len = n;
    return cat.data + off;
}

static bool lang_read(const char *path)
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
    cat.data = data;
    cat.size = size;
    cat.swap = magic == 0xde120495u;
    if (magic != 0x950412deu && !cat.swap) {
        free(data);
        cat.data = NULL;
        return false;
    }
    cat.count = lang_u32(8);
    cat.orig = lang_u32(12);
    cat.trans = lang_u32(16);
    for (uint32_t i = 0; i < cat.count; i++)
        if (!lang_string(cat.orig, i, NULL) || !lang_string(cat.trans, i, NULL)) {
            free(data);
            cat.data = NULL;
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
static unsigned long lang_plural_index(long n)
{
    unsigned long un = n < 0 ? (unsigned long)-n : (unsigned long)n;
    if (!cat.plural_rule)
        return un != 1;
    rule r = {cat.plural_rule, un, false};
    unsigned long v = rule_ternary(&r);
    rule_space(&r);
    if (r.bad || (*r.p && *r.p != ';' && *r.p != '\n'))
        return un != 1;
    return v;
}

/* ---- lookup ---- */

/* The translation of the entry whose key is `key` (keylen bytes, may hold
 * a NUL between msgid and plural); NULL when absent or empty. */
static const char *lang_find(const char *key, size_t keylen, uint32_t *tlen)
{
    if (!cat.data)
        return NULL;
    /* the msgids are sorted (msgfmt writes them so): binary search */
    uint32_t lo = 0, hi = cat.count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, len;
        const char *s = lang_string(cat.orig, mid, &len);
        size_t common = len < keylen ? len : keylen;
        int c = memcmp(s, key, common);
        if (c == 0)
            c = len < keylen ? -1 : len > keylen ? 1 : 0;
        if (c == 0) {
            const char *t = lang_string(cat.trans, mid, tlen);
            return t && *t ? t : NULL;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *cli_translate(void *ctx, const char *msgid, const char *msgid_plural, long n)
{
    (void)ctx;
    if (!cat.data)
        return NULL;
    if (!msgid_plural)
        return lang_find(msgid, strlen(msgid), NULL);
    size_t a = strlen(msgid), b = strlen(msgid_plural);
    char *key = malloc(a + b + 2);
    if (!key)
        return NULL;
    memcpy(key, msgid, a + 1);
    memcpy(key + a + 1, msgid_plural, b + 1);
    uint32_t tlen = 0;
    const char *t = lang_find(key, a + b + 1, &tlen);
    free(key);
    if (!t)
        return NULL;
    unsigned long want = lang_plural_index(n);
    const char *form = t, *end = t + tlen;
    for (unsigned long i = 0; i < want && form < end; i++)
        form += strlen(form) + 1;
    return form < end && *form ? form : NULL;
}

const char *cli_(const char *msgid)
{
    const char *t = cli_translate(NULL, msgid, NULL, 0);
    return t ? t : msgid;
}

const char *cli_lang(void)
{
    return cat.data ? cat.code : "en";
}

/* Tries the catalogue of one language name ("es_ES.UTF-8@euro", "es"):
 * the whole name without codeset and modifier, then its language alone. */
static bool lang_try(const char *name)
{
    char code[16];
    size_t n = strcspn(name, ".@");
    if (n == 0 || n >= sizeof code)
        return false;
    memcpy(code, name, n);
    code[n] = '\0';
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            size_t lang = strcspn(code, "_");
            if (code[lang] == '\0')
                break;
            code[lang] = '\0';
        }
        if (strcmp(code, "en") == 0)
            return true; /* English: the msgids themselves */
        const char *dirs[] = {getenv("TABULA_LOCALE_DIR"), TB_LOCALE_DIR, TB_LOCALE_DIR_INSTALLED};
        for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
            if (!dirs[d] || !dirs[d][0])
                continue;
            char path[1200];
            snprintf(path, sizeof path, "%s/%s/LC_MESSAGES/tabula.mo", dirs[d], code);
            if (lang_read(path)) {
                snprintf(cat.code, sizeof cat.code, "%s", code);
                const char *header = lang_find("", 0, NULL);
                const char *expr = header ? strstr(header, "plural=") : NULL;
                cat.plural_rule = expr ? expr + 7 : NULL;
                return true;
            }
        }
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
