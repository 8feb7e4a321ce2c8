/* test_refs.c: the harness's host tests: host references against brute force, and the generators. */
#include "t.h"

/* ---- references against brute force ------------------------------------ */

void test_scan(void)
{
    size_t s;
    for (s = 0; s < T_NSIZES; ++s) {
        size_t n = t_sizes[s], i, bad_ex = 0, bad_in = 0, bad_alias = 0;
        int *in = t_alloc(n, sizeof *in), *ex = t_alloc(n, sizeof *ex);
        int *inc = t_alloc(n, sizeof *inc), *alias = t_alloc(n, sizeof *alias);
        long long *want_ex = t_alloc(n, sizeof *want_ex), total = 0, got_t;
        /* Large values at the large size so the sums wrap. */
        int big = n == 1000003;
        t_context("scan n=%zu", n);
        for (i = 0; i < n; ++i)
            in[i] = big ? t_rand_in(-2000000000, 2000000000)
                        : t_rand_in(-1000, 1000);
        if (n <= T_SMALL) {
            /* Definition: the sum of in[0..i), summed afresh each time. */
            for (i = 0; i < n; ++i) {
                long long sum = 0;
                size_t j;
                for (j = 0; j < i; ++j)
                    sum += in[j];
                want_ex[i] = sum;
            }
            for (i = 0; i < n; ++i)
                total += in[i];
        } else {
            /* Definition from the other end: total minus the suffix sum
             * in[i..n). */
            long long suffix = 0;
            for (i = 0; i < n; ++i)
                total += in[i];
            for (i = n; i-- > 0;) {
                suffix += in[i];
                want_ex[i] = total - suffix;
            }
        }
        got_t = hx_scan_exclusive(in, ex, n);
        EXPECT_LL(got_t, total);
        got_t = hx_scan_inclusive(in, inc, n);
        EXPECT_LL(got_t, total);
        for (i = 0; i < n; ++i) {
            bad_ex += ex[i] != t_wrap(want_ex[i]);
            bad_in += inc[i] != t_wrap(want_ex[i] + in[i]);
        }
        EXPECT_LL(bad_ex, 0);
        EXPECT_LL(bad_in, 0);
        /* In place (in == out) must give the same. */
        memcpy(alias, in, n * sizeof *in);
        hx_scan_exclusive(alias, alias, n);
        for (i = 0; i < n; ++i)
            bad_alias += alias[i] != ex[i];
        memcpy(alias, in, n * sizeof *in);
        hx_scan_inclusive(alias, alias, n);
        for (i = 0; i < n; ++i)
            bad_alias += alias[i] != inc[i];
        EXPECT_LL(bad_alias, 0);
        free(in), free(ex), free(inc), free(alias), free(want_ex);
    }
    t_context("scan wraps");
    {
        int in[3] = {INT_MAX, 1, 1}, out[3];
        long long t = hx_scan_inclusive(in, out, 3);
        EXPECT_LL(t, (long long)INT_MAX + 2);
        EXPECT_LL(out[1], INT_MIN);
        EXPECT_LL(out[2], INT_MIN + 1);
    }
    t_context("%s", "");
}

