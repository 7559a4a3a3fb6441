#!/bin/sh
# test-control.sh BUILD_DIR - one view of vcpackd's state and run-time
# control, on test:///default inside a private libvirtd: `vcpack status`
# shows whether vcpackd runs, the level in force and why, the mode and
# why and the plan vcpackd carries out; `vcpack level` and `pause` /
# `resume` are kept in the state file across restarts; while vcpackd
# manages the host `restore` is refused and `apply` goes through it, and
# a paused vcpackd re-pins nothing (no more "re-pinned by someone else").
# All processes stopped by pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_test_libvirtd
STATE=$T_TMP/state.json
t_enabled "$STATE"
DPID=""

start_daemon() {
	"$B/vcpackd" --foreground --debug --connect "$U" --socket "$SOCK" \
		--state "$STATE" >>"$T_TMP/vcpackd.log" 2>&1 &
	DPID=$!
	T_PIDS="$T_PIDS $DPID"
	i=0; until V --json status 2>/dev/null | jq -e '.vcpackd.last' >/dev/null || [ $i -ge 50 ]; do
		sleep 0.1; i=$((i + 1)); done
}
stop_daemon() { kill -TERM "$DPID"; wait "$DPID" 2>/dev/null; }
pins() { V --json status 2>/dev/null | jq -c ".vms[]|select(.name==\"$1\")|.pins"; }
# what vcpackd planned for VM $1 (its plan, not a fresh one)
dplanned() { V --json status 2>/dev/null | jq -c ".vcpackd.last.plan.vms[]|select(.name==\"$1\")|.vcpus"; }
settle() {
	i=0
	while [ $i -lt 30 ]; do
		[ "$(pins "$1")" = "$(dplanned "$1")" ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

t_match "vcpackd --version" "^vcpackd [0-9]" "$("$B/vcpackd" --version)"
out=$(V status 2>&1)
t_match "status without vcpackd says it does not run" "^vcpackd: not running" "$out"
t_eq "status --json: running false" false "$(V --json status 2>/dev/null | jq .vcpackd.running)"
out=$(V level 2 2>&1); rc=$?
t_eq "level without vcpackd: exit 1" 1 $rc
t_match "and says vcpackd does not run" "vcpackd is not running" "$out"
V level 7 >/dev/null 2>&1
t_eq "level 7: exit 2" 2 $?

dom_define "$U" lowa 2 "class='pack'"
virsh -q -c "$U" start lowa >/dev/null
orig_lowa=$(pins lowa)

# verify and plan --exit-code without vcpackd: against a fresh plan
V --sample 0 plan --exit-code >/dev/null 2>&1
t_eq "plan --exit-code with changes pending: 1" 1 $?
out=$(V --sample 0 verify 2>&1); rc=$?
t_eq "verify before apply: exit 1" 1 $rc
t_match "verify lists the differences against a fresh plan" "differs from the plan \(against a fresh plan\)" "$out"
t_match "naming the VM" "lowa" "$out"
V --sample 0 apply >/dev/null 2>&1
V --sample 0 plan --exit-code >/dev/null 2>&1
t_eq "plan --exit-code after apply: 0" 0 $?
V --sample 0 verify >/dev/null 2>&1
t_eq "verify after apply: exit 0" 0 $?
t_eq "verify --json: as planned" "true fresh-plan" \
	"$(V --sample 0 --json verify | jq -r '"\(.as_planned) \(.against)"')"
V plan --exit-code --bogus >/dev/null 2>&1
t_eq "plan with a bad option: exit 2" 2 $?
V --sample 0 restore >/dev/null 2>&1
t_eq "restored before vcpackd starts" "$orig_lowa" "$(pins lowa)"

start_daemon
settle lowa && t_pass "vcpackd carries out its plan" || t_fail "plan not applied"
out=$(V status 2>&1)
t_match "status: vcpackd runs, with its pid" "^vcpackd: running \\(pid $DPID\\)" "$out"
t_match "status: the level in force and why, vcpackd's" \
	"^level:  level auto, vcpackd's \\(pid $DPID\\): the policy's level" "$out"
t_eq "status: one level line, not the CLI's beside vcpackd's" 1 \
	"$(echo "$out" | grep -c "level auto\|policy level")"
t_match "status: the mode and why" "mode pin: " "$out"
t_match "status: the plan vcpackd carries out, with auto's reason" \
	"carrying out .*: level [0-2], [0-9]+ of [0-9]+ packages active \\(auto: " "$out"
j=$(V --json status 2>/dev/null)
t_eq "status --json: running, pid" "true $DPID" "$(echo "$j" | jq -r '"\(.vcpackd.running) \(.vcpackd.pid)"')"
t_eq "status --json: level and its source" "auto the policy's level" \
	"$(echo "$j" | jq -r '"\(.vcpackd.level) \(.vcpackd.level_reason)"')"
t_match "status --json: auto's reason" '^auto: ' "$(echo "$j" | jq -r .vcpackd.last.level_reason)"
t_eq "status --json: not paused" false "$(echo "$j" | jq .vcpackd.control.paused)"
out=$(V verify 2>&1); rc=$?
t_eq "verify with vcpackd carrying out its plan: exit 0" 0 $rc
t_match "against vcpackd's plan" "as planned \(against the plan vcpackd carries out\)" "$out"

# level: overrides the policy, kept across a restart
out=$(V level 0 2>&1)
t_match "level 0 through vcpackd" "level 0 \\(set with 'vcpack level 0'" "$out"
t_eq "the plan vcpackd carries out is level 0" 0 "$(V --json status | jq .vcpackd.last.level)"
t_eq "state file holds the level" 0 "$(jq .level "$STATE")"
stop_daemon; start_daemon
t_eq "level 0 kept across a restart" "0 0" \
	"$(V --json status | jq -r '"\(.vcpackd.level) \(.vcpackd.last.level)"')"
# one truth: plan and explain plan at vcpackd's level, not the policy's
t_eq "plan while vcpackd runs at level 0: level 0, not the policy's auto" \
	"0 0" "$(V --json plan | jq -r '"\(.plan.level) \(.actions|length)"')"
t_match "explain: vcpackd's level" "level 0 is hands off" \
	"$(t_unfold "$(V explain test 2>&1)")"
t_match "plan's level line: vcpackd's" "^level:  level 0, vcpackd's \\(pid [0-9]+\\): set with 'vcpack level 0'" \
	"$(V plan 2>&1)"
V level policy >/dev/null
t_eq "level policy: back to the policy's" "auto null" \
	"$(echo "$(V --json status | jq -r .vcpackd.level) $(jq .level "$STATE")")"
settle lowa && t_pass "plan restated after level policy" || t_fail "not restated"

# while vcpackd manages the host: restore refused, apply goes through it
planned_lowa=$(pins lowa)
t_nomatch "the plan moved lowa (so restore has something to undo)" "^$orig_lowa\$" "$planned_lowa"
out=$(V restore 2>&1); rc=$?
t_eq "restore while vcpackd manages: exit 2" 2 $rc
t_match "and says why" "vcpackd \\(pid $DPID\\) manages this host.*vcpack pause" "$(t_unfold "$out")"
t_eq "nothing restored" "$planned_lowa" "$(pins lowa)"
out=$(V apply 2>&1); rc=$?
t_eq "apply while vcpackd manages: through vcpackd, exit 0" 0 $rc
t_match "and says so" "vcpackd \\(pid $DPID\\) manages this host: it re-planned" "$out"

# pause: nothing is re-pinned; restore works; kept across a restart
out=$(V pause 2>&1)
t_match "pause" "PAUSED" "$out"
t_eq "status --json: paused, since" "true true" \
	"$(V --json status | jq -r '"\(.vcpackd.control.paused) \(.vcpackd.control.paused_since > 0)"')"
t_match "status says paused and since when" "PAUSED since [0-9-]+ [0-9:]+" "$(V status 2>&1)"
out=$(V restore 2>&1)
t_eq "restore while paused: the original pins" "$orig_lowa" "$(pins lowa)"
out=$(V verify 2>&1); rc=$?
t_eq "verify after a restore while paused: exit 1" 1 $rc
t_match "the differing vCPU pins listed, a VM's vCPUs pinned alike in one line" \
	"'lowa' vCPUs 0-1 pins: 0-15, planned " "$out"
: >"$T_TMP/vcpackd.log"
virsh -q -c "$U" metadata lowa urn:vcpack:metadata:1 --key vcpack --set "<consolidation class='pack'/>" >/dev/null
V --sample 0 plan >/dev/null 2>&1
sleep 1
t_eq "paused vcpackd does not undo the restore" "$orig_lowa" "$(pins lowa)"
t_nomatch "and does not call it a re-pin by someone else" "re-pinned by someone else" "$(cat "$T_TMP/vcpackd.log")"
stop_daemon
"$B/vcpackd" --foreground --connect "$U" --socket "$SOCK" --state "$STATE" >>"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!; T_PIDS="$T_PIDS $DPID"
i=0; until V --json status 2>/dev/null | jq -e '.vcpackd.running' >/dev/null || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
t_eq "pause kept across a restart" true "$(V --json status | jq .vcpackd.control.paused)"
t_eq "a paused vcpackd's restart re-pins nothing" "$orig_lowa" "$(pins lowa)"
V resume >/dev/null
settle lowa && t_pass "resume: vcpackd carries out its plan again" || t_fail "not re-planned after resume"
t_nomatch "resume: the restore done while paused is not a foreign re-pin" "re-pinned by someone else" "$(cat "$T_TMP/vcpackd.log")"
t_eq "state file: not paused" false "$(jq .paused "$STATE")"
stop_daemon

# vcpack reload: the answer says whether vcpackd took the policy (the
# unit's ExecReload=, so that a refused reload fails systemctl reload)
echo '{"sample_interval": 5}' >"$T_TMP/pol.json"
"$B/vcpackd" --foreground --connect "$U" --socket "$SOCK" --state "$STATE" \
	--policy "$T_TMP/pol.json" >>"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!; T_PIDS="$T_PIDS $DPID"
i=0; until V --json status 2>/dev/null | jq -e '.vcpackd.running' >/dev/null || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
echo '{"sample_interval": 7}' >"$T_TMP/pol.json"
out=$(V reload 2>&1)
t_eq "vcpack reload of a good policy: exit 0" 0 $?
t_match "and the log says it took it" "policy reloaded: sampling every 7s" "$(cat "$T_TMP/vcpackd.log")"
echo '{"sample_interval": 0}' >"$T_TMP/pol.json"
out=$(V reload 2>&1)
t_eq "vcpack reload of a bad policy: exit 2" 2 $?
t_match "names the file, the key and that the old one stays" \
	"^vcpack: vcpackd refused: refusing policy '.*pol.json': .*sample_interval: .*keeping the previous policy" "$out"
t_eq "vcpackd still runs" 0 "$(kill -0 "$DPID" 2>/dev/null; echo $?)"
out=$("$B/vcpack" policy check "$T_TMP/pol.json" 2>&1)
t_eq "vcpack policy check, bad file: exit 2" 2 $?
t_match "names the key as vcpackd does" "pol.json: sample_interval: " "$out"
# an escaped NUL: json-c would read "level\u0000" as a second level
printf '{"level": 0, "level\\u0000": 2}\n' >"$T_TMP/nul.json"
out=$("$B/vcpack" policy check "$T_TMP/nul.json" 2>&1)
t_eq "vcpack policy check, an escaped NUL in a key: exit 2" 2 $?
t_match "named" 'nul.json: not valid JSON at line 1: \\u0000 in a string' "$out"
echo '{"level": 1}' >"$T_TMP/pol.json"
t_eq "vcpack policy check, good file" "$T_TMP/pol.json: a valid policy" \
	"$("$B/vcpack" policy check "$T_TMP/pol.json" 2>&1)"
t_eq "vcpack policy check --json: the policy in force" 1 \
	"$("$B/vcpack" --json policy check "$T_TMP/pol.json" | jq .level)"
stop_daemon

# a bad state file is refused by name
echo '{"level": 9}' >"$T_TMP/bad.json"
out=$("$B/vcpackd" --foreground --connect "$U" --socket "$T_TMP/run/b.sock" --state "$T_TMP/bad.json" 2>&1); rc=$?
t_eq "bad state file: vcpackd exits 2" 2 $rc
t_match "naming the file and the member" "bad.json: level: must be" "$out"

# ---- CLI conventions ----
t_match "vcpack --version" "^vcpack [0-9]" "$("$B/vcpack" --version)"
t_match "powernice --version" "^powernice" "$("$B/powernice" --version)"
t_match "the hook --version" "^vcpack-hook [0-9]" "$("$B/vcpack-hook" --version)"
t_match "vcpack help COMMAND" "^Usage: vcpack \[OPTIONS\] plan \[--exit-code\]" "$("$B/vcpack" help plan)"
t_match "vcpack help" "^Usage: vcpack \[OPTIONS\] COMMAND" "$("$B/vcpack" help)"
"$B/vcpack" help nosuch >/dev/null 2>&1
t_eq "vcpack help nosuch: exit 2" 2 $?
t_eq "global options after the command" pin \
	"$("$B/vcpack" status --connect "$U" --json --sample 0 --daemon-socket "$SOCK" 2>/dev/null | jq -r .mode)"
t_eq "global options after the command's own: as before it" \
	"$("$B/vcpack" -c "$U" --sample=0 plan --exit-code >/dev/null 2>&1; echo $?)" \
	"$("$B/vcpack" plan --exit-code -c "$U" --sample=0 >/dev/null 2>&1; echo $?)"
id=$(virsh -q -c "$U" domid lowa)
uuid=$(virsh -q -c "$U" domuuid lowa)
t_match "tag by ID, as virsh takes it" "^tagged 'lowa'" "$(V tag "$id" --class pack 2>&1)"
t_match "tag by UUID" "^tagged 'lowa'" "$(V tag "$uuid" --priority low 2>&1)"
out=$(V tag 9999 --class pack 2>&1); rc=$?
t_eq "tag of no such ID: exit 2" 2 $rc
t_match "naming it" "no domain '9999' \(by ID, UUID or name\)" "$out"
V restore "$id" >/dev/null 2>&1
t_eq "restore by ID" "$orig_lowa" "$(pins lowa)"

# ---- explain ----
ex=$(V --sample 0 --json explain lowa 2>/dev/null)
t_eq "explain: exit 0" 0 $?
t_eq "explain: tag, class and why" '{"priority":"low"} pack' \
	"$(echo "$ex" | jq -c .tag) $(echo "$ex" | jq -r .class)"
t_match "explain: the policy's priority map named" "priority low, which the policy's priority map makes pack" \
	"$(echo "$ex" | jq -r .class_reason)"
t_eq "explain: demand assumed on the test driver (2 x 0.25)" "0.5 true null" \
	"$(echo "$ex" | jq -r '"\(.demand) \(.demand_assumed) \(.delay)"')"
pl=$(V --sample 0 --json plan 2>/dev/null)
t_eq "explain: the planned CPUs and placement are the plan's" \
	"$(echo "$pl" | jq -r '.plan.vms[]|select(.name=="lowa")|"\(.placement) \(.package) \(.vcpus[0])"')" \
	"$(echo "$ex" | jq -r '"\(.placement) \(.package) \(.cpus)"')"
t_eq "explain: the plan's level" "$(echo "$pl" | jq .plan.level)" "$(echo "$ex" | jq .level)"
t_match "explain: what would move it" "." "$(echo "$ex" | jq -r '.would_move[0]')"
out=$(V --sample 0 explain "$uuid" 2>&1)
t_match "explain text by UUID: class line" "^  class: +pack: its tag says priority low" "$out"
t_match "explain text: why these CPUs" "^  why: +level [0-2]" "$out"
out=$(V explain nosuch 2>&1); rc=$?
t_eq "explain of no such domain: exit 2" 2 $rc
t_match "naming it" "no domain 'nosuch'" "$out"
[ $FAIL -gt 0 ] && sed 's/^/  vcpackd: /' "$T_TMP/vcpackd.log"
t_done
