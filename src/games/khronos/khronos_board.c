/*
 * khronos_board.c — one Khronos board (khronos_board.h): its buildings, the
 * square map and the domains (connected groups of orthogonally adjacent
 * buildings), and the checks that concern one board alone: where a tile may
 * be laid (geography, dominion, hierarchy: kh_place_ok for one placement,
 * and the scans of a whole board the legal-move generator uses, which must
 * give the same answers; new placements are found with set operations on
 * each form's first squares), the placements a downsized tile may keep, the
 * printed Hamlets, and a domain's hierarchy conflict.  It is
 * the layer below the rules: it reads the component tables and nothing of
 * khronos.c or of the state (hands, Ecus, turns, the other boards).
 *
 * Invariants kept by every function here: the buildings are sorted by their
 * first square; at[] names the building on every covered square and KH_NONE
 * elsewhere; occ is the set of covered squares; each building's dom is the
 * smallest index in its domain.  Domains are kept incrementally: adding a
 * building unites the domains it touches (a relabelling of their members),
 * removing one re-walks only the domain it leaves.  Nothing is recomputed
 * when a domain is only queried.
 */
#include "khronos_board.h"

#include <string.h>

/* KH_FAMILY and KH_SIZE of each type, without a division in the hot loops */
static const uint8_t board_family[KH_TYPES] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
static const uint8_t board_size[KH_TYPES] = {1, 2, 3, 1, 2, 3, 1, 2, 3};
/* Sets of buildings (domains joined or walked) are two 64-bit words. */
_Static_assert(KH_MAXB <= 128, "a set of a board's buildings must fit two words");

#define FOR_BITS(bits, sq)                                                                         \
    for (int fb_w = 0; fb_w < KH_WORDS; fb_w++)                                                           \
        for (uint64_t fb_m = (bits).w[fb_w]; fb_m; fb_m &= fb_m - 1)                               \
            for (int sq = fb_w * 64 + __builtin_ctzll(fb_m), fb_once = 1; fb_once; fb_once = 0)

int kh_board_find(const kh_board *bd, int anchor)
{
    if (anchor < 0 || anchor >= KH_MAXSQ)
        return -1;
    int i = bd->at[anchor];
    return i != KH_NONE && kh_anchor(&bd->b[i]) == anchor ? i : -1;
}

void kh_board_init(kh_board *bd, const kh_tables *tab)
{
    memset(bd, 0, sizeof *bd);
    bd->tab = tab;
    memset(bd->at, KH_NONE, sizeof bd->at);
}

/* Renumbers the square map after buildings from index `from` on moved by
 * `by` (+1 or -1) in the list: one pass over the whole map (its length is
 * a constant, so the compiler does it a vector at a time). */
static void board_shift_at(kh_board *bd, int from, int by)
{
    uint8_t lo = (uint8_t)from, step = (uint8_t)by; /* by -1: adding 0xff */
    uint8_t *at = bd->at;
    for (int s = 0; s < KH_MAXSQ + 1; s++) {
        uint8_t a = at[s];
        uint8_t hit = (uint8_t)-(uint8_t)((a >= lo) & (a != KH_NONE)); /* 0xff or 0 */
        at[s] = (uint8_t)(a + (hit & step));
    }
}

