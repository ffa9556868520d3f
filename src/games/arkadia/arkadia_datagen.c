/*
 * arkadia_datagen.c — build-time tool: reads data/arkadia.txt and writes the
 * `ark__data` table of arkadia.h, with everything placement needs already
 * worked out: each form's distinct quarter turns and mirror images, their
 * bit masks with the shape's corner on a1 and the corners where they fit,
 * the lot's mask and the corners where it covers no tent.
 *
 * It rejects a malformed file (unknown words, squares off the board, shapes
 * that are not connected or too big, counts that do not add up, a first-game
 * layout that overlaps or covers a tent) with a line number, so a bad data
 * change fails the build instead of producing a wrong game.  The deeper
 * invariants are checked again by tests/unit/test_arkadia_data.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datagen.h"

#define GEN_W 16
#define GEN_H 12
#define GEN_FAMILIES 4
#define GEN_FORMS 7
#define GEN_CASTLE 10
#define GEN_MAX_CELLS GEN_SHAPE_CELLS
#define GEN_MAX_ORIENT 8
#define GEN_MAX_FIRST 12

/* "c5" → 2 + 4*16 */
static int gen_square(const char *w)
{
    if (!w || w[0] < 'a' || w[0] >= 'a' + GEN_W)
        gen_fail("'%s' is not a square a1..p12", w ? w : "");
    int row = gen_number(w + 1, 1, GEN_H);
    return (row - 1) * GEN_W + (w[0] - 'a');
}

/* "2,1" → x, y within 0..3 */
static void gen_offset(const char *w, int *x, int *y)
{
    char extra;
    if (!w || sscanf(w, "%d,%d%c", x, y, &extra) != 2 || *x < 0 || *x > 3 || *y < 0 || *y > 3)
        gen_fail("'%s' is not an offset X,Y with X and Y in 0..3", w ? w : "");
}

typedef struct gen_mask {
    uint64_t w[3];
} gen_mask;

static void gen_set(gen_mask *m, int sq)
{
    m->w[sq / 64] |= 1ULL << (sq % 64);
}

static int gen_has(const gen_mask *m, int sq)
{
    return (int)(m->w[sq / 64] >> (sq % 64) & 1);
}

static gen_shape gen_turn(gen_shape s) /* a quarter turn */
{
    for (int i = 0; i < s.n; i++) {
        int x = s.x[i];
        s.x[i] = -s.y[i];
        s.y[i] = x;
    }
    gen_normalise(&s);
    return s;
}

static gen_shape gen_mirror(gen_shape s)
{
    for (int i = 0; i < s.n; i++)
        s.x[i] = -s.x[i];
    gen_normalise(&s);
    return s;
}

typedef struct gen_form {
    char name[32];
    int number, tiles, seen;
    gen_shape shape;
    int rotations, orients;
    gen_shape orient[GEN_MAX_ORIENT];
} gen_form;

static void gen_print_mask(FILE *out, const gen_mask *m)
{
    fprintf(out, "{{0x%016llxULL, 0x%016llxULL, 0x%016llxULL}}", (unsigned long long)m->w[0],
            (unsigned long long)m->w[1], (unsigned long long)m->w[2]);
}

