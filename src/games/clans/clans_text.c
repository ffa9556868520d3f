/*
 * clans_text.c — everything of Clans that is text: the notation (DESIGN.md
 * §5: `A-B`, `village T`), the view and state JSON (docs/state.md), the
 * terminal board and the one-line prompt.
 *
 * Invariants: a view never contains another seat's colour before the game is
 * over; state_from_json accepts only a state that satisfies every invariant
 * listed in clans.h and otherwise names the first one broken.
 */
#include "clans.h"
#include "core/msg.h"
#include "core/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(t) (1ULL << (t))

static const char *const text_roman[] = {"", "I", "II", "III", "IV", "V"};
static const char *const text_ansi_colour[CLANS_COLOURS] = {"\033[1;31m", "\033[1;34m",
                                                            "\033[1;32m", "\033[1;33m",
                                                            "\033[1;90m"};
static const char *const text_ansi_terrain[CLANS_TERRAINS] = {"\033[32m", "\033[37m",
                                                              "\033[33m", "\033[92m"};
#define ANSI_RESET "\033[0m"
#define ANSI_BOLD "\033[1m"
#define ANSI_DIM "\033[2m"

int clans__move_to_text(const tb_state *s, tb_move m, char *buf, size_t buflen)
{
    (void)s;
    if (m & CLANS_VILLAGE_FLAG)
        return snprintf(buf, buflen, "village %u", m & 0xff);
    return snprintf(buf, buflen, "%u-%u", m >> 8, m & 0xff);
}

/* Reads a territory number 1..60 at *p; advances *p. */
static int text_territory(const char **p, int *out)
{
    const char *q = *p;
    if (!isdigit((unsigned char)*q))
        return -1;
    long v = 0;
    while (isdigit((unsigned char)*q) && v < 1000)
        v = v * 10 + (*q++ - '0');
    if (isdigit((unsigned char)*q))
        return -1;
    *out = (int)v;
    *p = q;
    return 0;
}

static int text_bad_territory(int t, char *err, size_t errlen)
{
    return tb__errf(err, errlen, "there is no territory %d (territories are numbered 1-60)", t);
}

/* Explains why a well-formed hut move is illegal in this position. */
static int text_explain(const clans_state *c, int from, int to, char *err, size_t errlen)
{
    int f = from - 1, t = to - 1;
    if (c->pending)
        return tb__errf(err, errlen,
                        "illegal move: first choose the next village to found (village T)");
    if (from == to)
        return tb__errf(err, errlen, "illegal move: %d-%d moves a territory onto itself", from, to);
    if (!(clans__adjacent[f] & BIT(t)))
        return tb__errf(err, errlen, "illegal move: territories %d and %d are not neighbours",
                        from, to);
    if (!c->size[f])
        return tb__errf(err, errlen, "illegal move: territory %d is empty", from);
    if (!c->size[t])
        return tb__errf(err, errlen, "illegal move: territory %d is empty (huts never move into an empty territory)", to);
    if (c->size[f] >= 7 && c->size[t] < c->size[f])
        return tb__errf(err, errlen,
                        "illegal move: %d holds %d huts; a group of 7 or more moves only onto a group at least as large (%d has %d)",
                        from, c->size[f], to, c->size[t]);
    return 0;
}

int clans__text_to_move(const tb_state *s, const char *text, tb_move *out, char *err,
                        size_t errlen)
{
    const clans_state *c = (const clans_state *)s;
    const char *p = text;
    while (*p == ' ')
        p++;
    if (strncmp(p, "village", 7) == 0) {
        p += 7;
        if (*p != ' ')
            return tb__errf(err, errlen, "write 'village T' with a territory number, e.g. 'village 17'");
        while (*p == ' ')
            p++;
        int t;
        if (text_territory(&p, &t) != 0)
            return tb__errf(err, errlen, "write 'village T' with a territory number, e.g. 'village 17'");
        while (*p == ' ')
            p++;
        if (*p)
            return tb__errf(err, errlen, "unexpected text after 'village %d'", t);
        if (t < 1 || t > CLANS_TERRITORIES)
            return text_bad_territory(t, err, errlen);
        if (!(c->pending & BIT(t - 1)))
            return tb__errf(err, errlen, "illegal move: territory %d is not a village waiting to be founded", t);
        *out = CLANS_VILLAGE_FLAG | (tb_move)t;
        return 0;
    }
    int from, to;
    if (text_territory(&p, &from) != 0 || *p++ != '-' || text_territory(&p, &to) != 0)
        return tb__errf(err, errlen,
                        "'%.*s' is not a Clans move: write FROM-TO with territory numbers, e.g. 12-17, or 'village T'",
                        TB__CLIP(text, 40));
    while (*p == ' ')
        p++;
    if (*p)
        return tb__errf(err, errlen, "unexpected text after '%d-%d'", from, to);
    if (from < 1 || from > CLANS_TERRITORIES)
        return text_bad_territory(from, err, errlen);
    if (to < 1 || to > CLANS_TERRITORIES)
        return text_bad_territory(to, err, errlen);
    if (text_explain(c, from, to, err, errlen) != 0)
        return -1;
    *out = (tb_move)(from << 8 | to);
    return 0;
}

