/* test_harness.c: host tests for the harness, run without a GPU.
 *
 *   make -C harness test
 *
 * Checks every host reference against a brute-force definition written
 * here independently, the generators' documented properties, the command
 * line parser, and every check against synthetic outputs for each failure
 * class it must name, asserting the exact classification, positions and
 * values. Also checks the pure parts of hx_cuda.c (problem sizing, grid
 * size) and hx_time.c (the table printer) on made-up devices. No CUDA
 * function is ever called: the CUDA runtime is linked only because those
 * two files also hold the functions that do call it.
 *
 * Counting: one "passed" or "failed" per assertion (each EXPECT below).
 * Every failed assertion prints file:line, the expression and the values;
 * the last line is always "N passed, M failed", and the exit code is 1
 * when M > 0.
 */
#define _POSIX_C_SOURCE 200809L

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_input.h"
#include "hx_lock.h"
#include "hx_ref.h"
#include "hx_time.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the runner -------------------------------------------------------- */

static long t_passed, t_failed;
static char t_ctx[160];   /* what the current case is, for failure lines */

static void t_context(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_ctx, sizeof t_ctx, fmt, ap);
    va_end(ap);
}

static int t_report(int ok, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        ++t_passed;
        return 1;
    }
    ++t_failed;
    printf("FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (t_ctx[0])
        printf("  [%s]", t_ctx);
    printf("\n");
    return 0;
}

