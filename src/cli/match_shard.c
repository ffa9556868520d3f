/*
 * match_shard.c — a match split over machines: the shard files written by
 * `tabula match --shard K/N --out FILE`, and `tabula match merge`, which
 * checks a set of shards and prints the table of the whole match
 * (docs/research.md; the games each shard plays: match.h).
 *
 * A shard file is JSON, "format": "tabula-match-shard", version 1:
 *   game, players, games (of the whole match), seed (a string), options
 *   ("key=value ..." normalized), agents (labels, seat order), data (the
 *   board's name and hash, absent for the built-in one), shard K, shards N,
 *   threads, seconds (wall time of the shard), and "results": one object
 *   per game played, in game order: game (its number in the whole match),
 *   seats (the agents entry of each seat), scores, ranks, returns, seconds
 *   and decisions per seat, and record (the game's record as the text
 *   `tabula replay` reads).  It is written whole to a temporary file and
 *   renamed, so a shard file is complete or absent.
 *
 * Invariants of merge: it prints nothing but an error unless the files
 * are the shards 0 .. N-1 of one match (the same game, players, games,
 * seed, options, agents, board and N), each exactly once, each holding
 * exactly the games K, K+N, ... with well-formed results; the per-game
 * results it tallies are those the whole run would have produced, in the
 * same order, so the table and Elo fit are the same.
 */
#include "match.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SHARD_FORMAT "tabula-match-shard"

static json_t *shard_ints(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_integer(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *shard_reals(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

int match_write_shard(const match_run *r, double seconds, int threads, const char *path,
                      char *err, size_t errlen)
{
    char options[TB_MAX_OPTIONS * (2 * TB_OPTION_LEN + 2)];
    match_options_text(r, options, sizeof options);
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
    json_t *agents = json_array();
    for (int i = 0; agents && i < r->players; i++)
        json_array_append_new(agents, json_string(r->entry[i].label));
    json_t *results = json_array();
    json_t *j = json_pack("{s:s,s:i,s:s,s:i,s:i,s:s,s:s,s:o*,s:i,s:i,s:i,s:f,s:o*}", "format",
                          SHARD_FORMAT, "version", 1, "game", tb_game_name(r->game), "players",
                          r->players, "games", r->total, "seed", seed, "options", options,
                          "agents", agents, "shard", r->first, "shards", r->stride, "threads",
                          threads, "seconds", seconds, "results", results);
    bool ok = j && agents && results;
    if (ok && r->data_name[0])
        ok = json_object_set_new(j, "data", json_pack("{s:s,s:s}", "name", r->data_name,
                                                        "hash", r->data_hash)) == 0;
    for (int i = 0; ok && i < r->ngames; i++) {
        const match_game *mg = &r->games[i];
        int n = r->players;
        json_t *one = json_pack("{s:i,s:o*,s:o*,s:o*,s:o*,s:o*,s:o*,s:s}", "game",
                                r->first + i * r->stride, "seats", shard_ints(mg->entry, n),
                                "scores", shard_ints(mg->scores, n), "ranks",
                                shard_ints(mg->ranks, n), "returns", shard_reals(mg->returns, n),
                                "seconds", shard_reals(mg->seconds, n), "decisions",
                                shard_ints(mg->decisions, n), "record",
                                mg->record ? mg->record : "");
        if (!one || json_object_size(one) != 8 || !mg->record) {
            json_decref(one);
            ok = false;
        } else {
            ok = json_array_append_new(results, one) == 0;
        }
    }
    char *text = ok ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) {
        snprintf(err, errlen, "out of memory writing %s", path);
        return -1;
    }
    int rc = cli_write_file(path, text, err, errlen);
    free(text);
    return rc;
}

/* ---- merge ---- */

typedef struct shard_file {
    const char *path;
    json_t *json;
    int k;
} shard_file;

/* A whole-number member in [lo, hi]; -1 and err when missing or out of range. */
static int shard_int(const char *path, const json_t *obj, const char *key, long lo, long hi,
                     long *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        snprintf(err, errlen, "%s: '%s' is missing or not a whole number from %ld to %ld", path,
                 key, lo, hi);
        return -1;
    }
    *out = (long)json_integer_value(v);
    return 0;
}

static const char *shard_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

/* Reads one array of n numbers (integers, or reals when `real`). */
static int shard_numbers(const json_t *a, int n, bool real, int *iv, double *dv)
{
    if (!json_is_array(a) || (int)json_array_size(a) != n)
        return -1;
    for (int i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, (size_t)i);
        if (real) {
            if (!json_is_number(v))
                return -1;
            dv[i] = json_number_value(v);
        } else {
            if (!json_is_integer(v) || json_integer_value(v) < -1000000000LL ||
                json_integer_value(v) > 1000000000LL)
                return -1;
            iv[i] = (int)json_integer_value(v);
        }
    }
    return 0;
}

