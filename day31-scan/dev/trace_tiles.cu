/* trace_tiles.cu: where a single-pass scan tile's time goes (development
 * instrument; the lesson quotes its output from evidence-h200.txt, where
 * harness/evidence.sh runs it). Two instrumented copies of the scan,
 * clock64() stamps per tile, each phase's mean and percentiles:
 *   traceScan    the one-tile-at-a-time loop (lookbackEachTile's order):
 *                take index, load + reduce, look-back, barrier, finish;
 *   tracePiped   the pipelined loop (lookbackPipelined's order; its round
 *                is an earlier hand-over form, named barriers arrived at
 *                by one side and waited at by the other, where the lab's
 *                loop meets at one cuda::barrier): take index, load +
 *                reduce, wait for the walk, finish + stash; the walker's
 *                walk and idle time.
 * Also the walk's windows read, re-reads (nearest word still invalid) and
 * the distance to the prefix it found. Each run is checked against the
 * host. The stamps cost registers, so the times are longer than the
 * lab's. Exit 0 when every output matched, 1 when one did not, 3 without
 * a GPU, 4 on a CUDA error. Build and run (K: n = 2^K, default 28):
 *   make -C day31-scan dev && ./day31-scan/dev/trace-tiles [K]
 */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include "hx_cuda.h"
#include "lookback_variants.cuh"

/* tracePiped's hand-over: the first piped form, named barriers 2 to 5 in
 * turn (tile warps arrive, walker waits; walker arrives, tile warps wait). */
#define PIPE_HANDED 2
#define PIPE_WALKED 4
__device__ inline void pipeArrive(int id, int threads)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ inline void pipeWait(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

#define CK(x) HX_CHECK(x)

struct Rec {
    long long c[6];
    int rounds, spins, dist, sm;
};

__device__ inline unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }

template <int K, unsigned DELAY0, unsigned SPIN_NS>
__device__ LookbackResult<int> lb(unsigned long long *state, unsigned tile, int aggregate,
                                  int &rounds, int &spins, int &dist)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    unsigned long long *status = state + 1;
    rounds = spins = dist = 0;
    if (tile == 0) {
        if (lane == 0) lookbackPublish<true>(&status[0], LookbackSum::bits(aggregate) | LOOKBACK_PREFIX);
        return LookbackResult<int>{0, aggregate};
    }
    if (lane == 0) lookbackPublish<true>(&status[tile], LookbackSum::bits(aggregate) | LOOKBACK_AGGREGATE);
    if (DELAY0) __nanosleep(DELAY0);
    int exclusive = 0;
    long long nearest = (long long)tile - 1;
    for (;;) {
        unsigned long long w[K];
        int stop;
        ++rounds;
        for (;;) {
#pragma unroll
            for (int m = 0; m < K; ++m) {
                const long long at = nearest - 32 * m - lane;
                w[m] = at >= 0 ? lookbackRead<true>(&status[at]) : (LookbackSum::bits(0) | LOOKBACK_PREFIX);
            }
            int first = 32 * K;
            bool prefix = false;
#pragma unroll
            for (int m = K - 1; m >= 0; --m) {
                const unsigned long long flag = w[m] & LOOKBACK_FLAGS;
                const unsigned pre = __ballot_sync(full, flag == LOOKBACK_PREFIX);
                const unsigned inv = __ballot_sync(full, flag == LOOKBACK_INVALID);
                if (pre | inv) { first = 32 * m + __ffs(pre | inv) - 1; prefix = (pre >> (first % 32)) & 1u; }
            }
            if (first == 32 * K || prefix) { stop = first; break; }
            ++spins;
            if (SPIN_NS) __nanosleep(SPIN_NS);
        }
        int v = 0;
#pragma unroll
        for (int m = 0; m < K; ++m)
            if (32 * m + lane <= stop) v += LookbackSum::value(w[m]);
        for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(full, v, off);
        exclusive += v;
        if (stop < 32 * K) { dist = (int)(tile - 1 - nearest) + stop + 1; break; }
        nearest -= 32 * K;
    }
    const int inclusive = exclusive + aggregate;
    if (lane == 0) lookbackPublish<true>(&status[tile], LookbackSum::bits(inclusive) | LOOKBACK_PREFIX);
    return LookbackResult<int>{exclusive, inclusive};
}

