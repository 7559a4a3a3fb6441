#!/bin/sh
# test-fleet-apply.sh BUILD_DIR - `vcpack fleet apply` as an operator
# meets it, on private libvirtds running the test driver (which cannot
# migrate: a step that is tried fails there, and that is how the tests
# see that apply went ahead): it asks on a terminal ("Proceed? [y/N]",
# driven through script(1)'s pseudo-terminal), refuses without one
# unless --yes, and --dry-run is plan. Daemons are stopped by pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack

DOM_MEM=131072
# mkdom URI NAME VCPUS: a low-priority guest, started
mkdom() { dom_start "$1" "$2" "$3" "priority='low'"; }

t_test_libvirtd h1 h2
# h1 keeps its own "test" VM (2 GiB, tagged spread: it stays) and
# receives; h2 holds two small guests and is the one to empty
mkdom "$U_h2" g1 1 && mkdom "$U_h2" g2 1 &&
	virsh -q -c "$U_h2" destroy test >/dev/null &&
	virsh -q -c "$U_h1" metadata test urn:vcpack:metadata:1 --key v \
		--set "<consolidation priority='high'/>" --live >/dev/null &&
	t_pass "guests defined and started" || t_fail "define guests"

cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U_h1", "name": "h1"}, {"uri": "$U_h2", "name": "h2"}],
 "defaults": {"timeout": 5}}
JSON
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 "$@"; }
on_h2() { virsh -q -c "$U_h2" list --name | grep -v '^test$' | sort | tr '\n' ' '; }

pl=$(F --json plan 2>/dev/null)
t_eq "plan: h2's two guests move to h1" "g1:h2->h1 g2:h2->h1" \
	"$(echo "$pl" | jq -r '[.moves[]|"\(.vm):\(.from)->\(.to)"]|join(" ")')"

# ---- no terminal ----
out=$(F apply </dev/null 2>&1); rc=$?
t_eq "no terminal, no --yes: exit 2" 2 $rc
t_match "no terminal: says to pass --yes" "not a terminal.*pass --yes" "$out"
out=$("$VCPACK" fleet --hosts "$T_TMP/nosuch.json" apply </dev/null 2>&1)
t_match "no terminal: refused before the fleet file is read" "pass --yes" "$out"
t_eq "no terminal: nothing moved" "g1 g2 " "$(on_h2)"

# ---- --dry-run is plan ----
t_eq "apply --dry-run --json is plan --json" "$pl" \
	"$(F --json apply --dry-run </dev/null 2>/dev/null)"
t_eq "apply --dry-run (text) is plan (text)" "$(F plan 2>&1)" \
	"$(F apply --dry-run </dev/null 2>&1)"

# ---- on a terminal: asked ----
tty_apply() { # ANSWER: apply on a pseudo-terminal fed ANSWER; exit code kept
	printf '%s\n' "$1" | script -qec \
		"'$VCPACK' fleet --hosts '$T_TMP/fleet.json' --sample 0 apply" \
		/dev/null >"$T_TMP/tty.out"
	rc=$?
	tr -d '\r' <"$T_TMP/tty.out"
	return $rc
}
out=$(tty_apply n); rc=$?
t_eq "answer n: exit 1" 1 $rc
t_match "terminal: the migrations listed, k/N" "1/2 g1 +h2 -> h1" "$out"
t_match "terminal: the second too" "2/2 g2 +h2 -> h1" "$out"
t_match "terminal: asked" "Proceed\? \[y/N\]" "$out"
t_match "answer n: nothing done" "not confirmed; nothing done" "$out"
t_nomatch "answer n: no step tried" "failed" "$out"
t_eq "answer n: nothing moved" "g1 g2 " "$(on_h2)"
out=$(tty_apply ''); t_match "empty answer is no" "nothing done" "$out"
out=$(tty_apply y); rc=$?
t_eq "answer y: exit 1 (its steps failed)" 1 $rc
t_match "answer y: it goes ahead (the test driver cannot migrate)" \
	"g1 +h2 -> h1: failed" "$out"
