/* compaction.cu: day 33. Stream compaction and the stable two-way partition,
 * first as the course builds them from three kernels you already have (a
 * predicate, the day 31 scan, a scatter), then as the production kernels
 * build them (one pass with decoupled look-back; a count and one placing
 * pass); beside them the same job with one atomic counter, CUB, and the
 * gather and scatter primitives underneath. The bench (../harness/
 * hx_bench.h) checks every row element for element before it times it,
 * against a copy of the same buffers and against its floor (the bytes it
 * must move at the cudaMemcpy rate measured in the same run).
 *
 * Kernels, by the lesson's names:
 *   NonZero, IsEven         the predicates (predicates.cuh)
 *   markNonZero, markEven   flag[i] = pred(in[i]) ? 1 : 0, written straight
 *                           into the rank buffer
 *   scanExclusive           the day 31 scan (../day31-scan/tile_scan.cu,
 *                           reused, not copied), in place: flags become ranks
 *   scatterCompact          out[rank[i]] = in[i] where in[i] != 0
 *   scatterPartition        evens to rank[i], odds to E + (i - rank[i])
 *   compactAtomic           out[atomicAdd(counter, 1)] = in[i]: the same
 *                           values, in the order the counter is served
 *   compactPiped            the production single pass: reads n, writes the
 *                           survivors (singlepass_compact.cuh)
 *   countRanges, partitionRanges   the production stable partition: a pass
 *                           that counts, one that places (stable_partition.cuh)
 *   gather, scatter         out[i] = in[map[i]] and out[map[i]] = in[i]
 * Library rows: cub::DeviceSelect::If and cub::DevicePartition::If (lab.cu).
 * The buffers, inputs, host references and the loops of --check and
 * --sweep are lab.h's; the configurations that lost are in dev/ (make dev).
 *
 * Build: make -C day33-compaction        (ARCH, NVCC: ../harness/harness.mk)
 * Run:   ./day33-compaction/compaction [--n N] [--keep P] [--seed S]
 *                                      [--runs R] [--warmup W]
 *        ./day33-compaction/compaction --check    (GPU self-check, no timing)
 *        ./day33-compaction/compaction --sweep [--csv FILE]   (sizes, then
 *                                      survival rates, as CSV for plot.py)
 */
#include <stdio.h>

#include "hx_args.h"
#include "hx_bench.h"
#include "hx_cuda.h"
#include "hx_time.h"
#include "lab.h"
#include "predicates.cuh"
#include "singlepass_compact.cuh"
#include "stable_partition.cuh"
#include "tile_scan.h"

static const char PROG[] = "compaction";
static const char USAGE[] =
    "compaction: stream compaction and the stable partition, built from a\n"
    "predicate, the day 31 scan and a scatter, then as the production\n"
    "kernels build them (one pass with decoupled look-back; a count and one\n"
    "placing pass); against one atomic counter, a copy, the floor and CUB,\n"
    "at survival --keep P, then at 0.1, 0.5 and 0.9; then gather and\n"
    "scatter over an identity map, a random permutation and a map with two\n"
    "writers per slot.\n"
    "--check runs the GPU self-check (the sizes it prints, every input\n"
    "shape, two grids; or only --n N) and times nothing. --sweep times the\n"
    "survival tables' rows from n = 2^10 to the largest power of two that\n"
    "fits, then over survival 0 to 1 at the default n, into the CSV --csv\n"
    "FILE (a folder: compaction-sweep.csv in it, the default in this one;\n"
    "../harness/plot.py draws it).";


/* ---- The teaching path, step 1: mark ------------------------------------ */

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

/* ---- The teaching path, step 2: scan -------------------------------------
 * The day 31 scan, from tile_scan.h: scanExclusive(&plan, rank, total, 0)
 * turns the flags into ranks in place (rank[i] = survivors before i) and
 * leaves the survivor count in the device int *total, where the
 * partition's scatter reads it without a trip to the host. */

/* ---- The teaching path, step 3: scatter --------------------------------- */

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

/* ---- The atomic counter ------------------------------------------------- */

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

/* ---- Gather and scatter ---------------------------------------------------
 * A warp's 32 accesses to consecutive ints are one 128-byte transaction;
 * to 32 random ints, 32 of them. Each kernel below has one coalesced side
 * and one that goes wherever map points: the identity map shows the cost
 * of reading the map alone, a random permutation the cost of the scattered
 * side. */

