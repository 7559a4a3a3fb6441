#!/bin/sh
# test-fleet-standby.sh BUILD_DIR KERNEL - the fleet standby loop (vcpack
# fleet apply/run with a "standby" object) on three real libvirt daemons
# with real QEMU (TCG) guests: private qemu:///session libvirtds with
# distinct host UUIDs, migration streams on 127.0.0.1. A host's power
# commands are scripts this test writes: "standby" records what it was
# asked and stops that host's libvirtd by pid (the host no longer
# answers), "wake" starts the same libvirtd again (it answers again, its
# persistent guests defined as before), "nowake" records and does
# nothing (the host never comes back). Cases: a host emptied by live
# migration, then put in standby; the loop stopped by SIGTERM and started
# again while a host sleeps (the state file remembers it); a wake when
# demand rises (a new 8-vCPU guest); a wake that never answers (failed,
# not chosen again until `fleet clear`); an evacuation whose second
# migration fails (the host stays on, its guests running, nothing put to
# sleep). Checked on the daemons and the QEMU processes, not only on what
# vcpack says. Nothing of this machine is suspended or powered.
B=$1
KERNEL=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
command -v jq >/dev/null || { echo "SKIP: jq missing"; t_done; exit 0; }
guest_assets "$KERNEL" || { t_fail "guest kernel"; t_done; exit 1; }
LVD_PROBE=qemu+unix:///session
lvd_base || { t_fail "libvirtd dirs"; t_done; exit 1; }

# start_host NAME: a private libvirtd as start_libvirtd makes it, by a
# script of its own that the wake command runs again
start_host() {
	d=$LVD_BASE/$1
	mkdir -p "$d/run" "$d/home/.config/libvirt"
	[ -s "$d/home/.config/libvirt/libvirtd.conf" ] ||
		echo "host_uuid = \"$(cat /proc/sys/kernel/random/uuid)\"" \
			>"$d/home/.config/libvirt/libvirtd.conf"
	run=""
	if [ "$(id -u)" = 0 ]; then
		chown -R nobody "$d"
		run="runuser -u nobody --"
	fi
	cat >"$T_TMP/start-$1" <<EOF
#!/bin/sh
rm -f "$d/run/libvirtd.pid"
$run env -i PATH="$PATH" HOME="$d/home" XDG_RUNTIME_DIR="$d/run" \\
	XDG_CONFIG_HOME="$d/home/.config" XDG_CACHE_HOME="$d/home/.cache" \\
	libvirtd --daemon --pid-file "$d/run/libvirtd.pid" --timeout 0 \\
	>>"$d/libvirtd.log" 2>&1
i=0
until [ -s "$d/run/libvirtd.pid" ] || [ \$i -gt 200 ]; do sleep 0.1; i=\$((i + 1)); done
echo "\$(cat "$d/run/libvirtd.pid")" >>"$T_TMP/lvd-pids"
EOF
	chmod 755 "$T_TMP/start-$1"
	"$T_TMP/start-$1"
	eval "U_$1=\"qemu+unix:///session?socket=$d/run/libvirt/libvirt-sock\" RUN_$1=$d/run"
	answers "$1" 300
}
# answers NAME [TENTHS]: does NAME's libvirtd answer (waiting up to TENTHS)
answers() {
	eval "u=\$U_$1"
	i=0
	until virsh -q -c "$u" uri >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -gt "${2:-0}" ] && return 1
		sleep 0.1
	done
}
lvd_pid() { cat "$LVD_BASE/$1/run/libvirtd.pid" 2>/dev/null; }
# every libvirtd this test started, also those the wake command started
stop_daemons() {
	for p in $(cat "$T_TMP/lvd-pids" 2>/dev/null); do
		tr "\0" " " 2>/dev/null <"/proc/$p/cmdline" | grep -q "^libvirtd " &&
			kill "$p" 2>/dev/null
	done
}
trap 'for h in a b c; do eval "u=\${U_$h:-}"; [ -n "$u" ] && destroy_all "$u"; done
      stop_daemons; t_cleanup' EXIT

for h in a b c; do
	start_host $h || { t_fail "start libvirtd $h"; t_done; exit 1; }
done
t_pass "three hosts started"
where() { # NAME: the hosts whose QEMU runs NAME
	w=""
	for h in a b c; do
		eval "r=\$RUN_$h"
		runs "$r" "$1" && w="$w$h"
	done
	echo "${w:-none}"
}

# the power commands: argv, no shell between vcpack and them
power_script standby <<EOF
p=\$(cat "$LVD_BASE/\$1/run/libvirtd.pid")
kill "\$p"
i=0
while kill -0 "\$p" 2>/dev/null && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
echo "\$1 going to sleep (libvirtd \$p stopped)"
EOF
power_script wake <<EOF
"$T_TMP/start-\$1"
echo "\$1 powered on"
EOF
power_script nowake "(never comes back)" </dev/null
: >"$T_TMP/asked"

