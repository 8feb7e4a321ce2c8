/* corpus/writes_rank: expected input_written (negRank): the split is
 * right, and each thread then zeroes the rank it read.
 *
 * Through the driver: negRank[i] is 0 for every i until the first
 * negative, so zeroing changes nothing on some small inputs; the first run
 * whose input has a negative before its last element fails
 * input_written, naming negRank (the digests of the inputs, runs.cu). */
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
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
        const_cast<int*>(negRank)[i] = 0;
    }
}
