# schedwl: the standard scheduler workloads a reviewer asks for first
# (rt-tests' hackbench, pipes and sockets, and cyclictest's wakeup
# latency), in a cgroup of class `pack` (when the kernel has the class),
# at each level the kernel has (stock: as it is; patched: 0, 1, 2).
# Each figure is one line
#   VCP-RESULT PASS wl-hackbench-pipe-l0 median=0.512 s runs=0.50/0.51/0.53
#   VCP-RESULT PASS wl-cyclictest-l0 p99=123 us max=456 us avg=45 us
# (a run that fails or prints no figure is a FAIL); run.sh compares
# patched level 0 with stock (wl-*-l0-vs-stock). Guest time follows
# executed instructions (icount), so the figures are the guest's own.
. /scenarios/lib.sh

if ! command -v hackbench >/dev/null || ! command -v cyclictest >/dev/null; then
	vcp_skip wl "no hackbench/cyclictest in the initramfs (apt-get install rt-tests, then make -C kernel initramfs)"
	exit 0
fi
RUNS=${WL_RUNS:-5}
# cyclictest keeps its per-thread figures in POSIX shared memory
mkdir -p /dev/shm
grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs shm /dev/shm

cg=$CGROOT/vcp-wl
mkdir -p "$cg"
[ -f "$cg/cpu.consolidate" ] && echo pack >"$cg/cpu.consolidate"
echo $$ >"$cg/cgroup.procs"

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# hackbench MODE LEVEL: RUNS (5) runs of 4 groups x 10 senders x 10
# receivers, 50 messages each (processes); MODE pipe or socket
hb() {
	name=wl-hackbench-$1-l$2
	flag=; [ "$1" = pipe ] && flag=-p
	: >/tmp/$name.times
	i=0
	while [ $i -lt "$RUNS" ]; do
		hackbench $flag -g 4 -f 10 -l 50 >/tmp/$name.out 2>&1
		t=$(sed -n 's/^Time: *//p' /tmp/$name.out)
		[ -n "$t" ] || { vcp_fail "$name" "run $i printed no time: $(tail -c 300 /tmp/$name.out | tr '\n' ' ')"; return; }
		echo "$t" >>/tmp/$name.times
		i=$((i + 1))
	done
	vcp_pass "$name" "median=$(median </tmp/$name.times) s runs=$(tr '\n' '/' </tmp/$name.times | sed 's|/$||')"
}

# cyclictest LEVEL: 4 threads (SCHED_OTHER: the tasks vcpack packs are
# not real-time), 1 ms interval, 2000 loops each; p99 from its histogram
ct() {
	name=wl-cyclictest-l$1
	cyclictest -q -t 4 -i 1000 -l 2000 -h 20000 --policy=other \
		>/tmp/$name.out 2>/tmp/$name.err
	r=$?
	# buckets of 1 us to 20 ms, and the samples past it (overflows)
	# (busybox awk reads "000010" as octal: leading zeros cut first)
	p99=$(awk 'function num(s) { sub(/^0+/, "", s); return s + 0 }
		/^[0-9]/ { n = 0; for (i = 2; i <= NF; i++) n += num($i); h[num($1)] = n; tot += n }
		/^# Histogram Overflows:/ { for (i = 4; i <= NF; i++) tot += num($i) }
		END { c = 0; for (us = 0; us <= 20000; us++) { c += h[us];
			if (tot && c >= 0.99 * tot) { print us; exit } }
			if (tot) print ">20000" }' /tmp/$name.out)
	max=$(sed -n 's/^# Max Latencies: *//p' /tmp/$name.out | tr ' ' '\n' | sort -n | tail -n 1 | sed 's/^0*//')
	avg=$(sed -n 's/^# Avg Latencies: *//p' /tmp/$name.out | tr ' ' '\n' | grep . | median | sed 's/^0*//')
	if [ $r -eq 0 ] && [ -n "$p99" ]; then
		vcp_pass "$name" "p99=$p99 us max=${max:-0} us avg=${avg:-0} us"
	else
		vcp_fail "$name" "exit $r, no histogram: $(head -c 200 /tmp/$name.err | tr '\n' ' ') / $(grep '^#' /tmp/$name.out | head -c 300 | tr '\n' ' ')"
	fi
}

levels=0
vcp_have_level && levels="0 1 2"
for l in $levels; do
	vcp_have_level && vcp_set_level "$l"
	hb pipe "$l"
	hb socket "$l"
	ct "$l"
done
vcp_have_level && vcp_set_level 0
echo $$ >"$CGROOT/cgroup.procs"
rmdir "$cg" 2>/dev/null
exit 0
