/* predicates.cuh: the day's two predicates, and what a predicate must
 * promise the single-pass kernels (singlepass_compact.cuh,
 * stable_partition.cuh), which are templates over it.
 *
 * A predicate Keep is a functor with
 *     __host__ __device__ constexpr bool operator()(int v) const
 * and a member `static constexpr int REJECT`, a value it does not keep.
 * The tile loaders pad a partial tile with REJECT, so the slots past n
 * count as not kept and are never written; keptOk<Keep>() checks the
 * promise when a kernel is compiled. Each predicate is defined once, here,
 * and used by the teaching kernels, the production kernels and CUB alike;
 * the host references use the harness's twins, hx_pred_nonzero and
 * hx_pred_even (../harness/hx_ref.h).
 */
#ifndef PREDICATES_CUH
#define PREDICATES_CUH

/* Compaction keeps the non-zero elements. */
struct NonZero {
    static constexpr int REJECT = 0;
    __host__ __device__ constexpr bool operator()(int v) const
    {
        return v != 0;
    }
};

/* The partition puts the even elements first. v % 2 is -1 for negative
 * odd v, so compare with 0, not with 1. */
struct IsEven {
    static constexpr int REJECT = 1;
    __host__ __device__ constexpr bool operator()(int v) const
    {
        return v % 2 == 0;
    }
};

template <class Keep> __host__ __device__ constexpr bool keptOk()
{
    return !Keep()(Keep::REJECT);
}

/* v[j] = how many of the four ints of x[j] Keep keeps: the count a
 * single-pass kernel scans across its tile. */
template <class Keep, int VECS>
__device__ inline void keptPerVector(const int4 (&x)[VECS],
                                     unsigned (&v)[VECS])
{
#pragma unroll
    for (int j = 0; j < VECS; ++j)
        v[j] = Keep()(x[j].x) + Keep()(x[j].y) + Keep()(x[j].z) +
               Keep()(x[j].w);
}

#endif
