/*
 * kh_boards.c — measures how a Khronos board plays: replays the records that
 * `tabula match --game khronos ... --out FILE.json` wrote through the library
 * and reports, per file (one board, one player count):
 *   - fullness at the end: the share of each board's squares (Might, Faith,
 *     Reason) covered by a tile or ruin, printed Hamlets included, and the
 *     free 3x3 and 2x2 blocks left (empty, no river square: room for a
 *     Castle/Abbey or a Keep/Monastery);
 *   - builds refused for lack of room (definitions below, the same as in
 *     docs/rules-khronos.md, "Choosing the placeholder board");
 *   - score spread: winner-last gap, standard deviation of the scores within
 *     a game, win rates by seat and by place in the turn order;
 *   - game length in decisions (every game has 7 turns).
 * Not part of the build; compile it against a built library, like ai_tune:
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -Isrc/core \
 *      bench/kh_boards.c build/libtabula.a -ljansson -lm -lpthread -o kh_boards
 *   ./kh_boards [--md] match-2p.json match-3p.json ...
 *
 * The library must be built with the board the records were played on (the
 * board is compiled in): a record that does not replay, or replays to other
 * scores than it stored, is reported and skipped, and the tool exits 1.
 *
 * Room refusals.  At every decision where the player whose turn it is picks
 * a free action (nothing pending), for each of the 2 boards Might and Faith
 * and each of the 9 tile types, the new construction `build BOARD TILE` is
 * asked of the engine (tb_text_to_move).  A pair is an *opportunity* when the
 * construction is legal, or refused only by where it could go; it is
 * *refused for room* when every placement of that size either overlaps a
 * building ("there is no room ...") or, for a non-civil tile, the furthest
 * any placement gets is the river ("no place ... : X is river").  Refusals
 * because every free placement would join two domains, or break the
 * hierarchy, or cost a surcharge the player cannot pay, are counted apart.
 * Refusals for cards, adventurers, stock or cubes are not opportunities.
 * Per player-turn and size s: the turn *met* a room refusal of size s if one
 * of its decisions did; it was *shut out* of size s if no size-s construction
 * was legal at any of its decisions and at least one was refused for room.
 *
 * Invariants: reads only; every rate is printed with its count and a 95%
 * Wilson interval.
 */
#include "tabula.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KB_MAXW 26
#define KB_MAXSQ 256
#define KB_MAXGAMES 4096

static const char *const kb_board[3] = {"might", "faith", "reason"};
static const char *const kb_tile[9] = {"watchtower", "keep",  "castle", "chapel", "monastery",
                                       "abbey",      "hamlet", "town",   "city"};

enum { KB_LEGAL, KB_ROOM, KB_DOMINION, KB_HIERARCHY, KB_SURCHARGE, KB_OTHER_PLACE, KB_NOT_OPP,
       KB_PENDING };

typedef struct kb_geo {
    int w, h;
    char terrain[KB_MAXSQ]; /* '.', 'f', 'm', '~', '/', '^' */
} kb_geo;

typedef struct kb_stats {
    int games, players, skipped;
    double decisions[KB_MAXGAMES];
    double cover[3][KB_MAXGAMES];   /* share of squares covered */
    double free3[3][KB_MAXGAMES], free2[3][KB_MAXGAMES];
    double gap[KB_MAXGAMES], sd[KB_MAXGAMES], mean[KB_MAXGAMES];
    double seat_wins[8], order_wins[8];
    long opp[4], room[4], dominion[4], hierarchy[4], surcharge[4];
    long room_by_turn[8], room_total;
    long turns_opp[4], turns_met[4], turns_shut[4], player_turns;
} kb_stats;

static void kb_wilson(double k, double n, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = *hi = 0;
        return;
    }
    double z = 1.959964, p = k / n, d = 1 + z * z / n;
    double c = (p + z * z / (2 * n)) / d;
    double h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
    *lo = c - h > 0 ? c - h : 0;
    *hi = c + h < 1 ? c + h : 1;
}

static int kb_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void kb_summary(const double *v, int n, double *mean, double *sd, double *median)
{
    double s = 0, ss = 0, tmp[KB_MAXGAMES];
    for (int i = 0; i < n; i++) {
        s += v[i];
        tmp[i] = v[i];
    }
    *mean = n ? s / n : 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    qsort(tmp, (size_t)n, sizeof tmp[0], kb_cmp);
    *median = n ? (n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2) : 0;
}

