/* hx_ref.h: host references, the definitions every kernel is checked
 * against. Plain loops, written for clarity, not speed.
 */
#ifndef HX_REF_H
#define HX_REF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*hx_pred)(int value);

int hx_pred_nonzero(int v);   /* v != 0 */
int hx_pred_even(int v);      /* v % 2 == 0, negatives included */
int hx_pred_mult3(int v);     /* v % 3 == 0, negatives and 0 included */
int hx_pred_negative(int v);  /* v < 0 */
int hx_pred_zero(int v);      /* v == 0 */

/* out[i] = in[0] + ... + in[i-1] (out[0] = 0). in and out may be the same
 * array. Sums wrap modulo 2^32 as int on the device; returns the exact
 * total as long long so a caller can see whether it fit. */
long long hx_scan_exclusive(const int *in, int *out, size_t n);

/* out[i] = in[0] + ... + in[i]. Same rules as the exclusive scan. */
long long hx_scan_inclusive(const int *in, int *out, size_t n);

/* flags[i] = pred(in[i]) ? 1 : 0. */
void hx_mark(const int *in, int *flags, size_t n, hx_pred pred);

/* Stream compaction: the elements with pred true, in input order, at
 * out[0..m); returns m. out must not overlap in. */
size_t hx_compact(const int *in, int *out, size_t n, hx_pred pred);

/* Stable two-way partition: the elements with pred true in input order,
 * then the others in input order. Returns the count with pred true (the
 * boundary). out must not overlap in. */
size_t hx_partition(const int *in, int *out, size_t n, hx_pred pred);

/* Stable three-way split: negatives, then zeros, then positives, each in
 * input order. *b1 = number of negatives (A), *b2 = A + number of zeros
 * (A + B). out must not overlap in. */
void hx_split3(const int *in, int *out, size_t n, size_t *b1, size_t *b2);

/* out[i] = in[map[i]], every map[i] in [0, n). */
void hx_gather(const int *in, const int *map, int *out, size_t n);

/* out[map[i]] = in[i], in index order, so where destinations repeat the
 * last i wins. Slots no i maps to are left as they were. Returns the
 * number of writes that a repeated destination overwrote (n minus the
 * number of distinct destinations): 0 for a permutation. */
size_t hx_scatter(const int *in, const int *map, int *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
