#!/bin/sh
# test-demo.sh BUILD_DIR - what `make demo` tells (scripts/demo.sh on the
# shipped test-driver host): the picture of the packages as found and as
# planned agrees with the plans' own headlines and the final map, DEMAND
# is "?" for every VM (the test driver measures nothing; never 0), the
# saving is said as not measured here and modelled per vendor with the
# power model's figures, and the bad tag is said once by each report.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
sh "$top/scripts/demo.sh" "$B/vcpack" >"$T_TMP/out" 2>"$T_TMP/err"
t_eq "demo: exit 0" 0 $?
out=$(cat "$T_TMP/out")
t_match "picture: package 0 awake as found and in both plans" \
	'^  0 \(cpus 0-7,16-23\) +awake +awake +awake$' "$out"
t_match "picture: package 1 awake as found, asleep at level 2" \
	'^  1 \(cpus 8-15,24-31\) +awake +awake +ASLEEP \(can sleep\)$' "$out"
t_match "picture: the counts" '^  awake +2 of 2 +2 of 2 +1 of 2$' "$out"
t_match "picture: the default plan's level" '^ +\(level 0\)' "$out"
t_eq "the default plan's headline says what the picture says" 2 \
	"$(echo "$out" | grep -Ec '^plan: +level 0, 2 of 2 packages active')"
t_eq "the level-2 plan's headline too" 1 \
	"$(echo "$out" | grep -Ec '^plan: +level 2, 1 of 2 packages active')"
t_eq "and the map after applying it" "1 of 2 packages awake" \
	"$(echo "$out" | grep 'packages awake$' | tail -n 1 | sed 's/^ *//')"
t_match "the assumed demand is said" \
	'demand assumed: 0.25 CPU per vCPU \(policy default_vcpu_demand\)' "$out"
t_match "the usable CPUs explained" \
	'usable: a core counts 1 CPU and its extra SMT thread 0.30 \(smt_yield\), less 20% headroom' "$out"
# every VM line of every VM table: DEMAND (5th column) is "?", never 0
dem=$(echo "$out" | awk '/^  VM +CLASS/ { t = 1; next } t && /^  [a-z]/ { print $5; next } { t = 0 }' | sort -u | tr '\n' ' ')
t_eq "DEMAND is ? for every VM in every table" "? " "$dem"
t_nomatch "no VM shown with demand 0" '^  [a-z0-9]+ +[a-z]+ +[a-z-]+ +[0-9]+ +0\.00 ' "$out"
M=$top/bench/kernel/power-model.json
xeon=$(jq '.profiles[]|select(.name=="xeon")|.awake_idle_w - .cc6_floor_w' "$M")
epyc=$(jq '.profiles[]|select(.name=="epyc")|.awake_idle_w - .sleep_w' "$M")
t_eq "the model's figures" "18 32" "$xeon $epyc"
t_match "saving: not measured here, and said why" \
	'^  measured: nothing here: the test driver has no energy counters' "$out"
t_match "saving: modelled, Intel Xeon (one package)" "^  modelled, Intel Xeon.*: $xeon W$" "$out"
t_match "saving: modelled, AMD EPYC, unverified" "^  modelled, AMD EPYC.*: $epyc W$" "$out"
t_match "saving: the EPYC assumption flagged" "UNVERIFIED" "$out"
# each report says the bad tag in its issue line, not on stderr as well
# (it used to be said on stderr too: twice a command on a terminal)
t_eq "the bad tag not on stderr" 0 "$(grep -c "priority 'urgent'" "$T_TMP/err")"
t_eq "the bad tag in each report's issue line (status, plan, 2 applies)" 4 \
	"$(grep -c "^issue:  'legacy': bad vcpack tag" "$T_TMP/out")"
t_eq "nothing else on stderr" "" "$(cat "$T_TMP/err")"
t_done
