/*
 * room.c — one live game: the referee.  A room holds the true state, the
 * record and the seats; it validates every decision, writes it to the store,
 * and only then applies it, acknowledges it and pushes each connection the
 * position as its own seat may see it.  It also turns requests into rooms
 * (POST /api/games) and stored games back into rooms (restart, replays).
 *
 * Invariants (with roomsInt.h's locking rules):
 *   - state, record and log always agree: decision k of the record was made
 *     by log[k-1].seat and is row k of the store's decisions; the state is
 *     the record replayed from its seed;
 *   - a decision that fails any check, or whose store write fails, changes
 *     nothing and is answered with an error message;
 *   - a connection receives only tb_view_json of its own seat, the legal
 *     decisions and the prompt only when it is that seat's turn, decisions
 *     in canonical text (which by the tabula.h contract encode no secret),
 *     and results; the seed leaves only in records of finished games;
 *   - an AI seat to move has exactly one job queued or running (ai_queued).
 */
#include "roomsInt.h"
#include "core/msg.h"
#include "core/text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const room_levels[] = {"easy", "normal", "hard"};

/* What an AI job does (srv_ai_schedule's kind): the computer's decision, a
 * hint, or the deduction aid of seat k (ROOM_JOB_DEDUCE + k). */
enum { ROOM_JOB_MOVE = 0, ROOM_JOB_HINT = 1, ROOM_JOB_DEDUCE = 2 };
#define ROOM_LEVEL_COUNT ((int)(sizeof room_levels / sizeof room_levels[0]))

/* ---- small helpers ---- */

/* What a room says to a client goes through the client's own operations
 * (rooms.h): the room does not know what carries it. */
static void room_send(srv_client *c, char *text)
{
    c->ops->send(c, text);
}

static void room_send_json(srv_client *c, json_t *msg) /* steals msg */
{
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    room_send(c, text);
}

/* An error message to one connection (roomsInt.h). */
void srv_client_error_msg(srv_client *c, const json_t *id, const char *code, json_t *msg)
{
    char *text = tb__msg_text(msg, NULL, NULL);
    json_t *e = text ? json_pack("{s:s,s:s,s:s}", "type", "error", "code", code, "message", text)
                     : NULL;
    free(text);
    if (e && id)
        json_object_set(e, "id", (json_t *)id);
    if (e)
        json_object_set(e, "msg", msg);
    char *out = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    json_decref(msg);
    room_send(c, out ? out : srv_internal_error("an error message"));
}

void srv_client_error(srv_client *c, const json_t *id, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    room_send(c, srv_error_message(id, code, fmt, ap));
    va_end(ap);
}

/* A request that would change a game another server instance plays now
 * (or one being read again): refused, nothing changed. */
static void room_elsewhere(srv_client *c, const json_t *id)
{
    srv_client_error(c, id, "elsewhere",
                     "another server instance plays this game now, so nothing changed; "
                     "open the game again to follow it");
}

bool srv_room_refuse_locked(srv_room *r, srv_client *c, const json_t *id, int seat,
                            const char *spectator_why)
{
    if (seat < 0)
        srv_client_error(c, id, "spectator", "%s", spectator_why);
    else if (atomic_load(&r->away))
        room_elsewhere(c, id);
    else if (!r->state || r->broken[0])
        srv_client_error(c, id, "broken", "this game cannot continue: %s", r->broken);
    else
        return false;
    return true;
}

static void room_client_unref(srv_client *c)
{
    c->ops->unref(c);
}

/* A view or result text the library made, as a tree; no text, or one that
 * does not read back, is memory that ran out: the answer being built then
 * fails as a whole (tb__json_oom) rather than carry a null. */
static json_t *room_parse_view(char *text)
{
    json_error_t jerr;
    json_t *j = text ? tb__json_loads(text, 0, &jerr) : NULL;
    free(text);
    if (!j)
        tb__json_oom = true;
    return j ? j : json_null();
}

bool srv_room_over_locked(const srv_room *r)
{
    return r->conceded || tb_is_over(r->state);
}

static char *room_result(const srv_room *r)
{
    return srv_seats_result_changed(r) ? srv_seats_result_json(r, srv_room_over_locked(r))
                                       : tb_result_breakdown_json(r->state);
}

static const char *room_status(const srv_room *r)
{
    if (r->broken[0] || !r->state)
        return "broken";
    if (srv_room_over_locked(r))
        return "over";
    for (int i = 0; i < r->players; i++)
        if (r->seat[i].kind == SRV_HUMAN && !r->seat[i].joined)
            return "open";
    return "running";
}

bool srv_room_running(srv_room *r)
{
    pthread_mutex_lock(&r->lock);
    bool running = r->state && !r->broken[0] && !srv_room_over_locked(r) && !atomic_load(&r->deleted);
    pthread_mutex_unlock(&r->lock);
    return running;
}

/* The players' names, for the log's sentences. */
static void room_names(const srv_room *r, const char *names[TB_MAX_SEATS])
{
    for (int i = 0; i < TB_MAX_SEATS; i++)
        names[i] = i < r->players && r->seat[i].name[0] ? r->seat[i].name : NULL;
}

/* What decision k (0-based, about to be applied to `before`) did, in words. */
static void room_log_words(srv_room *r, int k, const tb_state *before, tb_move m)
{
    if (!r->log || k >= r->log_cap)
        return;
    const char *names[TB_MAX_SEATS];
    room_names(r, names);
    char said[600];
    tb_narrate(before, m, names, said, sizeof said);
    srv_seats_log_words(r, k, said, sizeof said); /* "Anna was away; the computer plays …" */
    tb_stage_text(before, r->log[k].stage, sizeof r->log[k].stage);
    free(r->log[k].said);
    r->log[k].said = strdup(said); /* NULL (out of memory): the log shows the notation */
    /* the same words as messages, for each reader's language (said_msg, stage_msg) */
    char *narration = tb_narrate_json(before, m, names);
    json_t *msg = srv_seats_log_msg(r, k, narration ? json_loads(narration, 0, NULL) : NULL);
    free(narration);
    free(r->log[k].said_msg);
    r->log[k].said_msg = msg && r->log[k].said ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    free(r->log[k].stage_msg);
    r->log[k].stage_msg = r->log[k].said_msg ? tb_stage_json(before) : NULL;
}

/* The words of every decision of a game read back from the store: one pass
 * over the record from the start. */
static void room_log_words_all(srv_room *r)
{
    char why[TB_ERR_LEN];
    tb_state *s = tb_record_replay_in(r->record, 0, r->rooms->cfg.boards, why, sizeof why);
    for (int k = 0; s && k < tb_record_length(r->record); k++) {
        tb_move m;
        if (tb_text_to_move(s, tb_record_move(r->record, k), &m, why, sizeof why) ||
            !tb_is_legal(s, m))
            break;
        room_log_words(r, k, s, m);
        tb_apply(s, m);
    }
    tb_state_free(s);
}

/* Room in the log for n decisions; -1 when memory runs out (the log as it
 * was).  A decision is only taken in once its entry has room. */
static int room_log_reserve(srv_room *r, int n)
{
    if (n <= r->log_cap)
        return 0;
    int cap = r->log_cap ? r->log_cap * 2 : 64;
    while (cap < n)
        cap *= 2;
    srv_log_entry *l = realloc(r->log, (size_t)cap * sizeof *l);
    if (!l) {
        srv_log(&r->rooms->cfg, "game %s: out of memory for the decision log", r->id);
        return -1;
    }
    r->log = l;
    r->log_cap = cap;
    return 0;
}

/* The log entry of the record's last decision; -1 (nothing written) when
 * memory runs out. */
static int room_log_push(srv_room *r, int seat, bool by_ai)
{
    int n = tb_record_length(r->record);
    if (room_log_reserve(r, n))
        return -1;
    r->log[n - 1].seat = (int8_t)seat;
    r->log[n - 1].by_ai = by_ai;
    r->log[n - 1].stage[0] = '\0';
    r->log[n - 1].said = NULL;
    r->log[n - 1].said_msg = NULL;
    r->log[n - 1].stage_msg = NULL;
    r->log[n - 1].reveals_known = false;
    return 0;
}

static json_t *room_log_entry(const srv_room *r, int k) /* k: 0-based */
{
    /* the members in the order of the state message's "last" */
    json_t *e = json_pack("{s:i,s:i,s:s}", "n", k + 1, "seat", r->log[k].seat, "move",
                          tb_record_move(r->record, k));
    if (e && r->log[k].said) {
        json_object_set_new(e, "said", json_string(r->log[k].said));
        json_object_set_new(e, "stage", json_string(r->log[k].stage));
        json_t *said_msg = r->log[k].said_msg ? json_loads(r->log[k].said_msg, 0, NULL) : NULL;
        json_t *stage_msg = r->log[k].stage_msg ? json_loads(r->log[k].stage_msg, 0, NULL) : NULL;
        if (said_msg && stage_msg) {
            json_object_set_new(e, "said_msg", said_msg);
            json_object_set_new(e, "stage_msg", stage_msg);
        } else {
            json_decref(said_msg);
            json_decref(stage_msg);
        }
    }
    if (e)
        json_object_set_new(e, "by", json_string(r->log[k].by_ai ? "ai" : "human"));
    return e;
}

static json_t *room_log_json(const srv_room *r)
{
    json_t *a = json_array();
    for (int k = 0; r->record && k < tb_record_length(r->record); k++)
        json_array_append_new(a, room_log_entry(r, k));
    return a;
}

/* Resolves an AI seat's level to an agent and budget.  A level whose agent
 * is not built in falls back to the random agent, with a note saying so. */
static int room_resolve_ai(const tb_game *game, srv_seat *seat, const char *level, char *err,
                           size_t errlen)
{
    const tb_agent *agent = NULL;
    tb_budget budget = {0};
    seat->note[0] = '\0';
    if (tb_level_lookup(game, level, &agent, &budget) == 0) {
        seat->agent = agent;
        seat->budget = budget;
        return 0;
    }
    for (int i = 0; i < ROOM_LEVEL_COUNT; i++) {
        if (strcmp(level, room_levels[i]) == 0) {
            seat->agent = tb_agent_find("random");
            memset(&seat->budget, 0, sizeof seat->budget);
            snprintf(seat->note, sizeof seat->note,
                     "level '%s' needs a search agent this build does not have yet: "
                     "this seat plays random legal moves",
                     level);
            return seat->agent ? 0 : -1;
        }
    }
    agent = tb_agent_find(level);
    if (agent) {
        seat->agent = agent;
        if (tb_level_lookup(game, "normal", &agent, &seat->budget) != 0)
            memset(&seat->budget, 0, sizeof seat->budget);
        return 0;
    }
    char known[256] = "easy, normal, hard";
    for (int i = 0; i < tb_agent_count(); i++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, ", %s", tb_agent_at(i)->name);
    }
    snprintf(err, errlen, "unknown level '%s' (levels: %s)", level, known);
    return -1;
}

static json_t *room_seat_json(const srv_room *r, int i)
{
    const srv_seat *st = &r->seat[i];
    json_t *o = json_pack("{s:i,s:s,s:s,s:b,s:b}", "seat", i, "kind",
                          st->kind == SRV_AI ? "ai" : "human", "name", st->name, "joined",
                          st->joined, "connected", st->connected > 0);
    if (st->kind == SRV_AI) {
        json_object_set_new(o, "level", json_string(st->level));
        json_object_set_new(o, "agent", json_string(st->agent ? st->agent->name : "none"));
        json_object_set_new(o, "connected", json_true());
        if (st->note[0])
            json_object_set_new(o, "note", json_string(st->note));
    }
    srv_seats_seat_json(st, o); /* open, resigned, away */
    return o;
}

json_t *srv_room_seat_json_locked(const srv_room *r, int seat)
{
    return room_seat_json(r, seat);
}

