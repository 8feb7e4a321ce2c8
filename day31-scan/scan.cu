/* scan.cu: day 31, the prefix sum (scan) of n ints, checked and timed.
 *
 * Shows the course scan (tile_scan.h: a work-efficient scan of each
 * 256-element tile in shared memory, applied level by level, in place)
 * against a plain copy of the same bytes, against two other ways of
 * scanning one tile, and against CUB. Every row is checked element for
 * element against the host before anything is timed.
 *
 * Build: make -C day31-scan            (ARCH="75 80 90" by default)
 * Run:   ./day31-scan/scan [--n N] [--seed S] [--runs R] [--warmup W]
 *        ./day31-scan/scan --n 8387997    the original lesson size
 *        ./day31-scan/scan --check        GPU self-check, no timing
 *
 * Rows (all at the same n, in this order):
 *   copyInts                        grid-stride copy of n ints: what one
 *                                   pass over the data costs
 *   scanExclusive (scanTile)        the course scan, scanTile at every level
 *   scanInclusive (scanTile)        the same, inclusive
 *   scanWith(scanTileHillisSteele)  the course's levels with a naive tile
 *                                   kernel: 8 steps, O(n log n) adds
 *   scanWith(scanTileWarp)          the course's levels with a tile kernel
 *                                   built on __shfl_up_sync
 *   cub::DeviceScan::ExclusiveSum   CUB, out of place: the library row (one
 *                                   pass with decoupled look-back)
 */
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cub/device/device_scan.cuh>

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_time.h"
#include "tile_scan.h"

static const char *const PROG = "scan";

/* ------------------------------------------------------------------------
 * Contrasting tile kernels. Both follow the ScanTileKernel contract of
 * tile_scan.h exactly: scan each SCAN_TILE-element tile of data[0..n) in
 * place (exclusive, or inclusive when inclusive != 0), grid-striding over
 * tiles, and write tile k's total to tileSums[k]. Passed to scanWith, they
 * replace scanTile at every level, so the rows differ in the tile kernel
 * and nothing else. Both run SCAN_TILE threads, one element each.
 *
 * data is not __restrict__ in either: it is read and then written in
 * place, and a caller passes one array as input and output.
 * ---------------------------------------------------------------------- */

#define WARP 32
#define TILE_WARPS (SCAN_TILE / WARP)

/* Hillis-Steele: in step k every element adds the one 2^k to its left, so
 * after log2(256) = 8 steps each holds its inclusive prefix: 1,793 adds
 * per tile against scanTile's 510, O(n log n) work instead of O(n), but 8
 * steps deep instead of 16 and 9 barriers per tile instead of 19. */
__global__ void scanTileHillisSteele(int *data, size_t n,
                                     int *__restrict__ tileSums,
                                     int inclusive)
{
    /* Double-buffered: a step reads one half and writes the other, so the
     * value a neighbour reads is never the one being replaced; with one
     * buffer each step would need a second barrier between its read and
     * its write. */
    __shared__ int buf[2][SCAN_TILE];
    const size_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    const int t = threadIdx.x;

    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * SCAN_TILE + t;
        const int x = i < n ? data[i] : 0;  /* 0 pads a partial tile */
        int cur = 0;
        buf[cur][t] = x;
        for (int off = 1; off < SCAN_TILE; off *= 2) {
            /* The previous step's writes (or the load) must be visible
             * before anyone reads a neighbour, and every read of the half
             * written now must have finished: one barrier does both. */
            __syncthreads();
            const int v = buf[cur][t] + (t >= off ? buf[cur][t - off] : 0);
            buf[cur ^ 1][t] = v;
            cur ^= 1;
        }
        /* Each thread reads back the slot it wrote itself: no barrier. */
        const int incl = buf[cur][t];
        if (i < n) data[i] = inclusive ? incl : incl - x;
        if (t == SCAN_TILE - 1) tileSums[tile] = incl;
        /* The next tile loads into buf[0]; the last step may still be
         * reading it in other threads (for an odd number of steps). */
        __syncthreads();
    }
}

