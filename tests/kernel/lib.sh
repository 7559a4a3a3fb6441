# lib.sh - helpers for the guest-side scenarios of tests/kernel (sourced
# by /scenarios/*.sh inside the testbed guest; busybox sh + awk only).
#
# A scenario reports each check as one line
#   VCP-RESULT PASS|FAIL|SKIP NAME free text
# which tests/kernel/run.sh counts. vcwork's JSON lines are echoed with
# a "VCP-DATA NAME " prefix so a failure can be read from the log.

LEVEL=/sys/devices/system/cpu/sched_mc_power_savings
CGROOT=${VCP_CG_ROOT:-/sys/fs/cgroup}

vcp_result() {	# STATUS NAME TEXT...
	st=$1; nm=$2; shift 2
	echo "VCP-RESULT $st $nm $*"
}

vcp_pass() { vcp_result PASS "$@"; }
vcp_fail() { vcp_result FAIL "$@"; }
vcp_skip() { vcp_result SKIP "$@"; }

# 0 when the patched kernel's level file exists.
vcp_have_level() { [ -f "$LEVEL" ]; }

# 0 when cgroups below the root have cpu.consolidate.
vcp_have_class() {
	mkdir -p "$CGROOT/vcp-probe" 2>/dev/null || return 1
	[ -f "$CGROOT/vcp-probe/cpu.consolidate" ]
	r=$?
	rmdir "$CGROOT/vcp-probe" 2>/dev/null
	return $r
}

vcp_have_knobs() { vcp_have_level && vcp_have_class; }

# vcp_skip_all REASON CHECK...: skip each named check for one reason.
vcp_skip_all() {
	_why=$1
	shift
	for _t in "$@"; do
		vcp_skip "$_t" "$_why"
	done
}

# vcp_need_knobs CHECK...: true on a kernel with both knobs; on any other
# (stock) kernel skip the named checks and be false: vcp_need_knobs ... ||
# exit 0.
vcp_need_knobs() {
	vcp_have_knobs && return 0
	vcp_skip_all "knob absent (stock kernel)" "$@"
	return 1
}

vcp_set_level() { echo "$1" >"$LEVEL"; }

# vcp_run NAME vcwork-args... : runs vcwork, keeps its output in
# /tmp/NAME.out, echoes it prefixed. Returns vcwork's status.
vcp_run() {
	rn=$1; shift
	vcwork "$@" >"/tmp/$rn.out" 2>"/tmp/$rn.err"
	r=$?
	vcp_show "$rn"
	return $r
}

# vcp_show RUN: RUN's vcwork output and errors, prefixed for the log
vcp_show() {
	sed "s/^/VCP-DATA $1 /" "/tmp/$1.out"
	sed "s/^/VCP-DATA $1 stderr: /" "/tmp/$1.err"
}

# vcp_start_bg RUN WIDEN_VMS vcwork-args...: vcwork in the background (pid in
# $_bg_pid), back a second after each VM of WIDEN_VMS (space-separated
# names) has a process. vcp_widen_bg CPUS: all threads of those VMs may run
# on CPUS. vcp_end_bg: wait for vcwork, its output as vcp_run's.
vcp_start_bg() {
	_bg_rn=$1 _bg_vms=$2
	shift 2
	vcwork "$@" >"/tmp/$_bg_rn.out" 2>"/tmp/$_bg_rn.err" &
	_bg_pid=$!
	for vm in $_bg_vms; do
		n=0
		while ! grep -q . "$CGROOT/vcwork-$vm/cgroup.procs" 2>/dev/null &&
		    [ $n -lt 100 ]; do
			sleep 0.1; n=$((n + 1))
		done
	done
	sleep 1
}
vcp_widen_bg() {
	for vm in $_bg_vms; do
		for p in $(cat "$CGROOT/vcwork-$vm/cgroup.procs" 2>/dev/null); do
			taskset -a -p -c "$1" "$p" >/dev/null 2>&1 ||
				echo "VCP-DATA $_bg_rn taskset -a -p -c $1 $p failed"
		done
	done
}
vcp_end_bg() {
	wait $_bg_pid
	r=$?
	vcp_show "$_bg_rn"
	return $r
}

