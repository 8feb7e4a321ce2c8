/* test_bench.c: the harness's host tests: the bench's pure parts (the
 * self-check's sizes, floors and ratios, the CSV line), the options it
 * relies on, the spread input and the counter-based bits. */
#include "t.h"
#include "hx_mix.h"

static int t_contains(const size_t *a, size_t n, size_t v)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (a[i] == v)
            return 1;
    return 0;
}

static void test_check_sizes(void)
{
    const size_t extra[] = {600 * 4096 + 3, 256};   /* 256: a duplicate */
    const hx_size_plan p = {6144, 264, 256, 5, extra, 2};
    const size_t g = 264 * 6144;
    const size_t want[] = {0, 1, 3, 255, 256, 257, 6143, 6144, 6145, 65535,
                           65536, 65537, g - 1, g, g + 1, 600 * 4096 + 3,
                           16777215, 16777216, 16777217, HX_HUGE_N};
    size_t sizes[64], few[4], count, i, odd = 0;
    t_context("hx_check_sizes");
    count = hx_check_sizes(&p, sizes, 64);
    /* The list above, and one random odd size below 2^25. */
    EXPECT_LL(count, sizeof want / sizeof want[0] + 1);
    for (i = 0; i < sizeof want / sizeof want[0]; ++i)
        EXPECT(t_contains(sizes, count, want[i]));
    for (i = 0; i < count; ++i) {
        if (i > 0)
            EXPECT(sizes[i - 1] < sizes[i]);   /* ascending, each once */
        if (!t_contains(want, sizeof want / sizeof want[0], sizes[i]))
            odd = sizes[i];
    }
    EXPECT(odd % 2 == 1 && odd < ((size_t)1 << 25));
    EXPECT(sizes[count - 1] == HX_HUGE_N && HX_HUGE_N > ((size_t)1 << 30));
    EXPECT(HX_HUGE_N <= HX_MAX_N);
    /* The same seed, the same list; cap only limits what is written. */
    EXPECT_LL(hx_check_sizes(&p, few, 4), count);
    EXPECT(few[0] == 0 && few[1] == 1 && few[2] == 3 && few[3] == 255);
    {
        /* Another seed moves the random size only. */
        hx_size_plan q = p;
        size_t other[64];
        q.seed = 6;
        EXPECT_LL(hx_check_sizes(&q, other, 64), count);
    }
    {
        /* No level, no grid, a tile past HX_MAX_N: dropped, not wrapped. */
        const hx_size_plan q = {HX_MAX_N, 0, 0, 1, NULL, 0};
        size_t other[64], k;
        k = hx_check_sizes(&q, other, 64);
        EXPECT_LL(k, 7);   /* 0, 1, 3, tile - 1, tile, odd, huge */
        EXPECT(t_contains(other, k, HX_MAX_N - 1));
        EXPECT(t_contains(other, k, HX_MAX_N));
        for (i = 0; i < k; ++i)
            EXPECT(other[i] <= HX_MAX_N);
    }
    t_context("%s", "");
}

/* A bench with the three yardsticks and two rows (R0 and R1), timed by
 * hand. */
enum { R0 = HX_BENCH_YARDSTICKS, R1 = HX_BENCH_YARDSTICKS + 1 };
static void t_fake_bench(hx_bench *b, hx_device *dev, hx_opts *o)
{
    memset(b, 0, sizeof *b);
    memset(dev, 0, sizeof *dev);
    memset(o, 0, sizeof *o);
    snprintf(dev->name, sizeof dev->name, "NVIDIA H200, \"x\"");
    dev->l2_bytes = 62914560;
    o->runs = 20;
    b->dev = dev;
    b->opts = o;
    b->lab = "day31-scan";
    b->n = 1000;
    b->rows = R1 + 1;
    b->row[HX_ROW_MEMCPY].name = HX_BENCH_MEMCPY_NAME;
    b->row[HX_ROW_COPY].name = HX_BENCH_COPY_NAME;
    b->row[HX_ROW_COPY_VEC].name = HX_BENCH_COPY_VEC_NAME;
    b->row[R0].name = "singlePassScan exclusive, in place";
    b->row[R1].name = "scanExclusive (scanTile)";
    b->row[HX_ROW_MEMCPY].floor_bytes = b->row[HX_ROW_COPY].floor_bytes =
        b->row[HX_ROW_COPY_VEC].floor_bytes = 8000;
    b->row[R0].floor_bytes = 8000;
    b->row[R1].floor_bytes = 16000;
    b->t[HX_ROW_MEMCPY].median_ms = 0.5;
    b->t[HX_ROW_COPY].median_ms = 0.625;
    b->t[HX_ROW_COPY_VEC].median_ms = 0.55;
    b->t[R0].median_ms = 0.75;
    b->t[R0].min_ms = 0.7;
    b->t[R0].max_ms = 0.8;
    b->t[R1].median_ms = 2.0;
}

