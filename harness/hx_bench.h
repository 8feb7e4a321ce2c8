/* hx_bench.h: the measuring bench every lab calls, written once.
 *
 * A lab declares its rows as data (hx_row: what runs, what its output
 * must hold, the bytes its algorithm must move, its launches) and hands
 * them to the bench, which
 *   1. checks every row: the output poisoned and guarded first, one run,
 *      then the output compared element for element on the device with
 *      the reference, the total or count compared exactly, the guards
 *      scanned, and the row's own check where it has one;
 *   2. times the rows only when every check passed, interleaved run by
 *      run with CUDA events after warm-ups (hx_time_set), the three
 *      yardsticks first: a device-to-device cudaMemcpy (every floor is
 *      measured against its bandwidth), copyInts (hx_gpu_copy: every
 *      "x copy") and the same copy with 16-byte vectors (hx_gpu_copy_vec:
 *      what an SM-driven copy reaches on this GPU, for information). A
 *      lab never declares the yardsticks; they are rows 0, 1 and 2 of
 *      every measurement (HX_ROW_MEMCPY, HX_ROW_COPY, HX_ROW_COPY_VEC);
 *   3. prints the table (hx_time.h's: median, min, max, x copy, x floor)
 *      and writes the CSV, one schema for every lab (below).
 * It also owns what the labs' runs share: the sizes of a sweep, the
 * self-check's size list, and planted errors that prove a check fails.
 *
 * THE LAB OPTIONS are parsed once, by hx_parse_args (hx_args.h): --check,
 * --sweep, --csv FILE (HX_OPT_SWEEP), --variants (HX_OPT_VARIANTS, for a
 * dev/ program), with --n, --seed, --runs, --warmup, --keep.
 *
 * THE CSV SCHEMA, the one harness/plot.py reads: one header line
 * (HX_BENCH_CSV_HEADER), then one line per timed row per measurement:
 *   lab,row,n,keep,median_ms,min_ms,max_ms,copy_ms,floor_ms,x_copy,
 *   x_floor,gpu,l2_bytes   (one line)
 * lab the lab's name (day31-scan, ...); row the table's name, in double
 * quotes (names hold commas; a name must not hold a double quote); keep empty for a row without a survival
 * fraction and for the yardsticks; copy_ms the copy yardstick's median in
 * the same measurement; floor_ms the row's floor; x_copy and x_floor the
 * median over each (0 where the divisor is 0); gpu the device's name with
 * commas and quotes made spaces; l2_bytes its L2 size.
 *
 * Every CUDA call is checked (HX_CHECK); a failed one exits with
 * HX_EXIT_CUDA. Check failures print to stdout, one line each, and make
 * the functions return 1 or HX_EXIT_FAIL; they never exit.
 */
#ifndef HX_BENCH_H
#define HX_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hx_args.h"
#include "hx_cuda.h"
#include "hx_gpu.h"
#include "hx_guard.h"
#include "hx_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most rows one measurement holds, the three yardsticks included. */
#define HX_BENCH_MAX_ROWS 64

/* Where the yardsticks sit in every measurement. */
enum {
    HX_ROW_MEMCPY = 0,
    HX_ROW_COPY = 1,
    HX_ROW_COPY_VEC = 2,
    HX_BENCH_YARDSTICKS = 3
};

/* The yardsticks' names, in the table and the CSV. */
#define HX_BENCH_MEMCPY_NAME "cudaMemcpy device to device"
#define HX_BENCH_COPY_NAME "copyInts"
#define HX_BENCH_COPY_VEC_NAME "copy, 16-byte vectors"

#define HX_BENCH_CSV_HEADER                                                  \
    "lab,row,n,keep,median_ms,min_ms,max_ms,copy_ms,floor_ms,x_copy,"      \
    "x_floor,gpu,l2_bytes\n"

typedef struct hx_bench hx_bench;
typedef struct hx_row hx_row;

