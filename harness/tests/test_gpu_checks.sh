#!/usr/bin/env bash
# test_gpu_checks.sh: tests harness/gpu-checks.sh without a GPU.
#
#   bash harness/tests/test_gpu_checks.sh      (make -C harness test runs it)
#
# Each case copies gpu-checks.sh into a scratch course tree whose probe,
# lab binaries and `make` are test doubles: small scripts that print what
# the real ones would and exit with the code the case gives them (the
# exercise's `make status` interface: its verdict line, then make's own
# lines on a failure; make's exit 0 when it passes or is not yet
# attempted, 2 otherwise). Asserts
# the exit code and the lines each case must (and must not) print. Last line "N passed, M failed";
# exit 1 when M > 0.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0

# Builds the scratch tree: $1 probe exit, $2 day31 exit, $3 day33 exit,
# $4 status exit, $5 solution exit, $6 starter-fails exit, $7 "solution"
# to have day33-exercise-threeway/solution/.
make_tree() {
    local t=$scratch/tree
    rm -rf "$t"
    mkdir -p "$t/harness/build" "$t/day31-scan" "$t/day33-compaction" \
             "$t/day33-exercise-threeway" "$t/bin"
    cp "$here/gpu-checks.sh" "$t/harness/"
    fake() {   # fake FILE EXIT OUTPUT
        printf '#!/bin/sh\necho "%s"\nexit %s\n' "$3" "$2" > "$1"
        chmod +x "$1"
    }
    if [ "$1" -eq 3 ]; then
        fake "$t/harness/build/hx_probe" 3 "hx_probe: no NVIDIA driver is installed (fake)"
    else
        fake "$t/harness/build/hx_probe" "$1" "GPU: Fake GPU (compute capability 9.0, 1 SMs)"
    fi
    fake "$t/day31-scan/scan" "$2" "scan self-check (fake)"
    fake "$t/day33-compaction/compaction" "$3" "compaction self-check (fake)"
    [ "${7:-}" = solution ] && mkdir -p "$t/day33-exercise-threeway/solution"
    # The fake make answers the exercise's targets only.
    cat > "$t/bin/make" <<EOF
#!/bin/sh
goal=
for a in "\$@"; do goal=\$a; done
case \$goal in
status)
    # As the real one: the recipe's last line is its verdict, and make
    # exits 2 whenever the recipe fails (1: fails, 3: no GPU), after its
    # own lines (as under a parent make, seen on the H200).
    case $4 in
    0) echo "threeway.cu: not yet attempted (the untouched starter)"; exit 0 ;;
    1) echo "  FAIL  n=257 mix=thirds [boundary] (fake report)"; echo "threeway.cu: fails"
       echo "make[1]: *** [Makefile:156: status] Error 1"; echo "make[1]: Leaving directory '/tmp/h/day33-exercise-threeway'"; exit 2 ;;
    3) echo "threeway: no NVIDIA driver (fake)"; echo "threeway.cu: not checked: no usable GPU"
       echo "make[1]: *** [Makefile:156: status] Error 3"; exit 2 ;;
    esac
    exit $4 ;;
all) exit 0 ;;
cpu-status)
    case $4 in
    0) echo "threeway.cu: not yet attempted (the untouched starter): no CPU check to run" ;;
    *) echo "  FAIL  tiny  [boundary] (fake CPU report)" ;;
    esac
    exit $4 ;;
solution) echo "solution check (fake)"; exit $5 ;;
starter-fails) echo "starter-fails (fake)"; exit $6 ;;
*) echo "fake make: unexpected goal \$goal"; exit 99 ;;
esac
EOF
    chmod +x "$t/bin/make"
}

# run_case NAME WANT_EXIT ARGS... then lines: +text must appear, -text
# must not.
run_case() {
    local name=$1 want=$2 out rc line ok=1
    shift 2
    make_tree "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}"
    shift 7
    out=$(PATH="$scratch/tree/bin:$PATH" bash "$scratch/tree/harness/gpu-checks.sh" 2>&1)
    rc=$?
    [ "$rc" -eq "$want" ] || { echo "FAIL $name: exit $rc, want $want"; ok=0; }
    for line in "$@"; do
        case $line in
        +*) grep -qF -- "${line#+}" <<< "$out" ||
                { echo "FAIL $name: no line with: ${line#+}"; ok=0; } ;;
        -*) ! grep -qF -- "${line#-}" <<< "$out" ||
                { echo "FAIL $name: a line with: ${line#-}"; ok=0; } ;;
        esac
    done
    if [ "$ok" -eq 1 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf '%s\n' "$out" | sed 's/^/    | /'
    fi
}

#        name                       exit probe d31 d33 status sol starter tree
run_case "no GPU"                      0 3 0 0 0 0 0 solution \
    "+GPU checks skipped: hx_probe: no NVIDIA driver is installed (fake)" \
    "+threeway.cu: compiles, signature ok; NOT run (no GPU)" \
    "+no CPU check to run" "+== exercise: CPU check: ok" \
    "-== day31-scan" "-passes"
run_case "no GPU, the CPU check fails" 1 3 0 0 1 0 0 "" \
    "+threeway.cu: compiles, signature ok; NOT run (no GPU)" \
    "+(fake CPU report)" \
    "+FAILED its CPU check (its report is above)"
run_case "probe broken"                1 4 0 0 0 0 0 solution \
    "+GPU probe failed (exit 4)"
run_case "maintainers, untouched starter" 0 0 0 0 0 0 0 solution \
    "+threeway.cu: not yet attempted (the untouched starter)" \
    "+== exercise: the reference solution passes: ok" \
    "+== exercise: the committed starter fails: ok" \
    "+GPU checks: all passed"
run_case "student copy, untouched starter" 0 0 0 0 0 0 0 "" \
    "+threeway.cu: not yet attempted" \
    "+no solution/ in this copy" \
    "-solution check (fake)" "-starter-fails (fake)" \
    "+GPU checks: all passed"
run_case "student's kernel fails"      1 0 0 0 1 0 0 "" \
    "+(fake report)" "+threeway.cu: fails" \
    "+== exercise: your threeway.cu: FAILED (the kernel fails its check: its report is above)" \
    "+GPU checks: FAILED: exercise: your threeway.cu"
run_case "status says no GPU"          1 0 0 0 3 0 0 "" \
    "+FAILED (no usable GPU, though the probe found one)"
run_case "status target missing"       1 0 0 0 2 0 0 "" \
    "+FAILED (exit 2: the status target did not run)"
run_case "a lab fails, the rest run"   1 0 1 0 0 0 0 solution \
    "+== day31-scan self-check: FAILED (exit 1)" \
    "+compaction self-check (fake)" "+starter-fails (fake)" \
    "+GPU checks: FAILED: day31-scan self-check"
run_case "the starter passes"          1 0 0 0 0 0 1 solution \
    "+== exercise: the committed starter fails: FAILED (exit 1)"
run_case "the reference fails"         1 0 0 0 0 1 0 solution \
    "+== exercise: the reference solution passes: FAILED (exit 1)"

echo "gpu-checks.sh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
