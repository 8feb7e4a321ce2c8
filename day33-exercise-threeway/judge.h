/* judge.h: the driver's verdict on one run's output. Host code only (C11,
 * no CUDA), so that test_judge.c checks it on any machine.
 *
 * The report of every run is the harness's three-way check
 * (hx_check_split3 in ../harness/hx_check.h), field for field: an output
 * that equals the reference word for word, with clean guards, gets the
 * report that function gives the reference, built without reading the
 * output again (most runs pass, and the largest outputs hold tens of
 * millions of ints); any other output goes to hx_check_split3 itself.
 * What grade mode adds, the status and the groups never written, is read
 * off that report.
 */
#ifndef JUDGE_H
#define JUDGE_H

#include <stddef.h>
#include "hx_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The verdict on one output. */
typedef struct {
    hx_split_report r;   /* hx_check_split3's report */
    const char *status;  /* judgeStatus(r.kind) */
    char group[48];      /* whatever the status: the groups none of whose
                            slots was written (judgeUnwrittenGroups; every
                            group when nothing was written; a lone zero
                            never written at a boundary is status
                            "boundary" with group "zeros"); "" when every
                            group has a slot written */
} judge_verdict;

/* The report hx_check_split3 gives the right split of an input of n
 * elements, a of them negative and ab - a zero, with guards g (clean). */
void judgePass(size_t n, size_t a, size_t ab, const hx_guard_report *g,
               hx_split_report *r);

/* The verdict on got[0..n), the output of the split of in[0..n); ref is
 * the reference split, a and ab its boundaries, g the guards' report.
 * The report is judgePass's when got equals ref and g is clean, else
 * hx_check_split3(in, got, n, g, &v->r)'s. */
void judgeRun(const int *in, const int *ref, const int *got, size_t n,
              size_t a, size_t ab, const hx_guard_report *g,
              judge_verdict *v);

/* The grade-mode status of a kind: its hx_split_kind_name, except that
 * swapped and group_missing are "boundary" (a group in the wrong place). */
const char *judgeStatus(hx_split_kind k);

/* The groups of the input none of whose slots was written (the report's
 * unwritten_in[k] equals the group's size, which is not 0), named in
 * order into buf: "zeros", "zeros and positives", "negatives, zeros and
 * positives"; "" when none. Returns how many. */
int judgeUnwrittenGroups(const hx_split_report *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
