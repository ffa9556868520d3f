/*
 * engine.c — `tabula engine`: a GTP/UCI-style line protocol on two streams.
 *
 * Each command line gets exactly one reply: "= " and the payload (possibly
 * several lines) or "? " and an error message, then one empty line.  Blank
 * lines and lines starting with '#' are ignored.  Invariant: a command that
 * fails changes nothing (the game, its history and its record stay as they
 * were); the session keeps a history of states so `undo` steps back exactly
 * one decision.  Protocol version 2: `legal` prints one decision a line (or a
 * JSON array with `legal json`); `list_commands` and `help` both read the one
 * table of commands below.
 */
#include "engine.h"
#include "core/text.h"

#include <ctype.h>
#include <jansson.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct engine_session {
    FILE *out;
    uint64_t (*now_us)(void);
    tb_state *state;     /* NULL before `new` */
    tb_state **history;  /* states before each decision, oldest first */
    int depth, cap;
    tb_record *record;   /* NULL after `load` (no seed to replay from) */
    const tb_data_set *boards; /* what board=NAME may name (NULL: built-in only) */
} engine_session;

static void engine_reply(engine_session *e, const char *payload)
{
    fprintf(e->out, "=%s%s\n\n", payload[0] ? " " : "", payload);
    fflush(e->out);
}

