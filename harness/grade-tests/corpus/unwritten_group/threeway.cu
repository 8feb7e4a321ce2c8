/* corpus/unwritten_group: expected unwritten: every negative and positive in
 * its slot, and no zero ever written: the report names the zeros' group,
 * not a boundary.
 *
 * Through the driver: n=1 mix=thirds writes nothing when its element is
 * a zero (unwritten); otherwise it passes, and n=1 mix=all-zero writes
 * nothing: unwritten either way (at larger n the check names the zeros'
 * group). */
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
        if (v < 0)
            out[nr] = v;
        else if (v > 0)
            out[ab + (i - nr - zr)] = v;
    }
}