t_match "answer y: the host's next step skipped" "g2 +h2 -> h1: skipped" "$out"
t_match "answer y: each step numbered k/N" "1/2 g1 +h2 -> h1: failed.*2/2 g2 +h2 -> h1: skipped" \
	"$(echo "$out" | sed -n '/one at a time$/,$p' | tr '\n' ' ')"

# ---- --yes: not asked ----
ap=$(F --json apply --yes </dev/null 2>"$T_TMP/yes.err"); rc=$?
t_eq "--yes: exit 1 (the test driver cannot migrate)" 1 $rc
t_eq "--yes: steps tried without asking" "g1:failed g2:skipped" \
	"$(echo "$ap" | jq -r '[.steps[]|"\(.vm):\(.outcome)"]|join(" ")')"
t_nomatch "--yes: no question" "Proceed" "$(cat "$T_TMP/yes.err")"
t_eq "--yes: the failed guests still on h2" "g1 g2 " "$(on_h2)"

# ---- plan --save, apply --plan ----
pl=$(F --json plan --save "$T_TMP/saved.json" 2>/dev/null); rc=$?
t_eq "plan --save: exit 0" 0 $rc
t_eq "plan --save: stdout is plan's" "$(F --json plan 2>/dev/null)" "$pl"
sv=$T_TMP/saved.json
t_eq "saved: the format named" "vcpack-fleet-plan/1" "$(jq -r .format "$sv")"
t_eq "saved: each host's URI" "$U_h1 $U_h2" "$(jq -r '[.hosts[].uri]|join(" ")' "$sv")"
t_eq "saved: each host's hostname (libvirt's)" "$(virsh -c "$U_h1" hostname) $(virsh -c "$U_h2" hostname)" \
	"$(jq -r '[.hosts[].hostname]|join(" ")' "$sv")"
t_eq "saved: each VM's UUID and source" \
	"g1:$(virsh -c "$U_h2" domuuid g1 | head -1):h2 g2:$(virsh -c "$U_h2" domuuid g2 | head -1):h2" \
	"$(jq -r '[.moves[]|"\(.vm):\(.uuid):\(.from)"]|join(" ")' "$sv")"
# a guest started after saving: a new plan would move it, the saved one not
mkdom "$U_h2" g3 1
t_eq "a new plan would move g3 too" "g1 g2 g3" \
	"$(F --json plan 2>/dev/null | jq -r '[.moves[].vm]|join(" ")')"
ap=$(F --json apply --plan "$sv" --yes </dev/null 2>/dev/null); rc=$?
t_eq "apply --plan: exit 1 (the test driver cannot migrate)" 1 $rc
t_eq "apply --plan: exactly the saved steps, in order" "g1:failed g2:skipped" \
	"$(echo "$ap" | jq -r '[.steps[]|"\(.vm):\(.outcome)"]|join(" ")')"
out=$(F apply --plan "$sv" </dev/null 2>&1); rc=$?
t_eq "apply --plan without a terminal or --yes: exit 2" 2 $rc
out=$(printf 'n\n' | script -qec "'$VCPACK' fleet --hosts '$T_TMP/fleet.json' apply --plan '$sv'" /dev/null | tr -d '\r')
t_match "apply --plan on a terminal: asks, listing the saved steps" "2/2 g2 +h2 -> h1.*Proceed" "$(echo "$out" | tr '\n' ' ')"

