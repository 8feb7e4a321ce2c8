/* solution/onepass.cu: the exercise's three-way split (negatives, zeros,
 * positives, each group in input order) three ways, checked against the
 * host, then timed on the harness's bench. Maintainers only: it shows the
 * answer's ranks, and the student copy has no solution/ folder.
 * Rows (after the bench's yardsticks, cudaMemcpy and copyInts):
 *   countSplitRanges  the one pass's counting pass alone (floor: n ints)
 *   two-scan split    the exercise's way: two marks, two course scans
 *                     (tile_scan.h), scatterThreeWay (solution/threeway.cu)
 *   cub::DevicePartition::If three-way   CUB's split (zeros apart)
 *   onePassSplit      the production split (singlepass_split3.cuh)
 * Its variants, the look-back scheme: dev/split3_variants.cu (make dev).
 * Build: make -C day33-exercise-threeway threeway-onepass
 * Run:   ./day33-exercise-threeway/threeway-onepass [--check] [--help]
 */
#include <cstdio>
#include <cstring>

#include <cub/device/device_partition.cuh>
#include <thrust/iterator/reverse_iterator.h>

#include "hx_bench.h"
#include "hx_check.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "../../day31-scan/tile_scan.h"
#include "singlepass_split3.cuh"

#define PROG "threeway-onepass"
static const unsigned TPB = 256;  /* threads per grid-stride block */
#define SMALL_GRID 3u   /* far fewer blocks than tiles (a row says 3) */
#define FULL_REPORT_MAX ((size_t)1 << 20) /* hx_check_split3's report */
#define HUGE_FROM ((size_t)1 << 26) /* above: onePassSplit, thirds only */

/* ---- The teaching split: two marks, two scans, scatterThreeWay ----------- */

/* The reference solution's kernel (solution/threeway.cu, linked in). */
__global__ void scatterThreeWay(
    const int *__restrict__ in, const int *__restrict__ negRank,
    const int *__restrict__ zeroRank, int *__restrict__ out, size_t n,
    const int *__restrict__ totalNeg, const int *__restrict__ totalZero);

struct IsNegative { __device__ bool operator()(int v) const { return v < 0; } };
struct IsZero { __device__ bool operator()(int v) const { return v == 0; } };
/* flags[i] = pred(in[i]): the driver's markNegative (IsNegative) and
 * markZero (IsZero), one template here (driver.cu links no solution code). */
template <class Pred>
__global__ void mark(const int *__restrict__ in, int *__restrict__ flags,
                     size_t n, Pred pred)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = pred(in[i]);
}

/* ---- The problem at one size --------------------------------------------- */

static struct {
    const hx_device *dev;
    size_t n, a, ab;              /* the host's A and A + B */
    int *hin, *href, *hgot;       /* host: input, reference, an output */
    int *in, *shift, *ref, *negRank, *zeroRank, *zeroOut;   /* device */
    int *totals;                  /* the two-scan split's and CUB's A, B */
    hx_guarded out, counts;       /* the one pass's counts, as ints */
    int *countsRef;               /* what countSplitRanges must leave */
    unsigned grid;                /* its blocks: as many as fit, <= tiles */
    ScanPlan plan;
    void *cub;                    /* CUB's scratch, cubBytes of it */
    size_t cubBytes;
} P;   /* every row's context; shift + 1: the input, misaligned */

static int **hostBufs[] = {&P.hin, &P.href, &P.hgot};   /* n + 4 ints */
static int **deviceBufs[] = {&P.in,      &P.shift,    &P.ref,
                             &P.negRank, &P.zeroRank, &P.zeroOut};
static void runCub(void *);

/* Device bytes at n: 7 buffers of n ints, CUB's and the plan's, a MiB more. */
static size_t problemBytes(size_t n, void *)
{
    P.n = n, P.cub = NULL;
    runCub(NULL);   /* sets P.cubBytes */
    return 7 * (n + 4) * sizeof(int) + P.cubBytes + scanPlanBytes(n) + (1 << 20);
}

