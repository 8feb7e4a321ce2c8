/* solution/threeway.cu: the reference solution of the day 33 exercise.
 * Spoiler: README.md beside it explains it; try the hints in ../README.md
 * first.
 *
 *   make solution       compile this file to build/solution.fatbin (one
 *                       ARCH: .cubin), then ./threeway --module it: the
 *                       check and the timing
 *
 * The contract is the starter's (../threeway.cu), repeated here so this
 * file reads on its own.
 */
#include <cstddef>

/* in[i]: the input; negRank[i], zeroRank[i]: exclusive counts of negatives
 * and zeros in in[0..i); *totalNeg, *totalZero: the group sizes A and B,
 * left in device memory by the scans; out[0..n): negatives, zeros,
 * positives, each group in input order (stable). Correct for any grid:
 * a grid-stride loop, one pass, every slot of out written exactly once.
 *
 * Where element i goes:
 *   negative: negRank[i]                      (group 1 starts at 0)
 *   zero:     A + zeroRank[i]                 (group 2 starts at A)
 *   positive: A + B + (i - negRank[i] - zeroRank[i])
 * The third group needs no scan of its own: every element before i that
 * is neither negative nor zero is positive, so its positive rank is what
 * remains of i once the other two ranks are taken away. A k-way split thus
 * needs k - 1 counts per element (here one scan each; one scan over packed
 * counts could carry them all). Ranks are exclusive and counted in input
 * order, which is what keeps each group stable. */
__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    /* The totals are the same for every i: read them once per thread, from
     * device memory, with no copy to the host between the scans and this
     * kernel. The driver writes them even when n is 0. */
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t neg = (size_t)negRank[i];
        const size_t zero = (size_t)zeroRank[i];
        size_t dst;
        if (v < 0)
            dst = neg;
        else if (v == 0)
            dst = a + zero;
        else
            dst = ab + (i - neg - zero);
        out[dst] = v;
    }
}
