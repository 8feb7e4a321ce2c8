/* compaction.cu: day 33. Stream compaction and the stable two-way partition
 * built from three kernels you already have (a predicate, the day 31 scan, a
 * scatter); the same job with one atomic counter; and the gather and scatter
 * primitives underneath. Every variant is checked against the host, element
 * for element, before it is timed against a copy of the same buffers.
 *
 * Kernels, by the lesson's names:
 *   markNonZero, markEven  rank[i] = pred(in[i]) ? 1 : 0 (the flags are written
 *                          straight into the rank buffer)
 *   scanExclusive          the day 31 scan (../day31-scan/tile_scan.cu, reused,
 *                          not copied), in place: the flags become ranks
 *   scatterCompact         out[rank[i]] = in[i] where in[i] != 0
 *   scatterPartition       evens to rank[i], odds to *totalEven + (i - rank[i])
 *   compactAtomic          out[atomicAdd(counter, 1)] = in[i]: the same values,
 *                          in whatever order the hardware serves the counter
 *   copyInts               the baseline: n ints read, n ints written
 *   gather, scatter        out[i] = in[map[i]] and out[map[i]] = in[i]
 * Library rows, the target later days reach: cub::DeviceSelect::If and
 * cub::DevicePartition::If.
 *
 * Build: make -C day33-compaction         (ARCH, NVCC: see ../harness/harness.mk)
 * Run:   ./day33-compaction/compaction [--n N] [--keep P] [--seed S]
 *                                      [--runs R] [--warmup W]
 *        ./day33-compaction/compaction --check      (GPU self-check, no timing)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_time.h"
#include "tile_scan.h"

static const char PROG[] = "compaction";

static const char USAGE[] =
    "compaction: stream compaction and partition as predicate, scan and\n"
    "scatter, against one atomic counter, a copy and the CUB library; then\n"
    "gather and scatter over an identity map, a random permutation and a map\n"
    "with repeated destinations. --keep P sets the survival fraction of the\n"
    "main table (and the even fraction of the partition). --check runs the\n"
    "GPU self-check (sizes 0, 1, 255, 256, 257, 65537, 16777217 and a random\n"
    "odd one, or only --n N when given) and times nothing.";

/* Threads per block of every element-wise kernel. */
#define BLOCK 256u
/* The small grid of the self-check: far fewer blocks than the work, so
 * every grid-stride loop runs many rounds. */
#define SMALL_GRID 3u

/* ---- Predicates ------------------------------------------------------ */

/* Each predicate is defined once and used by the mark kernel, the scatter
 * (which evaluates it again instead of reading a flag array: see
 * scatterCompact), the atomic kernel and CUB. The host twins are
 * hx_pred_nonzero and hx_pred_even. */
struct NonZero {
    __host__ __device__ bool operator()(int v) const { return v != 0; }
};
struct IsEven {
    /* v % 2 is -1 for negative odd v, so compare with 0, not with 1. */
    __host__ __device__ bool operator()(int v) const { return v % 2 == 0; }
};

/* The one body both mark kernels share: they differ only in Pred. in and
 * flags are different buffers. */
template <typename Pred>
__device__ void markWith(const int *__restrict__ in, int *__restrict__ flags,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = Pred()(in[i]) ? 1 : 0;
}

__global__ void markNonZero(const int *__restrict__ in,
                            int *__restrict__ flags, size_t n)
{
    markWith<NonZero>(in, flags, n);
}

__global__ void markEven(const int *__restrict__ in, int *__restrict__ flags,
                         size_t n)
{
    markWith<IsEven>(in, flags, n);
}

/* ---- Scan ------------------------------------------------------------ */

/* The day 31 scan, from tile_scan.h: scanExclusive(&plan, rank, total, 0)
 * turns the flags into ranks in place (rank[i] = survivors before i) and
 * leaves the survivor count in the device int *total, where the partition's
 * scatter reads it without a trip to the host. */

/* ---- Scatter --------------------------------------------------------- */

/* out[rank[i]] = in[i] for every surviving i: rank is the exclusive scan of
 * the flags, so the k-th survivor lands in slot k. The predicate is
 * evaluated again rather than read from a flag array: the mark kernel wrote
 * its flags into rank and the scan overwrote them, and keeping a second
 * copy would cost a buffer and 4 bytes of traffic per element to save a
 * comparison. in, rank and out are three different buffers. */
__global__ void scatterCompact(const int *__restrict__ in,
                               const int *__restrict__ rank,
                               int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        if (NonZero()(v)) out[rank[i]] = v;
    }
}

/* Stable partition: evens at out[0..E) in input order, odds at out[E..n)
 * in input order, where E = *totalEven, the scan's total left in device
 * memory. rank[i] counts the evens before i, so i - rank[i] counts the
 * odds before i: the odd slot needs no second counter and no second scan.
 * *totalEven was written by the scan's last kernel, which finished before
 * this launch started (same stream), so it is read once per thread. */
__global__ void scatterPartition(const int *__restrict__ in,
                                 const int *__restrict__ rank,
                                 int *__restrict__ out, size_t n,
                                 const int *__restrict__ totalEven)
{
    const size_t evens = (size_t)*totalEven;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t r = (size_t)rank[i];
        out[IsEven()(v) ? r : evens + (i - r)] = v;
    }
}

