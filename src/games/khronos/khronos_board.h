/*
 * khronos_board.h — private to src/games/khronos: one Khronos board, the
 * layer below the rules.  The component tables (kh_tables: read from a data
 * file by khronos_data.c, at run time for a loaded board, at build time by
 * khronos_datagen.c for the built-in one), sets of squares, placements, the
 * buildings on one board with their square map and domains, and the checks
 * that concern one board alone (dominion and hierarchy of a placement, the
 * hierarchy conflicts of a domain).  Nothing here knows of players' hands,
 * Ecus, turns or the other boards: khronos.h (the state and the rules)
 * builds on this header, never the other way round.
 *
 * Squares are indexed row-major (index = row * width + column) and named
 * `a1`.. in notation and JSON (column letter, row number from the top).
 * Boards are indexed might 0, faith 1, reason 2; families military 0,
 * religious 1, civil 2 (card colours orange, fuchsia, blue); tile types are
 * family * 3 + size - 1 (watchtower keep castle chapel monastery abbey
 * hamlet town city).
 *
 * Invariants of a kh_board (kept by every function of khronos_board.c):
 * buildings sorted by their first square, footprints disjoint; at[] names
 * the building on every covered square and KH_NONE elsewhere; occ is the
 * set of covered squares; each building's dom is the smallest index of its
 * domain (its connected group of orthogonally adjacent buildings).
 */
#ifndef TB_KHRONOS_BOARD_H
#define TB_KHRONOS_BOARD_H

#include "game.h"

#include <stdint.h>

#define KH_MAXSQ 255      /* squares a board may have (a square fits a byte; 0xff is KH_NONE) */
#define KH_WORDS 4        /* 64-bit words of a set of squares */
#define KH_MAXB 128       /* buildings one board may hold (datagen checks; the 18x13 board: 111) */
#define KH_BOARDS 3
#define KH_FAMILIES 3
#define KH_TYPES 9
#define KH_MAXCARDS 64    /* cards in the game (datagen checks) */
#define KH_MAXHAMLETS 16
#define KH_MAXSHAPES 32   /* placements of one shape size, all orientations */
#define KH_MAXCELLS 9     /* squares one tile may cover (a 3x3 block) */
#define KH_MAXSUB (KH_MAXCELLS * 8) /* placements of a smaller tile within one footprint */
#define KH_MAXPLACES 1024 /* placements of all tiles on the grid (the action space has room for these) */
#define KH_NOBODY 0xff
#define KH_NONE 0xff

enum { KH_MIGHT, KH_FAITH, KH_REASON };
enum { KH_MILITARY, KH_RELIGIOUS, KH_CIVIL };
enum { KH_PLAIN, KH_FOREST, KH_MOUNTAIN, KH_RIVER, KH_PLAIN_FOREST, KH_FOREST_MOUNTAIN,
       KH_TERRAINS };

#define KH_FAMILY(t) ((t) / 3)
#define KH_SIZE(t) ((t) % 3 + 1)
#define KH_TYPE(f, size) ((f) * 3 + (size) - 1)

/* A set of squares. */
typedef struct kh_bits {
    uint64_t w[KH_WORDS];
} kh_bits;

static inline bool kh_bits_any(kh_bits a)
{
    uint64_t x = 0;
    for (int i = 0; i < KH_WORDS; i++)
        x |= a.w[i];
    return x != 0;
}
static inline kh_bits kh_bits_and(kh_bits a, kh_bits b)
{
    for (int i = 0; i < KH_WORDS; i++)
        a.w[i] &= b.w[i];
    return a;
}
static inline kh_bits kh_bits_minus(kh_bits a, kh_bits b) /* a without b */
{
    for (int i = 0; i < KH_WORDS; i++)
        a.w[i] &= ~b.w[i];
    return a;
}
static inline void kh_bits_add(kh_bits *a, kh_bits b)
{
    for (int i = 0; i < KH_WORDS; i++)
        a->w[i] |= b.w[i];
}
static inline bool kh_bits_has(kh_bits a, int sq) { return (a.w[sq >> 6] >> (sq & 63)) & 1; }
static inline void kh_bits_set(kh_bits *a, int sq) { a->w[sq >> 6] |= 1ULL << (sq & 63); }
static inline void kh_bits_clear(kh_bits *a, int sq) { a->w[sq >> 6] &= ~(1ULL << (sq & 63)); }
static inline bool kh_bits_subset(kh_bits a, kh_bits b) /* a within b */
{
    return !kh_bits_any(kh_bits_minus(a, b));
}
/* The set of squares q such that q - k is in a (0 < k < 64 * KH_WORDS). */
static inline kh_bits kh_bits_shl(kh_bits a, int k)
{
    kh_bits r;
    int ws = k >> 6, bs = k & 63;
    for (int i = 0; i < KH_WORDS; i++) {
        uint64_t hi = i - ws >= 0 ? a.w[i - ws] : 0;
        uint64_t lo = i - ws - 1 >= 0 ? a.w[i - ws - 1] : 0;
        r.w[i] = bs ? hi << bs | lo >> (64 - bs) : hi;
    }
    return r;
}
/* The set of squares q such that q + k is in a (0 < k < 64 * KH_WORDS). */
static inline kh_bits kh_bits_shr(kh_bits a, int k)
{
    kh_bits r;
    int ws = k >> 6, bs = k & 63;
    for (int i = 0; i < KH_WORDS; i++) {
        uint64_t lo = i + ws < KH_WORDS ? a.w[i + ws] : 0;
        uint64_t hi = i + ws + 1 < KH_WORDS ? a.w[i + ws + 1] : 0;
        r.w[i] = bs ? lo >> bs | hi << (64 - bs) : lo;
    }
    return r;
}

