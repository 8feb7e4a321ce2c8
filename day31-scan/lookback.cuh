/* lookback.cuh: the machinery of every single-pass kernel in the course:
 * tile indices in start order, one status word per tile, the decoupled
 * look-back, and the pipelined tile loop a production kernel runs. The
 * tile itself (StripedTile) and the staged stores are in tile.cuh, which
 * this header includes; the loops and policies that lost (one tile at a
 * time, loading ahead; other windows and orders) are in
 * dev/lookback_variants.cuh.
 *
 * Used by day31-scan/singlepass_scan.cuh (the aggregate is an int sum),
 * day33-compaction (the aggregate is a count of survivors) and the
 * look-back rows of the exercise's one-pass three-way split (two counts:
 * negatives and zeros). The stable partition's and the split's production
 * rows use no look-back: their scheme is in ranges.cuh, which takes
 * StripedTile and storeStaged from tile.cuh, not from here.
 * A header, not a .cu: everything here is a template over the tile shape,
 * the aggregate's type and the look-back's policy, and a template is
 * compiled where it is used.
 *
 * THE IDEA. The input is cut into tiles of BLOCK * ITEMS elements, one
 * block per tile at a time. A tile's output needs the combination (the sum,
 * the counts) of every tile before it: its exclusive prefix. Each tile
 * publishes, in its status word:
 *   LOOKBACK_AGGREGATE  its own aggregate, as soon as it has reduced its
 *                       tile (it waits for nobody to do that);
 *   LOOKBACK_PREFIX     its inclusive prefix, as soon as it knows it.
 * To learn its exclusive prefix, one warp of the tile reads the words of
 * the tiles just before it, a window of 32 * LANE_WORDS of them at once
 * (each lane reads LANE_WORDS words), nearest first. The nearest word that
 * is not an aggregate decides: a prefix ends the walk (the warp combines it
 * with every aggregate nearer than it); a word still LOOKBACK_INVALID is
 * read again until it is not; with every word of the window an aggregate,
 * the warp combines them all and moves the window back past them. Tile 0
 * publishes its prefix at once. A tile rarely waits for the tile before it
 * to finish: only for it to have reduced its own elements.
 *
 * WHAT THE WINDOW'S WIDTH COSTS. Each round of the walk costs one round
 * trip to the L2. A narrow window costs a walk more rounds when the
 * nearest prefix is far back: latency per tile, not a cap on how fast
 * tiles finish (a walk that finds only aggregates moves back, keeps
 * combining, and then publishes a prefix many windows ahead of the last
 * one it read). A wide window costs every tile more reads per lane each
 * round and the registers to hold them (LookbackPolicy). Measured on an
 * H200 (dev/scan_variants.cu; day31-scan/NOTES.md), the plain tile loop
 * was faster with windows of 32 than of 128. The production rows use 32.
 *
 * WHAT A CALLER PROVIDES
 * - Ops, the aggregate's policy (LookbackSum, LookbackCounts below, or its
 *   own): a value_type (trivially copyable, a whole number of 32-bit
 *   words); identity(); combine(a, b), associative and commutative (the
 *   window is combined as a warp reduction, in no fixed order); bits(v),
 *   the value packed into bits 2..63 of a word, low two bits zero;
 *   value(w), its inverse, ignoring the low two bits. Every aggregate and
 *   every inclusive prefix must fit the packing (for counts: below 2^31,
 *   which n <= 2^31 - 1 guarantees); partial combinations inside the warp
 *   are not packed.
 * - Policy (LookbackPolicy below): how many words each lane reads per
 *   round, relaxed or acquire-release, and whether a warp that meets a word
 *   still invalid sleeps before reading again.
 * - state: lookbackBytes(tiles) bytes of device memory, all zero when the
 *   kernel starts: one cudaMemsetAsync before each launch (counted as a
 *   launch in every table). Word 0 counts the tiles handed out; word 1 + t
 *   is tile t's status.
 * - Tile indices from lookbackTakeTile, never blockIdx.x (see DEADLOCK).
 *   A block takes tiles in a loop until an index passes the last tile; any
 *   grid of at least one block covers every tile. The loop at the end of
 *   this file (lookbackPipelined) does this for a kernel.
 * - lookbackTileWith called by all 32 lanes of one warp,
 *   once per tile, with the tile's aggregate. It returns the tile's
 *   exclusive and inclusive prefixes to those 32 lanes; the caller passes
 *   them to the rest of the block through shared memory. Its two steps,
 *   lookbackPublishAggregate (one thread) and lookbackWalk (one warp), may
 *   also run in different warps: lookbackPipelined does.
 * WHERE THE TOTAL LANDS: nowhere by itself. The inclusive prefix of the
 * last tile is the total; the block that handles that tile writes it where
 * the caller wants it (the scan: a device int, like the course scan).
 *
 * DEADLOCK. A tile waits only on tiles with smaller indices, and only
 * until their words leave LOOKBACK_INVALID. A block publishes a tile's
 * aggregate as soon as it has reduced it, which waits at most for the
 * block to finish the tile it held before (a loop that loads ahead holds
 * the next tile, and loads it, while it finishes the current one), and that
 * tile has a smaller index: indices come from an atomic counter, in the
 * order blocks ask, so a block's indices grow. Every wait therefore points
 * at a smaller index, and the block holding it is running now (it took the
 * index while running) or has finished: by induction from tile 0, which
 * waits for nobody, every wait ends, with any number of blocks and any
 * scheduling. With blockIdx.x as the tile index this is not promised:
 * CUDA does not guarantee that blocks start in index order, so block k
 * could be resident and spinning on block k - 1 that has not started;
 * when every resident block spins on one that cannot start until a
 * resident block finishes, nothing moves again. Today's GPUs start blocks
 * in index order (CUB's scan relies on it), so the risk is portability,
 * not a hang on some runs; the counter removes it for one atomic a tile.
 *
 * MEMORY ORDERING. A status word holds the flag and the value together and
 * is written and read whole (64 bits, through cuda::atomic_ref at device
 * scope), so a reader that sees a flag sees the value published with it:
 * for these kernels, whose only message is the word itself, relaxed
 * atomics (PTX ld.relaxed.gpu / st.relaxed.gpu) are enough. Acquire and
 * release (ld.acquire.gpu / st.release.gpu, Policy RELAXED = false) also
 * make whatever the publisher wrote before visible to a reader of the
 * word, and cost for it: a release store is a fence first (MEMBAR in the
 * SASS), which waits for the publishing thread's earlier memory operations
 * to complete, its stores and, in a loop that loads ahead, the next
 * tile's loads still in flight; an acquire load is followed by an
 * invalidation of the SM's L1 (CCTL). day31-scan/gpu-dev.sh counts both in
 * the SASS of the single-pass kernels. Both orders are sm_70 PTX, so on
 * every GPU of the course from sm_75 on. state is reset between launches
 * by a memset, which the kernel boundary orders.
 */
