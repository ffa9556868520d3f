/*
 * rng.c — the seeded generator every game and agent draws from.
 *
 * xoshiro256** (Blackman & Vigna) seeded through splitmix64, so any 64-bit
 * seed gives a well-mixed non-zero state.  The generator is a plain struct
 * held by its owner (a state, an agent call); nothing here is global.  The
 * step itself is inline in game.h so the games' hot paths can use it.
 */
#include "game.h"

static uint64_t rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void tb_rng_seed(tb_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = rng_splitmix(&x);
}

uint64_t tb_rng_next(tb_rng *rng)
{
    return tb__rng_next(rng);
}

uint32_t tb_rng_below(tb_rng *rng, uint32_t bound)
{
    return tb__rng_below(rng, bound);
}

double tb_rng_unit(tb_rng *rng)
{
    return (double)(tb_rng_next(rng) >> 11) * 0x1.0p-53;
}

tb_rng tb_rng_split(tb_rng *rng)
{
    tb_rng child;
    tb_rng_seed(&child, tb_rng_next(rng) ^ 0x6a09e667f3bcc909ULL);
    return child;
}
