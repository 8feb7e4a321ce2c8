/* corpus/cub_scan: expected pass: device-side CUB through <cub/cub.cuh>, a
 * toolkit header. cub::BlockScan numbers the threads of a 256-thread
 * block (an exclusive sum of ones), cub::WarpScan the lanes of each warp,
 * and both numbers must agree with threadIdx before they are used; stores
 * go through cub::ThreadStore. Other block sizes use threadIdx directly.
 * Every collective runs outside the grid-stride loop, with every thread
 * of the block present.
 *
 * Through the driver: the normal grid (256 threads a block), and a drawn
 * grid that happens to have 256, take the CUB path; the small grid (64)
 * and other drawn sizes the plain one. Every run is exact, so it passes,
 * with full marks for its speed. */
#include <cstddef>
#include <cub/cub.cuh>

constexpr int kBlock = 256;

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    using BlockScan = cub::BlockScan<int, kBlock>;
    using WarpScan = cub::WarpScan<int>;
    __shared__ typename BlockScan::TempStorage blockTemp;
    __shared__ typename WarpScan::TempStorage warpTemp[kBlock / 32];

    unsigned rank = threadIdx.x;
    if (blockDim.x == kBlock) {          // the same for the whole block
        int blockRank = 0, lane = 0;
        BlockScan(blockTemp).ExclusiveSum(1, blockRank);
        WarpScan(warpTemp[threadIdx.x / 32]).ExclusiveSum(1, lane);
        if ((unsigned)blockRank == threadIdx.x &&
            (unsigned)lane == threadIdx.x % 32)
            rank = (unsigned)blockRank;
        else
            rank = blockDim.x;           // never: would skip this thread
    }

    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + rank; i < n;
         i += stride) {
        const int v = cub::ThreadLoad<cub::LOAD_LDG>(in + i);
        const size_t nr = (size_t)negRank[i], zr = (size_t)zeroRank[i];
        const size_t dst = v < 0 ? nr : v == 0 ? a + zr : ab + (i - nr - zr);
        cub::ThreadStore<cub::STORE_CG>(out + dst, v);
    }
}
