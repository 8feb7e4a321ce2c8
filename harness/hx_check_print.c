/* hx_check_print.c: the three-way check's printed report (hx_split_print,
 * hx_split_brief), the second source of hx_check.o (harness.mk joins the
 * two, so that every link line naming hx_check.o has both). Contracts are
 * in hx_check.h. Host code only. */
#include "hx_check.h"
#include "hx_check_parts.h"
#include "hx_input.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* "the last negative (-77)", "the first zero": an element named by its
 * place in its group, with its value unless it is a zero. */
static void hx_name_elem(char *buf, size_t len, const char *place, int v)
{
    const int k = hx_kind(v);
    if (k == 1)
        snprintf(buf, len, "the %s zero", place);
    else if (k >= 0)
        snprintf(buf, len, "the %s %s (%d)", place, hx_one_names[k], v);
    else
        snprintf(buf, len, "poison");
}

/* Which group's slots hold index i in the split, and where in the group. */
static int hx_group_of(const hx_split_report *r, size_t i, const char **where)
{
    const size_t sizes[3] = {r->negatives, r->zeros, r->positives};
    int k;
    for (k = 0; k < 3; ++k) {
        const size_t s = (size_t)r->want_start[k];
        if (i >= s && i - s < sizes[k]) {
            *where = i == s ? "first " : i == s + sizes[k] - 1 ? "last " : "";
            return k;
        }
    }
    *where = "";
    return 0;
}

static void hx_print_start(FILE *out, const hx_split_report *r, int k)
{
    static const char *const label[3] = {
        "negatives' start", "boundary 1 (negatives|zeros)",
        "boundary 2 (zeros|positives)"};
    const long long want = r->want_start[k], found = r->found_start[k];
    const size_t other = hx_reading_moves(r, k);
    fprintf(out, "  %s:  expected %lld, ", label[k], want);
    if (r->start[k] == HX_START_OK) {
        fprintf(out, "found %lld  ok", found);
    } else if (r->start[k] == HX_START_WRONG) {
        const long long d = found < want ? want - found : found - want;
        fprintf(out, "found %lld  WRONG (%lld %s %s)", found, d,
                d == 1 ? "slot" : "slots", found < want ? "early" : "late");
    } else if (r->start[k] == HX_START_UNSURE) {
        fprintf(out, "found %lld in reading 1 (ok), %lld in reading %zu "
                "(1 slot %s): not known to be ok", found,
                want + r->shift[other][k], other + 1,
                r->shift[other][k] < 0 ? "early" : "late");
    } else {
        fprintf(out, "not found (no %s in the output)", hx_one_names[k]);
    }
    if (other && r->start[k] != HX_START_UNSURE)
        fprintf(out, "; another reading differs, below");
    fprintf(out, "\n");
}

/* What a slot outside the output means for a three-way split. */
static const char *hx_outside_meaning(int k, int before)
{
    static const char *const early[3] = {
        "the negatives always start at slot 0",
        "with no negatives in this input the zeros start at slot 0, so the "
        "zeros' base is one below the count of negatives; with negatives, "
        "the same kernel puts its first zero on the last negative's slot",
        "with no negatives or zeros in this input the positives start at "
        "slot 0, so the positives' base is one below the count of "
        "negatives and zeros; with them, the same kernel puts its first "
        "positive on the last zero's (or negative's) slot"};
    static const char *const late[3] = {
        "with no zeros or positives in this input the negatives end at the "
        "last slot, so the negatives start one slot late; with them, the "
        "same kernel puts its last negative on the first zero's (or "
        "positive's) slot",
        "with no positives in this input the zeros end at the last slot, "
        "so the zeros' base is one above the count of negatives; with "
        "positives, the same kernel puts its last zero on the first "
        "positive's slot",
        "the positives always end at the last slot"};
    return before ? early[k] : late[k];
}

