/*
 * shape.h — polyominoes (tile shapes) as board files give them: put in one
 * canonical form and checked for being one piece.  The run-time board readers
 * of Arkadia and Khronos use it (and through them the build-time generators,
 * which compile those readers alone with only the C library), so it is
 * header-only and needs nothing but <stdbool.h> and <stdlib.h>.
 *
 * Invariants: a shape has at most TB_SHAPE_MAX_CELLS cells; after
 * tb__shape_normalise its box touches column 0 and row 0 and its cells are
 * sorted by row, then column, so two shapes are the same set of cells exactly
 * when tb__shape_same says so.
 */
#ifndef TB_CORE_SHAPE_H
#define TB_CORE_SHAPE_H

#include <stdbool.h>
#include <stdlib.h>

#define TB_SHAPE_MAX_CELLS 9 /* the largest tile of any game: Khronos's 3x3 */

/* A polyomino: cell i at column x[i], row y[i]. */
typedef struct tb_shape {
    int n;
    int x[TB_SHAPE_MAX_CELLS], y[TB_SHAPE_MAX_CELLS];
} tb_shape;

/* Moves the shape's box to column and row 0 and sorts its cells by row, then
 * column, so that equal shapes have equal cells. */
static inline void tb__shape_normalise(tb_shape *s)
{
    if (s->n <= 0)
        return;
    int mx = s->x[0], my = s->y[0];
    for (int i = 1; i < s->n; i++) {
        mx = s->x[i] < mx ? s->x[i] : mx;
        my = s->y[i] < my ? s->y[i] : my;
    }
    for (int i = 0; i < s->n; i++) {
        s->x[i] -= mx;
        s->y[i] -= my;
    }
    for (int i = 1; i < s->n; i++)
        for (int j = i; j > 0 && (s->y[j] < s->y[j - 1] || (s->y[j] == s->y[j - 1] && s->x[j] < s->x[j - 1]));
             j--) {
            int tx = s->x[j], ty = s->y[j];
            s->x[j] = s->x[j - 1];
            s->y[j] = s->y[j - 1];
            s->x[j - 1] = tx;
            s->y[j - 1] = ty;
        }
}

/* Whether two normalised shapes are the same. */
static inline bool tb__shape_same(const tb_shape *a, const tb_shape *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->x[i] != b->x[i] || a->y[i] != b->y[i])
            return false;
    return true;
}

/* Whether the cells are one orthogonally connected piece (an empty shape is
 * not). */
static inline bool tb__shape_connected(const tb_shape *s)
{
    if (s->n <= 0)
        return false;
    int reached = 1, grown = 1;
    while (grown) {
        grown = 0;
        for (int i = 0; i < s->n; i++) {
            if (reached >> i & 1)
                continue;
            for (int j = 0; j < s->n; j++)
                if ((reached >> j & 1) && abs(s->x[i] - s->x[j]) + abs(s->y[i] - s->y[j]) == 1) {
                    reached |= 1 << i;
                    grown = 1;
                    break;
                }
        }
    }
    return reached == (1 << s->n) - 1;
}

#endif
