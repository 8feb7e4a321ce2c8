/* scan.cu: day 31, the prefix sum (scan) of n ints, checked and timed.
 *
 * Shows the course scan (a work-efficient scan of each 256-int tile in
 * shared memory, applied level by level, in place) beside two other ways
 * of scanning a tile, the production single pass with decoupled look-back,
 * and CUB, each timed against a copy of the same bytes and against its
 * floor. Every row is checked element for element against the host before
 * anything is timed. The bench (checks, timing, table, CSV) is the
 * harness's (../harness/hx_bench.h): this file declares what runs.
 *
 * Build: make -C day31-scan            (ARCH="75 80 90" by default)
 * Run:   ./day31-scan/scan [--n N] [--seed S] [--runs R] [--warmup W]
 *        ./day31-scan/scan --check                  GPU self-check, no timing
 *        ./day31-scan/scan --sweep [--csv FILE]     sizes 2^10 and up, a CSV
 *
 * Kernels, in the lesson's order:
 *   scanTile, addTileOffsets   the course scan (tile_scan.cu): scanExclusive
 *                              and scanInclusive run them level by level
 *   scanTileHillisSteele       a naive tile: 8 steps, O(n log n) adds
 *   scanTileWarp               a tile scanned with __shfl_up_sync
 *   chunkScan, chunkScanRestrict   what __restrict__ promises, broken
 *   singlePassScanRing/Piped   the production scan, one pass with
 *                              decoupled look-back (singlepass_scan.cuh)
 *   cub::DeviceScan::ExclusiveSum   the library (also one pass)
 *   copyInts (the harness's)   the copy every "x copy" is measured against
 * The configurations of the single pass that lost, the tile trace and the
 * racecheck reproducer are in dev/ (make dev).
 */
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cub/device/device_scan.cuh>

#include "hx_bench.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "scan_lab.h"
#include "singlepass_scan.cuh"

static const char *const PROG = "scan";

/* ---- Two contrasting tile kernels ----------------------------------------
 * Both keep tile_scan.h's ScanTileKernel contract: scan each SCAN_TILE-int
 * tile of data in place, grid-striding over tiles, tile k's total to
 * tileSums[k]. Given to scanWith, they replace scanTile at every level, so
 * the rows differ in the tile kernel alone. SCAN_TILE threads each. */

/* Hillis-Steele: in step k every element adds the one 2^k to its left;
 * after log2(256) = 8 steps each holds its inclusive prefix: 1,793 adds
 * per tile against scanTile's 510, but 9 barriers per tile instead of 19. */
__global__ void scanTileHillisSteele(int *data, size_t n,
                                     int *__restrict__ tileSums, int inclusive)
{
    /* Double-buffered: a step reads one half and writes the other, so a
     * neighbour's value is never the one being replaced. */
    __shared__ int buf[2][SCAN_TILE];
    const size_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    const int t = threadIdx.x;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * SCAN_TILE + t;
        const int x = i < n ? data[i] : 0;   /* 0 pads a partial tile */
        int cur = 0;
        buf[cur][t] = x;
        for (int off = 1; off < SCAN_TILE; off *= 2) {
            /* The last step's writes visible, and every read of the half
             * written now finished: one barrier does both. */
            __syncthreads();
            buf[cur ^ 1][t] = buf[cur][t] + (t >= off ? buf[cur][t - off] : 0);
            cur ^= 1;
        }
        const int incl = buf[cur][t];   /* its own slot: no barrier */
        if (i < n) data[i] = inclusive ? incl : incl - x;
        if (t == SCAN_TILE - 1) tileSums[tile] = incl;
        /* The next tile loads into buf[0], which the last step may still
         * be reading in other threads. */
        __syncthreads();
    }
}

/* Warp shuffles: each warp scans its 32 ints in registers (5 steps, no
 * shared memory), warp 0 scans the 8 warp totals the same way, and every
 * warp adds the totals before it: 3 barriers per tile. */