#define EXPECT(c) t_report(!!(c), __FILE__, __LINE__, "%s", #c)
#define EXPECT_LL(a, b)                                                    \
    do {                                                                   \
        long long a_ = (long long)(a), b_ = (long long)(b);                \
        t_report(a_ == b_, __FILE__, __LINE__, "%s == %s: %lld != %lld",   \
                 #a, #b, a_, b_);                                          \
    } while (0)
#define EXPECT_STR(hay, needle)                                            \
    t_report(strstr((hay), (needle)) != NULL, __FILE__, __LINE__,          \
             "%s contains \"%s\"; it was:\n%s", #hay, (needle), (hay))

static void *t_alloc(size_t count, size_t size)
{
    void *p = malloc(count ? count * size : 1);
    if (!p) {
        printf("test_harness: out of host memory\n");
        exit(2);
    }
    return p;
}

/* Captures what a printing function writes to a FILE *. */
typedef struct {
    FILE *f;
    char *buf;
    size_t len;
} t_capture;

static FILE *t_capture_begin(t_capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    if (!c->f) {
        printf("test_harness: open_memstream failed\n");
        exit(2);
    }
    return c->f;
}

static char *t_capture_end(t_capture *c)
{
    fclose(c->f);
    return c->buf;   /* caller frees */
}

static size_t t_count_lines(const char *s)
{
    size_t k = 0;
    for (; *s; ++s)
        k += *s == '\n';
    return k;
}

/* Independent of the harness's RNG: a 64-bit LCG for test data. */
static unsigned long long t_state = 88172645463325252ull;
static unsigned t_rand(void)
{
    t_state = t_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(t_state >> 33);
}
static int t_rand_in(int lo, int hi)
{
    unsigned long long span = (unsigned long long)((long long)hi - lo) + 1;
    return (int)(lo + (long long)(t_rand() % span));
}

/* The int a long long becomes when wrapped modulo 2^32, written without
 * any implementation-defined conversion. */
static int t_wrap(long long x)
{
    long long m = x % 4294967296LL;
    if (m < 0)
        m += 4294967296LL;
    if (m >= 2147483648LL)
        m -= 4294967296LL;
    return (int)m;
}

static const size_t t_sizes[] = {0, 1, 2, 255, 256, 257, 65535, 65536,
                                 65537, 1000003};
#define T_NSIZES (sizeof t_sizes / sizeof t_sizes[0])
#define T_SMALL 4096   /* O(n^2) brute force only up to here */

/* ---- references against brute force ------------------------------------ */

static void test_scan(void)
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

static void test_mark_compact_partition(void)
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
static void t_split3_bf(const int *in, int *out, size_t n, size_t *a,
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

static void test_split3_ref(void)
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

static void test_gather_scatter(void)
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

static void test_rng(void)
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

static void test_generators(void)
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
     * release (change these only with the evidence transcripts). */
    hx_fill_uniform(a, 4, 0, 999, HX_DEFAULT_SEED);
    hx_fill_uniform(b, 4, 0, 999, HX_DEFAULT_SEED);
    EXPECT(memcmp(a, b, 4 * sizeof *a) == 0);

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

/* ---- the command line -------------------------------------------------- */

static void test_parse_size(void)
{
    const char *good[] = {"0", "1", "1000", "007", "2147483647", "2^0",
                          "2^28", "2^30", "2^31-1", "2^20+1", "2^20-1",
                          "2^0-1", "2^4-16", "2^30+1073741823"};
    const size_t goodv[] = {0, 1, 1000, 7, 2147483647, 1, (size_t)1 << 28,
                            (size_t)1 << 30, 2147483647, 1048577, 1048575,
                            0, 0, 2147483647};
    const char *bad[] = {"", "12x", "-5", "+5", " 5", "5 ", "1e9", "0x10",
                         "2147483648", "99999999999999999999999", "2^31",
                         "2^32", "2^", "2^-1", "3^2", "2^1x", "1.5", "x",
                         "2^31+0", "2^30+1073741824", "2^31-", "2^31-1x",
                         "2^31--1", "2^31-+1", "2^4-17", "2^64-1", "2^99",
                         "2^31 -1", "2^3-1-1", "-2^4"};
    size_t i, v;
    t_context("hx_parse_size");
    for (i = 0; i < sizeof good / sizeof *good; ++i) {
        v = 12345;
        t_context("hx_parse_size(\"%s\")", good[i]);
        EXPECT_LL(hx_parse_size(good[i], &v), 0);
        EXPECT_LL(v, goodv[i]);
    }
    for (i = 0; i < sizeof bad / sizeof *bad; ++i) {
        v = 12345;
        t_context("hx_parse_size(\"%s\")", bad[i]);
        EXPECT_LL(hx_parse_size(bad[i], &v), -1);
        EXPECT_LL(v, 12345);
    }
    t_context("%s", "");
}

/* Runs hx_parse_args with stdout and stderr captured into out/err
 * (malloc'd, caller frees). args is a NULL-terminated list after argv[0]. */
static int t_parse(const char *const *args, unsigned allow, hx_opts *o,
                   char **out, char **err)
{
    char *argv[32];
    int argc = 0, rc, saved_out, saved_err;
    FILE *fo = tmpfile(), *fe = tmpfile();
    long len;
    char **dst[2] = {out, err};
    FILE *src[2] = {fo, fe};
    int k;

    argv[argc++] = (char *)"lab";
    while (*args && argc < 31)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;

    fflush(stdout);
    fflush(stderr);
    saved_out = dup(1);
    saved_err = dup(2);
    dup2(fileno(fo), 1);
    dup2(fileno(fe), 2);
    rc = hx_parse_args(argc, argv, o, allow, "lab", "What the lab shows.");
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);

    for (k = 0; k < 2; ++k) {
        fseek(src[k], 0, SEEK_END);
        len = ftell(src[k]);
        rewind(src[k]);
        *dst[k] = t_alloc((size_t)len + 1, 1);
        (*dst[k])[fread(*dst[k], 1, (size_t)len, src[k])] = '\0';
        fclose(src[k]);
    }
    return rc;
}

static void test_parse_args(void)
{
    hx_opts o;
    char *out, *err;
    int rc;

    {
        const char *none[] = {NULL};
        t_context("args: defaults");
        rc = t_parse(none, 0, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT(o.n_set == 0 && o.n == 0);
        EXPECT(o.seed == HX_DEFAULT_SEED);
        EXPECT_LL(o.runs, HX_DEFAULT_RUNS);
        EXPECT_LL(o.warmup, HX_DEFAULT_WARMUP);
        EXPECT(o.keep == 0.5 && o.check == 0 && o.help == 0);
        EXPECT(out[0] == '\0' && err[0] == '\0');
        free(out), free(err);
    }
    {
        const char *args[] = {"--n", "1000", "--seed", "5", "--runs", "7",
                              "--warmup", "0", "--check", NULL};
        t_context("args: all set");
        rc = t_parse(args, 0, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT(o.n_set == 1 && o.n == 1000);
        EXPECT(o.seed == 5);
        EXPECT_LL(o.runs, 7);
        EXPECT_LL(o.warmup, 0);
        EXPECT_LL(o.check, 1);
        EXPECT(err[0] == '\0');
        free(out), free(err);
    }
    {
        const char *args[] = {"--n=2^20", "--seed=18446744073709551615",
                              "--keep=0.25", "--n", "0", NULL};
        t_context("args: = form, last --n wins, 0 is a size");
        rc = t_parse(args, HX_OPT_KEEP, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT(o.n_set == 1 && o.n == 0);
        EXPECT(o.seed == UINT64_MAX);
        EXPECT(o.keep == 0.25);
        free(out), free(err);
    }
    {
        const char *args[] = {"--keep", "1", NULL};
        const char *args0[] = {"--keep", "0", NULL};
        t_context("args: keep bounds");
        rc = t_parse(args, HX_OPT_KEEP, &o, &out, &err);
        EXPECT(rc == HX_EXIT_OK && o.keep == 1.0);
        free(out), free(err);
        rc = t_parse(args0, HX_OPT_KEEP, &o, &out, &err);
        EXPECT(rc == HX_EXIT_OK && o.keep == 0.0);
        free(out), free(err);
    }
    {
        const char *args[] = {"--help", NULL};
        t_context("args: --help");
        rc = t_parse(args, 0, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT_LL(o.help, 1);
        EXPECT_STR(out, "What the lab shows.");
        EXPECT_STR(out, "--n N");
        EXPECT_STR(out, "--seed S");
        EXPECT_STR(out, "(default 31033)");
        EXPECT_STR(out, "(default 20)");
        EXPECT_STR(out, "(default 3)");
        EXPECT(strstr(out, "--keep") == NULL);
        EXPECT(err[0] == '\0');
        free(out), free(err);
        rc = t_parse(args, HX_OPT_KEEP, &o, &out, &err);
        EXPECT_STR(out, "--keep P");
        EXPECT_STR(out, "(default 0.5)");
        free(out), free(err);
    }
    {
        /* Each bad command line: exit 2 and exactly one stderr line
         * "lab: ... (try --help)", nothing on stdout. */
        static const char *const bad[][4] = {
            {"--bogus", NULL}, {"-x", NULL}, {"extra", NULL}, {"--", NULL},
            {"--n", NULL}, {"--n", "12x", NULL}, {"--n", "-5", NULL},
            {"--n", "", NULL}, {"--n", "1e9", NULL}, {"--n", "0x10", NULL},
            {"--n", "3000000000", NULL}, {"--n", "2^31", NULL},
            {"--n", "2^31+1", NULL}, {"--n", "2^2-5", NULL},
            {"--n", "2^31-x", NULL},
            {"--n=", NULL}, {"--n", " 5", NULL},
            {"--seed", "-1", NULL}, {"--seed", "18446744073709551616", NULL},
            {"--seed", "abc", NULL}, {"--runs", "0", NULL},
            {"--runs", "-1", NULL}, {"--runs", "1.5", NULL},
            {"--warmup", "-1", NULL}, {"--keep", "0.5", NULL},
            {"--check=1", NULL}, {"--help=yes", NULL}, {"--nn", "5", NULL},
        };
        static const char *const bad_keep[][3] = {
            {"--keep", "1.5", NULL}, {"--keep", "-0.1", NULL},
            {"--keep", "nan", NULL}, {"--keep", "inf", NULL},
            {"--keep", "0x1", NULL}, {"--keep", "", NULL}, {"--keep", NULL},
        };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof *bad; ++i) {
            size_t len;
            t_context("args: bad '%s %s'", bad[i][0], bad[i][1] ? bad[i][1]
                      : "");
            rc = t_parse(bad[i], 0, &o, &out, &err);
            len = strlen(err);
            EXPECT_LL(rc, HX_EXIT_USAGE);
            EXPECT_LL(t_count_lines(err), 1);
            EXPECT(strncmp(err, "lab: ", 5) == 0);
            EXPECT(len > 13 && strcmp(err + len - 13, "(try --help)\n") == 0);
            EXPECT(out[0] == '\0');
            free(out), free(err);
        }
        for (i = 0; i < sizeof bad_keep / sizeof *bad_keep; ++i) {
            t_context("args: bad '%s %s'", bad_keep[i][0],
                      bad_keep[i][1] ? bad_keep[i][1] : "");
            rc = t_parse(bad_keep[i], HX_OPT_KEEP, &o, &out, &err);
            EXPECT_LL(rc, HX_EXIT_USAGE);
            EXPECT_LL(t_count_lines(err), 1);
            free(out), free(err);
        }
    }
    {
        /* The lines name what is wrong. */
        const char *neg[] = {"--n", "-5", NULL}, *big[] = {"--n", "2^31",
                             NULL}, *junk[] = {"--n", "12x", NULL};
        const char *max[] = {"--n", "2^31-1", NULL}, *below[] = {"--n",
                             "2^2-5", NULL}, *huge[] = {"--n", "2^40-1",
                             NULL};
        t_context("args: messages");
        /* The largest size --help names is accepted in the form it names. */
        EXPECT_LL(t_parse(max, 0, &o, &out, &err), HX_EXIT_OK);
        EXPECT(o.n_set == 1 && o.n == 2147483647);
        free(out), free(err);
        {
            const char *help[] = {"--help", NULL};
            t_parse(help, 0, &o, &out, &err);
            EXPECT_STR(out, "0 to 2147483647 (2^31-1)");
            free(out), free(err);
        }
        t_parse(below, 0, &o, &out, &err);
        EXPECT_STR(err, "negative");
        free(out), free(err);
        t_parse(huge, 0, &o, &out, &err);
        EXPECT_STR(err, "above the largest size 2147483647");
        free(out), free(err);
        t_parse(neg, 0, &o, &out, &err);
        EXPECT_STR(err, "negative");
        free(out), free(err);
        t_parse(big, 0, &o, &out, &err);
        EXPECT_STR(err, "2147483647");
        free(out), free(err);
        t_parse(junk, 0, &o, &out, &err);
        EXPECT_STR(err, "'12x'");
        free(out), free(err);
    }
    t_context("%s", "");
}

/* ---- element and same-values checks ------------------------------------ */

static void test_check_equal(void)
{
    int want[100], got[100], i;
    hx_cmp r;
    t_capture c;
    char *text;

    for (i = 0; i < 100; ++i)
        want[i] = got[i] = i * 3 - 50;
    t_context("check_equal pass");
    EXPECT_LL(hx_check_equal("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.bad, 0);
    EXPECT_LL(r.unwritten, 0);
    EXPECT_LL(hx_check_equal("x", got, want, 0, &r, NULL), 0);
    t_capture_begin(&c);
    hx_check_equal("x", got, want, 100, &r, c.f);
    text = t_capture_end(&c);
    EXPECT(text[0] == '\0');   /* silent on success */
    free(text);

    t_context("check_equal one bad");
    got[37] = 5;
    EXPECT_LL(hx_check_equal("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.bad, 1);
    EXPECT_LL(r.first, 37);
    EXPECT_LL(r.got, 5);
    EXPECT_LL(r.want, want[37]);
    EXPECT_LL(r.unwritten, 0);
    t_capture_begin(&c);
    hx_check_equal("scan", got, want, 100, &r, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "scan: FAIL at n=100: first bad index 37: got 5, want "
               "61; 1 of 100 slots differ (0 never written)\n");
    EXPECT_LL(t_count_lines(text), 1);
    free(text);

    t_context("check_equal unwritten");
    got[90] = HX_POISON;
    got[95] = HX_POISON;
    EXPECT_LL(hx_check_equal("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.bad, 3);
    EXPECT_LL(r.first, 37);
    EXPECT_LL(r.unwritten, 2);
    EXPECT_LL(r.first_unwritten, 90);
    t_context("%s", "");
}

static void test_check_same(void)
{
    int want[100], got[100], i;
    hx_same r;
    t_capture c;
    char *text;

    for (i = 0; i < 100; ++i)
        want[i] = got[i] = 1000 - i * 7;
    t_context("same_values identical");
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.out_of_order, 0);
    EXPECT_LL(r.missing + r.extra + r.unwritten, 0);
    EXPECT_LL(hx_check_same_values("x", got, want, 0, &r, NULL), 0);

    t_context("same_values permuted");
    for (i = 0; i < 100; ++i)
        got[i] = want[99 - i];
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.out_of_order, 100);
    EXPECT_LL(r.missing, 0);
    EXPECT_LL(r.extra, 0);
    for (i = 0; i < 100; ++i)
        got[i] = want[i];
    got[10] = want[11];
    got[11] = want[10];
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.out_of_order, 2);

    t_context("same_values negatives and extremes");
    {
        /* The multiset compare sorts by radix with the sign bit flipped:
         * negatives, INT_MIN and INT_MAX must order like plain ints. */
        int w2[8] = {-5, 3, INT_MIN, 0, INT_MAX, -1, 3, -70000};
        int g2[8] = {3, INT_MAX, -70000, -1, 0, INT_MIN, -5, 3};
        EXPECT_LL(hx_check_same_values("x", g2, w2, 8, &r, NULL), 0);
        EXPECT_LL(r.out_of_order, 8);
        g2[0] = -3;   /* one 3 replaced: a 3 missing, a -3 extra */
        EXPECT_LL(hx_check_same_values("x", g2, w2, 8, &r, NULL), 1);
        EXPECT_LL(r.missing, 1);
        EXPECT_LL(r.extra, 1);
        EXPECT_LL(r.first_missing_value, 3);
        /* A sort in unsigned order would put -1 after 2 and make the
         * merge count two missing and two extra here. */
        w2[0] = -1;
        w2[1] = 2;
        g2[0] = 1;
        g2[1] = -1;
        EXPECT_LL(hx_check_same_values("x", g2, w2, 2, &r, NULL), 1);
        EXPECT_LL(r.missing, 1);
        EXPECT_LL(r.extra, 1);
        EXPECT_LL(r.first_missing_value, 2);
    }

    t_context("same_values missing");
    got[10] = want[10];
    got[11] = want[11];
    got[5] = 123456;   /* not in want: want[5]'s value is missing */
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.missing, 1);
    EXPECT_LL(r.extra, 1);
    EXPECT_LL(r.first_missing_index, 5);
    EXPECT_LL(r.first_missing_value, want[5]);
    EXPECT_LL(r.out_of_order, 1);
    t_capture_begin(&c);
    hx_check_same_values("atomic", got, want, 100, &r, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "atomic: FAIL at n=100");
    EXPECT_STR(text, "first: 965, reference index 5");
    EXPECT_LL(t_count_lines(text), 1);
    free(text);

    t_context("same_values unwritten");
    got[5] = want[5];
    got[70] = HX_POISON;
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.unwritten, 1);
    EXPECT_LL(r.missing, 1);
    EXPECT_LL(r.first_missing_index, 70);

    t_context("same_values multiplicity");
    {
        int w[4] = {3, 3, 4, 9}, g[4] = {4, 3, 4, 9};
        EXPECT_LL(hx_check_same_values("x", g, w, 4, &r, NULL), 1);
        EXPECT_LL(r.missing, 1);
        EXPECT_LL(r.extra, 1);
        EXPECT_LL(r.first_missing_index, 0);
        EXPECT_LL(r.first_missing_value, 3);
    }
    t_context("%s", "");
}

/* ---- guards ------------------------------------------------------------ */

#define T_GUARD 16

static void t_guarded(int *whole, size_t n)
{
    size_t i;
    for (i = 0; i < T_GUARD; ++i)
        whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
    for (i = 0; i < n; ++i)
        whole[T_GUARD + i] = (int)i;
}

static void test_guard_scan(void)
{
    int whole[2 * T_GUARD + 10];
    const size_t n = 10;
    hx_guard_report g;
    t_capture c;
    char *text;

    t_context("guard clean");
    t_guarded(whole, n);
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 0);
    EXPECT_LL(g.before + g.after, 0);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT(text[0] == '\0');
    free(text);

    t_context("guard just past the end");
    whole[T_GUARD + n] = 7;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
    EXPECT_LL(g.after, 1);
    EXPECT_LL(g.before, 0);
    EXPECT_LL(g.first_after, 10);
    EXPECT_LL(g.value_after, 7);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "  out: wrote outside the output: 1 word after the end, "
               "first at offset n+0 (index 10), value 7\n");
    free(text);

    t_context("guard further past the end");
    t_guarded(whole, n);
    whole[T_GUARD + n + 5] = 9;
    whole[T_GUARD + n + 3] = 8;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 2);
    EXPECT_LL(g.after, 2);
    EXPECT_LL(g.first_after, 13);
    EXPECT_LL(g.value_after, 8);

    t_context("guard just before the start");
    t_guarded(whole, n);
    whole[T_GUARD - 1] = -4;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
    EXPECT_LL(g.before, 1);
    EXPECT_LL(g.after, 0);
    EXPECT_LL(g.first_before, -1);
    EXPECT_LL(g.value_before, -4);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "1 word before the start, first at offset -1");
    EXPECT_STR(text, "value -4");
    free(text);

    t_context("guard both sides");
    whole[0] = 1;
    whole[T_GUARD - 3] = 2;
    whole[2 * T_GUARD + n - 1] = 3;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 4);
    EXPECT_LL(g.before, 3);
    EXPECT_LL(g.first_before, -1);
    EXPECT_LL(g.after, 1);
    EXPECT_LL(g.first_after, (long long)n + T_GUARD - 1);
    EXPECT_LL(g.value_after, 3);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT_LL(t_count_lines(text), 2);
    free(text);

    t_context("guard n = 0");
    {
        int w0[2 * T_GUARD];
        t_guarded(w0, 0);
        EXPECT_LL(hx_guard_scan(w0, 0, T_GUARD, &g), 0);
        w0[T_GUARD] = 1;
        EXPECT_LL(hx_guard_scan(w0, 0, T_GUARD, &g), 1);
        EXPECT_LL(g.first_after, 0);
    }
    t_context("%s", "");
}

/* ---- the three-way boundary check -------------------------------------- */

/* One synthetic case: the input, its reference, and a got to break. */
typedef struct {
    size_t n, a, ab, c;   /* A, A + B, C */
    int *in, *want, *got;
} t_split;

static void t_split_make(t_split *t, size_t n, hx_mix mix, uint64_t seed)
{
    t->n = n;
    t->in = t_alloc(n, sizeof *t->in);
    t->want = t_alloc(n, sizeof *t->want);
    t->got = t_alloc(n, sizeof *t->got);
    hx_fill_threeway(t->in, n, mix, seed);
    t_split3_bf(t->in, t->want, n, &t->a, &t->ab);
    t->c = n - t->ab;
    memcpy(t->got, t->want, n * sizeof *t->got);
}

static void t_split_free(t_split *t)
{
    free(t->in), free(t->want), free(t->got);
}

/* Runs the check, then the printer: both boundary lines are always there,
 * and the last line is the verdict naming the kind. Returns the text. */
static char *t_split_run(const t_split *t, const hx_guard_report *g,
                         hx_split_report *r)
{
    t_capture c;
    char *text, *last;
    char verdict[64];
    hx_split_kind k = hx_check_split3(t->in, t->got, t->n, g, r);
    EXPECT(k == r->kind);
    t_capture_begin(&c);
    hx_split_print("three-way split", r, c.f);
    text = t_capture_end(&c);
    if (r->nothing_written)
        EXPECT_STR(text, "\n  nothing was written: every slot still holds "
                   "the poison\n");
    if (r->nothing_written && !r->readings) {
        EXPECT(strstr(text, "boundary 1") == NULL);
    } else {
        EXPECT_STR(text, "  boundary 1 (negatives|zeros):  expected ");
        EXPECT_STR(text, "  boundary 2 (zeros|positives):  expected ");
    }
    EXPECT_STR(text, "three-way split, n = ");
    EXPECT_STR(text, "  first index that disagrees: ");
    EXPECT_STR(text, "  unwritten slots: ");
    EXPECT_STR(text, "  order errors inside a group: ");
    EXPECT_STR(text, "  writes outside the output: ");
    /* The verdict is the last line. */
    last = text + strlen(text);
    if (last > text)
        --last;   /* the final newline */
    while (last > text && last[-1] != '\n')
        --last;
    if (k == HX_SPLIT_PASS)
        snprintf(verdict, sizeof verdict, "PASS\n");
    else
        snprintf(verdict, sizeof verdict, "FAIL: %s: ",
                 hx_split_kind_name(k));
    t_report(strncmp(last, verdict, strlen(verdict)) == 0, __FILE__,
             __LINE__, "verdict line starts \"%s\"; it was:\n%s", verdict,
             text);
    return text;
}

#define EXPECT_KIND(r, k)                                                  \
    t_report((r).kind == (k), __FILE__, __LINE__, "kind %s, want %s",      \
             hx_split_kind_name((r).kind), hx_split_kind_name(k))

static void test_split3_check(void)
{
    t_split t;
    hx_split_report r;
    char *text;
    size_t i, a, ab, n;

    /* A thirds mix of 1000 values with distinct-enough magnitudes. */
    t_split_make(&t, 1000, HX_MIX_THIRDS, 31033);
    a = t.a, ab = t.ab, n = t.n;
    t_context("split3 input");
    EXPECT(a >= 10 && ab - a >= 10 && t.c >= 10);

    t_context("split3 correct");
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_PASS);
    EXPECT_LL(r.negatives, a);
    EXPECT_LL(r.zeros, ab - a);
    EXPECT_LL(r.positives, t.c);
    EXPECT_LL(r.want_b1, a);
    EXPECT_LL(r.want_b2, ab);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.found_b2, ab);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.cmp.bad, 0);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "ok\n  boundary 2");
    EXPECT_STR(text, "first index that disagrees: none");
    free(text);

    /* Boundary 1 early: the zeros' base is A - 1. The first zero took the
     * last negative's slot and the last zero's old slot stays poison. */
    t_context("split3 boundary 1 early");
    for (i = 0; i < ab - a; ++i)
        t.got[a - 1 + i] = 0;
    t.got[ab - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a - 1);
    EXPECT_LL(r.b1_ok, 0);
    EXPECT_LL(r.found_b2, ab);
    EXPECT_LL(r.b2_ok, 1);
    EXPECT_LL(r.cmp.first, a - 1);
    EXPECT_LL(r.cmp.got, 0);
    EXPECT_LL(r.cmp.want, t.want[a - 1]);
    EXPECT_LL(r.cmp.bad, 2);
    EXPECT_LL(r.cmp.unwritten, 1);
    EXPECT_LL(r.cmp.first_unwritten, ab - 1);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "WRONG (1 slot early)");
    EXPECT_STR(text, "FAIL: boundary: boundary 1 is 1 slot early\n");
    free(text);

    /* Boundary 1 late: the zeros start at A + 1; slot A is never written
     * and the last zero lost slot A + B to the first positive. */
    t_context("split3 boundary 1 late");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[a] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a + 1);
    EXPECT_LL(r.b1_ok, 0);
    EXPECT_LL(r.found_b2, ab);
    EXPECT_LL(r.b2_ok, 1);
    EXPECT_LL(r.cmp.first, a);
    EXPECT_LL(r.cmp.got, HX_POISON);
    EXPECT_LL(r.cmp.want, 0);
    EXPECT_STR(text, "WRONG (1 slot late)");
    /* The output is also right zeros whose first was never written. */
    EXPECT_LL(r.readings, 1);
    EXPECT_LL(r.also_unwritten, 1);
    {
        char line[128];
        snprintf(line, sizeof line, "  or: every group starts where it "
                 "should, and slot %zu, the zeros' first slot, was never "
                 "written\n", a);
        EXPECT_STR(text, line);
    }
    EXPECT_STR(text, "(the all-zero mix tells these apart: there, zeros one "
               "slot late write at offset n, past the end)\n");
    EXPECT_STR(text, "FAIL: boundary: boundary 1 is 1 slot late (another "
               "reading fits: see above)\n");
    free(text);

    /* ... and the race's other outcome: the last zero won slot A + B. */
    t_context("split3 boundary 1 late, zero wins");
    t.got[ab] = 0;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a + 1);
    EXPECT_LL(r.found_b2, ab);
    EXPECT_LL(r.b2_ok, 1);
    free(text);

    /* Boundary 2 early: the positives' base is A + B - 1; the first
     * positive won the last zero's slot, every positive sits one left and
     * the last slot stays poison. */
    t_context("split3 boundary 2 early");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < t.c; ++i)
        t.got[ab - 1 + i] = t.want[ab + i];
    t.got[n - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.b1_ok, 0);        /* unsure: see the second reading below */
    EXPECT_LL(r.found_b2, ab - 1);
    EXPECT_LL(r.b2_ok, 0);
    EXPECT_LL(r.cmp.first, ab - 1);
    EXPECT_LL(r.cmp.got, t.want[ab]);
    EXPECT_LL(r.cmp.want, 0);
    EXPECT_LL(r.cmp.unwritten, 1);
    EXPECT_LL(r.cmp.first_unwritten, n - 1);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "expected ");
    EXPECT_STR(text, "WRONG (1 slot early)");
    /* Zeros one slot early as well, their first lost to the last
     * negative, leave the same output: a second reading. */
    EXPECT_LL(r.readings, 2);
    EXPECT(r.shift[0][0] == 0 && r.shift[0][1] == 0 && r.shift[0][2] == -1);
    EXPECT(r.shift[1][0] == 0 && r.shift[1][1] == -1 && r.shift[1][2] == -1);
    EXPECT_LL(r.also_unwritten, 0);
    EXPECT_LL(r.start[1], HX_START_UNSURE);
    EXPECT(!r.b1_ok && !r.b2_ok);
    {
        char line[160];
        snprintf(line, sizeof line, "  boundary 1 (negatives|zeros):  "
                 "expected %zu, found %zu in reading 1 (ok), %zu in reading "
                 "2 (1 slot early): not known to be ok\n", a, a, a - 1);
        EXPECT_STR(text, line);
    }
    EXPECT_STR(text, "(the all-zero mix tells these apart");
    EXPECT(strstr(text, "all-positive") == NULL);
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot early (another "
               "reading fits: see above)\n");
    free(text);

    /* The race variant: the last zero won the shared slot A + B - 1, so the
     * first positive is lost and the first positive seen is at A + B; the
     * alignment still finds the base A + B - 1. */
    t_context("split3 boundary 2 early, zero wins");
    t.got[ab - 1] = 0;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.found_b2, ab - 1);
    EXPECT_LL(r.b2_ok, 0);
    EXPECT_LL(r.cmp.first, ab);
    EXPECT_LL(r.cmp.got, t.want[ab + 1]);
    EXPECT_LL(r.cmp.want, t.want[ab]);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot early\n");
    free(text);

    /* Boundary 2 late: the positives start at A + B + 1; slot A + B stays
     * poison, and (with no guards here) the last positive is simply gone. */
    t_context("split3 boundary 2 late");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = t.c; i-- > 1;)
        t.got[ab + i] = t.want[ab + i - 1];
    t.got[ab] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.b1_ok, 1);
    EXPECT_LL(r.found_b2, ab + 1);
    EXPECT_LL(r.b2_ok, 0);
    EXPECT_LL(r.cmp.first, ab);
    EXPECT_LL(r.cmp.got, HX_POISON);
    EXPECT_LL(r.cmp.want, t.want[ab]);
    EXPECT_STR(text, "WRONG (1 slot late)");
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot late\n");
    free(text);

    /* The same kernel with guards: its last positive landed at n. A write
     * outside the output outranks everything else. */
    t_context("split3 write past the end");
    {
        int *whole = t_alloc(n + 2 * T_GUARD, sizeof *whole);
        hx_guard_report g;
        for (i = 0; i < T_GUARD; ++i)
            whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
        memcpy(whole + T_GUARD, t.got, n * sizeof *t.got);
        whole[T_GUARD + n] = t.want[n - 1];
        EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
        text = t_split_run(&t, &g, &r);
        EXPECT_KIND(r, HX_SPLIT_OUT_OF_BOUNDS);
        EXPECT_LL(r.guard.after, 1);
        EXPECT_LL(r.guard.first_after, n);
        EXPECT_LL(r.guard.value_after, t.want[n - 1]);
        EXPECT_LL(r.found_b2, ab + 1);
        EXPECT_LL(r.b2_ok, 0);
        EXPECT_STR(text, "1 word after the end, nearest at index 1000 (n+0)");
        EXPECT_STR(text, "FAIL: out_of_bounds: 1 write past the end");
        free(text);

        /* A write just before the start, on an otherwise right output. */
        t_context("split3 write before the start");
        memcpy(t.got, t.want, n * sizeof *t.got);
        for (i = 0; i < T_GUARD; ++i)
            whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
        memcpy(whole + T_GUARD, t.got, n * sizeof *t.got);
        whole[T_GUARD - 1] = -5;
        EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
        text = t_split_run(&t, &g, &r);
        EXPECT_KIND(r, HX_SPLIT_OUT_OF_BOUNDS);
        EXPECT_LL(r.guard.before, 1);
        EXPECT_LL(r.guard.first_before, -1);
        EXPECT_LL(r.guard.value_before, -5);
        EXPECT(r.b1_ok && r.b2_ok);
        EXPECT_LL(r.cmp.bad, 0);
        EXPECT_STR(text, "1 word before the start, nearest at index -1");
        EXPECT_STR(text, "FAIL: out_of_bounds: 1 write before the start");
        free(text);

        /* A clean guard report changes nothing. */
        t_context("split3 clean guards");
        whole[T_GUARD - 1] = HX_GUARD_WORD;
        EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 0);
        text = t_split_run(&t, &g, &r);
        EXPECT_KIND(r, HX_SPLIT_PASS);
        EXPECT_STR(text, "writes outside the output: none");
        free(text);
        free(whole);
    }

    /* Two groups swapped: zeros first, then negatives, then positives. */
    t_context("split3 swapped zeros/negatives");
    for (i = 0; i < ab - a; ++i)
        t.got[i] = 0;
    for (i = 0; i < a; ++i)
        t.got[ab - a + i] = t.want[i];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_SWAPPED);
    EXPECT_LL(r.swapped_first, 1);
    EXPECT_LL(r.swapped_second, 0);
    EXPECT_STR(text, "FAIL: swapped: zeros come before negatives\n");
    free(text);

    t_context("split3 swapped positives/zeros");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < t.c; ++i)
        t.got[a + i] = t.want[ab + i];
    for (i = a + t.c; i < n; ++i)
        t.got[i] = 0;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_SWAPPED);
    EXPECT_LL(r.swapped_first, 2);
    EXPECT_LL(r.swapped_second, 1);
    EXPECT_STR(text, "FAIL: swapped: positives come before zeros\n");
    free(text);

    /* Order wrong inside a group: two negatives exchanged, then two
     * positives as well. */
    t_context("split3 order (negatives)");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[3] = t.want[4];
    t.got[4] = t.want[3];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_ORDER);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.order_errors, 2);
    EXPECT_LL(r.cmp.bad, 2);
    EXPECT_LL(r.cmp.first, 3);
    EXPECT_LL(r.cmp.got, t.want[4]);
    EXPECT_LL(r.cmp.want, t.want[3]);
    EXPECT_STR(text, "order errors inside a group: 2\n");
    EXPECT_STR(text, "FAIL: order: 2 slots hold the right group's values in "
               "the wrong order\n");
    free(text);

    t_context("split3 order (positives reversed)");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < t.c; ++i)
        t.got[ab + i] = t.want[n - 1 - i];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_ORDER);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.order_errors, r.cmp.bad);
    EXPECT_LL(r.cmp.first, ab);
    free(text);

    /* Positives in a random order (an atomic counter inside the group):
     * chance matches near the boundary must not make it a boundary
     * error. Several shuffles, so a lucky one cannot hide a bug. */
    {
        int *perm = t_alloc(t.c, sizeof *perm);
        uint64_t seed;
        for (seed = 1; seed <= 20; ++seed) {
            t_context("split3 order (positives shuffled, seed %d)",
                      (int)seed);
            memcpy(t.got, t.want, n * sizeof *t.got);
            hx_fill_permutation(perm, t.c, seed);
            for (i = 0; i < t.c; ++i)
                t.got[ab + i] = t.want[ab + (size_t)perm[i]];
            text = t_split_run(&t, NULL, &r);
            EXPECT_KIND(r, HX_SPLIT_ORDER);
            EXPECT_LL(r.found_b2, ab);
            EXPECT_LL(r.order_errors, r.cmp.bad);
            free(text);
        }
        free(perm);
    }

    /* An unwritten slot in the middle of the negatives. */
    t_context("split3 unwritten slot");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[a / 2] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.cmp.bad, 1);
    EXPECT_LL(r.cmp.unwritten, 1);
    EXPECT_LL(r.cmp.first_unwritten, a / 2);
    EXPECT_LL(r.cmp.first, a / 2);
    EXPECT_LL(r.cmp.want, t.want[a / 2]);
    EXPECT_STR(text, "unwritten slots: 1 (first at ");
    EXPECT_STR(text, "FAIL: unwritten: 1 slot was never written (first at ");
    free(text);

    /* A group missing: the zeros' slots never written. */
    t_context("split3 zeros missing");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = a; i < ab; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.cmp.first, a);
    EXPECT_LL(r.cmp.unwritten, ab - a);
    EXPECT_LL(r.unwritten_in[1], ab - a);
    EXPECT_LL(r.start[1], HX_START_UNKNOWN);
    EXPECT(!r.b1_ok && r.b2_ok);
    EXPECT_LL(r.readings, 0);
    EXPECT_STR(text, "boundary 1 (negatives|zeros):  expected 347, not found "
               "(no zero in the output)\n");
    EXPECT_STR(text, "FAIL: unwritten: the zeros were never written\n");
    free(text);

    t_context("split3 negatives missing");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < a; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.start[0], HX_START_UNKNOWN);
    EXPECT_STR(text, "negatives' start:  expected 0, not found (no negative "
               "in the output)\n");
    EXPECT_STR(text, "FAIL: unwritten: the negatives were never written\n");
    free(text);

    t_context("split3 positives never written, one more slot");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = ab; i < n; ++i)
        t.got[i] = HX_POISON;
    t.got[3] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.unwritten_in[0], 1);
    EXPECT_LL(r.unwritten_in[2], n - ab);
    EXPECT_STR(text, "FAIL: unwritten: the positives were never written; 1 "
               "more slot was never written\n");
    free(text);

    t_context("split3 unwritten slots in two groups");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[5] = t.got[ab + 7] = t.got[ab + 9] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT(r.b1_ok && r.b2_ok && r.readings == 0);
    EXPECT_STR(text, "unwritten slots: 3 (first at 5; 1 of the negatives', 2 "
               "of the positives')\n");
    EXPECT_STR(text, "FAIL: unwritten: 3 slots were never written (first at "
               "5): 1 of the negatives', 2 of the positives'\n");
    free(text);

    t_context("split3 positives missing");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = ab; i < n; ++i)
        t.got[i] = 0;   /* zeros where the positives belong */
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_GROUP_MISSING);
    EXPECT_LL(r.missing_group, 2);
    free(text);

    /* Interleaved: a negative among the positives. */
    t_context("split3 interleaved");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[ab + 5] = t.want[0];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_MISMATCH);
    EXPECT_LL(r.cmp.first, ab + 5);
    EXPECT_LL(r.cmp.got, t.want[0]);
    EXPECT_LL(r.cmp.want, t.want[ab + 5]);
    EXPECT_STR(text, "FAIL: mismatch: the groups are interleaved: slot ");
    EXPECT_STR(text, "holds a negative where the positives belong");
    free(text);

    /* A value the group does not have, in an otherwise right output. */
    t_context("split3 foreign value");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[ab + 5] = 1000001;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_MISMATCH);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.cmp.bad, 1);
    EXPECT_LL(r.cmp.first, ab + 5);
    EXPECT_LL(r.cmp.got, 1000001);
    EXPECT_STR(text, "FAIL: mismatch: a group holds a value its input group "
               "does not have");
    free(text);

    /* The starter: nothing written at all. */
    t_context("split3 nothing written");
    for (i = 0; i < n; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.cmp.unwritten, n);
    EXPECT_LL(r.cmp.first, 0);
    EXPECT_LL(r.found_b1, n);
    EXPECT_LL(r.found_b2, n);
    EXPECT(!r.b1_ok && !r.b2_ok);
    EXPECT_LL(r.nothing_written, 1);
    EXPECT_LL(r.readings, 0);
    EXPECT(r.start[0] == HX_START_UNKNOWN && r.start[1] == HX_START_UNKNOWN &&
           r.start[2] == HX_START_UNKNOWN);
    EXPECT(strstr(text, "WRONG") == NULL && strstr(text, " ok") == NULL);
    EXPECT_STR(text, "FAIL: unwritten: nothing was written: every slot still "
               "holds the poison\n");
    {
        char brief[160];
        hx_split_brief(brief, sizeof brief, &r);
        EXPECT(strcmp(brief, "nothing was written: every slot still holds "
                      "the poison") == 0);
    }
    free(text);
    t_split_free(&t);

    /* Empty input: nothing to place, nothing wrong. */
    t_context("split3 n = 0");
    t_split_make(&t, 0, HX_MIX_THIRDS, 1);
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_PASS);
    EXPECT(r.found_b1 == 0 && r.found_b2 == 0 && r.b1_ok && r.b2_ok);
    free(text);
    t_split_free(&t);

    /* Every mix, correct, at sizes that end every way: PASS. */
    {
        int m;
        size_t si;
        for (m = 0; m < HX_MIX_COUNT; ++m)
            for (si = 0; si < T_NSIZES; ++si) {
                t_context("split3 correct %s n=%zu", hx_mix_name((hx_mix)m),
                          t_sizes[si]);
                t_split_make(&t, t_sizes[si], (hx_mix)m, 5 + si);
                text = t_split_run(&t, NULL, &r);
                EXPECT_KIND(r, HX_SPLIT_PASS);
                EXPECT(r.b1_ok && r.b2_ok);
                EXPECT_LL(r.found_b1, t.a);
                EXPECT_LL(r.found_b2, t.ab);
                free(text);
                t_split_free(&t);
            }
    }

    /* Boundary 2 early when there are no zeros: the positives overwrite
     * the last negative. */
    t_context("split3 no zeros, boundary 2 early");
    t_split_make(&t, 1001, HX_MIX_NO_ZEROS, 8);
    a = t.a, ab = t.ab, n = t.n;
    for (i = 0; i < t.c; ++i)
        t.got[ab - 1 + i] = t.want[ab + i];
    t.got[n - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b2, ab - 1);
    EXPECT_LL(r.found_b1, ab);     /* no zeros: their start does not move */
    EXPECT(r.b1_ok && !r.b2_ok);
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot early\n");
    free(text);
    t_split_free(&t);

    t_context("split3 kind names");
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_PASS), "pass") == 0);
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_OUT_OF_BOUNDS),
                  "out_of_bounds") == 0);
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_GROUP_MISSING),
                  "group_missing") == 0);
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_MISMATCH), "mismatch") == 0);
    t_context("%s", "");
}

