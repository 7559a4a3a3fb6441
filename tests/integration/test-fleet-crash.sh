#!/bin/sh
# test-fleet-crash.sh BUILD_DIR - the fleet standby loop killed (SIGKILL)
# in the middle of a standby and of a wake, on three private libvirtds
# running the test driver (reached through symlinks to their sockets, as
# in test-fleet-run.sh: "standby" removes the link, "wake" puts it back).
# A host must never be forgotten asleep: it is recorded in standby before
# its standby command runs, so that after the kill the next round still
# knows it sleeps and wakes it when capacity is needed; a wake killed
# half-way converges (the host answers: on). SIGHUP stops `fleet run`
# like SIGTERM. Every process stopped by pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
VCPACK=$B/vcpack
command -v jq >/dev/null || { echo "SKIP: jq missing"; t_done; exit 0; }

for h in h1 h2 h3; do
	start_libvirtd "$h" || { t_fail "start libvirtd $h"; t_done; exit 1; }
	ln -s "$LVD_SOCK" "$T_TMP/$h.sock"
	readlink "$T_TMP/$h.sock" >"$T_TMP/$h.target"
	eval "U_$h=\"test+unix:///default?socket=$T_TMP/$h.sock\""
	hold_connection "test+unix:///default?socket=$LVD_SOCK" ||
		{ t_fail "hold $h"; t_done; exit 1; }
done
virsh -q -c "$U_h2" destroy test >/dev/null &&
	virsh -q -c "$U_h3" destroy test >/dev/null &&
	t_pass "three hosts, one guest on h1" || t_fail "set-up"

ST=$T_TMP/state/fleet.json
# the power commands; the slow ones record their pid and what the state
# file says of h3 while they run, then wait to be killed
power_script standby <<EOF
rm -f "$T_TMP/\$1.sock"
EOF
power_script wake <<EOF
ln -s "\$(cat "$T_TMP/\$1.target")" "$T_TMP/\$1.sock"
EOF
power_script slowstandby "(slow)" <<EOF
rm -f "$T_TMP/\$1.sock"
jq -r '.hosts[2].power' "$ST" >"$T_TMP/during"
echo \$\$ >"$T_TMP/cmd.pid"
exec sleep 120
EOF
power_script slowwake "(slow)" <<EOF
ln -s "\$(cat "$T_TMP/\$1.target")" "$T_TMP/\$1.sock"
jq -r '.hosts[2].power' "$ST" >"$T_TMP/during"
echo \$\$ >"$T_TMP/cmd.pid"
exec sleep 120
EOF

fleet() { # MIN_SPARE STANDBY WAKE (h3's; h2 stays on: h3 is the one)
	cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U_h1", "name": "h1"}, {"uri": "$U_h2", "name": "h2"},
           {"uri": "$U_h3", "name": "h3"}],
 "defaults": {"timeout": 5},
 "standby": {"low_hold": 0, "high_hold": 0, "wake_cooldown": 0,
             "wake_deadline": 10, "interval": 5, "min_spare_hosts": $1,
             "hosts": {
  "h1": {"action": "command", "standby_command": ["$T_TMP/standby", "h1"],
         "wake_command": ["$T_TMP/wake", "h1"]},
  "h2": {"action": "command", "standby_command": ["$T_TMP/standby", "h2"],
         "wake_command": ["$T_TMP/wake", "h2"], "stay_on": true},
  "h3": {"action": "command", "standby_command": ["$T_TMP/$2", "h3"],
         "wake_command": ["$T_TMP/$3", "h3"], "command_timeout": 200}}}}
