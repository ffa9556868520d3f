/*
 * khronos_explain.c — why a Khronos decision is refused, in a player's words
 * ("a Keep needs two military (orange) cards; you have one", "this Keep would
 * join two domains: only a civil building may"), for the protocol, the
 * terminal and the browser alike (they all read text_to_move's message).
 *
 * Invariants: kh_explain is called only for a move that parsed and is not
 * legal now; it reads the state and never changes it; the checks follow the
 * order in which khronos.c's legal-move generation applies the rules, so the
 * first broken rule is the one named; no message names rule ids, documents
 * or the placeholder board.
 */
#include "khronos.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The tables of the data the game is on (khronos_board.h); k is the state. */
#define KT KH_TABLES(k)
#define D (KT->data)

static const char *const ex_number[] = {"no", "one", "two", "three", "four", "five", "six",
                                        "seven"};
static const char *const ex_colour[KH_FAMILIES] = {"military (orange)", "religious (fuchsia)",
                                                   "civil (blue)"};
static const char *const ex_board[KH_BOARDS] = {"Might", "Faith", "Reason"};

static const char *ex_num(int n)
{
    return n >= 0 && n <= 7 ? ex_number[n] : "many";
}

/* The tile's name with a capital, e.g. "Keep". */
static const char *ex_tile(const khronos_state *k, int t, char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%s", D.tile[t].name);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
    return buf;
}

/* The article before a tile's name: "an Abbey", "a Keep". */
static const char *ex_an(const char *name)
{
    return strchr("AEIOUaeiou", name[0]) ? "an" : "a";
}

