/*
 * khronos_text.c — everything of Khronos that is text: the notation
 * (docs/notation.md: `build might keep`, `c4-d5`, `travel might faith`, ...),
 * the view and state JSON (docs/state.md), the static board JSON, the three
 * boards for the terminal (side by side when they fit 120 columns, else
 * Might and Faith above Reason; a 2x2 or 3x3 building drawn as one block),
 * and the one-line prompt.
 *
 * Invariants: a view shows a seat its own hand only (other hands by size,
 * the deck by size); state_from_json accepts only a state that satisfies
 * every invariant listed in khronos.h and otherwise names the first one
 * broken; the JSON of a state loads back into the same bytes.
 */
#include "khronos.h"
#include "core/msg.h"
#include "core/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables of the data the game is on (khronos_board.h); k is the state. */
#define KT KH_TABLES(k)
#define D (KT->data)

static const char *const text_pend_name[] = {"action", "squares", "pay", "pick", "keep"};
static const char text_colour_letter[TB_MAX_SEATS] = {'r', 'g', 'b', 'w', 'y'};

/* ---- squares, placements, cards ---- */

int kh_square_name(const kh_tables *tab, int sq, char *buf, size_t buflen)
{
    /* rows never reach 1000 (KH_MAXSQ squares); the bound lets the compiler
     * see the text fits the small buffers callers pass */
    return snprintf(buf, buflen, "%c%d", 'a' + sq % tab->data.width, (sq / tab->data.width + 1) % 1000);
}

int kh_parse_square(const kh_tables *tab, const char **p)
{
    const char *q = *p;
    if (*q < 'a' || *q >= 'a' + tab->data.width)
        return -1;
    int col = *q++ - 'a';
    if (!isdigit((unsigned char)*q) || *q == '0')
        return -1;
    int row = 0;
    while (isdigit((unsigned char)*q) && row < 1000)
        row = row * 10 + (*q++ - '0');
    if (isdigit((unsigned char)*q) || row < 1 || row > tab->data.height)
        return -1;
    *p = q;
    return (row - 1) * tab->data.width + col;
}

/* Whether placement p's squares fill their bounding box exactly (a block:
 * every Khronos tile with the rulebook's square shapes). */
static bool text_is_block(const kh_tables *tab, const kh_place *p)
{
    int r0 = p->sq[0] / tab->data.width, c0 = p->sq[0] % tab->data.width;
    int r1 = p->sq[p->n - 1] / tab->data.width, c1 = p->sq[p->n - 1] % tab->data.width;
    if (c1 < c0 || p->n != (r1 - r0 + 1) * (c1 - c0 + 1))
        return false;
    for (int i = 0; i < p->n; i++) {
        int c = p->sq[i] % tab->data.width;
        if (c < c0 || c > c1)
            return false;
    }
    return true;
}

/* A placement's canonical name: one square ("c4"), a block by its top-left
 * and bottom-right corners ("c4-d5", "c4-e6"), and any other shape by its
 * squares in board order joined by '+' ("c4+c5+d5"). */
int kh_place_name(const kh_tables *tab, int place, char *buf, size_t buflen)
{
    const kh_place *p = &tab->place[place];
    char a[8], z[8];
    kh_square_name(tab, p->sq[0], a, sizeof a);
    if (p->n == 1)
        return snprintf(buf, buflen, "%s", a);
    if (text_is_block(tab, p)) {
        kh_square_name(tab, p->sq[p->n - 1], z, sizeof z);
        return snprintf(buf, buflen, "%s-%s", a, z);
    }
    int len = 0;
    for (int i = 0; i < p->n; i++) {
        kh_square_name(tab, p->sq[i], z, sizeof z);
        len += snprintf(buf + len, len < (int)buflen ? buflen - (size_t)len : 0, "%s%s",
                        i ? "+" : "", z);
    }
    return len;
}

/* The placement covering exactly the squares of mask, or -1. */
static int text_find_place(const kh_tables *tab, kh_bits mask)
{
    int first = -1;
    for (int w = 0; w < KH_WORDS && first < 0; w++)
        if (mask.w[w])
            first = w * 64 + __builtin_ctzll(mask.w[w]);
    if (first < 0)
        return -1;
    for (int s = 1; s <= 3; s++)
        for (int i = tab->anchor[s][first]; i < tab->anchor[s][first + 1]; i++)
            if (memcmp(&tab->place[i].mask, &mask, sizeof mask) == 0)
                return i;
    return -1;
}

/* Parses a placement ("c4", "c4-d5", "c4+c5+d5"); advances.  Returns 0 with
 * *place set, -1 (not squares), -2 (squares that no tile covers) or -3 (a
 * tile's squares written otherwise than its canonical name; *place set). */
static int text_parse_place(const kh_tables *tab, const char **p, int *place)
{
    const char *start = *p, *q = *p;
    kh_bits mask;
    memset(&mask, 0, sizeof mask);
    int a = kh_parse_square(tab, &q), n = 1;
    if (a < 0)
        return -1;
    kh_bits_set(&mask, a);
    if (*q == '-') {
        q++;
        int z = kh_parse_square(tab, &q);
        if (z < 0)
            return -1;
        int r0 = a / tab->data.width, c0 = a % tab->data.width, r1 = z / tab->data.width, c1 = z % tab->data.width;
        if (r1 < r0) {
            int t = r0;
            r0 = r1;
            r1 = t;
        }
        if (c1 < c0) {
            int t = c0;
            c0 = c1;
            c1 = t;
        }
        for (int r = r0; r <= r1; r++)
            for (int c = c0; c <= c1; c++)
                kh_bits_set(&mask, r * tab->data.width + c);
    } else {
        while (*q == '+') {
            q++;
            int s = kh_parse_square(tab, &q);
            if (s < 0)
                return -1;
            if (kh_bits_has(mask, s) || ++n > KH_MAXCELLS)
                return -2;
            kh_bits_set(&mask, s);
        }
    }
    *p = q;
    *place = text_find_place(tab, mask);
    if (*place < 0)
        return -2;
    char canon[40];
    int len = kh_place_name(tab, *place, canon, sizeof canon);
    return len == (int)(q - start) && strncmp(canon, start, (size_t)len) == 0 ? 0 : -3;
}

static int text_cards(tb_move set, char *buf, size_t buflen)
{
    int len = 0;
    for (int f = 0; f < KH_FAMILIES; f++)
        for (int i = 0; i < (int)((set >> (3 * f)) & 7) && len + 1 < (int)buflen; i++)
            buf[len++] = kh_family_letter[f];
    buf[len] = '\0';
    return len;
}

static int text_hand(const uint8_t h[KH_FAMILIES], char *buf, size_t buflen)
{
    return text_cards(KH_CARDS(h[0] < 7 ? h[0] : 7, h[1] < 7 ? h[1] : 7, h[2] < 7 ? h[2] : 7), buf,
                      buflen);
}

/* Parses a word of card letters, m before r before c, into a multiset:
 * 0, -1 when malformed, -2 when out of order. */
static int text_parse_cards(const char *w, size_t len, tb_move *out)
{
    int c[KH_FAMILIES] = {0}, last = 0;
    if (!len)
        return -1;
    for (size_t i = 0; i < len; i++) {
        const char *f = memchr(kh_family_letter, w[i], KH_FAMILIES);
        if (!f || ++c[f - kh_family_letter] > 7)
            return -1;
        if (f - kh_family_letter < last)
            return -2;
        last = (int)(f - kh_family_letter);
    }
    *out = KH_CARDS(c[0], c[1], c[2]);
    return 0;
}

/* The error for a word of cards that text_parse_cards refused. */
static int text_cards_error(const char *verb, const char *w, size_t len, char *err, size_t errlen)
{
    tb_move set;
    char sorted[16];
    int c[KH_FAMILIES] = {0};
    bool letters = len > 0 && len < 8;
    for (size_t i = 0; i < len && letters; i++) {
        const char *f = memchr(kh_family_letter, w[i], KH_FAMILIES);
        letters = f != NULL;
        if (f)
            c[f - kh_family_letter]++;
    }
    if (letters && c[0] <= 7 && c[1] <= 7 && c[2] <= 7) {
        set = KH_CARDS(c[0], c[1], c[2]);
        text_cards(set, sorted, sizeof sorted);
        return tb__errf(err, errlen, "write the cards in the order m, r, c: '%s %s'", verb, sorted);
    }
    return tb__errf(err, errlen, "write '%s CARDS' with card letters m (military), r (religious), "
                    "c (civil) in that order, e.g. '%s mr'", verb, verb);
}

static int text_board_index(const char *w, size_t len)
{
    for (int b = 0; b < KH_BOARDS; b++)
        if (strlen(kh_board_name[b]) == len && strncmp(w, kh_board_name[b], len) == 0)
            return b;
    return -1;
}

static int text_type_index(const kh_tables *tab, const char *w, size_t len)
{
    for (int t = 0; t < KH_TYPES; t++)
        if (strlen(tab->data.tile[t].name) == len && strncmp(w, tab->data.tile[t].name, len) == 0)
            return t;
    return -1;
}

/* ---- notation ---- */

int khronos__move_to_text(const tb_state *s, tb_move m, char *buf, size_t buflen)
{
    const khronos_state *k = (const khronos_state *)s;
    tb_move pay = m & 0xffffff;
    char a[16], b[32];
    switch (KH_KIND(m)) {
    case KH_M_SWAP:
        return snprintf(buf, buflen, "swap %c for %c", kh_family_letter[(pay >> 2) & 3],
                        kh_family_letter[pay & 3]);
    case KH_M_EXCHANGE:
        text_cards(pay, b, sizeof b);
        return snprintf(buf, buflen, "exchange %s", b);
    case KH_M_TRAVEL:
        if ((pay & 7) == KH_AUTO)
            return snprintf(buf, buflen, "travel %s %s", kh_board_name[(pay >> 5) & 3],
                            kh_board_name[(pay >> 3) & 3]);
        return snprintf(buf, buflen, "travel %s %s %u", kh_board_name[(pay >> 5) & 3],
                        kh_board_name[(pay >> 3) & 3], pay & 7);
    case KH_M_BUILD:
        return snprintf(buf, buflen, "build %s %s", kh_board_name[(pay >> 4) & 3],
                        D.tile[pay & 15].name);
    case KH_M_UPGRADE:
        kh_square_name(KT, (int)(pay >> 4) & 0xff, a, sizeof a);
        return snprintf(buf, buflen, "upgrade %s %s %s", kh_board_name[(pay >> 12) & 3], a,
                        D.tile[pay & 15].name);
    case KH_M_DEMOLISH:
        kh_square_name(KT, (int)pay & 0xff, a, sizeof a);
        return snprintf(buf, buflen, "demolish %s %s", kh_board_name[(pay >> 8) & 3], a);
    case KH_M_POPULATE:
        kh_square_name(KT, (int)pay & 0xff, a, sizeof a);
        return snprintf(buf, buflen, "populate %s", a);
    case KH_M_RENOVATE:
        kh_square_name(KT, (int)pay & 0xff, a, sizeof a);
        return snprintf(buf, buflen, "renovate %s", a);
    case KH_M_SQUARES:
        kh_place_name(KT, (int)pay, b, sizeof b);
        return snprintf(buf, buflen, "%s", b);
    case KH_M_PAY:
        text_cards(pay, b, sizeof b);
        return snprintf(buf, buflen, "pay %s", b);
    case KH_M_DOWNSIZE:
        kh_square_name(KT, (int)pay & 0xff, a, sizeof a);
        return snprintf(buf, buflen, "downsize %s %s", kh_board_name[(pay >> 8) & 3], a);
    case KH_M_END:
        if (!pay)
            return snprintf(buf, buflen, "end");
        text_cards(pay, b, sizeof b);
        return snprintf(buf, buflen, "end discard %s", b);
    default:
        return snprintf(buf, buflen, "?");
    }
}

