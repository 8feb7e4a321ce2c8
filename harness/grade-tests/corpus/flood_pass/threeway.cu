/* corpus/flood_pass: expected unwritten or timeout: prints PASS (and a
 * fake result line) from every thread, floods the output, and writes
 * nothing; the grader ignores stdout.
 *
 * Through the driver: n = 0 writes nothing either way and n=1
 * mix=thirds, with nothing written, is unwritten; what it prints lands
 * on the driver's stdout (a 64 KiB buffer), which is never parsed. Every
 * thread prints 64 lines whatever n is, so a drawn grid of up to 300
 * blocks of 1024 threads prints millions of lines, even at n = 0; the
 * device's printf buffer drains only as fast as the host takes it, and on
 * a machine busy grading a class the run can pass the driver's per-run
 * limit first: timeout (seen on the H200 when the corpus ran inside a
 * full make check). Both verdicts fail the kernel; neither is a pass. */
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
