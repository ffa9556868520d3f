/*
 * test_oom.c — the library when memory runs out (tabula.h, "Memory"): for
 * every operation a server or a program performs on a game (state, view and
 * result JSON, the legal list, reading a state, a decision in text, a record
 * written, read and replayed, the undo history's copy, a board file read,
 * the terminal board), the Nth allocation is made to fail, for N = 1, 2, ...
 * until the operation no longer reaches an Nth allocation.  Each time the
 * operation must return its failure (NULL or -1) and leave its arguments as
 * they were, or succeed with exactly the result of a run without the fault;
 * nothing may abort or crash.
 *
 * The fault comes from this program's own malloc, calloc and realloc, which
 * stand in for the C library's in the whole process (the library's, jansson's
 * and the C library's own calls, strdup's included) and pass through to it
 * (glibc's __libc_* entry points) unless a fault is armed.  Not built under
 * the sanitizers, which bring their own allocator.
 */
#include "tabula.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- the failing allocator ---- */

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

static atomic_long oom_countdown; /* > 0: the allocation that brings it to 0 fails */
static atomic_bool oom_failed;    /* the armed allocation was reached (and failed) */

static bool oom_now(void)
{
    if (atomic_load_explicit(&oom_countdown, memory_order_relaxed) <= 0)
        return false;
    if (atomic_fetch_sub(&oom_countdown, 1) != 1)
        return false;
    atomic_store(&oom_failed, true);
    return true;
}

void *malloc(size_t size)
{
    return oom_now() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return oom_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return oom_now() ? NULL : __libc_realloc(p, size);
}

void free(void *p)
{
    __libc_free(p);
}

/* Arms the fault at the nth allocation from now (0: none). */
static void oom_arm(long n)
{
    atomic_store(&oom_failed, false);
    atomic_store(&oom_countdown, n);
}

/* Disarms; true when the armed allocation was reached. */
static bool oom_disarm(void)
{
    atomic_store(&oom_countdown, 0);
    return atomic_load(&oom_failed);
}

/* ---- positions ---- */

typedef struct {
    tb_state *state;    /* a position some way into a game */
    tb_record *record;  /* the game so far */
    char move[TB_MOVE_TEXT]; /* a legal decision in it */
    char *state_json, *view_json, *result_json, *legal, *board;
} position;

static position deal(const char *game, int decisions, uint64_t seed)
{
    position p = {0};
    const tb_game *g = tb_game_find(game);
    assert_non_null(g);
    char err[TB_ERR_LEN];
    p.state = tb_state_new(g);
    assert_int_equal(tb_setup(p.state, tb_game_default_players(g), NULL, seed, err, sizeof err), 0);
    p.record = tb_record_new(g, tb_players(p.state), NULL, seed);
    tb_rng rng;
    tb_rng_seed(&rng, seed);
    for (int i = 0; i < decisions && !tb_is_over(p.state); i++) {
        tb_move m = tb_random_move(p.state, &rng);
        char text[TB_MOVE_TEXT];
        tb_move_to_text(p.state, m, text, sizeof text);
        assert_int_equal(tb_record_push(p.record, text), 0);
        tb_apply(p.state, m);
    }
    assert_false(tb_is_over(p.state));
    tb_move_to_text(p.state, tb_random_move(p.state, &rng), p.move, sizeof p.move);
    p.state_json = tb_state_json(p.state);
    p.view_json = tb_view_json(p.state, tb_to_move(p.state));
    p.result_json = tb_result_breakdown_json(p.state);
    p.legal = tb_legal_text(p.state);
    p.board = tb_render_text(p.state, tb_to_move(p.state), 0);
    assert_non_null(p.board);
    assert_non_null(p.state_json);
    assert_non_null(p.view_json);
    assert_non_null(p.result_json);
    assert_non_null(p.legal);
    return p;
}

static void position_free(position *p)
{
    tb_state_free(p->state);
    tb_record_free(p->record);
    free(p->state_json);
    free(p->view_json);
    free(p->result_json);
    free(p->legal);
    free(p->board);
}

/* ---- the sweep ---- */

/* One operation on p under a fault: 0 when it succeeded with the fault-free
 * result, 1 when it reported its failure and changed nothing; any other
 * outcome fails the test inside. */
typedef int (*oom_op)(const position *p);

/* Runs op with the Nth allocation failing for N = 1, 2, ... until op makes
 * fewer than N; returns how many allocations op makes. */
