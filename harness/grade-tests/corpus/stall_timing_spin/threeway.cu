/* corpus/stall_timing_spin: expected timeout: right everywhere, then, in the
 * timing, every launch spins for 80% of its per-launch limit (the default
 * --run-timeout of 10 s per 2^24 elements), so no single launch is ever
 * past its limit: a staller that once held the exclusive GPU lock for all
 * its rounds (over 20 minutes) while every other driver waited.
 *
 * Through the driver: every hold of the GPU lock, the timing's included,
 * is bounded by one launch's limit at its size (runs.cu's watchdog): the
 * second spinning launch crosses it, the driver writes a timeout event
 * and exits 6, and the process's end frees the lock, one limit (37.5 s at
 * the H200's 62914560) after the timing began. */
#include <cstddef>

// The launch's place in a row of launches with the same n: read at the
// start by every thread, updated by the last block to finish, after every
// block has read it (the pattern of corpus/oob_mib).
__device__ unsigned long long lastN = ~0ull;
__device__ unsigned sameCount = 0;
__device__ unsigned blocksDone = 0;

__device__ unsigned placeInRow(size_t n)
{
    return n == *(volatile unsigned long long*)&lastN
               ? *(volatile unsigned*)&sameCount + 1 : 1;
}

__device__ void launchEnded(size_t n, unsigned place)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocksDone, 1u) == gridDim.x - 1) {
            blocksDone = 0;
            lastN = n;
            sameCount = place;
            __threadfence();
        }
    }
}

// The timing size: 2^24 or more and a multiple of 2^20 (the L2's bytes as
// ints: 62914560 on an H200, 16777216 on a T4); no other size of the plan
// is both, but for a drawn one with odds of 2^-20.
__device__ bool timingSize(size_t n)
{
    return n >= ((size_t)1 << 24) && n % ((size_t)1 << 20) == 0;
}

__device__ unsigned long long nowNs()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    const unsigned place = placeInRow(n);
    if (timingSize(n) && place >= 2 && blockIdx.x == 0 && threadIdx.x == 0) {
        const unsigned long long limit =
            (unsigned long long)(8e9 * ((double)n / (double)(1 << 24)));
        const unsigned long long t0 = nowNs();
        while (nowNs() - t0 < limit)
            __nanosleep(1000000);
    }
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
    }
    launchEnded(n, place);
}
