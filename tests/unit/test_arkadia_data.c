/*
 * test_arkadia_data.c — Arkadia's board data and its reader
 * (src/games/arkadia/arkadia_data.c; docs/data-format.md, "Arkadia").
 *
 * The built-in board (data/arkadia.txt, compiled in; shared/rules/arkadia.md
 * §1-§3): 24 tent camps; a 4 x 3 lot whose 10 border squares are the castle
 * squares with 2 printed seals per family and 2 blank; 40 cards; castle
 * pools 12/12/4 (7 per family); 11 own workers = 3 + 4 banners x 2; 24
 * neutral; a first-game layout with one building of each form.
 *
 * Every board (the built-in one and tests/data/arkadia_moved.txt, read at run
 * time): lot places that cover no tent; forms of 2-4 connected squares whose
 * orientations are exactly the distinct quarter turns (then mirror images),
 * with correct masks and corners; one card per tile; a legal first-game
 * layout.  The reader: data/arkadia.txt read at run time gives exactly the
 * compiled-in tables and the same seeded games; every kind of bad file is
 * refused with its line and what is wrong, and nothing starts; cut or
 * damaged files never crash it; the second board plays whole random games
 * with every invariant of tests/sim/sim_arkadia.c checked at each decision,
 * and a state on it loads only where that very board is installed.
 * Also the bit-board helpers against a square-by-square reference.
 *
 * The files are found under $TABULA_SOURCE (the source tree; meson sets it).
 */
#include "games/arkadia/arkadia.h"
#include "sim/sim.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define D (ark__data)

static const char *source_root = ".";

/* ---- files ---- */

/* The whole file under the source root, malloc'd and NUL-ended (fails the
 * test when it cannot be read). */
static char *slurp(const char *relative, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", source_root, relative);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap + 1);
    assert_non_null(text);
    n = fread(text, 1, cap, f);
    assert_true(n < cap);
    fclose(f);
    text[n] = '\0';
    *len = n;
    return text;
}

/* A board file read through the game's hook, as `tabula --board` reads it. */
static tb_data *read_board(const char *relative, const char *name)
{
    size_t len;
    char *text = slurp(relative, &len), err[TB_ERR_LEN];
    tb_data *data = tb_data_read(tb_game_find("arkadia"), name, text, len, relative, err, sizeof err);
    if (!data)
        fail_msg("%s", err);
    free(text);
    return data;
}

static const ark_data *tables(const tb_data *data)
{
    return (const ark_data *)data->tables;
}

static bool has(ark_bb b, int x, int y)
{
    return x >= 0 && x < ARK_W && y >= 0 && y < ARK_H && ark_bb_has(b, y * ARK_W + x);
}

/* ---- the invariants of every board ---- */

static void check_castle(const ark_data *d)
{
    assert_in_range(d->lot_w, 1, ARK_MAX_LOT);
    assert_in_range(d->lot_h, 1, ARK_MAX_LOT);
    assert_int_equal(ark_bb_count(d->lot_base), d->lot_w * d->lot_h);
    int seen[ARK_MAX_LOT][ARK_MAX_LOT] = {{0}};
    for (int q = 0; q < ARK_CASTLE; q++) {
        int x = d->castle_x[q], y = d->castle_y[q];
        assert_true(x < d->lot_w && y < d->lot_h);
        assert_int_equal(seen[y][x]++, 0);
        assert_in_range(d->castle_seal[q], 0, ARK_FAMILIES);
    }
}

static void check_lot_places(const ark_data *d)
{
    int places = 0;
    for (int sq = 0; sq < ARK_SQUARES; sq++) {
        int x = sq % ARK_W, y = sq / ARK_W;
        bool fits = x + d->lot_w <= ARK_W && y + d->lot_h <= ARK_H;
        if (fits)
            fits = !ark_bb_any(ark_bb_and(ark_bb_shl(d->lot_base, sq), d->tents));
        assert_int_equal(fits, ark_bb_has(d->lot_anchors, sq));
        places += fits;
    }
    assert_true(places >= 1);
    assert_true(ark_bb_has(d->lot_anchors, d->first_lot));
}

/* Is every cell of a shape connected to the first? */
static bool connected(const ark_orient *o, int n)
{
    int reached = 1, grown = 1;
    while (grown) {
        grown = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n && !(reached >> i & 1); j++)
                if ((reached >> j & 1) && abs(o->dx[i] - o->dx[j]) + abs(o->dy[i] - o->dy[j]) == 1) {
                    reached |= 1 << i;
                    grown = 1;
                }
    }
    return reached == (1 << n) - 1;
}

/* The orientation turned a quarter (cells normalized and sorted). */
static void turn(const ark_orient *o, int n, int *cells)
{
    int xs[4], ys[4], mx = 99, my = 99;
    for (int i = 0; i < n; i++) {
        xs[i] = -o->dy[i];
        ys[i] = o->dx[i];
        mx = xs[i] < mx ? xs[i] : mx;
        my = ys[i] < my ? ys[i] : my;
    }
    for (int i = 0; i < n; i++)
        cells[i] = (ys[i] - my) * ARK_W + (xs[i] - mx);
}

static int find_orient(const ark_form *f, int upto, const int *cells)
{
    for (int o = 0; o < upto; o++) {
        ark_bb want = {{0, 0, 0}};
        for (int i = 0; i < f->cells; i++)
            ark_bb_set(&want, cells[i]);
        const ark_bb *b = &f->orient[o].base;
        if (b->w[0] == want.w[0] && b->w[1] == want.w[1] && b->w[2] == want.w[2])
            return o;
    }
    return -1;
}

