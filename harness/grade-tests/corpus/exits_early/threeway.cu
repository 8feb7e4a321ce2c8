/* corpus/exits_early: expected unwritten: 'exits early': the last block ends the kernel
 * at once with the PTX exit instruction, so its slots stay poisoned (a kernel
 * cannot end the process; that would need host code).
 *
 * Through the driver: at n = 1 on the normal grid (one block) the only
 * block is the last, so nothing is written: unwritten. */
#include <cstddef>
__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        if (blockIdx.x + 1 == gridDim.x) asm volatile("exit;");
        size_t dst;
        if (v < 0) dst = nr;
        else if (v == 0) dst = a + zr;
        else dst = ab + (i - nr - zr);
        out[dst] = v;
    }
}