static int kb_load_geo(kb_geo *g)
{
    const tb_game *game = tb_game_find("khronos");
    char *txt = tb_board_json(game);
    json_error_t je;
    json_t *j = json_loads(txt, 0, &je);
    free(txt);
    if (!j)
        return -1;
    g->w = (int)json_integer_value(json_object_get(j, "width"));
    g->h = (int)json_integer_value(json_object_get(j, "height"));
    json_t *rows = json_object_get(j, "terrain");
    if (g->w <= 0 || g->w > KB_MAXW || g->w * g->h > KB_MAXSQ || !json_is_array(rows)) {
        json_decref(j);
        return -1;
    }
    for (int r = 0; r < g->h; r++) {
        const char *row = json_string_value(json_array_get(rows, (size_t)r));
        if (!row || (int)strlen(row) != g->w) {
            json_decref(j);
            return -1;
        }
        memcpy(g->terrain + r * g->w, row, (size_t)g->w);
    }
    json_decref(j);
    return 0;
}

/* Marks the squares of a placement name "c4" or "c4-e6" (a rectangle). */
static int kb_mark(const kb_geo *g, const char *at, unsigned char *occ)
{
    int c[2], r[2], n = 0;
    const char *p = at;
    while (n < 2 && *p) {
        if (*p < 'a' || *p > 'z')
            return -1;
        c[n] = *p++ - 'a';
        char *end;
        long row = strtol(p, &end, 10);
        if (end == p)
            return -1;
        r[n++] = (int)row - 1;
        p = end;
        if (*p == '-')
            p++;
    }
    if (n == 1) {
        c[1] = c[0];
        r[1] = r[0];
    }
    for (int y = r[0]; y <= r[1]; y++)
        for (int x = c[0]; x <= c[1]; x++) {
            if (x < 0 || x >= g->w || y < 0 || y >= g->h)
                return -1;
            occ[y * g->w + x] = 1;
        }
    return 0;
}

static int kb_free_blocks(const kb_geo *g, const unsigned char *occ, int size)
{
    int n = 0;
    for (int y = 0; y + size <= g->h; y++)
        for (int x = 0; x + size <= g->w; x++) {
            bool ok = true;
            for (int dy = 0; dy < size && ok; dy++)
                for (int dx = 0; dx < size && ok; dx++) {
                    int sq = (y + dy) * g->w + x + dx;
                    ok = !occ[sq] && g->terrain[sq] != '~';
                }
            n += ok;
        }
    return n;
}

/* What the engine says of `build BOARD TILE` now. */
static int kb_classify(const tb_state *s, int b, int t)
{
    char text[40], err[400];
    tb_move m;
    snprintf(text, sizeof text, "build %s %s", kb_board[b], kb_tile[t]);
    if (tb_text_to_move(s, text, &m, err, sizeof err) == 0)
        return KB_LEGAL;
    if (strstr(err, "first "))
        return KB_PENDING;
    if (strstr(err, "there is no room on"))
        return KB_ROOM;
    if (!strstr(err, "no place on"))
        return KB_NOT_OPP;
    const char *why = strstr(err, "for one: ");
    why = why ? why : err;
    if (strstr(why, "is river"))
        return KB_ROOM;
    if (strstr(why, "join two domains"))
        return KB_DOMINION;
    if (strstr(why, "highest"))
        return KB_HIERARCHY;
    if (strstr(why, "more card"))
        return KB_SURCHARGE;
    return KB_OTHER_PLACE;
}

static int kb_state_ints(const tb_state *s, int *first, int *turn)
{
    char *txt = tb_state_json(s);
    json_t *j = json_loads(txt, 0, NULL);
    free(txt);
    if (!j)
        return -1;
    *first = (int)json_integer_value(json_object_get(j, "first"));
    *turn = (int)json_integer_value(json_object_get(j, "turn"));
    json_decref(j);
    return 0;
}

/* Per player-turn, size 1..3: any opportunity, any room refusal, any legal. */
typedef struct kb_turn {
    bool opp[4], room[4], legal[4];
} kb_turn;

