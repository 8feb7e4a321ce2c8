/* cpu_check.cpp: the exercise's CPU check. Runs the student's
 * scatterThreeWay (threeway.cu, compiled for the host through cudacpu.h)
 * on the CPU over the GPU check's own plan (plan.c: its named tests, the
 * same seed), the runs of up to 2^16 + 1 elements, and judges every run
 * with the driver's own verdict (judge.c) and report (hx_split_print).
 * Feedback for a machine without a GPU, never a grade: it checks indexing
 * and boundaries, not races or speed; the GPU check is the real one.
 *
 *   make -C day33-exercise-threeway cpu-check     build and run it
 *   build/cpu/<source>/cpu_check [--seed S] [--n N] [--tests a,b,...]
 *
 * Each test runs in a process of its own (fork) and stops at its first
 * failing run, as the GPU check's tests do; every test runs. Tests with
 * no run at these sizes (many_per_thread) and memory_safety (the
 * sanitizer's, GPU only) are named as not run here.
 *
 * How a launch runs: the blocks of the grid one after another; inside a
 * block every thread is a fiber with its own stack (a small switch of
 * its own on x86-64, ucontext elsewhere), and the
 * scheduler switches fibers only where a thread waits: at __syncthreads()
 * (released when every thread of the block still running waits there) and
 * at a warp intrinsic (released, with the lanes' values exchanged, when
 * every lane of the warp still running waits at one). Threads that wait at
 * different kinds of barrier, so that none can go on, are a deadlock.
 *
 * What a run guards, so that the report names what went wrong:
 *   the output  poisoned (HX_POISON), with guard words on both sides
 *               (HX_GUARD_WORD) and beyond them a large reserved region
 *               with no access; a write there maps the page (the signal
 *               handler fills it with guard words) and the run goes on, so
 *               a write far outside the output is an out_of_bounds report
 *               with its offset, not a crash of this program
 *   the inputs  in, negRank, zeroRank and the two totals are read-only
 *               while the kernel runs, each ending (256-byte aligned, as
 *               far as the slack of that alignment) just before INPUT_GAP
 *               bytes with no access: writing one, or reading past its
 *               end beyond that slack, is a crash report naming the buffer
 *               and the index
 *   time        a launch that runs past RUN_LIMIT_S seconds is stopped
 *               (timeout); so is any other fault (crash), and the next run
 *               goes on
 * Exit: 0 every test run passed; 1 a test failed (the first failure's
 * report is printed in full); 2 bad arguments or no memory.
 */
#include <csetjmp>
#include <csignal>
#include <cerrno>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "cudacpu.h"

extern "C" {
#include "hx_args.h"
#include "hx_check.h"
#include "hx_input.h"
#include "hx_ref.h"
#include "judge.h"
}
#include "plan.h"

/* The student's kernel, compiled from threeway.cu. */
__global__ void scatterThreeWay(const int *__restrict__ in,
                                const int *__restrict__ negRank,
                                const int *__restrict__ zeroRank,
                                int *__restrict__ out, size_t n,
                                const int *__restrict__ totalNeg,
                                const int *__restrict__ totalZero);

#define MAX_N (((size_t)1 << 16) + 1) /* the plan's runs up to this size */
#define CAP MAX_N
#define PLAN_SMS 132                 /* an H200's; below 2^18 elements the
                                        normal grid is the same for any
                                        GPU of 9 SMs or more */
#define MAX_BLOCK 1024u
#define STACK_BYTES ((size_t)64 << 10)
#define NEAR_GUARD ((size_t)4096)    /* guard words before the output */
#define FAR_BYTES ((size_t)1 << 30)  /* no-access bytes on each side */
#define MAX_TOUCHED 64               /* far pages a launch may write */
#define RUN_LIMIT_S 5                /* a launch of 2^16 takes milliseconds */
#define INPUT_GAP ((size_t)16 << 20) /* no-access bytes after an input */

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

/* ------------------------------------------------------------------ */
/* Fibers: one per thread of the block under way.                      */

enum { F_RUN, F_BLOCK, F_WARP, F_DONE };

struct Fiber {
#if defined(__x86_64__) && !defined(CPU_CHECK_UCONTEXT)
    void *sp;               /* its saved stack pointer */
#else
    ucontext_t ctx;
#endif
    int state;
    uint3 tid;
    int pred;                       /* __syncthreads_count, ballot */
    int kind, arg, width;           /* the warp operation it waits at */
    unsigned long long val, result;
};

