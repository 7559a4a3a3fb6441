#!/bin/sh
# test-deb-maint.sh BUILD_DIR KERNEL - the Debian maintainer scripts
# (debian/vcpack.postinst, .prerm, .postrm) against a private
# qemu:///session libvirtd with real QEMU (TCG) guests: install, an
# upgrade in between, remove and purge. After remove every guest's pins
# (its vCPU and emulator threads in /proc, `virsh vcpupin`) and memory
# nodeset must be what they were before install, with no vcpack record
# left; after purge the state directories are gone.
#
# The scripts are run from debian/ as they are, where #DEBHELPER# is a
# comment: the snippets dh_installsystemd puts there (enable, start,
# restart after upgrade, mask on purge) would change this machine's
# systemd state, and tests/deb/run.sh checks them in the built package.
# What the scripts ask of systemd goes to a stub deb-systemd-invoke first
# on PATH (VCPACK_MAINT_SYSTEMD names an existing directory, so the
# scripts take systemd as running): it records each call, and "stop
# vcpackd.service" stops this test's vcpackd, as systemd would. The
# upgrade's restart of vcpackd (debhelper's, after postinst) is the test
# stopping and starting it; its first plan waits for the VMs' measured
# demand (takeover.h: on this one-package machine the assumed demand
# would plan the same, test_planner.c shows a host where it does not)
# and must change nothing. The other overrides point the scripts at the
# private libvirtd (VCPACK_MAINT_URI), the built vcpack
# (VCPACK_MAINT_BIN), this test's vcpackd (VCPACK_SOCKET), state
# directories of its own (VCPACK_MAINT_STATE_DIR, VCPACK_MAINT_RUN_DIR)
# and an empty root for IRQs (VCPACK_MAINT_ROOT): nothing of the
# machine's is touched.
B=$1
KERNEL=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
qemu_host "$KERNEL"
SOCK=$T_TMP/vcpackd.sock
ST=$T_TMP/var-lib-vcpack
RUN=$T_TMP/run-vcpack
# $T_TMP/root: vcpackd's and vcpack restore's --root, so that neither
# looks at the machine's IRQ records (/run/vcpack) nor its /proc/irq
mkdir -p "$ST" "$RUN" "$T_TMP/bin" "$T_TMP/systemd" "$T_TMP/root"
DPID=""
# one package here, where auto resolves to level 0: hands off unless the
# policy asks for exclusive cores (so that vcpack changes the guests)
echo '{"sample_interval": 1, "exclusive_cores": true}' >"$T_TMP/policy.json"

# the stub: records its arguments; stops the test's vcpackd on request
cat >"$T_TMP/bin/deb-systemd-invoke" <<EOF
#!/bin/sh
echo "\$*" >>"$T_TMP/invoked"
if [ "\$*" = "stop vcpackd.service" ] && [ -s "$T_TMP/vcpackd.pid" ]; then
	p=\$(cat "$T_TMP/vcpackd.pid")
	kill "\$p" 2>/dev/null
	i=0
	while kill -0 "\$p" 2>/dev/null && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
	: >"$T_TMP/vcpackd.pid"
fi
exit 0
EOF
chmod +x "$T_TMP/bin/deb-systemd-invoke"
: >"$T_TMP/invoked"

# maint SCRIPT ARG...: debian/vcpack.SCRIPT as dpkg runs it; its output
# in $T_TMP/maint.out
maint() {
	_s=$1
	shift
	env PATH="$T_TMP/bin:$PATH" VCPACK_MAINT_SYSTEMD="$T_TMP/systemd" \
		VCPACK_MAINT_URI="$U" VCPACK_MAINT_BIN="$B/vcpack" \
		VCPACK_SOCKET="$SOCK" VCPACK_MAINT_STATE_DIR="$ST" \
		VCPACK_MAINT_RUN_DIR="$RUN" VCPACK_MAINT_ROOT="$T_TMP/root" \
		sh "$top/debian/vcpack.$_s" "$@" >"$T_TMP/maint.out" 2>&1
}

