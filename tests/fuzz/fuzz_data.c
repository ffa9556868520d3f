/*
 * fuzz_data.c — libFuzzer harness: arbitrary bytes as a Khronos board file
 * (docs/data-format.md).  The file is read or refused with "WHERE:LINE:
 * what is wrong"; a file that reads sets up a game for every player count
 * and plays some random decisions on it; never a crash, never a leak.
 */
#include "tabula.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const tb_game *game = tb_game_find("khronos");
    char err[TB_ERR_LEN];
    tb_data *d = tb_data_read(game, "fuzz", (const char *)data, size, "fuzz.txt", err, sizeof err);
    if (!d) {
        if (strncmp(err, "fuzz.txt:", 9) != 0)
            abort(); /* every refusal names the file and the line */
        return 0;
    }
    for (int players = tb_game_min_players(game); players <= tb_game_max_players(game); players++) {
        tb_state *s = tb_state_new(game);
        if (tb_setup_data(s, d, players, NULL, (uint64_t)size, err, sizeof err) == 0) {
            tb_rng rng;
            tb_rng_seed(&rng, (uint64_t)players);
            tb_playout(s, &rng, 200);
            char *json = tb_state_json(s);
            free(json);
        }
        tb_state_free(s);
    }
    tb_data_free(d);
    return 0;
}
