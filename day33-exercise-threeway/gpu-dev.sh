#!/usr/bin/env bash
# gpu-dev.sh: the exercise's checks on a GPU machine, in one call. Run from
# anywhere: bash day33-exercise-threeway/gpu-dev.sh
#   build with ARCH (default 90); the plan printed without a GPU and the
#   host tests; the reference solution's check and timing (under `time`:
#   the default run must take 10 s or less); the pristine starter failing
#   [unwritten]; make status for the untouched starter, the solution and a
#   wrong kernel; corpus kernels through the student path, each with its
#   report and exit code; the four off-by-one kernels
#   (harness/tests/gpu_off_by_one.sh); grade mode on the solution with
#   --time and --ref-module twice (x_copy within 2%, r of the solution
#   against itself within 5% of 1); --tests running a subset; the starter
#   in grade mode (every test fails, tiny at n = 1); a kernel that never
#   writes a zero (every failing test names the zeros); the corpus's
#   hostile kernels in grade mode: inputs written (input_written, naming
#   the buffer), a write beside an input (out_of_bounds), guards written
#   in warm-ups only (the timing fails), a slow scatter (r near 2); the
#   stallers (each stopped within one launch's limit: timeout); a hang
#   (exit 6, a timeout event naming the run); a fault; a module built for
#   another GPU (a load_error event); compute-sanitizer memcheck,
#   racecheck, initcheck and synccheck on --plan sanitize, and memcheck
#   finding corpus/oob_even_memcheck's write at an even size; the lock
#   events (wait, then held) while another process holds the lock. BIG=1 adds
#   the check at n = 2^31 - 1 (minutes of host time).
# Logs go to $OUT/gpu-dev when OUT is set, else to /tmp/gpu-dev. One line
# per step, "ok" or "FAILED" with its seconds; the exit code is the number
# of failed steps.
#
# Steps by name: bash gpu-dev.sh [--list] [PATTERN ...] runs only the steps
# whose names match a PATTERN (shell patterns: 'grade-*'; none: every
# step), in the script's order, so that the whole can be split over calls:
#   bash day33-exercise-threeway/gpu-dev.sh --list
#   bash day33-exercise-threeway/gpu-dev.sh host-tests print-plan solution-default ...
# A PATTERN that names no step is a failed step of its own. Each step runs
# under a time limit (STEP_LIMIT seconds, default 120; the sanitizers'
# SANITIZE_LIMIT, default 300): past it the step is stopped and FAILED.
set -u
cd "$(dirname "$0")" || exit 2
list=0
patterns=()
for arg in "$@"; do
    case $arg in
        --list) list=1 ;;
        -*) echo "usage: gpu-dev.sh [--list] [STEP-PATTERN ...]" >&2; exit 2 ;;
        *) patterns+=("$arg") ;;
    esac
done
declare -A matched=()
STEP_LIMIT=${STEP_LIMIT:-120}
SANITIZE_LIMIT=${SANITIZE_LIMIT:-300}
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

# wanted NAME: whether the command line asks for step NAME.
wanted() {
    local p hit=1
    [ "${#patterns[@]}" -eq 0 ] && return 0
    for p in "${patterns[@]}"; do
        # shellcheck disable=SC2254
        case $1 in $p) matched[$p]=1; hit=0 ;; esac
    done
    return $hit
}

step() {   # step NAME: the rest of the line is the test, run by bash
    local name=$1; shift
    wanted "$name" || return 0
    if [ "$list" = 1 ]; then echo "$name"; return 0; fi
    local limit=$STEP_LIMIT start rc
    case $name in sanitize-*|memcheck-*) limit=$SANITIZE_LIMIT ;; esac
    start=$(date +%s)
    timeout -k 10 "$limit" bash -c "$*" >"$logs/$name.log" 2>&1; rc=$?
    local took=$(( $(date +%s) - start ))
    if [ "$rc" -eq 0 ]; then
        echo "ok      $name (${took} s)"
    else
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "FAILED  $name: stopped at its limit of $limit s (see $logs/$name.log)"
        else
            echo "FAILED  $name (${took} s, see $logs/$name.log)"
        fi
        tail -n 8 "$logs/$name.log" | sed 's/^/        /'
        failed=$((failed + 1))
    fi
}

# Compiles a corpus kernel to $logs/NAME.$ext through the student path.
module_of() { $compiler "$corpus/$1/threeway.cu" --out "$logs/$1.$ext" --arch "$ARCH"; }

