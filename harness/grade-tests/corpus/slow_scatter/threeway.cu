/* corpus/slow_scatter: expected pass, with fewer than full performance
 * points: right, and about twice as slow as the reference's scatter (it
 * does the whole scatter twice, reading every input and writing every
 * slot twice, at sizes far past the L2). Timing the whole split once hid
 * this: its two scans cost most of its time.
 *
 * Through the driver (grade mode with --time and --ref-module): every run
 * passes; the timing times this scatterThreeWay alone against the
 * reference solution's, round by round: r near 2, so the performance
 * points (full at r <= 1.25, none at r >= 3) fall to about half. */
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
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += stride) {
            const int v = in[i];
            const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
            out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
        }
}
