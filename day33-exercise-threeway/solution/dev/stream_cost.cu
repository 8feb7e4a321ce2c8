/* solution/dev/stream_cost.cu: what the grading driver's checks cost in
 * stream operations, one check at a time, alone and with other processes
 * doing the same on the one GPU. A driver queues about 1,330 checks over
 * the plan (a launch's or a group's baseline), each a few tiny kernels,
 * small copies and a host function (kCheckLaunch in kernels.cu); on the
 * H200 each driver's batches held the GPU for 1.2 to 1.6 s, and drivers
 * in different processes took turns (harness/grader/MAINTAINERS.md,
 * "Speed"). This isolates the pieces:
 *   kernels   a 1-thread stand-in for the student's launch, then four
 *             1-thread kernels (a check's kernels, no data)
 *   copies    the same, and three small copies to and from page-locked
 *             memory (the key in, the key wiped, the slot back)
 *   hostfunc  the same, and a host function (cudaLaunchHostFunc) where
 *             kCheckLaunch puts the key in place
 *   driver    the stand-in, then the driver's own kCheckLaunch over
 *             one-word buffers, and the slot's copy back (enqueueCheck)
 *   waitvalue `copies` with the host function replaced by a way that
 *             keeps the key out of the kernel's reach as well: an event
 *             recorded after the launch, a wait of the stream on a
 *             page-locked word (cuStreamWaitValue32), and a host thread
 *             that sets the word once the event has completed (the key
 *             would be written beside it then)
 *   resident  the way out that MAINTAINERS.md, "Speed", names second: a
 *             checker kernel started with each batch on a stream of its
 *             own (cudaStreamNonBlocking) reads the batch's key from a
 *             page-locked word, zeroes it and says so (the host waits for
 *             that before it queues the batch); then each check is the
 *             stand-in, a one-thread kernel that asks the checker for
 *             check c, and a one-thread kernel that spins until the
 *             checker answers c. No copy and no wait on the host inside a
 *             batch; the checker stops at the batch's end.
 * Checks are queued in batches of BATCH_SLOTS with one wait a batch, as
 * the driver does. Prints the microseconds a check, per process. With
 * PROCESSES > 1 every process makes its context first and all start
 * their checks together (a pipe), so they overlap however short.
 * Maintainers only: needs a GPU (without one: exit 3 and one line).
 *
 * Build: make -C day33-exercise-threeway dev   (solution/onepass.mk)
 * Run:   build/onepass/stream-cost MODE [CHECKS] [PROCESSES]
 *        e.g. stream-cost hostfunc 2000 12: twelve processes side by side
 */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "hx_cuda.h"
#include "hx_time.h"

static __global__ void tiny(unsigned long long *w) { *w += 1; }

/* resident: ctrl[0] the check asked for, ctrl[1] the last answered,
 * ctrl[2] stop; the key read once from key[0] (page-locked), which it
 * zeroes before it sets key[1] (its answer to the host). */
static __global__ void checker(volatile unsigned long long *ctrl,
                               volatile unsigned long long *key,
                               unsigned long long *acc)
{
    const unsigned long long k = key[0];
    key[0] = 0;
    __threadfence_system();
    key[1] = 1;
    __threadfence_system();
    unsigned long long seen = ctrl[1];
    for (;;) {
        const unsigned long long want = ctrl[0];
        if (want != seen) {
            *acc += want ^ k;   /* a digest's stand-in, under the key */
            __threadfence();
            ctrl[1] = seen = want;
        } else if (ctrl[2]) {
            return;
        } else {
            __nanosleep(100);
        }
    }
}

static __global__ void askCheck(volatile unsigned long long *ctrl,
                                unsigned long long c)
{
    ctrl[0] = c;
}

static __global__ void awaitCheck(volatile unsigned long long *ctrl,
                                  unsigned long long c)
{
    while (ctrl[1] != c)
        __nanosleep(100);
}

static __global__ void stopChecker(volatile unsigned long long *ctrl)
{
    ctrl[2] = 1;
}

/* Every process's context made before any starts its checks. */
static int g_ready[2], g_go[2], g_together;

static void CUDART_CB putWord(void *arg)
{
    *(volatile unsigned long long *)arg = 1;
}

/* waitvalue: the driver's cuStreamWaitValue32, and the host thread that
 * releases each check's wait once the event after its launch completed
 * (an event not yet recorded reads as complete: it waits for `recorded`). */
typedef CUresult (*PfnWaitValue)(CUstream, CUdeviceptr, cuuint32_t,
                                 unsigned int);
typedef struct {
    cudaEvent_t ev[BATCH_SLOTS];
    volatile unsigned *flag;
    volatile int recorded, count;
} Feeder;

static void *feed(void *arg)
{
    Feeder *f = (Feeder *)arg;
    for (int k = 0; k < f->count; ++k) {
        while (f->recorded <= k)
            ;
        cudaError_t e;
        while ((e = cudaEventQuery(f->ev[k])) == cudaErrorNotReady)
            ;
        if (e != cudaSuccess)
            hx_cuda_check(e, "cudaEventQuery", __FILE__, __LINE__);
        f->flag[k] = 1;
    }
    return NULL;
}

