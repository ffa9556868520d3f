/*
 * fuzz_arkadia_data.c — libFuzzer harness: arbitrary bytes as an Arkadia
 * board file (docs/data-format.md, "Arkadia").  A refused file must say
 * "FILE:LINE: " and plain text; a board the reader accepts must be playable:
 * its board JSON prints, and a whole random game on it (first-game variant
 * when the first byte is odd) keeps every invariant of tests/sim/sim_arkadia.c
 * at each decision and ends.
 */
#include "core/text.h"
#include "../sim/sim.h"
#include "tabula.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fuzz_play(const tb_data *data, unsigned variant_byte)
{
    const tb_game *g = tb_game_find("arkadia");
    tb_options opts;
    tb_options_clear(&opts);
    if (variant_byte & 1)
        tb_options_set(&opts, "variant", "first-game", NULL, 0);
    tb_state *s = tb_state_new(g), *before = tb_state_new(g);
    char err[TB_ERR_LEN];
    int players = 2 + (int)(variant_byte >> 1) % 3;
    if (tb_setup_data(s, data, players, &opts, variant_byte, err, sizeof err) != 0 ||
        sim_arkadia_check(NULL, s, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    tb_rng rng;
    tb_rng_seed(&rng, variant_byte);
    for (int d = 0; !tb_is_over(s); d++) {
        if (d > 5000)
            abort(); /* a game that never ends */
        tb_state_copy(before, s);
        tb_apply(s, tb_random_move(s, &rng));
        if (sim_arkadia_check(before, s, err, sizeof err) != 0) {
            fprintf(stderr, "decision %d: %s\n", d, err);
            abort();
        }
    }
    tb_state_free(before);
    tb_state_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    const tb_game *g = tb_game_find("arkadia");
    char err[TB_ERR_LEN];
    tb_data *data = tb_data_read(g, "fuzz", (const char *)bytes, size, "fuzz.txt", err, sizeof err);
    if (!data) {
        if (strncmp(err, "fuzz.txt:", 9) != 0 || !tb__utf8_valid(err))
            abort();
        return 0;
    }
    char *board = tb_board_json_data(g, data);
    if (!board)
        abort();
    free(board);
    fuzz_play(data, size ? bytes[0] : 0);
    tb_data_free(data);
    return 0;
}
