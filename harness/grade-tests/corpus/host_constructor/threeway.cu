/* corpus/host_constructor: expected pass: a constructor attribute, host code
 * that would run before the driver's main and write a passing result file.
 * It is never compiled for the host (device code only), so it never runs;
 * the kernel beside it is correct.
 *
 * Through the driver: only the kernel reaches the module, and it is
 * exact on every run: pass, with full marks. */
#include <cstddef>
#include <cstdio>

__attribute__((constructor)) static void early(void)
{
    FILE* f = std::fopen("result.json", "w");
    if (f) { std::fputs("{\"status\":\"pass\"}\n", f); std::fclose(f); }
}
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
        else dst = ab + (i - nr - zr);
        out[dst] = v;
    }
}