/* Warp shuffle: each warp scans its 32 elements in registers with
 * __shfl_up_sync (5 steps, no shared memory, no barrier), warp 0 scans the
 * 8 warp totals the same way, and every warp adds the totals of the warps
 * before it. Three barriers per tile instead of scanTile's 19. */
__global__ void scanTileWarp(int *data, size_t n, int *__restrict__ tileSums,
                             int inclusive)
{
    __shared__ int warpSums[TILE_WARPS];
    const size_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    const int t = threadIdx.x;
    const int lane = t % WARP, warp = t / WARP;
    const unsigned all = 0xffffffffu;

    /* tile is the same in every thread of the block, so all 32 lanes of
     * every warp take part in every shuffle, as the full mask promises. */
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * SCAN_TILE + t;
        const int x = i < n ? data[i] : 0;
        int v = x;
        for (int off = 1; off < WARP; off *= 2) {
            const int left = __shfl_up_sync(all, v, off);
            if (lane >= off) v += left;
        }
        if (lane == WARP - 1) warpSums[warp] = v;
        /* Warp 0 reads every warp's total. */
        __syncthreads();
        if (warp == 0) {
            int w = lane < TILE_WARPS ? warpSums[lane] : 0;
            for (int off = 1; off < TILE_WARPS; off *= 2) {
                const int left = __shfl_up_sync(all, w, off);
                if (lane >= off) w += left;
            }
            if (lane < TILE_WARPS) warpSums[lane] = w;  /* inclusive */
        }
        /* Every warp reads the scanned totals warp 0 just wrote. */
        __syncthreads();
        const int incl = v + (warp > 0 ? warpSums[warp - 1] : 0);
        if (i < n) data[i] = inclusive ? incl : incl - x;
        if (t == SCAN_TILE - 1) tileSums[tile] = incl;
        /* The next tile's lane 31 overwrites warpSums: wait until every
         * warp has read it. */
        __syncthreads();
    }
}

/* ------------------------------------------------------------------------
 * Baseline
 * ---------------------------------------------------------------------- */

/* out[i] = in[i]: reads n ints and writes n, as the scan's data must at
 * least be read once and written once. Distinct buffers, so __restrict__
 * is true here. */
__global__ void copyInts(const int *__restrict__ in, int *__restrict__ out,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[i];
}

#define COPY_THREADS 256

/* ------------------------------------------------------------------------
 * The variants, and one run of one of them
 * ---------------------------------------------------------------------- */

typedef enum { V_COPY, V_COURSE, V_WITH, V_CUB } VariantKind;

typedef struct {
    const char *name;
    VariantKind kind;
    ScanTileKernel kernel;   /* V_WITH: the tile kernel given to scanWith */
    unsigned threads;        /* V_WITH: its threads per block */
    int inclusive;
    int smallGrid;           /* plan.tileGrid = 3, plan.grid = 5 */
    int ownTotal;            /* total into a separate device int, not
                                NULL (the plan's own) */
} Variant;

/* What one run needs on the device. in is never written; data is the
 * scan's in-place array and the output of the out-of-place rows. */
typedef struct {
    const hx_device *dev;
    const Variant *v;
    ScanPlan *plan;
    size_t n;
    const int *in;
    int *data;
    int *total;              /* the separate total of ownTotal variants */
    void *cubTemp;
    size_t cubBytes;
} Run;

/* The plan's tile and add-back grids for small-grid runs: far fewer blocks
 * than tiles, so every kernel must stride to cover them. */
#define SMALL_TILE_GRID 3
#define SMALL_GRID 5

/* Enqueues one run on the default stream (an hx_work). */
static void runVariant(void *ctx)
{
    Run *r = (Run *)ctx;
    const Variant *v = r->v;
    int *total = v->ownTotal ? r->total : NULL;
    if (v->smallGrid) {
        r->plan->tileGrid = SMALL_TILE_GRID;
        r->plan->grid = SMALL_GRID;
    }
    switch (v->kind) {
    case V_COPY:
        copyInts<<<hx_grid_for(r->dev, r->n, COPY_THREADS), COPY_THREADS>>>(
            r->in, r->data, r->n);
        HX_CHECK_LAUNCH("copyInts");
        break;
    case V_COURSE:
        if (v->inclusive)
            scanInclusive(r->plan, r->data, total, 0);
        else
            scanExclusive(r->plan, r->data, total, 0);
        break;
    case V_WITH:
        scanWith(r->plan, v->kernel, v->threads, r->data, total, v->inclusive,
                 0);
        break;
    case V_CUB: {
        size_t bytes = r->cubBytes;
        HX_CHECK(cub::DeviceScan::ExclusiveSum(r->cubTemp, bytes, r->in,
                                               r->data, (int)r->n, 0));
        HX_CHECK_LAUNCH("cub::DeviceScan::ExclusiveSum");
        break;
    }
    }
    r->plan->tileGrid = 0;
    r->plan->grid = 0;
}

