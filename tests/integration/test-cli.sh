#!/bin/sh
# test-cli.sh BUILD_DIR - the real `vcpack` binary against libvirt's test
# driver: shipped two- and four-package hosts (test:///ABS/PATH/node.xml,
# one process per run) and test:///default inside a private libvirtd
# (test+unix://), where tag -> plan -> apply -> status -> restore run as
# separate processes on shared state.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
FOUR="test://$top/tests/data/hosts/four-pkg.xml"
t_setup

# ---- usage and input errors (exit 2, nothing changed) ----
out=$("$VCPACK" 2>&1); t_eq "no command: exit 2" 2 $?
t_match "no command: usage" "Usage: vcpack" "$out"
out=$("$VCPACK" frobnicate 2>&1); t_eq "unknown command: exit 2" 2 $?
t_match "unknown command named" "unknown command 'frobnicate'" "$out"
out=$("$VCPACK" --mode turbo status 2>&1); t_eq "bad --mode: exit 2" 2 $?
t_match "bad --mode named" "--mode 'turbo'" "$out"
# --mode kernel or scx where the host cannot run it: refused with why,
# before anything is read or changed (it used to go on in pin mode)
out=$("$VCPACK" --connect "$TWO" --mode kernel apply 2>&1)
t_eq "--mode kernel on the test driver: exit 2" 2 $?
t_eq "--mode kernel on the test driver: why, nothing changed" \
	"vcpack: --mode kernel: libvirt's test driver has no kernel to tune; nothing changed" "$out"
KR=$top/tests/data/kroot
out=$("$VCPACK" --connect "$TWO" --root "$KR/v1-stock" --mode kernel plan 2>&1)
t_eq "--mode kernel on a stock kernel: exit 2" 2 $?
t_match "--mode kernel on a stock kernel: the missing knob named" \
	"^vcpack: --mode kernel: stock kernel: no /sys/devices/system/cpu/sched_mc_power_savings" "$out"
out=$("$VCPACK" --connect "$TWO" --root "$KR/v1-stock" --mode scx status 2>&1)
t_eq "--mode scx without sched_ext: exit 2" 2 $?
t_match "--mode scx without sched_ext: why" "--mode scx: this kernel has no sched_ext" "$out"
"$VCPACK" --connect "$TWO" --root "$KR/v1" --mode kernel plan >/dev/null 2>&1
t_eq "--mode kernel with the knobs: exit 0" 0 $?
out=$(timeout 30 "$B/vcpackd" --foreground --connect "$TWO" \
	--socket "$T_TMP/refused.sock" --mode kernel 2>&1)
t_eq "vcpackd --mode kernel on the test driver: exits 1" 1 $?
t_eq "vcpackd --mode kernel: why, and nothing else" \
	"--mode kernel: libvirt's test driver has no kernel to tune; vcpackd stops, nothing changed" "$out"
# it ends at once every time: its threads' loops were quit before they
# ran in some runs, and vcpackd then hung in the join, deaf to SIGTERM
n=0
for i in $(seq 1 30); do
	timeout -k 1 10 "$B/vcpackd" --foreground --connect "$TWO" \
		--socket "$T_TMP/refused.sock" --mode kernel >/dev/null 2>&1
	[ $? = 1 ] && n=$((n + 1))
done
t_eq "vcpackd --mode kernel: exits 1 at once, 30 times of 30" 30 "$n"
for c in status plan apply tag restore; do
	out=$("$VCPACK" $c --help); t_eq "$c --help: exit 0" 0 $?
	t_match "$c --help text" "Usage: vcpack .*$c" "$out"
done
out=$("$VCPACK" --connect "$TWO" tag latency --priority urgent 2>&1)
t_eq "tag bad priority: exit 2" 2 $?
t_match "tag bad priority named" "priority 'urgent' is not one of high, normal, low" "$out"
out=$("$VCPACK" --connect "$TWO" tag latency 2>&1)
t_eq "tag without value: exit 2" 2 $?
out=$("$VCPACK" --connect "$TWO" tag nosuchvm --class pack 2>&1)
t_eq "tag unknown domain: exit 2" 2 $?
t_match "tag unknown domain named" "nosuchvm" "$out"
echo '{"headroom": 1.5}' >"$T_TMP/bad.json"
out=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/bad.json" apply 2>&1)
t_eq "bad policy: exit 2" 2 $?
t_match "bad policy names the key" "headroom" "$out"
out=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/missing.json" plan 2>&1)
t_eq "missing policy: exit 2" 2 $?

