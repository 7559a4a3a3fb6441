#!/bin/sh
# test-fleet-signal.sh BUILD_DIR - a standby round stopped by SIGINT or
# SIGTERM while the operator's power command runs (issue 14), on two
# private libvirtds running the test driver (as test-fleet-run.sh: h1
# runs the test driver's guest, h2 is empty and is put in standby). The
# standby command records its pid, sleeps, then makes h2 stop answering.
#   one signal:  the command is let finish (vcpack says so, with its
#                pid), h2 is in standby, exit 130 (SIGINT);
#   two signals: the command is killed (its pid is gone long before its
#                sleep ends), the state file says so and records h2 in
#                standby ("the next round's look settles it"), exit 143
#                (SIGTERM); the next round sees h2 answer: on again;
#   fleet run stopped by SIGTERM: exit 143.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
VCPACK=$B/vcpack
command -v jq >/dev/null || { echo "SKIP: jq missing"; t_done; exit 0; }

for h in h1 h2; do
	start_libvirtd "$h" || { t_fail "start libvirtd $h"; t_done; exit 1; }
	ln -s "$LVD_SOCK" "$T_TMP/$h.sock"
	eval "U_$h=\"test+unix:///default?socket=$T_TMP/$h.sock\""
	hold_connection "test+unix:///default?socket=$LVD_SOCK" ||
		{ t_fail "hold $h"; t_done; exit 1; }
done
virsh -q -c "$U_h2" destroy test >/dev/null && t_pass "h2 runs nothing" ||
	t_fail "set-up"
readlink "$T_TMP/h2.sock" >"$T_TMP/h2.target"

# standby HOST SECONDS: record the pid, sleep, then the host stops answering
cat >"$T_TMP/standby" <<EOF
#!/bin/sh
echo \$\$ >"$T_TMP/cmd.pid"
sleep "\$2"
rm -f "$T_TMP/\$1.sock"
echo "\$1 asleep after \$2 s"
EOF
printf '#!/bin/sh\nln -sf "$(cat "%s/$1.target")" "%s/$1.sock"\n' "$T_TMP" "$T_TMP" >"$T_TMP/wake"
chmod +x "$T_TMP/standby" "$T_TMP/wake"

fleet() { # SECONDS the standby command sleeps
	cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U_h1", "name": "h1"}, {"uri": "$U_h2", "name": "h2"}],
 "defaults": {"timeout": 5},
 "standby": {"low_hold": 0, "high_hold": 0, "wake_cooldown": 0, "woken_grace": 0,
             "wake_deadline": 10, "interval": 5, "min_spare_hosts": 0,
             "hosts": {
  "h1": {"action": "none"},
  "h2": {"action": "command", "standby_command": ["$T_TMP/standby", "h2", "$1"],
         "wake_command": ["$T_TMP/wake", "h2"], "command_timeout": 120}}}}
JSON
}
ST=$T_TMP/state/fleet.json
power() { jq -r "[.hosts[]|\"\(.name):\(.power)\"]|join(\" \")" "$ST"; }
# wait_for FILE PATTERN: until FILE has a line matching PATTERN (30 s)
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null || [ $i -gt 300 ]; do
		sleep 0.1; i=$((i + 1)); done
	grep -q "$2" "$1" 2>/dev/null
}
# the standby command started (its pid file, 30 s at most)
started() {
	i=0
	until [ -s "$T_TMP/cmd.pid" ] || [ $i -gt 300 ]; do
		sleep 0.1; i=$((i + 1)); done
	[ -s "$T_TMP/cmd.pid" ]
}

# ---- one SIGINT while the standby command runs: it finishes ----
fleet 2
rm -f "$T_TMP/cmd.pid"
"$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" \
	apply --yes >"$T_TMP/a.log" 2>&1 &
A=$!
T_PIDS="$T_PIDS $A"
started || t_fail "one SIGINT: the standby command did not start"
kill -INT "$A"
wait "$A"; rc=$?
sed 's/^/  | /' "$T_TMP/a.log"
t_eq "one SIGINT: exit 130" 130 $rc
t_match "one SIGINT: said the command is let finish, with its pid" \
	"SIGINT: h2: finishing its standby command $T_TMP/standby \(pid $(cat "$T_TMP/cmd.pid"), up to its 120 s timeout\) before stopping; another SIGINT kills it" \
	"$(t_unfold "$(cat "$T_TMP/a.log")")"