/* What makes two shards parts of one match: the first field in which a and
 * b differ, with both values, in `what`; 0 when they agree. */
static int shard_differs(const json_t *a, const json_t *b, char *what, size_t len)
{
    static const char *const fields[][2] = {
        {"game", "the game"},       {"players", "the number of players"},
        {"games", "the number of games"}, {"seed", "the seed"},
        {"options", "the game options"}, {"agents", "the agents"},
        {"data", "the board"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const json_t *x = json_object_get(a, fields[i][0]), *y = json_object_get(b, fields[i][0]);
        if (json_equal((json_t *)x, (json_t *)y) || (!x && !y))
            continue;
        char *xs = x ? json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        char *ys = y ? json_dumps(y, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        snprintf(what, len, "%s differ%s (%.120s against %.120s)", fields[i][1],
                 i == 4 || i == 5 ? "" : "s", xs ? xs : "none", ys ? ys : "none");
        free(xs);
        free(ys);
        return 1;
    }
    return 0;
}

/* Fills r->games from one shard's results; -1 and err when malformed. */
static int shard_take(match_run *r, const shard_file *f, int shards, char *err, size_t errlen)
{
    const json_t *results = json_object_get(f->json, "results");
    int expect = (r->total - f->k + shards - 1) / shards;
    if (!json_is_array(results)) {
        snprintf(err, errlen, "%s: no \"results\" list", f->path);
        return -1;
    }
    if ((int)json_array_size(results) != expect) {
        snprintf(err, errlen, "%s: shard %d/%d of %d games must hold %d games, not %zu",
                 f->path, f->k, shards, r->total, expect, json_array_size(results));
        return -1;
    }
    int n = r->players;
    for (int i = 0; i < expect; i++) {
        const json_t *one = json_array_get(results, (size_t)i);
        int g = f->k + i * shards;
        long number;
        if (!json_is_object(one) || shard_int(f->path, one, "game", 0, MATCH_MAX_GAMES, &number,
                                              err, errlen) != 0 || number != g) {
            snprintf(err, errlen, "%s: result %d must be game %d of the match", f->path, i, g);
            return -1;
        }
        match_game *mg = &r->games[g];
        const char *record = json_string_value(json_object_get(one, "record"));
        if (shard_numbers(json_object_get(one, "seats"), n, false, mg->entry, NULL) ||
            shard_numbers(json_object_get(one, "scores"), n, false, mg->scores, NULL) ||
            shard_numbers(json_object_get(one, "ranks"), n, false, mg->ranks, NULL) ||
            shard_numbers(json_object_get(one, "returns"), n, true, NULL, mg->returns) ||
            shard_numbers(json_object_get(one, "seconds"), n, true, NULL, mg->seconds) ||
            shard_numbers(json_object_get(one, "decisions"), n, false, mg->decisions, NULL) ||
            !record || !*record) {
            snprintf(err, errlen, "%s: game %d's result is incomplete or malformed", f->path, g);
            return -1;
        }
        for (int seat = 0; seat < n; seat++) {
            if (mg->entry[seat] != (seat + g) % n) {
                snprintf(err, errlen, "%s: game %d seats the agents otherwise than the match "
                         "does", f->path, g);
                return -1;
            }
        }
        mg->record = strdup(record);
        if (!mg->record) {
            snprintf(err, errlen, "out of memory reading %s", f->path);
            return -1;
        }
    }
    return 0;
}

static int merge_help(void)
{
    printf("usage: tabula match merge SHARD... [--out FILE]\n\n"
           "Puts together the shard files of one match, written by\n"
           "  tabula match ... --shard K/N --out SHARD\n"
           "for K = 0 .. N-1 (any order), and prints the table the whole match prints:\n"
           "win rates with 95%% intervals, mean scores, the Elo fit and head to head.\n"
           "It refuses, saying why, shards of different matches (game, options, agents,\n"
           "seed, board), a shard missing or given twice, and a truncated file.\n\n"
           "  --out FILE   write every game's record and the summary as JSON, as\n"
           "               'tabula match --out' does\n");
    return 0;
}

int match_merge(int argc, char **argv)
{
    const char *out_path = NULL;
    int nfiles = 0;
    shard_file *files = calloc((size_t)argc, sizeof *files);
    if (!files) {
        fprintf(stderr, "tabula match merge: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            free(files);
            return merge_help();
        }
        if (strcmp(argv[i], "--out") == 0) {
            if (i + 1 >= argc) {
                free(files);
                return cli_usage("match merge", "--out needs a value");
            }
            out_path = argv[++i];
        } else if (argv[i][0] == '-') {
            free(files);
            return cli_usage("match merge", "unknown option '%s'", argv[i]);
        } else {
            files[nfiles++].path = argv[i];
        }
    }
    if (nfiles == 0) {
        free(files);
        return cli_usage("match merge", "which shard files? (tabula match merge a.json b.json)");
    }
    char err[TB_ERR_LEN + 512];
    int rc = 1;
    match_run r;
    memset(&r, 0, sizeof r);
    tb_options_clear(&r.opts);
    int shards = 0;
    double seconds = 0;
    long threads = 0;
    for (int f = 0; f < nfiles; f++) {
        char rerr[TB_ERR_LEN];
        char *text = tb_file_read(files[f].path, NULL, rerr, sizeof rerr);
        if (!text) {
            snprintf(err, sizeof err, "%s", rerr);
            goto done;
        }
        json_error_t jerr;
        files[f].json = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
        free(text);
        if (!files[f].json) {
            snprintf(err, sizeof err, "%s is truncated or not JSON (line %d: %s); run its shard "
                     "again", files[f].path, jerr.line, jerr.text);
            goto done;
        }
        const json_t *j = files[f].json;
        if (strcmp(shard_str(j, "format"), SHARD_FORMAT) != 0 ||
            json_integer_value(json_object_get(j, "version")) != 1) {
            snprintf(err, sizeof err, "%s is not a shard file of 'tabula match --shard' "
                     "(format %s, version 1)", files[f].path, SHARD_FORMAT);
            goto done;
        }
        long k, n, t;
        if (shard_int(files[f].path, j, "shards", 1, MATCH_MAX_SHARDS, &n, err, sizeof err) ||
            shard_int(files[f].path, j, "shard", 0, n - 1, &k, err, sizeof err) ||
            shard_int(files[f].path, j, "threads", 1, MATCH_MAX_THREADS, &t, err, sizeof err))
            goto done;
        files[f].k = (int)k;
        threads += t;
        seconds += json_number_value(json_object_get(j, "seconds"));
        char what[400];
        if (f == 0) {
            shards = (int)n;
        } else if (shard_differs(files[0].json, j, what, sizeof what)) {
            snprintf(err, sizeof err, "%s and %s are shards of different matches: %s",
                     files[0].path, files[f].path, what);
            goto done;
        } else if (n != shards) {
            snprintf(err, sizeof err, "%s is shard %ld of %ld but %s is one of %d: the match "
                     "was split two ways", files[f].path, k, n, files[0].path, shards);
            goto done;
        }
        for (int e = 0; e < f; e++) {
            if (files[e].k == files[f].k) {
                snprintf(err, sizeof err, "shard %d/%d is given twice (%s and %s)", files[f].k,
                         shards, files[e].path, files[f].path);
                goto done;
            }
        }
    }
    if (nfiles != shards) {
        char missing[256] = "";
        size_t used = 0;
        for (int k = 0, listed = 0; k < shards && listed < 8; k++) {
            bool have = false;
            for (int f = 0; f < nfiles; f++)
                have = have || files[f].k == k;
            if (!have) {
                used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%d",
                                         listed ? ", " : "", k);
                listed++;
            }
        }
        snprintf(err, sizeof err, "the match was split into %d shards but %d %s given; "
                 "missing: %s%s", shards, nfiles, nfiles == 1 ? "is" : "are", missing,
                 shards - nfiles > 8 ? ", ..." : "");
        goto done;
    }
    /* The match itself, from the first shard (all agree). */
    const json_t *j = files[0].json;
    r.game = tb_game_find(shard_str(j, "game"));
    if (!r.game) {
        snprintf(err, sizeof err, "%s: unknown game '%s'", files[0].path, shard_str(j, "game"));
        goto done;
    }
    long players, total;
    if (shard_int(files[0].path, j, "players", tb_game_min_players(r.game),
                  tb_game_max_players(r.game), &players, err, sizeof err) ||
        shard_int(files[0].path, j, "games", shards, MATCH_MAX_GAMES, &total, err, sizeof err))
        goto done;
    r.players = (int)players;
    r.total = r.ngames = (int)total;
    r.stride = 1;
    if (cli_parse_u64(shard_str(j, "seed"), &r.seed) != 0) {
        snprintf(err, sizeof err, "%s: 'seed' must be a whole number", files[0].path);
        goto done;
    }
    const json_t *agents = json_object_get(j, "agents");
    if (!json_is_array(agents) || (int)json_array_size(agents) != r.players) {
        snprintf(err, sizeof err, "%s: 'agents' must list one agent per seat", files[0].path);
        goto done;
    }
    for (int i = 0; i < r.players; i++) { /* labels only: a merge plays nothing */
        const char *label = json_string_value(json_array_get(agents, (size_t)i));
        if (!label || !*label || strlen(label) >= sizeof r.entry[i].label ||
            strpbrk(label, "\"\\") || strspn(label, " ") == strlen(label)) {
            snprintf(err, sizeof err, "%s: agent %d is not an agent's name", files[0].path,
                     i + 1);
            goto done;
        }
        snprintf(r.entry[i].label, sizeof r.entry[i].label, "%s", label);
    }
    match_pool_agents(&r);
    const json_t *data = json_object_get(j, "data");
    if (data) {
        const char *name = shard_str(data, "name"), *hash = shard_str(data, "hash");
        if (!tb_data_name_ok(name) || strlen(hash) >= sizeof r.data_hash ||
            strspn(hash, "0123456789abcdef") != strlen(hash) || !*hash) {
            snprintf(err, sizeof err, "%s: the board's name or hash is malformed",
                     files[0].path);
            goto done;
        }
        snprintf(r.data_name, sizeof r.data_name, "%s", name);
        snprintf(r.data_hash, sizeof r.data_hash, "%s", hash);
    }
    r.games = calloc((size_t)r.total, sizeof *r.games);
    if (!r.games) {
        snprintf(err, sizeof err, "out of memory for %d games", r.total);
        goto done;
    }
    for (int f = 0; f < nfiles; f++)
        if (shard_take(&r, &files[f], shards, err, sizeof err) != 0)
            goto done;
    match_stats st;
    match_tally(&r, &st);
    char how[120];
    snprintf(how, sizeof how, "merged from %d shard%s (%.1f s of play in all)", shards,
             shards == 1 ? "" : "s", seconds);
    match_print(&r, &st, how);
    rc = 0;
    if (out_path) {
        char *json = match_json(&r, &st, (int)threads, shards);
        if (!json) {
            snprintf(err, sizeof err, "out of memory writing %s", out_path);
            rc = 1;
        } else if (cli_write_file(out_path, json, err, sizeof err) != 0) {
            rc = 1;
        } else {
            printf("\nEvery game's record and the summary: %s\n", out_path);
        }
        free(json);
    }
done:
    if (rc != 0)
        fprintf(stderr, "tabula match merge: %s\n", err);
    if (r.games)
        for (int g = 0; g < r.total; g++)
            free(r.games[g].record);
    free(r.games);
    for (int f = 0; f < nfiles; f++)
        json_decref(files[f].json);
    free(files);
    return rc;
}
