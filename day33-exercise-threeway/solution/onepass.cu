/* solution/onepass.cu: the exercise's three-way split (negatives, zeros,
 * positives, each group in input order) in one placing pass after a
 * counting pass, against the two-scan split students build and against
 * CUB. Maintainers only: it shows the answer's ranks, and the student copy
 * has no solution/ folder.
 *
 * The floor. A positive's slot is A + B + (positives before it), where A
 * and B are the counts of negatives and zeros in the WHOLE input: no pass
 * can place the first positive before it has seen every element. So a
 * stable split reads the input once to count, then reads it again and
 * writes every element once: read n + read n + write n = 3n ints (1.5x a
 * copy's 2n), whatever the scheme. Each tile of the placing pass is staged
 * in shared memory as [negatives | zeros | positives] (placeSplitTile) and
 * written as three contiguous runs at
 *     negatives before + r,  A + zeros before + r,
 *     A + B + positives before + r     (positives before = tile start -
 *                                       negatives before - zeros before),
 * one int per thread per store, or (the "vector stores" configurations)
 * with each run staged at its destination's offset modulo 4 and written
 * as 16-byte vectors, as day 33's stable partition writes its two runs
 * (storeStaged, ../day31-scan/lookback.cuh).
 * The schemes differ in how a tile learns the negatives and zeros before
 * it (splitConfigs holds configurations of both):
 *   COUNTS PER BLOCK (production; day 33's stable partition's scheme, its
 *   machinery in ../day31-scan/ranges.cuh). Both passes run the same grid
 *   of G blocks, as many as fit at once, and block b takes the same
 *   contiguous range of tiles in both (tileRange).
 *     1. countSplitRanges: each block counts the negatives and zeros of
 *        its range and writes the two counts to its own slots (no atomics;
 *        every slot written, so nothing to clear);
 *     2. splitRanges: each block sums the G pairs itself (A, B, and the
 *        negatives and zeros before its range), then walks its range,
 *        forward or backward, carrying the two counts from tile to tile:
 *        no look-back, no block ever waits for another.
 *   Launches: the two passes.
 *   LOOK-BACK (the scheme before; --variants rows named "look-back").
 *     1. countSigns counts A and B into two device counters;
 *     2. splitOnePass takes tiles in start order and learns the counts of
 *        all earlier tiles from day 31's decoupled look-back (two counts
 *        per status word: LookbackCounts in lookback.cuh).
 *   Launches: a memset (the counters and the look-back's state), the
 *   count, the split.
 *
 * Build: make -C day33-exercise-threeway threeway-onepass
 *        (the rules are in solution/onepass.mk, included by the Makefile)
 * Run:   ./day33-exercise-threeway/threeway-onepass [--n N] [--seed S]
 *        [--runs R] [--warmup W] [--check]
 *        ./day33-exercise-threeway/threeway-onepass --variants [--n N]
 *        every configuration of the one pass (splitConfigs), timed
 *        interleaved with the memcpy, the copy, both counting passes alone
 *        and CUB
 * Rows (thirds mix, one size, timed interleaved):
 *   cudaMemcpy device to device    the floor's yardstick
 *   copyInts                       the "x copy"
 *   countSplitRanges               pass 1 alone (floor: n ints)
 *   two-scan split                 the exercise's way: markNegative,
 *                                  markZero, two course scans,
 *                                  scatterThreeWay (solution/threeway.cu)
 *   cub::DevicePartition::If       CUB's three-way partition (two select
 *                                  ops; its third group comes out in
 *                                  another order, so it is checked for
 *                                  holding the same values)
 *   onePassSplit                   countSplitRanges, then splitRanges (the
 *                                  first of splitConfigs)
 */
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

#include <cub/device/device_partition.cuh>
#include <thrust/iterator/reverse_iterator.h>

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_time.h"
#include "../../day31-scan/lookback.cuh"
#include "../../day31-scan/ranges.cuh"
#include "../../day31-scan/tile_scan.h"

static const char *const PROG = "threeway-onepass";

/* The reference solution's kernel (solution/threeway.cu, linked in). */
__global__ void scatterThreeWay(const int *__restrict__ in,
                                const int *__restrict__ negRank,
                                const int *__restrict__ zeroRank,
                                int *__restrict__ out, size_t n,
                                const int *__restrict__ totalNeg,
                                const int *__restrict__ totalZero);

#define BLOCK 256

/* ------------------------------------------------------------------------
 * The one-pass split
 * ---------------------------------------------------------------------- */

/* One element's contribution to a packed count: negatives in the low 16
 * bits, zeros in the high 16. A tile holds fewer than 2^16 elements, so
 * sums of these over a tile never carry from one field into the other. */
__device__ inline unsigned signBits(int a)
{
    return a < 0 ? 1u : a == 0 ? 1u << 16 : 0u;
}

/* v[j] = the packed counts of the thread's j-th vector. */
template <int VECS>
__device__ inline void signsPerVector(const int4 (&x)[VECS],
                                      unsigned (&v)[VECS])
{
#pragma unroll
    for (int j = 0; j < VECS; ++j)
        v[j] = signBits(x[j].x) + signBits(x[j].y) + signBits(x[j].z) +
               signBits(x[j].w);
}

/* Stages and writes one tile, by every thread of the block, shared by both
 * placing passes. Called after the barrier that makes warp 0's partials
 * (scanUp) and the tile's counts visible, and after every read of stage
 * for an earlier tile (a barrier since). x: the thread's vectors (pads
 * positive, past valid); v: scanUp's result over signsPerVector; tNeg,
 * tZero: the tile's negatives and zeros; negAt, zeroAt, posAt: where its
 * negatives, zeros and positives start in out; valid: its real elements.
 * The tile is staged as [negatives | zeros | positives], each group in
 * input order; a barrier; then the three runs leave. STORE_STAGED: the
 * groups packed from stage[0] (Tile::SIZE ints), written one int per
 * thread per store, every warp's store 32 consecutive ints but where a run
 * ends. STORE_VECTORS: each group staged at its run's offset modulo 4 in
 * out (stage: STAGED_INTS(Tile::SIZE, 3) ints, 16-byte aligned), written
 * by storeStaged (lookback.cuh) as 16-byte vectors where out is 16-byte
 * aligned, as day 33's stable partition writes its two runs. Reads stage
 * after its barrier: the caller's next write of stage must come after
 * another. */
template <int THREADS, int ITEMS, int STORE>
__device__ void placeSplitTile(
    int *__restrict__ out, int *stage,
    const typename StripedTile<THREADS, ITEMS>::Storage &st,
    const int4 (&x)[ITEMS / 4], const unsigned (&v)[ITEMS / 4],
    unsigned tNeg, unsigned tZero, size_t negAt, size_t zeroAt, size_t posAt,
    unsigned valid)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    static_assert(Tile::SIZE < 65536, "a tile's counts fit in 16 bits");
    static_assert(STORE == STORE_STAGED || STORE == STORE_VECTORS,
                  "the split always stages");
    constexpr bool VECTORS = STORE == STORE_VECTORS;
    /* Where each group starts in stage. */
    const unsigned negFrom = VECTORS ? stagedFrom(0, negAt) : 0;
    const unsigned zeroFrom =
        VECTORS ? stagedFrom((negFrom + tNeg + 3) & ~3u, zeroAt) : tNeg;
    const unsigned posFrom =
        VECTORS ? stagedFrom((zeroFrom + tZero + 3) & ~3u, posAt)
                : tNeg + tZero;
