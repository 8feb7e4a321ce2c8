/* cudacpu.h: just enough CUDA to run the exercise's kernel on the CPU, for
 * the CPU check (cpu_check.cpp). Feedback on a machine without a GPU, never
 * a grade: the grading tool compiles threeway.cu for the device only.
 *
 * g++ reads this header before threeway.cu (-include cudacpu.h). It maps
 * CUDA's qualifiers to C++ (__global__ and __device__ to nothing,
 * __shared__ to static: the blocks of a launch run one after another, so a
 * static is one block's shared memory at a time), declares the built-in
 * variables, and defines the intrinsics the exercise may use:
 *   barriers   __syncthreads (and _count, _and, _or), __syncwarp
 *   warps      __shfl_sync, __shfl_up_sync, __shfl_down_sync,
 *              __shfl_xor_sync (any type of 8 bytes or fewer),
 *              __ballot_sync, __any_sync, __all_sync, __activemask
 *   bits       __popc, __popcll, __clz, __clzll, __ffs, __ffsll, __brev
 *   memory     __ldg, __threadfence (and _block, _system)
 *   atomics    atomicAdd, atomicSub, atomicExch, atomicMin, atomicMax,
 *              atomicInc, atomicDec, atomicCAS, atomicAnd, atomicOr,
 *              atomicXor (and their _block and _system forms) on int,
 *              unsigned, unsigned long long and, where CUDA has them,
 *              long long, float and double
 * cpu_check.cpp runs every thread of a block as a fiber of its own, and
 * switches fibers only inside the barrier and warp functions above: a
 * read-modify-write between two of them is never interrupted, which is
 * what makes each atomic here one plain update. Races cannot show.
 *
 * What it cannot run gets a compile error that names the construct, each
 * through an identifier "cpu_check_cannot_run__<what>" or a static
 * assertion "the CPU check cannot run ...": inline PTX (asm), textures
 * and surfaces, cooperative groups, CUB, Thrust, an atomic on a type
 * above. Headers of the CUDA Toolkit other than cuda_runtime.h are not on
 * the CPU check's include path at all (cpu/include/ holds the few it
 * stands in for), so including one stops the compile with its name.
 */
#ifndef CUDACPU_H
#define CUDACPU_H

#ifndef __cplusplus
#error "cudacpu.h is C++ (g++ -x c++)"
#endif

/* The standard headers a kernel may include, read now, before any macro
 * below could change what they mean. */
#include <algorithm>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

/* ---- qualifiers ------------------------------------------------------ */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__
#define __grid_constant__
#define __launch_bounds__(...)
#define __CUDACC__CPU_CHECK 1

/* ---- built-in variables ---------------------------------------------- */
struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1)
        : x(vx), y(vy), z(vz) {}
};

/* Set by the scheduler before it resumes a thread's fiber; a kernel sees
 * its own thread's values. */
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
static const int warpSize = 32;

/* ---- barriers and warps (cpu_check.cpp) ------------------------------ */
void __syncthreads();
int __syncthreads_count(int predicate);
int __syncthreads_and(int predicate);
int __syncthreads_or(int predicate);
void __syncwarp(unsigned mask = 0xffffffffu);
unsigned __ballot_sync(unsigned mask, int predicate);
int __any_sync(unsigned mask, int predicate);
int __all_sync(unsigned mask, int predicate);
unsigned __activemask();
void __threadfence();
void __threadfence_block();
void __threadfence_system();
void __trap();

/* One exchange among the lanes of a warp: kind 0 from lane arg (within
 * width), 1 up by arg, 2 down by arg, 3 xor arg. Returns the source lane's
 * bits, or the caller's own where the source is outside its segment. */
unsigned long long cudacpu_shfl(unsigned mask, unsigned long long bits,
                                int kind, int arg, int width);

template <class T>
inline T cudacpu_shfl_as(unsigned mask, T v, int kind, int arg, int width)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "the CPU check cannot run a warp shuffle of a type larger "
                  "than 8 bytes");
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    bits = cudacpu_shfl(mask, bits, kind, arg, width);
    T r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
}
template <class T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{ return cudacpu_shfl_as(mask, v, 0, src, width); }
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32)
{ return cudacpu_shfl_as(mask, v, 1, (int)d, width); }
template <class T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32)
{ return cudacpu_shfl_as(mask, v, 2, (int)d, width); }
template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32)
{ return cudacpu_shfl_as(mask, v, 3, m, width); }

/* ---- bits and loads -------------------------------------------------- */
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x)
{ return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i, x >>= 1)
        r = (r << 1) | (x & 1u);
    return r;
}
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }

