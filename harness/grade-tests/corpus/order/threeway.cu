/* corpus/order: expected order: the right groups at the right boundaries, but each
 * group reversed (unstable, deterministic). The exercise's evidence uses
 * this file.
 *
 * Through the driver: n = 0 and n = 1 cannot show an order. The first
 * failure is n=2 mix=thirds when its two elements are both negative or
 * both positive, else n=2 mix=all-negative: both groups in place,
 * reversed: order. */
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
        const size_t c = n - ab;
        const size_t zeros = ab - a;
        size_t dst;
        if (v < 0) dst = a - 1 - nr;
        else if (v == 0) dst = a + (zeros - 1 - zr);
        else dst = ab + (c - 1 - (i - nr - zr));
        out[dst] = v;
    }
}