t_match "one SIGINT: the command ran to its end" "h2: standby: command $T_TMP/standby: exit 0; output: h2 asleep after 2 s" "$(t_unfold "$(cat "$T_TMP/a.log")")"
t_match "one SIGINT: what was not started said" "stopped by SIGINT: not started: 0 of 0 migrations, 0 of 0 wakes, no standby left" "$(t_unfold "$(cat "$T_TMP/a.log")")"
t_eq "one SIGINT: h2 in standby in the state file" "h1:on h2:standby" "$(power)"
t_eq "one SIGINT: its outcome kept" "standby: command $T_TMP/standby: exit 0" "$(jq -r '.hosts[1].last_action' "$ST")"

# h2 back (an operator powered it on); the state forgets nothing: the
# next round sees it answer and has it on
"$T_TMP/wake" h2
jq '.standby.hosts.h2.action = "none"' "$T_TMP/fleet.json" >"$T_TMP/f2.json"
"$VCPACK" fleet --hosts "$T_TMP/f2.json" --sample 0 --state "$ST" apply --yes >/dev/null 2>&1
t_eq "h2 answers again: on" "h1:on h2:on" "$(power)"

# ---- SIGTERM twice: the command is killed by its pid ----
fleet 60
rm -f "$T_TMP/cmd.pid"
start=$(date +%s)
"$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" \
	apply --yes >"$T_TMP/b.log" 2>&1 &
A=$!
T_PIDS="$T_PIDS $A"
started || t_fail "SIGTERM: the standby command did not start"
CMD=$(cat "$T_TMP/cmd.pid")
kill -TERM "$A"
wait_for "$T_TMP/b.log" "finishing its standby command" ||
	t_fail "SIGTERM: no word of the command in flight"
t_eq "SIGTERM once: the command still runs" 0 "$(kill -0 "$CMD" 2>/dev/null; echo $?)"
kill -TERM "$A"
wait "$A"; rc=$?
took=$(($(date +%s) - start))
sed 's/^/  | /' "$T_TMP/b.log"
t_eq "SIGTERM twice: exit 143" 143 $rc
t_eq "SIGTERM twice: the command is gone" 1 "$(kill -0 "$CMD" 2>/dev/null; echo $?)"
t_match "SIGTERM twice: long before its 60 s sleep ended (${took} s)" "^([0-9]|[1-3][0-9])$" "$took"
t_match "SIGTERM twice: said killed, by its pid" \
	"h2: standby: command $T_TMP/standby: killed \(pid $CMD, its process group\) on a second SIGTERM" \
	"$(t_unfold "$(cat "$T_TMP/b.log")")"
t_match "SIGTERM twice: what was not started said" "stopped by SIGTERM: not started: " "$(cat "$T_TMP/b.log")"
t_eq "SIGTERM twice: the state file says what happened" \
	"standby: command $T_TMP/standby: killed (pid $CMD, its process group) on a second SIGTERM" \
	"$(jq -r '.hosts[1].last_action' "$ST")"
t_eq "SIGTERM twice: h2 recorded in standby (it may have gone to sleep)" "h1:on h2:standby" "$(power)"
t_match "SIGTERM twice: why" "killed on a second SIGTERM: asleep or not, the next round's look settles it" \
	"$(jq -r '.hosts[1].why' "$ST")"
t_eq "SIGTERM twice: h2 still answers (the command never got that far)" 0 \
	"$(virsh -q -c "$U_h2" uri >/dev/null 2>&1; echo $?)"
"$VCPACK" fleet --hosts "$T_TMP/f2.json" --sample 0 --state "$ST" apply --yes >/dev/null 2>&1
t_eq "the next round: h2 answers, on again" "h1:on h2:on" "$(power)"

# ---- fleet run: SIGTERM while it waits between rounds ----
jq '.standby.hosts.h2.action = "none"' "$T_TMP/fleet.json" >"$T_TMP/f3.json"
"$VCPACK" fleet --hosts "$T_TMP/f3.json" --sample 0 --state "$ST" run --interval 60 >"$T_TMP/r.log" 2>&1 &
R=$!
T_PIDS="$T_PIDS $R"
wait_for "$T_TMP/r.log" "demand .* CPUs on" || t_fail "run: no round"
kill -TERM "$R"
wait "$R"; rc=$?
t_eq "run, SIGTERM: exit 143" 143 $rc
t_match "run, SIGTERM: said" "stopped by SIGTERM; the state file says where each host is" "$(cat "$T_TMP/r.log")"
t_done