static json_t *room_summary_locked(const srv_room *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "id", json_string(r->id));
    const char *gname = r->game ? tb_game_name(r->game) : "unknown";
    json_object_set_new(j, "game", json_string(gname));
    json_object_set_new(j, "title", json_string(r->game ? tb_game_title(r->game) : gname));
    /* whether seats hold secret roles (Clans's colours): the deduction aid applies */
    json_object_set_new(j, "secret_roles", json_boolean(r->game && tb_role_count(r->game) > 0));
    json_object_set_new(j, "players", json_integer(r->players));
    json_object_set_new(j, "status", json_string(room_status(r)));
    json_object_set_new(j, "created", json_string(r->created));
    json_object_set_new(j, "finished", r->finished[0] ? json_string(r->finished) : json_null());
    json_object_set_new(j, "decisions",
                        json_integer(r->record ? tb_record_length(r->record) : 0));
    int to = r->state && !r->broken[0] && !r->conceded ? tb_to_move(r->state) : TB_OVER;
    json_object_set_new(j, "to_move", to >= 0 ? json_integer(to) : json_null());
    json_t *opts = json_object();
    for (int i = 0; i < r->options.count; i++)
        json_object_set_new(opts, r->options.item[i].key, json_string(r->options.item[i].value));
    json_object_set_new(j, "options", opts);
    /* the board the game is played on (games with loadable data), by name */
    const char *board = r->record ? tb_record_data_name(r->record) : NULL;
    json_object_set_new(j, "board", board ? json_string(board) : json_null());
    json_t *seats = json_array();
    for (int i = 0; i < r->players; i++)
        json_array_append_new(seats, room_seat_json(r, i));
    json_object_set_new(j, "seats", seats);
    srv_seats_summary_json(r, j);
    json_t *winners = json_null();
    if (to == TB_OVER && srv_seats_result_changed(r)) {
        winners = srv_seats_winners(r);
    } else if (to == TB_OVER && r->state && !r->broken[0]) {
        int ranks[TB_MAX_SEATS];
        tb_ranks(r->state, ranks);
        winners = json_array();
        for (int i = 0; i < r->players; i++)
            if (ranks[i] == 1)
                json_array_append_new(winners, json_integer(i));
    }
    json_object_set_new(j, "winners", winners);
    /* the game's notice is about its built-in data: not shown for another board */
    bool builtin = !board || strcmp(board, TB_DATA_DEFAULT) == 0;
    const char *notice = r->game && builtin ? tb_game_notice(r->game) : NULL;
    json_object_set_new(j, "notice", notice ? json_string(notice) : json_null());
    if (r->broken[0])
        json_object_set_new(j, "error", json_string(r->broken));
    return j;
}

json_t *srv_room_summary(srv_room *r)
{
    pthread_mutex_lock(&r->lock);
    json_t *j = room_summary_locked(r);
    pthread_mutex_unlock(&r->lock);
    return j;
}

json_t *srv_row_summary(const srv_game_row *row)
{
    const tb_game *g = tb_game_find(row->game);
    json_t *j = json_object();
    json_object_set_new(j, "id", json_string(row->id));
    json_object_set_new(j, "game", json_string(row->game));
    json_object_set_new(j, "title", json_string(g ? tb_game_title(g) : row->game));
    json_object_set_new(j, "secret_roles", json_boolean(g && tb_role_count(g) > 0));
    json_object_set_new(j, "players", json_integer(row->players));
    /* As a room would say: "open" while some person has not joined yet. */
    const char *status = row->status;
    for (int i = 0; strcmp(status, "running") == 0 && i < row->players && i < TB_MAX_SEATS; i++)
        if (strcmp(row->seat[i].kind, "human") == 0 && !row->seat[i].joined)
            status = "open";
    json_object_set_new(j, "status", json_string(status));
    json_object_set_new(j, "created", json_string(row->created));
    json_object_set_new(j, "finished", row->finished[0] ? json_string(row->finished) : json_null());
    json_object_set_new(j, "decisions", json_integer(row->decisions));
    json_object_set_new(j, "to_move", json_null());
    json_t *seats = json_array();
    for (int i = 0; i < row->players && i < TB_MAX_SEATS; i++) {
        const srv_seat_row *s = &row->seat[i];
        json_t *o = json_pack("{s:i,s:s,s:s,s:b,s:b}", "seat", i, "kind", s->kind, "name",
                              s->name, "joined", s->joined, "connected", false);
        if (strcmp(s->kind, "ai") == 0)
            json_object_set_new(o, "level", json_string(s->level));
        srv_seats_row_seat_json(s, o);
        json_array_append_new(seats, o);
    }
    json_object_set_new(j, "seats", seats);
    srv_seats_row_summary_json(row, j);
    json_error_t jerr;
    json_t *res = row->result ? tb__json_loads(row->result, 0, &jerr) : NULL;
    if (row->result && !res && tb__json_no_memory(&jerr))
        tb__json_oom = true; /* the summary is not sent without its winners */
    json_object_set_new(j, "winners", json_is_object(res) ? json_incref(json_object_get(res, "winners"))
                                                          : json_null());
    json_decref(res);
    return j;
}

/* The text of a message (steals j).  Never NULL: when the message cannot
 * be built (a NULL from json_pack, no memory) the reply says so instead,
 * and the failure is logged by the caller's error path, never fatal. */
/* A growing text for messages written straight from the state (the
 * hottest path of the server: two of these per decision).  Out of memory
 * marks it failed; room_text_take then returns NULL. */
typedef struct room_text {
    char *data;
    size_t len, cap;
    bool failed;
} room_text;

static void room_text_put(room_text *t, const char *p, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d) {
            t->failed = true;
            return;
        }
        t->data = d;
        t->cap = cap;
    }
    memcpy(t->data + t->len, p, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void room_text_raw(room_text *t, const char *p)
{
    room_text_put(t, p, strlen(p));
}

/* A JSON string: quotes, backslashes and control characters escaped (the
 * texts are valid UTF-8: the library's own notation and prompts). */
static void room_text_str(room_text *t, const char *p)
{
    room_text_put(t, "\"", 1);
    const char *run = p;
    for (; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch >= 0x20 && ch != '"' && ch != '\\')
            continue;
        room_text_put(t, run, (size_t)(p - run));
        char esc[8];
        snprintf(esc, sizeof esc, ch == '"' ? "\\\"" : ch == '\\' ? "\\\\" : "\\u%04x", ch);
        room_text_raw(t, esc);
        run = p + 1;
    }
    room_text_put(t, run, (size_t)(p - run));
    room_text_put(t, "\"", 1);
}

static void room_text_int(room_text *t, long v)
{
    char num[24];
    snprintf(num, sizeof num, "%ld", v);
    room_text_raw(t, num);
}

static char *room_text_take(room_text *t)
{
    if (t->failed || !t->data) {
        free(t->data);
        return NULL;
    }
    return t->data;
}

/* The state message for one seat (-1: spectator) as text, written straight
 * from the state: the view (the bulk of it) as the library wrote it, the
 * legal decisions and the prompt only on the seat's turn. */
static char *room_state_text(srv_room *r, int seat)
{
    room_text t = {0};
    room_text_raw(&t, "{\"type\":\"state\",\"game\":");
    room_text_str(&t, r->id);
    room_text_raw(&t, ",\"status\":");
    room_text_str(&t, room_status(r));
    if (!r->state || r->broken[0]) {
        room_text_raw(&t, ",\"error\":");
        room_text_str(&t, r->broken);
        room_text_raw(&t, "}");
        return room_text_take(&t);
    }
    int n = tb_decisions_made(r->state);
    int to = r->conceded ? TB_OVER : tb_to_move(r->state);
    bool mine = seat >= 0 && to == seat && !r->seat[seat].resigned;
    room_text_raw(&t, ",\"n\":");
    room_text_int(&t, n);
    room_text_raw(&t, ",\"to_move\":");
    if (to >= 0)
        room_text_int(&t, to);
    else
        room_text_raw(&t, "null");
    room_text_raw(&t, mine ? ",\"your_turn\":true" : ",\"your_turn\":false");
    room_text_raw(&t, ",\"thinking\":");
    if (to >= 0 && srv_seats_computer_plays(r, to))
        room_text_int(&t, to);
    else
        room_text_raw(&t, "null");
    room_text_raw(&t, ",\"last\":");
    if (n > 0 && r->log && n <= r->log_cap && n <= tb_record_length(r->record)) {
        room_text_raw(&t, "{\"n\":");
        room_text_int(&t, n);
        room_text_raw(&t, ",\"seat\":");
        room_text_int(&t, r->log[n - 1].seat);
        room_text_raw(&t, ",\"move\":");
        room_text_str(&t, tb_record_move(r->record, n - 1));
        if (r->log[n - 1].said) {
            room_text_raw(&t, ",\"said\":");
            room_text_str(&t, r->log[n - 1].said);
            room_text_raw(&t, ",\"stage\":");
            room_text_str(&t, r->log[n - 1].stage);
            if (r->log[n - 1].said_msg && r->log[n - 1].stage_msg) { /* JSON texts already */
                room_text_raw(&t, ",\"said_msg\":");
                room_text_raw(&t, r->log[n - 1].said_msg);
                room_text_raw(&t, ",\"stage_msg\":");
                room_text_raw(&t, r->log[n - 1].stage_msg);
            }
        }
        room_text_raw(&t, r->log[n - 1].by_ai ? ",\"by\":\"ai\"}" : ",\"by\":\"human\"}");
    } else {
        room_text_raw(&t, "null");
    }
    if (mine) {
        tb_move moves[TB_MAX_MOVES];
        int count = tb_legal(r->state, moves);
        room_text_raw(&t, ",\"legal\":[");
        char text[TB_MOVE_TEXT];
        for (int i = 0; i < count; i++) {
            tb_move_to_text(r->state, moves[i], text, sizeof text);
            if (i)
                room_text_put(&t, ",", 1);
            room_text_str(&t, text);
        }
        char prompt[512];
        tb_prompt_text(r->state, prompt, sizeof prompt);
        room_text_raw(&t, "],\"prompt\":");
        room_text_str(&t, prompt);
        /* Whether undo and take back would be accepted now (undo.c), and
         * why not: the buttons follow the server's rule. */
        int keep;
        const char *code;
        char why[300];
        json_t *why_msg = NULL;
        bool undo = srv_undo_check(r, seat, &keep, &code, why, sizeof why, &why_msg) == 0;
        room_text_raw(&t, undo ? ",\"can_undo\":true" : ",\"can_undo\":false");
        if (!undo && strcmp(code, "nothing_to_undo") != 0) {
            room_text_raw(&t, ",\"undo_why\":");
            room_text_str(&t, why);
            char *why_json = why_msg ? json_dumps(why_msg, JSON_COMPACT) : NULL;
            if (why_json) { /* the same words as a message (undo_why_msg) */
                room_text_raw(&t, ",\"undo_why_msg\":");
                room_text_raw(&t, why_json);
            }
            free(why_json);
        }
        json_decref(why_msg);
        bool back = srv_takeback_check(r, seat, &keep, NULL, &code, why, sizeof why, NULL) == 0;
        room_text_raw(&t, back ? ",\"can_take_back\":true" : ",\"can_take_back\":false");
    }
    if (srv_room_over_locked(r)) {
        char *result = room_result(r);
        room_text_raw(&t, ",\"result\":");
        room_text_raw(&t, result ? result : "null");
        free(result);
    }
    char *view = tb_view_json(r->state, seat);
    room_text_raw(&t, ",\"view\":");
    room_text_raw(&t, view ? view : "null");
    room_text_raw(&t, "}");
    free(view);
    if (!view)
        t.failed = true;
    char *out = room_text_take(&t);
    return out ? out : srv_internal_error("a state message");
}

/* Sends every connection its seat's state, built once per seat. */
static void room_broadcast_state(srv_room *r)
{
    char *msg[TB_MAX_SEATS + 1] = {0}; /* index seat + 1 */
    for (int i = 0; i < r->nclients; i++) {
        srv_client *c = r->clients[i];
        int seat = c->seat;
        if (!msg[seat + 1])
            msg[seat + 1] = room_state_text(r, seat);
        room_send(c, strdup(msg[seat + 1]));
    }
    for (int i = 0; i <= TB_MAX_SEATS; i++)
        free(msg[i]);
}

static void room_broadcast(srv_room *r, json_t *msg) /* steals msg */
{
    char *text = srv_json_text(msg);
    for (int i = 0; i < r->nclients; i++)
        room_send(r->clients[i], strdup(text));
    free(text);
}

