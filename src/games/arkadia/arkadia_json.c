/*
 * arkadia_json.c — Arkadia as JSON: a seat's view, the whole state (with
 * every secret) and its validating reader, and the static board data.  The
 * fields are documented in docs/state.md ("Arkadia").
 *
 * Invariants: a view shows only the viewer's own hand, the cards every
 * player saw taken face up, and the number of cards elsewhere (never the
 * stack order); the state JSON names squares, cards and families as the
 * notation does so it can be edited by hand, leaves out everything that
 * follows from the rest (the pools, the occupied squares, the values), and
 * state_from_json accepts only a state that keeps every invariant of
 * arkadia.h, naming the first one broken.
 */
#include "arkadia.h"

#include <stdio.h>
#include <string.h>


/* ---- writing ---- */

static json_t *aj_square(int sq)
{
    char t[8];
    ark__square_text(sq, t, sizeof t);
    return json_string(t);
}

static json_t *aj_card(int card)
{
    char t[48];
    ark__card_text(card, t, sizeof t);
    return json_string(t);
}

static json_t *aj_squares(ark_bb b)
{
    json_t *arr = json_array();
    for (int w = 0; w < 3; w++)
        for (uint64_t m = b.w[w]; m; m &= m - 1)
            json_array_append_new(arr, aj_square(w * 64 + __builtin_ctzll(m)));
    return arr;
}

static json_t *aj_families(const uint16_t *count)
{
    const ark_data *d = ark__names();
    json_t *o = json_object();
    for (int k = 0; k < ARK_FAMILIES; k++)
        json_object_set_new(o, d->family[k], json_integer(count[k]));
    return o;
}

static json_t *aj_family_counts(const uint8_t *count)
{
    const ark_data *d = ark__names();
    json_t *o = json_object();
    for (int k = 0; k < ARK_FAMILIES; k++)
        json_object_set_new(o, d->family[k], json_integer(count[k]));
    return o;
}

static json_t *aj_buildings(const arkadia_state *a)
{
    const ark_data *d = ark__board(a);
    json_t *arr = json_array();
    for (int i = 0; i < a->nbld; i++) {
        const ark_building *b = &a->bld[i];
        char cells[64];
        ark__cells_text(ark__building_cells(d, b), cells, sizeof cells);
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:b}", "form", d->form[b->form].name,
                                             "family", d->family[b->family], "squares", cells,
                                             "done", b->done));
    }
    return arr;
}

static json_t *aj_workers(const arkadia_state *a)
{
    const ark_data *d = ark__board(a);
    json_t *o = json_object();
    for (int p = 0; p < a->base.players; p++)
        json_object_set_new(o, d->seat_colour[p], aj_squares(a->workers[p]));
    json_object_set_new(o, "neutral", aj_squares(a->workers[ARK_NEUTRAL]));
    return o;
}

static json_t *aj_target(const arkadia_state *a)
{
    const ark_data *d = ark__board(a);
    if (a->target_lot)
        return json_string("lot");
    const ark_building *b = &a->bld[a->target];
    return aj_square(ark_bb_first(d->form[b->form].orient[b->orient].base) + b->anchor);
}

/* The fields both the view and the state carry. */
static void aj_common(const arkadia_state *a, json_t *j)
{
    const ark_data *d = ark__board(a);
    json_object_set_new(j, "phase", json_string(ark__phase_name[a->phase]));
    json_object_set_new(j, "action", json_string(ark__action_name[a->action]));
    json_object_set_new(j, "start", json_integer(a->start));
    json_object_set_new(j, "turn_number", json_integer(a->turn_no));
    json_object_set_new(j, "trigger_turn", a->trigger_turn >= 0 ? json_integer(a->trigger_turn) : json_null());
    json_object_set_new(j, "idle", json_integer(a->idle));
    json_object_set_new(j, "card", a->phase == ARK_PH_PLACE ? aj_card(a->card) : json_null());
    json_object_set_new(j, "target", a->phase == ARK_PH_WORKER ? aj_target(a) : json_null());
    json_object_set_new(j, "placed", a->phase == ARK_PH_WORKER ? json_integer(a->placed) : json_null());
    json_object_set_new(j, "castle_left", a->phase == ARK_PH_CASTLE ? json_integer(a->castle_left) : json_null());
    json_object_set_new(j, "family", a->phase == ARK_PH_SALE ? json_string(d->family[a->family]) : json_null());
    json_object_set_new(j, "lot", a->lot == ARK_NO_SQUARE ? json_null() : aj_square(a->lot));
    json_object_set_new(j, "buildings", aj_buildings(a));
    json_object_set_new(j, "workers", aj_workers(a));
}

static json_t *aj_stacks(const arkadia_state *a)
{
    const ark_data *d = ark__board(a);
    json_t *arr = json_array();
    for (int q = 0; q < ARK_CASTLE; q++) {
        json_t *st = json_array();
        for (int h = 0; h < a->height[q]; h++)
            json_array_append_new(st, json_string(d->family[a->castle[q][h]]));
        json_array_append_new(arr, st);
    }
    return arr;
}

static json_t *aj_hand(const arkadia_state *a, int p, bool seen_only)
{
    json_t *arr = json_array();
    for (int i = 0; i < a->hand_n[p]; i++)
        if (!seen_only || (a->hand[p][i] & 1))
            json_array_append_new(arr, aj_card(a->hand[p][i] / 2));
    return arr;
}

