/* t.c: the runner of the harness's host tests, and their main. */
#include "t.h"

/* ---- the runner -------------------------------------------------------- */

long t_passed, t_failed;
char t_ctx[160];   /* what the current case is, for failure lines */

void t_context(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_ctx, sizeof t_ctx, fmt, ap);
    va_end(ap);
}

int t_report(int ok, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        ++t_passed;
        return 1;
    }
    ++t_failed;
    printf("FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (t_ctx[0])
        printf("  [%s]", t_ctx);
    printf("\n");
    return 0;
}

void *t_alloc(size_t count, size_t size)
{
    void *p = malloc(count ? count * size : 1);
    if (!p) {
        printf("test_harness: out of host memory\n");
        exit(2);
    }
    return p;
}


FILE *t_capture_begin(t_capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    if (!c->f) {
        printf("test_harness: open_memstream failed\n");
        exit(2);
    }
    return c->f;
}

char *t_capture_end(t_capture *c)
{
    fclose(c->f);
    return c->buf;   /* caller frees */
}

size_t t_count_lines(const char *s)
{
    size_t k = 0;
    for (; *s; ++s)
        k += *s == '\n';
    return k;
}

/* Independent of the harness's RNG: a 64-bit LCG for test data. */
unsigned long long t_state = 88172645463325252ull;
unsigned t_rand(void)
{
    t_state = t_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(t_state >> 33);
}
int t_rand_in(int lo, int hi)
{
    unsigned long long span = (unsigned long long)((long long)hi - lo) + 1;
    return (int)(lo + (long long)(t_rand() % span));
}

/* The int a long long becomes when wrapped modulo 2^32, written without
 * any implementation-defined conversion. */
int t_wrap(long long x)
{
    long long m = x % 4294967296LL;
    if (m < 0)
        m += 4294967296LL;
    if (m >= 2147483648LL)
        m -= 4294967296LL;
    return (int)m;
}

const size_t t_sizes[10] = {0, 1, 2, 255, 256, 257, 65535, 65536,
                                 65537, 1000003};

int main(void)
{
    test_scan();
    test_mark_compact_partition();
    test_split3_ref();
    test_gather_scatter();
    test_rng();
    test_generators();
    test_parse_size();
    test_parse_args();
    test_check_equal();
    test_check_same();
    test_guard_scan();
    test_split3_check();
    test_split3_off_by_one();
    test_split3_brief();
    test_sizing();
    test_no_gpu_lines();
    test_cuda_check_exit();
    test_table();
    test_gpu_lock();
    test_bench();
    printf("%ld passed, %ld failed\n", t_passed, t_failed);
    return t_failed > 0;
}
