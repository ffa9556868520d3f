/*
 * khronos_datagen.c — build-time tool: reads data/khronos.txt (the board's
 * terrain, the printed Hamlets, tiles, shapes, cards, surcharges and the
 * per-player supplies) and writes the C tables of khronos_board.h, including
 * every placement of every tile shape on the grid.
 *
 * Invariants: a malformed file (unknown word, row of the wrong length,
 * missing or repeated item, a Hamlet on the river, a shape that is empty,
 * larger than KH_MAXCELLS or not connected) fails the build with a line
 * number instead of producing a wrong board.  A shape's cell count is its
 * own (Khronos tiles are squares: 1, 4 and 9 cells for sizes 1-3); nothing
 * here equates it with the tile size.  Limits of the engine (squares,
 * buildings per board, cards) become static assertions in the output.  The
 * deeper invariants are checked by tests/unit/test_khronos_data.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_SHAPE_CELLS 9 /* a 3x3 block */
#include "core/datagen.h"

#define GEN_MAXSQ 676 /* 26 x 26; the engine's own limit is asserted in the output */
#define GEN_MAXPLACE 8192
#define GEN_WORDS 4 /* KH_WORDS */

static const char gen_terrain_chars[] = ".fm~/^"; /* plain forest mountain river p+f f+m */
static const char *const gen_families[] = {"military", "religious", "civil"};
static const char *const gen_boards[] = {"might", "faith", "reason"};

typedef struct gen_place {
    int size, n;
    int sq[GEN_SHAPE_CELLS];
} gen_place;

static int width, height;

static int gen_square(const char *w)
{
    if (!w || w[0] < 'a' || w[0] >= 'a' + width)
        gen_fail("'%s' is not a square (columns a-%c)", w ? w : "", 'a' + width - 1);
    int row = gen_number(w + 1, 1, height);
    return (row - 1) * width + (w[0] - 'a');
}

static int gen_place_cmp(const void *a, const void *b)
{
    const gen_place *x = a, *y = b;
    if (x->size != y->size)
        return x->size - y->size;
    for (int i = 0; i < x->n; i++)
        if (x->sq[i] != y->sq[i])
            return x->sq[i] - y->sq[i];
    return 0;
}

/* Whether every square of placement a is one of b's. */
static int gen_inside(const gen_place *a, const gen_place *b)
{
    for (int i = 0; i < a->n; i++) {
        int found = 0;
        for (int j = 0; j < b->n; j++)
            found |= b->sq[j] == a->sq[i];
        if (!found)
            return 0;
    }
    return 1;
}

static void gen_bits(FILE *out, const int *sq, int n)
{
    unsigned long long w[GEN_WORDS] = {0};
    for (int i = 0; i < n; i++)
        w[sq[i] >> 6] |= 1ULL << (sq[i] & 63);
    fprintf(out, "{{");
    for (int i = 0; i < GEN_WORDS; i++)
        fprintf(out, "%s0x%llxULL", i ? ", " : "", w[i]);
    fprintf(out, "}}");
}

