/*
 * khronos.h — private to src/games/khronos: the state of a game of Khronos
 * and the functions the rules (khronos.c), the text forms (khronos_text.c),
 * the explanations (khronos_explain.c) and the action space
 * (khronos_tensor.c) share.  One board's buildings, domains and placements
 * are the layer below, in khronos_board.h; the move encoding is here.
 */
#ifndef TB_KHRONOS_H
#define TB_KHRONOS_H

#include "khronos_board.h"

/* ---- rules constants that are not component data ---- */
#define KH_TURNS 7
#define KH_CARDS_PER_PAWN 2
#define KH_TRAVEL_COST 1
#define KH_EXCHANGE_COST 2
#define KH_DEMOLISH_COST 1

/* ---- the state ---- */

/* What the state waits for besides a free action. */
enum {
    KH_P_NONE,    /* the player to move picks any action, or ends the turn */
    KH_P_SQUARES, /* the squares of a building being built or upgraded */
    KH_P_PAY,     /* the surcharge cards */
    KH_P_PICK,    /* the acting player picks which building is downsized */
    KH_P_KEEP,    /* the owner picks the squares the downsized tile keeps */
};

/* A shadow waiting to be laid on a later board. */
typedef struct kh_ripple {
    uint8_t active;
    uint8_t board; /* target */
    uint8_t type;
    uint8_t owner;
    uint16_t place;
} kh_ripple;

/*
 * The state.  Invariants (checked by state_from_json and the simulation test):
 *   - every board: buildings sorted by first square, footprints disjoint,
 *     at[]/occ agree with them, dom is the canonical connected component;
 *   - every printed Hamlet square is covered by a civil building;
 *   - tiles on the boards (printed Hamlets excluded) + stock = the count of
 *     each type; cubes on the boards + supply = the cubes per player;
 *   - Might and Faith hold no ruins, every military/religious building there
 *     has an owner; Reason military/religious buildings have none; populate
 *     cubes only on Reason civil buildings, at most their value;
 *   - cards: hands + deck + discards + display = the cards of each colour;
 *   - when nothing is pending (pend, dirty, ripple), every domain on Might
 *     and Faith has a unique highest military and religious building;
 *   - Ecus >= 0; in play Ecus = the starting Ecus + earned + bonuses - spent
 *     (the ledger; a state edited by hand may break this, and then has no
 *     score breakdown); earned[.][0] is 0 before turn 4, earned[.][1] before 7.
 */
typedef struct khronos_state {
    tb_state base;
    kh_board board[KH_BOARDS];
    int16_t ecus[TB_MAX_SEATS];
    int16_t last_earn[TB_MAX_SEATS];      /* Ecus earned at the seat's last earnings (display) */
    /* The ledger behind the score breakdown: Ecus earned on each board at the
     * earnings of turn 4 [0] and turn 7 [1], construction bonuses, and Ecus
     * paid for travel, exchanges and demolitions. */
    int16_t earned[TB_MAX_SEATS][2][KH_BOARDS];
    int16_t bonuses[TB_MAX_SEATS], spent[TB_MAX_SEATS];
    uint16_t pend_place;
    kh_ripple rip;
    uint8_t cubes[TB_MAX_SEATS];          /* in supply */
    uint8_t hand[TB_MAX_SEATS][KH_FAMILIES];
    uint8_t pawn[TB_MAX_SEATS][2];        /* board of each adventurer, sorted */
    uint8_t stock[KH_TYPES];
    uint8_t deck[KH_MAXCARDS];            /* families; the top is deck[deck_n - 1] */
    uint8_t deck_n;
    uint8_t discard[KH_FAMILIES];
    uint8_t display[KH_FAMILIES];         /* hold'em: face-up cards (0 or 1 each) */
    uint8_t holdem;
    uint8_t turn;                         /* 1..7; 8 once over */
    uint8_t first, cur, over;
    /* the current player's turn */
    uint8_t left[2];                      /* cards each adventurer may still play */
    uint8_t pool;                         /* cards played together while both stand on one board */
    uint8_t travelled[2];                 /* each adventurer has travelled since it last played
                                             a card this turn (so travelling it again is
                                             dominated: kh_undominated) */
    uint8_t exchanged, acted, swapped;    /* swapped: families taken from the display */
    /* pending decision */
    uint8_t pend;
    uint8_t pend_board, pend_type, pend_target; /* target: first square of the building, or KH_NONE */
    uint8_t pend_extra;                   /* surcharge cards to choose */
} khronos_state;

