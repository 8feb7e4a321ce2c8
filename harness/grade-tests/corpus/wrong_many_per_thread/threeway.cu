/* corpus/wrong_many_per_thread: expected unwritten: right while a thread
 * handles at most 2^16 elements; past that it writes nothing more (a
 * 16-bit loop counter, say). No run once gave a thread more than 32,769
 * elements.
 *
 * Through the driver: the test many_per_thread runs two blocks of 100
 * threads at a size that gives each thread more than 65536 elements:
 * unwritten there;
 * the other tests pass (the normal grid gives a thread a few hundred at
 * the largest size). */
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
    unsigned k = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        if (++k > 65536)
            continue;
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
    }
}
