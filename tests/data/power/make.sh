#!/bin/sh
# make.sh - regenerate the power fixture trees in this directory (each
# CASE/t0 and CASE/t1 is a sysfs root read twice, 2 s apart in the tests).
# Values are chosen so that the figures are round; README says which.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

w() {	# w FILE VALUE
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}

# cpus ROOT NPKG NCORES NTHREADS: online, topology (Linux x86 numbering:
# thread 0 of every core of every package first, then the siblings)
cpus() {
	n=$(($2 * $3 * $4))
	w "$1/devices/system/cpu/online" "0-$(($n - 1))"
	c=0
	while [ $c -lt $n ]; do
		w "$1/devices/system/cpu/cpu$c/topology/physical_package_id" \
			$(( (c % ($2 * $3)) / $3 ))
		c=$(($c + 1))
	done
}

# idle ROOT CPU NAMES TIMES USAGES (space-separated lists, same length)
idle() {
	k=0
	set -- "$1" "$2" $3 -- $4 -- $5
	root=$1 cpu=$2
	shift 2
	names="" times="" usages=""
	while [ "$1" != -- ]; do names="$names $1"; shift; done; shift
	while [ "$1" != -- ]; do times="$times $1"; shift; done; shift
	usages="$*"
	for nm in $names; do
		t=$(echo $times | cut -d' ' -f$(($k + 1)))
		u=$(echo $usages | cut -d' ' -f$(($k + 1)))
		d="$root/devices/system/cpu/cpu$cpu/cpuidle/state$k"
		w "$d/name" "$nm"; w "$d/time" "$t"; w "$d/usage" "$u"
		k=$(($k + 1))
	done
}

zone() {	# zone ROOT ID NAME ENERGY MAX
	w "$1/class/powercap/$2/name" "$3"
	w "$1/class/powercap/$2/energy_uj" "$4"
	w "$1/class/powercap/$2/max_energy_range_uj" "$5"
}

pmu() {	# pmu ROOT NAME TYPE CPUMASK EVENT=CODE...
	r=$1 p=$2
	w "$r/bus/event_source/devices/$p/type" "$3"
	w "$r/bus/event_source/devices/$p/cpumask" "$4"
	shift 4
	for e; do
		w "$r/bus/event_source/devices/$p/events/${e%%=*}" "event=${e#*=}"
	done
}

ctr() {	# ctr ROOT PMU EVENT CPU VALUE
	w "$1/vcpack-counters/$2/$3/cpu$4" "$5"
}

uncore() {	# uncore ROOT DIR CUR MIN MAX
	d="$1/devices/system/cpu/intel_uncore_frequency/$2"
	w "$d/current_freq_khz" "$3"; w "$d/min_freq_khz" "$4"
	w "$d/max_freq_khz" "$5"
}

MAXI=262143328850
MAXA=65532610987

