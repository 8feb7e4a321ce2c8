/* kernels.cu: the driver's kernels. None of them is the student's:
 * predicates, the copy and the two-way scatter for the timing, and the
 * checks that run on the device so that nothing large crosses to the host.
 *
 * Why the student's kernel can neither read nor forge what it is checked
 * against (the keyed digest):
 * - No reference is ever made on the device, nor in page-locked or mapped
 *   host memory, and no kernel here places an element: the host sums the
 *   reference's digest itself, under the group's key, with the same
 *   weights, from the input alone (each element's term at the slot the
 *   stable split gives it: digestHostGroup; groupHost in buffers.cu), and
 *   makes the split itself (hx_split3, in pageable memory) only to compare
 *   an output on the host. The inputs are uploaded from page-locked
 *   memory where it can be had (uploadAlloc): it holds the batch's
 *   inputs and nothing else, and so does its copy on the device (the
 *   device stage, runs.cu), from which each group's input is copied in
 *   turn. (A kernel that changed a later group's input there would only
 *   change what it is run on, not what it is checked against, and the
 *   driver's ranks are checked against the host's counts.) Each
 *   group of runs (one input) begins with a baseline check, made after the
 *   driver uploaded the input and made and checked its ranks, before the
 *   student's kernel first runs on them: it digests every buffer the kernel
 *   will receive (in, negRank, zeroRank, the two totals). After each launch
 *   of the student's kernel the device digests its output and every input
 *   under the same key, and the host compares: the output's digest with
 *   the reference's, each input's with its baseline's.
 * - The key is drawn on the host from /dev/urandom (randomWord), one for
 *   each group of runs, and kept in pageable memory (with --input-cache,
 *   one for each group of a grading run, which its drivers share through
 *   a file beside the group's input, on the host: groupHostInto). It reaches the GPU
 *   only through a host function queued in the stream after the student's
 *   launch (putKey): the stream runs it only once the kernel has ended; it
 *   writes the key into one page-locked word, which a one-thread kernel
 *   (keyIn) then moves to one device word, zeroing the page-locked one;
 *   digestEnd zeroes the device word. All of it in stream order, between
 *   the student's launch and the next: no kernel parameter and no queued
 *   copy ever holds the key, so while the student's kernel runs the key
 *   is nowhere the GPU can address, and no launch can read the key of
 *   any check. A group's baseline (every group's but a batch's first)
 *   gets its key the same way one step early: the host function after
 *   the previous group's last launch puts it in the page-locked word
 *   beside, keyIn moves it to the device word two on, and the baseline's
 *   digestEnd wipes it; in between only the driver's own work is queued
 *   (the group's guards, upload and ranks), so it too is never on the
 *   device while a student's kernel can run, and a batch of k groups
 *   waits on the host once per launch, not k times more (KeyStage).
 *   (The digest kernels hold it in registers while they run;
 *   a later kernel that reads registers it never wrote is outside what
 *   CUDA C can express, and the key is one group's: the next group draws
 *   another.)
 * - The digest is linear over the prime field of p = 2^61 - 1:
 *   D(v) = sum over i of w(K, i) * (uint32)v[i] mod p, with weights
 *   w(K, i) = hx_mix64(K ^ i * golden) mod p. An output x differs from the
 *   reference r in some slot; D(x) = D(r) only when sum of
 *   w(K, i) * (x[i] - r[i]) is 0 mod p, which for weights the kernel
 *   cannot know (it never sees K) holds with probability about 1/p, 2^-61,
 *   whatever x it writes (mix64, splitmix64's finaliser, stands in for a
 *   random function here: it is not a proven one).
 * - What the device reports is padded: D + pad(K, check, buffer) mod p,
 *   a pad that differs for every check. The reports sit in page-locked
 *   memory, which a later launch can read or overwrite; padded, they tell
 *   it nothing about the weights, so no sequence of launches can learn
 *   them, and a report overwritten with anything but the reference's
 *   padded digest, which it cannot know, fails.
 * - Why kernels and not copies: every check stays on the GPU's compute
 *   engine, one host function its only wait on the host. A copy between
 *   two kernels makes the stream wait for another engine, and each such
 *   wait lets every other process's context have the GPU first: a check
 *   with three small copies cost 0.03 ms alone and 1.7 ms beside eleven
 *   other processes doing the same (solution/dev/stream_cost.cu;
 *   harness/grader/MAINTAINERS.md, "Speed"). So the guards are laid, the
 *   output poisoned, the key moved and the reports written to the host
 *   by kernels (fillSpans, keyIn, digestEnd, ranksEnd). The host function
 *   stays: a kernel that spins on a page-locked word until a host thread
 *   has seen the launch's event complete graded fewer copies of a class
 *   in the same time (the GPU idles in its time slice while it spins).
 * - The sums of a digest live in device memory only between the digest
 *   and digestEnd, which folds, pads and zeroes them: no student code runs
 *   in between (one stream, in order).
 * - The ranks are the driver's, checked on the device against the input
 *   (checkRanks) with their totals compared to the host's counts; a wrong
 *   one stops the driver (not the student's fault), so the student's
 *   kernel never runs on wrong ranks.
 * Linearity also gives the timing its masked rounds for free: the host
 * sums the weights over the positive and negative slots of the input and
 * of the reference, so the digest of either masked by m is
 * D + m * (Wpos - Wneg), no pass over the data (timing.cu).
 */
