# harness/dev-steps.sh: the step runner of the maintainers' GPU scripts
# (each day's gpu-dev.sh, harness/dev-check.sh). Sourced, not run:
#   . harness/dev-steps.sh
#   steps_begin DIR [NAME...]
#                          logs in DIR (made if missing): DIR/gpu-dev.log,
#                          every step's whole output in order, and
#                          DIR/summary.txt, a line per step (its exit code,
#                          the one it should have, its time, its command)
#                          then the last TAIL (default 24) lines of its
#                          output, also printed. With NAMEs, only the steps
#                          so named run (the others print "skipped")
#   step NAME WANT SECONDS COMMAND...
#                          runs COMMAND with a time limit (a hang costs
#                          that step only: exit 124); a step that exits
#                          other than WANT marks the run failed
#   steps_end              prints whether every step exited as wanted;
#                          returns 0 if so, else 1
#   step_wanted NAME       whether NAME is among the NAMEs (or none given)
# Variables it sets: steps_out (DIR, absolute), steps_failed (0 or 1),
# steps_only (the NAMEs).
steps_begin() {
    mkdir -p "$1" || return 2
    steps_out=$(cd "$1" && pwd)
    shift
    steps_only=" $* "
    steps_failed=0
    : >"$steps_out/gpu-dev.log"
    : >"$steps_out/summary.txt"
}

step_wanted() {
    [ "$steps_only" = "  " ] || [[ "$steps_only" == *" $1 "* ]]
}

step() {   # step NAME WANT SECONDS COMMAND...
    local name=$1 want=$2 limit=$3
    shift 3
    if ! step_wanted "$name"; then
        printf '== %-17s skipped (not named)\n' "$name" \
            | tee -a "$steps_out/summary.txt"
        return 0
    fi
    local t0 t1 rc part
    part=$(mktemp)
    t0=$(date +%s%N)
    timeout "$limit" "$@" >"$part" 2>&1
    rc=$?
    t1=$(date +%s%N)
    {
        printf '== %-17s exit %d (want %d), %d.%03d s: %s\n' "$name" "$rc" \
            "$want" $(((t1 - t0) / 1000000000)) \
            $(((t1 - t0) / 1000000 % 1000)) "$*"
        tail -n "${TAIL:-24}" "$part" | sed 's/^/   /'
    } | tee -a "$steps_out/summary.txt"
    { printf '\n######## %s: %s\n' "$name" "$*"; cat "$part"; } \
        >>"$steps_out/gpu-dev.log"
    rm -f "$part"
    [ "$rc" -eq "$want" ] || steps_failed=1
    return 0
}

steps_end() {
    if [ "$steps_failed" -eq 0 ]; then
        echo "every step as expected (logs in $steps_out)"
        return 0
    fi
    echo "a step did not exit as expected (logs in $steps_out)"
    return 1
}