# ---- intel-2s: 2 packages x 4 cores x 2 threads (Sapphire Rapids-like) --
# 2 s: package 0 200 J (100 W), dram 20 J (10 W); package 1 wraps, 80 J
# (40 W), dram 8 J (4 W); host 154 W. intel-rapl-mmio:0 repeats package-0
# (ignored). TSC 2 GHz: package 0 PC2 1% PC6 80%, cores CC6 90% CC1 5%;
# package 1 PC2 5% PC6 0, cores CC6 30% CC1 20%. cpuidle: package 0 CPUs
# 95% idle (C6 85%), package 1 50% (+1% POLL). Uncore 800 / 2200 MHz.
intel() {	# intel ROOT STEP(0|1) ENERGY-OVERRIDE COUNTER-OVERRIDE
	r=$1 s=$2 eo=${3:-} co=${4:-}
	rm -rf "$r"
	cpus "$r" 2 4 2
	e() { [ -n "$eo" ] && echo "$eo" || echo "$1"; }
	v() { [ -n "$co" ] && echo "$co" || echo "$1"; }
	zone "$r" intel-rapl:0 package-0 $(e $((100000000 + s * 200000000))) $MAXI
	zone "$r" intel-rapl:0:0 dram $(e $((5000000 + s * 20000000))) $MAXI
	zone "$r" intel-rapl:1 package-1 $(e $(( s ? 50000000 : MAXI - 30000000 ))) $MAXI
	zone "$r" intel-rapl:1:0 dram $(e $((1000000 + s * 8000000))) $MAXI
	zone "$r" intel-rapl-mmio:0 package-0 $(e $((7 + s * 999000000))) $MAXI
	pmu "$r" cstate_pkg 30 0,4 c2-residency=0x00 c6-residency=0x02
	pmu "$r" cstate_core 29 0-7 c1-residency=0x00 c6-residency=0x02
	pmu "$r" msr 31 0-15 tsc=0x00
	w "$r/bus/event_source/devices/cstate_pkg/events/c6-residency.scale" "1"
	for c in 0 4; do ctr "$r" msr tsc $c $(v $((1000000000000 + s * 4000000000))); done
	ctr "$r" cstate_pkg c2-residency 0 $(v $((5000000 + s * 40000000)))
	ctr "$r" cstate_pkg c6-residency 0 $(v $((9000000 + s * 3200000000)))
	ctr "$r" cstate_pkg c2-residency 4 $(v $((7000000 + s * 200000000)))
	ctr "$r" cstate_pkg c6-residency 4 $(v 3000)
	for c in 0 1 2 3; do
		ctr "$r" cstate_core c1-residency $c $(v $((c + s * 200000000)))
		ctr "$r" cstate_core c6-residency $c $(v $((c + s * 3600000000)))
	done
	for c in 4 5 6 7; do
		ctr "$r" cstate_core c1-residency $c $(v $((c + s * 800000000)))
		ctr "$r" cstate_core c6-residency $c $(v $((c + s * 1200000000)))
	done
	for c in $(seq 0 15); do
		b=$((1000000 * c))
		if [ $(( (c % 8) / 4 )) -eq 0 ]; then
			idle "$r" $c "POLL C1 C1E C6" \
				"$b $((b + s * 100000)) $((b + s * 100000)) $((b + s * 1700000))" \
				"$c $((c + s * 50)) $((c + s * 40)) $((c + s * 30))"
		else
			idle "$r" $c "POLL C1 C1E C6" \
				"$((b + s * 20000)) $((b + s * 400000)) $((b + s * 200000)) $((b + s * 400000))" \
				"$c $((c + s * 900)) $((c + s * 500)) $((c + s * 100))"
		fi
	done
	uncore "$r" package_00_die_00 800000 800000 2500000
	uncore "$r" package_01_die_00 2200000 800000 2500000
}

# ---- amd-2s: 2 packages x 4 cores, no SMT (EPYC-like): package and core
# energy zones, no cstate PMU, no uncore directory. 2 s: package 0 120 J
# (60 W), core 80 J (40 W); package 1 60 J (30 W), core 30 J (15 W); host
# 90 W. cpuidle acpi_idle: package 0 CPUs 95% idle, package 1 30%.
amd() {
	r=$1 s=$2
	rm -rf "$r"
	cpus "$r" 2 4 1
	zone "$r" intel-rapl:0 package-0 $((40000000 + s * 120000000)) $MAXA
	zone "$r" intel-rapl:0:0 core $((30000000 + s * 80000000)) $MAXA
	zone "$r" intel-rapl:1 package-1 $((20000000 + s * 60000000)) $MAXA
	zone "$r" intel-rapl:1:0 core $((10000000 + s * 30000000)) $MAXA
	pmu "$r" msr 31 0-7 tsc=0x00
	for c in $(seq 0 7); do
		if [ $c -lt 4 ]; then
			idle "$r" $c "POLL C1 C2" "0 $((s * 100000)) $((s * 1800000))" \
				"0 $((s * 10)) $((s * 90))"
		else
			idle "$r" $c "POLL C1 C2" "0 $((s * 200000)) $((s * 400000))" \
				"0 $((s * 300)) $((s * 200))"
		fi
	done
}

# ---- guest: 1 package x 4 vCPUs, cpuidle (haltpoll) only: CPUs 50% idle
guest() {
	r=$1 s=$2
	rm -rf "$r"
	cpus "$r" 1 4 1
	for c in 0 1 2 3; do
		idle "$r" $c "POLL haltpoll" "$((s * 100000)) $((s * 1000000))" \
			"$((s * 5)) $((s * 500))"
	done
}

# ---- zones-change: package-1 appears between the reads (a hot-added
# socket), package 0's dram zone vanishes; package 0 10 W
zones() {
	r=$1 s=$2
	rm -rf "$r"
	zone "$r" intel-rapl:0 package-0 $((s * 20000000)) $MAXI
	if [ $s -eq 0 ]; then
		zone "$r" intel-rapl:0:0 dram 0 $MAXI
	else
		zone "$r" intel-rapl:1 package-1 5000000 $MAXI
	fi
}

for s in 0 1; do
	intel "$here/intel-2s/t$s" $s
	intel "$here/noroot/t$s" $s '!EACCES' '!EACCES'
	amd "$here/amd-2s/t$s" $s
	guest "$here/guest/t$s" $s
	zones "$here/zones-change/t$s" $s
done
for s in 0 1; do
	for c in intel-2s noroot amd-2s guest zones-change; do
		w "$here/$c/t$s/vcpack-counters/clock_ns" $((1000000000 + s * 2000000000))
	done
done
