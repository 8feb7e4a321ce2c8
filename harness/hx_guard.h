/* hx_guard.h: device outputs with guard regions on both sides, poisoned
 * before each run.
 *
 * Layout of one allocation: [guard words][cap output words][guard words].
 * The kernel gets .data and an output of n <= cap words; every word of the
 * allocation outside data[0..n) is guard, so a write just past the end of
 * a short output is caught as surely as one past a full-length one.
 * Anything a kernel writes into a guard is seen by a scan of the guards
 * (hx_guarded_fetch here, or a device-side scan over the same layout).
 */
#ifndef HX_GUARD_H
#define HX_GUARD_H

#include <stddef.h>
#include "hx_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Guard words on each side for hx_guarded_alloc: 16 KiB. */
#define HX_GUARD_WORDS ((size_t)4096)

typedef struct {
    int *base;     /* the allocation: guard + cap + guard ints */
    int *data;     /* base + guard: the output the kernel sees */
    size_t n;      /* the output's length now, <= cap */
    size_t cap;    /* the longest output the allocation holds */
    size_t guard;  /* guard words before data[0] and after data[cap - 1] */
} hx_guarded;

/* hx_guarded_alloc_wide(b, n, HX_GUARD_WORDS). */
void hx_guarded_alloc(hx_guarded *b, size_t n);

/* cudaMalloc of cap + 2 * guard ints (checked: exits on failure, with
 * HX_EXIT_NOMEM when the count overflows); n starts at cap. */
void hx_guarded_alloc_wide(hx_guarded *b, size_t cap, size_t guard);

void hx_guarded_free(hx_guarded *b);

/* Sets the output's length to n <= cap (exits with HX_EXIT_USAGE
 * otherwise). From then on the cap - n + guard words after data[n - 1]
 * are the guard after the output. */
void hx_guarded_resize(hx_guarded *b, size_t n);

/* Words of guard after the output: cap - n + guard. */
size_t hx_guarded_after(const hx_guarded *b);

/* Every guard word to HX_GUARD_WORD, data[0..n) to HX_POISON (cudaMemset,
 * ordered on the default stream before any later launch). */
void hx_guarded_poison(hx_guarded *b);

/* Copies the output to host[0..n) and scans guard words on each side of
 * it (the whole allocation when n == cap; with n < cap the words past
 * data[n + guard - 1] are left to a device-side scan) into *g. Returns the
 * number of changed guard words. Synchronises. */
size_t hx_guarded_fetch(const hx_guarded *b, int *host, hx_guard_report *g);

/* Copies data[0..n) alone to host[0..n). Synchronises. */
void hx_guarded_fetch_output(const hx_guarded *b, int *host);

#ifdef __cplusplus
}
#endif
#endif
