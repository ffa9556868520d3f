/*
 * tabula.h — the one public header of the Tabula engine.
 *
 * Tabula plays Clans, Arkadia and Khronos.  Everything a caller needs is here:
 * the game registry, states and moves, options, hidden-information views,
 * records, agents and the seeded random generator.
 *
 * Contract kept by every game (see docs/api.md):
 *   - A state is a fixed-size plain struct with no pointers into the heap, so
 *     tb_state_copy is a memcpy and a search tree may hold millions of them.
 *   - All randomness comes from the generator held in the state, so
 *     game + options + seed + decisions replays exactly.
 *   - A turn is a sequence of atomic decisions; tb_legal lists every legal
 *     decision of the seat to move in one canonical sorted order, and is empty
 *     only when the game is over.
 *   - A tb_move value is the decision's identity: the same decision has the
 *     same value in every state where it is legal, and never encodes a secret
 *     (no hidden hand slot, no hidden card position).
 *   - tb_view_json(s, seat) shows only what that seat may know; two states
 *     that differ only in secrets the seat cannot see give byte-identical views
 *     and identical legal-move texts for the seat's own decisions.
 *   - tb_resample(s, seat, rng) re-deals every secret the seat cannot see,
 *     consistently with the seat's view, and its result depends only on that
 *     view and the generator (never on the true secrets).
 *
 * The library keeps no global mutable state: every call goes through a state
 * or object pointer, so threads that own distinct states need no locks.
 */
#ifndef TABULA_H
#define TABULA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TB_API marks the public functions: the shared library is built with
 * -fvisibility=hidden and exports exactly these. */
#if defined(__GNUC__) || defined(__clang__)
#define TB_API __attribute__((visibility("default")))
#else
#define TB_API
#endif

#define TB_VERSION "0.1.0"
#define TB_PROTOCOL_VERSION 2 /* docs/protocol.md: `legal` prints one decision a line */

#define TB_MAX_SEATS 5      /* most players any game allows */
#define TB_MAX_MOVES 4096   /* capacity callers give tb_legal */
#define TB_MOVE_TEXT 96     /* buffer size that always holds one move's text */
#define TB_ERR_LEN 256      /* suggested size of error-message buffers */
#define TB_OVER (-1)        /* tb_to_move when the game has ended */
#define TB_SPECTATOR (-1)   /* seat number of someone who holds no seat */

typedef uint32_t tb_move;
typedef struct tb_game tb_game;     /* a game's rules: one per game, const */
typedef struct tb_state tb_state;   /* one position of one game */
typedef struct tb_record tb_record; /* a game record (docs/records.md) */
typedef struct tb_data tb_data;     /* one game's boards and components (docs/data-format.md) */
typedef struct tb_data_set tb_data_set; /* the data sets a program has loaded */

/* ---- random numbers: xoshiro256** seeded through splitmix64 ---- */
typedef struct tb_rng {
    uint64_t s[4];
} tb_rng;

TB_API void tb_rng_seed(tb_rng *rng, uint64_t seed);
TB_API uint64_t tb_rng_next(tb_rng *rng);
/* Uniform in [0, bound); bound must be at least 1. */
TB_API uint32_t tb_rng_below(tb_rng *rng, uint32_t bound);
/* Uniform in [0, 1). */
TB_API double tb_rng_unit(tb_rng *rng);
/* A child generator whose stream is independent of the parent's. */
TB_API tb_rng tb_rng_split(tb_rng *rng);

/* ---- games ---- */
TB_API int tb_game_count(void);
TB_API const tb_game *tb_game_at(int index);          /* sorted by name; NULL past the end */
TB_API const tb_game *tb_game_find(const char *name); /* NULL when unknown */
TB_API const char *tb_game_name(const tb_game *game); /* "clans" */
TB_API const char *tb_game_title(const tb_game *game);
TB_API int tb_game_min_players(const tb_game *game);
TB_API int tb_game_max_players(const tb_game *game);
TB_API int tb_game_default_players(const tb_game *game);
/* A one-line notice when the game's component data is provisional, else NULL. */
TB_API const char *tb_game_notice(const tb_game *game);
TB_API size_t tb_state_size(const tb_game *game);
TB_API bool tb_game_has_heuristic(const tb_game *game);
/* True when the legal (and undominated) decisions never depend on what
 * tb_resample re-deals (Clans: only the colours are secret), so positions
 * reached by the same decisions from one view have the same decisions in
 * every guess of the hidden state. */
TB_API bool tb_game_public_decisions(const tb_game *game);

/* ---- board and component data (docs/data-format.md) ----
 *
 * A game whose boards and components come from a data file (Khronos,
 * Arkadia) has one set compiled in, its built-in data (named "default"), and
 * reads other files of the same text format at run time.  A tb_data is one
 * such set, immutable once read, named by a name (letters, digits, '-', '_')
 * and the hash of its content (16 hex digits: FNV-1a 64 of the normalised
 * text, so comments and spacing do not count).
 *
 * Ownership: a state set up on a tb_data points to it (a copy of the state
 * is still a memcpy); the caller keeps the tb_data alive, unchanged, for as
 * long as any state, record replay or agent uses it.  A tb_data_set owns the
 * data added to it and frees them with itself: programs keep one set for
 * their whole run.  Games without loadable data (Clans) have no tb_data; a
 * state of theirs has tb_state_data() == NULL. */
