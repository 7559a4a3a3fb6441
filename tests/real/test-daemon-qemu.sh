#!/bin/sh
# test-daemon-qemu.sh BUILD_DIR KERNEL - vcpackd against a real libvirtd
# running real QEMU (TCG) guests: a private qemu:///session daemon under
# an unprivileged user, guests tagged spread, pack and untagged. Pins are
# checked on the QEMU vCPU threads themselves. Covers: placement at start
# and on a guest start, a tag change, a stopped VM freeing its core,
# libvirtd restarted under running guests, vcpackd killed with -9 and
# restarted, a guest destroyed while being placed, SIGTERM with
# --restore-on-exit putting every guest back exactly, and vcpackd killed
# with -9 mid-apply followed by `vcpack restore`, and `vcpack trial`
# refusing where this machine has no energy counters.
B=$1
KERNEL=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
qemu_host "$KERNEL"
SOCK=$T_TMP/vcpackd.sock
all=$(cat /sys/devices/system/cpu/online)
ncpu=$(nproc)
DPID=""

echo '{"sample_interval": 1, "exclusive_cores": true}' >"$T_TMP/policy.json"
# This machine has one package, where auto resolves to level 0: hands off
# unless the policy asks for exclusive cores, as here (the spread guest
# isolated, the others re-pinned off its core). Enabled: vcpackd acts.
t_enabled "$T_TMP/state.json"
start_daemon() {
	XDG_RUNTIME_DIR=$LVD_RUN "$B/vcpackd" --foreground --debug --connect "$U" \
		--state "$T_TMP/state.json" \
		--policy "$T_TMP/policy.json" --socket "$SOCK" "$@" \
		>>"$T_TMP/vcpackd.log" 2>&1 &
	DPID=$!
	T_PIDS="$T_PIDS $DPID"
}
V() { "$B/vcpack" --connect "$U" --policy "$T_TMP/policy.json" --sample 0 "$@"; }
planned() { V --json plan 2>/dev/null | jq -r ".plan.vms[]|select(.name==\"$1\")|.vcpus[$2]"; }

define_guest "$U" gspread 1 "priority='high'" &&
	define_guest "$U" gpack 1 "class='pack'" &&
	define_guest "$U" gbal 1 && t_pass "guests defined" || t_fail "define guests"
start_guest "$U" gspread && start_guest "$U" gpack &&
	t_pass "two guests started" || t_fail "start guests"
t_eq "unpinned before vcpackd" "$all" "$(allowed gpack 0)"

# vcpack trial reads this machine's energy counters: where it has none
# (a guest machine), it refuses cleanly before anything changes
if ls -d /sys/class/powercap/intel-rapl:* >/dev/null 2>&1; then
	t_pass "trial refusal not checked: this machine has powercap zones"
else
	out=$(V trial --rounds 2 --window 1 --settle 0 --sample 0.2 \
		--state "$T_TMP/trial.json" 2>&1)
	t_eq "trial without energy counters: exit 2" 2 $?
	t_match "trial without energy counters: why" \
		"no energy counter is readable: energy: no powercap" "$out"
	t_eq "trial refused: nothing changed" "$all" "$(allowed gpack 0)"
	t_eq "trial refused: no verdict recorded" no \
		"$([ -e "$T_TMP/trial.json" ] && echo yes || echo no)"
fi

# This machine: one package, $ncpu cores. The spread guest gets a core of
# its own (one core per package stays shared); the rest share the others.
excl=$(planned gspread 0)
shared=$(planned gpack 0)
t_match "plan: spread guest on one exclusive CPU" "^[0-9]+$" "$excl"
t_nomatch "plan: pack guest not on it" "^$excl$" "$shared"

start_daemon
w=$(wait_allowed gspread 0 "$excl") && t_pass "vcpackd placed the spread guest's vCPU thread (${w}00 ms)" ||
	t_fail "spread guest not placed: $(allowed gspread 0), want $excl"
w=$(wait_allowed gpack 0 "$shared") && t_pass "vcpackd placed the pack guest's vCPU thread" ||
	t_fail "pack guest not placed: $(allowed gpack 0), want $shared"
t_eq "emulator threads off the exclusive core" "$shared" "$(emulator_allowed gspread)"
st=$("$B/vcpack" --connect "$U" --sample 500 --json status 2>/dev/null)
t_match "status: real QEMU reports measured demand" '^[0-9.]+$' \
	"$(echo "$st" | jq -r '.vms[]|select(.name=="gpack")|.demand')"