json_t *ark__view_json(const tb_state *s, int seat)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    json_t *j = json_object();
    json_object_set_new(j, "game", json_string("arkadia"));
    json_object_set_new(j, "players", json_integer(s->players));
    json_object_set_new(j, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set_new(j, "decisions", json_integer(s->decisions));
    int tm = ark__to_move(s);
    json_object_set_new(j, "to_move", tm == TB_OVER ? json_null() : json_integer(tm));
    aj_common(a, j);
    json_t *castle = json_array();
    for (int q = 0; q < ARK_CASTLE; q++) {
        json_t *pieces = json_array();
        for (int h = 0; h < a->height[q]; h++)
            json_array_append_new(pieces, json_string(d->family[a->castle[q][h]]));
        int top = a->height[q] ? a->castle[q][a->height[q] - 1] : d->castle_seal[q];
        json_array_append_new(
            castle, json_pack("{s:i,s:o,s:o,s:o}", "square", q + 1, "printed",
                              d->castle_seal[q] < ARK_FAMILIES ? json_string(d->family[d->castle_seal[q]]) : json_null(),
                              "pieces", pieces,
                              "visible", top < ARK_FAMILIES ? json_string(d->family[top]) : json_null()));
    }
    json_object_set_new(j, "castle", castle);
    json_t *values = json_object();
    for (int k = 0; k < ARK_FAMILIES; k++)
        json_object_set_new(values, d->family[k], json_integer(ark__value(a, k)));
    json_object_set_new(j, "values", values);
    json_object_set_new(j, "floor", json_integer(ark__floor(a) + 1));
    json_t *pools = json_array();
    for (int f = 0; f < ARK_FLOORS; f++)
        json_array_append_new(pools, aj_family_counts(a->pool[f]));
    json_object_set_new(j, "pools", pools);
    json_t *display = json_array();
    for (int i = 0; i < a->display_n; i++)
        json_array_append_new(display, aj_card(a->display[i]));
    json_object_set_new(j, "display", display);
    json_object_set_new(j, "stack", json_integer(a->stack_n));
    json_object_set_new(j, "neutral_pool", json_integer(ark__neutral_pool(a)));
    json_t *players = json_array();
    for (int p = 0; p < s->players; p++) {
        json_t *o = json_object();
        json_object_set_new(o, "colour", json_string(d->seat_colour[p]));
        json_object_set_new(o, "hand", p == seat ? aj_hand(a, p, false) : json_null());
        json_object_set_new(o, "seen", aj_hand(a, p, true));
        json_object_set_new(o, "cards", json_integer(a->hand_n[p]));
        json_object_set_new(o, "workers", json_integer(a->screen[p]));
        json_object_set_new(o, "neutral", json_integer(a->screen_neutral[p]));
        json_object_set_new(o, "pool", json_integer(ark__own_pool(a, p)));
        json_object_set_new(o, "banners", json_integer(a->banners[p]));
        json_object_set_new(o, "seals", aj_families(a->seals[p]));
        json_object_set_new(o, "gold", json_integer(a->gold[p]));
        json_array_append_new(players, o);
    }
    json_object_set_new(j, "seats", players);
    if (a->phase == ARK_PH_OVER) {
        json_t *scores = json_array();
        for (int p = 0; p < s->players; p++)
            json_array_append_new(scores, json_integer(a->gold[p]));
        json_object_set_new(j, "scores", scores);
    }
    return j;
}

json_t *ark__state_json(const tb_state *s)
{
    const arkadia_state *a = (const arkadia_state *)s;
    json_t *j = json_object();
    aj_common(a, j);
    json_object_set_new(j, "castle", aj_stacks(a));
    json_t *display = json_array(), *stack = json_array();
    for (int i = 0; i < a->display_n; i++)
        json_array_append_new(display, aj_card(a->display[i]));
    for (int i = a->stack_n - 1; i >= 0; i--)
        json_array_append_new(stack, aj_card(a->stack[i]));
    json_object_set_new(j, "display", display);
    json_object_set_new(j, "stack", stack);
    json_t *players = json_array();
    for (int p = 0; p < s->players; p++) {
        json_t *o = json_object();
        json_object_set_new(o, "hand", aj_hand(a, p, false));
        json_object_set_new(o, "seen", aj_hand(a, p, true));
        json_object_set_new(o, "workers", json_integer(a->screen[p]));
        json_object_set_new(o, "neutral", json_integer(a->screen_neutral[p]));
        json_object_set_new(o, "banners", json_integer(a->banners[p]));
        json_object_set_new(o, "seals", aj_families(a->seals[p]));
        json_object_set_new(o, "gold", json_integer(a->gold[p]));
        if (a->phase == ARK_PH_OVER)
            json_object_set_new(o, "cashed", aj_families(a->cashed[p]));
        json_array_append_new(players, o);
    }
    json_object_set_new(j, "seats", players);
    return j;
}

/* ---- reading ---- */

