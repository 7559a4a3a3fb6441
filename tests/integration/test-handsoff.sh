#!/bin/sh
# test-handsoff.sh BUILD_DIR - what vcpack leaves alone, on libvirt's test
# driver in a private libvirtd: a VM its own XML pins and no tag claims,
# a VM whose owner opted out (class unmanaged), and, at level 0, every VM
# (a VM vcpack pinned before is put back as 'vcpack restore' would).
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
echo '{"level": 2}' >"$T_TMP/l2.json"
echo '{"level": 0}' >"$T_TMP/l0.json"
P() { t_vcpack --policy "$1" "$@"; }
L2() { t_vcpack --policy "$T_TMP/l2.json" "$@"; }
L0() { t_vcpack --policy "$T_TMP/l0.json" "$@"; }
vm_of() { jq -c ".vms[]|select(.name==\"$1\")"; }
pins() { L2 --json status 2>/dev/null | jq -c ".vms[]|select(.name==\"$1\")|.pins"; }
acts_for() { jq -r "[.actions[]|select(.vm==\"$1\")|.action]|join(\" \")"; }

pinned="<cputune><vcpupin vcpu='0' cpuset='1'/><vcpupin vcpu='1' cpuset='2'/><emulatorpin cpuset='1-2'/></cputune>"
dom_start "$U" own 2 "" "$pinned"
dom_start "$U" owntagged 2 "priority='low'" "$pinned"
dom_start "$U" optout 2 "class='unmanaged'"
dom_start "$U" cpuset 2 "" ""
virsh -q -c "$U" destroy cpuset >/dev/null
virsh -q -c "$U" undefine cpuset >/dev/null
printf "<domain type='test'><name>cpuset</name><memory>1048576</memory><vcpu cpuset='3-4'>2</vcpu><os><type>hvm</type></os></domain>\n" >"$T_TMP/cpuset.xml"
virsh -q -c "$U" define "$T_TMP/cpuset.xml" >/dev/null && virsh -q -c "$U" start cpuset >/dev/null
own0=$(pins own)
optout0=$(pins optout)
test0=$(pins test)

st=$(L2 --json status 2>/dev/null)
t_eq "own XML pins, no tag: untouched" \
	'"untouched" false' "$(echo "$st" | vm_of own | jq -r '"\(.class|tojson) \(.managed)"')"
t_match "own XML pins: the reason" \
	"its own XML pins it \\(vcpupin\\) and it has no vcpack tag: left as it is" \
	"$(echo "$st" | vm_of own | jq -r .unmanaged_reason)"
t_match "<vcpu cpuset>, no tag: untouched, said why" \
	"untouched its own XML pins it \\(<vcpu cpuset>\\)" \
	"$(echo "$st" | vm_of cpuset | jq -r '"\(.class) \(.unmanaged_reason)"')"
t_eq "own XML pins and a tag: vcpack's to place" '"pack" true' \
	"$(echo "$st" | vm_of owntagged | jq -r '"\(.class|tojson) \(.managed)"')"
t_match "class unmanaged: untouched, said why" \
	"untouched its tag says class unmanaged: vcpack never changes it" \
	"$(echo "$st" | vm_of optout | jq -r '"\(.class) \(.unmanaged_reason)"')"
t_eq "neither is an issue (no warning)" "" "$(echo "$st" | jq -r '[.issues[].vm]|join(" ")')"

pl=$(L2 --json plan 2>/dev/null)
t_eq "level 2 plan: nothing for the VM its XML pins" "" "$(echo "$pl" | acts_for own)"
t_eq "level 2 plan: nothing for the cpuset VM" "" "$(echo "$pl" | acts_for cpuset)"
t_eq "level 2 plan: nothing for the opted-out VM" "" "$(echo "$pl" | acts_for optout)"
t_match "level 2 plan: the tagged one is moved" "save-original .*pin-vcpu" \
	"$(echo "$pl" | acts_for owntagged)"
out=$(t_unfold "$(L2 explain own 2>&1)")
t_match "explain: why it is left alone" "its own XML pins it \\(vcpupin\\)" "$out"
t_match "explain: what would move it" "a vcpack tag" "$out"
out=$(t_unfold "$(L2 explain optout 2>&1)")
t_match "explain: the opt-out" "its tag says class unmanaged" "$out"

out=$(L2 apply 2>&1)
t_eq "level 2 apply: exit 0" 0 $?
t_eq "own stays as its XML says" "$own0" "$(pins own)"
t_eq "optout stays" "$optout0" "$(pins optout)"
t_nomatch "test was gathered" "^$test0\$" "$(pins test)"

# level 0 is hands off: only putting back what vcpack changed
pl=$(L0 --json plan 2>/dev/null)
t_eq "level 0 plan: a restore for each VM vcpack changed, nothing else" \
	"owntagged:restore test:restore" \
	"$(echo "$pl" | jq -r '[.actions[]|"\(.vm):\(.action)"]|sort|join(" ")')"
out=$(t_unfold "$(L0 plan 2>&1)")
t_match "level 0 plan: says what the restore does" \
	"restore +test +back to its recorded original pins \\(level 0: hands off\\)" "$out"
out=$(L0 apply 2>&1)
t_eq "level 0 apply: exit 0" 0 $?
t_eq "level 0 apply: test back as found" "$test0" "$(pins test)"
t_eq "level 0 apply: its record dropped" "" \
	"$(virsh -c "$U" metadata test urn:vcpack:state:1 2>/dev/null)"
t_eq "level 0, again: nothing to do" 0 "$(L0 --json plan 2>/dev/null | jq '.actions|length')"
L0 plan --exit-code >/dev/null 2>&1
t_eq "level 0: plan --exit-code says nothing to do" 0 $?

# the opt-out written by vcpack tag, and accepted by the hook (strict,
# enabled: it refuses only a bad tag)
out=$(t_vcpack tag test --class unmanaged 2>&1)
t_eq "vcpack tag --class unmanaged: exit 0" 0 $?
t_match "written as class unmanaged" "class=\"unmanaged\"" \
	"$(virsh -c "$U" metadata test urn:vcpack:metadata:1 2>&1)"
t_eq "and read back: untouched" untouched \
	"$(L2 --json status 2>/dev/null | vm_of test | jq -r .class)"
echo '{"strict_tags": true}' >"$T_TMP/strict.json"
t_enabled "$T_TMP/enabled.state"
virsh -c "$U" dumpxml test >"$T_TMP/test.xml"
out=$(VCPACK_POLICY="$T_TMP/strict.json" VCPACK_STATE="$T_TMP/enabled.state" \
	VCPACK_SOCKET="$T_TMP/none.sock" "$B/vcpack-hook" test prepare begin - <"$T_TMP/test.xml" 2>&1)
t_eq "the hook accepts class unmanaged (strict, enabled)" "0:" "$?:$out"
out=$(t_vcpack tag test --class never 2>&1)
t_eq "vcpack tag --class never: exit 2" 2 $?
t_match "names the classes" "class 'never' is not one of spread, balanced, pack, unmanaged" "$out"
t_done