/* out[i] = in[map[i]], every map[i] in [0, n): writes coalesced. */
__global__ void gather(const int *__restrict__ in, const int *__restrict__ map,
                       int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[map[i]];
}

/* out[map[i]] = in[i]: reads coalesced. Where destinations repeat, one of
 * the writes survives and which one is unspecified. */
__global__ void scatter(const int *__restrict__ in, const int *__restrict__ map,
                        int *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[map[i]] = in[i];
}

/* ---- What each row runs, on the lab's buffers (lab.h) ------------------- */

static void runMark(void *)
{
    markNonZero<<<L.grid, LAB_BLOCK>>>(L.in, L.rank.data, L.n);
    HX_CHECK_LAUNCH("markNonZero");
}

static void runMarkScan(void *)
{
    runMark(NULL);
    scanExclusive(&L.plan, L.rank.data, L.counts + C_KEPT, 0);
}

/* Reads the ranks of in that the last mark-then-scan left in rank. */
static void runScatter(void *)
{
    scatterCompact<<<L.grid, LAB_BLOCK>>>(L.in, L.rank.data, L.out.data, L.n);
    HX_CHECK_LAUNCH("scatterCompact");
}

static void runCompact(void *)
{
    runMarkScan(NULL);
    runScatter(NULL);
}

/* The stable partition sharing the one scan: mark the evens, scan, and
 * place both groups from the evens' ranks. */
static void runPartition(void *)
{
    markEven<<<L.grid, LAB_BLOCK>>>(L.par, L.rank.data, L.n);
    HX_CHECK_LAUNCH("markEven");
    scanExclusive(&L.plan, L.rank.data, L.counts + C_EVEN, 0);
    scatterPartition<<<L.grid, LAB_BLOCK>>>(L.par, L.rank.data, L.out.data,
                                            L.n, L.counts + C_EVEN);
    HX_CHECK_LAUNCH("scatterPartition");
}

/* The counter must start at 0: its memset is part of every run. */
static void runAtomic(void *)
{
    HX_CHECK(cudaMemsetAsync(L.counts + C_ATOMIC, 0, sizeof(int), 0));
    compactAtomic<<<L.grid, LAB_BLOCK>>>(L.in, L.out.data, L.n,
                                         L.counts + C_ATOMIC);
    HX_CHECK_LAUNCH("compactAtomic");
}

/* Blocks of each production kernel the GPU holds at once: their grids;
 * whether the single pass prefetches into the L2 on this GPU. */
static unsigned fitCompact, fitPartition;
static int prefetch;

/* ctx: NULL, or the self-check's STALLED (the look-back's debug stalls)
 * or FLIPPED (the L2 prefetch the other way). */
static const int STALLED = 1, FLIPPED = 2;
static void runSinglePass(void *mode)
{
    const int m = mode ? *(const int *)mode : 0;
    HX_CHECK(compactPipedRun<NonZero>(L.in, L.out.data, L.n, L.state,
                                      L.counts + C_SINGLE,
                                      L.passGrid ? L.passGrid : fitCompact,
                                      prefetch ^ (m == FLIPPED),
                                      m == STALLED ? LAB_STALL_NS : 0, 0));
}

static void runStable(void *)
{
    HX_CHECK(stablePartitionRun<IsEven>(L.par, L.out.data, L.n, L.state,
                                        L.counts + C_STABLE,
                                        L.passGrid ? L.passGrid : fitPartition,
                                        0));
}

static void runGather(void *map)
{
    gather<<<L.grid, LAB_BLOCK>>>(L.in, (const int *)map, L.out.data, L.n);
    HX_CHECK_LAUNCH("gather");
}

static void runScatterMap(void *map)
{
    scatter<<<L.grid, LAB_BLOCK>>>(L.in, (const int *)map, L.out.data, L.n);
    HX_CHECK_LAUNCH("scatter");
}

/* ---- The rows, declared as data --------------------------------------------
 * Each row: what it runs, where it writes (out unless named), the reference
 * it must equal, the count it must leave, the bytes its algorithm must
 * move (its floor), its launches. The teaching rows are held to the bytes
 * their own phases move: mark 2n (in, flags), the scan about 4n
 * (scanMovedBytes: its tile pass and its add-back each read and write rank,
 * and the upper levels), compaction's scatter 2n + kept, the partition's
 * 3n. The production
 * rows and CUB are held to the problem's own floor: n + kept for
 * compaction, 3n for the stable partition with its counting pass, 2n for
 * CUB's unstable one, which needs no count. CUB's select and partition are
 * two launches each (an init kernel and a single pass). */
