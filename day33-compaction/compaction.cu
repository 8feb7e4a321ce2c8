/* compaction.cu: day 33. Stream compaction and the stable two-way partition,
 * first as the course builds them from three kernels you already have (a
 * predicate, the day 31 scan, a scatter), then in one pass over memory
 * (compaction, with day 31's decoupled look-back) or one pass after a
 * counting pass (the stable partition); beside them the same job with one
 * atomic counter, CUB, and the gather and scatter primitives underneath.
 * Every row is checked element for element against the host before it is
 * timed, and timed against a copy of the same buffers and against its floor
 * (the bytes it must move at the cudaMemcpy rate measured in the same run).
 *
 * Kernels, by the lesson's names:
 *   markNonZero, markEven  rank[i] = pred(in[i]) ? 1 : 0 (the flags are written
 *                          straight into the rank buffer)
 *   scanExclusive          the day 31 scan (../day31-scan/tile_scan.cu, reused,
 *                          not copied), in place: the flags become ranks
 *   scatterCompact         out[rank[i]] = in[i] where in[i] != 0
 *   scatterPartition       evens to rank[i], odds to *totalEven + (i - rank[i])
 *   compactAtomic          out[atomicAdd(counter, 1)] = in[i]: the same values,
 *                          in whatever order the hardware serves the counter
 *   copyInts               the baseline: n ints read, n ints written
 *   compactPiped           one pass: reads n, writes the survivors; a
 *                          walker warp walks back for the tile before
 *                          while the block loads the next (the production
 *                          row)
 *   compactSinglePass      the same, one tile at a time (--variants rows)
 *   countRanges, partitionRanges   the stable partition: a pass that only
 *                          counts (one count per block's range of tiles),
 *                          then one pass that places both groups, with no
 *                          look-back
 *   countEvens, partitionStable   the same two passes with a look-back in
 *                          the second (--variants rows)
 *   gather, scatter        out[i] = in[map[i]] and out[map[i]] = in[i]
 * Library rows: cub::DeviceSelect::If and cub::DevicePartition::If.
 *
 * Build: make -C day33-compaction         (ARCH, NVCC: see ../harness/harness.mk)
 * Run:   ./day33-compaction/compaction [--n N] [--keep P] [--seed S]
 *                                      [--runs R] [--warmup W]
 *        ./day33-compaction/compaction --check      (GPU self-check, no timing)
 *        ./day33-compaction/compaction --variants   (the single-pass
 *                                      configurations side by side)
 *        ./day33-compaction/compaction --sweep [--csv DIR]   (sizes and rates,
 *                                      written as CSV for ../harness/plot.py)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <thread>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_time.h"
#include "lookback.cuh"
#include "ranges.cuh"
#include "tile_scan.h"

static const char PROG[] = "compaction";

static const char USAGE[] =
    "compaction: stream compaction and the stable partition, built from a\n"
    "predicate, the day 31 scan and a scatter, then in one pass (compaction,\n"
    "with decoupled look-back) or a count and one pass (the partition);\n"
    "against one atomic counter, a copy, the floor and CUB, at\n"
    "survival --keep P, then at 0.1, 0.5 and 0.9; then gather and scatter\n"
    "over an identity map, a random permutation and a map with two writers\n"
    "per slot. Prints the wall time at the end.\n"
    "--check runs the GPU self-check (sizes 0, 1, 255, 256, 257, a tile of\n"
    "the production single pass and either side, 65537, as many tiles as\n"
    "its blocks fit on the GPU at once and either side, 16777217, a random\n"
    "odd one and one above 2^30 where the GPU's memory allows; or only\n"
    "--n N when given) and times nothing.\n"
    "--variants checks, then times side by side, every configuration of\n"
    "the single-pass compaction and of the stable partition, at survival\n"
    "0.1, 0.5 and 0.9 (a configuration that fails its check is named, left\n"
    "out, and the run exits 1).\n"
    "--sweep times the main rows from n = 2^10 to the largest power of two\n"
    "that fits, and over survival 0 to 1 at the default n, and writes\n"
    "compaction-sizes.csv and compaction-survival.csv into the folder\n"
    "--csv DIR (default: the current folder).";

/* ---- Launch shapes ------------------------------------------------------ */

/* Threads per block of every element-wise kernel (the single-pass kernels'
 * shapes are in passConfigs, beside them). */
#define BLOCK 256u
/* The self-check's second grid: far fewer blocks than the work, so every
 * grid-stride loop runs many rounds. */
#define SMALL_GRID 3u

/* ---- Predicates ------------------------------------------------------ */

/* Each predicate is defined once and used by the mark kernel, the scatter
 * (which evaluates it again instead of reading a flag array: see
 * scatterCompact), the atomic kernel and CUB. The host references use the
 * harness's twins, hx_pred_nonzero and hx_pred_even. */
struct NonZero {
    __host__ __device__ bool operator()(int v) const { return v != 0; }
};
struct IsEven {
    /* v % 2 is -1 for negative odd v, so compare with 0, not with 1. */
    __host__ __device__ bool operator()(int v) const { return v % 2 == 0; }
};

/* ---- The teaching path, step 1: mark ----------------------------------- */

/* The one body both mark kernels share: they differ only in Pred. in and
 * flags are different buffers. */
template <typename Pred>
__device__ void markWith(const int *__restrict__ in, int *__restrict__ flags,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = Pred()(in[i]) ? 1 : 0;
}

__global__ void markNonZero(const int *__restrict__ in,
                            int *__restrict__ flags, size_t n)
{
    markWith<NonZero>(in, flags, n);
}

__global__ void markEven(const int *__restrict__ in, int *__restrict__ flags,
                         size_t n)
{
    markWith<IsEven>(in, flags, n);
}

/* ---- The teaching path, step 2: scan ------------------------------------ */

/* The day 31 scan, from tile_scan.h: scanExclusive(&plan, rank, total, 0)
 * turns the flags into ranks in place (rank[i] = survivors before i) and
 * leaves the survivor count in the device int *total, where the partition's
 * scatter reads it without a trip to the host. */

/* ---- The teaching path, step 3: scatter --------------------------------- */

/* out[rank[i]] = in[i] for every surviving i: rank is the exclusive scan of
 * the flags, so the k-th survivor lands in slot k. The predicate is
 * evaluated again rather than read from a flag array: the mark kernel wrote
 * its flags into rank and the scan overwrote them, and keeping a second
 * copy would cost a buffer and 4 bytes of traffic per element to save a
 * comparison. in, rank and out are three different buffers. */
__global__ void scatterCompact(const int *__restrict__ in,
                               const int *__restrict__ rank,
                               int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        if (NonZero()(v)) out[rank[i]] = v;
    }
}

/* Stable partition: evens at out[0..E) in input order, odds at out[E..n)
 * in input order, where E = *totalEven, the scan's total left in device
 * memory. rank[i] counts the evens before i, so i - rank[i] counts the
 * odds before i: the odd slot needs no second counter and no second scan.
 * *totalEven was written by the scan's last kernel, which finished before
 * this launch started (same stream), so it is read once per thread. */
__global__ void scatterPartition(const int *__restrict__ in,
                                 const int *__restrict__ rank,
                                 int *__restrict__ out, size_t n,
                                 const int *__restrict__ totalEven)
{
    const size_t evens = (size_t)*totalEven;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t r = (size_t)rank[i];
        out[IsEven()(v) ? r : evens + (i - r)] = v;
    }
}

/* ---- Baselines ------------------------------------------------------- */

/* Compaction with one global counter: each survivor takes the next free
 * slot. This computes a different function from scatterCompact: the same
 * values, in an order decided by the scheduler, not by the input. *counter
 * must be 0 at launch and holds the survivor count after it. */
__global__ void compactAtomic(const int *__restrict__ in,
                              int *__restrict__ out, size_t n, int *counter)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        if (NonZero()(v)) out[atomicAdd(counter, 1)] = v;
    }
}

/* The yardstick of the x copy column: the same grid, the same input and
 * output buffers, and the least work a pass over them can do. */
__global__ void copyInts(const int *__restrict__ in, int *__restrict__ out,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[i];
}

/* ---- The production path: one pass with decoupled look-back -------------
 *
 * The machinery is day 31's (../day31-scan/lookback.cuh, whose walkthrough
 * the lesson refers to): tiles taken in start order, one status word per
 * tile, the look-back with its policies (the window, relaxed or
 * acquire-release atomics, backoff), the striped tile loaded as int4
 * vectors, and the three tile loops (one tile at a time; the next tile's
 * loads in flight while this one is finished; the pipelined loop, whose
 * walk runs in a warp of its own). Here the aggregate is a count
 * (LookbackSum over 0s and 1s: it never nears 2^31 since n cannot).
 *
 * Compaction cannot store a survivor before the look-back has found the
 * tile's prefix: where a survivor goes depends on every tile before it.
 * So the stores of a tile always wait for its look-back. What keeps
 * memory busy meanwhile: in compactSinglePass, other blocks' tiles (the
 * plain loop) or, in the AHEAD rows, the block's own next tile's loads,
 * which were slower on the H200; in compactPiped (the production row),
 * the block's own next tile, taken and loaded while the walker warp walks
 * back for this one, whose survivors wait in shared memory.
 *
 * How a tile's output leaves the block (STORE):
 *   STORE_DIRECT   each thread writes its own survivors straight to global
 *                  memory: the same bytes, in many small pieces;
 *   STORE_STAGED   each thread drops its survivors into shared memory at
 *                  their rank in the tile; after a barrier the block writes
 *                  the tile's output as contiguous runs, one int per
 *                  thread per store, each warp store 32 consecutive ints;
 *   STORE_VECTORS  the same staging, laid out so that each run's ints sit
 *                  in shared memory at the same offset modulo 4 as in out:
 *                  the runs leave as 16-byte stores, whole vectors of out,
 *                  and only the ints before a run's first 16-byte boundary
 *                  and after its last (at most 3 each) one by one.
 * The modes, stagedFrom and storeStaged are lookback.cuh's, shared with the
 * exercise's one-pass split (three runs per tile).
 *
 * Contract of every kernel here: in and out do not overlap (both
 * __restrict__); the state the launcher provides holds what its contract
 * says at launch (zeros from a memset, or the counting pass's counts); any
 * grid of at least one block is correct; n = 0 launches nothing; stallNs >
 * 0 turns on the look-back's debug stalls (checks only). */

/* How many elements of each of the thread's vectors Keep keeps. */
template <class Keep, int VECS>
__device__ inline void keptPerVector(const int4 (&x)[VECS], unsigned (&v)[VECS])
{
#pragma unroll
    for (int j = 0; j < VECS; ++j)
        v[j] = Keep()(x[j].x) + Keep()(x[j].y) + Keep()(x[j].z) +
               Keep()(x[j].w);
}

/* What a look-back block keeps in shared memory besides its staged
 * output: the striped tile's partials, the tile index, and the tile's
 * prefix and own count as warp 0 found them. */
template <int THREADS, int ITEMS> struct PassShared {
    typename StripedTile<THREADS, ITEMS>::Storage st;
    unsigned tile;
    int prefix;     /* kept elements before the tile (its exclusive prefix) */
    int kept;       /* kept elements in the tile */
};

/* The head of a look-back tile, shared by compaction and the look-back
 * partition: count Keep over each thread's vectors (v[j]: then scanUp's
 * result), scan the counts across the tile, run the look-back in warp 0
 * under Policy, and leave the tile's prefix and count in sh. The block
 * that has the last tile writes the total to *count. Ends with a barrier:
 * every thread may read sh and call exclusiveOf. */
template <class Keep, class Policy, int THREADS, int ITEMS>
__device__ void passTileHead(size_t tiles, unsigned tile,
                             const int4 (&x)[ITEMS / 4],
                             unsigned (&v)[ITEMS / 4],
                             unsigned long long *state, int *count,
                             unsigned stallNs, PassShared<THREADS, ITEMS> &sh)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    keptPerVector<Keep>(x, v);
    /* Contains the barrier after which warp 0 has every warp's counts; the
     * previous tile's readers of sh passed the tile loop's barrier. */
    const unsigned aggregate = Tile::scanUp(v, sh.st);
    if (threadIdx.x < 32) {
        const LookbackResult<int> r = lookbackTileWith<LookbackSum, Policy>(
            state, tile, (int)aggregate, stallNs);
        if (threadIdx.x == 0) {
            sh.prefix = r.exclusive;
            sh.kept = (int)aggregate;
            if (tile == tiles - 1) *count = r.inclusive;
        }
    }
    /* Everyone reads sh.prefix, sh.kept and warp 0's partials. */
    __syncthreads();
}

/* Compaction in one pass: reads n ints, writes the survivors of NonZero in
 * input order at out[0..m), and leaves m in the device int *count (written
 * by the block that handles the last tile, from its inclusive prefix).
 * Nothing is written at or past out[m]. state: lookbackBytes(tiles) zero
 * bytes. __launch_bounds__(THREADS, MIN_BLOCKS): blocks per SM, as the
 * configurations' names say (see scan.cu's singlePassScan). */
template <int THREADS, int ITEMS, int MIN_BLOCKS, class Policy, bool AHEAD,
          int STORE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
compactSinglePass(const int *__restrict__ in, int *__restrict__ out, size_t n,
                  unsigned long long *state, int *count, unsigned stallNs)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ PassShared<THREADS, ITEMS> sh;
    /* One run needs STAGED_INTS(SIZE, 1), 8 ints less: the size for two is
     * the one every configuration here was measured with. */
    __shared__ __align__(16)
        int staged[STORE == STORE_DIRECT ? 4 : STAGED_INTS(Tile::SIZE, 2)];
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool vecOut = STORE == STORE_VECTORS && (uintptr_t)out % 16 == 0;

    auto body = [&](unsigned tile, size_t, bool, int4 (&x)[Tile::VECS]) {
        unsigned v[Tile::VECS];
        passTileHead<NonZero, Policy>(tiles, tile, x, v, state, count,
                                      stallNs, sh);
        const size_t prefix = (unsigned)sh.prefix;
        const unsigned kept = (unsigned)sh.kept;
        /* The tile's survivors sit at staged[shift ..]: out[prefix] and
         * staged[shift] have the same offset modulo 4. */
        const unsigned shift = stagedFrom(0, prefix);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
            const unsigned own = NonZero()(e[0]) + NonZero()(e[1]) +
                                 NonZero()(e[2]) + NonZero()(e[3]);
            unsigned at = Tile::exclusiveOf(j, v[j], own, sh.st);
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (NonZero()(e[c])) {
                    if (STORE == STORE_DIRECT) out[prefix + at] = e[c];
                    else staged[shift + at] = e[c];
                    ++at;
                }
        }
        if (STORE != STORE_DIRECT) {
            /* Every survivor of the tile is in staged. The next tile
             * writes staged only after the barriers of its own scanUp and
             * look-back, when every thread has finished these stores. */
            __syncthreads();
            const StagedRun run[1] = {{prefix, shift, kept}};
            storeStaged<THREADS>(out, staged, run, vecOut);
        }
    };
    /* 0 pads a partial tile: it is not kept. */
    if constexpr (AHEAD)
        lookbackEachTileAhead<Tile>(state, &sh.tile, in, n, true, 0, body);
    else
        lookbackEachTile<Tile>(state, &sh.tile, in, n, true, 0, body);
}

