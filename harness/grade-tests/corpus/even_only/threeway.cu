/* corpus/even_only: expected boundary or unwritten: correct for every
 * odd n, and for an even n it never writes the last element's slot. A
 * plan of odd sizes alone passes it; the driver's plan holds even sizes
 * too.
 *
 * Through the driver: the plan's sizes hold even ones from the start
 * (0 to 8, every 2^k for k = 4..20, half the drawn sizes, the timing
 * size). n = 0 writes nothing either way and n = 1 is odd, so the first
 * run that fails is n=2 mix=thirds on the normal grid: the last element's
 * slot stays poison. Which verdict follows depends on the drawn input
 * (the grading seed is random): when the last element is alone in its
 * group, that group is never written (unwritten); otherwise one unwritten
 * slot at the end of a group reads the same as the group's base shifted
 * by one slot whose write lost a race, and the check reports a boundary
 * error naming both readings. The H200 runs of this corpus gave each.
 * Either catches the kernel; no write lands outside the output. */
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
        if (n % 2 == 0 && i + 1 == n)
            continue;
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
    }
}
