/* driver.cu: the driver of the day 33 exercise (students edit threeway.cu,
 * never this file): the command line and main's steps.
 *
 * No code of the student's is linked into this program. threeway.cu is
 * compiled to a device module alone (harness/grader/compiler.py: device
 * code only, includes from the CUDA Toolkit and the compiler's system
 * folders only), and the driver loads that module with the CUDA driver API
 * and launches scatterThreeWay by its mangled name (module.c). No host code
 * from a submission ever runs: not here, not in the grading tool.
 *
 * What it shows: a stable three-way split (negatives | zeros | positives)
 * built from two predicates, two day-31 scans (one per boundary, never one
 * per group) and the student's scatterThreeWay, checked on every run of a
 * plan of ten named tests (plan.h), then timed.
 *
 *   build:  make                      ./threeway, and threeway.cu compiled to
 *                                     build/threeway.fatbin (ARCH="75 80 90";
 *                                     make ARCH=90 writes build/threeway.cubin)
 *   run:    ./threeway --check        the check: every run of the plan
 *           ./threeway                the check, then the timing table
 *           ./threeway --tests tiny,large --check    those tests only
 *           ./threeway --n 8387997    one size: its check, then its timing
 *           ./threeway --mix ends --n 257 --grid 3x64    one run, its report
 *           ./threeway --module FILE  another module (make solution does so)
 *           ./threeway --print-plan --seed S --max-n N   the plan, one line
 *                                     a run, no GPU needed
 *
 * The parts (driver.h): kernels.cu (the driver's kernels and the keyed
 * digest: why the student's kernel can neither read nor forge what it is
 * checked against), plan.c (the plan and its inputs), runs.cu (buffers,
 * guards, the lock and its watchdog, the plan in batches), events.cu (the
 * result file's schema, and the console), timing.cu, module.c, judge.c.
 *
 * Grade mode (the grading tool's contract; stdout is for humans only: a
 * kernel's printf reaches it, so nothing there is trusted):
 *   ./threeway --grade --module FILE --result FILE [--seed S]
 *              [--plan full|sanitize] [--tests a,b] [--time]
 *              [--ref-module FILE] [--lock FILE] [--exclusive]
 *              [--input-cache DIR] [--run-timeout SEC] [--runs R]
 *              [--warmup W]
 * --exclusive takes the GPU lock alone for every hold, the checks' too
 * (the grading tool's second try of a submission whose shared hold ran
 * past its bound beside other drivers: see "timeout" in events.cu).
 * --input-cache DIR: the plan's inputs, which depend on the seed alone,
 * read from DIR where another driver of the grading run wrote them, and
 * written there otherwise (planFillCached, plan.h); never a reference.
 * FILE receives JSON Lines, written by the driver alone (events.cu's
 * opening comment has every event and field).
 * Exit codes: 0 "end" was written; 2 bad arguments, or the module, FILE
 * or the lock unusable; 3 no GPU; 4 a CUDA error or fault (after "fault"
 * when a run or the timing was under way); 5 the plan does not fit in
 * memory; 6 a launch, or a hold of the GPU lock, ran past its limit
 * (after "timeout").
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "driver.h"
#include "hx_time.h"

const char *g_prog = "threeway";

/* ------------------------------------------------------------------ */
/* The command line.                                                   */

typedef struct {
    int grade, time, printPlan, all;
    int exclusive;        /* --exclusive: every hold of the lock alone */
    int runsGiven;        /* --runs is on the command line */
    const char *module, *result, *plan, *lock, *runTimeout, *mix, *grid,
        *tests, *refModule, *maxN, *sms, *maxThreads, *inputCache;
    double runTimeoutValue;
    unsigned testMask;
    size_t maxNValue;
    int smsValue, maxThreadsValue;
    PlanArgs planArgs;
} Args;

/* Takes the driver's own options out of argv (hx_parse_args refuses what
 * it does not know) and compacts argv. Returns HX_EXIT_OK or
 * HX_EXIT_USAGE after one line. */
