/* corpus/oob_even_memcheck: expected out_of_bounds, from compute-sanitizer
 * memcheck, on an even size: memcheck's runs were once all of odd sizes.
 * Correct, except that in a process whose first launch had n > 0, its
 * first launch with an even n > 0 also writes one word 256 MiB past the
 * end of the output (outside every allocation of that process).
 *
 * Through the driver and the grading tool:
 *  - The full plan's first launch has n = 0, so the stray write never
 *    happens there (corpus/oob_mib says why it must not): every run
 *    passes.
 *  - memcheck's plan (--plan sanitize, the test memory_safety) starts at
 *    n = 1 and holds even sizes (256, 65536): at n = 256 the write lands
 *    256 MiB past an output of about 9 MiB with its guards; memcheck
 *    reports an invalid __global__ write: out_of_bounds.
 *  - With --no-sanitize the case passes. */
#include <cstddef>

__device__ unsigned firstN = 0;
__device__ unsigned strayDone = 0;
__device__ unsigned blocksDone = 0;

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    const unsigned first = *(volatile unsigned*)&firstN;   // 0: none yet
    const bool stray = first == 2 && n % 2 == 0 &&
                       *(volatile unsigned*)&strayDone == 0;
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
        if (stray && i + 1 == n)
            out[n + ((size_t)256 << 20) / sizeof(int)] = v;  // 256 MiB past
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocksDone, 1u) == gridDim.x - 1) {
            blocksDone = 0;
            if (first == 0)
                firstN = n > 0 ? 2 : 1;   // 2: the first launch had n > 0
            if (stray && n > 0)
                strayDone = 1;
            __threadfence();
        }
    }
}
