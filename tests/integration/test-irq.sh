#!/bin/sh
# test-irq.sh BUILD_DIR - device IRQs and sleeping packages through the
# real `vcpack` on libvirt's test driver (two packages: CPUs 0-3,8-11 and
# 4-7,12-15), with --root on a copy of the fixture /proc tree
# tests/data/irq/two-pkg in the test's temp dir: `apply` under policy
# irq_affinity "on" moves device IRQs off the package the plan idles
# (managed IRQ 25 counted and left alone), "off" puts them back, a
# running irqbalance gets advice instead of writes, and `status` shows
# interrupts per package per second. Never touches this machine's /proc.
# (--wide where a line is matched whole: folded at 100 columns without.)
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
FIX=$top/tests/data/irq
t_setup

cp -a "$FIX/two-pkg" "$T_TMP/root"
R=$T_TMP/root
aff() { cat "$R/proc/irq/$1/smp_affinity_list"; }
affs() { echo "$(aff 0) $(aff 24) $(aff 25) $(aff 26) $(aff 27)"; }
# level 2: every managed VM gathered, so package 1 truly idles (at level
# 1 the balanced VMs left free would keep it awake in pin mode)
echo '{"default_vcpu_demand": 0.15, "level": 2, "irq_affinity": "on"}' >"$T_TMP/on.json"
echo '{"default_vcpu_demand": 0.15, "level": 2, "irq_affinity": "off"}' >"$T_TMP/off.json"
echo '{"default_vcpu_demand": 0.15, "level": 2}' >"$T_TMP/default.json"

# ---- off by default: nothing looked at, nothing written ----
ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/default.json" --json apply 2>/dev/null)
t_eq "default: apply exit 0" 0 $?
t_eq "default: no irqs report" null "$(echo "$ap" | jq -c .irqs)"
t_eq "default: affinities untouched" "0-7 0-7 4 4-7 1" "$(affs)"

# ---- plan: what apply would do, nothing written ----
pl=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" --json plan 2>/dev/null)
t_eq "plan: exit 0" 0 $?
t_eq "plan: dry run counts (irqs would-move kept)" "true 5 4 1" \
	"$(echo "$pl" | jq -r '.irqs|"\(.dry_run) \(.irqs) \(.moved) \(.kept)"')"
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" plan 2>/dev/null)
t_match "plan: text says would" "^irqs: +5 device IRQs: 4 would move off idle packages \(CPUs 4-7,12-15\), 0 would be restored, 1 already in place \(dry run, nothing changed\)$" "$txt"
t_eq "plan: affinities untouched" "0-7 0-7 4 4-7 1" "$(affs)"
t_eq "plan: no records written" no "$([ -e "$R/run/vcpack" ] && echo yes || echo no)"

# ---- on: off the idle package ----
ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" --json apply 2>/dev/null)
t_eq "on: apply exit 0" 0 $?
t_eq "on: package 1 idle in the plan" "true false" \
	"$(echo "$ap" | jq -r '[.plan.packages[].active]|map(tostring)|join(" ")')"
t_eq "on: idle CPUs" "4-7,12-15" "$(echo "$ap" | jq -r .irqs.idle_cpus)"
t_eq "on: counts (irqs moved managed kept failed)" "5 3 1 1 0" \
	"$(echo "$ap" | jq -r '.irqs|"\(.irqs) \(.moved) \(.managed) \(.kept) \(.failed)"')"
t_eq "on: affinities off package 1, managed 25 left, eth0 to the awake CPUs" \
	"0-3 0-3 4 0-3,8-11 1" "$(affs)"
t_eq "on: originals recorded" "0 0-7 0-3
24 0-7 0-3
26 4-7 0-3,8-11" "$(cat "$R/run/vcpack/irq-affinity")"
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply 2>/dev/null)
t_match "on: text line" "^irqs: +5 device IRQs: 0 moved off idle packages \(CPUs 4-7,12-15\), 0 restored, 1 managed by the kernel left alone, 4 already in place" "$txt"
t_eq "on: a second apply changes nothing" "0-3 0-3 4 0-3,8-11 1" "$(affs)"

