/* lab.cu: day 33's buffers, inputs, references, own checks, library rows
 * and the loops of the self-check and the sweep (lab.h says what each
 * promises). Host code, and CUB's kernels, which compile in compaction.cu's
 * translation unit (the Makefile includes this file there, as it does in
 * dev/compaction_variants.cu's).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <thread>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include "hx_check.h"
#include "hx_gpu.h"
#include "hx_input.h"
#include "hx_mix.h"
#include "hx_ref.h"
#include "lab.h"
#include "lookback.cuh"
#include "predicates.cuh"

Lab L;

/* ---- The library rows --------------------------------------------------- */

/* One call serves the size query (temp = NULL) and the run, so the two can
 * never disagree on the types CUB sizes its storage for. DeviceSelect::If
 * counts in 64 bits whatever it is given; DevicePartition::If takes the
 * type of n, and int holds every n a lab accepts. */
static cudaError_t cubSelect(void *temp, size_t *bytes, size_t n)
{
    return cub::DeviceSelect::If(temp, *bytes, (const int *)L.in, L.out.data,
                                 L.counts + C_SELECT, (int64_t)n, NonZero(),
                                 (cudaStream_t)0);
}

static cudaError_t cubPartition(void *temp, size_t *bytes, size_t n)
{
    return cub::DevicePartition::If(temp, *bytes, (const int *)L.par,
                                    L.out.data, L.counts + C_PARTITION,
                                    (int)n, IsEven(), (cudaStream_t)0);
}

static size_t cubBytesFor(size_t n)
{
    size_t select = 0, partition = 0;
    HX_CHECK(cubSelect(NULL, &select, n));
    HX_CHECK(cubPartition(NULL, &partition, n));
    return select > partition ? select : partition;
}

void runCubSelect(void *)
{
    size_t bytes = L.cubBytes;
    HX_CHECK(cubSelect(L.cubTemp, &bytes, L.n));
}

void runCubPartition(void *)
{
    size_t bytes = L.cubBytes;
    HX_CHECK(cubPartition(L.cubTemp, &bytes, L.n));
}

/* ---- Buffers ------------------------------------------------------------ */

static size_t stateBytes(size_t n)
{
    return sizeof(unsigned long long) + lookbackBytes(n / LAB_TILE + 1);
}

/* Each n-int buffer rounded up to 64 ints, so that every one starts on a
 * 256-byte boundary of one allocation. */
static size_t stride(size_t n) { return (n + 63) & ~(size_t)63; }

size_t labBytes(size_t n, void *)
{
    return (LAB_DEVICE_INTS * stride(n) + 4 * HX_GUARD_WORDS + COUNTS) *
               sizeof(int) +
           scanPlanBytes(n) + stateBytes(n) + cubBytesFor(n);
}

static int hostFits(size_t n)
{
    return LAB_HOST_INTS * stride(n) * sizeof(int) <= hx_host_available();
}

void labBegin(const hx_device *dev, const hx_opts *o, const char *lab)
{
    memset(&L, 0, sizeof L);
    L.dev = dev;
    L.say = stdout;
    hx_bench_open(&L.b, dev, o, lab);
}

void labEnd(double start)
{
    labClose();
    hx_bench_wall(&L.b, start);
    hx_bench_close(&L.b);
}

int labOpen(size_t cap)
{
    const size_t need = labBytes(cap, NULL), s = stride(cap);
    if (!hx_fits(L.dev, need) || !hostFits(cap)) {
        fprintf(stderr, "%s: n = %zu needs %.1f MiB of device memory (%.1f "
                "MiB free) and %.1f MiB of host memory (try a smaller --n)\n",
                L.b.lab, cap, need / 1048576.0, L.dev->free_mem / 1048576.0,
                LAB_HOST_INTS * s * sizeof(int) / 1048576.0);
        return HX_EXIT_NOMEM;
    }
    int *slab = NULL;
    HX_CHECK(cudaMalloc(&slab, (3 + WANTS) * s * sizeof(int)));
    L.in = slab;
    L.par = slab + s;
    L.map = slab + 2 * s;
    for (int w = 0; w < WANTS; ++w) L.want[w] = slab + (3 + w) * s;
    hx_guarded_alloc(&L.out, cap);
    hx_guarded_alloc(&L.rank, cap);
    HX_CHECK(cudaMalloc(&L.counts, COUNTS * sizeof(int)));
    HX_CHECK(cudaMalloc(&L.state, stateBytes(cap)));
    L.cubBytes = cubBytesFor(cap);
    HX_CHECK(cudaMalloc(&L.cubTemp, L.cubBytes ? L.cubBytes : 1));
    L.host = (int *)hx_host_alloc(LAB_HOST_INTS * s * sizeof(int));
    L.hin = L.host;
    L.hpar = L.host + s;
    for (int k = 0; k < 4; ++k) L.href[k] = L.host + (2 + k) * s;
    L.hgot = L.host + 6 * s;
    L.hwant = L.href[1];
    L.open = 1;
    return HX_EXIT_OK;
}

