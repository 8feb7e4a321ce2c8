/* lookback.cuh: the machinery of every single-pass kernel in the course:
 * tile indices in start order, one status word per tile, the decoupled
 * look-back, and the striped tile (vector loads and stores, and the scan of
 * a tile that feeds the look-back).
 *
 * Used by day31-scan/scan.cu (singlePassScan: the aggregate is an int sum),
 * day33-compaction (the aggregate is a count of survivors) and the
 * exercise's one-pass three-way split (two counts: negatives and zeros).
 * A header, not a .cu: everything here is a template over the tile shape
 * and the aggregate's type, and a template is compiled where it is used.
 *
 * THE IDEA. The input is cut into tiles of BLOCK * ITEMS elements, one
 * block per tile at a time. A tile's output needs the combination (the sum,
 * the counts) of every tile before it: its exclusive prefix. Each tile
 * publishes, in its status word:
 *   LOOKBACK_AGGREGATE  its own aggregate, as soon as it has reduced its
 *                       tile (it waits for nobody to do that);
 *   LOOKBACK_PREFIX     its inclusive prefix, as soon as it knows it.
 * To learn its exclusive prefix, one warp of the tile reads the words of
 * the 32 tiles before it, waits until none of them is LOOKBACK_INVALID,
 * combines the aggregates from the nearest tile back to the nearest one
 * that has published a prefix (that prefix included), and stops there; if
 * none of the 32 has, it moves the window 32 tiles further back. Tile 0
 * publishes its prefix at once. A tile rarely waits for the tile before it
 * to finish: only for it to have reduced its own elements.
 *
 * WHAT A CALLER PROVIDES
 * - Ops, the aggregate's policy (LookbackSum, LookbackCounts below, or its
 *   own): a value_type; identity(); combine(a, b), associative and
 *   commutative (the window is combined as a warp reduction, in no fixed
 *   order); bits(v), the value packed into bits 2..63 of a word, low two
 *   bits zero; value(w), its inverse, ignoring the low two bits. Every
 *   partial combination of consecutive tiles must fit the packing (for
 *   counts: below 2^31, which n <= 2^31 - 1 guarantees).
 * - state: lookbackBytes(tiles) bytes of device memory, all zero when the
 *   kernel starts: one cudaMemsetAsync before each launch (counted as a
 *   launch in every table). Word 0 counts the tiles handed out; word 1 + t
 *   is tile t's status.
 * - Tile indices from lookbackNextTile, never blockIdx.x (see DEADLOCK).
 *   A block may take tiles in a loop until the index passes the last tile;
 *   any grid of at least one block covers every tile.
 * - lookbackTile called by all 32 lanes of one warp, once per tile, with
 *   the tile's aggregate. It returns the tile's exclusive and inclusive
 *   prefixes to those 32 lanes; the caller passes them to the rest of the
 *   block through shared memory.
 * WHERE THE TOTAL LANDS: nowhere by itself. The inclusive prefix of the
 * last tile is the total; the block that handles that tile writes it where
 * the caller wants it (scan.cu: a device int, like the course scan).
 *
 * DEADLOCK. A tile waits only on tiles with smaller indices, and only
 * until their words leave LOOKBACK_INVALID, which each of them does as soon
 * as its block has reduced its own elements. Indices come from an atomic
 * counter, so they are handed out in the order blocks start: whoever holds
 * index j < k started before the block holding k, is resident now (or has
 * finished), and publishes its aggregate without waiting for anyone. So
 * every wait ends, with any number of blocks and any scheduling. With
 * blockIdx.x as the tile index this fails: CUDA does not promise to start
 * blocks in index order, so block k may be resident and spinning on block
 * k - 1 that has not started; when every resident block spins on one that
 * cannot start until a resident block finishes, nothing moves again.
 *
 * MEMORY ORDERING. A status word holds the flag and the value together and
 * is written and read whole (64 bits, through cuda::atomic_ref at device
 * scope), so a reader that sees a flag sees the value published with it.
 * Publishing is a release store and the look-back's reads are acquire
 * loads (PTX st.release.gpu / ld.acquire.gpu, there from sm_70, so on every
 * GPU of the course from sm_75 on): whatever a tile wrote before it
 * published is visible to a tile that read the word. The kernels here
 * convey nothing else through the word, so for them relaxed atomics would
 * be enough (the template parameter RELAXED selects them, and scan.cu's
 * --variants times both); acquire-release is the default because a caller
 * that does pass data alongside the word then needs nothing more.
 * state is reset between launches by a memset, which the kernel boundary
 * orders.
 *
 * THE STRIPED TILE (StripedTile). Seen as int4 vectors, thread t holds the
 * tile's vectors t, t + BLOCK, t + 2 * BLOCK, ...: each warp-wide vector
 * load reads 512 contiguous bytes, so every load and store is coalesced
 * without a shared-memory transpose. Row j (the j-th vector of every
 * thread) is a run of 4 * BLOCK consecutive elements, and rows follow each
 * other, so the tile's order is (row, warp, lane, element).
 */
