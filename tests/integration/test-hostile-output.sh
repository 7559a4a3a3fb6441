#!/bin/sh
# test-hostile-output.sh BUILD_DIR - no outside string drives the
# operator's terminal or forges a log line: VM names with ESC (a
# screen-clearing and a title-setting sequence), CR, LF, TAB, DEL and a
# C1 CSI (U+009B) on libvirt's test driver (XML takes TAB, CR, DEL and
# C1 in a <name>; LF, ESC and BEL come by virsh domrename, which libvirt
# lets through, but a VM whose name holds ESC or BEL cannot start: its
# XML no longer parses; those are shut off, for list --all), fleet host names with the same, a power_command that
# writes escape sequences and a raw 8-bit CSI to its stderr, a fleet
# state file whose why/last_action hold them. list, status, plan,
# apply, explain, restore, an error naming such a VM, fleet status,
# fleet run and vcpackd's log (stderr) are read byte by byte: no control
# byte but the newline, no C1, only valid UTF-8; and the escaped form is
# there (\e, \r, \t, \x7f, \xc2\x9b, \x07). --json stays JSON that
# parses back to the names as they are, with DEL and C1 as \u escapes.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
t_test_libvirtd

# t_clean WHAT FILE: FILE is UTF-8 with no control character but '\n'
t_clean() {
	why=$(python3 - "$2" <<'EOF'
import sys
b = open(sys.argv[1], 'rb').read()
try:
    s = b.decode('utf-8')
except UnicodeDecodeError as e:
    print('not UTF-8 at byte %d: %r' % (e.start, b[max(0, e.start - 20):e.start + 20]))
    sys.exit(0)
for i, c in enumerate(s):
    o = ord(c)
    if (o < 0x20 and c != '\n') or 0x7f <= o < 0xa0:
        print('U+%04X at %d: %r' % (o, i, s[max(0, i - 30):i + 30]))
        break
EOF
)
	if [ -z "$why" ]; then t_pass "$1: no control character"
	else t_fail "$1: $why"; fi
}
# t_has WHAT FILE STRING: FILE holds STRING (fixed string)
t_has() {
	# (echo, in t_pass, reads backslashes: doubled for it)
	if grep -qF -- "$3" "$2"; then
		t_pass "$1: shows $(printf '%s' "$3" | sed 's/\\/\\\\/g')"
	else
		t_fail "$1: not shown as wanted"
		printf '    wanted: %s\n' "$3"
		sed 's/^/    /' "$2" | cat -v
	fi
}
O=$T_TMP/out

# ---- the domains ----
xdom() { # NAME-AS-XML-TEXT FILE
	printf "<domain type='test'><name>%s</name><memory>1048576</memory><vcpu>2</vcpu><os><type>hvm</type></os></domain>\n" "$1" >"$2"
	virsh -q -c "$U" define "$2" >/dev/null
}
xdom 'tab&#x9;vm' "$T_TMP/d1.xml"
xdom 'cr&#xD;vm' "$T_TMP/d2.xml"
xdom 'del&#x7f;vm' "$T_TMP/d3.xml"
xdom 'csi&#x9b;2Jvm' "$T_TMP/d4.xml"
xdom 'esc-to-be' "$T_TMP/d5.xml"
xdom 'title-to-be' "$T_TMP/d6.xml"
xdom 'lf-to-be' "$T_TMP/d7.xml"
ESC_VM=$(printf 'esc\033[2J\033[Hvm')
TITLE_VM=$(printf 'title\033]0;PWNED\007vm')
LF_VM=$(printf 'lf\nvm')
virsh -q -c "$U" domrename esc-to-be "$ESC_VM" >/dev/null
virsh -q -c "$U" domrename title-to-be "$TITLE_VM" >/dev/null
virsh -q -c "$U" domrename lf-to-be "$LF_VM" >/dev/null
n=0
for d in "$(printf 'tab\tvm')" "$(printf 'cr\rvm')" "$(printf 'del\177vm')" \
	"$(printf 'csi\302\2332Jvm')" "$LF_VM"; do
	if virsh -q -c "$U" start "$d" >"$T_TMP/start.err" 2>&1; then
		n=$((n + 1))
	else printf "# cannot start %s: " "$d" | cat -v; cat -v "$T_TMP/start.err"; fi
done
t_eq "five VMs with control characters in their names started" 5 $n
t_policy '{"level": 2}'