static json_t *room_presence(const srv_room *r)
{
    json_t *seats = json_array();
    for (int i = 0; i < r->players; i++)
        json_array_append_new(seats, json_pack("{s:i,s:b,s:b}", "seat", i, "connected",
                                               r->seat[i].kind == SRV_AI || r->seat[i].connected > 0,
                                               "joined", r->seat[i].joined));
    int spectators = 0;
    for (int i = 0; i < r->nclients; i++)
        spectators += r->clients[i]->seat < 0;
    return json_pack("{s:s,s:o,s:i}", "type", "presence", "seats", seats, "spectators", spectators);
}

/* Forgets every seat's deduction (room locked): the history changed. */
static void room_deduce_forget(srv_room *r)
{
    for (int i = 0; i < TB_MAX_SEATS; i++) {
        free(r->deduce_text[i]);
        r->deduce_text[i] = NULL;
        r->deduce_n[i] = -1;
    }
}

/* Queues the AI seat to move, if any (room locked). */
static void room_queue_ai(srv_room *r)
{
    if (!r->state || r->broken[0] || srv_room_over_locked(r) || r->ai_queued ||
        r->commit_pending || atomic_load(&r->away))
        return;
    int to = tb_to_move(r->state);
    if (to < 0 || !srv_seats_computer_plays(r, to) || srv_seats_waiting(r))
        return;
    /* the pause is once a turn, before the computer's first decision: the
     * rest of its turn follows at once, and each page plays the turn out at
     * its player's pace (web/js/pacing.js) */
    int made = r->record ? tb_record_length(r->record) : 0;
    bool same_turn = made > 0 && r->log && r->log[made - 1].seat == to && r->log[made - 1].by_ai;
    int ms = same_turn ? r->rooms->cfg.ai_step_ms : r->rooms->cfg.ai_delay_ms;
    uint64_t delay = (uint64_t)(ms > 0 ? ms : 0);
    r->ai_queued = srv_ai_schedule(r->rooms->ai, r, ROOM_JOB_MOVE, tb_decisions_made(r->state),
                                   srv_now_us() + delay * 1000u) == 0;
    if (!r->ai_queued) /* out of memory: the next decision or a restart queues it */
        srv_log(&r->rooms->cfg, "game %s: cannot queue the computer's move", r->id);
}

/* The computer could not decide or send its decision for want of memory
 * (room locked): it tries again in a second, the position unchanged. */
static void room_ai_retry(srv_room *r, int expect)
{
    if (atomic_load(&r->away))
        return;
    r->ai_queued = srv_ai_schedule(r->rooms->ai, r, ROOM_JOB_MOVE, expect,
                                   srv_now_us() + 1000000u) == 0;
}

/* Another instance holds the game (room locked): the room stops deciding
 * and every connection hears where the game went. */
static void room_set_away_locked(srv_room *r, const char *owner)
{
    if (atomic_exchange(&r->away, true))
        return;
    if (r->state && !r->broken[0] && !srv_room_over_locked(r))
        atomic_fetch_sub(&r->rooms->running, 1);
    char msg[400];
    if (owner && *owner)
        snprintf(msg, sizeof msg,
                 "another server instance plays this game now, at %.*s: open the game there",
                 TB__CLIP(owner, 200));
    else
        snprintf(msg, sizeof msg,
                 "another server instance plays this game now: open the game again to follow it");
    json_t *e = json_pack("{s:s,s:s,s:s}", "type", "error", "code", "elsewhere", "message", msg);
    if (owner && *owner)
        json_object_set_new(e, "address", json_string(owner));
    room_broadcast(r, e);
}

void srv_room_set_away(srv_room *r, const char *owner)
{
    pthread_mutex_lock(&r->lock);
    room_set_away_locked(r, owner);
    pthread_mutex_unlock(&r->lock);
}

static void room_finish(srv_room *r);

void srv_room_refresh_locked(srv_room *r)
{
    room_broadcast_state(r);
    room_broadcast(r, room_presence(r));
    room_queue_ai(r);
}

void srv_room_broadcast_locked(srv_room *r, json_t *msg)
{
    room_broadcast(r, msg);
}

void srv_room_finish_locked(srv_room *r)
{
    room_finish(r);
}

/* Records the end of a game in the record and the store (room locked). */
static void room_finish(srv_room *r)
{
    if (!r->finished[0])
        srv_iso_now(r->finished);
    tb_record_set_times(r->record, r->created, r->finished);
    char *result = room_result(r); /* NULL (no memory): the end is stored all the same */
    if (!result)
        srv_log(&r->rooms->cfg, "game %s: out of memory for its result; the end is stored without",
                r->id);
    char err[TB_ERR_LEN];
    if (r->rooms->store->m->game_finish(r->rooms->store, r->id, r->finished, result, err,
                                          sizeof err))
        srv_log(&r->rooms->cfg, "game %s: %s (the game is finished again at restart)", r->id, err);
    free(result);
}

/* The ack of decision n (`move`), or of an undo that keeps n decisions
 * (`undo`), echoing the request's id; NULL when memory runs out. */
static char *room_ack_text(json_t *id, int n, const char *move, bool undo)
{
    json_t *ack = undo ? json_pack("{s:s,s:b,s:i}", "type", "ack", "undo", true, "n", n)
                       : json_pack("{s:s,s:i,s:s}", "type", "ack", "n", n, "move", move);
    if (ack)
        json_object_set(ack, "id", id ? id : json_null());
    char *text = ack ? json_dumps(ack, JSON_COMPACT) : NULL;
    json_decref(ack);
    return text;
}

/* The one way a decision enters a game (room locked): checked already, it
 * goes to the store writer (commit.c); srv_room_committed applies it once
 * it is stored.  0 when it is on its way; otherwise the sender (if any) has
 * an error and nothing changed: -2 when memory ran out, -1 otherwise. */
static int room_commit(srv_room *r, int seat, tb_move m, bool by_ai, srv_client *ack_to,
                       json_t *ack_id)
{
    if (atomic_load(&r->away)) { /* another instance holds it, or it is being read again */
        if (ack_to)
            room_elsewhere(ack_to, ack_id);
        return -1;
    }
    if (r->commit_pending) {
        if (ack_to)
            srv_client_error(ack_to, ack_id, "busy",
                              "the previous decision is still being saved; wait for the new "
                              "position, then decide again");
        return -1;
    }
    /* Everything the decision needs once it is stored is made or reserved
     * first (its record entry, its log entry, the sender's ack): taking it in
     * and saying so then cannot fail, so the game in memory never falls
     * behind the store, and a sender told `internal` knows nothing changed. */
    srv_pending *p = calloc(1, sizeof *p);
    if (p)
        tb_move_to_text(r->state, m, p->text, sizeof p->text);
    if (p && ack_to)
        p->ack_text = room_ack_text(ack_id, tb_decisions_made(r->state) + 1, p->text, false);
    if (!p || (ack_to && !p->ack_text) || room_log_reserve(r, tb_decisions_made(r->state) + 1) ||
        tb_record_reserve(r->record, p->text)) {
        if (p)
            free(p->ack_text);
        free(p);
        if (ack_to)
            srv_client_error(ack_to, ack_id, "internal", SRV_INTERNAL_MESSAGE);
        return -2;
    }
    p->room = r;
    p->n = tb_decisions_made(r->state) + 1;
    p->seat = seat;
    p->move = m;
    p->by_ai = by_ai;
    srv_iso_now(p->at);
    if (ack_to) {
        ack_to->ops->ref(ack_to);
        p->ack_to = ack_to;
        p->ack_id = json_incref(ack_id);
    }
    r->commit_pending = true;
    if (srv_committer_push(r->rooms->committer, p) != 0) { /* the server is stopping */
        r->commit_pending = false;
        if (ack_to) {
            srv_client_error(ack_to, ack_id, "stopping",
                              "the server is stopping, so nothing changed; try again when it is back");
            ack_to->ops->unref(ack_to);
        }
        json_decref(p->ack_id);
        free(p->ack_text);
        free(p);
        return -1;
    }
    return 0;
}

/* Undo or take back (room locked, allowed by undo.c): like a decision, the
 * removal goes through the store writer and the room rewinds once it is
 * stored (srv_room_committed).  Takes `note`. */
static void room_commit_undo(srv_room *r, int seat, int keep, char *note, srv_client *ack_to,
                             json_t *ack_id)
{
    if (r->commit_pending) {
        free(note);
        srv_client_error(ack_to, ack_id, "busy",
                          "the previous decision is still being saved; wait for the new "
                          "position, then try again");
        return;
    }
    /* the position it goes back to and the ack, made before the store is
     * asked: once the undo is stored, the room takes it in without fail */
    char why[TB_ERR_LEN];
    srv_pending *p = calloc(1, sizeof *p);
    if (p) {
        p->ack_text = room_ack_text(ack_id, keep, NULL, true);
        p->back = tb_record_replay_in(r->record, keep, r->rooms->cfg.boards, why, sizeof why);
    }
    if (!p || !p->ack_text || !p->back) {
        if (p && !p->back && !strstr(why, "out of memory"))
            srv_log(&r->rooms->cfg, "game %s: going back to decision %d: %s", r->id, keep, why);
        if (p) {
            free(p->ack_text);
            tb_state_free(p->back);
        }
        free(p);
        free(note);
        srv_client_error(ack_to, ack_id, "internal", SRV_INTERNAL_MESSAGE);
        return;
    }
    p->room = r;
    p->undo = true;
    p->keep = keep;
    p->note = note;
    p->n = tb_decisions_made(r->state);
    p->seat = seat;
    srv_iso_now(p->at);
    ack_to->ops->ref(ack_to);
    p->ack_to = ack_to;
    p->ack_id = json_incref(ack_id);
    r->commit_pending = true;
    if (srv_committer_push(r->rooms->committer, p) != 0) {
        r->commit_pending = false;
        srv_client_error(ack_to, ack_id, "stopping",
                          "the server is stopping, so nothing changed; try again when it is back");
        ack_to->ops->unref(ack_to);
        json_decref(p->ack_id);
        free(p->ack_text);
        tb_state_free(p->back);
        free(p->note);
        free(p);
    }
}

/* The store took an undo or take-back (room locked): the room goes back to
 * the position after p->keep decisions and everyone hears it. */
static void room_rewind(srv_room *r, srv_pending *p)
{
    int n = tb_decisions_made(r->state), keep = p->keep;
    if (n != p->n) {
        /* The room was read again from the store meanwhile (its lease came
         * back) and is already where the undo went: stored, so acknowledged. */
        room_send(p->ack_to, p->ack_text);
        p->ack_text = NULL;
        return;
    }
    tb_state *back = p->back; /* replayed before the store was asked */
    p->back = NULL;
    for (int k = keep; k < n; k++) {
        if (r->log && k < r->log_cap) {
            free(r->log[k].said);
            r->log[k].said = NULL;
            free(r->log[k].said_msg);
            r->log[k].said_msg = NULL;
            free(r->log[k].stage_msg);
            r->log[k].stage_msg = NULL;
        }
        tb_record_pop(r->record);
    }
    tb_state_free(r->state);
    r->state = back;
    /* a hint or deduction of a position taken back is for no position now */
    free(r->hint_text);
    r->hint_text = NULL;
    r->hint_n = -1;
    room_deduce_forget(r);
    if (p->note) {
        json_t *note = json_loads(p->note, 0, NULL);
        if (!r->takebacks)
            r->takebacks = json_array();
        if (note && r->takebacks)
            json_array_append(r->takebacks, note);
        json_decref(note);
    }
    char said[200];
    const char *name = r->seat[p->seat].name[0] ? r->seat[p->seat].name : "A player";
    int replies = 0; /* decisions of other seats (the computer's) taken back */
    for (int k = keep; k < n && r->log && k < r->log_cap; k++)
        replies += r->log[k].seat != p->seat;
    if (p->note && replies)
        snprintf(said, sizeof said, "%s took back their last turn and the computer's %s after it "
                 "(%d decision%s in all)", name, replies == 1 ? "reply" : "replies", n - keep,
                 n - keep == 1 ? "" : "s");
    else if (p->note)
        snprintf(said, sizeof said, "%s took back their last turn (%d decision%s)", name, n - keep,
                 n - keep == 1 ? "" : "s");
    else
        snprintf(said, sizeof said, "%s took back a decision", name);
    /* the same words as a message (said_msg: each reader's language) */
    json_t *who = r->seat[p->seat].name[0] ? json_string(name) : tb__msg_word(N_("A player"));
    json_t *said_msg;
    if (p->note && replies)
        said_msg = replies == 1
                       ? tb__msg_plural(NP_("{who} took back their last turn and the computer's reply after it ({n} decision in all)",
                                            "{who} took back their last turn and the computer's reply after it ({n} decisions in all)"),
                                        n - keep, "who:m", who)
                       : tb__msg_plural(NP_("{who} took back their last turn and the computer's replies after it ({n} decision in all)",
                                            "{who} took back their last turn and the computer's replies after it ({n} decisions in all)"),
                                        n - keep, "who:m", who);
    else if (p->note)
        said_msg = tb__msg_plural(NP_("{who} took back their last turn ({n} decision)",
                                      "{who} took back their last turn ({n} decisions)"),
                                  n - keep, "who:m", who);
    else
        said_msg = tb__msg(N_("{who} took back a decision"), "who:m", who);
    room_send(p->ack_to, p->ack_text);
    p->ack_text = NULL;
    json_t *undone = json_pack("{s:s,s:i,s:i,s:i,s:b,s:s}", "type", "undone", "seat", p->seat,
                               "n", keep, "count", n - keep, "take_back", p->note != NULL,
                               "said", said);
    if (undone && said_msg)
        json_object_set_new(undone, "said_msg", said_msg);
    else
        json_decref(said_msg);
    room_broadcast(r, undone);
    room_broadcast_state(r);
    room_queue_ai(r);
}

