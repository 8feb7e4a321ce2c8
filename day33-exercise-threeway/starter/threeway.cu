/* threeway.cu: YOUR FILE. The one kernel of the day 33 exercise.
 *
 * Write scatterThreeWay: a stable three-way split. Every negative goes
 * first, then every zero, then every positive; inside each group the
 * elements keep their input order. The driver (driver.cu) has already run
 * two predicates and two scans; your kernel only moves each element to its
 * slot. README.md has the task, how to read the check's report, and hints.
 *
 *   make check          compile this file, then run the check
 *   ./threeway --help   every option (--n N one size, --mix NAME one input)
 *
 * This file is compiled to device code only (no host code in it is ever
 * compiled or run) and may include headers of the CUDA Toolkit and the C++
 * standard library only. Keep the kernel's name and parameters exactly as
 * they are: the driver launches it by that signature. Submit this file
 * (and answer.txt beside it).
 */
#include <cstddef>

/* Contract, all pointers in device memory, i in [0, n):
 *   in[i]        the input value: negative, zero or positive.
 *   negRank[i]   how many of in[0..i) are negative (an exclusive count).
 *   zeroRank[i]  how many of in[0..i) are zero (an exclusive count).
 *   *totalNeg    how many of in[0..n) are negative: the size of group 1.
 *   *totalZero   how many of in[0..n) are zero: the size of group 2.
 *                Both totals stay in device memory (the scans wrote them
 *                there); read them through the pointers.
 *   out[0..n)    the output: negatives in input order, then zeros in input
 *                order, then positives in input order. Write every slot
 *                exactly once and nothing outside out[0..n): the driver
 *                fills out with a poison value first and watches guard
 *                regions on both sides of it.
 *   n            may be 0; fits in int.
 * The driver launches this kernel with many grids, some deliberately
 * small, so it must be correct for ANY grid and block size: a grid-stride
 * loop over i. No buffer overlaps another, hence __restrict__ on every
 * pointer. */
__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        /* YOUR CODE HERE: write in[i] to its slot in out. */
    }

    /* The starter writes nothing, so its check fails with a report of
     * unwritten slots. These casts only keep the unused parameters quiet:
     * delete each one once your code uses that parameter. */
    (void)in;
    (void)negRank;
    (void)zeroRank;
    (void)out;
    (void)totalNeg;
    (void)totalZero;
}