/* Compaction on lookback.cuh's pipelined loop: THREADS tile threads and a
 * walker warp (THREADS + 32 a block), so that a tile's look-back overlaps
 * the next tile's loads (see lookbackPipelined). reduce counts the tile's
 * survivors and scans the counts; stash drops each survivor into staged
 * at its rank in the tile; finish writes staged[0 .. kept) to
 * out[prefix ..] (storeShifted: 16-byte stores, shifted to out's offset
 * modulo 4 as they leave). The walker of the last tile writes *count.
 * Same contract as compactSinglePass. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, class Policy, int SYNC>
__global__ void __launch_bounds__(THREADS + 32, MIN_BLOCKS)
compactPiped(const int *__restrict__ in, int *__restrict__ out, size_t n,
             unsigned long long *state, int *count, unsigned stallNs)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ PipeSlots<int> slots;
    __shared__ __align__(16) int staged[Tile::SIZE + 8];
    const bool vecOut = (uintptr_t)out % 16 == 0;
    unsigned v[Tile::VECS];   /* reduce's scanned counts, for stash */

    auto reduce = [&](unsigned, size_t, bool, int4 (&x)[Tile::VECS],
                      auto sync) {
        keptPerVector<NonZero>(x, v);
        return (int)Tile::scanUpWith(v, st, sync);
    };
    auto stash = [&](const int4 (&x)[Tile::VECS], auto sync) {
        /* The previous tile's finish has read staged in every thread, and
         * warp 0's scanned partials are visible to all. */
        sync();
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
            const unsigned own = NonZero()(e[0]) + NonZero()(e[1]) +
                                 NonZero()(e[2]) + NonZero()(e[3]);
            unsigned at = Tile::exclusiveOf(j, v[j], own, st);
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (NonZero()(e[c])) staged[at++] = e[c];
        }
    };
    auto finish = [&](unsigned, size_t, bool, int prefix, int kept) {
        storeShifted<THREADS>(out, staged, (size_t)(unsigned)prefix,
                              (unsigned)kept, vecOut);
    };
    /* 0 pads a partial tile: it is not kept. */
    lookbackPipelined<Tile, LookbackSum, Policy, SYNC>(
        state, slots, in, n, true, 0, stallNs, count, reduce, finish, stash);
}

/* ---- The stable partition ---------------------------------------------
 *
 * Evens first, then odds, each group in input order: an even goes to its
 * rank among the evens, an odd to E (the number of evens) plus its rank
 * among the odds. E is known only once every element has been looked at,
 * so a counting pass that only reads comes first, and the placing pass
 * reads and writes: 3n ints, whatever the scheme. Two schemes:
 *
 * COUNTS PER BLOCK (countRanges, partitionRanges; the lesson's). Both
 * passes run the same grid of G blocks, and block b takes the same
 * contiguous range of tiles in both (tileRange). The counting pass leaves
 * one count per block; each placing block sums the G counts itself (E,
 * and the evens before its range) and then walks its range carrying the
 * count along: no look-back, no status words, no waiting on another block,
 * and no memset. BACKWARD walks the range from its end, so that the tiles
 * the counting pass read last, still in the L2, are read first. The
 * scheme's machinery (tileRange, rangeEachTile, blockSums) is day 31's
 * ../day31-scan/ranges.cuh, shared with the exercise's one-pass split.
 *
 * LOOK-BACK (countEvens, partitionStable). The counting pass only adds up
 * E; the placing pass finds each tile's even prefix by the look-back, as
 * compaction does, and its odd prefix for free (the elements before the
 * tile, less the evens before it). */

/* Stages and writes one tile of the stable partition, by every thread of
 * the block, once warp 0's partials for the tile are visible (a barrier
 * after scanUp). x: the thread's vectors (pads odd, past n); v: scanUp's
 * result over IsEven; tileEvens: evens in the tile; evenBase: evens before
 * it; oddBase: E plus the odds before it; inTile: its real elements. The
 * evens are staged at their rank, the odds (pads last) after them, each
 * run at out's offset modulo 4; a barrier, then both runs leave. */
template <int THREADS, int ITEMS, int STORE>
__device__ void placePartitionTile(
    int *out, int *staged,
    const typename StripedTile<THREADS, ITEMS>::Storage &st,
    const int4 (&x)[ITEMS / 4], const unsigned (&v)[ITEMS / 4],
    unsigned tileEvens, size_t evenBase, size_t oddBase, unsigned inTile,
    bool vecOut)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    static_assert(STORE != STORE_DIRECT, "the partition always stages");
    const unsigned evenFrom = stagedFrom(0, evenBase);
    const unsigned oddFrom =
        stagedFrom((evenFrom + tileEvens + 3) & ~3u, oddBase);
#pragma unroll
    for (int j = 0; j < Tile::VECS; ++j) {
        /* Element c of this vector sits at tile index local + c. */
        const unsigned local = 4u * (threadIdx.x + (unsigned)j * THREADS);
        const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
        const unsigned own = IsEven()(e[0]) + IsEven()(e[1]) +
                             IsEven()(e[2]) + IsEven()(e[3]);
        unsigned even = Tile::exclusiveOf(j, v[j], own, st);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const unsigned odd = local + c - even;   /* odds before it */
            staged[IsEven()(e[c]) ? evenFrom + even : oddFrom + odd] = e[c];
            even += IsEven()(e[c]);
        }
    }
    /* staged holds the tile's evens, then its odds, then the pads (odd,
     * past inTile): write the first two runs. */
    __syncthreads();
    const StagedRun runs[2] = {{evenBase, evenFrom, tileEvens},
                               {oddBase, oddFrom, inTile - tileEvens}};
    storeStaged<THREADS>(out, staged, runs,
                         STORE == STORE_VECTORS && vecOut);
}

/* Counts per block, pass 1: blockEvens[b] = the evens in block b's range
 * of tiles (tileRange over gridDim.x blocks), for every block b. Only
 * reads: n ints. */
template <int THREADS, int ITEMS, bool AHEAD>
__global__ void __launch_bounds__(THREADS)
countRanges(const int *__restrict__ in, size_t n,
            unsigned long long *__restrict__ blockEvens)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    unsigned mine = 0;
    auto body = [&](size_t, int4 (&x)[Tile::VECS]) {
        unsigned v[Tile::VECS];
        keptPerVector<IsEven>(x, v);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) mine += v[j];
    };
    /* 1 pads: odd. */
    rangeEachTile<Tile, AHEAD, false>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), 1, body);
    unsigned long long sum[1] = {mine};
    blockSums<THREADS>(sum);
    if (threadIdx.x == 0) blockEvens[blockIdx.x] = sum[0];
}

/* Counts per block, pass 2: the stable partition of in into out, on the
 * grid countRanges ran with, after it (blockEvens as it left them). Block
 * b places its range of tiles; block 0 leaves E in *count. stallNs is not
 * read: nothing here waits on another block. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, bool AHEAD, bool BACKWARD,
          int STORE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
partitionRanges(const int *__restrict__ in, int *__restrict__ out, size_t n,
                unsigned long long *__restrict__ blockEvens, int *count,
                unsigned stallNs)
{
    (void)stallNs;
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ __align__(16) int staged[STAGED_INTS(Tile::SIZE, 2)];
    __shared__ unsigned tileEvensSlot;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool vecOut = (uintptr_t)out % 16 == 0;

    /* sums[0]: the evens up to the end of this block's range; sums[1]: E. */
    unsigned long long sums[2] = {0, 0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS) {
        const unsigned long long c = blockEvens[b];
        sums[0] += b <= blockIdx.x ? c : 0;
        sums[1] += c;
    }
    blockSums<THREADS>(sums);
    const size_t evens = sums[1];
    if (blockIdx.x == 0 && threadIdx.x == 0) *count = (int)evens;
    /* The evens before the next tile walked (forward), or before the end
     * of the last one walked (BACKWARD). */
    size_t run = BACKWARD ? sums[0] : sums[0] - blockEvens[blockIdx.x];

    auto body = [&](size_t tile, int4 (&x)[Tile::VECS]) {
        const size_t base = tile * Tile::SIZE;
        const unsigned inTile =
            n - base < (size_t)Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        keptPerVector<IsEven>(x, v);
        /* Its barrier also orders the previous tile's readers of st,
         * staged and tileEvensSlot (all before placePartitionTile's
         * barrier) before any write of this tile. */
        const unsigned aggregate = Tile::scanUp(v, st);
        if (threadIdx.x == 0) tileEvensSlot = aggregate;
        /* Everyone reads tileEvensSlot and warp 0's partials. */
        __syncthreads();
        const unsigned tileEvens = tileEvensSlot;
        const size_t evenBase = BACKWARD ? run - tileEvens : run;
        run = BACKWARD ? evenBase : run + tileEvens;
        placePartitionTile<THREADS, ITEMS, STORE>(
            out, staged, st, x, v, tileEvens, evenBase,
            evens + (base - evenBase), inTile, vecOut);
    };
    /* 1 pads: odd, so placed after every real element of the tile. */
    rangeEachTile<Tile, AHEAD, BACKWARD>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), 1, body);
}

/* Look-back, pass 1: adds the number of evens in in[0..n) to *evens (zero
 * at launch). Only reads: n ints. Tiles are independent here, so each
 * block takes tiles blockIdx.x, + gridDim.x, ... and adds its count once. */
template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
countEvens(const int *__restrict__ in, size_t n, unsigned long long *evens)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    unsigned mine = 0;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t base = tile * Tile::SIZE;
        int4 x[Tile::VECS];
        unsigned v[Tile::VECS];
        /* 1 pads: odd. */
        Tile::load(in, base, n, Tile::vectorOk(in, base, n), x, 1);
        keptPerVector<IsEven>(x, v);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) mine += v[j];
    }
    unsigned long long sum[1] = {mine};
    blockSums<THREADS>(sum);
    if (threadIdx.x == 0) atomicAdd(evens, sum[0]);
}

/* Look-back, pass 2: every even of in at its rank among the evens, every
 * odd at E + its rank among the odds. E = state[0], written by countEvens
 * (the previous launch on the stream, so complete and visible); the
 * look-back's state starts at state + 1 and counts evens. Writes all n
 * slots; leaves E, counted a second time, in *count. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, class Policy, bool AHEAD,
          int STORE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
partitionStable(const int *__restrict__ in, int *__restrict__ out, size_t n,
                unsigned long long *state, int *count, unsigned stallNs)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ PassShared<THREADS, ITEMS> sh;
    __shared__ __align__(16) int staged[STAGED_INTS(Tile::SIZE, 2)];
    const size_t evens = (size_t)state[0];
    unsigned long long *lookback = state + 1;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool vecOut = (uintptr_t)out % 16 == 0;

    auto body = [&](unsigned tile, size_t base, bool, int4 (&x)[Tile::VECS]) {
        const unsigned inTile =
            n - base < (size_t)Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        passTileHead<IsEven, Policy>(tiles, tile, x, v, lookback, count,
                                     stallNs, sh);
        const size_t evenBase = (unsigned)sh.prefix;
        placePartitionTile<THREADS, ITEMS, STORE>(
            out, staged, sh.st, x, v, (unsigned)sh.kept, evenBase,
            evens + (base - evenBase), inTile, vecOut);
    };
    /* 1 pads: odd, so placed after every real element of the tile. */
    if constexpr (AHEAD)
        lookbackEachTileAhead<Tile>(lookback, &sh.tile, in, n, true, 1, body);
    else
        lookbackEachTile<Tile>(lookback, &sh.tile, in, n, true, 1, body);
}

/* The single-pass kernels' tuning, in one place: every configuration is
 * built and checked (the look-back ones also with the debug stalls); the
 * first of each table is the production one (the tables, the sweeps and
 * the lesson use it); --variants times them all side by side. Each runs
 * as many blocks as fit on the GPU at once, looping over tiles. A name
 * reads as scan.cu's passConfigs: threads x ints per thread; "ahead": the
 * next tile loads while this one is finished; relaxed or acq-rel atomics;
 * the look-back's window in tiles; "backoff": a warp that finds a
 * predecessor not yet published sleeps 128 ns, then 256, ... up to 1 us;
 * blocks per SM where __launch_bounds__ asks for them; then how the
 * output leaves: "vector stores" (STORE_VECTORS), "staged" (STORE_STAGED),
 * "direct" (STORE_DIRECT); "piped": compactPiped (lookbackPipelined), its
 * output staged at the tile's ranks and shifted as it leaves; its tile
 * warps meet at named barrier 1, or, "mbarrier", at a cuda::barrier.
 * "(untuned)" marks the configuration before the tuning, kept as the
 * yardstick; the second row was the production one before the piped
 * loop. */
typedef void (*PassKernel)(const int *, int *, size_t, unsigned long long *,
                           int *, unsigned);
typedef void (*CountKernel)(const int *, size_t, unsigned long long *);

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

#define COMPACT(T, I, B, P, A, S) compactSinglePass<T, I, B, P, A, S>, T, I
#define PIPED(T, I, SYNC) \
    compactPiped<T, I, 1, LookbackRelaxed32, SYNC>, T, I, T + 32
