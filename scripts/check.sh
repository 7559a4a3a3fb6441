#!/bin/sh
# check.sh BUILD_DIR SUITE... - `make check`: installs the packages
# (make deps-kernel), then runs `make check-SUITE` for each SUITE with its
# output (compiler, apt, every test line) in BUILD_DIR/log/check-SUITE.log.
# Prints one line per suite and, last, one line alone:
#   total: N passed, N failed, N skipped
# (the sum of each suite's last "N passed, N failed[, N skipped]" line;
# a suite that fails without counting a failure counts as one). Every
# suite runs even after one fails; a failed suite's log tail is shown, and
# again at the end, just above the totals, every failed test's own line
# ("not ok ..." and the runners' "FAILED: ..."; up to 4 lines of the
# text a failed t_match printed under it), so that the last lines
# of the output (all a CI page may keep) say what failed. Exit status 1.
set -u
B=$1
shift
MAKE=${MAKE:-make}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/counts.sh"
log=$B/log
mkdir -p "$log"
: >"$log/check-counts"
start=$(date +%s)
bad=0
failed_suites=""

if ! $MAKE --no-print-directory deps-kernel >"$log/deps.log" 2>&1; then
	tail -n 20 "$log/deps.log"
	echo "make check: installing the packages failed; see $log/deps.log"
	exit 1
fi

for s in "$@"; do
	t0=$(date +%s)
	printf '  %-12s ' "$s"
	$MAKE --no-print-directory "check-$s" >"$log/check-$s.log" 2>&1
	rc=$?
	c=$(counts_of "$log/check-$s.log" $rc)
	echo "$s: $c" >>"$log/check-counts"
	printf '%-40s %4ss  %s\n' "$c" $(($(date +%s) - t0)) "$log/check-$s.log"
	if counts_failed "$c"; then
		bad=1
		echo "---- last lines of $log/check-$s.log:"
		tail -n 25 "$log/check-$s.log" | sed 's/^/    /'
		echo "----"
		failed_suites="$failed_suites $s"
	fi
done
for s in $failed_suites; do
	echo "---- what failed in $s:"
	# each failure with up to 4 lines of what it printed under it (a
	# t_match's text): on a CI page, the why
	awk '/^[[:space:]]*(not ok|FAILED|\[  FAILED  \])/ { print; k = 4; next }
	     k > 0 && /^    / { print "  " $0; k--; next } { k = 0 }' \
		"$log/check-$s.log" | head -n 80 | sed 's/^[[:space:]]\{0,4\}\([^ ]\)/    \1/'
done
echo "make check: $(($(date +%s) - start)) s; logs in $log/"
[ $bad = 0 ] || echo "make check: FAILED (the failing suites' logs are named above)"
echo "total: $(counts_sum <"$log/check-counts")"
exit $bad