static int aj_read_index(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static int aj_read_square(const json_t *v, const char *what, int *sq, char *err, size_t errlen)
{
    const char *t = json_string_value(v);
    int len = t ? ark__parse_square(t, sq) : 0;
    if (!len || t[len])
        return tb__errf(err, errlen, "%s must be a square a1-p12", what);
    return 0;
}

static int aj_read_card(const json_t *v, const char *what, int *card, char *err, size_t errlen)
{
    if (ark__parse_card(json_string_value(v), card))
        return tb__errf(err, errlen, "%s must be a card 'FORM FAMILY', e.g. \"house red\"", what);
    return 0;
}

static int aj_read_family(const json_t *v, const char *what, int *k, char *err, size_t errlen)
{
    *k = ark__family_index(json_string_value(v));
    if (*k < 0)
        return tb__errf(err, errlen, "%s must be a family (red, olive, black, silver)", what);
    return 0;
}

/* An optional integer: absent/null → -1. */
static int aj_read_opt_int(const json_t *j, const char *key, long long lo, long long hi, long long *out,
                        char *err, size_t errlen)
{
    const json_t *v = json_object_get(j, key);
    if (!v || json_is_null(v)) {
        *out = -1;
        return 0;
    }
    return tb__json_int(j, key, lo, hi, out, err, errlen);
}

static bool aj_read_present(const json_t *j, const char *key)
{
    const json_t *v = json_object_get(j, key);
    return v && !json_is_null(v);
}

/* Reads "c3-d3-d4" as a building of `form`; sets orient and corner. */
static int aj_read_building_squares(const arkadia_state *a, const char *text, int form, int *orient,
                                 int *corner, char *err, size_t errlen, int index)
{
    const ark_data *d = ark__board(a);
    ark_bb cells = {{0, 0, 0}};
    int count = 0;
    for (const char *p = text ? text : ""; *p;) {
        int sq, len = ark__parse_square(p, &sq);
        if (!len || (p[len] && p[len] != '-'))
            return tb__errf(err, errlen, "buildings[%d].squares must be squares joined by '-', e.g. \"c3-d3\"", index);
        if (ark_bb_has(cells, sq))
            return tb__errf(err, errlen, "buildings[%d] names a square twice", index);
        ark_bb_set(&cells, sq);
        count++;
        p += len + (p[len] == '-');
    }
    const ark_form *f = &d->form[form];
    if (count != f->cells)
        return tb__errf(err, errlen, "buildings[%d]: a %s covers %d squares, not %d", index, f->name, f->cells, count);
    int minx = ARK_W, miny = ARK_H;
    for (int sq = 0; sq < ARK_SQUARES; sq++)
        if (ark_bb_has(cells, sq)) {
            minx = sq % ARK_W < minx ? sq % ARK_W : minx;
            miny = sq / ARK_W < miny ? sq / ARK_W : miny;
        }
    *corner = miny * ARK_W + minx;
    *orient = -1;
    for (int o = 0; o < ark__orients(a, form) && *orient < 0; o++) {
        if (!ark_bb_has(f->orient[o].anchors, *corner))
            continue;
        ark_bb at = ark_bb_shl(f->orient[o].base, *corner);
        if (at.w[0] == cells.w[0] && at.w[1] == cells.w[1] && at.w[2] == cells.w[2])
            *orient = o;
    }
    if (*orient < 0)
        return tb__errf(err, errlen, "buildings[%d]: %s is not the shape of a %s%s", index, text, f->name,
                        a->mirror ? "" : " (mirror images need mirror=on)");
    return 0;
}

static int aj_read_buildings(arkadia_state *a, const json_t *arr, int *used, char *err, size_t errlen)
{
    const ark_data *d = ark__board(a);
    if (!json_is_array(arr) || json_array_size(arr) > ARK_CARDS)
        return tb__errf(err, errlen, "'buildings' must be an array of at most 40 buildings");
    ark_bb taken = ark__lot_cells(a);
    int per_form[ARK_FORMS] = {0};
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v) {
        int idx = (int)i;
        if (!json_is_object(v))
            return tb__errf(err, errlen, "buildings[%d] must be an object", idx);
        int form = ark__form_index(json_string_value(json_object_get(v, "form")));
        if (form < 0)
            return tb__errf(err, errlen, "buildings[%d].form must be a form (house, farm, tavern, mill, smithy, trade-centre, monastery)", idx);
        int k;
        char what[48];
        snprintf(what, sizeof what, "buildings[%d].family", idx);
        if (aj_read_family(json_object_get(v, "family"), what, &k, err, errlen))
            return -1;
        const json_t *done = json_object_get(v, "done");
        if (!json_is_boolean(done))
            return tb__errf(err, errlen, "buildings[%d].done must be true or false", idx);
        int orient = 0, corner = 0;
        if (aj_read_building_squares(a, json_string_value(json_object_get(v, "squares")), form, &orient,
                                  &corner, err, errlen, idx))
            return -1;
        ark_building *b = &a->bld[a->nbld++];
        *b = (ark_building){(uint8_t)form, (uint8_t)orient, (uint8_t)corner, (uint8_t)k,
                            (uint8_t)json_is_true(done)};
        ark_bb cells = ark__building_cells(d, b);
        if (ark_bb_any(ark_bb_and(cells, taken)))
            return tb__errf(err, errlen, "buildings[%d] overlaps the lot or another building", idx);
        taken = ark_bb_or(taken, cells);
        if (++per_form[form] > d->form[form].tiles)
            return tb__errf(err, errlen, "more than %d %s buildings", d->form[form].tiles, d->form[form].name);
        used[form * ARK_FAMILIES + k]++;
    }
    return 0;
}

