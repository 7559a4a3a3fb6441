#!/bin/sh
# test-trial.sh BUILD_DIR - `vcpack trial` end to end on libvirt's test
# driver (test:///default in a private libvirtd, so that virsh sees the
# pins the trial sets) with a copy of the intel-2s power fixture whose
# package-0 counter vcpack computes at each read from its own clock (a
# "!watts" fixture file, so the watts are exact however loaded the
# machine is): at a fixed rate (verdict no-difference), and at a lower
# rate while arm B is in force (verdict saves; the counter tells the arms
# apart by the level file of a kernel fixture tree: --root, kernel mode,
# policy level 2). Checks the report (text, --json, the state file), that
# the host ends exactly as found (pins, records, level), SIGINT/SIGTERM
# mid-run (restored, exit 130/143), and the refusals (exit 2, nothing
# changed), and the policy key require_trial gating `auto` on the
# recorded verdict. About 35 s.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
P=$top/tests/data/power
t_setup
export VCPACK_SOCKET="$T_TMP/no-vcpackd.sock"	# no vcpackd but ours
t_test_libvirtd


# the power fixture, read with the real clock (no clock_ns)
PW=$T_TMP/pw
cp -r "$P/intel-2s/t0" "$PW" && rm -f "$PW/vcpack-counters/clock_ns"
ENERGY=$PW/class/powercap/intel-rapl:0/energy_uj
# a kernel fixture: kernel mode on the test driver, the level as marker
KR=$T_TMP/kr
cp -r "$top/tests/data/kroot/v1" "$KR"
LEVEL=$KR/sys/devices/system/cpu/sched_mc_power_savings
echo '{"level": 2}' >"$T_TMP/level2.json"

pins() { "$VCPACK" --connect "$U" --sample 0 --json status 2>/dev/null |
	jq -c '[.vms[]|{name,pins,emulator}]'; }
records() { for d in test lowvm plain; do
	virsh -c "$U" metadata "$d" urn:vcpack:state:1 2>/dev/null; done; }

# watts WATTS_A WATTS_B: package 0's energy counter is computed by the
# reader at each read (the fixture's "!watts" file; it counts from 0 in
# each vcpack process), at WATTS_B while the level file says 2 (arm B in
# kernel mode), else WATTS_A; still: back to the fixture's fixed value.
FOUND_E=$(cat "$ENERGY")
watts() { echo "!watts $1 $LEVEL 2=$2" >"$ENERGY.new" && mv "$ENERGY.new" "$ENERGY"; }
still() { echo "$FOUND_E" >"$ENERGY.new" && mv "$ENERGY.new" "$ENERGY"; }

T() { "$VCPACK" --connect "$U" --sample 0 --power-root "$PW" "$@"; }
FAST="--rounds 2 --window 2 --settle 0.2 --sample 0.2"

# ---- nothing to compare: only the balanced VM "test", level 0 ----
echo '{"level": 0}' >"$T_TMP/level0.json"
out=$(T --policy "$T_TMP/level0.json" trial $FAST --state "$T_TMP/r.json" 2>&1)
t_eq "plan changes nothing: exit 2" 2 $?
t_match "plan changes nothing: why" "both arms would be the same" "$out"

dom_start "$U" lowvm 4 "priority='low'" && dom_start "$U" plain 2 &&
	t_pass "define and start VMs" || t_fail "define VMs"
virsh -q -c "$U" vcpupin plain 1 2-5 >/dev/null

orig=$(pins)
t_eq "status lists 3 VMs" 3 "$(echo "$orig" | jq length)"

# ---- fixed rate: no difference; text report; pins back as found ----
watts 100 100
out=$(T trial $FAST --min-effect 30% --state "$T_TMP/st/trial.json" 2>&1)
t_eq "fixed rate: exit 0" 0 $?
still
t_eq "fixed rate: 5 progress lines" 5 "$(printf '%s\n' "$out" | grep -c '^window [1-5]/5 ')"
t_match "progress names the arm" "^window 2/5 as-planned +100\.0 W; so far" "$out"
t_match "as-found 100 W" "^as-found: +100\.0 W" "$out"
t_match "as-planned 100 W" "^as-planned: +100\.0 W" "$out"
t_match "difference stated" "^difference: .*W \(95% interval" "$out"
t_match "verdict no difference" "^verdict: +no difference within noise" "$out"
t_eq "fixed rate: state file verdict" no-difference "$(jq -r .verdict "$T_TMP/st/trial.json")"
t_eq "fixed rate: state file holds the trial" 5 "$(jq '.trial.windows|length' "$T_TMP/st/trial.json")"
t_eq "fixed rate: no tmp file left" 1 "$(ls "$T_TMP/st" | wc -l)"
t_eq "fixed rate: pins back as found" "$orig" "$(pins)"
t_eq "fixed rate: no record left" "" "$(records)"

