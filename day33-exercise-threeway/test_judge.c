/* test_judge.c: host test of judge.c, the driver's verdict on one run,
 * against the harness's three-way check. No GPU, no CUDA:
 *
 *   make test-host         (in this folder; the top-level make check runs it)
 *
 * For every input mix at sizes from 0 to 65537, on outputs made here the
 * way a kernel would leave them (with guard words on both sides, as the
 * driver lays them down):
 * - the reference split: judgeRun's report (its fast path) must equal
 *   hx_check_split3's field for field, and pass;
 * - the four off-by-one kernels (the zeros' or the positives' base one
 *   slot early or late), with either write winning each shared slot: the
 *   same report as hx_check_split3's, and status boundary (out_of_bounds
 *   where the shifted group ends at either end of the output), never
 *   unwritten;
 * - kernels that write nothing, skip a group or two, or skip one slot:
 *   status unwritten (or boundary, for a lone element at a boundary),
 *   naming exactly the groups never written;
 * - groups in the wrong order, or a group overwritten: status boundary;
 * - the reference output with one write outside it: out_of_bounds.
 * One "passed" or "failed" per assertion; failures print the line, the
 * case and the values; the last line is "N passed, M failed", and the
 * exit code is 1 when M > 0.
 */
#include "judge.h"
#include "hx_check.h"
#include "hx_input.h"
#include "hx_ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long passed, failed;
static char where[160];   /* the case under test, for failure lines */

static void expect(int ok, int line, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        ++passed;
        return;
    }
    ++failed;
    printf("FAIL test_judge.c:%d: ", line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("  [%s]\n", where);
}

#define EXPECT(c) expect(!!(c), __LINE__, "%s", #c)
#define EXPECT_STR(got, want)                                             \
    expect(strcmp((got), (want)) == 0, __LINE__, "%s is \"%s\", want \"%s\"", \
           #got, (got), (want))

/* Guard words on each side of an output made here. */
#define GUARD 8

static void *alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        printf("test_judge: out of host memory\n");
        exit(2);
    }
    return p;
}

/* The name of the first field where two reports differ, or NULL when
 * they agree everywhere (every field, then every byte, so that a field
 * added to hx_split_report later is not missed). Both reports start from
 * memset, so their padding agrees. */
static const char *reportDiff(const hx_split_report *x,
                              const hx_split_report *y)
{
    int k;
    size_t i;
    if (x->kind != y->kind) return "kind";
    if (x->n != y->n) return "n";
    if (x->negatives != y->negatives || x->zeros != y->zeros ||
        x->positives != y->positives) return "group sizes";
    for (k = 0; k < 3; ++k) {
        if (x->want_start[k] != y->want_start[k]) return "want_start";
        if (x->found_start[k] != y->found_start[k]) return "found_start";
        if (x->start[k] != y->start[k]) return "start";
        if (x->unwritten_in[k] != y->unwritten_in[k]) return "unwritten_in";
    }
    if (x->want_b1 != y->want_b1 || x->want_b2 != y->want_b2)
        return "want_b1/want_b2";
    if (x->found_b1 != y->found_b1 || x->found_b2 != y->found_b2)
        return "found_b1/found_b2";
    if (x->b1_ok != y->b1_ok || x->b2_ok != y->b2_ok) return "b1_ok/b2_ok";
    if (memcmp(&x->cmp, &y->cmp, sizeof x->cmp)) return "cmp";
    if (x->nothing_written != y->nothing_written) return "nothing_written";
    if (x->order_errors != y->order_errors) return "order_errors";
    if (x->missing_group != y->missing_group) return "missing_group";
    if (x->swapped_first != y->swapped_first ||
        x->swapped_second != y->swapped_second) return "swapped";
    if (x->readings != y->readings) return "readings";
    for (i = 0; i < x->readings && i < HX_SPLIT_READINGS; ++i)
        for (k = 0; k < 3; ++k) {
            if (x->shift[i][k] != y->shift[i][k]) return "shift";
            if (memcmp(&x->move[i][k], &y->move[i][k], sizeof x->move[i][k]))
                return "move";
        }
    if (x->also_unwritten != y->also_unwritten) return "also_unwritten";
    if (memcmp(&x->guard, &y->guard, sizeof x->guard)) return "guard";
    if (memcmp(x, y, sizeof *x)) return "some byte of the report";
    return NULL;
}

/* One input, its reference split, and room for an output between guards
 * (out = whole + GUARD). */
typedef struct {
    size_t n, a, ab, start[3], size[3];
    int *in, *ref, *whole, *out;
} Case;