static int aj_read_workers(arkadia_state *a, const json_t *o, char *err, size_t errlen)
{
    const ark_data *d = ark__board(a);
    if (!json_is_object(o))
        return tb__errf(err, errlen, "'workers' must be an object of colour → squares");
    const char *key;
    const json_t *list;
    const char *colours[ARK_SEATS];
    for (int p = 0; p < ARK_SEATS; p++)
        colours[p] = d->seat_colour[p];
    json_object_foreach((json_t *)o, key, list) {
        int k = strcmp(key, "neutral") == 0 ? ARK_NEUTRAL : aj_read_index(key, colours, a->base.players);
        if (k < 0)
            return tb__errf(err, errlen, "workers: '%s' is not a colour in play or neutral", key);
        if (!json_is_array(list))
            return tb__errf(err, errlen, "workers.%s must be an array of squares", key);
        size_t i;
        const json_t *v;
        json_array_foreach(list, i, v) {
            int sq;
            char what[48];
            snprintf(what, sizeof what, "workers.%s[%d]", key, (int)i);
            if (aj_read_square(v, what, &sq, err, errlen))
                return -1;
            for (int m = 0; m <= ARK_NEUTRAL; m++)
                if (ark_bb_has(a->workers[m], sq))
                    return tb__errf(err, errlen, "two workers stand on %s", json_string_value(v));
            ark_bb_set(&a->workers[k], sq);
        }
    }
    return 0;
}

static int aj_read_castle(arkadia_state *a, const json_t *arr, char *err, size_t errlen)
{
    const ark_data *d = ark__board(a);
    if (!json_is_array(arr) || json_array_size(arr) != ARK_CASTLE)
        return tb__errf(err, errlen, "'castle' must be an array of 10 stacks (castle squares 1-10)");
    for (int q = 0; q < ARK_CASTLE; q++) {
        const json_t *st = json_array_get(arr, (size_t)q);
        if (!json_is_array(st) || json_array_size(st) > ARK_FLOORS)
            return tb__errf(err, errlen, "castle[%d] must be an array of at most 3 families, bottom first", q);
        for (size_t h = 0; h < json_array_size(st); h++) {
            int k;
            char what[32];
            snprintf(what, sizeof what, "castle[%d][%d]", q, (int)h);
            if (aj_read_family(json_array_get(st, h), what, &k, err, errlen))
                return -1;
            a->castle[q][h] = (uint8_t)k;
        }
        a->height[q] = (uint8_t)json_array_size(st);
    }
    for (int f = 1; f < ARK_FLOORS; f++)
        for (int q = 0; q < ARK_CASTLE; q++)
            if (a->height[q] > f)
                for (int r = 0; r < ARK_CASTLE; r++)
                    if (a->height[r] < f)
                        return tb__errf(err, errlen,
                                        "castle square %d has a floor-%d piece but floor %d is not full (square %d)",
                                        q + 1, f + 1, f, r + 1);
    /* every floor's pieces must come from its pool (and leftovers) */
    for (int k = 0; k < ARK_FAMILIES; k++) {
        int placed[ARK_FLOORS] = {0};
        for (int q = 0; q < ARK_CASTLE; q++)
            for (int f = 0; f < a->height[q]; f++)
                placed[f] += a->castle[q][f] == k;
        int spare = d->pieces[2][k];
        for (int f = 0; f < 2; f++) {
            if (placed[f] > d->pieces[f][k])
                return tb__errf(err, errlen, "%d %s pieces on floor %d; its pool had %d", placed[f],
                                d->family[k], f + 1, d->pieces[f][k]);
            bool full = true;
            for (int q = 0; q < ARK_CASTLE; q++)
                full &= a->height[q] > f;
            if (full)
                spare += d->pieces[f][k] - placed[f];
        }
        if (placed[2] > spare)
            return tb__errf(err, errlen, "%d %s pieces on floor 3; only %d were in its pool", placed[2],
                            d->family[k], spare);
    }
    return 0;
}

static int aj_read_cards(const json_t *arr, const char *what, int max, uint8_t *out, int *n, int *used,
                      char *err, size_t errlen)
{
    if (!json_is_array(arr) || (int)json_array_size(arr) > max)
        return tb__errf(err, errlen, "'%s' must be an array of at most %d cards", what, max);
    *n = 0;
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v) {
        char w[48];
        int card;
        snprintf(w, sizeof w, "%s[%d]", what, (int)i);
        if (aj_read_card(v, w, &card, err, errlen))
            return -1;
        out[(*n)++] = (uint8_t)card;
        used[card]++;
    }
    return 0;
}

