/*
 * arkadia_text.c — everything of Arkadia that is text for people: the
 * notation (docs/notation.md, "Arkadia"), the one-line prompt and the
 * terminal board with its preview of where the chosen building or the
 * workers may go.
 *
 * Invariants: move_to_text and text_to_move round-trip exactly on every
 * legal decision (a placement is written as its squares in board order and
 * read in any order); the board drawn for a seat shows that seat's hand and
 * no other hidden card; every line fits in 100 columns.
 */
#include "arkadia.h"
#include "core/msg.h"
#include "core/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char *const ark__phase_name[ARK_PHASES] = {"lot",    "action", "place", "workers", "castle",
                                                 "draw",   "banner", "sale",  "over"};
const char *const ark__action_name[ARK_ACTIONS] = {"none", "build", "workers", "skip"};

static const char text_family_letter[ARK_FAMILIES + 1] = {'r', 'o', 'k', 's', '-'};
static const char text_seat_letter[ARK_SEATS + 1] = {'Y', 'O', 'G', 'V', 'n'};
static const char *const text_family_ansi[ARK_FAMILIES + 1] = {"\033[1;31m", "\033[33m", "\033[1;90m",
                                                               "\033[1;37m", "\033[2m"};
static const char *const text_seat_ansi[ARK_SEATS + 1] = {"\033[1;93m", "\033[1;38;5;208m",
                                                          "\033[1;32m", "\033[1;35m", "\033[37m"};
#define ANSI_RESET "\033[0m"
#define ANSI_BOLD "\033[1m"
#define ANSI_DIM "\033[2m"

int ark__square_text(int sq, char *buf, size_t buflen)
{
    char t[4];
    int n = 0, row = sq / ARK_W + 1;
    t[n++] = (char)('a' + sq % ARK_W);
    if (row >= 10)
        t[n++] = (char)('0' + row / 10);
    t[n++] = (char)('0' + row % 10);
    if (buflen) {
        size_t k = (size_t)n < buflen - 1 ? (size_t)n : buflen - 1;
        memcpy(buf, t, k);
        buf[k] = '\0';
    }
    return n;
}

int ark__parse_square(const char *p, int *sq)
{
    if (p[0] < 'a' || p[0] >= 'a' + ARK_W || !isdigit((unsigned char)p[1]))
        return 0;
    int row = p[1] - '0', len = 2;
    if (isdigit((unsigned char)p[2])) {
        row = row * 10 + (p[2] - '0');
        len = 3;
    }
    if (isdigit((unsigned char)p[len]) || row < 1 || row > ARK_H)
        return 0;
    *sq = (row - 1) * ARK_W + (p[0] - 'a');
    return len;
}

int ark__family_index(const char *name)
{
    const ark_data *d = ark__names();
    for (int k = 0; k < ARK_FAMILIES; k++)
        if (name && strcmp(name, d->family[k]) == 0)
            return k;
    return -1;
}

int ark__form_index(const char *name)
{
    const ark_data *d = ark__names();
    for (int f = 0; f < ARK_FORMS; f++)
        if (name && strcmp(name, d->form[f].name) == 0)
            return f;
    return -1;
}

int ark__card_text(int card, char *buf, size_t buflen)
{
    const ark_data *d = ark__names();
    return snprintf(buf, buflen, "%s %s", d->form[card / ARK_FAMILIES].name,
                    d->family[card % ARK_FAMILIES]);
}

int ark__parse_card(const char *text, int *card)
{
    char form[32], family[32], extra;
    if (!text || sscanf(text, "%31s %31s %c", form, family, &extra) != 2)
        return -1;
    int f = ark__form_index(form), k = ark__family_index(family);
    if (f < 0 || k < 0)
        return -1;
    *card = f * ARK_FAMILIES + k;
    return 0;
}

int ark__cells_text(ark_bb cells, char *buf, size_t buflen)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int w = 0; w < 3; w++)
        for (uint64_t m = cells.w[w]; m; m &= m - 1) {
            char t[8];
            int n = ark__square_text(w * 64 + __builtin_ctzll(m), t, sizeof t);
            if (used + (size_t)n + 2 > buflen)
                return (int)used;
            if (used)
                buf[used++] = '-';
            memcpy(buf + used, t, (size_t)n + 1);
            used += (size_t)n;
        }
    return (int)used;
}

int ark__move_to_text(const tb_state *s, tb_move m, char *buf, size_t buflen)
{
    const ark_data *d = ark__board((const arkadia_state *)s);
    int pl = ARK_PAYLOAD(m);
    char sq[8];
    switch (ARK_KIND(m)) {
    case ARK_K_LOT:
        ark__square_text(pl, sq, sizeof sq);
        return snprintf(buf, buflen, "lot %s", sq);
    case ARK_K_BUILD:
        return snprintf(buf, buflen, "build %s %s", d->form[pl / ARK_FAMILIES].name,
                        d->family[pl % ARK_FAMILIES]);
    case ARK_K_WORKERS:
        if (pl == ARK_LOT_TARGET)
            return snprintf(buf, buflen, "workers lot");
        ark__square_text(pl, sq, sizeof sq);
        return snprintf(buf, buflen, "workers %s", sq);
    case ARK_K_PLACE: {
        int form = pl >> 12, o = (pl >> 8) & 15;
        if (form >= ARK_FORMS || o >= d->form[form].orients)
            return snprintf(buf, buflen, "?");
        return ark__cells_text(ark_bb_shl(d->form[form].orient[o].base, pl & 0xff), buf, buflen);
    }
    case ARK_K_OWN:
    case ARK_K_NEUTRAL:
        ark__square_text(pl, sq, sizeof sq);
        return snprintf(buf, buflen, "%s %s", ARK_KIND(m) == ARK_K_OWN ? "own" : "neutral", sq);
    case ARK_K_STOP:
        return snprintf(buf, buflen, "stop");
    case ARK_K_CASTLE:
        return snprintf(buf, buflen, "castle %s %d", d->family[(pl >> 4) & 3], (pl & 15) + 1);
    case ARK_K_DRAW:
        if (pl == ARK_DRAW_STACK)
            return snprintf(buf, buflen, "draw stack");
        return snprintf(buf, buflen, "draw %s %s", d->form[(pl / ARK_FAMILIES) % ARK_FORMS].name,
                        d->family[pl % ARK_FAMILIES]);
    case ARK_K_BANNER:
        return snprintf(buf, buflen, "banner %s", pl ? "yes" : "no");
    case ARK_K_SELL:
        return snprintf(buf, buflen, "sell %s %d", d->family[(pl >> 8) & 3], pl & 0xff);
    default:
        return snprintf(buf, buflen, "?");
    }
}

