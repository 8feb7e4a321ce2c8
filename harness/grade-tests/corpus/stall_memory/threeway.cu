/* corpus/stall_memory: expected pass (on an H200): a right kernel with a
 * 384 KiB stack frame, so that its first launch makes the CUDA driver
 * reserve local memory for every thread the GPU can hold: 2048 threads an
 * SM times 132 SMs times 384 KiB, about 99 GiB of the H200's 139, kept for
 * as long as its driver runs. The other drivers on the GPU must still be
 * graded as alone: finding too little memory is never the student's fault
 * (the grading tool retries such a driver, gpu_memory).
 *
 * The most a device module can reserve: its static data stays below
 * 4 GiB (ptxas keeps the size of .nv.global in 32 bits: a 128 GiB
 * __device__ array becomes a section of 0 bytes), and device malloc draws
 * from a heap the host sizes (8 MiB by default); a stack frame, though, is
 * multiplied by every resident thread.
 *
 * Through the driver: the frame's array is used only by a branch that no
 * size of the plan takes (so the compiler keeps the frame); every run
 * passes with the memory left. On a GPU where the reservation does not
 * fit, the first launch is refused (CUDA_ERROR_OUT_OF_MEMORY). */
#include <cstddef>

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    if (n == (size_t)123456789012ull) {
        volatile int scratch[98304];             /* 384 KiB */
        scratch[threadIdx.x % 98304u] = 1;
        out[0] = scratch[(threadIdx.x * 7u) % 98304u];
    }
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
