/* hx_time.h: timing with CUDA events, and the table every lab prints.
 *
 * A row is timed as the mean of runs after warmup untimed runs, each run
 * bracketed by its own pair of events on the default stream. Host copies
 * are never inside a timing.
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
    double mean_ms, min_ms, max_ms;
    int runs, warmup;
} hx_timing;

/* Runs work warmup times untimed, then runs times timed; checks every
 * CUDA call. */
hx_timing hx_time(hx_work work, void *ctx, int warmup, int runs);

/* The table: "row | launches | time ms | x copy". */
void hx_table_begin(FILE *out, const char *title);
/* One row; x copy is ms / copy_ms (printed "-" when copy_ms <= 0). */
void hx_table_row(FILE *out, const char *row, int launches, double ms,
                  double copy_ms);
/* A note line inside the table's frame, e.g. what a row means. */
void hx_table_note(FILE *out, const char *note);
void hx_table_end(FILE *out);

/* Bytes moved over time as GB/s (10^9 bytes per second). */
double hx_gbps(double bytes, double ms);

#ifdef __cplusplus
}
#endif
#endif
