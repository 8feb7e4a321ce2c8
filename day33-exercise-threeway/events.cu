/* events.cu: what the driver reports. Student mode writes the console:
 * the first failure in full, then at most 20 failing runs (--all: every
 * run), the rest counted by verdict, and one line a test. Grade mode
 * writes the result file: JSON Lines, written by the driver alone, each
 * line one object with an "event" key, flushed as it is written.
 *
 * The result file's events (fields new with the named tests are marked
 * NEW; every other field is as it was):
 *   {"event":"begin","seed":S,"plan":"full"|"sanitize","runs":K,
 *    "gpu":"NVIDIA H200","cc":"9.0","sms":132,"l2_bytes":B,"driver":13000,
 *    "runtime":13000,
 *    "max_n":N,                          NEW: the plan's largest size
 *    "tests":["tiny",...]}               NEW: the tests this process runs
 *                                        (--tests, else all of the plan's;
 *                                        the sanitize plan's only test is
 *                                        memory_safety)
 *     K counts the whole plan's runs whatever --tests says: a run's number
 *     is the same in every process with that seed, plan and GPU
 *     (threeway --print-plan lists them).
 *   {"event":"module","status":"ok"}, or "status":"signature" with
 *    "entries":["_Z...",...] (null: the driver cannot list them), or
 *    "status":"load_error" with "error":"CUDA_ERROR_..."; after a module
 *    that is not ok, "end" follows with that status and the exit code is 0
 *   {"event":"start","run":k,"label":"n=257 mix=thirds grid=3x64",
 *    "test":"tiny",                      NEW: the run's test
 *    "n":257,"mix":"thirds","blocks":3,"block":64,"launches":1}
 *     written before the run's first GPU work. Runs go to the GPU in
 *     batches: the starts of a batch's runs are written as it is
 *     submitted, its results once it has ended; its runs execute in
 *     order, so the first started run with no result is the one under way.
 *     Mixes (plan.h): thirds, all-negative, all-zero, all-positive,
 *     no-zeros, ends, and NEW no-negatives, no-positives, sorted,
 *     reverse-sorted, alternating, lone-ends, extremes.
 *   {"event":"result","run":k,
 *    "test":"tiny",                      NEW
 *    "status":S,"detail":D,
 *    "buffer":B,                         NEW: with status input_written,
 *                                        the input that changed ("in",
 *                                        "negRank", "zeroRank", "totals");
 *                                        with out_of_bounds, the buffer
 *                                        whose guard was written ("out",
 *                                        or an input's name); else null
 *    "want_b1":..,"want_b2":..,"found_b1":..,"found_b2":..,"b1_ok":..,
 *    "b2_ok":..,"first_bad":i|-1,"got":v|null,"want":v|null,"bad":..,
 *    "unwritten":..,"order_errors":..,"guard_before":..,"guard_after":..,
 *    "guard_first_offset":o|null,"disagree_run":-1|1,"group":G|null}
 *     S: pass | boundary | order | mismatch | unwritten | out_of_bounds |
 *     nondeterministic | NEW input_written. D: the check's own kind
 *     (hx_split_kind_name; its swapped and group_missing are status
 *     boundary), or NEW "input_written" / "input_guard" when buffer names
 *     an input (the output was not compared: the other fields are those of
 *     a passing run). want_b1 = A, want_b2 = A + B; found_b1 and found_b2
 *     where the check places the boundaries; b1_ok and b2_ok true only
 *     when every reading that fits leaves the boundary where it belongs;
 *     group: whatever the status, the input's groups none of whose slots
 *     was written ("zeros", "zeros and positives", ...), else null (a lone
 *     zero never written at a boundary is status boundary, group zeros);
 *     disagree_run 1: the second launch (or a run again for the report)
 *     differed from the first: nondeterministic.
 *   {"event":"skip","run":k,"test":T,
 *    "reason":"not run: the test stopped at its first failure"}
 *                                        NEW: a run of a test that had
 *                                        already failed (grade mode: each
 *                                        test stops at its own first
 *                                        failure; the others go on)
 *   {"event":"test","test":T,"status":"pass"|<its first failure's status>,
 *    "runs":R,"passed":P,"not_run":Q,"failed_run":k|null}
 *                                        NEW: one a test, after the plan:
 *                                        R runs judged (P passed, the
 *                                        failing one last), Q not run;
 *                                        failed_run the first failing run
 *                                        (its result event holds the
 *                                        report). A test with no event did
 *                                        not finish (a fault or a timeout
 *                                        ended the process): the grading
 *                                        tool may run it again alone with
 *                                        --tests.
 *   {"event":"timing","test":"repeatability",   NEW "test"
 *    "n":N,"rounds":R,"warmup":W,"copy_ms":..,"split_ms":..,"x_copy":..,
 *    "x_copy_min":..,"x_copy_max":..,
 *    "scatter_ms":..,                    NEW: the student's
 *                                        scatterThreeWay alone, median
 *    "ref_scatter_ms":..|null,           NEW: the reference solution's
 *                                        (--ref-module), median
 *    "r":..|null,"r_min":..,"r_max":..,  NEW: scatter_ms / ref_scatter_ms,
 *                                        and the smallest and largest
 *                                        ratio of one round (null without
 *                                        --ref-module)
 *    "status":"pass"}
 *     or, when a check of any launch of the timing failed (warm-ups
 *     included): every time null and "status": nondeterministic (the
 *     output differs: the kernel did less, or other, when timed) |
 *     NEW input_written | NEW out_of_bounds, with "bad_round":r (counting
 *     warm-ups first, from 0), NEW "in_warmup":true|false, NEW
 *     "launch":"split"|"scatter"|"reference" (the launch whose check
 *     failed) and NEW "buffer" (as in result). Only with --time, only when
 *     every run of the plan passed and the test large was run. The test
 *     repeatability fails with it.
 *   {"event":"fault","run":k|null,
 *    "test":T|null,                      NEW: the run's test
 *    "phase":"check"|"timing","call":C,"error":"cudaErrorIllegalAddress"}
 *     then exit 4
 *   {"event":"timeout","run":k|null,
 *    "test":T|null,                      NEW
 *    "phase":..,"seconds":T}, then exit 6: a launch ran past its limit, or
 *     (NEW) a hold of the GPU lock (a batch, the timing, a rerun) lasted
 *     longer than one launch's limit at its largest size; "seconds" is
 *     that limit. NEW "hold":"shared" when it was that bound, on a hold
 *     shared with other drivers (whose kernels share the GPU's time with
 *     this one's): the grading tool grades such a submission again, with
 *     --exclusive
 *   {"event":"lock","state":"wait"}      NEW: the GPU lock (--lock) is
 *                                        busy and the driver waits for
 *                                        it, then
 *   {"event":"lock","state":"held"}      once taken, or "state":"gave_up"
 *     when it cannot be taken (then exit 2). A take that succeeds at once
 *     writes neither. The grading tool charges no limit with the time
 *     between a wait and the next lock event: another driver held the GPU.
 *     Any event may come between them but a lock event.
 *   {"event":"end","status":"pass"|<first failing status>,"runs":K,
 *    "passed":P}: the timing's status when only the timing failed; P
 *     counts the runs that passed over every test.
 */
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>

