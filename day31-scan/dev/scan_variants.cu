/* dev/scan_variants.cu: the single-pass scan's configurations, checked and
 * timed side by side (maintainers; make dev builds it, make dev-check runs
 * its --check). The production configuration (../singlepass_scan.cuh) is
 * the first row; the others are the ones the lesson's measurements
 * compare it with: the plain tile loop before the pipelined one, the
 * configuration before any tuning (acquire-release), loading ahead, wider
 * windows, backoff, other tile shapes of the pipelined loop, and its
 * mbarrier form; on sm_90 and newer, the ring of bulk copies
 * (../ring_pipeline.cuh, the production path there), one, two and three
 * blocks an SM, its stages sized from the device.
 *
 * Build: make -C day31-scan dev
 * Run:   ./day31-scan/dev/scan-variants [--n N] [--runs R] [--warmup W]
 *            every configuration, memcpy, copy and CUB at one size,
 *            interleaved (a configuration that fails its check is left
 *            out, and the exit code is 1)
 *        ./day31-scan/dev/scan-variants --check
 *            every configuration at the self-check's sizes (to 2^26),
 *            random and wrapping inputs, exclusive and inclusive, with the
 *            look-back's debug stalls (windows that must move back), and
 *            the loop that loads ahead on 3 blocks
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
#include "../singlepass_scan.cuh"
#include "lookback_variants.cuh"

static const char *const PROG = "scan-variants";

/* singlePassScanPlain: the single pass on the plain tile loops
 * (lookback_variants.cuh): lookbackEachTile, one tile at a time, or
 * (AHEAD) lookbackEachTileAhead, which loads the next tile while this one
 * is finished. For each tile the block scans it (StripedTile::scanUp),
 * warp 0 finds the tile's exclusive prefix by the look-back
 * (lookbackTileWith), and the block stores the result with int4 stores.
 * The contract is singlePassScan's (../singlepass_scan.cuh).
 * __launch_bounds__ MIN_BLOCKS > 1 caps the registers for that many blocks
 * per SM. */
template <int BLOCK, int ITEMS, int MIN_BLOCKS, class Policy, bool AHEAD>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
singlePassScanPlain(const int *in, int *out, size_t n,
                    unsigned long long *state, int *total, int inclusive,
                    unsigned stallNs)
{
    typedef StripedTile<BLOCK, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ unsigned tileSlot;
    __shared__ int tilePrefix;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool aligned = (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0;

    auto body = [&](unsigned tile, size_t base, bool vec,
                    int4 (&x)[Tile::VECS]) {
        unsigned v[Tile::VECS];
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j)
            v[j] = (unsigned)x[j].x + (unsigned)x[j].y + (unsigned)x[j].z +
                   (unsigned)x[j].w;
        /* Contains the barrier after which warp 0 has every warp's totals. */
        const unsigned aggregate = Tile::scanUp(v, st);
        if (threadIdx.x < 32) {
            const LookbackResult<int> r =
                lookbackTileWith<LookbackSum, Policy>(state, tile,
                                                      (int)aggregate, stallNs);
            if (threadIdx.x == 0) {
                tilePrefix = r.exclusive;
                if (tile == tiles - 1) *total = r.inclusive;
            }
        }
        /* Everyone reads tilePrefix and warp 0's scanned partials. */
        __syncthreads();
        const unsigned prefix = (unsigned)tilePrefix;
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const unsigned a = x[j].x, b = x[j].y, c = x[j].z, d = x[j].w;
            const unsigned e =
                prefix + Tile::exclusiveOf(j, v[j], a + b + c + d, st);
            const unsigned first = inclusive ? e + a : e;
            x[j].x = (int)first;
            x[j].y = (int)(first + (inclusive ? b : a));
            x[j].z = (int)(first + (inclusive ? b + c : a + b));
            x[j].w = (int)(first + (inclusive ? b + c + d : a + b + c));
        }
        Tile::store(out, base, n, vec, x);
    };
    /* 0 pads a partial tile: it adds nothing, and is never stored. */
    if constexpr (AHEAD)
        lookbackEachTileAhead<Tile>(state, &tileSlot, in, n, aligned, 0,
                                    body);
    else
        lookbackEachTile<Tile>(state, &tileSlot, in, n, aligned, 0, body);
}

