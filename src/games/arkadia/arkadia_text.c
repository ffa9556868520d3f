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
#include <stdarg.h>
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

/* The refusals are messages (docs/translating.md): *why gets the message
 * (NULL when memory ran out) and the function gives -1. */
static int text_refuse(json_t **why, json_t *m)
{
    *why = m;
    return -1;
}
#define REFUSE(...) text_refuse(why, tb__msg(__VA_ARGS__))

/* At most `max` bytes of w (whole characters), as a refusal quotes it, with
 * every byte that is not UTF-8 a '?' (as a whole message's repair makes it:
 * the mark keeps a cut character at the end from being dropped instead). */
static const char *text_clip(const char *w, int max, char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%.*s|", TB__CLIP(w ? w : "", max));
    tb__utf8_repair(buf);
    buf[strlen(buf) - 1] = '\0';
    return buf;
}

static int text_bad_family(const char *w, json_t **why)
{
    char names[128], q[64];
    text_names(names, sizeof names, false);
    return REFUSE(N_("'{text}' is not a family (families: {names})"), "text:s names:s",
                  text_clip(w, 20, q, sizeof q), names);
}

static int text_bad_form(const char *w, json_t **why)
{
    char names[160], q[64];
    text_names(names, sizeof names, true);
    return REFUSE(N_("'{text}' is not a building form (forms: {names})"), "text:s names:s",
                  text_clip(w, 20, q, sizeof q), names);
}

/* Reads "FORM FAMILY" from two words. */
static int text_card_words(char **w, int n, int *card, json_t **why)
{
    if (n != 2)
        return REFUSE(N_("name a card as FORM FAMILY, e.g. 'house red'"), "");
    int f = ark__form_index(w[0]), k = ark__family_index(w[1]);
    if (f < 0)
        return text_bad_form(w[0], why);
    if (k < 0)
        return text_bad_family(w[1], why);
    *card = f * ARK_FAMILIES + k;
    return 0;
}

static int text_one_square(const char *w, int *sq, json_t **why)
{
    char q[64];
    int len = w ? ark__parse_square(w, sq) : 0;
    if (!len || w[len])
        return REFUSE(N_("'{text}' is not a square (columns a-p, rows 1-12, e.g. c7)"), "text:s",
                      text_clip(w, 20, q, sizeof q));
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
static int text_placement(const arkadia_state *a, char **w, int nw, tb_move *out, json_t **why)
{
    char q[64];
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
                return REFUSE(N_("'{text}' is not a square; a placement is written as the squares the building covers, e.g. c3-d3 (see 'legal')"),
                              "text:s", text_clip(w[i], 30, q, sizeof q));
            if (ark_bb_has(cells, sq))
                return REFUSE(N_("a square is named twice in '{text}'"), "text:s",
                              text_clip(w[0], 30, q, sizeof q));
            ark_bb_set(&cells, sq);
            count++;
            p += len;
        }
    }
    if (a->phase != ARK_PH_PLACE)
        return REFUSE(N_("illegal move: squares lay out a building, but no card is being played now (first 'build FORM FAMILY')"),
                      "");
    int form = a->card / ARK_FAMILIES;
    const ark_form *f = &d->form[form];
    if (count != f->cells)
        return REFUSE(N_("illegal move: a {form} covers {n} squares, not {m}"), "form:m n:d m:d",
                      tb__msg_word(f->name), f->cells, count);
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
        return REFUSE(N_("illegal move: those squares are not the shape of a {form}"), "form:m",
                      tb__msg_word(f->name));
    if (orient >= ark__orients(a, form))
        return REFUSE(N_("illegal move: that is a mirror image of the {form}, not allowed with mirror=off"),
                      "form:m", tb__msg_word(f->name));
    ark_bb taken = ark_bb_and(cells, a->occ);
    if (ark_bb_any(taken)) {
        char sq[8];
        ark__square_text(ark_bb_first(taken), sq, sizeof sq);
        return REFUSE(N_("illegal move: {square} is already occupied"), "square:s", sq);
    }
    if (!ark_bb_any(ark_bb_and(cells, ark_bb_around(a->occ))))
        return REFUSE(N_("illegal move: the {form} must touch a building, the castle lot or a worker along a side (corners do not count)"),
                      "form:m", tb__msg_word(f->name));
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

