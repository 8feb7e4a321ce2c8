/* tile_scan.cu: the course scan (see tile_scan.h for the contract).
 *
 * Kernels:
 *   scanTile        work-efficient (up-sweep, down-sweep) scan of each
 *                   256-element tile in shared memory, in place; writes each
 *                   tile's total to tileSums
 *   addTileOffsets  adds the scanned total of the tiles before it to every
 *                   element of a tile (grid-stride)
 * Host:
 *   scanLevel       one level: the tile kernel, then (more than one tile) scan the
 *                   totals one level up and addTileOffsets
 */
#include "tile_scan.h"
#include "hx_cuda.h"

/* data is read and then written through the same pointer: the scan runs in
 * place. __restrict__ on data would be a true promise (within the kernel
 * the tile is reached through data alone; the promise breaks as soon as
 * an object modified through one pointer is also reached through another,
 * restricted or not), but it would buy nothing: the
 * kernel writes through data, so its loads cannot take the read-only
 * path. tileSums never overlaps data, and says so. */
__global__ void scanTile(int *data, size_t n, int *__restrict__ tileSums,
                         int inclusive)
{
    __shared__ int s[SCAN_TILE];
    const size_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    const int t = threadIdx.x;

    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i0 = tile * SCAN_TILE + t;
        const size_t i1 = i0 + SCAN_THREADS;
        /* Padding past n is 0, the identity, so a partial tile scans
         * like a full one. */
        const int a = i0 < n ? data[i0] : 0;
        const int b = i1 < n ? data[i1] : 0;
        s[t] = a;
        s[t + SCAN_THREADS] = b;

        /* Up-sweep: build partial sums in place up a balanced tree. Each
         * step reads what the previous step wrote in other threads' slots,
         * so every step starts with a barrier. */
        int offset = 1;
        for (int d = SCAN_TILE / 2; d > 0; d /= 2) {
            __syncthreads();
            if (t < d) {
                const int ai = offset * (2 * t + 1) - 1;
                const int bi = offset * (2 * t + 2) - 1;
                s[bi] += s[ai];
            }
            offset *= 2;
        }
        /* The root now holds the tile's total; only thread 0 touches it, and
         * the barrier makes the last up-sweep write visible to thread 0. */
        __syncthreads();
        int tileTotal = 0;
        if (t == 0) {
            tileTotal = s[SCAN_TILE - 1];
            s[SCAN_TILE - 1] = 0;    /* exclusive: the identity enters at the root */
        }
        /* Down-sweep: push prefixes back down; again each step needs the
         * previous step's writes, hence a barrier before each. */
        for (int d = 1; d < SCAN_TILE; d *= 2) {
            offset /= 2;
            __syncthreads();
            if (t < d) {
                const int ai = offset * (2 * t + 1) - 1;
                const int bi = offset * (2 * t + 2) - 1;
                const int left = s[ai];
                s[ai] = s[bi];
                s[bi] += left;
            }
        }
        /* Every thread reads two slots other threads wrote last. */
        __syncthreads();
        const int ea = s[t] + (inclusive ? a : 0);
        const int eb = s[t + SCAN_THREADS] + (inclusive ? b : 0);
        if (i0 < n) data[i0] = ea;
        if (i1 < n) data[i1] = eb;
        if (t == 0) tileSums[tile] = tileTotal;
        /* The next tile of this block's loop overwrites s: wait until every
         * thread has read its two slots. */
        __syncthreads();
    }
}

/* data in place again (as above); offsets[k] is the exclusive scan of the
 * tile totals, so tile k adds offsets[k]. */
__global__ void addTileOffsets(int *data, size_t n,
                               const int *__restrict__ offsets)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        data[i] += offsets[i / SCAN_TILE];
}

static size_t tilesOf(size_t n) { return (n + SCAN_TILE - 1) / SCAN_TILE; }

