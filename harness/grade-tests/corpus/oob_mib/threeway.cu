/* corpus/oob_mib: expected out_of_bounds, from compute-sanitizer memcheck:
 * a write past every guard, which only memcheck can see. Correct, except
 * that on the first launch of its module, if n > 0, it also writes one
 * word 256 MiB past the end of the output.
 *
 * Through the driver and the grading tool:
 *  - The full plan's first launch has n = 0 (its sizes start at 0), so the
 *    stray write never happens there: every run passes and the kernel is
 *    timed. (Past the guards the write would land in another of the
 *    driver's buffers, unseen, or on no memory at all, a fault: it is made
 *    only where its outcome is certain.)
 *  - memcheck's run (--plan sanitize, sizes 1, 33, 257, 4097 and 65537, no
 *    timing) starts with n = 1: its output holds 65537 words between
 *    guards of 2^20 words (4 MiB) on each side, so the guard after a
 *    1-word output ends 4.25 MiB past it. 256 MiB past is outside every
 *    allocation of that process (about 10 MiB in all): memcheck reports an
 *    invalid __global__ write, compute-sanitizer exits 86, and the verdict
 *    is out_of_bounds whatever the full plan found.
 *  - With --no-sanitize the case passes: this is what memcheck's run
 *    catches and nothing else does (run_tests.py grades it both ways).
 * Writes that stay within the guards are found by the full plan itself:
 * out_of_bounds (one word past), oob_kib (4 KiB past). */
#include <cstddef>

__device__ unsigned launched = 0;       // 1 once a launch has finished
__device__ unsigned blocksDone = 0;

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    // Read before any block of this launch can set it (the last block to
    // finish does, after every block has counted itself).
    const bool first = *(volatile unsigned*)&launched == 0;
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
        if (first && i + 1 == n)
            out[n + ((size_t)256 << 20) / sizeof(int)] = v;  // 256 MiB past
    }
    __syncthreads();   // every thread of the block has read launched
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocksDone, 1u) == gridDim.x - 1) {
            blocksDone = 0;
            launched = 1;
            __threadfence();
        }
    }
}
