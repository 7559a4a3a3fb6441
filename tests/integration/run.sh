#!/bin/sh
# run.sh BUILD_DIR - run every tests/integration/test-*.sh with the built
# programs; each prints its own "N passed, N failed" line, and the last
# line is their sum: "integration: N passed, N failed, N skipped".
B=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../counts.sh"
tmp=$(mktemp "${TMPDIR:-/tmp}/vcp-integration.XXXXXX")
trap 'rm -f "$tmp" "$tmp.rc" "$tmp.all"' EXIT
: >"$tmp.all"
failed=0
passed=0
for t in "$here"/test-*.sh; do
	[ -f "$t" ] || continue
	echo "== $(basename "$t")"
	{ sh "$t" "$B" 2>&1; echo $? >"$tmp.rc"; } | tee "$tmp"
	rc=$(cat "$tmp.rc")
	counts_of "$tmp" "$rc" >>"$tmp.all"
	if [ "$rc" = 0 ]; then passed=$((passed + 1)); else
		echo "FAILED: $(basename "$t")"; failed=$((failed + 1)); fi
done
echo "integration suites: $passed passed, $failed failed"
echo "integration: $(counts_sum <"$tmp.all")"
[ $failed -eq 0 ]
