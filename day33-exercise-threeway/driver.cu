/* driver.cu: the driver of the day 33 exercise (students edit threeway.cu,
 * never this file).
 *
 * No code of the student's is linked into this program. threeway.cu is
 * compiled to a device module alone (harness/grader/compiler.py: device
 * code only, includes from the CUDA Toolkit and the compiler's system
 * folders only), and the driver loads that module with the CUDA driver API
 * and launches scatterThreeWay by its mangled name (module.c). No host code
 * from a submission ever runs: not here, not in the grading tool.
 *
 * What it shows: a stable three-way split (negatives | zeros | positives)
 * built from two predicates, two day-31 scans (one per boundary, never one
 * per group) and the student's scatterThreeWay, checked slot for slot by
 * the harness's three-way check on every run of a plan, then timed against
 * a copy, the device-to-device memcpy and the two-way partition of day 33.
 *
 *   build:  make                      ./threeway, and threeway.cu compiled to
 *                                     build/threeway.fatbin (ARCH="75 80 90";
 *                                     make ARCH=90 writes build/threeway.cubin)
 *   run:    ./threeway --check        the check: every run of the plan
 *           ./threeway                the check, then the timing table
 *           ./threeway --n 8387997    one size: its check, then its timing
 *           ./threeway --mix ends --n 257 --grid 3x64    one run, its report
 *           ./threeway --module FILE  another module (make solution does so)
 *
 * The plan (one process runs it all; planBuild below): sizes 0 to 8,
 * 2^k - 1, 2^k and 2^k + 1 for k = 4..20 (they hold the scan's tile edges
 * 255..257 and 65535..65537, where it needs a third level), the lesson's
 * 8387997, 16777217 (a fourth level) and RANDOM_SIZES sizes drawn from the
 * seed (half even, half odd, log-uniform up to 4M); with the timing, the
 * timing size too, which replaces 16777217 when it is larger (it needs the
 * fourth level as well). The mix "thirds" at every size, every edge mix at the
 * sizes up to EDGE_MAX_N. Grids: the normal grid (hx_grid_for, 256
 * threads) for every size and mix, launched twice (the second launch, on a
 * freshly poisoned output, must reproduce the first); the small grid
 * (3 x 64) and, for thirds, one grid drawn from the seed (block a multiple
 * of 32 up to 1024, 1 to 300 blocks) up to NARROW_MAX_N, and above it a
 * drawn grid of at least 64 x 128 threads. Student mode uses
 * HX_DEFAULT_SEED unless --seed; the seed is always printed.
 *
 * Every run: the output is poisoned and its guards (GUARD_WORDS on each
 * side, 4 MiB) laid down by cudaMemset; the kernel is launched; driver
 * kernels compare the output slot for slot with the reference, which
 * the student's kernel only ever finds on the device sealed under a key
 * it never receives (sealWord, sealReference), and scan the guards; the
 * run is waited for by polling against its limit (--run-timeout
 * seconds, default 10, per 2^24 elements and never less, counted from the
 * previous launch's end; exit 6 past it). Only the counts come back: a
 * run whose every launch is clean passes with the report hx_check_split3
 * gives the reference (judge.c); a first launch found wrong is run again
 * with its output fetched and judged element for element, so the report
 * of a failure is always hx_check_split3's. The driver's own ranks are
 * checked on the device before the student's kernel first sees them, and
 * the host reads that check before any verdict that used them.
 *
 * Runs go to the GPU in batches: as many consecutive groups (size, mix)
 * as the page-locked stage holds (STAGE_INTS; a larger group alone), each
 * group's input and reference uploaded from the stage and sealed, then
 * its runs, all in stream order, and one wait for the whole batch. Every
 * process's GPU work is time-sliced with the other processes' when a
 * class is graded, so what a run costs there is mostly its round trips:
 * a batch makes hundreds of small runs one round trip. Each launch's
 * checks are copied to the host as soon as they are made, so the first
 * slot not yet arrived names the run a fault or a hang is in: a fault
 * that surfaces at a later call of the batch is that run's, and a second
 * thread watches the launch limits while the batch is still being queued
 * (a kernel that never ends can fill the launch queue and block the
 * queueing inside a CUDA call).
 *
 * Grade mode (the grading tool's contract; stdout is for humans only: a
 * kernel's printf reaches it, so nothing there is trusted):
 *   ./threeway --grade --module FILE --result FILE [--seed S]
 *              [--plan full|sanitize] [--time] [--lock FILE]
 *              [--run-timeout SEC] [--runs R] [--warmup W]
 * FILE receives JSON Lines, written by the driver alone, each line one
 * object with an "event" key, flushed as it is written:
 *   {"event":"begin","seed":S,"plan":"full","runs":K,"gpu":"NVIDIA H200",
 *    "cc":"9.0","sms":132,"l2_bytes":B,"driver":13000,"runtime":13000}
 *   {"event":"module","status":"ok"}, or "status":"signature" with
 *    "entries":["_Z...",...] (null: the driver cannot list them), or
 *    "status":"load_error" with "error":"CUDA_ERROR_..."; after a module
 *    that is not ok, "end" follows with that status and the exit code is 0
 *   {"event":"start","run":k,"label":"n=257 mix=thirds grid=3x64","n":257,
 *    "mix":"thirds","blocks":3,"block":64,"launches":1}, written before the
 *    run's first GPU work (runs count from 0). Runs go to the GPU in
 *    batches (runPlan): the starts of a batch's runs are written as it is
 *    submitted, its results once it has ended; its runs execute in order,
 *    so the first started run with no result is the one under way
 *   {"event":"result","run":k,"status":S,"detail":D,"want_b1":..,
 *    "want_b2":..,"found_b1":..,"found_b2":..,"b1_ok":..,"b2_ok":..,
 *    "first_bad":i|-1,"got":v|null,"want":v|null,"bad":..,"unwritten":..,
 *    "order_errors":..,"guard_before":..,"guard_after":..,
 *    "guard_first_offset":o|null,"disagree_run":-1|1,"group":G|null}
 *    S: pass | boundary | order | mismatch | unwritten | out_of_bounds |
 *    nondeterministic; D: the check's own kind (hx_split_kind_name; its
 *    swapped and group_missing are status boundary). The boundaries are
 *    where the zeros (1) and the positives (2) start: want_b1 = A,
 *    want_b2 = A + B; found_b1 and found_b2 where the check places them
 *    in the output (by its first reading, when a group one slot early or
 *    late explains the output), within 0..n, and n for a group the output
 *    does not hold or when nothing was written; b1_ok and b2_ok are true
 *    only when every reading that fits leaves the boundary where it
 *    belongs. group: with status unwritten, the input's groups none of
 *    whose slots was written ("positives", "zeros and positives"; every
 *    group of the input when nothing was written), else null (and when
 *    only scattered slots were never written). disagree_run 1: the
 *    second launch's output or guard writes differed from the first's
 *    (status nondeterministic; the other fields describe the first)
 *   {"event":"timing","n":N,"rounds":R,"warmup":W,"copy_ms":..,
 *    "split_ms":..,"x_copy":..,"x_copy_min":..,"x_copy_max":..,
 *    "status":"pass"}, or "status":"nondeterministic" with "bad_round":r
 *    and null times: only with --time, only when every run passed; R is
 *    11 unless --runs (then at least 9), W at least 2 (see gradeTiming for
 *    how each timed round is verified)
 *   {"event":"fault","run":k|null,"phase":"check"|"timing","call":C,
 *    "error":"cudaErrorIllegalAddress"}, then exit 4
 *   {"event":"timeout","run":k|null,"phase":..,"seconds":T}, then exit 6
 *   {"event":"end","status":"pass"|<first failing status>,"runs":K,
 *    "passed":P} ("nondeterministic" when only the timing found it).
 *    The plan stops at its first failing run: P runs passed before it.
 * Exit codes: 0 "end" was written; 2 bad arguments, or the module, FILE
 * or the lock unusable; 3 no GPU; 4 a CUDA error or fault (after "fault"
 * when a run or the timing was under way); 5 the plan does not fit in
 * memory; 6 a launch ran past its limit (after "timeout").
 */
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "hx_args.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "hx_input.h"
#include "hx_lock.h"
#include "hx_ref.h"
#include "hx_time.h"
#include "../day31-scan/tile_scan.h"
#include "judge.h"
#include "module.h"

#define BLOCK 256u              /* threads per block of every normal grid */
#define SMALL_GRID 3u           /* the small grid: 3 x 64 = 192 threads, not
                                   a power of two, fewer than a tile */
#define SMALL_BLOCK 64u
#define LESSON_N ((size_t)8387997)
#define FOUR_LEVELS_N ((size_t)SCAN_TILE * SCAN_TILE * SCAN_TILE + 1)
#define EDGE_MAX_N ((size_t)4097)       /* every edge mix up to this size */
#define NARROW_MAX_N ((size_t)1048577)  /* small grids up to this size */
#define RANDOM_SIZES 10
#define RANDOM_MAX_N ((size_t)4 << 20)
#define GUARD_WORDS ((size_t)1 << 20)   /* 4 MiB of guard on each side */
#define EXIT_TIMEOUT 6                  /* a launch ran past its limit */
#define RUN_TIMEOUT_S 10.0              /* per launch, per 2^24 elements */
#define GRADE_ROUNDS 11                 /* timed rounds, unless --runs */
#define GRADE_WARMUP 2
#define MIN_ROUNDS 9
#define GRADE_PRINTF ((size_t)64 << 10) /* bytes of device printf a launch */

static const char *g_prog = "threeway";

/* ------------------------------------------------------------------ */
/* The result file (grade mode): JSON Lines, flushed line by line.     */

typedef struct {
    FILE *f;             /* NULL in student mode */
    int terminal;        /* "end", "fault" or "timeout" has been written,
                            or the exit under way is planned and no
                            "fault" may follow it */
    long long run;       /* the run under way, -1 when none */
    const char *phase;   /* "check" or "timing" */
} Events;

static Events g_ev = {NULL, 0, -1, "check"};

static void jsonString(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void jsonRun(FILE *f, long long run)
{
    if (run >= 0)
        fprintf(f, "%lld", run);
    else
        fputs("null", f);
}

static void eventDone(void)
{
    fputs("}\n", g_ev.f);
    fflush(g_ev.f);
}

static void eventFault(const char *call, const char *error)
{
    if (!g_ev.f || g_ev.terminal)
        return;
    fprintf(g_ev.f, "{\"event\":\"fault\",\"run\":");
    jsonRun(g_ev.f, g_ev.run);
    fprintf(g_ev.f, ",\"phase\":\"%s\",\"call\":", g_ev.phase);
    jsonString(g_ev.f, call);
    fprintf(g_ev.f, ",\"error\":");
    jsonString(g_ev.f, error);
    eventDone();
    g_ev.terminal = 1;
}

/* While a batch of runs is in flight, a fault of the student's kernel
 * surfaces at whichever later call of the driver comes first; this names
 * the run it happened in instead (flightFault, set by the batch code).
 * Returns 1 when it reported the exit; with exiting, the batch is no
 * longer in flight when it returns either way. */
static int (*g_flightFault)(int exiting);

/* An exit the driver did not plan (hx_cuda_check's, on a CUDA error in
 * the driver's own calls) still names the run it happened in. */
static void faultAtExit(void)
{
    if (g_flightFault && g_flightFault(1))
        return;
    const cudaError_t err = cudaPeekAtLastError();
    eventFault("a CUDA call of the driver (its line is on stderr)",
               err != cudaSuccess ? cudaGetErrorName(err) : "see stderr");
}


/* Where a process's time goes (HX_PROFILE=1 in the environment: one line
 * on stderr at the end): seconds per part, summed over the process. */
enum { PROF_ALLOC, PROF_INPUTS, PROF_LOCK, PROF_RUNS, PROF_SLOW,
       PROF_TIMING, PROF_PARTS };
static double g_prof[PROF_PARTS];

static void profAdd(int part, double since)
{
    g_prof[part] += hx_now_seconds() - since;
}

static void profPrint(void)
{
    static const char *const names[PROF_PARTS] = {
        "buffers", "inputs and references", "lock waits",
        "batches (uploads, ranks, runs)", "runs fetched again", "timing"};
    const char *on = getenv("HX_PROFILE");
    if (!on || strcmp(on, "1"))
        return;
    fprintf(stderr, "%s: profile (s):", g_prog);
    for (int k = 0; k < PROF_PARTS; ++k)
        fprintf(stderr, " %s %.3f%s", names[k], g_prof[k],
                k + 1 < PROF_PARTS ? "," : "\n");
}

static void *hostAlloc(size_t count, size_t size, const char *what)
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

/* Reads 8 bytes of the kernel's randomness: keys and masks must not follow
 * from the grading seed, which a student may learn. */
static uint64_t randomWord(hx_rng *fallback)
{
    uint64_t v = 0;
    const int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        const ssize_t got = read(fd, &v, sizeof v);
        close(fd);
        if (got == (ssize_t)sizeof v)
            return v;
    }
    return hx_rng_next(fallback) ^ (uint64_t)hx_now_seconds() ^ (uint64_t)getpid();
}

