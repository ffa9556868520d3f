/*
 * runner.c — reads rules scenario files (tests/rules/GAME/NAME.txt) and checks
 * them against the engine.  The format (docs/testing.md):
 *
 *   # comment
 *   new GAME [players=N] [seed=S] [KEY=VALUE ...]
 *   set PATH = JSON            edit the state JSON (reloaded through the
 *                              game's own validation at the next command)
 *   play MOVE                  must be legal; applied
 *   reject MOVE                must be refused; the state must not change
 *   expect PATH = JSON         the state JSON at PATH equals JSON
 *   expect view SEAT PATH = JSON   (SEAT a number or 'spectator')
 *   expect result PATH = JSON  the result JSON (the game must be over)
 *   expect breakdown PATH = JSON   tb_score_breakdown_json (null: none)
 *   expect legal = MOVE|MOVE|...     the exact legal list, in order
 *   expect legal has MOVE|MOVE|...   / expect legal lacks MOVE|...
 *   expect to_move = N | over
 *   expect scores = [..]
 *
 * JSON may be the word `absent`: the PATH must not exist.  An empty legal
 * list (`expect legal =`) means the game offers no decision.
 * PATH is dot-separated; a number indexes an array, anything else names an
 * object key; an empty PATH ('.') is the whole document.  Each failure
 * prints the file, line, and both sides.  The last line of output is
 * "N passed, N failed" over scenario files.
 */
#include "tabula.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct runner {
    const char *file;
    int line;
    tb_state *state;
    json_t *pending; /* edited state JSON not yet loaded, or NULL */
    int failures;
} runner;

static void runner_fail(runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void runner_fail(runner *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", r->file, r->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    r->failures++;
}

/* Walks PATH in doc; with create, missing object keys are made.  Returns the
 * node, or NULL; parent, key and index say where it hangs. */
static json_t *runner_walk(json_t *doc, const char *path, json_t **parent, char *key,
                           size_t *index)
{
    json_t *cur = doc;
    *parent = NULL;
    if (strcmp(path, ".") == 0 || !*path)
        return cur;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
        *parent = cur;
        if (json_is_array(cur)) {
            char *end;
            long i = strtol(seg, &end, 10);
            if (*end || i < 0)
                return NULL;
            *index = (size_t)i;
            key[0] = '\0';
            cur = json_array_get(cur, (size_t)i);
        } else if (json_is_object(cur)) {
            snprintf(key, 256, "%s", seg);
            cur = json_object_get(cur, seg);
        } else {
            return NULL;
        }
        if (!cur)
            return NULL; /* parent and key tell where it would go */
    }
    return cur;
}

static bool runner_flush(runner *r)
{
    if (!r->pending)
        return true;
    char *text = json_dumps(r->pending, JSON_COMPACT);
    json_decref(r->pending);
    r->pending = NULL;
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_load(text, err, sizeof err);
    free(text);
    if (!s) {
        runner_fail(r, "the edited state was refused: %s", err);
        return false;
    }
    tb_state_free(r->state);
    r->state = s;
    return true;
}

static json_t *runner_state_json(runner *r)
{
    char *text = tb_state_json(r->state);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    return j;
}

static void runner_set(runner *r, const char *path, const char *value)
{
    json_error_t jerr;
    json_t *v = json_loads(value, JSON_DECODE_ANY, &jerr);
    if (!v) {
        runner_fail(r, "bad JSON '%s': %s", value, jerr.text);
        return;
    }
    if (!r->pending)
        r->pending = runner_state_json(r);
    json_t *parent;
    char key[256] = "";
    size_t index = 0;
    runner_walk(r->pending, path, &parent, key, &index);
    if (!parent) {
        runner_fail(r, "cannot set '%s'", path);
        json_decref(v);
    } else if (json_is_object(parent)) {
        json_object_set_new(parent, key, v);
    } else if (json_is_array(parent) && index < json_array_size(parent)) {
        json_array_set_new(parent, index, v);
    } else {
        runner_fail(r, "cannot set '%s'", path);
        json_decref(v);
    }
}

static void runner_compare(runner *r, json_t *doc, const char *path, const char *value,
                           const char *what)
{
    json_t *parent;
    char key[256];
    size_t index;
    json_t *got = runner_walk(doc, path, &parent, key, &index);
    if (strcmp(value, "absent") == 0) {
        if (got) {
            char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
            runner_fail(r, "%s %s: expected absent, got %s", what, path, g);
            free(g);
        }
        return;
    }
    json_error_t jerr;
    json_t *want = json_loads(value, JSON_DECODE_ANY, &jerr);
    if (!want) {
        runner_fail(r, "bad JSON '%s': %s", value, jerr.text);
        return;
    }
    if (!got || !json_equal(got, want)) {
        char *g = got ? json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS) : NULL;
        char *w = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
        runner_fail(r, "%s %s: expected %s, got %s", what, path, w, g ? g : "(missing)");
        free(g);
        free(w);
    }
    json_decref(want);
}

