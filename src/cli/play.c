/*
 * play.c — `tabula play`: a game in the terminal.  Each seat is a person at
 * this keyboard or an agent; people type decisions in notation and a few
 * commands (legal, undo, board, help, quit).  The record is saved at the end
 * (and when input ends early) so `tabula replay` can show it again.
 *
 * At a terminal the prompt has line editing and history (libedit); `legal`
 * numbers the decisions in canonical order and a number picks one, so a
 * decision can be made without typing its notation.
 *
 * Invariants: only the seat to move sees its own secrets on screen (and with
 * two or more people at one screen the board waits for the next person to
 * press Enter); `undo` returns to the state before the person's previous
 * decision, taking back the computer's replies too; the record always
 * matches the decisions applied.
 */
#include "cli.h"
#include "lang.h"

#include <ctype.h>
#include <editline/readline.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

typedef struct play_seat {
    bool human;
    const tb_agent *agent;
    tb_budget budget;
    char label[112];
} play_seat;

typedef struct play_step {
    tb_state *before;
    bool by_human; /* a person chose it (not forced, not an agent) */
} play_step;

typedef struct play_game {
    tb_state *state;
    tb_record *record;
    play_seat seat[TB_MAX_SEATS];
    int humans;
    play_step *steps;
    int depth, cap;
    bool colour;
    bool hide_totals; /* --hide-totals, or the `totals` command */
    bool deduction;   /* --deduction: show the deduction aid at each person's turn */
    uint64_t agent_seed;
    const char *record_path;
    char default_path[128];
} play_game;

static int play_help(void)
{
    fputs(_("usage: tabula play GAME [--players N] [--seats SEAT,SEAT,...] [--seed S]\n"
           "                   [--board FILE] [--record FILE] [--no-colour] [--hide-totals]\n"
           "                   [--deduction] [KEY=VALUE ...]\n\n"
           "Plays GAME in the terminal.  SEAT is 'human', an agent ('random', or with the AI\n"
           "built in 'greedy', 'ismcts') optionally with a level ('ismcts:hard'), or a level\n"
           "alone ('easy', 'normal', 'hard').  The default is you in seat 1 against the\n"
           "computer in the other seats.  KEY=VALUE sets a game option.\n\n"
           "At your turn type a decision in notation (docs/notation.md), or:\n"
           "  legal [PREFIX]  list the legal decisions, numbered (those starting with\n"
           "                  PREFIX, numbers whole: 'legal 3' shows 3-8 but not 30-31)\n"
           "  N               the decision numbered N in that list\n"
           "  board           show the board again\n"
           "  totals          hide or show the other players' totals (also --hide-totals:\n"
           "                  Arkadia's gold and seals, public by the rules but kept behind\n"
           "                  screens at the table)\n"
           "  undo            take back your last decision (and the computer's replies)\n"
           "  hint            the computer's best few decisions for you, with estimated\n"
           "                  win rates\n"
           "  deduce          who probably holds which secret colour (Clans), judged from\n"
           "                  how everyone has played; --deduction shows it every turn\n"
           "  help            this list\n"
           "  quit            stop (the record is saved)\n\n"
           "--board FILE plays Khronos or Arkadia on the board and components of FILE\n"
           "(docs/data-format.md) instead of the built-in ones; a bad file is refused\n"
           "with its line and what is wrong.\n\n"
           "The record is saved to FILE (default tabula-GAME-SEED.json); replay it with\n"
           "'tabula replay FILE' (with the same --board FILE when the game used one).\n"),
          stdout);
    return 0;
}

static int play_parse_seat(const tb_game *game, const char *spec, play_seat *seat)
{
    memset(seat, 0, sizeof *seat);
    if (strcmp(spec, "human") == 0) {
        seat->human = true;
        snprintf(seat->label, sizeof seat->label, "%s", N_("human"));
        return 0;
    }
    char name[48];
    snprintf(name, sizeof name, "%s", spec);
    char *colon = strchr(name, ':');
    const char *level = NULL;
    if (colon) {
        *colon = '\0';
        level = colon + 1;
    }
    const tb_agent *level_agent = NULL;
    if (!colon && tb_level_lookup(game, name, &level_agent, &seat->budget) == 0) {
        seat->agent = level_agent;
        snprintf(seat->label, sizeof seat->label, "%s (%s)", level_agent->name, name);
        return 0;
    }
    seat->agent = tb_agent_find(name);
    if (!seat->agent)
        return -1;
    if (level) {
        if (tb_level_lookup(game, level, &level_agent, &seat->budget) != 0)
            return -1;
        snprintf(seat->label, sizeof seat->label, "%s:%s", name, level);
    } else {
        if (tb_level_lookup(game, "normal", &level_agent, &seat->budget) != 0)
            memset(&seat->budget, 0, sizeof seat->budget);
        snprintf(seat->label, sizeof seat->label, "%s", name);
    }
    return 0;
}