#include <climits>
#include <cstdlib>
#include <cstring>

#include "driver.h"
#include "hx_gpu.h"
#include "hx_mix.h"

const char *const g_bufName[NBUF] = {"out", "in", "negRank", "zeroRank",
                                     "totals"};

/* ------------------------------------------------------------------ */
/* The digest's arithmetic, the same on host and device.               */

static __host__ __device__ inline uint64_t reduce61(uint64_t x)
{
    x = (x & DIGEST_P) + (x >> 61);
    return x >= DIGEST_P ? x - DIGEST_P : x;
}

static __host__ __device__ inline uint64_t addMod(uint64_t a, uint64_t b)
{
    const uint64_t s = a + b;   /* both below 2^61: no overflow */
    return s >= DIGEST_P ? s - DIGEST_P : s;
}

static __host__ __device__ inline uint64_t mulMod(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    const uint64_t lo = a * b, hi = __umul64hi(a, b);
#else
    const unsigned __int128 t = (unsigned __int128)a * b;
    const uint64_t lo = (uint64_t)t, hi = (uint64_t)(t >> 64);
#endif
    /* t = hi * 2^64 + lo < 2^122; t mod p = (t & p) + (t >> 61) mod p. */
    const uint64_t low61 = lo & DIGEST_P;
    const uint64_t high = (hi << 3) | (lo >> 61);
    return reduce61(low61 + reduce61(high));
}

static __host__ __device__ inline uint64_t weight(uint64_t key, size_t i)
{
    return reduce61(hx_mix64(key ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull)));
}

static __host__ __device__ inline uint64_t pad(uint64_t key, uint64_t check,
                                               int buffer)
{
    const uint64_t which = hx_mix64(check * 16 + (uint64_t)buffer + 1);
    return reduce61(hx_mix64(key ^ which ^ 0xd1b54a32d192ed03ull));
}

uint64_t digestPad(uint64_t key, uint64_t check, int buffer)
{
    return pad(key, check, buffer);
}
uint64_t digestMulMod(uint64_t a, uint64_t b) { return mulMod(a, b); }
uint64_t digestAdd(uint64_t a, uint64_t b) { return addMod(a, b); }

/* 128-bit sums, folded mod p once at the end: 2^61 = 1 (mod p), so the
 * three 61-bit pieces of x add to x mod p. */
static uint64_t reduce128(unsigned __int128 x)
{
    const uint64_t lo = (uint64_t)x & DIGEST_P;
    const uint64_t mid = (uint64_t)(x >> 61) & DIGEST_P;
    const uint64_t top = (uint64_t)(x >> 122);
    return reduce61(lo + mid + top);   /* below 3 * 2^61 */
}

uint64_t digestWeight(uint64_t key, size_t i) { return weight(key, i); }

/* The host's sums for input slots [lo, hi), whose first negative lands at
 * reference slot negAt and first positive at posAt: each nonzero element
 * adds its term at the slot the stable split gives it (a zero adds 0
 * wherever it lands), so the reference itself is never written. The same
 * values as adding each term mod p, the reductions left to the end of a
 * chunk (a term is below 2^93, so 2^30 of them stay below 2^123). */
