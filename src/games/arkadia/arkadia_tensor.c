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
 */
#include "arkadia.h"

#include "game.h"

#define ARK_PLACE_ACTIONS (ARK_FORMS * ARK_MAX_ORIENT * ARK_SQUARES)

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