/* ---- parsing ---- */

static int text_names(char *buf, size_t buflen, bool forms)
{
    const ark_data *d = ark__names();
    size_t used = 0;
    buf[0] = '\0';
    int n = forms ? ARK_FORMS : ARK_FAMILIES;
    for (int i = 0; i < n; i++) {
        int k = snprintf(buf + used, buflen - used, "%s%s", i ? ", " : "",
                         forms ? d->form[i].name : d->family[i]);
        if (k < 0 || (size_t)k >= buflen - used)
            break;
        used += (size_t)k;
    }
    return (int)used;
}

static int text_bad_family(const char *w, char *err, size_t errlen)
{
    char names[128];
    text_names(names, sizeof names, false);
    return tb__errf(err, errlen, "'%.*s' is not a family (families: %s)", TB__CLIP(w ? w : "", 20), names);
}

static int text_bad_form(const char *w, char *err, size_t errlen)
{
    char names[160];
    text_names(names, sizeof names, true);
    return tb__errf(err, errlen, "'%.*s' is not a building form (forms: %s)", TB__CLIP(w ? w : "", 20), names);
}

/* Reads "FORM FAMILY" from two words. */
static int text_card_words(char **w, int n, int *card, char *err, size_t errlen)
{
    if (n != 2)
        return tb__errf(err, errlen, "name a card as FORM FAMILY, e.g. 'house red'");
    int f = ark__form_index(w[0]), k = ark__family_index(w[1]);
    if (f < 0)
        return text_bad_form(w[0], err, errlen);
    if (k < 0)
        return text_bad_family(w[1], err, errlen);
    *card = f * ARK_FAMILIES + k;
    return 0;
}

static int text_one_square(const char *w, int *sq, char *err, size_t errlen)
{
    int len = w ? ark__parse_square(w, sq) : 0;
    if (!len || w[len])
        return tb__errf(err, errlen, "'%.*s' is not a square (columns a-p, rows 1-12, e.g. c7)",
                        TB__CLIP(w ? w : "", 20));
    return 0;
}

/* The building (index) covering sq, -1 for none, ARK_LOT_TARGET for the lot. */
static int text_building_at(const arkadia_state *a, int sq)
{
    const ark_data *d = ark__board(a);
    if (ark_bb_has(ark__lot_cells(a), sq))
        return ARK_LOT_TARGET;
    for (int i = 0; i < a->nbld; i++)
        if (ark_bb_has(ark__building_cells(d, &a->bld[i]), sq))
            return i;
    return -1;
}

static bool text_holds(const arkadia_state *a, int p, int card)
{
    for (int i = 0; i < a->hand_n[p]; i++)
        if (a->hand[p][i] / 2 == card)
            return true;
    return false;
}

/* Reads a placement: squares separated by '-', ',' or spaces, any order. */
static int text_placement(const arkadia_state *a, char **w, int nw, tb_move *out, char *err,
                          size_t errlen)
{
    const ark_data *d = ark__board(a);
    ark_bb cells = {{0, 0, 0}};
    int count = 0;
    for (int i = 0; i < nw; i++) {
        for (char *p = w[i]; *p;) {
            if (*p == '-' || *p == ',') {
                p++;
                continue;
            }
            int sq, len = ark__parse_square(p, &sq);
            if (!len || (p[len] && p[len] != '-' && p[len] != ','))
                return tb__errf(err, errlen,
                                "'%.*s' is not a square; a placement is written as the squares "
                                "the building covers, e.g. c3-d3 (see 'legal')",
                                TB__CLIP(w[i], 30));
            if (ark_bb_has(cells, sq))
                return tb__errf(err, errlen, "a square is named twice in '%.*s'", TB__CLIP(w[0], 30));
            ark_bb_set(&cells, sq);
            count++;
            p += len;
        }
    }
    if (a->phase != ARK_PH_PLACE)
        return tb__errf(err, errlen,
                        "illegal move: squares lay out a building, but no card is being played now "
                        "(first 'build FORM FAMILY')");
    int form = a->card / ARK_FAMILIES;
    const ark_form *f = &d->form[form];
    if (count != f->cells)
        return tb__errf(err, errlen, "illegal move: a %s covers %d squares, not %d", f->name,
                        f->cells, count);
    int corner = ARK_SQUARES, minx = ARK_W, miny = ARK_H;
    for (int sq = 0; sq < ARK_SQUARES; sq++)
        if (ark_bb_has(cells, sq)) {
            minx = sq % ARK_W < minx ? sq % ARK_W : minx;
            miny = sq / ARK_W < miny ? sq / ARK_W : miny;
        }
    corner = miny * ARK_W + minx;
    int orient = -1;
    for (int o = 0; o < f->orients && orient < 0; o++) {
        const ark_orient *or = &f->orient[o];
        if (!ark_bb_has(or->anchors, corner))
            continue;
        ark_bb at = ark_bb_shl(or->base, corner);
        if (at.w[0] == cells.w[0] && at.w[1] == cells.w[1] && at.w[2] == cells.w[2])
            orient = o;
    }
    if (orient < 0)
        return tb__errf(err, errlen, "illegal move: those squares are not the shape of a %s", f->name);
    if (orient >= ark__orients(a, form))
        return tb__errf(err, errlen,
                        "illegal move: that is a mirror image of the %s, not allowed with mirror=off",
                        f->name);
    ark_bb taken = ark_bb_and(cells, a->occ);
    if (ark_bb_any(taken)) {
        char sq[8];
        ark__square_text(ark_bb_first(taken), sq, sizeof sq);
        return tb__errf(err, errlen, "illegal move: %s is already occupied", sq);
    }
    if (!ark_bb_any(ark_bb_and(cells, ark_bb_around(a->occ))))
        return tb__errf(err, errlen,
                        "illegal move: the %s must touch a building, the castle lot or a worker "
                        "along a side (corners do not count)",
                        f->name);
    *out = ARK_MOVE(ARK_K_PLACE, form << 12 | orient << 8 | corner);
    return 0;
}

