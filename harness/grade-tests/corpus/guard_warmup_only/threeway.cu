/* corpus/guard_warmup_only: expected out_of_bounds: right everywhere, but
 * it writes the word just past its output during the timing's warm-up
 * rounds only, which were once never checked.
 *
 * Through the driver (grade mode with the timing): the plan launches the
 * timing size once (the last run of the test large); the timing then
 * launches it again and again: round 0's whole split and scatter alone
 * (the 2nd and 3rd launches in a row at that n), round 1's (the 4th and
 * 5th), then the timed rounds. Those four warm-up launches write out[n].
 * Every launch of the timing is followed by the checks of a run, guards
 * included (timing.cu): the timing fails at round 0, status
 * out_of_bounds, and the test repeatability with it. Without the timing
 * (--no-perf, or a student's --check) it passes. */
#include <cstddef>

// The launch's place in a row of launches with the same n: read at the
// start by every thread, updated by the last block to finish, after every
// block has read it (the pattern of corpus/oob_mib).
__device__ unsigned long long lastN = ~0ull;
__device__ unsigned sameCount = 0;
__device__ unsigned blocksDone = 0;

__device__ unsigned placeInRow(size_t n)
{
    return n == *(volatile unsigned long long*)&lastN
               ? *(volatile unsigned*)&sameCount + 1 : 1;
}

__device__ void launchEnded(size_t n, unsigned place)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocksDone, 1u) == gridDim.x - 1) {
            blocksDone = 0;
            lastN = n;
            sameCount = place;
            __threadfence();
        }
    }
}

// The timing size: 2^24 or more and a multiple of 2^20 (the L2's bytes as
// ints: 62914560 on an H200, 16777216 on a T4); no other size of the plan
// is both, but for a drawn one with odds of 2^-20.
__device__ bool timingSize(size_t n)
{
    return n >= ((size_t)1 << 24) && n % ((size_t)1 << 20) == 0;
}

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    const unsigned place = placeInRow(n);
    const bool warmup = timingSize(n) && place >= 2 && place <= 5;
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        out[v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr)] = v;
        if (warmup && i == 0)
            out[n] = v;                    // the guard after the output
    }
    launchEnded(n, place);
}