fleet() { # MIN_SPARE C_WAKE [C_STAY_ON]
	cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "$U_a", "name": "a", "migration_address": "127.0.0.1"},
           {"uri": "$U_b", "name": "b", "migration_address": "127.0.0.1"},
           {"uri": "$U_c", "name": "c", "migration_address": "127.0.0.1"}],
 "defaults": {"timeout": 30, "migration_timeout": 60},
 "standby": {"low_hold": 0, "high_hold": 0, "wake_cooldown": 0,
             "wake_deadline": 30, "interval": 5, "min_spare_hosts": $1,
             "hosts": {
  "a": {"action": "command", "standby_command": ["$T_TMP/standby", "a"],
        "wake_command": ["$T_TMP/wake", "a"], "command_timeout": 30},
  "b": {"action": "command", "standby_command": ["$T_TMP/standby", "b"],
        "wake_command": ["$T_TMP/wake", "b"], "command_timeout": 30,
        "stay_on": true},
  "c": {"action": "command", "standby_command": ["$T_TMP/standby", "c"],
        "wake_command": ["$T_TMP/$2", "c"], "command_timeout": 30,
        "stay_on": ${3:-false}}}}}
JSON
}
ST=$T_TMP/state/fleet.json
F() { "$B/vcpack" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" "$@"; }
power() { jq -r "[.hosts[]|\"\(.name):\(.power)\"]|join(\" \")" "$ST"; }
# round LABEL: one round (fleet apply), its output shown and kept in $out
round() {
	out=$(F apply --yes 2>&1); rc=$?
	echo "$out" | sed "s/^/  | $1: /"
}

# a: one small guest; b: two; c: none and kept on for now (stay_on), so
# a is the host to empty, into b
ok=0
LVD_RUN=$RUN_a; define_guest "$U_a" mover 1 "priority='low'" && start_guest "$U_a" mover || ok=1
LVD_RUN=$RUN_b; define_guest "$U_b" stay1 1 "priority='low'" && start_guest "$U_b" stay1 || ok=1
define_guest "$U_b" stay2 1 "priority='low'" && start_guest "$U_b" stay2 || ok=1
t_eq "three guests started, their QEMUs where they were started" "0 a b b" \
	"$ok $(where mover) $(where stay1) $(where stay2)"
fleet 0 wake true

# ---- consolidation, then standby ----
round "round 1"
t_eq "round 1: exit 0" 0 $rc
t_match "round 1: a drained towards standby" "a: draining towards standby" "$out"
n=1
while [ "$(jq -r '.hosts[0].power' "$ST" 2>/dev/null)" != standby ] && [ $n -lt 3 ]; do
	n=$((n + 1)); round "round $n"
done
t_eq "a in standby within 3 rounds, the others on" "a:standby b:on c:on" "$(power)"
t_eq "the guest was live-migrated: its QEMU runs on b only" b "$(where mover)"
t_eq "b defines it persistently" yes \
	"$(virsh -q -c "$U_b" dominfo mover | awk '/^Persistent/ {print $2}')"
t_eq "the standby command was asked for a, once" "standby a a" "$(cat "$T_TMP/asked")"
t_eq "a's libvirtd is stopped: a no longer answers" 1 "$(answers a; echo $?)"
t_match "why recorded" "empty: to standby" "$(jq -r '.hosts[0].why' "$ST")"
t_match "the command's output kept" "a going to sleep \(libvirtd [0-9]+ stopped\)" \
	"$(jq -r '.hosts[0].output' "$ST")"
st=$(F --json status 2>/dev/null); rc=$?
t_eq "status: exit 0 (the host not answering is asleep by vcpack)" 0 $rc
t_eq "status: a standby, b and c on" "standby on on" \
	"$(printf '%s\n' "$st" | jq -r '[.hosts[].standby.power]|join(" ")')"

# ---- the loop stopped by SIGTERM and started again while a sleeps ----
"$B/vcpack" fleet --hosts "$T_TMP/fleet.json" --sample 0 --state "$ST" \
	run --interval 1 >"$T_TMP/run.log" 2>&1 &
RUN=$!
T_PIDS="$T_PIDS $RUN"
i=0
until grep -q "demand .* CPUs on" "$T_TMP/run.log" || [ $i -gt 600 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 1.5
kill -TERM "$RUN"
wait "$RUN"; rc=$?
sed 's/^/  | run: /' "$T_TMP/run.log"
t_eq "run: SIGTERM stops it, exit 143" 143 $rc
t_eq "run: a still in standby, not woken nor asked again" "a:standby b:on c:on 1" \
	"$(power) $(wc -l <"$T_TMP/asked")"
out=$(F run --rounds 1 2>&1)
echo "$out" | sed 's/^/  | run again: /'
t_eq "run again: a still in standby (remembered), still not answering" "a:standby b:on c:on 1" \
	"$(power) $(answers a; echo $?)"

# ---- demand rises (a new 8-vCPU guest on c): a woken ----
# b and c carry 3.2 CPUs; the three guests' 0.75 CPUs of assumed demand
# (0.25 a vCPU) become 2.75 with the new guest's 8 vCPUs: 86%, above the
# band's 81% (high_hold 0), so a is woken (2.75 of 4.8 CPUs, 57%, at
# most the 63% target)
fleet 0 wake true
LVD_RUN=$RUN_c; define_guest "$U_c" surge 8 "priority='low'" && start_guest "$U_c" surge ||
	t_fail "the 8-vCPU guest did not start on c"
round "wake"
t_match "wake: demand above the band with the new guest" \
	"demand 2\.75 of 3\.20 CPUs on \(86%\)" "$out"
t_eq "wake: exit 0" 0 $rc
t_eq "wake: the wake command was asked for a" "wake a a" "$(tail -n 1 "$T_TMP/asked")"
t_match "wake: a answered again" "a: woken: its libvirt answers again" "$out"
t_eq "wake: every host on" "a:on b:on c:on" "$(power)"
t_eq "wake: a's libvirtd answers, a new one" "0 yes" \
	"$(answers a; echo $?) $(kill -0 "$(lvd_pid a)" 2>/dev/null && echo yes)"
t_match "wake: last_wake recorded" "^[0-9]+$" "$(jq -r '.last_wake' "$ST")"
t_eq "wake: the guests run where they ran" "b b b c" \
	"$(where mover) $(where stay1) $(where stay2) $(where surge)"
virsh -q -c "$U_c" destroy surge >/dev/null; virsh -q -c "$U_c" undefine surge >/dev/null

# ---- a wake that never answers: c to standby, then asked back ----
rm -rf "$T_TMP/state"
fleet 0 nowake
jq '.standby.hosts.a.stay_on = true' "$T_TMP/fleet.json" >"$T_TMP/f2.json" &&
	mv "$T_TMP/f2.json" "$T_TMP/fleet.json"
round "c to standby"
t_eq "c to standby: c asleep, a kept on (stay_on)" "a:on b:on c:standby" "$(power)"
t_eq "c to standby: c's libvirtd stopped" 1 "$(answers c; echo $?)"
jq '.standby.min_spare_hosts = 3 | .standby.wake_deadline = 10' "$T_TMP/fleet.json" \
	>"$T_TMP/f2.json" && mv "$T_TMP/f2.json" "$T_TMP/fleet.json"
round "never wakes"
t_eq "never wakes: exit 1" 1 $rc
t_match "never wakes: reported failed" "c: failed: did not answer within the wake deadline \(10 s\)" "$out"
t_eq "never wakes: c failed in the state" failed "$(jq -r '.hosts[2].power' "$ST")"
round "never wakes, again"
t_eq "never wakes: not asked to wake again" 1 "$(grep -c 'c (never comes back)' "$T_TMP/asked")"
t_match "never wakes: reported every round" "c: failed since [0-9TZ:-]+: did not answer" "$out"
"$T_TMP/start-c"	# an operator brings it back
answers c 300 && t_pass "c's libvirtd started by hand" || t_fail "c's libvirtd did not start"
out=$(F clear c 2>&1)
t_eq "clear c: exit 0, on again" "0 on" "$? $(jq -r '.hosts[2].power' "$ST")"

# ---- an evacuation whose second migration fails: a stays on ----
# a runs two guests; b already defines one named like the smaller, which
# the planner moves second: the first moves, the second fails; a keeps
# it running and does not sleep
rm -rf "$T_TMP/state"
fleet 0 wake true
jq '.standby.hosts.a.stay_on = false' "$T_TMP/fleet.json" >"$T_TMP/f2.json" &&
	mv "$T_TMP/f2.json" "$T_TMP/fleet.json"
LVD_RUN=$RUN_a
define_guest "$U_a" m1 2 "priority='low'" && start_guest "$U_a" m1
define_guest "$U_a" clash 1 "priority='low'" && start_guest "$U_a" clash
define_guest "$U_b" clash 1
n_asked=$(wc -l <"$T_TMP/asked")
round "failed evacuation"
t_eq "failed evacuation: exit 1" 1 $rc
t_match "failed evacuation: a was being drained" "a: draining towards standby" "$out"
t_match "failed evacuation: the failure reported, the drain stopped" \
	"clash: migration a -> b failed: .*no more moves from a" "$out"
t_eq "failed evacuation: clash runs on a only" a "$(where clash)"
t_match "failed evacuation: the first guest moved before" "m1: moved a -> b.*clash: migration a -> b failed" \
	"$(echo "$out" | tr '\n' ' ')"
t_eq "failed evacuation: m1 runs on b only" b "$(where m1)"
t_eq "failed evacuation: a on and answering, nothing put to sleep" "a:on 0 $n_asked" \
	"$(power | cut -d' ' -f1) $(answers a; echo $?) $(wc -l <"$T_TMP/asked")"
t_eq "failed evacuation: nothing half-moved (b has no QEMU for clash)" "" \
	"$(pid_on "$RUN_b" clash)"
t_done