static void digestRange(const int *in, size_t lo, size_t hi, size_t negAt,
                        size_t posAt, uint64_t key, int masks,
                        uint64_t sum[NREF])
{
    uint64_t d = 0, inPos = 0, inNeg = 0, refPos = 0, refNeg = 0;
    const size_t chunk = (size_t)1 << 30;
    for (size_t c = lo; c < hi; c += chunk) {
        const size_t end = hi - c > chunk ? c + chunk : hi;
        unsigned __int128 sd = 0, sip = 0, sin = 0, srp = 0, srn = 0;
        for (size_t i = c; i < end; ++i) {
            /* The slot without a branch: the kinds are unpredictable. */
            const int v = in[i];
            const size_t pos = (size_t)0 - (v > 0);
            const size_t slot = (negAt & ~pos) | (posAt & pos);
            const uint64_t w = weight(key, slot);
            sd += (unsigned __int128)w * (uint32_t)v;
            if (masks) {
                const uint64_t wi = weight(key, i);
                sip += v > 0 ? wi : 0;
                sin += v < 0 ? wi : 0;
                srp += v > 0 ? w : 0;
                srn += v < 0 ? w : 0;
            }
            negAt += v < 0;
            posAt += v > 0;
        }
        d = addMod(d, reduce128(sd));
        inPos = addMod(inPos, reduce128(sip));
        inNeg = addMod(inNeg, reduce128(sin));
        refPos = addMod(refPos, reduce128(srp));
        refNeg = addMod(refNeg, reduce128(srn));
    }
    sum[SUM_REF] = d;
    sum[SUM_IN_POS] = inPos;
    sum[SUM_IN_NEG] = inNeg;
    sum[SUM_REF_POS] = refPos;
    sum[SUM_REF_NEG] = refNeg;
}

/* The host's digest of a group, by up to DIGEST_THREADS threads over
 * ranges of slots (planRanges): each range's negatives and zeros are
 * counted first, which places its elements in the reference; then each
 * range adds its terms, and the ranges' sums add mod p. */
#define DIGEST_THREADS 8
#define DIGEST_ALONE ((size_t)1 << 20)   /* below: one thread */

typedef struct {
    const int *in;
    uint64_t key;
    int masks;
    size_t neg[DIGEST_THREADS], zero[DIGEST_THREADS], pos[DIGEST_THREADS];
    size_t negAt[DIGEST_THREADS], posAt[DIGEST_THREADS];
    uint64_t sum[DIGEST_THREADS][NREF];
} DigestJob;

static void countPart(void *ctx, size_t lo, size_t hi, int part)
{
    DigestJob *j = (DigestJob *)ctx;
    size_t neg = 0, zero = 0;
    for (size_t i = lo; i < hi; ++i) {
        neg += j->in[i] < 0;
        zero += j->in[i] == 0;
    }
    j->neg[part] = neg;
    j->zero[part] = zero;
    j->pos[part] = hi - lo - neg - zero;
}

static void sumPart(void *ctx, size_t lo, size_t hi, int part)
{
    DigestJob *j = (DigestJob *)ctx;
    digestRange(j->in, lo, hi, j->negAt[part], j->posAt[part], j->key,
                j->masks, j->sum[part]);
}

void digestHostGroup(const int *in, size_t n, uint64_t key, int masks,
                     size_t *a, size_t *ab, uint64_t sum[NREF])
{
    DigestJob *j = (DigestJob *)calloc(1, sizeof *j);  /* parts not run: 0 */
    if (!j) {
        fprintf(stderr, "threeway: out of host memory for the digest\n");
        exit(HX_EXIT_NOMEM);
    }
    j->in = in;
    j->key = key;
    j->masks = masks;
    planRanges(n, DIGEST_ALONE, DIGEST_THREADS, countPart, j);
    size_t neg = 0, zero = 0;
    for (int k = 0; k < DIGEST_THREADS; ++k) {
        neg += j->neg[k];
        zero += j->zero[k];
    }
    size_t negAt = 0, posAt = neg + zero;
    for (int k = 0; k < DIGEST_THREADS; ++k) {
        j->negAt[k] = negAt;
        j->posAt[k] = posAt;
        negAt += j->neg[k];
        posAt += j->pos[k];
    }
    planRanges(n, DIGEST_ALONE, DIGEST_THREADS, sumPart, j);
    for (int s = 0; s < NREF; ++s) {
        sum[s] = 0;
        for (int k = 0; k < DIGEST_THREADS; ++k)
            sum[s] = addMod(sum[s], j->sum[k][s]);
    }
    *a = neg;
    *ab = neg + zero;
    free(j);
}

/* ------------------------------------------------------------------ */
/* Predicates, the copy, the two-way scatter, the timing's mask.       */

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

/* in[i] = base[i] + mask for a positive, - mask for a negative, 0 for a
 * zero: every value keeps its kind (inputs of the timing lie in
 * [-1000000, 1000000] and mask is below 2^21), so the split keeps its
 * permutation and its ranks while every value changes. */
