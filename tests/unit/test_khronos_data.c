/*
 * test_khronos_data.c — the invariants of the compiled Khronos data
 * (data/khronos.txt; khronos.md §1.1, §1.6, §2, §3): the component counts of
 * the rulebook (155 tiles, 55 cards, 25 cubes, 4 Ecus, 4 cards), the
 * surcharges by player count, a placeholder board that has every kind of
 * terrain with one connected river crossing it and ten printed Hamlets off
 * the river, room for 3x3 blocks off the river on both of its banks, and
 * placement tables that agree with a brute-force derivation: every tile of
 * size s is an s x s block of squares (§1.1.2), with its neighbour sets,
 * terrain flags, the anchor index and the lists of larger placements, and
 * the forms (one orientation of a shape each) that the whole-board scans
 * use, here and on a board of dominoes and trominoes.
 *
 * Loadable data (docs/data-format.md): data/khronos.txt read at run time
 * gives the very tables and games of the compiled-in board; every bad file
 * the format names is refused with its line and what is wrong; states and
 * records name their board and are refused on a missing or changed one; a
 * record made before boards could be chosen replays on the built-in board.
 * Files come from the source tree ($TABULA_SOURCE, set by tests/meson.build).
 */
#include "games/khronos/khronos.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stdio.h>

#define D khronos__tables.data

static void components_match_the_rulebook(void **unused)
{
    (void)unused;
    static const struct {
        const char *name;
        int count, renovation;
    } want[KH_TYPES] = {{"watchtower", 20, 0}, {"keep", 24, 1},      {"castle", 9, 2},
                        {"chapel", 20, 0},     {"monastery", 20, 1}, {"abbey", 9, 2},
                        {"hamlet", 20, 0},     {"town", 24, 0},      {"city", 9, 0}};
    int total = 0;
    for (int t = 0; t < KH_TYPES; t++) {
        assert_string_equal(D.tile[t].name, want[t].name);
        assert_int_equal(D.tile[t].count, want[t].count);
        assert_int_equal(D.tile[t].renovation, want[t].renovation);
        assert_int_equal(D.tile[t].family, t / 3);
        assert_int_equal(D.tile[t].size, t % 3 + 1);
        total += D.tile[t].count;
    }
    assert_int_equal(total, 155);
    assert_int_equal(D.cards[KH_MILITARY], 18);
    assert_int_equal(D.cards[KH_RELIGIOUS], 18);
    assert_int_equal(D.cards[KH_CIVIL], 19);
    assert_int_equal(D.cubes, 25);
    assert_int_equal(D.ecus, 4);
    assert_int_equal(D.hand, 4);
    assert_int_equal(D.start_board, KH_MIGHT);
    static const int forest[6] = {0, 0, 1, 1, 0, 0}, mountain[6] = {0, 0, 2, 2, 1, 0};
    for (int n = 2; n <= 5; n++) {
        assert_int_equal(D.surcharge_forest[n], forest[n]);
        assert_int_equal(D.surcharge_mountain[n], mountain[n]);
    }
}

static void board_has_every_terrain_and_one_river(void **unused)
{
    (void)unused;
    assert_true(D.squares == D.width * D.height && D.squares <= KH_MAXSQ);
    int count[KH_TERRAINS] = {0};
    kh_bits river = {{0}};
    for (int sq = 0; sq < D.squares; sq++) {
        assert_true(D.terrain[sq] < KH_TERRAINS);
        count[D.terrain[sq]]++;
        if (D.terrain[sq] == KH_RIVER)
            kh_bits_set(&river, sq);
    }
    for (int t = 0; t < KH_TERRAINS; t++)
        assert_true(count[t] > 0);
    /* one connected river that touches two different edges of the board */
    int first = -1;
    for (int sq = 0; sq < D.squares && first < 0; sq++)
        if (kh_bits_has(river, sq))
            first = sq;
    kh_bits reached = {{0}};
    kh_bits_set(&reached, first);
    int grown = 1;
    while (grown) {
        grown = 0;
        for (int sq = 0; sq < D.squares; sq++) {
            if (!kh_bits_has(reached, sq))
                continue;
            int r = sq / D.width, c = sq % D.width;
            int nb[4] = {r ? sq - D.width : -1, r + 1 < D.height ? sq + D.width : -1,
                         c ? sq - 1 : -1, c + 1 < D.width ? sq + 1 : -1};
            for (int d = 0; d < 4; d++)
                if (nb[d] >= 0 && kh_bits_has(river, nb[d]) && !kh_bits_has(reached, nb[d])) {
                    kh_bits_set(&reached, nb[d]);
                    grown = 1;
                }
        }
    }
    assert_memory_equal(&reached, &river, sizeof river);
    int edges = 0;
    for (int sq = 0; sq < D.squares; sq++) {
        if (!kh_bits_has(river, sq))
            continue;
        int r = sq / D.width, c = sq % D.width;
        edges |= (r == 0) | (r == D.height - 1) << 1 | (c == 0) << 2 | (c == D.width - 1) << 3;
    }
    assert_true(__builtin_popcount((unsigned)edges) >= 2);
}