typedef struct text_words {
    int n;
    const char *w[6];
    size_t len[6];
} text_words;

static int text_split(const char *text, text_words *tw)
{
    tw->n = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return 0;
        if (tw->n == 6)
            return -1;
        tw->w[tw->n] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        tw->len[tw->n] = (size_t)(p - tw->w[tw->n]);
        tw->n++;
    }
}

static bool text_is(const text_words *tw, int i, const char *word)
{
    return i < tw->n && tw->len[i] == strlen(word) && strncmp(tw->w[i], word, tw->len[i]) == 0;
}

/* Reads word i as one square; -1 when it is not one. */
static int text_word_square(const kh_tables *tab, const text_words *tw, int i)
{
    if (i >= tw->n)
        return -1;
    char buf[16];
    snprintf(buf, sizeof buf, "%.*s", (int)(tw->len[i] < 15 ? tw->len[i] : 15), tw->w[i]);
    const char *p = buf;
    int sq = kh_parse_square(tab, &p);
    return sq >= 0 && !*p ? sq : -1;
}

/* A building named by a square must be named by its first square. */
static int text_building(const khronos_state *k, int b, int sq, const char *verb, char *err,
                         size_t errlen)
{
    const kh_board *bd = &k->board[b];
    int i = bd->at[sq];
    char name[8];
    kh_square_name(KT, sq, name, sizeof name);
    if (i == KH_NONE)
        return tb__errf(err, errlen, "illegal move: there is no building on %s of %s", name,
                        kh_board_name[b]);
    int anchor = kh_anchor(&bd->b[i]);
    if (anchor != sq) {
        char first[8];
        kh_square_name(KT, anchor, first, sizeof first);
        return tb__errf(err, errlen,
                        "the building on %s of %s is named by its first square: %s %s%s%s", name,
                        kh_board_name[b], verb, b == KH_REASON ? "" : kh_board_name[b],
                        b == KH_REASON ? "" : " ", first);
    }
    return 0;
}

static int text_usage(const char *text, char *err, size_t errlen)
{
    return tb__errf(err, errlen,
                    "'%.*s' is not a Khronos move: try 'build might keep', 'c4-d5', 'travel might "
                    "faith', 'upgrade faith c4 abbey', 'populate d5', 'end' (see 'legal')",
                    TB__CLIP(text, 40));
}

static int text_parse_move(const tb_state *s, const char *text, tb_move *out, char *err,
                           size_t errlen)
{
    const khronos_state *k = (const khronos_state *)s;
    text_words tw;
    if (text_split(text, &tw) != 0 || tw.n == 0)
        return text_usage(text, err, errlen);
    tb_move set;
    int b, t, sq;
    if (tw.n == 1 && tw.w[0][0] >= 'a' && tw.w[0][0] <= 'z' && isdigit((unsigned char)tw.w[0][1])) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.*s", (int)(tw.len[0] < 31 ? tw.len[0] : 31), tw.w[0]);
        const char *p = buf;
        int place = -1, r = text_parse_place(KT, &p, &place);
        if (r == -3 && !*p) {
            char canon[40];
            kh_place_name(KT, place, canon, sizeof canon);
            return tb__errf(err, errlen, "write these squares as %s (a block is named by its "
                            "top-left and bottom-right squares)", canon);
        }
        if (r == -2)
            return tb__errf(err, errlen, "%s: no tile covers exactly these squares (tiles are "
                            "blocks of 1x1, 2x2 or 3x3 squares, named like c4, c4-d5, c4-e6)",
                            buf);
        if (r < 0 || *p)
            return tb__errf(err, errlen, "'%s' is not a block of squares like c4-d5 (columns "
                            "a-%c, rows 1-%d)", buf, 'a' + D.width - 1, D.height);
        *out = KH_MOVE(KH_M_SQUARES, place);
        return 0;
    }
    if (text_is(&tw, 0, "end")) {
        if (tw.n == 1) {
            *out = KH_MOVE(KH_M_END, 0);
            return 0;
        }
        if (tw.n == 3 && text_is(&tw, 1, "discard")) {
            if (text_parse_cards(tw.w[2], tw.len[2], &set) != 0)
                return text_cards_error("end discard", tw.w[2], tw.len[2], err, errlen);
            *out = KH_MOVE(KH_M_END, set);
            return 0;
        }
        return tb__errf(err, errlen, "write 'end' or 'end discard CARDS' (CARDS: letters m r c, "
                        "e.g. 'end discard mr')");
    }
    if (text_is(&tw, 0, "exchange") || text_is(&tw, 0, "pay")) {
        bool ex = text_is(&tw, 0, "exchange");
        if (tw.n != 2 || text_parse_cards(tw.w[1], tw.len[1], &set) != 0)
            return text_cards_error(ex ? "exchange" : "pay", tw.n == 2 ? tw.w[1] : "",
                                    tw.n == 2 ? tw.len[1] : 0, err, errlen);
        *out = KH_MOVE(ex ? KH_M_EXCHANGE : KH_M_PAY, set);
        return 0;
    }
    if (text_is(&tw, 0, "swap")) {
        const char *g = tw.n == 4 && tw.len[1] == 1 ? memchr(kh_family_letter, tw.w[1][0], 3) : NULL;
        const char *h = tw.n == 4 && tw.len[3] == 1 ? memchr(kh_family_letter, tw.w[3][0], 3) : NULL;
        if (!g || !h || !text_is(&tw, 2, "for"))
            return tb__errf(err, errlen, "write 'swap GIVE for TAKE' with card letters, e.g. "
                            "'swap m for r'");
        *out = KH_MOVE(KH_M_SWAP, (g - kh_family_letter) << 2 | (h - kh_family_letter));
        return 0;
    }
    if (text_is(&tw, 0, "travel")) {
        int from = tw.n >= 3 ? text_board_index(tw.w[1], tw.len[1]) : -1;
        int to = tw.n >= 3 ? text_board_index(tw.w[2], tw.len[2]) : -1;
        int r = KH_AUTO;
        if (tw.n == 4) {
            r = tw.len[3] == 1 && tw.w[3][0] >= '0' && tw.w[3][0] <= '2' ? tw.w[3][0] - '0' : -1;
        }
        if (from < 0 || to < 0 || r < 0 || tw.n > 4)
            return tb__errf(err, errlen, "write 'travel FROM TO' with boards might, faith, "
                            "reason (and the cards the adventurer keeps, 0-2, when asked)");
        if (from == to)
            return tb__errf(err, errlen, "illegal move: an adventurer travels to another board");
        *out = KH_MOVE(KH_M_TRAVEL, from << 5 | to << 3 | r);
        return 0;
    }
    if (text_is(&tw, 0, "build")) {
        b = tw.n == 3 ? text_board_index(tw.w[1], tw.len[1]) : -1;
        t = tw.n == 3 ? text_type_index(KT, tw.w[2], tw.len[2]) : -1;
        if (b < 0 || t < 0)
            return tb__errf(err, errlen, "write 'build BOARD BUILDING', e.g. 'build might keep' "
                            "(buildings: watchtower keep castle chapel monastery abbey hamlet "
                            "town city)");
        if (b == KH_REASON)
            return tb__errf(err, errlen, "illegal move: nothing is built on the Reason board");
        *out = KH_MOVE(KH_M_BUILD, b << 4 | t);
        return 0;
    }
    if (text_is(&tw, 0, "upgrade")) {
        b = tw.n == 4 ? text_board_index(tw.w[1], tw.len[1]) : -1;
        sq = text_word_square(KT, &tw, 2);
        t = tw.n == 4 ? text_type_index(KT, tw.w[3], tw.len[3]) : -1;
        if (b < 0 || sq < 0 || t < 0)
            return tb__errf(err, errlen, "write 'upgrade BOARD SQUARE BUILDING', e.g. 'upgrade "
                            "might c4 castle'");
        if (b == KH_REASON)
            return tb__errf(err, errlen, "illegal move: nothing is upgraded on the Reason board");
        if (text_building(k, b, sq, "upgrade", err, errlen))
            return -1;
        *out = KH_MOVE(KH_M_UPGRADE, b << 12 | sq << 4 | t);
        return 0;
    }
    if (text_is(&tw, 0, "demolish") || text_is(&tw, 0, "downsize")) {
        bool dem = text_is(&tw, 0, "demolish");
        b = tw.n == 3 ? text_board_index(tw.w[1], tw.len[1]) : -1;
        sq = text_word_square(KT, &tw, 2);
        if (b < 0 || sq < 0)
            return tb__errf(err, errlen, "write '%s BOARD SQUARE', e.g. '%s might c4'",
                            dem ? "demolish" : "downsize", dem ? "demolish" : "downsize");
        if (text_building(k, b, sq, dem ? "demolish" : "downsize", err, errlen))
            return -1;
        *out = KH_MOVE(dem ? KH_M_DEMOLISH : KH_M_DOWNSIZE, b << 8 | sq);
        return 0;
    }
    if (text_is(&tw, 0, "populate") || text_is(&tw, 0, "renovate")) {
        bool pop = text_is(&tw, 0, "populate");
        sq = tw.n == 2 ? text_word_square(KT, &tw, 1) : -1;
        if (sq < 0)
            return tb__errf(err, errlen, "write '%s SQUARE' for a building on the Reason board, "
                            "e.g. '%s d5'", pop ? "populate" : "renovate",
                            pop ? "populate" : "renovate");
        if (text_building(k, KH_REASON, sq, pop ? "populate" : "renovate", err, errlen))
            return -1;
        *out = KH_MOVE(pop ? KH_M_POPULATE : KH_M_RENOVATE, sq);
        return 0;
    }
    return text_usage(text, err, errlen);
}

/* A move in notation; one that parses but is not legal now is refused with
 * the rule that refuses it (khronos_explain.c). */
int khronos__text_to_move(const tb_state *s, const char *text, tb_move *out, char *err,
                          size_t errlen)
{
    if (text_parse_move(s, text, out, err, errlen) != 0)
        return -1;
    tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
    if (!moves)
        return tb__errf(err, errlen, "out of memory while checking the decision");
    int n = s->game->legal(s, moves);
    bool legal = false;
    for (int i = 0; i < n && !legal; i++)
        legal = moves[i] == *out;
    free(moves);
    return legal ? 0 : kh_explain((const khronos_state *)s, *out, err, errlen);
}

/* ---- JSON ---- */

static json_t *text_square_json(const kh_tables *tab, int sq)
{
    char name[8];
    kh_square_name(tab, sq, name, sizeof name);
    return json_string(name);
}

static json_t *text_cards_json(const uint8_t h[KH_FAMILIES])
{
    char buf[80];
    int len = 0;
    for (int f = 0; f < KH_FAMILIES; f++)
        for (int i = 0; i < h[f] && len + 1 < (int)sizeof buf; i++)
            buf[len++] = kh_family_letter[f];
    buf[len] = '\0';
    return json_string(buf);
}

