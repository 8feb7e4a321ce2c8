/* racecheck_named.cu: a hazard compute-sanitizer's racecheck reports that
 * is not there, on the smallest kernel that shows it.
 *
 * The pipelined single pass (lookback.cuh, lookbackPipelined) has a block
 * of two kinds of warps: the tile's warps, which synchronize among
 * themselves with a named barrier (PTX bar.sync 1, 256), and one more warp
 * (the walker). Once per round, thread 0 writes a slot in shared memory,
 * the whole block meets at __syncthreads(), and the walker reads the
 * slot. The barrier orders the write before the read, and the slots are
 * used in turn (round r writes slot r % 2), so a slot is written again
 * only after the next __syncthreads(), when its readers have read it.
 *
 * This program is that hand-over and nothing else, in three forms:
 *   plain   the tile's warps use no barrier of their own;
 *   named   they also pass bar.sync 1, 256 twice a round (as the tile scan
 *           does), exchanging a value through shared memory;
 *   mbar    the same with a cuda::barrier (an mbarrier from sm_80 on)
 *           instead of the named barrier (lookbackPipelined's
 *           PIPE_MBARRIER form);
 *   mball   mbar, and the round's barrier a cuda::barrier of the whole
 *           block too (PIPE_MBARRIER_ALL).
 * Each block checks what it received: the walker must see every round's
 * value in order, and the tile's warps their neighbours' values. Run with
 * GRID blocks (default 64), every form; exit 0 when every block received
 * what was sent, 1 otherwise.
 *
 * Measured on an H200 with CUDA 13.0 and its compute-sanitizer (dev runs,
 * day31-scan/notes-piped-h200.txt; mbar and mball not yet run): every
 * block of both forms received
 * what was sent. Under --tool racecheck, both forms in one run: none at
 * 4 blocks; one report at 64; 39,272 at 2000, and every report shown
 * (--print-limit) was a "Potential RAW hazard" on the slot in the named
 * form: written by thread 0 before __syncthreads(), read by thread 256
 * after it. The barrier orders the two; no report has named another
 * place. The piped kernels draw the same reports on their hand-over
 * slots (lookback.cuh, lookbackPipelined).
 *
 * Build: make -C day31-scan racecheck-named
 * Run:   ./day31-scan/racecheck-named [GRID]
 */
#include <cstdio>
#include <cstdlib>
#include <cuda/barrier>

#include "hx_cuda.h"

#define TILE_THREADS 256
#define THREADS (TILE_THREADS + 32)
#define ROUNDS 50

/* out[block]: 0 when the block received everything as sent, else the
 * number of values that differed. */
enum { PLAIN, NAMED, MBAR, MBALL };

template <int FORM>
__global__ void __launch_bounds__(THREADS) handOver(int *out)
{
    __shared__ int slot[2];
    __shared__ int part[TILE_THREADS / 32];
    __shared__ int wrong;
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> tileBar, roundBar;
    const bool walker = threadIdx.x >= TILE_THREADS;
    if (threadIdx.x == 0) {
        wrong = 0;
        init(&tileBar, TILE_THREADS);
        init(&roundBar, THREADS);
    }
    __syncthreads();
    auto tileSync = [&] {
        if constexpr (FORM == MBAR || FORM == MBALL)
            tileBar.arrive_and_wait();
        else
            asm volatile("bar.sync 1, %0;" ::"n"(TILE_THREADS) : "memory");
    };
    int bad = 0;
    for (int r = 0;; ++r) {
        if (!walker) {
            if (FORM != PLAIN) {
                const int warp = (int)threadIdx.x / 32;
                if (threadIdx.x % 32 == 31) part[warp] = r * 100 + warp;
                tileSync();
                const int next = (warp + 1) % (TILE_THREADS / 32);
                bad += part[next] != r * 100 + next;
                tileSync();
            }
            if (threadIdx.x == 0) slot[r % 2] = r < ROUNDS ? r : -1;
        }
        if constexpr (FORM == MBALL)
            roundBar.arrive_and_wait();
        else
            __syncthreads();
        const int handed = slot[r % 2];
        if (walker) bad += handed != (r < ROUNDS ? r : -1);
        if (handed < 0) break;
    }
    if (bad) atomicAdd(&wrong, bad);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = wrong;
}

static int runForm(int form, int grid, int *out)
{
    HX_CHECK(cudaMemset(out, 0xff, (size_t)grid * sizeof(int)));
    if (form == NAMED)
        handOver<NAMED><<<grid, THREADS>>>(out);
    else if (form == MBAR)
        handOver<MBAR><<<grid, THREADS>>>(out);
    else if (form == MBALL)
        handOver<MBALL><<<grid, THREADS>>>(out);
    else
        handOver<PLAIN><<<grid, THREADS>>>(out);
    HX_CHECK_LAUNCH("handOver");
    HX_CHECK(cudaDeviceSynchronize());
    int *h = (int *)malloc((size_t)grid * sizeof(int));
    HX_CHECK(cudaMemcpy(h, out, (size_t)grid * sizeof(int),
                        cudaMemcpyDeviceToHost));
    int badBlocks = 0;
    for (int b = 0; b < grid; ++b) badBlocks += h[b] != 0;
    free(h);
    printf("%-5s grid %d: %s\n",
           form == NAMED  ? "named"
           : form == MBAR ? "mbar"
           : form == MBALL ? "mball"
                          : "plain",
           grid,
           badBlocks ? "WRONG" : "every block received what was sent");
    return badBlocks != 0;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    const long grid = argc > 1 ? strtol(argv[1], &end, 10) : 64;
    if (argc > 2 || (argc > 1 && (*end || grid < 1 || grid > 100000))) {
        fprintf(stderr, "usage: racecheck-named [GRID]   (1 to 100000 "
                "blocks, default 64)\n");
        return HX_EXIT_USAGE;
    }
    hx_device dev;
    int rc = hx_device_open(&dev, "racecheck-named");
    if (rc != HX_EXIT_OK) return rc;
    int *out;
    HX_CHECK(cudaMalloc(&out, (size_t)grid * sizeof(int)));
    const int wrong = runForm(PLAIN, (int)grid, out) |
                      runForm(NAMED, (int)grid, out) |
                      runForm(MBAR, (int)grid, out) |
                      runForm(MBALL, (int)grid, out);
    HX_CHECK(cudaFree(out));
    return wrong ? HX_EXIT_FAIL : HX_EXIT_OK;
}