static int text_number(const char *w, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(w ? w : "", &end, 10);
    if (!w || !*w || *end || !isdigit((unsigned char)*w) || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int ark__text_to_move(const tb_state *s, const char *text, tb_move *out, char *err,
                      size_t errlen)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    char buf[TB_MOVE_TEXT * 2];
    if (strlen(text) >= sizeof buf)
        return tb__errf(err, errlen, "that decision is too long");
    snprintf(buf, sizeof buf, "%s", text);
    char *w[12];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == 12)
            return tb__errf(err, errlen, "too many words in '%.*s'", TB__CLIP(text, 40));
        w[n++] = t;
    }
    if (!n)
        return tb__errf(err, errlen, "an empty decision (type 'legal' to see them)");
    int p = ark__mover(a), sq, v, card;
    const char *cmd = w[0];
    if (strcmp(cmd, "lot") == 0) {
        if (n != 2 || text_one_square(w[1], &sq, err, errlen))
            return n != 2 ? tb__errf(err, errlen, "write 'lot SQUARE' with the lot's top-left square, e.g. lot g5") : -1;
        if (!ark_bb_has(d->lot_anchors, sq))
            return tb__errf(err, errlen, "illegal move: the lot at %s would cover a tent camp or leave the board", w[1]);
        *out = ARK_MOVE(ARK_K_LOT, sq);
        return 0;
    }
    if (strcmp(cmd, "build") == 0) {
        if (text_card_words(w + 1, n - 1, &card, err, errlen))
            return -1;
        if (a->phase == ARK_PH_ACTION && !text_holds(a, p, card))
            return tb__errf(err, errlen, "illegal move: you hold no %s %s card", w[1], w[2]);
        *out = ARK_MOVE(ARK_K_BUILD, card);
        return 0;
    }
    if (strcmp(cmd, "workers") == 0) {
        if (n != 2)
            return tb__errf(err, errlen, "write 'workers SQUARE' (a square of the building) or 'workers lot'");
        if (strcmp(w[1], "lot") == 0) {
            *out = ARK_MOVE(ARK_K_WORKERS, ARK_LOT_TARGET);
            return 0;
        }
        if (text_one_square(w[1], &sq, err, errlen))
            return -1;
        int b = text_building_at(a, sq);
        if (b < 0)
            return tb__errf(err, errlen, "illegal move: there is no building on %s", w[1]);
        if (b == ARK_LOT_TARGET) {
            *out = ARK_MOVE(ARK_K_WORKERS, ARK_LOT_TARGET);
            return 0;
        }
        const ark_building *bb = &a->bld[b];
        int first = ark_bb_first(d->form[bb->form].orient[bb->orient].base) + bb->anchor;
        *out = ARK_MOVE(ARK_K_WORKERS, first);
        return 0;
    }
    if (strcmp(cmd, "own") == 0 || strcmp(cmd, "neutral") == 0) {
        if (n != 2)
            return tb__errf(err, errlen, "write '%s SQUARE', e.g. %s d4", cmd, cmd);
        if (text_one_square(w[1], &sq, err, errlen))
            return -1;
        if (a->phase == ARK_PH_WORKER && !ark_bb_has(ark__worker_squares(a), sq))
            return tb__errf(err, errlen,
                            "illegal move: %s is not a free square next to the chosen building", w[1]);
        *out = ARK_MOVE(cmd[0] == 'o' ? ARK_K_OWN : ARK_K_NEUTRAL, sq);
        return 0;
    }
    if (strcmp(cmd, "stop") == 0) {
        if (n != 1)
            return tb__errf(err, errlen, "'stop' takes nothing after it");
        *out = ARK_MOVE(ARK_K_STOP, 0);
        return 0;
    }
    if (strcmp(cmd, "castle") == 0) {
        int k = n == 3 ? ark__family_index(w[1]) : -1;
        if (n != 3)
            return tb__errf(err, errlen, "write 'castle FAMILY N' with a castle square 1-10, e.g. castle black 3");
        if (k < 0)
            return text_bad_family(w[1], err, errlen);
        if (text_number(w[2], 1, ARK_CASTLE, &v))
            return tb__errf(err, errlen, "castle squares are numbered 1-10, not '%.*s'", TB__CLIP(w[2], 10));
        *out = ARK_MOVE(ARK_K_CASTLE, k << 4 | (v - 1));
        return 0;
    }
    if (strcmp(cmd, "draw") == 0) {
        if (n == 2 && strcmp(w[1], "stack") == 0) {
            *out = ARK_MOVE(ARK_K_DRAW, ARK_DRAW_STACK);
            return 0;
        }
        if (text_card_words(w + 1, n - 1, &card, err, errlen))
            return -1;
        *out = ARK_MOVE(ARK_K_DRAW, card);
        return 0;
    }
    if (strcmp(cmd, "banner") == 0) {
        if (n != 2 || (strcmp(w[1], "yes") != 0 && strcmp(w[1], "no") != 0))
            return tb__errf(err, errlen, "write 'banner yes' or 'banner no'");
        *out = ARK_MOVE(ARK_K_BANNER, w[1][0] == 'y');
        return 0;
    }
    if (strcmp(cmd, "sell") == 0) {
        int k = n == 3 ? ark__family_index(w[1]) : -1;
        if (n != 3)
            return tb__errf(err, errlen, "write 'sell FAMILY N', e.g. sell red 7 (0 keeps them all)");
        if (k < 0)
            return text_bad_family(w[1], err, errlen);
        if (text_number(w[2], 0, 255, &v))
            return tb__errf(err, errlen, "sell a number of seals from 0 up, not '%.*s'", TB__CLIP(w[2], 10));
        if (a->phase == ARK_PH_SALE && k == a->family && v > a->seals[p][k])
            return tb__errf(err, errlen, "illegal move: you have only %d %s seals", a->seals[p][k], w[1]);
        *out = ARK_MOVE(ARK_K_SELL, k << 8 | v);
        return 0;
    }
    if (ark__parse_square(cmd, &sq))
        return text_placement(a, w, n, out, err, errlen);
    return tb__errf(err, errlen,
                    "'%.*s' is not an Arkadia decision (lot, build, a placement such as c3-d3, "
                    "workers, own, neutral, stop, castle, draw, banner, sell; type 'legal')",
                    TB__CLIP(cmd, 30));
}

