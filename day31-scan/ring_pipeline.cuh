/* ring_pipeline.cuh: the single pass on sm_90 and newer, for any
 * primitive whose tile has an aggregate (the scan's sum, compaction's
 * count of survivors): lookbackPipelined's rounds (lookback.cuh), with the
 * loads moved to a loader warp that keeps a ring of shared-memory stages
 * filled with bulk copies (bulk_ring.cuh) and publishes each tile's
 * aggregate as soon as the tile lands (a look-ahead), so no walk waits on
 * a tile that sits in a ring. ../day31-scan/NOTES.md ("A ring of bulk
 * copies") has how it was found and what it measured.
 *
 * ringPipelined<Tile, Ops, Policy>: a block of Tile's BLOCK tile threads,
 * a walker warp and a loader warp (BLOCK + 64 threads). The ring is the
 * dynamic shared memory: as many stages of one tile (Tile::SIZE ints) as
 * the launch gives (at most RING_MAX_STAGES; the launcher sizes it from
 * the device, ringStageBytes), each with a full and an empty mbarrier.
 *   loader: sums the oldest landed stage it has not summed (stageSum, 32
 *     lanes) and publishes its aggregate (ringPublishAggregate: never over
 *     the tile's prefix); a tile the copy did not bring whole is left to
 *     its tile threads, so the loader never reads global memory, which in
 *     place may be written. Otherwise, when a stage is free (summed, and
 *     read by every tile thread), takes a tile index, writes it in the
 *     stage's header, arms the full barrier with the bytes and starts the
 *     copy. After the last tile it hands PIPE_END through a stage.
 *   tile threads: round k reads stage k mod S into registers (the striped
 *     layout), arrives on its empty barrier and runs reduce; then the
 *     round as in lookbackPipelined: the walker finds tile k - 1's prefix
 *     while they reduce tile k, then they finish tile k - 1 and stash k.
 * The callables are lookbackPipelined's (reduce, finish, stash; sync is
 * named barrier 1 of the tile threads), and one more:
 *   stageSum(v, vecs) -> T   by the loader's 32 lanes: the aggregate of
 *       the vecs int4s at v (a whole tile, as the copy brought it), in
 *       lane 0 at least.
 * The grid must be resident (the launcher's: the blocks an SM the ring was
 * sized for). An input off 16 bytes has no bulk copies (its stages carry
 * only the index; the tile threads load from global memory). outAligned:
 * whether the caller's output allows 16-byte vectors (vec is that, in's
 * alignment and a whole tile).
 * Deadlock-free: a whole tile's aggregate is published once its bytes
 * land, whatever its block's tile threads do; any other tile's, by its
 * tile threads before its walk. Take the lowest tile whose aggregate is
 * not published: every tile below it has one, so the walks of its block's
 * earlier tiles end and its tile threads reach it (the grid is resident).
 * Compiled below sm_90 (a compute_75 or compute_80 build, even run on an
 * H200) the kernels that call it trap; their launchers never start them
 * there (ringStageBytes reads the kernel's PTX version).
 */
#ifndef RING_PIPELINE_CUH
#define RING_PIPELINE_CUH

#include <stdint.h>

#include "bulk_ring.cuh"
#include "lookback.cuh"

#ifdef RING_SM90
/* The loader's publish of a tile's aggregate. The tile's own walker may
 * already have published its inclusive prefix (it walks as soon as the
 * tile threads have reduced the tile, and the loader may sum it later):
 * so the aggregate goes in only over an invalid word (a compare and swap),
 * never over a prefix, which would send every later walk further back.
 * Tile 0's is its prefix. stallNs: the look-back's debug stalls. */
template <class Ops, class Policy>
__device__ inline void ringPublishAggregate(unsigned long long *state,
                                            unsigned tile,
                                            typename Ops::value_type a,
                                            unsigned stallNs)
{
    unsigned long long *status = state + 1;
    if (tile == 0) {
        lookbackPublish<Policy::RELAXED>(&status[0],
                                         Ops::bits(a) | LOOKBACK_PREFIX);
        return;
    }
    if (stallNs && lookbackStallsAggregate(tile)) __nanosleep(stallNs);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(
        status[tile]);
    unsigned long long expected = LOOKBACK_INVALID;
    w.compare_exchange_strong(expected, Ops::bits(a) | LOOKBACK_AGGREGATE,
                              Policy::RELAXED ? cuda::memory_order_relaxed
                                              : cuda::memory_order_release,
                              cuda::memory_order_relaxed);
}