#pragma unroll
    for (int j = 0; j < Tile::VECS; ++j) {
        const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
        const unsigned own = signBits(e[0]) + signBits(e[1]) +
                             signBits(e[2]) + signBits(e[3]);
        const unsigned rank = Tile::exclusiveOf(j, v[j], own, st);
        unsigned negR = rank & 0xffffu, zeroR = rank >> 16;
        const unsigned at = 4 * (j * THREADS + threadIdx.x);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            if (at + c < valid)
                stage[e[c] < 0 ? negFrom + negR
                      : e[c] == 0 ? zeroFrom + zeroR
                                  : posFrom + (at + c - negR - zeroR)] = e[c];
            negR += e[c] < 0;
            zeroR += e[c] == 0;
        }
    }
    /* Every slot of stage that a run covers is written before it is
     * read. */
    __syncthreads();
    if constexpr (VECTORS) {
        const StagedRun runs[3] = {{negAt, negFrom, tNeg},
                                   {zeroAt, zeroFrom, tZero},
                                   {posAt, posFrom, valid - tNeg - tZero}};
        storeStaged<THREADS>(out, stage, runs, (uintptr_t)out % 16 == 0);
    } else {
        for (unsigned k = threadIdx.x; k < valid; k += THREADS)
            out[k < tNeg ? negAt + k
                : k < tNeg + tZero ? zeroAt + (k - tNeg)
                                   : posAt + (k - tNeg - tZero)] = stage[k];
    }
}

/* ---- Counts per block (the production scheme) ---- */

/* Pass 1: blockCounts[2 b] and blockCounts[2 b + 1] = the negatives and
 * the zeros in block b's range of tiles (tileRange over gridDim.x
 * blocks), for every block b. Every slot is written: nothing to clear
 * first. Only reads: n ints. */
template <int THREADS, int ITEMS, bool AHEAD>
__global__ void __launch_bounds__(THREADS)
countSplitRanges(const int *__restrict__ in, size_t n,
                 unsigned long long *__restrict__ blockCounts)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    unsigned neg = 0, zero = 0;
    auto body = [&](size_t, int4 (&x)[Tile::VECS]) {
        unsigned v[Tile::VECS], packed = 0;
        signsPerVector(x, v);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) packed += v[j];
        /* At most ITEMS in a field: no carry. */
        neg += packed & 0xffffu;
        zero += packed >> 16;
    };
    /* 1 pads: positive, counted nowhere. */
    rangeEachTile<Tile, AHEAD, false>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), 1, body);
    unsigned long long sums[2] = {neg, zero};
    blockSums<THREADS>(sums);
    if (threadIdx.x == 0) {
        blockCounts[2 * (size_t)blockIdx.x] = sums[0];
        blockCounts[2 * (size_t)blockIdx.x + 1] = sums[1];
    }
}

/* Pass 2: in[0..n) split into out[0..n), on the grid countSplitRanges ran
 * with, after it (blockCounts as it left them); in and out must not
 * overlap; n < 2^31 (HX_MAX_N). Block b sums every block's counts (A, B,
 * and the negatives and zeros before its range), then places its range of
 * tiles, carrying the two counts from tile to tile (BACKWARD: from the
 * range's end, so that the tiles pass 1 read last, which may still be in
 * the L2, are read first). stallNs is not read: nothing here waits on
 * another block. __launch_bounds__(THREADS, MIN_BLOCKS): blocks per SM, as
 * splitConfigs' names say. STORE: how placeSplitTile writes each tile's
 * three runs (STORE_STAGED or STORE_VECTORS). */
template <int THREADS, int ITEMS, int MIN_BLOCKS, bool AHEAD, bool BACKWARD,
          int STORE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
splitRanges(const int *__restrict__ in, int *__restrict__ out, size_t n,
            unsigned long long *__restrict__ blockCounts, unsigned stallNs)
{
    (void)stallNs;
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    /* 16-byte vectors of stage are read only with STORE_VECTORS. */
    __shared__ alignas(STORE == STORE_VECTORS ? 16 : 4) int
        stage[STORE == STORE_VECTORS ? STAGED_INTS(Tile::SIZE, 3)
                                     : Tile::SIZE];
    __shared__ unsigned tileCounts;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;

    /* sums: the negatives and the zeros up to the end of this block's
     * range, then A and B. */
    unsigned long long sums[4] = {0, 0, 0, 0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS) {
        const unsigned long long neg = blockCounts[2 * (size_t)b],
                                 zero = blockCounts[2 * (size_t)b + 1];
        sums[0] += b <= blockIdx.x ? neg : 0;
        sums[1] += b <= blockIdx.x ? zero : 0;
        sums[2] += neg;
        sums[3] += zero;
    }
    blockSums<THREADS>(sums);
    /* Counts and places from here on are below n < 2^31 (the course's
     * limit), so 32 bits hold them: in 64 the 256 x 16 ahead rows spill on
     * sm_75 and sm_80 at 64 registers. */
    const unsigned a = (unsigned)sums[2], ab = a + (unsigned)sums[3];
    /* The negatives and the zeros before the next tile walked (forward),
     * or before the end of the last one walked (BACKWARD). */
    unsigned negRun = (unsigned)sums[0], zeroRun = (unsigned)sums[1];
    if (!BACKWARD) {
        negRun -= (unsigned)blockCounts[2 * (size_t)blockIdx.x];
        zeroRun -= (unsigned)blockCounts[2 * (size_t)blockIdx.x + 1];
    }

    auto body = [&](size_t tile, int4 (&x)[Tile::VECS]) {
        const size_t base = tile * Tile::SIZE;
        const unsigned valid =
            n - base < (size_t)Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        signsPerVector(x, v);
        /* Every thread reaches its barrier only after the previous tile's
         * reads of st, tileCounts and stage; lane 31 of each warp writes
         * st here, just before it. */
        const unsigned packed = Tile::scanUp(v, st);
        if (threadIdx.x == 0) tileCounts = packed;
        /* Everyone reads tileCounts and warp 0's partials. */
        __syncthreads();
        const unsigned tNeg = tileCounts & 0xffffu, tZero = tileCounts >> 16;
        const unsigned negBefore = BACKWARD ? negRun - tNeg : negRun;
        const unsigned zeroBefore = BACKWARD ? zeroRun - tZero : zeroRun;
        negRun = BACKWARD ? negBefore : negRun + tNeg;
        zeroRun = BACKWARD ? zeroBefore : zeroRun + tZero;
        placeSplitTile<THREADS, ITEMS, STORE>(
            out, stage, st, x, v, tNeg, tZero, negBefore, a + zeroBefore,
            ab + ((unsigned)base - negBefore - zeroBefore), valid);
    };
    /* 1 pads: positive, so staged after every real element, never
     * stored. */
    rangeEachTile<Tile, AHEAD, BACKWARD>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), 1, body);
}