JSON
}
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" "$@"; }
# F in the background, vcpack itself (its pid in $!, not a subshell's)
F_bg() {
	"$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" \
		"$@" &
}
power() { jq -r "[.hosts[]|\"\(.name):\(.power)\"]|join(\" \")" "$ST"; }
# kill_mid: start `fleet apply --yes` and SIGKILL it (and its command)
# once the slow command runs
kill_mid() {
	rm -f "$T_TMP/cmd.pid" "$T_TMP/during"
	F_bg apply --yes >"$T_TMP/apply.log" 2>&1
	apid=$!
	T_PIDS="$T_PIDS $apid"
	i=0
	until [ -s "$T_TMP/cmd.pid" ] || [ $i -ge 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	kill -KILL "$apid"
	wait "$apid" 2>/dev/null
	cpid=$(cat "$T_TMP/cmd.pid" 2>/dev/null)
	[ -n "$cpid" ] && kill -KILL "$cpid" 2>/dev/null
	[ -n "$cpid" ]
}

# ---- SIGKILL during h3's standby command ----
fleet 1 slowstandby wake
kill_mid && t_pass "standby: the loop killed during h3's standby command" ||
	t_fail "standby: the slow standby command never ran"
t_eq "standby: h3 was recorded in standby before its command ran" standby \
	"$(cat "$T_TMP/during" 2>/dev/null)"
t_eq "standby: after the kill, the state file has h3 in standby" \
	"h1:on h2:on h3:standby" "$(power)"
t_eq "standby: h3 sleeps (does not answer)" 1 \
	"$(virsh -q -c "$U_h3" uri >/dev/null 2>&1; echo $?)"
# restarted, with capacity wanted: the sleeping host is woken
fleet 2 standby wake
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "standby: the next round wakes h3 (exit 0)" 0 $rc
t_eq "standby: its wake command ran" "wake h3 h3" "$(tail -n 1 "$T_TMP/asked")"
t_eq "standby: the fleet converged, every host on" "h1:on h2:on h3:on" "$(power)"
t_eq "standby: and h3 answers again" 0 \
	"$(virsh -q -c "$U_h3" uri >/dev/null 2>&1; echo $?)"

# ---- SIGKILL during h3's wake command ----
fleet 1 standby wake
F apply --yes >/dev/null 2>&1
t_eq "wake: h3 in standby again" "h1:on h2:on h3:standby" "$(power)"
fleet 2 standby slowwake
kill_mid && t_pass "wake: the loop killed during h3's wake command" ||
	t_fail "wake: the slow wake command never ran"
t_match "wake: h3 still recorded asleep or waking after the kill" \
	"^h1:on h2:on h3:(standby|waking)$" "$(power)"
fleet 2 standby wake
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "wake: the next round converges (exit 0)" 0 $rc
t_eq "wake: every host on" "h1:on h2:on h3:on" "$(power)"
t_eq "wake: and h3 answers" 0 \
	"$(virsh -q -c "$U_h3" uri >/dev/null 2>&1; echo $?)"

# ---- SIGHUP stops `fleet run` as SIGTERM does ----
fleet 1 standby wake
F_bg run --interval 1 >"$T_TMP/run.log" 2>&1
RUN=$!
T_PIDS="$T_PIDS $RUN"
i=0
until grep -q "in standby" "$T_TMP/run.log" || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP "$RUN"
wait "$RUN"; rc=$?
t_eq "SIGHUP: fleet run stops, exit 129" 129 $rc
t_match "SIGHUP: said it stopped" "stopped by SIGHUP" "$(cat "$T_TMP/run.log")"
t_eq "SIGHUP: h3 in standby, recorded" "h1:on h2:on h3:standby" "$(power)"

# ---- one loop per state file: a second run or apply is refused ----
F_bg run --interval 60 >"$T_TMP/run1.log" 2>&1
RUN=$!
T_PIDS="$T_PIDS $RUN"
i=0
until grep -q "standby loop started" "$T_TMP/run1.log" || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
out=$(F run --rounds 1 2>&1)
t_eq "a second fleet run on the state file: exit 2" 2 $?
t_match "saying which process holds it" \
	"^vcpack: fleet: another 'vcpack fleet run' or 'fleet apply' \(pid $RUN\) acts on the state file .*fleet.json; nothing done" \
	"$(t_unfold "$out")"
out=$(F apply --yes 2>&1)
t_eq "fleet apply meanwhile: exit 2" 2 $?
t_eq "fleet status meanwhile still answers" 0 \
	"$(F status >/dev/null 2>&1; echo $?)"
kill -TERM "$RUN"
wait "$RUN"
out=$(F run --rounds 1 2>&1)
t_eq "once it stopped, a run may go" 0 $?
t_done