__global__ void scanTileWarp(int *data, size_t n, int *__restrict__ tileSums,
                             int inclusive)
{
    __shared__ int warpSums[SCAN_TILE / 32];
    const size_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    /* tile is the same in every thread, so all 32 lanes of every warp take
     * part in every shuffle, as the full mask promises. */
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * SCAN_TILE + t;
        const int x = i < n ? data[i] : 0;
        int v = x;
        for (int off = 1; off < 32; off *= 2) {
            const int left = __shfl_up_sync(0xffffffffu, v, off);
            if (lane >= off) v += left;
        }
        if (lane == 31) warpSums[warp] = v;
        __syncthreads();   /* warp 0 reads every warp's total */
        if (warp == 0) {
            int w = lane < SCAN_TILE / 32 ? warpSums[lane] : 0;
            for (int off = 1; off < SCAN_TILE / 32; off *= 2) {
                const int left = __shfl_up_sync(0xffffffffu, w, off);
                if (lane >= off) w += left;
            }
            if (lane < SCAN_TILE / 32) warpSums[lane] = w;   /* inclusive */
        }
        __syncthreads();   /* every warp reads what warp 0 wrote */
        const int incl = v + (warp > 0 ? warpSums[warp - 1] : 0);
        if (i < n) data[i] = inclusive ? incl : incl - x;
        if (t == SCAN_TILE - 1) tileSums[tile] = incl;
        __syncthreads();   /* all read warpSums before the next tile's */
    }
}

/* ---- What __restrict__ promises, broken on purpose ----------------------
 * A __restrict__ parameter promises that, while the function runs, an
 * object it reaches that is modified is accessed through it alone (one
 * such pointer is enough to break it). chunkScan scans each chunk of
 * CHUNK ints serially, exclusive, then (inclusive) adds each input back.
 * Called in place, it reads in[] back after writing out[] there, and so
 * adds each prefix to itself: what its source says. chunkScanRestrict, the
 * same body with in and out __restrict__, breaks its promise in place: the
 * compiler may keep the inputs in registers or load them again, and the
 * source no longer defines the result. --check runs both. */
__device__ __forceinline__ void chunkScanBody(const int *in, int *out,
                                              size_t chunks, int inclusive)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         c < chunks; c += stride) {
        int run = 0;
        for (int k = 0; k < CHUNK; ++k) {
            const int x = in[c * CHUNK + k];
            out[c * CHUNK + k] = run;
            run += x;
        }
        if (inclusive)
            for (int k = 0; k < CHUNK; ++k)
                out[c * CHUNK + k] += in[c * CHUNK + k];
    }
}

__global__ void chunkScan(const int *in, int *out, size_t chunks, int incl)
{
    chunkScanBody(in, out, chunks, incl);
}

__global__ void chunkScanRestrict(const int *__restrict__ in,
                                  int *__restrict__ out, size_t chunks,
                                  int incl)
{
    chunkScanBody(in, out, chunks, incl);
}

/* ---- The rows: what runs, on which buffers ----------------------------- */

/* The lab at the size being run: the bench's buffers (scan_lab.h), the
 * plans, and a copy of the input one int off 16-byte alignment (shifted =
 * shiftBase + 1, or NULL). */
hx_bench B;
static struct {
    int *shiftBase, *shifted;
    ScanPlan plan;
    SinglePassPlan pass[3];   /* production, the piped loop, the ring */
    void *cub;
    size_t cubBytes;
} L;

static void runScan(void *ctx)
{
    const Scan *s = (const Scan *)ctx;
    const int incl = (s->flags & INCL) != 0, small = (s->flags & SMALL) != 0;
    L.plan.tileGrid = small ? 3 : 0;
    L.plan.grid = small ? 5 : 0;
    int *own = s->flags & OWN_TOTAL ? B.total : NULL;
    if (s->kind == COURSE)
        (incl ? scanInclusive : scanExclusive)(&L.plan, B.output.data, own, 0);
    if (s->kind == WITH)
        scanWith(&L.plan, s->tile, s->flags & QUARTER ? SCAN_TILE / 4
                 : SCAN_TILE, B.output.data, own, incl, 0);
    if (s->kind == PASS) {
        SinglePassPlan p =
            L.pass[s->flags & PIPED ? 1 : s->flags & RING ? 2 : 0];
        p.grid = small ? 3 : p.grid;
        p.stallNs = s->flags & STALL ? 4000 : 0;
        p.prefetch = s->flags & OTHER_PF ? !p.prefetch : p.prefetch;
        const int *in = s->flags & IN_PLACE ? B.output.data
                        : s->flags & SHIFTED ? L.shifted : B.input;
        singlePassScan(&p, in, B.output.data, B.total, incl, 0);
    }
    if (s->kind == CUB) {
        size_t bytes = L.cubBytes;
        HX_CHECK(cub::DeviceScan::ExclusiveSum(L.cub, bytes, B.input,
                                               B.output.data, (int)B.n, 0));
    }
}

/* In-place rows start from the input; the level sums start poisoned (all
 * are written before any is read, so leaked poison shows as a wrong value). */
static void startInPlace(void *)
{
    HX_CHECK(cudaMemcpy(B.output.data, B.input, B.n * sizeof(int),
                        cudaMemcpyDeviceToDevice));
    HX_CHECK(cudaMemset(L.plan.total, HX_POISON_BYTE, scanPlanBytes(B.n)));
}