static int takeArgs(int *argc, char **argv, Args *a)
{
    static const char *const valued[] = {
        "--module", "--result", "--plan", "--lock", "--run-timeout", "--mix",
        "--grid", "--tests", "--ref-module", "--max-n", "--sms",
        "--max-threads", "--input-cache"};
    const char **slot[] = {&a->module, &a->result, &a->plan, &a->lock,
                           &a->runTimeout, &a->mix, &a->grid, &a->tests,
                           &a->refModule, &a->maxN, &a->sms, &a->maxThreads,
                           &a->inputCache};
    const int count = (int)(sizeof valued / sizeof valued[0]);
    int keep = 1;
    for (int i = 1; i < *argc; ++i) {
        const char *s = argv[i];
        if (!strcmp(s, "--grade")) { a->grade = 1; continue; }
        if (!strcmp(s, "--time")) { a->time = 1; continue; }
        if (!strcmp(s, "--exclusive")) { a->exclusive = 1; continue; }
        if (!strcmp(s, "--print-plan")) { a->printPlan = 1; continue; }
        if (!strcmp(s, "--all")) { a->all = 1; continue; }
        if (!strncmp(s, "--runs", 6) && (s[6] == '\0' || s[6] == '='))
            a->runsGiven = 1;    /* hx_parse_args reads its value */
        int taken = 0;
        for (int k = 0; k < count && !taken; ++k) {
            const size_t len = strlen(valued[k]);
            if (strncmp(s, valued[k], len))
                continue;
            if (s[len] == '=') {
                *slot[k] = s + len + 1;
            } else if (s[len] == '\0') {
                if (i + 1 >= *argc) {
                    fprintf(stderr, "%s: %s needs a value (try --help)\n",
                            g_prog, valued[k]);
                    return HX_EXIT_USAGE;
                }
                *slot[k] = argv[++i];
            } else {
                continue;           /* e.g. --modules: not ours */
            }
            taken = 1;
        }
        if (!taken)
            argv[keep++] = argv[i];
    }
    *argc = keep;
    argv[keep] = NULL;
    return HX_EXIT_OK;
}

static int usageError(const char *what, const char *value)
{
    fprintf(stderr, "%s: %s \"%s\" (try --help)\n", g_prog, what, value);
    return HX_EXIT_USAGE;
}

/* A whole number in [lo, hi], or -1. */
static long wholeIn(const char *s, long lo, long hi)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (!strchr("0123456789", s[0]) || !end || *end || errno || v < lo ||
        v > hi)
        return -1;
    return v;
}

/* Checks and converts the driver's own options, before the GPU is opened,
 * so that bad arguments exit 2 on any machine. */
static int checkArgs(Args *a, const hx_opts *o)
{
    PlanArgs *p = &a->planArgs;
    p->name = a->plan ? a->plan : "full";
    if (strcmp(p->name, "full") && strcmp(p->name, "sanitize"))
        return usageError("--plan wants full or sanitize, not", p->name);
    if (a->mix) {
        const int m = planMixByName(a->mix);
        if (m < 0)
            return usageError("unknown --mix", a->mix);
        p->mixSet = 1;
        p->mix = (plan_mix)m;
    }
    if (a->grid) {
        unsigned long blocks = 0, block = 0;
        char tail = 0;
        if (sscanf(a->grid, "%lux%lu%c", &blocks, &block, &tail) != 2 ||
            !strchr("123456789", a->grid[0]) || blocks < 1 ||
            blocks > 2147483647ul || block < 1 || block > 1024)
            return usageError("--grid wants BLOCKSxTHREADS (1 to 2^31-1 "
                              "blocks of 1 to 1024 threads), not", a->grid);
        p->gridSet = 1;
        p->blocks = (unsigned)blocks;
        p->block = (unsigned)block;
    }
    a->testMask = (1u << TEST_COUNT) - 1;
    if (a->tests && planParseTests(a->tests, &a->testMask, g_prog))
        return HX_EXIT_USAGE;
    a->runTimeoutValue = RUN_TIMEOUT_S;
    if (a->runTimeout) {
        char *end = NULL;
        const double v = strtod(a->runTimeout, &end);
        if (!end || *end || !(v > 0.0) || v > 86400.0 ||
            !strchr("0123456789.", a->runTimeout[0]))
            return usageError("--run-timeout wants seconds above 0, not",
                              a->runTimeout);
        a->runTimeoutValue = v;
    }
    a->maxNValue = (size_t)1 << 24;
    if (a->maxN && hx_parse_size(a->maxN, &a->maxNValue))
        return usageError("--max-n wants a size, not", a->maxN);
    a->smsValue = 132;
    if (a->sms && (a->smsValue = (int)wholeIn(a->sms, 1, 100000)) < 0)
        return usageError("--sms wants 1 to 100000, not", a->sms);
    a->maxThreadsValue = 1024;
    if (a->maxThreads &&
        (a->maxThreadsValue = (int)wholeIn(a->maxThreads, 1, 1024)) < 0)
        return usageError("--max-threads wants 1 to 1024, not",
                          a->maxThreads);
    if (!a->printPlan && (a->maxN || a->sms || a->maxThreads)) {
        fprintf(stderr, "%s: --max-n, --sms and --max-threads go with "
                "--print-plan (try --help)\n", g_prog);
        return HX_EXIT_USAGE;
    }
    if (a->grade) {
        if (!a->module || !a->result) {
            fprintf(stderr, "%s: --grade needs --module FILE and --result "
                    "FILE (try --help)\n", g_prog);
            return HX_EXIT_USAGE;
        }
        if (o->n_set || a->mix || a->grid || o->check) {
            fprintf(stderr, "%s: --n, --mix, --grid and --check do not go "
                    "with --grade: the plan comes from --seed (try --help)\n",
                    g_prog);
            return HX_EXIT_USAGE;
        }
    } else if (a->result || a->lock || a->time || a->exclusive ||
               a->inputCache) {
        fprintf(stderr, "%s: --result, --lock, --time, --exclusive and "
                "--input-cache go with --grade (try --help)\n", g_prog);
        return HX_EXIT_USAGE;
    }
    return HX_EXIT_OK;
}