/* Allocates P for n; 0 after a line saying so when it does not fit. */
static int problemCreate(const hx_bench *bench, size_t n)
{
    const size_t b = (n + 4) * sizeof(int), tiles = split3Tiles<Split3>(n);
    memset(&P, 0, sizeof P);
    P.dev = bench->dev;
    if (!hx_bench_fits(bench, n, problemBytes(n, NULL), 3 * b)) return 0;
    P.grid = hx_resident_blocks(P.dev, (const void *)Split3::place,
                                Split3::THREADS, 0);
    if (tiles < P.grid) P.grid = tiles ? (unsigned)tiles : 1u;
    for (int **h : hostBufs) *h = (int *)hx_host_alloc(b);
    for (int **d : deviceBufs) HX_CHECK(cudaMalloc(d, b));
    HX_CHECK(cudaMalloc(&P.totals, 2 * sizeof(int)));
    HX_CHECK(cudaMalloc(&P.countsRef, 8 * split3Words(P.grid)));
    HX_CHECK(cudaMalloc(&P.cub, P.cubBytes + 1));
    hx_guarded_alloc(&P.out, n);
    hx_guarded_alloc(&P.counts, 2 * split3Words(P.grid + SMALL_GRID));
    scanPlanCreate(&P.plan, n);
    return 1;
}

static void problemDestroy(void)
{
    scanPlanDestroy(&P.plan);
    hx_guarded_free(&P.out);
    hx_guarded_free(&P.counts);
    for (void *d : {(void *)P.cub, (void *)P.countsRef, (void *)P.totals})
        HX_CHECK(cudaFree(d));
    for (int **d : deviceBufs) HX_CHECK(cudaFree(*d));
    for (int **h : hostBufs) free(*h);
}

/* One input and its reference (hx_split3) on the device, the input also
 * one int past 16-byte alignment; and what countSplitRanges must leave:
 * block g's negatives and zeros in its range of tiles, for every g. */
static void problemLoad(hx_bench *b, hx_mix mix, uint64_t seed)
{
    const size_t n = P.n, bytes = n * sizeof(int), words = split3Words(P.grid);
    hx_fill_threeway(P.hin, n, mix, seed);
    hx_split3(P.hin, P.href, n, &P.a, &P.ab);
    HX_CHECK(cudaMemcpy(P.ref, P.href, bytes, cudaMemcpyHostToDevice));
    HX_CHECK(cudaMemcpy(P.in, P.hin, bytes, cudaMemcpyHostToDevice));
    HX_CHECK(cudaMemcpy(P.shift + 1, P.hin, bytes, cudaMemcpyHostToDevice));
    unsigned long long *c = (unsigned long long *)hx_host_alloc(8 * words);
    for (unsigned g = 0; g < P.grid; ++g) {
        const TileRange r = tileRange(split3Tiles<Split3>(n), g, P.grid);
        c[2 * g] = c[2 * g + 1] = 0;
        for (size_t i = r.first * Split3::TILE; i < r.end * Split3::TILE &&
                                                i < n; ++i)
            c[2 * g] += P.hin[i] < 0, c[2 * g + 1] += P.hin[i] == 0;
    }
    HX_CHECK(cudaMemcpy(P.countsRef, c, 8 * words, cudaMemcpyHostToDevice));
    free(c);
    hx_guarded_resize(&P.counts, n ? 2 * words : 0);
    hx_bench_bind(b, P.in, &P.out, n);
}

/* ---- The rows ------------------------------------------------------------ */

static void runTwoScans(void *)
{
    const unsigned grid = hx_grid_for(P.dev, P.n, TPB);
    mark<<<grid, TPB>>>(P.in, P.negRank, P.n, IsNegative());
    HX_CHECK_LAUNCH("markNegative");
    scanExclusive(&P.plan, P.negRank, P.totals + 0, 0);
    mark<<<grid, TPB>>>(P.in, P.zeroRank, P.n, IsZero());
    HX_CHECK_LAUNCH("markZero");
    scanExclusive(&P.plan, P.zeroRank, P.totals + 1, 0);
    scatterThreeWay<<<grid, TPB>>>(P.in, P.negRank, P.zeroRank, P.out.data,
                                   P.n, P.totals + 0, P.totals + 1);
    HX_CHECK_LAUNCH("scatterThreeWay");
}

/* CUB: negatives from the front of out, positives from its back, zeros
 * into a buffer of their own. P.cub NULL: sets P.cubBytes alone. */
static void runCub(void *)
{
    thrust::reverse_iterator<int *> rev(P.out.data + P.n);
    HX_CHECK(cub::DevicePartition::If(P.cub, P.cubBytes, P.in, P.out.data,
                                      P.zeroOut, rev, P.totals, (int)P.n,
                                      IsNegative(), IsZero(), 0));
}

static void poisonZeroOut(void *)   /* before CUB's checked run */
{
    HX_CHECK(cudaMemsetAsync(P.zeroOut, HX_POISON_BYTE, P.n * sizeof(int), 0));
}

