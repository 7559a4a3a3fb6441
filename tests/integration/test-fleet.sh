#!/bin/sh
# test-fleet.sh BUILD_DIR - `vcpack fleet` across several real libvirt
# daemons on this machine: three private libvirtds running the test
# driver (each its own socket, reached as test+unix:///default?socket=),
# plus a host whose socket does not exist and, mid-run, a daemon that is
# stopped (SIGSTOP) so that it never answers. Status, tag and plan run
# across them; one host failing never stops the others. Every daemon is
# stopped by its pid on exit.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack

DOM_MEM=131072

t_test_libvirtd h1 h2 h3
dom_start "$U_h1" web 2 "priority='high'" && dom_start "$U_h1" batch 2 "priority='low'" &&
	dom_start "$U_h2" db 4 "class='pack'" && dom_start "$U_h3" ci 1 &&
	# the test driver's own "test" VM takes 2 of the host's 3 GiB: only
	# h1 keeps it, so that the others have memory to receive VMs
	virsh -q -c "$U_h2" destroy test >/dev/null &&
	virsh -q -c "$U_h3" destroy test >/dev/null &&
	t_pass "VMs defined and started on three hosts" || t_fail "define VMs"

cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [
  {"uri": "$U_h1", "name": "h1", "group": "rack1"},
  {"uri": "$U_h2", "name": "h2", "group": "rack1"},
  {"uri": "$U_h3", "name": "h3", "group": "rack2"},
  {"uri": "test+unix:///default?socket=$T_TMP/nosuch.sock", "name": "h4"}],
 "defaults": {"concurrency": 2, "timeout": 5, "package_watts": 50}}
JSON
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" "$@"; }

# ---- refusals before anything is contacted ----
echo '{"hosts": [{"uri": "qemu:///system", "colour": "red"}]}' >"$T_TMP/bad.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/bad.json" status 2>&1)
t_eq "bad fleet file: exit 2" 2 $?
t_match "bad fleet file: key path named" "hosts\[0\]\.colour: unknown key" "$out"
out=$(F tag --match 'colour=red' --class pack 2>&1)
t_eq "bad rule: exit 2" 2 $?
t_match "bad rule: key named" "unknown key 'colour'" "$out"
out=$(F frob 2>&1); t_eq "unknown fleet command: exit 2" 2 $?

# ---- status ----
st=$(F --json status 2>/dev/null); rc=$?
t_eq "status: exit 1 (one host unreachable)" 1 $rc
t_eq "status: four hosts listed" 4 "$(echo "$st" | jq '.hosts|length')"
t_eq "status: three reachable" 3 "$(echo "$st" | jq '.totals.reachable')"
t_eq "status: h4 unreachable" false "$(echo "$st" | jq '.hosts[3].reachable')"
t_match "status: h4's error names the socket" "nosuch.sock" "$(echo "$st" | jq -r '.hosts[3].error')"
t_eq "status: h1 classes (test+web+batch)" '{"spread":1,"balanced":1,"pack":1,"untouched":0}' \
	"$(echo "$st" | jq -c '.hosts[0].vms')"
t_eq "status: h2 has db (pack)" '{"spread":0,"balanced":0,"pack":1,"untouched":0}' \
	"$(echo "$st" | jq -c '.hosts[1].vms')"
t_eq "status: packages per host" "2 2 2" \
	"$(echo "$st" | jq -r '[.hosts[0:3][].packages]|map(tostring)|join(" ")')"
t_eq "status: unpinned VMs keep every package awake" "6 0" \
	"$(echo "$st" | jq -r '"\(.totals.awake) \(.totals.asleep)"')"
t_eq "status: mode pin on the test driver (nothing recorded yet)" "pin pin pin" \
	"$(echo "$st" | jq -r '[.hosts[0:3][].mode]|join(" ")')"
# a host's vcpackd records mode and level in its VMs: fleet status shows it
virsh -q -c "$U_h2" metadata db urn:vcpack:host:1 --key vcpack-host \
	--set '<host mode="kernel" level="2" at="1796280062"/>' --live >/dev/null
st=$(F --json status 2>/dev/null)
t_eq "status: mode and level as h2's vcpackd recorded them" "kernel 2 1796280062" \
	"$(echo "$st" | jq -r '.hosts[1]|"\(.mode) \(.level) \(.recorded_at)"')"
t_eq "status: no record, no level" null "$(echo "$st" | jq -r '.hosts[2].level')"
txt=$(F status 2>&1)
t_match "status text: unreachable host shown" "h4 +unreachable" "$txt"
t_match "status text: fleet totals" "fleet: 4 hosts, 3 reachable" "$txt"

