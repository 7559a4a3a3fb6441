#!/bin/sh
# test-fleet-power.sh BUILD_DIR - `vcpack fleet status` shows each host's
# power now from the fleet file's power_command (issue 14): two private
# libvirtds running the test driver carry nine fleet hosts whose
# power_command scripts print a bare number, ipmitool's dcmi power
# reading, `vcpack metrics` text (the real one, on the power fixture
# trees: the host total, and without it the package and dram zones), or
# fail, hang past their power_timeout (killed as a group; status does
# not wait for it), print garbage, or are not there; one host has none,
# and one host's libvirt does not answer while its BMC still reads (as
# a host in standby by vcpack, which the text says). The values are
# asserted in the text and --json (jq), every line within 100 columns.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
P=$top/tests/data/power

t_test_libvirtd p1 p2

# alias URI NAME: another URI for the libvirtd of URI, through a symlink
# NAME.sock to its socket: a fleet file lists a host once (the same URI
# under two names is refused), so the ten hosts the two libvirtds carry
# reach them through sockets of their own
alias() {
	ln -s "${1#*socket=}" "$LVD_BASE/$2.sock" &&
		echo "test+unix:///default?socket=$LVD_BASE/$2.sock"
}
for h in 3 5 7 10; do eval "U_h$h=\$(alias \"\$U_p1\" h$h)"; done
for h in 4 6 8; do eval "U_h$h=\$(alias \"\$U_p2\" h$h)"; done

# pscript NAME: $T_TMP/bin/pw-NAME (found in PATH, as ipmitool would
# be), a power_command recording its environment in $T_TMP/env.NAME,
# then running the shell text on its stdin
mkdir -p "$T_TMP/bin"
PATH=$T_TMP/bin:$PATH
pscript() {
	{
		echo '#!/bin/sh'
		echo "echo \"\$VCPACK_HOST \$VCPACK_ACTION \$VCPACK_URI\" >\"$T_TMP/env.$1\""
		cat
	} >"$T_TMP/bin/pw-$1" && chmod +x "$T_TMP/bin/pw-$1"
}
pscript number <<'EOF'
echo 212
EOF
pscript dcmi <<'EOF'
cat <<OUT

    Instantaneous power reading:                   198 Watts
    Minimum during sampling period:                 80 Watts
    Maximum during sampling period:                320 Watts
    Average power reading over sample period:      190 Watts
    IPMI timestamp:                           Fri Dec  4 18:00:00 2026
    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated

OUT
EOF
# `ssh HOST vcpack metrics` on a host whose counters are the fixture's
pscript metrics <<EOF
exec "$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/intel-2s/t0,$P/intel-2s/t1" metrics
EOF
pscript zones <<EOF
"$VCPACK" --connect "$TWO" --sample 0 --power-root "$P/intel-2s/t0,$P/intel-2s/t1" metrics |
	grep -v '^vcpack_host_power_watts'
EOF
pscript fail <<'EOF'
echo "Error: Unable to establish IPMI v2 / RMCP+ session" >&2
exit 3
EOF
pscript hang <<EOF
echo reading...
sleep 60 &
echo \$! >"$T_TMP/hang.pid"
wait
EOF
pscript garbage <<'EOF'
echo "<html><body>502 Bad Gateway</body></html>"
EOF
pscript bmc <<'EOF'
echo 8.5
EOF

cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [
  {"uri": "$U_p1", "name": "h1", "power_command": ["pw-number"]},
  {"uri": "$U_p2", "name": "h2", "power_command": ["pw-dcmi", "-H", "bmc-h2"]},
  {"uri": "$U_h3", "name": "h3", "power_command": ["pw-metrics"]},
  {"uri": "$U_h4", "name": "h4", "power_command": ["pw-zones"]},
  {"uri": "$U_h5", "name": "h5", "power_command": ["pw-fail"]},
  {"uri": "$U_h6", "name": "h6", "power_command": ["pw-hang"], "power_timeout": 2},
  {"uri": "$U_h7", "name": "h7", "power_command": ["pw-garbage"]},
  {"uri": "$U_h8", "name": "h8"},
  {"uri": "test+unix:///default?socket=$T_TMP/nosuch.sock", "name": "h9",
   "power_command": ["pw-bmc"]},
  {"uri": "$U_h10", "name": "h10", "power_command": ["pw-nosuch"]}],
 "defaults": {"concurrency": 4, "timeout": 20, "power_timeout": 10}}
JSON
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" "$@"; }

t0=$(date +%s)
st=$(F --json status 2>/dev/null); rc=$?
t1=$(date +%s)
t_eq "status --json: exit 1 (h9's libvirt does not answer)" 1 $rc
t_eq "status: h9 unreachable by libvirt" false "$(echo "$st" | jq '.hosts[8].reachable')"
pw() { echo "$st" | jq -r ".hosts[$1].power | $2"; }
t_eq "h1: a bare number" "measured 212 power_command bare number null" \
	"$(pw 0 '"\(.state) \(.watts) \(.source) \(.format) \(.error)"')"
