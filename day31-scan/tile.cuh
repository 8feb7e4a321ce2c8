/* tile.cuh: the tile pieces every tiled kernel of the course shares, with
 * or without a look-back: the striped tile (StripedTile: vector loads and
 * stores, and the scan of a tile that feeds a look-back or a range's
 * counts), and a tile's output staged in shared memory and written as runs
 * of 16-byte vectors (storeStaged, storeShifted).
 *
 * Used by lookback.cuh (the single-pass kernels) and ranges.cuh (the
 * two-pass scheme with no look-back), and through them by day31-scan,
 * day33-compaction and the exercise's one-pass three-way split.
 * A header, not a .cu: everything here is a template over the tile shape,
 * compiled where it is used.
 *
 * THE STRIPED TILE (StripedTile). Seen as int4 vectors, thread t holds the
 * tile's vectors t, t + BLOCK, t + 2 * BLOCK, ...: each warp-wide vector
 * load reads 512 contiguous bytes, so every load and store is coalesced
 * without a shared-memory transpose. Row j (the j-th vector of every
 * thread) is a run of 4 * BLOCK consecutive elements, and rows follow each
 * other, so the tile's order is (row, warp, lane, element).
 */
#ifndef TILE_CUH
#define TILE_CUH

#include <stddef.h>
#include <stdint.h>

/* The striped tile of BLOCK threads, ITEMS ints each (see the top). All
 * arithmetic on tile values is unsigned: it wraps modulo 2^32, as the
 * course's int sums are defined to. */