/* ---- Look-back (the scheme before; --variants rows) ---- */

/* Pass 1: mem[0] += negatives, mem[1] += zeros of in[0..n) (both zero at
 * launch). 16-byte loads when in is aligned; one pair of atomics per warp.
 * Any grid. */
__global__ void countSigns(const int *__restrict__ in, size_t n,
                           unsigned long long *totals)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t scalarFrom = 0;
    unsigned neg = 0, zero = 0;
    if ((uintptr_t)in % 16 == 0) {
        const int4 *v = reinterpret_cast<const int4 *>(in);
        const size_t vecs = n / 4;
#pragma unroll 4
        for (size_t i = tid; i < vecs; i += stride) {
            const int4 x = v[i];
            neg += (x.x < 0) + (x.y < 0) + (x.z < 0) + (x.w < 0);
            zero += (x.x == 0) + (x.y == 0) + (x.z == 0) + (x.w == 0);
        }
        scalarFrom = 4 * vecs;
    }
    for (size_t i = scalarFrom + tid; i < n; i += stride) {
        neg += in[i] < 0;
        zero += in[i] == 0;
    }
    /* Every lane of every warp gets here: the loops above are the only
     * branches, and they rejoin. */
    for (int off = 16; off > 0; off /= 2) {
        neg += __shfl_down_sync(0xffffffffu, neg, off);
        zero += __shfl_down_sync(0xffffffffu, zero, off);
    }
    if (threadIdx.x % 32 == 0) {
        if (neg) atomicAdd(&totals[0], (unsigned long long)neg);
        if (zero) atomicAdd(&totals[1], (unsigned long long)zero);
    }
}

/* Pass 2 (the contract of lookback.cuh for the state and the grid):
 * in[0..n) split into out[0..n); mem holds A and B from countSigns, then
 * the look-back's state (zero at countSigns' launch, cleared with A and B
 * by one memset); in and out must not overlap. stallNs > 0: the
 * look-back's debug stalls. The tile loop is lookback.cuh's: one tile at a
 * time, or (AHEAD) the next tile's loads in flight while this one is
 * split. __launch_bounds__(THREADS, MIN_BLOCKS): blocks per SM, as
 * splitConfigs' names say. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, class Policy, bool AHEAD>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
splitOnePass(const int *in, int *__restrict__ out, size_t n,
             unsigned long long *mem, unsigned stallNs)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ int stage[Tile::SIZE];
    __shared__ unsigned tileSlot, tileCounts;
    __shared__ Counts before;
    const size_t a = mem[0], ab = a + mem[1];
    unsigned long long *state = mem + 2;

    auto body = [&](unsigned tile, size_t base, bool, int4 (&x)[Tile::VECS]) {
        const unsigned valid =
            n - base < Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        signsPerVector(x, v);
        const unsigned packed = Tile::scanUp(v, st);
        if (threadIdx.x < 32) {
            const Counts mine = {(int)(packed & 0xffffu), (int)(packed >> 16)};
            const LookbackResult<Counts> r =
                lookbackTileWith<LookbackCounts, Policy>(state, tile, mine,
                                                         stallNs);
            if (threadIdx.x == 0) {
                before = r.exclusive;
                tileCounts = packed;
            }
        }
        /* before, tileCounts and warp 0's scanned partials are read by
         * everyone; the previous tile's readers of stage passed the tile
         * loop's barrier. */
        __syncthreads();
        const size_t negBefore = (size_t)before.first;
        const size_t zeroBefore = (size_t)before.second;
        placeSplitTile<THREADS, ITEMS, STORE_STAGED>(
            out, stage, st, x, v, tileCounts & 0xffffu, tileCounts >> 16,
            negBefore, a + zeroBefore, ab + (base - negBefore - zeroBefore),
            valid);
    };
    /* Padding is 1, a positive: it adds nothing to the packed counts, sits
     * after every real element, and is never stored. Vectors need only in
     * aligned: the stores are ints. */
    if constexpr (AHEAD)
        lookbackEachTileAhead<Tile>(state, &tileSlot, in, n, true, 1, body);
    else
        lookbackEachTile<Tile>(state, &tileSlot, in, n, true, 1, body);
}

typedef void (*CountKernel)(const int *, size_t, unsigned long long *);
typedef void (*SplitKernel)(const int *, int *, size_t, unsigned long long *,
                            unsigned);

/* The split's configurations, in the two schemes (the top of this file),
 * as day33-compaction's stableConfigs holds the stable partition's: each
 * names its scheme, its two passes and its tile shape. A name reads as
 * scan.cu's passConfigs: threads x ints per thread; "ahead": the next
 * tile's loads in flight while this one is split; "backward": each block
 * walks its range from the end; the look-back's atomics and window; blocks
 * per SM from __launch_bounds__ (none named: no minimum); "vector stores":
 * each tile's three runs leave as 16-byte vectors (STORE_VECTORS), else
 * one int per thread per store (STORE_STAGED). Every one is built and
 * checked; the first is the production one; --variants times them all.
 * "(untuned)" marks the configuration before the look-back's tuning. */
typedef enum { SPLIT_COUNTS, SPLIT_LOOKBACK } SplitScheme;

typedef struct {
    const char *name;
    SplitScheme scheme;
    CountKernel count;   /* pass 1 */
    SplitKernel place;   /* pass 2 */
    int threads, items;
} SplitConfig;

#define COUNTS(T, I, B, A, W, S)                                             \
    SPLIT_COUNTS, countSplitRanges<T, I, A>, splitRanges<T, I, B, A, W, S>,  \
        T, I
#define LOOKBACK(T, I, B, P, A)                                              \
    SPLIT_LOOKBACK, countSigns, splitOnePass<T, I, B, P, A>, T, I
static const SplitConfig splitConfigs[] = {
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM, vector stores",
     COUNTS(256, 16, 4, true, true, STORE_VECTORS)},
    {"256 x 16, look-back, acq-rel, window 32, 4 blocks/SM",
     LOOKBACK(256, 16, 4, LookbackAcqRel32, false)},
    {"256 x 16 ahead, look-back, relaxed, window 128, 4 blocks/SM (untuned)",
     LOOKBACK(256, 16, 4, LookbackRelaxed128, true)},
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM",
     COUNTS(256, 16, 4, true, true, STORE_STAGED)},
    {"256 x 16 ahead, counts per block, 4 blocks/SM",
     COUNTS(256, 16, 4, true, false, STORE_STAGED)},
    {"256 x 16, counts per block, backward, 4 blocks/SM",
     COUNTS(256, 16, 4, false, true, STORE_STAGED)},
    {"256 x 16, counts per block, 4 blocks/SM",
     COUNTS(256, 16, 4, false, false, STORE_STAGED)},
    {"512 x 16 ahead, counts per block, backward, 2 blocks/SM",
     COUNTS(512, 16, 2, true, true, STORE_STAGED)},
    {"256 x 32 ahead, counts per block, backward, 2 blocks/SM",
     COUNTS(256, 32, 2, true, true, STORE_STAGED)},
    {"256 x 16, counts per block, backward, 4 blocks/SM, vector stores",
     COUNTS(256, 16, 4, false, true, STORE_VECTORS)},
    {"256 x 16 ahead, counts per block, backward, vector stores",
     COUNTS(256, 16, 1, true, true, STORE_VECTORS)},
};
#undef COUNTS
#undef LOOKBACK
#define SPLIT_CONFIGS ((int)(sizeof splitConfigs / sizeof splitConfigs[0]))
#define SPLIT_PROD 0
/* The look-back scheme's production row before counts per block. */
#define SPLIT_LOOKBACK_PROD 1
#define SPLIT_SMALLEST_TILE (256 * 16)   /* the most tiles any config makes */
/* The self-check's small grid: far fewer blocks than tiles, so every
 * block's range (or, with the look-back, its tile loop) runs many tiles. */
