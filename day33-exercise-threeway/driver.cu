/* driver.cu: DO NOT MODIFY. The driver of the day 33 exercise; students
 * edit threeway.cu only (the grader compiles each submission against this
 * file, unchanged).
 *
 * What it shows: a stable three-way split (negatives | zeros | positives)
 * built from two predicates, two day-31 scans (one per boundary, never one
 * per group) and the student's scatterThreeWay, checked slot for slot by
 * the harness's three-way check, then timed against a copy and against the
 * two-way partition of day 33 on the same input.
 *
 *   build:  make                         (./threeway from threeway.cu)
 *           make STUDENT=path/to/threeway.cu   (another kernel, same driver)
 *           make solution                (./threeway-solution, and its check)
 *   run:    ./threeway --check           check only: every size, mix, grid
 *           ./threeway                   check, then the timing table
 *           ./threeway --n 8387997       one size only (check, then timing)
 *
 * Student mode checks sizes 0, 1, 255, 256, 257, 65537, 8387997 (the
 * lesson's) and the default timing size (hx_default_n: several times the
 * L2), the mix "thirds" at every size and the edge mixes (all negative,
 * all zero, all positive, no zeros, ends) at sizes 1 to 65537. Each
 * configuration runs twice: with the normal grid (hx_grid_for, 256
 * threads) and with a small grid of SMALL_GRID blocks of SMALL_BLOCK
 * threads, so a kernel that is not grid-stride leaves slots unwritten.
 * Passing runs print one line each; the first failure prints the full
 * report; the last line is PASS (exit 0) or FAIL (exit 1).
 *
 * Grade mode (the grading tool's interface; stdout is for humans only):
 *   ./threeway --grade --result FILE [--n N] [--seed S] [--mix NAME]
 *              [--grid G] [--block B] [--repeat K] [--time]
 *              [--runs R] [--warmup W] [--lock LOCKFILE]
 *   runs one configuration: n = N (default 8387997), the input mix NAME
 *   (an hx_mix_name value, default thirds; --help lists them), G = 0 the
 *   normal grid (default) or G > 0 blocks, of B threads (default 256;
 *   student mode's small grid is --grid 3 --block 64), K >= 1 launches on
 *   the same input (default 1), each on a freshly poisoned output. After
 *   every check is done it writes FILE: one JSON object on one line,
 *     "status"   pass | boundary | order | mismatch | unwritten |
 *                out_of_bounds | nondeterministic (the check's swapped and
 *                group_missing count as boundary)
 *     "detail"   the check's own kind (hx_split_kind_name) for launch 0
 *     "n", "seed", "mix", "grid" (G as given), "blocks" (launched), "block"
 *     "want_b1", "want_b2", "found_b1", "found_b2", "b1_ok", "b2_ok"
 *     "first_bad" (-1 if none), "got", "want" (null if none), "bad",
 *     "unwritten", "order_errors", "guard_before", "guard_after",
 *     "guard_first_offset" (offset from out[0]; null if none)
 *     "disagree_run"  -1, or the first launch k whose output (or guard
 *                     writes) differed from launch 0's: status is then
 *                     nondeterministic; the other fields describe launch 0
 *   and with --time, measured only when the status is pass (else null):
 *     "split_ms"      the whole split: 2 marks + 2 scans + scatterThreeWay
 *                     with the grid under test
 *     "partition_ms"  the two-way partition: 1 mark + 1 scan + scatter
 *     "copy_ms"       copyInts over the same n
 *     "x_copy"        split_ms / copy_ms
 *   --lock LOCKFILE: the GPU lock the grading tool shares between its
 *   runs (hx_lock.h): the GPU work of the checks is done holding it
 *   shared, the timed loops holding it exclusive. Without it nothing is
 *   locked.
 *   Exit codes: 0 the file was written (whatever the status), 2 bad arguments,
 *   FILE not writable or LOCKFILE not usable, 3 no GPU, 4 a CUDA error or a
 *   kernel fault (the CUDA error line on stderr, no file), 5 n does not fit.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cerrno>

#include "hx_cuda.h"
#include "hx_args.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_check.h"
#include "hx_guard.h"
#include "hx_lock.h"
#include "hx_time.h"
#include "../day31-scan/tile_scan.h"

/* The student's kernel, in threeway.cu (signature fixed by DESIGN.md). */
__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero);

static const char *const PROG = "threeway";

#define BLOCK 256              /* threads per block of every normal grid */
#define SMALL_GRID 3u          /* the small grid: 3 x 64 = 192 threads, not a
                                  power of two, fewer than 255 */
