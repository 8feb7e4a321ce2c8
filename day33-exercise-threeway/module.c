/* module.c: the student's device module through the CUDA driver API.
 * Contracts are in module.h. */
#define _POSIX_C_SOURCE 200809L

#include "module.h"
#include "hx_cuda.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef CUresult (*PfnModuleLoadData)(CUmodule *, const void *);
typedef CUresult (*PfnModuleGetFunction)(CUfunction *, CUmodule,
                                         const char *);
typedef CUresult (*PfnLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void **, void **);
typedef CUresult (*PfnFuncGetAttribute)(int *, CUfunction_attribute,
                                        CUfunction);
typedef CUresult (*PfnGetErrorText)(CUresult, const char **);
typedef CUresult (*PfnModuleGetFunctionCount)(unsigned *, CUmodule);
typedef CUresult (*PfnModuleEnumerateFunctions)(CUfunction *, unsigned,
                                                CUmodule);
typedef CUresult (*PfnFuncGetName)(const char **, CUfunction);

static struct {
    PfnModuleLoadData moduleLoadData;
    PfnModuleGetFunction moduleGetFunction;
    PfnLaunchKernel launchKernel;
    PfnFuncGetAttribute funcGetAttribute;
    PfnGetErrorText getErrorName, getErrorString;
    /* Drivers of CUDA 12.4 and later; NULL before (entries unlisted). */
    PfnModuleGetFunctionCount moduleGetFunctionCount;
    PfnModuleEnumerateFunctions moduleEnumerateFunctions;
    PfnFuncGetName funcGetName;
} api;

/* The driver's entry point for name, in the version of the toolkit this
 * was built with (so that it matches cuda.h's prototypes), or NULL. */
static void *driverEntry(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q =
        cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t err = cudaGetDriverEntryPointByVersion(
        name, &fn, CUDART_VERSION, cudaEnableDefault, &q);
#else
    const cudaError_t err =
        cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q);
#endif
    if (err != cudaSuccess || q != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();   /* not an error of the program's */
        return NULL;
    }
    return fn;
}

int moduleApiOpen(const char *prog)
{
    struct {
        const char *name;
        void **slot;
        int required;
    } want[] = {
        {"cuModuleLoadData", (void **)&api.moduleLoadData, 1},
        {"cuModuleGetFunction", (void **)&api.moduleGetFunction, 1},
        {"cuLaunchKernel", (void **)&api.launchKernel, 1},
        {"cuFuncGetAttribute", (void **)&api.funcGetAttribute, 1},
        {"cuGetErrorName", (void **)&api.getErrorName, 1},
        {"cuGetErrorString", (void **)&api.getErrorString, 1},
        {"cuModuleGetFunctionCount", (void **)&api.moduleGetFunctionCount,
         0},
        {"cuModuleEnumerateFunctions",
         (void **)&api.moduleEnumerateFunctions, 0},
        {"cuFuncGetName", (void **)&api.funcGetName, 0},
    };
    size_t k;
    for (k = 0; k < sizeof want / sizeof want[0]; ++k) {
        *want[k].slot = driverEntry(want[k].name);
        if (!*want[k].slot && want[k].required) {
            fprintf(stderr, "%s: the CUDA driver has no %s; a driver of "
                    "CUDA 12.0 or newer is needed\n", prog, want[k].name);
            return HX_EXIT_NO_GPU;
        }
    }
    return HX_EXIT_OK;
}

const char *moduleErrorName(CUresult r)
{
    const char *s = NULL;
    if (!api.getErrorName || api.getErrorName(r, &s) != CUDA_SUCCESS || !s)
        return "CUDA_ERROR_UNKNOWN";
    return s;
}

const char *moduleErrorText(CUresult r)
{
    const char *s = NULL;
    if (!api.getErrorString || api.getErrorString(r, &s) != CUDA_SUCCESS ||
        !s)
        return "unknown error";
    return s;
}

/* HX_CHECK for the driver API: on failure prints the call, file, line and
 * the CUresult's name and text, and exits with HX_EXIT_CUDA. */
#define CU_CHECK(call) cuCheck((call), #call, __FILE__, __LINE__)

static void cuCheck(CUresult r, const char *call, const char *file, int line)
{
    if (r == CUDA_SUCCESS)
        return;
    fprintf(stderr, "CUDA error: %s at %s:%d: %s: %s\n", call, file, line,
            moduleErrorName(r), moduleErrorText(r));
    exit(HX_EXIT_CUDA);
}

