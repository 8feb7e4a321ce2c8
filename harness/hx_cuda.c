/* hx_cuda.c: the CUDA error check, the device query, and the problem
 * sizing every lab shares. Contracts are in hx_cuda.h. */
#include "hx_cuda.h"

#include <stdint.h>
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
    /* An allocation the device has no room for is the machine's state
     * (another process's memory, a size too large), not a fault of the
     * program: its own code, so that a grader can tell the two apart. */
    exit(hx_is_no_gpu_error(err) ? HX_EXIT_NO_GPU
         : err == cudaErrorMemoryAllocation ? HX_EXIT_NOMEM : HX_EXIT_CUDA);
}

#define HX_MIN_MAJOR 7
#define HX_MIN_MINOR 5

/* Minimum drivers from NVIDIA's "CUDA Compatibility" guide, section
 * "Minor Version Compatibility", table "CUDA Toolkit 11.x, 12.x, and 13.x
 * Minimum and Maximum Required Driver Versions" (CUDA 13.x: >= 580; 12.x:
 * >= 525; 11.x: >= 450), which the CUDA Toolkit release notes' "CUDA
 * Driver" tables repeat per release (e.g. 13.0 GA: >= 580.65.06; 12.x:
 * >= 525.60.13 on Linux). */
int hx_driver_needed(int runtime_version)
{
    switch (runtime_version / 1000) {
    case 13: return 580;
    case 12: return 525;
    case 11: return 450;
    default: return 0;
    }
}

/* "CUDA 13.0 runtime needs driver 580 or newer", or without the branch
 * when the runtime is newer than this table. */
static void hx_need_text(char *buf, size_t len, int runtime_version)
{
    const int need = hx_driver_needed(runtime_version);
    if (need)
        snprintf(buf, len, "this program's CUDA %d.%d runtime needs NVIDIA "
                 "driver %d or newer", runtime_version / 1000,
                 runtime_version % 1000 / 10, need);
    else
        snprintf(buf, len, "this program's CUDA %d.%d runtime needs the "
                 "driver that ships with it or a newer one",
                 runtime_version / 1000, runtime_version % 1000 / 10);
}

int hx_gpu_unusable(const hx_gpu_facts *f, char *why, size_t len)
{
    char need[128];
    const int drv = f->driver_version, rt = f->runtime_version;
    hx_need_text(need, sizeof need, rt);
    if (f->err == cudaErrorStubLibrary) {
        snprintf(why, len, "no NVIDIA driver: the libcuda found is the CUDA "
                 "Toolkit's stub, which only stands in for the driver when "
                 "linking; the labs need an NVIDIA GPU with its driver (%s)",
                 need);
        return 1;
    }
    if (drv == 0 && (f->err != cudaSuccess || f->count == 0)) {
        snprintf(why, len, "no NVIDIA driver is installed (no libcuda.so.1 "
                 "was found); the labs need an NVIDIA GPU of compute "
                 "capability 7.5 or newer with its driver (%s)", need);
        return 1;
    }
    if (drv > 0 && (drv / 1000 < rt / 1000 ||
                    f->err == cudaErrorInsufficientDriver ||
                    f->err == cudaErrorCallRequiresNewerDriver)) {
        snprintf(why, len, "the NVIDIA driver is too old: it supports CUDA "
                 "%d.%d, and %s (update the driver, or build the course "
                 "with a CUDA Toolkit of %d.x: make clean, then make "
                 "CUDA_HOME=<that toolkit>)", drv / 1000, drv % 1000 / 10,
                 need, drv / 1000);
        return 1;
    }
    if (f->err == cudaErrorNoDevice ||
        (f->err == cudaSuccess && f->count < 1)) {
        if (f->visible)
            snprintf(why, len, "no CUDA device: the NVIDIA driver (CUDA "
                     "%d.%d) sees none with CUDA_VISIBLE_DEVICES=\"%s\"",
                     drv / 1000, drv % 1000 / 10, f->visible);
        else
            snprintf(why, len, "no CUDA device: the NVIDIA driver (CUDA "
                     "%d.%d) is installed but sees no GPU", drv / 1000,
                     drv % 1000 / 10);
        return 1;
    }
    if (f->err != cudaSuccess) {
        const char *hint =
            f->err == cudaErrorDevicesUnavailable
                ? " (every GPU is busy, or in a compute mode that admits "
                  "one process and another holds it)"
            : f->err == cudaErrorSystemDriverMismatch
                ? " (the driver's kernel module and its library differ in "
                  "version: reboot after a driver update)"
            : f->err == cudaErrorSystemNotReady
                ? " (on NVSwitch systems: is nvidia-fabricmanager running?)"
                : "";
        snprintf(why, len, "no usable CUDA GPU: %s failed: %s: %s%s",
                 f->call ? f->call : "a CUDA call", cudaGetErrorName(f->err),
                 cudaGetErrorString(f->err), hint);
        return 1;
    }
    if (f->major < HX_MIN_MAJOR ||
        (f->major == HX_MIN_MAJOR && f->minor < HX_MIN_MINOR)) {
        snprintf(why, len, "GPU 0 (%s) has compute capability %d.%d; the "
                 "labs need 7.5 or newer (a T4 or any later GPU)",
                 f->name ? f->name : "?", f->major, f->minor);
        return 1;
    }
    return 0;
}