#define SMALL_BLOCK 64u
#define LESSON_N ((size_t)8387997)
/* Device bytes per element: in, negRank, zeroRank, out, plus the scan's
 * level sums (under 1/64 byte per element), rounded up. */
#define BYTES_PER_ELEMENT 17

/* The driver's own kernels and helpers are static: a submission may
 * define helpers of its own, and a name both files use must not break the
 * link. */

/* ------------------------------------------------------------------ */
/* Predicates: flags[i] = 1 where in[i] belongs to the group, else 0.  */

static __global__ void markNegative(const int* __restrict__ in,
                                    int* __restrict__ flags, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = in[i] < 0;
}

static __global__ void markZero(const int* __restrict__ in,
                                int* __restrict__ flags, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = in[i] == 0;
}

/* ------------------------------------------------------------------ */
/* Scatter for comparison.                                             */

/* The stable two-way partition's scatter of day 33 (negatives first, then
 * everything else, each in input order), copied here on purpose: day 33
 * has no shared kernel file, and the timing puts this row beside the split
 * so the student sees what the second boundary costs. rank is the
 * exclusive scan of markNegative; *totalTrue its total, on the device. */

static __global__ void scatterTwoWay(const int* __restrict__ in,
                                     const int* __restrict__ rank,
                                     int* __restrict__ out, size_t n,
                                     const int* __restrict__ totalTrue)
{
    const size_t a = (size_t)*totalTrue;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t r = (size_t)rank[i];
        out[v < 0 ? r : a + (i - r)] = v;
    }
}

/* ------------------------------------------------------------------ */
/* Baseline: the copy every row is measured against.                   */

static __global__ void copyInts(const int* __restrict__ in,
                                int* __restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[i];
}

/* ------------------------------------------------------------------ */
/* One problem of size n on the device, and its host copies.           */

typedef struct {
    size_t n;
    unsigned grid;        /* normal grid: hx_grid_for(n, BLOCK) */
    int *in;              /* device input */
    int *negRank;         /* markNegative, then scanned in place */
    int *zeroRank;        /* markZero, then scanned in place */
    int *totals;          /* device: totals[0] = A, totals[1] = B; two
                             distinct ints, one per scan */
    ScanPlan plan;        /* shared by both scans: they run one after the
                             other on the default stream */
    hx_guarded out;       /* poisoned output between guards */
    int *hIn, *hGot, *hRef;   /* host: input, fetched output, reference */
    hx_mix mix;
} Problem;

static size_t deviceBytes(size_t n)
{
    const size_t ints = n ? n : 1;
    return 3 * ints * sizeof(int) + (n + 2 * HX_GUARD_WORDS) * sizeof(int) +
           scanPlanBytes(n) + 2 * sizeof(int);
}

static void *hostAlloc(size_t n)
{
    void *p = malloc((n ? n : 1) * sizeof(int));
    if (!p) {
        fprintf(stderr, "%s: out of host memory for n=%zu\n", PROG, n);
        exit(HX_EXIT_NOMEM);
    }
    return p;
}

/* Exits with HX_EXIT_NOMEM, after one line, when n does not fit. */
static void problemAlloc(Problem *p, const hx_device *dev, size_t n)
{
    if (!hx_fits(dev, deviceBytes(n))) {
        fprintf(stderr,
                "%s: n=%zu needs %.1f MiB of device memory, %.1f MiB free: "
                "try a smaller --n\n",
                PROG, n, deviceBytes(n) / 1048576.0,
                dev->free_mem / 1048576.0);
        exit(HX_EXIT_NOMEM);
    }
    memset(p, 0, sizeof *p);
    p->n = n;
    p->grid = hx_grid_for(dev, n, BLOCK);
    const size_t bytes = (n ? n : 1) * sizeof(int);
    HX_CHECK(cudaMalloc(&p->in, bytes));
    HX_CHECK(cudaMalloc(&p->negRank, bytes));
    HX_CHECK(cudaMalloc(&p->zeroRank, bytes));
    HX_CHECK(cudaMalloc(&p->totals, 2 * sizeof(int)));
    scanPlanCreate(&p->plan, n);
    hx_guarded_alloc(&p->out, n);
    p->hIn = (int *)hostAlloc(n);
    p->hGot = (int *)hostAlloc(n);
    p->hRef = (int *)hostAlloc(n);
}

static void problemFree(Problem *p)
{
    HX_CHECK(cudaFree(p->in));
    HX_CHECK(cudaFree(p->negRank));
    HX_CHECK(cudaFree(p->zeroRank));
    HX_CHECK(cudaFree(p->totals));
    scanPlanDestroy(&p->plan);
    hx_guarded_free(&p->out);
    free(p->hIn);
    free(p->hGot);
    free(p->hRef);
    memset(p, 0, sizeof *p);
}

