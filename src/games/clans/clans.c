/*
 * clans.c — the rules of Clans (shared/rules/clans.md as encoded here; see
 * docs/rules-clans.md): setup, legal moves with the seven-hut rule, villages
 * with strife, epochs, chips and terrain, the 12th village, the early end,
 * final scoring, resampling of the secret colours and a heuristic.
 *
 * The board is a set of 64-bit masks over the 60 territories, so move
 * generation and village detection are a few mask operations per territory.
 * The state invariants are listed beside clans_state in clans.h.
 *
 * clans_playout is a fast path that makes exactly the decisions, states and
 * draws of random_move + apply (tested): its hut moves work on a copy of the
 * masks and settle the villages they make when a run of moves ends, which
 * nothing in the run depends on (bench/RESULTS.md, "Clans playouts").
 */
#include "clans.h"
#include "core/msg.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#if defined(__BMI2__) || defined(__SSE2__)
#include <immintrin.h>
#endif

/* N_: also the words of messages (the log's narration), so catalogue msgids */
const char *const clans__colour_name[CLANS_COLOURS] = {N_("red"), N_("blue"), N_("green"),
                                                       N_("yellow"), N_("black")};
const char *const clans__terrain_name[CLANS_TERRAINS] = {N_("forest"), N_("mountain"),
                                                         N_("steppe"), N_("grassland")};

#define BIT(t) (1ULL << (t))

/* gcc pairs the playout's mask words into vector registers, and then moves
 * them back and forth between those and the scalar ones that popcount and
 * pdep need: 3% slower (bench/RESULTS.md, "Clans playouts, fourth pass"). */
#if defined(__GNUC__) && !defined(__clang__)
#define CLANS_SCALAR __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define CLANS_SCALAR
#endif

/* Hut words (clans_state.huts): one byte per colour in bytes 0..4. */
#define CLANS_FIVE_BYTES 0x0000008080808080ULL /* bit 7 of each colour's byte */
#define CLANS_ONE_EACH 0x0000000101010101ULL   /* one hut of every colour */


static const tb_option_spec clans_options[] = {{NULL, NULL, NULL, NULL, NULL, NULL}};

int clans__chip_epoch(int chip_index)
{
    return chip_index >= 0 && chip_index < CLANS_CHIPS ? clans__chip_epoch_table[chip_index] : 0;
}

static bool clans_has_move(const clans_state *c)
{
    return (c->live[0] | c->live[1] | c->live[2]) != 0;
}

static void clans_count_crowds(clans_state *c)
{
    memset(c->crowd, 0, sizeof c->crowd);
    for (int t = 0; t < CLANS_TERRITORIES; t++) {
        uint64_t count = (uint64_t)__builtin_popcountll(clans__adjacent[t] & c->occupied);
        for (int i = 0; i < 3; i++)
            c->crowd[i] |= (count >> i & 1) << t;
    }
}

void clans__compute_live(clans_state *c)
{
    memset(c->live, 0, sizeof c->live);
    for (int e = 0; e < clans__edge_count; e++)
        if ((c->occupied >> clans__edge[e][0] & 1) && (c->occupied >> clans__edge[e][1] & 1))
            c->live[e / 64] |= 1ULL << (e % 64);
    clans_count_crowds(c);
}

/* The territories `near` have one occupied neighbour less in `crowd` (as
 * clans_state.crowd); returns those of them left with none (occupied or
 * not), the ones that had one.  All the counts at once: a subtraction with
 * borrow, plane by plane. */
static inline uint64_t clans_uncrowd(uint64_t crowd[3], uint64_t near)
{
    uint64_t b0 = crowd[0], b1 = crowd[1], b2 = crowd[2];
    uint64_t alone = near & b0 & ~b1 & ~b2;
    uint64_t borrow1 = near & ~b0, borrow2 = borrow1 & ~b1;
    crowd[0] = b0 ^ near;
    crowd[1] = b1 ^ borrow1;
    crowd[2] = b2 ^ borrow2;
    return alone;
}

/* Occupied territory t, with `edges` and neighbours `near`, has become
 * empty, in the masks `occupied`, `live` and `crowd` (as clans_state's): no
 * edge at it is live any more, each of its neighbours has one occupied
 * neighbour less; returns the territories left with no occupied neighbour
 * (occupied or not).  The masks are passed apart so that the playout can
 * work on its own copy of them. */
static inline uint64_t clans_vacate(uint64_t *occupied, uint64_t live[CLANS_EDGE_WORDS],
                                    uint64_t crowd[3], int t,
                                    const uint64_t edges[CLANS_EDGE_WORDS], uint64_t near)
{
    *occupied &= ~BIT(t);
    for (int w = 0; w < CLANS_EDGE_WORDS; w++)
        live[w] &= ~edges[w];
    return clans_uncrowd(crowd, near);
}

