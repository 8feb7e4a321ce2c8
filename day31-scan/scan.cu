/* scan.cu: day 31, the prefix sum (scan) of n ints, checked and timed.
 *
 * Shows the course scan (tile_scan.h: a work-efficient scan of each
 * 256-element tile in shared memory, applied level by level, in place)
 * beside the production path, a single pass with decoupled look-back
 * (lookback.cuh), against a copy of the same bytes, two other ways of
 * scanning one tile, and CUB. Every row is checked element for element
 * against the host before anything is timed.
 *
 * Build: make -C day31-scan            (ARCH="75 80 90" by default)
 * Run:   ./day31-scan/scan [--n N] [--seed S] [--runs R] [--warmup W]
 *        ./day31-scan/scan --check        GPU self-check, no timing
 *        ./day31-scan/scan --variants     the single-pass configurations
 *        ./day31-scan/scan --sweep [--csv FILE]   sizes 2^10 and up, a CSV
 *
 * Rows of the table (all at the same n, timed interleaved):
 *   cudaMemcpy device to device     the floor's yardstick: every row's
 *                                   floor is its bytes at this bandwidth
 *   copyInts                        grid-stride copy of n ints: the "x copy"
 *   scanExclusive / scanInclusive   the course scan, scanTile at every level
 *   scanWith(scanTileHillisSteele)  the course's levels with a naive tile
 *                                   kernel: 8 steps, O(n log n) adds
 *   scanWith(scanTileWarp)          the course's levels with a tile kernel
 *                                   built on __shfl_up_sync
 *   singlePassScan exclusive / inclusive   one pass, decoupled look-back:
 *                                   the production configuration,
 *                                   passConfigs[0] (singlePassScanPiped)
 *   cub::DeviceScan::ExclusiveSum   CUB, the library row (also one pass)
 */
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <cub/device/device_scan.cuh>

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_time.h"
#include "lookback.cuh"
#include "tile_scan.h"

static const char *const PROG = "scan";

/* ------------------------------------------------------------------------
 * Contrasting tile kernels. Both follow the ScanTileKernel contract of
 * tile_scan.h exactly: scan each SCAN_TILE-element tile of data[0..n) in
 * place (exclusive, or inclusive when inclusive != 0), grid-striding over
 * tiles, and write tile k's total to tileSums[k]. Passed to scanWith, they
 * replace scanTile at every level, so the rows differ in the tile kernel
 * and nothing else. Both run SCAN_TILE threads, one element each.
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
 * The single-pass scan: one read and one write of every element.
 *
 * Each block takes tiles of BLOCK * ITEMS ints in start order and has each
 * loaded as int4 vectors into registers (StripedTile: ITEMS / 4
 * independent 16-byte loads per thread in flight) by one of lookback.cuh's
 * tile loops: lookbackEachTile, one tile at a time, or (AHEAD)
 * lookbackEachTileAhead, which loads the next tile while this one is
 * finished (singlePassScanPiped, below, is the production one, on the
 * third loop). For each tile the block scans it (warp shuffles, then the
 * warps' totals), lets warp 0 find the tile's exclusive prefix by the
 * look-back (lookbackTileWith, Policy: the window, the memory order, the
 * backoff), and stores the result with int4 stores. Contract:
 * - in and out are the same array (in place) or do not overlap at all:
 *   each element is read once, by the thread that later writes its result,
 *   and nothing else reads it. A partial overlap would let one block
 *   overwrite input another has not read yet. That is also why neither
 *   pointer is __restrict__ (see chunkScan below).
 * - exclusive (inclusive = 0) or inclusive; int sums wrap modulo 2^32;
 * - the total (sum of the whole input) is written to the device int
 *   *total, like the course scan's; n = 0 launches nothing (the launcher
 *   zeroes *total);
 * - state holds lookbackBytes(tiles) zero bytes at launch (the launcher's
 *   memset); any grid of at least one block is correct;
 * - 16-byte vectors where in and out are both 16-byte aligned and the
 *   tile is whole; int loads and stores otherwise (same layout);
 * - stallNs > 0 turns on the look-back's debug stalls (checks only).
 * ---------------------------------------------------------------------- */

/* __launch_bounds__(BLOCK, MIN_BLOCKS): at most BLOCK threads, and at
 * least MIN_BLOCKS blocks per SM. MIN_BLOCKS 1 sets no occupancy target,
 * so ptxas gives the tile (twice over with AHEAD) the registers it needs:
 * on sm_90, 39 for 256 x 16 and 80 with AHEAD (3 blocks of 256 per SM);
 * a larger target caps the registers (4 blocks of 256: 64). */
template <int BLOCK, int ITEMS, int MIN_BLOCKS, class Policy, bool AHEAD>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
singlePassScan(const int *in, int *out, size_t n,
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

/* The same scan on lookback.cuh's pipelined loop: BLOCK tile threads and
 * a walker warp (BLOCK + 32 threads a block). reduce scans the tile in
 * place (x becomes each element's prefix within the tile) and returns the
 * aggregate; stash keeps x in the thread's own shared slots; finish adds
 * the tile's prefix and stores. Same contract as singlePassScan. */
template <int BLOCK, int ITEMS, int MIN_BLOCKS, class Policy, int SYNC>
__global__ void __launch_bounds__(BLOCK + 32, MIN_BLOCKS)
singlePassScanPiped(const int *in, int *out, size_t n,
                    unsigned long long *state, int *total, int inclusive,
                    unsigned stallNs)
{
    typedef StripedTile<BLOCK, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ PipeSlots<int> slots;
    __shared__ int4 kept[Tile::VECS * BLOCK];
    const bool aligned = (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0;

    auto reduce = [&](unsigned, size_t, bool, int4 (&x)[Tile::VECS],
                      auto sync) {
        unsigned v[Tile::VECS];
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j)
            v[j] = (unsigned)x[j].x + (unsigned)x[j].y + (unsigned)x[j].z +
                   (unsigned)x[j].w;
        const unsigned aggregate = Tile::scanUpWith(v, st, sync);
        /* Everyone reads warp 0's scanned partials. */
        sync();
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const unsigned a = x[j].x, b = x[j].y, c = x[j].z, d = x[j].w;
            const unsigned e = Tile::exclusiveOf(j, v[j], a + b + c + d, st);
            const unsigned first = inclusive ? e + a : e;
            x[j].x = (int)first;
            x[j].y = (int)(first + (inclusive ? b : a));
            x[j].z = (int)(first + (inclusive ? b + c : a + b));
            x[j].w = (int)(first + (inclusive ? b + c + d : a + b + c));
        }
        return (int)aggregate;
    };
    auto stash = [&](const int4 (&x)[Tile::VECS], auto) {
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j)
            kept[j * BLOCK + threadIdx.x] = x[j];
    };
    auto finish = [&](unsigned, size_t base, bool vec, int prefix, int) {
        const unsigned p = (unsigned)prefix;
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            int4 y = kept[j * BLOCK + threadIdx.x];
            y.x = (int)((unsigned)y.x + p);
            y.y = (int)((unsigned)y.y + p);
            y.z = (int)((unsigned)y.z + p);
            y.w = (int)((unsigned)y.w + p);
            Tile::storeVector(out, base, n, vec, j, y);
        }
    };
    /* 0 pads a partial tile: it adds nothing, and is never stored. */
    lookbackPipelined<Tile, LookbackSum, Policy, SYNC>(
        state, slots, in, n, aligned, 0, stallNs, total, reduce, finish,
        stash);
}

typedef void (*PassKernel)(const int *, int *, size_t, unsigned long long *,
                           int *, int, unsigned);

/* The single-pass scan's tuning, in one place: every configuration is
 * built and checked; the first is the production one (the table, the sweep
 * and the lesson use it); --variants times them all side by side. Grid:
 * as many blocks as fit on the GPU at once, each looping over tiles. A
 * name reads: threads x ints per thread; "ahead": the next tile loads
 * during the look-back (lookbackEachTileAhead); relaxed or acq-rel
 * atomics; the look-back's window in tiles; "backoff": a warp that finds a
 * predecessor not yet published sleeps 128 ns, then 256, ... up to 1 us,
 * before reading again. "piped": singlePassScanPiped, the walk in a warp
 * of its own while the next tile loads (lookbackPipelined; the tile's
 * warps meet at named barrier 1, or, "mbarrier", at a cuda::barrier). The
 * first row is the production one; the second the production one before
 * the piped loop; the third the configuration before any tuning, kept as
 * the yardstick. */
