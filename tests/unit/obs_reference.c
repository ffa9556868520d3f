/*
 * obs_reference.c — the observation encoders as they were before the
 * in-place update (tb_observation_update, issue 30), kept verbatim but for
 * their names: test_actions.c checks that tb_observation and
 * tb_observation_update still write exactly these tensors over many random
 * positions of every game.  Change them only with a deliberate change of a
 * documented layout (docs/python.md).
 */
#include "games/arkadia/arkadia.h"
#include "games/clans/clans.h"
#include "games/khronos/khronos.h"
#include "obs_reference.h"

/* ---- Clans ---- */
#define CLANS_OBS_TERRITORY (CLANS_COLOURS + 3)
#define CLANS_OBS_SIZE                                                                       \
    (CLANS_TERRITORIES * CLANS_OBS_TERRITORY + CLANS_COLOURS * 2 + TB_MAX_SEATS * 2 + 2 +    \
     TB_MAX_SEATS * CLANS_COLOURS)

void ref_clans_observation(const tb_state *s, int seat, float *out)
{
    const clans_state *c = (const clans_state *)s;
    int players = s->players;
    float *o = out;
    for (int t = 0; t < CLANS_TERRITORIES; t++, o += CLANS_OBS_TERRITORY) {
        for (int k = 0; k < CLANS_COLOURS; k++)
            o[k] = (float)clans__huts(c, t, k);
        uint64_t bit = 1ULL << t;
        o[CLANS_COLOURS] = (c->villages & bit) ? (float)c->village_epoch[t] : 0.0f;
        o[CLANS_COLOURS + 1] = (c->ruins & bit) ? 1.0f : 0.0f;
        o[CLANS_COLOURS + 2] = (c->pending & bit) ? 1.0f : 0.0f;
    }
    for (int k = 0; k < CLANS_COLOURS; k++)
        *o++ = (float)c->track[k];
    o[c->colour[seat]] = 1.0f;
    o += CLANS_COLOURS;
    for (int r = 0; r < players; r++)
        o[r] = (float)c->chips[(seat + r) % players];
    o += TB_MAX_SEATS;
    int tm = clans__to_move(s);
    if (tm != TB_OVER)
        o[(tm - seat + players) % players] = 1.0f;
    o += TB_MAX_SEATS;
    *o++ = (float)c->chips_taken;
    *o++ = c->over ? 1.0f : 0.0f;
    if (c->over)
        for (int r = 0; r < players; r++)
            o[r * CLANS_COLOURS + c->colour[(seat + r) % players]] = 1.0f;
}

/* ---- Arkadia ---- */
#include "game.h"
#define ARK_OBS_PLANES 14
#define ARK_OBS_SEAT (ARK_CARD_TYPES + 6 + ARK_FAMILIES)
#define ARK_OBS_SIZE                                                                          \
    (ARK_SQUARES * ARK_OBS_PLANES + ARK_CASTLE * ARK_FLOORS * ARK_FAMILIES +                  \
     ARK_FLOORS * ARK_FAMILIES + ARK_CARD_TYPES * 3 + 1 + ARK_SEATS * ARK_OBS_SEAT +          \
     ARK_PHASES + ARK_ACTIONS + ARK_SEATS + ARK_FAMILIES * 2 + 9)

/* Sets plane `plane` of every square in `cells` to v. */
static void ark_obs_cells(float *board, ark_bb cells, int plane, float v)
{
    for (int sq = 0; sq < ARK_SQUARES; sq++)
        if (ark_bb_has(cells, sq))
            board[sq * ARK_OBS_PLANES + plane] = v;
}

/* Layout: per square (192 × 14): building, its family one-hot (4), done, the
 * castle lot, workers of each relative seat (4), neutral workers, tent, the
 * WORKER phase's target; the castle's pieces (10 squares × 3 floors × family
 * one-hot); the pools (3 floors × 4 families); the display, the card being
 * laid out (PLACE) and the seat's hand as card-type counts (3 × 28); cards in
 * the stack; per relative seat (4 × 38): cards seen taken (28 counts), cards
 * held, workers and neutral workers behind the screen, own workers left in
 * the pool, banners, seals (4), gold; the phase one-hot (9), the action
 * one-hot (4), the seat to move one-hot by relative seat (4); the seals'
 * values (4), the SALE family one-hot (4); then placed, castle left, floor, neutral pool, turn
 * number, idle turns, floor 2 full, banner used this turn, the lot placed. */
