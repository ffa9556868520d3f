/*
 * khronos.c — the rules of Khronos (shared/rules/khronos.md as encoded here;
 * every ASSUMPTION is listed in docs/rules-khronos.md): setup, the turn as
 * atomic decisions (hold'em swap, exchange, travel, build, upgrade,
 * demolish, populate, renovate, the squares and surcharge cards of a
 * building, the choices inside a junction, a division or a downsizing, and
 * the end of the turn with its refill and earnings), rippling through time,
 * scores, resampling of hidden cards and a heuristic.
 *
 * One action is resolved in the spec's order (§1.13): pay, lay the tile on
 * the acting board, resolve hierarchy conflicts there, lay the shadow on the
 * next board (blocked shadows, overwrite), resolve there, and so on.  The
 * work left is kept in the state (a dirty flag per board, one pending
 * shadow, one pending decision), so a decision in the middle of it (which
 * building is downsized, which squares it keeps) simply returns to the
 * caller and the next decision resumes the work (kh_run).  The state
 * invariants are listed beside khronos_state in khronos.h.
 *
 * Layers: this file builds on khronos_board.c (one board's buildings,
 * domains, placement checks and conflicts), which knows nothing of it.
 *
 * Legal-move generation keeps what it works out about a board (kh_board_memo:
 * domains, build and upgrade checks) only while the board is byte for byte
 * the one it was made for; a playout keeps it from one decision to the
 * next, every other caller for one call.  It is never part of the state.
 * A random decision is drawn without the full list (kh_random_moves_memo):
 * builds and upgrades are searched for room only when the draw lands on
 * them, and the draw stays uniform over the legal decisions.
 */
#include "khronos.h"
#include "core/msg.h"

#include <stdio.h>
#include <string.h>

const char *const kh_board_name[KH_BOARDS] = {"might", "faith", "reason"};
const char *const kh_family_name[KH_FAMILIES] = {"military", "religious", "civil"};
const char kh_family_letter[KH_FAMILIES] = {'m', 'r', 'c'};
const char *const kh_colour_name[TB_MAX_SEATS] = {"red", "green", "blue", "white", "yellow"};

/* The tables of the data the game is on (khronos_board.h); k is the state. */
#define KT KH_TABLES(k)
#define D (KT->data)
#define EARNING_TURN(t) ((t) == 4 || (t) == KH_TURNS)
#define BONUS(board) ((board) == KH_MIGHT ? 1 : (board) == KH_FAITH ? 2 : 0)

static const tb_option_spec kh_options[] = {
    {"holdem", "off|on", "off",
     "Three cards lie face up, one of each colour; at the start of your turn you may swap one "
     "of your cards for one of them.",
     "Hold'em cards", "Not used|Used"},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

/* ---- cards ---- */

int kh_total(const uint8_t h[KH_FAMILIES])
{
    return h[0] + h[1] + h[2];
}

static void kh_reshuffle(khronos_state *k)
{
    int n = 0;
    for (int f = 0; f < KH_FAMILIES; f++)
        for (int i = 0; i < k->discard[f]; i++)
            k->deck[n++] = (uint8_t)f;
    memset(k->discard, 0, sizeof k->discard);
    tb__shuffle(k->deck, (size_t)n, 1, &k->base.rng);
    k->deck_n = (uint8_t)n;
}

/* Draws until the seat holds `upto` cards or no card is left anywhere. */
static void kh_draw(khronos_state *k, int p, int upto)
{
    while (kh_total(k->hand[p]) < upto) {
        if (!k->deck_n)
            kh_reshuffle(k);
        if (!k->deck_n)
            return;
        int f = k->deck[--k->deck_n];
        k->deck[k->deck_n] = 0;
        k->hand[p][f]++;
    }
}

/* Hold'em: the display keeps one card of each colour, taken from the deck
 * (the topmost card of that colour), else from the discards (ASSUMPTION). */
static void kh_refill_display(khronos_state *k)
{
    for (int f = 0; f < KH_FAMILIES; f++) {
        if (k->display[f])
            continue;
        for (int i = k->deck_n - 1; i >= 0; i--)
            if (k->deck[i] == f) {
                memmove(&k->deck[i], &k->deck[i + 1], (size_t)(k->deck_n - i - 1));
                k->deck[--k->deck_n] = 0;
                k->display[f] = 1;
                break;
            }
        if (!k->display[f] && k->discard[f]) {
            k->discard[f]--;
            k->display[f] = 1;
        }
    }
}

static void kh_pay_cards(khronos_state *k, int f, int n, tb_move extra)
{
    uint8_t *h = k->hand[k->cur];
    h[f] = (uint8_t)(h[f] - n);
    k->discard[f] = (uint8_t)(k->discard[f] + n);
    for (int g = 0; g < KH_FAMILIES; g++) {
        int x = (int)(extra >> (3 * g)) & 7;
        h[g] = (uint8_t)(h[g] - x);
        k->discard[g] = (uint8_t)(k->discard[g] + x);
    }
}

/* ---- adventurers and the two-cards-per-adventurer limit ---- */

int kh_pawns_on(const khronos_state *k, int p, int board)
{
    return (k->pawn[p][0] == board) + (k->pawn[p][1] == board);
}

int kh_capacity(const khronos_state *k, int board)
{
    /* without branches (which adventurer stands where is random in a
     * playout): both there share the pool, one there has its own cards */
    const uint8_t *pw = k->pawn[k->cur];
    int on0 = pw[0] == board, on1 = pw[1] == board;
    return on0 * k->left[0] + on1 * k->left[1] - (on0 & on1) * k->pool;
}

/* Plays n cards with the adventurers on `board`; an adventurer that plays
 * (either, when both stand there and share the cards) has not merely
 * travelled any more. */
static void kh_spend(khronos_state *k, int board, int n)
{
    uint8_t *pw = k->pawn[k->cur];
    for (int d = 0; d < 2; d++)
        if (pw[d] == board)
            k->travelled[d] = 0;
    if (pw[0] == board && pw[1] == board)
        k->pool = (uint8_t)(k->pool + n);
    else
        k->left[pw[0] == board ? 0 : 1] = (uint8_t)(k->left[pw[0] == board ? 0 : 1] - n);
}

/* Keeps player p's adventurers in the canonical order, so equivalent
 * positions are the same bytes: by board, and the current player's (who alone
 * has cards left and travels this turn) by (board, cards left, travelled). */
void kh_sort_pawns(khronos_state *k, int p)
{
    uint8_t *pw = k->pawn[p];
    bool cur = p == k->cur, same_board = pw[0] == pw[1], same_left = k->left[0] == k->left[1];
    if (pw[0] > pw[1] || (cur && same_board && k->left[0] > k->left[1]) ||
        (cur && same_board && same_left && k->travelled[0] > k->travelled[1])) {
        uint8_t t = pw[0];
        pw[0] = pw[1];
        pw[1] = t;
        if (!cur)
            return;
        t = k->left[0];
        k->left[0] = k->left[1];
        k->left[1] = t;
        t = k->travelled[0];
        k->travelled[0] = k->travelled[1];
        k->travelled[1] = t;
    }
}

/* The allowances adventurer d may take with it when it leaves the board it
 * shares with the other, after they played `pool` cards together: bit r set
 * when it may leave with r cards still to play (it takes x of the shared
 * cards, as many as it and the other can have played). */
static int kh_leave_allowances(const khronos_state *k, int d)
{
    int lo = k->pool - k->left[1 - d] > 0 ? k->pool - k->left[1 - d] : 0;
    int hi = k->pool < k->left[d] ? k->pool : k->left[d];
    int set = 0;
    for (int x = lo; x <= hi; x++)
        set |= 1 << (k->left[d] - x);
    return set;
}

/* The allowances an adventurer leaving `from` may take with it when both
 * stand there: bit r set when one of them may leave with r cards still to
 * play; 0 when they do not share `from`. */
int kh_leave_options(const khronos_state *k, int from)
{
    const uint8_t *pw = k->pawn[k->cur];
    if (pw[0] != from || pw[1] != from)
        return 0;
    return kh_leave_allowances(k, 0) | kh_leave_allowances(k, 1);
}

static void kh_travel(khronos_state *k, int from, int to, int r)
{
    uint8_t *pw = k->pawn[k->cur];
    k->ecus[k->cur] = (int16_t)(k->ecus[k->cur] - KH_TRAVEL_COST);
    k->spent[k->cur] = (int16_t)(k->spent[k->cur] + KH_TRAVEL_COST);
    if (pw[0] == from && pw[1] == from) {
        int total = k->left[0] + k->left[1] - k->pool;
        int set = kh_leave_options(k, from);
        if (r == KH_AUTO)
            r = __builtin_ctz((unsigned)set);
        int d = kh_leave_allowances(k, 0) >> r & 1 ? 0 : 1;
        pw[d] = (uint8_t)to;
        k->left[d] = (uint8_t)r;
        k->left[1 - d] = (uint8_t)(total - r);
        k->travelled[d] = 1;
        k->pool = 0;
    } else {
        int d = pw[0] == from ? 0 : 1;
        pw[d] = (uint8_t)to;
        k->travelled[d] = 1;
        k->pool = 0;
    }
    kh_sort_pawns(k, k->cur);
}

/* ---- terrain, stock, cubes ---- */

int kh_surcharge(const khronos_state *k, const kh_place *p)
{
    int n = k->base.players, s = 0;
    if (p->covers & KH_COVERS_FOREST)
        s += D.surcharge_forest[n];
    if (p->covers & KH_COVERS_MOUNTAIN)
        s += D.surcharge_mountain[n];
    return s;
}

void kh_recount(khronos_state *k)
{
    int on[KH_TYPES] = {0}, cubes[TB_MAX_SEATS] = {0};
    for (int b = 0; b < KH_BOARDS; b++) {
        const kh_board *bd = &k->board[b];
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            if (!(x->flags & KH_PRINTED))
                on[x->type]++;
            if (x->owner != KH_NOBODY)
                cubes[x->owner]++;
            if (x->reno != KH_NOBODY)
                cubes[x->reno]++;
            for (int c = 0; c < x->ncubes; c++)
                cubes[x->cube[c]]++;
        }
    }
    for (int t = 0; t < KH_TYPES; t++)
        k->stock[t] = (uint8_t)(D.tile[t].count - on[t]);
    for (int p = 0; p < k->base.players; p++)
        k->cubes[p] = (uint8_t)(D.cubes - cubes[p]);
}