typedef struct {
    const char *name;
    PassKernel kernel;
    int threads, items;   /* the tile: threads x items ints */
    int block;            /* threads a block launches; 0: threads */
} PassConfig;

static int passBlock(const PassConfig *c)
{
    return c->block ? c->block : c->threads;
}

#define PIPED(T, I, SYNC) \
    singlePassScanPiped<T, I, 1, LookbackRelaxed32, SYNC>, T, I, T + 32
static const PassConfig passConfigs[] = {
    {"256 x 24 piped, relaxed, window 32",
     PIPED(256, 24, PIPE_NAMED)},
    {"256 x 16, relaxed, window 32",
     singlePassScan<256, 16, 1, LookbackRelaxed32, false>, 256, 16},
    {"256 x 16, acq-rel, window 32 (untuned)",
     singlePassScan<256, 16, 1, LookbackAcqRel32, false>, 256, 16},
    {"256 x 16 ahead, relaxed, window 128",
     singlePassScan<256, 16, 1, LookbackRelaxed128, true>, 256, 16},
    {"256 x 16, relaxed, window 32, backoff",
     singlePassScan<256, 16, 1, LookbackRelaxed32Backoff, false>, 256, 16},
    {"256 x 16, relaxed, window 128",
     singlePassScan<256, 16, 1, LookbackRelaxed128, false>, 256, 16},
    {"256 x 16 ahead, relaxed, window 32",
     singlePassScan<256, 16, 1, LookbackRelaxed32, true>, 256, 16},
    {"256 x 16 ahead, relaxed, window 64",
     singlePassScan<256, 16, 1, LookbackRelaxed64, true>, 256, 16},
    {"256 x 16 ahead, relaxed, window 128, backoff",
     singlePassScan<256, 16, 1, LookbackRelaxed128Backoff, true>, 256, 16},
    {"256 x 16 ahead, acq-rel, window 128",
     singlePassScan<256, 16, 1, LookbackAcqRel128, true>, 256, 16},
    {"256 x 16 ahead, relaxed, window 128, 4 blocks/SM",
     singlePassScan<256, 16, 4, LookbackRelaxed128, true>, 256, 16},
    {"128 x 16 ahead, relaxed, window 128",
     singlePassScan<128, 16, 1, LookbackRelaxed128, true>, 128, 16},
    {"512 x 16 ahead, relaxed, window 128, 2 blocks/SM",
     singlePassScan<512, 16, 2, LookbackRelaxed128, true>, 512, 16},
    {"256 x 32 ahead, relaxed, window 128, 2 blocks/SM",
     singlePassScan<256, 32, 2, LookbackRelaxed128, true>, 256, 32},
    {"256 x 16 piped, relaxed, window 32",
     PIPED(256, 16, PIPE_NAMED)},
    {"256 x 32 piped, relaxed, window 32",
     PIPED(256, 32, PIPE_NAMED)},
    {"256 x 24 piped, mbarrier, relaxed, window 32",
     PIPED(256, 24, PIPE_MBARRIER)},
};
#undef PIPED
#define PASS_CONFIGS ((int)(sizeof passConfigs / sizeof passConfigs[0]))
#define PASS_SMALLEST_TILE (128 * 16)   /* the most tiles any config makes */

/* What single-pass runs at one n need on the device. */
typedef struct {
    size_t n;
    unsigned long long *state;   /* lookbackBytes(most tiles) */
    unsigned resident[PASS_CONFIGS];  /* blocks of each that fit at once */
} PassPlan;

static size_t passTiles(const PassConfig *c, size_t n)
{
    const size_t tile = (size_t)c->threads * c->items;
    return (n + tile - 1) / tile;
}

static void passPlanCreate(PassPlan *p, const hx_device *dev, size_t n)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    HX_CHECK(cudaMalloc(&p->state, lookbackBytes((n + PASS_SMALLEST_TILE - 1)
                                                 / PASS_SMALLEST_TILE)));
    for (int c = 0; c < PASS_CONFIGS; ++c) {
        int perSm = 0;
        HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &perSm, passConfigs[c].kernel, passBlock(&passConfigs[c]), 0));
        p->resident[c] = (unsigned)(perSm > 0 ? perSm : 1) *
                         (unsigned)(dev->sms > 0 ? dev->sms : 1);
    }
}

static void passPlanDestroy(PassPlan *p)
{
    if (p->state) HX_CHECK(cudaFree(p->state));
    memset(p, 0, sizeof *p);
}

/* One single-pass scan on the default stream: the state's reset (a
 * memset), then the kernel. grid 0 takes the configuration's own. */
static void singlePassRun(const PassPlan *p, int config, const int *in,
                          int *out, int *total, int inclusive, unsigned grid,
                          unsigned stallNs)
{
    const PassConfig *c = &passConfigs[config];
    if (p->n == 0) {
        HX_CHECK(cudaMemsetAsync(total, 0, sizeof(int), 0));
        return;
    }
    const size_t tiles = passTiles(c, p->n);
    if (grid == 0)
        grid = tiles < p->resident[config] ? (unsigned)tiles
                                           : p->resident[config];
    HX_CHECK(cudaMemsetAsync(p->state, 0, lookbackBytes(tiles), 0));
    c->kernel<<<grid, passBlock(c)>>>(in, out, p->n, p->state, total,
                                    inclusive, stallNs);
    HX_CHECK_LAUNCH("singlePassScan");
}

/* ------------------------------------------------------------------------
 * What __restrict__ promises, broken on purpose.
 *
 * A __restrict__ parameter promises that, while the function runs, the
 * object it reaches is accessed only through it (or pointers derived from
 * it). chunkScan scans each chunk of CHUNK ints serially, exclusive, then
 * (inclusive) adds each input back: correct for distinct in and out.
 * chunkScanRestrict is the same body with in and out __restrict__.
 * Called in place, chunkScan does what its source says: it reads in[] back
 * after writing out[] there, and so adds each prefix to itself.
 * chunkScanRestrict breaks its promise, and the compiler, relying on it,
 * may keep the loaded inputs in registers (nvcc 13.0 does: it computes the
 * inclusive values before any store) or load them again: the source no
 * longer defines the result. --check runs both (checkAliasing).
 * ---------------------------------------------------------------------- */

#define CHUNK 8

__device__ __forceinline__ void chunkScanBody(const int *in, int *out,
                                              size_t chunks, int inclusive)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         c < chunks; c += stride) {
        const size_t b = c * CHUNK;
        int run = 0;
#pragma unroll
        for (int k = 0; k < CHUNK; ++k) {
            const int x = in[b + k];
            out[b + k] = run;
            run += x;
        }
        if (inclusive)
#pragma unroll
            for (int k = 0; k < CHUNK; ++k) out[b + k] += in[b + k];
    }
}

__global__ void chunkScan(const int *in, int *out, size_t chunks,
                          int inclusive)
{
    chunkScanBody(in, out, chunks, inclusive);
}

__global__ void chunkScanRestrict(const int *__restrict__ in,
                                  int *__restrict__ out, size_t chunks,
                                  int inclusive)
{
    chunkScanBody(in, out, chunks, inclusive);
}

/* ------------------------------------------------------------------------
 * Baseline, and the device-side comparison
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

typedef struct {
    unsigned long long bad;        /* slots where got != want */
    unsigned long long unwritten;  /* of those, slots holding HX_POISON */
    unsigned long long first;      /* lowest bad index; ULLONG_MAX if none */
} Mismatch;

/* Element-for-element comparison on the device, so a check at 2^28 costs
 * no copy to the host: want[i] = ref[i], or ref[i] + plus[i] (wrapping)
 * when plus is not NULL. ref is the host reference, uploaded; the
 * inclusive rows are held to the host's exclusive reference plus the
 * input, the identity hx_ref.h's two scans satisfy. */
