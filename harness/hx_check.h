/* hx_check.h: checks that compare element for element and say exactly
 * what is wrong. None of them summarises by sums; every report names the
 * first bad index with both values and counts the bad slots.
 *
 * Outputs are poisoned with HX_POISON before each run, so a slot the
 * kernel never wrote is told apart from a wrong value. Device outputs sit
 * between two guard regions filled with HX_GUARD_WORD (hx_guard.h), so a
 * write past either end is caught and reported with its offset.
 */
#ifndef HX_CHECK_H
#define HX_CHECK_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Byte-repeated patterns, so cudaMemset can lay them down. */
#define HX_POISON_BYTE 0xBE
#define HX_POISON ((int)0xBEBEBEBEu)       /* -1094795586 */
#define HX_GUARD_BYTE 0xA5
#define HX_GUARD_WORD ((int)0xA5A5A5A5u)   /* -1515870811 */

/* What the writes into the guards were. Offsets are relative to the
 * output's first element: -1 is the word just before out[0], n the word
 * just after out[n-1]. */
typedef struct {
    size_t before;              /* guard words changed before the output */
    size_t after;               /* guard words changed after it */
    long long first_before;     /* offset of the changed word nearest the
                                   output on the left (valid if before) */
    long long first_after;      /* offset of the changed word nearest the
                                   output on the right (valid if after) */
    int value_before, value_after;  /* what was written there */
} hx_guard_report;

/* Scans a host copy of a whole guarded buffer: guard words, then the n
 * output words, then guard more words. Fills *g; returns the number of
 * changed guard words (0 when clean). */
size_t hx_guard_scan(const int *whole, size_t n, size_t guard,
                     hx_guard_report *g);

/* Prints one line per side that was written:
 * "  <what>: wrote outside the output: 2 words after the end, first at
 *  offset n+0 (index 1000), value 7". Prints nothing when clean. */
void hx_guard_print(const char *what, size_t n, const hx_guard_report *g,
                    FILE *out);

/* Element-for-element comparison. */
typedef struct {
    size_t bad;         /* slots where got != want */
    size_t first;       /* first such index (valid if bad) */
    int got, want;      /* values there */
    size_t unwritten;   /* bad slots that still hold HX_POISON */
    size_t first_unwritten;
} hx_cmp;

/* Compares got[0..n) with want[0..n) exactly. Returns 0 when equal, 1
 * otherwise. With out non-NULL prints on failure:
 *   "<what>: FAIL at n=<n>: first bad index i: got G, want W; B of n slots
 *    differ (U never written)"
 * and nothing on success. */
int hx_check_equal(const char *what, const int *got, const int *want,
                   size_t n, hx_cmp *r, FILE *out);

/* Same-values check for outputs whose order is unspecified (the atomic
 * compaction): got[0..n) must hold the same multiset as want[0..n).
 * out_of_order counts the slots where got[i] != want[i] (want is the
 * stable order), which is information, not an error. */
typedef struct {
    size_t missing;       /* values of want that got lacks (with multiplicity) */
    size_t extra;         /* values of got that want lacks */
    size_t unwritten;     /* slots holding HX_POISON */
    size_t out_of_order;  /* slots that differ from the stable order */
    size_t first_missing_index;  /* an index in want whose value is missing */
    int first_missing_value;
} hx_same;

/* Returns 0 when the multisets agree, 1 otherwise; prints a one-line
 * report on failure when out is non-NULL. Sorts copies; n may be 0. */
int hx_check_same_values(const char *what, const int *got, const int *want,
                         size_t n, hx_same *r, FILE *out);

/* The three-way boundary check of DESIGN.md.
 *
 * Classification, first match wins:
 *   OUT_OF_BOUNDS  a guard word changed
 *   UNWRITTEN      n > 0 and no slot was written at all
 *   SWAPPED        each group present is one contiguous run (poison slots
 *                  ignored) but the runs are not in the order
 *                  negatives, zeros, positives
 *   MISMATCH       the groups are interleaved (not sorted by kind)
 *   GROUP_MISSING  a kind the input holds has no slot in the output
 *   BOUNDARY       sorted by kind, but a found boundary differs from the
 *                  expected one
 *   UNWRITTEN      boundaries right, but some slots still hold poison
 *   ORDER          each group holds exactly its values, some out of order
 *   MISMATCH       a group holds a value the input's group does not have
 *   PASS
 * Found boundaries (poison slots never count as any kind):
 *   found_b2 = where the positive group starts. Let p be the first slot
 *     holding a positive (n if none). Among the bases b in [p-2, p+2]
 *     clamped to [0, n], take the one at which the most of the input's
 *     positives, in input order, sit at got[b + r] (r = 0, 1, ...); ties go
 *     to the base nearest p, then the smaller; a base other than p must
 *     line up more than half of the input's positives, else p is taken
 *     (chance matches in a scrambled group are not a shift). This sees a
 *     kernel whose
 *     positive base is one slot early even when a zero overwrote the first
 *     positive in the race for the shared slot.
 *   found_b1 = min(first slot holding a zero (n if none), found_b2).
 * Expected: want_b1 = A (negatives), want_b2 = A + B (plus zeros). */
typedef enum {
    HX_SPLIT_PASS = 0,
    HX_SPLIT_OUT_OF_BOUNDS,
    HX_SPLIT_UNWRITTEN,
    HX_SPLIT_SWAPPED,
    HX_SPLIT_GROUP_MISSING,
    HX_SPLIT_BOUNDARY,
    HX_SPLIT_ORDER,
    HX_SPLIT_MISMATCH
} hx_split_kind;

/* Short lowercase name: "pass", "out_of_bounds", "unwritten", "swapped",
 * "group_missing", "boundary", "order", "mismatch". */
const char *hx_split_kind_name(hx_split_kind k);

typedef struct {
    hx_split_kind kind;
    size_t n, negatives, zeros, positives;  /* group sizes of the input */
    size_t want_b1, want_b2;                /* A and A + B */
    size_t found_b1, found_b2;
    int b1_ok, b2_ok;
    hx_cmp cmp;                 /* against the host reference, whole output */
    size_t order_errors;        /* slots inside a right group, wrong place */
    size_t missing_group;       /* 0 negatives, 1 zeros, 2 positives (valid
                                   when kind is GROUP_MISSING) */
    int swapped_first, swapped_second;  /* kinds (0, 1, 2) of the first two
                                   runs out of order (valid when SWAPPED) */
    hx_guard_report guard;
} hx_split_report;

/* Checks got[0..n) as the split of in[0..n); g may be NULL when the
 * output had no guards. Fills *r and returns r->kind. */
hx_split_kind hx_check_split3(const int *in, const int *got, size_t n,
                              const hx_guard_report *g, hx_split_report *r);

/* Prints the report: the size and group sizes; both boundaries, expected
 * and found, each "ok" or "WRONG" (always, pass or fail); the first index
 * that disagrees with both values; order errors, unwritten slots and
 * writes outside the output, each by name; then the verdict line. */
void hx_split_print(const char *what, const hx_split_report *r, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