#define TB_DATA_NAME 32 /* the longest data name, with its final NUL */
#define TB_DATA_DEFAULT "default"

/* The game's built-in data, or NULL when the game reads none. */
TB_API const tb_data *tb_data_builtin(const tb_game *game);
/* Reads a data file's text (len bytes, need not end in NUL).  `name` is the
 * name the set goes by; `where` names the file in messages.  NULL on any
 * error, with err "WHERE:LINE: what is wrong" in an owner's words. */
TB_API tb_data *tb_data_read(const tb_game *game, const char *name, const char *text, size_t len,
                             const char *where, char *err, size_t errlen);
/* Reads the board file at `path` (through tb_file_read, so with its limits)
 * and names it after the file, without its folder and ".txt"
 * ("boards/castle-hill.txt" is "castle-hill"); a name that is no data name,
 * or "default", is refused.  NULL on any error, err saying why; errno is
 * then tb_file_read's when the file could not be read, 0 when its name or
 * content is at fault. */
TB_API tb_data *tb_data_read_file(const tb_game *game, const char *path, char *err, size_t errlen);
TB_API void tb_data_free(tb_data *data); /* a read set only; NULL is fine */
TB_API const tb_game *tb_data_game(const tb_data *data);
TB_API const char *tb_data_name(const tb_data *data);
TB_API const char *tb_data_hash(const tb_data *data);
TB_API bool tb_data_is_builtin(const tb_data *data);
/* Whether `name` may name a data set (a word of letters, digits, '-', '_'). */
TB_API bool tb_data_name_ok(const char *name);

/* A set of loaded data: every game's built-in data, plus those added. */
TB_API tb_data_set *tb_data_set_new(void); /* NULL: no memory */
TB_API void tb_data_set_free(tb_data_set *set);
/* Adds a read data set, which the set then owns (also on failure); fails
 * when the game already has a data set of that name. */
TB_API int tb_data_set_add(tb_data_set *set, tb_data *data, char *err, size_t errlen);
/* The game's data sets, the built-in one first, then by name. */
TB_API int tb_data_set_count(const tb_data_set *set, const tb_game *game);
TB_API const tb_data *tb_data_set_at(const tb_data_set *set, const tb_game *game, int index);
/* By name (NULL or "": the built-in one); NULL when there is none. */
TB_API const tb_data *tb_data_set_find(const tb_data_set *set, const tb_game *game,
                                       const char *name);

/* ---- files a user hands in: a board, a record, a state ----
 *
 * Every program of the project reads such a file through tb_file_read (the
 * command line, the server's --data-dir, the Python package), so all refuse
 * the same files in the same words. */
#define TB_FILE_MAX ((size_t)64 << 20) /* 64 MiB: far above any real board, record or state */

/* The whole text of the file at `path`: malloc'd (the caller frees it),
 * NUL-terminated, its length in *len when len is not NULL.  NULL, with err
 * saying why and errno set, when the file cannot be opened or read (errno as
 * the system gave it: ENOENT, EACCES ...); is a folder (EISDIR); is a device,
 * a FIFO or a socket (EINVAL: refused from its stat, never opened for reading
 * and never waited on); is larger than TB_FILE_MAX (EFBIG: refused before
 * reading when its size says so, and never read past TB_FILE_MAX + 1 bytes
 * otherwise); holds a NUL byte or is not UTF-8 (EILSEQ); or when memory runs
 * out (ENOMEM). */
TB_API char *tb_file_read(const char *path, size_t *len, char *err, size_t errlen);

/* ---- options: KEY=VALUE pairs a game declares (docs per game) ---- */
#define TB_MAX_OPTIONS 16
#define TB_OPTION_LEN 32

/* key, values and fallback are what machines read and write (records, the
 * protocol, POST /api/games); help, label and value_labels are for players:
 * plain words, no rule numbers or jargon. */
typedef struct tb_option_spec {
    const char *key;
    const char *values; /* allowed values separated by '|' */
    const char *fallback; /* the default value */
    const char *help; /* one sentence: what the option changes */
    const char *label; /* the option's name for players ("Mirrored buildings") */
    const char *value_labels; /* the values' names for players, '|'-separated like values */
} tb_option_spec;

typedef struct tb_options {
    int count;
    struct {
        char key[TB_OPTION_LEN];
        char value[TB_OPTION_LEN];
    } item[TB_MAX_OPTIONS];
} tb_options;

/* The game's option table, ended by an entry whose key is NULL. */
TB_API const tb_option_spec *tb_game_options(const tb_game *game);
TB_API void tb_options_clear(tb_options *opts);
/* Sets KEY to VALUE (replacing an earlier value); 0 on success. */
TB_API int tb_options_set(tb_options *opts, const char *key, const char *value, char *err, size_t errlen);
/* Parses "key=value"; 0 on success. */
TB_API int tb_options_set_pair(tb_options *opts, const char *pair, char *err, size_t errlen);
TB_API const char *tb_options_get(const tb_options *opts, const char *key); /* NULL if unset */
/* Checks every key and value against the game's table and fills in defaults,
 * so the result lists every option of the game in table order. 0 on success. */
TB_API int tb_options_normalize(const tb_game *game, tb_options *opts, char *err, size_t errlen);

/* ---- states ----
 *
 * Memory: nothing in the library aborts when memory runs out.  A function
 * that allocates returns NULL (or -1 with err saying "out of memory") and
 * leaves its arguments as they were; the caller answers that one request. */
