/*
 * khronos_tensor.c — Khronos's integer action space (docs/python.md).
 *
 * Moves are kind << 24 | payload (khronos.h); each kind takes a block of
 * indexes in kind order, sized by what its payload can hold: swap 12
 * (family << 2 | family), exchange 512 (a card multiset), travel 96
 * (from << 5 | to << 3 | allowance), build 48 (board << 4 | type), upgrade
 * 12,288 (board << 12 | anchor square << 4 | type), demolish 768 (board << 8 |
 * square), populate 128 and renovate 128 (anchor square), squares 1024 (a
 * placement; the data has fewer, checked by the unit test), pay 512,
 * downsize 768, end 512 (cards discarded): 16,796 in all.  The blocks follow
 * the encoding alone, so indexes never change with the data.
 */
#include "khronos.h"

#include "game.h"

#define KH_SQUARES_ACTIONS 1024

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