void labClose(void)
{
    if (!L.open) return;
    scanPlanDestroy(&L.plan);
    hx_guarded_free(&L.out);
    hx_guarded_free(&L.rank);
    HX_CHECK(cudaFree(L.in));
    HX_CHECK(cudaFree(L.counts));
    HX_CHECK(cudaFree(L.state));
    HX_CHECK(cudaFree(L.cubTemp));
    free(L.host);
    L.open = 0;
    hx_bench_bind(&L.b, NULL, NULL, 0);
}

void labSetGrid(unsigned g)
{
    L.grid = g ? g : hx_grid_for(L.dev, L.n, LAB_BLOCK);
    L.plan.tileGrid = L.plan.grid = L.passGrid = g;
}

void labResize(size_t n)
{
    scanPlanDestroy(&L.plan);
    L.n = n;
    hx_guarded_resize(&L.out, n);
    hx_guarded_resize(&L.rank, n);
    scanPlanCreate(&L.plan, n);
    labSetGrid(0);
    hx_bench_bind(&L.b, L.in, &L.out, n);
}

/* ---- Inputs and references ---------------------------------------------- */

static void upload(int *dst, const int *src)
{
    HX_CHECK(cudaMemcpy(dst, src, L.n * sizeof(int), cudaMemcpyHostToDevice));
}

static void download(int *dst, const int *src)
{
    HX_CHECK(cudaMemcpy(dst, src, L.n * sizeof(int), cudaMemcpyDeviceToHost));
}

/* Which elements are kept: those of an hx_shape (as hx_fill_shape keeps
 * them), or each with probability keepBelow / 2^32 (shape < 0). */
struct InputSpec {
    uint64_t seed;
    size_t n;
    int shape;
    uint64_t keepBelow;
};

__device__ bool keptAt(const InputSpec &s, size_t i, uint64_t bits)
{
    switch (s.shape) {
    case HX_SHAPE_ALL_KEPT: return true;
    case HX_SHAPE_NONE_KEPT: return false;
    case HX_SHAPE_LAST_ONLY: return i + 1 == s.n;
    case HX_SHAPE_ALTERNATING: return i % 2 == 0;
    case HX_SHAPE_SORTED: return i >= s.n / 2;
    default: return (bits >> 32) < s.keepBelow;
    }
}

/* Element i of each input from the low 32 bits of its draw, scaled by a
 * multiply: compaction's a non-zero value in [-LAB_VMAX, LAB_VMAX] where
 * kept, else 0; the partition's 2k (kept) or 2k + 1, k in
 * [-LAB_VMAX / 2, LAB_VMAX / 2). Neighbours differ, so an order error
 * moves a value that shows; no value is HX_POISON or HX_GUARD_WORD. */
__global__ void fillInputs(int *__restrict__ in, int *__restrict__ par,
                           InputSpec s)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < s.n;
         i += stride) {
        const uint64_t a = hx_bits_at(s.seed, i), b = hx_bits_at(s.seed + 1, i);
        const int u = (int)(((uint64_t)(uint32_t)a * (2 * LAB_VMAX)) >> 32);
        in[i] = (u - LAB_VMAX + (u >= LAB_VMAX)) & -(int)keptAt(s, i, a);
        const int k = (int)(((uint64_t)(uint32_t)b * LAB_VMAX) >> 32) - LAB_VMAX / 2;
        par[i] = 2 * k + 1 - (int)keptAt(s, i, b);
    }
}

