/* runs.cu: the GPU lock and the watchdog that bounds every hold of it,
 * one launch's verdict from its checks, and the plan in batches.
 *
 * After every launch of the student's kernel (the timing's warm-ups and
 * rounds included) the device scans every guard and digests every buffer
 * under the group's key (kernels.cu), and the host compares: the output's
 * digest with the reference's (groupHost), the inputs' and totals' with
 * their baseline, the digests the device took before the group's first
 * launch. An input or a total that changed is input_written, naming the
 * buffer; a guard word changed beside an input is out_of_bounds, naming
 * it; an output that differs is run again alone and fetched, for the
 * element-for-element report (judge.c).
 *
 * Runs go to the GPU in batches: as many consecutive groups (test, size,
 * mix) as the stage holds (STAGE_INTS, page-locked where it can be; a
 * larger group alone, from Buffers.hIn), the stage uploaded at once (one
 * wait for the copy engine a batch: each is every other context's turn),
 * each group's input copied from it on the device, its ranks made and
 * checked, then its runs, all in stream order; one wait a batch. While
 * the GPU runs a batch, a second thread makes the next one on the host
 * (its inputs and digests, the driver's largest host work) into buffers
 * of its own (HX_PIPELINE=0: one after the other; runPlan).
 * Each launch's checks are written to the host as soon as they are made,
 * so the first slot not yet arrived names the run a fault or a hang is
 * in. A second thread, the watchdog, stops the process (exit 6, after a
 * "timeout" event) when a launch of the batch has run past its limit, or
 * when any hold of the GPU lock (a batch, the timing, a slow rerun) has
 * lasted longer than one launch's limit at its largest size: the kernel
 * of a submission that sleeps just under the limit on every launch holds
 * the lock no longer than one that hangs. When that bound fires on a
 * shared hold while the launch under way is young (under half its own
 * limit), the slowness may be other drivers' kernels sharing the GPU:
 * the timeout event says "hold":"shared", and the grading tool tries the
 * submission again with --exclusive (every hold alone). The lock is a
 * record lock, which the kernel frees when the process ends.
 */
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "driver.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "hx_time.h"

#define STAGE_INTS ((size_t)1 << 22)     /* 16 MiB of staged input */

/* ------------------------------------------------------------------ */
/* The batch in flight, the lock's hold, and the watchdog.             */

typedef struct {
    Group g;               /* its boundaries, key and digests */
    int first, end;        /* its runs: plan runs [first, end) */
    int staged;            /* its input is in the stage at stageAt; else
                              in b->hIn */
    size_t stageAt;
} BatchGroup;

typedef struct {
    BatchGroup group[BATCH_GROUPS];
    int groups;
    int slotRun[BATCH_SLOTS];       /* the plan run of each launch slot */
    int slotGroup[BATCH_SLOTS];
    uint64_t slotCheck[BATCH_SLOTS];
    uint64_t baseCheck[BATCH_GROUPS];   /* each group's baseline check */
    int slots;
    size_t staged;
    int refused;            /* the run whose launch was refused, or -1 */
    CUresult refusedWith;
    int *stage;             /* its staged inputs (uploadAlloc) */
    int *hIn;               /* its last group's input, a group too large
                               for the stage among them */
    int hInPinned;
} Batch;

/* Everything here is under g_flightLock: the watchdog thread reads it. */
static struct {
    const Ctx *c;
    Buffers *b;
    const Plan *p;
    const Batch *t;
    int arrived, queued;
    double last;
    int ownStall;           /* a launch of this batch that has arrived took
                               over half its own limit */
    double holdUntil;       /* the lock's hold ends by then (0: none) */
    double holdLimit;
    int holdShared;         /* the hold is shared with other drivers */
} g_flight;
static pthread_mutex_t g_flightLock = PTHREAD_MUTEX_INITIALIZER;
static hx_gpu_lock g_lock;
static int g_alone;         /* --exclusive: every hold alone */
static int g_turns;         /* HX_TURNS=1: the plan's batches take turns;
                               2: memcheck's run's batches too */
static int *g_devStage;     /* the stage on the device (NULL: none) */

