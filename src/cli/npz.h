/*
 * npz.h — a NumPy .npz writer for data sets of unknown length (tabula
 * selfplay; the layout it writes is in docs/research.md).
 *
 * Arrays are declared first (name, dtype, columns), then rows are appended
 * to each in any amounts; each array's rows wait in an unlinked temporary
 * file in the output folder.  npz_finish writes the archive (ZIP64, stored,
 * one .npy per array, CRC-32 checked by NumPy on reading) to a hidden
 * temporary name, syncs it and renames it into place, so the final file is
 * complete or absent, whatever interrupts the run; npz_free alone leaves
 * nothing behind.  The arrays are C-ordered, little-endian, 1 or 2
 * dimensions (rows, or rows x columns).
 */
#ifndef TB_CLI_NPZ_H
#define TB_CLI_NPZ_H

#include <stddef.h>
#include <stdint.h>

typedef struct npz_writer npz_writer;

/* A writer of `dir`/`name` (a file name, no folder); NULL and err. */
npz_writer *npz_new(const char *dir, const char *name, char *err, size_t errlen);
/* Declares an array: dtype "<f4", "<i4", "<i8", "|i1" or "|u1"; columns 0
 * for one dimension.  Its index (0, 1, ...), or -1 and err. */
int npz_array(npz_writer *w, const char *name, const char *dtype, int columns, char *err,
              size_t errlen);
/* Appends `items` values (a whole number of rows) to array `a`; 0 or -1. */
int npz_append(npz_writer *w, int a, const void *data, size_t items, char *err, size_t errlen);
/* Rows appended to array `a` so far. */
uint64_t npz_rows(const npz_writer *w, int a);
/* Writes the archive and renames it into place; 0 or -1 (then nothing is
 * left).  The writer must still be freed. */
int npz_finish(npz_writer *w, char *err, size_t errlen);
void npz_free(npz_writer *w);

#endif