/* A row's own check, for what comparing out with want cannot say (the
 * atomic row's same values in any order, the three-way boundaries, a
 * count that is a second output). Called after the row's run has
 * finished and its declared checks have passed, with what naming the row
 * and its context. Prints one line per failure; returns 0 when it passes,
 * 1 when not. */
typedef int (*hx_row_check)(const hx_bench *b, const hx_row *row,
                            const char *what);

/* A row, declared as data. Fields a row does not use are 0 / NULL, so a
 * designated initialiser names only what matters. */
struct hx_row {
    const char *name;       /* as the table and the CSV print it */
    hx_work run;            /* enqueues one run on the default stream and
                               checks its launches (hx_time.h) */
    void *ctx;              /* run's, prepare's and check's argument */
    hx_work prepare;        /* enqueued before the checked run, after the
                               poison (an in-place row copies its input
                               into out here); never timed; NULL: none */
    hx_guarded *out;        /* where the row writes; NULL: the bench's
                               (hx_bench_bind). Poisoned and guarded. */
    const int *want;        /* device, out->n ints: what out must hold;
                               NULL: out is not compared (check must) */
    const int *plus;        /* device or NULL: out must hold want[i] +
                               plus[i], modulo 2^32 */
    int *total;             /* device int the row leaves its total or count
                               in (poisoned before the run); NULL: none */
    const long long *total_want;  /* host: what *total must be, modulo
                               2^32; read at check time, so a lab may
                               change it between inputs */
    hx_row_check check;     /* more checks after these; NULL: none */
    double floor_bytes;     /* bytes its algorithm must move: its floor is
                               the time they take at the memcpy's
                               bandwidth in the same measurement */
    int launches;           /* kernel launches and memsets per run */
    const char *note;       /* a table note printed above it, or NULL */
};

/* The bench: one per program. Fields are the bench's; a lab reads them
 * (the last measurement, for its own summary lines) but sets them only
 * through the functions below. */
struct hx_bench {
    const hx_device *dev;
    const hx_opts *opts;    /* runs, warmup, seed */
    const char *lab;        /* the CSV's lab column */
    FILE *report;           /* where check failures are printed: stdout */
    /* What hx_bench_bind set: the size, the yardsticks' source, the
     * default output. */
    size_t n;
    const int *in;
    hx_guarded *out;
    hx_mismatch *scratch;   /* device, for hx_gpu_compare */
    /* The standard buffers, while hx_bench_alloc holds them (else NULL):
     * the input, the reference a row's want points at, the output every
     * row writes, a device int for a total; total_want is the value a row
     * whose total_want points here must leave (hx_bench_load). */
    int *input, *want, *total;
    hx_guarded output;
    long long total_want;
    /* The last measurement: rows timed, yardsticks first. */
    int rows;
    hx_row row[HX_BENCH_MAX_ROWS];
    hx_timing t[HX_BENCH_MAX_ROWS];
    /* Host seconds spent checking and timing, over the bench's life. */
    double check_s, time_s;
    int sweep_lines;        /* hx_bench_sweep_line's, so far */
};

/* Opens the bench for a lab (lab: the CSV's lab column; dev and o must
 * outlive it). Allocates the compare's scratch. */
void hx_bench_open(hx_bench *b, const hx_device *dev, const hx_opts *o,
                   const char *lab);
void hx_bench_close(hx_bench *b);

/* The size every following check and measurement runs at, the
 * yardsticks' source in[0..n) (device) and the default output out (whose
 * n must be n). Call again when the size or the buffers change. */
void hx_bench_bind(hx_bench *b, const int *in, hx_guarded *out, size_t n);

/* The standard buffers at n (most labs need no others): b->input and
 * b->want (n ints each), b->output (guarded), b->total (one int), all
 * device memory, and binds them (hx_bench_bind(b, b->input, &b->output,
 * n)). hx_bench_free releases them. hx_bench_alloc_bytes: the device
 * bytes they take. */
