/* hx_guard.c: guarded device outputs. Contracts are in hx_guard.h. */
#include "hx_guard.h"
#include "hx_cuda.h"

#include <stdlib.h>
#include <string.h>

void hx_guarded_alloc(hx_guarded *b, size_t n)
{
    hx_guarded_alloc_wide(b, n, HX_GUARD_WORDS);
}

void hx_guarded_alloc_wide(hx_guarded *b, size_t cap, size_t guard)
{
    if (guard > ((size_t)-1) / sizeof(int) / 4 ||
        cap > ((size_t)-1) / sizeof(int) - 2 * guard) {
        fprintf(stderr, "hx_guarded_alloc: %zu elements and %zu guard words "
                "overflow a size\n", cap, guard);
        exit(HX_EXIT_NOMEM);
    }
    HX_CHECK(cudaMalloc((void **)&b->base, (cap + 2 * guard) * sizeof(int)));
    b->data = b->base + guard;
    b->n = b->cap = cap;
    b->guard = guard;
}

void hx_guarded_free(hx_guarded *b)
{
    if (b->base)
        HX_CHECK(cudaFree(b->base));
    memset(b, 0, sizeof *b);
}

void hx_guarded_resize(hx_guarded *b, size_t n)
{
    if (n > b->cap) {
        fprintf(stderr, "hx_guarded_resize: %zu elements in room for %zu\n",
                n, b->cap);
        exit(HX_EXIT_USAGE);
    }
    b->n = n;
}

size_t hx_guarded_after(const hx_guarded *b)
{
    return b->cap - b->n + b->guard;
}

void hx_guarded_poison(hx_guarded *b)
{
    HX_CHECK(cudaMemset(b->base, HX_GUARD_BYTE, b->guard * sizeof(int)));
    if (b->n)
        HX_CHECK(cudaMemset(b->data, HX_POISON_BYTE, b->n * sizeof(int)));
    HX_CHECK(cudaMemset(b->data + b->n, HX_GUARD_BYTE,
                        hx_guarded_after(b) * sizeof(int)));
}

size_t hx_guarded_fetch(const hx_guarded *b, int *host, hx_guard_report *g)
{
    size_t words = b->n + 2 * b->guard, changed;
    int *whole = malloc(words * sizeof *whole);
    if (!whole) {
        fprintf(stderr, "hx_guarded_fetch: out of host memory (%zu bytes)\n",
                words * sizeof *whole);
        exit(HX_EXIT_NOMEM);
    }
    /* A plain cudaMemcpy waits for all earlier work on the default stream,
     * so the kernel under test has finished (or its fault surfaces here). */
    HX_CHECK(cudaMemcpy(whole, b->base, words * sizeof *whole,
                        cudaMemcpyDeviceToHost));
    if (b->n)
        memcpy(host, whole + b->guard, b->n * sizeof *host);
    changed = hx_guard_scan(whole, b->n, b->guard, g);
    free(whole);
    return changed;
}

void hx_guarded_fetch_output(const hx_guarded *b, int *host)
{
    if (b->n)
        HX_CHECK(cudaMemcpy(host, b->data, b->n * sizeof *host,
                            cudaMemcpyDeviceToHost));
}
