/* hx_check.c: element-for-element checks, the same-values check, the guard
 * scan and the three-way boundary check. Contracts are in hx_check.h; the
 * split's printed report is in hx_check_print.c, the other source of
 * hx_check.o. Host code only: nothing here calls CUDA. */
#include "hx_check.h"
#include "hx_check_parts.h"
#include "hx_cuda.h"
#include "hx_input.h"
#include "hx_ref.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void *hx_check_alloc(size_t count, size_t size, const char *what)
{
    void *p = malloc(count ? count * size : 1);
    if (!p) {
        fprintf(stderr, "%s: out of host memory (%zu bytes)\n", what,
                count * size);
        exit(HX_EXIT_NOMEM);
    }
    return p;
}

static int hx_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts a[0..n) ascending: an LSD radix sort, four passes of 8 bits over
 * the value with its sign bit flipped (so negatives come first). The
 * same-values checks sort outputs of 2^28 ints; qsort takes minutes there,
 * this takes seconds. tmp holds n ints. */
static void hx_sort_ints(int *a, int *tmp, size_t n)
{
    size_t count[256], i;
    unsigned shift;
    int *src = a, *dst = tmp, *swap;
    for (shift = 0; shift < 32; shift += 8) {
        size_t sum = 0;
        memset(count, 0, sizeof count);
        for (i = 0; i < n; ++i)
            ++count[(((unsigned)src[i] ^ 0x80000000u) >> shift) & 0xFFu];
        for (i = 0; i < 256; ++i) {
            size_t c = count[i];
            count[i] = sum;
            sum += c;
        }
        for (i = 0; i < n; ++i)
            dst[count[(((unsigned)src[i] ^ 0x80000000u) >> shift) & 0xFFu]++] =
                src[i];
        swap = src;
        src = dst;
        dst = swap;
    }
    /* Four passes: the sorted data is back in a. */
}

/* Sorts a copy of a[0..n) into a fresh array the caller frees. */
static int *hx_sorted_copy(const int *a, size_t n, const char *who)
{
    int *x = hx_check_alloc(n, sizeof *x, who);
    int *tmp = hx_check_alloc(n, sizeof *tmp, who);
    if (n)
        memcpy(x, a, n * sizeof *x);
    hx_sort_ints(x, tmp, n);
    free(tmp);
    return x;
}

const char *hx_plural(size_t k, const char *one, const char *many)
{
    return k == 1 ? one : many;
}

/* ---- guard regions ---------------------------------------------------- */

size_t hx_guard_scan(const int *whole, size_t n, size_t guard,
                     hx_guard_report *g)
{
    size_t k;
    memset(g, 0, sizeof *g);
    /* Left guard: walk outwards from the output so the first change seen
     * is the one nearest out[0]. */
    for (k = guard; k-- > 0;)
        if (whole[k] != HX_GUARD_WORD) {
            if (g->before++ == 0) {
                g->first_before = (long long)k - (long long)guard;
                g->value_before = whole[k];
            }
        }
    for (k = 0; k < guard; ++k)
        if (whole[guard + n + k] != HX_GUARD_WORD) {
            if (g->after++ == 0) {
                g->first_after = (long long)(n + k);
                g->value_after = whole[guard + n + k];
            }
        }
    return g->before + g->after;
}

void hx_guard_print(const char *what, size_t n, const hx_guard_report *g,
                    FILE *out)
{
    if (g->before)
        fprintf(out, "  %s: wrote outside the output: %zu %s before the "
                "start, first at offset %lld (index %lld), value %d\n",
                what, g->before, hx_plural(g->before, "word", "words"),
                g->first_before, g->first_before, g->value_before);
    if (g->after)
        fprintf(out, "  %s: wrote outside the output: %zu %s after the "
                "end, first at offset n+%lld (index %lld), value %d\n",
                what, g->after, hx_plural(g->after, "word", "words"),
                g->first_after - (long long)n, g->first_after,
                g->value_after);
}

/* ---- element for element ---------------------------------------------- */

int hx_check_equal(const char *what, const int *got, const int *want,
                   size_t n, hx_cmp *r, FILE *out)
{
    hx_cmp local;
    size_t i;
    if (!r)
        r = &local;
    memset(r, 0, sizeof *r);
    for (i = 0; i < n; ++i) {
        if (got[i] == want[i])
            continue;
        if (r->bad++ == 0) {
            r->first = i;
            r->got = got[i];
            r->want = want[i];
        }
        if (got[i] == HX_POISON && r->unwritten++ == 0)
            r->first_unwritten = i;
    }
    if (r->bad && out)
        fprintf(out, "%s: FAIL at n=%zu: first bad index %zu: got %d, want "
                "%d; %zu of %zu slots differ (%zu never written)\n", what, n,
                r->first, r->got, r->want, r->bad, n, r->unwritten);
    return r->bad != 0;
}