/* ------------------------------------------------------------------ */
/* The driver's kernels. None of them is the student's: predicates, the */
/* copy and the two-way scatter for the timing, and the checks that run */
/* on the device so that nothing large crosses to the host.             */

/* flags[i] = 1 where in[i] belongs to the group, else 0. */
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

/* The copy every row is measured against. */
static __global__ void copyInts(const int* __restrict__ in,
                                int* __restrict__ out, size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[i];
}

/* What scanGuards found. Indices are into each guard region. */
typedef struct {
    unsigned long long before, after;   /* changed words on each side */
    unsigned long long nearBefore;      /* 1 + the highest changed index
                                           before the output (0: none) */
    unsigned long long nearAfter;       /* the lowest changed index after
                                           it (ULLONG_MAX: none) */
} GuardScan;

/* Counts the words of both guard regions that no longer hold
 * HX_GUARD_WORD, and finds the changed word nearest the output on each
 * side. *r must hold {0, 0, 0, ULLONG_MAX} before the launch. */
static __global__ void scanGuards(const int* __restrict__ before,
                                  size_t beforeWords,
                                  const int* __restrict__ after,
                                  size_t afterWords, GuardScan *r)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         i < beforeWords + afterWords; i += stride) {
        if (i < beforeWords) {
            if (before[i] != HX_GUARD_WORD) {
                atomicAdd(&r->before, 1ull);
                atomicMax(&r->nearBefore, (unsigned long long)i + 1);
            }
        } else if (after[i - beforeWords] != HX_GUARD_WORD) {
            atomicAdd(&r->after, 1ull);
            atomicMin(&r->nearAfter, (unsigned long long)(i - beforeWords));
        }
    }
}

/* The ranks' defining property, element for element: negRank[0] = 0 and
 * negRank[i] = negRank[i-1] + (in[i-1] < 0), the same for zeros. By
 * induction that makes them the exclusive counts; the host then compares
 * the totals with the counts of its own input. *r must hold
 * {0, ULLONG_MAX} before the launch (resetRanks). */
typedef struct {
    unsigned long long bad, first;
    int totals[2];             /* the scans' totals, copied beside them */
} RankCheck;

static __global__ void resetRanks(RankCheck *r)
{
    r->bad = 0;
    r->first = ULLONG_MAX;
}

static __global__ void checkRanks(const int* __restrict__ in,
                                  const int* __restrict__ negRank,
                                  const int* __restrict__ zeroRank,
                                  size_t n, RankCheck *r)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int wantNeg = i ? negRank[i - 1] + (in[i - 1] < 0) : 0;
        const int wantZero = i ? zeroRank[i - 1] + (in[i - 1] == 0) : 0;
        if (negRank[i] != wantNeg || zeroRank[i] != wantZero) {
            atomicAdd(&r->bad, 1ull);
            atomicMin(&r->first, (unsigned long long)i);
        }
    }
}

/* splitmix64's finaliser: a bijection of 64-bit words that mixes every
 * input bit into every output bit. */
static __host__ __device__ inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The word that seals slot i of a reference under key: whenever the
 * student's kernel runs, the reference is on the device only as
 * ref[i] ^ sealWord(key, i) (sealed), and key is given to no launch but
 * sealReference's and checkOutput's, never to the student's kernel, so
 * the kernel cannot read the answer it is checked against. */
static __host__ __device__ inline int sealWord(uint64_t key, size_t i)
{
    return (int)(uint32_t)mix64(key ^ (uint64_t)i);
}

/* Seals the reference uploaded into sealed[0..n) in place. It runs in
 * the stream right after the upload, before any launch of the student's
 * kernel, so no launch ever sees the reference in clear; sealing on the
 * device keeps the host's work (and the time the shared lock is held for
 * a large group) to a plain copy. */
static __global__ void sealReference(int *sealed, size_t n, uint64_t key)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        sealed[i] ^= sealWord(key, i);
}

/* What checkOutput and scanGuards found about one launch's output. */
typedef struct {
    GuardScan guard;
    unsigned long long bad;     /* slots that differ from the reference */
    unsigned long long first;   /* the lowest of them (ULLONG_MAX: none) */
    unsigned long long done;    /* 1: the launch before it has ended (the
                                   host's copy is 0 until it arrives) */
} OutputScan;

/* Sets *r to "nothing found yet", after the launch it is about. */
static __global__ void resetScan(OutputScan *r)
{
    const OutputScan clean = {{0, 0, 0, ULLONG_MAX}, 0, ULLONG_MAX, 1};
    *r = clean;
}

/* Compares out[0..n) word for word with the reference sealed under key,
 * each reference value v that is not zero taken as v ^ mask (the timing's
 * masked rounds; mask 0 for the checks): exact, slot by slot. */
static __global__ void checkOutput(const int* __restrict__ out,
                                   const int* __restrict__ sealed, size_t n,
                                   uint64_t key, int mask, OutputScan *r)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int ref = sealed[i] ^ sealWord(key, i);
        if (out[i] != (ref ? ref ^ mask : 0)) {
            atomicAdd(&r->bad, 1ull);
            atomicMin(&r->first, (unsigned long long)i);
        }
    }
}

/* in[i] = base[i] with bits 20..27 flipped by mask where it is not zero:
 * every value keeps its kind (inputs lie in [-1000000, 1000000], so a
 * negative keeps its top bits and a positive stays below 2^28), so the
 * split keeps its permutation while every value changes; and no value
 * becomes HX_POISON or HX_GUARD_WORD (top nibbles B and A). */
static __global__ void maskInput(const int* __restrict__ base,
                                 int* __restrict__ in, size_t n, int mask)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        in[i] = base[i] ? base[i] ^ mask : 0;
}

/* ------------------------------------------------------------------ */
/* The plan: every run, decided before the first one.                  */

typedef struct {
    size_t n;
    hx_mix mix;
    unsigned blocks, block;
    int launches;          /* 2: the second must reproduce the first */
} Run;

typedef struct {
    const char *name;      /* "full", "sanitize" */
    Run *run;
    int count, cap;
    size_t maxN;
    int sizes;             /* distinct sizes */
} Plan;

typedef struct {
    const char *name;      /* --plan */
    int mixSet;            /* --mix given: that mix at every size */
    hx_mix mix;
    int gridSet;           /* --grid given: that grid only */
    unsigned blocks, block;
    size_t timingN;        /* a size the plan must hold (0: none) */
} PlanArgs;

static void planAdd(Plan *p, size_t n, hx_mix mix, unsigned blocks,
                    unsigned block, int launches)
{
    if (p->count == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        Run *grown = (Run *)realloc(p->run, p->cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "%s: out of host memory for the plan\n", g_prog);
            exit(HX_EXIT_NOMEM);
        }
        p->run = grown;
    }
    const Run r = {n, mix, blocks, block, launches};
    p->run[p->count++] = r;
    if (n > p->maxN)
        p->maxN = n;
}

static int cmpSize(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* A block size drawn from rng: a multiple of 32 from lo to hi (both
 * multiples of 32), never above the kernel's limit. */
static unsigned drawBlock(hx_rng *rng, unsigned lo, unsigned hi,
                          int maxThreads)
{
    unsigned b = lo + 32u * (unsigned)hx_rng_below(rng, (hi - lo) / 32 + 1);
    const unsigned cap = maxThreads >= 32 ? (unsigned)maxThreads / 32 * 32
                                          : 32u;
    return b < cap ? b : cap;
}

/* The runs of one size: mixes, then per mix its grids (see the opening
 * comment). */
static void planSize(Plan *p, const hx_device *dev, size_t n,
                     const PlanArgs *a, hx_rng *rng, int maxThreads)
{
    for (int m = 0; m < (int)HX_MIX_COUNT; ++m) {
        const hx_mix mix = (hx_mix)m;
        if (a->mixSet ? mix != a->mix
                      : mix != HX_MIX_THIRDS &&
                            (n == 0 || n > EDGE_MAX_N))
            continue;
        if (a->gridSet) {
            planAdd(p, n, mix, a->blocks, a->block, 2);
            continue;
        }
        planAdd(p, n, mix, hx_grid_for(dev, n, BLOCK), BLOCK, 2);
        if (n <= NARROW_MAX_N)
            planAdd(p, n, mix, SMALL_GRID, SMALL_BLOCK, 1);
        if (mix != HX_MIX_THIRDS && !a->mixSet)
            continue;
        /* Few threads are cheap at small sizes; above them a drawn grid
         * keeps at least 64 x 128 threads so that a big run stays short. */
        if (n <= NARROW_MAX_N) {
            const unsigned blocks = 1u + (unsigned)hx_rng_below(rng, 300);
            planAdd(p, n, mix, blocks, drawBlock(rng, 32, 1024, maxThreads),
                    1);
        } else {
            const unsigned blocks = 64u + (unsigned)hx_rng_below(rng, 237);
            planAdd(p, n, mix, blocks, drawBlock(rng, 128, 1024, maxThreads),
                    1);
        }
    }
}

/* Builds the plan from the seed: the sizes given[0..ngiven) (given NULL:
 * the full plan's), and a->timingN when it is not 0. */
static void planBuild(Plan *p, const hx_device *dev, uint64_t seed,
                      const PlanArgs *a, const size_t *given, int ngiven,
                      int maxThreads)
{
    size_t sizes[128];
    int k = 0;
    hx_rng rng;
    hx_rng_seed(&rng, seed ^ 0x7068726565776179ull);   /* the plan's stream */
    memset(p, 0, sizeof *p);
    p->name = a->name;
    if (given) {
        for (int i = 0; i < ngiven; ++i)
            sizes[k++] = given[i];
    } else {
        for (size_t n = 0; n <= 8; ++n)
            sizes[k++] = n;
        for (int e = 4; e <= 20; ++e) {
            sizes[k++] = ((size_t)1 << e) - 1;
            sizes[k++] = (size_t)1 << e;
            sizes[k++] = ((size_t)1 << e) + 1;
        }
        sizes[k++] = LESSON_N;
        /* A timing size past it needs the fourth level already. */
        if (a->timingN < FOUR_LEVELS_N)
            sizes[k++] = FOUR_LEVELS_N;
        /* Log-uniform from 9 to RANDOM_MAX_N, alternately even and odd. */
        for (int i = 0; i < RANDOM_SIZES; ++i) {
            const double u = hx_rng_unit(&rng);
            size_t n = (size_t)(9.0 * exp(u * log(RANDOM_MAX_N / 9.0)));
            n = i % 2 ? (n | 1u) : (n & ~(size_t)1);
            sizes[k++] = n < 9 ? 9 + (size_t)(i % 2) : n;
        }
    }
    if (a->timingN)
        sizes[k++] = a->timingN;
    qsort(sizes, (size_t)k, sizeof sizes[0], cmpSize);
    for (int i = 0; i < k; ++i) {
        if (i && sizes[i] == sizes[i - 1])
            continue;
        ++p->sizes;
        planSize(p, dev, sizes[i], a, &rng, maxThreads);
    }
}

/* The sanitizer's plan: a handful of small runs. */
static void planSanitize(Plan *p, const hx_device *dev, const PlanArgs *a)
{
    static const size_t sizes[] = {1, 33, 257, 4097, 65537};
    memset(p, 0, sizeof *p);
    p->name = a->name;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        const size_t n = sizes[k];
        const hx_mix mix = a->mixSet ? a->mix : HX_MIX_THIRDS;
        ++p->sizes;
        if (a->gridSet) {
            planAdd(p, n, mix, a->blocks, a->block, 1);
            continue;
        }
        planAdd(p, n, mix, hx_grid_for(dev, n, BLOCK), BLOCK, 1);
        planAdd(p, n, mix, SMALL_GRID, SMALL_BLOCK, 1);
        if (n == 257 && !a->mixSet)
            planAdd(p, n, HX_MIX_ENDS, hx_grid_for(dev, n, BLOCK), BLOCK, 1);
    }
}

