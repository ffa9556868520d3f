/*
 * state.c — the public face of a game state: allocation, setup, the checked
 * and unchecked decision paths, notation, scores, results and JSON.
 *
 * Every entry dispatches through state->game; the core adds the parts that
 * are the same for all games (option checking, legality checks before apply,
 * the common fields of the state JSON, ranks and returns from scores).
 * Functions that can fail leave the state unchanged on failure.
 */
#include "game.h"
#include "msg.h"
#include "text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tb_state *tb_state_new(const tb_game *game)
{
    tb_state *s = calloc(1, game->state_size);
    if (s)
        s->game = game;
    return s;
}

void tb_state_free(tb_state *state)
{
    free(state);
}

tb_state *tb_state_dup(const tb_state *state)
{
    tb_state *s = malloc(state->game->state_size);
    if (s)
        memcpy(s, state, state->game->state_size);
    return s;
}

void tb_state_copy(tb_state *dst, const tb_state *src)
{
    memcpy(dst, src, src->game->state_size);
}

bool tb_state_equal(const tb_state *a, const tb_state *b)
{
    return a->game == b->game && memcmp(a, b, a->game->state_size) == 0;
}

int tb_setup(tb_state *state, int players, const tb_options *opts, uint64_t seed, char *err,
             size_t errlen)
{
    return tb_setup_data(state, NULL, players, opts, seed, err, errlen);
}

int tb_setup_data(tb_state *state, const tb_data *data, int players, const tb_options *opts,
                  uint64_t seed, char *err, size_t errlen)
{
    const tb_game *g = state->game;
    if (!data)
        data = g->data_builtin;
    else if (data->game != g)
        return tb__errf(err, errlen, "the board '%s' is for %s, not %s", data->name,
                        data->game->title, g->title);
    if (players < g->min_players || players > g->max_players)
        return tb__errf(err, errlen, "%s is for %d to %d players, not %d", g->name,
                        g->min_players, g->max_players, players);
    uint8_t option[TB_MAX_OPTIONS];
    if (opts && opts->count > 0) {
        tb_options o = *opts;
        if (tb_options_normalize(g, &o, err, errlen) != 0)
            return -1;
        tb__options_encode(g, &o, option);
    } else {
        tb__options_defaults(g, option);
    }
    memset(state, 0, g->state_size);
    state->game = g;
    state->data = data;
    state->seed = seed;
    tb_rng_seed(&state->rng, seed);
    state->players = players;
    state->decisions = 0;
    memcpy(state->option, option, sizeof option);
    return g->setup(state, err, errlen);
}

const tb_game *tb_state_game(const tb_state *state) { return state->game; }
const tb_data *tb_state_data(const tb_state *state) { return state->data; }
int tb_players(const tb_state *state) { return state->players; }
uint64_t tb_seed(const tb_state *state) { return state->seed; }
void tb_state_options(const tb_state *state, tb_options *out)
{
    tb__options_decode(state->game, state->option, out);
}
int tb_to_move(const tb_state *state) { return state->game->to_move(state); }
bool tb_is_over(const tb_state *state) { return state->game->to_move(state) == TB_OVER; }
int tb_decisions_made(const tb_state *state) { return state->decisions; }

int tb_legal(const tb_state *state, tb_move out[TB_MAX_MOVES])
{
    return state->game->legal(state, out);
}

int tb_legal_undominated(const tb_state *state, tb_move out[TB_MAX_MOVES])
{
    int n = state->game->legal(state, out);
    if (n > 1 && state->game->undominated) {
        int kept = state->game->undominated(state, out, n);
        if (kept >= 1 && kept <= n)
            n = kept;
    }
    return n;
}

bool tb_is_legal(const tb_state *state, tb_move move)
{
    tb_move moves[TB_MAX_MOVES];
    int n = state->game->legal(state, moves);
    for (int i = 0; i < n; i++)
        if (moves[i] == move)
            return true;
    return false;
}

void tb_apply(tb_state *state, tb_move move)
{
    state->game->apply(state, move);
    state->decisions++;
}