static void hx_print_reading(FILE *out, const hx_split_report *r, size_t i,
                             int alone)
{
    int k, first = 1;
    if (alone)
        fprintf(out, "  what explains it: ");
    else
        fprintf(out, "  reading %zu: ", i + 1);
    for (k = 0; k < 3; ++k)
        if (r->shift[i][k]) {
            fprintf(out, "%sthe %s start one slot %s, at %lld (expected "
                    "%lld)", first ? "" : ", and ", hx_group_names[k],
                    r->shift[i][k] < 0 ? "early" : "late",
                    r->want_start[k] + r->shift[i][k], r->want_start[k]);
            first = 0;
        }
    fprintf(out, "\n");
    for (k = 0; k < 3; ++k) {
        const hx_split_move *m = &r->move[i][k];
        const char *place = r->shift[i][k] < 0 ? "first" : "last";
        char mine[64], theirs[64];
        if (!r->shift[i][k])
            continue;
        hx_name_elem(mine, sizeof mine, place, m->moved);
        if (m->taken < 0 || m->taken >= (long long)r->n) {
            if (m->taken < 0)
                fprintf(out, "    %s went to offset -1, just before the "
                        "output (%s)\n", mine, hx_outside_meaning(k, 1));
            else
                fprintf(out, "    %s went to offset n (index %lld), just "
                        "past the end of the output (%s)\n", mine, m->taken,
                        hx_outside_meaning(k, 0));
        } else {
            hx_name_elem(theirs, sizeof theirs, r->shift[i][k] < 0 ? "last"
                         : "first", m->owner);
            if (m->held == m->moved && m->owner != m->moved)
                fprintf(out, "    slot %lld holds %s, where %s belongs: "
                        "the %s won the race for the slot, so that %s is "
                        "lost\n", m->taken, mine, theirs,
                        hx_one_names[k], hx_one_names[hx_kind(m->owner) >= 0
                                                      ? hx_kind(m->owner)
                                                      : 0]);
            else if (m->held == m->owner)
                fprintf(out, "    slot %lld holds %s, which won the race "
                        "for the slot: %s is lost\n", m->taken, theirs,
                        mine);
            else
                fprintf(out, "    slot %lld, where %s also went, holds %d\n",
                        m->taken, mine, m->held);
        }
        if (m->left_unwritten)
            fprintf(out, "    slot %lld, the %s' %s slot, was never "
                    "written\n", m->left, hx_group_names[k],
                    r->shift[i][k] < 0 ? "last" : "first");
    }
}

/* Every reading that fits, the right-split-with-holes reading, and which
 * mix tells them apart. */
static void hx_print_readings(FILE *out, const hx_split_report *r)
{
    const size_t kept = r->readings < HX_SPLIT_READINGS ? r->readings
                                                        : HX_SPLIT_READINGS;
    const int alone = r->readings == 1 && !r->also_unwritten;
    static const hx_mix alone_mix[3] = {HX_MIX_ALL_NEG, HX_MIX_ALL_ZERO,
                                        HX_MIX_ALL_POS};
    size_t i;
    int k;
    for (i = 0; i < kept; ++i)
        hx_print_reading(out, r, i, alone);
    if (r->readings > kept)
        fprintf(out, "  (%zu more readings fit)\n", r->readings - kept);
    if (r->also_unwritten) {
        const char *where;
        const int g = hx_group_of(r, r->cmp.first_unwritten, &where);
        if (r->cmp.unwritten == 1)
            fprintf(out, "  or: every group starts where it should, and "
                    "slot %zu, the %s' %sslot, was never written\n",
                    r->cmp.first_unwritten, hx_group_names[g], where);
        else
            fprintf(out, "  or: every group starts where it should, and "
                    "%zu slots were never written (first at %zu)\n",
                    r->cmp.unwritten, r->cmp.first_unwritten);
    }
    if (alone)
        return;
    /* A group alone in its input has nothing before or after it: a shift
     * then writes outside the output, which the guards see. Named for
     * each group whose shift the readings disagree on (the reading with
     * holes shifts nothing). */
    for (k = 0; k < 3; ++k) {
        int early = 0, late = 0, still = r->also_unwritten;
        for (i = 0; i < kept; ++i) {
            early |= r->shift[i][k] < 0;
            late |= r->shift[i][k] > 0;
            still |= r->shift[i][k] == 0;
        }
        if (early + late + still > 1)
            fprintf(out, "  (the %s mix tells these apart: there, %s one "
                    "slot %s write %s)\n", hx_mix_name(alone_mix[k]),
                    hx_group_names[k], early && late ? "early or late"
                    : early ? "early" : "late", early && late
                    ? "before the output or past its end" : early
                    ? "at offset -1, before the output"
                    : "at offset n, past the end");
    }
}

static void hx_print_shift(FILE *out, const hx_split_report *r, int k,
                           int *first)
{
    static const char *const what[3] = {"the negatives start",
                                        "boundary 1 is", "boundary 2 is"};
    const long long want = r->want_start[k], found = r->found_start[k];
    long long d;
    if (r->start[k] != HX_START_WRONG)
        return;
    d = found < want ? want - found : found - want;
    fprintf(out, "%s%s %lld %s %s", *first ? "" : ", ", what[k], d,
            d == 1 ? "slot" : "slots", found < want ? "early" : "late");
    *first = 0;
}

