/*
 * khronos_board.c — one Khronos board: its buildings, the square map and the
 * domains (connected groups of orthogonally adjacent buildings).
 *
 * Invariants kept by every function here: the buildings are sorted by their
 * first square; at[] names the building on every covered square and KH_NONE
 * elsewhere; occ is the set of covered squares; each building's dom is the
 * smallest index in its domain.  Domains are kept incrementally: adding a
 * building unites the domains it touches (a relabelling of their members),
 * removing one re-walks only the domain it leaves.  Nothing is recomputed
 * when a domain is only queried.
 */
#include "khronos.h"

#include <string.h>

#define FOR_BITS(bits, sq)                                                                         \
    for (int fb_w = 0; fb_w < KH_WORDS; fb_w++)                                                           \
        for (uint64_t fb_m = (bits).w[fb_w]; fb_m; fb_m &= fb_m - 1)                               \
            for (int sq = fb_w * 64 + __builtin_ctzll(fb_m), fb_once = 1; fb_once; fb_once = 0)

const kh_place *kh_place_of(const kh_bld *b)
{
    return &khronos__place[b->place];
}

int kh_anchor(const kh_bld *b)
{
    return khronos__place[b->place].sq[0];
}

int kh_board_find(const kh_board *bd, int anchor)
{
    if (anchor < 0 || anchor >= KH_MAXSQ)
        return -1;
    int i = bd->at[anchor];
    return i != KH_NONE && kh_anchor(&bd->b[i]) == anchor ? i : -1;
}

void kh_board_init(kh_board *bd)
{
    memset(bd, 0, sizeof *bd);
    memset(bd->at, KH_NONE, sizeof bd->at);
}

int kh_board_add(kh_board *bd, int place, int type, int owner, int flags)
{
    const kh_place *p = &khronos__place[place];
    int pos = 0;
    while (pos < bd->nb && kh_anchor(&bd->b[pos]) < p->sq[0])
        pos++;
    memmove(&bd->b[pos + 1], &bd->b[pos], (size_t)(bd->nb - pos) * sizeof bd->b[0]);
    bd->nb++;
    for (int i = 0; i < bd->nb; i++)
        if (i != pos && bd->b[i].dom >= pos)
            bd->b[i].dom++;
    for (int i = pos + 1; i < bd->nb; i++) {
        const kh_place *q = kh_place_of(&bd->b[i]);
        for (int k = 0; k < q->n; k++)
            bd->at[q->sq[k]] = (uint8_t)i;
    }
    kh_bld *b = &bd->b[pos];
    memset(b, 0, sizeof *b);
    b->place = (uint16_t)place;
    b->type = (uint8_t)type;
    b->owner = (uint8_t)owner;
    b->flags = (uint8_t)flags;
    b->reno = KH_NOBODY;
    memset(b->cube, KH_NOBODY, sizeof b->cube);
    b->orig = KH_NONE;
    /* the domains it touches become one */
    uint8_t roots[KH_MAXB];
    int n = kh_board_touching(bd, p->nbr, -1, roots, KH_MAXB);
    int root = pos;
    for (int k = 0; k < n; k++)
        if (roots[k] < root)
            root = roots[k];
    for (int i = 0; i < bd->nb; i++) {
        if (i == pos)
            continue;
        for (int k = 0; k < n; k++)
            if (bd->b[i].dom == roots[k]) {
                bd->b[i].dom = (uint8_t)root;
                break;
            }
    }
    b->dom = (uint8_t)root;
    for (int k = 0; k < p->n; k++)
        bd->at[p->sq[k]] = (uint8_t)pos;
    kh_bits_add(&bd->occ, p->mask);
    return pos;
}

/* Gives every building marked in `members` (indices) its canonical domain:
 * the smallest index of its connected component within the members. */
static void board_walk(kh_board *bd, const uint64_t members[2])
{
    uint64_t left[2] = {members[0], members[1]};
    uint8_t queue[KH_MAXB];
    for (int w = 0; w < 2; w++) {
        while (left[w]) {
            int start = w * 64 + __builtin_ctzll(left[w]);
            left[w] &= left[w] - 1;
            int head = 0, tail = 0;
            queue[tail++] = (uint8_t)start;
            bd->b[start].dom = (uint8_t)start;
            while (head < tail) {
                int i = queue[head++];
                FOR_BITS(kh_bits_and(khronos__place[bd->b[i].place].nbr, bd->occ), sq) {
                    int j = bd->at[sq];
                    if ((left[j >> 6] >> (j & 63)) & 1) {
                        left[j >> 6] &= ~(1ULL << (j & 63));
                        bd->b[j].dom = (uint8_t)start;
                        queue[tail++] = (uint8_t)j;
                    }
                }
            }
        }
    }
}