int ark__refusal(const tb_state *s, const char *text, tb_move *out, json_t **why)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    char buf[TB_MOVE_TEXT * 2], q[64];
    *why = NULL;
    if (strlen(text) >= sizeof buf)
        return REFUSE(N_("that decision is too long"), "");
    snprintf(buf, sizeof buf, "%s", text);
    char *w[12];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == 12)
            return REFUSE(N_("too many words in '{text}'"), "text:s", text_clip(text, 40, q, sizeof q));
        w[n++] = t;
    }
    if (!n)
        return REFUSE(N_("an empty decision (type 'legal' to see them)"), "");
    int p = ark__mover(a), sq, v, card;
    const char *cmd = w[0];
    if (strcmp(cmd, "lot") == 0) {
        if (n != 2)
            return REFUSE(N_("write 'lot SQUARE' with the lot's top-left square, e.g. lot g5"), "");
        if (text_one_square(w[1], &sq, why))
            return -1;
        if (!ark_bb_has(d->lot_anchors, sq))
            return REFUSE(N_("illegal move: the lot at {square} would cover a tent camp or leave the board"),
                          "square:s", w[1]);
        *out = ARK_MOVE(ARK_K_LOT, sq);
        return 0;
    }
    if (strcmp(cmd, "build") == 0) {
        if (text_card_words(w + 1, n - 1, &card, why))
            return -1;
        if (a->phase == ARK_PH_ACTION && !text_holds(a, p, card))
            return REFUSE(N_("illegal move: you hold no {form} {family} card"), "form:s family:s", w[1],
                          w[2]);
        *out = ARK_MOVE(ARK_K_BUILD, card);
        return 0;
    }
    if (strcmp(cmd, "workers") == 0) {
        if (n != 2)
            return REFUSE(N_("write 'workers SQUARE' (a square of the building) or 'workers lot'"), "");
        if (strcmp(w[1], "lot") == 0) {
            *out = ARK_MOVE(ARK_K_WORKERS, ARK_LOT_TARGET);
            return 0;
        }
        if (text_one_square(w[1], &sq, why))
            return -1;
        int b = text_building_at(a, sq);
        if (b < 0)
            return REFUSE(N_("illegal move: there is no building on {square}"), "square:s", w[1]);
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
            return REFUSE(N_("write '{command} SQUARE', e.g. {command} d4"), "command:s", cmd);
        if (text_one_square(w[1], &sq, why))
            return -1;
        if (a->phase == ARK_PH_WORKER && !ark_bb_has(ark__worker_squares(a), sq))
            return REFUSE(N_("illegal move: {square} is not a free square next to the chosen building"),
                          "square:s", w[1]);
        *out = ARK_MOVE(cmd[0] == 'o' ? ARK_K_OWN : ARK_K_NEUTRAL, sq);
        return 0;
    }
    if (strcmp(cmd, "stop") == 0) {
        if (n != 1)
            return REFUSE(N_("'stop' takes nothing after it"), "");
        *out = ARK_MOVE(ARK_K_STOP, 0);
        return 0;
    }
    if (strcmp(cmd, "castle") == 0) {
        int k = n == 3 ? ark__family_index(w[1]) : -1;
        if (n != 3)
            return REFUSE(N_("write 'castle FAMILY N' with a castle square 1-10, e.g. castle black 3"), "");
        if (k < 0)
            return text_bad_family(w[1], why);
        if (text_number(w[2], 1, ARK_CASTLE, &v))
            return REFUSE(N_("castle squares are numbered 1-10, not '{text}'"), "text:s",
                          text_clip(w[2], 10, q, sizeof q));
        *out = ARK_MOVE(ARK_K_CASTLE, k << 4 | (v - 1));
        return 0;
    }
    if (strcmp(cmd, "draw") == 0) {
        if (n == 2 && strcmp(w[1], "stack") == 0) {
            *out = ARK_MOVE(ARK_K_DRAW, ARK_DRAW_STACK);
            return 0;
        }
        if (text_card_words(w + 1, n - 1, &card, why))
            return -1;
        *out = ARK_MOVE(ARK_K_DRAW, card);
        return 0;
    }
    if (strcmp(cmd, "banner") == 0) {
        if (n != 2 || (strcmp(w[1], "yes") != 0 && strcmp(w[1], "no") != 0))
            return REFUSE(N_("write 'banner yes' or 'banner no'"), "");
        *out = ARK_MOVE(ARK_K_BANNER, w[1][0] == 'y');
        return 0;
    }
    if (strcmp(cmd, "sell") == 0) {
        int k = n == 3 ? ark__family_index(w[1]) : -1;
        if (n != 3)
            return REFUSE(N_("write 'sell FAMILY N', e.g. sell red 7 (0 keeps them all)"), "");
        if (k < 0)
            return text_bad_family(w[1], why);
        if (text_number(w[2], 0, 255, &v))
            return REFUSE(N_("sell a number of seals from 0 up, not '{text}'"), "text:s",
                          text_clip(w[2], 10, q, sizeof q));
        if (a->phase == ARK_PH_SALE && k == a->family && v > a->seals[p][k])
            return REFUSE(N_("illegal move: you have only {n} {family} seals"), "n:d family:m",
                          a->seals[p][k], tb__msg_word(w[1]));
        *out = ARK_MOVE(ARK_K_SELL, k << 8 | v);
        return 0;
    }
    if (ark__parse_square(cmd, &sq))
        return text_placement(a, w, n, out, why);
    return REFUSE(N_("'{text}' is not an Arkadia decision (lot, build, a placement such as c3-d3, workers, own, neutral, stop, castle, draw, banner, sell; type 'legal')"),
                  "text:s", text_clip(cmd, 30, q, sizeof q));
}