static json_t *text_huts_json(const clans_state *c, int t)
{
    json_t *o = json_object();
    for (int k = 0; k < CLANS_COLOURS; k++)
        if (clans__huts(c, t, k))
            json_object_set_new(o, clans__colour_name[k], json_integer(clans__huts(c, t, k)));
    return o;
}

static json_t *text_ids_json(uint64_t mask)
{
    json_t *a = json_array();
    for (; mask; mask &= mask - 1)
        json_array_append_new(a, json_integer(__builtin_ctzll(mask) + 1));
    return a;
}

static json_t *text_tracks_json(const clans_state *c)
{
    json_t *o = json_object();
    for (int k = 0; k < CLANS_COLOURS; k++)
        json_object_set_new(o, clans__colour_name[k], json_integer(c->track[k]));
    return o;
}

static json_t *text_last_move(const clans_state *c)
{
    if (!c->last_from)
        return json_null();
    char buf[16];
    snprintf(buf, sizeof buf, "%d-%d", c->last_from, c->last_to);
    return json_string(buf);
}

json_t *clans__view_json(const tb_state *s, int seat)
{
    const clans_state *c = (const clans_state *)s;
    json_t *j = json_object();
    json_object_set_new(j, "game", json_string("clans"));
    json_object_set_new(j, "players", json_integer(s->players));
    json_object_set_new(j, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(j, "decisions", json_integer(s->decisions));
    int tm = clans__to_move(s);
    json_object_set_new(j, "to_move", tm == TB_OVER ? json_null() : json_integer(tm));
    json_object_set_new(j, "phase", json_string(c->over ? "over" : c->pending ? "village" : "move"));
    json_t *terr = json_array();
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(t + 1));
        json_object_set_new(o, "huts", text_huts_json(c, t));
        if (c->villages & BIT(t)) {
            json_object_set_new(o, "village", json_integer(c->village_epoch[t]));
            if (c->ruins & BIT(t))
                json_object_set_new(o, "ruin", json_true());
        }
        json_array_append_new(terr, o);
    }
    json_object_set_new(j, "territories", terr);
    json_object_set_new(j, "tracks", text_tracks_json(c));
    json_t *chips = json_array();
    for (int p = 0; p < s->players; p++)
        json_array_append_new(chips, json_integer(c->chips[p]));
    json_object_set_new(j, "chips", chips);
    json_object_set_new(j, "chips_taken", json_integer(c->chips_taken));
    int next = clans__chip_epoch(c->chips_taken);
    json_object_set_new(j, "epoch", next ? json_integer(next) : json_null());
    json_t *left = json_array();
    for (int e = 0, k = 0; e < CLANS_EPOCHS; e++) {
        int n = 0;
        for (int i = 0; i < clans__epoch[e].chips; i++, k++)
            n += k >= c->chips_taken;
        json_array_append_new(left, json_integer(n));
    }
    json_object_set_new(j, "chips_left", left);
    json_object_set_new(j, "pending", text_ids_json(c->pending));
    json_object_set_new(j, "last_move", text_last_move(c));
    json_object_set_new(j, "your_colour",
                        seat >= 0 ? json_string(clans__colour_name[c->colour[seat]]) : json_null());
    json_t *colours = json_array();
    for (int p = 0; p < s->players; p++)
        json_array_append_new(colours, c->over || p == seat
                                           ? json_string(clans__colour_name[c->colour[p]])
                                           : json_null());
    json_object_set_new(j, "colours", colours);
    if (c->over) {
        int sc[TB_MAX_SEATS];
        s->game->scores(s, sc);
        json_t *scores = json_array();
        for (int p = 0; p < s->players; p++)
            json_array_append_new(scores, json_integer(sc[p]));
        json_object_set_new(j, "scores", scores);
    }
    return j;
}