static Fiber *g_fib;
static char *g_stacks;              /* MAX_BLOCK stacks, a guard page under each */
static size_t g_stackStride;
static unsigned g_threads;          /* of the block under way */
static unsigned g_cur;
#if !defined(__x86_64__) || defined(CPU_CHECK_UCONTEXT)
static ucontext_t g_sched;
#endif

struct Args {
    const int *in, *negRank, *zeroRank;
    int *out;
    size_t n;
    const int *totalNeg, *totalZero;
};
static Args g_args;

/* Why a launch stopped early (crash, timeout, deadlock): set before the
 * jump back to the launch. */
static char g_why[256];
static const char *g_whyStatus;
static sigjmp_buf g_jmp;
static volatile sig_atomic_t g_inLaunch;

static void fiberBody()
{
    scatterThreeWay(g_args.in, g_args.negRank, g_args.zeroRank, g_args.out,
                    g_args.n, g_args.totalNeg, g_args.totalZero);
    g_fib[g_cur].state = F_DONE;
}

#if defined(__x86_64__) && !defined(CPU_CHECK_UCONTEXT)
/* The switch itself, on x86-64: the callee-saved registers pushed on the
 * stack left, the stack pointer saved, the other stack's popped. No
 * system call (swapcontext saves the signal mask with one each way). */
extern "C" void cpu_check_switch(void **save, void *to);
__asm__(".text\n"
        ".globl cpu_check_switch\n"
        ".type cpu_check_switch,@function\n"
        "cpu_check_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n"
        "  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n"
        "  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size cpu_check_switch, .-cpu_check_switch\n");
static void *g_schedSp;

[[noreturn]] static void fiberEntry()
{
    fiberBody();
    cpu_check_switch(&g_fib[g_cur].sp, g_schedSp);
    abort();                /* a finished fiber is never resumed */
}

/* A fresh fiber for thread t: its stack holds the six registers the
 * switch pops, then fiberEntry as the address to return to, aligned as a
 * call would leave it. */
static void fiberStart(unsigned t, char *stack, size_t bytes)
{
    uintptr_t top = ((uintptr_t)(stack + bytes)) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = NULL;
    *--sp = (void *)fiberEntry;
    for (int r = 0; r < 6; ++r)
        *--sp = NULL;
    g_fib[t].sp = sp;
}
static void fiberResume(unsigned t) { cpu_check_switch(&g_schedSp, g_fib[t].sp); }
static void fiberYield() { cpu_check_switch(&g_fib[g_cur].sp, g_schedSp); }
#else
static void fiberMain() { fiberBody(); }   /* returns through uc_link */
static void fiberStart(unsigned t, char *stack, size_t bytes)
{
    Fiber &f = g_fib[t];
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = stack;
    f.ctx.uc_stack.ss_size = bytes;
    f.ctx.uc_link = &g_sched;
    makecontext(&f.ctx, fiberMain, 0);
}
static void fiberResume(unsigned t) { swapcontext(&g_sched, &g_fib[t].ctx); }
static void fiberYield() { swapcontext(&g_fib[g_cur].ctx, &g_sched); }
#endif

static void waitAt(int state)
{
    g_fib[g_cur].state = state;
    fiberYield();
}

static void stop(const char *status, const char *why)
{
    g_whyStatus = status;
    snprintf(g_why, sizeof g_why, "%s", why);
    siglongjmp(g_jmp, 1);
}

void __syncthreads() { waitAt(F_BLOCK); }
int __syncthreads_count(int p)
{
    g_fib[g_cur].pred = p != 0;
    waitAt(F_BLOCK);
    return (int)g_fib[g_cur].result;
}
int __syncthreads_and(int p)
{
    const int count = __syncthreads_count(p);
    return count == (int)g_fib[g_cur].val;   /* every thread that waited */
}
int __syncthreads_or(int p) { return __syncthreads_count(p) != 0; }

enum { W_SHFL, W_UP, W_DOWN, W_XOR, W_BALLOT, W_SYNC };

static unsigned long long warpOp(int kind, unsigned long long v, int arg,
                                 int width)
{
    Fiber &f = g_fib[g_cur];
    f.kind = kind;
    f.val = v;
    f.arg = arg;
    f.width = width;
    waitAt(F_WARP);
    return g_fib[g_cur].result;
}

