/*
 * review.c — `tabula review RECORD.json`: reviews the decisions of a saved
 * game with the search (tb_review_record, docs/ai.md "Game review") and
 * prints a table people read, or one JSON object per reviewed decision.
 *
 * Seats are counted from 1 on the command line and in the table; the JSON
 * keeps the library's 0-based `seat` and `index` (docs/ai.md says so) and adds
 * the player's name.  A progress bar goes to stderr only when stderr is a
 * terminal.  A record that cannot be read or replayed is an error (exit 1)
 * before any search.
 */
#include "cli.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int review_help(void)
{
    printf("usage: tabula review RECORD.json [--seat S] [--iterations N] [--threads T]\n"
           "                     [--seed N] [--board FILE] [--data-dir DIR] [--json] [--quiet]\n\n"
           "Reviews a saved game with the computer's search: for each decision (of every\n"
           "seat, or of seat S, 1 to the number of players) the player's estimated win\n"
           "rate before it and after it, the decision the search prefers with its win\n"
           "rate, the loss, and a mark on decisions that lost more than 10 points\n"
           "(\"mistake\") or 20 points (\"blunder\").  Each decision is searched only from\n"
           "what its player knew then: secrets it could not see are re-dealt.\n\n"
           "  --board FILE    the board file a Khronos or Arkadia game was played on\n"
           "  --data-dir DIR  or the folder of board files (docs/data-format.md)\n"
           "  --iterations N  search iterations per decision (default %d)\n"
           "  --threads T     threads per search (default 1)\n"
           "  --seed N        the review's seed (default 1); the same seed, iterations\n"
           "                  and threads give the same review\n"
           "  --json          one JSON object per reviewed decision (docs/ai.md)\n"
           "  --quiet         no progress bar (it is shown only when stderr is a terminal)\n",
           TB_REVIEW_ITERATIONS);
    return 0;
}

typedef struct review_progress_bar {
    uint64_t start;
} review_progress_bar;

static int review_progress(void *ctx, int done, int total)
{
    review_progress_bar *bar = ctx;
    double elapsed = (double)(cli_now_us() - bar->start) / 1e6;
    double eta = done ? elapsed / done * (total - done) : 0.0;
    int width = 30, filled = total ? (int)((long)width * done / total) : width;
    char line[64];
    for (int i = 0; i < width; i++)
        line[i] = i < filled ? '#' : '.';
    line[width] = '\0';
    fprintf(stderr, "\r[%s] %d/%d decisions  %.0fs elapsed  ETA %.0fs   ", line, done, total,
            elapsed, eta);
    fflush(stderr);
    return 0;
}

static void review_print_json(const tb_review *r, const tb_record *rec)
{
    for (int i = 0; i < r->count; i++) {
        char *text = tb_review_entry_json(&r->entry[i]);
        json_t *j = text ? json_loads(text, 0, NULL) : NULL;
        free(text);
        if (!j)
            continue;
        json_object_set_new(j, "player",
                            json_string(tb_record_player_name(rec, r->entry[i].seat)));
        char *line = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        if (line)
            printf("%s\n", line);
        free(line);
        json_decref(j);
    }
}

static void review_print_table(const tb_review *r, const tb_record *rec, int seat,
                               const tb_budget *budget, uint64_t seed)
{
    int players = tb_record_players(rec);
    printf("%s, %d players:", tb_game_title(tb_record_game(rec)), players);
    for (int i = 0; i < players; i++)
        printf("%s seat %d %s", i ? "," : "", i + 1, tb_record_player_name(rec, i));
    printf("\n");
    if (seat >= 0)
        printf("Review of %s's decisions", tb_record_player_name(rec, seat));
    else
        printf("Review of every decision");
    printf(" (%lld iterations a search, seed %llu).\n", (long long)budget->iterations,
           (unsigned long long)seed);
    printf("Win rate: the search's estimated chance of winning for the player who decided,\n"
           "before the decision (with the preferred decision) and after the one played.\n\n");
    printf("%5s  %-14s %-16s %7s %7s  %-16s %6s  %s\n", "#", "player", "played", "before",
           "after", "preferred", "loss", "mark");
    int mistakes[TB_MAX_SEATS] = {0}, blunders[TB_MAX_SEATS] = {0};
    for (int i = 0; i < r->count; i++) {
        const tb_review_entry *e = &r->entry[i];
        const char *mark = tb_review_mark_name(e->mark);
        bool same = e->played == e->best;
        printf("%5d  %-14.14s %-16s %6.1f%% %6.1f%%  %-16s %5.1f%%  %s\n", e->index + 1,
               tb_record_player_name(rec, e->seat), e->played_text, 100 * e->before,
               100 * e->after, same ? "(the same)" : e->best_text, 100 * e->loss,
               mark ? mark : "");
        if (e->mark == TB_REVIEW_MISTAKE_MARK)
            mistakes[e->seat]++;
        if (e->mark == TB_REVIEW_BLUNDER_MARK)
            blunders[e->seat]++;
    }
    printf("\n");
    for (int p = 0; p < players; p++) {
        if (seat >= 0 && p != seat)
            continue;
        printf("Seat %d %s: %d mistake%s, %d blunder%s", p + 1, tb_record_player_name(rec, p),
               mistakes[p], mistakes[p] == 1 ? "" : "s", blunders[p], blunders[p] == 1 ? "" : "s");
        if (r->over)
            printf("; result %.0f%% of a win", 100 * r->final[p]);
        printf("\n");
    }
    if (!r->over)
        printf("The game in this record has not ended.\n");
}

