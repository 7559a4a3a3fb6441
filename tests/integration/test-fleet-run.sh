#!/bin/sh
# test-fleet-run.sh BUILD_DIR - the fleet standby loop (issue 14) on three
# private libvirtds running the test driver. Each host is reached through
# a symlink to its daemon's socket; the power commands are scripts this
# test writes: "standby" records what it was asked (host, action, URI)
# and removes the symlink (the host stops answering), "wake" puts it back
# (it answers again), and h3's wake does nothing (it never comes back:
# failed). Cases: an empty host put in standby, the spare kept, a wake
# on rising demand (above the band), the cool-down after it, a wake when
# more spare hosts are asked for, a drain whose migration fails (the
# test driver cannot migrate: everything left running), per-vendor
# saving figures (measured vs modelled), a wake that never answers (failed, never
# chosen again until `fleet clear`), `fleet run` stopped by SIGTERM
# (exit 143) and started again while a host sleeps, libvirt-suspend
# refused cleanly by the test driver, a bad state file refused by name
# and left as it was. Nothing of this machine is suspended or powered.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
VCPACK=$B/vcpack
command -v jq >/dev/null || { echo "SKIP: jq missing"; t_done; exit 0; }

DOM_MEM=131072

for h in h1 h2 h3; do
	start_libvirtd "$h" || { t_fail "start libvirtd $h"; t_done; exit 1; }
	ln -s "$LVD_SOCK" "$T_TMP/$h.sock"
	eval "U_$h=\"test+unix:///default?socket=$T_TMP/$h.sock\""
	eval "hold_connection \"test+unix:///default?socket=$LVD_SOCK\"" ||
		{ t_fail "hold $h"; t_done; exit 1; }
done
# h1 keeps the test driver's own "test" guest; h2 and h3 run nothing
virsh -q -c "$U_h2" destroy test >/dev/null &&
	virsh -q -c "$U_h3" destroy test >/dev/null &&
	t_pass "three hosts, one guest on h1" || t_fail "set-up"

# the power commands: argv, no shell between vcpack and them
power_script standby <<EOF
rm -f "$T_TMP/\$1.sock"
echo "\$1 going to sleep"
EOF
power_script wake <<EOF
ln -s "\$(cat "$T_TMP/\$1.target")" "$T_TMP/\$1.sock"
echo "\$1 powered on"
EOF
power_script nowake "(never comes back)" </dev/null
for h in h1 h2 h3; do readlink "$T_TMP/$h.sock" >"$T_TMP/$h.target"; done

fleet() { # MIN_SPARE H3_WAKE [H2_STAY_ON]
	cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U_h1", "name": "h1"}, {"uri": "$U_h2", "name": "h2"},
           {"uri": "$U_h3", "name": "h3"}],
 "defaults": {"timeout": 5},
 "standby": {"low_hold": 0, "high_hold": 0, "wake_cooldown": 0,
             "wake_deadline": 10, "interval": 5, "min_spare_hosts": $1,
             "hosts": {
  "h1": {"action": "command", "standby_command": ["$T_TMP/standby", "h1"],
         "wake_command": ["$T_TMP/wake", "h1"]},
  "h2": {"action": "command", "standby_command": ["$T_TMP/standby", "h2"],
         "wake_command": ["$T_TMP/wake", "h2"], "command_timeout": 5,
         "stay_on": ${3:-false}},
  "h3": {"action": "command", "standby_command": ["$T_TMP/standby", "h3"],
         "wake_command": ["$T_TMP/$2", "h3"]}}}}
JSON
}
ST=$T_TMP/state/fleet.json
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" "$@"; }
power() { jq -r "[.hosts[]|\"\(.name):\(.power)\"]|join(\" \")" "$ST"; }

# ---- refusals ----
fleet 1 wake
out=$(F apply </dev/null 2>&1)
t_eq "apply with standby, no --yes: exit 2" 2 $?
t_match "apply with standby, no --yes: asks for it" "pass --yes" "$out"
out=$(F run --match host=h1 2>&1)
t_eq "run --match: exit 2" 2 $?
out=$(F clear 2>&1)
t_eq "clear without a host: exit 2" 2 $?
out=$(F --json run 2>&1)
t_eq "run --json: exit 2" 2 $?
t_match "run --json: says where the JSON is" "fleet status --json" "$out"
out=$(F --json apply --yes 2>&1)
t_eq "apply --json with standby: exit 2" 2 $?
jq 'del(.standby)' "$T_TMP/fleet.json" >"$T_TMP/nosb.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/nosb.json" --state "$ST" run 2>&1)
t_eq "run without a standby object: exit 2" 2 $?
t_match "run without a standby object: said so" "no \"standby\" object" "$out"
t_eq "refusals wrote no state" no "$(test -e "$ST" && echo yes || echo no)"