static void problemFill(Problem *p, hx_mix mix, uint64_t seed)
{
    p->mix = mix;
    hx_fill_threeway(p->hIn, p->n, mix, seed);
    HX_CHECK(cudaMemcpy(p->in, p->hIn, p->n * sizeof(int),
                        cudaMemcpyHostToDevice));
}

/* Enqueues the driver's half of the split: two predicates and two scans,
 * one per boundary. The third group (positives) gets no predicate and no
 * scan: its rank follows from the other two. */
static void prepareRanks(Problem *p)
{
    markNegative<<<p->grid, BLOCK>>>(p->in, p->negRank, p->n);
    HX_CHECK_LAUNCH("markNegative");
    scanExclusive(&p->plan, p->negRank, p->totals + 0, 0);
    markZero<<<p->grid, BLOCK>>>(p->in, p->zeroRank, p->n);
    HX_CHECK_LAUNCH("markZero");
    scanExclusive(&p->plan, p->zeroRank, p->totals + 1, 0);
}

/* The driver checks its own half before the student's kernel runs, so a
 * failure below is never blamed on the wrong party. */
static int checkOneRank(Problem *p, const int *dRank, const int *dTotal,
                        hx_pred pred, const char *what)
{
    hx_mark(p->hIn, p->hRef, p->n, pred);
    const long long total = hx_scan_exclusive(p->hRef, p->hRef, p->n);
    int gotTotal = 0;
    HX_CHECK(cudaMemcpy(p->hGot, dRank, p->n * sizeof(int),
                        cudaMemcpyDeviceToHost));
    HX_CHECK(cudaMemcpy(&gotTotal, dTotal, sizeof(int),
                        cudaMemcpyDeviceToHost));
    hx_cmp c;
    int bad = hx_check_equal(what, p->hGot, p->hRef, p->n, &c, stderr);
    if ((long long)gotTotal != total) {
        fprintf(stderr, "%s total: got %d, want %lld\n", what, gotTotal,
                total);
        bad = 1;
    }
    return bad;
}

static void checkRanks(Problem *p)
{
    HX_CHECK(cudaDeviceSynchronize());
    const int bad =
        checkOneRank(p, p->negRank, p->totals + 0, hx_pred_negative,
                     "driver: negRank") |
        checkOneRank(p, p->zeroRank, p->totals + 1, hx_pred_zero,
                     "driver: zeroRank");
    if (bad) {
        fprintf(stderr,
                "%s: the driver's own ranks are wrong at n=%zu (not your "
                "kernel's fault: report this to the course staff)\n",
                PROG, p->n);
        exit(HX_EXIT_FAIL);
    }
}

/* Runs the student's kernel once on a freshly poisoned output, waits for
 * it and fetches the output into p->hGot and the guards into *g. */
static void runStudent(Problem *p, unsigned grid, unsigned block,
                       hx_guard_report *g, const char *where)
{
    hx_guarded_poison(&p->out);
    scatterThreeWay<<<grid, block>>>(p->in, p->negRank, p->zeroRank,
                                     p->out.data, p->n, p->totals + 0,
                                     p->totals + 1);
    HX_CHECK_LAUNCH("scatterThreeWay");
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
        fprintf(stderr,
                "%s: scatterThreeWay failed on the GPU at %s; run the same "
                "size under compute-sanitizer to see the bad access\n",
                PROG, where);
    hx_cuda_check(err, "cudaDeviceSynchronize() after scatterThreeWay",
                  __FILE__, __LINE__);
    hx_guarded_fetch(&p->out, p->hGot, g);
}

/* ------------------------------------------------------------------ */
/* Checks of the student's kernel (student mode).                      */

typedef struct {
    int runs, passed;
    int fullShown;        /* the first failure's full report is printed */
} Tally;

static void describe(char *buf, size_t len, const Problem *p, unsigned grid,
                     unsigned block)
{
    snprintf(buf, len, "n=%zu mix=%s grid=%ux%u", p->n, hx_mix_name(p->mix),
             grid, block);
}

static void boundaryText(char *buf, size_t len, const hx_split_report *r)
{
    char b1[80], b2[80];
    if (r->b1_ok)
        snprintf(b1, sizeof b1, "boundary 1 at %zu ok", r->found_b1);
    else
        snprintf(b1, sizeof b1, "boundary 1 at %zu, want %zu WRONG",
                 r->found_b1, r->want_b1);
    if (r->b2_ok)
        snprintf(b2, sizeof b2, "boundary 2 at %zu ok", r->found_b2);
    else
        snprintf(b2, sizeof b2, "boundary 2 at %zu, want %zu WRONG",
                 r->found_b2, r->want_b2);
    snprintf(buf, len, "%s, %s", b1, b2);
}

