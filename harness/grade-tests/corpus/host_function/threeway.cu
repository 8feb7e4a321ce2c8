/* corpus/host_function: expected pass: a __host__ __device__ helper next to a
 * correct kernel. Only its device side is compiled.
 *
 * Through the driver: only the kernel reaches the module, and it is
 * exact on every run: pass, with full marks. */
#include <cstddef>
__host__ __device__ size_t slotOf(int v, size_t i, size_t nr, size_t zr,
                                size_t a, size_t ab)
{
    return v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr);
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
        out[slotOf(v, i, nr, zr, a, ab)] = v;
    }
}
