/* corpus/writes_beside_input: expected out_of_bounds (beside in): the
 * split is right, and the thread of element 0 writes one word just past
 * the end of in. Only the output had guards once; a write beside an
 * input went unseen.
 *
 * Through the driver: every buffer the kernel receives lies between guard
 * words, read after every launch (runs.cu): the first run with n > 0 fails
 * out_of_bounds, naming in. */
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
        if (i == 0)
            const_cast<int*>(in)[n] = 12345;   // in[n]: past the end
    }
}