/* Splits "A|B|C" into the moves of a list check. */
static void runner_legal(runner *r, const char *mode, char *list)
{
    char *all = tb_legal_text(r->state);
    /* one decision per line; shown in failures as the scenario writes them,
     * separated by '|'; compared through the parsed list */
    for (char *p = all; *p; p++)
        if (*p == '\n')
            *p = '|';
    tb_move moves[TB_MAX_MOVES];
    int n = tb_legal(r->state, moves);
    char texts[TB_MAX_MOVES][TB_MOVE_TEXT];
    for (int i = 0; i < n; i++)
        tb_move_to_text(r->state, moves[i], texts[i], sizeof texts[i]);
    char *want[TB_MAX_MOVES];
    int nw = 0;
    char *save = NULL;
    for (char *w = strtok_r(list, "|", &save); w && nw < TB_MAX_MOVES; w = strtok_r(NULL, "|", &save)) {
        while (*w == ' ')
            w++;
        size_t len = strlen(w);
        while (len && w[len - 1] == ' ')
            w[--len] = '\0';
        if (*w)
            want[nw++] = w;
    }
    if (strcmp(mode, "=") == 0) {
        bool same = nw == n;
        for (int i = 0; same && i < n; i++)
            same = strcmp(want[i], texts[i]) == 0;
        if (!same)
            runner_fail(r, "legal moves differ: got [%s]", all);
    } else {
        bool want_present = strcmp(mode, "has") == 0;
        for (int k = 0; k < nw; k++) {
            bool found = false;
            for (int i = 0; i < n && !found; i++)
                found = strcmp(want[k], texts[i]) == 0;
            if (found != want_present)
                runner_fail(r, "'%s' is %s the legal moves [%s]", want[k],
                            found ? "among" : "not among", all);
        }
    }
    free(all);
}

/* Splits "PATH = JSON"; returns false on a malformed line. */
static bool runner_split(char *rest, char **path, char **value)
{
    char *eq = strstr(rest, " = ");
    if (!eq)
        return false;
    *eq = '\0';
    *path = rest;
    *value = eq + 3;
    while (**path == ' ')
        (*path)++;
    return true;
}