static void hx_print_unwritten(FILE *out, const hx_split_report *r)
{
    const size_t sizes[3] = {r->negatives, r->zeros, r->positives};
    size_t whole = 0, rest;
    int k, named = 0, groups = 0;
    if (r->nothing_written) {
        fprintf(out, "FAIL: unwritten: nothing was written: every slot "
                "still holds the poison\n");
        return;
    }
    for (k = 0; k < 3; ++k)
        if (sizes[k] && r->unwritten_in[k] == sizes[k]) {
            whole += sizes[k];
            ++groups;
        }
    fprintf(out, "FAIL: unwritten: ");
    if (groups) {
        for (k = 0; k < 3; ++k)
            if (sizes[k] && r->unwritten_in[k] == sizes[k])
                fprintf(out, "%s%s", named++ == 0 ? "the "
                        : named == groups ? " and the " : ", the ",
                        hx_group_names[k]);
        fprintf(out, " were never written");
        rest = r->cmp.unwritten - whole;
        if (rest)
            fprintf(out, "; %zu more %s never written", rest,
                    hx_plural(rest, "slot was", "slots were"));
        fprintf(out, "\n");
        return;
    }
    fprintf(out, "%zu %s never written (first at %zu):", r->cmp.unwritten,
            hx_plural(r->cmp.unwritten, "slot was", "slots were"),
            r->cmp.first_unwritten);
    for (k = 0; k < 3; ++k)
        if (r->unwritten_in[k])
            fprintf(out, "%s %zu of the %s'", named++ ? "," : "",
                    r->unwritten_in[k], hx_group_names[k]);
    fprintf(out, "\n");
}

void hx_split_print(const char *what, const hx_split_report *r, FILE *out)
{
    const hx_guard_report *g = &r->guard;
    int k;

    fprintf(out, "%s, n = %zu: %zu negatives, %zu zeros, %zu positives%s\n",
            what, r->n, r->negatives, r->zeros, r->positives,
            r->n == 0 ? " (empty input: nothing to place)" : "");
    if (r->nothing_written)
        fprintf(out, "  nothing was written: every slot still holds the "
                "poison\n");
    if (!r->nothing_written || r->readings) {
        if (r->start[0] != HX_START_OK)
            hx_print_start(out, r, 0);
        hx_print_start(out, r, 1);
        hx_print_start(out, r, 2);
    }
    if (r->cmp.bad)
        fprintf(out, "  first index that disagrees: %zu: got %d%s, want %d "
                "(%zu of %zu slots differ)\n", r->cmp.first, r->cmp.got,
                r->cmp.got == HX_POISON ? " (poison: never written)" : "",
                r->cmp.want, r->cmp.bad, r->n);
    else
        fprintf(out, "  first index that disagrees: none\n");
    /* Every poison slot differs from the reference (which holds no
     * poison), so the comparison's count is the unwritten count. */
    if (r->cmp.unwritten) {
        int named = 0;
        fprintf(out, "  unwritten slots: %zu (first at %zu;",
                r->cmp.unwritten, r->cmp.first_unwritten);
        for (k = 0; k < 3; ++k)
            if (r->unwritten_in[k])
                fprintf(out, "%s %zu of the %s'", named++ ? "," : "",
                        r->unwritten_in[k], hx_group_names[k]);
        fprintf(out, ")\n");
    } else {
        fprintf(out, "  unwritten slots: 0\n");
    }
    fprintf(out, "  order errors inside a group: %zu\n", r->order_errors);
    if (!g->before && !g->after)
        fprintf(out, "  writes outside the output: none\n");
    if (g->before)
        fprintf(out, "  writes outside the output: %zu %s before the start, "
                "nearest at index %lld, value %d\n", g->before,
                hx_plural(g->before, "word", "words"), g->first_before,
                g->value_before);
    if (g->after)
        fprintf(out, "  writes outside the output: %zu %s after the end, "
                "nearest at index %lld (n+%lld), value %d\n", g->after,
                hx_plural(g->after, "word", "words"), g->first_after,
                g->first_after - (long long)r->n, g->value_after);
    if (r->readings)
        hx_print_readings(out, r);

    switch (r->kind) {
    case HX_SPLIT_PASS:
        fprintf(out, "PASS\n");
        break;
    case HX_SPLIT_OUT_OF_BOUNDS:
        fprintf(out, "FAIL: out_of_bounds: ");
        if (g->before)
            fprintf(out, "%zu %s before the start (nearest at index %lld)%s",
                    g->before, hx_plural(g->before, "write", "writes"),
                    g->first_before, g->after ? ", " : "");
        if (g->after)
            fprintf(out, "%zu %s past the end (nearest at index %lld, "
                    "n+%lld)", g->after, hx_plural(g->after, "write",
                    "writes"), g->first_after,
                    g->first_after - (long long)r->n);
        if (r->readings) {
            int first = 1;
            fprintf(out, ": ");
            for (k = 0; k < 3; ++k)
                hx_print_shift(out, r, k, &first);
        }
        fprintf(out, "\n");
        break;
    case HX_SPLIT_UNWRITTEN:
        hx_print_unwritten(out, r);
        break;
    case HX_SPLIT_SWAPPED:
        fprintf(out, "FAIL: swapped: %s come before %s\n",
                hx_group_names[r->swapped_first],
                hx_group_names[r->swapped_second]);
        break;
    case HX_SPLIT_GROUP_MISSING: {
        const size_t expect = r->missing_group == 0 ? r->negatives
                              : r->missing_group == 1 ? r->zeros
                              : r->positives;
        fprintf(out, "FAIL: group_missing: no %s in the output, %zu "
                "expected\n", hx_group_names[r->missing_group % 3], expect);
        break;
    }
    case HX_SPLIT_BOUNDARY: {
        int first = 1;
        fprintf(out, "FAIL: boundary: ");
        for (k = 0; k < 3; ++k)
            hx_print_shift(out, r, k, &first);
        if (r->readings > 1 || r->also_unwritten)
            fprintf(out, " (another reading fits: see above)");
        fprintf(out, "\n");
        break;
    }
    case HX_SPLIT_ORDER:
        fprintf(out, "FAIL: order: %zu %s the right group's values in the "
                "wrong order\n", r->order_errors,
                hx_plural(r->order_errors, "slot holds", "slots hold"));
        break;
    case HX_SPLIT_MISMATCH:
    default: {
        /* The first disagreeing slot says which MISMATCH this is: a value
         * of another group there means the groups are interleaved. */
        const int kg = hx_kind(r->cmp.got), kw = hx_kind(r->cmp.want);
        if (kg >= 0 && kw >= 0 && kg != kw)
            fprintf(out, "FAIL: mismatch: the groups are interleaved: slot "
                    "%zu holds a %s where the %s belong (got %d, want %d)\n",
                    r->cmp.first, hx_one_names[kg], hx_group_names[kw],
                    r->cmp.got, r->cmp.want);
        else
            fprintf(out, "FAIL: mismatch: a group holds a value its input "
                    "group does not have (first at %zu: got %d, want %d)\n",
                    r->cmp.first, r->cmp.got, r->cmp.want);
        break;
    }
    }
}

