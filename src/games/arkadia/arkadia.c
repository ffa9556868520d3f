/*
 * arkadia.c — the rules of Arkadia (shared/rules/arkadia.md with rulings
 * E1-E22, as documented for players in docs/rules-arkadia.md): set-up, the
 * turn as atomic decisions, placement, workers, completion and payout, the
 * castle floors and the end trigger, banners and sales, the final round,
 * resampling of the hidden cards, a heuristic and a fast random move.
 *
 * The turn runs through the phases of arkadia.h:
 *   ACTION → PLACE → [CASTLE] → [DRAW] → [BANNER → [SALE...]]   (a building)
 *   ACTION → WORKER... → [CASTLE] → [BANNER → [SALE...]]        (workers)
 *   [BANNER → [SALE...]]                  (E8: no action possible this turn)
 * and a turn with no decision at all passes by itself.  Completions are
 * resolved when the action ends (after the placement, or when the worker
 * introduction stops), then one castle piece per completed building.
 *
 * Rulings of this implementation beyond E1-E22 (docs/rules-arkadia.md):
 * A1 the game also ends, before the end trigger, after a whole round of idle
 * turns (no action and no banner), since nothing can change any more;
 * A2 the draw comes after the castle pieces (the spec's order; no outcome
 * depends on it); A3 tent workers are taken automatically; A4 a card taken
 * face up stays known to all (hand entries carry a "seen" bit) and resampling
 * keeps it.  The state invariants are listed in arkadia.h.
 */
#include "arkadia.h"
#include "core/msg.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CARD(form, family) ((form) * ARK_FAMILIES + (family))
#define CARD_FORM(card) ((card) / ARK_FAMILIES)
#define CARD_FAMILY(card) ((card) % ARK_FAMILIES)

