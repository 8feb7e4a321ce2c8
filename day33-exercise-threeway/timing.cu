/* timing.cu: the timings. Student mode prints a table (every row checked
 * once, then the rows timed interleaved, hx_time_set); grade mode times
 * the student's scatterThreeWay alone against the reference solution's,
 * and the whole split against a copy, every launch checked. */
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <signal.h>
#include <unistd.h>

#include "driver.h"
#include "hx_bench.h"
#include "hx_ref.h"
#include "hx_time.h"

typedef struct {
    const Ctx *c;
    Buffers *b;
    size_t n;
} Work;

static void workMemcpy(void *ctx)
{
    Work *w = (Work *)ctx;
    HX_CHECK(cudaMemcpyAsync(w->b->out.data, w->b->in.data,
                             w->n * sizeof(int), cudaMemcpyDeviceToDevice, 0));
}

static void workCopy(void *ctx)
{
    Work *w = (Work *)ctx;
    kCopy(w->b->dev, w->b->in.data, w->b->out.data, w->n);
}

static void workCopyVec(void *ctx)
{
    Work *w = (Work *)ctx;
    hx_gpu_copy_vec(w->b->dev, w->b->in.data, w->b->out.data, w->n, 0);
}

static void workPartition(void *ctx)
{
    Work *w = (Work *)ctx;
    Buffers *b = w->b;
    kMarkNegative(b->dev, b->in.data, b->negRank.data, w->n);
    scanExclusive(scanFor(b, w->n), b->negRank.data, b->totals.data + 0, 0);
    kScatterTwoWay(b->dev, b->in.data, b->negRank.data, b->out.data, w->n,
                   b->totals.data + 0);
}

static void workScatter(void *ctx)
{
    Work *w = (Work *)ctx;
    launchChecked(w->c, w->c->module, w->b, w->n,
                  hx_grid_for(w->b->dev, w->n, BLOCK), BLOCK, "the timing");
}

static void workSplit(void *ctx)
{
    Work *w = (Work *)ctx;
    prepareRanks(w->b, w->n);
    workScatter(ctx);
}

/* Poisons the output, runs work once, waits (under the watchdog: some
 * rows hold the student's kernel) and checks the output against want. */
static int checkRow(Work *w, const char *what, hx_work work, const int *want)
{
    Buffers *b = w->b;
    hx_guard_report g;
    kPoison(b->dev, &b->out);
    work(w);
    waitDone(w->c, b, w->n, what, "the timing's check");
    guardsOf(b, &g);
    const int bad = outputDiffers(b, want, w->n) || g.before || g.after;
    if (bad)
        printf("the timing's check of \"%s\" failed at n = %zu: its output "
               "differs from the host's%s\n", what, w->n,
               g.before || g.after ? " (and it wrote outside the output)"
                                   : "");
    return bad;
}

/* hx_time_set waits for its last event with no limit: an alarm stops a
 * kernel that hangs inside the student's timing. */
static void timingAlarm(int sig)
{
    static const char msg[] = "threeway: the timing ran past its limit and "
                              "was stopped (exit 6)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(EXIT_TIMEOUT);
    _exit(EXIT_TIMEOUT);
}

enum {
    ROW_MEMCPY,
    ROW_COPY,
    ROW_COPY_VEC,
    ROW_PARTITION,
    ROW_SPLIT,
    ROW_SCATTER,
    ROWS
};