int tb_apply_checked(tb_state *state, tb_move move, char *err, size_t errlen)
{
    if (tb_is_over(state))
        return tb__errf(err, errlen, "the game is over");
    if (!tb_is_legal(state, move))
        return tb__errf(err, errlen, "illegal move");
    tb_apply(state, move);
    return 0;
}

tb_move tb_random_move(const tb_state *state, tb_rng *rng)
{
    if (state->game->random_move)
        return state->game->random_move(state, rng);
    tb_move moves[TB_MAX_MOVES];
    int n = state->game->legal(state, moves);
    return n ? moves[tb_rng_below(rng, (uint32_t)n)] : 0;
}

void tb_random_moves(const tb_state *state, tb_rng *rng, tb_move *out, int count)
{
    if (state->game->random_moves) {
        state->game->random_moves(state, rng, out, count);
        return;
    }
    if (state->game->random_move) {
        for (int i = 0; i < count; i++)
            out[i] = state->game->random_move(state, rng);
        return;
    }
    tb_move moves[TB_MAX_MOVES];
    int n = state->game->legal(state, moves);
    for (int i = 0; i < count; i++)
        out[i] = n ? moves[tb_rng_below(rng, (uint32_t)n)] : 0;
}

int tb_playout(tb_state *state, tb_rng *rng, int limit)
{
    if (state->game->playout) {
        int n = state->game->playout(state, rng, limit);
        state->decisions += n;
        return n;
    }
    int n = 0;
    while ((limit <= 0 || n < limit) && !tb_is_over(state)) {
        tb_apply(state, tb_random_move(state, rng));
        n++;
    }
    return n;
}

int tb_move_to_text(const tb_state *state, tb_move move, char *buf, size_t buflen)
{
    return state->game->move_to_text(state, move, buf, buflen);
}

int tb_text_to_move(const tb_state *state, const char *text, tb_move *out, char *err,
                    size_t errlen)
{
    if (tb_is_over(state))
        return tb__errf(err, errlen, "the game is over");
    tb_move m;
    if (state->game->text_to_move(state, text, &m, err, errlen) != 0)
        return -1;
    if (!tb_is_legal(state, m)) {
        char prompt[160];
        state->game->prompt_text(state, prompt, sizeof prompt);
        return tb__errf(err, errlen, "illegal move: %s is not allowed now (%s; type 'legal' for the list)",
                        text, prompt);
    }
    *out = m;
    return 0;
}

int tb_play_text(tb_state *state, const char *text, char *err, size_t errlen)
{
    tb_move m;
    if (tb_text_to_move(state, text, &m, err, errlen) != 0)
        return -1;
    tb_apply(state, m);
    return 0;
}

char *tb_legal_text(const tb_state *state)
{
    tb_move moves[TB_MAX_MOVES];
    int n = tb_legal(state, moves);
    size_t cap = (size_t)n * 16 + 1, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (int i = 0; i < n; i++) {
        char t[TB_MOVE_TEXT];
        int tlen = tb_move_to_text(state, moves[i], t, sizeof t);
        if (tlen < 0)
            tlen = 0;
        if (tlen >= (int)sizeof t)
            tlen = (int)sizeof t - 1;
        if (len + (size_t)tlen + 2 > cap) {
            cap = (len + (size_t)tlen + 2) * 2;
            char *p = realloc(out, cap);
            if (!p) {
                free(out);
                return NULL;
            }
            out = p;
        }
        if (i)
            out[len++] = '\n';
        memcpy(out + len, t, (size_t)tlen);
        len += (size_t)tlen;
    }
    out[len] = '\0';
    return out;
}

void tb_scores(const tb_state *state, int out[TB_MAX_SEATS])
{
    state->game->scores(state, out);
}

void tb_ranks(const tb_state *state, int out[TB_MAX_SEATS])
{
    int sc[TB_MAX_SEATS];
    tb_scores(state, sc);
    for (int i = 0; i < state->players; i++) {
        int better = 0;
        for (int j = 0; j < state->players; j++)
            if (sc[j] > sc[i])
                better++;
        out[i] = better + 1;
    }
}

