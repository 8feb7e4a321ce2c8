/* compaction_variants.cu: the maintainers' measurements of day 33's
 * single-pass kernels. Every configuration kept of the one-pass compaction
 * and of the stable partition, the production one first, side by side
 * with CUB at survival 0.1, 0.5 and 0.9, each row checked before it is
 * timed (a configuration that fails is named, left out of the timing, and
 * the run exits 1); --check runs them all, the look-back ones also with
 * the debug stalls, through the same self-check as ../compaction.cu.
 *
 * Kernels here (the production ones are ../singlepass_compact.cuh's and
 * ../stable_partition.cuh's, instantiated with other shapes):
 *   compactSinglePass   compaction, one tile at a time (lookbackEachTile)
 *                       or with the next tile's loads in flight (AHEAD),
 *                       its survivors written straight from registers, or
 *                       staged, or staged as 16-byte vectors (STORE)
 *   countEvens, partitionStable   the stable partition with a look-back in
 *                       its placing pass (the scheme that lost)
 *
 * Build: make -C day33-compaction dev      (ARCH, NVCC as for the lab;
 *        -lineinfo: a compute-sanitizer report names source lines)
 * Run:   ./day33-compaction/dev/compaction_variants [--n N] [--runs R]
 *        ./day33-compaction/dev/compaction_variants --check [--n N]
 */
#include <stdio.h>

#include "hx_args.h"
#include "hx_bench.h"
#include "hx_cuda.h"
#include "hx_time.h"
#include "lab.h"
#include "lookback.cuh"
#include "dev/lookback_variants.cuh"
#include "predicates.cuh"
#include "singlepass_compact.cuh"
#include "stable_partition.cuh"

static const char PROG[] = "compaction_variants";
static const char USAGE[] =
    "compaction_variants: every configuration kept of day 33's one-pass\n"
    "compaction and stable partition, production first, with CUB, at\n"
    "survival 0.1, 0.5 and 0.9 (at the lab's default n, or --n). --check\n"
    "runs compaction --check's loop on them all, the look-back ones also\n"
    "with the debug stalls. --variants is the default run.";

/* ---- The one-tile-at-a-time compaction ---------------------------------- */

/* What a look-back block keeps in shared memory besides its staged
 * output: the striped tile's partials, the tile index, and the tile's
 * prefix and own count as warp 0 found them. */
template <int THREADS, int ITEMS> struct PassShared {
    typename StripedTile<THREADS, ITEMS>::Storage st;
    unsigned tile;
    int prefix;   /* kept elements before the tile */
    int kept;     /* kept elements in the tile */
};

/* The head of a look-back tile, shared by compaction and the look-back
 * partition: count Keep over each thread's vectors (v[j]: then scanUp's
 * result), scan the counts across the tile, run the look-back in warp 0
 * under Policy, and leave the tile's prefix and count in sh. The block
 * that has the last tile writes the total to *count. Ends with a barrier:
 * every thread may read sh and call exclusiveOf. */
template <class Keep, class Policy, int THREADS, int ITEMS>
__device__ void passTileHead(size_t tiles, unsigned tile,
                             const int4 (&x)[ITEMS / 4],
                             unsigned (&v)[ITEMS / 4],
                             unsigned long long *state, int *count,
                             unsigned stallNs, PassShared<THREADS, ITEMS> &sh)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    keptPerVector<Keep>(x, v);
    /* Contains the barrier after which warp 0 has every warp's counts; the
     * previous tile's readers of sh passed the tile loop's barrier. */
    const unsigned aggregate = Tile::scanUp(v, sh.st);
    if (threadIdx.x < 32) {
        const LookbackResult<int> r = lookbackTileWith<LookbackSum, Policy>(
            state, tile, (int)aggregate, stallNs);
        if (threadIdx.x == 0) {
            sh.prefix = r.exclusive;
            sh.kept = (int)aggregate;
            if (tile == tiles - 1) *count = r.inclusive;
        }
    }
    /* Everyone reads sh.prefix, sh.kept and warp 0's partials. */
    __syncthreads();
}