/* Returns every cube on building x to its owner. */
static void kh_return_cubes(khronos_state *k, const kh_bld *x, bool owner_cube)
{
    if (owner_cube && x->owner != KH_NOBODY)
        k->cubes[x->owner]++;
    if (x->reno != KH_NOBODY)
        k->cubes[x->reno]++;
    for (int c = 0; c < x->ncubes; c++)
        k->cubes[x->cube[c]]++;
}

static void kh_add_cube(kh_bld *x, int p)
{
    int i = x->ncubes++;
    while (i > 0 && x->cube[i - 1] > p) {
        x->cube[i] = x->cube[i - 1];
        i--;
    }
    x->cube[i] = (uint8_t)p;
}

/* The family whose power settles a junction on board b (§1.8.1). */
static int kh_power_family(int b)
{
    return b == KH_MIGHT ? KH_MILITARY : KH_RELIGIOUS;
}

/* Before a change to a board whose hierarchy must then be resolved: records
 * the domains as they are (the "original domains" of a junction). */
static void kh_touch(khronos_state *k, int b)
{
    kh_board *bd = &k->board[b];
    if (b == KH_REASON || bd->dirty)
        return;
    kh_board_snapshot(bd, kh_power_family(b));
    bd->dirty = 1;
}

/* ---- construction rules (the checks on one board are in khronos_board.c) ---- */

/* What legal-move generation works out about one board and can use again
 * while the board is unchanged: a playout keeps one for its whole run
 * (kh_playout), any other caller one for one call.  `key` is a copy of what
 * the answers depend on (the covered squares and the buildings); every
 * answer is worked out on first use and forgotten when the board differs
 * from the key.  Nothing here is part of the state. */
#define KH_MEMO_FAMS 16
typedef struct kh_board_memo {
    bool keyed;
    uint8_t nb;
    kh_bits occ;
    kh_bld b[KH_MAXB];
    /* the domains and their squares (kh_board_domain_squares) */
    bool have_st;
    kh_domstat st[KH_MAXB];
    kh_bits sq[KH_MAXB];
    /* kh_board_new_families answers: size, families and covers_ok -> found */
    int nfam;
    uint16_t fam_key[KH_MEMO_FAMS];
    uint8_t fam_found[KH_MEMO_FAMS];
    /* kh_board_upgrade_sizes by building: the last question (have_up: bit i;
     * up_key: sizes and the covers_ok of sizes 2 and 3) and its answer */
    uint64_t have_up[2];
    uint32_t up_key[KH_MAXB];
    uint8_t up_found[KH_MAXB];
} kh_board_memo;

typedef struct kh_memo {
    kh_board_memo board[KH_BOARDS];
} kh_memo;

static void kh_memo_init(kh_memo *m)
{
    for (int b = 0; b < KH_BOARDS; b++)
        m->board[b].keyed = false;
}

/* What legal-move generation needs again and again about the current
 * player, worked out once per call: cards each board can take, the hand,
 * the forest and mountain surcharges, and each board's memo (checked
 * against the board on first use in the call). */
typedef struct kh_ctx {
    const khronos_state *k;
    int cap[KH_BOARDS];
    int total;
    const uint8_t *hand;
    int forest, mountain; /* the surcharges of a forest and of a mountain */
    bool checked[KH_BOARDS];
    kh_memo *memo;
} kh_ctx;

static void kh_ctx_init(kh_ctx *c, const khronos_state *k, kh_memo *memo)
{
    c->k = k;
    c->memo = memo;
    for (int b = 0; b < KH_BOARDS; b++) {
        c->cap[b] = kh_capacity(k, b);
        c->checked[b] = false;
    }
    c->hand = k->hand[k->cur];
    c->total = kh_total(c->hand);
    c->forest = D.surcharge_forest[k->base.players];
    c->mountain = D.surcharge_mountain[k->base.players];
}

/* Board b's memo, emptied first when the board is not the one it was made for. */
static kh_board_memo *kh_ctx_memo(kh_ctx *c, int b)
{
    kh_board_memo *m = &c->memo->board[b];
    if (c->checked[b])
        return m;
    c->checked[b] = true;
    const kh_board *bd = &c->k->board[b];
    size_t bytes = (size_t)bd->nb * sizeof bd->b[0];
    if (m->keyed && m->nb == bd->nb && !memcmp(&m->occ, &bd->occ, sizeof m->occ) &&
        !memcmp(m->b, bd->b, bytes))
        return m;
    m->keyed = true;
    m->nb = bd->nb;
    m->occ = bd->occ;
    memcpy(m->b, bd->b, bytes);
    m->have_st = false;
    m->nfam = 0;
    m->have_up[0] = m->have_up[1] = 0;
    return m;
}

/* Board b's memo with its domains (st, sq) worked out. */
static kh_board_memo *kh_ctx_domains(kh_ctx *c, int b)
{
    kh_board_memo *m = kh_ctx_memo(c, b);
    if (!m->have_st) {
        kh_board_domain_squares(&c->k->board[b], m->st, m->sq);
        m->have_st = true;
    }
    return m;
}

/* kh_board_new_families on board b, remembered. */
static unsigned kh_ctx_families(kh_ctx *c, int b, int v, unsigned families, unsigned covers_ok)
{
    kh_board_memo *m = (families & 3u) ? kh_ctx_domains(c, b) : kh_ctx_memo(c, b);
    uint16_t key = (uint16_t)(v | families << 2 | covers_ok << 5);
    for (int i = 0; i < m->nfam; i++)
        if (m->fam_key[i] == key)
            return m->fam_found[i];
    unsigned found = kh_board_new_families(&c->k->board[b], v, families, m->st, m->sq, covers_ok);
    if (m->nfam < KH_MEMO_FAMS) {
        m->fam_key[m->nfam] = key;
        m->fam_found[m->nfam++] = (uint8_t)found;
    }
    return found;
}

/* kh_board_upgrade_sizes of building i on board b, remembered. */
static unsigned kh_ctx_upgrades(kh_ctx *c, int b, int i, unsigned sizes, const unsigned covers_ok[4])
{
    kh_board_memo *m = kh_ctx_domains(c, b);
    uint32_t key = sizes | covers_ok[2] << 4 | covers_ok[3] << 12;
    uint64_t bit = 1ULL << (i & 63);
    if ((m->have_up[i >> 6] & bit) && m->up_key[i] == key)
        return m->up_found[i];
    unsigned found = kh_board_upgrade_sizes(&c->k->board[b], i, sizes, m->st, m->sq, covers_ok);
    m->have_up[i >> 6] |= bit;
    m->up_key[i] = key;
    m->up_found[i] = (uint8_t)found;
    return found;
}

/* The terrain mixes (bit c: covers bits c) whose surcharge fits in `spare`
 * cards: the mixes without forest or mountain (covers 0 and 1, river or
 * not), those with forest only (2, 3), mountain only (4, 5) and both (6, 7). */
static unsigned kh_ctx_fits(const kh_ctx *c, int spare)
{
    return 0x03u | (c->forest <= spare ? 0x0cu : 0) | (c->mountain <= spare ? 0x30u : 0) |
           (c->forest + c->mountain <= spare ? 0xc0u : 0);
}

/* The cards that must go into the pending or prospective building (type on
 * board b, new: target < 0, or upgrading building index target), and the
 * terrain mixes whose surcharge can then be paid; -1 when it cannot be paid. */
static int kh_placement_cost(kh_ctx *c, int b, int type, int target, unsigned *covers_ok)
{
    const kh_board *bd = &c->k->board[b];
    int f = KH_FAMILY(type), v = KH_SIZE(type);
    int base = target < 0 ? v : v - KH_SIZE(bd->b[target].type);
    int budget = c->cap[b] < c->total ? c->cap[b] : c->total; /* cards that can go in */
    if (c->hand[f] < base || budget < base)
        return -1;
    *covers_ok = kh_ctx_fits(c, budget - base);
    return base;
}

/* The placements of a new building of `type` on board b as sets by form
 * (kh_board_new_set): each affordable with its surcharge and legal; returns
 * how many. */
static int kh_new_set(kh_ctx *c, int b, int type, kh_bits *legal)
{
    unsigned covers_ok;
    if (kh_placement_cost(c, b, type, -1, &covers_ok) < 0)
        return 0;
    const kh_board_memo *m = kh_ctx_domains(c, b);
    return kh_board_new_set(&c->k->board[b], type, m->st, m->sq, covers_ok, legal);
}

/* Lists in out, up to `limit`, the placements for the pending
 * or prospective building: type on board b, new (target < 0) or upgrading
 * building index target; each affordable with its surcharge and legal. */
static int kh_placements(kh_ctx *c, int b, int type, int target, tb_move *out, int limit)
{
    int n;
    if (target < 0) {
        kh_bits legal[KH_MAXSHAPES];
        n = kh_new_set(c, b, type, legal)
                ? kh_board_set_list(c->k->board[b].tab, KH_SIZE(type), legal, out, limit)
                : 0;
    } else {
        unsigned covers_ok;
        if (kh_placement_cost(c, b, type, target, &covers_ok) < 0)
            return 0;
        const kh_board_memo *m = kh_ctx_domains(c, b);
        n = kh_board_upgrade_places(&c->k->board[b], target, type, m->st, m->sq, covers_ok, out,
                                    limit);
    }
    /* the placement indices were listed in out: made moves */
    for (int i = 0; i < n; i++)
        out[i] = KH_MOVE(KH_M_SQUARES, out[i]);
    return n;
}

