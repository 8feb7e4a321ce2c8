/* singlepass_split3.cuh: the exercise's three-way split in production. A
 * counting pass, then one placing pass, on day 33's "counts per block"
 * scheme (../../day31-scan/ranges.cuh): no look-back, no memset, no
 * atomics, no block ever waits for another. Maintainers only, like the
 * rest of solution/: it shows the answer's ranks.
 *
 * CONTRACT (split3Run, or the two kernels on one grid of G blocks):
 * - in[0..n) becomes out[0..n): every negative, then every zero, then every
 *   positive, each group in input order (stable in all three groups).
 *   Every slot of out[0..n) is written exactly once; nothing outside it.
 * - in and out must not overlap (in is read twice, once per pass, and the
 *   placing pass writes out while other blocks still read in); counts must
 *   overlap neither. n < 2^31 (HX_MAX_N): the placing pass keeps counts
 *   and slots in 32 bits.
 * - WHERE THE COUNTS LAND: countSplitRanges leaves block b's negatives and
 *   zeros in counts[2 b] and counts[2 b + 1], for every b < G (every slot
 *   written, so nothing to clear first). A and B, the group sizes, are not
 *   stored anywhere: every placing block sums the G pairs itself, and a
 *   caller that wants them sums the same pairs (split3Words: 2 G words).
 * - splitRanges must run on the grid countSplitRanges ran with, after it
 *   (the default stream orders them); block b takes the same contiguous
 *   range of tiles in both (tileRange). Any G >= 1 is correct; G = the
 *   blocks that fit at once is fast (the caller asks the occupancy).
 * - Any alignment of in and out: 16-byte vectors where the buffer allows
 *   (StripedTile::vectorOk, storeStaged), ints where it does not.
 *
 * WHAT IT COSTS, IN BYTES. read n (count) + read n and write n (place):
 * 3n ints, 1.5x a copy, for every mix; plus each placing block reads the
 * 2 G counts (G^2 words of L2 traffic in all, under a hundredth of n at
 * the course's sizes). The 3n is this scheme's price, not the problem's:
 * a stable split can also place each negative the moment the counts of
 * the negatives before it are known (a look-back), write the positives to
 * a scratch buffer (or backwards from the end of out) and move them into
 * place afterwards, and fill the zeros, which are all equal, without
 * reading them again: about 2n plus twice the deferred group, less than
 * 3n whenever that group is under half of n. Counts per block was chosen
 * because its cost does not depend on the mix, it needs no scratch buffer
 * and no waiting between blocks, and, of the schemes timed here, it ran
 * fastest: the look-back scheme (count, then a look-back placing pass,
 * dev/split3_variants.cu) was slower on the same tiles. The 2n + 2C
 * scheme has not been timed.
 *
 * THE CONFIGURATION (Split3, at the end): tiles of 256 threads x 16 ints,
 * at least 4 blocks per SM (__launch_bounds__), the next tile's loads in
 * flight while this one is placed (AHEAD), each block walking its range
 * from its last tile (BACKWARD: the tiles the counting pass read last,
 * maybe still in the L2, are read first), and the three runs of a tile
 * written as 16-byte vectors (STORE_VECTORS). The templates take the
 * knobs so that dev/ times the configurations that lost from this one
 * definition; the course runs Split3 alone.
 */
#ifndef SINGLEPASS_SPLIT3_CUH
#define SINGLEPASS_SPLIT3_CUH

#include <stddef.h>
#include <stdint.h>

#include "../../day31-scan/ranges.cuh"

/* One element's contribution to a packed count: negatives in the low 16
 * bits, zeros in the high 16. A tile holds fewer than 2^16 elements, so
 * sums of these over a tile never carry from one field into the other. */
__device__ inline unsigned signBits(int a)
{
    return a < 0 ? 1u : a == 0 ? 1u << 16 : 0u;
}

/* v[j] = the packed counts of the thread's j-th vector. */
template <int VECS>
__device__ inline void signsPerVector(const int4 (&x)[VECS],
                                      unsigned (&v)[VECS])
{
#pragma unroll
    for (int j = 0; j < VECS; ++j)
        v[j] = signBits(x[j].x) + signBits(x[j].y) + signBits(x[j].z) +
               signBits(x[j].w);
}

/* Stages and writes one tile, by every thread of the block. Called after
 * the barrier that makes warp 0's partials (scanUp) and the tile's counts
 * visible, and after every read of stage for an earlier tile (a barrier
 * since). x: the thread's vectors (pads positive, past valid); v: scanUp's
 * result over signsPerVector; tNeg, tZero: the tile's negatives and zeros;
 * negAt, zeroAt, posAt: where its three groups start in out; valid: its
 * real elements. The tile is staged as [negatives | zeros | positives],
 * each group in input order; a barrier; then the three runs leave.
 * STORE_STAGED: packed from stage[0], one int per thread per store.
 * STORE_VECTORS: each group staged at its run's offset modulo 4 in out
 * (stage: STAGED_INTS(SIZE, 3) ints, 16-byte aligned) and written by
 * storeStaged as 16-byte vectors. Reads stage after its barrier: the
 * caller's next write of stage must come after another. */
