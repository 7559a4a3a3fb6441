#!/bin/sh
# bench/kernel/run.sh - the kernel benchmark's runs (BENCHMARKS.md).
#
#   run.sh --out DIR --stock IMG --patched IMG --initrd BASE.cpio.gz
#          --vcpack BIN [--quick] [--topos "2x4 3x4 4x4 numa2x4 snc2x4 2x4x2"]
#          [--configs "stock stock-pin L0 L1 L2 scx-L1 scx-L2"]
#          [--repeats N] [--passes N] [--parallel N]
#          [--testbed paced|paced-inline|nohz]
#          [--jobs "SCENARIO[:LOAD] ..."] [--waits] [--waits-slow US]
#          [--waits-trace N] [--waits-events SYS/EV,...] [--seed-base N]
#
# For every topology and pass, up to three guests boot (TCG, -icount: guest
# time follows executed instructions, so a busy host slows the run down but
# does not change what the guest sees): the stock kernel runs every job as
# `stock` and, with the agent's pin-mode plan, as `stock-pin`; the patched
# kernel runs every job at levels 0, 1 and 2 (`L0`, `L1`, `L2`); the stock
# kernel again (it has sched_ext, inert while no BPF scheduler is loaded)
# runs every job under scx_vcpack at levels 1 and 2 (`scx-L1`, `scx-L2`:
# the guest loads it and writes each VM's class for its cgroup, see
# guest/bench.sh). --configs runs a subset (a boot with none of its configs
# is skipped): e.g. --configs "stock stock-pin L0 L1 L2" for a run without
# sched_ext. A job is one scenario (scenarios.sh) at one load, repeated
# --repeats times, in interleaved order (repeat 1 of every job, then
# repeat 2, ...). The stock boot must not have had a BPF scheduler loaded
# (its /init prints sched_ext's enable_seq: 0, else the boot fails).
#
# stock-pin: the plan comes from the real CLI, `vcpack plan --mode pin
# --json`, on libvirt's test driver given the guest's topology and the
# scenario's VMs with their class tags; the test driver measures no demand,
# so the policy says each vCPU needs the scenario's highest duty. vcwork
# then pins every thread as the plan pins the vCPU (sched_setaffinity, what
# virDomainPinVcpu does to a vCPU thread).
#
# --jobs runs only the listed jobs (e.g. "ramp:30 steady"). --waits also
# traces sched_wakeup and adds, per job, `vcresid waits`: how long each
# class's wakeups waited for a CPU and where they were queued (a
# diagnostic run: the extra trace events cost the guest some time, so its
# residency and latency figures are not the benchmark's), and `vcresid
# opens`: what ended each package's all-idle stretches (a wakeup where
# the thread last ran, a wakeup moved into the package, a balancer pull,
# another task) and how long the package then stayed awake; --waits-slow
# US (implies --waits) adds each wait of at least US microseconds in
# detail ("wslow" lines), --waits-trace N the target CPU's trace around the
# first N of them in each job ("wtrace"), --waits-events more trace events
# for it (e.g. irq/softirq_entry,irq/softirq_exit). bench/kernel/waits.jq
# and opens.jq tabulate such a run. --seed-base N adds N to every job's vcwork seed
# (default 0: pass * 1000 + repeat), for a run independent of another.
#
# --testbed paced (the default): the guests run with nohz=off skew_tick=1
# and the RTC interrupt at 8192 Hz (vcresid pace). Single-threaded TCG
# runs one vCPU until the next virtual-clock deadline, so under NO_HZ a
# woken vCPU waits milliseconds behind a spinning one: wakeup latencies
# would measure QEMU, not the kernel (BENCHMARKS.md, "The testbed's own
# floor"). The pacing hrtimer runs on a CPU of its own, outside the
# measured topology: one more vCPU, alone in one more package
# (run-guest.sh PACE_CPU=1), kept out of the scheduler's domains
# (isolcpus=domain; not on the scx boot: sched_ext refuses it, and
# scx_vcpack -x leaves it out of its packages instead) and of every task
# the benchmark starts, and left out of every figure (vcpack.pacecpu=,
# guest/bench.sh). Its interrupts cost that vCPU
# milliseconds at a time; on a workload CPU they delayed the wakeups
# queued there (BENCHMARKS.md, "Where level 2's wakeups wait").
# paced-inline: the same, paced from a workload CPU (the testbed of the
# figures before 2026-12-07). nohz: the kernels' own NO_HZ_IDLE,
# unpaced, as a cross-check of the residency figures.
#
# Writes DIR/results.jsonl (every JSON line of every job, tagged with
# topo, config, scenario, load, pass, rep), DIR/boots.txt, DIR/raw/*.
# On stderr, a line before the first boot and one as each boot ends (run
# k of N, how long it took, elapsed, an estimate of the time left:
# progress.sh). Exit 1 if a boot or a job failed (the rest are still
# written).
#
# BENCH_RUN_GUEST=FILE: the script that boots a guest, in place of
# kernel/testbed/run-guest.sh (same arguments and environment; it writes
# $OUT.result). tests/bench/run.sh runs this script with a stand-in.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/scenarios.sh"
. "$here/progress.sh"

