/* corpus/boundary: expected out_of_bounds: the exercise's classic bug,
 * boundary 2 one slot early: positives are placed at
 * *totalNeg + *totalZero - 1 + rank, so the first positive lands on the
 * last zero's slot and the last slot is never written. The exercise's
 * evidence uses this file.
 *
 * Graded, its verdict is out_of_bounds, not boundary: the plan stops at
 * its first failing run, and that is at n = 1. With no negative and no
 * zero (the all-positive mix, or a positive thirds element), the base
 * *totalNeg + *totalZero - 1 is -1: the only positive lands one word
 * before the output, in the guard. (Student mode runs the whole plan and
 * shows the [boundary] runs of larger n too.) */
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
        else dst = ab - 1 + (i - nr - zr);
        out[dst] = v;
    }
}