static void ten_printed_hamlets_off_the_river(void **unused)
{
    (void)unused;
    assert_int_equal(D.hamlets, 10);
    kh_bits seen = {{0}};
    for (int h = 0; h < D.hamlets; h++) {
        int sq = D.hamlet[h];
        assert_true(sq >= 0 && sq < D.squares);
        assert_false(kh_bits_has(seen, sq));
        kh_bits_set(&seen, sq);
        assert_int_not_equal(D.terrain[sq], KH_RIVER);
    }
    assert_memory_equal(&seen, &D.printed, sizeof seen);
}

/* Whether placement p is an s x s block: s*s squares, in board order, from
 * its top-left square. */
static bool test_block(const kh_place *p, int s)
{
    if (p->n != s * s)
        return false;
    int r0 = p->sq[0] / D.width, c0 = p->sq[0] % D.width;
    for (int k = 0; k < p->n; k++)
        if (p->sq[k] != (r0 + k / s) * D.width + c0 + k % s)
            return false;
    return true;
}

static void placements_agree_with_brute_force(void **unused)
{
    (void)unused;
    /* one s x s block at every top-left square that leaves it on the board */
    int want[4] = {0, D.squares, (D.width - 1) * (D.height - 1), (D.width - 2) * (D.height - 2)};
    for (int s = 1; s <= 3; s++)
        assert_int_equal(D.place_end[s] - D.place_first[s], want[s]);
    assert_int_equal(D.place_first[1], 0);
    assert_int_equal(D.place_end[3], D.places);
    for (int i = 0; i < D.places; i++) {
        const kh_place *p = &khronos__tables.place[i];
        assert_true(i >= D.place_first[p->size] && i < D.place_end[p->size]);
        kh_bits mask = {{0}}, nbr = {{0}};
        int covers = 0;
        assert_true(test_block(p, p->size));
        for (int k = 0; k < p->n; k++) {
            assert_true(p->sq[k] < D.squares);
            if (k)
                assert_true(p->sq[k] > p->sq[k - 1]);
            kh_bits_set(&mask, p->sq[k]);
            int t = D.terrain[p->sq[k]];
            covers |= t == KH_RIVER ? KH_COVERS_RIVER : 0;
            covers |= t == KH_FOREST || t == KH_PLAIN_FOREST ? KH_COVERS_FOREST : 0;
            covers |= t == KH_MOUNTAIN || t == KH_FOREST_MOUNTAIN ? KH_COVERS_MOUNTAIN : 0;
        }
        for (int sq = 0; sq < D.squares; sq++) {
            if (kh_bits_has(mask, sq))
                continue;
            for (int k = 0; k < p->n; k++) {
                int a = p->sq[k];
                if (abs(a / D.width - sq / D.width) + abs(a % D.width - sq % D.width) == 1)
                    kh_bits_set(&nbr, sq);
            }
        }
        assert_memory_equal(&mask, &p->mask, sizeof mask);
        assert_memory_equal(&nbr, &p->nbr, sizeof nbr);
        assert_int_equal(covers, p->covers);
        if (i > D.place_first[p->size]) {
            const kh_place *q = &khronos__tables.place[i - 1];
            assert_true(memcmp(q->sq, p->sq, KH_MAXCELLS) != 0);
            assert_true(q->sq[0] <= p->sq[0]);
        }
        /* the anchor index finds it */
        assert_true(i >= khronos__tables.anchor[p->size][p->sq[0]] &&
                    i < khronos__tables.anchor[p->size][p->sq[0] + 1]);
        /* the larger placements containing it */
        int n = 0;
        for (int j = 0; j < D.places; j++) {
            const kh_place *q = &khronos__tables.place[j];
            if (q->size <= p->size || !kh_bits_subset(p->mask, q->mask))
                continue;
            bool listed = false;
            for (int s = khronos__tables.super_first[i]; s < khronos__tables.super_first[i + 1]; s++)
                listed |= khronos__tables.super[s] == j;
            assert_true(listed);
            n++;
        }
        assert_int_equal(n, khronos__tables.super_first[i + 1] - khronos__tables.super_first[i]);
    }
}