void ref_ark_observation(const tb_state *s, int seat, float *out)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    int players = s->players;
    float *board = out, *o = out + ARK_SQUARES * ARK_OBS_PLANES;
    for (int i = 0; i < a->nbld; i++) {
        const ark_building *b = &a->bld[i];
        ark_bb cells = ark__building_cells(d, b);
        ark_obs_cells(board, cells, 0, 1.0f);
        if (b->family < ARK_FAMILIES)
            ark_obs_cells(board, cells, 1 + b->family, 1.0f);
        if (b->done)
            ark_obs_cells(board, cells, 5, 1.0f);
    }
    ark_obs_cells(board, ark__lot_cells(a), 6, 1.0f);
    for (int r = 0; r < players; r++)
        ark_obs_cells(board, a->workers[(seat + r) % players], 7 + r, 1.0f);
    ark_obs_cells(board, a->workers[ARK_NEUTRAL], 11, 1.0f);
    ark_obs_cells(board, d->tents, 12, 1.0f);
    if (a->phase == ARK_PH_WORKER)
        ark_obs_cells(board, a->target_lot ? ark__lot_cells(a) : ark__building_cells(d, &a->bld[a->target]),
                      13, 1.0f);
    for (int q = 0; q < ARK_CASTLE; q++, o += ARK_FLOORS * ARK_FAMILIES)
        for (int h = 0; h < a->height[q]; h++)
            o[h * ARK_FAMILIES + a->castle[q][h]] = 1.0f;
    for (int f = 0; f < ARK_FLOORS; f++)
        for (int k = 0; k < ARK_FAMILIES; k++)
            *o++ = (float)a->pool[f][k];
    for (int i = 0; i < a->display_n; i++)
        o[a->display[i]] += 1.0f;
    o += ARK_CARD_TYPES;
    if (a->phase == ARK_PH_PLACE)
        o[a->card] = 1.0f;
    o += ARK_CARD_TYPES;
    for (int i = 0; i < a->hand_n[seat]; i++)
        o[a->hand[seat][i] >> 1] += 1.0f;
    o += ARK_CARD_TYPES;
    *o++ = (float)a->stack_n;
    for (int r = 0; r < ARK_SEATS; r++, o += ARK_OBS_SEAT) {
        if (r >= players)
            continue;
        int p = (seat + r) % players;
        for (int i = 0; i < a->hand_n[p]; i++)
            if (a->hand[p][i] & 1)
                o[a->hand[p][i] >> 1] += 1.0f;
        float *t = o + ARK_CARD_TYPES;
        t[0] = (float)a->hand_n[p];
        t[1] = (float)a->screen[p];
        t[2] = (float)a->screen_neutral[p];
        t[3] = (float)ark__own_pool(a, p);
        t[4] = (float)a->banners[p];
        for (int k = 0; k < ARK_FAMILIES; k++)
            t[5 + k] = (float)a->seals[p][k];
        t[5 + ARK_FAMILIES] = (float)a->gold[p];
    }
    o[a->phase] = 1.0f;
    o += ARK_PHASES;
    o[a->action] = 1.0f;
    o += ARK_ACTIONS;
    int tm = ark__to_move(s);
    if (tm != TB_OVER)
        o[(tm - seat + players) % players] = 1.0f;
    o += ARK_SEATS;
    for (int k = 0; k < ARK_FAMILIES; k++)
        *o++ = (float)ark__value(a, k);
    if (a->phase == ARK_PH_SALE)
        o[a->family] = 1.0f;
    o += ARK_FAMILIES;
    int floor = ark__floor(a);
    *o++ = a->phase == ARK_PH_WORKER ? (float)a->placed : 0.0f;
    *o++ = a->phase == ARK_PH_CASTLE ? (float)a->castle_left : 0.0f;
    *o++ = (float)floor;
    *o++ = (float)ark__neutral_pool(a);
    *o++ = (float)a->turn_no;
    *o++ = (float)a->idle;
    *o++ = a->trigger_turn >= 0 ? 1.0f : 0.0f;
    *o++ = (float)a->banner_used;
    *o++ = a->lot != ARK_NO_SQUARE ? 1.0f : 0.0f;
}

/* ---- Khronos ---- */
/* The tables of the data the game is on (khronos_board.h); k is the state. */
#define KT KH_TABLES(k)
#define D (KT->data)

#define KH_OBS_PLANES 35
#define KH_OBS_GLOBAL 118
#define KH_OBS_SIZE (KH_BOARDS * KH_MAXSQ * KH_OBS_PLANES + KH_OBS_GLOBAL)

/* The seat `p` relative to the observer, or -1 for KH_NOBODY. */
static int kh_rel(int p, int seat, int players)
{
    return p < players ? (p - seat + players) % players : -1;
}

