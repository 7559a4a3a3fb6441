#!/bin/sh
# test-wide.sh BUILD_DIR - tables fit 100 columns: the shipped
# two-package test-driver host with one VM renamed to a 60-character name
# and 30 more VMs (test:///ABS/PATH/node.xml, one process per run).
# status, plan, apply and explain keep every indented (table) line within
# 100 columns, show the long name as its first 9 characters, "..." and
# its last 8, and wrap a package's VM list; --wide (before or after the
# command) shows the name whole; --json is never cut. Two more VMs have
# 80-character names that differ only in their middle: every table
# (status's map and VM table, plan's actions, list, restore) still shows
# them differently, with the part where they differ, as --wide whole.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
t_setup

LONG=pinned-vm-of-the-accounting-department-in-building-seven-042
t_eq "the long name has 60 characters" 60 "${#LONG}"
SHORT=pinned-vm...even-042
twin() { printf 'batch-a-0-nightly-analytics-job-runner-%s-for-the-accounting-department-warehouse' "$1"; }
TWIN17=$(twin 17)
TWIN18=$(twin 18)
t_eq "the twins have 81 characters" 81 "${#TWIN17}"
{
	sed -e "s|<name>pinned</name>|<name>$LONG</name>|" -e '/^<\/node>/d' \
		"$top/tests/data/hosts/two-pkg.xml"
	i=0
	while [ $i -lt 30 ]; do
		printf '  <domain type="test"><name>tenant-%02d-web-frontend</name><memory unit="MiB">512</memory><vcpu>1</vcpu><os><type>hvm</type></os></domain>\n' $i
		i=$((i + 1))
	done
	for n in "$TWIN17" "$TWIN18"; do
		printf '  <domain type="test"><name>%s</name><memory unit="MiB">512</memory><vcpu>2</vcpu><os><type>hvm</type></os></domain>\n' "$n"
	done
	echo '</node>'
} >"$T_TMP/long.xml"
U="test://$T_TMP/long.xml"
# exclusive_cores: level 0 (where auto resolves here) then re-pins, as
# the actions these tests lay out need (without it level 0 is hands off)
echo '{"exclusive_cores": true}' >"$T_TMP/x.json"
V() { "$VCPACK" --connect "$U" --sample 0 --policy "$T_TMP/x.json" "$@" 2>&1; }

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
t_eq "status: every VM in the map still (30 + 8 names on package 0)" 38 \
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

# names that cut alike: no table shows two different names the same way
alike() { # WHAT NAMES (one a line): each shown once
	if [ "$(printf '%s\n' "$2" | sort | uniq -d)" = "" ]; then
		t_pass "$1: no two names read alike ($(printf '%s\n' "$2" | wc -l) names)"
	else t_fail "$1: names shown alike:"
		printf '%s\n' "$2" | sort | uniq -d | sed 's/^/    /'; fi
}
st=$(V status)
vmcol=$(echo "$st" | sed -n '/^VMs:/,$p' | sed -n '3,$p' | grep '^  [^ ]' | awk '{ print $1 }')
t_eq "status: a row per VM (36 + 2)" 38 "$(echo "$vmcol" | wc -l)"
alike "status VM table" "$vmcol"
t_eq "status VM table: the twins each show where they differ (17, 18)" "1 1" \
	"$(echo "$vmcol" | grep -c '^bat.*-17-') $(echo "$vmcol" | grep -c '^bat.*-18-')"
t_eq "status VM table: the twins within the name column" 0 \
	"$(echo "$vmcol" | grep '^batch-a' | awk 'length($0) > 20' | wc -l)"
t_eq "status map: as many names as VMs on packages" \
	"$("$VCPACK" --connect "$U" --sample 0 --json status 2>/dev/null | jq '[.packages[].vms[]]|unique|length')" \
	"$(echo "$st" | sed -n '/^packages:/,/^VMs:/p' | grep -v '^packages:\|^VMs:\|packages awake' |
	cut -c51- | sed 's/  (.*//; s/  -> can sleep//' | tr ',' '\n' | sed 's/^ *//; /^$/d' | sort -u | wc -l)"
pl=$(V plan)
t_eq "plan: the names on pin-vcpu lines: one per VM pinned" \
	"$("$VCPACK" --connect "$U" --sample 0 --policy "$T_TMP/x.json" --json plan 2>/dev/null | jq '[.actions[]|select(.action=="pin-vcpu")|.vm]|unique|length')" \
	"$(echo "$pl" | awk '$1 == "pin-vcpu" { print $2 }' | sort -u | wc -l)"
ls=$(V list --all)
alike "list" "$(echo "$ls" | sed 1d | awk '{ print $1 }')"
alike "restore" "$(V restore | sed 1d | grep '^  ' | awk '{ print $1 }')"
wd=$(V status --wide)
t_match "status --wide: the twins whole (17)" "^  $TWIN17 " "$wd"
t_match "status --wide: the twins whole (18)" "^  $TWIN18 " "$wd"
t_done