void lockOpen(const char *path, int alone)
{
    /* An experiment, off unless HX_TURNS=1 or 2 is in the environment (the
     * grading tool passes its own environment on): each batch holds the
     * GPU alone among batches (HX_LOCK_TURN), beside other drivers'
     * contexts, allocations and teardowns, so that a batch's host waits
     * are not every other context's turns (grader/MAINTAINERS.md,
     * "Speed"). */
    const char *turns = getenv("HX_TURNS");
    g_turns = turns && (!strcmp(turns, "1") || !strcmp(turns, "2"))
                  ? turns[0] - '0' : 0;
    g_alone = alone;
    if (hx_gpu_lock_open(&g_lock, path)) {
        fprintf(stderr, "%s: cannot open the GPU lock %s: %s\n", g_prog,
                path, strerror(errno));
        g_ev.terminal = 1;
        exit(HX_EXIT_USAGE);
    }
}

/* When the lock was taken, and how (HX_PROFILE's holds). */
static double g_heldSince;
static int g_heldShared;

static void holdBegin(double holdLimit, int shared)
{
    g_heldSince = hx_now_seconds();
    g_heldShared = shared;
    pthread_mutex_lock(&g_flightLock);
    g_flight.holdLimit = holdLimit;
    g_flight.holdShared = shared;
    g_flight.holdUntil = hx_now_seconds() + holdLimit;
    pthread_mutex_unlock(&g_flightLock);
}

/* A lock that cannot be taken is the grading tool's problem: exit 2. */
static void lockFailed(void)
{
    const int err = errno;
    eventLock("gave_up");
    fprintf(stderr, "%s: cannot take the GPU lock (--lock): %s\n", g_prog,
            strerror(err));
    g_ev.terminal = 1;
    exit(HX_EXIT_USAGE);
}

/* Tries the lock without waiting: 1 taken, 0 busy (then the wait event
 * is written: the caller waits next). */
static int lockAtOnce(hx_lock_kind kind)
{
    const int rc = hx_gpu_lock_try(&g_lock, kind);
    if (rc < 0)
        lockFailed();
    if (rc == 0)
        return 1;
    eventLock("wait");
    return 0;
}

/* The hold is bounded by holdLimit seconds (the watchdog), from the
 * moment the lock is held: a wait for it (between the lock events) is
 * charged to whoever holds it. */
void lockGpu(hx_lock_kind kind, double holdLimit)
{
    const double t0 = hx_now_seconds();
    if (g_alone)
        kind = HX_LOCK_EXCLUSIVE;
    if (!lockAtOnce(kind)) {
        if (hx_gpu_lock_take(&g_lock, kind))
            lockFailed();
        eventLock("held");
    }
    profAdd(PROF_LOCK, t0);
    /* A turn is shared too: other drivers' kernels outside their batches
     * (a rerun fetched, the timing's upload) may run beside it. */
    holdBegin(holdLimit, kind != HX_LOCK_EXCLUSIVE);
}

void unlockGpu(void)
{
    pthread_mutex_lock(&g_flightLock);
    g_flight.holdUntil = 0;
    pthread_mutex_unlock(&g_flightLock);
    hx_gpu_lock_release(&g_lock);
    if (g_heldSince > 0)
        profAdd(g_heldShared ? PROF_HELD_SHARED : PROF_HELD_ALONE,
                g_heldSince);
    g_heldSince = 0;
}

void lockClose(void) { hx_gpu_lock_close(&g_lock); }

/* The GPU alone, for a timing: asked for a second at a time, so that a
 * waiting timing does not hold every other process's checks back for a
 * long run elsewhere (hx_gpu_lock_take_within); each ask twice the last
 * (up to 30 s), so that many checks do not starve it through the gaps. */
void lockTiming(double holdLimit)
{
    const double t0 = hx_now_seconds();
    if (!lockAtOnce(HX_LOCK_EXCLUSIVE)) {
        double ask = 1.0;
        for (;;) {
            const int rc = hx_gpu_lock_take_within(&g_lock,
                                                   HX_LOCK_EXCLUSIVE, ask);
            ask = ask < 15.0 ? 2 * ask : 30.0;
            if (rc == 0)
                break;
            if (rc < 0)
                lockFailed();
            const struct timespec nap = {0, 20000000};   /* 20 ms */
            nanosleep(&nap, NULL);
        }
        eventLock("held");
    }
    profAdd(PROF_LOCK, t0);
    holdBegin(holdLimit, 0);
}

