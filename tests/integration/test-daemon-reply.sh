#!/bin/sh
# test-daemon-reply.sh BUILD_DIR - vcpack checks every member of every
# vcpackd reply it uses (docs/protocol.md): a fake vcpackd on a private
# UNIX socket (a small python server; its reply is the file it is told,
# read for each request) answers status, level and pause. A good reply is
# shown (exit 0); a reply with a string pid, level 9, "-5 of
# 9223372036854775807 packages" or another bad member is refused naming
# the member, and status, level, pause, verify and apply exit non-zero
# without showing it. The fake server is stopped by its pid.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
t_setup
U=test:///default
SOCK=$T_TMP/fake.sock
R=$T_TMP/reply.json

cat >"$T_TMP/faked.py" <<'PY'
import json, socket, sys
path, reply = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(8)
while True:
    c, _ = s.accept()
    f = c.makefile("rwb")
    try:
        for line in f:
            if b'"replan"' in line:
                f.write(b'{"v":1,"ok":true,"replans":1}\n')
            elif line.strip() == b"status":  # version 0: the object alone
                with open(reply, "rb") as r:
                    st = json.loads(r.read()).get("status")
                f.write(json.dumps(st).encode() + b"\n")
            else:
                with open(reply, "rb") as r:
                    f.write(r.read().strip() + b"\n")
            f.flush()
    except OSError:
        pass
    c.close()
