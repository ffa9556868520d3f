/*
 * sim.c — the random-game test: plays many seeded games of one game with
 * uniformly random decisions and checks at every decision
 *   - clone equality (a copy is equal, and stays equal under the same move);
 *   - the state JSON round trip (load(state()) prints the same and is equal);
 *   - no leak and sound resampling for every seat and the spectator: a state
 *     re-dealt from the seat's point of view gives the same view and, for the
 *     seat to move, the same legal-move text and undominated decisions (the
 *     search lists the root's once for every guess);
 *   - the game's own invariants (sim_GAME.c, listed in sim_checks below);
 *   - the random fast path and the legal list agree;
 *   - the score breakdown (tb_score_breakdown) explains every seat's score;
 * and at the end that every game finished within a decision limit.
 * The JSON checks (round trip, no leak, resampling) cost far more than the
 * rules, so they run at every decision of the first FULL games of each player
 * count; the other checks run at every decision of every game.
 * usage: sim [--data FILE] GAME GAMES FULL [PLAYERS...]
 * (--data: play on the board and component data of FILE, docs/data-format.md)
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *game;
    sim_check_fn check;
} sim_checks[] = {
    {"arkadia", sim_arkadia_check},
    {"clans", sim_clans_check},
    {"khronos", sim_khronos_check},
};

static int sim_failures;
static const tb_data_set *sim_boards; /* NULL: built-in data only */
static const tb_data *sim_data;       /* NULL: the built-in data */

static void sim_fail(const char *game, int players, int g, int d, const char *what)
{
    if (sim_failures++ < 20)
        fprintf(stderr, "%s players=%d seed=%d decision %d: %s\n", game, players, g, d, what);
}

/* Every seat's breakdown exists and adds up to its score (tb_score_breakdown
 * checks the sum too; this says so independently). */
static void sim_breakdown_check(const tb_state *s, const char *game, int players, int g, int d)
{
    int sc[TB_MAX_SEATS];
    tb_scores(s, sc);
    for (int p = 0; p < players; p++) {
        tb_score_part parts[TB_BREAKDOWN_MAX];
        int n = tb_score_breakdown(s, p, parts), sum = 0;
        for (int i = 0; i < n; i++)
            sum += parts[i].points;
        if (n <= 0 || sum != sc[p])
            sim_fail(game, players, g, d, "a seat's score breakdown is missing or does not add up");
    }
}

static void sim_decision_checks(const tb_state *s, tb_rng *rng, const char *game, int players,
                                int g, int d)
{
    /* clone equality */
    tb_state *c = tb_state_dup(s);
    if (!tb_state_equal(c, s))
        sim_fail(game, players, g, d, "a copy differs from its original");
    /* JSON round trip */
    char *json = tb_state_json(s), err[TB_ERR_LEN];
    tb_state *back = tb_state_load_in(json, sim_boards, err, sizeof err);
    if (!back) {
        char msg[TB_ERR_LEN + 40];
        snprintf(msg, sizeof msg, "state JSON does not load: %s", err);
        sim_fail(game, players, g, d, msg);
    } else {
        char *again = tb_state_json(back);
        if (strcmp(json, again) != 0)
            sim_fail(game, players, g, d, "state JSON changes on a round trip");
        if (!tb_state_equal(back, s))
            sim_fail(game, players, g, d, "a state loaded from its JSON is not equal to it");
        free(again);
        tb_state_free(back);
    }
    free(json);
    /* no leak, sound resampling */
    int mover = tb_to_move(s);
    char *legal = tb_legal_text(s);
    for (int seat = TB_SPECTATOR; seat < players; seat++) {
        tb_state_copy(c, s);
        tb_resample(c, seat, rng);
        char *v1 = tb_view_json(s, seat), *v2 = tb_view_json(c, seat);
        if (strcmp(v1, v2) != 0)
            sim_fail(game, players, g, d, seat < 0 ? "resampling changes the spectator view"
                                                   : "resampling changes the seat's own view");
        if (seat == TB_SPECTATOR && mover >= 0) {
            /* the log's words say only what everybody sees: for two dealings
             * of the secrets a spectator cannot see that show everybody the
             * same before and after the decision, the words are the same */
            tb_move moves[TB_MAX_MOVES];
            int n = tb_legal(s, moves);
            tb_move m = moves[(int)tb_rng_below(rng, (uint32_t)n)];
            char said1[600], said2[600];
            if (tb_narrate(s, m, NULL, said1, sizeof said1) <= 0)
                sim_fail(game, players, g, d, "a legal decision has no words for the log");
            if (tb_is_legal(c, m)) {
                tb_state *a1 = tb_state_dup(s), *a2 = tb_state_dup(c);
                tb_apply(a1, m);
                tb_apply(a2, m);
                char *w1 = tb_view_json(a1, TB_SPECTATOR), *w2 = tb_view_json(a2, TB_SPECTATOR);
                if (strcmp(w1, w2) == 0 && (tb_narrate(c, m, NULL, said2, sizeof said2) <= 0 ||
                                            strcmp(said1, said2) != 0))
                    sim_fail(game, players, g, d,
                             "the log's words depend on secrets a spectator cannot see");
                free(w1);
                free(w2);
                tb_state_free(a1);
                tb_state_free(a2);
            }
        }
        if (seat == mover) {
            char *legal2 = tb_legal_text(c);
            if (strcmp(legal, legal2) != 0)
                sim_fail(game, players, g, d, "the mover's legal moves depend on secrets it cannot see");
            free(legal2);
            /* the search lists the root's decisions once for every guess */
            tb_move u1[TB_MAX_MOVES], u2[TB_MAX_MOVES];
            int n1 = tb_legal_undominated(s, u1), n2 = tb_legal_undominated(c, u2);
            if (n1 != n2 || memcmp(u1, u2, (size_t)n1 * sizeof u1[0]) != 0)
                sim_fail(game, players, g, d,
                         "the mover's undominated moves depend on secrets it cannot see");
        }
        free(v1);
        free(v2);
    }
    free(legal);
    tb_state_free(c);
}