void hx_bench_alloc(hx_bench *b, size_t n);
void hx_bench_free(hx_bench *b);
size_t hx_bench_alloc_bytes(size_t n);

/* Uploads in[0..n) to b->input and want[0..n) to b->want (want may be
 * NULL: none), and sets b->total_want = total. */
void hx_bench_load(hx_bench *b, const int *in, const int *want,
                   long long total);

/* Checks one row (see the top): 0 when it passes, 1 after printing
 * "<context> <name>: FAIL ..." lines. context may be "". */
int hx_bench_check_row(hx_bench *b, const hx_row *r, const char *context);

/* Checks rows[0..k) in order, stopping at the first failure: 0 or 1.
 * The yardsticks are not among them (hx_bench_measure checks those). */
int hx_bench_check_rows(hx_bench *b, const hx_row rows[], int k,
                        const char *context);

/* Bits for hx_bench_measure's flags. */
enum {
    HX_BENCH_LEAVE_OUT = 1u   /* a row that fails its check is reported
                                 and left out, the others are timed (a
                                 dev/ zoo); without it, the first failure
                                 ends the measurement with nothing timed */
};

/* Checks the yardsticks and rows[0..k), k <= HX_BENCH_MAX_ROWS -
 * HX_BENCH_YARDSTICKS, then times them all interleaved (opts->warmup
 * rounds, then opts->runs). Afterwards b->rows, b->row[] and b->t[] hold
 * what was timed: the three yardsticks, then the rows in order (less any left out). Returns
 * HX_EXIT_OK, or HX_EXIT_FAIL when a check failed (with LEAVE_OUT the rest
 * is still timed; a failing yardstick always ends it untimed, b->rows 0). */
int hx_bench_measure(hx_bench *b, const hx_row rows[], int k,
                     unsigned flags);

/* Row j of the last measurement: its floor in ms, from its floor_bytes
 * and the memcpy's median (hx_floor_ms); its median over the copy's; its
 * median over its floor. 0 where a divisor is 0. */
double hx_bench_floor_ms(const hx_bench *b, int j);
double hx_bench_x_copy(const hx_bench *b, int j);
double hx_bench_x_floor(const hx_bench *b, int j);

/* Prints the last measurement: a line saying every row was checked, the
 * table titled "<title> of n = N ints, R runs interleaved after W
 * warm-ups" (each row, its note first, then notes[], NULL-terminated or
 * NULL), and a line with the memcpy's and the copy's bandwidth. Nothing
 * is printed when the last measurement timed no row. */
void hx_bench_table(const hx_bench *b, const char *title,
                    const char *const notes[]);

/* Opens path for the CSV and writes the header line. Returns NULL after
 * one line "<prog>: cannot write <path>: <reason>" on stderr. */
FILE *hx_bench_csv_open(const char *path, const char *prog);

/* Appends the last measurement's lines. keep: the survival fraction of
 * the lab's rows, or a negative value for none (the column left empty;
 * the yardsticks' is always empty). */
void hx_bench_csv_rows(const hx_bench *b, FILE *csv, double keep);

/* Formats row j's CSV line (newline included) into buf[0..len), as
 * hx_bench_csv_rows writes it. Returns the characters a long enough buf
 * would hold, as snprintf does. */
int hx_bench_csv_line(const hx_bench *b, int j, double keep, char *buf,
                      size_t len);

/* One size of a sweep: appends the last measurement's lines to csv (keep
 * as hx_bench_csv_rows) and prints one line, "2^K" (or n) and each row's
 * x floor, under a header of the rows' names printed before the first
 * such line of the bench's life. */
void hx_bench_sweep_line(hx_bench *b, FILE *csv, double keep);

/* "wall time S s (checks C s, timed runs T s)", since start
 * (hx_now_seconds) and over the bench's life. */
void hx_bench_wall(const hx_bench *b, double start);

/* ---- Sizes ------------------------------------------------------------ */

