/*
 * sim.h — per-game invariant checks for the random-game test (sim.c).
 * A check sees the state before a decision (NULL right after setup) and the
 * state after it, returns 0 when every invariant holds, else writes why.
 */
#ifndef TB_TEST_SIM_H
#define TB_TEST_SIM_H

#include "tabula.h"

typedef int (*sim_check_fn)(const tb_state *before, const tb_state *after, char *err, size_t n);

int sim_arkadia_check(const tb_state *before, const tb_state *after, char *err, size_t n);
int sim_clans_check(const tb_state *before, const tb_state *after, char *err, size_t n);
int sim_khronos_check(const tb_state *before, const tb_state *after, char *err, size_t n);

#endif