TB_API tb_state *tb_state_new(const tb_game *game); /* zeroed; call tb_setup next; NULL: no memory */
TB_API void tb_state_free(tb_state *state);
TB_API tb_state *tb_state_dup(const tb_state *state); /* NULL: no memory */
TB_API void tb_state_copy(tb_state *dst, const tb_state *src); /* same game; a memcpy */
TB_API bool tb_state_equal(const tb_state *a, const tb_state *b); /* byte equality */

/* Deals a new game.  opts may be NULL (all defaults).  0 on success; on an
 * error (bad player count, bad option) the state is left unusable and err
 * says why. */
TB_API int tb_setup(tb_state *state, int players, const tb_options *opts, uint64_t seed,
             char *err, size_t errlen);
/* tb_setup on given data (of the state's game; NULL: the built-in data).
 * tb_setup is tb_setup_data with NULL. */
TB_API int tb_setup_data(tb_state *state, const tb_data *data, int players, const tb_options *opts,
                         uint64_t seed, char *err, size_t errlen);
/* The data the state plays on (NULL for a game without loadable data). */
TB_API const tb_data *tb_state_data(const tb_state *state);

TB_API const tb_game *tb_state_game(const tb_state *state);
TB_API int tb_players(const tb_state *state);
TB_API uint64_t tb_seed(const tb_state *state);
/* The normalized options the state was set up with. */
TB_API void tb_state_options(const tb_state *state, tb_options *out);
TB_API int tb_to_move(const tb_state *state); /* seat, or TB_OVER */
TB_API bool tb_is_over(const tb_state *state);
TB_API int tb_decisions_made(const tb_state *state); /* decisions applied since setup */

/* Writes every legal decision in canonical order; returns how many. */
TB_API int tb_legal(const tb_state *state, tb_move out[TB_MAX_MOVES]);
/* The legal decisions worth searching, in canonical order: tb_legal less
 * those the game knows another legal decision dominates (it reaches the same
 * position for no more, e.g. a Khronos adventurer travelling twice without
 * playing a card).  Never empty while the game is not over. */
TB_API int tb_legal_undominated(const tb_state *state, tb_move out[TB_MAX_MOVES]);
TB_API bool tb_is_legal(const tb_state *state, tb_move move);
/* Applies a decision that must be legal (unchecked: fast path for search). */
TB_API void tb_apply(tb_state *state, tb_move move);
/* Applies a decision after checking it; 0 on success, else the state is unchanged. */
TB_API int tb_apply_checked(tb_state *state, tb_move move, char *err, size_t errlen);
/* A uniformly random legal decision (the game may have a fast path). */
TB_API tb_move tb_random_move(const tb_state *state, tb_rng *rng);
/* `count` independent uniformly random legal decisions (repeats possible) in
 * out[]: exactly what `count` calls of tb_random_move would draw, only faster
 * (what the draws share, a legal list or a game's searches, is done once). */
TB_API void tb_random_moves(const tb_state *state, tb_rng *rng, tb_move *out, int count);

/* Plays uniformly random decisions until the game is over (or `limit`
 * decisions, when limit > 0); returns how many were played.  Exactly the
 * same as repeating tb_apply(state, tb_random_move(state, rng)), only faster. */
TB_API int tb_playout(tb_state *state, tb_rng *rng, int limit);

/* Notation (docs/notation.md).  move_to_text returns the text length. */
TB_API int tb_move_to_text(const tb_state *state, tb_move move, char *buf, size_t buflen);
/* Parses the text of a decision legal in this state; 0 on success, else err
 * says whether the text is malformed or names an illegal decision. */
TB_API int tb_text_to_move(const tb_state *state, const char *text, tb_move *out,
                    char *err, size_t errlen);
/* Parses and applies; 0 on success, else the state is unchanged. */
TB_API int tb_play_text(tb_state *state, const char *text, char *err, size_t errlen);
/* All legal decisions as text, one per line with no final newline (malloc'd;
 * "" when the game is over; NULL: no memory).  A decision's text may contain
 * spaces. */
TB_API char *tb_legal_text(const tb_state *state);

/* Scores and results.  Arrays have tb_players() entries. */
TB_API void tb_scores(const tb_state *state, int out[TB_MAX_SEATS]);
TB_API void tb_ranks(const tb_state *state, int out[TB_MAX_SEATS]); /* 1 = first; ties share */
/* Per-seat return in [0,1] for search: each winner gets 1/(number of
 * winners), the others 0.  Meaningful when the game is over. */
TB_API void tb_returns(const tb_state *state, double out[TB_MAX_SEATS]);
/* The game's evaluation of the position for a seat, in [0,1] (0.5 when the
 * game has none).  Uses only what that seat may see. */
TB_API double tb_heuristic(const tb_state *state, int seat);
/* tb_heuristic of every seat into out[0..players), the same values, in one
 * call (cheaper where the game judges all seats in one pass). */
TB_API void tb_heuristic_all(const tb_state *state, double out[TB_MAX_SEATS]);

/* Where each seat's score comes from: labelled parts ("Epoch II villages",
 * "Gold from sales") whose points add up to exactly the seat's score from
 * tb_scores.  Public information, meant for the end of the game.  Returns the
 * number of parts written to out (at most TB_BREAKDOWN_MAX), or -1 when the
 * game gives no breakdown or the parts of this state do not add up (a state
 * the game cannot explain); nothing is written then. */