double launchLimit(const Ctx *c, size_t n)
{
    const double scale = (double)n / (double)((size_t)1 << 24);
    return c->runTimeout * (scale > 1.0 ? scale : 1.0);
}

/* The outcome of a run whose every launch was clean: the report
 * hx_check_split3 gives the reference. */
static void passOutcome(const Run *r, const Group *g, Outcome *o)
{
    const hx_guard_report clean = {};
    memset(o, 0, sizeof *o);
    judgePass(r->n, g->a, g->ab, &clean, &o->v.r);
    o->v.status = judgeStatus(o->v.r.kind);
    o->v.group[0] = '\0';
    o->status = o->v.status;
}

/* The verdict of one check slot that arrived, in this order: 0 clean; 1
 * a guard beside an input changed, 2 an input or a total changed since
 * the baseline (*buffer names it); 4 a guard beside the output changed
 * (*buffer is "out"); 3 the output differs. shift: what the timing's mask
 * adds to each digest (NULL: nothing). */
int slotVerdict(const CheckSlot *s, const Group *g, uint64_t check,
                const Baseline *base, const uint64_t shift[NBUF],
                const char **buffer)
{
    *buffer = NULL;
    for (int b = BUF_IN; b < NBUF; ++b)
        if (s->guard[b].before || s->guard[b].after) {
            *buffer = g_bufName[b];
            return 1;
        }
    for (int b = BUF_IN; b < NBUF; ++b) {
        /* The baseline's digest, unpadded, shifted, padded as this one. */
        const uint64_t want = digestAdd(
            digestAdd(unpadded(base, g, b), shift ? shift[b] : 0),
            digestPad(g->key, check, b));
        if (s->digest[b] != want) {
            *buffer = g_bufName[b];
            return 2;
        }
    }
    /* The output's guards before its digest: a write beside the output
     * is named as such even when the output is wrong too. */
    if (s->guard[BUF_OUT].before || s->guard[BUF_OUT].after) {
        *buffer = g_bufName[BUF_OUT];
        return 4;
    }
    const uint64_t want = digestAdd(
        digestAdd(g->sum[SUM_REF], shift ? shift[BUF_OUT] : 0),
        digestPad(g->key, check, BUF_OUT));
    return s->digest[BUF_OUT] != want ? 3 : 0;
}

static int slotClean(const CheckSlot *s, const Group *g, uint64_t check,
                     const Baseline *base)
{
    const char *buffer;
    return s->done && base->slot->done &&
           slotVerdict(s, g, check, base, NULL, &buffer) == 0;
}

/* The plan run the first launch slot of the batch in flight that has not
 * arrived belongs to: the run under way; -1 when every slot arrived. */
static int flightUnderWay(void)
{
    const Batch *t = g_flight.t;
    const volatile CheckSlot *slot = g_flight.b->pinned->scan;
    for (int s = 0; s < t->slots; ++s)
        if (!slot[s].done)
            return t->slotRun[s];
    return -1;
}


/* Reports the runs of the batch in flight before run stop, in order,
 * while every launch of each arrived clean and its group's ranks were
 * right: a fault or a stop later in the batch leaves them reported as
 * they would have been one run at a time. */
static void flightReportArrived(int stop)
{
    const Batch *t = g_flight.t;
    const Plan *p = g_flight.p;
    const volatile CheckSlot *slot = g_flight.b->pinned->scan;
    Tally tally;
    memset(&tally, 0, sizeof tally);
    for (int s = 0; s < t->slots;) {
        const int k = t->slotRun[s], gi = t->slotGroup[s];
        const Run *r = &p->run[k];
        if (k == stop || s + r->launches > t->slots)
            return;
        const BatchGroup *bg = &t->group[gi];
        const CheckSlot baseSlot =
            *(const CheckSlot *)&slot[BATCH_SLOTS + gi];
        const Baseline base = {&baseSlot, t->baseCheck[gi]};
        for (int l = 0; l < r->launches; ++l) {
            const CheckSlot got = *(const CheckSlot *)&slot[s + l];
            if (!slotClean(&got, &bg->g, t->slotCheck[s + l], &base))
                return;
        }
        if (ranksWrong(&g_flight.b->pinned->rank[gi], &bg->g))
            return;
        s += r->launches;
        Outcome o;
        passOutcome(r, &bg->g, &o);
        if (g_ev.f)
            eventResult(k, r, &o);
        else
            tallyRun(g_flight.c, r, &o, &tally);
    }
}