# ---- two packages x 4 cores x 2 threads: status ----
st=$("$VCPACK" --connect "$TWO" --json status)
t_eq "status: exit 0" 0 $?
t_eq "status: pin mode on the test driver" pin "$(echo "$st" | jq -r .mode)"
t_eq "status: 2 packages" 2 "$(echo "$st" | jq '.packages|length')"
t_eq "status: both awake before" "true true" "$(echo "$st" | jq -r '[.packages[].awake]|map(tostring)|join(" ")')"
t_eq "status: 6 VMs" 6 "$(echo "$st" | jq '.vms|length')"
t_eq "status: classes" "badvalue=untouched batch=pack latency=spread normal1=balanced pinned=pack untagged=balanced" \
	"$(echo "$st" | jq -r '[.vms[]|"\(.name)=\(.class)"]|join(" ")')"
t_eq "status: bad tag reported by name" badvalue "$(echo "$st" | jq -r '.issues[0].vm')"
t_match "status: bad tag message" "priority 'urgent'" "$(echo "$st" | jq -r '.issues[0].message')"
t_eq "status: pinned VM pins" "8-11 8-11" "$(echo "$st" | jq -r '.vms[]|select(.name=="pinned")|.pins|join(" ")')"
txt=$("$VCPACK" --connect "$TWO" status 2>&1)
t_match "status text: test driver said plainly" "test driver" "$txt"
t_match "status text: mode" "mode: +pin" "$txt"

# ---- plan: a dry run (pins unchanged afterwards within the same run) ----
# With the default 0.25 CPU per unmeasured vCPU this host's 4.75 CPUs do
# not fit one package (4.16 usable), so auto resolves to 0; at 0.15 they
# do (3.65), and the spread VM counts as busy (above 0.1): auto picks 1.
# In pin mode the balanced VMs level 1 leaves free are pinned to every
# CPU and keep both packages awake, so gathering the pack VMs would idle
# nothing: the plan is made at level 0 and says both packages are active,
# as its map shows (it used to say level 1, 1 of 2 active).
echo '{"default_vcpu_demand": 0.15}' >"$T_TMP/light.json"
pl=$("$VCPACK" --connect "$TWO" --json plan 2>/dev/null)
t_eq "plan: level 0 when no package can idle" 0 "$(echo "$pl" | jq .plan.level)"
t_eq "plan: both packages active" "true true" \
	"$(echo "$pl" | jq -r '[.plan.packages[].active]|map(tostring)|join(" ")')"
pl=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/light.json" --json plan 2>/dev/null)
t_eq "plan: exit 0" 0 $?
t_eq "plan: level 0 (level 1 would idle no package in pin mode)" 0 "$(echo "$pl" | jq .plan.level)"
t_match "plan text: the level and why" "^        level 0: gathering would idle no package" \
	"$("$VCPACK" --connect "$TWO" --policy "$T_TMP/light.json" plan 2>/dev/null)"
t_eq "plan: the headline's active packages are the map's awake ones" "2 2" \
	"$(echo "$pl" | jq -r '"\(.plan.active) \([.planned[]|select(.awake)]|length)"')"
# level 0 is hands off: every VM as it is, the spread VM included
t_eq "plan at level 0: every VM left as it is" "unmanaged" \
	"$(echo "$pl" | jq -r '[.plan.vms[].placement]|unique|join(" ")')"
t_eq "plan at level 0: nothing to do" 0 "$(echo "$pl" | jq '.actions|length')"
# level 2: the spread VM on exclusive cores, every other VM gathered
echo '{"default_vcpu_demand": 0.15, "level": 2}' >"$T_TMP/light2.json"
pl=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/light2.json" --json plan 2>/dev/null)
t_eq "plan: spread VM on exclusive cores" exclusive \
	"$(echo "$pl" | jq -r '.plan.vms[]|select(.name=="latency")|.placement')"
t_eq "plan: bad-tag VM unmanaged" unmanaged \
	"$(echo "$pl" | jq -r '.plan.vms[]|select(.name=="badvalue")|.placement')"
