#!/bin/sh
# test-placers.sh BUILD_DIR - `vcpack status` says the other placers on
# the host (libvirt's test driver; --root on fixture trees in
# tests/data/placers): numad running, tuned's profile, VMs whose XML asks
# for placement='auto' or numatune. One line each; nothing changed.
# (--wide: each line whole; folded at 100 columns without it, test-fit.sh)
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
FIX=$top/tests/data/placers
t_setup

# The shipped two-package host with two VMs asking for NUMA placement.
sed -e "/<name>latency<\/name>/,/<\/domain>/s|<vcpu>2</vcpu>|<vcpu placement='auto'>2</vcpu>|" \
    -e "/<name>batch<\/name>/,/<\/domain>/s|<vcpu>4</vcpu>|<vcpu>4</vcpu><numatune><memory mode='strict' placement='auto'/></numatune>|" \
	"$top/tests/data/hosts/two-pkg.xml" >"$T_TMP/node.xml"
N="test://$T_TMP/node.xml"
TWO="test://$top/tests/data/hosts/two-pkg.xml"

st=$("$VCPACK" --connect "$N" --root "$FIX/numad-tuned" --json status 2>/dev/null)
t_eq "status: exit 0" 0 $?
t_eq "json: numad pid" 77 "$(echo "$st" | jq .placers.numad_pid)"
t_eq "json: tuned profile" virtual-host "$(echo "$st" | jq -r .placers.tuned_profile)"
t_eq "json: VMs asking for NUMA placement" '["batch","latency"]' "$(echo "$st" | jq -c .placers.numa_vms)"
txt=$("$VCPACK" --wide --connect "$N" --root "$FIX/numad-tuned" status 2>/dev/null)
t_match "text: numad" "^numad: +running \(pid 77\)" "$txt"
t_match "text: tuned" "^tuned: +active profile 'virtual-host'$" "$txt"
t_match "text: numa VMs" "^numa: +2 VMs with placement='auto' or numatune .*: 'batch', 'latency'$" "$txt"
txt=$("$VCPACK" --connect "$TWO" --root "$FIX/none" status 2>/dev/null)
t_match "none: numad" "^numad: +not running$" "$txt"
t_match "none: tuned" "^tuned: +no active profile$" "$txt"
t_match "none: numa" "^numa: +no VM asks for placement='auto' or numatune$" "$txt"
txt=$("$VCPACK" --wide --connect "$TWO" status 2>/dev/null)
t_match "test driver without --root: said once" "^local: +IRQ rates, numad and tuned not shown: this host's /proc is not on this machine \(test driver or remote URI\)$" "$txt"
t_nomatch "test driver without --root: no numad, tuned or irqs lines" "^(numad|tuned|irqs):" "$txt"
t_done