/* The position of the k-th (0-based) set bit of x; x has more than k bits. */
static inline int clans_select(uint64_t x, uint32_t k)
{
#ifdef __BMI2__
    return __builtin_ctzll(_pdep_u64(1ULL << k, x));
#endif
    int base = 0;
    for (int width = 32; width >= 8; width /= 2) {
        uint64_t low = x & ((1ULL << width) - 1);
        uint32_t n = (uint32_t)__builtin_popcountll(low);
        if (k >= n) {
            k -= n;
            x >>= width;
            base += width;
        } else {
            x = low;
        }
    }
    while (k--)
        x &= x - 1;
    return base + __builtin_ctzll(x);
}

bool clans__game_over(const clans_state *c)
{
    return c->over != 0;
}

int clans__to_move(const tb_state *s)
{
    const clans_state *c = (const clans_state *)s;
    return c->over ? TB_OVER : c->turn;
}

static int clans_setup(tb_state *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    clans_state *c = (clans_state *)s;
    tb_rng rng = s->rng; /* in registers: the stores below cannot alias it */
    for (int r = 0; r < CLANS_REGIONS; r++) {
        const uint64_t *huts = clans__order_huts[tb__rng_below(&rng, 120)];
        for (int k = 0; k < 5; k++)
            c->huts[clans__region_member[r][k]] = huts[k];
    }
    memset(c->size, 1, sizeof c->size);
    c->occupied = (1ULL << CLANS_TERRITORIES) - 1;
    memcpy(c->live, clans__all_edges, sizeof c->live);
    memcpy(c->crowd, clans__start_crowd, sizeof c->crowd);
    /* The colours: a Fisher-Yates shuffle, as tb__shuffle draws it. */
    uint8_t deal[CLANS_COLOURS] = {0, 1, 2, 3, 4};
    for (uint32_t i = CLANS_COLOURS; i > 1; i--) {
        uint32_t j = tb__rng_below(&rng, i);
        uint8_t swap = deal[j];
        deal[j] = deal[i - 1];
        deal[i - 1] = swap;
    }
    /* The seats' colours, and 0 past the last seat, copied at a fixed size
     * (a copy of `players` bytes was a call to memcpy). */
    uint8_t seats[TB_MAX_SEATS] = {0};
    for (int p = 0; p < TB_MAX_SEATS && p < CLANS_COLOURS; p++)
        seats[p] = p < s->players ? deal[p] : 0;
    memcpy(c->colour, seats, sizeof c->colour);
    c->turn = (uint8_t)tb__rng_below(&rng, (uint32_t)s->players);
    s->rng = rng;
    return 0;
}

/* Bit 7 of the byte of each colour with a hut in hut word x. */
static inline uint64_t clans_colours_in(uint64_t x)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
    return (((x & low7) + low7) | x) & CLANS_FIVE_BYTES; /* bit 7: some bit of the byte set */
}

/* Strife is found with byte compares where the CPU has them and BMI2's
 * bit deposit, else with the whole-word arithmetic of clans_colours_in. */
#if defined(__SSE2__) && defined(__BMI2__)
#define CLANS_BYTE_COMPARES 1
#else
#define CLANS_BYTE_COMPARES 0
#endif

/* What founding village t in epoch e (1..5) does to it (clans.md 5A): strife
 * (all five colours) kills the lone huts; hostile terrain then ruins it;
 * else every colour with a hut left scores `value`.  Depends on t alone,
 * not on the other villages (a village has no occupied neighbour).  Worked
 * out without a branch on what the village holds or where it is: a playout
 * founds a village in one decision of four, and those branches were the
 * ones mispredicted. */
typedef struct clans_outcome {
    uint64_t huts; /* the huts left: after strife, and none when ruined */
    int size;      /* how many huts that is */
    uint64_t ruin; /* 1 when hostile terrain ruins it, else 0 */
    int value;     /* the points of each colour in huts (0: ruined or emptied) */
} clans_outcome;

static inline clans_outcome clans_village_outcome(const clans_state *c, int t, int e)
{
    unsigned rule = clans__founding[e - 1][t]; /* the terrain bonus, or CLANS_RUIN */
    uint64_t huts = c->huts[t];
    /* All five colours: strife kills the lone huts (5A.5). */
#if CLANS_BYTE_COMPARES
    /* A bit per colour from byte compares; a lone colour loses its one hut. */
    __m128i h = _mm_cvtsi64_si128((long long)huts);
    unsigned absent = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(h, _mm_setzero_si128()));
    unsigned one = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(h, _mm_set1_epi8(1)));
    unsigned lone = one & (0u - ((absent & 0x1f) == 0));
    huts ^= _pdep_u64(lone, CLANS_ONE_EACH);
    int size = c->size[t] - __builtin_popcount(lone);
#else
    uint64_t strife = clans_colours_in(huts) == CLANS_FIVE_BYTES ? ~0ULL : 0;
    uint64_t lone = ~clans_colours_in(huts ^ CLANS_ONE_EACH) & CLANS_FIVE_BYTES & strife;
    huts &= ~((lone >> 7) * 0xff);
    int size = c->size[t] - __builtin_popcountll(lone);
#endif
    uint64_t ruin = rule >> 7;
    huts &= ruin - 1;
    size &= (int)ruin - 1;
    int value = (size + (int)(rule & 0x7f)) & -(int)(size != 0);
    return (clans_outcome){huts, size, ruin, value};
}

