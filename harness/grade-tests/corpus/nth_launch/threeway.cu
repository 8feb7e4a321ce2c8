/* corpus/nth_launch: expected nondeterministic: correct for its first 12
 * launches of 2^22 elements or more, then it writes nothing, as a kernel
 * that guesses it is being timed would (the attack that once scored full
 * performance points stopped at its 4th launch). A __device__ counter lives
 * as long as the module, i.e. the whole plan. The driver's checks launch it
 * at such sizes fewer than 12 times (8387997, 16777217 and the timing size,
 * a few grids each); the timing launches it more often, each timed launch
 * is checked, and the first wrong one makes the timing nondeterministic. */
#include <cstddef>

__device__ unsigned bigLaunches = 0;
__device__ unsigned blocksDone = 0;

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    const bool big = n >= ((size_t)1 << 22);
    // Read before any block of this launch can bump it (see below).
    const unsigned seen = *(volatile unsigned*)&bigLaunches;
    if (!(big && seen >= 12)) {
        const size_t a = (size_t)*totalNeg;
        const size_t ab = a + (size_t)*totalZero;
        const size_t stride = (size_t)blockDim.x * gridDim.x;
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += stride) {
            const int v = in[i];
            const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
            out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
        }
    }
    // The last block to finish counts the launch, so every thread of one
    // launch saw the same count.
    __syncthreads();
    if (big && threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocksDone, 1u) == gridDim.x - 1) {
            blocksDone = 0;
            atomicAdd(&bigLaunches, 1u);
            __threadfence();
        }
    }
}
