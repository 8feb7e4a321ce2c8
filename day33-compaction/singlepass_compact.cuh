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
 * tile's loads keep memory busy. On sm_90 and newer the loads can come
 * from a ring of bulk copies that a loader warp keeps filled and counts
 * (compactRing; THE TWO PATHS, below), slower so far.
 *
 * CONTRACT of compactRun<Keep>(plan, in, out, n, state, count, grid,
 * stallNs, stream), either path:
 * - Stable: out[0..m) holds the elements of in that Keep keeps, in input
 *   order; nothing is written at or past out[m], and in is not written.
 * - in and out must not overlap (both __restrict__: the kernel may keep a
 *   value of in in a register across its stores to out).
 * - The count m lands in the device int *count, written once, by the
 *   walker warp of the block that takes the last tile (its inclusive
 *   prefix). The kernel never reads it back: the next kernel on the stream
 *   (or the host, after a synchronisation) may.
 * - state: lookbackBytes of the plan's tiles, (n + tile - 1) / tile, at
 *   most that of n / 4096 + 1 (compactRun clears them with a memset).
 * - Blocks take tiles from a counter in state, never by blockIdx.x
 *   (lookback.cuh's DEADLOCK): the piped loop is correct on any grid of at
 *   least one block; the ring on any from one to plan->resident (its
 *   grid must be resident). compactRun caps it at the tiles.
 * - 0 < n < 2^31. n = 0 launches nothing and writes 0 to *count.
 * - stallNs: 0 in every timed run; > 0 turns on the look-back's debug
 *   stalls (lookback.cuh), which the self-check uses to force long walks.
 * - Keep: predicates.cuh's promise (a value it rejects pads a partial tile).
 */
#ifndef SINGLEPASS_COMPACT_CUH
#define SINGLEPASS_COMPACT_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "hx_cuda.h"
#include "predicates.cuh"
#include "lookback.cuh"
#include "ring_pipeline.cuh"

/* The production configuration: 256 tile threads of 32 ints each (tiles of
 * 8,192 ints), a walker warp, relaxed atomics with a window of 32 tiles,
 * the tile warps meeting at named barrier 1. dev/compaction_variants.cu
 * measures it against the shapes and schemes that lost. */
#define COMPACT_THREADS 256
#define COMPACT_ITEMS 32
#define COMPACT_BLOCK (COMPACT_THREADS + 32)
/* The ring (below, THE TWO PATHS): the scan's shape. */
#define COMPACT_RING_THREADS 256
#define COMPACT_RING_ITEMS 16
#define COMPACT_RING_BLOCK (COMPACT_RING_THREADS + 64)
#define COMPACT_RING_PER_SM 2
typedef LookbackRelaxed32 CompactPolicy;

/* The tile loop of both paths (RING: ring_pipeline.cuh's, else
 * lookbackPipelined), THREADS tile threads of ITEMS ints. */
template <class Keep, int THREADS, int ITEMS, int SYNC, bool RING>
__device__ void compactTileLoop(const int *__restrict__ in,
                                int *__restrict__ out, size_t n,
                                unsigned long long *state, int *count,
                                unsigned stallNs)
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
     * stash, once the walker has the prefix: the survivors leave as
     * 16-byte stores, shifted to out's offset modulo 4 on the way
     * (storeShifted). */
    auto finish = [&](unsigned, size_t, bool, int prefix, int kept) {
        storeShifted<THREADS>(out, staged, (size_t)(unsigned)prefix,
                              (unsigned)kept, vecOut);
    };
    /* REJECT pads a partial tile: it is not kept. */
    if constexpr (RING) {
#ifdef RING_SM90
        /* The loader's count of a landed stage's survivors. */
        auto stageSum = [](const int4 *q, unsigned vecs) {
            unsigned c = 0;
            for (unsigned i = threadIdx.x % 32; i < vecs; i += 32)
                c += Keep()(q[i].x) + Keep()(q[i].y) + Keep()(q[i].z) +
                     Keep()(q[i].w);
            return (int)ringWarpSum(c);
        };
        ringPipelined<Tile, LookbackSum, CompactPolicy>(
            state, slots, in, n, true, Keep::REJECT, stallNs, count,
            stageSum, reduce, finish, stash);
#else
        __trap();
#endif
    } else {
        lookbackPipelined<Tile, LookbackSum, CompactPolicy, SYNC>(
            state, slots, in, n, true, Keep::REJECT, stallNs, count, reduce,
            finish, stash);
    }
}

/* THREADS, ITEMS and SYNC have the production values by default; the
 * maintainers' variants instantiate others (with THREADS + 32 threads a
 * block and lookbackBytes of their own tile count). */
