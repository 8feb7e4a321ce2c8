/* scan_check.cu: scan --check, the self-check of day 31's lab (scan.cu),
 * compiled in scan.cu's translation unit (the Makefile includes it there).
 *
 * Every row of scan.cu, and the ways a caller or the GPU can make it
 * harder (small grids, in place, a misaligned input, a stalled look-back),
 * on five inputs at every size of the harness's list (hx_check_sizes: 0,
 * 1, around a tile, around the tiles the grid takes at once, where the
 * course scan needs one more level, a random odd size, one over 2^30):
 * each output poisoned and guarded, compared element for element on the
 * device with the host's scan, the device total exactly. Then the
 * __restrict__ example, and errors planted in the outputs, which the
 * checks must catch.
 */
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "hx_bench.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "scan_lab.h"
#include "singlepass_scan.cuh"

/* ---- Inputs ----------------------------------------------------------- */

int randomHigh(size_t n)
{
    return n > 0 && (size_t)INT_MAX / n < 7 ? (int)((size_t)INT_MAX / n) : 7;
}

typedef enum { RANDOM, ONES, ZEROS, LARGEST, WRAPS, INPUTS } Input;
static const char *const inputName[INPUTS] = {
    "random", "all ones", "all zeros", "largest (total INT_MAX)",
    "any int (sums wrap)"};

/* RANDOM: uniform in [0, randomHigh(n)]. LARGEST: INT_MAX spread evenly,
 * the largest total that fits. WRAPS: any int, so the sums wrap modulo
 * 2^32: only the single pass promises that (the course scan and CUB are
 * held to totals that fit). */
static void fillInput(Input k, int *a, size_t n, uint64_t seed)
{
    if (k == RANDOM) hx_fill_uniform(a, n, 0, randomHigh(n), seed);
    if (k == ONES || k == ZEROS) hx_fill_const(a, n, k == ONES);
    if (k == LARGEST) hx_fill_spread(a, n, INT_MAX);
    if (k == WRAPS) hx_fill_uniform(a, n, INT_MIN, INT_MAX, seed);
}

void labOpenRandom(size_t n, uint64_t seed)
{
    int *in = (int *)hx_host_alloc(n * sizeof(int));
    int *want = (int *)hx_host_alloc(n * sizeof(int));
    fillInput(RANDOM, in, n, seed);
    labOpen(n, 0, in, want, hx_scan_exclusive(in, want, n));
    free(in);
    free(want);
}

/* ---- The self-check --------------------------------------------------- */

int rowRuns(const Scan *s)
{
    return !(s->flags & (PIPED | RING)) || singlePassRingSmem(B.dev);
}

hx_size_plan labSizePlan(uint64_t seed)
{
    /* The production path's tile and grid; where that is the ring, the
     * piped loop's around its tile and grid too. */
    static size_t extra[6];
    size_t tile = 0, pipedTile = 0, k = 0;
    const SinglePassPath path = singlePassPathFor(B.dev, (size_t)1 << 30);
    const unsigned resident = singlePassResident(B.dev, path, &tile);
    if (path == SINGLE_PASS_RING) {
        const size_t g = (size_t)singlePassResident(
            B.dev, SINGLE_PASS_PIPED, &pipedTile) * pipedTile;
        for (size_t m : {pipedTile, g})
            for (size_t d = 0; d < 3; ++d) extra[k++] = m - 1 + d;
    }
    const hx_size_plan p = {tile, resident, SCAN_TILE, seed, extra, k};
    return p;
}