int kh_board_add(kh_board *bd, int place, int type, int owner, int flags)
{
    const kh_place *p = &bd->tab->place[place];
    /* the first building whose first square is after p's: a binary search
     * whose steps depend on the count alone (a select, not a branch, at
     * each: where the new building goes is random in a playout) */
    int pos = 0, len = bd->nb, key = p->sq[0];
    while (len > 1) { /* the answer lies in [pos, pos + len] */
        int half = len / 2;
        pos += (kh_anchor(&bd->b[pos + half - 1]) < key) * half;
        len -= half;
    }
    pos += len == 1 && kh_anchor(&bd->b[pos]) < key;
    /* the domains it touches (roots numbered as before the insertion) become
     * one, whose root is the smallest index among them and the new building */
    uint64_t touched[2] = {0, 0};
    FOR_BITS(kh_bits_and(p->nbr, bd->occ), sq) {
        int r = bd->b[bd->at[sq]].dom;
        touched[r >> 6] |= 1ULL << (r & 63);
    }
    int root = pos, first = KH_MAXB;
    if (touched[0] | touched[1]) {
        first = touched[0] ? __builtin_ctzll(touched[0]) : 64 + __builtin_ctzll(touched[1]);
        root = first + (first >= pos) < root ? first + (first >= pos) : root;
    }
    memmove(&bd->b[pos + 1], &bd->b[pos], (size_t)(bd->nb - pos) * sizeof bd->b[0]);
    bd->nb++;
    /* one pass: every domain renumbered, the touched ones joined; a building
     * before both the new one and the first touched root keeps its number
     * and its domain (its root is no later than itself) */
    for (int i = first < pos ? first : pos; i < bd->nb; i++) {
        int d = bd->b[i].dom;
        bool joined = touched[d >> 6] >> (d & 63) & 1;
        bd->b[i].dom = (uint8_t)(joined ? root : d + (d >= pos));
    }
    if (pos + 1 < bd->nb)
        board_shift_at(bd, pos, 1);
    kh_bld *b = &bd->b[pos];
    memset(b, 0, sizeof *b);
    kh_bld_place(b, bd->tab, place);
    b->type = (uint8_t)type;
    b->owner = (uint8_t)owner;
    b->flags = (uint8_t)flags;
    b->reno = KH_NOBODY;
    memset(b->cube, KH_NOBODY, sizeof b->cube);
    b->orig = KH_NONE;
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
                FOR_BITS(kh_bits_and(bd->tab->place[bd->b[i].place].nbr, bd->occ), sq) {
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
    const kh_place *p = kh_place_of(bd->tab, &bd->b[i]);
    for (int k = 0; k < p->n; k++)
        bd->at[p->sq[k]] = KH_NONE;
    bd->occ = kh_bits_minus(bd->occ, p->mask);
    memmove(&bd->b[i], &bd->b[i + 1], (size_t)(bd->nb - i - 1) * sizeof bd->b[0]);
    bd->nb--;
    memset(&bd->b[bd->nb], 0, sizeof bd->b[0]);
    /* one pass: the members of the domain it leaves (new numbering) noted,
     * every domain renumbered */
    uint64_t members[2] = {0, 0};
    for (int j = root; j < bd->nb; j++) { /* before root: neither a member nor renumbered */
        int d = bd->b[j].dom;
        members[j >> 6] |= (uint64_t)(d == root) << (j & 63);
        bd->b[j].dom = (uint8_t)(d - (d > i));
    }
    if (i < bd->nb)
        board_shift_at(bd, i + 1, -1);
    board_walk(bd, members);
}

void kh_board_rebuild(kh_board *bd)
{
    memset(bd->at, KH_NONE, sizeof bd->at);
    memset(&bd->occ, 0, sizeof bd->occ);
    uint64_t all[2] = {0, 0};
    for (int i = 0; i < bd->nb; i++) {
        kh_bld_place(&bd->b[i], bd->tab, bd->b[i].place);
        const kh_place *p = kh_place_of(bd->tab, &bd->b[i]);
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
        if (!seen) {
            roots[n++] = (uint8_t)r;
            if (n == max)
                return n; /* more could not be listed */
        }
    }
    return n;
}

/* Counts building b into the statistics d of its domain. */
static inline void board_domstat_add(kh_domstat *d, const kh_bld *b)
{
    int f = board_family[b->type], v = board_size[b->type];
    d->members++;
    if (b->flags & KH_RUIN)
        return;
    d->power[f] = (uint8_t)(d->power[f] + v);
    if (f == KH_CIVIL)
        return;
    if (v > d->top[f]) {
        d->top[f] = (uint8_t)v;
        d->ntop[f] = 1;
    } else if (v == d->top[f]) {
        d->ntop[f]++;
    }
}

void kh_board_domains(const kh_board *bd, kh_domstat st[KH_MAXB])
{
    /* one pass: a domain's root is its smallest index, so it is met first */
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *b = &bd->b[i];
        kh_domstat *d = &st[b->dom];
        if (b->dom == i)
            memset(d, 0, sizeof *d);
        board_domstat_add(d, b);
    }
}

void kh_board_snapshot(kh_board *bd, int fam)
{
    /* without branches: which buildings count is random in a playout */
    uint8_t power[KH_MAXB];
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *b = &bd->b[i];
        power[i] = 0; /* no building before i is in a domain rooted at i */
        bool counts = board_family[b->type] == fam && !(b->flags & KH_RUIN);
        power[b->dom] = (uint8_t)(power[b->dom] + (counts ? board_size[b->type] : 0));
    }
    for (int i = 0; i < bd->nb; i++) {
        kh_bld *b = &bd->b[i];
        bool civil = board_family[b->type] == KH_CIVIL; /* civil buildings never conflict */
        uint8_t orig = (uint8_t)kh_anchor(&bd->b[b->dom]), opower = power[b->dom];
        b->orig = civil ? b->orig : orig;
        b->opower = civil ? b->opower : opower;
    }
}

