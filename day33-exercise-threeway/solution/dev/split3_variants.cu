/* solution/dev/split3_variants.cu: the one-pass three-way split's
 * configurations that lost, and the look-back scheme before counts per
 * block, each checked against the host and timed beside the production
 * one (singlepass_split3.cuh). Maintainers only (make dev, make dev-check);
 * the figures are in solution/README.md.
 *
 * It is solution/onepass.cu with more rows: the same problem, rows,
 * checks, self-check and timing (included with ONEPASS_NO_MAIN and
 * ONEPASS_MORE_ROWS), plus
 *   countSigns, splitOnePass   the look-back scheme: A and B counted into
 *                  two device counters, then tiles in start order learn the
 *                  counts before them from day 31's decoupled look-back
 *                  (two counts per status word, LookbackCounts)
 *   variants[]     the configurations still worth timing again: each an
 *                  instance of the production header's templates (counts
 *                  per block) or of splitOnePass; the first is production.
 * Configurations nobody will time again are in the history only.
 *
 * Build: make -C day33-exercise-threeway dev   (solution/onepass.mk)
 * Run:   build/onepass/split3-variants [--n N] [--runs R]   time them all
 *        build/onepass/split3-variants --check   check them all: onepass.cu's
 *          self-check with every variant on as many blocks as fit and on 3,
 *          the look-back also with its debug stalls and on a misaligned
 *          input (to 2^26; above, onePassSplit alone), then errors planted
 *          in onePassSplit's output must be caught
 */
static int variantRows(struct hx_row *r, int extra, int huge);
#define ONEPASS_MORE_ROWS variantRows   /* after onepass.cu's own rows */
#define ONEPASS_NO_MAIN
#include "../onepass.cu"
/* The look-back (lookback.cuh) and its tile loops. */
#include "../../../day31-scan/dev/lookback_variants.cuh"

/* ---- The look-back scheme ----------------------------------------------- */

/* Pass 1: totals[0] += negatives, totals[1] += zeros of in[0..n) (both
 * zero at launch). 16-byte loads when in is aligned; one pair of atomics
 * per warp. Any grid. */
__global__ void countSigns(const int *__restrict__ in, size_t n,
                           unsigned long long *totals)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t scalarFrom = 0;
    unsigned neg = 0, zero = 0;
    if ((uintptr_t)in % 16 == 0) {
        const int4 *v = reinterpret_cast<const int4 *>(in);
        const size_t vecs = n / 4;
#pragma unroll 4
        for (size_t i = tid; i < vecs; i += stride) {
            const int4 x = v[i];
            neg += (x.x < 0) + (x.y < 0) + (x.z < 0) + (x.w < 0);
            zero += (x.x == 0) + (x.y == 0) + (x.z == 0) + (x.w == 0);
        }
        scalarFrom = 4 * vecs;
    }
    for (size_t i = scalarFrom + tid; i < n; i += stride) {
        neg += in[i] < 0;
        zero += in[i] == 0;
    }
    /* Every lane of every warp gets here: the loops above are the only
     * branches, and they rejoin. */
    for (int off = 16; off > 0; off /= 2) {
        neg += __shfl_down_sync(0xffffffffu, neg, off);
        zero += __shfl_down_sync(0xffffffffu, zero, off);
    }
    if (threadIdx.x % 32 == 0) {
        if (neg) atomicAdd(&totals[0], (unsigned long long)neg);
        if (zero) atomicAdd(&totals[1], (unsigned long long)zero);
    }
}

