/* stable_partition.cuh: the stable two-way partition as a counting pass
 * and one placing pass, the course's production kernels.
 *
 * The kept elements go first, then the others, each group in input order:
 * a kept element to its rank among the kept, any other to E (the number
 * kept) plus its rank among the others. E is known only once every
 * element has been looked at, so a pass that only reads (countRanges)
 * comes first, and the placing pass (partitionRanges) reads and writes:
 * 3n ints of traffic for every mix. That is this scheme's price, not every
 * stable scheme's: writing the others backwards from the end of out and
 * turning them round moves 2n plus twice the others. Counting first costs
 * the same for every mix, and no block waits for another.
 *
 * The scheme is "counts per block" (../day31-scan/ranges.cuh): both passes
 * run the same grid of G blocks, and block b takes the same contiguous
 * range of tiles in both (tileRange). The counting pass leaves one count
 * per block; each placing block sums the G counts itself (E, and the kept
 * elements before its range) and walks its range carrying the count from
 * tile to tile: no look-back, no status words, no waiting on another
 * block, no memset. It walks BACKWARD, from the end of its range, so the
 * tiles the counting pass read last, still in the L2, are read first.
 *
 * CONTRACT of stablePartitionRun<Keep>(in, out, n, blockKept, count, grid):
 * - Stable: out[0..E) holds the elements Keep keeps, in input order, and
 *   out[E..n) the others, in input order. Every slot of out[0..n) is
 *   written once; nothing outside it; in is not written.
 * - in and out must not overlap (__restrict__).
 * - E lands in the device int *count, written by block 0 of the placing
 *   pass; nothing reads it back.
 * - blockKept: room for min(grid, tiles) 64-bit words; the counting pass
 *   writes every one before the placing pass reads them (no reset).
 * - Any grid of at least one block is correct, the same for both passes
 *   (the launcher caps it at the tiles); as many as fit on the GPU at once
 *   is the production choice. PARTITION_THREADS threads a block.
 * - 0 < n < 2^31; n = 0 writes 0 to *count and launches nothing.
 * - Keep: predicates.cuh's promise (a value it rejects pads a partial tile, so
 *   that the pads sort after every real element).
 */
#ifndef STABLE_PARTITION_CUH
#define STABLE_PARTITION_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "predicates.cuh"
#include "ranges.cuh"

/* The production configuration: 256 threads of 16 ints (tiles of 4,096),
 * 4 blocks an SM, the next tile's loads in flight while one is placed,
 * ranges walked backward. dev/compaction_variants.cu measures it against
 * the shapes, orders and the look-back scheme that lost. */
#define PARTITION_THREADS 256
#define PARTITION_ITEMS 16
#define PARTITION_MIN_BLOCKS 4

__host__ __device__ constexpr size_t partitionTiles(size_t n)
{
    return (n + PARTITION_THREADS * PARTITION_ITEMS - 1) /
           (PARTITION_THREADS * PARTITION_ITEMS);
}

/* Stages and writes one tile, by every thread of the block, once warp 0's
 * partials for the tile are visible (the caller's barrier after scanUp).
 * x: the thread's vectors (pads past n, not kept); v: scanUp's result over
 * Keep; tileKept: kept in the tile; keptBase: kept before it; otherBase: E
 * plus the others before it; inTile: its real elements. The kept elements
 * are staged at their rank, the others (pads last) after them, each run at
 * out's offset modulo 4 (stagedFrom); both runs leave through storeStaged,
 * as 16-byte vectors when vec. Also the look-back partition's, in dev/. */
template <class Keep, int THREADS, int ITEMS>
__device__ void placePartitionTile(
    int *out, int *staged,
    const typename StripedTile<THREADS, ITEMS>::Storage &st,
    const int4 (&x)[ITEMS / 4], const unsigned (&v)[ITEMS / 4],
    unsigned tileKept, size_t keptBase, size_t otherBase, unsigned inTile,
    bool vec)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    const unsigned keptFrom = stagedFrom(0, keptBase);
    const unsigned otherFrom =
        stagedFrom((keptFrom + tileKept + 3) & ~3u, otherBase);
#pragma unroll
    for (int j = 0; j < Tile::VECS; ++j) {
        /* Element c of this vector sits at tile index local + c. */
        const unsigned local = 4u * (threadIdx.x + (unsigned)j * THREADS);
        const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
        const unsigned own = Keep()(e[0]) + Keep()(e[1]) + Keep()(e[2]) +
                             Keep()(e[3]);
        unsigned kept = Tile::exclusiveOf(j, v[j], own, st);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const unsigned other = local + c - kept;   /* others before it */
            staged[Keep()(e[c]) ? keptFrom + kept : otherFrom + other] = e[c];
            kept += Keep()(e[c]);
        }
    }
    /* Every thread's elements are in staged before any thread copies a
     * run out of it. */
    __syncthreads();
    const StagedRun runs[2] = {{keptBase, keptFrom, tileKept},
                               {otherBase, otherFrom, inTile - tileKept}};
    storeStaged<THREADS>(out, staged, runs, vec);
}