void kh_board_snapshot_drop(kh_board *bd, int i, int fam)
{
    const kh_bld *x = &bd->b[i];
    int label = x->orig;
    if (board_family[x->type] != fam || (x->flags & KH_RUIN) || label == KH_NONE)
        return;
    /* its domain's members carry the label (civil ones never: kh_board_snapshot) */
    for (int j = 0; j < bd->nb; j++)
        if (j != i && bd->b[j].orig == label && board_family[bd->b[j].type] != KH_CIVIL)
            bd->b[j].opower = (uint8_t)(bd->b[j].opower - board_size[x->type]);
}

void kh_board_clear_snapshot(kh_board *bd)
{
    for (int i = 0; i < bd->nb; i++) {
        bd->b[i].orig = KH_NONE;
        bd->b[i].opower = 0;
    }
}

/* ---- checks on one board ---- */

/* Any printed Hamlet square left bare shows its printed Hamlet again
 * (ASSUMPTION: the printed Hamlet lies under any tile covering its square),
 * but those of keep_bare, where a tile is about to be laid. */
void kh_board_restore_printed_but(kh_board *bd, kh_bits keep_bare)
{
    for (int h = 0; h < bd->tab->data.hamlets; h++) {
        int sq = bd->tab->data.hamlet[h];
        if (bd->at[sq] == KH_NONE && !kh_bits_has(keep_bare, sq))
            kh_board_add(bd, bd->tab->data.place_first[1] + sq, KH_TYPE(KH_CIVIL, 1), KH_NOBODY, KH_PRINTED);
    }
}

void kh_board_restore_printed(kh_board *bd)
{
    kh_board_restore_printed_but(bd, (kh_bits){{0}});
}

/* The highest value of family f among the other buildings of building i's domain. */
int kh_top_without(const kh_board *bd, int i, int f)
{
    int root = bd->b[i].dom, top = 0;
    for (int j = root; j < bd->nb; j++) {
        const kh_bld *x = &bd->b[j];
        if (j != i && x->dom == root && KH_FAMILY(x->type) == f && !(x->flags & KH_RUIN) &&
            KH_SIZE(x->type) > top)
            top = KH_SIZE(x->type);
    }
    return top;
}

/* Geography, dominion and hierarchy (§1.6) for laying `type` on placement p
 * of the board, new (old < 0) or as the upgrade of building old, whose domain
 * would otherwise top family f at `old_top`.  Cards are checked elsewhere. */
bool kh_place_ok(const kh_board *bd, int type, const kh_place *p, int old, int old_top,
                 const kh_domstat *st)
{
    if (old >= 0) {
        const kh_place *op = kh_place_of(bd->tab, &bd->b[old]);
        if (!kh_bits_subset(op->mask, p->mask))
            return false;
        if (kh_bits_any(kh_bits_and(kh_bits_minus(p->mask, op->mask), bd->occ)))
            return false;
    } else if (kh_bits_any(kh_bits_and(p->mask, bd->occ))) {
        return false;
    }
    int f = KH_FAMILY(type), v = KH_SIZE(type);
    if ((p->covers & KH_COVERS_RIVER) && !(f == KH_CIVIL && v >= 2))
        return false;
    if (f == KH_CIVIL)
        return true;
    uint8_t roots[2];
    if (old >= 0) {
        if (kh_board_touching(bd, p->nbr, bd->b[old].dom, roots, 2) > 0)
            return false;
        return old_top != v;
    }
    int n = kh_board_touching(bd, p->nbr, -1, roots, 2);
    if (n > 1)
        return false;
    return n == 0 || st[roots[0]].top[f] != v;
}

void kh_board_domain_squares(const kh_board *bd, kh_domstat st[KH_MAXB], kh_bits sq[KH_MAXB])
{
    /* kh_board_domains with the squares added in the same pass */
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *b = &bd->b[i];
        const kh_bits m = bd->tab->place[b->place].mask;
        kh_domstat *d = &st[b->dom];
        if (b->dom == i) {
            memset(d, 0, sizeof *d);
            sq[i] = m;
        } else {
            kh_bits_add(&sq[b->dom], m);
        }
        board_domstat_add(d, b);
    }
}

