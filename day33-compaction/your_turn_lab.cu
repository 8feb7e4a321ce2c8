/* your_turn_lab.cu: day 33's "your turn" slots (your_turn.cu) in the lab:
 * the probes that tell an untouched slot from a filled one, and the rows
 * of the filled ones with their checks (lab.h, labYourRows). Compiled in
 * compaction.cu's translation unit (the Makefile includes it there).
 */
#include <stdio.h>

#include "hx_ref.h"
#include "lab.h"

/* ---- The probes: one block of LAB_BLOCK threads on PROBE values ---------- */

static const int PROBE = (int)LAB_BLOCK + 1;   /* two grid-stride rounds */

/* Values PROBE / 2 below 0 to above it: negatives, zero, multiples of 3. */
static void probeValues(int *v)
{
    for (int i = 0; i < PROBE; ++i) v[i] = i - PROBE / 2;
}

/* Device copies of PROBE host ints (NULL: PROBE ints of poison). */
static int *probeBuffer(const int *host)
{
    int *d;
    HX_CHECK(cudaMalloc(&d, PROBE * sizeof(int)));
    if (host)
        HX_CHECK(cudaMemcpy(d, host, PROBE * sizeof(int),
                            cudaMemcpyHostToDevice));
    else
        HX_CHECK(cudaMemset(d, HX_POISON_BYTE, PROBE * sizeof(int)));
    return d;
}

/* 1 when d's PROBE ints all still hold poison (d is freed). */
static int stillPoison(int *d)
{
    int got[PROBE], all = 1;
    HX_CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    HX_CHECK(cudaFree(d));
    for (int i = 0; i < PROBE; ++i) all &= got[i] == HX_POISON;
    return all;
}

/* Task 1: 0 untouched, 1 the mark alone filled, 2 both. The scatter's
 * probe gets the right ranks from the host, whatever the mark does. */
static int probeMultipleOf3(void)
{
    int v[PROBE], rank[PROBE], next = 0;
    probeValues(v);
    int *in = probeBuffer(v), *flags = probeBuffer(NULL);
    markMultipleOf3<<<1, LAB_BLOCK>>>(in, flags, PROBE);
    HX_CHECK_LAUNCH("markMultipleOf3");
    if (stillPoison(flags)) {
        HX_CHECK(cudaFree(in));
        return 0;
    }
    for (int i = 0; i < PROBE; ++i) {
        rank[i] = next;
        next += hx_pred_mult3(v[i]);
    }
    int *ranks = probeBuffer(rank), *out = probeBuffer(NULL);
    scatterMultipleOf3<<<1, LAB_BLOCK>>>(in, ranks, out, PROBE);
    HX_CHECK_LAUNCH("scatterMultipleOf3");
    const int scattered = !stillPoison(out);
    HX_CHECK(cudaFree(ranks));
    HX_CHECK(cudaFree(in));
    return 1 + scattered;
}

/* Task 2: 0 when the output is all poison and the counter still 0. */
static int probeAtomicWarp(void)
{
    int v[PROBE], count = 0;
    probeValues(v);
    int *in = probeBuffer(v), *out = probeBuffer(NULL), *counter;
    HX_CHECK(cudaMalloc(&counter, sizeof(int)));
    HX_CHECK(cudaMemset(counter, 0, sizeof(int)));
    compactAtomicWarp<<<1, LAB_BLOCK>>>(in, out, PROBE, counter);
    HX_CHECK_LAUNCH("compactAtomicWarp");
    HX_CHECK(cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost));
    HX_CHECK(cudaFree(counter));
    HX_CHECK(cudaFree(in));
    return !stillPoison(out) || count != 0;
}

/* ---- The rows ------------------------------------------------------------ */