static int aj_read_players(arkadia_state *a, const json_t *arr, int *used, char *err, size_t errlen)
{
    const ark_data *d = ark__board(a);
    if (!json_is_array(arr) || (int)json_array_size(arr) != a->base.players)
        return tb__errf(err, errlen, "'seats' must hold one object per player");
    for (int p = 0; p < a->base.players; p++) {
        const json_t *o = json_array_get(arr, (size_t)p);
        if (!json_is_object(o))
            return tb__errf(err, errlen, "seats[%d] must be an object", p);
        char what[48];
        uint8_t cards[ARK_CARDS], seen[ARK_CARDS];
        int n, ns, seen_used[ARK_CARD_TYPES] = {0}, hand_used[ARK_CARD_TYPES] = {0};
        snprintf(what, sizeof what, "seats[%d].hand", p);
        if (aj_read_cards(json_object_get(o, "hand"), what, d->hand, cards, &n, hand_used, err, errlen))
            return -1;
        snprintf(what, sizeof what, "seats[%d].seen", p);
        if (aj_read_cards(json_object_get(o, "seen"), what, d->hand, seen, &ns, seen_used, err, errlen))
            return -1;
        for (int c = 0; c < ARK_CARD_TYPES; c++) {
            if (seen_used[c] > hand_used[c])
                return tb__errf(err, errlen, "seats[%d].seen names a card that is not in the hand", p);
            used[c] += hand_used[c];
            for (int i = 0; i < hand_used[c]; i++) {
                /* insertion keeps the hand sorted; seen copies are marked */
                uint8_t v = (uint8_t)(c * 2 + (i < seen_used[c]));
                int at = a->hand_n[p]++;
                while (at > 0 && a->hand[p][at - 1] > v) {
                    a->hand[p][at] = a->hand[p][at - 1];
                    at--;
                }
                a->hand[p][at] = v;
            }
        }
        long long v;
        char msg[TB_ERR_LEN];
        if (tb__json_int(o, "workers", 0, d->own_workers, &v, msg, sizeof msg))
            return tb__errf(err, errlen, "seats[%d]: %s", p, msg);
        a->screen[p] = (uint8_t)v;
        if (tb__json_int(o, "neutral", 0, d->neutral, &v, msg, sizeof msg))
            return tb__errf(err, errlen, "seats[%d]: %s", p, msg);
        a->screen_neutral[p] = (uint8_t)v;
        if (tb__json_int(o, "banners", 0, d->banners, &v, msg, sizeof msg))
            return tb__errf(err, errlen, "seats[%d]: %s", p, msg);
        a->banners[p] = (uint8_t)v;
        if (tb__json_int(o, "gold", 0, 1000000, &v, msg, sizeof msg))
            return tb__errf(err, errlen, "seats[%d]: %s", p, msg);
        a->gold[p] = (int32_t)v;
        const json_t *seals = json_object_get(o, "seals");
        if (!json_is_object(seals) || json_object_size(seals) != ARK_FAMILIES)
            return tb__errf(err, errlen, "seats[%d].seals must give a count for each of the 4 families", p);
        /* a game pays at most about 120 seals of a family to one player; the
         * cap keeps every sale count within the move's 8 bits */
        for (int k = 0; k < ARK_FAMILIES; k++) {
            if (tb__json_int(seals, d->family[k], 0, 200, &v, msg, sizeof msg))
                return tb__errf(err, errlen, "seats[%d].seals: %s", p, msg);
            a->seals[p][k] = (uint16_t)v;
        }
        /* the seals sold at the end: only once the game is over */
        const json_t *cashed = json_object_get(o, "cashed");
        if (cashed) {
            if (!json_is_object(cashed) || json_object_size(cashed) != ARK_FAMILIES)
                return tb__errf(err, errlen, "seats[%d].cashed must give a count for each of the 4 families", p);
            for (int k = 0; k < ARK_FAMILIES; k++) {
                if (tb__json_int(cashed, d->family[k], 0, 200, &v, msg, sizeof msg))
                    return tb__errf(err, errlen, "seats[%d].cashed: %s", p, msg);
                a->cashed[p][k] = (uint16_t)v;
            }
        }
    }
    return 0;
}

