/*
 * failalloc.c — a test-only LD_PRELOAD library that makes one chosen
 * allocation of a running `tabula serve` fail (tests/server/oom.test.mjs).
 * The shipped binary has no such hook: this library stands in for the C
 * library's malloc, calloc and realloc only in the process it is preloaded
 * into, and passes every call through (glibc's __libc_* entry points).
 *
 * Control: TABULA_FAILALLOC names a file of at least 16 bytes, mapped
 * shared, that the test writes and reads while the server runs:
 *   bytes 0-7   countdown (int64, little-endian): while above 0 each
 *               allocation in any thread counts it down, and the one that
 *               brings it to 0 fails (returns NULL); 0 or less: none fails;
 *   bytes 8-15  failed (int64): how many allocations were made to fail.
 * Invariants: at most one allocation fails per arming (the countdown goes
 * below 0 afterwards, never back up by itself); without the variable, or
 * with a file that cannot be mapped, nothing ever fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

static int64_t *failalloc_ctl; /* the mapped control words, or NULL */

__attribute__((constructor)) static void failalloc_init(void)
{
    const char *path = getenv("TABULA_FAILALLOC");
    if (!path)
        return;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    void *p = mmap(NULL, 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED)
        failalloc_ctl = p;
}

static int failalloc_now(void)
{
    int64_t *ctl = failalloc_ctl;
    if (!ctl || __atomic_load_n(&ctl[0], __ATOMIC_RELAXED) <= 0)
        return 0;
    if (__atomic_sub_fetch(&ctl[0], 1, __ATOMIC_SEQ_CST) != 0)
        return 0;
    __atomic_add_fetch(&ctl[1], 1, __ATOMIC_SEQ_CST);
    return 1;
}

/* A failed allocation says why, as the C library's does (errno ENOMEM):
 * callers such as libsodium's Argon2id tell "no memory" from "wrong" by it. */
static void *failalloc_none(void)
{
    errno = ENOMEM;
    return NULL;
}

void *malloc(size_t size)
{
    return failalloc_now() ? failalloc_none() : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return failalloc_now() ? failalloc_none() : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return failalloc_now() ? failalloc_none() : __libc_realloc(p, size);
}

void free(void *p)
{
    __libc_free(p);
}
