#!/bin/sh
# test-fleet-silent.sh BUILD_DIR - `vcpack fleet status` over hosts that
# accept a connection and never answer (one perl process listening on N
# UNIX sockets in the test's temp dir, reached as
# qemu+unix:///system?socket=...), more of them than a lowered
# `ulimit -n` lets the CLI hold: every host is still reported (timed out,
# or not contacted because the descriptor budget is held by hosts that
# did not answer), exit status 1 as documented, no crash, bounded time.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
N=300

cat >"$T_TMP/silent.pl" <<'PERL'
use strict; use warnings; use IO::Socket::UNIX; use IO::Select;
my ($dir, $n, $ready) = @ARGV;
my $sel = IO::Select->new; my @held;
for my $i (1 .. $n) {
	my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => "$dir/h$i.sock",
				      Listen => 128) or die "listen $i: $!\n";
	$sel->add($s);
}
open(my $f, '>', $ready) or die; print $f "$n\n"; close $f;
while (1) { for my $s ($sel->can_read) { my $c = $s->accept or next; push @held, $c } }
PERL
mkdir "$T_TMP/s"
(ulimit -n 4096; exec perl "$T_TMP/silent.pl" "$T_TMP/s" $N "$T_TMP/ready") &
T_PIDS="$T_PIDS $!"
i=0; while [ ! -s "$T_TMP/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "$N silent hosts listening" $N "$(cat "$T_TMP/ready" 2>/dev/null)"

fleet() { # FILE N CONCURRENCY
	{
		echo '{"hosts": ['
		i=1
		while [ $i -le "$2" ]; do
			[ $i -gt 1 ] && echo ,
			printf '{"uri": "qemu+unix:///system?socket=%s/s/h%d.sock", "name": "h%d"}' "$T_TMP" $i $i
			i=$((i + 1))
		done
		printf '], "defaults": {"concurrency": %d, "timeout": 1}}\n' "$3"
	} >"$1"
}

# more silent hosts than 256 descriptors can hold
fleet "$T_TMP/fleet.json" $N 16
s=$(date +%s)
(ulimit -n 256; exec timeout 120 "$B/vcpack" fleet --hosts "$T_TMP/fleet.json" \
	--json status >"$T_TMP/out.json" 2>"$T_TMP/err.txt")
rc=$?
e=$(date +%s)
t_eq "exit 1: hosts unreachable (not a crash, not a hang)" 1 $rc
t_nomatch "no 'Too many open files' inside libvirt or GLib" "Too many open files|GLib-ERROR" \
	"$(cat "$T_TMP/err.txt")"
t_eq "every host reported" $N "$(jq '.hosts|length' "$T_TMP/out.json")"
t_eq "none reachable" 0 "$(jq '.totals.reachable' "$T_TMP/out.json")"
t_eq "each host timed out or was not contacted, saying so" $N \
	"$(jq '[.hosts[].error|select(test("^no answer within 1 s$|^not contacted: .*file descriptor limit"))]|length' "$T_TMP/out.json")"
t_eq "some hosts were tried and timed out" 1 \
	"$(jq '[.hosts[].error|select(test("^no answer"))]|length > 0' "$T_TMP/out.json" | sed 's/true/1/')"
t_eq "bounded run time (under 30 s: $((e - s)) s)" 1 $(( e - s < 30 ))

# text output: the same, with the totals line
out=$(ulimit -n 256; timeout 120 "$B/vcpack" fleet --hosts "$T_TMP/fleet.json" status 2>&1)
t_eq "text: exit 1" 1 $?
t_match "text: totals for every host" "fleet: $N hosts, 0 reachable" "$out"

# plan reads every host the same way
out=$(ulimit -n 256; timeout 120 "$B/vcpack" fleet --hosts "$T_TMP/fleet.json" --json plan 2>&1)
t_eq "plan: exit 1, no crash" 1 $?
t_nomatch "plan: no 'Too many open files'" "Too many open files|GLib-ERROR" "$out"

# within the budget every host is tried
fleet "$T_TMP/small.json" 40 40
(ulimit -n 1024; exec timeout 60 "$B/vcpack" fleet --hosts "$T_TMP/small.json" \
	--json status >"$T_TMP/small.out" 2>&1)
t_eq "40 silent hosts under 1024 descriptors: exit 1" 1 $?
t_eq "40 silent hosts: all tried, all timed out" 40 \
	"$(jq '[.hosts[].error|select(. == "no answer within 1 s")]|length' "$T_TMP/small.out")"
t_done
