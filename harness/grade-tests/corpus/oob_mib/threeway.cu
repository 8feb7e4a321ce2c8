/* corpus/oob_mib: expected out_of_bounds: correct, plus, for small n only,
 * one write 3 MiB past the end of the output: far beyond a narrow guard,
 * still inside the driver's wide guard region after the output. */
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
        if (n < 100000 && i + 1 == n)
            out[n + (3u << 20) / sizeof(int)] = v;   // 3 MiB past the end
    }
}