void labInputs(double keep, int shape, uint64_t seed)
{
    const size_t n = L.n;
    const InputSpec spec = {seed, n, shape, (uint64_t)(keep * 4294967296.0)};
    int **h = L.href;
    if (n) {
        fillInputs<<<hx_grid_for(L.dev, n, LAB_BLOCK), LAB_BLOCK>>>(L.in, L.par,
                                                                   spec);
        HX_CHECK_LAUNCH("fillInputs");
    }
    download(L.hin, L.in);
    download(L.hpar, L.par);
    /* Three host threads build the references at once. */
    long long kept = 0, evens = 0;
    std::thread ranks([&] {
        hx_mark(L.hin, h[0], n, hx_pred_nonzero);
        kept = hx_scan_exclusive(h[0], h[1], n);
    });
    std::thread compact([&] {
        hx_fill_const(h[2], n, HX_POISON);   /* nothing past the survivors */
        hx_compact(L.hin, h[2], n, hx_pred_nonzero);
    });
    std::thread partition([&] {
        evens = (long long)hx_partition(L.hpar, h[3], n, hx_pred_even);
    });
    ranks.join();
    compact.join();
    partition.join();
    L.kept = kept;
    L.evens = evens;
    upload(L.want[W_FLAGS], h[0]);
    upload(L.want[W_RANKS], h[1]);
    upload(L.want[W_COMPACT], h[2]);
    upload(L.want[W_PARTITION], h[3]);
    /* CUB's partition writes the rejects in reverse order. */
    for (size_t i = (size_t)evens, j = n; i + 1 < j; ++i, --j) {
        const int t = h[3][i];
        h[3][i] = h[3][j - 1];
        h[3][j - 1] = t;
    }
    upload(L.want[W_CUB], h[3]);
}

/* The gather and scatter map: a pseudo-random permutation of [0, n) that
 * can be evaluated, and inverted, at any index, so that the device makes
 * the map and the host its references, each in one streaming pass (a
 * Fisher-Yates shuffle, and references through it, would take the host a
 * minute at n = 2^28): three rounds of (multiply by an odd constant, xor
 * the high half into the low half) on the smallest power-of-two domain
 * holding n, walked along its cycle until the result is below n. Each
 * round is a bijection, so the whole is; the inverse runs the rounds
 * backwards. */
struct Perm {
    size_t n;
    unsigned shift;   /* x ^ (x >> shift) is its own inverse on the domain */
    uint64_t mask, key;
    uint64_t mul[3], inv[3];   /* odd multipliers, their inverses mod 2^64 */
};

static Perm makePerm(size_t n, uint64_t seed)
{
    Perm p;
    unsigned bits = 0;
    while (bits < 63 && ((uint64_t)1 << bits) < n) ++bits;
    p.n = n;
    p.shift = bits / 2 + 1;
    p.mask = ((uint64_t)1 << bits) - 1;
    p.key = hx_mix64(seed) & p.mask;
    for (int r = 0; r < 3; ++r) {
        const uint64_t a = hx_mix64(seed + 1 + (uint64_t)r) | 1;
        uint64_t x = a;                        /* right to 3 bits: a*a = 1 mod 8 */
        for (int k = 0; k < 5; ++k) x *= 2 - a * x;   /* Newton: 6, 12, .. 96 */
        p.mul[r] = a;
        p.inv[r] = x;
    }
    return p;
}

__host__ __device__ inline size_t permAt(const Perm &p, size_t i)
{
    uint64_t x = i;
    do {
        x ^= p.key;
        for (int r = 0; r < 3; ++r) {
            x = (x * p.mul[r]) & p.mask;
            x ^= x >> p.shift;
        }
    } while (x >= p.n);
    return (size_t)x;
}

__host__ __device__ inline size_t permInverseAt(const Perm &p, size_t j)
{
    uint64_t x = j;
    do {
        for (int r = 2; r >= 0; --r) {
            x ^= x >> p.shift;
            x = (x * p.inv[r]) & p.mask;
        }
        x ^= p.key;
    } while (x >= p.n);
    return (size_t)x;
}

/* in[i] = values(i), a permutation of [0, 2^31): every value differs (a
 * read from a wrong index shows) and none is negative (never HX_POISON or
 * HX_GUARD_WORD); map[i] = perm(i); identity[i] = i; pairs[i] = perm(i)
 * rounded down to even. */
__global__ void fillMaps(int *in, int *map, int *identity, int *pairs,
                         Perm perm, Perm values)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < perm.n;
         i += stride) {
        const size_t j = permAt(perm, i);
        in[i] = (int)permAt(values, i);
        map[i] = (int)j;
        identity[i] = (int)i;
        pairs[i] = (int)(j & ~(size_t)1);
    }
}

/* in: values; map: the permutation; W_IDENTITY the identity map; W_PAIRS
 * map[i] rounded down to even (every even slot has two writers, one where
 * it is the last slot, and no odd slot any); W_GATHER (in[perm(i)]) and
 * W_SCATTER (in[perm^-1(j)]) the references, built on the host from the
 * formulas, not through the maps; the scatter's kept in L.hwant for
 * labPairs. */