static const PassConfig passConfigs[] = {
    {"256 x 32 piped, relaxed, window 32, vector stores",
     PIPED(256, 32, PIPE_NAMED)},
    {"256 x 16, relaxed, window 32, vector stores",
     COMPACT(256, 16, 1, LookbackRelaxed32, false, STORE_VECTORS)},
    {"256 x 16, acq-rel, window 32, staged (untuned)",
     COMPACT(256, 16, 1, LookbackAcqRel32, false, STORE_STAGED)},
    {"256 x 16, relaxed, window 32, staged",
     COMPACT(256, 16, 1, LookbackRelaxed32, false, STORE_STAGED)},
    {"256 x 16 ahead, relaxed, window 128, 4 blocks/SM, vector stores",
     COMPACT(256, 16, 4, LookbackRelaxed128, true, STORE_VECTORS)},
    {"256 x 16, relaxed, window 32, backoff, vector stores",
     COMPACT(256, 16, 1, LookbackRelaxed32Backoff, false, STORE_VECTORS)},
    {"256 x 16, relaxed, window 128, vector stores",
     COMPACT(256, 16, 1, LookbackRelaxed128, false, STORE_VECTORS)},
    {"256 x 16 ahead, relaxed, window 32, vector stores",
     COMPACT(256, 16, 1, LookbackRelaxed32, true, STORE_VECTORS)},
    {"256 x 16 ahead, relaxed, window 64, vector stores",
     COMPACT(256, 16, 1, LookbackRelaxed64, true, STORE_VECTORS)},
    {"256 x 16 ahead, relaxed, window 128, backoff, vector stores",
     COMPACT(256, 16, 1, LookbackRelaxed128Backoff, true, STORE_VECTORS)},
    {"256 x 16 ahead, acq-rel, window 128, vector stores",
     COMPACT(256, 16, 1, LookbackAcqRel128, true, STORE_VECTORS)},
    {"256 x 16 ahead, relaxed, window 128, staged",
     COMPACT(256, 16, 1, LookbackRelaxed128, true, STORE_STAGED)},
    {"256 x 16 ahead, relaxed, window 128, direct",
     COMPACT(256, 16, 1, LookbackRelaxed128, true, STORE_DIRECT)},
    {"256 x 16 ahead, relaxed, window 128, vector stores",
     COMPACT(256, 16, 1, LookbackRelaxed128, true, STORE_VECTORS)},
    {"128 x 16 ahead, relaxed, window 128, vector stores",
     COMPACT(128, 16, 1, LookbackRelaxed128, true, STORE_VECTORS)},
    {"512 x 16 ahead, relaxed, window 128, 2 blocks/SM, vector stores",
     COMPACT(512, 16, 2, LookbackRelaxed128, true, STORE_VECTORS)},
    {"256 x 32 ahead, relaxed, window 128, 2 blocks/SM, vector stores",
     COMPACT(256, 32, 2, LookbackRelaxed128, true, STORE_VECTORS)},
    {"512 x 16, relaxed, window 32, vector stores",
     COMPACT(512, 16, 1, LookbackRelaxed32, false, STORE_VECTORS)},
    {"256 x 24 piped, relaxed, window 32, vector stores",
     PIPED(256, 24, PIPE_NAMED)},
    {"256 x 40 piped, relaxed, window 32, vector stores",
     PIPED(256, 40, PIPE_NAMED)},
    {"256 x 32 piped, mbarrier, relaxed, window 32, vector stores",
     PIPED(256, 32, PIPE_MBARRIER)},
};
#undef COMPACT
#undef PIPED
#define PASS_CONFIGS ((int)(sizeof passConfigs / sizeof passConfigs[0]))

/* The stable partition's: a scheme, its two passes, the tile shape. */
typedef enum { STABLE_COUNTS, STABLE_LOOKBACK } StableScheme;

typedef struct {
    const char *name;
    StableScheme scheme;
    CountKernel count;
    PassKernel place;
    int threads, items;
} StableConfig;

#define COUNTS(T, I, B, A, W)                                                \
    STABLE_COUNTS, countRanges<T, I, A>,                                     \
        partitionRanges<T, I, B, A, W, STORE_VECTORS>, T, I
#define LOOKBACK(T, I, B, P, A, S)                                           \
    STABLE_LOOKBACK, countEvens<T, I>, partitionStable<T, I, B, P, A, S>, T, I
static const StableConfig stableConfigs[] = {
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM",
     COUNTS(256, 16, 4, true, true)},
    {"256 x 16, look-back, acq-rel, window 32, staged (untuned)",
     LOOKBACK(256, 16, 1, LookbackAcqRel32, false, STORE_STAGED)},
    {"256 x 16 ahead, look-back, relaxed, window 128",
     LOOKBACK(256, 16, 1, LookbackRelaxed128, true, STORE_VECTORS)},
    {"256 x 16 ahead, counts per block, 4 blocks/SM",
     COUNTS(256, 16, 4, true, false)},
    {"256 x 16, counts per block, backward, 4 blocks/SM",
     COUNTS(256, 16, 4, false, true)},
    {"256 x 16 ahead, counts per block, backward",
     COUNTS(256, 16, 1, true, true)},
    {"512 x 16 ahead, counts per block, backward, 2 blocks/SM",
     COUNTS(512, 16, 2, true, true)},
    {"256 x 32 ahead, counts per block, backward, 2 blocks/SM",
     COUNTS(256, 32, 2, true, true)},
};
#undef COUNTS
#undef LOOKBACK
#define STABLE_CONFIGS ((int)(sizeof stableConfigs / sizeof stableConfigs[0]))
/* The most tiles any configuration makes: per n ints, n / 2048 + 1. */
#define PASS_SMALLEST_TILE (128 * 16)

/* ---- Gather and scatter ---------------------------------------------- */

/* out[i] = in[map[i]], every map[i] in [0, n): writes coalesced, reads
 * wherever map points. */
__global__ void gather(const int *__restrict__ in, const int *__restrict__ map,
                       int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[map[i]];
}

/* out[map[i]] = in[i]: reads coalesced, writes wherever map points. Where
 * destinations repeat, one of the writes survives and which one is
 * unspecified. */
__global__ void scatter(const int *__restrict__ in, const int *__restrict__ map,
                        int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[map[i]] = in[i];
}

/* ---- Inputs, made on the device ------------------------------------------
 *
 * Every input is a function of (seed, i): element i's random bits are the
 * i-th draw of splitmix64 from the seed (hx_rng's stream, computed directly
 * instead of in sequence). So every GPU thread makes its own elements,
 * nothing crosses the bus, and the host computes any element it needs for
 * a reference without ever holding the input. The same seed gives the
 * same input on every machine. */

/* Every compaction and partition value lies in [-VMAX, VMAX], so the atomic
 * row's same-values check can count them in 2 VMAX + 1 bins. */
#define VMAX 1000000

__host__ __device__ inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__host__ __device__ inline uint64_t bitsAt(uint64_t seed, size_t i)
{
    return mix64(seed + 0x9E3779B97F4A7C15ull * ((uint64_t)i + 1));
}

/* Which elements are kept (non-zero for compaction, even for partition):
 * each with probability keep, or one of the self-check's edge shapes. */
typedef enum {
    SHAPE_RATE,
    SHAPE_ALL,
    SHAPE_NONE,
    SHAPE_LAST_ONLY,
    SHAPE_ALTERNATING,   /* exactly the even i */
    SHAPE_SORTED,        /* none kept in the first half, all in the second */
    SHAPES
} Shape;

static const char *const shapeName[SHAPES] = {
    "rate", "all kept", "none kept", "last only", "alternating", "sorted"};

typedef struct {
    uint64_t seed;
    size_t n;
    Shape shape;
    double keep;          /* SHAPE_RATE: the probability */
    uint64_t keepBelow;   /* keep * 2^32: kept when the top 32 bits are below */
    int parity;           /* 0: kept values are non-zero, the others 0
                             (compaction); 1: kept values are even, the
                             others odd (partition) */
} Input;

static Input makeInput(uint64_t seed, size_t n, Shape shape, double keep,
                       int parity)
{
    Input s;
    s.seed = seed;
    s.n = n;
    s.shape = shape;
    s.keep = keep;
    s.keepBelow = (uint64_t)(keep * 4294967296.0);
    s.parity = parity;
    return s;
}

__host__ __device__ inline bool keptAt(const Input &s, size_t i,
                                       uint64_t bits)
{
    switch (s.shape) {
    case SHAPE_RATE: return (bits >> 32) < s.keepBelow;
    case SHAPE_ALL: return true;
    case SHAPE_LAST_ONLY: return i + 1 == s.n;
    case SHAPE_ALTERNATING: return i % 2 == 0;
    case SHAPE_SORTED: return i >= s.n / 2;
    default: return false;
    }
}

/* Element i. Values are spread over [-VMAX, VMAX] (the low 32 bits scaled
 * by a multiply, not a modulo), so an order error moves a value that
 * differs from its neighbours. Written without branches: the host calls it
 * for every element of every reference, and a branch on a random bit is
 * mispredicted half the time. */
__host__ __device__ inline int inputAt(const Input &s, size_t i)
{
    const uint64_t bits = bitsAt(s.seed, i);
    const int kept = keptAt(s, i, bits);
    const uint64_t low = (uint32_t)bits;
    if (s.parity) {
        const int k = (int)((low * VMAX) >> 32) - VMAX / 2;
        return 2 * k + 1 - kept;                      /* even when kept */
    }
    const int u = (int)((low * (2 * VMAX)) >> 32);    /* 0 .. 2 VMAX - 1 */
    return (u - VMAX + (u >= VMAX)) & -kept;          /* never 0 when kept */
}

/* A pseudo-random permutation of [0, n) that can be evaluated, and
 * inverted, at any index: three rounds of (multiply by an odd constant,
 * xor the high half into the low half) on the smallest power-of-two
 * domain holding n, walked along its cycle until the result is below n.
 * Each round is a bijection, so the whole is; the inverse runs the rounds
 * backwards. The gather and scatter rows read their map from it, and the
 * host computes their references from it without a random access. */
typedef struct {
    size_t n;
    unsigned bits, shift;   /* shift = bits / 2 + 1: x ^ (x >> shift) is its
                               own inverse on bits bits */
    uint64_t mask, key;
    uint64_t mul[3], inv[3];   /* odd multipliers, their inverses mod 2^64 */
} Perm;

static Perm makePerm(size_t n, uint64_t seed)
{
    Perm p;
    p.n = n;
    p.bits = 0;
    while (p.bits < 63 && ((uint64_t)1 << p.bits) < n) ++p.bits;
    p.shift = p.bits / 2 + 1;
    p.mask = ((uint64_t)1 << p.bits) - 1;
    p.key = mix64(seed) & p.mask;
    for (int r = 0; r < 3; ++r) {
        const uint64_t a = mix64(seed + 1 + (uint64_t)r) | 1;
        uint64_t x = a;                        /* right to 3 bits: a*a = 1 mod 8 */
        for (int k = 0; k < 5; ++k) x *= 2 - a * x;   /* Newton: 6, 12, .. 96 */
        p.mul[r] = a;
        p.inv[r] = x;
    }
    return p;
}

__host__ __device__ inline uint64_t scramble(const Perm &p, uint64_t x)
{
    x ^= p.key;
    for (int r = 0; r < 3; ++r) {
        x = (x * p.mul[r]) & p.mask;
        x ^= x >> p.shift;
    }
    return x;
}

__host__ __device__ inline uint64_t unscramble(const Perm &p, uint64_t x)
{
    for (int r = 2; r >= 0; --r) {
        x ^= x >> p.shift;
        x = (x * p.inv[r]) & p.mask;
    }
    return x ^ p.key;
}

__host__ __device__ inline size_t permAt(const Perm &p, size_t i)
{
    uint64_t x = scramble(p, i);
    while (x >= p.n) x = scramble(p, x);
    return (size_t)x;
}

__host__ __device__ inline size_t permInverseAt(const Perm &p, size_t j)
{
    uint64_t x = unscramble(p, j);
    while (x >= p.n) x = unscramble(p, x);
    return (size_t)x;
}

/* The gather and scatter values: value j is a bijection of j onto
 * [0, 2^31), so every element differs (a read from the wrong index shows)
 * and none is negative (never HX_POISON or HX_GUARD_WORD). */
static Perm makeValues(uint64_t seed) { return makePerm((size_t)1 << 31, seed); }

__host__ __device__ inline int valueAt(const Perm &values, size_t j)
{
    return (int)scramble(values, j);
}

/* The maps of the gather and scatter rows. MAP_PAIRS sends i to the even
 * slot at or below perm(i): every even slot j has exactly two writers,
 * perm^-1(j) and perm^-1(j + 1) (one when j + 1 = n), and no odd slot has
 * any. */
typedef enum { MAP_IDENTITY, MAP_PERMUTATION, MAP_PAIRS } MapKind;

__global__ void fillInput(int *__restrict__ a, Input s)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < s.n;
         i += stride)
        a[i] = inputAt(s, i);
}

__global__ void fillValues(int *__restrict__ a, size_t n, Perm values)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        a[i] = valueAt(values, i);
}

__global__ void fillMap(int *__restrict__ map, Perm p, MapKind kind)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n;
         i += stride) {
        const size_t j = kind == MAP_IDENTITY ? i : permAt(p, i);
        map[i] = (int)(kind == MAP_PAIRS ? j & ~(size_t)1 : j);
    }
}

/* ---- Checks on the device ------------------------------------------------
 *
 * An output is compared with its reference where both already are: on the
 * GPU. Each kernel below looks at every element and counts what it finds;
 * only the counts cross the bus. When a check fails, the host fetches the
 * output and the reference and prints the harness's own report (hx_check.h)
 * with the first bad index and both values. The self-check plants errors
 * to prove that these kernels see them. */

/* The device side of hx_cmp: counts, and first indices (ULLONG_MAX: none). */
typedef struct {
    unsigned long long bad, first, unwritten, firstUnwritten;
} Verdict;

__device__ void noteBad(Verdict *v, size_t i, int got)
{
    atomicAdd(&v->bad, 1ull);
    atomicMin(&v->first, (unsigned long long)i);
    if (got == HX_POISON) {
        atomicAdd(&v->unwritten, 1ull);
        atomicMin(&v->firstUnwritten, (unsigned long long)i);
    }
}

/* got[i] == want[i] for i < from; past it, got holds want's tail reversed
 * (got[i] == want[from + (n - 1 - i)]): CUB's partition writes its rejects
 * that way. from = n compares straight. */
__global__ void compareInts(const int *__restrict__ got,
                            const int *__restrict__ want, size_t n,
                            size_t from, Verdict *v)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const size_t j = i < from ? i : from + (n - 1 - i);
        const int g = got[i];
        if (g != want[j]) noteBad(v, i, g);
    }
}

/* The scatter through MAP_PAIRS, against want[j] = the value whose
 * permuted index is j: an even slot holds want[j] or want[j + 1] (which of
 * its two writers survives is unspecified); an odd slot keeps its poison. */
__global__ void comparePairs(const int *__restrict__ got,
                             const int *__restrict__ want, size_t n,
                             Verdict *v)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += stride) {
        const int g = got[j];
        const bool ok = j % 2 ? g == HX_POISON
                              : g == want[j] || (j + 1 < n && g == want[j + 1]);
        if (!ok) noteBad(v, j, g);
    }
}

/* The same-values check: bins[v + VMAX] counts +1 for every v in got and -1
 * for every v in want; a value of got outside [-VMAX, VMAX] can match
 * nothing in want and counts as extra. The multisets agree exactly when
 * every bin ends at 0 and nothing fell outside. tally: [0] outside,
 * [1] missing (sum of negative bins), [2] extra (sum of positive bins). */
#define BINS (2 * VMAX + 1)

__global__ void countValues(const int *__restrict__ a, size_t n, int sign,
                            int *__restrict__ bins,
                            unsigned long long *__restrict__ tally)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = a[i];
        if (v >= -VMAX && v <= VMAX) atomicAdd(&bins[v + VMAX], sign);
        else atomicAdd(&tally[0], 1ull);
    }
}

__global__ void sumBins(const int *__restrict__ bins,
                        unsigned long long *__restrict__ tally)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < BINS;
         b += stride) {
        const int c = bins[b];
        if (c < 0) atomicAdd(&tally[1], (unsigned long long)-c);
        if (c > 0) atomicAdd(&tally[2], (unsigned long long)c);
    }
}

/* ---- The lab: buffers, and what each row runs ----------------------------- */

/* Device ints that hold counts: every count stays on the device, where the
 * next kernel (or the check, after the timing) reads it. */
