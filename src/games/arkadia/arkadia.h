/*
 * arkadia.h — private to src/games/arkadia: the move encoding, the state
 * struct and the functions the rules, text, JSON and tensor files share.
 * The component tables and the bit boards are in arkadia_data.h.
 */
#ifndef TB_ARKADIA_H
#define TB_ARKADIA_H

#include "arkadia_data.h"
#include "game.h"

#include <stdint.h>

/* ---- moves: kind << 16 | payload ---- */
enum ark_kind {
    ARK_K_LOT = 1,     /* corner square */
    ARK_K_BUILD,       /* card */
    ARK_K_WORKERS,     /* a building's first square, or ARK_LOT_TARGET */
    ARK_K_PLACE,       /* form << 12 | orient << 8 | corner square */
    ARK_K_OWN,         /* square */
    ARK_K_NEUTRAL,     /* square */
    ARK_K_STOP,
    ARK_K_CASTLE,      /* family << 4 | castle square 0..9 */
    ARK_K_DRAW,        /* card, or ARK_DRAW_STACK */
    ARK_K_BANNER,      /* 0 no, 1 yes */
    ARK_K_SELL,        /* family << 8 | count */
};
#define ARK_MOVE(kind, payload) ((tb_move)(((uint32_t)(kind) << 16) | (uint32_t)(payload)))
#define ARK_KIND(m) ((int)((m) >> 16))
#define ARK_PAYLOAD(m) ((int)((m) & 0xffffu))
#define ARK_LOT_TARGET 0x100
#define ARK_DRAW_STACK 0xff

enum ark_phase {
    ARK_PH_LOT,     /* the start player places the castle lot */
    ARK_PH_ACTION,  /* build FORM FAMILY, or workers BUILDING */
    ARK_PH_PLACE,   /* where the chosen card's building goes */
    ARK_PH_WORKER,  /* own SQ / neutral SQ / stop */
    ARK_PH_CASTLE,  /* castle FAMILY N, once per completed building */
    ARK_PH_DRAW,    /* draw CARD / draw stack, after a building */
    ARK_PH_BANNER,  /* banner yes / banner no */
    ARK_PH_SALE,    /* sell FAMILY N, one family at a time */
    ARK_PH_OVER,
    ARK_PHASES
};

enum ark_action { ARK_ACT_NONE, ARK_ACT_BUILD, ARK_ACT_WORKERS, ARK_ACT_SKIP, ARK_ACTIONS };

typedef struct ark_building {
    uint8_t form, orient, anchor, family;
    uint8_t done; /* completed (enclosed and paid) */
} ark_building;

/*
 * The state.  Invariants (checked by state_from_json and tests/sim):
 *   - occ is the union of the buildings' squares, the lot's and every worker
 *     board; those parts are disjoint; nb[i] is the on-board neighbourhood of
 *     building i minus its own squares (lot_nb likewise for the lot);
 *   - the 40 cards are in the hands, the display, the stack, the card being
 *     laid out (PLACE phase) and under the buildings (one card per building);
 *     a hand entry is card*2 + 1 when every player saw it taken face up;
 *     hands are sorted; display is sorted; stack[stack_n-1] is the top;
 *   - a player's own workers: behind the screen + on the board = start + 2 per
 *     banner used (<= 11); neutral: on screens + on the board <= 24;
 *   - castle stacks grow floor by floor; the pools are what the stacks left
 *     (floor 1 and 2 leftovers move to pool 3 when their floor fills);
 *   - a building is done exactly when it is enclosed, except during the
 *     workers phase (completion is resolved when the action ends);
 *   - cashed is all 0 until the game is over; then it holds the seals each
 *     player sold at the end, and sum(cashed x final value) <= gold;
 *   - trigger_turn >= 0 exactly when floor 2 is full; the game ends after
 *     turn trigger_turn + players, or earlier after a whole round of idle turns.
 */
typedef struct arkadia_state {
    tb_state base;
    ark_bb occ;
    ark_bb workers[ARK_SEATS + 1];  /* by seat; [ARK_NEUTRAL] neutral */
    ark_bb nb[ARK_CARDS];
    ark_bb lot_nb;
    ark_building bld[ARK_CARDS];
    uint8_t nbld;
    uint8_t lot; /* corner square, ARK_NO_SQUARE before the lot is placed */
    uint8_t castle[ARK_CASTLE][ARK_FLOORS]; /* families, bottom first */
    uint8_t height[ARK_CASTLE];
    uint8_t pool[ARK_FLOORS][ARK_FAMILIES];
    uint8_t hand[ARK_SEATS][ARK_HAND];
    uint8_t hand_n[ARK_SEATS];
    uint8_t display[ARK_DISPLAY];
    uint8_t display_n;
    uint8_t stack[ARK_CARDS];
    uint8_t stack_n;
    uint16_t seals[ARK_SEATS][ARK_FAMILIES];
    int32_t gold[ARK_SEATS];
    uint16_t cashed[ARK_SEATS][ARK_FAMILIES]; /* seals turned into gold at the end
                                                 (all 0 before; the score breakdown) */
    uint8_t screen[ARK_SEATS];         /* own workers behind the screen */
    uint8_t screen_neutral[ARK_SEATS]; /* neutral workers behind the screen */
    uint8_t banners[ARK_SEATS];        /* banners still hanging */
    uint8_t phase, action;
    uint8_t start;            /* the start player */
    uint16_t turn_no;         /* turns begun before this one */
    uint8_t seat;             /* the mover: (start + turn_no) % players, kept for speed */
    int16_t trigger_turn;     /* the turn that filled floor 2, or -1 */
    uint8_t idle;             /* consecutive turns with no action and no banner */
    uint8_t banner_used;      /* this turn */
    uint8_t card;             /* PLACE: the card being laid out */
    uint8_t target;           /* WORKER: building index (0 when target_lot) */
    uint8_t target_lot;       /* WORKER: the target is the castle lot */
    uint8_t placed;           /* WORKER: workers introduced in this action */
    uint8_t castle_left;      /* CASTLE: pieces still to place */
    uint8_t family;           /* SALE: the family being sold */
    uint8_t mirror, lot_workers, first_game; /* options */
} arkadia_state;