#define TB_BREAKDOWN_MAX 16
#define TB_SOURCE_LEN 48
typedef struct tb_score_part {
    char source[TB_SOURCE_LEN]; /* for players, e.g. "Epoch II villages" */
    int points;
} tb_score_part;
TB_API int tb_score_breakdown(const tb_state *state, int seat,
                              tb_score_part out[TB_BREAKDOWN_MAX]);

/* JSON (malloc'd, compact, one line; the caller frees; NULL when memory runs
 * out, as for every malloc'd text below: tb_render_text, records, boards). */
TB_API char *tb_view_json(const tb_state *state, int seat); /* seat -1: spectator */
TB_API char *tb_state_json(const tb_state *state);           /* everything, secrets included */
TB_API char *tb_result_json(const tb_state *state);          /* scores, ranks, winners */
/* tb_score_breakdown of every seat: [[{"source":S,"points":N},...],...],
 * one array per seat; NULL when any seat has none. */
TB_API char *tb_score_breakdown_json(const tb_state *state);
/* tb_result_json with "breakdown": tb_score_breakdown_json, or null when the
 * game gives none (what the engine's result command and the server send;
 * records keep tb_result_json). */
TB_API char *tb_result_breakdown_json(const tb_state *state);
/* Replaces *state (of this game) with a state read from tb_state_json output.
 * 0 on success; on any error the state is unchanged and err says why. */
TB_API int tb_state_from_json(tb_state *state, const tb_game *game, const char *json,
                       char *err, size_t errlen);

/* Reads a state of any game from tb_state_json output into a new state;
 * NULL and err on failure. */
TB_API tb_state *tb_state_load(const char *json, char *err, size_t errlen);
/* The same, finding the data the state names ("data": name and hash) in
 * `boards` (NULL: built-in data only).  A state naming data that is not
 * there, or whose hash differs, is refused and err says so; a state that
 * names none (written before data could be loaded) is on the built-in data. */
TB_API int tb_state_from_json_in(tb_state *state, const tb_game *game, const char *json,
                                 const tb_data_set *boards, char *err, size_t errlen);
TB_API tb_state *tb_state_load_in(const char *json, const tb_data_set *boards, char *err,
                                  size_t errlen);

/* Re-deals every secret `seat` cannot see (see the contract above). */
TB_API void tb_resample(tb_state *state, int seat, tb_rng *rng);

/* Which seats `move` (legal, about to be played in `state`) shows something
 * they could not know before: a card drawn, a tile from a bag, an outcome
 * of chance, a secret of the mover's.  A bit mask, 1L << seat per seat that
 * learns; 0: nothing hidden comes out (such a decision can be taken back
 * without anyone having gained from it).  -1: the move is not legal, the
 * game is over, or out of memory.  The same answer every time for the same
 * state and move (docs/api.md says how it is found). */
TB_API long tb_reveals(const tb_state *state, tb_move move);
/* Whether `move` (legal, about to be played in `state`) settles an outcome
 * of chance: a card or tile drawn or turned up from a pile no seat can see
 * into, a pile shuffled, a die rolled.  1: it does; 0: it does not (showing
 * or paying one's own card settles nothing); -1: the move is not legal,
 * the game is over, or out of memory.  Exact, one apply, and the same
 * answer every time for the same state and move. */
TB_API int tb_settles_chance(const tb_state *state, tb_move move);
/* Hidden roles (Clans: the colours): in a game that has them every seat
 * holds one of tb_role_count roles, distinct, dealt at setup and kept all
 * game; a seat sees only its own until the end; the legal decisions and
 * their effects never depend on the roles (scores and the heuristic do).
 * tb_role_count is 0 for a game without them.  tb_role_of reads a seat's
 * role from the state it is given (a secret of that seat: -1 without
 * roles or for a bad seat); tb_set_roles overwrites every seat's role
 * (roles[0..players), distinct and in range; 0 on success, else -1 and the
 * state is unchanged).  Searches use it to deal roles by what they infer. */
TB_API int tb_role_count(const tb_game *game);
TB_API const char *tb_role_name(const tb_game *game, int role); /* NULL: no such role */
TB_API int tb_role_of(const tb_state *state, int seat);
TB_API int tb_set_roles(tb_state *state, const int roles[TB_MAX_SEATS]);

/* The game's static board and component data as JSON (malloc'd): what a user
 * interface needs to draw the board (e.g. Clans: territories with terrain,
 * region, centre and neighbours, and the epoch chart). */
TB_API char *tb_board_json(const tb_game *game);
/* The same for given data (NULL: the built-in data). */
TB_API char *tb_board_json_data(const tb_game *game, const tb_data *data);

/* A readable text board as `seat` sees it (malloc'd).  Flags: ANSI colours;
 * hide the other seats' totals (a player's choice where the rules make them
 * public but the table keeps them behind screens, e.g. Arkadia's gold). */
#define TB_RENDER_COLOUR 1u
#define TB_RENDER_HIDE_TOTALS 2u
TB_API char *tb_render_text(const tb_state *state, int seat, unsigned flags);
/* The same board with its words in the language of `tr` (tb_translate_fn,
 * "Messages" below; NULL: English, exactly tb_render_text).  A game whose
 * board has no translated words gives its English board. */
typedef const char *(*tb_translate_fn)(void *ctx, const char *msgid, const char *msgid_plural,
                                       long n);
