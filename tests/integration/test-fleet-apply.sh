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
t_setup
VCPACK=$B/vcpack

mkdom() { # URI NAME VCPUS
	printf "<domain type='test'><name>%s</name><memory>131072</memory><vcpu>%s</vcpu><metadata><v:consolidation xmlns:v='urn:vcpack:metadata:1' priority='low'/></metadata><os><type>hvm</type></os></domain>\n" \
		"$2" "$3" >"$T_TMP/$2.xml"
	virsh -q -c "$1" define "$T_TMP/$2.xml" >/dev/null &&
		virsh -q -c "$1" start "$2" >/dev/null
}

for h in h1 h2; do
	start_libvirtd "$h" || { t_fail "start libvirtd $h"; t_done; exit 1; }
	eval "U_$h=\"test+unix:///default?socket=$LVD_SOCK\""
	eval "hold_connection \"\$U_$h\"" || { t_fail "hold $h"; t_done; exit 1; }
done
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

# ---- --yes: not asked ----
ap=$(F --json apply --yes </dev/null 2>"$T_TMP/yes.err"); rc=$?
t_eq "--yes: exit 1 (the test driver cannot migrate)" 1 $rc
t_eq "--yes: steps tried without asking" "g1:failed g2:skipped" \
	"$(echo "$ap" | jq -r '[.steps[]|"\(.vm):\(.outcome)"]|join(" ")')"
t_nomatch "--yes: no question" "Proceed" "$(cat "$T_TMP/yes.err")"
t_eq "--yes: the failed guests still on h2" "g1 g2 " "$(on_h2)"
t_done
