/*
 * game.h — the private contract between the core and each game (not public).
 *
 * A game is one `const struct tb_game` (a table of functions, SQLite io_methods
 * style) listed in registry.c.  Its state struct embeds `struct tb_state` as
 * its first member, so a `tb_state *` may be cast to the game's own type.
 *
 * Invariants every game keeps:
 *   - the state is plain data: no pointer but `base.game` (a pointer to a
 *     static const table) and `base.data` (the game's loaded data, see
 *     below), so copying is a memcpy of game->state_size bytes;
 *   - every random draw after setup comes from `base.rng`;
 *   - `legal` writes decisions in canonical sorted order and returns 0 only
 *     when the game is over;
 *   - `apply` is only handed legal decisions (the core checks when asked to);
 *   - `text_to_move` only parses: the core checks legality afterwards;
 *   - `view_json` and `render_text` reveal only what the seat may know.
 * Games use jansson for JSON, but the public API only trades in strings.
 *
 * Loadable data (docs/data-format.md).  A game whose boards and components
 * come from a data file fills in data_builtin, data_read and data_free.  Its
 * ONE parser (e.g. khronos_data.c) lives in the library and is also compiled
 * into the game's build-time generator, which turns data/GAME.txt into the
 * const tables of the built-in tb_data: both paths run the same code, and the
 * built-in data costs nothing at setup.  A tb_data is immutable and outlives
 * every state on it (the caller's tb_data_set owns read ones for the run), so
 * states hold a plain pointer, `base.data`, and copying a state needs no
 * reference count.  The game reaches its tables as base.data->tables (cast
 * to its own type); setup and state_from_json find base.data already set.
 * The core writes "data": {"name", "hash"} into state JSON and records and
 * checks it on reading, so games never see names or hashes.
 */
#ifndef TB_CORE_GAME_H
#define TB_CORE_GAME_H

#include "tabula.h"

#include <jansson.h>
#include <stdarg.h>

#include "text.h" /* the checked JSON setters (memory running out) */

/* The result as a tree (tb_result_json's content). */
json_t *tb__result_tree(const tb_state *state);

struct tb_state {
    const struct tb_game *game;
    const struct tb_data *data; /* the game's data; NULL for a game without */
    uint64_t seed;
    tb_rng rng;
    int32_t players;
    int32_t decisions; /* decisions applied since setup */
    /* Option values as indexes into each option's '|'-separated list, in the
     * order of the game's option table (tb__option_index reads them). */
    uint8_t option[TB_MAX_OPTIONS];
};

/* One game's loaded data (tabula.h): the built-in data are static const
 * (written by the game's generator), read ones are malloc'd by data.c. */
#define TB_DATA_HASH_LEN 17 /* 16 hex digits and the NUL */
struct tb_data {
    const struct tb_game *game;
    const void *tables; /* the game's own tables (e.g. const kh_tables *) */
    char name[TB_DATA_NAME];
    char hash[TB_DATA_HASH_LEN];
    bool builtin;
};

/* Where an encoder writes (actions.c): `touched` (NULL: not kept) lists the
 * entries it turned from zero to non-zero, so tb_observation_update clears
 * just those before the next position; `overflow`: the list could not grow
 * (the next update clears the whole tensor). */
typedef struct tb_obs_out {
    float *out;
    int32_t *touched;
    int n, cap;
    bool overflow;
    bool skip_static;
} tb_obs_out;

void tb__obs_grow(tb_obs_out *w);

static inline void tb__obs_put(tb_obs_out *w, float *p, float v)
{
    if (w->touched && v != 0.0f && *p == 0.0f) {
        if (w->n == w->cap)
            tb__obs_grow(w);
        if (w->n < w->cap)
            w->touched[w->n++] = (int32_t)(p - w->out);
        else
            w->overflow = true;
    }
    *p = v;
}

static inline void tb__obs_add(tb_obs_out *w, float *p, float v)
{
    tb__obs_put(w, p, *p + v);
}

struct tb_game {
    const char *name;
    const char *title;
    int min_players, max_players, default_players;
    size_t state_size;
    const tb_option_spec *options; /* ended by {NULL} */
    const char *notice;            /* provisional-data notice or NULL */