/* The seed of the input of one (size, mix): a function of the run's seed
 * alone, so every machine makes the same input. */
static uint64_t inputSeed(uint64_t seed, size_t n, hx_mix mix)
{
    return mix64(seed ^ mix64((uint64_t)n * 8 + (uint64_t)mix + 1));
}

/* ------------------------------------------------------------------ */
/* Buffers, allocated once for the largest size of the plan.           */

/* One (size, mix) of the plan: its input's boundaries. */
typedef struct {
    size_t n;
    hx_mix mix;
    size_t a, ab;          /* the boundaries: A and A + B */
    int valid;             /* the host's (device's) buffers hold it */
} Group;

/* A batch: consecutive groups of the plan submitted at once and waited
 * for once (runPlan). Its small groups' inputs and sealed references are
 * staged in page-locked memory and uploaded without waiting; a group too
 * large for the stage is a batch of its own, uploaded directly. */
#define BATCH_SLOTS 1024                 /* launches of a batch */
#define BATCH_GROUPS 256                 /* groups of a batch */
#define STAGE_INTS ((size_t)1 << 22)     /* 16 MiB of staged ints */

/* What the device's checks leave in page-locked host memory, and the
 * stage. */
typedef struct {
    OutputScan scan[BATCH_SLOTS];
    RankCheck rank[BATCH_GROUPS];
    int stage[STAGE_INTS];
} Pinned;

typedef struct {
    const hx_device *dev;           /* the grids of the driver's kernels */
    size_t cap;
    int *in, *negRank, *zeroRank;   /* device, cap ints each */
    int *totals;                    /* device: [0] A, [1] B, one per scan */
    int *pristine;                  /* device: the timing's unmasked input
                                       (grade mode with --time) */
    int *sealed;                    /* device: the group's reference,
                                       sealed (sealWord) under key */
    uint64_t key;                   /* random, drawn once a process */
    hx_guarded out;                 /* the output between its guards */
    OutputScan *checks;             /* device: BATCH_SLOTS, one a launch */
    RankCheck *rankCheck;           /* device: BATCH_GROUPS, one a group */
    Pinned *pinned;                 /* page-locked: what the device's
                                       checks send back, copied without
                                       waiting */
    cudaEvent_t done;               /* the watchdog's marker */
    int *hIn, *hRef, *hGot;         /* host, cap ints each */
    size_t thirdsLen;               /* hIn[0..thirdsLen) holds the thirds
                                       stream (0: another input) */
    int *hChunk;                    /* host, CHUNK ints */
    Group uploaded;                 /* the group whose input and sealed
                                       reference the device holds (valid
                                       0: none) */
    ScanPlan *scans;                /* one a size, made before the runs so
                                       that no allocation waits inside */
    int nScans, capScans;
} Buffers;

#define CHUNK ((size_t)1 << 22)

static size_t deviceBytes(size_t cap, int timing)
{
    const size_t ints = cap ? cap : 1;
    return (4 + (timing ? 1 : 0)) * ints * sizeof(int) +
           (cap + 2 * GUARD_WORDS) * sizeof(int) + scanPlanBytes(cap) + 4096;
}

/* Exits with HX_EXIT_NOMEM after one line when the plan does not fit. */
static void buffersAlloc(Buffers *b, const hx_device *dev, size_t cap,
                         int timing)
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
    const size_t bytes = (cap ? cap : 1) * sizeof(int);
    b->dev = dev;
    b->cap = cap;
    HX_CHECK(cudaMalloc(&b->in, bytes));
    HX_CHECK(cudaMalloc(&b->negRank, bytes));
    HX_CHECK(cudaMalloc(&b->zeroRank, bytes));
    HX_CHECK(cudaMalloc(&b->sealed, bytes));
    if (timing)
        HX_CHECK(cudaMalloc(&b->pristine, bytes));
    HX_CHECK(cudaMalloc(&b->totals, 2 * sizeof(int)));
    HX_CHECK(cudaMalloc(&b->checks, BATCH_SLOTS * sizeof(OutputScan)));
    HX_CHECK(cudaMalloc(&b->rankCheck, BATCH_GROUPS * sizeof(RankCheck)));
    HX_CHECK(cudaMallocHost(&b->pinned, sizeof(Pinned)));
    hx_rng fallback;
    hx_rng_seed(&fallback, (uint64_t)getpid() ^ (uint64_t)time(NULL));
    b->key = randomWord(&fallback);
    HX_CHECK(cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming));
    hx_guarded_alloc_wide(&b->out, cap, GUARD_WORDS);
    b->hIn = (int *)hostAlloc(cap, sizeof(int), "the input");
    b->hRef = (int *)hostAlloc(cap, sizeof(int), "the reference");
    b->hGot = (int *)hostAlloc(cap, sizeof(int), "the output");
    b->hChunk = (int *)hostAlloc(CHUNK, sizeof(int), "a chunk");
}

static void buffersFree(Buffers *b)
{
    HX_CHECK(cudaFree(b->in));
    HX_CHECK(cudaFree(b->negRank));
    HX_CHECK(cudaFree(b->zeroRank));
    HX_CHECK(cudaFree(b->pristine));
    HX_CHECK(cudaFree(b->sealed));
    HX_CHECK(cudaFree(b->totals));
    HX_CHECK(cudaFree(b->checks));
    HX_CHECK(cudaFree(b->rankCheck));
    HX_CHECK(cudaFreeHost(b->pinned));
    HX_CHECK(cudaEventDestroy(b->done));
    hx_guarded_free(&b->out);
    for (int k = 0; k < b->nScans; ++k)
        scanPlanDestroy(&b->scans[k]);
    free(b->scans);
    free(b->hIn);
    free(b->hRef);
    free(b->hGot);
    free(b->hChunk);
    memset(b, 0, sizeof *b);
}

/* The scan plan for n elements, made the first time (the plans of a
 * plan's sizes are all made before its runs: scansFor). */
static ScanPlan *scanFor(Buffers *b, size_t n)
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

static void scansFor(Buffers *b, const Plan *p)
{
    for (int k = 0; k < p->count; ++k)
        scanFor(b, p->run[k].n);
}

/* ------------------------------------------------------------------ */
/* The GPU lock (hx_lock.h): shared for checks, exclusive for timing.  */

static hx_gpu_lock g_lock;

/* A lock that cannot be taken is the grading tool's problem: exit 2. */
static void lockGpu(hx_lock_kind kind)
{
    const double t0 = hx_now_seconds();
    if (hx_gpu_lock_take(&g_lock, kind)) {
        fprintf(stderr, "%s: cannot take the GPU lock (--lock): %s\n", g_prog,
                strerror(errno));
        g_ev.terminal = 1;
        exit(HX_EXIT_USAGE);
    }
    profAdd(PROF_LOCK, t0);
}

static void unlockGpu(void) { hx_gpu_lock_release(&g_lock); }

/* The GPU alone, for a timing: asked for a second at a time, so that
 * while a long run elsewhere holds it shared (a kernel that never ends
 * holds it until its watchdog, 10 s or more) the waiting timing does not
 * hold every other process's checks back too (hx_gpu_lock_take_within);
 * a second is meant to stay above what an ordinary batch holds it for,
 * the timing size's uploads included. */
static void lockTiming(void)
{
    const double t0 = hx_now_seconds();
    /* Each ask twice as long as the last (up to 30 s), so that under a
     * heavy load of checks the timing is not starved by the gaps. */
    double ask = 1.0;
    for (;;) {
        const int rc = hx_gpu_lock_take_within(&g_lock, HX_LOCK_EXCLUSIVE,
                                               ask);
        ask = ask < 15.0 ? 2 * ask : 30.0;
        if (rc == 0)
            break;
        if (rc < 0) {
            fprintf(stderr, "%s: cannot take the GPU lock (--lock): %s\n",
                    g_prog, strerror(errno));
            g_ev.terminal = 1;
            exit(HX_EXIT_USAGE);
        }
        const struct timespec nap = {0, 20000000};   /* 20 ms */
        nanosleep(&nap, NULL);
    }
    profAdd(PROF_LOCK, t0);
}

/* ------------------------------------------------------------------ */
/* One (size, mix): the input, its reference, the driver's ranks.       */

/* Host half: the input and the reference split. The thirds input of
 * size n is the first n values of one stream: above the edge mixes' sizes
 * the whole stream is made once and every later size reuses its prefix
 * (the sizes come in increasing order). */
static void groupHost(Buffers *b, Group *g, size_t n, hx_mix mix,
                      uint64_t seed)
{
    g->n = n;
    g->mix = mix;
    if (mix != HX_MIX_THIRDS) {
        hx_fill_threeway(b->hIn, n, mix, inputSeed(seed, n, mix));
        b->thirdsLen = 0;
    } else if (b->thirdsLen < n) {
        b->thirdsLen = n > EDGE_MAX_N ? b->cap : n;
        hx_fill_threeway(b->hIn, b->thirdsLen, mix, inputSeed(seed, 0, mix));
    }
    hx_split3(b->hIn, b->hRef, n, &g->a, &g->ab);
    g->valid = 1;
}

/* Enqueues the driver's half of the split: two predicates and two scans,
 * one per boundary. The third group (positives) gets no predicate and no
 * scan of its own. */
static void prepareRanks(Buffers *b, size_t n)
{
    const unsigned grid = hx_grid_for(b->dev, n, BLOCK);
    ScanPlan *plan = scanFor(b, n);
    markNegative<<<grid, BLOCK>>>(b->in, b->negRank, n);
    HX_CHECK_LAUNCH("markNegative");
    scanExclusive(plan, b->negRank, b->totals + 0, 0);
    markZero<<<grid, BLOCK>>>(b->in, b->zeroRank, n);
    HX_CHECK_LAUNCH("markZero");
    scanExclusive(plan, b->zeroRank, b->totals + 1, 0);
}

static void driverFailed(const char *what)
{
    fprintf(stderr, "%s: %s (not the kernel's fault: report this to the "
            "course staff)\n", g_prog, what);
    eventFault("the driver's own check", what);
    exit(HX_EXIT_CUDA);
}

/* Enqueues the device half of group g, nothing waiting: the input and
 * the reference uploaded (from the stage at stage and stage + n when stage
 * is not NULL, else from b->hIn and b->hRef) and sealed on the device
 * (sealReference), the ranks made, then checked on the device into rank
 * slot slot, the totals copied beside, and the slot copied to
 * b->pinned->rank[slot] before any later launch: a student's kernel that
 * writes far outside its output can reach device memory, and must not
 * change the verdict on the driver's ranks. */