static void check_forms(const ark_data *d)
{
    int total = 0;
    for (int f = 0; f < ARK_FORMS; f++) {
        const ark_form *fm = &d->form[f];
        assert_int_equal(fm->number, f + 1);
        assert_in_range(fm->cells, 2, 4);
        assert_in_range(fm->rotations, 1, 4);
        assert_in_range(fm->orients, fm->rotations, 8);
        total += fm->tiles;
        for (int o = 0; o < fm->orients; o++) {
            const ark_orient *or = &fm->orient[o];
            assert_true(connected(or, fm->cells));
            assert_int_equal(ark_bb_count(or->base), fm->cells);
            int w = 0, h = 0, minx = 9, miny = 9;
            for (int i = 0; i < fm->cells; i++) {
                assert_true(ark_bb_has(or->base, or->dy[i] * ARK_W + or->dx[i]));
                w = or->dx[i] + 1 > w ? or->dx[i] + 1 : w;
                h = or->dy[i] + 1 > h ? or->dy[i] + 1 : h;
                minx = or->dx[i] < minx ? or->dx[i] : minx;
                miny = or->dy[i] < miny ? or->dy[i] : miny;
                if (i)
                    assert_true(or->dy[i] * ARK_W + or->dx[i] > or->dy[i - 1] * ARK_W + or->dx[i - 1]);
            }
            assert_int_equal(minx, 0);
            assert_int_equal(miny, 0);
            assert_int_equal(or->w, w);
            assert_int_equal(or->h, h);
            for (int sq = 0; sq < ARK_SQUARES; sq++) {
                bool fits = sq % ARK_W + w <= ARK_W && sq / ARK_W + h <= ARK_H;
                assert_int_equal(fits, ark_bb_has(or->anchors, sq));
            }
            /* distinct, and the quarter turns are closed under turning */
            for (int p = 0; p < o; p++)
                assert_false(memcmp(&fm->orient[p].base, &or->base, sizeof or->base) == 0);
            int cells[4];
            turn(or, fm->cells, cells);
            if (o < fm->rotations)
                assert_true(find_orient(fm, fm->rotations, cells) >= 0);
            else
                assert_true(find_orient(fm, fm->orients, cells) >= fm->rotations);
        }
    }
    assert_int_equal(total, ARK_CARDS);
}

static void check_cards(const ark_data *d)
{
    int total = 0;
    for (int f = 0; f < ARK_FORMS; f++) {
        int n = 0;
        for (int k = 0; k < ARK_FAMILIES; k++)
            n += d->cards[f][k];
        assert_int_equal(n, d->form[f].tiles);
        total += n;
    }
    assert_int_equal(total, ARK_CARDS);
    assert_in_range(d->hand, 1, ARK_HAND);
    assert_in_range(d->display, 1, ARK_DISPLAY);
    assert_true(d->start_workers + d->banners * d->per_banner <= d->own_workers);
}

static void check_first_game(const ark_data *d)
{
    for (int p = 2; p <= ARK_SEATS; p++)
        assert_true(p * d->first_neutral[p] <= d->neutral);
    ark_bb taken = ark_bb_shl(d->lot_base, d->first_lot);
    ark_bb cells[ARK_MAX_FIRST];
    int used[ARK_FORMS][ARK_FAMILIES] = {{0}};
    for (int i = 0; i < d->first_count; i++) {
        const ark_first_building *fb = &d->first[i];
        ark_building b = {fb->form, fb->orient, fb->anchor, fb->family, 0};
        assert_true(fb->orient < d->form[fb->form].rotations);
        assert_true(ark_bb_has(d->form[fb->form].orient[fb->orient].anchors, fb->anchor));
        cells[i] = ark__building_cells(d, &b);
        assert_false(ark_bb_any(ark_bb_and(cells[i], taken)));
        assert_false(ark_bb_any(ark_bb_and(cells[i], d->tents)));
        taken = ark_bb_or(taken, cells[i]);
        assert_true(++used[fb->form][fb->family] <= d->cards[fb->form][fb->family]);
    }
    for (int i = 0; i < d->first_count; i++)
        assert_true(ark_bb_any(ark_bb_andnot(ark_bb_around(cells[i]), taken))); /* not enclosed */
}

static void check_board(const ark_data *d)
{
    check_castle(d);
    check_lot_places(d);
    check_forms(d);
    check_cards(d);
    check_first_game(d);
}

/* ---- the built-in board ---- */

static void builtin_board_keeps_every_invariant(void **unused)
{
    (void)unused;
    check_board(&D);
}

static void tents_are_24_on_the_board(void **unused)
{
    (void)unused;
    assert_int_equal(ark_bb_count(D.tents), 24);
}

static void the_lot_and_its_castle_squares(void **unused)
{
    (void)unused;
    assert_int_equal(D.lot_w, 4);
    assert_int_equal(D.lot_h, 3);
    int seals[ARK_FAMILIES + 1] = {0};
    for (int q = 0; q < ARK_CASTLE; q++) {
        int x = D.castle_x[q], y = D.castle_y[q];
        /* the border ring, never the two inner squares */
        assert_true(x == 0 || y == 0 || x == D.lot_w - 1 || y == D.lot_h - 1);
        seals[D.castle_seal[q]]++;
        if (q) /* numbered around the ring: each square next to the previous */
            assert_int_equal(abs(x - D.castle_x[q - 1]) + abs(y - D.castle_y[q - 1]), 1);
    }
    for (int k = 0; k < ARK_FAMILIES; k++)
        assert_int_equal(seals[k], 2);
    assert_int_equal(seals[ARK_NO_FAMILY], 2);
    assert_int_equal(ark_bb_count(D.lot_anchors), 9);
}

