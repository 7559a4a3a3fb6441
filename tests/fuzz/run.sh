#!/bin/sh
# run.sh BUILD_DIR SECONDS HARNESS... - `make check-fuzz`: each libFuzzer
# harness replays its seeds (tests/fuzz/corpus/NAME/) and what earlier
# runs found ($B/fuzz/corpus-NAME/), then fuzzes for SECONDS. A harness
# passes when it stops on the time limit with no finding (crash,
# sanitizer report, failed invariant, leak, timeout of 10 s on one
# input); a failing input is kept as $B/fuzz/NAME-crash-* (or -leak-,
# -timeout-, -oom-). Last line: "fuzz: N passed, N failed".
set -u
B=$1
secs=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
passed=0
failed=0
for f in "$@"; do
	n=${f##*/fuzz_}
	mkdir -p "$B/fuzz/corpus-$n"
	t0=$(date +%s)
	# ASan's leak check runs at exit; UBSan stops at the first report
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$f" -max_total_time="$secs" -timeout=10 -max_len=20000 \
		-print_final_stats=1 -artifact_prefix="$B/fuzz/$n-" \
		"$B/fuzz/corpus-$n" "$top/tests/fuzz/corpus/$n" \
		>"$B/fuzz/$n.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz/$n.log")
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS: $n (${runs:-?} inputs in $(($(date +%s) - t0)) s)"
	else
		failed=$((failed + 1))
		echo "FAIL: $n (exit $rc); last lines of $B/fuzz/$n.log:"
		grep -v '^#[0-9]' "$B/fuzz/$n.log" | tail -n 30 | sed 's/^/    /'
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