PY
python3 "$T_TMP/faked.py" "$SOCK" "$R" >"$T_TMP/faked.log" 2>&1 &
T_PIDS="$T_PIDS $!"
i=0; until [ -S "$SOCK" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done

# status REPLACEMENTS: a vcpackd status reply, good unless jq changes it
# (jq holds numbers as doubles: "HUGE" becomes 2^63-1 written out by sed)
status() {
	jq -c "$1" <<'JSON' | sed 's/"HUGE"/9223372036854775807/g' >"$R"
{"v":1,"ok":true,"status":{"pid":4321,"uri":"test:///default",
 "connected":true,"mode":"pin","mode_reason":"test driver","replans":3,
 "level":"2","level_reason":"the policy's level","enabled":true,
 "enabled_reason":"enabled with 'vcpack enable'",
 "control":{"enabled":true,"enabled_since":1,"level":null,
            "level_since":null,"paused":false,"paused_since":null},
 "state_file":"/var/lib/vcpack/state.json",
 "last":{"at":1700000000,"level":2,"active":1,"packages":2,
         "carried_out":false,"changes":0,"level_reason":"the level as configured",
         "plan":{"level":2,"vms":[{"name":"test","placement":"gathered",
                 "vcpus":["0-7","0-7"]}]},
         "vms":[{"name":"test","demand":[0.25,null],"delay":null,
                 "relieved":false}]}}}
JSON
}
V() { "$B/vcpack" --connect "$U" --daemon-socket "$SOCK" "$@"; }

# a good reply: shown, exit 0
status .
out=$(V level 2 2>&1); rc=$?
t_eq "good reply: level exit 0" 0 $rc
t_match "good reply: level prints vcpackd's" "^vcpackd \(pid 4321\): enabled with 'vcpack enable'; level 2" "$out"
out=$(V pause 2>&1); rc=$?
t_eq "good reply: pause exit 0" 0 $rc
out=$(V status 2>&1); rc=$?
t_eq "good reply: status exit 0" 0 $rc
t_match "good reply: status shows vcpackd" "vcpackd: running \(pid 4321\)" "$out"
t_match "good reply: its plan" "level 2, 1 of 2 packages active" "$out"

# the reply of the report: string pid, level 9, -5 of INT64_MAX packages
status '.status.pid = "4321" | .status.level = "9" | .status.last.level = 9 | .status.last.active = -5 | .status.last.packages = "HUGE"'
for cmd in "level 1" pause resume status "--json status" verify; do
	out=$(V $cmd 2>&1); rc=$?
	t_eq "bad reply: $cmd exits non-zero" 1 $rc
	t_match "bad reply: $cmd names the member" \
		"vcpackd's reply on .*fake.sock.* refused: status\.pid: must be an integer 1\.\.2147483647, got \"4321\"" "$out"
	t_nomatch "bad reply: $cmd does not show it" "9223372036854775807|-5 of|pid 4321" "$out"
done

# vcpackd in scx mode says so
status '.status.mode = "scx"'
out=$(V level 2 2>&1); rc=$?
t_eq "good reply in scx mode: level exit 0" 0 $rc

# one bad member at a time, each named
bad() { # WHAT JQ MEMBER-PATTERN
	status "$2"
	out=$(V level 1 2>&1); rc=$?
	t_eq "bad reply ($1): level exits 1" 1 $rc
	t_match "bad reply ($1): named" "refused: status\.$3" "$out"
	out=$(V status 2>&1); rc=$?
	t_eq "bad reply ($1): status exits 1" 1 $rc
	t_match "bad reply ($1): status names it" "refused: status\.$3" "$out"
}
bad "level 9" '.status.level = "9"' 'level: must be "0", "1", "2" or "auto", got "9"'
bad "last.level 9" '.status.last.level = 9' 'last\.level: must be an integer 0\.\.2, got 9'
bad "active -5" '.status.last.active = -5' 'last\.active: must be an integer 0\.\.2 \(its packages\), got -5'
bad "packages huge" '.status.last.packages = "HUGE"' 'last\.packages: must be an integer 1\.\.[0-9]+, got 9223372036854775807'
bad "mode" '.status.mode = "turbo"' 'mode: must be "pin", "kernel" or "scx", got "turbo"'
bad "connected" '.status.connected = "yes"' 'connected: must be true or false, got "yes"'
bad "replans" '.status.replans = -1' 'replans: must be an integer 0\.\.[0-9]+, got -1'
bad "paused" '.status.control.paused = 1' 'control: paused: must be true or false, got 1'
bad "enabled_reason" '.status.enabled_reason = 5' 'enabled_reason: must be a string, got 5'
bad "no uri" 'del(.status.uri)' 'uri: missing'
bad "demand" '.status.last.vms[0].demand[0] = -0.5' 'last\.vms\[0\]\.demand\[0\]: must be null or a number 0\.\.[0-9e+.]+, got -0\.5'
bad "plan vcpus" '.status.last.plan.vms[0].vcpus[0] = "0-zz"' 'last\.plan\.vms\[0\]\.vcpus\[0\]: must be null or a CPU list, got "0-zz"'
bad "changes" '.status.last.changes = "many"' 'last\.changes: must be an integer 0\.\.[0-9]+, got "many"'

# trial asks vcpackd (version 0) whether it manages the host: a good
# reply for this URI refuses the trial, a bad one is refused by name
top=$(cd "$here/../.." && pwd)
T() { V --sample 0 --power-root "$top/tests/data/power/intel-2s/t0" trial --rounds 2 --window 2 --settle 0.2 --sample 0.2 --state "$T_TMP/r.json"; }
status .
out=$(T 2>&1); rc=$?
t_eq "good reply: trial refused, exit 2" 2 $rc
t_match "good reply: trial names vcpackd" "vcpackd \(pid 4321\) manages this host" "$out"
status '.status.pid = "4321"'
out=$(T 2>&1); rc=$?
t_eq "bad reply: trial exits 1" 1 $rc
t_match "bad reply: trial names the member" \
	"refusing the trial: vcpackd's reply on .*fake.sock refused: status\.pid: must be an integer" "$out"
t_eq "bad reply: trial records nothing" no "$([ -e "$T_TMP/r.json" ] && echo yes || echo no)"

# apply asks vcpackd whether it manages the host: a bad reply is no answer
status '.status.last.active = -5'
out=$(V apply 2>&1); rc=$?
t_eq "bad reply: apply exits non-zero" 1 $rc
t_match "bad reply: apply names it and changes nothing" \
	"refusing to apply: vcpackd's reply on .* refused: status\.last\.active" "$out"

t_done
