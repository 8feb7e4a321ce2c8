/* lab.h: what day 33's programs share besides their kernels: the buffers
 * (allocated once, at the largest size a run needs), the inputs and their
 * host references, the checks only this day needs, the library (CUB) rows'
 * work, and the loops of the self-check and the sweep. Defined in lab.cu;
 * used by compaction.cu and dev/compaction_variants.cu, which declare their
 * rows and hand them to these loops. There is one lab per program: L.
 */
#ifndef LAB_H
#define LAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hx_args.h"
#include "hx_bench.h"
#include "hx_cuda.h"
#include "hx_guard.h"
#include "tile_scan.h"

/* The references, a device buffer of n ints each, made by labInputs; the
 * gather table keeps its maps and references in them (labMaps). */
enum { W_FLAGS, W_RANKS, W_COMPACT, W_PARTITION, W_CUB, WANTS };
enum { W_GATHER = W_FLAGS, W_SCATTER = W_RANKS, W_IDENTITY = W_COMPACT,
       W_PAIRS = W_PARTITION };
/* The device ints the rows leave their counts in (their hx_row.total). */
enum { C_KEPT, C_EVEN, C_ATOMIC, C_SINGLE, C_STABLE, C_SELECT, C_PARTITION,
       C_VARIANT, COUNTS };
/* n-int buffers: on the device in, par, map, the references, out and rank;
 * on the host in, par, four references and an output being checked. */
#define LAB_DEVICE_INTS (5 + WANTS)
#define LAB_HOST_INTS 7
/* Compaction values lie in [-LAB_VMAX, LAB_VMAX] (hx_input.h's range too). */
#define LAB_VMAX 1000000
/* Threads a block of every element-wise kernel; the self-check's second
 * grid (every grid-stride and tile loop runs many rounds); the look-back's
 * debug stalls, in ns, for the rows that check with them. */
#define LAB_BLOCK 256u
#define LAB_SMALL_GRID 3u
#define LAB_STALL_NS 4000u
/* The smallest tile of any single-pass kernel the programs run. */
#define LAB_TILE 4096

typedef struct {
    const hx_device *dev;
    hx_bench b;
    size_t n;              /* elements now */
    unsigned grid;         /* blocks of LAB_BLOCK, every element-wise kernel */
    unsigned passGrid;     /* the single-pass kernels' blocks: 0, as many as
                              fit on the GPU at once */
    int *in;               /* compaction input; the gather's values */
    int *par;              /* partition input (kept: even) */
    int *map;              /* the gather's random permutation */
    int *want[WANTS];
    int *counts;           /* COUNTS device ints */
    hx_guarded out, rank;  /* the rows' outputs: poisoned, between guards */
    ScanPlan plan;         /* the course scan at n, on the grids above */
    unsigned long long *state;   /* single-pass state: a word, then
                                    lookbackBytes of n / LAB_TILE + 1 tiles */
    void *cubTemp;         /* CUB's storage, sized once for the largest n */
    size_t cubBytes;
    int *host;             /* host, n ints each: */
    int *hin, *hpar;       /* copies of in and par */
    int *href[4];          /* references being built (labInputs, labMaps) */
    int *hwant;            /* the scatter's reference, after labMaps */
    int *hgot;             /* an output being checked */
    long long kept, evens; /* the references' counts */
    size_t disorder;       /* the atomic row: slots out of the stable order */
    FILE *say;             /* where the lab's own checks report */
    int open;              /* buffers held (labOpen) */
    int yours;             /* rows labYourRows adds to a compaction table */
} Lab;

extern Lab L;

/* Device bytes the lab needs at n elements (an hx_bytes_for). */
size_t labBytes(size_t n, void *ctx);

/* Opens the bench (lab: the CSV's lab column); labEnd prints the wall time
 * (hx_bench_wall, since start) and closes it, with the buffers if open. */
void labBegin(const hx_device *dev, const hx_opts *o, const char *lab);
void labEnd(double start);

/* Allocates the buffers for up to cap elements. Returns HX_EXIT_OK, or
 * HX_EXIT_NOMEM after one line on stderr when cap does not fit the
 * device's or the host's memory. labClose frees them (and does nothing
 * when none are held). */
