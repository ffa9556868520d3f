/*
 * replay.c — `tabula replay FILE`: reads a game record, replays it through
 * the rules (so a record that does not replay is reported, not shown), and
 * steps through it: Enter or 'n' for the next decision, 'b' back, a number
 * to jump, 'e' to the end, 'q' to quit.  Commands come from stdin, so the
 * stepping is scriptable too; --to N prints one position and exits.
 */
#include "cli.h"
#include "lang.h"

#include <jansson.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int replay_help(void)
{
    fputs(_("usage: tabula replay FILE [--to N] [--seat S] [--board FILE] [--data-dir DIR]\n"
           "                     [--no-colour]\n\n"
           "Shows a saved game record decision by decision.  Commands (one per line):\n"
           "  Enter or n  next decision     b  back one     N  jump to decision N\n"
           "  s  start     e  end           q  quit\n"
           "--to N prints the position after N decisions and exits.  --seat S shows\n"
           "the board as seat S (1 to the number of players) saw it (default:\n"
           "everything, as a referee).\n"
           "A game played on a board file (Khronos, Arkadia) replays only on that very\n"
           "file: give it with --board FILE, or the folder of board files with\n"
           "--data-dir DIR (docs/data-format.md).\n"),
          stdout);
    return 0;
}

/* The boards a record may name (--board, --data-dir); kept for the run. */
static tb_data_set *replay_boards;

/* A player's name as the replay shows it: the names `tabula play` gives
 * the people at its keyboard ("you", "player") in the reader's language. */
static const char *replay_name(const tb_record *rec, int seat)
{
    const char *name = tb_record_player_name(rec, seat);
    const char *kind = tb_record_player_kind(rec, seat);
    if (name && kind && strcmp(kind, "human") == 0 &&
        (strcmp(name, N_("you")) == 0 || strcmp(name, N_("player")) == 0))
        return _(name);
    return name;
}

static void replay_show(const tb_record *rec, int at, int seat, bool colour)

{
    char err[TB_ERR_LEN];
    tb_state *s = tb_record_replay_in(rec, at, replay_boards, err, sizeof err);
    if (!s)
        return;
    char *board = tb_render_text_in(s, seat, colour ? TB_RENDER_COLOUR : 0, cli_translate, NULL);
    printf("\n%s", board);
    free(board);
    int n = tb_record_length(rec);
    /* The board already ends with the last move's notation; here it is in words. */
    tb_state *before = at > 0 ? tb_record_replay_in(rec, at - 1, replay_boards, err, sizeof err) : NULL;
    tb_move m;
    char *said = NULL;
    if (before && tb_text_to_move(before, tb_record_move(rec, at - 1), &m, err, sizeof err) == 0) {
        const char *names[TB_MAX_SEATS] = {0};
        for (int i = 0; i < tb_record_players(rec); i++)
            names[i] = replay_name(rec, i);
        char *json = tb_narrate_json(before, m, names);
        json_t *msg = json ? json_loads(json, 0, NULL) : NULL;
        said = cli_msg_text(msg);
        json_decref(msg);
        free(json);
    }
    tb_state_free(before);
    if (at > 0 && said && said[0])
        cli_say(stdout, N_("Decision {at} of {n}: {said}\n"), "at:d n:d said:s", at, n, said);
    else if (at > 0)
        cli_say(stdout, N_("Decision {at} of {n}\n"), "at:d n:d", at, n);
    else
        cli_sayn(stdout, NP_("Start of the game ({n} decision recorded)\n",
                             "Start of the game ({n} decisions recorded)\n"), n, "");
    free(said);
    if (tb_is_over(s)) {
        int score[TB_MAX_SEATS];
        tb_scores(s, score);
        printf("%s", _("Result:"));
        for (int i = 0; i < tb_record_players(rec); i++)
            printf("%s %s %d", i ? "," : "", replay_name(rec, i), score[i]);
        printf("\n");
    }
    tb_state_free(s);
}

/* The record's "takebacks" (docs/records.md: a person took a turn back
 * against the computer on the server), or NULL; the moves are the game as
 * it stands, so replaying needs none of it. */
static json_t *replay_takebacks(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    json_t *list = json_incref(json_object_get(j, "takebacks"));
    json_decref(j);
    if (!json_is_array(list)) {
        json_decref(list);
        return NULL;
    }
    return list;
}

static void replay_say_takebacks(const tb_record *rec, const json_t *list)
{
    size_t i;
    const json_t *t;
    json_array_foreach(list, i, t) {
        json_int_t seat = json_integer_value(json_object_get(t, "seat"));
        json_int_t after = json_integer_value(json_object_get(t, "after"));
        size_t count = json_array_size(json_object_get(t, "moves"));
        const char *name = seat >= 0 && seat < tb_record_players(rec)
                               ? tb_record_player_name(rec, (int)seat)
                               : NULL;
        cli_sayn(stdout, NP_("Taken back: {who} went back to decision {after}, {n} decision undone",
                             "Taken back: {who} went back to decision {after}, {n} decisions undone"),
                 (int)count, "who:s after:d", name && *name ? name : _("a player"), (int)after);
        printf("%s\n", json_is_true(json_object_get(t, "revealed"))
                           ? _(" (something hidden had been shown: they played on knowing it)")
                           : "");
    }
}

