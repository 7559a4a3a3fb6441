#!/bin/sh
# wlcompare.sh STOCK.result PATCHED.result - the schedwl guest's figures
# (tests/kernel/schedwl.sh) of the patched kernel against stock, as
# summary lines for run.sh:
#   PASS|FAIL patched/schedwl/wl-hackbench-MODE-l0-vs-stock ...
#     level 0 must not be slower than stock: its median hackbench time
#     at most stock's plus the larger of the two kernels' run-to-run
#     spread ((max - min) / median) and 5% (faster is no regression;
#     the stock kernel also has sched_ext built in, never enabled)
#   INFO patched/schedwl/wl-hackbench-MODE-lN-vs-stock ...  (levels 1, 2)
#   INFO patched/schedwl/wl-cyclictest-lN-vs-stock ...
#     figures only: the testbed's TCG guest is not paced (single-threaded
#     TCG runs one vCPU at a time), so its wakeup latencies are mostly
#     the emulator's; make bench-kernel measures latency on paced guests.
# Nothing is printed for a figure either side lacks.
set -u
[ $# -eq 2 ] || { echo "usage: wlcompare.sh STOCK.result PATCHED.result" >&2; exit 2; }
stock=$1
patched=$2

# field NAME KEY FILE: KEY=value of the result line NAME (PASS only)
field() {
	sed -n "s/^VCP-RESULT PASS $1 .*$2=\([^ ]*\).*/\1/p" "$3" | head -n 1
}

# spread RUNS (a/b/c): (max - min) / median of the runs
spread() {
	echo "$1" | tr '/' '\n' | sort -n | awk '{ v[NR] = $1 }
		END { if (NR) printf "%.4f\n", (v[NR] - v[1]) / v[int((NR + 1) / 2)] }'
}

for mode in pipe socket; do
	s=$(field "wl-hackbench-$mode-l0" median "$stock")
	sr=$(field "wl-hackbench-$mode-l0" runs "$stock")
	[ -n "$s" ] || continue
	for l in 0 1 2; do
		p=$(field "wl-hackbench-$mode-l$l" median "$patched")
		pr=$(field "wl-hackbench-$mode-l$l" runs "$patched")
		[ -n "$p" ] || continue
		name=patched/schedwl/wl-hackbench-$mode-l$l-vs-stock
		line=$(awk -v s="$s" -v p="$p" -v ss="$(spread "$sr")" -v ps="$(spread "$pr")" 'BEGIN {
			tol = ss > ps ? ss : ps; if (tol < 0.05) tol = 0.05
			d = (p - s) / s
			printf "%s %.3f s vs stock %.3f s (%+.1f%%; allowed up to +%.1f%%: the larger run-to-run spread, at least 5%%)\n",
				d <= tol ? "PASS" : "FAIL", p, s, d * 100, tol * 100 }')
		if [ "$l" = 0 ]; then
			echo "${line%% *} $name ${line#* }"
		else
			echo "INFO $name ${line#* }" | sed 's/; allowed.*)/)/'
		fi
	done
done
s=$(field wl-cyclictest-l0 p99 "$stock")
for l in 0 1 2; do
	p=$(field "wl-cyclictest-l$l" p99 "$patched")
	[ -n "$s" ] && [ -n "$p" ] || continue
	echo "INFO patched/schedwl/wl-cyclictest-l$l-vs-stock p99 $p us vs stock $s us (unpaced TCG guest: figures only)"
done
exit 0
