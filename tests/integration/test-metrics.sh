#!/bin/sh
# test-metrics.sh BUILD_DIR - `vcpack metrics` and vcpackd --metrics-dir
# on libvirt's test driver with the power counters of the fixture trees
# in tests/data/power: the output passes `promtool check metrics` and
# carries the fixtures' figures; vcpackd rewrites its textfile (by
# rename) at each sample as a test script moves the counters on.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
P=$top/tests/data/power
t_setup

if ! command -v promtool >/dev/null; then
	t_fail "promtool missing (Debian package prometheus; scripts/deps.sh installs it)"
	t_done; exit 1
fi

# val TEXT SERIES: the value of one series (name{labels} as printed)
val() { printf '%s\n' "$1" | awk -v s="$2" '$1 == s { print $2 }'; }

# ---- vcpack metrics: two-socket Intel ----
m=$("$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/intel-2s/t0,$P/intel-2s/t1" metrics 2>/dev/null)
t_eq "metrics: exit 0" 0 $?
out=$(printf '%s\n' "$m" | promtool check metrics 2>&1); t_eq "metrics: promtool check metrics" 0 $?
[ -n "$out" ] && printf '%s\n' "$out"
t_eq "energy counter" 300 "$(val "$m" 'vcpack_energy_joules_total{package="0",zone="package"}')"
t_eq "energy counter, dram of package 1" 9 "$(val "$m" 'vcpack_energy_joules_total{package="1",zone="dram"}')"
t_eq "watts" 100 "$(val "$m" 'vcpack_power_watts{package="0",zone="package"}')"
t_eq "watts across the wrap" 40 "$(val "$m" 'vcpack_power_watts{package="1",zone="package"}')"
t_eq "host watts" 154 "$(val "$m" 'vcpack_host_power_watts')"
t_eq "package C6 ratio" 0.8 "$(val "$m" 'vcpack_cstate_residency_ratio{package="0",scope="package",state="c6"}')"
t_eq "core C6 ratio" 0.3 "$(val "$m" 'vcpack_cstate_residency_ratio{package="1",scope="core",state="c6"}')"
t_eq "cpuidle seconds" 57.6 "$(val "$m" 'vcpack_cpuidle_residency_seconds_total{package="0",state="C6"}')"
t_eq "uncore hertz" 2200000000 "$(val "$m" 'vcpack_uncore_frequency_hertz{package="1"}')"
t_eq "awake packages" 1 "$(val "$m" 'vcpack_packages_awake')"
t_eq "package 0 asleep" 0 "$(val "$m" 'vcpack_package_awake{package="0"}')"
t_eq "VM class" 1 "$(val "$m" 'vcpack_vm_class{vm="batch",class="pack"}')"
t_eq "bad tag: untouched" 1 "$(val "$m" 'vcpack_vm_class{vm="badvalue",class="untouched"}')"
t_eq "vCPUs" 4 "$(val "$m" 'vcpack_vm_vcpus{vm="batch"}')"

# ---- not root: no energy sample at all (never a zero), said so ----
m=$("$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/noroot/t0,$P/noroot/t1" metrics 2>/dev/null)
printf '%s\n' "$m" | promtool check metrics >/dev/null 2>&1; t_eq "noroot: promtool" 0 $?
t_eq "noroot: energy unavailable" 0 "$(val "$m" 'vcpack_power_source_available{source="energy"}')"
t_eq "noroot: cpuidle available" 1 "$(val "$m" 'vcpack_power_source_available{source="cpuidle"}')"
t_nomatch "noroot: no energy samples" "^vcpack_(energy_joules_total|power_watts)" "$m"

# ---- a guest and the AMD host validate too ----
for c in guest amd-2s zones-change; do
	"$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/$c/t0,$P/$c/t1" metrics 2>/dev/null |
		promtool check metrics >/dev/null 2>&1
	t_eq "$c: promtool" 0 $?
done

# ---- vcpackd --metrics-dir: rewritten at each sample ----
mkdir -p "$T_TMP/run"
echo '{"sample_interval": 1}' >"$T_TMP/policy.json"
ln -s "$P/intel-2s/t0" "$T_TMP/pw"
# metricsd NAME [ARG...]: a vcpackd on the two-package test host writing
# $T_TMP/NAME/vcpack.prom (its socket, state and log named NAME too); DPID
# its pid, m the file's first content (30 s at most)
metricsd() {
	_md=$1
	shift
	mkdir -p "$T_TMP/$_md"
	"$B/vcpackd" --foreground --connect "$TWO" --socket "$T_TMP/run/$_md.sock" \
		--state "$T_TMP/$_md.state" --policy "$T_TMP/policy.json" \
		--metrics-dir "$T_TMP/$_md" "$@" >"$T_TMP/vcpackd-$_md.log" 2>&1 &
	DPID=$!
	T_PIDS="$T_PIDS $DPID"
	i=0
	until [ -s "$T_TMP/$_md/vcpack.prom" ] || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
	m=$(cat "$T_TMP/$_md/vcpack.prom" 2>/dev/null)
}
metricsd m --power-root "$T_TMP/pw"
t_match "vcpackd: wrote vcpack.prom" "^vcpack_vm_class" "$m"
promtool check metrics <"$T_TMP/m/vcpack.prom" >/dev/null 2>&1; t_eq "vcpackd: promtool" 0 $?
t_nomatch "vcpackd: no watts before time passed" "^vcpack_power_watts" "$m"
# the counters move on: 2 s later by the fixture's clock
ln -s "$P/intel-2s/t1" "$T_TMP/pw.new" && mv -T "$T_TMP/pw.new" "$T_TMP/pw"
i=0
until grep -q '^vcpack_power_watts' "$T_TMP/m/vcpack.prom" 2>/dev/null || [ $i -gt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
m=$(cat "$T_TMP/m/vcpack.prom")
t_eq "vcpackd: watts from the moved counters" 100 "$(val "$m" 'vcpack_power_watts{package="0",zone="package"}')"
t_eq "vcpackd: level of the plan" 1 "$([ -n "$(val "$m" vcpack_level)" ] && echo 1)"
promtool check metrics <"$T_TMP/m/vcpack.prom" >/dev/null 2>&1; t_eq "vcpackd: promtool after" 0 $?
t_eq "vcpackd: no temporary files left" "vcpack.prom" "$(ls "$T_TMP/m")"
out=$("$B/vcpackd" --foreground --connect "$TWO" --socket "$T_TMP/run/sock2" \
	--metrics-dir "$T_TMP/nonexistent" 2>&1)
t_eq "vcpackd: bad --metrics-dir: exit 2" 2 $?
t_match "vcpackd: bad --metrics-dir named" "metrics-dir '.*nonexistent'" "$out"
kill "$DPID" 2>/dev/null
# a simulated host without --power-root: its VMs and level, never this
# machine's counters
metricsd m3
t_match "test driver, no --power-root: the VMs" "^vcpack_vm_class" "$m"
t_nomatch "test driver, no --power-root: none of this machine's counters" \
	"^vcpack_packages_awake|^vcpack_energy|cpuidle" "$m"
kill "$DPID" 2>/dev/null
[ $FAIL -gt 0 ] && sed 's/^/  vcpackd: /' "$T_TMP/vcpackd-m.log"
t_done