out= stock= patched= initrd= vcpack= quick=0 only_jobs= waits=0 waitslow=0 waittrace=0 waitevents= seedbase=0
all_configs="stock stock-pin L0 L1 L2 scx-L1 scx-L2"
configs=$all_configs
topos="2x4 3x4 4x4 numa2x4 snc2x4 2x4x2" repeats=3 passes=1 parallel=2 testbed=paced
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--stock) stock=$2; shift 2 ;;
	--patched) patched=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--vcpack) vcpack=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--topos) topos=$2; shift 2 ;;
	--configs) configs=$2; shift 2 ;;
	--repeats) repeats=$2; shift 2 ;;
	--passes) passes=$2; shift 2 ;;
	--parallel) parallel=$2; shift 2 ;;
	--testbed) testbed=$2; shift 2 ;;
	--jobs) only_jobs=$2; shift 2 ;;
	--waits) waits=1; shift ;;
	--waits-slow) waits=1 waitslow=$2; shift 2 ;;
	--waits-trace) waittrace=$2; shift 2 ;;
	--waits-events) waitevents=$2; shift 2 ;;
	--seed-base) seedbase=$2; shift 2 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
for c in $configs; do
	case " $all_configs " in *" $c "*) ;;
	*) echo "run.sh: --configs: unknown config '$c' (of: $all_configs)" >&2; exit 2 ;;
	esac
done

# kind_configs KIND -> the configs of that boot that --configs asked for
kind_configs() {
	case $1 in
	stock) _k="stock stock-pin" ;;
	patched) _k="L0 L1 L2" ;;
	scx) _k="scx-L1 scx-L2" ;;
	esac
	for _c in $_k; do
		case " $configs " in *" $_c "*) printf '%s ' "$_c" ;; esac
	done
}

# what the configs asked for need: --stock for stock, stock-pin and the
# scx runs, --patched for L0-L2, --vcpack (the plan) for stock-pin
need="out initrd"
[ -z "$(kind_configs stock)$(kind_configs scx)" ] || need="$need stock"
[ -z "$(kind_configs patched)" ] || need="$need patched"
case " $configs " in *" stock-pin "*) need="$need vcpack" ;; esac
for v in $need; do
	eval "[ -n \"\$$v\" ]" || { echo "run.sh: --$v is required" >&2; exit 2; }
	[ "$v" = out ] || eval "[ -f \"\$$v\" ]" ||
		{ echo "run.sh: no such file for --$v" >&2; exit 2; }
done

if [ $quick = 1 ]; then
	loads="10 30 60 90"
	warmup=1 duration=4
else
	loads="5 15 30 50 70 90"
	warmup=1 duration=6
fi
testbed_append "$testbed" stock 1 1 >/dev/null ||
	{ echo "run.sh: --testbed is paced, paced-inline or nohz, not '$testbed'" >&2; exit 2; }
waitsapp=
[ $waits = 0 ] || waitsapp=" vcpack.waits=1 vcpack.waitslow=$waitslow vcpack.waittrace=$waittrace${waitevents:+ vcpack.waitevents=$waitevents}"
mkdir -p "$out/raw" "$out/plans"
: >"$out/boots.txt"

# jobs_for TOPO -> "SCENARIO LOAD" lines (those --jobs names, if given)
jobs_for() {
	{
		echo "steady -"
		echo "bursty -"
		echo "mixed -"
		echo "busyspread -"
		for l in $loads; do echo "ramp $l"; done
	} | while read -r _s _l; do
		[ -z "$only_jobs" ] && { echo "$_s $_l"; continue; }
		for _j in $only_jobs; do
			[ "$_j" = "$_s" ] || [ "$_j" = "$_s:$_l" ] || continue
			echo "$_s $_l"
			break
		done
	done
}

# vm_args TOPO SCEN LOAD [PINFILE] -> the --vm arguments of vcwork
vm_args() {
	set -- "$1" "$2" "$3" "${4:-}"
	# shellcheck disable=SC2046
	set -- "$@" $(topo_size "$1")
	_pins=$4
	scen_vms "$2" "$5" "$(($6 * $8))" "$([ "$3" = - ] || echo "$3")" |
	while read -r name th cl duty burst; do
		a="--vm name=$name,threads=$th,class=$cl,duty=$duty,burst=${burst}ms,work=cpu"
		if [ -n "$_pins" ]; then
			p=$(awk -v n="$name" '$1 == n { print $2 }' "$_pins")
			# no plan for the VM: vcwork refuses the job ("bad pins")
			a="$a,pins=${p:-no-plan-for-$name}"
		fi
		printf ' %s' "$a"
	done
}

