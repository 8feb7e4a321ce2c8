/* hx_check.c: element-for-element checks, the same-values check, the guard
 * scan and the three-way boundary check. Contracts are in hx_check.h.
 * Host code only: nothing here calls CUDA. */
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_ref.h"

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

static const char *hx_plural(size_t k, const char *one, const char *many)
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

static const char *const hx_group_names[3] = {"negatives", "zeros",
                                              "positives"};

/* 0 negative, 1 zero, 2 positive; -1 for poison, which is no kind. */
static int hx_kind(int v)
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

/* found_b2 as hx_check.h defines it: the base, within two slots of the
 * first positive, that lines up the most of the input's positives. */
static size_t hx_find_b2(const int *got, size_t n, const int *pos, size_t c)
{
    size_t p = 0, lo, hi, b, best = 0, best_score = 0, best_dist = 0;
    int have = 0;
    while (p < n && hx_kind(got[p]) != 2)
        ++p;
    lo = p >= 2 ? p - 2 : 0;
    hi = p + 2 <= n ? p + 2 : n;
    for (b = lo; b <= hi; ++b) {
        size_t r, score = 0, dist = b > p ? b - p : p - b;
        for (r = 0; r < c && b + r < n; ++r)
            score += got[b + r] == pos[r];
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
    /* Only an alignment of most of the positives is evidence of a shifted
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

hx_split_kind hx_check_split3(const int *in, const int *got, size_t n,
                              const hx_guard_report *g, hx_split_report *r)
{
    int *want;
    size_t i, a, ab, first_zero = n, present[3] = {0, 0, 0};
    size_t poison = 0, runs = 0;
    int run_kind[3 * 2 + 1], last = -1, sorted = 1;
    size_t nrun_kinds = 0;

    memset(r, 0, sizeof *r);
    r->n = n;
    if (g)
        r->guard = *g;
    for (i = 0; i < n; ++i) {
        r->negatives += in[i] < 0;
        r->zeros += in[i] == 0;
    }
    r->positives = n - r->negatives - r->zeros;
    r->want_b1 = a = r->negatives;
    r->want_b2 = ab = r->negatives + r->zeros;

    want = hx_check_alloc(n, sizeof *want, "hx_check_split3");
    hx_split3(in, want, n, NULL, NULL);
    hx_check_equal("split3", got, want, n, &r->cmp, NULL);

    /* The runs of kinds in got, poison skipped. run_kind keeps the first
     * few runs' kinds, enough to name a swap (a sorted-by-run output has
     * at most three runs). */
    for (i = 0; i < n; ++i) {
        int k = hx_kind(got[i]);
        if (k < 0) {
            ++poison;
            continue;
        }
        ++present[k];
        if (k == 1 && first_zero == n)
            first_zero = i;
        if (k != last) {
            if (last >= 0 && k < last)
                sorted = 0;
            if (nrun_kinds < sizeof run_kind / sizeof run_kind[0])
                run_kind[nrun_kinds++] = k;
            ++runs;
            last = k;
        }
    }

    /* Found boundaries: positives' base by alignment, zeros' start by
     * the first zero, never past the positives' base. */
    {
        size_t c = r->positives;
        const int *pos = want + ab;   /* the input's positives, in order */
        r->found_b2 = hx_find_b2(got, n, pos, c);
        r->found_b1 = first_zero < r->found_b2 ? first_zero : r->found_b2;
    }
    r->b1_ok = r->found_b1 == r->want_b1;
    r->b2_ok = r->found_b2 == r->want_b2;

    /* Order errors: a slot that holds a value of its own group, lined up
     * at the group's found base, but not the value the stable order puts
     * there. Zeros are all equal, so only negatives (base 0) and positives
     * (base found_b2) can be out of order. */
    for (i = 0; i < n; ++i) {
        int k = hx_kind(got[i]);
        if (k == 0 && i < a && got[i] != want[i])
            ++r->order_errors;
        else if (k == 2 && i >= r->found_b2 &&
                 i - r->found_b2 < r->positives &&
                 got[i] != want[ab + (i - r->found_b2)])
            ++r->order_errors;
    }

    if (g && (g->before || g->after)) {
        r->kind = HX_SPLIT_OUT_OF_BOUNDS;
    } else if (n > 0 && poison == n) {
        r->kind = HX_SPLIT_UNWRITTEN;
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
    } else if ((r->negatives && !present[0]) || (r->zeros && !present[1]) ||
               (r->positives && !present[2])) {
        r->kind = HX_SPLIT_GROUP_MISSING;
        r->missing_group = r->negatives && !present[0] ? 0
                           : r->zeros && !present[1] ? 1 : 2;
    } else if (!r->b1_ok || !r->b2_ok) {
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

static void hx_print_boundary(FILE *out, int which, size_t want, size_t found,
                              int ok)
{
    fprintf(out, "  boundary %d (%s):  expected %zu, found %zu  ", which,
            which == 1 ? "negatives|zeros" : "zeros|positives", want, found);
    if (ok) {
        fprintf(out, "ok\n");
    } else {
        size_t d = found < want ? want - found : found - want;
        fprintf(out, "WRONG (%zu %s %s)\n", d, hx_plural(d, "slot", "slots"),
                found < want ? "early" : "late");
    }
}

static void hx_print_shift(FILE *out, int which, size_t want, size_t found,
                           int *first)
{
    size_t d;
    if (want == found)
        return;
    d = found < want ? want - found : found - want;
    fprintf(out, "%sboundary %d is %zu %s %s", *first ? "" : ", ", which, d,
            hx_plural(d, "slot", "slots"), found < want ? "early" : "late");
    *first = 0;
}

void hx_split_print(const char *what, const hx_split_report *r, FILE *out)
{
    const hx_guard_report *g = &r->guard;
    size_t unwritten = 0;

    fprintf(out, "%s, n = %zu: %zu negatives, %zu zeros, %zu positives%s\n",
            what, r->n, r->negatives, r->zeros, r->positives,
            r->n == 0 ? " (empty input: nothing to place)" : "");
    hx_print_boundary(out, 1, r->want_b1, r->found_b1, r->b1_ok);
    hx_print_boundary(out, 2, r->want_b2, r->found_b2, r->b2_ok);
    if (r->cmp.bad)
        fprintf(out, "  first index that disagrees: %zu: got %d%s, want %d "
                "(%zu of %zu slots differ)\n", r->cmp.first, r->cmp.got,
                r->cmp.got == HX_POISON ? " (poison: never written)" : "",
                r->cmp.want, r->cmp.bad, r->n);
    else
        fprintf(out, "  first index that disagrees: none\n");
    /* Every poison slot differs from the reference (which holds no
     * poison), so the comparison's count is the unwritten count. */
    unwritten = r->cmp.unwritten;
    if (unwritten)
        fprintf(out, "  unwritten slots: %zu (first at %zu)\n", unwritten,
                r->cmp.first_unwritten);
    else
        fprintf(out, "  unwritten slots: 0\n");
    fprintf(out, "  order errors inside a group: %zu\n", r->order_errors);
    if (!g->before && !g->after)
        fprintf(out, "  writes outside the output: none\n");
    if (g->before)
        fprintf(out, "  writes outside the output: %zu %s before the start, "
                "nearest at index %lld, value %d\n", g->before,
                hx_plural(g->before, "word", "words"), g->first_before,
                g->value_before);
    if (g->after)
        fprintf(out, "  writes outside the output: %zu %s after the end, "
                "nearest at index %lld (n+%lld), value %d\n", g->after,
                hx_plural(g->after, "word", "words"), g->first_after,
                g->first_after - (long long)r->n, g->value_after);

    switch (r->kind) {
    case HX_SPLIT_PASS:
        fprintf(out, "PASS\n");
        break;
    case HX_SPLIT_OUT_OF_BOUNDS:
        fprintf(out, "FAIL: out_of_bounds: ");
        if (g->before)
            fprintf(out, "%zu %s before the start (nearest at index %lld)%s",
                    g->before, hx_plural(g->before, "write", "writes"),
                    g->first_before, g->after ? ", " : "");
        if (g->after)
            fprintf(out, "%zu %s past the end (nearest at index %lld, "
                    "n+%lld)", g->after, hx_plural(g->after, "write",
                    "writes"), g->first_after,
                    g->first_after - (long long)r->n);
        fprintf(out, "\n");
        break;
    case HX_SPLIT_UNWRITTEN:
        if (unwritten == r->n)
            fprintf(out, "FAIL: unwritten: no slot of the output was "
                    "written (all %zu still hold poison)\n", r->n);
        else
            fprintf(out, "FAIL: unwritten: %zu %s never written (first at "
                    "%zu)\n", unwritten, hx_plural(unwritten, "slot was",
                    "slots were"), r->cmp.first_unwritten);
        break;
    case HX_SPLIT_SWAPPED:
        fprintf(out, "FAIL: swapped: %s come before %s\n",
                hx_group_names[r->swapped_first],
                hx_group_names[r->swapped_second]);
        break;
    case HX_SPLIT_GROUP_MISSING: {
        size_t expect = r->missing_group == 0 ? r->negatives
                        : r->missing_group == 1 ? r->zeros : r->positives;
        fprintf(out, "FAIL: group_missing: no %s in the output, %zu "
                "expected\n", hx_group_names[r->missing_group % 3], expect);
        break;
    }
    case HX_SPLIT_BOUNDARY: {
        int first = 1;
        fprintf(out, "FAIL: boundary: ");
        hx_print_shift(out, 1, r->want_b1, r->found_b1, &first);
        hx_print_shift(out, 2, r->want_b2, r->found_b2, &first);
        fprintf(out, "\n");
        break;
    }
    case HX_SPLIT_ORDER:
        fprintf(out, "FAIL: order: %zu %s the right group's values in the "
                "wrong order\n", r->order_errors,
                hx_plural(r->order_errors, "slot holds", "slots hold"));
        break;
    case HX_SPLIT_MISMATCH:
    default: {
        /* The first disagreeing slot says which MISMATCH this is: a value
         * of another group there means the groups are interleaved. */
        int kg = hx_kind(r->cmp.got), kw = hx_kind(r->cmp.want);
        static const char *const one[3] = {"negative", "zero", "positive"};
        if (kg >= 0 && kw >= 0 && kg != kw)
            fprintf(out, "FAIL: mismatch: the groups are interleaved: slot "
                    "%zu holds a %s where the %s belong (got %d, want %d)\n",
                    r->cmp.first, one[kg], hx_group_names[kw], r->cmp.got,
                    r->cmp.want);
        else
            fprintf(out, "FAIL: mismatch: a group holds a value its input "
                    "group does not have (first at %zu: got %d, want %d)\n",
                    r->cmp.first, r->cmp.got, r->cmp.want);
        break;
    }
    }
}