/* Every invariant that ties the parts together (arkadia.h). */
static int aj_read_check(arkadia_state *a, const int *used, char *err, size_t errlen)
{
    const ark_data *d = ark__board(a);
    int players = a->base.players, mover = ark__mover(a);
    for (int c = 0; c < ARK_CARD_TYPES; c++) {
        int want = d->cards[c / ARK_FAMILIES][c % ARK_FAMILIES];
        if (used[c] != want) {
            char t[48];
            ark__card_text(c, t, sizeof t);
            return tb__errf(err, errlen,
                            "card %s appears %d times (hands, display, stack, card in play, buildings); the game has %d",
                            t, used[c], want);
        }
    }
    ark_bb built = ark__lot_cells(a), workers = {{0, 0, 0}}, reach = a->lot_workers ? a->lot_nb : (ark_bb){{0, 0, 0}};
    for (int i = 0; i < a->nbld; i++) {
        built = ark_bb_or(built, ark__building_cells(d, &a->bld[i]));
        reach = ark_bb_or(reach, a->nb[i]);
    }
    for (int k = 0; k <= ARK_NEUTRAL; k++)
        workers = ark_bb_or(workers, a->workers[k]);
    if (ark_bb_any(ark_bb_and(built, workers)))
        return tb__errf(err, errlen, "a worker stands on a building or on the lot");
    ark_bb stray = ark_bb_andnot(workers, reach);
    if (ark_bb_any(stray)) {
        char t[8];
        ark__square_text(ark_bb_first(stray), t, sizeof t);
        return tb__errf(err, errlen, "the worker on %s touches no building it could have been introduced at", t);
    }
    for (int i = 0; i < a->nbld; i++) {
        if (!ark_bb_any(ark_bb_and(a->nb[i], a->occ)))
            return tb__errf(err, errlen, "buildings[%d] touches nothing (a building is laid next to a building, the lot or a worker)", i);
        bool enclosed = !ark_bb_any(ark_bb_andnot(a->nb[i], a->occ));
        if (a->bld[i].done && !enclosed)
            return tb__errf(err, errlen, "buildings[%d] is done but not enclosed", i);
        if (!a->bld[i].done && enclosed && a->phase != ARK_PH_WORKER)
            return tb__errf(err, errlen, "buildings[%d] is enclosed but not done (completion waits only while workers are being introduced)", i);
    }
    int neutral_out = ark_bb_count(a->workers[ARK_NEUTRAL]);
    for (int p = 0; p < players; p++) {
        int used_banners = d->banners - a->banners[p];
        int have = a->screen[p] + ark_bb_count(a->workers[p]);
        if (have != d->start_workers + d->per_banner * used_banners)
            return tb__errf(err, errlen,
                            "%s has %d own workers (behind the screen + on the board) but %d started and %d came from banners",
                            d->seat_colour[p], have, d->start_workers, d->per_banner * used_banners);
        neutral_out += a->screen_neutral[p];
    }
    if (neutral_out > d->neutral)
        return tb__errf(err, errlen, "%d neutral workers behind screens and on the board; there are %d", neutral_out, d->neutral);
    bool full2 = true;
    for (int q = 0; q < ARK_CASTLE; q++)
        full2 &= a->height[q] >= 2;
    if (full2 != (a->trigger_turn >= 0))
        return tb__errf(err, errlen, "'trigger_turn' must be set exactly when floor 2 of the castle is full");
    if (a->trigger_turn > a->turn_no)
        return tb__errf(err, errlen, "'trigger_turn' lies after the current turn");
    bool over = a->phase == ARK_PH_OVER;
    if (!over && a->trigger_turn >= 0 && a->turn_no > a->trigger_turn + players)
        return tb__errf(err, errlen, "the final round has already ended");
    if (!over && a->trigger_turn < 0 && a->idle >= players)
        return tb__errf(err, errlen, "after %d idle turns in a row the game is over", players);
    /* hands: full while cards remain to draw */
    for (int p = 0; p < players; p++) {
        int want = d->hand;
        if (p == mover && a->action == ARK_ACT_BUILD &&
            (a->phase == ARK_PH_PLACE || a->phase == ARK_PH_CASTLE || a->phase == ARK_PH_DRAW))
            want--;
        if (a->hand_n[p] > want || ((a->stack_n || a->display_n) && a->hand_n[p] != want))
            return tb__errf(err, errlen, "%s holds %d cards; %d expected now", d->seat_colour[p], a->hand_n[p], want);
    }
    if (a->stack_n && a->display_n != d->display)
        return tb__errf(err, errlen, "the display must hold %d cards while the stack is not empty", d->display);
    /* the phase and its fields */
    int ph = a->phase, act = a->action;
    bool ok_action = (ph == ARK_PH_LOT || ph == ARK_PH_ACTION || ph == ARK_PH_OVER) ? act == ARK_ACT_NONE
                     : ph == ARK_PH_PLACE || ph == ARK_PH_DRAW                    ? act == ARK_ACT_BUILD
                     : ph == ARK_PH_WORKER                                        ? act == ARK_ACT_WORKERS
                     : ph == ARK_PH_CASTLE ? act == ARK_ACT_BUILD || act == ARK_ACT_WORKERS
                                           : act != ARK_ACT_NONE;
    if (!ok_action)
        return tb__errf(err, errlen, "action '%s' does not fit the %s phase", ark__action_name[act], ark__phase_name[ph]);
    if ((ph == ARK_PH_LOT) != (a->lot == ARK_NO_SQUARE))
        return tb__errf(err, errlen, "'lot' is null exactly in the lot phase");
    if (ph == ARK_PH_LOT && (a->nbld || ark_bb_any(workers) || a->turn_no))
        return tb__errf(err, errlen, "the lot phase comes before anything is built");
    if (act == ARK_ACT_SKIP && ark__can_build(a, mover))
        return tb__errf(err, errlen, "action 'skip' means no card of %s fits anywhere, but one does", d->seat_colour[mover]);
    if (ph == ARK_PH_BANNER && !a->banners[mover])
        return tb__errf(err, errlen, "the banner phase needs a banner left");
    if (ph == ARK_PH_SALE && (!a->seals[mover][a->family] || a->banners[mover] == d->banners))
        return tb__errf(err, errlen, "the sale phase needs seals of 'family' and a banner just used");
    if (ph == ARK_PH_OVER)
        for (int p = 0; p < players; p++)
            for (int k = 0; k < ARK_FAMILIES; k++)
                if (a->seals[p][k])
                    return tb__errf(err, errlen, "when the game is over every seal has been sold");
    for (int p = 0; p < players; p++) {
        long long cashed_gold = 0;
        for (int k = 0; k < ARK_FAMILIES; k++) {
            if (a->cashed[p][k] && ph != ARK_PH_OVER)
                return tb__errf(err, errlen, "seats[%d].cashed: seals are sold at the end only once the game is over", p);
            cashed_gold += (long long)a->cashed[p][k] * ark__value(a, k);
        }
        if (cashed_gold > a->gold[p])
            return tb__errf(err, errlen, "seats[%d]: the seals sold at the end bring %lld gold, more than the %d gold held", p, cashed_gold, (int)a->gold[p]);
    }
    if (ph != ARK_PH_OVER && !ark__phase_has_moves(a))
        return tb__errf(err, errlen, "seat %d has no legal decision in the %s phase", mover, ark__phase_name[ph]);
    return 0;
}

