/*
 * khronos_data.c — the one reader of the Khronos data format
 * (docs/data-format.md): the board's terrain, the printed Hamlets, tiles,
 * shapes, cards, surcharges and the per-player supplies, turned into the
 * kh_tables the rules use, including every placement of every tile shape on
 * the grid.  The library calls it when a board file is loaded at run time;
 * the build-time generator (khronos_datagen.c) is compiled with this same
 * file and writes what it returns as the built-in tables, so both paths are
 * one code.
 *
 * Invariants: a malformed file (unknown word or terrain letter, row of the
 * wrong length, missing or repeated item, a Hamlet on the river, a shape that
 * is empty, larger than KH_MAXCELLS or not connected, a board beyond the
 * engine's limits) gives NULL and "WHERE:LINE: what is wrong", never a
 * partial table, and nothing is kept between calls.  A shape's cell count is
 * its own (Khronos tiles are squares: 1, 4 and 9 cells for sizes 1-3);
 * nothing here equates it with the tile size.  Only the C library is used
 * (no jansson, no other file of the library), so the native generator can
 * compile it alone.  The deeper invariants of the result are checked by
 * tests/unit/test_khronos_data.c.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "khronos_board.h"
#include "shape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KD_MAXSIDE 26     /* columns are letters */
#define KD_MAXPLACE KH_MAXPLACES
#define KD_LINE 1024

static const char kd_terrain_chars[] = ".fm~/^"; /* plain forest mountain river p+f f+m */
static const char *const kd_families[] = {"military", "religious", "civil"};
static const char *const kd_boards[] = {"might", "faith", "reason"};

/* Everything read so far, and where the failure message goes. */
typedef struct kd_reader {
    const char *where;
    int line;
    char *err;
    size_t errlen;
    int width, height, size_line;
    uint8_t terrain[KD_MAXSIDE * KD_MAXSIDE];
    uint8_t row_seen[KD_MAXSIDE + 1];
    int hamlet[KH_MAXHAMLETS], hamlets, hamlets_line;
    int start;
    char tile_name[KH_TYPES][32];
    int tile_count[KH_TYPES], tile_reno[KH_TYPES], tile_seen[KH_TYPES];
    tb_shape shapes[4][KH_MAXSHAPES];
    int nshapes[4], shape1_line;
    int cards[KH_FAMILIES], cards_line;
    int forest[4], mountain[4], forest_seen, mountain_seen;
    int cubes, ecus, hand;
} kd_reader;

