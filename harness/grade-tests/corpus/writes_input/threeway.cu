/* corpus/writes_input: expected input_written (in): the split is right,
 * and each thread then overwrites the input element it read (the attack
 * that once turned the timing into a copy wrote the answer over its
 * input). The const of a parameter is a promise the compiler takes, not
 * a protection: a cast removes it.
 *
 * Through the driver: after every launch the device digests in, negRank,
 * zeroRank and the totals under a key drawn after the launch, and the
 * host compares them with the digests taken before the group's first
 * launch (runs.cu): the first run with n > 0 fails input_written, naming
 * in, in every test. */
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
        const_cast<int*>(in)[i] = v ^ 1;   // every value changes
    }
}