int labOpen(size_t cap);
void labClose(void);

/* Sets the size (n <= cap) and the automatic grids; binds the bench. */
void labResize(size_t n);
/* g = 0: the automatic grids; else g blocks for the element-wise kernels,
 * the scan's and the single-pass kernels', which must cover any grid. */
void labSetGrid(unsigned g);

/* Compaction's input at survival keep (shape < 0) or an hx_shape (kept:
 * non-zero), and the partition's (kept: even), made on the device from
 * hx_bits_at (element i of each from (seed, i) and (seed + 1, i)); copies
 * on the host, and every reference of the compaction table from the
 * harness's host references (hx_ref.h), the counts in L.kept, L.evens. */
void labInputs(double keep, int shape, uint64_t seed);
/* The gather and scatter inputs and references (see lab.cu). */
void labMaps(uint64_t seed);

/* Row checks (hx_row_check): the atomic row's (the survivors at
 * out[0..kept) in any order, poison past them; the slots out of the
 * stable order into L.disorder), and the scatter through W_PAIRS's (an
 * even slot holds one of its two writers' values, an odd one poison). */
int labSameValues(const hx_bench *b, const hx_row *r, const char *what);
int labPairs(const hx_bench *b, const hx_row *r, const char *what);

/* The library rows' work: cub::DeviceSelect::If (NonZero) of in, and
 * cub::DevicePartition::If (IsEven) of par, into out, their counts at
 * C_SELECT and C_PARTITION. Two launches each. */
void runCubSelect(void *ctx);
void runCubPartition(void *ctx);

/* Runs r once, writes value (or, with from >= 0, what out[from] holds)
 * into out[at], and returns 1 when r's own check reports it (quietly);
 * prints "planted <what>: caught" or "MISSED". */
int labPlanted(const hx_row *r, const char *what, size_t at, long from,
               int value);

/* What a program's self-check runs at each input: rows(r) declares them
 * into r and returns how many; maps(r), or NULL, the gather and scatter
 * rows on labMaps' input; planted(), the checks of the checks at n = 1000
 * (0 when every planted error was seen). */
typedef struct {
    int (*rows)(hx_row *r);
    int (*maps)(hx_row *r);
    int (*planted)(void);
    hx_size_plan sizes;
} LabCheck;

/* The self-check: --n alone, or hx_check_sizes's list; every size that
 * fits (those that do not are named and skipped) with every input shape
 * (survival 0.5 and hx_input's edge shapes) on the automatic grids and on
 * LAB_SMALL_GRID blocks, then maps; above 2^30, survival 0.5 on the
 * automatic grids alone. Returns HX_EXIT_OK or HX_EXIT_FAIL. */
int labSelfCheck(const LabCheck *c);

/* The sweep into one CSV (--csv FILE; --csv FOLDER writes FOLDER/csv; by
 * default csv in the current folder): rows(r) at survival 0.5
 * for n = 2^10 up to the largest power of two that fits, then at survival
 * 0 to 1 in steps of 0.1 at n (capped there); each step's x floors on one
 * line (hx_bench_sweep_line). */
int labSweep(size_t n, int (*rows)(hx_row *r), const char *csv);

/* "Your turn" (your_turn.cu, run by your_turn_lab.cu). The student's
 * kernels, launched with LAB_BLOCK threads a block on L.grid blocks. */
__global__ void markMultipleOf3(const int *in, int *flags, size_t n);
__global__ void scatterMultipleOf3(const int *in, const int *rank, int *out,
                                   size_t n);
__global__ void compactAtomicWarp(const int *in, int *out, size_t n,
                                  int *counter);
/* Declares into r the rows of the slots that are filled (probed once, on
 * the first call, which prints a "not yet attempted" line for each
 * untouched one): the multiples of 3 through mark, scanExclusive and
 * scatter, and the one-atomic-per-warp compaction. Both leave their count
 * in L.counts[C_VARIANT]. Returns how many (also in L.yours). */
int labYourRows(hx_row *r);

#endif