/* Every row, every way a caller or the GPU can make it harder. */
static const Scan checked[] = {
    {"scanExclusive", COURSE, NULL, 0},
    {"scanExclusive (tileGrid 3, grid 5)", COURSE, NULL, SMALL | OWN_TOTAL},
    {"scanInclusive", COURSE, NULL, INCL | OWN_TOTAL},
    {"scanInclusive (tileGrid 3, grid 5)", COURSE, NULL, INCL | SMALL},
    {"scanWith(scanTileHillisSteele) exclusive", WITH, scanTileHillisSteele,
     OWN_TOTAL},
    {"scanWith(scanTileHillisSteele) inclusive", WITH, scanTileHillisSteele,
     INCL},
    {"scanWith(scanTileHillisSteele) inclusive (tileGrid 3, grid 5)", WITH,
     scanTileHillisSteele, INCL | SMALL | OWN_TOTAL},
    {"scanWith(scanTileWarp) exclusive", WITH, scanTileWarp, 0},
    {"scanWith(scanTileWarp) exclusive (tileGrid 3, grid 5)", WITH,
     scanTileWarp, SMALL},
    {"scanWith(scanTileWarp) inclusive", WITH, scanTileWarp, INCL | OWN_TOTAL},
    {"cub::DeviceScan::ExclusiveSum", CUB, NULL, 0},
    {"singlePassScan exclusive", PASS, NULL, 0},
    {"singlePassScan inclusive", PASS, NULL, INCL},
    {"singlePassScan exclusive, in place", PASS, NULL, IN_PLACE},
    {"singlePassScan inclusive, in place, 3 blocks", PASS, NULL,
     INCL | IN_PLACE | SMALL},
    {"singlePassScan exclusive, 3 blocks", PASS, NULL, SMALL},
    {"singlePassScan exclusive, input misaligned (int loads)", PASS, NULL,
     SHIFTED},
    {"singlePassScan inclusive, stalled look-back", PASS, NULL,
     INCL | STALL},
    /* Where the production path is the ring (sm_90 and newer), the piped
     * loop (the sm_75/sm_80 path) is checked too, the same ways. */
    {"singlePassScan exclusive [piped]", PASS, NULL, PIPED},
    {"singlePassScan inclusive [piped]", PASS, NULL, INCL | PIPED},
    {"singlePassScan exclusive, in place [piped]", PASS, NULL,
     IN_PLACE | PIPED},
    {"singlePassScan inclusive, in place, 3 blocks [piped]", PASS, NULL,
     INCL | IN_PLACE | SMALL | PIPED},
    {"singlePassScan exclusive, 3 blocks [piped]", PASS, NULL,
     SMALL | PIPED},
    {"singlePassScan exclusive, input misaligned (int loads) [piped]", PASS,
     NULL, SHIFTED | PIPED},
    {"singlePassScan inclusive, stalled look-back [piped]", PASS, NULL,
     INCL | STALL | PIPED},
    /* The ring with its L2 prefetch the other way (where it runs). */
    {"singlePassScan exclusive [ring, other prefetch]", PASS, NULL,
     RING | OTHER_PF},
    {"singlePassScan inclusive, in place, 3 blocks [ring, other prefetch]",
     PASS, NULL, INCL | IN_PLACE | SMALL | RING | OTHER_PF},
    {"singlePassScan exclusive, input misaligned [ring, other prefetch]",
     PASS, NULL, SHIFTED | RING | OTHER_PF},
    {"singlePassScan inclusive, stalled look-back [ring, other prefetch]",
     PASS, NULL, INCL | STALL | RING | OTHER_PF},
};
static const size_t CHECKED = sizeof checked / sizeof checked[0];

/* ---- Your turn (your_turn.cu) ----------------------------------------- */

/* yourTileScan's rows: the first two once it is filled, all four once it
 * honours inclusive (yourTurnProbe). */
static const Scan yours[] = {
    {"scanWith(yourTileScan) exclusive", WITH, yourTileScan, QUARTER},
    {"scanWith(yourTileScan) exclusive (tileGrid 3, grid 5)", WITH,
     yourTileScan, QUARTER | SMALL | OWN_TOTAL},
    {"scanWith(yourTileScan) inclusive", WITH, yourTileScan,
     QUARTER | INCL | OWN_TOTAL},
    {"scanWith(yourTileScan) inclusive (tileGrid 3, grid 5)", WITH,
     yourTileScan, QUARTER | INCL | SMALL},
};

/* One launch of yourTileScan<<<1, SCAN_TILE / 4>>> on PROBE ones (two
 * tiles, the second partial), tileSums poisoned; got[] and sums[2] are
 * what it left. */