#ifndef LOOKBACK_CUH
#define LOOKBACK_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda/atomic>
#include <cuda/barrier>

#include "tile.cuh"

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

/* How the look-back reads. LANE_WORDS: status words each lane reads per
 * round (1, 2 or 4: a window of 32, 64 or 128 tiles). RELAXED: relaxed
 * atomics, else acquire-release (see MEMORY ORDERING). BACKOFF_NS: 0 reads
 * a window again at once while its deciding word is invalid; else the warp
 * first sleeps BACKOFF_NS, twice that the next time, up to
 * LOOKBACK_BACKOFF_CAP times BACKOFF_NS, so that waiting warps leave the L2
 * and the issue slots to the blocks doing work. */
template <int LANE_WORDS_, bool RELAXED_, unsigned BACKOFF_NS_>
struct LookbackPolicy {
    static_assert(LANE_WORDS_ == 1 || LANE_WORDS_ == 2 || LANE_WORDS_ == 4,
                  "a window of 32, 64 or 128 tiles");
    static constexpr int LANE_WORDS = LANE_WORDS_;
    static constexpr int WINDOW = 32 * LANE_WORDS_;
    static constexpr bool RELAXED = RELAXED_;
    static constexpr unsigned BACKOFF_NS = BACKOFF_NS_;
};
#define LOOKBACK_BACKOFF_CAP 8u

/* The production policy: a window of 32 tiles, relaxed atomics, no
 * backoff. The others the course measured are in dev/lookback_variants.cuh. */
typedef LookbackPolicy<1, true, 0> LookbackRelaxed32;