/* The contract of compactPiped (../singlepass_compact.cuh), on the plain
 * or the ahead tile loop, with STORE's way out of the block. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, class Policy, bool AHEAD,
          int STORE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
compactSinglePass(const int *__restrict__ in, int *__restrict__ out, size_t n,
                  unsigned long long *state, int *count, unsigned stallNs)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ PassShared<THREADS, ITEMS> sh;
    /* One run needs STAGED_INTS(SIZE, 1), 8 ints less: the size for two is
     * the one every configuration here was measured with. */
    __shared__ __align__(16)
        int staged[STORE == STORE_DIRECT ? 4 : STAGED_INTS(Tile::SIZE, 2)];
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool vecOut = STORE == STORE_VECTORS && (uintptr_t)out % 16 == 0;

    auto body = [&](unsigned tile, size_t, bool, int4 (&x)[Tile::VECS]) {
        unsigned v[Tile::VECS];
        passTileHead<NonZero, Policy>(tiles, tile, x, v, state, count,
                                      stallNs, sh);
        const size_t prefix = (unsigned)sh.prefix;
        const unsigned kept = (unsigned)sh.kept;
        /* The tile's survivors sit at staged[shift ..]: out[prefix] and
         * staged[shift] have the same offset modulo 4. */
        const unsigned shift = stagedFrom(0, prefix);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const int e[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
            const unsigned own = NonZero()(e[0]) + NonZero()(e[1]) +
                                 NonZero()(e[2]) + NonZero()(e[3]);
            unsigned at = Tile::exclusiveOf(j, v[j], own, sh.st);
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (NonZero()(e[c])) {
                    if (STORE == STORE_DIRECT) out[prefix + at] = e[c];
                    else staged[shift + at] = e[c];
                    ++at;
                }
        }
        if (STORE != STORE_DIRECT) {
            /* Every survivor of the tile is in staged. The next tile
             * writes staged only after the barriers of its own scanUp and
             * look-back, when every thread has finished these stores. */
            __syncthreads();
            const StagedRun run[1] = {{prefix, shift, kept}};
            storeStaged<THREADS>(out, staged, run, vecOut);
        }
    };
    if constexpr (AHEAD)
        lookbackEachTileAhead<Tile>(state, &sh.tile, in, n, true, 0, body);
    else
        lookbackEachTile<Tile>(state, &sh.tile, in, n, true, 0, body);
}

/* ---- The stable partition with a look-back ------------------------------ */

/* Pass 1: adds the number of evens in in[0..n) to *evens (zero at launch).
 * Only reads: n ints. Tiles are independent here, so each block takes
 * tiles blockIdx.x, + gridDim.x, ... and adds its count once. */
template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
countEvens(const int *__restrict__ in, size_t n, unsigned long long *evens)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    unsigned mine = 0;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t base = tile * Tile::SIZE;
        int4 x[Tile::VECS];
        unsigned v[Tile::VECS];
        Tile::load(in, base, n, Tile::vectorOk(in, base, n), x, IsEven::REJECT);
        keptPerVector<IsEven>(x, v);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) mine += v[j];
    }
    unsigned long long sum[1] = {mine};
    blockSums<THREADS>(sum);
    if (threadIdx.x == 0) atomicAdd(evens, sum[0]);
}

/* Pass 2: every even of in at its rank among the evens, every odd at E +
 * its rank among the odds. E = state[0], written by countEvens (the
 * previous launch on the stream, so complete and visible); the look-back's
 * state starts at state + 1 and counts evens. Writes all n slots; leaves
 * E, counted a second time, in *count. */
template <int THREADS, int ITEMS, class Policy, bool AHEAD, int STORE>
__global__ void __launch_bounds__(THREADS)
partitionStable(const int *__restrict__ in, int *__restrict__ out, size_t n,
                unsigned long long *state, int *count, unsigned stallNs)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ PassShared<THREADS, ITEMS> sh;
    __shared__ __align__(16) int staged[STAGED_INTS(Tile::SIZE, 2)];
    const size_t evens = (size_t)state[0];
    unsigned long long *lookback = state + 1;
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    const bool vecOut = STORE == STORE_VECTORS && (uintptr_t)out % 16 == 0;

    auto body = [&](unsigned tile, size_t base, bool, int4 (&x)[Tile::VECS]) {
        const unsigned inTile =
            n - base < (size_t)Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        passTileHead<IsEven, Policy>(tiles, tile, x, v, lookback, count,
                                     stallNs, sh);
        const size_t evenBase = (unsigned)sh.prefix;
        placePartitionTile<IsEven, THREADS, ITEMS>(
            out, staged, sh.st, x, v, (unsigned)sh.kept, evenBase,
            evens + (base - evenBase), inTile, vecOut);
    };
    if constexpr (AHEAD)
        lookbackEachTileAhead<Tile>(lookback, &sh.tile, in, n, true,
                                    IsEven::REJECT, body);
    else
        lookbackEachTile<Tile>(lookback, &sh.tile, in, n, true,
                               IsEven::REJECT, body);
}

