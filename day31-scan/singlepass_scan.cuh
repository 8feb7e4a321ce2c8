/* singlepass_scan.cuh: the production scan, one pass over the data with
 * decoupled look-back (lookback.cuh), on one of two paths (THE TWO PATHS,
 * below): the ring of bulk copies (ring_pipeline.cuh) on sm_90 and newer,
 * the piped loop on sm_75 and sm_80. Timed against CUB and the floor by
 * scan.cu; the configurations that lost are in dev/scan_variants.cu.
 *
 * THE KERNELS. Each block takes tiles of BLOCK * ITEMS ints in start
 * order (lookbackTakeTile) into registers as int4 vectors (StripedTile,
 * tile.cuh). BLOCK tile threads scan tile k within the tile while one more
 * warp, the walker, finds tile k - 1's exclusive prefix by the look-back;
 * then they add it to tile k - 1 (kept in shared memory) and store it with
 * int4 stores. The piped kernel's tile threads load the tiles themselves
 * (lookbackPipelined: ITEMS / 4 loads a thread in flight); the ring's
 * loader warp keeps bulk copies of the next tiles in flight.
 *
 * CONTRACT (singlePassScan, below):
 * - in and out are the same array (in place) or do not overlap at all:
 *   each element is read once, by the thread that later writes its
 *   result, and nothing else reads it. A partial overlap would let one
 *   block overwrite input another has not read yet. That is also why
 *   neither pointer is __restrict__ (scan.cu's chunkScan shows what a
 *   broken __restrict__ promise does).
 * - exclusive (inclusive = 0) or inclusive; int sums wrap modulo 2^32.
 *   Deterministic: the same input gives the same output bits (integer
 *   adds, in any order, give one result).
 * - the total (the sum of the whole input) lands in the device int
 *   *total, written by the walker of the block that handles the last
 *   tile, like the course scan's; n = 0 launches no kernel (the launcher
 *   zeroes *total with a memset).
 * - plan->state holds lookbackBytes(tiles) zero bytes at launch: the
 *   launcher's memset, counted as a launch in every table; any grid from
 *   one block to the blocks that run at once is correct (plan->grid: a
 *   check may make it small; the piped loop takes any grid at all).
 * - 16-byte vectors where in and out are both 16-byte aligned and the tile
 *   is whole; int loads and stores otherwise (the same layout).
 * - n below 2^31: tile indices and the look-back's packed sums fit.
 * - plan->stallNs > 0 turns on the look-back's debug stalls (the checks'
 *   delayed aggregates and withheld prefixes; 0 in every timed run).
 * - nothing synchronises with the host; everything is on the stream.
 */
#ifndef SINGLEPASS_SCAN_CUH
#define SINGLEPASS_SCAN_CUH

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hx_cuda.h"
#include "lookback.cuh"
#include "ring_pipeline.cuh"

/* The tile work of both kernels, BLOCK tile threads of ITEMS ints (RING:
 * ring_pipeline.cuh's rounds, else lookbackPipelined's). reduce scans the
 * tile in place and returns its aggregate; stash keeps x in the thread's
 * own shared slots; finish adds the tile's prefix and stores. */
template <int BLOCK, int ITEMS, class Policy, int SYNC, bool RING, int PF>
__device__ void scanTileLoop(const int *in, int *out, size_t n,
                             unsigned long long *state, int *total,
                             int inclusive, unsigned stallNs)
{
    typedef StripedTile<BLOCK, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ PipeSlots<int> slots;
    __shared__ int4 kept[Tile::VECS * BLOCK];
    const bool outAligned = (uintptr_t)out % 16 == 0;

    auto reduce = [&](unsigned, size_t, bool, int4 (&x)[Tile::VECS],
                      auto sync) {
        return (int)Tile::scanInTile(x, st, sync, inclusive);
    };
    /* Each thread writes and later reads only its own slots of kept: no
     * barrier of its own (the round's barrier separates stash and
     * finish). */
    auto stash = [&](const int4 (&x)[Tile::VECS], auto) {
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j)
            kept[j * BLOCK + threadIdx.x] = x[j];
    };
    auto finish = [&](unsigned, size_t base, bool vec, int prefix, int) {
        Tile::storePlus(kept, (unsigned)prefix, out, base, n, vec);
    };
    /* 0 pads a partial tile: it adds nothing, and is never stored. */
    if constexpr (RING) {
#ifdef RING_SM90
        ringPipelined<Tile, LookbackSum, Policy, PF>(
            state, slots, in, n, outAligned, 0, stallNs, total,
            ringStageIntSum, reduce, finish, stash);
#else
        __trap();   /* never launched below sm_90 (ringStageBytes) */
#endif
    } else {
        lookbackPipelined<Tile, LookbackSum, Policy, SYNC, PF>(
            state, slots, in, n, outAligned && (uintptr_t)in % 16 == 0, 0,
            stallNs, total, reduce, finish, stash);
    }
}