static const int PROBE = SCAN_TILE + 1;
static void probeOnce(int inclusive, int *got, int *sums)
{
    int *dData, *dSums;
    hx_fill_const(got, PROBE, 1);
    HX_CHECK(cudaMalloc(&dData, PROBE * sizeof(int)));
    HX_CHECK(cudaMalloc(&dSums, 2 * sizeof(int)));
    HX_CHECK(cudaMemcpy(dData, got, PROBE * sizeof(int),
                        cudaMemcpyHostToDevice));
    HX_CHECK(cudaMemset(dSums, HX_POISON_BYTE, 2 * sizeof(int)));
    yourTileScan<<<1, SCAN_TILE / 4>>>(dData, PROBE, dSums, inclusive);
    HX_CHECK_LAUNCH("yourTileScan");
    HX_CHECK(cudaMemcpy(got, dData, PROBE * sizeof(int),
                        cudaMemcpyDeviceToHost));
    HX_CHECK(cudaMemcpy(sums, dSums, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    HX_CHECK(cudaFree(dSums));
    HX_CHECK(cudaFree(dData));
}

/* How many of yours[] run: 0 while the probe's ones and poisoned sums
 * come back unchanged (untouched), 2 while inclusive gives the exclusive
 * scan of each tile (i % SCAN_TILE), else 4. Probed once, said once. */
static int yourTurnProbe(void)
{
    static int rows = -1;
    if (rows >= 0) return rows;
    int got[PROBE], sums[2], same = 1;
    probeOnce(0, got, sums);
    for (int i = 0; i < PROBE; ++i) same &= got[i] == 1;
    rows = same && sums[0] == HX_POISON && sums[1] == HX_POISON ? 0 : 2;
    if (rows == 0) {
        printf("your turn: yourTileScan not yet attempted (your_turn.cu)\n");
        return rows;
    }
    probeOnce(1, got, sums);
    same = 1;
    for (int i = 0; i < PROBE; ++i) same &= got[i] == i % SCAN_TILE;
    rows = same ? 2 : 4;
    if (same)
        printf("your turn: yourTileScan inclusive not yet attempted (it "
               "returns the exclusive scan)\n");
    return rows;
}

int yourTurnRows(hx_row rows[], const Scan timed[], int k)
{
    const int yoursToo = yourTurnProbe() > 0;
    int m = 0;
    for (int j = 0; j < k; ++j) {
        if (!rowRuns(&timed[j])) continue;
        rows[m++] = rowOf(&timed[j]);
        if (yoursToo && timed[j].tile == scanTileWarp) {
            static const Scan row = {"scanWith(yourTileScan)", WITH,
                                     yourTileScan, QUARTER};
            rows[m++] = rowOf(&row);
        }
    }
    return m;
}

/* Past 2^26 only the plain course scans and single passes run: the other
 * rows are proven at the smaller sizes, and a 3-block grid over millions
 * of tiles would take seconds a run. */
static int runsOn(const Scan *s, Input k, int huge)
{
    if (!rowRuns(s) || (k == WRAPS && s->kind != PASS)) return 0;
    return !huge || ((s->kind == COURSE || s->kind == PASS) &&
                     !(s->flags & (SMALL | SHIFTED | STALL)));
}

/* Every row on every input at n. HX_EXIT_OK also when n was skipped (not
 * enough memory: a line says so). */
static int checkSize(size_t n, uint64_t seed)
{
    const int huge = n > ((size_t)1 << 26);
    if (!hx_bench_fits(&B, n, labBytes(n, huge ? NULL : &B),
                       2 * n * sizeof(int)))
        return HX_EXIT_OK;
    int *in = (int *)hx_host_alloc(n * sizeof(int));
    int *want = (int *)hx_host_alloc(n * sizeof(int));
    int rc = HX_EXIT_OK;
    for (int k = 0; k < INPUTS && rc == HX_EXIT_OK; ++k) {
        if (huge && k == WRAPS) continue;
        fillInput((Input)k, in, n, seed + k);
        labOpen(n, !huge, in, want, hx_scan_exclusive(in, want, n));
        char label[160];
        snprintf(label, sizeof label, "n=%zu %s (seed %llu):", n,
                 inputName[k], (unsigned long long)(seed + k));
        int ran = 0;
        const size_t rows = CHECKED + yourTurnProbe();
        for (size_t j = 0; j < rows && rc == HX_EXIT_OK; ++j) {
            const Scan *s = j < CHECKED ? &checked[j] : &yours[j - CHECKED];
            if (!runsOn(s, (Input)k, huge)) continue;
            const hx_row r = rowOf(s);
            rc = hx_bench_check_row(&B, &r, label) ? HX_EXIT_FAIL : rc;
            ++ran;
        }
        char shape[160];
        if (rc == HX_EXIT_OK)
            printf("  n=%-10zu %-24s pass (%2d rows; %s; total %d)\n", n,
                   inputName[k], ran, labShape(shape, sizeof shape),
                   (int)(unsigned)B.total_want);
        labClose();
    }
    free(in);
    free(want);
    return rc;
}

/* The __restrict__ example: both kernels on distinct buffers, and
 * chunkScan in place, must do what their source says; what
 * chunkScanRestrict gives in place is printed, never judged. */
static int checkAliasing(uint64_t seed)
{
    const size_t chunks = 512, n = chunks * CHUNK;
    int *in = (int *)hx_host_alloc(n * sizeof(int));
    int *incl = (int *)hx_host_alloc(n * sizeof(int));
    int *got = (int *)hx_host_alloc(n * sizeof(int));
    int *dIn, *dOut, rc = HX_EXIT_OK;
    hx_fill_uniform(in, n, 0, 1000, seed);
    for (size_t c = 0; c < chunks; ++c)
        hx_scan_inclusive(in + c * CHUNK, incl + c * CHUNK, CHUNK);
    HX_CHECK(cudaMalloc(&dIn, n * sizeof(int)));
    HX_CHECK(cudaMalloc(&dOut, n * sizeof(int)));
    printf("__restrict__ broken on purpose: chunks of %d ints scanned "
           "inclusive (exclusive, then each input added back), n = %zu\n",
           CHUNK, n);
    for (int restricted = 0; restricted < 2; ++restricted)
        for (int inPlace = 0; inPlace < 2; ++inPlace) {
            int *src = inPlace ? dOut : dIn;
            HX_CHECK(cudaMemcpy(src, in, n * sizeof(int),
                                cudaMemcpyHostToDevice));
            if (!inPlace)
                HX_CHECK(cudaMemset(dOut, HX_POISON_BYTE, n * sizeof(int)));
            if (restricted)
                chunkScanRestrict<<<4, 128>>>(src, dOut, chunks, 1);
            else
                chunkScan<<<4, 128>>>(src, dOut, chunks, 1);
            HX_CHECK_LAUNCH("chunkScan");
            HX_CHECK(cudaMemcpy(got, dOut, n * sizeof(int),
                                cudaMemcpyDeviceToHost));
            size_t bad = 0, doubled = 0;
            for (size_t i = 0; i < n; ++i) {
                bad += got[i] != incl[i];
                doubled += got[i] == 2 * (incl[i] - in[i]);
            }
            const char *name = restricted ? "chunkScanRestrict" : "chunkScan";
            const char *where = inPlace ? "in place" : "in -> out";
            if (inPlace && restricted) {
                printf("  %-18s %-9s not defined: %zu of %zu slots differ "
                       "from the inclusive scan, %zu equal 2 x the "
                       "exclusive prefix\n", name, where, bad, n, doubled);
                continue;
            }
            const size_t wrong = inPlace ? n - doubled : bad;
            printf("  %-18s %-9s %s (%zu of %zu slots %s)\n", name, where,
                   wrong ? "FAIL" : "as the source says", wrong, n,
                   inPlace ? "differ from 2 x the exclusive prefix"
                           : "differ from the inclusive scan");
            rc = wrong ? HX_EXIT_FAIL : rc;
        }
    HX_CHECK(cudaFree(dOut));
    HX_CHECK(cudaFree(dIn));
    free(in);
    free(incl);
    free(got);
    return rc;
}

/* Errors planted in the outputs of the production row, a course row and
 * CUB's must each be caught: a check that cannot fail checks nothing. */
static int checkTheChecks(uint64_t seed)
{
    const size_t n = 100003;
    labOpenRandom(n, seed);
    printf("the checks, given planted errors at n = %zu:\n", n);
    int rc = HX_EXIT_OK;
    /* single pass, course, CUB; the piped loop and the ring the other
     * prefetch way, where the ring runs */
    for (size_t j : {11, 12, 2, 10, 18, 25}) {
        if (!rowRuns(&checked[j])) continue;
        const hx_row r = rowOf(&checked[j]);
        if (hx_bench_check_the_check(&B, &r) != HX_EXIT_OK) rc = HX_EXIT_FAIL;
    }
    labClose();
    return rc;
}

/* --check: every size of the harness's list (or --n alone), every input,
 * every row; then the __restrict__ example and the planted errors. */
int selfCheck(const hx_opts *o)
{
    singlePassRingMinN = 1;   /* the ring at every size, where it runs */
    const hx_size_plan plan = labSizePlan(o->seed);
    size_t sizes[64], count = o->n_set ? 1 : hx_check_sizes(&plan, sizes, 64);
    if (o->n_set) sizes[0] = o->n;
    printf("self-check, seed %llu: every scan compared element for element "
           "with the host's (on the device), device totals exactly (modulo "
           "2^32); outputs poisoned and guarded\n",
           (unsigned long long)o->seed);
    if (o->n_set) printf("size: --n %zu only\n", o->n);
    else hx_check_sizes_print(sizes, count, &plan, stdout);
    yourTurnProbe();
    int rc = HX_EXIT_OK;
    for (size_t i = 0; i < count && rc == HX_EXIT_OK; ++i)
        rc = checkSize(sizes[i], o->seed + 16 * i);
    if (rc == HX_EXIT_OK) rc = checkAliasing(o->seed);
    if (rc == HX_EXIT_OK) rc = checkTheChecks(o->seed);
    if (rc == HX_EXIT_OK) printf("self-check: pass\n");
    return rc;
}

