/* your_turn.cu: day 33's "Your turn" (README.md). Yours to edit; not graded.
 *
 * ./compaction --check runs what you write here and checks it with the
 * lab's report; a task you have not touched is reported "not yet
 * attempted" and the check still passes. All three kernels are launched
 * with blocks of 256 threads (whole warps) and any grid: grid-stride.
 *
 * Task 1: compaction of the multiples of 3 (x % 3 == 0, zero included),
 * stable. The lab runs markMultipleOf3(in, rank, n), then the day 31
 * scanExclusive in place on rank, then scatterMultipleOf3(in, rank, out,
 * n), and compares out[0..m) with the host's compaction.
 *
 * Task 2: compactAtomicWarp keeps the non-zero values like compactAtomic,
 * with one atomicAdd on *counter per warp (zero at launch; the number
 * kept after it). Checked for the same values and nothing past the count.
 */
#include <stddef.h>

__global__ void markMultipleOf3(const int *in, int *flags, size_t n)
{
    /* Your code here. */
}

__global__ void scatterMultipleOf3(const int *in, const int *rank, int *out,
                                   size_t n)
{
    /* Your code here. */
}

__global__ void compactAtomicWarp(const int *in, int *out, size_t n,
                                  int *counter)
{
    /* Your code here. */
}
