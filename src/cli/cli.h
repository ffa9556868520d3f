/*
 * cli.h — shared pieces of the `tabula` command line (src/cli only).
 *
 * Every command is a function `int cmd_X(int argc, char **argv)` listed in
 * main.c's table; argv[0] is the command name.  A command prints `--help`
 * text to stdout and exits 0, and on wrong usage prints one line to stderr
 * and returns 2.
 */
#ifndef TB_CLI_H
#define TB_CLI_H

#include "tabula.h"

#include <stdbool.h>
#include <stdio.h>

int cmd_engine(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_review(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_loadtest(int argc, char **argv);
int cmd_selfplay(int argc, char **argv);

/* util.c */
uint64_t cli_now_us(void);           /* monotonic microseconds */
uint64_t cli_cpu_us(void);           /* this thread's CPU time in microseconds */
void cli_iso_time(char *buf, size_t n); /* now, UTC, ISO 8601 */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cli_is_help(const char *arg);
int cli_parse_int(const char *text, long lo, long hi, long *out);
int cli_parse_u64(const char *text, uint64_t *out);
uint64_t cli_random_seed(void);
/* "K/N" with 0 <= K < N <= max (a shard of a split run); 0 or -1. */
int cli_parse_shard(const char *text, uint64_t max, uint64_t *k, uint64_t *n);
int cli_write_file(const char *path, const char *text, char *err, size_t errlen);
const tb_game *cli_game_arg(const char *cmd, const char *name); /* prints the error */
/* Board files (docs/data-format.md), read with tb_data_read_file. */
/* Adds every DIR/GAME/NAME.txt to set; -1 and err on the first bad one. */
int cli_load_data_dir(tb_data_set *set, const char *dir, char *err, size_t errlen);
/* --board ARG: NULL arg: the built-in board; a name the set knows; else a
 * file, read and added to set.  NULL and err when none of these. */
const tb_data *cli_board_arg(tb_data_set *set, const tb_game *game, const char *arg, char *err,
                             size_t errlen);

#endif