/* Tells the sender its decision n is stored (and so taken). */
static void room_ack(srv_pending *p)
{
    room_send(p->ack_to, p->ack_text);
    p->ack_text = NULL;
}

void srv_room_committed(srv_pending *p, int stored, const char *why)
{
    srv_room *r = p->room;
    srv_client *ack_to = p->ack_to;
    json_t *ack_id = p->ack_id;
    int n = p->n;
    tb__json_fresh();
    pthread_mutex_lock(&r->lock);
    r->commit_pending = false;
    if (p->undo && stored == 0) {
        room_rewind(r, p);
    } else if (p->undo && stored != 1) {
        if (stored != SRV_STORE_DOWN) /* else the writer said it once for every game */
            srv_log(&r->rooms->cfg, "game %s: taking back to decision %d: %s", r->id, p->keep,
                    why);
        srv_client_error(ack_to, ack_id, "store_failed",
                          "the take-back could not be saved, so nothing changed: %s", why);
    } else if (stored == 1) {
        /* Another instance holds the game now (PostgreSQL): this room is
         * stale; the lease thread finds out where the game went. */
        srv_log(&r->rooms->cfg, "game %s: decision %d: %s", r->id, n, why);
        room_set_away_locked(r, "");
        if (ack_to)
            room_elsewhere(ack_to, ack_id);
    } else if (stored != 0) {
        if (stored != SRV_STORE_DOWN) /* else the writer said it once for every game */
            srv_log(&r->rooms->cfg, "game %s: decision %d: %s", r->id, n, why);
        if (ack_to)
            srv_client_error(ack_to, ack_id, "store_failed",
                              "the decision could not be saved, so nothing changed: %s", why);
        else if (p->by_ai && !atomic_load(&r->away)) /* a computer's: try again in a second */
            r->ai_queued = srv_ai_schedule(r->rooms->ai, r, ROOM_JOB_MOVE, n - 1,
                                           srv_now_us() + 1000000u) == 0;
    } else if (r->state && tb_decisions_made(r->state) == n - 1) {
        tb_state *before = tb_state_dup(r->state); /* for the log's words */
        tb_apply(r->state, p->move);
        /* reserved by room_commit: neither can fail */
        if (tb_record_push(r->record, p->text) || room_log_push(r, p->seat, p->by_ai))
            srv_log(&r->rooms->cfg, "game %s: out of memory for the record of decision %d",
                    r->id, n);
        if (before && tb_record_length(r->record) == n) {
            room_log_words(r, n - 1, before, p->move);
            /* what it revealed, for undo (undo.c): the games' answer is one
             * apply, and here the position before it is at hand */
            if (!p->by_ai)
                srv_undo_note(r, n - 1, before, p->move);
        }
        tb_state_free(before);
        if (srv_room_over_locked(r)) {
            room_finish(r);
            atomic_fetch_sub(&r->rooms->running, 1);
        }
        if (ack_to)
            room_ack(p);
        srv_seats_new_turn(r);
        room_broadcast_state(r);
        room_queue_ai(r);
    } else {
        /* The room was read again from the store meanwhile (its lease came
         * back) and already holds this decision: stored, so acknowledged. */
        if (ack_to)
            room_ack(p);
        room_queue_ai(r);
    }
    pthread_mutex_unlock(&r->lock);
    if (ack_to)
        ack_to->ops->unref(ack_to);
    json_decref(ack_id);
    free(p->ack_text);
    tb_state_free(p->back);
    free(p->note);
    free(p);
}

/* ---- creating games ---- */

/* The stored options column: the options, and under "@board" (no option is
 * called that) the board's name and content hash, so a stored game is only
 * ever replayed on that very board.  Games stored before boards could be
 * chosen have no "@board" and are on the built-in board. */
#define ROOM_BOARD_KEY "@board"

static char *room_options_text(const tb_options *o, const tb_data *data)
{
    json_t *j = json_object();
    bool whole = j != NULL; /* jansson's setters fail quietly: stored whole or not at all */
    for (int i = 0; i < o->count; i++)
        whole &= json_object_set_new(j, o->item[i].key, json_string(o->item[i].value)) == 0;
    if (data)
        whole &= json_object_set_new(j, ROOM_BOARD_KEY,
                                     json_pack("{s:s,s:s}", "name", tb_data_name(data), "hash",
                                               tb_data_hash(data))) == 0;
    char *s = whole ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    return s; /* NULL only when out of memory: the caller refuses the game */
}

/* The board a stored game names (its "@board"; NULL: the built-in one), or
 * NULL with r->broken saying why it cannot be played here. */
static const tb_data *room_stored_board(srv_room *r, const json_t *board)
{
    const tb_data *builtin = tb_data_builtin(r->game);
    if (!board)
        return builtin;
    const char *name = json_string_value(json_object_get(board, "name"));
    const char *hash = json_string_value(json_object_get(board, "hash"));
    if (!name || !hash) {
        snprintf(r->broken, sizeof r->broken, "the stored board is not a name and a hash");
        return NULL;
    }
    const tb_data *d = tb_data_name_ok(name) && builtin
                           ? tb_data_set_find(r->rooms->cfg.boards, r->game, name)
                           : NULL;
    if (!d)
        snprintf(r->broken, sizeof r->broken,
                 "this game was played on the %s board '%.*s', which this server no longer has",
                 tb_game_title(r->game), TB__CLIP(name, 40));
    else if (strcmp(tb_data_hash(d), hash) != 0)
        snprintf(r->broken, sizeof r->broken,
                 "this game was played on another version of the %s board '%.*s' (its file has "
                 "changed since)",
                 tb_game_title(r->game), TB__CLIP(name, 40));
    return r->broken[0] ? NULL : d;
}

