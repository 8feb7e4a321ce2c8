/* corpus/include_passwd: expected forbidden_include: includes /etc/passwd,
 * whose text a compile error would once have copied into results.json.
 * The verdict names the path; no line of the file may appear anywhere in
 * OUT (run_tests.py checks). */
#include <cstddef>
#include "/etc/passwd"

__global__ void scatterThreeWay(const int* __restrict__ in,
                                const int* __restrict__ negRank,
                                const int* __restrict__ zeroRank,
                                int* __restrict__ out, size_t n,
                                const int* __restrict__ totalNeg,
                                const int* __restrict__ totalZero)
{
    (void)in; (void)negRank; (void)zeroRank; (void)out; (void)n;
    (void)totalNeg; (void)totalZero;
}
