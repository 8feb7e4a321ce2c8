/* judge.c: the driver's verdict on one run's output. Contracts are in
 * judge.h. */
#include "judge.h"

#include <stdio.h>
#include <string.h>

void judgePass(size_t n, size_t a, size_t ab, const hx_guard_report *g,
               hx_split_report *r)
{
    int k;
    memset(r, 0, sizeof *r);
    r->kind = HX_SPLIT_PASS;
    r->n = n;
    r->negatives = a;
    r->zeros = ab - a;
    r->positives = n - ab;
    r->want_start[0] = 0;
    r->want_start[1] = (long long)a;
    r->want_start[2] = (long long)ab;
    for (k = 0; k < 3; ++k) {
        r->found_start[k] = r->want_start[k];
        r->start[k] = HX_START_OK;
    }
    r->want_b1 = r->found_b1 = a;
    r->want_b2 = r->found_b2 = ab;
    r->b1_ok = r->b2_ok = 1;
    r->guard = *g;
}

void judgeRun(const int *in, const int *ref, const int *got, size_t n,
              size_t a, size_t ab, const hx_guard_report *g,
              judge_verdict *v)
{
    if (!g->before && !g->after &&
        (n == 0 || memcmp(got, ref, n * sizeof *got) == 0))
        judgePass(n, a, ab, g, &v->r);
    else
        hx_check_split3(in, got, n, g, &v->r);
    v->status = judgeStatus(v->r.kind);
    /* Whatever the status: a lone zero never written at a boundary is a
     * boundary error, and the zeros are still never written. */
    judgeUnwrittenGroups(&v->r, v->group, sizeof v->group);
}

const char *judgeStatus(hx_split_kind k)
{
    switch (k) {
    case HX_SPLIT_SWAPPED:
    case HX_SPLIT_GROUP_MISSING:
        return "boundary";
    default:
        return hx_split_kind_name(k);
    }
}

int judgeUnwrittenGroups(const hx_split_report *r, char *buf, size_t len)
{
    static const char *const names[3] = {"negatives", "zeros", "positives"};
    const size_t sizes[3] = {r->negatives, r->zeros, r->positives};
    int k, whole[3], count = 0, named = 0;
    size_t at = 0;
    for (k = 0; k < 3; ++k) {
        whole[k] = sizes[k] && r->unwritten_in[k] == sizes[k];
        count += whole[k];
    }
    if (len)
        buf[0] = '\0';
    for (k = 0; k < 3; ++k) {
        int w;
        if (!whole[k] || at >= len)
            continue;
        ++named;
        w = snprintf(buf + at, len - at, "%s%s",
                     named == 1 ? "" : named == count ? " and " : ", ",
                     names[k]);
        if (w > 0)
            at += (size_t)w;
    }
    return count;
}
