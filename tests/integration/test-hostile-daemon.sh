#!/bin/sh
# test-hostile-daemon.sh BUILD_DIR - vcpackd's control socket against
# clients that do not play along, on libvirt's test driver (in-process,
# a 1500-VM host, so that "status" is larger than a socket buffer):
# a client that sends "status" and never reads, one that reads a byte at
# a time, a request split across writes, several requests on one
# connection, a line past the size cap, and 1100 idle clients under
# `ulimit -n 1024`. Expected: the daemon keeps answering others within a
# deadline, never spins (its CPU time is read from /proc/PID/stat), and
# every refusal is one line. Every process is stopped by its pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
SOCK=$T_TMP/vcpackd.sock
NODE=$T_TMP/node.xml
{
	sed -n '/<node>/,/<\/memory>/p' "$here/../data/hosts/two-pkg.xml"
	# long names: a reply of about 400 KB, larger than any socket buffer
	pad=$(printf '%0200d' 0)
	i=1
	while [ $i -le 1500 ]; do
		printf "<domain type='test'><name>guest-%04d-$pad</name><memory>131072</memory><vcpu>4</vcpu><os><type>hvm</type></os></domain>\n" $i
		i=$((i + 1))
	done
	echo "</node>"
} >"$NODE"

# client.pl SOCKET MODE [ARGS]: the hostile clients (see each mode)
cat >"$T_TMP/client.pl" <<'PERL'
use strict; use warnings; use IO::Socket::UNIX; use Time::HiRes qw(sleep time);
my ($path, $mode, @a) = @ARGV;
$SIG{PIPE} = "IGNORE";	# a refused client still reads what it was told
sub conn { IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path) or die "connect: $!\n" }
sub line { my $s = shift; my $l = <$s>; defined $l ? $l : "EOF\n" }
if ($mode eq 'ask') {		# one request, its reply line
	my $s = conn(); print $s "$a[0]\n"; print line($s);
} elsif ($mode eq 'stall') {	# send status, never read; then count what came
	my $s = conn(); print $s "status\n"; $s->flush;
	open(my $f, '>', $a[0]) or die; print $f "sent\n"; close $f;
	sleep $a[1];
	my ($n, $buf) = (0, ''); $n += length($buf) while sysread($s, $buf, 65536);
	print "$n\n";
} elsif ($mode eq 'flood') {	# many requests in one write, never read
	my $s = conn(); $s->autoflush(1); print $s "status\n" x $a[0];
	open(my $f, '>', $a[1]) or die; print $f "sent\n"; close $f;
	sleep $a[2];
} elsif ($mode eq 'slow') {	# read the reply one byte at a time
	my $s = conn(); print $s "status\n"; $s->flush;
	my ($got, $c) = ('', '');
	while (length($got) < $a[0] && sysread($s, $c, 1)) { $got .= $c; sleep 0.001 }
	print substr($got, 0, 7), " ", length($got), "\n";
} elsif ($mode eq 'split') {	# one request in two writes
	my $s = conn(); $s->autoflush(1);
	print $s substr($a[0], 0, 3); sleep 0.3; print $s substr($a[0], 3) . "\n";
	print line($s);
} elsif ($mode eq 'two') {	# two requests in one write
	my $s = conn(); $s->autoflush(1); print $s "$a[0]\n$a[1]\n";
	print line($s); print line($s);
} elsif ($mode eq 'long') {	# a line past the cap
	my $s = conn(); $s->autoflush(1); print $s ('x' x 10000) . "\n";
	print line($s); print line($s);
} elsif ($mode eq 'idle') {	# N connections that say nothing
	my @s;
	for (1 .. $a[0]) { my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path) or last; push @s, $s }
	open(my $f, '>', $a[1]) or die; print $f scalar(@s), "\n"; close $f;
	sleep 60;
}
PERL
C() { perl "$T_TMP/client.pl" "$SOCK" "$@"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

(ulimit -n 1024; exec "$B/vcpackd" --foreground --connect "test://$NODE" \
	--state "$T_TMP/state.json" \
	--socket "$SOCK" >"$T_TMP/vcpackd.log" 2>&1) &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0; until C ask ping 2>/dev/null | grep -q '^ok connected replans' ||
	C ask ping 2>/dev/null | grep -q '^ok connected' || [ $i -ge 100 ]; do
	sleep 0.2; i=$((i + 1)); done
# the first plan of 1500 VMs is made; its status is the big reply
i=0; until C ask status 2>/dev/null | grep -q '"last":{' || [ $i -ge 100 ]; do
	sleep 0.2; i=$((i + 1)); done
full=$(C ask status | wc -c)
t_eq "status of 1500 VMs is larger than a socket buffer ($full bytes)" 1 $((full > 300000))

# a client that sends status and never reads
C stall "$T_TMP/stalled" 13 >"$T_TMP/stall.out" 2>&1 &
STALL=$!; T_PIDS="$T_PIDS $STALL"
i=0; while [ ! -s "$T_TMP/stalled" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
t_match "a stalled client does not block others (ping within 3 s)" "^ok connected" \
	"$(timeout 3 perl "$T_TMP/client.pl" "$SOCK" ask ping 2>&1)"
t_eq "nor a full status for another client (within 5 s)" "$full" \
	"$(timeout 5 perl "$T_TMP/client.pl" "$SOCK" ask status 2>/dev/null | wc -c)"

# 1000 requests in one write, never read: one reply is held, not 1000
rss0=$(rss_kb "$DPID")
C flood 1000 "$T_TMP/flooded" 3 >/dev/null 2>&1 &
FLOOD=$!; T_PIDS="$T_PIDS $FLOOD"
i=0; while [ ! -s "$T_TMP/flooded" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
t_match "a flood of requests that is never read does not block others" "^ok connected" \
	"$(timeout 3 perl "$T_TMP/client.pl" "$SOCK" ask ping 2>&1)"
rss1=$(rss_kb "$DPID")
t_eq "and holds about one reply for it (RSS grew $(( (rss1 - rss0) / 1024 )) MiB; < 16)" 1 \
	$(( rss1 - rss0 < 16384 ))
kill "$FLOOD" 2>/dev/null; wait "$FLOOD" 2>/dev/null

# a client that reads one byte at a time, while others are served
C slow 3000 >"$T_TMP/slow.out" 2>&1 &
SLOW=$!; T_PIDS="$T_PIDS $SLOW"
sleep 0.2
t_match "a slow reader does not block others" "^ok connected" \
	"$(timeout 3 perl "$T_TMP/client.pl" "$SOCK" ask ping 2>&1)"
wait $SLOW
t_eq "the slow reader gets its reply byte by byte" '{"pid": 3000' "$(cat "$T_TMP/slow.out")"

# framing
t_match "a request split across two writes is one request" '^\{"pid":[0-9]+,' \
	"$(timeout 5 perl "$T_TMP/client.pl" "$SOCK" split status 2>&1)"
out=$(timeout 5 perl "$T_TMP/client.pl" "$SOCK" two ping replan 2>&1)
t_match "two requests on one connection: the first answered" "^ok connected" "$out"
t_match "two requests on one connection: the second answered" "^ok replans=[0-9]+" \
	"$(printf '%s\n' "$out" | sed -n 2p)"
out=$(timeout 5 perl "$T_TMP/client.pl" "$SOCK" two '{"v":1,"op":"ping"}' '{"v":9,"op":"ping"}' 2>&1)
t_match "version 1: a JSON reply" '^\{"v":1,"ok":true,"connected":true' "$out"
t_match "an unknown version: refused, saying which" '"ok":false,"error":"request: protocol version 9' \
	"$(printf '%s\n' "$out" | sed -n 2p)"
out=$(timeout 5 perl "$T_TMP/client.pl" "$SOCK" long 2>&1)
t_eq "a line past the cap: one error line, then closed" \
	'{"v":1,"ok":false,"error":"request line longer than 4096 bytes"}|EOF' \
	"$(printf '%s\n' "$out" | tr '\n' '|' | sed 's/|$//')"

# the stalled client is dropped at its deadline (10 s without progress)
wait $STALL
got=$(cat "$T_TMP/stall.out")
t_eq "the stalled client was cut off at its deadline (got part of the reply, then EOF)" 1 \
	"$([ "$got" -gt 0 ] 2>/dev/null && [ "$got" -lt "$full" ] && echo 1)"

# 1100 idle clients against a daemon limited to 1024 descriptors
(ulimit -n 4096; exec perl "$T_TMP/client.pl" "$SOCK" idle 1100 "$T_TMP/idle") &
IDLE=$!; T_PIDS="$T_PIDS $IDLE"
i=0; while [ ! -s "$T_TMP/idle" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "1100 idle clients connected" 1100 "$(cat "$T_TMP/idle")"
# (8 s: time enough for a loaded machine, still short of the 10 s
# deadline at which the daemon drops clients that make no progress)
out=$(timeout 8 perl "$T_TMP/client.pl" "$SOCK" ask ping 2>&1)
t_match "then a normal client is served or refused in one line" \
	'^(ok connected|\{"v":1,"ok":false,"error":"too many clients)' "$out"
t0=$(cpu_ticks "$DPID"); sleep 3; t1=$(cpu_ticks "$DPID")
t_eq "no spin: under 0.3 s of CPU in 3 s with the idle clients connected ($((t1 - t0)) ticks)" \
	1 $(( t1 - t0 < 30 ))
fds=$(ls "/proc/$DPID/fd" | wc -l)
t_eq "the daemon holds a bounded number of descriptors ($fds)" 1 $((fds < 200))
kill "$IDLE"; wait "$IDLE" 2>/dev/null
t_match "and answers once they are gone" "^ok connected" \
	"$(timeout 8 perl "$T_TMP/client.pl" "$SOCK" ask ping 2>&1)"
# an escaped NUL in a key: json-c would cut "op\u0000" to a second
# "op" past the duplicate check, and the daemon paused (and said so in
# its state file). Refused by name; nothing changes.
out=$(C ask '{"v":1,"op":"ping","op\u0000":"pause"}' 2>&1)
t_match "a request with an escaped NUL: refused, named" \
	'"ok":false,"error":"request: not valid JSON at line 1: \\\\u0000 in a string' "$out"
t_eq "and the daemon is not paused" false \
	"$(C ask '{"v":1,"op":"status"}' | jq .status.control.paused)"
t_eq "nor its state file written" no "$([ -e "$T_TMP/state.json" ] && echo yes || echo no)"
t_eq "the daemon is still running" 1 "$(kill -0 "$DPID" 2>/dev/null && echo 1)"
[ $FAIL -gt 0 ] && sed 's/^/  vcpackd: /' "$T_TMP/vcpackd.log" | tail -20
t_done