/* The usage paragraph; the mix and test names come from the plan, so they
 * cannot drift from what --mix and --tests accept. */
static void buildUsage(char *buf, size_t len)
{
    char mixes[400] = "", tests[400] = "";
    for (int m = 0; m < MIX_COUNT; ++m) {
        strncat(mixes, m ? "|" : "", sizeof mixes - strlen(mixes) - 1);
        strncat(mixes, planMixName(m), sizeof mixes - strlen(mixes) - 1);
    }
    for (int t = 0; t < TEST_COUNT; ++t) {
        strncat(tests, t ? "," : "", sizeof tests - strlen(tests) - 1);
        strncat(tests, planTestName(t), sizeof tests - strlen(tests) - 1);
    }
    snprintf(buf, len,
        "Checks scatterThreeWay, the kernel of the day 33 exercise, compiled "
        "from\nthreeway.cu to a device module (make writes "
        "build/threeway.fatbin), on every\nrun of a plan of ten named tests "
        "drawn from the seed. Prints the first\nfailure in full, at most 20 "
        "failing runs, a line a test, and PASS or FAIL\n(exit 0 or 1); "
        "without --check it then times the split against a copy and\nthe "
        "two-way partition, and prints the wall time.\n"
        "\n"
        "  --module FILE    the module to load (default: build/threeway."
        "fatbin or\n"
        "                   .cubin next to this program)\n"
        "  --tests A,B      those tests only: %s\n"
        "  --mix NAME       that input mix only: %s\n"
        "  --grid BxT       that grid only: B blocks of T threads (e.g. "
        "3x64)\n"
        "  --plan NAME      full (default) or sanitize (the test "
        "memory_safety, for\n"
        "                   compute-sanitizer)\n"
        "  --all            print every run, not the first 20 failing ones\n"
        "  --run-timeout S  stop a launch that runs longer than S seconds "
        "per 2^24\n"
        "                   elements (default %g) and exit 6\n"
        "  --print-plan     print the plan, one line a run, and exit (no "
        "GPU):\n"
        "                   with --seed, --plan, --max-n N (the largest size,"
        "\n"
        "                   default 2^24), --sms K (default 132), "
        "--max-threads T\n"
        "\n"
        "Grade mode (the grading tool's; driver.cu's opening comment has "
        "the contract):\n"
        "  --grade --module FILE --result FILE [--seed S] [--plan "
        "full|sanitize]\n"
        "  [--tests A,B] [--time] [--ref-module FILE] [--lock FILE]\n"
        "  [--exclusive] [--input-cache DIR]\n"
        "  [--run-timeout S] [--runs R] [--warmup W]\n"
        "  writes one JSON event a line to FILE; nothing on stdout is "
        "trusted.",
        tests, mixes, RUN_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */
/* main: the steps of one process, student mode or grade mode.          */

static void printHeader(const hx_device *dev, const Module *m, const Plan *p,
                        uint64_t seed)
{
    printf("threeway: the day 33 exercise, a stable three-way split "
           "(negatives | zeros | positives)\n");
    hx_device_print(dev, stdout);
    printf("module: %s: scatterThreeWay found (up to %d threads a block)\n",
           m->path, m->maxThreads);
    printf("plan: %s, seed %llu: %d runs over %d sizes up to %zu, in named "
           "tests; %s\n\n", p->name, (unsigned long long)seed, p->count,
           p->sizes, p->maxN,
           g_ev.f ? "each test stops at its first failure"
                  : "every run is run (grading stops each test at its "
                    "first failure)");
}

/* Says why a module is not usable: the grade-mode event, or one line. */
static int reportModule(const Module *m, const hx_device *dev)
{
    if (g_ev.f) {
        fprintf(g_ev.f, "{\"event\":\"module\",\"status\":");
        if (m->status == MODULE_OK) {
            fprintf(g_ev.f, "\"ok\"");
        } else if (m->status == MODULE_LOAD_ERROR) {
            fprintf(g_ev.f, "\"load_error\",\"error\":");
            jsonString(g_ev.f, moduleErrorName(m->loadError));
        } else {
            fprintf(g_ev.f, "\"signature\",\"entries\":");
            if (m->entryCount < 0) {
                fputs("null", g_ev.f);
            } else {
                fputc('[', g_ev.f);
                for (int k = 0; k < m->entryCount; ++k) {
                    if (k)
                        fputc(',', g_ev.f);
                    jsonString(g_ev.f, m->entries[k]);
                }
                fputc(']', g_ev.f);
            }
        }
        eventDone();
        return HX_EXIT_OK;
    }
    if (m->status == MODULE_LOAD_ERROR) {
        fprintf(stderr, "%s: the module %s does not load on this GPU "
                "(compute capability %d.%d): %s: %s; rebuild it for this GPU "
                "(make ARCH=%d%d)\n", g_prog, m->path, dev->major, dev->minor,
                moduleErrorName(m->loadError), moduleErrorText(m->loadError),
                dev->major, dev->minor);
        return HX_EXIT_CUDA;
    }
    if (m->status == MODULE_SIGNATURE) {
        printf("%s: the module %s has no kernel scatterThreeWay with the "
               "fixed signature\n  (const int*, const int*, const int*, int*, "
               "size_t, const int*, const int*); ", g_prog, m->path);
        if (m->entryCount < 0)
            printf("this driver cannot list the kernels it has\n");
        else if (m->entryCount == 0)
            printf("it has no kernel at all\n");
        else
            printf("its kernels (mangled):\n");
        for (int k = 0; k < m->entryCount; ++k)
            printf("    %s\n", m->entries[k]);
        printf("FAIL: signature\n");
        return HX_EXIT_FAIL;
    }
    return HX_EXIT_OK;
}

/* The timing size: the smallest n whose one buffer is at least four times
 * the L2, and at least 2^24 ints. */
static size_t timingSize(const hx_device *dev)
{
    const size_t lo = (size_t)1 << 24;
    const size_t fourL2 = dev->l2_bytes;   /* ints: 4 bytes each */
    return fourL2 > lo ? fourL2 : lo;
}

/* A hold that runs no student code (context, teardown) is bounded too. */
static double quietLimit(const Args *a)
{
    return 60.0 + 6.0 * a->runTimeoutValue;
}

/* Everything one process holds. */
typedef struct {
    double t0, checked;   /* when it started, when the checks ended */
    Args a;
    hx_opts o;
    Module m, ref;
    hx_device dev;
    Plan plan;
    size_t timeN;         /* the timing's size */
    Buffers b;
    Group g;              /* the input on the host */
    Ctx c;                /* what a run needs: the modules, the limits */
    Tally t;
} Session;

/* Frees everything and resets the device, holding the lock shared so
 * that no timing elsewhere sees a teardown. */
static void teardown(Session *s)
{
    lockGpu(HX_LOCK_SHARED, quietLimit(&s->a));
    buffersFree(&s->b);
    HX_CHECK(cudaDeviceReset());
    unlockGpu();
    lockClose();
    moduleFree(&s->m);
    if (s->c.ref)
        moduleFree(&s->ref);
    planFree(&s->plan);
}

/* Step 1: the arguments, the module files, the result file and the lock:
 * exit 2 on any machine when one is wrong. --print-plan ends here. */
static int openFiles(Session *s, int argc, char **argv)
{
    int rc = takeArgs(&argc, argv, &s->a);
    if (rc != HX_EXIT_OK)
        return rc;
    char usage[3072];
    buildUsage(usage, sizeof usage);
    rc = hx_parse_args(argc, argv, &s->o, 0, g_prog, usage);
    if (rc != HX_EXIT_OK || s->o.help)
        return rc;
    if ((rc = checkArgs(&s->a, &s->o)) != HX_EXIT_OK)
        return rc;
    if (s->a.printPlan) {
        PlanArgs *pa = &s->a.planArgs;
        pa->largest = s->a.maxNValue;
        pa->sms = s->a.smsValue;
        pa->maxThreads = s->a.maxThreadsValue;
        planBuild(&s->plan, s->o.seed, pa);
        planPrint(&s->plan, stdout);
        planFree(&s->plan);
        return HX_EXIT_OK;
    }
    if ((rc = moduleRead(&s->m, s->a.module ? s->a.module
                                             : moduleDefaultPath(),
                         g_prog)) != HX_EXIT_OK)
        return rc;
    if (s->a.refModule &&
        (rc = moduleRead(&s->ref, s->a.refModule, g_prog)) != HX_EXIT_OK)
        return rc;
    if (s->a.grade) {
        g_ev.f = fopen(s->a.result, "w");
        if (!g_ev.f) {
            fprintf(stderr, "%s: cannot write the result file %s: %s\n",
                    g_prog, s->a.result, strerror(errno));
            return HX_EXIT_USAGE;
        }
    }
    lockOpen(s->a.lock, s->a.exclusive);
    return HX_EXIT_OK;
}

/* Step 2, holding the lock shared (context creation must never land
 * inside someone's timing): the device, the driver API, the modules, the
 * plan, and in grade mode the begin and module events. Returns with the
 * lock held; on an unusable module it stays held until the process ends,
 * so that the context's teardown is inside it too. */
static int openDevice(Session *s)
{
    int rc;
    watchdogStart();
    lockGpu(HX_LOCK_SHARED, quietLimit(&s->a));
    if ((rc = hx_device_open(&s->dev, g_prog)) != HX_EXIT_OK ||
        (rc = moduleApiOpen(g_prog)) != HX_EXIT_OK) {
        g_ev.terminal = 1;
        return rc;
    }
    /* Registered once the runtime is up: exit handlers run in reverse
     * order, so this one runs while the runtime can still name the error. */
    atexit(faultAtExit);
    /* A kernel's printf reaches stdout, which grade mode ignores: a small
     * buffer bounds what a flood of it costs. */
    if (s->a.grade)
        HX_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, GRADE_PRINTF));
    moduleLoad(&s->m);
    if (s->a.refModule) {
        moduleLoad(&s->ref);
        if (s->ref.status != MODULE_OK) {
            fprintf(stderr, "%s: the reference module %s is not usable "
                    "(%s)\n", g_prog, s->ref.path,
                    s->ref.status == MODULE_SIGNATURE
                        ? "no scatterThreeWay of the signature"
                        : moduleErrorName(s->ref.loadError));
            g_ev.terminal = 1;
            return HX_EXIT_USAGE;
        }
        s->c.ref = &s->ref;
    }

    PlanArgs *pa = &s->a.planArgs;
    const int sanitize = !strcmp(pa->name, "sanitize");
    const int timing = !sanitize && (s->a.grade ? s->a.time : !s->o.check);
    s->timeN = s->o.n_set ? s->o.n : timingSize(&s->dev);
    pa->largest = s->o.n_set ? s->o.n : s->timeN;
    pa->sms = s->dev.sms;
    pa->maxThreads = s->m.status == MODULE_OK ? s->m.maxThreads : 1024;
    if (s->o.n_set) {
        pa->sizes = &s->o.n;
        pa->nsizes = 1;
    }
    planBuild(&s->plan, s->o.seed, pa);
    g_plan = &s->plan;

    if (s->a.grade)
        eventBegin(&s->plan, &s->dev, s->o.seed, s->a.testMask);
    if ((rc = reportModule(&s->m, &s->dev)) != HX_EXIT_OK)
        return rc;
    if (s->m.status != MODULE_OK) {
        eventEnd(s->m.status == MODULE_SIGNATURE ? "signature" : "load_error",
                 &s->plan, 0);
        return HX_EXIT_OK;
    }
    const double t0 = hx_now_seconds();
    buffersAlloc(&s->b, &s->dev, s->plan.maxN, timing);
    s->b.maskedN = s->timeN;
    s->b.inputCache = s->a.inputCache;
    scansFor(&s->b, &s->plan);
    profAdd(PROF_ALLOC, t0);
    return HX_EXIT_OK;
}

