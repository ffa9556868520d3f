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
 * or the placeholder board.  The reasons are messages (docs/translating.md):
 * kh_explain_msg gives one, kh_explain writes its English.
 */
#include "khronos.h"
#include "core/msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables of the data the game is on (khronos_board.h); k is the state. */
#define KT KH_TABLES(k)
#define D (KT->data)

static const char *const ex_number[] = {N_("no"),   N_("one"), N_("two"),   N_("three"),
                                        N_("four"), N_("five"), N_("six"), N_("seven")};
static const char *const ex_colour[KH_FAMILIES] = {N_("military (orange)"),
                                                   N_("religious (fuchsia)"), N_("civil (blue)")};
static const char *const ex_board[KH_BOARDS] = {N_("Might"), N_("Faith"), N_("Reason")};

/* A count in words ("two") as a message. */
static json_t *ex_num(int n)
{
    return tb__msg_word(n >= 0 && n <= 7 ? ex_number[n] : N_("many"));
}
#define W(w) tb__msg_word(w)

/* The tile's name with a capital, e.g. "Keep". */
static const char *ex_tile(const khronos_state *k, int t, char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%s", D.tile[t].name);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
    return buf;
}

/* "an Abbey", "a Keep": the tile's name with its article, as a message. */
#define AN(name) tb__msg_a(name)

/* The refusal "illegal move: REASON" into *why (NULL when memory ran out);
 * -1.  FAIL(template, spec, args) makes the reason. */
static int ex_fail(json_t **why, json_t *reason)
{
    *why = tb__msg(N_("illegal move: {reason}"), "reason:m", reason);
    return -1;
}
#define FAIL(...) ex_fail(why, tb__msg(__VA_ARGS__))
#define FAILN(...) ex_fail(why, tb__msg_plural(__VA_ARGS__))

/* The cards the current player's adventurers on board b may still play, or
 * why none: 0 when it is fine (cap > 0), else -1 with the message. */
static int ex_adventurer(const khronos_state *k, int b, int need, json_t **why)
{
    if (!kh_pawns_on(k, k->cur, b))
        return FAIL(N_("you have no adventurer on {board} (travel there first, 1 Ecu)"), "board:m",
                    W(ex_board[b]));
    int cap = kh_capacity(k, b);
    if (cap < need)
        return FAILN(NP_("your adventurers on {board} may play {count} more card this turn, and this needs {need}",
                         "your adventurers on {board} may play {count} more cards this turn, and this needs {need}"),
                     cap, "board:m count:m need:m", W(ex_board[b]), ex_num(cap), ex_num(need));
    return 0;
}

/* The player holds `need` cards of family f. */
/* `what` (a message, its reference taken) needs `need` cards of family f. */
static int ex_cards(const khronos_state *k, int f, int need, json_t *what, json_t **why)
{
    int have = k->hand[k->cur][f];
    if (have >= need) {
        json_decref(what);
        return 0;
    }
    return FAILN(NP_("{what} needs {count} {colour} card; you have {have}",
                     "{what} needs {count} {colour} cards; you have {have}"),
                 need, "what:m count:m colour:m have:m", what, ex_num(need), W(ex_colour[f]),
                 have ? ex_num(have) : W(N_("none")));
}

/* How far a placement got through the checks, in their order. */
enum { EX_SHAPE, EX_CONTAIN, EX_TAKEN, EX_RIVER, EX_DOMINION, EX_HIERARCHY, EX_SURCHARGE,
       EX_OTHER };

/* Why placement `place` does not take `type` (building new, or upgrading
 * building `target`) on board b. */