static void test_bench_ratios(void)
{
    hx_bench b;
    hx_device dev;
    hx_opts o;
    char line[512];
    int len;
    t_context("hx_bench floors, ratios, CSV");
    t_fake_bench(&b, &dev, &o);
    /* floor = bytes at the memcpy's bandwidth: 8000 bytes took 0.5 ms. */
    EXPECT(hx_bench_floor_ms(&b, R0) == 0.5);
    EXPECT(hx_bench_floor_ms(&b, R1) == 1.0);
    EXPECT(hx_bench_x_copy(&b, R0) == 1.2);
    EXPECT(hx_bench_x_floor(&b, R0) == 1.5);
    EXPECT(hx_bench_x_floor(&b, R1) == 2.0);
    EXPECT(hx_bench_x_copy(&b, HX_ROW_COPY) == 1.0);
    /* The vector copy is a yardstick: x copy over copyInts, no keep. */
    EXPECT(hx_bench_x_copy(&b, HX_ROW_COPY_VEC) > 0.8799 &&
           hx_bench_x_copy(&b, HX_ROW_COPY_VEC) < 0.8801);

    len = hx_bench_csv_line(&b, R0, 0.25, line, sizeof line);
    EXPECT_LL(len, (long long)strlen(line));
    EXPECT(strcmp(line, "day31-scan,\"singlePassScan exclusive, in place\","
                  "1000,0.25,0.750000,0.700000,0.800000,0.625000,0.500000,"
                  "1.2000,1.5000,NVIDIA H200   x ,62914560\n") == 0);
    /* A yardstick's keep is empty; so is a row's without a fraction. */
    hx_bench_csv_line(&b, 0, 0.25, line, sizeof line);
    EXPECT_STR(line, "day31-scan,\"" HX_BENCH_MEMCPY_NAME "\",1000,,0.5");
    hx_bench_csv_line(&b, HX_ROW_COPY_VEC, 0.25, line, sizeof line);
    EXPECT_STR(line, "\"" HX_BENCH_COPY_VEC_NAME "\",1000,,0.55");
    hx_bench_csv_line(&b, R1, -1.0, line, sizeof line);
    EXPECT_STR(line, "\"scanExclusive (scanTile)\",1000,,2.000000,");
    /* Thirteen fields, the header's; commas inside quotes do not count. */
    {
        int fields = 1, quoted = 0;
        const char *c;
        hx_bench_csv_line(&b, R0, 0.25, line, sizeof line);
        for (c = line; *c; ++c) {
            if (*c == '"')
                quoted = !quoted;
            fields += *c == ',' && !quoted;
        }
        EXPECT_LL(fields, 13);
        fields = 1;
        for (c = HX_BENCH_CSV_HEADER; *c; ++c)
            fields += *c == ',';
        EXPECT_LL(fields, 13);
    }
    /* A zero divisor gives 0, not infinity. */
    b.t[HX_ROW_MEMCPY].median_ms = 0;
    b.t[HX_ROW_COPY].median_ms = 0;
    EXPECT(hx_bench_x_copy(&b, R0) == 0.0 && hx_bench_x_floor(&b, R0) == 0.0);
    t_context("%s", "");
}

