/* racecheck_named.cu: a hazard compute-sanitizer's racecheck reports that
 * is not there, on the smallest kernel that shows it, and why the piped
 * single pass meets once a round at a cuda::barrier, not __syncthreads().
 *
 * The pipelined single pass (lookback.cuh, lookbackPipelined) has a block
 * of two kinds of warps: the tile's warps, which synchronize among
 * themselves with a named barrier (PTX bar.sync 1, 256), and one more warp
 * (the walker). Once per round, thread 0 writes a slot in shared memory,
 * the whole block meets at a barrier, and the walker reads the slot. The
 * barrier orders the write before the read, and the slots are used in
 * turn (round r writes slot r % 2), so a slot is written again only after
 * the next barrier, when its readers have read it.
 *
 * This program is that hand-over and nothing else, in six forms:
 *   plain   the tile's warps use no barrier of their own; the round's
 *           barrier is __syncthreads();
 *   named   they also pass bar.sync 1, 256 twice a round (as the tile scan
 *           does), exchanging a value through shared memory;
 *   mbar    the same with a cuda::barrier (an mbarrier from sm_80 on)
 *           instead of the named barrier;
 *   mball   mbar, and the round's barrier a cuda::barrier of the whole
 *           block too;
 *   nmround named, with the round's barrier a cuda::barrier of the whole
 *           block: lookbackPipelined's production form (PIPE_NAMED);
 *   racy    nmround with a real race, the control: thread 0 writes the
 *           slot after the round's barrier instead of before it, so the
 *           walker may read it before or after the write.
 * Each block checks what it received: the walker must see every round's
 * value, and the tile's warps their neighbours' values.
 *
 * Measured on an H200 with CUDA 13.0 and its compute-sanitizer
 * (day31-scan/evidence-h200.txt, every form at 2000 blocks): the first
 * five forms received what was sent in every block. Under --tool
 * racecheck, one form a run: named, 20,084 hazards, between the slot's
 * write by thread 0 (before __syncthreads()) and its read by the walker
 * (after it); racy, 377,004, and every block received a value not sent;
 * plain, mbar, mball and nmround, none. So racecheck follows a
 * cuda::barrier hand-over and still reports a race through one, and what
 * it reports in the named form is the combination of a named barrier
 * among some warps and __syncthreads() for all: that barrier orders the
 * two accesses. (In development runs the named form drew none at 4
 * blocks and one at 64.) The piped kernels drew the same reports on their
 * hand-over slots while their round's barrier was __syncthreads(); with a
 * cuda::barrier they draw none.
 *
 * Build: make -C day31-scan dev    (with -lineinfo: a hazard names its line)
 * Run:   ./day31-scan/dev/racecheck-named [GRID [FORM]]
 *        GRID blocks (default 64); FORM one of the six (default: the first
 *        five, one after another). Exit 0 when every block of every form
 *        run received what was sent (racy: whatever it received), 1 when
 *        one did not, 2 on a usage error.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda/barrier>

#include "hx_cuda.h"

#define TILE_THREADS 256
#define THREADS (TILE_THREADS + 32)
#define ROUNDS 50

/* out[block]: 0 when the block received everything as sent, else the
 * number of values that differed. */
enum { PLAIN, NAMED, MBAR, MBALL, NMROUND, RACY, FORMS };
static const char *const formNames[FORMS] = {"plain", "named",   "mbar",
                                             "mball", "nmround", "racy"};