/* One configuration with one grid: one line when it passes; the full
 * report for the first failure, one line for each later one. */
static void checkOne(Problem *p, unsigned grid, unsigned block, Tally *t)
{
    char where[160], bounds[200];
    describe(where, sizeof where, p, grid, block);
    hx_guard_report g;
    runStudent(p, grid, block, &g, where);
    hx_split_report r;
    const hx_split_kind kind = hx_check_split3(p->hIn, p->hGot, p->n, &g, &r);
    boundaryText(bounds, sizeof bounds, &r);
    t->runs++;
    if (kind == HX_SPLIT_PASS) {
        t->passed++;
        printf("  PASS  %-40s %s\n", where, bounds);
        return;
    }
    printf("  FAIL  %-40s [%s] %s\n", where, hx_split_kind_name(kind), bounds);
    if (!t->fullShown) {
        t->fullShown = 1;
        printf("\n  The first failure in full:\n");
        hx_split_print(where, &r, stdout);
        printf("\n");
    }
    fflush(stdout);
}

static void checkSize(const hx_device *dev, size_t n, uint64_t seed,
                      Tally *t)
{
    Problem p;
    problemAlloc(&p, dev, n);
    /* The edge mixes matter where the groups are small enough to be
     * empty or single; at n = 0 every mix is the same empty input. */
    const int mixes = (n == 0 || n > 65537) ? 1 : (int)HX_MIX_COUNT;
    for (int m = 0; m < mixes; ++m) {
        problemFill(&p, (hx_mix)m, seed);
        prepareRanks(&p);
        checkRanks(&p);
        checkOne(&p, p.grid, BLOCK, t);
        checkOne(&p, SMALL_GRID, SMALL_BLOCK, t);
    }
    problemFree(&p);
}

/* ------------------------------------------------------------------ */
/* Timing: every row is checked against the host before it is timed.   */

typedef struct {
    Problem *p;
    unsigned grid, block;   /* the student's launch */
} Work;

static void workCopy(void *ctx)
{
    Problem *p = ((Work *)ctx)->p;
    copyInts<<<p->grid, BLOCK>>>(p->in, p->out.data, p->n);
    HX_CHECK_LAUNCH("copyInts");
}

static void workPartition(void *ctx)
{
    Problem *p = ((Work *)ctx)->p;
    markNegative<<<p->grid, BLOCK>>>(p->in, p->negRank, p->n);
    HX_CHECK_LAUNCH("markNegative");
    scanExclusive(&p->plan, p->negRank, p->totals + 0, 0);
    scatterTwoWay<<<p->grid, BLOCK>>>(p->in, p->negRank, p->out.data, p->n,
                                      p->totals + 0);
    HX_CHECK_LAUNCH("scatterTwoWay");
}

static void workScatter(void *ctx)
{
    Work *w = (Work *)ctx;
    Problem *p = w->p;
    scatterThreeWay<<<w->grid, w->block>>>(p->in, p->negRank, p->zeroRank,
                                           p->out.data, p->n, p->totals + 0,
                                           p->totals + 1);
    HX_CHECK_LAUNCH("scatterThreeWay");
}

static void workSplit(void *ctx)
{
    prepareRanks(((Work *)ctx)->p);
    workScatter(ctx);
}

/* Poisons the output, runs work once and fetches it; returns the number
 * of guard words written. */
static size_t runOnce(hx_work work, Work *w, hx_guard_report *g)
{
    hx_guarded_poison(&w->p->out);
    work(w);
    HX_CHECK(cudaDeviceSynchronize());
    return hx_guarded_fetch(&w->p->out, w->p->hGot, g);
}

/* Checks an element-wise row (copy, partition) against want. */
static int checkEqualRow(const char *what, hx_work work, Work *w,
                         const int *want)
{
    hx_guard_report g;
    const size_t guards = runOnce(work, w, &g);
    hx_guard_print(what, w->p->n, &g, stdout);
    hx_cmp c;
    return hx_check_equal(what, w->p->hGot, want, w->p->n, &c, stdout) ||
           guards;
}

static int checkSplitRow(const char *what, hx_work work, Work *w)
{
    hx_guard_report g;
    runOnce(work, w, &g);
    hx_split_report r;
    if (hx_check_split3(w->p->hIn, w->p->hGot, w->p->n, &g, &r) ==
        HX_SPLIT_PASS)
        return 0;
    hx_split_print(what, &r, stdout);
    return 1;
}