/* Launches of one run, for the table. CUB's count is from its dispatch
 * (cub/device/dispatch/dispatch_scan.cuh): a kernel that initialises the
 * tile states, then one scan pass; nothing when n = 0. */
static int launchesOf(const Variant *v, const ScanPlan *plan)
{
    switch (v->kind) {
    case V_COPY: return 1;
    case V_CUB: return plan->n ? 2 : 0;
    default: return scanLaunches(plan);
    }
}

static int isInPlace(const Variant *v)
{
    return v->kind == V_COURSE || v->kind == V_WITH;
}

/* CUB's temporary storage for n ints (a query: launches nothing). */
static size_t cubTempBytes(size_t n)
{
    size_t bytes = 0;
    HX_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, (const int *)NULL,
                                           (int *)NULL, (int)n, 0));
    return bytes < sizeof(int) ? sizeof(int) : bytes;
}

/* ------------------------------------------------------------------------
 * Checks
 * ---------------------------------------------------------------------- */

/* Host memory the process may still take, from /proc/meminfo's
 * MemAvailable; SIZE_MAX where that cannot be read. */
static size_t hostAvailableBytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    size_t kib = 0;
    int found = 0;
    if (!f) return SIZE_MAX;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kib) == 1) {
            found = 1;
            break;
        }
    fclose(f);
    return found ? kib * 1024 : SIZE_MAX;
}

static int *hostInts(size_t n)
{
    return (int *)malloc((n ? n : 1) * sizeof(int));
}

#define FETCH_CHUNK ((size_t)1 << 22)   /* ints fetched per copy */

/* Compares the device output out[0..n) of a guarded buffer with want
 * element for element, fetching it in chunks of FETCH_CHUNK ints (so a
 * 2^30-element check holds two arrays on the host, not three), and scans
 * both guards. On failure prints hx_check_equal's line for the whole
 * array (what names the size, input and variant), the guard lines, and
 * returns 1. chunk holds FETCH_CHUNK ints. */
static int checkOutput(const char *what, const hx_guarded *b, const int *want,
                       int *chunk)
{
    const size_t n = b->n, G = HX_GUARD_WORDS;
    size_t bad = 0, unwritten = 0, first = 0;
    int got = 0, wantv = 0;

    for (size_t off = 0; off < n; off += FETCH_CHUNK) {
        const size_t len = n - off < FETCH_CHUNK ? n - off : FETCH_CHUNK;
        hx_cmp r;
        HX_CHECK(cudaMemcpy(chunk, b->data + off, len * sizeof(int),
                            cudaMemcpyDeviceToHost));
        if (hx_check_equal(what, chunk, want + off, len, &r, NULL)) {
            if (!bad) {
                first = off + r.first;
                got = r.got;
                wantv = r.want;
            }
            bad += r.bad;
            unwritten += r.unwritten;
        }
    }

    /* The guards, with offsets relative to out[0] as hx_guard.h defines. */
    hx_guard_report g;
    memset(&g, 0, sizeof g);
    HX_CHECK(cudaMemcpy(chunk, b->base, G * sizeof(int),
                        cudaMemcpyDeviceToHost));
    for (size_t j = 0; j < G; ++j)
        if (chunk[j] != HX_GUARD_WORD) {
            g.before++;
            g.first_before = (long long)j - (long long)G;  /* nearest wins */
            g.value_before = chunk[j];
        }
    HX_CHECK(cudaMemcpy(chunk, b->data + n, G * sizeof(int),
                        cudaMemcpyDeviceToHost));
    for (size_t j = G; j-- > 0;)
        if (chunk[j] != HX_GUARD_WORD) {
            g.after++;
            g.first_after = (long long)(n + j);
            g.value_after = chunk[j];
        }

    if (bad)
        printf("%s: FAIL at n=%zu: first bad index %zu: got %d, want %d; "
               "%zu of %zu slots differ (%zu never written)\n",
               what, n, first, got, wantv, bad, n, unwritten);
    if (g.before || g.after) hx_guard_print(what, n, &g, stdout);
    return bad || g.before || g.after;
}