TB_API char *tb_render_text_in(const tb_state *state, int seat, unsigned flags, tb_translate_fn tr,
                               void *ctx);
/* A one-line description of what the seat to move must decide now. */
TB_API int tb_prompt_text(const tb_state *state, char *buf, size_t buflen);
/* The same as a message (malloc'd JSON, see "Messages" below): tb_msg_text
 * of it in English is tb_prompt_text's text; NULL when memory runs out.
 * The notation in it (FROM-TO, "village T") stays as it is in every
 * language: it is what the player types. */
TB_API char *tb_prompt_json(const tb_state *state);
/* One sentence telling a person what `move` (legal in `state`, not yet
 * applied) does, as a game log says it: "Anna moves 3 huts from the forest at
 * 12 to the grassland at 17 and founds a village: red +8, blue +8".  It says
 * only what every seat sees (never a drawn card or a secret colour), so it may
 * be shown to anyone.  names[seat] names the players (NULL, or a NULL entry:
 * "Seat N", counted from 1).  Returns the length, as snprintf; -1 if the move
 * is not legal there (buf then holds the move's notation, if any). */
TB_API int tb_narrate(const tb_state *state, tb_move move, const char *const *names, char *buf,
                      size_t buflen);
/* Messages: words for people in any language (docs/api.md, "Messages").
 * A message is JSON {"msg": TEMPLATE, "args": {NAME: VALUE}} with an
 * optional "plural": TEMPLATE_PLURAL chosen by args.n; TEMPLATE is English
 * with named placeholders "{who}", the msgid of the catalogues (po/LANG.po);
 * a VALUE is a number, a string (a name, kept as it is) or a nested
 * message.  A language is a lookup: given a template (and its plural and
 * the count, or NULL and 0) it gives the translated template, or NULL when
 * it has none (English is then used). */
/* The text of a message (JSON text) in the language of `tr` (NULL: English);
 * malloc'd, NULL when `msg_json` is not a message or memory runs out.  A
 * translation that is broken (an unclosed brace, an unknown name) falls back
 * to the English template. */
TB_API char *tb_msg_text(const char *msg_json, tb_translate_fn tr, void *ctx);
/* tb_narrate as a message (malloc'd JSON): tb_msg_text of it in English is
 * exactly tb_narrate's text.  A seat without a name is the nested message
 * "Seat {n}".  NULL when the move is not legal there or memory runs out. */
TB_API char *tb_narrate_json(const tb_state *state, tb_move move, const char *const *names);
/* Where the game stands, in a few words for grouping a log: "Epoch II",
 * "Age 1, turn 2"; "" for a game that has no such stages. */
TB_API int tb_stage_text(const tb_state *state, char *buf, size_t buflen);
/* The same as a message (malloc'd JSON; {"msg": ""} for a game without
 * stages); NULL when memory runs out. */
TB_API char *tb_stage_json(const tb_state *state);

/* ---- for learning code: actions and observations (docs/python.md) ---- */
/* The size of the game's action space: decisions map to integers in
 * [0, tb_num_actions), the same for every version of the game's data (many
 * indexes are never legal; policy heads mask them).  0 for a bad count. */
TB_API int tb_num_actions(const tb_game *game, int players);
/* A decision's action index, or -1 when `move` is no decision of the game. */
TB_API int tb_move_to_action(const tb_game *game, tb_move move);
/* The decision of an action index; 0 on success, -1 for an index no decision has. */
TB_API int tb_action_to_move(const tb_game *game, int action, tb_move *out);
/* The legal decisions as action indexes, in tb_legal's order; returns how many. */
TB_API int tb_legal_actions(const tb_state *state, int32_t out[TB_MAX_MOVES]);
/* Floats in the game's observation for this player count (0: the game has no
 * encoder yet). */
TB_API int tb_observation_size(const tb_game *game, int players);
/* Writes the observation of `seat` (built only from what the seat sees; the
 * layout is in docs/python.md); returns the count written, 0 when none. */
TB_API int tb_observation(const tb_state *state, int seat, float *out);
/* The same observation, rewritten in place with less work, for batches kept
 * in memory: `out` must hold what the last call with this track wrote and be
 * otherwise untouched (a new track, or one last used for another game, player
 * count or board, clears all of `out` first).  Clears only the entries its
 * last encoding set, skips those that depend only on the board, then writes
 * exactly tb_observation(state, seat).  Returns the count, 0 when none. */
typedef struct tb_obs_track tb_obs_track;
TB_API tb_obs_track *tb_obs_track_new(void); /* NULL: out of memory */
TB_API void tb_obs_track_free(tb_obs_track *track);
TB_API int tb_observation_update(const tb_state *state, int seat, float *out, tb_obs_track *track);
/* tb_observation_update for `count` states at once: row k of `out` (rows
 * `stride` floats apart) becomes the observation of states[k] by seats[k],
 * kept with tracks[k] (each track with its own row, as above).  Faster than
 * one call per row: it writes only the entries whose value changed.  0, or
 * -1 out of memory (then no row changed). */
TB_API int tb_observation_update_batch(const tb_state *const *states, const int *seats, int count,
                                       float *out, size_t stride, tb_obs_track *const *tracks);

