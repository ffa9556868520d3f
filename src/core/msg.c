/*
 * msg.c — messages (msg.h): building them and making their text in a
 * language given as a lookup function.
 *
 * Invariants: no global state; a translated template that does not expand
 * (broken braces, a name the args lack) gives way to the English template;
 * nesting deeper than MSG_DEPTH is refused (a message is not a message
 * then), so no input can exhaust the stack.
 */
#include "msg.h"

#include "game.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG_DEPTH 200

enum { MSG_OK = 0, MSG_BAD_TEMPLATE = -1, MSG_BAD = -2 };

/* Fills args from `spec` and the varargs; false when a nested message is
 * NULL or memory runs out (every nested message's reference is taken). */
static bool msg_fill(json_t *args, const char *spec, va_list ap)
{
    bool ok = args != NULL;
    const char *p = spec;
    while (p && *p) {
        while (*p == ' ')
            p++;
        const char *colon = strchr(p, ':');
        if (!*p || !colon)
            break;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(colon - p), p);
        char type = colon[1];
        p = colon + 2;
        json_t *v = NULL;
        if (type == 's') {
            const char *s = va_arg(ap, const char *);
            v = json_string(s ? s : "");
        } else if (type == 'd') {
            v = json_integer(va_arg(ap, int));
        } else {
            v = va_arg(ap, json_t *);
        }
        if (!v)
            ok = false;
        else if (!ok)
            json_decref(v);
        else if (json_object_set_new(args, name, v) != 0)
            ok = false; /* jansson let go of v */
    }
    return ok;
}

json_t *tb__msg_v(const char *tmpl, const char *plural, int n, const char *spec, va_list ap)
{
    json_t *m = json_object();
    json_t *args = json_object();
    bool ok = m && args && json_object_set_new(m, "msg", json_string(tmpl)) == 0;
    if (plural && ok)
        ok = json_object_set_new(m, "plural", json_string(plural)) == 0 &&
             json_object_set_new(args, "n", json_integer(n)) == 0;
    ok = msg_fill(args, spec, ap) && ok;
    if (ok && json_object_size(args)) {
        ok = json_object_set_new(m, "args", args) == 0;
        args = NULL;
    }
    json_decref(args);
    if (!ok) {
        json_decref(m);
        return NULL;
    }
    return m;
}

json_t *tb__msg(const char *tmpl, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    json_t *m = tb__msg_v(tmpl, NULL, 0, spec, ap);
    va_end(ap);
    return m;
}

json_t *tb__msg_plural(const char *tmpl, const char *plural, int n, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    json_t *m = tb__msg_v(tmpl, plural, n, spec, ap);
    va_end(ap);
    return m;
}

json_t *tb__msg_word(const char *text)
{
    return tb__msg(text, "");
}

json_t *tb__msg_phrase(const char *before, const char *word, const char *after)
{
    tb_buf b = {0};
    tb__buf_printf(&b, "%s%s%s", before, word, after);
    char *text = tb__buf_take(&b);
    json_t *m = text ? tb__msg_word(text) : NULL;
    free(text);
    return m;
}

json_t *tb__msg_a(const char *word)
{
    return tb__msg_phrase(word[0] && strchr("AEIOUaeiou", word[0]) ? "an " : "a ", word, "");
}

json_t *tb__msg_join(json_t *head, json_t *tail)
{
    return tb__msg(N_("{head}{tail}"), "head:m tail:m", head, tail);
}

json_t *tb__msg_list(json_t *const *items, int n, bool and_last)
{
    json_t *list = n > 0 ? items[0] : NULL;
    bool ok = list != NULL;
    for (int i = 1; i < n; i++) {
        if (!items[i] || !ok) {
            json_decref(items[i]);
            ok = false;
            continue;
        }
        list = and_last && i == n - 1
                   ? tb__msg(N_("{list} and {item}"), "list:m item:m", list, items[i])
                   : tb__msg(N_("{list}, {item}"), "list:m item:m", list, items[i]);
        ok = list != NULL;
    }
    if (!ok) {
        json_decref(list);
        return NULL;
    }
    return list;
}

static int msg_render(tb_buf *b, const json_t *msg, tb_translate_fn tr, void *ctx, int depth);

