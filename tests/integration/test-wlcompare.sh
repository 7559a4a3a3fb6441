#!/bin/sh
# test-wlcompare.sh BUILD_DIR - tests/kernel/wlcompare.sh, the kernel
# suite's comparison of the schedwl guest's figures (patched level 0
# against stock), on result files written here: within the run-to-run
# spread (at least 5%) or faster passes, slower beyond it fails, levels 1 and 2 and
# cyclictest are figures only, a figure one side lacks is not compared.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
W=$top/tests/kernel/wlcompare.sh
S=$T_TMP/stock.result
P=$T_TMP/patched.result
cat >"$S" <<'R'
VCP-RESULT PASS wl-hackbench-pipe-l0 median=1.300 s runs=1.318/1.300/1.238
VCP-RESULT PASS wl-hackbench-socket-l0 median=2.000 s runs=2.000/2.010/1.990
VCP-RESULT PASS wl-cyclictest-l0 p99=1200 us max=3000 us avg=150 us
R
cat >"$P" <<'R'
VCP-RESULT PASS wl-hackbench-pipe-l0 median=1.350 s runs=1.350/1.340/1.360
VCP-RESULT PASS wl-hackbench-socket-l0 median=2.200 s runs=2.200/2.210/2.190
VCP-RESULT PASS wl-hackbench-pipe-l1 median=1.500 s runs=1.5/1.5/1.5
VCP-RESULT FAIL wl-hackbench-pipe-l2 run 0 printed no time
VCP-RESULT PASS wl-cyclictest-l0 p99=1250 us max=3000 us avg=150 us
VCP-RESULT PASS wl-cyclictest-l2 p99=>20000 us max=30000 us avg=150 us
R
out=$(sh "$W" "$S" "$P")
t_eq "exit 0" 0 $?
# pipe: +3.8%, stock's spread 6.2% -> within
t_match "pipe l0: within the spread" '^PASS patched/schedwl/wl-hackbench-pipe-l0-vs-stock 1.350 s vs stock 1.300 s \(\+3.8%; allowed up to \+6.2%' "$out"
# socket: +10%, spreads 1% -> at least 5% allowed -> fails
t_match "socket l0: beyond 5%" '^FAIL patched/schedwl/wl-hackbench-socket-l0-vs-stock 2.200 s vs stock 2.000 s \(\+10.0%; allowed up to \+5.0%' "$out"
t_match "pipe l1: a figure" '^INFO patched/schedwl/wl-hackbench-pipe-l1-vs-stock 1.500 s vs stock 1.300 s \(\+15.4%\)$' "$out"
t_nomatch "pipe l2 failed in the guest: not compared" 'pipe-l2' "$out"
t_match "cyclictest l0: a figure" '^INFO patched/schedwl/wl-cyclictest-l0-vs-stock p99 1250 us vs stock 1200 us' "$out"
t_match "cyclictest l2: past the histogram" '^INFO patched/schedwl/wl-cyclictest-l2-vs-stock p99 >20000 us' "$out"
t_eq "lines: pipe l0, socket l0, pipe l1, cyclictest l0 and l2" 5 "$(echo "$out" | wc -l)"
# faster is no regression
sed 's/pipe-l0 median=1.350 s runs=1.350\/1.340\/1.360/pipe-l0 median=1.100 s runs=1.1\/1.1\/1.1/' "$P" >"$T_TMP/fast"
t_match "pipe l0 faster by 15%: passes" '^PASS patched/schedwl/wl-hackbench-pipe-l0-vs-stock 1.100 s vs stock 1.300 s \(-15.4%' "$(sh "$W" "$S" "$T_TMP/fast")"
: >"$P"
t_eq "nothing to compare: nothing said" "" "$(sh "$W" "$S" "$P")"
sh "$W" "$S" 2>/dev/null
t_eq "usage: exit 2" 2 $?
t_done
