/* hx_bench.c: the measuring bench. Contracts are in hx_bench.h. */
#include "hx_bench.h"
#include "hx_check.h"
#include "hx_input.h"

#include <stdlib.h>
#include <string.h>

/* The int a sum of exact value x leaves after wrapping modulo 2^32. */
static int hx_wrap_int(long long x)
{
    const uint32_t u = (uint32_t)(uint64_t)x;
    int v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static int hx_device_int(const int *p)
{
    int v = 0;
    HX_CHECK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

static void hx_set_device_int(int *p, int v)
{
    HX_CHECK(cudaMemcpy(p, &v, sizeof v, cudaMemcpyHostToDevice));
}

/* ---- The yardsticks ------------------------------------------------------ */

static void hx_run_memcpy(void *ctx)
{
    const hx_bench *b = (const hx_bench *)ctx;
    HX_CHECK(cudaMemcpyAsync(b->out->data, b->in, b->n * sizeof(int),
                             cudaMemcpyDeviceToDevice, 0));
}

static void hx_run_copy(void *ctx)
{
    const hx_bench *b = (const hx_bench *)ctx;
    hx_gpu_copy(b->dev, b->in, b->out->data, b->n, 0);
}

static void hx_run_copy_vec(void *ctx)
{
    const hx_bench *b = (const hx_bench *)ctx;
    hx_gpu_copy_vec(b->dev, b->in, b->out->data, b->n, 0);
}

/* Each reads n ints and writes n; their output must equal their input. */
static hx_row hx_yardstick(hx_bench *b, int which)
{
    hx_row r;
    memset(&r, 0, sizeof r);
    r.name = which == HX_ROW_MEMCPY ? HX_BENCH_MEMCPY_NAME
             : which == HX_ROW_COPY ? HX_BENCH_COPY_NAME
                                    : HX_BENCH_COPY_VEC_NAME;
    r.run = which == HX_ROW_MEMCPY ? hx_run_memcpy
            : which == HX_ROW_COPY ? hx_run_copy
                                   : hx_run_copy_vec;
    r.ctx = b;
    r.want = b->in;
    r.floor_bytes = 2.0 * (double)b->n * sizeof(int);
    r.launches = 1;
    return r;
}

void hx_bench_open(hx_bench *b, const hx_device *dev, const hx_opts *o,
                   const char *lab)
{
    memset(b, 0, sizeof *b);
    b->dev = dev;
    b->opts = o;
    b->lab = lab;
    b->report = stdout;
    HX_CHECK(cudaMalloc((void **)&b->scratch, sizeof *b->scratch));
}

void hx_bench_close(hx_bench *b)
{
    if (b->scratch) HX_CHECK(cudaFree(b->scratch));
    memset(b, 0, sizeof *b);
}

void hx_bench_bind(hx_bench *b, const int *in, hx_guarded *out, size_t n)
{
    b->in = in;
    b->out = out;
    b->n = n;
    b->rows = 0;
}

void hx_bench_alloc(hx_bench *b, size_t n)
{
    HX_CHECK(cudaMalloc((void **)&b->input, (n ? n : 1) * sizeof(int)));
    HX_CHECK(cudaMalloc((void **)&b->want, (n ? n : 1) * sizeof(int)));
    HX_CHECK(cudaMalloc((void **)&b->total, sizeof(int)));
    hx_guarded_alloc(&b->output, n);
    b->total_want = 0;
    hx_bench_bind(b, b->input, &b->output, n);
}

void hx_bench_free(hx_bench *b)
{
    if (b->input) HX_CHECK(cudaFree(b->input));
    if (b->want) HX_CHECK(cudaFree(b->want));
    if (b->total) HX_CHECK(cudaFree(b->total));
    if (b->output.base) hx_guarded_free(&b->output);
    b->input = b->want = b->total = NULL;
    memset(&b->output, 0, sizeof b->output);
    hx_bench_bind(b, NULL, NULL, 0);
}

size_t hx_bench_alloc_bytes(size_t n)
{
    return (3 * (n ? n : 1) + 2 * HX_GUARD_WORDS + 1) * sizeof(int);
}

void hx_bench_load(hx_bench *b, const int *in, const int *want,
                   long long total)
{
    HX_CHECK(cudaMemcpy(b->input, in, b->n * sizeof(int),
                        cudaMemcpyHostToDevice));
    if (want)
        HX_CHECK(cudaMemcpy(b->want, want, b->n * sizeof(int),
                            cudaMemcpyHostToDevice));
    b->total_want = total;
}

/* ---- Checks ------------------------------------------------------------- */

/* Errors hx_bench_check_the_check plants after a run, before the check. */
typedef enum {
    HX_PLANT_NONE,
    HX_PLANT_SLOT,        /* the middle slot changed */
    HX_PLANT_UNWRITTEN,   /* the first slot poisoned again */
    HX_PLANT_GUARD,       /* the word just past the output written */
    HX_PLANT_TOTAL,       /* the total off by one */
    HX_PLANTS
} hx_plant;

static const char *const hx_plant_name[HX_PLANTS] = {
    "", "a slot changed", "a slot left unwritten",
    "a write just past the output", "the total off by one"};

static void hx_plant_error(const hx_row *r, hx_guarded *out, hx_plant p)
{
    const size_t n = out->n;
    if (p == HX_PLANT_SLOT && n)
        hx_set_device_int(out->data + n / 2,
                          hx_device_int(out->data + n / 2) ^ 1);
    if (p == HX_PLANT_UNWRITTEN && n) hx_set_device_int(out->data, HX_POISON);
    if (p == HX_PLANT_GUARD) hx_set_device_int(out->data + n, 7);
    if (p == HX_PLANT_TOTAL && r->total)
        hx_set_device_int(r->total, hx_device_int(r->total) + 1);
}

/* The output against want (+ plus), on the device. */
static int hx_check_output(hx_bench *b, const hx_row *r, const hx_guarded *out,
                           const char *what)
{
    hx_mismatch m;
    hx_gpu_compare(out->data, r->want, r->plus, out->n, b->scratch, &m, 0);
    if (!m.bad) return 0;
    const int got = hx_device_int(out->data + m.first);
    const int want = hx_device_int(r->want + m.first);
    const int plus = r->plus ? hx_device_int(r->plus + m.first) : 0;
    fprintf(b->report, "%s: FAIL at n=%zu: first bad index %llu: got %d, "
            "want %d; %llu of %zu slots differ (%llu never written)\n", what,
            out->n, m.first, got, hx_wrap_int((long long)want + plus), m.bad,
            out->n, m.unwritten);
    return 1;
}

/* The guard words nearest the output, out->guard on each side. */
static int hx_check_guards(hx_bench *b, const hx_guarded *out,
                           const char *what)
{
    const size_t g = out->guard, n = out->n;
    int *words = (int *)hx_host_alloc(g * sizeof(int));
    hx_guard_report rep;
    memset(&rep, 0, sizeof rep);
    HX_CHECK(cudaMemcpy(words, out->data - g, g * sizeof(int),
                        cudaMemcpyDeviceToHost));
    for (size_t j = 0; j < g; ++j)
        if (words[j] != HX_GUARD_WORD) {
            rep.before++;
            rep.first_before = (long long)j - (long long)g;  /* nearest wins */
            rep.value_before = words[j];
        }
    HX_CHECK(cudaMemcpy(words, out->data + n, g * sizeof(int),
                        cudaMemcpyDeviceToHost));
    for (size_t j = g; j-- > 0;)
        if (words[j] != HX_GUARD_WORD) {
            rep.after++;
            rep.first_after = (long long)(n + j);
            rep.value_after = words[j];
        }
    free(words);
    if (!rep.before && !rep.after) return 0;
    fprintf(b->report, "%s: FAIL at n=%zu: wrote outside the output\n", what,
            n);
    hx_guard_print(what, n, &rep, b->report);
    return 1;
}

static int hx_check_total(hx_bench *b, const hx_row *r, const char *what)
{
    const int got = hx_device_int(r->total);
    const long long want = *r->total_want;
    if (got == hx_wrap_int(want)) return 0;
    fprintf(b->report, "%s: FAIL: device total %d, want %d (exact %lld)\n",
            what, got, hx_wrap_int(want), want);
    return 1;
}

static int hx_check_planted(hx_bench *b, const hx_row *r, const char *context,
                            hx_plant plant)
{
    char what[320];
    hx_guarded *out = r->out ? r->out : b->out;
    snprintf(what, sizeof what, "%s%s%s", context, *context ? " " : "",
             r->name);

    hx_guarded_poison(out);
    if (r->total)
        HX_CHECK(cudaMemset(r->total, HX_POISON_BYTE, sizeof(int)));
    if (r->prepare) r->prepare(r->ctx);
    r->run(r->ctx);
    HX_CHECK(cudaDeviceSynchronize());
    hx_plant_error(r, out, plant);

    if (r->want && hx_check_output(b, r, out, what)) return 1;
    if (hx_check_guards(b, out, what)) return 1;
    if (r->total && r->total_want && hx_check_total(b, r, what)) return 1;
    return r->check ? r->check(b, r, what) != 0 : 0;
}

int hx_bench_check_row(hx_bench *b, const hx_row *r, const char *context)
{
    return hx_check_planted(b, r, context ? context : "", HX_PLANT_NONE);
}

int hx_bench_check_rows(hx_bench *b, const hx_row rows[], int k,
                        const char *context)
{
    for (int j = 0; j < k; ++j)
        if (hx_bench_check_row(b, &rows[j], context)) return 1;
    return 0;
}

int hx_bench_check_the_check(hx_bench *b, const hx_row *r)
{
    if (hx_bench_check_row(b, r, "unplanted:")) return HX_EXIT_FAIL;
    FILE *null = fopen("/dev/null", "w");
    FILE *report = b->report;
    int rc = HX_EXIT_OK;
    for (int p = HX_PLANT_SLOT; p < HX_PLANTS; ++p) {
        if (p == HX_PLANT_TOTAL && !(r->total && r->total_want)) continue;
        b->report = null ? null : report;
        const int caught = hx_check_planted(b, r, "planted:", (hx_plant)p);
        b->report = report;
        fprintf(report, "  %s, %s: %s\n", r->name, hx_plant_name[p],
                caught ? "caught" : "MISSED");
        if (!caught) rc = HX_EXIT_FAIL;
    }
    if (null) fclose(null);
    return rc;
}

/* ---- Measuring ---------------------------------------------------------- */

int hx_bench_measure(hx_bench *b, const hx_row rows[], int k, unsigned flags)
{
    hx_work works[HX_BENCH_MAX_ROWS];
    void *ctxs[HX_BENCH_MAX_ROWS];
    int rc = HX_EXIT_OK, kept = 0;
    double t0 = hx_now_seconds();

    if (k > HX_BENCH_MAX_ROWS - HX_BENCH_YARDSTICKS)
        k = HX_BENCH_MAX_ROWS - HX_BENCH_YARDSTICKS;
    b->rows = 0;
    for (int j = 0; j < HX_BENCH_YARDSTICKS + k; ++j) {
        const hx_row r = j < HX_BENCH_YARDSTICKS
                             ? hx_yardstick(b, j)
                             : rows[j - HX_BENCH_YARDSTICKS];
        if (hx_bench_check_row(b, &r, "before timing:")) {
            const int leave = (flags & HX_BENCH_LEAVE_OUT) &&
                              j >= HX_BENCH_YARDSTICKS;
            fprintf(b->report, "FAIL: n=%zu, row %s: %s\n", b->n, r.name,
                    leave ? "left out of the timing" : "nothing timed");
            rc = HX_EXIT_FAIL;
            if (leave) continue;
            b->check_s += hx_now_seconds() - t0;
            return rc;
        }
        b->row[kept] = r;
        works[kept] = r.run;
        ctxs[kept] = r.ctx;
        ++kept;
    }
    b->check_s += hx_now_seconds() - t0;
    t0 = hx_now_seconds();
    hx_time_set(kept, works, ctxs, b->opts->warmup, b->opts->runs, b->t);
    b->time_s += hx_now_seconds() - t0;
    b->rows = kept;
    return rc;
}

double hx_bench_floor_ms(const hx_bench *b, int j)
{
    return hx_floor_ms(b->row[j].floor_bytes, 2.0 * (double)b->n * sizeof(int),
                       b->t[HX_ROW_MEMCPY].median_ms);
}

double hx_bench_x_copy(const hx_bench *b, int j)
{
    const double c = b->t[HX_ROW_COPY].median_ms;
    return c > 0 ? b->t[j].median_ms / c : 0.0;
}

double hx_bench_x_floor(const hx_bench *b, int j)
{
    const double f = hx_bench_floor_ms(b, j);
    return f > 0 ? b->t[j].median_ms / f : 0.0;
}

void hx_bench_table(const hx_bench *b, const char *title,
                    const char *const notes[])
{
    char full[512];
    const double bytes = 2.0 * (double)b->n * sizeof(int);
    if (b->rows == 0) return;
    printf("every row checked against the host before timing (element for "
           "element, totals exactly, guards scanned)\n");
    snprintf(full, sizeof full, "%s of n = %zu ints, %d runs interleaved "
             "after %d warm-ups", title, b->n, b->opts->runs,
             b->opts->warmup);
    hx_table_begin(stdout, full);
    for (int j = 0; j < b->rows; ++j) {
        if (b->row[j].note) hx_table_note(stdout, b->row[j].note);
        hx_table_row(stdout, b->row[j].name, b->row[j].launches, &b->t[j],
                     b->t[HX_ROW_COPY].median_ms, hx_bench_floor_ms(b, j));
    }
    for (int i = 0; notes && notes[i]; ++i) hx_table_note(stdout, notes[i]);
    hx_table_end(stdout);
    printf("%s moves %.1f MiB (reads n ints, writes n): %.1f GB/s; %s %.1f "
           "GB/s; %s %.1f GB/s\n", HX_BENCH_MEMCPY_NAME,
           bytes / (1024.0 * 1024.0),
           hx_gbps(bytes, b->t[HX_ROW_MEMCPY].median_ms), HX_BENCH_COPY_NAME,
           hx_gbps(bytes, b->t[HX_ROW_COPY].median_ms),
           HX_BENCH_COPY_VEC_NAME,
           hx_gbps(bytes, b->t[HX_ROW_COPY_VEC].median_ms));
}

/* ---- The CSV ------------------------------------------------------------ */

FILE *hx_bench_csv_open(const char *path, const char *prog)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: ", prog, path);
        perror(NULL);
        return NULL;
    }
    fputs(HX_BENCH_CSV_HEADER, f);
    return f;
}

