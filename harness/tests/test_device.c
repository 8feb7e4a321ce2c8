/* test_device.c: the harness's host tests: sizing, the no-GPU lines, the table and the GPU lock (no CUDA calls). */
#include "t.h"

/* ---- sizing and the table (no CUDA calls) ------------------------------ */

static hx_device t_fake(size_t l2, size_t free_mem, int sms)
{
    hx_device d;
    memset(&d, 0, sizeof d);
    d.l2_bytes = l2;
    d.free_mem = d.total_mem = free_mem;
    d.sms = sms;
    return d;
}

void test_sizing(void)
{
    const size_t M = (size_t)1 << 20, G = (size_t)1 << 30;
    char why[256];
    hx_device d;
    size_t n;
    t_capture c;
    char *text;

    t_context("default n, 60 MiB L2");
    d = t_fake(60 * M, 139 * G, 132);
    n = hx_default_n(&d, 12, why, sizeof why);
    EXPECT_LL(n, (size_t)1 << 28);
    EXPECT_STR(why, "2^28 elements: each 1024 MiB buffer is 17.1x the 60 MiB "
               "L2, so timings measure device memory");
    t_context("default n, 4 MiB L2");
    d = t_fake(4 * M, 14 * G, 40);
    EXPECT_LL(hx_default_n(&d, 12, why, sizeof why), (size_t)1 << 24);
    t_context("default n, 40 MiB L2");
    d = t_fake(40 * M, 39 * G, 108);
    EXPECT_LL(hx_default_n(&d, 16, why, sizeof why), (size_t)1 << 28);
    t_context("default n, halved for free memory");
    d = t_fake(60 * M, 2 * G, 132);
    n = hx_default_n(&d, 12, why, sizeof why);
    EXPECT_LL(n, (size_t)1 << 26);   /* 12 * 2^26 = 768 MiB <= 1 GiB */
    EXPECT_STR(why, "halved from 2^28");
    t_context("default n, capped");
    d = t_fake(512 * M, 139 * G, 132);
    EXPECT_LL(hx_default_n(&d, 4, why, sizeof why), (size_t)1 << 30);

    t_context("fits");
    d = t_fake(60 * M, 1000 * M, 132);   /* spare: 64 MiB */
    EXPECT_LL(hx_fits(&d, 936 * M), 1);
    EXPECT_LL(hx_fits(&d, 936 * M + 1), 0);
    EXPECT_LL(hx_fits(&d, (size_t)-1), 0);
    d = t_fake(60 * M, 10 * G, 132);     /* spare: 5% = 512 MiB */
    EXPECT_LL(hx_fits(&d, 10 * G - 512 * M), 1);
    EXPECT_LL(hx_fits(&d, 10 * G - 512 * M + 1), 0);

    t_context("warn if cached");
    d = t_fake(60 * M, 10 * G, 132);
    t_capture_begin(&c);
    EXPECT_LL(hx_warn_if_cached(&d, 120 * M, c.f), 1);
    EXPECT_LL(hx_warn_if_cached(&d, 120 * M + 1, c.f), 0);
    text = t_capture_end(&c);
    EXPECT_STR(text, "WARNING: each buffer (120 MiB) fits in the L2 (60 MiB): "
               "timings measure the cache, not device memory\n");
    EXPECT_LL(t_count_lines(text), 1);
    free(text);

    t_context("grid");
    d = t_fake(60 * M, 10 * G, 132);
    EXPECT_LL(hx_grid_for(&d, 0, 256), 1);
    EXPECT_LL(hx_grid_for(&d, 1, 256), 1);
    EXPECT_LL(hx_grid_for(&d, 1000, 256), 4);
    EXPECT_LL(hx_grid_for(&d, 1024, 256), 4);
    EXPECT_LL(hx_grid_for(&d, (size_t)1 << 28, 256), 132 * 32);
    EXPECT_LL(hx_grid_for(&d, (size_t)1 << 28, 1024), 132 * 8);
    t_context("%s", "");
}

