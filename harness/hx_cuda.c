/* hx_cuda.c: the CUDA error check, the device query, and the problem
 * sizing every lab shares. Contracts are in hx_cuda.h. */
#include "hx_cuda.h"

#include <stdlib.h>
#include <string.h>

/* Errors that mean "no usable GPU or driver here" rather than "the program
 * did something wrong": the exit code tells a script (make check, the
 * grader) to skip rather than fail. */
static int hx_is_no_gpu_error(cudaError_t err)
{
    switch (err) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorSystemNotReady:
    case cudaErrorStubLibrary:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInitializationError:
        return 1;
    default:
        return 0;
    }
}

void hx_cuda_check(cudaError_t err, const char *call, const char *file,
                   int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "CUDA error: %s at %s:%d: %s: %s\n", call, file, line,
            cudaGetErrorName(err), cudaGetErrorString(err));
    fflush(stderr);
    exit(hx_is_no_gpu_error(err) ? HX_EXIT_NO_GPU : HX_EXIT_CUDA);
}

#define HX_MIN_MAJOR 7
#define HX_MIN_MINOR 5
#define HX_NEED "the labs need a GPU of compute capability 7.5 or newer"

/* One line, the reason, and NO_GPU: hx_device_open never exits itself, so
 * a caller decides what "no GPU" means for it. */
static int hx_no_gpu(const char *prog, const char *call, cudaError_t err)
{
    fprintf(stderr, "%s: no CUDA GPU available (%s: %s); " HX_NEED "\n",
            prog ? prog : "hx", call, cudaGetErrorString(err));
    return HX_EXIT_NO_GPU;
}

int hx_device_open(hx_device *dev, const char *prog)
{
    int count = 0, value = 0;
    size_t free_b = 0, total_b = 0;
    struct cudaDeviceProp prop;
    cudaError_t err;

    memset(dev, 0, sizeof *dev);
    if (!prog)
        prog = "hx";

    err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
        return hx_no_gpu(prog, "cudaGetDeviceCount", err);
    if (count < 1) {
        fprintf(stderr, "%s: no CUDA GPU available (cudaGetDeviceCount "
                "found 0 devices); " HX_NEED "\n", prog);
        return HX_EXIT_NO_GPU;
    }
    /* Device 0 of the runtime is the first one CUDA_VISIBLE_DEVICES lists. */
    dev->id = 0;
    if ((err = cudaSetDevice(dev->id)) != cudaSuccess)
        return hx_no_gpu(prog, "cudaSetDevice", err);
    if ((err = cudaGetDeviceProperties(&prop, dev->id)) != cudaSuccess)
        return hx_no_gpu(prog, "cudaGetDeviceProperties", err);
    strncpy(dev->name, prop.name, sizeof dev->name - 1);
    dev->name[sizeof dev->name - 1] = '\0';

    /* Attributes rather than cudaDeviceProp fields: they are stable across
     * toolkits (CUDA 13 removed several prop fields). */
#define HX_ATTR(field, attr)                                              \
    do {                                                                  \
        if ((err = cudaDeviceGetAttribute(&value, attr, dev->id)) !=      \
            cudaSuccess)                                                  \
            return hx_no_gpu(prog, "cudaDeviceGetAttribute(" #attr ")",   \
                             err);                                        \
        field = value;                                                    \
    } while (0)
    HX_ATTR(dev->major, cudaDevAttrComputeCapabilityMajor);
    HX_ATTR(dev->minor, cudaDevAttrComputeCapabilityMinor);
    HX_ATTR(dev->sms, cudaDevAttrMultiProcessorCount);
    HX_ATTR(dev->smem_per_block, cudaDevAttrMaxSharedMemoryPerBlock);
    HX_ATTR(dev->l2_bytes, cudaDevAttrL2CacheSize);
#undef HX_ATTR

    if (dev->major < HX_MIN_MAJOR ||
        (dev->major == HX_MIN_MAJOR && dev->minor < HX_MIN_MINOR)) {
        fprintf(stderr, "%s: GPU 0 (%s) has compute capability %d.%d; "
                HX_NEED "\n", prog, dev->name, dev->major, dev->minor);
        return HX_EXIT_NO_GPU;
    }
    /* cudaMemGetInfo creates the context: the first call that can fail
     * because the device is busy or exclusive to another process. */
    if ((err = cudaMemGetInfo(&free_b, &total_b)) != cudaSuccess)
        return hx_no_gpu(prog, "cudaMemGetInfo", err);
    dev->free_mem = free_b;
    dev->total_mem = total_b;
    if ((err = cudaDriverGetVersion(&dev->driver_version)) != cudaSuccess)
        return hx_no_gpu(prog, "cudaDriverGetVersion", err);
    if ((err = cudaRuntimeGetVersion(&dev->runtime_version)) != cudaSuccess)
        return hx_no_gpu(prog, "cudaRuntimeGetVersion", err);
    return HX_EXIT_OK;
}

