#!/bin/sh
# test-roundtrip.sh BUILD_DIR - tag -> plan -> apply -> status -> restore
# as separate `vcpack` processes on one shared libvirt state:
# test:///default inside a private libvirtd (test+unix://), whose host has
# two packages of 8 CPUs. Checks that restore puts every VM back exactly.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
# level 2: every managed VM gathered, so the plan idles a package (auto
# would pick 1, where in pin mode the balanced VM 'test' left free keeps
# both packages awake and nothing is gathered)
t_policy '{"level": 2}'

dom_start "$U" lowvm 4 "priority='low'" && dom_start "$U" hivm 2 "priority='high'" &&
	dom_start "$U" plain 2 && t_pass "define and start VMs" || t_fail "define VMs"
virsh -q -c "$U" vcpupin plain 1 2-5 >/dev/null

orig=$(V --json status | jq -c '[.vms[]|{name,pins,emulator}]')
t_eq "status lists 4 VMs" 4 "$(echo "$orig" | jq length)"
t_eq "plain's hand-made pin is seen" '"2-5"' "$(echo "$orig" | jq -c '.[]|select(.name=="plain")|.pins[1]')"

# tag: live and persistent
out=$(V tag plain --priority low); t_eq "tag: exit 0" 0 $?
t_match "tag: live metadata" 'consolidation priority="low"' \
	"$(virsh -c "$U" metadata plain urn:vcpack:metadata:1)"
t_match "tag: persistent metadata" 'priority="low"' \
	"$(virsh -c "$U" dumpxml --inactive plain | grep consolidation)"
t_eq "tag: class seen by status" pack \
	"$(V --json status | jq -r '.vms[]|select(.name=="plain")|.class')"

pl=$(V --json plan)
t_eq "plan: level 2" 2 "$(echo "$pl" | jq .plan.level)"
t_eq "plan: one package active, as the planned map shows" "1 1" \
	"$(echo "$pl" | jq -r '"\(.plan.active) \([.planned[]|select(.awake)]|length)"')"
t_eq "plan changed nothing" "$orig" "$(V --json status | jq -c '[.vms[]|{name,pins,emulator}]')"

ap=$(V --json apply); t_eq "apply: exit 0" 0 $?
t_eq "apply: nothing failed" 0 "$(echo "$ap" | jq '[.actions[]|select(.outcome!="done")]|length')"
now=$(V --json status)
for vm in lowvm hivm plain; do
	t_eq "status after apply: '$vm' pinned as planned" \
		"$(echo "$pl" | jq -c ".plan.vms[]|select(.name==\"$vm\")|.vcpus")" \
		"$(echo "$now" | jq -c ".vms[]|select(.name==\"$vm\")|.pins")"
done
t_eq "pack VMs share one package" 1 \
	"$(echo "$pl" | jq '[.plan.vms[]|select(.class=="pack")|.package]|unique|length')"
t_match "original pins recorded in the VM's metadata" '<original' \
	"$(virsh -c "$U" metadata plain urn:vcpack:state:1)"
t_match "recorded original keeps the hand-made pin" 'id="1" cpuset="2-5"' \
	"$(virsh -c "$U" metadata plain urn:vcpack:state:1)"
t_eq "re-apply on an unchanged host changes nothing" 0 "$(V --json apply | jq '.actions|length')"

# a bad tag leaves that VM untouched
virsh -q -c "$U" metadata hivm urn:vcpack:metadata:1 --key vcpack \
	--set "<consolidation class='fast'/>" >/dev/null
before=$(V --json status | jq -c '.vms[]|select(.name=="hivm")|.pins')
out=$(V apply 2>&1); t_eq "apply with a bad tag elsewhere: exit 0" 0 $?
t_match "bad tag reported by name" "'hivm'.*class 'fast'" "$out"
t_eq "bad-tag VM left as it was" "$before" \
	"$(V --json status | jq -c '.vms[]|select(.name=="hivm")|.pins')"

# restore
out=$(V restore nosuchvm 2>&1); t_eq "restore unknown VM: exit 2" 2 $?
t_match "restore unknown VM named" "nosuchvm" "$out"
rs=$(V --json restore); t_eq "restore: exit 0" 0 $?
t_eq "restore: records found for the changed VMs (test is balanced: free, re-pinned too)" "hivm lowvm plain test" \
	"$(echo "$rs" | jq -r '[.restored[]|select(.had_record)|.vm]|sort|join(" ")')"
t_eq "restore: every VM back exactly" "$orig" "$(V --json status | jq -c '[.vms[]|{name,pins,emulator}]')"
t_eq "restore: record dropped" "" "$(virsh -c "$U" metadata plain urn:vcpack:state:1 2>/dev/null)"
rs=$(V --json restore lowvm)
t_eq "restore again: nothing recorded" false "$(echo "$rs" | jq '.restored[0].had_record')"

t_done
