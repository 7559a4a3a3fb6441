#!/bin/sh
# test-hostile.sh BUILD_DIR - the real binaries on hostile input: daemon
# replies of the wrong shape, fleet files of the wrong shape, and (below)
# files that are not regular files. Expected everywhere: a clear error
# naming the input (for a daemon reply: refused naming what is wrong,
# exit 1, the CLI measuring itself), no crash, no hang.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
VCPACK=$B/vcpack
TWO="test://$top/tests/data/hosts/two-pkg.xml"
t_setup

# ---- vcpackd replies of the wrong shape: refused by name, exit 1;
# vcpack status measures itself ----
# fake_daemon SOCKET REPLY: answer every request with REPLY, then hang up.
fake_daemon() {
	rm -f "$1"
	perl -MIO::Socket::UNIX -e '
		my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $ARGV[0], Listen => 5) or die;
		while (my $c = $s->accept) { my $l = <$c>; print $c $ARGV[1]; close $c }
	' "$1" "$2" &
	FAKE_PID=$!
	T_PIDS="$T_PIDS $FAKE_PID"
	i=0; while [ ! -S "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }

sock=$T_TMP/fake.sock
n=0
for reply in '[1,2]' '"status"' 'not json' \
	"{\"connected\":true,\"uri\":\"$TWO\",\"last\":5}" \
	"{\"connected\":true,\"uri\":\"$TWO\",\"last\":{\"vms\":5}}" \
	"{\"connected\":true,\"uri\":\"$TWO\",\"last\":{\"vms\":{\"name\":\"latency\"}}}" \
	"{\"connected\":true,\"uri\":\"$TWO\",\"last\":{\"vms\":[5,null,{\"name\":3}]}}" \
	"{\"connected\":true,\"uri\":\"$TWO\",\"last\":{\"vms\":[{\"name\":\"latency\",\"demand\":0.5,\"delay\":\"x\"}]}}" \
	"{\"connected\":true,\"uri\":\"$TWO\",\"last\":{\"vms\":[{\"name\":\"latency\",\"demand\":{\"0\":1},\"delay\":[]}]}}"; do
	n=$((n + 1))
	fake_daemon "$sock" "$reply"
	out=$("$VCPACK" --connect "$TWO" --daemon-socket "$sock" status 2>&1)
	t_eq "daemon reply $n of the wrong shape: status exit 1" 1 $?
	t_match "daemon reply $n: refused by name" \
		"^vcpack: vcpackd's reply on .*fake.sock refused: (reply|status)" "$out"
	t_match "daemon reply $n: status still shows the host" "packages?" "$out"
	stop_fake
	# the same inside a version 1 reply: its members are checked
	fake_daemon "$sock" "{\"v\":1,\"ok\":true,\"status\":$reply}"
	out=$("$VCPACK" --connect "$TWO" --daemon-socket "$sock" status 2>&1)
	t_eq "daemon reply $n as a status: status exit 1" 1 $?
	t_match "daemon reply $n as a status: the member named" \
		"^vcpack: vcpackd's reply on .*fake.sock refused: (reply: not valid JSON|status: must be an object|status\.pid: missing)" "$out"
	t_match "daemon reply $n as a status: status still shows the host" "packages?" "$out"
	stop_fake
done

# ---- fleet files of the wrong shape: exit 2 naming the key ----
n=0
for f in '{}' '{"hosts": 5}' '{"hosts": {"uri": "test:///default"}}' \
	'{"hosts": [null]}' '{"hosts": [{"uri": "test:///default"}], "hosts": 5}'; do
	n=$((n + 1))
	printf '%s\n' "$f" >"$T_TMP/fleet$n.json"
	out=$("$VCPACK" fleet --hosts "$T_TMP/fleet$n.json" status 2>&1)
	t_eq "fleet file $n of the wrong shape: exit 2" 2 $?
	t_match "fleet file $n: file and key named" "fleet$n.json: .*hosts" "$out"
done

# ---- one tag parser, one answer: for every VM the hook refuses the start
# of exactly when vcpack reports it and leaves it untouched. libvirt keeps
# only the first element of a namespace in <metadata>, so two top-level
# <consolidation> elements never reach either through libvirt (the unit
# test feeds them to the shared function); nested ones and a namespace
# declared on <metadata> do.
python3 - "$top/tests/data/hosts/two-pkg.xml" >"$T_TMP/tags.xml" <<'PY'
import sys
s = open(sys.argv[1]).read()
low = '<vcpack:consolidation xmlns:vcpack="urn:vcpack:metadata:1" priority="low"/>'
nested = ('<vcpack:consolidation xmlns:vcpack="urn:vcpack:metadata:1" priority="low">'
          '<vcpack:consolidation priority="high"/></vcpack:consolidation>')
assert low in s
s = s.replace(low, nested)
s = s.replace('<metadata>\n      <vcpack:consolidation xmlns:vcpack="urn:vcpack:metadata:1" priority="normal"/>',
              '<metadata xmlns:vcpack="urn:vcpack:metadata:1">\n      <vcpack:consolidation priority="normal"/>')
print(s)
PY
TAGS="test://$T_TMP/tags.xml"
st=$("$VCPACK" --connect "$TAGS" --json status 2>/dev/null)
t_eq "tags: status exit 0" 0 $?
t_eq "tags: the nested tag is bad (batch untouched)" untouched \
	"$(echo "$st" | jq -r '.vms[]|select(.name=="batch")|.class')"
t_eq "tags: namespace on <metadata> read (normal1 balanced)" balanced \
	"$(echo "$st" | jq -r '.vms[]|select(.name=="normal1")|.class')"
t_eq "tags: each bad VM reported once" "badvalue batch" \
	"$(echo "$st" | jq -r '[.issues[].vm]|sort|join(" ")')"
# (the hook refuses only with strict_tags while vcpack is enabled)
echo '{"strict_tags": true}' >"$T_TMP/strict.json"
t_enabled "$T_TMP/enabled.state"
for vm in $(echo "$st" | jq -r '.vms[].name'); do
	virsh -c "$TAGS" dumpxml "$vm" >"$T_TMP/dom.xml"
	VCPACK_POLICY="$T_TMP/strict.json" VCPACK_STATE="$T_TMP/enabled.state" \
	VCPACK_SOCKET="$T_TMP/none.sock" \
		"$B/vcpack-hook" "$vm" prepare begin - <"$T_TMP/dom.xml" >/dev/null 2>&1
	hook=$([ $? = 1 ] && echo refused || echo starts)
	cli=$(echo "$st" | jq -r ".vms[]|select(.name==\"$vm\")|.class")
	cli=$([ "$cli" = untouched ] && echo refused || echo starts)
	t_eq "tags: '$vm': the hook and vcpack agree" "$hook" "$cli"
done

# ---- strict JSON: a duplicate key is named, not silently the last ----
printf '{"level": 5,\n "level": 1}\n' >"$T_TMP/dup.json"
out=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/dup.json" plan 2>&1)
t_eq "policy with a duplicate key: exit 2" 2 $?
t_match "policy duplicate key: named with its lines" "dup.json: level: duplicate key \(lines 1 and 2\)" "$out"
printf '{"level": 1, /* pack */ "headroom": 0.2}\n' >"$T_TMP/comment.json"
out=$("$VCPACK" --connect "$TWO" --policy "$T_TMP/comment.json" plan 2>&1)
t_eq "policy with a comment: exit 2" 2 $?
t_match "policy comment: named" "comment.json: not valid JSON at line 1: comments are not JSON" "$(t_unfold "$out")"

# ---- not regular files as policy and fleet file: refused at once by name ----
# (timeout: before the fix a FIFO blocked the reader forever)
mkfifo "$T_TMP/fifo.json"
mkdir "$T_TMP/dir.json"
for f in "$T_TMP/fifo.json" "$T_TMP/dir.json" /dev/zero; do
	out=$(timeout 20 "$VCPACK" --connect "$TWO" --policy "$f" plan 2>&1)
	t_eq "policy $f: exit 2 (no hang)" 2 $?
	t_match "policy $f: named, not a regular file" "$f: not a regular file" "$out"
	out=$(timeout 20 "$VCPACK" fleet --hosts "$f" status 2>&1)
	t_eq "fleet file $f: exit 2 (no hang)" 2 $?
	t_match "fleet file $f: named, not a regular file" "$f: not a regular file" "$out"
done
# the hook reads the policy (for strict_tags) and vcpackd's state file
# (is vcpack enabled?) when a tag is bad: a FIFO there must not stall the
# VM's start; lenient is the default
HOOK=$B/vcpack-hook
bad="<domain type='kvm'><name>vm1</name><metadata><vcpack:consolidation xmlns:vcpack='urn:vcpack:metadata:1' priority='urgent'/></metadata></domain>"
out=$(echo "$bad" | VCPACK_POLICY="$T_TMP/fifo.json" VCPACK_SOCKET="$T_TMP/none.sock" \
	timeout 20 "$HOOK" vm1 prepare begin - 2>&1)
t_eq "hook, policy a FIFO, bad tag: starts as lenient (no hang)" 0 $?
t_match "hook, policy a FIFO: named" "ignoring policy .*fifo.json: not a regular file \(a FIFO\)" "$out"
out=$(echo "$bad" | VCPACK_POLICY="$T_TMP/strict.json" VCPACK_STATE="$T_TMP/fifo.json" \
	VCPACK_SOCKET="$T_TMP/none.sock" timeout 20 "$HOOK" vm1 prepare begin - 2>&1)
t_eq "hook, state file a FIFO, bad tag: starts, not enabled (no hang)" 0 $?
t_match "hook, state file a FIFO: says why it starts" "vcpack is not enabled" "$out"

t_done