static void caseMake(Case *c, size_t n, hx_mix mix, uint64_t seed)
{
    c->n = n;
    c->in = alloc(n, sizeof *c->in);
    c->ref = alloc(n, sizeof *c->ref);
    c->whole = alloc(n + 2 * GUARD, sizeof *c->whole);
    c->out = c->whole + GUARD;
    hx_fill_threeway(c->in, n, mix, seed);
    hx_split3(c->in, c->ref, n, &c->a, &c->ab);
    c->start[0] = 0, c->start[1] = c->a, c->start[2] = c->ab;
    c->size[0] = c->a, c->size[1] = c->ab - c->a, c->size[2] = n - c->ab;
}

static void caseFree(Case *c)
{
    free(c->in);
    free(c->ref);
    free(c->whole);
}

/* Lays down the guards and the reference output. */
static void outputRef(Case *c)
{
    size_t i;
    for (i = 0; i < GUARD; ++i)
        c->whole[i] = c->whole[GUARD + c->n + i] = HX_GUARD_WORD;
    if (c->n)
        memcpy(c->out, c->ref, c->n * sizeof *c->out);
}

/* The output of a kernel whose base for group k is d slots off (-1 or
 * +1): the group moves one slot, its end element onto the slot next to
 * it (the neighbour group's, or the guard word at -1 or n), and leaves
 * its other end slot unwritten. Where two writes share a slot, the
 * moved element stays when movedWins, else the neighbour's. */
static void outputShifted(Case *c, int k, int d, int movedWins)
{
    const long long first = (long long)c->start[k];
    const long long end = first + (long long)c->size[k];
    const long long taken = d < 0 ? first - 1 : end;
    long long j;
    outputRef(c);
    if (c->size[k] == 0)
        return;
    if (d < 0)
        for (j = first; j < end; ++j)
            c->out[j - 1] = c->ref[j];
    else
        for (j = end - 1; j >= first; --j)
            c->out[j + 1] = c->ref[j];
    c->out[d < 0 ? end - 1 : first] = HX_POISON;
    if (!movedWins && taken >= 0 && taken < (long long)c->n)
        c->out[taken] = c->ref[taken];
}

/* Poisons the slots of the groups in mask (bit k: group k) in the
 * reference output. */
static void outputSkipping(Case *c, unsigned mask)
{
    int k;
    size_t i;
    outputRef(c);
    for (k = 0; k < 3; ++k)
        for (i = 0; (mask >> k & 1u) && i < c->size[k]; ++i)
            c->out[c->start[k] + i] = HX_POISON;
}

/* judgeRun on the output as it stands, and hx_check_split3 on the same:
 * the reports must agree. Fills *v. */
static void judgeBoth(const Case *c, judge_verdict *v)
{
    hx_guard_report g;
    hx_split_report direct;
    const char *diff;
    hx_guard_scan(c->whole, c->n, GUARD, &g);
    judgeRun(c->in, c->ref, c->out, c->n, c->a, c->ab, &g, v);
    hx_check_split3(c->in, c->out, c->n, &g, &direct);
    diff = reportDiff(&v->r, &direct);
    expect(diff == NULL, __LINE__, "judgeRun's report differs from "
           "hx_check_split3's in %s", diff ? diff : "");
}

static void testReference(Case *c)
{
    judge_verdict v;
    outputRef(c);
    judgeBoth(c, &v);
    EXPECT_STR(v.status, "pass");
    EXPECT_STR(v.group, "");
    EXPECT(v.r.want_start[1] == (long long)c->a &&
           v.r.found_start[2] == (long long)c->ab);

    /* One write just past the end: never the fast path. */
    outputRef(c);
    c->whole[GUARD + c->n] = 7;
    judgeBoth(c, &v);
    EXPECT_STR(v.status, "out_of_bounds");
}

/* The four off-by-one kernels: the zeros' (k = 1) or the positives'
 * (k = 2) base one slot early (d = -1) or late (d = +1). */
static void testOffByOne(Case *c)
{
    static const char *const groups[3] = {"negatives", "zeros", "positives"};
    const size_t len = strlen(where);
    int k, d, wins;
    for (k = 1; k <= 2; ++k)
        for (d = -1; d <= 1; d += 2)
            for (wins = 0; wins < 2; ++wins) {
                const int outside = d < 0 ? c->start[k] == 0
                                          : c->start[k] + c->size[k] == c->n;
                judge_verdict v;
                snprintf(where + len, sizeof where - len,
                         ", %s one slot %s, %s wins", groups[k],
                         d < 0 ? "early" : "late",
                         wins ? "it" : "the neighbour");
                outputShifted(c, k, d, wins);
                judgeBoth(c, &v);
                /* A lone element shifted leaves its group's one slot
                 * never written: the group is named, whatever the
                 * status; a larger group keeps a slot written. */
                EXPECT_STR(v.group, c->size[k] == 1 && v.group[0]
                                        ? groups[k] : "");
                if (c->size[k] == 0)
                    EXPECT_STR(v.status, "pass");
                else if (outside)
                    EXPECT_STR(v.status, "out_of_bounds");
                else
                    EXPECT_STR(v.status, "boundary");
                /* Nothing calls the shifted boundary ok. */
                if (c->size[k])
                    EXPECT(k == 1 ? !v.r.b1_ok : !v.r.b2_ok);
            }
    where[len] = '\0';
}