/* One building as JSON; `full` adds what only the saved state needs. */
static json_t *text_building_json(const kh_board *bd, int i, bool full)
{
    const kh_bld *x = &bd->b[i];
    json_t *o = json_object();
    char at[32];
    kh_place_name(bd->tab, x->place, at, sizeof at);
    json_object_set_new(o, "type", json_string(bd->tab->data.tile[x->type].name));
    json_object_set_new(o, "at", json_string(at));
    if (x->owner != KH_NOBODY)
        json_object_set_new(o, "owner", json_integer(x->owner));
    if (x->flags & KH_PRINTED)
        json_object_set_new(o, "printed", json_true());
    if (x->flags & KH_RUIN)
        json_object_set_new(o, "ruin", json_true());
    if (x->reno != KH_NOBODY)
        json_object_set_new(o, "renovation", json_integer(x->reno));
    if (x->ncubes) {
        json_t *c = json_array();
        for (int k = 0; k < x->ncubes; k++)
            json_array_append_new(c, json_integer(x->cube[k]));
        json_object_set_new(o, "cubes", c);
    }
    if (full && x->orig != KH_NONE)
        json_object_set_new(o, "was", json_pack("{s:o,s:i}", "domain", text_square_json(bd->tab, x->orig),
                                                "power", x->opower));
    if (!full)
        json_object_set_new(o, "domain", text_square_json(bd->tab, kh_anchor(&bd->b[x->dom])));
    return o;
}

static json_t *text_boards_json(const khronos_state *k, bool full)
{
    json_t *boards = json_object();
    for (int b = 0; b < KH_BOARDS; b++) {
        const kh_board *bd = &k->board[b];
        json_t *a = json_array();
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            if ((x->flags & KH_PRINTED) && !x->ncubes)
                continue; /* printed Hamlets are implied (board_json lists them) */
            json_array_append_new(a, text_building_json(bd, i, full));
        }
        json_object_set_new(boards, kh_board_name[b], a);
    }
    return boards;
}

static json_t *text_pawns_json(const khronos_state *k)
{
    json_t *a = json_array();
    for (int p = 0; p < k->base.players; p++)
        json_array_append_new(a, json_pack("[s,s]", kh_board_name[k->pawn[p][0]],
                                           kh_board_name[k->pawn[p][1]]));
    return a;
}

static json_t *text_pending_json(const khronos_state *k)
{
    if (k->pend == KH_P_NONE)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(text_pend_name[k->pend]));
    json_object_set_new(o, "board", json_string(kh_board_name[k->pend_board]));
    if (k->pend == KH_P_SQUARES || k->pend == KH_P_PAY)
        json_object_set_new(o, "type", json_string(D.tile[k->pend_type].name));
    if (k->pend != KH_P_PICK)
        json_object_set_new(o, "target", k->pend_target == KH_NONE ? json_null()
                                                                     : text_square_json(KT, k->pend_target));
    if (k->pend == KH_P_PAY) {
        char at[32];
        kh_place_name(KT, k->pend_place, at, sizeof at);
        json_object_set_new(o, "at", json_string(at));
        json_object_set_new(o, "extra", json_integer(k->pend_extra));
    }
    return o;
}

static json_t *text_ripple_json(const khronos_state *k)
{
    if (!k->rip.active)
        return json_null();
    char at[32];
    kh_place_name(KT, k->rip.place, at, sizeof at);
    json_t *o = json_pack("{s:s,s:s,s:s}", "board", kh_board_name[k->rip.board], "type",
                          D.tile[k->rip.type].name, "at", at);
    if (k->rip.owner != KH_NOBODY)
        json_object_set_new(o, "owner", json_integer(k->rip.owner));
    return o;
}

static json_t *text_ints(const int16_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The ledger behind the score breakdown, one object per seat:
 * {"turn4": [might, faith, reason], "turn7": [...], "bonuses": N, "spent": N}. */
static json_t *text_ledger_json(const khronos_state *k)
{
    json_t *a = json_array();
    for (int p = 0; p < k->base.players; p++)
        json_array_append_new(a, json_pack("{s:o, s:o, s:i, s:i}", "turn4",
                                           text_ints(k->earned[p][0], KH_BOARDS), "turn7",
                                           text_ints(k->earned[p][1], KH_BOARDS), "bonuses",
                                           k->bonuses[p], "spent", k->spent[p]));
    return a;
}

/* Reads "ledger" (optional: a state written before it was kept reads as an
 * empty ledger).  Play keeps Ecus = starting Ecus + earnings + bonuses -
 * spent (the simulation test checks it); a state edited by hand may break
 * that, and is still valid, but then has no score breakdown. */
static int text_read_ledger(khronos_state *k, const json_t *j, char *err, size_t errlen)
{
    const json_t *ledger = json_object_get(j, "ledger");
    if (!ledger)
        return 0;
    int n = k->base.players;
    if (!json_is_array(ledger) || (int)json_array_size(ledger) != n)
        return tb__errf(err, errlen, "'ledger' must give one object per player");
    for (int p = 0; p < n; p++) {
        const json_t *o = json_array_get(ledger, (size_t)p);
        if (!json_is_object(o))
            return tb__errf(err, errlen, "ledger[%d] must be an object", p);
        for (int i = 0; i < 2; i++) {
            const char *key = i == 0 ? "turn4" : "turn7";
            const json_t *e = json_object_get(o, key);
            if (!json_is_array(e) || json_array_size(e) != KH_BOARDS)
                return tb__errf(err, errlen, "ledger[%d].%s must give the Ecus earned on each "
                                "of the 3 boards", p, key);
            for (int b = 0; b < KH_BOARDS; b++) {
                const json_t *x = json_array_get(e, (size_t)b);
                if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                    json_integer_value(x) > 30000)
                    return tb__errf(err, errlen, "ledger[%d].%s[%d] must be a number 0-30000", p,
                                    key, b);
                if (json_integer_value(x) && k->turn < (i == 0 ? 4 : KH_TURNS))
                    return tb__errf(err, errlen, "ledger[%d].%s: nobody has earned in turn %d yet",
                                    p, key, i == 0 ? 4 : KH_TURNS);
                k->earned[p][i][b] = (int16_t)json_integer_value(x);
            }
        }
        long long v;
        char msg[TB_ERR_LEN];
        if (tb__json_int(o, "bonuses", 0, 30000, &v, msg, sizeof msg))
            return tb__errf(err, errlen, "ledger[%d]: %s", p, msg);
        k->bonuses[p] = (int16_t)v;
        if (tb__json_int(o, "spent", 0, 30000, &v, msg, sizeof msg))
            return tb__errf(err, errlen, "ledger[%d]: %s", p, msg);
        k->spent[p] = (int16_t)v;
    }
    return 0;
}

static json_t *text_swapped_json(const khronos_state *k)
{
    uint8_t h[KH_FAMILIES];
    for (int f = 0; f < KH_FAMILIES; f++)
        h[f] = (uint8_t)((k->swapped >> f) & 1);
    return text_cards_json(h);
}

/* What lies on the table for everyone to see, the same in the state and in
 * every seat's view (in this order): the display, the adventurers, the
 * cards left and the pool, and the current turn's flags. */
static void text_table_json(json_t *j, const khronos_state *k)
{
    json_object_set_new(j, "display", text_cards_json(k->display));
    json_object_set_new(j, "pawns", text_pawns_json(k));
    json_object_set_new(j, "left", json_pack("[i,i]", k->left[0], k->left[1]));
    json_object_set_new(j, "pool", json_integer(k->pool));
    json_object_set_new(j, "travelled",
                        json_pack("[b,b]", k->travelled[0] != 0, k->travelled[1] != 0));
    json_object_set_new(j, "exchanged", json_boolean(k->exchanged));
    json_object_set_new(j, "acted", json_boolean(k->acted));
    json_object_set_new(j, "swapped", text_swapped_json(k));
}

json_t *khronos__state_json(const tb_state *s)
{
    const khronos_state *k = (const khronos_state *)s;
    json_t *j = json_object();
    json_object_set_new(j, "turn", json_integer(k->over ? KH_TURNS : k->turn));
    json_object_set_new(j, "over", json_boolean(k->over));
    json_object_set_new(j, "first", json_integer(k->first));
    json_object_set_new(j, "current", json_integer(k->cur));
    json_object_set_new(j, "ecus", text_ints(k->ecus, s->players));
    json_t *hands = json_array();
    for (int p = 0; p < s->players; p++)
        json_array_append_new(hands, text_cards_json(k->hand[p]));
    json_object_set_new(j, "hands", hands);
    char deck[KH_MAXCARDS + 1];
    for (int i = 0; i < k->deck_n; i++)
        deck[i] = kh_family_letter[k->deck[k->deck_n - 1 - i]];
    deck[k->deck_n] = '\0';
    json_object_set_new(j, "deck", json_string(deck));
    json_object_set_new(j, "discard", text_cards_json(k->discard));
    text_table_json(j, k);
    json_object_set_new(j, "boards", text_boards_json(k, true));
    json_object_set_new(j, "pending", text_pending_json(k));
    json_object_set_new(j, "ripple", text_ripple_json(k));
    json_t *res = json_array();
    for (int b = KH_MIGHT; b <= KH_FAITH; b++)
        if (k->board[b].dirty)
            json_array_append_new(res, json_string(kh_board_name[b]));
    json_object_set_new(j, "resolving", res);
    json_object_set_new(j, "last_earnings", text_ints(k->last_earn, s->players));
    json_object_set_new(j, "ledger", text_ledger_json(k));
    return j;
}