void labMaps(uint64_t seed)
{
    const size_t n = L.n;
    const Perm perm = makePerm(n, seed), values = makePerm((size_t)1 << 31, seed + 7);
    int *gathered = L.href[0], *scattered = L.hwant;
    if (n) {
        fillMaps<<<hx_grid_for(L.dev, n, LAB_BLOCK), LAB_BLOCK>>>(
            L.in, L.map, L.want[W_IDENTITY], L.want[W_PAIRS], perm, values);
        HX_CHECK_LAUNCH("fillMaps");
    }
    std::thread g([&] {
        for (size_t i = 0; i < n; ++i)
            gathered[i] = (int)permAt(values, permAt(perm, i));
    });
    for (size_t j = 0; j < n; ++j)
        scattered[j] = (int)permAt(values, permInverseAt(perm, j));
    g.join();
    upload(L.want[W_GATHER], gathered);
    upload(L.want[W_SCATTER], scattered);
}

/* ---- The day's own checks ----------------------------------------------- */

/* Values lie in [-LAB_VMAX, LAB_VMAX], so the survivors are counted in bins
 * and each value of out[0..kept) takes one back: a value with none left is
 * not a survivor (it is extra, and one survivor is missing). */
static int bins[2 * LAB_VMAX + 1];

int labSameValues(const hx_bench *b, const hx_row *, const char *what)
{
    const size_t n = L.n, kept = (size_t)L.kept;
    size_t stray = 0, past = 0, first = n;
    download(L.hgot, L.out.data);
    memset(bins, 0, sizeof bins);
    for (size_t i = 0; i < n; ++i) bins[L.hin[i] + LAB_VMAX] += L.hin[i] != 0;
    for (size_t i = 0; i < n; ++i) {
        const int v = L.hgot[i];
        const int ok = i < kept ? v >= -LAB_VMAX && v <= LAB_VMAX &&
                                      bins[v + LAB_VMAX]-- > 0
                                : v == HX_POISON;
        if (!ok && first == n) first = i;
        stray += !ok && i < kept;
        past += !ok && i >= kept;
    }
    if (first == n) {
        hx_mismatch m;
        hx_gpu_compare(L.out.data, L.want[W_COMPACT], NULL, kept, b->scratch,
                       &m, 0);
        L.disorder = m.bad;
        return 0;
    }
    fprintf(L.say, "%s: FAIL at n=%zu: first bad index %zu: got %d; %zu of "
            "the %zu slots before the count hold no survivor left, %zu slots "
            "past it written\n", what, n, first, L.hgot[first], stray, kept,
            past);
    return 1;
}

int labPairs(const hx_bench *, const hx_row *, const char *what)
{
    const size_t n = L.n;
    size_t bad = 0, first = 0;
    download(L.hgot, L.out.data);
    for (size_t j = 0; j < n; ++j) {
        const int g = L.hgot[j];
        const int ok = j % 2 ? g == HX_POISON
                             : g == L.hwant[j] ||
                                   (j + 1 < n && g == L.hwant[j + 1]);
        if (!ok && bad++ == 0) first = j;
    }
    if (bad == 0) return 0;
    fprintf(L.say, "%s: FAIL at n=%zu: first bad index %zu: got %d, want %s; "
            "%zu of n slots bad\n", what, n, first, L.hgot[first],
            first % 2 ? "poison (no element maps there)"
                      : "the value of one of its two writers", bad);
    return 1;
}

int labPlanted(const hx_row *r, const char *what, size_t at, long from,
               int value)
{
    hx_guarded_poison(&L.out);
    r->run(r->ctx);
    if (from >= 0)
        HX_CHECK(cudaMemcpy(&value, L.out.data + from, sizeof value,
                            cudaMemcpyDeviceToHost));
    HX_CHECK(cudaMemcpy(L.out.data + at, &value, sizeof value,
                        cudaMemcpyHostToDevice));
    FILE *quiet = fopen("/dev/null", "w");
    L.say = quiet ? quiet : stdout;
    const int seen = r->check(&L.b, r, what);
    L.say = stdout;
    if (quiet) fclose(quiet);
    printf("planted %s: %s\n", what, seen ? "caught" : "MISSED");
    return seen;
}

/* ---- The self-check's loop ---------------------------------------------- */

