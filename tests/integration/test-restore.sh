#!/bin/sh
# test-restore.sh BUILD_DIR - `vcpack restore` on records it cannot
# restore exactly, made by hand with virsh metadata on test:///default in
# a private libvirtd (two packages of 8 CPUs, CPUs 0-15): CPUs the host
# does not have, more or fewer vCPUs than the VM has, an emulator set off
# the host. Each such VM is named with the reason, its pins and its
# record stay as they were, the others are restored, and restore exits 1.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
NS=urn:vcpack:state:1

record() { # NAME XML
	virsh -q -c "$U" metadata "$1" "$NS" --key vcpack-state --set "$2" >/dev/null
}
pins() { V --json status | jq -c ".vms[]|select(.name==\"$1\")|[.pins,.emulator]"; }
has_record() { virsh -c "$U" metadata "$1" "$NS" >/dev/null 2>&1 && echo yes || echo no; }

ok=0
for vm in offhost more fewer emu good; do dom_start "$U" $vm 2 || ok=1; done
t_eq "define and start 5 VMs of 2 vCPUs" 0 $ok
for vm in offhost more fewer emu good; do
	virsh -q -c "$U" vcpupin $vm 0 4-5 >/dev/null
	virsh -q -c "$U" vcpupin $vm 1 6 >/dev/null
done
record offhost '<original version="1"><vcpu id="0" cpuset="0-3"/><vcpu id="1" cpuset="64-65"/></original>'
record more '<original version="1"><vcpu id="0" cpuset="0-3"/><vcpu id="1" cpuset="0-3"/><vcpu id="2" cpuset="0-3"/></original>'
record fewer '<original version="1"><vcpu id="0" cpuset="0-3"/></original>'
record emu '<original version="1"><vcpu id="0" cpuset="0-3"/><vcpu id="1" cpuset="0-3"/><emulator cpuset="15-16"/></original>'
record good '<original version="1"><vcpu id="0" cpuset="0-3"/><vcpu id="1" cpuset="8-15"/></original>'
before_off=$(pins offhost); before_more=$(pins more); before_fewer=$(pins fewer); before_emu=$(pins emu)
t_eq "records in place" "yes yes yes yes yes" \
	"$(has_record offhost) $(has_record more) $(has_record fewer) $(has_record emu) $(has_record good)"

out=$(V restore 2>&1); rc=$?
t_eq "restore with bad records: exit 1" 1 $rc
t_match "offhost named with the reason" "offhost .*vCPU 1.*64-65.*not.*(online|host)" "$out"
t_match "more named with the reason" "more .*3 vCPUs.*has 2" "$out"
t_match "fewer named with the reason" "fewer .*1 vCPU.*has 2" "$out"
t_match "emu named with the reason" "emu .*emulator.*15-16" "$out"
t_match "good restored" "good +restored to its original pins" "$out"
t_eq "offhost: pins untouched" "$before_off" "$(pins offhost)"
t_eq "more: pins untouched" "$before_more" "$(pins more)"
t_eq "fewer: pins untouched" "$before_fewer" "$(pins fewer)"
t_eq "emu: pins untouched" "$before_emu" "$(pins emu)"
t_eq "bad records kept" "yes yes yes yes" \
	"$(has_record offhost) $(has_record more) $(has_record fewer) $(has_record emu)"
t_eq "good: restored exactly" '["0-3","8-15"]' "$(pins good | jq -c '.[0]')"
t_eq "good: record dropped" no "$(has_record good)"

js=$(V --json restore offhost); rc=$?
t_eq "restore one bad VM, json: exit 1" 1 $rc
t_eq "json: outcome failed, record kept" "failed true" \
	"$(echo "$js" | jq -r '.restored[0]|"\(.outcome) \(.had_record)"')"
t_match "json: the reason" "64-65" "$(echo "$js" | jq -r '.restored[0].message')"

t_done