static const tb_option_spec ark_options[] = {
    {"mirror", "off|on", "off",
     "Whether a building may also be laid as the mirror image of the shape on its card.",
     "Mirrored buildings", "Not allowed|Allowed"},
    {"lot_workers", "off|on", "off",
     "Whether workers may be put down around the castle lot, as around a building.",
     "Workers at the castle lot", "Not allowed|Allowed"},
    {"variant", "standard|first-game", "standard",
     "The first game starts with seven buildings already in town, for learning (laid out our "
     "own way); the standard game starts with an empty town.",
     "Set-up", "Standard game|First game"},
    {"lot", "choose|random", "choose",
     "Who places the castle lot at the start of a standard game: the start player, or chance.",
     "Castle lot", "Placed by the start player|Placed by chance"},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

int ark__to_move(const tb_state *s)
{
    const arkadia_state *a = (const arkadia_state *)s;
    return a->phase == ARK_PH_OVER ? TB_OVER : ark__mover(a);
}

ark_bb ark__building_cells(const ark_data *d, const ark_building *b)
{
    return ark_bb_shl(d->form[b->form].orient[b->orient].base, b->anchor);
}

ark_bb ark__lot_cells(const arkadia_state *a)
{
    const ark_data *d = ark__board(a);
    if (a->lot == ARK_NO_SQUARE)
        return (ark_bb){{0, 0, 0}};
    return ark_bb_shl(d->lot_base, a->lot);
}

void ark__values(const arkadia_state *a, int value[ARK_FAMILIES])
{
    const ark_data *d = ark__board(a);
    for (int f = 0; f < ARK_FAMILIES; f++)
        value[f] = 0;
    for (int q = 0; q < ARK_CASTLE; q++) {
        int top = a->height[q] ? a->castle[q][a->height[q] - 1] : d->castle_seal[q];
        if (top < ARK_FAMILIES)
            value[top]++;
    }
}

int ark__value(const arkadia_state *a, int family)
{
    int value[ARK_FAMILIES];
    ark__values(a, value);
    return family >= 0 && family < ARK_FAMILIES ? value[family] : 0;
}

/* Is floor f (0-based) complete: every castle square at least f+1 high? */
static bool ark_floor_full(const arkadia_state *a, int f)
{
    for (int q = 0; q < ARK_CASTLE; q++)
        if (a->height[q] <= f)
            return false;
    return true;
}

int ark__floor(const arkadia_state *a)
{
    if (!ark_floor_full(a, 0))
        return 0;
    return ark_floor_full(a, 1) ? 2 : 1;
}

int ark__own_pool(const arkadia_state *a, int seat)
{
    const ark_data *d = ark__board(a);
    return d->own_workers - a->screen[seat] - ark_bb_count(a->workers[seat]);
}

int ark__neutral_pool(const arkadia_state *a)
{
    const ark_data *d = ark__board(a);
    int n = d->neutral - ark_bb_count(a->workers[ARK_NEUTRAL]);
    for (int p = 0; p < a->base.players; p++)
        n -= a->screen_neutral[p];
    return n;
}

int ark__orients(const arkadia_state *a, int form)
{
    const ark_data *d = ark__board(a);
    return a->mirror ? d->form[form].orients : d->form[form].rotations;
}

/* ---- cards ---- */

static void ark_hand_add(arkadia_state *a, int p, int card, int pub)
{
    uint8_t v = (uint8_t)(card * 2 + pub), *h = a->hand[p];
    int i = a->hand_n[p]++;
    while (i > 0 && h[i - 1] > v) {
        h[i] = h[i - 1];
        i--;
    }
    h[i] = v;
}

/* Removes one copy of card from p's hand, the publicly known one first (after
 * it is played, nobody can be sure p still holds another).  0 if absent. */
static bool ark_hand_remove(arkadia_state *a, int p, int card)
{
    uint8_t *h = a->hand[p];
    int at = -1;
    for (int i = 0; i < a->hand_n[p]; i++)
        if (h[i] / 2 == card && (at < 0 || h[i] & 1))
            at = i;
    if (at < 0)
        return false;
    for (int i = at; i + 1 < a->hand_n[p]; i++)
        h[i] = h[i + 1];
    h[--a->hand_n[p]] = 0;
    return true;
}

static void ark_display_add(arkadia_state *a, int card)
{
    int i = a->display_n++;
    while (i > 0 && a->display[i - 1] > card) {
        a->display[i] = a->display[i - 1];
        i--;
    }
    a->display[i] = (uint8_t)card;
}

static bool ark_display_remove(arkadia_state *a, int card)
{
    for (int i = 0; i < a->display_n; i++) {
        if (a->display[i] != card)
            continue;
        for (int k = i; k + 1 < a->display_n; k++)
            a->display[k] = a->display[k + 1];
        a->display[--a->display_n] = 0;
        return true;
    }
    return false;
}

/* ---- placement ---- */

/* Corners where orientation `or` of a form fits on vacant squares and
 * touches `touch` (the free squares next to anything on the board). */
static inline ark_bb ark_fits(const ark_form *f, const ark_orient *or, ark_bb vacant, ark_bb touch)
{
    ark_bb ok = or->anchors, near = {{0, 0, 0}};
    for (int i = 0; i < f->cells; i++) {
        int d = or->dy[i] * ARK_W + or->dx[i];
        ok = ark_bb_and(ok, ark_bb_shr_small(vacant, d));
        near = ark_bb_or(near, ark_bb_shr_small(touch, d));
    }
    return ark_bb_and(ok, near);
}

int ark__placements(const arkadia_state *a, int form, ark_bb out[ARK_MAX_ORIENT])
{
    const ark_data *d = ark__board(a);
    const ark_form *f = &d->form[form];
    ark_bb vacant = {{~a->occ.w[0], ~a->occ.w[1], ~a->occ.w[2]}};
    ark_bb touch = ark_bb_around(a->occ);
    int total = 0, n = ark__orients(a, form);
    for (int o = 0; o < n; o++) {
        out[o] = ark_fits(f, &f->orient[o], vacant, touch);
        total += ark_bb_count(out[o]);
    }
    return total;
}

/* The forms (bit per form, among `forms`) that fit somewhere now. */
static int ark_placeable_forms(const arkadia_state *a, int forms)
{
    const ark_data *d = ark__board(a);
    ark_bb vacant = {{~a->occ.w[0], ~a->occ.w[1], ~a->occ.w[2]}};
    ark_bb touch = ark_bb_around(a->occ);
    int fit = 0;
    for (int form = 0; form < ARK_FORMS; form++) {
        if (!(forms >> form & 1))
            continue;
        const ark_form *f = &d->form[form];
        for (int o = 0, n = ark__orients(a, form); o < n; o++)
            if (ark_bb_any(ark_fits(f, &f->orient[o], vacant, touch))) {
                fit |= 1 << form;
                break;
            }
    }
    return fit;
}

static int ark_hand_forms(const arkadia_state *a, int p)
{
    int forms = 0;
    for (int i = 0; i < a->hand_n[p]; i++)
        forms |= 1 << (a->hand[p][i] / 2 / ARK_FAMILIES);
    return forms;
}

/* Open squares next to building i (or the lot). */
static inline ark_bb ark_open_around(const arkadia_state *a, int i)
{
    return ark_bb_andnot(i == ARK_LOT_TARGET ? a->lot_nb : a->nb[i], a->occ);
}

ark_bb ark__worker_squares(const arkadia_state *a)
{
    return ark_open_around(a, a->target_lot ? ARK_LOT_TARGET : a->target);
}

static int ark_building_first(const arkadia_state *a, int i)
{
    const ark_data *d = ark__board(a);
    const ark_building *b = &a->bld[i];
    const ark_orient *or = &d->form[b->form].orient[b->orient];
    return b->anchor + or->dy[0] * ARK_W + or->dx[0]; /* cells are sorted */
}

static bool ark_can_introduce(const arkadia_state *a, int p)
{
    if (!a->screen[p] && !a->screen_neutral[p])
        return false;
    for (int i = 0; i < a->nbld; i++)
        if (ark_bb_any(ark_open_around(a, i)))
            return true;
    return a->lot_workers && ark_bb_any(ark_open_around(a, ARK_LOT_TARGET));
}

static bool ark_can_build(const arkadia_state *a, int p)
{
    return ark_placeable_forms(a, ark_hand_forms(a, p)) != 0;
}

bool ark__can_build(const arkadia_state *a, int p)
{
    return ark_can_build(a, p);
}

/* ---- the turn ---- */

static void ark_finish(arkadia_state *a)
{
    int value[ARK_FAMILIES];
    ark__values(a, value);
    for (int p = 0; p < a->base.players; p++)
        for (int f = 0; f < ARK_FAMILIES; f++) {
            a->gold[p] += a->seals[p][f] * value[f];
            a->cashed[p][f] = a->seals[p][f];
            a->seals[p][f] = 0;
        }
    a->phase = ARK_PH_OVER;
}

/* Starts the mover's turn; false when the mover has nothing to decide. */
static bool ark_begin_turn(arkadia_state *a)
{
    int p = ark__mover(a);
    a->banner_used = 0;
    a->placed = 0;
    a->castle_left = 0;
    if (ark_can_introduce(a, p) || ark_can_build(a, p)) {
        a->action = ARK_ACT_NONE;
        a->phase = ARK_PH_ACTION;
        return true;
    }
    a->action = ARK_ACT_SKIP; /* E8 */
    if (a->banners[p]) {
        a->phase = ARK_PH_BANNER;
        return true;
    }
    return false;
}

/* Ends the mover's turn and begins the next one that has a decision, or
 * ends the game: after the final round (10.2), or after a whole round of
 * idle turns before the trigger (A1). */
static void ark_end_turn(arkadia_state *a)
{
    for (;;) {
        bool idle = a->action == ARK_ACT_SKIP && !a->banner_used;
        a->idle = idle ? (uint8_t)(a->idle + 1) : 0;
        if (a->trigger_turn >= 0 && a->turn_no >= a->trigger_turn + a->base.players) {
            ark_finish(a);
            return;
        }
        if (a->trigger_turn < 0 && a->idle >= a->base.players) {
            ark_finish(a);
            return;
        }
        a->turn_no++;
        a->seat = (uint8_t)(a->seat + 1 == a->base.players ? 0 : a->seat + 1);
        if (ark_begin_turn(a))
            return;
    }
}

static void ark_banner_step(arkadia_state *a)
{
    if (a->banners[ark__mover(a)])
        a->phase = ARK_PH_BANNER;
    else
        ark_end_turn(a);
}

static void ark_after_action(arkadia_state *a)
{
    if (a->action == ARK_ACT_BUILD && (a->stack_n || a->display_n))
        a->phase = ARK_PH_DRAW; /* E7, E21 */
    else
        ark_banner_step(a);
}

/* Can a castle piece be placed now (8.6, E12)? */
static bool ark_castle_open(const arkadia_state *a)
{
    int f = ark__floor(a);
    int pieces = 0, squares = 0;
    for (int k = 0; k < ARK_FAMILIES; k++)
        pieces += a->pool[f][k];
    for (int q = 0; q < ARK_CASTLE; q++)
        squares += a->height[q] == f;
    return pieces && squares;
}

/* Pays every building the action enclosed (7.2-7.3, E6, E11, E15), then
 * asks for their castle pieces. */
static void ark_resolve(arkadia_state *a)
{
    int p = ark__mover(a);
    for (int i = 0; i < a->nbld; i++) {
        ark_building *b = &a->bld[i];
        if (b->done || ark_bb_any(ark_bb_andnot(a->nb[i], a->occ)))
            continue;
        b->done = 1;
        for (int q = 0; q < a->base.players; q++)
            a->seals[q][b->family] =
                (uint16_t)(a->seals[q][b->family] + ark_bb_count(ark_bb_and(a->nb[i], a->workers[q])));
        a->seals[p][b->family]++;
        a->castle_left++;
    }
    if (a->castle_left && !ark_castle_open(a))
        a->castle_left = 0;
    if (a->castle_left)
        a->phase = ARK_PH_CASTLE;
    else
        ark_after_action(a);
}

static void ark_place_castle(arkadia_state *a, int family, int q)
{
    int f = ark__floor(a);
    a->castle[q][a->height[q]++] = (uint8_t)family;
    a->pool[f][family]--;
    a->castle_left--;
    if (f < 2 && ark_floor_full(a, f)) {
        /* 8.3-8.5: the leftovers go to the floor-3 pool before anything else */
        for (int k = 0; k < ARK_FAMILIES; k++) {
            a->pool[2][k] = (uint8_t)(a->pool[2][k] + a->pool[f][k]);
            a->pool[f][k] = 0;
        }
        if (f == 1)
            a->trigger_turn = (int16_t)a->turn_no; /* 8.4, 10.1 */
    }
    if (a->castle_left && !ark_castle_open(a))
        a->castle_left = 0; /* E12 */
    if (!a->castle_left)
        ark_after_action(a);
}

static void ark_place_building(arkadia_state *a, int form, int orient, int anchor)
{
    const ark_data *d = ark__board(a);
    int p = ark__mover(a);
    ark_building *b = &a->bld[a->nbld];
    b->form = (uint8_t)form;
    b->orient = (uint8_t)orient;
    b->anchor = (uint8_t)anchor;
    b->family = (uint8_t)CARD_FAMILY(a->card);
    b->done = 0;
    ark_bb cells = ark__building_cells(d, b);
    a->nb[a->nbld] = ark_bb_around(cells);
    a->nbld++;
    a->occ = ark_bb_or(a->occ, cells);
    /* 5.4, E16: one neutral worker per tent covered, while the pool lasts */
    int tents = ark_bb_count(ark_bb_and(cells, d->tents)), pool = ark__neutral_pool(a);
    a->screen_neutral[p] = (uint8_t)(a->screen_neutral[p] + (tents < pool ? tents : pool));
}

static void ark_place_lot(arkadia_state *a, int corner)
{
    a->lot = (uint8_t)corner;
    ark_bb cells = ark__lot_cells(a);
    a->occ = ark_bb_or(a->occ, cells);
    a->lot_nb = ark_bb_around(cells);
}

static int ark_next_sale(const arkadia_state *a, int from)
{
    int p = ark__mover(a);
    for (int f = from; f < ARK_FAMILIES; f++)
        if (a->seals[p][f])
            return f;
    return -1;
}

/* Clears the fields that belong to other phases, so equal positions are
 * equal bytes (and the state JSON, which omits them, round-trips). */
static void ark_clean(arkadia_state *a)
{
    int ph = a->phase;
    if (ph != ARK_PH_PLACE)
        a->card = 0;
    if (ph != ARK_PH_WORKER) {
        a->target = 0;
        a->target_lot = 0;
        a->placed = 0;
    }
    if (ph != ARK_PH_CASTLE)
        a->castle_left = 0;
    if (ph != ARK_PH_SALE)
        a->family = 0;
    a->banner_used = ph == ARK_PH_SALE;
    if (ph == ARK_PH_OVER || ph == ARK_PH_LOT)
        a->action = ARK_ACT_NONE;
}

static void ark_apply(tb_state *s, tb_move m)
{
    arkadia_state *a = (arkadia_state *)s;
    const ark_data *d = ark__board(a);
    int p = ark__mover(a), pl = ARK_PAYLOAD(m);
    switch (ARK_KIND(m)) {
    case ARK_K_LOT:
        ark_place_lot(a, pl);
        if (!ark_begin_turn(a))
            ark_end_turn(a);
        break;
    case ARK_K_BUILD:
        ark_hand_remove(a, p, pl);
        a->card = (uint8_t)pl;
        a->action = ARK_ACT_BUILD;
        a->phase = ARK_PH_PLACE;
        break;
    case ARK_K_PLACE:
        ark_place_building(a, pl >> 12, (pl >> 8) & 15, pl & 0xff);
        ark_resolve(a);
        break;
    case ARK_K_WORKERS:
        a->action = ARK_ACT_WORKERS;
        a->target_lot = pl == ARK_LOT_TARGET;
        a->target = 0;
        if (!a->target_lot)
            for (int i = 0; i < a->nbld; i++)
                if (ark_building_first(a, i) == pl)
                    a->target = (uint8_t)i;
        a->placed = 0;
        a->phase = ARK_PH_WORKER;
        break;
    case ARK_K_OWN:
    case ARK_K_NEUTRAL: {
        bool own = ARK_KIND(m) == ARK_K_OWN;
        ark_bb_set(&a->workers[own ? p : ARK_NEUTRAL], pl);
        ark_bb_set(&a->occ, pl);
        if (own)
            a->screen[p]--;
        else
            a->screen_neutral[p]--;
        a->placed++;
        if ((!a->screen[p] && !a->screen_neutral[p]) || !ark_bb_any(ark__worker_squares(a)))
            ark_resolve(a); /* nothing more can be introduced: the action ends */
        break;
    }
    case ARK_K_STOP:
        ark_resolve(a);
        break;
    case ARK_K_CASTLE:
        ark_place_castle(a, pl >> 4, pl & 15);
        break;
    case ARK_K_DRAW:
        if (pl == ARK_DRAW_STACK) {
            ark_hand_add(a, p, a->stack[--a->stack_n], 0);
            a->stack[a->stack_n] = 0;
        } else {
            ark_display_remove(a, pl);
            ark_hand_add(a, p, pl, 1);
            if (a->stack_n) {
                ark_display_add(a, a->stack[--a->stack_n]);
                a->stack[a->stack_n] = 0;
            }
        }
        ark_banner_step(a);
        break;
    case ARK_K_BANNER:
        if (pl) {
            int pool = ark__own_pool(a, p), gain = d->per_banner < pool ? d->per_banner : pool;
            a->banners[p]--;
            a->screen[p] = (uint8_t)(a->screen[p] + gain);
            a->banner_used = 1;
            int f = ark_next_sale(a, 0);
            if (f >= 0) {
                a->family = (uint8_t)f;
                a->phase = ARK_PH_SALE;
                break;
            }
        }
        ark_end_turn(a);
        break;
    case ARK_K_SELL: {
        int f = pl >> 8, n = pl & 0xff;
        a->seals[p][f] = (uint16_t)(a->seals[p][f] - n);
        a->gold[p] += n * ark__value(a, f);
        int next = ark_next_sale(a, f + 1);
        if (next >= 0)
            a->family = (uint8_t)next;
        else
            ark_end_turn(a);
        break;
    }
    default:
        break;
    }
    ark_clean(a);
}

/* ---- legal decisions ---- */

typedef struct ark_target {
    int first, index;
} ark_target;

/* Buildings next to which workers may go now, sorted by first square. */
static int ark_targets(const arkadia_state *a, ark_target *out)
{
    int n = 0;
    for (int i = 0; i < a->nbld; i++) {
        if (!ark_bb_any(ark_open_around(a, i)))
            continue;
        int first = ark_building_first(a, i), k = n++;
        while (k > 0 && out[k - 1].first > first) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = (ark_target){first, i};
    }
    if (a->lot_workers && ark_bb_any(ark_open_around(a, ARK_LOT_TARGET)))
        out[n++] = (ark_target){ARK_LOT_TARGET, ARK_LOT_TARGET};
    return n;
}

/* Distinct cards of the mover's hand that can be laid out now. */
static int ark_buildable(const arkadia_state *a, int p, int *out)
{
    int n = 0, last = -1, fit = ark_placeable_forms(a, ark_hand_forms(a, p));
    for (int i = 0; i < a->hand_n[p]; i++) {
        int card = a->hand[p][i] / 2;
        if (card != last && (fit >> CARD_FORM(card) & 1))
            out[n++] = card;
        last = card;
    }
    return n;
}

static int ark_bits(ark_bb b, tb_move base, tb_move *out)
{
    int n = 0;
    for (int w = 0; w < 3; w++)
        for (uint64_t m = b.w[w]; m; m &= m - 1)
            out[n++] = base | (tb_move)(w * 64 + __builtin_ctzll(m));
    return n;
}

int ark__legal(const tb_state *s, tb_move *out)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    int p = ark__mover(a), n = 0;
    switch (a->phase) {
    case ARK_PH_LOT:
        return ark_bits(d->lot_anchors, ARK_MOVE(ARK_K_LOT, 0), out);
    case ARK_PH_ACTION: {
        int cards[ARK_HAND];
        int nc = ark_buildable(a, p, cards);
        for (int i = 0; i < nc; i++)
            out[n++] = ARK_MOVE(ARK_K_BUILD, cards[i]);
        if (a->screen[p] || a->screen_neutral[p]) {
            ark_target t[ARK_CARDS + 1];
            int nt = ark_targets(a, t);
            for (int i = 0; i < nt; i++)
                out[n++] = ARK_MOVE(ARK_K_WORKERS, t[i].first);
        }
        return n;
    }
    case ARK_PH_PLACE: {
        int form = CARD_FORM(a->card);
        ark_bb masks[ARK_MAX_ORIENT];
        ark__placements(a, form, masks);
        for (int o = 0; o < ark__orients(a, form); o++)
            n += ark_bits(masks[o], ARK_MOVE(ARK_K_PLACE, form << 12 | o << 8), out + n);
        return n;
    }
    case ARK_PH_WORKER: {
        ark_bb sq = ark__worker_squares(a);
        if (a->screen[p])
            n += ark_bits(sq, ARK_MOVE(ARK_K_OWN, 0), out + n);
        if (a->screen_neutral[p])
            n += ark_bits(sq, ARK_MOVE(ARK_K_NEUTRAL, 0), out + n);
        if (a->placed)
            out[n++] = ARK_MOVE(ARK_K_STOP, 0);
        return n;
    }
    case ARK_PH_CASTLE: {
        int f = ark__floor(a);
        for (int k = 0; k < ARK_FAMILIES; k++) {
            if (!a->pool[f][k])
                continue;
            for (int q = 0; q < ARK_CASTLE; q++)
                if (a->height[q] == f)
                    out[n++] = ARK_MOVE(ARK_K_CASTLE, k << 4 | q);
        }
        return n;
    }
    case ARK_PH_DRAW:
        for (int i = 0; i < a->display_n; i++)
            if (!i || a->display[i] != a->display[i - 1])
                out[n++] = ARK_MOVE(ARK_K_DRAW, a->display[i]);
        if (a->stack_n)
            out[n++] = ARK_MOVE(ARK_K_DRAW, ARK_DRAW_STACK);
        return n;
    case ARK_PH_BANNER:
        out[n++] = ARK_MOVE(ARK_K_BANNER, 0);
        out[n++] = ARK_MOVE(ARK_K_BANNER, 1);
        return n;
    case ARK_PH_SALE:
        for (int k = 0; k <= a->seals[p][a->family]; k++)
            out[n++] = ARK_MOVE(ARK_K_SELL, a->family << 8 | k);
        return n;
    default:
        return 0;
    }
}