static int ex_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ex_fail(char *err, size_t errlen, const char *fmt, ...)
{
    char msg[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tb__errf(err, errlen, "illegal move: %s", msg);
}

/* The cards the current player's adventurers on board b may still play, or
 * why none: 0 when it is fine (cap > 0), else -1 with the message. */
static int ex_adventurer(const khronos_state *k, int b, int need, char *err, size_t errlen)
{
    if (!kh_pawns_on(k, k->cur, b))
        return ex_fail(err, errlen, "you have no adventurer on %s (travel there first, 1 Ecu)",
                       ex_board[b]);
    int cap = kh_capacity(k, b);
    if (cap < need)
        return ex_fail(err, errlen, "your adventurers on %s may play %s more card%s this turn, "
                       "and this needs %s", ex_board[b], ex_num(cap), cap == 1 ? "" : "s",
                       ex_num(need));
    return 0;
}

/* The player holds `need` cards of family f. */
static int ex_cards(const khronos_state *k, int f, int need, const char *what, char *err,
                    size_t errlen)
{
    int have = k->hand[k->cur][f];
    if (have >= need)
        return 0;
    return ex_fail(err, errlen, "%s needs %s %s card%s; you have %s", what, ex_num(need),
                   ex_colour[f], need == 1 ? "" : "s", have ? ex_num(have) : "none");
}

/* How far a placement got through the checks, in their order. */
enum { EX_SHAPE, EX_CONTAIN, EX_TAKEN, EX_RIVER, EX_DOMINION, EX_HIERARCHY, EX_SURCHARGE,
       EX_OTHER };

/* Why placement `place` does not take `type` (building new, or upgrading
 * building `target`) on board b. */
static int ex_place(const khronos_state *k, int b, int type, int target, int place, char *err,
                    size_t errlen, int *stage)
{
    const kh_board *bd = &k->board[b];
    const kh_place *p = &KT->place[place];
    char tn[16], at[40], sq[8];
    ex_tile(k, type, tn, sizeof tn);
    kh_place_name(KT, place, at, sizeof at);
    int f = KH_FAMILY(type), v = KH_SIZE(type);
    *stage = EX_SHAPE;
    if (p->size != v) {
        if (KT->place[D.place_first[v]].n == 1)
            return ex_fail(err, errlen, "%s %s covers a single square, not %s", ex_an(tn), tn,
                           at);
        const kh_place *q = &KT->place[D.place_first[v]];
        int w = q->sq[q->n - 1] % D.width - q->sq[0] % D.width + 1;
        int h = q->sq[q->n - 1] / D.width - q->sq[0] / D.width + 1;
        char like[40];
        kh_place_name(KT, D.place_first[v], like, sizeof like);
        return ex_fail(err, errlen, "%s %s covers a %dx%d block (like %s), not %s", ex_an(tn), tn,
                       w, h, like,
                       at);
    }
    kh_bits old;
    memset(&old, 0, sizeof old);
    *stage = EX_CONTAIN;
    if (target >= 0) {
        old = kh_place_of(KT, &bd->b[target])->mask;
        if (!kh_bits_subset(old, p->mask)) {
            char on[40];
            kh_place_name(KT, bd->b[target].place, on, sizeof on);
            return ex_fail(err, errlen, "the %s must cover the whole building it grows from, %s",
                           tn, on);
        }
    }
    *stage = EX_TAKEN;
    kh_bits taken = kh_bits_and(kh_bits_minus(p->mask, old), bd->occ);
    for (int i = 0; i < p->n; i++)
        if (kh_bits_has(taken, p->sq[i])) {
            kh_square_name(KT, p->sq[i], sq, sizeof sq);
            return ex_fail(err, errlen, "%s is already built on (a tile goes on free squares%s)",
                           sq, target >= 0 ? " besides the building it grows from" : "");
        }
    *stage = EX_RIVER;
    if ((p->covers & KH_COVERS_RIVER) && !(f == KH_CIVIL && v >= 2)) {
        for (int i = 0; i < p->n; i++)
            if (D.terrain[p->sq[i]] == KH_RIVER)
                kh_square_name(KT, p->sq[i], sq, sizeof sq);
        return ex_fail(err, errlen, "%s is river: only a Town or a City may cover the river", sq);
    }
    *stage = EX_DOMINION;
    if (f != KH_CIVIL) {
        uint8_t roots[2];
        int n = kh_board_touching(bd, p->nbr, target >= 0 ? bd->b[target].dom : -1, roots, 2);
        if (target >= 0 ? n > 0 : n > 1)
            return ex_fail(err, errlen, "this %s on %s would join two domains: only a civil "
                           "building may join domains", tn, at);
        *stage = EX_HIERARCHY;
        int top = 0;
        if (target >= 0) {
            top = kh_top_without(bd, target, f);
        } else if (n == 1) {
            kh_domstat st[KH_MAXB];
            kh_board_domains(bd, st);
            top = st[roots[0]].top[f];
        }
        if (top == v)
            return ex_fail(err, errlen, "this %s would equal the highest %s building of its "
                           "domain, also %s %s: each domain keeps a single highest one", tn,
                           kh_family_name[f], ex_an(tn), tn);
    }
    *stage = EX_SURCHARGE;
    int base = v - (target >= 0 ? KH_SIZE(bd->b[target].type) : 0);
    int extra = kh_surcharge(k, p);
    int cap = kh_capacity(k, b), total = kh_total(k->hand[k->cur]);
    int budget = cap < total ? cap : total;
    if (base + extra > budget)
        return ex_fail(err, errlen, "%s covers %s%s%s: %s more card%s of any colour, %s in all, "
                       "and you can play %s", at,
                       (p->covers & KH_COVERS_FOREST) ? "forest" : "",
                       (p->covers & KH_COVERS_FOREST) && (p->covers & KH_COVERS_MOUNTAIN)
                           ? " and " : "",
                       (p->covers & KH_COVERS_MOUNTAIN) ? "mountain" : "", ex_num(extra),
                       extra == 1 ? "" : "s", ex_num(base + extra), ex_num(budget));
    *stage = EX_OTHER;
    return ex_fail(err, errlen, "the %s cannot go on %s now", tn, at);
}

/* A new building or an upgrade as a whole: cards, stock, cubes, room. */
static int ex_build(const khronos_state *k, int b, int type, int target, char *err, size_t errlen)
{
    const kh_board *bd = &k->board[b];
    char tn[16];
    ex_tile(k, type, tn, sizeof tn);
    int f = KH_FAMILY(type), v = KH_SIZE(type), p = k->cur;
    if (target >= 0) {
        const kh_bld *x = &bd->b[target];
        char on[16];
        ex_tile(k, x->type, on, sizeof on);
        if (KH_FAMILY(x->type) != f || KH_SIZE(x->type) >= v)
            return ex_fail(err, errlen, "%s %s grows only into a larger %s building, not %s %s",
                           ex_an(on), on, kh_family_name[KH_FAMILY(x->type)], ex_an(tn), tn);
        if (f != KH_CIVIL && x->owner != p)
            return ex_fail(err, errlen, "this %s belongs to %s: you may upgrade your own military "
                           "and religious buildings, and any civil one", on,
                           kh_colour_name[x->owner]);
    }
    int base = v - (target >= 0 ? KH_SIZE(bd->b[target].type) : 0);
    char what[40];
    if (target >= 0)
        snprintf(what, sizeof what, "growing into %s %s", ex_an(tn), tn);
    else
        snprintf(what, sizeof what, "%s %s", ex_an(tn), tn);
    if (ex_adventurer(k, b, 0, err, errlen) || ex_cards(k, f, base, what, err, errlen) ||
        ex_adventurer(k, b, base, err, errlen))
        return -1;
    if (!k->stock[type])
        return ex_fail(err, errlen, "no %s tile is left in the stock", tn);
    if (target < 0 && f != KH_CIVIL && !k->cubes[p])
        return ex_fail(err, errlen, "you have no cube left to mark %s %s as yours", ex_an(tn),
                       tn);
    /* room: the placement that got furthest through the rules says why */
    int best = -1, best_place = -1;
    char msg[240] = "";
    for (int i = D.place_first[v]; i < D.place_end[v]; i++) {
        if (target >= 0 &&
            !kh_bits_subset(kh_place_of(KT, &bd->b[target])->mask, KT->place[i].mask))
            continue;
        int stage;
        char tmp[240];
        ex_place(k, b, type, target, i, tmp, sizeof tmp, &stage);
        if (stage > best) {
            best = stage;
            best_place = i;
            snprintf(msg, sizeof msg, "%s", tmp + strlen("illegal move: "));
        }
    }
    if (best <= EX_TAKEN) {
        char like[40];
        kh_place_name(KT, D.place_first[v], like, sizeof like);
        return ex_fail(err, errlen, "there is no room on %s for %s %s: %s%s%s", ex_board[b],
                       ex_an(tn), tn,
                       KT->place[D.place_first[v]].n == 1 ? "no free square" :
                                                                 "no free block like ",
                       KT->place[D.place_first[v]].n == 1 ? "" : like,
                       target >= 0 ? " around the building it grows from" : "");
    }
    char at[40];
    kh_place_name(KT, best_place, at, sizeof at);
    return ex_fail(err, errlen, "no place on %s takes %s %s now; at %s, for one: %s",
                   ex_board[b], ex_an(tn), tn, at, msg);
}

static int ex_pending(const khronos_state *k, char *err, size_t errlen)
{
    char tn[16];
    switch (k->pend) {
    case KH_P_SQUARES:
        return ex_fail(err, errlen, "first choose the squares of the %s on %s",
                       ex_tile(k, k->pend_type, tn, sizeof tn), ex_board[k->pend_board]);
    case KH_P_PAY:
        return ex_fail(err, errlen, "first pay the terrain surcharge: %s card%s of any colour "
                       "(pay CARDS)", ex_num(k->pend_extra), k->pend_extra == 1 ? "" : "s");
    case KH_P_PICK:
        return ex_fail(err, errlen, "first choose which of the tied buildings on %s loses a "
                       "size (downsize BOARD SQUARE)", ex_board[k->pend_board]);
    default:
        return ex_fail(err, errlen, "first the owner chooses where the smaller tile stays on %s",
                       ex_board[k->pend_board]);
    }
}

/* Whether the hand holds the multiset of cards `set`. */
static bool ex_holds(const khronos_state *k, tb_move set)
{
    for (int f = 0; f < KH_FAMILIES; f++)
        if ((int)((set >> (3 * f)) & 7) > k->hand[k->cur][f])
            return false;
    return true;
}

/* The building of board b named by its first square, or NULL. */
static const kh_bld *ex_building(const khronos_state *k, int b, int sq)
{
    int i = kh_board_find(&k->board[b], sq);
    return i < 0 ? NULL : &k->board[b].b[i];
}

int kh_explain(const khronos_state *k, tb_move m, char *err, size_t errlen)
{
    int kind = KH_KIND(m), p = k->cur;
    tb_move pay = m & 0xffffff;
    char tn[16];
    bool decision = kind == KH_M_SQUARES || kind == KH_M_PAY || kind == KH_M_DOWNSIZE;
    if (k->pend != KH_P_NONE) {
        bool fits = (kind == KH_M_SQUARES && (k->pend == KH_P_SQUARES || k->pend == KH_P_KEEP)) ||
                    (kind == KH_M_PAY && k->pend == KH_P_PAY) ||
                    (kind == KH_M_DOWNSIZE && k->pend == KH_P_PICK);
        if (!fits)
            return ex_pending(k, err, errlen);
    } else if (decision) {
        return ex_fail(err, errlen, "%s", kind == KH_M_SQUARES
                                              ? "squares are chosen after 'build' or 'upgrade'"
                                              : kind == KH_M_PAY
                                                    ? "there is no surcharge to pay now"
                                                    : "no building is being downsized now");
    }
    switch (kind) {
    case KH_M_SWAP: {
        int g = (int)(pay >> 2) & 3, t = (int)pay & 3;
        if (!k->holdem)
            return ex_fail(err, errlen, "this game is played without the face-up display");
        if (k->exchanged || k->acted)
            return ex_fail(err, errlen, "swaps with the display come first in the turn, before "
                           "the exchange and any action");
        if (!k->hand[p][g])
            return ex_fail(err, errlen, "you hold no %s card to give", ex_colour[g]);
        if (k->swapped >> t & 1)
            return ex_fail(err, errlen, "you already took the %s card from the display this "
                           "turn", ex_colour[t]);
        return ex_fail(err, errlen, "the display shows no %s card", ex_colour[t]);
    }
    case KH_M_EXCHANGE:
        if (k->exchanged)
            return ex_fail(err, errlen, "you already exchanged cards this turn");
        if (k->acted)
            return ex_fail(err, errlen, "the exchange comes first in the turn, before any "
                           "action");
        if (k->ecus[p] < KH_EXCHANGE_COST)
            return ex_fail(err, errlen, "an exchange costs %d Ecus; you have %d",
                           KH_EXCHANGE_COST, k->ecus[p]);
        return ex_fail(err, errlen, "you do not hold those cards");
    case KH_M_TRAVEL: {
        int from = (int)(pay >> 5) & 3, r = (int)pay & 7;
        if (k->ecus[p] < KH_TRAVEL_COST)
            return ex_fail(err, errlen, "travelling costs %d Ecu; you have none",
                           KH_TRAVEL_COST);
        if (!kh_pawns_on(k, p, from))
            return ex_fail(err, errlen, "none of your adventurers stands on %s", ex_board[from]);
        int set = kh_leave_options(k, from);
        if (r == KH_AUTO)
            return ex_fail(err, errlen, "say how many cards the leaving adventurer may still "
                           "play (travel FROM TO N)");
        if (!set)
            return ex_fail(err, errlen, "only one adventurer stands on %s: write 'travel' "
                           "without a number", ex_board[from]);
        if (__builtin_popcount((unsigned)set) == 1)
            return ex_fail(err, errlen, "the leaving adventurer's cards are no choice here: "
                           "write 'travel' without a number");
        return ex_fail(err, errlen, "the adventurer leaving %s cannot take %d card%s along: the "
                       "two have played %d together", ex_board[from], r, r == 1 ? "" : "s",
                       k->pool);
    }
    case KH_M_BUILD:
        return ex_build(k, (int)(pay >> 4) & 3, (int)pay & 15, -1, err, errlen);
    case KH_M_UPGRADE: {
        int b = (int)(pay >> 12) & 3;
        const kh_bld *x = ex_building(k, b, (int)(pay >> 4) & 0xff);
        if (!x)
            return ex_fail(err, errlen, "there is no building there");
        return ex_build(k, b, (int)pay & 15, (int)(x - k->board[b].b), err, errlen);
    }
    case KH_M_DEMOLISH: {
        int b = (int)(pay >> 8) & 3;
        const kh_bld *x = ex_building(k, b, (int)pay & 0xff);
        if (!x)
            return ex_fail(err, errlen, "there is no building there");
        ex_tile(k, x->type, tn, sizeof tn);
        if (x->flags & KH_PRINTED)
            return ex_fail(err, errlen, "a printed Hamlet can never be demolished");
        if (KH_SIZE(x->type) > 1)
            return ex_fail(err, errlen, "only size-1 buildings (Watchtower, Chapel, Hamlet) can "
                           "be demolished, not %s %s", ex_an(tn), tn);
        if (k->ecus[p] < KH_DEMOLISH_COST)
            return ex_fail(err, errlen, "demolishing costs %d Ecu and a card; you have no Ecu",
                           KH_DEMOLISH_COST);
        char what[40];
        snprintf(what, sizeof what, "demolishing %s %s", ex_an(tn), tn);
        if (ex_adventurer(k, b, 0, err, errlen) ||
            ex_cards(k, KH_FAMILY(x->type), 1, what, err, errlen) ||
            ex_adventurer(k, b, 1, err, errlen))
            return -1;
        break;
    }
    case KH_M_POPULATE:
    case KH_M_RENOVATE: {
        const kh_bld *x = ex_building(k, KH_REASON, (int)pay & 0xff);
        if (!x)
            return ex_fail(err, errlen, "there is no building there");
        ex_tile(k, x->type, tn, sizeof tn);
        int f = KH_FAMILY(x->type);
        if (kind == KH_M_POPULATE) {
            if (f != KH_CIVIL)
                return ex_fail(err, errlen, "only civil buildings (Hamlet, Town, City) take "
                               "population cubes, not %s %s", ex_an(tn), tn);
            if (x->ncubes >= KH_SIZE(x->type))
                return ex_fail(err, errlen, "this %s holds %s cube%s already, its most", tn,
                               ex_num(x->ncubes), x->ncubes == 1 ? "" : "s");
            if (!k->cubes[p])
                return ex_fail(err, errlen, "you have no cube left");
            if (ex_cards(k, KH_CIVIL, 1, "populating", err, errlen))
                return -1;
        } else {
            if (!(x->flags & KH_RUIN))
                return ex_fail(err, errlen, "this %s is not a ruin", tn);
            char what[40];
            snprintf(what, sizeof what, "renovating %s %s ruin", ex_an(tn), tn);
            if (ex_cards(k, f, 1, what, err, errlen))
                return -1;
            if (D.tile[x->type].renovation >= 2 && x->reno == KH_NOBODY && !k->cubes[p])
                return ex_fail(err, errlen, "the first card on %s %s ruin is marked with a cube, "
                               "and you have none left", ex_an(tn), tn);
        }
        if (ex_adventurer(k, KH_REASON, 1, err, errlen))
            return -1;
        break;
    }
    case KH_M_SQUARES: {
        const kh_board *bd = &k->board[k->pend_board];
        int target = k->pend_target == KH_NONE ? -1 : kh_board_find(bd, k->pend_target);
        if (k->pend == KH_P_KEEP) {
            const kh_bld *x = &bd->b[target];
            char on[40];
            kh_place_name(KT, x->place, on, sizeof on);
            return ex_fail(err, errlen, "the %s must stand on the squares of the %s it replaces, "
                           "%s", ex_tile(k, x->type - 1, tn, sizeof tn),
                           D.tile[x->type].name, on);
        }
        int stage;
        return ex_place(k, k->pend_board, k->pend_type, target, (int)pay, err, errlen, &stage);
    }
    case KH_M_PAY:
        if (!ex_holds(k, pay))
            return ex_fail(err, errlen, "you do not hold those cards");
        return ex_fail(err, errlen, "pay exactly %s card%s of any colour, besides the %s ones "
                       "the building costs", ex_num(k->pend_extra), k->pend_extra == 1 ? "" : "s",
                       ex_colour[KH_FAMILY(k->pend_type)]);
    case KH_M_DOWNSIZE:
        return ex_fail(err, errlen, "that building is not one of those to choose from: the "
                       "tied highest buildings%s", " (the acting player's own come first)");
    case KH_M_END:
        return ex_fail(err, errlen, "you do not hold the cards to discard");
    default:
        break;
    }
    return ex_fail(err, errlen, "that cannot be done at this point of the turn");
}