/* The number of distinct multisets of `n` cards in a hand h. */
static int kh_subsets_of_size(const uint8_t h[KH_FAMILIES], int n)
{
    int count = 0;
    for (int a = 0; a <= h[0] && a <= n; a++)
        for (int b = 0; b <= h[1] && a + b <= n; b++)
            count += n - a - b <= h[2];
    return count;
}

/* ---- conflicts (§1.8; finding one is kh_board_conflict) and ripples ---- */

/* Finds the shadow of building x (as it was before a downsize) on board t:
 * the same squares and type, and on Faith the same owner and no ruin. */
static int kh_find_shadow(const kh_board *bd, int t, const kh_bld *x)
{
    int i = kh_board_find(bd, kh_anchor(x));
    if (i < 0)
        return -1;
    const kh_bld *y = &bd->b[i];
    if (y->place != x->place || y->type != x->type)
        return -1;
    if (t == KH_FAITH && (y->owner != x->owner || (y->flags & KH_RUIN)))
        return -1;
    return i;
}

/* Downsizes building i of board b to the tile one size smaller on placement
 * `place` (KH_NONE-ish 0xffff: destroyed), with the effects on later boards
 * of §1.8.2. */
static void kh_downsize(khronos_state *k, int b, int i, int place)
{
    kh_board *bd = &k->board[b];
    kh_bld old = bd->b[i];
    int t0 = old.type, v = KH_SIZE(t0);
    bool destroyed = place == 0xffff;
    kh_board_remove(bd, i);
    k->stock[t0]++;
    if (destroyed) {
        kh_return_cubes(k, &old, true);
    } else {
        kh_bld *y = &bd->b[kh_board_add(bd, place, t0 - 1, old.owner, 0)];
        y->orig = old.orig; /* still the same building for the junction rule */
        y->opower = old.opower;
        k->stock[t0 - 1]--;
    }
    if (v < 2)
        return;
    bool go_on = !destroyed && v == 3;
    for (int t = b + 1; t < KH_BOARDS; t++) {
        kh_board *tb = &k->board[t];
        int j = kh_find_shadow(tb, t, &old);
        if (j < 0)
            break;
        kh_touch(k, t);
        kh_bld sh = tb->b[j];
        kh_board_remove(tb, j);
        k->stock[t0]++;
        kh_return_cubes(k, &sh, true);
        if (go_on && k->stock[t0 - 1] &&
            (t == KH_REASON || k->cubes[old.owner])) {
            if (t == KH_REASON) {
                kh_board_add(tb, place, t0 - 1, KH_NOBODY, KH_RUIN);
            } else {
                kh_bld *y = &tb->b[kh_board_add(tb, place, t0 - 1, old.owner, 0)];
                y->orig = sh.orig;
                y->opower = sh.opower;
                k->cubes[old.owner]--;
            }
            k->stock[t0 - 1]--;
        } else {
            go_on = false;
        }
    }
}

/* No decision pending: the pending fields take their canonical values. */
static void kh_clear_pend(khronos_state *k)
{
    k->pend = KH_P_NONE;
    k->pend_board = k->pend_type = k->pend_extra = 0;
    k->pend_target = KH_NONE;
    k->pend_place = 0;
}

/* Starts downsizing building i of board b: asks its owner for the squares
 * the smaller tile keeps when there is a choice. */
static void kh_downsize_start(khronos_state *k, int b, int i)
{
    kh_board *bd = &k->board[b];
    const kh_bld *x = &bd->b[i];
    uint16_t opts[KH_MAXSUB];
    int n = 0;
    if (KH_SIZE(x->type) > 1 && k->stock[x->type - 1])
        n = kh_smaller_places(bd, i, opts);
    if (n > 1) {
        k->pend = KH_P_KEEP;
        k->pend_board = (uint8_t)b;
        k->pend_target = (uint8_t)kh_anchor(x);
        return;
    }
    kh_downsize(k, b, i, n ? opts[0] : 0xffff);
}

/* Lays a pending shadow (§1.7). */
static void kh_lay_shadow(khronos_state *k)
{
    kh_ripple r = k->rip;
    memset(&k->rip, 0, sizeof k->rip);
    int t = r.board, type = r.type, f = KH_FAMILY(type);
    kh_board *bd = &k->board[t];
    const kh_place *p = &KT->place[r.place];
    int owner = f != KH_CIVIL && t == KH_FAITH ? r.owner : KH_NOBODY;
    int flags = f != KH_CIVIL && t == KH_REASON ? KH_RUIN : 0;
    /* what lies beneath, by index, highest first */
    uint8_t under[KH_MAXCELLS];
    int nu = 0, same_type = 0, own_cubes = 0;
    for (int a = p->n - 1; a >= 0; a--) {
        int j = bd->at[p->sq[a]];
        bool seen = j == KH_NONE;
        for (int u = 0; u < nu && !seen; u++)
            seen = under[u] == j;
        if (seen)
            continue;
        under[nu++] = (uint8_t)j;
    }
    for (int a = 0; a < nu; a++)
        for (int c = a + 1; c < nu; c++)
            if (under[c] > under[a]) {
                uint8_t tmp = under[a];
                under[a] = under[c];
                under[c] = tmp;
            }
    for (int u = 0; u < nu; u++) {
        const kh_bld *x = &bd->b[under[u]];
        same_type += x->type == type && !(x->flags & KH_PRINTED);
        own_cubes += owner != KH_NOBODY && x->owner == owner;
    }
    if (k->stock[type] + same_type == 0)
        return; /* no tile: the chain ends (ASSUMPTION 1.7.2) */
    if (owner != KH_NOBODY && k->cubes[owner] + own_cubes == 0)
        return; /* no cube for the owner's copy: treated like no tile (ASSUMPTION) */
    if (owner != KH_NOBODY) {
        /* blocked shadow (§1.7.4): would the copy break dominion or hierarchy?
         * Asked of the board as it will be around the copy: without what
         * lies beneath, and with the printed Hamlets that leave bare (a tile
         * grown from one goes: §1.7.3) back, since they may join the copy
         * to a domain; a scratch copy, when something lies beneath. */
        kh_board scratch;
        const kh_board *without = bd;
        if (nu) {
            scratch = *bd;
            for (int u = 0; u < nu; u++)
                kh_board_remove(&scratch, under[u]);
            kh_board_restore_printed_but(&scratch, p->mask);
            without = &scratch;
        }
        uint8_t roots[2];
        int n = kh_board_touching(without, p->nbr, -1, roots, 2);
        if (n > 1)
            return;
        if (n == 1) {
            kh_domstat st[KH_MAXB];
            kh_board_domains(without, st);
            if (st[roots[0]].top[f] == KH_SIZE(type))
                return;
        }
    }
    kh_touch(k, t);
    /* overwrite: populate cubes of civil buildings wholly covered by a civil
     * shadow stay on it up to its capacity (ASSUMPTION 1.9.1; a 2x2 or 3x3
     * block may cover several populated buildings: those met first, from the
     * end of the board order, keep theirs); everything else goes home.  The
     * buildings are removed highest index first, so the others keep theirs.
     * What is overwritten never existed (§1.7.3): its domain's power, should
     * the shadow make a junction, is taken without it. */
    uint8_t kept[3];
    int nk = 0;
    for (int u = 0; u < nu; u++) {
        kh_bld *x = &bd->b[under[u]]; /* removed below: its cubes may be edited in place */
        bool covered = kh_bits_subset(kh_place_of(KT, x)->mask, p->mask);
        if (f == KH_CIVIL && KH_FAMILY(x->type) == KH_CIVIL && covered) {
            int left = 0;
            for (int c = 0; c < x->ncubes; c++)
                if (nk < KH_SIZE(type))
                    kept[nk++] = x->cube[c];
                else
                    x->cube[left++] = x->cube[c];
            x->ncubes = (uint8_t)left;
        }
        kh_return_cubes(k, x, true);
        if (!(x->flags & KH_PRINTED))
            k->stock[x->type]++;
        if (t != KH_REASON)
            kh_board_snapshot_drop(bd, under[u], kh_power_family(t));
        kh_board_remove(bd, under[u]);
    }
    int i = kh_board_add(bd, r.place, type, owner, flags);
    k->stock[type]--;
    if (owner != KH_NOBODY)
        k->cubes[owner]--;
    for (int c = 0; c < nk; c++)
        kh_add_cube(&bd->b[i], kept[c]);
    kh_board_restore_printed(bd);
    if (t + 1 < KH_BOARDS) {
        k->rip.active = 1;
        k->rip.board = (uint8_t)(t + 1);
        k->rip.type = (uint8_t)type;
        k->rip.owner = r.owner;
        k->rip.place = r.place;
    }
}

/* Carries on with the work of the current action until a decision is
 * needed or nothing is left. */
static void kh_run(khronos_state *k)
{
    while (k->pend == KH_P_NONE) {
        int b = k->board[KH_MIGHT].dirty ? KH_MIGHT : k->board[KH_FAITH].dirty ? KH_FAITH : -1;
        if (b >= 0) {
            kh_conflict c;
            kh_board_conflict(&k->board[b], k->cur, &c);
            if (!c.found) {
                k->board[b].dirty = 0;
                kh_board_clear_snapshot(&k->board[b]);
            } else if (c.forced) {
                kh_downsize_start(k, b, c.cand[0]);
            } else {
                k->pend = KH_P_PICK;
                k->pend_board = (uint8_t)b;
            }
            continue;
        }
        if (!k->rip.active)
            return;
        kh_lay_shadow(k);
    }
}

