/*
 * util.c — helpers of the command line: the clock, argument parsing with
 * one-line errors, atomic writes, and the board files a command loads
 * (--board FILE, --data-dir DIR: docs/data-format.md).  The clock lives
 * here, not in the engine library (DESIGN.md §2); every file a user hands in
 * is read through the library's one capped reader (tb_file_read: regular
 * files of at most 64 MiB, UTF-8 text).
 */
#include "cli.h"

#include <dirent.h>
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

int cli_parse_shard(const char *text, uint64_t max, uint64_t *k, uint64_t *n)
{
    const char *slash = strchr(text, '/');
    if (!slash || slash == text || (size_t)(slash - text) >= 24)
        return -1;
    char left[24];
    memcpy(left, text, (size_t)(slash - text));
    left[slash - text] = '\0';
    uint64_t a, b;
    if (cli_parse_u64(left, &a) || cli_parse_u64(slash + 1, &b) || b < 1 || b > max || a >= b)
        return -1;
    *k = a;
    *n = b;
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

static int cli_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cli_load_data_dir(tb_data_set *set, const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a folder", dir);
        return -1;
    }
    for (int g = 0; g < tb_game_count(); g++) {
        const tb_game *game = tb_game_at(g);
        if (!tb_data_builtin(game))
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, tb_game_name(game));
        DIR *d = opendir(sub);
        if (!d)
            continue; /* no boards of this game */
        char **names = NULL;
        size_t count = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t n = strlen(e->d_name);
            if (n <= 4 || strcmp(e->d_name + n - 4, ".txt") != 0 || e->d_name[0] == '.')
                continue;
            char *copy = strdup(e->d_name);
            if (copy && count == cap) {
                char **grown = realloc(names, (cap ? cap * 2 : 16) * sizeof *names);
                if (grown) {
                    names = grown;
                    cap = cap ? cap * 2 : 16;
                } else {
                    free(copy);
                    copy = NULL;
                }
            }
            if (!copy) {
                snprintf(err, errlen, "cannot list %s: out of memory", sub);
                for (size_t i = 0; i < count; i++)
                    free(names[i]);
                free(names);
                closedir(d);
                return -1;
            }
            names[count++] = copy;
        }
        closedir(d);
        if (count)
            qsort(names, count, sizeof *names, cli_name_cmp);
        int rc = 0;
        for (size_t i = 0; i < count; i++) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", sub, names[i]);
            if (rc == 0) {
                tb_data *data = tb_data_read_file(game, path, err, errlen);
                if (!data || tb_data_set_add(set, data, err, errlen))
                    rc = -1;
            }
            free(names[i]);
        }
        free(names);
        if (rc)
            return -1;
    }
    return 0;
}

const tb_data *cli_board_arg(tb_data_set *set, const tb_game *game, const char *arg, char *err,
                             size_t errlen)
{
    if (!arg)
        return tb_data_builtin(game);
    if (!tb_data_builtin(game)) {
        snprintf(err, errlen, "%s has no boards to choose from", tb_game_title(game));
        return NULL;
    }
    /* a name the program knows, else a file */
    const tb_data *known = tb_data_name_ok(arg) ? tb_data_set_find(set, game, arg) : NULL;
    if (known)
        return known;
    tb_data *d = tb_data_read_file(game, arg, err, errlen);
    if (!d)
        return NULL;
    const char *name = tb_data_name(d);
    char copy[TB_DATA_NAME];
    snprintf(copy, sizeof copy, "%s", name);
    if (tb_data_set_add(set, d, err, errlen))
        return NULL;
    return tb_data_set_find(set, game, copy);
}
