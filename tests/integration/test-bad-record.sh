#!/bin/sh
# test-bad-record.sh BUILD_DIR - a VM whose record of its original pins
# (urn:vcpack:state:1) cannot be read, on test:///default in a private
# libvirtd: apply, vcpackd and the plan leave it exactly as it is and
# say why, naming 'vcpack restore --forget'; restore refuses the record
# and keeps it; restore --forget drops it and leaves the pins; the next
# apply records the pins it found and restore puts them back.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
NS=urn:vcpack:state:1
t_policy '{"level": 2}'

pins() { V --json status 2>/dev/null | jq -c ".vms[]|select(.name==\"$1\")|.pins"; }
has_record() { virsh -c "$U" metadata "$1" "$NS" >/dev/null 2>&1 && echo yes || echo no; }
pin356() {
	virsh -q -c "$U" vcpupin "$1" 0 3 >/dev/null &&
		virsh -q -c "$U" vcpupin "$1" 1 5 >/dev/null &&
		virsh -q -c "$U" vcpupin "$1" 2 6 >/dev/null
}

dom_start "$U" lost 3 "priority='low'" || t_fail "define and start lost"
pin356 lost
virsh -q -c "$U" metadata lost "$NS" --key vcpack-state \
	--set '<original version="1"><vcpu id="0" cpuset="zz"/></original>' >/dev/null
P356='["3","5","6"]'
t_eq "lost: pinned 3/5/6 with a garbage record" "$P356 yes" \
	"$(pins lost) $(has_record lost)"

# plan, status, explain and list say why it is left alone
out=$(V plan 2>&1)
t_match "plan: lost named, record unreadable, restore --forget" \
	"'lost'.*record of its original pins is unreadable.*vcpack restore --forget lost" \
	"$(t_unfold "$out")"
t_eq "plan --json: lost untouched, its pins kept" "unmanaged$P356" \
	"$(V --json plan 2>/dev/null | jq -c -r '.plan.vms[]|select(.name=="lost")|"\(.placement) \(.vcpus)"' | tr -d ' ')"
t_match "status: issue line for lost" \
	"issue: +'lost': .*record of its original pins is unreadable" "$(t_unfold "$(V status 2>/dev/null)")"
ex=$(V --json explain lost 2>/dev/null)
t_eq "explain --json: lost not managed" false "$(echo "$ex" | jq .managed)"
t_match "explain: the reason and the way out" \
	"record of its original pins is unreadable.*restore --forget lost" \
	"$(echo "$ex" | jq -r '[.class_reason, (.moves_it // [] | tostring)]|join(" ")')"
lst=$(V list 2>&1)
t_match "list: lost untouched, with the reason" \
	"'lost': .*record of its original pins is unreadable" "$lst"
t_match "list: lost's row" "^  lost +running +untouched +priority=low +3 " "$lst"

# apply leaves it alone
out=$(V apply 2>&1)
t_eq "apply: lost's pins unchanged" "$P356" "$(pins lost)"
t_match "apply: says why, naming restore --forget" \
	"'lost'.*unreadable.*vcpack restore --forget lost" "$(t_unfold "$out")"
t_eq "apply: garbage record still there" yes "$(has_record lost)"

# vcpackd leaves it alone, and says so in its log
t_enabled "$T_TMP/state.json"
: >"$T_TMP/vcpackd.log"
"$B/vcpackd" --foreground --connect "$U" --socket "$SOCK" \
	--state "$T_TMP/state.json" --policy "$T_POLICY" >>"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0; until grep -q "record of its original pins is unreadable" "$T_TMP/vcpackd.log" || [ $i -ge 100 ]; do
	sleep 0.1; i=$((i + 1)); done
t_match "vcpackd: logs lost's unreadable record" \
	"'lost'.*record of its original pins is unreadable.*restore --forget lost" \
	"$(cat "$T_TMP/vcpackd.log")"
sleep 1
t_eq "vcpackd: lost's pins unchanged" "$P356" "$(pins lost)"
kill "$DPID"; wait "$DPID" 2>/dev/null

# restore refuses it and names the way out
out=$(V restore lost 2>&1); rc=$?
t_eq "restore lost: exit 1" 1 $rc
t_match "restore: unreadable, names restore --forget" \
	"lost.*unreadable.*vcpack restore --forget lost" "$(t_unfold "$out")"
t_eq "restore: record and pins kept" "$P356 yes" "$(pins lost) $(has_record lost)"

# restore --forget: the record goes, the pins stay
out=$(V restore --forget 2>&1); rc=$?
t_eq "restore --forget without a DOMAIN: usage error" 2 $rc
out=$(V restore --forget lost 2>&1); rc=$?
t_eq "restore --forget lost: exit 0" 0 $rc
t_match "restore --forget: says the record is dropped and the pins stay" \
	"lost.*record (of its original pins )?dropped.*pins.*left as they are" "$(t_unfold "$out")"
t_eq "restore --forget: no record, pins kept" "$P356 no" "$(pins lost) $(has_record lost)"
out=$(V restore --forget lost 2>&1); rc=$?
t_eq "restore --forget again: nothing recorded, exit 0" "0" "$rc"
t_match "restore --forget again: says there was none" "lost.*nothing recorded" "$out"

# now a normal apply records 3/5/6 and moves it; restore brings them back
V apply >/dev/null 2>&1
t_eq "apply after forget: a record" yes "$(has_record lost)"
t_nomatch "apply after forget: lost moved" "^$P356\$" "$(pins lost)"
V restore >/dev/null 2>&1
t_eq "restore: lost back on 3/5/6, record dropped" "$P356 no" \
	"$(pins lost) $(has_record lost)"

t_done