if [ "$list" = 0 ]; then
    make -j"$(nproc)" ARCH="$ARCH" build-all >"$logs/build.log" 2>&1 ||
        { echo "FAILED  build (see $logs/build.log)"; tail -n 20 "$logs/build.log"; exit 1; }
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$logs/gpu.txt" 2>&1
    echo "GPU: $(head -n 1 "$logs/gpu.txt"), ARCH=$ARCH, logs in $logs"
fi

step host-tests "make -s ARCH=$ARCH test-host"

step print-plan "
    ./threeway --print-plan --seed 1 --max-n 62914560 > $logs/plan.txt || exit 1
    head -n 3 $logs/plan.txt; wc -l < $logs/plan.txt
    awk 'NR > 1 { print \$2 }' $logs/plan.txt | sort | uniq -c
    ./threeway --print-plan --seed 1 --max-n 62914560 | cmp -s - $logs/plan.txt"

# HX_PROFILE=1: the driver's profile line (buffers, inputs and references,
# batches, runs fetched again, timing, the lock held shared and alone)
# says where the seconds went.
step solution-default "
    { time HX_PROFILE=1 ./threeway --module build/solution.$ext ; } >$logs/solution.out 2>&1; rc=\$?
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

# Grade mode: the solution, timed twice with different seeds, against
# itself as the reference.
step grade-time-twice "
    for k in 1 2; do
        ./threeway --grade --module build/solution.$ext --result $logs/grade-\$k.jsonl \
            --seed 1234\$k --time --ref-module build/solution.$ext --lock $logs/gpu.lock \
            > $logs/grade-\$k.out 2>&1 || exit 1
        grep -e '\"event\":\"test\"' -e '\"event\":\"timing\"' -e '\"event\":\"end\"' $logs/grade-\$k.jsonl
    done
    python3 - $logs/grade-1.jsonl $logs/grade-2.jsonl <<'EOF'
import json, sys
x = []
for path in sys.argv[1:]:
    ev = [json.loads(line) for line in open(path)]
    kinds = [e['event'] for e in ev]
    assert kinds[0] == 'begin' and kinds[1] == 'module' and kinds[-1] == 'end', kinds[:3]
    assert ev[-1]['status'] == 'pass' and ev[-1]['passed'] == ev[-1]['runs'], ev[-1]
    tests = [e for e in ev if e['event'] == 'test']
    assert len(tests) == 9 and all(e['status'] == 'pass' for e in tests), tests
    t = [e for e in ev if e['event'] == 'timing']
    assert len(t) == 1 and t[0]['status'] == 'pass', t
    assert t[0]['rounds'] >= 9 and t[0]['warmup'] >= 2
    assert 0.95 <= t[0]['r'] <= 1.05, ('the solution against itself', t[0]['r'])
    x.append(t[0]['x_copy'])
    print(path, 'runs', ev[-1]['runs'], 'x_copy %.3f (min %.3f, max %.3f), r %.3f' % (
        t[0]['x_copy'], t[0]['x_copy_min'], t[0]['x_copy_max'], t[0]['r']))
print('x_copy max/min over the two: %.4f (limit 1.02)' % (max(x) / min(x)))
sys.exit(max(x) / min(x) > 1.02)
EOF"