static void kh_obs_place(const kh_tables *tab, float *board, int place, int plane)
{
    const kh_place *pl = &tab->place[place];
    for (int i = 0; i < pl->n; i++) /* every square the tile covers */
        board[pl->sq[i] * KH_OBS_PLANES + plane] = 1.0f;
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
void ref_khronos_observation(const tb_state *s, int seat, float *out)
{
    const khronos_state *k = (const khronos_state *)s;
    int players = s->players;
    for (int b = 0; b < KH_BOARDS; b++) {
        float *board = out + b * KH_MAXSQ * KH_OBS_PLANES;
        const kh_board *bd = &k->board[b];
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            const kh_place *pl = kh_place_of(KT, x);
            for (int c = 0; c < pl->n; c++) {
                float *sq = board + pl->sq[c] * KH_OBS_PLANES;
                sq[x->type] = 1.0f;
                int r = kh_rel(x->owner, seat, players);
                if (r >= 0)
                    sq[9 + r] = 1.0f;
                sq[14] = (x->flags & KH_RUIN) ? 1.0f : 0.0f;
                sq[15] = (x->flags & KH_PRINTED) ? 1.0f : 0.0f;
                for (int q = 0; q < x->ncubes && q < 3; q++)
                    if ((r = kh_rel(x->cube[q], seat, players)) >= 0)
                        sq[16 + r] += 1.0f;
                if ((r = kh_rel(x->reno, seat, players)) >= 0)
                    sq[21 + r] = 1.0f;
            }
        }
        for (int q = 0; q < D.squares && q < KH_MAXSQ; q++)
            if (D.terrain[q] < KH_TERRAINS)
                board[q * KH_OBS_PLANES + 26 + D.terrain[q]] = 1.0f;
        if (k->pend != KH_P_NONE && k->pend_board == b) {
            if (k->pend != KH_P_PICK && k->pend_target != KH_NONE)
                board[k->pend_target * KH_OBS_PLANES + 32] = 1.0f;
            if (k->pend == KH_P_PAY)
                kh_obs_place(KT, board, k->pend_place, 33);
        }
        if (k->rip.active && k->rip.board == b)
            kh_obs_place(KT, board, k->rip.place, 34);
    }
    float *o = out + KH_BOARDS * KH_MAXSQ * KH_OBS_PLANES;
    for (int r = 0; r < players; r++) {
        int p = (seat + r) % players;
        o[r] = (float)k->ecus[p];
        o[5 + r] = (float)k->last_earn[p];
        o[10 + r] = (float)k->cubes[p];
        o[15 + r] = (float)(k->hand[p][0] + k->hand[p][1] + k->hand[p][2]);
        for (int a = 0; a < 2; a++)
            o[20 + r * KH_BOARDS + k->pawn[p][a]] += 1.0f;
    }
    o += 35;
    for (int f = 0; f < KH_FAMILIES; f++) {
        o[f] = (float)k->hand[seat][f];
        o[4 + f] = (float)k->discard[f];
        o[7 + f] = (float)k->display[f];
        o[11 + f] = (float)((k->swapped >> f) & 1);
    }
    o[3] = (float)k->deck_n;
    o[10] = (float)k->holdem;
    o += 14;
    *o++ = (float)k->left[0];
    *o++ = (float)k->left[1];
    *o++ = (float)k->pool;
    *o++ = k->travelled[0] ? 1.0f : 0.0f;
    *o++ = k->travelled[1] ? 1.0f : 0.0f;
    *o++ = (float)k->exchanged;
    *o++ = (float)k->acted;
    for (int t = 0; t < KH_TYPES; t++)
        *o++ = (float)k->stock[t];
    *o++ = (float)(k->over ? KH_TURNS : k->turn);
    *o++ = k->over ? 1.0f : 0.0f;
    o[kh_rel(k->first, seat, players)] = 1.0f;
    o[5 + kh_rel(k->cur, seat, players)] = 1.0f;
    int tm = khronos__to_move(s);
    if (tm != TB_OVER)
        o[10 + kh_rel(tm, seat, players)] = 1.0f;
    o += 15;
    if (k->pend != KH_P_NONE) {
        o[k->pend] = 1.0f;
        o[5 + k->pend_board] = 1.0f;
        if (k->pend == KH_P_SQUARES || k->pend == KH_P_PAY)
            o[8 + k->pend_type] = 1.0f;
        if (k->pend == KH_P_PAY)
            o[17] = (float)k->pend_extra;
    }
    o += 18;
    if (k->rip.active) {
        o[0] = 1.0f;
        o[1 + k->rip.board] = 1.0f;
        o[4 + k->rip.type] = 1.0f;
        int r = kh_rel(k->rip.owner, seat, players);
        if (r >= 0)
            o[13 + r] = 1.0f;
    }
}