static void play_default_seats(const tb_game *game, play_game *pg, int players)
{
    play_parse_seat(game, "human", &pg->seat[0]);
    for (int i = 1; i < players; i++)
        if (play_parse_seat(game, "normal", &pg->seat[i]) != 0)
            play_parse_seat(game, "random", &pg->seat[i]);
}

/* The position before a decision, for undo; -1 when memory runs out. */
static int play_push(play_game *pg, bool by_human)
{
    if (pg->depth == pg->cap) {
        int cap = pg->cap ? pg->cap * 2 : 64;
        play_step *steps = realloc(pg->steps, (size_t)cap * sizeof *steps);
        if (!steps)
            return -1;
        pg->steps = steps;
        pg->cap = cap;
    }
    tb_state *before = tb_state_dup(pg->state);
    if (!before)
        return -1;
    pg->steps[pg->depth].before = before;
    pg->steps[pg->depth].by_human = by_human;
    pg->depth++;
    return 0;
}

/* Makes a legal decision with its undo step and record entry; when memory
 * runs out it says so and nothing changes (the seat is asked again). */
static void play_apply(play_game *pg, tb_move m, bool by_human)
{
    char text[TB_MOVE_TEXT], said[512];
    tb_move_to_text(pg->state, m, text, sizeof text);
    if (play_push(pg, by_human) != 0) {
        printf("%s\n", _("Out of memory: that decision was not made; nothing changed."));
        return;
    }
    if (tb_record_push(pg->record, text) != 0) {
        tb_state_free(pg->steps[--pg->depth].before);
        printf("%s\n", _("Out of memory: that decision was not made; nothing changed."));
        return;
    }
    /* the narration in the player's language (English: tb_narrate's words) */
    char *json = tb_narrate_json(pg->state, m, NULL);
    json_t *msg = json ? json_loads(json, 0, NULL) : NULL;
    char *text_said = cli_msg_text(msg);
    if (text_said)
        printf("%s.\n", text_said);
    else if (tb_narrate(pg->state, m, NULL, said, sizeof said) >= 0)
        printf("%s.\n", said);
    free(text_said);
    json_decref(msg);
    free(json);
    tb_apply(pg->state, m);
}

/* Takes back everything since the last decision a person made. */
static bool play_undo(play_game *pg)
{
    int k = pg->depth - 1;
    while (k >= 0 && !pg->steps[k].by_human)
        k--;
    if (k < 0)
        return false;
    tb_state_copy(pg->state, pg->steps[k].before);
    while (pg->depth > k) {
        tb_state_free(pg->steps[--pg->depth].before);
        tb_record_pop(pg->record);
    }
    return true;
}

static void play_save(play_game *pg)
{
    char when[40], err[TB_ERR_LEN];
    cli_iso_time(when, sizeof when);
    tb_record_set_times(pg->record, NULL, tb_is_over(pg->state) ? when : NULL);
    char *json = tb_record_json(pg->record, pg->state);
    const char *path = pg->record_path ? pg->record_path : pg->default_path;
    if (cli_write_file(path, json, err, sizeof err) == 0)
        cli_say(stdout, N_("Record saved to {path} (replay it with 'tabula replay {path}').\n"),
                "path:s", path);
    else
        fprintf(stderr, "tabula play: %s\n", err);
    free(json);
}

static void play_show(play_game *pg, int seat)
{
    unsigned flags = (pg->colour ? TB_RENDER_COLOUR : 0) | (pg->hide_totals ? TB_RENDER_HIDE_TOTALS : 0);
    char *board = tb_render_text_in(pg->state, seat, flags, cli_translate, NULL);
    printf("\n%s", board);
    free(board);
    /* the notice is about the built-in data, not a board file the player gave */
    const tb_data *data = tb_state_data(pg->state);
    const char *notice = !data || tb_data_is_builtin(data) ? tb_game_notice(tb_state_game(pg->state))
                                                           : NULL;
    if (notice)
        cli_say(stdout, N_("Note: {notice}\n"), "notice:s", _(notice));
}