/* Pass 2 (lookback.cuh's contract for the state and the grid): in[0..n)
 * split into out[0..n); mem holds A and B from countSigns, then the
 * look-back's state (zero at countSigns' launch, cleared with A and B by
 * one memset); in and out must not overlap. stallNs > 0: the look-back's
 * debug stalls. AHEAD: the next tile's loads in flight while this one is
 * split. Each tile is placed by the production header's placeSplitTile,
 * one int per thread per store. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, class Policy, bool AHEAD>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
splitOnePass(const int *in, int *__restrict__ out, size_t n,
             unsigned long long *mem, unsigned stallNs)
{
    typedef StripedTile<THREADS, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ int stage[Tile::SIZE];
    __shared__ unsigned tileSlot, tileCounts;
    __shared__ Counts before;
    const size_t a = mem[0], ab = a + mem[1];
    unsigned long long *state = mem + 2;

    auto body = [&](unsigned tile, size_t base, bool, int4 (&x)[Tile::VECS]) {
        const unsigned valid =
            n - base < Tile::SIZE ? (unsigned)(n - base) : Tile::SIZE;
        unsigned v[Tile::VECS];
        signsPerVector(x, v);
        const unsigned packed = Tile::scanUp(v, st);
        if (threadIdx.x < 32) {
            const Counts mine = {(int)(packed & 0xffffu), (int)(packed >> 16)};
            const LookbackResult<Counts> r =
                lookbackTileWith<LookbackCounts, Policy>(state, tile, mine,
                                                         stallNs);
            if (threadIdx.x == 0) {
                before = r.exclusive;
                tileCounts = packed;
            }
        }
        /* before, tileCounts and warp 0's scanned partials are read by
         * everyone; the previous tile's readers of stage passed the tile
         * loop's barrier. */
        __syncthreads();
        const size_t negBefore = (size_t)before.first;
        const size_t zeroBefore = (size_t)before.second;
        placeSplitTile<THREADS, ITEMS, STORE_STAGED>(
            out, stage, st, x, v, tileCounts & 0xffffu, tileCounts >> 16,
            negBefore, a + zeroBefore, ab + (base - negBefore - zeroBefore),
            valid);
    };
    /* Padding is 1, a positive: it adds nothing to the packed counts, sits
     * after every real element, and is never stored. */
    if constexpr (AHEAD)
        lookbackEachTileAhead<Tile>(state, &tileSlot, in, n, true, 1, body);
    else
        lookbackEachTile<Tile>(state, &tileSlot, in, n, true, 1, body);
}

/* ---- The configurations ------------------------------------------------- */

typedef void (*CountKernel)(const int *, size_t, unsigned long long *);
typedef void (*PlaceKernel)(const int *, int *, size_t,
                            const unsigned long long *);
typedef void (*LookbackKernel)(const int *, int *, size_t,
                               unsigned long long *, unsigned);

/* A name reads: threads x ints per thread; "ahead": the next tile's loads
 * in flight; "backward": each block walks its range from its end; the
 * look-back's atomics and window; blocks per SM from __launch_bounds__
 * (none named: no minimum); "vector stores": STORE_VECTORS, else
 * STORE_STAGED (one int per thread per store); "L2 prefetch N tiles
 * ahead": with each tile's loads, both passes prefetch (prefetchTileL2) the
 * tile N further in the block's range (their PF; day 31's NOTES.md, "An
 * L2 prefetch a round ahead"). Counts per block: count and place;
 * look-back: lookback (after countSigns). */
typedef struct {
    const char *name;
    CountKernel count;
    PlaceKernel place;
    LookbackKernel lookback;
    int threads, tile;
    unsigned resident;   /* blocks of place (or lookback) that fit at once */
} Variant;

