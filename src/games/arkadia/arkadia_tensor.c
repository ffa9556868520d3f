/*
 * arkadia_tensor.c — Arkadia's integer action space (docs/python.md).
 *
 * Moves are kind << 16 | payload (arkadia.h); each kind takes a block of
 * indexes in kind order, sized by what its payload can hold: lot 192 squares,
 * build 28 card types, workers 257 (a building's first square or the castle
 * lot), place 10,752 (form × orientation × corner square, made dense), own 192,
 * neutral 192, stop 1, castle 64 (family << 4 | square), draw 256 (card type or
 * the stack), banner 2, sell 1024 (family << 8 | count): 12,960 in all.  The
 * blocks follow the encoding alone, so indexes never change with the data.
 *
 * Observation (ARK_OBS_SIZE floats, every player count): only what the seat's
 * view shows (ark__view_json): the board, castle, pools, display, the seat's
 * own hand, and per seat the cards every player saw taken, counts, workers,
 * banners, seals and gold; never another hand's unseen cards nor the stack's
 * order.  Seat blocks are rotated so the observing seat comes first, and
 * phase-dependent fields are written only in the phase where the view shows
 * them.  The layout is in docs/python.md.
 */
#include "arkadia.h"

#include "game.h"


#define ARK_PLACE_ACTIONS (ARK_FORMS * ARK_MAX_ORIENT * ARK_SQUARES)
#define ARK_OBS_PLANES 14
#define ARK_OBS_SEAT (ARK_CARD_TYPES + 6 + ARK_FAMILIES)
#define ARK_OBS_SIZE                                                                          \
    (ARK_SQUARES * ARK_OBS_PLANES + ARK_CASTLE * ARK_FLOORS * ARK_FAMILIES +                  \
     ARK_FLOORS * ARK_FAMILIES + ARK_CARD_TYPES * 3 + 1 + ARK_SEATS * ARK_OBS_SEAT +          \
     ARK_PHASES + ARK_ACTIONS + ARK_SEATS + ARK_FAMILIES * 2 + 9)

_Static_assert(ARK_OBS_SIZE == 3091, "the documented Arkadia observation");

static const int32_t ark_action_width[] = {
    0, ARK_SQUARES, ARK_CARD_TYPES, ARK_LOT_TARGET + 1, ARK_PLACE_ACTIONS, ARK_SQUARES, ARK_SQUARES,
    1, ARK_FAMILIES << 4, 256, 2, ARK_FAMILIES << 8,
};
static const tb_action_layout ark_layout = {16, ARK_K_SELL, ark_action_width};

_Static_assert(sizeof ark_action_width / sizeof *ark_action_width == ARK_K_SELL + 1,
               "one width per move kind");

int ark__move_to_action(tb_move m)
{
    if (ARK_KIND(m) == ARK_K_PLACE) {
        int p = ARK_PAYLOAD(m), form = p >> 12, o = (p >> 8) & 15, corner = p & 0xff;
        if (form >= ARK_FORMS || o >= ARK_MAX_ORIENT || corner >= ARK_SQUARES)
            return -1;
        m = ARK_MOVE(ARK_K_PLACE, (form * ARK_MAX_ORIENT + o) * ARK_SQUARES + corner);
    }
    return tb__layout_to_action(&ark_layout, m);
}

int ark__action_to_move(int action, tb_move *out)
{
    tb_move m;
    if (tb__layout_to_move(&ark_layout, action, &m) != 0)
        return -1;
    if (ARK_KIND(m) == ARK_K_PLACE) {
        int p = ARK_PAYLOAD(m), corner = p % ARK_SQUARES, fo = p / ARK_SQUARES;
        m = ARK_MOVE(ARK_K_PLACE, (fo / ARK_MAX_ORIENT) << 12 | (fo % ARK_MAX_ORIENT) << 8 | corner);
    }
    *out = m;
    return 0;
}

int ark__num_actions(int players)
{
    (void)players;
    return tb__layout_total(&ark_layout);
}

int ark__observation_size(int players)
{
    (void)players;
    return ARK_OBS_SIZE;
}