static void kb_close_turn(kb_stats *st, kb_turn *tt)
{
    st->player_turns++;
    for (int v = 1; v <= 3; v++) {
        st->turns_opp[v] += tt->opp[v];
        st->turns_met[v] += tt->room[v];
        st->turns_shut[v] += tt->room[v] && !tt->legal[v];
    }
    memset(tt, 0, sizeof *tt);
}

static int kb_game(kb_stats *st, const kb_geo *g, const json_t *rec_json)
{
    char err[400];
    char *txt = json_dumps(rec_json, JSON_COMPACT);
    tb_record *rec = txt ? tb_record_from_json(txt, err, sizeof err) : NULL;
    free(txt);
    if (!rec) {
        fprintf(stderr, "kh_boards: a record does not load: %s\n", err);
        return -1;
    }
    tb_state *s = tb_record_replay(rec, 0, err, sizeof err);
    if (!s) {
        fprintf(stderr, "kh_boards: a record does not set up: %s\n", err);
        tb_record_free(rec);
        return -1;
    }
    int players = tb_players(s), n = tb_record_length(rec), gi = st->games;
    st->players = players;
    kb_turn tt;
    memset(&tt, 0, sizeof tt);
    for (int i = 0; i < n; i++) {
        const char *mv = tb_record_move(rec, i);
        int first = 0, turn = 0;
        kb_state_ints(s, &first, &turn);
        for (int b = 0; b < 2; b++)
            for (int t = 0; t < 9; t++) {
                int c = kb_classify(s, b, t), v = t % 3 + 1;
                if (c == KB_PENDING || c == KB_NOT_OPP)
                    continue;
                st->opp[v]++;
                tt.opp[v] = true;
                if (c == KB_LEGAL)
                    tt.legal[v] = true;
                else if (c == KB_ROOM) {
                    st->room[v]++;
                    tt.room[v] = true;
                    st->room_by_turn[turn < 8 ? turn : 7]++;
                    st->room_total++;
                } else if (c == KB_DOMINION)
                    st->dominion[v]++;
                else if (c == KB_HIERARCHY)
                    st->hierarchy[v]++;
                else if (c == KB_SURCHARGE)
                    st->surcharge[v]++;
            }
        if (tb_play_text(s, mv, err, sizeof err) != 0) {
            fprintf(stderr, "kh_boards: decision %d '%s' does not replay: %s\n", i + 1, mv, err);
            tb_state_free(s);
            tb_record_free(rec);
            return -1;
        }
        if (strcmp(mv, "end") == 0 || strncmp(mv, "end ", 4) == 0)
            kb_close_turn(st, &tt);
    }
    if (!tb_is_over(s)) {
        fprintf(stderr, "kh_boards: a record ends before the game does\n");
        tb_state_free(s);
        tb_record_free(rec);
        return -1;
    }
    st->decisions[gi] = n;
    /* fullness from the final state's boards */
    char *sj = tb_state_json(s);
    json_t *j = json_loads(sj, 0, NULL);
    free(sj);
    json_t *boards = json_object_get(j, "boards");
    for (int b = 0; b < 3; b++) {
        unsigned char occ[KB_MAXSQ] = {0};
        json_t *arr = json_object_get(boards, kb_board[b]), *x;
        size_t idx;
        json_array_foreach(arr, idx, x)
        {
            const char *at = json_string_value(json_object_get(x, "at"));
            if (!at || kb_mark(g, at, occ) != 0)
                fprintf(stderr, "kh_boards: a building at an unreadable place\n");
        }
        int covered = 0;
        for (int q = 0; q < g->w * g->h; q++)
            covered += occ[q];
        st->cover[b][gi] = (double)covered / (g->w * g->h);
        st->free3[b][gi] = kb_free_blocks(g, occ, 3);
        st->free2[b][gi] = kb_free_blocks(g, occ, 2);
    }
    int first = (int)json_integer_value(json_object_get(j, "first"));
    json_decref(j);
    int sc[TB_MAX_SEATS], rk[TB_MAX_SEATS], winners = 0, hi = -1000000, lo = 1000000;
    double sum = 0, ss = 0;
    tb_scores(s, sc);
    tb_ranks(s, rk);
    /* a record played on another board may replay here, but not to the same scores */
    json_t *stored = json_object_get(json_object_get(rec_json, "result"), "scores");
    for (int p = 0; p < players; p++)
        if (json_is_array(stored) &&
            json_integer_value(json_array_get(stored, (size_t)p)) != sc[p]) {
            fprintf(stderr, "kh_boards: a record replays to other scores than it stored (was "
                            "it played on another board?)\n");
            tb_state_free(s);
            tb_record_free(rec);
            return -1;
        }
    for (int p = 0; p < players; p++) {
        winners += rk[p] == 1;
        hi = sc[p] > hi ? sc[p] : hi;
        lo = sc[p] < lo ? sc[p] : lo;
        sum += sc[p];
    }
    double mean = sum / players;
    for (int p = 0; p < players; p++)
        ss += (sc[p] - mean) * (sc[p] - mean);
    st->gap[gi] = hi - lo;
    st->sd[gi] = sqrt(ss / players);
    st->mean[gi] = mean;
    for (int p = 0; p < players; p++)
        if (rk[p] == 1) {
            st->seat_wins[p] += 1.0 / winners;
            st->order_wins[(p - first + players) % players] += 1.0 / winners;
        }
    st->games++;
    tb_state_free(s);
    tb_record_free(rec);
    return 0;
}