/* Where a seat's points come from, one source a line (sources that gave
 * nothing left out), under its line of the result. */
static void play_show_breakdown(const tb_state *state, int seat)
{
    tb_score_part parts[TB_BREAKDOWN_MAX];
    int n = tb_score_breakdown(state, seat, parts);
    for (int i = 0; i < n; i++) {
        if (!parts[i].points)
            continue;
        const char *source = _(parts[i].source); /* the sources are msgids (N_) */
        int width = 0; /* characters, not bytes: "×" is two bytes */
        for (const char *c = source; *c; c++)
            width += ((unsigned char)*c & 0xc0) != 0x80;
        printf("       %s%*s %4d\n", source, width < 36 ? 36 - width : 0, "",
               parts[i].points);
    }
}

static void play_show_result(play_game *pg)
{
    play_show(pg, TB_SPECTATOR);
    int sc[TB_MAX_SEATS], rk[TB_MAX_SEATS];
    tb_scores(pg->state, sc);
    tb_ranks(pg->state, rk);
    printf("\n%s\n", _("Game over."));
    int players = tb_players(pg->state);
    for (int r = 1; r <= players; r++)
        for (int p = 0; p < players; p++)
            if (rk[p] == r) {
                cli_sayn(stdout, NP_("  {rank}. seat {seat} ({who}): {n} point",
                                     "  {rank}. seat {seat} ({who}): {n} points"),
                         sc[p], "rank:d seat:d who:s", r, p + 1, _(pg->seat[p].label));
                printf("%s\n", r == 1 ? _("  — winner") : "");
                play_show_breakdown(pg->state, p);
            }
}

/* True when `text` starts with `filter`, a number in it taken whole: "3"
 * matches "3-8" but not "30-31", "12-" any move from 12, "bu" "build …". */
static bool play_matches(const char *text, const char *filter)
{
    size_t n = strlen(filter);
    if (strncmp(text, filter, n) != 0)
        return false;
    return n == 0 || !isdigit((unsigned char)filter[n - 1]) || !isdigit((unsigned char)text[n]);
}

/* The width to wrap lists to: COLUMNS, else the terminal's, else 80. */
static int play_width(void)
{
    const char *env = getenv("COLUMNS");
    long cols;
    if (env && cli_parse_int(env, 20, 1000, &cols) == 0)
        return (int)cols;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* Prints the legal decisions matching `filter` ("" for all), numbered in
 * canonical order (a filter keeps the numbers) and set in columns that fit
 * the terminal's width. */
static void play_list_legal(const play_game *pg, const char *filter)
{
    tb_move moves[TB_MAX_MOVES];
    int n = tb_legal(pg->state, moves), shown = 0;
    static char text[TB_MAX_MOVES][TB_MOVE_TEXT];
    int pick[TB_MAX_MOVES];
    size_t cell = 0;
    for (int i = 0; i < n; i++) {
        tb_move_to_text(pg->state, moves[i], text[i], sizeof text[i]);
        if (!play_matches(text[i], filter))
            continue;
        char label[TB_MOVE_TEXT + 16];
        size_t len = (size_t)snprintf(label, sizeof label, "%d. %s", i + 1, text[i]);
        if (len > cell)
            cell = len;
        pick[shown++] = i;
    }
    if (!shown) {
        cli_say(stdout, N_("No legal decision starts with '{filter}'.\n"), "filter:s", filter);
        return;
    }
    cell += 3; /* at least three spaces between columns */
    int columns = (int)((size_t)play_width() / cell);
    if (columns < 1)
        columns = 1;
    for (int k = 0; k < shown; k++) {
        char label[TB_MOVE_TEXT + 16];
        snprintf(label, sizeof label, "%d. %s", pick[k] + 1, text[pick[k]]);
        bool last = (k + 1) % columns == 0 || k + 1 == shown;
        if (last)
            printf("%s\n", label);
        else
            printf("%-*s", (int)cell, label);
    }
}

/* One line from the person: with line editing and history (libedit) at a
 * terminal, a plain read otherwise (scripts, tests).  Trimmed; NULL at the
 * end of input. */
static char *play_read_line(const char *prompt)
{
    char *line = NULL;
    ssize_t n;
    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
        line = readline(prompt);
        if (!line)
            return NULL;
        n = (ssize_t)strlen(line);
    } else {
        fputs(prompt, stdout);
        fflush(stdout);
        size_t cap = 0;
        n = getline(&line, &cap, stdin);
        if (n < 0) {
            free(line);
            return NULL;
        }
    }
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        line[--n] = '\0';
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    memmove(line, p, strlen(p) + 1);
    if (*line && isatty(STDIN_FILENO))
        add_history(line);
    return line;
}

