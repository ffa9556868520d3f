/*
 * sim_khronos.c — the invariants of a Khronos state (khronos.h) checked after
 * every random decision: tiles on the boards + stock = 155 by type (and the
 * incremental stock agrees), cubes on the boards + supply = 25 per player,
 * cards = 55 by colour, Ecus >= 0, every board's building list sorted (each
 * building keeping its placement's first square) with
 * its square map, occupancy and domains equal to a rebuild from scratch,
 * printed Hamlet squares covered by civil buildings, ruins and owners where
 * they belong, populate cubes within capacity, and — whenever no action is
 * half done — a unique highest military and religious building in every
 * domain of Might and Faith; the builds, upgrades and squares offered are
 * exactly those a one-placement-at-a-time reading of the rules allows
 * (kh_place_ok; the legal-move generator scans whole boards at once); and
 * the decisions searches leave out are only second travels of an adventurer
 * that has not played a card since.
 */
#include "sim.h"

#include "games/khronos/khronos.h"

#include <stdio.h>
#include <string.h>

#define KT KH_TABLES(k)
#define D (KT->data)

static int sim_board(const khronos_state *k, int b, char *err, size_t n)
{
    const kh_board *bd = &k->board[b];
    kh_board copy = *bd;
    kh_board_rebuild(&copy);
    if (memcmp(copy.at, bd->at, sizeof bd->at) != 0 || memcmp(&copy.occ, &bd->occ, sizeof bd->occ))
        return snprintf(err, n, "%s: the square map disagrees with the buildings", kh_board_name[b]), -1;
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *x = &bd->b[i];
        if (x->anchor != KT->place[x->place].sq[0])
            return snprintf(err, n, "%s: building %d keeps %d as its first square, its placement "
                            "starts at %d", kh_board_name[b], i, x->anchor, KT->place[x->place].sq[0]), -1;
        if (i && kh_anchor(&bd->b[i - 1]) >= kh_anchor(x))
            return snprintf(err, n, "%s: buildings out of order", kh_board_name[b]), -1;
        if (copy.b[i].dom != x->dom)
            return snprintf(err, n, "%s: building %d is in domain %d, a rebuild says %d",
                            kh_board_name[b], i, x->dom, copy.b[i].dom), -1;
        int f = KH_FAMILY(x->type);
        if (kh_place_of(KT, x)->size != KH_SIZE(x->type))
            return snprintf(err, n, "%s: a tile of the wrong size", kh_board_name[b]), -1;
        if ((kh_place_of(KT, x)->covers & KH_COVERS_RIVER) && !(f == KH_CIVIL && KH_SIZE(x->type) > 1))
            return snprintf(err, n, "%s: %s on a river", kh_board_name[b], D.tile[x->type].name), -1;
        bool owned = x->owner != KH_NOBODY;
        if (b < KH_REASON && (x->flags & KH_RUIN))
            return snprintf(err, n, "%s: a ruin", kh_board_name[b]), -1;
        if (b < KH_REASON && owned != (f != KH_CIVIL))
            return snprintf(err, n, "%s: ownership of a %s", kh_board_name[b], D.tile[x->type].name), -1;
        if (b == KH_REASON && owned)
            return snprintf(err, n, "reason: an owned building"), -1;
        if (x->ncubes > KH_SIZE(x->type) || (x->ncubes && (b != KH_REASON || f != KH_CIVIL)))
            return snprintf(err, n, "%s: populate cubes out of place", kh_board_name[b]), -1;
        if (x->reno != KH_NOBODY && (!(x->flags & KH_RUIN) || D.tile[x->type].renovation < 2))
            return snprintf(err, n, "%s: a renovation cube out of place", kh_board_name[b]), -1;
        if (b == KH_REASON && KH_SIZE(x->type) == 1 && !(x->flags & KH_PRINTED))
            return snprintf(err, n, "reason: a size-1 tile"), -1;
        if (!bd->dirty && x->orig != KH_NONE)
            return snprintf(err, n, "%s: a stale snapshot", kh_board_name[b]), -1;
    }
    for (int h = 0; h < D.hamlets; h++) {
        int i = bd->at[D.hamlet[h]];
        if (i == KH_NONE || KH_FAMILY(bd->b[i].type) != KH_CIVIL)
            return snprintf(err, n, "%s: printed hamlet square %d not civil", kh_board_name[b],
                            D.hamlet[h]), -1;
    }
    return 0;
}

/* The decisions searches consider are the legal ones in the same order,
 * never none while the game goes on, less only travels, and only travels of
 * an adventurer that has travelled since it last played a card. */