/* ---- The configurations ----------------------------------------------------
 * A name reads: threads x ints per thread; "piped": compactPiped's
 * pipelined loop (a walker warp), "ahead": the next tile's loads in flight,
 * neither: one tile at a time; relaxed or acq-rel atomics; the look-back's
 * window in tiles; "backoff": a warp that finds a predecessor not yet
 * published sleeps 128 ns, then 256, ... up to 1 us; blocks per SM where
 * __launch_bounds__ asks for them; how the output leaves ("vector stores",
 * "staged": one int per thread per store, "direct": each thread its own
 * survivors); for the partition, the scheme ("counts per block", its
 * ranges walked forward or "backward"; or "look-back"); "L2 prefetch":
 * with each tile's loads, prefetchTileL2 of the tile taken N rounds later
 * (piped) or N tiles further in the block's range (counts per block), the
 * kernels' PF (../day31-scan/NOTES.md, "An L2 prefetch a round ahead").
 * "(untuned)" marks the configuration before any tuning. The first of each
 * scheme's list is the production one. Every tile holds LAB_TILE ints or
 * more: lab.h sizes the single-pass state for that. */
enum { COMPACT, RANGES, LOOKBACK };

typedef struct {
    const char *name;
    int scheme;
    const void *pass;    /* compaction's kernel, or the placing pass */
    const void *count;   /* the partition's counting pass; NULL: none */
    int threads, block, tile;   /* tile threads, threads a block, its ints */
} Variant;

#define PIPED(T, I, S) PIPEDPF(T, I, S, 0)
#define PIPEDPF(T, I, S, PF)                                                \
    COMPACT, (const void *)compactPiped<NonZero, T, I, S, PF>, NULL, T,     \
        T + 32, T * I
#define ONE(T, I, B, P, A, S) \
    COMPACT, (const void *)compactSinglePass<T, I, B, P, A, S>, NULL, T, T, T * I
#define COUNTS(T, I, B, A, W) COUNTSPF(T, I, B, A, W, 0)
#define COUNTSPF(T, I, B, A, W, PF)                                        \
    RANGES, (const void *)partitionRanges<IsEven, T, I, B, A, W, PF>,      \
        (const void *)countRanges<IsEven, T, I, A, PF>, T, T, T * I
#define LOOK(T, I, P, A, S)                                                \
    LOOKBACK, (const void *)partitionStable<T, I, P, A, S>,                \
        (const void *)countEvens<T, I>, T, T, T * I
static const Variant variants[] = {
    {"256 x 32 piped, relaxed, window 32, vector stores, L2 prefetch 1 "
     "round ahead",
     PIPEDPF(COMPACT_THREADS, COMPACT_ITEMS, PIPE_NAMED, 1)},
    {"256 x 32 piped, relaxed, window 32, vector stores (production where "
     "a round of tiles is over a quarter of the L2)",
     PIPED(COMPACT_THREADS, COMPACT_ITEMS, PIPE_NAMED)},
    {"256 x 24 piped, relaxed, window 32, vector stores",
     PIPED(256, 24, PIPE_NAMED)},
    {"256 x 40 piped, relaxed, window 32, vector stores",
     PIPED(256, 40, PIPE_NAMED)},
    {"256 x 32 piped, relaxed, window 32, vector stores, L2 prefetch 2 "
     "rounds ahead",
     PIPEDPF(256, 32, PIPE_NAMED, 2)},
    {"256 x 40 piped, relaxed, window 32, vector stores, L2 prefetch 1 "
     "round ahead",
     PIPEDPF(256, 40, PIPE_NAMED, 1)},
    {"256 x 32 piped, mbarrier, relaxed, window 32, vector stores",
     PIPED(256, 32, PIPE_MBARRIER)},
    {"256 x 16, relaxed, window 32, vector stores",
     ONE(256, 16, 1, LookbackRelaxed32, false, STORE_VECTORS)},
    {"256 x 16, relaxed, window 32, staged",
     ONE(256, 16, 1, LookbackRelaxed32, false, STORE_STAGED)},
    {"256 x 16, relaxed, window 32, backoff, vector stores",
     ONE(256, 16, 1, LookbackRelaxed32Backoff, false, STORE_VECTORS)},
    {"256 x 16, relaxed, window 128, vector stores",
     ONE(256, 16, 1, LookbackRelaxed128, false, STORE_VECTORS)},
    {"256 x 16, acq-rel, window 32, staged (untuned)",
     ONE(256, 16, 1, LookbackAcqRel32, false, STORE_STAGED)},
    {"512 x 16, relaxed, window 32, vector stores",
     ONE(512, 16, 1, LookbackRelaxed32, false, STORE_VECTORS)},
    {"256 x 16 ahead, relaxed, window 32, vector stores",
     ONE(256, 16, 1, LookbackRelaxed32, true, STORE_VECTORS)},
    {"256 x 16 ahead, relaxed, window 128, direct",
     ONE(256, 16, 1, LookbackRelaxed128, true, STORE_DIRECT)},
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM",
     COUNTS(PARTITION_THREADS, PARTITION_ITEMS, PARTITION_MIN_BLOCKS, true,
            true)},
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM, L2 "
     "prefetch 2 tiles ahead",
     COUNTSPF(256, 16, 4, true, true, 2)},
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM, L2 "
     "prefetch 4 tiles ahead",
     COUNTSPF(256, 16, 4, true, true, 4)},
    {"256 x 16 ahead, counts per block, 4 blocks/SM",
     COUNTS(256, 16, 4, true, false)},
    {"256 x 16, counts per block, backward, 4 blocks/SM",
     COUNTS(256, 16, 4, false, true)},
    {"512 x 16 ahead, counts per block, backward, 2 blocks/SM",
     COUNTS(512, 16, 2, true, true)},
    {"256 x 16, look-back, acq-rel, window 32, staged (untuned)",
     LOOK(256, 16, LookbackAcqRel32, false, STORE_STAGED)},
    {"256 x 16 ahead, look-back, relaxed, window 128",
     LOOK(256, 16, LookbackRelaxed128, true, STORE_VECTORS)},
};
#undef PIPED
#undef PIPEDPF
#undef ONE
#undef COUNTS
#undef COUNTSPF
#undef LOOK
#define VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* A row's work: a configuration, the blocks of it that fit at once, and
 * the look-back's debug stalls (0 in every timed run). */