static srv_room *room_new(srv_rooms *s)
{
    srv_room *r = calloc(1, sizeof *r);
    if (!r)
        return NULL; /* out of memory: the caller says so */
    r->hint_n = -1;
    for (int i = 0; i < TB_MAX_SEATS; i++)
        r->deduce_n[i] = -1;
    r->rooms = s;
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

/* Builds a new room from a creation request (its game, players, options,
 * board and seats; lobby.c read the rest): 0 with *made (not registered,
 * no keys yet) and the seed, else the HTTP status of *reply. */
int srv_room_make(srv_rooms *s, const json_t *req, srv_room **made, uint64_t *seed_out,
                  char **reply)
{
    int status = 400;
    srv_room *r = NULL;
    const char *key;
    json_t *val;
    *made = NULL;
    const char *gname = json_string_value(json_object_get(req, "game"));
    if (!gname) {
        status = srv_error_reply(reply, 400, "bad_request", "'game' must name a game, e.g. \"clans\"");
        goto done;
    }
    const tb_game *game = tb_game_find(gname);
    if (!game) {
        status = srv_error_reply(reply, 400, "unknown_game", "there is no game '%.*s' (see GET /api/catalog)",
                                  TB__CLIP(gname, 40));
        goto done;
    }
    const json_t *jseats = json_object_get(req, "seats");
    const json_t *jplayers = json_object_get(req, "players");
    if (jseats && !json_is_array(jseats)) {
        status = srv_error_reply(reply, 400, "bad_request", "'seats' must be an array");
        goto done;
    }
    if (jplayers && !json_is_integer(jplayers)) {
        status = srv_error_reply(reply, 400, "bad_request", "'players' must be a whole number");
        goto done;
    }
    json_int_t players = jplayers ? json_integer_value(jplayers)
                         : jseats ? (json_int_t)json_array_size(jseats)
                                  : tb_game_default_players(game);
    if (players < tb_game_min_players(game) || players > tb_game_max_players(game)) {
        status = srv_error_reply(reply, 400, "bad_players", "%s is for %d to %d players, not %lld",
                                  tb_game_title(game), tb_game_min_players(game),
                                  tb_game_max_players(game), (long long)players);
        goto done;
    }
    if (jseats && (json_int_t)json_array_size(jseats) != players) {
        status = srv_error_reply(reply, 400, "bad_seats", "'seats' lists %zu seats for %lld players",
                                  json_array_size(jseats), (long long)players);
        goto done;
    }
    /* the board, by name only: a client never names a file */
    const json_t *jboard = json_object_get(req, "board");
    const tb_data *data = tb_data_builtin(game);
    if (jboard && !json_is_null(jboard)) {
        const char *bname = json_string_value(jboard);
        if (!bname) {
            status = srv_error_reply(reply, 400, "bad_request", "'board' must be a board's name");
            goto done;
        }
        if (!tb_data_builtin(game)) {
            status = srv_error_reply(reply, 400, "unknown_board", "%s has no boards to choose from",
                                      tb_game_title(game));
            goto done;
        }
        data = tb_data_name_ok(bname) ? tb_data_set_find(s->cfg.boards, game, bname) : NULL;
        if (!data) {
            char names[400] = "";
            int nb = s->cfg.boards ? tb_data_set_count(s->cfg.boards, game) : 1;
            for (int k = 0; k < nb; k++) {
                const tb_data *d = s->cfg.boards ? tb_data_set_at(s->cfg.boards, game, k)
                                                 : tb_data_builtin(game);
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", tb_data_name(d));
            }
            status = srv_error_reply(reply, 400, "unknown_board",
                                      "this server has no %s board '%.*s' (boards: %s)",
                                      tb_game_title(game), TB__CLIP(bname, 40), names);
            goto done;
        }
    }
    r = room_new(s);
    if (!r) {
        status = srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        goto done;
    }
    r->game = game;
    r->players = (int)players;
    char err[TB_ERR_LEN];
    /* options */
    tb_options_clear(&r->options);
    const json_t *jopts = json_object_get(req, "options");
    if (jopts && !json_is_object(jopts)) {
        status = srv_error_reply(reply, 400, "bad_options", "'options' must be an object of KEY: VALUE");
        goto done;
    }
    json_object_foreach((json_t *)jopts, key, val) {
        char value[TB_OPTION_LEN * 2];
        if (json_is_string(val))
            snprintf(value, sizeof value, "%s", json_string_value(val));
        else if (json_is_integer(val))
            snprintf(value, sizeof value, "%lld", (long long)json_integer_value(val));
        else if (json_is_boolean(val))
            snprintf(value, sizeof value, "%s", json_is_true(val) ? "true" : "false");
        else {
            status = srv_error_reply(reply, 400, "bad_options", "option '%.*s' must be a string", TB__CLIP(key, 40));
            goto done;
        }
        if (tb_options_set(&r->options, key, value, err, sizeof err)) {
            status = srv_error_reply(reply, 400, "bad_options", "%s", err);
            goto done;
        }
    }
    if (tb_options_normalize(game, &r->options, err, sizeof err)) {
        status = srv_error_reply(reply, 400, "bad_options", "%s", err);
        goto done;
    }
    /* seats */
    for (int i = 0; i < r->players; i++) {
        srv_seat *st = &r->seat[i];
        const json_t *js = jseats ? json_array_get(jseats, (size_t)i) : NULL;
        if (js && !json_is_object(js)) {
            status = srv_error_reply(reply, 400, "bad_seats", "seat %d must be an object like {\"kind\":\"human\"}", i);
            goto done;
        }
        const char *kind = js ? json_string_value(json_object_get(js, "kind")) : (i ? "ai" : "human");
        const char *name = js ? json_string_value(json_object_get(js, "name")) : NULL;
        const char *level = js ? json_string_value(json_object_get(js, "level")) : NULL;
        const json_t *jopen = js ? json_object_get(js, "open") : NULL;
        if (jopen && !json_is_boolean(jopen)) {
            status = srv_error_reply(reply, 400, "bad_seats", "seat %d: 'open' must be true or false", i);
            goto done;
        }
        st->open = json_is_true(jopen);
        if (st->open && kind && strcmp(kind, "human") != 0) {
            status = srv_error_reply(reply, 400, "bad_seats",
                                      "seat %d: only a seat for a person can be open", i);
            goto done;
        }
        if (js && json_object_get(js, "name") && !name) {
            status = srv_error_reply(reply, 400, "bad_seats", "seat %d: 'name' must be a string", i);
            goto done;
        }
        if (js && json_object_get(js, "level") && !level) {
            status = srv_error_reply(reply, 400, "bad_seats", "seat %d: 'level' must be a string", i);
            goto done;
        }
        if (!kind || (strcmp(kind, "human") && strcmp(kind, "ai"))) {
            status = srv_error_reply(reply, 400, "bad_seats", "seat %d: 'kind' must be \"human\" or \"ai\"", i);
            goto done;
        }
        if (name && !srv_valid_name(name)) {
            status = srv_error_reply(reply, 400, "bad_seats",
                                      "seat %d: a name has 1 to %d bytes and no control characters",
                                      i, SRV_NAME_LEN - 1);
            goto done;
        }
        if (strcmp(kind, "ai") == 0) {
            st->kind = SRV_AI;
            if (!level)
                level = "normal";
            if (strlen(level) >= SRV_LEVEL_LEN || room_resolve_ai(game, st, level, err, sizeof err)) {
                status = srv_error_reply(reply, 400, "bad_level", "seat %d: %s", i,
                                          strlen(level) >= SRV_LEVEL_LEN ? "level name too long" : err);
                goto done;
            }
            snprintf(st->level, sizeof st->level, "%s", level);
            if (name)
                snprintf(st->name, sizeof st->name, "%s", name);
            else
                snprintf(st->name, sizeof st->name, "Computer %d", i + 1);
        } else {
            st->kind = SRV_HUMAN;
            if (level) {
                status = srv_error_reply(reply, 400, "bad_seats", "seat %d: a human seat has no level", i);
                goto done;
            }
            snprintf(st->name, sizeof st->name, "%s", name ? name : "");
            if (!name)
                snprintf(st->name, sizeof st->name, "Player %d", i + 1);
        }
    }
    /* the game itself (its seat keys: lobby.c) */
    srv_secret_id(r->id);
    uint64_t seed = srv_secret_u64();
    r->state = tb_state_new(game);
    if (!r->state) {
        status = srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        goto done;
    }
    if (tb_setup_data(r->state, data, r->players, &r->options, seed, err, sizeof err)) {
        status = srv_error_reply(reply, 400, "bad_options", "%s", err);
        goto done;
    }
    srv_iso_now(r->created);
    r->record = tb_record_new(game, r->players, &r->options, seed);
    if (!r->record) {
        status = srv_error_reply(reply, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        goto done;
    }
    tb_record_set_data(r->record, data);
    for (int i = 0; i < r->players; i++) {
        char kind[64];
        if (r->seat[i].kind == SRV_AI)
            snprintf(kind, sizeof kind, "ai:%s", r->seat[i].level);
        else
            snprintf(kind, sizeof kind, "human");
        tb_record_set_player(r->record, i, r->seat[i].name, kind);
    }
    tb_record_set_times(r->record, r->created, NULL);
    *made = r;
    *seed_out = seed;
    r = NULL;
    status = 0;
done:
    srv_room_free(r);
    return status;
}

/* The store's row of a room srv_room_make built, its keys given (lobby.c);
 * -1 when memory ran out.  row->options is malloc'd. */
int srv_room_row(const srv_room *r, uint64_t seed, srv_game_row *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", r->id);
    snprintf(row->game, sizeof row->game, "%s", tb_game_name(r->game));
    row->players = r->players;
    row->options = room_options_text(&r->options, tb_state_data(r->state));
    if (!row->options)
        return -1;
    row->seed = seed;
    snprintf(row->created, sizeof row->created, "%s", r->created);
    for (int i = 0; i < r->players; i++) {
        srv_seat_row *sr = &row->seat[i];
        snprintf(sr->kind, sizeof sr->kind, "%s", r->seat[i].kind == SRV_AI ? "ai" : "human");
        snprintf(sr->name, sizeof sr->name, "%s", r->seat[i].name);
        snprintf(sr->level, sizeof sr->level, "%s", r->seat[i].level);
        memcpy(sr->token_hash, r->seat[i].token_hash, SRV_HASH_LEN);
        sr->open = r->seat[i].open;
    }
    return 0;
}

/* A new room, just registered, starts: its turn clock, and the computer if
 * it moves first. */
void srv_room_start(srv_room *r)
{
    pthread_mutex_lock(&r->lock);
    srv_seats_new_turn(r);
    room_queue_ai(r);
    pthread_mutex_unlock(&r->lock);
}

/* ---- loading stored games ---- */

srv_room *srv_room_load(srv_rooms *s, const char *id, char *err, size_t errlen)
{
    srv_game_row row;
    srv_decision_row *moves = NULL;
    int count = 0;
    int rc = s->store->m->game_load(s->store, id, &row, &moves, &count, err, errlen);
    if (rc == 1)
        snprintf(err, errlen, "there is no game %s", id);
    if (rc != 0)
        return NULL;
    srv_room *r = room_new(s);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        srv_game_row_clear(&row);
        srv_decisions_free(moves, count);
        return NULL;
    }
    snprintf(r->id, sizeof r->id, "%s", row.id);
    snprintf(r->created, sizeof r->created, "%s", row.created);
    snprintf(r->finished, sizeof r->finished, "%s", row.finished);
    r->players = row.players;
    r->game = tb_game_find(row.game);
    char why[TB_ERR_LEN] = "";
    if (!r->game)
        snprintf(r->broken, sizeof r->broken, "this build has no game '%s'", row.game);
    else if (r->players < 1 || r->players > TB_MAX_SEATS)
        snprintf(r->broken, sizeof r->broken, "bad player count %d", r->players);
    const tb_data *data = NULL;
    /* Memory running out while the game is read fails the reading (the
     * request that wanted it gets an error, the next one reads it again); it
     * never leaves a game read in part or marked broken. */
    bool no_memory = false;
    json_error_t jerr;
    if (!r->broken[0]) {
        tb_options_clear(&r->options);
        json_t *jo = tb__json_loads(row.options ? row.options : "{}", 0, &jerr);
        no_memory |= !jo && json_error_code(&jerr) == json_error_out_of_memory;
        const char *key;
        json_t *val;
        data = room_stored_board(r, json_object_get(jo, ROOM_BOARD_KEY));
        json_object_foreach(jo, key, val) {
            if (strcmp(key, ROOM_BOARD_KEY) == 0)
                continue;
            if (!r->broken[0] && tb_options_set(&r->options, key, json_string_value(val) ? json_string_value(val) : "",
                               why, sizeof why))
                snprintf(r->broken, sizeof r->broken, "stored options: %.*s", TB__CLIP(why, 200));
        }
        json_decref(jo);
        if (!r->broken[0] && tb_options_normalize(r->game, &r->options, why, sizeof why))
            snprintf(r->broken, sizeof r->broken, "stored options: %.*s", TB__CLIP(why, 200));
    }
    if (!r->broken[0] && !no_memory && !(r->record = tb_record_new(r->game, r->players, &r->options, row.seed)))
        no_memory = true;
    if (!r->broken[0] && !no_memory) {
        tb_record_set_data(r->record, data);
        for (int i = 0; i < r->players; i++) {
            char kind[64];
            if (strcmp(row.seat[i].kind, "ai") == 0)
                snprintf(kind, sizeof kind, "ai:%s", row.seat[i].level);
            else
                snprintf(kind, sizeof kind, "human");
            tb_record_set_player(r->record, i, row.seat[i].name, kind);
        }
        tb_record_set_times(r->record, r->created, r->finished[0] ? r->finished : NULL);
        for (int k = 0; k < count && !no_memory; k++)
            no_memory = tb_record_push(r->record, moves[k].move) != 0 ||
                        room_log_push(r, moves[k].seat, strcmp(moves[k].by, "ai") == 0) != 0;
        if (!no_memory)
            r->state = tb_record_replay_in(r->record, -1, r->rooms->cfg.boards, why, sizeof why);
        if (!no_memory && !r->state && strstr(why, "out of memory"))
            no_memory = true;
        else if (!no_memory && !r->state)
            snprintf(r->broken, sizeof r->broken, "%s", why);
    }
    if (no_memory) {
        snprintf(err, errlen, "out of memory reading game %s", id);
        srv_room_free(r);
        srv_decisions_free(moves, count);
        srv_game_row_clear(&row);
        return NULL;
    }
    bool narrate = r->state != NULL;
    for (int i = 0; i < r->players && i < TB_MAX_SEATS; i++) {
        srv_seat *st = &r->seat[i];
        const srv_seat_row *sr = &row.seat[i];
        snprintf(st->name, sizeof st->name, "%s", sr->name);
        snprintf(st->level, sizeof st->level, "%s", sr->level);
        memcpy(st->token_hash, sr->token_hash, SRV_HASH_LEN);
        st->joined = sr->joined;
        if (strcmp(sr->kind, "ai") == 0) {
            st->kind = SRV_AI;
            if (room_resolve_ai(r->game, st, sr->level, why, sizeof why)) {
                /* A level this build does not know: play random rather than stall. */
                st->agent = tb_agent_find("random");
                snprintf(st->note, sizeof st->note,
                         "level '%s' is unknown to this build: this seat plays random legal moves",
                         sr->level);
            }
        } else {
            st->kind = SRV_HUMAN;
        }
    }
    srv_seats_load(r, &row);
    if (narrate && !r->broken[0])
        room_log_words_all(r);
    if (row.takebacks) {
        r->takebacks = tb__json_loads(row.takebacks, 0, &jerr);
        if (!r->takebacks && json_error_code(&jerr) == json_error_out_of_memory) {
            snprintf(err, errlen, "out of memory reading game %s", id);
            srv_room_free(r);
            srv_decisions_free(moves, count);
            srv_game_row_clear(&row);
            return NULL;
        }
        if (!json_is_array(r->takebacks)) { /* a note that does not read: the game still plays */
            srv_log(&s->cfg, "game %s: its take-back notes do not read", r->id);
            json_decref(r->takebacks);
            r->takebacks = NULL;
        }
    }
    /* A game whose last decision was stored but whose end was not. */
    if (r->state && !r->broken[0] && tb_is_over(r->state) && strcmp(row.status, "over") != 0)
        room_finish(r);
    srv_decisions_free(moves, count);
    srv_game_row_clear(&row);
    return r;
}

int srv_room_reload(srv_room *r, char *err, size_t errlen)
{
    /* Nothing is decided while the game is read again. */
    pthread_mutex_lock(&r->lock);
    bool counted = r->state && !r->broken[0] && !srv_room_over_locked(r) && !atomic_load(&r->away);
    atomic_store(&r->away, true);
    pthread_mutex_unlock(&r->lock);
    srv_room *fresh = srv_room_load(r->rooms, r->id, err, errlen);
    if (!fresh) {
        if (counted) /* stays away; the lease thread tries again */
            atomic_fetch_sub(&r->rooms->running, 1);
        return -1;
    }
    pthread_mutex_lock(&r->lock);
    /* The game moves from `fresh` into `r` and the old one out, to be freed
     * with `fresh`; the connections stay. */
    tb_state *state = r->state;
    tb_record *record = r->record;
    srv_log_entry *log = r->log;
    int log_cap = r->log_cap;
    r->state = fresh->state;
    r->record = fresh->record;
    room_deduce_forget(r); /* computed from the history replaced */
    r->log = fresh->log;
    r->log_cap = fresh->log_cap;
    fresh->state = state;
    fresh->record = record;
    fresh->log = log;
    fresh->log_cap = log_cap;
    json_t *takebacks = r->takebacks;
    r->takebacks = fresh->takebacks;
    fresh->takebacks = takebacks;
    r->game = fresh->game;
    r->players = fresh->players;
    r->options = fresh->options;
    memcpy(r->created, fresh->created, sizeof r->created);
    memcpy(r->finished, fresh->finished, sizeof r->finished);
    memcpy(r->broken, fresh->broken, sizeof r->broken);
    for (int i = 0; i < TB_MAX_SEATS; i++) {
        int connected = r->seat[i].connected;
        r->seat[i] = fresh->seat[i];
        r->seat[i].connected = connected;
    }
    srv_seats_reloaded(r, fresh);
    atomic_store(&r->away, false);
    bool running = r->state && !r->broken[0] && !srv_room_over_locked(r);
    if (running && !counted)
        atomic_fetch_add(&r->rooms->running, 1);
    else if (!running && counted)
        atomic_fetch_sub(&r->rooms->running, 1);
    room_broadcast_state(r);
    room_queue_ai(r);
    pthread_mutex_unlock(&r->lock);
    srv_room_free(fresh);
    return 0;
}

void srv_room_resume(srv_room *r)
{
    pthread_mutex_lock(&r->lock);
    room_queue_ai(r);
    pthread_mutex_unlock(&r->lock);
}

void srv_room_free(srv_room *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nclients; i++)
        room_client_unref(r->clients[i]);
    free(r->clients);
    for (int k = 0; r->log && r->record && k < tb_record_length(r->record) && k < r->log_cap; k++) {
        free(r->log[k].said);
        free(r->log[k].said_msg);
        free(r->log[k].stage_msg);
    }
    free(r->log);
    json_decref(r->takebacks);
    free(r->hint_text);
    for (int i = 0; i < TB_MAX_SEATS; i++)
        free(r->deduce_text[i]);
    tb_state_free(r->state);
    tb_record_free(r->record);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* ---- HTTP reads ---- */

char *srv_room_spectator_json(srv_room *r)
{
    pthread_mutex_lock(&r->lock);
    json_t *j = room_summary_locked(r);
    if (r->state && !r->broken[0]) {
        json_object_set_new(j, "view", room_parse_view(tb_view_json(r->state, TB_SPECTATOR)));
        json_object_set_new(j, "log", room_log_json(r));
        json_object_set_new(j, "result", srv_room_over_locked(r)
                                             ? room_parse_view(room_result(r))
                                             : json_null());
    }
    pthread_mutex_unlock(&r->lock);
    return srv_json_text(j);
}

char *srv_room_record_json(srv_room *r, int *status)
{
    pthread_mutex_lock(&r->lock);
    char *out;
    if (!r->state || r->broken[0]) {
        *status = 409;
        out = srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "broken", "message", r->broken));
    } else {
        *status = 200;
        /* Sealed while the game runs; the full record once it is over, by the
         * rules or by a resignation (whose result names who resigned). */
        out = r->conceded ? tb_record_json(r->record, NULL)
                          : tb_record_json_sealed(r->record, r->state, TB_SPECTATOR);
        bool takebacks = r->takebacks && json_array_size(r->takebacks);
        if (out && (r->conceded || takebacks)) { /* docs/records.md */
            json_error_t jerr;
            json_t *j = tb__json_loads(out, 0, &jerr);
            free(out);
            out = NULL; /* no memory to add them: no record rather than one without them */
            if (j) {
                if (r->conceded)
                    json_object_set_new(j, "result", room_parse_view(srv_seats_result_json(r, srv_room_over_locked(r))));
                if (takebacks)
                    json_object_set(j, "takebacks", r->takebacks);
                out = json_dumps(j, JSON_COMPACT);
                json_decref(j);
            }
        }
    }
    pthread_mutex_unlock(&r->lock);
    return out;
}

