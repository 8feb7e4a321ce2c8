/* scan_lab.h: what scan.cu (the lab) and scan_check.cu (its self-check)
 * share: how a row is described, and the lab's buffers at one size.
 * Defined in scan.cu unless said otherwise.
 */
#ifndef SCAN_LAB_H
#define SCAN_LAB_H

#include <stddef.h>
#include <stdint.h>

#include "hx_args.h"
#include "hx_bench.h"
#include "tile_scan.h"

/* A row: which scan, and how it is run. */
typedef enum { COURSE, WITH, PASS, CUB } Kind;
enum {
    INCL = 1,        /* inclusive */
    SMALL = 2,       /* course: tileGrid 3, grid 5; single pass: 3 blocks */
    OWN_TOTAL = 4,   /* course: the total into B.total, not the plan's */
    IN_PLACE = 8,    /* single pass: in == out (course rows always are) */
    SHIFTED = 16,    /* single pass: the input one int off 16-byte alignment */
    STALL = 32,      /* single pass: the look-back's debug stalls */
    QUARTER = 64,    /* WITH: the tile kernel runs SCAN_TILE / 4 threads */
    PIPED = 128,     /* single pass: the piped loop, and */
    RING = 256,      /* the ring, whatever the production plan takes at n
                        (rowRuns: only where the ring runs on the GPU) */
    OTHER_PF = 512   /* single pass: the plan's L2 prefetch the other way */
};

typedef struct {
    const char *name;
    Kind kind;
    ScanTileKernel tile;   /* WITH: the tile kernel scanWith runs */
    unsigned flags;
} Scan;

/* The bench, and its buffers at the lab's size: B.input, B.want (the
 * host's exclusive scan), B.output (every row's output), B.total. */
extern hx_bench B;

/* The bench's row for s at the lab's size. */
hx_row rowOf(const Scan *s);
/* 0 for a row that cannot run or would repeat another on this GPU (a
 * PIPED or RING row where the ring cannot run), else 1. */
int rowRuns(const Scan *s);

/* Device bytes the lab needs at n (shifted non-NULL: with a copy of the
 * input one int off 16-byte alignment). */
size_t labBytes(size_t n, void *shifted);
/* Opens the lab at n, in[0..n) and its reference uploaded, total their
 * exact sum; labClose frees it all. */
void labOpen(size_t n, int shifted, const int *in, const int *want,
             long long total);
void labClose(void);
/* labOpen on a random input (scan_check.cu). */
void labOpenRandom(size_t n, uint64_t seed);
/* The open lab's levels, tiles and blocks, in words. */
const char *labShape(char *buf, size_t len);
/* What the self-check's sizes are built around: the production tile, the
 * blocks of the production single pass that run at once, SCAN_TILE, and
 * the same sizes for the piped loop where the ring is the production
 * path. */
hx_size_plan labSizePlan(uint64_t seed);

/* Random inputs are uniform in [0, randomHigh(n)]: 7, lowered so that n
 * times it fits in int (scan_check.cu). */
int randomHigh(size_t n);

/* The lesson's kernels. */
__global__ void scanTileHillisSteele(int *data, size_t n, int *tileSums,
                                     int inclusive);
__global__ void scanTileWarp(int *data, size_t n, int *tileSums,
                             int inclusive);
#define CHUNK 8
__global__ void chunkScan(const int *in, int *out, size_t chunks, int incl);
__global__ void chunkScanRestrict(const int *__restrict__ in,
                                  int *__restrict__ out, size_t chunks,
                                  int incl);

/* --check (scan_check.cu). */
int selfCheck(const hx_opts *o);

/* "Your turn": the student's tile kernel (your_turn.cu), launched with
 * SCAN_TILE / 4 threads a block. yourTurnRows (scan_check.cu) probes it
 * once (printing a "not yet attempted" line while it is untouched) and
 * fills rows[] with timed[0..k) and, once filled, its exclusive row after
 * scanWith(scanTileWarp)'s; it returns the count of rows. */
__global__ void yourTileScan(int *data, size_t n, int *tileSums,
                             int inclusive);
int yourTurnRows(hx_row rows[], const Scan timed[], int k);

#endif
