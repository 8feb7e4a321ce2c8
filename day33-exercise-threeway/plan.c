/* plan.c: the plan and its inputs. Contracts are in plan.h. */
#define _POSIX_C_SOURCE 200809L   /* open, fstat, read, write, rename */
#include "plan.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_input.h"
#include "hx_ref.h"

static const char *const testNames[TEST_COUNT] = {
    "tiny", "single_group", "block_grid_edges", "every_octave",
    "block_shapes", "many_per_thread", "input_shapes", "large",
    "repeatability", "memory_safety"};

static const char *const mixNames[MIX_COUNT] = {
    "thirds", "all-negative", "all-zero", "all-positive", "no-zeros",
    "ends", "no-negatives", "no-positives", "sorted", "reverse-sorted",
    "alternating", "lone-ends", "extremes"};

const char *planTestName(int t)
{
    return t >= 0 && t < TEST_COUNT ? testNames[t] : NULL;
}

const char *planMixName(int m)
{
    return m >= 0 && m < MIX_COUNT ? mixNames[m] : NULL;
}

int planTestByName(const char *name)
{
    for (int t = 0; t < TEST_COUNT; ++t)
        if (!strcmp(name, testNames[t]))
            return t;
    return -1;
}

int planMixByName(const char *name)
{
    for (int m = 0; m < MIX_COUNT; ++m)
        if (!strcmp(name, mixNames[m]))
            return m;
    return -1;
}

uint64_t planMix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t planInputSeed(uint64_t seed, size_t n, plan_mix mix)
{
    return planMix64(seed ^ planMix64((uint64_t)n * 16 + (uint64_t)mix + 1));
}

static int cmpAscending(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmpDescending(const void *a, const void *b)
{
    return cmpAscending(b, a);
}

/* Sorts a[0..n) ascending, or descending, as qsort with cmpAscending or
 * cmpDescending would (ints: equal values are indistinguishable, so any
 * correct sort gives the same array): four passes of an 8-bit radix sort,
 * linear, through a scratch array, the four digits' counts taken in one
 * pass first (256 counters a digit stay in the cache, where 65,536 did
 * not); qsort where n is small or the scratch does not fit (a sorted
 * input of tens of millions of ints takes qsort seconds). */
static void sortInts(int *a, size_t n, int descending)
{
    int *tmp = n < ((size_t)1 << 16) ? NULL : (int *)malloc(n * sizeof *a);
    if (!tmp) {
        qsort(a, n, sizeof *a, descending ? cmpDescending : cmpAscending);
        return;
    }
    /* The key: the value with its sign bit flipped, so that unsigned
     * order is signed order; descending takes its complement. */
    const uint32_t flip = descending ? 0x7fffffffu : 0x80000000u;
    size_t count[4][256];   /* 8 KiB */
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t key = (uint32_t)a[i] ^ flip;
        ++count[0][key & 0xffu];
        ++count[1][key >> 8 & 0xffu];
        ++count[2][key >> 16 & 0xffu];
        ++count[3][key >> 24];
    }
    for (int d = 0; d < 4; ++d) {
        size_t at = 0;
        for (int v = 0; v < 256; ++v) {
            const size_t c = count[d][v];
            count[d][v] = at;
            at += c;
        }
    }
    int *src = a, *dst = tmp;
    for (int pass = 0; pass < 4; ++pass) {
        const int shift = 8 * pass;
        size_t *at = count[pass];
        for (size_t i = 0; i < n; ++i) {
            const uint32_t key = (uint32_t)src[i] ^ flip;
            dst[at[key >> shift & 0xffu]++] = src[i];
        }
        int *t = src;
        src = dst;
        dst = t;
    }
    /* Four passes: the result is back in a. */
    free(tmp);
}

/* The value of slot i of a stream: counter-based (a function of seed
 * and i alone), so a slot costs a few multiplications and no state. */
static uint64_t slotWord(uint64_t seed, size_t i)
{
    return planMix64(seed + ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull);
}

/* A magnitude in [1, 1000000] and a draw below k from one word. */
static int magnitude(uint64_t x)
{
    return 1 + (int)(((x & 0xffffffffull) * 1000000ull) >> 32);
}

static unsigned below(uint64_t x, unsigned k)
{
    return (unsigned)(((x >> 32) * k) >> 32);
}

