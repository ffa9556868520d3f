/*
 * sim_arkadia.c — the invariants of an Arkadia state (arkadia.h and the
 * checklist of shared/rules/arkadia.md §17) checked after every random
 * decision:
 *   - the board: occupied squares are exactly the lot, the buildings and the
 *     workers, with no overlap; buildings and workers are never removed;
 *   - the 40 cards are all somewhere (hands, display, stack, card in play,
 *     buildings); hands hold at most 4 and are full while cards remain;
 *   - §17.1 castle: 28 pieces in stacks and pools; after 10 placements floor 1
 *     is full and pool 3 holds 6; after 20 floor 2 is full, pool 3 holds 8
 *     minus the floor-3 pieces placed in the same turn, and the end is
 *     triggered in that turn; stacks only grow, floor by floor;
 *   - §17.2 the four seal values add up to at most 10, and to 8 at the start;
 *   - §17.3 own workers: screen + board + pool = 11, pool = 8 - 2 x banners used;
 *   - §17.4 neutral workers: pool + screens + board = 24;
 * (the numbers of the built-in board: every count comes from the board the
 * state is played on, so the same checks hold on an owner's board file);
 *   - §17.5 a building is paid once: every seal a decision pays matches the
 *     own workers next to the buildings it completed, plus each building's
 *     seal to the active player, and one castle piece is owed per building;
 *   - §17.6 the final round: the game ends exactly after the trigger turn
 *     plus one turn per player, the trigger player's turn last;
 *   - §17.7 gold changes only in a sale right after a banner (seals times the
 *     family's value) or in the final evaluation; gold never goes down.
 */
#include "sim.h"

#include "games/arkadia/arkadia.h"

#include <stdio.h>
#include <string.h>


#define FAIL(...) return snprintf(err, n, __VA_ARGS__), -1

static bool sim_bb_eq(ark_bb a, ark_bb b)
{
    return a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2];
}

static int sim_total(const uint8_t *v, int k)
{
    int t = 0;
    for (int i = 0; i < k; i++)
        t += v[i];
    return t;
}

