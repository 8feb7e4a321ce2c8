/* driver.h: what the parts of the driver share (driver.cu's opening
 * comment says what the driver does; each part opens with its own):
 *   kernels.cu  the driver's kernels: predicates, copy, the keyed digest,
 *               the guard scan, the ranks' check
 *   buffers.cu  the buffers and their guards, one group (input, key,
 *               digest, ranks), one launch waited for, a run fetched
 *   runs.cu     the GPU lock and its watchdog, a launch's verdict, the
 *               plan in batches, each test to its first failure
 *   events.cu   the result file (grade mode) and the console's report
 *   timing.cu   the student's timing table and grade mode's timing
 *   driver.cu   the command line and main's steps
 * CUDA C++ (nvcc; all but kernels.cu host code alone, which the Makefile
 * compiles as C++); the plan (plan.c), the module (module.c) and the
 * verdict (judge.c) are C. */
#ifndef DRIVER_H
#define DRIVER_H

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "hx_lock.h"
#include "../day31-scan/tile_scan.h"
#include "judge.h"
#include "module.h"
#include "plan.h"

#define BLOCK PLAN_BLOCK        /* threads per block of the driver's grids */
#define GUARD_WORDS ((size_t)1 << 20)   /* 4 MiB of guard each side of the
                                           output */
#define IN_GUARD_WORDS ((size_t)1 << 18) /* 1 MiB each side of an input */
#define TOTALS_GUARD_WORDS ((size_t)1024)
#define EXIT_TIMEOUT 6                  /* a launch ran past its limit */
#define RUN_TIMEOUT_S 10.0              /* per launch, per 2^24 elements */
#define GRADE_ROUNDS 11                 /* timed rounds, unless --runs */
#define GRADE_WARMUP 2
#define MIN_ROUNDS 9
#define GRADE_PRINTF ((size_t)64 << 10) /* bytes of device printf a launch */
#define BATCH_SLOTS 1024                /* launches of a batch */
#define BATCH_GROUPS 256                /* groups of a batch */
#define CHUNK ((size_t)1 << 22)

extern const char *g_prog;

/* ------------------------------------------------------------------ */
/* kernels.cu                                                          */

/* The buffers the student's kernel receives, in the order the digest and
 * the guard scan take them. */
enum { BUF_OUT, BUF_IN, BUF_NEG, BUF_ZERO, BUF_TOTALS, NBUF };
extern const char *const g_bufName[NBUF];

/* What the host sums from its own reference split (hx_split3) under a
 * group's key, never on the device: the reference's digest, and the
 * weights over the input's positive and negative slots and over the
 * reference's (the timing's masks, by linearity). */
enum { SUM_REF, SUM_IN_POS, SUM_IN_NEG, SUM_REF_POS, SUM_REF_NEG, NREF };

/* The keyed digest (kernels.cu has why it can be neither read nor
 * forged): D = sum of w(K, i) * (uint32)v[i] mod 2^61 - 1, with
 * w(K, i) = mix64(K ^ i * golden) mod 2^61 - 1, and what the device
 * reports is D + pad(K, check, buffer) mod 2^61 - 1. */
#define DIGEST_P ((1ull << 61) - 1)
uint64_t digestPad(uint64_t key, uint64_t check, int buffer);
uint64_t digestMulMod(uint64_t a, uint64_t b);
uint64_t digestAdd(uint64_t a, uint64_t b);
/* The unpadded sums (SUM_REF..) of the input in[0..n) and its
 * reference split, under key, made from the input alone (the reference
 * is never written), and the split's boundaries *a (negatives) and *ab
 * (negatives and zeros). masks 0: SUM_REF alone, the rest 0, as every
 * group but the timing's needs. Up to 8 threads. */
void digestHostGroup(const int *in, size_t n, uint64_t key, int masks,
                     size_t *a, size_t *ab, uint64_t sum[NREF]);
/* w(K, i), the weight of slot i under key K (tests). */
uint64_t digestWeight(uint64_t key, size_t i);