/* Slots [lo, hi) of the input of n elements. */
static void fillRange(int *a, size_t lo, size_t hi, size_t n, plan_mix m,
                      uint64_t seed)
{
    static const int extremes[5] = {INT_MIN, -1, 0, 1, INT_MAX};
    /* The mixes of unpredictable signs, the most of the plan's elements,
     * have loops of their own in which the sign is arithmetic, not a
     * branch (a branch mispredicted every other element costs more than
     * the rest of the loop): v = mag * s, s one of -1, 0, 1. */
    if (m == MIX_THIRDS || m == MIX_SORTED || m == MIX_REVERSED) {
        for (size_t i = lo; i < hi; ++i) {
            const uint64_t x = slotWord(seed, i);
            const unsigned k = below(x, 3);
            a[i] = magnitude(x) * ((int)(k == 2) - (int)(k == 0));
        }
        return;
    }
    if (m == MIX_NO_ZEROS || m == MIX_NO_NEG || m == MIX_NO_POS) {
        /* below(x, 2) == 1 gives the kind `one`, 0 the kind `zero`: no
         * zeros, positive or negative; no negatives, positive or zero; no
         * positives, negative or zero. */
        const int one = m == MIX_NO_POS ? -1 : 1;
        const int zero = m == MIX_NO_ZEROS ? -1 : 0;
        for (size_t i = lo; i < hi; ++i) {
            const uint64_t x = slotWord(seed, i);
            const int b = (int)below(x, 2);
            a[i] = magnitude(x) * (zero + b * (one - zero));
        }
        return;
    }
    for (size_t i = lo; i < hi; ++i) {
        const uint64_t x = slotWord(seed, i);
        const int mag = magnitude(x);
        int v;
        switch (m) {   /* the mixes above never come here */
        case MIX_ALL_NEG: v = -mag; break;
        case MIX_ALL_ZERO: v = 0; break;
        case MIX_ALL_POS: v = mag; break;
        case MIX_ENDS:
            v = i == 0 ? mag
                : i == n - 1 ? -mag
                : n >= 3 && i == n / 2 ? 0
                : i % 2 == 0 ? mag : -mag;
            break;
        case MIX_ALTERNATING:
            v = i % 3 == 0 ? -mag : i % 3 == 1 ? 0 : mag;
            break;
        case MIX_LONE_ENDS:
            v = i == 0 ? 0 : i == n - 1 ? -mag : mag;
            break;
        case MIX_EXTREMES:
        default: v = extremes[below(x, 5)]; break;
        }
        a[i] = v;
    }
}

typedef struct {
    void (*fn)(void *ctx, size_t lo, size_t hi, int part);
    void *ctx;
    size_t lo, hi;
    int part;
} RangePart;

static void *rangePart(void *arg)
{
    const RangePart *r = (const RangePart *)arg;
    r->fn(r->ctx, r->lo, r->hi, r->part);
    return NULL;
}

void planRanges(size_t n, size_t alone, int parts,
                void (*fn)(void *ctx, size_t lo, size_t hi, int part),
                void *ctx)
{
    RangePart part[PLAN_RANGES_MAX];
    pthread_t thread[PLAN_RANGES_MAX];
    int started[PLAN_RANGES_MAX] = {0};
    if (parts > PLAN_RANGES_MAX)
        parts = PLAN_RANGES_MAX;
    if (n < alone || parts < 1)
        parts = 1;
    for (int k = 0; k < parts; ++k) {
        const RangePart r = {fn, ctx, n / (size_t)parts * (size_t)k,
                             k + 1 < parts
                                 ? n / (size_t)parts * (size_t)(k + 1) : n,
                             k};
        part[k] = r;
        if (k > 0)
            started[k] = !pthread_create(&thread[k], NULL, rangePart,
                                         &part[k]);
    }
    rangePart(&part[0]);
    for (int k = 1; k < parts; ++k) {
        if (started[k])
            pthread_join(thread[k], NULL);
        else
            rangePart(&part[k]);
    }
}

typedef struct {
    int *a;
    size_t n;
    plan_mix m;
    uint64_t seed;
} FillJob;