    /* Loadable data (see the top of this file); all NULL for a game without.
     * data_read parses a data file's text into the game's tables (malloc'd,
     * released by data_free) or returns NULL with err "WHERE:LINE: what is
     * wrong" (LINE counted from 1); it never exits and keeps no state. */
    const struct tb_data *data_builtin;
    void *(*data_read)(const char *text, size_t len, const char *where, char *err, size_t errlen);
    void (*data_free)(void *tables);

    /* base.game, seed, rng, players and options are already filled in. */
    int (*setup)(tb_state *s, char *err, size_t errlen);
    int (*to_move)(const tb_state *s);
    int (*legal)(const tb_state *s, tb_move *out);
    /* Optional: removes from moves[0..n) (legal, in canonical order) the
     * decisions another legal decision dominates (reaches the same position
     * for no more); keeps the order and at least one; returns how many are
     * left.  Such decisions stay legal: only searches skip them. */
    int (*undominated)(const tb_state *s, tb_move *moves, int n);
    /* True when the legal (and undominated) decisions never depend on what
     * resample re-deals (Clans: only the colours are secret): positions
     * reached by the same decisions from the same view then have the same
     * decisions in every guess, and a search may remember them
     * (tb_game_public_decisions). */
    bool public_decisions;
    void (*apply)(tb_state *s, tb_move m);
    /* Optional: a uniformly random legal move, faster than listing all. */
    tb_move (*random_move)(const tb_state *s, tb_rng *rng);
    /* Optional (with random_move): `count` draws exactly as that many
     * random_move calls would draw them, sharing the work they repeat. */
    void (*random_moves)(const tb_state *s, tb_rng *rng, tb_move *out, int count);
    /* Optional: random decisions to the end (or `limit` when > 0) with the
     * same draws as random_move + apply; returns the decisions played
     * (the core counts them into base.decisions). */
    int (*playout)(tb_state *s, tb_rng *rng, int limit);
    void (*scores)(const tb_state *s, int *out);
    int (*move_to_text)(const tb_state *s, tb_move m, char *buf, size_t buflen);
    int (*text_to_move)(const tb_state *s, const char *text, tb_move *out, char *err,
                        size_t errlen);
    json_t *(*view_json)(const tb_state *s, int seat);
    json_t *(*state_json)(const tb_state *s);
    /* Reads the game-specific part; the core already filled in the base. */
    int (*state_from_json)(tb_state *s, const json_t *j, char *err, size_t errlen);
    void (*resample)(tb_state *s, int seat, tb_rng *rng);
    /* Optional hidden roles (Clans: the colours): every seat holds one of
     * role_count roles, distinct, dealt at setup and kept all game, and sees
     * only its own until the end.  The legal decisions and what apply does
     * never depend on the roles (only scores, returns and the heuristic do).
     * role reads a seat's role; set_roles overwrites every seat's role with
     * roles[0..players), distinct and in range (the caller checks). */
    int role_count;                    /* 0: the game has no hidden roles */
    const char *const *role_names;     /* role_count names, for people */
    int (*role)(const tb_state *s, int seat);
    void (*set_roles)(tb_state *s, const int *roles);
    double (*heuristic)(const tb_state *s, int seat); /* optional */
    /* Optional, with heuristic: heuristic(s, p) for every seat p < players
     * into out[p], the very same doubles, in one pass (tb_heuristic_all:
     * the search judges every seat at each leaf). */
    void (*heuristic_all)(const tb_state *s, double *out);
    json_t *(*board_json)(void); /* a game without loadable data */
    /* A game with loadable data: the board JSON of those data (never NULL). */
    json_t *(*data_board_json)(const struct tb_data *data);
    char *(*render_text)(const tb_state *s, int seat, unsigned flags); /* TB_RENDER_* */
    /* Optional (tb_render_text_in): the same board in the language of tr
     * (NULL: English, exactly render_text's text). */
    char *(*render_text_in)(const tb_state *s, int seat, unsigned flags, tb_translate_fn tr,
                            void *ctx);
    int (*prompt_text)(const tb_state *s, char *buf, size_t buflen);
    /* Optional (tb_prompt_json): the prompt as a message (msg.h); when it is
     * there tb_prompt_text is its English.  NULL when memory runs out. */
    json_t *(*prompt_msg)(const tb_state *s);
    /* Optional (tb_narrate, tb_narrate_json): a sentence for the log saying
     * what the move did, from the states before and after it, as a message
     * (msg.h); public information only.  who is the mover's name and
     * names[seat] every seat's (each a JSON string or a nested message: the
     * callee takes references of its own).  NULL when memory runs out; without
     * it the log says "NAME plays MOVE". */
    json_t *(*narrate)(const tb_state *before, tb_move m, const tb_state *after, json_t *who,
                       json_t *const *names);
    /* Optional (tb_score_breakdown): where seat's score comes from, written
     * as at most TB_BREAKDOWN_MAX parts (source words for players, points)
     * in reading order; returns the count, or -1 when the state cannot say.
     * Reads only what the state keeps (a game adds a small per-seat tally
     * where the scores alone do not say), never the record.  The core checks
     * that the points add up to the seat's score and shows nothing if not. */
    int (*score_breakdown)(const tb_state *s, int seat, tb_score_part *out);
    /* Optional (tb_stage_text): "Epoch II", "Age 1, turn 2". */
    int (*stage_text)(const tb_state *s, char *buf, size_t buflen);
    /* Optional (tb_stage_json): the stage as a message; when it is there
     * tb_stage_text is its English.  NULL when memory runs out. */
    json_t *(*stage_msg)(const tb_state *s);
    /* Optional (tb_reveals, reveal.c): the seats (bit mask, 1u << seat) the
     * move shows something they could not know: a card or tile drawn or
     * shown, a secret of the mover's, chance.  When present it answers
     * alone, so it must cover all of these (test_core.c checks it against
     * the generic check: each seat's view after the move compared with the
     * views it gets in deals it could imagine, tb_resample); without it,
     * that generic check answers, at the cost of dozens of views. */
    unsigned (*reveals)(const tb_state *before, tb_move m, const tb_state *after);
    /* Optional (tb_settles_chance, reveal.c): whether the move took a card
     * or tile from a pile no seat can see into (dealt in order at setup: a
     * draw, a card turned up, a refill).  The core adds on its own whatever
     * draws from the state's generator (a shuffle, a die), so a game whose
     * hidden piles are all shuffled as they are drawn needs no hook. */
    bool (*settles_chance)(const tb_state *before, tb_move m, const tb_state *after);