/* ---- setup, turns, earnings ---- */

static void kh_start_turn(khronos_state *k)
{
    k->left[0] = k->left[1] = KH_CARDS_PER_PAWN;
    k->pool = 0;
    k->travelled[0] = k->travelled[1] = 0;
    k->exchanged = k->acted = k->swapped = 0;
    kh_sort_pawns(k, k->cur);
}

static int kh_setup(tb_state *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    khronos_state *k = (khronos_state *)s;
    k->holdem = tb__option_index(s, "holdem") == 1;
    /* the three boards start alike: the printed Hamlets */
    kh_board_init(&k->board[0], KT);
    kh_board_restore_printed(&k->board[0]);
    for (int b = 1; b < KH_BOARDS; b++)
        k->board[b] = k->board[0];
    for (int t = 0; t < KH_TYPES; t++)
        k->stock[t] = D.tile[t].count;
    int n = 0;
    for (int f = 0; f < KH_FAMILIES; f++)
        for (int i = 0; i < D.cards[f]; i++)
            k->deck[n++] = (uint8_t)f;
    tb__shuffle(k->deck, (size_t)n, 1, &s->rng);
    k->deck_n = (uint8_t)n;
    for (int p = 0; p < s->players; p++) {
        k->ecus[p] = D.ecus;
        k->cubes[p] = D.cubes;
        k->pawn[p][0] = k->pawn[p][1] = (uint8_t)D.start_board;
        kh_draw(k, p, D.hand);
    }
    if (k->holdem)
        kh_refill_display(k);
    k->first = (uint8_t)tb_rng_below(&s->rng, (uint32_t)s->players);
    k->cur = k->first;
    k->turn = 1;
    kh_clear_pend(k);
    kh_start_turn(k);
    return 0;
}

int khronos__to_move(const tb_state *s)
{
    const khronos_state *k = (const khronos_state *)s;
    if (k->over)
        return TB_OVER;
    if (k->pend == KH_P_KEEP) {
        const kh_board *bd = &k->board[k->pend_board];
        int i = kh_board_find(bd, k->pend_target);
        if (i >= 0 && bd->b[i].owner != KH_NOBODY)
            return bd->b[i].owner;
    }
    return k->cur;
}

/* The Ecus every seat would earn now on the boards of `boards` (bit b:
 * board b; the others are 0) (§1.10), whether or not an adventurer stands
 * there: out[seat][board] for the seats in play.  One pass over each board
 * serves every seat (the heuristic asks for all; the end of a turn for the
 * boards of the mover's adventurers).  Only a domain holding a building of
 * the board's family (Might, Faith) or a populate cube (Reason) can pay
 * anyone, and most domains hold neither (a printed Hamlet alone), so those
 * domains are found first (a set of root indexes) and only their other
 * buildings are summed. */
static void kh_earnings_on(const khronos_state *k, unsigned boards, int out[TB_MAX_SEATS][KH_BOARDS])
{
    static const uint8_t family[KH_TYPES] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    static const uint8_t size[KH_TYPES] = {1, 2, 3, 1, 2, 3, 1, 2, 3};
    int players = k->base.players;
    for (int p = 0; p < players; p++)
        for (int b = 0; b < KH_BOARDS; b++)
            out[p][b] = 0;
    for (int b = KH_MIGHT; b <= KH_FAITH; b++) {
        if (!(boards >> b & 1))
            continue;
        /* the single strongest building of the board's family in a domain
         * collects the domain's civil power for its owner */
        const kh_board *bd = &k->board[b];
        int f = b == KH_MIGHT ? KH_MILITARY : KH_RELIGIOUS;
        uint64_t has[2] = {0, 0}; /* roots of domains with a building of family f */
        uint8_t civil[KH_MAXB], top[KH_MAXB], ntop[KH_MAXB], owner[KH_MAXB];
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            if (family[x->type] != f || (x->flags & KH_RUIN))
                continue;
            int r = x->dom, v = size[x->type];
            if (kh_roots_add(has, r)) {
                civil[r] = 0;
                top[r] = (uint8_t)v;
                ntop[r] = 1;
                owner[r] = x->owner;
            } else if (v > top[r]) {
                top[r] = (uint8_t)v;
                ntop[r] = 1;
                owner[r] = x->owner;
            } else if (v == top[r]) {
                ntop[r]++;
            }
        }
        if (!(has[0] | has[1]))
            continue;
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            int r = x->dom;
            if (family[x->type] == KH_CIVIL && !(x->flags & KH_RUIN) && kh_roots_has(has, r))
                civil[r] = (uint8_t)(civil[r] + size[x->type]);
        }
        for (int w = 0; w < 2; w++)
            for (uint64_t m = has[w]; m; m &= m - 1) {
                int r = w * 64 + __builtin_ctzll(m);
                if (ntop[r] == 1 && owner[r] < players)
                    out[owner[r]][b] += civil[r];
            }
    }
    /* Reason: most cubes on the domain's civil buildings (ties all collect)
     * the domain's military and religious power */
    if (!(boards >> KH_REASON & 1))
        return;
    const kh_board *bd = &k->board[KH_REASON];
    uint64_t has[2] = {0, 0}; /* roots of domains with a cube */
    uint8_t cubes[KH_MAXB][TB_MAX_SEATS], power[KH_MAXB];
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *x = &bd->b[i];
        if (!x->ncubes || family[x->type] != KH_CIVIL)
            continue;
        int r = x->dom;
        if (kh_roots_add(has, r)) {
            memset(cubes[r], 0, sizeof cubes[r]);
            power[r] = 0;
        }
        for (int c = 0; c < x->ncubes; c++)
            cubes[r][x->cube[c]]++;
    }
    if (!(has[0] | has[1]))
        return; /* no cube: nobody collects */
    for (int i = 0; i < bd->nb; i++) {
        const kh_bld *x = &bd->b[i];
        int r = x->dom;
        if (family[x->type] != KH_CIVIL && !(x->flags & KH_RUIN) && kh_roots_has(has, r))
            power[r] = (uint8_t)(power[r] + size[x->type]);
    }
    for (int w = 0; w < 2; w++)
        for (uint64_t m = has[w]; m; m &= m - 1) {
            int r = w * 64 + __builtin_ctzll(m), most = 0;
            for (int p = 0; p < players; p++)
                most = cubes[r][p] > most ? cubes[r][p] : most;
            if (most == 0)
                continue;
            for (int p = 0; p < players; p++)
                if (cubes[r][p] == most)
                    out[p][KH_REASON] += power[r];
        }
}

void kh_earnings_all(const khronos_state *k, int out[TB_MAX_SEATS][KH_BOARDS])
{
    kh_earnings_on(k, (1u << KH_BOARDS) - 1, out);
}

/* The Ecus `seat` would earn now on each board. */
void kh_earnings(const khronos_state *k, int seat, int out[KH_BOARDS])
{
    int all[TB_MAX_SEATS][KH_BOARDS];
    kh_earnings_all(k, all);
    memcpy(out, all[seat], sizeof all[seat]);
}

static void kh_end_turn(khronos_state *k, tb_move discard)
{
    int p = k->cur;
    for (int f = 0; f < KH_FAMILIES; f++) {
        int x = (int)(discard >> (3 * f)) & 7;
        k->hand[p][f] = (uint8_t)(k->hand[p][f] - x);
        k->discard[f] = (uint8_t)(k->discard[f] + x);
    }
    kh_draw(k, p, D.hand);
    if (EARNING_TURN(k->turn)) {
        /* only the boards where the seat's adventurers stand pay it */
        int e[TB_MAX_SEATS][KH_BOARDS], total = 0;
        unsigned boards = 1u << k->pawn[p][0] | 1u << k->pawn[p][1];
        kh_earnings_on(k, boards, e);
        for (int b = 0; b < KH_BOARDS; b++)
            if (boards >> b & 1) {
                total += e[p][b];
                k->earned[p][k->turn == 4 ? 0 : 1][b] = (int16_t)e[p][b];
            }
        k->ecus[p] = (int16_t)(k->ecus[p] + total);
        k->last_earn[p] = (int16_t)total;
    }
    k->cur = (uint8_t)((p + 1) % k->base.players);
    if (k->cur == k->first && ++k->turn > KH_TURNS) {
        k->over = 1;
        k->left[0] = k->left[1] = 0;
        k->pool = 0;
        k->travelled[0] = k->travelled[1] = 0;
        k->exchanged = k->acted = k->swapped = 0;
        return;
    }
    kh_start_turn(k);
}

/* ---- legal decisions ---- */

/* kh_card_sets_pick's loop over the hand's colours, for any hand and sizes. */
static int kh_card_sets_loop(const uint8_t h[KH_FAMILIES], int kind, int lo, int hi, tb_move *out,
                             int nth, tb_move *pick)
{
    int n = 0;
    for (int c = 0; c <= h[2]; c++)
        for (int r = 0; r <= h[1]; r++) {
            /* the military counts that bring the size within [lo, hi] */
            int from = lo - r - c > 0 ? lo - r - c : 0, to = hi - r - c < h[0] ? hi - r - c : h[0];
            if (to < from)
                continue;
            if (out) {
                for (int m = from; m <= to; m++)
                    out[n++] = KH_MOVE(kind, KH_CARDS(m, r, c));
                continue;
            }
            if (nth >= n && nth <= n + to - from)
                *pick = KH_MOVE(kind, KH_CARDS(from + nth - n, r, c));
            n += to - from + 1;
        }
    return n;
}

/* Every multiset of cards from hand h (sizes lo..hi) as moves of `kind`, in
 * increasing move order: appended to out and counted or, with out NULL,
 * only counted, and the one numbered nth (from 0) put in *pick when there
 * is one.  Returns how many there are. */