static void runMultipleOf3(void *)
{
    markMultipleOf3<<<L.grid, LAB_BLOCK>>>(L.in, L.rank.data, L.n);
    HX_CHECK_LAUNCH("markMultipleOf3");
    scanExclusive(&L.plan, L.rank.data, L.counts + C_VARIANT, 0);
    scatterMultipleOf3<<<L.grid, LAB_BLOCK>>>(L.in, L.rank.data, L.out.data,
                                              L.n);
    HX_CHECK_LAUNCH("scatterMultipleOf3");
}

/* The counter must start at 0: its memset is part of every run. */
static void runAtomicWarp(void *)
{
    HX_CHECK(cudaMemsetAsync(L.counts + C_VARIANT, 0, sizeof(int), 0));
    compactAtomicWarp<<<L.grid, LAB_BLOCK>>>(L.in, L.out.data, L.n,
                                             L.counts + C_VARIANT);
    HX_CHECK_LAUNCH("compactAtomicWarp");
}

/* The multiples of 3 of L.hin in input order at out[0..m), poison past
 * them, the count exactly m: the host's compaction (hx_pred_mult3), walked
 * beside the output. */
static int checkMultipleOf3(const hx_bench *, const hx_row *, const char *what)
{
    const size_t n = L.n;
    size_t m = 0, bad = 0, first = n;
    int count, want = 0;
    HX_CHECK(cudaMemcpy(L.hgot, L.out.data, n * sizeof(int),
                        cudaMemcpyDeviceToHost));
    HX_CHECK(cudaMemcpy(&count, L.counts + C_VARIANT, sizeof count,
                        cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
        if (!hx_pred_mult3(L.hin[i])) continue;
        if (L.hgot[m] != L.hin[i] && bad++ == 0) {
            first = m;
            want = L.hin[i];
        }
        ++m;
    }
    for (size_t j = m; j < n; ++j)
        if (L.hgot[j] != HX_POISON && bad++ == 0) {
            first = j;
            want = HX_POISON;
        }
    if (bad == 0 && count == (int)m) return 0;
    if (bad)
        fprintf(L.say, "%s: FAIL at n=%zu: first bad index %zu: got %d, want "
                "%d; %zu of n slots bad\n", what, n, first, L.hgot[first], want,
                bad);
    if (count != (int)m)
        fprintf(L.say, "%s: FAIL at n=%zu: count %d, want %zu\n", what, n,
                count, m);
    return 1;
}

/* compactAtomic's check; L.disorder stays compactAtomic's (summary). */
static int checkAtomicWarp(const hx_bench *b, const hx_row *r, const char *what)
{
    const size_t disorder = L.disorder;
    const int rc = labSameValues(b, r, what);
    L.disorder = disorder;
    return rc;
}

int labYourRows(hx_row *r)
{
    static int mark3 = -1, warp = -1;
    if (mark3 < 0) {
        mark3 = probeMultipleOf3();
        warp = probeAtomicWarp();
        if (mark3 == 0)
            printf("your turn: markMultipleOf3 not yet attempted "
                   "(your_turn.cu)\n");
        if (mark3 == 1)
            printf("your turn: scatterMultipleOf3 not yet attempted "
                   "(your_turn.cu)\n");
        if (!warp)
            printf("your turn: compactAtomicWarp not yet attempted "
                   "(your_turn.cu)\n");
    }
    const double n = 4.0 * L.n, kept = 4.0 * L.kept;
    int k = 0;
    if (mark3 == 2)
        r[k++] = hx_row{.name = "compaction of multiples of 3 (yours)",
                        .run = runMultipleOf3, .check = checkMultipleOf3,
                        .floor_bytes = 4 * n + scanMovedBytes(&L.plan),
                        .launches = 2 + scanLaunches(&L.plan),
                        .note = "your turn (your_turn.cu):"};
    if (warp)
        r[k++] = hx_row{.name = "compaction, one atomic per warp (yours)",
                        .run = runAtomicWarp, .total = L.counts + C_VARIANT,
                        .total_want = &L.kept, .check = checkAtomicWarp,
                        .floor_bytes = n + kept, .launches = 2,
                        .note = k ? NULL : "your turn (your_turn.cu):"};
    return L.yours = k;
}