typedef struct {
    hx_timing copy, partition, split, scatter;
} Times;

/* Takes the GPU lock (hx_lock.h; a disabled lock does nothing); a lock
 * that cannot be taken is the grading tool's problem: exit 2. */
static void lockGpu(hx_gpu_lock *lock, hx_lock_kind kind)
{
    if (hx_gpu_lock_take(lock, kind)) {
        fprintf(stderr, "%s: cannot take the GPU lock (--lock): %s\n", PROG,
                strerror(errno));
        exit(HX_EXIT_USAGE);
    }
}

/* Checks each row, then times it; returns 0, or 1 when a row failed its
 * check (nothing is timed then). The checks run with lock held shared,
 * the timed loops with it exclusive; the caller holds nothing. */
static int timeRows(Problem *p, unsigned grid, unsigned block,
                    const hx_opts *o, Times *t, hx_gpu_lock *lock)
{
    Work w = {p, grid, block};
    hx_partition(p->hIn, p->hRef, p->n, hx_pred_negative);
    lockGpu(lock, HX_LOCK_SHARED);
    const int failed =
        checkEqualRow("copyInts", workCopy, &w, p->hIn) ||
        checkEqualRow("two-way partition", workPartition, &w, p->hRef) ||
        checkSplitRow("three-way split", workSplit, &w) ||
        checkSplitRow("scatterThreeWay alone", workScatter, &w);
    hx_gpu_lock_release(lock);
    if (failed)
        return 1;
    lockGpu(lock, HX_LOCK_EXCLUSIVE);
    t->copy = hx_time(workCopy, &w, o->warmup, o->runs);
    t->partition = hx_time(workPartition, &w, o->warmup, o->runs);
    t->split = hx_time(workSplit, &w, o->warmup, o->runs);
    /* workSplit left the ranks in place: the scatter alone reads them. */
    t->scatter = hx_time(workScatter, &w, o->warmup, o->runs);
    hx_gpu_lock_release(lock);
    return 0;
}

