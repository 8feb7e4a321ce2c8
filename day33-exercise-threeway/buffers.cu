/* buffers.cu: the buffers the student's kernel receives and their
 * guards, one group of runs (its input, its key and digests, its ranks),
 * one launch waited for, and a run fetched for its full report.
 *
 * Every buffer the student's kernel receives sits between guard words
 * (hx_guarded): the output with GUARD_WORDS each side (and everything of
 * its allocation past n), in, negRank and zeroRank with IN_GUARD_WORDS
 * each side of [0, n), the two totals with TOTALS_GUARD_WORDS. No
 * reference is ever uploaded: the host holds it, as sums under the
 * group's key (groupHost).
 */
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

#include "driver.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_time.h"

void *hostAlloc(size_t count, size_t size, const char *what)
{
    void *p = malloc(count ? count * size : 1);
    if (!p) {
        fprintf(stderr, "%s: %s (%.1f MiB) does not fit in host memory: try "
                "a smaller --n\n", g_prog, what, count * size / 1048576.0);
        g_ev.terminal = 1;
        exit(HX_EXIT_NOMEM);
    }
    return p;
}

/* Page-locked when it can be (an upload from it is one DMA that neither
 * blocks the host nor waits on the stream), else pageable; *pinned says
 * which. Only inputs are kept in it: page-locked memory is mapped into
 * the GPU's address space (kernels.cu's opening comment). */
void *uploadAlloc(size_t count, size_t size, const char *what, int *pinned)
{
    void *p = NULL;
    if (cudaMallocHost(&p, count ? count * size : 1) == cudaSuccess) {
        *pinned = 1;
        return p;
    }
    (void)cudaGetLastError();
    *pinned = 0;
    return hostAlloc(count, size, what);
}

void uploadFree(void *p, int pinned)
{
    if (pinned)
        HX_CHECK(cudaFreeHost(p));
    else
        free(p);
}

/* 8 bytes from /dev/urandom: keys and masks must not follow from the
 * grading seed, which a student may learn. Without it the process stops:
 * a key that can be guessed is no key. */
uint64_t randomWord(void)
{
    uint64_t v = 0;
    const int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        const ssize_t got = read(fd, &v, sizeof v);
        close(fd);
        if (got == (ssize_t)sizeof v)
            return v;
    }
    fprintf(stderr, "%s: cannot read /dev/urandom: %s\n", g_prog,
            strerror(errno));
    g_ev.terminal = 1;
    exit(HX_EXIT_USAGE);
}

/* ------------------------------------------------------------------ */
/* Buffers, allocated once for the largest size of the plan.           */

/* The capacity of output class k for a plan whose largest size is cap
 * (driver.h, OUT_CLASSES), or 0 past the last class. */
static size_t outClassCap(size_t cap, int k)
{
    size_t c = cap ? cap : 1;
    for (int j = 0; j < k; ++j) {
        if (j + 1 == OUT_CLASSES || c / 4 < OUT_CLASS_MIN)
            return 0;
        c /= 4;
    }
    return c;
}

static size_t outBytes(size_t cap)
{
    size_t bytes = 0;
    for (int k = 0; outClassCap(cap, k); ++k)
        bytes += (outClassCap(cap, k) + 2 * GUARD_WORDS) * sizeof(int);
    return bytes;
}

/* The output sized n, in the smallest class that holds 2n (else the
 * largest): b->out, for the launches and checks that follow. */
void outFor(Buffers *b, size_t n)
{
    int k = 0;
    while (k + 1 < b->outClasses && b->outClass[k + 1].cap >= 2 * n)
        ++k;
    b->out = b->outClass[k];
    hx_guarded_resize(&b->out, n);
}

size_t deviceBytes(size_t cap, int timing)
{
    const size_t ints = cap ? cap : 1;
    return (3 + (timing ? 1 : 0)) * (ints + 2 * IN_GUARD_WORDS) *
               sizeof(int) +
           outBytes(cap) + scanPlanBytes(cap) + (1u << 20);
}

/* An input buffer: its guards laid once here, and after each upload
 * (groupEnqueue). */