/* ---- the prompt ---- */

static const char *text_seat_colour(int seat)
{
    const ark_data *d = ark__names();
    return seat >= 0 && seat < ARK_SEATS ? d->seat_colour[seat] : "?";
}

json_t *ark__prompt_msg(const tb_state *s)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    int p = ark__mover(a);
    json_t *who = tb__msg_word(text_seat_colour(p));
    switch (a->phase) {
    case ARK_PH_LOT:
        return tb__msg(N_("seat {seat} ({colour}) places the castle lot: lot SQUARE (its top-left corner)"),
                       "seat:d colour:m", p + 1, who);
    case ARK_PH_ACTION:
        return tb__msg(N_("seat {seat} ({colour}): build FORM FAMILY (lay out a card) or workers SQUARE (next to that building)"),
                       "seat:d colour:m", p + 1, who);
    case ARK_PH_PLACE: {
        ark_bb masks[ARK_MAX_ORIENT];
        int form = a->card / ARK_FAMILIES, total = ark__placements(a, form, masks);
        char example[48] = "";
        for (int o = 0; o < ark__orients(a, form) && !example[0]; o++)
            if (ark_bb_any(masks[o]))
                ark__cells_text(ark_bb_shl(d->form[form].orient[o].base, ark_bb_first(masks[o])),
                                example, sizeof example);
        return tb__msg(N_("seat {seat} ({colour}) lays out {building}: type its squares, e.g. {example} ({places} places, marked +)"),
                       "seat:d colour:m building:m example:s places:d", p + 1, who,
                       tb__msg_phrase("the ", d->form[form].name, ""), example, total);
    }
    case ARK_PH_WORKER: {
        if (a->target_lot)
            return a->placed
                       ? tb__msg(N_("seat {seat} ({colour}) introduces workers at lot: own SQUARE, neutral SQUARE or stop"),
                                 "seat:d colour:m", p + 1, who)
                       : tb__msg(N_("seat {seat} ({colour}) introduces workers at lot: own SQUARE, neutral SQUARE"),
                                 "seat:d colour:m", p + 1, who);
        char sq[8];
        const ark_building *b = &a->bld[a->target];
        ark__square_text(ark_bb_first(d->form[b->form].orient[b->orient].base) + b->anchor, sq, sizeof sq);
        return a->placed
                   ? tb__msg(N_("seat {seat} ({colour}) introduces workers at {square}: own SQUARE, neutral SQUARE or stop"),
                             "seat:d colour:m square:s", p + 1, who, sq)
                   : tb__msg(N_("seat {seat} ({colour}) introduces workers at {square}: own SQUARE, neutral SQUARE"),
                             "seat:d colour:m square:s", p + 1, who, sq);
    }
    case ARK_PH_CASTLE:
        return tb__msg(N_("seat {seat} ({colour}) places a castle piece on floor {floor} ({left} to place): castle FAMILY N"),
                       "seat:d colour:m floor:d left:d", p + 1, who, ark__floor(a) + 1, a->castle_left);
    case ARK_PH_DRAW:
        return a->stack_n
                   ? tb__msg(N_("seat {seat} ({colour}) draws a card: draw FORM FAMILY (face up) or draw stack"),
                             "seat:d colour:m", p + 1, who)
                   : tb__msg(N_("seat {seat} ({colour}) draws a card: draw FORM FAMILY (face up)"),
                             "seat:d colour:m", p + 1, who);
    case ARK_PH_BANNER:
        return a->action == ARK_ACT_SKIP
                   ? tb__msg(N_("seat {seat} ({colour}) may use an architect banner ({left} left) after no possible action: banner yes or banner no"),
                             "seat:d colour:m left:d", p + 1, who, a->banners[p])
                   : tb__msg(N_("seat {seat} ({colour}) may use an architect banner ({left} left): banner yes or banner no"),
                             "seat:d colour:m left:d", p + 1, who, a->banners[p]);
    case ARK_PH_SALE:
        return tb__msg(N_("seat {seat} ({colour}) sells {family} seals (has {seals}, {gold} gold each): sell {notation} N"),
                       "seat:d colour:m family:m seals:d gold:d notation:s", p + 1, who,
                       tb__msg_word(d->family[a->family]), a->seals[p][a->family],
                       ark__value(a, a->family), d->family[a->family]);
    default:
        json_decref(who);
        return tb__msg_word(N_("the game is over"));
    }
}