/* The position before the record's first decision (the history starts
 * there: tb_agent_decide_game, tb_inference_replay). */
static const tb_state *play_start(const play_game *pg)
{
    return pg->depth > 0 ? pg->steps[0].before : pg->state;
}

/* The computer's view of the person's best decisions: the search of the
 * `normal` level (greedy's one ply without it), from the person's view only. */
static void play_hint(play_game *pg)
{
    const tb_agent *agent = NULL;
    tb_budget budget;
    if (tb_level_lookup(tb_state_game(pg->state), "normal", &agent, &budget) != 0) {
        agent = tb_agent_find("greedy");
        memset(&budget, 0, sizeof budget);
    }
    if (!agent) {
        printf("%s\n", _("No hints: this build has no AI."));
        return;
    }
    budget.now_us = cli_now_us;
    tb_agent_report report;
    tb_agent_decide_game(agent, pg->state, play_start(pg), pg->record, &budget, TB_INFER_RULE,
                         pg->agent_seed ^ 0x48494e54u ^ (uint64_t)tb_decisions_made(pg->state),
                         &report, NULL);
    char iterations[32];
    snprintf(iterations, sizeof iterations, "%lld", (long long)report.iterations);
    cli_say(stdout,
            N_("Best decisions for you ({agent}, {iterations} iterations; win rate as estimated by the search):\n"),
            "agent:s iterations:s", agent->name, iterations);
    int shown = report.count < 5 ? report.count : 5;
    for (int i = 0; i < shown; i++) {
        char text[TB_MOVE_TEXT];
        tb_move_to_text(pg->state, report.move[i], text, sizeof text);
        printf("  %d. %-12s %3.0f%%", i + 1, text, 100.0 * report.value[i]);
        if (report.visits[i] > 0)
            cli_sayn(stdout, NP_("  ({n} visit)", "  ({n} visits)"),
                     report.visits[i] > 1000000000 ? 1000000000 : (int)report.visits[i], "");
        printf("\n");
    }
}

/* The deduction aid (games with secret roles: Clans's colours): what the
 * play so far suggests about who holds which role, as `seat` may see it:
 * the inference of docs/ai.md rebuilt from the record (so it follows undo),
 * and the seat's own role.  Nothing of any other seat's secret is read. */
static void play_deduce(const play_game *pg, int seat)
{
    const tb_game *g = tb_state_game(pg->state);
    int roles = tb_role_count(g), players = tb_players(pg->state);
    if (roles == 0) {
        cli_say(stdout, N_("Nothing to deduce: in {game} nobody holds a secret role.\n"), "game:s",
                tb_game_title(g));
        return;
    }
    if (tb_is_over(pg->state)) {
        printf("%s\n", _("The game is over: every colour is shown."));
        return;
    }
    tb_inference *inf = tb_inference_replay(play_start(pg), pg->record);
    if (!inf) {
        printf("%s\n", _("No deduction available now."));
        return;
    }
    if (tb_inference_decisions(inf) == 0) {
        printf("%s\n", _("Deduction: nobody has played yet, so every colour but yours is equally likely."));
        tb_inference_free(inf);
        return;
    }
    cli_say(stdout,
            N_("Deduction from how everyone has played so far (a guess, not a certainty; you are {colour}):\n"),
            "colour:s", _(tb_role_name(g, tb_role_of(pg->state, seat))));
    for (int other = 0; other < players; other++) {
        if (other == seat)
            continue;
        tb_role_chance c[TB_MAX_SEATS * 2 + 8];
        int n = tb_inference_chances(inf, pg->state, seat, other, c, (int)(sizeof c / sizeof c[0]));
        if (n <= 0)
            continue;
        int from = 0;
        if (c[0].chance >= 0.5) {
            cli_say(stdout, N_("  {colour} is probably seat {seat} ({who}): {chance}"),
                    "colour:s seat:d who:s chance:s", _(tb_role_name(g, c[0].role)), other + 1,
                    pg->seat[other].label, c[0].words);
            from = 1;
        } else {
            cli_say(stdout, N_("  seat {seat} ({who}): no clear sign yet"), "seat:d who:s", other + 1,
                    pg->seat[other].label);
        }
        for (int i = from; i < n; i++)
            printf("%s%s %s", i == from ? (from ? _(" (otherwise ") : " (") : ", ",
                   _(tb_role_name(g, c[i].role)), c[i].words);
        printf("%s\n", from < n ? ")" : "");
    }
    tb_inference_free(inf);
}

