/*
 * fuzz_engine.c — libFuzzer harness: arbitrary bytes as engine protocol
 * input.  The engine must answer every line and never crash, leak or read
 * out of bounds, whatever the bytes.
 */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fuzz_clock(void)
{
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    FILE *in = fmemopen((void *)data, size ? size : 1, "r");
    FILE *out = fopen("/dev/null", "w");
    if (in && out)
        tb_engine_run(in, out, fuzz_clock);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    return 0;
}