/* What the guard scan found about one buffer. Indices are into each
 * guard region. */
typedef struct {
    unsigned long long before, after;   /* changed words on each side */
    unsigned long long nearBefore;      /* 1 + the highest changed index
                                           before the buffer (0: none) */
    unsigned long long nearAfter;       /* the lowest changed index after
                                           it (ULLONG_MAX: none) */
} GuardScan;

/* One launch's checks, made on the device and written to page-locked
 * host memory by digestEnd (it holds nothing from which a reference
 * follows: counts, and digests padded under a key the kernel never
 * sees). */
typedef struct {
    GuardScan guard[NBUF];
    unsigned long long digest[NBUF];   /* padded digests */
    unsigned long long done;           /* 1: arrived (the host's copy is 0
                                          until it does) */
} CheckSlot;

/* The ranks' check (checkRanks). */
typedef struct {
    unsigned long long bad, first;
    int totals[2];             /* the scans' totals, copied beside them */
} RankCheck;

/* The device spans a check reads: each buffer's data and its guards. */
typedef struct {
    const int *data[NBUF];
    size_t n[NBUF];
    const int *before[NBUF];
    size_t beforeWords[NBUF];
    const int *after[NBUF];
    size_t afterWords[NBUF];
} Spans;

/* Launchers (default stream, checked). */
void kMarkNegative(const hx_device *dev, const int *in, int *flags, size_t n);
void kMarkZero(const hx_device *dev, const int *in, int *flags, size_t n);
void kScatterTwoWay(const hx_device *dev, const int *in, const int *rank,
                    int *out, size_t n, const int *totalTrue);
void kCopy(const hx_device *dev, const int *in, int *out, size_t n);
void kMaskInput(const hx_device *dev, const int *base, int *in, size_t n,
                int mask);
/* The ranks' check into *r (device), the totals beside it, and the
 * whole written to *host (page-locked) by a kernel. */
void kCheckRanks(const hx_device *dev, const int *in, const int *negRank,
                 const int *zeroRank, size_t n, const int *totals,
                 RankCheck *r, RankCheck *host);

/* Spans of device words, each to be filled with one word: the guards and
 * the poison, by one kernel (kFill) rather than a cudaMemset each
 * (kernels.cu's opening comment says why). */
#define FILL_SPANS 8
typedef struct {
    int *p[FILL_SPANS];
    size_t n[FILL_SPANS];
    int value[FILL_SPANS];
    int count;
} FillSpans;

static inline void fillAdd(FillSpans *f, int *p, size_t n, int value)
{
    f->p[f->count] = p;
    f->n[f->count] = n;
    f->value[f->count] = value;
    ++f->count;
}
void kFill(const hx_device *dev, const FillSpans *f);
/* Every guard word of g to HX_GUARD_WORD and data[0..n) to HX_POISON:
 * hx_guarded_poison, by one kernel instead of three memsets (the labs
 * keep hx_guarded_poison: their checks are few and never side by side
 * with other processes). */
void kPoison(const hx_device *dev, const hx_guarded *g);
/* A check's key routes (kCheckLaunch). The next group's baseline key can
 * ride with a launch's check: the same host function, once the student's
 * kernel has ended, puts both keys, and keyIn moves both to the device
 * (the second to acc[2 * NBUF + 2]); the baseline, with nothing but the
 * driver's own kernels queued in between, then digests under that word
 * (staged), with no host function of its own, and wipes it. */
typedef struct {
    int next;            /* put next too: the next group's baseline key */
    uint64_t nextKey;
    int staged;          /* this check's key is already on the device */
} KeyStage;

/* Enqueues one launch's checks into *slot (device), then written to
 * *hostSlot (page-locked, done last): the guards of every span, then the
 * key (*keyWord, pageable) put in *pinnedKey by a host function that runs
 * only once everything before it in the stream has ended, moved to the
 * device word acc[2 * NBUF] and wiped from the page-locked word, the
 * digests, padded for check number check, and the device word wiped
 * (kernels.cu's opening comment says why). acc: the 2 * NBUF sums, the
 * key word, a spare word, the staged key word; all zero on entry. stage
 * (or NULL): the next group's baseline key to put as well, or this
 * check's key already staged (KeyStage). */