template <int BLOCK, int ITEMS> struct StripedTile {
    static_assert(BLOCK % 32 == 0, "whole warps");
    static_assert(ITEMS % 4 == 0, "whole int4 vectors per thread");
    static constexpr int VECS = ITEMS / 4;
    static constexpr int WARPS = BLOCK / 32;
    static constexpr int SIZE = BLOCK * ITEMS;
    /* one partial per (row, warp), in tile order */
    static constexpr int PARTS = VECS * WARPS;
    static constexpr int PER_LANE = (PARTS + 31) / 32;

    struct Storage {
        unsigned partial[PARTS];
    };

    /* A barrier of the tile's BLOCK threads alone, named barrier 1, for a
     * block with more warps than the tile's (lookbackPipelined's walker
     * never joins it). */
    static __device__ void tileBarrier()
    {
        asm volatile("bar.sync 1, %0;" ::"n"(BLOCK) : "memory");
    }

    /* Whether the tile at base may use 16-byte vectors: it is whole, and
     * p (the buffer's start) is 16-byte aligned, which makes every vector
     * of every tile aligned. */
    static __device__ bool vectorOk(const void *p, size_t base, size_t n)
    {
        return (uintptr_t)p % 16 == 0 && base + SIZE <= n;
    }

    /* x[j] = the thread's j-th vector of the tile at base; slots at or
     * past n read as pad. vec from vectorOk: one 16-byte load per vector,
     * else four int loads. in is a plain pointer, so these are coherent
     * loads: the caller may write the same array (in place). */
    static __device__ void load(const int *in, size_t base, size_t n,
                                bool vec, int4 (&x)[VECS], int pad)
    {
        const size_t first = base / 4 + threadIdx.x;
        if (vec) {
            const int4 *v = reinterpret_cast<const int4 *>(in);
#pragma unroll
            for (int j = 0; j < VECS; ++j)
                x[j] = v[first + (size_t)j * BLOCK];
            return;
        }
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            const size_t i = 4 * (first + (size_t)j * BLOCK);
            x[j].x = i < n ? in[i] : pad;
            x[j].y = i + 1 < n ? in[i + 1] : pad;
            x[j].z = i + 2 < n ? in[i + 2] : pad;
            x[j].w = i + 3 < n ? in[i + 3] : pad;
        }
    }

    /* The thread's j-th vector alone, as store writes it. */
    static __device__ void storeVector(int *out, size_t base, size_t n,
                                       bool vec, int j, int4 x)
    {
        const size_t at = base / 4 + threadIdx.x + (size_t)j * BLOCK;
        if (vec) {
            reinterpret_cast<int4 *>(out)[at] = x;
            return;
        }
        const size_t i = 4 * at;
        if (i < n) out[i] = x.x;
        if (i + 1 < n) out[i + 1] = x.y;
        if (i + 2 < n) out[i + 2] = x.z;
        if (i + 3 < n) out[i + 3] = x.w;
    }

    /* The mirror of load: slots at or past n are not written. */
    static __device__ void store(int *out, size_t base, size_t n, bool vec,
                                 const int4 (&x)[VECS])
    {
#pragma unroll
        for (int j = 0; j < VECS; ++j) storeVector(out, base, n, vec, j, x[j]);
    }

    /* The scan of one value per vector across the tile, step 1, by every
     * thread: v[j] (the value of the thread's j-th vector) becomes its
     * inclusive scan within its warp's part of row j; each warp's totals go
     * to st.partial; a barrier; then warp 0 turns st.partial into its
     * exclusive scan in tile order and returns the tile's aggregate
     * (meaningful in warp 0 only). The caller then runs the look-back in
     * warp 0, shares the tile's prefix through shared memory, and calls
     * __syncthreads() before exclusiveOf. st must not be read by anyone
     * from a previous tile when this is called (a barrier since). */
    static __device__ unsigned scanUp(unsigned (&v)[VECS], Storage &st)
    {
        return scanUpWith(v, st, [] { __syncthreads(); });
    }

    /* scanUp with the tile's barrier given as a callable (sync()), for a
     * block whose tile warps are not the whole block (lookbackPipelined:
     * tileBarrier() or an mbarrier). */
    template <class Sync>
    static __device__ unsigned scanUpWith(unsigned (&v)[VECS], Storage &st,
                                          Sync sync)
    {
        const unsigned full = 0xffffffffu;
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
        for (int off = 1; off < 32; off *= 2)
#pragma unroll
            for (int j = 0; j < VECS; ++j) {
                const unsigned left = __shfl_up_sync(full, v[j], off);
                if (lane >= off) v[j] += left;
            }
        if (lane == 31)
#pragma unroll
            for (int j = 0; j < VECS; ++j) st.partial[j * WARPS + warp] = v[j];
        /* Warp 0 reads every warp's totals. */
        sync();
        if (warp != 0) return 0;

        /* Lane l owns partials l * PER_LANE .. l * PER_LANE + PER_LANE - 1:
         * a serial sum, a warp scan of the lane sums, and the exclusive
         * prefixes written back. */
        unsigned p[PER_LANE], sum = 0;
#pragma unroll
        for (int k = 0; k < PER_LANE; ++k) {
            const int at = lane * PER_LANE + k;
            p[k] = at < PARTS ? st.partial[at] : 0u;
            sum += p[k];
        }
        unsigned incl = sum;
#pragma unroll
        for (int off = 1; off < 32; off *= 2) {
            const unsigned left = __shfl_up_sync(full, incl, off);
            if (lane >= off) incl += left;
        }
        unsigned run = incl - sum;
#pragma unroll
        for (int k = 0; k < PER_LANE; ++k) {
            const int at = lane * PER_LANE + k;
            if (at < PARTS) st.partial[at] = run;
            run += p[k];
        }
        return __shfl_sync(full, incl, 31);
    }

    /* Step 2, after the caller's barrier: the exclusive prefix within the
     * tile of the thread's j-th vector, given what scanUp left in v[j] and
     * the vector's own value. */
    static __device__ unsigned exclusiveOf(int j, unsigned scanned,
                                           unsigned own, const Storage &st)
    {
        return st.partial[j * WARPS + threadIdx.x / 32] + scanned - own;
    }

    /* The single-pass scans' tile step (singlepass_scan.cuh,
     * both paths): x becomes each int's exclusive (inclusive: inclusive)
     * prefix within the tile, sync() the tile's barrier; returns the tile's
     * aggregate (meaningful in warp 0 only). */
    template <class Sync>
    static __device__ unsigned scanInTile(int4 (&x)[VECS], Storage &st,
                                          Sync sync, int inclusive)
    {
        unsigned v[VECS];
#pragma unroll
        for (int j = 0; j < VECS; ++j)
            v[j] = (unsigned)x[j].x + (unsigned)x[j].y + (unsigned)x[j].z +
                   (unsigned)x[j].w;
        /* Contains the barrier after which warp 0 has every warp's
         * totals. */
        const unsigned aggregate = scanUpWith(v, st, sync);
        /* Everyone reads warp 0's scanned partials. */
        sync();
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            const unsigned a = x[j].x, b = x[j].y, c = x[j].z, d = x[j].w;
            const unsigned e = exclusiveOf(j, v[j], a + b + c + d, st);
            const unsigned first = inclusive ? e + a : e;
            x[j].x = (int)first;
            x[j].y = (int)(first + (inclusive ? b : a));
            x[j].z = (int)(first + (inclusive ? b + c : a + b));
            x[j].w = (int)(first + (inclusive ? b + c + d : a + b + c));
        }
        return aggregate;
    }

    /* The thread's vectors kept in shared memory (kept[j * BLOCK +
     * threadIdx.x]), each int plus p, stored as store does. */
    static __device__ void storePlus(const int4 *kept, unsigned p, int *out,
                                     size_t base, size_t n, bool vec)
    {
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            int4 y = kept[j * BLOCK + threadIdx.x];
            y.x = (int)((unsigned)y.x + p);
            y.y = (int)((unsigned)y.y + p);
            y.z = (int)((unsigned)y.z + p);
            y.w = (int)((unsigned)y.w + p);
            storeVector(out, base, n, vec, j, y);
        }
    }
};