void tb_returns(const tb_state *state, double out[TB_MAX_SEATS])
{
    int ranks[TB_MAX_SEATS];
    tb_ranks(state, ranks);
    int winners = 0;
    for (int i = 0; i < state->players; i++)
        winners += ranks[i] == 1;
    for (int i = 0; i < state->players; i++)
        out[i] = ranks[i] == 1 ? 1.0 / winners : 0.0;
}

double tb_heuristic(const tb_state *state, int seat)
{
    return state->game->heuristic ? state->game->heuristic(state, seat) : 0.5;
}

void tb_heuristic_all(const tb_state *state, double out[TB_MAX_SEATS])
{
    if (state->game->heuristic && state->game->heuristic_all) {
        state->game->heuristic_all(state, out);
        return;
    }
    for (int p = 0; p < state->players; p++)
        out[p] = tb_heuristic(state, p);
}

char *tb_view_json(const tb_state *state, int seat)
{
    json_t *j = state->game->view_json(state, seat);
    char *s = tb__json_dump(j);
    json_decref(j);
    return s;
}

static json_t *state_options_json(const tb_options *o)
{
    json_t *j = json_object();
    for (int i = 0; i < o->count; i++)
        json_object_set_new(j, o->item[i].key, json_string(o->item[i].value));
    return j;
}

char *tb_state_json(const tb_state *state)
{
    json_t *j = json_object();
    char buf[32];
    json_object_set_new(j, "game", json_string(state->game->name));
    json_object_set_new(j, "players", json_integer(state->players));
    snprintf(buf, sizeof buf, "%" PRIu64, state->seed);
    json_object_set_new(j, "seed", json_string(buf));
    json_t *rng = json_array();
    for (int i = 0; i < 4; i++) {
        snprintf(buf, sizeof buf, "%016" PRIx64, state->rng.s[i]);
        json_array_append_new(rng, json_string(buf));
    }
    json_object_set_new(j, "rng", rng);
    json_object_set_new(j, "decisions", json_integer(state->decisions));
    tb_options o;
    tb_state_options(state, &o);
    json_object_set_new(j, "options", state_options_json(&o));
    if (state->data)
        json_object_set_new(j, "data", tb__data_json(state->data));
    json_t *own = state->game->state_json(state);
    if (!own || json_object_update(j, own) != 0)
        tb__json_oom = true;
    json_decref(own);
    char *s = tb__json_dump(j);
    json_decref(j);
    return s;
}

json_t *tb__result_tree(const tb_state *state)
{
    int sc[TB_MAX_SEATS], rk[TB_MAX_SEATS];
    tb_scores(state, sc);
    tb_ranks(state, rk);
    json_t *j = json_object();
    json_t *scores = json_array(), *ranks = json_array(), *winners = json_array();
    for (int i = 0; i < state->players; i++) {
        json_array_append_new(scores, json_integer(sc[i]));
        json_array_append_new(ranks, json_integer(rk[i]));
        if (rk[i] == 1)
            json_array_append_new(winners, json_integer(i));
    }
    json_object_set_new(j, "over", json_boolean(tb_is_over(state)));
    json_object_set_new(j, "scores", scores);
    json_object_set_new(j, "ranks", ranks);
    json_object_set_new(j, "winners", winners);
    return j;
}

char *tb_result_json(const tb_state *state)
{
    json_t *j = tb__result_tree(state);
    char *s = tb__json_dump(j);
    json_decref(j);
    return s;
}

int tb_score_breakdown(const tb_state *state, int seat, tb_score_part out[TB_BREAKDOWN_MAX])
{
    if (!state || !out || seat < 0 || seat >= state->players || !state->game->score_breakdown)
        return -1;
    tb_score_part parts[TB_BREAKDOWN_MAX];
    memset(parts, 0, sizeof parts);
    int n = state->game->score_breakdown(state, seat, parts);
    if (n < 0 || n > TB_BREAKDOWN_MAX)
        return -1;
    int sc[TB_MAX_SEATS], sum = 0;
    tb_scores(state, sc);
    for (int i = 0; i < n; i++) {
        parts[i].source[TB_SOURCE_LEN - 1] = '\0';
        sum += parts[i].points;
    }
    if (sum != sc[seat])
        return -1; /* never show parts that do not add up to the score */
    memcpy(out, parts, (size_t)n * sizeof *parts);
    return n;
}