/* Every colour with a hut in `huts` (a hut word) scores `value`. */
static inline void clans_score_colours(clans_state *c, uint64_t huts, int value)
{
#ifdef __SSE2__
    /* Eight lanes at once: the bytes past the fifth colour are 0 in a hut
     * word, so the three spare lanes of the track get nothing. */
    __m128i absent = _mm_cmpeq_epi8(_mm_cvtsi64_si128((long long)huts), _mm_setzero_si128());
    __m128i points = _mm_andnot_si128(_mm_unpacklo_epi8(absent, absent),
                                      _mm_set1_epi16((short)value));
    __m128i *track = (__m128i *)c->track;
    _mm_storeu_si128(track, _mm_add_epi16(_mm_loadu_si128(track), points));
#else
    for (int k = 0; k < CLANS_COLOURS; k++)
        c->track[k] = (int16_t)(c->track[k] + (value & -(int)((huts >> (8 * k) & 0xff) != 0)));
#endif
}

/* What founding village t in epoch e does to the board (clans.md 5A):
 * strife, terrain and scoring; the chip is the caller's.  The village has
 * no occupied neighbour, so no edge at it is live; when strife or ruin
 * empties it, only its neighbours' counts change.  Those neighbours are
 * empty for good (huts only move onto occupied territories), so the moves
 * that follow do not depend on when this runs: the playout does it once at
 * the end for the villages it founded (clans_hut_moves). */
static inline void clans_found_board(clans_state *c, int t, int e)
{
    clans_outcome o = clans_village_outcome(c, t, e);
    clans_score_colours(c, o.huts, o.value);
    c->removed = (uint8_t)(c->removed + c->size[t] - o.size);
    c->huts[t] = o.huts;
    c->size[t] = (uint8_t)o.size;
    uint64_t emptied = (uint64_t)(o.size == 0) << t;
    c->occupied &= ~emptied;
    clans_uncrowd(c->crowd, clans__adjacent[t] & (0 - (emptied >> t)));
    c->ruins |= o.ruin << t;
    c->villages |= BIT(t);
    c->village_epoch[t] = (uint8_t)e;
}

/* Founds village t for the mover: chip, strife, terrain, score (clans.md 5A).
 * A chip is left: the game is not over. */
static inline void clans_found(clans_state *c, int t)
{
    clans_found_board(c, t, clans__chip_epoch_table[c->chips_taken]);
    c->chips[c->turn]++;
    c->over |= ++c->chips_taken == CLANS_CHIPS;
}

/* Does the order in which the pending villages are founded change the
 * outcome (huts, scores, ruins)?  Only when their chips span more than one
 * epoch.  Position k of the order founds in epoch E[k] (the chip's; none
 * past the 12th chip), and each village's outcome depends on its epoch
 * alone, so every order gives the same outcome exactly when (1) each
 * village keeps the same huts and ruin whatever its epoch, and (2) the
 * points are u(village) + v(position) for every colour, the only way a sum
 * over an assignment is the same for every permutation.  Given (1), village
 * i's colours P_i are fixed and it scores its value v_i(k) on each of them,
 * so (2) asks, with d_i(k) = v_i(k) - v_i(0): d_i(k) = d_0(k) on a colour
 * of both P_i and P_0, and d = 0 on a colour only one of them holds. */
bool clans__order_matters(const clans_state *c)
{
    int n = __builtin_popcountll(c->pending);
    if (n < 2)
        return false;
    /* Epochs never fall as chips are taken (and are 0 past the last chip),
     * so the chips span one epoch exactly when the first and last agree. */
    if (clans__chip_epoch(c->chips_taken + n - 1) == clans__chip_epoch(c->chips_taken))
        return false;
    enum { MAX = 8 }; /* a move leaves at most the source's neighbours alone */
    if (n > MAX)
        return true;
    /* The answer is gathered without a branch on what each village holds:
     * those branches were the mispredicted ones. */
    int first_gain[MAX] = {0}; /* d_0(k) */
    uint64_t first_colours = 0, differ = 0; /* P_0; (1) failed */
    bool uneven = false;                   /* (2) failed */
    int i = 0;
    for (uint64_t rest = c->pending; rest; rest &= rest - 1, i++) {
        int t = __builtin_ctzll(rest);
        clans_outcome at[MAX];
        for (int k = 0; k < n; k++) {
            int e = clans__chip_epoch(c->chips_taken + k);
            at[k] = e ? clans_village_outcome(c, t, e)
                      : (clans_outcome){c->huts[t], c->size[t], 0, 0}; /* not founded */
            differ |= (at[k].huts ^ at[0].huts) | (at[k].ruin ^ at[0].ruin);
        }
        uint64_t colours = clans_colours_in(at[0].huts);
        bool both = (colours & first_colours) != 0, mine = (colours & ~first_colours) != 0;
        bool theirs = (first_colours & ~colours) != 0;
        for (int k = 1; k < n; k++) {
            int gain = at[k].value - at[0].value;
            if (i == 0)
                first_gain[k] = gain;
            else
                uneven |= (both & (gain != first_gain[k])) | (mine & (gain != 0)) |
                          (theirs & (first_gain[k] != 0));
        }
        if (i == 0)
            first_colours = colours;
    }
    return differ != 0 || uneven;
}

