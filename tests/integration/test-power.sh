#!/bin/sh
# test-power.sh BUILD_DIR - `vcpack status` (text and --json) with the
# power counters read from the fixture trees of tests/data/power (two
# moments t0, t1, 2 s apart by the fixtures' clock) on libvirt's test
# driver: measured watts, C-state residency, uncore, awake by the figures,
# and a plain line for each figure that is unavailable, and why.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
P=$top/tests/data/power
t_setup

st() {	# st CASE [ARGS]: status --json on CASE/t0,CASE/t1
	c=$1; shift
	"$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/$c/t0,$P/$c/t1" \
		"$@" --json status 2>/dev/null
}

# ---- two-socket Intel ----
j=$(st intel-2s); t_eq "intel: exit 0" 0 $?
t_eq "intel: measured" true "$(echo "$j" | jq .power.measured)"
t_eq "intel: interval 2 s" 2 "$(echo "$j" | jq .power.interval_s)"
t_eq "intel: package watts" "100 40" "$(echo "$j" | jq -r '[.power.packages[].watts.package]|join(" ")')"
t_eq "intel: dram watts" "10 4" "$(echo "$j" | jq -r '[.power.packages[].watts.dram]|join(" ")')"
t_eq "intel: host watts" 154 "$(echo "$j" | jq .power.host_watts)"
t_eq "intel: package 0 PC6" 0.8 "$(echo "$j" | jq '.power.packages[0].package_cstates.c6')"
t_eq "intel: package 1 core C6" 0.3 "$(echo "$j" | jq '.power.packages[1].core_cstates.c6')"
t_eq "intel: uncore MHz" "800 2200" "$(echo "$j" | jq -r '[.power.packages[].uncore_mhz]|join(" ")')"
t_eq "intel: awake by figures" "false true" "$(echo "$j" | jq -r '[.power.packages[].awake]|map(tostring)|join(" ")')"
t_eq "intel: awake_by" "package C-states" "$(echo "$j" | jq -r '.power.packages[0].awake_by')"
t_eq "intel: awake packages" 1 "$(echo "$j" | jq .power.awake_packages)"
t_eq "intel: nothing unavailable" 0 "$(echo "$j" | jq '.power.unavailable|length')"
t_eq "intel: the rest of status unchanged" 2 "$(echo "$j" | jq '.packages|length')"
txt=$("$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/intel-2s/t0,$P/intel-2s/t1" status 2>/dev/null)
t_match "intel text: interval stated" "^power: +measured over 2.00 s" "$txt"
t_match "intel text: package 0 asleep" "package 0: asleep by package C-states" "$txt"
t_match "intel text: energy" "energy: +package 100.0 W, dram 10.0 W" "$txt"
t_match "intel text: C-states" "C-states: package C2 1.0%, C6 80.0%; core C1 5.0%, C6 90.0%" "$txt"
t_match "intel text: host" "host: 154.0 W" "$txt"

# ---- two-socket AMD: package and core energy, no cstate PMU ----
j=$(st amd-2s)
t_eq "amd: package watts" "60 30" "$(echo "$j" | jq -r '[.power.packages[].watts.package]|join(" ")')"
t_eq "amd: core watts" "40 15" "$(echo "$j" | jq -r '[.power.packages[].watts.core]|join(" ")')"
t_eq "amd: host" 90 "$(echo "$j" | jq .power.host_watts)"
t_eq "amd: awake by cpuidle" "cpuidle cpuidle" "$(echo "$j" | jq -r '[.power.packages[].awake_by]|join(" ")')"
t_eq "amd: no uncore" null "$(echo "$j" | jq .power.packages[0].uncore_mhz)"
t_eq "amd: residency unavailable" residency "$(echo "$j" | jq -r '.power.unavailable[].source')"
t_match "amd: why" "no cstate PMU" "$(echo "$j" | jq -r '.power.unavailable[0].reason')"

# ---- not root ----
j=$(st noroot)
t_eq "noroot: no watts" "null" "$(echo "$j" | jq .power.host_watts)"
t_eq "noroot: two unavailable" "energy residency" "$(echo "$j" | jq -r '[.power.unavailable[].source]|join(" ")')"
txt=$("$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/noroot/t0,$P/noroot/t1" status 2>/dev/null)
t_match "noroot text: energy not root" "unavailable: energy: not root" "$txt"
t_match "noroot text: residency not root" "unavailable: C-state residency: not root" "$txt"
t_nomatch "noroot text: no watts shown" "energy: +package" "$txt"

# ---- a guest: cpuidle only ----
txt=$("$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/guest/t0,$P/guest/t1" status 2>/dev/null)
t_match "guest: no powercap said" "unavailable: energy: no powercap" "$txt"
t_match "guest: cpuidle" "least idle CPU 50.0% idle" "$txt"

# ---- zones changing between the reads ----
j=$(st zones-change)
t_eq "zones-change: counted" 2 "$(echo "$j" | jq .power.zones_changed)"
t_eq "zones-change: host from what stayed" 10 "$(echo "$j" | jq .power.host_watts)"

# ---- the test driver without --power-root: not this machine's counters
j=$("$VCPACK" --connect "$TWO" --sample 0 --json status 2>/dev/null)
t_eq "test driver: not measured" false "$(echo "$j" | jq .power.measured)"
t_match "test driver: why" "simulated host" "$(echo "$j" | jq -r .power.reason)"
j=$(VCPACK_POWER_ROOT="$P/amd-2s/t0,$P/amd-2s/t1" "$VCPACK" --connect "$TWO" --sample 0 --json status 2>/dev/null)
t_eq "VCPACK_POWER_ROOT: read" 90 "$(echo "$j" | jq .power.host_watts)"

# ---- bad --power-root: exit 2, named ----
out=$("$VCPACK" --connect "$TWO" --sample 0 --power-root "a,b,c" status 2>&1)
t_eq "bad --power-root: exit 2" 2 $?
t_match "bad --power-root named" "power-root 'a,b,c'" "$out"

t_done