/* ---- same values ------------------------------------------------------ */

int hx_check_same_values(const char *what, const int *got, const int *want,
                         size_t n, hx_same *r, FILE *out)
{
    hx_same local;
    int *g, *w, *short_vals;
    size_t i, j, nshort = 0;
    if (!r)
        r = &local;
    memset(r, 0, sizeof *r);
    for (i = 0; i < n; ++i) {
        r->unwritten += got[i] == HX_POISON;
        r->out_of_order += got[i] != want[i];
    }
    g = hx_sorted_copy(got, n, "hx_check_same_values");
    w = hx_sorted_copy(want, n, "hx_check_same_values");
    short_vals = hx_check_alloc(n, sizeof *short_vals,
                                "hx_check_same_values");
    /* Merge the sorted copies; short_vals collects (once each, ascending)
     * the values got holds fewer copies of than want. */
    i = j = 0;
    while (i < n || j < n) {
        if (j == n || (i < n && g[i] < w[j])) {
            ++r->extra;
            ++i;
        } else if (i == n || w[j] < g[i]) {
            ++r->missing;
            if (nshort == 0 || short_vals[nshort - 1] != w[j])
                short_vals[nshort++] = w[j];
            ++j;
        } else {
            ++i;
            ++j;
        }
    }
    /* The first index of want, in stable order, whose value is short. */
    for (i = 0; nshort && i < n; ++i)
        if (bsearch(&want[i], short_vals, nshort, sizeof *short_vals,
                    hx_cmp_int)) {
            r->first_missing_index = i;
            r->first_missing_value = want[i];
            break;
        }
    free(g);
    free(w);
    free(short_vals);

    if ((r->missing || r->extra) && out) {
        fprintf(out, "%s: FAIL at n=%zu: %zu %s of the reference missing",
                what, n, r->missing, hx_plural(r->missing, "value", "values"));
        if (r->missing)
            fprintf(out, " (first: %d, reference index %zu)",
                    r->first_missing_value, r->first_missing_index);
        fprintf(out, ", %zu extra; %zu never written; %zu slots differ from "
                "the stable order\n", r->extra, r->unwritten,
                r->out_of_order);
    }
    return r->missing || r->extra;
}

/* ---- the three-way split ---------------------------------------------- */

const char *const hx_group_names[3] = {"negatives", "zeros",
                                              "positives"};
const char *const hx_one_names[3] = {"negative", "zero", "positive"};

/* 0 negative, 1 zero, 2 positive; -1 for poison, which is no kind. */
int hx_kind(int v)
{
    if (v == HX_POISON)
        return -1;
    return v < 0 ? 0 : v == 0 ? 1 : 2;
}

const char *hx_split_kind_name(hx_split_kind k)
{
    switch (k) {
    case HX_SPLIT_PASS: return "pass";
    case HX_SPLIT_OUT_OF_BOUNDS: return "out_of_bounds";
    case HX_SPLIT_UNWRITTEN: return "unwritten";
    case HX_SPLIT_SWAPPED: return "swapped";
    case HX_SPLIT_GROUP_MISSING: return "group_missing";
    case HX_SPLIT_BOUNDARY: return "boundary";
    case HX_SPLIT_ORDER: return "order";
    case HX_SPLIT_MISMATCH: return "mismatch";
    default: return "unknown";
    }
}

/* Where a group of kind k starts, by alignment (hx_check.h): vals[0..c)
 * are the input's group in input order. */
static size_t hx_find_base(const int *got, size_t n, int k, const int *vals,
                           size_t c)
{
    size_t p = 0, lo, hi, b, best = 0, best_score = 0, best_dist = 0;
    int have = 0;
    while (p < n && hx_kind(got[p]) != k)
        ++p;
    lo = p >= 2 ? p - 2 : 0;
    hi = p + 2 <= n ? p + 2 : n;
    for (b = lo; b <= hi; ++b) {
        size_t r, score = 0, dist = b > p ? b - p : p - b;
        for (r = 0; r < c && b + r < n; ++r)
            score += got[b + r] == vals[r];
        /* Bases are visited in increasing order, so a strict improvement
         * in distance on a tie keeps the smaller base among equals. */
        if (!have || score > best_score ||
            (score == best_score && dist < best_dist)) {
            best = b;
            best_score = score;
            best_dist = dist;
            have = 1;
        }
    }
    /* Only an alignment of most of the group is evidence of a shifted
     * base; a few chance matches in a scrambled group (an atomic counter
     * inside the group, say) must not turn an order error into a
     * boundary error. */
    if (best != p && 2 * best_score <= c)
        best = p;
    return best;
}