/* ---- Baselines ------------------------------------------------------- */

/* Compaction with one global counter: each survivor takes the next free
 * slot. This computes a different function from scatterCompact: the same
 * values, in an order decided by the scheduler, not by the input. *counter
 * must be 0 at launch and holds the survivor count after it. */
__global__ void compactAtomic(const int *__restrict__ in,
                              int *__restrict__ out, size_t n, int *counter)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        if (NonZero()(v)) out[atomicAdd(counter, 1)] = v;
    }
}

/* The yardstick every row is divided by: the same grid, the same input and
 * output buffers, and the least work a pass over them can do. */
__global__ void copyInts(const int *__restrict__ in, int *__restrict__ out,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[i];
}

/* ---- Gather and scatter ---------------------------------------------- */

/* out[i] = in[map[i]], every map[i] in [0, n): writes coalesced, reads
 * wherever map points. */
__global__ void gather(const int *__restrict__ in, const int *__restrict__ map,
                       int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[map[i]];
}

/* out[map[i]] = in[i]: reads coalesced, writes wherever map points. Where
 * destinations repeat, one of the writes survives and which one is
 * unspecified (the host reference keeps the last; the check accepts any). */
__global__ void scatter(const int *__restrict__ in, const int *__restrict__ map,
                        int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[map[i]] = in[i];
}

/* ---- The lab's buffers and the work each row enqueues ----------------- */

/* Device ints that hold counts: every count stays on the device, where the
 * next kernel (or the check, after the timing) reads it. */
enum {
    COUNT_KEPT,           /* compaction: the scan's total */
    COUNT_EVEN,           /* partition: the scan's total, the boundary */
    COUNT_ATOMIC,         /* compactAtomic's counter */
    COUNT_CUB_SELECT,
    COUNT_CUB_PARTITION,
    COUNT_SLOTS
};

typedef struct {
    size_t n;
    unsigned grid;        /* blocks of BLOCK threads, every element-wise kernel */
    int *in;              /* compaction input; later the gather/scatter source */
    int *par;             /* partition input */
    int *rank;            /* flags, then scanned in place into ranks */
    int *map;             /* gather/scatter indices */
    int *counts;          /* COUNT_SLOTS device ints */
    hx_guarded out;       /* every row's output: poisoned, between guards */
    ScanPlan plan;
    void *cubTemp;        /* allocated once, outside every timing */
    size_t cubTempBytes;
} Lab;

static void runCopy(void *ctx)
{
    Lab *L = (Lab *)ctx;
    copyInts<<<L->grid, BLOCK>>>(L->in, L->out.data, L->n);
    HX_CHECK_LAUNCH("copyInts");
}

static void runMark(void *ctx)
{
    Lab *L = (Lab *)ctx;
    markNonZero<<<L->grid, BLOCK>>>(L->in, L->rank, L->n);
    HX_CHECK_LAUNCH("markNonZero");
}

static void runMarkScan(void *ctx)
{
    Lab *L = (Lab *)ctx;
    runMark(ctx);
    scanExclusive(&L->plan, L->rank, L->counts + COUNT_KEPT, 0);
}

static void runScatter(void *ctx)
{
    Lab *L = (Lab *)ctx;
    scatterCompact<<<L->grid, BLOCK>>>(L->in, L->rank, L->out.data, L->n);
    HX_CHECK_LAUNCH("scatterCompact");
}

/* The three phases: mark, scan, scatter. */
static void runCompact(void *ctx)
{
    runMarkScan(ctx);
    runScatter(ctx);
}

static void runPartition(void *ctx)
{
    Lab *L = (Lab *)ctx;
    markEven<<<L->grid, BLOCK>>>(L->par, L->rank, L->n);
    HX_CHECK_LAUNCH("markEven");
    scanExclusive(&L->plan, L->rank, L->counts + COUNT_EVEN, 0);
    scatterPartition<<<L->grid, BLOCK>>>(L->par, L->rank, L->out.data, L->n,
                                         L->counts + COUNT_EVEN);
    HX_CHECK_LAUNCH("scatterPartition");
}

static void runAtomic(void *ctx)
{
    Lab *L = (Lab *)ctx;
    HX_CHECK(cudaMemsetAsync(L->counts + COUNT_ATOMIC, 0, sizeof(int), 0));
    compactAtomic<<<L->grid, BLOCK>>>(L->in, L->out.data, L->n,
                                      L->counts + COUNT_ATOMIC);
    HX_CHECK_LAUNCH("compactAtomic");
}

/* One call serves both the size query (temp = NULL) and the run, so the
 * two can never disagree on the types CUB sizes its storage for.
 * DeviceSelect::If counts in 64 bits whatever it is given; DevicePartition
 * takes the type of n, and int holds every n this lab accepts. */
static cudaError_t cubSelect(const Lab *L, void *temp, size_t *bytes)
{
    return cub::DeviceSelect::If(temp, *bytes, (const int *)L->in, L->out.data,
                                 L->counts + COUNT_CUB_SELECT,
                                 (int64_t)L->n, NonZero(), (cudaStream_t)0);
}

