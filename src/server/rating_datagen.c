/*
 * rating_datagen.c — build-time generator: reads data/computer_ratings.txt
 * (the computer levels' fitted ratings, docs/ratings.md) and writes the
 * const table srv_computer_ratings (rating.h).  The server never reads
 * data/ at run time.
 *
 * The file: '#' comments and blank lines, then one line per game and level
 *   level GAME LEVEL MU SIGMA GAMES
 * GAME a lowercase word, LEVEL one of easy, normal, hard; MU a finite number,
 * SIGMA one above 0, GAMES the match games the fit read (1 or more).  A game
 * and level appear once.  Invariants: anything else fails the build with
 * the file's line (datagen.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "core/datagen.h"

#include <math.h>

#define RG_MAX 64

static const char *const rg_levels[] = {"easy", "normal", "hard"};

static double rg_real(const char *w, const char *what)
{
    char *end;
    double v = strtod(w, &end);
    if (*end || !isfinite(v))
        gen_fail("%s: expected a number, got '%s'", what, w);
    return v;
}

int main(int argc, char **argv)
{
    FILE *in = gen_open_input(argc, argv, "computer_ratings.txt");
    char game[RG_MAX][32];
    int level[RG_MAX], games[RG_MAX], count = 0;
    double mu[RG_MAX], sigma[RG_MAX];
    char line[512];
    while (fgets(line, sizeof line, in)) {
        gen_line++;
        char *save;
        char *w = strtok_r(line, " \t\r\n", &save);
        if (!w || w[0] == '#')
            continue;
        if (strcmp(w, "level") != 0)
            gen_fail("expected 'level', got '%s'", w);
        if (count == RG_MAX)
            gen_fail("more than %d levels", RG_MAX);
        const char *g = gen_need(&save, "the game");
        if (strlen(g) >= sizeof game[0] || strspn(g, "abcdefghijklmnopqrstuvwxyz") != strlen(g))
            gen_fail("'%s' is not a game's name", g);
        snprintf(game[count], sizeof game[count], "%s", g);
        level[count] = gen_index(gen_need(&save, "the level"), rg_levels, 3, "level");
        mu[count] = rg_real(gen_need(&save, "mu"), "mu");
        sigma[count] = rg_real(gen_need(&save, "sigma"), "sigma");
        if (!(sigma[count] > 0))
            gen_fail("sigma must be above 0");
        games[count] = gen_number(gen_need(&save, "the games"), 1, 100000000);
        if (gen_word(&save, NULL))
            gen_fail("more words than 'level GAME LEVEL MU SIGMA GAMES'");
        for (int i = 0; i < count; i++)
            if (strcmp(game[i], game[count]) == 0 && level[i] == level[count])
                gen_fail("%s %s appears twice", g, rg_levels[level[count]]);
        count++;
    }
    fclose(in);
    if (!count)
        gen_fail("no level");
    FILE *out = gen_open_output(argv[2], "rating_datagen", "server/rating.h");
    fprintf(out, "const srv_computer_rating srv_computer_ratings[] = {\n");
    for (int i = 0; i < count; i++)
        fprintf(out, "    {\"%s\", \"%s\", %.17g, %.17g, %d},\n", game[i], rg_levels[level[i]],
                mu[i], sigma[i], games[i]);
    fprintf(out, "};\nconst int srv_computer_ratings_count = %d;\n", count);
    if (fclose(out)) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