#define SMALL_GRID 3u

static size_t splitTiles(int config, size_t n)
{
    const size_t tile =
        (size_t)splitConfigs[config].threads * splitConfigs[config].items;
    return (n + tile - 1) / tile;
}

typedef struct {
    size_t n;
    /* Pass 1's output, pass 2's input, one buffer: the look-back scheme's
     * [A, B | look-back state]; counts per block: each block's negatives
     * and zeros. */
    unsigned long long *mem;
    unsigned resident[SPLIT_CONFIGS];   /* placing blocks that fit at once */
    unsigned countGrid;                 /* countSigns' */
} OnePass;

/* Words of OnePass::mem at n, for any configuration and grid: the
 * look-back needs 2 + tiles + 1, counts per block 2 per block, and a grid
 * has at most as many blocks as tiles, or SMALL_GRID. */
static size_t onePassWords(size_t n)
{
    return 2 * (n / SPLIT_SMALLEST_TILE + 1 + SMALL_GRID);
}

/* Placing blocks of configuration config that fit on the GPU at once. */
static unsigned splitResident(const hx_device *dev, int config)
{
    int perSm = 0;
    HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSm, splitConfigs[config].place, splitConfigs[config].threads, 0));
    return (unsigned)(perSm > 0 ? perSm : 1) *
           (unsigned)(dev->sms > 0 ? dev->sms : 1);
}

static void onePassCreate(OnePass *p, const hx_device *dev, size_t n)
{
    p->n = n;
    HX_CHECK(cudaMalloc(&p->mem, onePassWords(n) * sizeof *p->mem));
    for (int c = 0; c < SPLIT_CONFIGS; ++c)
        p->resident[c] = splitResident(dev, c);
    p->countGrid = hx_grid_for(dev, n / 4 + 1, BLOCK);
}

static void onePassDestroy(OnePass *p)
{
    HX_CHECK(cudaFree(p->mem));
}

/* The grid of both passes of configuration config: grid, or (0) as many
 * blocks as fit at once, never more than the tiles (countSigns runs on
 * its own grid). */
static unsigned onePassGrid(const OnePass *p, int config, unsigned grid)
{
    if (grid) return grid;
    const size_t tiles = splitTiles(config, p->n);
    return tiles < p->resident[config] ? (unsigned)tiles
                                       : p->resident[config];
}

/* Pass 1 of configuration config over in, on the default stream. The
 * look-back: one memset clears A and B (and, with state, the look-back's
 * words), then countSigns; counts per block: the counting pass on grid
 * blocks, nothing to clear (nothing at all at n = 0). */
static void onePassCount(const OnePass *p, int config, const int *in,
                         unsigned grid, int state)
{
    const SplitConfig *c = &splitConfigs[config];
    if (c->scheme == SPLIT_LOOKBACK) {
        HX_CHECK(cudaMemsetAsync(
            p->mem, 0,
            2 * sizeof *p->mem +
                (state ? lookbackBytes(splitTiles(config, p->n)) : 0),
            0));
        if (p->n == 0) return;
        c->count<<<p->countGrid, BLOCK>>>(in, p->n, p->mem);
        HX_CHECK_LAUNCH("countSigns");
        return;
    }
    if (p->n == 0) return;
    c->count<<<grid, c->threads>>>(in, p->n, p->mem);
    HX_CHECK_LAUNCH("countSplitRanges");
}

/* The split of in into out on the default stream, in configuration
 * config. grid 0: as many blocks as fit at once (onePassGrid). */
static void onePassRun(const OnePass *p, int config, const int *in, int *out,
                       unsigned grid, unsigned stallNs)
{
    const SplitConfig *c = &splitConfigs[config];
    grid = onePassGrid(p, config, grid);
    onePassCount(p, config, in, grid, 1);
    if (p->n == 0) return;
    c->place<<<grid, c->threads>>>(in, out, p->n, p->mem, stallNs);
    if (c->scheme == SPLIT_COUNTS)
        HX_CHECK_LAUNCH("splitRanges");
    else
        HX_CHECK_LAUNCH("splitOnePass");
}

/* ------------------------------------------------------------------------
 * The rows it is timed against
 * ---------------------------------------------------------------------- */

/* The exercise driver's predicates (driver.cu has its own, static). */
__global__ void markNegative(const int *__restrict__ in,
                             int *__restrict__ flags, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = in[i] < 0;
}

__global__ void markZero(const int *__restrict__ in, int *__restrict__ flags,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = in[i] == 0;
}

__global__ void copyInts(const int *__restrict__ in, int *__restrict__ out,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[i];
}

struct IsNegative {
    __host__ __device__ bool operator()(const int &v) const { return v < 0; }
};
struct IsZero {
    __host__ __device__ bool operator()(const int &v) const { return v == 0; }
};

typedef enum {
    R_MEMCPY, R_COPY, R_COUNT, R_TWO_SCANS, R_CUB, R_ONE_PASS
} RowKind;

enum {
    F_SMALL_GRID = 1,   /* one pass: SMALL_GRID blocks over every tile */
    F_SHIFTED = 2,      /* one pass: input one int past 16-byte alignment */
    F_STALL = 4         /* one pass: the look-back's debug stalls */
};

typedef struct {
    const char *name;
    RowKind kind;
    unsigned flags;
    int config;        /* one pass, count: index into splitConfigs */
} Row;

/* Everything on the device at one size. */
typedef struct {
    const hx_device *dev;
    size_t n;
    int *in, *shift;            /* shift + 1: the misaligned copy (checks) */
    hx_guarded out;
    int *negRank, *zeroRank;    /* the two-scan split's ranks */
    int *totals;                /* its A and B; CUB's two counts */
    int *zeroOut;               /* CUB's second group */
    ScanPlan plan;
    OnePass pass;
    void *cub;
    size_t cubBytes;
} Problem;

static size_t cubBytesFor(size_t n)
{
    size_t bytes = 0;
    thrust::reverse_iterator<int *> rev(NULL);
    HX_CHECK(cub::DevicePartition::If(NULL, bytes, (const int *)NULL,
                                      (int *)NULL, (int *)NULL, rev,
                                      (int *)NULL, (int)n, IsNegative(),
                                      IsZero(), 0));
    return bytes < sizeof(int) ? sizeof(int) : bytes;
}

/* Device bytes at n; others: also the two-scan split's and CUB's buffers;
 * shifted: also the misaligned copy. */