/* CUDA's min and max take mixed integer types. */
template <class A, class B>
inline typename std::common_type<A, B>::type min(A a, B b)
{ return b < a ? b : a; }
template <class A, class B>
inline typename std::common_type<A, B>::type max(A a, B b)
{ return a < b ? b : a; }

/* ---- atomics --------------------------------------------------------- */
template <class T, class... L> struct cudacpu_one_of : std::false_type {};
template <class T, class H, class... L>
struct cudacpu_one_of<T, H, L...>
    : std::integral_constant<bool, std::is_same<T, H>::value ||
                                       cudacpu_one_of<T, L...>::value> {};
#define CUDACPU_INTS int, unsigned, unsigned long long
#define CUDACPU_ATOMIC(name, what, body, ...)                                \
    template <class T, class U> inline T name(T *p, U v)                     \
    {                                                                        \
        static_assert(cudacpu_one_of<T, __VA_ARGS__>::value, "the CPU "      \
                      "check cannot run " what " on this type");             \
        const T old = *p;                                                    \
        body;                                                                \
        return old;                                                          \
    }                                                                        \
    template <class T, class U> inline T name##_block(T *p, U v)             \
    { return name(p, v); }                                                   \
    template <class T, class U> inline T name##_system(T *p, U v)            \
    { return name(p, v); }
CUDACPU_ATOMIC(atomicAdd, "atomicAdd", *p = (T)(old + (T)v), CUDACPU_INTS,
               float, double)
CUDACPU_ATOMIC(atomicSub, "atomicSub", *p = (T)(old - (T)v), int, unsigned)
CUDACPU_ATOMIC(atomicExch, "atomicExch", *p = (T)v, CUDACPU_INTS, float)
CUDACPU_ATOMIC(atomicMin, "atomicMin", *p = (T)v < old ? (T)v : old,
               CUDACPU_INTS, long long)
CUDACPU_ATOMIC(atomicMax, "atomicMax", *p = old < (T)v ? (T)v : old,
               CUDACPU_INTS, long long)
CUDACPU_ATOMIC(atomicAnd, "atomicAnd", *p = old & (T)v, CUDACPU_INTS)
CUDACPU_ATOMIC(atomicOr, "atomicOr", *p = old | (T)v, CUDACPU_INTS)
CUDACPU_ATOMIC(atomicXor, "atomicXor", *p = old ^ (T)v, CUDACPU_INTS)
CUDACPU_ATOMIC(atomicInc, "atomicInc", *p = old >= (T)v ? 0u : old + 1u,
               unsigned)
CUDACPU_ATOMIC(atomicDec, "atomicDec",
               *p = (old == 0u || old > (T)v) ? (T)v : old - 1u, unsigned)
#undef CUDACPU_ATOMIC
#undef CUDACPU_INTS
template <class T, class U, class V>
inline T atomicCAS(T *p, U compare, V v)
{
    static_assert(cudacpu_one_of<T, int, unsigned, unsigned long long,
                                 unsigned short>::value,
                  "the CPU check cannot run atomicCAS on this type");
    const T old = *p;
    if (old == (T)compare)
        *p = (T)v;
    return old;
}
template <class T, class U, class V>
inline T atomicCAS_block(T *p, U c, V v) { return atomicCAS(p, c, v); }
template <class T, class U, class V>
inline T atomicCAS_system(T *p, U c, V v) { return atomicCAS(p, c, v); }

/* ---- what the CPU check cannot run ------------------------------------ */
#define asm cpu_check_cannot_run__inline_PTX_asm
#define texture cpu_check_cannot_run__textures
#define cudaTextureObject_t cpu_check_cannot_run__textures
#define cudaSurfaceObject_t cpu_check_cannot_run__surfaces
#define tex1Dfetch cpu_check_cannot_run__textures
#define tex1D cpu_check_cannot_run__textures
#define tex2D cpu_check_cannot_run__textures
#define surf1Dwrite cpu_check_cannot_run__surfaces
#define surf2Dwrite cpu_check_cannot_run__surfaces
#define cooperative_groups cpu_check_cannot_run__cooperative_groups
#define cub cpu_check_cannot_run__CUB
#define thrust cpu_check_cannot_run__Thrust
#define __nanosleep cpu_check_cannot_run__nanosleep
#define clock64 cpu_check_cannot_run__clock64
#define __match_any_sync cpu_check_cannot_run__match_any_sync
#define __match_all_sync cpu_check_cannot_run__match_all_sync
#define __reduce_add_sync cpu_check_cannot_run__reduce_add_sync

#endif