int main(int argc, char **argv)
{
    FILE *in = gen_open_input(argc, argv, "khronos.txt");
    static int terrain[GEN_MAXSQ];
    int row_seen[27] = {0};
    int hamlet[32], hamlets = -1, start = -1;
    char tile_name[9][32];
    int tile_count[9], tile_reno[9], tile_seen[9] = {0};
    static gen_shape shapes[4][64];
    int nshapes[4] = {0};
    int cards[3] = {-1, -1, -1};
    int forest[4] = {-1}, mountain[4] = {-1}, forest_seen = 0, mountain_seen = 0;
    int cubes = -1, ecus = -1, hand = -1;
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        gen_line++;
        char *save = NULL;
        char *w = strtok_r(line, " \t\r\n", &save);
        if (!w || w[0] == '#')
            continue;
        if (strcmp(w, "size") == 0) {
            if (width)
                gen_fail("size given twice");
            width = gen_number(gen_word(&save, NULL), 2, 26);
            height = gen_number(gen_word(&save, NULL), 2, 26);
        } else if (strcmp(w, "row") == 0) {
            if (!width)
                gen_fail("'size' must come before the rows");
            int r = gen_number(gen_word(&save, NULL), 1, height);
            if (row_seen[r]++)
                gen_fail("row %d given twice", r);
            char *cells = gen_word(&save, NULL);
            if (!cells || (int)strlen(cells) != width)
                gen_fail("row %d must have %d terrain letters", r, width);
            for (int c = 0; c < width; c++) {
                const char *k = strchr(gen_terrain_chars, cells[c]);
                if (!k || !cells[c])
                    gen_fail("row %d: unknown terrain letter '%c'", r, cells[c]);
                terrain[(r - 1) * width + c] = (int)(k - gen_terrain_chars);
            }
        } else if (strcmp(w, "hamlets") == 0) {
            if (hamlets >= 0)
                gen_fail("hamlets given twice");
            hamlets = 0;
            char *h;
            while ((h = gen_word(&save, NULL)) != NULL) {
                if (hamlets >= 16)
                    gen_fail("at most 16 printed hamlets");
                int sq = gen_square(h);
                for (int i = 0; i < hamlets; i++)
                    if (hamlet[i] == sq)
                        gen_fail("hamlet %s given twice", h);
                hamlet[hamlets++] = sq;
            }
        } else if (strcmp(w, "start") == 0) {
            start = gen_index(gen_word(&save, NULL), gen_boards, 3, "board");
        } else if (strcmp(w, "tile") == 0) {
            char *name = gen_word(&save, NULL);
            if (!name || strlen(name) >= sizeof tile_name[0])
                gen_fail("a tile needs a short name");
            for (const char *p = name; *p; p++)
                if (*p < 'a' || *p > 'z')
                    gen_fail("tile names are lower-case letters");
            int f = gen_index(gen_word(&save, NULL), gen_families, 3, "family");
            int size = gen_number(gen_word(&save, NULL), 1, 3);
            int t = f * 3 + size - 1;
            if (tile_seen[t]++)
                gen_fail("a %s tile of size %d is given twice", gen_families[f], size);
            snprintf(tile_name[t], sizeof tile_name[t], "%s", name);
            tile_count[t] = gen_number(gen_word(&save, NULL), 1, 255);
            tile_reno[t] = 0;
            char *r = gen_word(&save, NULL);
            if (r) {
                if (strcmp(r, "ruin") != 0)
                    gen_fail("expected 'ruin CARDS' or the end of the line");
                if (f == 2 || size == 1)
                    gen_fail("only military and religious tiles of size 2 and 3 have ruin sides");
                tile_reno[t] = gen_number(gen_word(&save, NULL), 1, 2);
            } else if (f != 2 && size > 1) {
                gen_fail("%s has a ruin side: write 'ruin CARDS'", name);
            }
        } else if (strcmp(w, "shape") == 0) {
            int size = gen_number(gen_word(&save, NULL), 1, 3);
            char *cells = gen_word(&save, NULL);
            gen_shape s = {0};
            int r = 0, c = 0;
            for (const char *p = cells ? cells : ""; *p; p++) {
                if (*p == '/') {
                    r++;
                    c = 0;
                } else if (*p == '#' || *p == '.') {
                    if (*p == '#') {
                        if (s.n >= GEN_SHAPE_CELLS)
                            gen_fail("a shape has at most %d cells", GEN_SHAPE_CELLS);
                        s.y[s.n] = r;
                        s.x[s.n] = c;
                        s.n++;
                    }
                    c++;
                } else {
                    gen_fail("shapes are written with '#', '.' and '/'");
                }
            }
            if (s.n == 0)
                gen_fail("a shape of size %d needs cells", size);
            if (!gen_connected(&s))
                gen_fail("the cells of a shape must be connected");
            /* every rotation and reflection */
            for (int k = 0; k < 8; k++) {
                gen_shape t = s;
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
                gen_normalise(&t);
                int dup = 0;
                for (int i = 0; i < nshapes[size] && !dup; i++)
                    dup = gen_same_shape(&shapes[size][i], &t);
                if (!dup)
                    shapes[size][nshapes[size]++] = t;
            }
        } else if (strcmp(w, "cards") == 0) {
            int f = gen_index(gen_word(&save, NULL), gen_families, 3, "family");
            if (cards[f] >= 0)
                gen_fail("cards of %s given twice", gen_families[f]);
            cards[f] = gen_number(gen_word(&save, NULL), 1, 60);
        } else if (strcmp(w, "surcharge") == 0) {
            char *t = gen_word(&save, NULL);
            int *dst;
            if (t && strcmp(t, "forest") == 0 && !forest_seen++)
                dst = forest;
            else if (t && strcmp(t, "mountain") == 0 && !mountain_seen++)
                dst = mountain;
            else
                gen_fail("expected 'surcharge forest|mountain' once each");
            for (int i = 0; i < 4; i++)
                dst[i] = gen_number(gen_word(&save, NULL), 0, 3);
        } else if (strcmp(w, "cubes") == 0) {
            cubes = gen_number(gen_word(&save, NULL), 1, 250);
        } else if (strcmp(w, "ecus") == 0) {
            ecus = gen_number(gen_word(&save, NULL), 0, 250);
        } else if (strcmp(w, "hand") == 0) {
            hand = gen_number(gen_word(&save, NULL), 1, 7);
        } else {
            gen_fail("unknown line '%s'", w);
        }
        if (strcmp(w, "shape") != 0 && strcmp(w, "hamlets") != 0 && gen_word(&save, NULL))
            gen_fail("unexpected text at the end of the line");
    }
    fclose(in);
    gen_line = 0;
    if (!width)
        gen_fail("'size' is missing");
    for (int r = 1; r <= height; r++)
        if (!row_seen[r])
            gen_fail("row %d is missing", r);
    if (hamlets < 1)
        gen_fail("'hamlets' is missing");
    for (int i = 0; i < hamlets; i++)
        if (terrain[hamlet[i]] == 3)
            gen_fail("a printed hamlet stands on a river square");
    if (start < 0)
        gen_fail("'start' is missing");
    for (int t = 0; t < 9; t++)
        if (!tile_seen[t])
            gen_fail("the %s tile of size %d is missing", gen_families[t / 3], t % 3 + 1);
    for (int s = 1; s <= 3; s++)
        if (!nshapes[s])
            gen_fail("no shape of size %d", s);
    for (int f = 0; f < 3; f++)
        if (cards[f] < 0)
            gen_fail("cards of %s are missing", gen_families[f]);
    if (!forest_seen || !mountain_seen)
        gen_fail("both surcharges must be given");
    if (cubes < 0 || ecus < 0 || hand < 0)
        gen_fail("cubes, ecus and hand must be given");

    int squares = width * height;
    static gen_place place[GEN_MAXPLACE];
    int np = 0;
    for (int s = 1; s <= 3; s++)
        for (int k = 0; k < nshapes[s]; k++)
            for (int r0 = 0; r0 < height; r0++)
                for (int c0 = 0; c0 < width; c0++) {
                    gen_place p = {.size = s, .n = shapes[s][k].n};
                    int ok = 1;
                    for (int i = 0; i < p.n; i++) {
                        int r = r0 + shapes[s][k].y[i], c = c0 + shapes[s][k].x[i];
                        ok &= r < height && c < width;
                        p.sq[i] = r * width + c;
                    }
                    if (!ok)
                        continue;
                    for (int i = 0; i < p.n; i++)
                        for (int j = i + 1; j < p.n; j++)
                            if (p.sq[j] < p.sq[i]) {
                                int t = p.sq[i];
                                p.sq[i] = p.sq[j];
                                p.sq[j] = t;
                            }
                    if (np >= GEN_MAXPLACE)
                        gen_fail("too many placements");
                    place[np++] = p;
                }
    qsort(place, (size_t)np, sizeof *place, gen_place_cmp);
    int first[4] = {0}, end[4] = {0};
    for (int i = 0; i < np; i++) {
        if (!end[place[i].size])
            first[place[i].size] = i;
        end[place[i].size] = i + 1;
    }
    /* the most buildings one board can hold: every size-1 piece (on its
     * smallest shape), then the smallest of the larger shapes */
    int cells1 = 99, cells23 = 99;
    for (int k = 0; k < nshapes[1]; k++)
        cells1 = shapes[1][k].n < cells1 ? shapes[1][k].n : cells1;
    for (int s = 2; s <= 3; s++)
        for (int k = 0; k < nshapes[s]; k++)
            cells23 = shapes[s][k].n < cells23 ? shapes[s][k].n : cells23;
    int singles = hamlets + tile_count[0] + tile_count[3] + tile_count[6];
    int most = singles * cells1 >= squares ? squares / cells1
                                           : singles + (squares - singles * cells1) / cells23;
    int total_cards = cards[0] + cards[1] + cards[2];

    FILE *out = gen_open_output(argv[2], "khronos_datagen.c", "games/khronos/khronos_board.h");
    fprintf(out, "_Static_assert(%d <= KH_MAXSQ, \"the board has more squares than KH_MAXSQ\");\n", squares);
    fprintf(out, "_Static_assert(%d <= KH_MAXB, \"a board may hold more buildings than KH_MAXB\");\n", most);
    fprintf(out, "_Static_assert(%d <= KH_MAXCARDS, \"more cards than KH_MAXCARDS\");\n", total_cards);
    fprintf(out, "_Static_assert(%d <= KH_MAXSHAPES, \"too many placements of one shape size\");\n\n",
            nshapes[1] > nshapes[2] ? (nshapes[1] > nshapes[3] ? nshapes[1] : nshapes[3])
                                    : (nshapes[2] > nshapes[3] ? nshapes[2] : nshapes[3]));
    fprintf(out, "const kh_data khronos__data = {\n");
    fprintf(out, "    .width = %d, .height = %d, .squares = %d,\n", width, height, squares);
    fprintf(out, "    .start_board = %d,\n    .hamlets = %d,\n    .hamlet = {", start, hamlets);
    for (int i = 0; i < hamlets; i++)
        fprintf(out, "%s%d", i ? ", " : "", hamlet[i]);
    fprintf(out, "},\n    .printed = ");
    gen_bits(out, hamlet, hamlets);
    fprintf(out, ",\n    .terrain = {");
    for (int i = 0; i < squares; i++)
        fprintf(out, "%s%d", i ? (i % width ? ", " : ",\n                ") : "", terrain[i]);
    fprintf(out, "},\n    .tile = {\n");
    for (int t = 0; t < 9; t++)
        fprintf(out, "        {\"%s\", %d, %d, %d, %d},\n", tile_name[t], t / 3, t % 3 + 1,
                tile_count[t], tile_reno[t]);
    fprintf(out, "    },\n    .cards = {%d, %d, %d},\n", cards[0], cards[1], cards[2]);
    fprintf(out, "    .surcharge_forest = {0, 0, %d, %d, %d, %d},\n", forest[0], forest[1], forest[2],
            forest[3]);
    fprintf(out, "    .surcharge_mountain = {0, 0, %d, %d, %d, %d},\n", mountain[0], mountain[1],
            mountain[2], mountain[3]);
    fprintf(out, "    .cubes = %d, .ecus = %d, .hand = %d,\n", cubes, ecus, hand);
    fprintf(out, "    .places = %d,\n", np);
    fprintf(out, "    .place_first = {0, %d, %d, %d},\n", first[1], first[2], first[3]);
    fprintf(out, "    .place_end = {0, %d, %d, %d},\n};\n\n", end[1], end[2], end[3]);
    fprintf(out, "const kh_place khronos__place[%d] = {\n", np);
    for (int i = 0; i < np; i++) {
        const gen_place *p = &place[i];
        int nbr[4 * GEN_SHAPE_CELLS], nn = 0, covers = 0;
        for (int k = 0; k < p->n; k++) {
            int sq = p->sq[k], r = sq / width, c = sq % width;
            int t = terrain[sq];
            covers |= t == 3 ? 1 : (t == 1 || t == 4) ? 2 : (t == 2 || t == 5) ? 4 : 0;
            int cand[4] = {r > 0 ? sq - width : -1, r + 1 < height ? sq + width : -1,
                           c > 0 ? sq - 1 : -1, c + 1 < width ? sq + 1 : -1};
            for (int d = 0; d < 4; d++) {
                int q = cand[d], dup = q < 0;
                for (int j = 0; j < p->n && !dup; j++)
                    dup = p->sq[j] == q;
                for (int j = 0; j < nn && !dup; j++)
                    dup = nbr[j] == q;
                if (!dup)
                    nbr[nn++] = q;
            }
        }
        fprintf(out, "    {");
        gen_bits(out, p->sq, p->n);
        fprintf(out, ", ");
        gen_bits(out, nbr, nn);
        fprintf(out, ", {");
        for (int k = 0; k < GEN_SHAPE_CELLS; k++)
            fprintf(out, "%s%d", k ? ", " : "", k < p->n ? p->sq[k] : 0);
        fprintf(out, "}, %d, %d, %d, {0}},\n", p->n, p->size, covers);
    }
    fprintf(out, "};\n\n");
    /* placements of size s whose first square is at least q start at anchor[s][q] */
    fprintf(out, "const uint16_t khronos__anchor[4][KH_MAXSQ + 1] = {\n    {0},\n");
    for (int s = 1; s <= 3; s++) {
        fprintf(out, "    {");
        int i = first[s];
        for (int q = 0; q <= squares; q++) {
            while (i < end[s] && place[i].sq[0] < q)
                i++;
            fprintf(out, "%s%d", q ? (q % 16 ? ", " : ",\n     ") : "", i);
        }
        fprintf(out, "},\n");
    }
    fprintf(out, "};\n\n");
    /* for every placement, the larger placements that contain all its squares */
    fprintf(out, "const uint16_t khronos__super_first[%d] = {", np + 1);
    int total = 0;
    for (int i = 0; i < np; i++) {
        fprintf(out, "%s%d", i ? (i % 16 ? ", " : ",\n    ") : "", total);
        for (int j = place[i].size < 3 ? first[place[i].size + 1] : np; j < np; j++)
            total += gen_inside(&place[i], &place[j]);
    }
    fprintf(out, ", %d};\n\nconst uint16_t khronos__super[%d] = {", total, total ? total : 1);
    int written = 0;
    for (int i = 0; i < np; i++)
        for (int j = place[i].size < 3 ? first[place[i].size + 1] : np; j < np; j++)
            if (gen_inside(&place[i], &place[j]))
                fprintf(out, "%s%d", written ? (written % 16 ? ", " : ",\n    ") : "", j), written++;
    fprintf(out, "%s};\n", written ? "" : "0");
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
