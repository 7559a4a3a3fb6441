#!/bin/sh
# test-numatune.sh BUILD_DIR - memory follows the vCPUs, on test:///default
# in a private libvirtd (two packages of 8 CPUs on two NUMA nodes): a pack
# VM in strict numatune mode with its memory on node 1 is gathered onto
# package 0, and apply moves its nodeset to node 0 live (the record keeps
# node 1); a VM in preferred mode keeps its memory, and plan and explain
# say why; the policy's memory_follows false moves none; restore puts the
# nodeset back; a record naming a node the host
# does not have is refused naming the VM, and kept.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
t_policy '{"level": 2}'
NS=urn:vcpack:state:1

mkdom() { # NAME MODE NODESET: one vCPU, tagged pack
	dom_start "$U" "$1" 1 "" \
		"<numatune><memory mode='$2' nodeset='$3'/></numatune>" &&
		V tag "$1" --class pack >/dev/null
}
nodeset() { virsh -c "$U" numatune "$1" | sed -n 's/^numa_nodeset *: *//p'; }
has_record() { virsh -c "$U" metadata "$1" "$NS" >/dev/null 2>&1 && echo yes || echo no; }

ok=0
mkdom strictvm strict 1 || ok=1
mkdom prefvm preferred 1 || ok=1
t_eq "define and start two tagged VMs" 0 $ok
t_eq "nodesets as defined" "1 1" "$(nodeset strictvm) $(nodeset prefvm)"

out=$(V plan 2>&1)
t_match "plan: strictvm's memory moves to node 0" "set-memory +strictvm +memory nodes 1 -> 0" "$out"
t_match "plan: prefvm's memory stays, and why" "memory stays: 'prefvm' \(planned node 0\): its numatune mode is preferred" "$out"
t_match "plan: one line for the VM without numatune" "memory stays: 1 VM planned on one node has no <numatune><memory>" "$out"
t_eq "plan: the memory lines within 100 columns" "" \
	"$(echo "$out" | sed -n '/^  memory stays/,/^  [^ ]/p' | awk 'length > 100')"
js=$(V --json plan)
t_eq "plan json: memory per VM (the driver's own 'test' has no numatune)" \
	'[["prefvm","cannot"],["strictvm","moves"],["test","cannot"]]' \
	"$(echo "$js" | jq -c '[.memory[]|[.vm,.memory]]|sort')"
t_match "plan json: why not for 'test'" "no <numatune><memory>" \
	"$(echo "$js" | jq -r '.memory[]|select(.vm=="test").reason')"

echo '{"level": 2, "memory_follows": false}' >"$T_TMP/off.json"
out=$(t_vcpack --policy "$T_TMP/off.json" plan 2>&1)
t_nomatch "memory_follows false: no move planned" "set-memory|memory stays" "$out"

out=$(V apply 2>&1); rc=$?
t_eq "apply: exit 0" 0 $rc
t_match "apply: the move is done" "set-memory +strictvm .*\[done\]" "$out"
t_eq "strictvm's memory on node 0, prefvm's where it was" "0 1" \
	"$(nodeset strictvm) $(nodeset prefvm)"
t_eq "status json: mode and nodes" "strict 0 preferred 1" \
	"$(V --json status | jq -r '[.vms[]|select(.name=="strictvm" or .name=="prefvm")|"\(.memory_mode) \(.memory_nodes)"]|sort|reverse|join(" ")')"
t_match "the record keeps the original nodeset" '<memory nodeset="1"/>' \
	"$(virsh -c "$U" metadata strictvm "$NS")"
js=$(V --json explain strictvm)
t_eq "explain: strictvm's memory is there" "there 0" \
	"$(echo "$js" | jq -r '"\(.memory) \(.memory_node)"')"
out=$(V explain prefvm)
t_match "explain: prefvm's memory cannot follow" "memory: +cannot: its numatune mode is preferred" "$out"
out=$(V plan 2>&1)
t_nomatch "a second plan moves nothing" "set-memory" "$out"

out=$(V restore strictvm 2>&1); rc=$?
t_eq "restore: exit 0" 0 $rc
t_eq "restore: the nodeset back on node 1" 1 "$(nodeset strictvm)"
t_eq "restore: record dropped" no "$(has_record strictvm)"

virsh -q -c "$U" metadata strictvm "$NS" --key vcpack-state --set \
	'<original version="1"><vcpu id="0" cpuset="0-15"/><memory nodeset="5"/></original>' >/dev/null
out=$(V restore strictvm 2>&1); rc=$?
t_eq "restore of a record naming node 5: exit 1" 1 $rc
t_match "named with the reason" "strictvm .*memory nodes 5 are not all on this host \(nodes: 0-1\)" "$out"
t_eq "its nodeset untouched, record kept" "1 yes" "$(nodeset strictvm) $(has_record strictvm)"

t_done
