/*
 * npz.c — the .npz writer of npz.h.
 *
 * The archive: for each array one ZIP entry "NAME.npy", stored (method 0),
 * with ZIP64 sizes in its local header and central directory entry (so an
 * array may pass 4 GiB), then the ZIP64 end records and the classic end
 * record pointing at them.  Each entry is an .npy version 1.0 file: the
 * magic, a header dict padded so the data starts on a 64-byte boundary of
 * the entry, the raw little-endian rows.  The CRC-32 of an entry is worked
 * out while it is copied and patched into its local header afterwards.
 * Invariant: only npz_finish creates the final name, by rename() of a
 * complete, synced file.
 */
#define _GNU_SOURCE /* mkostemp's O_CLOEXEC */
#include "npz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPZ_MAX_ARRAYS 24

typedef struct npz_member {
    char name[48];
    char dtype[8];
    int itemsize, columns;
    FILE *rows; /* unlinked temporary file */
    uint64_t items;
} npz_member;

struct npz_writer {
    char dir[2048], name[256];
    npz_member member[NPZ_MAX_ARRAYS];
    int count;
    uint32_t crc_table[256]; /* CRC-32 (IEEE, reflected) by byte */
};

static void npz_crc_init(uint32_t table[256])
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
}

static uint32_t npz_crc(const uint32_t table[256], uint32_t crc, const unsigned char *p,
                        size_t n)
{
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* A temporary file in dir, unlinked at once (gone whatever happens). */
static FILE *npz_temp(const char *dir, char *err, size_t errlen)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/.tabula-npz-XXXXXX", dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write in %s: %s", dir, strerror(errno));
        return NULL;
    }
    unlink(path);
    FILE *f = fdopen(fd, "w+b");
    if (!f) {
        snprintf(err, errlen, "cannot write in %s: %s", dir, strerror(errno));
        close(fd);
    }
    return f;
}

npz_writer *npz_new(const char *dir, const char *name, char *err, size_t errlen)
{
    if (strlen(dir) >= sizeof ((npz_writer *)0)->dir ||
        strlen(name) >= sizeof ((npz_writer *)0)->name || strchr(name, '/')) {
        snprintf(err, errlen, "the output name is too long");
        return NULL;
    }
    npz_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    snprintf(w->name, sizeof w->name, "%s", name);
    npz_crc_init(w->crc_table);
    return w;
}

int npz_array(npz_writer *w, const char *name, const char *dtype, int columns, char *err,
              size_t errlen)
{
    int size = strcmp(dtype, "<f4") == 0 || strcmp(dtype, "<i4") == 0 ? 4
               : strcmp(dtype, "<i8") == 0                             ? 8
               : strcmp(dtype, "|i1") == 0 || strcmp(dtype, "|u1") == 0 ? 1
                                                                         : 0;
    if (!size || w->count >= NPZ_MAX_ARRAYS || strlen(name) + 5 > sizeof w->member[0].name ||
        columns < 0) {
        snprintf(err, errlen, "npz: bad array '%s'", name);
        return -1;
    }
    npz_member *m = &w->member[w->count];
    m->rows = npz_temp(w->dir, err, errlen);
    if (!m->rows)
        return -1;
    snprintf(m->name, sizeof m->name, "%s.npy", name);
    snprintf(m->dtype, sizeof m->dtype, "%s", dtype);
    m->itemsize = size;
    m->columns = columns;
    return w->count++;
}

int npz_append(npz_writer *w, int a, const void *data, size_t items, char *err, size_t errlen)
{
    npz_member *m = &w->member[a];
    if (items && fwrite(data, (size_t)m->itemsize, items, m->rows) != items) {
        snprintf(err, errlen, "cannot write in %s: %s", w->dir, strerror(errno));
        return -1;
    }
    m->items += items;
    return 0;
}

uint64_t npz_rows(const npz_writer *w, int a)
{
    const npz_member *m = &w->member[a];
    return m->columns ? m->items / (uint64_t)m->columns : m->items;
}

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The .npy header of a member: magic, version 1.0, length, dict, padding
 * to 64 bytes; returns its length. */
static size_t npz_npy_header(const npz_member *m, uint64_t rows, char *out, size_t cap)
{
    char shape[64];
    if (m->columns)
        snprintf(shape, sizeof shape, "(%llu, %d)", (unsigned long long)rows, m->columns);
    else
        snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)rows);
    char dict[160];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     m->dtype, shape);
    size_t total = 10 + (size_t)n + 1;
    total = (total + 63) / 64 * 64;
    if (total > cap)
        return 0;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    put16((unsigned char *)out + 8, (uint32_t)(total - 10));
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', total - 10 - (size_t)n - 1);
    out[total - 1] = '\n';
    return total;
}