template <int FORM>
__global__ void __launch_bounds__(THREADS) handOver(int *out)
{
    constexpr bool TILE_MBAR = FORM == MBAR || FORM == MBALL;
    constexpr bool ROUND_MBAR =
        FORM == MBALL || FORM == NMROUND || FORM == RACY;
    __shared__ int slot[2];
    __shared__ int part[TILE_THREADS / 32];
    __shared__ int wrong;
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> tileBar, roundBar;
    const bool walker = threadIdx.x >= TILE_THREADS;
    if (threadIdx.x == 0) {
        wrong = 0;
        slot[0] = slot[1] = -1;
        init(&tileBar, TILE_THREADS);
        init(&roundBar, THREADS);
    }
    __syncthreads();
    auto tileSync = [&] {
        if constexpr (TILE_MBAR)
            tileBar.arrive_and_wait();
        else
            asm volatile("bar.sync 1, %0;" ::"n"(TILE_THREADS) : "memory");
    };
    int bad = 0;
    for (int r = 0; r < ROUNDS; ++r) {
        if (!walker) {
            if (FORM != PLAIN) {
                const int warp = (int)threadIdx.x / 32;
                if (threadIdx.x % 32 == 31) part[warp] = r * 100 + warp;
                tileSync();
                const int next = (warp + 1) % (TILE_THREADS / 32);
                bad += part[next] != r * 100 + next;
                tileSync();
            }
            if (FORM != RACY && threadIdx.x == 0) slot[r % 2] = r;
        }
        if constexpr (ROUND_MBAR)
            roundBar.arrive_and_wait();
        else
            __syncthreads();
        if (FORM == RACY && threadIdx.x == 0) slot[r % 2] = r;   /* late */
        if (walker) bad += slot[r % 2] != r;
    }
    if (bad) atomicAdd(&wrong, bad);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = wrong;
}

template <int FORM> static void launch(int grid, int *out)
{
    handOver<FORM><<<grid, THREADS>>>(out);
}

static int runForm(int form, int grid, int *out)
{
    static void (*const launches[FORMS])(int, int *) = {
        launch<PLAIN>, launch<NAMED>,   launch<MBAR>,
        launch<MBALL>, launch<NMROUND>, launch<RACY>};
    HX_CHECK(cudaMemset(out, 0xff, (size_t)grid * sizeof(int)));
    launches[form](grid, out);
    HX_CHECK_LAUNCH("handOver");
    HX_CHECK(cudaDeviceSynchronize());
    int *h = (int *)malloc((size_t)grid * sizeof(int));
    if (!h) {
        fprintf(stderr, "racecheck-named: out of host memory\n");
        exit(HX_EXIT_NOMEM);
    }
    HX_CHECK(cudaMemcpy(h, out, (size_t)grid * sizeof(int),
                        cudaMemcpyDeviceToHost));
    int badBlocks = 0;
    for (int b = 0; b < grid; ++b) badBlocks += h[b] != 0;
    free(h);
    if (badBlocks)
        printf("%-7s grid %d: %d blocks received a value not sent%s\n",
               formNames[form], grid, badBlocks,
               form == RACY ? " (the race, as built)" : "");
    else
        printf("%-7s grid %d: every block received what was sent\n",
               formNames[form], grid);
    return form != RACY && badBlocks != 0;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    const long grid = argc > 1 ? strtol(argv[1], &end, 10) : 64;
    int only = -1;
    if (argc > 2)
        for (int f = 0; f < FORMS; ++f)
            if (!strcmp(argv[2], formNames[f])) only = f;
    if (argc > 3 || (argc > 1 && (*end || grid < 1 || grid > 100000)) ||
        (argc > 2 && only < 0)) {
        fprintf(stderr, "usage: racecheck-named [GRID [FORM]]   (GRID 1 to "
                "100000 blocks, default 64; FORM plain, named, mbar, "
                "mball, nmround or racy; default the first five)\n");
        return HX_EXIT_USAGE;
    }
    hx_device dev;
    int rc = hx_device_open(&dev, "racecheck-named");
    if (rc != HX_EXIT_OK) return rc;
    int *out;
    HX_CHECK(cudaMalloc(&out, (size_t)grid * sizeof(int)));
    int wrong = 0;
    for (int f = 0; f < RACY; ++f)
        if (only < 0 || only == f) wrong |= runForm(f, (int)grid, out);
    if (only == RACY) wrong |= runForm(RACY, (int)grid, out);
    HX_CHECK(cudaFree(out));
    return wrong ? HX_EXIT_FAIL : HX_EXIT_OK;
}