/* ---- off-by-one kernels, simulated ------------------------------------- */

/* Runs on the host the scatter a kernel with a wrong base does: group k
 * (0 negatives, 1 zeros, 2 positives) goes to its right slot plus d[k],
 * as a base one slot too small puts a group one slot early. whole receives
 * T_GUARD guard words, the n output slots (poisoned first), T_GUARD guard
 * words. Two elements that land on one slot race: with last_wins the one
 * later in input order stays, else the earlier one. */
static void t_shifted_kernel(const int *in, size_t n, const int d[3],
                             int last_wins, int *whole)
{
    size_t i, a = 0, b = 0, rank[3] = {0, 0, 0};
    for (i = 0; i < T_GUARD; ++i)
        whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
    for (i = 0; i < n; ++i) {
        whole[T_GUARD + i] = HX_POISON;
        a += in[i] < 0;
        b += in[i] == 0;
    }
    for (i = 0; i < n; ++i) {
        const int k = in[i] < 0 ? 0 : in[i] == 0 ? 1 : 2;
        const size_t base = k == 0 ? 0 : k == 1 ? a : a + b;
        const long long slot = (long long)(base + rank[k]++) + d[k];
        int *w = whole + T_GUARD + slot;
        const int untouched = slot >= 0 && slot < (long long)n
                              ? HX_POISON : HX_GUARD_WORD;
        if (last_wins || *w == untouched)
            *w = in[i];
    }
}