static int ex_place(const khronos_state *k, int b, int type, int target, int place,
                    json_t **body, int *stage)
{
#define BODY(...) (*body = tb__msg(__VA_ARGS__), -1)
    const kh_board *bd = &k->board[b];
    const kh_place *p = &KT->place[place];
    char tn[16], at[40], sq[8];
    ex_tile(k, type, tn, sizeof tn);
    kh_place_name(KT, place, at, sizeof at);
    int f = KH_FAMILY(type), v = KH_SIZE(type);
    *stage = EX_SHAPE;
    if (p->size != v) {
        if (KT->place[D.place_first[v]].n == 1)
            return BODY(N_("{tile} covers a single square, not {place}"), "tile:m place:s", AN(tn),
                        at);
        const kh_place *q = &KT->place[D.place_first[v]];
        int w = q->sq[q->n - 1] % D.width - q->sq[0] % D.width + 1;
        int h = q->sq[q->n - 1] / D.width - q->sq[0] / D.width + 1;
        char like[40];
        kh_place_name(KT, D.place_first[v], like, sizeof like);
        return BODY(N_("{tile} covers a {w}x{h} block (like {like}), not {place}"),
                    "tile:m w:d h:d like:s place:s", AN(tn), w, h, like, at);
    }
    kh_bits old;
    memset(&old, 0, sizeof old);
    *stage = EX_CONTAIN;
    if (target >= 0) {
        old = kh_place_of(KT, &bd->b[target])->mask;
        if (!kh_bits_subset(old, p->mask)) {
            char on[40];
            kh_place_name(KT, bd->b[target].place, on, sizeof on);
            return BODY(N_("{tile} must cover the whole building it grows from, {place}"),
                        "tile:m place:s", tb__msg_phrase("the ", tn, ""), on);
        }
    }
    *stage = EX_TAKEN;
    kh_bits taken = kh_bits_and(kh_bits_minus(p->mask, old), bd->occ);
    for (int i = 0; i < p->n; i++)
        if (kh_bits_has(taken, p->sq[i])) {
            kh_square_name(KT, p->sq[i], sq, sizeof sq);
            return target >= 0
                       ? BODY(N_("{square} is already built on (a tile goes on free squares besides the building it grows from)"),
                              "square:s", sq)
                       : BODY(N_("{square} is already built on (a tile goes on free squares)"),
                              "square:s", sq);
        }
    *stage = EX_RIVER;
    if ((p->covers & KH_COVERS_RIVER) && !(f == KH_CIVIL && v >= 2)) {
        for (int i = 0; i < p->n; i++)
            if (D.terrain[p->sq[i]] == KH_RIVER)
                kh_square_name(KT, p->sq[i], sq, sizeof sq);
        return BODY(N_("{square} is river: only a Town or a City may cover the river"), "square:s",
                    sq);
    }
    *stage = EX_DOMINION;
    if (f != KH_CIVIL) {
        uint8_t roots[2];
        int n = kh_board_touching(bd, p->nbr, target >= 0 ? bd->b[target].dom : -1, roots, 2);
        if (target >= 0 ? n > 0 : n > 1)
            return BODY(N_("this {tile} on {place} would join two domains: only a civil building may join domains"),
                        "tile:m place:s", W(tn), at);
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
            return BODY(N_("this {tile} would equal the highest {family} building of its domain, also {a_tile}: each domain keeps a single highest one"),
                        "tile:m family:m a_tile:m", W(tn), W(kh_family_name[f]), AN(tn));
    }
    *stage = EX_SURCHARGE;
    int base = v - (target >= 0 ? KH_SIZE(bd->b[target].type) : 0);
    int extra = kh_surcharge(k, p);
    int cap = kh_capacity(k, b), total = kh_total(k->hand[k->cur]);
    int budget = cap < total ? cap : total;
    if (base + extra > budget) {
        bool forest = (p->covers & KH_COVERS_FOREST) != 0, mountain = (p->covers & KH_COVERS_MOUNTAIN) != 0;
        json_t *terrain = forest && mountain ? W(N_("forest and mountain"))
                          : forest          ? W(N_("forest"))
                          : mountain        ? W(N_("mountain"))
                                            : W("");
        *body = tb__msg_plural(NP_("{place} covers {terrain}: {count} more card of any colour, {total} in all, and you can play {budget}",
                                   "{place} covers {terrain}: {count} more cards of any colour, {total} in all, and you can play {budget}"),
                               extra, "place:s terrain:m count:m total:m budget:m", at, terrain,
                               ex_num(extra), ex_num(base + extra), ex_num(budget));
        return -1;
    }
    *stage = EX_OTHER;
    return BODY(N_("{tile} cannot go on {place} now"), "tile:m place:s",
                tb__msg_phrase("the ", tn, ""), at);
#undef BODY
}

