/*
 * fuzz_engine.c — libFuzzer harness: arbitrary bytes as engine protocol
 * input.  The engine must answer every line and never crash, leak or read
 * out of bounds, whatever the bytes; every error reply is valid UTF-8 (a
 * reply quotes input cut at a character boundary and mended).
 */
#include "engine/engine.h"
#include "core/text.h"

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
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (in && out)
        tb_engine_run(in, out, fuzz_clock, NULL);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    /* every "? message" line is valid UTF-8 */
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '?' && !tb__utf8_valid(line)) {
            fprintf(stderr, "an error reply that is not valid UTF-8: %s\n", line);
            abort();
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return 0;
}