static size_t problemBytes(size_t n, int others, int shifted)
{
    const size_t ints = n + 4;
    return ((2 + shifted) * ints + 2 * HX_GUARD_WORDS) * sizeof(int) +
           onePassWords(n) * sizeof(unsigned long long) +
           (others ? 3 * ints * sizeof(int) + scanPlanBytes(n) +
                         cubBytesFor(n)
                   : 0);
}

static void problemCreate(Problem *p, const hx_device *dev, size_t n,
                          int others, int shifted)
{
    memset(p, 0, sizeof *p);
    p->dev = dev;
    p->n = n;
    const size_t bytes = (n + 4) * sizeof(int);
    HX_CHECK(cudaMalloc(&p->in, bytes));
    if (shifted) HX_CHECK(cudaMalloc(&p->shift, bytes));
    HX_CHECK(cudaMalloc(&p->totals, 2 * sizeof(int)));
    hx_guarded_alloc(&p->out, n);
    onePassCreate(&p->pass, dev, n);
    if (others) {
        HX_CHECK(cudaMalloc(&p->negRank, bytes));
        HX_CHECK(cudaMalloc(&p->zeroRank, bytes));
        HX_CHECK(cudaMalloc(&p->zeroOut, bytes));
        scanPlanCreate(&p->plan, n);
        p->cubBytes = cubBytesFor(n);
        HX_CHECK(cudaMalloc(&p->cub, p->cubBytes));
    }
}

static void problemDestroy(Problem *p)
{
    if (p->negRank) {
        HX_CHECK(cudaFree(p->cub));
        scanPlanDestroy(&p->plan);
        HX_CHECK(cudaFree(p->zeroOut));
        HX_CHECK(cudaFree(p->zeroRank));
        HX_CHECK(cudaFree(p->negRank));
    }
    onePassDestroy(&p->pass);
    hx_guarded_free(&p->out);
    HX_CHECK(cudaFree(p->totals));
    if (p->shift) HX_CHECK(cudaFree(p->shift));
    HX_CHECK(cudaFree(p->in));
}

/* One row on one problem: the context of an hx_work. */
typedef struct {
    Problem *p;
    const Row *row;
} RowRun;

/* Enqueues one run of the row on the default stream (an hx_work). */
static void runRow(void *ctx)
{
    Problem *p = ((RowRun *)ctx)->p;
    const Row *r = ((RowRun *)ctx)->row;
    const size_t n = p->n;
    const unsigned grid = hx_grid_for(p->dev, n, BLOCK);
    switch (r->kind) {
    case R_MEMCPY:
        HX_CHECK(cudaMemcpyAsync(p->out.data, p->in, n * sizeof(int),
                                 cudaMemcpyDeviceToDevice, 0));
        break;
    case R_COPY:
        copyInts<<<grid, BLOCK>>>(p->in, p->out.data, n);
        HX_CHECK_LAUNCH("copyInts");
        break;
    case R_COUNT:
        onePassCount(&p->pass, r->config, p->in,
                     onePassGrid(&p->pass, r->config, 0), 0);
        break;
    case R_TWO_SCANS:
        markNegative<<<grid, BLOCK>>>(p->in, p->negRank, n);
        HX_CHECK_LAUNCH("markNegative");
        scanExclusive(&p->plan, p->negRank, p->totals + 0, 0);
        markZero<<<grid, BLOCK>>>(p->in, p->zeroRank, n);
        HX_CHECK_LAUNCH("markZero");
        scanExclusive(&p->plan, p->zeroRank, p->totals + 1, 0);
        scatterThreeWay<<<grid, BLOCK>>>(p->in, p->negRank, p->zeroRank,
                                         p->out.data, n, p->totals + 0,
                                         p->totals + 1);
        HX_CHECK_LAUNCH("scatterThreeWay");
        break;
    case R_CUB: {
        /* Negatives from the front of out, the third group from its back
         * (a reverse iterator), zeros into zeroOut: CUB needs a separate
         * output for a group whose start it cannot know. */
        size_t bytes = p->cubBytes;
        thrust::reverse_iterator<int *> rev(p->out.data + n);
        HX_CHECK(cub::DevicePartition::If(p->cub, bytes, (const int *)p->in,
                                          p->out.data, p->zeroOut, rev,
                                          p->totals, (int)n, IsNegative(),
                                          IsZero(), 0));
        HX_CHECK_LAUNCH("cub::DevicePartition::If");
        break;
    }
    case R_ONE_PASS:
        onePassRun(&p->pass, r->config,
                   r->flags & F_SHIFTED ? p->shift + 1 : p->in, p->out.data,
                   r->flags & F_SMALL_GRID ? SMALL_GRID : 0,
                   r->flags & F_STALL ? 4000u : 0u);
        break;
    }
}

/* Launches per run, a memset counting as one. CUB's: an init kernel and
 * one pass (cub/device/dispatch/dispatch_three_way_partition.cuh). The
 * one pass: counts per block, its two passes (none at n = 0); the
 * look-back, the memset, countSigns and the look-back pass. */
static int launchesOf(const Row *r, const Problem *p)
{
    const int counts = (r->kind == R_COUNT || r->kind == R_ONE_PASS) &&
                       splitConfigs[r->config].scheme == SPLIT_COUNTS;
    switch (r->kind) {
    case R_COUNT: return counts ? (p->n ? 1 : 0) : (p->n ? 2 : 1);
    case R_TWO_SCANS: return 2 + 2 * scanLaunches(&p->plan) + 1;
    case R_CUB: return 2;
    case R_ONE_PASS: return counts ? (p->n ? 2 : 0) : (p->n ? 3 : 1);
    default: return 1;
    }
}

/* The bytes each row's algorithm must move, in ints of n. The two-scan
 * split: 2 marks (read n, write n each), 2 course scans (read and write n
 * twice each at level 0, the levels above under 1%), the scatter (read
 * in, negRank, zeroRank; write n). */
static double floorInts(const Row *r)
{
    switch (r->kind) {
    case R_COUNT: return 1;
    case R_TWO_SCANS: return 4 + 8 + 4;
    case R_ONE_PASS: return 3;
    default: return 2;
    }
}

/* ------------------------------------------------------------------------
 * Checks
 * ---------------------------------------------------------------------- */

/* The host side of one input: the input, hx_split3's output, a buffer for
 * the fetched output, and the boundaries A and A + B. */
typedef struct {
    int *in, *ref, *got;
    size_t a, ab;
} Host;

static int hostCreate(Host *h, size_t n)
{
    const size_t bytes = (n ? n : 1) * sizeof(int);
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    memset(h, 0, sizeof *h);
    if (pages > 0 && page > 0 &&
        (double)pages * page < 3.0 * bytes + (256.0 * 1024 * 1024))
        return 0;
    h->in = (int *)malloc(bytes);
    h->ref = (int *)malloc(bytes);
    h->got = (int *)malloc(bytes);
    return h->in && h->ref && h->got;
}

static void hostDestroy(Host *h)
{
    free(h->in);
    free(h->ref);
    free(h->got);
}

/* Fills the input, computes the reference, uploads (and the misaligned
 * copy where the problem has one). */