int cmd_replay(int argc, char **argv)
{
    cli_lang_init();
    const char *path = NULL, *board_file = NULL, *data_dir = NULL;
    long to = -1, seat = TB_SPECTATOR;
    bool no_colour = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return replay_help();
        if (strcmp(a, "--to") == 0 || strcmp(a, "--seat") == 0) {
            if (i + 1 >= argc)
                return cli_usage("replay", "%s needs a number", a);
            long *dst = strcmp(a, "--to") == 0 ? &to : &seat;
            if (cli_parse_int(argv[++i], dst == &seat ? 1 : 0, 1000000, dst))
                return cli_usage("replay", "%s needs a number%s, not '%s'", a,
                                 dst == &seat ? " from 1" : "", argv[i]);
            if (dst == &seat)
                seat--; /* seats are counted from 1 on the command line */
        } else if (strcmp(a, "--board") == 0 || strcmp(a, "--data-dir") == 0) {
            if (i + 1 >= argc)
                return cli_usage("replay", "%s needs a %s", a, a[2] == 'b' ? "file" : "folder");
            *(a[2] == 'b' ? &board_file : &data_dir) = argv[++i];
        } else if (strcmp(a, "--no-colour") == 0 || strcmp(a, "--no-color") == 0) {
            no_colour = true;
        } else if (a[0] == '-') {
            return cli_usage("replay", "unknown option '%s'", a);
        } else if (!path) {
            path = a;
        } else {
            return cli_usage("replay", "unexpected argument '%s'", a);
        }
    }
    if (!path)
        return cli_usage("replay", "which record file?");
    char err[TB_ERR_LEN];
    char *text = tb_file_read(path, NULL, err, sizeof err);
    if (!text) {
        fprintf(stderr, "tabula replay: %s\n", err);
        return 1;
    }
    tb_record *rec = tb_record_from_json(text, err, sizeof err);
    json_t *takebacks = rec ? replay_takebacks(text) : NULL;
    free(text);
    if (!rec) {
        fprintf(stderr, "tabula replay: %s: %s\n", path, err);
        return 1;
    }
    tb_data_set *boards = tb_data_set_new();
    replay_boards = boards;
    if ((data_dir && cli_load_data_dir(boards, data_dir, err, sizeof err)) ||
        (board_file && !cli_board_arg(boards, tb_record_game(rec), board_file, err, sizeof err))) {
        fprintf(stderr, "tabula replay: %s\n", err);
        tb_record_free(rec);
        tb_data_set_free(boards);
        return 1;
    }
    tb_state *check = tb_record_replay_in(rec, -1, replay_boards, err, sizeof err);
    if (!check) {
        fprintf(stderr, "tabula replay: %s: %s\n", path, err);
        tb_record_free(rec);
        tb_data_set_free(boards);
        return 1;
    }
    tb_state_free(check);
    if (seat >= tb_record_players(rec)) {
        int players = tb_record_players(rec);
        tb_record_free(rec);
        tb_data_set_free(boards);
        return cli_usage("replay", "--seat must be 1 to %d", players);
    }
    bool colour = !no_colour && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    int n = tb_record_length(rec);
    cli_say(stdout, N_("{game}, {players} players:"), "game:s players:d",
            tb_game_title(tb_record_game(rec)), tb_record_players(rec));
    for (int i = 0; i < tb_record_players(rec); i++) {
        printf("%s ", i ? "," : "");
        cli_say(stdout, N_("seat {seat} {who} ({kind})"), "seat:d who:s kind:s", i + 1,
                replay_name(rec, i), _(tb_record_player_kind(rec, i)));
    }
    printf("\n");
    replay_say_takebacks(rec, takebacks);
    json_decref(takebacks);
    if (to >= 0) {
        replay_show(rec, to > n ? n : (int)to, (int)seat, colour);
        tb_record_free(rec);
        tb_data_set_free(boards);
        return 0;
    }
    int at = 0;
    replay_show(rec, at, (int)seat, colour);
    for (;;) {
        fputs(_("[n]ext [b]ack [s]tart [e]nd N [q]uit > "), stdout);
        fflush(stdout);
        char line[64];
        if (!fgets(line, sizeof line, stdin)) {
            printf("\n");
            break;
        }
        line[strcspn(line, "\r\n")] = '\0';
        long jump;
        if (!line[0] || strcmp(line, "n") == 0) {
            if (at < n)
                at++;
            else
                printf("%s\n", _("(this is the end of the game)"));
        } else if (strcmp(line, "b") == 0) {
            if (at > 0)
                at--;
        } else if (strcmp(line, "s") == 0) {
            at = 0;
        } else if (strcmp(line, "e") == 0) {
            at = n;
        } else if (strcmp(line, "q") == 0) {
            break;
        } else if (cli_parse_int(line, 0, n, &jump) == 0) {
            at = (int)jump;
        } else {
            cli_say(stdout, N_("'{command}' is not a replay command (n, b, s, e, a number 0-{n}, q)\n"),
                    "command:s n:d", line, n);
            continue;
        }
        replay_show(rec, at, (int)seat, colour);
    }
    tb_record_free(rec);
    tb_data_set_free(boards);
    return 0;
}
