/* corpus/extern_c_libc: expected pass: extern "C" __global__ functions named
 * like libc functions (open, fcntl, unlink, dup2). Linked into a host
 * program, their launch stubs once replaced libc's own inside the driver.
 * In a device module they are just extra entries the driver never calls.
 * The kernel is correct, so it passes.
 *
 * Through the driver: the module's other entries are never looked up
 * (the driver asks for scatterThreeWay's mangled name), and the kernel
 * is exact on every run: pass, with full marks. */
#include <cstddef>

extern "C" __global__ void open(int* p) { if (p) *p = 0; }
extern "C" __global__ void fcntl(int* p) { if (p) *p = 1; }
extern "C" __global__ void unlink(int* p) { if (p) *p = 2; }
extern "C" __global__ void dup2(int* p) { if (p) *p = 3; }

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