/* A CUDA error while the batch in flight ran: when it is the context's
 * (a fault: every later call returns it), it is the run under way's, so
 * report the runs before it and the fault as that run's; returns 1. Any
 * other error: 0 (the caller reports it as the driver's). exiting: the
 * process exits whatever this returns, so the batch stops being in
 * flight here. */
static int flightFault(int exiting)
{
    pthread_mutex_lock(&g_flightLock);
    const cudaError_t e = g_flight.t ? cudaStreamQuery(0) : cudaSuccess;
    const int k = e == cudaSuccess || e == cudaErrorNotReady
                      ? -1 : flightUnderWay();
    if (k < 0) {
        if (exiting)
            g_flight.t = NULL;
        pthread_mutex_unlock(&g_flightLock);
        return 0;
    }
    flightReportArrived(k);
    g_flight.t = NULL;
    g_ev.run = k;
    g_run = &g_flight.p->run[k];
    char where[160];
    planDescribe(where, sizeof where, g_run);
    studentFaultReport("scatterThreeWay", cudaGetErrorName(e),
                       cudaGetErrorString(e), where);
    pthread_mutex_unlock(&g_flightLock);
    return 1;
}

/* With g_flightLock held: stops the process (timedOut, exit 6) when the
 * run under way in the batch has had no slot arrive for its launch limit,
 * or when the lock's hold is past its limit. */
static void flightWatch(void)
{
    const double now = hx_now_seconds();
    const Batch *t = g_flight.t;
    if (g_flight.holdUntil > 0 && now > g_flight.holdUntil) {
        const double limit = g_flight.holdLimit;
        int shared = g_flight.holdShared;
        if (t) {
            const int k = flightUnderWay();
            if (k >= 0) {
                flightReportArrived(k);
                g_ev.run = k;
                /* A launch that has itself been under way for half its
                 * own limit is the kernel's stall, not slowness shared
                 * with other drivers' kernels: no second try alone. */
                if (g_flight.arrived < g_flight.queued &&
                    now - g_flight.last >
                        0.5 * launchLimit(g_flight.c, g_flight.p->run[k].n))
                    shared = 0;
            }
            /* So is a launch of the batch that already took that long
             * and ended (a kernel that stays just under its limit on
             * every launch). */
            if (g_flight.ownStall)
                shared = 0;
        }
        timedOut("the GPU lock was held past one launch's limit", limit,
                 shared);
    }
    if (!t)
        return;
    const volatile CheckSlot *slot = g_flight.b->pinned->scan;
    while (g_flight.arrived < t->slots && slot[g_flight.arrived].done) {
        const Run *done = &g_flight.p->run[t->slotRun[g_flight.arrived]];
        if (g_flight.arrived < g_flight.queued &&
            now - g_flight.last > 0.5 * launchLimit(g_flight.c, done->n))
            g_flight.ownStall = 1;
        ++g_flight.arrived;
        g_flight.last = now;
    }
    /* Every launch queued so far has ended: the GPU waits on the host. */
    if (g_flight.arrived >= g_flight.queued) {
        g_flight.last = now;
        return;
    }
    const int k = t->slotRun[g_flight.arrived];
    const Run *r = &g_flight.p->run[k];
    const double limit = launchLimit(g_flight.c, r->n);
    if (now - g_flight.last <= limit)
        return;
    flightReportArrived(k);
    g_ev.run = k;
    char where[160];
    planDescribe(where, sizeof where, r);
    timedOut(where, limit, 0);
}

static void *watchdog(void *unused)
{
    (void)unused;
    for (;;) {
        const struct timespec nap = {0, 20000000};   /* 20 ms */
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&g_flightLock);
        flightWatch();
        pthread_mutex_unlock(&g_flightLock);
    }
    return NULL;
}

/* A thread that takes no signal (they stay the main thread's): 1 when it
 * started. */
static int helperStart(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    const int started = pthread_create(thread, NULL, fn, arg) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return started;
}