static void test_split3_off_by_one(void)
{
    static const struct {
        hx_mix mix;
        size_t n;
    } cases[] = {
        {HX_MIX_THIRDS, 257}, {HX_MIX_THIRDS, 1000}, {HX_MIX_THIRDS, 1001},
        {HX_MIX_THIRDS, 65537}, {HX_MIX_THIRDS, 3}, {HX_MIX_THIRDS, 31},
        {HX_MIX_ENDS, 11}, {HX_MIX_ENDS, 1001}, {HX_MIX_NO_ZEROS, 1001},
        {HX_MIX_ALL_ZERO, 1}, {HX_MIX_ALL_ZERO, 1000}, {HX_MIX_ALL_POS, 1000},
        {HX_MIX_ALL_NEG, 1000},
    };
    static const struct {
        int k, d;
        const char *name;
    } kernels[] = {
        {1, -1, "zeros one slot early"}, {1, +1, "zeros one slot late"},
        {2, -1, "positives one slot early"}, {2, +1, "positives one slot late"},
    };
    static const char *const names[3] = {"negatives", "zeros", "positives"};
    size_t c, kk;
    int race;

    for (c = 0; c < sizeof cases / sizeof *cases; ++c)
        for (kk = 0; kk < sizeof kernels / sizeof *kernels; ++kk) {
            const size_t n = cases[c].n;
            const int k = kernels[kk].k, d = kernels[kk].d;
            const int thirds = cases[c].mix == HX_MIX_THIRDS && n >= 257;
            int *whole[2], shift[3] = {0, 0, 0};
            t_split t;
            size_t i, start[3], size[3];
            t_split_make(&t, n, cases[c].mix, 7 + c);
            start[0] = 0, start[1] = t.a, start[2] = t.ab;
            size[0] = t.a, size[1] = t.ab - t.a, size[2] = t.c;
            shift[k] = d;
            whole[0] = t_alloc(n + 2 * T_GUARD, sizeof *whole[0]);
            whole[1] = t_alloc(n + 2 * T_GUARD, sizeof *whole[1]);
            for (race = 0; race < 2; ++race) {
                hx_split_report r;
                hx_guard_report g;
                char *text, line[160];
                const int outside = d < 0 ? start[k] == 0
                                          : start[k] + size[k] == n;
                const long long taken = d < 0 ? (long long)start[k] - 1
                                              : (long long)(start[k] + size[k]);
                const size_t left = d < 0 ? start[k] + size[k] - 1 : start[k];
                int found_true = 0;
                t_context("%s, %s writer wins, mix %s, n=%zu",
                          kernels[kk].name, race ? "last" : "first",
                          hx_mix_name(cases[c].mix), n);
                t_shifted_kernel(t.in, n, shift, race, whole[race]);
                hx_guard_scan(whole[race], n, T_GUARD, &g);
                memcpy(t.got, whole[race] + T_GUARD, n * sizeof *t.got);
                text = t_split_run(&t, &g, &r);
                if (size[k] == 0) {
                    /* No element of the shifted group: nothing moves. */
                    EXPECT_KIND(r, HX_SPLIT_PASS);
                    free(text);
                    continue;
                }
                EXPECT_KIND(r, outside ? HX_SPLIT_OUT_OF_BOUNDS
                                       : HX_SPLIT_BOUNDARY);
                /* The flagged boundary is the shifted group's start, and
                 * nothing calls it ok. */
                EXPECT(r.start[k] == HX_START_WRONG);
                EXPECT(k == 1 ? !r.b1_ok : !r.b2_ok);
                for (i = 0; i < r.readings && i < HX_SPLIT_READINGS; ++i)
                    found_true |= memcmp(r.shift[i], shift, sizeof shift) == 0;
                EXPECT(found_true);
                if (r.readings == 1 || thirds) {
                    /* Unambiguous, or the thirds mix: the first reading
                     * is this kernel, and the other boundary is not wrong
                     * (ok, or unsure where a second reading shifts it
                     * too: positives one slot early whose first took the
                     * last zero's slot could also be zeros and positives
                     * early). */
                    EXPECT(memcmp(r.shift[0], shift, sizeof shift) == 0);
                    EXPECT_LL(r.found_start[k], (long long)start[k] + d);
                    EXPECT(r.start[3 - k] == HX_START_OK ||
                           (r.readings > 1 &&
                            r.start[3 - k] == HX_START_UNSURE));
                    EXPECT(r.start[0] == HX_START_OK);
                    if (r.readings == 1)
                        EXPECT(k == 1 ? r.b2_ok : r.b1_ok);
                }
                /* The slot the moved element took, and the one left. */
                if (outside) {
                    if (d < 0)
                        snprintf(line, sizeof line, "went to offset -1, just "
                                 "before the output");
                    else
                        snprintf(line, sizeof line, "went to offset n (index "
                                 "%zu), just past the end", n);
                    EXPECT_STR(text, line);
                    EXPECT_LL(d < 0 ? r.guard.first_before
                                    : r.guard.first_after, taken);
                } else {
                    snprintf(line, sizeof line, "    slot %lld holds ", taken);
                    EXPECT_STR(text, line);
                    /* Where readings disagree (one zero, lost to either
                     * neighbour), the first may shift the other way. */
                    snprintf(line, sizeof line, "boundary %d is 1 slot %s", k,
                             r.shift[0][k] < 0 ? "early" : "late");
                    EXPECT_STR(text, line);
                }
                if (t.got[left] == HX_POISON) {
                    snprintf(line, sizeof line, "    slot %zu, the %s' %s "
                             "slot, was never written\n", left, names[k],
                             d < 0 ? "last" : "first");
                    EXPECT_STR(text, line);
                }
                /* A write outside is no unwritten slot: the right split
                 * with holes writes nothing there. */
                if (outside)
                    EXPECT_LL(r.also_unwritten, 0);
                /* What a write before the output means for this split. */
                if (outside && d < 0 && k == 1)
                    EXPECT_STR(text, "with no negatives in this input the "
                               "zeros start at slot 0");
                free(text);

                /* Without guards the same kernel is a boundary error:
                 * its write outside is unseen. */
                if (thirds) {
                    text = t_split_run(&t, NULL, &r);
                    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
                    EXPECT(r.start[k] == HX_START_WRONG);
                    EXPECT_LL(r.found_start[k], (long long)start[k] + d);
                    free(text);
                }
            }
            /* Both race outcomes were tried: where two writes share a
             * slot (all but positives late, whose last write goes past
             * the end), the two outputs differ. */
            if (thirds && !(k == 2 && d > 0)) {
                t_context("%s, mix thirds, n=%zu: the race", kernels[kk].name,
                          n);
                EXPECT(memcmp(whole[0], whole[1],
                              (n + 2 * T_GUARD) * sizeof *whole[0]) != 0);
            }
            free(whole[0]);
            free(whole[1]);
            t_split_free(&t);
        }
    t_context("%s", "");
}