/* Both kernels' loads: the tile at base into x, each vector's sum into v. */
template <class Tile>
__device__ __forceinline__ void loadSums(const int *in, size_t base, size_t n,
                                         int4 (&x)[Tile::VECS], unsigned (&v)[Tile::VECS])
{
    Tile::load(in, base, n, Tile::vectorOk(in, base, n), x, 0);
#pragma unroll
    for (int j = 0; j < Tile::VECS; ++j)
        v[j] = (unsigned)x[j].x + (unsigned)x[j].y + (unsigned)x[j].z + (unsigned)x[j].w;
}

template <int BLOCK, int ITEMS, int MINB, int K, unsigned DELAY0, unsigned SPIN_NS>
__global__ void __launch_bounds__(BLOCK, MINB)
traceScan(const int *in, int *out, size_t n, unsigned long long *state, Rec *rec)
{
    typedef StripedTile<BLOCK, ITEMS> Tile;
    __shared__ typename Tile::Storage st;
    __shared__ unsigned tileSlot;
    __shared__ int tilePrefix;
    __shared__ int sh[3];
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    for (;;) {
        long long c0 = clock64();
        const unsigned tile = lookbackNextTile(state, &tileSlot);
        if (tile >= tiles) return;
        long long c1 = clock64();
        const size_t base = (size_t)tile * Tile::SIZE;
        int4 x[Tile::VECS];
        unsigned v[Tile::VECS];
        loadSums<Tile>(in, base, n, x, v);
        const unsigned aggregate = Tile::scanUp(v, st);
        long long c2 = clock64(), c3 = 0;
        if (threadIdx.x < 32) {
            int rounds, spins, dist;
            const LookbackResult<int> r = lb<K, DELAY0, SPIN_NS>(state, tile, (int)aggregate, rounds, spins, dist);
            c3 = clock64();
            if (threadIdx.x == 0) { tilePrefix = r.exclusive; sh[0] = rounds; sh[1] = spins; sh[2] = dist; }
        }
        __syncthreads();
        long long c4 = clock64();
        const unsigned prefix = (unsigned)tilePrefix;
        int rounds = sh[0], spins = sh[1], dist = sh[2];
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const unsigned a = x[j].x, b = x[j].y, c = x[j].z, d = x[j].w;
            const unsigned e = prefix + Tile::exclusiveOf(j, v[j], a + b + c + d, st);
            x[j].x = (int)e; x[j].y = (int)(e + a); x[j].z = (int)(e + a + b); x[j].w = (int)(e + a + b + c);
        }
        Tile::store(out, base, n, Tile::vectorOk(in, base, n), x);
        long long c5 = clock64();
        if (threadIdx.x == 0) {
            /* durations: take, load + reduce, look-back, barrier, finish */
            Rec r; r.c[0] = c1 - c0; r.c[1] = c2 - c1; r.c[2] = c3 - c2; r.c[3] = c4 - c3; r.c[4] = c5 - c4; r.c[5] = 0;
            r.rounds = rounds; r.spins = spins; r.dist = dist; r.sm = (int)smid();
            rec[tile] = r;
        }
    }
}


