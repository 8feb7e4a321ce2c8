/* test_split3.c: the harness's host tests: the three-way boundary check. */
#include "t.h"

/* ---- the three-way boundary check -------------------------------------- */

/* One synthetic case: the input, its reference, and a got to break. */
typedef struct {
    size_t n, a, ab, c;   /* A, A + B, C */
    int *in, *want, *got;
} t_split;

static void t_split_make(t_split *t, size_t n, hx_mix mix, uint64_t seed)
{
    t->n = n;
    t->in = t_alloc(n, sizeof *t->in);
    t->want = t_alloc(n, sizeof *t->want);
    t->got = t_alloc(n, sizeof *t->got);
    hx_fill_threeway(t->in, n, mix, seed);
    t_split3_bf(t->in, t->want, n, &t->a, &t->ab);
    t->c = n - t->ab;
    memcpy(t->got, t->want, n * sizeof *t->got);
}

static void t_split_free(t_split *t)
{
    free(t->in), free(t->want), free(t->got);
}

/* Runs the check, then the printer: both boundary lines are always there,
 * and the last line is the verdict naming the kind. Returns the text. */
static char *t_split_run(const t_split *t, const hx_guard_report *g,
                         hx_split_report *r)
{
    t_capture c;
    char *text, *last;
    char verdict[64];
    hx_split_kind k = hx_check_split3(t->in, t->got, t->n, g, r);
    EXPECT(k == r->kind);
    t_capture_begin(&c);
    hx_split_print("three-way split", r, c.f);
    text = t_capture_end(&c);
    if (r->nothing_written)
        EXPECT_STR(text, "\n  nothing was written: every slot still holds "
                   "the poison\n");
    if (r->nothing_written && !r->readings) {
        EXPECT(strstr(text, "boundary 1") == NULL);
    } else {
        EXPECT_STR(text, "  boundary 1 (negatives|zeros):  expected ");
        EXPECT_STR(text, "  boundary 2 (zeros|positives):  expected ");
    }
    EXPECT_STR(text, "three-way split, n = ");
    EXPECT_STR(text, "  first index that disagrees: ");
    EXPECT_STR(text, "  unwritten slots: ");
    EXPECT_STR(text, "  order errors inside a group: ");
    EXPECT_STR(text, "  writes outside the output: ");
    /* The verdict is the last line. */
    last = text + strlen(text);
    if (last > text)
        --last;   /* the final newline */
    while (last > text && last[-1] != '\n')
        --last;
    if (k == HX_SPLIT_PASS)
        snprintf(verdict, sizeof verdict, "PASS\n");
    else
        snprintf(verdict, sizeof verdict, "FAIL: %s: ",
                 hx_split_kind_name(k));
    t_report(strncmp(last, verdict, strlen(verdict)) == 0, __FILE__,
             __LINE__, "verdict line starts \"%s\"; it was:\n%s", verdict,
             text);
    return text;
}

#define EXPECT_KIND(r, k)                                                  \
    t_report((r).kind == (k), __FILE__, __LINE__, "kind %s, want %s",      \
             hx_split_kind_name((r).kind), hx_split_kind_name(k))