/* ---- khronos.c ---- */
extern const char *const kh_board_name[KH_BOARDS];
extern const char *const kh_family_name[KH_FAMILIES];
extern const char kh_family_letter[KH_FAMILIES];
extern const char *const kh_colour_name[TB_MAX_SEATS];
int khronos__to_move(const tb_state *s);
int kh_total(const uint8_t h[KH_FAMILIES]);
int kh_pawns_on(const khronos_state *k, int p, int board);
/* The allowances (bit r: r cards still to play) an adventurer leaving
 * `from` may take when both of the current player's stand there, else 0. */
int kh_leave_options(const khronos_state *k, int from);
int kh_capacity(const khronos_state *k, int board);
void kh_sort_pawns(khronos_state *k, int p); /* player p's adventurers in canonical order */
int kh_surcharge(const khronos_state *k, const kh_place *p);
void kh_recount(khronos_state *k); /* stock and cube supply from the boards */
void kh_earnings(const khronos_state *k, int seat, int out[KH_BOARDS]);
void kh_earnings_all(const khronos_state *k, int out[TB_MAX_SEATS][KH_BOARDS]);

/* ---- move encoding (notation in khronos_text.c) ---- */
enum {
    KH_M_SWAP = 1,
    KH_M_EXCHANGE,
    KH_M_TRAVEL,
    KH_M_BUILD,
    KH_M_UPGRADE,
    KH_M_DEMOLISH,
    KH_M_POPULATE,
    KH_M_RENOVATE,
    KH_M_SQUARES,
    KH_M_PAY,
    KH_M_DOWNSIZE,
    KH_M_END,
};
#define KH_KIND(m) ((int)((m) >> 24))
#define KH_MOVE(kind, payload) ((tb_move)(kind) << 24 | (tb_move)(payload))
#define KH_CARDS(m, r, c) ((m) | (r) << 3 | (c) << 6) /* a multiset of cards */
#define KH_AUTO 7                                     /* travel: no choice of allowance */

/* ---- khronos_explain.c ---- */
/* Why move m (parsed, not legal now) is refused, in a player's words:
 * writes "illegal move: ..." to err and returns -1. */
int kh_explain(const khronos_state *k, tb_move m, char *err, size_t errlen);

/* ---- khronos_text.c ---- */
int khronos__move_to_text(const tb_state *s, tb_move m, char *buf, size_t buflen);
int khronos__text_to_move(const tb_state *s, const char *text, tb_move *out, char *err,
                          size_t errlen);
json_t *khronos__view_json(const tb_state *s, int seat);
json_t *khronos__state_json(const tb_state *s);
int khronos__state_from_json(tb_state *s, const json_t *j, char *err, size_t errlen);
json_t *khronos__data_board_json(const struct tb_data *data);
char *khronos__render_text(const tb_state *s, int seat, unsigned flags);
int khronos__prompt_text(const tb_state *s, char *buf, size_t buflen);
json_t *khronos__prompt_msg(const tb_state *s);
json_t *khronos__stage_msg(const tb_state *s);
json_t *khronos__narrate(const tb_state *before, tb_move m, const tb_state *after, json_t *who,
                         json_t *const *names);
extern const char *const khronos__data_words[]; /* msgids of the built-in data's names */
int khronos__stage_text(const tb_state *s, char *buf, size_t buflen);
int kh_square_name(const kh_tables *tab, int sq, char *buf, size_t buflen);
/* A placement's canonical name: "c4", "c4-d5" (docs/notation.md). */
int kh_place_name(const kh_tables *tab, int place, char *buf, size_t buflen);
int kh_parse_square(const kh_tables *tab, const char **p); /* advances; -1 when not a square */

/* ---- khronos_tensor.c: action indexes (docs/python.md) ---- */
int khronos__num_actions(int players);
int khronos__move_to_action(tb_move m);
int khronos__action_to_move(int action, tb_move *out);
int khronos__observation_size(int players);
void khronos__observation(const tb_state *s, int seat, tb_obs_out *w);

#endif
