/* hx_mix.h: the counter-based random bits every input is drawn from,
 * for host and device code alike.
 *
 * hx_bits_at(seed, i) is the i-th draw (from 0) of splitmix64 seeded with
 * seed, computed directly instead of in sequence: hx_rng (hx_input.h)
 * returns the same values one after another. So a GPU thread makes its
 * own elements and the host recomputes any element for a reference,
 * without either ever holding the other's array.
 *
 * Defined here, not in a .c: a kernel can only call what its translation
 * unit sees, and one definition for the host and the device keeps them
 * from drifting apart. Plain C when not compiled by nvcc.
 */
#ifndef HX_MIX_H
#define HX_MIX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define HX_HOST_DEVICE __host__ __device__
#else
#define HX_HOST_DEVICE
#endif

/* splitmix64's finaliser: a bijection of 64-bit words in which every
 * input bit changes about half of the output bits. */
static inline HX_HOST_DEVICE uint64_t hx_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The increment of splitmix64's counter (2^64 over the golden ratio). */
#define HX_MIX_GAMMA 0x9E3779B97F4A7C15ull

/* The i-th draw of splitmix64 from seed. */
static inline HX_HOST_DEVICE uint64_t hx_bits_at(uint64_t seed, size_t i)
{
    return hx_mix64(seed + HX_MIX_GAMMA * ((uint64_t)i + 1));
}

#endif