/* Debug knob of the checks (stallNs > 0; 0 in every timed run). About one
 * tile in eight sleeps stallNs before publishing its aggregate, so
 * successors find it invalid and wait (and back off). The tiles of one run
 * of 2 W in 8 W (W the window: 32, 64 or 128 tiles; the first run is
 * tiles 2 W to 4 W - 1) never publish their prefixes: their words stay
 * aggregates, so every tile whose nearest W predecessors lie in a run
 * finds no prefix in its first window and must move it back, whatever the
 * timing, the grid or the backoff (a check needs more than 3 W tiles to
 * see one: 97, 193, 385). Nothing waits for a prefix, so withholding one
 * only makes walks longer. */
__device__ inline bool lookbackStallsAggregate(unsigned tile)
{
    return (tile * 2654435761u) >> 29 == 0u;
}
__device__ inline bool lookbackWithholdsPrefix(unsigned tile, unsigned window)
{
    return (tile / (2u * window)) % 4u == 1u;
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

/* __shfl_xor_sync of any trivially copyable value, 32 bits at a time. */
template <typename T>
__device__ inline T lookbackShflXor(T v, int lanes)
{
    static_assert(sizeof(T) % 4 == 0, "a whole number of 32-bit words");
    unsigned u[sizeof(T) / 4];
    memcpy(u, &v, sizeof v);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i)
        u[i] = __shfl_xor_sync(0xffffffffu, u[i], lanes);
    memcpy(&v, u, sizeof v);
    return v;
}

/* The next tile index, taken by one thread alone (no barrier): that thread
 * may hold it in a register while the block works, so the atomic's round
 * trip overlaps the work, and hand it over later (lookbackPipelined). */
__device__ inline unsigned lookbackTakeTile(unsigned long long *state)
{
    return (unsigned)atomicAdd(state, 1ull);
}

/* The look-back of a tile comes in two steps, which lookbackTileWith
 * runs back to back and the pipelined loop (lookbackPipelined, at the
 * end) runs in different warps.
 *
 * Step 1, by one thread: publish the tile's aggregate (tile 0: its
 * inclusive prefix, which is its aggregate). stallNs: the debug knob
 * above (0: off). */
template <class Ops, class Policy>
__device__ void lookbackPublishAggregate(unsigned long long *state,
                                         unsigned tile,
                                         typename Ops::value_type aggregate,
                                         unsigned stallNs)
{
    unsigned long long *status = state + 1;
    if (tile == 0) {
        lookbackPublish<Policy::RELAXED>(
            &status[0], Ops::bits(aggregate) | LOOKBACK_PREFIX);
        return;
    }
    if (stallNs && lookbackStallsAggregate(tile)) __nanosleep(stallNs);
    lookbackPublish<Policy::RELAXED>(
        &status[tile], Ops::bits(aggregate) | LOOKBACK_AGGREGATE);
}

/* Step 2, by all 32 lanes of one warp (the same tile and aggregate in
 * every lane), after step 1: find the exclusive prefix, publish the
 * inclusive prefix (tile 0 has), and return both in every lane. */