/* A hint to the L2, with no result: prefetch the 128-byte lines that hold
 * tile `tile` of in (its SIZE ints from tile * SIZE, clipped to n; none
 * past n), spread over THREADS threads (thread t issues lines t,
 * t + THREADS, ...). Nothing is held in a register and nothing waits: a
 * load that later reads these ints finds them in the L2 instead of device
 * memory. Every address issued lies inside the tile and below n, so a
 * tool that checks addresses sees only valid ones. Used, where a kernel
 * asks for it (its PF parameter), to fetch the tile it will load a round
 * or a few tiles later. */
template <int SIZE, int THREADS>
__device__ inline void prefetchTileL2(const int *in, size_t tile, size_t n,
                                      unsigned t)
{
    const size_t first = tile * SIZE;
    if (first >= n) return;
    const size_t end = n - first < (size_t)SIZE ? n : first + SIZE;
    const uintptr_t lo = (uintptr_t)(in + first);
    const uintptr_t hi = (uintptr_t)(in + end);
    const uintptr_t line0 = lo & ~(uintptr_t)127;
    const size_t lines = (hi - 1 - line0) / 128 + 1;
    for (size_t i = t; i < lines; i += THREADS) {
        const void *a = (const void *)(i ? line0 + i * 128 : lo);
        asm volatile("prefetch.global.L2 [%0];" ::"l"(
            __cvta_generic_to_global(a)));
    }
}

/* Host: whether a prefetch a round ahead is on for a kernel whose round
 * of tiles (its grid x a tile) is roundBytes: where that fits in a quarter
 * of the L2 (l2Bytes, read from the device), so that the lines fetched
 * are still there when their tile is read, after a round of the other
 * blocks' traffic (NOTES.md, "An L2 prefetch a round ahead"). The
 * production scan's ring and day 33's single-pass compaction decide by
 * it. */
inline bool prefetchRoundFits(size_t roundBytes, size_t l2Bytes)
{
    return roundBytes <= l2Bytes / 4;
}

/* ------------------------------------------------------------------------
 * Staged output. A kernel whose tile's output is one or more contiguous
 * runs of out (compaction's survivors; the partition's two groups; the
 * three-way split's three) may write it straight from registers, or stage
 * it in shared memory first and write each run contiguously. STORE names
 * the way, as the configuration tables do:
 *   STORE_DIRECT   each thread writes its own elements straight to out;
 *   STORE_STAGED   staged at their rank in the tile, then written one int
 *                  per thread per store;
 *   STORE_VECTORS  staged so that each run starts at its destination's
 *                  offset modulo 4 (stagedFrom), then written by
 *                  storeStaged as whole 16-byte vectors of out, only the
 *                  ints before a run's first 16-byte boundary and after its
 *                  last (at most 3 each) one by one.
 * Used by day33-compaction and the exercise's one-pass split.
 * ---------------------------------------------------------------------- */

enum { STORE_DIRECT, STORE_STAGED, STORE_VECTORS };

/* Ints of staging a tile of SIZE ints needs in RUNS runs laid out by
 * stagedFrom: the tile, plus up to 3 before each run (its offset modulo 4
 * in out) and up to 3 after each run but the last (rounding it up to a
 * multiple of 4), 6 RUNS - 3 in all, rounded up to a whole vector: 12 for
 * two runs, 16 for three. */
#define STAGED_INTS(SIZE, RUNS) ((SIZE) + ((6 * (RUNS)) & ~3))

/* One run of a staged tile: count ints bound for out[at ..], held at
 * staged[from ..], with from % 4 == at % 4, so that, out being 16-byte
 * aligned, every 16-byte vector of out the run touches lines up with one
 * of staged. */
struct StagedRun {
    size_t at;
    unsigned from, count;
};

/* Where a run bound for out[at ..] starts in the staging buffer, given
 * the first free slot there that is a multiple of 4. */
__device__ inline unsigned stagedFrom(unsigned free4, size_t at)
{
    return free4 + (unsigned)(at % 4);
}

/* Writes the runs of a staged tile, by every thread of the block after a
 * barrier that follows the last write to staged (16-byte aligned). vec:
 * out is 16-byte aligned and the block may use 16-byte stores; else one
 * int per thread per store. */
