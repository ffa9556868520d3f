/*
 * random_games.c — a short program against the installed library: plays random
 * games of a game and asks the ISMCTS agent for one decision.
 *
 *   cc random_games.c $(pkg-config --cflags --libs tabula) -o random_games
 *   ./random_games [GAME] [GAMES]
 *
 * It uses only include/tabula.h (the public API), so it builds against
 * libtabula.so exactly as a researcher's program would.  Exit status 0 when
 * every game ended with a winner and the agent chose a legal decision.
 */
#include <tabula.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "clans";
    int games = argc > 2 ? atoi(argv[2]) : 100;
    const tb_game *game = tb_game_find(name);
    if (!game) {
        fprintf(stderr, "unknown game '%s'\n", name);
        return 1;
    }
    int players = tb_game_default_players(game);
    int wins[TB_MAX_SEATS] = {0};
    char err[TB_ERR_LEN];
    tb_state *s = tb_state_new(game);
    tb_rng rng;
    tb_rng_seed(&rng, 1);
    for (int g = 0; g < games; g++) {
        if (tb_setup(s, players, NULL, (uint64_t)g, err, sizeof err) != 0) {
            fprintf(stderr, "setup: %s\n", err);
            return 1;
        }
        tb_playout(s, &rng, 0);
        int ranks[TB_MAX_SEATS];
        tb_ranks(s, ranks);
        for (int i = 0; i < players; i++)
            wins[i] += ranks[i] == 1;
    }
    printf("%s: %d random games, first places by seat:", name, games);
    for (int i = 0; i < players; i++)
        printf(" %d", wins[i]);
    printf("\n");

    /* one decision by the search, 500 iterations, from a fresh deal */
    tb_setup(s, players, NULL, 7, err, sizeof err);
    tb_budget budget = {.iterations = 500};
    tb_agent_report report;
    tb_move m = tb_agent_decide(tb_agent_find("ismcts"), s, &budget, 7, &report);
    char text[TB_MOVE_TEXT];
    tb_move_to_text(s, m, text, sizeof text);
    printf("ismcts chooses %s after %lld iterations\n", text, (long long)report.iterations);
    int ok = tb_is_legal(s, m);
    tb_state_free(s);
    return ok ? 0 : 1;
}