static void groupEnqueue(Buffers *b, const Group *g, const int *stage,
                         int slot)
{
    const size_t n = g->n;
    if (n) {
        const int *in = stage ? stage : b->hIn;
        const int *ref = stage ? stage + n : b->hRef;
        HX_CHECK(cudaMemcpyAsync(b->in, in, n * sizeof(int),
                                 cudaMemcpyHostToDevice, 0));
        HX_CHECK(cudaMemcpyAsync(b->sealed, ref, n * sizeof(int),
                                 cudaMemcpyHostToDevice, 0));
        sealReference<<<hx_grid_for(b->dev, n, BLOCK), BLOCK>>>(b->sealed, n,
                                                                b->key);
        HX_CHECK_LAUNCH("sealReference");
    }
    b->uploaded = *g;
    b->uploaded.valid = 1;
    prepareRanks(b, n);
    RankCheck *d = b->rankCheck + slot;
    resetRanks<<<1, 1>>>(d);
    HX_CHECK_LAUNCH("resetRanks");
    if (n) {
        checkRanks<<<hx_grid_for(b->dev, n, BLOCK), BLOCK>>>(
            b->in, b->negRank, b->zeroRank, n, d);
        HX_CHECK_LAUNCH("checkRanks");
    }
    HX_CHECK(cudaMemcpyAsync(d->totals, b->totals, sizeof d->totals,
                             cudaMemcpyDeviceToDevice, 0));
    HX_CHECK(cudaMemcpyAsync(b->pinned->rank + slot, d, sizeof *d,
                             cudaMemcpyDeviceToHost, 0));
}

/* 1 when rank slot r (arrived on the host) does not hold group g's
 * ranks. */
static int ranksWrong(const RankCheck *r, const Group *g)
{
    return r->bad || (size_t)r->totals[0] != g->a ||
           (size_t)r->totals[1] != g->ab - g->a;
}

/* Exits through driverFailed when rank slot r (arrived on the host) does
 * not hold group g's ranks. */
static void ranksChecked(const RankCheck *r, const Group *g)
{
    if (ranksWrong(r, g)) {
        char what[200];
        snprintf(what, sizeof what, "the driver's ranks are wrong at n=%zu "
                 "(%llu bad, totals %d and %d, want %zu and %zu)", g->n,
                 r->bad, r->totals[0], r->totals[1], g->a, g->ab - g->a);
        driverFailed(what);
    }
}

/* Device half, under the caller's shared lock, waited for: group g
 * uploaded directly, its ranks made and checked before the student's
 * kernel first sees them (so a failure later is never blamed on the
 * driver). */
static void groupDevice(Buffers *b, const Group *g)
{
    groupEnqueue(b, g, NULL, 0);
    HX_CHECK(cudaStreamSynchronize(0));
    ranksChecked(b->pinned->rank, g);
}

/* ------------------------------------------------------------------ */
/* One run: launch, watchdog, guards, fetch, check.                    */

typedef struct {
    const Module *module;
    double runTimeout;    /* seconds per launch, per 2^24 elements */
} Ctx;

static double launchLimit(const Ctx *c, size_t n)
{
    const double scale = (double)n / (double)((size_t)1 << 24);
    return c->runTimeout * (scale > 1.0 ? scale : 1.0);
}

static void describeRun(char *buf, size_t len, const Run *r)
{
    snprintf(buf, len, "n=%zu mix=%s grid=%ux%u", r->n, hx_mix_name(r->mix),
             r->blocks, r->block);
}

/* The launch under way ran past its limit: say so and stop at once (the
 * kernel may never end, so nothing waits for it: no teardown). */
static void timedOut(const char *where, double limit)
{
    fflush(stdout);
    fprintf(stderr, "%s: scatterThreeWay ran past its limit of %.3g s (%s) "
            "and was stopped; a thread that waits for something no other "
            "thread does never ends (exit %d)\n", g_prog, limit, where,
            EXIT_TIMEOUT);
    if (g_ev.f && !g_ev.terminal) {
        fprintf(g_ev.f, "{\"event\":\"timeout\",\"run\":");
        jsonRun(g_ev.f, g_ev.run);
        fprintf(g_ev.f, ",\"phase\":\"%s\",\"seconds\":%.3f", g_ev.phase,
                limit);
        eventDone();
        g_ev.terminal = 1;
    }
    fflush(stderr);
    _exit(EXIT_TIMEOUT);
}

/* The run under way (student mode names it in a rerun line). */
static const Run *g_run;

/* The student's kernel failed (a launch refused, or a fault): report it
 * (error is the error's name, text what it means) and exit with
 * HX_EXIT_CUDA. */
static void studentFaultReport(const char *call, const char *error,
                               const char *text, const char *where)
{
    fflush(stdout);
    fprintf(stderr, "%s: %s failed (%s): %s: %s\n", g_prog, call, where,
            error, text);
    if (!g_ev.f && g_run)
        fprintf(stderr, "  to see the bad access: compute-sanitizer %s "
                "--check --n %zu --mix %s --grid %ux%u\n", g_prog,
                g_run->n, hx_mix_name(g_run->mix), g_run->blocks,
                g_run->block);
    eventFault(call, error);
}

static void studentFault(const char *call, const char *error,
                         const char *text, const char *where)
{
    studentFaultReport(call, error, text, where);
    exit(HX_EXIT_CUDA);
}

/* Between two polls of a wait: spin briefly (most launches end within
 * microseconds), then sleep: a grading run shares the CPUs with other
 * submissions' host work, so a long kernel must cost no CPU. */
static void pollPause(int *polls)
{
    if (++*polls > 100) {
        const struct timespec nap = {0, 50000};
        nanosleep(&nap, NULL);
    }
}

/* Waits for everything enqueued so far, polling, so that a kernel that
 * never ends is stopped at limit seconds; a fault surfacing here is
 * reported as call's. */
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
            timedOut(where, limit);
        pollPause(&polls);
    }
    (void)cudaGetLastError();   /* cudaErrorNotReady is not an error */
}

/* waitUntil, with one launch's limit at n elements. */
static void waitDone(const Ctx *c, Buffers *b, size_t n, const char *call,
                     const char *where)
{
    waitUntil(b, launchLimit(c, n), call, where);
}

/* Launches the student's kernel on b's output; a launch it refuses is
 * its fault. */
static CUresult launchTry(const Ctx *c, Buffers *b, size_t n,
                          unsigned blocks, unsigned block)
{
    return moduleLaunch(c->module, blocks, block, b->in, b->negRank,
                        b->zeroRank, b->out.data, n, b->totals + 0,
                        b->totals + 1);
}

/* The launch of the run under way (g_run) was refused with r. */
static void launchRefused(const Ctx *c, CUresult r, unsigned block,
                          const char *where)
{
    char text[240];
    snprintf(text, sizeof text, "%s%s", moduleErrorText(r),
             (int)block > c->module->maxThreads
                 ? " (the kernel allows fewer threads a block: every "
                   "block size up to 1024 must work)"
                 : "");
    studentFault("cuLaunchKernel(scatterThreeWay)", moduleErrorName(r),
                 text, where);
}

static void launchChecked(const Ctx *c, Buffers *b, size_t n,
                          unsigned blocks, unsigned block, const char *where)
{
    const CUresult r = launchTry(c, b, n, blocks, block);
    if (r != CUDA_SUCCESS)
        launchRefused(c, r, block, where);
}

static void launchAndWait(const Ctx *c, Buffers *b, size_t n,
                          unsigned blocks, unsigned block, const char *where)
{
    launchChecked(c, b, n, blocks, block, where);
    waitDone(c, b, n, "scatterThreeWay", where);
}

/* Enqueues the device's checks of the output as the last launch left
 * it, into slot of b->checks and then b->pinned->scan[slot]: the slots that
 * differ from the reference (sealed, each value masked by mask) and the
 * guards. Nothing waits; with no reference (sealed 0) only the guards. */
static void enqueueScan(Buffers *b, const int *sealed, int mask, int slot)
{
    const size_t n = b->out.n, before = b->out.guard,
                 after = hx_guarded_after(&b->out);
    OutputScan *d = b->checks + slot;
    resetScan<<<1, 1>>>(d);
    HX_CHECK_LAUNCH("resetScan");
    if (n && sealed) {
        checkOutput<<<hx_grid_for(b->dev, n, BLOCK), BLOCK>>>(
            b->out.data, sealed, n, b->key, mask, d);
        HX_CHECK_LAUNCH("checkOutput");
    }
    scanGuards<<<hx_grid_for(b->dev, before + after, BLOCK), BLOCK>>>(
        b->out.base, before, b->out.data + n, after, &d->guard);
    HX_CHECK_LAUNCH("scanGuards");
    HX_CHECK(cudaMemcpyAsync(b->pinned->scan + slot, d, sizeof *d,
                             cudaMemcpyDeviceToHost, 0));
}

/* A scan's verdict: the output equals the reference and no guard word
 * changed. */
static int scanClean(const OutputScan *s)
{
    return !s->bad && !s->guard.before && !s->guard.after;
}

/* The guards' report from a finished scan of slot (a changed word's value
 * is read back from the device). */
static void guardsFrom(Buffers *b, int slot, hx_guard_report *g)
{
    const GuardScan *s = &b->pinned->scan[slot].guard;
    const size_t before = b->out.guard;
    memset(g, 0, sizeof *g);
    g->before = (size_t)s->before;
    g->after = (size_t)s->after;
    if (s->before) {
        g->first_before = (long long)s->nearBefore - 1 - (long long)before;
        HX_CHECK(cudaMemcpy(&g->value_before, b->out.base + s->nearBefore - 1,
                            sizeof(int), cudaMemcpyDeviceToHost));
    }
    if (s->after) {
        g->first_after = (long long)(b->out.n + s->nearAfter);
        HX_CHECK(cudaMemcpy(&g->value_after,
                            b->out.data + b->out.n + s->nearAfter,
                            sizeof(int), cudaMemcpyDeviceToHost));
    }
}

/* Scans both guard regions of b->out on the device into *g (the kernel
 * under test has finished). */
static void guardsOf(Buffers *b, hx_guard_report *g)
{
    enqueueScan(b, NULL, 0, 0);
    HX_CHECK(cudaStreamSynchronize(0));
    guardsFrom(b, 0, g);
}

static int sameGuards(const hx_guard_report *x, const hx_guard_report *y)
{
    return x->before == y->before && x->after == y->after &&
           (!x->before || (x->first_before == y->first_before &&
                           x->value_before == y->value_before)) &&
           (!x->after || (x->first_after == y->first_after &&
                          x->value_after == y->value_after));
}

/* 1 when the device output differs from want[0..n), compared chunk by
 * chunk through b->hChunk. */
static int outputDiffers(Buffers *b, const int *want, size_t n)
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

/* What one run found. */
typedef struct {
    judge_verdict v;       /* the check's verdict on the first launch */
    int disagree;          /* the second launch's output or guard writes
                              differed from the first's */
    const char *status;    /* the grade-mode status: v.status, or
                              "nondeterministic" when disagree */
} Outcome;

/* Runs r the slow way, fetching every output: after a launch the fast
 * way found wrong, for the report element for element (judge.c). */
static void runFetched(const Ctx *c, Buffers *b, const Group *g,
                       const Run *r, const char *where, Outcome *o)
{
    hx_guard_report guards, again;
    lockGpu(HX_LOCK_SHARED);
    hx_guarded_resize(&b->out, r->n);
    hx_guarded_poison(&b->out);
    launchAndWait(c, b, r->n, r->blocks, r->block, where);
    guardsOf(b, &guards);
    hx_guarded_fetch_output(&b->out, b->hGot);
    if (r->launches > 1) {
        hx_guarded_poison(&b->out);
        launchAndWait(c, b, r->n, r->blocks, r->block, where);
        guardsOf(b, &again);
        o->disagree = !sameGuards(&guards, &again) ||
                      outputDiffers(b, b->hGot, r->n);
    }
    unlockGpu();
    judgeRun(b->hIn, b->hRef, b->hGot, r->n, g->a, g->ab, &guards, &o->v);
}