/* The sum over the warp of each lane's v, in every lane. */
__device__ inline unsigned ringWarpSum(unsigned v)
{
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

/* A landed stage's sum, v[0..vecs) as ints wrapping as int adds do, in
 * every lane of the loader warp (a StageSum, below, for a scan). */
__device__ inline int ringStageIntSum(const int4 *v, unsigned vecs)
{
    unsigned sum = 0;
    for (unsigned i = threadIdx.x % 32; i < vecs; i += 32)
        sum += (unsigned)v[i].x + (unsigned)v[i].y + (unsigned)v[i].z +
               (unsigned)v[i].w;
    return (int)ringWarpSum(sum);
}

template <class Tile, class Ops, class Policy, int PF = 0, class StageSum,
          class Reduce, class Finish, class Stash>
__device__ void ringPipelined(unsigned long long *state,
                              PipeSlots<typename Ops::value_type> &sl,
                              const int *in, size_t n, bool outAligned,
                              int pad, unsigned stallNs,
                              typename Ops::value_type *total,
                              StageSum &stageSum, Reduce &reduce,
                              Finish &finish, Stash &stash)
{
    typedef typename Ops::value_type T;
    constexpr int BLOCK = Tile::WARPS * 32;
    constexpr unsigned TILE_BYTES = Tile::SIZE * sizeof(int);
    extern __shared__ int4 ring[];   /* S stages of Tile::SIZE / 4 */
    __shared__ uint64_t fullBar[RING_MAX_STAGES], emptyBar[RING_MAX_STAGES];
    __shared__ unsigned stageTile[RING_MAX_STAGES];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> roundBar;

    unsigned S = ringDynamicBytes() / TILE_BYTES;
    S = S < RING_MAX_STAGES ? S : RING_MAX_STAGES;
    if (S < 2) __trap();
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool bulk = (uintptr_t)in % 16 == 0;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < S; ++s) {
            ringBarInit(&fullBar[s], 1);
            ringBarInit(&emptyBar[s], BLOCK);
        }
        init(&roundBar, BLOCK + 32);
    }
    __syncthreads();   /* the barriers ready; no __syncthreads after this */

    /* The ints of the tile at base, and of those the ones its bulk copy
     * brings (whole 16-byte pieces; none without bulk copies): the rest
     * are read from global memory. */
    auto tileValid = [&](size_t base) {
        return n - base < (size_t)Tile::SIZE ? n - base : (size_t)Tile::SIZE;
    };
    auto tileCopied = [&](size_t valid) {
        return bulk ? (valid * sizeof(int) & ~(size_t)15) / sizeof(int)
                    : (size_t)0;
    };
    const int lane = threadIdx.x % 32;
    if (threadIdx.x >= BLOCK + 32) {
        /* The loader warp: a landed stage is summed first (its aggregate
         * is what other blocks' walks wait on), then a free stage is
         * filled; it blocks only when neither can be done. */
        unsigned issued = 0, summed = 0;
        bool ended = false;
        for (;;) {
            /* Every branch below is taken by the whole warp (its lanes
             * meet in __shfl_sync with every lane named), so what a lane
             * reads of a barrier's phase is lane 0's, for all of them:
             * two lanes may see a phase complete at different moments. */
            if (summed < issued &&
                ringUniform(ringDone(&fullBar[summed % S], (summed / S) & 1))) {
                const unsigned s = summed % S;
                /* Each lane observes the phase itself (at once: it has
                 * completed), which orders the copy's bytes before its
                 * reads of them, not only lane 0's. */
                ringWait(&fullBar[s], (summed / S) & 1);
                ++summed;
                const unsigned tile = stageTile[s];
                if (tile == PIPE_END) continue;
                const size_t valid = tileValid((size_t)tile * Tile::SIZE);
                const size_t copied = tileCopied(valid);
                /* A tile the copy did not bring whole (the last one's
                 * tail, an input off 16 bytes) has its aggregate published
                 * by its tile threads: the loader never reads global
                 * memory, which in place the tile threads may already
                 * have overwritten. */
                if (copied < valid) continue;
                const T a = stageSum(ring + (size_t)s * (Tile::SIZE / 4),
                                     (unsigned)(copied / 4));
                if (lane == 0)
                    ringPublishAggregate<Ops, Policy>(state, tile, a, stallNs);
                continue;
            }
            bool issue = !ended && issued - summed < S;
            if (issue && issued >= S)
                issue = ringUniform(
                    ringDone(&emptyBar[issued % S], (issued / S - 1) & 1));
            if (issue) {
                const unsigned s = issued % S;
                unsigned tile = 0;
                if (lane == 0) tile = lookbackTakeTile(state);
                tile = __shfl_sync(0xffffffffu, tile, 0);
                /* The other lanes' reads of this stage (their sums) before
                 * lane 0's fence and copy into it. */
                __syncwarp();
                if (lane == 0) {
                    if (tile >= tiles) {
                        stageTile[s] = PIPE_END;
                        ringArrive(&fullBar[s]);
                    } else {
                        stageTile[s] = tile;
                        const size_t base = (size_t)tile * Tile::SIZE;
                        const unsigned bytes = (unsigned)(
                            tileCopied(tileValid(base)) * sizeof(int));
                        if (bytes) {
                            /* Our own reads of this stage (the sum) came
                             * before, in the generic proxy. */
                            asm volatile("fence.proxy.async.shared::cta;" ::
                                             : "memory");
                            ringArriveExpect(&fullBar[s], bytes);
                            ringBulkLoad(ring + (size_t)s * (Tile::SIZE / 4),
                                         in + base, bytes, &fullBar[s]);
                        } else {
                            ringArrive(&fullBar[s]);
                        }
                    }
                }
                /* PF > 0: the L2 prefetch of the tile taken PF rounds
                 * later, about (every block's loader takes one a round). */
                if constexpr (PF > 0)
                    if (tile < tiles)
                        prefetchTileL2<Tile::SIZE, 32>(
                            in, (size_t)tile + (size_t)PF * gridDim.x, n,
                            lane);
                ended = tile >= tiles;
                ++issued;
                continue;
            }
            if (summed < issued) {
                ringWait(&fullBar[summed % S], (summed / S) & 1);
                continue;
            }
            if (ended) return;
            ringWait(&emptyBar[issued % S], (issued / S - 1) & 1);
        }
    }

    /* The tile threads and the walker: lookbackPipelined's rounds, a
     * tile's ints from the ring. */
    auto sync = [] { Tile::tileBarrier(); };
    auto next = [&](unsigned k, int4(&x)[Tile::VECS], size_t &base,
                    bool &vec, bool &publish) {
        const unsigned s = k % S;
        ringWait(&fullBar[s], (k / S) & 1);
        const unsigned tile = stageTile[s];
        if (tile == PIPE_END) return PIPE_END;
        base = (size_t)tile * Tile::SIZE;
        vec = bulk && outAligned && Tile::vectorOk(in, base, n);
        const int4 *v = ring + (size_t)s * (Tile::SIZE / 4);
        const size_t valid = tileValid(base);
        const size_t copied = tileCopied(valid);
        if (copied == Tile::SIZE) {
#pragma unroll
            for (int j = 0; j < Tile::VECS; ++j)
                x[j] = v[threadIdx.x + j * BLOCK];
        } else {
            const int *e = reinterpret_cast<const int *>(v);
#pragma unroll
            for (int j = 0; j < Tile::VECS; ++j) {
                const size_t i = 4 * ((size_t)threadIdx.x + (size_t)j * BLOCK);
                int w[4];
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    w[c] = i + c < copied  ? e[i + c]
                           : i + c < valid ? in[base + i + c]
                                           : pad;
                x[j] = make_int4(w[0], w[1], w[2], w[3]);
            }
        }
        ringArrive(&emptyBar[s]);
        /* Not summed by the loader (above): published by thread 0 once
         * reduced, before the walker walks it. */
        publish = copied < valid;
        return tile;
    };
    pipeRounds<Tile, Ops, Policy>(state, sl, roundBar, tiles, stallNs, total,
                                  next, sync, reduce, finish, stash);
}
#endif

#endif