void kCheckLaunch(const hx_device *dev, const Spans *s, CheckSlot *slot,
                  CheckSlot *hostSlot, volatile uint64_t *pinnedKey,
                  const uint64_t *keyWord, uint64_t check,
                  unsigned long long *acc, const KeyStage *stage);

/* ------------------------------------------------------------------ */
/* runs.cu                                                             */

/* One (size, mix) of the plan: its input's boundaries, its key, and what
 * the host expects of the output's digest under it. */
typedef struct {
    size_t n;
    plan_mix mix;
    plan_test test;
    size_t a, ab;          /* the boundaries: A and A + B */
    int valid;             /* the host's buffers hold it */
    uint64_t key;          /* drawn for the group, never on the device
                              while the student's kernel can run */
    uint64_t sum[NREF];    /* the host's sums under key (SUM_REF..) */
    int masked;            /* sum holds the timing's masks' sums too (the
                              input of Buffers.maskedN thirds) */
    int refMade;           /* groupFetched's: Buffers.hRef holds its
                              reference split; no key, no sums */
} Group;

/* The digests of the inputs, as the driver left them before the group's
 * first launch of the student's kernel, and the reference's: a check made
 * then (a baseline), which later checks are compared with. */
typedef struct {
    const CheckSlot *slot;  /* arrived on the host */
    uint64_t check;         /* its number (its pads) */
} Baseline;

#define CHECK_SLOTS (BATCH_SLOTS + BATCH_GROUPS)   /* launches, baselines */

/* The output's allocations: the plan's largest size, then a quarter of
 * it, and so on while a class holds OUT_CLASS_MIN words or more, each
 * with GUARD_WORDS of guard either side. A run of n uses the smallest
 * that holds 2n (else the largest), so that everything after n in its
 * allocation, which every launch poisons and scans as guard, is at least
 * n long, and costs at most about 8n a launch instead of the whole
 * largest size's (grader/MAINTAINERS.md, "Speed"). */
#define OUT_CLASSES 16
#define OUT_CLASS_MIN ((size_t)4096)

typedef struct {
    CheckSlot scan[CHECK_SLOTS];
    CheckSlot spare;       /* guardsOf's, outside any batch */
    RankCheck rank[BATCH_GROUPS];
    uint64_t key;          /* the key, only while a check reads it */
    uint64_t nextKey;      /* the next group's baseline key, likewise */
} Pinned;

typedef struct {
    const hx_device *dev;
    size_t cap;
    hx_guarded in, negRank, zeroRank, totals;
    hx_guarded out;                 /* the output class in use (outFor) */
    hx_guarded outClass[OUT_CLASSES];
    int outClasses;
    int *pristine;                  /* device: the timing's unmasked input */
    CheckSlot *checks;              /* device: CHECK_SLOTS */
    RankCheck *rankCheck;           /* device: BATCH_GROUPS */
    unsigned long long *acc;        /* device: the digests' sums */
    Pinned *pinned;
    uint64_t checkCount;            /* checks made so far (the pads) */
    uint64_t keyWord[CHECK_SLOTS];  /* pageable: each slot's key */
    cudaEvent_t done;
    int *hIn, *hRef, *hGot;         /* host, cap ints each; hIn, inputs
                                       only, page-locked if it can be */
    int hInPinned;
    int *hChunk;
    Group uploaded;
    size_t maskedN;       /* the timing's size: groupHost sums its masks
                             for this size of thirds alone */
    const char *inputCache;   /* --input-cache: the inputs' shared folder,
                                 or NULL (planFillCached) */
    ScanPlan *scans;
    int nScans, capScans;
} Buffers;

