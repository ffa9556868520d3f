/*
 * agents.h — the agents built into the library (private to src/ai).
 * Each is a const tb_agent listed in agent.c's table.
 */
#ifndef TB_AI_AGENTS_H
#define TB_AI_AGENTS_H

#include "tabula.h"

extern const tb_agent tb__random_agent;

#endif
