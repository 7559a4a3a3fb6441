#!/bin/sh
# test-fleet-migrate.sh BUILD_DIR KERNEL - `vcpack fleet apply` live-
# migrates real QEMU (TCG) guests between two real libvirt daemons on this
# machine: two private qemu:///session libvirtds with distinct host_uuid
# (so libvirt treats them as two hosts), migration streams on 127.0.0.1.
# Checked on the QEMU processes: the moved guest runs on the destination
# and nowhere else. Then a failing migration (the destination already
# defines a domain of that name): the guest stays running where it was,
# the host's other moves are skipped, and every step is reported. A
# migration held in its iterative phase (1 MiB/s, a 1 ms downtime limit
# it never meets): its progress shown (a line kept up to date on a
# terminal, plain lines otherwise), aborted at its timeout, by SIGINT
# (exit 130) and by SIGTERM (exit 143), the guest running on its source
# each time with nothing left on the destination; the standby loop's
# drain (one round) aborted at the fleet file's migration_timeout alike.
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
# a step's line as printed, folded to 100 columns (its rest indented
# under it), joined again; blank lines (a redrawn line's \r) dropped
unfolded() {
	awk 'NF == 0 { next }
	     /^      +[^ ]/ && n { sub(/^ +/, ""); buf = buf " " $0; next }
	     { if (n) print buf; buf = $0; n = 1 }
	     END { if (n) print buf }'
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

# a migration that cannot converge: a guest rewriting 4 MiB without end,
# held to 1 MiB/s with a 1 ms downtime limit, stays in its iterative
# phase, where an abort takes effect at once (in its last phase QEMU
# holds both the progress query and the abort until it is done)
LVD_RUN=$RUN_a; GUEST_APPEND=vcp.dirty define_guest "$U_a" slow 1 "priority='low'" &&
	start_guest "$U_a" slow
slow_down() { # before each try (libvirt may put the limit back after one)
	virsh -q -c "$U_a" migrate-setmaxdowntime slow 1 >/dev/null
}
# migrate only once the guest rewrites its memory (not after a fixed
# sleep: under load the guest may not have booted yet, and an idle guest
# migrates at once, which turned every case below into a failure)
wait_console slow "vcp.dirty: rewriting" ||
	t_fail "the never-converging guest did not start rewriting its memory"
stays() { # LABEL: slow runs on a, nothing of it on b
	runs "$RUN_a" slow && t_pass "$1: its QEMU still runs on the source" ||
		t_fail "$1: no QEMU for it on the source"
	t_eq "$1: nothing of it on the destination" "" \
		"$(virsh -q -c "$U_b" list --all --name | grep -x slow)"
}
# before each case: slow on a alone, rewriting its memory; when a case
# before failed and left it elsewhere, started there again (said), so
# that one failure is not every later case's too
home() {
	if runs "$RUN_a" slow &&
		[ -z "$(virsh -q -c "$U_b" list --all --name | grep -x slow)" ]; then
		slow_down; return; fi
	echo "# slow is not on a alone: started there again"
	virsh -q -c "$U_b" destroy slow >/dev/null 2>&1
	virsh -q -c "$U_b" undefine slow >/dev/null 2>&1
	virsh -q -c "$U_a" destroy slow >/dev/null 2>&1
	virsh -q -c "$U_a" undefine slow >/dev/null 2>&1
	rm -f "$GUEST_LOGS/slow.console"
	LVD_RUN=$RUN_a; GUEST_APPEND=vcp.dirty define_guest "$U_a" slow 1 "priority='low'" &&
		start_guest "$U_a" slow && wait_console slow "vcp.dirty: rewriting" ||
		t_fail "slow could not be started on a again"
	slow_down
}
# what vcpack and the guest said, in the log (a failure's why)
said() {
	sed 's/^/  | /' "$@"
	grep 'vcp.dirty' "$GUEST_LOGS/slow.console" | sed 's/^/  | guest: /'
	for h in a b; do
		eval "r=\$RUN_$h"
		tail -n 2 "${r%/run}/home/.cache/libvirt/qemu/log/slow.log" 2>/dev/null |
			sed "s/^/  | QEMU log on $h: /"
	done
}
slow_down
t0=$(date +%s)
script -qec "'$B/vcpack' fleet --hosts '$T_TMP/fleet.json' --sample 0 apply --yes --bandwidth 1 --migration-timeout 6" \
	/dev/null </dev/null >"$T_TMP/slow.out"; rc=$?
el=$(($(date +%s) - t0))
out=$(tr '\r' '\n' <"$T_TMP/slow.out")
printf '%s\n' "$out" | grep -v '^$' | said
t_eq "timeout: exit 1" 1 $rc
t_match "timeout: on a terminal, k/N with the migration's own progress" \
	"1/1 slow a -> b: [0-9]+% of [0-9]+ MiB, [0-9]+ MiB left, [0-9.]+ MiB/s, [0-9]+ s" "$out"
t_match "timeout: the progress line is redrawn in place" "$(printf '\033')\[K  1/1 slow a -> b: " \
	"$(cat "$T_TMP/slow.out")"
t_match "timeout: aborted, the guest stays on the source" \
	"1/1 slow +a -> b: aborted \([0-9.]+ s\): timed out after 6 s: migration aborted; the guest stays running on a" \
	"$(printf '%s\n' "$out" | unfolded)"
[ $el -lt 20 ] && t_pass "timeout: aborted in time (${el} s for a 6 s timeout)" ||
	t_fail "timeout: took ${el} s for a 6 s timeout"
stays timeout

# SIGINT (Ctrl-C) during a migration: aborted cleanly, exit 130; plain
# progress lines on stderr when it is not a terminal
home
# (vcpack itself in the background, not the F function's subshell)
"$B/vcpack" fleet --hosts "$T_TMP/fleet.json" --sample 0 apply --yes --bandwidth 1 \
	>"$T_TMP/int.out" 2>"$T_TMP/int.err" &
apid=$!
# Ctrl-C once the 5 s progress line is out (not after a fixed sleep: a
# slow start must not turn this into a different test)
i=0
while ! grep -q ', 5 s$' "$T_TMP/int.err" 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 1
kill -INT $apid
wait $apid; rc=$?
said "$T_TMP/int.err" "$T_TMP/int.out"
t_eq "SIGINT: exit 130" 130 $rc
t_match "SIGINT: plain progress lines on stderr, every 5 s from 5 s on" \
	"^  1/1 slow a -> b: [0-9]+% of [0-9]+ MiB, [0-9]+ MiB left, [0-9.]+ MiB/s, 5 s$" \
	"$(cat "$T_TMP/int.err")"
t_match "SIGINT: the step aborted, the guest stays on the source" \
	"1/1 slow +a -> b: aborted \([0-9.]+ s\): interrupted: migration aborted; the guest stays running on a" \
	"$(unfolded <"$T_TMP/int.out")"
t_match "SIGINT: what moved and what did not" "stopped by SIGINT: 0 migrations not started" \
	"$(cat "$T_TMP/int.out")"
stays SIGINT

# SIGTERM likewise, exit 143, in JSON
home
"$B/vcpack" fleet --hosts "$T_TMP/fleet.json" --json --sample 0 apply --yes --bandwidth 1 \
	>"$T_TMP/term.json" 2>/dev/null &
apid=$!
# SIGTERM as soon as libvirt has the migration job on the source, most
# likely before QEMU's migration has begun (libvirt still in its Begin
# and Prepare phases): an abort taken then cancelled nothing and the
# guest moved 30 s later, until vcpack asked again while it ran on
i=0
while ! virsh -q -c "$U_a" domjobinfo slow 2>/dev/null | grep -q 'Unbounded' &&
	[ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -TERM $apid
wait $apid; rc=$?
said "$T_TMP/term.json"
t_eq "SIGTERM: exit 143" 143 $rc
t_eq "SIGTERM: JSON says aborted, by whom, nothing moved" \
	"aborted|interrupted: migration aborted; the guest stays running on a|SIGTERM|0|1|0" \
	"$(jq -r '"\(.steps[0].outcome)|\(.steps[0].message)|\(.stopped_by)|\(.moved)|\(.failed)|\(.not_started)"' "$T_TMP/term.json")"
stays SIGTERM

# the standby loop migrates through the same step: one round (apply with
# a "standby" object), the fleet file's migration_timeout and bandwidth
# (the standby command is never run: the drain fails first)
jq '.defaults += {"migration_timeout": 6, "bandwidth": 1} |
    .standby = {"low_hold": 0, "high_hold": 0, "min_spare_hosts": 0,
                "wake_deadline": 10, "host_defaults": {"action": "command",
                "standby_command": ["true"], "wake_command": ["true"]}}' \
	"$T_TMP/fleet.json" >"$T_TMP/sb.json"
home
out=$("$B/vcpack" fleet --hosts "$T_TMP/sb.json" --sample 0 --state "$T_TMP/sb-state.json" \
	apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "standby loop: exit 1 (a failed move)" 1 $rc
t_match "standby loop: the move aborted at the file's timeout, the guest on its source" \
	"slow: migration a -> b failed: timed out after 6 s: migration aborted; the guest stays running on a; no more moves from a" "$out"
stays "standby loop"
t_nomatch "the never-converging guest rewrote its memory throughout" "vcp.dirty: stopped" \
	"$(cat "$GUEST_LOGS/slow.console")"
for u in "$U_a" "$U_b"; do
	virsh -q -c "$u" destroy slow >/dev/null 2>&1; virsh -q -c "$u" undefine slow >/dev/null 2>&1
done

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