static void fillPart(void *ctx, size_t lo, size_t hi, int part)
{
    const FillJob *f = (const FillJob *)ctx;
    (void)part;
    fillRange(f->a, lo, hi, f->n, f->m, f->seed);
}

/* Every slot is a function of the seed and its index alone, so a large
 * input is made by up to FILL_THREADS threads, each a range (a student's
 * check waits for it). */
#define FILL_THREADS 4
#define FILL_ALONE ((size_t)1 << 21)

void planFill(int *a, size_t n, plan_mix m, uint64_t seed)
{
    FillJob f = {a, n, m, seed};
    planRanges(n, FILL_ALONE, FILL_THREADS, fillPart, &f);
    if (m == MIX_SORTED || m == MIX_REVERSED)
        sortInts(a, n, m == MIX_REVERSED);
}

/* Reads (writing 0) or writes all of len bytes; 0 when it could not. */
static int moveAll(int fd, void *buf, size_t len, int writing)
{
    char *p = (char *)buf;
    while (len) {
        const ssize_t done = writing ? write(fd, p, len) : read(fd, p, len);
        if (done <= 0)
            return 0;
        p += done;
        len -= (size_t)done;
    }
    return 1;
}

/* A record's file beside the inputs': DIR/<seed>-<n>-<mix>.<ext>. */
static int recordPath(char *path, size_t size, const char *dir, uint64_t seed,
                      size_t n, plan_mix m, const char *ext)
{
    const int len = dir && *dir
        ? snprintf(path, size, "%s/%016llx-%zu-%d.%s", dir,
                   (unsigned long long)seed, n, (int)m, ext)
        : -1;
    return len >= 0 && (size_t)len < size;
}

int planRecordRead(const char *dir, uint64_t seed, size_t n, plan_mix m,
                   const char *ext, void *rec, size_t bytes)
{
    char path[4096];
    if (!recordPath(path, sizeof path, dir, seed, n, m, ext))
        return 0;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    const int whole = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                      (size_t)st.st_size == bytes &&
                      moveAll(fd, rec, bytes, 0);
    close(fd);
    return whole;
}

void planRecordWrite(const char *dir, uint64_t seed, size_t n, plan_mix m,
                     const char *ext, const void *rec, size_t bytes)
{
    char path[4096], tmp[4096];
    if (!recordPath(path, sizeof path, dir, seed, n, m, ext))
        return;
    /* Under a name of this process's, then renamed: a reader finds the
     * whole file or none. A failure leaves no file behind. */
    const int tlen = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path,
                              (long)getpid());
    if (tlen < 0 || (size_t)tlen >= sizeof tmp)
        return;
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    const int ok = moveAll(fd, (void *)rec, bytes, 1);
    if (close(fd) != 0 || !ok || rename(tmp, path) != 0)
        unlink(tmp);
}

int planFillCached(int *a, size_t n, plan_mix m, uint64_t seed,
                   const char *dir)
{
    const size_t bytes = n * sizeof *a;
    if (n < PLAN_CACHE_MIN)
        dir = NULL;     /* small: made, never read or written */
    if (planRecordRead(dir, seed, n, m, "in", a, bytes))
        return 1;
    planFill(a, n, m, seed);
    /* A file above this process's RLIMIT_FSIZE would kill it (SIGXFSZ):
     * such an input is made by every driver that needs it. */
    struct rlimit fsize;
    if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 &&
        fsize.rlim_cur != RLIM_INFINITY && bytes > fsize.rlim_cur)
        return 0;
    planRecordWrite(dir, seed, n, m, "in", a, bytes);
    return 0;
}

unsigned planGrid(int sms, size_t n, unsigned block)
{
    hx_device dev;
    memset(&dev, 0, sizeof dev);
    dev.sms = sms;
    return hx_grid_for(&dev, n, block);
}

