/* test_args.c: the harness's host tests: the command line. */
#include "t.h"

/* ---- the command line -------------------------------------------------- */

void test_parse_size(void)
{
    const char *good[] = {"0", "1", "1000", "007", "2147483647", "2^0",
                          "2^28", "2^30", "2^31-1", "2^20+1", "2^20-1",
                          "2^0-1", "2^4-16", "2^30+1073741823"};
    const size_t goodv[] = {0, 1, 1000, 7, 2147483647, 1, (size_t)1 << 28,
                            (size_t)1 << 30, 2147483647, 1048577, 1048575,
                            0, 0, 2147483647};
    const char *bad[] = {"", "12x", "-5", "+5", " 5", "5 ", "1e9", "0x10",
                         "2147483648", "99999999999999999999999", "2^31",
                         "2^32", "2^", "2^-1", "3^2", "2^1x", "1.5", "x",
                         "2^31+0", "2^30+1073741824", "2^31-", "2^31-1x",
                         "2^31--1", "2^31-+1", "2^4-17", "2^64-1", "2^99",
                         "2^31 -1", "2^3-1-1", "-2^4",
                         /* 2^64 + 5: digits that wrap a 64-bit value */
                         "2^3-18446744073709551621",
                         "2^3+18446744073709551621",
                         "18446744073709551621", "-18446744073709551621"};
    size_t i, v;
    t_context("hx_parse_size");
    for (i = 0; i < sizeof good / sizeof *good; ++i) {
        v = 12345;
        t_context("hx_parse_size(\"%s\")", good[i]);
        EXPECT_LL(hx_parse_size(good[i], &v), 0);
        EXPECT_LL(v, goodv[i]);
    }
    for (i = 0; i < sizeof bad / sizeof *bad; ++i) {
        v = 12345;
        t_context("hx_parse_size(\"%s\")", bad[i]);
        EXPECT_LL(hx_parse_size(bad[i], &v), -1);
        EXPECT_LL(v, 12345);
    }
    t_context("%s", "");
}

/* Runs hx_parse_args with stdout and stderr captured into out/err
 * (malloc'd, caller frees). args is a NULL-terminated list after argv[0]. */
static int t_parse(const char *const *args, unsigned allow, hx_opts *o,
                   char **out, char **err)
{
    char *argv[32];
    int argc = 0, rc, saved_out, saved_err;
    FILE *fo = tmpfile(), *fe = tmpfile();
    long len;
    char **dst[2] = {out, err};
    FILE *src[2] = {fo, fe};
    int k;

    argv[argc++] = (char *)"lab";
    while (*args && argc < 31)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;

    fflush(stdout);
    fflush(stderr);
    saved_out = dup(1);
    saved_err = dup(2);
    dup2(fileno(fo), 1);
    dup2(fileno(fe), 2);
    rc = hx_parse_args(argc, argv, o, allow, "lab", "What the lab shows.");
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);

    for (k = 0; k < 2; ++k) {
        fseek(src[k], 0, SEEK_END);
        len = ftell(src[k]);
        rewind(src[k]);
        *dst[k] = t_alloc((size_t)len + 1, 1);
        (*dst[k])[fread(*dst[k], 1, (size_t)len, src[k])] = '\0';
        fclose(src[k]);
    }
    return rc;
}