#define TEACHING "the teaching path: mark, scan, scatter"

/* The teaching path's phases alone (the main table's first rows). */
static int phaseRows(hx_row *r)
{
    const double n = 4.0 * L.n, kept = 4.0 * L.kept;
    r[0] = hx_row{.name = "mark the predicate", .run = runMark, .out = &L.rank,
                  .want = L.want[W_FLAGS], .floor_bytes = 2 * n, .launches = 1,
                  .note = TEACHING};
    r[1] = hx_row{.name = "mark then scan", .run = runMarkScan, .out = &L.rank,
                  .want = L.want[W_RANKS], .total = L.counts + C_KEPT,
                  .total_want = &L.kept,
                  .floor_bytes = 2 * n + scanMovedBytes(&L.plan),
                  .launches = 1 + scanLaunches(&L.plan)};
    /* Timed right after "mark then scan", whose ranks it reads. */
    r[2] = hx_row{.name = "scatter alone with ranks ready", .run = runScatter,
                  .prepare = runMarkScan, .want = L.want[W_COMPACT],
                  .floor_bytes = 2 * n + kept, .launches = 1};
    return 3;
}

/* Every survival table's rows (and the sweep's). */
static int compactionRows(hx_row *r)
{
    const double n = 4.0 * L.n, kept = 4.0 * L.kept;
    const double scan = scanMovedBytes(&L.plan);
    const int launches = 2 + scanLaunches(&L.plan);
    r[0] = hx_row{.name = "compaction, all three phases", .run = runCompact,
                  .want = L.want[W_COMPACT], .total = L.counts + C_KEPT,
                  .total_want = &L.kept, .floor_bytes = 4 * n + scan + kept,
                  .launches = launches, .note = TEACHING};
    r[1] = hx_row{.name = "partition, even then odd", .run = runPartition,
                  .want = L.want[W_PARTITION], .total = L.counts + C_EVEN,
                  .total_want = &L.evens, .floor_bytes = 5 * n + scan,
                  .launches = launches};
    r[2] = hx_row{.name = "compaction with one atomic counter", .run = runAtomic,
                  .total = L.counts + C_ATOMIC, .total_want = &L.kept,
                  .check = labSameValues, .floor_bytes = n + kept, .launches = 2,
                  .note = "the same values in the scheduler's order (memset of "
                          "the counter + kernel, both timed):"};
    r[3] = hx_row{.name = "single-pass compaction", .run = runSinglePass,
                  .want = L.want[W_COMPACT], .total = L.counts + C_SINGLE,
                  .total_want = &L.kept, .floor_bytes = n + kept, .launches = 2,
                  .note = "the production path: one pass with decoupled "
                          "look-back (memset of its state + kernel), and the "
                          "stable partition (count + place):"};
    r[4] = hx_row{.name = "stable partition, count + one pass", .run = runStable,
                  .want = L.want[W_PARTITION], .total = L.counts + C_STABLE,
                  .total_want = &L.evens, .floor_bytes = 3 * n, .launches = 2};
    r[5] = hx_row{.name = "CUB DeviceSelect::If", .run = runCubSelect,
                  .want = L.want[W_COMPACT], .total = L.counts + C_SELECT,
                  .total_want = &L.kept, .floor_bytes = n + kept, .launches = 2,
                  .note = "the library, in the same run:"};
    r[6] = hx_row{.name = "CUB DevicePartition::If (unstable)",
                  .run = runCubPartition, .want = L.want[W_CUB],
                  .total = L.counts + C_PARTITION, .total_want = &L.evens,
                  .floor_bytes = 2 * n, .launches = 2};
    return 7 + labYourRows(r + 7);   /* your_turn.cu's, once filled */
}

/* The main table: the phases, then the survival table's rows. */
static int mainRows(hx_row *r)
{
    const int k = phaseRows(r);
    const int m = compactionRows(r + k);
    r[k].note = NULL;
    return k + m;
}

/* Gather and scatter through labMaps' maps: each moves 3n ints (in, map,
 * out; the scatter with two writers per slot still issues every write). */