/* The piped kernel: BLOCK tile threads and a walker warp (BLOCK + 32
 * threads a block). __launch_bounds__ MIN_BLOCKS 1 sets no occupancy
 * target, so ptxas gives the tile the registers it needs. */
template <int BLOCK, int ITEMS, int MIN_BLOCKS, class Policy, int SYNC,
          int PF = 0>
__global__ void __launch_bounds__(BLOCK + 32, MIN_BLOCKS)
singlePassScanPiped(const int *in, int *out, size_t n,
                    unsigned long long *state, int *total, int inclusive,
                    unsigned stallNs)
{
    scanTileLoop<BLOCK, ITEMS, Policy, SYNC, false, PF>(
        in, out, n, state, total, inclusive, stallNs);
}

/* The ring's kernel: a loader warp more (BLOCK + 64 threads), the ring in
 * the dynamic shared memory, a resident grid (ring_pipeline.cuh). */
template <int BLOCK, int ITEMS, class Policy, int PF = 0>
__global__ void __launch_bounds__(BLOCK + 64, 1)
singlePassScanRing(const int *in, int *out, size_t n,
                   unsigned long long *state, int *total, int inclusive,
                   unsigned stallNs)
{
    scanTileLoop<BLOCK, ITEMS, Policy, PIPE_NAMED, true, PF>(
        in, out, n, state, total, inclusive, stallNs);
}

/* THE TWO PATHS, one plan (below) choosing between them.
 * - The ring (singlePassScanRing): on sm_90 and newer, 256 x 16 ints
 *   loaded by bulk copies into a ring of stages, 2 blocks an SM, the
 *   stages sized from the SM's shared memory (singlePassRingSmem). Chosen
 *   where the kernel was compiled for sm_90 or newer, the GPU is one, at
 *   least two stages fit, and n is at least SCAN_RING_MIN_N. With each
 *   tile's copy the loader asks the L2 for the tile taken a round later
 *   (ringPipelined's PF 1) where a round's tiles fit in a quarter of the
 *   L2 (tile.cuh's prefetchRoundFits; the plan's prefetch, which the
 *   self-check runs both ways).
 * - The piped loop (above): tiles of 256 x 24 ints, everywhere else (the
 *   T4's sm_75, the A100's sm_80, a PTX build for them, n below that);
 *   no L2 prefetch (there it lost).
 * Both read the look-back window of 32 tiles with relaxed atomics
 * (lookback.cuh). NOTES.md has the measurements that chose them;
 * dev/scan_variants.cu (make dev) times them against the others. */
typedef enum { SINGLE_PASS_PIPED, SINGLE_PASS_RING } SinglePassPath;

#define SCAN_PASS_THREADS 256
#define SCAN_PASS_ITEMS 24
#define SCAN_PASS_TILE (SCAN_PASS_THREADS * SCAN_PASS_ITEMS)
#define SCAN_PASS_BLOCK (SCAN_PASS_THREADS + 32)
#define SCAN_PASS_NAME "256 x 24 piped, relaxed, window 32"

#define SCAN_RING_THREADS 256
#define SCAN_RING_ITEMS 16
#define SCAN_RING_TILE (SCAN_RING_THREADS * SCAN_RING_ITEMS)
#define SCAN_RING_BLOCK (SCAN_RING_THREADS + 64)
#define SCAN_RING_PER_SM 2   /* blocks an SM the ring is sized for */
/* The ring from 2^25 ints: on the H200 it lost to the piped loop up to
 * 2^23 and tied at 2^24 (NOTES.md). Plans read singlePassRingMinN, which
 * the self-check sets to 1 to check the ring at every size. */
#define SCAN_RING_MIN_N ((size_t)1 << 25)
static size_t singlePassRingMinN = SCAN_RING_MIN_N;

typedef void (*SinglePassKernel)(const int *, int *, size_t,
                                 unsigned long long *, int *, int,
                                 unsigned);

/* The production kernels: the piped loop; the ring without and with the
 * L2 prefetch. */
static const SinglePassKernel singlePassKernel =
    singlePassScanPiped<SCAN_PASS_THREADS, SCAN_PASS_ITEMS, 1,
                        LookbackRelaxed32, PIPE_NAMED>;
static const SinglePassKernel singlePassRingKernels[2] = {
    singlePassScanRing<SCAN_RING_THREADS, SCAN_RING_ITEMS, LookbackRelaxed32>,
    singlePassScanRing<SCAN_RING_THREADS, SCAN_RING_ITEMS, LookbackRelaxed32,
                       1>};
static const void *const singlePassRings[2] = {
    (const void *)singlePassRingKernels[0],
    (const void *)singlePassRingKernels[1]};

/* The ring's stages on dev in bytes (0: the ring cannot run there). */
inline size_t singlePassRingSmem(const hx_device *dev)
{
    return ringStageBytes(dev, singlePassRings, 2,
                          SCAN_RING_TILE * sizeof(int), SCAN_RING_PER_SM);
}