static int timeStudent(const hx_device *dev, size_t n, const hx_opts *o)
{
    Problem p;
    problemAlloc(&p, dev, n);
    problemFill(&p, HX_MIX_THIRDS, o->seed);
    printf("\ntiming: n = %zu ints (%.1f MiB per buffer), mix thirds, seed "
           "%llu, median of %d runs after %d warm-ups\n",
           n, n * sizeof(int) / 1048576.0, (unsigned long long)o->seed,
           o->runs, o->warmup);
    hx_warn_if_cached(dev, n * sizeof(int), stdout);
    Times t;
    hx_gpu_lock none;
    hx_gpu_lock_open(&none, NULL);
    if (timeRows(&p, p.grid, BLOCK, o, &t, &none)) {
        printf("a timed row failed its check: nothing was timed\n");
        problemFree(&p);
        return 1;
    }
    const int scan = scanLaunches(&p.plan);
    char title[160];
    snprintf(title, sizeof title,
             "three-way split against copy and the two-way partition, n = %zu",
             n);
    hx_table_begin(stdout, title);
    const double copyMs = t.copy.median_ms;
    hx_table_row(stdout, "copyInts", 1, &t.copy, copyMs, 0.0);
    hx_table_row(stdout, "two-way partition (v < 0)", 2 + scan, &t.partition,
                 copyMs, 0.0);
    hx_table_row(stdout, "three-way split, whole", 3 + 2 * scan, &t.split,
                 copyMs, 0.0);
    hx_table_row(stdout, "scatterThreeWay alone", 1, &t.scatter, copyMs, 0.0);
    hx_table_note(stdout, "partition: markNegative + scan + scatterTwoWay");
    hx_table_note(stdout, "split: markNegative + scan + markZero + scan + "
                          "scatterThreeWay");
    hx_table_note(stdout, "alone: your kernel with the ranks already made");
    hx_table_end(stdout);
    printf("The original lesson page measured its two-way partition at "
           "6.31x copy on a T4.\nHow close does your split land to the "
           "partition row above, and to that 6.31x? README.md says what to "
           "look for.\n");
    problemFree(&p);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Grade mode: one configuration, one JSON result file.                */

typedef struct {
    int grade, time;
    const char *mix, *result, *lock;
    const char *grid, *block, *repeat;   /* as given */
    hx_mix mixValue;                     /* parsed by parseGradeArgs */
    size_t gridValue, blockValue, repeatValue;
} GradeArgs;

/* Takes the grade-mode options out of argv (hx_parse_args rejects what it
 * does not know) and compacts argv. Returns HX_EXIT_OK or HX_EXIT_USAGE
 * after one line. */
static int takeGradeArgs(int *argc, char **argv, GradeArgs *a)
{
    static const char *const valued[] = {"--mix", "--result", "--grid",
                                         "--block", "--repeat", "--lock"};
    const char **slot[] = {&a->mix, &a->result, &a->grid, &a->block,
                           &a->repeat, &a->lock};
    int keep = 1;
    for (int i = 1; i < *argc; ++i) {
        const char *s = argv[i];
        if (!strcmp(s, "--grade")) { a->grade = 1; continue; }
        if (!strcmp(s, "--time")) { a->time = 1; continue; }
        int taken = 0;
        for (int k = 0; k < 6 && !taken; ++k) {
            const size_t len = strlen(valued[k]);
            if (strncmp(s, valued[k], len)) continue;
            if (s[len] == '=') {
                *slot[k] = s + len + 1;
            } else if (s[len] == '\0') {
                if (i + 1 >= *argc) {
                    fprintf(stderr, "%s: %s needs a value (try --help)\n",
                            PROG, valued[k]);
                    return HX_EXIT_USAGE;
                }
                *slot[k] = argv[++i];
            } else {
                continue;          /* e.g. --mixes: not ours */
            }
            taken = 1;
        }
        if (!taken) argv[keep++] = argv[i];
    }
    *argc = keep;
    argv[keep] = NULL;
    return HX_EXIT_OK;
}

static int parseCount(const char *opt, const char *s, size_t lo, size_t hi,
                      size_t *out)
{
    if (hx_parse_size(s, out) || *out < lo || *out > hi) {
        fprintf(stderr, "%s: %s wants a whole number in [%zu, %zu], not "
                        "\"%s\" (try --help)\n",
                PROG, opt, lo, hi, s);
        return HX_EXIT_USAGE;
    }
    return HX_EXIT_OK;
}

static const char *statusOf(hx_split_kind k)
{
    switch (k) {
    case HX_SPLIT_PASS: return "pass";
    case HX_SPLIT_OUT_OF_BOUNDS: return "out_of_bounds";
    case HX_SPLIT_UNWRITTEN: return "unwritten";
    case HX_SPLIT_SWAPPED:
    case HX_SPLIT_GROUP_MISSING:
    case HX_SPLIT_BOUNDARY: return "boundary";
    case HX_SPLIT_ORDER: return "order";
    case HX_SPLIT_MISMATCH: return "mismatch";
    }
    return "mismatch";
}

static void jsonMs(FILE *f, const char *key, double ms, int timed)
{
    if (timed) fprintf(f, ",\"%s\":%.6f", key, ms);
    else fprintf(f, ",\"%s\":null", key);
}

/* Parses and range-checks the grade-mode values, before the GPU is
 * opened, so that bad arguments exit 2 on any machine. */
static int parseGradeArgs(GradeArgs *a)
{
    if (a->mix) {
        int m = 0;
        while (m < (int)HX_MIX_COUNT && strcmp(a->mix, hx_mix_name((hx_mix)m)))
            ++m;
        if (m == (int)HX_MIX_COUNT) {
            fprintf(stderr, "%s: unknown --mix \"%s\" (try --help)\n", PROG,
                    a->mix);
            return HX_EXIT_USAGE;
        }
        a->mixValue = (hx_mix)m;
    }
    if ((a->grid && parseCount("--grid", a->grid, 0, 2147483647u,
                               &a->gridValue)) ||
        (a->block && parseCount("--block", a->block, 1, 1024,
                                &a->blockValue)) ||
        (a->repeat && parseCount("--repeat", a->repeat, 1, 1000,
                                 &a->repeatValue)))
        return HX_EXIT_USAGE;
    return HX_EXIT_OK;
}

static int gradeMode(const hx_device *dev, const hx_opts *o,
                     const GradeArgs *a)
{
    const size_t n = o->n_set ? o->n : LESSON_N;
    const hx_mix mix = a->mixValue;
    const size_t gridArg = a->gridValue, block = a->blockValue,
                 repeat = a->repeatValue;

    hx_gpu_lock lock;
    if (hx_gpu_lock_open(&lock, a->lock)) {
        fprintf(stderr, "%s: cannot open the GPU lock %s: %s\n", PROG,
                a->lock, strerror(errno));
        return HX_EXIT_USAGE;
    }
    Problem p;
    problemAlloc(&p, dev, n);
    const unsigned blocks =
        gridArg ? (unsigned)gridArg : hx_grid_for(dev, n, (unsigned)block);
    /* The checks' GPU work, shared with other checking runs. */
    lockGpu(&lock, HX_LOCK_SHARED);
    problemFill(&p, mix, o->seed);
    prepareRanks(&p);
    checkRanks(&p);

    char where[160];
    describe(where, sizeof where, &p, blocks, (unsigned)block);
    hx_guard_report g;
    runStudent(&p, blocks, (unsigned)block, &g, where);
    hx_split_report r;
    const hx_split_kind kind = hx_check_split3(p.hIn, p.hGot, p.n, &g, &r);

    /* Launches 1..K-1 must reproduce launch 0 exactly, guards included. */
    long long disagree = -1;
    if (repeat > 1) {
        int *first = (int *)hostAlloc(n);
        memcpy(first, p.hGot, n * sizeof(int));
        for (size_t k = 1; k < repeat && disagree < 0; ++k) {
            hx_guard_report gk;
            runStudent(&p, blocks, (unsigned)block, &gk, where);
            if (memcmp(first, p.hGot, n * sizeof(int)) ||
                gk.before != g.before || gk.after != g.after)
                disagree = (long long)k;
        }
        free(first);
    }
    hx_gpu_lock_release(&lock);
    const char *status = disagree >= 0 ? "nondeterministic" : statusOf(kind);

    Times t;
    memset(&t, 0, sizeof t);
    int timed = 0;
    if (a->time && disagree < 0 && kind == HX_SPLIT_PASS) {
        if (timeRows(&p, blocks, (unsigned)block, o, &t, &lock)) {
            /* The first launch passed and this one did not: that is a
             * kernel whose output changes from run to run. */
            status = "nondeterministic";
            disagree = (long long)repeat;
        } else {
            timed = 1;
        }
    }

    hx_split_print(where, &r, stdout);
    printf("grade: status %s (check: %s)%s\n", status, hx_split_kind_name(kind),
           disagree >= 0 ? ", launches disagreed" : "");
    if (timed)
        printf("grade: split %.4f ms, partition %.4f ms, copy %.4f ms, "
               "split %.2fx copy\n",
               t.split.median_ms, t.partition.median_ms, t.copy.median_ms,
               t.split.median_ms / t.copy.median_ms);

    FILE *f = fopen(a->result, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write the result file %s\n", PROG,
                a->result);
        problemFree(&p);
        return HX_EXIT_USAGE;
    }
    fprintf(f, "{\"status\":\"%s\",\"detail\":\"%s\"", status,
            hx_split_kind_name(kind));
    fprintf(f, ",\"n\":%zu,\"seed\":%llu,\"mix\":\"%s\",\"grid\":%zu,"
               "\"blocks\":%u,\"block\":%zu",
            n, (unsigned long long)o->seed, hx_mix_name(mix), gridArg, blocks,
            block);
    fprintf(f, ",\"want_b1\":%zu,\"want_b2\":%zu,\"found_b1\":%zu,"
               "\"found_b2\":%zu,\"b1_ok\":%s,\"b2_ok\":%s",
            r.want_b1, r.want_b2, r.found_b1, r.found_b2,
            r.b1_ok ? "true" : "false", r.b2_ok ? "true" : "false");
    if (r.cmp.bad)
        fprintf(f, ",\"first_bad\":%zu,\"got\":%d,\"want\":%d", r.cmp.first,
                r.cmp.got, r.cmp.want);
    else
        fprintf(f, ",\"first_bad\":-1,\"got\":null,\"want\":null");
    fprintf(f, ",\"bad\":%zu,\"unwritten\":%zu,\"order_errors\":%zu",
            r.cmp.bad, r.cmp.unwritten, r.order_errors);
    fprintf(f, ",\"guard_before\":%zu,\"guard_after\":%zu", g.before,
            g.after);
    if (g.before)
        fprintf(f, ",\"guard_first_offset\":%lld", g.first_before);
    else if (g.after)
        fprintf(f, ",\"guard_first_offset\":%lld", g.first_after);
    else
        fprintf(f, ",\"guard_first_offset\":null");
    fprintf(f, ",\"disagree_run\":%lld", disagree);
    if (a->time) {
        jsonMs(f, "split_ms", t.split.median_ms, timed);
        jsonMs(f, "partition_ms", t.partition.median_ms, timed);
        jsonMs(f, "copy_ms", t.copy.median_ms, timed);
        jsonMs(f, "x_copy",
               timed ? t.split.median_ms / t.copy.median_ms : 0, timed);
    }
    fprintf(f, "}\n");
    const int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "%s: cannot write the result file %s\n", PROG,
                a->result);
        problemFree(&p);
        return HX_EXIT_USAGE;
    }
    problemFree(&p);
    return HX_EXIT_OK;
}

