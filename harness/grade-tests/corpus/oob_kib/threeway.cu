/* corpus/oob_kib: expected out_of_bounds: correct, plus one write 4 KiB past
 * the end of the output, beyond a narrow guard but inside the driver's
 * wide guard region after the output.
 *
 * Through the driver: the guard after the output is the unused rest of
 * the output buffer plus 2^20 words (4 MiB), so a write 4 KiB past the end
 * lands in it at every size. At n=1 mix=thirds the driver's guard scan
 * finds it: out_of_bounds. */
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
        if (i + 1 == n)
            out[n + 1024] = v;          // 4 KiB past the last slot
    }
}