/* Castles and Abbeys (3x3, never on the river) find room on both banks: the
 * river parts the board, and each side has a free 3x3 block without a
 * printed Hamlet. */
static void room_for_castles_on_both_banks(void **unused)
{
    (void)unused;
    int west = 0, east = 0;
    for (int i = D.place_first[3]; i < D.place_end[3]; i++) {
        const kh_place *p = &khronos__tables.place[i];
        if ((p->covers & KH_COVERS_RIVER) || kh_bits_any(kh_bits_and(p->mask, D.printed)))
            continue;
        /* west of the river: some river square lies to the right on its first row */
        int r = p->sq[0] / D.width;
        bool river_right = false;
        for (int c = p->sq[0] % D.width; c < D.width; c++)
            river_right |= D.terrain[r * D.width + c] == KH_RIVER;
        west += river_right;
        east += !river_right;
    }
    assert_true(west >= 10);
    assert_true(east >= 10);
}


/* ---- loadable data ---- */

/* A file of the source tree, read whole (NUL-terminated; *len without it). */
static char *source_file(const char *rel, size_t *len)
{
    const char *root = getenv("TABULA_SOURCE");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    char *text = malloc(n + 1);
    memcpy(text, buf, n);
    text[n] = '\0';
    if (len)
        *len = n;
    return text;
}

static const tb_game *khronos(void)
{
    return tb_game_find("khronos");
}

static void loaded_copy_of_builtin_gives_the_same_tables(void **unused)
{
    (void)unused;
    size_t len;
    char *text = source_file("data/khronos.txt", &len);
    char err[TB_ERR_LEN];
    tb_data *d = tb_data_read(khronos(), "default", text, len, "khronos.txt", err, sizeof err);
    if (!d)
        fail_msg("%s", err);
    const kh_tables *a = &khronos__tables, *b = d->tables;
    assert_string_equal(tb_data_hash(d), tb_data_hash(tb_data_builtin(khronos())));
    kh_data da = a->data, db = b->data;
    for (int t = 0; t < KH_TYPES; t++) {
        assert_string_equal(da.tile[t].name, db.tile[t].name);
        da.tile[t].name = db.tile[t].name = NULL;
    }
    assert_memory_equal(&da, &db, sizeof da);
    assert_memory_equal(a->place, b->place, (size_t)da.places * sizeof *a->place);
    assert_memory_equal(a->anchor, b->anchor, 4 * sizeof *a->anchor);
    assert_memory_equal(a->super_first, b->super_first, ((size_t)da.places + 1) * sizeof(uint16_t));
    assert_memory_equal(a->super, b->super, a->super_first[da.places] * sizeof(uint16_t));
    assert_memory_equal(a->form_first, b->form_first, sizeof a->form_first);
    assert_memory_equal(a->form_end, b->form_end, sizeof a->form_end);
    assert_memory_equal(a->form, b->form, a->form_end[3] * sizeof *a->form);
    assert_memory_equal(&a->has_left, &b->has_left, sizeof a->has_left);
    assert_memory_equal(&a->has_right, &b->has_right, sizeof a->has_right);
    /* and the same random game from the same seed, to the byte */
    for (int players = 2; players <= 5; players++) {
        tb_state *x = tb_state_new(khronos()), *y = tb_state_new(khronos());
        assert_int_equal(tb_setup(x, players, NULL, 77, err, sizeof err), 0);
        assert_int_equal(tb_setup_data(y, d, players, NULL, 77, err, sizeof err), 0);
        tb_rng r1, r2;
        tb_rng_seed(&r1, (uint64_t)players);
        tb_rng_seed(&r2, (uint64_t)players);
        int n1 = tb_playout(x, &r1, 0), n2 = tb_playout(y, &r2, 0);
        assert_int_equal(n1, n2);
        assert_true(n1 > 20);
        char *j1 = tb_state_json(x), *j2 = tb_state_json(y);
        assert_string_equal(j1, j2); /* same name, same hash, same game */
        free(j1);
        free(j2);
        tb_state_free(x);
        tb_state_free(y);
    }
    /* the hash ignores comments and spacing, not values */
    char edited[1 << 16];
    snprintf(edited, sizeof edited, "# a new comment\n\n%s  \n", text);
    char *hamlets = strstr(edited, "hamlets b1 ");
    assert_non_null(hamlets);
    memmove(hamlets + 10, hamlets + 8, strlen(hamlets + 8) + 1); /* "hamlets   b1" */
    memcpy(hamlets + 8, "  ", 2);
    tb_data *e = tb_data_read(khronos(), "edited", edited, strlen(edited), "e", err, sizeof err);
    if (!e)
        fail_msg("%s", err);
    assert_string_equal(tb_data_hash(e), tb_data_hash(d));
    tb_data_free(e);
    char *cubes = strstr(edited, "cubes 25");
    assert_non_null(cubes);
    cubes[7] = '4';
    e = tb_data_read(khronos(), "edited", edited, strlen(edited), "e", err, sizeof err);
    assert_non_null(e);
    assert_string_not_equal(tb_data_hash(e), tb_data_hash(d));
    tb_data_free(e);
    tb_data_free(d);
    free(text);
}