/* The one domain whose buildings cover squares of t (covered squares only):
 * its root, -1 when none, -2 when several.  sq: the squares of each domain. */
static inline int board_one_root(const kh_board *bd, kh_bits t, const kh_bits *sq)
{
    for (int w = 0; w < KH_WORDS; w++)
        if (t.w[w]) {
            int r = bd->b[bd->at[w * 64 + __builtin_ctzll(t.w[w])]].dom;
            return kh_bits_subset(t, sq[r]) ? r : -2;
        }
    return -1;
}

/* The terrain mixes a tile of family f and size v may cover at all. */
static inline unsigned board_river_ok(int f, int v, unsigned covers_ok)
{
    if (!(f == KH_CIVIL && v >= 2))
        for (unsigned c = 0; c < 8; c++)
            if (c & KH_COVERS_RIVER)
                covers_ok &= ~(1u << c);
    return covers_ok;
}

/* Dominion for a new military or religious tile on placement p (its squares
 * free): bit f (military 0, religious 1) when it touches one domain at most
 * and that domain's highest of family f is not v (sq: each domain's squares). */
static inline unsigned board_dominion(const kh_board *bd, const kh_place *p, int v,
                                      const kh_domstat *st, const kh_bits *sq)
{
    int root = board_one_root(bd, kh_bits_and(p->nbr, bd->occ), sq);
    if (root == -2)
        return 0;
    if (root < 0)
        return 3;
    return (unsigned)(st[root].top[0] != v) | (unsigned)(st[root].top[1] != v) << 1;
}

/* The first squares of each form of size v (fr[form - form_first[v]]) whose
 * placement lies in `room`: anchors & (room >> off[k]) for each square k.
 * Returns their union. */
static kh_bits board_forms_in(const kh_tables *t, int v, kh_bits room, kh_bits *fr)
{
    kh_bits any = {{0}};
    for (int f = t->form_first[v]; f < t->form_end[v]; f++) {
        const kh_form *fm = &t->form[f];
        kh_bits a = kh_bits_and(fm->anchors, room);
        for (int k = 1; k < fm->n && kh_bits_any(a); k++)
            a = kh_bits_and(a, kh_bits_shr(room, fm->off[k]));
        fr[f - t->form_first[v]] = a;
        kh_bits_add(&any, a);
    }
    return any;
}

/* The placements on free squares of type's size with an allowed terrain
 * mix, as sets by form (room[k]), and those among them next to a covered
 * square (touching[k]: a military or religious tile must still pass
 * dominion there; a civil one never needs to, its sets are empty); the
 * others touch no building and pass dominion at once.  Returns how many
 * placements room holds. */
int kh_board_new_room(const kh_board *bd, int type, unsigned covers_ok, kh_bits *room,
                      kh_bits *touching)
{
    const kh_tables *t = bd->tab;
    int f = KH_FAMILY(type), v = KH_SIZE(type), n = 0;
    const int f0 = t->form_first[v], nf = t->form_end[v] - f0;
    covers_ok = board_river_ok(f, v, covers_ok);
    const kh_bits occ = bd->occ;
    kh_bits free;
    for (int w = 0; w < KH_WORDS; w++)
        free.w[w] = ~occ.w[w];
    board_forms_in(t, v, free, room);
    for (int k = 0; k < nf; k++)
        if ((covers_ok & 0xff) != 0xff) {
            kh_bits mixes = {{0}};
            for (unsigned c = 0; c < 8; c++)
                if (covers_ok >> c & 1)
                    kh_bits_add(&mixes, t->form[f0 + k].mix[c]);
            room[k] = kh_bits_and(room[k], mixes);
        }
    if (f != KH_CIVIL) {
        /* far: the free squares with no covered square next to them */
        const int width = t->data.width;
        const kh_bits r = kh_bits_shr(occ, 1), l = kh_bits_shl(occ, 1);
        const kh_bits d = kh_bits_shr(occ, width), u = kh_bits_shl(occ, width);
        kh_bits far, alone[KH_MAXSHAPES];
        for (int w = 0; w < KH_WORDS; w++)
            far.w[w] = ~(occ.w[w] | (r.w[w] & t->has_right.w[w]) |
                         (l.w[w] & t->has_left.w[w]) | d.w[w] | u.w[w]);
        board_forms_in(t, v, far, alone);
        for (int k = 0; k < nf; k++)
            touching[k] = kh_bits_minus(room[k], alone[k]);
    } else {
        for (int k = 0; k < nf; k++)
            touching[k] = (kh_bits){{0}};
    }
    for (int k = 0; k < nf; k++)
        for (int w = 0; w < KH_WORDS; w++)
            n += __builtin_popcountll(room[k].w[w]);
    return n;
}