template <int THREADS, int RUNS>
__device__ void storeStaged(int *out, const int *staged,
                            const StagedRun (&r)[RUNS], bool vec)
{
    if (!vec) {
#pragma unroll
        for (int i = 0; i < RUNS; ++i)
            for (unsigned k = threadIdx.x; k < r[i].count; k += THREADS)
                out[r[i].at + k] = staged[r[i].from + k];
        return;
    }
    /* Run i: head[i] ints up to the first 16-byte boundary of out, then
     * whole[i] vectors, then fewer than 4 ints. The runs' vectors are dealt
     * out together, so two short runs keep as many threads busy as one long
     * one; the ints at the edges (at most 3 + 3 per run) go one by one. */
    unsigned head[RUNS], whole[RUNS], total = 0;
#pragma unroll
    for (int i = 0; i < RUNS; ++i) {
        const unsigned toEdge = (4u - (unsigned)(r[i].at % 4)) % 4u;
        head[i] = r[i].count < toEdge ? r[i].count : toEdge;
        whole[i] = (r[i].count - head[i]) / 4;
        total += whole[i];
    }
    /* Not unrolled: a few rounds per thread, and unrolled copies would
     * cost registers that the tile loop's two register sets need. */
#pragma unroll 1
    for (unsigned q = threadIdx.x; q < total; q += THREADS) {
        StagedRun run = r[0];
        unsigned p = q, skip = head[0];
        bool later = true;
#pragma unroll
        for (int i = 0; i + 1 < RUNS; ++i) {
            later = later && p >= whole[i];
            if (later) {
                p -= whole[i];
                run = r[i + 1];
                skip = head[i + 1];
            }
        }
        /* out + at + skip is 16-byte aligned, and staged + from + skip with
         * it (from % 4 == at % 4). */
        const unsigned k = skip + 4 * p;
        *reinterpret_cast<int4 *>(out + run.at + k) =
            *reinterpret_cast<const int4 *>(staged + run.from + k);
    }
    if (threadIdx.x < 8u * RUNS) {
        const int i = (int)(threadIdx.x / 8), e = (int)(threadIdx.x % 8);
        StagedRun run = r[0];
        unsigned h = head[0], w = whole[0];
#pragma unroll
        for (int j = 1; j < RUNS; ++j)
            if (i == j) {
                run = r[j];
                h = head[j];
                w = whole[j];
            }
        /* e 0..3: the head's ints; 4..7: the tail's. */
        const unsigned k = e < 4 ? (unsigned)e : h + 4 * w + (unsigned)(e - 4);
        if ((e < 4 ? k < h : true) && k < run.count)
            out[run.at + k] = staged[run.from + k];
    }
}

/* One run of count ints, bound for out[at ..], staged at staged[0 ..]
 * (16-byte aligned, with at least 4 readable ints past the run's end),
 * written by every thread of the block (THREADS of them) after a barrier
 * that follows the last write to staged. Unlike storeStaged, the run was
 * staged before at was known (the pipelined loop's finish): the shift to
 * out's offset modulo 4 is made here, each 16-byte vector of out built
 * from two aligned vectors of staged. vec: out is 16-byte aligned, else
 * one int per thread per store. */
template <int THREADS>
__device__ void storeShifted(int *out, const int *staged, size_t at,
                             unsigned count, bool vec)
{
    if (!vec) {
        for (unsigned k = threadIdx.x; k < count; k += THREADS)
            out[at + k] = staged[k];
        return;
    }
    /* head ints up to out's first 16-byte boundary, whole vectors, then
     * fewer than 4 ints. Vector i of out is staged[head + 4 i ..]. */
    const unsigned toEdge = (4u - (unsigned)(at % 4)) % 4u;
    const unsigned head = count < toEdge ? count : toEdge;
    const unsigned whole = (count - head) / 4;
    const int4 *sv = reinterpret_cast<const int4 *>(staged);
    int4 *ov = reinterpret_cast<int4 *>(out + at + head);
#pragma unroll 1
    for (unsigned i = threadIdx.x; i < whole; i += THREADS) {
        const int4 a = sv[i];
        if (head == 0) {
            ov[i] = a;
            continue;
        }
        const int4 b = sv[i + 1];
        ov[i] = head == 1 ? make_int4(a.y, a.z, a.w, b.x)
              : head == 2 ? make_int4(a.z, a.w, b.x, b.y)
                          : make_int4(a.w, b.x, b.y, b.z);
    }
    if (threadIdx.x < 8) {
        const unsigned e = threadIdx.x;
        const unsigned k = e < 4 ? e : head + 4 * whole + (e - 4);
        if ((e < 4 ? k < head : true) && k < count) out[at + k] = staged[k];
    }
}

#endif