/* The seat after `seat`, without a branch (in a playout it is not predictable). */
static inline int clans_seat_after(int seat, int players)
{
    return (seat + 1) & -(int)(seat + 1 != players);
}

/* Ends the turn: early end when no move remains (clans.md 7.4), else the
 * next seat (no branch: this runs after every decision of a playout). */
static inline void clans_next_turn(clans_state *c)
{
    c->over |= !clans_has_move(c);
    int stay = -(int)c->over, next = clans_seat_after(c->turn, c->base.players);
    c->turn = (uint8_t)((c->turn & stay) | (next & ~stay));
}

/* Founds pending villages while their order cannot matter, then ends the
 * turn; stops early when the mover must choose the order. */
static void __attribute__((noinline)) clans_settle_villages(clans_state *c)
{
    while (c->pending && !c->over) {
        if ((c->pending & (c->pending - 1)) && clans__order_matters(c))
            return; /* the mover decides with `village T` */
        int t = __builtin_ctzll(c->pending);
        c->pending &= ~BIT(t);
        clans_found(c, t);
    }
    c->pending = 0;
    clans_next_turn(c);
}

static inline void clans_settle(clans_state *c)
{
    if (__builtin_expect(c->pending != 0, 0))
        clans_settle_villages(c);
    else
        clans_next_turn(c);
}

/* Destinations a source may move onto: occupied neighbours, and under the
 * seven-hut rule only those at least as large (clans.md 4.3-4.4). */
static inline uint64_t clans_targets(const clans_state *c, int from)
{
    uint64_t dest = clans__adjacent[from] & c->occupied;
    int s = c->size[from];
    if (s >= 7) {
        for (uint64_t rest = dest; rest; rest &= rest - 1) {
            int d = __builtin_ctzll(rest);
            if (c->size[d] < s)
                dest &= ~BIT(d);
        }
    }
    return dest;
}

static int clans_legal(const tb_state *s, tb_move *out)
{
    const clans_state *c = (const clans_state *)s;
    if (c->over)
        return 0;
    int n = 0;
    if (c->pending) {
        for (uint64_t rest = c->pending; rest; rest &= rest - 1)
            out[n++] = CLANS_VILLAGE_FLAG | (tb_move)(__builtin_ctzll(rest) + 1);
        return n;
    }
    for (uint64_t src = c->occupied; src; src &= src - 1) {
        int from = __builtin_ctzll(src);
        for (uint64_t dst = clans_targets(c, from); dst; dst &= dst - 1)
            out[n++] = (tb_move)((from + 1) << 8 | (__builtin_ctzll(dst) + 1));
    }
    return n;
}

/* A uniformly random pending village (the mover's choice of order). */
static inline int clans_draw_village(const clans_state *c, tb_rng *rng)
{
    uint64_t rest = c->pending;
    uint32_t k = tb__rng_below(rng, (uint32_t)__builtin_popcountll(rest));
    while (k--)
        rest &= rest - 1;
    return __builtin_ctzll(rest);
}

/* A uniformly random hut move when no village is pending: a uniform live
 * edge and direction; every live edge has at least one legal direction (the
 * smaller group onto the larger), so at least half of the draws are accepted
 * and each legal move is equally likely.  The draw is the same on every
 * machine (clans_select only finds the k-th set bit faster where the CPU
 * can), so a seed gives the same game.  `live` and `size` are clans_state's,
 * or the playout's copy of live.  Returns the arc (clans__arc). */
static inline size_t clans_draw_hut_move(const uint64_t live[CLANS_EDGE_WORDS], const uint8_t *size,
                                      tb_rng *rng, int *from, int *to)
{
    uint32_t n0 = (uint32_t)__builtin_popcountll(live[0]);
    uint32_t n01 = n0 + (uint32_t)__builtin_popcountll(live[1]);
    uint32_t total = n01 + (uint32_t)__builtin_popcountll(live[2]);
    for (;;) {
        uint32_t r = tb__rng_below(rng, 2 * total), k = r >> 1;
        /* The word holding the k-th live edge, chosen without a branch (one
         * here is mispredicted about half the time) and with the words
         * named, not indexed, so that they can stay in registers. */
        uint32_t in1 = k >= n0, in2 = k >= n01, before = 0;
        uint64_t bits = live[0];
#if defined(__x86_64__) && defined(__GNUC__)
        __asm__("cmp %[n0], %[k]\n\t"
                "cmovae %[l1], %[bits]\n\t"
                "cmovae %[n0], %[before]\n\t"
                "cmp %[n01], %[k]\n\t"
                "cmovae %[l2], %[bits]\n\t"
                "cmovae %[n01], %[before]"
                : [bits] "+r"(bits), [before] "+r"(before)
                : [k] "r"(k), [n0] "r"(n0), [n01] "r"(n01), [l1] "rm"(live[1]), [l2] "rm"(live[2])
                : "cc");
#else
        uint64_t m1 = 0 - (uint64_t)in1, m2 = 0 - (uint64_t)in2;
        bits ^= (bits ^ live[1]) & m1;
        bits ^= (bits ^ live[2]) & m2;
        before = (n0 & (uint32_t)m1);
        before ^= (before ^ n01) & (uint32_t)m2;
#endif
        /* The arc: its word's first arc in the drawn direction, then two a
         * bit (the part that waits for the bit is one step shorter). */
        size_t first = 128 * (in1 + in2) + (r & 1);
        size_t a = first + 2 * (size_t)clans_select(bits, k - before);
        int f = clans__arc[a] & 0xff, t = clans__arc[a] >> 8;
        if (__builtin_expect(size[f] <= 6 || size[t] >= size[f], 1)) { /* 99% */
            *from = f;
            *to = t;
            return a;
        }
    }
}

