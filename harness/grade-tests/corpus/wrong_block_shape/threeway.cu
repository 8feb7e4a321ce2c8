/* corpus/wrong_block_shape: expected unwritten: right for every block
 * size that is a multiple of 32; otherwise the last thread of each block
 * writes nothing (a kernel that assumes whole warps). Every block size of
 * the plan was once a multiple of 32.
 *
 * Through the driver: the test tiny runs a grid of 3 blocks of 7 threads
 * at every n from 0 to 64: at n = 7 the last thread of block 0 holds an
 * element: unwritten; block_shapes (1, 7, 33, 100, 255, 1000, 1023 threads)
 * fails too. */
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
