#!/bin/sh
# test-hostile-cpus.sh BUILD_DIR - hosts wider than 2,048 CPUs: libvirt
# test-driver hosts of 4,096 and 8,192 CPUs (4 packages of N/8 cores x 2
# threads, written under the test's temp dir) with three pack VMs pinned
# to the host's highest CPUs. list, status, plan, apply, restore, a
# vcpackd pass (apply, level 0 puts the pins back, level 2 finds them
# back where they were, restore on exit) and fleet status show and write
# the real CPUs; a host past the 16,384 CPUs vcpack (and libvirt) takes
# is refused by every command with the limit said by name, except
# restore, which puts its VMs back all the same.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
t_setup

# wide_host FILE NODES CORES [PINS]: NODES packages of CORES cores x 2
# threads; PINS (default yes): wide0-2 pinned to the highest CPUs (vCPU 0
# to CPU N-1-i, vCPU 1 to N-8-i..N-1), RECORD: with that element in the
# urn:vcpack:state:1 metadata and pinned to CPUS instead
wide_host() {
	n=$(($2 * $3 * 2))
	{
		printf '<node>\n  <cpu><mhz>2400</mhz><model>x86_64</model><active>%d</active><max>%d</max>' $n $n
		printf '<nodes>%d</nodes><sockets>1</sockets><cores>%d</cores><threads>2</threads></cpu>\n' "$2" "$3"
		echo '  <memory>1073741824</memory>'
		for i in 0 1 2; do
			tune=""
			[ "${4:-yes}" = yes ] &&
				tune="<cputune><vcpupin vcpu='0' cpuset='$((n - 1 - i))'/><vcpupin vcpu='1' cpuset='$((n - 8 - i))-$((n - 1))'/></cputune>"
			[ -n "${RECORD:-}" ] &&
				tune="<cputune><vcpupin vcpu='0' cpuset='$CPUS'/><vcpupin vcpu='1' cpuset='$CPUS'/><emulatorpin cpuset='$CPUS'/></cputune>"
			printf "  <domain type='test'><name>wide%d</name><memory unit='MiB'>1024</memory><vcpu>2</vcpu>%s" $i "$tune"
			printf "<metadata><v:consolidation xmlns:v='urn:vcpack:metadata:1' class='pack'/>%s</metadata><os><type>hvm</type></os></domain>\n" "${RECORD:-}"
		done
		echo '</node>'
	} >"$1"
}

# wait_log FILE PATTERN: up to 20 s for a line of FILE to match
wait_log() {
	i=0
	until grep -Eq -- "$2" "$1"; do
		i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.1
	done
}