/* A uniformly random legal move of a game that is not over. */
static inline tb_move clans_draw(const clans_state *c, tb_rng *rng)
{
    if (c->pending)
        return CLANS_VILLAGE_FLAG | (tb_move)(clans_draw_village(c, rng) + 1);
    int from, to;
    clans_draw_hut_move(c->live, c->size, rng, &from, &to);
    return (tb_move)((from + 1) << 8 | (to + 1));
}

static tb_move clans_random_move(const tb_state *s, tb_rng *rng)
{
    const clans_state *c = (const clans_state *)s;
    return c->over ? 0 : clans_draw(c, rng);
}

/* The huts of `from` join those of `to`. */
static inline void clans_shift_huts(clans_state *c, int from, int to)
{
    c->huts[to] += c->huts[from]; /* no byte overflows: 60 huts in all */
    c->huts[from] = 0;
    c->size[to] = (uint8_t)(c->size[to] + c->size[from]);
    c->size[from] = 0;
}

/* Moves the huts of `from` onto `to` (a legal move), marks the villages it
 * makes and settles them. */
static void clans_move_huts(clans_state *c, int from, int to)
{
    clans_shift_huts(c, from, to);
    uint64_t alone = clans_vacate(&c->occupied, c->live, c->crowd, from, clans__edges_of[from],
                                  clans__adjacent[from]);
    c->last_from = (uint8_t)(from + 1);
    c->last_to = (uint8_t)(to + 1);
    /* The occupied neighbours of `from` left with no occupied neighbour
     * become villages. */
    c->pending = alone & c->occupied;
    clans_settle(c);
}

/* Founds the village the mover chose among those pending. */
static void clans_choose_village(clans_state *c, int t)
{
    c->pending &= ~BIT(t);
    clans_found(c, t);
    clans_settle(c);
}

static void clans_apply(tb_state *s, tb_move m)
{
    clans_state *c = (clans_state *)s;
    if (m & CLANS_VILLAGE_FLAG)
        clans_choose_village(c, (int)(m & 0xff) - 1);
    else
        clans_move_huts(c, (int)(m >> 8) - 1, (int)(m & 0xff) - 1);
}

/* The villages a run of the playout's hut moves founded, in the order of
 * their chips: each one's territory and the decision (counted from the
 * first of the run) that made it.  Recording one costs two stores and no
 * branch; its chip, strife, terrain and points are settled by
 * clans_settle_founded when the run ends.  A run takes at most the chips
 * left, 12 at the most. */
typedef struct clans_founded {
    int count;
    uint8_t where[CLANS_CHIPS + 1]; /* one spare: written before it is known to count */
    uint8_t when[CLANS_CHIPS + 1];  /* < 60: every hut move empties a territory */
} clans_founded;

/* Settles the villages of `f`, founded from chip `chips0` on by the seats
 * that moved `when` decisions after seat `turn0`, as clans_found would
 * have when each was made. */
CLANS_SCALAR static void __attribute__((noinline))
clans_settle_founded(clans_state *c, const clans_founded *f, int chips0, int turn0)
{
    for (int i = 0; i < f->count; i++) {
        clans_found_board(c, f->where[i], clans__chip_epoch_table[chips0 + i]);
        c->chips[(turn0 + f->when[i]) % c->base.players]++;
    }
    c->chips_taken = (uint8_t)(chips0 + f->count);
    c->over |= c->chips_taken == CLANS_CHIPS;
}

/* The playout's hut moves: random hut moves while no village waits for the
 * mover to order it, at most `budget`, each drawn as clans_draw would and
 * applied as clans_move_huts would.  A move that makes villages records
 * them (clans_founded) and the turn passes, unless their chips span two
 * epochs: then the run ends in clans_settle_villages, which may leave their
 * order to the mover.  Nothing in the loop depends on whose turn it is or
 * on what a village held (clans_found_board), so both are worked out once
 * at the end, and the last move is written once.  The masks a move changes
 * are worked on in a copy on the stack and written back at the end: in the
 * state, every byte stored into size[] could change them, so the compiler
 * would store them back after every move.  Returns the decisions made. */