static int mapRows(hx_row *r)
{
    const double bytes = 12.0 * L.n;
    void *identity = L.want[W_IDENTITY], *perm = L.map, *pairs = L.want[W_PAIRS];
    r[0] = hx_row{.name = "gather, identity map", .run = runGather, .ctx = identity,
                  .want = L.in, .floor_bytes = bytes, .launches = 1};
    r[1] = hx_row{.name = "gather, random permutation", .run = runGather,
                  .ctx = perm, .want = L.want[W_GATHER], .floor_bytes = bytes,
                  .launches = 1};
    r[2] = hx_row{.name = "scatter, identity map", .run = runScatterMap,
                  .ctx = identity, .want = L.in, .floor_bytes = bytes,
                  .launches = 1};
    r[3] = hx_row{.name = "scatter, random permutation", .run = runScatterMap,
                  .ctx = perm, .want = L.want[W_SCATTER], .floor_bytes = bytes,
                  .launches = 1};
    r[4] = hx_row{.name = "scatter, two writers per even slot",
                  .run = runScatterMap, .ctx = pairs, .check = labPairs,
                  .floor_bytes = bytes, .launches = 1};
    return 5;
}

/* The self-check's: the main table's, and the single pass with the
 * look-back's debug stalls, which force waits and walks past a window,
 * and with its L2 prefetch the other way. */
static int checkedRows(hx_row *r)
{
    const int k = mainRows(r);
    r[k] = r[k + 1] = r[6];
    r[k].name = "single-pass compaction, stalled";
    r[k].ctx = (void *)&STALLED;
    r[k + 1].name = "single-pass compaction, the other L2 prefetch";
    r[k + 1].ctx = (void *)&FLIPPED;
    r[k].note = r[k + 1].note = NULL;
    return k + 2;
}

/* ---- The default run: where the time goes ------------------------------- */

static const char *const FLOOR_NOTE[] = {
    "x floor: the row's compulsory ints (read + written) at the cudaMemcpy "
    "rate of this run: compaction n + kept, the stable partition 3n (its "
    "counting pass reads n), an unstable one 2n; the teaching rows their own "
    "phases': mark 2n, scan about 4n, scatter 2n + kept, so compaction about "
    "8n + kept and partition about 9n", NULL};
static const char *const MAP_NOTE[] = {
    "x floor: 3n ints (in, map, out) at the cudaMemcpy rate; with two "
    "writers per even slot n/2 writes are lost, and which writer survives is "
    "unspecified: the check accepts either", NULL};

/* Checks and times rows(r) after the yardsticks and prints the table. A
 * failed check ends the run untimed: a number for a wrong result would be
 * worse than none. */
static int table(int (*rows)(hx_row *), const char *title,
                 const char *const *notes)
{
    hx_row r[HX_BENCH_MAX_ROWS];
    const int rc = hx_bench_measure(&L.b, r, rows(r), 0);
    if (rc == HX_EXIT_OK) hx_bench_table(&L.b, title, notes);
    else printf("%s: a check failed; nothing after it is timed\n", PROG);
    return rc;
}

/* What the compaction table counted, and the production rows against
 * their targets: the single pass within 1.15x of its floor and faster than
 * CUB's Select::If, the stable partition faster than CUB's Partition::If.
 * They are the last four rows of compactionRows, before your_turn.cu's. */
static void summary(double keep)
{
    const hx_bench *b = &L.b;
    const int s = b->rows - 4 - L.yours, c = s + 2;
    printf("survival %.2f: %lld of %zu kept, %lld even; atomic: %zu of %lld "
           "slots out of the stable order (another function); CUB's "
           "partition writes the odd group in reverse order\n", keep, L.kept,
           L.n, L.evens, L.disorder, L.kept);
    printf("targets: single pass %.2fx floor (1.15 or less), %.2fx CUB "
           "Select::If (%.2fx floor); stable partition %.2fx CUB "
           "Partition::If (both below 1)\n\n", hx_bench_x_floor(b, s),
           b->t[s].median_ms / b->t[c].median_ms, hx_bench_x_floor(b, c),
           b->t[s + 1].median_ms / b->t[c + 1].median_ms);
}

static const double RATES[3] = {0.1, 0.5, 0.9};

