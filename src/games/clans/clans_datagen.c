/*
 * clans_datagen.c — build-time tool: reads data/clans_board.txt and writes
 * the C tables of clans.h.  It rejects a malformed file (unknown words,
 * missing or repeated territories, one-sided borders) so a bad data change
 * fails the build with a line number instead of producing a wrong board.
 * The deeper invariants are checked by tests/unit/test_clans_data.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datagen.h"

static const char *const gen_terrains[] = {"forest", "mountain", "steppe", "grassland"};

static int gen_terrain(const char *w, const char *any)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(w, gen_terrains[i]) == 0)
            return i;
    if (any && strcmp(w, any) == 0)
        return 4;
    gen_fail("unknown terrain '%s'", w);
}

int main(int argc, char **argv)
{
    FILE *in = gen_open_input(argc, argv, "clans_board.txt");
    int terrain[60], region[60], x[60], y[60], seen[60] = {0};
    uint64_t adj[60] = {0};
    int chips[5], fav[5], host[5], bonus[5], eseen[5] = {0};
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        gen_line++;
        char *save = NULL;
        char *w = strtok_r(line, " \t\r\n", &save);
        if (!w || w[0] == '#')
            continue;
        if (strcmp(w, "epoch") == 0) {
            int e = gen_number(gen_word(&save, NULL), 1, 5) - 1;
            if (eseen[e]++)
                gen_fail("epoch %d given twice", e + 1);
            gen_word(&save, "chips");
            chips[e] = gen_number(gen_word(&save, NULL), 1, 12);
            gen_word(&save, "favourable");
            fav[e] = gen_terrain(gen_word(&save, NULL), "all");
            gen_word(&save, "hostile");
            host[e] = gen_terrain(gen_word(&save, NULL), "none");
            gen_word(&save, "bonus");
            bonus[e] = gen_number(gen_word(&save, NULL), 0, 20);
        } else if (strcmp(w, "territory") == 0) {
            int t = gen_number(gen_word(&save, NULL), 1, 60) - 1;
            if (seen[t]++)
                gen_fail("territory %d given twice", t + 1);
            terrain[t] = gen_terrain(gen_word(&save, NULL), NULL);
            gen_word(&save, "region");
            region[t] = gen_number(gen_word(&save, NULL), 1, 12);
            gen_word(&save, "at");
            x[t] = gen_number(gen_word(&save, NULL), 0, 1200);
            y[t] = gen_number(gen_word(&save, NULL), 0, 800);
            gen_word(&save, "borders");
            char *n;
            while ((n = gen_word(&save, NULL)) != NULL) {
                int u = gen_number(n, 1, 60) - 1;
                if (u == t)
                    gen_fail("territory %d borders itself", t + 1);
                adj[t] |= 1ULL << u;
            }
        } else {
            gen_fail("unknown line '%s'", w);
        }
    }
    fclose(in);
    for (int e = 0; e < 5; e++)
        if (!eseen[e])
            gen_fail("epoch %d is missing", e + 1);
    for (int t = 0; t < 60; t++) {
        if (!seen[t])
            gen_fail("territory %d is missing", t + 1);
        for (int u = 0; u < 60; u++)
            if ((adj[t] >> u & 1) != (adj[u] >> t & 1))
                gen_fail("territories %d and %d do not list each other", t + 1, u + 1);
    }
    FILE *out = gen_open_output(argv[2], "clans_datagen.c", "games/clans/clans.h");
    fprintf(out, "const clans_territory clans__territory[CLANS_TERRITORIES] = {\n");
    for (int t = 0; t < 60; t++)
        fprintf(out, "    {%d, %d, %d, %d},\n", terrain[t], region[t], x[t], y[t]);
    fprintf(out, "};\n\nconst uint64_t clans__adjacent[CLANS_TERRITORIES] = {\n");
    for (int t = 0; t < 60; t++)
        fprintf(out, "    0x%016llxULL,\n", (unsigned long long)adj[t]);
    fprintf(out, "};\n\nconst uint8_t clans__region_member[CLANS_REGIONS][5] = {\n");
    for (int r = 1; r <= 12; r++) {
        int n = 0;
        fprintf(out, "    {");
        for (int t = 0; t < 60; t++)
            if (region[t] == r)
                fprintf(out, "%s%d", n++ ? ", " : "", t);
        if (n != 5)
            gen_fail("region %d has %d territories, not 5", r, n);
        fprintf(out, "},\n");
    }
    fprintf(out, "};\n\n/* Edges in order of (lower id, higher id). */\n");
    int ea[200], eb[200], ne = 0;
    for (int t = 0; t < 60; t++)
        for (int u = t + 1; u < 60; u++)
            if (adj[t] >> u & 1) {
                if (ne == 192)
                    gen_fail("more than 192 edges");
                ea[ne] = t;
                eb[ne] = u;
                ne++;
            }
    fprintf(out, "const int clans__edge_count = %d;\n", ne);
    fprintf(out, "const uint8_t clans__edge[CLANS_MAX_EDGES][2] = {\n");
    for (int e = 0; e < ne; e++)
        fprintf(out, "    {%d, %d},\n", ea[e], eb[e]);
    fprintf(out, "};\n\n/* Arc 2e + d runs from end d of edge e to the other: from | to << 8. */\n");
    fprintf(out, "const uint16_t clans__arc[2 * CLANS_MAX_EDGES] = {\n");
    for (int e = 0; e < ne; e++)
        fprintf(out, "    %d, %d,\n", ea[e] | eb[e] << 8, eb[e] | ea[e] << 8);
    uint64_t edges_of[60][3] = {{0}}; /* the edges at each territory, by word */
    for (int e = 0; e < ne; e++) {
        edges_of[ea[e]][e / 64] |= 1ULL << (e % 64);
        edges_of[eb[e]][e / 64] |= 1ULL << (e % 64);
    }
    fprintf(out, "};\n\nconst uint64_t clans__edges_of[CLANS_TERRITORIES][CLANS_EDGE_WORDS] = {\n");
    for (int t = 0; t < 60; t++)
        fprintf(out, "    {0x%016llxULL, 0x%016llxULL, 0x%016llxULL},\n",
                (unsigned long long)edges_of[t][0], (unsigned long long)edges_of[t][1],
                (unsigned long long)edges_of[t][2]);
    fprintf(out, "};\n\n/* What emptying the source of arc 2e + d clears: its edges and neighbours. */\n");
    fprintf(out, "const clans_arc_source clans__arc_source[2 * CLANS_MAX_EDGES] = {\n");
    for (int a = 0; a < 2 * ne; a++) {
        const uint64_t *w = edges_of[a % 2 ? eb[a / 2] : ea[a / 2]];
        fprintf(out, "    {{0x%016llxULL, 0x%016llxULL, 0x%016llxULL}, 0x%016llxULL},\n",
                (unsigned long long)w[0], (unsigned long long)w[1], (unsigned long long)w[2],
                (unsigned long long)adj[a % 2 ? eb[a / 2] : ea[a / 2]]);
    }
    fprintf(out, "};\n\nconst uint64_t clans__all_edges[CLANS_EDGE_WORDS] = {");
    for (int w = 0; w < 3; w++) {
        uint64_t m = 0;
        for (int e = w * 64; e < ne && e < (w + 1) * 64; e++)
            m |= 1ULL << (e % 64);
        fprintf(out, "%s0x%016llxULL", w ? ", " : "", (unsigned long long)m);
    }
    fprintf(out, "};\n\n/* Every order of the five colours (setup deals a region's huts in one draw),\n"
                 " * as hut words: one hut of the k-th colour of the order. */\n");
    fprintf(out, "const uint64_t clans__order_huts[120][CLANS_COLOURS] = {\n");
    int norders = 0;
    for (int p = 0; p < 3125; p++) {
        int d[5] = {p % 5, p / 5 % 5, p / 25 % 5, p / 125 % 5, p / 625 % 5}, used = 0;
        for (int i = 0; i < 5; i++)
            used |= 1 << d[i];
        if (used != 31)
            continue;
        fprintf(out, "    {");
        for (int i = 0; i < 5; i++)
            fprintf(out, "%s0x%llxULL", i ? ", " : "", 1ULL << (8 * d[i]));
        fprintf(out, "},\n");
        norders++;
    }
    if (norders != 120)
        gen_fail("internal: %d colour orders", norders);
    fprintf(out, "};\n\nconst uint8_t clans__chip_epoch_table[CLANS_CHIPS + 1] = {");
    int chip = 0;
    for (int e = 0; e < 5; e++)
        for (int i = 0; i < chips[e]; i++)
            fprintf(out, "%s%d", chip++ ? ", " : "", e + 1);
    if (chip != 12)
        gen_fail("the epochs hold %d chips, not 12", chip);
    fprintf(out, ", 0};\n\nconst clans_epoch clans__epoch[CLANS_EPOCHS] = {\n");
    for (int e = 0; e < 5; e++)
        fprintf(out, "    {%d, %d, %d, %d},\n", chips[e], fav[e], host[e], bonus[e]);
    fprintf(out, "};\n\n/* Founding in each epoch: bonus points, or CLANS_RUIN on hostile terrain. */\n");
    fprintf(out, "const uint8_t clans__founding[CLANS_EPOCHS][CLANS_TERRITORIES] = {\n");
    for (int e = 0; e < 5; e++) {
        fprintf(out, "    {");
        for (int t = 0; t < 60; t++) {
            int rule = host[e] == terrain[t]                        ? 0x80
                       : fav[e] == 4 /* all */ || fav[e] == terrain[t] ? bonus[e]
                                                                    : 0;
            fprintf(out, "%s%d", t ? ", " : "", rule);
        }
        fprintf(out, "},\n");
    }
    fprintf(out, "};\n\n/* Occupied neighbours of each territory at the start (all occupied), in\n"
                 " * bit planes: bit t of plane i is bit i of t's count. */\n");
    fprintf(out, "const uint64_t clans__start_crowd[3] = {");
    for (int i = 0; i < 3; i++) {
        uint64_t plane = 0;
        for (int t = 0; t < 60; t++)
            plane |= (uint64_t)(__builtin_popcountll(adj[t]) >> i & 1) << t;
        fprintf(out, "%s0x%016llxULL", i ? ", " : "", (unsigned long long)plane);
    }
    fprintf(out, "};\n");
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
