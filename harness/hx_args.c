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

/* What a size string is: a size in range, or why it is not one. */
typedef enum {
    HX_SIZE_OK,
    HX_SIZE_SYNTAX,    /* not digits, 2^K, 2^K-D or 2^K+D */
    HX_SIZE_NEGATIVE,  /* a leading '-' on digits, or 2^K-D below 0 */
    HX_SIZE_TOO_BIG    /* well formed, above HX_MAX_N */
} hx_size_status;

/* Decimal digits only into *v; values above limit saturate at limit + 1
 * (limit is at most 2^62, so limit + 1 cannot wrap), so a caller can tell
 * "too big" from "bad". The product is checked before it is formed: no
 * run of digits can wrap around 2^64. Returns the characters read (0 when
 * s does not start with a digit). */
static size_t hx_digits(const char *s, unsigned long long limit,
                        unsigned long long *v)
{
    size_t k = 0;
    *v = 0;
    for (; s[k] >= '0' && s[k] <= '9'; ++k) {
        const unsigned long long d = (unsigned long long)(s[k] - '0');
        if (*v > limit)
            continue;
        *v = *v > (limit - d) / 10 ? limit + 1 : *v * 10 + d;
    }
    return k;
}

static hx_size_status hx_size_parse(const char *s, size_t *out)
{
    unsigned long long v, k, d;
    size_t len;
    if (!s || !*s)
        return HX_SIZE_SYNTAX;
    if (s[0] == '2' && s[1] == '^') {
        /* 2^K, 2^K-D or 2^K+D: K up to 62 so that 2^40-... is "too big",
         * not "bad"; the result must still be in [0, HX_MAX_N]. */
        len = hx_digits(s + 2, 62, &k);
        if (len == 0 || k > 62)
            return HX_SIZE_SYNTAX;
        v = 1ull << k;
        s += 2 + len;
        if (*s == '-' || *s == '+') {
            const char sign = *s++;
            len = hx_digits(s, 1ull << 62, &d);
            if (len == 0 || s[len] != '\0')
                return HX_SIZE_SYNTAX;
            if (sign == '-' && d > v)
                return HX_SIZE_NEGATIVE;
            v = sign == '-' ? v - d : v + d;
        } else if (*s != '\0') {
            return HX_SIZE_SYNTAX;
        }
    } else if (s[0] == '-') {
        len = hx_digits(s + 1, HX_MAX_N, &v);
        return len > 0 && s[1 + len] == '\0' ? HX_SIZE_NEGATIVE
                                              : HX_SIZE_SYNTAX;
    } else {
        len = hx_digits(s, HX_MAX_N, &v);
        if (len == 0 || s[len] != '\0')
            return HX_SIZE_SYNTAX;
    }
    if (v > HX_MAX_N)
        return HX_SIZE_TOO_BIG;
    *out = (size_t)v;
    return HX_SIZE_OK;
}

int hx_parse_size(const char *s, size_t *out)
{
    return hx_size_parse(s, out) == HX_SIZE_OK ? 0 : -1;
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
    printf("  --n N        elements, 0 to %zu (2^31-1): decimal digits,\n"
           "               2^K, 2^K-D or 2^K+D (default: sized from the "
           "GPU's L2\n"
           "               and free memory; printed)\n", HX_MAX_N);
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
    if (allow & HX_OPT_SWEEP)
        printf("  --sweep      check and time the rows at every size from "
               "2^10, into a CSV\n"
               "  --csv FILE   where --sweep writes its CSV\n");
    if (allow & HX_OPT_VARIANTS)
        printf("  --variants   check and time every variant at one size\n");
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
    o->sweep = 0;
    o->csv = NULL;
    o->variants = 0;
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

        if (strcmp(name, "--help") == 0 || strcmp(name, "--check") == 0 ||
            strcmp(name, "--sweep") == 0 || strcmp(name, "--variants") == 0) {
            if (eq) {
                snprintf(msg, sizeof msg, "%s takes no value, got", name);
                return hx_usage_error(prog, msg, arg);
            }
            if (strcmp(name, "--check") == 0) {
                o->check = 1;
                continue;
            }
            if (name[2] == 's' || name[2] == 'v') {
                const int sweep = name[2] == 's';
                if (!(allow & (sweep ? HX_OPT_SWEEP : HX_OPT_VARIANTS))) {
                    snprintf(msg, sizeof msg, "this program takes no %s",
                             name);
                    return hx_usage_error(prog, msg, NULL);
                }
                if (sweep)
                    o->sweep = 1;
                else
                    o->variants = 1;
                continue;
            }
            hx_print_usage(prog, usage, allow);
            o->help = 1;
            return HX_EXIT_OK;
        }
        if (strcmp(name, "--n") != 0 && strcmp(name, "--seed") != 0 &&
            strcmp(name, "--runs") != 0 && strcmp(name, "--warmup") != 0 &&
            !(strcmp(name, "--keep") == 0 && (allow & HX_OPT_KEEP)) &&
            !(strcmp(name, "--csv") == 0 && (allow & HX_OPT_SWEEP))) {
            if (strcmp(name, "--keep") == 0 || strcmp(name, "--csv") == 0) {
                snprintf(msg, sizeof msg, "this program takes no %s", name);
                return hx_usage_error(prog, msg, NULL);
            }
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

        if (strcmp(name, "--csv") == 0) {
            o->csv = value;
        } else if (strcmp(name, "--n") == 0) {
            switch (hx_size_parse(value, &o->n)) {
            case HX_SIZE_OK:
                break;
            case HX_SIZE_NEGATIVE:
                return hx_usage_error(prog, "--n must not be negative, got",
                                      value);
            case HX_SIZE_TOO_BIG:
                snprintf(msg, sizeof msg, "--n is above the largest size "
                         "%zu (2^31-1), got", HX_MAX_N);
                return hx_usage_error(prog, msg, value);
            default:
                return hx_usage_error(prog, "--n wants a whole number of "
                                      "elements (digits, 2^K or 2^K-1), got",
                                      value);
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
    if (o->check + o->sweep + o->variants > 1)
        return hx_usage_error(prog, "--check, --sweep and --variants are "
                              "separate runs: give one", NULL);
    if (o->csv && !o->sweep)
        return hx_usage_error(prog, "--csv is where --sweep writes: give "
                              "--sweep too", NULL);
    return HX_EXIT_OK;
}