static int kd_fail(kd_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int kd_fail(kd_reader *r, const char *fmt, ...)
{
    if (r->err && r->errlen) {
        int n = snprintf(r->err, r->errlen, "%s:%d: ", r->where, r->line);
        if (n >= 0 && (size_t)n < r->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

/* A whole word that is a number in lo..hi (`what` names it). */
static int kd_number(kd_reader *r, const char *w, int lo, int hi, const char *what, int *out)
{
    char *end;
    if (!w)
        return kd_fail(r, "%s is missing (a number from %d to %d)", what, lo, hi);
    long v = strtol(w, &end, 10);
    if (!*w || *end || v < lo || v > hi)
        return kd_fail(r, "%s must be a number from %d to %d, not '%s'", what, lo, hi, w);
    *out = (int)v;
    return 0;
}

static char *kd_word(char **save)
{
    return strtok_r(NULL, " \t\r\n", save);
}

/* The index of word w in names[0..n-1], or a failure naming the choices. */
static int kd_index(kd_reader *r, const char *w, const char *const *names, int n,
                    const char *what, int *out)
{
    for (int i = 0; w && i < n; i++)
        if (strcmp(w, names[i]) == 0) {
            *out = i;
            return 0;
        }
    char choices[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(choices + strlen(choices), sizeof choices - strlen(choices), "%s%s",
                 i ? (i == n - 1 ? " or " : ", ") : "", names[i]);
    if (!w)
        return kd_fail(r, "the %s is missing (%s)", what, choices);
    return kd_fail(r, "unknown %s '%s' (%s)", what, w, choices);
}

static int kd_square(kd_reader *r, const char *w, int *out)
{
    if (!w || w[0] < 'a' || w[0] >= 'a' + r->width || w[1] < '1' || w[1] > '9')
        return kd_fail(r, "'%s' is not a square of the board (columns a-%c, rows 1-%d)",
                       w ? w : "", 'a' + r->width - 1, r->height);
    char *end;
    long row = strtol(w + 1, &end, 10);
    if (*end || row < 1 || row > r->height)
        return kd_fail(r, "'%s' is not a square of the board (columns a-%c, rows 1-%d)", w,
                       'a' + r->width - 1, r->height);
    *out = (int)(row - 1) * r->width + (w[0] - 'a');
    return 0;
}

static int kd_size(kd_reader *r, char **save)
{
    if (r->width)
        return kd_fail(r, "the board's size is given twice");
    if (kd_number(r, kd_word(save), 2, KD_MAXSIDE, "the number of columns", &r->width) ||
        kd_number(r, kd_word(save), 2, KD_MAXSIDE, "the number of rows", &r->height))
        return -1;
    if (r->width * r->height > KH_MAXSQ)
        return kd_fail(r, "the board is too large: at most %d squares (this is %d x %d = %d)",
                       KH_MAXSQ, r->width, r->height, r->width * r->height);
    r->size_line = r->line;
    return 0;
}

static int kd_row(kd_reader *r, char **save)
{
    if (!r->width)
        return kd_fail(r, "the board's 'size' must come before its rows");
    int row = 0;
    if (kd_number(r, kd_word(save), 1, r->height, "the row number", &row))
        return -1;
    if (r->row_seen[row]++)
        return kd_fail(r, "row %d is given twice", row);
    const char *cells = kd_word(save);
    if (!cells || (int)strlen(cells) != r->width)
        return kd_fail(r, "row %d must have %d terrain letters, one per column (it has %d)", row,
                       r->width, cells ? (int)strlen(cells) : 0);
    for (int c = 0; c < r->width; c++) {
        const char *k = strchr(kd_terrain_chars, cells[c]);
        if (!k)
            return kd_fail(r, "row %d: unknown terrain letter '%c' in column %c (use . f m ~ / ^)",
                           row, cells[c], 'a' + c);
        r->terrain[(row - 1) * r->width + c] = (uint8_t)(k - kd_terrain_chars);
    }
    return 0;
}

static int kd_hamlets(kd_reader *r, char **save)
{
    if (!r->width)
        return kd_fail(r, "the board's 'size' must come before the Hamlets");
    if (r->hamlets_line)
        return kd_fail(r, "the printed Hamlets are given twice");
    r->hamlets_line = r->line;
    const char *h;
    while ((h = kd_word(save)) != NULL) {
        if (r->hamlets >= KH_MAXHAMLETS)
            return kd_fail(r, "at most %d printed Hamlets", KH_MAXHAMLETS);
        int sq = 0;
        if (kd_square(r, h, &sq))
            return -1;
        for (int i = 0; i < r->hamlets; i++)
            if (r->hamlet[i] == sq)
                return kd_fail(r, "the printed Hamlet at %s is given twice", h);
        r->hamlet[r->hamlets++] = sq;
    }
    if (!r->hamlets)
        return kd_fail(r, "'hamlets' needs at least one square");
    return 0;
}

static int kd_tile(kd_reader *r, char **save)
{
    const char *name = kd_word(save);
    if (!name || strlen(name) >= sizeof r->tile_name[0])
        return kd_fail(r, "a tile needs a name of at most %d letters",
                       (int)sizeof r->tile_name[0] - 1);
    for (const char *p = name; *p; p++)
        if (*p < 'a' || *p > 'z')
            return kd_fail(r, "tile names are written in lower-case letters, not '%s'", name);
    int f = 0, size = 0, count = 0;
    if (kd_index(r, kd_word(save), kd_families, KH_FAMILIES, "family", &f) ||
        kd_number(r, kd_word(save), 1, 3, "the tile's size", &size))
        return -1;
    int t = KH_TYPE(f, size);
    for (int o = 0; o < KH_TYPES; o++)
        if (r->tile_seen[o] && o != t && strcmp(r->tile_name[o], name) == 0)
            return kd_fail(r, "two tiles are called '%s'", name);
    if (r->tile_seen[t]++)
        return kd_fail(r, "a %s tile of size %d is given twice", kd_families[f], size);
    snprintf(r->tile_name[t], sizeof r->tile_name[t], "%s", name);
    if (kd_number(r, kd_word(save), 1, 255, "the number of tiles", &count))
        return -1;
    r->tile_count[t] = count;
    r->tile_reno[t] = 0;
    const char *w = kd_word(save);
    if (w) {
        if (strcmp(w, "ruin") != 0)
            return kd_fail(r, "expected 'ruin CARDS' or the end of the line, not '%s'", w);
        if (f == KH_CIVIL || size == 1)
            return kd_fail(r, "only military and religious tiles of size 2 and 3 have ruin sides");
        if (kd_number(r, kd_word(save), 1, 2, "the cards to renovate the ruin", &r->tile_reno[t]))
            return -1;
    } else if (f != KH_CIVIL && size > 1) {
        return kd_fail(r, "the %s has a ruin side: write 'ruin CARDS' after its count", name);
    }
    return 0;
}

static int tb_shape_line(kd_reader *r, char **save)
{
    int size = 0;
    if (kd_number(r, kd_word(save), 1, 3, "the shape's tile size", &size))
        return -1;
    if (size == 1)
        r->shape1_line = r->line;
    const char *cells = kd_word(save);
    tb_shape s = {0};
    int row = 0, col = 0;
    for (const char *p = cells ? cells : ""; *p; p++) {
        if (*p == '/') {
            row++;
            col = 0;
        } else if (*p == '#' || *p == '.') {
            if (*p == '#') {
                if (s.n >= KH_MAXCELLS)
                    return kd_fail(r, "a shape covers at most %d squares", KH_MAXCELLS);
                s.y[s.n] = row;
                s.x[s.n] = col;
                s.n++;
            }
            col++;
        } else {
            return kd_fail(r, "shapes are written with '#' (covered), '.' (not) and '/' (next "
                              "row), not '%c'",
                           *p);
        }
    }
    if (s.n == 0)
        return kd_fail(r, "the shape of size %d covers no square", size);
    if (!tb__shape_connected(&s))
        return kd_fail(r, "the squares of a size %d shape must be connected", size);
    for (int k = 0; k < 8; k++) { /* every rotation and reflection */
        tb_shape t = s;
        for (int i = 0; i < t.n; i++) {
            int rr = s.y[i], cc = s.x[i];
            if (k & 4) {
                int tmp = rr;
                rr = cc;
                cc = tmp;
            }
            if (k & 1)
                rr = -rr;
            if (k & 2)
                cc = -cc;
            t.y[i] = rr;
            t.x[i] = cc;
        }
        tb__shape_normalise(&t);
        bool dup = false;
        for (int i = 0; i < r->nshapes[size] && !dup; i++)
            dup = tb__shape_same(&r->shapes[size][i], &t);
        if (dup)
            continue;
        if (r->nshapes[size] >= KH_MAXSHAPES)
            return kd_fail(r, "too many shapes of size %d: at most %d counting rotations and "
                              "reflections",
                           size, KH_MAXSHAPES);
        r->shapes[size][r->nshapes[size]++] = t;
    }
    return 0;
}

static int kd_surcharge(kd_reader *r, char **save)
{
    const char *t = kd_word(save);
    int *dst;
    if (t && strcmp(t, "forest") == 0) {
        if (r->forest_seen++)
            return kd_fail(r, "the forest surcharge is given twice");
        dst = r->forest;
    } else if (t && strcmp(t, "mountain") == 0) {
        if (r->mountain_seen++)
            return kd_fail(r, "the mountain surcharge is given twice");
        dst = r->mountain;
    } else {
        return kd_fail(r, "expected 'surcharge forest' or 'surcharge mountain'");
    }
    static const char *const what[4] = {"the surcharge for 2 players", "the surcharge for 3 players",
                                        "the surcharge for 4 players",
                                        "the surcharge for 5 players"};
    for (int i = 0; i < 4; i++)
        if (kd_number(r, kd_word(save), 0, 3, what[i], &dst[i]))
            return -1;
    return 0;
}

/* One line (already cut at its first word w); 0 or a failure. */
static int kd_line(kd_reader *r, const char *w, char **save)
{
    int f = 0, v = 0;
    if (strcmp(w, "size") == 0)
        return kd_size(r, save);
    if (strcmp(w, "row") == 0)
        return kd_row(r, save);
    if (strcmp(w, "hamlets") == 0)
        return kd_hamlets(r, save);
    if (strcmp(w, "start") == 0) {
        if (r->start >= 0)
            return kd_fail(r, "the starting board is given twice");
        return kd_index(r, kd_word(save), kd_boards, KH_BOARDS, "board", &r->start);
    }
    if (strcmp(w, "tile") == 0)
        return kd_tile(r, save);
    if (strcmp(w, "shape") == 0)
        return tb_shape_line(r, save);
    if (strcmp(w, "cards") == 0) {
        if (kd_index(r, kd_word(save), kd_families, KH_FAMILIES, "family", &f))
            return -1;
        if (r->cards[f] >= 0)
            return kd_fail(r, "the %s cards are given twice", kd_families[f]);
        r->cards_line = r->line;
        return kd_number(r, kd_word(save), 1, 60, "the number of cards", &r->cards[f]);
    }
    if (strcmp(w, "surcharge") == 0)
        return kd_surcharge(r, save);
    int *dst = strcmp(w, "cubes") == 0  ? &r->cubes
               : strcmp(w, "ecus") == 0 ? &r->ecus
               : strcmp(w, "hand") == 0 ? &r->hand
                                        : NULL;
    if (!dst)
        return kd_fail(r, "unknown line '%s' (expected size, row, hamlets, start, tile, shape, "
                          "cards, surcharge, cubes, ecus or hand)",
                       w);
    if (*dst >= 0)
        return kd_fail(r, "'%s' is given twice", w);
    int lo = dst == &r->ecus ? 0 : 1, hi = dst == &r->hand ? 7 : 250;
    if (kd_number(r, kd_word(save), lo, hi,
                  dst == &r->cubes ? "the cubes per player"
                  : dst == &r->ecus ? "the starting Ecus"
                                    : "the hand size",
                  &v))
        return -1;
    *dst = v;
    return 0;
}

/* What the whole file must have, once every line is read. */
static int kd_complete(kd_reader *r)
{
    r->line = 0;
    if (!r->width)
        return kd_fail(r, "the board's 'size' is missing");
    for (int row = 1; row <= r->height; row++)
        if (!r->row_seen[row])
            return kd_fail(r, "row %d of the board is missing", row);
    if (!r->hamlets_line)
        return kd_fail(r, "the printed Hamlets ('hamlets') are missing");
    for (int i = 0; i < r->hamlets; i++)
        if (r->terrain[r->hamlet[i]] == KH_RIVER) {
            r->line = r->hamlets_line;
            return kd_fail(r, "the printed Hamlet at %c%d stands on a river square",
                           'a' + r->hamlet[i] % r->width, r->hamlet[i] / r->width + 1);
        }
    if (r->start < 0)
        return kd_fail(r, "the starting board ('start') is missing");
    for (int t = 0; t < KH_TYPES; t++)
        if (!r->tile_seen[t])
            return kd_fail(r, "the %s tile of size %d is missing", kd_families[KH_FAMILY(t)],
                           KH_SIZE(t));
    for (int s = 1; s <= 3; s++)
        if (!r->nshapes[s])
            return kd_fail(r, "no tile shape of size %d", s);
    if (r->nshapes[1] != 1 || r->shapes[1][0].n != 1) {
        r->line = r->shape1_line;
        return kd_fail(r, "a size 1 tile covers exactly one square (shape 1 #), like the printed "
                          "Hamlets");
    }
    for (int f = 0; f < KH_FAMILIES; f++)
        if (r->cards[f] < 0)
            return kd_fail(r, "the %s cards are missing", kd_families[f]);
    if (r->cards[0] + r->cards[1] + r->cards[2] > KH_MAXCARDS) {
        r->line = r->cards_line;
        return kd_fail(r, "too many cards: at most %d in all (this file has %d)", KH_MAXCARDS,
                       r->cards[0] + r->cards[1] + r->cards[2]);
    }
    if (!r->forest_seen || !r->mountain_seen)
        return kd_fail(r, "both surcharges (forest and mountain) must be given");
    if (r->cubes < 0 || r->ecus < 0 || r->hand < 0)
        return kd_fail(r, "'cubes', 'ecus' and 'hand' must all be given");
    return 0;
}

/* What kh_data_read allocates: the tables first (kh_data_free frees them
 * by that address), then the storage their tile names point to. */
typedef struct kd_owned {
    kh_tables tables;
    char tile_name[KH_TYPES][32];
    kh_form form[KH_MAXFORMS];
} kd_owned;

typedef struct kd_place_key {
    int size, n;
    int sq[KH_MAXCELLS];
} kd_place_key;

static int kd_place_cmp(const void *a, const void *b)
{
    const kd_place_key *x = a, *y = b;
    if (x->size != y->size)
        return x->size - y->size;
    for (int i = 0; i < x->n && i < y->n; i++)
        if (x->sq[i] != y->sq[i])
            return x->sq[i] - y->sq[i];
    return x->n - y->n;
}

static bool kd_inside(const kh_place *a, const kh_place *b)
{
    return kh_bits_subset(a->mask, b->mask);
}

void kh_data_free(void *tables)
{
    kh_tables *t = tables;
    if (!t)
        return;
    free((void *)(uintptr_t)t->place);
    free((void *)(uintptr_t)t->anchor);
    free((void *)(uintptr_t)t->super_first);
    free((void *)(uintptr_t)t->super);
    free(t);
}

/* Builds the tables from a complete reading; NULL and a failure message when
 * the board is beyond the engine's limits. */
static kh_tables *kd_build(kd_reader *r)
{
    int width = r->width, height = r->height, squares = width * height;
    kd_place_key *key = calloc(KD_MAXPLACE, sizeof *key);
    kd_owned *own = calloc(1, sizeof *own);
    if (!key || !own) {
        free(key);
        free(own);
        r->line = 0;
        kd_fail(r, "out of memory while building the board's tables");
        return NULL;
    }
    kh_tables *t = &own->tables;
    int np = 0;
    for (int s = 1; s <= 3; s++)
        for (int k = 0; k < r->nshapes[s]; k++)
            for (int r0 = 0; r0 < height; r0++)
                for (int c0 = 0; c0 < width; c0++) {
                    kd_place_key p = {.size = s, .n = r->shapes[s][k].n};
                    bool fits = true;
                    for (int i = 0; i < p.n; i++) {
                        int row = r0 + r->shapes[s][k].y[i], col = c0 + r->shapes[s][k].x[i];
                        fits &= row < height && col < width;
                        p.sq[i] = row * width + col;
                    }
                    if (!fits)
                        continue;
                    for (int i = 0; i < p.n; i++)
                        for (int j = i + 1; j < p.n; j++)
                            if (p.sq[j] < p.sq[i]) {
                                int tmp = p.sq[i];
                                p.sq[i] = p.sq[j];
                                p.sq[j] = tmp;
                            }
                    if (np >= KD_MAXPLACE) {
                        r->line = r->size_line;
                        kd_fail(r, "the tiles can be laid in too many ways on this board (at most "
                                   "%d placements): use a smaller board or fewer shapes",
                                KD_MAXPLACE);
                        goto fail;
                    }
                    key[np++] = p;
                }
    qsort(key, (size_t)np, sizeof *key, kd_place_cmp);
    kh_data *d = &t->data;
    d->width = width;
    d->height = height;
    d->squares = squares;
    d->start_board = r->start;
    d->hamlets = r->hamlets;
    for (int i = 0; i < r->hamlets; i++) {
        d->hamlet[i] = (uint8_t)r->hamlet[i];
        kh_bits_set(&d->printed, r->hamlet[i]);
    }
    for (int i = 0; i < squares; i++)
        d->terrain[i] = r->terrain[i];
    for (int ty = 0; ty < KH_TYPES; ty++) {
        snprintf(own->tile_name[ty], sizeof own->tile_name[ty], "%s", r->tile_name[ty]);
        d->tile[ty].name = own->tile_name[ty];
        d->tile[ty].family = (uint8_t)KH_FAMILY(ty);
        d->tile[ty].size = (uint8_t)KH_SIZE(ty);
        d->tile[ty].count = (uint8_t)r->tile_count[ty];
        d->tile[ty].renovation = (uint8_t)r->tile_reno[ty];
    }
    for (int f = 0; f < KH_FAMILIES; f++)
        d->cards[f] = (uint8_t)r->cards[f];
    for (int i = 0; i < 4; i++) {
        d->surcharge_forest[i + 2] = (uint8_t)r->forest[i];
        d->surcharge_mountain[i + 2] = (uint8_t)r->mountain[i];
    }
    d->cubes = (uint8_t)r->cubes;
    d->ecus = (uint8_t)r->ecus;
    d->hand = (uint8_t)r->hand;
    d->places = np;
    for (int i = 0; i < np; i++) {
        int s = key[i].size;
        if (!d->place_end[s])
            d->place_first[s] = (uint16_t)i;
        d->place_end[s] = (uint16_t)(i + 1);
    }

    /* the most buildings one board can hold: every size-1 piece (on its
     * smallest shape), then the smallest of the larger shapes */
    int cells1 = 99, cells23 = 99;
    for (int k = 0; k < r->nshapes[1]; k++)
        cells1 = r->shapes[1][k].n < cells1 ? r->shapes[1][k].n : cells1;
    for (int s = 2; s <= 3; s++)
        for (int k = 0; k < r->nshapes[s]; k++)
            cells23 = r->shapes[s][k].n < cells23 ? r->shapes[s][k].n : cells23;
    int singles = r->hamlets + r->tile_count[0] + r->tile_count[3] + r->tile_count[6];
    int most = singles * cells1 >= squares ? squares / cells1
                                           : singles + (squares - singles * cells1) / cells23;
    if (most > KH_MAXB) {
        r->line = 0;
        kd_fail(r, "a board could hold %d buildings, more than the engine's %d: use fewer "
                   "small tiles or a smaller board",
                most, KH_MAXB);
        goto fail;
    }

    kh_place *place = calloc((size_t)(np ? np : 1), sizeof *place);
    uint16_t(*anchor)[KH_MAXSQ + 1] = calloc(4, sizeof *anchor);
    uint16_t *super_first = calloc((size_t)np + 1, sizeof *super_first);
    t->place = place;
    t->anchor = (const uint16_t(*)[KH_MAXSQ + 1])anchor;
    t->super_first = super_first;
    if (!place || !anchor || !super_first) {
        r->line = 0;
        kd_fail(r, "out of memory while building the board's tables");
        goto fail;
    }
    for (int i = 0; i < np; i++) {
        const kd_place_key *p = &key[i];
        kh_place *q = &place[i];
        int covers = 0;
        for (int k = 0; k < p->n; k++) {
            int sq = p->sq[k], row = sq / width, col = sq % width;
            int ter = r->terrain[sq];
            covers |= ter == KH_RIVER                                     ? KH_COVERS_RIVER
                      : (ter == KH_FOREST || ter == KH_PLAIN_FOREST)      ? KH_COVERS_FOREST
                      : (ter == KH_MOUNTAIN || ter == KH_FOREST_MOUNTAIN) ? KH_COVERS_MOUNTAIN
                                                                          : 0;
            q->sq[k] = (uint8_t)sq;
            kh_bits_set(&q->mask, sq);
            int cand[4] = {row > 0 ? sq - width : -1, row + 1 < height ? sq + width : -1,
                           col > 0 ? sq - 1 : -1, col + 1 < width ? sq + 1 : -1};
            for (int n = 0; n < 4; n++)
                if (cand[n] >= 0)
                    kh_bits_set(&q->nbr, cand[n]);
        }
        q->nbr = kh_bits_minus(q->nbr, q->mask);
        q->n = (uint8_t)p->n;
        q->size = (uint8_t)p->size;
        q->covers = (uint8_t)covers;
    }
    /* the forms: placements of one size grouped by their squares' offsets
     * from the first (at most one per shape and orientation) */
    int nf = 0;
    t->form = own->form;
    for (int s = 1; s <= 3; s++) {
        t->form_first[s] = (uint8_t)nf;
        for (int i = d->place_first[s]; i < d->place_end[s]; i++) {
            kh_place *q = &place[i];
            kh_form want = {.n = q->n, .size = (uint8_t)s};
            for (int k = 0; k < q->n; k++)
                want.off[k] = (uint8_t)(q->sq[k] - q->sq[0]);
            int f = t->form_first[s];
            while (f < nf && memcmp(own->form[f].off, want.off, sizeof want.off))
                f++;
            if (f == nf) {
                if (nf == KH_MAXFORMS)
                    abort(); /* a form is a shape's orientation: the reader bounds them */
                own->form[nf++] = want;
            }
            q->form = (uint8_t)f;
            kh_bits_set(&own->form[f].anchors, q->sq[0]);
            kh_bits_set(&own->form[f].mix[q->covers], q->sq[0]);
        }
        t->form_end[s] = (uint8_t)nf;
    }
    for (int q = 0; q < squares; q++) {
        if (q % width > 0)
            kh_bits_set(&t->has_left, q);
        if (q % width < width - 1)
            kh_bits_set(&t->has_right, q);
    }
    for (int s = 1; s <= 3; s++) {
        int i = d->place_first[s];
        for (int qsq = 0; qsq <= squares; qsq++) {
            while (i < d->place_end[s] && place[i].sq[0] < qsq)
                i++;
            anchor[s][qsq] = (uint16_t)i;
        }
        for (int qsq = squares + 1; qsq <= KH_MAXSQ; qsq++)
            anchor[s][qsq] = 0;
    }
    long total = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint16_t *super = NULL;
        if (pass == 1) {
            if (total > 65535) {
                r->line = 0;
                kd_fail(r, "the tiles can be laid in too many ways on this board: use a smaller "
                           "board or fewer shapes");
                goto fail;
            }
            super = calloc((size_t)(total ? total : 1), sizeof *super);
            if (!super) {
                r->line = 0;
                kd_fail(r, "out of memory while building the board's tables");
                goto fail;
            }
            t->super = super;
        }
        long n = 0;
        for (int i = 0; i < np; i++) {
            if (pass == 1)
                super_first[i] = (uint16_t)n;
            int from = place[i].size < 3 ? d->place_first[place[i].size + 1] : np;
            if (place[i].size < 3 && !d->place_end[place[i].size + 1])
                from = np;
            for (int j = from; j < np; j++)
                if (kd_inside(&place[i], &place[j])) {
                    if (pass == 1)
                        super[n] = (uint16_t)j;
                    n++;
                }
        }
        if (pass == 1)
            super_first[np] = (uint16_t)n;
        total = n;
    }
    free(key);
    return t;
fail:
    free(key);
    kh_data_free(t);
    return NULL;
}

void *kh_data_read(const char *text, size_t len, const char *where, char *err, size_t errlen)
{
    kd_reader *r = calloc(1, sizeof *r);
    if (!r) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory while reading it", where ? where : "khronos data");
        return NULL;
    }
    r->where = where ? where : "khronos data";
    r->err = err;
    r->errlen = errlen;
    r->start = -1;
    for (int f = 0; f < KH_FAMILIES; f++)
        r->cards[f] = -1;
    r->cubes = r->ecus = r->hand = -1;
    kh_tables *t = NULL;
    size_t at = 0;
    char line[KD_LINE];
    while (at < len) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        r->line++;
        if (end - at >= sizeof line) {
            kd_fail(r, "the line is too long (at most %d characters)", KD_LINE - 1);
            goto done;
        }
        if (memchr(text + at, '\0', end - at)) {
            kd_fail(r, "the line holds a NUL byte: this is not a text file");
            goto done;
        }
        memcpy(line, text + at, end - at);
        line[end - at] = '\0';
        at = end + 1;
        char *save = NULL;
        char *w = strtok_r(line, " \t\r\n", &save);
        if (!w || w[0] == '#')
            continue;
        if (kd_line(r, w, &save))
            goto done;
        if (strcmp(w, "hamlets") != 0 && kd_word(&save)) {
            kd_fail(r, "unexpected text at the end of the line");
            goto done;
        }
    }
    if (kd_complete(r) == 0)
        t = kd_build(r);
done:
    free(r);
    return t;
}