/* The device bytes a lab needs at n elements (its buffers, plans and
 * scratch), for the sweep's largest size. */
typedef size_t (*hx_bytes_for)(size_t n, void *ctx);

/* The sweep's sizes: powers of two from 2^10 up to the largest n <= 2^30
 * for which device_bytes(n) fits the device (hx_fits) and
 * host_bytes_per_element * n the host's available memory with 256 MiB to
 * spare. Returns that largest n; 0 when not even 2^10 fits. */
size_t hx_bench_sweep_max(const hx_device *dev, hx_bytes_for device_bytes,
                          void *ctx, size_t host_bytes_per_element);

/* The size of a timing run: --n when given, else hx_default_n(dev,
 * bytes_per_element). Prints "n = N ints, X MiB per buffer: <why>", and a
 * warning when a buffer fits in the L2 (hx_warn_if_cached). Returns
 * (size_t)-1 after one line on stderr when device_bytes(n, ctx) does not
 * fit the device (the lab then exits HX_EXIT_NOMEM). */
size_t hx_bench_timing_n(const hx_bench *b, size_t bytes_per_element,
                         hx_bytes_for device_bytes, void *ctx);

/* Whether a check at n fits: device_bytes on the device (hx_fits) and
 * host_bytes in the host's available memory with 256 MiB to spare. When
 * not, prints "  n=N: skipped: needs X MiB of device (host) memory, Y MiB
 * free" and returns 0; else 1. */
int hx_bench_fits(const hx_bench *b, size_t n, size_t device_bytes,
                  size_t host_bytes);

/* A size above 2^30 for the self-check, odd and off every power of two. */
#define HX_HUGE_N (((size_t)1 << 30) + 12345)

/* What a lab's self-check sizes are built around. */
typedef struct {
    size_t tile;         /* elements per tile of the production kernel */
    size_t grid_tiles;   /* tiles its grid takes at once (its resident
                            blocks, hx_resident_blocks); 0: none */
    size_t level;        /* the course scan's tile (SCAN_TILE), whose
                            powers are where the scan needs one more
                            level; 0: none */
    uint64_t seed;       /* the random odd size's */
    const size_t *extra; /* the lab's own sizes, extra_count of them */
    size_t extra_count;
} hx_size_plan;

/* The self-check's sizes, ascending, each once, into sizes[0..cap):
 *   0, 1, 3;
 *   level - 1, level, level + 1, and the same around level^2 and level^3
 *     (the first sizes that need a second, third and fourth level);
 *   tile - 1, tile, tile + 1;
 *   G - 1, G, G + 1 with G = grid_tiles * tile (every block one tile,
 *     the last partial; all whole; one block with two);
 *   the extras; a random odd size below 2^25 from the seed;
 *   HX_HUGE_N.
 * Sizes above HX_MAX_N are dropped. Returns how many there are (may
 * exceed cap: only cap are written). The lab skips the ones that do not
 * fit its memory, with a line saying so. */
size_t hx_check_sizes(const hx_size_plan *p, size_t sizes[], size_t cap);

/* Prints "sizes: a, b, ..." and what the special ones are. */
void hx_check_sizes_print(const size_t sizes[], size_t count,
                          const hx_size_plan *p, FILE *out);

/* ---- Checking the checks ----------------------------------------------- */

/* Proves that r's check can fail: runs r once per planted error and
 * requires its check to report each (their lines go to a null stream):
 *   a slot of the output changed after the run (the middle one);
 *   a slot left unwritten (HX_POISON put back into the last one);
 *   a word written into the guard just past the output;
 *   the total off by one (when the row has a total).
 * r must pass unplanted first. Prints one line per planted error, "caught"
 * or "MISSED". Returns HX_EXIT_OK when every one was caught, else
 * HX_EXIT_FAIL. n must be at least 1. */
int hx_bench_check_the_check(hx_bench *b, const hx_row *r);

#ifdef __cplusplus
}
#endif
#endif