json_t *clans__state_json(const tb_state *s)
{
    const clans_state *c = (const clans_state *)s;
    json_t *j = json_object();
    json_t *board = json_object();
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        if (!c->size[t])
            continue;
        char key[8];
        snprintf(key, sizeof key, "%d", t + 1);
        json_object_set_new(board, key, text_huts_json(c, t));
    }
    json_object_set_new(j, "board", board);
    json_t *villages = json_object();
    for (uint64_t m = c->villages; m; m &= m - 1) {
        int t = __builtin_ctzll(m);
        char key[8];
        snprintf(key, sizeof key, "%d", t + 1);
        json_object_set_new(villages, key, json_integer(c->village_epoch[t]));
    }
    json_object_set_new(j, "villages", villages);
    json_object_set_new(j, "ruins", text_ids_json(c->ruins));
    json_object_set_new(j, "pending", text_ids_json(c->pending));
    json_object_set_new(j, "tracks", text_tracks_json(c));
    json_t *colours = json_array(), *chips = json_array();
    for (int p = 0; p < s->players; p++) {
        json_array_append_new(colours, json_string(clans__colour_name[c->colour[p]]));
        json_array_append_new(chips, json_integer(c->chips[p]));
    }
    json_object_set_new(j, "colours", colours);
    json_object_set_new(j, "chips", chips);
    json_object_set_new(j, "chips_taken", json_integer(c->chips_taken));
    json_object_set_new(j, "removed", json_integer(c->removed));
    json_object_set_new(j, "turn", json_integer(c->turn));
    json_object_set_new(j, "last_move", text_last_move(c));
    return j;
}

static int text_colour_index(const char *name)
{
    for (int k = 0; k < CLANS_COLOURS; k++)
        if (name && strcmp(name, clans__colour_name[k]) == 0)
            return k;
    return -1;
}

/* Reads a territory-number key, written canonically ("7", never "07" or
 * "+7", so two keys never name one territory); 1..60 → 0..59. */
static int text_id_key(const char *key)
{
    if (key[0] < '1' || key[0] > '9')
        return -1;
    char *end;
    long v = strtol(key, &end, 10);
    if (*end || v > CLANS_TERRITORIES)
        return -1;
    return (int)v - 1;
}

static int text_id_list(const json_t *a, const char *what, uint64_t *out, char *err,
                        size_t errlen)
{
    if (!json_is_array(a))
        return tb__errf(err, errlen, "'%s' must be an array of territory numbers", what);
    *out = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        json_int_t t = json_integer_value(v);
        if (!json_is_integer(v) || t < 1 || t > CLANS_TERRITORIES)
            return tb__errf(err, errlen, "'%s' holds something that is not a territory 1-60", what);
        *out |= BIT(t - 1);
    }
    return 0;
}

