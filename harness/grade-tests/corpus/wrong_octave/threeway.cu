/* corpus/wrong_octave: expected unwritten or boundary: right, except for
 * sizes strictly between 2^24 + 1 and 2^25, where the last element is
 * never written. The plan once drew no size between 8,387,997 and
 * 62,914,560.
 *
 * Through the driver (an H200: the largest size is 62914560): the test
 * every_octave draws an even and an odd size in [2^24, 2^25) (the test
 * large runs 2^24 + 1 and block_grid_edges 2^24 + 1, both outside the
 * range): every_octave fails there; the other tests pass. The drawn
 * input's last element decides the verdict: a positive leaves the
 * output's last slot unwritten (unwritten); a negative or a zero leaves
 * its group's last slot unwritten, which the check reads as a boundary
 * one slot early (boundary; seen on the H200 at b7c30a3). On a GPU whose
 * largest size is 2^24 nothing is in the range and it passes. */
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
        if (n > ((size_t)1 << 24) + 1 && n < ((size_t)1 << 25) && i + 1 == n)
            continue;
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
    }
}