/* The one-line summary a table of runs prints. */
static void test_split3_brief(void)
{
    t_split t;
    hx_split_report r;
    char brief[160], *text;
    size_t i;
    t_context("split3 brief");
    t_split_make(&t, 1000, HX_MIX_THIRDS, 31033);
    text = t_split_run(&t, NULL, &r);
    hx_split_brief(brief, sizeof brief, &r);
    EXPECT(strcmp(brief, "boundary 1 at 347 ok, boundary 2 at 698 ok") == 0);
    free(text);
    /* Zeros one slot early, the last negative winning: the last zero's
     * slot is poison, nothing else differs. */
    t.got[t.ab - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    hx_split_brief(brief, sizeof brief, &r);
    EXPECT_STR(brief, "boundary 1 at 346, want 347 WRONG, boundary 2 at 698 "
               "ok (2 readings)");
    free(text);
    memcpy(t.got, t.want, t.n * sizeof *t.got);
    for (i = t.a; i < t.ab; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    hx_split_brief(brief, sizeof brief, &r);
    EXPECT_STR(brief, "boundary 1 not found (no zero written), boundary 2 at "
               "698 ok");
    free(text);
    hx_split_brief(brief, 10, &r);
    EXPECT_LL(strlen(brief), 9);
    t_split_free(&t);
    t_context("%s", "");
}

/* ---- sizing and the table (no CUDA calls) ------------------------------ */

static hx_device t_fake(size_t l2, size_t free_mem, int sms)
{
    hx_device d;
    memset(&d, 0, sizeof d);
    d.l2_bytes = l2;
    d.free_mem = d.total_mem = free_mem;
    d.sms = sms;
    return d;
}

static void test_sizing(void)
{
    const size_t M = (size_t)1 << 20, G = (size_t)1 << 30;
    char why[256];
    hx_device d;
    size_t n;
    t_capture c;
    char *text;

    t_context("default n, 60 MiB L2");
    d = t_fake(60 * M, 139 * G, 132);
    n = hx_default_n(&d, 12, why, sizeof why);
    EXPECT_LL(n, (size_t)1 << 28);
    EXPECT_STR(why, "2^28 elements: each 1024 MiB buffer is 17.1x the 60 MiB "
               "L2, so timings measure device memory");
    t_context("default n, 4 MiB L2");
    d = t_fake(4 * M, 14 * G, 40);
    EXPECT_LL(hx_default_n(&d, 12, why, sizeof why), (size_t)1 << 24);
    t_context("default n, 40 MiB L2");
    d = t_fake(40 * M, 39 * G, 108);
    EXPECT_LL(hx_default_n(&d, 16, why, sizeof why), (size_t)1 << 28);
    t_context("default n, halved for free memory");
    d = t_fake(60 * M, 2 * G, 132);
    n = hx_default_n(&d, 12, why, sizeof why);
    EXPECT_LL(n, (size_t)1 << 26);   /* 12 * 2^26 = 768 MiB <= 1 GiB */
    EXPECT_STR(why, "halved from 2^28");
    t_context("default n, capped");
    d = t_fake(512 * M, 139 * G, 132);
    EXPECT_LL(hx_default_n(&d, 4, why, sizeof why), (size_t)1 << 30);

    t_context("fits");
    d = t_fake(60 * M, 1000 * M, 132);   /* spare: 64 MiB */
    EXPECT_LL(hx_fits(&d, 936 * M), 1);
    EXPECT_LL(hx_fits(&d, 936 * M + 1), 0);
    EXPECT_LL(hx_fits(&d, (size_t)-1), 0);
    d = t_fake(60 * M, 10 * G, 132);     /* spare: 5% = 512 MiB */
    EXPECT_LL(hx_fits(&d, 10 * G - 512 * M), 1);
    EXPECT_LL(hx_fits(&d, 10 * G - 512 * M + 1), 0);

    t_context("warn if cached");
    d = t_fake(60 * M, 10 * G, 132);
    t_capture_begin(&c);
    EXPECT_LL(hx_warn_if_cached(&d, 120 * M, c.f), 1);
    EXPECT_LL(hx_warn_if_cached(&d, 120 * M + 1, c.f), 0);
    text = t_capture_end(&c);
    EXPECT_STR(text, "WARNING: each buffer (120 MiB) fits in the L2 (60 MiB): "
               "timings measure the cache, not device memory\n");
    EXPECT_LL(t_count_lines(text), 1);
    free(text);

    t_context("grid");
    d = t_fake(60 * M, 10 * G, 132);
    EXPECT_LL(hx_grid_for(&d, 0, 256), 1);
    EXPECT_LL(hx_grid_for(&d, 1, 256), 1);
    EXPECT_LL(hx_grid_for(&d, 1000, 256), 4);
    EXPECT_LL(hx_grid_for(&d, 1024, 256), 4);
    EXPECT_LL(hx_grid_for(&d, (size_t)1 << 28, 256), 132 * 32);
    EXPECT_LL(hx_grid_for(&d, (size_t)1 << 28, 1024), 132 * 8);
    t_context("%s", "");
}

/* The no-GPU lines, from made-up facts: which reason, and what it names. */
static void test_no_gpu_lines(void)
{
    hx_gpu_facts f;
    char why[512];

    t_context("driver needed");
    EXPECT_LL(hx_driver_needed(13000), 580);
    EXPECT_LL(hx_driver_needed(13020), 580);
    EXPECT_LL(hx_driver_needed(12090), 525);
    EXPECT_LL(hx_driver_needed(12000), 525);
    EXPECT_LL(hx_driver_needed(11080), 450);
    EXPECT_LL(hx_driver_needed(14000), 0);

    /* No driver at all: version 0, and the runtime calls it insufficient. */
    t_context("no driver");
    memset(&f, 0, sizeof f);
    f.runtime_version = 13000;
    f.err = cudaErrorInsufficientDriver;
    f.call = "cudaGetDeviceCount";
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no NVIDIA driver is installed");
    EXPECT_STR(why, "this program's CUDA 13.0 runtime needs NVIDIA driver 580 "
               "or newer");
    EXPECT(strstr(why, "insufficient") == NULL);
    EXPECT(strstr(why, "too old") == NULL);
    f.runtime_version = 12040;
    hx_gpu_unusable(&f, why, sizeof why);
    EXPECT_STR(why, "CUDA 12.4 runtime needs NVIDIA driver 525 or newer");

    t_context("stub libcuda");
    f.runtime_version = 13000;
    f.err = cudaErrorStubLibrary;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no NVIDIA driver: the libcuda found is the CUDA "
               "Toolkit's stub");
    EXPECT_STR(why, "driver 580 or newer");

    /* A CUDA 12.4 driver under a 13.0 runtime: too old, by name. */
    t_context("driver too old");
    memset(&f, 0, sizeof f);
    f.runtime_version = 13000;
    f.driver_version = 12040;
    f.err = cudaErrorInsufficientDriver;
    f.call = "cudaGetDeviceCount";
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "the NVIDIA driver is too old: it supports CUDA 12.4, and "
               "this program's CUDA 13.0 runtime needs NVIDIA driver 580 or "
               "newer");
    EXPECT_STR(why, "a CUDA Toolkit of 12.x");
    /* Older major, even where the runtime has not said so yet. */
    f.err = cudaSuccess;
    f.count = 1;
    f.major = 9;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "too old");
    /* Same major, older minor: minor version compatibility runs it. */
    f.driver_version = 13000;
    f.runtime_version = 13020;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 0);

    t_context("no device");
    memset(&f, 0, sizeof f);
    f.runtime_version = 13000;
    f.driver_version = 13000;
    f.err = cudaErrorNoDevice;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no CUDA device: the NVIDIA driver (CUDA 13.0) is "
               "installed but sees no GPU");
    f.visible = "7";
    hx_gpu_unusable(&f, why, sizeof why);
    EXPECT_STR(why, "with CUDA_VISIBLE_DEVICES=\"7\"");
    f.err = cudaSuccess;
    f.count = 0;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no CUDA device");

    t_context("compute capability");
    memset(&f, 0, sizeof f);
    f.runtime_version = 12080;
    f.driver_version = 12080;
    f.count = 2;
    f.name = "Tesla P100-PCIE-16GB";
    f.major = 6;
    f.minor = 0;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "GPU 0 (Tesla P100-PCIE-16GB) has compute capability 6.0; "
               "the labs need 7.5 or newer");
    f.major = 7;
    f.minor = 0;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    f.minor = 5;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 0);
    f.major = 9;
    f.minor = 0;
    EXPECT_LL(hx_gpu_unusable(&f, NULL, 0), 0);

    t_context("other failures");
    f.err = cudaErrorDevicesUnavailable;
    f.call = "cudaMemGetInfo";
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no usable CUDA GPU: cudaMemGetInfo failed: "
               "cudaErrorDevicesUnavailable: ");
    EXPECT_STR(why, "busy");
    t_context("%s", "");
}

