/*
 * obs_reference.h — the observation encoders as they were before the
 * in-place update (obs_reference.c), for test_actions.c: each writes into a
 * zeroed `out` exactly what tb_observation wrote then.
 */
#ifndef TB_OBS_REFERENCE_H
#define TB_OBS_REFERENCE_H

#include "tabula.h"

void ref_clans_observation(const tb_state *s, int seat, float *out);
void ref_ark_observation(const tb_state *s, int seat, float *out);
void ref_khronos_observation(const tb_state *s, int seat, float *out);

#endif
