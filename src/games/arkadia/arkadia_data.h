/*
 * arkadia_data.h — Arkadia's component data as the rules code reads it (the
 * `ark_data` table), the 192-square bit boards it is written in, and the one
 * reader of the board file format (docs/data-format.md, "Arkadia").
 *
 * This header needs only the C library: the build-time generator
 * (arkadia_datagen.c) compiles arkadia_data.c with it to write the built-in
 * table `ark__data`, and the library compiles the same file to read an
 * owner's board at run time, so both go through one parser.
 *
 * Squares are indexed y*16 + x (x = column a..p, y = row 1..12 from the top);
 * a bit board keeps square i in bit i%64 of word i/64, so each word holds four
 * whole rows and a shape moves to another anchor by a plain shift.  Families
 * (seal colours) are indexed in the order of the file's `family` lines (red,
 * olive, black, silver on every board); ARK_NO_FAMILY marks a blank castle
 * square.  A card is form*4 + family.
 *
 * Invariants of every ark_data the parser returns (and so of `ark__data`):
 * it is plain data (no pointers), so a copy is a memcpy and a loaded board
 * can be freed with one free(); every count fits the engine's limits below;
 * the lot fits at least one place without covering a tent; the first-game
 * layout is legal; forms' orientations are the distinct quarter turns, then
 * the distinct mirror images.
 */
#ifndef TB_ARKADIA_DATA_H
#define TB_ARKADIA_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The engine's limits (a board file beyond them is refused with a message
 * naming the limit). */
#define ARK_W 16 /* the bit boards hold exactly 16 x 12 squares */
#define ARK_H 12
#define ARK_SQUARES 192
#define ARK_FAMILIES 4
#define ARK_NO_FAMILY 4
#define ARK_FORMS 7
#define ARK_CARD_TYPES (ARK_FORMS * ARK_FAMILIES)
#define ARK_CARDS 40
#define ARK_MAX_ORIENT 8
#define ARK_MAX_CELLS 4
#define ARK_MAX_LOT 4     /* the lot is at most 4 x 4 squares */
#define ARK_CASTLE 10
#define ARK_FLOORS 3
#define ARK_SEATS 4
#define ARK_NEUTRAL 4      /* index of the neutral workers' board */
#define ARK_HAND 4         /* most cards a hand holds */
#define ARK_DISPLAY 3      /* most face-up cards */
#define ARK_MAX_FIRST 12   /* most buildings of the first-game layout */
#define ARK_MAX_PIECES 12  /* most castle pieces of one family in one floor's pool */
#define ARK_MAX_OWN 40     /* most own workers per player colour */
#define ARK_MAX_NEUTRAL 60 /* most neutral workers */
#define ARK_NAME_LEN 24    /* longest name (family, form, player colour) + 1 */
#define ARK_TITLE_LEN 48   /* longest family title + 1 */
#define ARK_NO_SQUARE 255

/* ---- bit boards ---- */
typedef struct ark_bb {
    uint64_t w[3];
} ark_bb;

/* ---- component data ---- */
typedef struct ark_orient {
    uint8_t w, h;                  /* bounding box */
    uint8_t dx[ARK_MAX_CELLS], dy[ARK_MAX_CELLS]; /* cells, sorted by (dy, dx) */
    ark_bb base;                   /* the shape with its box's corner on a1 */
    ark_bb anchors;                /* corners where the shape stays on the board */
} ark_orient;

typedef struct ark_form {
    char name[ARK_NAME_LEN];
    uint8_t number, tiles, cells;
    uint8_t rotations; /* distinct quarter turns: orient[0 .. rotations-1] */
    uint8_t orients;   /* plus distinct mirror images: orient[0 .. orients-1] */
    ark_orient orient[ARK_MAX_ORIENT];
} ark_form;

typedef struct ark_first_building {
    uint8_t form, family, orient, anchor;
} ark_first_building;

typedef struct ark_data {
    char family[ARK_FAMILIES][ARK_NAME_LEN];        /* "red" */
    char family_title[ARK_FAMILIES][ARK_TITLE_LEN]; /* "cloth merchants" */
    char seat_colour[ARK_SEATS][ARK_NAME_LEN];      /* "yellow" */
    ark_bb tents;
    uint8_t lot_w, lot_h;
    ark_bb lot_base;    /* the lot with its corner on a1 */
    ark_bb lot_anchors; /* corners where the lot covers no tent */
    uint8_t castle_x[ARK_CASTLE], castle_y[ARK_CASTLE]; /* offsets in the lot */
    uint8_t castle_seal[ARK_CASTLE];                     /* family or ARK_NO_FAMILY */
    ark_form form[ARK_FORMS];
    uint8_t cards[ARK_FORMS][ARK_FAMILIES];
    uint8_t hand, display;
    uint8_t pieces[ARK_FLOORS][ARK_FAMILIES];
    uint8_t own_workers, start_workers, banners, per_banner, neutral;
    uint8_t first_neutral[ARK_SEATS + 1]; /* by player count */
    uint8_t first_lot;                    /* corner square */
    uint8_t first_count;
    ark_first_building first[ARK_MAX_FIRST];
} ark_data;