/* ------------------------------------------------------------------ */

/* The usage paragraph; the mix names come from the harness, so they
 * cannot drift from what --mix accepts. */
static void buildUsage(char *buf, size_t len)
{
    char mixes[200] = "";
    for (int m = 0; m < (int)HX_MIX_COUNT; ++m) {
        strncat(mixes, m ? "|" : "", sizeof mixes - strlen(mixes) - 1);
        strncat(mixes, hx_mix_name((hx_mix)m),
                sizeof mixes - strlen(mixes) - 1);
    }
    snprintf(buf, len,
             "threeway: checks scatterThreeWay (threeway.cu), the stable "
             "three-way\nsplit of the day 33 exercise, at sizes 0, 1, 255, "
             "256, 257, 65537,\n8387997 and the default timing size, every "
             "input mix, a normal and a\nsmall grid; prints PASS or FAIL "
             "(exit 0 or 1), then, without --check,\ntimes the split against "
             "a copy and the two-way partition. --n N checks\nand times that "
             "size only.\n"
             "Grade mode (for the grading tool): --grade --result FILE "
             "[--n N]\n[--seed S] [--mix %s]\n[--grid G (0: normal)] "
             "[--block B (256)] [--repeat K] [--time]\n[--lock F] runs one "
             "configuration and writes one line of JSON to FILE\n(see "
             "driver.cu).\n",
             mixes);
}