/* ---- records (docs/records.md) ---- */
/* NULL when memory runs out. */
TB_API tb_record *tb_record_new(const tb_game *game, int players, const tb_options *opts, uint64_t seed);
TB_API void tb_record_free(tb_record *rec);
/* The data the game is played on (NULL: built-in); the record keeps its name
 * and hash, and writes them as "data" (docs/records.md). */
TB_API void tb_record_set_data(tb_record *rec, const tb_data *data);
TB_API const char *tb_record_data_name(const tb_record *rec); /* "default" when none named */
TB_API const char *tb_record_data_hash(const tb_record *rec); /* NULL when none named */
TB_API const tb_game *tb_record_game(const tb_record *rec);
TB_API int tb_record_players(const tb_record *rec);
TB_API uint64_t tb_record_seed(const tb_record *rec);
TB_API void tb_record_set_player(tb_record *rec, int seat, const char *name, const char *kind);
TB_API const char *tb_record_player_name(const tb_record *rec, int seat);
TB_API const char *tb_record_player_kind(const tb_record *rec, int seat);
TB_API void tb_record_set_times(tb_record *rec, const char *started, const char *finished);
TB_API int tb_record_push(tb_record *rec, const char *move_text); /* 0 on success */
/* Makes room for pushing `move_text` next, so that the tb_record_push of that
 * very text cannot fail (a server reserves before it stores a decision and
 * pushes once it is stored).  0 on success, -1 when memory runs out (the
 * record unchanged). */
TB_API int tb_record_reserve(tb_record *rec, const char *move_text);
TB_API void tb_record_pop(tb_record *rec);
TB_API int tb_record_length(const tb_record *rec);
TB_API const char *tb_record_move(const tb_record *rec, int index);
/* The record as one-line JSON.  `final` (may be NULL) supplies the result when
 * the game is over.  A sealed record (for a seat, or -1 for a spectator) omits
 * the seed and carries that seat's view instead, as long as the game is not
 * over. */
TB_API char *tb_record_json(const tb_record *rec, const tb_state *final);
TB_API char *tb_record_json_sealed(const tb_record *rec, const tb_state *current, int seat);
TB_API tb_record *tb_record_from_json(const char *json, char *err, size_t errlen);
/* A copy of the whole record (NULL when memory ran out). */
TB_API tb_record *tb_record_dup(const tb_record *rec);
/* Replays the first `upto` decisions (-1: all) into a new state; NULL and err
 * on a record that does not replay. */
TB_API tb_state *tb_record_replay(const tb_record *rec, int upto, char *err, size_t errlen);
/* The same, on the data the record names found in `boards` (NULL: built-in
 * only); a record naming data that is missing or changed (another hash) is
 * refused, err saying which. */
TB_API tb_state *tb_record_replay_in(const tb_record *rec, int upto, const tb_data_set *boards,
                                     char *err, size_t errlen);
/* A game's story in numbers, what a result page's score graph, points by
 * stage and score breakdown read (malloc'd JSON; NULL and err when the record
 * does not replay):
 * {"players", "total", "scores": [[s0, s1, ...] for steps 0..total],
 *  "stages": [tb_stage_text of steps 0..total],
 *  "by_stage": [{"stage", "from", "to", "points": [per seat],
 *                "parts": [per seat [{"source", "points"}] or null]}]}.
 * Decision k belongs to the stage of step k; a stage's points are the scores
 * at `to` minus those at `from`, its parts the change of each score breakdown
 * source over those steps (unchanged sources left out; null where the
 * breakdown cannot explain a score).  Points held before any decision make a
 * first entry "At the start".  Summed over the entries, a seat's points give
 * its final score and its parts its final breakdown. */
TB_API char *tb_record_story_json(const tb_record *rec, const tb_data_set *boards, char *err,
                                  size_t errlen);

/* ---- agents (docs/ai.md) ---- */
/* What play has shown about the hidden roles of a game's seats (docs/ai.md,
 * "Clans colour inference"): for each seat and role, how likely that seat's
 * decisions so far would have been had it held the role, under a fast model
 * of play (the game heuristic's one-ply values, softened).  It is built from
 * public information only: the positions the decisions were made in, every
 * role overwritten by each hypothesis, and the decisions.  A caller that
 * wants its agents to infer keeps one per game, shows it every decision
 * before playing it, and passes it in tb_budget.inference. */
typedef struct tb_inference tb_inference;
/* NULL when the game has no hidden roles, the player count is bad or memory ran out. */
TB_API tb_inference *tb_inference_new(const tb_game *game, int players);
TB_API void tb_inference_free(tb_inference *inference);
/* Takes note of `move`, legal in `before` and about to be played there (a
 * state of the inference's game and player count; anything else is ignored). */
TB_API void tb_inference_observe(tb_inference *inference, const tb_state *before, tb_move move);
/* How many decisions it has taken note of. */
TB_API int tb_inference_decisions(const tb_inference *inference);
/* The chance, as `seat` sees it (its own role, read from `state`, and what
 * play has shown), that seat `other` holds `role`; 1 or 0 for the seat's
 * own role, and -1 for bad arguments. */
TB_API double tb_inference_chance(const tb_inference *inference, const tb_state *state, int seat,
                                  int other, int role);
/* The inference over a game's history: `start` is the position before the
 * record's first decision, and every decision of `rec` is replayed on a copy
 * of it and taken note of.  NULL when the game has no hidden roles, a
 * decision does not replay, or memory ran out. */
TB_API tb_inference *tb_inference_replay(const tb_state *start, const tb_record *rec);