/* 1 when the timing follows the checks. */
static int timingWanted(const Session *s)
{
    const int sanitize = !strcmp(s->a.planArgs.name, "sanitize");
    return !sanitize && (s->a.grade ? s->a.time : !s->o.check) &&
           (s->a.testMask >> TEST_LARGE & 1);
}

/* Step 3: every run of the plan; then, when the timing follows, its
 * input: thirds at the timing size, the plan's last group unless --mix
 * chose another. */
static void runChecks(Session *s)
{
    unlockGpu();
    if (!s->a.grade)
        printHeader(&s->dev, &s->m, &s->plan, s->o.seed);
    s->c.module = &s->m;
    s->c.runTimeout = s->a.runTimeoutValue;
    s->c.tests = s->a.testMask;
    s->c.all = s->a.all;
    s->c.stopTests = s->a.grade;
    runPlan(&s->c, &s->b, &s->plan, s->o.seed, &s->g, &s->t);
    s->checked = hx_now_seconds();
    if (timingWanted(s) && s->t.passed == s->t.runs &&
        !(s->g.valid && s->g.masked))
        groupHost(&s->b, &s->g, s->timeN, MIX_THIRDS, TEST_LARGE, s->o.seed);
}

/* Step 4 of grade mode: the timing when every run passed, then "end". */
static int gradeFinish(Session *s)
{
    const int allPassed = s->t.passed == s->t.runs;
    const char *timingBad = NULL;
    if (allPassed && timingWanted(s)) {
        const int rounds = !s->a.runsGiven ? GRADE_ROUNDS
                           : s->o.runs > MIN_ROUNDS ? s->o.runs : MIN_ROUNDS;
        const int warmup = s->o.warmup > GRADE_WARMUP ? s->o.warmup
                                                      : GRADE_WARMUP;
        const double t0 = hx_now_seconds();
        timingBad = gradeTiming(&s->c, &s->b, &s->g, &s->o, rounds, warmup);
        profAdd(PROF_TIMING, t0);
    }
    eventEnd(timingBad ? timingBad
             : allPassed ? "pass" : s->t.firstFail, &s->plan, s->t.passed);
    teardown(s);
    profPrint();
    return HX_EXIT_OK;
}