int main(int argc, char **argv)
{
    GradeArgs ga;
    memset(&ga, 0, sizeof ga);
    ga.mixValue = HX_MIX_THIRDS;
    ga.gridValue = 0;               /* the normal grid */
    ga.blockValue = BLOCK;
    ga.repeatValue = 1;
    int rc = takeGradeArgs(&argc, argv, &ga);
    if (rc != HX_EXIT_OK) return rc;
    hx_opts o;
    char usage[1024];
    buildUsage(usage, sizeof usage);
    rc = hx_parse_args(argc, argv, &o, 0, PROG, usage);
    if (rc != HX_EXIT_OK || o.help) return rc;
    if (!ga.grade && (ga.time || ga.mix || ga.result || ga.grid || ga.block ||
                      ga.repeat || ga.lock)) {
        fprintf(stderr, "%s: --mix, --grid, --block, --repeat, --result, "
                        "--time and --lock go with --grade (try --help)\n",
                PROG);
        return HX_EXIT_USAGE;
    }
    if (ga.grade && !ga.result) {
        fprintf(stderr, "%s: --grade needs --result FILE (try --help)\n",
                PROG);
        return HX_EXIT_USAGE;
    }
    if (ga.grade && (rc = parseGradeArgs(&ga)) != HX_EXIT_OK) return rc;

    hx_device dev;
    rc = hx_device_open(&dev, PROG);
    if (rc != HX_EXIT_OK) return rc;
    if (ga.grade) return gradeMode(&dev, &o, &ga);

    printf("threeway: the day 33 exercise, a stable three-way split "
           "(negatives | zeros | positives)\n");
    hx_device_print(&dev, stdout);
    char why[512];
    const size_t timingN =
        o.n_set ? o.n : hx_default_n(&dev, BYTES_PER_ELEMENT, why, sizeof why);
    if (o.n_set)
        printf("size: n = %zu (--n)\n", timingN);
    else
        printf("sizes: 0, 1, 255, 256, 257, 65537, %zu (the lesson's) and "
               "%zu (timing): %s\n",
               LESSON_N, timingN, why);
    printf("seed %llu; each size with the normal grid (256 threads a block) "
           "and a small grid (%u x %u)\n\n",
           (unsigned long long)o.seed, SMALL_GRID, SMALL_BLOCK);

    Tally t = {0, 0, 0};
    if (o.n_set) {
        checkSize(&dev, o.n, o.seed, &t);
    } else {
        const size_t sizes[] = {0, 1, 255, 256, 257, 65537, LESSON_N};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
            checkSize(&dev, sizes[k], o.seed, &t);
        if (timingN != LESSON_N) checkSize(&dev, timingN, o.seed, &t);
    }
    printf("\n%d of %d runs passed\n", t.passed, t.runs);
    if (t.passed != t.runs) {
        printf("(the first failure's report is above; ./%s --n N reruns one "
               "size)\nFAIL\n", PROG);
        return HX_EXIT_FAIL;
    }
    if (!o.check && timeStudent(&dev, timingN, &o)) {
        printf("FAIL\n");
        return HX_EXIT_FAIL;
    }
    printf("PASS\n");
    return HX_EXIT_OK;
}