/* Every seat's breakdown as a tree; *none when some seat has none (NULL
 * then); NULL with *none false when memory ran out. */
static json_t *state_breakdown_tree(const tb_state *state, bool *none)
{
    *none = false;
    json_t *all = json_array();
    for (int p = 0; p < state->players; p++) {
        tb_score_part parts[TB_BREAKDOWN_MAX];
        int n = tb_score_breakdown(state, p, parts);
        if (n < 0) {
            json_decref(all);
            *none = true;
            return NULL;
        }
        json_t *seat = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(seat, json_pack("{s:s, s:i}", "source", parts[i].source,
                                                  "points", parts[i].points));
        json_array_append_new(all, seat);
    }
    return all;
}

char *tb_score_breakdown_json(const tb_state *state)
{
    bool none;
    json_t *all = state_breakdown_tree(state, &none);
    if (none)
        return NULL;
    char *s = tb__json_dump(all);
    json_decref(all);
    return s;
}

char *tb_result_breakdown_json(const tb_state *state)
{
    bool none;
    json_t *j = tb__result_tree(state), *parts = state_breakdown_tree(state, &none);
    json_object_set_new(j, "breakdown", none ? json_null() : parts);
    char *s = tb__json_dump(j);
    json_decref(j);
    return s;
}

/* Parses a decimal uint64 string; 0 on success. */
static int state_parse_u64(const char *s, int base, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, base);
    if (*end)
        return -1;
    *out = v;
    return 0;
}

int tb_state_from_json(tb_state *state, const tb_game *game, const char *json, char *err,
                       size_t errlen)
{
    return tb_state_from_json_in(state, game, json, NULL, err, errlen);
}

int tb_state_from_json_in(tb_state *state, const tb_game *game, const char *json,
                          const tb_data_set *boards, char *err, size_t errlen)
{
    json_error_t jerr;
    /* read once: states are read at every step of the simulations' round
     * trips, and a reading that memory running out spoiled is caught by the
     * game's own checks in nearly every case (records are read twice) */
    json_t *j = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);
    if (!j)
        return tb__errf(err, errlen, "bad JSON at line %d column %d: %s", jerr.line,
                        jerr.column, tb__json_error_words(&jerr));
    int rc = -1;
    tb_state *tmp = NULL;
    if (!json_is_object(j)) {
        tb__errf(err, errlen, "a state must be a JSON object");
        goto done;
    }
    const char *name = json_string_value(json_object_get(j, "game"));
    if (!name || strcmp(name, game->name) != 0) {
        tb__errf(err, errlen, "this is not a %s state ('game' is %s)", game->name,
                 name ? name : "missing");
        goto done;
    }
    tmp = tb_state_new(game);
    if (!tmp) {
        tb__errf(err, errlen, "out of memory while reading the state");
        goto done;
    }
    if (tb__data_from_json(game, json_object_get(j, "data"), boards, &tmp->data, err, errlen))
        goto done;
    long long v;
    if (tb__json_int(j, "players", game->min_players, game->max_players, &v, err, errlen))
        goto done;
    tmp->players = (int32_t)v;
    if (tb__json_int(j, "decisions", 0, 1000000000, &v, err, errlen))
        goto done;
    tmp->decisions = (int32_t)v;
    if (state_parse_u64(json_string_value(json_object_get(j, "seed")), 10, &tmp->seed)) {
        tb__errf(err, errlen, "'seed' must be a decimal string");
        goto done;
    }
    const json_t *rng = json_object_get(j, "rng");
    if (!json_is_array(rng) || json_array_size(rng) != 4) {
        tb__errf(err, errlen, "'rng' must be an array of 4 hex strings");
        goto done;
    }
    for (size_t i = 0; i < 4; i++) {
        const char *h = json_string_value(json_array_get(rng, i));
        if (!h || strlen(h) != 16 || state_parse_u64(h, 16, &tmp->rng.s[i])) {
            tb__errf(err, errlen, "'rng' must be an array of 4 hex strings of 16 digits");
            goto done;
        }
    }
    const json_t *opts = json_object_get(j, "options");
    if (!json_is_object(opts)) {
        tb__errf(err, errlen, "'options' must be an object");
        goto done;
    }
    tb_options o;
    tb_options_clear(&o);
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)opts, key, val) {
        if (!json_is_string(val)) {
            tb__errf(err, errlen, "option '%s' must be a string", key);
            goto done;
        }
        if (tb_options_set(&o, key, json_string_value(val), err, errlen))
            goto done;
    }
    if (tb_options_normalize(game, &o, err, errlen))
        goto done;
    tb__options_encode(game, &o, tmp->option);
    if (game->state_from_json(tmp, j, err, errlen))
        goto done;
    memcpy(state, tmp, game->state_size);
    rc = 0;