static void hostLoad(Host *h, Problem *p, hx_mix mix, uint64_t seed)
{
    hx_fill_threeway(h->in, p->n, mix, seed);
    hx_split3(h->in, h->ref, p->n, &h->a, &h->ab);
    HX_CHECK(cudaMemcpy(p->in, h->in, p->n * sizeof(int),
                        cudaMemcpyHostToDevice));
    if (p->shift)
        HX_CHECK(cudaMemcpy(p->shift + 1, h->in, p->n * sizeof(int),
                            cudaMemcpyHostToDevice));
}

/* A counting pass's output, after it ran on its own: countSigns' A and B;
 * counts per block, each block's negatives and zeros against the host's
 * count over the block's range of tiles (tileRange, the contract of
 * countSplitRanges), the first wrong block printed with both pairs and the
 * number of wrong blocks. Returns 1 on failure, after printing it. */
static int checkCount(const Problem *p, const Row *r, const Host *h,
                      const char *what)
{
    const size_t n = p->n;
    const SplitConfig *c = &splitConfigs[r->config];
    if (c->scheme == SPLIT_LOOKBACK) {
        unsigned long long t[2];
        HX_CHECK(cudaMemcpy(t, p->pass.mem, sizeof t,
                            cudaMemcpyDeviceToHost));
        if (t[0] == h->a && t[1] == h->ab - h->a) return 0;
        printf("%s: FAIL at n=%zu: counted %llu negatives and %llu zeros, "
               "want %zu and %zu\n", what, n, t[0], t[1], h->a,
               h->ab - h->a);
        return 1;
    }
    if (n == 0) return 0;   /* nothing launched, nothing to count */
    const unsigned g = onePassGrid(&p->pass, r->config, 0);
    const size_t tiles = splitTiles(r->config, n);
    const size_t tile = (size_t)c->threads * c->items;
    unsigned long long *got =
        (unsigned long long *)malloc(2 * (size_t)g * sizeof *got);
    if (!got) {
        printf("%s: FAIL at n=%zu: no host memory for %u blocks' counts\n",
               what, n, g);
        return 1;
    }
    HX_CHECK(cudaMemcpy(got, p->pass.mem, 2 * (size_t)g * sizeof *got,
                        cudaMemcpyDeviceToHost));
    unsigned wrong = 0;
    for (unsigned b = 0; b < g; ++b) {
        const TileRange range = tileRange(tiles, b, g);
        const size_t from = range.first * tile;
        const size_t to = range.end * tile < n ? range.end * tile : n;
        unsigned long long neg = 0, zero = 0;
        for (size_t i = from; i < to; ++i) {
            neg += h->in[i] < 0;
            zero += h->in[i] == 0;
        }
        if (got[2 * b] == neg && got[2 * b + 1] == zero) continue;
        if (wrong++ == 0)
            printf("%s: FAIL at n=%zu: block %u of %u (tiles %zu to %zu) "
                   "counted %llu negatives and %llu zeros, want %llu and "
                   "%llu\n", what, n, b, g, range.first, range.end,
                   got[2 * b], got[2 * b + 1], neg, zero);
    }
    free(got);
    if (wrong)
        printf("%s: %u of %u blocks' counts wrong\n", what, wrong, g);
    return wrong != 0;
}

/* Runs the row once on a poisoned output and checks it. The one pass and
 * the two-scan split: with full, hx_check_split3 (boundaries, order,
 * unwritten slots, guards, all named); without, element for element
 * against the reference and the guards (as strict, faster at large n).
 * CUB: its counts, its negatives and zeros exactly, its third group for
 * the same values. A counting pass: checkCount. Returns 1 on failure,
 * after printing it. */
static int checkRow(Problem *p, const Row *r, Host *h, int full,
                    const char *label)
{
    const size_t n = p->n;
    char what[256];
    snprintf(what, sizeof what, "%s %s", label, r->name);
    hx_guarded_poison(&p->out);
    if (p->zeroOut)
        HX_CHECK(cudaMemset(p->zeroOut, HX_POISON_BYTE, n * sizeof(int)));
    RowRun run = {p, r};
    runRow(&run);
    hx_guard_report g;
    hx_guarded_fetch(&p->out, h->got, &g);   /* synchronises */
    hx_cmp c;
    int bad = 0;

    switch (r->kind) {
    case R_COUNT:
        return checkCount(p, r, h, what);
    case R_MEMCPY:
    case R_COPY:
        bad = hx_check_equal(what, h->got, h->in, n, &c, stdout);
        break;
    case R_CUB: {
        int counts[2] = {0, 0};
        HX_CHECK(cudaMemcpy(counts, p->totals, sizeof counts,
                            cudaMemcpyDeviceToHost));
        if ((size_t)counts[0] != h->a || (size_t)counts[1] != h->ab - h->a) {
            printf("%s: FAIL at n=%zu: counts %d and %d, want %zu and %zu\n",
                   what, n, counts[0], counts[1], h->a, h->ab - h->a);
            return 1;
        }
        /* Slots [A, A + B) of out are CUB's to leave unwritten: its zeros
         * are in zeroOut. */
        HX_CHECK(cudaMemcpy(h->got + h->a, p->zeroOut,
                            (h->ab - h->a) * sizeof(int),
                            cudaMemcpyDeviceToHost));
        hx_same same;
        bad = hx_check_equal(what, h->got, h->ref, h->ab, &c, stdout);
        bad |= hx_check_same_values(what, h->got + h->ab, h->ref + h->ab,
                                    n - h->ab, &same, stdout);
        break;
    }
    default:
        if (full) {
            hx_split_report rep;
            if (hx_check_split3(h->in, h->got, n, &g, &rep) == HX_SPLIT_PASS)
                return 0;
            hx_split_print(what, &rep, stdout);
            return 1;
        }
        bad = hx_check_equal(what, h->got, h->ref, n, &c, stdout);
        break;
    }
    hx_guard_print(what, n, &g, stdout);
    return bad || g.before || g.after;
}

/* The rows the self-check runs: the fixed ones below, then every other
 * configuration on the automatic grid and on SMALL_GRID blocks (a block's
 * range, or its tile loop, over many tiles), the look-back ones also with
 * the debug stalls (aggregates published late, prefixes withheld: windows
 * that must move back) on both grids, and the look-back's production row
 * on the misaligned input (checkRowsBuild). --variants checks each
 * configuration as it is timed before timing it. */
static const Row checkFixed[] = {
    {"onePassSplit", R_ONE_PASS, 0, SPLIT_PROD},
    {"onePassSplit, 3 blocks", R_ONE_PASS, F_SMALL_GRID, SPLIT_PROD},
    {"onePassSplit, input misaligned (int loads)", R_ONE_PASS, F_SHIFTED,
     SPLIT_PROD},
    {"countSplitRanges", R_COUNT, 0, SPLIT_PROD},
    {"countSigns", R_COUNT, 0, SPLIT_LOOKBACK_PROD},
    {"two-scan split", R_TWO_SCANS, 0, 0},
    {"cub::DevicePartition::If", R_CUB, 0, 0},
};
#define CHECK_FIXED ((int)(sizeof checkFixed / sizeof checkFixed[0]))
/* At most four rows per other configuration. */
#define CHECK_ROWS (CHECK_FIXED + 4 * SPLIT_CONFIGS)
static Row checkRows[CHECK_ROWS];
static int checkRowCount;
static char checkNames[4 * SPLIT_CONFIGS][160];