void kh_board_remove(kh_board *bd, int i)
{
    int root = bd->b[i].dom;
    uint64_t members[2] = {0, 0};
    for (int j = 0; j < bd->nb; j++)
        if (j != i && bd->b[j].dom == root) {
            int k = j > i ? j - 1 : j;
            members[k >> 6] |= 1ULL << (k & 63);
        }
    const kh_place *p = kh_place_of(&bd->b[i]);
    for (int k = 0; k < p->n; k++)
        bd->at[p->sq[k]] = KH_NONE;
    bd->occ = kh_bits_minus(bd->occ, p->mask);
    memmove(&bd->b[i], &bd->b[i + 1], (size_t)(bd->nb - i - 1) * sizeof bd->b[0]);
    bd->nb--;
    memset(&bd->b[bd->nb], 0, sizeof bd->b[0]);
    for (int j = 0; j < bd->nb; j++) {
        if (bd->b[j].dom > i)
            bd->b[j].dom--;
        if (j >= i) {
            const kh_place *q = kh_place_of(&bd->b[j]);
            for (int k = 0; k < q->n; k++)
                bd->at[q->sq[k]] = (uint8_t)j;
        }
    }
    board_walk(bd, members);
}

void kh_board_rebuild(kh_board *bd)
{
    memset(bd->at, KH_NONE, sizeof bd->at);
    memset(&bd->occ, 0, sizeof bd->occ);
    uint64_t all[2] = {0, 0};
    for (int i = 0; i < bd->nb; i++) {
        const kh_place *p = kh_place_of(&bd->b[i]);
        for (int k = 0; k < p->n; k++)
            bd->at[p->sq[k]] = (uint8_t)i;
        kh_bits_add(&bd->occ, p->mask);
        all[i >> 6] |= 1ULL << (i & 63);
    }
    board_walk(bd, all);
}

int kh_board_touching(const kh_board *bd, kh_bits nbr, int skip_root, uint8_t *roots, int max)
{
    int n = 0;
    FOR_BITS(kh_bits_and(nbr, bd->occ), sq) {
        int r = bd->b[bd->at[sq]].dom;
        if (r == skip_root)
            continue;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = roots[k] == r;
        if (!seen && n < max)
            roots[n++] = (uint8_t)r;
    }
    return n;
}

void kh_board_domains(const kh_board *bd, kh_domstat st[KH_MAXB])
{
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *b = &bd->b[i];
        kh_domstat *d = &st[b->dom];
        if (b->dom == i)
            memset(d, 0, sizeof *d);
    }
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *b = &bd->b[i];
        kh_domstat *d = &st[b->dom];
        int f = KH_FAMILY(b->type), v = KH_SIZE(b->type);
        d->members++;
        if (b->flags & KH_RUIN)
            continue;
        d->power[f] = (uint8_t)(d->power[f] + v);
        if (f == KH_CIVIL)
            continue;
        if (v > d->top[f]) {
            d->top[f] = (uint8_t)v;
            d->ntop[f] = 1;
        } else if (v == d->top[f]) {
            d->ntop[f]++;
        }
    }
}

void kh_board_snapshot(kh_board *bd, int fam)
{
    uint8_t power[KH_MAXB];
    for (int i = 0; i < bd->nb; i++)
        if (bd->b[i].dom == i)
            power[i] = 0;
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *b = &bd->b[i];
        if (KH_FAMILY(b->type) == fam && !(b->flags & KH_RUIN))
            power[b->dom] = (uint8_t)(power[b->dom] + KH_SIZE(b->type));
    }
    for (int i = 0; i < bd->nb; i++) {
        kh_bld *b = &bd->b[i];
        if (KH_FAMILY(b->type) == KH_CIVIL)
            continue; /* civil buildings never conflict */
        b->orig = (uint8_t)kh_anchor(&bd->b[b->dom]);
        b->opower = power[b->dom];
    }
}

void kh_board_clear_snapshot(kh_board *bd)
{
    for (int i = 0; i < bd->nb; i++) {
        bd->b[i].orig = KH_NONE;
        bd->b[i].opower = 0;
    }
}