static void test_lab_options(void)
{
    hx_opts o;
    char *args[8];
    int i;
    struct {
        const char *a[4];
        unsigned allow;
        int rc, sweep, variants, check;
        const char *csv;
    } cases[] = {
        {{"--sweep", "--csv", "x.csv", NULL}, HX_OPT_SWEEP, HX_EXIT_OK, 1, 0,
         0, "x.csv"},
        {{"--sweep", "--csv=y.csv", NULL}, HX_OPT_SWEEP, HX_EXIT_OK, 1, 0, 0,
         "y.csv"},
        {{"--sweep", NULL}, HX_OPT_SWEEP, HX_EXIT_OK, 1, 0, 0, NULL},
        {{"--variants", NULL}, HX_OPT_VARIANTS, HX_EXIT_OK, 0, 1, 0, NULL},
        {{"--sweep", NULL}, 0, HX_EXIT_USAGE, 0, 0, 0, NULL},
        {{"--variants", NULL}, HX_OPT_SWEEP, HX_EXIT_USAGE, 0, 0, 0, NULL},
        {{"--csv", "x", NULL}, HX_OPT_SWEEP, HX_EXIT_USAGE, 0, 0, 0, NULL},
        {{"--check", "--sweep", NULL}, HX_OPT_SWEEP, HX_EXIT_USAGE, 0, 0, 0,
         NULL},
        {{"--variants", "--check", NULL}, HX_OPT_VARIANTS, HX_EXIT_USAGE, 0, 0,
         0, NULL},
        {{"--sweep=1", NULL}, HX_OPT_SWEEP, HX_EXIT_USAGE, 0, 0, 0, NULL},
        {{"--sweep", "--csv", NULL}, HX_OPT_SWEEP, HX_EXIT_USAGE, 0, 0, 0,
         NULL},
    };
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
        int argc = 1, rc, saved = dup(2);
        FILE *sink = tmpfile();
        args[0] = (char *)"lab";
        while (cases[i].a[argc - 1])
            args[argc] = (char *)cases[i].a[argc - 1], ++argc;
        args[argc] = NULL;
        t_context("options case %d (%s ...)", i, cases[i].a[0]);
        fflush(stderr);
        dup2(fileno(sink), 2);   /* the usage line is the test's business */
        rc = hx_parse_args(argc, args, &o, cases[i].allow, "lab", "");
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        fclose(sink);
        EXPECT_LL(rc, cases[i].rc);
        if (rc != HX_EXIT_OK)
            continue;
        EXPECT_LL(o.sweep, cases[i].sweep);
        EXPECT_LL(o.variants, cases[i].variants);
        EXPECT_LL(o.check, cases[i].check);
        EXPECT(cases[i].csv ? o.csv && !strcmp(o.csv, cases[i].csv)
                            : o.csv == NULL);
    }
    t_context("%s", "");
}

static void test_spread_and_bits(void)
{
    const size_t ns[] = {1, 2, 3, 7, 1000, 65537};
    const int totals[] = {0, 1, 5, 999, INT_MAX};
    size_t i, j, k;
    t_context("hx_fill_spread");
    for (i = 0; i < sizeof ns / sizeof ns[0]; ++i)
        for (j = 0; j < sizeof totals / sizeof totals[0]; ++j) {
            const size_t n = ns[i];
            const long long total = totals[j];
            int *a = t_alloc(n, sizeof(int));
            long long sum = 0;
            size_t bad = 0;
            hx_fill_spread(a, n, totals[j]);
            for (k = 0; k < n; ++k) {
                /* The exclusive prefix at k is floor(k total / n). */
                bad += sum != (long long)((unsigned long long)k *
                                          (unsigned long long)total / n);
                bad += a[k] != (int)(total / (long long)n) &&
                       a[k] != (int)(total / (long long)n) + 1;
                sum += a[k];
            }
            EXPECT_LL(sum, total);
            EXPECT_LL(bad, 0);
            free(a);
        }
    t_context("hx_bits_at is hx_rng's stream");
    {
        hx_rng r;
        hx_rng_seed(&r, 31033);
        for (k = 0; k < 100; ++k)
            EXPECT(hx_rng_next(&r) == hx_bits_at(31033, k));
        /* splitmix64's published first output for seed 0. */
        EXPECT(hx_bits_at(0, 0) == 0xE220A8397B1DCDAFull);
    }
    t_context("%s", "");
}

void test_bench(void)
{
    test_check_sizes();
    test_bench_ratios();
    test_lab_options();
    test_spread_and_bits();
}
