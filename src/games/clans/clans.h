/*
 * clans.h — private to src/games/clans: the board tables (generated at build
 * time from data/clans_board.txt by clans_datagen.c) and the state struct.
 *
 * Territories are indexed 0..59 here and numbered 1..60 in notation and JSON.
 * Colours are indexed red, blue, green, yellow, black.
 */
#ifndef TB_CLANS_H
#define TB_CLANS_H

#include "game.h"

#include <stdint.h>

#define CLANS_TERRITORIES 60
#define CLANS_COLOURS 5
#define CLANS_CHIPS 12
#define CLANS_EPOCHS 5
#define CLANS_HUTS_PER_COLOUR 12
#define CLANS_REGIONS 12

enum clans_terrain { CLANS_FOREST, CLANS_MOUNTAIN, CLANS_STEPPE, CLANS_GRASSLAND, CLANS_TERRAINS };
#define CLANS_ANY_TERRAIN CLANS_TERRAINS /* "all" (favourable) or "none" (hostile) */

typedef struct clans_territory {
    uint8_t terrain;
    uint8_t region; /* 1..12 */
    int16_t x, y;   /* approximate centre on a 1200x800 picture */
} clans_territory;

typedef struct clans_epoch {
    uint8_t chips;
    uint8_t favourable; /* a terrain, or CLANS_ANY_TERRAIN for all */
    uint8_t hostile;    /* a terrain, or CLANS_ANY_TERRAIN for none */
    uint8_t bonus;
} clans_epoch;

/* The tables are the library's own: hidden, so that code reaches them
 * directly rather than through the global offset table. */
#pragma GCC visibility push(hidden)
extern const clans_territory clans__territory[CLANS_TERRITORIES];
extern const uint64_t clans__adjacent[CLANS_TERRITORIES]; /* bit t: borders territory t */
extern const clans_epoch clans__epoch[CLANS_EPOCHS];
#define CLANS_MAX_EDGES 192
#define CLANS_EDGE_WORDS 3
extern const int clans__edge_count;
extern const uint8_t clans__edge[CLANS_MAX_EDGES][2]; /* endpoints, lower first */
extern const uint16_t clans__arc[2 * CLANS_MAX_EDGES]; /* 2e + d: from end d, from | to << 8 */
extern const uint64_t clans__edges_of[CLANS_TERRITORIES][CLANS_EDGE_WORDS]; /* edges at t */
extern const uint64_t clans__all_edges[CLANS_EDGE_WORDS];
/* Arc 2e + d's source, as a hut move along it empties it: its edges (as
 * clans__edges_of) and its neighbours (as clans__adjacent).  Read by the
 * arc, these need not wait for the arc's endpoints to be looked up. */
typedef struct clans_arc_source {
    uint64_t edges[CLANS_EDGE_WORDS];
    uint64_t adjacent;
} clans_arc_source;
extern const clans_arc_source clans__arc_source[2 * CLANS_MAX_EDGES];
extern const uint8_t clans__chip_epoch_table[CLANS_CHIPS + 1]; /* epoch of chip k; 0 past 12 */
extern const uint64_t clans__order_huts[120][CLANS_COLOURS]; /* every order of 5 colours, as huts */
extern const uint8_t clans__region_member[CLANS_REGIONS][5]; /* territories of each region */
/* A village of t founded in epoch e: clans__founding[e - 1][t] is its terrain
 * bonus (0 when not favourable), or CLANS_RUIN when t is hostile then. */
#define CLANS_RUIN 0x80
extern const uint8_t clans__founding[CLANS_EPOCHS][CLANS_TERRITORIES];
extern const uint64_t clans__start_crowd[3]; /* every territory's neighbours, as clans_state.crowd */
#pragma GCC visibility pop

/* Move encoding: a hut move is ((from+1) << 8) | (to+1); choosing the next
 * village of a multi-village move is CLANS_VILLAGE_FLAG | (territory+1). */
#define CLANS_VILLAGE_FLAG 0x10000u

/*
 * The state.  Invariants (checked by state_from_json and the simulation test):
 *   - size[t] is the sum of huts[t][*]; bit t of occupied is size[t] > 0;
 *   - sum of sizes + removed = 60, and no colour has more than 12 huts;
 *   - villages are founded territories, each with no occupied neighbour;
 *     ruins are the villages destroyed on hostile terrain, and hold no huts;
 *   - popcount(villages) = chips_taken = sum of chips over seats;
 *   - pending (villages waiting for the mover to order them) are occupied,
 *     isolated and not yet villages; it is non-empty only while the order of
 *     the remaining ones can change the outcome;
 *   - live has bit e set exactly when both ends of edge e are occupied (a
 *     move exists iff live is not empty: clans.md 7.4);
 *   - crowd holds the number of occupied neighbours of every territory in
 *     bit planes (clans__crowd), so that a move counts down its source's
 *     neighbours, and finds those it leaves alone, in a few mask operations;
 *   - colour[seat] are distinct colours; they are the only secret.
 */
