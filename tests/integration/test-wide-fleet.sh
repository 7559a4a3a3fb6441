#!/bin/sh
# test-wide-fleet.sh BUILD_DIR - every human-readable output fits 100
# columns at scale (issue 16): test-driver hosts of 2 packages x 32 cores
# x 2 threads with 40 VMs each, ten of them with 80-character names
# (test:///ABS/PATH/host.xml, one process per run), and a fleet of three
# such hosts with long host names. status, plan, apply, verify (against a
# fresh plan and against vcpackd's), explain, list, restore, tag, trial,
# the IRQ and numatune views, and fleet status/tag/plan/apply (dry run,
# and tried: the test driver cannot migrate) keep every line within 100
# columns, names cut name...end as the tables cut them; --wide prints
# them whole; --json is never cut. A VM's vCPU actions and differences
# are folded into one line with a vCPU range. Names that would cut alike
# (tenant-a-00-... and tenant-a-04-..., the two compute-node-... hosts)
# keep the part where they differ: no table shows two names the same way.
# Error lines on stderr and `fleet run`'s log lines fold too on a terminal
# (a long socket path, a long host name, a long log line), whole with
# --wide and into a file or a pipe.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
t_setup

# gen TAG SPREAD: a 2x32x2 host of 40 VMs; names by i % 4: an
# 80-character one (priority high, spread, when SPREAD is yes; else low),
# web-TAG-NN, a 64-character batch one (low) and vmTAGNN (class pack);
# every other long-named one has numatune (listed by status, plan)
long_name() { printf 'tenant-%s-%02d-accounting-department-building-seven-floor3-database-replica-primary' "$1" "$2"; }
gen() {
	cat <<XML
<node>
  <cpu><mhz>2400</mhz><model>x86_64</model><active>128</active><max>128</max>
    <nodes>2</nodes><sockets>1</sockets><cores>32</cores><threads>2</threads></cpu>
  <memory>1073741824</memory>
XML
	i=0
	while [ $i -lt 40 ]; do
		case $((i % 4)) in
		0) n=$(long_name "$1" $i); v=4; tag='priority="low"'
		   [ "$2" = yes ] && tag='priority="high"' ;;
		1) n=$(printf 'web-%s-%02d' "$1" $i); v=2; tag='priority="normal"' ;;
		2) n=$(printf 'batch-%s-%02d-nightly-analytics-job-runner-for-the-warehouse' "$1" $i)
		   v=8; tag='priority="low"' ;;
		3) n=$(printf 'vm%s%02d' "$1" $i); v=3; tag='class="pack"' ;;
		esac
		printf '  <domain type="test"><name>%s</name><memory unit="MiB">1024</memory><vcpu>%d</vcpu>' "$n" $v
		[ $((i % 8)) = 0 ] && printf "<numatune><memory mode='strict' nodeset='1'/></numatune>"
		printf '<metadata><vcpack:consolidation xmlns:vcpack="urn:vcpack:metadata:1" %s/></metadata><os><type>hvm</type></os></domain>\n' "$tag"
		i=$((i + 1))
	done
	echo '</node>'
}
gen a yes >"$T_TMP/a.xml"
gen b no >"$T_TMP/b.xml"
gen c no >"$T_TMP/c.xml"
LONG=$(long_name a 0)
t_eq "the long name has 80 characters" 80 "${#LONG}"
SHORT=tenant-a-00-...imary
U="test://$T_TMP/a.xml"
# a low assumed demand: the fleet's hosts b and c can be emptied
echo '{"default_vcpu_demand": 0.05}' >"$T_TMP/low.json"
echo '{"default_vcpu_demand": 0.05, "level": 2}' >"$T_TMP/l2.json"