static void gen_print_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int main(int argc, char **argv)
{
    FILE *in = gen_open_input(argc, argv, "arkadia.txt");
    char families[GEN_FAMILIES][32], titles[GEN_FAMILIES][64], seats[4][32];
    const char *family_names[GEN_FAMILIES], *form_names[GEN_FORMS];
    int nfamilies = 0, have_board = 0, have_players = 0, ntents = 0, have_lot = 0;
    int lot_w = 0, lot_h = 0, castle_seen[GEN_CASTLE] = {0}, castle_x[GEN_CASTLE], castle_y[GEN_CASTLE];
    int castle_seal[GEN_CASTLE], nforms = 0, cards[GEN_FORMS][GEN_FAMILIES], cards_seen[GEN_FORMS] = {0};
    int hand = 0, display = 0, pieces[3][GEN_FAMILIES], pieces_seen[3] = {0};
    int own = 0, start = 0, banners = 0, per_banner = 0, neutral = 0, have_workers = 0;
    int first_neutral[5] = {0}, first_neutral_seen = 0, first_lot = -1, nfirst = 0;
    int first_form[GEN_MAX_FIRST], first_family[GEN_MAX_FIRST];
    gen_mask first_cells[GEN_MAX_FIRST];
    int first_line[GEN_MAX_FIRST];
    gen_mask tents = {{0, 0, 0}};
    gen_form forms[GEN_FORMS];
    memset(forms, 0, sizeof forms);
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        gen_line++;
        char *save = NULL;
        char *w = strtok_r(line, " \t\r\n", &save);
        if (!w || w[0] == '#')
            continue;
        if (strcmp(w, "board") == 0) {
            if (gen_number(gen_need(&save, "width"), 1, 99) != GEN_W ||
                gen_number(gen_need(&save, "height"), 1, 99) != GEN_H)
                gen_fail("the engine's bit boards need a board of 16 x 12 squares");
            have_board = 1;
        } else if (strcmp(w, "family") == 0) {
            if (nfamilies == GEN_FAMILIES)
                gen_fail("there are exactly %d families", GEN_FAMILIES);
            snprintf(families[nfamilies], sizeof families[0], "%s", gen_need(&save, "family id"));
            titles[nfamilies][0] = '\0';
            for (char *t; (t = gen_word(&save, NULL)) != NULL;) {
                size_t used = strlen(titles[nfamilies]);
                snprintf(titles[nfamilies] + used, sizeof titles[0] - used, "%s%s", used ? " " : "", t);
            }
            for (int i = 0; i < nfamilies; i++)
                if (strcmp(families[i], families[nfamilies]) == 0)
                    gen_fail("family %s given twice", families[i]);
            family_names[nfamilies] = families[nfamilies];
            nfamilies++;
        } else if (strcmp(w, "players") == 0) {
            for (int i = 0; i < 4; i++)
                snprintf(seats[i], sizeof seats[0], "%s", gen_need(&save, "player colour"));
            if (gen_word(&save, NULL))
                gen_fail("exactly 4 player colours");
            have_players = 1;
        } else if (strcmp(w, "tents") == 0) {
            for (char *t; (t = gen_word(&save, NULL)) != NULL;) {
                int sq = gen_square(t);
                if (gen_has(&tents, sq))
                    gen_fail("tent %s given twice", t);
                gen_set(&tents, sq);
                ntents++;
            }
        } else if (strcmp(w, "lot") == 0) {
            lot_w = gen_number(gen_need(&save, "lot width"), 2, 8);
            lot_h = gen_number(gen_need(&save, "lot height"), 2, 8);
            have_lot = 1;
        } else if (strcmp(w, "castle") == 0) {
            int n = gen_number(gen_need(&save, "castle square"), 1, GEN_CASTLE) - 1;
            if (castle_seen[n]++)
                gen_fail("castle square %d given twice", n + 1);
            gen_word(&save, "at");
            gen_offset(gen_need(&save, "offset"), &castle_x[n], &castle_y[n]);
            gen_word(&save, "seal");
            const char *seal = gen_need(&save, "seal");
            castle_seal[n] = strcmp(seal, "none") == 0
                                 ? GEN_FAMILIES
                                 : gen_index(seal, family_names, nfamilies, "family");
        } else if (strcmp(w, "form") == 0) {
            if (nforms == GEN_FORMS)
                gen_fail("there are exactly %d forms", GEN_FORMS);
            gen_form *f = &forms[nforms];
            f->number = gen_number(gen_need(&save, "form number"), 1, GEN_FORMS);
            if (f->number != nforms + 1)
                gen_fail("forms must be listed in order 1..7");
            snprintf(f->name, sizeof f->name, "%s", gen_need(&save, "form name"));
            gen_word(&save, "tiles");
            f->tiles = gen_number(gen_need(&save, "tile count"), 1, 40);
            gen_word(&save, "cells");
            for (char *t; (t = gen_word(&save, NULL)) != NULL;) {
                if (f->shape.n == GEN_MAX_CELLS)
                    gen_fail("a building covers at most %d squares", GEN_MAX_CELLS);
                gen_offset(t, &f->shape.x[f->shape.n], &f->shape.y[f->shape.n]);
                for (int i = 0; i < f->shape.n; i++)
                    if (f->shape.x[i] == f->shape.x[f->shape.n] && f->shape.y[i] == f->shape.y[f->shape.n])
                        gen_fail("cell %s given twice", t);
                f->shape.n++;
            }
            if (f->shape.n < 2)
                gen_fail("a building covers 2 to 4 squares");
            if (!gen_connected(&f->shape))
                gen_fail("the squares of %s are not connected", f->name);
            gen_normalise(&f->shape);
            /* quarter turns first, then the mirror images not already there */
            gen_shape s = f->shape;
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) {
                    f->rotations = f->orients;
                    s = gen_mirror(f->shape);
                }
                for (int r = 0; r < 4; r++, s = gen_turn(s)) {
                    int dup = 0;
                    for (int k = 0; k < f->orients; k++)
                        dup |= gen_same_shape(&f->orient[k], &s);
                    if (!dup)
                        f->orient[f->orients++] = s;
                }
            }
            form_names[nforms] = f->name;
            nforms++;
        } else if (strcmp(w, "cards") == 0) {
            int f = gen_index(gen_need(&save, "form"), form_names, nforms, "form");
            if (cards_seen[f]++)
                gen_fail("cards of %s given twice", form_names[f]);
            int seen[GEN_FAMILIES] = {0};
            for (int k = 0; k < GEN_FAMILIES; k++) {
                int fam = gen_index(gen_need(&save, "family"), family_names, nfamilies, "family");
                if (seen[fam]++)
                    gen_fail("family %s given twice", family_names[fam]);
                cards[f][fam] = gen_number(gen_need(&save, "count"), 0, 40);
            }
            if (gen_word(&save, NULL))
                gen_fail("unexpected text after the four families");
        } else if (strcmp(w, "hand") == 0) {
            hand = gen_number(gen_need(&save, "hand size"), 1, 4);
            gen_word(&save, "display");
            display = gen_number(gen_need(&save, "display size"), 1, 3);
        } else if (strcmp(w, "pieces") == 0) {
            int fl = gen_number(gen_need(&save, "floor"), 1, 3) - 1;
            if (pieces_seen[fl]++)
                gen_fail("floor %d given twice", fl + 1);
            int seen[GEN_FAMILIES] = {0};
            for (int k = 0; k < GEN_FAMILIES; k++) {
                int fam = gen_index(gen_need(&save, "family"), family_names, nfamilies, "family");
                if (seen[fam]++)
                    gen_fail("family %s given twice", family_names[fam]);
                pieces[fl][fam] = gen_number(gen_need(&save, "count"), 0, 12);
            }
        } else if (strcmp(w, "workers") == 0) {
            gen_word(&save, "own");
            own = gen_number(gen_need(&save, "own workers"), 1, 40);
            gen_word(&save, "start");
            start = gen_number(gen_need(&save, "start workers"), 1, 40);
            gen_word(&save, "banners");
            banners = gen_number(gen_need(&save, "banners"), 0, 10);
            gen_word(&save, "per-banner");
            per_banner = gen_number(gen_need(&save, "workers per banner"), 0, 10);
            gen_word(&save, "neutral");
            neutral = gen_number(gen_need(&save, "neutral workers"), 0, 60);
            if (start + banners * per_banner > own)
                gen_fail("start + banners x per-banner exceeds the own workers");
            have_workers = 1;
        } else if (strcmp(w, "first-game") == 0) {
            const char *what = gen_need(&save, "first-game item");
            if (strcmp(what, "neutral") == 0) {
                for (char *t; (t = gen_word(&save, NULL)) != NULL;) {
                    int p, n;
                    char extra;
                    if (sscanf(t, "%d:%d%c", &p, &n, &extra) != 2 || p < 2 || p > 4 || n < 0 || n > 10)
                        gen_fail("expected PLAYERS:WORKERS, got '%s'", t);
                    first_neutral[p] = n;
                    first_neutral_seen |= 1 << p;
                }
            } else if (strcmp(what, "lot") == 0) {
                first_lot = gen_square(gen_need(&save, "square"));
            } else if (strcmp(what, "building") == 0) {
                if (nfirst == GEN_MAX_FIRST)
                    gen_fail("at most %d first-game buildings", GEN_MAX_FIRST);
                first_form[nfirst] = gen_index(gen_need(&save, "form"), form_names, nforms, "form");
                first_family[nfirst] = gen_index(gen_need(&save, "family"), family_names, nfamilies, "family");
                memset(&first_cells[nfirst], 0, sizeof first_cells[0]);
                for (char *t; (t = gen_word(&save, NULL)) != NULL;) {
                    int sq = gen_square(t);
                    if (gen_has(&first_cells[nfirst], sq))
                        gen_fail("square %s given twice", t);
                    gen_set(&first_cells[nfirst], sq);
                }
                first_line[nfirst] = gen_line;
                nfirst++;
            } else {
                gen_fail("unknown first-game item '%s'", what);
            }
        } else {
            gen_fail("unknown line '%s'", w);
        }
    }
    fclose(in);
    gen_line = 0;
    if (!have_board || !have_players || !have_lot || !have_workers || !hand)
        gen_fail("board, players, lot, workers and hand lines are required");
    if (nfamilies != GEN_FAMILIES || nforms != GEN_FORMS)
        gen_fail("exactly %d families and %d forms are required", GEN_FAMILIES, GEN_FORMS);
    if (lot_w > 4 || lot_h > 4)
        gen_fail("the lot is at most 4 x 4 (castle offsets are 0..3)");
    for (int n = 0; n < GEN_CASTLE; n++) {
        if (!castle_seen[n])
            gen_fail("castle square %d is missing", n + 1);
        if (castle_x[n] >= lot_w || castle_y[n] >= lot_h)
            gen_fail("castle square %d lies outside the lot", n + 1);
        for (int m = 0; m < n; m++)
            if (castle_x[m] == castle_x[n] && castle_y[m] == castle_y[n])
                gen_fail("castle squares %d and %d share a square", m + 1, n + 1);
    }
    int total_cards = 0;
    for (int f = 0; f < GEN_FORMS; f++) {
        if (!cards_seen[f])
            gen_fail("cards of %s are missing", form_names[f]);
        int sum = 0;
        for (int k = 0; k < GEN_FAMILIES; k++)
            sum += cards[f][k];
        if (sum != forms[f].tiles)
            gen_fail("%s: %d cards but %d tiles (one card per tile)", form_names[f], sum, forms[f].tiles);
        total_cards += sum;
    }
    if (total_cards != 40)
        gen_fail("%d cards; the game has 40", total_cards);
    for (int fl = 0; fl < 3; fl++)
        if (!pieces_seen[fl])
            gen_fail("castle pieces of floor %d are missing", fl + 1);
    if (first_neutral_seen != 0x1c)
        gen_fail("first-game neutral workers for 2, 3 and 4 players are required");
    if (first_lot < 0)
        gen_fail("the first-game lot is missing");

    /* the lot: its mask at a1 and every corner where it covers no tent */
    gen_mask lot_base = {{0, 0, 0}}, lot_anchors = {{0, 0, 0}};
    for (int y = 0; y < lot_h; y++)
        for (int x = 0; x < lot_w; x++)
            gen_set(&lot_base, y * GEN_W + x);
    int lot_places = 0;
    for (int y = 0; y + lot_h <= GEN_H; y++)
        for (int x = 0; x + lot_w <= GEN_W; x++) {
            int clear = 1;
            for (int dy = 0; dy < lot_h; dy++)
                for (int dx = 0; dx < lot_w; dx++)
                    clear &= !gen_has(&tents, (y + dy) * GEN_W + x + dx);
            if (clear) {
                gen_set(&lot_anchors, y * GEN_W + x);
                lot_places++;
            }
        }
    if (!lot_places)
        gen_fail("the lot fits nowhere without covering a tent");
    if (!gen_has(&lot_anchors, first_lot))
        gen_fail("the first-game lot covers a tent or leaves the board");

    /* the first-game buildings: find each one's orientation (quarter turns
     * only, so the layout is legal with or without mirror=on) and corner */
    gen_mask used = {{0, 0, 0}};
    for (int dy = 0; dy < lot_h; dy++)
        for (int dx = 0; dx < lot_w; dx++)
            gen_set(&used, first_lot + dy * GEN_W + dx);
    int first_orient[GEN_MAX_FIRST], first_anchor[GEN_MAX_FIRST];
    int first_used[GEN_FORMS][GEN_FAMILIES] = {{0}};
    for (int b = 0; b < nfirst; b++) {
        gen_line = first_line[b];
        gen_shape s = {0, {0}, {0}};
        for (int sq = 0; sq < GEN_W * GEN_H; sq++) {
            if (!gen_has(&first_cells[b], sq))
                continue;
            if (s.n == GEN_MAX_CELLS)
                gen_fail("too many squares for a %s", form_names[first_form[b]]);
            s.x[s.n] = sq % GEN_W;
            s.y[s.n] = sq / GEN_W;
            s.n++;
            if (gen_has(&used, sq))
                gen_fail("square %c%d is already taken", 'a' + sq % GEN_W, sq / GEN_W + 1);
            if (gen_has(&tents, sq))
                gen_fail("square %c%d is a tent camp", 'a' + sq % GEN_W, sq / GEN_W + 1);
            gen_set(&used, sq);
        }
        int mx = 99, my = 99;
        for (int i = 0; i < s.n; i++) {
            mx = s.x[i] < mx ? s.x[i] : mx;
            my = s.y[i] < my ? s.y[i] : my;
        }
        gen_normalise(&s);
        const gen_form *f = &forms[first_form[b]];
        first_orient[b] = -1;
        for (int o = 0; o < f->rotations && s.n == f->shape.n; o++)
            if (gen_same_shape(&f->orient[o], &s))
                first_orient[b] = o;
        if (first_orient[b] < 0)
            gen_fail("these squares are not a %s (quarter turns only)", f->name);
        first_anchor[b] = my * GEN_W + mx;
        if (++first_used[first_form[b]][first_family[b]] > cards[first_form[b]][first_family[b]])
            gen_fail("more %s %s buildings than cards", f->name, family_names[first_family[b]]);
    }
    gen_line = 0;

    FILE *out = gen_open_output(argv[2], "arkadia_datagen.c", "games/arkadia/arkadia.h");
    fprintf(out, "const ark_data ark__data = {\n    .family = {");
    for (int k = 0; k < GEN_FAMILIES; k++) {
        fprintf(out, "%s", k ? ", " : "");
        gen_print_string(out, families[k]);
    }
    fprintf(out, "},\n    .family_title = {");
    for (int k = 0; k < GEN_FAMILIES; k++) {
        fprintf(out, "%s", k ? ", " : "");
        gen_print_string(out, titles[k]);
    }
    fprintf(out, "},\n    .seat_colour = {");
    for (int k = 0; k < 4; k++) {
        fprintf(out, "%s", k ? ", " : "");
        gen_print_string(out, seats[k]);
    }
    fprintf(out, "},\n    .tents = ");
    gen_print_mask(out, &tents);
    fprintf(out, ",\n    .lot_w = %d,\n    .lot_h = %d,\n    .lot_base = ", lot_w, lot_h);
    gen_print_mask(out, &lot_base);
    fprintf(out, ",\n    .lot_anchors = ");
    gen_print_mask(out, &lot_anchors);
    fprintf(out, ",\n    .castle_x = {");
    for (int n = 0; n < GEN_CASTLE; n++)
        fprintf(out, "%s%d", n ? ", " : "", castle_x[n]);
    fprintf(out, "},\n    .castle_y = {");
    for (int n = 0; n < GEN_CASTLE; n++)
        fprintf(out, "%s%d", n ? ", " : "", castle_y[n]);
    fprintf(out, "},\n    .castle_seal = {");
    for (int n = 0; n < GEN_CASTLE; n++)
        fprintf(out, "%s%d", n ? ", " : "", castle_seal[n]);
    fprintf(out, "},\n    .form = {\n");
    for (int f = 0; f < GEN_FORMS; f++) {
        const gen_form *fm = &forms[f];
        fprintf(out, "        {");
        gen_print_string(out, fm->name);
        fprintf(out, ", %d, %d, %d, %d, %d, {\n", fm->number, fm->tiles, fm->shape.n, fm->rotations,
                fm->orients);
        for (int o = 0; o < fm->orients; o++) {
            const gen_shape *s = &fm->orient[o];
            int w = 0, h = 0;
            gen_mask base = {{0, 0, 0}}, anchors = {{0, 0, 0}};
            for (int i = 0; i < s->n; i++) {
                w = s->x[i] + 1 > w ? s->x[i] + 1 : w;
                h = s->y[i] + 1 > h ? s->y[i] + 1 : h;
                gen_set(&base, s->y[i] * GEN_W + s->x[i]);
            }
            for (int y = 0; y + h <= GEN_H; y++)
                for (int x = 0; x + w <= GEN_W; x++)
                    gen_set(&anchors, y * GEN_W + x);
            fprintf(out, "            {%d, %d, {", w, h);
            for (int i = 0; i < GEN_MAX_CELLS; i++)
                fprintf(out, "%s%d", i ? ", " : "", i < s->n ? s->x[i] : 0);
            fprintf(out, "}, {");
            for (int i = 0; i < GEN_MAX_CELLS; i++)
                fprintf(out, "%s%d", i ? ", " : "", i < s->n ? s->y[i] : 0);
            fprintf(out, "}, ");
            gen_print_mask(out, &base);
            fprintf(out, ", ");
            gen_print_mask(out, &anchors);
            fprintf(out, "},\n");
        }
        fprintf(out, "        }},\n");
    }
    fprintf(out, "    },\n    .cards = {");
    for (int f = 0; f < GEN_FORMS; f++)
        fprintf(out, "%s{%d, %d, %d, %d}", f ? ", " : "", cards[f][0], cards[f][1], cards[f][2],
                cards[f][3]);
    fprintf(out, "},\n    .hand = %d,\n    .display = %d,\n    .pieces = {", hand, display);
    for (int fl = 0; fl < 3; fl++)
        fprintf(out, "%s{%d, %d, %d, %d}", fl ? ", " : "", pieces[fl][0], pieces[fl][1],
                pieces[fl][2], pieces[fl][3]);
    fprintf(out, "},\n    .own_workers = %d,\n    .start_workers = %d,\n    .banners = %d,\n"
                 "    .per_banner = %d,\n    .neutral = %d,\n",
            own, start, banners, per_banner, neutral);
    fprintf(out, "    .first_neutral = {0, 0, %d, %d, %d},\n", first_neutral[2], first_neutral[3],
            first_neutral[4]);
    fprintf(out, "    .first_lot = %d,\n    .first_count = %d,\n    .first = {", first_lot, nfirst);
    for (int b = 0; b < nfirst; b++)
        fprintf(out, "%s{%d, %d, %d, %d}", b ? ", " : "", first_form[b], first_family[b],
                first_orient[b], first_anchor[b]);
    fprintf(out, "},\n};\n");
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    (void)ntents;
    return 0;
}