# ---- arm B cheaper: saves; --json; level back to the found 1 ----
echo 1 >"$LEVEL"
watts 100 50
j=$(T --root "$KR" --policy "$T_TMP/level2.json" --json trial $FAST \
	--state "$T_TMP/st.json" 2>"$T_TMP/err")
t_eq "B cheaper: exit 0" 0 $?
still
t_eq "B cheaper: verdict saves" saves "$(echo "$j" | jq -r .verdict)"
t_eq "B cheaper: 3 as-found windows" 3 "$(echo "$j" | jq '.arms["as-found"].windows')"
t_eq "B cheaper: the windows' watts" "100 50 100 50 100" \
	"$(echo "$j" | jq -r '[.windows[]|select(.usable)|.watts]|join(" ")')"
t_eq "B cheaper: as-found 100 W" 100 "$(echo "$j" | jq '.arms["as-found"].watts')"
t_eq "B cheaper: as-planned 50 W" 50 "$(echo "$j" | jq '.arms["as-planned"].watts')"
t_eq "B cheaper: difference -50%" -50 "$(echo "$j" | jq '.difference.percent')"
t_eq "B cheaper: windows alternate" "as-found as-planned as-found as-planned as-found" \
	"$(echo "$j" | jq -r '[.windows[].arm]|join(" ")')"
t_eq "B cheaper: schedule stated" 2 "$(echo "$j" | jq .schedule.rounds)"
t_eq "B cheaper: progress on stderr under --json" 5 "$(grep -c '^window ' "$T_TMP/err")"
t_eq "B cheaper: state file" saves "$(jq -r .verdict "$T_TMP/st.json")"
t_eq "B cheaper: level back to the found 1" 1 "$(cat "$LEVEL")"
t_eq "B cheaper: pins back as found" "$orig" "$(pins)"
t_eq "B cheaper: no record left" "" "$(records)"

# ---- require_trial: auto packs only after a recorded "saves" ----
echo '{"require_trial": true}' >"$T_TMP/req.json"
lv() { VCPACK_TRIAL_STATE=$1 "$VCPACK" --connect "$U" --sample 0 --root "$KR" \
	--policy "$T_TMP/req.json" --json plan 2>/dev/null | jq .plan.level; }
t_eq "auto packs here (level 2)" 2 \
	"$("$VCPACK" --connect "$U" --sample 0 --root "$KR" --json plan 2>/dev/null | jq .plan.level)"
t_eq "require_trial, no verdict: level 0" 0 "$(lv "$T_TMP/none.json")"
t_eq "require_trial, no-difference: level 0" 0 "$(lv "$T_TMP/st/trial.json")"
t_eq "require_trial, saves: auto's level 2" 2 "$(lv "$T_TMP/st.json")"
echo '{"verdict": "maybe"}' >"$T_TMP/odd.json"
t_eq "require_trial, unknown verdict: level 0" 0 "$(lv "$T_TMP/odd.json")"

# ---- SIGINT and SIGTERM mid-run restore (arm B even under
# require_trial with no verdict: the trial measures what auto would do)
sig_run() { # SIGNAL EXPECTED-EXIT
	rm -f "$T_TMP/sig.json"
	VCPACK_TRIAL_STATE=$T_TMP/none.json "$VCPACK" --connect "$U" --sample 0 \
		--power-root "$PW" --root "$KR" --policy "$T_TMP/req.json" \
		trial --order planned-first \
		--rounds 2 --window 30 --settle 0 --sample 1 \
		--state "$T_TMP/sig.json" >"$T_TMP/sig.out" 2>&1 &
	tp=$!
	T_PIDS="$T_PIDS $tp"
	i=0
	until [ "$(cat "$LEVEL")" = 2 ] || [ $i -gt 200 ]; do sleep 0.1; i=$((i + 1)); done
	t_eq "$1: arm B in force" 2 "$(cat "$LEVEL")"
	if [ "$1" = INT ]; then	# a VM that comes mid-trial with its own record
		dom_start "$U" late 1
		virsh -q -c "$U" metadata late urn:vcpack:state:1 --key vcpack-state \
			--live --set '<original version="1"><vcpu id="0" cpuset="3"/></original>' >/dev/null
	fi
	sleep 0.5
	kill -"$1" $tp
	wait $tp
	t_eq "$1: exit $2" "$2" $?
	t_match "$1: said so" "stopped by signal .*back as found" "$(cat "$T_TMP/sig.out")"
	if [ "$1" = INT ]; then
		t_match "$1: a VM started mid-trial keeps its record" 'cpuset="3"' \
			"$(virsh -c "$U" metadata late urn:vcpack:state:1 2>/dev/null)"
		virsh -q -c "$U" destroy late >/dev/null; virsh -q -c "$U" undefine late >/dev/null
	fi
	t_eq "$1: level back" 1 "$(cat "$LEVEL")"
	t_eq "$1: pins back as found" "$orig" "$(pins)"
	t_eq "$1: no verdict recorded" no "$([ -e "$T_TMP/sig.json" ] && echo yes || echo no)"
}
sig_run INT 130
sig_run TERM 143
t_eq "signals: no record left" "" "$(records)"

