#!/bin/sh
# test-transport.sh BUILD_DIR - a transport that dies under vcpack: an
# `ssh` that exits at once (as one that refuses authentication does),
# first in PATH, so libvirt's qemu+ssh:// transport writes into a closed
# pipe. Every program says so per host and exits with its status, never
# killed by SIGPIPE (exit 141, no output). Nothing leaves this machine:
# the fake ssh connects nowhere.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
VCPACK=$B/vcpack
mkdir -p "$T_TMP/bin"
printf '#!/bin/sh\nexit 255\n' >"$T_TMP/bin/ssh"
chmod +x "$T_TMP/bin/ssh"
SSH_PATH="$T_TMP/bin:$PATH"

# (before the fix: killed by SIGPIPE in 5-10% of runs of each)
for cmd in list status plan; do
	n=0 killed=0 said=0
	while [ $n -lt 60 ]; do
		out=$(PATH=$SSH_PATH "$VCPACK" --connect qemu+ssh://h1.invalid/system --sample 0 $cmd 2>&1)
		rc=$?
		[ $rc = 141 ] && killed=$((killed + 1))
		case $out in *"vcpack: Failed to connect to 'qemu+ssh://h1.invalid/system'"*)
			said=$((said + 1)) ;; esac
		n=$((n + 1))
	done
	t_eq "$cmd over a dying ssh: never killed by SIGPIPE (60 runs)" 0 "$killed"
	t_eq "$cmd over a dying ssh: the failure said each time" 60 "$said"
done

# the fleet: a line per host, the reachable one still shown
t_test_libvirtd
{
	echo '{"hosts": ['
	for i in 1 2 3 4 5 6 7 8; do
		echo "{\"uri\": \"qemu+ssh://h$i.invalid/system\", \"name\": \"h$i\"},"
	done
	echo "{\"uri\": \"$U\", \"name\": \"good\"}]}"
} >"$T_TMP/fleet.json"
n=0 killed=0 full=0
while [ $n -lt 10 ]; do
	out=$(PATH=$SSH_PATH "$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 status 2>&1)
	[ $? = 141 ] && killed=$((killed + 1))
	# every ssh host named as unreachable, and the good one shown
	k=$(echo "$out" | grep -c "h[1-8] .*unreachable\|'h[1-8]'.*[Ff]ailed to connect")
	[ "$k" -ge 8 ] && echo "$out" | grep -q "good" && full=$((full + 1))
	n=$((n + 1))
done
t_eq "fleet status over dying ssh: never killed by SIGPIPE (10 runs)" 0 "$killed"
t_eq "fleet status over dying ssh: each host reported, every run" 10 "$full"
[ $full -lt 10 ] && echo "$out" | sed 's/^/    /'
t_done