typedef struct {
    const Variant *v;
    unsigned fit, stallNs;
} VariantRun;

static VariantRun runs[VARIANTS][2];   /* [variant][stalled] */
static char stalledNames[VARIANTS][160];

/* The state is reset by a memset before every launch but the counts per
 * block's (their counting pass writes every block's slot): part of the
 * run, counted as a launch. Every pass runs on min(fit, tiles) blocks, or
 * the self-check's small grid. */
static void runVariant(void *ctx)
{
    const VariantRun *r = (const VariantRun *)ctx;
    const Variant *v = r->v;
    const int *in = v->scheme == COMPACT ? L.in : L.par;
    int *out = L.out.data, *count = L.counts + C_VARIANT;
    unsigned long long *state = L.state;
    size_t n = L.n;
    unsigned stall = r->stallNs;
    if (n == 0) {
        HX_CHECK(cudaMemsetAsync(count, 0, sizeof(int), 0));
        return;
    }
    const size_t tiles = (n + v->tile - 1) / v->tile;
    const unsigned want = L.passGrid ? L.passGrid : r->fit;
    const unsigned grid = tiles < want ? (unsigned)tiles : want;
    if (v->scheme != RANGES)
        HX_CHECK(cudaMemsetAsync(state, 0, lookbackBytes(tiles) +
                 (v->scheme == LOOKBACK ? sizeof *state : 0), 0));
    if (v->count) {
        void *args[] = {&in, &n, &state};
        HX_CHECK(cudaLaunchKernel(v->count, grid, v->threads, args, 0, 0));
    }
    void *args[] = {&in, &out, &n, &state, &count, &stall};
    HX_CHECK(cudaLaunchKernel(v->pass, grid, v->block, args, 0, 0));
}

static void prepareRuns(const hx_device *dev)
{
    for (int c = 0; c < VARIANTS; ++c) {
        const Variant *v = &variants[c];
        const unsigned fit = hx_resident_blocks(dev, v->pass, v->block, 0);
        runs[c][0] = VariantRun{v, fit, 0};
        runs[c][1] = VariantRun{v, fit, LAB_STALL_NS};
        snprintf(stalledNames[c], sizeof stalledNames[c], "%s, stalled",
                 v->name);
    }
}

/* Variant c's row (stalled: with the debug stalls; checks only). */
static hx_row variantRow(int c, int stalled)
{
    const Variant *v = &variants[c];
    const int compact = v->scheme == COMPACT;
    const double n = 4.0 * L.n;
    return hx_row{.name = stalled ? stalledNames[c] : v->name,
                  .run = runVariant, .ctx = &runs[c][stalled],
                  .want = L.want[compact ? W_COMPACT : W_PARTITION],
                  .total = L.counts + C_VARIANT,
                  .total_want = compact ? &L.kept : &L.evens,
                  .floor_bytes = compact ? n + 4.0 * L.kept : 3 * n,
                  .launches = v->scheme == LOOKBACK ? 3 : 2};
}

