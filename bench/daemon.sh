#!/bin/sh
# daemon.sh BUILD_DIR [SECONDS] - vcpackd and hook figures (issue 6),
# printed, never asserted. Shared machine: repeats and medians.
#   hook latency       the installed hook's run time per VM start, against
#                      /bin/cat on the same input (the floor of any hook)
#   re-plan time       one full re-plan (observe, plan, diff, apply) of
#                      100 VMs on the test driver, through the control
#                      socket's synchronous "replan"
#   idle cost          vcpackd's RSS and CPU time over SECONDS (default 60)
#                      with 50 VMs on the test driver, scaled to an hour
# Targets: hook < 10 ms added, RSS < 20 MB, < 1 s CPU per hour idle.
B=$(cd "${1:-build}" && pwd)
SECS=${2:-60}
here=$(cd "$(dirname "$0")/../tests/integration" && pwd)
T_NAME=bench-daemon
. "$here/lib.sh"
t_setup

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now_ns() { date +%s%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b - a) / 1e6}'; }

# ---- hook latency ----
dom="<domain type='kvm'><name>vm1</name><memory>1048576</memory><vcpu>2</vcpu><metadata><vcpack:consolidation xmlns:vcpack='urn:vcpack:metadata:1' priority='low'/></metadata><os><type>hvm</type></os></domain>"
printf '%s\n' "$dom" >"$T_TMP/dom.xml"
export VCPACK_POLICY=$T_TMP/none.json VCPACK_SOCKET=$T_TMP/none.sock
run_n() { # N CMD... -> one ms figure per run
	n=$1; shift
	for i in $(seq "$n"); do
		a=$(now_ns); "$@" <"$T_TMP/dom.xml" >/dev/null 2>&1; b=$(now_ns)
		ms "$a" "$b"; echo
	done
}
for op in "prepare begin" "started begin"; do
	h=$(run_n 101 "$B/vcpack-hook" vm1 $op - | median)
	c=$(run_n 101 cat | median)
	echo "hook $op: median $h ms per call (cat on the same input: $c ms; added by vcpack: $(awk -v h="$h" -v c="$c" 'BEGIN {printf "%.2f", h - c}') ms; target < 10 ms)"
done
unset VCPACK_POLICY VCPACK_SOCKET

# ---- a test-driver libvirtd with N VMs ----
start_libvirtd || exit 1
U="test+unix:///default?socket=$LVD_SOCK"
hold_connection "$U" || exit 1
mkvms() { # FROM TO
	for i in $(seq "$1" "$2"); do
		case $((i % 3)) in 0) t="priority='low'" ;; 1) t="class='pack'" ;; *) t="priority='normal'" ;; esac
		printf "<domain type='test'><name>vm%03d</name><memory>131072</memory><vcpu>2</vcpu><metadata><v:consolidation xmlns:v='urn:vcpack:metadata:1' %s/></metadata><os><type>hvm</type></os></domain>\n" "$i" "$t" >"$T_TMP/vm.xml"
		virsh -q -c "$U" define "$T_TMP/vm.xml" >/dev/null && virsh -q -c "$U" start "vm$(printf %03d "$i")" >/dev/null
	done
}
SOCK=$T_TMP/vcpackd.sock
ask() { perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or exit 1;
	print $s "$ARGV[1]\n"; my $l = <$s>; print $l // "";' "$SOCK" "$1"; }
start_daemon() {
	"$B/vcpackd" --foreground --connect "$U" --socket "$SOCK" >"$T_TMP/vcpackd.log" 2>&1 &
	DPID=$!; T_PIDS="$T_PIDS $DPID"
	i=0; until ask ping 2>/dev/null | grep -q '^ok connected' || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# CPU time in ns of every thread of a process (schedstat: ns resolution)
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s}'; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

mkvms 1 50
start_daemon
sleep 2	# first plan applied
t0=$(cpu_ns "$DPID"); sleep "$SECS"; t1=$(cpu_ns "$DPID")
cpu=$(awk -v a="$t0" -v b="$t1" -v s="$SECS" 'BEGIN {printf "%.3f", (b - a) / 1e9 * 3600 / s}')
# the periodic resync (every 600 s: 6 an hour) on top of the idle ticks
c0=$(cpu_ns "$DPID")
for i in $(seq 10); do ask replan >/dev/null; done
c1=$(cpu_ns "$DPID")
per=$(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.1f", (b - a) / 1e6 / 10}')
total=$(awk -v c="$cpu" -v p="$per" 'BEGIN {printf "%.2f", c + 6 * p / 1000}')
echo "vcpackd idle, 50 VMs (test driver, sampling every 10 s): RSS $(rss_kb "$DPID") KiB (target < 20480)"
echo "  CPU: $cpu s/hour sampling and keepalives (measured over $SECS s) + 6 resyncs x $per ms = $total s per hour (target < 1 s)"

mkvms 51 100
for i in $(seq 21); do
	a=$(now_ns); ask replan >/dev/null; b=$(now_ns); ms "$a" "$b"; echo
done | median >"$T_TMP/replan"
echo "re-plan of 100 VMs (observe + plan + diff + apply through libvirt's test driver): median $(cat "$T_TMP/replan") ms of 21"
