/* hx_guard.c: guarded device outputs. Contracts are in hx_guard.h. */
#include "hx_guard.h"
#include "hx_cuda.h"

#include <stdlib.h>
#include <string.h>

void hx_guarded_alloc(hx_guarded *b, size_t n)
{
    size_t words = n + 2 * HX_GUARD_WORDS;
    if (n > ((size_t)-1) / sizeof(int) - 2 * HX_GUARD_WORDS) {
        fprintf(stderr, "hx_guarded_alloc: %zu elements overflow a size\n",
                n);
        exit(HX_EXIT_NOMEM);
    }
    HX_CHECK(cudaMalloc((void **)&b->base, words * sizeof(int)));
    b->data = b->base + HX_GUARD_WORDS;
    b->n = n;
}

void hx_guarded_free(hx_guarded *b)
{
    if (b->base)
        HX_CHECK(cudaFree(b->base));
    b->base = b->data = NULL;
    b->n = 0;
}

void hx_guarded_poison(hx_guarded *b)
{
    const size_t gbytes = HX_GUARD_WORDS * sizeof(int);
    HX_CHECK(cudaMemset(b->base, HX_GUARD_BYTE, gbytes));
    if (b->n)
        HX_CHECK(cudaMemset(b->data, HX_POISON_BYTE, b->n * sizeof(int)));
    HX_CHECK(cudaMemset(b->data + b->n, HX_GUARD_BYTE, gbytes));
}

size_t hx_guarded_fetch(const hx_guarded *b, int *host, hx_guard_report *g)
{
    size_t words = b->n + 2 * HX_GUARD_WORDS, changed;
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
        memcpy(host, whole + HX_GUARD_WORDS, b->n * sizeof *host);
    changed = hx_guard_scan(whole, b->n, HX_GUARD_WORDS, g);
    free(whole);
    return changed;
}