#ifndef LOOKBACK_CUH
#define LOOKBACK_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda/atomic>

/* The two low bits of a status word. 0 is what the reset memset leaves. */
#define LOOKBACK_INVALID 0ull
#define LOOKBACK_AGGREGATE 1ull
#define LOOKBACK_PREFIX 2ull
#define LOOKBACK_FLAGS 3ull

/* Bytes of state for a launch over tiles tiles: the tile counter, then one
 * word per tile. */
__host__ __device__ constexpr size_t lookbackBytes(size_t tiles)
{
    return (tiles + 1) * sizeof(unsigned long long);
}

/* An int sum that wraps modulo 2^32, as int adds do on the device (done in
 * unsigned, where wrapping is defined). The scan's aggregate. */
struct LookbackSum {
    typedef int value_type;
    static __device__ int identity() { return 0; }
    static __device__ int combine(int a, int b)
    {
        return (int)((unsigned)a + (unsigned)b);
    }
    static __device__ unsigned long long bits(int v)
    {
        return (unsigned long long)(unsigned)v << 32;
    }
    static __device__ int value(unsigned long long w)
    {
        return (int)(unsigned)(w >> 32);
    }
};

/* Two counts, each below 2^31: the three-way split's negatives (first)
 * and zeros (second). Packed as first in bits 33..63, second in 2..32. */
struct Counts {
    int first, second;
};

struct LookbackCounts {
    typedef Counts value_type;
    static __device__ Counts identity() { return Counts{0, 0}; }
    static __device__ Counts combine(Counts a, Counts b)
    {
        return Counts{a.first + b.first, a.second + b.second};
    }
    static __device__ unsigned long long bits(Counts c)
    {
        return ((unsigned long long)(unsigned)c.first << 33) |
               ((unsigned long long)(unsigned)c.second << 2);
    }
    static __device__ Counts value(unsigned long long w)
    {
        return Counts{(int)(w >> 33), (int)((w >> 2) & 0x7fffffffull)};
    }
};

template <typename T> struct LookbackResult {
    T exclusive;   /* combination of every tile before this one */
    T inclusive;   /* the same, this tile included */
};

/* Debug knob of the checks (stallNs > 0; 0 in every timed run): about one
 * tile in eight sleeps before publishing its aggregate, so successors spin
 * on LOOKBACK_INVALID; and every tile of one run of 64 in 256 sleeps before
 * publishing its prefix, so tiles up to 64 places later find only
 * aggregates and must move their window back past 32 tiles. */
__device__ inline bool lookbackStallsAggregate(unsigned tile)
{
    return (tile * 2654435761u) >> 29 == 0u;
}
__device__ inline bool lookbackStallsPrefix(unsigned tile)
{
    return (tile / 64u) % 4u == 1u;
}

template <bool RELAXED>
__device__ inline void lookbackPublish(unsigned long long *word,
                                       unsigned long long w)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> a(*word);
    a.store(w, RELAXED ? cuda::memory_order_relaxed
                       : cuda::memory_order_release);
}

template <bool RELAXED>
__device__ inline unsigned long long lookbackRead(unsigned long long *word)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> a(*word);
    return a.load(RELAXED ? cuda::memory_order_relaxed
                          : cuda::memory_order_acquire);
}