t_eq "plan: pack VMs gathered" "gathered gathered" \
	"$(echo "$pl" | jq -r '[.plan.vms[]|select(.class=="pack")|.placement]|join(" ")')"
t_eq "plan: balanced VMs gathered at level 2" "gathered gathered" \
	"$(echo "$pl" | jq -r '[.plan.vms[]|select(.name=="normal1" or .name=="untagged")|.placement]|join(" ")')"
n_act=$(echo "$pl" | jq '.actions|length')
t_match "plan: lists actions" "^[1-9][0-9]*$" "$n_act"
t_eq "plan: a save before the first pin of each VM" "true" \
	"$(echo "$pl" | jq '[.actions[]|select(.vm!=null)]|group_by(.vm)|map(.[0].action=="save-original")|all')"
t_eq "plan: nothing on the bad-tag VM" 0 \
	"$(echo "$pl" | jq '[.actions[]|select(.vm=="badvalue")]|length')"
t_eq "plan: no outcomes (dry run)" 0 "$(echo "$pl" | jq '[.actions[]|select(.outcome)]|length')"

# ---- apply: carried out through libvirt and read back in the same run ----
ap=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/light2.json" --json apply 2>/dev/null)
t_eq "apply: exit 0" 0 $?
t_eq "apply: every action done" "$n_act" \
	"$(echo "$ap" | jq '[.actions[]|select(.outcome=="done")]|length')"
for vm in latency batch pinned normal1 untagged; do
	t_eq "apply: '$vm' pins read back from libvirt equal the plan" \
		"$(echo "$ap" | jq -c ".plan.vms[]|select(.name==\"$vm\")|.vcpus")" \
		"$(echo "$ap" | jq -c ".vms[]|select(.name==\"$vm\")|.pins")"
done
t_eq "apply: bad-tag VM's pins untouched" '["3"]' \
	"$(echo "$ap" | jq -c '.vms[]|select(.name=="badvalue")|.pins')"
t_eq "apply: original pins recorded for changed VMs" "true" \
	"$(echo "$ap" | jq '[.vms[]|select(.name=="batch" or .name=="latency")|.original_recorded]|all')"
t_eq "apply: no record for the untouched VM" "false" \
	"$(echo "$ap" | jq '.vms[]|select(.name=="badvalue")|.original_recorded')"

# test:///FILE: each process has its own copy of the host, said where it
# matters (apply, then status shows nothing applied)
out=$(t_unfold "$("$VCPACK" --connect "$TWO" --policy "$T_TMP/light2.json" apply 2>/dev/null)")
t_match "apply on test:///FILE: says its changes end with the process" \
	"^note:   libvirt's test driver gave this process its own copy of test:///.*: what apply changed is gone when vcpack exits" "$out"
out=$(t_unfold "$("$VCPACK" --connect "$TWO" --sample 0 status 2>/dev/null)")
t_match "status on test:///FILE: says it is its own copy" \
	"this process's own copy of it: what another vcpack command applied there is not shown" "$out"

# ---- four packages ----
pl4=$("$VCPACK" --connect "$FOUR" --policy "$T_TMP/light2.json" --json plan 2>/dev/null)
t_eq "four: 4 packages" 4 "$(echo "$pl4" | jq '.plan.packages|length')"
t_eq "four: active packages as the planned map shows them" true \
	"$(echo "$pl4" | jq '([.plan.packages[]|select(.active)]|length) == ([.planned[]|select(.awake)]|length)')"
t_eq "four: db (spread) exclusive" exclusive \
	"$(echo "$pl4" | jq -r '.plan.vms[]|select(.name=="db")|.placement')"
ap4=$("$VCPACK" --connect "$FOUR" --json --policy /dev/null apply 2>&1)
t_eq "four: empty policy file refused (not JSON)" 2 $?