# ---- irqbalance runs: it is asked to ban the idle packages' CPUs over
# its socket; vcpack writes no affinity ----
mkdir -p "$R/proc/321"
echo irqbalance >"$R/proc/321/comm"
echo 321 >"$R/run/irqbalance.pid"
cp "$R/run/vcpack/irq-affinity" "$T_TMP/records"
echo "2" >"$R/proc/irq/27/smp_affinity_list"
ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/off.json" --json apply 2>/dev/null)
t_eq "irqbalance: pid" 321 "$(echo "$ap" | jq .irqs.irqbalance_pid)"
t_eq "irqbalance, off: nothing asked" false "$(echo "$ap" | jq .irqs.irqbalance_request.asked)"
t_eq "irqbalance: nothing restored behind its back" "0-3 0-3 4 0-3,8-11 2" "$(affs)"
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/off.json" apply 2>/dev/null)
t_match "irqbalance, off: said, nothing put back" "^irqs: +irqbalance \(pid 321\) steers IRQs; irq_affinity is off, nothing asked \(vcpack writes no affinity, nor puts back what it moved before irqbalance started\)$" "$txt"
t_eq "irqbalance, off: still nothing restored" "0-3 0-3 4 0-3,8-11 2" "$(affs)"
# no socket (an irqbalance built without it): the hand-made way, said
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply 2>/dev/null)
t_match "irqbalance, no socket: what to ban and restart" 'irqbalance \(pid 321\) steers IRQs; asking it to keep them off the idle packages failed \(it has no socket /run/irqbalance/irqbalance321.sock\), and vcpack writes no affinity. Set IRQBALANCE_BANNED_CPULIST="4-7,12-15" in /etc/default/irqbalance \(now unset\) and restart irqbalance' "$txt"
t_eq "irqbalance, no socket: nothing recorded as told" no "$([ -e "$R/run/vcpack/irqbalance-ban" ] && echo yes || echo no)"
t_eq "irqbalance: records kept" "$(cat "$T_TMP/records")" "$(cat "$R/run/vcpack/irq-affinity")"
# its socket: a listener standing in for irqbalance's (the real one is
# tests/integration/test-irqbalance.sh), logging each request whole
mkdir -p "$R/run/irqbalance"
python3 "$here/irqbsock.py" listen "$R/run/irqbalance/irqbalance321.sock" "$T_TMP/asked" &
T_PIDS="$T_PIDS $!"
i=0; until [ -S "$R/run/irqbalance/irqbalance321.sock" ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i + 1)); done
: >"$T_TMP/asked"
asked() { sleep 0.3; cat "$T_TMP/asked"; : >"$T_TMP/asked"; }
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" plan 2>/dev/null)
t_match "irqbalance, plan: would ask" 'irqbalance \(pid 321\) would be asked to keep IRQs off CPUs 4-7,12-15 \(the idle packages.\) \(dry run, nothing asked\)' "$txt"
t_eq "irqbalance, plan: nothing sent" "" "$(asked)"
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply 2>/dev/null)
t_match "irqbalance: asked" '^irqs: +irqbalance \(pid 321\) asked to keep IRQs off CPUs 4-7,12-15 \(the idle packages.\), from its next rescan' "$txt"
t_eq "irqbalance: the request" "settings cpus 4-7,12-15" "$(asked)"
t_eq "irqbalance: told recorded" "321 4-7,12-15" "$(cat "$R/run/vcpack/irqbalance-ban")"
t_eq "irqbalance: no affinity written" "0-3 0-3 4 0-3,8-11 2" "$(affs)"
ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" --json apply 2>/dev/null)
t_eq "irqbalance, again: in force, not asked" '{"cpus":"4-7,12-15","asked":false,"in_force":true,"gave_back":false,"error":null}' "$(echo "$ap" | jq -c .irqs.irqbalance_request)"
t_eq "irqbalance, again: nothing sent" "" "$(asked)"
# irqbalance restarted (another pid, its socket): told again
mkdir -p "$R/proc/322"; echo irqbalance >"$R/proc/322/comm"; echo 322 >"$R/run/irqbalance.pid"
ln -s irqbalance321.sock "$R/run/irqbalance/irqbalance322.sock"
"$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply >/dev/null 2>&1
t_eq "irqbalance restarted: asked again" "settings cpus 4-7,12-15" "$(asked)"
t_eq "irqbalance restarted: its pid recorded" "322 4-7,12-15" "$(cat "$R/run/vcpack/irqbalance-ban")"
echo 321 >"$R/run/irqbalance.pid"
"$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply >/dev/null 2>&1
asked >/dev/null
# off: its own list back, the record gone
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/off.json" apply 2>/dev/null)
t_match "irqbalance, off: own list back" '^irqs: +irqbalance \(pid 321\) given its own banned CPUs back \(unset\): no package idles$' "$txt"
t_eq "irqbalance, off: the request" "settings cpus NULL" "$(asked)"
t_eq "irqbalance, off: record gone" no "$([ -e "$R/run/vcpack/irqbalance-ban" ] && echo yes || echo no)"
# its own list: kept in the ban; covering the idle CPUs: nothing asked
mkdir -p "$R/etc/default"
echo 'IRQBALANCE_BANNED_CPULIST=0' >"$R/etc/default/irqbalance"
"$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply >/dev/null 2>&1
t_eq "irqbalance, own list: the union asked" "settings cpus 0,4-7,12-15" "$(asked)"
echo 'IRQBALANCE_BANNED_CPULIST=4-7,12-15' >"$R/etc/default/irqbalance"
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply 2>/dev/null)
t_match "irqbalance, own list covers: said" "^irqs: +irqbalance \\(pid 321\\) given its own banned CPUs back \\(4-7,12-15\\), which cover the idle packages$" "$txt"
t_eq "irqbalance, own list covers: our ban given back" "settings cpus NULL" "$(asked)"
txt=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" apply 2>/dev/null)
t_match "irqbalance: already banned said" "already bans CPUs '4-7,12-15'" "$txt"
t_eq "irqbalance, already banned: nothing sent" "" "$(asked)"
rm -r "$R/run/irqbalance.pid" "$R/proc/321" "$R/proc/322"

