/* corpus/stall_batch_sleep: expected timeout: right, but one thread of
 * every launch sleeps 9 s (90% of the default per-launch limit of 10 s
 * below 2^24 elements) before the launch ends, so no launch is ever past
 * its own limit: a batch of hundreds of launches once held the shared GPU
 * lock for hours.
 *
 * Through the driver: a batch holds the lock no longer than one launch's
 * limit at its largest size (runs.cu's watchdog): the second launch
 * crosses it, and the driver writes a timeout event naming the run under
 * way and exits 6, about 10 s after the batch began. */
#include <cstddef>

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
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const double scale = (double)n / (double)(1 << 24);
        const unsigned long long wait =
            (unsigned long long)(9e9 * (scale > 1.0 ? scale : 1.0));
        const unsigned long long t0 = nowNs();
        while (nowNs() - t0 < wait)
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
}
