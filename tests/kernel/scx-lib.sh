# scx-lib.sh - the sched_ext helpers of the guests booted on the stock
# (sched_ext) kernel: the scx scenarios (tests/kernel/scx-*.sh, make
# check-scx) and the benchmark's guest (bench/kernel/guest/bench.sh,
# through the symlink bench/kernel/guest/scx-lib.sh). Sourced after
# lib.sh (scenarios) or alone (bench); scx_vcpack is the loader in /bin.

SCX=/sys/kernel/sched_ext
SCX_LOG=/tmp/scx_vcpack.log
CGROOT=${CGROOT:-${VCP_CG_ROOT:-/sys/fs/cgroup}}
scx_pid=

# 0 when the kernel has sched_ext and the initramfs has scx_vcpack.
scx_have() { [ -d "$SCX" ] && command -v scx_vcpack >/dev/null; }
# scx_need CHECK...: as vcp_need_knobs (lib.sh), for sched_ext and
# scx_vcpack
scx_need() {
	scx_have && return 0
	vcp_skip_all "no sched_ext or no scx_vcpack" "$@"
	return 1
}

scx_state() { cat "$SCX/state" 2>/dev/null || echo absent; }
scx_seq() { cat "$SCX/enable_seq" 2>/dev/null || echo -; }
scx_ops() { cat "$SCX/root/ops" 2>/dev/null || echo -; }

# scx_running: our loader alive (not a zombie), the kernel running it and
# its maps pinned (what `scx_vcpack class|level` write through)
scx_running() {
	[ -n "$scx_pid" ] && [ -d "/proc/$scx_pid" ] &&
		! grep -q '^State:.*Z' "/proc/$scx_pid/status" 2>/dev/null &&
		[ "$(scx_state)" = enabled ] && [ "$(scx_ops)" = vcpack ] &&
		[ -e /sys/fs/bpf/vcpack/ctl ]
}

# scx_stop: SIGINT to the loader (it unloads the scheduler), reaped; its
# exit status (0 when none was started)
scx_stop() {
	[ -n "$scx_pid" ] || return 0
	kill -INT "$scx_pid" 2>/dev/null
	wait "$scx_pid"
	_r=$?
	scx_pid=
	return $_r
}

# scx_start LEVEL [LOADER-OPTION...]: the scheduler loaded at LEVEL with
# its maps pinned, the loader's output in $SCX_LOG (within 20 s of guest
# time); else 1, the reason on stdout as ERR lines
scx_start() {
	[ -d "$SCX" ] || { echo "ERR no $SCX: this kernel has no sched_ext"; return 1; }
	command -v scx_vcpack >/dev/null || { echo "ERR no scx_vcpack in the initramfs"; return 1; }
	grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
	# an ejected scheduler's loader exits by itself (2): reap it
	scx_stop 2>/dev/null
	_i=0
	while [ "$(scx_state)" != disabled ] && [ $_i -lt 10 ]; do
		sleep 1; _i=$((_i + 1))
	done
	_lv=$1
	shift
	scx_vcpack -l "$_lv" "$@" >>"$SCX_LOG" 2>&1 &
	scx_pid=$!
	_i=0
	while [ $_i -lt 20 ]; do
		scx_running && return 0
		sleep 1
		_i=$((_i + 1))
	done
	echo "ERR scx_vcpack did not load: state $(scx_state), ops $(scx_ops)"
	tail -5 "$SCX_LOG" | sed 's/^/ERR scx_vcpack: /'
	scx_stop 2>/dev/null
	return 1
}

# scx_class CGROUP CLASS: makes CGROUP (relative to the cgroup root) and
# sets its class through the running scheduler's pinned maps.
scx_class() {
	mkdir -p "$CGROOT/$1" && scx_vcpack class "$CGROOT/$1" "$2"
}

# scx_steady3 RUN CGROUP: three steady vCPU threads of one VM in CGROUP.
scx_steady3() {
	vcp_run "$1" --warmup "$WARMUP" --duration "$DURATION" \
		--vm "name=$1,threads=3,duty=100,cg=$2"
}

# Number of tasks whose /proc/PID/sched says ext.enabled 1.
scx_tasks_on_ext() {
	cat /proc/[0-9]*/sched 2>/dev/null |
		awk '$1 == "ext.enabled" && $3 == 1 { n++ } END { print n + 0 }'
}

scx_show_log() { sed 's/^/VCP-DATA scx_vcpack: /' "$SCX_LOG"; }
