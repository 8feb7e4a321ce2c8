/* plan.h: the driver's plan, every run decided before the first one, and
 * the inputs it runs on. Host code only (C11, no CUDA launch), so that the
 * plan prints and is tested on a machine without a GPU (threeway
 * --print-plan, test_plan.c).
 *
 * The plan is ten named tests (the grading tool credits each on its own;
 * harness/GRADING.md has the points). Every run belongs to exactly one
 * test; a test's runs are in increasing size, and runs of one (size, mix)
 * are consecutive (a group: one input, one reference). Everything follows
 * from the seed, the largest size (the timing size, which depends on the
 * GPU's L2), the GPU's SM count (the normal grid) and the most threads a
 * block of the kernel may have: the same four give the same plan, run for
 * run, on any machine. Each test draws from its own stream of the seed, so
 * that a subset of tests (--tests) gives each of them the same runs.
 *
 *   tiny              n = 0, 1, 2 ... 64, every mix at a few of them,
 *                     a normal and a small grid
 *   single_group      one group only and two groups only (every one-
 *                     and two-group mix) from 1 element to 2^22 + 1
 *   block_grid_edges  k*block - 1, k*block, k*block + 1; grid*block - 1,
 *                     0, + 1; the scan's tile edges 2^k - 1, 2^k, 2^k + 1
 *                     (k = 4..20), 2^24 + 1 (a fourth scan level); around
 *                     multiples of the elements a thread handles
 *   every_octave      one even and one odd size drawn in every octave
 *                     [2^k, 2^(k+1)) up to the largest size, mixes drawn
 *   block_shapes      blocks of 1, 7, 33, 100, 255, 1000, 1023 and 1024
 *                     threads at small, middle and large sizes
 *   many_per_thread   two blocks of 100 threads at a large size: a
 *                     thread handles more than 2^16 elements
 *   input_shapes      sorted, reverse sorted, alternating kinds, a lone
 *                     element of a kind at either end, INT_MIN / INT_MAX
 *   large             the largest sizes: thirds at the timing size and at
 *                     the lesson's 8387997, every other mix at a size
 *                     drawn in [2^22, 2^23)
 *   repeatability     runs launched twice (the second on a freshly
 *                     poisoned output must give the same output and the
 *                     same writes outside it); the timing's rounds count
 *                     here too (driver.cu)
 *   memory_safety     the sanitizer's plan (--plan sanitize): under
 *                     compute-sanitizer memcheck, one even and one odd
 *                     size with a small grid, and a few normal runs
 */
#ifndef PLAN_H
#define PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TEST_TINY,
    TEST_SINGLE_GROUP,
    TEST_BLOCK_GRID_EDGES,
    TEST_EVERY_OCTAVE,
    TEST_BLOCK_SHAPES,
    TEST_MANY_PER_THREAD,
    TEST_INPUT_SHAPES,
    TEST_LARGE,
    TEST_REPEATABILITY,
    TEST_MEMORY_SAFETY,
    TEST_COUNT
} plan_test;

/* The inputs of the plan (planFill makes them; the first six are the
 * harness's hx_mix kinds, in its order). */
typedef enum {
    MIX_THIRDS,        /* each slot negative, zero or positive, p = 1/3 */
    MIX_ALL_NEG,
    MIX_ALL_ZERO,
    MIX_ALL_POS,
    MIX_NO_ZEROS,      /* negatives and positives */
    MIX_ENDS,          /* hx_mix's ends: a[0] positive, a[n-1] negative,
                          one zero at n/2, the rest alternating */
    MIX_NO_NEG,        /* zeros and positives */
    MIX_NO_POS,        /* negatives and zeros */
    MIX_SORTED,        /* thirds, sorted ascending */
    MIX_REVERSED,      /* thirds, sorted descending */
    MIX_ALTERNATING,   /* negative, zero, positive, negative, ... */
    MIX_LONE_ENDS,     /* a[0] the only zero, a[n-1] the only negative,
                          every other slot positive */
    MIX_EXTREMES,      /* INT_MIN, -1, 0, 1, INT_MAX at random */
    MIX_COUNT
} plan_mix;

/* Name of a test ("tiny") or a mix ("thirds"); NULL when out of range. */
const char *planTestName(int t);
const char *planMixName(int m);
/* The index of a name, or -1. */
int planTestByName(const char *name);
int planMixByName(const char *name);

/* Makes the input of a (size, mix): a[0..n), from seed alone. Values of
 * every mix but MIX_EXTREMES lie in [-1000000, 1000000]; none is ever
 * HX_POISON or HX_GUARD_WORD. */
void planFill(int *a, size_t n, plan_mix m, uint64_t seed);