template <class Keep, int THREADS = COMPACT_THREADS,
          int ITEMS = COMPACT_ITEMS, int SYNC = PIPE_NAMED>
__global__ void __launch_bounds__(THREADS + 32, 1)
compactPiped(const int *__restrict__ in, int *__restrict__ out, size_t n,
             unsigned long long *state, int *count, unsigned stallNs)
{
    compactTileLoop<Keep, THREADS, ITEMS, SYNC, false>(in, out, n, state,
                                                       count, stallNs);
}

/* The ring's kernel: THREADS + 64 threads a block (a walker and a loader
 * warp), the ring in the dynamic shared memory, a resident grid. */
template <class Keep, int THREADS = COMPACT_RING_THREADS,
          int ITEMS = COMPACT_RING_ITEMS>
__global__ void __launch_bounds__(THREADS + 64, 1)
compactRing(const int *__restrict__ in, int *__restrict__ out, size_t n,
            unsigned long long *state, int *count, unsigned stallNs)
{
    compactTileLoop<Keep, THREADS, ITEMS, PIPE_NAMED, true>(in, out, n, state,
                                                           count, stallNs);
}

/* THE TWO PATHS: the piped loop (compactPiped), production on every GPU
 * (compactPlanCreate, below), and the ring (compactRing:
 * ../day31-scan/ring_pipeline.cuh's loader warp and bulk copies, tiles of
 * 256 x 16 ints, 2 blocks an SM, the stages sized from the SM's shared
 * memory), which runs on sm_90 and newer only. */
typedef enum { COMPACT_PIPED, COMPACT_RING } CompactPath;

typedef struct {
    CompactPath path;
    size_t tile;         /* ints */
    unsigned resident;   /* blocks at once: the production grid */
    size_t smem;         /* the ring's stages, bytes (else 0) */
} CompactPlan;

/* A plan for the given path on dev; 0 (and no plan) where the ring cannot
 * run there. */
template <class Keep>
int compactPlanOn(CompactPlan *p, const hx_device *dev, CompactPath path)
{
    p->path = path;
    p->smem = 0;
    if (path == COMPACT_PIPED) {
        p->tile = COMPACT_THREADS * COMPACT_ITEMS;
        p->resident = hx_resident_blocks(
            dev, (const void *)compactPiped<Keep>, COMPACT_BLOCK, 0);
        return 1;
    }
    const void *k = (const void *)compactRing<Keep>;
    p->tile = COMPACT_RING_THREADS * COMPACT_RING_ITEMS;
    p->smem = ringStageBytes(dev, k, p->tile * sizeof(int),
                             COMPACT_RING_PER_SM);
    p->resident = ringResident(dev, k, COMPACT_RING_BLOCK, p->smem,
                               COMPACT_RING_PER_SM);
    return p->resident > 0;
}

/* The production plan on dev: the piped loop, on every GPU. The ring
 * ran slower on the H200 at 2^28 (1.40 to 2.21x its floor against the
 * piped loop's 1.23 to 1.36; NOTES.md): the course checks it (compaction
 * --check) and dev/compaction-variants times its shapes until one wins. */
template <class Keep>
void compactPlanCreate(CompactPlan *p, const hx_device *dev)
{
    compactPlanOn<Keep>(p, dev, COMPACT_PIPED);
}

/* One compaction on stream s: the memset of the look-back's state, then
 * the plan's kernel on min(grid, tiles) blocks (grid 0: p->resident; any
 * grid from 1 to that is correct). n = 0 writes 0 to *count and launches
 * nothing. Returns the first error (the launch's configuration errors
 * included; a fault inside the kernel shows at the next synchronising
 * call). */
template <class Keep>
cudaError_t compactRun(const CompactPlan *p, const int *in, int *out,
                       size_t n, unsigned long long *state, int *count,
                       unsigned grid, unsigned stallNs, cudaStream_t s)
{
    if (n == 0) return cudaMemsetAsync(count, 0, sizeof(int), s);
    const size_t tiles = (n + p->tile - 1) / p->tile;
    const cudaError_t e = cudaMemsetAsync(state, 0, lookbackBytes(tiles), s);
    if (e != cudaSuccess) return e;
    grid = grid ? grid : p->resident;
    grid = tiles < grid ? (unsigned)tiles : grid;
    if (p->path == COMPACT_RING)
        compactRing<Keep><<<grid, COMPACT_RING_BLOCK, p->smem, s>>>(
            in, out, n, state, count, stallNs);
    else
        compactPiped<Keep><<<grid, COMPACT_BLOCK, 0, s>>>(in, out, n, state,
                                                          count, stallNs);
    return cudaGetLastError();
}

#endif