/* A new building or an upgrade as a whole: cards, stock, cubes, room. */
static int ex_build(const khronos_state *k, int b, int type, int target, json_t **why)
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
            return FAIL(N_("{tile} grows only into a larger {family} building, not {other}"),
                        "tile:m family:m other:m", AN(on), W(kh_family_name[KH_FAMILY(x->type)]),
                        AN(tn));
        if (f != KH_CIVIL && x->owner != p)
            return FAIL(N_("this {tile} belongs to {owner}: you may upgrade your own military and religious buildings, and any civil one"),
                        "tile:m owner:m", W(on), W(kh_colour_name[x->owner]));
    }
    int base = v - (target >= 0 ? KH_SIZE(bd->b[target].type) : 0);
    if (ex_adventurer(k, b, 0, why) ||
        ex_cards(k, f, base,
                 target >= 0 ? tb__msg(N_("growing into {tile}"), "tile:m", AN(tn)) : AN(tn), why) ||
        ex_adventurer(k, b, base, why))
        return -1;
    if (!k->stock[type])
        return FAIL(N_("no {tile} tile is left in the stock"), "tile:m", W(tn));
    if (target < 0 && f != KH_CIVIL && !k->cubes[p])
        return FAIL(N_("you have no cube left to mark {tile} as yours"), "tile:m", AN(tn));
    /* room: the placement that got furthest through the rules says why */
    int best = -1, best_place = -1;
    json_t *best_body = NULL;
    for (int i = D.place_first[v]; i < D.place_end[v]; i++) {
        if (target >= 0 &&
            !kh_bits_subset(kh_place_of(KT, &bd->b[target])->mask, KT->place[i].mask))
            continue;
        int stage;
        json_t *body = NULL;
        ex_place(k, b, type, target, i, &body, &stage);
        if (stage > best) {
            best = stage;
            best_place = i;
            json_decref(best_body);
            best_body = body;
        } else {
            json_decref(body);
        }
    }
    if (best <= EX_TAKEN) {
        json_decref(best_body);
        char like[40];
        kh_place_name(KT, D.place_first[v], like, sizeof like);
        if (KT->place[D.place_first[v]].n == 1)
            return target >= 0
                       ? FAIL(N_("there is no room on {board} for {tile}: no free square around the building it grows from"),
                              "board:m tile:m", W(ex_board[b]), AN(tn))
                       : FAIL(N_("there is no room on {board} for {tile}: no free square"),
                              "board:m tile:m", W(ex_board[b]), AN(tn));
        return target >= 0
                   ? FAIL(N_("there is no room on {board} for {tile}: no free block like {like} around the building it grows from"),
                          "board:m tile:m like:s", W(ex_board[b]), AN(tn), like)
                   : FAIL(N_("there is no room on {board} for {tile}: no free block like {like}"),
                          "board:m tile:m like:s", W(ex_board[b]), AN(tn), like);
    }
    char at[40];
    kh_place_name(KT, best_place, at, sizeof at);
    return FAIL(N_("no place on {board} takes {tile} now; at {place}, for one: {reason}"),
                "board:m tile:m place:s reason:m", W(ex_board[b]), AN(tn), at, best_body);
}

