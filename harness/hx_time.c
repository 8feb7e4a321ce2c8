/* hx_time.c: event timing and the shared table. Contracts are in
 * hx_time.h. */
#define _POSIX_C_SOURCE 200809L
#include "hx_time.h"
#include "hx_cuda.h"

#include <stdlib.h>
#include <time.h>

double hx_now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void *timeAlloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "hx_time: out of host memory\n");
        exit(HX_EXIT_NOMEM);
    }
    return p;
}

static int cmpDouble(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void hx_timing_from(double *ms, int runs, int warmup, hx_timing *t)
{
    int i;
    double sum = 0.0;
    qsort(ms, (size_t)runs, sizeof *ms, cmpDouble);
    for (i = 0; i < runs; ++i)
        sum += ms[i];
    t->runs = runs;
    t->warmup = warmup;
    t->min_ms = ms[0];
    t->max_ms = ms[runs - 1];
    t->mean_ms = sum / runs;
    t->median_ms = runs % 2 ? ms[runs / 2]
                            : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
}

void hx_time_set(int k, const hx_work works[], void *const ctxs[],
                 int warmup, int runs, hx_timing out[])
{
    int i, j;
    cudaEvent_t *ev;
    double *ms;
    if (runs < 1)
        runs = 1;
    if (warmup < 0)
        warmup = 0;
    ev = timeAlloc(2 * (size_t)k * runs * sizeof *ev);
    ms = timeAlloc((size_t)runs * sizeof *ms);
    for (i = 0; i < 2 * k * runs; ++i)
        HX_CHECK(cudaEventCreate(&ev[i]));

    for (i = 0; i < warmup; ++i)
        for (j = 0; j < k; ++j)
            works[j](ctxs[j]);
    /* Warm-ups finish before the first timed run starts, and a fault in
     * them is reported here rather than blamed on a timed run. */
    HX_CHECK(cudaDeviceSynchronize());

    /* Each run between its own pair of events, all enqueued back to back:
     * no host round trip between runs. Event pair (i, j) is at
     * ev[2 * (i * k + j)]. */
    for (i = 0; i < runs; ++i)
        for (j = 0; j < k; ++j) {
            HX_CHECK(cudaEventRecord(ev[2 * (i * k + j)], 0));
            works[j](ctxs[j]);
            HX_CHECK(cudaEventRecord(ev[2 * (i * k + j) + 1], 0));
        }
    HX_CHECK(cudaEventSynchronize(ev[2 * k * runs - 1]));

    for (j = 0; j < k; ++j) {
        for (i = 0; i < runs; ++i) {
            float f = 0.0f;
            HX_CHECK(cudaEventElapsedTime(&f, ev[2 * (i * k + j)],
                                          ev[2 * (i * k + j) + 1]));
            ms[i] = f;
        }
        hx_timing_from(ms, runs, warmup, &out[j]);
    }
    for (i = 0; i < 2 * k * runs; ++i)
        HX_CHECK(cudaEventDestroy(ev[i]));
    free(ms);
    free(ev);
}

hx_timing hx_time(hx_work work, void *ctx, int warmup, int runs)
{
    hx_timing t;
    void *const ctxs[1] = {ctx};
    const hx_work works[1] = {work};
    hx_time_set(1, works, ctxs, warmup, runs, &t);
    return t;
}

/* Row names up to HX_ROW_W characters keep the columns aligned. */
#define HX_ROW_W 40
/* As wide as the header: 40 + 9 + 10 + 9 + 9 + 8 + 8 characters. */
#define HX_RULE "--------------------------------------------------------" \
                "-------------------------------------"

static void ratio(FILE *out, double ms, double by, int width)
{
    if (by > 0.0)
        fprintf(out, " %*.2f", width - 1, ms / by);
    else
        fprintf(out, " %*s", width - 1, "-");
}

void hx_table_begin(FILE *out, const char *title)
{
    fprintf(out, "\n%s\n", title ? title : "");
    fprintf(out, "%-*s %8s %9s %8s %8s %7s %7s\n", HX_ROW_W, "row",
            "launches", "median ms", "min ms", "max ms", "x copy",
            "x floor");
    fprintf(out, "%s\n", HX_RULE);
}

void hx_table_row(FILE *out, const char *row, int launches,
                  const hx_timing *t, double copy_ms, double floor_ms)
{
    fprintf(out, "%-*s %8d %9.3f %8.3f %8.3f", HX_ROW_W, row, launches,
            t->median_ms, t->min_ms, t->max_ms);
    ratio(out, t->median_ms, copy_ms, 8);
    ratio(out, t->median_ms, floor_ms, 8);
    fputc('\n', out);
}

void hx_table_note(FILE *out, const char *note)
{
    fprintf(out, "    %s\n", note);
}

void hx_table_end(FILE *out)
{
    fprintf(out, "%s\n", HX_RULE);
}

double hx_gbps(double bytes, double ms)
{
    return ms > 0.0 ? bytes / (ms * 1e6) : 0.0;
}

double hx_floor_ms(double bytes, double copy_bytes, double copy_ms)
{
    return copy_bytes > 0.0 ? bytes * copy_ms / copy_bytes : 0.0;
}
