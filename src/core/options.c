/*
 * options.c — KEY=VALUE game options, checked against each game's table.
 *
 * A normalized option list names every option of its game exactly once, in
 * the order of the game's table, each with an allowed value; this is the form
 * states and records keep, so two equal games always print equal options.
 */
#include "game.h"
#include "core/text.h"

#include <stdio.h>
#include <string.h>

void tb_options_clear(tb_options *opts)
{
    memset(opts, 0, sizeof *opts);
}

int tb_options_set(tb_options *opts, const char *key, const char *value, char *err, size_t errlen)
{
    if (!key[0])
        return tb__errf(err, errlen, "an option needs a name before '='");
    if (strlen(key) >= TB_OPTION_LEN || strlen(value) >= TB_OPTION_LEN)
        return tb__errf(err, errlen, "option '%.*s' is too long", TB__CLIP(key, 40));
    for (int i = 0; i < opts->count; i++) {
        if (strcmp(opts->item[i].key, key) == 0) {
            snprintf(opts->item[i].value, TB_OPTION_LEN, "%s", value);
            return 0;
        }
    }
    if (opts->count >= TB_MAX_OPTIONS)
        return tb__errf(err, errlen, "too many options (at most %d)", TB_MAX_OPTIONS);
    snprintf(opts->item[opts->count].key, TB_OPTION_LEN, "%s", key);
    snprintf(opts->item[opts->count].value, TB_OPTION_LEN, "%s", value);
    opts->count++;
    return 0;
}

int tb_options_set_pair(tb_options *opts, const char *pair, char *err, size_t errlen)
{
    const char *eq = strchr(pair, '=');
    if (!eq)
        return tb__errf(err, errlen, "expected KEY=VALUE, got '%.*s'", TB__CLIP(pair, 60));
    char key[TB_OPTION_LEN];
    size_t klen = (size_t)(eq - pair);
    if (klen >= sizeof key)
        return tb__errf(err, errlen, "option name '%.*s' is too long", TB__CLIP(pair, 40));
    memcpy(key, pair, klen);
    key[klen] = '\0';
    return tb_options_set(opts, key, eq + 1, err, errlen);
}

const char *tb_options_get(const tb_options *opts, const char *key)
{
    for (int i = 0; i < opts->count; i++)
        if (strcmp(opts->item[i].key, key) == 0)
            return opts->item[i].value;
    return NULL;
}

/* The position of `value` among the '|'-separated words of `allowed`, or -1. */
static int options_value_index(const char *allowed, const char *value)
{
    size_t vlen = strlen(value);
    const char *p = allowed;
    for (int i = 0; *p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vlen && strncmp(p, value, len) == 0)
            return i;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

static bool options_value_allowed(const char *allowed, const char *value)
{
    return options_value_index(allowed, value) >= 0;
}

int tb__options_encode(const tb_game *game, const tb_options *normalized, uint8_t *out)
{
    memset(out, 0, TB_MAX_OPTIONS);
    int i = 0;
    for (const tb_option_spec *o = game->options; o && o->key && i < TB_MAX_OPTIONS; o++, i++) {
        const char *v = tb_options_get(normalized, o->key);
        int k = v ? options_value_index(o->values, v) : -1;
        if (k < 0)
            return -1;
        out[i] = (uint8_t)k;
    }
    return 0;
}

void tb__options_defaults(const tb_game *game, uint8_t *out)
{
    memset(out, 0, TB_MAX_OPTIONS);
    int i = 0;
    for (const tb_option_spec *o = game->options; o && o->key && i < TB_MAX_OPTIONS; o++, i++) {
        int k = options_value_index(o->values, o->fallback);
        out[i] = (uint8_t)(k < 0 ? 0 : k);
    }
}

void tb__options_decode(const tb_game *game, const uint8_t *in, tb_options *out)
{
    tb_options_clear(out);
    int i = 0;
    for (const tb_option_spec *o = game->options; o && o->key && i < TB_MAX_OPTIONS; o++, i++) {
        const char *p = o->values;
        for (int k = 0; k < in[i] && strchr(p, '|'); k++)
            p = strchr(p, '|') + 1;
        size_t len = strchr(p, '|') ? (size_t)(strchr(p, '|') - p) : strlen(p);
        char value[TB_OPTION_LEN];
        snprintf(value, sizeof value, "%.*s", (int)len, p);
        tb_options_set(out, o->key, value, NULL, 0);
    }
}

int tb__option_index(const tb_state *s, const char *key)
{
    int i = 0;
    for (const tb_option_spec *o = s->game->options; o && o->key; o++, i++)
        if (strcmp(o->key, key) == 0)
            return s->option[i];
    return -1;
}

int tb_options_normalize(const tb_game *game, tb_options *opts, char *err, size_t errlen)
{
    const tb_option_spec *spec = game->options;
    for (int i = 0; i < opts->count; i++) {
        const tb_option_spec *found = NULL;
        for (const tb_option_spec *o = spec; o && o->key; o++)
            if (strcmp(o->key, opts->item[i].key) == 0)
                found = o;
        if (!found) {
            char known[200] = "";
            for (const tb_option_spec *o = spec; o && o->key; o++) {
                size_t used = strlen(known);
                snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "", o->key);
            }
            return tb__errf(err, errlen, "unknown option '%s' for %s (%s%s)", opts->item[i].key,
                            game->name, known[0] ? "known: " : "it has no options",
                            known);
        }
        if (!options_value_allowed(found->values, opts->item[i].value))
            return tb__errf(err, errlen, "option %s=%s is not allowed (choose %s)",
                            opts->item[i].key, opts->item[i].value, found->values);
    }
    tb_options out;
    tb_options_clear(&out);
    for (const tb_option_spec *o = spec; o && o->key; o++) {
        const char *v = tb_options_get(opts, o->key);
        if (tb_options_set(&out, o->key, v ? v : o->fallback, err, errlen) != 0)
            return -1;
    }
    *opts = out;
    return 0;
}
