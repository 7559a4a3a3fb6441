#!/bin/sh
# test-daemon-stall.sh BUILD_DIR - libvirtd stops answering (SIGSTOP)
# under a running vcpackd, in the middle of a re-plan. vcpackd's loop
# waits for libvirt, but its control socket keeps answering: ping and
# status within a second, from the last status, saying for how long and
# in what the loop waits; other requests are refused saying so, and
# carried out once the loop is free. The wait is logged, and bounded:
# libvirt's keepalive (5 s x 3) closes the connection, vcpackd says so
# and reconnects once libvirtd answers again. SIGTERM during the stall
# ends vcpackd within the keepalive's bound. All processes by pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
LOG=$T_TMP/vcpackd.log
# no sampling tick in the way: only the asked-for re-plan talks to libvirt
echo '{"sample_interval": 3600}' >"$T_TMP/policy.json"

ask() { timeout "${2:-10}" perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or exit 1;
	print $s "$ARGV[1]\n"; my $l = <$s>; print $l // "";' "$SOCK" "$1"; }
# member PATH: a member of the JSON reply on stdin ("" when missing)
member() { jq -r "$1 | if . == null then \"\" else . end" 2>/dev/null; }
wait_log() {
	i=0
	until grep -q "$1" "$LOG"; do
		i=$((i + 1)); [ $i -ge "$2" ] && return 1; sleep 0.1
	done
}
start_daemon() {
	t_enabled "$T_TMP/state.json"
	"$B/vcpackd" --log-stderr --debug --connect "$U" --socket "$SOCK" \
		--state "$T_TMP/state.json" \
		--policy "$T_TMP/policy.json" >>"$LOG" 2>&1 &
	DPID=$!
	T_PIDS="$T_PIDS $DPID"
	i=0
	until ask ping 2 2>/dev/null | grep -q "replans=[1-9]"; do
		i=$((i + 1)); [ $i -ge 100 ] && return 1; sleep 0.1
	done
}
# since_stop: seconds since libvirtd was stopped
since_stop() { echo $(($(date +%s) - STOPPED)); }

start_daemon && t_pass "vcpackd connected and planned" ||
	t_fail "vcpackd did not plan"
kill -STOP "$LVD_PID"
STOPPED=$(date +%s)
ask '{"v":1,"op":"replan"}' 60 >"$T_TMP/replan.out" 2>&1 &
T_PIDS="$T_PIDS $!"
sleep 1.5

# ping and status answer within a second, saying the loop waits
t0=$(date +%s%N)
ask '{"v":1,"op":"ping"}' 5 >"$T_TMP/ping.out"
t1=$(date +%s%N)
t_eq "ping answers while libvirtd is stopped" true \
	"$(member .ok <"$T_TMP/ping.out")"
ms=$(((t1 - t0) / 1000000))
t_eq "within a second ($ms ms)" 1 "$([ $ms -lt 1000 ] && echo 1)"
t_eq "saying the loop waits" true "$(member .busy.waiting <"$T_TMP/ping.out")"
t_eq "in the re-plan" "a re-plan" "$(member .busy.in <"$T_TMP/ping.out")"
t_eq "for libvirt at its URI" "$U" "$(member .busy.uri <"$T_TMP/ping.out")"
ask '{"v":1,"op":"status"}' 5 >"$T_TMP/status.out"
t_eq "status answers too" true "$(member .ok <"$T_TMP/status.out")"
t_eq "from the last status (its plan)" 2 \
	"$(member .status.last.level <"$T_TMP/status.out")"
ms=$(member .status.busy.for_ms <"$T_TMP/status.out")
t_eq "with how long the loop waits (${ms} ms)" 1 \
	"$([ "${ms:-0}" -ge 1000 ] && [ "$ms" -le $(($(since_stop) * 1000 + 1000)) ] && echo 1)"
# the text protocol (the hook's) still answers
t_match "a text ping answers" "^ok connected" "$(ask ping 5)"

# a request that needs the loop: refused once the loop waited 1 s, saying
# why
ask '{"v":1,"op":"pause"}' 10 >"$T_TMP/pause.out"
t_eq "pause is refused while the loop waits" false \
	"$(member .ok <"$T_TMP/pause.out")"
t_match "saying why and that it follows" \
	"^vcpackd is busy: a re-plan for [0-9]+\.[0-9] s, waiting for libvirt at '.*libvirt-sock'; it carries out 'pause' once that ends$" \
	"$(member .error <"$T_TMP/pause.out")"
wait_log "has not answered for" 50 && t_pass "the wait is logged" ||
	t_fail "the wait is logged"
t_match "naming libvirt's URI and what waits" \
	"^libvirt at '.*libvirt-sock' has not answered for [0-9]+ s \(in a re-plan\)" \
	"$(grep "has not answered" "$LOG")"

# vcpack status would wait for libvirt too: it shows vcpackd's view
t0=$(date +%s)
t_vcpack status >"$T_TMP/st.out" 2>"$T_TMP/st.err"
rc=$?
t_eq "vcpack status ends at once (exit 1) while vcpackd waits" "1 1" \
	"$rc $([ $(($(date +%s) - t0)) -le 3 ] && echo 1)"
t_match "showing vcpackd busy" \
	"^         BUSY since .* \([0-9]+ s\) in a re-plan, waiting for libvirt, which has not answered; what follows is from before$" \
	"$(cat "$T_TMP/st.out")"
t_match "and why it does not connect" \
	"^vcpack: libvirt at '.*' has not answered vcpackd for [0-9]+ s: not connecting to it" \
	"$(cat "$T_TMP/st.err")"
# any other command: opening the connection is bounded
t0=$(date +%s)
VCPACK_CONNECT_TIMEOUT=2 t_vcpack list >/dev/null 2>"$T_TMP/list.err"
rc=$?
t_eq "vcpack list gives up after VCPACK_CONNECT_TIMEOUT (exit 1)" "1 1" \
	"$rc $([ $(($(date +%s) - t0)) -le 4 ] && echo 1)"
t_match "saying so" \
	"^vcpack: libvirt at '.*' did not answer in 2 s \(VCPACK_CONNECT_TIMEOUT\); nothing changed$" \
	"$(cat "$T_TMP/list.err")"
VCPACK_CONNECT_TIMEOUT=x t_vcpack list >/dev/null 2>"$T_TMP/bad.err"
t_eq "a bad VCPACK_CONNECT_TIMEOUT is refused by name" "2" "$?"

# bounded: the keepalive closes the connection (5 s x 3, ~20 s)
wait_log "closed; reconnecting" 400 && t_pass "the connection is given up" ||
	t_fail "the connection is given up"
t_eq "within 30 s of the stop ($(since_stop) s)" 1 \
	"$([ "$(since_stop)" -le 30 ] && echo 1)"
kill -CONT "$LVD_PID"
wait_log "^connected to .*" 1 # (the first)
i=0
until [ "$(grep -c '^connected to ' "$LOG")" -ge 2 ] || [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
t_eq "vcpackd reconnects once libvirtd answers" 2 \
	"$(grep -c '^connected to ' "$LOG")"
wait_log "^paused: " 100 && t_pass "the refused pause was carried out after" ||
	t_fail "the refused pause was carried out after"
t_eq "vcpackd is paused now" true \
	"$(ask '{"v":1,"op":"status"}' 5 | member .status.control.paused)"
t_eq "and answers without 'busy'" "" \
	"$(ask '{"v":1,"op":"ping"}' 5 | member .busy.for_ms)"

# SIGTERM while libvirtd is stopped (a re-plan waiting): vcpackd ends
# within the keepalive's bound
ask '{"v":1,"op":"resume"}' 5 >/dev/null
kill -STOP "$LVD_PID"
STOPPED=$(date +%s)
ask '{"v":1,"op":"replan"}' 60 >/dev/null 2>&1 &
T_PIDS="$T_PIDS $!"
sleep 2
kill -TERM "$DPID"
i=0
while kill -0 "$DPID" 2>/dev/null && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "SIGTERM ends vcpackd during a stall ($(since_stop) s)" 1 \
	"$(kill -0 "$DPID" 2>/dev/null || echo 1)"
kill -CONT "$LVD_PID"
t_done