static long sweep(const char *what, oom_op op, const position *p)
{
    assert_int_equal(op(p), 0); /* fault-free */
    long n = 1;
    for (;; n++) {
        oom_arm(n);
        int rc = op(p);
        bool hit = oom_disarm();
        if (!hit) {
            assert_int_equal(rc, 0);
            break;
        }
        if (rc != 0 && rc != 1)
            fail_msg("%s: allocation %ld failed: outcome %d", what, n, rc);
    }
    assert_true(n > 1); /* the operation allocates at all: the sweep did something */
    if (getenv("OOM_VERBOSE"))
        print_message("%s: %ld allocations\n", what, n - 1);
    return n - 1;
}

/* A text result: NULL (failure) or the fault-free text. */
static int same_text(char *got, const char *want)
{
    if (!got)
        return 1;
    int rc = strcmp(got, want) == 0 ? 0 : 2;
    if (rc)
        print_message("got  %s\nwant %s\n", got, want);
    free(got);
    return rc;
}

static int op_state_json(const position *p) { return same_text(tb_state_json(p->state), p->state_json); }
static int op_view_json(const position *p)
{
    return same_text(tb_view_json(p->state, tb_to_move(p->state)), p->view_json);
}
static int op_result_json(const position *p)
{
    return same_text(tb_result_breakdown_json(p->state), p->result_json);
}
static int op_legal_text(const position *p) { return same_text(tb_legal_text(p->state), p->legal); }

/* Reading the state back: NULL with words, or the very state. */
static int op_state_load(const position *p)
{
    char err[TB_ERR_LEN] = "";
    tb_state *s = tb_state_load(p->state_json, err, sizeof err);
    if (!s)
        return err[0] ? 1 : 3;
    int rc = tb_state_equal(s, p->state) ? 0 : 2;
    tb_state_free(s);
    return rc;
}

/* The undo history's copy and the state's reset on top of a copy. */
static int op_dup(const position *p)
{
    tb_state *s = tb_state_dup(p->state);
    if (!s)
        return 1;
    int rc = tb_state_equal(s, p->state) ? 0 : 2;
    tb_state_free(s);
    return rc;
}

/* A decision in text on a copy made before the fault: refused (-1, words,
 * the copy unchanged) or made exactly as without the fault.  The fault is
 * armed here, after the copies: 5 when the decision made fewer allocations
 * than play_text_n. */
static long play_text_n; /* the fault armed for op_play_text_armed */

static int op_play_text_armed(const position *p)
{
    tb_state *s = tb_state_dup(p->state), *want = tb_state_dup(p->state);
    char err[TB_ERR_LEN] = "";
    assert_non_null(s);
    assert_non_null(want);
    assert_int_equal(tb_play_text(want, p->move, err, sizeof err), 0);
    err[0] = '\0';
    oom_arm(play_text_n);
    int rc = tb_play_text(s, p->move, err, sizeof err);
    bool hit = oom_disarm();
    int out;
    if (rc == 0)
        out = tb_state_equal(s, want) ? 0 : 2;
    else
        out = hit && err[0] && tb_state_equal(s, p->state) ? 1 : 4;
    tb_state_free(s);
    tb_state_free(want);
    return hit ? out : (out == 0 ? 5 : out);
}

/* A record written, read back and replayed. */
static int op_record(const position *p)
{
    char err[TB_ERR_LEN] = "";
    char *text = tb_record_json(p->record, NULL);
    if (!text)
        return 1;
    tb_record *rec = tb_record_from_json(text, err, sizeof err);
    free(text);
    if (!rec)
        return err[0] ? 1 : 3;
    tb_state *s = tb_record_replay(rec, -1, err, sizeof err);
    tb_record_free(rec);
    if (!s)
        return err[0] ? 1 : 3;
    int rc = tb_state_equal(s, p->state) ? 0 : 2;
    tb_state_free(s);
    return rc;
}

/* Reserving a decision, then pushing it: the push cannot fail. */
static int op_record_reserve(const position *p)
{
    tb_record *rec = tb_record_dup(p->record);
    if (!rec)
        return 1;
    int before = tb_record_length(rec), rc;
    if (tb_record_reserve(rec, p->move) != 0)
        rc = tb_record_length(rec) == before ? 1 : 2;
    else {
        long left = atomic_exchange(&oom_countdown, 1); /* the push's first allocation would fail */
        rc = tb_record_push(rec, p->move) == 0 && tb_record_length(rec) == before + 1 &&
                     strcmp(tb_record_move(rec, before), p->move) == 0
                 ? 0
                 : 6;
        bool pushed_alloc = atomic_load(&oom_countdown) <= 0;
        atomic_store(&oom_countdown, left);
        if (pushed_alloc)
            rc = 7; /* the push allocated after all */
    }
    tb_record_free(rec);
    return rc;
}