/* Checks the total a run left in device memory. */
static int checkTotal(const char *what, const int *dTotal, long long want)
{
    int got = 0;
    HX_CHECK(cudaMemcpy(&got, dTotal, sizeof got, cudaMemcpyDeviceToHost));
    if ((long long)got == want) return 0;
    printf("%s: FAIL: device total %d, want %lld\n", what, got, want);
    return 1;
}

/* Runs v once on a fresh copy of the input (already in r->in) with every
 * output poisoned first: the guarded buffer (for out-of-place rows, so an
 * unwritten slot shows as HX_POISON), the plan's level sums and total, and
 * the separate total. The level sums are all written before any is read,
 * so poison that leaked into a result would show as a wrong value.
 * Returns 1 on failure, after printing it. */
static int checkVariant(Run *r, hx_guarded *b, const int *want,
                        long long wantTotal, const char *label, int *chunk)
{
    const Variant *v = r->v;
    char what[256];
    snprintf(what, sizeof what, "%s %s", label, v->name);

    hx_guarded_poison(b);
    if (isInPlace(v))
        HX_CHECK(cudaMemcpy(b->data, r->in, r->n * sizeof(int),
                            cudaMemcpyDeviceToDevice));
    HX_CHECK(cudaMemset(r->plan->total, HX_POISON_BYTE,
                        scanPlanBytes(r->n)));
    HX_CHECK(cudaMemset(r->total, HX_POISON_BYTE, sizeof(int)));
    r->data = b->data;
    runVariant(r);
    HX_CHECK(cudaDeviceSynchronize());

    if (checkOutput(what, b, want, chunk)) return 1;
    if (isInPlace(v))
        return checkTotal(what, v->ownTotal ? r->total : r->plan->total,
                          wantTotal);
    return 0;
}

/* Every variant the self-check runs. Exclusive ones first: the check
 * computes one reference at a time to keep two arrays on the host. */
static const Variant checkVariants[] = {
    {"scanExclusive", V_COURSE, NULL, 0, 0, 0, 0},
    {"scanExclusive (tileGrid 3, grid 5)", V_COURSE, NULL, 0, 0, 1, 1},
    {"scanWith(scanTileHillisSteele) exclusive", V_WITH,
     scanTileHillisSteele, SCAN_TILE, 0, 0, 1},
    {"scanWith(scanTileWarp) exclusive", V_WITH, scanTileWarp, SCAN_TILE, 0,
     0, 0},
    {"scanWith(scanTileWarp) exclusive (tileGrid 3, grid 5)", V_WITH,
     scanTileWarp, SCAN_TILE, 0, 1, 0},
    {"cub::DeviceScan::ExclusiveSum", V_CUB, NULL, 0, 0, 0, 0},
    {"scanInclusive", V_COURSE, NULL, 0, 1, 0, 1},
    {"scanInclusive (tileGrid 3, grid 5)", V_COURSE, NULL, 0, 1, 1, 0},
    {"scanWith(scanTileHillisSteele) inclusive", V_WITH,
     scanTileHillisSteele, SCAN_TILE, 1, 0, 0},
    {"scanWith(scanTileHillisSteele) inclusive (tileGrid 3, grid 5)", V_WITH,
     scanTileHillisSteele, SCAN_TILE, 1, 1, 1},
    {"scanWith(scanTileWarp) inclusive", V_WITH, scanTileWarp, SCAN_TILE, 1,
     0, 1},
};
#define CHECK_VARIANTS (sizeof checkVariants / sizeof checkVariants[0])