/* The board compiled into the program (data/arkadia.txt, read at build time
 * by this same parser). */
extern const ark_data ark__data;

/*
 * Reads a board file (docs/data-format.md, "Arkadia") of `len` bytes into
 * *out.  `file` names the file in messages.  `names`, when not NULL, is the
 * board whose family, form and player-colour names the file must repeat
 * (the notation, saved games and screens use them, so every board keeps
 * them); the build-time generator passes NULL.  Returns 0 on success; else
 * -1, *out is unspecified, and err holds "FILE:LINE: what is wrong" (line
 * 0 for something only the whole file shows, e.g. a missing line).
 * Allocates nothing and keeps no state between calls.
 */
int ark__data_parse(const char *text, size_t len, const char *file, const ark_data *names,
                    ark_data *out, char *err, size_t errlen);

/* ---- bit-board helpers (inline: the hot path) ---- */
static inline ark_bb ark_bb_or(ark_bb a, ark_bb b)
{
    return (ark_bb){{a.w[0] | b.w[0], a.w[1] | b.w[1], a.w[2] | b.w[2]}};
}
static inline ark_bb ark_bb_and(ark_bb a, ark_bb b)
{
    return (ark_bb){{a.w[0] & b.w[0], a.w[1] & b.w[1], a.w[2] & b.w[2]}};
}
static inline ark_bb ark_bb_andnot(ark_bb a, ark_bb b)
{
    return (ark_bb){{a.w[0] & ~b.w[0], a.w[1] & ~b.w[1], a.w[2] & ~b.w[2]}};
}
static inline bool ark_bb_any(ark_bb a)
{
    return (a.w[0] | a.w[1] | a.w[2]) != 0;
}
static inline int ark_pop64(uint64_t x)
{
    return __builtin_popcountll(x); /* one instruction with -mpopcnt (meson.build) */
}
static inline int ark_bb_count(ark_bb a)
{
    return ark_pop64(a.w[0]) + ark_pop64(a.w[1]) + ark_pop64(a.w[2]);
}
static inline bool ark_bb_has(ark_bb a, int sq)
{
    return (a.w[sq >> 6] >> (sq & 63)) & 1;
}
static inline void ark_bb_set(ark_bb *a, int sq)
{
    a->w[sq >> 6] |= 1ULL << (sq & 63);
}
/* The lowest square of a non-empty board. */
static inline int ark_bb_first(ark_bb a)
{
    if (a.w[0])
        return __builtin_ctzll(a.w[0]);
    if (a.w[1])
        return 64 + __builtin_ctzll(a.w[1]);
    return 128 + __builtin_ctzll(a.w[2]);
}
/* Squares moved n places up the index order (0 <= n < 192). */
static inline ark_bb ark_bb_shl(ark_bb a, int n)
{
    ark_bb r = {{0, 0, 0}};
    int words = n >> 6, bits = n & 63;
    for (int i = 2; i >= words; i--) {
        uint64_t v = a.w[i - words] << bits;
        if (bits && i - words - 1 >= 0)
            v |= a.w[i - words - 1] >> (64 - bits);
        r.w[i] = v;
    }
    return r;
}
/* Squares moved n places down the index order (0 <= n < 64). */
static inline ark_bb ark_bb_shr_small(ark_bb a, int n)
{
    if (!n)
        return a;
    return (ark_bb){{(a.w[0] >> n) | (a.w[1] << (64 - n)), (a.w[1] >> n) | (a.w[2] << (64 - n)),
                     a.w[2] >> n}};
}
#define ARK_COL_A 0x0001000100010001ULL
#define ARK_COL_P 0x8000800080008000ULL
/* The orthogonal neighbours of a set of squares (on the board), minus the set. */
static inline ark_bb ark_bb_around(ark_bb a)
{
    ark_bb r;
    for (int i = 0; i < 3; i++) {
        uint64_t east = (a.w[i] << 1) & ~ARK_COL_A;
        uint64_t west = (a.w[i] >> 1) & ~ARK_COL_P;
        uint64_t south = a.w[i] << 16 | (i ? a.w[i - 1] >> 48 : 0);
        uint64_t north = a.w[i] >> 16 | (i < 2 ? a.w[i + 1] << 48 : 0);
        r.w[i] = (east | west | south | north) & ~a.w[i];
    }
    return r;
}

#endif
