/* hx_args.c: the shared command line. Contracts are in hx_args.h.
 *
 * Parsing is strict on purpose: "12x", "1e9", "0x10", " 5" and "-5" are
 * all refused with one line naming the option and the text given, because
 * a lab that silently read "1e9" as 1 would time the wrong problem. */
#include "hx_args.h"
#include "hx_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs above this are a typo, not a measurement. */
#define HX_MAX_RUNS 1000000

int hx_parse_size(const char *s, size_t *out)
{
    size_t v = 0;
    const char *p;
    if (!s || !*s)
        return -1;
    if (s[0] == '2' && s[1] == '^') {
        unsigned k = 0;
        p = s + 2;
        if (!*p)
            return -1;
        for (; *p; ++p) {
            if (*p < '0' || *p > '9')
                return -1;
            k = k * 10 + (unsigned)(*p - '0');
            if (k > 31)
                return -1;
        }
        v = (size_t)1 << k;
    } else {
        for (p = s; *p; ++p) {
            if (*p < '0' || *p > '9')
                return -1;
            v = v * 10 + (size_t)(*p - '0');
            if (v > HX_MAX_N)
                return -1;
        }
    }
    if (v > HX_MAX_N)
        return -1;
    *out = v;
    return 0;
}

/* Decimal digits only, at most max; -1 otherwise. */
static int hx_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return -1;
    for (; *s; ++s) {
        unsigned d;
        if (*s < '0' || *s > '9')
            return -1;
        d = (unsigned)(*s - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* A plain decimal fraction such as 0.25, 1, .5 or 5e-1: no sign, no hex,
 * no inf or nan. */
static int hx_parse_fraction(const char *s, double *out)
{
    const char *p;
    char *end;
    double v;
    if (!s || !*s)
        return -1;
    for (p = s; *p; ++p)
        if (!strchr("0123456789.eE-+", *p))
            return -1;
    if (s[0] == '-' || s[0] == '+')
        return -1;
    v = strtod(s, &end);
    if (end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int hx_usage_error(const char *prog, const char *what,
                          const char *value)
{
    if (value)
        fprintf(stderr, "%s: %s '%s' (try --help)\n", prog, what, value);
    else
        fprintf(stderr, "%s: %s (try --help)\n", prog, what);
    return HX_EXIT_USAGE;
}

static void hx_print_usage(const char *prog, const char *usage,
                           unsigned allow)
{
    printf("usage: %s [options]\n\n", prog);
    if (usage && *usage)
        printf("%s\n\n", usage);
    printf("options:\n");
    printf("  --n N        elements: decimal digits or 2^K, 0 to %zu\n"
           "               (default: sized from the GPU's L2 and free "
           "memory; printed)\n", HX_MAX_N);
    printf("  --seed S     input seed, 0 to 2^64 - 1 (default %u)\n",
           HX_DEFAULT_SEED);
    printf("  --runs R     timed runs per row, at least 1 (default %d)\n",
           HX_DEFAULT_RUNS);
    printf("  --warmup W   untimed runs before them, at least 0 "
           "(default %d)\n", HX_DEFAULT_WARMUP);
    if (allow & HX_OPT_KEEP)
        printf("  --keep P     survival fraction, 0 to 1 (default 0.5)\n");
    printf("  --check      self-check only: run every check, time "
           "nothing\n");
    printf("  --help, -h   print this text and exit\n");
    printf("A value follows its option as the next argument or after '=' "
           "(--n=2^20).\n");
}

int hx_parse_args(int argc, char **argv, hx_opts *o, unsigned allow,
                  const char *prog, const char *usage)
{
    char msg[160];
    int i;

    o->n = 0;
    o->n_set = 0;
    o->seed = HX_DEFAULT_SEED;
    o->runs = HX_DEFAULT_RUNS;
    o->warmup = HX_DEFAULT_WARMUP;
    o->keep = 0.5;
    o->check = 0;
    o->help = 0;
    if (!prog)
        prog = argc > 0 && argv[0] ? argv[0] : "hx";

    for (i = 1; i < argc; ++i) {
        const char *arg = argv[i], *eq, *value = NULL;
        char name[32];
        size_t len;

        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (strcmp(arg, "-h") == 0) {
                hx_print_usage(prog, usage, allow);
                o->help = 1;
                return HX_EXIT_OK;
            }
            return hx_usage_error(prog, arg[0] == '-' ? "unknown option"
                                  : "unexpected argument", arg);
        }
        eq = strchr(arg, '=');
        len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name)
            return hx_usage_error(prog, "unknown option", arg);
        memcpy(name, arg, len);
        name[len] = '\0';

        if (strcmp(name, "--help") == 0 || strcmp(name, "--check") == 0) {
            if (eq) {
                snprintf(msg, sizeof msg, "%s takes no value, got", name);
                return hx_usage_error(prog, msg, arg);
            }
            if (name[2] == 'c') {
                o->check = 1;
                continue;
            }
            hx_print_usage(prog, usage, allow);
            o->help = 1;
            return HX_EXIT_OK;
        }
        if (strcmp(name, "--n") != 0 && strcmp(name, "--seed") != 0 &&
            strcmp(name, "--runs") != 0 && strcmp(name, "--warmup") != 0 &&
            !(strcmp(name, "--keep") == 0 && (allow & HX_OPT_KEEP))) {
            if (strcmp(name, "--keep") == 0)
                return hx_usage_error(prog, "this program takes no --keep",
                                      NULL);
            return hx_usage_error(prog, "unknown option", arg);
        }
        if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        if (!value || !*value) {
            snprintf(msg, sizeof msg, "%s needs a value", name);
            return hx_usage_error(prog, msg, NULL);
        }

        if (strcmp(name, "--n") == 0) {
            if (hx_parse_size(value, &o->n) != 0) {
                const char *d = value[0] == '-' ? value + 1 : value;
                int digits = *d != '\0' && strspn(d, "0123456789") ==
                             strlen(d);
                if (value[0] == '-' && digits)
                    snprintf(msg, sizeof msg, "--n must not be negative, "
                             "got");
                else if (digits || (value[0] == '2' && value[1] == '^' &&
                         value[2] && strspn(value + 2, "0123456789") ==
                         strlen(value + 2)))
                    snprintf(msg, sizeof msg, "--n is above the largest "
                             "size %zu (2^31 - 1), got", HX_MAX_N);
                else
                    snprintf(msg, sizeof msg, "--n wants a whole number of "
                             "elements (digits, or 2^K), got");
                return hx_usage_error(prog, msg, value);
            }
            o->n_set = 1;
        } else if (strcmp(name, "--seed") == 0) {
            if (hx_parse_u64(value, UINT64_MAX, &o->seed) != 0)
                return hx_usage_error(prog, "--seed wants decimal digits, "
                                      "0 to 2^64 - 1, got", value);
        } else if (strcmp(name, "--runs") == 0 ||
                   strcmp(name, "--warmup") == 0) {
            int is_runs = name[2] == 'r';
            uint64_t v;
            if (hx_parse_u64(value, HX_MAX_RUNS, &v) != 0 ||
                (is_runs && v < 1)) {
                snprintf(msg, sizeof msg, "%s wants a whole number from %d "
                         "to %d, got", name, is_runs ? 1 : 0, HX_MAX_RUNS);
                return hx_usage_error(prog, msg, value);
            }
            if (is_runs)
                o->runs = (int)v;
            else
                o->warmup = (int)v;
        } else {
            double k;
            if (hx_parse_fraction(value, &k) != 0 || !(k >= 0.0) ||
                !(k <= 1.0))
                return hx_usage_error(prog, "--keep wants a fraction from "
                                      "0 to 1, got", value);
            o->keep = k;
        }
    }
    return HX_EXIT_OK;
}