static void engine_error(engine_session *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void engine_error(engine_session *e, const char *fmt, ...)
{
    /* Messages quote the command line, which may be any bytes: the reply is
     * mended to valid UTF-8 before it is printed. */
    char small[1024];
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    char *text = small;
    if (n >= (int)sizeof small && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    else if (!text)
        text = small; /* no memory: the message as far as it fits */
    va_end(again);
    tb__utf8_repair(text);
    fputs("? ", e->out);
    fputs(text, e->out);
    fputs("\n\n", e->out);
    fflush(e->out);
    if (text != small)
        free(text);
}

#define ENGINE_NO_MEMORY "out of memory; nothing changed, try again"

/* Replies with a malloc'd payload (NULL: memory ran out making it). */
static void engine_reply_owned(engine_session *e, char *payload)
{
    if (!payload) {
        engine_error(e, ENGINE_NO_MEMORY);
        return;
    }
    engine_reply(e, payload);
    free(payload);
}

static void engine_clear_history(engine_session *e)
{
    for (int i = 0; i < e->depth; i++)
        tb_state_free(e->history[i]);
    e->depth = 0;
}

/* -1 when memory runs out (the history unchanged). */
static int engine_push_history(engine_session *e)
{
    if (e->depth == e->cap) {
        int cap = e->cap ? e->cap * 2 : 64;
        tb_state **h = realloc(e->history, (size_t)cap * sizeof *h);
        if (!h)
            return -1;
        e->history = h;
        e->cap = cap;
    }
    tb_state *copy = tb_state_dup(e->state);
    if (!copy)
        return -1;
    e->history[e->depth++] = copy;
    return 0;
}

static bool engine_need_game(engine_session *e)
{
    if (e->state)
        return true;
    engine_error(e, "no game: start one with 'new GAME' (games: see list_games)");
    return false;
}

/* Splits the argument text into words (in place); returns the count. */
static int engine_words(char *args, char **words, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(args, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    return n;
}

static int engine_parse_u64(const char *s, uint64_t *out)
{
    if (!*s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

/* Applies a legal move with its history and record; -1 (and the error
 * said, nothing changed) when memory runs out. */
static int engine_apply(engine_session *e, tb_move m)
{
    char text[TB_MOVE_TEXT];
    tb_move_to_text(e->state, m, text, sizeof text);
    if (engine_push_history(e) != 0) {
        engine_error(e, ENGINE_NO_MEMORY);
        return -1;
    }
    if (e->record && tb_record_push(e->record, text) != 0) {
        tb_state_free(e->history[--e->depth]);
        engine_error(e, ENGINE_NO_MEMORY);
        return -1;
    }
    tb_apply(e->state, m);
    return 0;
}

static void cmd_new(engine_session *e, char *args)
{
    char *w[40];
    int n = engine_words(args, w, 40);
    if (n < 1) {
        engine_error(e, "usage: new GAME [players=N] [seed=S] [board=NAME] [KEY=VALUE ...]");
        return;
    }
    const tb_game *g = tb_game_find(w[0]);
    if (!g) {
        engine_error(e, "unknown game '%s' (games: see list_games)", w[0]);
        return;
    }
    int players = tb_game_default_players(g);
    uint64_t seed = 0;
    const tb_data *data = NULL;
    tb_options opts;
    tb_options_clear(&opts);
    char err[TB_ERR_LEN];
    for (int i = 1; i < n; i++) {
        if (strncmp(w[i], "players=", 8) == 0) {
            uint64_t p;
            if (engine_parse_u64(w[i] + 8, &p) || p > 100) {
                engine_error(e, "players must be a number, got '%s'", w[i] + 8);
                return;
            }
            players = (int)p;
        } else if (strncmp(w[i], "seed=", 5) == 0) {
            if (engine_parse_u64(w[i] + 5, &seed)) {
                engine_error(e, "seed must be a number from 0 to 18446744073709551615, got '%s'", w[i] + 5);
                return;
            }
        } else if (strncmp(w[i], "board=", 6) == 0) {
            if (!tb_data_builtin(g)) {
                engine_error(e, "%s has no boards to choose from", tb_game_title(g));
                return;
            }
            data = tb_data_name_ok(w[i] + 6) ? tb_data_set_find(e->boards, g, w[i] + 6) : NULL;
            if (!data) {
                char names[512] = "";
                int count = e->boards ? tb_data_set_count(e->boards, g) : 1;
                for (int k = 0; k < count; k++) {
                    const tb_data *d = e->boards ? tb_data_set_at(e->boards, g, k) : tb_data_builtin(g);
                    size_t used = strlen(names);
                    snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", tb_data_name(d));
                }
                engine_error(e, "unknown %s board '%.*s' (boards: %s)", tb_game_title(g),
                             TB__CLIP(w[i] + 6, 60), names);
                return;
            }
        } else if (tb_options_set_pair(&opts, w[i], err, sizeof err)) {
            engine_error(e, "%s", err);
            return;
        }
    }
    tb_state *s = tb_state_new(g);
    if (!s) {
        engine_error(e, ENGINE_NO_MEMORY);
        return;
    }
    if (tb_setup_data(s, data, players, &opts, seed, err, sizeof err)) {
        tb_state_free(s);
        engine_error(e, "%s", err);
        return;
    }
    tb_options norm;
    tb_state_options(s, &norm);
    tb_record *rec = tb_record_new(g, players, &norm, seed);
    if (!rec) {
        tb_state_free(s);
        engine_error(e, ENGINE_NO_MEMORY);
        return;
    }
    engine_clear_history(e);
    tb_state_free(e->state);
    tb_record_free(e->record);
    e->state = s;
    e->record = rec;
    tb_record_set_data(e->record, data);
    for (int i = 0; i < players; i++)
        tb_record_set_player(e->record, i, NULL, "engine");
    engine_reply(e, "");
}

static void cmd_list_boards(engine_session *e, char *args)
{
    const tb_game *g = tb_game_find(args);
    if (!g) {
        engine_error(e, "usage: list_boards GAME (games: see list_games)");
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        engine_error(e, "out of memory");
        return;
    }
    int count = e->boards ? tb_data_set_count(e->boards, g) : (tb_data_builtin(g) ? 1 : 0);
    for (int k = 0; k < count; k++) {
        const tb_data *d = e->boards ? tb_data_set_at(e->boards, g, k) : tb_data_builtin(g);
        fprintf(f, "%s%s %s", k ? "\n" : "", tb_data_name(d), tb_data_hash(d));
    }
    fclose(f);
    engine_reply_owned(e, buf);
}

static void cmd_play(engine_session *e, char *args)
{
    if (!engine_need_game(e))
        return;
    if (!*args) {
        engine_error(e, "usage: play MOVE");
        return;
    }
    char err[TB_ERR_LEN];
    tb_move m;
    if (tb_text_to_move(e->state, args, &m, err, sizeof err)) {
        if (strncmp(err, "illegal move", 12) == 0)
            engine_error(e, "%s", err);
        else
            engine_error(e, "illegal move: %s", err);
        return;
    }
    if (engine_apply(e, m) == 0)
        engine_reply(e, "");
}

static void cmd_undo(engine_session *e)
{
    if (!engine_need_game(e))
        return;
    if (e->depth == 0) {
        engine_error(e, "nothing to undo");
        return;
    }
    tb_state_free(e->state);
    e->state = e->history[--e->depth];
    if (e->record)
        tb_record_pop(e->record);
    engine_reply(e, "");
}

static void cmd_view(engine_session *e, char *args)
{
    if (!engine_need_game(e))
        return;
    int seat = TB_SPECTATOR;
    if (*args) {
        uint64_t v;
        if (engine_parse_u64(args, &v) || (int64_t)v >= tb_players(e->state)) {
            engine_error(e, "no seat '%s': seats are 0 to %d", args, tb_players(e->state) - 1);
            return;
        }
        seat = (int)v;
    }
    engine_reply_owned(e, tb_view_json(e->state, seat));
}

static void cmd_load(engine_session *e, char *args)
{
    if (!*args) {
        engine_error(e, "usage: load JSON (one line, as printed by 'state')");
        return;
    }
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_load_in(args, e->boards, err, sizeof err);
    if (!s) {
        engine_error(e, "bad state: %s", err);
        return;
    }
    engine_clear_history(e);
    tb_state_free(e->state);
    tb_record_free(e->record);
    e->record = NULL;
    e->state = s;
    engine_reply(e, "");
}

static void cmd_scores(engine_session *e)
{
    if (!engine_need_game(e))
        return;
    int sc[TB_MAX_SEATS];
    tb_scores(e->state, sc);
    char buf[128] = "[";
    for (int i = 0; i < tb_players(e->state); i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof buf - used, "%s%d", i ? "," : "", sc[i]);
    }
    strcat(buf, "]");
    engine_reply(e, buf);
}

#define GENMOVE_KEYS "agent, iterations, time_ms, seed, infer"

static void cmd_genmove(engine_session *e, char *args)
{
    if (!engine_need_game(e))
        return;
    if (tb_is_over(e->state)) {
        engine_error(e, "the game is over");
        return;
    }
    char *w[16];
    int n = engine_words(args, w, 16);
    const tb_agent *agent = tb_agent_find("random");
    tb_budget budget = {0};
    budget.now_us = e->now_us;
    uint64_t seed = tb_seed(e->state) * 0x9e3779b97f4a7c15ULL + (uint64_t)tb_decisions_made(e->state);
    tb_infer infer = TB_INFER_RULE;
    for (int i = 0; i < n; i++) {
        char *eq = strchr(w[i], '=');
        if (!eq) {
            engine_error(e, "expected KEY=VALUE, got '%s' (keys: %s)", w[i], GENMOVE_KEYS);
            return;
        }
        *eq = '\0';
        const char *key = w[i], *val = eq + 1;
        uint64_t v = 0;
        if (strcmp(key, "agent") == 0) {
            agent = tb_agent_find(val);
            if (!agent) {
                char known[256] = "";
                for (int k = 0; k < tb_agent_count(); k++) {
                    size_t used = strlen(known);
                    snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "", tb_agent_at(k)->name);
                }
                engine_error(e, "unknown agent '%s' (agents: %s)", val, known);
                return;
            }
        } else if (strcmp(key, "infer") == 0) {
            if (strcmp(val, "on") == 0) {
                infer = TB_INFER_ON;
            } else if (strcmp(val, "off") == 0) {
                infer = TB_INFER_OFF;
            } else {
                engine_error(e, "infer must be on or off, got '%s'", val);
                return;
            }
        } else if (strcmp(key, "iterations") == 0 || strcmp(key, "time_ms") == 0 ||
                   strcmp(key, "seed") == 0) {
            if (engine_parse_u64(val, &v) || (strcmp(key, "seed") != 0 && v > INT64_MAX / 1000)) {
                engine_error(e, "%s must be a non-negative number, got '%s'", key, val);
                return;
            }
            if (key[0] == 'i')
                budget.iterations = (int64_t)v;
            else if (key[0] == 't')
                budget.time_ms = (int64_t)v;
            else
                seed = v;
        } else {
            engine_error(e, "unknown genmove key '%s' (keys: %s)", key, GENMOVE_KEYS);
            return;
        }
    }
    if (infer == TB_INFER_ON && tb_role_count(tb_state_game(e->state)) == 0) {
        engine_error(e, "infer=on: %s has no hidden roles to infer", tb_game_title(tb_state_game(e->state)));
        return;
    }
    if (infer == TB_INFER_ON && !e->record) {
        engine_error(e, "infer=on needs the game's history, and a loaded state has none "
                        "(start the game with new)");
        return;
    }
    /* The history: the position before the record's first decision (the
     * states before each decision follow undo, as the record does). */
    const tb_state *start = e->depth > 0 ? e->history[0] : e->state;
    tb_move m = tb_agent_decide_game(agent, e->state, start, e->record, &budget, infer, seed, NULL, NULL);
    char text[TB_MOVE_TEXT];
    tb_move_to_text(e->state, m, text, sizeof text);
    if (!tb_is_legal(e->state, m)) {
        engine_error(e, "agent %s chose an illegal move (%s)", agent->name, text);
        return;
    }
    if (engine_apply(e, m) == 0)
        engine_reply(e, text);
}

/* Every command with its usage and a one-paragraph description (`help`). */
typedef struct engine_command_help {
    const char *name, *usage, *text;
} engine_command_help;

static const engine_command_help engine_commands[] = {
    {"protocol_version", "protocol_version", "The protocol's version: 2."},
    {"list_commands", "list_commands", "Every command, one per line."},
    {"list_games", "list_games", "The game names, separated by spaces."},
    {"help", "help [COMMAND]",
     "Without COMMAND: every command's usage, one per line. With COMMAND: its usage and what it does."},
    {"list_boards", "list_boards GAME",
     "The boards GAME may be played on (default, then those of --data-dir), one per line: NAME HASH."},
    {"new", "new GAME [players=N] [seed=S] [board=NAME] [KEY=VALUE ...]",
     "Deals a new game (players: the game's usual count; seed: 0; board: one of list_boards, default the "
     "built-in one; options per game in docs/rules-GAME.md)."},
    {"legal", "legal [json]",
     "The legal decisions of the seat to move in canonical order, one per line (a decision may contain spaces); "
     "with json, one line holding a JSON array of strings. Empty when the game is over."},
    {"play", "play MOVE", "Plays one decision of the seat to move; an illegal one is refused and changes nothing."},
    {"undo", "undo", "Steps back one decision."},
    {"to_move", "to_move", "The seat to decide (0-based), or over."},
    {"view", "view [SEAT]", "One line of JSON: what SEAT sees (without SEAT: a spectator)."},
    {"state", "state", "One line of JSON: the whole state, secrets included."},
    {"load", "load JSON", "Replaces the game with a state printed by state; the undo history starts afresh."},
    {"scores", "scores", "One line of JSON: the current score per seat."},
    {"result", "result", "One line of JSON: final scores, ranks, winners and each seat's score broken down by source (only when the game is over)."},
    {"genmove", "genmove [agent=NAME] [iterations=N] [time_ms=T] [seed=S] [infer=on|off]",
     "Asks an agent (random, greedy, ismcts) for the decision of the seat to move, plays it and prints it. "
     "infer: whether the search deals hidden roles (Clans's colours) by what play since new has shown "
     "(default: where it was measured to win, docs/ai.md)."},
    {"record", "record", "One line of JSON: the game record (none after load)."},
    {"quit", "quit", "Ends the session."},
};
#define ENGINE_COMMAND_COUNT (sizeof engine_commands / sizeof *engine_commands)

static void cmd_help(engine_session *e, const char *args)
{
    char buf[2048] = "";
    for (size_t i = 0; i < ENGINE_COMMAND_COUNT; i++) {
        const engine_command_help *c = &engine_commands[i];
        size_t used = strlen(buf);
        if (!*args)
            snprintf(buf + used, sizeof buf - used, "%s%s", i ? "\n" : "", c->usage);
        else if (strcmp(args, c->name) == 0)
            snprintf(buf, sizeof buf, "%s\n%s", c->usage, c->text);
    }
    if (!buf[0]) {
        engine_error(e, "unknown command '%.60s' (list_commands shows them)", args);
        return;
    }
    engine_reply(e, buf);
}

/* `legal`: one decision per line, or a JSON array of the same texts. */
static void cmd_legal(engine_session *e, const char *args)
{
    if (!engine_need_game(e))
        return;
    if (!*args) {
        engine_reply_owned(e, tb_legal_text(e->state));
        return;
    }
    if (strcmp(args, "json") != 0) {
        engine_error(e, "usage: legal [json]");
        return;
    }
    tb_move moves[TB_MAX_MOVES];
    int n = tb_legal(e->state, moves);
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        char t[TB_MOVE_TEXT];
        tb_move_to_text(e->state, moves[i], t, sizeof t);
        json_array_append_new(arr, json_string(t));
    }
    char *text = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    if (!text) {
        engine_error(e, "out of memory listing the decisions; nothing changed");
        return;
    }
    engine_reply_owned(e, text);
}

/* Runs one command line; returns false on quit. */
static bool engine_command(engine_session *e, char *line)
{
    char *args = line;
    while (*args && !isspace((unsigned char)*args))
        args++;
    if (*args)
        *args++ = '\0';
    while (isspace((unsigned char)*args))
        args++;
    const char *cmd = line;
    bool no_args = !*args;
#define NO_ARGS()                                                                 \
    do {                                                                          \
        if (!no_args) {                                                           \
            engine_error(e, "'%s' takes no arguments", cmd);                      \
            return true;                                                          \
        }                                                                         \
    } while (0)
    if (strcmp(cmd, "protocol_version") == 0) {
        NO_ARGS();
        engine_reply(e, "2");
    } else if (strcmp(cmd, "list_commands") == 0) {
        NO_ARGS();
        char buf[512] = "";
        for (size_t i = 0; i < ENGINE_COMMAND_COUNT; i++) {
            size_t used = strlen(buf);
            snprintf(buf + used, sizeof buf - used, "%s%s", i ? "\n" : "", engine_commands[i].name);
        }
        engine_reply(e, buf);
    } else if (strcmp(cmd, "list_games") == 0) {
        NO_ARGS();
        char buf[256] = "";
        for (int i = 0; i < tb_game_count(); i++) {
            size_t used = strlen(buf);
            snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "", tb_game_name(tb_game_at(i)));
        }
        engine_reply(e, buf);
    } else if (strcmp(cmd, "list_boards") == 0) {
        cmd_list_boards(e, args);
    } else if (strcmp(cmd, "new") == 0) {
        cmd_new(e, args);
    } else if (strcmp(cmd, "help") == 0) {
        cmd_help(e, args);
    } else if (strcmp(cmd, "legal") == 0) {
        cmd_legal(e, args);
    } else if (strcmp(cmd, "play") == 0) {
        cmd_play(e, args);
    } else if (strcmp(cmd, "undo") == 0) {
        NO_ARGS();
        cmd_undo(e);
    } else if (strcmp(cmd, "to_move") == 0) {
        NO_ARGS();
        if (engine_need_game(e)) {
            char buf[16];
            int tm = tb_to_move(e->state);
            snprintf(buf, sizeof buf, tm == TB_OVER ? "over" : "%d", tm);
            engine_reply(e, buf);
        }
    } else if (strcmp(cmd, "view") == 0) {
        cmd_view(e, args);
    } else if (strcmp(cmd, "state") == 0) {
        NO_ARGS();
        if (engine_need_game(e))
            engine_reply_owned(e, tb_state_json(e->state));
    } else if (strcmp(cmd, "load") == 0) {
        cmd_load(e, args);
    } else if (strcmp(cmd, "scores") == 0) {
        NO_ARGS();
        cmd_scores(e);
    } else if (strcmp(cmd, "result") == 0) {
        NO_ARGS();
        if (!engine_need_game(e))
            return true;
        if (!tb_is_over(e->state))
            engine_error(e, "the game is not over");
        else
            engine_reply_owned(e, tb_result_breakdown_json(e->state));
    } else if (strcmp(cmd, "genmove") == 0) {
        cmd_genmove(e, args);
    } else if (strcmp(cmd, "record") == 0) {
        NO_ARGS();
        if (!engine_need_game(e))
            return true;
        if (!e->record)
            engine_error(e, "no record: this game was loaded from a state, not dealt from a seed");
        else
            engine_reply_owned(e, tb_record_json(e->record, e->state));
    } else if (strcmp(cmd, "quit") == 0) {
        NO_ARGS();
        engine_reply(e, "");
        return false;
    } else {
        engine_error(e, "unknown command '%.*s' (list_commands shows them)", TB__CLIP(cmd, 60));
    }
#undef NO_ARGS
    return true;
}

int tb_engine_run(FILE *in, FILE *out, uint64_t (*now_us)(void), const tb_data_set *boards)
{
    engine_session e = {.out = out, .now_us = now_us, .boards = boards};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool running = true;
    while (running && (len = getline(&line, &cap, in)) >= 0) {
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        if (strlen(p) != (size_t)(len - (p - line))) {
            engine_error(&e, "the line contains a NUL byte");
            continue;
        }
        running = engine_command(&e, p);
    }
    free(line);
    engine_clear_history(&e);
    free(e.history);
    tb_state_free(e.state);
    tb_record_free(e.record);
    return 0;
}
