/* stallers-80gb/stall_memory: corpus/stall_memory's kernel with a
 * 256 KiB stack frame instead of 384 KiB, for a card whose memory the
 * corpus's reservation does not fit (an 80 GB H100: 2048 threads an SM
 * times 132 SMs times 384 KiB is 99 GiB). Here the first launch reserves
 * 2048 x 132 x 256 KiB, about 66 GiB of the H100's 79, kept for as long
 * as its driver runs; the other drivers on the GPU must still be graded
 * as alone. stallers.py grades it in the corpus case's place, under the
 * same name, where the corpus's does not fit and this one does; expected
 * pass, as the corpus's (see that file for why a stack frame).
 */
#include <cstddef>

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    if (n == (size_t)123456789012ull) {
        volatile int scratch[65536];             /* 256 KiB */
        scratch[threadIdx.x % 65536u] = 1;
        out[0] = scratch[(threadIdx.x * 7u) % 65536u];
    }
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
