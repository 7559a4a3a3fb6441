#!/bin/sh
# fleet.sh BUILD_DIR - `vcpack fleet status` and `fleet plan` on 100 and
# 1000 simulated hosts: four private libvirtds (test driver, reached over
# their UNIX sockets like any remote host), each listed under many host
# names, each answering with a few VMs. Prints wall time (median of 3)
# and peak RSS; targets: status of 1000 hosts < 5 s at concurrency 64.
# Also one round of the standby loop (`fleet run --rounds 1`, every host
# "action": "none", so it decides and acts on nothing): what a round of
# observation, decision and state file costs beside plan.
# The pure planner on 1000 hosts x 20,000 VMs is bench_fleetplan's.
B=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")/../tests/integration" && pwd)
T_NAME=bench-fleet
. "$here/lib.sh"
t_setup
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

socks=""
for dn in d1 d2 d3 d4; do
	start_libvirtd "$dn" || exit 1
	U="test+unix:///default?socket=$LVD_SOCK"
	hold_connection "$U" || exit 1
	for i in 1 2 3 4; do
		printf "<domain type='test'><name>%s-vm%d</name><memory>131072</memory><vcpu>2</vcpu><metadata><v:consolidation xmlns:v='urn:vcpack:metadata:1' priority='low'/></metadata><os><type>hvm</type></os></domain>\n" "$dn" "$i" >"$T_TMP/vm.xml"
		virsh -q -c "$U" define "$T_TMP/vm.xml" >/dev/null && virsh -q -c "$U" start "$dn-vm$i" >/dev/null
	done
	socks="$socks $LVD_SOCK"
done

fleet() { # N -> fleet file with N hosts over the four daemons
	{
		printf '{"defaults": {"concurrency": 64, "timeout": 30}, "hosts": [\n'
		i=0
		while [ $i -lt "$1" ]; do
			s=$(echo $socks | cut -d' ' -f$((i % 4 + 1)))
			[ $i -gt 0 ] && printf ',\n'
			printf '{"uri": "test+unix:///default?socket=%s", "name": "h%04d"}' "$s" "$i"
			i=$((i + 1))
		done
		printf ']}\n'
	} >"$T_TMP/fleet-$1.json"
	jq '. + {"standby": {"low_hold": 0}}' "$T_TMP/fleet-$1.json" >"$T_TMP/sb-$1.json"
	mv "$T_TMP/sb-$1.json" "$T_TMP/fleet-$1.json"
}

measure() { # N CMD -> "seconds rss_kb" per run
	json=--json
	case "$2" in *run*) json="--state $T_TMP/state.json";; esac
	for r in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$T_TMP/t" "$B/vcpack" fleet --hosts "$T_TMP/fleet-$1.json" $json $2 >/dev/null 2>&1
		cat "$T_TMP/t"
	done
}
for n in 100 1000; do
	fleet "$n"
	for cmd in status "--sample 0 plan" "--sample 0 run --rounds 1"; do
		m=$(measure "$n" "$cmd")
		t=$(echo "$m" | awk '{print $1}' | median)
		rss=$(echo "$m" | awk '{print $2}' | sort -n | tail -1)
		echo "fleet $cmd, $n hosts (concurrency 64, 4 test-driver daemons): median ${t} s of 3, peak RSS ${rss} KiB"
	done
	echo "  reachable: $("$B/vcpack" fleet --hosts "$T_TMP/fleet-$n.json" --json status 2>/dev/null | jq .totals.reachable) of $n"
done
echo "target: status of 1000 reachable hosts < 5 s at concurrency 64"