bool kh_board_new_dominion(const kh_board *bd, int type, int place, const kh_domstat *st,
                           const kh_bits *sq)
{
    return board_dominion(bd, &bd->tab->place[place], KH_SIZE(type), st, sq) >> KH_FAMILY(type) & 1;
}

/* kh_place_ok for every new placement of type's size at once, with set
 * operations: kh_board_new_room, then dominion tested one by one where a
 * placement touches a building. */
int kh_board_new_set(const kh_board *bd, int type, const kh_domstat *st, const kh_bits *sq,
                     unsigned covers_ok, kh_bits *legal)
{
    const kh_tables *t = bd->tab;
    int f = KH_FAMILY(type), v = KH_SIZE(type);
    const int f0 = t->form_first[v], nf = t->form_end[v] - f0;
    kh_bits touching[KH_MAXSHAPES];
    int n = kh_board_new_room(bd, type, covers_ok, legal, touching);
    if (f == KH_CIVIL)
        return n;
    const uint16_t *anchor = t->anchor[v];
    for (int k = 0; k < nf; k++) {
        FOR_BITS(touching[k], at) {
            int i = anchor[at];
            while (t->place[i].form != f0 + k)
                i++;
            if (!kh_board_new_dominion(bd, type, i, st, sq)) {
                kh_bits_clear(&legal[k], at);
                n--;
            }
        }
    }
    return n;
}

/* The placements of size v in sets by form (legal, as kh_board_new_set
 * makes them) in placement order: listed in out (up to limit; returns how
 * many), or, with out NULL, the one numbered nth (from 0; returns it). */
static int board_set_walk(const kh_tables *t, int v, const kh_bits *legal, uint32_t *out,
                          int limit, int nth)
{
    const int f0 = t->form_first[v], nf = t->form_end[v] - f0;
    const uint16_t *anchor = t->anchor[v];
    kh_bits any = {{0}};
    for (int k = 0; k < nf; k++)
        kh_bits_add(&any, legal[k]);
    int n = 0;
    for (int w = 0; w < KH_WORDS; w++) {
        uint64_t m = any.w[w];
        if (nf == 1 && !out) {
            /* one form: a placement per first square, so count by words */
            int here = __builtin_popcountll(m);
            if (nth >= n + here) {
                n += here;
                continue;
            }
        }
        for (; m; m &= m - 1) {
            const int at = w * 64 + __builtin_ctzll(m);
            for (int i = anchor[at]; i < anchor[at + 1]; i++) {
                if (nf > 1 && !kh_bits_has(legal[t->place[i].form - f0], at))
                    continue;
                if (!out) {
                    if (n++ == nth)
                        return i;
                    continue;
                }
                out[n] = (uint32_t)i;
                if (++n == limit)
                    return n;
            }
        }
    }
    return out ? n : -1;
}

int kh_board_set_list(const kh_tables *t, int v, const kh_bits *legal, uint32_t *out, int limit)
{
    return board_set_walk(t, v, legal, out, limit, 0);
}

int kh_board_set_nth(const kh_tables *t, int v, const kh_bits *legal, int nth)
{
    return board_set_walk(t, v, legal, NULL, 0, nth);
}

int kh_board_new_places(const kh_board *bd, int type, const kh_domstat *st, const kh_bits *sq,
                        unsigned covers_ok, uint32_t *out, int limit)
{
    kh_bits legal[KH_MAXSHAPES];
    if (!kh_board_new_set(bd, type, st, sq, covers_ok, legal))
        return 0;
    return kh_board_set_list(bd->tab, KH_SIZE(type), legal, out, limit);
}