int clans__state_from_json(tb_state *s, const json_t *j, char *err, size_t errlen)
{
    clans_state *c = (clans_state *)s;
    size_t base = sizeof(tb_state);
    memset((char *)c + base, 0, sizeof *c - base);
    const json_t *board = json_object_get(j, "board");
    if (!json_is_object(board))
        return tb__errf(err, errlen, "'board' must be an object of territory number → huts");
    const char *key;
    json_t *val;
    int per_colour[CLANS_COLOURS] = {0}, on_board = 0;
    json_object_foreach((json_t *)board, key, val) {
        int t = text_id_key(key);
        if (t < 0)
            return tb__errf(err, errlen, "board key '%s' is not a territory 1-60", key);
        if (!json_is_object(val))
            return tb__errf(err, errlen, "board[%s] must be an object of colour → huts", key);
        const char *ck;
        json_t *cv;
        json_object_foreach(val, ck, cv) {
            int k = text_colour_index(ck);
            if (k < 0)
                return tb__errf(err, errlen, "board[%s]: unknown colour '%s'", key, ck);
            json_int_t n = json_integer_value(cv);
            if (!json_is_integer(cv) || n < 0 || n > CLANS_HUTS_PER_COLOUR)
                return tb__errf(err, errlen, "board[%s].%s must be 0-12", key, ck);
            clans__set_huts(c, t, k, (int)n);
            c->size[t] = (uint8_t)(c->size[t] + n);
            per_colour[k] += (int)n;
            on_board += (int)n;
        }
        if (c->size[t])
            c->occupied |= BIT(t);
    }
    for (int k = 0; k < CLANS_COLOURS; k++)
        if (per_colour[k] > CLANS_HUTS_PER_COLOUR)
            return tb__errf(err, errlen, "%d %s huts on the board; there are only 12",
                            per_colour[k], clans__colour_name[k]);
    long long v;
    if (tb__json_int(j, "removed", 0, 60, &v, err, errlen))
        return -1;
    c->removed = (uint8_t)v;
    if (on_board + c->removed != 60)
        return tb__errf(err, errlen, "%d huts on the board and %d removed: they must add up to 60",
                        on_board, c->removed);
    const json_t *villages = json_object_get(j, "villages");
    if (!json_is_object(villages))
        return tb__errf(err, errlen, "'villages' must be an object of territory number → epoch");
    json_object_foreach((json_t *)villages, key, val) {
        int t = text_id_key(key);
        json_int_t e = json_integer_value(val);
        if (t < 0 || !json_is_integer(val) || e < 1 || e > CLANS_EPOCHS)
            return tb__errf(err, errlen, "villages: '%s' must map a territory 1-60 to an epoch 1-5", key);
        c->villages |= BIT(t);
        c->village_epoch[t] = (uint8_t)e;
    }
    if (text_id_list(json_object_get(j, "ruins"), "ruins", &c->ruins, err, errlen) ||
        text_id_list(json_object_get(j, "pending"), "pending", &c->pending, err, errlen))
        return -1;
    const json_t *tracks = json_object_get(j, "tracks");
    if (!json_is_object(tracks))
        return tb__errf(err, errlen, "'tracks' must be an object of colour → points");
    for (int k = 0; k < CLANS_COLOURS; k++) {
        if (tb__json_int(tracks, clans__colour_name[k], 0, 10000, &v, err, errlen))
            return -1;
        c->track[k] = (int16_t)v;
    }
    const json_t *colours = json_object_get(j, "colours"), *chips = json_object_get(j, "chips");
    if (!json_is_array(colours) || (int)json_array_size(colours) != s->players)
        return tb__errf(err, errlen, "'colours' must name one colour per player");
    if (!json_is_array(chips) || (int)json_array_size(chips) != s->players)
        return tb__errf(err, errlen, "'chips' must give one count per player");
    int chip_sum = 0, used = 0;
    for (int p = 0; p < s->players; p++) {
        int k = text_colour_index(json_string_value(json_array_get(colours, (size_t)p)));
        if (k < 0)
            return tb__errf(err, errlen, "colours[%d] is not a clan colour", p);
        if (used & (1 << k))
            return tb__errf(err, errlen, "two players hold %s", clans__colour_name[k]);
        used |= 1 << k;
        c->colour[p] = (uint8_t)k;
        json_int_t n = json_integer_value(json_array_get(chips, (size_t)p));
        if (!json_is_integer(json_array_get(chips, (size_t)p)) || n < 0 || n > CLANS_CHIPS)
            return tb__errf(err, errlen, "chips[%d] must be 0-12", p);
        c->chips[p] = (uint8_t)n;
        chip_sum += (int)n;
    }
    if (tb__json_int(j, "chips_taken", 0, CLANS_CHIPS, &v, err, errlen))
        return -1;
    c->chips_taken = (uint8_t)v;
    if (tb__json_int(j, "turn", 0, s->players - 1, &v, err, errlen))
        return -1;
    c->turn = (uint8_t)v;
    const json_t *last = json_object_get(j, "last_move");
    if (json_is_string(last)) {
        int a, b;
        char extra;
        if (sscanf(json_string_value(last), "%d-%d%c", &a, &b, &extra) != 2 || a < 1 || a > 60 ||
            b < 1 || b > 60)
            return tb__errf(err, errlen, "'last_move' must be null or FROM-TO");
        c->last_from = (uint8_t)a;
        c->last_to = (uint8_t)b;
    } else if (last && !json_is_null(last)) {
        return tb__errf(err, errlen, "'last_move' must be null or FROM-TO");
    }
    /* Cross-checks: the invariants of clans.h. */
    if (chip_sum != c->chips_taken || __builtin_popcountll(c->villages) != c->chips_taken)
        return tb__errf(err, errlen, "chips taken (%d), chips held (%d) and villages (%d) must agree",
                        c->chips_taken, chip_sum, __builtin_popcountll(c->villages));
    if (c->ruins & ~c->villages)
        return tb__errf(err, errlen, "every ruin must also be a village");
    if (c->ruins & c->occupied)
        return tb__errf(err, errlen, "a ruin holds no huts");
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        bool isolated = !(clans__adjacent[t] & c->occupied);
        if ((c->villages & BIT(t)) && (c->occupied & BIT(t)) && !isolated)
            return tb__errf(err, errlen, "village %d has an occupied neighbour", t + 1);
        if ((c->pending & BIT(t)) && (!(c->occupied & BIT(t)) || !isolated || (c->villages & BIT(t))))
            return tb__errf(err, errlen, "pending village %d must be occupied, isolated and not yet founded", t + 1);
        if ((c->occupied & BIT(t)) && isolated && !(c->villages & BIT(t)) && !(c->pending & BIT(t)) &&
            c->chips_taken < CLANS_CHIPS)
            return tb__errf(err, errlen, "territory %d is isolated but is not a village", t + 1);
    }
    clans__compute_live(c);
    if (c->chips_taken == CLANS_CHIPS) {
        c->pending = 0;
        c->over = 1;
    } else if (!c->pending) {
        bool movable = false;
        for (int t = 0; t < CLANS_TERRITORIES && !movable; t++)
            movable = (c->occupied & BIT(t)) && (clans__adjacent[t] & c->occupied);
        c->over = !movable;
    }
    return 0;
}