typedef enum { IN_RANDOM, IN_ONES, IN_ZEROS, IN_LARGEST, IN_KINDS } InputKind;

/* Random values are in [0, hi] with hi = 7, lowered so n * hi fits in
 * int: every prefix then fits, whatever the draw. */
static int randomHigh(size_t n)
{
    return n > 0 && (size_t)INT_MAX / n < 7 ? (int)((size_t)INT_MAX / n) : 7;
}

static void describeInput(InputKind k, size_t n, char *s, size_t len)
{
    switch (k) {
    case IN_RANDOM: snprintf(s, len, "random [0,%d]", randomHigh(n)); break;
    case IN_ONES: snprintf(s, len, "all ones"); break;
    case IN_ZEROS: snprintf(s, len, "all zeros"); break;
    default:
        snprintf(s, len, n ? "largest (total INT_MAX)" : "largest (empty)");
        break;
    }
}

/* IN_LARGEST: a[i] = floor((i+1) M / n) - floor(i M / n) with M = INT_MAX,
 * so each value is M / n or one more, spread evenly, the exclusive prefix
 * at i is floor(i M / n), and the total is exactly INT_MAX: the largest
 * input whose total still fits in int. */
static void fillInput(InputKind k, int *a, size_t n, uint64_t seed)
{
    switch (k) {
    case IN_RANDOM: hx_fill_uniform(a, n, 0, randomHigh(n), seed); break;
    case IN_ONES: hx_fill_const(a, n, 1); break;
    case IN_ZEROS: hx_fill_const(a, n, 0); break;
    default: {
        if (n == 0) break;
        /* Without a division per element: acc = (i * (M % n)) mod n, and
         * a[i] gets the carry when acc wraps past n. */
        const size_t base = (size_t)INT_MAX / n, rem = (size_t)INT_MAX % n;
        size_t acc = 0;
        for (size_t i = 0; i < n; ++i) {
            acc += rem;
            const int carry = acc >= n;
            if (carry) acc -= n;
            a[i] = (int)base + carry;
        }
        break;
    }
    }
}

/* The huge size is checked with the course scans only: the contrasting
 * kernels and CUB are proven at the smaller sizes, and a 3-block grid
 * over 4 million tiles would take seconds per run. */
static int runsAtHugeSize(const Variant *v)
{
    return v->kind == V_COURSE && !v->smallGrid;
}

/* Checks every variant on every input at size n. Returns HX_EXIT_OK,
 * HX_EXIT_FAIL after printing the first failure, or HX_EXIT_OK after a
 * line saying the size was skipped (not enough device or host memory). */