static __global__ void maskInput(const int* __restrict__ base,
                                 int* __restrict__ in, size_t n, int mask)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = base[i];
        in[i] = v > 0 ? v + mask : v < 0 ? v - mask : 0;
    }
}

/* ------------------------------------------------------------------ */
/* The ranks' check.                                                    */

static __global__ void resetRanks(RankCheck *r)
{
    r->bad = 0;
    r->first = ULLONG_MAX;
}

/* The ranks' defining property, element for element: negRank[0] = 0 and
 * negRank[i] = negRank[i-1] + (in[i-1] < 0), the same for zeros. By
 * induction that makes them the exclusive counts; the host then compares
 * the totals with the counts of its own input. */
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

/* The totals beside the ranks' check, and the check written to the
 * host's page-locked slot (no copy: see the opening comment). */
static __global__ void ranksEnd(RankCheck *r, const int *totals,
                                volatile RankCheck *host)
{
    host->bad = r->bad;
    host->first = r->first;
    host->totals[0] = totals[0];
    host->totals[1] = totals[1];
    __threadfence_system();
}

/* ------------------------------------------------------------------ */
/* Filling: the guards and the poison.                                 */

static __global__ void fillSpans(FillSpans f)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t t0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < f.count; ++k)
        for (size_t i = t0; i < f.n[k]; i += stride)
            f.p[k][i] = f.value[k];
}

/* ------------------------------------------------------------------ */
/* One launch's checks: guards, then digests.                          */

static __global__ void resetSlot(CheckSlot *s)
{
    for (int b = 0; b < NBUF; ++b) {
        const GuardScan clean = {0, 0, 0, ULLONG_MAX};
        s->guard[b] = clean;
    }
    for (int b = 0; b < NBUF; ++b)
        s->digest[b] = 0;
    s->done = 0;
}

/* Counts the words of every buffer's two guard regions that no longer
 * hold HX_GUARD_WORD, and finds the changed word nearest the buffer on
 * each side. */
static __global__ void scanGuards(Spans s, CheckSlot *slot)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t t0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int b = 0; b < NBUF; ++b) {
        GuardScan *g = &slot->guard[b];
        for (size_t i = t0; i < s.beforeWords[b]; i += stride)
            if (s.before[b][i] != HX_GUARD_WORD) {
                atomicAdd(&g->before, 1ull);
                atomicMax(&g->nearBefore, (unsigned long long)i + 1);
            }
        for (size_t i = t0; i < s.afterWords[b]; i += stride)
            if (s.after[b][i] != HX_GUARD_WORD) {
                atomicAdd(&g->after, 1ull);
                atomicMin(&g->nearAfter, (unsigned long long)i);
            }
    }
}

/* Adds a warp's sums mod p, then the warp's total to acc[2s] (low word)
 * and acc[2s + 1] (carries): a 128-bit sum, folded by digestEnd. */
static __device__ void warpAdd(uint64_t sum, unsigned long long *acc, int s)
{
    for (int d = 16; d; d >>= 1)
        sum = addMod(sum, __shfl_down_sync(0xffffffffu, sum, d));
    if ((threadIdx.x & 31) == 0 && sum) {
        const unsigned long long old = atomicAdd(&acc[2 * s], sum);
        if (old + sum < old)
            atomicAdd(&acc[2 * s + 1], 1ull);
    }
}

/* The unpadded digest of every buffer into acc: each thread's sums mod p,
 * then warpAdd. Every thread of the grid reaches every warpAdd (no early
 * exit), whole warps (BLOCK threads a block). */
static __global__ void digestSpans(Spans s, const volatile uint64_t *keyp,
                                   unsigned long long *acc)
{
    const uint64_t key = *keyp;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t t0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int b = 0; b < NBUF; ++b) {
        uint64_t sum = 0;
        for (size_t i = t0; i < s.n[b]; i += stride)
            sum = addMod(sum, mulMod(weight(key, i),
                                     (uint64_t)(uint32_t)s.data[b][i]));
        warpAdd(sum, acc, b);
    }
}

/* Folds each sum mod p, pads it, stores it in the slot, zeroes the sums
 * and wipes the device's copy of the key; then writes the slot to the
 * host's page-locked one, done last. */