json_t *clans__board_json(void)
{
    json_t *j = json_object();
    json_object_set_new(j, "game", json_string("clans"));
    json_t *terr = json_array();
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        const clans_territory *ct = &clans__territory[t];
        json_array_append_new(terr, json_pack("{s:i,s:s,s:i,s:i,s:i,s:o}", "id", t + 1, "terrain",
                                              clans__terrain_name[ct->terrain], "region", ct->region,
                                              "x", ct->x, "y", ct->y, "neighbours",
                                              text_ids_json(clans__adjacent[t])));
    }
    json_object_set_new(j, "territories", terr);
    json_t *epochs = json_array();
    for (int e = 0; e < CLANS_EPOCHS; e++) {
        const clans_epoch *ep = &clans__epoch[e];
        json_array_append_new(
            epochs, json_pack("{s:i,s:i,s:s,s:o,s:i}", "epoch", e + 1, "chips", ep->chips,
                              "favourable",
                              ep->favourable == CLANS_ANY_TERRAIN ? "all" : clans__terrain_name[ep->favourable],
                              "hostile",
                              ep->hostile == CLANS_ANY_TERRAIN ? json_null() : json_string(clans__terrain_name[ep->hostile]),
                              "bonus", ep->bonus));
    }
    json_object_set_new(j, "epochs", epochs);
    json_t *colours = json_array();
    for (int k = 0; k < CLANS_COLOURS; k++)
        json_array_append_new(colours, json_string(clans__colour_name[k]));
    json_object_set_new(j, "colours", colours);
    return j;
}

/* ---- the terminal board ---- */

static const char text_terrain_letter[CLANS_TERRAINS] = {'f', 'm', 's', 'g'};
static const char text_colour_letter[CLANS_COLOURS] = {'r', 'b', 'g', 'y', 'k'};

static void text_cell(tb_buf *b, const clans_state *c, int t, bool colour, const char *ruin)
{
    int terrain = clans__territory[t].terrain;
    bool last = c->last_to == t + 1 || c->last_from == t + 1;
    if (colour)
        tb__buf_printf(b, "%s%2d%s%c%s", last ? ANSI_BOLD : "", t + 1, text_ansi_terrain[terrain],
                       text_terrain_letter[terrain], ANSI_RESET);
    else
        tb__buf_printf(b, "%2d%c", t + 1, text_terrain_letter[terrain]);
    int width = 0;
    char mark = (c->villages & BIT(t)) ? '*' : (c->pending & BIT(t)) ? '!' : ' ';
    tb__buf_printf(b, "%c", mark);
    if (c->ruins & BIT(t)) { /* `ruin`: the mark in the reader's language */
        tb__buf_printf(b, "%s%s%s", colour ? ANSI_DIM : "", ruin, colour ? ANSI_RESET : "");
        for (const char *p = ruin; *p; p++)
            width += ((unsigned char)*p & 0xc0) != 0x80; /* characters, not bytes */
    } else if (!c->size[t]) {
        tb__buf_printf(b, "%s", colour ? ANSI_DIM "." ANSI_RESET : ".");
        width = 1;
    } else {
        for (int k = 0; k < CLANS_COLOURS; k++) {
            int n = clans__huts(c, t, k);
            if (!n)
                continue;
            if (colour)
                tb__buf_printf(b, "%s%c%d%s", text_ansi_colour[k], text_colour_letter[k], n,
                               ANSI_RESET);
            else
                tb__buf_printf(b, "%c%d", text_colour_letter[k], n);
            width += n >= 10 ? 3 : 2;
        }
    }
    for (; width < 10; width++)
        tb__buf_printf(b, " ");
}