static int sim_static(const arkadia_state *a, char *err, size_t n)
{
    const ark_data *d = ark__board(a);
    int players = a->base.players, mover = ark__mover(a);
    /* the board */
    ark_bb occ = ark__lot_cells(a);
    for (int i = 0; i < a->nbld; i++) {
        ark_bb cells = ark__building_cells(d, &a->bld[i]);
        if (ark_bb_any(ark_bb_and(cells, occ)))
            FAIL("building %d overlaps something", i);
        occ = ark_bb_or(occ, cells);
        if (!sim_bb_eq(a->nb[i], ark_bb_around(cells)))
            FAIL("building %d: stale neighbour mask", i);
    }
    for (int k = 0; k <= ARK_NEUTRAL; k++) {
        if (k < ARK_SEATS && k >= players && ark_bb_any(a->workers[k]))
            FAIL("workers of a colour not in play");
        if (ark_bb_any(ark_bb_and(a->workers[k], occ)))
            FAIL("a worker stands on something");
        occ = ark_bb_or(occ, a->workers[k]);
    }
    if (!sim_bb_eq(occ, a->occ))
        FAIL("the occupied mask is not lot + buildings + workers");
    /* cards */
    int count[ARK_CARD_TYPES] = {0};
    for (int p = 0; p < players; p++) {
        if (a->hand_n[p] > d->hand)
            FAIL("seat %d holds %d cards", p, a->hand_n[p]);
        for (int i = 0; i < a->hand_n[p]; i++) {
            count[a->hand[p][i] / 2]++;
            if (i && a->hand[p][i - 1] > a->hand[p][i])
                FAIL("seat %d: hand not sorted", p);
        }
        int want = d->hand - (p == mover && a->action == ARK_ACT_BUILD &&
                             (a->phase == ARK_PH_PLACE || a->phase == ARK_PH_CASTLE || a->phase == ARK_PH_DRAW));
        if ((a->stack_n || a->display_n) && a->hand_n[p] != want)
            FAIL("seat %d holds %d cards while cards remain; %d expected", p, a->hand_n[p], want);
    }
    for (int i = 0; i < a->display_n; i++)
        count[a->display[i]]++;
    for (int i = 0; i < a->stack_n; i++)
        count[a->stack[i]]++;
    for (int i = 0; i < a->nbld; i++)
        count[a->bld[i].form * ARK_FAMILIES + a->bld[i].family]++;
    if (a->phase == ARK_PH_PLACE)
        count[a->card]++;
    for (int c = 0; c < ARK_CARD_TYPES; c++)
        if (count[c] != d->cards[c / ARK_FAMILIES][c % ARK_FAMILIES])
            FAIL("card %d: %d copies", c, count[c]);
    if (a->stack_n && a->display_n != d->display)
        FAIL("the display is short while the stack has cards");
    /* §17.1: 28 pieces */
    int pieces = 0, placed = 0;
    for (int f = 0; f < ARK_FLOORS; f++)
        pieces += sim_total(a->pool[f], ARK_FAMILIES);
    for (int q = 0; q < ARK_CASTLE; q++)
        placed += a->height[q];
    int start[ARK_FLOORS], start_pieces = 0;
    for (int f = 0; f < ARK_FLOORS; f++)
        start_pieces += start[f] = sim_total(d->pieces[f], ARK_FAMILIES);
    if (pieces + placed != start_pieces)
        FAIL("castle: %d placed + %d in pools != %d", placed, pieces, start_pieces);
    int on_floor[ARK_FLOORS] = {0};
    for (int q = 0; q < ARK_CASTLE; q++)
        for (int f = 0; f < a->height[q]; f++)
            on_floor[f]++;
    /* the floor-1 and floor-2 leftovers join pool 3 when their floor fills
     * (built-in board: 12 + 12 + 4 pieces, so pool 3 holds 6, then 8) */
    if ((on_floor[1] && on_floor[0] < ARK_CASTLE) || (on_floor[2] && on_floor[1] < ARK_CASTLE))
        FAIL("a floor was started before the one below was full");
    if (on_floor[0] == ARK_CASTLE && sim_total(a->pool[0], 4))
        FAIL("floor 1 is full but its pool still holds pieces");
    int pool3_after_1 = start[2] + start[0] - ARK_CASTLE;
    if (on_floor[0] == ARK_CASTLE && on_floor[1] == 0 && sim_total(a->pool[2], 4) != pool3_after_1)
        FAIL("floor 1 just full: pool 3 holds %d, not %d", sim_total(a->pool[2], 4), pool3_after_1);
    int pool3_after_2 = pool3_after_1 + start[1] - ARK_CASTLE - on_floor[2];
    if (on_floor[1] == ARK_CASTLE && (sim_total(a->pool[1], 4) || sim_total(a->pool[2], 4) != pool3_after_2))
        FAIL("floor 2 full: pools are %d and %d", sim_total(a->pool[1], 4), sim_total(a->pool[2], 4));
    if ((on_floor[1] == ARK_CASTLE) != (a->trigger_turn >= 0))
        FAIL("the end is triggered exactly when floor 2 is full");
    /* §17.2 */
    int values = 0;
    for (int k = 0; k < ARK_FAMILIES; k++)
        values += ark__value(a, k);
    if (values > ARK_CASTLE)
        FAIL("seal values add up to %d", values);
    /* §17.3, §17.4 */
    int neutral = ark__neutral_pool(a) + ark_bb_count(a->workers[ARK_NEUTRAL]);
    for (int p = 0; p < players; p++) {
        int pool = ark__own_pool(a, p), used = d->banners - a->banners[p];
        if (a->screen[p] + ark_bb_count(a->workers[p]) + pool != d->own_workers)
            FAIL("seat %d: own workers do not add up to %d", p, d->own_workers);
        if (pool != d->own_workers - d->start_workers - d->per_banner * used)
            FAIL("seat %d: own pool %d after %d banners", p, pool, used);
        neutral += a->screen_neutral[p];
    }
    if (neutral != d->neutral || ark__neutral_pool(a) < 0)
        FAIL("neutral workers add up to %d", neutral);
    /* completion: done exactly when enclosed, outside the workers phase */
    for (int i = 0; i < a->nbld; i++) {
        bool enclosed = !ark_bb_any(ark_bb_andnot(a->nb[i], a->occ));
        if (a->bld[i].done ? !enclosed : enclosed && a->phase != ARK_PH_WORKER)
            FAIL("building %d: done %d but enclosed %d", i, a->bld[i].done, enclosed);
    }
    if ((a->phase == ARK_PH_CASTLE) != (a->castle_left > 0))
        FAIL("castle pieces owed outside the castle phase");
    if (a->phase == ARK_PH_OVER)
        for (int p = 0; p < players; p++)
            for (int k = 0; k < ARK_FAMILIES; k++)
                if (a->seals[p][k])
                    FAIL("seals left after the final evaluation");
    if (a->trigger_turn >= 0 && a->turn_no > a->trigger_turn + players)
        FAIL("the final round is longer than one turn per player");
    return 0;
}

