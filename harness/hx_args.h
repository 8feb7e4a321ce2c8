/* hx_args.h: the command line every lab shares.
 *
 * Options: --n N, --seed S, --runs R, --warmup W, --check, --help, and
 * where the lab allows them (hx_parse_args's allow bits): --keep P;
 * --sweep and --csv FILE (HX_OPT_SWEEP); --variants (HX_OPT_VARIANTS, a
 * dev/ program's). --check, --sweep and --variants are separate runs: at
 * most one may be given. Values may follow as the next argument or after
 * '=' (--n=1000). Sizes accept plain decimals and
 * powers of two with an optional offset: "2^28", "2^31-1", "2^20+1".
 */
#ifndef HX_ARGS_H
#define HX_ARGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest --n: element counts and ranks are int on the device. */
#define HX_MAX_N ((size_t)2147483647)

#define HX_DEFAULT_SEED 31033u
#define HX_DEFAULT_RUNS 20
#define HX_DEFAULT_WARMUP 3

/* Bits for hx_parse_args's allow argument. */
enum { HX_OPT_KEEP = 1u, HX_OPT_SWEEP = 2u, HX_OPT_VARIANTS = 4u };

typedef struct {
    size_t n;       /* 0 is a valid size; n_set says whether --n was given */
    int n_set;
    uint64_t seed;  /* HX_DEFAULT_SEED unless --seed */
    int runs;       /* >= 1 */
    int warmup;     /* >= 0 */
    double keep;    /* survival fraction in [0, 1]; 0.5 unless --keep */
    int check;      /* --check: self-check only, no timing */
    int sweep;      /* --sweep: every size, a CSV (HX_OPT_SWEEP) */
    const char *csv;    /* --csv FILE, where --sweep writes; NULL unless
                           given (the lab picks its default) */
    int variants;   /* --variants (HX_OPT_VARIANTS) */
    int help;       /* --help was given and the usage was printed */
} hx_opts;

/* Parses argv into *o (defaults first). On --help prints usage (the
 * one-paragraph text the lab passes, then the option list) to stdout, sets
 * o->help and returns HX_EXIT_OK. On an unknown option, a missing or
 * non-numeric value, a negative size, a size above HX_MAX_N, runs < 1,
 * warmup < 0, keep outside [0, 1], an option allow does not grant, --csv
 * without --sweep, or two of --check, --sweep and --variants prints
 * exactly one line
 * "<prog>: <what is wrong> (try --help)" to stderr and returns
 * HX_EXIT_USAGE. Never touches the GPU. */
int hx_parse_args(int argc, char **argv, hx_opts *o, unsigned allow,
                  const char *prog, const char *usage);

/* Parses a size: decimal digits only, or "2^K", "2^K-D" or "2^K+D" (K
 * and D decimal digits), whose value must lie in [0, HX_MAX_N], so
 * "2^31-1" is the largest size and "2^31" is refused. Rejects signs,
 * spaces and trailing characters. Returns 0 on success, -1 otherwise
 * (*out untouched). */
int hx_parse_size(const char *s, size_t *out);

#ifdef __cplusplus
}
#endif
#endif