bool ark__phase_has_moves(const arkadia_state *a)
{
    tb_move moves[TB_MAX_MOVES];
    return ark__legal(&a->base, moves) > 0;
}

/* The k-th square (0-based) of a board. */
static int ark_nth(ark_bb b, uint32_t k)
{
    for (int w = 0; w < 3; w++) {
        uint32_t c = (uint32_t)ark_pop64(b.w[w]);
        if (k < c) {
            uint64_t m = b.w[w];
            while (k--)
                m &= m - 1;
            return w * 64 + __builtin_ctzll(m);
        }
        k -= c;
    }
    return 0;
}

/* A uniformly random legal decision without listing the big phases. */
static tb_move ark_random_move(const tb_state *s, tb_rng *rng)
{
    const arkadia_state *a = (const arkadia_state *)s;
    int p = ark__mover(a);
    switch (a->phase) {
    case ARK_PH_ACTION: {
        /* Rejection sampling: a uniform candidate (distinct card or open
         * building) until it is legal, which is uniform over the legal ones
         * and tests one form at a time instead of the whole hand. */
        int cards[ARK_HAND], nc = 0, nt = 0, last = -1, open[ARK_CARDS + 1];
        for (int i = 0; i < a->hand_n[p]; i++) {
            int card = a->hand[p][i] / 2;
            if (card != last)
                cards[nc++] = card;
            last = card;
        }
        if (a->screen[p] || a->screen_neutral[p]) {
            for (int i = 0; i < a->nbld; i++)
                if (ark_bb_any(ark_open_around(a, i)))
                    open[nt++] = i;
            if (a->lot_workers && ark_bb_any(ark_open_around(a, ARK_LOT_TARGET)))
                open[nt++] = ARK_LOT_TARGET;
        }
        int tested = 0; /* forms known not to fit */
        for (;;) {
            uint32_t k = tb__rng_below(rng, (uint32_t)(nc + nt));
            if ((int)k >= nc) {
                int i = open[k - (uint32_t)nc];
                return ARK_MOVE(ARK_K_WORKERS,
                                i == ARK_LOT_TARGET ? ARK_LOT_TARGET : ark_building_first(a, i));
            }
            int form = CARD_FORM(cards[k]);
            if (!(tested >> form & 1)) {
                if (ark_placeable_forms(a, 1 << form))
                    return ARK_MOVE(ARK_K_BUILD, cards[k]);
                tested |= 1 << form;
            }
            if (nt == 0 && (ark_hand_forms(a, p) & ~tested) == 0)
                return 0; /* unreachable: the action phase always has a decision */
        }
    }
    case ARK_PH_PLACE: {
        int form = CARD_FORM(a->card);
        ark_bb masks[ARK_MAX_ORIENT];
        uint32_t k = tb__rng_below(rng, (uint32_t)ark__placements(a, form, masks));
        for (int o = 0;; o++) {
            uint32_t c = (uint32_t)ark_bb_count(masks[o]);
            if (k < c)
                return ARK_MOVE(ARK_K_PLACE, form << 12 | o << 8 | ark_nth(masks[o], k));
            k -= c;
        }
    }
    case ARK_PH_WORKER: {
        ark_bb sq = ark__worker_squares(a);
        uint32_t c = (uint32_t)ark_bb_count(sq), own = a->screen[p] ? c : 0,
                 neu = a->screen_neutral[p] ? c : 0;
        uint32_t k = tb__rng_below(rng, own + neu + (a->placed ? 1u : 0u));
        if (k < own)
            return ARK_MOVE(ARK_K_OWN, ark_nth(sq, k));
        if (k < own + neu)
            return ARK_MOVE(ARK_K_NEUTRAL, ark_nth(sq, k - own));
        return ARK_MOVE(ARK_K_STOP, 0);
    }
    default: {
        tb_move moves[TB_MAX_MOVES];
        int n = ark__legal(s, moves);
        return n ? moves[tb__rng_below(rng, (uint32_t)n)] : 0;
    }
    }
}

