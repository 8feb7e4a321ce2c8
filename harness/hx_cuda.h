/* hx_cuda.h: exit codes, the CUDA error-check macro, and the device query
 * every lab starts with.
 *
 * Every program of the course exits with one of the HX_EXIT_ codes below;
 * the top-level README lists them for students and instructors.
 */
#ifndef HX_CUDA_H
#define HX_CUDA_H

#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HX_EXIT_OK = 0,      /* ran, and every check passed */
    HX_EXIT_FAIL = 1,    /* a result check failed (the report says where) */
    HX_EXIT_USAGE = 2,   /* bad command line: unknown option, bad number */
    HX_EXIT_NO_GPU = 3,  /* no usable CUDA device or driver */
    HX_EXIT_CUDA = 4,    /* a CUDA call or kernel failed at run time */
    HX_EXIT_NOMEM = 5    /* the requested size does not fit the device */
};

/* Wraps every CUDA runtime call: on failure prints
 *   CUDA error: <call> at <file>:<line>: <error name>: <error string>
 * to stderr and exits with HX_EXIT_CUDA (HX_EXIT_NO_GPU when the error says
 * there is no device or driver, HX_EXIT_NOMEM when an allocation found no
 * room: cudaErrorMemoryAllocation). */
#define HX_CHECK(call) hx_cuda_check((call), #call, __FILE__, __LINE__)

/* Checks the launch just made (configuration errors) without waiting for
 * the kernel; a fault inside the kernel surfaces at the next checked
 * synchronising call. */
#define HX_CHECK_LAUNCH(name) \
    hx_cuda_check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)

void hx_cuda_check(cudaError_t err, const char *call, const char *file,
                   int line);

/* What the labs print about the GPU and size their problems from. */
typedef struct {
    int id;
    char name[256];
    int major, minor;          /* compute capability */
    int sms;                   /* multiprocessors */
    size_t smem_per_block;     /* bytes of shared memory a block may use */
    size_t l2_bytes;           /* L2 cache size in bytes */
    size_t total_mem;          /* device memory in bytes */
    size_t free_mem;           /* free device memory when opened */
    int driver_version;        /* CUDA driver API version, e.g. 13000 */
    int runtime_version;       /* CUDA runtime version */
} hx_device;

/* Opens device 0 (or $CUDA_VISIBLE_DEVICES's first) and fills *dev.
 * Returns HX_EXIT_OK, or HX_EXIT_NO_GPU after printing exactly one line
 * to stderr, "<prog>: <hx_gpu_unusable's reason>". Never launches
 * anything, never aborts. */
int hx_device_open(hx_device *dev, const char *prog);

/* What hx_device_open learned before it gave up, or all of it. */
typedef struct {
    cudaError_t err;        /* the first failing call's error, or
                               cudaSuccess */
    const char *call;       /* that call's name (valid when err is set) */
    int driver_version;     /* cudaDriverGetVersion: 0 when no driver is
                               installed, else e.g. 12040 for CUDA 12.4 */
    int runtime_version;    /* cudaRuntimeGetVersion, e.g. 13000 */
    int count;              /* devices found (valid when err is not from
                               cudaGetDeviceCount) */
    int major, minor;       /* device 0's compute capability, 0 if unread */
    const char *name;       /* device 0's name, or NULL */
    const char *visible;    /* $CUDA_VISIBLE_DEVICES, or NULL when unset */
} hx_gpu_facts;

/* The oldest Linux driver branch a CUDA runtime of this version runs on
 * (minor version compatibility: any driver of the same major family or
 * newer): 580 for CUDA 13.x, 525 for 12.x, 450 for 11.x; 0 when unknown. */
int hx_driver_needed(int runtime_version);

/* Says whether the facts leave no usable GPU. Returns 0 when they do not
 * (a device of compute capability 7.5 or newer was opened); otherwise 1,
 * with one sentence in why[0..len), no newline, naming the first of:
 *   no NVIDIA driver  (driver version 0, or only the toolkit's stub
 *                      libcuda), with the driver this runtime needs;
 *   driver too old    (it supports an older CUDA major than the runtime,
 *                      or the runtime says it is insufficient), with the
 *                      CUDA version it supports and the driver needed;
 *   no CUDA device    (with CUDA_VISIBLE_DEVICES when it is set);
 *   compute capability below 7.5 (with the GPU's name and its own);
 *   any other failure: the call and its error.
 * why may be NULL when len is 0. Calls no CUDA function but
 * cudaGetErrorName and cudaGetErrorString. */
int hx_gpu_unusable(const hx_gpu_facts *f, char *why, size_t len);

/* Prints the "GPU:" block: name, compute capability, SMs, shared memory
 * per block, L2, memory, driver and runtime versions. */
void hx_device_print(const hx_device *dev, FILE *out);

/* The default problem size for a memory-bound lab: the smallest power of
 * two n >= 2^24 whose one buffer (n * 4 bytes) is at least 16 times the
 * L2, then halved until bytes_per_element * n fits in half the free
 * memory. Writes one sentence saying why into why[0..whylen). */
size_t hx_default_n(const hx_device *dev, size_t bytes_per_element,
                    char *why, size_t whylen);

/* Returns 1 when bytes fits in the device's free memory with 5% (and at
 * least 64 MiB) to spare, else 0. */
int hx_fits(const hx_device *dev, size_t bytes);

/* Prints, when one buffer of buffer_bytes fits in 2 * L2, the warning
 * "WARNING: each buffer (X MiB) fits in the L2 (Y MiB): timings measure
 * the cache, not device memory". Returns 1 when it warned. */
int hx_warn_if_cached(const hx_device *dev, size_t buffer_bytes, FILE *out);

/* Blocks for an element-wise grid-stride kernel of block threads over n
 * elements: enough to fill every SM several times, never more than n
 * needs, at least 1. */
unsigned hx_grid_for(const hx_device *dev, size_t n, unsigned block);

/* Blocks of kernel (a __global__ function, cast to const void *) that run
 * on the whole GPU at once with block threads and dyn_smem bytes of
 * dynamic shared memory: the occupancy API's blocks per SM times the SMs,
 * at least 1. The grid of a kernel that loops over tiles. */
unsigned hx_resident_blocks(const hx_device *dev, const void *kernel,
                            int block, size_t dyn_smem);

/* malloc(bytes), at least 1 byte; on failure prints one line
 * "out of host memory: <bytes> bytes" to stderr and exits with
 * HX_EXIT_NOMEM. */
void *hx_host_alloc(size_t bytes);

/* Host memory the process may still take, from /proc/meminfo's
 * MemAvailable; SIZE_MAX where that cannot be read. */
size_t hx_host_available(void);

#ifdef __cplusplus
}
#endif
#endif