# ---- round 1: h2 or h3 is empty; the first (h2) goes to standby ----
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "round 1: exit 0" 0 $rc
t_eq "round 1: the standby command was asked for h2" "standby h2 h2" "$(cat "$T_TMP/asked")"
t_eq "round 1: h2 in standby, the others on" "h1:on h2:standby h3:on" "$(power)"
t_match "round 1: why recorded" "empty: to standby" "$(jq -r '.hosts[1].why' "$ST")"
t_eq "round 1: the command's outcome and output kept" "standby: command $T_TMP/standby: exit 0|h2 going to sleep" \
	"$(jq -r '.hosts[1]|"\(.last_action)|\(.output)"' "$ST" | tr -d '\n')"
t_match "round 1: logged" "h2: in standby" "$out"
t_eq "round 1: h2 no longer answers" 1 "$(virsh -q -c "$U_h2" uri >/dev/null 2>&1; echo $?)"

# ---- round 2: h3 is on and empty, but the spare host must stay: then
# h1 is drained: its guest cannot move (test driver), drain stopped ----
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "round 2: h2 stays in standby" "h2:standby" "$(power | tr ' ' '\n' | grep h2)"
t_eq "round 2: nothing else slept" 1 "$(wc -l <"$T_TMP/asked")"
t_match "round 2: said why nothing more sleeps" "demand .* CPUs on" "$out"
if echo "$out" | grep -q "migration h1 -> h3 failed"; then
	t_eq "round 2: a failed migration is a failed round" 1 $rc
	t_eq "round 2: the guest still runs on h1" test "$(virsh -q -c "$U_h1" list --name | grep -x test)"
	t_eq "round 2: h1 back on (its drain stopped)" "h1:on" "$(power | cut -d' ' -f1)"
else
	t_eq "round 2: exit 0" 0 $rc
fi

# ---- status shows the loop's state ----
st=$(F --json status 2>/dev/null)
rc=$?
t_eq "status: exit 0 (the one host not answering is asleep by vcpack)" 0 $rc
# (printf: dash's echo would turn the JSON's \n into newlines)
t_eq "status: h2 standby (by vcpack), the others on" "on standby on" \
	"$(printf '%s\n' "$st" | jq -r '[.hosts[].standby.power]|join(" ")')"
t_match "status: why" "empty: to standby" "$(printf '%s\n' "$st" | jq -r '.hosts[1].standby.why')"
t_eq "status: the standby command's output" "h2 going to sleep" "$(printf '%s\n' "$st" | jq -r '.hosts[1].standby.output')"
txt=$(F status 2>&1)
t_match "status text: h2 standby since" "h2 .*standby \(by vcpack\) since" "$txt"
# h2: no vendor on the test driver, no idle_watts: 2 packages x 40 W
# (package_watts) + 100 W (host_watts), modelled
t_eq "status: the fleet's standby saving, modelled" "1 180 0" \
	"$(printf '%s\n' "$st" | jq -r '.totals|"\(.standby_hosts) \(.standby_saving_watts) \(.standby_saving_measured_watts)"')"
t_match "status text: the saving, the fleet file's idle_watts and modelled apart" \
	"standby: 1 hosts in standby by vcpack, saving 180 W \(0 W from idle_watts, 180 W modelled\)" "$txt"
jq '.hosts[1].idle_watts = 95' "$T_TMP/fleet.json" >"$T_TMP/fi.json"
t_eq "status: h2's measured idle draw used" "95 95" \
	"$("$VCPACK" fleet --hosts "$T_TMP/fi.json" --state "$ST" --json status 2>/dev/null |
		jq -r '.totals|"\(.standby_saving_watts) \(.standby_saving_measured_watts)"')"