int ark__text_to_move(const tb_state *s, const char *text, tb_move *out, char *err,
                      size_t errlen)
{
    json_t *why = NULL;
    if (ark__refusal(s, text, out, &why) == 0)
        return 0;
    char *english = why ? tb__msg_text(why, NULL, NULL) : NULL;
    json_decref(why);
    tb__errf(err, errlen, "%s", english ? english : "out of memory");
    free(english);
    return -1;
}
#undef REFUSE

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

/* The language the board is drawn in (tb_render_text_in): tr NULL is English. */
typedef struct text_words {
    tb_translate_fn tr;
    void *ctx;
    bool failed; /* memory ran out making a text: the board is not drawn */
} text_words;
#define WORD(w) tb__word(words->tr, words->ctx, w)

/* A message's text in the board's language, into buf ("" and words->failed
 * when memory runs out: the board is then not drawn at all). */
static const char *text_say(text_words *words, char *buf, size_t buflen, const char *tmpl,
                            const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    json_t *m = tb__msg_v(tmpl, NULL, 0, spec, ap);
    va_end(ap);
    char *text = m ? tb__msg_text(m, words->tr, words->ctx) : NULL;
    json_decref(m);
    snprintf(buf, buflen, "%s", text ? text : "");
    words->failed = words->failed || !text;
    free(text);
    return buf;
}

static void text_castle_panel(const arkadia_state *a, text_side *side, bool colour,
                              text_words *words)
{
    const ark_data *d = ark__board(a);
    const char *reset = colour ? ANSI_RESET : "";
    int at[4][4];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            at[y][x] = -1;
    for (int q = 0; q < ARK_CASTLE; q++)
        at[d->castle_y[q]][d->castle_x[q]] = q;
    text_side_add(side, "%s", WORD(N_("Castle: square, seal, height")));
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
    text_side_add(side, "%s %sr%d%s %so%d%s %sk%d%s %ss%d%s", WORD(N_("Seal values")),
                  colour ? text_family_ansi[0] : "", ark__value(a, 0), reset,
                  colour ? text_family_ansi[1] : "", ark__value(a, 1), reset,
                  colour ? text_family_ansi[2] : "", ark__value(a, 2), reset,
                  colour ? text_family_ansi[3] : "", ark__value(a, 3), reset);
    int floor = ark__floor(a);
    for (int f = 0; f < ARK_FLOORS; f++) {
        char c[32];
        text_counts(c, sizeof c, a->pool[f]);
        char line[TEXT_SIDE_WIDTH * 2];
        text_side_add(side, "%c %s", f == floor ? '>' : ' ',
                      text_say(words, line, sizeof line, N_("floor {floor} pool {pieces}"),
                               "floor:d pieces:s", f + 1, c));
    }
    if (a->trigger_turn >= 0)
        text_side_add(side, "%s", WORD(N_("Floor 2 full: final round")));
}