int hx_bench_csv_line(const hx_bench *b, int j, double keep, char *buf,
                      size_t len)
{
    char gpu[sizeof b->dev->name], keepText[32] = "";
    snprintf(gpu, sizeof gpu, "%s", b->dev->name);
    for (char *c = gpu; *c; ++c)
        if (*c == ',' || *c == '"') *c = ' ';
    if (keep >= 0 && j >= HX_BENCH_YARDSTICKS)
        snprintf(keepText, sizeof keepText, "%.2f", keep);
    return snprintf(buf, len, "%s,\"%s\",%zu,%s,%.6f,%.6f,%.6f,%.6f,%.6f,"
                    "%.4f,%.4f,%s,%zu\n", b->lab, b->row[j].name, b->n,
                    keepText, b->t[j].median_ms, b->t[j].min_ms,
                    b->t[j].max_ms, b->t[HX_ROW_COPY].median_ms,
                    hx_bench_floor_ms(b, j), hx_bench_x_copy(b, j),
                    hx_bench_x_floor(b, j), gpu, b->dev->l2_bytes);
}

void hx_bench_csv_rows(const hx_bench *b, FILE *csv, double keep)
{
    char line[1024];
    for (int j = 0; j < b->rows; ++j) {
        hx_bench_csv_line(b, j, keep, line, sizeof line);
        fputs(line, csv);
    }
}