/* A name reads: threads x ints per thread; "ahead": the next tile loads
 * during the look-back; relaxed or acq-rel atomics; the window in tiles;
 * "backoff": a warp that finds a predecessor not yet published sleeps 128
 * ns, then 256, ... up to 1 us; "piped": singlePassScanPiped, the walk in
 * a warp of its own (named barrier 1 among the tile's warps, or, with
 * "mbarrier", a cuda::barrier); "L2 prefetch N rounds ahead": with each
 * tile's loads, prefetchTileL2 (tile.cuh) of the tile taken N rounds later
 * (the kernels' PF; NOTES.md, "An L2 prefetch a round ahead"). */
typedef struct {
    const char *name;
    SinglePassKernel kernel;
    int threads, items;   /* the tile: threads x items ints */
    int block;            /* threads a block launches */
    int ring;             /* 0; else a ring kernel (singlePassScanRing), this
                             many blocks an SM, on sm_90 and newer only */
} Config;

#define PLAIN(T, I, M, P, A) singlePassScanPlain<T, I, M, P, A>, T, I, T, 0
#define PIPED(T, I, SYNC) PIPEDPF(T, I, SYNC, 0)
#define PIPEDPF(T, I, SYNC, PF) \
    singlePassScanPiped<T, I, 1, LookbackRelaxed32, SYNC, PF>, T, I, T + 32, 0
#define RING(T, I, B) RINGPF(T, I, B, 0)
#define RINGPF(T, I, B, PF) \
    singlePassScanRing<T, I, LookbackRelaxed32, PF>, T, I, T + 64, B
static const Config configs[] = {
    {SCAN_PASS_NAME " (production, sm_75/sm_80)", singlePassKernel,
     SCAN_PASS_THREADS, SCAN_PASS_ITEMS, SCAN_PASS_BLOCK, 0},
    {"256 x 16, relaxed, window 32",
     PLAIN(256, 16, 1, LookbackRelaxed32, false)},
    {"256 x 16, acq-rel, window 32 (untuned)",
     PLAIN(256, 16, 1, LookbackAcqRel32, false)},
    {"256 x 16, relaxed, window 32, backoff",
     PLAIN(256, 16, 1, LookbackRelaxed32Backoff, false)},
    {"256 x 16, relaxed, window 128",
     PLAIN(256, 16, 1, LookbackRelaxed128, false)},
    {"256 x 16 ahead, relaxed, window 32",
     PLAIN(256, 16, 1, LookbackRelaxed32, true)},
    {"256 x 16 ahead, relaxed, window 128",
     PLAIN(256, 16, 1, LookbackRelaxed128, true)},
    {"256 x 16 piped, relaxed, window 32", PIPED(256, 16, PIPE_NAMED)},
    {"256 x 32 piped, relaxed, window 32", PIPED(256, 32, PIPE_NAMED)},
    {"256 x 24 piped, mbarrier, relaxed, window 32",
     PIPED(256, 24, PIPE_MBARRIER)},
    {"256 x 24 ring of bulk copies, 1 block an SM", RING(256, 24, 1)},
    {"256 x 24 ring of bulk copies, 2 blocks an SM", RING(256, 24, 2)},
    {"256 x 24 ring of bulk copies, 3 blocks an SM", RING(256, 24, 3)},
    {"256 x 16 ring of bulk copies, 1 block an SM", RING(256, 16, 1)},
    {"256 x 16 ring of bulk copies, 2 blocks an SM", RING(256, 16, 2)},
    {"256 x 16 ring of bulk copies, 3 blocks an SM", RING(256, 16, 3)},
    {"256 x 24 piped, relaxed, window 32, L2 prefetch 1 round ahead",
     PIPEDPF(256, 24, PIPE_NAMED, 1)},
    {"256 x 24 piped, relaxed, window 32, L2 prefetch 2 rounds ahead",
     PIPEDPF(256, 24, PIPE_NAMED, 2)},
    {"256 x 32 piped, relaxed, window 32, L2 prefetch 1 round ahead",
     PIPEDPF(256, 32, PIPE_NAMED, 1)},
    {"256 x 16 ring of bulk copies, 2 blocks an SM, L2 prefetch 1 round "
     "ahead (production, sm_90)",
     RINGPF(256, 16, 2, 1)},
    {"256 x 16 ring of bulk copies, 2 blocks an SM, L2 prefetch 2 rounds "
     "ahead",
     RINGPF(256, 16, 2, 2)},
};
#undef PLAIN
#undef PIPED
#undef PIPEDPF
#undef RING
#undef RINGPF
#define CONFIGS ((int)(sizeof configs / sizeof configs[0]))
#define AHEAD_CONFIG 5        /* the first on lookbackEachTileAhead */
#define SMALLEST_TILE 4096    /* the most tiles any configuration makes */

