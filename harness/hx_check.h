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

/* The three-way split check.
 *
 * The split puts every negative first, then every zero, then every
 * positive, each group in input order: the negatives start at 0, the zeros
 * at A (the count of negatives; boundary 1) and the positives at A + B
 * (plus the zeros; boundary 2). The check finds where each group actually
 * starts, judges each boundary on its own, and names unwritten slots,
 * order errors and writes outside the output as such.
 *
 * Readings. A kernel whose base for a group is one slot off writes that
 * whole group one slot early or late: one slot of the group is left
 * unwritten, and its first (or last) element lands on a neighbour's slot,
 * where either write may win the race, or outside the output. The check
 * tries every combination of such shifts (each group by -1, 0 or +1) and
 * keeps each that reproduces the output exactly, every slot and both
 * guards, with any writer winning each shared slot. Where the output alone
 * cannot tell two kernels apart (zeros one slot early whose first zero
 * lost the race to the last negative leave the same output as right
 * zeros whose last one was never written), every reading that fits is
 * reported, the fewest shifts first, and the first one places the groups.
 * A start is "ok" only when every reading kept leaves it in place.
 *
 * Where the groups start (found_start), first match wins:
 *   a reading fits: its shifts (found_start[k] = want_start[k] + shift);
 *   nothing written (n > 0, every slot poison): no group is located;
 *   otherwise by alignment: for the negatives and the positives, among
 *     the bases b within two slots of the first slot holding that kind,
 *     the one at which the most of the input's group, in input order,
 *     sit at got[b + r] (ties: nearest that first slot, then the smaller);
 *     a base other than that first slot must line up more than half of
 *     the group (chance matches in a scrambled group are not a shift). The
 *     zeros start at the first zero, never past the positives' start.
 *     A group the input holds that has no element in the output is not
 *     located (HX_START_UNKNOWN). An empty group starts where expected
 *     (the zeros' start, where there are none, is the positives' start).
 *
 * Classification, first match wins:
 *   OUT_OF_BOUNDS  a guard word changed (a reading may still explain it:
 *                  zeros one slot early with no negatives write at -1)
 *   UNWRITTEN      n > 0 and nothing was written (nothing_written)
 *   BOUNDARY       a reading fits (one or more groups shifted by a slot)
 *   SWAPPED        each group present is one contiguous run (poison slots
 *                  ignored) but the runs are not in the order
 *                  negatives, zeros, positives
 *   MISMATCH       the groups are interleaved (not sorted by kind)
 *   UNWRITTEN      a group the input holds is absent, and every one of
 *                  its slots still holds poison (the group never written)
 *   GROUP_MISSING  a group the input holds is absent, its slots hold
 *                  other values
 *   BOUNDARY       a group starts elsewhere (by alignment)
 *   UNWRITTEN      boundaries right, but some slots still hold poison
 *   ORDER          each group holds exactly its values, some out of order
 *   MISMATCH       a group holds a value the input's group does not have
 *   PASS
 */
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

/* Whether a group was found where it should start. */
typedef enum {
    HX_START_OK = 0,
    HX_START_WRONG,     /* found_start says where it starts instead */
    HX_START_UNSURE,    /* right in the first reading, shifted in another */
    HX_START_UNKNOWN    /* not located: absent, or nothing was written */
} hx_start_state;

/* The most readings a report keeps (there are 26 combinations). */
#define HX_SPLIT_READINGS 4

/* What one group's shift in a reading did (valid where the shift is not
 * 0). A group moved one slot early leaves its last slot and takes the
 * slot before its first; one moved late leaves its first slot and takes
 * the slot after its last. */
typedef struct {
    long long left;        /* the slot the group left */
    int left_unwritten;    /* it still holds poison (else a neighbour's
                              shift filled it) */
    long long taken;       /* the slot its end element moved onto: -1 or
                              n when outside the output */
    int moved;             /* that element's value */
    int owner;             /* the value the split puts in slot taken
                              (valid when taken is inside) */
    int held;              /* what slot taken holds (valid inside): moved
                              when the group won the race for it */
} hx_split_move;