static void test_table(void)
{
    t_capture c;
    char *text;
    hx_timing copy, row, slow;
    double odd[5] = {3.0, 1.0, 5.0, 2.0, 4.0};
    double even[4] = {4.0, 1.0, 3.0, 2.0};
    double one[1] = {7.5};
    t_context("table");

    hx_timing_from(odd, 5, 2, &row);
    EXPECT(row.median_ms == 3.0 && row.min_ms == 1.0 && row.max_ms == 5.0);
    EXPECT(row.mean_ms == 3.0 && row.runs == 5 && row.warmup == 2);
    hx_timing_from(even, 4, 0, &row);
    EXPECT(row.median_ms == 2.5 && row.min_ms == 1.0 && row.max_ms == 4.0);
    hx_timing_from(one, 1, 0, &row);
    EXPECT(row.median_ms == 7.5 && row.min_ms == 7.5 && row.max_ms == 7.5);

    copy.median_ms = 0.512; copy.min_ms = 0.5; copy.max_ms = 0.6;
    row.median_ms = 1.7; row.min_ms = 1.65; row.max_ms = 2.25;
    slow.median_ms = 3.0; slow.min_ms = 3.0; slow.max_ms = 3.0;
    t_capture_begin(&c);
    hx_table_begin(c.f, "where the time goes (n = 268435456)");
    hx_table_row(c.f, "copy", 1, &copy, copy.median_ms, 0.384);
    hx_table_row(c.f, "a row name exactly forty characters long", 3, &row,
                 copy.median_ms, 0.85);
    hx_table_note(c.f, "note: one pass");
    hx_table_row(c.f, "no copy", 2, &slow, 0.0, -1.0);
    hx_table_end(c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "where the time goes (n = 268435456)\n"
        "row                                      launches median ms   min ms   max ms  x copy x floor\n"
        "---------------------------------------------------------------------------------------------\n"
        "copy                                            1     0.512    0.500    0.600    1.00    1.33\n"
        "a row name exactly forty characters long        3     1.700    1.650    2.250    3.32    2.00\n"
        "    note: one pass\n"
        "no copy                                         2     3.000    3.000    3.000       -       -\n"
        "---------------------------------------------------------------------------------------------\n");
    free(text);
    EXPECT(hx_gbps(1e9, 1000.0) == 1.0);
    EXPECT(hx_gbps(1e9, 0.0) == 0.0);
    EXPECT(hx_floor_ms(1000.0, 2000.0, 4.0) == 2.0);
    EXPECT(hx_floor_ms(1000.0, 0.0, 4.0) == 0.0);
    t_context("%s", "");
}

