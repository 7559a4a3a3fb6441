# smt: gathering counts cores, not hardware threads (2 packages x 4 cores
# x 2 threads). A busy CPU is one busy >= 50% of the window (vcwork's
# per-CPU figures); its core is the CPU's topology core_id in its package.
#  smt-l1-gather    level 1, 3 steady `pack` tasks: one package runs them,
#                   the other idles >= 90%, and no core runs two of them.
#  smt-l1-cores     level 1, 6 steady `pack` tasks: no package has more
#                   busy CPUs than cores (level 1 keeps a core in four
#                   free; v1 counted threads, took 6 of 8 and stacked the
#                   6 tasks on 4 cores of one package).
#  smt-l2-cores     level 2, the same 6 tasks: no package has more busy
#                   CPUs than cores (v1 filled all 8 threads of one).
#  smt-l2-gather    level 2, 4 steady `pack` tasks: one package runs them,
#                   the other idles >= 90%, no core runs two of them.
#  RUN-wait         for each run above: the tasks waited for a CPU <= 5%
#                   of the time they were runnable, by the scheduler's
#                   own count (schedstat): packing by cores must not leave
#                   a task queued behind another while CPUs idle. (The
#                   guest's /proc/stat busy figures are no measure of
#                   this under TCG: they undercount when QEMU's vCPU
#                   threads wait for the host's 2 cores.)
# The stock kernel has no levels: SKIP.
. /scenarios/lib.sh

tests="smt-l1-gather smt-l1-cores smt-l2-cores smt-l2-gather"
wait_tests="smt-l1-gather-wait smt-l1-cores-wait smt-l2-cores-wait smt-l2-gather-wait"
vcp_need_knobs $tests $wait_tests || exit 0

# "PKG CORE" of CPU N
core_of() {
	t=/sys/devices/system/cpu/cpu$1/topology
	echo "$(cat $t/physical_package_id) $(cat $t/core_id)"
}

# busy_cpus RUN: "CPU PKG CORE" of each CPU busy >= 50% of the window
busy_cpus() {
	awk 'index($0, "\"type\":\"cpu\"") {
		match($0, /"cpu":[0-9]+/); c = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, /"busy_pct":[0-9.]+/); b = substr($0, RSTART + 11, RLENGTH - 11)
		if (b + 0 >= 50) print c
	}' "/tmp/$1.out" | while read -r c; do echo "$c $(core_of "$c")"; done
}

# most_per_pkg RUN: the largest number of busy CPUs in one package
most_per_pkg() { busy_cpus "$1" | awk '{ n[$2]++ } END { m = 0; for (p in n) if (n[p] > m) m = n[p]; print m }'; }
# doubled RUN: cores with both siblings busy
doubled() { busy_cpus "$1" | awk '{ n[$2 " " $3]++ } END { d = 0; for (c in n) if (n[c] > 1) d++; print d }'; }

cores=$(for c in $(seq 0 $(($(nproc) - 1))); do core_of "$c"; done | sort -u | awk '$1 == 0' | wc -l)
echo "smt: $(nproc) CPUs, $cores cores per package"

# one RUN LEVEL THREADS
one() {
	vcp_set_level "$2"
	vcp_run "$1" --warmup "$WARMUP" --duration "$DURATION" \
		--vm "name=$1,threads=$3,class=pack,duty=100"
	vcp_set_level 0
	vcp_check_run "$1"
}

# runwait_sums RUN: "RUN_MS WAIT_MS PERCENT" summed over the threads, by
# the scheduler's own count (vcwork's run_ms, wait_ms; the percent of
# runnable time spent waiting), or "none" without schedstat figures
runwait_sums() {
	awk 'index($0, "\"type\":\"thread\"") {
		match($0, /"run_ms":-?[0-9.]+/); r = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"wait_ms":-?[0-9.]+/); w = substr($0, RSTART + 10, RLENGTH - 10)
		if (r < 0 || w < 0) bad = 1; R += r; W += w
	} END { if (bad || R + W <= 0) print "none"
		else printf "%.0f %.0f %.0f\n", R, W, 100 * W / (R + W) }' "/tmp/$1.out"
}

# runwait RUN: "run R ms, waited W ms (P% of runnable)"
runwait() {
	set -- $(runwait_sums "$1")
	if [ "$1" = none ]; then echo "no run/wait figures (schedstat)"
	else echo "run $1 ms, waited $2 ms ($3% of runnable)"; fi
}

# waitpct RUN: the wait as a whole percent of runnable time, or "none"
waitpct() {
	set -- $(runwait_sums "$1")
	if [ "$1" = none ]; then echo none; else echo "$3"; fi
}

expect_no_wait() {
	p=$(waitpct "$1")
	if [ "$p" = none ]; then
		vcp_fail "$1-wait" "$(runwait "$1")"
	elif [ "$p" -le 5 ]; then
		vcp_pass "$1-wait" "waited $p% <= 5% of runnable: $(runwait "$1")"
	else
		vcp_fail "$1-wait" "want the tasks to wait <= 5% of runnable, got $p%: $(what "$1")"
	fi
}

what() { echo "busy CPUs (cpu pkg core): $(busy_cpus "$1" | tr '\n' ',' | sed 's/,$//'); $(runwait "$1"); $(vcp_describe "$1")"; }

expect_gathered_cores() {
	if [ "$(thread_pkgs "$1")" = 1 ] && [ "$(pkgs_idle "$1" 90)" -ge 1 ] &&
	   [ "$(doubled "$1")" = 0 ]; then
		vcp_pass "$1" "one package, one task per core: $(what "$1")"
	else
		vcp_fail "$1" "want one package (other idle >= 90%) and no core doubled up: $(what "$1")"
	fi
}

expect_cores() {
	m=$(most_per_pkg "$1")
	if [ "$m" -le "$cores" ]; then
		vcp_pass "$1" "at most $m busy CPUs in a package of $cores cores: $(what "$1")"
	else
		vcp_fail "$1" "want <= $cores busy CPUs per package (its cores), got $m: $(what "$1")"
	fi
}

one smt-l1-gather 1 3 && expect_gathered_cores smt-l1-gather && expect_no_wait smt-l1-gather
one smt-l1-cores 1 6 && expect_cores smt-l1-cores && expect_no_wait smt-l1-cores
one smt-l2-cores 2 6 && expect_cores smt-l2-cores && expect_no_wait smt-l2-cores
one smt-l2-gather 2 4 && expect_gathered_cores smt-l2-gather && expect_no_wait smt-l2-gather
