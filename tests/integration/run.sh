#!/bin/sh
# run.sh BUILD_DIR - run every tests/integration/test-*.sh with the built
# programs; each prints its own "N passed, N failed" line.
B=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
failed=0
passed=0
for t in "$here"/test-*.sh; do
	[ -f "$t" ] || continue
	echo "== $(basename "$t")"
	if sh "$t" "$B"; then passed=$((passed + 1)); else
		echo "FAILED: $(basename "$t")"; failed=$((failed + 1)); fi
done
echo "integration suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