/* ------------------------------------------------------------------ */
/* Reports: one line a run (student mode) or one event (grade mode).   */

static void eventStart(long long k, const Run *r)
{
    char label[160];
    describeRun(label, sizeof label, r);
    fprintf(g_ev.f, "{\"event\":\"start\",\"run\":%lld,\"label\":", k);
    jsonString(g_ev.f, label);
    fprintf(g_ev.f, ",\"n\":%zu,\"mix\":\"%s\",\"blocks\":%u,\"block\":%u,"
            "\"launches\":%d", r->n, hx_mix_name(r->mix), r->blocks,
            r->block, r->launches);
    eventDone();
}

static void eventResult(long long k, const Outcome *o)
{
    FILE *f = g_ev.f;
    const hx_split_report *r = &o->v.r;
    const hx_guard_report *g = &r->guard;
    fprintf(f, "{\"event\":\"result\",\"run\":%lld,\"status\":\"%s\","
            "\"detail\":\"%s\"", k, o->status, hx_split_kind_name(r->kind));
    fprintf(f, ",\"want_b1\":%zu,\"want_b2\":%zu,\"found_b1\":%zu,"
            "\"found_b2\":%zu,\"b1_ok\":%s,\"b2_ok\":%s", r->want_b1,
            r->want_b2, r->found_b1, r->found_b2,
            r->b1_ok ? "true" : "false", r->b2_ok ? "true" : "false");
    if (r->cmp.bad)
        fprintf(f, ",\"first_bad\":%zu,\"got\":%d,\"want\":%d", r->cmp.first,
                r->cmp.got, r->cmp.want);
    else
        fprintf(f, ",\"first_bad\":-1,\"got\":null,\"want\":null");
    fprintf(f, ",\"bad\":%zu,\"unwritten\":%zu,\"order_errors\":%zu",
            r->cmp.bad, r->cmp.unwritten, r->order_errors);
    fprintf(f, ",\"guard_before\":%zu,\"guard_after\":%zu", g->before,
            g->after);
    if (g->before)
        fprintf(f, ",\"guard_first_offset\":%lld", g->first_before);
    else if (g->after)
        fprintf(f, ",\"guard_first_offset\":%lld", g->first_after);
    else
        fprintf(f, ",\"guard_first_offset\":null");
    fprintf(f, ",\"disagree_run\":%d,\"group\":", o->disagree ? 1 : -1);
    if (!strcmp(o->status, "unwritten") && o->v.group[0])
        jsonString(f, o->v.group);
    else
        fputs("null", f);
    eventDone();
}

typedef struct {
    int runs, passed;
    int fullShown;          /* the first failure's report is printed */
    const char *firstFail;  /* the first failing run's status */
} Tally;

static void printRun(const Run *run, const Outcome *o, Tally *t)
{
    char where[160], bounds[256], tag[96];
    const hx_split_report *r = &o->v.r;
    describeRun(where, sizeof where, run);
    hx_split_brief(bounds, sizeof bounds, r);
    if (!strcmp(o->status, "pass")) {
        printf("  PASS  %-40s %s\n", where, bounds);
        return;
    }
    if (o->disagree)
        snprintf(tag, sizeof tag, "nondeterministic: the second launch "
                 "differs; the first: %s", o->v.status);
    else if (o->v.group[0] && !r->nothing_written)
        snprintf(tag, sizeof tag, "unwritten: %s never written", o->v.group);
    else
        snprintf(tag, sizeof tag, "%s", hx_split_kind_name(r->kind));
    printf("  FAIL  %-40s [%s] %s\n", where, tag, bounds);
    if (!t->fullShown) {
        t->fullShown = 1;
        printf("\n  The first failure in full:\n");
        if (o->disagree)
            printf("(the first launch's report; the second launch's output "
                   "differed from it)\n");
        hx_split_print(where, r, stdout);
        if (o->disagree)
            printf("A second launch on a freshly poisoned output gave a "
                   "different output or different writes outside it: the "
                   "kernel's result changes from launch to launch (a race, "
                   "or state kept between launches).\n");
        printf("\n");
    }
}

/* ------------------------------------------------------------------ */
/* The plan in batches: submitted at once, waited for once.            */

typedef struct {
    Group g;               /* the group's boundaries (g.valid unused) */
    int first, end;        /* its runs: plan runs [first, end) */
    int staged;            /* its input and sealed reference are in the
                              stage at stageAt; else uploaded directly */
    size_t stageAt;
} BatchGroup;

typedef struct {
    BatchGroup group[BATCH_GROUPS];
    int groups;
    int slotRun[BATCH_SLOTS];   /* the plan run of each launch slot */
    int slots;
    size_t staged;              /* ints of the stage in use */
    int refused;                /* the run whose launch was refused (the
                                   batch ends before it), or -1 */
    CUresult refusedWith;
} Batch;

/* The batch in flight, for the fault paths and the watchdog (t NULL:
 * none). Everything here, and the events written while a batch is in
 * flight, is under g_flightLock: the watchdog thread reads it too. */
static struct {
    const Ctx *c;
    Buffers *b;
    const Plan *p;
    const Batch *t;
    int arrived;        /* slots arrived so far, in order */
    int queued;         /* slots queued so far (the launch before each
                           is on the GPU's queue) */
    double last;        /* when the last of them arrived (or the batch
                           began) */
} g_flight;
static pthread_mutex_t g_flightLock = PTHREAD_MUTEX_INITIALIZER;

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

/* The plan run the first launch slot of the batch in flight that has not
 * arrived belongs to: the run under way; -1 when every slot arrived. */
static int flightUnderWay(void)
{
    const Batch *t = g_flight.t;
    const volatile OutputScan *slot = g_flight.b->pinned->scan;
    for (int s = 0; s < t->slots; ++s)
        if (!slot[s].done)
            return t->slotRun[s];
    return -1;
}

/* Reports the runs of the batch in flight before run stop, in order,
 * while every launch of each arrived clean and its group's ranks were
 * right (grade mode: their results; student mode: their PASS lines): a
 * fault or a stop later in the batch leaves them reported as they would
 * have been one run at a time. A group's rank check is copied to the host
 * before its first launch, so it has arrived once that launch's slot
 * has. */
static void flightReportArrived(int stop)
{
    const Batch *t = g_flight.t;
    const Plan *p = g_flight.p;
    const volatile OutputScan *slot = g_flight.b->pinned->scan;
    Tally tally;
    memset(&tally, 0, sizeof tally);
    int s = 0;
    for (int gi = 0; gi < t->groups; ++gi) {
        const BatchGroup *bg = &t->group[gi];
        for (int k = bg->first; k < bg->end; ++k) {
            const Run *r = &p->run[k];
            if (k == stop || s + r->launches > t->slots)
                return;
            for (int l = 0; l < r->launches; ++l) {
                const OutputScan got = *(const OutputScan *)&slot[s + l];
                if (!got.done || !scanClean(&got))
                    return;
            }
            if (ranksWrong(&g_flight.b->pinned->rank[gi], &bg->g))
                return;
            s += r->launches;
            Outcome o;
            passOutcome(r, &bg->g, &o);
            if (g_ev.f)
                eventResult(k, &o);
            else
                printRun(r, &o, &tally);
        }
    }
}

/* A CUDA error while the batch in flight ran: when it is the context's
 * (a fault: every later call returns it), it is the run under way's, so
 * report the runs before it and the fault as that run's; returns 1. Any
 * other error: 0 (the caller reports it as the driver's). exiting: the
 * process exits whatever this returns, so the batch stops being in
 * flight here, under the lock: from then on the watchdog writes no event
 * that could interleave with the exit's, and reads no slot of the
 * page-locked memory that the runtime's exit handlers free. */
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
    g_flight.t = NULL;   /* reported once, whichever exit path follows */
    g_ev.run = k;
    g_run = &g_flight.p->run[k];
    char where[160];
    describeRun(where, sizeof where, g_run);
    studentFaultReport("scatterThreeWay", cudaGetErrorName(e),
                       cudaGetErrorString(e), where);
    pthread_mutex_unlock(&g_flightLock);
    return 1;
}

/* With g_flightLock held: notes the slots arrived since the last look,
 * and stops the process (timedOut, exit 6) when the run under way has had
 * no slot arrive for its launch limit, after reporting the runs before
 * it. */
static void flightWatch(void)
{
    const Batch *t = g_flight.t;
    if (!t)
        return;
    const volatile OutputScan *slot = g_flight.b->pinned->scan;
    const double now = hx_now_seconds();
    while (g_flight.arrived < t->slots && slot[g_flight.arrived].done) {
        ++g_flight.arrived;
        g_flight.last = now;
    }
    /* Every launch queued so far has ended: the GPU waits on the host
     * (it is still queueing), so no launch's clock runs. */
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
    describeRun(where, sizeof where, r);
    timedOut(where, limit);
}

/* The watchdog thread: while the main thread queues a batch, a queue
 * filled by a kernel that never ends can block it inside a CUDA call, so
 * the batch's limits are watched from here too. */
static void *flightWatchdog(void *unused)
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

/* Starts the watchdog thread once; without it (it could not start) the
 * main thread's polls in batchWait still watch the limits, only not
 * while it is blocked queueing. */
static void flightWatchdogStart(void)
{
    static int started;
    if (started)
        return;
    started = 1;
    pthread_t thread;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);   /* signals stay the main's */
    if (pthread_create(&thread, NULL, flightWatchdog, NULL) == 0)
        pthread_detach(thread);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The runs of the group that starts at plan run k end at the returned
 * index; *launches gets their launches. */
static int groupEnd(const Plan *p, int k, int *launches)
{
    int end = k;
    *launches = 0;
    while (end < p->count && p->run[end].n == p->run[k].n &&
           p->run[end].mix == p->run[k].mix)
        *launches += p->run[end++].launches;
    return end;
}

/* Fills batch t with the groups from plan run k on: made on the host
 * (groupHost) and staged, as many as fit (a group too large for the
 * stage goes alone, last made, so that b->hIn and b->hRef hold it). g is
 * left describing the last group made. Returns the plan run after it. */
static int batchFill(Buffers *b, const Plan *p, int k, uint64_t seed,
                     Batch *t, Group *g)
{
    memset(t, 0, sizeof *t);
    int *stage = b->pinned->stage;
    while (k < p->count) {
        int launches;
        const int end = groupEnd(p, k, &launches);
        const size_t n = p->run[k].n;
        const int fits = 2 * n <= STAGE_INTS;
        if (t->groups && (!fits || t->staged + 2 * n > STAGE_INTS ||
                          t->slots + launches > BATCH_SLOTS ||
                          t->groups == BATCH_GROUPS))
            break;
        const double t0 = hx_now_seconds();
        groupHost(b, g, n, p->run[k].mix, seed);
        BatchGroup *bg = &t->group[t->groups++];
        bg->g = *g;
        bg->first = k;
        bg->end = end;
        bg->staged = fits;
        if (fits) {
            bg->stageAt = t->staged;
            int *at = stage + t->staged;
            memcpy(at, b->hIn, n * sizeof(int));
            memcpy(at + n, b->hRef, n * sizeof(int));
            t->staged += 2 * n;
        }
        for (int r = k; r < end; ++r)
            for (int l = 0; l < p->run[r].launches; ++l)
                t->slotRun[t->slots++] = r;
        profAdd(PROF_INPUTS, t0);
        k = end;
        if (!fits)
            break;
    }
    return k;
}

