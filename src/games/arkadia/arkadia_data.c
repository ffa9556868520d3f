/*
 * arkadia_data.c — the one reader of Arkadia's board file
 * (docs/data-format.md, "Arkadia"): data/arkadia.txt at build time (through
 * arkadia_datagen.c, which compiles this file into a small native tool) and
 * an owner's board file at run time (through the game's data hook).
 *
 * It works out everything placement needs once: each form's distinct quarter
 * turns and mirror images, their bit masks with the shape's corner on a1 and
 * the corners where they fit, the lot's mask and the corners where it covers
 * no tent, and the first-game layout's orientations and corners.
 *
 * Invariants: a file is either read whole into a table that keeps every
 * invariant of arkadia_data.h, or refused with "FILE:LINE: what is wrong" in
 * an owner's words (quoted text cut short and made printable); the reader
 * needs only the C library, allocates nothing and keeps no state between
 * calls, so any bytes at all are safe input (tests/fuzz/fuzz_arkadia_data.c).
 */
#include "arkadia_data.h"
#include "shape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AP_LINE_MAX 1000 /* longest line the format allows, in bytes */
#define AP_QUOTE 32      /* most bytes of the file quoted in a message */

/* Everything the reader knows while it goes through the file. */
typedef struct ap_reader {
    const char *file;
    int line;          /* the line being read; 0 once the whole file is read */
    char *err;
    size_t errlen;
    const ark_data *names; /* the names every board keeps, or NULL */
    ark_data *out;
    char buf[AP_LINE_MAX + 2]; /* the current line, cut into words in place */
    char *cursor;              /* the rest of the line */
    /* the line where each thing was given (0: not yet) */
    int board_line, players_line, lot_line, hand_line, workers_line, first_lot_line;
    int first_neutral_line;
    int castle_line[ARK_CASTLE], cards_line[ARK_FORMS], pieces_line[ARK_FLOORS];
    int first_line[ARK_MAX_FIRST];
    int families, forms;
    tb_shape shape[ARK_FORMS];           /* each form as the file gives it */
    ark_bb first_cells[ARK_MAX_FIRST];   /* the first-game buildings' squares */
    bool first_neutral_seen[ARK_SEATS + 1];
} ap_reader;

/* Writes a printable copy of at most AP_QUOTE bytes of `word` into buf: a
 * longer word ends in "...", and a byte that is not printable ASCII shows as
 * '?' (so a message is always plain text, whatever the file holds). */