#define COUNTS ((unsigned long long *)P.counts.data)   /* 8-byte aligned */
static void runCount(void *)
{
    if (P.n) Split3::count<<<P.grid, Split3::THREADS>>>(P.in, P.n, COUNTS);
    HX_CHECK_LAUNCH("countSplitRanges");
}

static char SMALL, SHIFTED;   /* how: SMALL_GRID blocks, the shifted in */
static void runOnePass(void *how)
{
    HX_CHECK(split3Run<Split3>(how == &SHIFTED ? P.shift + 1 : P.in,
                               P.out.data, P.n, COUNTS,
                               how == &SMALL ? SMALL_GRID : P.grid, 0));
}

/* The three-way report (boundaries, order, unwritten, guards, each
 * named): what the device compare cannot say, for n <= FULL_REPORT_MAX. */
static int checkSplit(const hx_bench *, const hx_row *, const char *what)
{
    hx_guard_report g;
    hx_split_report rep;
    hx_guarded_fetch(&P.out, P.hgot, &g);
    if (hx_check_split3(P.hin, P.hgot, P.n, &g, &rep) == HX_SPLIT_PASS)
        return 0;
    return hx_split_print(what, &rep, stdout), 1;
}

/* CUB's two counts; its negatives and zeros exactly; its positives for the
 * same values (stable in CUB, reversed by runCub's reverse iterator). */
static int checkCub(const hx_bench *, const hx_row *, const char *what)
{
    int c[2];
    hx_cmp cmp;
    hx_same same;
    const size_t a = P.a, ab = P.ab;
    HX_CHECK(cudaMemcpy(c, P.totals, sizeof c, cudaMemcpyDeviceToHost));
    if ((size_t)c[0] != a || (size_t)c[1] != ab - a)
        return printf("%s: FAIL at n=%zu: counts %d and %d, want %zu and "
                      "%zu\n", what, P.n, c[0], c[1], a, ab - a), 1;
    hx_guarded_fetch_output(&P.out, P.hgot);
    HX_CHECK(cudaMemcpy(P.hgot + a, P.zeroOut, (ab - a) * sizeof(int),
                        cudaMemcpyDeviceToHost));
    return hx_check_equal(what, P.hgot, P.href, ab, &cmp, stdout) |
           hx_check_same_values(what, P.hgot + ab, P.href + ab, P.n - ab,
                                &same, stdout);
}

/* The rows, as data: what runs, what its output must hold (the device
 * reference, or up to FULL_REPORT_MAX the three-way report), the bytes it
 * must move, its launches. huge: onePassSplit alone; extra: checks too. */
static int declareRows(hx_row *r, int extra, int huge)
{
    const double ints = (double)P.n * sizeof(int);
    const int *want = P.n <= FULL_REPORT_MAX ? NULL : P.ref;
    const hx_row_check split = want ? NULL : checkSplit;
    int k = 0;
    if (!huge) {
        r[k++] = hx_row{.name = "countSplitRanges (pass 1 alone)",
                        .run = runCount, .out = &P.counts,
                        .want = P.countsRef, .floor_bytes = ints,
                        .launches = P.n > 0};
        r[k++] = hx_row{.name = "two-scan split", .run = runTwoScans,
                        .want = want, .check = split,
                        .floor_bytes = 16 * ints,
                        .launches = 2 + 2 * scanLaunches(&P.plan) + 1};
        r[k++] = hx_row{.name = "cub::DevicePartition::If three-way",
                        .run = runCub, .prepare = poisonZeroOut,
                        .check = checkCub, .floor_bytes = 2 * ints,
                        .launches = 2,   /* an init kernel, one pass */
                        .note = "CUB: zeros apart, positives in another "
                                "order (checked for the same values)"};
    }
    r[k++] = hx_row{.name = "onePassSplit", .run = runOnePass, .want = want,
                    .check = split, .floor_bytes = 3 * ints,
                    .launches = 2 * (P.n > 0)};
    if (extra && !huge) {
        r[k] = r[k - 1], r[k].name = "onePassSplit, 3 blocks";
        r[k++].ctx = &SMALL;
        r[k] = r[k - 1], r[k].name = "onePassSplit, misaligned input";
        r[k++].ctx = &SHIFTED;
    }
#ifdef ONEPASS_MORE_ROWS   /* dev/split3_variants.cu's configurations */
    k += ONEPASS_MORE_ROWS(r + k, extra, huge);
#endif
    return k;
}