int studentTiming(const Ctx *c, Buffers *b, const hx_device *dev, Group *g,
                  const hx_opts *o)
{
    const size_t n = g->n;
    Work w = {c, b, n};
    printf("\ntiming: n = %zu ints (%.1f MiB per buffer), mix %s, seed %llu, "
           "median of %d runs after %d warm-ups, the rows interleaved\n", n,
           n * sizeof(int) / 1048576.0, planMixName(g->mix),
           (unsigned long long)o->seed, o->runs, o->warmup);
    hx_warn_if_cached(dev, n * sizeof(int), stdout);
    outFor(b, n);
    groupDevice(b, g);
    groupReference(b, g);
    int bad = checkRow(&w, "cudaMemcpy", workMemcpy, b->hIn) ||
              checkRow(&w, "copyInts", workCopy, b->hIn) ||
              checkRow(&w, HX_BENCH_COPY_VEC_NAME, workCopyVec, b->hIn) ||
              checkRow(&w, "three-way split", workSplit, b->hRef) ||
              checkRow(&w, "scatterThreeWay alone", workScatter, b->hRef);
    if (!bad) {
        hx_partition(b->hIn, b->hGot, n, hx_pred_negative);
        bad = checkRow(&w, "two-way partition", workPartition, b->hGot);
    }
    if (bad) {
        printf("a timed row failed its check: nothing was timed\n");
        return 1;
    }
    const hx_work works[ROWS] = {workMemcpy,    workCopy,  workCopyVec,
                                 workPartition, workSplit, workScatter};
    void *const ctxs[ROWS] = {&w, &w, &w, &w, &w, &w};
    hx_timing t[ROWS];
    signal(SIGALRM, timingAlarm);
    alarm((unsigned)ceil(launchLimit(c, n) * ROWS * (o->warmup + o->runs)));
    hx_time_set(ROWS, works, ctxs, o->warmup, o->runs, t);
    alarm(0);

    /* The floor of a row, as in every table of the course: the ints its
     * own kernels read and write, at the rate of the device-to-device
     * memcpy (which moves 2n ints). The copies 2n; the partition about 9n
     * (a mark 2n, the tile scan about 4n, scatterTwoWay 3n); the whole
     * split about 16n (two marks, two scans, scatterThreeWay's 4n);
     * scatterThreeWay alone its own 4n. Any split's least is 2n. */
    const double ints = (double)n * sizeof(int);
    const double memcpyMs = t[ROW_MEMCPY].median_ms;
    const double floor2 = hx_floor_ms(2 * ints, 2 * ints, memcpyMs);
    const double copyMs = t[ROW_COPY].median_ms;
    const int scan = scanLaunches(scanFor(b, n));
    char title[160];
    snprintf(title, sizeof title, "the three-way split against a copy and "
             "the two-way partition, n = %zu", n);
    hx_table_begin(stdout, title);
    hx_table_row(stdout, "cudaMemcpy device to device", 1, &t[ROW_MEMCPY],
                 copyMs, floor2);
    hx_table_row(stdout, "copyInts", 1, &t[ROW_COPY], copyMs, floor2);
    hx_table_row(stdout, HX_BENCH_COPY_VEC_NAME, 1, &t[ROW_COPY_VEC], copyMs,
                 floor2);
    hx_table_row(stdout, "two-way partition (v < 0)", 2 + scan,
                 &t[ROW_PARTITION], copyMs,
                 hx_floor_ms(9 * ints, 2 * ints, memcpyMs));
    hx_table_row(stdout, "three-way split, whole", 3 + 2 * scan,
                 &t[ROW_SPLIT], copyMs,
                 hx_floor_ms(16 * ints, 2 * ints, memcpyMs));
    hx_table_row(stdout, "scatterThreeWay alone", 1, &t[ROW_SCATTER], copyMs,
                 hx_floor_ms(4 * ints, 2 * ints, memcpyMs));
    hx_table_note(stdout, "x copy: against copyInts; x floor: against the "
                          "ints the row's own kernels move, at the memcpy's "
                          "rate");
    hx_table_note(stdout, "floors: copies 2n; partition about 9n; split about "
                          "16n; scatter alone 4n (any split's least: 2n)");
    hx_table_note(stdout, "partition: markNegative + scan + scatterTwoWay");
    hx_table_note(stdout, "split: markNegative + scan + markZero + scan + "
                          "scatterThreeWay");
    hx_table_note(stdout, "alone: your kernel with the ranks already made");
    hx_table_end(stdout);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Grade mode: fair and verified round by round.                       */

static int cmpDouble(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof *v, cmpDouble);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

/* m * (pos - neg) mod p: what a mask m adds to a digest (kernels.cu). */
static uint64_t maskShift(uint64_t m, uint64_t pos, uint64_t neg)
{
    return digestMulMod(m % DIGEST_P, digestAdd(pos, neg ? DIGEST_P - neg
                                                         : 0));
}

enum { T_COPY, T_SPLIT, T_SCATTER, T_REF, T_ROWS };
static const char *const launchName[T_ROWS] = {"copy", "split", "scatter",
                                               "reference"};

/* The timing's status for slotVerdict's v (not 0): a guard written, on
 * either side of any buffer, is out_of_bounds (the guards are read after
 * every launch, warm-ups included, before the output is compared). */
static const char *timingStatus(int v)
{
    return v == 1 || v == 4 ? "out_of_bounds"
           : v == 2 ? "input_written" : "nondeterministic";
}

/* The timing of grade mode at g->n (the timing size, already checked as
 * runs of the plan), the GPU held exclusively for all its rounds (and no
 * longer than one launch's limit: the watchdog). Rounds, warm-ups first:
 *   copyInts, the yardstick;
 *   the whole split: 2 marks, 2 scans, the student's scatterThreeWay;
 *   the student's scatterThreeWay alone, on the ranks the split made;
 *   the reference solution's scatterThreeWay alone (--ref-module), on
 *   the same inputs; the two alone take turns going first, round by round.
 * Each round's input is the group's input (uploaded from the host at the
 * timing's start, the pristine copy) with every positive raised and every
 * negative lowered by a random mask, a different one each round: the
 * permutation and the ranks stay, every value changes, so no output of an
 * earlier launch is right. Every launch of a student's kernel (and the
 * reference's) is followed, outside its timed interval, by the checks of
 * a run: every guard, and every buffer's digest under the group's key,
 * masked as the round's input was (kernels.cu: by linearity, without a
 * pass over the data). The pristine copy is on the device, but a kernel
 * that changes it makes the next round's input differ from what the host
 * expects: input_written. Any failure, warm-ups included, fails the
 * timing: "status" names it, and the test repeatability fails. Returns
 * NULL, or that status. */
const char *gradeTiming(const Ctx *c, Buffers *b, Group *g,
                        const hx_opts *o, int rounds, int warmup)
{
    (void)o;
    const size_t n = g->n;
    const int total = warmup + rounds;
    const int withRef = c->ref != NULL;
    double *ms[T_ROWS];
    for (int k = 0; k < T_ROWS; ++k)
        ms[k] = (double *)hostAlloc((size_t)rounds, sizeof(double), "times");
    double *xr = (double *)hostAlloc((size_t)rounds, sizeof(double), "t");
    double *rr = (double *)hostAlloc((size_t)rounds, sizeof(double), "t");
    const unsigned grid = hx_grid_for(b->dev, n, BLOCK);
    cudaEvent_t ev[2 * T_ROWS];
    for (int k = 0; k < 2 * T_ROWS; ++k)
        HX_CHECK(cudaEventCreate(&ev[k]));
    Work w = {c, b, n};
    int badRound = -1, badLaunch = -1, badKind = 0;
    const char *badBuffer = NULL;
    /* The student's launches of the hold: one a round. */
    const double limit = timingLimit(c, n, total);

    g_ev.phase = "timing";
    lockGpu(HX_LOCK_SHARED, limit);
    groupDevice(b, g);
    outFor(b, n);
    HX_CHECK(cudaMemcpy(b->pristine, b->in.data, n * sizeof(int),
                        cudaMemcpyDeviceToDevice));
    /* The inputs' baseline, before any launch of the timing. */
    const int baseSlot = 3;
    const Baseline base = {&b->pinned->scan[baseSlot], b->checkCount};
    enqueueCheck(b, g, baseSlot, 1, NULL);
    HX_CHECK(cudaStreamSynchronize(0));
    unlockGpu();
    if (!g->masked)
        driverFailedAt("the timing's input has no masks' sums");
    const uint64_t inPos = g->sum[SUM_IN_POS], inNeg = g->sum[SUM_IN_NEG],
                   refPos = g->sum[SUM_REF_POS], refNeg = g->sum[SUM_REF_NEG];
    lockTiming(limit);
    for (int r = 0; r < total && badRound < 0; ++r) {
        const uint64_t m = 1 + randomWord() % ((1u << 20) - 1);
        uint64_t shift[NBUF] = {0};
        shift[BUF_OUT] = maskShift(m, refPos, refNeg);
        shift[BUF_IN] = maskShift(m, inPos, inNeg);
        kMaskInput(b->dev, b->pristine, b->in.data, n, (int)m);
        kPoison(b->dev, &b->out);
        HX_CHECK(cudaEventRecord(ev[0], 0));
        workCopy(&w);
        HX_CHECK(cudaEventRecord(ev[1], 0));
        uint64_t check[T_ROWS];
        int slot = 0;
        int order[3] = {T_SPLIT, T_SCATTER, T_REF};
        if (r % 2) {
            order[1] = T_REF;
            order[2] = T_SCATTER;
        }
        int slotOf[T_ROWS] = {-1, -1, -1, -1};
        for (int q = 0; q < 3; ++q) {
            const int k = order[q];
            if (k == T_REF && !withRef)
                continue;
            kPoison(b->dev, &b->out);
            HX_CHECK(cudaEventRecord(ev[2 * k], 0));
            if (k == T_SPLIT)
                workSplit(&w);
            else
                launchChecked(c, k == T_REF ? c->ref : c->module, b, n, grid,
                              BLOCK, "the timing");
            HX_CHECK(cudaEventRecord(ev[2 * k + 1], 0));
            check[k] = b->checkCount;
            slotOf[k] = slot;
            enqueueCheck(b, g, slot++, 0, NULL);
        }
        waitDone(c, b, n, "the timed scatterThreeWay", "the timing");
        for (int q = 0; q < 3 && badRound < 0; ++q) {
            const int k = order[q];
            if (slotOf[k] < 0)
                continue;
            const char *buffer = NULL;
            const int v = slotVerdict(&b->pinned->scan[slotOf[k]], g,
                                      check[k], &base, shift, &buffer);
            if (v) {
                badRound = r;
                badLaunch = k;
                badKind = v;
                badBuffer = buffer;
            }
        }
        if (r < warmup || badRound >= 0)
            continue;
        const int i = r - warmup;
        for (int k = 0; k < T_ROWS; ++k) {
            float t = 0;
            if (k != T_REF || withRef)
                HX_CHECK(cudaEventElapsedTime(&t, ev[2 * k], ev[2 * k + 1]));
            ms[k][i] = t;
        }
        xr[i] = ms[T_SPLIT][i] / ms[T_COPY][i];
        rr[i] = withRef ? ms[T_SCATTER][i] / ms[T_REF][i] : 0;
    }
    unlockGpu();
    g_ev.phase = "check";

    FILE *f = g_ev.f;
    fprintf(f, "{\"event\":\"timing\",\"test\":\"%s\",\"n\":%zu,"
            "\"rounds\":%d,\"warmup\":%d", planTestName(TEST_REPEATABILITY),
            n, rounds, warmup);
    if (badRound >= 0) {
        fprintf(f, ",\"copy_ms\":null,\"split_ms\":null,\"x_copy\":null,"
                "\"x_copy_min\":null,\"x_copy_max\":null,\"scatter_ms\":null,"
                "\"ref_scatter_ms\":null,\"r\":null,\"r_min\":null,"
                "\"r_max\":null,\"status\":\"%s\",\"bad_round\":%d,"
                "\"in_warmup\":%s,\"launch\":\"%s\",\"buffer\":",
                timingStatus(badKind),
                badRound, badRound < warmup ? "true" : "false",
                launchName[badLaunch]);
        if (badBuffer)
            jsonString(f, badBuffer);
        else
            fputs("null", f);
    } else {
        const double xMin = (qsort(xr, (size_t)rounds, sizeof *xr, cmpDouble),
                             xr[0]);
        const double xMax = xr[rounds - 1];
        const double copyMs = median(ms[T_COPY], rounds);
        const double splitMs = median(ms[T_SPLIT], rounds);
        const double scatterMs = median(ms[T_SCATTER], rounds);
        fprintf(f, ",\"copy_ms\":%.6f,\"split_ms\":%.6f,\"x_copy\":%.6f,"
                "\"x_copy_min\":%.6f,\"x_copy_max\":%.6f,\"scatter_ms\":%.6f",
                copyMs, splitMs, splitMs / copyMs, xMin, xMax, scatterMs);
        if (withRef) {
            const double refMs = median(ms[T_REF], rounds);
            qsort(rr, (size_t)rounds, sizeof *rr, cmpDouble);
            fprintf(f, ",\"ref_scatter_ms\":%.6f,\"r\":%.6f,\"r_min\":%.6f,"
                    "\"r_max\":%.6f", refMs, scatterMs / refMs, rr[0],
                    rr[rounds - 1]);
            printf("timing: scatterThreeWay %.4f ms, the reference's %.4f ms "
                   "(r = %.3f); split %.2fx copy (median of %d rounds)\n",
                   scatterMs, refMs, scatterMs / refMs, splitMs / copyMs,
                   rounds);
        } else {
            fprintf(f, ",\"ref_scatter_ms\":null,\"r\":null,\"r_min\":null,"
                    "\"r_max\":null");
        }
        fprintf(f, ",\"status\":\"pass\"");
    }
    eventDone();
    for (int k = 0; k < 2 * T_ROWS; ++k)
        HX_CHECK(cudaEventDestroy(ev[k]));
    for (int k = 0; k < T_ROWS; ++k)
        free(ms[k]);
    free(xr);
    free(rr);
    if (badRound < 0)
        return NULL;
    return timingStatus(badKind);
}

/* ------------------------------------------------------------------ */
/* The timing's bound, from the checks' own launches (runs.cu).       */

/* The student's launches of RATE_FROM elements or more in the checks, on
 * the timing's own grid (BLOCK threads, hx_grid_for's blocks: a small
 * grid's launch takes far longer an element and says nothing of the
 * timing's): timed by a pair of events each (RATE_PAIRS a batch at
 * most), the longest time an element kept (ms). -1 while none was
 * timed. */
#define RATE_FROM ((size_t)1 << 22)
#define RATE_PAIRS 64
static cudaEvent_t g_rateEv[2 * RATE_PAIRS];
static size_t g_rateN[RATE_PAIRS];
static int g_ratePairs;
static double g_rateMs = -1;

static int rateTimed(const Buffers *b, const Run *r)
{
    return r->n >= RATE_FROM && r->block == BLOCK &&
           r->blocks == hx_grid_for(b->dev, r->n, BLOCK);
}

void rateBegin(const Buffers *b, const Run *r)
{
    if (!rateTimed(b, r) || g_ratePairs == RATE_PAIRS)
        return;
    cudaEvent_t *e = &g_rateEv[2 * g_ratePairs];
    if (!e[0]) {
        HX_CHECK(cudaEventCreate(&e[0]));
        HX_CHECK(cudaEventCreate(&e[1]));
    }
    HX_CHECK(cudaEventRecord(e[0], 0));
}

void rateEnd(const Buffers *b, const Run *r)
{
    if (!rateTimed(b, r) || g_ratePairs == RATE_PAIRS)
        return;
    HX_CHECK(cudaEventRecord(g_rateEv[2 * g_ratePairs + 1], 0));
    g_rateN[g_ratePairs++] = r->n;
}

/* After a batch has ended. */
void rateSum(void)
{
    for (int k = 0; k < g_ratePairs; ++k) {
        float ms = 0;
        HX_CHECK(cudaEventElapsedTime(&ms, g_rateEv[2 * k],
                                      g_rateEv[2 * k + 1]));
        if (ms / (double)g_rateN[k] > g_rateMs)
            g_rateMs = ms / (double)g_rateN[k];
    }
    g_ratePairs = 0;
}

double timingLimit(const Ctx *c, size_t n, int launches)
{
    const double most = launchLimit(c, n);
    if (g_rateMs < 0)
        return most;
    const double t = TIMING_FLOOR_S +
                     TIMING_FACTOR * launches * g_rateMs * (double)n / 1000.0;
    return t < most ? t : most;
}