/* Sets plane `plane` of every square in `cells` to v (set bits only). */
static void ark_obs_cells(tb_obs_out *w, float *board, ark_bb cells, int plane, float v)
{
    for (int k = 0; k < 3; k++)
        for (uint64_t bits = cells.w[k]; bits; bits &= bits - 1)
            tb__obs_put(w, &board[(k * 64 + __builtin_ctzll(bits)) * ARK_OBS_PLANES + plane], v);
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
 * number, idle turns, floor 2 full, banner used this turn, the lot placed.
 * The tents depend on the board alone: written directly, once. */
void ark__observation(const tb_state *s, int seat, tb_obs_out *w)
{
    const arkadia_state *a = (const arkadia_state *)s;
    const ark_data *d = ark__board(a);
    int players = s->players;
    float *board = w->out, *o = w->out + ARK_SQUARES * ARK_OBS_PLANES;
    for (int i = 0; i < a->nbld; i++) {
        const ark_building *b = &a->bld[i];
        ark_bb cells = ark__building_cells(d, b);
        ark_obs_cells(w, board, cells, 0, 1.0f);
        if (b->family < ARK_FAMILIES)
            ark_obs_cells(w, board, cells, 1 + b->family, 1.0f);
        if (b->done)
            ark_obs_cells(w, board, cells, 5, 1.0f);
    }
    ark_obs_cells(w, board, ark__lot_cells(a), 6, 1.0f);
    for (int r = 0; r < players; r++)
        ark_obs_cells(w, board, a->workers[(seat + r) % players], 7 + r, 1.0f);
    ark_obs_cells(w, board, a->workers[ARK_NEUTRAL], 11, 1.0f);
    if (!w->skip_static)
        for (int sq = 0; sq < ARK_SQUARES; sq++)
            if (ark_bb_has(d->tents, sq))
                board[sq * ARK_OBS_PLANES + 12] = 1.0f;
    if (a->phase == ARK_PH_WORKER)
        ark_obs_cells(w, board,
                      a->target_lot ? ark__lot_cells(a) : ark__building_cells(d, &a->bld[a->target]), 13, 1.0f);
    for (int q = 0; q < ARK_CASTLE; q++, o += ARK_FLOORS * ARK_FAMILIES)
        for (int h = 0; h < a->height[q]; h++)
            tb__obs_put(w, &o[h * ARK_FAMILIES + a->castle[q][h]], 1.0f);
    for (int f = 0; f < ARK_FLOORS; f++)
        for (int k = 0; k < ARK_FAMILIES; k++)
            tb__obs_put(w, o++, (float)a->pool[f][k]);
    for (int i = 0; i < a->display_n; i++)
        tb__obs_add(w, &o[a->display[i]], 1.0f);
    o += ARK_CARD_TYPES;
    if (a->phase == ARK_PH_PLACE)
        tb__obs_put(w, &o[a->card], 1.0f);
    o += ARK_CARD_TYPES;
    for (int i = 0; i < a->hand_n[seat]; i++)
        tb__obs_add(w, &o[a->hand[seat][i] >> 1], 1.0f);
    o += ARK_CARD_TYPES;
    tb__obs_put(w, o++, (float)a->stack_n);
    for (int r = 0; r < ARK_SEATS; r++, o += ARK_OBS_SEAT) {
        if (r >= players)
            continue;
        int p = (seat + r) % players;
        for (int i = 0; i < a->hand_n[p]; i++)
            if (a->hand[p][i] & 1)
                tb__obs_add(w, &o[a->hand[p][i] >> 1], 1.0f);
        float *t = o + ARK_CARD_TYPES;
        tb__obs_put(w, &t[0], (float)a->hand_n[p]);
        tb__obs_put(w, &t[1], (float)a->screen[p]);
        tb__obs_put(w, &t[2], (float)a->screen_neutral[p]);
        tb__obs_put(w, &t[3], (float)ark__own_pool(a, p));
        tb__obs_put(w, &t[4], (float)a->banners[p]);
        for (int k = 0; k < ARK_FAMILIES; k++)
            tb__obs_put(w, &t[5 + k], (float)a->seals[p][k]);
        tb__obs_put(w, &t[5 + ARK_FAMILIES], (float)a->gold[p]);
    }
    tb__obs_put(w, &o[a->phase], 1.0f);
    o += ARK_PHASES;
    tb__obs_put(w, &o[a->action], 1.0f);
    o += ARK_ACTIONS;
    int tm = ark__to_move(s);
    if (tm != TB_OVER)
        tb__obs_put(w, &o[(tm - seat + players) % players], 1.0f);
    o += ARK_SEATS;
    for (int k = 0; k < ARK_FAMILIES; k++)
        tb__obs_put(w, o++, (float)ark__value(a, k));
    if (a->phase == ARK_PH_SALE)
        tb__obs_put(w, &o[a->family], 1.0f);
    o += ARK_FAMILIES;
    int floor = ark__floor(a);
    tb__obs_put(w, o++, a->phase == ARK_PH_WORKER ? (float)a->placed : 0.0f);
    tb__obs_put(w, o++, a->phase == ARK_PH_CASTLE ? (float)a->castle_left : 0.0f);
    tb__obs_put(w, o++, (float)floor);
    tb__obs_put(w, o++, (float)ark__neutral_pool(a));
    tb__obs_put(w, o++, (float)a->turn_no);
    tb__obs_put(w, o++, (float)a->idle);
    tb__obs_put(w, o++, a->trigger_turn >= 0 ? 1.0f : 0.0f);
    tb__obs_put(w, o++, (float)a->banner_used);
    tb__obs_put(w, o++, a->lot != ARK_NO_SQUARE ? 1.0f : 0.0f);
}