void hx_bench_sweep_line(hx_bench *b, FILE *csv, double keep)
{
    int j, k = 0;
    if (b->sweep_lines++ == 0) {
        printf("%-12s", "n");
        for (j = 0; j < b->rows; ++j)
            printf(" %s%s", j ? "| " : "", b->row[j].name);
        printf("   (x floor, in that order)\n");
    }
    hx_bench_csv_rows(b, csv, keep);
    while (k < 63 && ((size_t)1 << k) < b->n) ++k;
    if (((size_t)1 << k) == b->n)
        printf("2^%-10d", k);
    else
        printf("%-12zu", b->n);
    for (j = 0; j < b->rows; ++j) printf(" %8.2f", hx_bench_x_floor(b, j));
    printf("\n");
}

void hx_bench_wall(const hx_bench *b, double start)
{
    printf("wall time %.2f s (checks %.2f s, timed runs %.2f s)\n",
           hx_now_seconds() - start, b->check_s, b->time_s);
}

/* ---- Sizes -------------------------------------------------------------- */

size_t hx_bench_sweep_max(const hx_device *dev, hx_bytes_for device_bytes,
                          void *ctx, size_t host_bytes_per_element)
{
    const size_t spare = (size_t)256 << 20;
    const size_t host = hx_host_available();
    for (size_t n = (size_t)1 << 30; n >= 1024; n /= 2)
        if (hx_fits(dev, device_bytes(n, ctx)) &&
            host >= spare && (host - spare) / n >= host_bytes_per_element)
            return n;
    return 0;
}