# plan_pins TOPO SCEN LOAD FILE: the agent's pin-mode plan, "VM LIST/LIST"
plan_pins() {
	# shellcheck disable=SC2046
	set -- "$@" $(topo_size "$1")
	_p=$5 _c=$6 _nodes=$7 _t=$8
	# virNodeGetInfo() counts sockets and cores per NUMA node: a node
	# smaller than a package (snc2x4) is one "socket" of its own cores
	_sk=$((_p / _nodes)); [ "$_sk" -ge 1 ] || _sk=1
	_ck=$((_p * _c / (_nodes * _sk)))
	x=$out/plans/$1-$2-$3.xml
	pol=$out/plans/$1-$2-$3.policy.json
	maxd=$(scen_vms "$2" "$_p" "$((_c * _t))" "$([ "$3" = - ] || echo "$3")" |
		awk '$4 > m { m = $4 } END { printf "%.2f", m / 100 }')
	{
		echo "<node><cpu><mhz>2400</mhz><model>x86_64</model>"
		echo "<active>$((_p * _c * _t))</active><max>$((_p * _c * _t))</max>"
		echo "<nodes>$_nodes</nodes><sockets>$_sk</sockets>"
		echo "<cores>$_ck</cores><threads>$_t</threads></cpu>"
		echo "<memory>16777216</memory>"
		scen_vms "$2" "$_p" "$((_c * _t))" "$([ "$3" = - ] || echo "$3")" |
		while read -r name th cl duty burst; do
			tag=
			[ "$cl" = balanced ] ||
				tag="<metadata><vcpack:consolidation xmlns:vcpack=\"urn:vcpack:metadata:1\" class=\"$cl\"/></metadata>"
			echo "<domain type=\"test\"><name>$name</name><memory unit=\"MiB\">512</memory><vcpu>$th</vcpu>$tag<os><type>hvm</type></os></domain>"
		done
		echo "</node>"
	} >"$x"
	printf '{"level": "auto", "windows": [], "default_vcpu_demand": %s}\n' \
		"$maxd" >"$pol"
	"$vcpack" -c "test://$x" -p "$pol" --mode pin --sample 0 --json plan \
		>"$out/plans/$1-$2-$3.plan.json" ||
		{ echo "run.sh: vcpack plan failed for $1 $2 $3" >&2; return 1; }
	jq -r '.plan.vms[] | .name + " " + (.vcpus | join("/"))' \
		"$out/plans/$1-$2-$3.plan.json" | guest_cpus "$_p" "$_c" "$_t" >"$4"
}

# make_boot TOPO PASS KIND: writes the jobs file and the boot's initrd
make_boot() {
	topo=$1 pass=$2 kind=$3
	name=$topo-p$pass-$kind
	confs=$(kind_configs "$kind")
	rep=1
	while [ $rep -le "$repeats" ]; do
		jobs_for "$topo" | while read -r scen load; do
			for conf in $confs; do
				pins=
				if [ "$conf" = stock-pin ]; then
					pins=$out/plans/$topo-$scen-$load.pins
					[ -f "$pins" ] || plan_pins "$topo" "$scen" "$load" "$pins"
				fi
				case $conf in
				L?) level=${conf#L} ;;
				scx-L?) level=scx:${conf#scx-L} ;;
				*) level=- ;;
				esac
				seed=$((seedbase + pass * 1000 + rep))
				echo "$topo/$conf/$scen/$load/$pass/$rep $level --warmup $warmup --duration $duration --seed $seed --mon-ms 1000 $(vm_args "$topo" "$scen" "$load" "$pins")"
			done
		done
		rep=$((rep + 1))
	done >"$out/raw/$name.jobs"
	sh "$here/jobs-initrd.sh" "$initrd" "$out/raw/$name.jobs" "$out/raw/$name.cpio"
}