static void kb_rate(const char *what, double k, double n)
{
    double lo, hi;
    kb_wilson(k, n, &lo, &hi);
    printf("  %-44s %6.1f / %-7.0f = %5.1f%% [%.1f, %.1f]\n", what, k, n,
           n > 0 ? 100.0 * k / n : 0.0, 100 * lo, 100 * hi);
}

static void kb_report(const char *file, const kb_stats *st, const kb_geo *g)
{
    double m, sd, med;
    printf("== %s: %d games, %d players, board %dx%d\n", file, st->games, st->players, g->w,
           g->h);
    kb_summary(st->decisions, st->games, &m, &sd, &med);
    printf("  decisions per game: mean %.0f, sd %.0f, median %.0f (7 turns, %d player-turns)\n",
           m, sd, med, 7 * st->players);
    for (int b = 0; b < 3; b++) {
        double m3, s3, d3, m2, s2, d2;
        kb_summary(st->cover[b], st->games, &m, &sd, &med);
        kb_summary(st->free3[b], st->games, &m3, &s3, &d3);
        kb_summary(st->free2[b], st->games, &m2, &s2, &d2);
        printf("  %-6s covered %5.1f%% (sd %4.1f, median %5.1f) of %d squares; free 3x3 "
               "median %.0f, free 2x2 median %.0f\n",
               kb_board[b], 100 * m, 100 * sd, 100 * med, g->w * g->h, d3, d2);
    }
    for (int v = 1; v <= 3; v++) {
        char what[80];
        snprintf(what, sizeof what, "size %d room refusals / opportunities", v);
        kb_rate(what, (double)st->room[v], (double)st->opp[v]);
        printf("    (also refused: dominion %ld, hierarchy %ld, surcharge %ld)\n", st->dominion[v],
               st->hierarchy[v], st->surcharge[v]);
        snprintf(what, sizeof what, "size %d player-turns meeting a room refusal", v);
        kb_rate(what, (double)st->turns_met[v], (double)st->turns_opp[v]);
        snprintf(what, sizeof what, "size %d player-turns shut out by room", v);
        kb_rate(what, (double)st->turns_shut[v], (double)st->turns_opp[v]);
    }
    printf("  room refusals by game turn 1..7:");
    for (int t = 1; t <= 7; t++)
        printf(" %ld", st->room_by_turn[t]);
    printf(" (of %ld)\n", st->room_total);
    kb_summary(st->gap, st->games, &m, &sd, &med);
    printf("  winner-last gap: mean %.1f, sd %.1f, median %.1f Ecus\n", m, sd, med);
    kb_summary(st->sd, st->games, &m, &sd, &med);
    printf("  sd of scores within a game: mean %.1f\n", m);
    kb_summary(st->mean, st->games, &m, &sd, &med);
    printf("  mean score: %.1f Ecus\n", m);
    for (int p = 0; p < st->players; p++) {
        char what[80];
        snprintf(what, sizeof what, "wins of seat %d", p + 1);
        kb_rate(what, st->seat_wins[p], st->games);
    }
    for (int p = 0; p < st->players; p++) {
        char what[80];
        snprintf(what, sizeof what, "wins of the player %d%s in turn order", p + 1,
                 p == 0 ? "st" : p == 1 ? "nd" : p == 2 ? "rd" : "th");
        kb_rate(what, st->order_wins[p], st->games);
    }
}