/* The chances of one other seat's role as `seat` sees it, for people (the
 * deduction aid of docs/ai.md): the roles `other` may hold, most likely
 * first (ties by role), each with its chance and the chance in words
 * ("71%", never "0%" or "100%" for what is only unlikely or likely: "under
 * 1%", "over 99%").  Roles with no chance are left out.  Returns how many
 * were written (at most max), 0 when there is nothing to say, -1 for bad
 * arguments. */
typedef struct tb_role_chance {
    int role;
    double chance;
    char words[16];
} tb_role_chance;
TB_API int tb_inference_chances(const tb_inference *inference, const tb_state *state, int seat,
                                int other, tb_role_chance *out, int max);

/* ---- a trained policy-value network (docs/research.md, "Network files") ----
 * A multilayer perceptron over a game's observation (tb_observation) with a
 * policy head over its actions and a value head (the observing seat's
 * expected return, 0..1), as examples/python/train.py writes it.  Read-only
 * once parsed: threads may share one. */
typedef struct tb_net tb_net;
/* Parses a network file's text; game NULL accepts any game, else the file
 * must be for that game (and its observation and action sizes).  NULL with
 * err ("line N: what is wrong") on a malformed file. */
TB_API tb_net *tb_net_parse(const tb_game *game, const char *text, size_t len, char *err,
                            size_t errlen);
TB_API void tb_net_free(tb_net *net);
TB_API int tb_net_players(const tb_net *net);
/* Whether the network is for this game and player count. */
TB_API bool tb_net_fits(const tb_net *net, const tb_game *game, int players);
/* Floats of scratch room an evaluation needs. */
TB_API int tb_net_scratch(const tb_net *net);
/* The value head for an observation. */
TB_API double tb_net_value(const tb_net *net, const float *obs, float *scratch);
/* The policy over the n given actions (softmax of their logits) into
 * probs; -1 when an action is outside the network's action space. */
TB_API int tb_net_policy(const tb_net *net, const float *obs, const int32_t *actions, int n,
                         float *probs, float *scratch);

typedef struct tb_budget {
    int64_t iterations; /* 0: no iteration limit */
    int64_t time_ms;    /* 0: no time limit */
    int threads;        /* root-parallel threads; 0 or 1: one */
    /* Monotonic clock in microseconds, supplied by the caller (the engine
     * library never reads the clock itself); NULL disables time limits. */
    uint64_t (*now_us)(void);
    /* Optional (NULL: none): what play has shown about hidden roles, kept
     * by the caller up to this decision.  A search deals the other seats'
     * roles by the mover's belief from it instead of uniformly; it is
     * ignored unless it has seen exactly the decisions made so far. */
    const tb_inference *inference;
    /* Optional (NULL: none): a trained network for the search (ismcts): its
     * policy is the prior of the root's decisions and its value judges the
     * leaves instead of playouts.  Must be for the game and player count. */
    const tb_net *net;
} tb_budget;

#define TB_REPORT_MOVES 8
typedef struct tb_agent_report {
    int64_t iterations;           /* search iterations done */
    int count;                    /* entries below, best first */
    tb_move move[TB_REPORT_MOVES];
    double value[TB_REPORT_MOVES]; /* estimated return for the mover, [0,1] */
    int64_t visits[TB_REPORT_MOVES];
} tb_agent_report;

typedef struct tb_agent {
    const char *name;
    const char *summary;
    /* Chooses a legal decision for `seat` (the seat to move).  `view` is a
     * state whose secrets hidden from `seat` have already been re-dealt, so
     * the agent cannot peek; it may be modified.  report may be NULL. */
    tb_move (*choose)(tb_state *view, int seat, const tb_budget *budget, tb_rng *rng,
                      tb_agent_report *report);
} tb_agent;

TB_API int tb_agent_count(void);
TB_API const tb_agent *tb_agent_at(int index);
TB_API const tb_agent *tb_agent_find(const char *name);
/* The only way a holder of the true state asks an agent for a decision: it
 * copies the state, re-deals the mover's unseen secrets from `seed`, and hands
 * the agent that copy. */
TB_API tb_move tb_agent_decide(const tb_agent *agent, const tb_state *truth, const tb_budget *budget,
                        uint64_t seed, tb_agent_report *report);

/* tb_agent_decide (the same decision for the same seed), also giving the
 * agent's policy at this position: every decision the search weighed with
 * its visits (up to cap of them, most visited first; *count says how many),
 * or, for an agent without visits (random, greedy) or a position answered
 * without search, the chosen decision with 1 visit.  The targets of
 * self-play data (tabula selfplay, docs/research.md). */
TB_API tb_move tb_agent_decide_policy(const tb_agent *agent, const tb_state *truth,
                                      const tb_budget *budget, uint64_t seed,
                                      tb_agent_report *report, tb_move *moves, int64_t *visits,
                                      int cap, int *count);

/* Whether the computer infers hidden roles (deals them by tb_inference)
 * when nobody says: where it was measured to win (docs/ai.md, "Clans colour
 * inference"): with two players at every budget, with more from 5000
 * iterations up (a budget with no limit counts as the search's default,
 * 5000).  False for a game without hidden roles. */
TB_API bool tb_infer_rule(const tb_game *game, int players, const tb_budget *budget);

