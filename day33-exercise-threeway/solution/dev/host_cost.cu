/* solution/dev/host_cost.cu: what the grading driver's host work costs,
 * a run at a time, over its whole plan: the input (planFill) and the
 * digest's sums and boundaries (digestHostGroup, without and with the
 * timing's masks), the work of every group, and the reference split
 * (hx_split3), made only where an output is compared on the host, in CPU
 * seconds of the process (every thread of planFill's and
 * digestHostGroup's counted).
 * Every driver repeats this work for its own plan, so it bounds how many
 * copies a class machine grades a minute (the Speed section of
 * harness/grader/MAINTAINERS.md). Maintainers only; needs no GPU.
 *
 * Build: make -C day33-exercise-threeway dev   (solution/onepass.mk)
 * Run:   build/onepass/host-cost [--sms S] [--largest N] [--every K]
 *        the plan of a GPU of S multiprocessors (132, an H200) whose
 *        timing size is N (62914560, the H200's), every K-th run timed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "hx_ref.h"
#include "plan.h"

static double cpuSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    PlanArgs a;
    memset(&a, 0, sizeof a);
    a.name = "full";
    a.sms = 132;
    a.largest = 62914560;
    a.maxThreads = 1024;
    int every = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sms"))
            a.sms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--largest"))
            a.largest = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--every"))
            every = atoi(argv[i + 1]);
    }
    if (a.sms < 1 || every < 1 || a.largest < 1) {
        fprintf(stderr, "usage: host-cost [--sms S] [--largest N] "
                        "[--every K]\n");
        return 2;
    }
    Plan p;
    memset(&p, 0, sizeof p);
    planBuild(&p, 12345, &a);
    int *in = (int *)malloc(p.maxN * sizeof(int) + 1);
    int *ref = (int *)malloc(p.maxN * sizeof(int) + 1);
    if (!in || !ref) {
        fprintf(stderr, "host-cost: out of host memory\n");
        return 4;
    }
    double t[4] = {0, 0, 0, 0};
    size_t all = 0, timed = 0;
    uint64_t keep = 0;   /* so that no sum is optimised away */
    for (int r = 0; r < p.count; ++r) {
        all += p.run[r].n;
        if (r % every)
            continue;
        const Run *u = &p.run[r];
        uint64_t s[NREF];
        size_t b1, b2;
        double t0 = cpuSeconds();
        planFill(in, u->n, u->mix, planInputSeed(12345, u->n, u->mix));
        double t1 = cpuSeconds();
        digestHostGroup(in, u->n, 0x5eed + r, 0, &b1, &b2, s);
        keep ^= s[SUM_REF];
        double t2 = cpuSeconds();
        digestHostGroup(in, u->n, 0x5eed + r, 1, &b1, &b2, s);
        keep ^= s[SUM_IN_POS];
        double t3 = cpuSeconds();
        hx_split3(in, ref, u->n, &b1, &b2);
        keep ^= (uint64_t)ref[u->n / 2];
        double t4 = cpuSeconds();
        t[0] += t1 - t0;
        t[1] += t2 - t1;
        t[2] += t3 - t2;
        t[3] += t4 - t3;
        timed += u->n;
    }
    printf("plan: %d runs, %zu elements (sms %d, largest %zu); timed one "
           "run in %d: %zu elements\n", p.count, all, a.sms, a.largest,
           every, timed);
    static const char *what[4] = {
        "input (planFill)", "digest (digestHostGroup)",
        "digest with the timing's masks",
        "reference split (hx_split3), on failures only"};
    for (int k = 0; k < 4; ++k)
        printf("  %-48s %6.2f s  %5.2f ns an element\n", what[k], t[k],
               timed ? t[k] / timed * 1e9 : 0.0);
    printf("  (checksum %016llx)\n", (unsigned long long)keep);
    free(in);
    free(ref);
    planFree(&p);
    return 0;
}