void test_split3_check(void)
{
    t_split t;
    hx_split_report r;
    char *text;
    size_t i, a, ab, n;

    /* A thirds mix of 1000 values with distinct-enough magnitudes. */
    t_split_make(&t, 1000, HX_MIX_THIRDS, 31033);
    a = t.a, ab = t.ab, n = t.n;
    t_context("split3 input");
    EXPECT(a >= 10 && ab - a >= 10 && t.c >= 10);

    t_context("split3 correct");
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_PASS);
    EXPECT_LL(r.negatives, a);
    EXPECT_LL(r.zeros, ab - a);
    EXPECT_LL(r.positives, t.c);
    EXPECT_LL(r.want_b1, a);
    EXPECT_LL(r.want_b2, ab);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.found_b2, ab);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.cmp.bad, 0);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "ok\n  boundary 2");
    EXPECT_STR(text, "first index that disagrees: none");
    free(text);

    /* Boundary 1 early: the zeros' base is A - 1. The first zero took the
     * last negative's slot and the last zero's old slot stays poison. */
    t_context("split3 boundary 1 early");
    for (i = 0; i < ab - a; ++i)
        t.got[a - 1 + i] = 0;
    t.got[ab - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a - 1);
    EXPECT_LL(r.b1_ok, 0);
    EXPECT_LL(r.found_b2, ab);
    EXPECT_LL(r.b2_ok, 1);
    EXPECT_LL(r.cmp.first, a - 1);
    EXPECT_LL(r.cmp.got, 0);
    EXPECT_LL(r.cmp.want, t.want[a - 1]);
    EXPECT_LL(r.cmp.bad, 2);
    EXPECT_LL(r.cmp.unwritten, 1);
    EXPECT_LL(r.cmp.first_unwritten, ab - 1);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "WRONG (1 slot early)");
    EXPECT_STR(text, "FAIL: boundary: boundary 1 is 1 slot early\n");
    free(text);

    /* Boundary 1 late: the zeros start at A + 1; slot A is never written
     * and the last zero lost slot A + B to the first positive. */
    t_context("split3 boundary 1 late");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[a] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a + 1);
    EXPECT_LL(r.b1_ok, 0);
    EXPECT_LL(r.found_b2, ab);
    EXPECT_LL(r.b2_ok, 1);
    EXPECT_LL(r.cmp.first, a);
    EXPECT_LL(r.cmp.got, HX_POISON);
    EXPECT_LL(r.cmp.want, 0);
    EXPECT_STR(text, "WRONG (1 slot late)");
    /* The output is also right zeros whose first was never written. */
    EXPECT_LL(r.readings, 1);
    EXPECT_LL(r.also_unwritten, 1);
    {
        char line[128];
        snprintf(line, sizeof line, "  or: every group starts where it "
                 "should, and slot %zu, the zeros' first slot, was never "
                 "written\n", a);
        EXPECT_STR(text, line);
    }
    EXPECT_STR(text, "(the all-zero mix tells these apart: there, zeros one "
               "slot late write at offset n, past the end)\n");
    EXPECT_STR(text, "FAIL: boundary: boundary 1 is 1 slot late (another "
               "reading fits: see above)\n");
    free(text);

    /* ... and the race's other outcome: the last zero won slot A + B. */
    t_context("split3 boundary 1 late, zero wins");
    t.got[ab] = 0;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a + 1);
    EXPECT_LL(r.found_b2, ab);
    EXPECT_LL(r.b2_ok, 1);
    free(text);

    /* Boundary 2 early: the positives' base is A + B - 1; the first
     * positive won the last zero's slot, every positive sits one left and
     * the last slot stays poison. */
    t_context("split3 boundary 2 early");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < t.c; ++i)
        t.got[ab - 1 + i] = t.want[ab + i];
    t.got[n - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.b1_ok, 0);        /* unsure: see the second reading below */
    EXPECT_LL(r.found_b2, ab - 1);
    EXPECT_LL(r.b2_ok, 0);
    EXPECT_LL(r.cmp.first, ab - 1);
    EXPECT_LL(r.cmp.got, t.want[ab]);
    EXPECT_LL(r.cmp.want, 0);
    EXPECT_LL(r.cmp.unwritten, 1);
    EXPECT_LL(r.cmp.first_unwritten, n - 1);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "expected ");
    EXPECT_STR(text, "WRONG (1 slot early)");
    /* Zeros one slot early as well, their first lost to the last
     * negative, leave the same output: a second reading. */
    EXPECT_LL(r.readings, 2);
    EXPECT(r.shift[0][0] == 0 && r.shift[0][1] == 0 && r.shift[0][2] == -1);
    EXPECT(r.shift[1][0] == 0 && r.shift[1][1] == -1 && r.shift[1][2] == -1);
    EXPECT_LL(r.also_unwritten, 0);
    EXPECT_LL(r.start[1], HX_START_UNSURE);
    EXPECT(!r.b1_ok && !r.b2_ok);
    {
        char line[160];
        snprintf(line, sizeof line, "  boundary 1 (negatives|zeros):  "
                 "expected %zu, found %zu in reading 1 (ok), %zu in reading "
                 "2 (1 slot early): not known to be ok\n", a, a, a - 1);
        EXPECT_STR(text, line);
    }
    EXPECT_STR(text, "(the all-zero mix tells these apart");
    EXPECT(strstr(text, "all-positive") == NULL);
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot early (another "
               "reading fits: see above)\n");
    free(text);

    /* The race variant: the last zero won the shared slot A + B - 1, so the
     * first positive is lost and the first positive seen is at A + B; the
     * alignment still finds the base A + B - 1. */
    t_context("split3 boundary 2 early, zero wins");
    t.got[ab - 1] = 0;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.found_b2, ab - 1);
    EXPECT_LL(r.b2_ok, 0);
    EXPECT_LL(r.cmp.first, ab);
    EXPECT_LL(r.cmp.got, t.want[ab + 1]);
    EXPECT_LL(r.cmp.want, t.want[ab]);
    EXPECT_LL(r.order_errors, 0);
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot early\n");
    free(text);

    /* Boundary 2 late: the positives start at A + B + 1; slot A + B stays
     * poison, and (with no guards here) the last positive is simply gone. */
    t_context("split3 boundary 2 late");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = t.c; i-- > 1;)
        t.got[ab + i] = t.want[ab + i - 1];
    t.got[ab] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b1, a);
    EXPECT_LL(r.b1_ok, 1);
    EXPECT_LL(r.found_b2, ab + 1);
    EXPECT_LL(r.b2_ok, 0);
    EXPECT_LL(r.cmp.first, ab);
    EXPECT_LL(r.cmp.got, HX_POISON);
    EXPECT_LL(r.cmp.want, t.want[ab]);
    EXPECT_STR(text, "WRONG (1 slot late)");
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot late\n");
    free(text);

    /* The same kernel with guards: its last positive landed at n. A write
     * outside the output outranks everything else. */
    t_context("split3 write past the end");
    {
        int *whole = t_alloc(n + 2 * T_GUARD, sizeof *whole);
        hx_guard_report g;
        for (i = 0; i < T_GUARD; ++i)
            whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
        memcpy(whole + T_GUARD, t.got, n * sizeof *t.got);
        whole[T_GUARD + n] = t.want[n - 1];
        EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
        text = t_split_run(&t, &g, &r);
        EXPECT_KIND(r, HX_SPLIT_OUT_OF_BOUNDS);
        EXPECT_LL(r.guard.after, 1);
        EXPECT_LL(r.guard.first_after, n);
        EXPECT_LL(r.guard.value_after, t.want[n - 1]);
        EXPECT_LL(r.found_b2, ab + 1);
        EXPECT_LL(r.b2_ok, 0);
        EXPECT_STR(text, "1 word after the end, nearest at index 1000 (n+0)");
        EXPECT_STR(text, "FAIL: out_of_bounds: 1 write past the end");
        free(text);

        /* A write just before the start, on an otherwise right output. */
        t_context("split3 write before the start");
        memcpy(t.got, t.want, n * sizeof *t.got);
        for (i = 0; i < T_GUARD; ++i)
            whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
        memcpy(whole + T_GUARD, t.got, n * sizeof *t.got);
        whole[T_GUARD - 1] = -5;
        EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
        text = t_split_run(&t, &g, &r);
        EXPECT_KIND(r, HX_SPLIT_OUT_OF_BOUNDS);
        EXPECT_LL(r.guard.before, 1);
        EXPECT_LL(r.guard.first_before, -1);
        EXPECT_LL(r.guard.value_before, -5);
        EXPECT(r.b1_ok && r.b2_ok);
        EXPECT_LL(r.cmp.bad, 0);
        EXPECT_STR(text, "1 word before the start, nearest at index -1");
        EXPECT_STR(text, "FAIL: out_of_bounds: 1 write before the start");
        free(text);

        /* A clean guard report changes nothing. */
        t_context("split3 clean guards");
        whole[T_GUARD - 1] = HX_GUARD_WORD;
        EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 0);
        text = t_split_run(&t, &g, &r);
        EXPECT_KIND(r, HX_SPLIT_PASS);
        EXPECT_STR(text, "writes outside the output: none");
        free(text);
        free(whole);
    }

    /* Two groups swapped: zeros first, then negatives, then positives. */
    t_context("split3 swapped zeros/negatives");
    for (i = 0; i < ab - a; ++i)
        t.got[i] = 0;
    for (i = 0; i < a; ++i)
        t.got[ab - a + i] = t.want[i];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_SWAPPED);
    EXPECT_LL(r.swapped_first, 1);
    EXPECT_LL(r.swapped_second, 0);
    EXPECT_STR(text, "FAIL: swapped: zeros come before negatives\n");
    free(text);

    t_context("split3 swapped positives/zeros");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < t.c; ++i)
        t.got[a + i] = t.want[ab + i];
    for (i = a + t.c; i < n; ++i)
        t.got[i] = 0;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_SWAPPED);
    EXPECT_LL(r.swapped_first, 2);
    EXPECT_LL(r.swapped_second, 1);
    EXPECT_STR(text, "FAIL: swapped: positives come before zeros\n");
    free(text);

    /* Order wrong inside a group: two negatives exchanged, then two
     * positives as well. */
    t_context("split3 order (negatives)");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[3] = t.want[4];
    t.got[4] = t.want[3];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_ORDER);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.order_errors, 2);
    EXPECT_LL(r.cmp.bad, 2);
    EXPECT_LL(r.cmp.first, 3);
    EXPECT_LL(r.cmp.got, t.want[4]);
    EXPECT_LL(r.cmp.want, t.want[3]);
    EXPECT_STR(text, "order errors inside a group: 2\n");
    EXPECT_STR(text, "FAIL: order: 2 slots hold the right group's values in "
               "the wrong order\n");
    free(text);

    t_context("split3 order (positives reversed)");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < t.c; ++i)
        t.got[ab + i] = t.want[n - 1 - i];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_ORDER);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.order_errors, r.cmp.bad);
    EXPECT_LL(r.cmp.first, ab);
    free(text);

    /* Positives in a random order (an atomic counter inside the group):
     * chance matches near the boundary must not make it a boundary
     * error. Several shuffles, so a lucky one cannot hide a bug. */
    {
        int *perm = t_alloc(t.c, sizeof *perm);
        uint64_t seed;
        for (seed = 1; seed <= 20; ++seed) {
            t_context("split3 order (positives shuffled, seed %d)",
                      (int)seed);
            memcpy(t.got, t.want, n * sizeof *t.got);
            hx_fill_permutation(perm, t.c, seed);
            for (i = 0; i < t.c; ++i)
                t.got[ab + i] = t.want[ab + (size_t)perm[i]];
            text = t_split_run(&t, NULL, &r);
            EXPECT_KIND(r, HX_SPLIT_ORDER);
            EXPECT_LL(r.found_b2, ab);
            EXPECT_LL(r.order_errors, r.cmp.bad);
            free(text);
        }
        free(perm);
    }

    /* An unwritten slot in the middle of the negatives. */
    t_context("split3 unwritten slot");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[a / 2] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.cmp.bad, 1);
    EXPECT_LL(r.cmp.unwritten, 1);
    EXPECT_LL(r.cmp.first_unwritten, a / 2);
    EXPECT_LL(r.cmp.first, a / 2);
    EXPECT_LL(r.cmp.want, t.want[a / 2]);
    EXPECT_STR(text, "unwritten slots: 1 (first at ");
    EXPECT_STR(text, "FAIL: unwritten: 1 slot was never written (first at ");
    free(text);

    /* A group missing: the zeros' slots never written. */
    t_context("split3 zeros missing");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = a; i < ab; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.cmp.first, a);
    EXPECT_LL(r.cmp.unwritten, ab - a);
    EXPECT_LL(r.unwritten_in[1], ab - a);
    EXPECT_LL(r.start[1], HX_START_UNKNOWN);
    EXPECT(!r.b1_ok && r.b2_ok);
    EXPECT_LL(r.readings, 0);
    EXPECT_STR(text, "boundary 1 (negatives|zeros):  expected 347, not found "
               "(no zero in the output)\n");
    EXPECT_STR(text, "FAIL: unwritten: the zeros were never written\n");
    free(text);

    t_context("split3 negatives missing");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = 0; i < a; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.start[0], HX_START_UNKNOWN);
    EXPECT_STR(text, "negatives' start:  expected 0, not found (no negative "
               "in the output)\n");
    EXPECT_STR(text, "FAIL: unwritten: the negatives were never written\n");
    free(text);

    t_context("split3 positives never written, one more slot");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = ab; i < n; ++i)
        t.got[i] = HX_POISON;
    t.got[3] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.unwritten_in[0], 1);
    EXPECT_LL(r.unwritten_in[2], n - ab);
    EXPECT_STR(text, "FAIL: unwritten: the positives were never written; 1 "
               "more slot was never written\n");
    free(text);

    t_context("split3 unwritten slots in two groups");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[5] = t.got[ab + 7] = t.got[ab + 9] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT(r.b1_ok && r.b2_ok && r.readings == 0);
    EXPECT_STR(text, "unwritten slots: 3 (first at 5; 1 of the negatives', 2 "
               "of the positives')\n");
    EXPECT_STR(text, "FAIL: unwritten: 3 slots were never written (first at "
               "5): 1 of the negatives', 2 of the positives'\n");
    free(text);

    t_context("split3 positives missing");
    memcpy(t.got, t.want, n * sizeof *t.got);
    for (i = ab; i < n; ++i)
        t.got[i] = 0;   /* zeros where the positives belong */
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_GROUP_MISSING);
    EXPECT_LL(r.missing_group, 2);
    free(text);

    /* Interleaved: a negative among the positives. */
    t_context("split3 interleaved");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[ab + 5] = t.want[0];
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_MISMATCH);
    EXPECT_LL(r.cmp.first, ab + 5);
    EXPECT_LL(r.cmp.got, t.want[0]);
    EXPECT_LL(r.cmp.want, t.want[ab + 5]);
    EXPECT_STR(text, "FAIL: mismatch: the groups are interleaved: slot ");
    EXPECT_STR(text, "holds a negative where the positives belong");
    free(text);

    /* A value the group does not have, in an otherwise right output. */
    t_context("split3 foreign value");
    memcpy(t.got, t.want, n * sizeof *t.got);
    t.got[ab + 5] = 1000001;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_MISMATCH);
    EXPECT(r.b1_ok && r.b2_ok);
    EXPECT_LL(r.cmp.bad, 1);
    EXPECT_LL(r.cmp.first, ab + 5);
    EXPECT_LL(r.cmp.got, 1000001);
    EXPECT_STR(text, "FAIL: mismatch: a group holds a value its input group "
               "does not have");
    free(text);

    /* The starter: nothing written at all. */
    t_context("split3 nothing written");
    for (i = 0; i < n; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_UNWRITTEN);
    EXPECT_LL(r.cmp.unwritten, n);
    EXPECT_LL(r.cmp.first, 0);
    EXPECT_LL(r.found_b1, n);
    EXPECT_LL(r.found_b2, n);
    EXPECT(!r.b1_ok && !r.b2_ok);
    EXPECT_LL(r.nothing_written, 1);
    EXPECT_LL(r.readings, 0);
    EXPECT(r.start[0] == HX_START_UNKNOWN && r.start[1] == HX_START_UNKNOWN &&
           r.start[2] == HX_START_UNKNOWN);
    EXPECT(strstr(text, "WRONG") == NULL && strstr(text, " ok") == NULL);
    EXPECT_STR(text, "FAIL: unwritten: nothing was written: every slot still "
               "holds the poison\n");
    {
        char brief[160];
        hx_split_brief(brief, sizeof brief, &r);
        EXPECT(strcmp(brief, "nothing was written: every slot still holds "
                      "the poison") == 0);
    }
    free(text);
    t_split_free(&t);

    /* Empty input: nothing to place, nothing wrong. */
    t_context("split3 n = 0");
    t_split_make(&t, 0, HX_MIX_THIRDS, 1);
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_PASS);
    EXPECT(r.found_b1 == 0 && r.found_b2 == 0 && r.b1_ok && r.b2_ok);
    free(text);
    t_split_free(&t);

    /* Every mix, correct, at sizes that end every way: PASS. */
    {
        int m;
        size_t si;
        for (m = 0; m < HX_MIX_COUNT; ++m)
            for (si = 0; si < T_NSIZES; ++si) {
                t_context("split3 correct %s n=%zu", hx_mix_name((hx_mix)m),
                          t_sizes[si]);
                t_split_make(&t, t_sizes[si], (hx_mix)m, 5 + si);
                text = t_split_run(&t, NULL, &r);
                EXPECT_KIND(r, HX_SPLIT_PASS);
                EXPECT(r.b1_ok && r.b2_ok);
                EXPECT_LL(r.found_b1, t.a);
                EXPECT_LL(r.found_b2, t.ab);
                free(text);
                t_split_free(&t);
            }
    }

    /* Boundary 2 early when there are no zeros: the positives overwrite
     * the last negative. */
    t_context("split3 no zeros, boundary 2 early");
    t_split_make(&t, 1001, HX_MIX_NO_ZEROS, 8);
    a = t.a, ab = t.ab, n = t.n;
    for (i = 0; i < t.c; ++i)
        t.got[ab - 1 + i] = t.want[ab + i];
    t.got[n - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
    EXPECT_LL(r.found_b2, ab - 1);
    EXPECT_LL(r.found_b1, ab);     /* no zeros: their start does not move */
    EXPECT(r.b1_ok && !r.b2_ok);
    EXPECT_STR(text, "FAIL: boundary: boundary 2 is 1 slot early\n");
    free(text);
    t_split_free(&t);

    t_context("split3 kind names");
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_PASS), "pass") == 0);
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_OUT_OF_BOUNDS),
                  "out_of_bounds") == 0);
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_GROUP_MISSING),
                  "group_missing") == 0);
    EXPECT(strcmp(hx_split_kind_name(HX_SPLIT_MISMATCH), "mismatch") == 0);
    t_context("%s", "");
}

