#!/bin/sh
# test-hostile-files.sh BUILD_DIR - FIFOs where the agent reads a file,
# under every root it reads: the power tree (--power-root: energy_uj,
# max_energy_range_uj, the cpuidle and topology files, a PMU's cpumask,
# the fixture clock) and the host root (--root: /proc/interrupts, an
# IRQ's affinity, a process's comm, tuned's profile, the kernel's knob,
# /proc/self/mountinfo). `vcpack metrics`, `vcpack status`, `vcpack trial`
# and vcpackd must each name the file ("...: not a regular file (a
# FIFO)") or carry on without it, and never hang: every run is under
# `timeout`, so a hang fails the test instead of stalling the suite, and
# vcpackd must end on SIGTERM within a few seconds. Also the garbage
# counters: a wrong --power-root, a zone above its range, a negative
# fixture clock.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
P=$top/tests/data/power
t_setup
mkdir -p "$T_TMP/run"
echo '{"default_vcpu_demand": 0.15, "level": 2, "irq_affinity": "on"}' >"$T_TMP/policy.json"

# fifo_tree CASE FILE: a copy of power fixture CASE (t0 and t1) with FILE
# (relative to the root) a FIFO in both; $T_TMP/CASE-N/t0,t1
n=0
fifo_tree() {
	n=$((n + 1))
	FT=$T_TMP/pw$n
	mkdir -p "$FT"
	cp -r "$P/$1/t0" "$FT/t2"	# for trial: the real clock
	rm -f "$FT/t2/vcpack-counters/clock_ns"
	for t in t0 t1 t2; do
		[ -d "$FT/$t" ] || cp -r "$P/$1/$t" "$FT/$t"
		rm -f "$FT/$t/$2"
		mkfifo "$FT/$t/$2"
	done
}

# metrics, status and trial on a power tree with a FIFO at FILE: no hang,
# the file named (where the reader needs it), exit as given
for f in class/powercap/intel-rapl:1/energy_uj \
	class/powercap/intel-rapl:0:0/max_energy_range_uj \
	devices/system/cpu/cpu3/cpuidle/state1/time \
	devices/system/cpu/cpu5/topology/physical_package_id \
	devices/system/cpu/online \
	bus/event_source/devices/cstate_pkg/cpumask \
	vcpack-counters/cstate_core/c6-residency/cpu2 \
	vcpack-counters/clock_ns; do
	fifo_tree intel-2s "$f"
	base=$(basename "$f")
	out=$(timeout 20 "$VCPACK" --wide --connect "$TWO" --sample 0 \
		--power-root "$FT/t0,$FT/t1" metrics 2>&1)
	rc=$?
	t_eq "metrics, $f a FIFO: no hang" no "$([ $rc -eq 124 ] && echo yes || echo no)"
	case $f in
	*/clock_ns) t_eq "metrics, $f a FIFO: exit 2" 2 "$rc";;
	*) t_match "metrics, $f a FIFO: still the VMs" "^vcpack_vm_class" "$out";;
	esac
	out=$(timeout 20 "$VCPACK" --wide --connect "$TWO" --sample 0 \
		--power-root "$FT/t0,$FT/t1" status 2>&1)
	rc=$?
	t_eq "status, $f a FIFO: no hang" no "$([ $rc -eq 124 ] && echo yes || echo no)"
	case $f in
	*/energy_uj|*/max_energy_range_uj|*/time|*/clock_ns)
		t_match "status, $f a FIFO: named" "$base: not a regular file \(a FIFO\)" "$out"
		t_match "metrics, $f a FIFO: named" "$base: not a regular file \(a FIFO\)" \
			"$(timeout 20 "$VCPACK" --connect "$TWO" --sample 0 \
				--power-root "$FT/t0,$FT/t1" metrics 2>&1)"
		;;
	*/online|*/cpumask)
		t_match "status, $f a FIFO: named as why the source is unavailable" \
			"unavailable: .*$f: not a regular file \(a FIFO\)" "$out";;
	esac
	out=$(timeout 20 "$VCPACK" --wide --connect "$TWO" --sample 0 \
		--policy "$T_TMP/policy.json" --power-root "$FT/t2" trial --rounds 2 --window 1 --settle 0 \
		--sample 0.2 --state "$T_TMP/trial$n.json" 2>&1)
	rc=$?
	t_eq "trial, $f a FIFO: no hang" no "$([ $rc -eq 124 ] && echo yes || echo no)"
	case $f in
	*/energy_uj|*/max_energy_range_uj|*/clock_ns)
		t_match "trial, $f a FIFO: named" "$base: not a regular file \(a FIFO\)" "$out"
		t_eq "trial, $f a FIFO: refused (exit 2)" 2 "$rc";;
	esac
done