/* Level counts for n; returns the number of levels. */
static int levelCounts(size_t n, size_t count[SCAN_MAX_LEVELS])
{
    if (n == 0) return 0;
    int levels = 0;
    size_t c = n;
    for (;;) {
        count[levels++] = c;
        if (c <= SCAN_TILE) return levels;
        c = tilesOf(c);
    }
}

size_t scanPlanBytes(size_t n)
{
    size_t count[SCAN_MAX_LEVELS];
    const int levels = levelCounts(n, count);
    size_t ints = 1;                               /* the plan's total */
    for (int l = 0; l + 1 < levels; ++l) ints += count[l + 1];
    return ints * sizeof(int);
}

void scanPlanCreate(ScanPlan *plan, size_t n)
{
    *plan = ScanPlan();
    plan->n = n;
    plan->levels = levelCounts(n, plan->count);
    int *block = NULL;
    HX_CHECK(cudaMalloc(&block, scanPlanBytes(n)));
    plan->total = block;
    int *next = block + 1;
    for (int l = 0; l + 1 < plan->levels; ++l) {
        plan->sums[l + 1] = next;
        next += plan->count[l + 1];
    }
}

void scanPlanDestroy(ScanPlan *plan)
{
    if (plan->total) HX_CHECK(cudaFree(plan->total));
    *plan = ScanPlan();
}

int scanLaunches(const ScanPlan *plan)
{
    return plan->levels == 0 ? 0 : 2 * plan->levels - 1;
}

double scanMovedBytes(const ScanPlan *plan)
{
    double ints = 0;
    for (int l = 0; l < plan->levels; ++l) {
        const double c = (double)plan->count[l];
        const double tiles = (double)tilesOf(plan->count[l]);
        ints += (l + 1 < plan->levels ? 2 : 1) * (2 * c + tiles);
    }
    return ints * sizeof(int);
}

static unsigned capGrid(size_t want, unsigned chosen)
{
    if (chosen) return chosen;
    const size_t cap = 1u << 20;                   /* the loops stride past it */
    return (unsigned)(want < 1 ? 1 : (want > cap ? cap : want));
}

static void scanLevel(ScanPlan *plan, ScanTileKernel tileKernel,
                      unsigned tileThreads, int level, int *data, int *total,
                      int inclusive, cudaStream_t stream)
{
    const size_t n = plan->count[level];
    const size_t tiles = tilesOf(n);
    /* The top level is one tile: its total is the grand total. */
    int *tileSums = tiles == 1 ? total : plan->sums[level + 1];
    tileKernel<<<capGrid(tiles, plan->tileGrid), tileThreads, 0, stream>>>(
        data, n, tileSums, inclusive);
    HX_CHECK_LAUNCH("tile scan");
    if (tiles == 1) return;
    /* The totals are scanned exclusive whatever this level is: tile k
     * needs the sum of tiles 0..k-1. */
    scanLevel(plan, tileKernel, tileThreads, level + 1, plan->sums[level + 1],
              total, 0, stream);
    addTileOffsets<<<capGrid(tilesOf(n), plan->grid), SCAN_TILE, 0, stream>>>(
        data, n, plan->sums[level + 1]);
    HX_CHECK_LAUNCH("addTileOffsets");
}

void scanWith(ScanPlan *plan, ScanTileKernel tileKernel, unsigned tileThreads,
              int *data, int *total, int inclusive, cudaStream_t stream)
{
    if (!total) total = plan->total;
    if (plan->n == 0) {
        HX_CHECK(cudaMemsetAsync(total, 0, sizeof(int), stream));
        return;
    }
    scanLevel(plan, tileKernel, tileThreads, 0, data, total, inclusive, stream);
}

void scanExclusive(ScanPlan *plan, int *data, int *total, cudaStream_t stream)
{
    scanWith(plan, scanTile, SCAN_THREADS, data, total, 0, stream);
}

void scanInclusive(ScanPlan *plan, int *data, int *total, cudaStream_t stream)
{
    scanWith(plan, scanTile, SCAN_THREADS, data, total, 1, stream);
}
