#!/bin/sh
# run-unit.sh BIN... - run each cmocka unit test binary; fail if any fails.
# With VCP_VALGRIND=1 each runs under valgrind (leaks and errors fail).
# The last line counts the test cases of every binary (cmocka's PASSED,
# FAILED and SKIPPED lines): "unit: N passed, N failed, N skipped"; a
# binary that fails without a cmocka count (crash, valgrind) is one failure.
# VCP_SUITE names the suite on that line (make check-asan: "asan").
. "$(dirname "$0")/counts.sh"
out=$(mktemp "${TMPDIR:-/tmp}/vcp-unit.XXXXXX")
trap 'rm -f "$out" "$out.all"' EXIT
: >"$out.all"
failed=0
passed=0
for t in "$@"; do
	if [ -n "${VCP_VALGRIND:-}" ]; then
		valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite "$t" >"$out" 2>&1
	else
		"$t" >"$out" 2>&1
	fi
	rc=$?
	cat "$out"
	awk -v rc=$rc '
		/^\[  PASSED  \] [0-9]+ test/ { p += $4 }
		/^\[  FAILED  \] [0-9]+ test/ { f += $4 }
		/^\[  SKIPPED \] [0-9]+ test/ { s += $4 }
		END { if (rc != 0 && f == 0) f = 1
		      printf "%d passed, %d failed, %d skipped\n", p, f, s }' \
		"$out" >>"$out.all"
	if [ $rc -eq 0 ]; then passed=$((passed + 1)); else
		echo "FAILED: $t (exit $rc)"; failed=$((failed + 1)); fi
done
echo "unit test binaries: $passed passed, $failed failed"
echo "${VCP_SUITE:-unit}: $(counts_sum <"$out.all")"
[ $failed -eq 0 ]
