/* ring_scan.cuh: the production scan's kernel on sm_90 and newer
 * (singlepass_scan.cuh chooses it; the piped loop stays the sm_75 and
 * sm_80 path). Its loads move to a loader warp that keeps a ring of
 * shared-memory stages filled with bulk copies (bulk_ring.cuh) and
 * publishes each tile's aggregate as soon as the tile lands (a look-ahead),
 * so no walk waits on a tile that sits in a ring. NOTES.md ("A ring of
 * bulk copies") has how it was found and what it measured.
 *
 * singlePassScanRing<BLOCK, ITEMS, Policy>: BLOCK tile threads, a walker
 * warp and a loader warp (BLOCK + 64 threads). The ring is the dynamic
 * shared memory: as many stages of one tile (BLOCK * ITEMS ints) as the
 * launch gives (at most RING_MAX_STAGES; the launcher sizes it from the
 * device), each with a full and an empty mbarrier.
 *   loader: sums the oldest landed stage it has not summed (32 lanes) and
 *     publishes its aggregate (ringPublishAggregate: never over the
 *     tile's prefix); a tile the copy did not bring whole is left to its
 *     tile threads, so the loader never reads global memory, which in
 *     place may be written. Otherwise, when a stage is free (summed, and
 *     read by every tile thread), takes a tile index, writes it in the
 *     stage's header, arms the full barrier with the bytes and starts the
 *     copy. After the last tile it hands PIPE_END through a stage.
 *   tile threads: round k reads stage k mod S into registers (the piped
 *     kernel's striped layout), arrives on its empty barrier, scans the
 *     tile and hands it to the walker; then lookbackPipelined's round
 *     (lookback.cuh): the walker finds tile k - 1's prefix while they scan
 *     tile k, then they add it and store with int4 stores.
 * The contract is singlePassScan's, except that the grid must be resident
 * (the launcher's: the blocks an SM the ring was sized for). An input off
 * 16 bytes has no bulk copies (its stages carry only the index; the tile
 * threads load from global memory).
 * Deadlock-free: a whole tile's aggregate is published once its bytes
 * land, whatever its block's tile threads do; any other tile's, by its
 * tile threads before its walk. Take the lowest tile whose aggregate is
 * not published: every tile below it has one, so the walks of its block's
 * earlier tiles end and its tile threads reach it (the grid is resident).
 * Compiled below sm_90 (a compute_75 or compute_80 build, even run on an
 * H200) the kernel traps; the launcher never starts it there
 * (singlePassRingSmem reads the kernel's PTX version).
 */
#ifndef RING_SCAN_CUH
#define RING_SCAN_CUH

#include <stdint.h>

#include "bulk_ring.cuh"
#include "lookback.cuh"