t_match "status: and each VM's delay (time waiting for a host CPU)" '^[0-9.]+$' \
	"$(echo "$st" | jq -r '.vms[]|select(.name=="gpack")|.delay')"

# a started guest is placed within a second
start_guest "$U" gbal
w=$(wait_allowed gbal 0 "$shared" 10) && t_pass "started guest placed within 1 s (${w}00 ms)" ||
	t_fail "started guest not placed within 1 s: $(allowed gbal 0)"

# someone else re-pins a guest: restated (the default), said once
virsh -q -c "$U" vcpupin gbal 0 "$all" --live >/dev/null
w=$(wait_allowed gbal 0 "$shared") && t_pass "a foreign re-pin is restated (${w}00 ms)" ||
	t_fail "foreign re-pin not restated: $(allowed gbal 0)"
t_eq "the foreign re-pin is said once" 1 \
	"$(grep -c "'gbal' was re-pinned by someone else; restating the plan" "$T_TMP/vcpackd.log")"
# with foreign_pins: respect (SIGHUP reloads the policy) it is left so
echo '{"sample_interval": 1, "exclusive_cores": true, "foreign_pins": "respect"}' >"$T_TMP/policy.json"
kill -HUP "$DPID"; sleep 0.5
virsh -q -c "$U" vcpupin gbal 0 "$all" --live >/dev/null
sleep 1.5
t_eq "foreign_pins respect: the re-pin is left as it is" "$all" "$(allowed gbal 0)"
t_match "foreign_pins respect: said" "'gbal' was re-pinned by someone else; leaving it as it is" \
	"$(cat "$T_TMP/vcpackd.log")"
echo '{"sample_interval": 1, "exclusive_cores": true}' >"$T_TMP/policy.json"
kill -HUP "$DPID"; sleep 0.5

# a tag change re-places the guest: gbal asks for spread, but the only
# exclusive core is taken, so it runs shared (degraded, and said so)
virsh -q -c "$U" metadata gbal urn:vcpack:metadata:1 --key vcpack \
	--set "<consolidation class='spread'/>" --live >/dev/null
sleep 1
t_eq "spread guest without a free core stays shared" "$shared" "$(allowed gbal 0)"
t_match "the shortage is said" "no exclusive cores left" \
	"$(V --json plan 2>/dev/null | jq -r '.plan.vms[]|select(.name=="gbal")|.degraded')"
# a stopped guest frees its core for the other one
virsh -q -c "$U" destroy gspread >/dev/null
w=$(wait_allowed gbal 0 "$excl") && t_pass "stopped guest's core goes to the waiting spread guest" ||
	t_fail "core not handed over: gbal on $(allowed gbal 0)"

# libvirtd restarted while guests run: vcpackd reconnects and reacts
kill "$LVD_PID"
i=0; while kill -0 "$LVD_PID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "guests outlive libvirtd" "$shared" "$(allowed gpack 0)"
start_libvirtd qemu || t_fail "restart libvirtd"
virsh -q -c "$U" metadata gbal urn:vcpack:metadata:1 --key vcpack \
	--set "<consolidation class='pack'/>" --live >/dev/null
# (reconnect backoff 1, 2, 4, 8, 10 s: within ~15 s of the restart).
# No spread guest is left, so nothing is exclusive: the plan's set is
# every CPU of the package.
t_eq "plan after the re-tag: both pack guests on every CPU" "$all $all" "$(planned gbal 0) $(planned gpack 0)"
w=$(wait_allowed gbal 0 "$all" 200) && t_pass "after a libvirtd restart vcpackd reconnects and re-places (${w}00 ms)" ||
	t_fail "no reaction after libvirtd restart: gbal on $(allowed gbal 0) after $w tenths (want $all)"

# vcpackd killed with -9; a tag changes while it is down; a restarted
# vcpackd re-derives everything from libvirt
kill -9 "$DPID"; wait "$DPID" 2>/dev/null
virsh -q -c "$U" metadata gpack urn:vcpack:metadata:1 --key vcpack \
	--set "<consolidation priority='high'/>" --live >/dev/null
start_daemon --restore-on-exit
w=$(wait_allowed gpack 0 "$excl") && t_pass "restarted vcpackd applies what changed while it was down" ||
	t_fail "restart did not re-plan: gpack on $(allowed gpack 0)"