# ---- found packed (after apply): A is the recorded originals, but the
# end is the pins found at the start, and the records stay ----
"$VCPACK" --connect "$U" --sample 0 apply >/dev/null 2>&1
applied=$(pins)
t_eq "applied: plain re-pinned" false "$([ "$applied" = "$orig" ] && echo true || echo false)"
out=$(T trial --rounds 2 --window 1 --settle 0 --sample 0.2 --state "$T_TMP/p.json" 2>&1)
t_eq "found packed: exit 0" 0 $?
t_match "found packed: ran 5 windows" "^window 5/5 as-found" "$out"
t_eq "found packed: back to the applied pins, not the originals" "$applied" "$(pins)"
t_match "found packed: plain's record kept" 'id="1" cpuset="2-5"' \
	"$(virsh -c "$U" metadata plain urn:vcpack:state:1 2>/dev/null)"
"$VCPACK" --connect "$U" --sample 0 restore >/dev/null 2>&1
t_eq "restore after: the original pins" "$orig" "$(pins)"

# ---- refusals: exit 2, nothing changed ----
out=$("$VCPACK" --connect "$U" --sample 0 trial $FAST --state "$T_TMP/r.json" 2>&1)
t_eq "test driver: exit 2" 2 $?
t_match "test driver: why" "refusing the trial.*simulated host" "$out"
out=$(T --power-root "$P/guest/t0" trial $FAST --state "$T_TMP/r.json" 2>&1)
t_eq "no powercap: exit 2" 2 $?
t_match "no powercap: why" "no energy counter is readable: energy: no powercap" "$out"
out=$(T --power-root "$P/noroot/t0" trial $FAST --state "$T_TMP/r.json" 2>&1)
t_eq "not root: exit 2" 2 $?
t_match "not root: why" "energy: not root" "$out"
# -c URI after the command: that URI alone is opened (it used to open
# the default URI first and fail there, -c unread); --sample stays the
# trial's read interval
for c in "-c $U" "--connect=$U"; do
	# shellcheck disable=SC2086
	out=$(LIBVIRT_DEFAULT_URI=test:///no-such-default.xml "$VCPACK" \
		--sample 0 trial $c $FAST --state "$T_TMP/r.json" 2>&1)
	t_eq "trial $c: exit 2 (the test driver refused)" 2 $?
	t_eq "trial $c: only that URI opened" \
		"vcpack: refusing the trial, no energy counter to read: libvirt's test driver is a simulated host: it has no energy counters (--power-root DIR reads a fixture tree)" \
		"$out"
done
out=$("$VCPACK" trial -c "$U" --sample 0 2>&1)
t_eq "trial -c URI --sample 0: the trial's --sample, refused" \
	"2: vcpack: --sample '0' is not a number of seconds from 0.01 to 3600" "$?: $out"
out=$(T trial --rounds 1 2>&1); t_eq "--rounds 1: exit 2" 2 $?
t_match "--rounds named" "rounds '1'" "$out"
out=$(T trial --order sideways 2>&1); t_eq "bad --order: exit 2" 2 $?
out=$(T trial --window 1 --sample 0.6 2>&1); t_eq "--sample too long: exit 2" 2 $?
t_eq "refusals: nothing recorded" no "$([ -e "$T_TMP/r.json" ] && echo yes || echo no)"
t_eq "refusals: pins unchanged" "$orig" "$(pins)"

# ---- a vcpackd managing this host would undo the arms: refused ----
mkdir -p "$T_TMP/run"
"$B/vcpackd" --foreground --connect "$U" --socket "$T_TMP/run/d.sock" \
	--state "$T_TMP/d-state.json" \
	>"$T_TMP/vcpackd.log" 2>&1 &
T_PIDS="$T_PIDS $!"
i=0; until [ -S "$T_TMP/run/d.sock" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
out=$(T --daemon-socket "$T_TMP/run/d.sock" trial $FAST --state "$T_TMP/r.json" 2>&1)
t_eq "vcpackd running: exit 2" 2 $?
t_match "vcpackd running: why" "vcpackd \(pid [0-9]+\) manages this host" "$out"

t_done