/* ---- off-by-one kernels, simulated ------------------------------------- */

/* Runs on the host the scatter a kernel with a wrong base does: group k
 * (0 negatives, 1 zeros, 2 positives) goes to its right slot plus d[k],
 * as a base one slot too small puts a group one slot early. whole receives
 * T_GUARD guard words, the n output slots (poisoned first), T_GUARD guard
 * words. Two elements that land on one slot race: with last_wins the one
 * later in input order stays, else the earlier one. */
static void t_shifted_kernel(const int *in, size_t n, const int d[3],
                             int last_wins, int *whole)
{
    size_t i, a = 0, b = 0, rank[3] = {0, 0, 0};
    for (i = 0; i < T_GUARD; ++i)
        whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
    for (i = 0; i < n; ++i) {
        whole[T_GUARD + i] = HX_POISON;
        a += in[i] < 0;
        b += in[i] == 0;
    }
    for (i = 0; i < n; ++i) {
        const int k = in[i] < 0 ? 0 : in[i] == 0 ? 1 : 2;
        const size_t base = k == 0 ? 0 : k == 1 ? a : a + b;
        const long long slot = (long long)(base + rank[k]++) + d[k];
        int *w = whole + T_GUARD + slot;
        const int untouched = slot >= 0 && slot < (long long)n
                              ? HX_POISON : HX_GUARD_WORD;
        if (last_wins || *w == untouched)
            *w = in[i];
    }
}