template <int BLOCK, int ITEMS, int MINB, unsigned DELAY0, unsigned SPIN_NS>
__global__ void __launch_bounds__(BLOCK + 32, MINB)
tracePiped(const int *in, int *out, size_t n, unsigned long long *state, Rec *rec)
{
    typedef StripedTile<BLOCK, ITEMS> Tile;
    constexpr int ALL = BLOCK + 32;
    __shared__ typename Tile::Storage st;
    __shared__ PipeSlots<int> sl;
    __shared__ int4 kept[Tile::VECS * BLOCK];
    const size_t tiles = (n + Tile::SIZE - 1) / Tile::SIZE;
    if (threadIdx.x >= BLOCK) {
        for (unsigned k = 0;; ++k) {
            long long w0 = clock64();
            pipeWait(PIPE_HANDED + (int)(k % 2), ALL);
            long long w1 = clock64();
            const unsigned tile = sl.tile[k % 2];
            if (tile == PIPE_END) return;
            int rounds, spins, dist;
            const LookbackResult<int> r = lb<1, DELAY0, SPIN_NS>(state, tile, sl.aggregate[k % 2], rounds, spins, dist);
            long long w2 = clock64();
            if (threadIdx.x == BLOCK) {
                sl.prefix[k % 2] = r.exclusive;
                rec[tile].rounds = rounds; rec[tile].spins = spins; rec[tile].dist = dist;
                rec[tile].c[4] = w1 - w0;  /* walker idle */
                rec[tile].c[5] = w2 - w1;  /* walk */
            }
            pipeArrive(PIPE_WALKED + (int)(k % 2), ALL);
        }
    }
    unsigned k = 0, prev = 0; size_t prevBase = 0;
    auto finish = [&](size_t base, int prefix) {
        const bool vec = Tile::vectorOk(out, base, n);
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            int4 y = kept[j * BLOCK + threadIdx.x];
            y.x += prefix; y.y += prefix; y.z += prefix; y.w += prefix;
            Tile::storeVector(out, base, n, vec, j, y);
        }
    };
    for (;; ++k) {
        long long c0 = clock64();
        if (threadIdx.x == 0) sl.take = lookbackTakeTile(state);
        Tile::tileBarrier();
        const unsigned tile = sl.take;
        if (tile >= tiles) break;
        long long c1 = clock64();
        const size_t base = (size_t)tile * Tile::SIZE;
        int4 x[Tile::VECS];
        unsigned v[Tile::VECS];
        loadSums<Tile>(in, base, n, x, v);
        const unsigned aggregate = Tile::scanUpWith(v, st, [] { Tile::tileBarrier(); });
        Tile::tileBarrier();
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) {
            const unsigned a = x[j].x, b = x[j].y, c = x[j].z;
            const unsigned e = Tile::exclusiveOf(j, v[j], a + b + c + x[j].w, st);
            x[j].x = (int)e; x[j].y = (int)(e + a); x[j].z = (int)(e + a + b); x[j].w = (int)(e + a + b + c);
        }
        long long c2 = clock64();
        if (threadIdx.x == 0) {
            lookbackPublishAggregate<LookbackSum, LookbackRelaxed32>(state, tile, (int)aggregate, 0);
            sl.tile[k % 2] = tile; sl.aggregate[k % 2] = (int)aggregate;
        }
        pipeArrive(PIPE_HANDED + (int)(k % 2), ALL);
        long long c3 = c2, c4 = c2;
        if (k > 0) {
            pipeWait(PIPE_WALKED + (int)((k - 1) % 2), ALL);
            c3 = clock64();
            finish(prevBase, sl.prefix[(k - 1) % 2]);
        }
#pragma unroll
        for (int j = 0; j < Tile::VECS; ++j) kept[j * BLOCK + threadIdx.x] = x[j];
        c4 = clock64();
        if (threadIdx.x == 0) {
            rec[tile].c[0] = c1 - c0; rec[tile].c[1] = c2 - c1; rec[tile].c[2] = c3 - c2; rec[tile].c[3] = c4 - c3;
            rec[tile].sm = (int)smid();
        }
        prev = tile; prevBase = base;
    }
    if (k > 0) { pipeWait(PIPE_WALKED + (int)((k - 1) % 2), ALL); finish(prevBase, sl.prefix[(k - 1) % 2]); }
    if (threadIdx.x == 0) sl.tile[k % 2] = PIPE_END;
    pipeArrive(PIPE_HANDED + (int)(k % 2), ALL);
}
typedef void (*K_t)(const int *, int *, size_t, unsigned long long *, Rec *);
struct V { const char *name; K_t k; int threads, items; bool piped; };

static V vs[] = {
    {"one tile at a time, 256 x 16", traceScan<256, 16, 1, 1, 0, 0>, 256, 16, false},
    {"one tile at a time, 256 x 24", traceScan<256, 24, 1, 1, 0, 0>, 256, 24, false},
    {"piped, 256 x 16", tracePiped<256, 16, 1, 0, 0>, 256, 16, true},
    {"piped, 256 x 24", tracePiped<256, 24, 1, 0, 0>, 256, 24, true},
    {"piped, 256 x 32", tracePiped<256, 32, 1, 0, 0>, 256, 32, true},
};

static double pct(std::vector<double> &a, double p) { std::sort(a.begin(), a.end()); return a[(size_t)(p * (a.size() - 1))]; }

