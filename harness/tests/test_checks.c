/* test_checks.c: the harness's host tests: the element, same-values and guard checks. */
#include "t.h"

/* ---- element and same-values checks ------------------------------------ */

void test_check_equal(void)
{
    int want[100], got[100], i;
    hx_cmp r;
    t_capture c;
    char *text;

    for (i = 0; i < 100; ++i)
        want[i] = got[i] = i * 3 - 50;
    t_context("check_equal pass");
    EXPECT_LL(hx_check_equal("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.bad, 0);
    EXPECT_LL(r.unwritten, 0);
    EXPECT_LL(hx_check_equal("x", got, want, 0, &r, NULL), 0);
    t_capture_begin(&c);
    hx_check_equal("x", got, want, 100, &r, c.f);
    text = t_capture_end(&c);
    EXPECT(text[0] == '\0');   /* silent on success */
    free(text);

    t_context("check_equal one bad");
    got[37] = 5;
    EXPECT_LL(hx_check_equal("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.bad, 1);
    EXPECT_LL(r.first, 37);
    EXPECT_LL(r.got, 5);
    EXPECT_LL(r.want, want[37]);
    EXPECT_LL(r.unwritten, 0);
    t_capture_begin(&c);
    hx_check_equal("scan", got, want, 100, &r, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "scan: FAIL at n=100: first bad index 37: got 5, want "
               "61; 1 of 100 slots differ (0 never written)\n");
    EXPECT_LL(t_count_lines(text), 1);
    free(text);

    t_context("check_equal unwritten");
    got[90] = HX_POISON;
    got[95] = HX_POISON;
    EXPECT_LL(hx_check_equal("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.bad, 3);
    EXPECT_LL(r.first, 37);
    EXPECT_LL(r.unwritten, 2);
    EXPECT_LL(r.first_unwritten, 90);
    t_context("%s", "");
}

void test_check_same(void)
{
    int want[100], got[100], i;
    hx_same r;
    t_capture c;
    char *text;

    for (i = 0; i < 100; ++i)
        want[i] = got[i] = 1000 - i * 7;
    t_context("same_values identical");
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.out_of_order, 0);
    EXPECT_LL(r.missing + r.extra + r.unwritten, 0);
    EXPECT_LL(hx_check_same_values("x", got, want, 0, &r, NULL), 0);

    t_context("same_values permuted");
    for (i = 0; i < 100; ++i)
        got[i] = want[99 - i];
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.out_of_order, 100);
    EXPECT_LL(r.missing, 0);
    EXPECT_LL(r.extra, 0);
    for (i = 0; i < 100; ++i)
        got[i] = want[i];
    got[10] = want[11];
    got[11] = want[10];
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 0);
    EXPECT_LL(r.out_of_order, 2);

    t_context("same_values negatives and extremes");
    {
        /* The multiset compare sorts by radix with the sign bit flipped:
         * negatives, INT_MIN and INT_MAX must order like plain ints. */
        int w2[8] = {-5, 3, INT_MIN, 0, INT_MAX, -1, 3, -70000};
        int g2[8] = {3, INT_MAX, -70000, -1, 0, INT_MIN, -5, 3};
        EXPECT_LL(hx_check_same_values("x", g2, w2, 8, &r, NULL), 0);
        EXPECT_LL(r.out_of_order, 8);
        g2[0] = -3;   /* one 3 replaced: a 3 missing, a -3 extra */
        EXPECT_LL(hx_check_same_values("x", g2, w2, 8, &r, NULL), 1);
        EXPECT_LL(r.missing, 1);
        EXPECT_LL(r.extra, 1);
        EXPECT_LL(r.first_missing_value, 3);
        /* A sort in unsigned order would put -1 after 2 and make the
         * merge count two missing and two extra here. */
        w2[0] = -1;
        w2[1] = 2;
        g2[0] = 1;
        g2[1] = -1;
        EXPECT_LL(hx_check_same_values("x", g2, w2, 2, &r, NULL), 1);
        EXPECT_LL(r.missing, 1);
        EXPECT_LL(r.extra, 1);
        EXPECT_LL(r.first_missing_value, 2);
    }

    t_context("same_values missing");
    got[10] = want[10];
    got[11] = want[11];
    got[5] = 123456;   /* not in want: want[5]'s value is missing */
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.missing, 1);
    EXPECT_LL(r.extra, 1);
    EXPECT_LL(r.first_missing_index, 5);
    EXPECT_LL(r.first_missing_value, want[5]);
    EXPECT_LL(r.out_of_order, 1);
    t_capture_begin(&c);
    hx_check_same_values("atomic", got, want, 100, &r, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "atomic: FAIL at n=100");
    EXPECT_STR(text, "first: 965, reference index 5");
    EXPECT_LL(t_count_lines(text), 1);
    free(text);

    t_context("same_values unwritten");
    got[5] = want[5];
    got[70] = HX_POISON;
    EXPECT_LL(hx_check_same_values("x", got, want, 100, &r, NULL), 1);
    EXPECT_LL(r.unwritten, 1);
    EXPECT_LL(r.missing, 1);
    EXPECT_LL(r.first_missing_index, 70);

    t_context("same_values multiplicity");
    {
        int w[4] = {3, 3, 4, 9}, g[4] = {4, 3, 4, 9};
        EXPECT_LL(hx_check_same_values("x", g, w, 4, &r, NULL), 1);
        EXPECT_LL(r.missing, 1);
        EXPECT_LL(r.extra, 1);
        EXPECT_LL(r.first_missing_index, 0);
        EXPECT_LL(r.first_missing_value, 3);
    }
    t_context("%s", "");
}

/* ---- guards ------------------------------------------------------------ */


static void t_guarded(int *whole, size_t n)
{
    size_t i;
    for (i = 0; i < T_GUARD; ++i)
        whole[i] = whole[T_GUARD + n + i] = HX_GUARD_WORD;
    for (i = 0; i < n; ++i)
        whole[T_GUARD + i] = (int)i;
}

void test_guard_scan(void)
{
    int whole[2 * T_GUARD + 10];
    const size_t n = 10;
    hx_guard_report g;
    t_capture c;
    char *text;

    t_context("guard clean");
    t_guarded(whole, n);
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 0);
    EXPECT_LL(g.before + g.after, 0);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT(text[0] == '\0');
    free(text);

    t_context("guard just past the end");
    whole[T_GUARD + n] = 7;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
    EXPECT_LL(g.after, 1);
    EXPECT_LL(g.before, 0);
    EXPECT_LL(g.first_after, 10);
    EXPECT_LL(g.value_after, 7);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "  out: wrote outside the output: 1 word after the end, "
               "first at offset n+0 (index 10), value 7\n");
    free(text);

    t_context("guard further past the end");
    t_guarded(whole, n);
    whole[T_GUARD + n + 5] = 9;
    whole[T_GUARD + n + 3] = 8;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 2);
    EXPECT_LL(g.after, 2);
    EXPECT_LL(g.first_after, 13);
    EXPECT_LL(g.value_after, 8);

    t_context("guard just before the start");
    t_guarded(whole, n);
    whole[T_GUARD - 1] = -4;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 1);
    EXPECT_LL(g.before, 1);
    EXPECT_LL(g.after, 0);
    EXPECT_LL(g.first_before, -1);
    EXPECT_LL(g.value_before, -4);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT_STR(text, "1 word before the start, first at offset -1");
    EXPECT_STR(text, "value -4");
    free(text);

    t_context("guard both sides");
    whole[0] = 1;
    whole[T_GUARD - 3] = 2;
    whole[2 * T_GUARD + n - 1] = 3;
    EXPECT_LL(hx_guard_scan(whole, n, T_GUARD, &g), 4);
    EXPECT_LL(g.before, 3);
    EXPECT_LL(g.first_before, -1);
    EXPECT_LL(g.after, 1);
    EXPECT_LL(g.first_after, (long long)n + T_GUARD - 1);
    EXPECT_LL(g.value_after, 3);
    t_capture_begin(&c);
    hx_guard_print("out", n, &g, c.f);
    text = t_capture_end(&c);
    EXPECT_LL(t_count_lines(text), 2);
    free(text);

    t_context("guard n = 0");
    {
        int w0[2 * T_GUARD];
        t_guarded(w0, 0);
        EXPECT_LL(hx_guard_scan(w0, 0, T_GUARD, &g), 0);
        w0[T_GUARD] = 1;
        EXPECT_LL(hx_guard_scan(w0, 0, T_GUARD, &g), 1);
        EXPECT_LL(g.first_after, 0);
    }
    t_context("%s", "");
}