static void planAdd(Plan *p, const PlanArgs *a, plan_test t, size_t n,
                    plan_mix mix, unsigned blocks, unsigned block,
                    int launches)
{
    if (n > a->largest && t != TEST_MEMORY_SAFETY)
        return;
    if (a->mixSet)
        mix = a->mix;
    if (a->gridSet) {
        blocks = a->blocks;
        block = a->block;
    }
    if ((int)block > a->maxThreads)
        block = (unsigned)a->maxThreads;
    /* HX_PER_THREAD_MAX=K (an experiment): K elements a thread at most,
     * K up to PLAN_PER_THREAD_MAX (it can narrow the rule, not widen it) */
    const char *e = getenv("HX_PER_THREAD_MAX");
    const long k = e ? atol(e) : 0;
    const size_t most = (k > 0 && (size_t)k < PLAN_PER_THREAD_MAX
                             ? (size_t)k : PLAN_PER_THREAD_MAX) * block;
    if (!a->gridSet && t != TEST_MANY_PER_THREAD && n > most * blocks)
        blocks = (unsigned)((n + most - 1) / most);
    if (p->count == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 512;
        Run *grown = (Run *)realloc(p->run, (size_t)p->cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "threeway: out of host memory for the plan\n");
            exit(HX_EXIT_NOMEM);
        }
        p->run = grown;
    }
    const Run r = {n, mix, blocks, block, launches, t};
    p->run[p->count++] = r;
    ++p->testRuns[t];
    if (n > p->maxN)
        p->maxN = n;
}

/* A run on the normal grid. */
static void addNormal(Plan *p, const PlanArgs *a, plan_test t, size_t n,
                      plan_mix mix, int launches)
{
    planAdd(p, a, t, n, mix, planGrid(a->sms, n, PLAN_BLOCK), PLAN_BLOCK,
            launches);
}

/* A size drawn uniformly in [lo, hi] with the parity odd (0 or 1), or
 * 0 when the range holds none. */
static size_t drawParity(hx_rng *r, size_t lo, size_t hi, int odd)
{
    if (lo > hi)
        return 0;
    size_t n = lo + (size_t)hx_rng_below(r, (uint64_t)(hi - lo) + 1);
    if ((int)(n & 1) != odd)
        n = n + 1 <= hi ? n + 1 : n - 1;
    return n >= lo && (int)(n & 1) == odd ? n : 0;
}

static void testTiny(Plan *p, const PlanArgs *a, hx_rng *r)
{
    (void)r;
    static const size_t every[] = {1, 2, 3, 5, 8, 13, 32, 33, 63, 64};
    size_t e = 0;
    for (size_t n = 0; n <= 64; ++n) {
        addNormal(p, a, TEST_TINY, n, MIX_THIRDS, 1);
        planAdd(p, a, TEST_TINY, n, MIX_THIRDS, 3, 7, 1);
        if (e < sizeof every / sizeof every[0] && every[e] == n) {
            ++e;
            for (int m = 1; m < MIX_COUNT; ++m) {
                addNormal(p, a, TEST_TINY, n, (plan_mix)m, 1);
                planAdd(p, a, TEST_TINY, n, (plan_mix)m, 1, 32, 1);
            }
        }
    }
}

static void testSingleGroup(Plan *p, const PlanArgs *a, hx_rng *r)
{
    static const plan_mix mixes[] = {MIX_ALL_NEG, MIX_ALL_ZERO, MIX_ALL_POS,
                                     MIX_NO_ZEROS, MIX_NO_NEG, MIX_NO_POS};
    static const size_t sizes[] = {1, 2, 33, 1000, 4096, 4097, 65536, 65537,
                                   ((size_t)1 << 20) + 2,
                                   ((size_t)1 << 22) + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t m = 0; m < sizeof mixes / sizeof mixes[0]; ++m) {
            addNormal(p, a, TEST_SINGLE_GROUP, sizes[s], mixes[m], 1);
            const unsigned blocks = 1u + (unsigned)hx_rng_below(r, 40);
            planAdd(p, a, TEST_SINGLE_GROUP, sizes[s], mixes[m], blocks, 96,
                    1);
        }
}