enum {
    COUNT_KEPT,           /* compaction: the scan's total */
    COUNT_EVEN,           /* partition: the scan's total, the boundary */
    COUNT_ATOMIC,         /* compactAtomic's counter */
    COUNT_CUB_SELECT,
    COUNT_CUB_PARTITION,
    COUNT_SINGLE,         /* single-pass compaction's count */
    COUNT_STABLE,         /* the stable partition's evens */
    COUNT_SLOTS
};

/* The reference a row's output is compared with. */
typedef enum {
    REF_INPUT,       /* the input itself (in): copies, identity maps */
    REF_FLAGS,       /* pred(in[i]) */
    REF_RANKS,       /* exclusive scan of the flags */
    REF_COMPACT,     /* the survivors of in in order, then poison */
    REF_PARTITION,   /* evens of par in order, then odds in order */
    REF_GATHER,      /* in[perm(i)] */
    REF_SCATTER,     /* in[perm^-1(j)] */
    REFS
} Ref;

/* Host staging for references: STAGE_INTS ints at a time, two buffers used
 * in turn so the host fills one while the other is on its way. */
#define STAGE_INTS ((size_t)1 << 18)

/* The references a table needs at once each have their own device buffer
 * (wantSlot maps a Ref to it), so that they can be built at the same time. */
#define WANT_SLOTS 4

typedef struct {
    int *stage[2];          /* pinned */
    cudaEvent_t sent[2];    /* stage[k] may be refilled once sent[k] passed */
    int which;
    size_t fill;
    int *dst;               /* device: where the next flushed int goes */
} RefStream;

typedef struct Lab Lab;

/* What the targets compare, at one survival rate: the single pass and CUB's
 * select (medians and floors), the stable partition and CUB's. */
typedef struct {
    int measured;
    double single, singleFloor, select, selectFloor, stable, cubPartition;
} Target;

/* A single-pass row's work: its configuration (of passConfigs for
 * compaction, of stableConfigs for the partition), and the look-back's
 * debug stalls (0 in every timed run). */
typedef struct {
    Lab *L;
    int config;
    unsigned stallNs;
} PassRun;

/* Room for a row's name: "stable partition " or "single pass ", the
 * configuration's name, ", stalled". */
#define PASS_NAME 112

#define STALL_NS 4000u

struct Lab {
    const hx_device *dev;
    size_t n, capacity;   /* elements now; the most the buffers hold */
    unsigned grid;        /* blocks of BLOCK threads, every element-wise kernel */
    int *in;              /* compaction input; later the gather/scatter values */
    int *par;             /* partition input; later the pairs map */
    int *rank;            /* flags, then ranks; the identity map; scratch
                             while a reference is built */
    int *map;             /* the permutation map */
    int *want[WANT_SLOTS];   /* references, built before the checks */
    int *counts;          /* COUNT_SLOTS device ints */
    hx_guarded out;       /* every row's output: poisoned, between guards */
    ScanPlan plan;
    void *cubTemp;        /* allocated once, outside every timing */
    size_t cubTempBytes;
    unsigned long long *passState;   /* compaction: the look-back's words;
                                        the partition: its counts, then (for
                                        the look-back scheme) the words */
    unsigned compactResident[PASS_CONFIGS];   /* blocks of each that fit */
    unsigned stableResident[STABLE_CONFIGS];  /* on the GPU at once */
    unsigned passGrid;    /* 0, or the self-check's small grid */
    PassRun compactRuns[PASS_CONFIGS][2];     /* [config][stalled] */
    PassRun stableRuns[STABLE_CONFIGS][2];
    char compactNames[PASS_CONFIGS][2][PASS_NAME];   /* their rows' names */
    char stableNames[STABLE_CONFIGS][2][PASS_NAME];

    Input inSpec, parSpec;   /* what in and par hold */
    Perm perm, values;       /* the gather/scatter map and values */
    Verdict *verdict;        /* device: the last comparison */
    int *bins;               /* device: BINS ints */
    unsigned long long *tally;   /* device: 3 */
    RefStream stream[WANT_SLOTS][2];   /* a partition needs two */
    size_t refCount[REFS];   /* per Ref: the survivors (REF_RANKS,
                                REF_COMPACT) or the evens (REF_PARTITION) */
    size_t disorder;         /* the atomic row's slots out of the stable order */
    Target targets[3];       /* the default run's survival 0.1, 0.5, 0.9 */
    double refSeconds;       /* host time spent building references */
};

/* A row's work needs the lab, and the gather and scatter rows a map too. */
typedef struct {
    Lab *L;
    const int *map;
} MapRun;

static void runMemcpy(void *ctx)
{
    Lab *L = (Lab *)ctx;
    HX_CHECK(cudaMemcpyAsync(L->out.data, L->in, L->n * sizeof(int),
                             cudaMemcpyDeviceToDevice, 0));
}

static void runCopy(void *ctx)
{
    Lab *L = (Lab *)ctx;
    copyInts<<<L->grid, BLOCK>>>(L->in, L->out.data, L->n);
    HX_CHECK_LAUNCH("copyInts");
}

static void runMark(void *ctx)
{
    Lab *L = (Lab *)ctx;
    markNonZero<<<L->grid, BLOCK>>>(L->in, L->rank, L->n);
    HX_CHECK_LAUNCH("markNonZero");
}

static void runMarkScan(void *ctx)
{
    Lab *L = (Lab *)ctx;
    runMark(ctx);
    scanExclusive(&L->plan, L->rank, L->counts + COUNT_KEPT, 0);
}

/* Reads the ranks of in that the last mark-then-scan left in rank. */
static void runScatter(void *ctx)
{
    Lab *L = (Lab *)ctx;
    scatterCompact<<<L->grid, BLOCK>>>(L->in, L->rank, L->out.data, L->n);
    HX_CHECK_LAUNCH("scatterCompact");
}

/* The three phases: mark, scan, scatter. */
static void runCompact(void *ctx)
{
    runMarkScan(ctx);
    runScatter(ctx);
}

static void runPartition(void *ctx)
{
    Lab *L = (Lab *)ctx;
    markEven<<<L->grid, BLOCK>>>(L->par, L->rank, L->n);
    HX_CHECK_LAUNCH("markEven");
    scanExclusive(&L->plan, L->rank, L->counts + COUNT_EVEN, 0);
    scatterPartition<<<L->grid, BLOCK>>>(L->par, L->rank, L->out.data, L->n,
                                         L->counts + COUNT_EVEN);
    HX_CHECK_LAUNCH("scatterPartition");
}

/* The counter must start at 0, so its memset is part of every run: the row
 * counts it as a launch and its time is inside the timing. */
static void runAtomic(void *ctx)
{
    Lab *L = (Lab *)ctx;
    HX_CHECK(cudaMemsetAsync(L->counts + COUNT_ATOMIC, 0, sizeof(int), 0));
    compactAtomic<<<L->grid, BLOCK>>>(L->in, L->out.data, L->n,
                                      L->counts + COUNT_ATOMIC);
    HX_CHECK_LAUNCH("compactAtomic");
}

/* One call serves both the size query (temp = NULL) and the run, so the
 * two can never disagree on the types CUB sizes its storage for.
 * DeviceSelect::If counts in 64 bits whatever it is given; DevicePartition
 * takes the type of n, and int holds every n this lab accepts. */
static cudaError_t cubSelect(const Lab *L, void *temp, size_t *bytes)
{
    return cub::DeviceSelect::If(temp, *bytes, (const int *)L->in, L->out.data,
                                 L->counts + COUNT_CUB_SELECT,
                                 (int64_t)L->n, NonZero(), (cudaStream_t)0);
}

static cudaError_t cubPartition(const Lab *L, void *temp, size_t *bytes)
{
    return cub::DevicePartition::If(temp, *bytes, (const int *)L->par,
                                    L->out.data,
                                    L->counts + COUNT_CUB_PARTITION, (int)L->n,
                                    IsEven(), (cudaStream_t)0);
}

static void runCubSelect(void *ctx)
{
    Lab *L = (Lab *)ctx;
    size_t bytes = L->cubTempBytes;
    HX_CHECK(cubSelect(L, L->cubTemp, &bytes));
}

static void runCubPartition(void *ctx)
{
    Lab *L = (Lab *)ctx;
    size_t bytes = L->cubTempBytes;
    HX_CHECK(cubPartition(L, L->cubTemp, &bytes));
}

/* Bytes of passState: a count word, then the look-back's state for the
 * most tiles any configuration makes. That is also room for the counts
 * per block, one word per block: a grid is never larger than the tiles,
 * or than the self-check's small grid, and n > 0 makes at least 3 words. */
static size_t passStateBytes(size_t n)
{
    return sizeof(unsigned long long) +
           lookbackBytes((n + PASS_SMALLEST_TILE - 1) / PASS_SMALLEST_TILE);
}

/* Blocks for one single-pass launch: as many as fit at once (fit), never
 * more than there are tiles (or the self-check's small grid). */
static unsigned passBlocks(const Lab *L, unsigned fit, size_t tiles)
{
    if (L->passGrid) return L->passGrid;
    return tiles < fit ? (unsigned)tiles : fit;
}

static size_t tilesOf(int threads, int items, size_t n)
{
    const size_t tile = (size_t)threads * items;
    return (n + tile - 1) / tile;
}

/* The look-back's state is reset by a memset before every launch: part of
 * the run, counted as a launch. */
static void runCompactPass(void *ctx)
{
    const PassRun *r = (const PassRun *)ctx;
    Lab *L = r->L;
    const PassConfig *c = &passConfigs[r->config];
    if (L->n == 0) {
        HX_CHECK(cudaMemsetAsync(L->counts + COUNT_SINGLE, 0, sizeof(int), 0));
        return;
    }
    const size_t tiles = tilesOf(c->threads, c->items, L->n);
    HX_CHECK(cudaMemsetAsync(L->passState, 0, lookbackBytes(tiles), 0));
    c->kernel<<<passBlocks(L, L->compactResident[r->config], tiles),
                passBlock(c)>>>(L->in, L->out.data, L->n, L->passState,
                              L->counts + COUNT_SINGLE, r->stallNs);
    HX_CHECK_LAUNCH("compactSinglePass");
}

/* Launches per run of a stable partition configuration: the two passes,
 * and for the look-back scheme the memset of its count and state. */
static int stableLaunches(int config)
{
    return stableConfigs[config].scheme == STABLE_LOOKBACK ? 3 : 2;
}

/* Counts per block: the two passes on one grid, nothing to reset (the
 * counting pass writes every block's count). Look-back: one memset clears
 * the count word and the look-back's state together. */
static void runPartitionPass(void *ctx)
{
    const PassRun *r = (const PassRun *)ctx;
    Lab *L = r->L;
    const StableConfig *c = &stableConfigs[r->config];
    if (L->n == 0) {
        HX_CHECK(cudaMemsetAsync(L->counts + COUNT_STABLE, 0, sizeof(int), 0));
        return;
    }
    const size_t tiles = tilesOf(c->threads, c->items, L->n);
    const unsigned grid = passBlocks(L, L->stableResident[r->config], tiles);
    if (c->scheme == STABLE_LOOKBACK)
        HX_CHECK(cudaMemsetAsync(L->passState, 0, sizeof(unsigned long long) +
                                                      lookbackBytes(tiles), 0));
    c->count<<<grid, c->threads>>>(L->par, L->n, L->passState);
    HX_CHECK_LAUNCH("the stable partition's counting pass");
    c->place<<<grid, c->threads>>>(L->par, L->out.data, L->n, L->passState,
                                   L->counts + COUNT_STABLE, r->stallNs);
    HX_CHECK_LAUNCH("the stable partition's placing pass");
}

static void runGather(void *ctx)
{
    const MapRun *r = (const MapRun *)ctx;
    gather<<<r->L->grid, BLOCK>>>(r->L->in, r->map, r->L->out.data, r->L->n);
    HX_CHECK_LAUNCH("gather");
}

static void runScatterMap(void *ctx)
{
    const MapRun *r = (const MapRun *)ctx;
    scatter<<<r->L->grid, BLOCK>>>(r->L->in, r->map, r->L->out.data, r->L->n);
    HX_CHECK_LAUNCH("scatter");
}

/* CUB's select and partition are one init kernel and one single-pass
 * kernel each. */
#define CUB_LAUNCHES 2

/* ---- Rows: what runs, how it is checked, what it must move -------------- */

typedef enum {
    HOW_EQUAL,            /* every slot, exactly */
    HOW_SAME_VALUES,      /* the atomic row: the count, the same values at
                             out[0..count), poison past it */
    HOW_REJECTS_REVERSED, /* CUB's partition: the rejects in reverse order */
    HOW_PAIRS             /* the scatter through MAP_PAIRS */
} How;

typedef struct {
    const char *name;
    hx_work run;
    void *ctx;
    hx_work prepare;      /* run before the checked run (NULL: none) */
    Ref ref;
    How how;
    int toRank;           /* writes rank (unguarded) instead of out */
    int count;            /* COUNT_ slot to compare with the reference's
                             count, or -1 */
    int launches;
    double floorN, floorKept;   /* ints it must move: floorN n + floorKept kept */
    const char *noteBefore;     /* a table note printed above it, or NULL */
} Row;

static Row row(const char *name, hx_work run, void *ctx, Ref ref, How how,
               int count, int launches, double floorN, double floorKept)
{
    Row r;
    r.name = name;
    r.run = run;
    r.ctx = ctx;
    r.prepare = NULL;
    r.ref = ref;
    r.how = how;
    r.toRank = 0;
    r.count = count;
    r.launches = launches;
    r.floorN = floorN;
    r.floorKept = floorKept;
    r.noteBefore = NULL;
    return r;
}

/* Every table starts with these two: the floor of each row is measured
 * against the first, x copy against the second. */
enum { ROW_MEMCPY, ROW_COPY };
/* Room for the longest list of rows: the self-check's, every
 * configuration with and without stalls after the main rows (checkSize
 * stops before it would pass the end). */
#define MAX_ROWS (32 + 2 * (PASS_CONFIGS + STABLE_CONFIGS))

static int copyRows(Lab *L, Row *rows)
{
    rows[ROW_MEMCPY] = row("cudaMemcpy device to device", runMemcpy, L,
                           REF_INPUT, HOW_EQUAL, -1, 1, 2, 0);
    rows[ROW_COPY] = row("copy", runCopy, L, REF_INPUT, HOW_EQUAL, -1, 1, 2, 0);
    return 2;
}

static int launchesMarkScan(const Lab *L) { return 1 + scanLaunches(&L->plan); }
static int launchesThreePhase(const Lab *L) { return 2 + scanLaunches(&L->plan); }

/* The single-pass compaction row of passConfigs[config], and the stable
 * partition row of stableConfigs[config] (stalled: with the look-back's
 * debug stalls). Configuration 0, unstalled, carries the name the lesson
 * uses. */
