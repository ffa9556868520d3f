/*
 * match.h — what `tabula match` (match.c: playing, the summary) and its
 * shards (match_shard.c: --shard K/N files and `tabula match merge`) share.
 *
 * A match of G games is one list: game g deals seed + g / N (N players),
 * seats the agents rotated by g mod N and seeds every decision from
 * (seed, g, decision number).  A run plays the games first, first + stride,
 * first + 2 stride, ... of that list (the whole match: 0 and 1; shard K of
 * S: K and S), so any split plays the very games of the unsplit run.
 * games[i] holds the result of game first + i * stride.
 */
#ifndef TB_CLI_MATCH_H
#define TB_CLI_MATCH_H

#include "cli.h"

#include <pthread.h>

#define MATCH_MAX_GAMES 1000000
#define MATCH_MAX_THREADS 64
#define MATCH_MAX_SHARDS 100000

typedef struct match_agent {
    char label[256];       /* as written on the command line */
    const tb_agent *agent;
    tb_budget budget;
    bool infer;           /* infer=on: deal hidden roles by what play has shown */
    tb_net *net;          /* net=FILE: the search's network (owned), or NULL */
    int id;               /* index of the pooled agent (same label) */
} match_agent;

typedef struct match_game {
    int entry[TB_MAX_SEATS]; /* which --agents entry sat in each seat */
    int scores[TB_MAX_SEATS], ranks[TB_MAX_SEATS];
    double returns[TB_MAX_SEATS];
    double seconds[TB_MAX_SEATS];
    int decisions[TB_MAX_SEATS];
    char *record;
    char error[TB_ERR_LEN + 256 + TB_MOVE_TEXT + 64];
} match_game;

typedef struct match_run {
    const tb_game *game;
    const tb_data *data; /* the board (--board), or NULL for the built-in one */
    char data_name[64], data_hash[80]; /* its name and hash ("" for the built-in) */
    int players;
    tb_options opts;
    uint64_t seed;
    match_agent entry[TB_MAX_SEATS];
    int ids;                       /* distinct agents */
    int label_of[TB_MAX_SEATS];    /* id -> an entry with that label */
    int total;                     /* games in the whole match */
    int first, stride;             /* which of them this run plays (see above) */
    int ngames;                    /* games played here: games[0 .. ngames) */
    match_game *games;
    pthread_mutex_t lock;
    int next, finished;
    bool progress;
    uint64_t start;
} match_run;

/* The per-agent summary of match.c. */
typedef struct match_stats {
    double appearances[TB_MAX_SEATS], wins[TB_MAX_SEATS], score[TB_MAX_SEATS];
    double seconds[TB_MAX_SEATS], decisions[TB_MAX_SEATS];
    double pair_n[TB_MAX_SEATS][TB_MAX_SEATS];     /* pairings of id i against id j */
    double pair_score[TB_MAX_SEATS][TB_MAX_SEATS]; /* points of i in them */
    double elo[TB_MAX_SEATS];
    bool has_elo;
} match_stats;

/* A growing string; match_put appends printf-style text (NULL data after a
 * failed allocation: the writer checks once at the end). */
typedef struct match_text {
    char *data;
    size_t len, cap;
    bool failed;
} match_text;

void match_put(match_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* match.c */
/* Parses NAME[:LEVEL][:KEY=VALUE...] (loading net=FILE); 0, or -1 and err. */
int match_parse_agent(const tb_game *game, const char *spec, match_agent *a, char *err,
                      size_t errlen);
/* Pools agents written alike: sets entry[].id, ids and label_of. */
void match_pool_agents(match_run *r);
/* Reads a network file for `game` (net=FILE); NULL and err. */
tb_net *match_read_net(const tb_game *game, int players, const char *path, char *err,
                       size_t errlen);
void match_tally(const match_run *r, match_stats *st);
/* The table; `how` ends its first line (threads and time, or shards). */
void match_print(const match_run *r, const match_stats *st, const char *how);
/* The JSON of --out (every record and the summary); NULL when out of memory. */
char *match_json(const match_run *r, const match_stats *st, int threads, int shards);
/* The options as "key=value key=value" (normalized: every option). */
void match_options_text(const match_run *r, char *buf, size_t len);

/* match_shard.c */
/* Writes shard (r->first of r->stride) to path, atomically; 0 or err. */
int match_write_shard(const match_run *r, double seconds, int threads, const char *path,
                      char *err, size_t errlen);
int match_merge(int argc, char **argv);

#endif