void test_split3_off_by_one(void)
{
    static const struct {
        hx_mix mix;
        size_t n;
    } cases[] = {
        {HX_MIX_THIRDS, 257}, {HX_MIX_THIRDS, 1000}, {HX_MIX_THIRDS, 1001},
        {HX_MIX_THIRDS, 65537}, {HX_MIX_THIRDS, 3}, {HX_MIX_THIRDS, 31},
        {HX_MIX_ENDS, 11}, {HX_MIX_ENDS, 1001}, {HX_MIX_NO_ZEROS, 1001},
        {HX_MIX_ALL_ZERO, 1}, {HX_MIX_ALL_ZERO, 1000}, {HX_MIX_ALL_POS, 1000},
        {HX_MIX_ALL_NEG, 1000},
    };
    static const struct {
        int k, d;
        const char *name;
    } kernels[] = {
        {1, -1, "zeros one slot early"}, {1, +1, "zeros one slot late"},
        {2, -1, "positives one slot early"}, {2, +1, "positives one slot late"},
    };
    static const char *const names[3] = {"negatives", "zeros", "positives"};
    size_t c, kk;
    int race;

    for (c = 0; c < sizeof cases / sizeof *cases; ++c)
        for (kk = 0; kk < sizeof kernels / sizeof *kernels; ++kk) {
            const size_t n = cases[c].n;
            const int k = kernels[kk].k, d = kernels[kk].d;
            const int thirds = cases[c].mix == HX_MIX_THIRDS && n >= 257;
            int *whole[2], shift[3] = {0, 0, 0};
            t_split t;
            size_t i, start[3], size[3];
            t_split_make(&t, n, cases[c].mix, 7 + c);
            start[0] = 0, start[1] = t.a, start[2] = t.ab;
            size[0] = t.a, size[1] = t.ab - t.a, size[2] = t.c;
            shift[k] = d;
            whole[0] = t_alloc(n + 2 * T_GUARD, sizeof *whole[0]);
            whole[1] = t_alloc(n + 2 * T_GUARD, sizeof *whole[1]);
            for (race = 0; race < 2; ++race) {
                hx_split_report r;
                hx_guard_report g;
                char *text, line[160];
                const int outside = d < 0 ? start[k] == 0
                                          : start[k] + size[k] == n;
                const long long taken = d < 0 ? (long long)start[k] - 1
                                              : (long long)(start[k] + size[k]);
                const size_t left = d < 0 ? start[k] + size[k] - 1 : start[k];
                int found_true = 0;
                t_context("%s, %s writer wins, mix %s, n=%zu",
                          kernels[kk].name, race ? "last" : "first",
                          hx_mix_name(cases[c].mix), n);
                t_shifted_kernel(t.in, n, shift, race, whole[race]);
                hx_guard_scan(whole[race], n, T_GUARD, &g);
                memcpy(t.got, whole[race] + T_GUARD, n * sizeof *t.got);
                text = t_split_run(&t, &g, &r);
                if (size[k] == 0) {
                    /* No element of the shifted group: nothing moves. */
                    EXPECT_KIND(r, HX_SPLIT_PASS);
                    free(text);
                    continue;
                }
                EXPECT_KIND(r, outside ? HX_SPLIT_OUT_OF_BOUNDS
                                       : HX_SPLIT_BOUNDARY);
                /* The flagged boundary is the shifted group's start, and
                 * nothing calls it ok. */
                EXPECT(r.start[k] == HX_START_WRONG);
                EXPECT(k == 1 ? !r.b1_ok : !r.b2_ok);
                for (i = 0; i < r.readings && i < HX_SPLIT_READINGS; ++i)
                    found_true |= memcmp(r.shift[i], shift, sizeof shift) == 0;
                EXPECT(found_true);
                if (r.readings == 1 || thirds) {
                    /* Unambiguous, or the thirds mix: the first reading
                     * is this kernel, and the other boundary is not wrong
                     * (ok, or unsure where a second reading shifts it
                     * too: positives one slot early whose first took the
                     * last zero's slot could also be zeros and positives
                     * early). */
                    EXPECT(memcmp(r.shift[0], shift, sizeof shift) == 0);
                    EXPECT_LL(r.found_start[k], (long long)start[k] + d);
                    EXPECT(r.start[3 - k] == HX_START_OK ||
                           (r.readings > 1 &&
                            r.start[3 - k] == HX_START_UNSURE));
                    EXPECT(r.start[0] == HX_START_OK);
                    if (r.readings == 1)
                        EXPECT(k == 1 ? r.b2_ok : r.b1_ok);
                }
                /* The slot the moved element took, and the one left. */
                if (outside) {
                    if (d < 0)
                        snprintf(line, sizeof line, "went to offset -1, just "
                                 "before the output");
                    else
                        snprintf(line, sizeof line, "went to offset n (index "
                                 "%zu), just past the end", n);
                    EXPECT_STR(text, line);
                    EXPECT_LL(d < 0 ? r.guard.first_before
                                    : r.guard.first_after, taken);
                } else {
                    snprintf(line, sizeof line, "    slot %lld holds ", taken);
                    EXPECT_STR(text, line);
                    /* Where readings disagree (one zero, lost to either
                     * neighbour), the first may shift the other way. */
                    snprintf(line, sizeof line, "boundary %d is 1 slot %s", k,
                             r.shift[0][k] < 0 ? "early" : "late");
                    EXPECT_STR(text, line);
                }
                if (t.got[left] == HX_POISON) {
                    snprintf(line, sizeof line, "    slot %zu, the %s' %s "
                             "slot, was never written\n", left, names[k],
                             d < 0 ? "last" : "first");
                    EXPECT_STR(text, line);
                }
                /* A write outside is no unwritten slot: the right split
                 * with holes writes nothing there. */
                if (outside)
                    EXPECT_LL(r.also_unwritten, 0);
                /* What a write before the output means for this split. */
                if (outside && d < 0 && k == 1)
                    EXPECT_STR(text, "with no negatives in this input the "
                               "zeros start at slot 0");
                free(text);

                /* Without guards the same kernel is a boundary error:
                 * its write outside is unseen. */
                if (thirds) {
                    text = t_split_run(&t, NULL, &r);
                    EXPECT_KIND(r, HX_SPLIT_BOUNDARY);
                    EXPECT(r.start[k] == HX_START_WRONG);
                    EXPECT_LL(r.found_start[k], (long long)start[k] + d);
                    free(text);
                }
            }
            /* Both race outcomes were tried: where two writes share a
             * slot (all but positives late, whose last write goes past
             * the end), the two outputs differ. */
            if (thirds && !(k == 2 && d > 0)) {
                t_context("%s, mix thirds, n=%zu: the race", kernels[kk].name,
                          n);
                EXPECT(memcmp(whole[0], whole[1],
                              (n + 2 * T_GUARD) * sizeof *whole[0]) != 0);
            }
            free(whole[0]);
            free(whole[1]);
            t_split_free(&t);
        }
    t_context("%s", "");
}

