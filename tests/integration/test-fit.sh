#!/bin/sh
# test-fit.sh BUILD_DIR - output that fits 100 columns with long
# connection URIs (issue 16): the shipped two-package test-driver host
# behind a 190-character test:///PATH URI. Every line of status, plan
# and apply (not only the tables) and of fleet status (a reachable host
# and an unreachable one, both with long URIs) is within
# 100 columns: header lines folded at spaces under their text, the URI
# cut in the middle with "..." so that the cut shows; --wide (before or
# after the command, and fleet's own --wide) prints them whole, and
# --json is never cut.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
t_setup

D=$T_TMP/a-rather-long-directory-name-for-the-test-driver-host/and-one-more-level-below-it
mkdir -p "$D"
X=$D/two-packages-with-every-class-of-vm-and-a-bad-tag.xml
cp "$top/tests/data/hosts/two-pkg.xml" "$X"
U="test://$X"
t_match "the URI is long" "^1[0-9]{2}|[2-9][0-9]{2}$" "${#U}"
TAIL=$(printf '%s' "$U" | tail -c 30)

over() { printf '%s\n' "$1" | awk 'length($0) > 100' | wc -l; }
fits() { # WHAT TEXT
	n=$(over "$2")
	if [ "$n" -eq 0 ]; then t_pass "$1: every line within 100 columns"
	else t_fail "$1: $n lines over 100 columns:"
		printf '%s\n' "$2" | awk 'length($0) > 100' | sed 's/^/    /'; fi
}
V() { "$VCPACK" --connect "$U" --sample 0 "$@" 2>/dev/null; }

st=$(V status); t_eq "status: exit 0" 0 $?
fits "status" "$st"
t_match "status: the URI cut in the middle, its start and end shown" \
	"^ +\(test:///.*\.\.\..*\.xml,$" "$st"
t_nomatch "status: not whole" "$U" "$st"
t_match "status: the host line's rest folded under its text" \
	"^ {8}driver TEST: libvirt's test driver, a simulated host\)$" "$st"
t_match "status: a long mode line folded under its text" "^ {8}[a-z].*[a-z)]$" "$(printf "%s\n" "$st" | sed -n "/^mode:/,/^level:/p" | sed -n 2p)"
t_match "status: the tables as before" "^  VM +CLASS +TAG +VCPUS" "$st"
wd=$(V status --wide); t_eq "status --wide: exit 0" 0 $?
t_match "status --wide: the host line whole" "^host:   .* \($U, driver TEST: " "$wd"
t_eq "--wide before the command too" "$(echo "$wd" | grep -c "$U")" \
	"$(V --wide status | grep -c "$U")"
t_eq "status --json: the URI whole" "$U" "$(V --json status | jq -r .uri)"

pl=$(V plan); t_eq "plan: exit 0" 0 $?
fits "plan" "$pl"
t_match "plan: the URI cut" "\.\.\..*$TAIL|\.\.\..*\.xml," "$pl"
t_match "plan --wide: whole" "$U" "$(V plan --wide)"
ap=$(V apply); t_eq "apply: exit 0" 0 $?
fits "apply" "$ap"

# the fleet: h1 the long URI above, h2 a long URI that does not answer
cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U", "name": "h1"},
           {"uri": "test:///$D/nonesuch-host-definition-file-that-is-not-there.xml", "name": "h2"}]}
JSON
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 "$@" 2>/dev/null; }
fs=$(F status); t_eq "fleet status: exit 1 (h2 unreachable)" 1 $?
fits "fleet status" "$fs"
t_match "fleet status: h2 unreachable, its reason folded under the row" \
	"^  h2 +unreachable: " "$fs"
t_match "fleet status: the totals line folded" "^fleet: 2 hosts, 1 reachable;" "$fs"
fw=$(F --wide status)
t_eq "fleet --wide status: the totals on one line" 1 \
	"$(printf '%s\n' "$fw" | grep -c '^fleet: 2 hosts, 1 reachable;.*awake = some vCPU may run there)$')"
t_eq "vcpack --wide fleet status: the same" "$fw" \
	"$("$VCPACK" --wide fleet --hosts "$T_TMP/fleet.json" --sample 0 status 2>/dev/null)"
t_eq "fleet --json status: never cut" 1 \
	"$(F --json status | jq -r '.hosts[1].error' | grep -c 'nonesuch-host-definition-file-that-is-not-there')"
t_done