const char *moduleDefaultPath(void)
{
    static const char *const names[2] = {"build/threeway.fatbin",
                                          "build/threeway.cubin"};
    static char exe[4096], paths[2][4096 + 32];
    struct stat st[2];
    int have[2], k;
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    if (len <= 0)
        return NULL;
    exe[len] = '\0';
    slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    for (k = 0; k < 2; ++k) {
        snprintf(paths[k], sizeof paths[k], "%.*s/%s", (int)(slash - exe),
                 exe, names[k]);
        have[k] = stat(paths[k], &st[k]) == 0;
    }
    if (have[0] && have[1])
        return st[1].st_mtime > st[0].st_mtime ? paths[1] : paths[0];
    return have[1] ? paths[1] : have[0] ? paths[0] : NULL;
}

int moduleRead(Module *m, const char *path, const char *prog)
{
    FILE *f;
    struct stat st;
    int bad;
    memset(m, 0, sizeof *m);
    if (!path) {
        fprintf(stderr, "%s: no module: build/threeway.fatbin (or .cubin) "
                "is not next to this program; run make (it compiles "
                "threeway.cu), or give --module FILE\n", prog);
        return HX_EXIT_USAGE;
    }
    m->path = path;
    f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: cannot read the module %s: %s\n", prog, path,
                f ? "not a regular file" : strerror(errno));
        if (f)
            fclose(f);
        return HX_EXIT_USAGE;
    }
    m->size = (size_t)st.st_size;
    if (m->size && m->size <= MODULE_MAX)
        m->image = malloc(m->size);
    bad = !m->image || fread(m->image, 1, m->size, f) != m->size;
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: the module %s is empty, unreadable, larger "
                "than %zu MiB or larger than the host memory left\n", prog,
                path, MODULE_MAX >> 20);
        return HX_EXIT_USAGE;
    }
    return HX_EXIT_OK;
}

/* Lists the module's kernels into m->entries (entryCount -1 when this
 * driver, or the host memory left, gives no way to). */
static void listEntries(Module *m)
{
    unsigned count = 0, k;
    CUfunction *fns;
    m->entryCount = -1;
    if (!api.moduleGetFunctionCount || !api.moduleEnumerateFunctions ||
        !api.funcGetName)
        return;
    CU_CHECK(api.moduleGetFunctionCount(&count, m->mod));
    fns = malloc((count ? count : 1) * sizeof *fns);
    m->entries = malloc((count ? count : 1) * sizeof *m->entries);
    k = 0;
    if (fns && m->entries) {
        CU_CHECK(api.moduleEnumerateFunctions(fns, count, m->mod));
        for (; k < count; ++k) {
            const char *name = NULL;
            CU_CHECK(api.funcGetName(&name, fns[k]));
            if (!(m->entries[k] = strdup(name ? name : "?")))
                break;
        }
    }
    free(fns);
    if (!m->entries || k < count) {   /* out of host memory: no list */
        while (m->entries && k-- > 0)
            free(m->entries[k]);
        free(m->entries);
        m->entries = NULL;
        return;
    }
    m->entryCount = (int)count;
}

void moduleLoad(Module *m)
{
    CUresult r = api.moduleLoadData(&m->mod, m->image);
    if (r != CUDA_SUCCESS) {
        m->status = MODULE_LOAD_ERROR;
        m->loadError = r;
        return;
    }
    r = api.moduleGetFunction(&m->fn, m->mod, MODULE_ENTRY);
    if (r == CUDA_ERROR_NOT_FOUND) {
        m->status = MODULE_SIGNATURE;
        listEntries(m);
        return;
    }
    if (r != CUDA_SUCCESS) {   /* a lazily loaded image that does not load */
        m->status = MODULE_LOAD_ERROR;
        m->loadError = r;
        return;
    }
    CU_CHECK(api.funcGetAttribute(&m->maxThreads,
                                  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                  m->fn));
    m->status = MODULE_OK;
}

CUresult moduleLaunch(const Module *m, unsigned blocks, unsigned block,
                      const int *in, const int *negRank,
                      const int *zeroRank, int *out, size_t n,
                      const int *totalNeg, const int *totalZero)
{
    void *args[7];
    args[0] = &in;
    args[1] = &negRank;
    args[2] = &zeroRank;
    args[3] = &out;
    args[4] = &n;
    args[5] = &totalNeg;
    args[6] = &totalZero;
    return api.launchKernel(m->fn, blocks, 1, 1, block, 1, 1, 0, NULL, args,
                            NULL);
}

void moduleFree(Module *m)
{
    int k;
    for (k = 0; k < m->entryCount; ++k)
        free(m->entries[k]);
    free(m->entries);
    free(m->image);
    memset(m, 0, sizeof *m);
}