t_eq "h2: ipmitool dcmi, its instantaneous reading" "measured 198 ipmitool dcmi" \
	"$(pw 1 '"\(.state) \(.watts) \(.format)"')"
t_eq "h3: vcpack metrics, the host total" "measured 154 vcpack_host_power_watts" \
	"$(pw 2 '"\(.state) \(.watts) \(.format)"')"
t_eq "h4: vcpack metrics without the total: package + dram zones" \
	"measured 154 vcpack_power_watts package+dram" "$(pw 3 '"\(.state) \(.watts) \(.format)"')"
t_eq "h5: failed, with its exit and stderr" \
	"failed null power_command pw-fail: exit 3; stderr: Error: Unable to establish IPMI v2 / RMCP+ session" \
	"$(pw 4 '"\(.state) \(.watts) \(.error)"')"
t_eq "h6: timed out after its power_timeout" \
	"timed_out null power_command pw-hang: timed out after 2 s; output: reading..." \
	"$(pw 5 '"\(.state) \(.watts) \(.error)"')"
t_eq "h7: garbage, the bad line quoted" \
	"unparseable null power_command pw-garbage: output not understood: line 1: '<html><body>502 Bad Gateway</body></html>': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text" \
	"$(pw 6 '"\(.state) \(.watts) \(.error)"')"
t_eq "h8: no power_command" "none null no power_command" "$(pw 7 '"\(.state) \(.watts) \(.error)"')"
t_eq "h9: its BMC reads while its libvirt does not answer" "measured 8.5" \
	"$(pw 8 '"\(.state) \(.watts)"')"
t_eq "h10: a program that is not there" \
	"failed power_command pw-nosuch: cannot execute: No such file or directory" \
	"$(pw 9 '"\(.state) \(.error)"')"
t_eq "totals: measured watts of the hosts that reported (212+198+154+154+8.5)" \
	"726.5 5 5" "$(echo "$st" | jq -r '.totals|"\(.measured_watts) \(.measured_hosts) \(.unmeasured_hosts)"')"
t_eq "totals: the modelled saving still there" 0 "$(echo "$st" | jq '.totals.saved_watts')"
t_eq "the command's environment: host, action, URI" "h2 power $U_p2" "$(cat "$T_TMP/env.dcmi")"

# the hung command: its process group killed (SIGTERM to the group as
# its shell is reaped: its sleep may take a moment to go, or stay a
# zombie until reaped), status did not wait 60 s
hp=$(cat "$T_TMP/hang.pid" 2>/dev/null)
gone() { ! kill -0 "$1" 2>/dev/null || ps -o stat= -p "$1" | grep -q Z; }
i=0
while [ -n "$hp" ] && ! gone "$hp" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ -z "$hp" ]; then
	# killed at its timeout before it could start its child (a slow,
	# loaded machine): nothing of it can be left running
	t_pass "h6: the hung command was killed before it started its child"
elif gone "$hp"; then
	t_pass "h6: the hung command's child (sleep, pid $hp) killed with its group"
else t_fail "h6: the hung command's child $hp still runs"; ps -o pid,ppid,pgid,stat,etimes,cmd -p "$hp"; cat "$T_TMP/env.hang"; kill "$hp" 2>/dev/null; fi
el=$((t1 - t0))
echo "# status took $el s (h6 hangs 60 s, killed at 2 s)"
if [ $el -lt 15 ]; then t_pass "status within 15 s with a hung power_command ($el s)"
else t_fail "status took $el s"; fi

# ---- text ----
txt=$(F status 2>&1)
t_match "text: h1 measured" "^  h1 +212\.0 W measured: power_command \(bare number\)$" "$txt"
t_match "text: h3 measured from vcpack metrics" \
	"^  h3 +154\.0 W measured: power_command \(vcpack_host_power_watts\)$" "$txt"
t_match "text: h5 says why none" "^  h5 +- W none: power_command pw-fail: exit 3; stderr: Error:" "$txt"
t_match "text: h6 timed out" "^  h6 +- W none: power_command pw-hang: timed out after 2 s" "$txt"
t_match "text: h7 not understood" "^  h7 +- W none: power_command pw-garbage: output not" "$txt"
t_match "text: h8 none" "^  h8 +- W none: no power_command$" "$txt"
t_match "text: h9 unreachable by libvirt" "^  h9 +unreachable: " "$txt"
t_match "text: h9 measured by its BMC" "^  h9 +8\.5 W measured: power_command \(bare number\)$" "$txt"
t_match "text: the fleet's measured total" \
	"^power: 726\.5 W measured on 5 of 10 hosts; 5 without a reading \(4 failed, 1 without a power_command\)" "$txt"
