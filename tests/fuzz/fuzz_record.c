/*
 * fuzz_record.c — libFuzzer harness: arbitrary bytes as a game record.  A
 * record is read or refused with a message; one that reads is replayed or
 * refused with a message; never a crash.
 */
#include "tabula.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char err[TB_ERR_LEN];
    tb_record *rec = tb_record_from_json(text, err, sizeof err);
    if (rec) {
        tb_state *s = tb_record_replay(rec, -1, err, sizeof err);
        char *json = tb_record_json(rec, s);
        free(json);
        tb_state_free(s);
        tb_record_free(rec);
    }
    free(text);
    return 0;
}