/* Starts the watchdog thread once; without it the main thread's polls
 * still watch the limits, only not while it is blocked in a CUDA call. */
void watchdogStart(void)
{
    static int started;
    if (started)
        return;
    started = 1;
    pthread_t thread;
    if (helperStart(&thread, watchdog, NULL))
        pthread_detach(thread);
}

/* ------------------------------------------------------------------ */
/* The plan in batches: submitted at once, waited for once.            */

/* 1 when run r is to be launched: its test is chosen and, in grade mode,
 * has not failed yet. */
static int runWanted(const Ctx *c, const Tally *t, const Run *r)
{
    return c->tests >> r->test & 1 &&
           (!c->stopTests || t->test[r->test].failedAt < 0);
}

/* The runs of the group that starts at plan run k end at the returned
 * index; *launches gets their launches (the runs of tests not chosen, or
 * stopped, count none). */
static int groupEnd(const Ctx *c, const Plan *p, const Tally *t, int k,
                    int *launches)
{
    int end = k;
    *launches = 0;
    const Run *r0 = &p->run[k];
    while (end < p->count && p->run[end].n == r0->n &&
           p->run[end].mix == r0->mix && p->run[end].test == r0->test) {
        const Run *r = &p->run[end++];
        if (runWanted(c, t, r))
            *launches += r->launches;
    }
    return end;
}

/* Fills batch t with the groups from plan run k on, made on the host
 * (groupHost) and their inputs staged, as many as fit (a group too large
 * for the stage goes alone, last made, so that t->hIn holds it). Groups
 * with nothing to run are passed over. Returns the plan run after the
 * last group taken. */
static int batchFill(const Ctx *c, const Buffers *b, const Plan *p,
                     const Tally *tally, int k, uint64_t seed, Batch *t,
                     Group *g)
{
    int *const stage = t->stage, *const hIn = t->hIn;
    const int hInPinned = t->hInPinned;
    memset(t, 0, sizeof *t);
    t->refused = -1;
    t->stage = stage;
    t->hIn = hIn;
    t->hInPinned = hInPinned;
    while (k < p->count) {
        int launches;
        const int end = groupEnd(c, p, tally, k, &launches);
        if (!launches) {
            k = end;
            continue;
        }
        const size_t n = p->run[k].n;
        const int fits = n <= STAGE_INTS;
        if (t->groups && (!fits || t->staged + n > STAGE_INTS ||
                          t->slots + launches > BATCH_SLOTS ||
                          t->groups == BATCH_GROUPS))
            break;
        const double t0 = hx_now_seconds();
        groupHostInto(b, hIn, g, n, p->run[k].mix, p->run[k].test, seed);
        BatchGroup *bg = &t->group[t->groups];
        bg->g = *g;
        bg->first = k;
        bg->end = end;
        bg->staged = fits;
        if (fits) {
            bg->stageAt = t->staged;
            memcpy(stage + t->staged, hIn, n * sizeof(int));
            t->staged += n;
        }
        for (int r = k; r < end; ++r) {
            const Run *run = &p->run[r];
            if (!runWanted(c, tally, run))
                continue;
            for (int l = 0; l < run->launches; ++l) {
                t->slotGroup[t->slots] = t->groups;
                t->slotRun[t->slots++] = r;
            }
        }
        ++t->groups;
        profAdd(PROF_INPUTS, t0);
        k = end;
        if (!fits)
            break;
    }
    return k;
}

static void batchWait(Buffers *b)
{
    HX_CHECK(cudaEventRecord(b->done, 0));
    int polls = 0;
    for (;;) {
        const cudaError_t e = cudaEventQuery(b->done);
        if (e == cudaSuccess)
            break;
        if (e != cudaErrorNotReady) {
            if (flightFault(1))
                exit(HX_EXIT_CUDA);
            hx_cuda_check(e, "cudaEventQuery (the batch's end)", __FILE__,
                          __LINE__);
        }
        pthread_mutex_lock(&g_flightLock);
        flightWatch();
        pthread_mutex_unlock(&g_flightLock);
        pollPause(&polls);
    }
    (void)cudaGetLastError();
}

