/* singlepass_compact.cuh: stream compaction in one pass over memory, the
 * course's production kernel. It reads in[0..n) once and writes only the
 * elements it keeps: n + m ints of traffic, the least compaction can move.
 *
 * The machinery is day 31's (../day31-scan/lookback.cuh, whose comments
 * walk through it): tiles taken in start order, a status word per tile, the
 * decoupled look-back, the striped tile, and the pipelined tile loop, in
 * which a walker warp walks back for one tile while the block's other
 * warps load the next. Here the aggregate a tile publishes is its count of
 * survivors (LookbackSum over counts, which stay below 2^31 as n does).
 *
 * A survivor cannot be stored before the look-back has found its tile's
 * prefix: where it goes depends on every tile before it. So a tile's
 * survivors wait in shared memory, at their rank in the tile (stash), and
 * leave once the walker hands the prefix back (finish), while the next
 * tile's loads keep memory busy.
 *
 * CONTRACT of compactPiped<Keep>(in, out, n, state, count, stallNs):
 * - Stable: out[0..m) holds the elements of in that Keep keeps, in input
 *   order; nothing is written at or past out[m], and in is not written.
 * - in and out must not overlap (both __restrict__: the kernel may keep a
 *   value of in in a register across its stores to out).
 * - The count m lands in the device int *count, written once, by the
 *   walker warp of the block that takes the last tile (its inclusive
 *   prefix). The kernel never reads it back: the next kernel on the stream
 *   (or the host, after a synchronisation) may.
 * - state: lookbackBytes(compactTiles(n)) bytes of device memory, all zero
 *   at launch (compactPipedRun clears them with a memset first).
 * - Any grid of at least one block is correct (blocks take tiles from a
 *   counter in state, never by blockIdx.x: lookback.cuh's DEADLOCK); the
 *   launcher caps it at the tiles. Each block is COMPACT_BLOCK threads:
 *   THREADS tile threads, then the walker warp.
 * - 0 < n < 2^31. For n = 0 launch nothing (compactPipedRun writes 0 to
 *   *count).
 * - stallNs: 0 in every timed run; > 0 turns on the look-back's debug
 *   stalls (lookback.cuh), which the self-check uses to force long walks.
 * - Keep: predicates.cuh's promise (a value it rejects pads a partial tile).
 */
#ifndef SINGLEPASS_COMPACT_CUH
#define SINGLEPASS_COMPACT_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "predicates.cuh"
#include "lookback.cuh"

/* The production configuration: 256 tile threads of 32 ints each (tiles of
 * 8,192 ints), a walker warp, relaxed atomics with a window of 32 tiles,
 * the tile warps meeting at named barrier 1. dev/compaction_variants.cu
 * measures it against the shapes and schemes that lost. */
#define COMPACT_THREADS 256
#define COMPACT_ITEMS 32
#define COMPACT_BLOCK (COMPACT_THREADS + 32)
typedef LookbackRelaxed32 CompactPolicy;

__host__ __device__ constexpr size_t compactTiles(size_t n)
{
    return (n + COMPACT_THREADS * COMPACT_ITEMS - 1) /
           (COMPACT_THREADS * COMPACT_ITEMS);
}

/* THREADS, ITEMS and SYNC have the production values by default, PF
 * (the L2 prefetch, below) 0; the maintainers' variants
 * instantiate others (with THREADS + 32 threads a block and lookbackBytes
 * of their own tile count). */
template <class Keep, int THREADS = COMPACT_THREADS,
          int ITEMS = COMPACT_ITEMS, int SYNC = PIPE_NAMED, int PF = 0>