static __global__ void digestEnd(unsigned long long *acc, CheckSlot *slot,
                                 volatile uint64_t *keyp, uint64_t check,
                                 volatile CheckSlot *host)
{
    const uint64_t key = *keyp;
    for (int b = 0; b < NBUF; ++b) {
        /* 2^64 = 8 mod p. */
        const uint64_t d = addMod(reduce61(acc[2 * b]),
                                  mulMod(reduce61(acc[2 * b + 1]), 8));
        slot->digest[b] = addMod(d, pad(key, check, b));
        acc[2 * b] = acc[2 * b + 1] = 0;
    }
    *keyp = 0;
    for (int b = 0; b < NBUF; ++b) {
        host->guard[b].before = slot->guard[b].before;
        host->guard[b].after = slot->guard[b].after;
        host->guard[b].nearBefore = slot->guard[b].nearBefore;
        host->guard[b].nearAfter = slot->guard[b].nearAfter;
        host->digest[b] = slot->digest[b];
    }
    slot->done = 1;
    __threadfence_system();
    host->done = 1;
    __threadfence_system();
}

/* Moves the key from the page-locked word, where putKey wrote it, to the
 * device word, and zeroes the page-locked one; the same for the word
 * after each, the next group's baseline key (zero when none). */
static __global__ void keyIn(volatile uint64_t *pinned, uint64_t *dev)
{
    dev[0] = pinned[0];
    dev[2] = pinned[1];   /* the next group's baseline key (KeyStage) */
    pinned[0] = pinned[1] = 0;
    __threadfence_system();
}

/* The keys in flight: a host function's argument must outlive its
 * enqueueing; a batch waits before the next, so a ring larger than a
 * batch is enough. */
typedef struct {
    volatile uint64_t *dst;    /* the key, then the next baseline's */
    uint64_t key, nextKey;
} KeyPut;
static KeyPut g_keyRing[2 * BATCH_SLOTS + 64];
static unsigned g_keyNext;

static void CUDART_CB putKey(void *arg)
{
    KeyPut *k = (KeyPut *)arg;
    k->dst[0] = k->key;
    k->dst[1] = k->nextKey;
    __sync_synchronize();
}

/* ------------------------------------------------------------------ */
/* HX_PROFILE=gpu's marks (driver.h, gpuMark).                         */

/* The GPU breakdown's marks: a pool of events reused batch by batch. */
#define GPU_MARKS 8192
static cudaEvent_t g_mark[GPU_MARKS];
static int g_markStep[GPU_MARKS], g_marks, g_markOn, g_markBase;
static long long g_marksDropped;
/* Seconds by step; the baselines' check steps apart (the second half),
 * printed by events.cu's profPrint. */
static double g_gpu[2 * GPU_STEPS];

void gpuMarksOn(int on)
{
    const char *p = getenv("HX_PROFILE");
    g_markOn = on && p && !strcmp(p, "gpu");
}

void gpuMarksBaseline(int on) { g_markBase = on; }

void gpuMark(int step)
{
    if (!g_markOn)
        return;
    if (g_marks == GPU_MARKS) {
        ++g_marksDropped;
        return;
    }
    if (!g_mark[g_marks])
        HX_CHECK(cudaEventCreate(&g_mark[g_marks]));
    HX_CHECK(cudaEventRecord(g_mark[g_marks], 0));
    g_markStep[g_marks++] =
        step + (g_markBase && step >= GPU_GUARDS ? GPU_STEPS : 0);
}

void gpuMarksSum(void)
{
    for (int k = 1; k < g_marks; ++k) {
        if (g_markStep[k] == GPU_START)
            continue;
        float ms = 0;
        HX_CHECK(cudaEventElapsedTime(&ms, g_mark[k - 1], g_mark[k]));
        g_gpu[g_markStep[k]] += ms / 1000.0;
    }
    g_marks = 0;
}

double gpuStepSeconds(int k) { return g_gpu[k]; }

long long gpuMarksDropped(void) { return g_marksDropped; }

/* ------------------------------------------------------------------ */
/* Launchers.                                                          */

void kMarkNegative(const hx_device *dev, const int *in, int *flags, size_t n)
{
    markNegative<<<hx_grid_for(dev, n, BLOCK), BLOCK>>>(in, flags, n);
    HX_CHECK_LAUNCH("markNegative");
}

void kMarkZero(const hx_device *dev, const int *in, int *flags, size_t n)
{
    markZero<<<hx_grid_for(dev, n, BLOCK), BLOCK>>>(in, flags, n);
    HX_CHECK_LAUNCH("markZero");
}