static Variant variants[] = {
    {SPLIT3_NAME " (production)", Split3::count, Split3::place, NULL, 256,
     Split3::TILE, 0},
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM",
     countSplitRanges<256, 16, true>,
     splitRanges<256, 16, 4, true, true, STORE_STAGED>, NULL, 256, 4096, 0},
    {"256 x 16 ahead, counts per block, 4 blocks/SM",
     countSplitRanges<256, 16, true>,
     splitRanges<256, 16, 4, true, false, STORE_STAGED>, NULL, 256, 4096, 0},
    {"256 x 16, counts per block, backward, 4 blocks/SM, vector stores",
     countSplitRanges<256, 16, false>,
     splitRanges<256, 16, 4, false, true, STORE_VECTORS>, NULL, 256, 4096, 0},
    {"256 x 16 ahead, counts per block, backward, vector stores",
     countSplitRanges<256, 16, true>,
     splitRanges<256, 16, 1, true, true, STORE_VECTORS>, NULL, 256, 4096, 0},
    {"512 x 16 ahead, counts per block, backward, 2 blocks/SM",
     countSplitRanges<512, 16, true>,
     splitRanges<512, 16, 2, true, true, STORE_STAGED>, NULL, 512, 8192, 0},
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM, vector "
     "stores, L2 prefetch 2 tiles ahead",
     countSplitRanges<256, 16, true, 2>,
     splitRanges<256, 16, 4, true, true, STORE_VECTORS, 2>, NULL, 256, 4096,
     0},
    {"256 x 16 ahead, counts per block, backward, 4 blocks/SM, vector "
     "stores, L2 prefetch 4 tiles ahead",
     countSplitRanges<256, 16, true, 4>,
     splitRanges<256, 16, 4, true, true, STORE_VECTORS, 4>, NULL, 256, 4096,
     0},
    {"256 x 16, look-back, acq-rel, window 32, 4 blocks/SM", NULL, NULL,
     splitOnePass<256, 16, 4, LookbackAcqRel32, false>, 256, 4096, 0},
};
#define VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* The variants' pass-1 output and pass-2 input, for any n <= HX_MAX_N:
 * counts per block, two words per block; the look-back, [A, B | its
 * state] (tiles of 4096 or more). */
static unsigned long long *mem;

static size_t memWords(void)
{
    unsigned most = SMALL_GRID;
    for (const Variant &v : variants)
        most = v.resident > most ? v.resident : most;
    return 2 + lookbackBytes(HX_MAX_N / 4096 + 1) / 8 + 2 * (size_t)most;
}

static void launchCountSigns(const int *in)
{
    const unsigned grid = hx_grid_for(P.dev, P.n / 4 + 1, TPB);
    countSigns<<<grid, TPB>>>(in, P.n, mem);
    HX_CHECK_LAUNCH("countSigns");
}

enum { V_SMALL = 1, V_STALL = 2, V_SHIFTED = 4 };
typedef struct {
    const Variant *v;
    unsigned how;
    char name[160];
} VariantRun;

static void runVariant(void *ctx)
{
    const VariantRun *r = (const VariantRun *)ctx;
    const Variant *v = r->v;
    const int *in = r->how & V_SHIFTED ? P.shift + 1 : P.in;
    const size_t tiles = (P.n + v->tile - 1) / v->tile;
    unsigned grid = tiles < v->resident ? (unsigned)tiles : v->resident;
    grid = r->how & V_SMALL ? SMALL_GRID : grid ? grid : 1u;
    if (v->lookback) {
        HX_CHECK(cudaMemsetAsync(mem, 0, 16 + lookbackBytes(tiles), 0));
        if (P.n == 0) return;
        launchCountSigns(in);
        v->lookback<<<grid, v->threads>>>(in, P.out.data, P.n, mem,
                                          r->how & V_STALL ? 4000u : 0u);
        HX_CHECK_LAUNCH("splitOnePass");
        return;
    }
    if (P.n == 0) return;
    v->count<<<grid, v->threads>>>(in, P.n, mem);
    HX_CHECK_LAUNCH("countSplitRanges");
    v->place<<<grid, v->threads>>>(in, P.out.data, P.n, mem);
    HX_CHECK_LAUNCH("splitRanges");
}

/* countSigns alone: the memset, then the count. */
static void runCountSigns(void *)
{
    HX_CHECK(cudaMemsetAsync(mem, 0, 2 * sizeof *mem, 0));
    if (P.n) launchCountSigns(P.in);
}

static int checkCountSigns(const hx_bench *, const hx_row *, const char *what)
{
    unsigned long long t[2];
    HX_CHECK(cudaMemcpy(t, mem, sizeof t, cudaMemcpyDeviceToHost));
    if (t[0] == P.a && t[1] == P.ab - P.a) return 0;
    printf("%s: FAIL at n=%zu: counted %llu negatives and %llu zeros, want "
           "%zu and %zu\n", what, P.n, t[0], t[1], P.a, P.ab - P.a);
    return 1;
}