static inline int clans_hut_moves(clans_state *c, tb_rng *rng, int budget)
{
    const int turn0 = c->turn, chips0 = c->chips_taken, room = CLANS_CHIPS - chips0;
    uint64_t live[CLANS_EDGE_WORDS], crowd[3], occupied = c->occupied;
    memcpy(live, c->live, sizeof live);
    memcpy(crowd, c->crowd, sizeof crowd);
    clans_founded f = {.count = 0};
    int n = 0, from, to;
    uint64_t several = 0;
    for (;;) {
        const clans_arc_source *source =
            &clans__arc_source[clans_draw_hut_move(live, c->size, rng, &from, &to)];
        clans_shift_huts(c, from, to);
        uint64_t pending =
            clans_vacate(&occupied, live, crowd, from, source->edges, source->adjacent) & occupied;
        n++;
        if (__builtin_expect((pending & (pending - 1)) != 0, 0)) {
            /* Several villages.  When their chips are all of one epoch, the
             * order cannot matter (clans__order_matters) and they are founded
             * lowest first, as clans_settle_villages would; else the mover
             * may have to choose, and clans_settle_villages sees to it. */
            int first = chips0 + f.count, last = first + __builtin_popcountll(pending) - 1;
            if (last >= CLANS_CHIPS ||
                clans__chip_epoch_table[last] != clans__chip_epoch_table[first]) {
                several = pending;
                break;
            }
            for (; pending; pending &= pending - 1) {
                f.where[f.count] = (uint8_t)__builtin_ctzll(pending);
                f.when[f.count++] = (uint8_t)(n - 1);
            }
        } else {
            f.where[f.count] = (uint8_t)__builtin_ctzll(pending | BIT(63));
            f.when[f.count] = (uint8_t)(n - 1);
            f.count += pending != 0;
        }
        bool no_move = (live[0] | live[1] | live[2]) == 0;
        if (__builtin_expect(no_move || f.count == room || n == budget, 0))
            break;
    }
    memcpy(c->live, live, sizeof live);
    memcpy(c->crowd, crowd, sizeof crowd);
    c->occupied = occupied;
    clans_settle_founded(c, &f, chips0, turn0);
    c->turn = (uint8_t)((turn0 + n - 1) % c->base.players); /* the last mover */
    c->last_from = (uint8_t)(from + 1);
    c->last_to = (uint8_t)(to + 1);
    if (several) {
        c->pending = several;
        clans_settle_villages(c); /* founds them, or leaves the order to the mover */
    } else {
        clans_next_turn(c); /* over with the 12th village or no move left, else the next seat */
    }
    return n;
}

/* Random decisions to the end (or `limit`), each drawn as clans_draw would
 * and applied as clans_apply would, without encoding them as moves. */
CLANS_SCALAR static int clans_playout(tb_state *s, tb_rng *shared_rng, int limit)
{
    clans_state *c = (clans_state *)s;
    /* A local copy of the generator stays in registers: stores into the
     * state's byte arrays could otherwise alias it. */
    tb_rng local = *shared_rng, *rng = &local;
    int n = 0, budget = limit > 0 ? limit : INT_MAX;
    while (!c->over && n < budget) {
        if (__builtin_expect(c->pending != 0, 0)) {
            clans_choose_village(c, clans_draw_village(c, rng)); /* the mover orders them */
            n++;
        } else {
            n += clans_hut_moves(c, rng, budget - n);
        }
    }
    *shared_rng = local;
    return n;
}

static void clans_scores(const tb_state *s, int *out)
{
    const clans_state *c = (const clans_state *)s;
    for (int p = 0; p < s->players; p++)
        out[p] = c->track[c->colour[p]] + c->chips[p];
}

/* tb_score_breakdown: the seat's colour's points from the villages of each
 * epoch (their huts), the terrain bonuses, and the chips.  A village keeps
 * its huts once founded (nothing borders it), so the board still says what
 * every village scored; ruins and villages emptied by strife score nothing. */
static int clans_score_breakdown(const tb_state *s, int seat, tb_score_part *out)
{
    /* N_: the sources are catalogue msgids (the result pages translate them) */
    static const char *const epoch_villages[CLANS_EPOCHS] = {
        N_("Epoch I villages"), N_("Epoch II villages"), N_("Epoch III villages"),
        N_("Epoch IV villages"), N_("Epoch V villages")};
    const clans_state *c = (const clans_state *)s;
    int colour = c->colour[seat];
    if (colour >= CLANS_COLOURS)
        return -1;
    int huts[CLANS_EPOCHS] = {0}, bonus = 0;
    for (uint64_t v = c->villages & ~c->ruins; v; v &= v - 1) {
        int t = __builtin_ctzll(v), e = c->village_epoch[t];
        if (e < 1 || e > CLANS_EPOCHS || !clans__huts(c, t, colour))
            continue;
        unsigned rule = clans__founding[e - 1][t];
        huts[e - 1] += c->size[t];
        bonus += rule & CLANS_RUIN ? 0 : (int)rule; /* the terrain bonus */
    }
    int n = 0;
    for (int e = 0; e < CLANS_EPOCHS; e++) {
        snprintf(out[n].source, sizeof out[n].source, "%s", epoch_villages[e]);
        out[n++].points = huts[e];
    }
    snprintf(out[n].source, sizeof out[n].source, "%s", N_("Terrain bonuses"));
    out[n++].points = bonus;
    snprintf(out[n].source, sizeof out[n].source, "%s", N_("Chips"));
    out[n++].points = c->chips[seat];
    return n;
}