typedef struct {
    const Module *module;
    const Module *ref;    /* the reference solution's (timing), or NULL */
    double runTimeout;    /* seconds per launch, per 2^24 elements */
    unsigned tests;       /* the tests to run (bit per test) */
    int stopTests;        /* grade mode: each test stops at its first
                             failure; student mode runs every run */
    int all;              /* --all: print every failing run */
} Ctx;

/* What one run found. */
typedef struct {
    judge_verdict v;       /* the check's verdict on the first launch */
    int disagree;          /* the second launch differed from the first */
    const char *status;    /* the grade-mode status */
    const char *buffer;    /* input_written or out_of_bounds on an input:
                              the buffer ("in", "negRank", ...); else
                              NULL */
} Outcome;

/* Per test: how far it got. */
typedef struct {
    int runs, passed, notRun;
    int failedAt;          /* its first failing run, or -1 */
    const char *status;    /* its first failure's status, or NULL */
    int reported;          /* its "test" event is written */
} TestTally;

typedef struct {
    int runs, passed;
    int fullShown;          /* the first failure's report is printed */
    int failShown;          /* failing runs printed */
    const char *firstFail;  /* the first failing run's status */
    int failCount[32];      /* failing runs by status (statusIndex) */
    const char *failName[32];
    int failKinds;
    TestTally test[TEST_COUNT];
} Tally;

void outFor(Buffers *b, size_t n);
size_t deviceBytes(size_t cap, int timing);
void buffersAlloc(Buffers *b, const hx_device *dev, size_t cap, int timing);
void buffersFree(Buffers *b);
ScanPlan *scanFor(Buffers *b, size_t n);
void scansFor(Buffers *b, const Plan *p);
uint64_t randomWord(void);
void *hostAlloc(size_t count, size_t size, const char *what);
void *uploadAlloc(size_t count, size_t size, const char *what, int *pinned);
void uploadFree(void *p, int pinned);

void lockOpen(const char *path, int alone);
void lockGpu(hx_lock_kind kind, double holdLimit);
void lockTiming(double holdLimit);
void unlockGpu(void);
void lockClose(void);
void watchdogStart(void);

double launchLimit(const Ctx *c, size_t n);
/* The timing's bound, for a hold of the lock alone that holds `launches`
 * launches of the student's kernel at n: TIMING_FLOOR_S, plus
 * TIMING_FACTOR times the longest the kernel took an element in its
 * checked launches of 2^22 elements or more (timed by events in the
 * batches) for each launch; never more than launchLimit(c, n), which it
 * is when no such launch was timed. A kernel that passed its checks and
 * then stalls in the timing, where it holds the GPU alone, stops every
 * other driver for this long at most, not for the whole launch limit. */
#define TIMING_FLOOR_S 2.0
#define TIMING_FACTOR 20.0
double timingLimit(const Ctx *c, size_t n, int launches);
/* The checks' launches timed for it (timing.cu): around each launch of a
 * batch, then summed once the batch has ended. */
void rateBegin(const Buffers *b, const Run *r);
void rateEnd(const Buffers *b, const Run *r);
void rateSum(void);
void groupHost(Buffers *b, Group *g, size_t n, plan_mix mix, plan_test t,
               uint64_t seed);
void groupHostInto(const Buffers *b, int *hIn, Group *g, size_t n,
                   plan_mix mix, plan_test t, uint64_t seed);
void groupFetched(Buffers *b, Group *g, size_t n, plan_mix mix, plan_test t,
                  uint64_t seed);
void groupReference(Buffers *b, const Group *g);
void groupEnqueue(Buffers *b, const Group *g, const int *src, int slot,
                  int onDevice);
void groupDevice(Buffers *b, const Group *g);
void driverFailedAt(const char *what);
int ranksWrong(const RankCheck *r, const Group *g);
void ranksChecked(const RankCheck *r, const Group *g);
void pollPause(int *polls);
void runFetched(const Ctx *c, Buffers *b, const Group *g, const Run *r,
                const char *where, Outcome *o);
void prepareRanks(Buffers *b, size_t n);
void spansOf(Buffers *b, Spans *s);
void enqueueCheck(Buffers *b, const Group *g, int slot, int baseline,
                  const KeyStage *stage);
