#!/bin/sh
# test-check-summary.sh BUILD_DIR - scripts/check.sh, the driver of
# `make check`: each suite's output goes to BUILD_DIR/log/check-SUITE.log,
# its counts are the last "N passed, N failed[, N skipped]" line of its
# output (a failure without counts is one failure), the last line is the
# sum alone, a failing suite's log tail is shown and the exit status is 1.
# Driven with a stand-in for make that plays suites.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
cat >"$T_TMP/make" <<'SH'
#!/bin/sh
# the stand-in: "make --no-print-directory TARGET"
case $2 in
deps-kernel) echo "apt noise"; [ -z "$DEPS_FAIL" ] ;;
check-good) echo "cc noise"; echo "good: 3 passed, 0 failed" ;;
check-bad) echo "not ok - something"; echo "ok 2 - fine"; echo "    not this";
	echo "not ok - a match: no match for /x/ in:"; printf '    why %s\n' 1 2 3 4 5;
	echo "bad: 5 passed, 2 failed, 2 skipped"; exit 1 ;;
check-crash) echo "Segmentation fault"; exit 2 ;;
check-quiet) echo "7 passed, 0 failed"; echo "x: 4 passed, 0 failed, 1 skipped"; echo "make[1]: Leaving directory" ;;
*) exit 9 ;;
esac
SH
chmod +x "$T_TMP/make"
L=$T_TMP/b/log
out=$(MAKE=$T_TMP/make sh "$top/scripts/check.sh" "$T_TMP/b" good quiet 2>&1)
t_eq "all pass: exit 0" 0 $?
t_eq "all pass: the last line is the sum" "total: 7 passed, 0 failed, 1 skipped" \
	"$(printf '%s\n' "$out" | tail -n 1)"
t_nomatch "no compiler or apt noise on the terminal" "noise" "$out"
t_match "the noise is in the suite's log" "cc noise" "$(cat "$L/check-good.log")"
t_match "and apt's in deps.log" "apt noise" "$(cat "$L/deps.log")"

out=$(MAKE=$T_TMP/make sh "$top/scripts/check.sh" "$T_TMP/b" good bad crash quiet 2>&1)
t_eq "a suite fails: exit 1" 1 $?
t_eq "every suite still ran, the last line sums them" \
	"total: 12 passed, 3 failed, 3 skipped" "$(printf '%s\n' "$out" | tail -n 1)"
t_match "the failing suite's log is named" "last lines of $L/check-bad.log" "$out"
t_match "and its tail shown" "not ok - something" "$out"
t_eq "at the end, each failure with up to 4 lines of the text under it" \
"    not ok - something
    not ok - a match: no match for /x/ in:
      why 1
      why 2
      why 3
      why 4" "$(printf '%s\n' "$out" | sed -n '/^---- what failed in bad:/,/^----/p' | sed '1d;/^----/d')"
t_match "a crash without counts is one failure" "crash +0 passed, 1 failed, 0 skipped" "$out"
t_match "its output is shown too" "Segmentation fault" "$out"

out=$(DEPS_FAIL=1 MAKE=$T_TMP/make sh "$top/scripts/check.sh" "$T_TMP/b" good 2>&1)
t_eq "installing packages fails: exit 1" 1 $?
t_match "says where to look" "see $L/deps.log" "$out"
t_done