/* Same multiset: sorts both ranges (copies). */
static int hx_same_multiset(const int *a, const int *b, size_t n)
{
    int *x, *y, same;
    if (n == 0)
        return 1;
    x = hx_sorted_copy(a, n, "hx_check_split3");
    y = hx_sorted_copy(b, n, "hx_check_split3");
    same = memcmp(x, y, n * sizeof *x) == 0;
    free(x);
    free(y);
    return same;
}

/* What a reading is tried against: the reference, the output, where each
 * group starts and how many it holds (signed, so that shifted slots can
 * fall at -1 or n), and the guards (NULL: writes outside are unseen). */
typedef struct {
    const int *want, *got;
    long long n, start[3], size[3];
    const hx_guard_report *g;
} hx_split_ctx;

/* 1 when got[s] is what a kernel that moves group k by d[k] slots can
 * leave in slot s: one of the values written there (any writer may win
 * the race), or poison when nothing is written there. */
static int hx_slot_fits(const hx_split_ctx *c, const int d[3], long long s)
{
    int k, written = 0;
    for (k = 0; k < 3; ++k) {
        const long long src = s - d[k];
        if (src >= c->start[k] && src < c->start[k] + c->size[k]) {
            written = 1;
            if (c->got[s] == c->want[src])
                return 1;
        }
    }
    return !written && c->got[s] == HX_POISON;
}

/* 1 when the guards show exactly the writes outside the output that the
 * shifts make: the first element of a group moved to offset -1, the last
 * of one moved to offset n, nothing else. */
static int hx_guards_fit(const hx_split_ctx *c, const int d[3])
{
    int k, before = 0, after = 0, before_ok = 0, after_ok = 0;
    const hx_guard_report *g = c->g;
    if (!g)
        return 1;
    for (k = 0; k < 3; ++k) {
        if (c->size[k] == 0)
            continue;
        if (c->start[k] + d[k] < 0) {
            before = 1;
            before_ok |= g->first_before == -1 &&
                         g->value_before == c->want[c->start[k]];
        }
        if (c->start[k] + c->size[k] + d[k] > c->n) {
            after = 1;
            after_ok |= g->first_after == c->n &&
                        g->value_after == c->want[c->n - 1];
        }
    }
    return (before ? g->before == 1 && before_ok : g->before == 0) &&
           (after ? g->after == 1 && after_ok : g->after == 0);
}

/* 1 when shifting the groups by d reproduces the output exactly. The
 * slots around each group's ends are tried first: a wrong reading nearly
 * always fails there, so the whole output is read for few readings. */
static int hx_reading_fits(const hx_split_ctx *c, const int d[3])
{
    long long s;
    int k, e;
    if (!hx_guards_fit(c, d))
        return 0;
    for (k = 0; k < 3; ++k)
        for (e = 0; e < 2; ++e) {
            const long long edge = c->start[k] + (e ? c->size[k] : 0);
            for (s = edge - 2; s <= edge + 1; ++s)
                if (s >= 0 && s < c->n && !hx_slot_fits(c, d, s))
                    return 0;
        }
    for (s = 0; s < c->n; ++s)
        if (!hx_slot_fits(c, d, s))
            return 0;
    return 1;
}

/* Tries every combination of shifts, the fewest shifted groups first, and
 * records those that fit in r (shifting an empty group changes nothing,
 * so those combinations are skipped). */
static void hx_find_readings(const hx_split_ctx *c, hx_split_report *r)
{
    int want_shifts, code;
    for (want_shifts = 1; want_shifts <= 3; ++want_shifts)
        for (code = 0; code < 27; ++code) {
            int d[3], k, shifts = 0, empty_moved = 0;
            d[0] = code % 3 - 1;
            d[1] = code / 3 % 3 - 1;
            d[2] = code / 9 - 1;
            for (k = 0; k < 3; ++k) {
                shifts += d[k] != 0;
                empty_moved |= d[k] != 0 && c->size[k] == 0;
            }
            if (shifts != want_shifts || empty_moved || !hx_reading_fits(c, d))
                continue;
            if (r->readings < HX_SPLIT_READINGS)
                memcpy(r->shift[r->readings], d, sizeof d);
            ++r->readings;
        }
}

