/*
 * test_file.c — unit tests of the one capped reader of the files a user
 * hands in (tb_file_read) and of tb_data_read_file on top of it: a device
 * (/dev/zero), a FIFO nobody writes to, a folder and a sparse file over
 * 64 MiB are refused at once with words and an errno, nothing is read from
 * them; a NUL byte or bad UTF-8 is refused with its position; a file whose
 * size says 0 (/proc) is still read whole; a board file is named after it.
 *
 * Each refusal runs under alarm(5): a reader that waits on the FIFO or
 * reads /dev/zero to its end fails by the signal instead of hanging.
 */
#include "tabula.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[] = "/tmp/tabula-test-file-XXXXXX";

/* DIR/NAME in buf. */
static const char *in_dir(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
    return buf;
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* tb_file_read of path must fail with errno `code` and words containing
 * `words`, within 5 seconds. */
static void refused(const char *path, int code, const char *words)
{
    char err[TB_ERR_LEN] = "";
    size_t len = 99;
    alarm(5);
    errno = 0;
    char *text = tb_file_read(path, &len, err, sizeof err);
    int got = errno;
    alarm(0);
    if (text || got != code || !strstr(err, words))
        fail_msg("%s: errno %d (wanted %d), '%s' (wanted '%s')", path, got, code, err, words);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err, path));
}

static void devices_fifos_folders_and_big_files_are_refused_at_once(void **unused)
{
    (void)unused;
    char path[512];
    refused("/dev/zero", EINVAL, "is a device, not a file");
    refused("/dev/null", EINVAL, "is a device, not a file");
    assert_int_equal(mkfifo(in_dir(path, sizeof path, "fifo.txt"), 0600), 0);
    refused(path, EINVAL, "is a pipe (FIFO), not a file");
    refused(dir, EISDIR, "is a folder, not a file");
    /* sparse: 64 MiB and one byte, not one block of it written */
    int fd = open(in_dir(path, sizeof path, "big.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)TB_FILE_MAX + 1), 0);
    assert_int_equal(close(fd), 0);
    refused(path, EFBIG, "is larger than 64 MiB");
    refused(in_dir(path, sizeof path, "missing.txt"), ENOENT, "cannot open");
    /* a board file behind any of them: the same refusal through the C API */
    const tb_game *kh = tb_game_find("khronos");
    char err[TB_ERR_LEN];
    alarm(5);
    errno = 0;
    assert_null(tb_data_read_file(kh, "/dev/zero", err, sizeof err));
    assert_int_equal(errno, EINVAL);
    assert_null(tb_data_read_file(kh, in_dir(path, sizeof path, "fifo.txt"), err, sizeof err));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(err, "is a pipe (FIFO)"));
    assert_null(tb_data_read_file(kh, in_dir(path, sizeof path, "big.txt"), err, sizeof err));
    assert_int_equal(errno, EFBIG);
    alarm(0);
}

static void text_must_be_utf8_without_nul(void **unused)
{
    (void)unused;
    char path[512];
    write_bytes(in_dir(path, sizeof path, "nul.txt"), "size 3\0x", 8);
    refused(path, EILSEQ, "not a text file (byte 6 is a NUL)");
    write_bytes(in_dir(path, sizeof path, "latin1.txt"), "size \xff\xfe", 7);
    refused(path, EILSEQ, "not a text file (byte 5 is not UTF-8)");
    write_bytes(in_dir(path, sizeof path, "cut.txt"), "caf\xc3", 4); /* a character cut off */
    refused(path, EILSEQ, "not a text file (byte 3 is not UTF-8)");
    write_bytes(in_dir(path, sizeof path, "ok.txt"), "caf\xc3\xa9\n", 6);
    char err[TB_ERR_LEN];
    size_t len = 0;
    char *text = tb_file_read(path, &len, err, sizeof err);
    assert_non_null(text);
    assert_int_equal(len, 6);
    assert_string_equal(text, "caf\xc3\xa9\n");
    free(text);
    write_bytes(in_dir(path, sizeof path, "empty.txt"), "", 0);
    text = tb_file_read(path, NULL, err, sizeof err);
    assert_non_null(text);
    assert_string_equal(text, "");
    free(text);
}

/* /proc files say size 0 and hold more than the first buffer: read whole. */
static void a_file_whose_size_says_nothing_is_read_whole(void **unused)
{
    (void)unused;
    char err[TB_ERR_LEN];
    size_t len = 0;
    char *text = tb_file_read("/proc/self/status", &len, err, sizeof err);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    assert_non_null(strstr(text, "Name:"));
    assert_non_null(strstr(text, "voluntary_ctxt_switches")); /* near its end */
    free(text);
}

static void board_files_are_named_after_the_file(void **unused)
{
    (void)unused;
    const char *src = getenv("TABULA_SOURCE");
    char path[512], copy[512], err[TB_ERR_LEN];
    snprintf(path, sizeof path, "%s/tests/data/khronos-small.txt", src ? src : ".");
    const tb_game *kh = tb_game_find("khronos");
    tb_data *d = tb_data_read_file(kh, path, err, sizeof err);
    if (!d)
        fail_msg("%s", err);
    assert_string_equal(tb_data_name(d), "khronos-small");
    assert_ptr_equal(tb_data_game(d), kh);
    char *text = tb_file_read(path, NULL, err, sizeof err);
    assert_non_null(text);
    /* the same text under the built-in board's name, a bad name, a game
     * without boards: refused with errno 0 (not the file's fault) */
    write_bytes(in_dir(copy, sizeof copy, "default.txt"), text, strlen(text));
    errno = EINVAL;
    assert_null(tb_data_read_file(kh, copy, err, sizeof err));
    assert_int_equal(errno, 0);
    assert_non_null(strstr(err, "built-in board"));
    write_bytes(in_dir(copy, sizeof copy, "two words.txt"), text, strlen(text));
    assert_null(tb_data_read_file(kh, copy, err, sizeof err));
    assert_non_null(strstr(err, "a board file is named NAME.txt"));
    assert_null(tb_data_read_file(tb_game_find("clans"), path, err, sizeof err));
    assert_non_null(strstr(err, "no boards to choose from"));
    /* a bad board: the reader's words with the line, errno 0 */
    write_bytes(in_dir(copy, sizeof copy, "bad.txt"), "size 3 3\nfoo\n", 13);
    errno = EINVAL;
    assert_null(tb_data_read_file(kh, copy, err, sizeof err));
    assert_int_equal(errno, 0);
    assert_non_null(strstr(err, "bad.txt:"));
    free(text);
    tb_data_free(d);
}

static int setup(void **unused)
{
    (void)unused;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **unused)
{
    (void)unused;
    const char *names[] = {"fifo.txt", "big.txt", "nul.txt", "latin1.txt", "cut.txt", "ok.txt",
                           "empty.txt", "default.txt", "two words.txt", "bad.txt"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        unlink(in_dir(path, sizeof path, names[i]));
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devices_fifos_folders_and_big_files_are_refused_at_once),
        cmocka_unit_test(text_must_be_utf8_without_nul),
        cmocka_unit_test(a_file_whose_size_says_nothing_is_read_whole),
        cmocka_unit_test(board_files_are_named_after_the_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