int ark__state_from_json(tb_state *s, const json_t *j, char *err, size_t errlen)
{
    arkadia_state *a = (arkadia_state *)s;
    const ark_data *d = ark__board(a);
    size_t base = sizeof(tb_state);
    memset((char *)a + base, 0, sizeof *a - base);
    ark__derive(a); /* options */
    int players = s->players;
    int used[ARK_CARD_TYPES] = {0};
    const char *ph = json_string_value(json_object_get(j, "phase"));
    int phase = aj_read_index(ph, ark__phase_name, ARK_PHASES);
    if (phase < 0)
        return tb__errf(err, errlen, "'phase' must be one of lot, action, place, workers, castle, draw, banner, sale, over");
    a->phase = (uint8_t)phase;
    int action = aj_read_index(json_string_value(json_object_get(j, "action")), ark__action_name, ARK_ACTIONS);
    if (action < 0)
        return tb__errf(err, errlen, "'action' must be none, build, workers or skip");
    a->action = (uint8_t)action;
    long long v;
    if (tb__json_int(j, "start", 0, players - 1, &v, err, errlen))
        return -1;
    a->start = (uint8_t)v;
    if (tb__json_int(j, "turn_number", 0, 10000, &v, err, errlen))
        return -1;
    a->turn_no = (uint16_t)v;
    a->seat = (uint8_t)((a->start + a->turn_no) % players);
    if (aj_read_opt_int(j, "trigger_turn", 0, 10000, &v, err, errlen))
        return -1;
    a->trigger_turn = (int16_t)v;
    if (tb__json_int(j, "idle", 0, players, &v, err, errlen))
        return -1;
    a->idle = (uint8_t)v;
    /* phase fields: present exactly in their phase */
    static const struct {
        const char *key;
        int phase;
    } fields[] = {{"card", ARK_PH_PLACE}, {"target", ARK_PH_WORKER}, {"placed", ARK_PH_WORKER},
                  {"castle_left", ARK_PH_CASTLE}, {"family", ARK_PH_SALE}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (aj_read_present(j, fields[i].key) != (phase == fields[i].phase))
            return tb__errf(err, errlen, "'%s' is given exactly in the %s phase (null otherwise)", fields[i].key,
                            ark__phase_name[fields[i].phase]);
    const json_t *lot = json_object_get(j, "lot");
    a->lot = ARK_NO_SQUARE;
    if (lot && !json_is_null(lot)) {
        int sq;
        if (aj_read_square(lot, "'lot'", &sq, err, errlen))
            return -1;
        if (!ark_bb_has(d->lot_anchors, sq))
            return tb__errf(err, errlen, "the lot at %s covers a tent camp or leaves the board", json_string_value(lot));
        a->lot = (uint8_t)sq;
    }
    if (aj_read_buildings(a, json_object_get(j, "buildings"), used, err, errlen) ||
        aj_read_workers(a, json_object_get(j, "workers"), err, errlen) ||
        aj_read_castle(a, json_object_get(j, "castle"), err, errlen))
        return -1;
    ark__derive(a);
    int n;
    if (aj_read_cards(json_object_get(j, "display"), "display", d->display, a->display, &n, used, err, errlen))
        return -1;
    a->display_n = (uint8_t)n;
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && a->display[k - 1] > a->display[k]; k--) {
            uint8_t t = a->display[k];
            a->display[k] = a->display[k - 1];
            a->display[k - 1] = t;
        }
    uint8_t stack[ARK_CARDS];
    if (aj_read_cards(json_object_get(j, "stack"), "stack", ARK_CARDS, stack, &n, used, err, errlen))
        return -1;
    a->stack_n = (uint8_t)n;
    for (int i = 0; i < n; i++)
        a->stack[i] = stack[n - 1 - i]; /* JSON lists the top first */
    if (aj_read_players(a, json_object_get(j, "seats"), used, err, errlen))
        return -1;
    int mover = ark__mover(a);
    if (phase == ARK_PH_PLACE) {
        int card;
        if (aj_read_card(json_object_get(j, "card"), "'card'", &card, err, errlen))
            return -1;
        a->card = (uint8_t)card;
        used[card]++;
    }
    if (phase == ARK_PH_WORKER) {
        const json_t *t = json_object_get(j, "target");
        if (json_is_string(t) && strcmp(json_string_value(t), "lot") == 0) {
            if (!a->lot_workers)
                return tb__errf(err, errlen, "workers go next to the lot only with lot_workers=on");
            a->target_lot = 1;
        } else {
            int sq, found = -1;
            if (aj_read_square(t, "'target'", &sq, err, errlen))
                return -1;
            for (int i = 0; i < a->nbld; i++)
                if (ark_bb_has(ark__building_cells(d, &a->bld[i]), sq))
                    found = i;
            const ark_building *b = found >= 0 ? &a->bld[found] : NULL;
            if (!b || ark_bb_first(d->form[b->form].orient[b->orient].base) + b->anchor != sq)
                return tb__errf(err, errlen, "'target' must be the first square of a building");
            a->target = (uint8_t)found;
        }
        ark_bb around = a->target_lot ? a->lot_nb : a->nb[a->target];
        int near = ark_bb_count(ark_bb_and(around, ark_bb_or(a->workers[mover], a->workers[ARK_NEUTRAL])));
        if (tb__json_int(j, "placed", 0, near, &v, err, errlen))
            return -1;
        a->placed = (uint8_t)v;
    }
    if (phase == ARK_PH_CASTLE) {
        if (tb__json_int(j, "castle_left", 1, ARK_CARDS, &v, err, errlen))
            return -1;
        a->castle_left = (uint8_t)v;
    }
    if (phase == ARK_PH_SALE) {
        int k;
        if (aj_read_family(json_object_get(j, "family"), "'family'", &k, err, errlen))
            return -1;
        a->family = (uint8_t)k;
        a->banner_used = 1;
    }
    return aj_read_check(a, used, err, errlen);
}