#include "driver.h"
#include "hx_time.h"

Events g_ev = {NULL, 0, -1, "check"};
const Run *g_run;
const Plan *g_plan;
int (*g_flightFault)(int exiting);

#define SHOW_FAILING 20

void jsonString(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void jsonRun(FILE *f, long long run)
{
    if (run >= 0)
        fprintf(f, "%lld", run);
    else
        fputs("null", f);
}

/* ,"test":"name" of the run under way, or null. */
static void jsonRunTest(FILE *f, long long run)
{
    fputs(",\"test\":", f);
    if (run >= 0 && g_plan && run < g_plan->count)
        jsonString(f, planTestName(g_plan->run[run].test));
    else
        fputs("null", f);
}

void eventDone(void)
{
    fputs("}\n", g_ev.f);
    fflush(g_ev.f);
}

void eventFault(const char *call, const char *error)
{
    if (!g_ev.f || g_ev.terminal)
        return;
    fprintf(g_ev.f, "{\"event\":\"fault\",\"run\":");
    jsonRun(g_ev.f, g_ev.run);
    jsonRunTest(g_ev.f, g_ev.run);
    fprintf(g_ev.f, ",\"phase\":\"%s\",\"call\":", g_ev.phase);
    jsonString(g_ev.f, call);
    fprintf(g_ev.f, ",\"error\":");
    jsonString(g_ev.f, error);
    eventDone();
    g_ev.terminal = 1;
}

/* An exit the driver did not plan (hx_cuda_check's, on a CUDA error in
 * the driver's own calls) still names the run it happened in. */
void faultAtExit(void)
{
    if (g_flightFault && g_flightFault(1))
        return;
    const cudaError_t err = cudaPeekAtLastError();
    eventFault("a CUDA call of the driver (its line is on stderr)",
               err != cudaSuccess ? cudaGetErrorName(err) : "see stderr");
}

void eventBegin(const Plan *p, const hx_device *dev, uint64_t seed,
                unsigned tests)
{
    FILE *f = g_ev.f;
    fprintf(f, "{\"event\":\"begin\",\"seed\":%llu,\"plan\":\"%s\","
            "\"runs\":%d,\"gpu\":", (unsigned long long)seed, p->name,
            p->count);
    jsonString(f, dev->name);
    fprintf(f, ",\"cc\":\"%d.%d\",\"sms\":%d,\"l2_bytes\":%zu,\"driver\":%d,"
            "\"runtime\":%d,\"max_n\":%zu,\"tests\":[", dev->major,
            dev->minor, dev->sms, dev->l2_bytes, dev->driver_version,
            dev->runtime_version, p->maxN);
    int first = 1;
    for (int t = 0; t < TEST_COUNT; ++t)
        if (tests >> t & 1 && p->testRuns[t]) {
            fputs(first ? "" : ",", f);
            jsonString(f, planTestName(t));
            first = 0;
        }
    fputc(']', f);
    eventDone();
}

void eventLock(const char *state)
{
    if (!g_ev.f)
        return;
    fprintf(g_ev.f, "{\"event\":\"lock\",\"state\":\"%s\"", state);
    eventDone();
}

void eventStart(long long k, const Run *r)
{
    char label[160];
    planDescribe(label, sizeof label, r);
    fprintf(g_ev.f, "{\"event\":\"start\",\"run\":%lld,\"label\":", k);
    jsonString(g_ev.f, label);
    fprintf(g_ev.f, ",\"test\":\"%s\",\"n\":%zu,\"mix\":\"%s\",\"blocks\":%u,"
            "\"block\":%u,\"launches\":%d", planTestName(r->test), r->n,
            planMixName(r->mix), r->blocks, r->block, r->launches);
    eventDone();
}

void eventResult(long long k, const Run *run, const Outcome *o)
{
    FILE *f = g_ev.f;
    const hx_split_report *r = &o->v.r;
    const hx_guard_report *g = &r->guard;
    fprintf(f, "{\"event\":\"result\",\"run\":%lld,\"test\":\"%s\","
            "\"status\":\"%s\",\"detail\":\"%s\"", k, planTestName(run->test),
            o->status, o->buffer ? (!strcmp(o->status, "input_written")
                                        ? "input_written" : "input_guard")
                                 : hx_split_kind_name(r->kind));
    fprintf(f, ",\"buffer\":");
    if (o->buffer)
        jsonString(f, o->buffer);
    else if (!strcmp(o->status, "out_of_bounds"))
        fputs("\"out\"", f);
    else
        fputs("null", f);
    fprintf(f, ",\"want_b1\":%zu,\"want_b2\":%zu,\"found_b1\":%zu,"
            "\"found_b2\":%zu,\"b1_ok\":%s,\"b2_ok\":%s", r->want_b1,
            r->want_b2, r->found_b1, r->found_b2,
            r->b1_ok ? "true" : "false", r->b2_ok ? "true" : "false");
    if (r->cmp.bad)
        fprintf(f, ",\"first_bad\":%zu,\"got\":%d,\"want\":%d", r->cmp.first,
                r->cmp.got, r->cmp.want);
    else
        fprintf(f, ",\"first_bad\":-1,\"got\":null,\"want\":null");
    fprintf(f, ",\"bad\":%zu,\"unwritten\":%zu,\"order_errors\":%zu",
            r->cmp.bad, r->cmp.unwritten, r->order_errors);
    fprintf(f, ",\"guard_before\":%zu,\"guard_after\":%zu", g->before,
            g->after);
    if (g->before)
        fprintf(f, ",\"guard_first_offset\":%lld", g->first_before);
    else if (g->after)
        fprintf(f, ",\"guard_first_offset\":%lld", g->first_after);
    else
        fprintf(f, ",\"guard_first_offset\":null");
    fprintf(f, ",\"disagree_run\":%d,\"group\":", o->disagree ? 1 : -1);
    if (o->v.group[0])
        jsonString(f, o->v.group);
    else
        fputs("null", f);
    eventDone();
}

void eventSkip(long long k, const Run *r)
{
    fprintf(g_ev.f, "{\"event\":\"skip\",\"run\":%lld,\"test\":\"%s\","
            "\"reason\":\"not run: the test stopped at its first failure\"",
            k, planTestName(r->test));
    eventDone();
}

void eventTest(int t, const TestTally *tt)
{
    fprintf(g_ev.f, "{\"event\":\"test\",\"test\":\"%s\",\"status\":\"%s\","
            "\"runs\":%d,\"passed\":%d,\"not_run\":%d,\"failed_run\":",
            planTestName(t), tt->status ? tt->status : "pass", tt->runs,
            tt->passed, tt->notRun);
    jsonRun(g_ev.f, tt->failedAt);
    eventDone();
}

void eventEnd(const char *status, const Plan *p, int passed)
{
    if (!g_ev.f)
        return;
    fprintf(g_ev.f, "{\"event\":\"end\",\"status\":\"%s\",\"runs\":%d,"
            "\"passed\":%d", status, p->count, passed);
    eventDone();
    g_ev.terminal = 1;
}

/* The launch under way, or the lock's hold, ran past its limit: say so
 * and stop at once (the kernel may never end, so nothing waits for it:
 * no teardown; the process's end frees the lock). */
void timedOut(const char *where, double limit, int sharedHold)
{
    fflush(stdout);
    fprintf(stderr, "%s: scatterThreeWay ran past its limit of %.3g s (%s) "
            "and was stopped; a thread that waits for something no other "
            "thread does never ends (exit %d)\n", g_prog, limit, where,
            EXIT_TIMEOUT);
    if (g_ev.f && !g_ev.terminal) {
        fprintf(g_ev.f, "{\"event\":\"timeout\",\"run\":");
        jsonRun(g_ev.f, g_ev.run);
        jsonRunTest(g_ev.f, g_ev.run);
        fprintf(g_ev.f, ",\"phase\":\"%s\",\"seconds\":%.3f", g_ev.phase,
                limit);
        if (sharedHold)
            fprintf(g_ev.f, ",\"hold\":\"shared\"");
        eventDone();
        g_ev.terminal = 1;
    }
    fflush(stderr);
    _exit(EXIT_TIMEOUT);
}

void studentFaultReport(const char *call, const char *error,
                        const char *text, const char *where)
{
    fflush(stdout);
    fprintf(stderr, "%s: %s failed (%s): %s: %s\n", g_prog, call, where,
            error, text);
    if (!g_ev.f && g_run)
        fprintf(stderr, "  to see the bad access: compute-sanitizer %s "
                "--check --n %zu --mix %s --grid %ux%u\n", g_prog,
                g_run->n, planMixName(g_run->mix), g_run->blocks,
                g_run->block);
    eventFault(call, error);
}

void studentFault(const char *call, const char *error, const char *text,
                  const char *where)
{
    studentFaultReport(call, error, text, where);
    exit(HX_EXIT_CUDA);
}

/* ------------------------------------------------------------------ */
/* The console.                                                        */

static void countFailure(Tally *t, const char *status)
{
    for (int k = 0; k < t->failKinds; ++k)
        if (!strcmp(t->failName[k], status)) {
            ++t->failCount[k];
            return;
        }
    if (t->failKinds < 32) {
        t->failName[t->failKinds] = status;
        t->failCount[t->failKinds++] = 1;
    }
}

/* One run on the console (student mode; grade mode prints nothing). */
void tallyRun(const Ctx *c, const Run *run, const Outcome *o, Tally *t)
{
    if (g_ev.f)
        return;
    char where[160], bounds[256], tag[120];
    const hx_split_report *r = &o->v.r;
    planDescribe(where, sizeof where, run);
    hx_split_brief(bounds, sizeof bounds, r);
    if (!strcmp(o->status, "pass")) {
        if (c->all)
            printf("  PASS  %-16s %-40s %s\n", planTestName(run->test),
                   where, bounds);
        return;
    }
    countFailure(t, o->status);
    const int show = c->all || t->failShown < SHOW_FAILING;
    if (o->buffer)
        snprintf(tag, sizeof tag, "%s: %s", o->status,
                 !strcmp(o->status, "input_written")
                     ? o->buffer
                     : "a write just beside an input");
    else if (o->disagree)
        snprintf(tag, sizeof tag, "nondeterministic: the second launch "
                 "differs; the first: %s", o->v.status);
    else if (o->v.group[0] && !r->nothing_written)
        snprintf(tag, sizeof tag, "%s: %s never written", o->status,
                 o->v.group);
    else
        snprintf(tag, sizeof tag, "%s", hx_split_kind_name(r->kind));
    if (show) {
        ++t->failShown;
        printf("  FAIL  %-16s %-40s [%s] %s\n", planTestName(run->test),
               where, tag, o->buffer ? "" : bounds);
    }
    if (!t->fullShown) {
        t->fullShown = 1;
        printf("\n  The first failure in full (test %s):\n",
               planTestName(run->test));
        if (o->buffer && !strcmp(o->status, "input_written"))
            printf("%s: the kernel changed %s, which it may only read: "
                   "every buffer but out is an input (const)\n", where,
                   o->buffer);
        else if (o->buffer)
            printf("%s: the kernel wrote just beside %s, outside every "
                   "buffer it was given\n", where, o->buffer);
        else {
            if (o->disagree)
                printf("(the first launch's report; the second launch's "
                       "output differed from it)\n");
            hx_split_print(where, r, stdout);
            if (o->disagree)
                printf("A second launch on a freshly poisoned output gave a "
                       "different output or different writes outside it: "
                       "the kernel's result changes from launch to launch "
                       "(a race, or state kept between launches).\n");
        }
        printf("\n");
    }
}

/* After the plan: one line a test, then the failing runs not shown,
 * counted by verdict. */
void printSummary(const Ctx *c, const Tally *t)
{
    int failing = 0;
    for (int k = 0; k < t->failKinds; ++k)
        failing += t->failCount[k];
    if (failing > t->failShown) {
        printf("  and %d more failing runs:", failing - t->failShown);
        for (int k = 0; k < t->failKinds; ++k)
            printf("%s %s %d", k ? "," : "", t->failName[k],
                   t->failCount[k]);
        printf(" (all of them: --all)\n");
    }
    printf("\ntests:\n");
    for (int k = 0; k < TEST_COUNT; ++k) {
        const TestTally *tt = &t->test[k];
        if (!(c->tests >> k & 1) || !g_plan || !g_plan->testRuns[k])
            continue;
        if (!tt->status)
            printf("  PASS  %-18s %d runs\n", planTestName(k), tt->runs);
        else
            printf("  FAIL  %-18s [%s] first at run %d; %d of %d runs "
                   "passed\n", planTestName(k), tt->status, tt->failedAt,
                   tt->passed, tt->runs);
    }
}

/* ------------------------------------------------------------------ */
/* Where a process's time goes (HX_PROFILE=1 in the environment: one line
 * on stderr at the end): seconds per part, summed over the process.
 * HX_PROFILE=gpu adds a line before it: the batches' stream time by step
 * (driver.h, gpuMark). */

static double g_prof[PROF_PARTS];

void profAdd(int part, double since)
{
    g_prof[part] += hx_now_seconds() - since;
}

static void gpuPrint(void)
{
    static const char *const names[GPU_STEPS] = {
        "", "guards laid and upload", "ranks made and checked",
        "poison", "student's kernel", "guards scanned",
        "key (host function)", "digests"};
    double sum = 0;
    for (int k = 0; k < 2 * GPU_STEPS; ++k)
        sum += gpuStepSeconds(k);
    fprintf(stderr, "%s: batches' stream time (s): %.3f in all;", g_prog,
            sum);
    for (int k = 1; k < 2 * GPU_STEPS; ++k) {
        if (k == GPU_STEPS)
            continue;
        if (k > GPU_STEPS && k < GPU_STEPS + GPU_GUARDS)
            continue;
        fprintf(stderr, " %s%s %.3f%s", k > GPU_STEPS ? "baseline's " : "",
                names[k % GPU_STEPS], gpuStepSeconds(k),
                k + 1 < 2 * GPU_STEPS ? "," : "");
    }
    fprintf(stderr, " (marks dropped: %lld)\n", gpuMarksDropped());
}

void profPrint(void)
{
    static const char *const names[PROF_PARTS] = {
        "buffers", "inputs and references", "lock waits",
        "batches (uploads, ranks, runs)", "runs fetched again", "timing",
        "the GPU lock held shared", "held alone",
        "the host blocked in the inputs' uploads",
        "waits for the next batch's inputs"};
    const char *on = getenv("HX_PROFILE");
    if (!on || (strcmp(on, "1") && strcmp(on, "gpu")))
        return;
    if (!strcmp(on, "gpu"))
        gpuPrint();
    fprintf(stderr, "%s: profile (s):", g_prog);
    for (int k = 0; k < PROF_PARTS; ++k)
        fprintf(stderr, " %s %.3f,", names[k], g_prof[k]);
    /* The process's CPU, every thread's (the digest's among them): what
     * a driver costs the machine's cores. */
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        fprintf(stderr, " CPU user %.3f, CPU system %.3f\n",
                ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
                ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
    else
        fprintf(stderr, " CPU unknown\n");
}