for N in 4096 8192; do
	H=$T_TMP/host$N.xml
	wide_host "$H" 4 $((N / 8))
	U="test://$H"
	# package 3: cores 3N/8..N/2-1, their second threads 7N/8..N-1
	P3="$((3 * N / 8))-$((N / 2 - 1)),$((7 * N / 8))-$((N - 1))"
	TOP="$((N - 8))-$((N - 1))"
	V() { "$VCPACK" --connect "$U" --sample 0 --daemon-socket "$T_TMP/none.sock" "$@"; }

	out=$(V list 2>&1); t_eq "$N CPUs: list exits 0" 0 $?
	t_match "$N CPUs: list shows wide0's pins on the top CPUs" "^  wide0 +running +pack .* 2 $TOP\$" "$out"
	js=$(V --json list 2>&1)
	t_eq "$N CPUs: list --json: wide0's vCPU pins" "$((N - 1)) $TOP" \
		"$(echo "$js" | jq -r '.[]|select(.name=="wide0")|.vcpu_pins|join(" ")')"

	js=$(V --json status 2>&1); t_eq "$N CPUs: status exits 0" 0 $?
	t_eq "$N CPUs: status: 4 packages, 1 awake" "4 1" \
		"$(echo "$js" | jq -r '"\(.packages|length) \([.packages[]|select(.awake)]|length)"')"
	t_eq "$N CPUs: status: package 3's CPUs and VMs" "$P3 wide0,wide1,wide2" \
		"$(echo "$js" | jq -r '.packages[3]|"\(.cpus) \(.vms|join(","))"')"
	t_eq "$N CPUs: status: wide2's pins" "$((N - 3)) $((N - 10))-$((N - 1))" \
		"$(echo "$js" | jq -r '.vms[]|select(.name=="wide2")|.pins|join(" ")')"

	js=$(V --json plan 2>&1); t_eq "$N CPUs: plan exits 0" 0 $?
	t_eq "$N CPUs: plan: 1 of 4 packages active" "1 4" \
		"$(echo "$js" | jq -r '"\(.plan.active) \(.plan.packages|length)"')"
	t_eq "$N CPUs: plan: 3 records and 9 pins, every pin to package 3" "3 9 9" \
		"$(echo "$js" | jq -r --arg p "$P3" '"\([.actions[]|select(.action=="save-original")]|length) \([.actions[]|select(.action|startswith("pin-"))]|length) \([.actions[]|select(.to==$p)]|length)"')"

	js=$(V --json apply 2>&1); t_eq "$N CPUs: apply exits 0" 0 $?
	t_eq "$N CPUs: apply: 12 actions, all done" "12 12" \
		"$(echo "$js" | jq -r '"\(.actions|length) \([.actions[]|select(.outcome=="done")]|length)"')"
	t_eq "$N CPUs: apply: wide0's vCPU 0 from its top CPU to package 3" "$((N - 1)) $P3" \
		"$(echo "$js" | jq -r '.actions[]|select(.vm=="wide0" and .vcpu==0)|"\(.from) \(.to)"')"
	t_eq "$N CPUs: apply: pins read back (6 vCPUs and 3 emulators on package 3, 3 records)" "9 3" \
		"$(echo "$js" | jq -r --arg p "$P3" '"\([.vms[]|(.pins[],.emulator)|select(.==$p)]|length) \([.vms[]|select(.original_recorded)]|length)"')"

	# restore: the VMs as apply leaves them (on package 3, their original
	# pins recorded); one record's CPUs past the host are refused by name
	RECORD="<s:original xmlns:s='urn:vcpack:state:1' version='1'><vcpu id='0' cpuset='$((N - 1))'/><vcpu id='1' cpuset='$TOP'/><emulator cpuset='0-$((N - 1))'/></s:original>" \
		CPUS=$P3 wide_host "$T_TMP/applied$N.xml" 4 $((N / 8)) no
	js=$("$VCPACK" --connect "test://$T_TMP/applied$N.xml" --daemon-socket "$T_TMP/none.sock" --json restore 2>&1)
	t_eq "$N CPUs: restore exits 0" 0 $?
	t_eq "$N CPUs: restore: 3 VMs back to their records" "3 3" \
		"$(echo "$js" | jq -r '"\([.restored[]|select(.outcome=="done")]|length) \([.restored[]|select(.had_record)]|length)"')"
	RECORD="<s:original xmlns:s='urn:vcpack:state:1' version='1'><vcpu id='0' cpuset='$((N + 5))'/><vcpu id='1' cpuset='$TOP'/></s:original>" \
		CPUS=$P3 wide_host "$T_TMP/offhost$N.xml" 4 $((N / 8)) no
	out=$("$VCPACK" --connect "test://$T_TMP/offhost$N.xml" --daemon-socket "$T_TMP/none.sock" --wide restore wide1 2>&1)
	t_match "$N CPUs: restore: a record of CPU $((N + 5)) is refused by name" \
		"wide1 .*recorded CPUs $((N + 5)) are not all online" "$out"

	# vcpackd, enabled: its pass pins; level 0 puts the pins back, and
	# level 2 then moves them from where they were found
	st=$T_TMP/state$N.json
	t_enabled "$st"
	echo '{}' >"$T_TMP/policy.json"
	SOCK=$T_TMP/vcpackd$N.sock
	"$B/vcpackd" --log-stderr --debug --connect "$U" --socket "$SOCK" --state "$st" \
		--policy "$T_TMP/policy.json" --restore-on-exit >"$T_TMP/d$N.log" 2>&1 &
	DPID=$!
	T_PIDS="$T_PIDS $DPID"
	wait_log "$T_TMP/d$N.log" "^plan: level 2, 1 of 4 packages active .*12 changes, 12 done, 0 failed"
	t_eq "$N CPUs: vcpackd: its pass made 12 changes" 0 $?
	t_match "$N CPUs: vcpackd: wide1's vCPU 1 from its top CPUs to package 3" \
		"pin-vcpu +wide1 +vcpu 1 +$((N - 9))-$((N - 1)) -> $P3 +\[done\]" "$(cat "$T_TMP/d$N.log")"
	D() { "$VCPACK" --connect "$U" --daemon-socket "$SOCK" "$@"; }
	D level 0 >/dev/null 2>&1
	wait_log "$T_TMP/d$N.log" "^plan: level 0, .*3 changes, 3 done, 0 failed"
	t_eq "$N CPUs: vcpackd level 0: 3 VMs restored" 0 $?
	D level 2 >/dev/null 2>&1
	wait_log "$T_TMP/d$N.log" "pin-vcpu +wide2 +vcpu 1 +$((N - 10))-$((N - 1)) -> $P3"
	t_eq "$N CPUs: vcpackd level 2: the pins were back where they were found" 0 $?
	t_match "$N CPUs: vcpackd: wide0's vCPU 0 back on CPU $((N - 1)) before the second pass" \
		"pin-vcpu +wide0 +vcpu 0 +$((N - 1)) -> $P3 +\[done\]" "$(sed -n '/^level 2/,$p' "$T_TMP/d$N.log")"
	t_nomatch "$N CPUs: vcpackd: no failed re-plan" "re-plan failed|Invalid argument" "$(cat "$T_TMP/d$N.log")"
	kill "$DPID"; wait "$DPID" 2>/dev/null
	t_match "$N CPUs: vcpackd on exit: 3 VMs restored" "restored 3 VMs to their original pins \(0 failed\)" "$(cat "$T_TMP/d$N.log")"

	printf '{"hosts": [{"name": "wide", "uri": "%s"}, {"name": "small", "uri": "test:///default"}]}\n' "$U" >"$T_TMP/fleet$N.json"
	js=$("$VCPACK" fleet --hosts "$T_TMP/fleet$N.json" --json status 2>&1)
	t_eq "$N CPUs: fleet status exits 0" 0 $?
	t_eq "$N CPUs: fleet status: reachable, 4 packages, 1 awake, 3 pack VMs" "true 4 1 3" \
		"$(echo "$js" | jq -r '.hosts[]|select(.name=="wide")|"\(.reachable) \(.packages) \(.awake) \(.vms.pack)"')"
	out=$("$VCPACK" fleet --hosts "$T_TMP/fleet$N.json" plan 2>&1)
	t_eq "$N CPUs: fleet plan exits 0" 0 $?
	t_match "$N CPUs: fleet plan plans the wide host" "^  wide +1\.50 " "$out"