template <class Ops, class Policy>
__device__ LookbackResult<typename Ops::value_type>
lookbackWalk(unsigned long long *state, unsigned tile,
             typename Ops::value_type aggregate, unsigned stallNs)
{
    typedef typename Ops::value_type T;
    constexpr int K = Policy::LANE_WORDS;
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    unsigned long long *status = state + 1;

    if (tile == 0) return LookbackResult<T>{Ops::identity(), aggregate};

    T exclusive = Ops::identity();
    /* The window, nearest first: word m of lane l is tile nearest - d,
     * d = 32 m + l (each of the K reads is one coalesced warp load). */
    long long nearest = (long long)tile - 1;
    for (;;) {
        unsigned long long w[K];
        int stop;   /* d of the nearest prefix; 32 K: only aggregates */
        unsigned sleep = Policy::BACKOFF_NS;
        for (;;) {
#pragma unroll
            for (int m = 0; m < K; ++m) {
                const long long at = nearest - 32 * m - lane;
                /* Before tile 0 there is nothing: an identity prefix. The
                 * window only reaches there past tile 0's own prefix,
                 * which ends the walk first. */
                w[m] = at >= 0 ? lookbackRead<Policy::RELAXED>(&status[at])
                               : Ops::bits(Ops::identity()) | LOOKBACK_PREFIX;
            }
            /* The nearest word that is not an aggregate decides. */
            int first = 32 * K;
            bool prefix = false;
#pragma unroll
            for (int m = K - 1; m >= 0; --m) {
                const unsigned long long flag = w[m] & LOOKBACK_FLAGS;
#ifndef LOOKBACK_BROKEN
                const unsigned pre =
                    __ballot_sync(full, flag == LOOKBACK_PREFIX);
#else
                /* A deliberate bug, built only by day31-scan/gpu-dev.sh to
                 * prove that the checks catch it: an aggregate taken for a
                 * prefix. */
                const unsigned pre =
                    __ballot_sync(full, flag != LOOKBACK_INVALID);
#endif
                const unsigned inv =
                    __ballot_sync(full, flag == LOOKBACK_INVALID);
                if (pre | inv) {
                    first = 32 * m + __ffs(pre | inv) - 1;
                    prefix = (pre >> (first % 32)) & 1u;
                }
            }
            if (first == 32 * K || prefix) {
                stop = first;
                break;
            }
            /* Tile nearest - first has not published yet: read again. */
            if constexpr (Policy::BACKOFF_NS != 0) {
                __nanosleep(sleep);
                if (sleep < LOOKBACK_BACKOFF_CAP * Policy::BACKOFF_NS)
                    sleep *= 2;
            }
        }

        /* Combine the words up to the prefix (all of them without one) in
         * every lane: a butterfly over the lanes' partial combinations. */
        T v = Ops::identity();
#pragma unroll
        for (int m = 0; m < K; ++m)
            if (32 * m + lane <= stop) v = Ops::combine(v, Ops::value(w[m]));
        for (int off = 16; off > 0; off /= 2)
            v = Ops::combine(v, lookbackShflXor(v, off));
        exclusive = Ops::combine(v, exclusive);
        if (stop < 32 * K) break;
        nearest -= 32 * K;
    }

    const T inclusive = Ops::combine(exclusive, aggregate);
    const bool withhold =
        stallNs && lookbackWithholdsPrefix(tile, Policy::WINDOW);
    if (lane == 0 && !withhold)
        lookbackPublish<Policy::RELAXED>(
            &status[tile], Ops::bits(inclusive) | LOOKBACK_PREFIX);
    return LookbackResult<T>{exclusive, inclusive};
}

/* The look-back of tile `tile`, both steps, by all 32 lanes of one warp
 * (the same tile and aggregate in every lane). Publishes the aggregate,
 * finds the exclusive prefix, publishes the inclusive prefix, and returns
 * both in every lane. stallNs: the debug knob above (0: off). */
template <class Ops, class Policy>
__device__ LookbackResult<typename Ops::value_type>
lookbackTileWith(unsigned long long *state, unsigned tile,
                 typename Ops::value_type aggregate, unsigned stallNs)
{
    if (threadIdx.x % 32 == 0)
        lookbackPublishAggregate<Ops, Policy>(state, tile, aggregate,
                                              stallNs);
    return lookbackWalk<Ops, Policy>(state, tile, aggregate, stallNs);
}