/* The no-GPU lines, from made-up facts: which reason, and what it names. */
void test_no_gpu_lines(void)
{
    hx_gpu_facts f;
    char why[512];

    t_context("driver needed");
    EXPECT_LL(hx_driver_needed(13000), 580);
    EXPECT_LL(hx_driver_needed(13020), 580);
    EXPECT_LL(hx_driver_needed(12090), 525);
    EXPECT_LL(hx_driver_needed(12000), 525);
    EXPECT_LL(hx_driver_needed(11080), 450);
    EXPECT_LL(hx_driver_needed(14000), 0);

    /* No driver at all: version 0, and the runtime calls it insufficient. */
    t_context("no driver");
    memset(&f, 0, sizeof f);
    f.runtime_version = 13000;
    f.err = cudaErrorInsufficientDriver;
    f.call = "cudaGetDeviceCount";
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no NVIDIA driver is installed");
    EXPECT_STR(why, "this program's CUDA 13.0 runtime needs NVIDIA driver 580 "
               "or newer");
    EXPECT(strstr(why, "insufficient") == NULL);
    EXPECT(strstr(why, "too old") == NULL);
    f.runtime_version = 12040;
    hx_gpu_unusable(&f, why, sizeof why);
    EXPECT_STR(why, "CUDA 12.4 runtime needs NVIDIA driver 525 or newer");

    t_context("stub libcuda");
    f.runtime_version = 13000;
    f.err = cudaErrorStubLibrary;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no NVIDIA driver: the libcuda found is the CUDA "
               "Toolkit's stub");
    EXPECT_STR(why, "driver 580 or newer");

    /* A CUDA 12.4 driver under a 13.0 runtime: too old, by name. */
    t_context("driver too old");
    memset(&f, 0, sizeof f);
    f.runtime_version = 13000;
    f.driver_version = 12040;
    f.err = cudaErrorInsufficientDriver;
    f.call = "cudaGetDeviceCount";
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "the NVIDIA driver is too old: it supports CUDA 12.4, and "
               "this program's CUDA 13.0 runtime needs NVIDIA driver 580 or "
               "newer");
    EXPECT_STR(why, "a CUDA Toolkit of 12.x");
    /* Older major, even where the runtime has not said so yet. */
    f.err = cudaSuccess;
    f.count = 1;
    f.major = 9;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "too old");
    /* Same major, older minor: minor version compatibility runs it. */
    f.driver_version = 13000;
    f.runtime_version = 13020;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 0);

    t_context("no device");
    memset(&f, 0, sizeof f);
    f.runtime_version = 13000;
    f.driver_version = 13000;
    f.err = cudaErrorNoDevice;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no CUDA device: the NVIDIA driver (CUDA 13.0) is "
               "installed but sees no GPU");
    f.visible = "7";
    hx_gpu_unusable(&f, why, sizeof why);
    EXPECT_STR(why, "with CUDA_VISIBLE_DEVICES=\"7\"");
    f.err = cudaSuccess;
    f.count = 0;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no CUDA device");

    t_context("compute capability");
    memset(&f, 0, sizeof f);
    f.runtime_version = 12080;
    f.driver_version = 12080;
    f.count = 2;
    f.name = "Tesla P100-PCIE-16GB";
    f.major = 6;
    f.minor = 0;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "GPU 0 (Tesla P100-PCIE-16GB) has compute capability 6.0; "
               "the labs need 7.5 or newer");
    f.major = 7;
    f.minor = 0;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    f.minor = 5;
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 0);
    f.major = 9;
    f.minor = 0;
    EXPECT_LL(hx_gpu_unusable(&f, NULL, 0), 0);

    t_context("other failures");
    f.err = cudaErrorDevicesUnavailable;
    f.call = "cudaMemGetInfo";
    EXPECT_LL(hx_gpu_unusable(&f, why, sizeof why), 1);
    EXPECT_STR(why, "no usable CUDA GPU: cudaMemGetInfo failed: "
               "cudaErrorDevicesUnavailable: ");
    EXPECT_STR(why, "busy");
    t_context("%s", "");
}