char *clans__render_text(const tb_state *s, int seat, unsigned flags)
{
    return clans__render_text_in(s, seat, flags, NULL, NULL);
}

/* The board in the language of tr (NULL: English); the words are msgids
 * (N_), the letters of the cells and the notation stay as they are. */
char *clans__render_text_in(const tb_state *s, int seat, unsigned flags, tb_translate_fn tr,
                            void *ctx)
{
    bool colour = (flags & TB_RENDER_COLOUR) != 0;
    const clans_state *c = (const clans_state *)s;
    tb_buf b = {0};
    const char *bold = colour ? ANSI_BOLD : "", *reset = colour ? ANSI_RESET : "";
#define SAY(...) tb__buf_say(&b, tr, ctx, __VA_ARGS__)
#define WORD(w) tb__word(tr, ctx, w)
    tb__buf_printf(&b, "%sClans%s  ", bold, reset);
    SAY(N_("{n} players"), "n:d", s->players);
    if (seat >= 0) {
        int k = c->colour[seat];
        char col[64];
        snprintf(col, sizeof col, "%s%s%s", colour ? text_ansi_colour[k] : "",
                 WORD(clans__colour_name[k]), reset);
        tb__buf_printf(&b, "  ·  ");
        SAY(N_("you are seat {seat}, secret colour {colour}"), "seat:d colour:s", seat + 1, col);
    }
    tb__buf_printf(&b, "\n");
    for (int r = 1; r <= CLANS_REGIONS; r++) {
        tb__buf_printf(&b, "R%-2d ", r);
        int n = 0;
        for (int t = 0; t < CLANS_TERRITORIES; t++) {
            if (clans__territory[t].region != r)
                continue;
            if (n++)
                tb__buf_printf(&b, " ");
            text_cell(&b, c, t, colour, WORD(N_("ruin")));
        }
        tb__buf_printf(&b, "\n");
    }
    tb__buf_printf(&b, "    f %s  m %s  s %s  g %s   * %s  ! %s\n", WORD(N_("forest")),
                   WORD(N_("mountain")), WORD(N_("steppe")), WORD(N_("grassland")),
                   WORD(N_("village")), WORD(N_("founding now")));
    tb__buf_printf(&b, "    %s r %s  b %s  g %s  y %s  k %s\n", WORD(N_("huts:")), WORD(N_("red")),
                   WORD(N_("blue")), WORD(N_("green")), WORD(N_("yellow")), WORD(N_("black")));
    tb__buf_printf(&b, "%s%s%s", bold, WORD(N_("Epochs")), reset);
    int next = clans__chip_epoch(c->chips_taken);
    for (int e = 0, k = 0; e < CLANS_EPOCHS; e++) {
        const clans_epoch *ep = &clans__epoch[e];
        tb__buf_printf(&b, "%s %s%-3s ", e ? "      " : "", next == e + 1 ? ">" : " ", text_roman[e + 1]);
        for (int i = 0; i < ep->chips; i++, k++)
            tb__buf_printf(&b, "%s", k < c->chips_taken ? "o" : "@");
        for (int i = ep->chips; i < 5; i++)
            tb__buf_printf(&b, " ");
        if (ep->favourable == CLANS_ANY_TERRAIN)
            SAY(N_("every terrain +{bonus}\n"), "bonus:d", ep->bonus);
        else
            SAY(N_("{terrain} +{bonus}, {hostile} ruins\n"), "terrain:s bonus:d hostile:s",
                WORD(clans__terrain_name[ep->favourable]), ep->bonus,
                WORD(clans__terrain_name[ep->hostile]));
    }
    tb__buf_printf(&b, "       %s\n", WORD(N_("(@ chip to take, o taken; > the epoch of the next village)")));
    tb__buf_printf(&b, "%s%s%s ", bold, WORD(N_("Tracks")), reset);
    for (int k = 0; k < CLANS_COLOURS; k++)
        tb__buf_printf(&b, " %s%s %d%s", colour ? text_ansi_colour[k] : "",
                       WORD(clans__colour_name[k]), c->track[k], reset);
    tb__buf_printf(&b, "\n%s%s%s  ", bold, WORD(N_("Chips")), reset);
    for (int p = 0; p < s->players; p++) {
        tb__buf_printf(&b, " ");
        if (p == seat)
            SAY(N_("seat {seat} (you): {chips}"), "seat:d chips:d", p + 1, c->chips[p]);
        else
            SAY(N_("seat {seat}: {chips}"), "seat:d chips:d", p + 1, c->chips[p]);
        tb__buf_printf(&b, "%s", p + 1 < s->players ? "," : "");
    }
    tb__buf_printf(&b, "\n");
    if (c->over) {
        int sc[TB_MAX_SEATS];
        s->game->scores(s, sc);
        tb__buf_printf(&b, "%s%s%s  ", bold, WORD(N_("Final")), reset);
        for (int p = 0; p < s->players; p++) {
            tb__buf_printf(&b, " ");
            SAY(N_("seat {seat} ({colour}) {points}"), "seat:d colour:s points:d", p + 1,
                WORD(clans__colour_name[c->colour[p]]), sc[p]);
            tb__buf_printf(&b, "%s", p + 1 < s->players ? "," : "");
        }
        tb__buf_printf(&b, "\n");
    } else if (c->last_from) {
        char last[16];
        snprintf(last, sizeof last, "%d-%d", c->last_from, c->last_to);
        SAY(N_("Last move: {move}\n"), "move:s", last);
    }
#undef SAY
#undef WORD
    return tb__buf_take(&b);
}

