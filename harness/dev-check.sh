#!/usr/bin/env bash
# harness/dev-check.sh: runs a day's dev/ checks (make dev-check), each a
# step of harness/dev-steps.sh that must exit 0, with logs in
# $OUT/dev-check-DAY (default ./dev-check-logs/DAY).
#   bash harness/dev-check.sh DAY "COMMAND ARGS" ...   (from DAY's folder)
# Without a usable GPU (the harness's probe exits 3) prints one line,
# "DAY dev checks skipped: <reason>", and exits 0.
set -u
day=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
make -s -C "$here" probe >/dev/null || exit 2
probe=$("$here/build/hx_probe" 2>&1)
case $? in
0) ;;
3) echo "$day dev checks skipped: $probe"; exit 0 ;;
*) echo "$day dev checks: the GPU probe failed: $probe"; exit 1 ;;
esac
. "$here/dev-steps.sh"
steps_begin "${OUT:-dev-check-logs}/$day" || exit 2
for command in "$@"; do
    # shellcheck disable=SC2086
    step "${command%% *}" 0 600 ./$command
done
steps_end