static void inputAlloc(hx_guarded *g, size_t cap, size_t guard)
{
    hx_guarded_alloc_wide(g, cap ? cap : 1, guard);
    HX_CHECK(cudaMemset(g->base, HX_GUARD_BYTE,
                        (g->cap + 2 * guard) * sizeof(int)));
}

void buffersAlloc(Buffers *b, const hx_device *dev, size_t cap, int timing)
{
    memset(b, 0, sizeof *b);
    const size_t need = deviceBytes(cap, timing);
    if (!hx_fits(dev, need)) {
        fprintf(stderr, "%s: n=%zu needs %.1f MiB of device memory, %.1f MiB "
                "free: try a smaller --n\n", g_prog, cap, need / 1048576.0,
                dev->free_mem / 1048576.0);
        g_ev.terminal = 1;
        exit(HX_EXIT_NOMEM);
    }
    b->dev = dev;
    b->cap = cap;
    inputAlloc(&b->in, cap, IN_GUARD_WORDS);
    inputAlloc(&b->negRank, cap, IN_GUARD_WORDS);
    inputAlloc(&b->zeroRank, cap, IN_GUARD_WORDS);
    inputAlloc(&b->totals, 2, TOTALS_GUARD_WORDS);
    if (timing)
        HX_CHECK(cudaMalloc(&b->pristine, (cap ? cap : 1) * sizeof(int)));
    HX_CHECK(cudaMalloc(&b->checks, CHECK_SLOTS * sizeof(CheckSlot)));
    HX_CHECK(cudaMalloc(&b->rankCheck, BATCH_GROUPS * sizeof(RankCheck)));
    /* The digests' sums, then the device's key word, a spare word and the
     * next group's baseline key word (KeyStage). */
    HX_CHECK(cudaMalloc(&b->acc, (2 * NBUF + 3) * sizeof(unsigned long long)));
    HX_CHECK(cudaMemset(b->acc, 0,
                        (2 * NBUF + 3) * sizeof(unsigned long long)));
    HX_CHECK(cudaMallocHost(&b->pinned, sizeof(Pinned)));
    memset(b->pinned, 0, sizeof(Pinned));
    HX_CHECK(cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming));
    for (size_t c; (c = outClassCap(cap, b->outClasses)) != 0;)
        hx_guarded_alloc_wide(&b->outClass[b->outClasses++], c, GUARD_WORDS);
    b->out = b->outClass[0];
    b->hIn = (int *)uploadAlloc(cap, sizeof(int), "the input", &b->hInPinned);
    b->hRef = (int *)hostAlloc(cap, sizeof(int), "the reference");
    b->hGot = (int *)hostAlloc(cap, sizeof(int), "the output");
    b->hChunk = (int *)hostAlloc(CHUNK, sizeof(int), "a chunk");
}

void buffersFree(Buffers *b)
{
    hx_guarded_free(&b->in);
    hx_guarded_free(&b->negRank);
    hx_guarded_free(&b->zeroRank);
    hx_guarded_free(&b->totals);
    for (int k = 0; k < b->outClasses; ++k)
        hx_guarded_free(&b->outClass[k]);
    memset(&b->out, 0, sizeof b->out);
    HX_CHECK(cudaFree(b->pristine));
    HX_CHECK(cudaFree(b->checks));
    HX_CHECK(cudaFree(b->rankCheck));
    HX_CHECK(cudaFree(b->acc));
    HX_CHECK(cudaFreeHost(b->pinned));
    HX_CHECK(cudaEventDestroy(b->done));
    for (int k = 0; k < b->nScans; ++k)
        scanPlanDestroy(&b->scans[k]);
    free(b->scans);
    uploadFree(b->hIn, b->hInPinned);
    free(b->hRef);
    free(b->hGot);
    free(b->hChunk);
    memset(b, 0, sizeof *b);
}

/* The scan plan for n elements, made the first time (the plans of a
 * plan's sizes are all made before its runs: scansFor). */
