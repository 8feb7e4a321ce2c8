/* dev/lookback_variants.cuh: the look-back pieces only the variants use
 * (dev/ programs of every day): the look-back policies that lost to
 * LookbackRelaxed32, the first form of the look-back (lookbackTile), and
 * the two tile loops before the pipelined one (lookbackEachTile, one tile
 * at a time; lookbackEachTileAhead, the next tile's loads in flight during
 * the look-back), with the block-wide index hand-out they take tiles by
 * (lookbackNextTile). The protocol they run is ../lookback.cuh's, whose
 * comments (DEADLOCK, MEMORY ORDERING) hold for them too.
 * Measured on an H200, every kernel on these loops was slower than the
 * pipelined loop (../README.md and ../evidence-h200.txt); they are kept
 * so that a maintainer can measure them again (make dev).
 */
#ifndef LOOKBACK_VARIANTS_CUH
#define LOOKBACK_VARIANTS_CUH

#include "../lookback.cuh"


/* The policies the course's configuration tables name. LookbackAcqRel32
 * is the first form (lookbackTile); backoff starts at 128 ns (up to 1 us). */
typedef LookbackPolicy<1, false, 0> LookbackAcqRel32;
typedef LookbackPolicy<4, false, 0> LookbackAcqRel128;
typedef LookbackPolicy<2, true, 0> LookbackRelaxed64;
typedef LookbackPolicy<4, true, 0> LookbackRelaxed128;
typedef LookbackPolicy<1, true, 128> LookbackRelaxed32Backoff;
typedef LookbackPolicy<4, true, 128> LookbackRelaxed128Backoff;

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

/* The first form of the look-back, kept for callers written against it:
 * a window of 32, no backoff, acquire-release unless RELAXED. */
template <class Ops, bool RELAXED = false>
__device__ LookbackResult<typename Ops::value_type>
lookbackTile(unsigned long long *state, unsigned tile,
             typename Ops::value_type aggregate, unsigned stallNs)
{
    return lookbackTileWith<Ops, LookbackPolicy<1, RELAXED, 0> >(
        state, tile, aggregate, stallNs);
}

/* ------------------------------------------------------------------------
 * The tile loops. A single-pass kernel is a loop over the tiles its block
 * takes; Body is what it does with one of them:
 *     body(tile, base, vec, x)
 * called by every thread of the block with the tile's index, its first
 * element, whether it may use 16-byte vectors (aligned, from the caller,
 * and StripedTile::vectorOk), and x, the thread's vectors of the tile
 * already loaded (StripedTile::load; slots at or past n hold pad). body may
 * change x. It must contain a __syncthreads() (StripedTile::scanUp has
 * one), and may reuse its shared memory from one call to the next without
 * another: both loops put a barrier between two calls.
 * ---------------------------------------------------------------------- */

/* One tile at a time: take an index, load the tile, run body. While a
 * block's warp 0 walks back, the block has no loads of its own in flight. */
template <class Tile, class Body>
__device__ void lookbackEachTile(unsigned long long *state, unsigned *slot,
                                 const int *in, size_t n, bool aligned,
                                 int pad, Body &body)
{
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    for (;;) {
        const unsigned tile = lookbackNextTile(state, slot);
        if (tile >= tiles) return;   /* the same in every thread */
        const size_t base = (size_t)tile * Tile::SIZE;
        const bool vec = aligned && Tile::vectorOk(in, base, n);
        int4 x[Tile::VECS];
        Tile::load(in, base, n, vec, x, pad);
        body(tile, base, vec, x);
    }
}

/* One step of lookbackEachTileAhead: body on tile (its vectors in cur)
 * while next's loads, issued first, are in flight into nxt, and thread 0's
 * atomic takes the index after next. Returns that index (to every thread;
 * meaningless when next >= tiles). The barrier at the end makes the
 * index visible and separates this body from the next. */
template <class Tile, class Body>
__device__ __forceinline__ unsigned
lookbackAheadStep(unsigned long long *state, unsigned *slot, const int *in,
                  size_t n, size_t tiles, bool aligned, int pad,
                  unsigned tile, unsigned next, int4 (&cur)[Tile::VECS],
                  int4 (&nxt)[Tile::VECS], Body &body)
{
    unsigned ticket = 0;
    if (next < tiles) {
        const size_t at = (size_t)next * Tile::SIZE;
        Tile::load(in, at, n, aligned && Tile::vectorOk(in, at, n), nxt, pad);
        if (threadIdx.x == 0) ticket = lookbackTakeTile(state);
    }
    const size_t base = (size_t)tile * Tile::SIZE;
    body(tile, base, aligned && Tile::vectorOk(in, base, n), cur);
    if (threadIdx.x == 0) *slot = ticket;
    __syncthreads();
    return *slot;
}

/* The same loop with the next tile's loads in flight while body works on
 * the current one (its look-back above all), so the block keeps memory
 * busy while its warp 0 walks back. Costs a second set of x's registers.
 * A block holds up to three indices at once (the tile in body, the one
 * loading, the one taken); each tile's aggregate still waits only for the
 * block's previous tile, of a smaller index (DEADLOCK at the top). The
 * loop is unrolled twice so the two register sets swap roles without a
 * copy. Measured on an H200, every configuration with this loop was
 * slower than the plain loop, with a wide spread between runs
 * (day31-scan/evidence-h200.txt): the indices a block holds but has not
 * reached make the tiles after them wait for their aggregates. It is
 * kept for the comparison; no production row uses it. */
template <class Tile, class Body>
__device__ void lookbackEachTileAhead(unsigned long long *state,
                                      unsigned *slot, const int *in, size_t n,
                                      bool aligned, int pad, Body &body)
{
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    unsigned tile = lookbackNextTile(state, slot);
    if (tile >= tiles) return;
    int4 a[Tile::VECS], b[Tile::VECS];
    {
        const size_t base = (size_t)tile * Tile::SIZE;
        Tile::load(in, base, n, aligned && Tile::vectorOk(in, base, n), a,
                   pad);
    }
    __syncthreads();   /* every thread has read slot before it changes */
    unsigned next = lookbackNextTile(state, slot);
    for (;;) {
        const unsigned after = lookbackAheadStep<Tile>(
            state, slot, in, n, tiles, aligned, pad, tile, next, a, b, body);
        if (next >= tiles) return;
        const unsigned afterNext = lookbackAheadStep<Tile>(
            state, slot, in, n, tiles, aligned, pad, next, after, b, a, body);
        if (after >= tiles) return;
        tile = after;
        next = afterNext;
    }
}

#endif