int main(int argc, char **argv)
{
    size_t n = (size_t)1 << (argc > 1 ? atoi(argv[1]) : 28);
    hx_device dev;
    if (hx_device_open(&dev, "trace-tiles") != HX_EXIT_OK) return HX_EXIT_NO_GPU;
    int clockKhz = 0; CK(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, dev.id));
    printf("%s, %d SMs, clock %d MHz, n = %zu\n", dev.name, dev.sms, clockKhz / 1000, n);
    std::vector<int> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = (int)((i * 2654435761u) >> 29);
    std::vector<int> ref(n); { unsigned s = 0; for (size_t i = 0; i < n; ++i) { ref[i] = (int)s; s += (unsigned)h[i]; } }
    int *in, *out; unsigned long long *state; Rec *rec;
    CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4));
    CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    size_t maxTiles = n / 2048 + 1;
    CK(cudaMalloc(&state, lookbackBytes(maxTiles))); CK(cudaMalloc(&rec, maxTiles * sizeof(Rec)));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    auto timeMemcpy = [&]() { float best = 1e9; for (int r = 0; r < 7; ++r) { CK(cudaEventRecord(e0)); CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 2) best = std::min(best, ms);} return best; };
    float mc = timeMemcpy();
    printf("memcpy min %.3f ms\n", mc);
    double cyc_us = clockKhz / 1000.0;
    bool anyBad = false;
    for (auto &v : vs) {
        const unsigned resident = hx_resident_blocks(&dev, (const void *)v.k, v.threads + (v.piped ? 32 : 0), 0);
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, v.k));
        size_t tile = (size_t)v.threads * v.items, tiles = (n + tile - 1) / tile;
        unsigned grid = (unsigned)std::min<size_t>(tiles, resident);
        std::vector<float> ms;
        for (int r = 0; r < 9; ++r) {
            CK(cudaMemset(out, 0xff, n * 4));
            CK(cudaMemsetAsync(state, 0, lookbackBytes(tiles)));
            CK(cudaEventRecord(e0));
            v.k<<<grid, v.threads + (v.piped ? 32 : 0)>>>(in, out, n, state, rec);
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
            float t; CK(cudaEventElapsedTime(&t, e0, e1)); if (r >= 2) ms.push_back(t);
        }
        std::vector<int> got(n); CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        size_t bad = 0; for (size_t i = 0; i < n; ++i) bad += got[i] != ref[i];
        anyBad |= bad != 0;
        std::vector<Rec> R(tiles); CK(cudaMemcpy(R.data(), rec, tiles * sizeof(Rec), cudaMemcpyDeviceToHost));
        std::vector<double> ph[6], rounds, spins, dist;
        for (size_t t = 0; t < tiles; ++t) {
            for (int p = 0; p < 6; ++p) ph[p].push_back(R[t].c[p] / cyc_us);
            rounds.push_back(R[t].rounds); spins.push_back(R[t].spins); dist.push_back(R[t].dist);
        }
        std::sort(ms.begin(), ms.end());
        double med = ms[ms.size() / 2];
        printf("\n%-24s regs %d, %u blk/SM, grid %u, tiles %zu: median %.3f ms (min %.3f), x memcpy %.2f, %.1f tiles/us, %s (%zu bad)\n",
               v.name, fa.numRegs, resident / (unsigned)dev.sms, grid, tiles, med, ms[0], med / mc, tiles / (med * 1000), bad ? "WRONG" : "correct", bad);
        const char *pp[6] = {"take index", "load+reduce", "wait for walk", "finish+stash", "walker idle", "walk"};
        const char *po[6] = {"take index", "load+reduce", "look-back", "barrier", "finish+store", ""};
        const char *const *pn = v.piped ? pp : po;
        for (int p = 0; p < (v.piped ? 6 : 5); ++p) {
            double s = 0; for (double x : ph[p]) s += x;
            printf("   %-18s mean %6.3f us  p50 %6.3f  p90 %6.3f  p99 %6.3f\n", pn[p], s / tiles, pct(ph[p], .5), pct(ph[p], .9), pct(ph[p], .99));
        }
        double sr = 0, ss = 0, sd = 0; for (size_t t = 0; t < tiles; ++t) { sr += rounds[t]; ss += spins[t]; sd += dist[t]; }
        printf("   rounds mean %.2f p99 %.0f max %.0f; spins mean %.2f p90 %.0f; prefix distance mean %.1f p50 %.0f p90 %.0f max %.0f\n",
               sr / tiles, pct(rounds, .99), pct(rounds, 1), ss / tiles, pct(spins, .9), sd / tiles, pct(dist, .5), pct(dist, .9), pct(dist, 1));
    }
    return anyBad ? 1 : 0;
}
