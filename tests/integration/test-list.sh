#!/bin/sh
# test-list.sh BUILD_DIR - `vcpack list` as virsh list has it, on the
# test driver (tests/data/hosts/list-all.xml: two running VMs, four
# defined and shut off): the running ones by default, --all adds the
# shut-off ones after them with the tag and class of their definition
# and no placement ('-', null in --json), --inactive only those, --name
# the names alone; a bad tag shows as 'invalid', class 'untouched'; the
# table fits 100 columns (names cut name...end unless --wide); a wrong
# option is refused (exit 2).
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
VCPACK=$B/vcpack
U="test://$top/tests/data/hosts/list-all.xml"
V() { "$VCPACK" --connect "$U" "$@" 2>&1; }
rows() { printf '%s\n' "$1" | sed 1d | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//'; }

out=$(V list); t_eq "list: exit 0" 0 $?
t_match "list: a header as virsh's" "^  NAME +STATE +CLASS +TAG +VCPUS +PINNED TO$" "$out"
t_eq "list: the running domains only, sorted" "app web" "$(rows "$out")"
t_match "list: a running VM's class, tag, vCPUs and pins" \
	"^  web +running +spread +priority=high +2 2-3$" "$out"
t_match "list: an untagged one" "^  app +running +balanced +- +1 0-3$" "$out"

all=$(V list --all); t_eq "list --all: exit 0" 0 $?
t_eq "list --all: running first, then the shut-off ones, each sorted" \
	"app web batch-off db-off plain-off typo-off" "$(rows "$all")"
t_match "list --all: shut off, the class of its tag, no placement" \
	"^  batch-off +shut off +pack +class=pack +4 -$" "$all"
t_match "list --all: a priority tag mapped through the policy" \
	"^  db-off +shut off +spread +priority=high +2 -$" "$all"
t_match "list --all: untagged: balanced" "^  plain-off +shut off +balanced +- +1 -$" "$all"
t_match "list --all: a bad tag: invalid, untouched" \
	"^  typo-off +shut off +untouched +invalid +1 -$" "$all"
t_eq "list --all after the command's options, --connect last" "$all" \
	"$("$VCPACK" list --all --connect "$U" 2>&1)"

t_eq "list --inactive: only the shut-off ones" "batch-off db-off plain-off typo-off" \
	"$(rows "$(V list --inactive)")"
t_eq "list --name: the running names, one a line" "app
web" "$(V list --name)"
t_eq "list --all --name" "app web batch-off db-off plain-off typo-off" \
	"$(V list --all --name | tr '\n' ' ' | sed 's/ $//')"
t_eq "list --inactive --name --json: an array of names" '["batch-off","db-off","plain-off","typo-off"]' \
	"$(V --json list --inactive --name | jq -c .)"

js=$("$VCPACK" --connect "$U" --json list --all 2>/dev/null); t_eq "--json list --all: exit 0" 0 $?
t_eq "--json: name, state, class per domain" \
	"app:running:balanced web:running:spread batch-off:shut off:pack db-off:shut off:spread plain-off:shut off:balanced typo-off:shut off:untouched" \
	"$(printf '%s\n' "$js" | jq -r '[.[]|"\(.name):\(.state):\(.class)"]|join(" ")')"
t_eq "--json: the tags as written" 'null {"priority":"high"} {"class":"pack"} {"priority":"high"} null null' \
	"$(printf '%s\n' "$js" | jq -c '.[].tag' | tr '\n' ' ' | sed 's/ $//')"
t_eq "--json: pins per vCPU for running VMs, null for shut-off ones" \
	'["2-3","2-3"] null null' \
	"$(printf '%s\n' "$js" | jq -c '.[1].vcpu_pins, .[2].vcpu_pins, .[5].vcpu_pins' | tr '\n' ' ' | sed 's/ $//')"
t_eq "--json: a bad tag is not managed" "false" "$(printf '%s\n' "$js" | jq -r '.[5].managed')"
t_eq "--json: vCPUs and persistence of shut-off VMs" "4 true" \
	"$(printf '%s\n' "$js" | jq -r '.[2]|"\(.vcpus) \(.persistent)"')"

# a long name: cut to fit, whole with --wide
LONG=shut-off-vm-of-the-accounting-department-in-building-seven-042
sed "s|<name>plain-off</name>|<name>$LONG</name>|" \
	"$top/tests/data/hosts/list-all.xml" >"$T_TMP/long.xml"
lo=$("$VCPACK" --connect "test://$T_TMP/long.xml" list --all 2>&1)
t_eq "a long name: every line within 100 columns" 0 \
	"$(printf '%s\n' "$lo" | awk 'length($0) > 100' | wc -l)"
t_match "a long name: cut in the middle" "^  shut-off-...even-042 +shut off " "$lo"
t_match "--wide: whole" "^  $LONG +shut off " \
	"$("$VCPACK" --connect "test://$T_TMP/long.xml" list --all --wide 2>&1)"

out=$(V list --bogus); t_eq "list --bogus: exit 2" 2 $?
t_match "list --bogus: named" "list takes --all, --inactive and --name, got '--bogus'" "$out"
out=$(V list web); t_eq "list DOMAIN: exit 2" 2 $?
t_match "help list: says --all" "list \[--all\|--inactive\] \[--name\]" "$(V help list)"
t_done