ScanPlan *scanFor(Buffers *b, size_t n)
{
    for (int k = 0; k < b->nScans; ++k)
        if (b->scans[k].n == n)
            return &b->scans[k];
    if (b->nScans == b->capScans) {
        b->capScans = b->capScans ? 2 * b->capScans : 64;
        ScanPlan *grown = (ScanPlan *)realloc(
            b->scans, (size_t)b->capScans * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "%s: out of host memory for the scan plans\n",
                    g_prog);
            exit(HX_EXIT_NOMEM);
        }
        b->scans = grown;
    }
    scanPlanCreate(&b->scans[b->nScans], n);
    return &b->scans[b->nScans++];
}

void scansFor(Buffers *b, const Plan *p)
{
    for (int k = 0; k < p->count; ++k)
        scanFor(b, p->run[k].n);
}

/* ------------------------------------------------------------------ */
/* One group: its input, its reference, its digests.                   */

/* A group's (size, mix, test) and its input, into hIn. */
static void groupInput(const Buffers *b, int *hIn, Group *g, size_t n,
                       plan_mix mix, plan_test t, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    g->mix = mix;
    g->test = t;
    planFillCached(hIn, n, mix, planInputSeed(seed, n, mix), b->inputCache);
}

/* What a group's digest needs besides its input: a record beside the
 * input in the inputs' folder (groupHostInto). */
typedef struct {
    uint64_t n;
    uint64_t key;
    uint64_t sum[NREF];
    uint64_t a, ab;
} DigestRecord;

/* The host's half: the input, its boundaries, a fresh key and the sums
 * the checks compare with under it (Group.sum, made from the input alone
 * by digestHostGroup; with the timing's masks' sums for the timing's
 * input, of b->maskedN thirds). The reference split itself is made only
 * where an output is compared on the host (groupReference). Neither the
 * reference nor anything that places an element is ever made or
 * uploaded on the device: the device only digests what the student's
 * kernel wrote and the inputs it received (kernels.cu).
 * With --input-cache, a group of PLAN_CACHE_MIN elements or more takes
 * its key, sums and boundaries from the record beside its input
 * (DigestRecord), which the first driver of the grading run to need it
 * drew and summed and wrote there: the digest is the driver's largest
 * host work, and every driver of a run would sum the same input. The
 * record is a file in the run's own folder, on the host; like every key,
 * its key reaches a GPU only after a student's launch has ended. */
void groupHost(Buffers *b, Group *g, size_t n, plan_mix mix, plan_test t,
               uint64_t seed)
{
    groupHostInto(b, b->hIn, g, n, mix, t, seed);
}

/* groupHost with the input into hIn instead of b->hIn, reading b alone:
 * the batches' second host buffer, filled on another thread (runs.cu). */
void groupHostInto(const Buffers *b, int *hIn, Group *g, size_t n,
                   plan_mix mix, plan_test t, uint64_t seed)
{
    groupInput(b, hIn, g, n, mix, t, seed);
    g->masked = n == b->maskedN && mix == MIX_THIRDS;
    const uint64_t iseed = planInputSeed(seed, n, mix);
    const char *ext = g->masked ? "digestm" : "digest";
    const char *dir = n >= PLAN_CACHE_MIN ? b->inputCache : NULL;
    DigestRecord r;
    if (planRecordRead(dir, iseed, n, mix, ext, &r, sizeof r) &&
        r.n == n && r.ab >= r.a && r.ab <= n) {
        g->key = r.key;
        memcpy(g->sum, r.sum, sizeof g->sum);
        g->a = r.a;
        g->ab = r.ab;
        g->valid = 1;
        return;
    }
    size_t a, ab;
    g->key = randomWord();
    digestHostGroup(hIn, n, g->key, g->masked, &a, &ab, g->sum);
    g->a = a;
    g->ab = ab;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.key = g->key;
    memcpy(r.sum, g->sum, sizeof r.sum);
    r.a = a;
    r.ab = ab;
    planRecordWrite(dir, iseed, n, mix, ext, &r, sizeof r);
    g->valid = 1;
}

/* A group for a run compared on the host (runFetched): its input, and
 * its reference split into b->hRef at once, with the boundaries it
 * gives; no key and no sums (nothing digests it). */