/* The lab: the bench's buffers, the look-back's state for the most tiles,
 * CUB's storage, the blocks of each configuration that run at once. */
static hx_bench B;
static struct {
    unsigned long long *state;
    void *cub;
    size_t cubBytes;
    unsigned resident[CONFIGS];   /* 0: the configuration cannot run */
    size_t smem[CONFIGS];         /* a ring's dynamic shared memory */
} L;

/* One row: a configuration, how it runs. */
typedef struct {
    int config;
    int inclusive;
    unsigned grid;      /* 0: as many blocks as run at once, <= tiles */
    unsigned stallNs;   /* the look-back's debug stalls; 0 when timed */
    char name[160];
} Run;

static void runConfig(void *ctx)
{
    const Run *r = (const Run *)ctx;
    const Config *c = &configs[r->config];
    const size_t tile = (size_t)c->threads * c->items;
    const size_t tiles = (B.n + tile - 1) / tile;
    if (B.n == 0) {
        HX_CHECK(cudaMemsetAsync(B.total, 0, sizeof(int), 0));
        return;
    }
    unsigned grid = r->grid;
    if (grid == 0) {
        grid = L.resident[r->config];
        grid = tiles < grid ? (unsigned)tiles : grid;
    }
    HX_CHECK(cudaMemsetAsync(L.state, 0, lookbackBytes(tiles), 0));
    c->kernel<<<grid, c->block, L.smem[r->config]>>>(
        B.input, B.output.data, B.n, L.state, B.total, r->inclusive,
        r->stallNs);
    HX_CHECK_LAUNCH("singlePassScan");
}

static void runCub(void *)
{
    size_t bytes = L.cubBytes;
    HX_CHECK(cub::DeviceScan::ExclusiveSum(L.cub, bytes, B.input,
                                           B.output.data, (int)B.n, 0));
}

static hx_row rowOf(Run *r)
{
    hx_row row = hx_row();
    row.name = r->name;
    row.run = runConfig;
    row.ctx = r;
    row.want = B.want;
    row.plus = r->inclusive ? B.input : NULL;
    row.total = B.total;
    row.total_want = &B.total_want;
    row.floor_bytes = 2.0 * B.n * sizeof(int);
    row.launches = B.n ? 2 : 1;
    return row;
}

static size_t cubBytes(size_t n)
{
    size_t bytes = 0;
    HX_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, (const int *)NULL,
                                           (int *)NULL, (int)n, 0));
    return bytes < sizeof(int) ? sizeof(int) : bytes;
}

static size_t labBytes(size_t n, void *)
{
    return hx_bench_alloc_bytes(n) + lookbackBytes(n / SMALLEST_TILE + 1) +
           cubBytes(n);
}

/* A ring's stages, from the device: as many tiles as one block's share of
 * the SM's shared memory holds beside its static shared memory (at most
 * RING_MAX_STAGES); their bytes, or 0 when the GPU is older than sm_90 or
 * fewer than two stages fit. */
