/* test_digest.cu: the host's digest of a group (digestHostGroup,
 * kernels.cu), made from the input alone, against its definition: the
 * reference split by the harness's host reference (hx_split3), then
 * D = sum of w(K, i) * (uint32)ref[i] mod 2^61 - 1 slot by slot, and the
 * timing's masks' sums over the input's and the reference's positive and
 * negative slots. Every mix, sizes from 0 to past the threaded ranges,
 * with and without the masks. On the host: no GPU. */
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"
#include "hx_ref.h"
#include "plan.h"

static int failed, passed;

static void definition(const int *in, const int *ref, size_t n, uint64_t key,
                       uint64_t want[NREF])
{
    for (int s = 0; s < NREF; ++s)
        want[s] = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t w = digestWeight(key, i);
        want[SUM_REF] = digestAdd(want[SUM_REF],
                                  digestMulMod(w, (uint32_t)ref[i]));
        if (in[i] > 0) want[SUM_IN_POS] = digestAdd(want[SUM_IN_POS], w);
        if (in[i] < 0) want[SUM_IN_NEG] = digestAdd(want[SUM_IN_NEG], w);
        if (ref[i] > 0) want[SUM_REF_POS] = digestAdd(want[SUM_REF_POS], w);
        if (ref[i] < 0) want[SUM_REF_NEG] = digestAdd(want[SUM_REF_NEG], w);
    }
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 64, 1000, 4097,
                                   ((size_t)1 << 20) + 7, 3000001};
    const size_t most = 3000001;
    int *in = (int *)malloc(most * sizeof(int));
    int *ref = (int *)malloc(most * sizeof(int));
    if (!in || !ref)
        return 4;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; ++z) {
        for (int m = 0; m < MIX_COUNT; ++m) {
            const size_t n = sizes[z];
            const uint64_t key = 0x9e3779b97f4a7c15ull * (z * 31 + m + 1);
            planFill(in, n, (plan_mix)m, 1000 + z * MIX_COUNT + m);
            size_t a, ab, ga, gab;
            hx_split3(in, ref, n, &a, &ab);
            uint64_t want[NREF], got[NREF], plain[NREF];
            definition(in, ref, n, key, want);
            digestHostGroup(in, n, key, 1, &ga, &gab, got);
            digestHostGroup(in, n, key, 0, &ga, &gab, plain);
            int ok = ga == a && gab == ab && plain[SUM_REF] == want[SUM_REF];
            for (int s = 0; s < NREF; ++s)
                ok &= got[s] == want[s] && (s == SUM_REF || plain[s] == 0);
            if (ok) {
                ++passed;
            } else {
                ++failed;
                printf("FAIL n=%zu mix=%s: boundaries %zu, %zu (want %zu, "
                       "%zu); D %016llx (want %016llx)\n", n, planMixName(m),
                       ga, gab, a, ab, (unsigned long long)got[SUM_REF],
                       (unsigned long long)want[SUM_REF]);
            }
        }
    }
    /* A digest that cannot fail is no test: one slot changed must change D. */
    const size_t n = 4097;
    planFill(in, n, MIX_THIRDS, 5);
    uint64_t before[NREF], after[NREF];
    size_t ga, gab;
    digestHostGroup(in, n, 77, 0, &ga, &gab, before);
    in[n / 2] = in[n / 2] > 0 ? in[n / 2] + 1 : in[n / 2] - 1;
    digestHostGroup(in, n, 77, 0, &ga, &gab, after);
    if (before[SUM_REF] != after[SUM_REF]) {
        ++passed;
    } else {
        ++failed;
        printf("FAIL one changed element left the digest as it was\n");
    }
    printf("test_digest, the host's digest from the input alone against "
           "its definition: %d passed, %d failed\n", passed, failed);
    free(in);
    free(ref);
    return failed ? 1 : 0;
}