/* One markdown row: players, games, covered M/F/R, free 3x3 M/F/R, room
 * refusal rate size 2 and 3, shut-out turns size 2/3, gap, sd, first player's
 * win rate. */
static void kb_markdown(const kb_stats *st)
{
    double m, sd, med, cov[3], f3[3];
    for (int b = 0; b < 3; b++) {
        kb_summary(st->cover[b], st->games, &cov[b], &sd, &med);
        kb_summary(st->free3[b], st->games, &m, &sd, &f3[b]);
    }
    printf("| %d | %d | %.0f / %.0f / %.0f%% | %.0f / %.0f / %.0f |", st->players, st->games,
           100 * cov[0], 100 * cov[1], 100 * cov[2], f3[0], f3[1], f3[2]);
    for (int v = 2; v <= 3; v++) {
        double lo, hi;
        kb_wilson((double)st->room[v], (double)st->opp[v], &lo, &hi);
        printf(" %.1f%% [%.1f, %.1f] of %ld |", st->opp[v] ? 100.0 * (double)st->room[v] /
                                                                 (double)st->opp[v] : 0.0,
               100 * lo, 100 * hi, st->opp[v]);
    }
    for (int v = 2; v <= 3; v++) {
        double lo, hi;
        kb_wilson((double)st->turns_shut[v], (double)st->turns_opp[v], &lo, &hi);
        printf(" %.1f%% [%.1f, %.1f] of %ld |", st->turns_opp[v] ?
               100.0 * (double)st->turns_shut[v] / (double)st->turns_opp[v] : 0.0,
               100 * lo, 100 * hi, st->turns_opp[v]);
    }
    double gm, gsd, gmed, sm, ssd, smed, lo, hi;
    kb_summary(st->gap, st->games, &gm, &gsd, &gmed);
    kb_summary(st->sd, st->games, &sm, &ssd, &smed);
    kb_wilson(st->order_wins[0], st->games, &lo, &hi);
    printf(" %.1f | %.1f | %.0f%% [%.0f, %.0f] |\n", gm, sm,
           st->games ? 100 * st->order_wins[0] / st->games : 0.0, 100 * lo, 100 * hi);
}

int main(int argc, char **argv)
{
    bool md = false;
    int arg = 1;
    if (arg < argc && strcmp(argv[arg], "--md") == 0) {
        md = true;
        arg++;
    }
    if (arg >= argc) {
        fprintf(stderr, "usage: kh_boards [--md] MATCH.json ...  (tabula match --out files)\n");
        return 2;
    }
    kb_geo g;
    if (kb_load_geo(&g) != 0) {
        fprintf(stderr, "kh_boards: cannot read the Khronos board\n");
        return 1;
    }
    int status = 0;
    for (; arg < argc; arg++) {
        json_error_t je;
        json_t *j = json_load_file(argv[arg], 0, &je);
        json_t *recs = j ? json_object_get(j, "records") : NULL;
        if (!json_is_array(recs)) {
            fprintf(stderr, "kh_boards: %s: not a tabula match file (%s)\n", argv[arg],
                    j ? "no records" : je.text);
            json_decref(j);
            status = 1;
            continue;
        }
        kb_stats *st = calloc(1, sizeof *st);
        if (!st) {
            json_decref(j);
            return 1;
        }
        size_t idx;
        json_t *r;
        json_array_foreach(recs, idx, r)
        {
            if (st->games >= KB_MAXGAMES)
                break;
            if (kb_game(st, &g, r) != 0) {
                st->skipped++;
                status = 1;
            }
        }
        if (md)
            kb_markdown(st);
        else
            kb_report(argv[arg], st, &g);
        if (st->skipped)
            fprintf(stderr, "kh_boards: %s: %d records skipped\n", argv[arg], st->skipped);
        free(st);
        json_decref(j);
    }
    return status;
}