static void forms_and_cards(void **unused)
{
    (void)unused;
    static const int tiles[ARK_FORMS] = {8, 8, 8, 4, 4, 4, 4};
    for (int f = 0; f < ARK_FORMS; f++)
        assert_int_equal(D.form[f].tiles, tiles[f]);
    /* the proposed shapes: the domino and the square have fewer turns */
    assert_int_equal(D.form[0].rotations, 2);
    assert_int_equal(D.form[6].rotations, 1);
    assert_int_equal(D.form[6].orients, 1);
    assert_int_equal(D.hand, 4);
    assert_int_equal(D.display, 3);
}

static void castle_pools_and_workers(void **unused)
{
    (void)unused;
    static const int floor_total[ARK_FLOORS] = {12, 12, 4};
    int per_family[ARK_FAMILIES] = {0};
    for (int f = 0; f < ARK_FLOORS; f++) {
        int n = 0;
        for (int k = 0; k < ARK_FAMILIES; k++) {
            n += D.pieces[f][k];
            per_family[k] += D.pieces[f][k];
        }
        assert_int_equal(n, floor_total[f]);
    }
    for (int k = 0; k < ARK_FAMILIES; k++)
        assert_int_equal(per_family[k], 7);
    assert_int_equal(D.own_workers, 11);
    assert_int_equal(D.start_workers + D.banners * D.per_banner, D.own_workers);
    assert_int_equal(D.banners, 4);
    assert_int_equal(D.neutral, 24);
}

static void first_game_layout(void **unused)
{
    (void)unused;
    assert_int_equal(D.first_neutral[2], 3);
    assert_int_equal(D.first_neutral[3], 2);
    assert_int_equal(D.first_neutral[4], 1);
    assert_int_equal(D.first_count, 7);
    int forms = 0;
    ark_bb taken = ark_bb_shl(D.lot_base, D.first_lot), cells[ARK_MAX_FIRST];
    for (int i = 0; i < D.first_count; i++) {
        const ark_first_building *fb = &D.first[i];
        ark_building b = {fb->form, fb->orient, fb->anchor, fb->family, 0};
        cells[i] = ark__building_cells(&D, &b);
        taken = ark_bb_or(taken, cells[i]);
        forms |= 1 << fb->form;
    }
    assert_int_equal(forms, (1 << ARK_FORMS) - 1); /* one of each form */
    for (int i = 0; i < D.first_count; i++) /* each touches something */
        assert_true(ark_bb_any(ark_bb_and(ark_bb_around(cells[i]), taken)));
}

/* ---- the built-in file read at run time ---- */

static void same_bb(ark_bb a, ark_bb b)
{
    assert_memory_equal(a.w, b.w, sizeof a.w);
}

/* Field by field, so a difference names the field that differs. */
static void same_tables(const ark_data *a, const ark_data *b)
{
    for (int k = 0; k < ARK_FAMILIES; k++) {
        assert_string_equal(a->family[k], b->family[k]);
        assert_string_equal(a->family_title[k], b->family_title[k]);
    }
    for (int p = 0; p < ARK_SEATS; p++)
        assert_string_equal(a->seat_colour[p], b->seat_colour[p]);
    same_bb(a->tents, b->tents);
    assert_int_equal(a->lot_w, b->lot_w);
    assert_int_equal(a->lot_h, b->lot_h);
    same_bb(a->lot_base, b->lot_base);
    same_bb(a->lot_anchors, b->lot_anchors);
    assert_memory_equal(a->castle_x, b->castle_x, ARK_CASTLE);
    assert_memory_equal(a->castle_y, b->castle_y, ARK_CASTLE);
    assert_memory_equal(a->castle_seal, b->castle_seal, ARK_CASTLE);
    for (int f = 0; f < ARK_FORMS; f++) {
        const ark_form *x = &a->form[f], *y = &b->form[f];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->number, y->number);
        assert_int_equal(x->tiles, y->tiles);
        assert_int_equal(x->cells, y->cells);
        assert_int_equal(x->rotations, y->rotations);
        assert_int_equal(x->orients, y->orients);
        for (int o = 0; o < x->orients; o++) {
            assert_int_equal(x->orient[o].w, y->orient[o].w);
            assert_int_equal(x->orient[o].h, y->orient[o].h);
            assert_memory_equal(x->orient[o].dx, y->orient[o].dx, ARK_MAX_CELLS);
            assert_memory_equal(x->orient[o].dy, y->orient[o].dy, ARK_MAX_CELLS);
            same_bb(x->orient[o].base, y->orient[o].base);
            same_bb(x->orient[o].anchors, y->orient[o].anchors);
        }
    }
    assert_memory_equal(a->cards, b->cards, sizeof a->cards);
    assert_int_equal(a->hand, b->hand);
    assert_int_equal(a->display, b->display);
    assert_memory_equal(a->pieces, b->pieces, sizeof a->pieces);
    assert_int_equal(a->own_workers, b->own_workers);
    assert_int_equal(a->start_workers, b->start_workers);
    assert_int_equal(a->banners, b->banners);
    assert_int_equal(a->per_banner, b->per_banner);
    assert_int_equal(a->neutral, b->neutral);
    assert_memory_equal(a->first_neutral, b->first_neutral, sizeof a->first_neutral);
    assert_int_equal(a->first_lot, b->first_lot);
    assert_int_equal(a->first_count, b->first_count);
    for (int i = 0; i < a->first_count; i++) {
        assert_int_equal(a->first[i].form, b->first[i].form);
        assert_int_equal(a->first[i].family, b->first[i].family);
        assert_int_equal(a->first[i].orient, b->first[i].orient);
        assert_int_equal(a->first[i].anchor, b->first[i].anchor);
    }
}

