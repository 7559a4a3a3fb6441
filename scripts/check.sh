#!/bin/sh
# check.sh BUILD_DIR SUITE... - `make check`: installs the packages
# (make deps-kernel), then runs `make check-SUITE` for each SUITE with its
# output (compiler, apt, every test line) in BUILD_DIR/log/check-SUITE.log.
# Prints one line per suite and, last, one line alone:
#   total: N passed, N failed, N skipped
# (the sum of each suite's last "N passed, N failed[, N skipped]" line;
# a suite that fails without counting a failure counts as one). Every
# suite runs even after one fails; a failed suite's log tail is shown and
# the exit status is 1.
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
	fi
done
echo "make check: $(($(date +%s) - start)) s; logs in $log/"
[ $bad = 0 ] || echo "make check: FAILED (the failing suites' logs are named above)"
echo "total: $(counts_sum <"$log/check-counts")"
exit $bad
