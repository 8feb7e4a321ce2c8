/* corpus/mismatch: expected mismatch: every positive is written one too large.
 *
 * Through the driver: the first run holding a positive (n=1 mix=thirds
 * when its element is positive, else n=1 mix=all-positive) has the right
 * groups and boundaries but a value the input does not have: mismatch. */
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
        size_t dst;
        if (v < 0) dst = nr;
        else if (v == 0) dst = a + zr;
        else dst = ab + (i - nr - zr);
        out[dst] = v > 0 ? v + 1 : v;
    }
}