/* Random decisions to the end (or `limit`), the same draws as repeated
 * random_move + apply, without the core's dispatch per decision. */
static int ark_playout(tb_state *s, tb_rng *rng, int limit)
{
    arkadia_state *a = (arkadia_state *)s;
    int n = 0;
    while ((limit <= 0 || n < limit) && a->phase != ARK_PH_OVER) {
        ark_apply(s, ark_random_move(s, rng));
        n++;
    }
    return n;
}

/* ---- set-up ---- */

/* Is option `key` set to `value`?  The state keeps each option as the index
 * of its value in the option's '|'-separated list (ark_options). */
static bool ark_option_on(const tb_state *s, const char *key, const char *value)
{
    int index = tb__option_index(s, key);
    for (const tb_option_spec *o = ark_options; o->key; o++) {
        if (strcmp(o->key, key) != 0)
            continue;
        const char *p = o->values;
        for (int k = 0; k < index && strchr(p, '|'); k++)
            p = strchr(p, '|') + 1;
        size_t len = strlen(value);
        return index >= 0 && strncmp(p, value, len) == 0 && (p[len] == '|' || p[len] == '\0');
    }
    return false;
}

void ark__derive(arkadia_state *a)
{
    const ark_data *d = ark__board(a);
    a->mirror = ark_option_on(&a->base, "mirror", "on");
    a->lot_workers = ark_option_on(&a->base, "lot_workers", "on");
    a->first_game = ark_option_on(&a->base, "variant", "first-game");
    ark_bb occ = ark__lot_cells(a);
    a->lot_nb = a->lot == ARK_NO_SQUARE ? (ark_bb){{0, 0, 0}} : ark_bb_around(occ);
    for (int i = 0; i < a->nbld; i++) {
        ark_bb cells = ark__building_cells(d, &a->bld[i]);
        a->nb[i] = ark_bb_around(cells);
        occ = ark_bb_or(occ, cells);
    }
    for (int i = a->nbld; i < ARK_CARDS; i++)
        a->nb[i] = (ark_bb){{0, 0, 0}};
    for (int k = 0; k <= ARK_NEUTRAL; k++)
        occ = ark_bb_or(occ, a->workers[k]);
    a->occ = occ;
    /* pools: what the stacks left, leftovers of full floors in pool 3 */
    for (int k = 0; k < ARK_FAMILIES; k++) {
        int left[ARK_FLOORS];
        for (int f = 0; f < ARK_FLOORS; f++) {
            int placed = 0;
            for (int q = 0; q < ARK_CASTLE; q++)
                placed += a->height[q] > f && a->castle[q][f] == k;
            left[f] = d->pieces[f][k] - placed;
        }
        int to3 = 0;
        for (int f = 0; f < 2; f++) {
            if (ark_floor_full(a, f)) {
                to3 += left[f];
                left[f] = 0;
            }
        }
        left[2] += to3;
        for (int f = 0; f < ARK_FLOORS; f++)
            a->pool[f][k] = (uint8_t)(left[f] < 0 ? 0 : left[f]);
    }
}