template <int THREADS, int ITEMS, int STORE>
__device__ void placeSplitTile(
    int *__restrict__ out, int *stage,
    const typename StripedTile<THREADS, ITEMS>::Storage &st,
    const int4 (&x)[ITEMS / 4], const unsigned (&v)[ITEMS / 4],
    unsigned tNeg, unsigned tZero, size_t negAt, size_t zeroAt, size_t posAt,
    unsigned valid)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    static_assert(Tile::SIZE < 65536, "a tile's counts fit in 16 bits");
    static_assert(STORE == STORE_STAGED || STORE == STORE_VECTORS,
                  "the split always stages");
    constexpr bool VECTORS = STORE == STORE_VECTORS;
    const unsigned negFrom = VECTORS ? stagedFrom(0, negAt) : 0;
    const unsigned zeroFrom =
        VECTORS ? stagedFrom((negFrom + tNeg + 3) & ~3u, zeroAt) : tNeg;
    const unsigned posFrom =
        VECTORS ? stagedFrom((zeroFrom + tZero + 3) & ~3u, posAt)
                : tNeg + tZero;
#pragma unroll
    for (int j = 0; j < Tile::VECS; ++j) {
        const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
        const unsigned own = signBits(e[0]) + signBits(e[1]) +
                             signBits(e[2]) + signBits(e[3]);
        const unsigned rank = Tile::exclusiveOf(j, v[j], own, st);
        unsigned negR = rank & 0xffffu, zeroR = rank >> 16;
        const unsigned at = 4 * (j * THREADS + threadIdx.x);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            if (at + c < valid)
                stage[e[c] < 0 ? negFrom + negR
                      : e[c] == 0 ? zeroFrom + zeroR
                                  : posFrom + (at + c - negR - zeroR)] = e[c];
            negR += e[c] < 0;
            zeroR += e[c] == 0;
        }
    }
    /* Every slot of stage that a run covers is written before it is
     * read. */
    __syncthreads();
    if constexpr (VECTORS) {
        const StagedRun runs[3] = {{negAt, negFrom, tNeg},
                                   {zeroAt, zeroFrom, tZero},
                                   {posAt, posFrom, valid - tNeg - tZero}};
        storeStaged<THREADS>(out, stage, runs, (uintptr_t)out % 16 == 0);
    } else {
        for (unsigned k = threadIdx.x; k < valid; k += THREADS)
            out[k < tNeg ? negAt + k
                : k < tNeg + tZero ? zeroAt + (k - tNeg)
                                   : posAt + (k - tNeg - tZero)] = stage[k];
    }
}

/* Pass 1: counts[2 b], counts[2 b + 1] = the negatives and the zeros in
 * block b's range of tiles (tileRange over gridDim.x blocks), for every
 * block b. Only reads: n ints. */
template <int THREADS, int ITEMS, bool AHEAD, int PF = 0>
__global__ void __launch_bounds__(THREADS)
countSplitRanges(const int *__restrict__ in, size_t n,
                 unsigned long long *__restrict__ counts)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    unsigned neg = 0, zero = 0;
    auto body = [&](size_t, int4 (&x)[Tile::VECS]) {
        unsigned v[Tile::VECS], packed = 0;
        signsPerVector(x, v);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) packed += v[j];
        /* At most ITEMS in a field: no carry. */
        neg += packed & 0xffffu;
        zero += packed >> 16;
    };
    /* 1 pads: positive, counted nowhere. */
    rangeEachTile<Tile, AHEAD, false, PF>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), 1, body);
    unsigned long long sums[2] = {neg, zero};
    blockSums<THREADS>(sums);
    if (threadIdx.x == 0) {
        counts[2 * (size_t)blockIdx.x] = sums[0];
        counts[2 * (size_t)blockIdx.x + 1] = sums[1];
    }
}

