/* t.h: what the harness's host tests share: every .c of tests/ makes one
 * program, build/test_harness, run without a GPU.
 *
 *   make -C harness test
 *
 * Checks every host reference against a brute-force definition written
 * here independently, the generators' documented properties, the command
 * line parser, and every check against synthetic outputs for each failure
 * class it must name, asserting the exact classification, positions and
 * values. Also checks the pure parts of hx_cuda.c (problem sizing, grid
 * size), hx_time.c (the table printer) and hx_bench.c (the self-check's
 * sizes, the CSV line, floors and ratios) on made-up devices. No CUDA
 * function is ever called: the CUDA runtime is linked only because those
 * files also hold the functions that do call it.
 *
 * Counting: one "passed" or "failed" per assertion (each EXPECT below).
 * Every failed assertion prints file:line, the expression and the values;
 * the last line is always "N passed, M failed", and the exit code is 1
 * when M > 0.
 */
#ifndef T_H
#define T_H
#define _POSIX_C_SOURCE 200809L

#include "hx_args.h"
#include "hx_bench.h"
#include "hx_check.h"
#include "hx_cuda.h"
#include "hx_input.h"
#include "hx_lock.h"
#include "hx_ref.h"
#include "hx_time.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the runner (t.c) -------------------------------------------------- */

extern long t_passed, t_failed;
void t_context(const char *fmt, ...);
int t_report(int ok, const char *file, int line, const char *fmt, ...);

#define EXPECT(c) t_report(!!(c), __FILE__, __LINE__, "%s", #c)
#define EXPECT_LL(a, b)                                                    \
    do {                                                                   \
        long long a_ = (long long)(a), b_ = (long long)(b);                \
        t_report(a_ == b_, __FILE__, __LINE__, "%s == %s: %lld != %lld",   \
                 #a, #b, a_, b_);                                          \
    } while (0)
#define EXPECT_STR(hay, needle)                                            \
    t_report(strstr((hay), (needle)) != NULL, __FILE__, __LINE__,          \
             "%s contains \"%s\"; it was:\n%s", #hay, (needle), (hay))

void *t_alloc(size_t count, size_t size);

/* Captures what a printing function writes to a FILE *. */
typedef struct {
    FILE *f;
    char *buf;
    size_t len;
} t_capture;

FILE *t_capture_begin(t_capture *c);
char *t_capture_end(t_capture *c);
size_t t_count_lines(const char *s);

/* Independent of the harness's RNG: a 64-bit LCG for test data. */
unsigned t_rand(void);
int t_rand_in(int lo, int hi);
/* The int a long long becomes when wrapped modulo 2^32, written without
 * any implementation-defined conversion. */
int t_wrap(long long x);

extern const size_t t_sizes[10];
#define T_NSIZES (sizeof t_sizes / sizeof t_sizes[0])
#define T_SMALL 4096   /* O(n^2) brute force only up to here */

/* Guard words on each side of the checks' synthetic guarded outputs. */
#define T_GUARD 16

/* The stable three-way split by brute force (test_refs.c). */
void t_split3_bf(const int *in, int *out, size_t n, size_t *a, size_t *b);

/* ---- the tests, one file each ------------------------------------------ */
/* test_refs.c */
void test_scan(void);
void test_mark_compact_partition(void);
void test_split3_ref(void);
void test_gather_scatter(void);
void test_rng(void);
void test_generators(void);
/* test_args.c */
void test_parse_size(void);
void test_parse_args(void);
/* test_checks.c */
void test_check_equal(void);
void test_check_same(void);
void test_guard_scan(void);
/* test_split3.c */
void test_split3_check(void);
void test_split3_off_by_one(void);
void test_split3_brief(void);
/* test_device.c */
void test_sizing(void);
void test_no_gpu_lines(void);
void test_cuda_check_exit(void);
void test_table(void);
void test_gpu_lock(void);
/* test_bench.c */
void test_bench(void);

#endif