static inline int kh_card_sets_pick(const uint8_t h[KH_FAMILIES], int kind, int lo, int hi,
                                    tb_move *out, int nth, tb_move *pick)
{
    if (!out && (lo == 0 || lo == 1) && h[0] + h[1] + h[2] <= hi) {
        /* every size fits but, with lo 1, the empty set: the sets are the
         * whole box of counts, numbered as the loop numbers them */
        int w0 = h[0] + 1, w1 = h[1] + 1, n = w0 * w1 * (h[2] + 1) - lo;
        if (nth >= 0 && nth < n) {
            int q = nth + lo;
            *pick = KH_MOVE(kind, KH_CARDS(q % w0, q / w0 % w1, q / w0 / w1));
        }
        return n;
    }
    return kh_card_sets_loop(h, kind, lo, hi, out, nth, pick);
}

static int kh_card_sets(const uint8_t h[KH_FAMILIES], int kind, int lo, int hi, tb_move *out)
{
    return kh_card_sets_loop(h, kind, lo, hi, out, 0, NULL);
}

/* Decisions whose legality needs a search of a board for room: the builds
 * of one size on one board (bit f of `maybe`: family f) or the larger sizes
 * of one building (bit v: size v).  A random draw (kh_random_moves_memo)
 * searches only the group it lands on; a list searches them all. */
typedef struct kh_group {
    uint8_t kind;  /* KH_M_BUILD or KH_M_UPGRADE */
    uint8_t board;
    uint8_t size;  /* a build's size, an upgrade's present size */
    uint8_t index; /* an upgrade: the building's index on the board */
    uint8_t family;
    bool searched;
    uint8_t maybe;    /* the decisions the cards allow, not yet searched for room */
    uint8_t legal;    /* once searched: those of them that have room */
    int dropped;      /* the draw (from 1) that dropped the others from its pool */
} kh_group;

#define KH_MAX_GROUPS (KH_BOARDS * 3 + KH_BOARDS * KH_MAXB)

/* What a random draw needs besides the decisions listed for sure: the
 * turn's endings (counted, not listed) and the groups not yet searched. */
typedef struct kh_lazy {
    int endings;
    int ngroups;
    kh_group group[KH_MAX_GROUPS];
} kh_lazy;

/* The groups of builds on board b: by size, the families in stock with a
 * cube for a military or religious tile and the cards in hand and on the
 * board's adventurers (surcharge aside); appended to g, returns how many. */
static int kh_build_groups(kh_ctx *c, int b, kh_group *g)
{
    const khronos_state *k = c->k;
    int budget = c->cap[b] < c->total ? c->cap[b] : c->total;
    int n = 0;
    for (int v = 1; v <= 3 && v <= budget; v++) {
        unsigned families = 0;
        for (int f = 0; f < KH_FAMILIES; f++)
            if (k->stock[KH_TYPE(f, v)] && (f == KH_CIVIL || k->cubes[k->cur]) && c->hand[f] >= v)
                families |= 1u << f;
        if (families)
            g[n++] = (kh_group){.kind = KH_M_BUILD, .board = (uint8_t)b, .size = (uint8_t)v,
                                .maybe = (uint8_t)families};
    }
    return n;
}

/* Searches group g (once): g->legal, the decisions of g->maybe that are
 * legal (a build: a legal placement whose surcharge can be paid; an
 * upgrade: a legal larger placement, the same). */
static void kh_group_search(kh_ctx *c, kh_group *g)
{
    if (g->searched)
        return;
    g->searched = true;
    /* the terrain mixes whose surcharge fits in the cards left once the
     * tile's own cards (one per size gained) are in */
    int b = g->board, budget = c->cap[b] < c->total ? c->cap[b] : c->total;
    if (g->kind == KH_M_BUILD) {
        g->legal = (uint8_t)kh_ctx_families(c, b, g->size, g->maybe, kh_ctx_fits(c, budget - g->size));
        return;
    }
    unsigned covers_ok[4] = {0};
    for (int v = g->size + 1; v <= 3; v++)
        if (budget >= v - g->size)
            covers_ok[v] = kh_ctx_fits(c, budget - (v - g->size));
    g->legal = (uint8_t)kh_ctx_upgrades(c, b, g->index, g->maybe, covers_ok);
}

/* The decision of group g for member bit `bit` (a family or a size). */
static tb_move kh_group_move(const kh_ctx *c, const kh_group *g, int bit)
{
    if (g->kind == KH_M_BUILD)
        return KH_MOVE(KH_M_BUILD, g->board << 4 | KH_TYPE(bit, g->size));
    const khronos_state *k = c->k;
    const kh_bld *x = &k->board[g->board].b[g->index];
    return KH_MOVE(KH_M_UPGRADE, g->board << 12 | kh_anchor(x) << 4 | KH_TYPE(g->family, bit));
}

/* The legal decisions, listed in out, for the position of c (its memo: what
 * the last calls worked out about the boards).  With lazy not NULL the
 * decisions that need a search for room (builds and upgrades, kh_group) are
 * left in lazy's groups, unsearched, and the turn's endings are counted
 * there, not listed: out has the rest, all legal. */