t_match "original pins recorded once, before the first change" "cpuset=\"$all\"" \
	"$(virsh -c "$U" metadata gpack urn:vcpack:state:1 2>/dev/null)"

# a guest destroyed while vcpackd places it: nothing else is disturbed
start_guest "$U" gspread
virsh -q -c "$U" destroy gspread >/dev/null 2>&1
sleep 1
t_eq "vcpackd survives a guest vanishing mid-apply" 0 "$(kill -0 "$DPID" 2>/dev/null; echo $?)"
t_eq "other guests keep their planned pins" "$excl $shared" "$(allowed gpack 0) $(allowed gbal 0)"
t_eq "plan has nothing left to do" 0 "$(V --json plan 2>/dev/null | jq '.actions|length')"
# what vcpackd wrote for it went to the running guest only
t_nomatch "the vanished guest's definition has none of vcpackd's pins or records" \
	"<cputune>|urn:vcpack:(state|host):1" "$(virsh -c "$U" dumpxml --inactive gspread)"

# vcpack status shows what vcpackd measured (so both say the same)
sleep 2.5
st=$("$B/vcpack" --connect "$U" --daemon-socket "$SOCK" --json status 2>/dev/null)
t_eq "status through vcpackd" vcpackd "$(echo "$st" | jq -r .demand_source)"
t_match "status through vcpackd: its measured delay per VM" '^[0-9.]+$' \
	"$(echo "$st" | jq -r '.vms[]|select(.name=="gpack")|.delay')"
# vcpack plan takes the demand vcpackd planned on, so both show the same
# plan (issue 12; before, plan measured 1 s itself: other figures). Taken
# between two looks at vcpackd's last plan that agree (it re-plans on news)
S() { "$B/vcpack" --connect "$U" --daemon-socket "$SOCK" --json status 2>/dev/null |
	jq -cS .vcpackd.last.plan; }
agree="no plan seen twice"
for i in 1 2 3 4 5; do
	a=$(S)
	pl=$("$B/vcpack" --connect "$U" --daemon-socket "$SOCK" --policy "$T_TMP/policy.json" --json plan 2>/dev/null)
	[ "$a" = "$(S)" ] || continue
	p=$(echo "$pl" | jq -cS .plan)
	[ "$p" = "$a" ] && agree=yes || agree="plan $p, vcpackd $a"
	break
done
t_eq "plan through vcpackd" vcpackd "$(echo "$pl" | jq -r .demand_source)"
t_eq "vcpack plan and vcpackd's last plan agree (measured demand)" yes "$agree"

# SIGTERM with --restore-on-exit: every guest back as it was
kill "$DPID"; wait "$DPID" 2>/dev/null
t_eq "restore on exit: pack guest back to its original pins" "$all" "$(allowed gpack 0)"
t_eq "restore on exit: other guest back too" "$all" "$(allowed gbal 0)"
t_eq "restore on exit: emulator back" "$all" "$(emulator_allowed gpack)"
t_eq "restore on exit: record dropped" "" "$(virsh -c "$U" metadata gpack urn:vcpack:state:1 2>/dev/null)"
# vcpackd killed with -9 in the middle of applying (a guest just started:
# save-original and pins under way), then `vcpack restore` without it:
# every guest back to its recorded original pins exactly
start_daemon
wait_allowed gpack 0 "$excl" >/dev/null || t_fail "daemon did not place gpack again"
virsh -q -c "$U" start gspread >/dev/null && T_PIDS="$T_PIDS $(qemu_pid gspread)"
sleep 0.05
kill -9 "$DPID"; wait "$DPID" 2>/dev/null
rs=$(V --json restore 2>/dev/null); t_eq "restore after kill -9 mid-apply: exit 0" 0 $?
for g in gpack gbal gspread; do
	t_eq "restore after kill -9: '$g' back to its original pins" "$all" "$(allowed "$g" 0)"
	t_eq "restore after kill -9: '$g' emulator back" "$all" "$(emulator_allowed "$g")"
	t_eq "restore after kill -9: '$g' has no record left" "" \
		"$(virsh -c "$U" metadata "$g" urn:vcpack:state:1 2>/dev/null)"
done

# (connecting and sampling fail while libvirtd is down: expected, said)
t_nomatch "no failures logged" "([1-9][0-9]* failed|Failed|[Ee]rror)" \
	"$(grep -v -e "^Failed to connect to '$U'" -e "^sampling failed: " "$T_TMP/vcpackd.log")"

t_done
