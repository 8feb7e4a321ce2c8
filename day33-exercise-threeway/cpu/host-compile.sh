#!/usr/bin/env bash
# host-compile.sh SRC OBJ [CXX]: compiles a threeway.cu for the host, for
# the CPU check: g++ reads cudacpu.h first (the CUDA it can run) and sees
# only cpu/include/ beside the system's headers, never the CUDA Toolkit's.
#
# When the compile fails, says why in the fewest lines: one line per
# construct the CPU check cannot run (cudacpu.h's "cpu_check_cannot_run__"
# identifiers and static assertions, a CUDA Toolkit header it does not
# have, dynamic shared memory), each with its line in SRC; else the
# compiler's own messages about SRC. Exit 0 compiled, 1 not.
set -u
src=$1 obj=$2 cxx=${3:-g++}
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if "$cxx" -std=c++17 -O2 -x c++ -include "$here/cudacpu.h" -I "$here/include" \
        -c "$src" -o "$obj" > "$log" 2>&1; then
    exit 0
fi
name=$(basename "$src")
esc=$(printf '%s' "$src" | sed 's/[.[\*^$/]/\\&/g')
say() { echo "cpu-check: $name:$1: uses $2, which the CPU check cannot run (the GPU check can)"; }
found=0
# Poisoned identifiers: cudacpu.h's "#define NAME cpu_check_cannot_run__WHAT"
# lines; the compiler names the identifier inside cudacpu.h, so the line
# of SRC is the first that holds NAME.
while read -r _ macro what; do
    grep -qF -- "$what" "$log" || continue
    lno=$(grep -nwF -- "$macro" "$src" | head -n 1 | cut -d: -f1)
    [ -n "$lno" ] || continue
    what=${what#cpu_check_cannot_run__}
    case $what in
    inline_PTX_asm) what="inline PTX" ;;
    *) what=${what//_/ } ;;
    esac
    say "$lno" "$what ($macro)"
    found=1
done < <(grep -E '^#define [A-Za-z_0-9]+ cpu_check_cannot_run__' "$here/cudacpu.h")
# A static assertion fails inside cudacpu.h; the line of SRC is the last
# "required from here" before it.
awk -v f="$src" '
    index($0, f ":") == 1 && /required from here/ { split($0, p, ":"); at = p[2] }
    /static assertion failed: the CPU check cannot run/ {
        m = $0; sub(/.*static assertion failed: the CPU check cannot run /, "", m)
        print (at ? at : "?") "\t" m
    }' "$log" | sort -u | while IFS=$'\t' read -r lno what; do
    say "$lno" "$what"
done
grep -q 'static assertion failed: the CPU check cannot run' "$log" && found=1
# A header the CPU check does not have.
while IFS= read -r line; do
    lno=$(printf '%s' "$line" | sed -n "s/^$esc:\([0-9]*\):.*/\1/p")
    hdr=$(printf '%s' "$line" | sed -n 's/.*fatal error: \(.*\): No such file or directory.*/\1/p')
    case $hdr in
    cub/*) what="CUB (<$hdr>)" ;;
    thrust/*) what="Thrust (<$hdr>)" ;;
    cooperative_groups*) what="cooperative groups (<$hdr>)" ;;
    *) what="the CUDA header <$hdr>" ;;
    esac
    say "$lno" "$what"
    found=1
done < <(grep -E "^$esc:[0-9]+:[0-9]+: fatal error: .*No such file or directory" "$log")
if grep -nE 'extern[[:space:]]+__shared__' "$src" > /dev/null; then
    lno=$(grep -nE 'extern[[:space:]]+__shared__' "$src" | head -n 1 | cut -d: -f1)
    say "$lno" "dynamic shared memory (extern __shared__)"
    found=1
fi
if [ "$found" -eq 0 ]; then
    grep -E "^$esc:[0-9]+:|^ " "$log" | sed "s|^$esc:|$name:|" | head -n 30
    echo "cpu-check: $name does not compile for the host (the messages above); nvcc's compile, which passed, is the one that counts"
fi
exit 1