/* ---- the static board ---- */

json_t *ark__board_json(const struct tb_data *data)
{
    const ark_data *d = data ? (const ark_data *)data->tables : &ark__data;
    json_t *j = json_object();
    json_object_set_new(j, "game", json_string("arkadia"));
    json_object_set_new(j, "width", json_integer(ARK_W));
    json_object_set_new(j, "height", json_integer(ARK_H));
    json_object_set_new(j, "tents", aj_squares(d->tents));
    json_object_set_new(j, "lot_size", json_pack("[i,i]", d->lot_w, d->lot_h));
    json_object_set_new(j, "lot_places", aj_squares(d->lot_anchors));
    json_t *castle = json_array();
    for (int q = 0; q < ARK_CASTLE; q++)
        json_array_append_new(castle, json_pack("{s:i,s:[i,i],s:o}", "square", q + 1, "offset", d->castle_x[q],
                                                d->castle_y[q], "printed",
                                                d->castle_seal[q] < ARK_FAMILIES ? json_string(d->family[d->castle_seal[q]]) : json_null()));
    json_object_set_new(j, "castle", castle);
    json_t *families = json_array();
    for (int k = 0; k < ARK_FAMILIES; k++)
        json_array_append_new(families, json_pack("{s:s,s:s}", "id", d->family[k], "name", d->family_title[k]));
    json_object_set_new(j, "families", families);
    json_t *colours = json_array();
    for (int p = 0; p < ARK_SEATS; p++)
        json_array_append_new(colours, json_string(d->seat_colour[p]));
    json_object_set_new(j, "seat_colours", colours);
    json_t *forms = json_array();
    for (int f = 0; f < ARK_FORMS; f++) {
        const ark_form *fm = &d->form[f];
        json_t *orients = json_array();
        for (int o = 0; o < fm->orients; o++) {
            json_t *cells = json_array();
            for (int i = 0; i < fm->cells; i++)
                json_array_append_new(cells, json_pack("[i,i]", fm->orient[o].dx[i], fm->orient[o].dy[i]));
            json_array_append_new(orients, json_pack("{s:o,s:b}", "cells", cells, "mirror", o >= fm->rotations));
        }
        json_t *cards = json_object();
        for (int k = 0; k < ARK_FAMILIES; k++)
            json_object_set_new(cards, d->family[k], json_integer(d->cards[f][k]));
        json_array_append_new(forms, json_pack("{s:i,s:s,s:i,s:o,s:o}", "number", fm->number, "name", fm->name,
                                               "tiles", fm->tiles, "orientations", orients, "cards", cards));
    }
    json_object_set_new(j, "forms", forms);
    json_t *pieces = json_array();
    for (int f = 0; f < ARK_FLOORS; f++)
        json_array_append_new(pieces, aj_family_counts(d->pieces[f]));
    json_object_set_new(j, "pieces", pieces);
    json_object_set_new(j, "workers", json_pack("{s:i,s:i,s:i,s:i,s:i}", "own", d->own_workers, "start",
                                                d->start_workers, "banners", d->banners, "per_banner",
                                                d->per_banner, "neutral", d->neutral));
    json_object_set_new(j, "hand", json_integer(d->hand));
    json_object_set_new(j, "display", json_integer(d->display));
    json_t *first = json_array();
    for (int i = 0; i < d->first_count; i++) {
        const ark_first_building *fb = &d->first[i];
        ark_building b = {fb->form, fb->orient, fb->anchor, fb->family, 0};
        char cells[64];
        ark__cells_text(ark__building_cells(d, &b), cells, sizeof cells);
        json_array_append_new(first, json_pack("{s:s,s:s,s:s}", "form", d->form[fb->form].name, "family",
                                               d->family[fb->family], "squares", cells));
    }
    char lot[8];
    ark__square_text(d->first_lot, lot, sizeof lot);
    json_object_set_new(j, "first_game", json_pack("{s:s,s:o,s:[i,i,i]}", "lot", lot, "buildings", first,
                                                   "neutral", d->first_neutral[2], d->first_neutral[3],
                                                   d->first_neutral[4]));
    /* the built-in board is our reconstruction; an owner's file is their own */
    json_object_set_new(j, "provisional", json_boolean(!data || data->builtin));
    return j;
}