/* The forms (kh_form) of a set of tables: every placement is its form's
 * offsets from its first square, each form's placements are all its first
 * squares and their terrain mixes, forms of one size are distinct, and the
 * edge sets name the squares with a left and a right neighbour. */
static void check_forms(const kh_tables *t)
{
    const kh_data *d = &t->data;
    assert_int_equal(t->form_first[1], 0);
    for (int s = 1; s <= 3; s++) {
        assert_true(t->form_first[s] < t->form_end[s]);
        if (s > 1)
            assert_int_equal(t->form_first[s], t->form_end[s - 1]);
        for (int f = t->form_first[s]; f < t->form_end[s]; f++) {
            const kh_form *fm = &t->form[f];
            assert_int_equal(fm->size, s);
            for (int g = t->form_first[s]; g < f; g++)
                assert_true(memcmp(t->form[g].off, fm->off, sizeof fm->off) != 0);
            kh_bits anchors = {{0}}, mix[8];
            memset(mix, 0, sizeof mix);
            for (int i = d->place_first[s]; i < d->place_end[s]; i++) {
                const kh_place *p = &t->place[i];
                if (p->form != f)
                    continue;
                assert_int_equal(p->n, fm->n);
                for (int k = 0; k < p->n; k++)
                    assert_int_equal(p->sq[k], p->sq[0] + fm->off[k]);
                kh_bits_set(&anchors, p->sq[0]);
                kh_bits_set(&mix[p->covers], p->sq[0]);
            }
            assert_memory_equal(&anchors, &fm->anchors, sizeof anchors);
            assert_memory_equal(mix, fm->mix, sizeof mix);
        }
    }
    for (int i = 0; i < d->places; i++)
        assert_true(t->place[i].form >= t->form_first[t->place[i].size] &&
                    t->place[i].form < t->form_end[t->place[i].size]);
    for (int q = 0; q < KH_MAXSQ; q++) {
        assert_int_equal(kh_bits_has(t->has_left, q), q < d->squares && q % d->width > 0);
        assert_int_equal(kh_bits_has(t->has_right, q), q < d->squares && q % d->width < d->width - 1);
    }
}

/* The built-in board's forms: one per size (square blocks), and the same
 * checks on a board whose tiles have several orientations
 * (tests/data/khronos-shapes.txt: dominoes two, trominoes six), where random
 * playouts (which draw a new building's squares from the sets of forms) still
 * make exactly the decisions of random_move + apply. */
