#!/bin/sh
# test-reserved.sh BUILD_DIR - the policy's reserved_cpus through the real
# `vcpack plan --json` on libvirt's test driver (two packages x 4 cores x
# 2 threads, CPUs 0-15): no VM the plan manages is pinned to a reserved
# CPU, exclusive cores start at the first unreserved core, a package
# reserved whole is never active, and a CPU the host lacks is refused by
# name. Plans only: nothing is applied.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
t_setup

# Expand cpulists ("0-2,8" ...) given as arguments into one CPU a line.
expand() {
	printf '%s\n' "$@" | tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 }
		NF == 2 { for (i = $1; i <= $2; i++) print i }'
}

# CPUs any managed VM of plan JSON $1 is pinned to (vCPUs and emulator).
planned_cpus() {
	expand $(echo "$1" | jq -r '.plan.vms[]|select(.placement != "unmanaged")|(.vcpus[], .emulator)') | sort -nu
}

# (p, p0 and p1 resolve to level 0 on this host, which is hands off
# unless exclusive_cores asks for the spread VM's cores: with it the other
# VMs are re-pinned off them, and reserved CPUs must hold there too)
for res in "0,8" "0,4,8,12" "0-1,8-9" "0-3,8-11"; do
	echo "{\"reserved_cpus\": \"$res\", \"default_vcpu_demand\": 0.15, \"exclusive_cores\": true}" >"$T_TMP/p.json"
	for lvl in 0 1 2; do
		echo "{\"reserved_cpus\": \"$res\", \"level\": $lvl, \"exclusive_cores\": true}" >"$T_TMP/p$lvl.json"
	done
	echo "{\"reserved_cpus\": \"$res\", \"level\": 0}" >"$T_TMP/h0.json"
	pl=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/h0.json" --json plan 2>/dev/null)
	t_eq "reserved $res, level 0: hands off (nothing pinned, no action)" "unmanaged 0" \
		"$(echo "$pl" | jq -r '"\([.plan.vms[].placement]|unique|join(" ")) \(.actions|length)"')"
	for p in p p0 p1 p2; do
		pl=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/$p.json" --json plan 2>/dev/null)
		t_eq "reserved $res ($p): plan exit 0" 0 $?
		t_match "reserved $res ($p): VMs are pinned somewhere" "^[0-9]+$" \
			"$(planned_cpus "$pl" | head -1)"
		got=$(planned_cpus "$pl" | grep -Fx "$(expand "$res")" | paste -sd, -)
		t_eq "reserved $res ($p): no managed VM pinned to a reserved CPU" "" "$got"
		t_eq "reserved $res ($p): plan.reserved_cpus" "$res" \
			"$(echo "$pl" | jq -r .plan.reserved_cpus)"
	done
done

# Exclusive cores start at the first unreserved core (the spread VM
# 'latency' has 1 vCPU; core 0 = CPUs 0 and 8).
echo '{"exclusive_cores": true}' >"$T_TMP/x.json"
pl=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/x.json" --json plan 2>/dev/null)
t_eq "no reservation: exclusive core is CPU 0's" "0,8" \
	"$(echo "$pl" | jq -r '.plan.vms[]|select(.name=="latency")|.vcpus[0]')"
t_eq "no reservation: no reserved_cpus key" null "$(echo "$pl" | jq -r .plan.reserved_cpus)"
echo '{"reserved_cpus": "0,8", "exclusive_cores": true}' >"$T_TMP/r.json"
pl=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/r.json" --json plan 2>/dev/null)
t_eq "reserved 0,8: exclusive core starts at the next core" "1,9" \
	"$(echo "$pl" | jq -r '.plan.vms[]|select(.name=="latency")|.vcpus[0]')"

# A whole package reserved: never active, counted apart.
echo '{"reserved_cpus": "0-3,8-11", "exclusive_cores": true}' >"$T_TMP/pkg.json"
pl=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/pkg.json" --json plan 2>/dev/null)
t_eq "reserved package: inactive" false "$(echo "$pl" | jq '.plan.packages[0].active')"
t_eq "reserved package: counted" 1 "$(echo "$pl" | jq '.plan.reserved_packages')"
t_eq "reserved package: one active" 1 "$(echo "$pl" | jq '.plan.active')"
t_eq "reserved package: awake for the host in the planned map" "true true" \
	"$(echo "$pl" | jq -r '.planned[0]|"\(.awake) \(.reserved)"')"
t_eq "reserved package: no other package marked reserved" null \
	"$(echo "$pl" | jq -r '.planned[1].reserved')"
txt=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/pkg.json" plan 2>/dev/null)
t_match "reserved package: said in text" "reserved for the host: CPUs 0-3,8-11 \(1 whole package" "$txt"
t_match "reserved package: planned map says why it stays awake" "package 0 .* awake .*\(reserved for the host\)$" "$txt"

# Refusals name the CPU or the list; nothing planned.
echo '{"reserved_cpus": "0,99"}' >"$T_TMP/bad.json"
out=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/bad.json" --json plan 2>&1)
t_eq "missing CPU: refused (exit 2, like a bad policy)" 2 $?
t_match "missing CPU: named" "reserved_cpus: CPU 99 does not exist on this host \(it has CPUs 0-15\)" "$out"
echo '{"reserved_cpus": "0-15"}' >"$T_TMP/all.json"
out=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/all.json" plan 2>&1)
t_eq "every CPU: refused (exit 2)" 2 $?
t_match "every CPU: said" "reserved_cpus: '0-15' leaves no online CPU for VMs" "$out"
echo '{"reserved_cpus": "0-x"}' >"$T_TMP/syn.json"
out=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/syn.json" plan 2>&1)
t_eq "bad list: exit 2" 2 $?
t_match "bad list: key named" "reserved_cpus: must be a CPU list" "$out"
t_done
