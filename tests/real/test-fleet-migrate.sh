#!/bin/sh
# test-fleet-migrate.sh BUILD_DIR KERNEL - `vcpack fleet apply` live-
# migrates real QEMU (TCG) guests between two real libvirt daemons on this
# machine: two private qemu:///session libvirtds with distinct host_uuid
# (so libvirt treats them as two hosts), migration streams on 127.0.0.1.
# Checked on the QEMU processes: the moved guest runs on the destination
# and nowhere else. Then a failing migration (the destination already
# defines a domain of that name): the guest stays running where it was,
# the host's other moves are skipped, and every step is reported.
B=$1
KERNEL=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
guest_assets "$KERNEL" || { t_fail "guest kernel"; t_done; exit 1; }
LVD_PROBE=qemu+unix:///session
lvd_base || { t_fail "libvirtd dirs"; t_done; exit 1; }
for h in a b; do
	mkdir -p "$LVD_BASE/$h/home/.config/libvirt"
	echo "host_uuid = \"$(cat /proc/sys/kernel/random/uuid)\"" \
		>"$LVD_BASE/$h/home/.config/libvirt/libvirtd.conf"
	start_libvirtd "$h" || { t_fail "start libvirtd $h"; t_done; exit 1; }
	eval "U_$h=\"qemu+unix:///session?socket=$LVD_SOCK\" RUN_$h=$LVD_RUN"
done
trap 'destroy_all "$U_a"; destroy_all "$U_b"; t_cleanup' EXIT
t_nomatch "two hosts to libvirt: distinct host UUIDs" \
	"$(virsh -c "$U_a" capabilities | grep -m1 '<uuid>')" \
	"$(virsh -c "$U_b" capabilities | grep -m1 '<uuid>')"
pid_on() { cat "$1/libvirt/qemu/run/$2.pid" 2>/dev/null; }
runs() { # RUN_DIR NAME: is a live QEMU for NAME there?
	p=$(pid_on "$1" "$2")
	[ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "guest=$2"
}

cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U_a", "name": "a", "migration_address": "127.0.0.1"},
           {"uri": "$U_b", "name": "b", "migration_address": "127.0.0.1"}],
 "defaults": {"timeout": 30}}
JSON
F() { "$B/vcpack" fleet --hosts "$T_TMP/fleet.json" "$@"; }

# a: one small guest; b: two, so a is the one to empty
ok=0
LVD_RUN=$RUN_a; define_guest "$U_a" mover 1 "priority='low'" && start_guest "$U_a" mover || ok=1
LVD_RUN=$RUN_b; define_guest "$U_b" stay1 1 "priority='low'" && start_guest "$U_b" stay1 || ok=1
define_guest "$U_b" stay2 1 "priority='low'" && start_guest "$U_b" stay2 || ok=1
t_eq "three guests defined and started on two hosts" 0 $ok
t_eq "their QEMUs run where they were started" "yes yes yes" \
	"$(for g in "$RUN_a mover" "$RUN_b stay1" "$RUN_b stay2"; do
		runs $g && printf 'yes ' || printf 'no '; done | sed 's/ $//')"
before=$(pid_on "$RUN_a" mover)

pl=$(F --json --sample 0 plan 2>/dev/null)
t_eq "plan: a is emptied into b" "mover:a->b" \
	"$(echo "$pl" | jq -r '[.moves[]|"\(.vm):\(.from)->\(.to)"]|join(" ")')"
t_eq "plan changed nothing" "$before" "$(pid_on "$RUN_a" mover)"

ap=$(F --json --sample 0 apply --yes 2>"$T_TMP/apply.err"); rc=$?
t_eq "apply: exit 0" 0 $rc
t_eq "apply: one guest moved" "1 0 0" "$(echo "$ap" | jq -r '"\(.moved) \(.failed) \(.skipped)"')"
t_match "apply: the step is reported with its time" '^mover a->b moved [0-9.]+$' \
	"$(echo "$ap" | jq -r '.steps[]|"\(.vm) \(.from)->\(.to) \(.outcome) \(.seconds)"')"
runs "$RUN_b" mover && t_pass "the guest's QEMU runs on the destination" ||
	t_fail "no QEMU for the guest on the destination"
runs "$RUN_a" mover && t_fail "a QEMU for the guest is left on the source" ||
	t_pass "no QEMU left for it on the source"
t_eq "source no longer defines it (persistent guests move whole)" "" \
	"$(virsh -q -c "$U_a" list --all --name | grep -x mover)"
t_eq "destination defines it persistently" yes \
	"$(virsh -q -c "$U_b" dominfo mover | awk '/^Persistent/ {print $2}')"
t_match "its tag travelled with it" "priority=\"low\"" \
	"$(virsh -c "$U_b" metadata mover urn:vcpack:metadata:1)"
t_eq "apply again: nothing left to move" 0 \
	"$(F --json --sample 0 apply --yes 2>/dev/null | jq '.steps|length')"

# a migration that fails: b already defines a domain named like a's guest
LVD_RUN=$RUN_a; define_guest "$U_a" clash 2 "priority='low'" && start_guest "$U_a" clash
define_guest "$U_a" after 1 "priority='low'" && start_guest "$U_a" after
LVD_RUN=$RUN_b; define_guest "$U_b" clash 1
ap=$(F --json --sample 0 apply --yes 2>/dev/null); rc=$?
t_eq "failed migration: exit 1" 1 $rc
t_eq "failed migration: the first step failed, the host's next skipped" "clash:failed after:skipped" \
	"$(echo "$ap" | jq -r '[.steps[]|"\(.vm):\(.outcome)"]|join(" ")')"
t_match "failed migration: libvirt's reason is given" "clash" \
	"$(echo "$ap" | jq -r '.steps[0].message')"
runs "$RUN_a" clash && t_pass "the failed guest still runs on the source" ||
	t_fail "the failed guest is not running on the source"
runs "$RUN_a" after && t_pass "the skipped guest still runs on the source" ||
	t_fail "the skipped guest is gone from the source"
t_eq "nothing half-moved on the destination" "" "$(pid_on "$RUN_b" clash)"
t_done
