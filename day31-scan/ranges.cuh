/* ranges.cuh: the machinery of the course's "counts per block" kernels,
 * the two-pass scheme with no look-back: a counting pass, then a placing
 * pass on the same grid, where block b takes the same contiguous range of
 * tiles in both, and each placing block sums every block's counts itself.
 *
 * Used by day33-compaction (the stable partition: countRanges,
 * partitionRanges; one count per block; blockSums also by countEvens) and
 * the exercise's one-pass three-way split (countSplitRanges, splitRanges;
 * two counts per block).
 * A header, not a .cu: tileRange is shared by host and device code, and
 * rangeEachTile and blockSums are templates over the tile shape, the loop's
 * order and the number of sums, compiled where they are used. The tile is
 * tile.cuh's StripedTile.
 *
 * THE IDEA. Both passes run the same grid of G blocks (as many as fit at
 * once). Pass 1: block b reduces its range of tiles (tileRange) and writes
 * its counts to its own slots: every slot is written, so no memset and no
 * atomics. Pass 2: every block reads the G counts (a few hundred), sums
 * them (blockSums), which gives the totals and the counts before its own
 * range, then walks its range carrying the counts from tile to tile
 * (rangeEachTile). No status words, no waiting on another block: a tile's
 * prefix is known the moment the tile is counted. The price: pass 2 must
 * run on pass 1's grid, and each block's share of the work is fixed before
 * it starts (its range), so blocks cannot even out their loads.
 */
#ifndef RANGES_CUH
#define RANGES_CUH

#include <stddef.h>

#include "tile.cuh"

/* Tiles [first, end) of block b of g over tiles tiles: contiguous ranges
 * that differ in length by at most one, in block order (empty for some
 * blocks when g > tiles). A host function too, so that a check can ask
 * which tiles a block's counts cover. */
struct TileRange {
    size_t first, end;
};

__host__ __device__ inline TileRange tileRange(size_t tiles, unsigned b,
                                               unsigned g)
{
    return TileRange{tiles * b / g, tiles * (b + 1) / g};
}

/* Runs body(tile, x) on the tiles of r in order (BACKWARD: last first),
 * x the thread's vectors of the tile (StripedTile::load, pad past n).
 * AHEAD: the next tile's loads are issued before body runs on this one,
 * at the cost of a second set of x's registers. PF: see prefetch, below.
 * No barrier between two calls: body keeps its own shared memory safe. */
template <class Tile, bool AHEAD, bool BACKWARD, int PF = 0, class Body>
__device__ void rangeEachTile(const int *in, size_t n, TileRange r, int pad,
                              Body &body)
{
    if (r.first >= r.end) return;
    const size_t count = r.end - r.first;
    auto tileAt = [&](size_t k) {
        return BACKWARD ? r.end - 1 - k : r.first + k;
    };
    /* PF > 0: with the loads of the range's k-th tile, the L2 prefetch of
     * its (k + PF)-th (with the first, of the 1st to the PF-th). */
    auto prefetch = [&](size_t k) {
        if (k < count)
            prefetchTileL2<Tile::SIZE, Tile::WARPS * 32>(in, tileAt(k), n,
                                                         threadIdx.x);
    };
    auto load = [&](size_t k, int4 (&x)[Tile::VECS]) {
        const size_t base = tileAt(k) * Tile::SIZE;
        Tile::load(in, base, n, Tile::vectorOk(in, base, n), x, pad);
        if constexpr (PF > 0) {
            if (k == 0)
                for (size_t i = 1; i < (size_t)PF; ++i) prefetch(i);
            prefetch(k + PF);
        }
    };
    int4 a[Tile::VECS];
    load(0, a);
    if constexpr (!AHEAD) {
        for (size_t k = 0;;) {
            body(tileAt(k), a);
            if (++k == count) return;
            load(k, a);
        }
    } else {
        /* Unrolled twice, so that the two register sets swap roles
         * without a copy. */
        int4 b[Tile::VECS];
        for (size_t k = 0;; k += 2) {
            if (k + 1 < count) load(k + 1, b);
            body(tileAt(k), a);
            if (k + 1 == count) return;
            if (k + 2 < count) load(k + 2, a);
            body(tileAt(k + 1), b);
            if (k + 2 == count) return;
        }
    }
}

/* A block's sums of K 64-bit values, returned to every thread. One
 * barrier; called once per kernel (its shared words are not guarded for
 * a second call). */
template <int THREADS, int K>
__device__ void blockSums(unsigned long long (&v)[K])
{
    __shared__ unsigned long long warpSum[K][THREADS / 32];
#pragma unroll
    for (int i = 0; i < K; ++i) {
        for (int off = 16; off > 0; off /= 2)
            v[i] += __shfl_xor_sync(0xffffffffu, v[i], off);
        if (threadIdx.x % 32 == 0) warpSum[i][threadIdx.x / 32] = v[i];
    }
    /* Every thread reads every warp's sums. */
    __syncthreads();
#pragma unroll
    for (int i = 0; i < K; ++i) {
        v[i] = 0;
        for (int w = 0; w < THREADS / 32; ++w) v[i] += warpSum[i][w];
    }
}

#endif