static PfnWaitValue waitValueEntry(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q =
        cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &fn,
                                         CUDART_VERSION, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        fprintf(stderr, "stream-cost: cuStreamWaitValue32 not available\n");
        exit(4);
    }
    return (PfnWaitValue)fn;
}

/* One-word buffers with one guard word on each side, for kCheckLaunch. */
static void spansOfWords(int *dev, Spans *s)
{
    for (int b = 0; b < NBUF; ++b) {
        int *base = dev + 3 * b;
        s->before[b] = base;
        s->beforeWords[b] = 1;
        s->data[b] = base + 1;
        s->n[b] = 1;
        s->after[b] = base + 2;
        s->afterWords[b] = 1;
    }
}

static double run(const char *mode, int checks, const char *prog)
{
    hx_device dev;
    const int rc = hx_device_open(&dev, prog);
    if (rc != HX_EXIT_OK)
        exit(rc);
    unsigned long long *word, *acc, *pinned;
    int *bufs;
    CheckSlot *slots;
    HX_CHECK(cudaMalloc(&word, 8 * sizeof *word));
    HX_CHECK(cudaMalloc(&acc, (2 * NBUF + 3) * sizeof *acc));
    HX_CHECK(cudaMemset(acc, 0, (2 * NBUF + 3) * sizeof *acc));
    HX_CHECK(cudaMalloc(&bufs, 3 * NBUF * sizeof *bufs));
    HX_CHECK(cudaMemset(bufs, 0, 3 * NBUF * sizeof *bufs));
    HX_CHECK(cudaMalloc(&slots, BATCH_SLOTS * sizeof *slots));
    /* Eight words (the key's, the stand-ins'), then the slots. */
    const size_t pinnedBytes = 8 * sizeof *pinned +
                               BATCH_SLOTS * sizeof(CheckSlot);
    HX_CHECK(cudaMallocHost(&pinned, pinnedBytes));
    memset(pinned, 0, pinnedBytes);
    CheckSlot *hostSlots = (CheckSlot *)(pinned + 8);
    Spans s;
    spansOfWords(bufs, &s);
    const uint64_t key = 0x9e3779b97f4a7c15ull;
    const int copies = strcmp(mode, "kernels") != 0;
    const int hostfunc = !strcmp(mode, "hostfunc");
    const int driver = !strcmp(mode, "driver");
    const int waits = !strcmp(mode, "waitvalue");
    const int resident = !strcmp(mode, "resident");
    cudaStream_t side = 0;
    unsigned long long *ctrl = NULL;
    if (resident) {
        HX_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
        HX_CHECK(cudaMalloc(&ctrl, 4 * sizeof *ctrl));
        HX_CHECK(cudaMemset(ctrl, 0, 4 * sizeof *ctrl));
    }
    PfnWaitValue waitValue = waits ? waitValueEntry() : NULL;
    static Feeder f;
    unsigned *flags = NULL;
    if (waits) {
        HX_CHECK(cudaMallocHost(&flags, BATCH_SLOTS * sizeof *flags));
        f.flag = flags;
        for (int k = 0; k < BATCH_SLOTS; ++k)
            HX_CHECK(cudaEventCreateWithFlags(&f.ev[k],
                                              cudaEventDisableTiming));
    }
    HX_CHECK(cudaDeviceSynchronize());
    if (g_together) {
        char c = 'r';
        if (write(g_ready[1], &c, 1) != 1 || read(g_go[0], &c, 1) != 1) {
            perror("stream-cost: the start pipe");
            exit(4);
        }
    }
    const double t0 = hx_now_seconds();
    for (int done = 0; done < checks;) {
        const int batch = checks - done < BATCH_SLOTS ? checks - done
                                                      : BATCH_SLOTS;
        pthread_t feeder;
        if (waits) {
            memset(flags, 0, BATCH_SLOTS * sizeof *flags);
            f.recorded = 0;
            f.count = batch;
            if (pthread_create(&feeder, NULL, feed, &f) != 0) {
                perror("pthread_create");
                exit(4);
            }
        }
        if (resident) {   /* the checker, its key, the host's wait */
            volatile unsigned long long *kw = pinned + 2;
            kw[0] = key;
            kw[1] = 0;
            __sync_synchronize();
            HX_CHECK(cudaMemset(ctrl + 2, 0, sizeof *ctrl));
            HX_CHECK(cudaDeviceSynchronize());
            checker<<<1, 1, 0, side>>>(ctrl, kw, acc);
            HX_CHECK(cudaGetLastError());
            while (kw[1] != 1)
                ;
        }
        for (int k = 0; k < batch; ++k) {
            tiny<<<1, 1>>>(word);   /* the student's launch */
            if (resident) {
                const unsigned long long c = (unsigned long long)done + k + 1;
                askCheck<<<1, 1>>>(ctrl, c);
                awaitCheck<<<1, 1>>>(ctrl, c);
                HX_CHECK(cudaGetLastError());
                continue;
            }
            if (waits) {
                HX_CHECK(cudaEventRecord(f.ev[k], 0));
                __sync_synchronize();
                f.recorded = k + 1;
                const CUresult r = waitValue(
                    0, (CUdeviceptr)(uintptr_t)(flags + k), 1,
                    CU_STREAM_WAIT_VALUE_GEQ);
                if (r != CUDA_SUCCESS) {
                    fprintf(stderr, "stream-cost: cuStreamWaitValue32 "
                            "failed (%d)\n", (int)r);
                    exit(4);
                }
            }
            if (driver) {
                kCheckLaunch(&dev, &s, slots + k, hostSlots + k,
                             (volatile uint64_t *)pinned, &key,
                             (uint64_t)(done + k), acc, NULL);
            } else {
                for (int j = 0; j < 4; ++j)
                    tiny<<<1, 1>>>(word + 1 + j % 3);
                if (hostfunc)
                    HX_CHECK(cudaLaunchHostFunc(0, putWord, pinned + 1));
                if (copies) {
                    HX_CHECK(cudaMemcpyAsync(word + 5, pinned + 1, 8,
                                             cudaMemcpyHostToDevice, 0));
                    HX_CHECK(cudaMemcpyAsync(pinned + 1, word + 6, 8,
                                             cudaMemcpyDeviceToHost, 0));
                }
            }
            if (copies)
                HX_CHECK(cudaMemcpyAsync(hostSlots + k, slots + k,
                                         sizeof(CheckSlot),
                                         cudaMemcpyDeviceToHost, 0));
            HX_CHECK(cudaGetLastError());
        }
        if (resident)
            stopChecker<<<1, 1>>>(ctrl);
        HX_CHECK(cudaStreamSynchronize(0));
        if (resident)
            HX_CHECK(cudaStreamSynchronize(side));
        if (waits)
            pthread_join(feeder, NULL);
        done += batch;
    }
    const double t = hx_now_seconds() - t0;
    if (resident) {
        HX_CHECK(cudaFree(ctrl));
        HX_CHECK(cudaStreamDestroy(side));
    }
    HX_CHECK(cudaFree(word));
    HX_CHECK(cudaFree(acc));
    HX_CHECK(cudaFree(bufs));
    HX_CHECK(cudaFree(slots));
    HX_CHECK(cudaFreeHost(pinned));
    if (waits) {
        for (int k = 0; k < BATCH_SLOTS; ++k)
            HX_CHECK(cudaEventDestroy(f.ev[k]));
        HX_CHECK(cudaFreeHost(flags));
    }
    return t;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const int checks = argc > 2 ? atoi(argv[2]) : 2000;
    const int procs = argc > 3 ? atoi(argv[3]) : 1;
    if (strcmp(mode, "kernels") && strcmp(mode, "copies") &&
        strcmp(mode, "hostfunc") && strcmp(mode, "driver") &&
        strcmp(mode, "waitvalue") && strcmp(mode, "resident")) {
        fprintf(stderr, "usage: %s kernels|copies|hostfunc|driver|waitvalue|"
                "resident [CHECKS] [PROCESSES]\n", argv[0]);
        return 2;
    }
    if (checks < 1 || procs < 1 || procs > 64) {
        fprintf(stderr, "%s: CHECKS and PROCESSES must be positive "
                "(PROCESSES at most 64)\n", argv[0]);
        return 2;
    }
    /* The processes fork before any CUDA call: each has its own context,
     * as the grading tool's drivers do. */
    g_together = procs > 1;
    if (g_together && (pipe(g_ready) != 0 || pipe(g_go) != 0)) {
        perror("pipe");
        return 4;
    }
    const double t0 = hx_now_seconds();
    for (int p = 0; p < procs; ++p) {
        const pid_t pid = procs == 1 ? 0 : fork();
        if (pid < 0) {
            perror("fork");
            return 4;
        }
        if (pid == 0) {
            const double t = run(mode, checks, argv[0]);
            printf("%-8s process %2d: %d checks in %.3f s: %.1f us a check\n",
                   mode, p, checks, t, 1e6 * t / checks);
            fflush(stdout);
            if (procs > 1)
                _exit(0);
            return 0;
        }
    }
    if (g_together) {   /* every context made (or its process gone) */
        close(g_ready[1]);   /* EOF once every child has ended */
        char c;
        int ready = 0;
        while (ready < procs && read(g_ready[0], &c, 1) == 1)
            ++ready;
        for (int p = 0; p < procs; ++p)
            if (write(g_go[1], "g", 1) != 1)
                perror("write");
    }
    int failed = 0, status;   /* the first failing process's exit code */
    while (wait(&status) > 0)
        if (!failed && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
            failed = WIFEXITED(status) ? WEXITSTATUS(status) : 4;
    printf("%-8s %d processes side by side: %.3f s in all%s\n", mode, procs,
           hx_now_seconds() - t0, failed ? " (a process failed)" : "");
    return failed;
}