__global__ void __launch_bounds__(THREADS + 32, 1)
compactPiped(const int *__restrict__ in, int *__restrict__ out, size_t n,
             unsigned long long *state, int *count, unsigned stallNs)
{
    static_assert(keptOk<Keep>(), "Keep must reject Keep::REJECT");
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ PipeSlots<int> slots;
    /* One tile's survivors, and room for the ints past the last one that
     * storeShifted reads (4 at most). */
    __shared__ __align__(16) int staged[Tile::SIZE + 8];
    const bool vecOut = (uintptr_t)out % 16 == 0;
    unsigned v[Tile::VECS];   /* reduce's scanned counts, for stash */

    /* By the tile threads: count the survivors of each vector and scan the
     * counts across the tile. scanUpWith's one barrier lets warp 0 read
     * every warp's totals; it returns the tile's count in thread 0. */
    auto reduce = [&](unsigned, size_t, bool, int4 (&x)[Tile::VECS],
                      auto sync) {
        keptPerVector<Keep>(x, v);
        return (int)Tile::scanUpWith(v, st, sync);
    };
    /* By the tile threads: each survivor to staged, at its rank in the
     * tile. */
    auto stash = [&](const int4 (&x)[Tile::VECS], auto sync) {
        /* Two orders in one barrier: every tile thread has finished the
         * previous tile (whose finish read staged), and warp 0's scanned
         * partials in st are visible to all. */
        sync();
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
            const unsigned own = Keep()(e[0]) + Keep()(e[1]) +
                                 Keep()(e[2]) + Keep()(e[3]);
            unsigned at = Tile::exclusiveOf(j, v[j], own, st);
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (Keep()(e[c])) staged[at++] = e[c];
        }
    };
    /* By the tile threads, after the round's barrier that follows the
     * stash (lookbackPipelined), once the walker has the prefix: the
     * survivors leave as 16-byte stores, shifted to out's offset modulo 4
     * on the way (storeShifted). */
    auto finish = [&](unsigned, size_t, bool, int prefix, int kept) {
        storeShifted<THREADS>(out, staged, (size_t)(unsigned)prefix,
                              (unsigned)kept, vecOut);
    };
    /* REJECT pads a partial tile: it is not kept. */
    lookbackPipelined<Tile, LookbackSum, CompactPolicy, SYNC, PF>(
        state, slots, in, n, true, Keep::REJECT, stallNs, count, reduce,
        finish, stash);
}

/* THE L2 PREFETCH. prefetch 1: with each tile's loads, the tile threads
 * ask the L2 for the tile taken a round later (lookbackPipelined's PF 1),
 * so that its loads find it there. The production choice
 * (compactPrefetchFor): on where a round's tiles, grid x a tile, fit in a
 * quarter of the L2 (day 31's prefetchRoundFits, tile.cuh); off on a small
 * L2. Either way the output is the same. */
template <class Keep>
constexpr auto compactKernel(int prefetch)
{
    return prefetch ? compactPiped<Keep, COMPACT_THREADS, COMPACT_ITEMS,
                                   PIPE_NAMED, 1>
                    : compactPiped<Keep>;
}

inline int compactPrefetchFor(size_t l2Bytes, unsigned grid)
{
    return prefetchRoundFits(
        (size_t)grid * COMPACT_THREADS * COMPACT_ITEMS * sizeof(int), l2Bytes);
}

/* One compaction on stream s: the memset of the look-back's state, then
 * the kernel on min(grid, tiles) blocks (grid >= 1: as many as fit on the
 * GPU at once is the production choice), with the L2 prefetch or without
 * (above). n = 0 writes 0 to *count and launches nothing. Returns the
 * first error (the launch's configuration errors included; a fault inside
 * the kernel shows at the next synchronising call). */
template <class Keep>
cudaError_t compactPipedRun(const int *in, int *out, size_t n,
                            unsigned long long *state, int *count,
                            unsigned grid, int prefetch, unsigned stallNs,
                            cudaStream_t s)
{
    if (n == 0) return cudaMemsetAsync(count, 0, sizeof(int), s);
    const size_t tiles = compactTiles(n);
    const cudaError_t e = cudaMemsetAsync(state, 0, lookbackBytes(tiles), s);
    if (e != cudaSuccess) return e;
    compactKernel<Keep>(prefetch)<<<tiles < grid ? (unsigned)tiles : grid,
                                    COMPACT_BLOCK, 0, s>>>(in, out, n, state,
                                                           count, stallNs);
    return cudaGetLastError();
}

#endif