# ---- rising demand: above the band (high_hold 0) wakes h2 ----
# every vCPU counted busy (no vCPU times on the test driver): h1 runs
# 2 + 10, h3 12 of the 25.6 CPUs on (12.8 each): 94% > 81%
echo '{"default_vcpu_demand": 1}' >"$T_TMP/busy.json"
fleet 0 wake	# no spare asked for: the band alone decides
dom_start "$U_h1" big1 10 && dom_start "$U_h3" big3 12 || t_fail "start the busy guests"
out=$("$VCPACK" --policy "$T_TMP/busy.json" fleet --hosts "$T_TMP/fleet.json" \
	--sample 0 --state "$ST" apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "rising demand: exit 0" 0 $rc
t_match "rising demand: above the band for high_hold" "demand 24.00 of 25.60 CPUs on \(94%\).*utilisation stayed above the band for high_hold: waking" "$(t_unfold "$out")"
t_eq "rising demand: h2 woken" "wake h2 h2" "$(tail -n 1 "$T_TMP/asked")"
t_eq "rising demand: every host on" "h1:on h2:on h3:on" "$(power)"
t_match "rising demand: last_wake recorded" "^[0-9]+$" "$(jq -r '.last_wake' "$ST")"
virsh -q -c "$U_h1" destroy big1 >/dev/null; virsh -q -c "$U_h3" destroy big3 >/dev/null
fleet 1 wake
# the cool-down after a wake (wake_cooldown 60): nothing sleeps yet
jq '.standby.wake_cooldown = 60' "$T_TMP/fleet.json" >"$T_TMP/fc.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/fc.json" --sample 0 --state "$ST" apply --yes 2>&1)
t_match "cool-down: said so" "cool-down after a wake" "$out"
t_eq "cool-down: every host still on" "h1:on h2:on h3:on" "$(power)"
# h2 to standby again, for the next case
out=$(F apply --yes 2>&1)
t_eq "h2 in standby again" "h1:on h2:standby h3:on" "$(power)"

# ---- capacity needed (two spare hosts wanted): h2 woken ----
fleet 2 wake
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "wake: exit 0" 0 $rc
t_eq "wake: the wake command was asked for h2" "wake h2 h2" "$(tail -n 1 "$T_TMP/asked")"
t_match "wake: h2 answered again" "h2: woken: its libvirt answers again" "$out"
t_eq "wake: every host on" "h1:on h2:on h3:on" "$(power)"
t_eq "wake: h2's libvirt answers" 0 "$(virsh -q -c "$U_h2" uri >/dev/null 2>&1; echo $?)"
t_match "wake: last_wake recorded" "^[0-9]+$" "$(jq -r '.last_wake' "$ST")"

# ---- the loop: SIGTERM between steps; restarted while a host sleeps ----
fleet 1 nowake true	# h2 stays on: h3 is the one to sleep
"$VCPACK" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" \
	run --interval 1 >"$T_TMP/run.log" 2>&1 &
RUN=$!
T_PIDS="$T_PIDS $RUN"
i=0
until grep -q "in standby" "$T_TMP/run.log" || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM "$RUN"
wait "$RUN"; rc=$?
sed 's/^/  | /' "$T_TMP/run.log"
t_eq "run: SIGTERM stops it, exit 143 (as fleet apply's migrations)" 143 $rc
t_match "run: said it stopped" "stopped by SIGTERM; the state file says where each host is" "$(cat "$T_TMP/run.log")"
t_eq "run: h3 went to standby" "h1:on h2:on h3:standby" "$(power)"
# restarted: the state file remembers the sleeping host
out=$(F run --rounds 1 2>&1)
echo "$out" | sed 's/^/  | /'
t_eq "run again: h3 still in standby (remembered)" "h1:on h2:on h3:standby" "$(power)"
t_match "run again: the capacity on is h1's and h2's" "of 25.60 CPUs on" "$out"

# ---- a wake that never answers: h3 failed ----
fleet 3 nowake true
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "never wakes: exit 1" 1 $rc
t_match "never wakes: reported failed" "h3: failed: did not answer within the wake deadline \(10 s\)" "$out"
t_eq "never wakes: h3 failed in the state" failed "$(jq -r '.hosts[2].power' "$ST")"
out=$(F apply --yes 2>&1)
t_eq "never wakes: not asked to wake again" 1 "$(grep -c 'h3 (never comes back)' "$T_TMP/asked")"
t_match "never wakes: reported every round" "h3: failed since [0-9TZ:-]+: did not answer" "$out"
txt=$(F status 2>&1)
t_match "never wakes: status shows it failed" "h3 +failed \(vcpack fleet clear HOST\) since .*did not answer" "$txt"
out=$(F clear h1 2>&1)
t_eq "clear a host that is not failed: exit 2" 2 $?
t_match "clear a host that is not failed: said so" "'h1' is not failed \(it is on\)" "$out"
out=$(F clear h9 2>&1)
t_eq "clear an unknown host: exit 2" 2 $?
ln -s "$(cat "$T_TMP/h3.target")" "$T_TMP/h3.sock"	# an operator fixed it
out=$(F clear h3 2>&1)
t_eq "clear h3: exit 0" 0 $?
t_eq "clear h3: on again" on "$(jq -r '.hosts[2].power' "$ST")"
t_eq "clear h3: recorded" "cleared by an operator" "$(jq -r '.hosts[2].last_action' "$ST")"

# ---- a drain whose migration fails: everything left running ----
rm -rf "$T_TMP/state"
dom_start "$U_h3" ci 1	# a busy host to receive h1's guest
fleet 0 wake true
jq '.standby.hosts.h3.stay_on = true' "$T_TMP/fleet.json" >"$T_TMP/f2.json" &&
	mv "$T_TMP/f2.json" "$T_TMP/fleet.json"