size_t hx_bench_timing_n(const hx_bench *b, size_t bytes_per_element,
                         hx_bytes_for device_bytes, void *ctx)
{
    const double mib = 1024.0 * 1024.0;
    char why[512];
    size_t n;
    if (b->opts->n_set) {
        n = b->opts->n;
        snprintf(why, sizeof why, "set by --n");
    } else {
        n = hx_default_n(b->dev, bytes_per_element, why, sizeof why);
    }
    const size_t need = device_bytes(n, ctx);
    if (!hx_fits(b->dev, need)) {
        fprintf(stderr, "n = %zu needs %.0f MiB of device memory; %.0f MiB "
                "are free\n", n, need / mib, b->dev->free_mem / mib);
        return (size_t)-1;
    }
    printf("n = %zu ints, %.1f MiB per buffer: %s\n", n,
           n * sizeof(int) / mib, why);
    hx_warn_if_cached(b->dev, n * sizeof(int), stdout);
    return n;
}

int hx_bench_fits(const hx_bench *b, size_t n, size_t device_bytes,
                  size_t host_bytes)
{
    const double mib = 1024.0 * 1024.0;
    const size_t spare = (size_t)256 << 20, host = hx_host_available();
    if (!hx_fits(b->dev, device_bytes)) {
        printf("  n=%zu: skipped: needs %.0f MiB of device memory, %.0f MiB "
               "free\n", n, device_bytes / mib, b->dev->free_mem / mib);
        return 0;
    }
    if (host < spare || host - spare < host_bytes) {
        printf("  n=%zu: skipped: needs %.0f MiB of host memory, %.0f MiB "
               "available\n", n, host_bytes / mib, host / mib);
        return 0;
    }
    return 1;
}

