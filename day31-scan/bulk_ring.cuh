/* bulk_ring.cuh: the machinery of a ring of bulk copies on sm_90 and
 * newer (ring_pipeline.cuh): PTX wrappers for the mbarriers that guard
 * each stage (init, arrive, arrive with an expected byte count, a test and
 * a wait on a phase's parity) and for the bulk asynchronous copy from
 * global to shared memory that completes on one (cp.async.bulk), and the
 * host's sizing of the ring from the device. The device parts exist only
 * where __CUDA_ARCH__ >= 900 (RING_SM90 is then defined); the kernels that
 * use it trap below that, and their launchers never start them there.
 */
#ifndef BULK_RING_CUH
#define BULK_RING_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "hx_cuda.h"

#define RING_MAX_STAGES 16

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define RING_SM90 1

__device__ inline unsigned ringSmem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ inline unsigned ringDynamicBytes()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}

__device__ inline void ringBarInit(uint64_t *b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ringSmem(b)),
                 "r"(count)
                 : "memory");
}

__device__ inline void ringArrive(uint64_t *b)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }"
                 ::"r"(ringSmem(b))
                 : "memory");
}

__device__ inline void ringArriveExpect(uint64_t *b, unsigned bytes)
{
    asm volatile("{ .reg .b64 st; "
                 "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }"
                 ::"r"(ringSmem(b)), "r"(bytes)
                 : "memory");
}

/* 1 when the phase of parity has completed (test: never blocks). */
__device__ inline bool ringDone(uint64_t *b, unsigned parity)
{
    unsigned ok;
    asm volatile("{ .reg .pred p; "
                 "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; "
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok)
                 : "r"(ringSmem(b)), "r"(parity)
                 : "memory");
    return ok != 0;
}

/* Lane 0's value in every lane of the warp (all 32 must call it). */
__device__ inline bool ringUniform(bool v)
{
    return __shfl_sync(0xffffffffu, (int)v, 0) != 0;
}

__device__ inline void ringWait(uint64_t *b, unsigned parity)
{
    unsigned ok = 0;
    while (!ok)
        asm volatile("{ .reg .pred p; "
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok)
                     : "r"(ringSmem(b)), "r"(parity)
                     : "memory");
}

__device__ inline void ringBulkLoad(void *dst, const void *src,
                                    unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx"
                 "::bytes [%0], [%1], %2, [%3];"
                 ::"r"(ringSmem(dst)), "l"(src), "r"(bytes),
                 "r"(ringSmem(bar))
                 : "memory");
}
#endif

/* Host: the dynamic shared memory of the ring kernels kernels[0..count)
 * (one ring built a few ways) on dev, perSm blocks an SM, stages of
 * tileBytes: as many stages as a block's share of the SM's shared memory
 * holds beside the largest static shared memory of them (at most
 * RING_MAX_STAGES), in bytes. 0 where the ring cannot run: a GPU older
 * than sm_90, a kernel compiled for an older architecture (a compute_75
 * or compute_80 build: its body traps), or fewer than two stages. Sets
 * each kernel's dynamic shared memory attribute to it. */
inline size_t ringStageBytes(const hx_device *dev, const void *const *kernels,
                             int count, size_t tileBytes, unsigned perSm)
{
    if (dev->major < 9 || perSm == 0) return 0;
    size_t statics = 0;
    for (int i = 0; i < count; ++i) {
        cudaFuncAttributes fa;
        HX_CHECK(cudaFuncGetAttributes(&fa, kernels[i]));
        if (fa.ptxVersion < 90) return 0;
        if (fa.sharedSizeBytes > statics) statics = fa.sharedSizeBytes;
    }
    int optin = 0, smemPerSm = 0;
    HX_CHECK(cudaDeviceGetAttribute(
        &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev->id));
    HX_CHECK(cudaDeviceGetAttribute(
        &smemPerSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev->id));
    size_t share = (size_t)smemPerSm / perSm;
    share = share > 1024 ? share - 1024 : 0;   /* each block's reserve */
    if (share > (size_t)optin) share = (size_t)optin;
    if (share < statics + 2 * tileBytes) return 0;
    size_t stages = (share - statics) / tileBytes;
    if (stages > RING_MAX_STAGES) stages = RING_MAX_STAGES;
    for (int i = 0; i < count; ++i)
        HX_CHECK(cudaFuncSetAttribute(
            kernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int)(stages * tileBytes)));
    return stages * tileBytes;
}

/* Host: the blocks of ring kernels of block threads and smem bytes of
 * stages (ringStageBytes, for perSm blocks an SM) that run at once on
 * dev, the fewest of any of them: as many an SM as the ring was sized
 * for, no more (its stages are the loads in flight). */
inline unsigned ringResident(const hx_device *dev, const void *const *kernels,
                             int count, unsigned block, size_t smem,
                             unsigned perSm)
{
    if (!smem) return 0;
    unsigned most = perSm * (unsigned)dev->sms;
    for (int i = 0; i < count; ++i) {
        const unsigned r = hx_resident_blocks(dev, kernels[i], block, smem);
        most = r < most ? r : most;
    }
    return most;
}

#endif