n_asked=$(wc -l <"$T_TMP/asked")
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "failed migration: exit 1" 1 $rc
t_match "failed migration: h1 was being drained" "h1: draining towards standby" "$out"
t_match "failed migration: reported, drain stopped" "test: migration h1 -> h[23] failed: .*no more moves from h1, everything left running" "$(t_unfold "$out")"
t_eq "failed migration: the guest still runs on h1" test "$(virsh -q -c "$U_h1" list --name | grep -x test)"
t_eq "failed migration: h1 on again, nothing put to sleep" "h1:on h2:on h3:on $n_asked" \
	"$(power) $(wc -l <"$T_TMP/asked")"

# ---- libvirt-suspend: the test driver refuses it cleanly: failed ----
rm -rf "$T_TMP/state"
fleet 0 wake
jq '.standby.hosts.h2 = {"action": "libvirt-suspend"}' \
	"$T_TMP/fleet.json" >"$T_TMP/f2.json" && mv "$T_TMP/f2.json" "$T_TMP/fleet.json"
out=$(F apply --yes 2>&1); rc=$?
echo "$out" | sed 's/^/  | /'
t_eq "libvirt-suspend refused: exit 1" 1 $rc
t_match "libvirt-suspend refused: libvirt's reason logged" "h2: standby: libvirt-suspend: .*(not supported|support)" "$(t_unfold "$out")"
t_eq "libvirt-suspend refused: h2 failed, still answering" "failed 0" \
	"$(jq -r '.hosts[1].power' "$ST") $(virsh -q -c "$U_h2" uri >/dev/null 2>&1; echo $?)"

# ---- fleet plan's saving per host vendor, measured vs modelled ----
fleet 0 wake
jq '.hosts[0].vendor = "intel" | .hosts[2].vendor = "amd" | .hosts[2].idle_watts = 150' \
	"$T_TMP/fleet.json" >"$T_TMP/fv.json"
pl=$("$VCPACK" fleet --hosts "$T_TMP/fv.json" --sample 0 --json plan 2>/dev/null)
printf '%s\n' "$pl" | jq -c '[.hosts[]|{name,vendor,emptied,saving_watts,saving_measured}], .saving_watts, .saving_measured_watts' | sed 's/^/  | /'
t_eq "plan: vendors from the fleet file, else libvirt's CPU (none on the test driver)" "intel unknown amd" \
	"$(printf '%s\n' "$pl" | jq -r '[.hosts[].vendor]|join(" ")')"
t_eq "plan: h3 (ci moves to h1) emptied, in standby it saves its measured idle draw" "true 150 true" \
	"$(printf '%s\n' "$pl" | jq -r '.hosts[2]|"\(.emptied) \(.saving_watts) \(.saving_measured)"')"
t_eq "plan: the fleet's saving and its measured part" "150 150" \
	"$(printf '%s\n' "$pl" | jq -r '"\(.saving_watts) \(.saving_measured_watts)"')"
jq '.standby.hosts.h3.stay_on = true' "$T_TMP/fv.json" >"$T_TMP/fv2.json"
pl=$("$VCPACK" fleet --hosts "$T_TMP/fv2.json" --sample 0 --json plan 2>/dev/null)
t_eq "plan: h3 kept on (stay_on) saves what its one awake AMD package saves (80 - 48 W), modelled" "32 false" \
	"$(printf '%s\n' "$pl" | jq -r '.hosts[2]|"\(.saving_watts) \(.saving_measured)"')"
t_match "plan: the basis says unverified" "unverified" "$(printf '%s\n' "$pl" | jq -r '.hosts[2].saving_basis')"
txt=$("$VCPACK" fleet --hosts "$T_TMP/fv.json" --sample 0 plan --wide 2>/dev/null)
t_match "plan text: per host, vendor and basis" "h3 +amd +150 W  measured: the host's idle draw" "$txt"
t_match "plan text: measured and modelled apart" "saving 150 W \(150 W measured, 0 W modelled\)" "$txt"

# ---- a bad state file: refused by record, left as it was ----
echo '{"version": 1, "hosts": [{"name": "h2", "power": "asleep"}]}' >"$ST"
sum=$(md5sum <"$ST")
out=$(F apply --yes 2>&1)
t_eq "bad state: exit 2" 2 $?
t_match "bad state: the record named" "hosts\[0\] \(h2\)\.power: must be on, draining, standby, waking or failed" "$(t_unfold "$out")"
t_eq "bad state: file unchanged" "$sum" "$(md5sum <"$ST")"

t_done