/* A row of the bench from a Scan. The single pass and CUB read n ints and
 * write n (the look-back's 8 bytes of status per tile of 6,144 ints left
 * out); CUB's 2 launches are its dispatch's: a tile-state init kernel,
 * then one pass. Inclusive rows are held to the exclusive reference plus
 * the input. */
hx_row rowOf(const Scan *s)
{
    const int course = s->kind == COURSE || s->kind == WITH;
    hx_row r = hx_row();
    r.name = s->name;
    r.run = runScan;
    r.ctx = (void *)s;
    r.prepare = course || (s->flags & IN_PLACE) ? startInPlace : NULL;
    r.want = B.want;
    r.plus = s->flags & INCL ? B.input : NULL;
    r.total = s->kind == CUB ? NULL
              : course && !(s->flags & OWN_TOTAL) ? L.plan.total : B.total;
    r.total_want = &B.total_want;
    r.floor_bytes = course ? scanMovedBytes(&L.plan) : 2.0 * B.n * sizeof(int);
    r.launches = course             ? scanLaunches(&L.plan)
                 : s->kind == PASS ? singlePassLaunches(&L.pass[0])
                 : B.n             ? 2 : 0;
    return r;
}

/* ---- The lab at one size ----------------------------------------------- */

static size_t cubTempBytes(size_t n)
{
    size_t bytes = 0;
    HX_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, (const int *)NULL,
                                           (int *)NULL, (int)n, 0));
    return bytes < sizeof(int) ? sizeof(int) : bytes;
}

/* Device bytes at n (shifted non-NULL: with the misaligned copy). */
size_t labBytes(size_t n, void *shifted)
{
    return hx_bench_alloc_bytes(n) + (shifted ? n + 8 : 0) * sizeof(int) +
           scanPlanBytes(n) + 3 * singlePassBytes(n) + cubTempBytes(n);
}

/* Opens the lab at n and loads in[0..n) with its reference. */
void labOpen(size_t n, int shifted, const int *in, const int *want,
             long long total)
{
    hx_bench_alloc(&B, n);
    hx_bench_load(&B, in, want, total);
    L.shiftBase = L.shifted = NULL;
    if (shifted) {
        HX_CHECK(cudaMalloc(&L.shiftBase, (n + 4) * sizeof(int)));
        L.shifted = L.shiftBase + 1;
        HX_CHECK(cudaMemcpy(L.shifted, B.input, n * sizeof(int),
                            cudaMemcpyDeviceToDevice));
    }
    scanPlanCreate(&L.plan, n);
    singlePassPlanCreate(&L.pass[0], B.dev, n);
    singlePassPlanCreateOn(&L.pass[1], B.dev, n, SINGLE_PASS_PIPED);
    singlePassPlanCreateOn(&L.pass[2], B.dev, n, SINGLE_PASS_RING);
    L.cubBytes = cubTempBytes(n);
    HX_CHECK(cudaMalloc(&L.cub, L.cubBytes));
}

void labClose(void)
{
    HX_CHECK(cudaFree(L.cub));
    for (SinglePassPlan &p : L.pass) singlePassPlanDestroy(&p);
    scanPlanDestroy(&L.plan);
    if (L.shiftBase) HX_CHECK(cudaFree(L.shiftBase));
    hx_bench_free(&B);
}

const char *labShape(char *buf, size_t len)
{
    char pass[112];
    snprintf(buf, len, "%d levels of tiles of %d; %s", L.plan.levels,
             SCAN_TILE, singlePassShape(&L.pass[0], pass, sizeof pass));
    return buf;
}

/* ---- The table, and the sweep ------------------------------------------- */

/* The default run's rows, after the harness's memcpy and copyInts. */
static const Scan timed[] = {
    {"scanExclusive (scanTile)", COURSE, NULL, 0},
    {"scanInclusive (scanTile)", COURSE, NULL, INCL},
    {"scanWith(scanTileHillisSteele)", WITH, scanTileHillisSteele, 0},
    {"scanWith(scanTileWarp)", WITH, scanTileWarp, 0},
    {"singlePassScan exclusive", PASS, NULL, 0},
    {"singlePassScan inclusive", PASS, NULL, INCL},
    {"singlePassScan exclusive, piped (the sm_75/sm_80 path)", PASS, NULL,
     PIPED},
    {"cub::DeviceScan::ExclusiveSum", CUB, NULL, 0},
};
#define TIMED ((int)(sizeof timed / sizeof timed[0]))