static int kh_legal_ctx(kh_ctx *c, tb_move *out, kh_lazy *lazy)
{
    const khronos_state *k = c->k;
    if (lazy)
        lazy->endings = lazy->ngroups = 0;
    if (k->over)
        return 0;
    int n = 0, p = k->cur;
    const uint8_t *h = k->hand[p];
    switch (k->pend) {
    case KH_P_SQUARES: {
        const kh_board *bd = &k->board[k->pend_board];
        int target = k->pend_target == KH_NONE ? -1 : kh_board_find(bd, k->pend_target);
        return kh_placements(c, k->pend_board, k->pend_type, target, out, TB_MAX_MOVES);
    }
    case KH_P_PAY: {
        uint8_t rest[KH_FAMILIES];
        memcpy(rest, h, sizeof rest);
        const kh_bld *x = NULL;
        int base = KH_SIZE(k->pend_type);
        if (k->pend_target != KH_NONE) {
            const kh_board *bd = &k->board[k->pend_board];
            x = &bd->b[kh_board_find(bd, k->pend_target)];
            base -= KH_SIZE(x->type);
        }
        rest[KH_FAMILY(k->pend_type)] = (uint8_t)(rest[KH_FAMILY(k->pend_type)] - base);
        return kh_card_sets(rest, KH_M_PAY, k->pend_extra, k->pend_extra, out);
    }
    case KH_P_PICK: {
        kh_conflict cf;
        kh_board_conflict(&k->board[k->pend_board], k->cur, &cf);
        for (int i = 0; i < cf.n; i++)
            out[n++] = KH_MOVE(KH_M_DOWNSIZE,
                               k->pend_board << 8 | kh_anchor(&k->board[k->pend_board].b[cf.cand[i]]));
        return n;
    }
    case KH_P_KEEP: {
        const kh_board *bd = &k->board[k->pend_board];
        uint16_t opts[KH_MAXSUB];
        int m = kh_smaller_places(bd, kh_board_find(bd, k->pend_target), opts);
        for (int i = 0; i < m; i++)
            out[n++] = KH_MOVE(KH_M_SQUARES, opts[i]);
        return n;
    }
    default:
        break;
    }
    /* hold'em swaps and the exchange come before any action */
    if (k->holdem && !k->exchanged && !k->acted)
        for (int g = 0; g < KH_FAMILIES; g++)
            for (int t = 0; t < KH_FAMILIES; t++)
                if (h[g] && t != g && k->display[t] && !(k->swapped >> t & 1))
                    out[n++] = KH_MOVE(KH_M_SWAP, g << 2 | t);
    if (!k->exchanged && !k->acted && k->ecus[p] >= KH_EXCHANGE_COST)
        n += kh_card_sets(h, KH_M_EXCHANGE, 1, 7, out + n);
    if (k->ecus[p] >= KH_TRAVEL_COST)
        for (int from = 0; from < KH_BOARDS; from++) {
            if (!kh_pawns_on(k, p, from))
                continue;
            int set = kh_leave_options(k, from);
            for (int to = 0; to < KH_BOARDS; to++) {
                if (to == from)
                    continue;
                if (__builtin_popcount((unsigned)set) > 1) {
                    for (int r = 0; r <= KH_CARDS_PER_PAWN; r++)
                        if (set >> r & 1)
                            out[n++] = KH_MOVE(KH_M_TRAVEL, from << 5 | to << 3 | r);
                } else {
                    out[n++] = KH_MOVE(KH_M_TRAVEL, from << 5 | to << 3 | KH_AUTO);
                }
            }
        }
    for (int b = KH_MIGHT; b <= KH_FAITH; b++)
        if (c->cap[b] > 0) {
            kh_group *g = lazy ? &lazy->group[lazy->ngroups] : (kh_group[3]){0};
            int ng = kh_build_groups(c, b, g);
            if (lazy) {
                lazy->ngroups += ng;
                continue;
            }
            unsigned types = 0;
            for (int i = 0; i < ng; i++) {
                kh_group_search(c, &g[i]);
                for (int f = 0; f < KH_FAMILIES; f++)
                    if (g[i].legal >> f & 1)
                        types |= 1u << KH_TYPE(f, g[i].size);
            }
            for (int t = 0; t < KH_TYPES; t++) /* listed by type */
                if (types >> t & 1)
                    out[n++] = KH_MOVE(KH_M_BUILD, b << 4 | t);
        }
    /* upgrades, then demolitions, board by board: one pass over each board's
     * buildings collects both (the demolitions wait in their own list) */
    tb_move demolish[2 * KH_MAXB];
    int nd = 0;
    bool may_demolish = k->ecus[p] >= KH_DEMOLISH_COST;
    for (int b = KH_MIGHT; b <= KH_FAITH; b++) {
        if (c->cap[b] <= 0)
            continue;
        const kh_board *bd = &k->board[b];
        /* by family and present size: the larger sizes in stock whose cards
         * (one per size gained) the hand and the adventurers can give (the
         * terrain mixes whose surcharge then fits: when a group is searched) */
        int budget = c->cap[b] < c->total ? c->cap[b] : c->total;
        unsigned sizes[KH_FAMILIES][3] = {{0}};
        for (int from = 1; from <= 2; from++) {
            for (int v = from + 1; v <= 3; v++) {
                int base = v - from;
                if (budget < base)
                    continue;
                for (int f = 0; f < KH_FAMILIES; f++)
                    if (h[f] >= base && k->stock[KH_TYPE(f, v)])
                        sizes[f][from] |= 1u << v;
            }
        }
        /* by type: which buildings may be demolished (a size-1 tile, the
         * cards and the Ecu; printed Hamlets never) or upgraded (military and
         * religious only by their owner); the buildings are sorted into the
         * two lists without a branch each, as the loop's tests are random */
        uint8_t demolish_ok[KH_TYPES], upgrade_ok[KH_TYPES], anyone[KH_TYPES];
        for (int t = 0; t < KH_TYPES; t++) {
            int f = KH_FAMILY(t), from = KH_SIZE(t);
            demolish_ok[t] = from == 1 && may_demolish && h[f];
            upgrade_ok[t] = from < 3 && sizes[f][from] != 0;
            anyone[t] = f == KH_CIVIL;
        }
        uint8_t cand[KH_MAXB];
        int nc = 0;
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            int t = x->type;
            demolish[nd] = (tb_move)(b << 8 | i); /* made a move below */
            nd += demolish_ok[t] & !(x->flags & KH_PRINTED);
            cand[nc] = (uint8_t)i;
            nc += upgrade_ok[t] & (anyone[t] | (x->owner == p));
        }
        for (int j = 0; j < nc; j++) {
            const kh_bld *x = &bd->b[cand[j]];
            int f = KH_FAMILY(x->type), from = KH_SIZE(x->type);
            kh_group one, *g = lazy ? &lazy->group[lazy->ngroups++] : &one;
            *g = (kh_group){.kind = KH_M_UPGRADE, .board = (uint8_t)b, .size = (uint8_t)from,
                            .index = cand[j], .family = (uint8_t)f, .maybe = (uint8_t)sizes[f][from]};
            if (lazy)
                continue;
            kh_group_search(c, g);
            for (int v = from + 1; v <= 3; v++)
                if (g->legal >> v & 1)
                    out[n++] = kh_group_move(c, g, v);
        }
    }
    for (int d = 0; d < nd; d++) {
        int b = (int)(demolish[d] >> 8);
        out[n++] = KH_MOVE(KH_M_DEMOLISH, b << 8 | kh_anchor(&k->board[b].b[demolish[d] & 0xff]));
    }
    if (c->cap[KH_REASON] > 0) {
        /* populating civil buildings with room (a civil card and a cube),
         * then renovating ruins (a card of their colour, and a cube when it
         * is the first of two renovations): one pass, two lists */
        const kh_board *bd = &k->board[KH_REASON];
        bool may_populate = h[KH_CIVIL] && k->cubes[p];
        uint8_t renovate_ok[KH_TYPES][2]; /* by type and whether a cube marker goes on */
        for (int t = 0; t < KH_TYPES; t++) {
            renovate_ok[t][0] = h[KH_FAMILY(t)] != 0;
            renovate_ok[t][1] = h[KH_FAMILY(t)] && k->cubes[p];
        }
        uint8_t renovate[KH_MAXB];
        int nr = 0, first_populate = n;
        for (int i = 0; i < bd->nb; i++) {
            const kh_bld *x = &bd->b[i];
            int t = x->type;
            out[n] = (tb_move)i; /* made moves below */
            n += may_populate & (KH_FAMILY(t) == KH_CIVIL) & (x->ncubes < KH_SIZE(t));
            bool marker = D.tile[t].renovation >= 2 && x->reno == KH_NOBODY;
            renovate[nr] = (uint8_t)i;
            nr += (x->flags & KH_RUIN) && renovate_ok[t][marker];
        }
        for (int j = first_populate; j < n; j++)
            out[j] = KH_MOVE(KH_M_POPULATE, kh_anchor(&bd->b[out[j]]));
        for (int j = 0; j < nr; j++)
            out[n++] = KH_MOVE(KH_M_RENOVATE, kh_anchor(&bd->b[renovate[j]]));
    }
    if (lazy) {
        lazy->endings = kh_card_sets_pick(h, KH_M_END, 0, 7, NULL, -1, NULL);
        return n;
    }
    n += kh_card_sets(h, KH_M_END, 0, 7, out + n);
    return n;
}

static int kh_legal(const tb_state *s, tb_move *out)
{
    const khronos_state *k = (const khronos_state *)s;
    kh_memo memo;
    kh_memo_init(&memo);
    kh_ctx ctx;
    kh_ctx_init(&ctx, k, &memo);
    return kh_legal_ctx(&ctx, out, NULL);
}

/* `count` independent uniformly random legal decisions (memo kept by the
 * caller).  The builds and upgrades are not searched for room unless a draw
 * lands on them: a draw is uniform over the decisions listed for sure, the
 * turn's endings and the groups' members the cards allow; a member found
 * illegal by its group's search is dropped from that draw's pool (with the
 * rest of the group found so) and the draw is made again.  Every legal
 * decision stays in the pool with the same chance as every other, so the
 * decision drawn is uniform over the legal ones, as from a full list, at
 * the cost of the searches drawn.  Each draw starts from the same pool, so
 * the draws are those of `count` calls with one decision each; the groups'
 * searches are shared. */
static void kh_random_moves_memo(const khronos_state *k, tb_rng *rng, kh_memo *memo, tb_move *out,
                                 int count)
{
    kh_ctx ctx;
    kh_ctx_init(&ctx, k, memo);
    if (!k->over && k->pend == KH_P_SQUARES && k->pend_target == KH_NONE) {
        /* the squares of a new building, drawn from sets, not a list: first
         * from the placements with room, dominion tested only on the one
         * drawn; when it fails, from the legal ones (uniform either way) */
        int b = k->pend_board, type = k->pend_type, v = KH_SIZE(type);
        unsigned covers_ok;
        const kh_board *bd = &k->board[b];
        kh_bits room[KH_MAXSHAPES], touching[KH_MAXSHAPES], legal[KH_MAXSHAPES];
        int n = kh_placement_cost(&ctx, b, type, -1, &covers_ok) < 0
                    ? 0
                    : kh_board_new_room(bd, type, covers_ok, room, touching);
        int nl = -1; /* legal not yet worked out */
        for (int d = 0; d < count; d++) {
            out[d] = 0;
            if (!n)
                continue;
            int place = kh_board_set_nth(KT, v, room, (int)tb__rng_below(rng, (uint32_t)n));
            const kh_place *pl = &KT->place[place];
            const kh_board_memo *m;
            if (!kh_bits_has(touching[pl->form - KT->form_first[v]], pl->sq[0]) ||
                (m = kh_ctx_domains(&ctx, b), kh_board_new_dominion(bd, type, place, m->st, m->sq))) {
                out[d] = KH_MOVE(KH_M_SQUARES, place);
                continue;
            }
            if (nl < 0)
                nl = kh_new_set(&ctx, b, type, legal);
            if (nl)
                out[d] = KH_MOVE(KH_M_SQUARES,
                                 kh_board_set_nth(KT, v, legal, (int)tb__rng_below(rng, (uint32_t)nl)));
        }
        return;
    }
    tb_move sure[TB_MAX_MOVES];
    kh_lazy lazy;
    int listed = kh_legal_ctx(&ctx, sure, &lazy), all = 0;
    for (int i = 0; i < lazy.ngroups; i++)
        all += __builtin_popcount(lazy.group[i].maybe);
    for (int d = 1; d <= count; d++) {
        tb_move m = 0;
        for (int maybe = all;;) {
            uint32_t pool = (uint32_t)(listed + lazy.endings + maybe);
            if (!pool)
                break;
            int r = (int)tb__rng_below(rng, pool);
            if (r < listed) {
                m = sure[r];
                break;
            }
            r -= listed;
            if (r < lazy.endings) {
                kh_card_sets_pick(k->hand[k->cur], KH_M_END, 0, 7, NULL, r, &m);
                break;
            }
            r -= lazy.endings;
            kh_group *g = lazy.group;
            unsigned members;
            while (members = g->dropped == d ? g->legal : g->maybe, r >= __builtin_popcount(members)) {
                r -= __builtin_popcount(members);
                g++;
            }
            for (; r > 0; r--)
                members &= members - 1;
            int bit = __builtin_ctz(members);
            kh_group_search(&ctx, g);
            if (g->legal >> bit & 1) {
                m = kh_group_move(&ctx, g, bit);
                break;
            }
            maybe -= __builtin_popcount(g->maybe) - __builtin_popcount(g->legal);
            g->dropped = d;
        }
        out[d - 1] = m;
    }
}

static tb_move kh_random_move(const tb_state *s, tb_rng *rng)
{
    kh_memo memo;
    kh_memo_init(&memo);
    tb_move m;
    kh_random_moves_memo((const khronos_state *)s, rng, &memo, &m, 1);
    return m;
}

static void kh_random_moves(const tb_state *s, tb_rng *rng, tb_move *out, int count)
{
    kh_memo memo;
    kh_memo_init(&memo);
    kh_random_moves_memo((const khronos_state *)s, rng, &memo, out, count);
}

/* ---- decisions a search need not consider ---- */

