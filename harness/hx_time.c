/* hx_time.c: event timing and the shared table. Contracts are in
 * hx_time.h. */
#include "hx_time.h"
#include "hx_cuda.h"

#include <stdlib.h>

hx_timing hx_time(hx_work work, void *ctx, int warmup, int runs)
{
    hx_timing t;
    cudaEvent_t *ev;
    int i;
    if (runs < 1)
        runs = 1;
    if (warmup < 0)
        warmup = 0;
    t.runs = runs;
    t.warmup = warmup;
    ev = malloc(2 * (size_t)runs * sizeof *ev);
    if (!ev) {
        fprintf(stderr, "hx_time: out of host memory\n");
        exit(HX_EXIT_NOMEM);
    }
    for (i = 0; i < 2 * runs; ++i)
        HX_CHECK(cudaEventCreate(&ev[i]));

    for (i = 0; i < warmup; ++i)
        work(ctx);
    /* Warm-ups finish before the first timed run starts, and a fault in
     * them is reported here rather than blamed on a timed run. */
    HX_CHECK(cudaDeviceSynchronize());

    /* Each run between its own pair of events, all enqueued back to back:
     * no host round trip between runs. */
    for (i = 0; i < runs; ++i) {
        HX_CHECK(cudaEventRecord(ev[2 * i], 0));
        work(ctx);
        HX_CHECK(cudaEventRecord(ev[2 * i + 1], 0));
    }
    HX_CHECK(cudaEventSynchronize(ev[2 * runs - 1]));

    t.mean_ms = 0.0;
    t.min_ms = t.max_ms = 0.0;
    for (i = 0; i < runs; ++i) {
        float ms = 0.0f;
        HX_CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t.mean_ms += ms;
        if (i == 0 || ms < t.min_ms)
            t.min_ms = ms;
        if (i == 0 || ms > t.max_ms)
            t.max_ms = ms;
    }
    t.mean_ms /= runs;
    for (i = 0; i < 2 * runs; ++i)
        HX_CHECK(cudaEventDestroy(ev[i]));
    free(ev);
    return t;
}

/* Row names up to HX_ROW_W characters keep the columns aligned. */
#define HX_ROW_W 40
/* As wide as the header: 40 + 1 + 8 + 1 + 10 + 1 + 9 characters. */
#define HX_RULE "--------------------------------------------------------" \
                "--------------"

void hx_table_begin(FILE *out, const char *title)
{
    fprintf(out, "\n%s\n", title ? title : "");
    fprintf(out, "%-*s %8s %10s %9s\n", HX_ROW_W, "row", "launches",
            "time ms", "x copy");
    fprintf(out, "%s\n", HX_RULE);
}

void hx_table_row(FILE *out, const char *row, int launches, double ms,
                  double copy_ms)
{
    fprintf(out, "%-*s %8d %10.3f ", HX_ROW_W, row, launches, ms);
    if (copy_ms > 0.0)
        fprintf(out, "%9.2f\n", ms / copy_ms);
    else
        fprintf(out, "%9s\n", "-");
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