# start_daemon LOG: vcpackd as the unit starts it, on the private libvirtd
start_daemon() {
	XDG_RUNTIME_DIR=$LVD_RUN "$B/vcpackd" --foreground --debug --connect "$U" \
		--policy "$T_TMP/policy.json" --socket "$SOCK" --root "$T_TMP/root" \
		--state "$ST/state.json" >>"$T_TMP/$1" 2>&1 &
	DPID=$!
	T_PIDS="$T_PIDS $DPID"
	echo "$DPID" >"$T_TMP/vcpackd.pid"
}
stop_daemon() {
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	: >"$T_TMP/vcpackd.pid"
}
V() {
	"$B/vcpack" --connect "$U" --daemon-socket "$SOCK" --root "$T_TMP/root" \
		--policy "$T_TMP/policy.json" --sample 0 "$@"
}
planned() { V --json plan 2>/dev/null | jq -r ".plan.vms[]|select(.name==\"$1\")|.vcpus[$2]"; }

# snap NAME: everything vcpack may change of a running guest, one line
snap() {
	printf 'vcpu0=%s emulator=%s vcpupin=%s nodeset=%s\n' \
		"$(allowed "$1" 0)" "$(emulator_allowed "$1")" \
		"$(virsh -q -c "$U" vcpupin "$1" --live 2>&1 | tr -s ' ' | sed 's/^ //' | tr '\n' ';')" \
		"$(virsh -c "$U" dumpxml "$1" 2>&1 |
			sed -n "s/.*<memory mode='[a-z]*' nodeset='\([^']*\)'.*/\1/p")"
}
record() { virsh -c "$U" metadata "$1" urn:vcpack:state:1 2>/dev/null; }

# gpin: pinned by hand in its XML; gnuma: a strict <numatune> (the
# session daemon has no cgroups: libvirt binds QEMU's memory with libnuma
# at start, and refuses to move it live, which vcpack reports as refused);
# gfree: neither, untagged
GUEST_EXTRA="<cputune><vcpupin vcpu='0' cpuset='0'/><emulatorpin cpuset='0'/></cputune>" \
	define_guest "$U" gpin 1 "class='pack'" &&
	GUEST_EXTRA="<numatune><memory mode='strict' nodeset='0'/></numatune>" \
		define_guest "$U" gnuma 1 "priority='high'" &&
	define_guest "$U" gfree 1 && t_pass "guests defined" || t_fail "define guests"
for g in gpin gnuma gfree; do
	start_guest "$U" "$g" && t_pass "guest '$g' started" || t_fail "start '$g'"
done
for g in gpin gnuma gfree; do
	eval "before_$g=\$(snap $g)"
	echo "# before install: $g $(snap $g)"
done
t_match "gpin is pinned by hand before install" "^vcpu0=0 emulator=0 vcpupin=0 0;" "$before_gpin"
t_match "gnuma has its nodeset before install" " nodeset=0$" "$before_gnuma"

# ---- install: postinst configure, then vcpackd started (the unit) ----
maint postinst configure
t_eq "postinst configure: exit 0" "0" "$?"
t_eq "postinst configure: libvirt asked to re-read its hooks" \
	"try-reload-or-restart libvirtd.service try-reload-or-restart virtqemud.service" \
	"$(tr '\n' ' ' <"$T_TMP/invoked" | sed 's/ $//')"
