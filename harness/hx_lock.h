/* hx_lock.h: one GPU shared between processes that check and one that
 * times.
 *
 * The grading tool runs many drivers at once on one GPU. A run that only
 * checks can share the GPU; a run that times must have it alone, or the
 * other runs' kernels land inside its timings. Each driver takes the lock
 * itself, only around its GPU work, so that its host work (creating a
 * CUDA context, generating inputs and references) still overlaps between
 * processes, timing runs included.
 *
 * The lock is a file shared by every driver on the GPU, locked with POSIX
 * record locks (fcntl), which the kernel drops when a process dies or is
 * killed: a submission that hangs or crashes never leaves the lock held.
 * Byte 0 is a turnstile, byte 1 the GPU itself:
 *   shared:     take byte 0 (write), take byte 1 (read), drop byte 0
 *   exclusive:  take byte 0 (write), take byte 1 (write), keep both
 * A process waiting for the exclusive lock holds the turnstile, so new
 * shared takers queue behind it: a stream of checking runs cannot starve
 * a timing run, which waits only for the runs already on the GPU.
 *
 * A turn (HX_LOCK_TURN) is shared with every shared holder but alone
 * among turns: the checks' batches of one driver at a time, while other
 * processes create their contexts, allocate or tear down beside it. Byte
 * 2 is the turn:
 *   turn:       take byte 2 (write), then as shared; keep bytes 1 and 2
 * It is taken before the turnstile, so a process waiting for a turn holds
 * nothing a timing waits for.
 *
 * A lock opened with no path does nothing (the student's own runs).
 */
#ifndef HX_LOCK_H
#define HX_LOCK_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HX_LOCK_NONE = 0,
    HX_LOCK_SHARED,
    HX_LOCK_EXCLUSIVE,
    HX_LOCK_TURN           /* shared, and alone among turns */
} hx_lock_kind;

typedef struct {
    int fd;              /* -1: disabled */
    hx_lock_kind held;
} hx_gpu_lock;

/* Opens (creating it if needed) the lock file at path; path NULL or ""
 * gives a lock that does nothing. Returns 0, or -1 with errno set. */
int hx_gpu_lock_open(hx_gpu_lock *l, const char *path);

/* Waits for the lock (shared or exclusive). The lock must not be held.
 * Returns 0, or -1 with errno set. */
int hx_gpu_lock_take(hx_gpu_lock *l, hx_lock_kind kind);

/* As hx_gpu_lock_take, waiting at most about seconds for the GPU itself
 * (the turnstile is waited for without a limit: only other takers of the
 * exclusive lock hold it, each for at most its own limit or its timing):
 * 0 taken, 1 not within the limit (then nothing is held, and the
 * turnstile is open again, so that processes that only check go on while
 * a long run elsewhere, such as a kernel that never ends until its
 * watchdog stops it, holds the GPU shared), -1 error. */
int hx_gpu_lock_take_within(hx_gpu_lock *l, hx_lock_kind kind,
                            double seconds);
/* As hx_gpu_lock_take without waiting: 0 taken, 1 busy, -1 error. */
int hx_gpu_lock_try(hx_gpu_lock *l, hx_lock_kind kind);

/* Drops what is held (nothing if nothing is). */
void hx_gpu_lock_release(hx_gpu_lock *l);

/* Drops what is held and closes the file. */
void hx_gpu_lock_close(hx_gpu_lock *l);

#ifdef __cplusplus
}
#endif

#endif