#define W(name) tb__msg_word(name)

json_t *clans__prompt_msg(const tb_state *s)
{
    const clans_state *c = (const clans_state *)s;
    if (c->over)
        return W(N_("the game is over"));
    if (c->pending) {
        char ids[64] = "";
        for (uint64_t m = c->pending; m; m &= m - 1) {
            size_t used = strlen(ids);
            snprintf(ids + used, sizeof ids - used, "%s%d", used ? ", " : "", __builtin_ctzll(m) + 1);
        }
        return tb__msg(N_("seat {seat} chooses the next village to found: village T, T one of {territories} (epoch {epoch})"),
                       "seat:d territories:s epoch:s", c->turn + 1, ids,
                       text_roman[clans__chip_epoch(c->chips_taken)]);
    }
    return tb__msg(N_("seat {seat} moves all huts of one territory onto a neighbour: FROM-TO"),
                   "seat:d", c->turn + 1);
}

int clans__prompt_text(const tb_state *s, char *buf, size_t buflen)
{
    const clans_state *c = (const clans_state *)s;
    if (c->over)
        return snprintf(buf, buflen, "the game is over");
    if (c->pending) {
        char ids[64] = "";
        for (uint64_t m = c->pending; m; m &= m - 1) {
            size_t used = strlen(ids);
            snprintf(ids + used, sizeof ids - used, "%s%d", used ? ", " : "", __builtin_ctzll(m) + 1);
        }
        return snprintf(buf, buflen, "seat %d chooses the next village to found: village T, T one of %s (epoch %s)",
                        c->turn + 1, ids, text_roman[clans__chip_epoch(c->chips_taken)]);
    }
    return snprintf(buf, buflen, "seat %d moves all huts of one territory onto a neighbour: FROM-TO",
                    c->turn + 1);
}

/* ---- the log's words (tb_narrate) ---- */

/* Adds to *sentence the villages founded between before and after (their
 * squares, epochs, what strife and hostile ground took, the tracks' gains)
 * and the villages still waiting.  mixed[t][k]: the huts on t just before
 * founding.  *sentence becomes NULL when memory runs out. */