char *srv_room_replay_json(srv_room *r, long step, const char *token, int *status)
{
    int seat = token && *token ? srv_room_seat_of_token(r, token) : TB_SPECTATOR;
    if (seat < TB_SPECTATOR) {
        *status = 403;
        return srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "bad_token", "message",
                                   "this link's seat key is not one of this game's"));
    }
    pthread_mutex_lock(&r->lock);
    char *out = NULL;
    if (!r->state || r->broken[0]) {
        *status = 409;
        out = srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "broken", "message", r->broken));
        goto done;
    }
    bool over = srv_room_over_locked(r);
    if (over)
        seat = TB_SPECTATOR; /* the replay of a finished game is everybody's */
    int total = tb_record_length(r->record);
    if (step < 0 || step > total) {
        *status = 404;
        char msg[96];
        snprintf(msg, sizeof msg, "steps of this game run from 0 to %d", total);
        out = srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "bad_step", "message", msg));
        goto done;
    }
    char why[TB_ERR_LEN];
    tb_state *s = tb_record_replay_in(r->record, (int)step, r->rooms->cfg.boards, why, sizeof why);
    if (!s && strstr(why, "out of memory")) {
        *status = srv_error_reply(&out, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        goto done;
    }
    if (!s) {
        *status = 500;
        out = srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "replay_failed", "message", why));
        goto done;
    }
    json_t *j = json_pack("{s:s,s:i,s:i}", "game", r->id, "step", (int)step, "total", total);
    int to = tb_to_move(s);
    json_object_set_new(j, "to_move", to >= 0 ? json_integer(to) : json_null());
    json_object_set_new(j, "last", step > 0 ? room_log_entry(r, (int)step - 1) : json_null());
    json_object_set_new(j, "view", room_parse_view(tb_view_json(s, seat)));
    char prompt[512];
    tb_prompt_text(s, prompt, sizeof prompt);
    json_object_set_new(j, "prompt", json_string(prompt));
    json_object_set_new(j, "result", over ? room_parse_view(room_result(r)) : json_null());
    tb_state_free(s);
    *status = 200;
    out = srv_json_text(j);
done:
    pthread_mutex_unlock(&r->lock);
    return out;
}

char *srv_room_scores_json(srv_room *r, int *status)
{
    pthread_mutex_lock(&r->lock);
    char *out = NULL;
    char why[TB_ERR_LEN] = "out of memory";
    if (!r->state || r->broken[0]) {
        *status = 409;
        out = srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "broken", "message", r->broken));
        goto done;
    }
    if (!srv_room_over_locked(r)) { /* scores on the way would tell secret colours */
        *status = 409;
        out = srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "not_over", "message",
                                  "the score graph opens when the game is over"));
        goto done;
    }
    /* the graph, the points by stage and their sources: one story (story.c) */
    char *story = tb_record_story_json(r->record, r->rooms->cfg.boards, why, sizeof why);
    json_t *j = story ? json_loads(story, 0, NULL) : NULL;
    bool no_memory = story ? !j : strstr(why, "out of memory") != NULL;
    free(story);
    if (!j && no_memory) {
        *status = srv_error_reply(&out, SRV_INTERNAL_STATUS, "internal", SRV_INTERNAL_MESSAGE);
        goto done;
    }
    if (!j) {
        *status = 500;
        out = srv_json_text(json_pack("{s:{s:s,s:s}}", "error", "code", "replay_failed", "message", why));
        goto done;
    }
    json_object_set_new(j, "game", json_string(r->id));
    *status = 200;
    out = srv_json_text(j);
done:
    pthread_mutex_unlock(&r->lock);
    return out;
}

/* ---- connections ---- */

int srv_room_seat_of_token(srv_room *r, const char *token)
{
    if (!token || !*token)
        return -1;
    if (strlen(token) > 128)
        return -2;
    uint8_t h[SRV_HASH_LEN];
    srv_secret_hash(token, h);
    int found = -2;
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->players; i++)
        if (r->seat[i].kind == SRV_HUMAN && srv_secret_equal(h, r->seat[i].token_hash))
            found = i;
    pthread_mutex_unlock(&r->lock);
    return found;
}

void srv_room_attach(srv_room *r, srv_client *c)
{
    int seat = c->seat;
    pthread_mutex_lock(&r->lock);
    if (r->nclients == r->client_cap) {
        srv_client **a = realloc(r->clients, (size_t)(r->client_cap ? r->client_cap * 2 : 8) * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&r->lock);
            srv_client_error(c, NULL, "internal", "the server is out of memory; try again later");
            return;
        }
        r->clients = a;
        r->client_cap = r->client_cap ? r->client_cap * 2 : 8;
    }
    c->ops->ref(c);
    r->clients[r->nclients++] = c;
    if (seat >= 0 && srv_seats_seen(r, seat))
        room_broadcast_state(r); /* the seat is the person's again */
    if (seat >= 0) {
        r->seat[seat].connected++;
        if (!r->seat[seat].joined) {
            char err[TB_ERR_LEN];
            r->seat[seat].joined = true;
            if (r->rooms->store->m->seat_joined(r->rooms->store, r->id, seat, err, sizeof err) &&
                !srv_rooms_store_failing(r->rooms, NULL, 0, NULL, 0))
                srv_log(&r->rooms->cfg, "game %s: %s", r->id, err);
        }
    }
    json_t *welcome = json_object();
    json_object_set_new(welcome, "type", json_string("welcome"));
    json_object_set_new(welcome, "game", room_summary_locked(r));
    json_object_set_new(welcome, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(welcome, "role", json_string(seat >= 0 ? "player" : "spectator"));
    json_object_set_new(welcome, "log", room_log_json(r));
    json_object_set_new(welcome, "limits",
                        json_pack("{s:i,s:f,s:f}", "message_bytes", SRV_MAX_MESSAGE,
                                  "messages_per_second", SRV_RATE_PER_SEC, "burst", SRV_RATE_BURST));
    room_send_json(c, welcome);
    room_send(c, room_state_text(r, seat));
    room_broadcast(r, room_presence(r));
    pthread_mutex_unlock(&r->lock);
}

void srv_room_detach(srv_room *r, srv_client *c)
{
    pthread_mutex_lock(&r->lock);
    bool found = false;
    for (int i = 0; i < r->nclients; i++) {
        if (r->clients[i] == c) {
            r->clients[i] = r->clients[--r->nclients];
            found = true;
            break;
        }
    }
    int seat = c->seat;
    if (found && seat >= 0 && r->seat[seat].connected > 0)
        r->seat[seat].connected--;
    if (found)
        room_broadcast(r, room_presence(r));
    pthread_mutex_unlock(&r->lock);
    if (found)
        room_client_unref(c);
}

static void room_decide(srv_room *r, srv_client *c, int seat, json_t *msg, json_t *id)
{
    const json_t *jmove = json_object_get(msg, "move");
    const char *move = json_string_value(jmove);
    if (!move) {
        srv_client_error(c, id, "bad_message",
                       "a decide message needs \"move\": the decision in notation, e.g. "
                       "{\"type\":\"decide\",\"move\":\"12-17\"}");
        return;
    }
    const json_t *jn = json_object_get(msg, "n");
    if (jn && !json_is_integer(jn)) {
        srv_client_error(c, id, "bad_message", "\"n\" must be the number of decisions you saw");
        return;
    }
    if (strlen(move) > 200) {
        srv_client_error(c, id, "bad_message", "that decision text is too long");
        return;
    }
    pthread_mutex_lock(&r->lock);
    if (srv_room_refuse_locked(r, c, id, seat, "spectators watch; only a seat's link can decide")) {
        /* (answered) */
    } else if (srv_room_over_locked(r)) {
        srv_client_error(c, id, "game_over", "the game is over");
    } else if (srv_seats_waiting(r)) {
        srv_client_error(c, id, "waiting",
                          "the game starts when every seat is taken; nothing changed");
    } else if (seat >= 0 && r->seat[seat].resigned) {
        srv_client_error(c, id, "resigned", "you resigned: the computer plays your seat to the end");
    } else if (tb_to_move(r->state) != seat) {
        int to = tb_to_move(r->state);
        srv_client_error(c, id, "not_your_turn", "it is %s's turn (seat %d), not yours",
                       r->seat[to].name, to + 1);
    } else if (jn && json_integer_value(jn) != tb_decisions_made(r->state)) {
        srv_client_error(c, id, "stale",
                       "the game moved on: you saw %lld decisions, there are %d now",
                       (long long)json_integer_value(jn), tb_decisions_made(r->state));
    } else {
        tb_move m;
        char why[TB_ERR_LEN];
        if (tb_text_to_move(r->state, move, &m, why, sizeof why))
            srv_client_error(c, id, "illegal", "%s", why);
        else {
            srv_seats_seen(r, seat); /* a person back from being away plays again */
            room_commit(r, seat, m, false, c, id);
        }
    }
    pthread_mutex_unlock(&r->lock);
}