void groupFetched(Buffers *b, Group *g, size_t n, plan_mix mix, plan_test t,
                  uint64_t seed)
{
    groupInput(b, b->hIn, g, n, mix, t, seed);
    hx_split3(b->hIn, b->hRef, n, &g->a, &g->ab);
    g->refMade = 1;
    g->valid = 1;
}

/* The reference split of the group whose input b->hIn holds, into
 * b->hRef, by the harness's host reference: where an output is compared
 * on the host (a run that failed, the student's timing). Its boundaries
 * must be the ones groupHost counted. A group from groupFetched has it
 * made already. */
void groupReference(Buffers *b, const Group *g)
{
    if (g->refMade)
        return;
    size_t a, ab;
    hx_split3(b->hIn, b->hRef, g->n, &a, &ab);
    if (a != g->a || ab != g->ab)
        driverFailedAt("the host's reference split disagrees with the "
                       "input's counts");
}

/* Enqueues the driver's half of the split: two predicates and two scans,
 * one per boundary. */
void prepareRanks(Buffers *b, size_t n)
{
    ScanPlan *plan = scanFor(b, n);
    kMarkNegative(b->dev, b->in.data, b->negRank.data, n);
    scanExclusive(plan, b->negRank.data, b->totals.data + 0, 0);
    kMarkZero(b->dev, b->in.data, b->zeroRank.data, n);
    scanExclusive(plan, b->zeroRank.data, b->totals.data + 1, 0);
}

void driverFailedAt(const char *what)
{
    fprintf(stderr, "%s: %s (not the kernel's fault: report this to the "
            "course staff)\n", g_prog, what);
    eventFault("the driver's own check", what);
    exit(HX_EXIT_CUDA);
}

/* Sizes an input buffer to n words and adds its two guards to f. */
static void guardInput(FillSpans *f, hx_guarded *g, size_t n)
{
    hx_guarded_resize(g, n);
    fillAdd(f, g->base, g->guard, HX_GUARD_WORD);
    fillAdd(f, g->data + n, g->guard, HX_GUARD_WORD);
}

/* Enqueues the device half of group g, nothing waiting: its input
 * uploaded from src (Buffers.hIn or a stage, page-locked where they
 * can be: src must then stay as it is until the stream has passed the
 * copy, which every caller waits for before it writes src again; or,
 * onDevice, copied by a kernel from the batch's device stage, so that
 * the stream does not wait for the copy engine once a group), the
 * guards of every input laid, the ranks made and
 * checked on the device into rank slot slot, the totals copied beside,
 * and the slot written to the host before any later launch. */
void groupEnqueue(Buffers *b, const Group *g, const int *src, int slot,
                  int onDevice)
{
    const size_t n = g->n;
    FillSpans f;
    memset(&f, 0, sizeof f);
    guardInput(&f, &b->in, n);
    guardInput(&f, &b->negRank, n);
    guardInput(&f, &b->zeroRank, n);
    guardInput(&f, &b->totals, 2);
    kFill(b->dev, &f);
    if (n && onDevice) {
        kCopy(b->dev, src, b->in.data, n);
    } else if (n) {
        /* From pageable memory (uploadAlloc's fallback) the call returns
         * once the runtime has staged the copy, which can wait on the
         * stream (HX_PROFILE). */
        const double t0 = hx_now_seconds();
        HX_CHECK(cudaMemcpyAsync(b->in.data, src, n * sizeof(int),
                                 cudaMemcpyHostToDevice, 0));
        profAdd(PROF_UPLOADS, t0);
    }
    gpuMark(GPU_UPLOAD);
    b->uploaded = *g;
    prepareRanks(b, n);
    kCheckRanks(b->dev, b->in.data, b->negRank.data, b->zeroRank.data, n,
                b->totals.data, b->rankCheck + slot, b->pinned->rank + slot);
    gpuMark(GPU_RANKS);
}

int ranksWrong(const RankCheck *r, const Group *g)
{
    return r->bad || (size_t)r->totals[0] != g->a ||
           (size_t)r->totals[1] != g->ab - g->a;
}