t_match "text: the modelled saving labelled modelled" "modelled saving 0 W" "$txt"
w=$(printf '%s\n' "$txt" | LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
if [ "$w" -le 100 ]; then t_pass "text: every line within 100 columns ($w)"
else t_fail "text: lines of $w columns"; printf '%s\n' "$txt" | awk 'length($0) > 100'; fi

# ---- a host in standby by vcpack: its BMC's reading shown then too ----
cat >"$T_TMP/sb.json" <<JSON
{"hosts": [
  {"uri": "$U_p1", "name": "h1", "power_command": ["pw-number"]},
  {"uri": "test+unix:///default?socket=$T_TMP/nosuch.sock", "name": "h9",
   "power_command": ["pw-bmc"]}],
 "standby": {"hosts": {"h9": {"action": "command",
   "standby_command": ["true"], "wake_command": ["true"]}}}}
JSON
cat >"$T_TMP/state.json" <<JSON
{"version": 1, "below_since": null, "above_since": null, "last_wake": null,
 "hosts": [{"name": "h1", "power": "on", "since": null, "why": null,
            "capacity": 2, "packages": 2, "moves": [], "last_action": null, "output": null},
           {"name": "h9", "power": "standby", "since": 1796280000,
            "why": "empty: to standby", "capacity": 2, "packages": 2, "moves": [],
            "last_action": "standby: command true: exit 0", "output": null}]}
JSON
S() { "$VCPACK" fleet --hosts "$T_TMP/sb.json" --state "$T_TMP/state.json" "$@"; }
sst=$(S --json status 2>/dev/null); rc=$?
t_eq "standby: exit 0 (h9 asleep by vcpack)" 0 $rc
t_eq "standby: h9 in standby, read by its BMC" "standby measured 8.5" \
	"$(echo "$sst" | jq -r '.hosts[1]|"\(.standby.power) \(.power.state) \(.power.watts)"')"
t_eq "standby: the fleet's measured watts count it" 220.5 "$(echo "$sst" | jq '.totals.measured_watts')"
stxt=$(S status 2>&1)
t_match "standby text: h9's reading, in standby" \
	"^  h9 +8\.5 W measured: power_command \(bare number\), in standby by vcpack$" "$stxt"
t_match "standby text: the standby saving labelled modelled" \
	"^standby: 1 hosts in standby by vcpack, saving 180 W \(0 W from idle_watts, 180 W modelled\)" "$stxt"

# ---- fleet run: the round's line carries the fleet's measured watts ----
cat >"$T_TMP/run.json" <<JSON
{"hosts": [
  {"uri": "$U_p1", "name": "h1", "power_command": ["pw-number"]},
  {"uri": "$U_p2", "name": "h2", "power_command": ["pw-dcmi"]},
  {"uri": "$U_h3", "name": "h3", "power_command": ["pw-fail"]}],
 "standby": {}}
JSON
out=$("$VCPACK" fleet --hosts "$T_TMP/run.json" --state "$T_TMP/run-state.json" \
	--sample 0 run --rounds 1 2>&1); rc=$?
t_eq "fleet run --rounds 1: exit 0" 0 $rc
t_match "fleet run: the round's line with the measured watts" \
	"fleet: demand [0-9.]+ of [0-9.]+ CPUs on .*; measured 410\.0 W on 2 of 3 hosts \(power_command\)$" "$out"

# ---- no power_command anywhere: said once, no per-host lines ----
cat >"$T_TMP/none.json" <<JSON
{"hosts": [{"uri": "$U_p1", "name": "h1"}, {"uri": "$U_p2", "name": "h2"}]}
JSON
ntxt=$("$VCPACK" fleet --hosts "$T_TMP/none.json" status 2>&1)
t_match "no power_command: said, the figures modelled" \
	"^power: no host has a power_command \(vcpack-fleet\(5\)\): no power measured now$" "$ntxt"
t_eq "no power_command: --json null total, 0 hosts measured" "null 0 2" \
	"$("$VCPACK" fleet --hosts "$T_TMP/none.json" --json status 2>/dev/null |
		jq -r '.totals|"\(.measured_watts) \(.measured_hosts) \(.unmeasured_hosts)"')"

# ---- refused before anything runs ----
echo '{"hosts": [{"uri": "test:///default", "power_command": "ipmitool dcmi power reading"}]}' >"$T_TMP/bad.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/bad.json" status 2>&1); rc=$?
t_eq "a power_command that is a string: exit 2" 2 $rc
t_match "a power_command that is a string: the key named" \
	"hosts\[0\]\.power_command: must be an array of 1 to 64 strings" "$(t_unfold "$out")"

t_done