static void forms_agree_with_placements(void **unused)
{
    (void)unused;
    check_forms(&khronos__tables);
    for (int s = 1; s <= 3; s++)
        assert_int_equal(khronos__tables.form_end[s] - khronos__tables.form_first[s], 1);
    size_t len;
    char *text = source_file("tests/data/khronos-shapes.txt", &len);
    char err[TB_ERR_LEN];
    tb_data *d = tb_data_read(khronos(), "shapes", text, len, "shapes.txt", err, sizeof err);
    if (!d)
        fail_msg("%s", err);
    const kh_tables *t = d->tables;
    check_forms(t);
    assert_int_equal(t->form_end[1] - t->form_first[1], 1);
    assert_int_equal(t->form_end[2] - t->form_first[2], 2);
    assert_int_equal(t->form_end[3] - t->form_first[3], 6);
    int squares = 0;
    for (int seed = 0; seed < 40; seed++) {
        tb_state *a = tb_state_new(khronos()), *b = tb_state_new(khronos());
        int players = 2 + seed % 4;
        assert_int_equal(tb_setup_data(a, d, players, NULL, (uint64_t)seed, err, sizeof err), 0);
        assert_int_equal(tb_setup_data(b, d, players, NULL, (uint64_t)seed, err, sizeof err), 0);
        tb_rng ra, rb;
        tb_rng_seed(&ra, (uint64_t)seed + 5);
        tb_rng_seed(&rb, (uint64_t)seed + 5);
        int played = tb_playout(a, &ra, 0), again = 0;
        while (!tb_is_over(b)) {
            tb_move m = tb_random_move(b, &rb);
            squares += KH_KIND(m) == KH_M_SQUARES;
            tb_apply(b, m);
            again++;
        }
        assert_int_equal(played, again);
        assert_true(tb_state_equal(a, b));
        tb_state_free(a);
        tb_state_free(b);
    }
    assert_true(squares > 100); /* buildings were laid */
    tb_data_free(d);
    free(text);
}

/* The small test board with line `line` (from 1) replaced by `with` (NULL:
 * removed); malloc'd. */
static char *small_board_edited(int line, const char *with)
{
    char *text = source_file("tests/data/khronos-small.txt", NULL);
    char *out = malloc(strlen(text) + strlen(with ? with : "") + 2);
    out[0] = '\0';
    int n = 1;
    for (char *p = text; *p; n++) {
        char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (n == line) {
            if (with)
                strcat(strcat(out, with), "\n");
        } else {
            strncat(out, p, len);
            strcat(out, "\n");
        }
        p += len + (end ? 1 : 0);
    }
    free(text);
    return out;
}