static void testEdges(Plan *p, const PlanArgs *a, hx_rng *r)
{
    /* Around k blocks, on grids of that block with as many blocks as the
     * size needs (the last block partly empty, full, or one over). */
    static const unsigned blocks[] = {64, 256, 1000};
    static const size_t ks[] = {1, 2, 7, 100};
    size_t sizes[64];
    int count = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; ++b)
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; ++k)
            for (int d = -1; d <= 1; ++d) {
                const size_t n = ks[k] * blocks[b] + (size_t)(long)d;
                planAdd(p, a, TEST_BLOCK_GRID_EDGES, n, MIX_THIRDS,
                        (unsigned)((n + blocks[b] - 1) / blocks[b]),
                        blocks[b], 1);
            }
    /* grid*block - 1, 0, + 1 on a small grid, and around multiples of the
     * elements each of its threads handles (k per thread). */
    static const size_t per[] = {1, 2, 3, 37, 1000};
    for (size_t q = 0; q < sizeof per / sizeof per[0]; ++q)
        for (int d = -1; d <= 1; ++d)
            planAdd(p, a, TEST_BLOCK_GRID_EDGES,
                    per[q] * 3 * 64 + (size_t)(long)d, MIX_THIRDS, 3, 64, 1);
    /* The scan's tile edges, where it needs a second and a third level,
     * and a fourth. */
    for (int e = 4; e <= 20; ++e)
        for (int d = -1; d <= 1; ++d)
            sizes[count++] = ((size_t)1 << e) + (size_t)(long)d;
    sizes[count++] = ((size_t)1 << 24) + 1;
    for (int i = 0; i < count; ++i) {
        addNormal(p, a, TEST_BLOCK_GRID_EDGES, sizes[i], MIX_THIRDS, 1);
        if (sizes[i] <= ((size_t)1 << 20) + 1) {
            const unsigned b = 1u + (unsigned)hx_rng_below(r, 300);
            planAdd(p, a, TEST_BLOCK_GRID_EDGES, sizes[i], MIX_THIRDS, b,
                    32u * (1u + (unsigned)hx_rng_below(r, 32)), 1);
        }
    }
}

static void testOctaves(Plan *p, const PlanArgs *a, hx_rng *r)
{
    for (int k = 0; k < 63 && ((size_t)1 << k) <= a->largest; ++k) {
        const size_t lo = (size_t)1 << k;
        size_t hi = (lo << 1) - 1;
        if (hi > a->largest)
            hi = a->largest;
        for (int odd = 0; odd <= 1; ++odd) {
            const size_t n = drawParity(r, lo, hi, odd);
            if (!n)
                continue;
            const plan_mix m = (plan_mix)hx_rng_below(r, MIX_COUNT);
            addNormal(p, a, TEST_EVERY_OCTAVE, n, m, 1);
            if (n <= ((size_t)1 << 22)) {
                const unsigned b = 1u + (unsigned)hx_rng_below(r, 300);
                planAdd(p, a, TEST_EVERY_OCTAVE, n, m, b,
                        1u + (unsigned)hx_rng_below(r, 1024), 1);
            }
        }
    }
}

static void testBlockShapes(Plan *p, const PlanArgs *a, hx_rng *r)
{
    static const unsigned blocks[] = {1, 7, 33, 100, 255, 1000, 1023, 1024};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; ++b) {
        const unsigned t = blocks[b];
        const size_t small = 100 + (size_t)hx_rng_below(r, 3000);
        const size_t middle = 50000 + (size_t)hx_rng_below(r, 200000);
        const size_t big = ((size_t)1 << 21) + (size_t)hx_rng_below(r, 1 << 21);
        const size_t sizes[3] = {small, middle, big};
        for (int s = 0; s < 3; ++s) {
            const plan_mix m = s == 1 ? (plan_mix)hx_rng_below(r, MIX_COUNT)
                                      : MIX_THIRDS;
            planAdd(p, a, TEST_BLOCK_SHAPES, sizes[s], m,
                    planGrid(a->sms, sizes[s], t), t, 1);
            planAdd(p, a, TEST_BLOCK_SHAPES, sizes[s], m,
                    1u + (unsigned)hx_rng_below(r, 9), t, 1);
        }
    }
}

static void testManyPerThread(Plan *p, const PlanArgs *a, hx_rng *r)
{
    /* Over 2^16 elements a thread: n > 65536 * threads. One run, about
     * 66,000 dependent loads a thread long whatever its grid (about 30 ms
     * alone, and the whole GPU's while it crawls: contexts take turns):
     * two blocks of a size that is not a multiple of 32, with a remainder
     * that leaves the threads uneven. A second run of one warp cost a
     * class of 100 about 6 s (grader/MAINTAINERS.md, "Speed"). */
    const size_t over = 65536 + 1 + (size_t)hx_rng_below(r, 4000);
    planAdd(p, a, TEST_MANY_PER_THREAD, 200 * over + 7, MIX_NO_ZEROS, 2, 100,
            1);
}