unsigned kh_board_new_families(const kh_board *bd, int v, unsigned families,
                               const kh_domstat *st, const kh_bits *sq, unsigned covers_ok)
{
    /* the families that may take each terrain mix */
    unsigned ok[KH_FAMILIES], want = 0;
    for (int f = 0; f < KH_FAMILIES; f++)
        ok[f] = families >> f & 1 ? board_river_ok(f, v, covers_ok) : 0;
    const unsigned any_ok = ok[0] | ok[1] | ok[2];
    for (int f = 0; f < KH_FAMILIES; f++)
        want |= (ok[f] != 0) << f;
    unsigned found = 0;
    const kh_bits occ = bd->occ;
    const uint16_t *anchor = bd->tab->anchor[v];
    const int squares = bd->tab->data.squares;
    /* placements by free first square, in order, until each family has one */
    for (int w = 0; w < KH_WORDS && found != want; w++)
        for (uint64_t m = ~occ.w[w]; m; m &= m - 1) {
            int at = w * 64 + __builtin_ctzll(m);
            if (at >= squares)
                return found;
            for (int i = anchor[at]; i < anchor[at + 1]; i++) {
                const kh_place *p = &bd->tab->place[i];
                const unsigned c = p->covers;
                if (!(any_ok >> c & 1) || kh_bits_any(kh_bits_and(p->mask, occ)))
                    continue;
                unsigned got = (ok[0] >> c & 1) | (ok[1] >> c & 1) << 1 | (ok[2] >> c & 1) << 2;
                if (got & 3u)
                    got &= board_dominion(bd, p, v, st, sq) | 4u;
                found |= got;
                if (found == want)
                    return found;
            }
        }
    return found;
}

/* The walk of building i's larger placements behind kh_board_upgrade_places
 * and kh_board_upgrade_sizes: ok[v] is the terrain mixes size v may take (0:
 * size not asked about).  A placement passes when its covers is in ok, its
 * squares are free but for building i's and, for military and religious
 * tiles, it touches no other domain (sq: the squares of each domain).  Lists
 * the passing placements (out, up to limit) or, with out NULL, stops once
 * every asked size has one; *found: the sizes that had one (bit v).  Returns
 * how many were listed. */
static int board_upgrade_scan(const kh_board *bd, int i, const unsigned ok_in[4],
                              const kh_bits *sq, uint32_t *out, int limit, unsigned *found)
{
    const kh_bld *x = &bd->b[i];
    const kh_tables *t = bd->tab;
    unsigned ok[4], want = 0, got = 0;
    for (int v = 0; v < 4; v++) {
        ok[v] = ok_in[v];
        want |= (ok[v] != 0) << v;
    }
    const kh_bits old = t->place[x->place].mask;
    const kh_bits others = kh_bits_minus(bd->occ, old); /* squares the new tile may not take */
    /* other domains' squares (civil tiles may touch any) */
    const kh_bits outside =
        board_family[x->type] != KH_CIVIL ? kh_bits_minus(bd->occ, sq[x->dom]) : (kh_bits){{0}};
    int n = 0;
    for (int s = t->super_first[x->place]; s < t->super_first[x->place + 1]; s++) {
        const int j = t->super[s];
        const kh_place *p = &t->place[j];
        if (!(ok[p->size] >> p->covers & 1) || kh_bits_any(kh_bits_and(p->mask, others)) ||
            kh_bits_any(kh_bits_and(p->nbr, outside)))
            continue;
        got |= 1u << p->size;
        if (out) {
            out[n] = (uint32_t)j;
            if (++n == limit)
                break;
        } else {
            ok[p->size] = 0; /* one is enough */
            if (got == want)
                break;
        }
    }
    *found = got;
    return n;
}

int kh_board_upgrade_places(const kh_board *bd, int i, int type, const kh_domstat *st,
                            const kh_bits *sq, unsigned covers_ok, uint32_t *out, int limit)
{
    const kh_bld *x = &bd->b[i];
    int f = KH_FAMILY(type), v = KH_SIZE(type);
    unsigned ok[4] = {0, 0, 0, 0}, found;
    /* hierarchy: the domain's highest of the family, the old building left
     * out, may not be v; the old building is smaller than v, so that is
     * the domain's highest (kh_top_without) */
    if (f != KH_CIVIL && st[x->dom].top[f] == v)
        return 0;
    ok[v] = board_river_ok(f, v, covers_ok);
    return board_upgrade_scan(bd, i, ok, sq, out, limit, &found);
}

