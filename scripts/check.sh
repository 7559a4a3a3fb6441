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
#
# When SUITE includes kernel, what it and the scx suite build (make -C
# kernel all matrix scx-sched: both kernels, the config matrix, libbpf,
# bpftool, scx_vcpack) is built in the background at nice 10 from the
# start, while the suites before it run (they leave much of a second
# core idle: the integration suite waits on its daemons), into
# BUILD_DIR/log/kernel-prebuild.log, which goes at the head of
# check-kernel.log. The kernel suite waits for that build, then builds
# whatever it left (nothing, or what failed, which then fails there).
# VCPACK_PREBUILD=0 turns this off.
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

prebuild=
case " $* " in
*" kernel "*)
	if [ "${VCPACK_PREBUILD:-1}" != 0 ]; then
		# its own process group (setsid), stopped as one if we are
		setsid nice -n 10 $MAKE --no-print-directory -C "$top/kernel" \
			all matrix scx-sched B="$(cd "$B" && pwd)" \
			>"$log/kernel-prebuild.log" 2>&1 &
		prebuild=$!
		trap '[ -z "$prebuild" ] || kill -TERM "-$prebuild" 2>/dev/null' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
	fi ;;
esac

for s in "$@"; do
	t0=$(date +%s)
	printf '  %-12s ' "$s"
	if [ "$s" = kernel ] && [ -n "$prebuild" ]; then
		wait "$prebuild"
		prc=$?
		{ echo "== background build (make -C kernel all matrix scx-sched, nice 10): rc=$prc"
		  cat "$log/kernel-prebuild.log"
		  echo "== make check-kernel"; } >"$log/check-$s.log"
		prebuild=
		$MAKE --no-print-directory "check-$s" >>"$log/check-$s.log" 2>&1
	else
		$MAKE --no-print-directory "check-$s" >"$log/check-$s.log" 2>&1
	fi
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
