/* hx_ref.c: host references. Contracts are in hx_ref.h. Plain loops: these
 * are the definitions the kernels are held to, so they are written to be
 * read, not to be fast. */
#include "hx_ref.h"
#include "hx_cuda.h"

#include <stdio.h>
#include <stdlib.h>

int hx_pred_nonzero(int v) { return v != 0; }
int hx_pred_even(int v) { return v % 2 == 0; }
int hx_pred_mult3(int v) { return v % 3 == 0; }
int hx_pred_negative(int v) { return v < 0; }
int hx_pred_zero(int v) { return v == 0; }

/* The device adds int modulo 2^32; unsigned arithmetic is the portable way
 * to wrap the same way in C (signed overflow is undefined). */
static int hx_wrap(unsigned u)
{
    return u <= 2147483647u ? (int)u : (int)(u - 2147483648u) - 2147483647 - 1;
}

long long hx_scan_exclusive(const int *in, int *out, size_t n)
{
    long long exact = 0;
    unsigned run = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        int v = in[i];   /* read before the write: in may be out */
        out[i] = hx_wrap(run);
        run += (unsigned)v;
        exact += v;
    }
    return exact;
}

long long hx_scan_inclusive(const int *in, int *out, size_t n)
{
    long long exact = 0;
    unsigned run = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        run += (unsigned)in[i];
        exact += in[i];
        out[i] = hx_wrap(run);
    }
    return exact;
}

void hx_mark(const int *in, int *flags, size_t n, hx_pred pred)
{
    size_t i;
    for (i = 0; i < n; ++i)
        flags[i] = pred(in[i]) ? 1 : 0;
}

size_t hx_compact(const int *in, int *out, size_t n, hx_pred pred)
{
    size_t i, m = 0;
    for (i = 0; i < n; ++i)
        if (pred(in[i]))
            out[m++] = in[i];
    return m;
}

size_t hx_partition(const int *in, int *out, size_t n, hx_pred pred)
{
    size_t i, kept = 0, rest;
    for (i = 0; i < n; ++i)
        kept += pred(in[i]) != 0;
    rest = kept;
    kept = 0;
    for (i = 0; i < n; ++i) {
        if (pred(in[i]))
            out[kept++] = in[i];
        else
            out[rest++] = in[i];
    }
    return kept;
}

void hx_split3(const int *in, int *out, size_t n, size_t *b1, size_t *b2)
{
    size_t i, neg = 0, zero = 0, sn, sz, sp;
    for (i = 0; i < n; ++i) {
        neg += in[i] < 0;
        zero += in[i] == 0;
    }
    /* The next slot of each group: negatives, zeros, positives. The kinds
     * of a mixed input are unpredictable, so the slot is picked with masks
     * rather than a branch (a mispredicted branch an element costs more
     * than the rest of the loop), and the three are kept in variables
     * rather than an array indexed by the kind (whose loads would wait on
     * the previous element's store). */
    sn = 0;
    sz = neg;
    sp = neg + zero;
    for (i = 0; i < n; ++i) {
        const int v = in[i];
        const size_t isZero = (size_t)0 - (v == 0), isPos = (size_t)0 - (v > 0);
        size_t slot = sn;
        slot = (slot & ~isZero) | (sz & isZero);
        slot = (slot & ~isPos) | (sp & isPos);
        out[slot] = v;
        sn += v < 0;
        sz += v == 0;
        sp += v > 0;
    }
    if (b1)
        *b1 = neg;
    if (b2)
        *b2 = neg + zero;
}

void hx_gather(const int *in, const int *map, int *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        out[i] = in[map[i]];
}

size_t hx_scatter(const int *in, const int *map, int *out, size_t n)
{
    /* One byte per destination records whether it was written before. */
    unsigned char *seen;
    size_t i, distinct = 0;
    if (n == 0)
        return 0;
    seen = calloc(n, 1);
    if (!seen) {
        fprintf(stderr, "hx_scatter: out of host memory (%zu bytes)\n", n);
        exit(HX_EXIT_NOMEM);
    }
    for (i = 0; i < n; ++i) {
        size_t d = (size_t)map[i];
        out[d] = in[i];
        if (!seen[d]) {
            seen[d] = 1;
            ++distinct;
        }
    }
    free(seen);
    return n - distinct;
}