/* A set of buildings of one board by index (KH_MAXB <= 128: two words), as
 * the roots of the domains some sum concerns: kh_roots_add adds i and says
 * whether it was new (so that the domain's sums start there), kh_roots_has
 * tests it.  The members are visited in increasing order with
 * for (w < 2) for (m = set[w]; m; m &= m - 1) i = w * 64 + ctz(m). */
static inline bool kh_roots_add(uint64_t set[2], int i)
{
    uint64_t bit = 1ULL << (i & 63);
    if (set[i >> 6] & bit)
        return false;
    set[i >> 6] |= bit;
    return true;
}
static inline bool kh_roots_has(const uint64_t set[2], int i) { return set[i >> 6] >> (i & 63) & 1; }

/* One way to lay a tile: its squares (n of them, increasing: sq[0] is the
 * first in board order, a block's top-left corner), their set, the set of squares orthogonally
 * next to it, and what terrain it covers.  size is the tile size (value,
 * cost) the shape belongs to; n is its square count, which only the shape
 * decides (the engine never takes one for the other). */
#define KH_COVERS_RIVER 1
#define KH_COVERS_FOREST 2   /* forest or plain+forest */
#define KH_COVERS_MOUNTAIN 4 /* mountain or forest+mountain */
typedef struct kh_place {
    kh_bits mask;
    kh_bits nbr;
    uint8_t sq[KH_MAXCELLS];
    uint8_t n;
    uint8_t size;
    uint8_t covers;
    uint8_t form; /* its form: index into the tables' form[] */
    uint8_t pad[3];
} kh_place;

/* A form: the placements of one size that are translations of one another
 * (one orientation of one shape).  The placement of a form whose first
 * square is a covers a + off[k] for k < n (off[0] = 0, increasing); anchors
 * is the set of the first squares its placements have, mix[c] those whose
 * terrain mix (kh_place.covers) is c.  So the placements
 * of a form lying on free squares only are anchors & (free >> off[k]) for
 * every k: a few set operations for the whole board. */
#define KH_MAXFORMS (3 * KH_MAXSHAPES)
typedef struct kh_form {
    kh_bits anchors;
    kh_bits mix[8]; /* the first squares of its placements whose covers is c */
    uint8_t off[KH_MAXCELLS];
    uint8_t n;
    uint8_t size;
    uint8_t pad[5];
} kh_form;

typedef struct kh_tile {
    const char *name;
    uint8_t family, size, count, renovation; /* renovation cards, 0: no ruin side */
} kh_tile;

typedef struct kh_data {
    int width, height, squares;
    int start_board;
    int hamlets;
    uint8_t hamlet[KH_MAXHAMLETS];
    kh_bits printed; /* the printed Hamlets' squares */
    uint8_t terrain[KH_MAXSQ];
    kh_tile tile[KH_TYPES];
    uint8_t cards[KH_FAMILIES];
    uint8_t surcharge_forest[TB_MAX_SEATS + 1];   /* by player count */
    uint8_t surcharge_mountain[TB_MAX_SEATS + 1];
    uint8_t cubes, ecus, hand;
    int places;                 /* placements of every size */
    uint16_t place_first[4];    /* placements of size s are [place_first[s], place_end[s]) */
    uint16_t place_end[4];
} kh_data;

/* Every table of one Khronos data set (docs/data-format.md).  The rules
 * reach it through the state: k->base.data->tables, and every board keeps
 * the same pointer (kh_board.tab) for the board layer.  Immutable. */
typedef struct kh_tables {
    kh_data data;
    const kh_place *place; /* data.places of them, by size then squares */
    /* Placements of size s whose first square is >= q begin at anchor[s][q]. */
    const uint16_t (*anchor)[KH_MAXSQ + 1];
    /* The larger placements containing all squares of placement i are
     * super[super_first[i] .. super_first[i + 1]). */
    const uint16_t *super_first;
    const uint16_t *super;
    /* The forms of size s are form[form_first[s] .. form_end[s]). */
    const kh_form *form;
    uint8_t form_first[4];
    uint8_t form_end[4];
    /* The squares that have a square on their left (column > 0), and on
     * their right. */
    kh_bits has_left, has_right;
} kh_tables;

