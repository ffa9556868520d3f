/*
 * file.c — the one reader of a file a user hands in: a board, a record, a
 * state (tabula.h, "files a user hands in").  The C API's tb_data_read_file,
 * the command line (--board, --data-dir, replay, review), the server's
 * --data-dir and the Python package all read through tb_file_read, so they
 * refuse the same files in the same words.
 *
 * Invariants: only a regular file is ever opened for reading: a folder, a
 * device, a FIFO or a socket is refused from its stat before it is opened,
 * and the open itself never waits (O_NONBLOCK, checked again on the open
 * descriptor against a swap in between).  At most TB_FILE_MAX + 1 bytes are
 * read and held, whatever the file claims or turns out to be; a refusal
 * returns NULL, frees whatever it read, sets errno and says why in err.
 * This is the library's only file access (DEVELOPERS.md, "Layout").
 */
#include "game.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file of this mode is, in words, when it is no regular file. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISFIFO(mode))
        return "a pipe (FIFO)";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* NULL with errno = code and err said; frees buf and closes fd (-1: none). */
static char *file_fail(int fd, char *buf, int code)
{
    free(buf);
    if (fd >= 0)
        close(fd);
    errno = code;
    return NULL;
}

/* The refusal (an errno) of a file that is no regular file or too large, 0
 * when it may be read. */
static int file_check(const char *path, const struct stat *st, char *err, size_t errlen)
{
    if (!S_ISREG(st->st_mode)) {
        tb__errf(err, errlen, "%s is %s, not a file: give the path of a board, record or state file",
                 path, file_kind(st->st_mode));
        return S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
    }
    if (st->st_size > (off_t)TB_FILE_MAX) {
        tb__errf(err, errlen, "%s is larger than 64 MiB, more than any board, record or state", path);
        return EFBIG;
    }
    return 0;
}

char *tb_file_read(const char *path, size_t *len, char *err, size_t errlen)
{
    if (len)
        *len = 0;
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        tb__errf(err, errlen, "cannot open %s: %s", path, strerror(e));
        return file_fail(-1, NULL, e);
    }
    int code = file_check(path, &st, err, errlen);
    if (code)
        return file_fail(-1, NULL, code);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        tb__errf(err, errlen, "cannot open %s: %s", path, strerror(e));
        return file_fail(-1, NULL, e);
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        tb__errf(err, errlen, "cannot read %s: %s", path, strerror(e));
        return file_fail(fd, NULL, e);
    }
    if ((code = file_check(path, &st, err, errlen)) != 0)
        return file_fail(fd, NULL, code);
    /* the size is a hint (a file under /proc says 0, a file may grow): read
     * until the end, never past TB_FILE_MAX + 1 bytes */
    size_t cap = (size_t)st.st_size + 1, got = 0;
    if (cap < 4096)
        cap = 4096;
    char *buf = malloc(cap + 1);
    if (!buf) {
        tb__errf(err, errlen, "cannot read %s: out of memory", path);
        return file_fail(fd, NULL, ENOMEM);
    }
    for (;;) {
        if (got == cap) {
            if (cap > TB_FILE_MAX) {
                tb__errf(err, errlen, "%s is larger than 64 MiB, more than any board, record or state",
                         path);
                return file_fail(fd, buf, EFBIG);
            }
            size_t grown = cap * 2 > TB_FILE_MAX + 1 ? TB_FILE_MAX + 1 : cap * 2;
            char *p = realloc(buf, grown + 1);
            if (!p) {
                tb__errf(err, errlen, "cannot read %s: out of memory", path);
                return file_fail(fd, buf, ENOMEM);
            }
            buf = p;
            cap = grown;
        }
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            tb__errf(err, errlen, "cannot read %s: %s", path, strerror(e));
            return file_fail(fd, buf, e);
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    size_t text = strlen(buf);
    if (text != got) {
        tb__errf(err, errlen, "%s: not a text file (byte %zu is a NUL)", path, text);
        return file_fail(-1, buf, EILSEQ);
    }
    size_t good = tb__utf8_prefix(buf);
    if (good != got) {
        tb__errf(err, errlen, "%s: not a text file (byte %zu is not UTF-8)", path, good);
        return file_fail(-1, buf, EILSEQ);
    }
    if (len)
        *len = got;
    return buf;
}