json_t *khronos__view_json(const tb_state *s, int seat)
{
    const khronos_state *k = (const khronos_state *)s;
    json_t *j = json_object();
    json_object_set_new(j, "game", json_string("khronos"));
    json_object_set_new(j, "players", json_integer(s->players));
    json_object_set_new(j, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(j, "decisions", json_integer(s->decisions));
    int tm = khronos__to_move(s);
    json_object_set_new(j, "to_move", tm == TB_OVER ? json_null() : json_integer(tm));
    json_object_set_new(j, "phase", json_string(k->over ? "over" : text_pend_name[k->pend]));
    json_object_set_new(j, "pending", text_pending_json(k));
    json_object_set_new(j, "turn", json_integer(k->over ? KH_TURNS : k->turn));
    json_object_set_new(j, "first", json_integer(k->first));
    json_object_set_new(j, "current", json_integer(k->cur));
    json_object_set_new(j, "ecus", text_ints(k->ecus, s->players));
    json_t *cubes = json_array(), *sizes = json_array(), *colours = json_array();
    for (int p = 0; p < s->players; p++) {
        json_array_append_new(cubes, json_integer(k->cubes[p]));
        json_array_append_new(sizes, json_integer(k->hand[p][0] + k->hand[p][1] + k->hand[p][2]));
        json_array_append_new(colours, json_string(kh_colour_name[p]));
    }
    json_object_set_new(j, "colours", colours);
    json_object_set_new(j, "cubes", cubes);
    json_object_set_new(j, "hand_sizes", sizes);
    json_object_set_new(j, "hand", seat >= 0 ? text_cards_json(k->hand[seat]) : json_null());
    json_object_set_new(j, "deck_size", json_integer(k->deck_n));
    json_object_set_new(j, "discard", text_cards_json(k->discard));
    json_object_set_new(j, "holdem", json_boolean(k->holdem));
    text_table_json(j, k);
    json_t *stock = json_object();
    for (int t = 0; t < KH_TYPES; t++)
        json_object_set_new(stock, D.tile[t].name, json_integer(k->stock[t]));
    json_object_set_new(j, "stock", stock);
    json_object_set_new(j, "boards", text_boards_json(k, false));
    json_object_set_new(j, "ripple", text_ripple_json(k));
    json_object_set_new(j, "last_earnings", text_ints(k->last_earn, s->players));
    /* the notice is about the built-in (invented) board, not an owner's board */
    json_object_set_new(j, "notice", s->data->builtin ? json_string(s->game->notice) : json_null());
    if (k->over) {
        json_t *scores = json_array();
        for (int p = 0; p < s->players; p++)
            json_array_append_new(scores, json_integer(k->ecus[p]));
        json_object_set_new(j, "scores", scores);
    }
    return j;
}

/* ---- loading a state ---- */

static int text_get_bool(const json_t *j, const char *key, uint8_t *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(j, key);
    if (!json_is_boolean(v))
        return tb__errf(err, errlen, "'%s' must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

static int text_get_cards(const json_t *v, const char *what, uint8_t h[KH_FAMILIES], char *err,
                          size_t errlen)
{
    const char *s = json_string_value(v);
    if (!s)
        return tb__errf(err, errlen, "%s must be a string of card letters m, r, c", what);
    memset(h, 0, KH_FAMILIES);
    for (const char *p = s; *p; p++) {
        const char *f = memchr(kh_family_letter, *p, KH_FAMILIES);
        if (!f || !*p)
            return tb__errf(err, errlen, "%s: '%c' is not a card letter (m, r, c)", what, *p);
        if (++h[f - kh_family_letter] > 99)
            return tb__errf(err, errlen, "%s holds too many cards", what);
    }
    return 0;
}

static int text_get_board(const json_t *v, const char *what, int lo, int hi, char *err,
                          size_t errlen)
{
    const char *s = json_string_value(v);
    int b = s ? text_board_index(s, strlen(s)) : -1;
    if (b < lo || b > hi) {
        tb__errf(err, errlen, "%s must be %s%s%s", what, lo == 0 ? "might, " : "",
                 hi >= 1 ? "faith" : "", hi == 2 ? " or reason" : "");
        return -1;
    }
    return b;
}

static int text_get_place(const kh_tables *tab, const json_t *v, const char *what, char *err, size_t errlen)
{
    const char *s = json_string_value(v);
    if (!s)
        return tb__errf(err, errlen, "%s must be squares like \"c4-d5\"", what);
    const char *p = s;
    int place = -1;
    if (text_parse_place(tab, &p, &place) != 0 || *p)
        return tb__errf(err, errlen, "%s: '%s' is not the squares of one tile, named like "
                        "\"c4\", \"c4-d5\" or \"c4-e6\" (a state saved when Khronos tiles were "
                        "dominoes and trominoes cannot be loaded)", what, s);
    return place;
}

static int text_get_type(const kh_tables *tab, const json_t *v, const char *what, char *err, size_t errlen)
{
    const char *s = json_string_value(v);
    int t = s ? text_type_index(tab, s, strlen(s)) : -1;
    if (t < 0)
        return tb__errf(err, errlen, "%s must name a building (watchtower, keep, ..., city)", what);
    return t;
}

static int text_get_seat(const json_t *v, int players, const char *what, char *err, size_t errlen)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= players)
        return tb__errf(err, errlen, "%s must be a seat number 0-%d", what, players - 1);
    return (int)json_integer_value(v);
}

static const char *const text_building_keys[] = {"type", "at", "owner", "printed", "ruin",
                                                  "renovation", "cubes", "was", NULL};

/* Reads one board's buildings; checks each on its own (the board-wide checks
 * come after). */
static int text_read_board(khronos_state *k, int b, const json_t *a, char *err, size_t errlen)
{
    kh_board *bd = &k->board[b];
    bd->tab = KT; /* the state's data (set by the core before this is called) */
    const char *bn = kh_board_name[b];
    if (!json_is_array(a))
        return tb__errf(err, errlen, "boards.%s must be an array of buildings", bn);
    kh_bits used;
    memset(&used, 0, sizeof used);
    size_t idx;
    const json_t *o;
    json_array_foreach(a, idx, o) {
        char what[64];
        snprintf(what, sizeof what, "boards.%s[%zu]", bn, idx);
        if (!json_is_object(o))
            return tb__errf(err, errlen, "%s must be an object", what);
        const char *key;
        const json_t *val;
        json_object_foreach((json_t *)o, key, val) {
            bool known = false;
            for (int i = 0; text_building_keys[i] && !known; i++)
                known = strcmp(key, text_building_keys[i]) == 0;
            if (!known)
                return tb__errf(err, errlen, "%s: unknown key '%s'", what, key);
        }
        int t = text_get_type(KT, json_object_get(o, "type"), what, err, errlen);
        if (t < 0)
            return -1;
        int place = text_get_place(KT, json_object_get(o, "at"), what, err, errlen);
        if (place < 0)
            return -1;
        const kh_place *p = &KT->place[place];
        int f = KH_FAMILY(t), v = KH_SIZE(t);
        if (p->size != v)
            return tb__errf(err, errlen, "%s: a %s does not have the shape of these squares",
                            what, D.tile[t].name);
        if (kh_bits_any(kh_bits_and(used, p->mask)))
            return tb__errf(err, errlen, "%s overlaps another building", what);
        kh_bits_add(&used, p->mask);
        if ((p->covers & KH_COVERS_RIVER) && !(f == KH_CIVIL && v >= 2))
            return tb__errf(err, errlen, "%s: only towns and cities may cover river squares", what);
        const json_t *printed = json_object_get(o, "printed");
        bool is_printed = json_is_true(printed);
        if (printed && !json_is_boolean(printed))
            return tb__errf(err, errlen, "%s: 'printed' must be true or false", what);
        if (is_printed && (t != KH_TYPE(KH_CIVIL, 1) || !kh_bits_has(D.printed, p->sq[0])))
            return tb__errf(err, errlen, "%s: only a hamlet on a printed hamlet square is printed",
                            what);
        int owner = KH_NOBODY;
        const json_t *ow = json_object_get(o, "owner");
        if (ow) {
            owner = text_get_seat(ow, k->base.players, what, err, errlen);
            if (owner < 0)
                return -1;
        }
        bool ruin = json_is_true(json_object_get(o, "ruin"));
        if (json_object_get(o, "ruin") && !json_is_boolean(json_object_get(o, "ruin")))
            return tb__errf(err, errlen, "%s: 'ruin' must be true or false", what);
        if (b < KH_REASON) {
            if (ruin)
                return tb__errf(err, errlen, "%s: ruins lie only on the Reason board", what);
            if (f != KH_CIVIL && owner == KH_NOBODY)
                return tb__errf(err, errlen, "%s: a %s on %s needs an owner", what,
                                D.tile[t].name, bn);
        } else {
            if (f != KH_CIVIL && owner != KH_NOBODY)
                return tb__errf(err, errlen, "%s: buildings on the Reason board have no owner",
                                what);
            if (v == 1 && !is_printed)
                return tb__errf(err, errlen, "%s: size-1 tiles never reach the Reason board", what);
        }
        if (f == KH_CIVIL && owner != KH_NOBODY)
            return tb__errf(err, errlen, "%s: civil buildings belong to no one", what);
        if (bd->nb >= KH_MAXB)
            return tb__errf(err, errlen, "boards.%s holds too many buildings", bn);
        kh_bld *x = &bd->b[bd->nb++];
        memset(x, 0, sizeof *x);
        kh_bld_place(x, KT, place);
        x->type = (uint8_t)t;
        x->owner = (uint8_t)owner;
        x->flags = (uint8_t)((is_printed ? KH_PRINTED : 0) | (ruin ? KH_RUIN : 0));
        x->reno = KH_NOBODY;
        memset(x->cube, KH_NOBODY, sizeof x->cube);
        x->orig = KH_NONE;
        const json_t *reno = json_object_get(o, "renovation");
        if (reno) {
            int r = text_get_seat(reno, k->base.players, what, err, errlen);
            if (r < 0)
                return -1;
            if (!ruin || D.tile[t].renovation < 2)
                return tb__errf(err, errlen, "%s: only a ruin that costs 2 cards carries a "
                                "renovation cube", what);
            x->reno = (uint8_t)r;
        }
        const json_t *cubes = json_object_get(o, "cubes");
        if (cubes) {
            if (b != KH_REASON || f != KH_CIVIL)
                return tb__errf(err, errlen, "%s: cubes are put only on civil buildings of the "
                                "Reason board", what);
            if (!json_is_array(cubes) || (int)json_array_size(cubes) > v)
                return tb__errf(err, errlen, "%s: 'cubes' must list at most %d seat%s", what, v,
                                v > 1 ? "s" : "");
            size_t ci;
            const json_t *cv;
            json_array_foreach(cubes, ci, cv) {
                int c = text_get_seat(cv, k->base.players, what, err, errlen);
                if (c < 0)
                    return -1;
                int at = x->ncubes++;
                while (at > 0 && x->cube[at - 1] > c) {
                    x->cube[at] = x->cube[at - 1];
                    at--;
                }
                x->cube[at] = (uint8_t)c;
            }
        }
        const json_t *was = json_object_get(o, "was");
        if (was) {
            long long pw;
            const char *dom = json_string_value(json_object_get(was, "domain"));
            const char *dp = dom ? dom : "";
            int dsq = kh_parse_square(KT, &dp);
            if (!json_is_object(was) || dsq < 0 || *dp || f == KH_CIVIL || b == KH_REASON ||
                tb__json_int(was, "power", 0, 255, &pw, err, errlen))
                return tb__errf(err, errlen, "%s: 'was' must be {\"domain\": SQUARE, \"power\": N} "
                                "on a military or religious building of Might or Faith", what);
            x->orig = (uint8_t)dsq;
            x->opower = (uint8_t)pw;
        }
    }
    /* sorted by first square */
    for (int i = 1; i < bd->nb; i++) {
        kh_bld x = bd->b[i];
        int j = i;
        while (j > 0 && kh_anchor(&bd->b[j - 1]) > kh_anchor(&x)) {
            bd->b[j] = bd->b[j - 1];
            j--;
        }
        bd->b[j] = x;
    }
    kh_board_rebuild(bd);
    for (int h = 0; h < D.hamlets; h++) {
        int sq = D.hamlet[h];
        int i = bd->at[sq];
        if (i == KH_NONE) {
            if (bd->nb >= KH_MAXB)
                return tb__errf(err, errlen, "boards.%s holds too many buildings", bn);
            kh_board_add(bd, D.place_first[1] + sq, KH_TYPE(KH_CIVIL, 1), KH_NOBODY, KH_PRINTED);
        } else if (KH_FAMILY(bd->b[i].type) != KH_CIVIL) {
            char name[8];
            kh_square_name(KT, sq, name, sizeof name);
            return tb__errf(err, errlen, "boards.%s: the printed hamlet square %s must hold a "
                            "civil building", bn, name);
        } else if (KH_SIZE(bd->b[i].type) == 1 && !(bd->b[i].flags & KH_PRINTED)) {
            char name[8];
            kh_square_name(KT, sq, name, sizeof name);
            return tb__errf(err, errlen, "boards.%s: %s is a printed hamlet (write \"printed\": "
                            "true)", bn, name);
        }
    }
    return 0;
}

int khronos__state_from_json(tb_state *s, const json_t *j, char *err, size_t errlen)
{
    khronos_state *k = (khronos_state *)s;
    size_t base = sizeof(tb_state);
    memset((char *)k + base, 0, sizeof *k - base);
    int n = s->players;
    k->holdem = tb__option_index(s, "holdem") == 1;
    long long v;
    uint8_t over = 0;
    if (text_get_bool(j, "over", &over, err, errlen))
        return -1;
    k->over = over;
    if (tb__json_int(j, "turn", 1, KH_TURNS, &v, err, errlen))
        return -1;
    k->turn = (uint8_t)(over ? KH_TURNS + 1 : v);
    if (over && v != KH_TURNS)
        return tb__errf(err, errlen, "a game that is over ends in turn %d", KH_TURNS);
    if (tb__json_int(j, "first", 0, n - 1, &v, err, errlen))
        return -1;
    k->first = (uint8_t)v;
    if (tb__json_int(j, "current", 0, n - 1, &v, err, errlen))
        return -1;
    k->cur = (uint8_t)v;
    if (over && k->cur != k->first)
        return tb__errf(err, errlen, "a game that is over has 'current' equal to 'first'");
    const json_t *ecus = json_object_get(j, "ecus"), *hands = json_object_get(j, "hands");
    const json_t *pawns = json_object_get(j, "pawns"), *le = json_object_get(j, "last_earnings");
    if (!json_is_array(ecus) || (int)json_array_size(ecus) != n)
        return tb__errf(err, errlen, "'ecus' must give one number per player");
    if (!json_is_array(hands) || (int)json_array_size(hands) != n)
        return tb__errf(err, errlen, "'hands' must give one string of cards per player");
    if (!json_is_array(pawns) || (int)json_array_size(pawns) != n)
        return tb__errf(err, errlen, "'pawns' must give two boards per player");
    if (!json_is_array(le) || (int)json_array_size(le) != n)
        return tb__errf(err, errlen, "'last_earnings' must give one number per player");
    int cards[KH_FAMILIES] = {0};
    for (int p = 0; p < n; p++) {
        const json_t *e = json_array_get(ecus, (size_t)p), *l = json_array_get(le, (size_t)p);
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > 30000)
            return tb__errf(err, errlen, "ecus[%d] must be a number 0-30000 (Ecus never go below 0)", p);
        k->ecus[p] = (int16_t)json_integer_value(e);
        if (!json_is_integer(l) || json_integer_value(l) < 0 || json_integer_value(l) > 30000)
            return tb__errf(err, errlen, "last_earnings[%d] must be a number 0-30000", p);
        k->last_earn[p] = (int16_t)json_integer_value(l);
        char what[32];
        snprintf(what, sizeof what, "hands[%d]", p);
        if (text_get_cards(json_array_get(hands, (size_t)p), what, k->hand[p], err, errlen))
            return -1;
        if (k->hand[p][0] + k->hand[p][1] + k->hand[p][2] > D.hand)
            return tb__errf(err, errlen, "hands[%d] holds more than %d cards", p, D.hand);
        for (int f = 0; f < KH_FAMILIES; f++)
            cards[f] += k->hand[p][f];
        const json_t *pw = json_array_get(pawns, (size_t)p);
        if (!json_is_array(pw) || json_array_size(pw) != 2)
            return tb__errf(err, errlen, "pawns[%d] must name two boards", p);
        for (int a = 0; a < 2; a++) {
            snprintf(what, sizeof what, "pawns[%d][%d]", p, a);
            int b = text_get_board(json_array_get(pw, (size_t)a), what, 0, 2, err, errlen);
            if (b < 0)
                return -1;
            k->pawn[p][a] = (uint8_t)b;
        }
    }
    const char *deck = json_string_value(json_object_get(j, "deck"));
    if (!deck || strlen(deck) > KH_MAXCARDS)
        return tb__errf(err, errlen, "'deck' must be a string of card letters, the top first");
    k->deck_n = (uint8_t)strlen(deck);
    for (int i = 0; i < k->deck_n; i++) {
        const char *f = memchr(kh_family_letter, deck[i], KH_FAMILIES);
        if (!f || !deck[i])
            return tb__errf(err, errlen, "deck: '%c' is not a card letter (m, r, c)", deck[i]);
        k->deck[k->deck_n - 1 - i] = (uint8_t)(f - kh_family_letter);
        cards[f - kh_family_letter]++;
    }
    if (text_get_cards(json_object_get(j, "discard"), "'discard'", k->discard, err, errlen) ||
        text_get_cards(json_object_get(j, "display"), "'display'", k->display, err, errlen))
        return -1;
    for (int f = 0; f < KH_FAMILIES; f++) {
        if (k->display[f] > 1 || (k->display[f] && !k->holdem))
            return tb__errf(err, errlen, "'display' holds at most one card of each colour, and "
                            "only with holdem=on");
        cards[f] += k->discard[f] + k->display[f];
        if (cards[f] != D.cards[f])
            return tb__errf(err, errlen, "%d %s cards in hands, deck, discards and display; there "
                            "are %d", cards[f], kh_family_name[f], D.cards[f]);
    }
    /* the current player's turn */
    const json_t *left = json_object_get(j, "left");
    if (!json_is_array(left) || json_array_size(left) != 2)
        return tb__errf(err, errlen, "'left' must give the cards each adventurer of the current "
                        "player may still play");
    for (int a = 0; a < 2; a++) {
        const json_t *x = json_array_get(left, (size_t)a);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            json_integer_value(x) > KH_CARDS_PER_PAWN)
            return tb__errf(err, errlen, "left[%d] must be 0-%d", a, KH_CARDS_PER_PAWN);
        k->left[a] = (uint8_t)json_integer_value(x);
    }
    if (tb__json_int(j, "pool", 0, 2 * KH_CARDS_PER_PAWN, &v, err, errlen))
        return -1;
    k->pool = (uint8_t)v;
    if (k->pool && (k->pawn[k->cur][0] != k->pawn[k->cur][1] || k->pool > k->left[0] + k->left[1]))
        return tb__errf(err, errlen, "'pool' counts cards played together by two adventurers on "
                        "one board, at most what they had left");
    /* optional (states written before it existed read as "no adventurer
     * has travelled without playing since") */
    const json_t *travelled = json_object_get(j, "travelled");
    if (travelled) {
        if (!json_is_array(travelled) || json_array_size(travelled) != 2 ||
            !json_is_boolean(json_array_get(travelled, 0)) ||
            !json_is_boolean(json_array_get(travelled, 1)))
            return tb__errf(err, errlen, "'travelled' must say for each adventurer of the "
                            "current player (true or false) whether it has travelled since it "
                            "last played a card this turn");
        for (int a = 0; a < 2; a++)
            k->travelled[a] = json_is_true(json_array_get(travelled, (size_t)a));
    }
    for (int p = 0; p < n; p++)
        kh_sort_pawns(k, p);
    if (text_read_ledger(k, j, err, errlen))
        return -1;
    if (text_get_bool(j, "exchanged", &k->exchanged, err, errlen) ||
        text_get_bool(j, "acted", &k->acted, err, errlen))
        return -1;
    uint8_t sw[KH_FAMILIES];
    if (text_get_cards(json_object_get(j, "swapped"), "'swapped'", sw, err, errlen))
        return -1;
    for (int f = 0; f < KH_FAMILIES; f++) {
        if (sw[f] > 1 || (sw[f] && !k->holdem))
            return tb__errf(err, errlen, "'swapped' names each colour taken from the display at "
                            "most once, and only with holdem=on");
        k->swapped |= (uint8_t)(sw[f] << f);
    }
    if (over && (k->left[0] || k->left[1] || k->pool || k->travelled[0] || k->travelled[1] ||
                 k->exchanged || k->acted || k->swapped))
        return tb__errf(err, errlen, "a game that is over has no turn in progress (left [0,0], "
                        "pool 0, nobody travelled, nothing exchanged, acted or swapped)");
    if ((k->travelled[0] || k->travelled[1]) && !k->acted)
        return tb__errf(err, errlen, "an adventurer that travelled this turn means the current "
                        "player has acted ('acted' true)");
    /* boards */
    const json_t *boards = json_object_get(j, "boards");
    if (!json_is_object(boards))
        return tb__errf(err, errlen, "'boards' must be an object with might, faith and reason");
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)boards, key, val) {
        if (text_board_index(key, strlen(key)) < 0)
            return tb__errf(err, errlen, "boards: unknown board '%s'", key);
    }
    for (int b = 0; b < KH_BOARDS; b++)
        if (text_read_board(k, b, json_object_get(boards, kh_board_name[b]), err, errlen))
            return -1;
    const json_t *res = json_object_get(j, "resolving");
    if (!json_is_array(res))
        return tb__errf(err, errlen, "'resolving' must list the boards still being resolved");
    size_t ri;
    json_array_foreach(res, ri, val) {
        int b = text_get_board(val, "resolving", 0, 1, err, errlen);
        if (b < 0)
            return -1;
        k->board[b].dirty = 1;
    }
    for (int b = 0; b < KH_BOARDS; b++)
        for (int i = 0; i < k->board[b].nb; i++)
            if (k->board[b].b[i].orig != KH_NONE && !k->board[b].dirty)
                return tb__errf(err, errlen, "boards.%s: 'was' is only kept while the board is "
                                "being resolved", kh_board_name[b]);
    kh_recount(k);
    for (int t = 0; t < KH_TYPES; t++)
        if (k->stock[t] > D.tile[t].count)
            return tb__errf(err, errlen, "more %s tiles on the boards than the %d there are",
                            D.tile[t].name, D.tile[t].count);
    for (int p = 0; p < n; p++)
        if (k->cubes[p] > D.cubes)
            return tb__errf(err, errlen, "seat %d has more than %d cubes on the boards", p, D.cubes);
    /* pending decision and shadow */
    const json_t *pend = json_object_get(j, "pending");
    k->pend_target = KH_NONE;
    if (pend && !json_is_null(pend)) {
        const char *kind = json_string_value(json_object_get(pend, "kind"));
        int pk = -1;
        for (int i = 1; i <= KH_P_KEEP && kind; i++)
            if (strcmp(kind, text_pend_name[i]) == 0)
                pk = i;
        if (!json_is_object(pend) || pk < 0)
            return tb__errf(err, errlen, "'pending' must be null or an object whose kind is "
                            "squares, pay, pick or keep");
        k->pend = (uint8_t)pk;
        int b = text_get_board(json_object_get(pend, "board"), "pending.board", 0, 1, err, errlen);
        if (b < 0)
            return -1;
        k->pend_board = (uint8_t)b;
        const kh_board *bd = &k->board[b];
        if (pk == KH_P_SQUARES || pk == KH_P_PAY) {
            int t = text_get_type(KT, json_object_get(pend, "type"), "pending.type", err, errlen);
            if (t < 0)
                return -1;
            k->pend_type = (uint8_t)t;
        }
        if (pk != KH_P_PICK) {
            const json_t *tg = json_object_get(pend, "target");
            if (tg && !json_is_null(tg)) {
                const char *ts = json_string_value(tg);
                const char *tp = ts ? ts : "";
                int sq = kh_parse_square(KT, &tp);
                if (sq < 0 || *tp || kh_board_find(bd, sq) < 0)
                    return tb__errf(err, errlen, "pending.target must be the first square of a "
                                    "building on %s", kh_board_name[b]);
                k->pend_target = (uint8_t)sq;
            } else if (pk == KH_P_KEEP) {
                return tb__errf(err, errlen, "pending.target must name the building being "
                                "downsized");
            }
        }
        if (pk == KH_P_KEEP) {
            const kh_bld *x = &bd->b[kh_board_find(bd, k->pend_target)];
            if (KH_SIZE(x->type) < 2 || KH_FAMILY(x->type) == KH_CIVIL || !k->stock[x->type - 1])
                return tb__errf(err, errlen, "pending.target must be a military or religious "
                                "building of size 2 or 3 whose smaller tile is in stock");
        }
        if (pk == KH_P_SQUARES || pk == KH_P_PAY) {
            if (k->pend_target != KH_NONE) {
                const kh_bld *x = &bd->b[kh_board_find(bd, k->pend_target)];
                if (KH_FAMILY(x->type) != KH_FAMILY(k->pend_type) ||
                    KH_SIZE(x->type) >= KH_SIZE(k->pend_type))
                    return tb__errf(err, errlen, "pending: a %s cannot be upgraded to a %s",
                                    D.tile[x->type].name, D.tile[k->pend_type].name);
            }
        }
        if (pk == KH_P_PAY) {
            int place = text_get_place(KT, json_object_get(pend, "at"), "pending.at", err, errlen);
            if (place < 0)
                return -1;
            if (KT->place[place].size != KH_SIZE(k->pend_type))
                return tb__errf(err, errlen, "pending.at does not fit a %s",
                                D.tile[k->pend_type].name);
            k->pend_place = (uint16_t)place;
            if (tb__json_int(pend, "extra", 1, 6, &v, err, errlen))
                return -1;
            k->pend_extra = (uint8_t)v;
        }
        if (pk == KH_P_PICK || pk == KH_P_KEEP) {
            if (!k->board[b].dirty)
                return tb__errf(err, errlen, "pending %s: the board %s must be in 'resolving'",
                                kind, kh_board_name[b]);
        }
        if (pk == KH_P_PICK) {
            kh_conflict c;
            kh_board_conflict(&k->board[b], k->cur, &c);
            if (!c.found || c.forced)
                return tb__errf(err, errlen, "pending pick: %s has no conflict to choose in",
                                kh_board_name[b]);
        }
    }
    const json_t *rip = json_object_get(j, "ripple");
    if (rip && !json_is_null(rip)) {
        if (!json_is_object(rip))
            return tb__errf(err, errlen, "'ripple' must be null or a shadow to lay");
        int b = text_get_board(json_object_get(rip, "board"), "ripple.board", 1, 2, err, errlen);
        int t = b < 0 ? -1 : text_get_type(KT, json_object_get(rip, "type"), "ripple.type", err, errlen);
        int place = t < 0 ? -1 : text_get_place(KT, json_object_get(rip, "at"), "ripple.at", err, errlen);
        if (place < 0)
            return -1;
        if (KH_SIZE(t) < 2 || KT->place[place].size != KH_SIZE(t))
            return tb__errf(err, errlen, "ripple: only buildings of size 2 and 3 ripple, on "
                            "their own squares");
        int owner = KH_NOBODY;
        if (KH_FAMILY(t) != KH_CIVIL) {
            owner = text_get_seat(json_object_get(rip, "owner"), n, "ripple.owner", err, errlen);
            if (owner < 0)
                return -1;
        } else if (json_object_get(rip, "owner")) {
            return tb__errf(err, errlen, "ripple: civil buildings have no owner");
        }
        k->rip.active = 1;
        k->rip.board = (uint8_t)b;
        k->rip.type = (uint8_t)t;
        k->rip.owner = (uint8_t)owner;
        k->rip.place = (uint16_t)place;
    }
    if (over && (k->pend || k->rip.active || k->board[0].dirty || k->board[1].dirty))
        return tb__errf(err, errlen, "a game that is over has nothing pending");
    if (!over) {
        tb_move *moves = malloc(TB_MAX_MOVES * sizeof *moves);
        if (!moves)
            return tb__errf(err, errlen, "out of memory while reading the state");
        int n_legal = s->game->legal(s, moves);
        free(moves);
        if (n_legal == 0)
            return tb__errf(err, errlen, "no decision is possible in this state (e.g. a pending "
                            "building with no squares it could take)");
    }
    if (!k->pend && !k->rip.active && !k->board[0].dirty && !k->board[1].dirty) {
        for (int b = KH_MIGHT; b <= KH_FAITH; b++) {
            kh_conflict c;
            kh_board_conflict(&k->board[b], k->cur, &c);
            if (c.found) {
                char name[8];
                kh_square_name(KT, kh_anchor(&k->board[b].b[k->board[b].b[c.cand[0]].dom]), name,
                               sizeof name);
                return tb__errf(err, errlen, "boards.%s: the domain of %s has two highest %s "
                                "buildings (rule of hierarchy)", kh_board_name[b], name,
                                kh_family_name[KH_FAMILY(k->board[b].b[c.cand[0]].type)]);
            }
        }
    }
    return 0;
}