/* Pass 1: blockKept[b] = the elements Keep keeps in block b's range of
 * tiles (tileRange over gridDim.x blocks), for every block b. Only reads:
 * n ints. */
template <class Keep, int THREADS = PARTITION_THREADS,
          int ITEMS = PARTITION_ITEMS, bool AHEAD = true, int PF = 0>
__global__ void __launch_bounds__(THREADS)
countRanges(const int *__restrict__ in, size_t n,
            unsigned long long *__restrict__ blockKept)
{
    static_assert(keptOk<Keep>(), "Keep must reject Keep::REJECT");
    typedef StripedTile<THREADS, ITEMS> Tile;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    unsigned mine = 0;
    auto body = [&](size_t, int4 (&x)[Tile::VECS]) {
        unsigned v[Tile::VECS];
        keptPerVector<Keep>(x, v);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) mine += v[j];
    };
    rangeEachTile<Tile, AHEAD, false, PF>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), Keep::REJECT, body);
    unsigned long long sum[1] = {mine};
    blockSums<THREADS>(sum);
    if (threadIdx.x == 0) blockKept[blockIdx.x] = sum[0];
}

/* Pass 2: the stable partition of in into out, on the grid countRanges
 * ran with, after it (blockKept as it left them). Block b places its range
 * of tiles; block 0 leaves E in *count. */
template <class Keep, int THREADS = PARTITION_THREADS,
          int ITEMS = PARTITION_ITEMS, int MIN_BLOCKS = PARTITION_MIN_BLOCKS,
          bool AHEAD = true, bool BACKWARD = true, int PF = 0>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
partitionRanges(const int *__restrict__ in, int *__restrict__ out, size_t n,
                const unsigned long long *__restrict__ blockKept, int *count)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ __align__(16) int staged[STAGED_INTS(Tile::SIZE, 2)];
    __shared__ unsigned tileKeptSlot;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool vecOut = (uintptr_t)out % 16 == 0;

    /* sums[0]: kept up to the end of this block's range; sums[1]: E. */
    unsigned long long sums[2] = {0, 0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS) {
        const unsigned long long c = blockKept[b];
        sums[0] += b <= blockIdx.x ? c : 0;
        sums[1] += c;
    }
    blockSums<THREADS>(sums);
    const size_t kept = sums[1];
    if (blockIdx.x == 0 && threadIdx.x == 0) *count = (int)kept;
    /* Kept before the next tile walked (forward), or before the end of the
     * last one walked (BACKWARD). */
    size_t run = BACKWARD ? sums[0] : sums[0] - blockKept[blockIdx.x];

    auto body = [&](size_t tile, int4 (&x)[Tile::VECS]) {
        const size_t base = tile * Tile::SIZE;
        const unsigned inTile =
            n - base < (size_t)Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        keptPerVector<Keep>(x, v);
        /* scanUp's barrier also orders the previous tile's readers of st,
         * staged and tileKeptSlot (all before placePartitionTile's
         * barrier) before any write of this tile. */
        const unsigned aggregate = Tile::scanUp(v, st);
        if (threadIdx.x == 0) tileKeptSlot = aggregate;
        /* Everyone reads tileKeptSlot and warp 0's partials. */
        __syncthreads();
        const unsigned tileKept = tileKeptSlot;
        const size_t keptBase = BACKWARD ? run - tileKept : run;
        run = BACKWARD ? keptBase : run + tileKept;
        placePartitionTile<Keep, THREADS, ITEMS>(
            out, staged, st, x, v, tileKept, keptBase,
            kept + (base - keptBase), inTile, vecOut);
    };
    /* REJECT pads: not kept, so placed after every real element. */
    rangeEachTile<Tile, AHEAD, BACKWARD, PF>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), Keep::REJECT, body);
}

/* One stable partition on stream s: both passes on min(grid, tiles)
 * blocks. n = 0 writes 0 to *count and launches nothing. Returns the
 * first error (configuration errors of either launch included). */
template <class Keep>
cudaError_t stablePartitionRun(const int *in, int *out, size_t n,
                               unsigned long long *blockKept, int *count,
                               unsigned grid, cudaStream_t s)
{
    if (n == 0) return cudaMemsetAsync(count, 0, sizeof(int), s);
    const size_t tiles = partitionTiles(n);
    const unsigned g = tiles < grid ? (unsigned)tiles : grid;
    countRanges<Keep><<<g, PARTITION_THREADS, 0, s>>>(in, n, blockKept);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    partitionRanges<Keep><<<g, PARTITION_THREADS, 0, s>>>(in, out, n,
                                                          blockKept, count);
    return cudaGetLastError();
}

#endif