static void checkRowsBuild(void)
{
    static_assert(SMALL_GRID == 3, "the fixed rows' names say 3 blocks");
    int k = 0, named = 0;
    for (; k < CHECK_FIXED; ++k) checkRows[k] = checkFixed[k];
    auto add = [&](int c, unsigned flags) {
        snprintf(checkNames[named], sizeof checkNames[named],
                 "onePassSplit, %s%s%s%s", splitConfigs[c].name,
                 flags & F_SMALL_GRID ? ", 3 blocks" : "",
                 flags & F_SHIFTED ? ", input misaligned (int loads)" : "",
                 flags & F_STALL ? ", stalled look-back" : "");
        checkRows[k++] = Row{checkNames[named++], R_ONE_PASS, flags, c};
    };
    for (int c = 1; c < SPLIT_CONFIGS; ++c) {
        add(c, 0);
        if (splitConfigs[c].scheme == SPLIT_COUNTS) {
            add(c, F_SMALL_GRID);
            continue;
        }
        add(c, F_STALL);
        add(c, F_SMALL_GRID | F_STALL);
        if (c == SPLIT_LOOKBACK_PROD) add(c, F_SHIFTED);
    }
    checkRowCount = k;
}

/* Sizes up to this get hx_check_split3's full report. */
#define FULL_REPORT_MAX ((size_t)1 << 20)

/* Every row on every mix at size n (the huge size: the one pass alone, on
 * the thirds mix). Returns HX_EXIT_OK (also after a line saying the size
 * was skipped for memory) or HX_EXIT_FAIL. */
static int checkSize(const hx_device *dev, size_t n, int huge, uint64_t seed)
{
    const size_t bytes = problemBytes(n, !huge, !huge);
    if (!hx_fits(dev, bytes)) {
        printf("  n=%zu: skipped: needs %.0f MiB of device memory, %.0f MiB "
               "free\n", n, bytes / 1048576.0, dev->free_mem / 1048576.0);
        return HX_EXIT_OK;
    }
    Host h;
    if (!hostCreate(&h, n)) {
        hostDestroy(&h);
        printf("  n=%zu: skipped: needs %.0f MiB of host memory\n", n,
               3.0 * n * sizeof(int) / 1048576.0);
        return HX_EXIT_OK;
    }
    Problem p;
    problemCreate(&p, dev, n, !huge, !huge);
    int rc = HX_EXIT_OK;
    for (int m = 0; m < HX_MIX_COUNT && rc == HX_EXIT_OK; ++m) {
        if (huge && m != HX_MIX_THIRDS) continue;
        char label[96];
        snprintf(label, sizeof label, "n=%zu mix=%s:", n,
                 hx_mix_name((hx_mix)m));
        hostLoad(&h, &p, (hx_mix)m, seed + (uint64_t)m);
        int ran = 0;
        for (int j = 0; j < checkRowCount && rc == HX_EXIT_OK; ++j) {
            if (huge && !(checkRows[j].kind == R_ONE_PASS &&
                          checkRows[j].flags == 0 &&
                          checkRows[j].config == SPLIT_PROD))
                continue;
            if (checkRow(&p, &checkRows[j], &h, n <= FULL_REPORT_MAX,
                         label)) {
                printf("FAIL: n=%zu, mix %s (seed %llu), row %s\n", n,
                       hx_mix_name((hx_mix)m),
                       (unsigned long long)(seed + (uint64_t)m),
                       checkRows[j].name);
                rc = HX_EXIT_FAIL;
            }
            ++ran;
        }
        if (rc == HX_EXIT_OK)
            printf("  n=%-10zu %-9s pass (%d rows; A = %zu, A + B = %zu; "
                   "%zu tiles on %u blocks)\n", n, hx_mix_name((hx_mix)m),
                   ran, h.a, h.ab, splitTiles(SPLIT_PROD, n),
                   onePassGrid(&p.pass, SPLIT_PROD, 0));
    }
    problemDestroy(&p);
    hostDestroy(&h);
    return rc;
}