unsigned kh_board_upgrade_sizes(const kh_board *bd, int i, unsigned sizes, const kh_domstat *st,
                                const kh_bits *sq, const unsigned covers_ok[4])
{
    const kh_bld *x = &bd->b[i];
    int f = board_family[x->type];
    unsigned ok[4] = {0, 0, 0, 0}, found = 0, any = 0;
    for (int v = board_size[x->type] + 1; v <= 3; v++)
        if ((sizes >> v & 1) && (f == KH_CIVIL || st[x->dom].top[f] != v)) { /* hierarchy */
            ok[v] = board_river_ok(f, v, covers_ok[v]);
            any |= ok[v];
        }
    if (any)
        board_upgrade_scan(bd, i, ok, sq, NULL, 0, &found);
    return found;
}

/* The placements of the tile one size smaller within building i's squares. */
int kh_smaller_places(const kh_board *bd, int i, uint16_t *out)
{
    const kh_place *p = kh_place_of(bd->tab, &bd->b[i]);
    int v = p->size - 1, n = 0;
    for (int a = 0; a < p->n; a++)
        for (int j = bd->tab->anchor[v][p->sq[a]]; j < bd->tab->anchor[v][p->sq[a] + 1]; j++)
            if (n < KH_MAXSUB && kh_bits_subset(bd->tab->place[j].mask, p->mask))
                out[n++] = (uint16_t)j;
    return n;
}

/* A hierarchy conflict (§1.8): the first domain, in board order, whose
 * highest military or religious value is held by two buildings or more.  In
 * a junction (the tied buildings stood in different domains before the
 * change, orig) those of weaker original domains are downsized first, one
 * at a time without a choice; otherwise the mover's own tied buildings are
 * the candidates (anyone's when he has none). */
void kh_board_conflict(const kh_board *bd, int mover, kh_conflict *c)
{
    memset(c, 0, sizeof *c);
    /* the highest military and religious values of the domains holding any
     * (civil buildings and ruins never count): only those domains' roots
     * are set in has, so the other domains are never initialised */
    uint64_t has[2] = {0, 0};
    uint8_t top[KH_MAXB][2], ntop[KH_MAXB][2];
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *x = &bd->b[i];
        int f = board_family[x->type], v = board_size[x->type], r = x->dom;
        if (f == KH_CIVIL || (x->flags & KH_RUIN))
            continue;
        if (kh_roots_add(has, r)) {
            top[r][0] = top[r][1] = ntop[r][0] = ntop[r][1] = 0;
        }
        if (v > top[r][f]) {
            top[r][f] = (uint8_t)v;
            ntop[r][f] = 1;
        } else if (v == top[r][f]) {
            ntop[r][f]++;
        }
    }
    int root = -1, fam = 0;
    for (int w = 0; w < 2 && root < 0; w++)
        for (uint64_t m = has[w]; m && root < 0; m &= m - 1) {
            int r = w * 64 + __builtin_ctzll(m);
            for (int f = KH_MILITARY; f <= KH_RELIGIOUS; f++)
                if (ntop[r][f] >= 2) {
                    root = r;
                    fam = f;
                    break;
                }
        }
    if (root < 0)
        return;
    c->found = 1;
    int v = top[root][fam];
    uint8_t conf[KH_MAXB];
    int nc = 0, labels = 0, maxp = 0;
    uint8_t label[KH_MAXB];
    for (int j = root; j < bd->nb; j++) {
        const kh_bld *x = &bd->b[j];
        if (x->dom != root || KH_FAMILY(x->type) != fam || KH_SIZE(x->type) != v ||
            (x->flags & KH_RUIN))
            continue;
        conf[nc++] = (uint8_t)j;
        bool seen = false;
        for (int l = 0; l < labels && !seen; l++)
            seen = label[l] == x->orig;
        if (!seen)
            label[labels++] = x->orig;
        if (x->opower > maxp)
            maxp = x->opower;
    }
    if (labels >= 2) {
        /* a junction: the conflicting buildings of weaker original domains go first */
        for (int a = 0; a < nc; a++)
            if (bd->b[conf[a]].opower < maxp) {
                c->forced = 1;
                c->n = 1;
                c->cand[0] = conf[a];
                return;
            }
    }
    /* a tie in power, or a division: the acting player's own buildings first,
     * and he chooses among several */
    for (int a = 0; a < nc; a++)
        if (bd->b[conf[a]].owner == mover)
            c->cand[c->n++] = conf[a];
    if (!c->n)
        for (int a = 0; a < nc; a++)
            c->cand[c->n++] = conf[a];
    c->forced = c->n == 1;
}