template <int BLOCK, int ITEMS, class Policy>
__global__ void __launch_bounds__(BLOCK + 64, 1)
singlePassScanRing(const int *in, int *out, size_t n,
                   unsigned long long *state, int *total, int inclusive,
                   unsigned stallNs)
{
#ifdef RING_SM90
    typedef StripedTile<BLOCK, ITEMS> Tile;
    typedef LookbackSum Ops;
    constexpr unsigned TILE_BYTES = Tile::SIZE * sizeof(int);
    extern __shared__ int4 ring[];   /* S stages of Tile::SIZE / 4 */
    __shared__ typename Tile::Storage st;
    __shared__ PipeSlots<int> sl;
    __shared__ int4 kept[Tile::VECS * BLOCK];
    __shared__ uint64_t fullBar[RING_MAX_STAGES], emptyBar[RING_MAX_STAGES];
    __shared__ unsigned stageTile[RING_MAX_STAGES];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> roundBar;

    unsigned S = ringDynamicBytes() / TILE_BYTES;
    S = S < RING_MAX_STAGES ? S : RING_MAX_STAGES;
    if (S < 2) __trap();
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool bulk = (uintptr_t)in % 16 == 0;
    const bool aligned = bulk && (uintptr_t)out % 16 == 0;
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
                const size_t base = (size_t)tile * Tile::SIZE;
                const size_t valid = tileValid(base);
                const size_t copied = tileCopied(valid);
                /* A tile the copy did not bring whole (the last one's
                 * tail, an input off 16 bytes) has its aggregate published
                 * by its tile threads: the loader never reads global
                 * memory, which in place the tile threads may already
                 * have overwritten. */
                if (copied < valid) continue;
                const int4 *v = ring + (size_t)s * (Tile::SIZE / 4);
                unsigned sum = 0;
                for (size_t i = lane; i < copied / 4; i += 32) {
                    const int4 q = v[i];
                    sum += (unsigned)q.x + (unsigned)q.y + (unsigned)q.z +
                           (unsigned)q.w;
                }
#pragma unroll
                for (int d = 16; d > 0; d /= 2)
                    sum += __shfl_xor_sync(0xffffffffu, sum, d);
                if (lane == 0) ringPublishAggregate<Policy>(state, tile, sum,
                                                            stallNs);
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

    /* The tile threads and the walker: lookbackPipelined's rounds, the
     * tile's loads from the ring, its aggregate already published. */
    const bool walker = threadIdx.x >= BLOCK;
    auto sync = [] { Tile::tileBarrier(); };
    size_t prevBase = 0;
    bool prevVec = false;
    int4 x[Tile::VECS];
    unsigned walk = PIPE_END;
    int walkAggregate = 0;
    for (unsigned k = 0;; ++k) {
        if (walker) {
            if (walk != PIPE_END) {
                const LookbackResult<int> r = lookbackWalk<Ops, Policy>(
                    state, walk, walkAggregate, stallNs);
                if (threadIdx.x == BLOCK) {
                    sl.prefix[(k - 1) % 2] = r.exclusive;
                    if (total && walk == tiles - 1) *total = r.inclusive;
                }
            }
            roundBar.arrive_and_wait();
            const unsigned handed = sl.tile[k % 2];
            if (handed == PIPE_END) return;
            walk = handed;
            walkAggregate = sl.aggregate[k % 2];
            continue;
        }
        const unsigned s = k % S;
        ringWait(&fullBar[s], (k / S) & 1);
        const unsigned tile = stageTile[s];
        size_t base = 0;
        bool vec = false;
        if (tile != PIPE_END) {
            base = (size_t)tile * Tile::SIZE;
            vec = aligned && Tile::vectorOk(in, base, n);
            const int4 *v = ring + (size_t)s * (Tile::SIZE / 4);
            const size_t valid = tileValid(base);
            const size_t copied = tileCopied(valid);
            if (vec) {
#pragma unroll
                for (int j = 0; j < Tile::VECS; ++j)
                    x[j] = v[threadIdx.x + j * BLOCK];
            } else {
                const int *e = reinterpret_cast<const int *>(v);
#pragma unroll
                for (int j = 0; j < Tile::VECS; ++j) {
                    const size_t i =
                        4 * ((size_t)threadIdx.x + (size_t)j * BLOCK);
                    int w[4];
#pragma unroll
                    for (int c = 0; c < 4; ++c)
                        w[c] = i + c < copied  ? e[i + c]
                               : i + c < valid ? in[base + i + c]
                                               : 0;
                    x[j] = make_int4(w[0], w[1], w[2], w[3]);
                }
            }
            ringArrive(&emptyBar[s]);
            const unsigned aggregate =
                Tile::scanInTile(x, st, sync, inclusive);
            if (threadIdx.x == 0) {
                sl.aggregate[k % 2] = (int)aggregate;
                /* Not summed by the loader (above): published here,
                 * before the walker walks it. */
                if (copied < valid)
                    ringPublishAggregate<Policy>(state, tile, aggregate,
                                                 stallNs);
            }
        }
        if (threadIdx.x == 0) sl.tile[k % 2] = tile;
        /* Round k: tile k handed over, tile k - 1 walked. */
        roundBar.arrive_and_wait();
        if (k > 0)
            Tile::storePlus(kept, (unsigned)sl.prefix[(k - 1) % 2], out,
                            prevBase, n, prevVec);
        if (tile == PIPE_END) return;
        /* Each thread's own slots: the round's barrier separates this
         * from their next reader (the finish above, a round later). */
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j)
            kept[j * BLOCK + threadIdx.x] = x[j];
        prevBase = base;
        prevVec = vec;
    }
#else
    __trap();
#endif
}

#endif