# the widest line of TEXT, in characters
widest() { printf '%s\n' "$1" | LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
fits() { # WHAT TEXT
	w=$(widest "$2")
	echo "# width $1: $w"
	if [ "$w" -le 100 ]; then t_pass "$1: every line within 100 columns ($w)"
	else t_fail "$1: lines of up to $w columns:"
		printf '%s\n' "$2" | awk 'length($0) > 100' | head -5 | sed 's/^/    /'; fi
}
# exclusive_cores: level 0 (where auto resolves here) then re-pins, as
# the actions these tests lay out need (without it level 0 is hands off)
echo '{"exclusive_cores": true}' >"$T_TMP/x.json"
V() { "$VCPACK" --connect "$U" --sample 0 --policy "$T_TMP/x.json" "$@" 2>&1; }

for p in "" "$T_TMP/l2.json"; do
	lv=${p:+ (level 2)}
	P=${p:+--policy $p}
	fits "status$lv" "$(V $P status)"
	fits "plan$lv" "$(V $P plan)"
	fits "verify$lv" "$(V $P verify)"
	fits "explain, an 80-character name$lv" "$(V $P explain "$LONG")"
	fits "explain, a short name$lv" "$(V $P explain web-a-01)"
	fits "apply$lv" "$(V $P apply)"
done
fits "list" "$(V list)"
fits "list --all" "$(V list --all)"

vf=$(V verify); t_eq "verify: exit 1 (differences)" 1 $?
t_match "verify: a VM's name cut as the tables cut it" "'$SHORT'|  $SHORT " "$vf"
t_nomatch "verify: not whole" "$LONG" "$vf"
t_match "verify --wide: the name whole" "$LONG" "$(V verify --wide)"
t_eq "verify --json: the name whole" 1 \
	"$(V --json verify | jq -r '.differences[].planned' | grep -c "$LONG emulator")"

pl=$(V plan)
t_match "plan: a spread VM's vCPUs in one action, each one's core in turn" \
	"^  pin-vcpu +$SHORT +vcpus 0-3 0-127 -> 0,64 \| 1,65 \| 2,66 \| 3,67$" "$pl"
t_match "plan: a batch VM's vCPUs in one action, one cpulist" \
	"^  pin-vcpu +batch-a-02-\.\.\.ehouse +vcpus 0-7 0-127 -> [0-9]" "$pl"
t_eq "plan: one pin-vcpu line per VM (40)" 40 "$(echo "$pl" | grep -c '^  pin-vcpu ')"
t_eq "plan: each of the 40 named differently" 40 \
	"$(echo "$pl" | awk '$1 == "pin-vcpu" { print $2 }' | sort -u | wc -l)"
t_eq "status: each of the 40 VMs named differently" 40 \
	"$(V status | sed -n '/^VMs:/,$p' | sed -n '3,$p' | grep '^  [^ ]' | awk '{ print $1 }' | sort -u | wc -l)"
t_eq "plan --json: an action per vCPU still (40 VMs, 170 vCPUs)" 170 \
	"$(V --json plan | jq '[.actions[]|select(.action=="pin-vcpu")]|length')"

# IRQ and placer views (a fixture /proc, IRQs kept off idle packages)
cp -a "$here/../data/irq/two-pkg" "$T_TMP/root"
echo '{"default_vcpu_demand": 0.05, "level": 2, "irq_affinity": "on"}' >"$T_TMP/irq.json"
for cmd in status plan apply; do
	fits "$cmd with IRQs" "$(V --root "$T_TMP/root" --policy "$T_TMP/irq.json" $cmd)"
done
st=$(V status)
t_match "status: the VMs with numatune listed, folded" "^ {8}'$LONG',$" "$st"

# restore and tag name a VM
rs=$(V restore); fits "restore" "$rs"
t_match "restore: names cut" "^  $SHORT nothing recorded" "$rs"
tg=$(V tag "$LONG" --class pack); fits "tag, an 80-character name" "$tg"
t_eq "tag: the tag on a line of its own" "  <consolidation class=\"pack\"/>" "$(echo "$tg" | sed -n 2p)"

# trial: a window's line with a long reason (the fixture's clock stands
# still: no window usable), folded
cp -r "$here/../data/power/intel-2s/t0" "$T_TMP/pw"
# (stdout: its report; "no verdict" is an error message on stderr)
tr=$("$VCPACK" --connect "$U" --sample 0 --policy "$T_TMP/x.json" --power-root "$T_TMP/pw" trial --rounds 2 \
	--window 0.3 --settle 0.1 --sample 0.1 --state "$T_TMP/trial.json" 2>/dev/null)
fits "trial" "$tr"
t_match "trial: the reason folded under the window's line" "^window 1/5 as-found +not used" "$tr"

# verify against vcpackd's plan (vcpackd has its own test:/// host, as
# the CLI does: nothing of its plan is seen carried out)
SOCK=$T_TMP/vcpackd.sock
"$B/vcpackd" --foreground --connect "$U" --socket "$SOCK" --state "$T_TMP/d.state" \
	--policy "$T_TMP/x.json" >"$T_TMP/vcpackd.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0; until V --daemon-socket "$SOCK" --json status | jq -e '.vcpackd.last' >/dev/null 2>&1 ||
	[ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
vd=$(V --daemon-socket "$SOCK" verify); t_eq "verify against vcpackd: exit 1" 1 $?
fits "verify against vcpackd" "$vd"
t_match "verify against vcpackd: a VM's vCPUs in one line, name cut" \
	"^  '$SHORT' vCPUs 0-3 pins: 0-127, planned 0,64 \| 1,65 \| 2,66 \| 3,67$" "$vd"
t_match "verify --wide against vcpackd: the name whole" "^  '$LONG' vCPUs 0-3 pins" \
	"$(V --daemon-socket "$SOCK" verify --wide)"
t_eq "verify --json against vcpackd: a difference per vCPU (170)" 170 \
	"$(V --daemon-socket "$SOCK" --json verify | jq '.differences|length')"
kill "$DPID"

# ---- the fleet: three hosts, two of them with long names ----
cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [{"uri": "test://$T_TMP/a.xml", "name": "compute-node-a-rack-12-datacenter-frankfurt-west",
  "power_command": ["sh", "-c", "echo 1234.5"]},
 {"uri": "test://$T_TMP/b.xml", "name": "compute-node-b-rack-12-datacenter-frankfurt-west",
  "power_command": ["sh", "-c", "echo 'Error: Unable to establish IPMI v2 / RMCP+ session: the BMC at bmc-compute-node-b-rack-12.frankfurt-west.example.com did not answer' >&2; exit 1"]},
 {"uri": "test://$T_TMP/c.xml", "name": "compute-node-c",
  "power_command": ["sh", "-c", "echo '<html><head><title>502 Bad Gateway from the proxy in front of the metrics endpoint</title></head></html>'"]}],
 "defaults": {"package_watts": 50, "timeout": 10}}
JSON
HA=compute-node-a-rack-12-datacenter-frankfurt-west
HB=compute-node-b-rack-12-datacenter-frankfurt-west
HSHORT=co...ode-a-...st
HBSHORT=co...ode-b-...st
F() { "$VCPACK" --policy "$T_TMP/low.json" fleet --hosts "$T_TMP/fleet.json" --sample 0 "$@" 2>&1; }
fs=$(F status); fits "fleet status" "$fs"
t_match "fleet status: a long host name cut, its row whole" "^  $HSHORT +pin +2 +2 +0 +40 " "$fs"
t_match "fleet status: the other long host name cut where it differs" "^  $HBSHORT +pin +2 +2 +0 +40 " "$fs"
t_match "fleet status --wide: the host name whole" "^  $HA " "$(F status --wide)"
t_match "fleet status: the power lines, the host name cut" "^  $HSHORT +1234\.5 W measured: power_command \(bare number\)$" "$fs"
t_match "fleet status: a failed power_command's line folded" "^  $HBSHORT +- W none: power_command sh: exit 1; stderr: Error:" "$fs"
t_match "fleet status --wide: the power line whole" "^  $HB +- W none: power_command sh: exit 1; stderr: Error: .*frankfurt-west\.example\.com did\.\.\.$" "$(F status --wide)"
fp=$(F plan); t_eq "fleet plan: exit 0" 0 $?
fits "fleet plan" "$fp"
t_match "fleet plan: migrations planned, VM and host names cut" \
	"^  batch-b-02-...-warehouse $HBSHORT -> $HSHORT  0.40 CPUs " "$fp"
t_match "fleet plan: a host's row with the name cut" "^  $HSHORT +[0-9.]+ +[0-9.]+ +2 -> " "$fp"
fw=$(F plan --wide)
t_match "fleet plan --wide: host names whole" "^  $HA " "$fw"
t_match "fleet plan --wide: VM names whole" "^  batch-b-02-nightly-analytics-job-runner-for-the-warehouse " "$fw"
t_eq "fleet plan --json: names whole" "$HA" \
	"$(F --json plan | jq -r '.hosts[0].name')"
fits "fleet apply --dry-run" "$(F apply --dry-run)"
fits "fleet tag --dry-run" "$(F tag --match 'name=tenant-*' --class pack --dry-run)"
fa=$(F apply --yes)
fits "fleet apply --yes (the test driver cannot migrate)" "$fa"
t_match "fleet apply: a step's line with the names cut, libvirt's error folded under it" \
	"^  1/80 batch-b-02-...-warehouse $HBSHORT -> $HSHORT: failed" "$fa"
# error lines on stderr: on a terminal (script(1)) folded under the
# message, a word too long for a line (a socket path) cut visibly; whole
# with --wide, and into a file or a pipe (logs, grep)
S=$T_TMP/the-control-socket-directory-of-vcpackd/vcpackd.sock
export S VCPACK
script -qec '"$VCPACK" --daemon-socket "$S" level 1 2>&1 >/dev/null' /dev/null \
	</dev/null >"$T_TMP/er.tty"
t_eq "level, no vcpackd: exit 1" 1 $?
er=$(tr -d '\r' <"$T_TMP/er.tty")
fits "an error line with a long socket path" "$er"
t_match "the error folded under its message" '^ {8}[^ ]' "$er"
ew=$("$VCPACK" --daemon-socket "$S" level 1 --wide 2>&1 >/dev/null)
t_eq "--wide: the error on one line, the path whole" \
	"vcpack: vcpackd is not running (no answer on $S); nothing set" "$ew"
t_eq "folded, the same message" "$ew" "$(t_unfold "$er")"
t_eq "stderr not a terminal: the error on one line, as --wide" "$ew" \
	"$("$VCPACK" --daemon-socket "$S" level 1 2>&1 >/dev/null)"
LN=$(printf 'no-such-host-%s' "$HA")
# fleet run's log lines: a one-host fleet whose demand line is long
cat >"$T_TMP/run.json" <<JSON
{"hosts": [{"uri": "test://$T_TMP/a.xml", "name": "$HA"}],
 "defaults": {"timeout": 10},
 "standby": {"interval": 5, "hosts": {"$HA": {"action": "command",
   "standby_command": ["/bin/true"], "wake_command": ["/bin/true"]}}}}
JSON
R() { "$VCPACK" fleet --hosts "$T_TMP/run.json" --sample 0 \
	--state "$T_TMP/run-state.json" "$@"; }
export R_ARGS="--hosts $T_TMP/run.json --sample 0 --state $T_TMP/run-state.json" LN
script -qec '"$VCPACK" fleet $R_ARGS clear "$LN" 2>&1 >/dev/null' /dev/null \
	</dev/null >"$T_TMP/er.tty"
t_eq "fleet clear, no such host: exit 2" 2 $?
er=$(tr -d '\r' <"$T_TMP/er.tty")
fits "fleet: an error line with a long host name" "$er"
t_match "fleet: the name in it" "$HA'" "$er"
t_eq "fleet --wide: the error on one line" 1 "$(R --wide clear "$LN" 2>&1 >/dev/null | wc -l)"
t_eq "fleet, stderr not a terminal: the error on one line" 1 "$(R clear "$LN" 2>&1 >/dev/null | wc -l)"
# on a terminal (script(1) gives it one; stderr's progress line left
# out) the lines fold; into a file or the journal each entry stays one
# whole line
lg=$(script -qec "\"$VCPACK\" fleet $R_ARGS run --rounds 1 2>/dev/null" /dev/null </dev/null | tr -d '\r')
t_eq "fleet run --rounds 1 on a terminal: exit 0" 0 $?
fits "fleet run's log lines on a terminal" "$lg"
t_match "fleet run: a log line folded under its text" '^ {28}[a-z(]' "$lg"
for how in plain wide; do
	rm -f "$T_TMP/run-state.json"
	if [ $how = wide ]; then lw=$(R --wide run --rounds 1 2>&1); else lw=$(R run --rounds 1 2>&1); fi
	t_eq "fleet run ($how, not a terminal): a line per entry, as many entries" \
		"$(echo "$lg" | grep -c '^20[0-9-]*T')" "$(echo "$lw" | wc -l)"
	t_match "fleet run ($how, not a terminal): a line over 100 columns whole" '^.{101,}$' "$lw"
done

t_match "fleet apply --wide: the step's line whole" \
	"^  1/80 batch-b-02-nightly-analytics-job-runner-for-the-warehouse $HB -> $HA: failed .*virDomainMigrate" \
	"$(F apply --yes --wide)"
t_done