static int ark_setup(tb_state *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    arkadia_state *a = (arkadia_state *)s;
    const ark_data *d = ark__board(a);
    a->lot = ARK_NO_SQUARE;
    a->trigger_turn = -1;
    ark__derive(a); /* options, empty pools */
    uint8_t deck[ARK_CARDS];
    int removed[ARK_CARD_TYPES] = {0}, n = 0;
    if (a->first_game)
        for (int i = 0; i < d->first_count; i++)
            removed[CARD(d->first[i].form, d->first[i].family)]++;
    for (int f = 0; f < ARK_FORMS; f++)
        for (int k = 0; k < ARK_FAMILIES; k++)
            for (int c = removed[CARD(f, k)]; c < d->cards[f][k]; c++)
                deck[n++] = (uint8_t)CARD(f, k);
    tb__shuffle(deck, (size_t)n, 1, &s->rng);
    for (int p = 0; p < s->players; p++) {
        for (int i = 0; i < d->hand; i++)
            ark_hand_add(a, p, deck[--n], 0);
        a->screen[p] = d->start_workers;
        a->banners[p] = d->banners;
        if (a->first_game)
            a->screen_neutral[p] = d->first_neutral[s->players];
    }
    for (int i = 0; i < d->display; i++)
        ark_display_add(a, deck[--n]);
    memset(a->stack, 0, sizeof a->stack);
    memcpy(a->stack, deck, (size_t)n);
    a->stack_n = (uint8_t)n;
    a->start = (uint8_t)tb_rng_below(&s->rng, (uint32_t)s->players);
    a->seat = a->start;
    for (int f = 0; f < ARK_FLOORS; f++)
        memcpy(a->pool[f], d->pieces[f], ARK_FAMILIES);
    if (a->first_game) {
        ark_place_lot(a, d->first_lot);
        for (int i = 0; i < d->first_count; i++) {
            const ark_first_building *fb = &d->first[i];
            ark_building *b = &a->bld[a->nbld];
            *b = (ark_building){fb->form, fb->orient, fb->anchor, fb->family, 0};
            ark_bb cells = ark__building_cells(d, b);
            a->nb[a->nbld++] = ark_bb_around(cells);
            a->occ = ark_bb_or(a->occ, cells);
        }
    } else if (ark_option_on(s, "lot", "random")) {
        ark_place_lot(a, ark_nth(d->lot_anchors,
                                 tb_rng_below(&s->rng, (uint32_t)ark_bb_count(d->lot_anchors))));
    }
    if (a->lot == ARK_NO_SQUARE) {
        a->phase = ARK_PH_LOT;
        return 0;
    }
    if (!ark_begin_turn(a))
        ark_end_turn(a);
    ark_clean(a);
    return 0;
}

