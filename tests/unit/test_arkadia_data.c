/*
 * test_arkadia_data.c — the invariants of the compiled Arkadia data
 * (data/arkadia.txt via arkadia_datagen.c; shared/rules/arkadia.md §1-§3):
 * 24 tent camps; a 4 x 3 lot whose 10 border squares are the castle squares
 * with 2 printed seals per family and 2 blank; lot places that cover no tent;
 * 7 forms of 2-4 connected squares whose orientations are exactly the
 * distinct quarter turns (then mirror images), with correct masks and
 * corners; 40 cards, one per tile; castle pools 12/12/4 (7 per family);
 * 11 own workers = 3 + 4 banners x 2; 24 neutral; a legal first-game layout.
 * Also the bit-board helpers against a square-by-square reference.
 */
#include "games/arkadia/arkadia.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define D (ark__data)

static bool has(ark_bb b, int x, int y)
{
    return x >= 0 && x < ARK_W && y >= 0 && y < ARK_H && ark_bb_has(b, y * ARK_W + x);
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
    assert_int_equal(ark_bb_count(D.lot_base), 12);
    int seals[ARK_FAMILIES + 1] = {0}, seen[4][4] = {{0}};
    for (int q = 0; q < ARK_CASTLE; q++) {
        int x = D.castle_x[q], y = D.castle_y[q];
        assert_true(x < D.lot_w && y < D.lot_h);
        /* the border ring, never the two inner squares */
        assert_true(x == 0 || y == 0 || x == D.lot_w - 1 || y == D.lot_h - 1);
        assert_int_equal(seen[y][x]++, 0);
        assert_in_range(D.castle_seal[q], 0, ARK_FAMILIES);
        seals[D.castle_seal[q]]++;
        if (q) /* numbered around the ring: each square next to the previous */
            assert_int_equal(abs(x - D.castle_x[q - 1]) + abs(y - D.castle_y[q - 1]), 1);
    }
    for (int k = 0; k < ARK_FAMILIES; k++)
        assert_int_equal(seals[k], 2);
    assert_int_equal(seals[ARK_NO_FAMILY], 2);
}

static void lot_places_cover_no_tent(void **unused)
{
    (void)unused;
    int places = 0;
    for (int sq = 0; sq < ARK_SQUARES; sq++) {
        int x = sq % ARK_W, y = sq / ARK_W;
        bool fits = x + D.lot_w <= ARK_W && y + D.lot_h <= ARK_H;
        if (fits)
            fits = !ark_bb_any(ark_bb_and(ark_bb_shl(D.lot_base, sq), D.tents));
        assert_int_equal(fits, ark_bb_has(D.lot_anchors, sq));
        places += fits;
    }
    assert_true(places >= 1);
    assert_true(ark_bb_has(D.lot_anchors, D.first_lot));
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

static void forms_and_orientations(void **unused)
{
    (void)unused;
    static const int tiles[ARK_FORMS] = {8, 8, 8, 4, 4, 4, 4};
    int total = 0;
    for (int f = 0; f < ARK_FORMS; f++) {
        const ark_form *fm = &D.form[f];
        assert_int_equal(fm->number, f + 1);
        assert_int_equal(fm->tiles, tiles[f]);
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
    /* the proposed shapes: the domino and the square have fewer turns */
    assert_int_equal(D.form[0].rotations, 2);
    assert_int_equal(D.form[6].rotations, 1);
    assert_int_equal(D.form[6].orients, 1);
}

static void cards_are_one_per_tile(void **unused)
{
    (void)unused;
    int total = 0;
    for (int f = 0; f < ARK_FORMS; f++) {
        int n = 0;
        for (int k = 0; k < ARK_FAMILIES; k++)
            n += D.cards[f][k];
        assert_int_equal(n, D.form[f].tiles);
        total += n;
    }
    assert_int_equal(total, 40);
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
    ark_bb taken = ark_bb_shl(D.lot_base, D.first_lot);
    ark_bb cells[ARK_MAX_FIRST];
    int forms = 0, used[ARK_FORMS][ARK_FAMILIES] = {{0}};
    for (int i = 0; i < D.first_count; i++) {
        const ark_first_building *fb = &D.first[i];
        ark_building b = {fb->form, fb->orient, fb->anchor, fb->family, 0};
        assert_true(fb->orient < D.form[fb->form].rotations);
        assert_true(ark_bb_has(D.form[fb->form].orient[fb->orient].anchors, fb->anchor));
        cells[i] = ark__building_cells(&D, &b);
        assert_false(ark_bb_any(ark_bb_and(cells[i], taken)));
        assert_false(ark_bb_any(ark_bb_and(cells[i], D.tents)));
        taken = ark_bb_or(taken, cells[i]);
        forms |= 1 << fb->form;
        assert_true(++used[fb->form][fb->family] <= D.cards[fb->form][fb->family]);
    }
    assert_int_equal(forms, (1 << ARK_FORMS) - 1); /* one of each form */
    for (int i = 0; i < D.first_count; i++) {
        ark_bb around = ark_bb_around(cells[i]);
        assert_true(ark_bb_any(ark_bb_and(around, taken)));     /* touches something */
        assert_true(ark_bb_any(ark_bb_andnot(around, taken)));  /* not enclosed */
    }
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tents_are_24_on_the_board),
        cmocka_unit_test(the_lot_and_its_castle_squares),
        cmocka_unit_test(lot_places_cover_no_tent),
        cmocka_unit_test(forms_and_orientations),
        cmocka_unit_test(cards_are_one_per_tile),
        cmocka_unit_test(castle_pools_and_workers),
        cmocka_unit_test(first_game_layout),
        cmocka_unit_test(bit_board_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