static int checkSize(const hx_device *dev, size_t n, int huge, uint64_t seed)
{
    const size_t cubBytes = cubTempBytes(n);
    const size_t devBytes = (2 * n + 2 * HX_GUARD_WORDS + 1) * sizeof(int) +
                            scanPlanBytes(n) + (huge ? 0 : cubBytes);
    const size_t hostBytes = (2 * n + FETCH_CHUNK) * sizeof(int);
    const double mib = 1024.0 * 1024.0;

    if (!hx_fits(dev, devBytes)) {
        printf("  n=%zu: skipped: needs %.0f MiB of device memory, %.0f MiB "
               "free\n", n, devBytes / mib, dev->free_mem / mib);
        return HX_EXIT_OK;
    }
    const size_t avail = hostAvailableBytes();
    if (avail < hostBytes + ((size_t)256 << 20)) {
        printf("  n=%zu: skipped: needs %.0f MiB of host memory, %.0f MiB "
               "available\n", n, hostBytes / mib, avail / mib);
        return HX_EXIT_OK;
    }
    int *in = hostInts(n), *want = hostInts(n), *chunk = hostInts(FETCH_CHUNK);
    if (!in || !want || !chunk) {
        printf("  n=%zu: skipped: host allocation of %.0f MiB failed\n", n,
               hostBytes / mib);
        free(in);
        free(want);
        free(chunk);
        return HX_EXIT_OK;
    }

    ScanPlan plan;
    scanPlanCreate(&plan, n);
    hx_guarded b;
    hx_guarded_alloc(&b, n);
    int *dIn = NULL, *dTotal = NULL;
    void *dCub = NULL;
    HX_CHECK(cudaMalloc(&dIn, (n ? n : 1) * sizeof(int)));
    HX_CHECK(cudaMalloc(&dTotal, sizeof(int)));
    if (!huge) HX_CHECK(cudaMalloc(&dCub, cubBytes));

    Run r;
    memset(&r, 0, sizeof r);
    r.dev = dev;
    r.plan = &plan;
    r.n = n;
    r.in = dIn;
    r.total = dTotal;
    r.cubTemp = dCub;
    r.cubBytes = cubBytes;

    int rc = HX_EXIT_OK;
    for (int k = 0; k < IN_KINDS && rc == HX_EXIT_OK; ++k) {
        char input[64], label[160];
        describeInput((InputKind)k, n, input, sizeof input);
        snprintf(label, sizeof label, "n=%zu %s:", n, input);
        fillInput((InputKind)k, in, n, seed + (uint64_t)k);
        HX_CHECK(cudaMemcpy(dIn, in, n * sizeof(int),
                            cudaMemcpyHostToDevice));
        int ran = 0, refInclusive = -1;
        long long total = 0;
        for (size_t j = 0; j < CHECK_VARIANTS; ++j) {
            const Variant *v = &checkVariants[j];
            if (huge && !runsAtHugeSize(v)) continue;
            if (v->inclusive != refInclusive) {
                total = v->inclusive ? hx_scan_inclusive(in, want, n)
                                     : hx_scan_exclusive(in, want, n);
                refInclusive = v->inclusive;
            }
            r.v = v;
            if (checkVariant(&r, &b, want, total, label, chunk)) {
                printf("FAIL: n=%zu, input %s (seed %llu), variant %s\n", n,
                       input, (unsigned long long)(seed + (uint64_t)k),
                       v->name);
                rc = HX_EXIT_FAIL;
                break;
            }
            ++ran;
        }
        if (rc == HX_EXIT_OK)
            printf("  n=%-10zu %-24s pass (%d variants; levels %d; total "
                   "%lld)\n", n, input, ran, plan.levels, total);
    }

    if (dCub) HX_CHECK(cudaFree(dCub));
    HX_CHECK(cudaFree(dTotal));
    HX_CHECK(cudaFree(dIn));
    hx_guarded_free(&b);
    scanPlanDestroy(&plan);
    free(in);
    free(want);
    free(chunk);
    return rc;
}

/* --check: every size of the lesson's list (or only --n when given), every
 * input, every variant. */
static int selfCheck(const hx_device *dev, const hx_opts *o)
{
    hx_rng rng;
    hx_rng_seed(&rng, o->seed);
    const size_t randomOdd = 2 * (size_t)hx_rng_below(&rng, (uint64_t)1 << 24)
                             + 1;
    const size_t huge = ((size_t)1 << 30) + 12345;
    const size_t sizes[] = {0, 1, 255, 256, 257, 65535, 65536, 65537,
                            16777216, 16777217, randomOdd, huge};
    const size_t count = sizeof sizes / sizeof sizes[0];

    printf("self-check, seed %llu: exclusive and inclusive scans compared "
           "element for element with the host, device totals exactly; "
           "outputs poisoned and guarded\n", (unsigned long long)o->seed);
    if (o->n_set) {
        printf("size: --n %zu only\n", o->n);
        /* Past 2^26 the 3-block grids would take seconds per run. */
        const int rc = checkSize(dev, o->n, o->n > ((size_t)1 << 26),
                                 o->seed);
        if (rc == HX_EXIT_OK) printf("self-check: pass\n");
        return rc;
    }
    printf("sizes: 0, 1, 255, 256, 257, 65535, 65536, 65537, 16777216, "
           "16777217, %zu (random odd, from the seed), %zu (over 2^30)\n",
           randomOdd, huge);
    for (size_t s = 0; s < count; ++s) {
        const int rc = checkSize(dev, sizes[s], sizes[s] == huge,
                                 o->seed + 16 * s);
        if (rc != HX_EXIT_OK) return rc;
    }
    printf("self-check: pass\n");
    return HX_EXIT_OK;
}

/* ------------------------------------------------------------------------
 * Timing
 * ---------------------------------------------------------------------- */