/* planFill through a folder of inputs that every driver of a grading run
 * shares (--input-cache; the grading tool makes it, node-local, and
 * removes it): an input of PLAN_CACHE_MIN elements or more is read from
 * DIR/<seed>-<n>-<mix>.in when that file is whole, else made and written
 * there (under a name of its own, then renamed, so that a reader finds a
 * whole file or none). dir NULL or "", a smaller input, a file larger
 * than the process's RLIMIT_FSIZE (never written: it would be killed by
 * SIGXFSZ), or any failure to read or write: planFill alone. Returns 1
 * when the input was read. */
#define PLAN_CACHE_MIN ((size_t)1 << 16)
int planFillCached(int *a, size_t n, plan_mix m, uint64_t seed,
                   const char *dir);

/* A record of a (size, mix) in that folder: DIR/<seed>-<n>-<mix>.<ext>
 * (seed: planInputSeed's; planFillCached's inputs are the records of
 * extension "in", the digests' are beside them). Read: 1 when the
 * file holds exactly bytes bytes, else 0. Write: under a name of this
 * process's, then renamed (a reader finds a whole record or none); any
 * failure leaves no file. dir NULL or "": neither does anything. */
int planRecordRead(const char *dir, uint64_t seed, size_t n, plan_mix m,
                   const char *ext, void *rec, size_t bytes);
void planRecordWrite(const char *dir, uint64_t seed, size_t n, plan_mix m,
                     const char *ext, const void *rec, size_t bytes);

/* Calls fn(ctx, lo, hi, part) on parts ranges (at most PLAN_RANGES_MAX)
 * that cover [0, n) in order, part 0 first; one range when n < alone.
 * Part 0 runs in the caller, every other in a thread of its own (a thread
 * that cannot start leaves its range to the caller); returns when all
 * have ended. For work where each slot is independent of the others. */
#define PLAN_RANGES_MAX 16
void planRanges(size_t n, size_t alone, int parts,
                void (*fn)(void *ctx, size_t lo, size_t hi, int part),
                void *ctx);

/* The seed of the input of a (size, mix): a function of the plan's seed
 * alone, so every machine makes the same input. */
uint64_t planInputSeed(uint64_t seed, size_t n, plan_mix mix);

/* splitmix64's finaliser: a bijection of 64-bit words that mixes every
 * input bit into every output bit. */
uint64_t planMix64(uint64_t x);

typedef struct {
    size_t n;
    plan_mix mix;
    unsigned blocks, block;
    int launches;          /* 2: the second must reproduce the first */
    plan_test test;
} Run;

typedef struct {
    const char *name;      /* "full", "sanitize" */
    Run *run;
    int count, cap;
    size_t maxN;
    int sizes;             /* distinct sizes */
    int testRuns[TEST_COUNT];
} Plan;

/* What the plan depends on, besides the seed. */
typedef struct {
    const char *name;      /* "full" or "sanitize" */
    size_t largest;        /* the largest size (the timing size) */
    int sms;               /* the GPU's multiprocessors (the normal grid) */
    int maxThreads;        /* the most threads a block of the kernel may
                              have (1..1024): block sizes above it are
                              drawn down to it */
    int mixSet;            /* --mix: every run on that mix */
    plan_mix mix;
    int gridSet;           /* --grid: every run on that grid */
    unsigned blocks, block;
    const size_t *sizes;   /* --n: these sizes only, each on the normal
                              grid (launched twice), the small grid and a
                              drawn one (with --grid that one run), in the
                              test every_octave (memory_safety with the
                              sanitizer's plan); NULL: the named tests */
    int nsizes;
} PlanArgs;

/* Outside many_per_thread (and a grid given by --grid), no run gives a
 * thread more than this many elements: a kernel that walks its elements
 * one after another, as a grid-stride loop does, takes about a memory
 * latency an element, and a grid of a few threads at millions of
 * elements took most of the plan's GPU time. */
#define PLAN_PER_THREAD_MAX ((size_t)1 << 12)

/* Threads a block of the normal grid. */
#define PLAN_BLOCK 256u

/* The normal grid of n elements at block threads: hx_grid_for's. */
unsigned planGrid(int sms, size_t n, unsigned block);

/* Builds the plan (exits with HX_EXIT_NOMEM after one line when the host
 * has no memory for it). The full plan holds every test but
 * memory_safety; the sanitizer's holds memory_safety alone. */
void planBuild(Plan *p, uint64_t seed, const PlanArgs *a);
void planFree(Plan *p);

/* Parses "a,b,c" into mask (bit t for test t). Returns 0, or -1 after one
 * line on stderr naming the unknown test. */
int planParseTests(const char *list, unsigned *mask, const char *prog);

/* One line a run: "run test n mix blocks block launches", after a header
 * line (threeway --print-plan). */
void planPrint(const Plan *p, FILE *f);

/* "n=257 mix=thirds grid=3x64 test=tiny" */
void planDescribe(char *buf, size_t len, const Run *r);

#ifdef __cplusplus
}
#endif
#endif