/* ---- The self-check ------------------------------------------------------ */

/* Every row on every mix at the bench's sizes (above HUGE_FROM:
 * onePassSplit alone, on the thirds mix). Planted errors: dev-check. */
static int selfCheck(hx_bench *b)
{
    const hx_opts *o = b->opts;
    const size_t extra[] = {2, 255, 256, 257, 65537, 600 * 4096 + 3};
    const hx_size_plan plan = {
        Split3::TILE, hx_resident_blocks(b->dev, (const void *)Split3::place,
                                         Split3::THREADS, 0),
        SCAN_TILE, o->seed, extra, sizeof extra / sizeof extra[0]};
    size_t sizes[64], count = hx_check_sizes(&plan, sizes, 64);
    count = o->n_set ? (sizes[0] = o->n, 1) : count < 64 ? count : 64;
    printf("self-check, seed %llu: onePassSplit (%s) and every row, every "
           "mix\n", (unsigned long long)o->seed, SPLIT3_NAME);
    hx_check_sizes_print(sizes, count, &plan, stdout);
    for (size_t s = 0; s < count; ++s) {
        const size_t n = sizes[s];
        if (!problemCreate(b, n)) continue;
        for (int m = 0; m < HX_MIX_COUNT; ++m) {
            if (n > HUGE_FROM && m != HX_MIX_THIRDS) continue;
            const uint64_t seed = o->seed + 16 * s + (uint64_t)m;
            hx_row rows[HX_BENCH_MAX_ROWS];
            char what[96];
            problemLoad(b, (hx_mix)m, seed);
            const int k = declareRows(rows, 1, n > HUGE_FROM);
            snprintf(what, sizeof what, "n=%zu mix=%s seed=%llu:", n,
                     hx_mix_name((hx_mix)m), (unsigned long long)seed);
            if (hx_bench_check_rows(b, rows, k, what))
                return problemDestroy(), HX_EXIT_FAIL;
            printf("  n=%-10zu %-9s pass (%d rows; A = %zu, A + B = %zu)\n", n,
                   hx_mix_name((hx_mix)m), k, P.a, P.ab);
        }
        problemDestroy();
    }
    printf("self-check: pass\n");
    return HX_EXIT_OK;
}

/* ---- The timing ---------------------------------------------------------- */

static int timeRows(hx_bench *b)
{
    /* The default n from 8 ints a slot and a byte: P's buffers and more. */
    const size_t n = hx_bench_timing_n(b, 33, problemBytes, NULL);
    if (n == (size_t)-1 || !problemCreate(b, n)) return HX_EXIT_NOMEM;
    problemLoad(b, HX_MIX_THIRDS, b->opts->seed);
    printf("input: mix thirds, seed %llu: A = %zu negatives, B = %zu zeros; "
           "onePassSplit: %zu tiles of %d on %u blocks (%s)\n",
           (unsigned long long)b->opts->seed, P.a, P.ab - P.a,
           split3Tiles<Split3>(n), Split3::TILE, P.grid, SPLIT3_NAME);
    hx_row rows[HX_BENCH_MAX_ROWS];
    const int rc = hx_bench_measure(b, rows, declareRows(rows, 0, 0), 0);
    const char *const notes[] = {
        "x floor: over the row's own bytes at the memcpy's bandwidth: 2n "
        "ints for a copy and CUB, n for a counting pass, 3n for the one pass "
        "(count, then place), about 16n for the two-scan split", NULL};
    hx_bench_table(b, "three-way split", notes);
    problemDestroy();
    return rc;
}

/* ---- main ---------------------------------------------------------------- */

static const char USAGE[] = "The exercise's three-way split in a counting "
    "pass and one placing pass,\nchecked, then timed against a memcpy, a "
    "copy, the two-scan split and CUB.";

#ifndef ONEPASS_NO_MAIN   /* dev/split3_variants.cu has its own */
int main(int argc, char **argv)
{
    const double t0 = hx_now_seconds();
    hx_opts o;
    hx_device dev;
    hx_bench b;
    int rc = hx_parse_args(argc, argv, &o, 0, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    if ((rc = hx_device_open(&dev, PROG)) != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);
    hx_bench_open(&b, &dev, &o, "day33-exercise-threeway");
    rc = o.check ? selfCheck(&b) : timeRows(&b);
    hx_bench_wall(&b, t0);
    hx_bench_close(&b);
    return rc;
}
#endif