/* ---- scores, resampling, heuristic ---- */

static void ark_scores(const tb_state *s, int *out)
{
    const arkadia_state *a = (const arkadia_state *)s;
    for (int p = 0; p < s->players; p++)
        out[p] = a->gold[p];
}

/* tb_score_breakdown: the gold from the seals sold at the end, family by
 * family at the families' final values, and the gold from sales during
 * play (the only other source of gold). */
static int ark_score_breakdown(const tb_state *s, int seat, tb_score_part *out)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__names();
    int n = 0, sales = a->gold[seat];
    for (int f = 0; f < ARK_FAMILIES; f++) {
        int count = a->cashed[seat][f], value = ark__value(a, f);
        if (!count)
            continue;
        char name[ARK_NAME_LEN];
        snprintf(name, sizeof name, "%s", d->family[f]);
        name[0] = (char)toupper((unsigned char)name[0]);
        /* a seat holds at most 200 seals of a family (state_from_json) and a
         * value is at most the castle's squares: both fit a byte */
        snprintf(out[n].source, sizeof out[n].source, "%.12s seal%s at the end (%hhu \u00d7 %hhu)",
                 name, count == 1 ? "" : "s", (unsigned char)count, (unsigned char)value);
        out[n++].points = count * value;
        sales -= count * value;
    }
    snprintf(out[n].source, sizeof out[n].source, "Gold from sales during play");
    out[n++].points = sales;
    return n;
}

