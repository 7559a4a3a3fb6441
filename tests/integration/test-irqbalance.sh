#!/bin/sh
# test-irqbalance.sh BUILD_DIR - vcpack against a real irqbalance (Debian
# 12's 1.9.2, from its .deb, unpacked into the build directory; never
# installed, so no irqbalance service starts here): `apply` under policy
# irq_affinity "on" asks it, over its own socket, to ban the CPUs of the
# package the plan idles, and irqbalance's own answer to "setup" shows
# them banned; "off" gives it its own list back.
#
# irqbalance runs in a private mount namespace where /proc/irq is
# read-only and /run/irqbalance is the test's directory, so it can move
# none of this machine's interrupts (it logs that it cannot). The host
# is libvirt's test driver (two packages, CPUs 4-7,12-15 on the second)
# with a fixture root naming the real irqbalance's pid. Needs root and
# unshare; skipped, saying why, without them or without the .deb.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
skip() { echo "SKIP: $*"; echo "test-irqbalance: $PASS passed, $FAIL failed, 1 skipped"; exit 0; }

[ "$(id -u)" = 0 ] || skip "not root (irqbalance's socket takes root's requests only)"
command -v unshare >/dev/null || skip "no unshare"
command -v python3 >/dev/null || skip "no python3 (asks irqbalance what it bans)"
IRQB=$B/irqbalance-deb/usr/sbin/irqbalance
if [ ! -x "$IRQB" ]; then
	rm -rf "$B/irqbalance-deb"
	mkdir -p "$B/irqbalance-deb"
	(cd "$B/irqbalance-deb" && apt-get download -q irqbalance >/dev/null 2>&1 &&
		dpkg-deb -x irqbalance_*.deb .) ||
		skip "could not fetch irqbalance's .deb (apt-get download irqbalance)"
fi
t_setup

R=$T_TMP/root
mkdir -p "$R/run/irqbalance" "$R/run/vcpack"
cat >"$T_TMP/ns.sh" <<EOF
set -e
mount --bind /proc/irq /proc/irq
mount -o remount,bind,ro /proc/irq
if [ -w /proc/irq/default_smp_affinity ]; then
	echo "/proc/irq still writable: not starting irqbalance" >&2; exit 1
fi
mkdir -p /run/irqbalance
mount --bind "$R/run/irqbalance" /run/irqbalance
exec "$IRQB" --foreground
EOF
unshare -m --propagation private sh "$T_TMP/ns.sh" >"$T_TMP/irqbalance.log" 2>&1 &
IPID=$!
T_PIDS="$T_PIDS $IPID"
i=0
until [ -S "$R/run/irqbalance/irqbalance$IPID.sock" ] || [ $i -gt 100 ]; do
	kill -0 $IPID 2>/dev/null || break
	sleep 0.1; i=$((i + 1))
done
[ -S "$R/run/irqbalance/irqbalance$IPID.sock" ] ||
	skip "irqbalance did not start in a private mount namespace: $(tail -n 3 "$T_TMP/irqbalance.log")"
mkdir -p "$R/proc/$IPID"
echo irqbalance >"$R/proc/$IPID/comm"
echo $IPID >"$R/run/irqbalance.pid"

# irqbalance's own word on what it bans: its answer to "setup", asked
# with time to answer (it dies of SIGPIPE when a client hangs up first)
banned() {
	python3 "$here/irqbsock.py" ask "$R/run/irqbalance/irqbalance$IPID.sock" setup |
		sed -n 's/.*BANNED //p'
}
# until_banned MASK: irqbalance takes a request at its next rescan (every
# 10 s): wait up to 30 s for its banned mask to read MASK
until_banned() {
	i=0
	while [ "$(banned)" != "$1" ] && [ $i -lt 30 ]; do
		sleep 1; i=$((i + 1))
	done
	banned
}
t_eq "before: irqbalance bans nothing" 00000000 "$(banned)"

echo '{"default_vcpu_demand": 0.15, "level": 2, "irq_affinity": "on"}' >"$T_TMP/on.json"
echo '{"default_vcpu_demand": 0.15, "level": 2, "irq_affinity": "off"}' >"$T_TMP/off.json"
ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" --json apply 2>/dev/null)
t_eq "on: apply exit 0" 0 $?
t_eq "on: irqbalance found" $IPID "$(echo "$ap" | jq .irqs.irqbalance_pid)"
t_eq "on: asked, in force" '{"cpus":"4-7,12-15","asked":true,"in_force":true,"gave_back":false,"error":null}' \
	"$(echo "$ap" | jq -c .irqs.irqbalance_request)"
# CPUs 4-7 and 12-15: bits 0xf0f0 of irqbalance's mask
t_eq "on: irqbalance bans the idle package's CPUs" 0000f0f0 "$(until_banned 0000f0f0)"
t_eq "on: still running" yes "$(kill -0 $IPID 2>/dev/null && echo yes || echo no)"
t_eq "on: recorded" "$IPID 4-7,12-15" "$(cat "$R/run/vcpack/irqbalance-ban")"

ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/off.json" --json apply 2>/dev/null)
t_eq "off: given back" true "$(echo "$ap" | jq .irqs.irqbalance_request.gave_back)"
t_eq "off: irqbalance back to its own list (none)" 00000000 "$(until_banned 00000000)"
t_eq "off: still running" yes "$(kill -0 $IPID 2>/dev/null && echo yes || echo no)"
t_eq "off: record gone" no "$([ -e "$R/run/vcpack/irqbalance-ban" ] && echo yes || echo no)"
# ---- vcpackd: asks after its apply, gives back on SIGTERM with
# --restore-on-exit; both logged ----
t_enabled "$T_TMP/state.json"
"$B/vcpackd" --foreground --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" \
	--state "$T_TMP/state.json" \
	--socket "$T_TMP/vcpackd.sock" --restore-on-exit >"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
t_eq "vcpackd: irqbalance bans the idle package's CPUs" 0000f0f0 "$(until_banned 0000f0f0)"
t_match "vcpackd: the request logged" "irqbalance \\(pid $IPID\\) asked to keep IRQs off CPUs 4-7,12-15" "$(cat "$T_TMP/vcpackd.log")"
kill -TERM "$DPID"
i=0; while kill -0 "$DPID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "vcpackd: stopped by SIGTERM" no "$(kill -0 "$DPID" 2>/dev/null && echo yes || echo no)"
t_match "vcpackd: giving back logged" "irqbalance \\(pid $IPID\\) given its own banned CPUs back \\(unset\\): no package idles" "$(cat "$T_TMP/vcpackd.log")"
t_eq "vcpackd --restore-on-exit: irqbalance's own list back" 00000000 "$(until_banned 00000000)"
t_eq "vcpackd: irqbalance still running" yes "$(kill -0 $IPID 2>/dev/null && echo yes || echo no)"
t_nomatch "irqbalance logged no socket trouble" "Permission denied|couldn't be bound" "$(cat "$T_TMP/irqbalance.log")"
t_done