    /* The action space (docs/python.md): a fixed count of integers per game,
     * and a bijection between the game's decisions and part of [0, count),
     * defined from the move encoding alone (a tb_move is a decision's
     * identity), so it never changes with the data or the position. */
    int (*num_actions)(int players);
    int (*move_to_action)(tb_move m);                /* -1: no decision of the game */
    int (*action_to_move)(int action, tb_move *out); /* 0 on success, -1 unused index */
    /* Optional: the observation tensor, a fixed number of floats per player
     * count, built only from what `seat` sees (two states with the same view
     * for the seat give the same floats).  The encoder writes into w->out,
     * which is zero wherever it has not written, through tb__obs_put and
     * tb__obs_add (so an update in place knows what to clear), except for the
     * entries that depend only on the game's data (terrain, tents): those it
     * writes directly, and skips when w->skip_static says they are there. */
    int (*observation_size)(int players);
    void (*observation)(const tb_state *s, int seat, tb_obs_out *w);
};



/* An action layout: moves encoded as kind << shift | payload, with kinds
 * 1..count, take the indexes [offset(kind), offset(kind) + width[kind]) in
 * kind order, payload first; width[0] is unused.  actions.c. */
typedef struct tb_action_layout {
    int shift;
    int count;
    const int32_t *width;
} tb_action_layout;
int tb__layout_total(const tb_action_layout *l);
int tb__layout_to_action(const tb_action_layout *l, tb_move m);
int tb__layout_to_move(const tb_action_layout *l, int action, tb_move *out);

/* The generator's step and bounded draw, inline for the hot paths of games;
 * rng.c's public functions are these same functions, so both give one stream. */