static size_t ringSmem(const Config *c)
{
    if (B.dev->major < 9) return 0;
    int optin = 0, perSm = 0;
    HX_CHECK(cudaDeviceGetAttribute(
        &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, B.dev->id));
    HX_CHECK(cudaDeviceGetAttribute(
        &perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, B.dev->id));
    cudaFuncAttributes fa;
    HX_CHECK(cudaFuncGetAttributes(&fa, (const void *)c->kernel));
    size_t share = (size_t)perSm / (size_t)c->ring;
    share = share > 1024 ? share - 1024 : 0;   /* the block's reserve */
    if (share > (size_t)optin) share = (size_t)optin;
    const size_t tile = (size_t)c->threads * c->items * sizeof(int);
    if (share < fa.sharedSizeBytes + 2 * tile) return 0;
    size_t stages = (share - fa.sharedSizeBytes) / tile;
    if (stages > RING_MAX_STAGES) stages = RING_MAX_STAGES;
    /* The most any configuration of this kernel asks for: the 1, 2 and 3
     * blocks an SM share it, sized differently, and the attribute is the
     * kernel's, not the launch's. */
    HX_CHECK(cudaFuncSetAttribute(
        (const void *)c->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
        optin - (int)fa.sharedSizeBytes));
    return stages * tile;
}

/* Opens the lab at n on in[0..n) (host), with its reference. */
static void labOpen(size_t n, const int *in)
{
    int *want = (int *)hx_host_alloc(n * sizeof(int));
    const long long total = hx_scan_exclusive(in, want, n);
    hx_bench_alloc(&B, n);
    hx_bench_load(&B, in, want, total);
    free(want);
    HX_CHECK(cudaMalloc(&L.state, lookbackBytes(n / SMALLEST_TILE + 1)));
    L.cubBytes = cubBytes(n);
    HX_CHECK(cudaMalloc(&L.cub, L.cubBytes));
    for (int c = 0; c < CONFIGS; ++c) {
        L.smem[c] = configs[c].ring ? ringSmem(&configs[c])
                                                    : 0;
        L.resident[c] = configs[c].ring && !L.smem[c]
                            ? 0
                            : hx_resident_blocks(
                                  B.dev, (const void *)configs[c].kernel,
                                  configs[c].block, L.smem[c]);
        /* A ring runs as many blocks an SM as it was sized for, no more:
         * its stages are the loads in flight. */
        if (configs[c].ring && L.resident[c] >
                                   (unsigned)(configs[c].ring * B.dev->sms))
            L.resident[c] = (unsigned)(configs[c].ring * B.dev->sms);
    }
}

static void labClose(void)
{
    HX_CHECK(cudaFree(L.cub));
    HX_CHECK(cudaFree(L.state));
    hx_bench_free(&B);
}

/* Values in [0, 7], lowered so that every prefix fits in int; or (wrap)
 * any int, so that the sums wrap modulo 2^32. */
static void fillInput(int *a, size_t n, int wrap, uint64_t seed)
{
    const int hi = n > 0 && (size_t)INT_MAX / n < 7 ? (int)(INT_MAX / n) : 7;
    if (wrap) hx_fill_uniform(a, n, INT_MIN, INT_MAX, seed);
    else hx_fill_uniform(a, n, 0, hi, seed);
}

/* Every configuration, both ways, with stalls, on both inputs at n; the
 * ahead loop also on 3 blocks. */
static int checkSize(size_t n, uint64_t seed)
{
    if (!hx_bench_fits(&B, n, labBytes(n, NULL), 2 * n * sizeof(int)))
        return HX_EXIT_OK;
    int *in = (int *)hx_host_alloc(n * sizeof(int));
    int rc = HX_EXIT_OK;
    for (int wrap = 0; wrap < 2 && rc == HX_EXIT_OK; ++wrap) {
        fillInput(in, n, wrap, seed + wrap);
        labOpen(n, in);
        char label[96];
        snprintf(label, sizeof label, "n=%zu %s (seed %llu):", n,
                 wrap ? "any int" : "random",
                 (unsigned long long)(seed + wrap));
        int ran = 0;
        for (int c = 0; c <= CONFIGS && rc == HX_EXIT_OK; ++c) {
            if (c < CONFIGS && !L.resident[c]) continue;
            ran += c < CONFIGS;
            Run r = {c < CONFIGS ? c : AHEAD_CONFIG, c % 2, 0, 4000u, ""};
            if (c == CONFIGS) r.grid = 3, r.stallNs = 0;
            snprintf(r.name, sizeof r.name, "%s %s, %s",
                     configs[r.config].name,
                     r.inclusive ? "inclusive" : "exclusive",
                     r.grid ? "3 blocks" : "stalled look-back");
            const hx_row row = rowOf(&r);
            if (hx_bench_check_row(&B, &row, label)) rc = HX_EXIT_FAIL;
        }
        if (rc == HX_EXIT_OK)
            printf("  n=%-10zu %-8s pass (%d configurations, stalled; one "
                   "on 3 blocks)\n", n, wrap ? "any int" : "random", ran);
        labClose();
    }
    free(in);
    return rc;
}