/* The main table at --keep, the survival tables, gather and scatter. */
static int runLesson(const hx_opts *o)
{
    char title[160];
    const size_t n = hx_bench_timing_n(&L.b, LAB_DEVICE_INTS * sizeof(int),
                                       labBytes, NULL);
    int rc = n == (size_t)-1 ? HX_EXIT_NOMEM : labOpen(n);
    if (rc != HX_EXIT_OK) return rc;
    labResize(n);
    printf("seed %llu; %u blocks of %u threads for every element-wise "
           "kernel, as many as fit at once for the production ones (%u of "
           "%d, %u of %d); the scan %d launches; the single pass's L2 "
           "prefetch %s\n", (unsigned long long)o->seed, L.grid, LAB_BLOCK,
           fitCompact, COMPACT_BLOCK, fitPartition, PARTITION_THREADS,
           scanLaunches(&L.plan), prefetch ? "on" : "off");
    labInputs(o->keep, -1, o->seed);
    snprintf(title, sizeof title, "where the time goes at survival %.2f",
             o->keep);
    if ((rc = table(mainRows, title, FLOOR_NOTE)) == HX_EXIT_OK) summary(o->keep);
    for (int s = 0; s < 3 && rc == HX_EXIT_OK; ++s) {
        if (RATES[s] == o->keep) continue;
        labInputs(RATES[s], -1, o->seed);
        snprintf(title, sizeof title, "survival %.2f", RATES[s]);
        if ((rc = table(compactionRows, title, NULL)) == HX_EXIT_OK)
            summary(RATES[s]);
    }
    if (rc == HX_EXIT_OK) {
        labMaps(o->seed + 5);
        snprintf(title, sizeof title, "gather and scatter");
        rc = table(mapRows, title, MAP_NOTE);
    }
    return rc;
}

/* ---- The self-check: what it plants, its sizes -------------------------- */

/* The bench's planted errors (a changed slot, an unwritten one, a guard
 * word, the count) on both production rows; the atomic row's and the
 * two-writer scatter's own checks against what each must catch. */
static int planted(void)
{
    hx_row r[HX_BENCH_MAX_ROWS];
    labInputs(0.5, -1, 7);
    compactionRows(r);
    int rc = hx_bench_check_the_check(&L.b, &r[3]);
    rc |= hx_bench_check_the_check(&L.b, &r[4]);
    int ok = labPlanted(&r[2], "a survivor twice, one missing", 0, 1, 0) &&
             labPlanted(&r[2], "a write past the count", (size_t)L.kept, -1, 1);
    labMaps(9);
    mapRows(r);
    ok = ok && labPlanted(&r[4], "a write into an odd slot", 5, -1, 7) &&
         labPlanted(&r[4], "a value of neither writer", 8, 2, 0);
    return rc != HX_EXIT_OK || !ok;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const double start = hx_now_seconds();
    hx_opts o;
    hx_device dev;
    int rc = hx_parse_args(argc, argv, &o, HX_OPT_KEEP | HX_OPT_SWEEP, PROG,
                           USAGE);
    if (rc != HX_EXIT_OK || o.help) return rc;
    if ((rc = hx_device_open(&dev, PROG)) != HX_EXIT_OK) return rc;
    hx_device_print(&dev, stdout);
    labBegin(&dev, &o, "day33-compaction");
    fitCompact = hx_resident_blocks(&dev, (const void *)compactPiped<NonZero>,
                                    COMPACT_BLOCK, 0);
    prefetch = compactPrefetchFor(dev.l2_bytes, fitCompact);
    fitPartition = hx_resident_blocks(
        &dev, (const void *)partitionRanges<IsEven>, PARTITION_THREADS, 0);
    /* The self-check's sizes, besides the bench's: a partition tile and
     * either side, and as many as its grid takes at once and either side. */
    const size_t t = PARTITION_THREADS * PARTITION_ITEMS, g = t * fitPartition;
    const size_t extra[] = {t - 1, t, t + 1, g - 1, g, g + 1};
    const LabCheck check = {checkedRows, mapRows, planted,
                            {COMPACT_THREADS * COMPACT_ITEMS, fitCompact,
                             SCAN_TILE, o.seed, extra, 6}};
    if (o.check) {
        rc = labSelfCheck(&check);
    } else if (o.sweep) {
        const size_t n = hx_bench_timing_n(&L.b, LAB_DEVICE_INTS * sizeof(int),
                                           labBytes, NULL);
        rc = n == (size_t)-1 ? HX_EXIT_NOMEM
                             : labSweep(n, compactionRows, "compaction-sweep.csv");
    } else {
        rc = runLesson(&o);
    }
    labEnd(start);
    return rc;
}