/* The names of families, forms and player colours, which every board keeps
 * (the board reader refuses a file that renames them), so the notation and
 * anything else that has no state at hand reads them from the built-in board. */
static inline const ark_data *ark__names(void)
{
    return &ark__data;
}

/* ---- arkadia.c: rules ---- */
extern const struct tb_game tb__arkadia_game;
/* The built-in board as the core knows it (name "default", its content hash;
 * written by arkadia_datagen.c beside ark__data). */
extern const struct tb_data ark__builtin_data;
/* The game's data hooks (game.h): a board file read into a malloc'd ark_data
 * (names checked against the built-in board), and its release. */
void *ark__data_read(const char *text, size_t len, const char *where, char *err, size_t errlen);
void ark__data_free(void *tables);
/* The board the state is played on: the built-in one or a loaded board file;
 * the rules, text, JSON and tensor code read their tables only through this. */
static inline const ark_data *ark__board(const arkadia_state *a)
{
    return a->base.data ? (const ark_data *)a->base.data->tables : &ark__data;
}
int ark__to_move(const tb_state *s);
static inline int ark__mover(const arkadia_state *a)
{
    return a->seat;
}
ark_bb ark__building_cells(const ark_data *d, const ark_building *b);
ark_bb ark__lot_cells(const arkadia_state *a);
int ark__value(const arkadia_state *a, int family); /* visible seals of a family */
void ark__values(const arkadia_state *a, int value[ARK_FAMILIES]); /* ark__value of each */
int ark__floor(const arkadia_state *a);             /* floor under construction, 0..2 */
int ark__own_pool(const arkadia_state *a, int seat);
int ark__neutral_pool(const arkadia_state *a);
/* Corners (by orientation) where a form may be laid now; returns the total. */
int ark__placements(const arkadia_state *a, int form, ark_bb out[ARK_MAX_ORIENT]);
int ark__orients(const arkadia_state *a, int form); /* orientations allowed by `mirror` */
ark_bb ark__worker_squares(const arkadia_state *a); /* WORKER phase: where workers may go */
bool ark__phase_has_moves(const arkadia_state *a);
bool ark__can_build(const arkadia_state *a, int seat); /* a card of the hand fits somewhere */
void ark__derive(arkadia_state *a); /* recomputes occ, nb, lot_nb and pools from the rest */
int ark__legal(const tb_state *s, tb_move *out);

/* ---- arkadia_text.c: notation, prompt, terminal board ---- */
extern const char *const ark__phase_name[ARK_PHASES];
extern const char *const ark__action_name[ARK_ACTIONS];
int ark__square_text(int sq, char *buf, size_t buflen);
int ark__parse_square(const char *p, int *sq); /* length read, or 0 */
int ark__card_text(int card, char *buf, size_t buflen);
int ark__parse_card(const char *text, int *card); /* "house red" → card; 0 on success */
int ark__family_index(const char *name);
int ark__form_index(const char *name);
int ark__cells_text(ark_bb cells, char *buf, size_t buflen);
int ark__move_to_text(const tb_state *s, tb_move m, char *buf, size_t buflen);
int ark__text_to_move(const tb_state *s, const char *text, tb_move *out, char *err,
                      size_t errlen);
char *ark__render_text(const tb_state *s, int seat, unsigned flags);
int ark__prompt_text(const tb_state *s, char *buf, size_t buflen);
json_t *ark__prompt_msg(const tb_state *s);
json_t *ark__stage_msg(const tb_state *s);
json_t *ark__narrate(const tb_state *before, tb_move m, const tb_state *after, json_t *who,
                     json_t *const *names);
extern const char *const ark__data_words[]; /* msgids of the built-in data's names */
int ark__stage_text(const tb_state *s, char *buf, size_t buflen);

/* ---- arkadia_json.c: views, state JSON, board JSON ---- */
json_t *ark__view_json(const tb_state *s, int seat);
json_t *ark__state_json(const tb_state *s);
int ark__state_from_json(tb_state *s, const json_t *j, char *err, size_t errlen);
json_t *ark__board_json(const struct tb_data *data);

/* ---- arkadia_tensor.c: action indexes (docs/python.md) ---- */
int ark__num_actions(int players);
int ark__move_to_action(tb_move m);
int ark__action_to_move(int action, tb_move *out);
int ark__observation_size(int players);
void ark__observation(const tb_state *s, int seat, tb_obs_out *w);

#endif
