#!/usr/bin/env bash
# test_cpu_check.sh: the exercise's CPU check (make cpu-check) on kernels
# whose verdict is known, in the maintainers' copy (it needs the reference
# solution and the grading corpus; the handout leaves this script out).
#
#   bash harness/tests/test_cpu_check.sh     (the top make check runs it)
#
# The reference solution must pass; the committed starter and the
# corpus's wrong kernels must each fail (make's exit 2) with their own
# verdict, named in the report; a kernel using what the CPU check cannot run must get the
# one line naming it. Last line "N passed, M failed"; exit 1 when M > 0.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ex=$top/day33-exercise-threeway
corpus=../harness/grade-tests/corpus
scratch=$(mktemp -d)
# The CPU check builds each kernel in a folder named after its path.
trap 'rm -rf "$scratch" "$ex/build/cpu/$(printf %s "$scratch" | tr / _)"_*' EXIT
passed=0 failed=0

. "$top/harness/tests/expect.sh"

# check NAME SRC WANT_EXIT then lines: +text must appear, -text must not.
check() {
    local name=$1 src=$2 want=$3 out rc ok=1
    shift 3
    out=$(make -s -C "$ex" cpu-check CPU_SRC="$src" 2>&1)
    rc=$?
    [ "$rc" -eq "$want" ] || { echo "     exit $rc, want $want"; ok=0; }
    expect_lines "$out" "$@" || ok=0
    if [ "$ok" -eq 1 ]; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name"
        printf '%s\n' "$out" | tail -n 25 | sed 's/^/    | /'
    fi
}

say_once="+It checks indexing and boundaries, NOT races or speed"
check "reference solution passes" solution/threeway.cu 0 "$say_once" \
    "+CPU check: threeway.cu passes the " "-FAIL"
check "committed starter: unwritten" starter/threeway.cu 2 \
    "+FAIL: unwritten: nothing was written" "-[boundary]" "-[order]"
check "corpus boundary: boundary 2 one slot early" "$corpus/boundary/threeway.cu" 2 \
    "+[boundary] boundary 1 at" "+ WRONG" \
    "+boundary 2 is 1 slot early" "-[unwritten]" "-[order]"
check "corpus unwritten: the last element never written" "$corpus/unwritten/threeway.cu" 2 \
    "+FAIL: unwritten" "-[order]" "-[out_of_bounds]"
check "corpus order: groups reversed inside" "$corpus/order/threeway.cu" 2 \
    "+FAIL: order:" "-[boundary]" "-[unwritten]" "-[out_of_bounds]"
check "corpus out_of_bounds: out[n] written" "$corpus/out_of_bounds/threeway.cu" 2 \
    "+FAIL: out_of_bounds: 1 write past the end (nearest at index 1, n+0)" \
    "-[boundary]" "-[unwritten]"
check "corpus oob_kib: 4 KiB past the end" "$corpus/oob_kib/threeway.cu" 2 \
    "+FAIL: out_of_bounds: 1 write past the end (nearest at index 1025, n+1024)"
check "corpus oob_mib: 256 MiB past the end, no crash" "$corpus/oob_mib/threeway.cu" 2 \
    "+write past the end (nearest at index 67108865, n+67108864)" "-[crash]"
check "corpus mismatch" "$corpus/mismatch/threeway.cu" 2 "+FAIL: mismatch:"

# What the CPU check cannot run: one line naming it, and its line.
head='#include <cstddef>
__global__ void scatterThreeWay(const int* __restrict__ in,
    const int* __restrict__ negRank, const int* __restrict__ zeroRank,
    int* __restrict__ out, size_t n, const int* __restrict__ totalNeg,
    const int* __restrict__ totalZero)'
printf '%s\n{\n    unsigned l;\n    asm volatile("mov.u32 %%0, %%%%laneid;" : "=r"(l));\n    (void)l;\n}\n' "$head" > "$scratch/ptx.cu"
check "inline PTX: named" "$scratch/ptx.cu" 2 \
    "+cpu-check: ptx.cu:8: uses inline PTX (asm), which the CPU check cannot run"
printf '#include <cub/block/block_scan.cuh>\n%s\n{\n}\n' "$head" > "$scratch/cub.cu"
check "CUB: named" "$scratch/cub.cu" 2 \
    "+cpu-check: cub.cu:1: uses CUB (<cub/block/block_scan.cuh>)"
printf '%s\n{\n    __shared__ short s;\n    atomicAdd(&s, (short)1);\n}\n' "$head" > "$scratch/atomic.cu"
check "an atomic on short: named" "$scratch/atomic.cu" 2 \
    "+cpu-check: atomic.cu:8: uses atomicAdd on this type"
# Barriers, shared memory, warp shuffles and a block count run: a kernel
# that reverses each block's tile in shared memory and back, and swaps
# values between lanes twice, places nothing wrong.
cat > "$scratch/warps.cu" <<EOK
$head
{
    __shared__ int tile[1024];
    const size_t a = *totalNeg, ab = a + *totalZero;
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < n;
         base += (size_t)blockDim.x * gridDim.x) {
        const size_t i = base + threadIdx.x;
        tile[threadIdx.x] = i < n ? in[i] : 1;
        __syncthreads();
        int v = tile[blockDim.x - 1 - threadIdx.x];
        __syncthreads();
        tile[blockDim.x - 1 - threadIdx.x] = v;
        __syncthreads();
        v = __shfl_xor_sync(0xffffffffu, tile[threadIdx.x], 1);
        v = __shfl_xor_sync(0xffffffffu, v, 1);
        const int negs = __syncthreads_count(i < n && v < 0);
        if (negs > (int)blockDim.x) __trap();
        if (i < n) {
            const size_t r0 = negRank[i], r1 = zeroRank[i];
            out[v < 0 ? r0 : v == 0 ? a + r1 : ab + (i - r0 - r1)] = v;
        }
        __syncthreads();
    }
}
EOK
check "barriers, shared memory and shuffles run" "$scratch/warps.cu" 0 \
    "+CPU check: threeway.cu passes the "

echo "test_cpu_check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