/* ------------------------------------------------------------------------
 * The pipelined loop: a tile's walk overlaps the next tile's loads.
 *
 * In the plain tile loops (dev/lookback_variants.cuh: one tile at a time,
 * or loading ahead) the whole block waits while its warp 0 walks back,
 * and a block's tile takes its index, its loads, its walk and its stores
 * one after the other. Measured with clock64() stamps on an H200
 * (dev/trace_tiles.cu; day31-scan/NOTES.md), the walk was over half of a tile's time: the window's
 * nearest words are often still invalid, because the tiles just before
 * are still loading. Here the block has one more warp, the walker, and
 * its BLOCK threads (the tile's) never walk:
 *   tile threads   take tile k, load it, reduce(k): scan it within the
 *                  tile and publish its aggregate (thread 0); hand k to
 *                  the walker; wait for the walker's prefix of k - 1,
 *                  finish(k - 1) (its output); stash(k); take k + 1 ...
 *   walker warp    for each tile handed over, in order: the walk
 *                  (lookbackWalk), then the exclusive prefix handed back.
 * So tile k - 1's walk runs while tile k's index is taken and its loads
 * fly, and a tile's aggregate is published as soon as its loads land (the
 * block waits for no walk before that).
 *
 * Both sides run one loop of rounds, and every round ends at the same
 * barrier of the whole block, roundBar (one a tile): in round k
 * the tile threads take tile k, load it, reduce it, publish its aggregate
 * and write tile k and the aggregate to the hand slots, while the walker
 * walks tile k - 1 (handed in the round before) and writes its prefix.
 * After the barrier, the tile threads finish tile k - 1 and stash tile k;
 * the walker reads the hand slots for the next round. The slots come in
 * pairs used in turn (k % 2), so a slot is written again only after the
 * next barrier, when its readers have read it. The tile's own barriers
 * are named barrier 1 over the tile's BLOCK threads, or an mbarrier
 * (SYNC, below), which the walker never joins. The round's barrier is a
 * cuda::barrier (an mbarrier from sm_80 on, arrive then wait), not
 * __syncthreads(): both order the slots' writes before their reads, but
 * compute-sanitizer's racecheck, given __syncthreads() beside a named
 * barrier of some warps, reports the slots as hazards
 * (dev/racecheck_named.cu), and a check that always reports something
 * checks nothing. With the cuda::barrier it reports none, and it still
 * reports a real race on a slot (that program's racy form). Every wait is
 * on a smaller tile index than the waiting step's own, as in DEADLOCK at
 * the top: the aggregate of a block's tile k waits for the walks of its
 * tiles before k (smaller), a walk for the aggregates of the tiles before
 * it. The block is BLOCK + 32 threads; index BLOCK and above is the
 * walker.
 *
 * The caller provides, as callables over its own shared memory:
 *   reduce(tile, base, vec, x, sync) -> T   by the BLOCK tile threads:
 *       the tile's work up to its aggregate (returned in thread 0), x its
 *       loaded vectors (reduce may change them); its barriers are calls
 *       of sync() (StripedTile::scanUpWith(v, st, sync));
 *   stash(x, sync)   by the tile threads, after reduce and after the
 *       previous tile's finish: keep what finish will need in shared
 *       memory. A stash that writes what another thread's finish reads
 *       begins with sync() (compaction's does). Every stash is followed
 *       by a round's barrier (of the whole block) before its finish.
 *   finish(tile, base, vec, prefix, aggregate)   by the tile threads,
 *       once the walker has the tile's exclusive prefix: the tile's
 *       output, from what stash kept. Between a stash and its finish come
 *       the next tile's index, loads and reduce.
 * total: where the last tile's inclusive prefix goes (may be null).
 * ---------------------------------------------------------------------- */

template <typename T> struct PipeSlots {
    unsigned tile[2];   /* handed to the walker; PIPE_END: no more */
    T aggregate[2];     /* the handed tile's aggregate */
    T prefix[2];        /* the walker's answer: its exclusive prefix */
    unsigned take;      /* the index thread 0 took (tile threads only) */
};

#define PIPE_END 0xffffffffu

/* How the tile warps of lookbackPipelined meet among themselves (the
 * walker never joins): PIPE_NAMED, named barrier 1 (PTX bar.sync 1,
 * BLOCK; the production form); PIPE_MBARRIER, a cuda::barrier of the tile
 * threads in shared memory (an mbarrier from sm_80 on). The round's
 * barrier of the whole block is a cuda::barrier in both. Same order in
 * every form; __syncthreads() for the round, with the named barrier, is
 * the same order too, but racecheck reports the hand-over slots then
 * (dev/racecheck_named.cu). */
enum { PIPE_NAMED, PIPE_MBARRIER };

/* The rounds themselves, for lookbackPipelined (below) and the ring of
 * bulk copies (ring_pipeline.cuh), which differ only in where a tile's
 * ints come from:
 *   next(k, x, base, vec, publish) -> tile   by the tile threads, round
 *       k: the tile's index (PIPE_END: no more), its ints into x (pads past
 *       n), base and vec as the other callables take them; publish: its
 *       aggregate is the tile threads' to publish (thread 0, after reduce).
 * roundBar: BLOCK + 32 arrivals, initialised; sync: the tile threads'
 * barrier. The walker is threads BLOCK to BLOCK + 31. */
template <class Tile, class Ops, class Policy, class Next, class Sync,
          class Reduce, class Finish, class Stash>