/* One size: returns 0 or 1 (the bench has printed the failure). */
static int checkSize(const LabCheck *c, size_t n, uint64_t seed, int full)
{
    const unsigned grids[2] = {0, LAB_SMALL_GRID};
    hx_row rows[HX_BENCH_MAX_ROWS];
    char context[96];
    int k = 0;
    labResize(n);
    for (int s = -1; s < (full ? (int)HX_SHAPE_COUNT : 0); ++s) {
        labInputs(0.5, s, seed + 2 + (uint64_t)s);
        k = c->rows(rows);
        for (int g = 0; g < 1 + full; ++g) {
            labSetGrid(grids[g]);
            snprintf(context, sizeof context, "n=%zu %s grid %u", n,
                     s < 0 ? "survival 0.5" : hx_shape_name((hx_shape)s),
                     L.grid);
            if (hx_bench_check_rows(&L.b, rows, k, context)) return 1;
        }
    }
    for (int g = 0; full && c->maps && g < 2; ++g) {
        if (g == 0) labMaps(seed);
        labSetGrid(grids[g]);
        snprintf(context, sizeof context, "n=%zu maps grid %u", n, L.grid);
        if (hx_bench_check_rows(&L.b, rows, c->maps(rows), context)) return 1;
    }
    labSetGrid(0);
    printf("n=%zu: ok: %d rows at %s%s\n", n, k,
           full ? "every input shape, on the automatic grids and on 3 blocks"
                : "survival 0.5",
           full && c->maps ? "; gather and scatter" : "");
    fflush(stdout);
    return 0;
}

int labSelfCheck(const LabCheck *c)
{
    const hx_opts *o = L.b.opts;
    size_t sizes[64], count = 1, fit = 0;
    sizes[0] = o->n;
    if (!o->n_set) {
        count = hx_check_sizes(&c->sizes, sizes, 64);
        if (count > 64) count = 64;
        hx_check_sizes_print(sizes, count, &c->sizes, stdout);
    }
    while (fit < count &&
           hx_bench_fits(&L.b, sizes[fit], labBytes(sizes[fit], NULL),
                         LAB_HOST_INTS * stride(sizes[fit]) * sizeof(int)))
        ++fit;
    for (size_t k = fit + 1; k < count; ++k)
        printf("  n=%zu: skipped too\n", sizes[k]);
    const int rc = labOpen(fit && sizes[fit - 1] > 1000 ? sizes[fit - 1] : 1000);
    if (rc != HX_EXIT_OK) return rc;
    labResize(1000);
    int failed = c->planted();
    for (size_t k = 0; k < fit && !failed; ++k)
        failed = checkSize(c, sizes[k], o->seed + 100 * k,
                           sizes[k] < HX_HUGE_N);
    if (failed) printf("self-check: FAILED\n");
    else printf("self-check: all %zu sizes passed\n", fit);
    return failed ? HX_EXIT_FAIL : HX_EXIT_OK;
}

/* ---- The sweep's loop --------------------------------------------------- */

/* One step: rows(r) at n and keep, checked, timed and written. */
static int sweepStep(int (*rows)(hx_row *r), size_t n, double keep, FILE *csv)
{
    hx_row r[HX_BENCH_MAX_ROWS];
    if (n != L.n) labResize(n);
    labInputs(keep, -1, L.b.opts->seed);
    const int rc = hx_bench_measure(&L.b, r, rows(r), 0);
    if (rc == HX_EXIT_OK) hx_bench_sweep_line(&L.b, csv, keep);
    fflush(stdout);
    return rc;
}

int labSweep(size_t n, int (*rows)(hx_row *r), const char *csv)
{
    const char *path = L.b.opts->csv ? L.b.opts->csv : csv;
    char inFolder[4096];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(inFolder, sizeof inFolder, "%s/%s", path, csv);
        path = inFolder;
    }
    const size_t top = hx_bench_sweep_max(L.dev, labBytes, NULL,
                                          LAB_HOST_INTS * sizeof(int));
    int rc = labOpen(top ? top : (size_t)1 << 10);
    if (rc != HX_EXIT_OK) return rc;
    FILE *f = hx_bench_csv_open(path, L.b.lab);
    if (!f) return HX_EXIT_USAGE;
    if (n > top) n = top;
    printf("sweep into %s: n = 2^10 to %zu at survival 0.5, then survival "
           "0.0, 0.1, ..., 1.0 at n = %zu, a line each\n", path, top, n);
    for (size_t m = (size_t)1 << 10; m <= top && rc == HX_EXIT_OK; m *= 2)
        rc = sweepStep(rows, m, 0.5, f);
    for (int s = 0; s <= 10 && rc == HX_EXIT_OK; ++s)
        rc = sweepStep(rows, n, s / 10.0, f);
    fclose(f);
    return rc;
}
