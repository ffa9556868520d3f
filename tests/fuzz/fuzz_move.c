/*
 * fuzz_move.c — libFuzzer harness: arbitrary bytes as decision text in a
 * position of every game (after a few random decisions chosen by the first
 * bytes).  A refused text must leave the state byte-for-byte unchanged, and
 * the refusal must be valid UTF-8 however the text was cut to quote it.
 */
#include "tabula.h"
#include "core/text.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    char *text = malloc(size - 1);
    memcpy(text, data + 2, size - 2);
    text[size - 2] = '\0';
    for (int g = 0; g < tb_game_count(); g++) {
        const tb_game *game = tb_game_at(g);
        tb_state *s = tb_state_new(game);
        tb_setup(s, tb_game_min_players(game), NULL, data[0], NULL, 0);
        tb_rng rng;
        tb_rng_seed(&rng, data[1]);
        for (int i = 0; i < data[1] % 64 && !tb_is_over(s); i++)
            tb_apply(s, tb_random_move(s, &rng));
        tb_state *before = tb_state_dup(s);
        char err[TB_ERR_LEN];
        if (tb_play_text(s, text, err, sizeof err) != 0 &&
            (!tb_state_equal(s, before) || !tb__utf8_valid(err)))
            abort();
        tb_state_free(before);
        tb_state_free(s);
    }
    free(text);
    return 0;
}