/* ---- the static board ---- */

static const char *const text_terrain_name[KH_TERRAINS] = {
    "plain", "forest", "mountain", "river", "plain+forest", "forest+mountain"};
static const char text_terrain_char[KH_TERRAINS] = {'.', 'f', 'm', '~', '/', '^'};

json_t *khronos__data_board_json(const struct tb_data *data)
{
    const kh_tables *tab = data->tables;
    json_t *j = json_object();
    json_object_set_new(j, "game", json_string("khronos"));
    json_object_set_new(j, "data", tb__data_json(data));
    /* the built-in board is invented; a loaded one is its owner's */
    json_object_set_new(j, "placeholder", json_boolean(data->builtin));
    if (data->builtin)
        json_object_set_new(j, "notice", json_string(tb__khronos_game.notice));
    json_object_set_new(j, "width", json_integer(tab->data.width));
    json_object_set_new(j, "height", json_integer(tab->data.height));
    json_t *rows = json_array();
    for (int r = 0; r < tab->data.height; r++) {
        char row[40];
        for (int c = 0; c < tab->data.width; c++)
            row[c] = text_terrain_char[tab->data.terrain[r * tab->data.width + c]];
        row[tab->data.width] = '\0';
        json_array_append_new(rows, json_string(row));
    }
    json_object_set_new(j, "terrain", rows);
    json_t *legend = json_object();
    for (int t = 0; t < KH_TERRAINS; t++) {
        char c[2] = {text_terrain_char[t], 0};
        json_object_set_new(legend, c, json_string(text_terrain_name[t]));
    }
    json_object_set_new(j, "terrain_legend", legend);
    json_t *ham = json_array();
    for (int h = 0; h < tab->data.hamlets; h++)
        json_array_append_new(ham, text_square_json(tab, tab->data.hamlet[h]));
    json_object_set_new(j, "printed_hamlets", ham);
    json_object_set_new(j, "start_board", json_string(kh_board_name[tab->data.start_board]));
    json_object_set_new(j, "boards", json_pack("[s,s,s]", kh_board_name[0], kh_board_name[1],
                                               kh_board_name[2]));
    json_t *tiles = json_array();
    for (int t = 0; t < KH_TYPES; t++)
        json_array_append_new(tiles, json_pack("{s:s,s:s,s:i,s:i,s:i}", "name", tab->data.tile[t].name,
                                               "family", kh_family_name[KH_FAMILY(t)], "size",
                                               KH_SIZE(t), "count", tab->data.tile[t].count,
                                               "renovation", tab->data.tile[t].renovation));
    json_object_set_new(j, "tiles", tiles);
    json_t *shapes = json_object();
    for (int s = 1; s <= 3; s++) {
        /* the distinct shapes as offsets from the first square, from the placements at a1 */
        json_t *a = json_array();
        for (int i = tab->data.place_first[s]; i < tab->data.place_end[s]; i++) {
            const kh_place *p = &tab->place[i];
            int r0 = p->sq[0] / tab->data.width, c0 = p->sq[0] % tab->data.width;
            bool left_col = true;
            int minc = c0;
            for (int k = 0; k < p->n; k++)
                if (p->sq[k] % tab->data.width < minc)
                    minc = p->sq[k] % tab->data.width;
            left_col = minc == 0 && r0 == 0;
            if (!left_col)
                continue;
            json_t *cells = json_array();
            for (int k = 0; k < p->n; k++)
                json_array_append_new(cells, json_pack("[i,i]", p->sq[k] / tab->data.width - r0,
                                                       p->sq[k] % tab->data.width));
            json_array_append_new(a, cells);
        }
        char key[4];
        snprintf(key, sizeof key, "%d", s);
        json_object_set_new(shapes, key, a);
    }
    json_object_set_new(j, "shapes", shapes);
    json_object_set_new(j, "cards", json_pack("{s:i,s:i,s:i}", "military", tab->data.cards[0],
                                              "religious", tab->data.cards[1], "civil", tab->data.cards[2]));
    json_t *sur = json_object();
    json_t *fo = json_object(), *mo = json_object();
    for (int n = 2; n <= TB_MAX_SEATS; n++) {
        char key[4];
        snprintf(key, sizeof key, "%d", n);
        json_object_set_new(fo, key, json_integer(tab->data.surcharge_forest[n]));
        json_object_set_new(mo, key, json_integer(tab->data.surcharge_mountain[n]));
    }
    json_object_set_new(sur, "forest", fo);
    json_object_set_new(sur, "mountain", mo);
    json_object_set_new(j, "surcharge", sur);
    json_object_set_new(j, "per_player", json_pack("{s:i,s:i,s:i,s:i}", "cubes", tab->data.cubes, "ecus",
                                                   tab->data.ecus, "hand", tab->data.hand, "adventurers", 2));
    json_t *colours = json_array();
    for (int p = 0; p < TB_MAX_SEATS; p++)
        json_array_append_new(colours, json_string(kh_colour_name[p]));
    json_object_set_new(j, "colours", colours);
    return j;
}