/* The one-line summary a table of runs prints. */
void test_split3_brief(void)
{
    t_split t;
    hx_split_report r;
    char brief[160], *text;
    size_t i;
    t_context("split3 brief");
    t_split_make(&t, 1000, HX_MIX_THIRDS, 31033);
    text = t_split_run(&t, NULL, &r);
    hx_split_brief(brief, sizeof brief, &r);
    EXPECT(strcmp(brief, "boundary 1 at 347 ok, boundary 2 at 698 ok") == 0);
    free(text);
    /* Zeros one slot early, the last negative winning: the last zero's
     * slot is poison, nothing else differs. */
    t.got[t.ab - 1] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    hx_split_brief(brief, sizeof brief, &r);
    EXPECT_STR(brief, "boundary 1 at 346, want 347 WRONG, boundary 2 at 698 "
               "ok (2 readings)");
    free(text);
    memcpy(t.got, t.want, t.n * sizeof *t.got);
    for (i = t.a; i < t.ab; ++i)
        t.got[i] = HX_POISON;
    text = t_split_run(&t, NULL, &r);
    hx_split_brief(brief, sizeof brief, &r);
    EXPECT_STR(brief, "boundary 1 not found (no zero written), boundary 2 at "
               "698 ok");
    free(text);
    hx_split_brief(brief, 10, &r);
    EXPECT_LL(strlen(brief), 9);
    t_split_free(&t);
    t_context("%s", "");
}