/* What the public phase says about the mover's hand: +1 it holds a card
 * that fits (the action phase with no worker to introduce), -1 none fits
 * (the mover skipped the action, E8), 0 nothing. */
static int ark_hand_constraint(const arkadia_state *a)
{
    int p = ark__mover(a);
    if (a->phase == ARK_PH_ACTION && !ark_can_introduce(a, p))
        return 1;
    if (a->action == ARK_ACT_SKIP && (a->phase == ARK_PH_BANNER || a->phase == ARK_PH_SALE))
        return -1;
    return 0;
}

/* Deals the pool, in order, to the hidden hand entries of every seat but
 * `seat`, then to the stack. */
static void ark_deal(arkadia_state *a, int seat, const uint8_t *pool)
{
    int k = 0;
    for (int p = 0; p < a->base.players; p++) {
        if (p == seat)
            continue;
        uint8_t keep[ARK_HAND];
        int nk = 0, hidden = 0;
        for (int i = 0; i < a->hand_n[p]; i++) {
            if (a->hand[p][i] & 1)
                keep[nk++] = a->hand[p][i];
            else
                hidden++;
        }
        a->hand_n[p] = 0;
        for (int i = 0; i < nk; i++)
            ark_hand_add(a, p, keep[i] / 2, 1);
        for (int i = 0; i < hidden; i++)
            ark_hand_add(a, p, pool[k++], 0);
    }
    for (int i = 0; i < a->stack_n; i++)
        a->stack[i] = pool[k++];
}

/* tb_reveals, exactly: the secrets are the hidden hand entries and the
 * stack (ark_resample re-deals nothing else), and what the phase shows of
 * the mover's hand (ark_hand_constraint).  A card off the stack shows
 * every seat something; a hidden card leaving a hand, or being shown,
 * shows it to the others; a phase that tells something of the mover's
 * hand tells the others. */
static int ark_hidden_count(const arkadia_state *a, int p, int card)
{
    int n = 0;
    for (int i = 0; i < a->hand_n[p]; i++)
        n += a->hand[p][i] == card * 2;
    return n;
}

static unsigned ark_reveals(const tb_state *before, tb_move m, const tb_state *after)
{
    (void)m;
    const arkadia_state *b = (const arkadia_state *)before, *a = (const arkadia_state *)after;
    unsigned all = (1u << before->players) - 1u, seats = 0;
    if (a->stack_n != b->stack_n || memcmp(a->stack, b->stack, sizeof a->stack) != 0)
        return all;
    for (int p = 0; p < before->players; p++)
        for (int i = 0; i < b->hand_n[p]; i++) {
            int card = b->hand[p][i] / 2;
            if (!(b->hand[p][i] & 1) && ark_hidden_count(a, p, card) < ark_hidden_count(b, p, card))
                seats |= all & ~(1u << p);
        }
    if (!tb_is_over(after) && ark_hand_constraint(a) != 0 &&
        (ark_hand_constraint(b) != ark_hand_constraint(a) || ark__mover(a) != ark__mover(b)))
        seats |= all & ~(1u << ark__mover(a));
    return seats;
}

/* tb_settles_chance: the stack is dealt in order at setup, so a card off
 * it (drawn, or turned up to refill the display) settles chance. */
static bool ark_settles_chance(const tb_state *before, tb_move m, const tb_state *after)
{
    (void)m;
    const arkadia_state *b = (const arkadia_state *)before, *a = (const arkadia_state *)after;
    return a->stack_n != b->stack_n || memcmp(a->stack, b->stack, sizeof a->stack) != 0;
}

/* Re-deals the cards `seat` cannot see: the hidden entries of the other
 * hands and the stack.  They are collected in sorted order first, so the
 * result depends only on what the seat sees and on rng.  The deal must also
 * agree with what the phase shows of the mover's hand (ark_hand_constraint):
 * deals are drawn until one does (the true deal always would), and after 64
 * failures the mover's hidden cards are chosen among the cards that satisfy
 * it, the rest dealt at random. */
static void ark_resample(tb_state *s, int seat, tb_rng *rng)
{
    arkadia_state *a = (arkadia_state *)s;
    /* The unseen cards, sorted by counting: each card's place is the number
     * of lower cards before it (a card may have several copies). */
    uint8_t unseen[ARK_CARDS], pool[ARK_CARDS], at[ARK_CARDS] = {0};
    int n = 0;
    for (int p = 0; p < s->players; p++) {
        if (p == seat)
            continue;
        for (int i = 0; i < a->hand_n[p]; i++)
            if (!(a->hand[p][i] & 1))
                unseen[n++] = a->hand[p][i] / 2;
    }
    for (int i = 0; i < a->stack_n; i++)
        unseen[n++] = a->stack[i];
    for (int i = 0; i < n; i++)
        at[unseen[i]]++;
    for (int card = 0, below = 0; card < ARK_CARDS; card++) {
        int copies = at[card];
        at[card] = (uint8_t)below;
        below += copies;
    }
    for (int i = 0; i < n; i++)
        pool[at[unseen[i]]++] = unseen[i];
    int mover = ark__mover(a), want = mover == seat ? 0 : ark_hand_constraint(a);
    for (int attempt = 0;; attempt++) {
        tb__shuffle(pool, (size_t)n, 1, rng);
        ark_deal(a, seat, pool);
        if (!want)
            return;
        bool fits = ark_can_build(a, mover);
        if (fits == (want > 0))
            return;
        if (attempt == 63)
            break;
    }
    /* Constructive fallback: the mover's hidden entries come first in the
     * deal order only when the mover is the first seat dealt, so the pool
     * is rearranged so that the slots dealt to the mover get suitable cards. */
    int fit = ark_placeable_forms(a, 0x7f), first = 0, hidden = 0;
    for (int p = 0; p < mover; p++)
        if (p != seat)
            for (int i = 0; i < a->hand_n[p]; i++)
                first += !(a->hand[p][i] & 1);
    for (int i = 0; i < a->hand_n[mover]; i++)
        hidden += !(a->hand[mover][i] & 1);
    /* move suitable cards into [first, first + need) */
    int need = want > 0 ? 1 : hidden, placed = 0;
    for (int i = 0; i < n && placed < need; i++) {
        bool ok = (fit >> CARD_FORM(pool[i]) & 1) == (want > 0);
        if (!ok || (i >= first && i < first + placed))
            continue;
        int to = first + placed++;
        uint8_t t = pool[to];
        pool[to] = pool[i];
        pool[i] = t;
    }
    ark_deal(a, seat, pool);
}