void test_mark_compact_partition(void)
{
    hx_pred preds[4] = {hx_pred_nonzero, hx_pred_even, hx_pred_negative,
                        hx_pred_zero};
    const char *names[4] = {"nonzero", "even", "negative", "zero"};
    size_t s;
    int p;

    t_context("predicates");
    EXPECT(hx_pred_even(-4) && !hx_pred_even(-3) && hx_pred_even(0));
    EXPECT(hx_pred_nonzero(-1) && !hx_pred_nonzero(0));
    EXPECT(hx_pred_negative(-1) && !hx_pred_negative(0));
    EXPECT(hx_pred_zero(0) && !hx_pred_zero(7));

    for (s = 0; s < T_NSIZES; ++s)
        for (p = 0; p < 4; ++p) {
            size_t n = t_sizes[s], i, m, k, bad = 0, bad_flags = 0;
            size_t prev, kept;
            int *in = t_alloc(n, sizeof *in), *out = t_alloc(n, sizeof *out);
            int *bf = t_alloc(n, sizeof *bf), *flags = t_alloc(n, sizeof *flags);
            t_context("compact/partition n=%zu pred=%s", n, names[p]);
            for (i = 0; i < n; ++i) {
                int r = t_rand_in(0, 9);
                in[i] = r < 3 ? 0 : t_rand_in(-1000000, 1000000);
            }
            hx_mark(in, flags, n, preds[p]);
            for (i = 0; i < n; ++i)
                bad_flags += flags[i] != (preds[p](in[i]) ? 1 : 0);
            EXPECT_LL(bad_flags, 0);

            /* Compaction by repeated search: the k-th survivor is the first
             * index after the (k-1)-th whose value the predicate keeps. */
            for (i = 0; i < n; ++i)
                out[i] = HX_POISON;
            m = hx_compact(in, out, n, preds[p]);
            k = 0;
            prev = 0;
            for (;;) {
                size_t j = k == 0 ? 0 : prev + 1;
                while (j < n && !preds[p](in[j]))
                    ++j;
                if (j >= n)
                    break;
                bf[k++] = in[j];
                prev = j;
            }
            EXPECT_LL(m, k);
            for (i = 0; i < k && i < m; ++i)
                bad += out[i] != bf[i];
            for (i = m; i < n; ++i)
                bad += out[i] != HX_POISON;   /* nothing past the count */
            EXPECT_LL(bad, 0);

            /* Partition by two passes: the kept ones, then the rest. */
            k = 0;
            for (i = 0; i < n; ++i)
                if (preds[p](in[i]))
                    bf[k++] = in[i];
            kept = k;
            for (i = 0; i < n; ++i)
                if (!preds[p](in[i]))
                    bf[k++] = in[i];
            m = hx_partition(in, out, n, preds[p]);
            EXPECT_LL(m, kept);
            bad = 0;
            for (i = 0; i < n; ++i)
                bad += out[i] != bf[i];
            EXPECT_LL(bad, 0);
            free(in), free(out), free(bf), free(flags);
        }
    t_context("%s", "");
}

/* Three passes: negatives, zeros, positives. */
void t_split3_bf(const int *in, int *out, size_t n, size_t *a,
                        size_t *ab)
{
    size_t i, k = 0;
    for (i = 0; i < n; ++i)
        if (in[i] < 0)
            out[k++] = in[i];
    *a = k;
    for (i = 0; i < n; ++i)
        if (in[i] == 0)
            out[k++] = in[i];
    *ab = k;
    for (i = 0; i < n; ++i)
        if (in[i] > 0)
            out[k++] = in[i];
}

void test_split3_ref(void)
{
    size_t s;
    for (s = 0; s < T_NSIZES; ++s) {
        size_t n = t_sizes[s], i, a, ab, b1 = 99, b2 = 99, bad = 0;
        int *in = t_alloc(n, sizeof *in), *out = t_alloc(n, sizeof *out);
        int *bf = t_alloc(n, sizeof *bf);
        t_context("split3 n=%zu", n);
        for (i = 0; i < n; ++i)
            in[i] = t_rand_in(-2, 2) * t_rand_in(1, 1000);
        t_split3_bf(in, bf, n, &a, &ab);
        hx_split3(in, out, n, &b1, &b2);
        EXPECT_LL(b1, a);
        EXPECT_LL(b2, ab);
        for (i = 0; i < n; ++i)
            bad += out[i] != bf[i];
        EXPECT_LL(bad, 0);
        free(in), free(out), free(bf);
    }
    t_context("%s", "");
}

typedef struct {
    int dest, src;
} t_pair;

static int t_pair_cmp(const void *x, const void *y)
{
    const t_pair *a = x, *b = y;
    if (a->dest != b->dest)
        return (a->dest > b->dest) - (a->dest < b->dest);
    return (a->src > b->src) - (a->src < b->src);
}