/* tb_reveals, exactly: the only secrets are the clans' colours, and every
 * colour is shown when the game ends (the decisions never depend on them). */
static unsigned clans_reveals(const tb_state *before, tb_move m, const tb_state *after)
{
    (void)m;
    const clans_state *b = (const clans_state *)before, *a = (const clans_state *)after;
    return a->over && !b->over ? (1u << before->players) - 1u : 0u;
}

static void clans_resample(tb_state *s, int seat, tb_rng *rng)
{
    clans_state *c = (clans_state *)s;
    if (c->over)
        return; /* every colour is revealed at the end */
    uint8_t pool[CLANS_COLOURS];
    int n = 0;
    for (int k = 0; k < CLANS_COLOURS; k++)
        if (seat < 0 || k != c->colour[seat])
            pool[n++] = (uint8_t)k;
    for (int p = 0; p < s->players; p++) {
        if (p == seat)
            continue;
        int i = (int)tb_rng_below(rng, (uint32_t)n);
        c->colour[p] = pool[i];
        pool[i] = pool[--n];
    }
}

static int clans_role(const tb_state *s, int seat)
{
    return ((const clans_state *)s)->colour[seat];
}

static void clans_set_roles(tb_state *s, const int *roles)
{
    clans_state *c = (clans_state *)s;
    for (int p = 0; p < s->players; p++)
        c->colour[p] = (uint8_t)roles[p];
}

/* A lead squashed to (0,1): 0.5 when level, 0.75 ten points ahead. */
#define CLANS_SQUASH(lead) (0.5 + 0.5 * (lead) / (10.0 + ((lead) < 0 ? -(lead) : (lead))))

/* CLANS_SQUASH of every lead in [-CLANS_SQUASH_SPAN, CLANS_SQUASH_SPAN],
 * evaluated by the compiler: the same doubles the expression gives at run
 * time (IEEE arithmetic, correctly rounded either way), looked up instead
 * of divided for in the heuristic's inner loop. */
#define CLANS_SQUASH_SPAN 256
#define CLANS_SQ2(l) CLANS_SQUASH(l), CLANS_SQUASH((l) + 1)
#define CLANS_SQ4(l) CLANS_SQ2(l), CLANS_SQ2((l) + 2)
#define CLANS_SQ8(l) CLANS_SQ4(l), CLANS_SQ4((l) + 4)
#define CLANS_SQ16(l) CLANS_SQ8(l), CLANS_SQ8((l) + 8)
#define CLANS_SQ32(l) CLANS_SQ16(l), CLANS_SQ16((l) + 16)
#define CLANS_SQ64(l) CLANS_SQ32(l), CLANS_SQ32((l) + 32)
#define CLANS_SQ128(l) CLANS_SQ64(l), CLANS_SQ64((l) + 64)
#define CLANS_SQ256(l) CLANS_SQ128(l), CLANS_SQ128((l) + 128)
static const double clans_squash_table[2 * CLANS_SQUASH_SPAN + 1] = {
    CLANS_SQ256(-CLANS_SQUASH_SPAN), CLANS_SQ256(0), CLANS_SQUASH(CLANS_SQUASH_SPAN)};

static inline double clans_squash(int lead)
{
    return (unsigned)(lead + CLANS_SQUASH_SPAN) <= 2u * CLANS_SQUASH_SPAN
               ? clans_squash_table[lead + CLANS_SQUASH_SPAN]
               : CLANS_SQUASH(lead);
}

double clans__squash(int lead)
{
    return clans_squash(lead);
}

double clans__squash_computed(int lead)
{
    return CLANS_SQUASH(lead);
}

/* The orders in which clans_heuristic visits the assignments of the four
 * colours a seat may not hold to the other seats: x, then y != x, then
 * z != x, y, each ascending (x in bits 0-1, y in 2-3, z in 4-5). */
#define CLANS_XYZ(x, y, z) ((x) | (y) << 2 | (z) << 4)
static const uint8_t clans_assign3[24] = {
    CLANS_XYZ(0, 1, 2), CLANS_XYZ(0, 1, 3), CLANS_XYZ(0, 2, 1), CLANS_XYZ(0, 2, 3),
    CLANS_XYZ(0, 3, 1), CLANS_XYZ(0, 3, 2), CLANS_XYZ(1, 0, 2), CLANS_XYZ(1, 0, 3),
    CLANS_XYZ(1, 2, 0), CLANS_XYZ(1, 2, 3), CLANS_XYZ(1, 3, 0), CLANS_XYZ(1, 3, 2),
    CLANS_XYZ(2, 0, 1), CLANS_XYZ(2, 0, 3), CLANS_XYZ(2, 1, 0), CLANS_XYZ(2, 1, 3),
    CLANS_XYZ(2, 3, 0), CLANS_XYZ(2, 3, 1), CLANS_XYZ(3, 0, 1), CLANS_XYZ(3, 0, 2),
    CLANS_XYZ(3, 1, 0), CLANS_XYZ(3, 1, 2), CLANS_XYZ(3, 2, 0), CLANS_XYZ(3, 2, 1)};
