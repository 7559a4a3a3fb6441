# scx-lib.sh - helpers for the sched_ext scenarios (scx-*.sh), sourced
# after lib.sh inside the testbed guest booted on the stock (sched_ext) kernel
# (make check-scx). scx_vcpack is the loader in /bin of the scx initramfs.

SCX=/sys/kernel/sched_ext
SCX_LOG=/tmp/scx_vcpack.log
scx_pid=

# 0 when the kernel has sched_ext and the initramfs has scx_vcpack.
scx_have() { [ -d "$SCX" ] && command -v scx_vcpack >/dev/null; }

scx_state() { cat "$SCX/state" 2>/dev/null || echo absent; }

# scx_start LEVEL: starts the loader in the background (its counters in
# $SCX_LOG every 5 s); 0 once the kernel says "enabled" (within 20 s of
# guest time).
scx_start() {
	grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
	scx_vcpack -l "$1" -i 5 >>"$SCX_LOG" 2>&1 &
	scx_pid=$!
	i=0
	while [ $i -lt 20 ]; do
		[ "$(scx_state)" = enabled ] && return 0
		kill -0 "$scx_pid" 2>/dev/null || break
		sleep 1
		i=$((i + 1))
	done
	return 1
}

# scx_stop: SIGINT to the loader, waits for it; its exit status.
scx_stop() {
	[ -n "$scx_pid" ] || return 1
	kill -INT "$scx_pid" 2>/dev/null
	wait "$scx_pid"
	r=$?
	scx_pid=
	return $r
}

# scx_class CGROUP CLASS: makes CGROUP (relative to the cgroup root) and
# sets its class through the running scheduler's pinned maps.
scx_class() {
	mkdir -p "$CGROOT/$1"
	scx_vcpack class "$CGROOT/$1" "$2"
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