__global__ void compareInts(const int *__restrict__ got,
                            const int *__restrict__ ref,
                            const int *__restrict__ plus, size_t n,
                            Mismatch *m)
{
    unsigned long long bad = 0, unwritten = 0, first = ULLONG_MAX;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const unsigned want =
            (unsigned)ref[i] + (plus ? (unsigned)plus[i] : 0u);
        const int g = got[i];
        if ((unsigned)g != want) {
            if (!bad) first = i;   /* a thread's indices only grow */
            ++bad;
            unwritten += g == HX_POISON;
        }
    }
    if (bad) {
        atomicAdd(&m->bad, bad);
        atomicAdd(&m->unwritten, unwritten);
        atomicMin(&m->first, first);
    }
}

/* ------------------------------------------------------------------------
 * The rows, and one run of one of them
 * ---------------------------------------------------------------------- */

typedef enum { V_MEMCPY, V_COPY, V_COURSE, V_WITH, V_PASS, V_CUB } RowKind;

enum {
    F_INCLUSIVE = 1,    /* inclusive scan */
    F_SMALL_GRID = 2,   /* course: tileGrid 3, grid 5; single pass: 3 blocks */
    F_OWN_TOTAL = 4,    /* total into a separate device int, not the plan's */
    F_IN_PLACE = 8,     /* single pass: in == out */
    F_SHIFTED = 16,     /* single pass: input one int past 16-byte alignment */
    F_STALL = 32        /* single pass: the look-back's debug stalls */
};

typedef struct {
    const char *name;
    RowKind kind;
    ScanTileKernel kernel;   /* V_WITH: the tile kernel given to scanWith */
    unsigned threads;        /* V_WITH: its threads per block */
    int config;              /* V_PASS: index into passConfigs */
    unsigned flags;
} Variant;

/* What one run needs on the device. in is never written; data is the
 * in-place rows' array and every other row's output. */
typedef struct {
    const hx_device *dev;
    const Variant *v;
    ScanPlan *plan;
    PassPlan *pass;
    size_t n;
    const int *in;
    const int *shifted;      /* a copy of in at a misaligned address */
    int *data;
    int *total;              /* the separate total (F_OWN_TOTAL, V_PASS) */
    void *cubTemp;
    size_t cubBytes;
} Run;

#define SMALL_TILE_GRID 3
#define SMALL_GRID 5
#define SMALL_PASS_GRID 3
#define STALL_NS 4000u

static int isInPlace(const Variant *v)
{
    return v->kind == V_COURSE || v->kind == V_WITH ||
           (v->kind == V_PASS && (v->flags & F_IN_PLACE));
}