static tb_data_set *sim_read_data(const char *game_name, const char *path)
{
    FILE *f = fopen(path, "rb");
    static char text[1 << 16];
    size_t len = f ? fread(text, 1, sizeof text, f) : 0;
    if (!f) {
        perror(path);
        exit(2);
    }
    fclose(f);
    char err[TB_ERR_LEN];
    tb_data_set *set = tb_data_set_new();
    tb_data *d = tb_data_read(tb_game_find(game_name), "sim", text, len, path, err, sizeof err);
    if (!d || tb_data_set_add(set, d, err, sizeof err)) {
        fprintf(stderr, "sim: %s\n", err);
        exit(2);
    }
    sim_data = d;
    return set;
}

int main(int argc, char **argv)
{
    const char *data_file = NULL;
    if (argc > 2 && strcmp(argv[1], "--data") == 0) {
        data_file = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: sim [--data FILE] GAME GAMES FULL [PLAYERS...]\n");
        return 2;
    }
    tb_data_set *boards = data_file ? sim_read_data(argv[1], data_file) : NULL;
    sim_boards = boards;
    const tb_game *game = tb_game_find(argv[1]);
    if (!game) {
        fprintf(stderr, "sim: unknown game %s\n", argv[1]);
        return 2;
    }
    sim_check_fn check = NULL;
    for (size_t i = 0; i < sizeof sim_checks / sizeof *sim_checks; i++)
        if (strcmp(sim_checks[i].game, argv[1]) == 0)
            check = sim_checks[i].check;
    if (!check) {
        fprintf(stderr, "sim: no invariant check for %s\n", argv[1]);
        return 2;
    }
    int games = atoi(argv[2]), full = atoi(argv[3]);
    int counts[TB_MAX_SEATS], ncounts = 0;
    for (int i = 4; i < argc && ncounts < TB_MAX_SEATS; i++)
        counts[ncounts++] = atoi(argv[i]);
    if (!ncounts)
        for (int p = tb_game_min_players(game); p <= tb_game_max_players(game); p++)
            counts[ncounts++] = p;
    long decisions = 0, played = 0, full_decisions = 0;
    tb_move legal[TB_MAX_MOVES];
    char err[TB_ERR_LEN];
    for (int k = 0; k < ncounts; k++) {
        int players = counts[k];
        for (int g = 0; g < games; g++) {
            tb_state *s = tb_state_new(game), *before = tb_state_new(game);
            tb_rng rng;
            tb_rng_seed(&rng, (uint64_t)g * 7919u + (uint64_t)players);
            if (tb_setup_data(s, sim_data, players, NULL, (uint64_t)g, err, sizeof err)) {
                sim_fail(argv[1], players, g, 0, err);
                break;
            }
            if (check(NULL, s, err, sizeof err))
                sim_fail(argv[1], players, g, 0, err);
            int d = 0;
            while (!tb_is_over(s) && d < 100000) {
                if (g < full) {
                    sim_decision_checks(s, &rng, argv[1], players, g, d);
                    full_decisions++;
                }
                int n = tb_legal(s, legal);
                if (n <= 0) {
                    sim_fail(argv[1], players, g, d, "no legal move but the game is not over");
                    break;
                }
                tb_move m = tb_random_move(s, &rng);
                bool listed = false;
                for (int i = 0; i < n && !listed; i++)
                    listed = legal[i] == m;
                if (!listed)
                    sim_fail(argv[1], players, g, d, "the random move is not in the legal list");
                for (int i = 1; i < n; i++)
                    if (legal[i - 1] == legal[i])
                        sim_fail(argv[1], players, g, d, "the legal list repeats a move");
                tb_state_copy(before, s);
                tb_state *twin = tb_state_dup(s);
                tb_apply(s, m);
                tb_apply(twin, m);
                if (!tb_state_equal(twin, s))
                    sim_fail(argv[1], players, g, d, "two equal states differ after the same move");
                tb_state_free(twin);
                if (check(before, s, err, sizeof err))
                    sim_fail(argv[1], players, g, d, err);
                sim_breakdown_check(s, argv[1], players, g, d);
                d++;
                decisions++;
            }
            if (!tb_is_over(s))
                sim_fail(argv[1], players, g, d, "the game did not end");
            else {
                if (g < full)
                    sim_decision_checks(s, &rng, argv[1], players, g, d);
                if (tb_legal(s, legal) != 0)
                    sim_fail(argv[1], players, g, d, "legal moves after the end");
            }
            played++;
            tb_state_free(before);
            tb_state_free(s);
        }
    }
    printf("sim %s%s%s: %ld games, %ld decisions checked, %ld of them with the JSON checks\n",
           argv[1], data_file ? " on " : "", data_file ? data_file : "", played, decisions,
           full_decisions);
    tb_data_set_free(boards);
    printf("%d passed, %d failed\n", sim_failures ? 0 : 1, sim_failures ? 1 : 0);
    return sim_failures ? 1 : 0;
}