typedef enum tb_infer {
    TB_INFER_RULE = 0, /* as tb_infer_rule says (only the search, ismcts, uses it) */
    TB_INFER_ON = 1,
    TB_INFER_OFF = 2
} tb_infer;

/* The one way a holder of a game's truth and history asks an agent for a
 * decision (tabula play, the server's computer seats and hints, the engine's
 * genmove): tb_agent_decide, with budget->inference replaced by the
 * inference over the history (start and rec as for tb_inference_replay,
 * truth the position after rec's decisions) when `infer` asks for it.
 * *inferred (may be NULL) says whether an inference that fits the position
 * was used.  start or rec NULL: no history, no inference. */
TB_API tb_move tb_agent_decide_game(const tb_agent *agent, const tb_state *truth,
                                    const tb_state *start, const tb_record *rec,
                                    const tb_budget *budget, tb_infer infer, uint64_t seed,
                                    tb_agent_report *report, bool *inferred);

/* Player levels for people: "easy", "normal", "hard" → an agent and a budget
 * for `game` (a game may have its own budget at a level, where the usual one
 * would take more than a second a decision; budgets rise with the level;
 * NULL: the usual budgets). */
TB_API int tb_level_lookup(const tb_game *game, const char *level, const tb_agent **agent,
                    tb_budget *budget);

/* ---- game review (docs/ai.md, "Game review") ----
 * A seat's *win rate* at a position is the search's mean return for that seat
 * (a win 1, a loss 0, a win shared by k seats 1/k; a cut-off playout is judged
 * by the game's heuristic) over every iteration of an information-set search
 * from the deciding seat's view: each decision is reviewed from what its seat
 * knew then, every secret it could not see re-dealt (tb_resample), exactly as
 * tb_agent_decide hands an agent the position. */
#define TB_REVIEW_ITERATIONS 1000 /* per search when the budget sets no limit */
#define TB_REVIEW_MISTAKE 0.10    /* a loss above this is a mistake */
#define TB_REVIEW_BLUNDER 0.20    /* a loss above this is a blunder */

enum { TB_REVIEW_GOOD = 0, TB_REVIEW_MISTAKE_MARK = 1, TB_REVIEW_BLUNDER_MARK = 2 };

typedef struct tb_review_settings {
    tb_budget budget;  /* per search; no limit set: TB_REVIEW_ITERATIONS */
    uint64_t seed;     /* with an iteration budget the review replays exactly */
    double mistake;    /* thresholds on the loss; 0: the defaults above */
    double blunder;
    const tb_data_set *boards; /* where the record's board is found (NULL: built-in only) */
} tb_review_settings;

typedef struct tb_review_entry {
    int index;        /* the decision's number in the game, from 0 (the position
                         before it is the one after `index` decisions) */
    int seat;         /* the seat that decided, from 0 */
    int players;      /* seats in the game (entries of win_rate) */
    int choices;      /* legal decisions it had */
    tb_move played, best;
    char played_text[TB_MOVE_TEXT], best_text[TB_MOVE_TEXT];
    double before;    /* the seat's win rate at the position: that of the
                         search's preferred decision */
    double after;     /* its win rate with the decision played */
    double best_value; /* its win rate with the search's preferred decision
                          (each of the two valued by a search of the whole
                          budget whose root may take only that decision) */
    double loss;      /* best_value - after, never below 0 */
    int mark;         /* TB_REVIEW_GOOD, _MISTAKE_MARK or _BLUNDER_MARK */
    double win_rate[TB_MAX_SEATS]; /* every seat's win rate at the position (the
                                      preferred decision's search), from this
                                      seat's view */
    int64_t iterations; /* search iterations spent on this decision */
} tb_review_entry;

typedef struct tb_review {
    int players;
    int decisions;    /* decisions in the record */
    int count;        /* entries reviewed */
    tb_review_entry *entry; /* in game order */
    bool over;        /* the record's game has ended; then final holds its returns */
    double final[TB_MAX_SEATS];
} tb_review;

/* Reviews the decision `played` of the seat to move in `truth`.  The truth is
 * copied and the mover's unseen secrets re-dealt from `seed` before any search,
 * so the entry depends only on that seat's view, the settings and the seed.
 * Returns 0, or -1 with a message (game over, illegal decision). */
TB_API int tb_review_decision(const tb_state *truth, tb_move played,
                              const tb_review_settings *settings, uint64_t seed,
                              tb_review_entry *out, char *err, size_t errlen);
/* Called after each reviewed decision; a nonzero answer stops the review. */
typedef int (*tb_review_progress)(void *ctx, int done, int total);
/* Reviews every decision of a record (seat -1) or one seat's.  Decision i is
 * searched with a seed derived from settings->seed and i.  *out is freed with
 * tb_review_free.  Returns 0, or -1 with a message (a record that does not
 * replay, a sealed record, a seat out of range, stopped by `progress`). */
TB_API int tb_review_record(const tb_record *rec, int seat, const tb_review_settings *settings,
                            tb_review_progress progress, void *ctx, tb_review **out,
                            char *err, size_t errlen);
TB_API void tb_review_free(tb_review *review);
/* "mistake", "blunder", or NULL for a good decision. */
TB_API const char *tb_review_mark_name(int mark);
/* One entry as one-line JSON (docs/ai.md lists the fields; seats from 0). */
TB_API char *tb_review_entry_json(const tb_review_entry *entry);

#ifdef __cplusplus
}
#endif
#endif /* TABULA_H */
