#!/bin/sh
# test-scxmode.sh BUILD_DIR - vcpackd's scx mode on fixture roots
# (tests/data/scx, --root) with tests/data/scx/fake-scx_vcpack as the
# loader, on libvirt's test driver: where sched_ext is there and no BPF
# scheduler is loaded vcpackd loads scx_vcpack (its command line, the
# level the plan wants written through it) and `vcpack status` says scx
# and why; when the scheduler is ejected vcpackd goes on in pin mode and
# says why; at exit it unloads what it loaded; another scheduler loaded
# means pin mode, and a loader that cannot load too. Processes by pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
T_NAME=test-scxmode
. "$here/lib.sh"
t_setup
FIX=$top/tests/data/scx
U=test:///default
SOCK=$T_TMP/run/vcpackd.sock
export VCP_FAKE_SCX_LOG=$T_TMP/fake.log
export VCP_FAKE_SCX_SHOW=$T_TMP/show
echo "level 0" >"$VCP_FAKE_SCX_SHOW"
printf '{"sample_interval": 1, "level": 2}\n' >"$T_TMP/policy.json"
t_enabled "$T_TMP/state.json"
V() { "$B/vcpack" --connect "$U" --daemon-socket "$SOCK" "$@"; }
DPID=""

start_daemon() { # ROOT
	"$B/vcpackd" --foreground --connect "$U" --socket "$SOCK" \
		--state "$T_TMP/state.json" --policy "$T_TMP/policy.json" \
		--root "$1" --scx-loader "$FIX/fake-scx_vcpack" \
		>>"$T_TMP/vcpackd.log" 2>&1 &
	DPID=$!
	T_PIDS="$T_PIDS $DPID"
	i=0; until V --json status 2>/dev/null | jq -e '.vcpackd.last' >/dev/null || [ $i -ge 100 ]; do
		sleep 0.1; i=$((i + 1)); done
}
stop_daemon() { kill -TERM "$DPID"; wait "$DPID" 2>/dev/null; }
dstat() { V --json status 2>/dev/null | jq -r ".vcpackd.$1"; }
# wait up to 10 s for vcpackd's mode to become $1
wait_mode() {
	i=0; until [ "$(dstat mode)" = "$1" ] || [ $i -ge 100 ]; do
		sleep 0.1; i=$((i + 1)); done
}

cp -a "$FIX/disabled" "$T_TMP/root"
export VCP_FAKE_SCX_ROOT=$T_TMP/root
start_daemon "$T_TMP/root"
t_eq "disabled: scx mode" scx "$(dstat mode)"
t_match "disabled: why" "no BPF scheduler was loaded; vcpackd loads scx_vcpack" "$(dstat mode_reason)"
t_eq "the loader runs" "enabled vcpack" "$(cat "$T_TMP/root/sys/kernel/sched_ext/state" "$T_TMP/root/sys/kernel/sched_ext/root/ops" | tr '\n' ' ' | sed 's/ $//')"
t_match "started at level 0" "^-l 0$" "$(head -1 "$VCP_FAKE_SCX_LOG")"
t_match "the plan's level written through scx_vcpack" "^level 2$" "$(cat "$VCP_FAKE_SCX_LOG")"
txt=$(V status 2>/dev/null)
t_match "status text: vcpackd's mode" "mode scx: sched_ext: no BPF scheduler" "$txt"

# the kernel ejects the scheduler: sched_ext disabled, pins gone
rm -rf "$T_TMP/root/sys/kernel/sched_ext/root"
echo disabled >"$T_TMP/root/sys/kernel/sched_ext/state"
wait_mode pin
t_eq "ejected: pin mode" pin "$(dstat mode)"
t_match "ejected: why" "scx_vcpack is no longer loaded \(sched_ext disabled\); pins carry the plan" "$(dstat mode_reason)"
t_eq "ejected: logged once" 1 "$(grep -c 'scx_vcpack is no longer loaded' "$T_TMP/vcpackd.log")"
t_eq "ejected: not loaded again" 1 "$(grep -c '^-l' "$VCP_FAKE_SCX_LOG")"
stop_daemon

# a clean stop unloads what vcpackd loaded
rm -rf "$T_TMP/root"
cp -a "$FIX/disabled" "$T_TMP/root"
start_daemon "$T_TMP/root"
t_eq "again: scx mode" scx "$(dstat mode)"
stop_daemon
t_eq "stop: unloaded" disabled "$(cat "$T_TMP/root/sys/kernel/sched_ext/state")"

# another scheduler: left alone
: >"$VCP_FAKE_SCX_LOG"
start_daemon "$FIX/other"
t_eq "other scheduler: pin mode" pin "$(dstat mode)"
t_match "other scheduler: why" "another BPF scheduler \('lavd_1.0.6_x86_64', enabled\)" "$(dstat mode_reason)"
t_eq "other scheduler: nothing run" "" "$(cat "$VCP_FAKE_SCX_LOG")"
stop_daemon

# a loader that cannot load
export VCP_FAKE_SCX_FAIL="cannot load the BPF scheduler"
rm -rf "$T_TMP/root"
cp -a "$FIX/disabled" "$T_TMP/root"
start_daemon "$T_TMP/root"
t_eq "failed load: pin mode" pin "$(dstat mode)"
t_match "failed load: why" "scx_vcpack did not load \(its loader exited with status 1" "$(dstat mode_reason)"
stop_daemon
unset VCP_FAKE_SCX_FAIL
t_done