static void reading_the_builtin_file_gives_the_compiled_tables(void **unused)
{
    (void)unused;
    tb_data *data = read_board("data/arkadia.txt", "copy");
    same_tables(&D, tables(data));
    /* the same content hash as the built-in data the generator wrote */
    assert_string_equal(tb_data_hash(data), tb_data_hash(tb_data_builtin(tb_game_find("arkadia"))));
    assert_string_equal(tb_data_name(tb_data_builtin(tb_game_find("arkadia"))), "default");
    assert_false(tb_data_is_builtin(data));
    tb_data_free(data);
}

/* Plays the same seeded random game on two data and checks every decision
 * and view is the same; returns the decisions played. */
static int play_twice(const tb_data *a_data, const tb_data *b_data, int players, const tb_options *opts,
                      uint64_t seed)
{
    const tb_game *g = tb_game_find("arkadia");
    tb_state *a = tb_state_new(g), *b = tb_state_new(g);
    char err[TB_ERR_LEN];
    assert_int_equal(tb_setup_data(a, a_data, players, opts, seed, err, sizeof err), 0);
    assert_int_equal(tb_setup_data(b, b_data, players, opts, seed, err, sizeof err), 0);
    tb_rng ra, rb;
    tb_rng_seed(&ra, seed * 31 + 7);
    tb_rng_seed(&rb, seed * 31 + 7);
    int n = 0;
    while (!tb_is_over(a)) {
        assert_false(tb_is_over(b));
        char *va = tb_view_json(a, TB_SPECTATOR), *vb = tb_view_json(b, TB_SPECTATOR);
        assert_string_equal(va, vb);
        free(va);
        free(vb);
        char *la = tb_legal_text(a), *lb = tb_legal_text(b);
        assert_string_equal(la, lb);
        free(la);
        free(lb);
        tb_move ma = tb_random_move(a, &ra), mb = tb_random_move(b, &rb);
        assert_int_equal(ma, mb);
        tb_apply(a, ma);
        tb_apply(b, mb);
        n++;
    }
    assert_true(tb_is_over(b));
    int sa[TB_MAX_SEATS], sb[TB_MAX_SEATS];
    tb_scores(a, sa);
    tb_scores(b, sb);
    assert_memory_equal(sa, sb, sizeof(int) * (size_t)players);
    tb_state_free(a);
    tb_state_free(b);
    return n;
}

static void the_builtin_file_read_at_run_time_plays_the_same_games(void **unused)
{
    (void)unused;
    tb_data *data = read_board("data/arkadia.txt", "copy");
    tb_options first;
    tb_options_clear(&first);
    tb_options_set(&first, "variant", "first-game", NULL, 0);
    for (int players = 2; players <= 4; players++) {
        assert_true(play_twice(NULL, data, players, NULL, (uint64_t)players) > 50);
        assert_true(play_twice(NULL, data, players, &first, (uint64_t)players + 10) > 50);
    }
    tb_data_free(data);
}

/* ---- bad files ---- */

typedef struct bad_case {
    const char *line;    /* the line of data/arkadia.txt to change (its start), or NULL to append */
    const char *becomes; /* its new text, or NULL to delete it */
    const char *error;   /* the message after "bad.txt:LINE: " */
    const char *at;      /* the start of the line the error names: NULL the changed one, "" line 0 (the whole file) */
    const char *other;   /* the start of another line whose number `error` names with %d */
} bad_case;

