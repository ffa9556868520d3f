/*
 * story.c — a finished game's story in numbers (tb_record_story_json): every
 * seat's score at every step, the stage of every step, and the points each
 * seat made in each stage, source by source from the score breakdown.  The
 * result page's score graph, its "Points by stage" table and "Where the
 * points came from" all read this one answer, so they cannot tell two
 * stories.
 *
 * Invariants: decision k (from step k to k + 1) belongs to the stage of step
 * k, so the final step opens no stage of its own.  A stage's parts are the
 * change of each breakdown source over its steps (sources that did not
 * change left out), except that a source named after a stage ("Epoch III
 * villages", "Turn 4 earnings": it begins with the stage's name up to any
 * " of ") counts whole in that stage: one Clans decision can found villages
 * of two epochs, and the breakdown then says which epoch each belongs to.
 * A stage's points are the sum of its parts; for a seat whose score the
 * breakdown cannot explain at some stage's end they are the score's change
 * over the stage and its parts are null.  Points a seat holds before any
 * decision (Khronos' starting Ecus) make a first entry "At the start"
 * (from = to = 0); a stage that only the final step is in, when a source
 * names it, makes a last entry (from = to = the decisions made).  So the
 * entries of a seat add up to its final score and each source's parts to
 * its final part.
 */
#include "game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORY_STAGE_LEN 64

typedef struct story_parts {
    int n[TB_MAX_SEATS]; /* -1: no breakdown at this step */
    tb_score_part part[TB_MAX_SEATS][TB_BREAKDOWN_MAX];
    int score[TB_MAX_SEATS];
} story_parts;

typedef struct story_entry {
    char stage[STORY_STAGE_LEN];
    int from, to;
} story_entry;

/* Points of `source` among a seat's parts (0 when it has none). */
static int story_points_of(const tb_score_part *parts, int n, const char *source)
{
    for (int i = 0; i < n; i++)
        if (strcmp(parts[i].source, source) == 0)
            return parts[i].points;
    return 0;
}

/* Does `source` name `stage` (begin with its name up to any " of ", then a
 * space or a comma)? */
static bool story_names(const char *source, const char *stage)
{
    const char *of = strstr(stage, " of ");
    size_t len = of ? (size_t)(of - stage) : strlen(stage);
    return len > 0 && strncmp(source, stage, len) == 0 && (source[len] == ' ' || source[len] == ',');
}

/* The entry (other than "At the start") a source names, or -1. */
static int story_named(const story_entry *e, int entries, int first, const char *source)
{
    for (int i = first; i < entries; i++)
        if (story_names(source, e[i].stage))
            return i;
    return -1;
}

static void story_add(json_t *list, const char *source, int points, int *sum)
{
    if (!points)
        return;
    json_array_append_new(list, json_pack("{s:s, s:i}", "source", source, "points", points));
    *sum += points;
}

/* Entry i's parts of seat p into `list`; returns their sum.  b[i] and
 * b[i + 1] are the breakdowns where the entry begins and ends (b[0] of the
 * start entry is all zero), `last` the final one. */
static int story_seat_parts(const story_entry *e, int entries, int first, const story_parts *b, int i,
                            int p, json_t *list)
{
    const story_parts *a = &b[i], *z = &b[i + 1], *last = &b[entries];
    int sum = 0;
    /* the sources that changed here, named after no other stage */
    for (int q = 0; q < z->n[p]; q++) {
        const tb_score_part *x = &z->part[p][q];
        int named = story_named(e, entries, first, x->source);
        if (named < 0)
            story_add(list, x->source, x->points - story_points_of(a->part[p], a->n[p], x->source), &sum);
        else if (named == i)
            story_add(list, x->source, story_points_of(last->part[p], last->n[p], x->source), &sum);
    }
    for (int q = 0; q < a->n[p]; q++) {
        const tb_score_part *x = &a->part[p][q];
        bool kept = false;
        for (int r = 0; r < z->n[p] && !kept; r++)
            kept = strcmp(z->part[p][r].source, x->source) == 0;
        if (!kept && story_named(e, entries, first, x->source) < 0)
            story_add(list, x->source, -x->points, &sum);
    }
    /* a source named after this stage whose points all came elsewhere */
    for (int q = 0; q < last->n[p]; q++) {
        const tb_score_part *x = &last->part[p][q];
        bool here = false;
        for (int r = 0; r < z->n[p] && !here; r++)
            here = strcmp(z->part[p][r].source, x->source) == 0;
        if (!here && story_named(e, entries, first, x->source) == i)
            story_add(list, x->source, x->points, &sum);
    }
    return sum;
}