static Row compactRow(Lab *L, int config, int stalled)
{
    Row r = row("single-pass compaction", runCompactPass,
                &L->compactRuns[config][stalled], REF_COMPACT, HOW_EQUAL,
                COUNT_SINGLE, 2, 1, 1);
    if (config || stalled) r.name = L->compactNames[config][stalled];
    return r;
}

static Row stableRow(Lab *L, int config, int stalled)
{
    Row r = row("stable partition, count + one pass", runPartitionPass,
                &L->stableRuns[config][stalled], REF_PARTITION, HOW_EQUAL,
                COUNT_STABLE, stableLaunches(config), 3, 0);
    if (config || stalled) r.name = L->stableNames[config][stalled];
    return r;
}

/* The rows of a compaction table (full: with the teaching path's phases
 * alone). The teaching rows are measured against the bytes their own
 * phases move: mark 2n (in, flags), the scan 4n (its tile pass and its
 * add-back each read and write rank; the upper levels add 1/256 of that),
 * the compaction's scatter 2n + kept (in and rank, the survivors), the
 * partition's scatter 3n (every element written). The single-pass rows
 * and CUB are held to the problem's own floor: n + kept for compaction, 3n
 * for the stable partition with its counting pass, 2n for CUB's unstable
 * one, which needs no count. */
static int compactionRows(Lab *L, Row *rows, int full)
{
    int k = 0;
    if (full) {
        rows[k] = row("mark the predicate", runMark, L, REF_FLAGS, HOW_EQUAL,
                      -1, 1, 2, 0);
        rows[k].noteBefore = "the teaching path: mark, scan, scatter";
        rows[k++].toRank = 1;
        rows[k] = row("mark then scan", runMarkScan, L, REF_RANKS, HOW_EQUAL,
                      COUNT_KEPT, launchesMarkScan(L), 6, 0);
        rows[k++].toRank = 1;
        /* Timed right after "mark then scan", whose ranks it reads. */
        rows[k] = row("scatter alone with ranks ready", runScatter, L,
                      REF_COMPACT, HOW_EQUAL, -1, 1, 2, 1);
        rows[k++].prepare = runMarkScan;
    }
    rows[k] = row("compaction, all three phases", runCompact, L, REF_COMPACT,
                  HOW_EQUAL, COUNT_KEPT, launchesThreePhase(L), 8, 1);
    if (!full) rows[k].noteBefore = "the teaching path: mark, scan, scatter";
    ++k;
    rows[k++] = row("partition, even then odd", runPartition, L,
                    REF_PARTITION, HOW_EQUAL, COUNT_EVEN,
                    launchesThreePhase(L), 9, 0);
    rows[k] = row("compaction with one atomic counter", runAtomic, L,
                  REF_COMPACT, HOW_SAME_VALUES, COUNT_ATOMIC, 2, 1, 1);
    rows[k++].noteBefore = "the same values in the scheduler's order "
                           "(memset of the counter + kernel, both timed):";
    rows[k] = compactRow(L, 0, 0);
    rows[k++].noteBefore = "the production path: one pass with decoupled "
                           "look-back (memset of its state + kernel), and "
                           "the stable partition (count + place):";
    rows[k++] = stableRow(L, 0, 0);
    rows[k] = row("CUB DeviceSelect::If", runCubSelect, L, REF_COMPACT,
                  HOW_EQUAL, COUNT_CUB_SELECT, CUB_LAUNCHES, 1, 1);
    rows[k++].noteBefore = "the library, in the same run:";
    rows[k++] = row("CUB DevicePartition::If (unstable)", runCubPartition, L,
                    REF_PARTITION, HOW_REJECTS_REVERSED, COUNT_CUB_PARTITION,
                    CUB_LAUNCHES, 2, 0);
    return k;
}

/* Gather and scatter through the maps makeMaps made; maps[0..3) holds the
 * rows' contexts and must outlive them. Each moves 3n ints: in, map, out
 * (the scatter with two writers per slot still issues every write). */
static int mapRows(Lab *L, Row *rows, MapRun maps[3])
{
    maps[0].L = maps[1].L = maps[2].L = L;
    maps[0].map = L->rank;   /* identity */
    maps[1].map = L->map;    /* permutation */
    maps[2].map = L->par;    /* pairs */
    int k = 0;
    rows[k++] = row("gather, identity map", runGather, &maps[0], REF_INPUT,
                    HOW_EQUAL, -1, 1, 3, 0);
    rows[k++] = row("gather, random permutation", runGather, &maps[1],
                    REF_GATHER, HOW_EQUAL, -1, 1, 3, 0);
    rows[k++] = row("scatter, identity map", runScatterMap, &maps[0],
                    REF_INPUT, HOW_EQUAL, -1, 1, 3, 0);
    rows[k++] = row("scatter, random permutation", runScatterMap, &maps[1],
                    REF_SCATTER, HOW_EQUAL, -1, 1, 3, 0);
    rows[k++] = row("scatter, two writers per even slot", runScatterMap,
                    &maps[2], REF_SCATTER, HOW_PAIRS, -1, 1, 3, 0);
    return k;
}

static double floorInts(const Row *r, size_t n, size_t kept)
{
    return r->floorN * (double)n + r->floorKept * (double)kept;
}

/* ---- Host side: memory -------------------------------------------------- */

static int *hostInts(size_t n)
{
    int *p = (int *)malloc((n ? n : 1) * sizeof(int));
    if (!p) {
        fprintf(stderr, "%s: cannot allocate %.1f MiB of host memory\n", PROG,
                (double)n * sizeof(int) / (1 << 20));
        exit(HX_EXIT_NOMEM);
    }
    return p;
}

static int *deviceInts(size_t n)
{
    int *p = NULL;
    HX_CHECK(cudaMalloc(&p, (n ? n : 1) * sizeof(int)));
    return p;
}

static void download(int *dst, const int *src, size_t n)
{
    if (n) HX_CHECK(cudaMemcpy(dst, src, n * sizeof(int), cudaMemcpyDeviceToHost));
}

static int deviceInt(const int *p)
{
    int v = 0;
    HX_CHECK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

static void poisonDevice(int *p, size_t n)
{
    if (n) HX_CHECK(cudaMemset(p, HX_POISON_BYTE, n * sizeof(int)));
}

/* n-int device buffers: in, par, rank, map, the references, the output. */
#define BUFFERS (5 + WANT_SLOTS)

/* Device bytes the lab needs for n elements: the buffers, the output's
 * guards, the scan's levels, CUB's storage, the bins. */
static size_t labBytes(size_t n, size_t cubTempBytes)
{
    return BUFFERS * n * sizeof(int) + 2 * HX_GUARD_WORDS * sizeof(int) +
           scanPlanBytes(n) + passStateBytes(n) + cubTempBytes + BINS * sizeof(int) +
           COUNT_SLOTS * sizeof(int) + sizeof(Verdict) + 3 * sizeof(long long);
}

static size_t cubTempFor(size_t n)
{
    Lab probe;
    memset(&probe, 0, sizeof probe);
    probe.n = n;
    size_t selectBytes = 0, partitionBytes = 0;
    HX_CHECK(cubSelect(&probe, NULL, &selectBytes));
    HX_CHECK(cubPartition(&probe, NULL, &partitionBytes));
    return selectBytes > partitionBytes ? selectBytes : partitionBytes;
}

/* Blocks of kernel (threads each) that fit on the GPU at once. */
static unsigned residentBlocks(const hx_device *dev, const void *kernel,
                               int threads)
{
    int perSm = 0;
    HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel,
                                                           threads, 0));
    return (unsigned)(perSm > 0 ? perSm : 1) *
           (unsigned)(dev->sms > 0 ? dev->sms : 1);
}

/* Returns HX_EXIT_OK, or prints one line and returns HX_EXIT_NOMEM when
 * capacity elements do not fit. */
static int labOpen(Lab *L, const hx_device *dev, size_t capacity)
{
    memset(L, 0, sizeof *L);
    L->dev = dev;
    L->capacity = capacity;
    L->cubTempBytes = cubTempFor(capacity);
    const size_t need = labBytes(capacity, L->cubTempBytes);
    if (!hx_fits(dev, need)) {
        fprintf(stderr, "%s: n = %zu needs %.1f MiB of device memory, %.1f MiB "
                "free (try a smaller --n)\n", PROG, capacity, need / 1048576.0,
                dev->free_mem / 1048576.0);
        return HX_EXIT_NOMEM;
    }
    L->in = deviceInts(capacity);
    L->par = deviceInts(capacity);
    L->rank = deviceInts(capacity);
    L->map = deviceInts(capacity);
    for (int w = 0; w < WANT_SLOTS; ++w) L->want[w] = deviceInts(capacity);
    L->counts = deviceInts(COUNT_SLOTS);
    L->bins = deviceInts(BINS);
    HX_CHECK(cudaMalloc(&L->cubTemp, L->cubTempBytes ? L->cubTempBytes : 1));
    HX_CHECK(cudaMalloc(&L->verdict, sizeof(Verdict)));
    HX_CHECK(cudaMalloc(&L->tally, 3 * sizeof(unsigned long long)));
    HX_CHECK(cudaMalloc(&L->passState, passStateBytes(capacity)));
    for (int c = 0; c < PASS_CONFIGS; ++c) {
        const PassConfig *pc = &passConfigs[c];
        L->compactResident[c] = residentBlocks(dev, (const void *)pc->kernel,
                                               passBlock(pc));
        for (int stalled = 0; stalled < 2; ++stalled) {
            L->compactRuns[c][stalled] = PassRun{L, c, stalled ? STALL_NS : 0};
            snprintf(L->compactNames[c][stalled], PASS_NAME, "single pass %s%s",
                     pc->name, stalled ? ", stalled" : "");
        }
    }
    /* Both passes of a partition run on the placing pass's grid. */
    for (int c = 0; c < STABLE_CONFIGS; ++c) {
        const StableConfig *sc = &stableConfigs[c];
        L->stableResident[c] = residentBlocks(dev, (const void *)sc->place,
                                              sc->threads);
        for (int stalled = 0; stalled < 2; ++stalled) {
            L->stableRuns[c][stalled] = PassRun{L, c, stalled ? STALL_NS : 0};
            snprintf(L->stableNames[c][stalled], PASS_NAME,
                     "stable partition %s%s", sc->name,
                     stalled ? ", stalled" : "");
        }
    }
    for (int w = 0; w < WANT_SLOTS; ++w)
        for (int s = 0; s < 2; ++s)
            for (int k = 0; k < 2; ++k) {
                RefStream *r = &L->stream[w][s];
                HX_CHECK(cudaMallocHost(&r->stage[k], STAGE_INTS * sizeof(int)));
                HX_CHECK(cudaEventCreateWithFlags(&r->sent[k],
                                                  cudaEventDisableTiming));
                HX_CHECK(cudaEventRecord(r->sent[k], 0));
            }
    return HX_EXIT_OK;
}

/* Sizes the scan plan and the guarded output for n <= capacity elements,
 * with the automatic grid. */
static void labResize(Lab *L, size_t n)
{
    if (L->out.base) {
        hx_guarded_free(&L->out);
        scanPlanDestroy(&L->plan);
    }
    L->n = n;
    L->grid = hx_grid_for(L->dev, n, BLOCK);
    hx_guarded_alloc(&L->out, n);
    scanPlanCreate(&L->plan, n);
}

static void labClose(Lab *L)
{
    for (int w = 0; w < WANT_SLOTS; ++w)
        for (int s = 0; s < 2; ++s)
            for (int k = 0; k < 2; ++k) {
                HX_CHECK(cudaFreeHost(L->stream[w][s].stage[k]));
                HX_CHECK(cudaEventDestroy(L->stream[w][s].sent[k]));
            }
    if (L->out.base) {
        hx_guarded_free(&L->out);
        scanPlanDestroy(&L->plan);
    }
    HX_CHECK(cudaFree(L->in)); HX_CHECK(cudaFree(L->par));
    HX_CHECK(cudaFree(L->rank)); HX_CHECK(cudaFree(L->map));
    for (int w = 0; w < WANT_SLOTS; ++w) HX_CHECK(cudaFree(L->want[w]));
    HX_CHECK(cudaFree(L->counts));
    HX_CHECK(cudaFree(L->bins)); HX_CHECK(cudaFree(L->cubTemp));
    HX_CHECK(cudaFree(L->verdict)); HX_CHECK(cudaFree(L->tally));
    HX_CHECK(cudaFree(L->passState));
}

/* ---- Host side: inputs -------------------------------------------------- */

/* Makes in and par on the device (n elements each). */
static void makeInputs(Lab *L, Input in, Input par)
{
    L->inSpec = in;
    L->parSpec = par;
    fillInput<<<L->grid, BLOCK>>>(L->in, in);
    HX_CHECK_LAUNCH("fillInput");
    fillInput<<<L->grid, BLOCK>>>(L->par, par);
    HX_CHECK_LAUNCH("fillInput");
}

/* The gather and scatter inputs: in holds the values, rank the identity
 * map, map the permutation, par the pairs map. */
static void makeMaps(Lab *L, uint64_t seed)
{
    L->values = makeValues(seed);
    L->perm = makePerm(L->n, seed + 1);
    fillValues<<<L->grid, BLOCK>>>(L->in, L->n, L->values);
    HX_CHECK_LAUNCH("fillValues");
    fillMap<<<L->grid, BLOCK>>>(L->rank, L->perm, MAP_IDENTITY);
    HX_CHECK_LAUNCH("fillMap");
    fillMap<<<L->grid, BLOCK>>>(L->map, L->perm, MAP_PERMUTATION);
    HX_CHECK_LAUNCH("fillMap");
    fillMap<<<L->grid, BLOCK>>>(L->par, L->perm, MAP_PAIRS);
    HX_CHECK_LAUNCH("fillMap");
}

/* ---- Host side: references -----------------------------------------------
 *
 * Each reference is one plain loop over i on the host: it computes input
 * element i from its seed (inputAt) and applies the harness's host
 * predicate (hx_pred_nonzero, hx_pred_even). The result streams to the
 * device a stage at a time, so the host never holds n ints and the upload
 * overlaps the loop; the references a table needs are built at the same
 * time, one host thread each. The loops store every element and advance
 * by the predicate instead of branching on it: a branch that a random
 * input takes half the time costs more than the rest of the loop. */

static void streamBegin(RefStream *s, int *dst)
{
    s->dst = dst;
    s->fill = 0;
}

static void streamFlush(RefStream *s)
{
    if (s->fill == 0) return;
    HX_CHECK(cudaMemcpyAsync(s->dst, s->stage[s->which], s->fill * sizeof(int),
                             cudaMemcpyHostToDevice, 0));
    HX_CHECK(cudaEventRecord(s->sent[s->which], 0));
    s->dst += s->fill;
    s->fill = 0;
    s->which ^= 1;
    HX_CHECK(cudaEventSynchronize(s->sent[s->which]));
}

/* Appends v when keep is 1; with keep 0 the slot is overwritten next. */
static inline void streamPush(RefStream *s, int v, int keep)
{
    s->stage[s->which][s->fill] = v;
    s->fill += (size_t)keep;
    if (s->fill == STAGE_INTS) streamFlush(s);
}