__device__ void pipeRounds(unsigned long long *state,
                           PipeSlots<typename Ops::value_type> &sl,
                           cuda::barrier<cuda::thread_scope_block> &roundBar,
                           size_t tiles, unsigned stallNs,
                           typename Ops::value_type *total, Next &next,
                           Sync &sync, Reduce &reduce, Finish &finish,
                           Stash &stash)
{
    typedef typename Ops::value_type T;
    constexpr int BLOCK = Tile::WARPS * 32;
    const bool walker = threadIdx.x >= BLOCK;
    /* The tile threads' state: the tile of this round, the one before. */
    unsigned prev = 0;
    size_t prevBase = 0;
    bool prevVec = false;
    int4 x[Tile::VECS];
    /* The walker's: the tile it walks this round (PIPE_END: none). */
    unsigned walk = PIPE_END;
    T walkAggregate = Ops::identity();

    for (unsigned k = 0;; ++k) {
        unsigned tile = PIPE_END;
        size_t base = 0;
        bool vec = false;
        if (!walker) {
            bool publish = false;
            tile = next(k, x, base, vec, publish);
            if (tile != PIPE_END) {   /* the same in every tile thread */
                const T aggregate = reduce(tile, base, vec, x, sync);
                if (threadIdx.x == 0) {
                    if (publish)
                        lookbackPublishAggregate<Ops, Policy>(
                            state, tile, aggregate, stallNs);
                    sl.aggregate[k % 2] = aggregate;
                }
            }
            if (threadIdx.x == 0) sl.tile[k % 2] = tile;
        } else if (walk != PIPE_END) {
            const LookbackResult<T> r =
                lookbackWalk<Ops, Policy>(state, walk, walkAggregate, stallNs);
            if (threadIdx.x == BLOCK) {
                sl.prefix[(k - 1) % 2] = r.exclusive;
                if (total && walk == tiles - 1) *total = r.inclusive;
            }
        }
        /* Round k: tile k handed over, tile k - 1 walked. */
        roundBar.arrive_and_wait();
        const unsigned handed = sl.tile[k % 2];
        if (!walker) {
            if (k > 0)
                finish(prev, prevBase, prevVec, sl.prefix[(k - 1) % 2],
                       sl.aggregate[(k - 1) % 2]);
            if (handed == PIPE_END) return;
            stash(x, sync);
            prev = tile;
            prevBase = base;
            prevVec = vec;
        } else {
            if (handed == PIPE_END) return;
            walk = handed;
            walkAggregate = sl.aggregate[k % 2];
        }
    }
}

template <class Tile, class Ops, class Policy, int SYNC, int PF = 0,
          class Reduce, class Finish, class Stash>
__device__ void lookbackPipelined(unsigned long long *state,
                                  PipeSlots<typename Ops::value_type> &sl,
                                  const int *in, size_t n, bool aligned,
                                  int pad, unsigned stallNs,
                                  typename Ops::value_type *total,
                                  Reduce &reduce, Finish &finish,
                                  Stash &stash)
{
    constexpr int BLOCK = Tile::WARPS * 32;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;

#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> tileBar, roundBar;
    if (threadIdx.x == 0) {
        if (SYNC == PIPE_MBARRIER) init(&tileBar, BLOCK);
        init(&roundBar, BLOCK + 32);
    }
    __syncthreads();   /* the barriers ready before anyone arrives */
    /* The tile warps' barrier, handed to reduce and stash. */
    auto sync = [&] {
        if constexpr (SYNC == PIPE_MBARRIER)
            tileBar.arrive_and_wait();
        else
            Tile::tileBarrier();
    };
    /* A tile from the counter, loaded from global memory. */
    auto next = [&](unsigned, int4(&x)[Tile::VECS], size_t &base, bool &vec,
                    bool &publish) {
        if (threadIdx.x == 0) sl.take = lookbackTakeTile(state);
        sync();
        const unsigned tile = sl.take;
        if (tile >= tiles) return PIPE_END;
        base = (size_t)tile * Tile::SIZE;
        vec = aligned && Tile::vectorOk(in, base, n);
        Tile::load(in, base, n, vec, x, pad);
        /* PF > 0: the L2 prefetch of the tile taken PF rounds later, about
         * (the grid's blocks take one tile each a round). */
        if constexpr (PF > 0)
            prefetchTileL2<Tile::SIZE, BLOCK>(
                in, (size_t)tile + (size_t)PF * gridDim.x, n, threadIdx.x);
        publish = true;
        return tile;
    };
    pipeRounds<Tile, Ops, Policy>(state, sl, roundBar, tiles, stallNs, total,
                                  next, sync, reduce, finish, stash);
}

#endif