# ---- a bad tag is said once a run: in the text report's "issue:" line
# (not on stderr as well); with --json on stderr, the JSON holding it ----
DEMO="test://$top/host-agent/demo/host.xml"
for cmd in status plan apply; do
	"$VCPACK" --connect "$DEMO" $cmd >"$T_TMP/bt.out" 2>"$T_TMP/bt.err"
	t_eq "$cmd: the bad tag said once (stdout and stderr)" 1 \
		"$(cat "$T_TMP/bt.out" "$T_TMP/bt.err" | grep -c "'legacy'.*priority 'urgent'")"
	t_match "$cmd: in its issue line" "^issue:  'legacy': bad vcpack tag" \
		"$(cat "$T_TMP/bt.out")"
	"$VCPACK" --connect "$DEMO" --json $cmd >"$T_TMP/bt.out" 2>"$T_TMP/bt.err"
	t_eq "$cmd --json: the bad tag said once on stderr" 1 \
		"$(grep -c "'legacy'.*priority 'urgent'" "$T_TMP/bt.err")"
	t_eq "$cmd --json: and in .issues" legacy \
		"$(jq -r '[.issues[].vm]|join(" ")' "$T_TMP/bt.out")"
done
# ---- one error prefix: every message of vcpack on stderr starts with
# "vcpack: " (getopt's own used to name argv[0], or the command: "trial:",
# "fleet:", "tag:"; two fleet messages had none) ----
only_prefixed() { # NAME PREFIX FILE: each line of FILE starts with PREFIX
	if [ -s "$3" ] && ! grep -qv "^$2" "$3"; then t_pass "$1"
	else t_fail "$1: $(cat "$3")"; fi
}
echo '{"hosts": [{"uri": "test:///default", "name": "h1"}], "standby": {}}' \
	>"$T_TMP/fs.json"
echo garbage >"$T_TMP/fs-state.json"
while IFS='|' read -r what args; do
	# shellcheck disable=SC2086
	"$VCPACK" $args >/dev/null 2>"$T_TMP/pfx.err"
	only_prefixed "prefix: $what" "vcpack: " "$T_TMP/pfx.err"
done <<EOF2
unknown global option|--bogus status
unknown short option|-x status
global option without its argument|status --connect
trial: unknown option|-c $TWO trial --bogus
trial: option without its argument|-c $TWO trial --rounds
fleet: unknown option|fleet --bogus
fleet: option without its argument|fleet --hosts
tag: unknown option|-c $TWO tag x --bogus
tag: option without its argument|-c $TWO tag x --priority
fleet status: an unreadable state file|fleet --hosts $T_TMP/fs.json status --state $T_TMP/fs-state.json
EOF2
t_match "the option is named" "^vcpack: unknown option '--bogus' \\(see 'vcpack trial --help'\\)$" \
	"$("$VCPACK" -c "$TWO" trial --bogus 2>&1)"
t_match "a missing argument is said so" "^vcpack: missing the argument of option '--hosts'" \
	"$("$VCPACK" fleet --hosts 2>&1)"
"$B/powernice" --bogus >/dev/null 2>"$T_TMP/pfx.err"
t_eq "powernice: its own name first, not its path" \
	"powernice: unknown option '--bogus'" "$(head -n 1 "$T_TMP/pfx.err")"
"$B/vcpackd" --bogus >/dev/null 2>"$T_TMP/pfx.err"
t_eq "vcpackd: its own name first, not its path" \
	"vcpackd: unknown option '--bogus' (see 'vcpackd --help')" "$(cat "$T_TMP/pfx.err")"

# ---- --mode: the help, the refusal and the completion name every mode
# vcp_mode_parse() takes (vcpack's said auto|pin|kernel, not scx) ----
modes=$(sed -n '/^int vcp_mode_parse/,/^}/s/.*strcmp(s, "\([a-z]*\)").*/\1/p' \
	"$top/host-agent/src/kernel/mode.c" | sort | tr '\n' ' ')
t_eq "the modes the code takes" "auto kernel pin scx " "$modes"
for prog in vcpack vcpackd; do
	h=$("$B/$prog" --help | sed -n 's/^ *--mode \([a-z|]*\).*/\1/p' | tr '|' '\n' | sort | tr '\n' ' ')
	t_eq "$prog --help: --mode lists every mode" "$modes" "$h"
	m=$("$B/$prog" --mode turbo 2>&1 | sed -n "s/.*--mode 'turbo' is not one of //p" | tr -d ',' | tr ' ' '\n' | sort | tr '\n' ' ')
	t_eq "$prog --mode turbo: the refusal lists every mode" "$modes" "$m"
done
t_done
