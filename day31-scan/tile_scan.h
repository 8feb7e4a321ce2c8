/* tile_scan.h: the course scan, shared by day 31 and every day 33 program.
 *
 * A tile scan in shared memory (SCAN_TILE elements per tile) run in place,
 * applied level by level: scan every tile and keep its total, scan the
 * totals the same way, add them back, until one tile holds the totals.
 * Works for any n from 0 to 2^31 - 1 (four levels at most: 256^4 = 2^32).
 *
 * Contract of every scan below:
 * - data is input and output: in place, on the given stream;
 * - every prefix must fit in int (the caller's job: the day 31 check uses
 *   values whose total fits);
 * - the grand total (sum of the whole input) is written to the device int
 *   *total, where the next kernel reads it without a copy to the host;
 * - nothing is copied to the host and nothing synchronises.
 */
#ifndef TILE_SCAN_H
#define TILE_SCAN_H

#include <stddef.h>
#include <cuda_runtime.h>

#define SCAN_TILE 256                  /* elements per tile */
#define SCAN_THREADS (SCAN_TILE / 2)   /* each thread owns two elements */
#define SCAN_MAX_LEVELS 6

typedef struct {
    size_t n;                          /* elements this plan scans */
    int levels;                        /* tile-scan launches (0 when n = 0) */
    size_t count[SCAN_MAX_LEVELS];     /* elements at each level: count[0] = n,
                                          count[l+1] = tiles of level l */
    int *sums[SCAN_MAX_LEVELS];        /* sums[l+1]: the tile totals of level l
                                          (device); sums[0] unused */
    int *total;                        /* device int: the plan's own total */
    unsigned tileGrid;                 /* blocks for scanTile (0: one per tile,
                                          capped); any value >= 1 is correct */
    unsigned grid;                     /* blocks for addTileOffsets (0: enough
                                          to cover n, capped); any value works */
} ScanPlan;

/* Device bytes a plan for n elements allocates (level sums and total). */
size_t scanPlanBytes(size_t n);

/* Allocates the level buffers for n elements (checked: exits on failure)
 * and fills the level counts. tileGrid and grid start at 0 (automatic);
 * a test may set them to small values to prove the kernels grid-stride. */
void scanPlanCreate(ScanPlan *plan, size_t n);
void scanPlanDestroy(ScanPlan *plan);

/* Kernel launches one scan of this plan makes: levels tile scans plus
 * levels - 1 add-backs (a memset, not a launch, when n = 0). */
int scanLaunches(const ScanPlan *plan);

/* Bytes one scan of this plan must move (its floor): at every level the
 * tile kernel reads and writes the level's ints and writes one sum per
 * tile, and below the top level addTileOffsets does it again (reading one
 * offset per tile): about 4n ints in all. */
double scanMovedBytes(const ScanPlan *plan);

/* A tile kernel: scans each SCAN_TILE-element tile of data[0..n) in place
 * (exclusive, or inclusive when inclusive != 0), grid-striding over tiles,
 * and writes tile k's total to tileSums[k]. scanTile is the course's; a
 * lab may pass a contrasting one to scanWith so that only the tile scan
 * differs between two timed rows. */
typedef void (*ScanTileKernel)(int *data, size_t n, int *tileSums,
                               int inclusive);

/* The course tile kernel (SCAN_THREADS threads per block). */
__global__ void scanTile(int *data, size_t n, int *__restrict__ tileSums,
                         int inclusive);

/* The level-by-level scan with another tile kernel, launched with
 * tileThreads threads per block; the other levels (the totals) use the
 * same kernel. scanExclusive and scanInclusive are scanWith(scanTile). */
void scanWith(ScanPlan *plan, ScanTileKernel tileKernel, unsigned tileThreads,
              int *data, int *total, int inclusive, cudaStream_t stream);

/* data[i] = sum of data[0..i), in place; total = NULL writes the plan's
 * own plan->total. data must hold plan->n ints. */
void scanExclusive(ScanPlan *plan, int *data, int *total, cudaStream_t stream);

/* data[i] = sum of data[0..i], in place; total as above. */
void scanInclusive(ScanPlan *plan, int *data, int *total, cudaStream_t stream);

#endif