done:
    free(tmp);
    json_decref(j);
    return rc;
}

tb_state *tb_state_load(const char *json, char *err, size_t errlen)
{
    return tb_state_load_in(json, NULL, err, errlen);
}

tb_state *tb_state_load_in(const char *json, const tb_data_set *boards, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *j = json_loads(json, 0, &jerr);
    if (!j) {
        tb__errf(err, errlen, "bad JSON at line %d column %d: %s", jerr.line, jerr.column,
                 tb__json_error_words(&jerr));
        return NULL;
    }
    const char *name = json_is_object(j) ? json_string_value(json_object_get(j, "game")) : NULL;
    const tb_game *g = tb_game_find(name);
    json_decref(j);
    if (!g) {
        tb__errf(err, errlen, "'game' must name a known game");
        return NULL;
    }
    tb_state *s = tb_state_new(g);
    if (!s) {
        tb__errf(err, errlen, "out of memory while reading the state");
        return NULL;
    }
    if (tb_state_from_json_in(s, g, json, boards, err, errlen)) {
        tb_state_free(s);
        return NULL;
    }
    return s;
}

void tb_resample(tb_state *state, int seat, tb_rng *rng)
{
    state->game->resample(state, seat, rng);
}

int tb_role_count(const tb_game *game)
{
    return game->role && game->set_roles ? game->role_count : 0;
}

const char *tb_role_name(const tb_game *game, int role)
{
    return role >= 0 && role < tb_role_count(game) ? game->role_names[role] : NULL;
}

int tb_role_of(const tb_state *state, int seat)
{
    if (!tb_role_count(state->game) || seat < 0 || seat >= state->players)
        return -1;
    return state->game->role(state, seat);
}

int tb_set_roles(tb_state *state, const int roles[TB_MAX_SEATS])
{
    int count = tb_role_count(state->game);
    if (!count)
        return -1;
    for (int p = 0; p < state->players; p++) {
        if (roles[p] < 0 || roles[p] >= count)
            return -1;
        for (int q = 0; q < p; q++)
            if (roles[q] == roles[p])
                return -1;
    }
    state->game->set_roles(state, roles);
    return 0;
}

char *tb_board_json(const tb_game *game)
{
    return tb_board_json_data(game, NULL);
}

char *tb_board_json_data(const tb_game *game, const tb_data *data)
{
    if (!data)
        data = game->data_builtin;
    json_t *j = data && game->data_board_json ? game->data_board_json(data) : game->board_json();
    char *s = tb__json_dump(j);
    json_decref(j);
    return s;
}

char *tb_render_text(const tb_state *state, int seat, unsigned flags)
{
    return state->game->render_text(state, seat, flags);
}

char *tb_render_text_in(const tb_state *state, int seat, unsigned flags, tb_translate_fn tr,
                        void *ctx)
{
    if (state->game->render_text_in)
        return state->game->render_text_in(state, seat, flags, tr, ctx);
    return state->game->render_text(state, seat, flags);
}

int tb_prompt_text(const tb_state *state, char *buf, size_t buflen)
{
    if (state->game->prompt_msg) {
        json_t *m = state->game->prompt_msg(state);
        char *text = m ? tb__msg_text(m, NULL, NULL) : NULL;
        json_decref(m);
        if (text) {
            int n = snprintf(buf, buflen, "%s", text);
            free(text);
            return n;
        }
    }
    return state->game->prompt_text(state, buf, buflen);
}