/* The largest launch limit of a batch's runs: its hold's limit. */
static double batchLimit(const Ctx *c, const Plan *p, const Batch *t)
{
    size_t n = 0;
    for (int s = 0; s < t->slots; ++s)
        if (p->run[t->slotRun[s]].n > n)
            n = p->run[t->slotRun[s]].n;
    return launchLimit(c, n);
}

/* Submits batch t under the shared lock and waits for it. */
static void batchRun(const Ctx *c, Buffers *b, const Plan *p, Batch *t)
{
    const double t0 = hx_now_seconds();
    /* HX_TURNS=1: turns for the plan's batches, not for memcheck's (under
     * the tool a batch is many times slower, and would hold every other
     * turn back); HX_TURNS=2: memcheck's too, so none runs beside a turn. */
    const int turn = g_turns == 2 ||
                     (g_turns == 1 && strcmp(p->name, "sanitize") != 0);
    lockGpu(turn ? HX_LOCK_TURN : HX_LOCK_SHARED, batchLimit(c, p, t));
    for (int s = 0; s < t->slots; ++s)
        b->pinned->scan[s].done = 0;
    for (int gi = 0; gi < t->groups; ++gi)
        b->pinned->scan[BATCH_SLOTS + gi].done = 0;
    t->refused = -1;
    pthread_mutex_lock(&g_flightLock);
    g_flight.c = c;
    g_flight.b = b;
    g_flight.p = p;
    g_flight.t = t;
    g_flight.arrived = 0;
    g_flight.queued = 0;
    g_flight.ownStall = 0;
    g_flight.last = hx_now_seconds();
    pthread_mutex_unlock(&g_flightLock);
    g_flightFault = flightFault;
    int slot = 0;
    gpuMarksOn(1);
    gpuMark(GPU_START);
    /* The staged inputs in one upload, each group's then copied on the
     * device: one wait for the copy engine a batch, not one a group. */
    if (g_devStage && t->staged) {
        const double u0 = hx_now_seconds();
        HX_CHECK(cudaMemcpyAsync(g_devStage, t->stage,
                                 t->staged * sizeof(int),
                                 cudaMemcpyHostToDevice, 0));
        profAdd(PROF_UPLOADS, u0);
    }
    for (int gi = 0; gi < t->groups && t->refused < 0; ++gi) {
        const BatchGroup *bg = &t->group[gi];
        const int *stage = g_devStage ? g_devStage : t->stage;
        groupEnqueue(b, &bg->g, bg->staged ? stage + bg->stageAt : t->hIn,
                     gi, bg->staged && g_devStage);
        /* The inputs' baseline, before the group's first launch. */
        outFor(b, bg->g.n);
        t->baseCheck[gi] = b->checkCount;
        /* A later group's baseline key was put by the last check of the
         * group before (KeyStage, driver.h). */
        const KeyStage baseKey = {0, 0, gi > 0};
        gpuMarksBaseline(1);
        enqueueCheck(b, &bg->g, BATCH_SLOTS + gi, 1, &baseKey);
        gpuMarksBaseline(0);
        while (slot < t->slots && t->slotGroup[slot] == gi &&
               t->refused < 0) {
            const int k = t->slotRun[slot];
            const Run *r = &p->run[k];
            if (g_ev.f && (slot == 0 || t->slotRun[slot - 1] != k)) {
                pthread_mutex_lock(&g_flightLock);
                eventStart(k, r);
                pthread_mutex_unlock(&g_flightLock);
            }
            outFor(b, r->n);
            kPoison(b->dev, &b->out);
            gpuMark(GPU_POISON);
            rateBegin(b, r);
            const CUresult rc = launchTry(c->module, b, r->n, r->blocks,
                                          r->block);
            if (rc != CUDA_SUCCESS) {
                if (flightFault(0))
                    exit(HX_EXIT_CUDA);
                pthread_mutex_lock(&g_flightLock);
                t->refused = k;
                t->refusedWith = rc;
                t->groups = gi + 1;
                t->slots = slot;
                pthread_mutex_unlock(&g_flightLock);
                break;
            }
            pthread_mutex_lock(&g_flightLock);
            g_flight.queued = slot + 1;
            pthread_mutex_unlock(&g_flightLock);
            rateEnd(b, r);
            gpuMark(GPU_STUDENT);
            t->slotCheck[slot] = b->checkCount;
            KeyStage key = {0, 0, 0};
            if (gi + 1 < t->groups &&
                (slot + 1 == t->slots || t->slotGroup[slot + 1] != gi)) {
                key.next = 1;
                key.nextKey = t->group[gi + 1].g.key;
            }
            enqueueCheck(b, &bg->g, slot, 0, &key);
            ++slot;
        }
    }
    batchWait(b);
    rateSum();
    gpuMarksSum();
    gpuMarksOn(0);
    pthread_mutex_lock(&g_flightLock);
    g_flight.t = NULL;
    pthread_mutex_unlock(&g_flightLock);
    unlockGpu();
    g_ev.run = -1;
    g_run = NULL;
    for (int gi = 0; gi < t->groups; ++gi)
        ranksChecked(&b->pinned->rank[gi], &t->group[gi].g);
    profAdd(PROF_RUNS, t0);
}