int ark__prompt_text(const tb_state *s, char *buf, size_t buflen)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    int p = ark__mover(a);
    const char *who = text_seat_colour(p);
    switch (a->phase) {
    case ARK_PH_LOT:
        return snprintf(buf, buflen, "seat %d (%s) places the castle lot: lot SQUARE (its top-left corner)", p + 1, who);
    case ARK_PH_ACTION:
        return snprintf(buf, buflen,
                        "seat %d (%s): build FORM FAMILY (lay out a card) or workers SQUARE (next to that building)",
                        p + 1, who);
    case ARK_PH_PLACE: {
        ark_bb masks[ARK_MAX_ORIENT];
        int form = a->card / ARK_FAMILIES, total = ark__placements(a, form, masks);
        char example[48] = "";
        for (int o = 0; o < ark__orients(a, form) && !example[0]; o++)
            if (ark_bb_any(masks[o]))
                ark__cells_text(ark_bb_shl(d->form[form].orient[o].base, ark_bb_first(masks[o])),
                                example, sizeof example);
        return snprintf(buf, buflen, "seat %d (%s) lays out the %s: type its squares, e.g. %s (%d places, marked +)",
                        p + 1, who, d->form[form].name, example, total);
    }
    case ARK_PH_WORKER: {
        char sq[8] = "lot";
        if (!a->target_lot) {
            const ark_building *b = &a->bld[a->target];
            ark__square_text(ark_bb_first(d->form[b->form].orient[b->orient].base) + b->anchor, sq, sizeof sq);
        }
        return snprintf(buf, buflen, "seat %d (%s) introduces workers at %s: own SQUARE, neutral SQUARE%s",
                        p + 1, who, sq, a->placed ? " or stop" : "");
    }
    case ARK_PH_CASTLE:
        return snprintf(buf, buflen, "seat %d (%s) places a castle piece on floor %d (%d to place): castle FAMILY N",
                        p + 1, who, ark__floor(a) + 1, a->castle_left);
    case ARK_PH_DRAW:
        return snprintf(buf, buflen, "seat %d (%s) draws a card: draw FORM FAMILY (face up)%s", p + 1, who,
                        a->stack_n ? " or draw stack" : "");
    case ARK_PH_BANNER:
        return snprintf(buf, buflen, "seat %d (%s) may use an architect banner (%d left)%s: banner yes or banner no",
                        p + 1, who, a->banners[p], a->action == ARK_ACT_SKIP ? " after no possible action" : "");
    case ARK_PH_SALE:
        return snprintf(buf, buflen, "seat %d (%s) sells %s seals (has %d, %d gold each): sell %s N",
                        p + 1, who, d->family[a->family], a->seals[p][a->family],
                        ark__value(a, a->family), d->family[a->family]);
    default:
        return snprintf(buf, buflen, "the game is over");
    }
}

/* ---- the terminal board ---- */

typedef struct text_board {
    int owner[ARK_SQUARES]; /* building index, ARK_LOT_TARGET, or -1 */
    ark_bb preview;
} text_board;

static void text_owner_map(const arkadia_state *a, text_board *tb)
{
    const ark_data *d = ark__board(a);
    for (int sq = 0; sq < ARK_SQUARES; sq++)
        tb->owner[sq] = -1;
    ark_bb lot = ark__lot_cells(a);
    for (int sq = 0; sq < ARK_SQUARES; sq++)
        if (ark_bb_has(lot, sq))
            tb->owner[sq] = ARK_LOT_TARGET;
    for (int i = 0; i < a->nbld; i++) {
        ark_bb cells = ark__building_cells(d, &a->bld[i]);
        for (int sq = 0; sq < ARK_SQUARES; sq++)
            if (ark_bb_has(cells, sq))
                tb->owner[sq] = i;
    }
    tb->preview = (ark_bb){{0, 0, 0}};
    if (a->phase == ARK_PH_PLACE) {
        int form = a->card / ARK_FAMILIES;
        ark_bb masks[ARK_MAX_ORIENT];
        ark__placements(a, form, masks);
        for (int o = 0; o < ark__orients(a, form); o++)
            for (int w = 0; w < 3; w++)
                for (uint64_t m = masks[o].w[w]; m; m &= m - 1)
                    tb->preview = ark_bb_or(tb->preview, ark_bb_shl(d->form[form].orient[o].base,
                                                                    w * 64 + __builtin_ctzll(m)));
    } else if (a->phase == ARK_PH_WORKER) {
        tb->preview = ark__worker_squares(a);
    }
}

/* One square: two visible characters. */
static void text_square(tb_buf *b, const arkadia_state *a, const text_board *tb, int sq, bool colour)
{
    const ark_data *d = ark__board(a);
    const char *reset = colour ? ANSI_RESET : "";
    int own = tb->owner[sq];
    if (own == ARK_LOT_TARGET) {
        tb__buf_printf(b, "%s##%s", colour ? ANSI_DIM : "", reset);
        return;
    }
    if (own >= 0) {
        const ark_building *bl = &a->bld[own];
        int k = bl->done ? ARK_FAMILIES : bl->family;
        tb__buf_printf(b, "%s%d%s%c%s", colour ? ANSI_BOLD : "", d->form[bl->form].number,
                       colour ? text_family_ansi[k] : "", bl->done ? '*' : text_family_letter[k], reset);
        return;
    }
    for (int k = 0; k <= ARK_NEUTRAL; k++)
        if (ark_bb_has(a->workers[k], sq)) {
            tb__buf_printf(b, " %s%c%s", colour ? text_seat_ansi[k] : "", text_seat_letter[k], reset);
            return;
        }
    bool tent = ark_bb_has(d->tents, sq);
    if (ark_bb_has(tb->preview, sq))
        tb__buf_printf(b, "%s%c+%s", colour ? ANSI_BOLD : "", tent ? '^' : ' ', reset);
    else
        tb__buf_printf(b, " %s%c%s", colour && !tent ? ANSI_DIM : "", tent ? '^' : '.', reset);
}