/* {"type":"undo"} and {"type":"take_back"} (docs/http-api.md): the seat
 * asks to take back; undo.c says whether it may. */
static void room_undo(srv_room *r, srv_client *c, int seat, json_t *msg, json_t *id,
                      bool take_back)
{
    const json_t *jn = json_object_get(msg, "n");
    if (jn && !json_is_integer(jn)) {
        srv_client_error(c, id, "bad_message", "\"n\" must be the number of decisions you saw");
        return;
    }
    pthread_mutex_lock(&r->lock);
    int keep = 0;
    const char *code = "undo_refused";
    char why[300];
    json_t *why_msg = NULL; /* the refusal as a message */
    char *note = NULL;
    if (srv_room_refuse_locked(r, c, id, seat, "spectators watch; only a player can take back")) {
        /* (answered) */
    } else if (srv_room_over_locked(r)) {
        srv_client_error(c, id, "game_over", "the game is over, so nothing can be taken back");
    } else if (jn && json_integer_value(jn) != tb_decisions_made(r->state)) {
        srv_client_error(c, id, "stale",
                          "the game moved on: you saw %lld decisions, there are %d now",
                          (long long)json_integer_value(jn), tb_decisions_made(r->state));
    } else if (r->commit_pending) {
        srv_client_error(c, id, "busy",
                          "the previous decision is still being saved; wait for the new "
                          "position, then try again");
    } else if ((take_back ? srv_takeback_check(r, seat, &keep, &note, &code, why, sizeof why, &why_msg)
                          : srv_undo_check(r, seat, &keep, &code, why, sizeof why, &why_msg)) != 0) {
        if (why_msg)
            srv_client_error_msg(c, id, code, why_msg);
        else
            srv_client_error(c, id, code, "%s", why);
        why_msg = NULL;
    } else {
        room_commit_undo(r, seat, keep, note, c, id);
    }
    pthread_mutex_unlock(&r->lock);
}

static void room_hint_request(srv_room *r, srv_client *c, const json_t *id); /* below */
static void room_deduce_request(srv_room *r, srv_client *c, const json_t *msg, const json_t *id);

/* ---- resigning ---- */

void srv_room_notice_locked(srv_room *r, const char *code, int seat, const char *text)
{
    srv_room_broadcast_locked(r, json_pack("{s:s,s:s,s:i,s:s}", "type", "notice", "code", code,
                                           "seat", seat, "text", text));
}

/* A person resigns (room not locked): with two players the other wins now;
 * with more, the computer plays the seat to the end (seats.c). */
static void room_resign(srv_room *r, srv_client *c, json_t *id)
{
    int seat = c->seat;
    pthread_mutex_lock(&r->lock);
    char err[TB_ERR_LEN];
    if (srv_room_refuse_locked(r, c, id, seat, "spectators watch; only a player can resign")) {
        /* (answered) */
    } else if (srv_room_over_locked(r)) {
        srv_client_error(c, id, "game_over", "the game is over");
    } else if (srv_seats_waiting(r)) {
        srv_client_error(c, id, "waiting",
                           "the game has not started (a seat is still free); its creator can "
                           "delete it instead");
    } else if (r->seat[seat].resigned) {
        srv_client_error(c, id, "resigned", "you have resigned already");
    } else if (r->commit_pending && r->players == 2) {
        /* The game would end under a decision on its way to the store. */
        srv_client_error(c, id, "busy",
                           "a decision is being saved; resign again in a moment");
    } else if (r->rooms->store->m->seat_resign(r->rooms->store, r->id, seat, err, sizeof err)) {
        srv_store_report(r->rooms, false, err); /* the store's failure: logged once */
        srv_client_error(c, id, "store_failed",
                           "the resignation could not be saved, so nothing changed: %s", err);
    } else {
        srv_seat *st = &r->seat[seat];
        st->resigned = true;
        st->away = false;
        tb_record_set_player(r->record, seat, st->name, "human, resigned");
        char text[400];
        if (r->players == 2) {
            /* Two players: the other one wins, now. */
            r->conceded = true;
            r->resigned_seat = seat;
            srv_room_finish_locked(r);
            atomic_fetch_sub(&r->rooms->running, 1);
            snprintf(text, sizeof text, "%s resigned; %s wins.", st->name,
                     r->seat[1 - seat].name);
        } else {
            /* More players: the game goes on, the computer plays the seat. */
            srv_seats_stand_in(r, seat);
            snprintf(text, sizeof text,
                     "%s resigned; the computer plays for %s until the end, and %s cannot win.",
                     st->name, st->name, st->name);
        }
        tb__utf8_repair(text);
        srv_log(&r->rooms->cfg, "game %s: seat %d resigned", r->id, seat + 1);
        srv_room_notice_locked(r, "resigned", seat, text);
        srv_room_refresh_locked(r);
    }
    pthread_mutex_unlock(&r->lock);
}

void srv_room_client_message(srv_room *r, srv_client *c, json_t *msg)
{
    int seat = c->seat;
    json_t *id = json_object_get(msg, "id");
    if (id && !json_is_integer(id) && !(json_is_string(id) && json_string_length(id) <= 64))
        id = NULL;
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (!type) {
        srv_client_error(c, id, "bad_message", "a message is a JSON object with a \"type\" "
                                             "(decide, undo, take_back, hint, deduce, resign, sync or ping)");
    } else if (strcmp(type, "decide") == 0) {
        room_decide(r, c, seat, msg, id);
    } else if (strcmp(type, "undo") == 0 || strcmp(type, "take_back") == 0) {
        room_undo(r, c, seat, msg, id, strcmp(type, "take_back") == 0);
    } else if (strcmp(type, "hint") == 0) {
        room_hint_request(r, c, id);
    } else if (strcmp(type, "deduce") == 0) {
        room_deduce_request(r, c, msg, id);
    } else if (strcmp(type, "resign") == 0) {
        room_resign(r, c, id);
    } else if (strcmp(type, "sync") == 0) {
        pthread_mutex_lock(&r->lock);
        if (seat >= 0 && srv_seats_seen(r, seat))
            room_broadcast_state(r);
        if (atomic_load(&r->away))
            srv_client_error(c, id, "elsewhere",
                           "another server instance plays this game now; open the game again "
                           "to follow it");
        else
            room_send(c, room_state_text(r, seat));
        pthread_mutex_unlock(&r->lock);
    } else {
        srv_client_error(c, id, "unknown_type",
                       "unknown message type '%.*s' (decide, undo, take_back, hint, deduce, "
                       "resign, sync or ping)", TB__CLIP(type, 32));
    }
}

/* ---- AI seats ---- */

/* roomsInt.h; tests/unit/test_infer.c checks it against tabula play's path. */
tb_move srv_room_search(const tb_data_set *boards, const tb_agent *agent, const tb_state *truth,
                        const tb_record *rec, const tb_budget *budget, uint64_t seed,
                        tb_agent_report *report)
{
    char why[TB_ERR_LEN];
    tb_state *start = rec ? tb_record_replay_in(rec, 0, boards, why, sizeof why) : NULL;
    tb_move m = tb_agent_decide_game(agent, truth, start, rec, budget, TB_INFER_RULE, seed, report,
                                     NULL);
    tb_state_free(start);
    return m;
}

/* ---- hints: the computer's choice for a person, with a reason ---- */

/* Sends the hint message to every connection of `seat` (lock held). */
static void room_hint_send(srv_room *r, int seat)
{
    for (int i = 0; r->hint_text && i < r->nclients; i++)
        if (r->clients[i]->seat == seat)
            room_send(r->clients[i], strdup(r->hint_text));
}

/* A hint that could not be made for want of memory: every connection of
 * `seat` that waits for it hears so, and may ask again (lock held). */
static void room_hint_fail(srv_room *r, int seat)
{
    for (int i = 0; i < r->nclients; i++)
        if (r->clients[i]->seat == seat)
            srv_client_error(r->clients[i], NULL, "internal", SRV_INTERNAL_MESSAGE);
}

/* A hint asked for by a seat: computed once per position on an AI worker
 * (a ROOM_JOB_HINT job for position n), sent to the seat's connections. */
static void room_hint_request(srv_room *r, srv_client *c, const json_t *id)
{
    pthread_mutex_lock(&r->lock);
    int n = r->state ? tb_decisions_made(r->state) : -1;
    if (!r->state || r->broken[0] || srv_room_over_locked(r) || c->seat < 0 ||
        tb_to_move(r->state) != c->seat) {
        srv_client_error(c, id, "not_your_turn", "a hint is for the player whose turn it is");
    } else if (r->hint_n == n && r->hint_text) {
        room_send(c, strdup(r->hint_text));
    } else if (r->hint_n != n) {
        free(r->hint_text);
        r->hint_text = NULL;
        r->hint_n = n;
        if (srv_ai_schedule(r->rooms->ai, r, ROOM_JOB_HINT, n, srv_now_us()) != 0) {
            r->hint_n = -1; /* no memory for the job */
            srv_client_error(c, id, "internal", SRV_INTERNAL_MESSAGE);
        }
    } /* else: being computed; it goes to every connection of the seat */
    pthread_mutex_unlock(&r->lock);
}