/* Step 4 of student mode: the summary, the timing when every run passed,
 * the wall time and the last line. */
static int studentFinish(Session *s)
{
    const int allPassed = s->t.passed == s->t.runs;
    const int timeIt = allPassed && timingWanted(s);
    int timingBad = 0;
    printSummary(&s->c, &s->t);
    printf("\n%d of %d runs passed\n", s->t.passed, s->t.runs);
    if (!allPassed)
        printf("(the first failure's report is above; %s --n N --mix M "
               "--grid BxT --check reruns one run)\n", g_prog);
    if (timeIt) {
        lockGpu(HX_LOCK_SHARED, launchLimit(&s->c, s->g.n) * 40);
        timingBad = studentTiming(&s->c, &s->b, &s->dev, &s->g, &s->o);
        unlockGpu();
    }
    teardown(s);
    profPrint();
    const double end = hx_now_seconds();
    printf("\nwall time: %.1f s (checks %.1f s", end - s->t0,
           s->checked - s->t0);
    if (timeIt)
        printf(", timing %.1f s", end - s->checked);
    printf(")\n%s\n", allPassed && !timingBad ? "PASS" : "FAIL");
    return allPassed && !timingBad ? HX_EXIT_OK : HX_EXIT_FAIL;
}

int main(int argc, char **argv)
{
    static Session s;
    s.t0 = hx_now_seconds();
    g_prog = argc > 0 && argv[0] ? argv[0] : "threeway";

    int rc = openFiles(&s, argc, argv);
    if (rc != HX_EXIT_OK || s.o.help || s.a.printPlan)
        return rc;
    rc = openDevice(&s);
    if (rc != HX_EXIT_OK || s.m.status != MODULE_OK)
        return rc;
    runChecks(&s);
    return s.a.grade ? gradeFinish(&s) : studentFinish(&s);
}