void ranksChecked(const RankCheck *r, const Group *g)
{
    if (ranksWrong(r, g)) {
        char what[200];
        snprintf(what, sizeof what, "the driver's ranks are wrong at n=%zu "
                 "(%llu bad, totals %d and %d, want %zu and %zu)", g->n,
                 r->bad, r->totals[0], r->totals[1], g->a, g->ab - g->a);
        driverFailedAt(what);
    }
}

/* Under the caller's lock, waited for: group g uploaded from b->hIn, its
 * ranks made and checked before the student's kernel first sees them. */
void groupDevice(Buffers *b, const Group *g)
{
    groupEnqueue(b, g, b->hIn, 0, 0);
    HX_CHECK(cudaStreamSynchronize(0));
    ranksChecked(b->pinned->rank, g);
}

/* The spans of every buffer as the next launch sees them. */
void spansOf(Buffers *b, Spans *s)
{
    const hx_guarded *g[NBUF] = {&b->out, &b->in, &b->negRank, &b->zeroRank,
                                 &b->totals};
    for (int k = 0; k < NBUF; ++k) {
        s->data[k] = g[k]->data;
        s->n[k] = g[k]->n;
        s->before[k] = g[k]->base;
        s->beforeWords[k] = g[k]->guard;
        s->after[k] = g[k]->data + g[k]->n;
        s->afterWords[k] = k == BUF_OUT ? hx_guarded_after(g[k])
                                        : g[k]->guard;
    }
}

/* Enqueues one launch's checks under group g's key into slot (baseline:
 * the inputs' baseline, no output): its number is b->checkCount before
 * the call. stage (or NULL): how its key goes (driver.h, KeyStage). */
void enqueueCheck(Buffers *b, const Group *g, int slot, int baseline,
                  const KeyStage *stage)
{
    Spans s;
    spansOf(b, &s);
    if (baseline)   /* the output is not the baseline's business */
        s.n[BUF_OUT] = s.beforeWords[BUF_OUT] = s.afterWords[BUF_OUT] = 0;
    b->keyWord[slot] = g->key;
    kCheckLaunch(b->dev, &s, b->checks + slot, b->pinned->scan + slot,
                 &b->pinned->key, &b->keyWord[slot], b->checkCount++, b->acc,
                 stage);
}

/* Sum sum of a baseline, its pad taken off. */
uint64_t unpadded(const Baseline *base, const Group *g, int sum)
{
    return digestAdd(base->slot->digest[sum],
                     DIGEST_P - digestPad(g->key, base->check, sum));
}

/* ------------------------------------------------------------------ */
/* One launch, waited for.                                             */

void pollPause(int *polls)
{
    if (++*polls > 100) {
        const struct timespec nap = {0, 50000};
        nanosleep(&nap, NULL);
    }
}

static void waitUntil(Buffers *b, double limit, const char *call,
                      const char *where)
{
    HX_CHECK(cudaEventRecord(b->done, 0));
    const double t0 = hx_now_seconds();
    int polls = 0;
    for (;;) {
        const cudaError_t e = cudaEventQuery(b->done);
        if (e == cudaSuccess)
            break;
        if (e != cudaErrorNotReady)
            studentFault(call, cudaGetErrorName(e), cudaGetErrorString(e),
                         where);
        if (hx_now_seconds() - t0 > limit)
            timedOut(where, limit, 0);
        pollPause(&polls);
    }
    (void)cudaGetLastError();   /* cudaErrorNotReady is not an error */
}

void waitDone(const Ctx *c, Buffers *b, size_t n, const char *call,
              const char *where)
{
    waitUntil(b, launchLimit(c, n), call, where);
}

CUresult launchTry(const Module *m, Buffers *b, size_t n,
                          unsigned blocks, unsigned block)
{
    return moduleLaunch(m, blocks, block, b->in.data, b->negRank.data,
                        b->zeroRank.data, b->out.data, n, b->totals.data + 0,
                        b->totals.data + 1);
}

void launchRefused(const Module *m, CUresult r, unsigned block,
                          const char *where)
{
    char text[240];
    snprintf(text, sizeof text, "%s%s", moduleErrorText(r),
             (int)block > m->maxThreads
                 ? " (the kernel allows fewer threads a block: every "
                   "block size up to 1024 must work)"
                 : "");
    studentFault("cuLaunchKernel(scatterThreeWay)", moduleErrorName(r),
                 text, where);
}