static int selfCheck(const hx_opts *o)
{
    /* Around the smallest tile and the widest window's runs of withheld
     * prefixes (tiles 256 to 511 for a window of 128: 600 tiles of 4096
     * reach past them). */
    const size_t extra[] = {600 * 4096 + 3};
    const hx_size_plan plan = {
        SMALLEST_TILE,
        hx_resident_blocks(B.dev, (const void *)configs[1].kernel,
                           configs[1].block, 0),
        0, o->seed, extra, 1};
    size_t sizes[64], count = o->n_set ? 1 : hx_check_sizes(&plan, sizes, 64);
    if (o->n_set) sizes[0] = o->n;
    int rc = HX_EXIT_OK;
    for (size_t i = 0; i < count && rc == HX_EXIT_OK; ++i)
        if (o->n_set || sizes[i] <= ((size_t)1 << 26))
            rc = checkSize(sizes[i], o->seed + 16 * i);
    if (rc == HX_EXIT_OK) printf("self-check: pass\n");
    return rc;
}

/* Every configuration against the memcpy, the copy and CUB at one size,
 * interleaved; one that fails its check is left out. */
static int timeVariants(const hx_opts *o)
{
    const size_t n = hx_bench_timing_n(&B, 3 * sizeof(int) + 1, labBytes,
                                       NULL);
    if (n == (size_t)-1) return HX_EXIT_NOMEM;
    int *in = (int *)hx_host_alloc(n * sizeof(int));
    fillInput(in, n, 0, o->seed);
    labOpen(n, in);
    free(in);
    static Run runs[CONFIGS];
    hx_row rows[CONFIGS + 1];
    int k = 0;
    for (int c = 0; c < CONFIGS; ++c) {
        if (!L.resident[c]) continue;
        runs[k] = Run{c, 0, 0, 0, ""};
        snprintf(runs[k].name, sizeof runs[k].name, "%s", configs[c].name);
        if (configs[c].ring)
            snprintf(runs[k].name, sizeof runs[k].name, "%s (%zu stages)",
                     configs[c].name,
                     L.smem[c] / ((size_t)configs[c].threads *
                                  configs[c].items * sizeof(int)));
        rows[k] = rowOf(&runs[k]);
        ++k;
    }
    rows[k] = hx_row();
    rows[k].name = "cub::DeviceScan::ExclusiveSum";
    rows[k].run = runCub;
    rows[k].want = B.want;
    rows[k].floor_bytes = 2.0 * n * sizeof(int);
    rows[k].launches = 2;
    const int rc = hx_bench_measure(&B, rows, k + 1, HX_BENCH_LEAVE_OUT);
    static const char *const notes[] = {
        "the production configurations (../singlepass_scan.cuh) say so; "
        "a failed one is left out (above)", NULL};
    hx_bench_table(&B, "single-pass exclusive scan, configurations", notes);
    labClose();
    return rc;
}

static const char USAGE[] =
    "The single-pass scan's configurations (day 31, maintainers): each\n"
    "checked, then all timed interleaved with the memcpy, the copy and CUB;\n"
    "--check: every configuration at the self-check's sizes up to 2^26.";

int main(int argc, char **argv)
{
    const double start = hx_now_seconds();
    /* A line at a time, also into a file: a run stopped by a timeout
     * (a configuration that hangs) still shows the sizes it passed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    hx_opts o;
    hx_device dev;
    int rc = hx_parse_args(argc, argv, &o, HX_OPT_VARIANTS, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    rc = hx_device_open(&dev, PROG);
    if (rc != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);
    hx_bench_open(&B, &dev, &o, "day31-scan-variants");
    rc = o.check ? selfCheck(&o) : timeVariants(&o);
    hx_bench_wall(&B, start);
    hx_bench_close(&B);
    return rc;
}