static int sim_khronos_searched(const tb_state *s, char *err, size_t n)
{
    const khronos_state *k = (const khronos_state *)s;
    tb_move all[TB_MAX_MOVES], kept[TB_MAX_MOVES];
    int na = tb_legal(s, all), nk = tb_legal_undominated(s, kept), j = 0;
    if (na > 0 && nk == 0)
        return snprintf(err, n, "no decision left to search"), -1;
    for (int i = 0; i < na; i++) {
        if (j < nk && all[i] == kept[j]) {
            j++;
            continue;
        }
        int from = (int)(all[i] >> 5) & 3;
        const uint8_t *pw = k->pawn[k->cur];
        bool roamed = (pw[0] == from && k->travelled[0]) || (pw[1] == from && k->travelled[1]);
        if (KH_KIND(all[i]) != KH_M_TRAVEL || !roamed)
            return snprintf(err, n, "a decision left out of searches that is not a second "
                            "travel"), -1;
    }
    if (j != nk)
        return snprintf(err, n, "searched decisions that are not legal, or out of order"), -1;
    return 0;
}

/* The placement of size v at index i for `type` on board b, new (old < 0) or
 * as the upgrade of building old: legal and paid for, read the plain way
 * (kh_place_ok on one placement, the surcharge of its terrain); st: the
 * board's domains. */
static bool sim_place_fits(const khronos_state *k, int b, int type, int i, int old,
                           const kh_domstat *st)
{
    const kh_board *bd = &k->board[b];
    const kh_place *p = &KT->place[i];
    int f = KH_FAMILY(type), base = KH_SIZE(type) - (old >= 0 ? KH_SIZE(bd->b[old].type) : 0);
    int cap = kh_capacity(k, b), total = kh_total(k->hand[k->cur]);
    int budget = cap < total ? cap : total;
    if (k->hand[k->cur][f] < base || base + kh_surcharge(k, p) > budget)
        return false;
    int old_top = old >= 0 && f != KH_CIVIL ? kh_top_without(bd, old, f) : 0;
    return kh_place_ok(bd, type, p, old, old_top, st);
}

/* Whether any placement of type's size fits (sim_place_fits). */
static bool sim_any_place(const khronos_state *k, int b, int type, int old, const kh_domstat *st)
{
    int v = KH_SIZE(type);
    for (int i = D.place_first[v]; i < D.place_end[v]; i++)
        if (sim_place_fits(k, b, type, i, old, st))
            return true;
    return false;
}

static bool sim_listed(const tb_move *moves, int n, tb_move m)
{
    for (int i = 0; i < n; i++)
        if (moves[i] == m)
            return true;
    return false;
}

/* The legal builds, upgrades and squares (found by whole-board scans in
 * khronos.c) are exactly those the one-placement-at-a-time reading of the
 * rules allows: a building's squares listed in placement order, and a build
 * or an upgrade offered when some placement is legal and paid for. */
static int sim_khronos_placements(const tb_state *s, char *err, size_t n)
{
    const khronos_state *k = (const khronos_state *)s;
    tb_move moves[TB_MAX_MOVES];
    int nm = tb_legal(s, moves);
    if (k->over)
        return 0;
    kh_domstat st[KH_MAXB];
    if (k->pend == KH_P_SQUARES) {
        const kh_board *bd = &k->board[k->pend_board];
        int old = k->pend_target == KH_NONE ? -1 : kh_board_find(bd, k->pend_target);
        int v = KH_SIZE(k->pend_type), j = 0;
        kh_board_domains(bd, st);
        for (int i = D.place_first[v]; i < D.place_end[v]; i++)
            if (sim_place_fits(k, k->pend_board, k->pend_type, i, old, st)) {
                if (j >= nm || moves[j] != KH_MOVE(KH_M_SQUARES, i))
                    return snprintf(err, n, "the squares listed differ from the placements "
                                    "the rules allow (at %d)", j), -1;
                j++;
            }
        if (j != nm)
            return snprintf(err, n, "%d squares listed, the rules allow %d", nm, j), -1;
        return 0;
    }
    if (k->pend != KH_P_NONE)
        return 0;
    int p = k->cur;
    for (int b = KH_MIGHT; b <= KH_FAITH; b++) {
        bool can = kh_capacity(k, b) > 0;
        kh_board_domains(&k->board[b], st);
        for (int t = 0; t < KH_TYPES; t++) {
            bool want = can && k->stock[t] && (KH_FAMILY(t) == KH_CIVIL || k->cubes[p]) &&
                        sim_any_place(k, b, t, -1, st);
            if (want != sim_listed(moves, nm, KH_MOVE(KH_M_BUILD, b << 4 | t)))
                return snprintf(err, n, "%s: building the %s is %slisted", kh_board_name[b],
                                D.tile[t].name, want ? "not " : ""), -1;
        }
        const kh_board *bd = &k->board[b];
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            int f = KH_FAMILY(x->type);
            for (int t = x->type + 1; t < f * 3 + 3; t++) {
                bool want = can && k->stock[t] && (f == KH_CIVIL || x->owner == p) &&
                            sim_any_place(k, b, t, i, st);
                tb_move m = KH_MOVE(KH_M_UPGRADE, b << 12 | kh_anchor(x) << 4 | t);
                if (want != sim_listed(moves, nm, m))
                    return snprintf(err, n, "%s: the upgrade of building %d to the %s is %slisted",
                                    kh_board_name[b], i, D.tile[t].name, want ? "not " : ""), -1;
            }
        }
    }
    return 0;
}