static void testInputShapes(Plan *p, const PlanArgs *a, hx_rng *r)
{
    static const plan_mix mixes[] = {MIX_SORTED, MIX_REVERSED,
                                     MIX_ALTERNATING, MIX_LONE_ENDS,
                                     MIX_EXTREMES, MIX_ENDS};
    static const size_t sizes[] = {2, 3, 255, 257, 4097, 65537,
                                   ((size_t)1 << 20) + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t m = 0; m < sizeof mixes / sizeof mixes[0]; ++m) {
            addNormal(p, a, TEST_INPUT_SHAPES, sizes[s], mixes[m], 1);
            if (sizes[s] <= 65537)
                planAdd(p, a, TEST_INPUT_SHAPES, sizes[s], mixes[m],
                        1u + (unsigned)hx_rng_below(r, 8), 64, 1);
        }
}

/* Every mix but thirds at a size drawn in [2^22, 2^23) (the host makes
 * each input and its digest: sizes of 2^24 and more for twelve mixes
 * would cost more host time than the rest of the plan), thirds at the
 * lesson's 8387997 and at the largest size (the timing's input, the last
 * group of the plan). */
static void testLarge(Plan *p, const PlanArgs *a, hx_rng *r)
{
    addNormal(p, a, TEST_LARGE, 8387997, MIX_THIRDS, 1);
    for (int m = 1; m < MIX_COUNT; ++m) {
        const size_t n = ((size_t)1 << 22) +
                         (size_t)hx_rng_below(r, (uint64_t)1 << 22);
        addNormal(p, a, TEST_LARGE, n < a->largest ? n : a->largest - 1,
                  (plan_mix)m, 1);
    }
    addNormal(p, a, TEST_LARGE, a->largest, MIX_THIRDS, 1);
}

static void testRepeat(Plan *p, const PlanArgs *a, hx_rng *r)
{
    static const size_t sizes[] = {1000, 65537, ((size_t)1 << 20) + 1,
                                   ((size_t)1 << 22) + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        addNormal(p, a, TEST_REPEATABILITY, sizes[s], MIX_THIRDS, 2);
        planAdd(p, a, TEST_REPEATABILITY, sizes[s], MIX_THIRDS,
                1u + (unsigned)hx_rng_below(r, 300),
                32u * (1u + (unsigned)hx_rng_below(r, 32)), 2);
    }
}

/* compute-sanitizer memcheck's runs: few and small (it runs every access
 * checked), one even and one odd size on a small grid, where every thread
 * strides. */
static void testMemory(Plan *p, const PlanArgs *a, hx_rng *r)
{
    (void)r;
    static const size_t sizes[] = {1, 256, 4097, 65536, 65537};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        addNormal(p, a, TEST_MEMORY_SAFETY, sizes[s], MIX_THIRDS, 1);
        if (sizes[s] >= 65536)
            planAdd(p, a, TEST_MEMORY_SAFETY, sizes[s], MIX_THIRDS, 3, 64, 1);
    }
    addNormal(p, a, TEST_MEMORY_SAFETY, 257, MIX_ENDS, 1);
}