/* Pass 2 (the contract at the top): block b sums every block's counts (A,
 * B, and the negatives and zeros before its range), then places its range
 * of tiles, carrying the two counts from tile to tile. MIN_BLOCKS: the
 * blocks per SM __launch_bounds__ asks for. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, bool AHEAD, bool BACKWARD,
          int STORE, int PF = 0>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
splitRanges(const int *__restrict__ in, int *__restrict__ out, size_t n,
            const unsigned long long *__restrict__ counts)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    /* 16-byte vectors of stage are read only with STORE_VECTORS. */
    __shared__ alignas(STORE == STORE_VECTORS ? 16 : 4) int
        stage[STORE == STORE_VECTORS ? STAGED_INTS(Tile::SIZE, 3)
                                     : Tile::SIZE];
    __shared__ unsigned tileCounts;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;

    /* sums: the negatives and the zeros up to the end of this block's
     * range, then A and B. blockSums' barrier is the first of the kernel:
     * nothing in shared memory is live before it. */
    unsigned long long sums[4] = {0, 0, 0, 0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS) {
        const unsigned long long neg = counts[2 * (size_t)b],
                                 zero = counts[2 * (size_t)b + 1];
        sums[0] += b <= blockIdx.x ? neg : 0;
        sums[1] += b <= blockIdx.x ? zero : 0;
        sums[2] += neg;
        sums[3] += zero;
    }
    blockSums<THREADS>(sums);
    /* Below n < 2^31 from here on, so 32 bits hold every count and slot:
     * in 64 the 256 x 16 ahead configuration spills on sm_75 and sm_80. */
    const unsigned a = (unsigned)sums[2], ab = a + (unsigned)sums[3];
    /* The negatives and the zeros before the next tile walked (forward),
     * or before the end of the last one walked (BACKWARD). */
    unsigned negRun = (unsigned)sums[0], zeroRun = (unsigned)sums[1];
    if (!BACKWARD) {
        negRun -= (unsigned)counts[2 * (size_t)blockIdx.x];
        zeroRun -= (unsigned)counts[2 * (size_t)blockIdx.x + 1];
    }

    auto body = [&](size_t tile, int4 (&x)[Tile::VECS]) {
        const size_t base = tile * Tile::SIZE;
        const unsigned valid =
            n - base < (size_t)Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        signsPerVector(x, v);
        /* Every thread reaches scanUp's barrier only after the previous
         * tile's reads of st, tileCounts and stage (placeSplitTile's reads
         * of stage end that tile); lane 31 of each warp writes st just
         * before it. */
        const unsigned packed = Tile::scanUp(v, st);
        if (threadIdx.x == 0) tileCounts = packed;
        /* Everyone reads tileCounts and warp 0's scanned partials. */
        __syncthreads();
        const unsigned tNeg = tileCounts & 0xffffu, tZero = tileCounts >> 16;
        const unsigned negBefore = BACKWARD ? negRun - tNeg : negRun;
        const unsigned zeroBefore = BACKWARD ? zeroRun - tZero : zeroRun;
        negRun = BACKWARD ? negBefore : negRun + tNeg;
        zeroRun = BACKWARD ? zeroBefore : zeroRun + tZero;
        placeSplitTile<THREADS, ITEMS, STORE>(
            out, stage, st, x, v, tNeg, tZero, negBefore, a + zeroBefore,
            ab + ((unsigned)base - negBefore - zeroBefore), valid);
    };
    /* 1 pads: positive, so staged after every real element, never
     * stored. */
    rangeEachTile<Tile, AHEAD, BACKWARD, PF>(
        in, n, tileRange(tiles, blockIdx.x, gridDim.x), 1, body);
}

/* A configuration of the two passes: the tile's shape and the knobs
 * above, as dev/split3_variants.cu names them. */
template <int THREADS_, int ITEMS_, int MIN_BLOCKS_, bool AHEAD_,
          bool BACKWARD_, int STORE_, int PF_ = 0>
struct Split3Config {
    static constexpr int THREADS = THREADS_, ITEMS = ITEMS_;
    static constexpr int TILE = THREADS_ * ITEMS_;
    static constexpr auto count =
        countSplitRanges<THREADS_, ITEMS_, AHEAD_, PF_>;
    static constexpr auto place = splitRanges<THREADS_, ITEMS_, MIN_BLOCKS_,
                                              AHEAD_, BACKWARD_, STORE_, PF_>;
};

/* The production configuration, and its name as the tables print it. */
typedef Split3Config<256, 16, 4, true, true, STORE_VECTORS> Split3;
#define SPLIT3_NAME \
    "256 x 16 ahead, counts per block, backward, 4 blocks/SM, vector stores"


/* Words of counts for a grid of G blocks. */
__host__ __device__ inline size_t split3Words(unsigned grid)
{
    return 2 * (size_t)grid;
}

/* Tiles of configuration C over n elements: a grid never needs more
 * blocks than this. */
template <class C> inline size_t split3Tiles(size_t n)
{
    return (n + C::TILE - 1) / C::TILE;
}

/* Enqueues the split of in into out on stream, in configuration C, on
 * grid blocks (>= 1; counts: split3Words(grid) words). Nothing at n = 0.
 * Returns the launch error, or cudaSuccess; errors inside the kernels
 * surface at the caller's next synchronising call. */
template <class C>
cudaError_t split3Run(const int *in, int *out, size_t n,
                      unsigned long long *counts, unsigned grid,
                      cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    C::count<<<grid, C::THREADS, 0, stream>>>(in, n, counts);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    C::place<<<grid, C::THREADS, 0, stream>>>(in, out, n, counts);
    return cudaGetLastError();
}

#endif