static const bad_case bad_cases[] = {
    /* unknown words */
    {"hand 4", "hnad 4 display 3",
     "unknown line 'hnad': a line starts with board, family, players, tents, lot, castle, form, cards, hand, "
     "pieces, workers or first-game (or # for a comment)", NULL, NULL},
    {"first-game lot", "first-game castle g5", "unknown first-game item 'castle': expected neutral, lot or building", NULL, NULL},
    {"castle 1 ", "castle 1 on 0,0 seal red", "expected the word 'at' after the castle square's number, found 'on'", NULL, NULL},
    {"castle 1 ", "castle 1 at 0,0 seal purple",
     "unknown family 'purple' (or 'none') (the families must be given above this line)", NULL, NULL},
    {"cards mill", "cards windmill red 1 olive 1 black 1 silver 1",
     "unknown form 'windmill' (the forms must be given above this line)", NULL, NULL},
    {"hand 4", "hand four display 3", "the hand size must be a number, not 'four'", NULL, NULL},
    {"castle 1 ", "castle 1 at 0,0 seal", "the seal's family is missing at the end of the line", NULL, NULL},
    {"hand 4", "hand 4 display 3 please", "unexpected 'please' after the number of face-up cards", NULL, NULL},
    /* squares off the board, tents */
    {"tents ", "tents e1 q3", "square q3 is off the board (columns a to p, rows 1 to 12)", NULL, NULL},
    {"tents ", "tents e1 a13", "square a13 is off the board (columns a to p, rows 1 to 12)", NULL, NULL},
    {"tents ", "tents e1 3c", "'3c' is not a square: write a column letter and a row number, e.g. c5", NULL, NULL},
    {"tents ", "tents e1 i1 e1", "the tent on e1 is given twice", NULL, NULL},
    {"tents ", "tents", "a tents line must list the tent camps' squares, e.g. tents e1 i1", NULL, NULL},
    /* the castle lot */
    {"first-game lot", "first-game lot e3", "the castle lot at e3 covers the tent on g3", NULL, NULL},
    {"first-game lot", "first-game lot n5",
     "the castle lot at n5 runs off the board (it is 4 x 3 squares and n5 is its top-left square)", NULL, NULL},
    {"lot 4 3", "lot 5 3", "the lot's width is 5, but it must be 1 to 4", NULL, NULL},
    {"lot 4 3", "lot 3 3", "a 3 x 3 lot has no room for the 10 castle squares", NULL, NULL},
    {NULL, "tents f6 g6 h6 i6 j6 k6", "the 4 x 3 castle lot fits nowhere on the board without covering a tent", "lot 4 3", NULL},
    {"castle 2 ", "castle 2 at 0,0 seal olive", "castle squares 1 and 2 are both at 0,0", NULL, NULL},
    {"castle 2 ", "castle 1 at 1,0 seal olive", "castle square 1 is given twice (first on line %d)", NULL, "castle 1 "},
    {"castle 5 ", NULL, "castle square 5 is missing (the castle has 10 squares)", "", NULL},
    {"castle 5 ", "castle 5 at 3,4 seal none", "offset 3,4 is too far: X and Y run from 0 to 3", NULL, NULL},
    /* shapes */
    {"form 3 ", "form 3 tavern tiles 8 cells 0,0 2,0 0,1",
     "the squares of tavern are not connected: a building is one piece, each square touching another along a "
     "side", NULL, NULL},
    {"form 1 ", "form 1 house tiles 8 cells 0,0 1,0 2,0 3,0 0,1",
     "house covers more than 4 squares, the most a building may cover", NULL, NULL},
    {"form 1 ", "form 1 house tiles 8 cells 0,0", "house covers 1 square, but a building covers 2 to 4", NULL, NULL},
    {"form 1 ", "form 1 house tiles 8 cells 0,0 0,0", "cell 0,0 of house is given twice", NULL, NULL},
    {"form 2 ", "form 3 farm tiles 8 cells 0,0 1,0 2,0",
     "form 3 comes here, but the forms must be listed in order 1 to 7", NULL, NULL},
    /* counts and the engine's limits */
    {"board ", "board 20 12", "the board is 20 x 12 squares, but the engine's bit boards hold exactly 16 x 12", NULL, NULL},
    {"hand 4", "hand 5 display 3", "the hand size is 5, but it must be 1 to 4", NULL, NULL},
    {"hand 4", "hand 99999999999999999999 display 3", "the hand size is 99999999999999999999, but it must be 1 to 4",
     NULL, NULL},
    {"tents ", "tents e1 a99999999999", "square a99999999999 is off the board (columns a to p, rows 1 to 12)", NULL,
     NULL},
    {"cards house", "cards house red 3 olive 2 black 2 silver 2", "9 cards of house, but it has 8 tiles (one card per tile)", NULL, NULL},
    {"cards house", "cards house red 2 olive 2 black 2 red 2", "family red is given twice", NULL, NULL},
    {"pieces 1", "pieces 1 red 2 olive 2 black 2 silver 2",
     "floor 1 has 8 castle pieces, too few to fill its 10 castle squares", NULL, NULL},
    {"pieces 1", "pieces 1 red 13 olive 2 black 2 silver 2", "the number of pieces is 13, but it must be 0 to 12", NULL, NULL},
    {"workers ", "workers own 11 start 5 banners 4 per-banner 2 neutral 24",
     "5 start workers and 4 banners of 2 workers need 13 own workers, but there are 11", NULL, NULL},
    {"family olive", "family red spice merchants", "family red is given twice", NULL, NULL},
    {"family red", "family crimson cloth merchants",
     "family 1 must be called 'red' as on the built-in board (moves, saved games and the screens use these "
     "names), not 'crimson'", NULL, NULL},
    {"form 7 ", "form 7 abbey tiles 4 cells 0,0 1,0 0,1 1,1",
     "form 7 must be called 'monastery' as on the built-in board (moves, saved games and the screens use these "
     "names), not 'abbey'", NULL, NULL},
    {"players ", "players yellow orange green", "a player colour (there are 4) is missing at the end of the line", NULL, NULL},
    {"hand 4", NULL, "the 'hand' line is missing", "", NULL},
    {"first-game neutral", "first-game neutral 2:3 3:2 4:7",
     "4 players with 7 neutral workers each need 28, but there are 24 (line %d)", NULL, "workers "},
    {"first-game neutral", "first-game neutral 2:3 3:2", "the neutral workers for 4 players are missing (give 2:N 3:N 4:N)", NULL, NULL},
    /* the first-game layout */
    {"first-game building house", "first-game building house red g5 h5", "square g5 is under the castle lot", NULL, NULL},
    {"first-game building house", "first-game building house red l5 l6",
     "square l5 is a tent camp; buildings are never laid on a tent", NULL, NULL},
    {"first-game building house", "first-game building house red k6 l7",
     "these squares are not the shape of a house (turned a quarter at a time, never mirrored)", NULL, NULL},
    {"first-game building house", "first-game building house red k6 k6", "square k6 is given twice", NULL, NULL},
    {"first-game building house", "first-game building house red k6 l6 m6", "too many squares: a house covers 2", NULL, NULL},
    {"first-game building house", "first-game building house red h4 h5",
     "square h4 is already taken by the building on line %d", NULL, "first-game building monastery"},
    {NULL, "first-game building house red a6 a7\nfirst-game building house red a10 a11",
     "more house red buildings than there are house red cards", NULL, NULL},
};