/* Whether adventurer d, standing on `from`, may leave it taking r cards
 * still to play (r = KH_AUTO: the only allowance any adventurer there may
 * take). */
static bool kh_may_leave_with(const khronos_state *k, int d, int from, int r)
{
    const uint8_t *pw = k->pawn[k->cur];
    if (pw[d] != from)
        return false;
    if (pw[1 - d] != from || r == KH_AUTO)
        return true;
    return kh_leave_allowances(k, d) >> r & 1;
}

/* Travelling an adventurer that has travelled since it last played a card
 * is dominated: going straight from where it was reaches the same position
 * for one Ecu less (or, when it returns, staying costs nothing).  Such
 * travels are legal (people may make them) but the search skips them;
 * otherwise a deep search, finding the opponent's answers later behind
 * every decision that keeps the turn, wanders its adventurers back and
 * forth (docs/ai.md).  Only travels are removed, so ending the turn stays. */
static int kh_undominated(const tb_state *s, tb_move *moves, int n)
{
    const khronos_state *k = (const khronos_state *)s;
    if (!k->travelled[0] && !k->travelled[1])
        return n;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        tb_move m = moves[i];
        bool futile = false;
        if (KH_KIND(m) == KH_M_TRAVEL) {
            int from = (int)(m >> 5) & 3, r = (int)m & 7;
            for (int d = 0; d < 2 && !futile; d++)
                futile = k->travelled[d] && kh_may_leave_with(k, d, from, r);
        }
        if (!futile)
            moves[kept++] = m;
    }
    return kept ? kept : n;
}

/* ---- applying decisions ---- */

/* Builds or upgrades with everything decided: the cards (the building's
 * colour plus the `extra` surcharge cards) are paid, the tile laid, and the
 * rest of the action (resolution, ripples) runs. */
static void kh_execute(khronos_state *k, int place, tb_move extra)
{
    int b = k->pend_board, type = k->pend_type, f = KH_FAMILY(type), v = KH_SIZE(type);
    kh_board *bd = &k->board[b];
    int target = k->pend_target == KH_NONE ? -1 : kh_board_find(bd, k->pend_target);
    int base = v - (target >= 0 ? KH_SIZE(bd->b[target].type) : 0);
    int s = kh_surcharge(k, &KT->place[place]);
    kh_pay_cards(k, f, base, extra);
    kh_spend(k, b, base + s);
    kh_touch(k, b);
    int owner = f == KH_CIVIL ? KH_NOBODY : k->cur;
    uint8_t orig = KH_NONE, opower = 0;
    if (target >= 0) {
        const kh_bld *x = &bd->b[target];
        if (!(x->flags & KH_PRINTED))
            k->stock[x->type]++;
        orig = x->orig;
        opower = x->opower;
        kh_board_remove(bd, target);
        k->ecus[k->cur] = (int16_t)(k->ecus[k->cur] + BONUS(b));
        k->bonuses[k->cur] = (int16_t)(k->bonuses[k->cur] + BONUS(b));
    } else {
        if (owner != KH_NOBODY)
            k->cubes[owner]--;
        if (v >= 2) {
            k->ecus[k->cur] = (int16_t)(k->ecus[k->cur] + BONUS(b));
            k->bonuses[k->cur] = (int16_t)(k->bonuses[k->cur] + BONUS(b));
        }
    }
    kh_bld *y = &bd->b[kh_board_add(bd, place, type, owner, 0)];
    y->orig = orig;
    y->opower = opower;
    k->stock[type]--;
    if (v >= 2) {
        k->rip.active = 1;
        k->rip.board = (uint8_t)(b + 1);
        k->rip.type = (uint8_t)type;
        k->rip.owner = (uint8_t)owner;
        k->rip.place = (uint16_t)place;
    }
    kh_clear_pend(k);
    kh_run(k);
}

/* The squares of the pending building are chosen: pay the surcharge at once
 * when the choice of its cards cannot matter, else ask. */
static void kh_squares_chosen(khronos_state *k, int place)
{
    int type = k->pend_type, f = KH_FAMILY(type);
    const kh_board *bd = &k->board[k->pend_board];
    int base = KH_SIZE(type);
    if (k->pend_target != KH_NONE)
        base -= KH_SIZE(bd->b[kh_board_find(bd, k->pend_target)].type);
    int s = kh_surcharge(k, &KT->place[place]);
    uint8_t rest[KH_FAMILIES];
    memcpy(rest, k->hand[k->cur], sizeof rest);
    rest[f] = (uint8_t)(rest[f] - base);
    if (s > 0 && kh_subsets_of_size(rest, s) > 1) {
        k->pend = KH_P_PAY;
        k->pend_place = (uint16_t)place;
        k->pend_extra = (uint8_t)s;
        return;
    }
    tb_move extra = 0;
    for (int g = 0, left = s; g < KH_FAMILIES && left; g++) {
        int x = rest[g] < left ? rest[g] : left;
        extra |= (tb_move)x << (3 * g);
        left -= x;
    }
    kh_execute(k, place, extra);
}

static void kh_apply(tb_state *s, tb_move m)
{
    khronos_state *k = (khronos_state *)s;
    int p = k->cur, kind = KH_KIND(m);
    tb_move pay = m & 0xffffff;
    switch (kind) {
    case KH_M_SWAP: {
        int g = (int)(pay >> 2) & 3, t = (int)pay & 3;
        k->hand[p][g]--;
        k->discard[g]++;
        k->hand[p][t]++;
        k->display[t] = 0;
        k->swapped |= (uint8_t)(1 << t);
        kh_refill_display(k);
        break;
    }
    case KH_M_EXCHANGE: {
        k->ecus[p] = (int16_t)(k->ecus[p] - KH_EXCHANGE_COST);
        k->spent[p] = (int16_t)(k->spent[p] + KH_EXCHANGE_COST);
        for (int f = 0; f < KH_FAMILIES; f++) {
            int x = (int)(pay >> (3 * f)) & 7;
            k->hand[p][f] = (uint8_t)(k->hand[p][f] - x);
            k->discard[f] = (uint8_t)(k->discard[f] + x);
        }
        kh_draw(k, p, D.hand);
        k->exchanged = 1;
        break;
    }
    case KH_M_TRAVEL:
        kh_travel(k, (int)(pay >> 5) & 3, (int)(pay >> 3) & 3, (int)pay & 7);
        k->acted = 1;
        break;
    case KH_M_BUILD:
    case KH_M_UPGRADE:
        k->pend = KH_P_SQUARES;
        if (kind == KH_M_BUILD) {
            k->pend_board = (uint8_t)(pay >> 4);
            k->pend_type = (uint8_t)(pay & 15);
            k->pend_target = KH_NONE;
        } else {
            k->pend_board = (uint8_t)(pay >> 12);
            k->pend_type = (uint8_t)(pay & 15);
            k->pend_target = (uint8_t)((pay >> 4) & 0xff);
        }
        k->acted = 1;
        break;
    case KH_M_SQUARES:
        if (k->pend == KH_P_KEEP) {
            int b = k->pend_board;
            int i = kh_board_find(&k->board[b], k->pend_target);
            kh_clear_pend(k);
            kh_downsize(k, b, i, (int)pay);
            kh_run(k);
        } else {
            kh_squares_chosen(k, (int)pay);
        }
        break;
    case KH_M_PAY:
        kh_execute(k, k->pend_place, pay);
        break;
    case KH_M_DOWNSIZE: {
        int b = (int)(pay >> 8);
        kh_clear_pend(k);
        kh_downsize_start(k, b, kh_board_find(&k->board[b], (int)pay & 0xff));
        kh_run(k);
        break;
    }
    case KH_M_DEMOLISH: {
        int b = (int)(pay >> 8);
        kh_board *bd = &k->board[b];
        int i = kh_board_find(bd, (int)pay & 0xff);
        kh_bld x = bd->b[i];
        k->ecus[p] = (int16_t)(k->ecus[p] - KH_DEMOLISH_COST);
        k->spent[p] = (int16_t)(k->spent[p] + KH_DEMOLISH_COST);
        kh_pay_cards(k, KH_FAMILY(x.type), 1, 0);
        kh_spend(k, b, 1);
        kh_touch(k, b);
        kh_board_remove(bd, i);
        kh_return_cubes(k, &x, true);
        k->stock[x.type]++;
        k->acted = 1;
        kh_run(k);
        break;
    }
    case KH_M_POPULATE: {
        kh_board *bd = &k->board[KH_REASON];
        kh_bld *x = &bd->b[kh_board_find(bd, (int)pay)];
        kh_pay_cards(k, KH_CIVIL, 1, 0);
        kh_spend(k, KH_REASON, 1);
        k->cubes[p]--;
        kh_add_cube(x, p);
        k->acted = 1;
        break;
    }
    case KH_M_RENOVATE: {
        kh_board *bd = &k->board[KH_REASON];
        int i = kh_board_find(bd, (int)pay);
        kh_bld *x = &bd->b[i];
        kh_pay_cards(k, KH_FAMILY(x->type), 1, 0);
        kh_spend(k, KH_REASON, 1);
        if (D.tile[x->type].renovation >= 2 && x->reno == KH_NOBODY) {
            x->reno = (uint8_t)p;
            k->cubes[p]--;
        } else {
            if (x->reno != KH_NOBODY)
                k->cubes[x->reno]++;
            x->reno = KH_NOBODY;
            x->flags &= (uint8_t)~KH_RUIN;
        }
        k->acted = 1;
        break;
    }
    case KH_M_END:
        kh_end_turn(k, pay);
        break;
    default:
        break;
    }
}

/* Random decisions to the end (or `limit`), drawn exactly as repeated
 * tb_random_move + tb_apply draw them (kh_random_moves_memo), with the boards' memo
 * kept from one decision to the next and no call through the game table. */