/* The rows of the table, in order; the first is the copy every row is
 * compared with. */
static const Variant timedVariants[] = {
    {"copyInts", V_COPY, NULL, 0, 0, 0, 0},
    {"scanExclusive (scanTile)", V_COURSE, NULL, 0, 0, 0, 0},
    {"scanInclusive (scanTile)", V_COURSE, NULL, 0, 1, 0, 0},
    {"scanWith(scanTileHillisSteele)", V_WITH, scanTileHillisSteele,
     SCAN_TILE, 0, 0, 0},
    {"scanWith(scanTileWarp)", V_WITH, scanTileWarp, SCAN_TILE, 0, 0, 0},
    {"cub::DeviceScan::ExclusiveSum", V_CUB, NULL, 0, 0, 0, 0},
};
#define TIMED_VARIANTS (sizeof timedVariants / sizeof timedVariants[0])

static void printLevels(const ScanPlan *plan)
{
    if (plan->levels == 0) {
        printf("levels: none (n = 0: the scan only zeroes the total)\n");
        return;
    }
    printf("tiles of %d at each level:", SCAN_TILE);
    for (int l = 0; l < plan->levels; ++l)
        printf("%s %zu -> %zu", l ? "," : "", plan->count[l],
               (plan->count[l] + SCAN_TILE - 1) / SCAN_TILE);
    printf(" (elements -> tiles)\n");
    printf("levels: %d; one scan = %d tile scans + %d add-backs = %d "
           "launches\n", plan->levels, plan->levels, plan->levels - 1,
           scanLaunches(plan));
}