void test_table(void)
{
    t_capture c;
    char *text;
    hx_timing copy, row, slow;
    double odd[5] = {3.0, 1.0, 5.0, 2.0, 4.0};
    double even[4] = {4.0, 1.0, 3.0, 2.0};
    double one[1] = {7.5};
    t_context("table");

    hx_timing_from(odd, 5, 2, &row);
    EXPECT(row.median_ms == 3.0 && row.min_ms == 1.0 && row.max_ms == 5.0);
    EXPECT(row.mean_ms == 3.0 && row.runs == 5 && row.warmup == 2);
    hx_timing_from(even, 4, 0, &row);
    EXPECT(row.median_ms == 2.5 && row.min_ms == 1.0 && row.max_ms == 4.0);
    hx_timing_from(one, 1, 0, &row);
    EXPECT(row.median_ms == 7.5 && row.min_ms == 7.5 && row.max_ms == 7.5);

    copy.median_ms = 0.512; copy.min_ms = 0.5; copy.max_ms = 0.6;
    row.median_ms = 1.7; row.min_ms = 1.65; row.max_ms = 2.25;
    slow.median_ms = 3.0; slow.min_ms = 3.0; slow.max_ms = 3.0;
    t_capture_begin(&c);
    hx_table_begin(c.f, "where the time goes (n = 268435456)");
    hx_table_row(c.f, "copy", 1, &copy, copy.median_ms, 0.384);
    hx_table_row(c.f, "a row name exactly forty characters long", 3, &row,
                 copy.median_ms, 0.85);
    hx_table_note(c.f, "note: one pass");
    hx_table_row(c.f, "no copy", 2, &slow, 0.0, -1.0);
    hx_table_end(c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "where the time goes (n = 268435456)\n"
        "row                                      launches median ms   min ms   max ms  x copy x floor\n"
        "---------------------------------------------------------------------------------------------\n"
        "copy                                            1     0.512    0.500    0.600    1.00    1.33\n"
        "a row name exactly forty characters long        3     1.700    1.650    2.250    3.32    2.00\n"
        "    note: one pass\n"
        "no copy                                         2     3.000    3.000    3.000       -       -\n"
        "---------------------------------------------------------------------------------------------\n");
    free(text);
    EXPECT(hx_gbps(1e9, 1000.0) == 1.0);
    EXPECT(hx_gbps(1e9, 0.0) == 0.0);
    EXPECT(hx_floor_ms(1000.0, 2000.0, 4.0) == 2.0);
    EXPECT(hx_floor_ms(1000.0, 0.0, 4.0) == 0.0);
    t_context("%s", "");
}

/* ---- the GPU lock (hx_lock.c) ------------------------------------------ */

/* A child that opens the lock file, takes kind (waiting), writes 'T' to
 * its status pipe, then holds the lock until its control pipe is written
 * or closed. */
typedef struct {
    pid_t pid;
    int status, control;   /* parent's ends */
} t_holder;

static t_holder t_hold(const char *path, hx_lock_kind kind)
{
    int st[2], ct[2];
    t_holder h = {-1, -1, -1};
    if (pipe(st) || pipe(ct))
        return h;
    h.pid = fork();
    if (h.pid == 0) {
        close(st[0]);
        close(ct[1]);
        hx_gpu_lock l;
        char c = 'T', go;
        if (hx_gpu_lock_open(&l, path) || hx_gpu_lock_take(&l, kind))
            c = 'E';
        if (write(st[1], &c, 1) != 1) _exit(3);
        if (read(ct[0], &go, 1) < 0) _exit(3);
        hx_gpu_lock_close(&l);
        _exit(0);
    }
    close(st[1]);
    close(ct[0]);
    h.status = st[0];
    h.control = ct[1];
    return h;
}

static char t_holder_state(const t_holder *h)
{
    char c = '?';
    if (read(h->status, &c, 1) != 1) c = '?';
    return c;
}

