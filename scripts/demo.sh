#!/bin/sh
# demo.sh - `make demo`: vcpack on libvirt's test driver with a shipped
# two-socket host (host-agent/demo/host.xml) carrying one VM of every
# class, one untagged VM and one with a bad tag.
#
# libvirt's test driver is libvirt's own simulated hypervisor: the VMs,
# their metadata and their pins are real libvirt objects and vcpack talks
# to them through the same API calls it uses on a real KVM host, but no
# guest runs and nothing on this machine is re-pinned.
set -eu
VCPACK=${1:-build/vcpack}
top=$(cd "$(dirname "$0")/.." && pwd)
URI="test://$top/host-agent/demo/host.xml"

say() { printf '\n==== %s\n' "$*"; }

cat <<TXT
vcpack demo on libvirt's TEST DRIVER (a simulated host, not this machine)
URI: $URI
Host: 2 sockets x 8 cores x 2 threads. VMs: web (priority high -> spread),
app (normal -> balanced), ci (untagged -> balanced), batch1 (low -> pack),
batch2 (class pack), legacy (bad tag priority="urgent": left untouched).
The test driver reports no vCPU run time, so every vCPU is assumed to use
the policy's default_vcpu_demand (0.25 CPU).
TXT

say "vcpack status: where the VMs may run now (every package awake)"
"$VCPACK" --connect "$URI" status

say "vcpack plan: what apply would do (dry run, changes nothing)"
"$VCPACK" --connect "$URI" plan

say "vcpack apply: carry it out and read the result back from libvirt"
"$VCPACK" --connect "$URI" apply

cat <<TXT

Auto level: web is a 'spread' VM assumed busy, so auto picks 1, where
only 'pack' VMs are gathered and the 'balanced' VMs (app, ci) stay free
to run anywhere, keeping both packages awake. Gathering would idle
nothing, so the plan is made at level 0 (2 of 2 packages active, as the
map shows) and only web gets its exclusive cores. With the balanced VMs
tagged low priority the whole load fits on one package; the same host
with level 2 forced by a policy shows it:
TXT
pol=$(mktemp)
trap 'rm -f "$pol"' EXIT
echo '{"level": 2}' >"$pol"
say "vcpack --policy {\"level\": 2} apply"
"$VCPACK" --connect "$URI" --policy "$pol" apply