/* Appends `tmpl` with its placeholders filled from `args`. */
static int msg_expand(tb_buf *b, const char *tmpl, const json_t *args, tb_translate_fn tr,
                      void *ctx, int depth)
{
    for (const char *p = tmpl; *p;) {
        if (p[0] == '{' && p[1] == '{') {
            tb__buf_printf(b, "{");
            p += 2;
        } else if (p[0] == '}') {
            if (p[1] != '}')
                return MSG_BAD_TEMPLATE;
            tb__buf_printf(b, "}");
            p += 2;
        } else if (p[0] == '{') {
            const char *end = strchr(p + 1, '}');
            const char *open = strchr(p + 1, '{');
            if (!end || (open && open < end) || end - p - 1 > 63 || end == p + 1)
                return MSG_BAD_TEMPLATE;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
            const json_t *v = args ? json_object_get(args, name) : NULL;
            if (!v)
                return MSG_BAD_TEMPLATE;
            if (json_is_integer(v)) {
                tb__buf_printf(b, "%lld", (long long)json_integer_value(v));
            } else if (json_is_string(v)) {
                tb__buf_printf(b, "%s", json_string_value(v));
            } else if (json_is_object(v)) {
                int r = msg_render(b, v, tr, ctx, depth + 1);
                if (r != MSG_OK)
                    return MSG_BAD; /* the nested message, not this template, is wrong */
            } else {
                return MSG_BAD;
            }
            p = end + 1;
        } else {
            size_t run = strcspn(p, "{}");
            tb__buf_printf(b, "%.*s", (int)run, p);
            p += run;
        }
    }
    return MSG_OK;
}

static int msg_render(tb_buf *b, const json_t *msg, tb_translate_fn tr, void *ctx, int depth)
{
    if (depth > MSG_DEPTH || !json_is_object(msg))
        return MSG_BAD;
    const char *msgid = json_string_value(json_object_get(msg, "msg"));
    const json_t *plural_j = json_object_get(msg, "plural");
    const char *plural = json_string_value(plural_j);
    const json_t *args = json_object_get(msg, "args");
    if (!msgid || (plural_j && !plural) || (args && !json_is_object(args)))
        return MSG_BAD;
    long n = 0;
    if (plural) {
        const json_t *nj = args ? json_object_get(args, "n") : NULL;
        if (!json_is_integer(nj))
            return MSG_BAD;
        n = (long)json_integer_value(nj);
    }
    const char *translated = tr ? tr(ctx, msgid, plural, n) : NULL;
    if (translated) {
        size_t mark = b->len;
        int r = msg_expand(b, translated, args, tr, ctx, depth);
        if (r != MSG_BAD_TEMPLATE)
            return r;
        b->len = mark; /* a broken translation: the English instead */
        if (b->data)
            b->data[mark] = '\0';
    }
    const char *english = plural && n != 1 ? plural : msgid;
    int r = msg_expand(b, english, args, tr, ctx, depth);
    return r == MSG_OK ? MSG_OK : MSG_BAD;
}

void tb__buf_say(tb_buf *b, tb_translate_fn tr, void *ctx, const char *tmpl, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    json_t *m = tb__msg_v(tmpl, NULL, 0, spec, ap);
    va_end(ap);
    char *text = m ? tb__msg_text(m, tr, ctx) : NULL;
    json_decref(m);
    if (text)
        tb__buf_printf(b, "%s", text);
    else
        b->failed = true;
    free(text);
}

const char *tb__word(tb_translate_fn tr, void *ctx, const char *msgid)
{
    const char *t = tr ? tr(ctx, msgid, NULL, 0) : NULL;
    return t ? t : msgid;
}

char *tb__msg_text(const json_t *msg, tb_translate_fn tr, void *ctx)
{
    tb_buf b = {0};
    int r = msg_render(&b, msg, tr, ctx, 0);
    char *text = tb__buf_take(&b);
    if (r != MSG_OK) {
        free(text);
        return NULL;
    }
    return text;
}

char *tb_msg_text(const char *msg_json, tb_translate_fn tr, void *ctx)
{
    if (!msg_json)
        return NULL;
    json_t *m = json_loads(msg_json, 0, NULL);
    char *text = m ? tb__msg_text(m, tr, ctx) : NULL;
    json_decref(m);
    return text;
}