char *tb_prompt_json(const tb_state *state)
{
    json_t *m = NULL;
    if (state->game->prompt_msg) {
        m = state->game->prompt_msg(state);
    } else {
        char buf[512];
        state->game->prompt_text(state, buf, sizeof buf);
        m = tb__msg_word(buf); /* a game without messages: its English as it is */
    }
    char *s = m ? tb__json_dump(m) : NULL;
    json_decref(m);
    return s;
}

/* The name of a seat for narration: the caller's (a JSON string), else the
 * message "Seat N" (from 1).  NULL when memory runs out. */
static json_t *state_seat_name(const char *const *names, int seat)
{
    if (names && seat >= 0 && names[seat] && names[seat][0])
        return json_string(names[seat]);
    return tb__msg(N_("Seat {n}"), "n:d", seat + 1);
}

/* tb_narrate's message; NULL when the move is not legal or memory ran out. */
static json_t *state_narrate(const tb_state *state, tb_move move, const char *const *names)
{
    int mover = tb_to_move(state);
    if (mover < 0 || !tb_is_legal(state, move))
        return NULL;
    json_t *all[TB_MAX_SEATS] = {0};
    bool ok = true;
    for (int i = 0; i < state->players; i++)
        ok = (all[i] = state_seat_name(names, i)) != NULL && ok;
    json_t *m = NULL;
    const tb_game *g = state->game;
    if (ok && g->narrate) {
        tb_state *after = tb_state_dup(state);
        if (after) {
            tb_apply(after, move);
            m = g->narrate(state, move, after, all[mover], all);
            tb_state_free(after);
        }
    }
    if (!m && ok) {
        char notation[TB_MOVE_TEXT];
        if (tb_move_to_text(state, move, notation, sizeof notation) < 0)
            snprintf(notation, sizeof notation, "?");
        m = tb__msg(N_("{who} plays {move}"), "who:m move:s", json_incref(all[mover]), notation);
    }
    for (int i = 0; i < state->players; i++)
        json_decref(all[i]);
    return m;
}

int tb_narrate(const tb_state *state, tb_move move, const char *const *names, char *buf,
               size_t buflen)
{
    char notation[TB_MOVE_TEXT];
    if (tb_move_to_text(state, move, notation, sizeof notation) < 0)
        snprintf(notation, sizeof notation, "?");
    if (buflen)
        buf[0] = '\0';
    int mover = tb_to_move(state);
    if (mover < 0 || !tb_is_legal(state, move)) {
        snprintf(buf, buflen, "%s", notation);
        return -1;
    }
    json_t *m = state_narrate(state, move, names);
    char *text = m ? tb__msg_text(m, NULL, NULL) : NULL;
    json_decref(m);
    int n;
    if (text) {
        n = snprintf(buf, buflen, "%s", text);
    } else { /* no memory: the notation alone, named as it can be */
        if (names && names[mover] && names[mover][0])
            n = snprintf(buf, buflen, "%s plays %s", names[mover], notation);
        else
            n = snprintf(buf, buflen, "Seat %d plays %s", mover + 1, notation);
    }
    free(text);
    return n;
}

char *tb_narrate_json(const tb_state *state, tb_move move, const char *const *names)
{
    json_t *m = state_narrate(state, move, names);
    char *s = m ? tb__json_dump(m) : NULL;
    json_decref(m);
    return s;
}

char *tb_stage_json(const tb_state *state)
{
    json_t *m = NULL;
    if (state->game->stage_msg) {
        m = state->game->stage_msg(state);
    } else {
        char buf[128];
        tb_stage_text(state, buf, sizeof buf);
        m = tb__msg_word(buf);
    }
    char *s = m ? tb__json_dump(m) : NULL;
    json_decref(m);
    return s;
}

int tb_stage_text(const tb_state *state, char *buf, size_t buflen)
{
    if (buflen)
        buf[0] = '\0';
    if (state->game->stage_msg) {
        json_t *m = state->game->stage_msg(state);
        char *text = m ? tb__msg_text(m, NULL, NULL) : NULL;
        json_decref(m);
        if (text) {
            int n = snprintf(buf, buflen, "%s", text);
            free(text);
            return n;
        }
    }
    return state->game->stage_text ? state->game->stage_text(state, buf, buflen) : 0;
}