# ---- vcpackd: a FIFO in its power tree; SIGTERM ends it ----
fifo_tree intel-2s class/powercap/intel-rapl:1/energy_uj
mkdir -p "$T_TMP/m"
"$B/vcpackd" --foreground --connect "$TWO" --socket "$T_TMP/run/d.sock" \
	--state "$T_TMP/d.state" --policy "$T_TMP/policy.json" \
	--metrics-dir "$T_TMP/m" --power-root "$FT/t0" >"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0
until [ -s "$T_TMP/m/vcpack.prom" ] || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
t_match "vcpackd, energy_uj a FIFO: metrics written" "^vcpack_vm_class" \
	"$(cat "$T_TMP/m/vcpack.prom" 2>/dev/null)"
t_match "vcpackd, energy_uj a FIFO: named in the metrics" \
	'vcpack_power_zone_unreadable[{]zone="intel-rapl:1",name="package-1",reason=".*intel-rapl:1/energy_uj: not a regular file [(]a FIFO[)]"[}] 1' \
	"$(cat "$T_TMP/m/vcpack.prom" 2>/dev/null)"
kill -TERM "$DPID"
i=0
while kill -0 "$DPID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "vcpackd, energy_uj a FIFO: SIGTERM ends it within 5 s" gone \
	"$(kill -0 "$DPID" 2>/dev/null && echo running || echo gone)"

# ---- vcpackd: a fixture clock that is no clock: named in the log ----
cp -r "$P/intel-2s/t0" "$T_TMP/badclock"
echo -5 >"$T_TMP/badclock/vcpack-counters/clock_ns"
mkdir -p "$T_TMP/m2"
"$B/vcpackd" --foreground --connect "$TWO" --socket "$T_TMP/run/c.sock" \
	--state "$T_TMP/c.state" --policy "$T_TMP/policy.json" \
	--metrics-dir "$T_TMP/m2" --power-root "$T_TMP/badclock" >"$T_TMP/vcpackd-c.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0
until grep -q "Power counters not read" "$T_TMP/vcpackd-c.log" || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
t_match "vcpackd, clock_ns '-5': named in the log" \
	"Power counters not read: .*badclock/vcpack-counters/clock_ns: not a clock .*'-5'" \
	"$(cat "$T_TMP/vcpackd-c.log")"
t_match "vcpackd, clock_ns '-5': metrics still written (VMs)" "^vcpack_vm_class" \
	"$(cat "$T_TMP/m2/vcpack.prom" 2>/dev/null)"
kill -TERM "$DPID"
wait "$DPID" 2>/dev/null

# ---- the host root (--root): /proc and /sys files as FIFOs ----
R=$T_TMP/root
cp -a "$top/tests/data/irq/two-pkg" "$R"
mkdir -p "$R/proc/77" "$R/etc/tuned" "$R/proc/self" \
	"$R/sys/devices/system/cpu"
for f in proc/interrupts proc/irq/24/smp_affinity_list proc/77/comm \
	etc/tuned/active_profile proc/self/mountinfo \
	sys/devices/system/cpu/sched_mc_power_savings; do
	rm -f "$R/$f"
	mkfifo "$R/$f"
done
for cmd in status plan metrics; do
	out=$(timeout 20 "$VCPACK" --connect "$TWO" --sample 0 --root "$R" \
		--policy "$T_TMP/policy.json" $cmd 2>&1)
	rc=$?
	t_eq "--root FIFOs: $cmd does not hang" no "$([ $rc -eq 124 ] && echo yes || echo no)"
done
"$B/vcpackd" --foreground --connect "$TWO" --socket "$T_TMP/run/r.sock" \
	--state "$T_TMP/r.state" --policy "$T_TMP/policy.json" --root "$R" \
	>"$T_TMP/vcpackd-r.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
sleep 2
kill -TERM "$DPID"
i=0
while kill -0 "$DPID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "vcpackd --root FIFOs: SIGTERM ends it within 5 s" gone \
	"$(kill -0 "$DPID" 2>/dev/null && echo running || echo gone)"

# ---- a wrong --power-root is said to be wrong, not a guest ----
out=$(timeout 20 "$VCPACK" --wide --connect "$TWO" --sample 0 \
	--power-root "$T_TMP/no-such-dir" status 2>&1)
t_eq "wrong --power-root: exit 2" 2 $?
t_match "wrong --power-root: named" "power-root '.*no-such-dir': no such directory \(a wrong --power-root" "$out"
t_nomatch "wrong --power-root: not called a guest" "guest" "$out"

out=$(timeout 20 "$VCPACK" --connect "$TWO" --sample 0 --policy "$T_TMP/policy.json" \
	--power-root "$T_TMP/no-such-dir" trial --state "$T_TMP/w.json" 2>&1)
t_eq "trial, wrong --power-root: exit 2" 2 $?
t_match "trial, wrong --power-root: named as such" \
	"power-root '.*no-such-dir': no such directory \(a wrong --power-root" "$out"
