/* hx_probe: says whether this machine can run the labs.
 *
 *   make -C harness probe && ./harness/build/hx_probe
 *
 * Prints "GPU: <name> (compute capability X.Y, N SMs), driver CUDA A.B,
 * runtime CUDA C.D" and exits 0, or prints hx_device_open's one line (no
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
    printf("GPU: %s (compute capability %d.%d, %d SMs), driver CUDA %d.%d, "
           "runtime CUDA %d.%d\n", dev.name, dev.major, dev.minor, dev.sms,
           dev.driver_version / 1000, dev.driver_version % 1000 / 10,
           dev.runtime_version / 1000, dev.runtime_version % 1000 / 10);
    return HX_EXIT_OK;
}