done

# the longest cpulists: every other CPU of 8,192 (19,924 characters) as
# each pin of a 4-vCPU VM. --json shows them whole; restore reads back
# the ~100 KB record of them. A VM of 26 vCPUs pinned so on 16,384 CPUs
# would need a record over the MiB vcpack reads back: apply leaves it.
# alt_host FILE CPUS VCPUS PINS [RECORD]: one VM 'alt', every pin PINS
alt_host() {
	{
		printf "<node><cpu><mhz>2400</mhz><model>x86_64</model><active>%d</active><max>%d</max>" "$2" "$2"
		printf "<nodes>4</nodes><sockets>1</sockets><cores>%d</cores><threads>2</threads></cpu><memory>1073741824</memory>\n" $(($2 / 8))
		printf "<domain type='test'><name>alt</name><memory unit='MiB'>1024</memory><vcpu>%d</vcpu><cputune>" "$3"
		i=0
		while [ $i -lt "$3" ]; do printf "<vcpupin vcpu='%d' cpuset='%s'/>" $i "$4"; i=$((i + 1)); done
		printf "<emulatorpin cpuset='%s'/></cputune><metadata><v:consolidation xmlns:v='urn:vcpack:metadata:1' class='pack'/>%s</metadata>" "$4" "${5:-}"
		echo "<os><type>hvm</type></os></domain></node>"
	} >"$1"
}
every_other() { awk -v n="$1" 'BEGIN { for (c = 0; c < n; c += 2) printf "%s%d", (c ? "," : ""), c; print "" }'; }
ALT=$(every_other 8192)
t_eq "the list of every other CPU of 8,192 has 19,924 characters" 19924 "${#ALT}"
alt_host "$T_TMP/alt.xml" 8192 4 "$ALT"
A() { "$VCPACK" --connect "test://$T_TMP/alt.xml" --sample 0 --daemon-socket "$T_TMP/none.sock" --json "$@"; }
t_eq "every other CPU: list --json shows the 4 pins whole" "19924 19924 19924 19924" \
	"$(A list | jq -r '.[0].vcpu_pins|map(length)|join(" ")')"
t_eq "every other CPU: status --json shows the pins and emulator whole" "19924 19924" \
	"$(A status | jq -r '.vms[0]|"\(.pins[3]|length) \(.emulator|length)"')"