static int t_int_cmp(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

void test_gather_scatter(void)
{
    size_t s;
    int perm;
    for (s = 0; s < T_NSIZES; ++s)
        for (perm = 0; perm < 2; ++perm) {
            size_t n = t_sizes[s], i, bad = 0, lost, dups = 0;
            int *in = t_alloc(n, sizeof *in), *map = t_alloc(n, sizeof *map);
            int *out = t_alloc(n, sizeof *out), *bf = t_alloc(n, sizeof *bf);
            int *sorted = t_alloc(n, sizeof *sorted);
            t_context("gather/scatter n=%zu %s", n,
                      perm ? "permutation" : "random map");
            for (i = 0; i < n; ++i)
                in[i] = t_rand_in(-1000000, 1000000);
            if (perm)
                hx_fill_permutation(map, n, 7 + n);
            else
                hx_fill_random_map(map, n, 7 + n);

            hx_gather(in, map, out, n);
            for (i = 0; i < n; ++i)
                bad += out[i] != in[map[i]];
            EXPECT_LL(bad, 0);

            /* Scatter's definition: each destination holds the value of
             * the last i that maps to it; unmapped slots keep theirs. */
            for (i = 0; i < n; ++i)
                out[i] = bf[i] = HX_POISON;
            if (n <= T_SMALL) {
                size_t d;
                for (d = 0; d < n; ++d) {
                    size_t j;
                    for (j = n; j-- > 0;)
                        if ((size_t)map[j] == d) {
                            bf[d] = in[j];
                            break;
                        }
                }
            } else {
                t_pair *pairs = t_alloc(n, sizeof *pairs);
                for (i = 0; i < n; ++i) {
                    pairs[i].dest = map[i];
                    pairs[i].src = (int)i;
                }
                qsort(pairs, n, sizeof *pairs, t_pair_cmp);
                for (i = 0; i < n; ++i)
                    if (i + 1 == n || pairs[i + 1].dest != pairs[i].dest)
                        bf[pairs[i].dest] = in[pairs[i].src];
                free(pairs);
            }
            lost = hx_scatter(in, map, out, n);
            bad = 0;
            for (i = 0; i < n; ++i)
                bad += out[i] != bf[i];
            EXPECT_LL(bad, 0);
            /* Lost writes: duplicates among the destinations, by sorting. */
            memcpy(sorted, map, n * sizeof *map);
            qsort(sorted, n, sizeof *sorted, t_int_cmp);
            for (i = 1; i < n; ++i)
                dups += sorted[i] == sorted[i - 1];
            EXPECT_LL(lost, dups);
            if (perm)
                EXPECT_LL(lost, 0);
            else if (n >= 1000)
                EXPECT(lost > 0);
            free(in), free(map), free(out), free(bf), free(sorted);
        }
    t_context("%s", "");
}

/* ---- generators -------------------------------------------------------- */

static size_t t_sentinels(const int *a, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n; ++i)
        k += a[i] == HX_POISON || a[i] == HX_GUARD_WORD;
    return k;
}

static size_t t_out_of_range(const int *a, size_t n, int lo, int hi)
{
    size_t i, k = 0;
    for (i = 0; i < n; ++i)
        k += a[i] < lo || a[i] > hi;
    return k;
}

void test_rng(void)
{
    hx_rng r1, r2;
    int i, same = 1, bad = 0;
    t_context("rng");
    hx_rng_seed(&r1, 42);
    hx_rng_seed(&r2, 42);
    for (i = 0; i < 1000; ++i)
        same &= hx_rng_next(&r1) == hx_rng_next(&r2);
    EXPECT(same);
    /* splitmix64's published first output for seed 0. */
    hx_rng_seed(&r1, 0);
    EXPECT(hx_rng_next(&r1) == 0xE220A8397B1DCDAFull);
    for (i = 0; i < 100000; ++i) {
        uint64_t b = i % 3 == 0 ? 3 : i % 3 == 1 ? 1000003 :
                     (1ull << 63) + 1;
        double u = hx_rng_unit(&r1);
        bad += hx_rng_below(&r1, b) >= b;
        bad += !(u >= 0.0 && u < 1.0);
    }
    EXPECT_LL(bad, 0);
    EXPECT_LL(hx_rng_below(&r1, 1), 0);
    t_context("%s", "");
}