void launchChecked(const Ctx *c, const Module *m, Buffers *b, size_t n,
                   unsigned blocks, unsigned block, const char *where)
{
    (void)c;
    const CUresult r = launchTry(m, b, n, blocks, block);
    if (r != CUDA_SUCCESS)
        launchRefused(m, r, block, where);
}

/* 1 when the device output differs from want[0..n). */
int outputDiffers(Buffers *b, const int *want, size_t n)
{
    for (size_t i = 0; i < n; i += CHUNK) {
        const size_t k = n - i < CHUNK ? n - i : CHUNK;
        HX_CHECK(cudaMemcpy(b->hChunk, b->out.data + i, k * sizeof(int),
                            cudaMemcpyDeviceToHost));
        if (memcmp(b->hChunk, want + i, k * sizeof(int)))
            return 1;
    }
    return 0;
}

/* The output's guards after the last launch, read on the host: the
 * nearest changed word on each side is found by a device scan, and its
 * value read back. */
void guardsOf(Buffers *b, hx_guard_report *g)
{
    Spans s;
    spansOf(b, &s);
    for (int k = BUF_IN; k < NBUF; ++k)
        s.beforeWords[k] = s.afterWords[k] = s.n[k] = 0;
    s.n[BUF_OUT] = 0;
    b->keyWord[0] = 0;
    kCheckLaunch(b->dev, &s, b->checks, &b->pinned->spare, &b->pinned->key,
                 &b->keyWord[0], b->checkCount++, b->acc, NULL);
    CheckSlot got;
    HX_CHECK(cudaMemcpy(&got, b->checks, sizeof got, cudaMemcpyDeviceToHost));
    const GuardScan *q = &got.guard[BUF_OUT];
    memset(g, 0, sizeof *g);
    g->before = (size_t)q->before;
    g->after = (size_t)q->after;
    if (q->before) {
        g->first_before = (long long)q->nearBefore - 1 -
                          (long long)b->out.guard;
        HX_CHECK(cudaMemcpy(&g->value_before, b->out.base + q->nearBefore - 1,
                            sizeof(int), cudaMemcpyDeviceToHost));
    }
    if (q->after) {
        g->first_after = (long long)(b->out.n + q->nearAfter);
        HX_CHECK(cudaMemcpy(&g->value_after,
                            b->out.data + b->out.n + q->nearAfter,
                            sizeof(int), cudaMemcpyDeviceToHost));
    }
}

static int sameGuards(const hx_guard_report *x, const hx_guard_report *y)
{
    return x->before == y->before && x->after == y->after &&
           (!x->before || (x->first_before == y->first_before &&
                           x->value_before == y->value_before)) &&
           (!x->after || (x->first_after == y->first_after &&
                          x->value_after == y->value_after));
}

/* Runs r the slow way, fetching every output: after a launch the fast
 * way found wrong, for the report element for element (judge.c). The
 * group is made and uploaded again first. */
void runFetched(const Ctx *c, Buffers *b, const Group *g,
                       const Run *r, const char *where, Outcome *o)
{
    hx_guard_report guards, again;
    lockGpu(HX_LOCK_SHARED, launchLimit(c, r->n));
    groupDevice(b, g);
    outFor(b, r->n);
    kPoison(b->dev, &b->out);
    launchChecked(c, c->module, b, r->n, r->blocks, r->block, where);
    waitDone(c, b, r->n, "scatterThreeWay", where);
    guardsOf(b, &guards);
    hx_guarded_fetch_output(&b->out, b->hGot);
    if (r->launches > 1) {
        kPoison(b->dev, &b->out);
        launchChecked(c, c->module, b, r->n, r->blocks, r->block, where);
        waitDone(c, b, r->n, "scatterThreeWay", where);
        guardsOf(b, &again);
        o->disagree = !sameGuards(&guards, &again) ||
                      outputDiffers(b, b->hGot, r->n);
    }
    unlockGpu();
    groupReference(b, g);
    judgeRun(b->hIn, b->hRef, b->hGot, r->n, g->a, g->ab, &guards, &o->v);
}

