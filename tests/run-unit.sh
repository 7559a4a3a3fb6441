#!/bin/sh
# run-unit.sh BIN... - run each cmocka unit test binary; fail if any fails.
# With VCP_VALGRIND=1 each runs under valgrind (leaks and errors fail).
failed=0
passed=0
for t in "$@"; do
	if [ -n "${VCP_VALGRIND:-}" ]; then
		valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite "$t"
	else
		"$t"
	fi
	rc=$?
	if [ $rc -eq 0 ]; then passed=$((passed + 1)); else
		echo "FAILED: $t (exit $rc)"; failed=$((failed + 1)); fi
done
echo "unit test binaries: $passed passed, $failed failed"
[ $failed -eq 0 ]
