#!/usr/bin/env bash
# gpu-dev.sh: the exercise's checks on a GPU machine, in one call. Run from
# anywhere: bash day33-exercise-threeway/gpu-dev.sh
#   build with ARCH (default 90) and the reference solution's check and
#   timing (under `time`: the default run must take 10 s or less); the
#   pristine starter failing [unwritten]; make status for the untouched
#   starter, the solution and a wrong kernel; corpus kernels through the
#   student path, each with its report and exit code; the four off-by-one
#   kernels (harness/tests/gpu_off_by_one.sh: boundary or out_of_bounds on
#   the right boundary, never unwritten, whichever write wins on this GPU);
#   grade mode on the solution with --time twice (x_copy within 2%); grade
#   mode on a kernel that never writes a zero (status unwritten, group
#   "zeros"); on a kernel that hangs (exit 6, a timeout event naming the
#   run); a module built for another GPU (a load_error event);
#   compute-sanitizer memcheck, racecheck, initcheck and synccheck on
#   --plan sanitize. BIG=1 adds the check at n = 2^31 - 1 (minutes of host
#   time).
# Logs go to $OUT/gpu-dev when OUT is set, else to /tmp/gpu-dev. One line
# per step, "ok" or "FAILED"; the exit code is the number of failed steps.
set -u
cd "$(dirname "$0")" || exit 2
ex=$(pwd)
logs=${OUT:+$OUT/gpu-dev}
logs=${logs:-/tmp/gpu-dev}
mkdir -p "$logs"
export ARCH=${ARCH:-90}
corpus=../harness/grade-tests/corpus
compiler="python3 ../harness/grader/compiler.py"
# The modules' extension, as the Makefile and compiler.py choose it: one
# architecture after normalising (ARCH="90 sm_90" is one) is a cubin.
ext=$(cd ../harness/grader && python3 -c 'import sys, compiler
print("fatbin" if len(compiler.parse_arch(sys.argv[1])) > 1 else "cubin")' "$ARCH") ||
    { echo "FAILED  ARCH=$ARCH: not a list of compute capabilities"; exit 1; }
failed=0

step() {   # step NAME: the rest of the line is the test, run by bash
    local name=$1; shift
    if bash -c "$*" >"$logs/$name.log" 2>&1; then
        echo "ok      $name"
    else
        echo "FAILED  $name (see $logs/$name.log)"
        tail -n 8 "$logs/$name.log" | sed 's/^/        /'
        failed=$((failed + 1))
    fi
}

# Compiles a corpus kernel to $logs/NAME.$ext through the student path.
module_of() { $compiler "$corpus/$1/threeway.cu" --out "$logs/$1.$ext" --arch "$ARCH"; }

make -j"$(nproc)" ARCH="$ARCH" build-all >"$logs/build.log" 2>&1 ||
    { echo "FAILED  build (see $logs/build.log)"; tail -n 20 "$logs/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$logs/gpu.txt" 2>&1
echo "GPU: $(head -n 1 "$logs/gpu.txt"), ARCH=$ARCH, logs in $logs"

step solution-default "
    { time ./threeway --module build/solution.$ext ; } >$logs/solution.out 2>&1; rc=\$?
    cat $logs/solution.out
    [ \$rc -eq 0 ] && python3 - $logs/solution.out <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
assert re.search(r'^PASS$', text, re.M), 'no PASS line'
m = re.search(r'^real\s+(\d+)m([\d.]+)s', text, re.M)
wall = int(m.group(1)) * 60 + float(m.group(2))
print('default run: %.1f s wall (limit 10 s)' % wall)
sys.exit(wall > 10.0)
EOF"

step starter-fails "make -s ARCH=$ARCH starter-fails"

step status "
    set -e
    cp threeway.cu $logs/threeway.cu.saved
    trap 'cp $logs/threeway.cu.saved threeway.cu' EXIT
    make -s ARCH=$ARCH status | tee /dev/stderr | grep -q 'not yet attempted'
    cp solution/threeway.cu threeway.cu
    make -s ARCH=$ARCH status | tail -n 1 | grep -q 'threeway.cu: passes'
    cp $corpus/order/threeway.cu threeway.cu
    ! make -s ARCH=$ARCH status > $logs/status-order.out 2>/dev/null
    tail -n 1 $logs/status-order.out | grep -q 'threeway.cu: fails'"

# corpus NAME EXIT PATTERN: the kernel's check exits EXIT and its output
# (stdout and stderr) holds PATTERN.
corpus_case() {
    step "corpus-$1" "
        $(declare -f module_of); compiler='$compiler'; corpus=$corpus; logs=$logs; ext=$ext; ARCH=$ARCH
        module_of $1 || exit 1
        ./threeway --check --run-timeout 2 --module $logs/$1.$ext >$logs/$1.out 2>&1; rc=\$?
        head -n 40 $logs/$1.out; echo ...; tail -n 5 $logs/$1.out; echo \"exit \$rc\"
        [ \$rc -eq $2 ] && grep -q -- '$3' $logs/$1.out"
}
corpus_case boundary 1 '\[boundary\]'
corpus_case order 1 '\[order\]'
corpus_case out_of_bounds 1 '\[out_of_bounds\]'
corpus_case unwritten 1 '\[unwritten'
corpus_case nondeterministic 1 '\[nondeterministic'
corpus_case crash 4 'cudaErrorIllegalAddress'
corpus_case timeout 6 'ran past its limit'

step off-by-one "ARCH=$ARCH OUT=$logs/off-by-one bash ../harness/tests/gpu_off_by_one.sh"

# Grade mode: the solution, timed twice with different seeds.
step grade-time-twice "
    for k in 1 2; do
        ./threeway --grade --module build/solution.$ext --result $logs/grade-\$k.jsonl \
            --seed 1234\$k --time --lock $logs/gpu.lock > $logs/grade-\$k.out 2>&1 || exit 1
        cat $logs/grade-\$k.jsonl | grep -v '\"event\":\"start\"' | grep -v '\"status\":\"pass\",\"detail\"' 
    done
    python3 - $logs/grade-1.jsonl $logs/grade-2.jsonl <<'EOF'
import json, sys
x = []
for path in sys.argv[1:]:
    ev = [json.loads(line) for line in open(path)]
    kinds = [e['event'] for e in ev]
    assert kinds[0] == 'begin' and kinds[1] == 'module' and kinds[-1] == 'end', kinds[:3]
    assert ev[-1]['status'] == 'pass' and ev[-1]['passed'] == ev[-1]['runs'], ev[-1]
    t = [e for e in ev if e['event'] == 'timing']
    assert len(t) == 1 and t[0]['status'] == 'pass', t
    assert t[0]['rounds'] >= 9 and t[0]['warmup'] >= 2
    x.append(t[0]['x_copy'])
    print(path, 'runs', ev[-1]['runs'], 'x_copy %.3f (min %.3f, max %.3f)' % (
        t[0]['x_copy'], t[0]['x_copy_min'], t[0]['x_copy_max']))
print('x_copy max/min over the two: %.4f (limit 1.02)' % (max(x) / min(x)))
sys.exit(max(x) / min(x) > 1.02)
EOF"

step grade-starter "
    ./threeway --grade --module build/starter.$ext --result $logs/grade-starter.jsonl --seed 7; rc=\$?
    tail -n 2 $logs/grade-starter.jsonl
    [ \$rc -eq 0 ] && tail -n 1 $logs/grade-starter.jsonl | grep -q '\"status\":\"unwritten\"'"

# A kernel that never writes a zero: the first failing run is unwritten,
# and its result names the zeros as the group never written.
step grade-no-zeros "
    sed 's/out\[dst\] = v;/if (v != 0) out[dst] = v;/' solution/threeway.cu > $logs/no-zeros.cu
    ! cmp -s solution/threeway.cu $logs/no-zeros.cu || { echo 'the edit no longer matches solution/threeway.cu'; exit 1; }
    $compiler $logs/no-zeros.cu --out $logs/no-zeros.$ext --arch '$ARCH' || exit 1
    ./threeway --grade --module $logs/no-zeros.$ext --result $logs/grade-no-zeros.jsonl --seed 7; rc=\$?
    grep -v '\"event\":\"start\"' $logs/grade-no-zeros.jsonl | tail -n 2
    [ \$rc -eq 0 ] && python3 - $logs/grade-no-zeros.jsonl <<'EOF'
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
bad = [e for e in ev if e['event'] == 'result' and e['status'] != 'pass']
assert ev[-1]['event'] == 'end' and ev[-1]['status'] == 'unwritten', ev[-1]
assert len(bad) == 1 and bad[0]['group'] == 'zeros', bad
print('unwritten, group', bad[0]['group'], 'at run', bad[0]['run'])
EOF"

step grade-hang "
    $(declare -f module_of); compiler='$compiler'; corpus=$corpus; logs=$logs; ext=$ext; ARCH=$ARCH
    module_of timeout || exit 1
    start=\$(date +%s)
    ./threeway --grade --module $logs/timeout.$ext --result $logs/grade-hang.jsonl --seed 7 --run-timeout 2; rc=\$?
    echo \"exit \$rc after \$((\$(date +%s) - start)) s\"; tail -n 2 $logs/grade-hang.jsonl
    [ \$rc -eq 6 ] && tail -n 1 $logs/grade-hang.jsonl | python3 -c '
import json, sys
e = json.loads(sys.stdin.read())
sys.exit(not (e[\"event\"] == \"timeout\" and isinstance(e[\"run\"], int)))'"

step grade-crash "
    ./threeway --grade --module $logs/crash.$ext --result $logs/grade-crash.jsonl --seed 7; rc=\$?
    tail -n 1 $logs/grade-crash.jsonl
    [ \$rc -eq 4 ] && tail -n 1 $logs/grade-crash.jsonl | grep -q '\"event\":\"fault\",\"run\":[0-9]'"

step grade-load-error "
    $compiler solution/threeway.cu --out $logs/sm75.cubin --arch 75 || exit 1
    ./threeway --grade --module $logs/sm75.cubin --result $logs/grade-sm75.jsonl; rc=\$?
    cat $logs/grade-sm75.jsonl
    [ \$rc -eq 0 ] && grep -q '\"status\":\"load_error\"' $logs/grade-sm75.jsonl"

for tool in memcheck racecheck initcheck synccheck; do
    step "sanitize-$tool" "
        compute-sanitizer --tool $tool --error-exitcode 99 ./threeway \
            --module build/solution.$ext --plan sanitize --check --run-timeout 600 > $logs/san-$tool.out 2>&1; rc=\$?
        tail -n 4 $logs/san-$tool.out
        [ \$rc -eq 0 ] && grep -Eq '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' $logs/san-$tool.out"
done

if [ "${BIG:-0}" = 1 ]; then
    step big-n "./threeway --module build/solution.$ext --check --n 2147483647 | tail -n 4"
fi

echo "gpu-dev: $failed step(s) failed"
exit "$failed"
