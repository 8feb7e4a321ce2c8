/* corpus/nondeterministic: expected nondeterministic: a __device__ launch counter that is
 * never reset. The last block to finish bumps it, so every thread of one
 * launch sees the same value: even launches write the right split, odd
 * launches reverse the positives. Launch 0 passes, launch 1 differs, and the
 * driver's --repeat 2 reports it, deterministically (no race needed).
 *
 * Through the driver: the normal grid's runs launch twice, on a freshly
 * poisoned output each time, so their two launches always have epochs of
 * different parity. Reversing fewer than two positives changes nothing,
 * so the first run that fails is the first with two positives, n=2
 * mix=thirds or n=2 mix=all-positive: its launches disagree:
 * nondeterministic (whichever of the two was the reversed one). */
#include <cstddef>
__device__ unsigned launches = 0;
__device__ unsigned blocksDone = 0;
__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    // Read before any block can finish: the counter moves only after every
    // block of this launch has counted itself in blocksDone below.
    const unsigned epoch = *(volatile unsigned*)&launches;
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const int v = in[i];
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        const size_t c = n - ab;
        size_t dst;
        if (v < 0) dst = nr;
        else if (v == 0) dst = a + zr;
        else if (epoch % 2 == 0) dst = ab + (i - nr - zr);
        else dst = ab + (c - 1 - (i - nr - zr));
        out[dst] = v;
    }
    __syncthreads();   // every thread of the block has read epoch
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocksDone, 1u) == gridDim.x - 1) {
            blocksDone = 0;
            atomicAdd(&launches, 1u);
            __threadfence();
        }
    }
}