# what changed since is named, and nothing is done
virsh -q -c "$U_h2" destroy g2 >/dev/null
out=$(F apply --plan "$sv" --yes </dev/null 2>&1); rc=$?
t_eq "a VM stopped: exit 2" 2 $rc
t_match "a VM stopped: named" "changed: VM g2 on h2: not running" "$out"
virsh -q -c "$U_h2" undefine g2 >/dev/null
out=$(F apply --plan "$sv" --yes </dev/null 2>&1); rc=$?
t_eq "a VM gone: exit 2" 2 $rc
t_match "a VM gone: named" "changed: VM g2: no longer on h2 \(moved or gone\)" "$out"
t_match "a VM gone: nothing done" "no longer holds \(1 changes above\); nothing done" "$(t_unfold "$out")"
t_nomatch "a VM gone: no step tried" "failed" "$out"
virsh -q -c "$U_h2" undefine g1 >/dev/null
virsh -q -c "$U_h2" destroy g1 >/dev/null
mkdom "$U_h2" g1 1
out=$(F apply --plan "$sv" --yes </dev/null 2>&1); rc=$?
t_match "a VM replaced by another of its name: UUID named" "changed: VM g1 on h2: another domain now \(UUID [0-9a-f-]+, saved: $(jq -r '.moves[0].uuid' "$sv")\)" "$(t_unfold "$out")"
sed "s|$U_h1|test+unix:///default?socket=$T_TMP/nosuch.sock|" "$T_TMP/fleet.json" >"$T_TMP/moved.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/moved.json" apply --plan "$sv" --yes </dev/null 2>&1); rc=$?
t_eq "a host's URI changed: exit 2" 2 $rc
t_match "a host's URI changed: named" "changed: host h1: its URI is now .*nosuch.sock \(saved: .*/h1/run/libvirt/libvirt-sock\)" "$(t_unfold "$out")"
jq '.hosts |= map(select(.name != "h1"))' "$T_TMP/fleet.json" >"$T_TMP/noh1.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/noh1.json" apply --plan "$sv" --yes </dev/null 2>&1)
t_match "a host gone from the fleet file: named" "changed: host h1: no longer in the fleet file" "$out"
jq '.hosts[0].host_uuid = "00000000-0000-0000-0000-000000000001"' "$sv" >"$T_TMP/other-host.json"
out=$(F apply --plan "$T_TMP/other-host.json" --yes </dev/null 2>&1)
t_match "another machine behind the URI: host UUID named" \
	"changed: host h1: its host UUID is now unknown \(saved: 00000000-0000-0000-0000-000000000001\)" "$out"
jq '.moves[0].from = "h9"' "$sv" >"$T_TMP/bad-saved.json"
out=$(F apply --plan "$T_TMP/bad-saved.json" --yes </dev/null 2>&1); rc=$?
t_eq "a bad saved plan: exit 2" 2 $rc
t_match "a bad saved plan: the key named" "moves\[0\]\.from: no saved host 'h9'" "$(t_unfold "$out")"
out=$(F apply --plan "$T_TMP/fleet.json" --yes </dev/null 2>&1)
t_match "not a saved plan: said so" "not a plan saved by 'vcpack fleet plan --save'" "$(t_unfold "$out")"
t_eq "nothing moved through all this" "g1 g3 " "$(on_h2)"
# ---- migration options: what apply passes to libvirt, seen in --dry-run ----
t_eq "default migration options" '{"flags":["VIR_MIGRATE_LIVE","VIR_MIGRATE_ABORT_ON_ERROR"],"bandwidth_mib_s":null,"timeout_s":null}' \
	"$(F --json apply --dry-run </dev/null 2>/dev/null | jq -c .migration)"
t_eq "--tls --bandwidth 100 --auto-converge" \
	'{"flags":["VIR_MIGRATE_LIVE","VIR_MIGRATE_ABORT_ON_ERROR","VIR_MIGRATE_TLS","VIR_MIGRATE_AUTO_CONVERGE"],"bandwidth_mib_s":100,"timeout_s":null}' \
	"$(F --json apply --dry-run --tls --bandwidth 100 --auto-converge </dev/null 2>/dev/null | jq -c .migration)"
jq '.defaults += {"tls": true, "bandwidth": 50, "auto_converge": true, "p2p": true}' \
	"$T_TMP/fleet.json" >"$T_TMP/opts.json"