int sim_khronos_check(const tb_state *before, const tb_state *after, char *err, size_t n)
{
    (void)before;
    const khronos_state *k = (const khronos_state *)after;
    int players = after->players;
    int tiles[KH_TYPES] = {0}, cubes[TB_MAX_SEATS] = {0};
    for (int b = 0; b < KH_BOARDS; b++) {
        if (sim_board(k, b, err, n))
            return -1;
        const kh_board *bd = &k->board[b];
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            if (!(x->flags & KH_PRINTED))
                tiles[x->type]++;
            if (x->owner != KH_NOBODY)
                cubes[x->owner]++;
            if (x->reno != KH_NOBODY)
                cubes[x->reno]++;
            for (int c = 0; c < x->ncubes; c++)
                cubes[x->cube[c]]++;
        }
    }
    int all = 0;
    for (int t = 0; t < KH_TYPES; t++) {
        if (tiles[t] + k->stock[t] != D.tile[t].count)
            return snprintf(err, n, "%s: %d on the boards + %d in stock != %d", D.tile[t].name,
                            tiles[t], k->stock[t], D.tile[t].count), -1;
        all += D.tile[t].count;
    }
    if (after->data->builtin && all != 155) /* the rulebook's tiles (a loaded board may differ) */
        return snprintf(err, n, "%d tiles in the game, not 155", all), -1;
    int cards[KH_FAMILIES] = {0};
    for (int p = 0; p < players; p++) {
        if (cubes[p] + k->cubes[p] != D.cubes || cubes[p] > 25)
            return snprintf(err, n, "seat %d: %d cubes on the boards + %d in supply", p, cubes[p],
                            k->cubes[p]), -1;
        if (k->ecus[p] < 0)
            return snprintf(err, n, "seat %d has %d Ecus", p, k->ecus[p]), -1;
        int ledger = D.ecus + k->bonuses[p] - k->spent[p];
        for (int i = 0; i < 2; i++)
            for (int b = 0; b < KH_BOARDS; b++)
                ledger += k->earned[p][i][b];
        if (ledger != k->ecus[p])
            return snprintf(err, n, "seat %d: the ledger accounts for %d Ecus, not %d", p, ledger,
                            k->ecus[p]), -1;
        if (k->bonuses[p] < 0 || k->spent[p] < 0)
            return snprintf(err, n, "seat %d: a negative bonus or cost in the ledger", p), -1;
        for (int f = 0; f < KH_FAMILIES; f++)
            cards[f] += k->hand[p][f];
        if (k->hand[p][0] + k->hand[p][1] + k->hand[p][2] > D.hand)
            return snprintf(err, n, "seat %d holds too many cards", p), -1;
    }
    for (int i = 0; i < k->deck_n; i++)
        cards[k->deck[i]]++;
    for (int i = k->deck_n; i < KH_MAXCARDS; i++)
        if (k->deck[i])
            return snprintf(err, n, "stale bytes past the deck"), -1;
    for (int f = 0; f < KH_FAMILIES; f++)
        if (cards[f] + k->discard[f] + k->display[f] != D.cards[f])
            return snprintf(err, n, "%s cards do not add up", kh_family_name[f]), -1;
    if (k->pend == KH_P_NONE && !k->rip.active && !k->board[0].dirty && !k->board[1].dirty) {
        for (int b = KH_MIGHT; b <= KH_FAITH; b++) {
            kh_domstat st[KH_MAXB];
            kh_board_domains(&k->board[b], st);
            for (int i = 0; i < k->board[b].nb; i++)
                if (k->board[b].b[i].dom == i && (st[i].ntop[0] > 1 || st[i].ntop[1] > 1))
                    return snprintf(err, n, "%s: a domain breaks the rule of hierarchy after a "
                                    "completed action", kh_board_name[b]), -1;
        }
    }
    if (k->pend != KH_P_NONE && k->over)
        return snprintf(err, n, "a decision pending after the end"), -1;
    const uint8_t *pw = k->pawn[k->cur];
    if ((k->travelled[0] || k->travelled[1]) && (!k->acted || k->over))
        return snprintf(err, n, "an adventurer marked as travelled outside an acted turn"), -1;
    if (pw[0] == pw[1] && k->left[0] == k->left[1] && k->travelled[0] > k->travelled[1])
        return snprintf(err, n, "the current player's adventurers are not in canonical order"), -1;
    if (sim_khronos_placements(after, err, n))
        return -1;
    return sim_khronos_searched(after, err, n);
}