/* Whether the person typed the command `word`, in English or in the
 * language spoken ("ayuda" as well as "help"). */
static bool play_is(const char *line, const char *word)
{
    return strcmp(line, word) == 0 || strcmp(line, _(word)) == 0;
}

/* The same for a command with an argument after a space ("legal 12"). */
static bool play_is_prefix(const char *line, const char *word)
{
    const char *words[2] = {word, _(word)};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(words[i]);
        if (strncmp(line, words[i], n) == 0 && line[n] == ' ')
            return true;
    }
    return false;
}

/* What the seat to move must decide now, in the player's language. */
static void play_prompt(const play_game *pg)
{
    char *json = tb_prompt_json(pg->state);
    json_t *msg = json ? json_loads(json, 0, NULL) : NULL;
    char *text = cli_msg_text(msg);
    if (text) {
        printf("%s\n", text);
    } else {
        char prompt[200];
        tb_prompt_text(pg->state, prompt, sizeof prompt);
        printf("%s\n", prompt);
    }
    free(text);
    json_decref(msg);
    free(json);
}

/* One person's turn.  Returns 1 when a decision was made, 0 to quit. */
static int play_human_turn(play_game *pg, int seat)
{
    static bool shown_help;
    play_show(pg, seat);
    if (pg->deduction)
        play_deduce(pg, seat);
    if (!shown_help) {
        printf("%s\n", _("(type a decision, or 'legal', 'hint', 'undo', 'help', 'quit')"));
        shown_help = true;
    }
    for (;;) {
        play_prompt(pg);
        char *line = play_read_line("> ");
        if (!line) {
            printf("\n%s\n", _("(input ended)"));
            return 0;
        }
        int rc = -1;
        if (!*line) {
            /* an empty line: ask again */
        } else if (play_is(line, N_("quit")) || strcmp(line, "exit") == 0) {
            rc = 0;
        } else if (play_is(line, N_("help")) || strcmp(line, "?") == 0) {
            fputs(_("Type a decision in notation (see docs/notation.md), or one of:\n"
                   "  legal         every legal decision now, numbered\n"
                   "  legal PREFIX  the legal decisions starting with PREFIX, numbers whole\n"
                   "                ('legal 3' shows 3-8, not 30-31; 'legal bu' every build)\n"
                   "  N             the decision numbered N by 'legal'\n"
                   "  board         show the board again\n"
                   "  totals        hide or show the other players' totals (Arkadia's gold)\n"
                   "  undo          take back your last decision\n"
                   "  hint          the computer's best few decisions for you, with estimated\n"
                   "                win rates\n"
                   "  deduce        who probably holds which secret colour (Clans), from play\n"
                   "  quit          stop and save the record\n"),
                  stdout);
        } else if (play_is(line, N_("legal")) || play_is_prefix(line, N_("legal"))) {
            const char *space = strchr(line, ' ');
            play_list_legal(pg, space ? space + 1 : "");
        } else if (play_is(line, N_("board"))) {
            play_show(pg, seat);
        } else if (play_is(line, N_("hint"))) {
            play_hint(pg);
        } else if (play_is(line, N_("deduce"))) {
            play_deduce(pg, seat);
        } else if (play_is(line, N_("totals"))) {
            pg->hide_totals = !pg->hide_totals;
            printf("%s\n", pg->hide_totals ? _("Other players' totals are now hidden.")
                                           : _("Other players' totals are now shown."));
            play_show(pg, seat);
        } else if (play_is(line, N_("undo"))) {
            if (play_undo(pg)) {
                free(line);
                return 1; /* the loop shows the restored position */
            }
            printf("%s\n", _("There is nothing of yours to undo yet."));
        } else if (line[strspn(line, "0123456789")] == '\0') {
            /* a number: the decision with that number in `legal` */
            tb_move moves[TB_MAX_MOVES];
            int n = tb_legal(pg->state, moves);
            long k;
            if (cli_parse_int(line, 1, n, &k) == 0) {
                char text[TB_MOVE_TEXT];
                tb_move_to_text(pg->state, moves[k - 1], text, sizeof text);
                cli_say(stdout, N_("You play {move}.\n"), "move:s", text);
                play_apply(pg, moves[k - 1], true);
                rc = 1;
            } else {
                cli_sayn(stdout,
                         NP_("There is {n} legal decision now, numbered 1 to {n} ('legal' lists them).\n",
                             "There are {n} legal decisions now, numbered 1 to {n} ('legal' lists them).\n"),
                         n, "");
            }
        } else {
            char err[TB_ERR_LEN];
            tb_move m;
            if (tb_text_to_move(pg->state, line, &m, err, sizeof err) == 0) {
                play_apply(pg, m, true);
                rc = 1;
            } else {
                printf("%s\n", err);
            }
        }
        free(line);
        if (rc >= 0)
            return rc;
    }
}