/* ---- the GPU lock (hx_lock.c) ------------------------------------------ */

/* A child that opens the lock file, takes kind (waiting), writes 'T' to
 * its status pipe, then holds the lock until its control pipe is written
 * or closed. */
typedef struct {
    pid_t pid;
    int status, control;   /* parent's ends */
} t_holder;

static t_holder t_hold(const char *path, hx_lock_kind kind)
{
    int st[2], ct[2];
    t_holder h = {-1, -1, -1};
    if (pipe(st) || pipe(ct))
        return h;
    h.pid = fork();
    if (h.pid == 0) {
        close(st[0]);
        close(ct[1]);
        hx_gpu_lock l;
        char c = 'T', go;
        if (hx_gpu_lock_open(&l, path) || hx_gpu_lock_take(&l, kind))
            c = 'E';
        if (write(st[1], &c, 1) != 1) _exit(3);
        if (read(ct[0], &go, 1) < 0) _exit(3);
        hx_gpu_lock_close(&l);
        _exit(0);
    }
    close(st[1]);
    close(ct[0]);
    h.status = st[0];
    h.control = ct[1];
    return h;
}

static char t_holder_state(const t_holder *h)
{
    char c = '?';
    if (read(h->status, &c, 1) != 1) c = '?';
    return c;
}