/* The outcome of plan run k from its slots (from slot s on). */
static void batchOutcome(const Ctx *c, Buffers *b, const Plan *p,
                         const Batch *t, const BatchGroup *bg, int k, int s,
                         uint64_t seed, Group *g, Outcome *o)
{
    const Run *r = &p->run[k];
    const CheckSlot *slot = b->pinned->scan + s;
    const int gi = (int)(bg - t->group);
    const Baseline base = {&b->pinned->scan[BATCH_SLOTS + gi],
                           t->baseCheck[gi]};
    memset(o, 0, sizeof *o);
    const char *buffer = NULL;
    const int v = slotVerdict(&slot[0], &bg->g, t->slotCheck[s], &base, NULL,
                              &buffer);
    if (v == 0) {
        passOutcome(r, &bg->g, o);
        for (int l = 1; l < r->launches; ++l) {
            const int w = slotVerdict(&slot[l], &bg->g, t->slotCheck[s + l],
                                      &base, NULL, &buffer);
            if (w == 1 || w == 2) {
                o->status = w == 1 ? "out_of_bounds" : "input_written";
                o->buffer = buffer;
                return;
            }
            o->disagree |= w != 0;
        }
    } else if (v == 1 || v == 2) {
        passOutcome(r, &bg->g, o);
        o->status = v == 1 ? "out_of_bounds" : "input_written";
        o->buffer = buffer;
        return;
    } else {
        const double t0 = hx_now_seconds();
        char where[160];
        planDescribe(where, sizeof where, r);
        groupFetched(b, g, r->n, r->mix, r->test, seed);
        g_ev.run = k;
        g_run = r;
        runFetched(c, b, g, r, where, o);
        g_ev.run = -1;
        g_run = NULL;
        if (!strcmp(o->v.status, "pass"))
            o->disagree = 1;
        profAdd(PROF_SLOW, t0);
    }
    o->status = o->disagree ? "nondeterministic" : o->v.status;
}

/* The next batch, made on the host by a second thread while the GPU runs
 * the one before (HX_PIPELINE=0: one after the other, on the main
 * thread). Each of the two batches has its own stage and input buffer,
 * so the one being made never touches what the uploads in flight read;
 * it decides its runs from a copy of the tally taken when it began, and
 * is made again, on the main thread, when a test stopped meanwhile. */
typedef struct {
    const Ctx *c;
    const Buffers *b;
    const Plan *p;
    Tally tally;
    int k, next;
    uint64_t seed;
    Batch *t;
    Group g;
} Prefill;

static void *prefillRun(void *arg)
{
    Prefill *f = (Prefill *)arg;
    f->next = batchFill(f->c, f->b, f->p, &f->tally, f->k, f->seed, f->t,
                        &f->g);
    return NULL;
}

static int pipelined(void)
{
    return !getenv("HX_PIPELINE") || strcmp(getenv("HX_PIPELINE"), "0");
}