/* What the single pass at one n needs on the device. */
typedef struct {
    size_t n;
    SinglePassPath path;
    size_t tile;                 /* ints: SCAN_PASS_TILE or SCAN_RING_TILE */
    size_t tiles;
    unsigned long long *state;   /* lookbackBytes(tiles) */
    size_t smem;                 /* the ring's stages, bytes (else 0) */
    unsigned grid;               /* blocks: as many as run at once, at
                                    most one a tile (a check may set 3) */
    unsigned stallNs;            /* the debug stalls; 0 when timed */
    int prefetch;                /* the ring's L2 prefetch, 0 or 1 */
} SinglePassPlan;

/* Device bytes a plan for n ints allocates (either path). */
inline size_t singlePassBytes(size_t n)
{
    return lookbackBytes((n + SCAN_RING_TILE - 1) / SCAN_RING_TILE);
}

/* The path a plan for n takes on dev: the ring where it can run and n is
 * at least singlePassRingMinN, else the piped loop. */
inline SinglePassPath singlePassPathFor(const hx_device *dev, size_t n)
{
    const bool ring = n >= singlePassRingMinN && singlePassRingSmem(dev);
    return ring ? SINGLE_PASS_RING : SINGLE_PASS_PIPED;
}

/* The blocks of a path that run at once on dev, and its tile (ints). */
inline unsigned singlePassResident(const hx_device *dev, SinglePassPath path,
                                   size_t *tile)
{
    if (path == SINGLE_PASS_PIPED) {
        *tile = SCAN_PASS_TILE;
        return hx_resident_blocks(dev, (const void *)singlePassKernel,
                                  SCAN_PASS_BLOCK, 0);
    }
    *tile = SCAN_RING_TILE;
    return ringResident(dev, singlePassRings, 2, SCAN_RING_BLOCK,
                        singlePassRingSmem(dev), SCAN_RING_PER_SM);
}

/* A plan for n on the given path; 0 (and no plan) where the ring cannot
 * run on dev. singlePassPlanCreate takes singlePassPathFor's. */
inline int singlePassPlanCreateOn(SinglePassPlan *p, const hx_device *dev,
                                  size_t n, SinglePassPath path)
{
    memset(p, 0, sizeof *p);
    const unsigned resident = singlePassResident(dev, path, &p->tile);
    if (resident == 0) return 0;
    p->n = n;
    p->path = path;
    p->tiles = (n + p->tile - 1) / p->tile;
    p->smem = path == SINGLE_PASS_RING ? singlePassRingSmem(dev) : 0;
    HX_CHECK(cudaMalloc(&p->state, lookbackBytes(p->tiles)));
    p->grid = p->tiles < resident ? (unsigned)(p->tiles ? p->tiles : 1)
                                  : resident;
    p->prefetch = path == SINGLE_PASS_RING &&
                  prefetchRoundFits(p->grid * p->tile * sizeof(int),
                                    dev->l2_bytes);
    return 1;
}

inline void singlePassPlanCreate(SinglePassPlan *p, const hx_device *dev,
                                 size_t n)
{
    singlePassPlanCreateOn(p, dev, n, singlePassPathFor(dev, n));
}

inline void singlePassPlanDestroy(SinglePassPlan *p)
{
    if (p->state) HX_CHECK(cudaFree(p->state));
    memset(p, 0, sizeof *p);
}

/* The plan in words, e.g. for a table's heading: its path and shape. */
inline const char *singlePassShape(const SinglePassPlan *p, char *buf,
                                   size_t len)
{
    const int ring = p->path == SINGLE_PASS_RING;
    snprintf(buf, len, "%s%s: %zu tiles of %zu, %u blocks, %zu stages",
             ring ? "ring" : "piped", p->prefetch ? ", L2 prefetch" : "",
             p->tiles, p->tile, p->grid,
             ring ? p->smem / (p->tile * sizeof(int)) : (size_t)0);
    return buf;
}

/* One run's launches: the state's reset (a memset), the kernel (n = 0:
 * a memset of *total alone). */
inline int singlePassLaunches(const SinglePassPlan *p)
{
    return p->n ? 2 : 1;
}

/* out[i] = in[0] + ... + in[i - 1] (inclusive: + in[i]) for i < p->n,
 * the total in *total; the contract at the top. */
inline void singlePassScan(const SinglePassPlan *p, const int *in, int *out,
                           int *total, int inclusive, cudaStream_t stream)
{
    if (p->n == 0) {
        HX_CHECK(cudaMemsetAsync(total, 0, sizeof(int), stream));
        return;
    }
    HX_CHECK(cudaMemsetAsync(p->state, 0, lookbackBytes(p->tiles), stream));
    if (p->path == SINGLE_PASS_RING)
        singlePassRingKernels[p->prefetch ? 1 : 0]<<<p->grid, SCAN_RING_BLOCK,
                                                     p->smem, stream>>>(
            in, out, p->n, p->state, total, inclusive, p->stallNs);
    else
        singlePassKernel<<<p->grid, SCAN_PASS_BLOCK, 0, stream>>>(
            in, out, p->n, p->state, total, inclusive, p->stallNs);
    HX_CHECK_LAUNCH("singlePassScan");
}
#endif