#define HX_MIB (1024.0 * 1024.0)
#define HX_GIB (1024.0 * 1024.0 * 1024.0)

void hx_device_print(const hx_device *dev, FILE *out)
{
    fprintf(out, "GPU: %s (compute capability %d.%d, %d SMs)\n", dev->name,
            dev->major, dev->minor, dev->sms);
    fprintf(out, "  shared memory per block %zu KiB, L2 %.1f MiB, "
            "memory %.1f GiB (%.1f GiB free)\n",
            dev->smem_per_block / 1024, dev->l2_bytes / HX_MIB,
            dev->total_mem / HX_GIB, dev->free_mem / HX_GIB);
    fprintf(out, "  driver CUDA %d.%d, runtime CUDA %d.%d\n",
            dev->driver_version / 1000, dev->driver_version % 1000 / 10,
            dev->runtime_version / 1000, dev->runtime_version % 1000 / 10);
}

static int hx_log2_of(size_t n)
{
    int k = 0;
    while (n > 1) {
        n >>= 1;
        ++k;
    }
    return k;
}

size_t hx_default_n(const hx_device *dev, size_t bytes_per_element,
                    char *why, size_t whylen)
{
    /* 2^30 is the largest power of two below HX_MAX_N (ranks are int). */
    const size_t lo = (size_t)1 << 24, hi = (size_t)1 << 30;
    size_t n = lo, first, budget = dev->free_mem / 2;
    double buf_mib, l2_mib = dev->l2_bytes / HX_MIB;
    int halved = 0, capped = 0;
    char tail[160];

    while (n * 4 < 16 * dev->l2_bytes && n < hi)
        n *= 2;
    if (n * 4 < 16 * dev->l2_bytes)
        capped = 1;
    first = n;
    if (bytes_per_element > 0)
        while (n > 1 && bytes_per_element * n > budget) {
            n /= 2;
            halved = 1;
        }
    buf_mib = n * 4 / HX_MIB;

    if (dev->l2_bytes == 0)
        snprintf(tail, sizeof tail, "the L2 size is unknown");
    else if ((double)n * 4 > 2.0 * dev->l2_bytes)
        snprintf(tail, sizeof tail, "each %.5g MiB buffer is %.1fx the "
                 "%.5g MiB L2, so timings measure device memory", buf_mib,
                 n * 4.0 / dev->l2_bytes, l2_mib);
    else
        snprintf(tail, sizeof tail, "each %.5g MiB buffer is only %.1fx "
                 "the %.5g MiB L2, so timings partly measure the cache",
                 buf_mib, n * 4.0 / dev->l2_bytes, l2_mib);

    if (why && whylen > 0) {
        if (halved)
            snprintf(why, whylen, "2^%d elements: halved from 2^%d so %zu "
                     "bytes per element fit in half the free memory "
                     "(%.5g MiB); %s", hx_log2_of(n), hx_log2_of(first),
                     bytes_per_element, budget / HX_MIB, tail);
        else if (capped)
            snprintf(why, whylen, "2^%d elements (the largest default, "
                     "ranks are int): %s", hx_log2_of(n), tail);
        else
            snprintf(why, whylen, "2^%d elements: %s", hx_log2_of(n), tail);
    }
    return n;
}

int hx_fits(const hx_device *dev, size_t bytes)
{
    size_t spare = dev->free_mem / 20;
    if (spare < ((size_t)64 << 20))
        spare = (size_t)64 << 20;
    if (bytes > dev->free_mem)
        return 0;
    return dev->free_mem - bytes >= spare;
}

int hx_warn_if_cached(const hx_device *dev, size_t buffer_bytes, FILE *out)
{
    if (buffer_bytes > 2 * dev->l2_bytes)
        return 0;
    fprintf(out, "WARNING: each buffer (%.5g MiB) fits in the L2 (%.5g MiB): "
            "timings measure the cache, not device memory\n",
            buffer_bytes / HX_MIB, dev->l2_bytes / HX_MIB);
    return 1;
}

unsigned hx_grid_for(const hx_device *dev, size_t n, unsigned block)
{
    /* Enough blocks for 8192 threads per SM: four times the 2048 resident
     * threads of the largest SMs, so every SM stays busy as blocks finish;
     * a grid-stride kernel covers the rest. */
    size_t sms = (dev && dev->sms > 0) ? (size_t)dev->sms : 16;
    size_t per_sm, cap, need;
    if (block == 0)
        block = 1;
    per_sm = 8192 / block ? 8192 / block : 1;
    cap = sms * per_sm;
    need = n / block + (n % block != 0);
    if (need > cap)
        need = cap;
    if (need > 2147483647u)
        need = 2147483647u;
    return need < 1 ? 1u : (unsigned)need;
}