/* Fills *m for group k moved by d (-1 or +1) in the output. */
static void hx_note_move(const hx_split_ctx *c, int k, int d,
                         hx_split_move *m)
{
    const long long first = c->start[k], end = c->start[k] + c->size[k];
    memset(m, 0, sizeof *m);
    m->left = d < 0 ? end - 1 : first;
    m->left_unwritten = c->got[m->left] == HX_POISON;
    m->taken = d < 0 ? first - 1 : end;
    m->moved = c->want[d < 0 ? first : end - 1];
    if (m->taken >= 0 && m->taken < c->n) {
        m->owner = c->want[m->taken];
        m->held = c->got[m->taken];
    }
}

/* The first kept reading after the first that shifts group k
 * differently from it, or 0 when none does. */
size_t hx_reading_moves(const hx_split_report *r, int k)
{
    size_t i;
    for (i = 1; i < r->readings && i < HX_SPLIT_READINGS; ++i)
        if (r->shift[i][k] != r->shift[0][k])
            return i;
    return 0;
}

static size_t hx_clamp_start(long long s, size_t n)
{
    return s < 0 ? 0 : (size_t)s > n ? n : (size_t)s;
}

hx_split_kind hx_check_split3(const int *in, const int *got, size_t n,
                              const hx_guard_report *g, hx_split_report *r)
{
    int *want;
    size_t i, k, a, ab, first_zero = n, present[3] = {0, 0, 0};
    size_t poison = 0, runs = 0, sizes[3];
    int run_kind[3 * 2 + 1], last = -1, sorted = 1, outside;
    size_t nrun_kinds = 0;
    hx_split_ctx ctx;

    memset(r, 0, sizeof *r);
    r->n = n;
    if (g)
        r->guard = *g;
    outside = g && (g->before || g->after);
    for (i = 0; i < n; ++i) {
        r->negatives += in[i] < 0;
        r->zeros += in[i] == 0;
    }
    r->positives = n - r->negatives - r->zeros;
    r->want_b1 = a = r->negatives;
    r->want_b2 = ab = r->negatives + r->zeros;
    sizes[0] = a;
    sizes[1] = ab - a;
    sizes[2] = n - ab;
    r->want_start[0] = 0;
    r->want_start[1] = (long long)a;
    r->want_start[2] = (long long)ab;

    want = hx_check_alloc(n, sizeof *want, "hx_check_split3");
    hx_split3(in, want, n, NULL, NULL);
    hx_check_equal("split3", got, want, n, &r->cmp, NULL);

    /* The runs of kinds in got, poison skipped. run_kind keeps the first
     * few runs' kinds, enough to name a swap (a sorted-by-run output has
     * at most three runs). */
    for (i = 0; i < n; ++i) {
        int kd = hx_kind(got[i]);
        if (kd < 0) {
            ++poison;
            for (k = 0; k < 3; ++k)
                r->unwritten_in[k] +=
                    i >= (size_t)r->want_start[k] &&
                    i - (size_t)r->want_start[k] < sizes[k];
            continue;
        }
        ++present[kd];
        if (kd == 1 && first_zero == n)
            first_zero = i;
        if (kd != last) {
            if (last >= 0 && kd < last)
                sorted = 0;
            if (nrun_kinds < sizeof run_kind / sizeof run_kind[0])
                run_kind[nrun_kinds++] = kd;
            ++runs;
            last = kd;
        }
    }
    r->nothing_written = n > 0 && poison == n;

    /* Readings: only for a wrong output, and not when nothing was written
     * and the guards are clean (with no guards, any reading that writes
     * only outside would "fit" an output nobody wrote). */
    ctx.want = want;
    ctx.got = got;
    ctx.n = (long long)n;
    ctx.g = g;
    for (k = 0; k < 3; ++k) {
        ctx.start[k] = r->want_start[k];
        ctx.size[k] = (long long)sizes[k];
    }
    if (r->cmp.bad && !(r->nothing_written && !outside))
        hx_find_readings(&ctx, r);
    /* The right split with slots never written writes nothing outside. */
    r->also_unwritten = r->readings && !outside &&
                        r->cmp.bad == r->cmp.unwritten;
    for (i = 0; i < r->readings && i < HX_SPLIT_READINGS; ++i)
        for (k = 0; k < 3; ++k)
            if (r->shift[i][k])
                hx_note_move(&ctx, (int)k, r->shift[i][k], &r->move[i][k]);

    /* Where the groups start. */
    if (r->readings) {
        for (k = 0; k < 3; ++k) {
            r->found_start[k] = r->want_start[k] + r->shift[0][k];
            r->start[k] = r->shift[0][k] ? HX_START_WRONG : HX_START_OK;
            if (hx_reading_moves(r, (int)k) && !r->shift[0][k])
                r->start[k] = HX_START_UNSURE;
        }
    } else if (r->nothing_written) {
        for (k = 0; k < 3; ++k) {
            r->found_start[k] = (long long)n;
            r->start[k] = HX_START_UNKNOWN;
        }
    } else {
        size_t b2 = sizes[2] ? hx_find_base(got, n, 2, want + ab, sizes[2])
                             : ab;
        r->found_start[0] = a ? (long long)hx_find_base(got, n, 0, want, a)
                              : 0;
        r->found_start[1] = (long long)(first_zero < b2 ? first_zero : b2);
        r->found_start[2] = (long long)b2;
        for (k = 0; k < 3; ++k)
            r->start[k] = sizes[k] && !present[k] ? HX_START_UNKNOWN
                          : r->found_start[k] == r->want_start[k]
                              ? HX_START_OK : HX_START_WRONG;
        if (r->start[1] == HX_START_UNKNOWN)
            r->found_start[1] = (long long)n;
        if (r->start[2] == HX_START_UNKNOWN)
            r->found_start[2] = (long long)n;
    }
    r->found_b1 = hx_clamp_start(r->found_start[1], n);
    r->found_b2 = hx_clamp_start(r->found_start[2], n);
    r->b1_ok = r->start[1] == HX_START_OK;
    r->b2_ok = r->start[2] == HX_START_OK;

    /* Order errors: a slot that holds a value of its own group, lined up
     * at the group's found start, but not the value the stable order puts
     * there. Zeros are all equal, so only negatives and positives can be
     * out of order. */
    for (i = 0; i < n && !r->nothing_written; ++i) {
        int kd = hx_kind(got[i]);
        long long rank;
        if (kd != 0 && kd != 2)
            continue;
        rank = (long long)i - r->found_start[kd];
        if (rank >= 0 && rank < (long long)sizes[kd] &&
            got[i] != want[r->want_start[kd] + rank])
            ++r->order_errors;
    }

    if (outside) {
        r->kind = HX_SPLIT_OUT_OF_BOUNDS;
    } else if (r->nothing_written) {
        r->kind = HX_SPLIT_UNWRITTEN;
    } else if (r->readings) {
        r->kind = HX_SPLIT_BOUNDARY;
    } else if (runs == (present[0] > 0) + (present[1] > 0) +
                      (size_t)(present[2] > 0) && !sorted) {
        r->kind = HX_SPLIT_SWAPPED;
        for (i = 0; i + 1 < nrun_kinds; ++i)
            if (run_kind[i] > run_kind[i + 1]) {
                r->swapped_first = run_kind[i];
                r->swapped_second = run_kind[i + 1];
                break;
            }
    } else if (!sorted) {
        r->kind = HX_SPLIT_MISMATCH;
    } else if ((sizes[0] && !present[0]) || (sizes[1] && !present[1]) ||
               (sizes[2] && !present[2])) {
        /* A missing group whose slots all hold poison was never written;
         * one whose slots hold other values was overwritten or never
         * placed. */
        r->kind = HX_SPLIT_UNWRITTEN;
        for (k = 0; k < 3; ++k)
            if (sizes[k] && !present[k] && r->unwritten_in[k] < sizes[k]) {
                r->kind = HX_SPLIT_GROUP_MISSING;
                r->missing_group = k;
                break;
            }
    } else if (r->start[0] != HX_START_OK || !r->b1_ok || !r->b2_ok) {
        r->kind = HX_SPLIT_BOUNDARY;
    } else if (poison) {
        r->kind = HX_SPLIT_UNWRITTEN;
    } else if (r->cmp.bad == 0) {
        r->kind = HX_SPLIT_PASS;
    } else if (hx_same_multiset(got, want, a) &&
               hx_same_multiset(got + ab, want + ab, n - ab)) {
        /* Sorted by kind with the right boundaries, so [0, A) holds only
         * negatives and [A+B, n) only positives; zeros cannot differ. */
        r->kind = HX_SPLIT_ORDER;
    } else {
        r->kind = HX_SPLIT_MISMATCH;
    }
    free(want);
    return r->kind;
}