# run_boot TOPO PASS KIND
run_boot() {
	name=$1-p$2-$3
	if [ "$3" = patched ]; then img=$patched; else img=$stock; fi
	n=$(wc -l <"$out/raw/$name.jobs")
	# per job: (warmup + duration + 2 s) of guest time, at most ~8x slower
	# than real time on a loaded 2-core host, plus the boot
	to=$((120 + n * (warmup + duration + 2) * 8))
	rc=0
	# shellcheck disable=SC2046
	_app=$(testbed_append "$testbed" "$3" $(topo_size "$1"))$waitsapp
	PACE_CPU=$(testbed_pace_cpu "$testbed") APPEND=$_app \
		INITRD=$out/raw/$name.cpio OUT=$out/raw/$name MEM=512 TIMEOUT=$to \
		LABEL="$3 kernel" sh "${BENCH_RUN_GUEST:-$top/kernel/testbed/run-guest.sh}" \
		"$img" bench "$1" 2>>"$out/raw/$name.run" || rc=$?
	# /init's "VCP-SCX state=S enable_seq=N" (kernels with sched_ext)
	scx=$(sed -n 's/^VCP-SCX //p' "$out/raw/$name.result" 2>/dev/null | tr ' ' ,)
	if [ "$3" = stock ] && [ -n "$scx" ] && [ "${scx#*enable_seq=}" != 0 ]; then
		echo "run.sh: $name: a BPF scheduler was loaded in the stock boot ($scx)" >>"$out/raw/$name.run"
		rc=1
	fi
	echo "$name rc=$rc jobs=$n sched_ext=${scx:-none} $(tail -1 "$out/raw/$name.run")" >>"$out/boots.txt"
	rm -f "$out/raw/$name.cpio"
	return $rc
}

# boot_progress TOPO PASS KIND: run_boot, then the boot's "NAME SECONDS"
# line appended to raw/progress (its line number is its k, even when two
# boots end at once) and its progress line on stderr
boot_progress() {
	_start=$(date +%s) _rc=0
	run_boot "$1" "$2" "$3" || _rc=$?
	_end=$(date +%s)
	echo "$1-p$2-$3 $((_end - _start))" >>"$out/raw/progress"
	_k=$(grep -n "^$1-p$2-$3 " "$out/raw/progress" | cut -d: -f1)
	_c=$(kind_configs "$3")
	# shellcheck disable=SC2046
	progress_line "$_k" "$nboots" $((_end - started)) "$parallel" "$_rc" \
		"$1 pass $2, ${_c% }: $(wc -l <"$out/raw/$1-p$2-$3.jobs") jobs" \
		$(awk -v k="$_k" 'NR <= k { print $2 }' "$out/raw/progress") >&2
	return $_rc
}

boots=
for pass in $(seq "$passes"); do
	for topo in $topos; do
		for kind in stock patched scx; do
			[ -n "$(kind_configs "$kind")" ] || continue
			make_boot "$topo" "$pass" "$kind" >/dev/null
			boots="$boots $topo:$pass:$kind"
		done
	done
done

# run the boots, --parallel at a time (one TCG thread each)
: >"$out/raw/progress"
# shellcheck disable=SC2086
nboots=$(($(echo $boots | wc -w)))
started=$(date +%s)
progress_line 0 "$nboots" 0 "$parallel" 0 - >&2
fail=0
pids=
running=0
for b in $boots; do
	IFS=: read -r t p k <<EOF
$b
EOF
	boot_progress "$t" "$p" "$k" &
	pids="$pids $!"
	running=$((running + 1))
	if [ $running -ge "$parallel" ]; then
		set -- $pids
		wait "$1" || fail=1
		shift
		pids=$*
		running=$((running - 1))
	fi
done
for p in $pids; do wait "$p" || fail=1; done

# tag every JSON line of every job
: >"$out/results.jsonl"
for r in "$out"/raw/*.result; do
	awk '
		/^VCB-JOB-BEGIN / { split($2, f, "/"); job = $2; ok = 0
			tag = sprintf("\"job\":\"%s\",\"topo\":\"%s\",\"config\":\"%s\",\"scenario\":\"%s\",\"load\":%s,\"pass\":%s,\"rep\":%s,\"testbed\":\"%s\",",
				job, f[1], f[2], f[3], f[4] == "-" ? "null" : f[4], f[5], f[6], tb)
			injob = 1; next }
		/^VCB-JOB-END / { injob = 0
			printf "{%s\"type\":\"job\",\"ok\":%s}\n", tag, $3 == "ok=1" ? "true" : "false"
			next }
		injob && /^\{/ { sub(/^\{/, "{" tag); print; next }
		injob && /^ERR / { gsub(/\\/, "\\\\"); gsub(/"/, "\\\"")
			printf "{%s\"type\":\"error\",\"text\":\"%s\"}\n", tag, substr($0, 5) }
	' tb="$testbed" "$r" >>"$out/results.jsonl"
done
bad=$(jq -r 'select(.type == "job" and .ok == false) | .job' "$out/results.jsonl" | wc -l)
jobs=$(jq -r 'select(.type == "job") | .job' "$out/results.jsonl" | wc -l)
echo "run.sh: $jobs jobs, $bad failed; boots:" >&2
sed 's/^/  /' "$out/boots.txt" >&2
[ "$bad" = 0 ] && [ $fail = 0 ]