static int timeAll(const hx_device *dev, const hx_opts *o)
{
    const double mib = 1024.0 * 1024.0;
    /* Per element: the input and the output (two ints), plus one byte
     * that covers the level sums (about n / 255 ints) and CUB's
     * temporary storage. */
    const size_t bytesPerElement = 2 * sizeof(int) + 1;
    char why[512];
    size_t n;
    if (o->n_set) {
        n = o->n;
        snprintf(why, sizeof why, "set by --n");
    } else {
        n = hx_default_n(dev, bytesPerElement, why, sizeof why);
    }
    const size_t cubBytes = cubTempBytes(n);
    const size_t devBytes = (2 * n + 2 * HX_GUARD_WORDS + 1) * sizeof(int) +
                            scanPlanBytes(n) + cubBytes;
    if (!hx_fits(dev, devBytes)) {
        fprintf(stderr, "%s: n = %zu needs %.0f MiB of device memory; %.0f "
                "MiB are free\n", PROG, n, devBytes / mib,
                dev->free_mem / mib);
        return HX_EXIT_NOMEM;
    }
    const size_t hostBytes = (2 * n + FETCH_CHUNK) * sizeof(int);
    int *in = NULL, *want = NULL, *chunk = NULL;
    if (hostAvailableBytes() >= hostBytes + ((size_t)256 << 20)) {
        in = hostInts(n);
        want = hostInts(n);
        chunk = hostInts(FETCH_CHUNK);
    }
    if (!in || !want || !chunk) {
        fprintf(stderr, "%s: n = %zu needs %.0f MiB of host memory for the "
                "input and its reference; not available\n", PROG, n,
                hostBytes / mib);
        free(in);
        free(want);
        free(chunk);
        return HX_EXIT_NOMEM;
    }

    const int hi = randomHigh(n);
    printf("n = %zu ints, %.1f MiB per buffer: %s\n", n, n * 4.0 / mib, why);
    printf("input: uniform in [0, %d], seed %llu (every prefix fits in "
           "int)\n", hi, (unsigned long long)o->seed);
    ScanPlan plan;
    scanPlanCreate(&plan, n);
    printLevels(&plan);
    hx_warn_if_cached(dev, n * sizeof(int), stdout);

    hx_guarded b;
    hx_guarded_alloc(&b, n);
    int *dIn = NULL, *dTotal = NULL;
    void *dCub = NULL;
    HX_CHECK(cudaMalloc(&dIn, (n ? n : 1) * sizeof(int)));
    HX_CHECK(cudaMalloc(&dTotal, sizeof(int)));
    HX_CHECK(cudaMalloc(&dCub, cubBytes));

    hx_fill_uniform(in, n, 0, hi, o->seed);
    HX_CHECK(cudaMemcpy(dIn, in, n * sizeof(int), cudaMemcpyHostToDevice));

    Run r;
    memset(&r, 0, sizeof r);
    r.dev = dev;
    r.plan = &plan;
    r.n = n;
    r.in = dIn;
    r.data = b.data;
    r.total = dTotal;
    r.cubTemp = dCub;
    r.cubBytes = cubBytes;

    /* Check every row before timing any. */
    memcpy(want, in, n * sizeof(int));   /* the copy's reference */
    long long total = 0;
    for (int pass = 0; pass < 3; ++pass) {
        if (pass == 1) total = hx_scan_exclusive(in, want, n);
        if (pass == 2) total = hx_scan_inclusive(in, want, n);
        for (size_t j = 0; j < TIMED_VARIANTS; ++j) {
            const Variant *v = &timedVariants[j];
            const int wantPass = v->kind == V_COPY ? 0 : 1 + v->inclusive;
            if (wantPass != pass) continue;
            r.v = v;
            if (checkVariant(&r, &b, want, total, "before timing:", chunk)) {
                printf("FAIL: n=%zu, seed %llu, row %s: nothing timed\n", n,
                       (unsigned long long)o->seed, v->name);
                return HX_EXIT_FAIL;
            }
        }
    }
    printf("every row checked against the host (element for element, and "
           "the device total %lld)\n", total);

    /* Time every row; the in-place scans rerun over b.data as it is. */
    hx_timing t[TIMED_VARIANTS];
    for (size_t j = 0; j < TIMED_VARIANTS; ++j) {
        r.v = &timedVariants[j];
        t[j] = hx_time(runVariant, &r, o->warmup, o->runs);
    }

    char title[256];
    snprintf(title, sizeof title, "scan of n = %zu ints (%.1f MiB per "
             "buffer)", n, n * 4.0 / mib);
    printf("median of %d runs after %d warm-ups; host copies outside every "
           "timing\n", o->runs, o->warmup);
    hx_table_begin(stdout, title);
    for (size_t j = 0; j < TIMED_VARIANTS; ++j)
        hx_table_row(stdout, timedVariants[j].name,
                     launchesOf(&timedVariants[j], &plan), &t[j],
                     t[0].median_ms, 0.0);
    hx_table_note(stdout, "scan rows run in place and are timed rerunning "
                  "over their own output: values wrap, but an int add costs "
                  "the same for any value");
    hx_table_note(stdout, "CUB runs out of place (input -> output); its 2 "
                  "launches are an init kernel and one look-back pass");
    hx_table_end(stdout);
    printf("copyInts moves %.1f MiB (read n + write n ints): %.1f GB/s\n",
           2.0 * n * sizeof(int) / mib,
           hx_gbps(2.0 * n * sizeof(int), t[0].median_ms));

    HX_CHECK(cudaFree(dCub));
    HX_CHECK(cudaFree(dTotal));
    HX_CHECK(cudaFree(dIn));
    hx_guarded_free(&b);
    scanPlanDestroy(&plan);
    free(in);
    free(want);
    free(chunk);
    return HX_EXIT_OK;
}

/* ------------------------------------------------------------------------
 * main
 * ---------------------------------------------------------------------- */

static const char USAGE[] =
    "Day 31: the prefix sum. Checks every scan against the host, then times\n"
    "a copy, the course scan (exclusive and inclusive), two contrasting tile\n"
    "kernels (Hillis-Steele, warp shuffle) and CUB's DeviceScan at one size.\n"
    "--n 8387997 is the original lesson size. --check runs the self-check\n"
    "(sizes 0 to over 2^30, four inputs, every variant); with --n it checks\n"
    "that size only.";

int main(int argc, char **argv)
{
    hx_opts o;
    int rc = hx_parse_args(argc, argv, &o, 0, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;

    hx_device dev;
    rc = hx_device_open(&dev, PROG);
    if (rc != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);

    return o.check ? selfCheck(&dev, &o) : timeAll(&dev, &o);
}
