# bench/kernel/scenarios.sh - the benchmark's workloads, topologies and
# testbeds, sourced by run.sh (and floor.sh for the testbeds).
#
# scen_vms SCENARIO PACKAGES CPUS [LOAD] prints one VM per line:
#   NAME THREADS CLASS DUTY BURST_MS
# Every vCPU thread is periodic: BURST_MS of its own CPU time (a fixed
# amount of work) every BURST_MS * 100 / DUTY ms, with its own phase.
# CPUS is per package (cores times hardware threads: on SMT the load is
# a share of the logical CPUs, as a host's is).
# Sizes scale with the host (N = PACKAGES * CPUS CPUs):
#   steady  N/2 vCPUs of pack VMs (2 vCPUs each), duty cycles 60, 10, 35,
#           20, 50, 30 % by VM, long bursts (period 100 ms)
#   bursty  N vCPUs of pack VMs, 1-2 ms bursts, duty 5-10 % (period 20 ms)
#   mixed   one spread latency VM (2 vCPUs, 0.5 ms bursts, duty 5 %) beside
#           N/4 vCPUs of pack batch VMs at duty 50 % (20 ms bursts)
#   ramp    N vCPUs at duty LOAD % (5 ms bursts), half in pack VMs and half
#           in balanced (untagged) ones: the host at LOAD % of its CPUs
#   busyspread  one busy spread vCPU (duty 90 %, 20 ms bursts) beside N/4
#           one-vCPU pack VMs and N/4 balanced ones, bursty (duty 10 %,
#           2 ms): the packable load fits beside the spread task, so all
#           packages but the spread task's can idle (the three-package
#           miss an outside check found at level 2)
scen_vms() {
	_s=$1 _p=$2 _c=$3 _l=${4:-}
	_n=$((_p * _c))
	case $_s in
	steady)
		_i=0
		while [ $_i -lt $((_n / 4)) ]; do
			set -- 60 10 35 20 50 30
			_k=$((_i % 6))
			shift $_k
			echo "st$_i 2 pack $1 $1"
			_i=$((_i + 1))
		done ;;
	bursty)
		_i=0
		while [ $_i -lt $((_n / 2)) ]; do
			if [ $((_i % 2)) = 0 ]; then echo "bu$_i 2 pack 5 1"
			else echo "bu$_i 2 pack 10 2"; fi
			_i=$((_i + 1))
		done ;;
	mixed)
		echo "lat 2 spread 5 0.5"
		_i=0
		while [ $_i -lt $((_n / 8 > 0 ? _n / 8 : 1)) ]; do
			echo "ba$_i 2 pack 50 20"
			_i=$((_i + 1))
		done ;;
	ramp)
		[ -n "$_l" ] || { echo "scen_vms: ramp needs a LOAD" >&2; return 1; }
		_i=0
		while [ $_i -lt $((_n / 2)) ]; do
			if [ $((_i % 2)) = 0 ]; then _cl=pack; else _cl=balanced; fi
			echo "r$_i 2 $_cl $_l 5"
			_i=$((_i + 1))
		done ;;
	busyspread)
		echo "sp 1 spread 90 20"
		_i=0
		while [ $_i -lt $((_n / 4 > 0 ? _n / 4 : 1)) ]; do
			echo "pk$_i 1 pack 10 2"
			echo "bb$_i 1 balanced 10 2"
			_i=$((_i + 1))
		done ;;
	*)
		echo "scen_vms: unknown scenario '$_s'" >&2
		return 1 ;;
	esac
}

# topo_size TOPOLOGY -> "PACKAGES CORES NODES THREADS" (run-guest.sh's
# topologies: PxC, PxCxT with T hardware threads per core, numa2x4, and
# snc2x4: two NUMA nodes in each package, SNC/NPS2-like)
topo_size() {
	case $1 in
	numa2x4) echo "2 4 2 1" ;;
	snc2x4) echo "2 4 4 1" ;;
	*x*x*) _r=${1#*x}; echo "${1%%x*} ${_r%%x*} 1 ${_r#*x}" ;;
	*x*) echo "${1%%x*} ${1#*x} 1 1" ;;
	*) echo "topo_size: unknown topology '$1'" >&2; return 1 ;;
	esac
}

# guest_cpus PACKAGES CORES THREADS: "VM LIST/LIST" lines of CPU lists in
# the agent's numbering to the same in the guest's, ":" for ",". The
# agent numbers a host from virNodeGetInfo() as Linux numbers x86 hosts,
# thread 0 of every core of every package first (CPU i and i + P * C are
# siblings); QEMU's -smp numbers the threads of a core next to each other
# (socket, core, thread). The same without SMT.
guest_cpus() {
	awk -v p="$1" -v c="$2" -v t="$3" '
	function g(a,  th, r) {
		th = int(a / (p * c)); r = a % (p * c)
		return int(r / c) * c * t + (r % c) * t + th
	}
	function conv(l,  n, parts, i, lo, hi, k, seen, out, j, first, prev) {
		n = split(l, parts, ",")
		delete seen
		for (i = 1; i <= n; i++) {
			lo = parts[i]; hi = parts[i]
			if (index(parts[i], "-")) { split(parts[i], k, "-"); lo = k[1]; hi = k[2] }
			for (j = lo + 0; j <= hi + 0; j++) seen[g(j)] = 1
		}
		out = ""; first = -1
		for (j = 0; j <= p * c * t; j++) {
			if (j in seen) { if (first < 0) first = j; prev = j; continue }
			if (first < 0) continue
			out = out (out == "" ? "" : ":") (first == prev ? first : first "-" prev)
			first = -1
		}
		return out
	}
	{
		n = split($2, v, "/"); s = ""
		for (i = 1; i <= n; i++) s = s (i > 1 ? "/" : "") conv(v[i])
		print $1, s
	}'
}

# testbed_append TESTBED KIND PACKAGES CORES [NODES [THREADS]] -> the
# kernel command line of a guest boot on that testbed (run.sh --testbed,
# topo_size's fields after KIND): nohz unpaced; paced
# and paced-inline with nohz=off skew_tick=1 and the RTC at 8192 Hz;
# paced from CPU PACKAGES * CORES * THREADS (run-guest.sh PACE_CPU=1), kept out of
# the scheduler's domains except on the scx boot (KIND scx: sched_ext
# refuses isolcpus). Status 1 for an unknown testbed.
testbed_append() {
	_tb="nohz=off skew_tick=1 vcpack.pace=8192"
	case $1 in
	nohz) echo "vcpack.pace=0" ;;
	paced-inline) echo "$_tb" ;;
	paced)
		_pc=$(($3 * $4 * ${6:-1}))
		if [ "$2" = scx ]; then
			echo "$_tb vcpack.pacecpu=$_pc"
		else
			echo "$_tb isolcpus=domain,$_pc vcpack.pacecpu=$_pc"
		fi ;;
	*) return 1 ;;
	esac
}

# testbed_pace_cpu TESTBED -> run-guest.sh's PACE_CPU for it
testbed_pace_cpu() {
	if [ "$1" = paced ]; then echo 1; else echo 0; fi
}