int sim_arkadia_check(const tb_state *before, const tb_state *after, char *err, size_t n)
{
    const arkadia_state *a = (const arkadia_state *)after;
    const ark_data *d = ark__board(a);
    if (sim_static(a, err, n))
        return -1;
    int players = after->players;
    if (!before) {
        int values = 0, printed = 0;
        for (int k = 0; k < ARK_FAMILIES; k++)
            values += ark__value(a, k);
        for (int q = 0; q < ARK_CASTLE; q++)
            printed += d->castle_seal[q] != ARK_NO_FAMILY;
        if (values != printed)
            FAIL("seal values add up to %d at the start, not %d (the printed seals)", values, printed);
        return 0;
    }
    const arkadia_state *b = (const arkadia_state *)before;
    int mover = ark__mover(b);
    /* nothing leaves the board */
    if (a->nbld < b->nbld || memcmp(a->bld, b->bld, sizeof a->bld[0] * b->nbld) != 0) {
        for (int i = 0; i < b->nbld; i++)
            if (a->bld[i].form != b->bld[i].form || a->bld[i].anchor != b->bld[i].anchor ||
                a->bld[i].done < b->bld[i].done)
                FAIL("building %d changed or was un-completed", i);
    }
    for (int k = 0; k <= ARK_NEUTRAL; k++)
        if (ark_bb_any(ark_bb_andnot(b->workers[k], a->workers[k])))
            FAIL("a worker left the board");
    for (int q = 0; q < ARK_CASTLE; q++) {
        if (a->height[q] < b->height[q] || memcmp(a->castle[q], b->castle[q], b->height[q]) != 0)
            FAIL("castle square %d lost a piece", q + 1);
    }
    bool over = a->phase == ARK_PH_OVER;
    /* §17.5: payouts of the buildings this decision completed */
    int expect[ARK_SEATS][ARK_FAMILIES] = {{0}}, completed = 0;
    for (int i = 0; i < a->nbld; i++) {
        if (!a->bld[i].done || (i < b->nbld && b->bld[i].done))
            continue;
        completed++;
        int k = a->bld[i].family;
        for (int p = 0; p < players; p++)
            expect[p][k] += ark_bb_count(ark_bb_and(a->nb[i], a->workers[p]));
        expect[mover][k]++;
    }
    if (!over) {
        for (int p = 0; p < players; p++)
            for (int k = 0; k < ARK_FAMILIES; k++) {
                int delta = a->seals[p][k] - b->seals[p][k];
                bool sold = b->phase == ARK_PH_SALE && p == mover && k == b->family;
                if (sold ? delta > 0 : delta != expect[p][k])
                    FAIL("seat %d %s seals changed by %d; payouts explain %d", p, d->family[k], delta,
                         expect[p][k]);
            }
    }
    int placed_now = 0;
    for (int q = 0; q < ARK_CASTLE; q++)
        placed_now += a->height[q] - b->height[q];
    if (completed && !over) {
        bool none_left = ark__floor(a) == 2 && sim_total(a->pool[2], ARK_FAMILIES) == 0;
        if (placed_now)
            FAIL("a castle piece was placed in the decision that completed buildings");
        if (a->castle_left != completed && !(a->castle_left == 0 && none_left))
            FAIL("%d completions owe %d castle pieces", completed, a->castle_left);
    }
    /* §17.1: a piece per decision in the castle phase, floors in order */
    if (placed_now > 1 || (placed_now && b->phase != ARK_PH_CASTLE))
        FAIL("%d castle pieces placed by one decision", placed_now);
    if (b->trigger_turn < 0 && a->trigger_turn >= 0 &&
        (a->trigger_turn != b->turn_no || !placed_now))
        FAIL("the end was triggered outside the placement of the last floor-2 piece");
    if (b->trigger_turn >= 0 && a->trigger_turn != b->trigger_turn)
        FAIL("the trigger turn changed");
    /* §17.6: the final round */
    if (a->turn_no < b->turn_no)
        FAIL("the turn number went back");
    if (over && !(b->phase == ARK_PH_OVER)) {
        if (a->trigger_turn >= 0) {
            if (a->turn_no != a->trigger_turn + players)
                FAIL("the game ended %d turns after the trigger, not %d", a->turn_no - a->trigger_turn, players);
            if ((a->start + a->turn_no) % players != (a->start + a->trigger_turn) % players)
                FAIL("the last turn was not the trigger player's");
        } else if (a->idle < players) {
            FAIL("the game ended without the trigger or a round of idle turns");
        }
    }
    /* §17.7: gold */
    for (int p = 0; p < players; p++) {
        int delta = a->gold[p] - b->gold[p];
        if (delta < 0)
            FAIL("seat %d lost gold", p);
        if (!delta || over)
            continue;
        if (b->phase != ARK_PH_SALE || p != mover)
            FAIL("seat %d gained gold outside a sale after a banner", p);
        int sold = b->seals[p][b->family] - a->seals[p][b->family];
        if (delta != sold * ark__value(b, b->family))
            FAIL("seat %d sold %d seals for %d gold at value %d", p, sold, delta, ark__value(b, b->family));
    }
    if (over && b->phase != ARK_PH_OVER)
        for (int p = 0; p < players; p++) {
            int worth = b->gold[p];
            for (int k = 0; k < ARK_FAMILIES; k++)
                worth += b->seals[p][k] * ark__value(a, k) + expect[p][k] * ark__value(a, k);
            if (b->phase == ARK_PH_SALE && p == mover)
                continue; /* the last sale and the final evaluation together */
            if (a->gold[p] != worth)
                FAIL("seat %d ends with %d gold; the final evaluation gives %d", p, a->gold[p], worth);
        }
    if (b->phase == ARK_PH_SALE && a->banners[mover] > d->banners - 1)
        FAIL("a sale without a banner");
    /* the seals sold at the end (the score breakdown): none before the end,
     * the final evaluation's at the end, unchanged afterwards */
    for (int p = 0; p < players; p++) {
        int cashed = 0;
        for (int k = 0; k < ARK_FAMILIES; k++) {
            if (!over && a->cashed[p][k])
                FAIL("seat %d has seals sold at the end before the end", p);
            if (b->phase == ARK_PH_OVER && a->cashed[p][k] != b->cashed[p][k])
                FAIL("seat %d's seals sold at the end changed after the end", p);
            cashed += a->cashed[p][k] * ark__value(a, k);
        }
        if (over && b->phase != ARK_PH_OVER && !(b->phase == ARK_PH_SALE && p == mover) &&
            b->gold[p] + cashed != a->gold[p])
            FAIL("seat %d: %d gold + %d for the seals sold at the end != %d", p, b->gold[p], cashed,
                 a->gold[p]);
    }
    return 0;
}