static VariantRun runs[4 * VARIANTS];

/* The rows after onepass.cu's: countSigns alone, then every variant,
 * checked as onePassSplit is. extra (the self-check): each also on
 * SMALL_GRID blocks, the look-back also stalled (on both grids) and on
 * the misaligned input. huge: none. */
static int variantRows(hx_row *r, int extra, int huge)
{
    const int *want = P.n <= FULL_REPORT_MAX ? NULL : P.ref;
    int k = 0, nr = 0;
    if (huge) return 0;
    r[k++] = hx_row{.name = "countSigns (look-back's pass 1 alone)",
                    .run = runCountSigns, .check = checkCountSigns,
                    .floor_bytes = (double)P.n * sizeof(int),
                    .launches = 1 + (P.n > 0)};
    auto add = [&](int v, unsigned how) {
        VariantRun *run = &runs[nr++];
        run->v = &variants[v];
        run->how = how;
        snprintf(run->name, sizeof run->name, "%s%s%s%s", variants[v].name,
                 how & V_SMALL ? ", 3 blocks" : "",
                 how & V_STALL ? ", stalled look-back" : "",
                 how & V_SHIFTED ? ", misaligned input" : "");
        r[k++] = hx_row{.name = run->name, .run = runVariant, .ctx = run,
                        .want = want, .check = want ? NULL : checkSplit,
                        .floor_bytes = 3.0 * P.n * sizeof(int),
                        .launches = (variants[v].lookback ? 1 : 0) +
                                    2 * (P.n > 0)};
    };
    for (int v = 0; v < VARIANTS; ++v) {
        add(v, 0);
        if (!extra) continue;
        add(v, V_SMALL);
        if (!variants[v].lookback) continue;
        add(v, V_STALL);
        add(v, V_SMALL | V_STALL);
        add(v, V_SHIFTED);
    }
    return k;
}

/* The checks can fail: errors planted in onePassSplit's output, at a size
 * with the three-way report and at one with the device compare. */
static int checkTheChecks(hx_bench *b)
{
    for (size_t n : {(size_t)65537, FULL_REPORT_MAX + 3}) {
        hx_row row;
        if (!problemCreate(b, n)) continue;
        problemLoad(b, HX_MIX_THIRDS, b->opts->seed);
        declareRows(&row, 0, 1);
        const int rc = hx_bench_check_the_check(b, &row);
        problemDestroy();
        if (rc != HX_EXIT_OK) return rc;
    }
    return HX_EXIT_OK;
}

int main(int argc, char **argv)
{
    hx_opts o;
    hx_device dev;
    hx_bench b;
    int rc = hx_parse_args(argc, argv, &o, HX_OPT_VARIANTS, "split3-variants",
                           "The one-pass three-way split's configurations "
                           "and the look-back scheme,\nchecked (--check) or "
                           "timed (the default, or --variants).");
    if (rc != HX_EXIT_OK || o.help) return rc;
    if ((rc = hx_device_open(&dev, "split3-variants")) != HX_EXIT_OK)
        return rc;
    hx_device_print(&dev, stdout);
    for (Variant &v : variants)
        v.resident = hx_resident_blocks(
            &dev, v.lookback ? (const void *)v.lookback : (const void *)v.place,
            v.threads, 0);
    HX_CHECK(cudaMalloc(&mem, memWords() * sizeof *mem));
    hx_bench_open(&b, &dev, &o, "day33-exercise-threeway/dev");
    rc = o.check ? selfCheck(&b) : timeRows(&b);
    if (o.check && rc == HX_EXIT_OK && !o.n_set) rc = checkTheChecks(&b);
    hx_bench_close(&b);
    HX_CHECK(cudaFree(mem));
    printf("%s\n", rc == HX_EXIT_OK ? "split3-variants: pass" : "FAIL");
    return rc;
}