/* Every seat's worth: gold now, plus seals at today's values, plus a share
 * of the buildings its workers are waiting on, plus workers and banners
 * while the castle is still growing.  Uses only public information.  Each
 * seat's sum takes its terms in the same order whatever the number of
 * seats, so a seat's worth is the same double however it is asked for. */
static void ark_worth_all(const arkadia_state *a, double w[TB_MAX_SEATS])
{
    int value[ARK_FAMILIES], players = a->base.players;
    ark__values(a, value);
    /* Gold and seals are whole numbers: summed as integers, the double
     * is the one the term-by-term sum of doubles gives (exact either way). */
    for (int p = 0; p < players; p++) {
        int whole = a->gold[p];
        for (int f = 0; f < ARK_FAMILIES; f++)
            whole += a->seals[p][f] * value[f];
        w[p] = whole;
    }
    if (a->phase == ARK_PH_OVER)
        return;
    for (int i = 0; i < a->nbld; i++) {
        if (a->bld[i].done)
            continue;
        int open = -1;
        for (int p = 0; p < players; p++) {
            int mine = ark_bb_count(ark_bb_and(a->nb[i], a->workers[p]));
            if (!mine)
                continue;
            if (open < 0)
                open = ark_bb_count(ark_bb_andnot(a->nb[i], a->occ));
            w[p] += mine * value[a->bld[i].family] * 2.0 / (2.0 + open);
        }
    }
    double late = a->trigger_turn >= 0 ? 0.2 : 1.0;
    for (int p = 0; p < players; p++)
        w[p] += late * (1.2 * (a->screen[p] + a->screen_neutral[p]) + 1.5 * a->banners[p]);
}

/* A seat's worth against the best other seat's, squashed to (0,1). */
static double ark_standing(const double *w, int players, int seat)
{
    double best = -1e9;
    for (int p = 0; p < players; p++)
        if (p != seat)
            best = w[p] > best ? w[p] : best;
    double lead = w[seat] - best;
    return 0.5 + 0.5 * lead / (20.0 + (lead < 0 ? -lead : lead));
}

static double ark_heuristic(const tb_state *s, int seat)
{
    double w[TB_MAX_SEATS];
    ark_worth_all((const arkadia_state *)s, w);
    return ark_standing(w, s->players, seat);
}

static void ark_heuristic_all(const tb_state *s, double *out)
{
    double w[TB_MAX_SEATS];
    ark_worth_all((const arkadia_state *)s, w);
    for (int p = 0; p < s->players; p++)
        out[p] = ark_standing(w, s->players, p);
}

/* ---- board files (docs/data-format.md, "Arkadia") ---- */

void *ark__data_read(const char *text, size_t len, const char *where, char *err, size_t errlen)
{
    ark_data *d = malloc(sizeof *d);
    if (!d) {
        tb__errf(err, errlen, "%s: out of memory", where);
        return NULL;
    }
    /* the names must be the built-in board's: moves and saved games use them */
    if (ark__data_parse(text, len, where, ark__names(), d, err, errlen)) {
        free(d);
        return NULL;
    }
    return d;
}

void ark__data_free(void *tables)
{
    free(tables);
}

const struct tb_game tb__arkadia_game = {
    .name = "arkadia",
    .title = "Arkadia",
    .min_players = 2,
    .max_players = 4,
    .default_players = 4,
    .state_size = sizeof(arkadia_state),
    .options = ark_options,
    /* Player-facing: the provisional data is listed in docs/rules-arkadia.md. */
    .notice = N_("This board, its tile shapes and its card mix are our reconstruction, not yet checked "
              "against a published copy."),
    .setup = ark_setup,
    .to_move = ark__to_move,
    .legal = ark__legal,
    .apply = ark_apply,
    .random_move = ark_random_move,
    .playout = ark_playout,
    .scores = ark_scores,
    .score_breakdown = ark_score_breakdown,
    .move_to_text = ark__move_to_text,
    .text_to_move = ark__text_to_move,
    .view_json = ark__view_json,
    .state_json = ark__state_json,
    .state_from_json = ark__state_from_json,
    .resample = ark_resample,
    .heuristic = ark_heuristic,
    .heuristic_all = ark_heuristic_all,
    .data_builtin = &ark__builtin_data,
    .data_read = ark__data_read,
    .data_free = ark__data_free,
    .data_board_json = ark__board_json,
    .render_text = ark__render_text,
    .prompt_text = ark__prompt_text,
    .narrate = ark__narrate,
    .prompt_msg = ark__prompt_msg,
    .stage_msg = ark__stage_msg,
    .stage_text = ark__stage_text,
    .reveals = ark_reveals,
    .settles_chance = ark_settles_chance,
    .num_actions = ark__num_actions,
    .move_to_action = ark__move_to_action,
    .action_to_move = ark__action_to_move,
    .observation_size = ark__observation_size,
    .observation = ark__observation,
};
