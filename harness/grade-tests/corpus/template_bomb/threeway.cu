/* corpus/template_bomb: expected compile_limit: std::make_index_sequence of
 * 2^28 makes the front end build one pack of 2^28 template arguments, and
 * its memory grows until the compile's address-space limit stops it
 * (without a limit, a bomb like it held gigabytes for minutes, times
 * --jobs). run_tests.py grades the corpus with --compile-mem 1024 so that
 * this takes seconds, not the minute 4 GiB would. */
#include <cstddef>
#include <utility>

template <std::size_t... I>
__device__ std::size_t packSize(std::index_sequence<I...>)
{
    return sizeof...(I);
}

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    if (n == 0)
        out[0] = (int)packSize(std::make_index_sequence<(1u << 28)>{});
    (void)in; (void)negRank; (void)zeroRank; (void)totalNeg;
    (void)totalZero;
}