static int op_render(const position *p)
{
    return same_text(tb_render_text(p->state, tb_to_move(p->state), 0), p->board);
}

static void sweep_game(const char *game, int decisions, uint64_t seed)
{
    position p = deal(game, decisions, seed);
    sweep("state JSON", op_state_json, &p);
    sweep("view JSON", op_view_json, &p);
    sweep("result JSON", op_result_json, &p);
    sweep("legal list", op_legal_text, &p);
    sweep("state read", op_state_load, &p);
    sweep("state copy", op_dup, &p);
    sweep("record", op_record, &p);
    sweep("record reserve", op_record_reserve, &p);
    sweep("terminal board", op_render, &p);
    /* a decision in text: the fault at every allocation it makes */
    for (play_text_n = 1;; play_text_n++) {
        int rc = op_play_text_armed(&p);
        if (rc == 5)
            break; /* it made fewer allocations than play_text_n */
        if (rc != 0 && rc != 1)
            fail_msg("%s: a decision in text, allocation %ld failed: outcome %d", game,
                     play_text_n, rc);
    }
    /* the narration of a decision never fails it */
    tb_move m;
    char err[TB_ERR_LEN], buf[512], want[512];
    assert_int_equal(tb_text_to_move(p.state, p.move, &m, err, sizeof err), 0);
    assert_true(tb_narrate(p.state, m, NULL, want, sizeof want) > 0);
    for (long n = 1;; n++) {
        oom_arm(n);
        int len = tb_narrate(p.state, m, NULL, buf, sizeof buf);
        bool hit = oom_disarm();
        assert_true(len > 0);
        if (!hit) {
            assert_string_equal(buf, want);
            break;
        }
    }
    position_free(&p);
}

static void clans_survives_every_failed_allocation(void **unused)
{
    (void)unused;
    sweep_game("clans", 30, 5);
}

static void arkadia_survives_every_failed_allocation(void **unused)
{
    (void)unused;
    sweep_game("arkadia", 30, 6);
}

static void khronos_survives_every_failed_allocation(void **unused)
{
    (void)unused;
    sweep_game("khronos", 30, 7);
}

/* A board file's text read into tables, and a set of boards. */
static void boards_survive_every_failed_allocation(void **unused)
{
    (void)unused;
    const char *src = getenv("TABULA_SOURCE");
    char path[512], err[TB_ERR_LEN];
    snprintf(path, sizeof path, "%s/tests/data/khronos-small.txt", src ? src : ".");
    size_t len;
    char *text = tb_file_read(path, &len, err, sizeof err);
    if (!text)
        fail_msg("%s", err);
    const tb_game *kh = tb_game_find("khronos");
    tb_data *want = tb_data_read(kh, "small", text, len, path, err, sizeof err);
    assert_non_null(want);
    long n = 1;
    for (;; n++) {
        err[0] = '\0';
        oom_arm(n);
        tb_data_set *set = tb_data_set_new();
        tb_data *d = set ? tb_data_read(kh, "small", text, len, path, err, sizeof err) : NULL;
        int added = set && d ? tb_data_set_add(set, d, err, sizeof err) : -1;
        bool hit = oom_disarm();
        if (d && added != 0 && !err[0])
            fail_msg("allocation %ld: the set refused the board without a word", n);
        if (set && !d && !err[0])
            fail_msg("allocation %ld: the board was refused without a word", n);
        if (added == 0) {
            const tb_data *in = tb_data_set_find(set, kh, "small");
            assert_non_null(in);
            assert_string_equal(tb_data_hash(in), tb_data_hash(want));
        }
        tb_data_set_free(set);
        if (!hit) {
            assert_int_equal(added, 0);
            break;
        }
    }
    assert_true(n > 3);
    /* the file reader too: NULL with errno's words, or the whole text */
    for (n = 1;; n++) {
        oom_arm(n);
        char *again = tb_file_read(path, &len, err, sizeof err);
        bool hit = oom_disarm();
        if (again)
            assert_string_equal(again, text);
        else
            assert_non_null(strstr(err, "out of memory"));
        free(again);
        if (!hit)
            break;
    }
    tb_data_free(want);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clans_survives_every_failed_allocation),
        cmocka_unit_test(arkadia_survives_every_failed_allocation),
        cmocka_unit_test(khronos_survives_every_failed_allocation),
        cmocka_unit_test(boards_survive_every_failed_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
