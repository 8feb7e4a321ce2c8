/* hx_probe: says whether this machine can run the labs.
 *
 *   make -C harness probe && ./harness/build/hx_probe
 *
 * Prints "GPU: <name> (compute capability X.Y, N SMs)" and exits 0, or
 * prints hx_device_open's one line and exits 3 (HX_EXIT_NO_GPU). make
 * check uses the exit code to decide whether to run the GPU checks. */
#include "hx_cuda.h"

int main(void)
{
    hx_device dev;
    int rc = hx_device_open(&dev, "hx_probe");
    if (rc != HX_EXIT_OK)
        return rc;
    printf("GPU: %s (compute capability %d.%d, %d SMs)\n", dev.name,
           dev.major, dev.minor, dev.sms);
    return HX_EXIT_OK;
}
