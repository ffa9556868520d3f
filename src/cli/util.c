/*
 * util.c — helpers of the command line: the clock, argument parsing with
 * one-line errors, whole-file reads and atomic writes.  The clock and files
 * live here, not in the engine library (DESIGN.md §2).
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t cli_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t cli_cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void cli_iso_time(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tabula %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'tabula %s --help')\n", cmd);
    va_end(ap);
    return 2;
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int cli_parse_int(const char *text, long lo, long hi, long *out)
{
    if (!text || !*text)
        return -1;
    errno = 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_u64(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

uint64_t cli_random_seed(void)
{
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
            seed = 0;
        close(fd);
    }
    if (!seed)
        seed = cli_now_us() ^ (uint64_t)getpid() << 32;
    return seed % 1000000000u; /* short enough to type again */
}

char *cli_read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            if (cap > ((size_t)64 << 20)) {
                snprintf(err, errlen, "%s is larger than 64 MiB", path);
                free(buf);
                fclose(f);
                return NULL;
            }
            char *p = realloc(buf, cap *= 2);
            if (!p) {
                free(buf);
                buf = NULL;
            }
            buf = p;
        }
    }
    if (!buf || ferror(f)) {
        snprintf(err, errlen, "cannot read %s", path);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        snprintf(err, errlen, "%s contains a NUL byte: not a text file", path);
        free(buf);
        return NULL;
    }
    return buf;
}

int cli_write_file(const char *path, const char *text, char *err, size_t errlen)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    bool ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok &= fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

const tb_game *cli_game_arg(const char *cmd, const char *name)
{
    const tb_game *g = tb_game_find(name);
    if (!g) {
        char known[128] = "";
        for (int i = 0; i < tb_game_count(); i++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                     tb_game_name(tb_game_at(i)));
        }
        cli_usage(cmd, "unknown game '%s' (games: %s)", name, known);
    }
    return g;
}