: >"$T_TMP/invoked"
start_daemon vcpackd-1.log
# a new install observes only: nothing changes until 'vcpack enable'
i=0
until grep -q "^not enabled, changing nothing" "$T_TMP/vcpackd-1.log" 2>/dev/null || [ $i -gt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
for g in gpin gnuma gfree; do
	eval "b=\$before_$g"
	t_eq "installed, not enabled: '$g' unchanged" "$b" "$(snap $g)"
done
V enable >/dev/null 2>&1
t_eq "vcpack enable: exit 0" 0 $?
excl=$(planned gnuma 0)
shared=$(planned gfree 0)
t_match "plan: the spread guest on an exclusive CPU" '^[0-9]+$' "$excl"
t_nomatch "plan: the others not on it" "^$excl$" "$shared"
for g in gnuma:$excl gfree:$shared gpin:$(planned gpin 0); do
	w=$(wait_allowed "${g%%:*}" 0 "${g#*:}" 100) &&
		t_pass "vcpackd placed '${g%%:*}' on ${g#*:} (${w}00 ms)" ||
		t_fail "vcpackd did not place '${g%%:*}': on $(allowed "${g%%:*}" 0), want ${g#*:}"
done
for g in gpin gnuma gfree; do
	eval "b=\$before_$g"
	t_nomatch "vcpackd changed '$g' (or the test proves nothing)" "^$b$" "$(snap $g)"
	t_match "'$g' has its original pins recorded" "<original" "$(record $g)"
done
V level auto >/dev/null 2>&1
t_eq "vcpackd keeps its state in the state directory" yes \
	"$([ -s "$ST/state.json" ] && echo yes || echo no)"
sleep 2
for g in gpin gnuma gfree; do eval "placed_$g=\$(snap $g)"; done

# ---- upgrade: prerm upgrade, vcpackd restarted, postinst configure ----
maint prerm upgrade 0.1
t_eq "prerm upgrade: exit 0" "0" "$?"
t_eq "prerm upgrade: no unit stopped, nothing restored" "" "$(cat "$T_TMP/invoked")"
t_eq "prerm upgrade: says nothing" "" "$(cat "$T_TMP/maint.out")"
stop_daemon
maint postinst configure 0.1
t_eq "postinst configure 0.1: exit 0" "0" "$?"
start_daemon vcpackd-2.log
# the restarted vcpackd's first passes (sampling every second, a few
# samples: the demand it measures again replaces the assumed one)
i=0
until grep -q "^plan: " "$T_TMP/vcpackd-2.log" 2>/dev/null || [ $i -gt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
t_match "upgrade: the restarted vcpackd waited for measured demand first" \
	"^taking over 3 VMs placed before as they are" "$(cat "$T_TMP/vcpackd-2.log")"
t_match "upgrade: the restarted vcpackd planned" "^plan: .*; 0 changes" \
	"$(grep '^plan: ' "$T_TMP/vcpackd-2.log")"
sleep 3
for g in gpin gnuma gfree; do
	eval "p=\$placed_$g"
	t_eq "upgrade: '$g' not re-pinned" "$p" "$(snap $g)"
done
t_eq "upgrade: the restarted vcpackd changed nothing (no apply: lines)" 0 \
	"$(grep -c 'apply:' "$T_TMP/vcpackd-2.log")"
t_eq "upgrade: the original pins still recorded" "yes yes yes" \
	"$(for g in gpin gnuma gfree; do record $g | grep -q '<original' && echo yes; done | tr '\n' ' ' | sed 's/ $//')"

# ---- remove: prerm remove (stops vcpackd through the stub), postrm ----
: >"$T_TMP/invoked"
maint prerm remove
t_eq "prerm remove: exit 0" "0" "$?"
t_eq "prerm remove: the fleet loop and vcpackd stopped" \
	"stop vcpack-fleet.service stop vcpackd.service" \
	"$(tr '\n' ' ' <"$T_TMP/invoked" | sed 's/ $//')"
t_eq "prerm remove: vcpackd is gone" no "$(kill -0 "$DPID" 2>/dev/null && echo yes || echo no)"
t_match "prerm remove: says the VMs are back" "are back as they were" "$(cat "$T_TMP/maint.out")"
for g in gpin gnuma gfree; do
	eval "b=\$before_$g"
	t_eq "after remove: '$g' pins and nodeset as before install" "$b" "$(snap $g)"
	t_eq "after remove: '$g' has no vcpack record left" "" "$(record $g)"
done
t_eq "prerm remove: vcpack is no longer enabled (the hook stays until purge)" false \
	"$(jq .enabled "$ST/state.json")"
# the hook dpkg keeps until purge, with a policy left saying strict_tags
# and enabled: the state file wins, the VM starts
echo '{"strict_tags": true, "enabled": true}' >"$T_TMP/strict.json"
echo "<domain type='kvm'><name>x</name><metadata><v:consolidation xmlns:v='urn:vcpack:metadata:1' priority='soon'/></metadata></domain>" |
	VCPACK_POLICY="$T_TMP/strict.json" VCPACK_STATE="$ST/state.json" \
	VCPACK_SOCKET="$SOCK" "$B/vcpack-hook" x prepare begin - >/dev/null 2>&1
t_eq "after remove: the hook left behind refuses no start" 0 $?
maint postrm remove
t_eq "postrm remove: exit 0" "0" "$?"
t_eq "postrm remove: the state directory stays (only purge removes it)" yes \
	"$([ -s "$ST/state.json" ] && echo yes || echo no)"
maint postrm purge
t_eq "postrm purge: exit 0" "0" "$?"
t_eq "postrm purge: the state and run directories are gone" "no no" \
	"$([ -e "$ST" ] && echo yes || echo no) $([ -e "$RUN" ] && echo yes || echo no)"

# what is left (the README's Uninstall says so, and how to remove it):
# the owner's tag and, in the running VM, vcpackd's host record
t_match "after purge: the tag is left" "<consolidation" \
	"$(virsh -c "$U" metadata gpin urn:vcpack:metadata:1 2>&1)"
t_match "after purge: the host record is left" "<host" \
	"$(virsh -c "$U" metadata gpin urn:vcpack:host:1 2>&1)"
virsh -q -c "$U" metadata gpin urn:vcpack:metadata:1 --remove --live --config >/dev/null 2>&1
virsh -q -c "$U" metadata gpin urn:vcpack:host:1 --remove --live >/dev/null 2>&1
t_eq "the README's virsh commands remove both" ":" \
	"$(virsh -c "$U" metadata gpin urn:vcpack:metadata:1 2>/dev/null):$(virsh -c "$U" metadata gpin urn:vcpack:host:1 2>/dev/null)"
t_eq "and the tag is gone from the definition too" "" \
	"$(virsh -c "$U" dumpxml --inactive gpin | grep 'urn:vcpack')"

# ---- a removal that cannot put anything back still goes through ----
# vcpackd running outside systemd (restore refused), libvirt not
# answering, no vcpack binary: exit 0 and said (vcpackd enabled again:
# purge took its state)
mkdir -p "$ST"
t_enabled "$ST/state.json"
start_daemon vcpackd-3.log
w=$(wait_allowed gfree 0 "$shared" 100) || t_fail "vcpackd did not place gfree again"
env VCPACK_MAINT_SYSTEMD="$T_TMP/no-systemd" VCPACK_MAINT_URI="$U" \
	VCPACK_MAINT_ROOT="$T_TMP/root" VCPACK_MAINT_BIN="$B/vcpack" VCPACK_SOCKET="$SOCK" \
	sh "$top/debian/vcpack.prerm" remove >"$T_TMP/maint.out" 2>&1
t_eq "prerm remove, vcpackd still running: exit 0" "0" "$?"
t_match "prerm remove, vcpackd still running: what failed is said" \
	"refusing to restore: vcpackd .*manages this host" "$(cat "$T_TMP/maint.out")"
t_match "prerm remove, vcpackd still running: and that the removal goes on" \
	"vcpack restore' on '.*' failed \(exit 2.*the removal goes on" "$(cat "$T_TMP/maint.out")"
stop_daemon
env VCPACK_MAINT_SYSTEMD="$T_TMP/no-systemd" \
	VCPACK_MAINT_URI="qemu+unix:///session?socket=$T_TMP/no-such-sock" \
	VCPACK_MAINT_BIN="$B/vcpack" VCPACK_SOCKET="$SOCK" \
	sh "$top/debian/vcpack.prerm" remove >"$T_TMP/maint.out" 2>&1
t_eq "prerm remove, libvirt not answering: exit 0" "0" "$?"
t_match "prerm remove, libvirt not answering: what failed is said" \
	"Failed to connect to '.*no-such-sock'" "$(cat "$T_TMP/maint.out")"
t_match "prerm remove, libvirt not answering: and that the removal goes on" \
	"vcpack restore' on '.*no-such-sock' failed \(exit 1; .*the removal goes on" \
	"$(cat "$T_TMP/maint.out")"
env TMPDIR="$T_TMP/no-tmp" VCPACK_MAINT_SYSTEMD="$T_TMP/no-systemd" \
	VCPACK_MAINT_URI="$U" VCPACK_MAINT_ROOT="$T_TMP/root" \
	VCPACK_MAINT_BIN="$B/vcpack" VCPACK_SOCKET="$SOCK" \
	sh "$top/debian/vcpack.prerm" remove >"$T_TMP/maint.out" 2>&1
t_eq "prerm remove, no temporary directory: exit 0" "0" "$?"
t_match "prerm remove, no temporary directory: said" \
	"restore' on '.*' failed \(exit 1; .*the removal goes on" "$(cat "$T_TMP/maint.out")"
env VCPACK_MAINT_SYSTEMD="$T_TMP/no-systemd" VCPACK_MAINT_BIN="$T_TMP/no-vcpack" \
	sh "$top/debian/vcpack.prerm" remove >"$T_TMP/maint.out" 2>&1
t_eq "prerm remove, no vcpack binary: exit 0" "0" "$?"
t_match "prerm remove, no vcpack binary: said" "no-vcpack' is not there" "$(cat "$T_TMP/maint.out")"
# the guests vcpackd re-placed just now are put back by a restore
V restore >/dev/null 2>&1

t_done