static int kh_playout(tb_state *s, tb_rng *rng, int limit)
{
    const khronos_state *k = (const khronos_state *)s;
    kh_memo memo; /* kept from one decision to the next */
    kh_memo_init(&memo);
    int played = 0;
    while ((limit <= 0 || played < limit) && !k->over) {
        tb_move m;
        kh_random_moves_memo(k, rng, &memo, &m, 1);
        kh_apply(s, m);
        played++;
    }
    return played;
}

static void kh_scores(const tb_state *s, int *out)
{
    const khronos_state *k = (const khronos_state *)s;
    for (int p = 0; p < s->players; p++)
        out[p] = k->ecus[p];
}

/* tb_score_breakdown: the starting Ecus, the earnings of turns 4 and 7 age
 * by age, the construction bonuses and what travel, exchanges and
 * demolitions cost, all from the state's ledger.  -1 when the ledger does
 * not account for the Ecus (a state written before it was kept). */
static int kh_score_breakdown(const tb_state *s, int seat, tb_score_part *out)
{
    /* N_: the sources are catalogue msgids (the result pages translate them) */
    static const char *const earnings[2][KH_BOARDS] = {
        {N_("Turn 4 earnings, Age of Might"), N_("Turn 4 earnings, Age of Faith"),
         N_("Turn 4 earnings, Age of Reason")},
        {N_("Turn 7 earnings, Age of Might"), N_("Turn 7 earnings, Age of Faith"),
         N_("Turn 7 earnings, Age of Reason")}};
    _Static_assert(KH_TURNS == 7, "the earnings' words name turns 4 and 7");
    const khronos_state *k = (const khronos_state *)s;
    int n = 0, rest = k->ecus[seat];
    snprintf(out[n].source, sizeof out[n].source, "%s", N_("Starting Ecus"));
    out[n++].points = D.ecus;
    rest -= D.ecus;
    for (int i = 0; i < 2; i++)
        for (int b = 0; b < KH_BOARDS; b++) {
            int e = k->earned[seat][i][b];
            if (!e)
                continue;
            snprintf(out[n].source, sizeof out[n].source, "%s", earnings[i][b]);
            out[n++].points = e;
            rest -= e;
        }
    if (k->bonuses[seat]) {
        snprintf(out[n].source, sizeof out[n].source, "%s", N_("Construction bonuses"));
        out[n++].points = k->bonuses[seat];
        rest -= k->bonuses[seat];
    }
    if (k->spent[seat]) {
        snprintf(out[n].source, sizeof out[n].source, "%s", N_("Travel, exchanges and demolitions"));
        out[n++].points = -k->spent[seat];
        rest += k->spent[seat];
    }
    return rest == 0 ? n : -1;
}

/* tb_reveals, exactly: the secrets are the hands' families, the deck and
 * the generator (kh_resample re-deals nothing else).  A card taken from
 * the deck (to a hand or the display) or a reshuffle shows every seat
 * something; a card leaving a hand shows its family to the others.  What
 * the rules' flow implies of a hand (a surcharge leaving a choice of
 * cards) is not counted: nothing is shown (docs/api.md). */
static unsigned kh_reveals(const tb_state *before, tb_move m, const tb_state *after)
{
    (void)m;
    const khronos_state *b = (const khronos_state *)before, *a = (const khronos_state *)after;
    unsigned all = (1u << before->players) - 1u, seats = 0;
    if (a->deck_n != b->deck_n || memcmp(a->deck, b->deck, sizeof a->deck) != 0)
        return all;
    for (int p = 0; p < before->players; p++)
        for (int f = 0; f < KH_FAMILIES; f++)
            if (a->hand[p][f] < b->hand[p][f])
                seats |= all & ~(1u << p);
    return seats;
}

/* tb_settles_chance: the deck is dealt in order at setup, so a card taken
 * from it (to a hand or the display) settles chance; a reshuffle also moves
 * the generator, which the core sees for itself. */
static bool kh_settles_chance(const tb_state *before, tb_move m, const tb_state *after)
{
    (void)m;
    const khronos_state *b = (const khronos_state *)before, *a = (const khronos_state *)after;
    return a->deck_n != b->deck_n || memcmp(a->deck, b->deck, sizeof a->deck) != 0;
}

/* Re-deals every card `seat` cannot see: the unseen cards, in a canonical
 * order, shuffled with rng, go to the other hands (same sizes) and the deck.
 * The state's own generator (future reshuffles) is re-seeded from rng too,
 * so the result depends only on the seat's view and rng. */
static void kh_resample(tb_state *s, int seat, tb_rng *rng)
{
    khronos_state *k = (khronos_state *)s;
    uint8_t pool[KH_MAXCARDS];
    int n = 0;
    for (int f = 0; f < KH_FAMILIES; f++) {
        int unseen = D.cards[f] - k->discard[f] - k->display[f] - (seat >= 0 ? k->hand[seat][f] : 0);
        for (int i = 0; i < unseen; i++)
            pool[n++] = (uint8_t)f;
    }
    tb__shuffle(pool, (size_t)n, 1, rng);
    int at = 0;
    for (int p = 0; p < s->players; p++) {
        if (p == seat)
            continue;
        int size = kh_total(k->hand[p]);
        memset(k->hand[p], 0, sizeof k->hand[p]);
        for (int i = 0; i < size; i++)
            k->hand[p][pool[at++]]++;
    }
    memset(k->deck, 0, sizeof k->deck);
    for (int i = 0; at < n; i++)
        k->deck[i] = pool[at++];
    s->rng = tb_rng_split(rng);
}

/* Ecus now plus the earnings still to come for a seat, as things stand;
 * e[] is that seat's earnings now on each board. */
static double kh_estimate(const khronos_state *k, int p, const int e[KH_BOARDS])
{
    double per = 0;
    for (int b = 0; b < KH_BOARDS; b++)
        per += e[b] * (kh_pawns_on(k, p, b) ? 1.0 : 0.4);
    int n = k->base.players;
    int pos = (p - k->first + n) % n, now = (k->cur - k->first + n) % n;
    int events = 0;
    for (int t = 4; t <= KH_TURNS; t += KH_TURNS - 4)
        events += t > k->turn || (t == k->turn && pos >= now);
    double v = k->ecus[p] + 0.8 * events * per;
    if (p == k->cur && (k->pend == KH_P_SQUARES || k->pend == KH_P_PAY) &&
        (k->pend_target != KH_NONE || KH_SIZE(k->pend_type) >= 2))
        v += BONUS(k->pend_board);
    return v + 0.1 * kh_total(k->hand[p]);
}

/* Every seat's estimate (kh_estimate), from one pass over the boards. */
static void kh_estimates(const khronos_state *k, double est[TB_MAX_SEATS])
{
    int e[TB_MAX_SEATS][KH_BOARDS];
    kh_earnings_all(k, e);
    for (int p = 0; p < k->base.players; p++)
        est[p] = kh_estimate(k, p, e[p]);
}

/* A seat's worth in (0, 1): its estimate's lead over the best other seat's. */
static double kh_lead_value(const double est[TB_MAX_SEATS], int players, int seat)
{
    double best = -1e9;
    for (int p = 0; p < players; p++)
        if (p != seat)
            best = est[p] > best ? est[p] : best;
    double lead = est[seat] - best;
    return 0.5 + 0.5 * lead / (8.0 + (lead < 0 ? -lead : lead));
}

static double kh_heuristic(const tb_state *s, int seat)
{
    double est[TB_MAX_SEATS];
    kh_estimates((const khronos_state *)s, est);
    return kh_lead_value(est, s->players, seat);
}

/* The same for every seat, the estimates worked out once (the search asks
 * for all at the end of every iteration). */
static void kh_heuristic_all(const tb_state *s, double out[TB_MAX_SEATS])
{
    double est[TB_MAX_SEATS];
    kh_estimates((const khronos_state *)s, est);
    for (int p = 0; p < s->players; p++)
        out[p] = kh_lead_value(est, s->players, p);
}

const struct tb_game tb__khronos_game = {
    .name = "khronos",
    .title = "Khronos",
    .min_players = 2,
    .max_players = 5,
    .default_players = 4,
    .state_size = sizeof(khronos_state),
    .options = kh_options,
    /* Player-facing: the invented board is described in docs/rules-khronos.md. */
    .notice = N_("This Khronos board was drawn for Tabula: the published board's layout is not known "
              "yet."),
    .data_builtin = &khronos__builtin,
    .data_read = kh_data_read,
    .data_free = kh_data_free,
    .setup = kh_setup,
    .to_move = khronos__to_move,
    .legal = kh_legal,
    .undominated = kh_undominated,
    .apply = kh_apply,
    .random_move = kh_random_move,
    .random_moves = kh_random_moves,
    .playout = kh_playout,
    .scores = kh_scores,
    .score_breakdown = kh_score_breakdown,
    .move_to_text = khronos__move_to_text,
    .text_to_move = khronos__text_to_move,
    .view_json = khronos__view_json,
    .state_json = khronos__state_json,
    .state_from_json = khronos__state_from_json,
    .resample = kh_resample,
    .heuristic = kh_heuristic,
    .heuristic_all = kh_heuristic_all,
    .data_board_json = khronos__data_board_json,
    .render_text = khronos__render_text,
    .prompt_text = khronos__prompt_text,
    .narrate = khronos__narrate,
    .prompt_msg = khronos__prompt_msg,
    .stage_msg = khronos__stage_msg,
    .stage_text = khronos__stage_text,
    .reveals = kh_reveals,
    .settles_chance = kh_settles_chance,
    .num_actions = khronos__num_actions,
    .move_to_action = khronos__move_to_action,
    .action_to_move = khronos__action_to_move,
    .observation_size = khronos__observation_size,
    .observation = khronos__observation,
};
