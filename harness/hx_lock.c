/* hx_lock.c: the GPU lock of hx_lock.h, with fcntl record locks. */
#define _POSIX_C_SOURCE 200809L

#include "hx_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <time.h>

#include "hx_time.h"

enum { TURNSTILE = 0, GPU = 1, TURN = 2 };

/* One byte's lock: type F_RDLCK, F_WRLCK or F_UNLCK. Returns 0, 1 when
 * busy (only without wait), -1 on error. */
static int byteLock(int fd, int byte, short type, int wait)
{
    struct flock f;
    memset(&f, 0, sizeof f);
    f.l_type = type;
    f.l_whence = SEEK_SET;
    f.l_start = byte;
    f.l_len = 1;
    for (;;) {
        if (fcntl(fd, wait ? F_SETLKW : F_SETLK, &f) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (!wait && (errno == EACCES || errno == EAGAIN))
            return 1;
        return -1;
    }
}

int hx_gpu_lock_open(hx_gpu_lock *l, const char *path)
{
    l->fd = -1;
    l->held = HX_LOCK_NONE;
    if (!path || !path[0])
        return 0;
    do {
        l->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    } while (l->fd < 0 && errno == EINTR);
    return l->fd < 0 ? -1 : 0;
}

/* wait: 1 without limit; 0 not at all; -1 polls the GPU byte until the
 * deadline (a CLOCK_MONOTONIC time in seconds). */
static int lockKind(hx_gpu_lock *l, hx_lock_kind kind, int wait,
                    double deadline)
{
    if (l->fd < 0) {
        l->held = kind;
        return 0;
    }
    if (l->held != HX_LOCK_NONE || kind == HX_LOCK_NONE) {
        errno = EINVAL;
        return -1;
    }
    /* A turn first; then the turnstile; then the GPU. On any failure
     * everything is let go (an unlock of a byte not held does nothing). */
    int rc = kind == HX_LOCK_TURN ? byteLock(l->fd, TURN, F_WRLCK, wait != 0)
                                  : 0;
    if (rc)
        return rc;
    rc = byteLock(l->fd, TURNSTILE, F_WRLCK, wait != 0);
    const short type = kind == HX_LOCK_EXCLUSIVE ? F_WRLCK : F_RDLCK;
    if (rc == 0) {
        rc = byteLock(l->fd, GPU, type, wait == 1);
        while (wait < 0 && rc == 1 && hx_now_seconds() < deadline) {
            const struct timespec nap = {0, 1000000};   /* 1 ms */
            nanosleep(&nap, NULL);
            rc = byteLock(l->fd, GPU, type, 0);
        }
    }
    if (rc || kind != HX_LOCK_EXCLUSIVE) {
        const int saved = errno;
        byteLock(l->fd, TURNSTILE, F_UNLCK, 1);
        if (rc && kind == HX_LOCK_TURN)
            byteLock(l->fd, TURN, F_UNLCK, 1);
        errno = saved;
    }
    if (rc == 0)
        l->held = kind;
    return rc;
}

int hx_gpu_lock_take(hx_gpu_lock *l, hx_lock_kind kind)
{
    return lockKind(l, kind, 1, 0.0);
}

int hx_gpu_lock_take_within(hx_gpu_lock *l, hx_lock_kind kind,
                            double seconds)
{
    return lockKind(l, kind, -1, hx_now_seconds() + seconds);
}

int hx_gpu_lock_try(hx_gpu_lock *l, hx_lock_kind kind)
{
    return lockKind(l, kind, 0, 0.0);
}

void hx_gpu_lock_release(hx_gpu_lock *l)
{
    if (l->fd >= 0 && l->held != HX_LOCK_NONE) {
        byteLock(l->fd, GPU, F_UNLCK, 1);
        if (l->held == HX_LOCK_EXCLUSIVE)
            byteLock(l->fd, TURNSTILE, F_UNLCK, 1);
        if (l->held == HX_LOCK_TURN)
            byteLock(l->fd, TURN, F_UNLCK, 1);
    }
    l->held = HX_LOCK_NONE;
}

void hx_gpu_lock_close(hx_gpu_lock *l)
{
    hx_gpu_lock_release(l);
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
}
