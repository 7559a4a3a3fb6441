#!/bin/sh
# test-daemon-log.sh BUILD_DIR - vcpackd's log says each VM's decision
# once: one "vm 'NAME': CLASS, PLACEMENT (why); vCPUs on ..., emulator on
# ..." line per VM when its decision is made or changes, none while
# nothing changes however often it re-plans (forced here with `vcpack
# apply`, which asks vcpackd to re-plan), a bad tag said once, a VM that
# stops and starts again said again. test:///default in a private
# libvirtd; every process stopped by pid. -f's names: --log-stderr,
# --foreground.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
LOG=$T_TMP/vcpackd.log
dom_start "$U" busy 2 "priority='high'"
dom_start "$U" lowa 2 "priority='low'"
dom_start "$U" lowb 2 "class='pack'"
echo '{"level": 2}' >"$T_TMP/policy.json"

t_enabled "$T_TMP/state.json"
"$B/vcpackd" --log-stderr --connect "$U" --socket "$SOCK" \
	--state "$T_TMP/state.json" \
	--policy "$T_TMP/policy.json" >"$LOG" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
# n_of PATTERN: how many log lines match
n_of() { n=$(grep -c -- "$1" "$LOG" 2>/dev/null); echo "${n:-0}"; }
i=0
until [ "$(n_of "^vm 'lowb':")" -ge 1 ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done

for vm in busy lowa lowb test; do
	t_eq "first plan: one line for '$vm'" 1 "$(n_of "^vm '$vm':")"
done
t_match "a spread VM: class, placement and why, its CPUs" \
	"^vm 'busy': spread, exclusive cores \(class spread\); vCPUs on [0-9,-]+, emulator on [0-9,-]+$" "$(cat "$LOG")"
t_match "a pack VM: gathered, on which package, why" \
	"^vm 'lowa': pack, gathered on package [0-9]+ \(level 2 gathers pack VMs\); vCPUs on [0-9,-]+, emulator on " \
	"$(cat "$LOG")"
t_match "an untagged VM: balanced, gathered at level 2" \
	"^vm 'test': balanced, gathered on package [0-9]+ \(level 2 gathers balanced VMs\)" "$(cat "$LOG")"

# nothing changes: re-plans say nothing new about the VMs
before=$(grep -c '^vm ' "$LOG")
for k in 1 2 3; do
	V apply >/dev/null 2>&1 || t_fail "vcpack apply through vcpackd ($k)"
done
sleep 0.3
t_eq "3 re-plans with nothing changed: no new VM line" "$before" "$(grep -c '^vm ' "$LOG")"

# a tag change: that VM's new decision, once
virsh -q -c "$U" metadata lowa urn:vcpack:metadata:1 --key vcpack \
	--set "<consolidation class='spread'/>" >/dev/null
i=0
until [ "$(n_of "^vm 'lowa': spread")" -ge 1 ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "re-tagged: one new line for 'lowa'" 2 "$(n_of "^vm 'lowa':")"
t_match "re-tagged: says spread, exclusive" "^vm 'lowa': spread, exclusive cores" "$(cat "$LOG")"
V apply >/dev/null 2>&1
sleep 0.3
t_eq "and no more after another re-plan" 2 "$(n_of "^vm 'lowa':")"

# a bad tag: the VM untouched, said once with the reason once
virsh -q -c "$U" metadata lowb urn:vcpack:metadata:1 --key vcpack \
	--set "<consolidation priority='soon'/>" >/dev/null
i=0
until [ "$(n_of "^vm 'lowb': untouched")" -ge 1 ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
V apply >/dev/null 2>&1; V apply >/dev/null 2>&1
sleep 0.3
t_eq "bad tag: one 'untouched' line" 1 "$(n_of "^vm 'lowb': untouched, left as it is")"
t_eq "bad tag: its reason logged once" 1 "$(n_of "'lowb'.*priority 'soon'")"

# a VM that stops is forgotten, and said again when it is back (its
# decision as before: busy's line may already be there twice, from the
# re-tag above, which moved its emulator)
said=$(n_of "^vm 'busy':")
virsh -q -c "$U" destroy busy >/dev/null
sleep 0.5
virsh -q -c "$U" start busy >/dev/null
i=0
until [ "$(n_of "^vm 'busy':")" -gt "$said" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
t_eq "restarted VM: its decision said again" $((said + 1)) "$(n_of "^vm 'busy':")"
[ $FAIL -gt 0 ] && sed 's/^/  vcpackd: /' "$LOG"

# --log-stderr is what -f does (vcpackd never forks); -f and the old
# name --foreground are taken too. Each logs its first plan (not enabled:
# what it would do) on stderr and
# stays in the foreground (its pid is the one started) until SIGTERM.
DEMO="test://$(cd "$here/../.." && pwd)/host-agent/demo/host.xml"
for opt in -f --foreground --log-stderr; do
	L=$T_TMP/alias$opt.log
	"$B/vcpackd" $opt --connect "$DEMO" --socket "$T_TMP/alias$opt.sock" \
		--state "$T_TMP/alias$opt.state" >"$L" 2>&1 &
	apid=$!
	T_PIDS="$T_PIDS $apid"
	i=0
	until grep -q "^not enabled, changing nothing" "$L" 2>/dev/null || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
	t_match "vcpackd $opt: logs to stderr" "^not enabled, changing nothing: the plan would be " "$(cat "$L")"
	t_eq "vcpackd $opt: still running, its own pid" yes \
		"$(kill -0 "$apid" 2>/dev/null && echo yes)"
	kill "$apid"
	wait "$apid" 2>/dev/null
done
t_match "vcpackd --help names -f for what it does" \
	'^  -f, --log-stderr +log to stderr instead of syslog' "$("$B/vcpackd" --help)"
t_done
