/*
 * engine.h — the line protocol of `tabula engine` (DESIGN.md §6,
 * docs/protocol.md).  The caller supplies the streams and the clock.
 */
#ifndef TB_ENGINE_H
#define TB_ENGINE_H

#include "tabula.h"

#include <stdio.h>

/* Reads commands from `in` until `quit` or end of input, replying on `out`.
 * Returns the process exit status (0). */
int tb_engine_run(FILE *in, FILE *out, uint64_t (*now_us)(void));

#endif