# a daemon that stops answering mid-run: reported, the rest still report
kill -STOP "$PID_h3"
st=$(F --json --timeout 2 status 2>/dev/null)
kill -CONT "$PID_h3"
t_eq "stopped daemon: reported unreachable" false "$(echo "$st" | jq '.hosts[2].reachable')"
t_eq "stopped daemon: says it timed out" "no answer within 2 s" "$(echo "$st" | jq -r '.hosts[2].error')"
t_eq "stopped daemon: the others still report" "true true" \
	"$(echo "$st" | jq -r '[.hosts[0:2][].reachable]|map(tostring)|join(" ")')"

# ---- tag ----
dr=$(F --json tag --match 'host=h1,name=b*' --class pack --dry-run 2>/dev/null)
t_eq "tag dry run: one VM matches" 1 "$(echo "$dr" | jq .matched)"
t_eq "tag dry run: lists it" "h1/batch/would tag" \
	"$(echo "$dr" | jq -r '[.results[]|select(.vm)|"\(.host)/\(.vm)/\(.outcome)"]|join(" ")')"
t_match "tag dry run: nothing written" "priority=\"low\"" \
	"$(virsh -c "$U_h1" metadata batch urn:vcpack:metadata:1)"
tg=$(F --json tag --match 'tagged=no' --priority low 2>/dev/null); rc=$?
t_eq "tag: exit 1 (h4 unreachable)" 1 $rc
t_eq "tag: every untagged VM tagged" "h1/test h3/ci" \
	"$(echo "$tg" | jq -r '[.results[]|select(.outcome=="tagged")|"\(.host)/\(.vm)"]|sort|join(" ")')"
t_eq "tag: the unreachable host listed as a failure" "h4:unreachable" \
	"$(echo "$tg" | jq -r '[.results[]|select(.outcome!="tagged")|"\(.host):\(.outcome)"]|join(" ")')"
t_match "tag: written live on h3" 'priority="low"' "$(virsh -c "$U_h3" metadata ci urn:vcpack:metadata:1)"
t_match "tag: written persistent on h3" 'priority="low"' \
	"$(virsh -c "$U_h3" dumpxml --inactive ci | grep consolidation)"
t_eq "tag: tagged VMs left out of a second run" 0 \
	"$(F --json tag --match 'tagged=no' --priority low 2>/dev/null | jq .matched)"

# ---- plan ----
pl=$(F --json --sample 0 plan 2>/dev/null); rc=$?
t_eq "plan: exit 1 (h4 unreachable)" 1 $rc
t_eq "plan: h4 unreachable" "unreachable" "$(echo "$pl" | jq -r '.hosts[3].kept')"
t_eq "plan: deterministic" "$pl" "$(F --json --sample 0 plan 2>/dev/null)"
# h1 keeps its spread VM and is the best fit (least room left) for
# the others: h3 (ci, least demand) and then h2 (db) empty into it
t_eq "plan: h2 and h3 emptied" "h2 h3" "$(echo "$pl" | jq -r '[.hosts[]|select(.emptied)|.name]|join(" ")')"
t_eq "plan: ci then db move to h1" "ci:h3->h1 db:h2->h1" \
	"$(echo "$pl" | jq -r '[.moves[]|"\(.vm):\(.from)->\(.to)"]|join(" ")')"
t_eq "plan: packages the host planner keeps awake: 3 before, 1 after" "3 1" \
	"$(echo "$pl" | jq -r '"\(.awake_before) \(.awake_after)"')"
t_eq "plan: h1 keeps its spread VM (and receives)" "has a spread VM (move_spread is off)" \
	"$(echo "$pl" | jq -r '.hosts[0].kept')"
t_eq "plan: every move leaves an emptied host" true \
	"$(echo "$pl" | jq '[.moves[].from] - [.hosts[]|select(.emptied)|.name] == []')"
t_eq "plan: nothing moves to an emptied host" true \
	"$(echo "$pl" | jq '[.moves[].to] - ([.moves[].to] - [.hosts[]|select(.emptied)|.name]) == []')"
t_eq "plan: changed nothing" "ci" "$(virsh -q -c "$U_h3" list --name | grep -x ci)"
txt=$(F --sample 0 plan 2>&1)
t_match "plan text: migrations listed" "migrations \(in this order; plan changes nothing\)" "$txt"
t_match "plan text: totals" "2 hosts could be emptied and sleep" "$txt"
t_eq "plan: no standby advice without a \"standby\" object" false "$(echo "$pl" | jq 'has("standby")')"

