/* corpus/wrong_single_group: expected unwritten: right, except when one
 * group holds every element and n > 8192: then the last element is never
 * written. The single-group mixes once stopped at 4,097 elements.
 *
 * Through the driver: the test single_group runs all-negative, all-zero
 * and all-positive up to 2^22 + 1: it fails at 65537, unwritten, and so
 * does large (every mix at 2^24 + 1); the other tests pass. */
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
        if ((a == n || ab - a == n || ab == 0) && n > 8192 && i + 1 == n)
            continue;
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
    }
}