unsigned long long cudacpu_shfl(unsigned, unsigned long long bits, int kind,
                                int arg, int width)
{ return warpOp(kind, bits, arg, width); }
void __syncwarp(unsigned) { warpOp(W_SYNC, 0, 0, 32); }
unsigned __ballot_sync(unsigned, int p)
{ return (unsigned)warpOp(W_BALLOT, p != 0, 0, 32); }
int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
int __all_sync(unsigned, int p)
{
    const unsigned live = (unsigned)warpOp(W_BALLOT, 1, 0, 32);
    return (unsigned)warpOp(W_BALLOT, p != 0, 0, 32) == live;
}
unsigned __activemask() { return (unsigned)warpOp(W_BALLOT, 1, 0, 32); }
void __threadfence() {}
void __threadfence_block() {}
void __threadfence_system() {}
void __trap() { stop("crash", "the kernel called __trap()"); }

/* The lane a shuffle of kind reads for lane l, or -1: its own value. */
static int shflSource(int kind, int l, int arg, int width)
{
    if (width < 1 || width > 32 || (width & (width - 1)))
        width = 32;
    const int base = l & ~(width - 1);
    switch (kind) {
    case W_SHFL: return base + ((arg % width) + width) % width;
    case W_UP: return l - arg >= base ? l - arg : -1;
    case W_DOWN: return l + arg < base + width ? l + arg : -1;
    case W_XOR: {
        const int s = l ^ arg;
        return s >= base && s < base + width ? s : -1;
    }
    }
    return -1;
}

/* Releases what can be released once no fiber can run; 0 when nothing
 * can (a deadlock). */
static int release(unsigned live)
{
    unsigned atBlock = 0;
    for (unsigned t = 0; t < g_threads; ++t)
        atBlock += g_fib[t].state == F_BLOCK;
    if (atBlock == live) {
        unsigned long long count = 0;
        for (unsigned t = 0; t < g_threads; ++t)
            count += g_fib[t].state == F_BLOCK && g_fib[t].pred;
        for (unsigned t = 0; t < g_threads; ++t)
            if (g_fib[t].state == F_BLOCK) {
                g_fib[t].result = count;
                g_fib[t].val = atBlock;
                g_fib[t].pred = 0;
                g_fib[t].state = F_RUN;
            }
        return 1;
    }
    int released = 0;
    for (unsigned w = 0; w * 32 < g_threads; ++w) {
        const unsigned lo = w * 32, hi = std::min(lo + 32, g_threads);
        unsigned waiting = 0, alive = 0, ballot = 0;
        for (unsigned t = lo; t < hi; ++t) {
            alive += g_fib[t].state != F_DONE;
            if (g_fib[t].state == F_WARP) {
                ++waiting;
                if (g_fib[t].val)
                    ballot |= 1u << (t - lo);
            }
        }
        if (!waiting || waiting != alive)
            continue;
        for (unsigned t = lo; t < hi; ++t) {
            Fiber &f = g_fib[t];
            if (f.state != F_WARP)
                continue;
            if (f.kind == W_BALLOT) {
                f.result = ballot;
            } else if (f.kind == W_SYNC) {
                f.result = 0;
            } else {
                const int s = shflSource(f.kind, (int)(t - lo), f.arg,
                                         f.width);
                const unsigned st = lo + (unsigned)s;
                f.result = s >= 0 && st < hi && g_fib[st].state == F_WARP
                               ? g_fib[st].val : f.val;
            }
        }
        for (unsigned t = lo; t < hi; ++t)
            if (g_fib[t].state == F_WARP)
                g_fib[t].state = F_RUN;
        released = 1;
    }
    return released;
}