static int selfCheck(const hx_device *dev, const hx_opts *o)
{
    hx_rng rng;
    hx_rng_seed(&rng, o->seed);
    const size_t randomOdd =
        2 * (size_t)hx_rng_below(&rng, (uint64_t)1 << 24) + 1;
    const size_t huge = ((size_t)1 << 30) + 12345;
    /* The production grid, G blocks (as many as fit on this GPU), over
     * tiles of T: at G T - 1, G T and G T + 1 every block has one tile (the
     * last partial, then whole) and then one block has two. */
    const unsigned g = splitResident(dev, SPLIT_PROD);
    const size_t t = (size_t)splitConfigs[SPLIT_PROD].threads *
                     splitConfigs[SPLIT_PROD].items;
    /* A tile is 4096 or more elements: sizes around one, a few tiles
     * (fewer than any grid), around G tiles, 600 tiles and a partial vector
     * (the debug stalls' withheld prefixes span tiles 64 to 511, by
     * window), 4097 tiles (more than G). */
    const size_t sizes[] = {0, 1, 2, 3, 255, 256, 257, 4095, 4096, 4097,
                            65537, g * t - 1, g * t, g * t + 1,
                            600 * 4096 + 3, 16777217, randomOdd, huge};
    const size_t count = sizeof sizes / sizeof sizes[0];
    checkRowsBuild();
    printf("self-check, seed %llu: the one-pass split and the rows it is "
           "timed against, every mix, against hx_split3; outputs poisoned "
           "and guarded\n", (unsigned long long)o->seed);
    printf("onePassSplit (%s): tiles of %zu, on at most %u blocks (as many "
           "as fit at once); %u configurations\n",
           splitConfigs[SPLIT_PROD].name, t, g, (unsigned)SPLIT_CONFIGS);
    if (o->n_set) {
        const int rc = checkSize(dev, o->n, o->n > ((size_t)1 << 26), o->seed);
        if (rc == HX_EXIT_OK) printf("self-check: pass\n");
        return rc;
    }
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

static const Row timedRows[] = {
    {"cudaMemcpy device to device", R_MEMCPY, 0, 0},
    {"copyInts", R_COPY, 0, 0},
    {"countSplitRanges (pass 1 alone)", R_COUNT, 0, SPLIT_PROD},
    {"two-scan split", R_TWO_SCANS, 0, 0},
    {"cub::DevicePartition::If three-way", R_CUB, 0, 0},
    {"onePassSplit", R_ONE_PASS, 0, SPLIT_PROD},
};
#define TIMED_ROWS ((int)(sizeof timedRows / sizeof timedRows[0]))

/* Checks rows[0..k) (the memcpy first, the copy second: every floor and
 * "x copy" comes from them), then times them interleaved and prints the
 * table. variants: a row other than those two that fails its check is
 * reported and left out of the timing (the run still exits 1), so one
 * broken configuration does not hide the others' figures; otherwise a
 * failure means nothing is timed. */
static int timeRows(const hx_device *dev, const hx_opts *o, const Row *rows,
                    int k, int variants)
{
    char why[512];
    /* in, out, negRank, zeroRank, zeroOut, and a byte for the rest */
    size_t n = o->n;
    if (o->n_set)
        snprintf(why, sizeof why, "set by --n");
    else
        n = hx_default_n(dev, 5 * sizeof(int) + 1, why, sizeof why);
    if (!hx_fits(dev, problemBytes(n, 1, 0))) {
        fprintf(stderr, "%s: n = %zu does not fit in the GPU's free memory\n",
                PROG, n);
        return HX_EXIT_NOMEM;
    }
    Host h;
    if (!hostCreate(&h, n)) {
        hostDestroy(&h);
        fprintf(stderr, "%s: n = %zu needs %.0f MiB of host memory\n", PROG,
                n, 3.0 * n * sizeof(int) / 1048576.0);
        return HX_EXIT_NOMEM;
    }
    Problem p;
    problemCreate(&p, dev, n, 1, 0);
    printf("n = %zu ints, %.1f MiB per buffer: %s\n", n, n * 4.0 / 1048576,
           why);
    hostLoad(&h, &p, HX_MIX_THIRDS, o->seed);
    printf("input: mix thirds, seed %llu: A = %zu negatives, B = %zu zeros; "
           "onePassSplit: %zu tiles of %d on %u blocks (%s)\n",
           (unsigned long long)o->seed, h.a, h.ab - h.a,
           splitTiles(SPLIT_PROD, n),
           splitConfigs[SPLIT_PROD].threads * splitConfigs[SPLIT_PROD].items,
           onePassGrid(&p.pass, SPLIT_PROD, 0), splitConfigs[SPLIT_PROD].name);
    hx_warn_if_cached(dev, n * sizeof(int), stdout);

    int rc = HX_EXIT_OK, timed = 0;
    RowRun *runs = (RowRun *)malloc((size_t)k * sizeof *runs);
    hx_work *works = (hx_work *)malloc((size_t)k * sizeof *works);
    void **ctxs = (void **)malloc((size_t)k * sizeof *ctxs);
    const Row **kept = (const Row **)malloc((size_t)k * sizeof *kept);
    hx_timing *t = (hx_timing *)malloc((size_t)k * sizeof *t);
    for (int j = 0; j < k && (rc == HX_EXIT_OK || variants); ++j) {
        if (checkRow(&p, &rows[j], &h, n <= FULL_REPORT_MAX,
                     "before timing:")) {
            printf("FAIL: n=%zu, row %s: %s\n", n, rows[j].name,
                   variants && j >= 2 ? "left out of the timing"
                                      : "nothing timed");
            rc = HX_EXIT_FAIL;
            if (j < 2) variants = 0;   /* no yardstick: stop */
            continue;
        }
        runs[timed] = RowRun{&p, &rows[j]};
        works[timed] = runRow;
        ctxs[timed] = &runs[timed];
        kept[timed++] = &rows[j];
    }
    if (rc == HX_EXIT_OK || variants) {
        printf("%d rows checked against hx_split3 (CUB's third group for "
               "the same values)%s\n", timed,
               rc == HX_EXIT_OK ? "" : "; the rows that failed are left out");
        hx_time_set(timed, works, ctxs, o->warmup, o->runs, t);
        char title[200];
        snprintf(title, sizeof title, "three-way split of n = %zu ints, %d "
                 "runs interleaved after %d warm-ups", n, o->runs, o->warmup);
        hx_table_begin(stdout, title);
        const double copyBytes = 2.0 * n * sizeof(int);
        for (int j = 0; j < timed; ++j)
            hx_table_row(stdout, kept[j]->name, launchesOf(kept[j], &p),
                         &t[j], t[1].median_ms,
                         hx_floor_ms(floorInts(kept[j]) * n * sizeof(int),
                                     copyBytes, t[0].median_ms));
        hx_table_note(stdout, "x floor: over the row's own bytes at the "
                      "memcpy's bandwidth: 2n ints for a copy and CUB, n for "
                      "a counting pass, 3n for the one pass (count, then "
                      "place), about 16n for the two-scan split");
        hx_table_note(stdout, "CUB's zeros go to a buffer of their own and "
                      "its positives come out in another order (checked for "
                      "the same values)");
        if (variants)
            hx_table_note(stdout, "the first configuration row is the "
                          "production one, onePassSplit (splitConfigs in "
                          "solution/onepass.cu); \"look-back\" rows: "
                          "countSigns, then splitOnePass; the others: "
                          "countSplitRanges, then splitRanges");
        hx_table_end(stdout);
    }
    free(t);
    free(kept);
    free(ctxs);
    free(works);
    free(runs);
    problemDestroy(&p);
    hostDestroy(&h);
    return rc;
}

/* --variants: every configuration of the split against the memcpy, the
 * copy, each scheme's counting pass alone and CUB, at one size,
 * interleaved. */
static int timeVariants(const hx_device *dev, const hx_opts *o)
{
    enum { FIXED = 5 };
    Row rows[FIXED + SPLIT_CONFIGS];
    rows[0] = timedRows[0];
    rows[1] = timedRows[1];
    rows[2] = timedRows[2];
    rows[3] = Row{"countSigns (look-back's pass 1 alone)", R_COUNT, 0,
                  SPLIT_LOOKBACK_PROD};
    rows[4] = timedRows[4];
    for (int c = 0; c < SPLIT_CONFIGS; ++c)
        rows[FIXED + c] = Row{splitConfigs[c].name, R_ONE_PASS, 0, c};
    return timeRows(dev, o, rows, FIXED + SPLIT_CONFIGS, 1);
}

/* ------------------------------------------------------------------------
 * main
 * ---------------------------------------------------------------------- */

static const char USAGE[] =
    "The day 33 exercise's three-way split (negatives, zeros, positives,\n"
    "each in input order) in one placing pass after a counting pass (each\n"
    "block counts its own range of tiles, then places it: no look-back),\n"
    "checked against the host, then timed against a memcpy, a copy, the\n"
    "two-scan split and CUB's three-way DevicePartition::If. --check: every\n"
    "size (0 to over 2^30) and mix, every configuration, no timing.\n"
    "  --variants    time every configuration of the one pass at one size,\n"
    "                the look-back scheme's beside them";

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* --variants is this program's own; the rest go to hx_parse_args. */
    int variants = 0, kept = 1;
    for (int i = 1; i < argc; ++i)
        if (!strcmp(argv[i], "--variants"))
            variants = 1;
        else
            argv[kept++] = argv[i];
    argc = kept;
    argv[argc] = NULL;
    hx_opts o;
    int rc = hx_parse_args(argc, argv, &o, 0, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    if (o.check && variants) {
        fprintf(stderr, "%s: --check and --variants are separate runs: give "
                "one (try --help)\n", PROG);
        return HX_EXIT_USAGE;
    }
    hx_device dev;
    rc = hx_device_open(&dev, PROG);
    if (rc != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);

    rc = o.check ? selfCheck(&dev, &o)
         : variants ? timeVariants(&dev, &o)
                    : timeRows(&dev, &o, timedRows, TIMED_ROWS, 0);

    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("wall time %.2f s\n",
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return rc;
}
