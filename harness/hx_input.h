/* hx_input.h: deterministic inputs. Every generator takes a seed and
 * produces the same array for the same (seed, n, parameters) on every
 * machine. No generator ever produces HX_POISON or HX_GUARD_WORD
 * (hx_check.h), so an unwritten slot can always be told apart.
 */
#ifndef HX_INPUT_H
#define HX_INPUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: small, fast, and the same everywhere. The k-th value (from
 * 0) after hx_rng_seed(r, s) is hx_bits_at(s, k) (hx_mix.h), which a
 * kernel computes for its own elements. */
typedef struct { uint64_t state; } hx_rng;

void hx_rng_seed(hx_rng *r, uint64_t seed);
uint64_t hx_rng_next(hx_rng *r);
/* Uniform in [0, bound), bound >= 1, without modulo bias. */
uint64_t hx_rng_below(hx_rng *r, uint64_t bound);
/* Uniform in [0, 1). */
double hx_rng_unit(hx_rng *r);

/* a[i] uniform in [lo, hi] (lo <= hi). */
void hx_fill_uniform(int *a, size_t n, int lo, int hi, uint64_t seed);

/* a[i] = value for every i. */
void hx_fill_const(int *a, size_t n, int value);

/* total (>= 0) spread evenly over n > 0 slots: a[i] = floor((i + 1) total
 * / n) - floor(i total / n), so each value is total / n or one more, the
 * exclusive prefix at i is floor(i total / n), and the sum is exactly
 * total. With total = INT_MAX: the largest input whose sum fits in int.
 * n = 0 writes nothing. */
void hx_fill_spread(int *a, size_t n, int total);

/* Survival for compaction by markNonZero: each a[i] is kept (a non-zero
 * value in [-1000000, 1000000]) with probability keep, else 0. */
void hx_fill_survival(int *a, size_t n, double keep, uint64_t seed);

/* Survival for partition by markEven: each a[i] is even with probability
 * p_even, else odd; values in [-1000000, 1000000]. */
void hx_fill_parity(int *a, size_t n, double p_even, uint64_t seed);

/* Three-way mixes for the exercise: negatives, zeros and positives. */
typedef enum {
    HX_MIX_THIRDS,    /* each slot negative, zero or positive with p = 1/3 */
    HX_MIX_ALL_NEG,   /* every value negative */
    HX_MIX_ALL_ZERO,  /* every value zero */
    HX_MIX_ALL_POS,   /* every value positive */
    HX_MIX_NO_ZEROS,  /* negatives and positives, half each, no zero */
    HX_MIX_ENDS,      /* a[0] positive, a[n-1] negative (n >= 2), one zero
                         at n/2 (n >= 3), every other slot alternating
                         positive and negative */
    HX_MIX_COUNT
} hx_mix;

const char *hx_mix_name(hx_mix m);
/* Non-zero values are in [-1000000, 1000000], distinct enough that order
 * errors show. */
void hx_fill_threeway(int *a, size_t n, hx_mix m, uint64_t seed);

/* Edge shapes for compaction (kept means non-zero). */
typedef enum {
    HX_SHAPE_ALL_KEPT,    /* every element non-zero */
    HX_SHAPE_NONE_KEPT,   /* every element zero */
    HX_SHAPE_LAST_ONLY,   /* only a[n-1] non-zero */
    HX_SHAPE_ALTERNATING, /* a[i] non-zero exactly for even i */
    HX_SHAPE_SORTED,      /* all zeros first, then the non-zeros (half each) */
    HX_SHAPE_COUNT
} hx_shape;

const char *hx_shape_name(hx_shape s);
void hx_fill_shape(int *a, size_t n, hx_shape s, uint64_t seed);

/* map[i] = i. */
void hx_fill_identity(int *map, size_t n);
/* A uniformly random permutation of 0..n-1 (Fisher-Yates). */
void hx_fill_permutation(int *map, size_t n, uint64_t seed);
/* map[i] uniform in [0, n): destinations that repeat, for the scatter
 * that loses writes. */
void hx_fill_random_map(int *map, size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