/* The built-in data (written by khronos_datagen.c from data/khronos.txt). */
extern const kh_tables khronos__tables;
extern const struct tb_data khronos__builtin;

/* ---- khronos_data.c: the one reader of the data format ---- */
/* Parses a Khronos data file (len bytes of text): malloc'd tables, or NULL
 * with err "WHERE:LINE: what is wrong" (LINE 0: the file as a whole). */
void *kh_data_read(const char *text, size_t len, const char *where, char *err, size_t errlen);
void kh_data_free(void *tables);

#define KH_TABLES(s) ((const kh_tables *)((const tb_state *)(s))->data->tables)

/* ---- one board ---- */

#define KH_PRINTED 1 /* a printed Hamlet (not a tile) */
#define KH_RUIN 2    /* a ruin on the Reason board */

/* A building on a board.  All fields are bytes (no padding) so the state
 * can be compared byte for byte. */
typedef struct kh_bld {
    uint16_t place;  /* index into the tables' place[]: its squares */
    uint8_t type;
    uint8_t owner;   /* seat for military/religious on Might/Faith, else KH_NOBODY */
    uint8_t flags;
    uint8_t dom;     /* index of the first building of its domain */
    uint8_t reno;    /* seat whose cube marks a half-renovated ruin, else KH_NOBODY */
    uint8_t ncubes;  /* populate cubes (Reason, civil) */
    uint8_t cube[3]; /* their owners, sorted */
    uint8_t orig;    /* while the board is being resolved: anchor square of the
                        root of the domain it stood in before the change
                        (KH_NONE for buildings added since) */
    uint8_t opower;  /* ... and that domain's power */
    uint8_t anchor;  /* its first square: place[place].sq[0], kept here because the
                        place table is large and read at random (kh_bld_place) */
} kh_bld;

/* One board.  Buildings are kept sorted by their first square; at[] maps
 * every square to the index of the building covering it.  dom is canonical
 * (the smallest index in the domain), so a state rebuilt from JSON is byte
 * for byte the same as the one that was saved. */
typedef struct kh_board {
    const kh_tables *tab; /* the data the board is on (the state's) */
    kh_bits occ;
    uint8_t at[KH_MAXSQ + 1];
    uint8_t nb;
    uint8_t dirty; /* changed since the last hierarchy resolution (Might, Faith) */
    uint8_t pad[6];
    kh_bld b[KH_MAXB];
} kh_board;

/* ---- khronos_board.c ---- */

/* What one domain holds (kh_board_domains). */
typedef struct kh_domstat {
    uint8_t top[2];    /* highest military / religious value (0: none) */
    uint8_t ntop[2];   /* how many buildings have it */
    uint8_t power[3];  /* military, religious, civil power (ruins count 0) */
    uint8_t members;
} kh_domstat;

static inline const kh_place *kh_place_of(const kh_tables *t, const kh_bld *b)
{
    return &t->place[b->place];
}
/* A building's first square (kept in the building: kh_bld_place). */
static inline int kh_anchor(const kh_bld *b) { return b->anchor; }
/* Gives building b the placement `place` (its squares), with its first square. */
static inline void kh_bld_place(kh_bld *b, const kh_tables *t, int place)
{
    b->place = (uint16_t)place;
    b->anchor = t->place[place].sq[0];
}
int kh_board_find(const kh_board *bd, int anchor); /* building index by first square, or -1 */
void kh_board_init(kh_board *bd, const kh_tables *tab);
/* Adds a building (its squares must be free); returns its index. */
int kh_board_add(kh_board *bd, int place, int type, int owner, int flags);
/* Removes building i and recomputes the domains it leaves behind. */
void kh_board_remove(kh_board *bd, int i);
void kh_board_domains(const kh_board *bd, kh_domstat st[KH_MAXB]); /* by root index */
/* Recomputes at/occ/dom from the building list (after loading). */
void kh_board_rebuild(kh_board *bd);
/* Distinct domain roots touching the squares of nbr (at most max); returns how many. */
int kh_board_touching(const kh_board *bd, kh_bits nbr, int skip_root, uint8_t *roots, int max);
/* Records each building's domain and its power (family fam) before a change. */
void kh_board_snapshot(kh_board *bd, int fam);
/* Building i leaves the board after the snapshot but before the change it
 * was taken for (a shadow overwrites it): the power recorded for its
 * domain no longer counts it (fam: the snapshot's family). */