# ---- the CLI on them ----
esc_shown() { # WHAT FILE: the running VMs' names
	t_has "$1" "$2" 'tab\tvm'
	t_has "$1" "$2" 'cr\rvm'
	t_has "$1" "$2" 'lf\nvm'
	t_has "$1" "$2" 'del\x7fvm'
	t_has "$1" "$2" 'csi\xc2\x9b2Jvm'
}
V list --all --wide >"$O.list" 2>&1
t_clean "list --all" "$O.list"
esc_shown "list --all --wide" "$O.list"
t_has "list --all --wide" "$O.list" 'esc\e[2J\e[Hvm'
t_has "list --all --wide" "$O.list" 'title\e]0;PWNED\x07vm'
V list --name >"$O.names" 2>&1
t_clean "list --name" "$O.names"
t_has "list --name" "$O.names" 'lf\nvm'
V list >"$O.list-cut" 2>&1
t_clean "list (cut to 100 columns)" "$O.list-cut"
t_has "list (cut)" "$O.list-cut" 'tab\tvm'

V --sample 0 status --wide >"$O.status" 2>&1
t_clean "status --wide" "$O.status"
esc_shown "status --wide" "$O.status"
V --sample 0 status >"$O.status-cut" 2>&1
t_clean "status" "$O.status-cut"
w=$(LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$O.status-cut")
if [ "$w" -le 100 ]; then t_pass "status: every line within 100 columns, escaped names counted ($w)"
else t_fail "status: lines of $w columns"; fi

V --sample 0 plan --wide >"$O.plan" 2>&1
t_clean "plan --wide" "$O.plan"
esc_shown "plan --wide" "$O.plan"
V --sample 0 plan >"$O.plan-cut" 2>&1
t_clean "plan" "$O.plan-cut"

V --sample 0 explain "$LF_VM" >"$O.explain" 2>&1
t_clean "explain" "$O.explain"
t_has "explain" "$O.explain" 'lf\nvm'
V --sample 0 explain "$ESC_VM" >"$O.explain-off" 2>&1
t_clean "explain of a shut-off VM" "$O.explain-off"
t_has "explain of a shut-off VM" "$O.explain-off" 'esc\e[2J\e[Hvm'
V --sample 0 explain "$(printf 'no\033[2Jsuch')" >"$O.explain-none" 2>&1
t_clean "explain of a VM not there (the error line)" "$O.explain-none"
t_has "explain of a VM not there" "$O.explain-none" 'no\e[2Jsuch'

V tag "$(printf 'gone\033]0;X\007')" --priority high >"$O.tag" 2>&1
t_clean "tag of a VM not there (libvirt's error)" "$O.tag"
t_has "tag of a VM not there" "$O.tag" 'gone\e]0;X\x07'

V --sample 0 apply --wide >"$O.apply" 2>&1
t_clean "apply --wide" "$O.apply"
esc_shown "apply --wide" "$O.apply"
V restore --wide >"$O.restore" 2>&1
t_clean "restore --wide" "$O.restore"
t_has "restore" "$O.restore" 'csi\xc2\x9b2Jvm'
V restore "$LF_VM" >"$O.restore1" 2>&1
t_clean "restore VM" "$O.restore1"

# a VM with a bad tag: the issue line names it
virsh -q -c "$U" metadata "$LF_VM" urn:vcpack:metadata:1 --key vcpack \
	--set "<consolidation priority='urgent'/>" >/dev/null 2>&1
V --sample 0 status >"$O.badtag" 2>&1
t_clean "status with a bad tag on such a VM" "$O.badtag"
t_has "status, bad tag" "$O.badtag" 'lf\nvm'

# --json: still JSON, the names back as they are
V --json list --all >"$O.json" 2>/dev/null
t_clean "list --json" "$O.json"
t_eq "list --json: the names parse back whole" \
	"$(printf 'csi\302\2332Jvm|del\177vm|%s|%s' "$ESC_VM" "$TITLE_VM")" \
	"$(jq -r '[.[].name | select(test("^(csi|del|esc|title)"))] | sort | join("|")' "$O.json")"
t_has "list --json: DEL as \\u007f" "$O.json" 'del\u007fvm'
t_has "list --json: C1 as \\u009b" "$O.json" 'csi\u009b2Jvm'

# ---- vcpackd's log ----
t_enabled "$T_TMP/state.json"
"$B/vcpackd" --log-stderr --connect "$U" --socket "$SOCK" \
	--state "$T_TMP/state.json" --policy "$T_POLICY" >"$O.log" 2>&1 &
DPID=$!
T_PIDS="$T_PIDS $DPID"
i=0
until grep -q "^vm 'lf" "$O.log" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
# status as vcpackd measured it (its reply's names)
V status --wide >"$O.dstatus" 2>&1
t_clean "status through vcpackd" "$O.dstatus"
t_has "status through vcpackd" "$O.dstatus" "vcpackd: running"
esc_shown "status through vcpackd" "$O.dstatus"
kill "$DPID"
i=0
while kill -0 "$DPID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t_clean "vcpackd's log" "$O.log"
t_has "vcpackd's log" "$O.log" "vm 'lf\\nvm'"
t_has "vcpackd's log" "$O.log" "vm 'cr\\rvm'"

# ---- the fleet ----
mkdir -p "$T_TMP/bin"
cat >"$T_TMP/bin/pw-evil" <<'EOF'
#!/bin/sh
printf 'reading\033]0;PWNED\007\033[2J\033[H\t\233 2J\r\n' >&2
exit 3
EOF
chmod +x "$T_TMP/bin/pw-evil"
cat >"$T_TMP/fleet.json" <<JSON
{"hosts": [
  {"uri": "$U", "name": "h\u001b[2J1", "power_command": ["$T_TMP/bin/pw-evil"]},
  {"uri": "$U&x=2", "name": "h2\r\u007f\u009b\t"}],
 "standby": {"hosts": {"h2\r\u007f\u009b\t": {"action": "command",
   "standby_command": ["true"], "wake_command": ["true"]}}}}
JSON
cat >"$T_TMP/fstate.json" <<JSON
{"version": 1, "below_since": null, "above_since": null, "last_wake": null,
 "hosts": [{"name": "h\u001b[2J1", "power": "on", "since": null, "why": null,
            "capacity": 2, "packages": 2, "moves": [], "last_action": null, "output": null},
           {"name": "h2\r\u007f\u009b\t", "power": "failed", "since": 1796280000,
            "why": "wake failed\u001b]0;PWNED\u0007\r", "capacity": 2, "packages": 2, "moves": [],
            "last_action": "wake: command true\u001b[2J: exit 1", "output": null}]}
JSON
F() { "$VCPACK" fleet --hosts "$T_TMP/fleet.json" --state "$T_TMP/fstate.json" "$@"; }
F --sample 0 status --wide >"$O.fleet" 2>&1
t_clean "fleet status --wide" "$O.fleet"
t_has "fleet status: the host name" "$O.fleet" 'h\e[2J1'
t_has "fleet status: the other host name" "$O.fleet" 'h2\r\x7f\xc2\x9b\t'
t_has "fleet status: the power_command's stderr" "$O.fleet" 'reading\e]0;PWNED\x07\e[2J\e[H\t\x9b 2J'
t_has "fleet status: the state's why" "$O.fleet" 'wake failed\e]0;PWNED\x07\r'
F --sample 0 status >"$O.fleet-cut" 2>&1
t_clean "fleet status" "$O.fleet-cut"
F --json --sample 0 status >"$O.fleet-json" 2>/dev/null
t_clean "fleet status --json" "$O.fleet-json"
t_eq "fleet status --json: the host names parse back" \
	"$(printf 'h\033[2J1|h2\r\177\302\233\t')" \
	"$(jq -r '[.hosts[].name] | join("|")' "$O.fleet-json")"
F --sample 0 run --rounds 1 >"$O.run" 2>&1
t_clean "fleet run --rounds 1" "$O.run"
F clear "$(printf 'h2\r\177\302\233\t')" >"$O.clear" 2>&1
t_clean "fleet clear" "$O.clear"

# ---- the hook ----
printf "<domain type='kvm'><name>x</name><metadata><vcpack:consolidation xmlns:vcpack='urn:vcpack:metadata:1' priority='urgent'/></metadata></domain>" |
	VCPACK_POLICY=/nonexistent VCPACK_STATE=/nonexistent "$B/vcpack-hook" "$ESC_VM" prepare begin - >"$O.hook" 2>&1
t_clean "the hook's message" "$O.hook"
t_has "the hook's message" "$O.hook" "VM 'esc\\e[2J\\e[Hvm'"
# its fix hint: one bash word that gives the name back
word=$(sed -n "s/.*Fix it with: virsh metadata \(\$'[^ ]*'\) --uri .*/\1/p" "$O.hook")
t_eq "the hook's fix hint: bash's \$'...' word for the name" "$ESC_VM" \
	"$(bash -c "printf '%s' $word")"

t_done