static void play_agent_turn(play_game *pg, int seat)
{
    tb_agent_report report;
    tb_budget budget = pg->seat[seat].budget;
    tb_move m = tb_agent_decide_game(pg->seat[seat].agent, pg->state, play_start(pg), pg->record,
                                     &budget, TB_INFER_RULE,
                                     pg->agent_seed + (uint64_t)tb_decisions_made(pg->state),
                                     &report, NULL);
    play_apply(pg, m, false);
}

static void play_wait_for(play_game *pg, int seat)
{
    if (pg->humans < 2 || !isatty(STDIN_FILENO))
        return;
    printf("\n\n");
    cli_say(stdout, N_("---- Seat {seat}, your turn: press Enter when only you can see the screen ----"),
            "seat:d", seat + 1);
    fflush(stdout);
    free(play_read_line(""));
    printf("\033[2J\033[H");
}

int cmd_play(int argc, char **argv)
{
    cli_lang_init();
    play_game pg;
    memset(&pg, 0, sizeof pg);
    const char *game_name = NULL, *seats_arg = NULL, *board_arg = NULL;
    long players = 0;
    uint64_t seed = 0;
    bool have_seed = false, no_colour = false;
    tb_options opts;
    tb_options_clear(&opts);
    char err[TB_ERR_LEN];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return play_help();
        if (strcmp(a, "--players") == 0 || strcmp(a, "--seats") == 0 || strcmp(a, "--seed") == 0 ||
            strcmp(a, "--record") == 0 || strcmp(a, "--board") == 0) {
            if (i + 1 >= argc)
                return cli_usage("play", "%s needs a value", a);
            const char *v = argv[++i];
            if (strcmp(a, "--players") == 0) {
                if (cli_parse_int(v, 1, 99, &players))
                    return cli_usage("play", "--players must be a number, not '%s'", v);
            } else if (strcmp(a, "--seats") == 0) {
                seats_arg = v;
            } else if (strcmp(a, "--board") == 0) {
                board_arg = v;
            } else if (strcmp(a, "--seed") == 0) {
                if (cli_parse_u64(v, &seed))
                    return cli_usage("play", "--seed must be a whole number, not '%s'", v);
                have_seed = true;
            } else {
                pg.record_path = v;
            }
        } else if (strcmp(a, "--no-colour") == 0 || strcmp(a, "--no-color") == 0) {
            no_colour = true;
        } else if (strcmp(a, "--hide-totals") == 0) {
            pg.hide_totals = true;
        } else if (strcmp(a, "--deduction") == 0) {
            pg.deduction = true;
        } else if (a[0] == '-') {
            return cli_usage("play", "unknown option '%s'", a);
        } else if (strchr(a, '=')) {
            if (tb_options_set_pair(&opts, a, err, sizeof err))
                return cli_usage("play", "%s", err);
        } else if (!game_name) {
            game_name = a;
        } else {
            return cli_usage("play", "unexpected argument '%s'", a);
        }
    }
    if (!game_name)
        return cli_usage("play", "which game? (e.g. 'tabula play clans')");
    const tb_game *g = cli_game_arg("play", game_name);
    if (!g)
        return 2;
    int nseats = 0;
    if (seats_arg) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", seats_arg);
        char *save = NULL;
        for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            if (nseats >= TB_MAX_SEATS)
                return cli_usage("play", "too many seats in --seats");
            if (play_parse_seat(g, w, &pg.seat[nseats]) != 0) {
                char known[200] = "human";
                for (int k = 0; k < tb_agent_count(); k++) {
                    size_t used = strlen(known);
                    snprintf(known + used, sizeof known - used, ", %s", tb_agent_at(k)->name);
                }
                return cli_usage("play", "unknown seat '%s' (seats: %s; levels easy, normal, hard where the AI is built in)", w, known);
            }
            nseats++;
        }
        if (players && players != nseats)
            return cli_usage("play", "--players %ld but --seats names %d seats", players, nseats);
        players = nseats;
    }
    if (!players)
        players = tb_game_default_players(g);
    if (players < tb_game_min_players(g) || players > tb_game_max_players(g))
        return cli_usage("play", "%s is for %d to %d players, not %ld", tb_game_name(g),
                         tb_game_min_players(g), tb_game_max_players(g), players);
    if (!seats_arg)
        play_default_seats(g, &pg, (int)players);
    if (!have_seed)
        seed = cli_random_seed();
    tb_data_set *boards = tb_data_set_new(); /* alive until the game is over */
    const tb_data *data = NULL;
    if (board_arg) {
        data = cli_board_arg(boards, g, board_arg, err, sizeof err);
        if (!data) {
            tb_data_set_free(boards);
            return cli_usage("play", "%s", err);
        }
    }
    pg.state = tb_state_new(g);
    if (tb_setup_data(pg.state, data, (int)players, &opts, seed, err, sizeof err)) {
        tb_state_free(pg.state);
        tb_data_set_free(boards);
        return cli_usage("play", "%s", err);
    }
    tb_options norm;
    tb_state_options(pg.state, &norm);
    pg.record = tb_record_new(g, (int)players, &norm, seed);
    tb_record_set_data(pg.record, data);
    char when[40];
    cli_iso_time(when, sizeof when);
    tb_record_set_times(pg.record, when, NULL);
    for (int i = 0; i < players; i++) {
        pg.humans += pg.seat[i].human;
        /* kept English in the record (replay shows them in the reader's language) */
        const char *name = pg.seat[i].human ? (pg.humans == 1 ? N_("you") : N_("player"))
                                            : pg.seat[i].label;
        tb_record_set_player(pg.record, i, name, pg.seat[i].human ? "human" : pg.seat[i].label);
    }
    pg.colour = !no_colour && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    pg.agent_seed = seed * 1000003u + 17;
    snprintf(pg.default_path, sizeof pg.default_path, "tabula-%s-%llu.json", tb_game_name(g),
             (unsigned long long)seed);
    char seed_text[32];
    snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
    cli_say(stdout, N_("{game}, {players} players, seed {seed}"), "game:s players:d seed:s",
            tb_game_title(g), (int)players, seed_text);
    if (data)
        cli_say(stdout, N_(", on the board '{board}' ({hash})"), "board:s hash:s", tb_data_name(data),
                tb_data_hash(data));
    printf(".");
    for (int i = 0; i < players; i++) {
        printf("%s ", i ? "," : "");
        cli_say(stdout, N_("seat {seat}: {who}"), "seat:d who:s", i + 1, _(pg.seat[i].label));
    }
    printf("\n");
    bool quit = false;
    while (!tb_is_over(pg.state) && !quit) {
        int seat = tb_to_move(pg.state);
        if (pg.seat[seat].human) {
            tb_move only[TB_MAX_MOVES];
            if (tb_legal(pg.state, only) == 1) {
                cli_say(stdout, N_("(seat {seat} has only one choice)\n"), "seat:d", seat + 1);
                play_apply(&pg, only[0], false);
                continue;
            }
            play_wait_for(&pg, seat);
            if (play_human_turn(&pg, seat) == 0)
                quit = true;
        } else {
            play_agent_turn(&pg, seat);
        }
    }
    if (tb_is_over(pg.state))
        play_show_result(&pg);
    play_save(&pg);
    while (pg.depth > 0)
        tb_state_free(pg.steps[--pg.depth].before);
    free(pg.steps);
    tb_record_free(pg.record);
    tb_state_free(pg.state);
    tb_data_set_free(boards);
    return 0;
}
