#!/bin/sh
# test-placers.sh BUILD_DIR - `vcpack status` says the other placers on
# the host (libvirt's test driver; --root on fixture trees in
# tests/data/placers): numad running, tuned's profile, VMs whose XML asks
# for placement='auto' or numatune. One line each; nothing changed.
# (--wide: each line whole; folded at 100 columns without it, test-fit.sh)
# `vcpack plan` and `apply` warn of them in one line (--json: "placers",
# as status), and vcpackd logs that line at its first pass and again
# when what it finds changes (a SIGHUP's re-plan here).
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
FIX=$top/tests/data/placers
t_setup

# The shipped two-package host with two VMs asking for NUMA placement.
sed -e "/<name>latency<\/name>/,/<\/domain>/s|<vcpu>2</vcpu>|<vcpu placement='auto'>2</vcpu>|" \
    -e "/<name>batch<\/name>/,/<\/domain>/s|<vcpu>4</vcpu>|<vcpu>4</vcpu><numatune><memory mode='strict' placement='auto'/></numatune>|" \
	"$top/tests/data/hosts/two-pkg.xml" >"$T_TMP/node.xml"
N="test://$T_TMP/node.xml"
TWO="test://$top/tests/data/hosts/two-pkg.xml"

st=$("$VCPACK" --connect "$N" --root "$FIX/numad-tuned" --json status 2>/dev/null)
t_eq "status: exit 0" 0 $?
t_eq "json: numad pid" 77 "$(echo "$st" | jq .placers.numad_pid)"
t_eq "json: tuned profile" virtual-host "$(echo "$st" | jq -r .placers.tuned_profile)"
t_eq "json: VMs asking for NUMA placement" '["batch","latency"]' "$(echo "$st" | jq -c .placers.numa_vms)"
txt=$("$VCPACK" --wide --connect "$N" --root "$FIX/numad-tuned" status 2>/dev/null)
t_match "text: numad" "^numad: +running \(pid 77\)" "$txt"
t_match "text: tuned" "^tuned: +active profile 'virtual-host'$" "$txt"
t_match "text: numa VMs" "^numa: +2 VMs with placement='auto' or numatune .*: 'batch', 'latency'$" "$txt"
txt=$("$VCPACK" --connect "$TWO" --root "$FIX/none" status 2>/dev/null)
t_match "none: numad" "^numad: +not running$" "$txt"
t_match "none: tuned" "^tuned: +no active profile$" "$txt"
t_match "none: numa" "^numa: +no VM asks for placement='auto' or numatune$" "$txt"
txt=$("$VCPACK" --wide --connect "$TWO" status 2>/dev/null)
t_match "test driver without --root: said once" "^local: +IRQ rates, numad and tuned not shown: this host's /proc is not on this machine \(test driver or remote URI\)$" "$txt"
t_nomatch "test driver without --root: no numad, tuned or irqs lines" "^(numad|tuned|irqs):" "$txt"

# plan and apply: one warning line, the same object as status in --json
# (no vcpackd of the machine's asked: a socket nobody listens on)
P() { "$VCPACK" --daemon-socket "$T_TMP/none.sock" "$@"; }
WARN="^warning: other placers: numad running \(pid 77\): it re-places VMs too; vcpack's pins override its CPU choices, so stop numad where vcpack manages the host \(the two would move the same threads\)\. tuned profile 'virtual-host' active: the plan does not take it into account\. 2 VMs with placement='auto' or numatune \(libvirt/numad place them; vcpack's pins override the CPU part\): 'batch', 'latency'$"
txt=$(P --wide --connect "$N" --root "$FIX/numad-tuned" plan 2>/dev/null)
t_eq "plan: exit 0" 0 $?
t_match "plan: warns of numad, tuned, the NUMA VMs" "$WARN" "$txt"
js=$(P --connect "$N" --root "$FIX/numad-tuned" --json plan 2>/dev/null)
t_eq "plan json: placers as status" \
	'{"checked":true,"numad_pid":77,"tuned_profile":"virtual-host","numa_vms":["batch","latency"]}' \
	"$(echo "$js" | jq -c .placers)"