# ---- host filters: --match host=/group= before any host is contacted ----
kill -STOP "$PID_h3"	# contacted, it would time out and fail the run
st=$(F --json --timeout 2 status --match 'group=rack1' 2>/dev/null); rc=$?
kill -CONT "$PID_h3"
t_eq "status --match group=rack1: exit 0 (h3, h4 never contacted)" 0 $rc
t_eq "status --match group=rack1: only h1 h2" "h1 h2" "$(echo "$st" | jq -r '[.hosts[].name]|join(" ")')"
kill -STOP "$PID_h3"
tg=$(F --json --timeout 2 tag --match 'host=h1,name=web' --priority high --dry-run 2>/dev/null); rc=$?
kill -CONT "$PID_h3"
t_eq "tag --match host=h1: exit 0 (the stopped h3 not contacted)" 0 $rc
t_eq "tag --match host=h1: the VM found" "h1/web" \
	"$(echo "$tg" | jq -r '[.results[]|"\(.host)/\(.vm)"]|join(" ")')"
pl=$(F --json --sample 0 plan --match 'host=h[12]' 2>/dev/null); rc=$?
t_eq "plan --match: exit 0" 0 $rc
t_eq "plan --match host=h[12]: db moves from h2 to h1, among them only" "db:h2->h1" \
	"$(echo "$pl" | jq -r '[.moves[]|"\(.vm):\(.from)->\(.to)"]|join(" ")')"
out=$(F status --match 'name=web' 2>&1); rc=$?
t_eq "status --match with a VM key: exit 2" 2 $rc
t_match "status --match with a VM key: said so" "'name' selects VMs; fleet status selects hosts" "$out"
out=$(F status --match 'host=nosuch' 2>&1); rc=$?
t_eq "no host matches: exit 2" 2 $rc
t_match "no host matches: said so" "no host of the fleet file matches" "$out"

# ---- unreachable hosts in --json: null figures, the error ----
st=$(F --json status --match host=h4 2>/dev/null)
t_eq "status: h4's figures null, not 0" "null null null null" \
	"$(echo "$st" | jq -r '.hosts[0]|"\(.hostname) \(.packages) \(.awake) \(.vms)"')"
pl=$(F --json --sample 0 plan 2>/dev/null)
t_eq "plan: h4 unreachable, its figures null" "false null null null" \
	"$(echo "$pl" | jq -r '.hosts[3]|"\(.reachable) \(.packages) \(.capacity) \(.emptied)"')"
t_match "plan: h4's error names the socket" "nosuch.sock" "$(echo "$pl" | jq -r '.hosts[3].error')"
t_eq "plan: reachable hosts say so, no error" "true:null true:null true:null" \
	"$(echo "$pl" | jq -r '[.hosts[0:3][]|"\(.reachable):\(.error)"]|join(" ")')"

# ---- plan: standby advice (issue 14) ----
jq '. + {"standby": {"min_spare_hosts": 0,
	"host_defaults": {"action": "libvirt-suspend"},
	"hosts": {"h1": {"stay_on": true}}}}' "$T_TMP/fleet.json" >"$T_TMP/fleet-sb.json"
sb=$("$VCPACK" fleet --hosts "$T_TMP/fleet-sb.json" --json --sample 0 plan 2>/dev/null); rc=$?
t_eq "plan standby: exit 1 (h4 unreachable)" 1 $rc
t_eq "plan standby: why each host stays on" "h1:stay_on h2:null h3:null h4:unreachable" \
	"$(echo "$sb" | jq -r '[.standby.hosts[]|"\(.name):\(.why)"]|join(" ")')"
t_eq "plan standby: the lightest (h3) drained first, its guest to h1" "h3 ci:h3->h1" \
	"$(echo "$sb" | jq -r '.standby.drain + " " + ([.standby.moves[]|"\(.vm):\(.from)->\(.to)"]|join(" "))')"
t_eq "plan standby: nothing put in standby or woken yet" "null 0" \
	"$(echo "$sb" | jq -r '"\(.standby.standby) \(.standby.wake|length)"')"
txt=$("$VCPACK" fleet --hosts "$T_TMP/fleet-sb.json" --sample 0 plan 2>&1)
t_match "plan standby text: advice said so" "standby \(advice, as if demand had stayed so for the hold times; nothing is done\)" "$txt"
t_match "plan standby text: h1 stays on" "stays on: h1 +stay_on" "$txt"
t_eq "plan standby: changed nothing" "ci" "$(virsh -q -c "$U_h3" list --name | grep -x ci)"
echo '{"hosts": [{"uri": "qemu:///system", "name": "a"}], "standby": {"hosts": {"b": {}}}}' >"$T_TMP/bad-sb.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/bad-sb.json" plan 2>&1)
t_eq "bad standby object: exit 2" 2 $?
t_match "bad standby object: key path named" "standby\.hosts\.b: no host of that name" "$(t_unfold "$out")"
out=$("$VCPACK" fleet --hosts "$T_TMP/fleet-sb.json" plan --match host=h1 2>&1)
t_eq "plan --match with a standby object: exit 2" 2 $?
t_match "plan --match with a standby object: said why" "standby advice is for the whole fleet" "$out"

t_done