/* ---- the terminal ---- */

#define ANSI_RESET "\033[0m"
#define ANSI_BOLD "\033[1m"
#define ANSI_DIM "\033[2m"
static const char *const text_ansi_seat[TB_MAX_SEATS] = {"\033[1;31m", "\033[1;32m", "\033[1;34m",
                                                         "\033[1;97m", "\033[1;33m"};
static const char *const text_ansi_family[KH_FAMILIES] = {"\033[38;5;208m", "\033[35m", "\033[36m"};
static const char *const text_ansi_terrain[KH_TERRAINS] = {"", "\033[32m", "\033[90m", "\033[34m",
                                                           "\033[92m", "\033[37m"};

/* The fill of a building's further squares, n characters, so that a 2x2 or
 * 3x3 block reads as one building: its family's mark ('#' military, '+'
 * religious, '=' civil), ':' for a ruin. */
static void text_fill(tb_buf *out, const kh_bld *x, int f, int n, bool colour)
{
    static const char mark[KH_FAMILIES] = {'#', '+', '='};
    char c = (x->flags & KH_RUIN) ? ':' : mark[f];
    if (colour)
        tb__buf_printf(out, "%s", text_ansi_family[f]);
    for (int i = 0; i < n; i++)
        tb__buf_printf(out, "%c", c);
    if (colour)
        tb__buf_printf(out, ANSI_RESET);
}