# ---- restore (every VM) also puts the IRQs back; with domains it does not ----
cp -a "$R" "$T_TMP/root2"
R2=$T_TMP/root2
out=$("$VCPACK" --connect "$TWO" --root "$R2" --policy "$T_TMP/on.json" --json restore latency 2>/dev/null)
t_eq "restore DOMAIN: IRQs left" "0-3 0-3 4 0-3,8-11 2" \
	"$(for q in 0 24 25 26 27; do cat "$R2/proc/irq/$q/smp_affinity_list"; done | paste -sd' ' -)"
t_eq "restore DOMAIN: no irqs report" null "$(echo "$out" | jq -c .irqs)"
out=$("$VCPACK" --connect "$TWO" --root "$R2" --policy "$T_TMP/on.json" --json restore 2>/dev/null)
t_eq "restore: exit 0" 0 $?
t_eq "restore: IRQs restored" 3 "$(echo "$out" | jq .irqs.restored)"
t_eq "restore: originals back" "0-7 0-7 4 4-7 2" \
	"$(for q in 0 24 25 26 27; do cat "$R2/proc/irq/$q/smp_affinity_list"; done | paste -sd' ' -)"

# ---- off again: back to the originals; someone else's change stays ----
ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/off.json" --json apply 2>/dev/null)
t_eq "off: apply exit 0" 0 $?
t_eq "off: restored 3" 3 "$(echo "$ap" | jq .irqs.restored)"
t_eq "off: originals back, 27 as its owner set it" "0-7 0-7 4 4-7 2" "$(affs)"
t_eq "off: no records left" no "$([ -e "$R/run/vcpack/irq-affinity" ] && echo yes || echo no)"
ap=$("$VCPACK" --connect "$TWO" --root "$R" --policy "$T_TMP/off.json" --json apply 2>/dev/null)
t_eq "off, nothing recorded: no irqs report" null "$(echo "$ap" | jq -c .irqs)"

# ---- vcpackd: the same after each apply, back on SIGTERM with
# --restore-on-exit (a private test driver, its own socket) ----
t_enabled "$T_TMP/state.json"
"$B/vcpackd" --foreground --connect "$TWO" --root "$R" --policy "$T_TMP/on.json" \
	--state "$T_TMP/state.json" \
	--socket "$T_TMP/vcpackd.sock" --restore-on-exit >"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0; until [ "$(affs)" = "0-3 0-3 4 0-3,8-11 2" ] || [ $i -ge 100 ]; do
	sleep 0.1; i=$((i + 1)); done
t_eq "vcpackd: IRQs off the idle package" "0-3 0-3 4 0-3,8-11 2" "$(affs)"
t_match "vcpackd: said in its log" "device IRQs: 3 moved off idle packages, 0 restored, 1 managed left alone, 0 failed" "$(cat "$T_TMP/vcpackd.log")"
kill -TERM "$DPID"
i=0; while kill -0 "$DPID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "vcpackd: stopped by SIGTERM" no "$(kill -0 "$DPID" 2>/dev/null && echo yes || echo no)"
t_eq "vcpackd --restore-on-exit: IRQs back" "0-7 0-7 4 4-7 2" "$(affs)"
t_eq "vcpackd --restore-on-exit: no records left" no "$([ -e "$R/run/vcpack/irq-affinity" ] && echo yes || echo no)"

# ---- status: interrupts per package per second ----
st=$("$VCPACK" --connect "$TWO" --root "$R" --json status 2>/dev/null)
t_eq "status: exit 0" 0 $?
t_eq "status: one rate per package" "0 0 0 0" \
	"$(echo "$st" | jq -r '[.interrupts.packages[]|.per_s, .device_per_s]|map(tostring)|join(" ")')"
t_eq "status: over a measured time" true "$(echo "$st" | jq '.interrupts.seconds >= 0.25')"
txt=$("$VCPACK" --connect "$TWO" --root "$R" status 2>/dev/null)
t_match "status text: package 0 line" "^irqs: +package 0: 0/s, 0/s from devices$" "$txt"
t_match "status text: package 1 line" "^irqs: +package 1: 0/s, 0/s from devices$" "$txt"
rm "$R/proc/interrupts"
txt=$("$VCPACK" --wide --connect "$TWO" --root "$R" status 2>/dev/null)
t_match "status text: unreadable said plainly" "^irqs: +not shown: cannot read .*/proc/interrupts: No such file or directory$" "$txt"
st=$("$VCPACK" --connect "$TWO" --root "$R" --json status 2>/dev/null)
t_match "status json: unreadable" "No such file" "$(echo "$st" | jq -r .interrupts.error)"
txt=$("$VCPACK" --connect "$TWO" status 2>/dev/null)
t_match "status text: the test driver's host is not this machine" "^local: +IRQ rates, numad and tuned not shown: this host's /proc is not on this machine" "$txt"
st=$("$VCPACK" --connect "$TWO" --json status 2>/dev/null)
t_eq "status json: the test driver's host is not this machine" "this host's /proc is not on this machine" "$(echo "$st" | jq -r .interrupts.error)"
t_done