out=$(timeout 20 "$B/vcpackd" --foreground --connect "$TWO" --socket "$T_TMP/run/w.sock" \
	--state "$T_TMP/w.state" --metrics-dir "$T_TMP/m" \
	--power-root "$T_TMP/no-such-dir" 2>&1)
t_eq "vcpackd, wrong --power-root: exit 2" 2 $?
t_match "vcpackd, wrong --power-root: named as such" "Refusing --power-root '.*no-such-dir'" "$out"

# ---- garbage counters: refused and named, the total says what it lacks ----
G=$T_TMP/garbage
cp -r "$P/intel-2s" "$G"
echo 300000000000 >"$G/t1/class/powercap/intel-rapl:1/energy_uj"
j=$(timeout 20 "$VCPACK" --connect "$TWO" --sample 0 \
	--power-root "$G/t0,$G/t1" --json status 2>/dev/null)
t_eq "above range: package 1 left out" null \
	"$(echo "$j" | jq '.power.packages[1].watts.package')"
t_eq "above range: the total lacks it, named" "intel-rapl:1" \
	"$(echo "$j" | jq -r '.power.zones_lacking[].zone')"
t_match "above range: why" "energy_uj: 300000000000 is above the counter's range" \
	"$(echo "$j" | jq -r '.power.zones_lacking[].reason')"
txt=$(timeout 20 "$VCPACK" --wide --connect "$TWO" --sample 0 \
	--power-root "$G/t0,$G/t1" status 2>/dev/null)
t_match "above range, text: the total says it lacks a zone" \
	"lacking: zone intel-rapl:1 \(package-1\): .*above the counter's range" "$txt"
m=$(timeout 20 "$VCPACK" --connect "$TWO" --sample 0 \
	--power-root "$G/t0,$G/t1" metrics 2>/dev/null)
t_match "above range, metrics: the zone lacking, named" \
	'vcpack_power_zone_lacking\{zone="intel-rapl:1",name="package-1",reason=".*above the counter.s range.*"\} 1' "$m"
# reads 300 s apart on a 262 kJ counter: it may have wrapped twice
W=$T_TMP/wrap2
cp -r "$P/intel-2s" "$W"
echo 301000000000 >"$W/t1/vcpack-counters/clock_ns"
txt=$(timeout 20 "$VCPACK" --wide --connect "$TWO" --sample 0 \
	--power-root "$W/t0,$W/t1" status 2>/dev/null)
t_match "reads past the wrap time: each zone lacking, why" \
	"lacking: zone intel-rapl:1 \(package-1\): the reads are 300 s apart, longer than the counter wraps at 1000 W \(262 s\)" "$txt"
t_match "reads past the wrap time: no energy figure, why" \
	"unavailable: energy: zone intel-rapl:0: the reads are 300 s apart" "$txt"
t_nomatch "reads past the wrap time: no host total" "host: [0-9.]+ W" "$txt"
echo -5 >"$G/t1/vcpack-counters/clock_ns"
out=$(timeout 20 "$VCPACK" --wide --connect "$TWO" --sample 0 \
	--power-root "$G/t0,$G/t1" status 2>&1)
t_match "negative clock: refused, named" "clock_ns: not a clock .*'-5'" "$out"
# ---- a long trial --sample on a counter that wraps fast: capped, said ----
C=$T_TMP/cap
cp -r "$P/intel-2s/t0" "$C"
rm -f "$C/vcpack-counters/clock_ns"
for z in "$C"/class/powercap/*; do
	echo 1000000000 >"$z/max_energy_range_uj"	# 1000 J: 1 s at 1000 W
	echo '!watts 20' >"$z/energy_uj"
done
out=$(timeout 60 "$VCPACK" --connect "$TWO" --sample 0 --policy "$T_TMP/policy.json" \
	--power-root "$C" trial --rounds 2 --window 2 --settle 0 --sample 0.8 \
	--state "$T_TMP/cap.json" 2>&1)
t_eq "trial, --sample past the wrap time: runs (exit 0)" 0 $?
t_match "trial, --sample past the wrap time: capped, said" \
	"--sample 0.8 s capped at 0.5 s: the energy counter of zone intel-rapl:0 wraps in 1 s at 1000 W" "$out"
t_match "trial, --sample capped: every window measured" "window 5/5 as-found +[0-9.]+ W" "$out"

# ---- kernel mode: the level knob a FIFO under --root: apply does not hang ----
K=$T_TMP/kr
cp -r "$top/tests/data/kroot/v1" "$K"
rm -f "$K/sys/devices/system/cpu/sched_mc_power_savings"
mkfifo "$K/sys/devices/system/cpu/sched_mc_power_savings"
timeout 20 "$VCPACK" --connect "$TWO" --sample 0 --root "$K" --mode kernel \
	--policy "$T_TMP/policy.json" apply >/dev/null 2>&1
rc=$?
t_eq "kernel mode, level knob a FIFO: apply does not hang" no "$([ $rc -eq 124 ] && echo yes || echo no)"
t_done
