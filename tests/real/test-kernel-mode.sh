#!/bin/sh
# test-kernel-mode.sh BUILD_DIR KERNEL - kernel mode end to end with real
# QEMU guests: this machine's kernel has no vcpack knobs, so the kernel
# side is a fixture root (--root; tests/data/kroot/v1's layout: cgroup v1
# cpu hierarchy, sched_mc_power_savings) in which each guest's
# /proc/QPID/cgroup names its libvirt group, as on a patched host. vcpack
# must then write each guest's class into its group's cpu.consolidate and
# the level into sched_mc_power_savings, pin only the spread guest's
# threads (the kernel packs the rest), and restore put the classes back.
B=$1
KERNEL=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
qemu_host "$KERNEL"
all=$(cat /sys/devices/system/cpu/online)
R=$T_TMP/kroot
cp -a "$here/../data/kroot/v1" "$R"
CG=$R/sys/fs/cgroup/cpu/machine

define_guest "$U" kpack 1 "class='pack'" && define_guest "$U" kspread 1 "priority='high'" &&
	define_guest "$U" kbal 1 && t_pass "guests defined" || t_fail "define guests"
n=0
for g in kpack kspread kbal; do
	start_guest "$U" "$g" || t_fail "start $g"
	n=$((n + 1)); q=$(qemu_pid "$g"); grp=/machine/qemu-$n-$g.libvirt-qemu
	mkdir -p "$R/proc/$q" "$R/sys/fs/cgroup/cpu$grp/emulator"
	printf '5:cpuacct:%s/emulator\n4:cpu:%s/emulator\n0::%s\n' "$grp" "$grp" "$grp" >"$R/proc/$q/cgroup"
	echo balanced >"$R/sys/fs/cgroup/cpu$grp/cpu.consolidate"
	: >"$R/sys/fs/cgroup/cpu$grp/cgroup.procs"
	eval "GRP_$g=\$R/sys/fs/cgroup/cpu\$grp"
done
echo '{"level": 2}' >"$T_TMP/policy.json"
V() { XDG_RUNTIME_DIR=$LVD_RUN "$B/vcpack" --connect "$U" --root "$R" \
	--policy "$T_TMP/policy.json" --sample 0 "$@"; }

st=$(V --json status 2>/dev/null)
t_eq "status: kernel mode (both knobs in the root)" kernel "$(echo "$st" | jq -r .mode)"
t_eq "status: the level read from the kernel" 0 "$(echo "$st" | jq -r .level)"
pl=$(V --json plan 2>/dev/null)
t_eq "plan: only the spread guest is pinned" "kspread" \
	"$(echo "$pl" | jq -r '[.plan.vms[]|select(.placement=="exclusive" or .placement=="gathered")|.name]|join(" ")')"
# (the untagged guest is balanced already: written only when different)
t_eq "plan: class and level actions" "set-class:kpack set-class:kspread set-level" \
	"$(echo "$pl" | jq -r '[.actions[]|select(.action=="set-class" or .action=="set-level")|"\(.action)\(if .vm then ":"+.vm else "" end)"]|sort|join(" ")')"
ap=$(V --json apply 2>/dev/null); t_eq "apply: exit 0" 0 $?
t_eq "apply: every action done" 0 "$(echo "$ap" | jq '[.actions[]|select(.outcome!="done")]|length')"
t_eq "pack guest's group: cpu.consolidate=pack" pack "$(cat "$GRP_kpack/cpu.consolidate")"
t_eq "spread guest's group: cpu.consolidate=spread" spread "$(cat "$GRP_kspread/cpu.consolidate")"
t_eq "untagged guest's group: balanced" balanced "$(cat "$GRP_kbal/cpu.consolidate")"
t_eq "level written: sched_mc_power_savings=2" 2 "$(cat "$R/sys/devices/system/cpu/sched_mc_power_savings")"
# the others are only kept off the spread guest's exclusive core; within
# the rest the kernel places them by class
free=$(echo "$pl" | jq -r '.plan.vms[]|select(.name=="kpack")|.vcpus[0]')
t_eq "the pack guest: free on every CPU but the exclusive core" "$free" "$(allowed kpack 0)"
t_nomatch "that set is more than the exclusive core" "^$(allowed kspread 0)\$" "$free"
t_nomatch "the spread guest's thread is on an exclusive core" "^$all\$" "$(allowed kspread 0)"
t_eq "re-apply: nothing to do" 0 "$(V --json apply 2>/dev/null | jq '.actions|length')"
V restore >/dev/null 2>&1; t_eq "restore: exit 0" 0 $?
t_eq "restore: classes back to the kernel default" "balanced balanced" \
	"$(cat "$GRP_kpack/cpu.consolidate") $(cat "$GRP_kspread/cpu.consolidate")"
t_eq "restore: spread guest's thread back to its original pins" "$all" "$(allowed kspread 0)"
t_done