static int ex_pending(const khronos_state *k, json_t **why)
{
    char tn[16];
    switch (k->pend) {
    case KH_P_SQUARES:
        return FAIL(N_("first choose the squares of {tile} on {board}"), "tile:m board:m",
                    tb__msg_phrase("the ", ex_tile(k, k->pend_type, tn, sizeof tn), ""),
                    W(ex_board[k->pend_board]));
    case KH_P_PAY:
        return FAILN(NP_("first pay the terrain surcharge: {count} card of any colour (pay CARDS)",
                         "first pay the terrain surcharge: {count} cards of any colour (pay CARDS)"),
                     k->pend_extra, "count:m", ex_num(k->pend_extra));
    case KH_P_PICK:
        return FAIL(N_("first choose which of the tied buildings on {board} loses a size (downsize BOARD SQUARE)"),
                    "board:m", W(ex_board[k->pend_board]));
    default:
        return FAIL(N_("first the owner chooses where the smaller tile stays on {board}"), "board:m",
                    W(ex_board[k->pend_board]));
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

json_t *kh_explain_msg(const khronos_state *k, tb_move m)
{
    json_t *result = NULL, **why = &result;
    int kind = KH_KIND(m), p = k->cur;
    tb_move pay = m & 0xffffff;
    char tn[16];
    bool decision = kind == KH_M_SQUARES || kind == KH_M_PAY || kind == KH_M_DOWNSIZE;
    if (k->pend != KH_P_NONE) {
        bool fits = (kind == KH_M_SQUARES && (k->pend == KH_P_SQUARES || k->pend == KH_P_KEEP)) ||
                    (kind == KH_M_PAY && k->pend == KH_P_PAY) ||
                    (kind == KH_M_DOWNSIZE && k->pend == KH_P_PICK);
        if (!fits) {
            ex_pending(k, why);
            return result;
        }
    } else if (decision) {
        FAIL(kind == KH_M_SQUARES ? N_("squares are chosen after 'build' or 'upgrade'")
             : kind == KH_M_PAY   ? N_("there is no surcharge to pay now")
                                  : N_("no building is being downsized now"),
             "");
        return result;
    }
    switch (kind) {
    case KH_M_SWAP: {
        int g = (int)(pay >> 2) & 3, t = (int)pay & 3;
        if (!k->holdem)
            FAIL(N_("this game is played without the face-up display"), "");
        else if (k->exchanged || k->acted)
            FAIL(N_("swaps with the display come first in the turn, before the exchange and any action"), "");
        else if (!k->hand[p][g])
            FAIL(N_("you hold no {colour} card to give"), "colour:m", W(ex_colour[g]));
        else if (k->swapped >> t & 1)
            FAIL(N_("you already took the {colour} card from the display this turn"), "colour:m",
                 W(ex_colour[t]));
        else
            FAIL(N_("the display shows no {colour} card"), "colour:m", W(ex_colour[t]));
        return result;
    }
    case KH_M_EXCHANGE:
        if (k->exchanged)
            FAIL(N_("you already exchanged cards this turn"), "");
        else if (k->acted)
            FAIL(N_("the exchange comes first in the turn, before any action"), "");
        else if (k->ecus[p] < KH_EXCHANGE_COST)
            FAIL(N_("an exchange costs {cost} Ecus; you have {have}"), "cost:d have:d",
                 KH_EXCHANGE_COST, k->ecus[p]);
        else
            FAIL(N_("you do not hold those cards"), "");
        return result;
    case KH_M_TRAVEL: {
        int from = (int)(pay >> 5) & 3, r = (int)pay & 7;
        if (k->ecus[p] < KH_TRAVEL_COST) {
            FAIL(N_("travelling costs {cost} Ecu; you have none"), "cost:d", KH_TRAVEL_COST);
            return result;
        }
        if (!kh_pawns_on(k, p, from)) {
            FAIL(N_("none of your adventurers stands on {board}"), "board:m", W(ex_board[from]));
            return result;
        }
        int set = kh_leave_options(k, from);
        if (r == KH_AUTO)
            FAIL(N_("say how many cards the leaving adventurer may still play (travel FROM TO N)"), "");
        else if (!set)
            FAIL(N_("only one adventurer stands on {board}: write 'travel' without a number"),
                 "board:m", W(ex_board[from]));
        else if (__builtin_popcount((unsigned)set) == 1)
            FAIL(N_("the leaving adventurer's cards are no choice here: write 'travel' without a number"), "");
        else
            FAILN(NP_("the adventurer leaving {board} cannot take {n} card along: the two have played {pool} together",
                      "the adventurer leaving {board} cannot take {n} cards along: the two have played {pool} together"),
                  r, "board:m pool:d", W(ex_board[from]), k->pool);
        return result;
    }
    case KH_M_BUILD:
        ex_build(k, (int)(pay >> 4) & 3, (int)pay & 15, -1, why);
        return result;
    case KH_M_UPGRADE: {
        int b = (int)(pay >> 12) & 3;
        const kh_bld *x = ex_building(k, b, (int)(pay >> 4) & 0xff);
        if (!x)
            FAIL(N_("there is no building there"), "");
        else
            ex_build(k, b, (int)pay & 15, (int)(x - k->board[b].b), why);
        return result;
    }
    case KH_M_DEMOLISH: {
        int b = (int)(pay >> 8) & 3;
        const kh_bld *x = ex_building(k, b, (int)pay & 0xff);
        if (!x) {
            FAIL(N_("there is no building there"), "");
            return result;
        }
        ex_tile(k, x->type, tn, sizeof tn);
        if (x->flags & KH_PRINTED) {
            FAIL(N_("a printed Hamlet can never be demolished"), "");
            return result;
        }
        if (KH_SIZE(x->type) > 1) {
            FAIL(N_("only size-1 buildings (Watchtower, Chapel, Hamlet) can be demolished, not {tile}"),
                 "tile:m", AN(tn));
            return result;
        }
        if (k->ecus[p] < KH_DEMOLISH_COST) {
            FAIL(N_("demolishing costs {cost} Ecu and a card; you have no Ecu"), "cost:d",
                 KH_DEMOLISH_COST);
            return result;
        }
        if (ex_adventurer(k, b, 0, why) ||
            ex_cards(k, KH_FAMILY(x->type), 1,
                     tb__msg(N_("demolishing {tile}"), "tile:m", AN(tn)), why) ||
            ex_adventurer(k, b, 1, why))
            return result;
        break;
    }
    case KH_M_POPULATE:
    case KH_M_RENOVATE: {
        const kh_bld *x = ex_building(k, KH_REASON, (int)pay & 0xff);
        if (!x) {
            FAIL(N_("there is no building there"), "");
            return result;
        }
        ex_tile(k, x->type, tn, sizeof tn);
        int f = KH_FAMILY(x->type);
        if (kind == KH_M_POPULATE) {
            if (f != KH_CIVIL) {
                FAIL(N_("only civil buildings (Hamlet, Town, City) take population cubes, not {tile}"),
                     "tile:m", AN(tn));
                return result;
            }
            if (x->ncubes >= KH_SIZE(x->type)) {
                FAILN(NP_("this {tile} holds {count} cube already, its most",
                          "this {tile} holds {count} cubes already, its most"),
                      x->ncubes, "tile:m count:m", W(tn), ex_num(x->ncubes));
                return result;
            }
            if (!k->cubes[p]) {
                FAIL(N_("you have no cube left"), "");
                return result;
            }
            if (ex_cards(k, KH_CIVIL, 1, W(N_("populating")), why))
                return result;
        } else {
            if (!(x->flags & KH_RUIN)) {
                FAIL(N_("this {tile} is not a ruin"), "tile:m", W(tn));
                return result;
            }
            if (ex_cards(k, f, 1, tb__msg(N_("renovating {tile} ruin"), "tile:m", AN(tn)), why))
                return result;
            if (D.tile[x->type].renovation >= 2 && x->reno == KH_NOBODY && !k->cubes[p]) {
                FAIL(N_("the first card on {tile} ruin is marked with a cube, and you have none left"),
                     "tile:m", AN(tn));
                return result;
            }
        }
        if (ex_adventurer(k, KH_REASON, 1, why))
            return result;
        break;
    }
    case KH_M_SQUARES: {
        const kh_board *bd = &k->board[k->pend_board];
        int target = k->pend_target == KH_NONE ? -1 : kh_board_find(bd, k->pend_target);
        if (k->pend == KH_P_KEEP) {
            const kh_bld *x = &bd->b[target];
            char on[40];
            kh_place_name(KT, x->place, on, sizeof on);
            FAIL(N_("the {tile} must stand on the squares of the {old} it replaces, {place}"),
                 "tile:m old:m place:s", W(ex_tile(k, x->type - 1, tn, sizeof tn)),
                 W(D.tile[x->type].name), on);
            return result;
        }
        int stage;
        json_t *reason = NULL;
        ex_place(k, k->pend_board, k->pend_type, target, (int)pay, &reason, &stage);
        ex_fail(why, reason);
        return result;
    }
    case KH_M_PAY:
        if (!ex_holds(k, pay))
            FAIL(N_("you do not hold those cards"), "");
        else
            FAILN(NP_("pay exactly {count} card of any colour, besides the {colour} ones the building costs",
                      "pay exactly {count} cards of any colour, besides the {colour} ones the building costs"),
                  k->pend_extra, "count:m colour:m", ex_num(k->pend_extra),
                  W(ex_colour[KH_FAMILY(k->pend_type)]));
        return result;
    case KH_M_DOWNSIZE:
        FAIL(N_("that building is not one of those to choose from: the tied highest buildings (the acting player's own come first)"), "");
        return result;
    case KH_M_END:
        FAIL(N_("you do not hold the cards to discard"), "");
        return result;
    default:
        break;
    }
    FAIL(N_("that cannot be done at this point of the turn"), "");
    return result;
}

int kh_explain(const khronos_state *k, tb_move m, char *err, size_t errlen)
{
    json_t *why = kh_explain_msg(k, m);
    char *english = why ? tb__msg_text(why, NULL, NULL) : NULL;
    json_decref(why);
    tb__errf(err, errlen, "%s", english ? english : "illegal move: out of memory");
    free(english);
    return -1;
}