/* Every variant, the look-back ones also stalled. */
static int checkedRows(hx_row *r)
{
    int k = 0;
    for (int c = 0; c < VARIANTS; ++c) {
        r[k++] = variantRow(c, 0);
        if (variants[c].scheme != RANGES) r[k++] = variantRow(c, 1);
    }
    return k;
}

/* The bench's planted errors on the first configuration of each scheme. */
static int planted(void)
{
    int rc = HX_EXIT_OK;
    labInputs(0.5, -1, 7);
    for (int c = 0; c < VARIANTS; ++c)
        if (c == 0 || variants[c].scheme != variants[c - 1].scheme) {
            const hx_row r = variantRow(c, 0);
            rc |= hx_bench_check_the_check(&L.b, &r);
        }
    return rc != HX_EXIT_OK;
}

/* The timed rows: compaction's variants and CUB's select, then the
 * partition's and CUB's partition. */
static int timedRows(hx_row *r)
{
    int k = 0;
    for (int c = 0; c < VARIANTS; ++c) {
        if (c > 0 && variants[c - 1].scheme == COMPACT &&
            variants[c].scheme != COMPACT)
            r[k++] = hx_row{.name = "CUB DeviceSelect::If", .run = runCubSelect,
                            .want = L.want[W_COMPACT],
                            .total = L.counts + C_SELECT, .total_want = &L.kept,
                            .floor_bytes = 4.0 * (L.n + L.kept), .launches = 2};
        r[k] = variantRow(c, 0);
        if (c == 0) r[k].note = "single-pass compaction:";
        if (variants[c].scheme != COMPACT && variants[c - 1].scheme == COMPACT)
            r[k].note = "stable partition, count + place:";
        ++k;
    }
    r[k++] = hx_row{.name = "CUB DevicePartition::If (unstable)",
                    .run = runCubPartition, .want = L.want[W_CUB],
                    .total = L.counts + C_PARTITION, .total_want = &L.evens,
                    .floor_bytes = 8.0 * L.n, .launches = 2};
    return k;
}

static int runTables(const hx_opts *o)
{
    static const double rates[3] = {0.1, 0.5, 0.9};
    hx_row rows[HX_BENCH_MAX_ROWS];
    char title[160];
    const size_t n = hx_bench_timing_n(&L.b, LAB_DEVICE_INTS * sizeof(int),
                                       labBytes, NULL);
    int rc = n == (size_t)-1 ? HX_EXIT_NOMEM : labOpen(n), failed = 0;
    if (rc != HX_EXIT_OK) return rc;
    labResize(n);
    for (int s = 0; s < 3; ++s) {
        labInputs(rates[s], -1, o->seed);
        rc = hx_bench_measure(&L.b, rows, timedRows(rows), HX_BENCH_LEAVE_OUT);
        failed |= rc != HX_EXIT_OK;
        if (L.b.rows == 0) break;   /* a yardstick failed: nothing timed */
        snprintf(title, sizeof title, "single-pass configurations at "
                 "survival %.2f", rates[s]);
        hx_bench_table(&L.b, title, NULL);
    }
    if (failed)
        printf("variants: a configuration failed its check and was left out "
               "(above)\n");
    return failed ? HX_EXIT_FAIL : HX_EXIT_OK;
}

int main(int argc, char **argv)
{
    const double start = hx_now_seconds();
    hx_opts o;
    hx_device dev;
    int rc = hx_parse_args(argc, argv, &o, HX_OPT_VARIANTS, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    if ((rc = hx_device_open(&dev, PROG)) != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);
    prepareRuns(&dev);
    /* Sizes around the one-tile configurations' tile and grid, and the
     * piped tile and either side. */
    const size_t t = COMPACT_THREADS * COMPACT_ITEMS;
    const size_t extra[] = {t - 1, t, t + 1};
    int one = 0;   /* the first one-tile row: no walker warp */
    while (variants[one].scheme != COMPACT ||
           variants[one].block != variants[one].threads)
        ++one;
    const LabCheck check = {checkedRows, NULL, planted,
                            {(size_t)variants[one].tile, runs[one][0].fit,
                             SCAN_TILE, o.seed, extra, 3}};
    labBegin(&dev, &o, "day33-compaction-variants");
    rc = o.check ? labSelfCheck(&check) : runTables(&o);
    labEnd(start);
    return rc;
}