/* Waits for the batch in flight, polling: the launches' slots arrive on
 * the host in order, so the first one missing names the run under way. A
 * fault is that run's; so is a stop when no slot has arrived for that
 * run's launch limit. */
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
            /* Not the context's error, or every launch's checks arrived
             * (the student's kernels all ended): the driver's. */
            hx_cuda_check(e, "cudaEventQuery (the batch's end)", __FILE__,
                          __LINE__);
        }
        pthread_mutex_lock(&g_flightLock);
        flightWatch();
        pthread_mutex_unlock(&g_flightLock);
        pollPause(&polls);
    }
    (void)cudaGetLastError();   /* cudaErrorNotReady is not an error */
}

/* Submits batch t under the shared lock and waits for it: per group its
 * upload and ranks; per run a "start" event (grade mode) and its
 * launches, each on a freshly poisoned output and followed by the
 * device's checks (enqueueScan) into the launch's slot. */
static void batchRun(const Ctx *c, Buffers *b, const Plan *p, Batch *t)
{
    const double t0 = hx_now_seconds();
    lockGpu(HX_LOCK_SHARED);
    for (int s = 0; s < t->slots; ++s)
        b->pinned->scan[s].done = 0;
    t->refused = -1;
    flightWatchdogStart();
    pthread_mutex_lock(&g_flightLock);
    g_flight.c = c;
    g_flight.b = b;
    g_flight.p = p;
    g_flight.t = t;
    g_flight.arrived = 0;
    g_flight.queued = 0;
    g_flight.last = hx_now_seconds();
    pthread_mutex_unlock(&g_flightLock);
    g_flightFault = flightFault;
    int slot = 0;
    for (int gi = 0; gi < t->groups && t->refused < 0; ++gi) {
        const BatchGroup *bg = &t->group[gi];
        groupEnqueue(b, &bg->g,
                     bg->staged ? b->pinned->stage + bg->stageAt : NULL, gi);
        for (int k = bg->first; k < bg->end && t->refused < 0; ++k) {
            const Run *r = &p->run[k];
            if (g_ev.f) {
                pthread_mutex_lock(&g_flightLock);
                eventStart(k, r);
                pthread_mutex_unlock(&g_flightLock);
            }
            hx_guarded_resize(&b->out, r->n);
            for (int l = 0; l < r->launches; ++l) {
                hx_guarded_poison(&b->out);
                const CUresult rc = launchTry(c, b, r->n, r->blocks,
                                              r->block);
                if (rc != CUDA_SUCCESS) {
                    /* A fault of an earlier launch surfacing here is
                     * that run's (flightFault); a refusal is this run's,
                     * reported after the runs before it (runPlan). */
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
                /* Queued: its clock runs from here, even if the main
                 * thread now blocks in a full queue (enqueueScan). */
                pthread_mutex_lock(&g_flightLock);
                g_flight.queued = slot + 1;
                pthread_mutex_unlock(&g_flightLock);
                enqueueScan(b, b->sealed, 0, slot++);
            }
        }
    }
    batchWait(b);
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

/* The outcome of plan run k of batch t from its slots (from slot s on);
 * a first launch found wrong is run again the slow way (runFetched) on
 * its group, made and uploaded again, for its full report. g is left
 * describing the group on the host. */
static void batchOutcome(const Ctx *c, Buffers *b, const Plan *p,
                         const BatchGroup *bg, int k, int s, uint64_t seed,
                         Group *g, Outcome *o)
{
    const Run *r = &p->run[k];
    const OutputScan *slot = b->pinned->scan + s;
    memset(o, 0, sizeof *o);
    if (scanClean(&slot[0])) {
        passOutcome(r, &bg->g, o);
        for (int l = 1; l < r->launches; ++l)
            o->disagree |= !scanClean(&slot[l]);
    } else {
        const double t0 = hx_now_seconds();
        char where[160];
        describeRun(where, sizeof where, r);
        groupHost(b, g, r->n, r->mix, seed);
        lockGpu(HX_LOCK_SHARED);
        groupDevice(b, g);
        unlockGpu();
        g_ev.run = k;
        g_run = r;
        runFetched(c, b, g, r, where, o);
        g_ev.run = -1;
        g_run = NULL;
        /* The first launch was wrong: launches that are all right now
         * disagree with it. */
        if (!strcmp(o->v.status, "pass"))
            o->disagree = 1;
        profAdd(PROF_SLOW, t0);
    }
    o->status = o->disagree ? "nondeterministic" : o->v.status;
}

/* Runs the plan in batches, counting into *t: every run in student mode;
 * in grade mode up to the first failing run, whose status is the verdict
 * (what follows it would cost host time, a large size's report most of
 * all, and change nothing). g is left describing the last group made on
 * the host. */
static void runPlan(const Ctx *c, Buffers *b, const Plan *p, uint64_t seed,
                    Group *g, Tally *t)
{
    static Batch batch;
    memset(g, 0, sizeof *g);
    for (int k = 0; k < p->count;) {
        const int next = batchFill(b, p, k, seed, &batch, g);
        batchRun(c, b, p, &batch);
        int slot = 0;
        for (int gi = 0; gi < batch.groups; ++gi) {
            const BatchGroup *bg = &batch.group[gi];
            for (int r = bg->first; r < bg->end; ++r) {
                if (r == batch.refused) {
                    char where[160];
                    describeRun(where, sizeof where, &p->run[r]);
                    g_ev.run = r;
                    g_run = &p->run[r];
                    launchRefused(c, batch.refusedWith, p->run[r].block,
                                  where);
                }
                Outcome o;
                batchOutcome(c, b, p, bg, r, slot, seed, g, &o);
                slot += p->run[r].launches;
                ++t->runs;
                if (!strcmp(o.status, "pass"))
                    ++t->passed;
                else if (!t->firstFail)
                    t->firstFail = o.status;
                if (!g_ev.f) {
                    printRun(&p->run[r], &o, t);
                    continue;
                }
                eventResult(r, &o);
                if (t->firstFail) {
                    fflush(stdout);
                    return;
                }
            }
        }
        k = next;
    }
    fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Timing (student mode): every row checked once, then timed, the rows  */
/* interleaved run by run (hx_time_set).                                */

typedef struct {
    const Ctx *c;
    Buffers *b;
    size_t n;
} Work;

static void workMemcpy(void *ctx)
{
    Work *w = (Work *)ctx;
    HX_CHECK(cudaMemcpyAsync(w->b->out.data, w->b->in, w->n * sizeof(int),
                             cudaMemcpyDeviceToDevice, 0));
}

static void workCopy(void *ctx)
{
    Work *w = (Work *)ctx;
    copyInts<<<hx_grid_for(w->b->dev, w->n, BLOCK), BLOCK>>>(
        w->b->in, w->b->out.data, w->n);
    HX_CHECK_LAUNCH("copyInts");
}

static void workPartition(void *ctx)
{
    Work *w = (Work *)ctx;
    Buffers *b = w->b;
    const unsigned grid = hx_grid_for(b->dev, w->n, BLOCK);
    markNegative<<<grid, BLOCK>>>(b->in, b->negRank, w->n);
    HX_CHECK_LAUNCH("markNegative");
    scanExclusive(scanFor(b, w->n), b->negRank, b->totals + 0, 0);
    scatterTwoWay<<<grid, BLOCK>>>(b->in, b->negRank, b->out.data, w->n,
                                   b->totals + 0);
    HX_CHECK_LAUNCH("scatterTwoWay");
}

static void workScatter(void *ctx)
{
    Work *w = (Work *)ctx;
    launchChecked(w->c, w->b, w->n, hx_grid_for(w->b->dev, w->n, BLOCK), BLOCK,
                  "the timing");
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
    hx_guarded_poison(&b->out);
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

enum { ROW_MEMCPY, ROW_COPY, ROW_PARTITION, ROW_SPLIT, ROW_SCATTER, ROWS };

static int studentTiming(const Ctx *c, Buffers *b, const hx_device *dev,
                         Group *g, const hx_opts *o)
{
    const size_t n = g->n;
    Work w = {c, b, n};
    printf("\ntiming: n = %zu ints (%.1f MiB per buffer), mix %s, seed %llu, "
           "median of %d runs after %d warm-ups, the rows interleaved\n", n,
           n * sizeof(int) / 1048576.0, hx_mix_name(g->mix),
           (unsigned long long)o->seed, o->runs, o->warmup);
    hx_warn_if_cached(dev, n * sizeof(int), stdout);
    hx_guarded_resize(&b->out, n);
    groupDevice(b, g);
    /* Each row checked once before anything is timed; the split's rows
     * against the reference split, then the partition's against its own. */
    int bad = checkRow(&w, "cudaMemcpy", workMemcpy, b->hIn) ||
              checkRow(&w, "copyInts", workCopy, b->hIn) ||
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
    const hx_work works[ROWS] = {workMemcpy, workCopy, workPartition,
                                 workSplit, workScatter};
    void *const ctxs[ROWS] = {&w, &w, &w, &w, &w};
    hx_timing t[ROWS];
    signal(SIGALRM, timingAlarm);
    alarm((unsigned)ceil(launchLimit(c, n) * ROWS * (o->warmup + o->runs)));
    hx_time_set(ROWS, works, ctxs, o->warmup, o->runs, t);
    alarm(0);

    /* The floor of a row: the bytes it must move at the bandwidth of the
     * device-to-device memcpy, which moves 2n ints. */
    const double ints2 = 2.0 * n * sizeof(int);
    const double memcpyMs = t[ROW_MEMCPY].median_ms;
    const double floor2 = hx_floor_ms(ints2, ints2, memcpyMs);
    const double copyMs = t[ROW_COPY].median_ms;
    const int scan = scanLaunches(scanFor(b, n));
    char title[160];
    snprintf(title, sizeof title, "the three-way split against a copy and "
             "the two-way partition, n = %zu", n);
    hx_table_begin(stdout, title);
    hx_table_row(stdout, "cudaMemcpy device to device", 1, &t[ROW_MEMCPY],
                 copyMs, floor2);
    hx_table_row(stdout, "copyInts", 1, &t[ROW_COPY], copyMs, floor2);
    hx_table_row(stdout, "two-way partition (v < 0)", 2 + scan,
                 &t[ROW_PARTITION], copyMs, floor2);
    hx_table_row(stdout, "three-way split, whole", 3 + 2 * scan,
                 &t[ROW_SPLIT], copyMs, floor2);
    hx_table_row(stdout, "scatterThreeWay alone", 1, &t[ROW_SCATTER], copyMs,
                 hx_floor_ms(2 * ints2, ints2, memcpyMs));
    hx_table_note(stdout, "x copy: against copyInts; x floor: against the "
                          "bytes the row must move at the memcpy's rate");
    hx_table_note(stdout, "floors: 2n ints (read n, write n); scatter alone "
                          "4n (value, two ranks, output)");
    hx_table_note(stdout, "partition: markNegative + scan + scatterTwoWay");
    hx_table_note(stdout, "split: markNegative + scan + markZero + scan + "
                          "scatterThreeWay");
    hx_table_note(stdout, "alone: your kernel with the ranks already made");
    hx_table_end(stdout);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Timing (grade mode): fair and verified round by round.              */

static int cmpDouble(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The timing of grade mode at g->n (the timing size, already checked as
 * runs of the plan): copyInts, the yardstick, and the whole split (2 marks,
 * 2 scans, scatterThreeWay, normal grid), interleaved round by round after
 * warm-up rounds, the GPU held exclusively, the median of each.
 *
 * Every round's input is the checked input with the non-zero values'
 * bits 20..27 flipped by a random mask, a different one each round
 * (maskInput): the kinds, and so the split's permutation, stay the same,
 * but no output from an earlier launch is right for a later round. Every
 * timed launch's output is checked outside its timed interval, slot for
 * slot: the output is poisoned before the round, and after it
 * checkOutput compares it with the sealed reference, masked as the round's
 * input was, and the guards are scanned. Any difference: status
 * nondeterministic. */
static int gradeTiming(const Ctx *c, Buffers *b, Group *g, const hx_opts *o,
                       int rounds, int warmup)
{
    const size_t n = g->n;
    const int total = warmup + rounds;
    int *mask = (int *)hostAlloc((size_t)total, sizeof *mask, "masks");
    double *copyMs = (double *)hostAlloc((size_t)rounds, sizeof(double), "t");
    double *splitMs = (double *)hostAlloc((size_t)rounds, sizeof(double), "t");
    double *ratio = (double *)hostAlloc((size_t)rounds, sizeof(double), "t");
    hx_rng fallback;
    hx_rng_seed(&fallback, o->seed);
    /* 255 masks: a round's differs from every earlier round's while they
     * last. */
    for (int r = 0; r < total; ++r) {
        int m, seen;
        do {
            m = (int)(1u + (unsigned)(randomWord(&fallback) % 255u)) << 20;
            seen = 0;
            for (int q = 0; q < r; ++q)
                seen |= mask[q] == m;
        } while (seen && r < 255);
        mask[r] = m;
    }

    const unsigned grid = hx_grid_for(b->dev, n, BLOCK);
    cudaEvent_t ev[4];
    for (int k = 0; k < 4; ++k)
        HX_CHECK(cudaEventCreate(&ev[k]));
    Work w = {c, b, n};
    int badRound = -1;

    g_ev.phase = "timing";
    lockGpu(HX_LOCK_SHARED);
    hx_guarded_resize(&b->out, n);
    /* The plan's last group is the timing's (thirds at the timing size):
     * its input and sealed reference are on the device already. A kernel
     * that changed them only fails its own timing's checks. */
    const Group *up = &b->uploaded;
    if (!(up->valid && up->n == n && up->mix == g->mix))
        groupDevice(b, g);
    HX_CHECK(cudaMemcpy(b->pristine, b->in, n * sizeof(int),
                        cudaMemcpyDeviceToDevice));
    unlockGpu();
    lockTiming();
    for (int r = 0; r < total && badRound < 0; ++r) {
        maskInput<<<grid, BLOCK>>>(b->pristine, b->in, n, mask[r]);
        HX_CHECK_LAUNCH("maskInput");
        hx_guarded_poison(&b->out);
        HX_CHECK(cudaEventRecord(ev[0], 0));
        workCopy(&w);
        HX_CHECK(cudaEventRecord(ev[1], 0));
        hx_guarded_poison(&b->out);
        HX_CHECK(cudaEventRecord(ev[2], 0));
        workSplit(&w);
        HX_CHECK(cudaEventRecord(ev[3], 0));
        waitDone(c, b, n, "the timed split", "the timing");
        if (r < warmup)
            continue;
        const int i = r - warmup;
        float ms[2];
        HX_CHECK(cudaEventElapsedTime(&ms[0], ev[0], ev[1]));
        HX_CHECK(cudaEventElapsedTime(&ms[1], ev[2], ev[3]));
        copyMs[i] = ms[0];
        splitMs[i] = ms[1];
        ratio[i] = ms[1] / ms[0];
        enqueueScan(b, b->sealed, mask[r], 0);
        HX_CHECK(cudaStreamSynchronize(0));
        if (!scanClean(&b->pinned->scan[0]))
            badRound = i;
    }
    unlockGpu();
    g_ev.phase = "check";

    FILE *f = g_ev.f;
    fprintf(f, "{\"event\":\"timing\",\"n\":%zu,\"rounds\":%d,\"warmup\":%d",
            n, rounds, warmup);
    if (badRound >= 0) {
        fprintf(f, ",\"copy_ms\":null,\"split_ms\":null,\"x_copy\":null,"
                "\"x_copy_min\":null,\"x_copy_max\":null,"
                "\"status\":\"nondeterministic\",\"bad_round\":%d", badRound);
    } else {
        hx_timing tc, ts;
        hx_timing_from(copyMs, rounds, warmup, &tc);
        hx_timing_from(splitMs, rounds, warmup, &ts);
        qsort(ratio, (size_t)rounds, sizeof *ratio, cmpDouble);
        fprintf(f, ",\"copy_ms\":%.6f,\"split_ms\":%.6f,\"x_copy\":%.6f,"
                "\"x_copy_min\":%.6f,\"x_copy_max\":%.6f,\"status\":\"pass\"",
                tc.median_ms, ts.median_ms, ts.median_ms / tc.median_ms,
                ratio[0], ratio[rounds - 1]);
        printf("timing: split %.4f ms, copy %.4f ms, split %.2fx copy "
               "(median of %d rounds)\n", ts.median_ms, tc.median_ms,
               ts.median_ms / tc.median_ms, rounds);
    }
    eventDone();
    for (int k = 0; k < 4; ++k)
        HX_CHECK(cudaEventDestroy(ev[k]));
    free(mask);
    free(copyMs);
    free(splitMs);
    free(ratio);
    return badRound >= 0;
}

/* ------------------------------------------------------------------ */
/* The command line.                                                   */

typedef struct {
    int grade, time;
    int runsGiven;        /* --runs is on the command line */
    const char *module, *result, *plan, *lock, *runTimeout, *mix, *grid;
    double runTimeoutValue;
    PlanArgs planArgs;
} Args;

/* Takes the driver's own options out of argv (hx_parse_args refuses what
 * it does not know) and compacts argv. Returns HX_EXIT_OK or
 * HX_EXIT_USAGE after one line. */
static int takeArgs(int *argc, char **argv, Args *a)
{
    static const char *const valued[] = {"--module", "--result", "--plan",
                                         "--lock", "--run-timeout", "--mix",
                                         "--grid"};
    const char **slot[] = {&a->module, &a->result, &a->plan, &a->lock,
                           &a->runTimeout, &a->mix, &a->grid};
    const int count = (int)(sizeof valued / sizeof valued[0]);
    int keep = 1;
    for (int i = 1; i < *argc; ++i) {
        const char *s = argv[i];
        if (!strcmp(s, "--grade")) { a->grade = 1; continue; }
        if (!strcmp(s, "--time")) { a->time = 1; continue; }
        if (!strncmp(s, "--runs", 6) && (s[6] == '\0' || s[6] == '='))
            a->runsGiven = 1;    /* hx_parse_args reads its value */
        int taken = 0;
        for (int k = 0; k < count && !taken; ++k) {
            const size_t len = strlen(valued[k]);
            if (strncmp(s, valued[k], len))
                continue;
            if (s[len] == '=') {
                *slot[k] = s + len + 1;
            } else if (s[len] == '\0') {
                if (i + 1 >= *argc) {
                    fprintf(stderr, "%s: %s needs a value (try --help)\n",
                            g_prog, valued[k]);
                    return HX_EXIT_USAGE;
                }
                *slot[k] = argv[++i];
            } else {
                continue;           /* e.g. --modules: not ours */
            }
            taken = 1;
        }
        if (!taken)
            argv[keep++] = argv[i];
    }
    *argc = keep;
    argv[keep] = NULL;
    return HX_EXIT_OK;
}

static int usageError(const char *what, const char *value)
{
    fprintf(stderr, "%s: %s \"%s\" (try --help)\n", g_prog, what, value);
    return HX_EXIT_USAGE;
}

/* Checks and converts the driver's own options, before the GPU is opened,
 * so that bad arguments exit 2 on any machine. */
static int checkArgs(Args *a, const hx_opts *o)
{
    PlanArgs *p = &a->planArgs;
    p->name = a->plan ? a->plan : "full";
    if (strcmp(p->name, "full") && strcmp(p->name, "sanitize"))
        return usageError("--plan wants full or sanitize, not", p->name);
    if (a->mix) {
        int m = 0;
        while (m < (int)HX_MIX_COUNT && strcmp(a->mix, hx_mix_name((hx_mix)m)))
            ++m;
        if (m == (int)HX_MIX_COUNT)
            return usageError("unknown --mix", a->mix);
        p->mixSet = 1;
        p->mix = (hx_mix)m;
    }
    if (a->grid) {
        unsigned long blocks = 0, block = 0;
        char tail = 0;
        if (sscanf(a->grid, "%lux%lu%c", &blocks, &block, &tail) != 2 ||
            !strchr("123456789", a->grid[0]) || blocks < 1 ||
            blocks > 2147483647ul || block < 1 || block > 1024)
            return usageError("--grid wants BLOCKSxTHREADS (1 to 2^31-1 "
                              "blocks of 1 to 1024 threads), not", a->grid);
        p->gridSet = 1;
        p->blocks = (unsigned)blocks;
        p->block = (unsigned)block;
    }
    a->runTimeoutValue = RUN_TIMEOUT_S;
    if (a->runTimeout) {
        char *end = NULL;
        const double v = strtod(a->runTimeout, &end);
        if (!end || *end || !(v > 0.0) || v > 86400.0 ||
            !strchr("0123456789.", a->runTimeout[0]))
            return usageError("--run-timeout wants seconds above 0, not",
                              a->runTimeout);
        a->runTimeoutValue = v;
    }
    if (a->grade) {
        if (!a->module || !a->result) {
            fprintf(stderr, "%s: --grade needs --module FILE and --result "
                    "FILE (try --help)\n", g_prog);
            return HX_EXIT_USAGE;
        }
        if (o->n_set || a->mix || a->grid || o->check) {
            fprintf(stderr, "%s: --n, --mix, --grid and --check do not go "
                    "with --grade: the plan comes from --seed (try --help)\n",
                    g_prog);
            return HX_EXIT_USAGE;
        }
    } else if (a->result || a->lock || a->time) {
        fprintf(stderr, "%s: --result, --lock and --time go with --grade "
                "(try --help)\n", g_prog);
        return HX_EXIT_USAGE;
    }
    return HX_EXIT_OK;
}

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
        "Checks scatterThreeWay, the kernel of the day 33 exercise, compiled "
        "from\nthreeway.cu to a device module (make writes "
        "build/threeway.fatbin), on every\nrun of a plan drawn from the "
        "seed: sizes from 0 to past the L2, every input\nmix, a normal, a "
        "small and a drawn grid. Prints a line a run and PASS or\nFAIL "
        "(exit 0 or 1); without --check it then times the split against "
        "a\ncopy and the two-way partition, and prints the wall time.\n"
        "\n"
        "  --module FILE    the module to load (default: build/threeway."
        "fatbin or\n"
        "                   .cubin next to this program)\n"
        "  --mix NAME       that input mix only, at every size:\n"
        "                   %s\n"
        "  --grid BxT       that grid only: B blocks of T threads (e.g. "
        "3x64)\n"
        "  --plan NAME      full (default) or sanitize (a handful of small "
        "runs,\n"
        "                   for compute-sanitizer)\n"
        "  --run-timeout S  stop a launch that runs longer than S seconds "
        "per 2^24\n"
        "                   elements (default %g) and exit 6\n"
        "\n"
        "Grade mode (the grading tool's; driver.cu's opening comment has "
        "the contract):\n"
        "  --grade --module FILE --result FILE [--seed S] [--plan "
        "full|sanitize]\n"
        "  [--time] [--lock FILE] [--run-timeout S] [--runs R] [--warmup "
        "W]\n"
        "  writes one JSON event a line to FILE; nothing on stdout is "
        "trusted.",
        mixes, RUN_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */
/* main: the steps of one process, student mode or grade mode.          */

static void printHeader(const hx_device *dev, const Module *m, const Plan *p,
                        uint64_t seed)
{
    printf("threeway: the day 33 exercise, a stable three-way split "
           "(negatives | zeros | positives)\n");
    hx_device_print(dev, stdout);
    printf("module: %s: scatterThreeWay found (up to %d threads a block)\n",
           m->path, m->maxThreads);
    printf("plan: %s, seed %llu: %d runs over %d sizes up to %zu; the "
           "normal grid (%u threads a block) launched twice, the small grid "
           "(%u x %u) and grids drawn from the seed\n\n", p->name,
           (unsigned long long)seed, p->count, p->sizes, p->maxN, BLOCK,
           SMALL_GRID, SMALL_BLOCK);
}

/* Says why a module is not usable: the grade-mode event, or one line. */
static int reportModule(const Module *m, const hx_device *dev)
{
    if (g_ev.f) {
        fprintf(g_ev.f, "{\"event\":\"module\",\"status\":");
        if (m->status == MODULE_OK) {
            fprintf(g_ev.f, "\"ok\"");
        } else if (m->status == MODULE_LOAD_ERROR) {
            fprintf(g_ev.f, "\"load_error\",\"error\":");
            jsonString(g_ev.f, moduleErrorName(m->loadError));
        } else {
            fprintf(g_ev.f, "\"signature\",\"entries\":");
            if (m->entryCount < 0) {
                fputs("null", g_ev.f);
            } else {
                fputc('[', g_ev.f);
                for (int k = 0; k < m->entryCount; ++k) {
                    if (k)
                        fputc(',', g_ev.f);
                    jsonString(g_ev.f, m->entries[k]);
                }
                fputc(']', g_ev.f);
            }
        }
        eventDone();
        return HX_EXIT_OK;
    }
    if (m->status == MODULE_LOAD_ERROR) {
        fprintf(stderr, "%s: the module %s does not load on this GPU "
                "(compute capability %d.%d): %s: %s; rebuild it for this GPU "
                "(make ARCH=%d%d)\n", g_prog, m->path, dev->major, dev->minor,
                moduleErrorName(m->loadError), moduleErrorText(m->loadError),
                dev->major, dev->minor);
        return HX_EXIT_CUDA;
    }
    if (m->status == MODULE_SIGNATURE) {
        printf("%s: the module %s has no kernel scatterThreeWay with the "
               "fixed signature\n  (const int*, const int*, const int*, int*, "
               "size_t, const int*, const int*); ", g_prog, m->path);
        if (m->entryCount < 0)
            printf("this driver cannot list the kernels it has\n");
        else if (m->entryCount == 0)
            printf("it has no kernel at all\n");
        else
            printf("its kernels (mangled):\n");
        for (int k = 0; k < m->entryCount; ++k)
            printf("    %s\n", m->entries[k]);
        printf("FAIL: signature\n");
        return HX_EXIT_FAIL;
    }
    return HX_EXIT_OK;
}

static void eventBegin(const Plan *p, const hx_device *dev, uint64_t seed)
{
    FILE *f = g_ev.f;
    fprintf(f, "{\"event\":\"begin\",\"seed\":%llu,\"plan\":\"%s\","
            "\"runs\":%d,\"gpu\":", (unsigned long long)seed, p->name,
            p->count);
    jsonString(f, dev->name);
    fprintf(f, ",\"cc\":\"%d.%d\",\"sms\":%d,\"l2_bytes\":%zu,\"driver\":%d,"
            "\"runtime\":%d", dev->major, dev->minor, dev->sms,
            dev->l2_bytes, dev->driver_version, dev->runtime_version);
    eventDone();
}

static void eventEnd(const char *status, const Plan *p, int passed)
{
    if (!g_ev.f)
        return;
    fprintf(g_ev.f, "{\"event\":\"end\",\"status\":\"%s\",\"runs\":%d,"
            "\"passed\":%d", status, p->count, passed);
    eventDone();
    g_ev.terminal = 1;
}

/* The timing size: the smallest n whose one buffer is at least four times
 * the L2, and at least 2^24 ints. */
static size_t timingSize(const hx_device *dev)
{
    const size_t lo = (size_t)1 << 24;
    const size_t fourL2 = dev->l2_bytes;   /* ints: 4 bytes each */
    return fourL2 > lo ? fourL2 : lo;
}

/* Frees everything and resets the device, holding the lock shared so
 * that no timing elsewhere sees a teardown. */
static void teardown(Buffers *b, Module *m)
{
    lockGpu(HX_LOCK_SHARED);
    buffersFree(b);
    HX_CHECK(cudaDeviceReset());
    unlockGpu();
    hx_gpu_lock_close(&g_lock);
    moduleFree(m);
}

/* Everything one process holds. */
typedef struct {
    double t0, checked;   /* when it started, when the checks ended */
    Args a;
    hx_opts o;
    Module m;
    hx_device dev;
    Plan plan;
    size_t timeN;         /* the timing's size */
    Buffers b;
    Group g;              /* the input on the host */
    Ctx c;                /* what a run needs: the module, its limit */
    Tally t;
} Session;

/* Step 1: the arguments, the module file, the result file and the lock:
 * exit 2 on any machine when one is wrong. */
static int openFiles(Session *s, int argc, char **argv)
{
    int rc = takeArgs(&argc, argv, &s->a);
    if (rc != HX_EXIT_OK)
        return rc;
    char usage[2048];
    buildUsage(usage, sizeof usage);
    rc = hx_parse_args(argc, argv, &s->o, 0, g_prog, usage);
    if (rc != HX_EXIT_OK || s->o.help)
        return rc;
    if ((rc = checkArgs(&s->a, &s->o)) != HX_EXIT_OK)
        return rc;
    if ((rc = moduleRead(&s->m, s->a.module ? s->a.module
                                             : moduleDefaultPath(),
                         g_prog)) != HX_EXIT_OK)
        return rc;
    if (s->a.grade) {
        g_ev.f = fopen(s->a.result, "w");
        if (!g_ev.f) {
            fprintf(stderr, "%s: cannot write the result file %s: %s\n",
                    g_prog, s->a.result, strerror(errno));
            return HX_EXIT_USAGE;
        }
    }
    if (hx_gpu_lock_open(&g_lock, s->a.lock)) {
        fprintf(stderr, "%s: cannot open the GPU lock %s: %s\n", g_prog,
                s->a.lock, strerror(errno));
        g_ev.terminal = 1;
        return HX_EXIT_USAGE;
    }
    return HX_EXIT_OK;
}

/* Step 2, holding the lock shared (context creation must never land
 * inside someone's timing): the device, the driver API, the module, the
 * plan, and in grade mode the begin and module events. Returns with the
 * lock held; on an unusable module it stays held until the process ends,
 * so that the context's teardown is inside it too. */
static int openDevice(Session *s)
{
    int rc;
    lockGpu(HX_LOCK_SHARED);
    if ((rc = hx_device_open(&s->dev, g_prog)) != HX_EXIT_OK ||
        (rc = moduleApiOpen(g_prog)) != HX_EXIT_OK) {
        g_ev.terminal = 1;
        return rc;
    }
    /* Registered once the runtime is up: exit handlers run in reverse
     * order, so this one runs while the runtime can still name the error. */
    atexit(faultAtExit);
    /* A kernel's printf reaches stdout, which grade mode ignores: a small
     * buffer bounds what a flood of it costs. */
    if (s->a.grade)
        HX_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, GRADE_PRINTF));
    moduleLoad(&s->m);

    PlanArgs *pa = &s->a.planArgs;
    const int sanitize = !strcmp(pa->name, "sanitize");
    const int timing = !sanitize && (s->a.grade ? s->a.time : !s->o.check);
    s->timeN = s->o.n_set ? s->o.n : timingSize(&s->dev);
    pa->timingN = timing ? s->timeN : 0;
    if (sanitize)
        planSanitize(&s->plan, &s->dev, pa);
    else
        planBuild(&s->plan, &s->dev, s->o.seed, pa,
                  s->o.n_set ? &s->o.n : NULL, s->o.n_set, s->m.maxThreads);

    if (s->a.grade)
        eventBegin(&s->plan, &s->dev, s->o.seed);
    if ((rc = reportModule(&s->m, &s->dev)) != HX_EXIT_OK)
        return rc;
    if (s->m.status != MODULE_OK) {
        eventEnd(s->m.status == MODULE_SIGNATURE ? "signature" : "load_error",
                 &s->plan, 0);
        return HX_EXIT_OK;
    }
    const double t0 = hx_now_seconds();
    buffersAlloc(&s->b, &s->dev, s->plan.maxN, s->a.grade && s->a.time);
    scansFor(&s->b, &s->plan);
    profAdd(PROF_ALLOC, t0);
    return HX_EXIT_OK;
}

/* Step 3: every run of the plan; then, when the timing follows, its
 * input: thirds at the timing size, the plan's last group unless --mix
 * chose another. */
static void runChecks(Session *s)
{
    unlockGpu();
    if (!s->a.grade)
        printHeader(&s->dev, &s->m, &s->plan, s->o.seed);
    s->c.module = &s->m;
    s->c.runTimeout = s->a.runTimeoutValue;
    runPlan(&s->c, &s->b, &s->plan, s->o.seed, &s->g, &s->t);
    s->checked = hx_now_seconds();
    if (s->a.planArgs.timingN && s->t.passed == s->t.runs &&
        !(s->g.valid && s->g.n == s->timeN && s->g.mix == HX_MIX_THIRDS))
        groupHost(&s->b, &s->g, s->timeN, HX_MIX_THIRDS, s->o.seed);
}

/* Step 4 of grade mode: the timing when every run passed, then "end". */
static int gradeFinish(Session *s)
{
    const int allPassed = s->t.passed == s->t.runs;
    int timingBad = 0;
    if (allPassed && s->a.planArgs.timingN) {
        const int rounds = !s->a.runsGiven ? GRADE_ROUNDS
                           : s->o.runs > MIN_ROUNDS ? s->o.runs : MIN_ROUNDS;
        const int warmup = s->o.warmup > GRADE_WARMUP ? s->o.warmup
                                                      : GRADE_WARMUP;
        const double t0 = hx_now_seconds();
        timingBad = gradeTiming(&s->c, &s->b, &s->g, &s->o, rounds, warmup);
        profAdd(PROF_TIMING, t0);
    }
    eventEnd(timingBad ? "nondeterministic"
             : allPassed ? "pass" : s->t.firstFail, &s->plan, s->t.passed);
    teardown(&s->b, &s->m);
    profPrint();
    return HX_EXIT_OK;
}

/* Step 4 of student mode: the summary, the timing when every run passed,
 * the wall time and the last line. */
static int studentFinish(Session *s)
{
    const int allPassed = s->t.passed == s->t.runs;
    const int timeIt = allPassed && s->a.planArgs.timingN;
    int timingBad = 0;
    printf("\n%d of %d runs passed\n", s->t.passed, s->t.runs);
    if (!allPassed)
        printf("(the first failure's report is above; %s --n N --mix M "
               "--grid BxT --check reruns one run)\n", g_prog);
    if (timeIt) {
        lockGpu(HX_LOCK_SHARED);
        timingBad = studentTiming(&s->c, &s->b, &s->dev, &s->g, &s->o);
        unlockGpu();
    }
    teardown(&s->b, &s->m);
    profPrint();
    const double end = hx_now_seconds();
    printf("\nwall time: %.1f s (checks %.1f s", end - s->t0,
           s->checked - s->t0);
    if (timeIt)
        printf(", timing %.1f s", end - s->checked);
    printf(")\n%s\n", allPassed && !timingBad ? "PASS" : "FAIL");
    return allPassed && !timingBad ? HX_EXIT_OK : HX_EXIT_FAIL;
}

int main(int argc, char **argv)
{
    static Session s;
    s.t0 = hx_now_seconds();
    g_prog = argc > 0 && argv[0] ? argv[0] : "threeway";

    int rc = openFiles(&s, argc, argv);
    if (rc != HX_EXIT_OK || s.o.help)
        return rc;
    rc = openDevice(&s);
    if (rc != HX_EXIT_OK || s.m.status != MODULE_OK)
        return rc;
    runChecks(&s);
    return s.a.grade ? gradeFinish(&s) : studentFinish(&s);
}