# jsel NAME TYPE KEY [VM]: the values of KEY in NAME's lines of "type":TYPE
# (and of "vm":VM, where given).
jsel() {
	awk -v type="$2" -v key="$3" -v vm="${4:-}" '
	index($0, "\"type\":\"" type "\"") &&
	(vm == "" || index($0, "\"vm\":\"" vm "\"")) {
		s = $0
		if (match(s, "\"" key "\":(\"[^\"]*\"|[^,}]*)")) {
			v = substr(s, RSTART + length(key) + 3,
				   RLENGTH - length(key) - 3)
			gsub(/"/, "", v); print v
		}
	}' "/tmp/$1.out"
}

# Packages whose busy share over the window is >= PCT.
pkgs_busy() { jsel "$1" pkg busy_pct | awk -v t="$2" '$1 >= t { n++ } END { print n + 0 }'; }
# Packages idle >= PCT of the window.
pkgs_idle() { jsel "$1" pkg idle_pct | awk -v t="$2" '$1 >= t { n++ } END { print n + 0 }'; }
# "busy%/busy%/..." of all packages, for messages.
pkg_summary() { jsel "$1" pkg busy_pct | tr '\n' '/' | sed 's|/$||'; }
# Distinct main packages of the threads of VM (all VMs if VM is empty).
thread_pkgs() { jsel "$1" thread main_pkg "${2:-}" | sort -u | wc -l; }
# thread_sum RUN KEY [VM]: KEY summed over the threads (of VM, where given).
thread_sum() { jsel "$1" thread "$2" "${3:-}" | awk '{ s += $1 } END { print s + 0 }'; }
# Sum of package migrations of all threads.
pkg_migrations() { thread_sum "$1" pkg_migrations; }

# dmesg lines that are splats (lockdep, WARNING, BUG, ...).
vcp_splats() {
	dmesg | grep -E 'WARNING:|BUG:|BUG |INFO: |Oops|Kernel panic|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|Call Trace'
}

# Measurement window of the placement checks (seconds of guest time).
WARMUP=${VCP_WARMUP:-2}
DURATION=${VCP_DURATION:-6}

# vcp_check_run RUN: 0 when vcwork completed; else reports FAIL RUN.
vcp_check_run() {
	if [ "$(jsel "$1" end failed_vms)" != 0 ]; then
		vcp_fail "$1" "vcwork failed: $(head -3 "/tmp/$1.err" | tr '\n' ' ')"
		return 1
	fi
}

vcp_describe() {
	echo "threads-in=$(thread_pkgs "$1")pkg busy%=$(pkg_summary "$1") pkg-migrations=$(pkg_migrations "$1")"
}

# vcp_expect_gathered RUN: every thread ran in one package and all other
# packages stayed idle >= 90% of the window.
vcp_expect_gathered() {
	vcp_check_run "$1" || return
	np=$(jsel "$1" start pkgs)
	if [ "$(thread_pkgs "$1")" = 1 ] &&
	   [ "$(pkgs_idle "$1" 90)" -ge $((np - 1)) ]; then
		vcp_pass "$1" "gathered: $(vcp_describe "$1")"
	else
		vcp_fail "$1" "not gathered (want 1 package busy, $((np - 1)) idle >= 90%): $(vcp_describe "$1")"
	fi
}

# vcp_expect_spread RUN MIN: threads ran in >= MIN packages and >= MIN
# packages were busy >= 15% (one busy CPU of 4 is 25%).
vcp_expect_spread() {
	vcp_check_run "$1" || return
	if [ "$(thread_pkgs "$1")" -ge "$2" ] && [ "$(pkgs_busy "$1" 15)" -ge "$2" ]; then
		vcp_pass "$1" "spread over >= $2 packages: $(vcp_describe "$1")"
	else
		vcp_fail "$1" "not spread over >= $2 packages: $(vcp_describe "$1")"
	fi
}

# vcp_steady RUN CLASS [THREADS]: THREADS (default 3) steady vCPU threads
# of one VM.
vcp_steady() {
	vcp_run "$1" --warmup "$WARMUP" --duration "$DURATION" \
		--vm "name=$1,threads=${3:-3},class=$2,duty=100"
}

# vcp_churn_round ROUND CPU GROUP [CLASS]: one round of the stress tests'
# churn under load: GROUP (a new cgroup, CLASS written into it if given)
# gets a busy task, CPU goes offline, the tasks $pids get a full and (on
# even rounds) a two-CPU affinity; a second later the busy task leaves,
# GROUP goes away and CPU comes back. Counts failed steps in $errs; uses
# $ncpu and $CGROOT.
vcp_churn_round() {
	_i=$1 _cpu=$2 _g=$3
	mkdir "$_g"
	[ -n "${4:-}" ] && echo "$4" >"$_g/cpu.consolidate"
	sh -c 'while :; do :; done' &
	_bpid=$!
	echo $_bpid >"$_g/cgroup.procs" || errs=$((errs + 1))
	echo 0 >/sys/devices/system/cpu/cpu$_cpu/online || errs=$((errs + 1))
	for p in $pids; do
		taskset -a -p -c "0-$((ncpu - 1))" $p >/dev/null 2>&1
		[ $((_i % 2)) = 0 ] && taskset -a -p -c "$(( (_i + 1) % ncpu )),$(( (_i + 2) % ncpu ))" $p >/dev/null 2>&1
	done
	sleep 1
	echo $_bpid >$CGROOT/cgroup.procs
	kill $_bpid; wait $_bpid 2>/dev/null
	rmdir "$_g" || errs=$((errs + 1))
	echo 1 >/sys/devices/system/cpu/cpu$_cpu/online || errs=$((errs + 1))
	for p in $pids; do taskset -a -p -c "0-$((ncpu - 1))" $p >/dev/null 2>&1; done
}

# vcp_slot_busy FROM TO FILE: the mean busy% of each package over
# vcwork's 1 s slots FROM..TO of FILE, space-separated.
vcp_slot_busy() {
	awk -v from="$1" -v to="$2" 'index($0, "\"type\":\"slot\"") {
		match($0, /"slot":[0-9]+/); s = substr($0, RSTART + 7, RLENGTH - 7) + 0
		if (s < from || s > to) next
		match($0, /"pkg_busy":"[^"]*"/)
		n = split(substr($0, RSTART + 12, RLENGTH - 13), v, ",")
		for (i = 1; i <= n; i++) sum[i] += v[i]
		cnt++
	} END { for (i = 1; i <= n; i++) printf "%s%.0f", (i > 1 ? " " : ""), sum[i] / cnt; print "" }' "$3"
}

# class_done RUN CLASS: the bursts CLASS's threads completed, in percent
# of those due in the window (one decimal; "-" when none were due).
class_done() {
	awk -v cl="$2" 'index($0, "\"type\":\"class\"") &&
	index($0, "\"class\":\"" cl "\"") {
		match($0, /"bursts":[0-9]+/); b = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"bursts_due":[0-9]+/); d = substr($0, RSTART + 13, RLENGTH - 13)
		if (d > 0) printf "%.1f\n", b * 100 / d; else print "-"
	}' "/tmp/$1.out"
}