/* The number of the first line of `text` that starts with `start`. */
static int line_of(const char *text, const char *start)
{
    int line = 1;
    for (const char *at = text; at; at = strchr(at, '\n'), at = at ? at + 1 : NULL, line++)
        if (strncmp(at, start, strlen(start)) == 0)
            return line;
    fail_msg("no line starts with '%s'", start);
    return 0;
}

/* The built-in file with one case applied; *line is the changed line. */
static char *apply_case(const char *text, const bad_case *c, int *line)
{
    size_t len = strlen(text);
    char *out = malloc(len + 256);
    assert_non_null(out);
    if (!c->line) {
        int lines = 1;
        for (const char *p = text; *p; p++)
            lines += *p == '\n';
        /* the last appended line (the file ends in a newline) */
        *line = lines + (strchr(c->becomes, '\n') != NULL);
        sprintf(out, "%s%s\n", text, c->becomes);
        return out;
    }
    *line = 1;
    const char *at = text;
    while (strncmp(at, c->line, strlen(c->line)) != 0) {
        at = strchr(at, '\n');
        if (!at)
            fail_msg("no line starts with '%s'", c->line);
        at++;
        (*line)++;
    }
    const char *end = strchr(at, '\n');
    end = end ? end + 1 : at + strlen(at);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, c->becomes ? c->becomes : "", c->becomes ? "\n" : "");
    strcat(out, end);
    return out;
}

static void bad_files_are_refused_with_line_and_reason(void **unused)
{
    (void)unused;
    size_t len;
    char *text = slurp("data/arkadia.txt", &len);
    const tb_game *g = tb_game_find("arkadia");
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        int line;
        char *bad = apply_case(text, c, &line), err[TB_ERR_LEN] = "", want[TB_ERR_LEN + 32];
        char error[TB_ERR_LEN];
        const char *mark = c->other ? strstr(c->error, "%d") : NULL;
        if (mark)
            snprintf(error, sizeof error, "%.*s%d%s", (int)(mark - c->error), c->error, line_of(bad, c->other),
                     mark + 2);
        else
            snprintf(error, sizeof error, "%s", c->error);
        snprintf(want, sizeof want, "bad.txt:%d: %s", !c->at ? line : *c->at ? line_of(bad, c->at) : 0, error);
        tb_data *data = tb_data_read(g, "bad", bad, strlen(bad), "bad.txt", err, sizeof err);
        if (data || strcmp(err, want) != 0)
            fail_msg("case %zu (%s): expected \"%s\", got %s\"%s\"", i, c->becomes ? c->becomes : "deleted",
                     want, data ? "a board and " : "", err);
        free(bad);
    }
    free(text);
}

