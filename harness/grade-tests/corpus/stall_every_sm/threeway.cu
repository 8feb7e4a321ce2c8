/* corpus/stall_every_sm: expected timeout: every thread of every block
 * spins forever once n > 0, so the launch fills every SM of the GPU
 * (the normal grid has 32 blocks an SM) and never ends. Other drivers on
 * the GPU share it by time slices, and must be graded as if it were not
 * there.
 *
 * Through the driver: the first run with n > 0 (n=1 mix=thirds) never
 * ends; the watchdog stops the process at the launch's limit (or the
 * batch's hold, whichever is first): timeout, and the lock is freed. */
#include <cstddef>

__device__ size_t spinForever = 0;

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    if (n > 0)
        while (*(volatile size_t*)&spinForever == 0) { }
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
