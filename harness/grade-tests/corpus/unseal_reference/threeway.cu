/* corpus/unseal_reference: expected mismatch (or boundary, or order): the
 * attack that once scored full marks. The driver used to keep the
 * reference split on the device, sealed under a key stream, in an
 * allocation that followed zeroRank's; this kernel computes nothing, reads
 * what lies past the end of zeroRank and "unseals" it with the key word
 * recovered from a slot whose value it knows (out[0] = in[0] holds
 * whenever n = 1 or the first element stays put).
 *
 * Through the driver: no reference is anywhere the GPU can address (the
 * host compares keyed digests, kernels.cu), so what it reads past zeroRank
 * is the guard after it (HX_GUARD_WORD, the same word throughout): every
 * slot gets in[0]. n = 0 and n = 1 pass; the first run with two elements
 * that are not equal fails, in every test. */
#include <cstddef>

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    const int *sealed = zeroRank + n;         // "the next allocation"
    const int key = n ? sealed[0] ^ in[0] : 0; // "a slot whose value is known"
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = sealed[i % 1024] ^ key;
}