static const uint8_t clans_assign2[12] = {
    CLANS_XYZ(0, 1, 0), CLANS_XYZ(0, 2, 0), CLANS_XYZ(0, 3, 0), CLANS_XYZ(1, 0, 0),
    CLANS_XYZ(1, 2, 0), CLANS_XYZ(1, 3, 0), CLANS_XYZ(2, 0, 0), CLANS_XYZ(2, 1, 0),
    CLANS_XYZ(2, 3, 0), CLANS_XYZ(3, 0, 0), CLANS_XYZ(3, 1, 0), CLANS_XYZ(3, 2, 0)};

/* A seat's standing: its points against the best other seat's, squashed to
 * [0,1].  It uses only what the seat knows: its own colour, the tracks and
 * the chips.  Until the end the others' colours are secret, so the standing
 * is averaged over every way they could hold the remaining colours (at most
 * 4 x 3 x 2 ways); at the end every colour is known. */
static double clans_standing(const tb_state *s, const int *sc, int seat)
{
    const clans_state *c = (const clans_state *)s;
    if (c->over) {
        int best_other = -1000;
        for (int p = 0; p < s->players; p++)
            if (p != seat && sc[p] > best_other)
                best_other = sc[p];
        return clans_squash(sc[seat] - best_other);
    }
    /* The other seats' chips, and the tracks of the four colours they may
     * hold; every injective assignment of those colours to the (at most
     * three) other seats, in the order of clans_assign3 (the sum's order,
     * so the value is the same double however it is computed). */
    int chips[3] = {0, 0, 0}, no = 0, track[CLANS_COLOURS], nt = 0;
    for (int p = 0; p < s->players; p++)
        if (p != seat)
            chips[no++] = c->chips[p];
    for (int k = 0; k < CLANS_COLOURS; k++)
        if (k != c->colour[seat])
            track[nt++] = c->track[k];
    int own = sc[seat], b0[4], b1[4], b2[4];
    for (int k = 0; k < 4; k++) {
        b0[k] = track[k] + chips[0];
        b1[k] = track[k] + chips[1];
        b2[k] = track[k] + chips[2];
    }
    double sum = 0.0;
    if (no == 3) {
        /* unrolled, the assignments become constant indexes */
#pragma GCC unroll 24
        for (int i = 0; i < 24; i++) {
            int a = clans_assign3[i], best = b0[a & 3];
            best = b1[a >> 2 & 3] > best ? b1[a >> 2 & 3] : best;
            best = b2[a >> 4] > best ? b2[a >> 4] : best;
            sum += clans_squash(own - best);
        }
        return sum / 24;
    }
    if (no == 2) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) {
            int a = clans_assign2[i], best = b0[a & 3];
            best = b1[a >> 2 & 3] > best ? b1[a >> 2 & 3] : best;
            sum += clans_squash(own - best);
        }
        return sum / 12;
    }
    for (int x = 0; x < 4; x++)
        sum += clans_squash(own - b0[x]);
    return sum / 4;
}

static double clans_heuristic(const tb_state *s, int seat)
{
    int sc[TB_MAX_SEATS];
    clans_scores(s, sc);
    return clans_standing(s, sc, seat);
}

static void clans_heuristic_all(const tb_state *s, double *out)
{
    int sc[TB_MAX_SEATS];
    clans_scores(s, sc);
    for (int p = 0; p < s->players; p++)
        out[p] = clans_standing(s, sc, p);
}

const struct tb_game tb__clans_game = {
    .name = "clans",
    .title = "Clans",
    .min_players = 2,
    .max_players = 4,
    .default_players = 4,
    .state_size = sizeof(clans_state),
    .options = clans_options,
    .notice = NULL,
    .setup = clans_setup,
    .to_move = clans__to_move,
    .legal = clans_legal,
    .public_decisions = true, /* legal moves never read the colours */
    .apply = clans_apply,
    .random_move = clans_random_move,
    .playout = clans_playout,
    .scores = clans_scores,
    .score_breakdown = clans_score_breakdown,
    .move_to_text = clans__move_to_text,
    .text_to_move = clans__text_to_move,
    .view_json = clans__view_json,
    .state_json = clans__state_json,
    .state_from_json = clans__state_from_json,
    .resample = clans_resample,
    .reveals = clans_reveals,
    .heuristic = clans_heuristic,
    .heuristic_all = clans_heuristic_all,
    .role_count = CLANS_COLOURS,
    .role_names = clans__colour_name,
    .role = clans_role,
    .set_roles = clans_set_roles,
    .board_json = clans__board_json,
    .render_text = clans__render_text,
    .prompt_text = clans__prompt_text,
    .narrate = clans__narrate,
    .prompt_msg = clans__prompt_msg,
    .render_text_in = clans__render_text_in,
    .stage_msg = clans__stage_msg,
    .stage_text = clans__stage_text,
    .num_actions = clans__num_actions,
    .move_to_action = clans__move_to_action,
    .action_to_move = clans__action_to_move,
    .observation_size = clans__observation_size,
    .observation = clans__observation,
};