static void broken_text_is_refused(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("arkadia");
    char err[TB_ERR_LEN];
    assert_null(tb_data_read(g, "bad", "", 0, "bad.txt", err, sizeof err));
    assert_string_equal(err, "bad.txt:0: the file is empty");
    assert_null(tb_data_read(g, "bad", "# only\n# comments\n", 18, "bad.txt", err, sizeof err));
    assert_string_equal(err, "bad.txt:0: the 'board' line is missing");
    static const char nul[] = "board 16 12\nfamily red\0cloth\n";
    assert_null(tb_data_read(g, "bad", nul, sizeof nul - 1, "bad.txt", err, sizeof err));
    assert_string_equal(err, "bad.txt:2: character 11 of the line is not plain text (a board file is written in "
                             "letters, digits, spaces and ASCII punctuation)");
    static const char utf8[] = "board 16 12\nfamily red Tuchh\xc3\xa4ndler\n";
    assert_null(tb_data_read(g, "bad", utf8, sizeof utf8 - 1, "bad.txt", err, sizeof err));
    assert_string_equal(err, "bad.txt:2: character 17 of the line is not plain text (a board file is written in "
                             "letters, digits, spaces and ASCII punctuation)");
    char *longline = malloc(2000);
    memset(longline, 'x', 1999);
    longline[1999] = '\0';
    assert_null(tb_data_read(g, "bad", longline, 1999, "bad.txt", err, sizeof err));
    assert_string_equal(err, "bad.txt:1: the line is longer than 1000 characters");
    /* a quoted word is cut short */
    memcpy(longline, "hand ", 5);
    longline[100] = '\0';
    assert_null(tb_data_read(g, "bad", longline, 100, "bad.txt", err, sizeof err));
    assert_string_equal(err, "bad.txt:1: the hand size must be a number, not "
                             "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
    free(longline);
    /* the generator's mode (no names to keep) takes other names */
    size_t len;
    char *text = slurp("data/arkadia.txt", &len);
    bad_case rename = {"players ", "players gold orange green violet", "", NULL, NULL};
    int line;
    char *renamed = apply_case(text, &rename, &line);
    ark_data *d = malloc(sizeof *d);
    assert_int_equal(ark__data_parse(renamed, strlen(renamed), "x", NULL, d, err, sizeof err), 0);
    assert_string_equal(d->seat_colour[0], "gold");
    assert_int_equal(ark__data_parse(renamed, strlen(renamed), "x", &D, d, err, sizeof err), -1);
    assert_non_null(strstr(err, "player colour 1 must be called 'yellow'"));
    free(d);
    free(renamed);
    free(text);
}

/* A first-game building every square around which is taken would be paid
 * by nobody: refused. */
static void an_enclosed_first_game_building_is_refused(void **unused)
{
    (void)unused;
    size_t len;
    char *text = slurp("data/arkadia.txt", &len), err[TB_ERR_LEN];
    static const bad_case layout[] = {
        {"first-game building monastery", "first-game building monastery black b3 c3 b4 c4", "", NULL, NULL},
        {"first-game building house", "first-game building house red a3 a4", "", NULL, NULL},
        {"first-game building farm", "first-game building farm olive a5 a6 a7", "", NULL, NULL},
        {"first-game building smithy", "first-game building smithy red a1 b1 c1 a2", "", NULL, NULL},
    };
    int line;
    for (size_t i = 0; i < sizeof layout / sizeof layout[0]; i++) {
        char *next = apply_case(text, &layout[i], &line);
        free(text);
        text = next;
    }
    assert_null(tb_data_read(tb_game_find("arkadia"), "bad", text, strlen(text), "bad.txt", err, sizeof err));
    char want[TB_ERR_LEN];
    snprintf(want, sizeof want, "bad.txt:%d: this house is enclosed from the start (every square around it is "
             "taken); leave a square next to it free", line_of(text, "first-game building house"));
    assert_string_equal(err, want);
    free(text);
}

/* Every cut of the file and thousands of damaged copies: the reader never
 * crashes, and either refuses with "bad.txt:LINE: " or reads a board that
 * keeps every invariant (a cut that only drops the last first-game buildings
 * is a valid file). */
static void cut_and_damaged_files_never_crash(void **unused)
{
    (void)unused;
    size_t len;
    char *text = slurp("data/arkadia.txt", &len), err[TB_ERR_LEN];
    ark_data *d = malloc(sizeof *d);
    size_t refused = 0;
    for (size_t cut = 0; cut < len; cut++) {
        if (ark__data_parse(text, cut, "bad.txt", &D, d, err, sizeof err) == 0) {
            check_board(d); /* cut after a whole first-game building: fewer of them */
        } else {
            assert_memory_equal(err, "bad.txt:", 8);
            refused++;
        }
    }
    assert_true(refused > len - 300);
    tb_rng rng;
    tb_rng_seed(&rng, 13);
    int read = 0;
    char *copy = malloc(len);
    for (int t = 0; t < 4000; t++) {
        memcpy(copy, text, len);
        for (int k = 0; k < 1 + t % 3; k++) {
            size_t at = tb_rng_below(&rng, (uint32_t)len);
            static const char pool[] = "0123456789 \n#abcdefghijklmnop,:-x";
            copy[at] = pool[tb_rng_below(&rng, sizeof pool - 1)];
        }
        if (ark__data_parse(copy, len, "bad.txt", &D, d, err, sizeof err) == 0) {
            check_board(d);
            read++;
        } else {
            assert_memory_equal(err, "bad.txt:", 8);
        }
    }
    assert_true(read > 0); /* some damage is only a comment or a valid other value */
    free(copy);
    free(d);
    free(text);
}

/* ---- a second board ---- */

static void the_second_board_keeps_every_invariant(void **unused)
{
    (void)unused;
    tb_data *data = read_board("tests/data/arkadia_moved.txt", "moved");
    const ark_data *d = tables(data);
    check_board(d);
    /* it really is another board */
    assert_int_equal(ark_bb_count(d->tents), 20);
    assert_int_equal(d->lot_h, 4);
    assert_int_equal(d->hand, 3);
    assert_int_equal(d->own_workers, 12);
    assert_int_equal(d->form[6].rotations, 2); /* a straight four */
    assert_string_not_equal(tb_data_hash(data), tb_data_hash(tb_data_builtin(tb_game_find("arkadia"))));
    char *json = tb_board_json_data(tb_game_find("arkadia"), data);
    assert_non_null(strstr(json, "\"lot_size\":[4,4]"));
    assert_non_null(strstr(json, "\"provisional\":false"));
    free(json);
    tb_data_free(data);
}

/* Whole random games on the second board with every invariant of
 * sim_arkadia.c at each decision, the state JSON round trip through a data
 * set, and a copy that replays to the same end. */
static void the_second_board_plays_whole_games(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("arkadia");
    tb_data_set *set = tb_data_set_new();
    char err[TB_ERR_LEN];
    tb_data *read = read_board("tests/data/arkadia_moved.txt", "moved");
    const tb_data *data = read;
    assert_int_equal(tb_data_set_add(set, read, err, sizeof err), 0);
    tb_options first;
    tb_options_clear(&first);
    tb_options_set(&first, "variant", "first-game", NULL, 0);
    int games = 0, ended_by_castle = 0;
    for (int players = 2; players <= 4; players++)
        for (int seed = 0; seed < 12; seed++) {
            tb_state *s = tb_state_new(g), *before = tb_state_new(g);
            const tb_options *opts = seed % 3 == 2 ? &first : NULL;
            assert_int_equal(tb_setup_data(s, data, players, opts, (uint64_t)seed, err, sizeof err), 0);
            if (sim_arkadia_check(NULL, s, err, sizeof err))
                fail_msg("players %d seed %d at the start: %s", players, seed, err);
            tb_rng rng;
            tb_rng_seed(&rng, (uint64_t)(seed * 100 + players));
            int decisions = 0;
            while (!tb_is_over(s)) {
                assert_true(decisions++ < 5000);
                if (seed < 2) {
                    char *json = tb_state_json(s);
                    tb_state *back = tb_state_load_in(json, set, err, sizeof err);
                    if (!back)
                        fail_msg("the state does not load: %s", err);
                    assert_true(tb_state_equal(back, s));
                    tb_state_free(back);
                    free(json);
                }
                tb_state_copy(before, s);
                tb_apply(s, tb_random_move(s, &rng));
                if (sim_arkadia_check(before, s, err, sizeof err))
                    fail_msg("players %d seed %d decision %d: %s", players, seed, decisions, err);
            }
            ended_by_castle += ((const arkadia_state *)s)->trigger_turn >= 0;
            games++;
            tb_state_free(before);
            tb_state_free(s);
        }
    assert_int_equal(games, 36);
    assert_true(ended_by_castle > 0); /* the 4 x 4 lot's castle fills */
    tb_data_set_free(set);
}

static void bit_board_helpers(void **unused)
{
    (void)unused;
    tb_rng rng;
    tb_rng_seed(&rng, 4);
    for (int t = 0; t < 200; t++) {
        ark_bb b = {{tb_rng_next(&rng) & tb_rng_next(&rng), tb_rng_next(&rng) & tb_rng_next(&rng),
                     tb_rng_next(&rng) & tb_rng_next(&rng)}};
        ark_bb around = ark_bb_around(b);
        for (int sq = 0; sq < ARK_SQUARES; sq++) {
            int x = sq % ARK_W, y = sq / ARK_W;
            bool want = !ark_bb_has(b, sq) &&
                        (has(b, x - 1, y) || has(b, x + 1, y) || has(b, x, y - 1) || has(b, x, y + 1));
            assert_int_equal(want, ark_bb_has(around, sq));
        }
        int n = (int)tb_rng_below(&rng, ARK_SQUARES), m = (int)tb_rng_below(&rng, 64);
        ark_bb l = ark_bb_shl(b, n), r = ark_bb_shr_small(b, m);
        int count = 0;
        for (int sq = 0; sq < ARK_SQUARES; sq++) {
            assert_int_equal(ark_bb_has(l, sq), sq >= n && ark_bb_has(b, sq - n));
            assert_int_equal(ark_bb_has(r, sq), sq + m < ARK_SQUARES && ark_bb_has(b, sq + m));
            count += ark_bb_has(b, sq);
        }
        assert_int_equal(ark_bb_count(b), count);
        if (count)
            assert_true(ark_bb_has(b, ark_bb_first(b)));
    }
}

/* A state and a record on the second board name it (name and hash) and load
 * or replay only where that very board is installed. */
static void a_game_on_the_second_board_needs_that_board(void **unused)
{
    (void)unused;
    const tb_game *g = tb_game_find("arkadia");
    char err[TB_ERR_LEN];
    tb_data_set *set = tb_data_set_new(), *other = tb_data_set_new();
    tb_data *moved = read_board("tests/data/arkadia_moved.txt", "moved");
    assert_int_equal(tb_data_set_add(set, moved, err, sizeof err), 0);
    size_t len;
    char *text = slurp("tests/data/arkadia_moved.txt", &len);
    char *edited = strstr(text, "hand 3 display 2");
    assert_non_null(edited);
    edited[5] = '2'; /* another version: a hand of 2 */
    tb_data *changed = tb_data_read(g, "moved", text, len, "moved.txt", err, sizeof err);
    assert_non_null(changed);
    assert_int_equal(tb_data_set_add(other, changed, err, sizeof err), 0);
    tb_state *s = tb_state_new(g);
    assert_int_equal(tb_setup_data(s, moved, 3, NULL, 9, err, sizeof err), 0);
    tb_rng rng;
    tb_rng_seed(&rng, 9);
    tb_playout(s, &rng, 20);
    char *json = tb_state_json(s), want[80];
    snprintf(want, sizeof want, "\"data\":{\"name\":\"moved\",\"hash\":\"%s\"}", tb_data_hash(moved));
    assert_non_null(strstr(json, want));
    assert_null(tb_state_load_in(json, NULL, err, sizeof err));    /* not installed */
    assert_null(tb_state_load_in(json, other, err, sizeof err));   /* another version */
    tb_state *back = tb_state_load_in(json, set, err, sizeof err); /* that very board */
    assert_non_null(back);
    assert_true(tb_state_equal(back, s));
    tb_state_free(back);
    free(json);
    tb_state_free(s);
    free(text);
    tb_data_set_free(other);
    tb_data_set_free(set);
}

int main(void)
{
    if (getenv("TABULA_SOURCE"))
        source_root = getenv("TABULA_SOURCE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_board_keeps_every_invariant),
        cmocka_unit_test(tents_are_24_on_the_board),
        cmocka_unit_test(the_lot_and_its_castle_squares),
        cmocka_unit_test(forms_and_cards),
        cmocka_unit_test(castle_pools_and_workers),
        cmocka_unit_test(first_game_layout),
        cmocka_unit_test(reading_the_builtin_file_gives_the_compiled_tables),
        cmocka_unit_test(the_builtin_file_read_at_run_time_plays_the_same_games),
        cmocka_unit_test(bad_files_are_refused_with_line_and_reason),
        cmocka_unit_test(broken_text_is_refused),
        cmocka_unit_test(an_enclosed_first_game_building_is_refused),
        cmocka_unit_test(cut_and_damaged_files_never_crash),
        cmocka_unit_test(the_second_board_keeps_every_invariant),
        cmocka_unit_test(the_second_board_plays_whole_games),
        cmocka_unit_test(a_game_on_the_second_board_needs_that_board),
        cmocka_unit_test(bit_board_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