/* Flushes what is staged and waits until it has arrived. */
static void streamEnd(RefStream *s)
{
    streamFlush(s);
    HX_CHECK(cudaEventSynchronize(s->sent[s->which ^ 1]));
}

static double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
        .count();
}

static int wantSlot(Ref ref)
{
    switch (ref) {
    case REF_FLAGS: case REF_GATHER: return 0;
    case REF_RANKS: case REF_SCATTER: return 1;
    case REF_COMPACT: return 2;
    default: return 3;   /* REF_PARTITION */
    }
}

/* The reference a row is compared with: in itself for REF_INPUT. */
static const int *wantOf(const Lab *L, Ref ref)
{
    return ref == REF_INPUT ? L->in : L->want[wantSlot(ref)];
}

/* Builds reference ref (not REF_INPUT) in its device buffer and sets
 * L->refCount[ref]. Touches nothing another reference's build touches, so
 * builds run at the same time. */
static void buildReference(Lab *L, Ref ref)
{
    const size_t n = L->n;
    const int w = wantSlot(ref);
    RefStream *a = &L->stream[w][0], *b = &L->stream[w][1];
    HX_CHECK(cudaSetDevice(L->dev->id));   /* a new host thread's device */
    size_t count = 0;
    streamBegin(a, L->want[w]);
    switch (ref) {
    case REF_FLAGS:
        for (size_t i = 0; i < n; ++i)
            streamPush(a, hx_pred_nonzero(inputAt(L->inSpec, i)) != 0, 1);
        break;
    case REF_RANKS:
        for (size_t i = 0; i < n; ++i) {
            streamPush(a, (int)count, 1);
            count += hx_pred_nonzero(inputAt(L->inSpec, i)) != 0;
        }
        break;
    case REF_COMPACT:
        for (size_t i = 0; i < n; ++i) {
            const int v = inputAt(L->inSpec, i), keep = hx_pred_nonzero(v) != 0;
            streamPush(a, v, keep);
            count += (size_t)keep;
        }
        streamEnd(a);
        poisonDevice(L->want[w] + count, n - count);
        break;
    case REF_PARTITION:
        /* The odds wait in rank (free while references are built) until
         * the evens are counted, then move behind them. */
        streamBegin(b, L->rank);
        for (size_t i = 0; i < n; ++i) {
            const int v = inputAt(L->parSpec, i), even = hx_pred_even(v) != 0;
            streamPush(a, v, even);
            streamPush(b, v, !even);
            count += (size_t)even;
        }
        streamEnd(a);
        streamEnd(b);
        if (n > count)
            HX_CHECK(cudaMemcpy(L->want[w] + count, L->rank,
                                (n - count) * sizeof(int),
                                cudaMemcpyDeviceToDevice));
        break;
    case REF_GATHER:
        for (size_t i = 0; i < n; ++i)
            streamPush(a, valueAt(L->values, permAt(L->perm, i)), 1);
        break;
    case REF_SCATTER:
        for (size_t j = 0; j < n; ++j)
            streamPush(a, valueAt(L->values, permInverseAt(L->perm, j)), 1);
        break;
    default:
        break;
    }
    streamEnd(a);
    L->refCount[ref] = count;
}

/* Builds every reference the rows use, one host thread each. */
static void buildReferences(Lab *L, const Row *rows, int k)
{
    const std::chrono::steady_clock::time_point t0 =
        std::chrono::steady_clock::now();
    std::thread builders[REFS];
    int used[REFS] = {0};
    for (int j = 0; j < k; ++j) used[rows[j].ref] = 1;
    for (int ref = 0; ref < REFS; ++ref)
        if (used[ref] && ref != REF_INPUT)
            builders[ref] = std::thread(buildReference, L, (Ref)ref);
    for (int ref = 0; ref < REFS; ++ref)
        if (builders[ref].joinable()) builders[ref].join();
    L->refSeconds += secondsSince(t0);
}

/* ---- Checks ------------------------------------------------------------ */

/* Every check prints one report naming what failed (what carries the size,
 * the input and the row), the first bad index and both values, and returns
 * 1; it prints nothing and returns 0 on success. */