/* One square, three characters wide. */
static void text_cell(tb_buf *out, const khronos_state *k, int b, int sq, bool colour)
{
    const kh_board *bd = &k->board[b];
    int i = bd->at[sq];
    if (i == KH_NONE) {
        int t = D.terrain[sq];
        char c = text_terrain_char[t];
        if (colour && t)
            tb__buf_printf(out, "%s %c %s", text_ansi_terrain[t], c, ANSI_RESET);
        else if (colour)
            tb__buf_printf(out, ANSI_DIM " %c " ANSI_RESET, c);
        else
            tb__buf_printf(out, " %c ", c);
        return;
    }
    const kh_bld *x = &bd->b[i];
    const kh_place *p = kh_place_of(KT, x);
    int f = KH_FAMILY(x->type), v = KH_SIZE(x->type), part = 0;
    while (p->sq[part] != sq)
        part++;
    char c1, c2;
    int who[1] = {-1};
    if (part == 0) {
        if (x->flags & KH_PRINTED) {
            /* a printed hamlet: " H ", or " Hr" with a populate cube */
            int c = x->ncubes ? x->cube[0] : -1;
            tb__buf_printf(out, " %sH%s", colour ? text_ansi_family[KH_CIVIL] : "",
                           colour ? ANSI_RESET : "");
            if (c < 0)
                tb__buf_printf(out, " ");
            else
                tb__buf_printf(out, "%s%c%s", colour ? text_ansi_seat[c] : "", text_colour_letter[c],
                               colour ? ANSI_RESET : "");
            return;
        }
        c1 = (x->flags & KH_RUIN) ? (char)tolower(kh_family_letter[f]) : (char)toupper(kh_family_letter[f]);
        c2 = (char)('0' + v);
        who[0] = x->owner != KH_NOBODY ? x->owner : x->reno != KH_NOBODY ? x->reno
                 : x->ncubes ? x->cube[0] : -1;
        if (colour)
            tb__buf_printf(out, "%s%c%c", text_ansi_family[f], c1, c2);
        else
            tb__buf_printf(out, "%c%c", c1, c2);
        if (who[0] < 0)
            tb__buf_printf(out, "%s ", colour ? ANSI_RESET : "");
        else if (colour)
            tb__buf_printf(out, "%s%c%s", text_ansi_seat[who[0]], text_colour_letter[who[0]],
                           ANSI_RESET);
        else
            tb__buf_printf(out, "%c", text_colour_letter[who[0]]);
        return;
    }
    /* a further square of the building: filled with its family's mark
     * ("###" military, "+++" religious, "===" civil, ":::" a ruin), or one
     * mark and more populate cubes ("=gb") */
    int first_cube = part == 1 ? 1 : 3;
    bool cubes = first_cube < x->ncubes;
    if (!cubes) {
        text_fill(out, x, f, 3, colour);
        return;
    }
    text_fill(out, x, f, 1, colour);
    for (int c = first_cube; c < first_cube + 2; c++) {
        if (c < x->ncubes && colour)
            tb__buf_printf(out, "%s%c%s", text_ansi_seat[x->cube[c]], text_colour_letter[x->cube[c]],
                           ANSI_RESET);
        else if (c < x->ncubes)
            tb__buf_printf(out, "%c", text_colour_letter[x->cube[c]]);
        else
            tb__buf_printf(out, " ");
    }
}

static void text_hr(tb_buf *out, const char *bold, const char *reset, const char *title)
{
    tb__buf_printf(out, "%s%s%s\n", bold, title, reset);
}

/* Boards [first, last) side by side: titles (with the adventurers on
 * them), column letters, then the rows. */
static void text_boards_band(tb_buf *out, const khronos_state *k, int first, int last,
                             bool colour)
{
    static const char *const title[KH_BOARDS] = {"MIGHT (1st age)", "FAITH (2nd age)",
                                                 "REASON (3rd age)"};
    const char *bold = colour ? ANSI_BOLD : "", *reset = colour ? ANSI_RESET : "";
    int w = D.width * 3;
    tb__buf_printf(out, "   ");
    for (int b = first; b < last; b++) {
        char pawns[32] = "";
        int len = 0;
        for (int p = 0; p < k->base.players; p++)
            for (int a = 0; a < 2; a++)
                if (k->pawn[p][a] == b && len + 2 < (int)sizeof pawns)
                    pawns[len++] = text_colour_letter[p];
        pawns[len] = '\0';
        char head[96];
        int hl = snprintf(head, sizeof head, "%s %s%s", title[b], len ? "@" : "", pawns);
        tb__buf_printf(out, "%s%s%s%*s", bold, head, reset, w + 2 - hl > 0 ? w + 2 - hl : 1, "");
    }
    tb__buf_printf(out, "\n   ");
    for (int b = first; b < last; b++) {
        for (int c = 0; c < D.width; c++)
            tb__buf_printf(out, " %c ", 'a' + c);
        tb__buf_printf(out, "  ");
    }
    tb__buf_printf(out, "\n");
    for (int r = 0; r < D.height; r++) {
        tb__buf_printf(out, "%2d ", r + 1);
        for (int b = first; b < last; b++) {
            for (int c = 0; c < D.width; c++)
                text_cell(out, k, b, r * D.width + c, colour);
            tb__buf_printf(out, "  ");
        }
        tb__buf_printf(out, "\n");
    }
}

char *khronos__render_text(const tb_state *s, int seat, unsigned flags)
{
    bool colour = (flags & TB_RENDER_COLOUR) != 0;
    const khronos_state *k = (const khronos_state *)s;
    tb_buf out = {0};
    const char *bold = colour ? ANSI_BOLD : "", *reset = colour ? ANSI_RESET : "";
    int n = s->players;
    tb__buf_printf(&out, "%sKhronos%s  %d players  ·  ", bold, reset, n);
    if (k->over)
        tb__buf_printf(&out, "game over after turn %d", KH_TURNS);
    else
        tb__buf_printf(&out, "turn %d of %d%s  ·  seat %d (%s) is playing", k->turn, KH_TURNS,
                       k->turn == 4 || k->turn == KH_TURNS ? " (earnings)" : "", k->cur + 1,
                       kh_colour_name[k->cur]);
    if (seat >= 0)
        tb__buf_printf(&out, "  ·  you are seat %d (%s%s%s)", seat + 1,
                       colour ? text_ansi_seat[seat] : "", kh_colour_name[seat], reset);
    tb__buf_printf(&out, "\n");
    /* the three boards side by side when that fits 120 columns, else Might
     * and Faith, then Reason below them */
    int per_band = 3 + KH_BOARDS * (D.width * 3 + 2) <= 120 ? KH_BOARDS : 2;
    for (int first = 0; first < KH_BOARDS; first += per_band)
        text_boards_band(&out, k, first, first + per_band < KH_BOARDS ? first + per_band
                                                                      : KH_BOARDS, colour);
    tb__buf_printf(&out, "   M military, R religious, C civil + size (1-3) + owner; H printed hamlet;"
                         " m2 ruin (+ renovation cube);\n"
                         "   ### +++ === ::: the rest of a military, religious, civil building, a ruin"
                         " (+ populate cubes);\n"
                         "   terrain . plain f forest m mountain ~ river / ^ mixed\n");
    /* domains that pay */
    for (int b = 0; b < KH_BOARDS; b++) {
        const kh_board *bd = &k->board[b];
        kh_domstat st[KH_MAXB];
        kh_board_domains(bd, st);
        tb__buf_printf(&out, "%s%-7s%s", bold, kh_board_name[b], reset);
        int shown = 0;
        for (int i = 0; i < bd->nb; i++) {
            if (bd->b[i].dom != i || st[i].members < 2)
                continue;
            char id[8];
            kh_square_name(KT, kh_anchor(&bd->b[i]), id, sizeof id);
            if (shown && shown % 3 == 0)
                tb__buf_printf(&out, "\n       ");
            tb__buf_printf(&out, " [%s: %d buildings, power m%d r%d c%d]", id, st[i].members,
                           st[i].power[0], st[i].power[1], st[i].power[2]);
            shown++;
        }
        if (!shown)
            tb__buf_printf(&out, " (no domain of two or more buildings)");
        tb__buf_printf(&out, "\n");
    }
    /* players */
    tb__buf_printf(&out, "%sseat colour  ecus cubes hand  adventurers      earnings now (m/f/r)%s\n",
                   bold, reset);
    for (int p = 0; p < n; p++) {
        char hand[16];
        if (p == seat)
            text_hand(k->hand[p], hand, sizeof hand);
        else
            snprintf(hand, sizeof hand, "%d cards", k->hand[p][0] + k->hand[p][1] + k->hand[p][2]);
        int e[KH_BOARDS];
        kh_earnings(k, p, e);
        char adv[40];
        snprintf(adv, sizeof adv, "%s, %s", kh_board_name[k->pawn[p][0]], kh_board_name[k->pawn[p][1]]);
        char last[32] = "";
        if (k->turn > 4)
            snprintf(last, sizeof last, "  (earned %d last time)", k->last_earn[p]);
        tb__buf_printf(&out, "%s%d %s%-6s%s %5d %5d %-7s %-16s %d/%d/%d%s%s\n",
                       p == k->cur && !k->over ? ">" : " ", p, colour ? text_ansi_seat[p] : "",
                       kh_colour_name[p], reset, k->ecus[p], k->cubes[p], hand, adv, e[0], e[1],
                       e[2], last, p == seat ? "  (you)" : "");
    }
    if (!k->over) {
        const uint8_t *pw = k->pawn[k->cur];
        if (pw[0] == pw[1])
            tb__buf_printf(&out, "Cards the adventurers may still play this turn: %d together on %s",
                           k->left[0] + k->left[1] - k->pool, kh_board_name[pw[0]]);
        else
            tb__buf_printf(&out, "Cards the adventurers may still play this turn: %d on %s, %d on %s",
                           k->left[0], kh_board_name[pw[0]], k->left[1], kh_board_name[pw[1]]);
        tb__buf_printf(&out, "%s%s\n", k->exchanged ? "  ·  hand exchanged" : "",
                       k->acted ? "" : "  ·  exchange still possible");
    }
    char disc[80];
    text_hand(k->discard, disc, sizeof disc);
    tb__buf_printf(&out, "Deck %d cards  ·  discards %s", k->deck_n, *disc ? disc : "none");
    if (k->holdem) {
        char disp[8];
        text_hand(k->display, disp, sizeof disp);
        tb__buf_printf(&out, "  ·  hold'em display %s", *disp ? disp : "empty");
    }
    tb__buf_printf(&out, "\nStock:");
    for (int t = 0; t < KH_TYPES; t++)
        tb__buf_printf(&out, " %s %d%s", D.tile[t].name, k->stock[t], t + 1 < KH_TYPES ? "," : "");
    tb__buf_printf(&out, "\n");
    if (k->over) {
        text_hr(&out, bold, reset, "Final Ecus:");
        for (int p = 0; p < n; p++)
            tb__buf_printf(&out, "  seat %d (%s) %d\n", p + 1, kh_colour_name[p], k->ecus[p]);
    }
    return tb__buf_take(&out);
}

json_t *khronos__prompt_msg(const tb_state *s)
{
    const khronos_state *k = (const khronos_state *)s;
    if (k->over)
        return tb__msg_word(N_("the game is over"));
    int p = k->cur;
    char a[8];
    switch (k->pend) {
    case KH_P_SQUARES:
        return tb__msg(N_("seat {seat} ({colour}) chooses the squares of the {tile} on {board}, e.g. {example}"),
                       "seat:d colour:m tile:m board:m example:s", p + 1,
                       tb__msg_word(kh_colour_name[p]), tb__msg_word(D.tile[k->pend_type].name),
                       tb__msg_word(kh_board_name[k->pend_board]),
                       KH_SIZE(k->pend_type) == 1 ? "c4" : KH_SIZE(k->pend_type) == 2 ? "c4-d5" : "c4-e6");
    case KH_P_PAY:
        return k->pend_extra > 1
                   ? tb__msg(N_("seat {seat} ({colour}) chooses {n} surcharge cards: pay CARDS (m r c)"),
                             "seat:d colour:m n:d", p + 1, tb__msg_word(kh_colour_name[p]), k->pend_extra)
                   : tb__msg(N_("seat {seat} ({colour}) chooses {n} surcharge card: pay CARDS (m r c)"),
                             "seat:d colour:m n:d", p + 1, tb__msg_word(kh_colour_name[p]), k->pend_extra);
    case KH_P_PICK:
        return tb__msg(N_("seat {seat} ({colour}) chooses the building of {board} to downsize: downsize {notation} SQUARE"),
                       "seat:d colour:m board:m notation:s", p + 1, tb__msg_word(kh_colour_name[p]),
                       tb__msg_word(kh_board_name[k->pend_board]), kh_board_name[k->pend_board]);
    case KH_P_KEEP: {
        int o = khronos__to_move(s);
        kh_square_name(KT, k->pend_target, a, sizeof a);
        return tb__msg(N_("seat {seat} ({colour}) chooses the squares its downsized building on {board} {square} keeps"),
                       "seat:d colour:m board:m square:s", o + 1, tb__msg_word(kh_colour_name[o]),
                       tb__msg_word(kh_board_name[k->pend_board]), a);
    }
    default:
        break;
    }
    return !k->acted && !k->exchanged
               ? tb__msg(N_("seat {seat} ({colour}), turn {turn}: exchange CARDS, travel, build, upgrade, demolish, populate, renovate, or end [discard CARDS]"),
                         "seat:d colour:m turn:d", p + 1, tb__msg_word(kh_colour_name[p]), k->turn)
               : tb__msg(N_("seat {seat} ({colour}), turn {turn}: travel, build, upgrade, demolish, populate, renovate, or end [discard CARDS]"),
                         "seat:d colour:m turn:d", p + 1, tb__msg_word(kh_colour_name[p]), k->turn);
}