static int t_holder_end(t_holder *h)
{
    int ws = 0;
    char go = 'G';
    if (write(h->control, &go, 1) != 1) return -1;
    close(h->control);
    close(h->status);
    waitpid(h->pid, &ws, 0);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static void t_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Tries kind from this process until it is busy (1) or 5 s pass (0). */
static int t_becomes_busy(hx_gpu_lock *l, hx_lock_kind kind)
{
    for (int k = 0; k < 500; ++k) {
        const int rc = hx_gpu_lock_try(l, kind);
        if (rc == 1) return 1;
        if (rc == 0) hx_gpu_lock_release(l);
        t_sleep_ms(10);
    }
    return 0;
}

void test_gpu_lock(void)
{
    t_context("the GPU lock");
    hx_gpu_lock off;
    EXPECT(hx_gpu_lock_open(&off, NULL) == 0 && off.fd == -1);
    EXPECT(hx_gpu_lock_take(&off, HX_LOCK_EXCLUSIVE) == 0);
    hx_gpu_lock_release(&off);
    EXPECT(hx_gpu_lock_try(&off, HX_LOCK_SHARED) == 0);
    hx_gpu_lock_close(&off);

    char path[] = "/tmp/hx-lock-test-XXXXXX";
    const int fd = mkstemp(path);
    EXPECT(fd >= 0);
    if (fd < 0) return;
    close(fd);
    hx_gpu_lock me;
    EXPECT(hx_gpu_lock_open(&me, path) == 0 && me.fd >= 0);
    hx_gpu_lock bad;
    EXPECT(hx_gpu_lock_open(&bad, "/nonexistent-dir/hx.lock") == -1);

    /* Alone: both kinds are free; taking twice is refused. */
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 0);
    EXPECT(hx_gpu_lock_take(&me, HX_LOCK_SHARED) == -1 && errno == EINVAL);
    hx_gpu_lock_release(&me);

    /* Another process shares: shared is free, exclusive is busy. */
    t_holder a = t_hold(path, HX_LOCK_SHARED);
    EXPECT(t_holder_state(&a) == 'T');
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 0);
    hx_gpu_lock_release(&me);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 1);
    EXPECT(me.held == HX_LOCK_NONE);

    /* A process waiting for exclusive closes the turnstile: new shared
     * takers queue behind it, though only a shared lock is held. */
    t_holder b = t_hold(path, HX_LOCK_EXCLUSIVE);
    EXPECT(t_becomes_busy(&me, HX_LOCK_SHARED));
    EXPECT_LL(t_holder_end(&a), 0);           /* the sharer leaves ... */
    EXPECT(t_holder_state(&b) == 'T');        /* ... the waiter gets it */
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 1);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 1);
    EXPECT_LL(t_holder_end(&b), 0);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 0);
    hx_gpu_lock_release(&me);

    /* Exclusive within a limit: a sharer that stays (a kernel that never
     * ends until its watchdog) makes it give up, leaving the turnstile
     * open for other sharers; once the sharer leaves, it is taken. */
    t_holder d = t_hold(path, HX_LOCK_SHARED);
    EXPECT(t_holder_state(&d) == 'T');
    EXPECT(hx_gpu_lock_take_within(&me, HX_LOCK_EXCLUSIVE, 0.05) == 1);
    EXPECT(me.held == HX_LOCK_NONE);
    t_holder e = t_hold(path, HX_LOCK_SHARED);
    EXPECT(t_holder_state(&e) == 'T');
    EXPECT_LL(t_holder_end(&e), 0);
    EXPECT_LL(t_holder_end(&d), 0);
    EXPECT(hx_gpu_lock_take_within(&me, HX_LOCK_EXCLUSIVE, 5.0) == 0);
    EXPECT(me.held == HX_LOCK_EXCLUSIVE);
    hx_gpu_lock_release(&me);

    /* A turn: beside sharers, alone among turns, never beside the
     * exclusive lock; a waiting exclusive taker closes the turnstile to
     * new turns as to new sharers. */
    t_holder f = t_hold(path, HX_LOCK_TURN);
    EXPECT(t_holder_state(&f) == 'T');
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 0);
    hx_gpu_lock_release(&me);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_TURN) == 1);
    EXPECT(me.held == HX_LOCK_NONE);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 1);
    EXPECT_LL(t_holder_end(&f), 0);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_TURN) == 0);
    EXPECT(me.held == HX_LOCK_TURN);
    hx_gpu_lock_release(&me);
    t_holder g = t_hold(path, HX_LOCK_SHARED);
    EXPECT(t_holder_state(&g) == 'T');
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_TURN) == 0);   /* beside a sharer */
    hx_gpu_lock_release(&me);
    t_holder h = t_hold(path, HX_LOCK_EXCLUSIVE);
    EXPECT(t_becomes_busy(&me, HX_LOCK_TURN));
    EXPECT_LL(t_holder_end(&g), 0);
    EXPECT(t_holder_state(&h) == 'T');
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_TURN) == 1);
    EXPECT_LL(t_holder_end(&h), 0);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_TURN) == 0);   /* all let go */
    hx_gpu_lock_release(&me);

    /* A holder killed (a run past its time limit) leaves nothing held. */
    t_holder c = t_hold(path, HX_LOCK_EXCLUSIVE);
    EXPECT(t_holder_state(&c) == 'T');
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_SHARED) == 1);
    kill(c.pid, SIGKILL);
    waitpid(c.pid, NULL, 0);
    close(c.control);
    close(c.status);
    EXPECT(hx_gpu_lock_try(&me, HX_LOCK_EXCLUSIVE) == 0);
    hx_gpu_lock_close(&me);
    unlink(path);
    t_context("%s", "");
}

/* hx_cuda_check's exit code for err, from a child (it exits), stderr
 * closed; -1 when the child did not exit. */
static int t_check_exit(cudaError_t err)
{
    const pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(99);
        hx_cuda_check(err, "t_check_exit", __FILE__, __LINE__);
        _exit(98);
    }
    int ws = 0;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid) return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* The exit code says what happened: a grader grades a fault (4) but not a
 * device without room (5) or without a GPU (3). No GPU needed. */
void test_cuda_check_exit(void)
{
    EXPECT_LL(t_check_exit(cudaSuccess), 98);
    EXPECT_LL(t_check_exit(cudaErrorMemoryAllocation), HX_EXIT_NOMEM);
    EXPECT_LL(t_check_exit(cudaErrorIllegalAddress), HX_EXIT_CUDA);
    EXPECT_LL(t_check_exit(cudaErrorLaunchFailure), HX_EXIT_CUDA);
    EXPECT_LL(t_check_exit(cudaErrorNoDevice), HX_EXIT_NO_GPU);
}
