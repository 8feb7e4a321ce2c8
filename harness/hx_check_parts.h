/* hx_check_parts.h: what hx_check.c and hx_check_print.c, the two sources
 * of hx_check.o, share. Not part of the harness's API: no lab includes
 * it. */
#ifndef HX_CHECK_PARTS_H
#define HX_CHECK_PARTS_H

#include <stddef.h>
#include "hx_check.h"

/* "negatives", "zeros", "positives"; "negative", "zero", "positive". */
extern const char *const hx_group_names[3];
extern const char *const hx_one_names[3];

/* 0 negative, 1 zero, 2 positive; -1 for poison, which is no kind. */
int hx_kind(int v);

/* one when k == 1, else many. */
const char *hx_plural(size_t k, const char *one, const char *many);

/* The first kept reading after the first that shifts group k
 * differently from it, or 0 when none does. */
size_t hx_reading_moves(const hx_split_report *r, int k);

#endif