t_eq "every other CPU: explain --json shows them whole" 19924 "$(A explain alt | jq -r '.pins_now|length')"
js=$(A apply)
t_eq "every other CPU: apply: record and 5 pins done, from the whole list" "6 5" \
	"$(echo "$js" | jq -r --arg a "$ALT" '"\([.actions[]|select(.outcome=="done")]|length) \([.actions[]|select(.from==$a)]|length)"')"
REC="<s:original xmlns:s='urn:vcpack:state:1' version='1'><vcpu id='0' cpuset='$ALT'/><vcpu id='1' cpuset='$ALT'/><vcpu id='2' cpuset='$ALT'/><vcpu id='3' cpuset='$ALT'/><emulator cpuset='$ALT'/></s:original>"
alt_host "$T_TMP/alt-applied.xml" 8192 4 "0-1023,4096-5119" "$REC"
js=$("$VCPACK" --connect "test://$T_TMP/alt-applied.xml" --daemon-socket "$T_TMP/none.sock" --json restore 2>&1)
t_eq "every other CPU: restore reads the ~100 KB record back" "done true null" \
	"$(echo "$js" | jq -r '.restored[0]|"\(.outcome) \(.had_record) \(.message)"')"
alt_host "$T_TMP/alt26.xml" 16384 26 "$(every_other 16384)"
js=$("$VCPACK" --connect "test://$T_TMP/alt26.xml" --sample 0 --daemon-socket "$T_TMP/none.sock" --json apply 2>"$T_TMP/alt26.err")
t_eq "26 vCPUs on every other CPU of 16,384: apply exits 1" 1 $?
t_eq "26 vCPUs: no record written, no pin changed" "failed 0" \
	"$(echo "$js" | jq -r '"\(.actions[]|select(.action=="save-original")|.outcome) \([.actions[]|select(.outcome=="done")]|length)"')"
t_match "26 vCPUs: the record's size named" "record over the 1048576 bytes vcpack reads back; left as it is" \
	"$(echo "$js" | jq -r '.actions[]|select(.action=="save-original")|.message')"
t_match "26 vCPUs: and on stderr" "^vcpack: The original pins of 'alt' would take a record over" "$(cat "$T_TMP/alt26.err")"

# past 16,384 CPUs (libvirt's own limit for a cpumask; the test driver
# still reports such a host): the limit by name, everywhere
# but restore still puts VMs back (libvirt pins to no CPU past 16,383)
H=$T_TMP/host16392.xml
RECORD="<s:original xmlns:s='urn:vcpack:state:1' version='1'><vcpu id='0' cpuset='16383'/><vcpu id='1' cpuset='16376-16383'/><emulator cpuset='8000-16383'/></s:original>" \
	CPUS=0-1023 wide_host "$H" 2 4098 no
U="test://$H"
MSG="host has 16392 CPUs; vcpack supports at most 16384"
for cmd in list status plan apply; do
	out=$("$VCPACK" --connect "$U" --sample 0 --daemon-socket "$T_TMP/none.sock" $cmd 2>&1)
	t_eq "16,392 CPUs: $cmd exits 1" 1 $?
	t_match "$cmd names the limit" "^vcpack: .*$MSG" "$out"
done
js=$("$VCPACK" --connect "$U" --daemon-socket "$T_TMP/none.sock" --json restore 2>&1)
t_eq "16,392 CPUs: restore exits 0" 0 $?
t_eq "16,392 CPUs: restore puts the 3 VMs back to their records" "3 3" \
	"$(echo "$js" | jq -r '"\([.restored[]|select(.outcome=="done")]|length) \([.restored[]|select(.had_record)]|length)"')"
printf '{"hosts": [{"name": "huge", "uri": "%s"}]}\n' "$U" >"$T_TMP/fleet-huge.json"
out=$("$VCPACK" fleet --hosts "$T_TMP/fleet-huge.json" --wide status 2>&1)
t_match "16,392 CPUs: fleet status names the limit for the host" "huge .*$MSG" "$out"
t_enabled "$T_TMP/state-huge.json"
"$B/vcpackd" --log-stderr --connect "$U" --socket "$T_TMP/huge.sock" --state "$T_TMP/state-huge.json" \
	--policy "$T_TMP/policy.json" --restore-on-exit >"$T_TMP/huge.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
wait_log "$T_TMP/huge.log" "$MSG"
t_eq "16,392 CPUs: vcpackd logs the limit by name" 0 $?
kill "$DPID"; wait "$DPID" 2>/dev/null
t_match "16,392 CPUs: vcpackd --restore-on-exit restores the 3 VMs" \
	"restored 3 VMs to their original pins \(0 failed\)" "$(cat "$T_TMP/huge.log")"

t_done