static void runner_line(runner *r, char *line)
{
    char *cmd = line, *rest = strchr(line, ' ');
    if (rest)
        *rest++ = '\0';
    else
        rest = line + strlen(line);
    if (strcmp(cmd, "new") == 0) {
        char *w[40];
        int n = 0;
        char *save = NULL;
        for (char *t = strtok_r(rest, " ", &save); t && n < 40; t = strtok_r(NULL, " ", &save))
            w[n++] = t;
        const tb_game *g = n ? tb_game_find(w[0]) : NULL;
        if (!g) {
            runner_fail(r, "new: unknown game");
            return;
        }
        int players = tb_game_default_players(g);
        uint64_t seed = 0;
        tb_options opts;
        tb_options_clear(&opts);
        char err[TB_ERR_LEN];
        for (int i = 1; i < n; i++) {
            if (strncmp(w[i], "players=", 8) == 0)
                players = atoi(w[i] + 8);
            else if (strncmp(w[i], "seed=", 5) == 0)
                seed = strtoull(w[i] + 5, NULL, 10);
            else if (tb_options_set_pair(&opts, w[i], err, sizeof err))
                runner_fail(r, "new: %s", err);
        }
        tb_state_free(r->state);
        json_decref(r->pending);
        r->pending = NULL;
        r->state = tb_state_new(g);
        if (tb_setup(r->state, players, &opts, seed, err, sizeof err)) {
            runner_fail(r, "new: %s", err);
            tb_state_free(r->state);
            r->state = NULL;
        }
        return;
    }
    if (!r->state) {
        runner_fail(r, "'%s' before 'new'", cmd);
        return;
    }
    if (strcmp(cmd, "set") == 0) {
        char *path, *value;
        if (!runner_split(rest, &path, &value))
            runner_fail(r, "usage: set PATH = JSON");
        else
            runner_set(r, path, value);
        return;
    }
    if (!runner_flush(r))
        return;
    char err[TB_ERR_LEN];
    if (strcmp(cmd, "play") == 0) {
        if (tb_play_text(r->state, rest, err, sizeof err))
            runner_fail(r, "play %s: %s", rest, err);
    } else if (strcmp(cmd, "reject") == 0) {
        tb_state *before = tb_state_dup(r->state);
        if (tb_play_text(r->state, rest, err, sizeof err) == 0)
            runner_fail(r, "reject %s: the move was accepted", rest);
        else if (!tb_state_equal(before, r->state))
            runner_fail(r, "reject %s: the refused move changed the state", rest);
        tb_state_copy(r->state, before);
        tb_state_free(before);
    } else if (strcmp(cmd, "expect") == 0) {
        char *what = rest, *sub = strchr(rest, ' ');
        if (!sub) {
            runner_fail(r, "usage: expect ...");
            return;
        }
        *sub++ = '\0';
        if (strcmp(what, "legal") == 0) {
            char *mode = sub, *list = strchr(sub, ' ');
            char empty[1] = "";
            if (!list && strcmp(sub, "=") == 0)
                list = empty;
            else if (list)
                *list++ = '\0';
            if (!list) {
                runner_fail(r, "usage: expect legal =|has|lacks MOVE|MOVE");
                return;
            }
            runner_legal(r, mode, list);
        } else if (strcmp(what, "to_move") == 0) {
            int tm = tb_to_move(r->state);
            char got[16];
            snprintf(got, sizeof got, tm == TB_OVER ? "over" : "%d", tm);
            const char *want = strncmp(sub, "= ", 2) == 0 ? sub + 2 : sub;
            if (strcmp(got, want) != 0)
                runner_fail(r, "to_move: expected %s, got %s", want, got);
        } else if (strcmp(what, "scores") == 0) {
            int sc[TB_MAX_SEATS];
            tb_scores(r->state, sc);
            json_t *a = json_array();
            for (int i = 0; i < tb_players(r->state); i++)
                json_array_append_new(a, json_integer(sc[i]));
            const char *want = strncmp(sub, "= ", 2) == 0 ? sub + 2 : sub;
            runner_compare(r, a, ".", want, "scores");
            json_decref(a);
        } else if (strcmp(what, "result") == 0) {
            char *path, *value;
            if (!tb_is_over(r->state)) {
                runner_fail(r, "expect result: the game is not over");
                return;
            }
            if (!runner_split(sub, &path, &value)) {
                runner_fail(r, "usage: expect result PATH = JSON");
                return;
            }
            char *text = tb_result_json(r->state);
            json_t *j = json_loads(text, 0, NULL);
            free(text);
            runner_compare(r, j, path, value, "result");
            json_decref(j);
        } else if (strcmp(what, "breakdown") == 0) {
            char *path, *value;
            if (!runner_split(sub, &path, &value)) {
                runner_fail(r, "usage: expect breakdown PATH = JSON");
                return;
            }
            /* null when the game cannot explain the scores of this state */
            char *text = tb_score_breakdown_json(r->state);
            json_t *j = text ? json_loads(text, 0, NULL) : json_null();
            free(text);
            runner_compare(r, j, path, value, "breakdown");
            json_decref(j);
        } else if (strcmp(what, "view") == 0) {
            char *seat_s = sub, *tail = strchr(sub, ' ');
            char *path, *value;
            if (!tail || (*tail++ = '\0', !runner_split(tail, &path, &value))) {
                runner_fail(r, "usage: expect view SEAT PATH = JSON");
                return;
            }
            int seat = strcmp(seat_s, "spectator") == 0 ? TB_SPECTATOR : atoi(seat_s);
            char *text = tb_view_json(r->state, seat);
            json_t *j = json_loads(text, 0, NULL);
            free(text);
            runner_compare(r, j, path, value, "view");
            json_decref(j);
        } else {
            /* expect PATH = JSON on the state */
            sub[-1] = ' ';
            char *path, *value;
            if (!runner_split(rest, &path, &value)) {
                runner_fail(r, "usage: expect PATH = JSON");
                return;
            }
            json_t *j = runner_state_json(r);
            runner_compare(r, j, path, value, "state");
            json_decref(j);
        }
    } else {
        runner_fail(r, "unknown scenario command '%s'", cmd);
    }
}

static int runner_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    runner r = {.file = path};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int commands = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        r.line++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = '\0';
        char *p = line;
        while (*p == ' ')
            p++;
        if (!*p || *p == '#')
            continue;
        commands++;
        runner_line(&r, p);
    }
    if (r.pending) {
        r.line++;
        runner_flush(&r);
    }
    if (!commands)
        runner_fail(&r, "the scenario is empty");
    free(line);
    fclose(f);
    tb_state_free(r.state);
    return r.failures;
}

static int runner_by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            failed += runner_file(argv[i]) ? 1 : 0;
            continue;
        }
        char *names[1024];
        int n = 0;
        struct dirent *e;
        while ((e = readdir(d)) && n < 1024) {
            size_t len = strlen(e->d_name);
            if (len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0)
                names[n++] = strdup(e->d_name);
        }
        closedir(d);
        qsort(names, (size_t)n, sizeof *names, runner_by_name);
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
            if (runner_file(path)) {
                failed++;
                printf("FAIL %s\n", path);
            } else {
                passed++;
                printf("ok   %s\n", path);
            }
            free(names[k]);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}