void kScatterTwoWay(const hx_device *dev, const int *in, const int *rank,
                    int *out, size_t n, const int *totalTrue)
{
    scatterTwoWay<<<hx_grid_for(dev, n, BLOCK), BLOCK>>>(in, rank, out, n,
                                                         totalTrue);
    HX_CHECK_LAUNCH("scatterTwoWay");
}

/* The copy every row is measured against: the harness's copyInts. */
void kCopy(const hx_device *dev, const int *in, int *out, size_t n)
{
    hx_gpu_copy(dev, in, out, n, 0);
}

void kMaskInput(const hx_device *dev, const int *base, int *in, size_t n,
                int mask)
{
    maskInput<<<hx_grid_for(dev, n, BLOCK), BLOCK>>>(base, in, n, mask);
    HX_CHECK_LAUNCH("maskInput");
}

void kCheckRanks(const hx_device *dev, const int *in, const int *negRank,
                 const int *zeroRank, size_t n, const int *totals,
                 RankCheck *r, RankCheck *host)
{
    resetRanks<<<1, 1>>>(r);
    HX_CHECK_LAUNCH("resetRanks");
    if (n) {
        checkRanks<<<hx_grid_for(dev, n, BLOCK), BLOCK>>>(in, negRank,
                                                           zeroRank, n, r);
        HX_CHECK_LAUNCH("checkRanks");
    }
    ranksEnd<<<1, 1>>>(r, totals, host);
    HX_CHECK_LAUNCH("ranksEnd");
}

void kFill(const hx_device *dev, const FillSpans *f)
{
    size_t most = 0;
    for (int k = 0; k < f->count; ++k)
        most = f->n[k] > most ? f->n[k] : most;
    if (!most)
        return;
    fillSpans<<<hx_grid_for(dev, most, BLOCK), BLOCK>>>(*f);
    HX_CHECK_LAUNCH("fillSpans");
}

void kPoison(const hx_device *dev, const hx_guarded *g)
{
    FillSpans f;
    memset(&f, 0, sizeof f);
    fillAdd(&f, g->base, g->guard, HX_GUARD_WORD);
    fillAdd(&f, g->data, g->n, HX_POISON);
    fillAdd(&f, g->data + g->n, hx_guarded_after(g), HX_GUARD_WORD);
    kFill(dev, &f);
}

void kCheckLaunch(const hx_device *dev, const Spans *s, CheckSlot *slot,
                  CheckSlot *hostSlot, volatile uint64_t *pinnedKey,
                  const uint64_t *keyWord, uint64_t check,
                  unsigned long long *acc, const KeyStage *stage)
{
    size_t guardWords = 0, words = 0;
    for (int b = 0; b < NBUF; ++b) {
        const size_t g = s->beforeWords[b] > s->afterWords[b]
                             ? s->beforeWords[b] : s->afterWords[b];
        guardWords = g > guardWords ? g : guardWords;
        words = s->n[b] > words ? s->n[b] : words;
    }
    uint64_t *devKey = (uint64_t *)(acc + 2 * NBUF);
    resetSlot<<<1, 1>>>(slot);
    HX_CHECK_LAUNCH("resetSlot");
    scanGuards<<<hx_grid_for(dev, guardWords, BLOCK), BLOCK>>>(*s, slot);
    HX_CHECK_LAUNCH("scanGuards");
    gpuMark(GPU_GUARDS);
    /* The key: written to the page-locked word by the host once the
     * stream gets there, moved to the device word by keyIn, which wipes
     * the page-locked word, all in stream order; digestEnd wipes the
     * device word. */
    if (stage && stage->staged) {
        /* Put by the check before, with nothing of the student's since
         * (KeyStage): the next group's word. */
        devKey += 2;
    } else {
        KeyPut *k = &g_keyRing[g_keyNext++ % (sizeof g_keyRing /
                                              sizeof g_keyRing[0])];
        k->dst = pinnedKey;
        k->key = *keyWord;
        k->nextKey = stage && stage->next ? stage->nextKey : 0;
        HX_CHECK(cudaLaunchHostFunc(0, putKey, k));
        keyIn<<<1, 1>>>(pinnedKey, devKey);
        HX_CHECK_LAUNCH("keyIn");
    }
    gpuMark(GPU_KEY);
    digestSpans<<<hx_grid_for(dev, words, BLOCK), BLOCK>>>(*s, devKey, acc);
    HX_CHECK_LAUNCH("digestSpans");
    digestEnd<<<1, 1>>>(acc, slot, devKey, check, hostSlot);
    HX_CHECK_LAUNCH("digestEnd");
    gpuMark(GPU_DIGEST);
}
