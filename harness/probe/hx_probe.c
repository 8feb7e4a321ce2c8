/* hx_probe: says whether this machine can run the labs.
 *
 *   make -C harness probe && ./harness/build/hx_probe
 *
 * Prints "GPU: <name> (compute capability X.Y, N SMs), driver CUDA A.B,
 * runtime CUDA C.D, GPU-<uuid>" and exits 0, or prints hx_device_open's one line (no
 * NVIDIA driver, driver too old, no CUDA device, compute capability below
 * 7.5, ...) and exits 3 (HX_EXIT_NO_GPU). make check uses the exit code to
 * decide whether to run the GPU checks. */
#include "hx_cuda.h"

int main(void)
{
    hx_device dev;
    int rc = hx_device_open(&dev, "hx_probe");
    if (rc != HX_EXIT_OK)
        return rc;
    /* The UUID names the GPU's lock file for the grading tool (the same
     * GPU has one lock whatever CUDA_VISIBLE_DEVICES calls it). */
    struct cudaDeviceProp prop;
    char uuid[64] = "";
    if (cudaGetDeviceProperties(&prop, dev.id) == cudaSuccess) {
        const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
        snprintf(uuid, sizeof uuid, ", GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x"
                 "-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
                 u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
                 u[13], u[14], u[15]);
    }
    printf("GPU: %s (compute capability %d.%d, %d SMs), driver CUDA %d.%d, "
           "runtime CUDA %d.%d%s\n", dev.name, dev.major, dev.minor,
           dev.sms, dev.driver_version / 1000,
           dev.driver_version % 1000 / 10, dev.runtime_version / 1000,
           dev.runtime_version % 1000 / 10, uuid);
    return HX_EXIT_OK;
}
