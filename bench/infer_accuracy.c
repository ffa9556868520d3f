/*
 * infer_accuracy.c — how well the colour inference (src/ai/belief.c) guesses
 * who holds which colour in Clans, measured on the records of finished games
 * (`tabula match --out FILE`), against dealing colours uniformly.  Not part
 * of the build; compile it against a built library:
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -Isrc/core \
 *      bench/infer_accuracy.c build/libtabula.a -ljansson -lm -lpthread -o infer_accuracy
 *   ./infer_accuracy MATCH.json [TEMPERATURE:FLOOR ...]
 *
 * With no models it measures the shipped one.  At every decision, the seat
 * about to decide guesses each other seat's colour: its top-1 guess (ties
 * share the credit: a guess among k equally likely colours that holds the
 * true one counts 1/k) and the log-loss of the true colour, -ln p.  Rows by
 * epoch (the epoch of the next village), and all decisions together.
 * Uniform dealing is the model with no evidence: 1/4 top-1 and ln 4 = 1.386.
 */
#include "tabula.h"
#include "ai/belief.h"
#include "games/clans/clans.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACC_MAX_MODELS 16
#define ACC_ROWS 6 /* epochs 1..5, then all */

typedef struct acc_sum {
    double n, top1, loss;
} acc_sum;

static void acc_guess(const tb_inference *inf, const tb_state *truth, int seat, acc_sum *row)
{
    tb__deals deals;
    if (tb__inference_deals(inf, truth, seat, &deals) != 0)
        return;
    int players = tb_players(truth), roles = tb_role_count(tb_state_game(truth));
    for (int other = 0; other < players; other++) {
        if (other == seat)
            continue;
        double p[TB__BELIEF_MAX_ROLES] = {0};
        for (int i = 0; i < deals.count; i++)
            p[deals.roles[i][other]] += deals.p[i];
        int truth_role = tb_role_of(truth, other);
        double top = 0.0;
        for (int r = 0; r < roles; r++)
            top = fmax(top, p[r]);
        int ties = 0;
        for (int r = 0; r < roles; r++)
            ties += p[r] >= top - 1e-12;
        row->n += 1.0;
        row->top1 += p[truth_role] >= top - 1e-12 ? 1.0 / ties : 0.0;
        row->loss += -log(fmax(p[truth_role], 1e-300));
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: infer_accuracy MATCH.json [TEMPERATURE:FLOOR ...]\n");
        return 2;
    }
    tb__belief_model model[ACC_MAX_MODELS];
    int models = 0;
    for (int i = 2; i < argc && models < ACC_MAX_MODELS; i++) {
        if (sscanf(argv[i], "%lf:%lf", &model[models].temperature, &model[models].floor) != 2) {
            fprintf(stderr, "infer_accuracy: '%s' is not TEMPERATURE:FLOOR\n", argv[i]);
            return 2;
        }
        models++;
    }
    if (models == 0)
        model[models++] = tb__belief_default_model();
    json_error_t jerr;
    json_t *root = json_load_file(argv[1], 0, &jerr);
    json_t *records = root ? json_object_get(root, "records") : NULL;
    if (!json_is_array(records)) {
        fprintf(stderr, "infer_accuracy: %s: no records (%s)\n", argv[1], root ? "" : jerr.text);
        return 1;
    }
    /* sum[0]: uniform; sum[1 + m]: model m. */
    acc_sum sum[ACC_MAX_MODELS + 1][ACC_ROWS];
    memset(sum, 0, sizeof sum);
    int games = 0, players = 0;
    for (size_t g = 0; g < json_array_size(records); g++) {
        char *text = json_dumps(json_array_get(records, g), JSON_COMPACT);
        char err[TB_ERR_LEN];
        tb_record *rec = text ? tb_record_from_json(text, err, sizeof err) : NULL;
        free(text);
        if (!rec) {
            fprintf(stderr, "infer_accuracy: record %zu: %s\n", g, err);
            return 1;
        }
        tb_state *s = tb_record_replay(rec, 0, err, sizeof err);
        if (!s || strcmp(tb_game_name(tb_state_game(s)), "clans") != 0) {
            fprintf(stderr, "infer_accuracy: record %zu does not replay as Clans\n", g);
            return 1;
        }
        players = tb_players(s);
        tb_inference *inf[ACC_MAX_MODELS];
        for (int m = 0; m < models; m++)
            inf[m] = tb__inference_new_model(tb_state_game(s), players, &model[m]);
        for (int k = 0; k < tb_record_length(rec) && !tb_is_over(s); k++) {
            const clans_state *c = (const clans_state *)s;
            int epoch = clans__chip_epoch(c->chips_taken);
            int row = epoch >= 1 && epoch <= 5 ? epoch - 1 : 4;
            int seat = tb_to_move(s);
            acc_guess(NULL, s, seat, &sum[0][row]);
            acc_guess(NULL, s, seat, &sum[0][ACC_ROWS - 1]);
            tb_move move;
            if (tb_text_to_move(s, tb_record_move(rec, k), &move, err, sizeof err) != 0) {
                fprintf(stderr, "infer_accuracy: record %zu decision %d: %s\n", g, k + 1, err);
                return 1;
            }
            for (int m = 0; m < models; m++) {
                acc_guess(inf[m], s, seat, &sum[1 + m][row]);
                acc_guess(inf[m], s, seat, &sum[1 + m][ACC_ROWS - 1]);
                tb_inference_observe(inf[m], s, move);
            }
            tb_apply(s, move);
        }
        for (int m = 0; m < models; m++)
            tb_inference_free(inf[m]);
        tb_state_free(s);
        tb_record_free(rec);
        games++;
    }
    json_decref(root);
    printf("%d games of %d players; guesses of each other seat's colour by the seat about to "
           "decide\n\n", games, players);
    printf("%-18s", "epoch");
    for (int r = 0; r < ACC_ROWS - 1; r++)
        printf("  %-14d", r + 1);
    printf("  %-14s", "all");
    printf("\n%-18s", "guesses");
    for (int r = 0; r < ACC_ROWS; r++)
        printf("  %-14.0f", sum[0][r].n);
    printf("\n");
    for (int m = 0; m <= models; m++) {
        char name[64];
        if (m == 0)
            snprintf(name, sizeof name, "uniform");
        else
            snprintf(name, sizeof name, "T %.3g floor %.3g", model[m - 1].temperature,
                     model[m - 1].floor);
        printf("%-18s", name);
        for (int r = 0; r < ACC_ROWS; r++) {
            const acc_sum *a = &sum[m][r];
            char cell[32];
            snprintf(cell, sizeof cell, "%.1f%% %.3f", a->n ? 100.0 * a->top1 / a->n : 0.0,
                     a->n ? a->loss / a->n : 0.0);
            printf("  %-14s", cell);
        }
        printf("\n");
    }
    printf("\neach cell: top-1 accuracy, then the mean log-loss of the true colour (-ln p)\n");
    return 0;
}
