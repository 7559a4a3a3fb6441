#!/bin/sh
# test-daemon-reconnect.sh BUILD_DIR - libvirtd goes away while vcpackd
# is in the middle of a re-plan (libvirtd stopped with SIGSTOP, a re-plan
# asked for, so vcpackd waits for its answer, then libvirtd killed): a
# connection closed mid-pass is no failure. vcpackd says the pass was
# interrupted, logs nothing as failed, reconnects to the restarted
# libvirtd and plans there. All processes stopped by pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
start_libvirtd || { t_fail "start libvirtd"; t_done; exit 1; }
U="test+unix:///default?socket=$LVD_SOCK"
SOCK=$T_TMP/run/vcpackd.sock
LOG=$T_TMP/vcpackd.log
# no sampling tick in the way: only the asked-for re-plan talks to libvirt
echo '{"sample_interval": 3600}' >"$T_TMP/policy.json"

ask() { timeout "${2:-10}" perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or exit 1;
	print $s "$ARGV[1]\n"; my $l = <$s>; print $l // "";' "$SOCK" "$1"; }
# wait_for WHAT TENTHS: until `ask ping` matches WHAT
wait_for() {
	i=0
	until ask ping 2 2>/dev/null | grep -q "$1"; do
		i=$((i + 1)); [ $i -ge "$2" ] && return 1; sleep 0.1
	done
}

t_enabled "$T_TMP/state.json"
"$B/vcpackd" --foreground --debug --connect "$U" --socket "$SOCK" \
	--state "$T_TMP/state.json" \
	--policy "$T_TMP/policy.json" >>"$LOG" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
wait_for "^ok connected" 100 && t_pass "vcpackd connected" ||
	t_fail "vcpackd did not connect"
wait_for "replans=[1-9]" 100 || t_fail "no first plan"

# libvirtd stopped: the asked-for re-plan waits for it; vcpackd's loop
# waits, its control socket still answers, saying so
# (test-daemon-stall.sh has the rest)
kill -STOP "$LVD_PID"
ask replan 60 >"$T_TMP/replan.out" 2>&1 &
T_PIDS="$T_PIDS $!"
i=0
until ask '{"v":1,"op":"ping"}' 2 2>/dev/null | grep -q '"waiting":true'; do
	i=$((i + 1)); [ $i -ge 100 ] && break; sleep 0.1
done
t_eq "vcpackd waits for the stopped libvirtd, and says so" 1 "$([ $i -lt 100 ] && echo 1)"
# libvirtd dies under that call: the connection closes mid-pass
kill -9 "$LVD_PID"
kill -CONT "$LVD_PID" 2>/dev/null
old=$LVD_PID
while kill -0 "$old" 2>/dev/null; do sleep 0.1; done
rm -f "$LVD_RUN/libvirtd.pid" "$LVD_SOCK"
T_PIDS=$(for p in $T_PIDS; do [ "$p" = "$old" ] || echo "$p"; done)
start_libvirtd || t_fail "restart libvirtd"
# logged once connected again: "connected to" (a second time), then the
# first plan there (reconnect backoff 1, 2, 4 s)
replanned() { awk '/^connected to /{c++} c == 2 && /^plan: /{p = 1} END{exit !p}' "$LOG"; }
i=0; until replanned || [ $i -ge 200 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "vcpackd reconnects to the new libvirtd" 2 "$(grep -c '^connected to ' "$LOG")"
t_match "and plans there" "^plan: .*, 0 failed$" "$(grep '^plan: ' "$LOG" | tail -n 1)"
t_match "the interrupted re-plan is said" \
	"^re-plan interrupted: the connection to '.*' closed \(.*\); planning again once reconnected$" \
	"$(cat "$LOG")"
t_nomatch "nothing logged as failed" "([1-9][0-9]* failed|Failed|[Ee]rror)" \
	"$(grep -v -e "^Failed to connect to '$U'" "$LOG")"
t_eq "vcpackd still runs" 0 "$(kill -0 "$DPID" 2>/dev/null; echo $?)"

t_done