int cmd_review(int argc, char **argv)
{
    const char *path = NULL, *board_file = NULL, *data_dir = NULL;
    long seat = -1, iterations = TB_REVIEW_ITERATIONS, threads = 1;
    uint64_t seed = 1;
    bool json = false, quiet = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a))
            return review_help();
        if (strcmp(a, "--seat") == 0 || strcmp(a, "--iterations") == 0 ||
            strcmp(a, "--threads") == 0 || strcmp(a, "--seed") == 0) {
            if (i + 1 >= argc)
                return cli_usage("review", "%s needs a number", a);
            const char *v = argv[++i];
            if (strcmp(a, "--seed") == 0) {
                if (cli_parse_u64(v, &seed))
                    return cli_usage("review", "--seed needs a number, not '%s'", v);
            } else if (strcmp(a, "--seat") == 0) {
                if (cli_parse_int(v, 1, TB_MAX_SEATS, &seat))
                    return cli_usage("review", "--seat needs a seat number from 1, not '%s'", v);
                seat--; /* counted from 1 on the command line */
            } else if (strcmp(a, "--iterations") == 0) {
                if (cli_parse_int(v, 1, 100000000, &iterations))
                    return cli_usage("review", "--iterations needs a number from 1, not '%s'", v);
            } else if (cli_parse_int(v, 1, 64, &threads)) {
                return cli_usage("review", "--threads needs a number from 1 to 64, not '%s'", v);
            }
        } else if (strcmp(a, "--board") == 0 || strcmp(a, "--data-dir") == 0) {
            if (i + 1 >= argc)
                return cli_usage("review", "%s needs a %s", a, a[2] == 'b' ? "file" : "folder");
            *(a[2] == 'b' ? &board_file : &data_dir) = argv[++i];
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage("review", "unknown option '%s'", a);
        } else if (!path) {
            path = a;
        } else {
            return cli_usage("review", "unexpected argument '%s'", a);
        }
    }
    if (!path)
        return cli_usage("review", "which record file?");
    char err[TB_ERR_LEN];
    char *text = tb_file_read(path, NULL, err, sizeof err);
    if (!text) {
        fprintf(stderr, "tabula review: %s\n", err);
        return 1;
    }
    tb_record *rec = tb_record_from_json(text, err, sizeof err);
    free(text);
    if (!rec) {
        fprintf(stderr, "tabula review: %s: %s\n", path, err);
        return 1;
    }
    int players = tb_record_players(rec);
    if (seat >= players) {
        tb_record_free(rec);
        return cli_usage("review", "--seat must be 1 to %d", players);
    }
    tb_data_set *boards = tb_data_set_new(); /* the record's board, if it names one */
    if ((data_dir && cli_load_data_dir(boards, data_dir, err, sizeof err)) ||
        (board_file && !cli_board_arg(boards, tb_record_game(rec), board_file, err, sizeof err))) {
        fprintf(stderr, "tabula review: %s\n", err);
        tb_record_free(rec);
        tb_data_set_free(boards);
        return 1;
    }
    tb_review_settings settings = {
        .budget = {.iterations = iterations, .threads = (int)threads},
        .seed = seed,
        .boards = boards,
    };
    review_progress_bar bar = {.start = cli_now_us()};
    bool show = !quiet && isatty(STDERR_FILENO);
    tb_review *r = NULL;
    int rc = tb_review_record(rec, (int)seat, &settings, show ? review_progress : NULL, &bar, &r,
                              err, sizeof err);
    if (show)
        fprintf(stderr, "\n");
    if (rc != 0) {
        fprintf(stderr, "tabula review: %s: %s\n", path, err);
        tb_record_free(rec);
        tb_data_set_free(boards);
        return 1;
    }
    if (json)
        review_print_json(r, rec);
    else
        review_print_table(r, rec, (int)seat, &settings.budget, seed);
    tb_review_free(r);
    tb_record_free(rec);
    tb_data_set_free(boards);
    return 0;
}
