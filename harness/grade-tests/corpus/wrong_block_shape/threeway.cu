/* corpus/wrong_block_shape: expected unwritten or boundary: right for
 * every block size that is a multiple of 32; otherwise the last thread of
 * each block writes nothing (a kernel that assumes whole warps). Every
 * block size of the plan was once a multiple of 32.
 *
 * Through the driver: the test tiny runs a grid of 3 blocks of 7 threads
 * at every n from 0 to 64: at n = 7 the last thread of block 0 holds the
 * last element, whose slot is never written; block_shapes (1, 7, 33, 100,
 * 255, 1000, 1023 threads) fails too. The drawn input decides the verdict,
 * as for wrong_octave: a positive last element leaves the output's last
 * slot unwritten (unwritten); a negative or a zero leaves its group's last
 * slot unwritten, read as a boundary one slot early (boundary; seen on the
 * H200 with --seed 5: "boundaries found 2, 6; want 3, 6"). */
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
        if (blockDim.x % 32 != 0 && threadIdx.x == blockDim.x - 1)
            continue;
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
    }
}