typedef struct clans_state {
    tb_state base;
    uint64_t huts[CLANS_TERRITORIES]; /* byte k (k < 5): colour k's huts on t; bytes 5-7 are 0 */
    uint8_t size[CLANS_TERRITORIES];
    uint8_t village_epoch[CLANS_TERRITORIES]; /* 1..5 for villages, else 0 */
    /* Every hut move writes occupied, live and crowd.  Fields that it does not
     * write sit between them: a compiler joining the stores of neighbouring
     * words into one vector store makes the next draw's loads of live wait
     * for all of them (measured twice: 35 -> 29 ns a decision, then 5%). */
    uint64_t live[CLANS_EDGE_WORDS];
    uint64_t villages;
    uint64_t crowd[3]; /* bit t of crowd[i]: bit i of t's occupied neighbours (0..6) */
    uint64_t ruins;
    uint64_t occupied;
    uint64_t pending;
    int16_t track[8]; /* the score track by colour; entries 5..7 stay 0 */
    uint8_t colour[TB_MAX_SEATS];
    uint8_t chips[TB_MAX_SEATS];
    uint8_t chips_taken;
    uint8_t removed;   /* huts taken off the board by strife and ruin */
    uint8_t turn;      /* the seat to move (the mover while villages are pending) */
    uint8_t over;
    uint8_t last_from, last_to; /* the last hut move, 1-based; 0 before any */
} clans_state;

/* The huts of a colour on territory t, and setting them (0..255). */
static inline int clans__huts(const clans_state *c, int t, int colour)
{
    return (int)(c->huts[t] >> (8 * colour) & 0xff);
}
static inline void clans__set_huts(clans_state *c, int t, int colour, int n)
{
    c->huts[t] = (c->huts[t] & ~(0xffULL << (8 * colour))) | (uint64_t)(n & 0xff) << (8 * colour);
}

/* The number of occupied neighbours of territory t. */
static inline int clans__crowd(const clans_state *c, int t)
{
    return (int)((c->crowd[0] >> t & 1) | (c->crowd[1] >> t & 1) << 1 | (c->crowd[2] >> t & 1) << 2);
}

/* clans.c */
extern const char *const clans__colour_name[CLANS_COLOURS];
extern const char *const clans__terrain_name[CLANS_TERRAINS];
int clans__chip_epoch(int chip_index); /* 1..5, or 0 past the 12th chip */
int clans__to_move(const tb_state *s);
bool clans__game_over(const clans_state *c);
void clans__compute_live(clans_state *c); /* live edges and crowd from occupied */
bool clans__order_matters(const clans_state *c); /* can the order of c->pending change the outcome? */
double clans__squash(int lead);          /* the heuristic's squash, from its table */
double clans__squash_computed(int lead); /* the same, computed (tests compare them) */

/* clans_tensor.c: action indexes and observation tensors (docs/python.md). */
int clans__num_actions(int players);
int clans__move_to_action(tb_move m);
int clans__action_to_move(int action, tb_move *out);
int clans__observation_size(int players);
void clans__observation(const tb_state *s, int seat, tb_obs_out *w);

/* clans_text.c: notation, JSON, text rendering. */
int clans__move_to_text(const tb_state *s, tb_move m, char *buf, size_t buflen);
int clans__text_to_move(const tb_state *s, const char *text, tb_move *out, char *err,
                        size_t errlen);
json_t *clans__view_json(const tb_state *s, int seat);
json_t *clans__state_json(const tb_state *s);
int clans__state_from_json(tb_state *s, const json_t *j, char *err, size_t errlen);
json_t *clans__board_json(void);
char *clans__render_text(const tb_state *s, int seat, unsigned flags);
int clans__prompt_text(const tb_state *s, char *buf, size_t buflen);
json_t *clans__prompt_msg(const tb_state *s);
char *clans__render_text_in(const tb_state *s, int seat, unsigned flags, tb_translate_fn tr,
                            void *ctx);
json_t *clans__stage_msg(const tb_state *s);
json_t *clans__narrate(const tb_state *before, tb_move m, const tb_state *after, json_t *who,
                       json_t *const *names);
int clans__stage_text(const tb_state *s, char *buf, size_t buflen);

#endif