/* Every thread of the block calls it; returns, in all of them, the next
 * tile index in the order blocks ask for one. slot is a __shared__
 * unsigned of the caller. One barrier: thread 0 writes slot before it and
 * everyone reads it after. The caller's next barrier must come before the
 * next call, so no thread still reads slot when thread 0 rewrites it. */
__device__ inline unsigned lookbackNextTile(unsigned long long *state,
                                            unsigned *slot)
{
    if (threadIdx.x == 0) *slot = (unsigned)atomicAdd(state, 1ull);
    __syncthreads();
    return *slot;
}

/* The look-back of tile `tile`, by all 32 lanes of one warp (the same
 * tile and aggregate in every lane). Publishes the aggregate, finds the
 * exclusive prefix, publishes the inclusive prefix, and returns both in
 * every lane. stallNs: the debug knob above (0: off). */
template <class Ops, bool RELAXED = false>
__device__ LookbackResult<typename Ops::value_type>
lookbackTile(unsigned long long *state, unsigned tile,
             typename Ops::value_type aggregate, unsigned stallNs)
{
    typedef typename Ops::value_type T;
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    unsigned long long *status = state + 1;

    if (tile == 0) {
        if (lane == 0)
            lookbackPublish<RELAXED>(&status[0],
                                     Ops::bits(aggregate) | LOOKBACK_PREFIX);
        return LookbackResult<T>{Ops::identity(), aggregate};
    }
    if (lane == 0) {
        if (stallNs && lookbackStallsAggregate(tile)) __nanosleep(stallNs);
        lookbackPublish<RELAXED>(&status[tile],
                                 Ops::bits(aggregate) | LOOKBACK_AGGREGATE);
    }

    T exclusive = Ops::identity();
    /* Lane l reads tile nearest - l: the window runs backwards from the
     * tile just before this one. */
    long long nearest = (long long)tile - 1;
    for (;;) {
        const long long at = nearest - lane;
        unsigned long long w;
        /* Before tile 0 there is nothing: an identity prefix. The window
         * only reaches there past tile 0's own prefix, which ends it. */
        do
            w = at >= 0 ? lookbackRead<RELAXED>(&status[at])
                        : LOOKBACK_PREFIX;
        while (__any_sync(full, (w & LOOKBACK_FLAGS) == LOOKBACK_INVALID));

        /* Lowest lane holding a prefix = nearest tile that has one. */
        const unsigned prefixes =
            __ballot_sync(full, (w & LOOKBACK_FLAGS) == LOOKBACK_PREFIX);
        const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
        T v = lane <= stop ? Ops::value(w) : Ops::identity();
        /* Combine the window in every lane (a butterfly). Each partial is
         * a combination of consecutive tiles, so it fits the packing. */
        for (int off = 16; off > 0; off /= 2)
            v = Ops::combine(v, Ops::value(__shfl_xor_sync(
                                    full, Ops::bits(v), off)));
        exclusive = Ops::combine(v, exclusive);
        if (prefixes) break;
        nearest -= 32;
    }

    const T inclusive = Ops::combine(exclusive, aggregate);
    if (lane == 0) {
        if (stallNs && lookbackStallsPrefix(tile)) __nanosleep(stallNs);
        lookbackPublish<RELAXED>(&status[tile],
                                 Ops::bits(inclusive) | LOOKBACK_PREFIX);
    }
    return LookbackResult<T>{exclusive, inclusive};
}

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

    /* The mirror of load: slots at or past n are not written. */
    static __device__ void store(int *out, size_t base, size_t n, bool vec,
                                 const int4 (&x)[VECS])
    {
        const size_t first = base / 4 + threadIdx.x;
        if (vec) {
            int4 *v = reinterpret_cast<int4 *>(out);
#pragma unroll
            for (int j = 0; j < VECS; ++j)
                v[first + (size_t)j * BLOCK] = x[j];
            return;
        }
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            const size_t i = 4 * (first + (size_t)j * BLOCK);
            if (i < n) out[i] = x[j].x;
            if (i + 1 < n) out[i + 1] = x[j].y;
            if (i + 2 < n) out[i + 2] = x[j].z;
            if (i + 3 < n) out[i + 3] = x[j].w;
        }
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
        __syncthreads();
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
};

#endif