/* Appends to buf[0..len) at *at, keeping it terminated when it fills. */
static void hx_append(char *buf, size_t len, size_t *at, const char *fmt,
                      ...)
{
    va_list ap;
    int w;
    if (*at >= len)
        return;
    va_start(ap, fmt);
    w = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (w > 0)
        *at += (size_t)w;
}

void hx_split_brief(char *buf, size_t len, const hx_split_report *r)
{
    size_t at = 0;
    int k;
    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    if (r->nothing_written && !r->readings) {
        hx_append(buf, len, &at, "nothing was written: every slot still "
                  "holds the poison");
        return;
    }
    if (r->start[0] == HX_START_WRONG)
        hx_append(buf, len, &at, "negatives at %lld, want 0 WRONG, ",
                  r->found_start[0]);
    else if (r->start[0] == HX_START_UNKNOWN)
        hx_append(buf, len, &at, "negatives not found, ");
    for (k = 1; k < 3; ++k) {
        const char *sep = k == 1 ? "" : ", ";
        if (r->start[k] == HX_START_OK)
            hx_append(buf, len, &at, "%sboundary %d at %lld ok", sep, k,
                      r->found_start[k]);
        else if (r->start[k] == HX_START_UNSURE)
            hx_append(buf, len, &at, "%sboundary %d at %lld or %lld", sep,
                      k, r->found_start[k], r->want_start[k] +
                      r->shift[hx_reading_moves(r, k)][k]);
        else if (r->start[k] == HX_START_WRONG)
            hx_append(buf, len, &at, "%sboundary %d at %lld, want %lld "
                      "WRONG", sep, k, r->found_start[k], r->want_start[k]);
        else
            hx_append(buf, len, &at, "%sboundary %d not found (no %s "
                      "written)", sep, k, hx_one_names[k]);
    }
    if (r->readings + (r->also_unwritten != 0) > 1)
        hx_append(buf, len, &at, " (%zu readings)",
                  r->readings + (r->also_unwritten != 0));
}
