/* hx_time.h: timing with CUDA events, and the table every lab prints.
 *
 * A row is timed over runs timed runs after warmup untimed ones, each run
 * bracketed by its own pair of events on the default stream; the table
 * reports the median, with the fastest and slowest run beside it. Host
 * copies are never inside a timing.
 *
 * Rows meant to be compared (a kernel and the copy it is measured
 * against) are best timed together with hx_time_set, which interleaves
 * them run by run, so a change of clock or a neighbour's load during the
 * measurement falls on every row alike.
 */
#ifndef HX_TIME_H
#define HX_TIME_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues one run of the work on the default stream and checks its
 * launches. Must not synchronise with the host or copy to it. */
typedef void (*hx_work)(void *ctx);

typedef struct {
    double median_ms;          /* what every table and ratio uses */
    double min_ms, max_ms;     /* the spread, printed beside the median */
    double mean_ms;
    int runs, warmup;
} hx_timing;

/* Runs work warmup times untimed, then runs times timed; checks every
 * CUDA call. runs < 1 counts as 1, warmup < 0 as 0. */
hx_timing hx_time(hx_work work, void *ctx, int warmup, int runs);

/* Times k works interleaved: warmup rounds untimed, then runs rounds in
 * which work 0, work 1, ..., work k-1 each run once between their own
 * events. out[j] describes works[j]. k >= 1. */
void hx_time_set(int k, const hx_work works[], void *const ctxs[],
                 int warmup, int runs, hx_timing out[]);

/* Fills *t from runs >= 1 measured times (sorts ms in place): the median
 * (the mean of the middle two for an even count), min, max and mean. */
void hx_timing_from(double *ms, int runs, int warmup, hx_timing *t);

/* The table:
 *   row | launches | median ms | min ms | max ms | x copy | x floor
 * x copy is the median over copy_ms, x floor the median over floor_ms:
 * the time the row's compulsory bytes take at the device-to-device copy
 * bandwidth measured in the same run (hx_floor_ms). Either is printed
 * "-" when its divisor is <= 0. */
void hx_table_begin(FILE *out, const char *title);
void hx_table_row(FILE *out, const char *row, int launches,
                  const hx_timing *t, double copy_ms, double floor_ms);
/* A note line inside the table's frame, e.g. what a row means. */
void hx_table_note(FILE *out, const char *note);
void hx_table_end(FILE *out);

/* Seconds on the monotonic clock (for limits and elapsed host time, not
 * for GPU timings, which use events). */
double hx_now_seconds(void);

/* Bytes moved over time as GB/s (10^9 bytes per second). */
double hx_gbps(double bytes, double ms);

/* The floor of a row that must move bytes, given that a device-to-device
 * copy moved copy_bytes (read plus written) in copy_ms:
 * bytes * copy_ms / copy_bytes. 0 when copy_bytes <= 0. */
double hx_floor_ms(double bytes, double copy_bytes, double copy_ms);

#ifdef __cplusplus
}
#endif
#endif