void test_parse_args(void)
{
    hx_opts o;
    char *out, *err;
    int rc;

    {
        const char *none[] = {NULL};
        t_context("args: defaults");
        rc = t_parse(none, 0, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT(o.n_set == 0 && o.n == 0);
        EXPECT(o.seed == HX_DEFAULT_SEED);
        EXPECT_LL(o.runs, HX_DEFAULT_RUNS);
        EXPECT_LL(o.warmup, HX_DEFAULT_WARMUP);
        EXPECT(o.keep == 0.5 && o.check == 0 && o.help == 0);
        EXPECT(out[0] == '\0' && err[0] == '\0');
        free(out), free(err);
    }
    {
        const char *args[] = {"--n", "1000", "--seed", "5", "--runs", "7",
                              "--warmup", "0", "--check", NULL};
        t_context("args: all set");
        rc = t_parse(args, 0, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT(o.n_set == 1 && o.n == 1000);
        EXPECT(o.seed == 5);
        EXPECT_LL(o.runs, 7);
        EXPECT_LL(o.warmup, 0);
        EXPECT_LL(o.check, 1);
        EXPECT(err[0] == '\0');
        free(out), free(err);
    }
    {
        const char *args[] = {"--n=2^20", "--seed=18446744073709551615",
                              "--keep=0.25", "--n", "0", NULL};
        t_context("args: = form, last --n wins, 0 is a size");
        rc = t_parse(args, HX_OPT_KEEP, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT(o.n_set == 1 && o.n == 0);
        EXPECT(o.seed == UINT64_MAX);
        EXPECT(o.keep == 0.25);
        free(out), free(err);
    }
    {
        const char *args[] = {"--keep", "1", NULL};
        const char *args0[] = {"--keep", "0", NULL};
        t_context("args: keep bounds");
        rc = t_parse(args, HX_OPT_KEEP, &o, &out, &err);
        EXPECT(rc == HX_EXIT_OK && o.keep == 1.0);
        free(out), free(err);
        rc = t_parse(args0, HX_OPT_KEEP, &o, &out, &err);
        EXPECT(rc == HX_EXIT_OK && o.keep == 0.0);
        free(out), free(err);
    }
    {
        const char *args[] = {"--help", NULL};
        t_context("args: --help");
        rc = t_parse(args, 0, &o, &out, &err);
        EXPECT_LL(rc, HX_EXIT_OK);
        EXPECT_LL(o.help, 1);
        EXPECT_STR(out, "What the lab shows.");
        EXPECT_STR(out, "--n N");
        EXPECT_STR(out, "--seed S");
        EXPECT_STR(out, "(default 31033)");
        EXPECT_STR(out, "(default 20)");
        EXPECT_STR(out, "(default 3)");
        EXPECT(strstr(out, "--keep") == NULL);
        EXPECT(err[0] == '\0');
        free(out), free(err);
        rc = t_parse(args, HX_OPT_KEEP, &o, &out, &err);
        EXPECT_STR(out, "--keep P");
        EXPECT_STR(out, "(default 0.5)");
        free(out), free(err);
    }
    {
        /* Each bad command line: exit 2 and exactly one stderr line
         * "lab: ... (try --help)", nothing on stdout. */
        static const char *const bad[][4] = {
            {"--bogus", NULL}, {"-x", NULL}, {"extra", NULL}, {"--", NULL},
            {"--n", NULL}, {"--n", "12x", NULL}, {"--n", "-5", NULL},
            {"--n", "", NULL}, {"--n", "1e9", NULL}, {"--n", "0x10", NULL},
            {"--n", "3000000000", NULL}, {"--n", "2^31", NULL},
            {"--n", "2^31+1", NULL}, {"--n", "2^2-5", NULL},
            {"--n", "2^31-x", NULL},
            {"--n=", NULL}, {"--n", " 5", NULL},
            {"--seed", "-1", NULL}, {"--seed", "18446744073709551616", NULL},
            {"--seed", "abc", NULL}, {"--runs", "0", NULL},
            {"--runs", "-1", NULL}, {"--runs", "1.5", NULL},
            {"--warmup", "-1", NULL}, {"--keep", "0.5", NULL},
            {"--check=1", NULL}, {"--help=yes", NULL}, {"--nn", "5", NULL},
        };
        static const char *const bad_keep[][3] = {
            {"--keep", "1.5", NULL}, {"--keep", "-0.1", NULL},
            {"--keep", "nan", NULL}, {"--keep", "inf", NULL},
            {"--keep", "0x1", NULL}, {"--keep", "", NULL}, {"--keep", NULL},
        };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof *bad; ++i) {
            size_t len;
            t_context("args: bad '%s %s'", bad[i][0], bad[i][1] ? bad[i][1]
                      : "");
            rc = t_parse(bad[i], 0, &o, &out, &err);
            len = strlen(err);
            EXPECT_LL(rc, HX_EXIT_USAGE);
            EXPECT_LL(t_count_lines(err), 1);
            EXPECT(strncmp(err, "lab: ", 5) == 0);
            EXPECT(len > 13 && strcmp(err + len - 13, "(try --help)\n") == 0);
            EXPECT(out[0] == '\0');
            free(out), free(err);
        }
        for (i = 0; i < sizeof bad_keep / sizeof *bad_keep; ++i) {
            t_context("args: bad '%s %s'", bad_keep[i][0],
                      bad_keep[i][1] ? bad_keep[i][1] : "");
            rc = t_parse(bad_keep[i], HX_OPT_KEEP, &o, &out, &err);
            EXPECT_LL(rc, HX_EXIT_USAGE);
            EXPECT_LL(t_count_lines(err), 1);
            free(out), free(err);
        }
    }
    {
        /* The lines name what is wrong. */
        const char *neg[] = {"--n", "-5", NULL}, *big[] = {"--n", "2^31",
                             NULL}, *junk[] = {"--n", "12x", NULL};
        const char *max[] = {"--n", "2^31-1", NULL}, *below[] = {"--n",
                             "2^2-5", NULL}, *huge[] = {"--n", "2^40-1",
                             NULL};
        t_context("args: messages");
        /* The largest size --help names is accepted in the form it names. */
        EXPECT_LL(t_parse(max, 0, &o, &out, &err), HX_EXIT_OK);
        EXPECT(o.n_set == 1 && o.n == 2147483647);
        free(out), free(err);
        {
            const char *help[] = {"--help", NULL};
            t_parse(help, 0, &o, &out, &err);
            EXPECT_STR(out, "0 to 2147483647 (2^31-1)");
            free(out), free(err);
        }
        t_parse(below, 0, &o, &out, &err);
        EXPECT_STR(err, "negative");
        free(out), free(err);
        t_parse(huge, 0, &o, &out, &err);
        EXPECT_STR(err, "above the largest size 2147483647");
        free(out), free(err);
        t_parse(neg, 0, &o, &out, &err);
        EXPECT_STR(err, "negative");
        free(out), free(err);
        t_parse(big, 0, &o, &out, &err);
        EXPECT_STR(err, "2147483647");
        free(out), free(err);
        t_parse(junk, 0, &o, &out, &err);
        EXPECT_STR(err, "'12x'");
        free(out), free(err);
    }
    t_context("%s", "");
}
