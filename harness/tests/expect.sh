# expect.sh: sourced by the maintainers' shell tests (test_cpu_check.sh,
# test_handout.sh).
#
# expect_lines OUTPUT LINE...: every LINE "+text" must be in OUTPUT, every
# "-text" must not (fixed strings). Prints "     no line with: text" or
# "     a line with: text" for each miss; returns 1 when there is one.
expect_lines() {
    local out=$1 line good=0
    shift
    for line in "$@"; do
        case $line in
        +*) grep -qF -- "${line#+}" <<< "$out" ||
                { echo "     no line with: ${line#+}"; good=1; } ;;
        -*) ! grep -qF -- "${line#-}" <<< "$out" ||
                { echo "     a line with: ${line#-}"; good=1; } ;;
        esac
    done
    return $good
}