typedef struct {
    hx_split_kind kind;
    size_t n, negatives, zeros, positives;  /* group sizes of the input */
    /* Where the negatives, zeros and positives start: expected (0, A,
     * A + B) and found. found_start is -1 for a group one slot early with
     * nothing before it: its first element went to offset -1. */
    long long want_start[3], found_start[3];
    hx_start_state start[3];
    /* Boundary 1 is the zeros' start, boundary 2 the positives' start:
     * want_b1 = A, want_b2 = A + B; found_b1 and found_b2 are
     * found_start[1] and [2] clamped to [0, n] (n when not located);
     * b1_ok and b2_ok are 1 only for HX_START_OK. */
    size_t want_b1, want_b2;
    size_t found_b1, found_b2;
    int b1_ok, b2_ok;
    hx_cmp cmp;                 /* against the host reference, whole output */
    int nothing_written;        /* n > 0 and every slot still holds poison */
    size_t unwritten_in[3];     /* poison slots among the slots of the
                                   negatives, zeros and positives */
    size_t order_errors;        /* slots inside a right group, wrong place */
    size_t missing_group;       /* 0 negatives, 1 zeros, 2 positives (valid
                                   when kind is GROUP_MISSING) */
    int swapped_first, swapped_second;  /* kinds (0, 1, 2) of the first two
                                   runs out of order (valid when SWAPPED) */
    /* The readings that fit (see above): shift[i][k] is -1, 0 or +1 for
     * the negatives, zeros and positives; reading 0 places the groups.
     * readings counts every fitting one, even past HX_SPLIT_READINGS. */
    size_t readings;
    int shift[HX_SPLIT_READINGS][3];
    hx_split_move move[HX_SPLIT_READINGS][3];
    int also_unwritten;         /* with readings: the output is also the
                                   right split with slots never written */
    hx_guard_report guard;
} hx_split_report;

/* Checks got[0..n) as the split of in[0..n); g may be NULL when the
 * output had no guards (then writes outside the output are unseen, and a
 * reading may place them there). Fills *r and returns r->kind. */
hx_split_kind hx_check_split3(const int *in, const int *got, size_t n,
                              const hx_guard_report *g, hx_split_report *r);

/* Prints the report: the size and group sizes; both boundaries, expected
 * and found, each "ok", "WRONG (k slots early|late)", ok in the first
 * reading but shifted in another, or "not found" (and the negatives'
 * start when it is not 0); when nothing was written, the line "nothing
 * was written: every slot still holds the poison" in their place (and
 * before them when a reading places the groups, its writes all outside
 * the output); the first index that disagrees with both values;
 * unwritten slots by group, order errors and writes outside the output;
 * each reading that fits, naming the slots a shifted group left unwritten
 * and the slot whose race it won or lost, with the other readings and a
 * mix that tells them apart; then the verdict line, "PASS" or
 * "FAIL: <kind name>: ..." (an unwritten verdict names the groups never
 * written). */
void hx_split_print(const char *what, const hx_split_report *r, FILE *out);

/* The boundaries in one line for a table of runs, no newline:
 *   "boundary 1 at 95 ok, boundary 2 at 180 ok"
 *   "boundary 1 at 94, want 95 WRONG, boundary 2 at 180 ok (2 readings)"
 *   "boundary 1 at 95 or 94, boundary 2 at 179, want 180 WRONG
 *    (2 readings)"     (readings disagree on boundary 1)
 *   "boundary 1 not found (no zero written), boundary 2 at 180 ok"
 *   "nothing was written: every slot still holds the poison"
 * prefixed by "negatives at 1, want 0 WRONG, " when they start elsewhere
 * ("negatives not found, " when none is in the output); "(N readings)"
 * when more than one explanation fits. Truncates to len - 1 characters. */
void hx_split_brief(char *buf, size_t len, const hx_split_report *r);

#ifdef __cplusplus
}
#endif
#endif