static cudaError_t cubPartition(const Lab *L, void *temp, size_t *bytes)
{
    return cub::DevicePartition::If(temp, *bytes, (const int *)L->par,
                                    L->out.data,
                                    L->counts + COUNT_CUB_PARTITION, (int)L->n,
                                    IsEven(), (cudaStream_t)0);
}

static void runCubSelect(void *ctx)
{
    Lab *L = (Lab *)ctx;
    size_t bytes = L->cubTempBytes;
    HX_CHECK(cubSelect(L, L->cubTemp, &bytes));
}

static void runCubPartition(void *ctx)
{
    Lab *L = (Lab *)ctx;
    size_t bytes = L->cubTempBytes;
    HX_CHECK(cubPartition(L, L->cubTemp, &bytes));
}

static void runGather(void *ctx)
{
    Lab *L = (Lab *)ctx;
    gather<<<L->grid, BLOCK>>>(L->in, L->map, L->out.data, L->n);
    HX_CHECK_LAUNCH("gather");
}

static void runScatterMap(void *ctx)
{
    Lab *L = (Lab *)ctx;
    scatter<<<L->grid, BLOCK>>>(L->in, L->map, L->out.data, L->n);
    HX_CHECK_LAUNCH("scatter");
}

/* Kernel launches per row (cudaMemset is not counted). CUB's select and
 * partition are one init kernel and one single-pass kernel each. */
static int launchesMarkScan(const Lab *L) { return 1 + scanLaunches(&L->plan); }
static int launchesThreePhase(const Lab *L) { return 2 + scanLaunches(&L->plan); }
#define CUB_LAUNCHES 2

/* ---- Host side: memory ------------------------------------------------ */

static int *hostInts(size_t n)
{
    int *p = (int *)malloc((n ? n : 1) * sizeof(int));
    if (!p) {
        fprintf(stderr, "%s: cannot allocate %.1f MiB of host memory\n", PROG,
                (double)n * sizeof(int) / (1 << 20));
        exit(HX_EXIT_NOMEM);
    }
    return p;
}

static int *deviceInts(size_t n)
{
    int *p = NULL;
    HX_CHECK(cudaMalloc(&p, (n ? n : 1) * sizeof(int)));
    return p;
}

static void upload(int *dst, const int *src, size_t n)
{
    HX_CHECK(cudaMemcpy(dst, src, n * sizeof(int), cudaMemcpyHostToDevice));
}

static void download(int *dst, const int *src, size_t n)
{
    HX_CHECK(cudaMemcpy(dst, src, n * sizeof(int), cudaMemcpyDeviceToHost));
}

static void poisonHost(int *a, size_t n)
{
    for (size_t i = 0; i < n; ++i) a[i] = HX_POISON;
}

/* Poisons the output (and its guards) before a checked run. */
static void poisonOut(Lab *L) { hx_guarded_poison(&L->out); }

static void poisonRank(Lab *L)
{
    HX_CHECK(cudaMemset(L->rank, HX_POISON_BYTE, (L->n ? L->n : 1) * sizeof(int)));
}

/* ---- Host side: inputs and references --------------------------------- */

/* The self-check's four inputs per size, and the names its lines print. */
enum { CASE_NONE, CASE_ALL, CASE_HALF, CASE_LAST_ONLY, CASES };
static const char *caseName[CASES] = {"0", "1", "0.5", "last-only"};

/* Compaction input: survival 0, 1, 0.5, or only the last element kept. */
static void fillCompactCase(int *a, size_t n, int c, uint64_t seed)
{
    if (c == CASE_LAST_ONLY) hx_fill_shape(a, n, HX_SHAPE_LAST_ONLY, seed);
    else hx_fill_survival(a, n, c == CASE_NONE ? 0.0 : c == CASE_ALL ? 1.0 : 0.5, seed);
}

/* Partition input with the same idea: no evens, all even, half, or one
 * even that is the last element. */
static void fillPartitionCase(int *a, size_t n, int c, uint64_t seed)
{
    const double pEven = c == CASE_ALL ? 1.0 : c == CASE_HALF ? 0.5 : 0.0;
    hx_fill_parity(a, n, pEven, seed);
    if (c == CASE_LAST_ONLY && n > 0) a[n - 1] = 123456;
}

/* What a poisoned output holds after a correct compaction: the survivors in
 * order, then poison (slots past the count are not part of the result, so
 * a correct kernel never writes them). Returns the count. */
static size_t wantCompact(const int *in, int *want, size_t n)
{
    poisonHost(want, n);
    return hx_compact(in, want, n, hx_pred_nonzero);
}

/* ---- Checks ------------------------------------------------------------ */

/* Every check prints one line naming what failed (what carries the size,
 * the survival and the kernel), the first bad index and both values, and
 * returns 1; it prints nothing and returns 0 on success. */

/* Fetches the output into host and checks the guards. */
static int fetchOut(const char *what, const Lab *L, int *host)
{
    hx_guard_report g;
    if (hx_guarded_fetch(&L->out, host, &g) == 0) return 0;
    printf("%s: FAIL: wrote outside the output\n", what);
    hx_guard_print(what, L->n, &g, stdout);
    return 1;
}