static const char *ap_quote(const char *word, char *buf, size_t buflen)
{
    size_t n = 0, len = strlen(word), keep = len > AP_QUOTE ? AP_QUOTE : len;
    for (size_t i = 0; i < keep && n + 1 < buflen; i++) {
        unsigned char c = (unsigned char)word[i];
        buf[n++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    }
    if (keep < len)
        for (int i = 0; i < 3 && n + 1 < buflen; i++)
            buf[n++] = '.';
    buf[n] = '\0';
    return buf;
}

/* Says what is wrong, at the current line (line 0 once the whole file is
 * read: something missing, or counts that disagree across lines); returns
 * -1 so a caller can `return ap_fail(...)`. */
static int ap_fail(ap_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ap_fail(ap_reader *r, const char *fmt, ...)
{
    if (!r->err || !r->errlen)
        return -1;
    int n = snprintf(r->err, r->errlen, "%s:%d: ", r->file, r->line);
    if (n >= 0 && (size_t)n < r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- words ---- */

static bool ap_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next word of the line, or NULL at its end. */
static const char *ap_word(ap_reader *r)
{
    char *p = r->cursor;
    while (ap_space(*p))
        p++;
    if (!*p) {
        r->cursor = p;
        return NULL;
    }
    char *start = p;
    while (*p && !ap_space(*p))
        p++;
    if (*p)
        *p++ = '\0';
    r->cursor = p;
    return start;
}

/* The next word, which must be there; `what` names it in the message. */
static const char *ap_need(ap_reader *r, const char *what)
{
    const char *w = ap_word(r);
    if (!w)
        ap_fail(r, "%s is missing at the end of the line", what);
    return w;
}

/* The next word must be exactly `keyword`; `after` says where it belongs. */
static int ap_keyword(ap_reader *r, const char *keyword, const char *after)
{
    const char *w = ap_word(r);
    char q[AP_QUOTE + 4];
    if (!w)
        return ap_fail(r, "the word '%s' is missing %s", keyword, after);
    if (strcmp(w, keyword) != 0)
        return ap_fail(r, "expected the word '%s' %s, found '%s'", keyword, after, ap_quote(w, q, sizeof q));
    return 0;
}

/* The line must end here. */
static int ap_end(ap_reader *r, const char *what)
{
    const char *w = ap_word(r);
    char q[AP_QUOTE + 4];
    if (w)
        return ap_fail(r, "unexpected '%s' after %s", ap_quote(w, q, sizeof q), what);
    return 0;
}

/* A whole word that is a number lo..hi; `what` names it. */
static int ap_number(ap_reader *r, const char *w, const char *what, int lo, int hi, int *out)
{
    char q[AP_QUOTE + 4];
    if (!w)
        return -1; /* ap_need said why */
    long v = 0;
    const char *p = w;
    for (; *p >= '0' && *p <= '9'; p++)
        v = v > 100000 ? v : v * 10 + (*p - '0'); /* a long number stays too large */
    if (p == w || *p)
        return ap_fail(r, "%s must be a number, not '%s'", what, ap_quote(w, q, sizeof q));
    if (v < lo || v > hi)
        return ap_fail(r, "%s is %s, but it must be %d to %d", what, ap_quote(w, q, sizeof q), lo, hi);
    *out = (int)v;
    return 0;
}

/* The next word as a number lo..hi. */
static int ap_next_number(ap_reader *r, const char *what, int lo, int hi, int *out)
{
    return ap_number(r, ap_need(r, what), what, lo, hi, out);
}

/* A square of the board as the notation writes it: "c5" is column c, row 5. */
static int ap_square(ap_reader *r, const char *w, int *sq)
{
    char q[AP_QUOTE + 4];
    if (!w)
        return -1;
    int row = 0;
    const char *p = w + 1;
    for (; *p >= '0' && *p <= '9'; p++)
        row = row > 1000 ? row : row * 10 + (*p - '0');
    bool letter = w[0] >= 'a' && w[0] <= 'z', digits = p > w + 1 && !*p && w[1] != '0';
    if (!letter || !digits)
        return ap_fail(r, "'%s' is not a square: write a column letter and a row number, e.g. c5",
                       ap_quote(w, q, sizeof q));
    if (w[0] >= 'a' + ARK_W || row < 1 || row > ARK_H)
        return ap_fail(r, "square %s is off the board (columns a to p, rows 1 to 12)", ap_quote(w, q, sizeof q));
    *sq = (row - 1) * ARK_W + (w[0] - 'a');
    return 0;
}

/* An offset "X,Y" inside a shape or the lot, each 0..ARK_MAX_LOT-1. */
static int ap_offset(ap_reader *r, const char *w, int *x, int *y)
{
    char q[AP_QUOTE + 4];
    if (!w)
        return -1;
    bool ok = w[0] >= '0' && w[0] <= '9' && w[1] == ',' && w[2] >= '0' && w[2] <= '9' && !w[3];
    if (!ok)
        return ap_fail(r, "'%s' is not an offset: write X,Y with two digits, e.g. 2,1", ap_quote(w, q, sizeof q));
    *x = w[0] - '0';
    *y = w[2] - '0';
    if (*x >= ARK_MAX_LOT || *y >= ARK_MAX_LOT)
        return ap_fail(r, "offset %s is too far: X and Y run from 0 to %d", w, ARK_MAX_LOT - 1);
    return 0;
}

/* A name: 1 to ARK_NAME_LEN-1 bytes of lower-case letters, digits and '-'. */
static int ap_name(ap_reader *r, const char *w, const char *what, char *out)
{
    char q[AP_QUOTE + 4];
    if (!w)
        return -1;
    size_t len = strlen(w);
    bool ok = len < ARK_NAME_LEN;
    for (const char *p = w; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-';
    if (!ok)
        return ap_fail(r, "%s '%s' must be at most %d lower-case letters, digits or '-'", what,
                       ap_quote(w, q, sizeof q), ARK_NAME_LEN - 1);
    memcpy(out, w, len + 1);
    return 0;
}

/* The index of a family given above (`none_ok`: "none" is ARK_NO_FAMILY). */
static int ap_family(ap_reader *r, const char *w, bool none_ok, int *out)
{
    char q[AP_QUOTE + 4];
    if (!w)
        return -1;
    if (none_ok && strcmp(w, "none") == 0) {
        *out = ARK_NO_FAMILY;
        return 0;
    }
    for (int k = 0; k < r->families; k++)
        if (strcmp(w, r->out->family[k]) == 0) {
            *out = k;
            return 0;
        }
    return ap_fail(r, "unknown family '%s'%s (the families must be given above this line)",
                   ap_quote(w, q, sizeof q), none_ok ? " (or 'none')" : "");
}

/* The index of a form given above. */
static int ap_form(ap_reader *r, const char *w, int *out)
{
    char q[AP_QUOTE + 4];
    if (!w)
        return -1;
    for (int f = 0; f < r->forms; f++)
        if (strcmp(w, r->out->form[f].name) == 0) {
            *out = f;
            return 0;
        }
    return ap_fail(r, "unknown form '%s' (the forms must be given above this line)", ap_quote(w, q, sizeof q));
}

/* A thing given once: refuses a second line. */
static int ap_once(ap_reader *r, int *seen_line, const char *what)
{
    if (*seen_line)
        return ap_fail(r, "%s is given twice (first on line %d)", what, *seen_line);
    *seen_line = r->line;
    return 0;
}

/* "c5" for a square 0..ARK_SQUARES-1. */
static void ap_square_name(int sq, char out[4])
{
    int row = sq / ARK_W + 1;
    out[0] = (char)('a' + sq % ARK_W);
    out[1] = (char)(row >= 10 ? '1' : '0' + row);
    out[2] = (char)(row >= 10 ? '0' + row - 10 : '\0');
    out[3] = '\0';
}

/* ---- shapes ---- */

static tb_shape ap_turn(tb_shape s) /* a quarter turn */
{
    for (int i = 0; i < s.n; i++) {
        int x = s.x[i];
        s.x[i] = -s.y[i];
        s.y[i] = x;
    }
    tb__shape_normalise(&s);
    return s;
}

static tb_shape ap_mirror(tb_shape s)
{
    for (int i = 0; i < s.n; i++)
        s.x[i] = -s.x[i];
    tb__shape_normalise(&s);
    return s;
}

/* Fills form f's orientations from its shape: the distinct quarter turns
 * first, then the mirror images not already there; each with its mask on a1
 * and the corners where it stays on the board. */
static void ap_orientations(ark_form *f, const tb_shape *shape)
{
    tb_shape found[ARK_MAX_ORIENT], s = *shape;
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            f->rotations = (uint8_t)n;
            s = ap_mirror(*shape);
        }
        for (int t = 0; t < 4; t++, s = ap_turn(s)) {
            bool dup = false;
            for (int k = 0; k < n; k++)
                dup |= tb__shape_same(&found[k], &s);
            if (!dup)
                found[n++] = s;
        }
    }
    f->orients = (uint8_t)n;
    for (int o = 0; o < n; o++) {
        ark_orient *or = &f->orient[o];
        int w = 0, h = 0;
        for (int i = 0; i < found[o].n; i++) {
            or->dx[i] = (uint8_t)found[o].x[i];
            or->dy[i] = (uint8_t)found[o].y[i];
            w = found[o].x[i] + 1 > w ? found[o].x[i] + 1 : w;
            h = found[o].y[i] + 1 > h ? found[o].y[i] + 1 : h;
            ark_bb_set(&or->base, found[o].y[i] * ARK_W + found[o].x[i]);
        }
        or->w = (uint8_t)w;
        or->h = (uint8_t)h;
        for (int y = 0; y + h <= ARK_H; y++)
            for (int x = 0; x + w <= ARK_W; x++)
                ark_bb_set(&or->anchors, y * ARK_W + x);
    }
}

/* ---- one line each ---- */

static int ap_board(ap_reader *r)
{
    int w, h;
    if (ap_once(r, &r->board_line, "the board") || ap_next_number(r, "the board's width", 1, 99, &w) ||
        ap_next_number(r, "the board's height", 1, 99, &h) || ap_end(r, "the board's size"))
        return -1;
    if (w != ARK_W || h != ARK_H)
        return ap_fail(r, "the board is %d x %d squares, but the engine's bit boards hold exactly %d x %d", w, h,
                       ARK_W, ARK_H);
    return 0;
}

/* The name the built-in board gives the n-th thing, when names must match. */
static int ap_same_name(ap_reader *r, const char *given, const char *builtin, const char *what, int n)
{
    if (r->names && strcmp(given, builtin) != 0)
        return ap_fail(r, "%s %d must be called '%s' as on the built-in board (moves, saved games and the "
                       "screens use these names), not '%s'", what, n, builtin, given);
    return 0;
}

static int ap_family_line(ap_reader *r)
{
    ark_data *d = r->out;
    if (r->families == ARK_FAMILIES)
        return ap_fail(r, "a fifth family: Arkadia has exactly %d families (seal colours)", ARK_FAMILIES);
    int k = r->families;
    if (ap_name(r, ap_need(r, "the family's name"), "the family name", d->family[k]))
        return -1;
    for (int i = 0; i < k; i++)
        if (strcmp(d->family[i], d->family[k]) == 0)
            return ap_fail(r, "family %s is given twice", d->family[k]);
    if (ap_same_name(r, d->family[k], r->names ? r->names->family[k] : "", "family", k + 1))
        return -1;
    size_t used = 0;
    for (const char *w; (w = ap_word(r)) != NULL;) {
        size_t len = strlen(w);
        if (used + (used > 0) + len >= ARK_TITLE_LEN)
            return ap_fail(r, "the family's title is longer than %d characters", ARK_TITLE_LEN - 1);
        if (used)
            d->family_title[k][used++] = ' ';
        memcpy(d->family_title[k] + used, w, len + 1);
        used += len;
    }
    r->families++;
    return 0;
}

static int ap_players(ap_reader *r)
{
    ark_data *d = r->out;
    if (ap_once(r, &r->players_line, "the players' colours"))
        return -1;
    for (int p = 0; p < ARK_SEATS; p++) {
        if (ap_name(r, ap_need(r, "a player colour (there are 4)"), "the player colour", d->seat_colour[p]) ||
            ap_same_name(r, d->seat_colour[p], r->names ? r->names->seat_colour[p] : "", "player colour", p + 1))
            return -1;
        for (int i = 0; i < p; i++)
            if (strcmp(d->seat_colour[i], d->seat_colour[p]) == 0)
                return ap_fail(r, "player colour %s is given twice", d->seat_colour[p]);
    }
    return ap_end(r, "the 4 player colours");
}

static int ap_tents(ap_reader *r)
{
    ark_data *d = r->out;
    int count = 0;
    for (const char *w; (w = ap_word(r)) != NULL; count++) {
        int sq;
        if (ap_square(r, w, &sq))
            return -1;
        if (ark_bb_has(d->tents, sq))
            return ap_fail(r, "the tent on %s is given twice", w);
        ark_bb_set(&d->tents, sq);
    }
    if (!count)
        return ap_fail(r, "a tents line must list the tent camps' squares, e.g. tents e1 i1");
    return 0;
}

static int ap_lot(ap_reader *r)
{
    ark_data *d = r->out;
    int w, h;
    if (ap_once(r, &r->lot_line, "the castle lot") ||
        ap_next_number(r, "the lot's width", 1, ARK_MAX_LOT, &w) ||
        ap_next_number(r, "the lot's height", 1, ARK_MAX_LOT, &h) || ap_end(r, "the lot's size"))
        return -1;
    if (w * h < ARK_CASTLE)
        return ap_fail(r, "a %d x %d lot has no room for the %d castle squares", w, h, ARK_CASTLE);
    d->lot_w = (uint8_t)w;
    d->lot_h = (uint8_t)h;
    return 0;
}

static int ap_castle(ap_reader *r)
{
    ark_data *d = r->out;
    int n = 0, x = 0, y = 0, seal = 0;
    if (ap_next_number(r, "the castle square's number", 1, ARK_CASTLE, &n))
        return -1;
    n--;
    if (r->castle_line[n])
        return ap_fail(r, "castle square %d is given twice (first on line %d)", n + 1, r->castle_line[n]);
    if (ap_keyword(r, "at", "after the castle square's number") || ap_offset(r, ap_need(r, "the offset X,Y"), &x, &y) ||
        ap_keyword(r, "seal", "after the offset") || ap_family(r, ap_need(r, "the seal's family"), true, &seal) ||
        ap_end(r, "the seal"))
        return -1;
    for (int m = 0; m < ARK_CASTLE; m++)
        if (r->castle_line[m] && d->castle_x[m] == x && d->castle_y[m] == y)
            return ap_fail(r, "castle squares %d and %d are both at %d,%d", m + 1, n + 1, x, y);
    r->castle_line[n] = r->line;
    d->castle_x[n] = (uint8_t)x;
    d->castle_y[n] = (uint8_t)y;
    d->castle_seal[n] = (uint8_t)seal;
    return 0;
}

static int ap_form_line(ap_reader *r)
{
    ark_data *d = r->out;
    char q[AP_QUOTE + 4];
    if (r->forms == ARK_FORMS)
        return ap_fail(r, "an eighth form: Arkadia has exactly %d building forms", ARK_FORMS);
    int number, tiles;
    ark_form *f = &d->form[r->forms];
    tb_shape *s = &r->shape[r->forms];
    if (ap_next_number(r, "the form's number", 1, ARK_FORMS, &number))
        return -1;
    if (number != r->forms + 1)
        return ap_fail(r, "form %d comes here, but the forms must be listed in order 1 to %d", number, ARK_FORMS);
    if (ap_name(r, ap_need(r, "the form's name"), "the form name", f->name) ||
        ap_same_name(r, f->name, r->names ? r->names->form[r->forms].name : "", "form", number))
        return -1;
    for (int i = 0; i < r->forms; i++)
        if (strcmp(d->form[i].name, f->name) == 0)
            return ap_fail(r, "form %s is given twice", f->name);
    if (ap_keyword(r, "tiles", "after the form's name") ||
        ap_next_number(r, "the number of tiles", 1, ARK_CARDS, &tiles) ||
        ap_keyword(r, "cells", "after the number of tiles"))
        return -1;
    for (const char *w; (w = ap_word(r)) != NULL;) {
        if (s->n == ARK_MAX_CELLS)
            return ap_fail(r, "%s covers more than %d squares, the most a building may cover", f->name,
                           ARK_MAX_CELLS);
        if (ap_offset(r, w, &s->x[s->n], &s->y[s->n]))
            return -1;
        for (int i = 0; i < s->n; i++)
            if (s->x[i] == s->x[s->n] && s->y[i] == s->y[s->n])
                return ap_fail(r, "cell %s of %s is given twice", ap_quote(w, q, sizeof q), f->name);
        s->n++;
    }
    if (s->n < 2)
        return ap_fail(r, "%s covers %d square%s, but a building covers 2 to %d", f->name, s->n,
                       s->n == 1 ? "" : "s", ARK_MAX_CELLS);
    if (!tb__shape_connected(s))
        return ap_fail(r, "the squares of %s are not connected: a building is one piece, each square "
                       "touching another along a side", f->name);
    tb__shape_normalise(s);
    f->number = (uint8_t)number;
    f->tiles = (uint8_t)tiles;
    f->cells = (uint8_t)s->n;
    ap_orientations(f, s);
    r->forms++;
    return 0;
}

/* FAMILY COUNT four times, each family once; counts lo..hi. */
static int ap_family_counts(ap_reader *r, int hi, uint8_t out[ARK_FAMILIES], const char *what)
{
    bool seen[ARK_FAMILIES] = {false};
    for (int i = 0; i < ARK_FAMILIES; i++) {
        int k = 0, n = 0;
        if (ap_family(r, ap_need(r, "a family (each of the 4 with its count)"), false, &k))
            return -1;
        if (seen[k])
            return ap_fail(r, "family %s is given twice", r->out->family[k]);
        seen[k] = true;
        if (ap_next_number(r, what, 0, hi, &n))
            return -1;
        out[k] = (uint8_t)n;
    }
    return ap_end(r, "the 4 families");
}

static int ap_cards(ap_reader *r)
{
    int f = 0;
    if (r->families < ARK_FAMILIES)
        return ap_fail(r, "the cards come before all %d families are given", ARK_FAMILIES);
    if (ap_form(r, ap_need(r, "the form"), &f))
        return -1;
    if (r->cards_line[f])
        return ap_fail(r, "the cards of %s are given twice (first on line %d)", r->out->form[f].name,
                       r->cards_line[f]);
    r->cards_line[f] = r->line;
    return ap_family_counts(r, ARK_CARDS, r->out->cards[f], "the number of cards");
}

static int ap_hand(ap_reader *r)
{
    int hand, display;
    if (ap_once(r, &r->hand_line, "the hand size") ||
        ap_next_number(r, "the hand size", 1, ARK_HAND, &hand) ||
        ap_keyword(r, "display", "after the hand size") ||
        ap_next_number(r, "the number of face-up cards", 1, ARK_DISPLAY, &display) ||
        ap_end(r, "the number of face-up cards"))
        return -1;
    r->out->hand = (uint8_t)hand;
    r->out->display = (uint8_t)display;
    return 0;
}

static int ap_pieces(ap_reader *r)
{
    int floor;
    if (r->families < ARK_FAMILIES)
        return ap_fail(r, "the castle pieces come before all %d families are given", ARK_FAMILIES);
    if (ap_next_number(r, "the floor", 1, ARK_FLOORS, &floor))
        return -1;
    if (r->pieces_line[floor - 1])
        return ap_fail(r, "the pieces of floor %d are given twice (first on line %d)", floor,
                       r->pieces_line[floor - 1]);
    r->pieces_line[floor - 1] = r->line;
    return ap_family_counts(r, ARK_MAX_PIECES, r->out->pieces[floor - 1], "the number of pieces");
}

static int ap_workers(ap_reader *r)
{
    ark_data *d = r->out;
    int own, start, banners, per, neutral;
    if (ap_once(r, &r->workers_line, "the workers") || ap_keyword(r, "own", "first") ||
        ap_next_number(r, "own workers", 1, ARK_MAX_OWN, &own) || ap_keyword(r, "start", "after own") ||
        ap_next_number(r, "start workers", 1, ARK_MAX_OWN, &start) || ap_keyword(r, "banners", "after start") ||
        ap_next_number(r, "banners", 0, 10, &banners) || ap_keyword(r, "per-banner", "after banners") ||
        ap_next_number(r, "workers per banner", 0, 10, &per) || ap_keyword(r, "neutral", "after per-banner") ||
        ap_next_number(r, "neutral workers", 0, ARK_MAX_NEUTRAL, &neutral) || ap_end(r, "the neutral workers"))
        return -1;
    if (start + banners * per > own)
        return ap_fail(r, "%d start workers and %d banners of %d workers need %d own workers, but there are %d",
                       start, banners, per, start + banners * per, own);
    d->own_workers = (uint8_t)own;
    d->start_workers = (uint8_t)start;
    d->banners = (uint8_t)banners;
    d->per_banner = (uint8_t)per;
    d->neutral = (uint8_t)neutral;
    return 0;
}

static int ap_first_neutral(ap_reader *r)
{
    char q[AP_QUOTE + 4];
    if (ap_once(r, &r->first_neutral_line, "the first game's neutral workers"))
        return -1;
    for (const char *w; (w = ap_word(r)) != NULL;) {
        bool ok = w[0] >= '2' && w[0] <= '4' && w[1] == ':' && w[2] >= '0' && w[2] <= '9' &&
                  (!w[3] || (w[3] >= '0' && w[3] <= '9' && !w[4] && w[2] != '0'));
        if (!ok)
            return ap_fail(r, "'%s' is not PLAYERS:WORKERS with 2 to 4 players and up to 10 workers, e.g. 3:2",
                           ap_quote(w, q, sizeof q));
        int p = w[0] - '0', n = atoi(w + 2);
        if (n > 10)
            return ap_fail(r, "'%s': at most 10 neutral workers per player", w);
        if (r->first_neutral_seen[p])
            return ap_fail(r, "the neutral workers for %d players are given twice", p);
        r->first_neutral_seen[p] = true;
        r->out->first_neutral[p] = (uint8_t)n;
    }
    for (int p = 2; p <= ARK_SEATS; p++)
        if (!r->first_neutral_seen[p])
            return ap_fail(r, "the neutral workers for %d players are missing (give 2:N 3:N 4:N)", p);
    return 0;
}

static int ap_first_building(ap_reader *r)
{
    ark_data *d = r->out;
    if (d->first_count == ARK_MAX_FIRST)
        return ap_fail(r, "more than %d first-game buildings", ARK_MAX_FIRST);
    int b = d->first_count, form = 0, family = 0, count = 0;
    if (r->families < ARK_FAMILIES)
        return ap_fail(r, "the first-game buildings come before all %d families are given", ARK_FAMILIES);
    if (ap_form(r, ap_need(r, "the building's form"), &form) ||
        ap_family(r, ap_need(r, "the building's family"), false, &family))
        return -1;
    for (const char *w; (w = ap_word(r)) != NULL; count++) {
        int sq;
        if (ap_square(r, w, &sq))
            return -1;
        if (ark_bb_has(r->first_cells[b], sq))
            return ap_fail(r, "square %s is given twice", w);
        if (count == d->form[form].cells)
            return ap_fail(r, "too many squares: a %s covers %d", d->form[form].name, d->form[form].cells);
        ark_bb_set(&r->first_cells[b], sq);
    }
    if (count != d->form[form].cells)
        return ap_fail(r, "a %s covers %d squares, but %d are given", d->form[form].name, d->form[form].cells, count);
    d->first[b].form = (uint8_t)form;
    d->first[b].family = (uint8_t)family;
    r->first_line[b] = r->line;
    d->first_count++;
    return 0;
}

static int ap_first_game(ap_reader *r)
{
    char q[AP_QUOTE + 4];
    const char *what = ap_need(r, "what the line sets up (neutral, lot or building)");
    if (!what)
        return -1;
    if (strcmp(what, "neutral") == 0)
        return ap_first_neutral(r);
    if (strcmp(what, "building") == 0)
        return ap_first_building(r);
    if (strcmp(what, "lot") == 0) {
        int sq;
        if (ap_once(r, &r->first_lot_line, "the first game's castle lot") ||
            ap_square(r, ap_need(r, "the lot's top-left square"), &sq) || ap_end(r, "the lot's square"))
            return -1;
        r->out->first_lot = (uint8_t)sq;
        return 0;
    }
    return ap_fail(r, "unknown first-game item '%s': expected neutral, lot or building", ap_quote(what, q, sizeof q));
}

/* One line, already in r->buf. */
static int ap_line(ap_reader *r)
{
    char q[AP_QUOTE + 4];
    r->cursor = r->buf;
    const char *w = ap_word(r);
    if (!w || w[0] == '#')
        return 0;
    static const struct {
        const char *word;
        int (*read)(ap_reader *r);
    } kinds[] = {
        {"board", ap_board},   {"family", ap_family_line}, {"players", ap_players}, {"tents", ap_tents},
        {"lot", ap_lot},       {"castle", ap_castle},      {"form", ap_form_line}, {"cards", ap_cards},
        {"hand", ap_hand},     {"pieces", ap_pieces},      {"workers", ap_workers}, {"first-game", ap_first_game},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(w, kinds[i].word) == 0)
            return kinds[i].read(r);
    return ap_fail(r, "unknown line '%s': a line starts with board, family, players, tents, lot, castle, form, "
                   "cards, hand, pieces, workers or first-game (or # for a comment)", ap_quote(w, q, sizeof q));
}

/* ---- the whole file ---- */

/* Everything given once must be there. */
static int ap_complete(ap_reader *r)
{
    static const char *const what[] = {"board", "players", "lot", "hand", "workers"};
    const int lines[] = {r->board_line, r->players_line, r->lot_line, r->hand_line, r->workers_line};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!lines[i])
            return ap_fail(r, "the '%s' line is missing", what[i]);
    if (r->families != ARK_FAMILIES)
        return ap_fail(r, "%d families are given; Arkadia has exactly %d", r->families, ARK_FAMILIES);
    if (r->forms != ARK_FORMS)
        return ap_fail(r, "%d forms are given; Arkadia has exactly %d", r->forms, ARK_FORMS);
    for (int n = 0; n < ARK_CASTLE; n++)
        if (!r->castle_line[n])
            return ap_fail(r, "castle square %d is missing (the castle has %d squares)", n + 1, ARK_CASTLE);
    for (int f = 0; f < ARK_FORMS; f++)
        if (!r->cards_line[f])
            return ap_fail(r, "the cards of %s are missing", r->out->form[f].name);
    for (int fl = 0; fl < ARK_FLOORS; fl++)
        if (!r->pieces_line[fl])
            return ap_fail(r, "the castle pieces of floor %d are missing", fl + 1);
    if (!r->first_neutral_line)
        return ap_fail(r, "the 'first-game neutral' line is missing");
    if (!r->first_lot_line)
        return ap_fail(r, "the 'first-game lot' line is missing");
    return 0;
}

/* Counts that must agree across lines: the castle inside the lot, one card
 * per tile and 40 in all, floors 1 and 2 able to fill (the end of the game
 * comes when floor 2 is full), enough neutral workers for the first game. */
static int ap_counts(ap_reader *r)
{
    const ark_data *d = r->out;
    for (int n = 0; n < ARK_CASTLE; n++)
        if (d->castle_x[n] >= d->lot_w || d->castle_y[n] >= d->lot_h) {
            r->line = r->castle_line[n];
            return ap_fail(r, "castle square %d at %d,%d lies outside the %d x %d lot (line %d)", n + 1,
                           d->castle_x[n], d->castle_y[n], d->lot_w, d->lot_h, r->lot_line);
        }
    int total = 0;
    for (int f = 0; f < ARK_FORMS; f++) {
        int sum = 0;
        for (int k = 0; k < ARK_FAMILIES; k++)
            sum += d->cards[f][k];
        if (sum != d->form[f].tiles) {
            r->line = r->cards_line[f];
            return ap_fail(r, "%d cards of %s, but it has %d tiles (one card per tile)", sum, d->form[f].name,
                           d->form[f].tiles);
        }
        total += sum;
    }
    if (total != ARK_CARDS) {
        r->line = 0;
        return ap_fail(r, "the tiles and cards add up to %d; Arkadia has exactly %d", total, ARK_CARDS);
    }
    for (int fl = 0; fl < 2; fl++) {
        int sum = 0;
        for (int k = 0; k < ARK_FAMILIES; k++)
            sum += d->pieces[fl][k];
        if (sum < ARK_CASTLE) {
            r->line = r->pieces_line[fl];
            return ap_fail(r, "floor %d has %d castle pieces, too few to fill its %d castle squares", fl + 1, sum,
                           ARK_CASTLE);
        }
    }
    for (int p = 2; p <= ARK_SEATS; p++)
        if (p * d->first_neutral[p] > d->neutral) {
            r->line = r->first_neutral_line;
            return ap_fail(r, "%d players with %d neutral workers each need %d, but there are %d (line %d)", p,
                           d->first_neutral[p], p * d->first_neutral[p], d->neutral, r->workers_line);
        }
    return 0;
}

/* The lot's mask and places; the first-game lot and buildings must fit. */
static int ap_layout(ap_reader *r)
{
    ark_data *d = r->out;
    char name[4];
    for (int y = 0; y < d->lot_h; y++)
        for (int x = 0; x < d->lot_w; x++)
            ark_bb_set(&d->lot_base, y * ARK_W + x);
    for (int sq = 0; sq < ARK_SQUARES; sq++)
        if (sq % ARK_W + d->lot_w <= ARK_W && sq / ARK_W + d->lot_h <= ARK_H &&
            !ark_bb_any(ark_bb_and(ark_bb_shl(d->lot_base, sq), d->tents)))
            ark_bb_set(&d->lot_anchors, sq);
    if (!ark_bb_any(d->lot_anchors)) {
        r->line = r->lot_line;
        return ap_fail(r, "the %d x %d castle lot fits nowhere on the board without covering a tent", d->lot_w,
                       d->lot_h);
    }
    r->line = r->first_lot_line;
    ap_square_name(d->first_lot, name);
    if (d->first_lot % ARK_W + d->lot_w > ARK_W || d->first_lot / ARK_W + d->lot_h > ARK_H)
        return ap_fail(r, "the castle lot at %s runs off the board (it is %d x %d squares and %s is its top-left "
                       "square)", name, d->lot_w, d->lot_h, name);
    ark_bb lot = ark_bb_shl(d->lot_base, d->first_lot), used = lot;
    if (ark_bb_any(ark_bb_and(lot, d->tents))) {
        char tent[4];
        ap_square_name(ark_bb_first(ark_bb_and(lot, d->tents)), tent);
        return ap_fail(r, "the castle lot at %s covers the tent on %s", name, tent);
    }
    /* each building: on free squares, a quarter turn of its form (so the
     * layout is legal with or without mirror=on), no more than its cards */
    int left[ARK_FORMS][ARK_FAMILIES];
    for (int f = 0; f < ARK_FORMS; f++)
        for (int k = 0; k < ARK_FAMILIES; k++)
            left[f][k] = d->cards[f][k];
    for (int b = 0; b < d->first_count; b++) {
        ark_first_building *fb = &d->first[b];
        const ark_form *f = &d->form[fb->form];
        r->line = r->first_line[b];
        tb_shape s = {0, {0}, {0}};
        int mx = ARK_W, my = ARK_H;
        for (int sq = 0; sq < ARK_SQUARES; sq++) {
            if (!ark_bb_has(r->first_cells[b], sq))
                continue;
            ap_square_name(sq, name);
            if (ark_bb_has(lot, sq))
                return ap_fail(r, "square %s is under the castle lot", name);
            for (int other = 0; other < b; other++)
                if (ark_bb_has(r->first_cells[other], sq))
                    return ap_fail(r, "square %s is already taken by the building on line %d", name,
                                   r->first_line[other]);
            if (ark_bb_has(d->tents, sq))
                return ap_fail(r, "square %s is a tent camp; buildings are never laid on a tent", name);
            s.x[s.n] = sq % ARK_W;
            s.y[s.n] = sq / ARK_W;
            mx = s.x[s.n] < mx ? s.x[s.n] : mx;
            my = s.y[s.n] < my ? s.y[s.n] : my;
            s.n++;
        }
        used = ark_bb_or(used, r->first_cells[b]);
        tb__shape_normalise(&s);
        int orient = -1;
        for (int o = 0; o < f->rotations && orient < 0; o++) {
            tb_shape t = {f->cells, {0}, {0}};
            for (int i = 0; i < f->cells; i++) {
                t.x[i] = f->orient[o].dx[i];
                t.y[i] = f->orient[o].dy[i];
            }
            if (tb__shape_same(&t, &s))
                orient = o;
        }
        if (orient < 0)
            return ap_fail(r, "these squares are not the shape of a %s (turned a quarter at a time, never "
                           "mirrored)", f->name);
        fb->orient = (uint8_t)orient;
        fb->anchor = (uint8_t)(my * ARK_W + mx);
        if (--left[fb->form][fb->family] < 0)
            return ap_fail(r, "more %s %s buildings than there are %s %s cards", f->name,
                           d->family[fb->family], f->name, d->family[fb->family]);
    }
    /* none enclosed from the start: the game pays a building when the last
     * square around it is taken, which never happens to these */
    for (int b = 0; b < d->first_count; b++)
        if (!ark_bb_any(ark_bb_andnot(ark_bb_around(r->first_cells[b]), used))) {
            r->line = r->first_line[b];
            return ap_fail(r, "this %s is enclosed from the start (every square around it is taken); leave a "
                           "square next to it free", d->form[d->first[b].form].name);
        }
    return 0;
}

int ark__data_parse(const char *text, size_t len, const char *file, const ark_data *names, ark_data *out,
                    char *err, size_t errlen)
{
    ap_reader r;
    memset(&r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    r.file = file && *file ? file : "board file";
    r.err = err;
    r.errlen = errlen;
    r.names = names;
    r.out = out;
    if (!text || len == 0)
        return ap_fail(&r, "the file is empty");
    for (size_t at = 0; at < len;) {
        const char *end = memchr(text + at, '\n', len - at);
        size_t n = end ? (size_t)(end - (text + at)) : len - at;
        r.line++;
        if (n > AP_LINE_MAX)
            return ap_fail(&r, "the line is longer than %d characters", AP_LINE_MAX);
        memcpy(r.buf, text + at, n);
        r.buf[n] = '\0';
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)r.buf[i];
            if ((c < 0x20 && c != '\t' && c != '\r') || c >= 0x7f)
                return ap_fail(&r, "character %zu of the line is not plain text (a board file is written in "
                               "letters, digits, spaces and ASCII punctuation)", i + 1);
        }
        if (ap_line(&r))
            return -1;
        at += n + 1;
    }
    r.line = 0;
    if (ap_complete(&r) || ap_counts(&r) || ap_layout(&r))
        return -1;
    return 0;
}