/* The JSON of every entry; b[0..entries] the breakdowns at their bounds. */
static json_t *story_entries_json(const story_entry *e, int entries, const story_parts *b, int players)
{
    int first = entries > 0 && strcmp(e[0].stage, "At the start") == 0 ? 1 : 0;
    bool explained[TB_MAX_SEATS];
    for (int p = 0; p < players; p++) {
        explained[p] = true;
        for (int i = first; i <= entries; i++)
            explained[p] &= b[i].n[p] >= 0;
    }
    json_t *all = json_array();
    for (int i = 0; i < entries; i++) {
        json_t *points = json_array(), *parts = json_array();
        for (int p = 0; p < players; p++) {
            int change = b[i + 1].score[p] - b[i].score[p];
            if (explained[p]) {
                json_t *list = json_array();
                change = story_seat_parts(e, entries, first, b, i, p, list);
                json_array_append_new(parts, list);
            } else {
                json_array_append_new(parts, json_null());
            }
            json_array_append_new(points, json_integer(change));
        }
        json_array_append_new(all, json_pack("{s:s, s:i, s:i, s:o, s:o}", "stage", e[i].stage, "from",
                                             e[i].from, "to", e[i].to, "points", points, "parts", parts));
    }
    return all;
}

char *tb_record_story_json(const tb_record *rec, const tb_data_set *boards, char *err, size_t errlen)
{
    if (!rec) {
        tb__errf(err, errlen, "no record");
        return NULL;
    }
    tb_state *s = tb_record_replay_in(rec, 0, boards, err, errlen);
    if (!s)
        return NULL;
    const int players = s->players, total = tb_record_length(rec);
    json_t *scores = json_array(), *stages = json_array();
    /* entries, and the breakdowns at their bounds: b[i] where entry i
     * begins (b[0] zero when the first is "At the start"), b[i + 1] where it
     * ends; at most one entry a step, and the start */
    story_entry *e = malloc(sizeof *e * (size_t)(total + 2));
    story_parts *b = calloc((size_t)total + 3, sizeof *b);
    int entries = 0, k = 0;
    char stage[STORY_STAGE_LEN];
    if (!e || !b) {
        tb__errf(err, errlen, "out of memory");
        k = -1;
        goto out;
    }
    for (;; k++) {
        int sc[TB_MAX_SEATS];
        tb_scores(s, sc);
        json_t *row = json_array();
        for (int p = 0; p < players; p++)
            json_array_append_new(row, json_integer(sc[p]));
        json_array_append_new(scores, row);
        tb_stage_text(s, stage, sizeof stage);
        json_array_append_new(stages, json_string(stage));
        bool ends = k == total;
        bool opens = k == 0 || (!ends && strcmp(stage, e[entries - 1].stage) != 0);
        if (k == 0) {
            bool any = false;
            for (int p = 0; p < players; p++)
                any |= sc[p] != 0;
            if (any)
                e[entries++] = (story_entry){"At the start", 0, 0};
        }
        if (opens || ends) { /* the bound between two entries, or the last */
            story_parts *at = &b[entries];
            for (int p = 0; p < players; p++)
                at->n[p] = tb_score_breakdown(s, p, at->part[p]);
            memcpy(at->score, sc, sizeof at->score);
        }
        if (k > 0 && (opens || ends))
            e[entries - 1].to = k;
        if (opens) {
            story_entry *x = &e[entries++];
            snprintf(x->stage, sizeof x->stage, "%s", stage);
            x->from = x->to = k;
            if (ends) /* no decision at all: the stage ends where it begins */
                b[entries] = b[entries - 1];
        }
        if (ends) {
            /* the final step's stage has no decision, but a source names it
             * (the last Clans decision founded a village of the next
             * epoch): it gets an entry of its own, where that source counts */
            bool named = false;
            for (int p = 0; k > 0 && p < players && strcmp(stage, e[entries - 1].stage) != 0; p++)
                for (int q = 0; q < b[entries].n[p]; q++)
                    named |= story_names(b[entries].part[p][q].source, stage);
            if (named) {
                story_entry *x = &e[entries++];
                snprintf(x->stage, sizeof x->stage, "%s", stage);
                x->from = x->to = k;
                b[entries] = b[entries - 1];
            }
            break;
        }
        tb_move m;
        char why[TB_ERR_LEN];
        if (tb_text_to_move(s, tb_record_move(rec, k), &m, why, sizeof why) || !tb_is_legal(s, m)) {
            tb__errf(err, errlen, "decision %d does not replay: %s", k + 1, why);
            break;
        }
        tb_apply(s, m);
    }
out:
    tb_state_free(s);
    char *text = NULL;
    if (k == total) {
        json_t *j = json_pack("{s:i, s:i, s:o, s:o, s:o}", "players", players, "total", total, "scores",
                              scores, "stages", stages, "by_stage",
                              story_entries_json(e, entries, b, players));
        text = tb__json_dump(j);
        json_decref(j);
    } else {
        json_decref(scores);
        json_decref(stages);
    }
    free(e);
    free(b);
    return text;
}
