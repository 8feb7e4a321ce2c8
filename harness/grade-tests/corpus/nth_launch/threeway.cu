/* corpus/nth_launch: expected nondeterministic. A kernel that guesses when
 * it is being timed (the attack that once scored full performance points
 * went idle from its 4th launch): correct, except that once it has seen 8
 * repeats at n >= 2^22 it writes nothing on every later repeat. A repeat
 * is a launch with the same n and grid as the launch before it; the
 * counters live as long as the module, that is, the whole plan.
 *
 * Through the driver (driver.cu, grade mode, --time):
 *  - The plan's sizes of 2^22 or more are the lesson's 8387997, 16777217
 *    (a fourth scan level) and the timing size (the L2's bytes as ints, at
 *    least 2^24: 62914560 on an H200, 16777216 on a T4). Every other size
 *    is below 2^22: 2^k + 1 stops at k = 20 and the drawn sizes stay below
 *    RANDOM_MAX_N (4 Mi). At those sizes the plan runs the thirds mix
 *    alone, on the normal grid launched twice and on one drawn grid of 64
 *    to 300 blocks (the normal grid has 32 blocks an SM: never the same).
 *    So the plan makes one repeat per large size, 3 in all, and every run
 *    of the plan passes.
 *  - The timing launches it once a round, all on the normal grid at the
 *    timing size: 3 warm-up rounds, then 11 timed ones. Round 0 follows
 *    the plan's drawn grid, so rounds 1 to 13 are repeats 4 to 16; from
 *    round 6 on (the 4th timed round) it writes nothing. Every timed
 *    round's output is compared with the reference (a keyed hash, outside
 *    the timed interval): the timing event says nondeterministic, and so
 *    does the verdict, whatever the kernel's speed.
 *  - Whatever the count: if a plan ever made 9 repeats, the 9th would be
 *    the second launch of a two-launch run, whose output must equal the
 *    first's: nondeterministic again. The timing alone makes at least 10
 *    repeats (at least 2 warm-ups and 9 timed rounds), and every later
 *    round stays idle, so its last timed round always fails.
 *  - With --no-perf nothing is timed and the case passes: every launch the
 *    driver checks is right. */
#include <cstddef>

__device__ size_t lastN = 0;            // the previous launch's n and grid
__device__ unsigned lastBlocks = 0, lastThreads = 0;
__device__ unsigned repeats = 0;        // repeats at n >= 2^22 so far
__device__ unsigned blocksDone = 0;

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    // Read before any block of this launch can change them: the last
    // block to finish does, below, after every block has counted itself.
    const bool repeat = n >= ((size_t)1 << 22) &&
                        *(volatile size_t*)&lastN == n &&
                        *(volatile unsigned*)&lastBlocks == gridDim.x &&
                        *(volatile unsigned*)&lastThreads == blockDim.x;
    const bool idle = repeat && *(volatile unsigned*)&repeats >= 8;
    if (!idle) {
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
    __syncthreads();   // every thread of the block has read the state
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocksDone, 1u) == gridDim.x - 1) {
            blocksDone = 0;
            repeats += repeat ? 1u : 0u;
            lastN = n;
            lastBlocks = gridDim.x;
            lastThreads = blockDim.x;
            __threadfence();
        }
    }
}