/* Prints "<prog>: <reason>" for the facts and returns HX_EXIT_NO_GPU:
 * hx_device_open never exits itself, so a caller decides what "no GPU"
 * means for it. */
static int hx_no_gpu(const char *prog, hx_gpu_facts *f, const char *call,
                     cudaError_t err)
{
    char why[512];
    f->err = err;
    f->call = call;
    if (!hx_gpu_unusable(f, why, sizeof why))
        snprintf(why, sizeof why, "no usable CUDA GPU");
    fprintf(stderr, "%s: %s\n", prog, why);
    return HX_EXIT_NO_GPU;
}

int hx_device_open(hx_device *dev, const char *prog)
{
    int value = 0;
    size_t free_b = 0, total_b = 0, k;
    struct cudaDeviceProp prop;
    cudaError_t err;
    hx_gpu_facts f;

    memset(dev, 0, sizeof *dev);
    memset(&f, 0, sizeof f);
    if (!prog)
        prog = "hx";
    f.visible = getenv("CUDA_VISIBLE_DEVICES");

    /* Both versions first: they answer without a driver (the driver's
     * is 0 then), and they tell "no driver" from "driver too old". */
    if ((err = cudaRuntimeGetVersion(&dev->runtime_version)) != cudaSuccess)
        return hx_no_gpu(prog, &f, "cudaRuntimeGetVersion", err);
    f.runtime_version = dev->runtime_version;
    if ((err = cudaDriverGetVersion(&dev->driver_version)) != cudaSuccess)
        return hx_no_gpu(prog, &f, "cudaDriverGetVersion", err);
    f.driver_version = dev->driver_version;

    if ((err = cudaGetDeviceCount(&f.count)) != cudaSuccess)
        return hx_no_gpu(prog, &f, "cudaGetDeviceCount", err);
    if (f.count < 1)
        return hx_no_gpu(prog, &f, "cudaGetDeviceCount", cudaSuccess);
    /* Device 0 of the runtime is the first one CUDA_VISIBLE_DEVICES lists. */
    dev->id = 0;
    if ((err = cudaSetDevice(dev->id)) != cudaSuccess)
        return hx_no_gpu(prog, &f, "cudaSetDevice", err);
    if ((err = cudaGetDeviceProperties(&prop, dev->id)) != cudaSuccess)
        return hx_no_gpu(prog, &f, "cudaGetDeviceProperties", err);
    /* A bounded copy that always terminates (prop.name may fill its
     * array). */
    for (k = 0; k + 1 < sizeof dev->name && k < sizeof prop.name &&
                prop.name[k]; ++k)
        dev->name[k] = prop.name[k];
    dev->name[k] = '\0';
    f.name = dev->name;

    /* Attributes rather than cudaDeviceProp fields: they are stable across
     * toolkits (CUDA 13 removed several prop fields). */
#define HX_ATTR(field, attr)                                              \
    do {                                                                  \
        if ((err = cudaDeviceGetAttribute(&value, attr, dev->id)) !=      \
            cudaSuccess)                                                  \
            return hx_no_gpu(prog, &f, "cudaDeviceGetAttribute(" #attr    \
                             ")", err);                                   \
        field = value;                                                    \
    } while (0)
    HX_ATTR(dev->major, cudaDevAttrComputeCapabilityMajor);
    HX_ATTR(dev->minor, cudaDevAttrComputeCapabilityMinor);
    HX_ATTR(dev->sms, cudaDevAttrMultiProcessorCount);
    HX_ATTR(dev->smem_per_block, cudaDevAttrMaxSharedMemoryPerBlock);
    HX_ATTR(dev->l2_bytes, cudaDevAttrL2CacheSize);
#undef HX_ATTR
    f.major = dev->major;
    f.minor = dev->minor;
    if (hx_gpu_unusable(&f, NULL, 0))
        return hx_no_gpu(prog, &f, NULL, cudaSuccess);

    /* cudaMemGetInfo creates the context: the first call that can fail
     * because the device is busy or exclusive to another process. */
    if ((err = cudaMemGetInfo(&free_b, &total_b)) != cudaSuccess)
        return hx_no_gpu(prog, &f, "cudaMemGetInfo", err);
    dev->free_mem = free_b;
    dev->total_mem = total_b;
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

unsigned hx_resident_blocks(const hx_device *dev, const void *kernel,
                            int block, size_t dyn_smem)
{
    int per_sm = 0;
    const unsigned sms = dev && dev->sms > 0 ? (unsigned)dev->sms : 1u;
    HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                           block, dyn_smem));
    return (per_sm > 0 ? (unsigned)per_sm : 1u) * sms;
}

void *hx_host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory: %zu bytes\n", bytes);
        exit(HX_EXIT_NOMEM);
    }
    return p;
}

size_t hx_host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    size_t kib = 0;
    int found = 0;
    if (!f)
        return SIZE_MAX;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kib) == 1) {
            found = 1;
            break;
        }
    fclose(f);
    return found ? kib * 1024 : SIZE_MAX;
}
