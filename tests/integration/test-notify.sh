#!/bin/sh
# test-notify.sh BUILD_DIR - vcpackd's messages to systemd (sd_notify):
# received here on a datagram socket passed as NOTIFY_SOCKET, as systemd
# would. READY=1 with the plan's STATUS once applied, WATCHDOG=1 at half
# of WATCHDOG_USEC (none when WATCHDOG_PID is another process),
# RELOADING=1 then READY=1 around SIGHUP (also when the new policy is
# refused), STOPPING=1 on SIGTERM, and READY=1 with a waiting STATUS when
# libvirt is not there. vcpackd runs on libvirt's embedded test driver.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
NS=$T_TMP/notify.sock
OUT=$T_TMP/notify.out
POL=$T_TMP/policy.json
echo '{}' >"$POL"

# a receiver: one line per datagram, its lines joined with " | "
perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Type => SOCK_DGRAM(), Local => $ARGV[0])
		or die "bind: $!";
	$| = 1;
	while (defined $s->recv(my $b, 4096)) { $b =~ s/\n/ | /g; print "$b\n"; }
	' "$NS" >>"$OUT" 2>&1 &
T_PIDS="$T_PIDS $!"
i=0; until [ -S "$NS" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done

# wait_for PATTERN: until a datagram matches (5 s at most)
wait_for() {
	i=0; until grep -Eq -- "$1" "$OUT" || [ $i -ge 50 ]; do
		sleep 0.1; i=$((i + 1)); done
}

NOTIFY_SOCKET=$NS WATCHDOG_USEC=200000 "$B/vcpackd" --foreground \
	--connect test:///default --policy "$POL" --socket "$T_TMP/vcpackd.sock" \
	--state "$T_TMP/state.json" >"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
wait_for '^READY=1'
# not enabled yet (a new install): the plan is shown, not carried out
t_eq "the first message is READY=1 with the plan it would carry out" \
	"READY=1 | STATUS=not enabled: observing only; planned level 2, 1 of 2 packages active, 4 changes" \
	"$(head -n 1 "$OUT")"
sleep 1
n=$(grep -c '^WATCHDOG=1' "$OUT")
t_eq "WATCHDOG=1 every 100 ms for WATCHDOG_USEC=200000 (4 or more in 1 s)" yes \
	"$([ "$n" -ge 4 ] && echo yes || echo "no: $n")"

: >"$T_TMP/mark"
kill -HUP $DPID
wait_for '^RELOADING=1'
sleep 0.3
t_match "SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1" \
	'^RELOADING=1 \| MONOTONIC_USEC=[0-9]+@READY=1@$' \
	"$(grep -v '^WATCHDOG' "$OUT" | tail -n +2 | head -n 2 | tr '\n' '@')"
echo '{"level": 7}' >"$POL"
kill -HUP $DPID
sleep 0.5
t_match "SIGHUP with a refused policy: READY=1 again (the old policy stays)" \
	'^RELOADING=1 \| MONOTONIC_USEC=[0-9]+@READY=1@$' \
	"$(grep -v '^WATCHDOG\|^STATUS' "$OUT" | tail -n 2 | tr '\n' '@')"
t_match "the refusal is logged" "keeping the previous policy" "$(cat "$T_TMP/vcpackd.log")"
echo '{"sample_interval": 4, "shrink_after": 10}' >"$POL"
kill -HUP $DPID
sleep 0.5
t_match "a reload applies sample_interval and shrink_after at once (issue 12)" \
	"policy reloaded: sampling every 4s, demand held 3 samples" \
	"$(cat "$T_TMP/vcpackd.log")"

C() { "$B/vcpack" --connect test:///default --daemon-socket "$T_TMP/vcpackd.sock" "$@"; }
C enable >/dev/null 2>&1
wait_for '^STATUS=pin mode'
t_eq "vcpack enable: STATUS is the plan carried out" \
	"STATUS=pin mode, level 2, 1 of 2 packages active, 1 of 1 VMs managed" \
	"$(grep '^STATUS=' "$OUT" | tail -n 1)"
C pause >/dev/null 2>&1
wait_for '^STATUS=paused'
t_eq "vcpack pause: STATUS says paused" \
	"STATUS=paused: nothing is changed until 'vcpack resume'" \
	"$(grep '^STATUS=' "$OUT" | tail -n 1)"
C resume >/dev/null 2>&1
sleep 0.3
t_match "vcpack resume: STATUS is the plan again" "^STATUS=pin mode, level" \
	"$(grep '^STATUS=' "$OUT" | tail -n 1)"

kill $DPID
i=0; while kill -0 $DPID 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "SIGTERM: the last message is STOPPING=1" "STOPPING=1" "$(tail -n 1 "$OUT")"

# the watchdog is another process's: vcpackd sends none
: >"$OUT"
echo '{}' >"$POL"
NOTIFY_SOCKET=$NS WATCHDOG_USEC=100000 WATCHDOG_PID=1 "$B/vcpackd" --foreground --state "$T_TMP/state.json" \
	--connect test:///default --policy "$POL" --socket "$T_TMP/vcpackd.sock" \
	>>"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
wait_for '^READY=1'
sleep 0.5
t_eq "WATCHDOG_PID of another process: no WATCHDOG=1" 0 "$(grep -c '^WATCHDOG=1' "$OUT")"
kill $DPID
i=0; while kill -0 $DPID 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

# no libvirt: ready (systemd must not time out), and saying why
: >"$OUT"
NOTIFY_SOCKET=$NS "$B/vcpackd" --foreground --state "$T_TMP/state.json" \
	--connect "test+unix:///default?socket=$T_TMP/nothing.sock" --policy "$POL" \
	--socket "$T_TMP/vcpackd.sock" >>"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
wait_for '^READY=1'
t_match "no libvirt: READY=1 and a STATUS that says it waits" \
	"^READY=1 \| STATUS=waiting for libvirt at 'test\+unix:///default\?socket=.*' \(retry in 1s\)$" \
	"$(head -n 1 "$OUT")"
kill $DPID
[ $FAIL -gt 0 ] && sed 's/^/  vcpackd: /' "$T_TMP/vcpackd.log" && sed 's/^/  notify: /' "$OUT"
t_done