void test_generators(void)
{
    const size_t n = 1000000;
    int *a = t_alloc(n, sizeof *a), *b = t_alloc(n, sizeof *b);
    size_t i, k;
    double keeps[5] = {0.0, 0.1, 0.5, 0.9, 1.0};
    int m, s;

    /* Determinism: same seed, same array; another seed, another array. */
    t_context("determinism");
    hx_fill_uniform(a, 1000, -5, 5, 1);
    hx_fill_uniform(b, 1000, -5, 5, 1);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) == 0);
    hx_fill_uniform(b, 1000, -5, 5, 2);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) != 0);
    hx_fill_survival(a, 1000, 0.5, 9);
    hx_fill_survival(b, 1000, 0.5, 9);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) == 0);
    hx_fill_survival(b, 1000, 0.5, 10);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) != 0);
    hx_fill_threeway(a, 1000, HX_MIX_THIRDS, 9);
    hx_fill_threeway(b, 1000, HX_MIX_THIRDS, 9);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) == 0);
    hx_fill_threeway(b, 1000, HX_MIX_THIRDS, 10);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) != 0);
    hx_fill_permutation(a, 1000, 9);
    hx_fill_permutation(b, 1000, 9);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) == 0);
    hx_fill_permutation(b, 1000, 10);
    EXPECT(memcmp(a, b, 1000 * sizeof *a) != 0);
    /* Pinned values: the same array on every machine, release after
     * release (change these only with the evidence transcripts, whose
     * inputs come from this generator). */
    {
        static const int pinned[4] = {21, 548, 7, 996};
        t_context("pinned values");
        hx_fill_uniform(a, 4, 0, 999, HX_DEFAULT_SEED);
        for (i = 0; i < 4; ++i)
            EXPECT_LL(a[i], pinned[i]);
    }

    /* Uniform: inside [lo, hi], both ends reached, never a sentinel even
     * when the range holds one. */
    t_context("uniform");
    hx_fill_uniform(a, n, -3, 3, 5);
    EXPECT_LL(t_out_of_range(a, n, -3, 3), 0);
    {
        int lo_seen = 0, hi_seen = 0;
        for (i = 0; i < n; ++i) {
            lo_seen |= a[i] == -3;
            hi_seen |= a[i] == 3;
        }
        EXPECT(lo_seen && hi_seen);
    }
    hx_fill_uniform(a, 100000, HX_POISON - 1, HX_POISON + 1, 5);
    EXPECT_LL(t_sentinels(a, 100000), 0);
    EXPECT_LL(t_out_of_range(a, 100000, HX_POISON - 1, HX_POISON + 1), 0);
    hx_fill_uniform(a, 100000, HX_GUARD_WORD, HX_GUARD_WORD + 1, 5);
    EXPECT_LL(t_sentinels(a, 100000), 0);
    hx_fill_uniform(a, n, INT_MIN, INT_MAX, 5);
    EXPECT_LL(t_sentinels(a, n), 0);

    hx_fill_const(a, 1000, 7);
    EXPECT_LL(t_out_of_range(a, 1000, 7, 7), 0);

    /* Survival: the kept fraction is close to keep (within 10 standard
     * deviations at n = 10^6), exact at 0 and 1; kept values non-zero in
     * [-10^6, 10^6]. */
    for (m = 0; m < 5; ++m) {
        double f;
        t_context("survival keep=%.1f", keeps[m]);
        hx_fill_survival(a, n, keeps[m], 77);
        for (i = k = 0; i < n; ++i)
            k += a[i] != 0;
        f = (double)k / n;
        EXPECT(f > keeps[m] - 0.005 && f < keeps[m] + 0.005);
        if (keeps[m] == 0.0)
            EXPECT_LL(k, 0);
        if (keeps[m] == 1.0)
            EXPECT_LL(k, n);
        EXPECT_LL(t_out_of_range(a, n, -1000000, 1000000), 0);
        EXPECT_LL(t_sentinels(a, n), 0);
        hx_fill_parity(a, n, keeps[m], 78);
        for (i = k = 0; i < n; ++i)
            k += a[i] % 2 == 0;
        f = (double)k / n;
        EXPECT(f > keeps[m] - 0.005 && f < keeps[m] + 0.005);
        if (keeps[m] == 0.0)
            EXPECT_LL(k, 0);
        if (keeps[m] == 1.0)
            EXPECT_LL(k, n);
        EXPECT_LL(t_out_of_range(a, n, -1000000, 1000000), 0);
    }
    {
        /* Kept values are spread out, so order errors show. */
        size_t distinct = 0;
        hx_fill_survival(a, 10000, 1.0, 3);
        qsort(a, 10000, sizeof *a, t_int_cmp);
        for (i = 0; i < 10000; ++i)
            distinct += i == 0 || a[i] != a[i - 1];
        t_context("survival values");
        EXPECT(distinct > 9900);
    }

    /* Three-way mixes. */
    for (m = 0; m < HX_MIX_COUNT; ++m) {
        size_t neg = 0, zero = 0, pos = 0;
        t_context("mix %s", hx_mix_name((hx_mix)m));
        EXPECT(strcmp(hx_mix_name((hx_mix)m), "unknown") != 0);
        hx_fill_threeway(a, n, (hx_mix)m, 31);
        for (i = 0; i < n; ++i) {
            neg += a[i] < 0;
            zero += a[i] == 0;
            pos += a[i] > 0;
        }
        EXPECT_LL(t_out_of_range(a, n, -1000000, 1000000), 0);
        EXPECT_LL(t_sentinels(a, n), 0);
        switch ((hx_mix)m) {
        case HX_MIX_THIRDS:
            EXPECT(neg > n / 3 - 5000 && neg < n / 3 + 5000);
            EXPECT(zero > n / 3 - 5000 && zero < n / 3 + 5000);
            EXPECT(pos > n / 3 - 5000 && pos < n / 3 + 5000);
            break;
        case HX_MIX_ALL_NEG: EXPECT_LL(neg, n); break;
        case HX_MIX_ALL_ZERO: EXPECT_LL(zero, n); break;
        case HX_MIX_ALL_POS: EXPECT_LL(pos, n); break;
        case HX_MIX_NO_ZEROS:
            EXPECT_LL(zero, 0);
            EXPECT(neg > n / 2 - 5000 && neg < n / 2 + 5000);
            break;
        default: break;
        }
    }
    {
        size_t sizes[6] = {1, 2, 3, 10, 11, 1001}, si;
        for (si = 0; si < 6; ++si) {
            size_t nn = sizes[si], bad = 0, zeros = 0;
            t_context("mix ends n=%zu", nn);
            hx_fill_threeway(a, nn, HX_MIX_ENDS, 4);
            EXPECT(a[0] > 0);
            if (nn >= 2)
                EXPECT(a[nn - 1] < 0);
            if (nn >= 3)
                EXPECT_LL(a[nn / 2], 0);
            for (i = 0; i < nn; ++i) {
                zeros += a[i] == 0;
                if (i == 0 || i == nn - 1 || (nn >= 3 && i == nn / 2))
                    continue;
                bad += i % 2 == 0 ? a[i] <= 0 : a[i] >= 0;
            }
            EXPECT_LL(bad, 0);
            EXPECT_LL(zeros, nn >= 3 ? 1 : 0);
        }
    }
    EXPECT(strcmp(hx_mix_name(HX_MIX_COUNT), "unknown") == 0);

    /* Edge shapes (kept = non-zero). */
    for (s = 0; s < HX_SHAPE_COUNT; ++s) {
        size_t sizes[4] = {1, 2, 7, 1000}, si;
        t_context("shape %s", hx_shape_name((hx_shape)s));
        EXPECT(strcmp(hx_shape_name((hx_shape)s), "unknown") != 0);
        for (si = 0; si < 4; ++si) {
            size_t nn = sizes[si], bad = 0;
            hx_fill_shape(a, nn, (hx_shape)s, 12);
            for (i = 0; i < nn; ++i) {
                int want_kept;
                switch ((hx_shape)s) {
                case HX_SHAPE_ALL_KEPT: want_kept = 1; break;
                case HX_SHAPE_NONE_KEPT: want_kept = 0; break;
                case HX_SHAPE_LAST_ONLY: want_kept = i == nn - 1; break;
                case HX_SHAPE_ALTERNATING: want_kept = i % 2 == 0; break;
                default: want_kept = i >= nn / 2; break;
                }
                bad += (a[i] != 0) != want_kept;
            }
            EXPECT_LL(bad, 0);
            EXPECT_LL(t_out_of_range(a, nn, -1000000, 1000000), 0);
            EXPECT_LL(t_sentinels(a, nn), 0);
        }
    }

    /* Maps. */
    {
        size_t sizes[5] = {0, 1, 2, 1000, 65537}, si;
        for (si = 0; si < 5; ++si) {
            size_t nn = sizes[si], bad = 0, moved = 0;
            unsigned char *seen = calloc(nn + 1, 1);
            t_context("permutation n=%zu", nn);
            hx_fill_permutation(a, nn, 21);
            for (i = 0; i < nn; ++i) {
                if (a[i] < 0 || (size_t)a[i] >= nn || seen[a[i]])
                    ++bad;
                else
                    seen[a[i]] = 1;
                moved += (size_t)a[i] != i;
            }
            EXPECT_LL(bad, 0);
            if (nn >= 1000)
                EXPECT(moved > nn / 2);
            hx_fill_identity(a, nn);
            for (i = bad = 0; i < nn; ++i)
                bad += (size_t)a[i] != i;
            EXPECT_LL(bad, 0);
            hx_fill_random_map(a, nn, 22);
            EXPECT_LL(t_out_of_range(a, nn, 0, (int)nn - 1), 0);
            free(seen);
        }
    }
    t_context("%s", "");
    free(a);
    free(b);
}
