/* dev/your_turn_solved.cu: the maintainers' fill of your_turn.cu (day 31),
 * so that make dev-check proves the lab's "your turn" checks pass a right
 * kernel (and, built with -DYOUR_TURN_BROKEN, that they catch a wrong
 * one). Left out of the handout with dev/. Same contract as your_turn.cu:
 * 64 threads a block, four consecutive ints a thread. */
#include <stddef.h>

#include "../tile_scan.h"

#define YOUR_THREADS 64   /* the launch: SCAN_TILE / 4 */

__global__ void yourTileScan(int *data, size_t n, int *tileSums,
                             int inclusive)
{
    __shared__ int warpTotal[YOUR_THREADS / 32];
    const size_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    /* tile is the same in all 64 threads: every lane takes part in every
     * shuffle, as the full mask promises. */
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t base = tile * SCAN_TILE + 4 * (size_t)t;
        int x[4];
        for (int k = 0; k < 4; ++k) x[k] = base + k < n ? data[base + k] : 0;
        const int mine = x[0] + x[1] + x[2] + x[3];
        int v = mine;   /* inclusive scan of the thread sums in the warp */
        for (int off = 1; off < 32; off *= 2) {
            const int left = __shfl_up_sync(0xffffffffu, v, off);
            if (lane >= off) v += left;
        }
        if (lane == 31) warpTotal[warp] = v;
        __syncthreads();   /* warp 1 reads warp 0's total */
        int run = v - mine + (warp == 1 ? warpTotal[0] : 0);
        if (t == 0) tileSums[tile] = warpTotal[0] + warpTotal[1];
        for (int k = 0; k < 4; ++k) {
            const int excl = run;
            run += x[k];
#ifdef YOUR_TURN_BROKEN   /* dev/scan-solved-broken: inclusive off by one */
            if (base + k < n) data[base + k] = inclusive ? run + 1 : excl;
#else
            if (base + k < n) data[base + k] = inclusive ? run : excl;
#endif
        }
        __syncthreads();   /* warpTotal is rewritten by the next tile */
    }
}