static int deviceCount(const Lab *L, int slot)
{
    int v = 0;
    HX_CHECK(cudaMemcpy(&v, L->counts + slot, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

static int checkCount(const char *what, const char *name, int got, size_t want)
{
    if (got >= 0 && (size_t)got == want) return 0;
    printf("%s: FAIL: %s is %d on the device, %zu on the host\n", what, name,
           got, want);
    return 1;
}

/* A stable result (compaction, partition, gather, scatter): the device
 * count (slot < 0: none) against the host's, then all n slots, the
 * poisoned tail included, element for element. */
static int checkStable(const char *what, const Lab *L, int slot,
                       const char *countName, const int *want, size_t count,
                       int *got)
{
    if (fetchOut(what, L, got)) return 1;
    if (slot >= 0 && checkCount(what, countName, deviceCount(L, slot), count))
        return 1;
    hx_cmp r;
    return hx_check_equal(what, got, want, L->n, &r, stdout);
}

/* The atomic result: the count, the same values as the stable order at
 * out[0..m) (slots out of order are information: *outOfOrder), and nothing
 * written past the count. */
static int checkAtomic(const char *what, const Lab *L, const int *want,
                       size_t m, int *got, size_t *outOfOrder)
{
    if (fetchOut(what, L, got)) return 1;
    if (checkCount(what, "the atomic counter", deviceCount(L, COUNT_ATOMIC), m))
        return 1;
    hx_same s;
    if (hx_check_same_values(what, got, want, m, &s, stdout)) return 1;
    size_t past = 0, first = 0;
    for (size_t i = m; i < L->n; ++i)
        if (got[i] != HX_POISON && past++ == 0) first = i;
    if (past) {
        printf("%s: FAIL: wrote past the count %zu: first bad index %zu: got %d, "
               "want poison; %zu slots past the count written\n",
               what, m, first, got[first], past);
        return 1;
    }
    *outOfOrder = s.out_of_order;
    return 0;
}

/* CUB's partition writes the rejected items to the back of the output in
 * reverse order (its documented contract), so the tail is read backwards
 * before comparing with the stable host partition. */
static int checkCubPartition(const char *what, const Lab *L, const int *want,
                             size_t evens, int *got)
{
    if (fetchOut(what, L, got)) return 1;
    if (checkCount(what, "the even count", deviceCount(L, COUNT_CUB_PARTITION),
                   evens))
        return 1;
    std::reverse(got + evens, got + L->n);
    hx_cmp r;
    return hx_check_equal(what, got, want, L->n, &r, stdout);
}

/* A scatter whose destinations repeat: every slot that some i maps to must
 * hold one of the values mapped there, and every other slot must still
 * hold poison. The device's lost writes are n minus the slots it wrote;
 * they must equal the host's (n minus the distinct destinations).
 * *otherWinner counts slots where a different writer won than the host's
 * last-writer-wins, which is allowed. */
static int checkLossyScatter(const char *what, const Lab *L, const int *in,
                             const int *map, const int *want, size_t hostLost,
                             int *got, size_t *deviceLost, size_t *otherWinner)
{
    enum { MAPPED = 1, MATCHED = 2 };
    const size_t n = L->n;
    if (fetchOut(what, L, got)) return 1;
    unsigned char *state = (unsigned char *)calloc(n ? n : 1, 1);
    if (!state) {
        fprintf(stderr, "%s: cannot allocate %zu bytes of host memory\n", PROG, n);
        exit(HX_EXIT_NOMEM);
    }
    for (size_t i = 0; i < n; ++i) {
        const size_t j = (size_t)map[i];
        state[j] |= MAPPED;
        if (got[j] == in[i]) state[j] |= MATCHED;
    }
    size_t bad = 0, first = 0, written = 0, other = 0;
    for (size_t j = 0; j < n; ++j) {
        const int ok = (state[j] & MAPPED) ? (state[j] & MATCHED) != 0
                                           : got[j] == HX_POISON;
        if (!ok && bad++ == 0) first = j;
        if (got[j] != HX_POISON) ++written;
        if (got[j] != want[j]) ++other;
    }
    free(state);
    if (bad) {
        printf("%s: FAIL at n=%zu: first bad index %zu: got %d, want %s; %zu "
               "of n slots bad\n",
               what, n, first, got[first],
               got[first] == HX_POISON ? "one of the values mapped there"
                                       : "a value mapped there, or poison if none is",
               bad);
        return 1;
    }
    *deviceLost = n - written;
    *otherWinner = other;
    if (*deviceLost != hostLost) {
        printf("%s: FAIL: the device lost %zu writes, the host reference %zu\n",
               what, *deviceLost, hostLost);
        return 1;
    }
    return 0;
}

/* ---- The self-check (--check) ------------------------------------------ */

/* One size: compaction, atomic and partition at the four inputs, then
 * gather and scatter over a permutation and a scatter whose destinations
 * repeat; all of it with the automatic grid and again with SMALL_GRID
 * blocks (the scan's grids too). Returns 0 or 1. */
static int checkSize(const hx_device *dev, Lab *L, size_t n, uint64_t seed,
                     int *hIn, int *hMap, int *hWant, int *hGot)
{
    char what[200];
    L->n = n;
    hx_guarded_alloc(&L->out, n);
    scanPlanCreate(&L->plan, n);
    const unsigned autoGrid = hx_grid_for(dev, n, BLOCK);

    for (int small = 0; small <= 1; ++small) {
        L->grid = small ? SMALL_GRID : autoGrid;
        L->plan.tileGrid = small ? SMALL_GRID : 0;
        L->plan.grid = small ? SMALL_GRID : 0;

        for (int c = 0; c < CASES; ++c) {
            fillCompactCase(hIn, n, c, seed + (uint64_t)c);
            upload(L->in, hIn, n);
            const size_t m = wantCompact(hIn, hWant, n);

            snprintf(what, sizeof what, "n=%zu survival %s grid %u: compaction",
                     n, caseName[c], L->grid);
            poisonOut(L);
            runCompact(L);
            if (checkStable(what, L, COUNT_KEPT, "the survivor count", hWant, m,
                            hGot))
                return 1;

            snprintf(what, sizeof what,
                     "n=%zu survival %s grid %u: compactAtomic", n, caseName[c],
                     L->grid);
            size_t outOfOrder = 0;
            poisonOut(L);
            runAtomic(L);
            if (checkAtomic(what, L, hWant, m, hGot, &outOfOrder)) return 1;

            fillPartitionCase(hIn, n, c, seed + 10 + (uint64_t)c);
            upload(L->par, hIn, n);
            const size_t evens = hx_partition(hIn, hWant, n, hx_pred_even);
            snprintf(what, sizeof what, "n=%zu even %s grid %u: partition", n,
                     caseName[c], L->grid);
            poisonOut(L);
            runPartition(L);
            if (checkStable(what, L, COUNT_EVEN, "the boundary (even count)",
                            hWant, evens, hGot))
                return 1;
        }

        hx_fill_uniform(hIn, n, -1000000000, 1000000000, seed + 20);
        hx_fill_permutation(hMap, n, seed + 21);
        upload(L->in, hIn, n);
        upload(L->map, hMap, n);
        hx_gather(hIn, hMap, hWant, n);
        snprintf(what, sizeof what, "n=%zu permutation grid %u: gather", n, L->grid);
        poisonOut(L);
        runGather(L);
        if (checkStable(what, L, -1, NULL, hWant, 0, hGot)) return 1;

        poisonHost(hWant, n);
        hx_scatter(hIn, hMap, hWant, n);
        snprintf(what, sizeof what, "n=%zu permutation grid %u: scatter", n, L->grid);
        poisonOut(L);
        runScatterMap(L);
        if (checkStable(what, L, -1, NULL, hWant, 0, hGot)) return 1;

        hx_fill_random_map(hMap, n, seed + 22);
        upload(L->map, hMap, n);
        poisonHost(hWant, n);
        const size_t hostLost = hx_scatter(hIn, hMap, hWant, n);
        size_t deviceLost = 0, otherWinner = 0;
        snprintf(what, sizeof what, "n=%zu repeated destinations grid %u: scatter",
                 n, L->grid);
        poisonOut(L);
        runScatterMap(L);
        if (checkLossyScatter(what, L, hIn, hMap, hWant, hostLost, hGot,
                              &deviceLost, &otherWinner))
            return 1;
    }
    printf("n=%zu: ok: compaction, compactAtomic (same values), partition "
           "(boundary and contents), gather, scatter (permutation and repeated "
           "destinations); survival 0, 1, 0.5, last-only; grids %u and %u "
           "blocks\n",
           n, autoGrid, SMALL_GRID);
    scanPlanDestroy(&L->plan);
    hx_guarded_free(&L->out);
    return 0;
}

static int selfCheck(const hx_device *dev, const hx_opts *o)
{
    size_t sizes[9] = {0, 1, 255, 256, 257, 65537, 16777217, 0, 0};
    int count = 8;
    if (o->n_set) {
        sizes[0] = o->n;
        count = 1;
    } else {
        hx_rng r;
        hx_rng_seed(&r, o->seed);
        sizes[7] = 2 * (size_t)hx_rng_below(&r, (uint64_t)1 << 21) + 1;
    }
    size_t maxN = 0;
    for (int k = 0; k < count; ++k) maxN = std::max(maxN, sizes[k]);

    const size_t need = 4 * maxN * sizeof(int) +
                        (maxN + 2 * HX_GUARD_WORDS) * sizeof(int) +
                        scanPlanBytes(maxN) + COUNT_SLOTS * sizeof(int);
    if (!hx_fits(dev, need)) {
        fprintf(stderr, "%s: the self-check needs %.1f MiB of device memory, "
                "%.1f MiB free\n", PROG, need / 1048576.0,
                dev->free_mem / 1048576.0);
        return HX_EXIT_NOMEM;
    }
    printf("self-check: seed %llu, %d sizes up to %zu; each at survival 0, 1, "
           "0.5 and one survivor that is the last element\n",
           (unsigned long long)o->seed, count, maxN);

    Lab L;
    memset(&L, 0, sizeof L);
    L.in = deviceInts(maxN);
    L.par = deviceInts(maxN);
    L.rank = deviceInts(maxN);
    L.map = deviceInts(maxN);
    L.counts = deviceInts(COUNT_SLOTS);
    int *hIn = hostInts(maxN), *hMap = hostInts(maxN);
    int *hWant = hostInts(maxN), *hGot = hostInts(maxN);

    for (int k = 0; k < count; ++k) {
        fflush(stdout);
        if (checkSize(dev, &L, sizes[k], o->seed + 100 * (uint64_t)k, hIn, hMap,
                      hWant, hGot)) {
            printf("self-check: FAILED\n");
            return HX_EXIT_FAIL;
        }
    }
    printf("self-check: all %d sizes passed\n", count);

    free(hIn); free(hMap); free(hWant); free(hGot);
    HX_CHECK(cudaFree(L.in)); HX_CHECK(cudaFree(L.par));
    HX_CHECK(cudaFree(L.rank)); HX_CHECK(cudaFree(L.map));
    HX_CHECK(cudaFree(L.counts));
    return HX_EXIT_OK;
}

/* ---- Timing ------------------------------------------------------------ */

static hx_timing timeRow(hx_work work, Lab *L, const hx_opts *o)
{
    return hx_time(work, L, o->warmup, o->runs);
}

/* A failed check before a timing ends the run: a number for a wrong result
 * would be worse than no number. */
static void mustPass(int failed)
{
    if (!failed) return;
    printf("%s: a check failed; nothing after it is timed\n", PROG);
    exit(HX_EXIT_FAIL);
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    hx_opts o;
    int rc = hx_parse_args(argc, argv, &o, HX_OPT_KEEP, PROG, USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    hx_device dev;
    rc = hx_device_open(&dev, PROG);
    if (rc != HX_EXIT_OK) return rc;

    hx_device_print(&dev, stdout);
    if (o.check) return selfCheck(&dev, &o);

    /* Buffers per element: input, partition input, ranks, output, map. */
    const size_t bytesPerElement = 5 * sizeof(int);
    char why[512] = "given with --n";
    const size_t n = o.n_set ? o.n : hx_default_n(&dev, bytesPerElement, why, sizeof why);

    Lab L;
    memset(&L, 0, sizeof L);
    L.n = n;
    L.grid = hx_grid_for(&dev, n, BLOCK);
    size_t selectBytes = 0, partitionBytes = 0;
    HX_CHECK(cubSelect(&L, NULL, &selectBytes));
    HX_CHECK(cubPartition(&L, NULL, &partitionBytes));
    L.cubTempBytes = std::max(selectBytes, partitionBytes);
    const size_t need = bytesPerElement * n + 2 * HX_GUARD_WORDS * sizeof(int) +
                        scanPlanBytes(n) + L.cubTempBytes +
                        COUNT_SLOTS * sizeof(int);
    if (!hx_fits(&dev, need)) {
        fprintf(stderr, "%s: n = %zu needs %.1f MiB of device memory, %.1f MiB "
                "free (try a smaller --n)\n", PROG, n, need / 1048576.0,
                dev.free_mem / 1048576.0);
        return HX_EXIT_NOMEM;
    }

    L.in = deviceInts(n);
    L.par = deviceInts(n);
    L.rank = deviceInts(n);
    L.map = deviceInts(n);
    L.counts = deviceInts(COUNT_SLOTS);
    hx_guarded_alloc(&L.out, n);
    scanPlanCreate(&L.plan, n);
    HX_CHECK(cudaMalloc(&L.cubTemp, L.cubTempBytes ? L.cubTempBytes : 1));
    int *hIn = hostInts(n), *hAux = hostInts(n);
    int *hWant = hostInts(n), *hGot = hostInts(n);

    const double mib = (double)n * sizeof(int) / 1048576.0;
    printf("n = %zu (%s)\n", n, why);
    printf("buffers: 5 of n ints, %.1f MiB each (input, partition input, "
           "ranks, output between guards, map); scan levels %.2f MiB, CUB "
           "temp %.2f MiB\n", mib, scanPlanBytes(n) / 1048576.0,
           L.cubTempBytes / 1048576.0);
    printf("grid: %u blocks of %u threads for every element-wise kernel "
           "(grid-stride loops)\n", L.grid, BLOCK);
    printf("scan: %d levels of %d-element tiles; tiles per level:", L.plan.levels,
           SCAN_TILE);
    for (int l = 0; l < L.plan.levels; ++l)
        printf(" %zu", (L.plan.count[l] + SCAN_TILE - 1) / SCAN_TILE);
    printf("; %d launches per scan\n", scanLaunches(&L.plan));
    printf("seed %llu; survival %.2f in the main table\n",
           (unsigned long long)o.seed, o.keep);
    printf("median of %d runs after %d warm-ups; host copies outside every timing\n",
           o.runs, o.warmup);
    hx_warn_if_cached(&dev, n * sizeof(int), stdout);
    printf("\n");

    /* --- Where the time goes, at survival o.keep --- */
    hx_fill_survival(hIn, n, o.keep, o.seed);
    upload(L.in, hIn, n);
    hx_fill_parity(hAux, n, o.keep, o.seed + 1);
    upload(L.par, hAux, n);

    poisonOut(&L);
    runCopy(&L);
    mustPass(checkStable("copy: copyInts", &L, -1, NULL, hIn, 0, hGot));
    const hx_timing copyMs = timeRow(runCopy, &L, &o);

    hx_mark(hIn, hWant, n, hx_pred_nonzero);
    poisonRank(&L);
    runMark(&L);
    download(hGot, L.rank, n);
    hx_cmp cmp;
    mustPass(hx_check_equal("mark the predicate: markNonZero", hGot, hWant, n,
                            &cmp, stdout));
    const hx_timing markMs = timeRow(runMark, &L, &o);

    const long long kept = hx_scan_exclusive(hWant, hWant, n);
    poisonRank(&L);
    runMarkScan(&L);
    download(hGot, L.rank, n);
    mustPass(hx_check_equal("mark then scan: ranks", hGot, hWant, n, &cmp, stdout));
    mustPass(checkCount("mark then scan", "the scan's total",
                        deviceCount(&L, COUNT_KEPT), (size_t)kept));
    const hx_timing markScanMs = timeRow(runMarkScan, &L, &o);

    /* rank now holds the ranks; the scatter never writes it. */
    const size_t m = wantCompact(hIn, hWant, n);
    poisonOut(&L);
    runScatter(&L);
    mustPass(checkStable("scatter alone: scatterCompact", &L, -1, NULL, hWant,
                         m, hGot));
    const hx_timing scatterMs = timeRow(runScatter, &L, &o);

    poisonOut(&L);
    runCompact(&L);
    mustPass(checkStable("compaction", &L, COUNT_KEPT, "the survivor count",
                         hWant, m, hGot));
    const hx_timing compactMs = timeRow(runCompact, &L, &o);

    size_t atomicDisorder = 0;
    poisonOut(&L);
    runAtomic(&L);
    mustPass(checkAtomic("compactAtomic", &L, hWant, m, hGot, &atomicDisorder));
    const hx_timing atomicMs = timeRow(runAtomic, &L, &o);

    poisonOut(&L);
    runCubSelect(&L);
    mustPass(checkStable("CUB DeviceSelect::If", &L, COUNT_CUB_SELECT,
                         "the selected count", hWant, m, hGot));
    const hx_timing cubSelectMs = timeRow(runCubSelect, &L, &o);

    const size_t evens = hx_partition(hAux, hWant, n, hx_pred_even);
    poisonOut(&L);
    runPartition(&L);
    mustPass(checkStable("partition", &L, COUNT_EVEN, "the boundary (even count)",
                         hWant, evens, hGot));
    const hx_timing partitionMs = timeRow(runPartition, &L, &o);

    poisonOut(&L);
    runCubPartition(&L);
    mustPass(checkCubPartition("CUB DevicePartition::If", &L, hWant, evens, hGot));
    const hx_timing cubPartitionMs = timeRow(runCubPartition, &L, &o);

    char title[160];
    snprintf(title, sizeof title, "where the time goes: n = %zu, survival %.2f",
             n, o.keep);
    hx_table_begin(stdout, title);
    hx_table_row(stdout, "copy", 1, &copyMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "mark the predicate", 1, &markMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "mark then scan", launchesMarkScan(&L), &markScanMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "scatter alone with ranks ready", 1, &scatterMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "compaction, all three phases", launchesThreePhase(&L),
                 &compactMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "partition, even then odd", launchesThreePhase(&L),
                 &partitionMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "compaction with one atomic counter", 1, &atomicMs, copyMs.median_ms, 0.0);
    hx_table_note(stdout, "the target later days reach (library, same run):");
    hx_table_row(stdout, "CUB DeviceSelect::If", CUB_LAUNCHES, &cubSelectMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "CUB DevicePartition::If", CUB_LAUNCHES, &cubPartitionMs, copyMs.median_ms, 0.0);
    hx_table_end(stdout);
    printf("copy: %.1f GB/s (%zu bytes read + %zu written per run)\n",
           hx_gbps(2.0 * n * sizeof(int), copyMs.median_ms), n * sizeof(int),
           n * sizeof(int));
    printf("compaction: %zu of %zu kept; atomic version: %zu of %zu slots out "
           "of the stable order (the atomic row computes a different function)\n",
           m, n, atomicDisorder, m);
    printf("partition: %zu even of %zu (the boundary); CUB's partition writes "
           "the odd group in reverse order\n\n", evens, n);

    /* --- The survival sweep: scan against one atomic counter --- */
    printf("survival sweep, n = %zu: compaction by scan against one atomic counter\n", n);
    printf("  %8s %12s %9s %7s %10s %7s %11s %20s\n", "survival", "survivors",
           "scan ms", "x copy", "atomic ms", "x copy", "scan/atomic",
           "slots out of order");
    const double sweep[3] = {0.1, 0.5, 0.9};
    int reused = 0;
    for (int k = 0; k < 3; ++k) {
        /* The same seed as the main table, so the rate it already measured
         * is the same input: its rows are reused rather than checked and
         * timed twice (the multiset check sorts, slow at this size). */
        size_t ms = m, disorder = atomicDisorder;
        double scanMs = compactMs.median_ms, atomMs = atomicMs.median_ms;
        if (sweep[k] == o.keep) {
            reused = 1;
        } else {
            char what[96];
            hx_fill_survival(hIn, n, sweep[k], o.seed);
            upload(L.in, hIn, n);
            ms = wantCompact(hIn, hWant, n);
            snprintf(what, sizeof what, "sweep %.1f: compaction", sweep[k]);
            poisonOut(&L);
            runCompact(&L);
            mustPass(checkStable(what, &L, COUNT_KEPT, "the survivor count",
                                 hWant, ms, hGot));
            scanMs = timeRow(runCompact, &L, &o).median_ms;
            snprintf(what, sizeof what, "sweep %.1f: compactAtomic", sweep[k]);
            poisonOut(&L);
            runAtomic(&L);
            mustPass(checkAtomic(what, &L, hWant, ms, hGot, &disorder));
            atomMs = timeRow(runAtomic, &L, &o).median_ms;
        }
        printf("  %8.1f %12zu %9.3f %7.2f %10.3f %7.2f %11.2f %11zu (%5.1f%%)%s\n",
               sweep[k], ms, scanMs, scanMs / copyMs.median_ms, atomMs, atomMs / copyMs.median_ms,
               scanMs / atomMs, disorder, ms ? 100.0 * disorder / ms : 0.0,
               sweep[k] == o.keep ? " *" : "");
    }
    printf("  (out of order: slots of the atomic output that differ from the "
           "stable order; its values are checked as a multiset)\n");
    if (reused) printf("  (*: the main table's input and rows)\n");
    printf("\n");

    /* --- Gather and scatter --- */
    hx_fill_uniform(hIn, n, -1000000000, 1000000000, o.seed + 5);
    upload(L.in, hIn, n);
    hx_timing gatherMs[2], scatterMapMs[2];
    const char *mapName[2] = {"identity", "random permutation"};
    for (int k = 0; k < 2; ++k) {
        char what[96];
        if (k == 0) hx_fill_identity(hAux, n);
        else hx_fill_permutation(hAux, n, o.seed + 6);
        upload(L.map, hAux, n);

        hx_gather(hIn, hAux, hWant, n);
        snprintf(what, sizeof what, "gather, %s map", mapName[k]);
        poisonOut(&L);
        runGather(&L);
        mustPass(checkStable(what, &L, -1, NULL, hWant, 0, hGot));
        gatherMs[k] = timeRow(runGather, &L, &o);

        poisonHost(hWant, n);
        hx_scatter(hIn, hAux, hWant, n);
        snprintf(what, sizeof what, "scatter, %s map", mapName[k]);
        poisonOut(&L);
        runScatterMap(&L);
        mustPass(checkStable(what, &L, -1, NULL, hWant, 0, hGot));
        scatterMapMs[k] = timeRow(runScatterMap, &L, &o);
    }
    hx_fill_random_map(hAux, n, o.seed + 7);
    upload(L.map, hAux, n);
    poisonHost(hWant, n);
    const size_t hostLost = hx_scatter(hIn, hAux, hWant, n);
    size_t deviceLost = 0, otherWinner = 0;
    poisonOut(&L);
    runScatterMap(&L);
    mustPass(checkLossyScatter("scatter, repeated destinations", &L, hIn, hAux,
                               hWant, hostLost, hGot, &deviceLost, &otherWinner));
    const hx_timing lossyMs = timeRow(runScatterMap, &L, &o);

    snprintf(title, sizeof title, "gather and scatter: n = %zu", n);
    hx_table_begin(stdout, title);
    hx_table_row(stdout, "copy", 1, &copyMs, copyMs.median_ms, 0.0);
    hx_table_row(stdout, "gather, identity map", 1, &gatherMs[0], copyMs.median_ms, 0.0);
    hx_table_row(stdout, "gather, random permutation", 1, &gatherMs[1], copyMs.median_ms, 0.0);
    hx_table_row(stdout, "scatter, identity map", 1, &scatterMapMs[0], copyMs.median_ms, 0.0);
    hx_table_row(stdout, "scatter, random permutation", 1, &scatterMapMs[1], copyMs.median_ms, 0.0);
    hx_table_row(stdout, "scatter, repeated destinations", 1, &lossyMs, copyMs.median_ms, 0.0);
    hx_table_end(stdout);
    printf("scatter with repeated destinations: %zu writes lost on the device, "
           "%zu by the host reference (n - distinct destinations); %zu slots "
           "kept a different writer than the host's last-writer-wins (allowed: "
           "which write survives is unspecified)\n",
           deviceLost, hostLost, otherWinner);

    free(hIn); free(hAux); free(hWant); free(hGot);
    HX_CHECK(cudaFree(L.cubTemp));
    scanPlanDestroy(&L.plan);
    hx_guarded_free(&L.out);
    HX_CHECK(cudaFree(L.in)); HX_CHECK(cudaFree(L.par));
    HX_CHECK(cudaFree(L.rank)); HX_CHECK(cudaFree(L.map));
    HX_CHECK(cudaFree(L.counts));
    return HX_EXIT_OK;
}
