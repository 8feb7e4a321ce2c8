/* hx_gpu.h: what the harness must run on the device, behind a C API: the
 * copy yardstick every table's "x copy" is measured against, and the
 * element-for-element compare that checks an output where it lies (a
 * check at 2^30 copies nothing to the host). Defined in hx_gpu.cu, the
 * harness's one CUDA file; callable from C and C++.
 *
 * Every function enqueues on the stream it is given (0: the default
 * stream) and checks its launch with HX_CHECK_LAUNCH; none synchronises
 * except hx_gpu_compare, which must hand its answer to the host.
 */
#ifndef HX_GPU_H
#define HX_GPU_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "hx_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the harness's kernels. */
#define HX_GPU_THREADS 256

/* out[i] = in[i] for i < n: a grid-stride copy of ints, one int per thread
 * per step, on hx_grid_for(dev, n, HX_GPU_THREADS) blocks. Reads n ints
 * and writes n, as little as any algorithm over the same data must move.
 * in and out must not overlap. One launch (none when n == 0). The table
 * calls it "copyInts", the name of its kernel. */
void hx_gpu_copy(const hx_device *dev, const int *in, int *out, size_t n,
                 cudaStream_t stream);

/* The same copy with 16-byte vectors: where in and out are both 16-byte
 * aligned, a grid-stride copy of int4 (one 16-byte load and store per
 * thread per step; the last n % 4 ints one by one), else hx_gpu_copy's.
 * What an SM-driven copy reaches on this GPU, beside the scalar
 * yardstick; the table calls it "copy, 16-byte vectors". */
void hx_gpu_copy_vec(const hx_device *dev, const int *in, int *out, size_t n,
                     cudaStream_t stream);

/* The outcome of one compare. */
typedef struct {
    unsigned long long bad;        /* slots where got != want */
    unsigned long long unwritten;  /* of those, slots holding HX_POISON */
    unsigned long long first;      /* lowest bad index; ~0ull when none */
} hx_mismatch;

/* Compares got[0..n) with want[0..n) (all device memory), exactly: slot
 * i is bad when got[i] != want[i], or, when plus is not NULL, when got[i]
 * != want[i] + plus[i] computed modulo 2^32 (an inclusive scan held to the
 * exclusive reference plus the input). scratch: one device hx_mismatch
 * the caller owns (reset here). Waits for the stream, then returns the
 * counts in *m. n == 0 launches nothing and reports no bad slot. */
void hx_gpu_compare(const int *got, const int *want, const int *plus,
                    size_t n, hx_mismatch *scratch, hx_mismatch *m,
                    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
