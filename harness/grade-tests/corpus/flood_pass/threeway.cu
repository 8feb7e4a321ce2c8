/* corpus/flood_pass: expected unwritten: prints PASS (and a fake result line) from every
 * thread, floods the output, and writes nothing; the grader ignores stdout.
 *
 * Through the driver: n = 0 passes (nothing to write), and n=1
 * mix=thirds, with nothing written, is unwritten; what it prints lands
 * on the driver's stdout (a 64 KiB buffer), which is never parsed. */
#include <cstddef>
#include <cstdio>
__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    for (int k = 0; k < 64; ++k)
        printf("PASS {\"status\":\"pass\"} thread %d line %d\n", (int)threadIdx.x, k);
    (void)in; (void)negRank; (void)zeroRank; (void)out; (void)n;
    (void)totalNeg; (void)totalZero;
}
