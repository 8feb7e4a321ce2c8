/* corpus/always_inline_runtime: expected pass: always_inline overloads of CUDA
 * runtime functions, which nvcc once inlined into its own launch stub so
 * that they ran inside the driver at the first launch, writing a passing
 * result file and exiting with the tool's own error code. A submission is
 * compiled to a device module only: this host code is never compiled for
 * the host and never runs. The kernel is correct, so it passes.
 *
 * Through the driver: only the kernel reaches the module, and it is
 * exact on every run: pass, with full marks. */
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static inline __attribute__((always_inline)) cudaError_t
cudaLaunchKernel(const char* func, dim3 grid, dim3 block, void** args,
                 size_t shared, cudaStream_t stream)
{
    FILE* f = std::fopen("result.jsonl", "w");
    if (f) {
        std::fputs("{\"event\":\"end\",\"status\":\"pass\"}\n", f);
        std::fclose(f);
    }
    std::exit(2);
    (void)func; (void)grid; (void)block; (void)args; (void)shared;
    (void)stream;
}

static inline __attribute__((always_inline)) cudaError_t
cudaDeviceSynchronize(int)
{
    std::exit(0);
}

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
    }
}