static int hx_size_cmp(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The random odd size of a plan: 2 k + 1, k below 2^24, from the seed. */
static size_t hx_random_odd(uint64_t seed)
{
    hx_rng rng;
    hx_rng_seed(&rng, seed);
    return 2 * (size_t)hx_rng_below(&rng, (uint64_t)1 << 24) + 1;
}

size_t hx_check_sizes(const hx_size_plan *p, size_t sizes[], size_t cap)
{
    size_t all[64 + 32], k = 0;
    const size_t l = p->level, g = p->grid_tiles * p->tile;
    const size_t around[] = {l, l * l, l * l * l, p->tile, g};
    all[k++] = 0;
    all[k++] = 1;
    all[k++] = 3;
    for (size_t i = 0; i < sizeof around / sizeof around[0]; ++i)
        if (around[i] > 1) {
            all[k++] = around[i] - 1;
            all[k++] = around[i];
            all[k++] = around[i] + 1;
        }
    for (size_t i = 0; i < p->extra_count && k < 64; ++i)
        all[k++] = p->extra[i];
    all[k++] = hx_random_odd(p->seed);
    all[k++] = HX_HUGE_N;
    qsort(all, k, sizeof all[0], hx_size_cmp);

    size_t count = 0;
    for (size_t i = 0; i < k; ++i) {
        if (all[i] > HX_MAX_N || (i > 0 && all[i] == all[i - 1])) continue;
        if (count < cap) sizes[count] = all[i];
        ++count;
    }
    return count;
}

void hx_check_sizes_print(const size_t sizes[], size_t count,
                          const hx_size_plan *p, FILE *out)
{
    const size_t odd = hx_random_odd(p->seed);
    fprintf(out, "sizes:");
    for (size_t i = 0; i < count; ++i)
        fprintf(out, "%s %zu", i ? "," : "", sizes[i]);
    fprintf(out, " (%zu: random odd, from the seed; %zu: over 2^30; around "
            "a tile of %zu, the %zu tiles the grid takes at once", odd,
            (size_t)HX_HUGE_N, p->tile, p->grid_tiles);
    if (p->level)
        fprintf(out, ", and %zu, %zu^2, %zu^3, where the course scan needs "
                "one more level", p->level, p->level, p->level);
    fprintf(out, ")\n");
}