static void text_cards_panel(const arkadia_state *a, text_side *side, text_words *words)
{
    char line[TEXT_SIDE_WIDTH * 2];
    text_side_add(side, "%s", "");
    text_side_add(side, "%s", text_say(words, line, sizeof line, N_("Face up {up}, stack {stack}:"),
                                       "up:d stack:d", a->display_n, a->stack_n));
    for (int i = 0; i < a->display_n; i++) {
        char c[40];
        ark__card_text(a->display[i], c, sizeof c);
        text_side_add(side, "  %s", c);
    }
    text_side_add(side, "%s", text_say(words, line, sizeof line, N_("Neutral pool: {n} workers"),
                                       "n:d", ark__neutral_pool(a)));
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

/* Pads `word` (UTF-8) with spaces to `width` characters, into buf. */
static const char *text_pad(const char *word, int width, char *buf, size_t buflen)
{
    int chars = 0;
    for (const char *c = word; *c; c++)
        chars += ((unsigned char)*c & 0xc0) != 0x80;
    snprintf(buf, buflen, "%s%*s", word, chars < width ? width - chars : 0, "");
    return buf;
}

static void text_player_line(tb_buf *b, const arkadia_state *a, int p, int seat, bool colour,
                             bool hide, text_words *words)
{
    const ark_data *d = ark__board(a);
    const char *reset = colour ? ANSI_RESET : "";
    int mover = ark__mover(a);
    char name[64], you[32], line[160];
    snprintf(you, sizeof you, " %s", WORD(N_("(you)")));
    tb__buf_printf(b, "%c %d %s%s%s%s", p == mover && a->phase != ARK_PH_OVER ? '>' : ' ', p,
                   colour ? text_seat_ansi[p] : "", text_pad(WORD(d->seat_colour[p]), 6, name, sizeof name),
                   reset, p == seat ? you : "      ");
    if (hide && p != seat && a->phase != ARK_PH_OVER) {
        /* behind the screen: the player chose not to keep count of it */
        tb__buf_printf(b, "  %s   ?  %s ?  ?  ?  ? ", WORD(N_("gold")), WORD(N_("seals")));
    } else {
        tb__buf_printf(b, "  %s %3d  %s", WORD(N_("gold")), a->gold[p], WORD(N_("seals")));
        for (int k = 0; k < ARK_FAMILIES; k++)
            tb__buf_printf(b, " %s%c%s%-2d", colour ? text_family_ansi[k] : "", text_family_letter[k],
                           reset, a->seals[p][k]);
    }
    tb__buf_printf(b, " %s", text_say(words, line, sizeof line,
                                      N_("workers {own} own {neutral} neutral  banners {banners}  cards {cards}"),
                                      "own:d neutral:d banners:d cards:d", a->screen[p],
                                      a->screen_neutral[p], a->banners[p], a->hand_n[p]));
    int known = 0;
    for (int i = 0; i < a->hand_n[p]; i++)
        known += p != seat && (a->hand[p][i] & 1);
    if (known) {
        tb__buf_printf(b, "\n        %s", WORD(N_("known to all:")));
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
    return ark__render_text_in(s, seat, flags, NULL, NULL);
}

/* The board in the language of tr (NULL: English); the words are msgids
 * (N_), the letters, squares and cards (notation) stay as they are. */
char *ark__render_text_in(const tb_state *s, int seat, unsigned flags, tb_translate_fn tr,
                          void *ctx)
{
    bool colour = (flags & TB_RENDER_COLOUR) != 0;
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    text_words w = {tr, ctx, false}, *words = &w;
    tb_buf b = {0};
    const char *bold = colour ? ANSI_BOLD : "", *reset = colour ? ANSI_RESET : "";
    int mover = ark__mover(a);
    tb__buf_printf(&b, "%sArkadia%s  ", bold, reset);
    tb__buf_say(&b, tr, ctx, N_("{n} players  turn {turn}"), "n:d turn:d", s->players,
                a->turn_no + 1);
    if (a->phase == ARK_PH_OVER)
        tb__buf_printf(&b, "  %s", WORD(N_("game over")));
    else
        tb__buf_say(&b, tr, ctx, N_("  seat {seat} ({colour}) to move"), "seat:d colour:s",
                    mover + 1, WORD(d->seat_colour[mover]));
    if (seat >= 0)
        tb__buf_say(&b, tr, ctx, N_("  you are seat {seat} ({colour})"), "seat:d colour:s", seat + 1,
                    WORD(d->seat_colour[seat]));
    tb__buf_printf(&b, "\n");
    text_side side = {.n = 0};
    text_castle_panel(a, &side, colour, words);
    text_cards_panel(a, &side, words);
    text_board_lines(&b, a, &side, colour);
    tb__buf_printf(&b, "    %s\n", WORD(N_(". empty  ^ tent camp  Y O G V workers  n neutral  ## castle lot  + free for this decision")));
    tb__buf_printf(&b, "    %s\n", WORD(N_("buildings: form number + seal (r red, o olive, k black, s silver; * completed):")));
    tb__buf_printf(&b, "    1 %s  2 %s  3 %s  4 %s  5 %s  6 %s  7 %s\n", WORD(N_("house")), WORD(N_("farm")),
                   WORD(N_("tavern")), WORD(N_("mill")), WORD(N_("smithy")), WORD(N_("trade-centre")),
                   WORD(N_("monastery")));
    for (int p = 0; p < s->players; p++)
        text_player_line(&b, a, p, seat, colour, (flags & TB_RENDER_HIDE_TOTALS) != 0, words);
    if (seat >= 0 && seat < s->players) {
        tb__buf_printf(&b, "%s", WORD(N_("Your hand:")));
        for (int i = 0; i < a->hand_n[seat]; i++) {
            char c[40];
            ark__card_text(a->hand[seat][i] / 2, c, sizeof c);
            tb__buf_printf(&b, "%s %s%s%s", i ? "," : "", c, a->hand[seat][i] & 1 ? " " : "",
                           a->hand[seat][i] & 1 ? WORD(N_("(seen)")) : "");
        }
        if (!a->hand_n[seat])
            tb__buf_printf(&b, " %s", WORD(N_("no cards")));
        tb__buf_printf(&b, "\n");
    }
    if (a->phase == ARK_PH_PLACE) {
        char c[40];
        ark__card_text(a->card, c, sizeof c);
        tb__buf_say(&b, tr, ctx,
                    N_("Playing {card}: + marks squares it can cover; type its squares ('legal' lists all).\n"),
                    "card:s", c);
    } else if (a->phase == ARK_PH_WORKER) {
        tb__buf_say(&b, tr, ctx,
                    N_("Introducing workers ({n} so far): squares marked + are free next to the building.\n"),
                    "n:d", a->placed);
    } else if (a->phase == ARK_PH_OVER) {
        int best = 0;
        for (int p = 0; p < s->players; p++)
            best = a->gold[p] > best ? a->gold[p] : best;
        tb__buf_printf(&b, "%s", WORD(N_("Final gold:")));
        for (int p = 0; p < s->players; p++)
            tb__buf_printf(&b, " %s %d%s%s", WORD(d->seat_colour[p]), a->gold[p],
                           a->gold[p] == best ? " " : "", a->gold[p] == best ? WORD(N_("(wins)")) : "");
        tb__buf_printf(&b, "\n");
    }
    b.failed = b.failed || w.failed; /* a text that could not be made: no board */
    return tb__buf_take(&b);
}
#undef WORD

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
