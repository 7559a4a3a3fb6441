#!/bin/sh
# run-guest.sh KERNEL SCENARIO TOPOLOGY
#
# Boots KERNEL (a bzImage) under qemu-system-x86_64 -accel tcg with the
# testbed initramfs, runs /scenarios/SCENARIO.sh in the guest and extracts
# what it printed. TOPOLOGY: 2x4 (2 packages x 4 cores), 4x4, numa2x4
# (2 packages x 4 cores, one NUMA node each), snc2x4 (the same with two
# NUMA nodes in each package, as Intel SNC or AMD NPS2), or SxC[xT] in
# general; TOPOLOGY+slot adds an empty socket slot: one more package's
# CPUs possible but not present (hotplug slots, as many servers'
# firmware declares).
#
# Environment:
#   INITRD   initramfs (default: ../../build/kernel/initramfs.cpio.gz)
#   OUT      result file prefix; writes OUT.log (whole console),
#            OUT.result (between the markers), OUT.dmesg (splat lines).
#            Default: a mktemp dir under $TMPDIR; the result goes to stdout.
#   TIMEOUT  seconds before QEMU is stopped by its pid (default 400)
#   ICOUNT   1 (default): -accel tcg,thread=single -icount shift=0,sleep=off
#            (guest time follows executed instructions: repeatable even on a
#            busy host); 0: multi-threaded TCG, real time
#   ICOUNT_SHIFT  guest ns per instruction = 2^shift (default 2: a 250 MIPS
#            guest; halves the wall time of a measurement window vs 0)
#   ICOUNT_SLEEP  off (default: when every vCPU idles, the guest clock jumps
#            to the next timer) or on (it runs in real time then)
#   CGROUP   v2 (default) or v1 (the v1 cpu hierarchy)
#   MEM      guest memory in MiB (default 256)
#   APPEND   extra kernel command line
#   PACE_CPU 1: one more vCPU, alone in one more package (and in NUMA node
#            0 on the NUMA topologies), numbered after the topology's
#            own CPUs: the benchmark's pacing CPU (bench/kernel/run.sh),
#            kept out of the measured topology. Default 0.
#   LABEL    what to call the kernel in the summary line (default: its path)
# Exit: 0 the scenario ran and returned 0; 1 it returned non-zero;
# 2 no result (boot failure, crash, timeout: see OUT.log); 3 usage.
set -eu

usage() {
	echo "usage: run-guest.sh KERNEL SCENARIO TOPOLOGY (see the header)" >&2
	exit 3
}
[ $# -eq 3 ] || usage
kernel=$1
scenario=$2
topo=$3
here=$(cd "$(dirname "$0")" && pwd)
initrd=${INITRD:-$here/../../build/kernel/initramfs.cpio.gz}
timeout=${TIMEOUT:-400}
icount=${ICOUNT:-1}
cgroup=${CGROUP:-v2}
mem=${MEM:-256}

[ -f "$kernel" ] || { echo "run-guest: no kernel '$kernel'" >&2; exit 3; }
[ -f "$initrd" ] || { echo "run-guest: no initramfs '$initrd' (make -C kernel initramfs)" >&2; exit 3; }

numa=
s=2 c=4 t=1 slot=0
case $topo in *+slot) slot=1 topo=${topo%+slot} ;; esac
case $topo in
numa2x4)
	half=$((mem / 2))
	numa="-object memory-backend-ram,id=m0,size=${half}M
	      -object memory-backend-ram,id=m1,size=$((mem - half))M
	      -numa node,nodeid=0,cpus=0-3,memdev=m0
	      -numa node,nodeid=1,cpus=4-7,memdev=m1" ;;
snc2x4)
	# 2 packages x 4 cores, each package split into 2 NUMA nodes of 2
	# cores (Intel SNC, AMD NPS2): distance 12 inside a package, 21
	# across
	q=$((mem / 4))
	numa=
	for n in 0 1 2 3; do
		numa="$numa -object memory-backend-ram,id=m$n,size=${q}M
		      -numa node,nodeid=$n,cpus=$((n * 2))-$((n * 2 + 1)),memdev=m$n"
	done
	for a in 0 1 2 3; do
		for b in 0 1 2 3; do
			[ $a -lt $b ] || continue
			if [ $((a / 2)) = $((b / 2)) ]; then d=12; else d=21; fi
			numa="$numa -numa dist,src=$a,dst=$b,val=$d"
		done
	done ;;
*x*x*)
	s=${topo%%x*}; r=${topo#*x}; c=${r%%x*}; t=${r#*x} ;;
*x*)
	s=${topo%%x*}; c=${topo#*x} ;;
*)
	echo "run-guest: unknown topology '$topo'" >&2; exit 3 ;;
