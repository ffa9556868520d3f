/*
 * main.c — the `tabula` command: a table of sub-commands, each in its own
 * file.  Adding a command: write cmd_X in a new file, declare it in cli.h,
 * list it here.
 */
#include "cli.h"
#include "engine/engine.h"

#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} main_commands[] = {
    {"play", cmd_play, "play a game in the terminal against the computer or at one screen"},
    {"engine", cmd_engine, "speak the engine line protocol on stdin/stdout (docs/protocol.md)"},
    {"replay", cmd_replay, "step through a saved game record"},
    {"review", cmd_review, "review a saved game: win rates, the computer's preferred decisions, mistakes"},
    {"bench", cmd_bench, "measure random playouts per second"},
    {"serve", cmd_serve, "serve the browser UI and live games over HTTP (docs/http-api.md)"},
    {"match", cmd_match, "play a seeded tournament between agents: win rates, intervals, Elo"},
    {"selfplay", cmd_selfplay, "play an agent against itself and write training data (.npz)"},
    {"loadtest", cmd_loadtest, "load a server with many games played over WebSockets; measure it"},
};

#define MAIN_COMMAND_COUNT (sizeof main_commands / sizeof main_commands[0])

static void main_help(FILE *out)
{
    fprintf(out, "tabula %s — engine, AI and play for Clans, Arkadia and Khronos\n\n", TB_VERSION);
    fprintf(out, "usage: tabula COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < MAIN_COMMAND_COUNT; i++)
        fprintf(out, "  %-8s %s\n", main_commands[i].name, main_commands[i].summary);
    fprintf(out, "\ngames:");
    for (int i = 0; i < tb_game_count(); i++)
        fprintf(out, " %s", tb_game_name(tb_game_at(i)));
    fprintf(out, "\n\n'tabula COMMAND --help' explains a command.\n");
}

int cmd_engine(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        printf("usage: tabula engine [--data-dir DIR]\n\n"
               "Reads protocol commands from stdin, one per line, and answers on stdout:\n"
               "'= payload' or '? error', then an empty line (protocol version 2: 'legal'\n"
               "prints one decision per line).  Start with 'help' or 'new clans players=4\n"
               "seed=1'.  The protocol is described in docs/protocol.md.\n\n"
               "--data-dir DIR loads the board files DIR/GAME/NAME.txt (docs/data-format.md);\n"
               "'new khronos board=NAME' then plays on one of them.  A bad file stops the\n"
               "engine before it starts, naming the file and the line.\n");
        return 0;
    }
    const char *data_dir = NULL;
    if (argc > 2 && strcmp(argv[1], "--data-dir") == 0)
        data_dir = argv[2];
    else if (argc > 1)
        return cli_usage("engine", "unexpected argument '%s'", argv[1]);
    if (argc > 3)
        return cli_usage("engine", "unexpected argument '%s'", argv[3]);
    tb_data_set *boards = tb_data_set_new();
    char err[TB_ERR_LEN];
    if (data_dir && cli_load_data_dir(boards, data_dir, err, sizeof err)) {
        fprintf(stderr, "tabula engine: %s\n", err);
        tb_data_set_free(boards);
        return 1;
    }
    int rc = tb_engine_run(stdin, stdout, cli_now_us, boards);
    tb_data_set_free(boards);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        main_help(stderr);
        return 2;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        main_help(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("tabula %s\n", TB_VERSION);
        return 0;
    }
    for (size_t i = 0; i < MAIN_COMMAND_COUNT; i++)
        if (strcmp(argv[1], main_commands[i].name) == 0)
            return main_commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tabula: unknown command '%s' (see 'tabula --help')\n", argv[1]);
    return 2;
}
