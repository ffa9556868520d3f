/*
 * khronos_tensor.c — Khronos's integer action space (docs/python.md).
 *
 * Moves are kind << 24 | payload (khronos.h); each kind takes a block of
 * indexes in kind order, sized by what its payload can hold: swap 12
 * (family << 2 | family), exchange 512 (a card multiset), travel 96
 * (from << 5 | to << 3 | allowance), build 48 (board << 4 | type), upgrade
 * 12,288 (board << 12 | anchor square << 4 | type), demolish 768 (board << 8 |
 * square), populate 255 and renovate 255 (anchor square: a board has at
 * most KH_MAXSQ squares), squares 1024 (a placement of a square tile; the
 * data has fewer, checked by the unit test), pay 512, downsize 768, end 512
 * (cards discarded): 17,050 in all.  The blocks follow
 * the encoding alone, so indexes never change with the data.
 *
 * Observation (KH_OBS_SIZE floats, every player count): only what the seat's
 * view shows (khronos__view_json): the boards, Ecus, cubes, hand sizes,
 * pawns, the seat's own hand, discards, display, stock, the turn's state,
 * the pending decision and the ripple as the view shows them; never another
 * hand's cards nor the deck's order.  Seat blocks are rotated so the
 * observing seat comes first; squares run to KH_MAXSQ on every board so the
 * shape does not follow the data.  The layout is in docs/python.md.
 */
#include "khronos.h"

#include "game.h"

/* The tables of the data the game is on (khronos_board.h); k is the state. */
#define KT KH_TABLES(k)
#define D (KT->data)

#define KH_SQUARES_ACTIONS 1024
#define KH_OBS_PLANES 35
#define KH_OBS_GLOBAL 118
#define KH_OBS_SIZE (KH_BOARDS * KH_MAXSQ * KH_OBS_PLANES + KH_OBS_GLOBAL)

_Static_assert(KH_OBS_SIZE == 26893, "the documented Khronos observation");
_Static_assert(KH_MAXPLACES <= KH_SQUARES_ACTIONS, "every placement has its action index");

static const int32_t kh_action_width[] = {
    0, KH_FAMILIES << 2, 512, KH_BOARDS << 5, KH_BOARDS << 4, KH_BOARDS << 12, KH_BOARDS << 8,
    KH_MAXSQ, KH_MAXSQ, KH_SQUARES_ACTIONS, 512, KH_BOARDS << 8, 512,
};
static const tb_action_layout kh_layout = {24, KH_M_END, kh_action_width};

_Static_assert(sizeof kh_action_width / sizeof *kh_action_width == KH_M_END + 1,
               "one width per move kind");

int khronos__move_to_action(tb_move m)
{
    return tb__layout_to_action(&kh_layout, m);
}

int khronos__action_to_move(int action, tb_move *out)
{
    return tb__layout_to_move(&kh_layout, action, out);
}

int khronos__num_actions(int players)
{
    (void)players;
    return tb__layout_total(&kh_layout);
}

int khronos__observation_size(int players)
{
    (void)players;
    return KH_OBS_SIZE;
}

/* The seat `p` relative to the observer, or -1 for KH_NOBODY. */
static int kh_rel(int p, int seat, int players)
{
    return p < players ? (p - seat + players) % players : -1;
}

static void kh_obs_place(tb_obs_out *w, const kh_tables *tab, float *board, int place, int plane)
{
    const kh_place *pl = &tab->place[place];
    for (int i = 0; i < pl->n; i++) /* every square the tile covers */
        tb__obs_put(w, &board[pl->sq[i] * KH_OBS_PLANES + plane], 1.0f);
}

/* Layout: per board (Might, Faith, Reason) and square (3 × 255 × 35): the
 * building's type one-hot (9), its owner by relative seat (5), ruin, printed
 * Hamlet, populate cubes by relative seat (5 counts), the half-renovation
 * cube's seat (5), the terrain one-hot (6), the pending decision's target
 * square, the pending payment's squares, the ripple's squares.  Then (118):
 * by relative seat (5 each) Ecus, last earnings, cubes in supply, cards in
 * hand, and adventurers on each board (5 × 3); the seat's hand (3), cards in
 * the deck, discards (3), display (3), hold'em, families swapped (3); cards
 * left to each adventurer (2), pool, travelled (2), exchanged, acted; stock
 * (9), turn, over; first player, current player and seat to move one-hot by
 * relative seat (3 × 5); the pending kind one-hot (5), its board (3), type (9),
 * extra cards; the ripple: active, board (3), type (9), owner (5). */