txt=$(P --wide --connect "$N" --root "$FIX/numad-tuned" apply 2>/dev/null)
t_eq "apply: exit 0" 0 $?
t_match "apply: the same warning" "$WARN" "$txt"
js=$(P --connect "$N" --root "$FIX/numad-tuned" --json apply 2>/dev/null)
t_eq "apply json: placers" '[77,"virtual-host"]' \
	"$(echo "$js" | jq -c '[.placers.numad_pid, .placers.tuned_profile]')"
txt=$(P --wide --connect "$TWO" --root "$FIX/none" plan 2>/dev/null)
t_nomatch "plan, no other placer: no warning" "other placers" "$txt"
t_eq "plan json, no other placer: placers still said" \
	'{"checked":true,"numad_pid":null,"tuned_profile":null,"numa_vms":[]}' \
	"$(P --connect "$TWO" --root "$FIX/none" --json plan 2>/dev/null | jq -c .placers)"
txt=$(P --wide --connect "$N" plan 2>/dev/null)
t_match "plan on the test driver without --root: the VMs only" \
	"^warning: other placers: 2 VMs with placement='auto' or numatune .*: 'batch', 'latency'$" "$txt"

# vcpackd: logged at its first pass; again when numad stops (a SIGHUP
# re-plans), never again while nothing changes. Its own copy of the root.
R=$T_TMP/root
cp -R "$FIX/numad-tuned" "$R"
echo '{}' >"$T_TMP/policy.json"
LOG=$T_TMP/vcpackd.log
"$B/vcpackd" --foreground --connect "$N" --root "$R" --policy "$T_TMP/policy.json" \
	--socket "$T_TMP/vcpackd.sock" --state "$T_TMP/state.json" >"$LOG" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
n_of() { n=$(grep -c -- "$1" "$LOG" 2>/dev/null); echo "${n:-0}"; }
i=0; until [ "$(n_of "^plan: ")" -ge 1 ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "vcpackd: said once at the first pass" 1 "$(n_of "^other placers: ")"
t_match "vcpackd: the line plan warns with" "$(echo "$WARN" | sed 's/^^warning: /^/')" "$(cat "$LOG")"
rm -r "$R/var/run/numad.pid" "$R/proc/77"
kill -HUP "$DPID"
i=0; until [ "$(n_of "^other placers: ")" -ge 2 ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
t_match "vcpackd: numad gone, said again without it" \
	"^other placers: tuned profile 'virtual-host' active: the plan does not take it into account\. 2 VMs with" "$(cat "$LOG")"
rm "$R/etc/tuned/active_profile"
kill -HUP "$DPID"
sleep 1
kill -HUP "$DPID"
sleep 1
t_eq "vcpackd: each change said once" 3 "$(n_of "^other placers: ")"
kill -TERM "$DPID"

# and when none is found any more: said so, once (no VM asks for NUMA
# placement on the shipped host; tuned's profile goes)
R=$T_TMP/root2
mkdir -p "$R/etc/tuned" && echo balanced >"$R/etc/tuned/active_profile"
LOG=$T_TMP/vcpackd2.log
"$B/vcpackd" --foreground --connect "$TWO" --root "$R" --policy "$T_TMP/policy.json" \
	--socket "$T_TMP/vcpackd2.sock" --state "$T_TMP/state2.json" >"$LOG" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0; until [ "$(n_of "^plan: ")" -ge 1 ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
t_match "vcpackd: tuned alone" "^other placers: tuned profile 'balanced' active: the plan does not take it into account$" "$(cat "$LOG")"
rm "$R/etc/tuned/active_profile"
kill -HUP "$DPID"
i=0; until [ "$(n_of "^other placers: ")" -ge 2 ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP "$DPID"
sleep 1
t_eq "vcpackd: none any more, said once" 1 "$(n_of "^other placers: none found any more$")"
t_eq "vcpackd: nothing else said of placers" 2 "$(n_of "^other placers: ")"
[ $FAIL -gt 0 ] && cat "$T_TMP"/vcpackd*.log | sed 's/^/  vcpackd: /'
t_done
