#!/bin/sh
# test-wide.sh BUILD_DIR - tables fit 100 columns: the shipped
# two-package test-driver host with one VM renamed to a 60-character name
# and 30 more VMs (test:///ABS/PATH/node.xml, one process per run).
# status, plan, apply and explain keep every indented (table) line within
# 100 columns, show the long name as its first 9 characters, "..." and
# its last 8, and wrap a package's VM list; --wide (before or after the
# command) shows the name whole; --json is never cut.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
t_setup

LONG=pinned-vm-of-the-accounting-department-in-building-seven-042
t_eq "the long name has 60 characters" 60 "${#LONG}"
SHORT=pinned-vm...even-042
{
	sed -e "s|<name>pinned</name>|<name>$LONG</name>|" -e '/^<\/node>/d' \
		"$top/tests/data/hosts/two-pkg.xml"
	i=0
	while [ $i -lt 30 ]; do
		printf '  <domain type="test"><name>tenant-%02d-web-frontend</name><memory unit="MiB">512</memory><vcpu>1</vcpu><os><type>hvm</type></os></domain>\n' $i
		i=$((i + 1))
	done
	echo '</node>'
} >"$T_TMP/long.xml"
U="test://$T_TMP/long.xml"
V() { "$VCPACK" --connect "$U" --sample 0 "$@" 2>&1; }

# the widest indented line of TEXT
widest() { printf '%s\n' "$1" | grep '^  ' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
fits() { # WHAT TEXT
	w=$(widest "$2")
	if [ "$w" -le 100 ]; then t_pass "$1: tables within 100 columns ($w)"
	else t_fail "$1: a table line of $w columns:"
		printf '%s\n' "$2" | awk 'length($0) > 100' | sed 's/^/    /'; fi
}

st=$(V status); t_eq "status: exit 0" 0 $?
fits "status" "$st"
t_match "status: the VM table shows the name shortened in the middle" "^  $SHORT +pack +class +2 " "$st"
t_match "status: the map shows it shortened" "$SHORT" "$(echo "$st" | sed -n '/^packages:/,/^VMs:/p')"
t_nomatch "status: not whole" "$LONG" "$st"
t_match "status: a package's VM list wraps under itself" \
	'^ {50}tenant-[0-9]{2}\.\.\.frontend' "$st"
t_eq "status: every VM in the map still (30 + 6 names on package 0)" 36 \
	"$(echo "$st" | sed -n '/^  package 0/,/^  package 1/p' | sed '$d' | cut -c51- | tr ',' '\n' | grep -c '[a-z]')"

wd=$(V status --wide); t_eq "status --wide: exit 0" 0 $?
t_match "status --wide: the name whole in the VM table" "^  $LONG +pack +class +2 " "$wd"
t_match "status --wide: the name whole in the map" "^  package 0 .*$LONG" "$wd"
t_eq "--wide before the command too" "$(V --wide status | grep -c "$LONG")" "$(echo "$wd" | grep -c "$LONG")"

pl=$(V plan); t_eq "plan: exit 0" 0 $?
fits "plan" "$pl"
t_match "plan: actions show the name shortened" "^  [a-z-]+ +$SHORT " "$pl"
t_match "plan --wide: actions show it whole" "^  [a-z-]+ +$LONG " "$(V plan --wide)"

js=$("$VCPACK" --connect "$U" --sample 0 --json status 2>/dev/null)
t_eq "--json: the name whole" "$LONG" "$(echo "$js" | jq -r ".vms[]|select(.name==\"$LONG\")|.name")"

ex=$(V explain "$LONG"); t_eq "explain: exit 0" 0 $?
fits "explain" "$ex"
t_match "explain: the one VM named whole" "^'$LONG'" "$ex"
t_match "explain: the why line wrapped under its text" '^ {12}[a-z(]' "$ex"

ap=$(V apply); t_eq "apply: exit 0" 0 $?
fits "apply" "$ap"
t_done