/* The two batches' buffers: the first input buffer is b->hIn's. */
static void batchesAlloc(Buffers *b, Batch two[2])
{
    int pinned;
    for (int i = 0; i < 2; ++i)
        two[i].stage = (int *)uploadAlloc(STAGE_INTS, sizeof(int),
                                          "the stage", &pinned);
    if (cudaMalloc((void **)&g_devStage, STAGE_INTS * sizeof(int)) !=
        cudaSuccess) {
        (void)cudaGetLastError();   /* no room: one upload a group */
        g_devStage = NULL;
    }
    two[0].hIn = two[1].hIn = b->hIn;
    two[0].hInPinned = two[1].hInPinned = b->hInPinned;
    if (pipelined())
        two[1].hIn = (int *)uploadAlloc(b->cap ? b->cap : 1, sizeof(int),
                                        "the second input",
                                        &two[1].hInPinned);
}

/* Runs the plan in batches, counting into *t. In grade mode each test
 * stops at its own first failing run (its later runs are reported not
 * run) and the others go on; student mode runs every run, for the
 * report. g is left describing the last group made on the host, whose
 * input b->hIn holds. */
void runPlan(const Ctx *c, Buffers *b, const Plan *p, uint64_t seed,
             Group *g, Tally *t)
{
    static Batch two[2];
    static Prefill pre;
    if (!two[0].stage)
        batchesAlloc(b, two);
    const int pipe = pipelined();
    int cur = 0;
    memset(g, 0, sizeof *g);
    for (int k = 0; k < TEST_COUNT; ++k)
        t->test[k].failedAt = -1;
    int next = p->count ? batchFill(c, b, p, t, 0, seed, &two[0], g) : 0;
    for (int k = 0; k < p->count;) {
        Batch &batch = two[cur];
        pthread_t helper;
        int helping = 0;
        if (pipe && next < p->count) {
            const Prefill f = {c, b, p, *t, next, 0, seed, &two[!cur], {}};
            pre = f;
            helping = helperStart(&helper, prefillRun, &pre);
        }
        int stopped = 0;    /* a test stopped in this batch */
        if (batch.slots)
            batchRun(c, b, p, &batch);
        /* The batch's last group is the one b->hIn holds. */
        b->hIn = batch.hIn;
        b->hInPinned = batch.hInPinned;
        if (batch.groups)
            *g = batch.group[batch.groups - 1].g;
        /* Every run from k to next: its outcome, or skipped. */
        int slot = 0;
        for (int r = k; r < next; ++r) {
            const Run *run = &p->run[r];
            if (!(c->tests >> run->test & 1))
                continue;
            TestTally *tt = &t->test[run->test];
            if (r == batch.refused) {
                char where[160];
                planDescribe(where, sizeof where, run);
                g_ev.run = r;
                g_run = run;
                launchRefused(c->module, batch.refusedWith, run->block,
                              where);
            }
            /* Not launched (its test had stopped already), or its test
             * stopped earlier in this batch: not run. */
            const int first = slot;
            const int launched = slot < batch.slots &&
                                 batch.slotRun[slot] == r;
            if (launched)
                slot += run->launches;
            if (!launched || (c->stopTests && tt->failedAt >= 0)) {
                ++tt->notRun;
                if (g_ev.f)
                    eventSkip(r, run);
                continue;
            }
            Outcome o;
            batchOutcome(c, b, p, &batch, &batch.group[batch.slotGroup[first]],
                         r, first, seed, g, &o);
            ++t->runs;
            ++tt->runs;
            if (!strcmp(o.status, "pass")) {
                ++t->passed;
                ++tt->passed;
            } else if (tt->failedAt < 0) {
                stopped = c->stopTests;
                tt->failedAt = r;
                tt->status = o.status;
                if (!t->firstFail)
                    t->firstFail = o.status;
            }
            if (g_ev.f)
                eventResult(r, run, &o);
            tallyRun(c, run, &o, t);
        }
        /* The next batch: the helper's, unless a test stopped since it
         * began (its runs were chosen from the tally before). */
        const int after = next;
        int fill = after < p->count;
        if (helping) {
            const double w0 = hx_now_seconds();
            pthread_join(helper, NULL);
            profAdd(PROF_INPUTS_WAIT, w0);
            next = pre.next;
            fill = stopped;
        }
        if (fill)
            next = batchFill(c, b, p, t, after, seed, &two[!cur], &pre.g);
        cur = !cur;
        k = after;
    }
    for (int k = 0; k < TEST_COUNT; ++k)
        if (c->tests >> k & 1 && p->testRuns[k] && g_ev.f)
            eventTest(k, &t->test[k]);
    fflush(stdout);
}