esac
case $s$c$t in *[!0-9]*|"") echo "run-guest: bad topology '$topo'" >&2; exit 3 ;; esac
n=$((s * c * t))
pace=${PACE_CPU:-0}
case $pace in 0 | 1) ;; *) echo "run-guest: PACE_CPU is 0 or 1, not '$pace'" >&2; exit 3 ;; esac
[ $((pace + slot)) -le 1 ] || { echo "run-guest: PACE_CPU=1 and +slot both want the extra socket" >&2; exit 3; }
smp="$((n + pace)),sockets=$s,cores=$c,threads=$t"
if [ $((pace + slot)) = 1 ]; then
	# one more socket, filled in order: the pacing CPU n first (PACE_CPU),
	# the rest of it possible but absent
	smp="$((n + pace)),maxcpus=$((n + c * t)),sockets=$((s + 1)),cores=$c,threads=$t"
	[ -z "$numa" ] || numa="$numa -numa cpu,node-id=0,socket-id=$s"
fi

if [ "$icount" = 1 ]; then
	accel="-accel tcg,thread=single -icount shift=${ICOUNT_SHIFT:-2},sleep=${ICOUNT_SLEEP:-off}"
else
	accel="-accel tcg,thread=multi"
fi

if [ -n "${OUT:-}" ]; then
	out=$OUT
	mkdir -p "$(dirname "$out")"
	to_stdout=0
else
	tmpd=$(mktemp -d "${TMPDIR:-/tmp}/run-guest.XXXXXX")
	out=$tmpd/guest
	to_stdout=1
fi
log=$out.log

# An RCU stall panics the guest (it would otherwise hang until the
# timeout), and the panic prints what "quiet" kept off the console: the
# whole kernel log, the stall report's backtraces among it, and every
# CPU's backtrace (panic_print bits 5 and 6); panic=-1 then ends QEMU.
stall="sysctl.kernel.panic_on_rcu_stall=1 panic_print=0x60"

# shellcheck disable=SC2086
qemu-system-x86_64 $accel -m "$mem" -smp "$smp" $numa \
	-nographic -no-reboot -nodefaults -serial stdio -display none \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 quiet panic=-1 $stall vcpack.scenario=$scenario vcpack.cgroup=$cgroup ${APPEND:-}" \
	</dev/null >"$log" 2>&1 &
qpid=$!
start=$(date +%s)
status=running
while kill -0 "$qpid" 2>/dev/null; do
	now=$(date +%s)
	if [ $((now - start)) -ge "$timeout" ]; then
		status=timeout
		kill "$qpid" 2>/dev/null || true
		break
	fi
	# the guest is done: give poweroff 15 s, then stop QEMU ourselves
	if grep -q '===VCPACK-DMESG-END===' "$log" 2>/dev/null; then
		[ -n "${done_at:-}" ] || done_at=$now
		if [ $((now - done_at)) -ge 15 ]; then
			kill "$qpid" 2>/dev/null || true
			break
		fi
	fi
	sleep 1
done
wait "$qpid" 2>/dev/null || true
secs=$(($(date +%s) - start))

# Console lines may carry terminal escapes before the markers.
: >"$out.result"
: >"$out.dmesg"
tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1b[a-z]//g' | awk -v res="$out.result" -v dm="$out.dmesg" '
	index($0, "===VCPACK-BEGIN") { inres = 1; next }
	index($0, "===VCPACK-END") { inres = 0; next }
	index($0, "===VCPACK-DMESG===") { indm = 1; next }
	index($0, "===VCPACK-DMESG-END===") { indm = 0; next }
	inres { print > res }
	indm { print > dm }
'
touch "$out.result" "$out.dmesg"
rc=$(tr -d '\r' <"$log" | sed -n 's/.*===VCPACK-END rc=\([0-9]*\)===.*/\1/p' | tail -1)
echo "run-guest: ${LABEL:-$kernel}: $scenario on $topo: ${secs}s, ${status}, rc=${rc:-none}" >&2
[ "$to_stdout" = 1 ] && cat "$out.result" && { [ -s "$out.dmesg" ] && sed 's/^/DMESG: /' "$out.dmesg"; true; }
[ "$status" = timeout ] && { echo "run-guest: timeout after ${timeout}s, QEMU (pid $qpid) stopped; see $log" >&2; exit 2; }
[ -n "$rc" ] || { echo "run-guest: no result markers; see $log" >&2; exit 2; }
[ "$rc" = 0 ] || exit 1
exit 0