/* Enqueues one run on the default stream (an hx_work). */
static void runVariant(void *ctx)
{
    Run *r = (Run *)ctx;
    const Variant *v = r->v;
    const int inclusive = (v->flags & F_INCLUSIVE) != 0;
    int *total = v->flags & F_OWN_TOTAL ? r->total : NULL;
    if (v->flags & F_SMALL_GRID) {
        r->plan->tileGrid = SMALL_TILE_GRID;
        r->plan->grid = SMALL_GRID;
    }
    switch (v->kind) {
    case V_MEMCPY:
        HX_CHECK(cudaMemcpyAsync(r->data, r->in, r->n * sizeof(int),
                                 cudaMemcpyDeviceToDevice, 0));
        break;
    case V_COPY:
        copyInts<<<hx_grid_for(r->dev, r->n, COPY_THREADS), COPY_THREADS>>>(
            r->in, r->data, r->n);
        HX_CHECK_LAUNCH("copyInts");
        break;
    case V_COURSE:
        if (inclusive)
            scanInclusive(r->plan, r->data, total, 0);
        else
            scanExclusive(r->plan, r->data, total, 0);
        break;
    case V_WITH:
        scanWith(r->plan, v->kernel, v->threads, r->data, total, inclusive,
                 0);
        break;
    case V_PASS: {
        const int *in = v->flags & F_IN_PLACE ? r->data
                        : v->flags & F_SHIFTED ? r->shifted : r->in;
        singlePassRun(r->pass, v->config, in, r->data, r->total, inclusive,
                      v->flags & F_SMALL_GRID ? SMALL_PASS_GRID : 0,
                      v->flags & F_STALL ? STALL_NS : 0);
        break;
    }
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

/* Launches of one run, for the table (a memset counts as one). CUB's
 * count is from its dispatch (cub/device/dispatch/dispatch_scan.cuh): a
 * kernel that initialises the tile states, then one scan pass. */
static int launchesOf(const Variant *v, const ScanPlan *plan)
{
    switch (v->kind) {
    case V_MEMCPY:
    case V_COPY: return 1;
    case V_PASS: return plan->n ? 2 : 1;
    case V_CUB: return plan->n ? 2 : 0;
    default: return scanLaunches(plan);
    }
}

/* The bytes a row's algorithm must move (its floor): a copy and a
 * single-pass scan read n ints and write n (the look-back's status words
 * are 8 bytes per tile of thousands of ints, left out); the course scan
 * does that at every level in its tile kernel and again in addTileOffsets
 * (which also reads one offset per tile). */
static double floorBytes(const Variant *v, const ScanPlan *plan)
{
    if (v->kind != V_COURSE && v->kind != V_WITH)
        return 2.0 * plan->n * sizeof(int);
    double ints = 0;
    for (int l = 0; l < plan->levels; ++l) {
        const double c = (double)plan->count[l];
        const double tiles = (double)((plan->count[l] + SCAN_TILE - 1) /
                                      SCAN_TILE);
        ints += 2 * c + tiles;
        if (l + 1 < plan->levels) ints += 2 * c + tiles;
    }
    return ints * sizeof(int);
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

/* The int that a sum of exact value x leaves after wrapping modulo 2^32. */
static int wrapInt(long long x)
{
    const uint32_t u = (uint32_t)(uint64_t)x;
    int v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The device buffers a check compares against, and the device-side
 * mismatch record. */
typedef struct {
    const int *in;       /* the input, on the device */
    const int *ref;      /* the host's exclusive reference, uploaded */
    long long total;     /* exact sum of the input */
    Mismatch *mismatch;  /* device */
} Expect;

/* Compares the device output out[0..n) of a guarded buffer with the
 * expectation (the input for a copy, the exclusive reference, or it plus
 * the input for an inclusive scan), element for element on the device, and
 * scans both guards. On failure prints one line like hx_check_equal's
 * (what names the size, input and row), the guard lines, and returns 1. */
static int checkOutput(const char *what, const hx_guarded *b, const int *ref,
                       const int *plus, const Expect *e)
{
    const size_t n = b->n, G = HX_GUARD_WORDS;
    Mismatch m = {0, 0, ULLONG_MAX};
    HX_CHECK(cudaMemcpy(e->mismatch, &m, sizeof m, cudaMemcpyHostToDevice));
    if (n) {
        compareInts<<<hx_grid_for(NULL, n, 256), 256>>>(b->data, ref, plus, n,
                                                        e->mismatch);
        HX_CHECK_LAUNCH("compareInts");
    }
    HX_CHECK(cudaMemcpy(&m, e->mismatch, sizeof m, cudaMemcpyDeviceToHost));
    if (m.bad) {
        int got = 0, r = 0, p = 0;
        HX_CHECK(cudaMemcpy(&got, b->data + m.first, sizeof got,
                            cudaMemcpyDeviceToHost));
        HX_CHECK(cudaMemcpy(&r, ref + m.first, sizeof r,
                            cudaMemcpyDeviceToHost));
        if (plus)
            HX_CHECK(cudaMemcpy(&p, plus + m.first, sizeof p,
                                cudaMemcpyDeviceToHost));
        printf("%s: FAIL at n=%zu: first bad index %llu: got %d, want %d; "
               "%llu of %zu slots differ (%llu never written)\n", what, n,
               m.first, got, wrapInt((long long)r + p), m.bad, n,
               m.unwritten);
    }

    /* The guards, with offsets relative to out[0] as hx_guard.h defines. */
    int *guard = hostInts(G);
    hx_guard_report g;
    memset(&g, 0, sizeof g);
    HX_CHECK(cudaMemcpy(guard, b->base, G * sizeof(int),
                        cudaMemcpyDeviceToHost));
    for (size_t j = 0; j < G; ++j)
        if (guard[j] != HX_GUARD_WORD) {
            g.before++;
            g.first_before = (long long)j - (long long)G;  /* nearest wins */
            g.value_before = guard[j];
        }
    HX_CHECK(cudaMemcpy(guard, b->data + n, G * sizeof(int),
                        cudaMemcpyDeviceToHost));
    for (size_t j = G; j-- > 0;)
        if (guard[j] != HX_GUARD_WORD) {
            g.after++;
            g.first_after = (long long)(n + j);
            g.value_after = guard[j];
        }
    free(guard);
    if (g.before || g.after) hx_guard_print(what, n, &g, stdout);
    return m.bad || g.before || g.after;
}

/* Checks the total a run left in device memory (modulo 2^32). */
static int checkTotal(const char *what, const int *dTotal, long long want)
{
    int got = 0;
    HX_CHECK(cudaMemcpy(&got, dTotal, sizeof got, cudaMemcpyDeviceToHost));
    if (got == wrapInt(want)) return 0;
    printf("%s: FAIL: device total %d, want %d (exact sum %lld)\n", what,
           got, wrapInt(want), want);
    return 1;
}

/* Runs v once with every output poisoned first: the guarded buffer (for
 * out-of-place rows, so an unwritten slot shows as HX_POISON), the plan's
 * level sums and total, and the separate total; in-place rows start from a
 * fresh copy of the input. The level sums are all written before any is
 * read, so poison that leaked into a result would show as a wrong value.
 * Returns 1 on failure, after printing it. */
static int checkVariant(Run *r, hx_guarded *b, const Expect *e,
                        const char *label)
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

    const int copies = v->kind == V_MEMCPY || v->kind == V_COPY;
    const int inclusive = (v->flags & F_INCLUSIVE) != 0;
    if (checkOutput(what, b, copies ? e->in : e->ref,
                    inclusive ? e->in : NULL, e))
        return 1;
    if (v->kind == V_PASS) return checkTotal(what, r->total, e->total);
    if (isInPlace(v))
        return checkTotal(what, v->flags & F_OWN_TOTAL ? r->total
                                                       : r->plan->total,
                          e->total);
    return 0;
}

/* The variants the self-check runs: these, then every other single-pass
 * configuration (checkVariantsBuild). */
#define P_PROD 0   /* passConfigs' production configuration */
#define P_AHEAD 3  /* the first with lookbackEachTileAhead */
static const Variant checkFixed[] = {
    {"scanExclusive", V_COURSE, NULL, 0, 0, 0},
    {"scanExclusive (tileGrid 3, grid 5)", V_COURSE, NULL, 0, 0,
     F_SMALL_GRID | F_OWN_TOTAL},
    {"scanWith(scanTileHillisSteele) exclusive", V_WITH,
     scanTileHillisSteele, SCAN_TILE, 0, F_OWN_TOTAL},
    {"scanWith(scanTileWarp) exclusive", V_WITH, scanTileWarp, SCAN_TILE, 0,
     0},
    {"scanWith(scanTileWarp) exclusive (tileGrid 3, grid 5)", V_WITH,
     scanTileWarp, SCAN_TILE, 0, F_SMALL_GRID},
    {"cub::DeviceScan::ExclusiveSum", V_CUB, NULL, 0, 0, 0},
    {"scanInclusive", V_COURSE, NULL, 0, 0, F_INCLUSIVE | F_OWN_TOTAL},
    {"scanInclusive (tileGrid 3, grid 5)", V_COURSE, NULL, 0, 0,
     F_INCLUSIVE | F_SMALL_GRID},
    {"scanWith(scanTileHillisSteele) inclusive", V_WITH,
     scanTileHillisSteele, SCAN_TILE, 0, F_INCLUSIVE},
    {"scanWith(scanTileHillisSteele) inclusive (tileGrid 3, grid 5)", V_WITH,
     scanTileHillisSteele, SCAN_TILE, 0,
     F_INCLUSIVE | F_SMALL_GRID | F_OWN_TOTAL},
    {"scanWith(scanTileWarp) inclusive", V_WITH, scanTileWarp, SCAN_TILE, 0,
     F_INCLUSIVE | F_OWN_TOTAL},
    /* The single pass: production configuration both ways, then the ways
     * a caller or the GPU can make it harder. */
    {"singlePassScan exclusive", V_PASS, NULL, 0, P_PROD, 0},
    {"singlePassScan inclusive", V_PASS, NULL, 0, P_PROD, F_INCLUSIVE},
    {"singlePassScan exclusive, in place", V_PASS, NULL, 0, P_PROD,
     F_IN_PLACE},
    {"singlePassScan inclusive, in place, 3 blocks", V_PASS, NULL, 0, P_PROD,
     F_INCLUSIVE | F_IN_PLACE | F_SMALL_GRID},
    {"singlePassScan exclusive, 3 blocks", V_PASS, NULL, 0, P_PROD,
     F_SMALL_GRID},
    {"singlePassScan exclusive, input misaligned (int loads)", V_PASS, NULL,
     0, P_PROD, F_SHIFTED},
    {"singlePassScan inclusive, stalled look-back", V_PASS, NULL, 0, P_PROD,
     F_INCLUSIVE | F_STALL},
};
#define CHECK_FIXED (sizeof checkFixed / sizeof checkFixed[0])

/* Every other configuration with the look-back's debug stalls
 * (aggregates published late, prefixes withheld: windows that must move
 * back), every other one inclusive, and the first with the other tile
 * loop (P_AHEAD: the next tile's loads in flight) on 3 blocks. --variants
 * checks each as it is timed before timing it. */
#define CHECK_VARIANTS (CHECK_FIXED + PASS_CONFIGS)
static Variant checkVariants[CHECK_VARIANTS];
static char checkNames[PASS_CONFIGS][128];

static void checkVariantsBuild(void)
{
    size_t k = 0;
    for (; k < CHECK_FIXED; ++k) checkVariants[k] = checkFixed[k];
    for (int c = 1; c < PASS_CONFIGS; ++c) {
        const unsigned incl = c % 2 ? F_INCLUSIVE : 0;
        snprintf(checkNames[c], sizeof checkNames[c],
                 "singlePassScan %s, %s, stalled look-back",
                 incl ? "inclusive" : "exclusive", passConfigs[c].name);
        checkVariants[k++] =
            Variant{checkNames[c], V_PASS, NULL, 0, c, incl | F_STALL};
    }
    snprintf(checkNames[0], sizeof checkNames[0],
             "singlePassScan exclusive, %s, 3 blocks",
             passConfigs[P_AHEAD].name);
    checkVariants[k++] = Variant{checkNames[0], V_PASS, NULL, 0, P_AHEAD,
                                 F_SMALL_GRID};
}

typedef enum {
    IN_RANDOM, IN_ONES, IN_ZEROS, IN_LARGEST, IN_WRAPS, IN_KINDS
} InputKind;

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
    case IN_LARGEST:
        snprintf(s, len, n ? "largest (total INT_MAX)" : "largest (empty)");
        break;
    default: snprintf(s, len, "any int (sums wrap)"); break;
    }
}

/* IN_LARGEST: a[i] = floor((i+1) M / n) - floor(i M / n) with M = INT_MAX,
 * so each value is M / n or one more, spread evenly, the exclusive prefix
 * at i is floor(i M / n), and the total is exactly INT_MAX: the largest
 * input whose total still fits in int. IN_WRAPS: any int, so the sums wrap
 * modulo 2^32 (only the single pass promises that; the course scan and CUB
 * are held to totals that fit). */
static void fillInput(InputKind k, int *a, size_t n, uint64_t seed)
{
    switch (k) {
    case IN_RANDOM: hx_fill_uniform(a, n, 0, randomHigh(n), seed); break;
    case IN_ONES: hx_fill_const(a, n, 1); break;
    case IN_ZEROS: hx_fill_const(a, n, 0); break;
    case IN_LARGEST: {
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
    default: hx_fill_uniform(a, n, INT_MIN, INT_MAX, seed); break;
    }
}

/* Which variants run at a size and input. The huge size runs the course
 * scans and the single pass's plain runs only: the contrasting kernels,
 * CUB and the other configurations are proven at the smaller sizes, and a
 * 3-block grid over 4 million tiles would take seconds per run. */
static int runsOn(const Variant *v, int huge, InputKind k)
{
    if (k == IN_WRAPS && v->kind != V_PASS) return 0;
    if (!huge) return 1;
    if (v->kind == V_PASS)
        return v->config == P_PROD &&
               !(v->flags & (F_SMALL_GRID | F_SHIFTED | F_STALL));
    return v->kind == V_COURSE && !(v->flags & F_SMALL_GRID);
}

/* The device buffers of one size, for the checks and the timings. */
typedef struct {
    size_t n;
    ScanPlan plan;
    PassPlan pass;
    hx_guarded out;
    int *in, *shift, *ref, *total;
    Mismatch *mismatch;
    void *cub;
    size_t cubBytes;
} Buffers;

/* Device bytes of Buffers for n (shifted: with the misaligned copy). */
static size_t buffersBytes(size_t n, int shifted)
{
    return (3 * n + 2 * HX_GUARD_WORDS + 8) * sizeof(int) +
           (shifted ? (n + 4) * sizeof(int) : 0) + scanPlanBytes(n) +
           cubTempBytes(n) +
           lookbackBytes(n / PASS_SMALLEST_TILE + 1) + sizeof(Mismatch);
}

static void buffersCreate(Buffers *B, const hx_device *dev, size_t n,
                          int shifted)
{
    memset(B, 0, sizeof *B);
    B->n = n;
    scanPlanCreate(&B->plan, n);
    passPlanCreate(&B->pass, dev, n);
    hx_guarded_alloc(&B->out, n);
    HX_CHECK(cudaMalloc(&B->in, (n ? n : 1) * sizeof(int)));
    HX_CHECK(cudaMalloc(&B->ref, (n ? n : 1) * sizeof(int)));
    if (shifted) HX_CHECK(cudaMalloc(&B->shift, (n + 4) * sizeof(int)));
    HX_CHECK(cudaMalloc(&B->total, sizeof(int)));
    HX_CHECK(cudaMalloc(&B->mismatch, sizeof(Mismatch)));
    B->cubBytes = cubTempBytes(n);
    HX_CHECK(cudaMalloc(&B->cub, B->cubBytes));
}

static void buffersDestroy(Buffers *B)
{
    HX_CHECK(cudaFree(B->cub));
    HX_CHECK(cudaFree(B->mismatch));
    HX_CHECK(cudaFree(B->total));
    if (B->shift) HX_CHECK(cudaFree(B->shift));
    HX_CHECK(cudaFree(B->ref));
    HX_CHECK(cudaFree(B->in));
    hx_guarded_free(&B->out);
    passPlanDestroy(&B->pass);
    scanPlanDestroy(&B->plan);
}

/* Uploads the input and its host reference (want: a host buffer of n). */
static void buffersLoad(Buffers *B, const int *in, int *want, Expect *e)
{
    const size_t n = B->n;
    e->total = hx_scan_exclusive(in, want, n);
    HX_CHECK(cudaMemcpy(B->in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    HX_CHECK(cudaMemcpy(B->ref, want, n * sizeof(int),
                        cudaMemcpyHostToDevice));
    if (B->shift)
        HX_CHECK(cudaMemcpy(B->shift + 1, B->in, n * sizeof(int),
                            cudaMemcpyDeviceToDevice));
    e->in = B->in;
    e->ref = B->ref;
    e->mismatch = B->mismatch;
}

static Run runOf(const hx_device *dev, Buffers *B, const Variant *v)
{
    Run r;
    memset(&r, 0, sizeof r);
    r.dev = dev;
    r.v = v;
    r.plan = &B->plan;
    r.pass = &B->pass;
    r.n = B->n;
    r.in = B->in;
    r.shifted = B->shift ? B->shift + 1 : NULL;
    r.data = B->out.data;
    r.total = B->total;
    r.cubTemp = B->cub;
    r.cubBytes = B->cubBytes;
    return r;
}

/* Host memory for an input and its reference, with room to spare; prints
 * why not and returns 0 when it cannot be had. */
static int hostBuffers(size_t n, int **in, int **want)
{
    const size_t bytes = 2 * n * sizeof(int);
    *in = *want = NULL;
    if (hostAvailableBytes() >= bytes + ((size_t)256 << 20)) {
        *in = hostInts(n);
        *want = hostInts(n);
    }
    if (*in && *want) return 1;
    free(*in);
    free(*want);
    *in = *want = NULL;
    return 0;
}

/* Checks every variant on every input at size n. Returns HX_EXIT_OK,
 * HX_EXIT_FAIL after printing the first failure, or HX_EXIT_OK after a
 * line saying the size was skipped (not enough device or host memory). */
static int checkSize(const hx_device *dev, size_t n, int huge, uint64_t seed)
{
    const double mib = 1024.0 * 1024.0;
    const size_t devBytes = buffersBytes(n, !huge);
    if (!hx_fits(dev, devBytes)) {
        printf("  n=%zu: skipped: needs %.0f MiB of device memory, %.0f MiB "
               "free\n", n, devBytes / mib, dev->free_mem / mib);
        return HX_EXIT_OK;
    }
    int *in, *want;
    if (!hostBuffers(n, &in, &want)) {
        printf("  n=%zu: skipped: needs %.0f MiB of host memory\n", n,
               2.0 * n * sizeof(int) / mib);
        return HX_EXIT_OK;
    }
    Buffers B;
    buffersCreate(&B, dev, n, !huge);

    int rc = HX_EXIT_OK;
    for (int k = 0; k < IN_KINDS && rc == HX_EXIT_OK; ++k) {
        if (huge && k == IN_WRAPS) continue;
        char input[64], label[160];
        describeInput((InputKind)k, n, input, sizeof input);
        snprintf(label, sizeof label, "n=%zu %s:", n, input);
        fillInput((InputKind)k, in, n, seed + (uint64_t)k);
        Expect e;
        buffersLoad(&B, in, want, &e);
        int ran = 0;
        for (size_t j = 0; j < CHECK_VARIANTS; ++j) {
            const Variant *v = &checkVariants[j];
            if (!runsOn(v, huge, (InputKind)k)) continue;
            Run r = runOf(dev, &B, v);
            if (checkVariant(&r, &B.out, &e, label)) {
                printf("FAIL: n=%zu, input %s (seed %llu), variant %s\n", n,
                       input, (unsigned long long)(seed + (uint64_t)k),
                       v->name);
                rc = HX_EXIT_FAIL;
                break;
            }
            ++ran;
        }
        if (rc == HX_EXIT_OK)
            printf("  n=%-10zu %-24s pass (%2d variants; levels %d; %zu "
                   "tiles of %d; total %d)\n", n, input, ran, B.plan.levels,
                   passTiles(&passConfigs[P_PROD], n),
                   passConfigs[P_PROD].threads * passConfigs[P_PROD].items,
                   wrapInt(e.total));
    }
    buffersDestroy(&B);
    free(in);
    free(want);
    return rc;
}

/* The __restrict__ example (see chunkScan): both kernels on distinct
 * buffers must give the inclusive scan of each chunk; chunkScan in place
 * must give what its source says in place (each prefix added to itself);
 * what chunkScanRestrict gives in place is printed, never judged. */
static int checkAliasing(uint64_t seed)
{
    const size_t chunks = 512, n = chunks * CHUNK;
    int *in = hostInts(n), *incl = hostInts(n), *got = hostInts(n);
    int *dIn = NULL, *dOut = NULL;
    hx_fill_uniform(in, n, 0, 1000, seed);
    for (size_t c = 0; c < chunks; ++c)
        hx_scan_inclusive(in + c * CHUNK, incl + c * CHUNK, CHUNK);
    HX_CHECK(cudaMalloc(&dIn, n * sizeof(int)));
    HX_CHECK(cudaMalloc(&dOut, n * sizeof(int)));

    printf("__restrict__ broken on purpose: chunks of %d ints scanned "
           "inclusive (exclusive, then each input added back), n = %zu\n",
           CHUNK, n);
    int rc = HX_EXIT_OK;
    for (int restricted = 0; restricted < 2; ++restricted) {
        const char *name = restricted ? "chunkScanRestrict" : "chunkScan";
        for (int inPlace = 0; inPlace < 2; ++inPlace) {
            int *src = inPlace ? dOut : dIn;
            HX_CHECK(cudaMemcpy(src, in, n * sizeof(int),
                                cudaMemcpyHostToDevice));
            if (!inPlace)
                HX_CHECK(cudaMemset(dOut, HX_POISON_BYTE, n * sizeof(int)));
            if (restricted)
                chunkScanRestrict<<<4, 128>>>(src, dOut, chunks, 1);
            else
                chunkScan<<<4, 128>>>(src, dOut, chunks, 1);
            HX_CHECK_LAUNCH("chunkScan");
            HX_CHECK(cudaMemcpy(got, dOut, n * sizeof(int),
                                cudaMemcpyDeviceToHost));
            size_t bad = 0, doubled = 0;
            for (size_t i = 0; i < n; ++i) {
                const int excl = incl[i] - in[i];
                bad += got[i] != incl[i];
                doubled += got[i] == 2 * excl;
            }
            const char *where = inPlace ? "in place" : "in -> out";
            if (!inPlace || !restricted) {
                /* Defined results: the scan out of place; chunkScan's own
                 * reading of its source in place. */
                const size_t wrong = inPlace ? n - doubled : bad;
                printf("  %-18s %-9s %s (%zu of %zu slots %s)\n", name, where,
                       wrong ? "FAIL" : "as the source says", wrong, n,
                       inPlace ? "differ from 2 x the exclusive prefix"
                               : "differ from the inclusive scan");
                if (wrong) rc = HX_EXIT_FAIL;
            } else {
                printf("  %-18s %-9s not defined: %zu of %zu slots differ "
                       "from the inclusive scan, %zu equal 2 x the "
                       "exclusive prefix\n", name, where, bad, n, doubled);
            }
        }
    }
    HX_CHECK(cudaFree(dOut));
    HX_CHECK(cudaFree(dIn));
    free(in);
    free(incl);
    free(got);
    return rc;
}

/* --check: every size of the list (or only --n when given), every input,
 * every variant; then the __restrict__ example. */
static int selfCheck(const hx_device *dev, const hx_opts *o)
{
    hx_rng rng;
    hx_rng_seed(&rng, o->seed);
    const size_t randomOdd = 2 * (size_t)hx_rng_below(&rng, (uint64_t)1 << 24)
                             + 1;
    const size_t huge = ((size_t)1 << 30) + 12345;
    /* A tile is 4096 ints in the one-tile rows, T (6144) in the
     * production one: sizes around both; G T and either side, where the
     * production grid of G blocks has one tile each (the last partial,
     * then whole) and then one block has two; 600 tiles of 4096 plus a
     * partial vector (the debug stalls' runs of withheld prefixes span
     * tiles 64 to 511, by window: the tiles that find no prefix in a
     * window of 128 begin at 384), and 2^24 (4096 tiles) and up for a
     * deep look-back. */
    const size_t t = (size_t)passConfigs[P_PROD].threads *
                     passConfigs[P_PROD].items;
    int perSm = 0;
    HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSm, passConfigs[P_PROD].kernel, passBlock(&passConfigs[P_PROD]),
        0));
    const size_t gt = (size_t)(perSm > 0 ? perSm : 1) *
                      (size_t)(dev->sms > 0 ? dev->sms : 1) * t;
    const size_t sizes[] = {0,      1,      3,      255,    256,
                            257,    4095,   4096,   4097,   t - 1,
                            t,      t + 1,  65535,  65536,  65537,
                            gt - 1, gt,     gt + 1, 600 * 4096 + 3,
                            16777216, 16777217, randomOdd, huge};
    const size_t count = sizeof sizes / sizeof sizes[0];
    checkVariantsBuild();

    printf("self-check, seed %llu: every scan compared element for element "
           "with the host's (on the device), device totals exactly (modulo "
           "2^32); outputs poisoned and guarded\n",
           (unsigned long long)o->seed);
    if (o->n_set) {
        printf("size: --n %zu only\n", o->n);
        /* Past 2^26 the 3-block grids would take seconds per run. */
        int rc = checkSize(dev, o->n, o->n > ((size_t)1 << 26), o->seed);
        if (rc == HX_EXIT_OK) rc = checkAliasing(o->seed);
        if (rc == HX_EXIT_OK) printf("self-check: pass\n");
        return rc;
    }
    printf("sizes:");
    for (size_t s = 0; s < count; ++s)
        printf("%s %zu", s ? "," : "", sizes[s]);
    printf(" (%zu: random odd, from the seed; %zu: over 2^30)\n", randomOdd,
           huge);
    for (size_t s = 0; s < count; ++s) {
        const int rc = checkSize(dev, sizes[s], sizes[s] == huge,
                                 o->seed + 16 * s);
        if (rc != HX_EXIT_OK) return rc;
    }
    const int rc = checkAliasing(o->seed);
    if (rc == HX_EXIT_OK) printf("self-check: pass\n");
    return rc;
}

/* ------------------------------------------------------------------------
 * Timing
 * ---------------------------------------------------------------------- */

static double wallSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Where a run's host time goes, printed at the end. */
typedef struct {
    double input, reference, checks, timing;
} Phases;

/* Checks rows[0..k) at B's size (the input and reference already loaded),
 * then times them interleaved. Returns HX_EXIT_OK or HX_EXIT_FAIL (after
 * printing the failure; nothing is timed then). With variants, a row past
 * the first two (the memcpy and the copy, every ratio's yardsticks) that
 * fails is reported and left out instead, the others are timed, and
 * *k becomes the number timed, rows[] and t[] holding them in order; the
 * result is still HX_EXIT_FAIL. */
static int checkThenTime(const hx_device *dev, Buffers *B, const Expect *e,
                         const Variant *rows[], int *k, int variants,
                         const hx_opts *o, hx_timing t[], Phases *ph)
{
    Run *runs = (Run *)malloc((size_t)*k * sizeof *runs);
    hx_work *works = (hx_work *)malloc((size_t)*k * sizeof *works);
    void **ctxs = (void **)malloc((size_t)*k * sizeof *ctxs);
    double t0 = wallSeconds();
    int rc = HX_EXIT_OK, kept = 0;
    for (int j = 0; j < *k && (rc == HX_EXIT_OK || variants); ++j) {
        runs[kept] = runOf(dev, B, rows[j]);
        if (checkVariant(&runs[kept], &B->out, e, "before timing:")) {
            const int leaveOut = variants && j >= 2;
            printf("FAIL: n=%zu, row %s: %s\n", B->n, rows[j]->name,
                   leaveOut ? "left out of the timing" : "nothing timed");
            rc = HX_EXIT_FAIL;
            if (!leaveOut) variants = 0;
            continue;
        }
        works[kept] = runVariant;
        ctxs[kept] = &runs[kept];
        rows[kept++] = rows[j];
    }
    ph->checks += wallSeconds() - t0;
    if (rc == HX_EXIT_OK || variants) {
        *k = kept;
        t0 = wallSeconds();
        hx_time_set(kept, works, ctxs, o->warmup, o->runs, t);
        ph->timing += wallSeconds() - t0;
    }
    free(runs);
    free(works);
    free(ctxs);
    return rc;
}

/* The floor of each row from the memcpy row (rows[0]) in the same run. */
static double floorMs(const Variant *v, const ScanPlan *plan,
                      const hx_timing *memcpyT)
{
    return hx_floor_ms(floorBytes(v, plan), 2.0 * plan->n * sizeof(int),
                       memcpyT->median_ms);
}

static void printLevels(const ScanPlan *plan)
{
    if (plan->levels == 0) {
        printf("levels: none (n = 0: the scan only zeroes the total)\n");
        return;
    }
    printf("course scan, tiles of %d at each level:", SCAN_TILE);
    for (int l = 0; l < plan->levels; ++l)
        printf("%s %zu -> %zu", l ? "," : "", plan->count[l],
               (plan->count[l] + SCAN_TILE - 1) / SCAN_TILE);
    printf(" (elements -> tiles); %d levels = %d launches\n", plan->levels,
           scanLaunches(plan));
}

/* Sizes a timing run: --n, or the default from the GPU's L2 and memory.
 * Returns (size_t)-1 after printing why when the buffers do not fit. */
static size_t timingSize(const hx_device *dev, const hx_opts *o, char *why,
                         size_t whylen)
{
    /* Per element: input, output and reference (three ints), plus one byte
     * for the level sums, CUB's storage and the look-back's status. */
    const size_t bytesPerElement = 3 * sizeof(int) + 1;
    size_t n;
    if (o->n_set) {
        n = o->n;
        snprintf(why, whylen, "set by --n");
    } else {
        n = hx_default_n(dev, bytesPerElement, why, whylen);
    }
    const size_t devBytes = buffersBytes(n, 0);
    if (!hx_fits(dev, devBytes)) {
        fprintf(stderr, "%s: n = %zu needs %.0f MiB of device memory; %.0f "
                "MiB are free\n", PROG, n, devBytes / 1048576.0,
                dev->free_mem / 1048576.0);
        return (size_t)-1;
    }
    return n;
}

/* The input of every timing run: uniform in [0, hi], every prefix fits.
 * Loads B and fills *e; host buffers are freed before returning. */
static int loadTimingInput(Buffers *B, const hx_opts *o, Expect *e,
                           Phases *ph)
{
    int *in, *want;
    if (!hostBuffers(B->n, &in, &want)) {
        fprintf(stderr, "%s: n = %zu needs %.0f MiB of host memory for the "
                "input and its reference; not available\n", PROG, B->n,
                2.0 * B->n * sizeof(int) / 1048576.0);
        return HX_EXIT_NOMEM;
    }
    double t0 = wallSeconds();
    hx_fill_uniform(in, B->n, 0, randomHigh(B->n), o->seed);
    ph->input += wallSeconds() - t0;
    t0 = wallSeconds();
    buffersLoad(B, in, want, e);
    ph->reference += wallSeconds() - t0;
    free(in);
    free(want);
    return HX_EXIT_OK;
}

/* The rows of the table, in order: the memcpy first (every floor comes
 * from it), the copy second (every "x copy"). */
static const Variant tableRows[] = {
    {"cudaMemcpy device to device", V_MEMCPY, NULL, 0, 0, 0},
    {"copyInts", V_COPY, NULL, 0, 0, 0},
    {"scanExclusive (scanTile)", V_COURSE, NULL, 0, 0, 0},
    {"scanInclusive (scanTile)", V_COURSE, NULL, 0, 0, F_INCLUSIVE},
    {"scanWith(scanTileHillisSteele)", V_WITH, scanTileHillisSteele,
     SCAN_TILE, 0, 0},
    {"scanWith(scanTileWarp)", V_WITH, scanTileWarp, SCAN_TILE, 0, 0},
    {"singlePassScan exclusive", V_PASS, NULL, 0, P_PROD, 0},
    {"singlePassScan inclusive", V_PASS, NULL, 0, P_PROD, F_INCLUSIVE},
    {"cub::DeviceScan::ExclusiveSum", V_CUB, NULL, 0, 0, 0},
};
#define TABLE_ROWS ((int)(sizeof tableRows / sizeof tableRows[0]))

static int timeTable(const hx_device *dev, const hx_opts *o, Phases *ph)
{
    char why[512];
    const size_t n = timingSize(dev, o, why, sizeof why);
    if (n == (size_t)-1) return HX_EXIT_NOMEM;
    const double mib = 1024.0 * 1024.0;
    Buffers B;
    buffersCreate(&B, dev, n, 0);
    printf("n = %zu ints, %.1f MiB per buffer: %s\n", n, n * 4.0 / mib, why);
    printf("input: uniform in [0, %d], seed %llu (every prefix fits in "
           "int)\n", randomHigh(n), (unsigned long long)o->seed);
    printLevels(&B.plan);
    printf("single pass: %zu tiles of %d ints (%s), %u blocks at once\n",
           passTiles(&passConfigs[P_PROD], n),
           passConfigs[P_PROD].threads * passConfigs[P_PROD].items,
           passConfigs[P_PROD].name, B.pass.resident[P_PROD]);
    hx_warn_if_cached(dev, n * sizeof(int), stdout);

    Expect e;
    int rc = loadTimingInput(&B, o, &e, ph);
    const Variant *rows[TABLE_ROWS];
    hx_timing t[TABLE_ROWS];
    int k = TABLE_ROWS;
    for (int j = 0; j < TABLE_ROWS; ++j) rows[j] = &tableRows[j];
    if (rc == HX_EXIT_OK)
        rc = checkThenTime(dev, &B, &e, rows, &k, 0, o, t, ph);
    if (rc == HX_EXIT_OK) {
        printf("every row checked against the host (element for element, "
               "and the device total %d)\n", wrapInt(e.total));
        char title[256];
        snprintf(title, sizeof title, "scan of n = %zu ints (%.1f MiB per "
                 "buffer), %d runs interleaved after %d warm-ups", n,
                 n * 4.0 / mib, o->runs, o->warmup);
        hx_table_begin(stdout, title);
        for (int j = 0; j < TABLE_ROWS; ++j)
            hx_table_row(stdout, tableRows[j].name,
                         launchesOf(&tableRows[j], &B.plan), &t[j],
                         t[1].median_ms, floorMs(&tableRows[j], &B.plan, &t[0]));
        hx_table_note(stdout, "x floor: over the time the row's own bytes "
                      "take at the memcpy's bandwidth: 2n ints for a copy, "
                      "the single pass and CUB; about 4n for the course "
                      "scan's levels");
        hx_table_note(stdout, "course rows run in place, rerunning over "
                      "their own output (values wrap; an add costs the same); "
                      "the single pass and CUB run input -> output");
        hx_table_note(stdout, "single pass and CUB: 2 launches = a reset of "
                      "the tile states (memset / init kernel) and one pass");
        hx_table_end(stdout);
        printf("cudaMemcpy moves %.1f MiB (read n + write n ints): %.1f GB/s;"
               " copyInts %.1f GB/s\n", 2.0 * n * sizeof(int) / mib,
               hx_gbps(2.0 * n * sizeof(int), t[0].median_ms),
               hx_gbps(2.0 * n * sizeof(int), t[1].median_ms));
    }
    buffersDestroy(&B);
    return rc;
}

/* --variants: every single-pass configuration against the memcpy and CUB
 * at one size, interleaved; the production one is passConfigs[0]. */
static int timeVariants(const hx_device *dev, const hx_opts *o, Phases *ph)
{
    char why[512];
    const size_t n = timingSize(dev, o, why, sizeof why);
    if (n == (size_t)-1) return HX_EXIT_NOMEM;
    Buffers B;
    buffersCreate(&B, dev, n, 0);
    printf("n = %zu ints: %s\n", n, why);
    Expect e;
    int rc = loadTimingInput(&B, o, &e, ph);

    /* memcpy, copyInts, every configuration, CUB */
    Variant vs[PASS_CONFIGS + 3];
    const Variant *rows[PASS_CONFIGS + 3];
    vs[0] = tableRows[0];
    vs[1] = tableRows[1];
    for (int c = 0; c < PASS_CONFIGS; ++c)
        vs[2 + c] = Variant{passConfigs[c].name, V_PASS, NULL, 0, c, 0};
    vs[PASS_CONFIGS + 2] = tableRows[TABLE_ROWS - 1];
    int k = PASS_CONFIGS + 3;
    for (int j = 0; j < k; ++j) rows[j] = &vs[j];
    hx_timing t[PASS_CONFIGS + 3];
    const int loaded = rc == HX_EXIT_OK;
    if (loaded) rc = checkThenTime(dev, &B, &e, rows, &k, 1, o, t, ph);
    if (loaded && k >= 2) {
        char title[256];
        snprintf(title, sizeof title, "single-pass exclusive scan, "
                 "configurations (threads x ints per thread), n = %zu, %d "
                 "runs interleaved", n, o->runs);
        hx_table_begin(stdout, title);
        for (int j = 0; j < k; ++j)
            hx_table_row(stdout, rows[j]->name, launchesOf(rows[j], &B.plan),
                         &t[j], t[1].median_ms,
                         floorMs(rows[j], &B.plan, &t[0]));
        hx_table_note(stdout, "the first configuration is the production "
                      "one (passConfigs in scan.cu)");
        if (rc != HX_EXIT_OK)
            hx_table_note(stdout, "configurations that failed their check "
                          "are left out (above)");
        hx_table_end(stdout);
    }
    buffersDestroy(&B);
    return rc;
}

/* --sweep: copy, the course scan, the single pass and CUB at every power
 * of two from 2^10 to the largest that fits, checked then timed at each;
 * one CSV line per row per size (schema in harness/plot.py). */
static const Variant sweepRows[] = {
    {"cudaMemcpy", V_MEMCPY, NULL, 0, 0, 0},
    {"copyInts", V_COPY, NULL, 0, 0, 0},
    {"scanExclusive", V_COURSE, NULL, 0, 0, 0},
    {"singlePassScan", V_PASS, NULL, 0, P_PROD, 0},
    {"cub ExclusiveSum", V_CUB, NULL, 0, 0, 0},
};
#define SWEEP_ROWS ((int)(sizeof sweepRows / sizeof sweepRows[0]))

static int sweep(const hx_device *dev, const hx_opts *o, const char *csvPath,
                 Phases *ph)
{
    size_t maxN = (size_t)1 << 30;   /* the largest power of two <= 2^31-1 */
    while (maxN > 1024 &&
           (!hx_fits(dev, buffersBytes(maxN, 0)) ||
            hostAvailableBytes() < 2 * maxN * sizeof(int) + ((size_t)256 << 20)))
        maxN /= 2;
    FILE *csv = fopen(csvPath, "w");
    if (!csv) {
        fprintf(stderr, "%s: cannot write %s\n", PROG, csvPath);
        return HX_EXIT_USAGE;
    }
    printf("sweep: n = 2^10 to 2^%d (the largest power of two whose buffers "
           "fit), %d runs interleaved after %d warm-ups at each; CSV: %s\n",
           __builtin_ctzll(maxN), o->runs, o->warmup, csvPath);
    fprintf(csv, "lab,row,n,keep,median_ms,min_ms,max_ms,copy_ms,floor_ms,"
            "x_copy,x_floor,gpu,l2_bytes\n");

    /* One input of maxN; each size uses its first n elements, whose
     * exclusive scan is the first n of the whole one's. */
    int *in, *want;
    if (!hostBuffers(maxN, &in, &want)) {
        fclose(csv);
        fprintf(stderr, "%s: not enough host memory for the sweep\n", PROG);
        return HX_EXIT_NOMEM;
    }
    double t0 = wallSeconds();
    hx_fill_uniform(in, maxN, 0, randomHigh(maxN), o->seed);
    ph->input += wallSeconds() - t0;
    t0 = wallSeconds();
    const long long maxTotal = hx_scan_exclusive(in, want, maxN);
    ph->reference += wallSeconds() - t0;

    char gpu[256];
    snprintf(gpu, sizeof gpu, "%s", dev->name);
    for (char *c = gpu; *c; ++c)
        if (*c == ',' || *c == '"') *c = ' ';

    printf("%-12s", "n");
    for (int j = 0; j < SWEEP_ROWS; ++j) printf(" %17s", sweepRows[j].name);
    printf("   (x floor)\n");
    int rc = HX_EXIT_OK;
    for (size_t n = 1024; n <= maxN && rc == HX_EXIT_OK; n *= 2) {
        Buffers B;
        buffersCreate(&B, dev, n, 0);
        Expect e;
        t0 = wallSeconds();
        /* The total of the first n is the whole reference's prefix at n
         * (every prefix of this input fits in int). */
        e.total = n < maxN ? (long long)want[n] : maxTotal;
        HX_CHECK(cudaMemcpy(B.in, in, n * sizeof(int),
                            cudaMemcpyHostToDevice));
        HX_CHECK(cudaMemcpy(B.ref, want, n * sizeof(int),
                            cudaMemcpyHostToDevice));
        e.in = B.in;
        e.ref = B.ref;
        e.mismatch = B.mismatch;
        ph->reference += wallSeconds() - t0;

        const Variant *rows[SWEEP_ROWS];
        hx_timing t[SWEEP_ROWS];
        for (int j = 0; j < SWEEP_ROWS; ++j) rows[j] = &sweepRows[j];
        int k = SWEEP_ROWS;
        rc = checkThenTime(dev, &B, &e, rows, &k, 0, o, t, ph);
        if (rc == HX_EXIT_OK) {
            printf("2^%-10d", __builtin_ctzll(n));
            for (int j = 0; j < SWEEP_ROWS; ++j) {
                const double fl = floorMs(&sweepRows[j], &B.plan, &t[0]);
                printf(" %17.2f", t[j].median_ms / fl);
                fprintf(csv, "day31-scan,%s,%zu,,%.6f,%.6f,%.6f,%.6f,%.6f,"
                        "%.4f,%.4f,%s,%zu\n", sweepRows[j].name, n,
                        t[j].median_ms, t[j].min_ms, t[j].max_ms,
                        t[1].median_ms, fl, t[j].median_ms / t[1].median_ms,
                        t[j].median_ms / fl, gpu, dev->l2_bytes);
            }
            printf("\n");
        }
        buffersDestroy(&B);
    }
    fclose(csv);
    free(in);
    free(want);
    if (rc == HX_EXIT_OK) printf("sweep written to %s\n", csvPath);
    return rc;
}

/* ------------------------------------------------------------------------
 * main
 * ---------------------------------------------------------------------- */

static const char USAGE[] =
    "Day 31: the prefix sum. Checks every scan against the host, then times\n"
    "a memcpy, a copy, the course scan (exclusive and inclusive), two\n"
    "contrasting tile kernels, the single-pass scan with decoupled look-back\n"
    "and CUB's DeviceScan at one size, interleaved.\n"
    "  --check       the self-check (sizes 0 to over 2^30, five inputs,\n"
    "                every variant, the __restrict__ example); with --n, that\n"
    "                size only\n"
    "  --variants    time every single-pass configuration at one size\n"
    "  --sweep       time copy, course scan, single pass and CUB at n = 2^10,\n"
    "                2^11, ... up to what fits; write a CSV (harness/plot.py)\n"
    "  --csv FILE    where --sweep writes (default scan-sweep.csv)";

typedef struct {
    int variants, sweep;
    const char *csv;
} LabOpts;

/* Takes this lab's own options out of argv (the rest go to
 * hx_parse_args). Returns HX_EXIT_OK or HX_EXIT_USAGE after one line. */
static int takeLabOptions(int *argc, char **argv, LabOpts *lab)
{
    int out = 1;
    lab->variants = lab->sweep = 0;
    lab->csv = "scan-sweep.csv";
    for (int i = 1; i < *argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--variants")) {
            lab->variants = 1;
        } else if (!strcmp(a, "--sweep")) {
            lab->sweep = 1;
        } else if (!strcmp(a, "--csv") || !strncmp(a, "--csv=", 6)) {
            const char *v = a[5] == '=' ? a + 6
                            : i + 1 < *argc ? argv[++i] : NULL;
            if (!v || !*v) {
                fprintf(stderr, "%s: --csv needs a file name (try --help)\n",
                        PROG);
                return HX_EXIT_USAGE;
            }
            lab->csv = v;
        } else {
            argv[out++] = argv[i];
        }
    }
    *argc = out;
    argv[out] = NULL;
    return HX_EXIT_OK;
}

int main(int argc, char **argv)
{
    const double start = wallSeconds();
    Phases ph = {0, 0, 0, 0};

    LabOpts lab;
    hx_opts o;
    int rc = takeLabOptions(&argc, argv, &lab);
    if (rc == HX_EXIT_OK) rc = hx_parse_args(argc, argv, &o, 0, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    if (o.check + lab.variants + lab.sweep > 1) {
        fprintf(stderr, "%s: --check, --variants and --sweep are separate "
                "runs: give one (try --help)\n", PROG);
        return HX_EXIT_USAGE;
    }

    hx_device dev;
    rc = hx_device_open(&dev, PROG);
    if (rc != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);

    if (o.check)
        rc = selfCheck(&dev, &o);
    else if (lab.variants)
        rc = timeVariants(&dev, &o, &ph);
    else if (lab.sweep)
        rc = sweep(&dev, &o, lab.csv, &ph);
    else
        rc = timeTable(&dev, &o, &ph);

    if (o.check)
        printf("wall time %.2f s\n", wallSeconds() - start);
    else
        printf("wall time %.2f s (input %.2f s, host reference and upload "
               "%.2f s, checks %.2f s, timed runs %.2f s)\n",
               wallSeconds() - start, ph.input, ph.reference, ph.checks,
               ph.timing);
    return rc;
}
