/* corpus/unusual_pass: expected pass: honest code that a text scan would
 * trip on. Comments and strings hold what a scan looks for:
 *     #include "/etc/passwd"      int main() { return 0; }
 *     system("rm -rf /");         __attribute__((constructor))
 * and the kernel uses cooperative groups, __device__ helpers, macros, a
 * __constant__ table, a __device__ variable and device printf (which only
 * fires for an impossible input).
 *
 * Through the driver: every run exact (the printf never fires: *totalNeg
 * never exceeds n), so it passes; the lookups cost little next to the
 * scans, so the timing gives full marks. */
#include <cstddef>
#include <cstdio>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define GROUP_OF(v) ((v) < 0 ? 0 : (v) == 0 ? 1 : 2)
#define UNUSED(x) (void)(x)

// Which rank array gives an element's rank inside its group, by group.
__constant__ int kUsesRank[3] = {1, 1, 0};
__device__ const char kNote[] = "#include <../../etc/passwd> int main() {}";
__device__ int neverWritten = 0;

__device__ __forceinline__ size_t baseOf(int group, size_t a, size_t ab)
{
    return group == 0 ? 0 : group == 1 ? a : ab;
}

__device__ size_t rankOf(int group, size_t i, size_t nr, size_t zr)
{
    if (kUsesRank[group])
        return group == 0 ? nr : zr;
    return i - nr - zr;
}

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    cg::thread_block block = cg::this_thread_block();
    const size_t a = (size_t)*totalNeg;
    const size_t ab = a + (size_t)*totalZero;
    const size_t stride = (size_t)block.size() * gridDim.x;
    if (a > n && block.thread_rank() == 0)
        printf("impossible: %s main() %d\n", kNote, neverWritten);
    for (size_t i = (size_t)blockIdx.x * block.size() + block.thread_rank();
         i < n; i += stride) {
        const int v = in[i];
        const int g = GROUP_OF(v);
        out[baseOf(g, a, ab) + rankOf(g, i, negRank[i], zeroRank[i])] = v;
    }
    block.sync();
    UNUSED(neverWritten);
}

/* Host code below is never compiled for the host: the submission is device
 * code only. It is honest here: a student's own test, left in the file. */
int main()
{
    std::printf("my own test: #include \"/etc/passwd\"\n");
    return 0;
}
