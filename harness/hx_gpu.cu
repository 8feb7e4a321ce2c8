/* hx_gpu.cu: the harness's device code, the only CUDA file it holds.
 * Contracts are in hx_gpu.h. */
#include "hx_gpu.h"
#include "hx_check.h"

#include <stdint.h>

/* out[i] = in[i]: the copy yardstick. Distinct buffers (the contract), so
 * __restrict__ is true here. Static, like compareInts: the harness's
 * kernels are reached through the functions below only, and their names
 * stay free in every program that links the harness. */
static __global__ void copyInts(const int *__restrict__ in, int *__restrict__ out,
                         size_t n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = in[i];
}

extern "C" void hx_gpu_copy(const hx_device *dev, const int *in, int *out,
                            size_t n, cudaStream_t stream)
{
    if (n == 0) return;
    copyInts<<<hx_grid_for(dev, n, HX_GPU_THREADS), HX_GPU_THREADS, 0,
               stream>>>(in, out, n);
    HX_CHECK_LAUNCH("copyInts");
}

/* out[i] = in[i] four ints at a time: in and out 16-byte aligned, n4 =
 * n / 4 vectors, then the last n % 4 ints by the first threads. */
static __global__ void copyInts4(const int4 *__restrict__ in,
                                 int4 *__restrict__ out, size_t n4,
                                 const int *__restrict__ tailIn,
                                 int *__restrict__ tailOut, unsigned tail)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = first; i < n4; i += stride) out[i] = in[i];
    if (first < tail) tailOut[first] = tailIn[first];
}

extern "C" void hx_gpu_copy_vec(const hx_device *dev, const int *in,
                                int *out, size_t n, cudaStream_t stream)
{
    if (n == 0) return;
    if ((uintptr_t)in % 16 || (uintptr_t)out % 16) {
        hx_gpu_copy(dev, in, out, n, stream);
        return;
    }
    const size_t n4 = n / 4, done = 4 * n4;
    copyInts4<<<hx_grid_for(dev, n4 ? n4 : 1, HX_GPU_THREADS), HX_GPU_THREADS,
                0, stream>>>((const int4 *)in, (int4 *)out, n4, in + done,
                             out + done, (unsigned)(n - done));
    HX_CHECK_LAUNCH("copyInts4");
}

/* Counts the slots where got differs from want (+ plus), and the lowest
 * such index, into *m (reset by the caller). Each thread counts its own
 * slots, then adds them with one atomic of each kind. */
static __global__ void compareInts(const int *__restrict__ got,
                            const int *__restrict__ want,
                            const int *__restrict__ plus, size_t n,
                            hx_mismatch *m)
{
    unsigned long long bad = 0, unwritten = 0, first = ~0ull;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const unsigned w = (unsigned)want[i] + (plus ? (unsigned)plus[i] : 0u);
        const int g = got[i];
        if ((unsigned)g != w) {
            if (!bad) first = i;   /* a thread's indices only grow */
            ++bad;
            unwritten += g == HX_POISON;
        }
    }
    if (bad) {
        atomicAdd(&m->bad, bad);
        atomicAdd(&m->unwritten, unwritten);
        atomicMin(&m->first, first);
    }
}

extern "C" void hx_gpu_compare(const int *got, const int *want,
                               const int *plus, size_t n,
                               hx_mismatch *scratch, hx_mismatch *m,
                               cudaStream_t stream)
{
    const hx_mismatch none = {0, 0, ~0ull};
    HX_CHECK(cudaMemcpyAsync(scratch, &none, sizeof none,
                             cudaMemcpyHostToDevice, stream));
    if (n) {
        compareInts<<<hx_grid_for(NULL, n, HX_GPU_THREADS), HX_GPU_THREADS,
                      0, stream>>>(got, want, plus, n, scratch);
        HX_CHECK_LAUNCH("compareInts");
    }
    HX_CHECK(cudaMemcpyAsync(m, scratch, sizeof *m, cudaMemcpyDeviceToHost,
                             stream));
    HX_CHECK(cudaStreamSynchronize(stream));
}