static int cmpSize(const void *x, const void *y)
{
    const size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

typedef void (*test_fn)(Plan *, const PlanArgs *, hx_rng *);

static int cmpRun(const void *x, const void *y)
{
    const Run *a = (const Run *)x, *b = (const Run *)y;
    if (a->n != b->n)
        return (a->n > b->n) - (a->n < b->n);
    return (a->mix > b->mix) - (a->mix < b->mix);
}

void planBuild(Plan *p, uint64_t seed, const PlanArgs *a)
{
    static const test_fn fns[TEST_COUNT] = {
        testTiny, testSingleGroup, testEdges, testOctaves, testBlockShapes,
        testManyPerThread, testInputShapes, testLarge, testRepeat,
        testMemory};
    memset(p, 0, sizeof *p);
    p->name = a->name;
    const int sanitize = !strcmp(a->name, "sanitize");
    if (a->sizes) {
        /* --n: the sizes given, each on the normal grid (twice), the small
         * grid and a drawn one. */
        hx_rng r;
        hx_rng_seed(&r, seed ^ 0x7068726565776179ull);
        for (int i = 0; i < a->nsizes; ++i) {
            const size_t n = a->sizes[i];
            const plan_test t = sanitize ? TEST_MEMORY_SAFETY
                                         : TEST_EVERY_OCTAVE;
            addNormal(p, a, t, n, MIX_THIRDS, 2);
            if (a->gridSet)
                continue;       /* --grid: that one run */
            planAdd(p, a, t, n, MIX_THIRDS, 3, 64, 1);
            planAdd(p, a, t, n, MIX_THIRDS, 1u + (unsigned)hx_rng_below(&r, 300),
                    1u + (unsigned)hx_rng_below(&r, 1024), 1);
        }
    } else {
        /* large last: its last group is the timing's input, which the
         * host then holds already. */
        static const plan_test order[TEST_COUNT] = {
            TEST_TINY, TEST_SINGLE_GROUP, TEST_BLOCK_GRID_EDGES,
            TEST_EVERY_OCTAVE, TEST_BLOCK_SHAPES, TEST_MANY_PER_THREAD,
            TEST_INPUT_SHAPES, TEST_REPEATABILITY, TEST_MEMORY_SAFETY,
            TEST_LARGE};
        for (int o = 0; o < TEST_COUNT; ++o) {
            const plan_test t = order[o];
            if (sanitize != (t == TEST_MEMORY_SAFETY))
                continue;
            hx_rng r;
            hx_rng_seed(&r, planMix64(seed ^ 0x7068726565776179ull) +
                                (uint64_t)t);
            const int first = p->count;
            fns[t](p, a, &r);
            /* A test's runs in increasing size, (size, mix) together. */
            qsort(p->run + first, (size_t)(p->count - first), sizeof *p->run,
                  cmpRun);
        }
    }
    /* Distinct sizes. */
    size_t *n = (size_t *)malloc((size_t)(p->count ? p->count : 1) *
                                 sizeof *n);
    if (!n) {
        fprintf(stderr, "threeway: out of host memory for the plan\n");
        exit(HX_EXIT_NOMEM);
    }
    for (int k = 0; k < p->count; ++k)
        n[k] = p->run[k].n;
    qsort(n, (size_t)p->count, sizeof *n, cmpSize);
    for (int k = 0; k < p->count; ++k)
        p->sizes += !k || n[k] != n[k - 1];
    free(n);
}

void planFree(Plan *p)
{
    free(p->run);
    memset(p, 0, sizeof *p);
}

int planParseTests(const char *list, unsigned *mask, const char *prog)
{
    *mask = 0;
    const char *s = list;
    while (*s) {
        const char *end = strchr(s, ',');
        const size_t len = end ? (size_t)(end - s) : strlen(s);
        char name[64];
        if (len == 0 || len >= sizeof name) {
            fprintf(stderr, "%s: --tests wants names separated by commas, "
                    "not \"%s\"\n", prog, list);
            return -1;
        }
        memcpy(name, s, len);
        name[len] = '\0';
        const int t = planTestByName(name);
        if (t < 0) {
            fprintf(stderr, "%s: --tests: no test \"%s\" (the tests: tiny, "
                    "single_group, block_grid_edges, every_octave, "
                    "block_shapes, many_per_thread, input_shapes, large, "
                    "repeatability, memory_safety)\n", prog, name);
            return -1;
        }
        *mask |= 1u << t;
        s += len;
        if (*s == ',')
            ++s;
    }
    if (!*mask) {
        fprintf(stderr, "%s: --tests names no test\n", prog);
        return -1;
    }
    return 0;
}

void planPrint(const Plan *p, FILE *f)
{
    fprintf(f, "run test n mix blocks block launches\n");
    for (int k = 0; k < p->count; ++k) {
        const Run *r = &p->run[k];
        fprintf(f, "%d %s %zu %s %u %u %d\n", k, planTestName(r->test), r->n,
                planMixName(r->mix), r->blocks, r->block, r->launches);
    }
}

void planDescribe(char *buf, size_t len, const Run *r)
{
    snprintf(buf, len, "n=%zu mix=%s grid=%ux%u", r->n, planMixName(r->mix),
             r->blocks, r->block);
}