static Verdict compareOnDevice(Lab *L, const int *got, const int *want,
                               size_t n, size_t from, int pairs)
{
    Verdict v = {0, ~0ull, 0, ~0ull};
    HX_CHECK(cudaMemcpy(L->verdict, &v, sizeof v, cudaMemcpyHostToDevice));
    if (n) {
        const unsigned grid = hx_grid_for(L->dev, n, BLOCK);
        if (pairs) {
            comparePairs<<<grid, BLOCK>>>(got, want, n, L->verdict);
            HX_CHECK_LAUNCH("comparePairs");
        } else {
            compareInts<<<grid, BLOCK>>>(got, want, n, from, L->verdict);
            HX_CHECK_LAUNCH("compareInts");
        }
    }
    HX_CHECK(cudaMemcpy(&v, L->verdict, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

/* The harness's report, from host copies of both arrays; only a failing
 * check pays for the fetch. from as in compareInts. */
static void reportEqual(const char *what, const int *got, const int *want,
                        size_t n, size_t from)
{
    int *g = hostInts(n), *w = hostInts(n);
    download(g, got, n);
    download(w, want, n);
    for (size_t i = from, j = n; i + 1 < j; ++i, --j) {   /* undo the reversal */
        const int t = g[i];
        g[i] = g[j - 1];
        g[j - 1] = t;
    }
    hx_cmp r;
    hx_check_equal(what, g, w, n, &r, stdout);
    free(g);
    free(w);
}

static int checkEqual(Lab *L, const char *what, const int *got,
                      const int *want, size_t from)
{
    const Verdict v = compareOnDevice(L, got, want, L->n, from, 0);
    if (v.bad == 0) return 0;
    reportEqual(what, got, want, L->n, from);
    return 1;
}

/* The guard regions only, fetched apart from the output so that checking
 * them costs 32 KiB of traffic at any n. Returns the changed words. */
static size_t scanGuards(const Lab *L, hx_guard_report *g)
{
    static int guards[2 * HX_GUARD_WORDS];
    const size_t bytes = HX_GUARD_WORDS * sizeof(int);
    HX_CHECK(cudaMemcpy(guards, L->out.base, bytes, cudaMemcpyDeviceToHost));
    HX_CHECK(cudaMemcpy(guards + HX_GUARD_WORDS, L->out.data + L->n, bytes,
                        cudaMemcpyDeviceToHost));
    const size_t changed = hx_guard_scan(guards, 0, HX_GUARD_WORDS, g);
    g->first_after += (long long)L->n;   /* scanned as if the output were empty */
    return changed;
}

static int checkGuards(const Lab *L, const char *what)
{
    hx_guard_report g;
    if (scanGuards(L, &g) == 0) return 0;
    printf("%s: FAIL: wrote outside the output\n", what);
    hx_guard_print(what, L->n, &g, stdout);
    return 1;
}

static int checkCount(const char *what, const char *name, int got, size_t want)
{
    if (got >= 0 && (size_t)got == want) return 0;
    printf("%s: FAIL: %s is %d on the device, %zu on the host\n", what, name,
           got, want);
    return 1;
}

/* Counts got[0..m) against want[0..m) in the bins: tally[0] values of got
 * outside [-VMAX, VMAX], [1] missing, [2] extra. */
static void tallyValues(Lab *L, const int *got, const int *want, size_t m,
                        unsigned long long tally[3])
{
    tally[0] = tally[1] = tally[2] = 0;
    HX_CHECK(cudaMemset(L->bins, 0, BINS * sizeof(int)));
    HX_CHECK(cudaMemcpy(L->tally, tally, 3 * sizeof *tally, cudaMemcpyHostToDevice));
    if (m) {
        const unsigned grid = hx_grid_for(L->dev, m, BLOCK);
        countValues<<<grid, BLOCK>>>(got, m, 1, L->bins, L->tally);
        HX_CHECK_LAUNCH("countValues");
        countValues<<<grid, BLOCK>>>(want, m, -1, L->bins, L->tally);
        HX_CHECK_LAUNCH("countValues");
        sumBins<<<hx_grid_for(L->dev, BINS, BLOCK), BLOCK>>>(L->bins, L->tally);
        HX_CHECK_LAUNCH("sumBins");
    }
    HX_CHECK(cudaMemcpy(tally, L->tally, 3 * sizeof *tally, cudaMemcpyDeviceToHost));
}

/* The atomic row: nothing written past the count, the same values as the
 * stable order at out[0..m), and (information, never a failure) how many
 * slots differ from the stable order, into L->disorder. */
static int checkSameValues(Lab *L, const char *what, const int *got)
{
    const int *want = wantOf(L, REF_COMPACT);
    const size_t m = L->refCount[REF_COMPACT], n = L->n;
    Verdict v = compareOnDevice(L, got + m, want + m, n - m, n - m, 0);
    if (v.bad) {
        const int g = deviceInt(got + m + v.first);
        printf("%s: FAIL: wrote past the count %zu: first bad index %llu: got "
               "%d, want poison; %llu slots past the count written\n",
               what, m, (unsigned long long)(m + v.first), g, v.bad);
        return 1;
    }
    unsigned long long tally[3];
    tallyValues(L, got, want, m, tally);
    if (tally[0] || tally[1] || tally[2]) {
        int *g = hostInts(m), *w = hostInts(m);
        download(g, got, m);
        download(w, want, m);
        hx_same s;
        hx_check_same_values(what, g, w, m, &s, stdout);
        free(g);
        free(w);
        return 1;
    }
    L->disorder = compareOnDevice(L, got, want, m, m, 0).bad;
    return 0;
}

static int checkPairs(Lab *L, const char *what, const int *got)
{
    const int *want = wantOf(L, REF_SCATTER);
    const Verdict v = compareOnDevice(L, got, want, L->n, L->n, 1);
    if (v.bad == 0) return 0;
    const size_t j = (size_t)v.first;
    const int g = deviceInt(got + j);
    if (j % 2)
        printf("%s: FAIL at n=%zu: first bad index %zu: got %d, want poison "
               "(no element maps to an odd slot); %llu of n slots bad\n",
               what, L->n, j, g, v.bad);
    else
        printf("%s: FAIL at n=%zu: first bad index %zu: got %d, want %d or %d "
               "(its two writers); %llu of n slots bad\n",
               what, L->n, j, g, deviceInt(want + j),
               deviceInt(want + (j + 1 < L->n ? j + 1 : j)),
               v.bad);
    return 1;
}

static const char *countName(Ref ref)
{
    return ref == REF_PARTITION ? "the boundary (even count)" : "the survivor count";
}


/* Runs the row once on a poisoned output and checks it against its
 * reference, already built. */
static int checkRow(Lab *L, const Row *r, const char *context)
{
    char what[256];
    snprintf(what, sizeof what, "%s: %s", context, r->name);
    if (r->prepare) r->prepare(r->ctx);
    int *got = r->toRank ? L->rank : L->out.data;
    if (r->toRank) poisonDevice(L->rank, L->n);
    else hx_guarded_poison(&L->out);
    r->run(r->ctx);
    HX_CHECK(cudaDeviceSynchronize());

    if (!r->toRank && checkGuards(L, what)) return 1;
    if (r->count >= 0 &&
        checkCount(what, countName(r->ref), deviceInt(L->counts + r->count),
                   L->refCount[r->ref]))
        return 1;
    const int *want = wantOf(L, r->ref);
    switch (r->how) {
    case HOW_SAME_VALUES: return checkSameValues(L, what, got);
    case HOW_REJECTS_REVERSED:
        return checkEqual(L, what, got, want, L->refCount[REF_PARTITION]);
    case HOW_PAIRS: return checkPairs(L, what, got);
    default: return checkEqual(L, what, got, want, L->n);
    }
}

/* Builds the references, then checks every row with each of the
 * element-wise grids grids[0..ngrids) (0: the automatic one); the scan's
 * grids follow. Returns 0 or 1. */
static int checkRows(Lab *L, const Row *rows, int k, const char *context,
                     const unsigned *grids, int ngrids)
{
    const unsigned autoGrid = hx_grid_for(L->dev, L->n, BLOCK);
    int ok = 1;
    buildReferences(L, rows, k);
    for (int g = 0; g < ngrids && ok; ++g) {
        L->grid = grids[g] ? grids[g] : autoGrid;
        L->plan.tileGrid = L->plan.grid = L->passGrid = grids[g];
        char where[160];
        snprintf(where, sizeof where, "%s grid %u", context, L->grid);
        for (int j = 0; j < k && ok; ++j)
            if (checkRow(L, &rows[j], where)) ok = 0;
    }
    L->grid = autoGrid;
    L->plan.tileGrid = L->plan.grid = L->passGrid = 0;
    return ok ? 0 : 1;
}

/* ---- Timing and tables --------------------------------------------------- */

/* A failed check before a timing ends the run: a number for a wrong result
 * would be worse than no number. */
static void mustPass(int failed)
{
    if (!failed) return;
    printf("%s: a check failed; nothing after it is timed\n", PROG);
    exit(HX_EXIT_FAIL);
}

/* Times rows[0..k) interleaved run by run (hx_time_set), in the order
 * given. */
static void timeRows(const Row *rows, int k, const hx_opts *o, hx_timing *t)
{
    hx_work works[MAX_ROWS];
    void *ctxs[MAX_ROWS];
    for (int j = 0; j < k; ++j) {
        works[j] = rows[j].run;
        ctxs[j] = rows[j].ctx;
    }
    hx_time_set(k, works, ctxs, o->warmup, o->runs, t);
}

/* Checks every row at the automatic grid, then times them all. */
static void checkAndTime(Lab *L, const Row *rows, int k, const char *context,
                         const hx_opts *o, hx_timing *t)
{
    const unsigned autoGrid = 0;
    mustPass(checkRows(L, rows, k, context, &autoGrid, 1));
    timeRows(rows, k, o, t);
}

static double floorMs(const Row *r, const hx_timing *t, size_t n, size_t kept)
{
    return hx_floor_ms(floorInts(r, n, kept) * sizeof(int),
                       2.0 * (double)n * sizeof(int), t[ROW_MEMCPY].median_ms);
}

static void printTable(const char *title, const Row *rows, int k,
                       const hx_timing *t, size_t n, size_t kept)
{
    hx_table_begin(stdout, title);
    for (int j = 0; j < k; ++j) {
        if (rows[j].noteBefore) hx_table_note(stdout, rows[j].noteBefore);
        hx_table_row(stdout, rows[j].name, rows[j].launches, &t[j],
                     t[ROW_COPY].median_ms, floorMs(&rows[j], t, n, kept));
    }
    hx_table_end(stdout);
}

/* The CSV every lab's sweep writes, whose schema ../harness/plot.py
 * documents (one header line, one line per row per size or rate; keep
 * empty where the row has none; copy_ms is the copy row's median, floor_ms
 * the row's floor; row names in quotes, as some hold commas). */
static const char CSV_HEADER[] =
    "lab,row,n,keep,median_ms,min_ms,max_ms,copy_ms,floor_ms,x_copy,x_floor,"
    "gpu,l2_bytes\n";

static void csvRows(FILE *f, const Lab *L, const Row *rows, int k,
                    const hx_timing *t, size_t kept, double keep)
{
    const double copyMs = t[ROW_COPY].median_ms;
    char gpu[sizeof L->dev->name];
    snprintf(gpu, sizeof gpu, "%s", L->dev->name);
    for (char *c = gpu; *c; ++c)
        if (*c == ',' || *c == '"') *c = ' ';
    for (int j = 0; j < k; ++j) {
        const double fl = floorMs(&rows[j], t, L->n, kept);
        char keepText[32] = "";
        if (j != ROW_MEMCPY && j != ROW_COPY)
            snprintf(keepText, sizeof keepText, "%.2f", keep);
        fprintf(f, "day33-compaction,\"%s\",%zu,%s,%.6f,%.6f,%.6f,%.6f,%.6f,"
                "%.4f,%.4f,%s,%zu\n", rows[j].name, L->n, keepText, t[j].median_ms,
                t[j].min_ms, t[j].max_ms, copyMs, fl,
                copyMs > 0 ? t[j].median_ms / copyMs : 0.0,
                fl > 0 ? t[j].median_ms / fl : 0.0, gpu,
                L->dev->l2_bytes);
    }
}

/* ---- The default run: three tables -------------------------------------- */

static void printSetup(const Lab *L, const hx_opts *o, const char *why)
{
    const size_t n = L->n;
    printf("n = %zu (%s)\n", n, why);
    printf("device buffers: %d of n ints, %.1f MiB each (input, partition input, "
           "ranks, map, %d references, output between guards); scan levels "
           "%.2f MiB, CUB temp %.2f MiB\n", BUFFERS,
           (double)n * sizeof(int) / 1048576.0, WANT_SLOTS,
           scanPlanBytes(n) / 1048576.0, L->cubTempBytes / 1048576.0);
    printf("grid: %u blocks of %u threads for every element-wise kernel "
           "(grid-stride loops)\n", L->grid, BLOCK);
    printf("scan: %d levels of %d-element tiles; tiles per level:",
           L->plan.levels, SCAN_TILE);
    for (int l = 0; l < L->plan.levels; ++l)
        printf(" %zu", (L->plan.count[l] + SCAN_TILE - 1) / SCAN_TILE);
    printf("; %d launches per scan\n", scanLaunches(&L->plan));
    printf("seed %llu; survival %.2f in the main table\n",
           (unsigned long long)o->seed, o->keep);
    printf("median of %d runs after %d warm-ups, the rows of each table "
           "interleaved run by run; every row checked before it is timed\n",
           o->runs, o->warmup);
    hx_warn_if_cached(L->dev, n * sizeof(int), stdout);
}

static void printFloorNote(void)
{
    printf("x floor: the row's compulsory ints (read + written) at the "
           "cudaMemcpy rate of this run. Compaction's floor is n + kept, the "
           "stable partition's 3n (its counting pass reads n), an unstable "
           "one's 2n; the teaching rows are held to their own "
           "phases: mark 2n, scan 4n, scatter 2n + kept, so compaction 8n + "
           "kept and partition 9n\n");
}

static const double TARGET_RATES[3] = {0.1, 0.5, 0.9};

static int findRow(const Row *rows, int k, hx_work run, const void *ctx)
{
    for (int j = 0; j < k; ++j)
        if (rows[j].run == run && rows[j].ctx == ctx) return j;
    return -1;
}

/* Keeps what the targets compare, when keep is one of TARGET_RATES. */
static void noteTargets(Lab *L, const Row *rows, int k, const hx_timing *t,
                        double keep)
{
    const int s = findRow(rows, k, runCompactPass, &L->compactRuns[0][0]),
              c = findRow(rows, k, runCubSelect, L),
              p = findRow(rows, k, runPartitionPass, &L->stableRuns[0][0]),
              q = findRow(rows, k, runCubPartition, L);
    const size_t kept = L->refCount[REF_COMPACT];
    for (int r = 0; r < 3; ++r)
        if (keep == TARGET_RATES[r] && s >= 0 && c >= 0 && p >= 0 && q >= 0) {
            Target *g = &L->targets[r];
            g->measured = 1;
            g->single = t[s].median_ms;
            g->singleFloor = floorMs(&rows[s], t, L->n, kept);
            g->select = t[c].median_ms;
            g->selectFloor = floorMs(&rows[c], t, L->n, kept);
            g->stable = t[p].median_ms;
            g->cubPartition = t[q].median_ms;
        }
}

/* The targets, from the main table and the survival tables. */
static void printTargets(const Lab *L)
{
    printf("targets at n = %zu: the single pass within 1.15x of its floor and "
           "faster than CUB's Select::If; the stable partition faster than "
           "CUB's Partition::If\n", L->n);
    for (int r = 0; r < 3; ++r) {
        const Target *g = &L->targets[r];
        if (!g->measured) continue;
        printf("  survival %.2f: single pass %.2fx floor, CUB Select::If %.2fx "
               "floor, single pass / CUB %.2f; stable partition / CUB "
               "Partition::If %.2f\n", TARGET_RATES[r],
               g->single / g->singleFloor, g->select / g->selectFloor,
               g->single / g->select, g->stable / g->cubPartition);
    }
    printf("\n");
}

static void mainTable(Lab *L, const hx_opts *o)
{
    Row rows[MAX_ROWS];
    hx_timing t[MAX_ROWS];
    const size_t n = L->n;
    makeInputs(L, makeInput(o->seed, n, SHAPE_RATE, o->keep, 0),
               makeInput(o->seed + 1, n, SHAPE_RATE, o->keep, 1));
    int k = copyRows(L, rows);
    k += compactionRows(L, rows + k, 1);
    char context[96];
    snprintf(context, sizeof context, "n=%zu survival %.2f", n, o->keep);
    checkAndTime(L, rows, k, context, o, t);
    noteTargets(L, rows, k, t, o->keep);
    const size_t kept = L->refCount[REF_COMPACT], evens = L->refCount[REF_PARTITION];

    char title[160];
    snprintf(title, sizeof title, "where the time goes: n = %zu, survival %.2f",
             n, o->keep);
    printTable(title, rows, k, t, n, kept);
    printf("copy: %.1f GB/s; cudaMemcpy: %.1f GB/s (%zu bytes read + %zu "
           "written per run)\n",
           hx_gbps(2.0 * n * sizeof(int), t[ROW_COPY].median_ms),
           hx_gbps(2.0 * n * sizeof(int), t[ROW_MEMCPY].median_ms),
           n * sizeof(int), n * sizeof(int));
    printFloorNote();
    printf("compaction: %zu of %zu kept; atomic version: %zu of %zu slots out "
           "of the stable order (the atomic row computes a different function)\n",
           kept, n, L->disorder, kept);
    printf("partition: %zu even of %zu (the boundary); CUB's partition writes "
           "the odd group in reverse order\n\n", evens, n);
}

/* Compaction and partition at survival 0.1, 0.5 and 0.9, skipping the main
 * table's rate. */
static void survivalTables(Lab *L, const hx_opts *o)
{
    const double *rates = TARGET_RATES;
    for (int s = 0; s < 3; ++s) {
        if (rates[s] == o->keep) continue;
        Row rows[MAX_ROWS];
        hx_timing t[MAX_ROWS];
        const size_t n = L->n;
        makeInputs(L, makeInput(o->seed, n, SHAPE_RATE, rates[s], 0),
                   makeInput(o->seed + 1, n, SHAPE_RATE, rates[s], 1));
        int k = copyRows(L, rows);
        k += compactionRows(L, rows + k, 0);
        char context[96], title[160];
        snprintf(context, sizeof context, "n=%zu survival %.2f", n, rates[s]);
        checkAndTime(L, rows, k, context, o, t);
        noteTargets(L, rows, k, t, rates[s]);
        const size_t kept = L->refCount[REF_COMPACT];
        snprintf(title, sizeof title, "survival %.2f: n = %zu", rates[s], n);
        printTable(title, rows, k, t, n, kept);
        printf("survival %.2f: %zu of %zu kept; atomic version: %zu of %zu "
               "slots out of the stable order\n", rates[s], kept, n,
               L->disorder, kept);
    }
    printf("\n");
    printTargets(L);
}

static void gatherScatterTable(Lab *L, const hx_opts *o)
{
    Row rows[MAX_ROWS];
    hx_timing t[MAX_ROWS];
    MapRun maps[3];
    makeMaps(L, o->seed + 5);
    int k = copyRows(L, rows);
    k += mapRows(L, rows + k, maps);
    char context[64], title[96];
    snprintf(context, sizeof context, "n=%zu gather and scatter", L->n);
    checkAndTime(L, rows, k, context, o, t);
    snprintf(title, sizeof title, "gather and scatter: n = %zu", L->n);
    printTable(title, rows, k, t, L->n, 0);
    printf("x floor: 3n ints (in, map, out) at the cudaMemcpy rate\n");
    printf("scatter with two writers per even slot: %zu of %zu writes lost "
           "(n/2, rounded down); which writer survives is unspecified and the "
           "check accepts either\n", L->n / 2, L->n);
}

static size_t defaultN(const hx_device *dev, const hx_opts *o, char *why,
                       size_t whylen)
{
    if (o->n_set) {
        snprintf(why, whylen, "given with --n");
        return o->n;
    }
    return hx_default_n(dev, BUFFERS * sizeof(int), why, whylen);
}

static int runLesson(const hx_device *dev, const hx_opts *o)
{
    char why[512];
    const size_t n = defaultN(dev, o, why, sizeof why);
    Lab L;
    const int rc = labOpen(&L, dev, n);
    if (rc != HX_EXIT_OK) return rc;
    labResize(&L, n);
    printSetup(&L, o, why);
    mainTable(&L, o);
    survivalTables(&L, o);
    gatherScatterTable(&L, o);
    printf("host time building references: %.1f s\n", L.refSeconds);
    labClose(&L);
    return HX_EXIT_OK;
}

/* ---- --sweep: sizes and survival rates, as CSV ---------------------------- */

static FILE *openCsv(const char *dir, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s\n", PROG, path);
        exit(HX_EXIT_USAGE);
    }
    fputs(CSV_HEADER, f);
    return f;
}

/* The rows a sweep times: copies, the teaching compaction and partition,
 * and CUB. */
static int sweepRows(Lab *L, Row *rows)
{
    int k = copyRows(L, rows);
    Row all[MAX_ROWS];
    const int m = compactionRows(L, all, 0);
    for (int j = 0; j < m; ++j)
        if (all[j].how != HOW_SAME_VALUES) rows[k++] = all[j];
    return k;
}

/* Checks and times one step of a sweep, writes its CSV lines, and prints
 * the x floor of every row on one line after label. */
static void sweepStep(Lab *L, const Row *rows, int k, double keep,
                      const hx_opts *o, FILE *csv, const char *label)
{
    hx_timing t[MAX_ROWS];
    char context[64];
    snprintf(context, sizeof context, "n=%zu survival %.2f", L->n, keep);
    checkAndTime(L, rows, k, context, o, t);
    const size_t kept = L->refCount[REF_COMPACT];
    csvRows(csv, L, rows, k, t, kept, keep);
    printf("  %-14s", label);
    for (int j = 0; j < k; ++j)
        printf(" %6.2f", t[j].median_ms / floorMs(&rows[j], t, L->n, kept));
    printf("\n");
    fflush(stdout);
}

static void sweepLegend(const Row *rows, int k)
{
    printf("  x floor of each row, in the order:");
    for (int j = 0; j < k; ++j) printf("%s %s", j ? ";" : "", rows[j].name);
    printf("\n");
}

static int runSweep(const hx_device *dev, const hx_opts *o, const char *dir)
{
    /* The largest power of two that fits (and that an int can count). */
    size_t top = (size_t)1 << 10;
    while (top * 2 <= HX_MAX_N &&
           hx_fits(dev, labBytes(top * 2, cubTempFor(top * 2))))
        top *= 2;
    Lab L;
    const int rc = labOpen(&L, dev, top);
    if (rc != HX_EXIT_OK) return rc;
    char path[1024], label[32];
    Row rows[MAX_ROWS];

    FILE *f = openCsv(dir, "compaction-sizes.csv", path, sizeof path);
    printf("size sweep: n = 2^10 to %zu at survival 0.5, %d runs after %d "
           "warm-ups at each, into %s\n", top, o->runs, o->warmup, path);
    for (size_t n = (size_t)1 << 10; n <= top; n *= 2) {
        labResize(&L, n);
        makeInputs(&L, makeInput(o->seed, n, SHAPE_RATE, 0.5, 0),
                   makeInput(o->seed + 1, n, SHAPE_RATE, 0.5, 1));
        const int k = sweepRows(&L, rows);
        if (n == (size_t)1 << 10) sweepLegend(rows, k);
        snprintf(label, sizeof label, "n = %zu", n);
        sweepStep(&L, rows, k, 0.5, o, f, label);
    }
    fclose(f);

    char why[512];
    size_t n = defaultN(dev, o, why, sizeof why);
    if (n > top) n = top;
    labResize(&L, n);
    f = openCsv(dir, "compaction-survival.csv", path, sizeof path);
    printf("survival sweep: n = %zu, survival 0 to 1 in steps of 0.1, into "
           "%s\n", n, path);
    for (int s = 0; s <= 10; ++s) {
        const double keep = s / 10.0;
        makeInputs(&L, makeInput(o->seed, n, SHAPE_RATE, keep, 0),
                   makeInput(o->seed + 1, n, SHAPE_RATE, keep, 1));
        int k = copyRows(&L, rows);
        k += compactionRows(&L, rows + k, 0);
        if (s == 0) sweepLegend(rows, k);
        snprintf(label, sizeof label, "survival %.1f", keep);
        sweepStep(&L, rows, k, keep, o, f, label);
    }
    fclose(f);
    labClose(&L);
    return HX_EXIT_OK;
}

/* ---- --variants: the single-pass configurations side by side ------------ */

/* --variants' check: builds the references, then runs every row once at
 * the automatic grid. A row that fails is reported, named and left out of
 * rows (its note moves to the next row), so that one broken configuration
 * does not hide the others' figures; the memcpy and copy rows are every
 * row's yardsticks, so if either fails nothing is timed. Returns the
 * number of rows left out. */
static int checkKeeping(Lab *L, Row *rows, int *k, const char *context)
{
    buildReferences(L, rows, *k);
    int kept = 0, failed = 0;
    const char *note = NULL;
    for (int j = 0; j < *k; ++j) {
        Row r = rows[j];
        if (r.noteBefore == NULL) r.noteBefore = note;
        note = NULL;
        if (!checkRow(L, &r, context)) {
            rows[kept++] = r;
            continue;
        }
        mustPass(j == ROW_MEMCPY || j == ROW_COPY);
        printf("%s: %s: FAIL: left out of the timing\n", context, r.name);
        note = r.noteBefore;
        ++failed;
    }
    *k = kept;
    return failed;
}

/* Every configuration of compaction and of the stable partition at n =
 * 2^28 (or --n) and survival 0.1, 0.5 and 0.9, with memcpy, copy and CUB,
 * interleaved run by run; each row checked before it is timed. Exit 1
 * when a configuration failed its check (the others are still timed). */
static int runVariants(const hx_device *dev, const hx_opts *o)
{
    char why[512];
    const size_t n = defaultN(dev, o, why, sizeof why);
    Lab L;
    int rc = labOpen(&L, dev, n);
    if (rc != HX_EXIT_OK) return rc;
    labResize(&L, n);
    printSetup(&L, o, why);
    for (int s = 0; s < 3; ++s) {
        const double keep = TARGET_RATES[s];
        Row rows[MAX_ROWS];
        hx_timing t[MAX_ROWS];
        makeInputs(&L, makeInput(o->seed, n, SHAPE_RATE, keep, 0),
                   makeInput(o->seed + 1, n, SHAPE_RATE, keep, 1));
        int k = copyRows(&L, rows);
        for (int c = 0; c < PASS_CONFIGS; ++c) {
            rows[k] = compactRow(&L, c, 0);
            rows[k].name = passConfigs[c].name;
            if (c == 0) rows[k].noteBefore = "single-pass compaction "
                                             "(passConfigs):";
            ++k;
        }
        rows[k++] = row("CUB DeviceSelect::If", runCubSelect, &L, REF_COMPACT,
                        HOW_EQUAL, COUNT_CUB_SELECT, CUB_LAUNCHES, 1, 1);
        for (int c = 0; c < STABLE_CONFIGS; ++c) {
            rows[k] = stableRow(&L, c, 0);
            rows[k].name = stableConfigs[c].name;
            if (c == 0) rows[k].noteBefore = "stable partition, count + place "
                                             "(stableConfigs):";
            ++k;
        }
        rows[k++] = row("CUB DevicePartition::If (unstable)", runCubPartition,
                        &L, REF_PARTITION, HOW_REJECTS_REVERSED,
                        COUNT_CUB_PARTITION, CUB_LAUNCHES, 2, 0);
        char context[96], title[160];
        snprintf(context, sizeof context, "n=%zu survival %.2f", n, keep);
        if (checkKeeping(&L, rows, &k, context)) rc = HX_EXIT_FAIL;
        timeRows(rows, k, o, t);
        snprintf(title, sizeof title, "single-pass configurations (threads x "
                 "ints per thread), survival %.2f: n = %zu", keep, n);
        printTable(title, rows, k, t, n, L.refCount[REF_COMPACT]);
    }
    printf("the first configuration of each table is the production one "
           "(passConfigs, stableConfigs in compaction.cu), used by every "
           "other table; floors: compaction n + kept, the stable partition "
           "3n, CUB's unstable one 2n\n");
    if (rc != HX_EXIT_OK)
        printf("variants: a configuration failed its check and was left out "
               "(above)\n");
    labClose(&L);
    return rc;
}

/* ---- The self-check (--check) ------------------------------------------ */

/* Plants errors in a small output and demands that each device check sees
 * exactly them: a check that cannot fail would pass anything. */
static int checkTheChecks(Lab *L)
{
    const size_t n = 1000;
    const int bad = 123456789;
    int ok = 1;
    labResize(L, n);
    makeInputs(L, makeInput(7, n, SHAPE_RATE, 0.5, 0),
               makeInput(8, n, SHAPE_RATE, 0.5, 1));

    /* Equal: a wrong value at 17 and an unwritten slot at 400. */
    runCopy(L);
    HX_CHECK(cudaMemcpy(L->out.data + 17, &bad, sizeof bad, cudaMemcpyHostToDevice));
    poisonDevice(L->out.data + 400, 1);
    Verdict v = compareOnDevice(L, L->out.data, L->in, n, n, 0);
    ok &= v.bad == 2 && v.first == 17 && v.unwritten == 1 && v.firstUnwritten == 400;

    /* Guards: a word 3 before the output and one 5 past its end. */
    hx_guarded_poison(&L->out);
    HX_CHECK(cudaMemcpy(L->out.data - 3, &bad, sizeof bad, cudaMemcpyHostToDevice));
    HX_CHECK(cudaMemcpy(L->out.data + n + 5, &bad, sizeof bad, cudaMemcpyHostToDevice));
    hx_guard_report g;
    ok &= scanGuards(L, &g) == 2 && g.first_before == -3 &&
          g.first_after == (long long)n + 5;

    /* Same values: the atomic row's first value v replaced by -v (never 0,
     * so one value missing and one extra, whatever the others are). */
    buildReference(L, REF_COMPACT);
    const size_t kept = L->refCount[REF_COMPACT];
    const int *want = wantOf(L, REF_COMPACT);
    hx_guarded_poison(&L->out);
    runAtomic(L);
    unsigned long long tally[3];
    tallyValues(L, L->out.data, want, kept, tally);
    ok &= kept > 0 && tally[0] == 0 && tally[1] == 0 && tally[2] == 0;
    const int negated = -deviceInt(L->out.data);
    HX_CHECK(cudaMemcpy(L->out.data, &negated, sizeof negated, cudaMemcpyHostToDevice));
    tallyValues(L, L->out.data, want, kept, tally);
    ok &= tally[0] == 0 && tally[1] == 1 && tally[2] == 1;

    /* Reversed rejects: CUB's partition passes, then its last slot changed. */
    buildReference(L, REF_PARTITION);
    const size_t evens = L->refCount[REF_PARTITION];
    hx_guarded_poison(&L->out);
    runCubPartition(L);
    v = compareOnDevice(L, L->out.data, wantOf(L, REF_PARTITION), n, evens, 0);
    ok &= v.bad == 0;
    HX_CHECK(cudaMemcpy(L->out.data + n - 1, &bad, sizeof bad, cudaMemcpyHostToDevice));
    v = compareOnDevice(L, L->out.data, wantOf(L, REF_PARTITION), n, evens, 0);
    ok &= v.bad == 1 && v.first == n - 1;

    /* Pairs: passes, then a write into odd slot 5 and a stray value at 8. */
    makeMaps(L, 9);
    buildReference(L, REF_SCATTER);
    MapRun pairs = {L, L->par};
    hx_guarded_poison(&L->out);
    runScatterMap(&pairs);
    v = compareOnDevice(L, L->out.data, wantOf(L, REF_SCATTER), n, n, 1);
    ok &= v.bad == 0;
    HX_CHECK(cudaMemcpy(L->out.data + 5, &bad, sizeof bad, cudaMemcpyHostToDevice));
    HX_CHECK(cudaMemcpy(L->out.data + 8, &bad, sizeof bad, cudaMemcpyHostToDevice));
    v = compareOnDevice(L, L->out.data, wantOf(L, REF_SCATTER), n, n, 1);
    ok &= v.bad == 2 && v.first == 5;

    printf("checks of the checks: %s (planted a wrong value, an unwritten "
           "slot, two guard writes, a changed value in the atomic output and "
           "in CUB's rejects, two stray scatter writes)\n",
           ok ? "each planted error seen" : "FAILED: a planted error was missed");
    return ok ? 0 : 1;
}

/* One size: every row at every input shape, with the automatic grid and
 * with SMALL_GRID blocks (the scan's and the single pass's grids too),
 * then gather and scatter. The size above 2^30 (full = 0) runs survival
 * 0.5 with the automatic grid, and no gather and scatter: their host
 * references walk the permutation's cycles, which a size just above a
 * power of two makes long, and their indexing is the element-wise
 * kernels' own, already checked. */
static int checkSize(Lab *L, size_t n, uint64_t seed, int full)
{
    const unsigned grids[2] = {0, SMALL_GRID};
    const int ngrids = full ? 2 : 1, shapes = full ? SHAPES : 1;
    labResize(L, n);
    for (int s = 0; s < shapes; ++s) {
        Row rows[MAX_ROWS];
        makeInputs(L, makeInput(seed + (uint64_t)s, n, (Shape)s, 0.5, 0),
                   makeInput(seed + 10 + (uint64_t)s, n, (Shape)s, 0.5, 1));
        int k = copyRows(L, rows);
        k += compactionRows(L, rows + k, 1);
        if (k + 2 * (PASS_CONFIGS + STABLE_CONFIGS) > MAX_ROWS) {
            fprintf(stderr, "%s: MAX_ROWS (%d) is too small for the "
                    "self-check's rows\n", PROG, MAX_ROWS);
            return 1;
        }
        /* Every other configuration, and every one with a look-back with
         * its debug stalls too (compactionRows has the first of each,
         * unstalled). */
        for (int c = 0; c < PASS_CONFIGS; ++c)
            for (int stalled = c == 0; stalled < 2; ++stalled)
                rows[k++] = compactRow(L, c, stalled);
        for (int c = 0; c < STABLE_CONFIGS; ++c) {
            const int stalls = stableConfigs[c].scheme == STABLE_LOOKBACK;
            for (int stalled = c == 0; stalled <= stalls; ++stalled)
                rows[k++] = stableRow(L, c, stalled);
        }
        char context[96];
        snprintf(context, sizeof context, "n=%zu %s%s", n, shapeName[s],
                 s == SHAPE_RATE ? " 0.5" : "");
        if (checkRows(L, rows, k, context, grids, ngrids)) return 1;
    }
    if (full) {
        Row rows[MAX_ROWS];
        MapRun maps[3];
        makeMaps(L, seed + 20);
        const int k = mapRows(L, rows, maps);
        char context[64];
        snprintf(context, sizeof context, "n=%zu", n);
        if (checkRows(L, rows, k, context, grids, ngrids)) return 1;
    }
    printf("n=%zu: ok: every row (copies, mark, scan, scatter, compaction, "
           "partition, atomic, single-pass compaction in %d configurations "
           "with and without stalls, %zu tiles of the first, the stable "
           "partition in %d, CUB), %s; %sgrid %u%s\n",
           n, PASS_CONFIGS,
           tilesOf(passConfigs[0].threads, passConfigs[0].items, n),
           STABLE_CONFIGS,
           full ? "every input shape" : "survival 0.5",
           full ? "gather and scatter; " : "", hx_grid_for(L->dev, n, BLOCK),
           full ? " and 3 blocks" : "");
    return 0;
}

/* Above 2^30: the size the self-check adds where the GPU's memory allows. */
#define LARGE_N (((size_t)1 << 30) + 257)

static int runSelfCheck(const hx_device *dev, const hx_opts *o)
{
    /* The production single pass, G blocks at once over tiles of T: at T
     * - 1, T and T + 1 one tile is partial, whole, or followed by a one;
     * at G T - 1, G T and G T + 1 every block has one tile (the last
     * partial, then whole) and then one block has two. */
    const PassConfig *prod = &passConfigs[0];
    const size_t t = (size_t)prod->threads * prod->items;
    const size_t gt = (size_t)residentBlocks(dev, (const void *)prod->kernel,
                                             passBlock(prod)) * t;
    size_t sizes[] = {0,      1,  255,    256,    257,      t - 1,
                      t,      t + 1,  65537,  gt - 1, gt,   gt + 1,
                      16777217, 0};
    int count = (int)(sizeof sizes / sizeof sizes[0]);
    if (o->n_set) {
        sizes[0] = o->n;
        count = 1;
    } else {
        hx_rng r;
        hx_rng_seed(&r, o->seed);
        sizes[count - 1] = 2 * (size_t)hx_rng_below(&r, (uint64_t)1 << 21) + 1;
    }
    size_t capacity = 1000;   /* checkTheChecks */
    for (int k = 0; k < count; ++k)
        if (sizes[k] > capacity) capacity = sizes[k];
    const int large = !o->n_set && hx_fits(dev, labBytes(LARGE_N, cubTempFor(LARGE_N)));
    if (large) capacity = LARGE_N;

    Lab L;
    const int rc = labOpen(&L, dev, capacity);
    if (rc != HX_EXIT_OK) return rc;
    printf("self-check: seed %llu, %d sizes%s; each with every input shape "
           "(%s", (unsigned long long)o->seed, count + large,
           large ? " (the last above 2^30)" : "", shapeName[0]);
    for (int s = 1; s < SHAPES; ++s) printf(", %s", shapeName[s]);
    printf(") for compaction and partition\n");
    int failed = checkTheChecks(&L);
    for (int k = 0; k < count && !failed; ++k) {
        fflush(stdout);
        failed = checkSize(&L, sizes[k], o->seed + 100 * (uint64_t)k, 1);
    }
    if (!o->n_set && !large)
        printf("n=%zu: skipped: the lab needs %.1f GiB of device memory there, "
               "%.1f GiB free\n", LARGE_N,
               labBytes(LARGE_N, cubTempFor(LARGE_N)) / 1073741824.0,
               dev->free_mem / 1073741824.0);
    if (large && !failed) {
        fflush(stdout);
        failed = checkSize(&L, LARGE_N, o->seed + 1000, 0);
    }
    labClose(&L);
    if (failed) {
        printf("self-check: FAILED\n");
        return HX_EXIT_FAIL;
    }
    printf("self-check: all %d sizes passed\n", count + large);
    return HX_EXIT_OK;
}

/* ---- main ---------------------------------------------------------------- */

/* The options only this lab has, taken out of argv before the harness
 * parses the rest: --sweep, --variants, --csv DIR. */
typedef struct {
    int sweep, variants;
    const char *csvDir;
} LabOptions;

static int takeLabOptions(int *argc, char **argv, LabOptions *lo)
{
    lo->sweep = lo->variants = 0;
    lo->csvDir = ".";
    int kept = 1;
    for (int i = 1; i < *argc; ++i) {
        if (strcmp(argv[i], "--sweep") == 0) {
            lo->sweep = 1;
        } else if (strcmp(argv[i], "--variants") == 0) {
            lo->variants = 1;
        } else if (strncmp(argv[i], "--csv=", 6) == 0) {
            lo->csvDir = argv[i] + 6;
        } else if (strcmp(argv[i], "--csv") == 0) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "%s: --csv needs a folder (try --help)\n", PROG);
                return HX_EXIT_USAGE;
            }
            lo->csvDir = argv[++i];
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    return HX_EXIT_OK;
}

int main(int argc, char **argv)
{
    const std::chrono::steady_clock::time_point start =
        std::chrono::steady_clock::now();
    LabOptions lo;
    hx_opts o;
    int rc = takeLabOptions(&argc, argv, &lo);
    if (rc == HX_EXIT_OK) rc = hx_parse_args(argc, argv, &o, HX_OPT_KEEP, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    hx_device dev;
    rc = hx_device_open(&dev, PROG);
    if (rc != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);

    if (o.check) rc = runSelfCheck(&dev, &o);
    else if (lo.sweep) rc = runSweep(&dev, &o, lo.csvDir);
    else if (lo.variants) rc = runVariants(&dev, &o);
    else rc = runLesson(&dev, &o);

    printf("wall time: %.1f s\n", secondsSince(start));
    return rc;
}
