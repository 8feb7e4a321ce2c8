/* hx_guard.h: device outputs with guard regions on both sides, poisoned
 * before each run.
 *
 * Layout of one allocation: [HX_GUARD_WORDS guard][n output][HX_GUARD_WORDS
 * guard]. The kernel gets .data; anything it writes into a guard is seen
 * when the whole allocation is fetched.
 */
#ifndef HX_GUARD_H
#define HX_GUARD_H

#include <stddef.h>
#include "hx_check.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HX_GUARD_WORDS ((size_t)4096)

typedef struct {
    int *base;     /* the allocation */
    int *data;     /* base + HX_GUARD_WORDS: the output the kernel sees */
    size_t n;
} hx_guarded;

/* cudaMalloc of n + 2 * HX_GUARD_WORDS ints; checked (exits on failure). */
void hx_guarded_alloc(hx_guarded *b, size_t n);
void hx_guarded_free(hx_guarded *b);

/* Guards to HX_GUARD_WORD, data to HX_POISON (cudaMemset, ordered on the
 * default stream before any later launch). */
void hx_guarded_poison(hx_guarded *b);

/* Copies the output to host[0..n) and scans both guards into *g. Returns
 * the number of changed guard words. Synchronises. */
size_t hx_guarded_fetch(const hx_guarded *b, int *host, hx_guard_report *g);

#ifdef __cplusplus
}
#endif
#endif