static inline uint64_t tb__rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t tb__rng_next(tb_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = tb__rng_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = tb__rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, bound) by Lemire's multiply-shift with rejection. */
static inline uint32_t tb__rng_below(tb_rng *rng, uint32_t bound)
{
    uint64_t m = (uint64_t)(uint32_t)(tb__rng_next(rng) >> 32) * bound;
    uint32_t low = (uint32_t)m;
    if (__builtin_expect(low < bound, 0)) { /* at most bound in 2^32 draws */
        uint32_t threshold = (uint32_t)(-bound) % bound;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(tb__rng_next(rng) >> 32) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* reveal.c: tb_reveals without the game's hook (for tests of the hooks). */
long tb__reveals_generic(const tb_state *state, tb_move move);

/* registry.c */
extern const struct tb_game tb__arkadia_game;
extern const struct tb_game tb__clans_game;
extern const struct tb_game tb__khronos_game;

/* util.c: small helpers shared by games and core. */
int tb__errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Compact, members in insertion order, malloc'd; NULL when j is NULL (its
 * tree could not be built) or memory runs out. */
char *tb__json_dump(const json_t *j);

/* A growable text buffer for renderers.  When memory runs out the buffer
 * stops growing and tb__buf_take gives NULL; nothing aborts. */
typedef struct tb_buf {
    char *data;
    size_t len, cap;
    bool failed;
} tb_buf;
void tb__buf_printf(tb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns data ("" if empty; NULL if memory ran out); the buffer is reset. */
char *tb__buf_take(tb_buf *b);

/* Shuffles n items of `size` bytes with Fisher-Yates from rng. */
void tb__shuffle(void *items, size_t n, size_t size, tb_rng *rng);

/* The index of the state's value for option `key` in the option's list of
 * allowed values (e.g. "off|on": 0 or 1); -1 if the game has no such option. */
int tb__option_index(const tb_state *s, const char *key);
/* Normalized options ↔ value indexes (options.c). */
int tb__options_encode(const tb_game *game, const tb_options *normalized, uint8_t *out);
void tb__options_defaults(const tb_game *game, uint8_t *out);
void tb__options_decode(const tb_game *game, const uint8_t *in, tb_options *out);

/* data.c: FNV-1a 64 of the normalised text of a data file (every line
 * whose first word does not start with '#', its words joined by one space,
 * lines joined by '\n'), as 16 lower-case hex digits.  Static inline so the
 * native generators hash exactly as the library does. */
static inline void tb__data_hash(const char *text, size_t len, char out[TB_DATA_HASH_LEN])
{
    uint64_t h = 0xcbf29ce484222325ULL;
    bool any_line = false;
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && text[end] != '\n')
            end++;
        size_t a = i;
        while (a < end && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r'))
            a++;
        if (a < end && text[a] != '#') {
            if (any_line) {
                h ^= (unsigned char)'\n';
                h *= 0x100000001b3ULL;
            }
            any_line = true;
            bool space = false, first = true;
            for (size_t k = a; k < end; k++) {
                char c = text[k];
                if (c == ' ' || c == '\t' || c == '\r') {
                    space = true;
                    continue;
                }
                if (space && !first) {
                    h ^= (unsigned char)' ';
                    h *= 0x100000001b3ULL;
                }
                space = false;
                first = false;
                h ^= (unsigned char)c;
                h *= 0x100000001b3ULL;
            }
        }
        i = end + 1;
    }
    static const char hex[] = "0123456789abcdef";
    for (int k = 0; k < 16; k++)
        out[k] = hex[(h >> (60 - 4 * k)) & 15];
    out[16] = '\0';
}

/* data.c: {"name", "hash"} of data; and the data a state or record names
 * (`board`: that object, or NULL for one written before data could be
 * loaded, which is on the built-in data), found in `boards` (NULL: built-in
 * only); 0 and *out on success, else err says what is missing or changed. */
json_t *tb__data_json(const tb_data *data);
bool tb__data_hash_ok(const char *hash); /* 16 lower-case hex digits */
int tb__data_lookup(const tb_game *game, const char *name, const char *hash,
                    const tb_data_set *boards, const tb_data **out, char *err, size_t errlen);
int tb__data_from_json(const tb_game *game, const json_t *board, const tb_data_set *boards,
                       const tb_data **out, char *err, size_t errlen);

/* Reads an integer member of an object within [lo, hi]; 0 on success. */
int tb__json_int(const json_t *obj, const char *key, long long lo, long long hi,
                 long long *out, char *err, size_t errlen);

#endif /* TB_CORE_GAME_H */