void kh_board_snapshot_drop(kh_board *bd, int i, int fam);
void kh_board_clear_snapshot(kh_board *bd);

/* The highest value of family f among the other buildings of building i's domain. */
int kh_top_without(const kh_board *bd, int i, int f);
/* Geography, dominion and hierarchy for laying `type` on placement p, new
 * (old < 0) or as the upgrade of building old whose domain tops f at
 * old_top; st: the board's domains (new military/religious buildings).
 * The rule read one placement at a time: the legal-move generator uses the
 * whole-board scans below instead, and the simulation test checks that
 * they agree with it (tests/sim/sim_khronos.c). */
bool kh_place_ok(const kh_board *bd, int type, const kh_place *p, int old, int old_top,
                 const kh_domstat *st);
/* kh_board_domains, and the squares each domain's buildings cover (sq[root]):
 * what the placement scans below need to test dominion with set operations. */
void kh_board_domain_squares(const kh_board *bd, kh_domstat st[KH_MAXB], kh_bits sq[KH_MAXB]);
/* The placements of type's size where a new tile of that type may be laid
 * (kh_place_ok with old < 0; st and sq: kh_board_domain_squares, unused for
 * civil types) and whose terrain mix (covers) is a bit of covers_ok: lists
 * their indices in placement order in out, stopping at
 * limit; returns how many. */
int kh_board_new_places(const kh_board *bd, int type, const kh_domstat *st, const kh_bits *sq,
                        unsigned covers_ok, uint32_t *out, int limit);
/* The same as sets: legal[k] (k < KH_MAXSHAPES) the first squares of the
 * placements of form form_first[size] + k that kh_board_new_places lists;
 * returns how many there are in all. */
int kh_board_new_set(const kh_board *bd, int type, const kh_domstat *st, const kh_bits *sq,
                     unsigned covers_ok, kh_bits *legal);
/* The sets of kh_board_new_set before dominion (room: free squares, an
 * allowed terrain mix), and in touching those of them where dominion is
 * still to be tested (kh_board_new_dominion; the others pass it); returns
 * how many room holds.  For a draw that tests only the placement drawn. */
int kh_board_new_room(const kh_board *bd, int type, unsigned covers_ok, kh_bits *room,
                      kh_bits *touching);
/* Whether a new tile of `type` on free placement `place` passes dominion. */
bool kh_board_new_dominion(const kh_board *bd, int type, int place, const kh_domstat *st,
                           const kh_bits *sq);
/* The placements of size v in such sets, in placement order: listed in out
 * (up to limit; returns how many), or the one numbered nth from 0. */
int kh_board_set_list(const kh_tables *t, int v, const kh_bits *legal, uint32_t *out, int limit);
int kh_board_set_nth(const kh_tables *t, int v, const kh_bits *legal, int nth);
/* The families (bit f of the result) among `families` that have at least one
 * placement of size v as kh_board_new_places would list it (one scan for all). */
unsigned kh_board_new_families(const kh_board *bd, int v, unsigned families,
                               const kh_domstat *st, const kh_bits *sq, unsigned covers_ok);
/* The placements where building i may be upgraded to `type` (kh_place_ok
 * with old = i; larger than i, same family) whose covers is a bit of
 * covers_ok: listed in out and counted like kh_board_new_places. */
int kh_board_upgrade_places(const kh_board *bd, int i, int type, const kh_domstat *st,
                            const kh_bits *sq, unsigned covers_ok, uint32_t *out, int limit);
/* The sizes v (bit v of the result) among `sizes` to which building i can be
 * upgraded in its family, as kh_board_upgrade_places would list at least one
 * placement with covers_ok[v] (one walk of the larger placements for all). */
unsigned kh_board_upgrade_sizes(const kh_board *bd, int i, unsigned sizes, const kh_domstat *st,
                                const kh_bits *sq, const unsigned covers_ok[4]);
/* The placements of the tile one size smaller inside building i (at most KH_MAXSUB). */
int kh_smaller_places(const kh_board *bd, int i, uint16_t *out);
/* Lays a printed Hamlet again on every printed Hamlet square left bare. */
void kh_board_restore_printed(kh_board *bd);
/* The same but on the squares of keep_bare (where a tile is about to go):
 * the board as it will be once that tile is laid, less the tile itself. */
void kh_board_restore_printed_but(kh_board *bd, kh_bits keep_bare);
/* A hierarchy conflict on a board: the buildings to choose from (or the one forced). */
typedef struct kh_conflict {
    int found;
    int forced;          /* 1: cand[0] is downsized without a decision */
    int n;
    uint8_t cand[KH_MAXB];
} kh_conflict;
/* The first domain with two highest military or religious buildings, and
 * which of them may be downsized when seat `mover` acts (§1.8). */
void kh_board_conflict(const kh_board *bd, int mover, kh_conflict *c);

#endif