static const char *const tableNotes[] = {
    "x floor: 2n ints moved for a copy, the single pass and CUB; about 4n "
    "for the course scan's levels",
    "course rows run in place, over their own output (values wrap; an add "
    "costs the same); single pass and CUB: input -> output, 2 launches (a "
    "reset of the tile states, one pass)", NULL};

/* Checks the rows, then times them interleaved, at --n or the default
 * size; input uniform in [0, hi], so every prefix fits in int (the course
 * scan's contract). Timed course rows scan the shared output in place, from
 * the second on the row before's scan: their int sums overflow and rely on
 * the GPU's add wrapping modulo 2^32 (undefined in C++; never checked). */
static int timeTable(const hx_opts *o)
{
    const size_t n = hx_bench_timing_n(&B, 3 * sizeof(int) + 1, labBytes,
                                       NULL);
    if (n == (size_t)-1) return HX_EXIT_NOMEM;
    labOpenRandom(n, o->seed);
    char shape[224];
    printf("input: uniform in [0, %d], seed %llu; %s\n", randomHigh(n),
           (unsigned long long)o->seed, labShape(shape, sizeof shape));
    hx_row rows[TIMED + 1];   /* + your_turn.cu's row, once it is filled */
    const int rc = hx_bench_measure(&B, rows, yourTurnRows(rows, timed, TIMED),
                                    0);
    if (rc == HX_EXIT_OK) hx_bench_table(&B, "scan", tableNotes);
    labClose();
    return rc;
}

/* --sweep: the copies, the course scan, the single pass and CUB at every
 * power of two from 2^10 that fits, checked then timed at each. */
static const Scan swept[] = {
    {"scanExclusive", COURSE, NULL, 0},
    {"singlePassScan", PASS, NULL, 0},
    {"singlePassScan piped", PASS, NULL, PIPED},
    {"singlePassScan ring", PASS, NULL, RING},
    {"cub ExclusiveSum", CUB, NULL, 0},
};
#define SWEPT ((int)(sizeof swept / sizeof swept[0]))

static int sweep(const hx_opts *o)
{
    const size_t maxN = hx_bench_sweep_max(B.dev, labBytes, NULL,
                                           2 * sizeof(int));
    FILE *csv = hx_bench_csv_open(o->csv ? o->csv : "scan-sweep.csv", PROG);
    if (!csv) return HX_EXIT_USAGE;
    /* One input; each size scans its first n, whose reference is the first
     * n of the whole one's (the total: its prefix at n). */
    int *in = (int *)hx_host_alloc(maxN * sizeof(int));
    int *want = (int *)hx_host_alloc((maxN + 1) * sizeof(int));
    hx_fill_uniform(in, maxN, 0, randomHigh(maxN), o->seed);
    want[maxN] = (int)hx_scan_exclusive(in, want, maxN);
    int rc = HX_EXIT_OK;
    for (size_t n = 1024; n <= maxN && rc == HX_EXIT_OK; n *= 2) {
        labOpen(n, 0, in, want, want[n]);
        hx_row rows[SWEPT];   /* piped and ring: where the ring runs */
        int k = 0;
        for (int j = 0; j < SWEPT; ++j)
            if (rowRuns(&swept[j])) rows[k++] = rowOf(&swept[j]);
        rc = hx_bench_measure(&B, rows, k, 0);
        if (rc == HX_EXIT_OK) hx_bench_sweep_line(&B, csv, -1.0);
        labClose();
    }
    fclose(csv);
    free(in);
    free(want);
    return rc;
}

static const char USAGE[] =
    "Day 31: the prefix sum. Checks every scan against the host, then times\n"
    "a memcpy, a copy, the course scan (exclusive and inclusive), two\n"
    "contrasting tile kernels, the single-pass scan with decoupled look-back\n"
    "and CUB's DeviceScan at one size, interleaved. --check: sizes 0 to over\n"
    "2^30, five inputs, every row, the __restrict__ example, planted errors\n"
    "(with --n, that size only). --sweep: n = 2^10, 2^11, ... up to what\n"
    "fits, into --csv (default scan-sweep.csv; harness/plot.py draws it).";

int main(int argc, char **argv)
{
    const double start = hx_now_seconds();
    hx_opts o;
    hx_device dev;
    int rc = hx_parse_args(argc, argv, &o, HX_OPT_SWEEP, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    if ((rc = hx_device_open(&dev, PROG)) != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);
    hx_bench_open(&B, &dev, &o, "day31-scan");
    rc = o.check ? selfCheck(&o) : o.sweep ? sweep(&o) : timeTable(&o);
    hx_bench_wall(&B, start);
    hx_bench_close(&B);
    return rc;
}