int npz_finish(npz_writer *w, char *err, size_t errlen)
{
    char tmp[2400], final[2400];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp%ld", w->dir, w->name, (long)getpid());
    snprintf(final, sizeof final, "%s/%s", w->dir, w->name);
    FILE *out = fopen(tmp, "w+b");
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s", final, strerror(errno));
        return -1;
    }
    uint64_t offset[NPZ_MAX_ARRAYS], size[NPZ_MAX_ARRAYS];
    uint32_t crc[NPZ_MAX_ARRAYS];
    uint64_t at = 0;
    size_t bufsize = (size_t)1 << 16;
    unsigned char *buf = malloc(bufsize);
    bool ok = buf != NULL;
    for (int a = 0; ok && a < w->count; a++) {
        npz_member *m = &w->member[a];
        char header[256];
        size_t hlen = npz_npy_header(m, npz_rows(w, a), header, sizeof header);
        uint64_t bytes = m->items * (uint64_t)m->itemsize;
        size[a] = hlen + bytes;
        offset[a] = at;
        size_t nlen = strlen(m->name);
        unsigned char local[30 + 48 + 20];
        memset(local, 0, sizeof local);
        put32(local, 0x04034b50);
        put16(local + 4, 45);                /* version needed: ZIP64 */
        put32(local + 18, 0xffffffffu);      /* sizes: in the ZIP64 extra */
        put32(local + 22, 0xffffffffu);
        put16(local + 26, (uint32_t)nlen);
        put16(local + 28, 20);
        memcpy(local + 30, m->name, nlen);
        unsigned char *x = local + 30 + nlen;
        put16(x, 1);
        put16(x + 2, 16);
        put64(x + 4, size[a]);
        put64(x + 12, size[a]);
        size_t llen = 30 + nlen + 20;
        ok = hlen && fwrite(local, 1, llen, out) == llen &&
             fwrite(header, 1, hlen, out) == hlen && fflush(m->rows) == 0 &&
             fseeko(m->rows, 0, SEEK_SET) == 0;
        uint32_t c = npz_crc(w->crc_table, 0, (const unsigned char *)header, hlen);
        uint64_t left = bytes;
        while (ok && left > 0) {
            size_t want = left < bufsize ? (size_t)left : bufsize;
            ok = fread(buf, 1, want, m->rows) == want && fwrite(buf, 1, want, out) == want;
            c = npz_crc(w->crc_table, c, buf, want);
            left -= want;
        }
        crc[a] = c;
        unsigned char cb[4];
        put32(cb, c);
        off_t end = (off_t)(at + llen + size[a]);
        ok = ok && fseeko(out, (off_t)(at + 14), SEEK_SET) == 0 && fwrite(cb, 1, 4, out) == 4 &&
             fseeko(out, end, SEEK_SET) == 0;
        at = (uint64_t)end;
    }
    uint64_t cd_start = at;
    for (int a = 0; ok && a < w->count; a++) {
        const npz_member *m = &w->member[a];
        size_t nlen = strlen(m->name);
        unsigned char cen[46 + 48 + 28];
        memset(cen, 0, sizeof cen);
        put32(cen, 0x02014b50);
        put16(cen + 4, 45 | (3u << 8)); /* made by: Unix */
        put16(cen + 6, 45);
        put32(cen + 16, crc[a]);
        put32(cen + 20, 0xffffffffu);
        put32(cen + 24, 0xffffffffu);
        put16(cen + 28, (uint32_t)nlen);
        put16(cen + 30, 28);
        put32(cen + 38, 0644u << 16); /* external attributes: -rw-r--r-- */
        put32(cen + 42, 0xffffffffu);
        memcpy(cen + 46, m->name, nlen);
        unsigned char *x = cen + 46 + nlen;
        put16(x, 1);
        put16(x + 2, 24);
        put64(x + 4, size[a]);
        put64(x + 12, size[a]);
        put64(x + 20, offset[a]);
        size_t clen = 46 + nlen + 28;
        ok = fwrite(cen, 1, clen, out) == clen;
        at += clen;
    }
    unsigned char end[56 + 20 + 22];
    memset(end, 0, sizeof end);
    put32(end, 0x06064b50); /* ZIP64 end of central directory */
    put64(end + 4, 44);
    put16(end + 12, 45 | (3u << 8));
    put16(end + 14, 45);
    put64(end + 24, (uint64_t)w->count);
    put64(end + 32, (uint64_t)w->count);
    put64(end + 40, at - cd_start);
    put64(end + 48, cd_start);
    put32(end + 56, 0x07064b50); /* its locator */
    put64(end + 64, at);
    put32(end + 72, 1);
    put32(end + 76, 0x06054b50); /* the classic end record */
    put16(end + 84, 0xffff);
    put16(end + 86, 0xffff);
    put32(end + 88, 0xffffffffu);
    put32(end + 92, 0xffffffffu);
    ok = ok && fwrite(end, 1, sizeof end, out) == sizeof end;
    ok = ok && fflush(out) == 0 && fsync(fileno(out)) == 0;
    int saved = errno;
    free(buf);
    ok = (fclose(out) == 0) && ok;
    if (!ok || rename(tmp, final) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", final, strerror(ok ? errno : saved));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void npz_free(npz_writer *w)
{
    if (!w)
        return;
    for (int a = 0; a < w->count; a++)
        if (w->member[a].rows)
            fclose(w->member[a].rows);
    free(w);
}