static void testUnwritten(Case *c)
{
    static const char *const names[8] = {
        "", "negatives", "zeros", "negatives and zeros", "positives",
        "negatives and positives", "zeros and positives",
        "negatives, zeros and positives"};
    const size_t len = strlen(where);
    unsigned mask;
    for (mask = 1; mask < 8; ++mask) {
        judge_verdict v;
        unsigned present = 0, skipped;
        int k, beyondShift = 1;
        for (k = 0; k < 3; ++k)
            present |= (c->size[k] > 0 ? 1u : 0u) << k;
        skipped = mask & present;
        if (!skipped)
            continue;    /* skipping empty groups skips nothing */
        for (k = 0; k < 3; ++k)
            if (skipped >> k & 1u)
                beyondShift &= c->size[k] >= 2;
        snprintf(where + len, sizeof where - len, ", %s skipped",
                 names[skipped]);
        outputSkipping(c, mask);
        judgeBoth(c, &v);
        /* A group of two or more never written is beyond any one-slot
         * shift (a shifted group leaves one slot, and its values stay
         * visible in the others), and so is an output with nothing
         * written: unwritten. A lone element never written can also
         * read as a shift that lost its race: the check may say boundary
         * then. Either way the groups never written are named. */
        if (beyondShift || skipped == present)
            EXPECT_STR(v.status, "unwritten");
        else
            EXPECT(!strcmp(v.status, "unwritten") ||
                   !strcmp(v.status, "boundary"));
        EXPECT_STR(v.group, names[skipped]);
    }
    where[len] = '\0';

    if (c->n >= 2) {
        judge_verdict v;
        int k = 0;
        while (!(c->start[k] <= 1 && 1 < c->start[k] + c->size[k]))
            ++k;   /* slot 1's group */
        snprintf(where + len, sizeof where - len, ", slot 1 skipped");
        outputRef(c);
        c->out[1] = HX_POISON;
        judgeBoth(c, &v);
        /* A hole strictly inside a group (not at an end, where a shifted
         * group leaves its hole) is unwritten, and names no group. */
        if (c->start[k] < 1 && 2 < c->start[k] + c->size[k]) {
            EXPECT_STR(v.status, "unwritten");
            EXPECT_STR(v.group, "");
        } else {
            EXPECT_STR(v.group, c->size[k] == 1 ? names[1u << k] : "");
        }
        where[len] = '\0';
    }
}

/* Groups in the wrong place: status boundary, whatever the check's own
 * kind (swapped, group_missing). */
static void testMisplaced(Case *c)
{
    judge_verdict v;
    size_t i;
    const size_t len = strlen(where);
    if (c->size[0] >= 2 && c->size[2] >= 2) {
        /* The positives first, then the zeros, then the negatives. */
        snprintf(where + len, sizeof where - len, ", groups reversed");
        outputRef(c);
        memcpy(c->out, c->ref + c->ab, c->size[2] * sizeof *c->out);
        memcpy(c->out + c->size[2], c->ref + c->a,
               c->size[1] * sizeof *c->out);
        memcpy(c->out + c->size[2] + c->size[1], c->ref,
               c->size[0] * sizeof *c->out);
        judgeBoth(c, &v);
        EXPECT_STR(hx_split_kind_name(v.r.kind), "swapped");
        EXPECT_STR(v.status, "boundary");
    }
    if (c->size[1] >= 2) {
        /* The zeros' slots hold a negative value instead. */
        snprintf(where + len, sizeof where - len, ", zeros overwritten");
        outputRef(c);
        for (i = 0; i < c->size[1]; ++i)
            c->out[c->a + i] = -5;
        judgeBoth(c, &v);
        EXPECT_STR(hx_split_kind_name(v.r.kind), "group_missing");
        EXPECT_STR(v.status, "boundary");
        EXPECT_STR(v.group, "");
    }
    where[len] = '\0';
}

int main(void)
{
    static const size_t sizes[] = {0,   1,    2,    3,    5,    31,
                                   256, 257,  1000, 1001, 4097, 65537};
    size_t s;
    int m;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (m = 0; m < (int)HX_MIX_COUNT; ++m) {
            Case c;
            caseMake(&c, sizes[s], (hx_mix)m, 1000u + 31u * s + (unsigned)m);
            snprintf(where, sizeof where, "n=%zu mix=%s", sizes[s],
                     hx_mix_name((hx_mix)m));
            testReference(&c);
            testOffByOne(&c);
            testUnwritten(&c);
            testMisplaced(&c);
            caseFree(&c);
        }
    printf("test_judge, the judge's own tests (judge.c on made-up outputs; no "
           "kernel runs here): %ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
