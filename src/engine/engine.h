/*
 * engine.h — the line protocol of `tabula engine` (DESIGN.md §6,
 * docs/protocol.md).  The caller supplies the streams and the clock.
 */
#ifndef TB_ENGINE_H
#define TB_ENGINE_H

#include "tabula.h"

#include <stdio.h>

/* Reads commands from `in` until `quit` or end of input, replying on `out`.
 * `boards` (NULL: the built-in ones only) are the boards `new GAME
 * board=NAME` and `load` may name; the caller keeps them alive for the run.
 * Returns the process exit status (0). */
int tb_engine_run(FILE *in, FILE *out, uint64_t (*now_us)(void), const tb_data_set *boards);

#endif