static void clans_narrate_villages(json_t **sentence, const clans_state *before,
                                   const clans_state *after,
                                   uint8_t mixed[CLANS_TERRITORIES][CLANS_COLOURS], json_t *who)
{
    json_t *s = *sentence;
    uint64_t founded = after->villages & ~before->villages;
    for (uint64_t m = founded; m; m &= m - 1) {
        int t = __builtin_ctzll(m);
        const char *terrain = clans__terrain_name[clans__territory[t].terrain];
        s = tb__msg_join(s, tb__msg(N_("; founds a village at {t} ({terrain}, epoch {epoch})"),
                                    "t:d terrain:m epoch:s", t + 1, W(terrain),
                                    text_roman[after->village_epoch[t]]));
        if (after->ruins & (1ULL << t)) {
            s = tb__msg_join(s, W(N_(", but hostile ground ruins it and its huts are lost")));
            continue;
        }
        json_t *lost[CLANS_COLOURS];
        int nlost = 0;
        for (int k = 0; k < CLANS_COLOURS; k++)
            if (mixed[t][k] && !clans__huts(after, t, k))
                lost[nlost++] = W(clans__colour_name[k]);
        if (nlost)
            s = tb__msg_join(s, tb__msg(N_(" — the battle kills the lone huts of {colours}"),
                                        "colours:m", tb__msg_list(lost, nlost, false)));
        if (!after->size[t])
            s = tb__msg_join(s, W(N_(" and nobody scores")));
    }
    json_t *gains[CLANS_COLOURS];
    int ngains = 0;
    for (int k = 0; k < CLANS_COLOURS; k++) {
        int d = after->track[k] - before->track[k];
        if (d)
            gains[ngains++] = tb__msg(N_("{colour} +{points}"), "colour:m points:d",
                                      W(clans__colour_name[k]), d);
    }
    if (ngains)
        s = tb__msg_join(s, tb__msg(N_(": {gains}"), "gains:m", tb__msg_list(gains, ngains, false)));
    if (after->pending) {
        json_t *at[CLANS_TERRITORIES];
        int nat = 0;
        for (uint64_t m = after->pending; m; m &= m - 1)
            at[nat++] = json_integer(__builtin_ctzll(m) + 1);
        s = tb__msg_join(s, tb__msg(N_("; {who} chooses the order of the villages at {territories}"),
                                    "who:m territories:m", json_incref(who),
                                    tb__msg_list(at, nat, true)));
    }
    if (after->over)
        s = tb__msg_join(s, W(N_(". The game ends")));
    *sentence = s;
}

json_t *clans__narrate(const tb_state *s_before, tb_move mv, const tb_state *s_after, json_t *who,
                       json_t *const *names)
{
    (void)names;
    const clans_state *before = (const clans_state *)s_before;
    const clans_state *after = (const clans_state *)s_after;
    uint8_t mixed[CLANS_TERRITORIES][CLANS_COLOURS];
    for (int t = 0; t < CLANS_TERRITORIES; t++)
        for (int k = 0; k < CLANS_COLOURS; k++)
            mixed[t][k] = (uint8_t)clans__huts(before, t, k);
    json_t *s;
    if (mv & CLANS_VILLAGE_FLAG) {
        s = tb__msg(N_("{who} chooses the village at {t} next"), "who:m t:d", json_incref(who),
                    (int)(mv & 0xff));
    } else {
        int from = (int)(mv >> 8) - 1, to = (int)(mv & 0xff) - 1;
        int n = before->size[from];
        s = tb__msg_plural(NP_("{who} moves {n} hut from the {from_terrain} at {from} to the {to_terrain} at {to}",
                               "{who} moves {n} huts from the {from_terrain} at {from} to the {to_terrain} at {to}"),
                           n, "who:m from_terrain:m from:d to_terrain:m to:d", json_incref(who),
                           W(clans__terrain_name[clans__territory[from].terrain]), from + 1,
                           W(clans__terrain_name[clans__territory[to].terrain]), to + 1);
        for (int k = 0; k < CLANS_COLOURS; k++) {
            mixed[to][k] = (uint8_t)(mixed[to][k] + mixed[from][k]);
            mixed[from][k] = 0;
        }
    }
    clans_narrate_villages(&s, before, after, mixed, who);
    return s;
}

json_t *clans__stage_msg(const tb_state *s)
{
    const clans_state *c = (const clans_state *)s;
    int e = clans__chip_epoch(c->chips_taken);
    return tb__msg(N_("Epoch {epoch}"), "epoch:s", text_roman[e ? e : CLANS_EPOCHS]);
}

int clans__stage_text(const tb_state *s, char *buf, size_t buflen)
{
    const clans_state *c = (const clans_state *)s;
    int e = clans__chip_epoch(c->chips_taken);
    return snprintf(buf, buflen, "Epoch %s", text_roman[e ? e : CLANS_EPOCHS]);
}