static void room_hint_step(srv_room *r, int n)
{
    pthread_mutex_lock(&r->lock);
    if (!r->state || r->broken[0] || srv_room_over_locked(r) || tb_decisions_made(r->state) != n ||
        r->hint_n != n) {
        if (r->hint_n == n)
            r->hint_n = -1;
        pthread_mutex_unlock(&r->lock);
        return;
    }
    int seat = tb_to_move(r->state);
    tb_state *copy = tb_state_dup(r->state);
    tb_record *history = tb_record_dup(r->record);
    const char *names[TB_MAX_SEATS];
    char name_copy[TB_MAX_SEATS][sizeof r->seat[0].name];
    for (int i = 0; i < TB_MAX_SEATS; i++) { /* the names outlive the lock */
        snprintf(name_copy[i], sizeof name_copy[i], "%s", i < r->players ? r->seat[i].name : "");
        names[i] = name_copy[i][0] ? name_copy[i] : NULL;
    }
    pthread_mutex_unlock(&r->lock);

    const tb_agent *agent = NULL;
    tb_budget budget = {0};
    char said[600] = "", reason[1200] = "", text[TB_MOVE_TEXT] = "";
    char next[TB_MOVE_TEXT] = "", next_said[600] = "";
    json_t *said_msg = NULL, *reason_msg = NULL, *next_said_msg = NULL; /* the same as messages */
    tb_agent_report report = {0};
    tb_move m = 0;
    int gain = 0; /* the seat's points won (or spent) by the decision itself */
    if (copy && tb_level_lookup(tb_state_game(copy), "normal", &agent, &budget) == 0) {
        budget.now_us = srv_now_us;
        m = srv_room_search(r->rooms->cfg.boards, agent, copy, history, &budget, srv_secret_u64(),
                            &report);
        tb_move_to_text(copy, m, text, sizeof text);
        tb_narrate(copy, m, names, said, sizeof said);
        char *narration = tb_narrate_json(copy, m, names);
        said_msg = narration ? json_loads(narration, 0, NULL) : NULL;
        free(narration);
        tb_state *after = tb_state_dup(copy);
        if (after) {
            tb_apply(after, m);
            int before_pts[TB_MAX_SEATS], after_pts[TB_MAX_SEATS];
            tb_scores(copy, before_pts);
            tb_scores(after, after_pts);
            gain = after_pts[seat] - before_pts[seat];
        }
        tb_state_free(after);
        /* The reason, in words: what the decision gains (the narration says
         * what it founds or completes), then whose chance the numbers are. */
        size_t len = 0;
        reason_msg = tb__msg_word("");
        if (gain) {
            len += (size_t)snprintf(reason, sizeof reason, "It %s you %d point%s now. ",
                                    gain > 0 ? "gains" : "costs", gain > 0 ? gain : -gain,
                                    gain == 1 || gain == -1 ? "" : "s");
            reason_msg = gain > 0 ? tb__msg_plural(NP_("It gains you {n} point now. ",
                                                       "It gains you {n} points now. "), gain, "")
                                  : tb__msg_plural(NP_("It costs you {n} point now. ",
                                                       "It costs you {n} points now. "), -gain, "");
        }
        if (report.count > 0 && len < sizeof reason) {
            int win = (int)(report.value[0] * 100.0 + 0.5);
            len += (size_t)snprintf(reason + len, sizeof reason - len,
                                    "In the computer's trial games from here, you win about "
                                    "%d%% of them after this decision", win);
            reason_msg = tb__msg_join(reason_msg,
                                      tb__msg(N_("In the computer's trial games from here, you win about {win}% of them after this decision"),
                                              "win:d", win));
            if (report.count > 1 && len < sizeof reason) {
                tb_move_to_text(copy, report.move[1], next, sizeof next);
                tb_narrate(copy, report.move[1], names, next_said, sizeof next_said);
                len += (size_t)snprintf(reason + len, sizeof reason - len,
                                        "; after the next best (%s), about %d%%", next_said,
                                        (int)(report.value[1] * 100.0 + 0.5));
                narration = tb_narrate_json(copy, report.move[1], names);
                next_said_msg = narration ? json_loads(narration, 0, NULL) : NULL;
                free(narration);
                reason_msg = tb__msg_join(reason_msg,
                                          tb__msg(N_("; after the next best ({said}), about {win}%"),
                                                  "said:m win:d", json_incref(next_said_msg),
                                                  (int)(report.value[1] * 100.0 + 0.5)));
            }
            if (len < sizeof reason)
                snprintf(reason + len, sizeof reason - len, ".");
            reason_msg = tb__msg_join(reason_msg, tb__msg_word("."));
        }
    }
    tb_state_free(copy);
    tb_record_free(history);

    pthread_mutex_lock(&r->lock);
    if (r->hint_n == n && r->state && tb_decisions_made(r->state) == n && text[0]) {
        json_t *msg = json_pack("{s:s,s:i,s:s,s:s,s:s,s:i}", "type", "hint", "n", n, "move",
                                text, "said", said, "reason", reason, "points", gain);
        if (msg && report.count > 0)
            json_object_set_new(msg, "win", json_real(report.value[0]));
        if (msg && report.count > 1) {
            json_t *nx = json_pack("{s:s,s:s,s:f}", "move", next, "said", next_said, "win",
                                   report.value[1]);
            if (nx && next_said_msg)
                json_object_set(nx, "said_msg", next_said_msg);
            json_object_set_new(msg, "next", nx);
        }
        if (msg && said_msg && reason_msg) { /* the words as messages, beside the English */
            json_object_set(msg, "said_msg", said_msg);
            json_object_set(msg, "reason_msg", reason_msg);
        }
        free(r->hint_text);
        r->hint_text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
        json_decref(msg);
        if (!r->hint_text)
            r->hint_n = -1;
        room_hint_send(r, seat);
        if (!r->hint_text)
            room_hint_fail(r, seat);
    } else if (r->hint_n == n) {
        r->hint_n = -1;
        if (r->state && tb_decisions_made(r->state) == n) /* no memory to think: the seat hears so */
            room_hint_fail(r, seat);
    }
    pthread_mutex_unlock(&r->lock);
    json_decref(said_msg);
    json_decref(reason_msg);
    json_decref(next_said_msg);
}

/* ---- the deduction aid: who probably holds which secret colour ---- */

/* Sends seat `seat`'s deduction to every connection of that seat (lock held). */
static void room_deduce_send(srv_room *r, int seat)
{
    for (int i = 0; r->deduce_text[seat] && i < r->nclients; i++)
        if (r->clients[i]->seat == seat)
            room_send(r->clients[i], strdup(r->deduce_text[seat]));
}

/* A player asks for their own deduction aid: computed once per position and
 * seat on an AI worker (a ROOM_JOB_DEDUCE + seat job), from that seat's view
 * and the public history only, and sent to that seat's connections.  A
 * spectator, or a request naming another seat, is refused. */
static void room_deduce_request(srv_room *r, srv_client *c, const json_t *msg, const json_t *id)
{
    const json_t *want = json_object_get(msg, "seat");
    pthread_mutex_lock(&r->lock);
    int seat = c->seat, n = r->state ? tb_decisions_made(r->state) : -1;
    if (seat < 0 || seat >= r->players) {
        srv_client_error(c, id, "not_a_player",
                          "the deduction aid is for the players of this game, not for spectators");
    } else if (want && (!json_is_integer(want) || json_integer_value(want) != seat)) {
        srv_client_error(c, id, "not_your_seat",
                          "each player may ask only for their own deduction (leave out \"seat\")");
    } else if (!r->state || r->broken[0]) {
        srv_client_error(c, id, "broken", "this game cannot be played on, so there is nothing to deduce");
    } else if (tb_role_count(r->game) == 0) {
        srv_client_error(c, id, "no_secret_roles",
                          "nobody holds a secret colour in %s, so there is nothing to deduce",
                          tb_game_title(r->game));
    } else if (srv_room_over_locked(r)) {
        srv_client_error(c, id, "game_over", "the game is over: every colour is shown");
    } else if (r->deduce_n[seat] == n && r->deduce_text[seat]) {
        room_send(c, strdup(r->deduce_text[seat]));
    } else if (r->deduce_n[seat] != n) {
        free(r->deduce_text[seat]);
        r->deduce_text[seat] = NULL;
        r->deduce_n[seat] = n;
        if (srv_ai_schedule(r->rooms->ai, r, ROOM_JOB_DEDUCE + seat, n, srv_now_us()) != 0) {
            r->deduce_n[seat] = -1;
            srv_client_error(c, id, "busy", "the computer cannot work out a deduction right now");
        }
    } /* else: being computed; it goes to every connection of the seat */
    pthread_mutex_unlock(&r->lock);
}

/* The deduction message of `seat` at position `truth`: for every other seat
 * its possible colours, most likely first, with chances in words
 * (tb_inference_chances, as tabula play's `deduce`).  NULL when the history
 * does not replay. */
static char *room_deduce_json(const srv_room *r, const tb_state *truth, const tb_record *rec,
                              int seat, int n, char names[][sizeof r->seat[0].name])
{
    char why[TB_ERR_LEN];
    tb_state *start = tb_record_replay_in(rec, 0, r->rooms->cfg.boards, why, sizeof why);
    tb_inference *inf = tb_inference_replay(start, rec);
    tb_state_free(start);
    if (!inf || tb_inference_decisions(inf) != n) {
        tb_inference_free(inf);
        return NULL;
    }
    const tb_game *g = tb_state_game(truth);
    json_t *others = json_array();
    for (int other = 0; other < tb_players(truth); other++) {
        if (other == seat)
            continue;
        tb_role_chance c[TB_MAX_SEATS * 2 + 8];
        int k = tb_inference_chances(inf, truth, seat, other, c, (int)(sizeof c / sizeof c[0]));
        json_t *chances = json_array();
        for (int i = 0; i < k; i++)
            json_array_append_new(chances, json_pack("{s:s,s:f,s:s}", "colour",
                                                     tb_role_name(g, c[i].role), "chance",
                                                     c[i].chance, "words", c[i].words));
        json_array_append_new(others, json_pack("{s:i,s:s?,s:o}", "seat", other, "name",
                                                names[other][0] ? names[other] : NULL, "chances",
                                                chances));
    }
    json_t *msg = json_pack("{s:s,s:i,s:i,s:s,s:i,s:o}", "type", "deduction", "n", n, "seat", seat,
                            "colour", tb_role_name(g, tb_role_of(truth, seat)), "decisions",
                            tb_inference_decisions(inf), "others", others);
    tb_inference_free(inf);
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    return text;
}

static void room_deduce_step(srv_room *r, int seat, int n)
{
    pthread_mutex_lock(&r->lock);
    if (seat < 0 || seat >= TB_MAX_SEATS || r->deduce_n[seat] != n || !r->state || r->broken[0] ||
        srv_room_over_locked(r) || tb_decisions_made(r->state) != n) {
        if (seat >= 0 && seat < TB_MAX_SEATS && r->deduce_n[seat] == n)
            r->deduce_n[seat] = -1;
        pthread_mutex_unlock(&r->lock);
        return;
    }
    tb_state *copy = tb_state_dup(r->state);
    tb_record *history = tb_record_dup(r->record);
    char names[TB_MAX_SEATS][sizeof r->seat[0].name];
    for (int i = 0; i < TB_MAX_SEATS; i++) /* the names outlive the lock */
        snprintf(names[i], sizeof names[i], "%s", i < r->players ? r->seat[i].name : "");
    pthread_mutex_unlock(&r->lock);

    char *text = copy && history ? room_deduce_json(r, copy, history, seat, n, names) : NULL;
    tb_state_free(copy);
    tb_record_free(history);

    pthread_mutex_lock(&r->lock);
    if (r->deduce_n[seat] == n && r->state && tb_decisions_made(r->state) == n && text) {
        free(r->deduce_text[seat]);
        r->deduce_text[seat] = text;
        text = NULL;
        room_deduce_send(r, seat);
    } else if (r->deduce_n[seat] == n) {
        r->deduce_n[seat] = -1;
        for (int i = 0; !text && i < r->nclients; i++) /* nothing to send: say so */
            if (r->clients[i]->seat == seat)
                srv_client_error(r->clients[i], NULL, "no_deduction",
                                  "no deduction is available for this position");
    }
    free(text);
    pthread_mutex_unlock(&r->lock);
}

void srv_room_ai_step(void *owner, int kind, int expect)
{
    srv_room *r = owner;
    if (kind == ROOM_JOB_HINT) {
        room_hint_step(r, expect);
        return;
    }
    if (kind >= ROOM_JOB_DEDUCE) {
        room_deduce_step(r, kind - ROOM_JOB_DEDUCE, expect);
        return;
    }
    pthread_mutex_lock(&r->lock);
    r->ai_queued = false;
    if (!r->state || r->broken[0] || srv_room_over_locked(r) || r->commit_pending ||
        tb_decisions_made(r->state) != expect) {
        room_queue_ai(r);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    int seat = tb_to_move(r->state);
    if (!srv_seats_computer_plays(r, seat) || !r->seat[seat].agent) {
        pthread_mutex_unlock(&r->lock);
        return;
    }
    const tb_agent *agent = r->seat[seat].agent;
    tb_budget budget = r->seat[seat].budget;
    tb_state *copy = tb_state_dup(r->state);
    tb_record *history = tb_record_dup(r->record);
    if (!copy || !history) { /* no memory to think: try again in a second */
        tb_state_free(copy);
        tb_record_free(history);
        room_ai_retry(r, expect);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    r->ai_queued = true; /* thinking: no second job for this position */
    pthread_mutex_unlock(&r->lock);

    budget.now_us = srv_now_us;
    tb_move m = srv_room_search(r->rooms->cfg.boards, agent, copy, history, &budget,
                                srv_secret_u64(), NULL);
    tb_state_free(copy);
    tb_record_free(history);

    pthread_mutex_lock(&r->lock);
    r->ai_queued = false;
    if (tb_decisions_made(r->state) == expect && tb_to_move(r->state) == seat &&
        tb_is_legal(r->state, m)) {
        /* a store failure retries (committed); no memory to send it, here */
        if (room_commit(r, seat, m, true, NULL, NULL) == -2)
            room_ai_retry(r, expect);
    } else {
        room_queue_ai(r);
    }
    pthread_mutex_unlock(&r->lock);
}