int khronos__prompt_text(const tb_state *s, char *buf, size_t buflen)
{
    const khronos_state *k = (const khronos_state *)s;
    if (k->over)
        return snprintf(buf, buflen, "the game is over");
    int p = k->cur;
    char a[8];
    switch (k->pend) {
    case KH_P_SQUARES:
        return snprintf(buf, buflen, "seat %d (%s) chooses the squares of the %s on %s, e.g. %s",
                        p + 1, kh_colour_name[p], D.tile[k->pend_type].name,
                        kh_board_name[k->pend_board],
                        KH_SIZE(k->pend_type) == 1 ? "c4" : KH_SIZE(k->pend_type) == 2 ? "c4-d5"
                                                                                    : "c4-e6");
    case KH_P_PAY:
        return snprintf(buf, buflen, "seat %d (%s) chooses %d surcharge card%s: pay CARDS (m r c)",
                        p + 1, kh_colour_name[p], k->pend_extra, k->pend_extra > 1 ? "s" : "");
    case KH_P_PICK:
        return snprintf(buf, buflen, "seat %d (%s) chooses the building of %s to downsize: "
                        "downsize %s SQUARE", p + 1, kh_colour_name[p], kh_board_name[k->pend_board],
                        kh_board_name[k->pend_board]);
    case KH_P_KEEP: {
        int o = khronos__to_move(s);
        kh_square_name(KT, k->pend_target, a, sizeof a);
        return snprintf(buf, buflen, "seat %d (%s) chooses the squares its downsized building "
                        "on %s %s keeps", o + 1, kh_colour_name[o], kh_board_name[k->pend_board], a);
    }
    default:
        break;
    }
    return snprintf(buf, buflen, "seat %d (%s), turn %d: %stravel, build, upgrade, demolish, "
                    "populate, renovate, or end [discard CARDS]", p + 1, kh_colour_name[p], k->turn,
                    !k->acted && !k->exchanged ? "exchange CARDS, " : "");
}

/* ---- the log's words (tb_narrate) ---- */

static const char *const narrate_board[KH_BOARDS] = {N_("Might"), N_("Faith"), N_("Reason")};
#define W(name) tb__msg_word(name)

/* The built-in data's tile names (data/khronos.txt) as the narration says
 * them: catalogue msgids (tb__msg_phrase), and the families' words. */
const char *const khronos__data_words[] = {
    N_("military"), N_("religious"), N_("civil"),
    N_("might"), N_("faith"), N_("reason"),
    N_("red"), N_("green"), N_("blue"), N_("white"), N_("yellow"),
    N_("watchtower"), N_("keep"), N_("castle"), N_("chapel"), N_("monastery"), N_("abbey"),
    N_("hamlet"), N_("town"), N_("city"),
    N_("a Watchtower"), N_("a Keep"), N_("a Castle"), N_("a Chapel"), N_("a Monastery"),
    N_("an Abbey"), N_("a Hamlet"), N_("a Town"), N_("a City"),
    N_("the Watchtower"), N_("the Keep"), N_("the Castle"), N_("the Chapel"),
    N_("the Monastery"), N_("the Abbey"), N_("the Hamlet"), N_("the Town"), N_("the City"),
    N_("the Keep ruin"), N_("the Castle ruin"), N_("the Monastery ruin"), N_("the Abbey ruin"),
    N_("the building"),
};

/* A tile's name with a capital, as a sentence names it: "Keep". */
static void narrate_tile(const kh_tables *tab, int type, char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%s", tab->data.tile[type].name);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
}

/* The number of cards in a card multiset. */
static int narrate_card_count(tb_move set)
{
    return (int)((set & 7) + ((set >> 3) & 7) + ((set >> 6) & 7));
}

/* What a building is called on a board: "the Keep at c4 on Might" (its
 * first square), as a message. */
static json_t *narrate_building(const khronos_state *k, int board, int sq)
{
    char square[16], tile[32] = "building";
    kh_square_name(KT, sq, square, sizeof square);
    int i = kh_board_find(&k->board[board], sq);
    if (i >= 0)
        narrate_tile(KT, k->board[board].b[i].type, tile, sizeof tile);
    bool ruin = i >= 0 && (k->board[board].b[i].flags & KH_RUIN);
    return tb__msg(N_("{building} at {square} on {board}"), "building:m square:s board:m",
                   tb__msg_phrase("the ", tile, ruin ? " ruin" : ""), square,
                   W(narrate_board[board]));
}

json_t *khronos__narrate(const tb_state *s_before, tb_move m, const tb_state *s_after, json_t *who,
                         json_t *const *names)
{
    const khronos_state *k = (const khronos_state *)s_before;
    const khronos_state *after = (const khronos_state *)s_after;
    tb_move pay = m & 0xffffff;
    char tile[32], place[40];
    json_t *w = json_incref(who);
    json_t *s;
    int acting_board = -1;
    switch (KH_KIND(m)) {
    case KH_M_SWAP:
        s = tb__msg(N_("{who} swaps a {family} card for the {other} card on display"),
                    "who:m family:m other:m", w, W(kh_family_name[(pay >> 2) & 3]),
                    W(kh_family_name[pay & 3]));
        break;
    case KH_M_EXCHANGE:
        s = tb__msg_plural(NP_("{who} exchanges {n} card", "{who} exchanges {n} cards"),
                           narrate_card_count(pay), "who:m", w);
        break;
    case KH_M_TRAVEL:
        s = tb__msg(N_("{who}'s adventurer travels from {from} to {to}"), "who:m from:m to:m", w,
                    W(narrate_board[(pay >> 5) & 3]), W(narrate_board[(pay >> 3) & 3]));
        break;
    case KH_M_BUILD:
        narrate_tile(KT, (int)(pay & 15), tile, sizeof tile);
        s = tb__msg(N_("{who} builds {building} on {board}"), "who:m building:m board:m", w,
                    tb__msg_a(tile), W(narrate_board[(pay >> 4) & 3]));
        acting_board = (int)(pay >> 4) & 3;
        break;
    case KH_M_UPGRADE:
        narrate_tile(KT, (int)(pay & 15), tile, sizeof tile);
        s = tb__msg(N_("{who} upgrades {building} to {tile}"), "who:m building:m tile:m", w,
                    narrate_building(k, (int)(pay >> 12) & 3, (int)(pay >> 4) & 0xff),
                    tb__msg_a(tile));
        acting_board = (int)(pay >> 12) & 3;
        break;
    case KH_M_DEMOLISH:
        s = tb__msg(N_("{who} demolishes {building}"), "who:m building:m", w,
                    narrate_building(k, (int)(pay >> 8) & 3, (int)pay & 0xff));
        acting_board = (int)(pay >> 8) & 3;
        break;
    case KH_M_POPULATE:
        s = tb__msg(N_("{who} puts a cube on {building}"), "who:m building:m", w,
                    narrate_building(k, KH_REASON, (int)pay & 0xff));
        break;
    case KH_M_RENOVATE:
        s = tb__msg(N_("{who} renovates {building}"), "who:m building:m", w,
                    narrate_building(k, KH_REASON, (int)pay & 0xff));
        acting_board = KH_REASON;
        break;
    case KH_M_SQUARES:
        narrate_tile(KT, k->pend_type, tile, sizeof tile);
        kh_place_name(KT, (int)pay, place, sizeof place);
        s = tb__msg(N_("{who} places {tile} on {board} at {place}"), "who:m tile:m board:m place:s",
                    w, tb__msg_phrase("the ", tile, ""), W(narrate_board[k->pend_board]), place);
        acting_board = k->pend_board;
        break;
    case KH_M_PAY:
        s = tb__msg_plural(NP_("{who} pays a surcharge of {n} card",
                               "{who} pays a surcharge of {n} cards"),
                           narrate_card_count(pay), "who:m", w);
        break;
    case KH_M_DOWNSIZE:
        s = tb__msg(N_("{who} downsizes {building}"), "who:m building:m", w,
                    narrate_building(k, (int)(pay >> 8) & 3, (int)pay & 0xff));
        break;
    case KH_M_END: {
        int n = narrate_card_count(pay);
        s = n ? tb__msg_plural(NP_("{who} ends the turn, discarding {n} card",
                                   "{who} ends the turn, discarding {n} cards"),
                               n, "who:m", w)
              : tb__msg(N_("{who} ends the turn"), "who:m", w);
        break;
    }
    default:
        s = tb__msg(N_("{who} plays"), "who:m", w);
    }
    /* consequences everyone sees: shadows on the later boards, Ecus, a new turn */
    if (acting_board >= 0) {
        json_t *shadows = NULL;
        bool any = false;
        for (int bd = acting_board + 1; bd < KH_BOARDS; bd++)
            if (after->board[bd].nb > k->board[bd].nb) {
                shadows = any ? tb__msg(N_("{list} and {item}"), "list:m item:m", shadows,
                                        W(narrate_board[bd]))
                              : W(narrate_board[bd]);
                any = true;
            }
        if (any)
            s = tb__msg_join(s, tb__msg(N_("; a shadow falls on {boards}"), "boards:m", shadows));
    }
    json_t *gains[TB_MAX_SEATS];
    int ngains = 0;
    for (int p = 0; p < s_before->players; p++) {
        int d = after->ecus[p] - k->ecus[p];
        if (d) {
            char signed_d[16];
            snprintf(signed_d, sizeof signed_d, "%+d", d);
            gains[ngains++] = tb__msg(N_("{who} {points}"), "who:m points:s", json_incref(names[p]),
                                      signed_d);
        }
    }
    if (ngains)
        s = tb__msg_join(s, tb__msg(N_("; Ecus: {gains}"), "gains:m",
                                    tb__msg_list(gains, ngains, false)));
    if (after->over && !k->over)
        s = tb__msg_join(s, W(N_(". The game ends")));
    else if (after->turn != k->turn)
        s = tb__msg_join(s, tb__msg(N_(". Turn {turn} of {turns} begins"), "turn:d turns:d",
                                    after->turn, KH_TURNS));
    return s;
}

json_t *khronos__stage_msg(const tb_state *s)
{
    const khronos_state *k = (const khronos_state *)s;
    return tb__msg(N_("Turn {turn} of {turns}"), "turn:d turns:d",
                   k->turn > KH_TURNS ? KH_TURNS : k->turn, KH_TURNS);
}

int khronos__stage_text(const tb_state *s, char *buf, size_t buflen)
{
    const khronos_state *k = (const khronos_state *)s;
    int turn = k->turn > KH_TURNS ? KH_TURNS : k->turn;
    return snprintf(buf, buflen, "Turn %d of %d", turn, KH_TURNS);
}
