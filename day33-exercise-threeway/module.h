/* module.h: the student's kernel, as the driver reaches it: a device
 * module (a cubin or fatbin compiled from threeway.cu alone), loaded with
 * the CUDA driver API, its scatterThreeWay found by its mangled name and
 * launched. No host code of the student's is ever linked or run. Host
 * code only (C11).
 *
 * The driver API's entry points come from the CUDA runtime at run time
 * (moduleApiOpen): nothing links libcuda, so the program starts, and says
 * there is no GPU, on a machine with no NVIDIA driver at all.
 */
#ifndef MODULE_H
#define MODULE_H

#include <stddef.h>
#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

/* scatterThreeWay(const int*, const int*, const int*, int*, size_t,
 * const int*, const int*), as the compiler mangles it. */
#define MODULE_ENTRY "_Z15scatterThreeWayPKiS0_S0_PimS0_S0_"

/* The largest module file moduleRead takes. */
#define MODULE_MAX ((size_t)256 << 20)

typedef enum {
    MODULE_OK,            /* loaded, and scatterThreeWay found */
    MODULE_SIGNATURE,     /* loaded, but no kernel of that signature */
    MODULE_LOAD_ERROR     /* the driver refused the image */
} module_status;

typedef struct {
    const char *path;
    void *image;          /* the file's bytes */
    size_t size;
    module_status status;
    CUresult loadError;   /* MODULE_LOAD_ERROR: why */
    CUmodule mod;
    CUfunction fn;        /* scatterThreeWay (MODULE_OK) */
    int maxThreads;       /* the most threads a block of it may have */
    char **entries;       /* MODULE_SIGNATURE: the kernels it has */
    int entryCount;       /* -1: this driver cannot list them */
} Module;

/* build/threeway.fatbin or build/threeway.cubin next to this executable,
 * as make writes them (the newer when both exist); NULL when neither
 * does. */
const char *moduleDefaultPath(void);

/* Reads the module file at path (NULL: no module was found) into m.
 * Returns HX_EXIT_OK, or HX_EXIT_USAGE after one line on stderr that
 * begins "<prog>: ". Touches no GPU, so that a missing or unreadable
 * module is a usage error on any machine. */
int moduleRead(Module *m, const char *path, const char *prog);

/* Finds the driver API's entry points. Call once the runtime has made
 * its context current (hx_device_open). Returns HX_EXIT_OK, or
 * HX_EXIT_NO_GPU after one line when the driver lacks one that is
 * needed. */
int moduleApiOpen(const char *prog);

/* Loads m's image into the current context and looks for MODULE_ENTRY:
 * sets m->status and, by status, m->fn and m->maxThreads, m->loadError,
 * or m->entries and m->entryCount. A failure of the driver API's own
 * calls exits with HX_EXIT_CUDA after printing the call. */
void moduleLoad(Module *m);

/* Launches scatterThreeWay on the default stream with blocks x block
 * threads; returns the launch's own result (a fault inside the kernel
 * surfaces when it is waited for). */
CUresult moduleLaunch(const Module *m, unsigned blocks, unsigned block,
                      const int *in, const int *negRank,
                      const int *zeroRank, int *out, size_t n,
                      const int *totalNeg, const int *totalZero);

/* A CUresult's name ("CUDA_ERROR_INVALID_IMAGE") and its text; usable
 * before moduleApiOpen (then "CUDA_ERROR_UNKNOWN", "unknown error"). */
const char *moduleErrorName(CUresult r);
const char *moduleErrorText(CUresult r);

/* Frees what moduleRead and moduleLoad allocated on the host (the
 * context's teardown unloads the module itself). */
void moduleFree(Module *m);

#ifdef __cplusplus
}
#endif
#endif