static void bad_files_are_refused_with_line_and_reason(void **unused)
{
    (void)unused;
    /* the small board's lines: 4 size, 6-13 rows, 15 hamlets, 16 start,
     * 18-26 tiles, 28-30 shapes, 32-34 cards, 36-37 surcharges, 39-41 supplies */
    static const struct {
        int line;
        const char *with, *want;
    } cases[] = {
        {7, "row 2 .ff..~..x.", "board.txt:7: row 2: unknown terrain letter 'x' in column i"},
        {15, "hamlets b1 h3 c6 j8 f2", "board.txt:15: the printed Hamlet at f2 stands on a river"},
        {4, "size 20 14", "board.txt:4: the board is too large: at most 255 squares (this is 20 x 14 = 280)"},
        {30, "shape 3 ##./..#", "board.txt:30: the squares of a size 3 shape must be connected"},
        {29, "shape 2 #./.#", "board.txt:29: the squares of a size 2 shape must be connected"},
        {33, "cards religious 40", "board.txt:34: too many cards: at most 64 in all (this file has 69)"},
        {8, "row 3 ....~~..m", "board.txt:8: row 3 must have 10 terrain letters, one per column (it has 9)"},
        {9, NULL, "board.txt:0: row 4 of the board is missing"},
        {16, "start heaven", "board.txt:16: unknown board 'heaven' (might, faith or reason)"},
        {16, "begin might", "board.txt:16: unknown line 'begin'"},
        {19, "tile keep military 2 10", "board.txt:19: the keep has a ruin side: write 'ruin CARDS'"},
        {20, "tile castle military 3 4 ruin 5", "board.txt:20: the cards to renovate the ruin must be a number from 1 to 2, not '5'"},
        {28, "shape 1 ##", "board.txt:28: a size 1 tile covers exactly one square"},
        {39, "cubes 20 20", "board.txt:39: unexpected text at the end of the line"},
        {40, "ecus 3\necus 4", "board.txt:41: 'ecus' is given twice"},
        {15, "hamlets b1 z9", "board.txt:15: 'z9' is not a square of the board (columns a-j, rows 1-8)"},
        {41, NULL, "board.txt:0: 'cubes', 'ecus' and 'hand' must all be given"},
        {26, "tile city civil 3 4\ntile town civil 3 4", "board.txt:27: two tiles are called 'town'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = small_board_edited(cases[i].line, cases[i].with);
        char err[TB_ERR_LEN] = "";
        tb_data *d = tb_data_read(khronos(), "bad", text, strlen(text), "board.txt", err, sizeof err);
        if (d)
            fail_msg("case %zu (%s) was accepted", i, cases[i].want);
        if (strncmp(err, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("case %zu: want '%s', got '%s'", i, cases[i].want, err);
        free(text);
    }
    char err[TB_ERR_LEN];
    /* more buildings than a board holds: a 13 x 11 board of 143 single tiles */
    char *rest = small_board_edited(18, "tile watchtower military 1 200");
    char big[4096] = "size 13 11\n";
    for (int row = 1; row <= 11; row++)
        snprintf(big + strlen(big), sizeof big - strlen(big), "row %d .............\n", row);
    strcat(big, strstr(rest, "hamlets"));
    free(rest);
    assert_null(tb_data_read(khronos(), "big", big, strlen(big), "board.txt", err, sizeof err));
    assert_string_equal(err, "board.txt:0: a board could hold 143 buildings, more than the "
                             "engine's 128: use fewer small tiles or a smaller board");
    assert_null(tb_data_read(khronos(), "bad", "size 4 4\0row", 12, "nul.txt", err, sizeof err));
    assert_string_equal(err, "nul.txt:1: the line holds a NUL byte: this is not a text file");
    assert_null(tb_data_read(khronos(), "no/slash", "", 0, "f.txt", err, sizeof err));
    assert_non_null(strstr(err, "cannot name a board"));
    assert_null(tb_data_read(tb_game_find("clans"), "x", "", 0, "f.txt", err, sizeof err));
    /* the unedited small board reads */
    char *good = small_board_edited(0, NULL);
    tb_data *d = tb_data_read(khronos(), "small", good, strlen(good), "small.txt", err, sizeof err);
    if (!d)
        fail_msg("%s", err);
    tb_data_free(d);
    free(good);
}

static void states_and_records_name_their_board(void **unused)
{
    (void)unused;
    size_t len;
    char *text = source_file("tests/data/khronos-small.txt", &len);
    char err[TB_ERR_LEN];
    tb_data_set *set = tb_data_set_new();
    tb_data *small = tb_data_read(khronos(), "small", text, len, "small.txt", err, sizeof err);
    assert_non_null(small);
    assert_int_equal(tb_data_set_add(set, small, err, sizeof err), 0);
    assert_int_equal(tb_data_set_count(set, khronos()), 2);
    assert_ptr_equal(tb_data_set_at(set, khronos(), 0), tb_data_builtin(khronos()));
    assert_ptr_equal(tb_data_set_find(set, khronos(), "small"), small);
    assert_null(tb_data_set_find(set, khronos(), "large"));
    tb_data *again = tb_data_read(khronos(), "small", text, len, "small.txt", err, sizeof err);
    assert_int_equal(tb_data_set_add(set, again, err, sizeof err), -1); /* freed by the set */
    assert_non_null(strstr(err, "already has a board called 'small'"));

    tb_state *s = tb_state_new(khronos());
    assert_int_equal(tb_setup_data(s, small, 3, NULL, 5, err, sizeof err), 0);
    tb_rng rng;
    tb_rng_seed(&rng, 5);
    tb_record *rec = tb_record_new(khronos(), 3, NULL, 5);
    tb_record_set_data(rec, small);
    for (int i = 0; i < 40 && !tb_is_over(s); i++) {
        char mt[TB_MOVE_TEXT];
        tb_move m = tb_random_move(s, &rng);
        tb_move_to_text(s, m, mt, sizeof mt);
        tb_record_push(rec, mt);
        tb_apply(s, m);
    }
    char *json = tb_state_json(s);
    char want[128];
    snprintf(want, sizeof want, "\"data\":{\"name\":\"small\",\"hash\":\"%s\"}", tb_data_hash(small));
    assert_non_null(strstr(json, want));
    /* loads where the board is installed, is refused where it is not */
    tb_state *back = tb_state_load_in(json, set, err, sizeof err);
    assert_non_null(back);
    assert_true(tb_state_equal(back, s));
    tb_state_free(back);
    assert_null(tb_state_load(json, err, sizeof err));
    assert_string_equal(err, "this game was played on the Khronos board 'small', which is not "
                             "installed here");
    char *rj = tb_record_json(rec, s);
    assert_non_null(strstr(rj, want));
    tb_record *rback = tb_record_from_json(rj, err, sizeof err);
    assert_non_null(rback);
    assert_string_equal(tb_record_data_name(rback), "small");
    tb_state *replayed = tb_record_replay_in(rback, -1, set, err, sizeof err);
    assert_non_null(replayed);
    assert_true(tb_state_equal(replayed, s));
    tb_state_free(replayed);
    assert_null(tb_record_replay(rback, -1, err, sizeof err));
    assert_non_null(strstr(err, "'small', which is not installed here"));
    /* a changed file of the same name is refused, naming both hashes */
    tb_data_set *other = tb_data_set_new();
    char *changed = small_board_edited(41, "hand 5");
    tb_data *small2 = tb_data_read(khronos(), "small", changed, strlen(changed), "s", err, sizeof err);
    assert_non_null(small2);
    assert_int_equal(tb_data_set_add(other, small2, err, sizeof err), 0);
    assert_null(tb_record_replay_in(rback, -1, other, err, sizeof err));
    assert_non_null(strstr(err, "a different version of the Khronos board 'small'"));
    assert_null(tb_state_load_in(json, other, err, sizeof err));
    assert_non_null(strstr(err, "a different version of the Khronos board 'small'"));
    /* a state whose 'data' is malformed is refused */
    char *bad = strdup(json);
    memcpy(strstr(bad, "\"hash\":\"") + 8, "zz", 2);
    assert_null(tb_state_load_in(bad, set, err, sizeof err));
    assert_string_equal(err, "'data' must be an object with a 'name' and a 16-digit 'hash'");
    free(bad);
    free(changed);
    free(rj);
    free(json);
    tb_record_free(rback);
    tb_record_free(rec);
    tb_state_free(s);
    tb_data_set_free(other);
    tb_data_set_free(set);
    free(text);
}

static void records_from_before_boards_replay_on_the_builtin(void **unused)
{
    (void)unused;
    char *text = source_file("tests/data/khronos-record-main.json", NULL);
    assert_null(strstr(text, "\"data\""));
    char err[TB_ERR_LEN];
    tb_record *rec = tb_record_from_json(text, err, sizeof err);
    if (!rec)
        fail_msg("%s", err);
    assert_string_equal(tb_record_data_name(rec), "default");
    assert_null(tb_record_data_hash(rec));
    tb_state *s = tb_record_replay(rec, -1, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    assert_ptr_equal(tb_state_data(s), tb_data_builtin(khronos()));
    assert_true(tb_is_over(s)); /* and the stored result matched the replay */
    tb_state_free(s);
    /* a state saved before (no "data") loads on the built-in board too */
    tb_state *fresh = tb_state_new(khronos());
    tb_setup(fresh, 3, NULL, 9, err, sizeof err);
    char *json = tb_state_json(fresh);
    char *at = strstr(json, ",\"data\":{");
    assert_non_null(at);
    char *close = strchr(at, '}');
    memmove(at, close + 1, strlen(close + 1) + 1);
    tb_state *old = tb_state_load(json, err, sizeof err);
    assert_non_null(old);
    assert_true(tb_state_equal(old, fresh));
    tb_state_free(old);
    free(json);
    tb_state_free(fresh);
    tb_record_free(rec);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(components_match_the_rulebook),
        cmocka_unit_test(board_has_every_terrain_and_one_river),
        cmocka_unit_test(ten_printed_hamlets_off_the_river),
        cmocka_unit_test(placements_agree_with_brute_force),
        cmocka_unit_test(forms_agree_with_placements),
        cmocka_unit_test(room_for_castles_on_both_banks),
        cmocka_unit_test(loaded_copy_of_builtin_gives_the_same_tables),
        cmocka_unit_test(bad_files_are_refused_with_line_and_reason),
        cmocka_unit_test(states_and_records_name_their_board),
        cmocka_unit_test(records_from_before_boards_replay_on_the_builtin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