void khronos__observation(const tb_state *s, int seat, tb_obs_out *w)
{
    float *out = w->out;
    const khronos_state *k = (const khronos_state *)s;
    int players = s->players;
    for (int b = 0; b < KH_BOARDS; b++) {
        float *board = out + b * KH_MAXSQ * KH_OBS_PLANES;
        const kh_board *bd = &k->board[b];
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            const kh_place *pl = kh_place_of(KT, x);
            /* the building's seats relative to the observer, once for all its squares */
            int owner = kh_rel(x->owner, seat, players), reno = kh_rel(x->reno, seat, players);
            int cube[3], ncubes = x->ncubes < 3 ? x->ncubes : 3;
            for (int q = 0; q < ncubes; q++)
                cube[q] = kh_rel(x->cube[q], seat, players);
            float ruin = (x->flags & KH_RUIN) ? 1.0f : 0.0f, printed = (x->flags & KH_PRINTED) ? 1.0f : 0.0f;
            for (int c = 0; c < pl->n; c++) {
                float *sq = board + pl->sq[c] * KH_OBS_PLANES;
                tb__obs_put(w, &sq[x->type], 1.0f);
                if (owner >= 0)
                    tb__obs_put(w, &sq[9 + owner], 1.0f);
                tb__obs_put(w, &sq[14], ruin);
                tb__obs_put(w, &sq[15], printed);
                for (int q = 0; q < ncubes; q++)
                    if (cube[q] >= 0)
                        tb__obs_add(w, &sq[16 + cube[q]], 1.0f);
                if (reno >= 0)
                    tb__obs_put(w, &sq[21 + reno], 1.0f);
            }
        }
        if (!w->skip_static) /* the terrain depends on the board alone: written directly, once */
            for (int q = 0; q < D.squares && q < KH_MAXSQ; q++)
                if (D.terrain[q] < KH_TERRAINS)
                    board[q * KH_OBS_PLANES + 26 + D.terrain[q]] = 1.0f;
        if (k->pend != KH_P_NONE && k->pend_board == b) {
            if (k->pend != KH_P_PICK && k->pend_target != KH_NONE)
                tb__obs_put(w, &board[k->pend_target * KH_OBS_PLANES + 32], 1.0f);
            if (k->pend == KH_P_PAY)
                kh_obs_place(w, KT, board, k->pend_place, 33);
        }
        if (k->rip.active && k->rip.board == b)
            kh_obs_place(w, KT, board, k->rip.place, 34);
    }
    float *o = out + KH_BOARDS * KH_MAXSQ * KH_OBS_PLANES;
    for (int r = 0; r < players; r++) {
        int p = (seat + r) % players;
        tb__obs_put(w, &o[r], (float)k->ecus[p]);
        tb__obs_put(w, &o[5 + r], (float)k->last_earn[p]);
        tb__obs_put(w, &o[10 + r], (float)k->cubes[p]);
        tb__obs_put(w, &o[15 + r], (float)(k->hand[p][0] + k->hand[p][1] + k->hand[p][2]));
        for (int a = 0; a < 2; a++)
            tb__obs_add(w, &o[20 + r * KH_BOARDS + k->pawn[p][a]], 1.0f);
    }
    o += 35;
    for (int f = 0; f < KH_FAMILIES; f++) {
        tb__obs_put(w, &o[f], (float)k->hand[seat][f]);
        tb__obs_put(w, &o[4 + f], (float)k->discard[f]);
        tb__obs_put(w, &o[7 + f], (float)k->display[f]);
        tb__obs_put(w, &o[11 + f], (float)((k->swapped >> f) & 1));
    }
    tb__obs_put(w, &o[3], (float)k->deck_n);
    tb__obs_put(w, &o[10], (float)k->holdem);
    o += 14;
    tb__obs_put(w, o++, (float)k->left[0]);
    tb__obs_put(w, o++, (float)k->left[1]);
    tb__obs_put(w, o++, (float)k->pool);
    tb__obs_put(w, o++, k->travelled[0] ? 1.0f : 0.0f);
    tb__obs_put(w, o++, k->travelled[1] ? 1.0f : 0.0f);
    tb__obs_put(w, o++, (float)k->exchanged);
    tb__obs_put(w, o++, (float)k->acted);
    for (int t = 0; t < KH_TYPES; t++)
        tb__obs_put(w, o++, (float)k->stock[t]);
    tb__obs_put(w, o++, (float)(k->over ? KH_TURNS : k->turn));
    tb__obs_put(w, o++, k->over ? 1.0f : 0.0f);
    tb__obs_put(w, &o[kh_rel(k->first, seat, players)], 1.0f);
    tb__obs_put(w, &o[5 + kh_rel(k->cur, seat, players)], 1.0f);
    int tm = khronos__to_move(s);
    if (tm != TB_OVER)
        tb__obs_put(w, &o[10 + kh_rel(tm, seat, players)], 1.0f);
    o += 15;
    if (k->pend != KH_P_NONE) {
        tb__obs_put(w, &o[k->pend], 1.0f);
        tb__obs_put(w, &o[5 + k->pend_board], 1.0f);
        if (k->pend == KH_P_SQUARES || k->pend == KH_P_PAY)
            tb__obs_put(w, &o[8 + k->pend_type], 1.0f);
        if (k->pend == KH_P_PAY)
            tb__obs_put(w, &o[17], (float)k->pend_extra);
    }
    o += 18;
    if (k->rip.active) {
        tb__obs_put(w, &o[0], 1.0f);
        tb__obs_put(w, &o[1 + k->rip.board], 1.0f);
        tb__obs_put(w, &o[4 + k->rip.type], 1.0f);
        int r = kh_rel(k->rip.owner, seat, players);
        if (r >= 0)
            tb__obs_put(w, &o[13 + r], 1.0f);
    }
}