static void runBlock(unsigned bx)
{
    blockIdx.x = bx;
    blockIdx.y = blockIdx.z = 0;
    for (unsigned t = 0; t < g_threads; ++t) {
        Fiber &f = g_fib[t];
        f.state = F_RUN;
        f.pred = 0;
        f.tid.x = t;
        f.tid.y = f.tid.z = 0;
        fiberStart(t, g_stacks + t * g_stackStride + 4096, STACK_BYTES);
    }
    unsigned live = g_threads;
    for (;;) {
        for (unsigned t = 0; t < g_threads; ++t) {
            if (g_fib[t].state != F_RUN)
                continue;
            g_cur = t;
            threadIdx = g_fib[t].tid;
            fiberResume(t);
            if (g_fib[t].state == F_DONE)
                --live;
        }
        if (!live)
            return;
        if (!release(live)) {
            unsigned b = 0, w = 0;
            for (unsigned t = 0; t < g_threads; ++t) {
                b += g_fib[t].state == F_BLOCK;
                w += g_fib[t].state == F_WARP;
            }
            char why[200];
            snprintf(why, sizeof why, "deadlock in block %u: %u threads wait "
                     "at __syncthreads(), %u at a warp intrinsic (__shfl_*, "
                     "__ballot_sync, __syncwarp), %u have returned", bx, b,
                     w, g_threads - live);
            stop("crash", why);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Guarded memory.                                                     */

static size_t g_page;

/* The output: [FAR no access][near guard][CAP words + after guard][FAR]. */
struct Output {
    char *res;              /* the reservation */
    size_t resBytes;
    char *rw;               /* its accessible part */
    size_t rwBytes;
    size_t far;             /* no-access bytes on each side */
    int *out;               /* rw + NEAR_GUARD words */
    size_t n;               /* the run's length */
    char *touched[MAX_TOUCHED];
    int ntouched;
};
static Output g_out;

/* An input: data placed so that its (256-byte aligned) end is the end of
 * its accessible pages, a page with no access after them. */
struct Input {
    const char *name;
    char *map;
    size_t bytes;           /* accessible bytes */
    int *data;
};
enum { IN_IN, IN_NEG, IN_ZERO, IN_TOTALS, IN_COUNT };
static Input g_inputs[IN_COUNT] = {{"in", 0, 0, 0}, {"negRank", 0, 0, 0},
                                   {"zeroRank", 0, 0, 0},
                                   {"totals", 0, 0, 0}};

static size_t roundUp(size_t x, size_t m) { return (x + m - 1) / m * m; }

static void *mapOrDie(size_t bytes, int prot)
{
    void *p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS |
                   MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "cpu_check: cannot map %zu bytes: %s\n", bytes,
                strerror(errno));
        exit(2);
    }
    return p;
}

static void memoryInit()
{
    g_page = (size_t)sysconf(_SC_PAGESIZE);
    Output &o = g_out;
    o.rwBytes = roundUp((NEAR_GUARD + CAP + NEAR_GUARD) * sizeof(int),
                        g_page);
    for (o.far = FAR_BYTES; ; o.far /= 4) {
        o.resBytes = 2 * o.far + o.rwBytes;
        void *p = mmap(NULL, o.resBytes, PROT_NONE, MAP_PRIVATE |
                       MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            o.res = (char *)p;
            break;
        }
        if (o.far < ((size_t)1 << 20)) {
            fprintf(stderr, "cpu_check: cannot reserve the output's guard "
                    "region\n");
            exit(2);
        }
    }
    o.rw = o.res + o.far;
    if (mprotect(o.rw, o.rwBytes, PROT_READ | PROT_WRITE)) {
        perror("cpu_check: mprotect");
        exit(2);
    }
    o.out = (int *)o.rw + NEAR_GUARD;
    for (int k = 0; k < IN_COUNT; ++k) {
        Input &in = g_inputs[k];
        in.bytes = roundUp(k == IN_TOTALS ? 8 : CAP * sizeof(int) + 256,
                           g_page);
        in.map = (char *)mapOrDie(in.bytes + INPUT_GAP, PROT_READ |
                                  PROT_WRITE);
        if (mprotect(in.map + in.bytes, INPUT_GAP, PROT_NONE)) {
            perror("cpu_check: mprotect");
            exit(2);
        }
    }
    g_stackStride = STACK_BYTES + 4096;
    g_stacks = (char *)mapOrDie(MAX_BLOCK * g_stackStride,
                                PROT_READ | PROT_WRITE);
    for (unsigned t = 0; t < MAX_BLOCK; ++t)
        mprotect(g_stacks + t * g_stackStride, 4096, PROT_NONE);
    g_fib = new Fiber[MAX_BLOCK];
}

/* Lays an input of count ints at the end of its pages. */
static int *inputPlace(int k, const int *src, size_t count)
{
    Input &in = g_inputs[k];
    in.data = (int *)(in.map + in.bytes - roundUp(count * sizeof(int), 256));
    if (count)
        memcpy(in.data, src, count * sizeof(int));
    return in.data;
}

static void inputsProtect(int prot)
{
    for (int k = 0; k < IN_COUNT; ++k)
        mprotect(g_inputs[k].map, g_inputs[k].bytes, prot);
}

/* Poison and guards for an output of n words. */
static void outputPoison(size_t n)
{
    int *w = (int *)g_out.rw;
    const size_t words = g_out.rwBytes / sizeof(int);
    g_out.n = n;
    for (size_t i = 0; i < words; ++i)
        w[i] = HX_GUARD_WORD;
    for (size_t i = 0; i < n; ++i)
        g_out.out[i] = HX_POISON;
}

/* Adds word at offset off (from out[0]) to the report when it changed. */
static void guardWord(hx_guard_report *g, long long off, int v)
{
    if (v == HX_GUARD_WORD)
        return;
    if (off < 0) {
        if (!g->before || off > g->first_before) {
            g->first_before = off;
            g->value_before = v;
        }
        ++g->before;
    } else {
        if (!g->after || off < g->first_after) {
            g->first_after = off;
            g->value_after = v;
        }
        ++g->after;
    }
}

/* The guards' report, and the far pages written put back out of reach. */
static void outputGuards(hx_guard_report *g)
{
    memset(g, 0, sizeof *g);
    const int *w = (const int *)g_out.rw;
    const size_t words = g_out.rwBytes / sizeof(int);
    for (size_t i = 0; i < words; ++i) {
        const long long off = (long long)i - (long long)NEAR_GUARD;
        if (off < 0 || off >= (long long)g_out.n)
            guardWord(g, off, w[i]);
    }
    for (int p = 0; p < g_out.ntouched; ++p) {
        const int *pw = (const int *)g_out.touched[p];
        const long long base = (long long)(pw - g_out.out);
        for (size_t i = 0; i < g_page / sizeof(int); ++i)
            guardWord(g, base + (long long)i, pw[i]);
        madvise(g_out.touched[p], g_page, MADV_DONTNEED);
        mprotect(g_out.touched[p], g_page, PROT_NONE);
    }
    g_out.ntouched = 0;
}

/* ------------------------------------------------------------------ */
/* Signals: a fault, a time limit, an abort inside a launch.           */

static char *g_altStack;

static void faultWhy(char *buf, size_t len, const char *addr)
{
    const Output &o = g_out;
    if (addr >= o.res && addr < o.res + o.resBytes) {
        const long long off = (long long)((addr - (const char *)o.out) /
                                          (long long)sizeof(int));
        snprintf(buf, len, "out[%lld]: the kernel wrote to more than %d "
                 "pages outside the output", off, MAX_TOUCHED);
        return;
    }
    for (int k = 0; k < IN_COUNT; ++k) {
        const Input &in = g_inputs[k];
        if (addr >= in.map + in.bytes &&
            addr < in.map + in.bytes + INPUT_GAP) {
            if (k == IN_TOTALS)
                snprintf(buf, len, "a read past the totals: totalNeg and "
                         "totalZero are one int each");
            else
                snprintf(buf, len, "a read of %s[%lld], past its end (n = "
                         "%zu)", in.name, (long long)((const int *)addr -
                         in.data), g_args.n);
            return;
        }
        if (addr >= in.map && addr < in.map + in.bytes) {
            if (k == IN_TOTALS)
                snprintf(buf, len, "a write to *totalNeg or *totalZero: "
                         "inputs the kernel must only read");
            else
                snprintf(buf, len, "a write to %s[%lld]: an input the kernel "
                         "must only read", in.name, (long long)((const int *)
                         addr - in.data));
            return;
        }
    }
    if (addr >= g_stacks && addr < g_stacks + MAX_BLOCK * g_stackStride) {
        snprintf(buf, len, "a thread's stack overflowed (%zu KiB each: "
                 "large local arrays or deep recursion)", STACK_BYTES >> 10);
        return;
    }
    if ((uintptr_t)addr < 65536)
        snprintf(buf, len, "an access at address %p: a null pointer",
                 (const void *)addr);
    else
        snprintf(buf, len, "an access at address %p, outside every buffer "
                 "of the launch", (const void *)addr);
}

static void onFault(int sig, siginfo_t *si, void *)
{
    if (!g_inLaunch) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    char *addr = (char *)si->si_addr;
    Output &o = g_out;
    const int farPart = addr >= o.res && addr < o.res + o.resBytes &&
                        !(addr >= o.rw && addr < o.rw + o.rwBytes);
    if (sig == SIGSEGV && farPart && o.ntouched < MAX_TOUCHED) {
        char *page = (char *)((uintptr_t)addr & ~(uintptr_t)(g_page - 1));
        if (mprotect(page, g_page, PROT_READ | PROT_WRITE) == 0) {
            int *w = (int *)page;
            for (size_t i = 0; i < g_page / sizeof(int); ++i)
                w[i] = HX_GUARD_WORD;
            o.touched[o.ntouched++] = page;
            return;     /* the access runs again, now on a guard page */
        }
    }
    char why[200];
    faultWhy(why, sizeof why, addr);
    snprintf(g_why, sizeof g_why, "%s (%s)", why,
             sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
    g_whyStatus = "crash";
    siglongjmp(g_jmp, 1);
}

static void onOther(int sig)
{
    if (!g_inLaunch) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (sig == SIGALRM) {
        g_whyStatus = "timeout";
        snprintf(g_why, sizeof g_why, "the launch ran past %d s and was "
                 "stopped (an endless loop, or a barrier some threads never "
                 "reach)", RUN_LIMIT_S);
    } else {
        g_whyStatus = "crash";
        snprintf(g_why, sizeof g_why, "%s", sig == SIGFPE ?
                 "an arithmetic fault (SIGFPE: an integer division by zero?)"
                 : sig == SIGABRT ? "abort (SIGABRT: an assert failed?)"
                 : "an illegal instruction (SIGILL)");
    }
    siglongjmp(g_jmp, 1);
}

static void signalsInit()
{
    stack_t ss;
    g_altStack = (char *)mapOrDie(1 << 16, PROT_READ | PROT_WRITE);
    ss.ss_sp = g_altStack;
    ss.ss_size = 1 << 16;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onFault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    struct sigaction so;
    memset(&so, 0, sizeof so);
    so.sa_handler = onOther;
    so.sa_flags = SA_ONSTACK | SA_NODEFER;
    sigemptyset(&so.sa_mask);
    sigaction(SIGALRM, &so, NULL);
    sigaction(SIGFPE, &so, NULL);
    sigaction(SIGABRT, &so, NULL);
    sigaction(SIGILL, &so, NULL);
}

/* ------------------------------------------------------------------ */
/* One launch, and one run (a launch or two, judged).                   */

/* Launches the kernel over blocks x block threads on the input laid out
 * in the guarded buffers. Returns NULL, or the status that stopped it
 * ("crash", "timeout"), g_why saying why. */
static const char *launch(size_t n, unsigned blocks, unsigned block)
{
    gridDim = dim3(blocks, 1, 1);
    blockDim = dim3(block, 1, 1);
    g_threads = block;
    g_args.out = g_out.out;
    g_args.n = n;
    g_out.ntouched = 0;
    inputsProtect(PROT_READ);
    struct itimerval limit;
    memset(&limit, 0, sizeof limit);
    limit.it_value.tv_sec = RUN_LIMIT_S;
    const char *status = NULL;
    if (sigsetjmp(g_jmp, 1) == 0) {
        g_inLaunch = 1;
        setitimer(ITIMER_REAL, &limit, NULL);
        for (unsigned b = 0; b < blocks; ++b)
            runBlock(b);
    } else {
        status = g_whyStatus;
    }
    memset(&limit, 0, sizeof limit);
    setitimer(ITIMER_REAL, &limit, NULL);
    g_inLaunch = 0;
    inputsProtect(PROT_READ | PROT_WRITE);
    return status;
}

struct Outcome {
    const char *status;     /* judgeStatus, or crash, timeout,
                               nondeterministic */
    judge_verdict v;
    char why[256];          /* crash and timeout: what happened */
};

/* Host buffers for one run. */
static int *h_in, *h_ref, *h_neg, *h_zero, *h_first;

/* Runs r on h_in[0..n) (ranks, totals and reference made here). */
static void runOne(const Run &r, Outcome *o)
{
    const size_t n = r.n;
    size_t a = 0, ab = 0;
    int neg = 0, zero = 0;
    for (size_t i = 0; i < n; ++i) {
        h_neg[i] = neg;
        h_zero[i] = zero;
        neg += h_in[i] < 0;
        zero += h_in[i] == 0;
    }
    hx_split3(h_in, h_ref, n, &a, &ab);
    const int totals[2] = {neg, zero};
    g_args.in = inputPlace(IN_IN, h_in, n);
    g_args.negRank = inputPlace(IN_NEG, h_neg, n);
    g_args.zeroRank = inputPlace(IN_ZERO, h_zero, n);
    const int *t = inputPlace(IN_TOTALS, totals, 2);
    g_args.totalNeg = t;
    g_args.totalZero = t + 1;
    memset(o, 0, sizeof *o);
    hx_guard_report g0;
    for (int l = 0; l < r.launches; ++l) {
        outputPoison(n);
        const char *stopped = launch(n, r.blocks, r.block);
        hx_guard_report g;
        outputGuards(&g);
        if (stopped) {
            o->status = stopped;
            snprintf(o->why, sizeof o->why, "%s", g_why);
            return;
        }
        if (l == 0) {
            judgeRun(h_in, h_ref, g_out.out, n, a, ab, &g, &o->v);
            o->status = o->v.status;
            if (strcmp(o->status, "pass"))
                return;
            memcpy(h_first, g_out.out, n * sizeof(int));
            g0 = g;
        } else if ((n && memcmp(h_first, g_out.out, n * sizeof(int))) ||
                   g.before != g0.before || g.after != g0.after) {
            o->status = "nondeterministic";
            snprintf(o->why, sizeof o->why, "launch %d on a freshly "
                     "poisoned output gave a different output than the "
                     "first (state kept between launches?)", l + 1);
            return;
        }
    }
}

/* ------------------------------------------------------------------ */
/* The plan: the driver's (plan.c), its runs up to MAX_N elements.      */

/* What each test covers at the CPU check's sizes (plan.h says the rest). */
static const char *const COVERS[TEST_COUNT] = {
    "n = 0 to 64, every mix at a few, a normal and a small grid",
    "one or two kinds of value only",
    "around multiples of the block, the grid, the scan's tiles",
    "an even and an odd size in every octave",
    "blocks of 1, 7, 33, 100, 255, 1000, 1023, 1024 threads",
    "a thread handling more than 2^16 elements",
    "sorted, reversed, alternating, lone ends, INT_MIN / INT_MAX",
    "the largest sizes, every mix",
    "each run launched twice, the same output both times",
    "compute-sanitizer memcheck's runs"};

struct TestResult {
    int progress;           /* the run under way */
    int done;               /* the test ended: k and o are its result */
    int k;                  /* its first failing run, or its run count */
    Outcome o;
};

/* Runs the runs of test t in a process of its own, stopping at its first
 * failing run: every test starts from the kernel's pristine static state
 * (as each test of the GPU check may start a fresh driver), and a fault
 * no handler catches costs that test only. Returns the index among the
 * test's runs of the first failing one, its outcome in *o and the run in
 * *failed; or the test's run count when every run passed. */
static int runTest(const Plan &p, int t, uint64_t seed, Outcome *o,
                   Run *failed)
{
    TestResult *sh = (TestResult *)mmap(NULL, sizeof *sh, PROT_READ |
                                        PROT_WRITE, MAP_SHARED |
                                        MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("cpu_check: mmap");
        exit(2);
    }
    memset(sh, 0, sizeof *sh);
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        perror("cpu_check: fork");
        exit(2);
    }
    if (pid == 0) {
        int k = 0;
        for (int i = 0; i < p.count; ++i) {
            const Run &r = p.run[i];
            if ((int)r.test != t)
                continue;
            sh->progress = k;
            planFill(h_in, r.n, r.mix, planInputSeed(seed, r.n, r.mix));
            runOne(r, &sh->o);
            if (strcmp(sh->o.status, "pass"))
                break;
            ++k;
        }
        sh->k = k;
        sh->done = 1;
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int k;
    if (sh->done) {
        k = sh->k;
        *o = sh->o;
    } else {
        k = sh->progress;
        memset(o, 0, sizeof *o);
        o->status = "crash";
        if (WIFSIGNALED(st))
            snprintf(o->why, sizeof o->why, "the run's process was killed "
                     "by signal %d (%s)", WTERMSIG(st),
                     strsignal(WTERMSIG(st)));
        else
            snprintf(o->why, sizeof o->why, "the run's process exited "
                     "(status %d): does the kernel call exit()?",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    munmap(sh, sizeof *sh);
    for (int i = 0, j = 0; i < p.count; ++i)
        if ((int)p.run[i].test == t && j++ == k) {
            *failed = p.run[i];
            break;
        }
    return k;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cpu_check [--seed S] [--n N] [--tests NAME,NAME,...]\n"
            "Runs scatterThreeWay from threeway.cu on the CPU: the GPU "
            "check's plan (its\nnamed tests, the same seed), its runs up to "
            "%zu elements, with the GPU\ncheck's verdicts and report. "
            "Feedback only: it checks indexing and boundaries,\nnot races "
            "or speed.\n"
            "  --seed S    the plan's seed (default %u, the driver's)\n"
            "  --n N       one size (0 to %zu): a normal, a small and a "
            "drawn grid\n"
            "  --tests L   only the named tests (comma-separated)\n",
            MAX_N, (unsigned)HX_DEFAULT_SEED, MAX_N);
}

int main(int argc, char **argv)
{
    uint64_t seed = HX_DEFAULT_SEED;
    size_t onlyN = (size_t)-1;
    unsigned mask = ~0u;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        char *end = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], &end, 0);
        } else if (!strcmp(a, "--n") && i + 1 < argc) {
            onlyN = strtoull(argv[++i], &end, 0);
            if (onlyN > MAX_N)
                end = NULL;
        } else if (!strcmp(a, "--tests") && i + 1 < argc) {
            if (planParseTests(argv[++i], &mask, "cpu_check"))
                return 2;
            continue;
        } else {
            usage(stderr);
            return 2;
        }
        if (!end || *end) {
            fprintf(stderr, "cpu_check: bad value for %s: %s\n", a, argv[i]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    memoryInit();
    signalsInit();
    h_in = new int[CAP];
    h_ref = new int[CAP];
    h_neg = new int[CAP];
    h_zero = new int[CAP];
    h_first = new int[CAP];
    PlanArgs pa;
    memset(&pa, 0, sizeof pa);
    pa.name = "full";
    pa.largest = MAX_N;
    pa.sms = PLAN_SMS;
    pa.maxThreads = (int)MAX_BLOCK;
    if (onlyN != (size_t)-1) {
        pa.sizes = &onlyN;
        pa.nsizes = 1;
    }
    Plan plan;
    planBuild(&plan, seed, &pa);

    printf("CPU check of threeway.cu: your scatterThreeWay, compiled for the "
           "host, its blocks\nand threads run on the CPU, judged run by run "
           "as on the GPU: the GPU check's\nplan (seed %llu), its runs up "
           "to %zu elements.\nIt checks indexing and boundaries, NOT races "
           "or speed: the GPU check is the\nreal one, and the only one "
           "that grades.\n\n", (unsigned long long)seed, MAX_N);
    int failedTests = 0, ranTests = 0, shown = 0;
    char failedNames[256] = "";
    Outcome first;
    char firstWhere[160] = "";
    for (int t = 0; t < TEST_COUNT; ++t) {
        if (!(mask >> t & 1u))
            continue;
        const char *name = planTestName(t);
        const int runs = plan.testRuns[t];
        if (t == TEST_MEMORY_SAFETY) {
            printf("  ----  %-17s not run here: compute-sanitizer's, on the "
                   "GPU only (every run\n        %-17s here guards the "
                   "output and the inputs)\n", name, "");
            continue;
        }
        if (!runs) {
            if (onlyN == (size_t)-1)
                printf("  ----  %-17s not run here: every run is above %zu "
                       "elements (%s)\n", name, MAX_N, COVERS[t]);
            continue;
        }
        ++ranTests;
        Outcome o;
        Run bad;
        const int k = runTest(plan, t, seed, &o, &bad);
        if (k == runs) {
            printf("  PASS  %-17s %4d runs  (%s)\n", name, runs, COVERS[t]);
            continue;
        }
        char where[160], brief[256];
        planDescribe(where, sizeof where, &bad);
        if (o.why[0])
            snprintf(brief, sizeof brief, "%s", o.why);
        else
            hx_split_brief(brief, sizeof brief, &o.v.r);
        printf("  FAIL  %-17s run %d of %d: %s [%s] %s\n", name, k + 1, runs,
               where, o.status, brief);
        ++failedTests;
        snprintf(failedNames + strlen(failedNames),
                 sizeof failedNames - strlen(failedNames), "%s%s",
                 failedNames[0] ? ", " : "", name);
        if (!shown) {
            shown = 1;
            first = o;
            snprintf(firstWhere, sizeof firstWhere, "%s", where);
        }
    }
    planFree(&plan);
    if (shown) {
        printf("\nThe first failure in full:\n");
        if (first.why[0])
            printf("%s: FAIL: %s: %s\n", firstWhere, first.status,
                   first.why);
        else
            hx_split_print(firstWhere, &first.v.r, stdout);
        printf("\nCPU check: threeway.cu FAILS %d of %d tests (%s); the "
               "first failure is above.\n", failedTests, ranTests,
               failedNames);
        return 1;
    }
    printf("\nCPU check: threeway.cu passes the %d tests run on the CPU. "
           "Not a grade: races\nand speed show only on the GPU (make check "
           "there runs the real check).\n", ranTests);
    return 0;
}