uint64_t unpadded(const Baseline *base, const Group *g, int sum);
void waitDone(const Ctx *c, Buffers *b, size_t n, const char *call,
              const char *where);
CUresult launchTry(const Module *m, Buffers *b, size_t n, unsigned blocks,
                   unsigned block);
void launchRefused(const Module *m, CUresult r, unsigned block,
                   const char *where);
void launchChecked(const Ctx *c, const Module *m, Buffers *b, size_t n,
                   unsigned blocks, unsigned block, const char *where);
int outputDiffers(Buffers *b, const int *want, size_t n);
void guardsOf(Buffers *b, hx_guard_report *g);
int slotVerdict(const CheckSlot *s, const Group *g, uint64_t check,
                const Baseline *base, const uint64_t shift[NBUF],
                const char **buffer);
void runPlan(const Ctx *c, Buffers *b, const Plan *p, uint64_t seed,
             Group *g, Tally *t);

/* ------------------------------------------------------------------ */
/* events.cu                                                           */

typedef struct {
    FILE *f;             /* NULL in student mode */
    int terminal;        /* "end", "fault" or "timeout" has been written,
                            or the exit under way is planned */
    long long run;       /* the run under way, -1 when none */
    const char *phase;   /* "check" or "timing" */
} Events;

extern Events g_ev;
extern const Run *g_run;
extern const Plan *g_plan;
extern int (*g_flightFault)(int exiting);

void jsonString(FILE *f, const char *s);
void eventDone(void);
void eventFault(const char *call, const char *error);
void faultAtExit(void);
void eventBegin(const Plan *p, const hx_device *dev, uint64_t seed,
                unsigned tests);
/* {"event":"lock","state":state} in grade mode: "wait" before a blocking
 * take of the GPU lock, "held" or "gave_up" after it. */
void eventLock(const char *state);
void eventStart(long long k, const Run *r);
void eventResult(long long k, const Run *r, const Outcome *o);
void eventSkip(long long k, const Run *r);
void eventTest(int t, const TestTally *tt);
void eventEnd(const char *status, const Plan *p, int passed);
void timedOut(const char *where, double limit, int sharedHold);
void studentFaultReport(const char *call, const char *error,
                        const char *text, const char *where);
void studentFault(const char *call, const char *error, const char *text,
                  const char *where);
void tallyRun(const Ctx *c, const Run *run, const Outcome *o, Tally *t);
void printSummary(const Ctx *c, const Tally *t);

enum { PROF_ALLOC, PROF_INPUTS, PROF_LOCK, PROF_RUNS, PROF_SLOW,
       PROF_TIMING, PROF_HELD_SHARED, PROF_HELD_ALONE, PROF_UPLOADS,
       PROF_INPUTS_WAIT, PROF_PARTS };
void profAdd(int part, double since);
void profPrint(void);
/* HX_PROFILE=gpu: the batches' stream time by step, from timing events
 * recorded at each step's end; a mark charges the stream's time since the
 * mark before it to its step (GPU_START charges nothing: a batch's first
 * mark). gpuMarksSum adds a finished batch's marks up. */
enum { GPU_START, GPU_UPLOAD, GPU_RANKS, GPU_POISON, GPU_STUDENT,
       GPU_GUARDS, GPU_KEY, GPU_DIGEST, GPU_STEPS };
void gpuMarksOn(int on);
void gpuMark(int step);
void gpuMarksBaseline(int on);
void gpuMarksSum(void);
double gpuStepSeconds(int k);     /* k < 2 * GPU_STEPS: the baselines' after */
long long gpuMarksDropped(void);

/* ------------------------------------------------------------------ */
/* timing.cu                                                           */

int studentTiming(const Ctx *c, Buffers *b, const hx_device *dev, Group *g,
                  const hx_opts *o);
const char *gradeTiming(const Ctx *c, Buffers *b, Group *g,
                        const hx_opts *o, int rounds, int warmup);

#endif