#define TEXT_SIDE_LINES 24
#define TEXT_SIDE_WIDTH 64

typedef struct text_side {
    char line[TEXT_SIDE_LINES][TEXT_SIDE_WIDTH * 4]; /* room for colour codes */
    int n;
} text_side;

static void text_side_add(text_side *side, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_side_add(text_side *side, const char *fmt, ...)
{
    if (side->n >= TEXT_SIDE_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(side->line[side->n++], sizeof side->line[0], fmt, ap);
    va_end(ap);
}

static void text_counts(char *buf, size_t buflen, const uint8_t *count)
{
    snprintf(buf, buflen, "r%d o%d k%d s%d", count[0], count[1], count[2], count[3]);
}

static void text_castle_panel(const arkadia_state *a, text_side *side, bool colour)
{
    const ark_data *d = ark__board(a);
    const char *reset = colour ? ANSI_RESET : "";
    int at[4][4];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            at[y][x] = -1;
    for (int q = 0; q < ARK_CASTLE; q++)
        at[d->castle_y[q]][d->castle_x[q]] = q;
    text_side_add(side, "Castle: square, seal, height");
    for (int y = 0; y < d->lot_h; y++) {
        char row[TEXT_SIDE_WIDTH * 4] = " ";
        for (int x = 0; x < d->lot_w; x++) {
            size_t used = strlen(row);
            int q = at[y][x];
            if (q < 0) {
                snprintf(row + used, sizeof row - used, "  ....");
                continue;
            }
            int k = a->height[q] ? a->castle[q][a->height[q] - 1] : d->castle_seal[q];
            snprintf(row + used, sizeof row - used, " %2d %s%c%s%d", q + 1, colour ? text_family_ansi[k] : "",
                     text_family_letter[k], reset, a->height[q]);
        }
        text_side_add(side, "%s", row);
    }
    text_side_add(side, "Seal values %sr%d%s %so%d%s %sk%d%s %ss%d%s",
                  colour ? text_family_ansi[0] : "", ark__value(a, 0), reset,
                  colour ? text_family_ansi[1] : "", ark__value(a, 1), reset,
                  colour ? text_family_ansi[2] : "", ark__value(a, 2), reset,
                  colour ? text_family_ansi[3] : "", ark__value(a, 3), reset);
    int floor = ark__floor(a);
    for (int f = 0; f < ARK_FLOORS; f++) {
        char c[32];
        text_counts(c, sizeof c, a->pool[f]);
        text_side_add(side, "%c floor %d pool %s", f == floor ? '>' : ' ', f + 1, c);
    }
    if (a->trigger_turn >= 0)
        text_side_add(side, "Floor 2 full: final round");
}

static void text_cards_panel(const arkadia_state *a, text_side *side)
{
    text_side_add(side, "%s", "");
    text_side_add(side, "Face up %d, stack %d:", a->display_n, a->stack_n);
    for (int i = 0; i < a->display_n; i++) {
        char c[40];
        ark__card_text(a->display[i], c, sizeof c);
        text_side_add(side, "  %s", c);
    }
    text_side_add(side, "Neutral pool: %d workers", ark__neutral_pool(a));
}

static void text_board_lines(tb_buf *b, const arkadia_state *a, const text_side *side, bool colour)
{
    text_board tb;
    text_owner_map(a, &tb);
    tb__buf_printf(b, "    ");
    for (int x = 0; x < ARK_W; x++)
        tb__buf_printf(b, " %c%s", 'a' + x, x + 1 < ARK_W ? "  " : "");
    int line = 0;
    tb__buf_printf(b, "     %s\n", line < side->n ? side->line[line] : "");
    line++;
    for (int y = 0; y < ARK_H; y++) {
        tb__buf_printf(b, "%2d  ", y + 1);
        for (int x = 0; x < ARK_W; x++) {
            int sq = y * ARK_W + x;
            text_square(b, a, &tb, sq, colour);
            if (x + 1 < ARK_W) {
                int o = tb.owner[sq];
                bool joined = o >= 0 && o == tb.owner[sq + 1];
                tb__buf_printf(b, "%s", joined ? (o == ARK_LOT_TARGET ? "##" : "--") : "  ");
            }
        }
        tb__buf_printf(b, "    %s\n", line < side->n ? side->line[line] : "");
        line++;
        if (y + 1 == ARK_H)
            break;
        char under[ARK_W * 4 + 8];
        size_t u = 0;
        u += (size_t)snprintf(under + u, sizeof under - u, "    ");
        bool any = false;
        for (int x = 0; x < ARK_W; x++) {
            int sq = y * ARK_W + x, o = tb.owner[sq];
            bool joined = o >= 0 && o == tb.owner[sq + ARK_W];
            any |= joined;
            u += (size_t)snprintf(under + u, sizeof under - u, "%s%s", joined ? (o == ARK_LOT_TARGET ? "##" : " |") : "  ",
                                  x + 1 < ARK_W ? (joined && o == ARK_LOT_TARGET && tb.owner[sq + 1] == o ? "##" : "  ") : "");
        }
        (void)any;
        while (u > 0 && under[u - 1] == ' ')
            under[--u] = '\0';
        if (line < side->n) {
            tb__buf_printf(b, "%-70s%s\n", under, side->line[line]);
        } else {
            tb__buf_printf(b, "%s\n", under);
        }
        line++;
    }
}

static void text_player_line(tb_buf *b, const arkadia_state *a, int p, int seat, bool colour,
                             bool hide)
{
    const ark_data *d = ark__board(a);
    const char *reset = colour ? ANSI_RESET : "";
    int mover = ark__mover(a);
    tb__buf_printf(b, "%c %d %s%-6s%s%s", p == mover && a->phase != ARK_PH_OVER ? '>' : ' ', p,
                   colour ? text_seat_ansi[p] : "", d->seat_colour[p], reset, p == seat ? " (you)" : "      ");
    if (hide && p != seat && a->phase != ARK_PH_OVER) {
        /* behind the screen: the player chose not to keep count of it */
        tb__buf_printf(b, "  gold   ?  seals ?  ?  ?  ? ");
    } else {
        tb__buf_printf(b, "  gold %3d  seals", a->gold[p]);
        for (int k = 0; k < ARK_FAMILIES; k++)
            tb__buf_printf(b, " %s%c%s%-2d", colour ? text_family_ansi[k] : "", text_family_letter[k],
                           reset, a->seals[p][k]);
    }
    tb__buf_printf(b, " workers %d own %d neutral  banners %d  cards %d", a->screen[p], a->screen_neutral[p],
                   a->banners[p], a->hand_n[p]);
    int known = 0;
    for (int i = 0; i < a->hand_n[p]; i++)
        known += p != seat && (a->hand[p][i] & 1);
    if (known) {
        tb__buf_printf(b, "\n        known to all:");
        for (int i = 0; i < a->hand_n[p]; i++)
            if (a->hand[p][i] & 1) {
                char c[40];
                ark__card_text(a->hand[p][i] / 2, c, sizeof c);
                tb__buf_printf(b, " %s", c);
            }
    }
    tb__buf_printf(b, "\n");
}

char *ark__render_text(const tb_state *s, int seat, unsigned flags)
{
    bool colour = (flags & TB_RENDER_COLOUR) != 0;
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    tb_buf b = {0};
    const char *bold = colour ? ANSI_BOLD : "", *reset = colour ? ANSI_RESET : "";
    int mover = ark__mover(a);
    tb__buf_printf(&b, "%sArkadia%s  %d players  turn %d", bold, reset, s->players, a->turn_no + 1);
    if (a->phase == ARK_PH_OVER)
        tb__buf_printf(&b, "  game over");
    else
        tb__buf_printf(&b, "  seat %d (%s) to move", mover + 1, d->seat_colour[mover]);
    if (seat >= 0)
        tb__buf_printf(&b, "  you are seat %d (%s)", seat + 1, d->seat_colour[seat]);
    tb__buf_printf(&b, "\n");
    text_side side = {.n = 0};
    text_castle_panel(a, &side, colour);
    text_cards_panel(a, &side);
    text_board_lines(&b, a, &side, colour);
    tb__buf_printf(&b, "    . empty  ^ tent camp  Y O G V workers  n neutral  ## castle lot  + free for this decision\n");
    tb__buf_printf(&b, "    buildings: form number + seal (r red, o olive, k black, s silver; * completed):\n"
                       "    1 house  2 farm  3 tavern  4 mill  5 smithy  6 trade-centre  7 monastery\n");
    for (int p = 0; p < s->players; p++)
        text_player_line(&b, a, p, seat, colour, (flags & TB_RENDER_HIDE_TOTALS) != 0);
    if (seat >= 0 && seat < s->players) {
        tb__buf_printf(&b, "Your hand:");
        for (int i = 0; i < a->hand_n[seat]; i++) {
            char c[40];
            ark__card_text(a->hand[seat][i] / 2, c, sizeof c);
            tb__buf_printf(&b, "%s %s%s", i ? "," : "", c, a->hand[seat][i] & 1 ? " (seen)" : "");
        }
        if (!a->hand_n[seat])
            tb__buf_printf(&b, " no cards");
        tb__buf_printf(&b, "\n");
    }
    if (a->phase == ARK_PH_PLACE) {
        char c[40];
        ark__card_text(a->card, c, sizeof c);
        tb__buf_printf(&b, "Playing %s: + marks squares it can cover; type its squares ('legal' lists all).\n", c);
    } else if (a->phase == ARK_PH_WORKER) {
        tb__buf_printf(&b, "Introducing workers (%d so far): squares marked + are free next to the building.\n", a->placed);
    } else if (a->phase == ARK_PH_OVER) {
        int best = 0;
        for (int p = 0; p < s->players; p++)
            best = a->gold[p] > best ? a->gold[p] : best;
        tb__buf_printf(&b, "Final gold:");
        for (int p = 0; p < s->players; p++)
            tb__buf_printf(&b, " %s %d%s", d->seat_colour[p], a->gold[p], a->gold[p] == best ? " (wins)" : "");
        tb__buf_printf(&b, "\n");
    }
    return tb__buf_take(&b);
}

/* ---- the log's words (tb_narrate) ---- */

#define W(name) tb__msg_word(name)

/* The built-in data's names (data/arkadia.txt) as the narration says them:
 * catalogue msgids (tb__msg_phrase). */
const char *const ark__data_words[] = {
    N_("red"), N_("olive"), N_("black"), N_("silver"),
    N_("house"), N_("farm"), N_("tavern"), N_("mill"), N_("smithy"), N_("trade-centre"),
    N_("monastery"),
    N_("a house"), N_("a farm"), N_("a tavern"), N_("a mill"), N_("a smithy"),
    N_("a trade-centre"), N_("a monastery"),
    N_("the house"), N_("the farm"), N_("the tavern"), N_("the mill"), N_("the smithy"),
    N_("the trade-centre"), N_("the monastery"),
    N_("a red card"), N_("an olive card"), N_("a black card"), N_("a silver card"),
    N_("yellow"), N_("orange"), N_("green"), N_("violet"),
};

json_t *ark__narrate(const tb_state *s_before, tb_move m, const tb_state *s_after, json_t *who,
                     json_t *const *names)
{
    (void)names;
    const arkadia_state *a = (const arkadia_state *)s_before;
    const ark_data *d = ark__board(a);
    const arkadia_state *after = (const arkadia_state *)s_after;
    int pl = ARK_PAYLOAD(m);
    char sq[8], cells[96], card[ARK_NAME_LEN + 16];
    json_t *w = json_incref(who);
    json_t *s;
    switch (ARK_KIND(m)) {
    case ARK_K_LOT:
        ark__square_text(pl, sq, sizeof sq);
        s = tb__msg(N_("{who} places the castle lot at {square}"), "who:m square:s", w, sq);
        break;
    case ARK_K_BUILD:
        snprintf(card, sizeof card, "%s card", d->family[pl % ARK_FAMILIES]);
        s = tb__msg(N_("{who} lays out {card} to build {building}"), "who:m card:m building:m", w,
                    tb__msg_a(card), tb__msg_a(d->form[pl / ARK_FAMILIES].name));
        break;
    case ARK_K_WORKERS:
        if (pl == ARK_LOT_TARGET) {
            s = tb__msg(N_("{who} sends workers to the castle lot"), "who:m", w);
        } else {
            ark__square_text(pl, sq, sizeof sq);
            s = tb__msg(N_("{who} sends workers to the building at {square}"), "who:m square:s", w,
                        sq);
        }
        break;
    case ARK_K_PLACE: {
        ark__move_to_text(s_before, m, cells, sizeof cells);
        s = tb__msg(N_("{who} builds {building} at {cells}"), "who:m building:m cells:s", w,
                    tb__msg_phrase("the ", d->form[pl >> 12 < ARK_FORMS ? pl >> 12 : 0].name, ""),
                    cells);
        break;
    }
    case ARK_K_OWN:
    case ARK_K_NEUTRAL:
        ark__square_text(pl, sq, sizeof sq);
        s = ARK_KIND(m) == ARK_K_OWN
                ? tb__msg(N_("{who} puts an own worker on {square}"), "who:m square:s", w, sq)
                : tb__msg(N_("{who} puts a neutral worker on {square}"), "who:m square:s", w, sq);
        break;
    case ARK_K_STOP:
        s = tb__msg(N_("{who} stops placing workers"), "who:m", w);
        break;
    case ARK_K_CASTLE:
        s = tb__msg_plural(NP_("{who} adds {n} {family} piece to the castle",
                               "{who} adds {n} {family} pieces to the castle"),
                           (pl & 15) + 1, "who:m family:m", w, W(d->family[(pl >> 4) & 3]));
        break;
    case ARK_K_DRAW:
        if (pl == ARK_DRAW_STACK)
            s = tb__msg(N_("{who} draws a card from the stack"), "who:m", w);
        else
            s = tb__msg(N_("{who} takes the {family} {building} card from the display"),
                        "who:m family:m building:m", w, W(d->family[pl % ARK_FAMILIES]),
                        W(d->form[(pl / ARK_FAMILIES) % ARK_FORMS].name));
        break;
    case ARK_K_BANNER:
        s = pl ? tb__msg(N_("{who} hangs an architect banner"), "who:m", w)
               : tb__msg(N_("{who} keeps the banners"), "who:m", w);
        break;
    case ARK_K_SELL:
        s = tb__msg_plural(NP_("{who} sells {n} {family} seal", "{who} sells {n} {family} seals"),
                           pl & 0xff, "who:m family:m", w, W(d->family[(pl >> 8) & 3]));
        break;
    default:
        s = tb__msg(N_("{who} plays"), "who:m", w);
    }
    json_t *done = NULL;
    for (int i = 0; i < after->nbld; i++)
        if (after->bld[i].done && (i >= a->nbld || !a->bld[i].done)) {
            json_t *b = tb__msg_phrase("the ", d->form[after->bld[i].form].name, "");
            done = done ? tb__msg(N_("{list} and {item}"), "list:m item:m", done, b) : b;
            if (!done) { /* no memory: no sentence rather than half of one */
                json_decref(s);
                s = NULL;
                break;
            }
        }
    if (done)
        s = tb__msg_join(s, tb__msg(N_("; that completes {buildings}"), "buildings:m", done));
    if (after->phase == ARK_PH_OVER && a->phase != ARK_PH_OVER)
        s = tb__msg_join(s, W(N_(". The game ends")));
    return s;
}

json_t *ark__stage_msg(const tb_state *s)
{
    const arkadia_state *a = (const arkadia_state *)s;
    int floors = 0;
    for (int f = 0; f < ARK_FLOORS; f++) {
        int full = 1;
        for (int c = 0; c < ARK_CASTLE; c++)
            full &= a->height[c] > f;
        floors += full;
    }
    return tb__msg(N_("Castle floor {floor}"), "floor:d",
                   floors + 1 > ARK_FLOORS ? ARK_FLOORS : floors + 1);
}

int ark__stage_text(const tb_state *s, char *buf, size_t buflen)
{
    const arkadia_state *a = (const arkadia_state *)s;
    int floors = 0;
    for (int f = 0; f < ARK_FLOORS; f++) {
        int full = 1;
        for (int c = 0; c < ARK_CASTLE; c++)
            full &= a->height[c] > f;
        floors += full;
    }
    return snprintf(buf, buflen, "Castle floor %d", floors + 1 > ARK_FLOORS ? ARK_FLOORS : floors + 1);
}
