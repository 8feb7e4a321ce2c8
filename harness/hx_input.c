/* hx_input.c: deterministic inputs. Contracts are in hx_input.h.
 *
 * Everything is integer arithmetic on a splitmix64 stream except
 * hx_rng_unit, whose double is exact (53 bits scaled by 2^-53), so the
 * same seed gives the same array on every machine and compiler. */
#include "hx_input.h"
#include "hx_check.h"
#include "hx_mix.h"

#define HX_VMAX 1000000   /* magnitude bound of every generated value */

void hx_rng_seed(hx_rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t hx_rng_next(hx_rng *r)
{
    return hx_mix64(r->state += HX_MIX_GAMMA);
}

uint64_t hx_rng_below(hx_rng *r, uint64_t bound)
{
    /* Reject the lowest (2^64 mod bound) values, so every residue has the
     * same number of preimages. */
    uint64_t threshold, x;
    if (bound <= 1)
        return 0;
    threshold = (0 - bound) % bound;
    do
        x = hx_rng_next(r);
    while (x < threshold);
    return x % bound;
}

double hx_rng_unit(hx_rng *r)
{
    return (double)(hx_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* A non-zero value in [-HX_VMAX, HX_VMAX], both signs equally likely. */
static int hx_nonzero(hx_rng *r)
{
    int v = (int)hx_rng_below(r, 2 * HX_VMAX);   /* 0 .. 2*HX_VMAX-1 */
    return v < HX_VMAX ? v - HX_VMAX : v - HX_VMAX + 1;
}

static int hx_positive(hx_rng *r)
{
    return 1 + (int)hx_rng_below(r, HX_VMAX);
}

void hx_fill_uniform(int *a, size_t n, int lo, int hi, uint64_t seed)
{
    hx_rng r;
    uint64_t span = (uint64_t)((long long)hi - (long long)lo) + 1;
    size_t i;
    hx_rng_seed(&r, seed);
    if (lo == hi) {
        /* The caller named the one value; no draw can avoid it. */
        hx_fill_const(a, n, lo);
        return;
    }
    for (i = 0; i < n; ++i) {
        int v;
        /* Only a range wide enough to hold the sentinels can draw them;
         * draw again so a kept value is never mistaken for one. */
        do
            v = (int)((long long)lo + (long long)hx_rng_below(&r, span));
        while (v == HX_POISON || v == HX_GUARD_WORD);
        a[i] = v;
    }
}

void hx_fill_const(int *a, size_t n, int value)
{
    size_t i;
    for (i = 0; i < n; ++i)
        a[i] = value;
}

void hx_fill_spread(int *a, size_t n, int total)
{
    /* Without a division per element: acc = (i * (total % n)) mod n, and
     * a[i] gets the carry when acc wraps past n. */
    size_t base, rem, acc = 0, i;
    if (n == 0 || total < 0)
        return;
    base = (size_t)total / n;
    rem = (size_t)total % n;
    for (i = 0; i < n; ++i) {
        int carry;
        acc += rem;
        carry = acc >= n;
        if (carry)
            acc -= n;
        a[i] = (int)base + carry;
    }
}

void hx_fill_survival(int *a, size_t n, double keep, uint64_t seed)
{
    hx_rng r;
    size_t i;
    hx_rng_seed(&r, seed);
    for (i = 0; i < n; ++i)
        a[i] = hx_rng_unit(&r) < keep ? hx_nonzero(&r) : 0;
}

void hx_fill_parity(int *a, size_t n, double p_even, uint64_t seed)
{
    hx_rng r;
    size_t i;
    hx_rng_seed(&r, seed);
    for (i = 0; i < n; ++i) {
        int even = hx_rng_unit(&r) < p_even;
        /* k in [-HX_VMAX/2, HX_VMAX/2): 2k is in [-1000000, 999998] and
         * 2k + 1 in [-999999, 999999]. */
        int k = (int)hx_rng_below(&r, HX_VMAX) - HX_VMAX / 2;
        a[i] = even ? 2 * k : 2 * k + 1;
    }
}

const char *hx_mix_name(hx_mix m)
{
    switch (m) {
    case HX_MIX_THIRDS: return "thirds";
    case HX_MIX_ALL_NEG: return "all-negative";
    case HX_MIX_ALL_ZERO: return "all-zero";
    case HX_MIX_ALL_POS: return "all-positive";
    case HX_MIX_NO_ZEROS: return "no-zeros";
    case HX_MIX_ENDS: return "ends";
    default: return "unknown";
    }
}

void hx_fill_threeway(int *a, size_t n, hx_mix m, uint64_t seed)
{
    hx_rng r;
    size_t i;
    hx_rng_seed(&r, seed);
    for (i = 0; i < n; ++i) {
        int mag = hx_positive(&r);
        switch (m) {
        case HX_MIX_THIRDS: {
            int k = (int)hx_rng_below(&r, 3);
            a[i] = k == 0 ? -mag : k == 1 ? 0 : mag;
            break;
        }
        case HX_MIX_ALL_NEG: a[i] = -mag; break;
        case HX_MIX_ALL_ZERO: a[i] = 0; break;
        case HX_MIX_ALL_POS: a[i] = mag; break;
        case HX_MIX_NO_ZEROS:
            a[i] = hx_rng_below(&r, 2) ? mag : -mag;
            break;
        case HX_MIX_ENDS:
        default:
            if (i == 0)
                a[i] = mag;
            else if (i == n - 1)
                a[i] = -mag;
            else if (n >= 3 && i == n / 2)
                a[i] = 0;
            else
                a[i] = i % 2 == 0 ? mag : -mag;
            break;
        }
    }
}

const char *hx_shape_name(hx_shape s)
{
    switch (s) {
    case HX_SHAPE_ALL_KEPT: return "all-kept";
    case HX_SHAPE_NONE_KEPT: return "none-kept";
    case HX_SHAPE_LAST_ONLY: return "last-only";
    case HX_SHAPE_ALTERNATING: return "alternating";
    case HX_SHAPE_SORTED: return "sorted";
    default: return "unknown";
    }
}

void hx_fill_shape(int *a, size_t n, hx_shape s, uint64_t seed)
{
    hx_rng r;
    size_t i;
    hx_rng_seed(&r, seed);
    for (i = 0; i < n; ++i) {
        int v = hx_nonzero(&r), kept;
        switch (s) {
        case HX_SHAPE_ALL_KEPT: kept = 1; break;
        case HX_SHAPE_NONE_KEPT: kept = 0; break;
        case HX_SHAPE_LAST_ONLY: kept = i == n - 1; break;
        case HX_SHAPE_ALTERNATING: kept = i % 2 == 0; break;
        case HX_SHAPE_SORTED:
        default: kept = i >= n / 2; break;
        }
        a[i] = kept ? v : 0;
    }
}

void hx_fill_identity(int *map, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        map[i] = (int)i;
}

void hx_fill_permutation(int *map, size_t n, uint64_t seed)
{
    hx_rng r;
    size_t i;
    hx_rng_seed(&r, seed);
    hx_fill_identity(map, n);
    for (i = n; i > 1; --i) {
        size_t j = (size_t)hx_rng_below(&r, i);
        int t = map[i - 1];
        map[i - 1] = map[j];
        map[j] = t;
    }
}

void hx_fill_random_map(int *map, size_t n, uint64_t seed)
{
    hx_rng r;
    size_t i;
    hx_rng_seed(&r, seed);
    for (i = 0; i < n; ++i)
        map[i] = (int)hx_rng_below(&r, n);
}
