/*
 * fuzz_state.c — libFuzzer harness: arbitrary bytes as a state JSON.  A state
 * that loads must print, reload to an equal state, render, and accept a
 * random legal decision; anything else must be refused cleanly.
 */
#include "tabula.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_load(text, err, sizeof err);
    if (s) {
        char *json = tb_state_json(s);
        tb_state *t = tb_state_load(json, err, sizeof err);
        if (!t || !tb_state_equal(s, t))
            abort();
        char *board = tb_render_text(s, 0, TB_RENDER_COLOUR | TB_RENDER_HIDE_TOTALS);
        char *view = tb_view_json(s, TB_SPECTATOR);
        if (!tb_is_over(s)) {
            tb_rng rng;
            tb_rng_seed(&rng, size);
            tb_move m = tb_random_move(s, &rng);
            if (!tb_is_legal(s, m))
                abort();
            tb_apply(s, m);
        }
        free(board);
        free(view);
        free(json);
        tb_state_free(t);
        tb_state_free(s);
    }
    free(text);
    return 0;
}