# --tests: only those tests run, each run with the number the full plan
# gives it.
step grade-tests-subset "
    ./threeway --grade --module build/solution.$ext --result $logs/grade-subset.jsonl \
        --seed 12341 --tests tiny,many_per_thread || exit 1
    begin=\$(head -n 1 $logs/grade-subset.jsonl)
    maxn=\$(echo \"\$begin\" | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"max_n\"])')
    sms=\$(echo \"\$begin\" | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"sms\"])')
    ./threeway --print-plan --seed 12341 --max-n \$maxn --sms \$sms \
        > $logs/plan-subset.txt
    python3 - $logs/grade-subset.jsonl $logs/plan-subset.txt <<'EOF'
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
plan = {int(l.split()[0]): l.split() for l in list(open(sys.argv[2]))[1:]}
tests = [e['test'] for e in ev if e['event'] == 'test']
assert tests == ['tiny', 'many_per_thread'], tests
runs = [e for e in ev if e['event'] == 'start']
assert runs and all(plan[e['run']][1] == e['test'] and int(plan[e['run']][2]) == e['n']
                    for e in runs), 'run numbers differ from the full plan'
print(len(runs), 'runs of', tests, 'numbered as in the full plan')
EOF"

step grade-starter "
    ./threeway --grade --module build/starter.$ext --result $logs/grade-starter.jsonl --seed 7; rc=\$?
    grep -v -e '\"event\":\"start\"' -e '\"status\":\"pass\",\"detail\"' -e '\"event\":\"skip\"' $logs/grade-starter.jsonl
    [ \$rc -eq 0 ] && python3 - $logs/grade-starter.jsonl <<'EOF'
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
assert ev[-1]['event'] == 'end' and ev[-1]['status'] == 'unwritten', ev[-1]
tests = {e['test']: e for e in ev if e['event'] == 'test'}
assert len(tests) == 9 and all(e['status'] == 'unwritten' for e in tests.values()), tests
starts = {e['run']: e for e in ev if e['event'] == 'start'}
first = starts[tests['tiny']['failed_run']]
assert first['n'] == 1, first
print('every test fails unwritten; tiny at n = 1')
EOF"

# A kernel that never writes a zero: every failing test's first failure
# names the zeros as the group never written; its status is unwritten, or
# boundary where the input's only zero sits at a boundary (one slot never
# written there reads as a boundary error too, and is one).
step grade-no-zeros "
    sed 's/out\[dst\] = v;/if (v != 0) out[dst] = v;/' solution/threeway.cu > $logs/no-zeros.cu
    ! cmp -s solution/threeway.cu $logs/no-zeros.cu || { echo 'the edit no longer matches solution/threeway.cu'; exit 1; }
    $compiler $logs/no-zeros.cu --out $logs/no-zeros.$ext --arch '$ARCH' || exit 1
    ./threeway --grade --module $logs/no-zeros.$ext --result $logs/grade-no-zeros.jsonl --seed 7; rc=\$?
    grep -v -e '\"event\":\"start\"' -e '\"status\":\"pass\",\"detail\"' -e '\"event\":\"skip\"' $logs/grade-no-zeros.jsonl | tail -n 12
    [ \$rc -eq 0 ] && python3 - $logs/grade-no-zeros.jsonl <<'EOF'
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
bad = [e for e in ev if e['event'] == 'result' and e['status'] != 'pass']
assert ev[-1]['event'] == 'end' and ev[-1]['status'] == 'unwritten', ev[-1]
assert bad and all(e['group'] == 'zeros' and e['unwritten'] >= 1 for e in bad), bad
assert all(e['status'] == 'unwritten' or (e['status'] == 'boundary' and e['unwritten'] == 1)
           for e in bad), bad
assert len({e['test'] for e in bad}) == len(bad), 'a test went on after its first failure'
print('group zeros in', sorted('%s (%s)' % (e['test'], e['status']) for e in bad))
EOF"

# The lock events: another process holds the GPU lock exclusive for 3 s;
# the driver writes {"event":"lock","state":"wait"}, then "held" once it
# has it, before its begin event, and finishes as usual.
step grade-lock-events "
    rm -f $logs/held.lock
    python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX, 2, 0, os.SEEK_SET)
time.sleep(3)' $logs/held.lock &
    sleep 0.5
    ./threeway --grade --module build/solution.$ext --result $logs/grade-lock.jsonl --seed 7 \
        --tests tiny --lock $logs/held.lock || exit 1
    wait
    head -n 3 $logs/grade-lock.jsonl
    python3 - $logs/grade-lock.jsonl <<'EOF'
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
locks = [e.get('state') for e in ev if e['event'] == 'lock']
assert locks[:2] == ['wait', 'held'], locks
assert [e['event'] for e in ev[:3]] == ['lock', 'lock', 'begin'], ev[:3]
assert ev[-1]['event'] == 'end' and ev[-1]['status'] == 'pass', ev[-1]
print('lock events', locks)
EOF"

# grade_case NAME FLAGS CHECK: a corpus kernel in grade mode (seed 7); CHECK
# is Python run on the events (ev, a list; tests, by name; timing, or None).
grade_case() {
    step "grade-$1" "
        $(declare -f module_of); compiler='$compiler'; corpus=$corpus; logs=$logs; ext=$ext; ARCH=$ARCH
        module_of $1 || exit 1
        start=\$(date +%s)
        ./threeway --grade --module $logs/$1.$ext --result $logs/grade-$1.jsonl --seed 7 $2; rc=\$?
        echo \"exit \$rc after \$((\$(date +%s) - start)) s\"
        grep -v -e '\"event\":\"start\"' -e '\"status\":\"pass\",\"detail\"' -e '\"event\":\"skip\"' $logs/grade-$1.jsonl | tail -n 14
        RC=\$rc python3 - $logs/grade-$1.jsonl <<'EOF'
import json, os, sys
rc = int(os.environ['RC'])
ev = [json.loads(line) for line in open(sys.argv[1])]
tests = {e['test']: e for e in ev if e['event'] == 'test'}
timing = next((e for e in ev if e['event'] == 'timing'), None)
bad = [e for e in ev if e['event'] == 'result' and e['status'] != 'pass']
$3
print('ok')
EOF"
}
grade_case writes_input "" "assert rc == 0 and bad and all(e['status'] == 'input_written' and e['buffer'] == 'in' for e in bad), bad"
grade_case writes_rank "" "assert rc == 0 and bad and all(e['status'] == 'input_written' and e['buffer'] == 'negRank' for e in bad), bad"
grade_case writes_beside_input "" "assert rc == 0 and bad and all(e['status'] == 'out_of_bounds' and e['buffer'] == 'in' for e in bad), bad"
grade_case unseal_reference "" "assert rc == 0 and ev[-1]['status'] != 'pass' and len(bad) >= 5, bad"
grade_case guard_warmup_only "--time --ref-module build/solution.$ext" "assert rc == 0 and not bad and timing['status'] == 'out_of_bounds' and timing['in_warmup'], timing"
grade_case slow_scatter "--time --ref-module build/solution.$ext" "assert rc == 0 and not bad and timing['status'] == 'pass' and 1.6 <= timing['r'] <= 2.6, timing"
grade_case wrong_octave "" "assert rc == 0 and [e['test'] for e in bad] == ['every_octave'], bad"
grade_case wrong_block_shape "" "assert rc == 0 and 'tiny' in [e['test'] for e in bad] and 'block_shapes' in [e['test'] for e in bad], bad"
grade_case wrong_single_group "" "assert rc == 0 and 'single_group' in [e['test'] for e in bad] and all(e['status'] == 'unwritten' for e in bad), bad"
grade_case wrong_many_per_thread "" "assert rc == 0 and 'many_per_thread' in [e['test'] for e in bad] and 'tiny' not in [e['test'] for e in bad], bad"
# The stallers, at the default --run-timeout (10 s per 2^24 elements): each
# stopped within one launch's limit of its hold, exit 6, a timeout event.
grade_case stall_batch_sleep "" "assert rc == 6 and ev[-1]['event'] == 'timeout' and ev[-1]['seconds'] <= 10.5, ev[-1]"
grade_case stall_every_sm "" "assert rc == 6 and ev[-1]['event'] == 'timeout', ev[-1]"
grade_case stall_timing_spin "--time --ref-module build/solution.$ext" "assert rc == 6 and ev[-1]['event'] == 'timeout' and ev[-1]['phase'] == 'timing', ev[-1]"
grade_case stall_memory "--time --ref-module build/solution.$ext" "assert rc == 0 and ev[-1]['status'] == 'pass', ev[-1]"

step memcheck-even "
    $(declare -f module_of); compiler='$compiler'; corpus=$corpus; logs=$logs; ext=$ext; ARCH=$ARCH
    module_of oob_even_memcheck || exit 1
    ./threeway --module $logs/oob_even_memcheck.$ext --check --tests tiny > $logs/oob-even-plain.out 2>&1 || exit 1
    compute-sanitizer --tool memcheck --error-exitcode 99 ./threeway \
        --module $logs/oob_even_memcheck.$ext --plan sanitize --check --run-timeout 600 > $logs/oob-even.out 2>&1; rc=\$?
    grep -m 3 -e 'Invalid __global__ write' -e 'ERROR SUMMARY' $logs/oob-even.out
    [ \$rc -eq 99 ] && grep -q 'Invalid __global__ write' $logs/oob-even.out"

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
    $(declare -f module_of); compiler='$compiler'; corpus=$corpus; logs=$logs; ext=$ext; ARCH=$ARCH
    module_of crash || exit 1
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

for p in "${patterns[@]}"; do
    if [ -z "${matched[$p]:-}" ]; then
        echo "FAILED  '$p': no step has that name (--list lists them)"
        failed=$((failed + 1))
    fi
done
[ "$list" = 1 ] && exit "$failed"
echo "gpu-dev: $failed step(s) failed"
exit "$failed"
