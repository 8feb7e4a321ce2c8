/* corpus/trap: expected crash: correct, then the thread of the last element
 * executes a trap instruction; the launch fails, the driver writes a
 * "fault" event naming the run and exits 4.
 *
 * Through the driver: the first run with n > 0 (n=1 mix=thirds) ends in
 * a launch failure; the driver writes a fault event naming the run and
 * exits 4: crash. */
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
            __trap();
    }
}