static int t_holder_end(t_holder *h)
{
    int ws = 0;
    char go = 'G';
    if (write(h->control, &go, 1) != 1) return -1;
    close(h->control);
    close(h->status);
    waitpid(h->pid, &ws, 0);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static void t_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Tries kind from this process until it is busy (1) or 5 s pass (0). */
static int t_becomes_busy(hx_gpu_lock *l, hx_lock_kind kind)
{
    for (int k = 0; k < 500; ++k) {
        const int rc = hx_gpu_lock_try(l, kind);
        if (rc == 1) return 1;
        if (rc == 0) hx_gpu_lock_release(l);
        t_sleep_ms(10);
    }
    return 0;
}

static void test_gpu_lock(void)
{
    t_context("the GPU lock");
    hx_gpu_lock off;
    EXPECT(hx_gpu_lock_open(&off, NULL) == 0 && off.fd == -1);
    EXPECT(hx_gpu_lock_take(&off, HX_LOCK_EXCLUSIVE) == 0);
    hx_gpu_lock_release(&off);
    EXPECT(hx_gpu_lock_try(&off, HX_LOCK_SHARED) == 0);
    hx_gpu_lock_close(&off);

    char path[] = "/tmp/hx-lock-test-XXXXXX";
    const int fd = mkstemp(path);
    EXPECT(fd >= 0);
    if (fd < 0) return;
    close(fd);
    hx_gpu_lock me;
    EXPECT(hx_gpu_lock_open(&me, path) == 0 && me.fd >= 0);
    hx_gpu_lock bad;
    EXPECT(hx_gpu_lock_open(&bad, "/nonexistent-dir/hx.lock") == -1);

    /* Alone: both kinds are free; taking twice is refused. */
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 0);
    EXPECT(hx_gpu_lock_take(&me, HX_LOCK_SHARED) == -1 && errno == EINVAL);
    hx_gpu_lock_release(&me);

    /* Another process shares: shared is free, exclusive is busy. */
    t_holder a = t_hold(path, HX_LOCK_SHARED);
    EXPECT(t_holder_state(&a) == 'T');
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 0);
    hx_gpu_lock_release(&me);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 1);
    EXPECT(me.held == HX_LOCK_NONE);

    /* A process waiting for exclusive closes the turnstile: new shared
     * takers queue behind it, though only a shared lock is held. */
    t_holder b = t_hold(path, HX_LOCK_EXCLUSIVE);
    EXPECT(t_becomes_busy(&me, HX_LOCK_SHARED));
    EXPECT_LL(t_holder_end(&a), 0);           /* the sharer leaves ... */
    EXPECT(t_holder_state(&b) == 'T');        /* ... the waiter gets it */
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 1);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 1);
    EXPECT_LL(t_holder_end(&b), 0);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 0);
    hx_gpu_lock_release(&me);

    /* Exclusive within a limit: a sharer that stays (a kernel that never
     * ends until its watchdog) makes it give up, leaving the turnstile
     * open for other sharers; once the sharer leaves, it is taken. */
    t_holder d = t_hold(path, HX_LOCK_SHARED);
    EXPECT(t_holder_state(&d) == 'T');
    EXPECT(hx_gpu_lock_take_within(&me, HX_LOCK_EXCLUSIVE, 0.05) == 1);
    EXPECT(me.held == HX_LOCK_NONE);
    t_holder e = t_hold(path, HX_LOCK_SHARED);
    EXPECT(t_holder_state(&e) == 'T');
    EXPECT_LL(t_holder_end(&e), 0);
    EXPECT_LL(t_holder_end(&d), 0);
    EXPECT(hx_gpu_lock_take_within(&me, HX_LOCK_EXCLUSIVE, 5.0) == 0);
    EXPECT(me.held == HX_LOCK_EXCLUSIVE);
    hx_gpu_lock_release(&me);

    /* A holder killed (a run past its time limit) leaves nothing held. */
    t_holder c = t_hold(path, HX_LOCK_EXCLUSIVE);
    EXPECT(t_holder_state(&c) == 'T');
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 1);
    kill(c.pid, SIGKILL);
    waitpid(c.pid, NULL, 0);
    close(c.control);
    close(c.status);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 0);
    hx_gpu_lock_close(&me);
    unlink(path);
    t_context("%s", "");
}

int main(void)
{
    test_scan();
    test_mark_compact_partition();
    test_split3_ref();
    test_gather_scatter();
    test_rng();
    test_generators();
    test_parse_size();
    test_parse_args();
    test_check_equal();
    test_check_same();
    test_guard_scan();
    test_split3_check();
    test_split3_off_by_one();
    test_split3_brief();
    test_sizing();
    test_no_gpu_lines();
    test_table();
    test_gpu_lock();
    printf("%ld passed, %ld failed\n", t_passed, t_failed);
    return t_failed > 0;
}