G() { "$VCPACK" fleet --hosts "$T_TMP/opts.json" --sample 0 "$@"; }
t_eq "fleet file defaults" \
	'{"flags":["VIR_MIGRATE_LIVE","VIR_MIGRATE_ABORT_ON_ERROR","VIR_MIGRATE_PEER2PEER","VIR_MIGRATE_TLS","VIR_MIGRATE_AUTO_CONVERGE"],"bandwidth_mib_s":50,"timeout_s":null}' \
	"$(G --json plan 2>/dev/null | jq -c .migration)"
t_eq "--bandwidth overrides the file's" 200 \
	"$(G --json plan --bandwidth 200 2>/dev/null | jq .migration.bandwidth_mib_s)"
t_match "plan --wide text: the options shown on one line" "migration options: VIR_MIGRATE_LIVE VIR_MIGRATE_ABORT_ON_ERROR VIR_MIGRATE_PEER2PEER VIR_MIGRATE_TLS VIR_MIGRATE_AUTO_CONVERGE; bandwidth 50 MiB/s" \
	"$(G plan --wide 2>/dev/null)"
out=$(G plan 2>/dev/null)
t_match "plan text: the options line folded to 100 columns" \
	"^migration options: VIR_MIGRATE_LIVE .*VIR_MIGRATE_TLS$" "$out"
t_match "plan text: its rest under its text" "^ {19}VIR_MIGRATE_AUTO_CONVERGE; bandwidth 50 MiB/s$" "$out"
out=$(F apply --bandwidth 0 --yes 2>&1); rc=$?
t_eq "--bandwidth 0: exit 2" 2 $rc
t_match "--bandwidth 0: named" "\-\-bandwidth '0' is not a number from 1" "$out"
jq '.defaults.bandwidth = 0' "$T_TMP/fleet.json" >"$T_TMP/bad-bw.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/bad-bw.json" plan 2>&1); rc=$?
t_eq "fleet file bandwidth 0: exit 2" 2 $rc
t_match "fleet file bandwidth 0: key named" "defaults\.bandwidth: must be a whole number from 1" "$(t_unfold "$out")"
# ---- the per-migration timeout: option, fleet file key, errors ----
t_eq "--migration-timeout 30: passed on" 30 \
	"$(F --json apply --dry-run --migration-timeout 30 </dev/null 2>/dev/null | jq .migration.timeout_s)"
jq '.defaults.migration_timeout = 600' "$T_TMP/fleet.json" >"$T_TMP/mt.json"
H() { "$VCPACK" fleet --hosts "$T_TMP/mt.json" --sample 0 "$@"; }
t_eq "fleet file migration_timeout" 600 "$(H --json plan 2>/dev/null | jq .migration.timeout_s)"
t_eq "--migration-timeout overrides the file's" 20 \
	"$(H --json plan --migration-timeout 20 2>/dev/null | jq .migration.timeout_s)"
t_eq "--migration-timeout 0: none" null \
	"$(H --json plan --migration-timeout 0 2>/dev/null | jq .migration.timeout_s)"
t_match "plan text: the timeout shown" "migration options: .*; each aborted after 600 s" \
	"$(H plan 2>/dev/null)"
out=$(F apply --migration-timeout soon --yes 2>&1); rc=$?
t_eq "--migration-timeout soon: exit 2" 2 $rc
t_match "--migration-timeout soon: named" "\-\-migration-timeout 'soon' is not a number" "$out"
jq '.defaults.migration_timeout = -1' "$T_TMP/fleet.json" >"$T_TMP/bad-mt.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/bad-mt.json" plan 2>&1); rc=$?
t_eq "fleet file migration_timeout -1: exit 2" 2 $rc
t_match "fleet file migration_timeout -1: key named" "defaults\.migration_timeout: must be a whole number from 0" "$out"
t_eq "nothing moved by the refused runs" "g1 g3 " "$(on_h2)"
t_done
