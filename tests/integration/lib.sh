# lib.sh - shared helpers for vcpack's shell integration tests (POSIX sh).
#
# Assertions count into PASS/FAIL; t_done prints the closing
# "N passed, N failed" line and exits non-zero on failure. A private
# libvirtd running the test driver (so that several vcpack processes see
# the same test:///default state) is started under an unprivileged user
# with its own runtime dirs and socket, and stopped by its pid on exit -
# also when a test fails. Nothing outside the test's temp dir is touched.

# vcpack lays its text out for COLUMNS when set (vcpack(1)): unset, the
# output the tests read through pipes is the fixed 100 columns wherever
# the suite runs; a test that wants a width sets it for one command.
unset COLUMNS

PASS=0
FAIL=0
T_NAME=${T_NAME:-$(basename "$0" .sh)}
T_TMP=""
T_PIDS=""
T_SHORT=""
LVD_BASE=""

t_pass() { PASS=$((PASS + 1)); echo "ok $PASS - $*"; }
t_fail() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }

# t_eq WHAT EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then t_pass "$1"; else
		t_fail "$1: expected '$2', got '$3'"; fi
}

# t_match WHAT PATTERN TEXT (grep -E)
t_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then t_pass "$1"; else
		t_fail "$1: no match for /$2/ in:"; printf '%s\n' "$3" | sed 's/^/    /'; fi
}

t_nomatch() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		t_fail "$1: unexpected match for /$2/ in:"; printf '%s\n' "$3" | sed 's/^/    /'
	else t_pass "$1"; fi
}

t_cleanup() {
	for p in $T_PIDS; do
		kill "$p" 2>/dev/null
		kill -CONT "$p" 2>/dev/null	# a test may have stopped it
	done
	for p in $T_PIDS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1; i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	T_PIDS=""
	[ -n "$T_TMP" ] && [ -z "${VCP_KEEP_TMP:-}" ] && rm -rf "$T_TMP"
	[ -n "$T_SHORT" ] && [ -z "${VCP_KEEP_TMP:-}" ] && rm -rf "$T_SHORT"
}

t_setup() {
	T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/vcpack-$T_NAME.XXXXXX")
	chmod 755 "$T_TMP"
	trap t_cleanup EXIT
	trap 'exit 130' INT TERM HUP PIPE
}

t_done() {
	echo "$T_NAME: $PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}

# The directory the private libvirtds live in (sets LVD_BASE once): $T_TMP
# when the UNIX socket paths they make under it fit, else a short one under
# /tmp, said on stdout and removed by t_cleanup. A socket path holds at
# most 107 bytes (sun_path); the longest is QEMU's monitor socket,
# BASE/NAME/home/.config/libvirt/qemu/lib/domain-ID-GUEST/monitor.sock:
# 86 bytes after BASE with NAME up to 8 characters, ID up to 5 and GUEST
# cut to 20 (libvirt cuts it so). A daemon without guests (LVD_PROBE not
# qemu) needs 41: BASE/NAME/run/libvirt/virtlogd-admin-sock.
lvd_base() {
	[ -n "$LVD_BASE" ] && return 0
	case ${LVD_PROBE:-} in
	qemu*) need=86 ;;
	*) need=41 ;;
	esac
	if [ $((${#T_TMP} + need)) -le 107 ]; then
		LVD_BASE=$T_TMP
		return 0
	fi
	T_SHORT=$(mktemp -d /tmp/vcp.XXXXXX) || return 1
	chmod 755 "$T_SHORT"
	LVD_BASE=$T_SHORT
	echo "# libvirtd dirs in $LVD_BASE: $T_TMP is ${#T_TMP} characters, and $need more would pass the 107 of a UNIX socket path"
}

# Start a private session libvirtd, NAME to tell several apart (default
# "libvirtd"). It serves the test driver and, as qemu:///session, real
# QEMU guests (LVD_PROBE=qemu+unix:///session to wait for that driver).
# Sets LVD_SOCK, LVD_PID and LVD_RUN (its XDG_RUNTIME_DIR); its files are
# in $LVD_BASE/NAME (lvd_base).
start_libvirtd() {
	lvd_base || return 1
	d=$LVD_BASE/${1:-libvirtd}
	mkdir -p "$d/run" "$d/home"
	run=""
	if [ "$(id -u)" = 0 ]; then
		chown -R nobody "$d"
		run="runuser -u nobody --"
	fi
	$run env -i PATH="$PATH" HOME="$d/home" XDG_RUNTIME_DIR="$d/run" \
		XDG_CONFIG_HOME="$d/home/.config" XDG_CACHE_HOME="$d/home/.cache" \
		libvirtd --daemon --pid-file "$d/run/libvirtd.pid" --timeout 0 \
		>"$d/libvirtd.log" 2>&1
	i=0
	while [ ! -s "$d/run/libvirtd.pid" ] || [ ! -S "$d/run/libvirt/libvirt-sock" ]; do
		i=$((i + 1))
		if [ $i -gt 200 ]; then
			echo "libvirtd did not start:"; cat "$d/libvirtd.log"; return 1
		fi
		sleep 0.1
	done
	LVD_PID=$(cat "$d/run/libvirtd.pid")
	T_PIDS="$T_PIDS $LVD_PID"
	LVD_SOCK=$d/run/libvirt/libvirt-sock
	LVD_RUN=$d/run
	i=0
	# the first start of the QEMU driver probes QEMU: up to ~10 s
	until virsh -q -c "${LVD_PROBE:-test+unix:///default}?socket=$LVD_SOCK" uri >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -gt 300 ] && { echo "libvirtd does not answer"; cat "$d/libvirtd.log"; return 1; }
		sleep 0.1
	done
}

# power_script NAME [NOTE]: $T_TMP/NAME, a power command for the fleet
# file's standby/wake_command that records "ACTION HOST ARG[ NOTE]" in
# $T_TMP/asked ($VCPACK_ACTION, $VCPACK_HOST, its first argument), then
# runs the shell text on its stdin ($1: that argument).
power_script() {
	{
		echo '#!/bin/sh'
		echo "echo \"\$VCPACK_ACTION \$VCPACK_HOST \$1${2:+ $2}\" >>\"$T_TMP/asked\""
		cat
	} >"$T_TMP/$1" && chmod +x "$T_TMP/$1"
}

# Keep a connection to URI open (the test driver keeps test:///default's
# state only while someone holds it).
hold_connection() {
	virsh -c "$1" event --all --loop >>"$T_TMP/hold.log" 2>&1 &
	T_PIDS="$T_PIDS $!"
	i=0
	until virsh -q -c "$1" list >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -gt 50 ] && return 1; sleep 0.1
	done
	sleep 0.3
}

# t_test_libvirtd [NAME...]: the usual set-up of a test on libvirt's
# test driver: t_setup (unless done), then a private libvirtd
# (start_libvirtd) with a connection held to its test:///default. With
# no NAME: one, U set to its URI and SOCK to where the test's own
# vcpackd, if it starts one, listens. With NAMEs: one libvirtd per NAME,
# U_NAME its URI and PID_NAME its pid. On failure the test fails and
# ends here.
t_test_libvirtd() {
	[ -n "$T_TMP" ] || t_setup
	if [ $# -eq 0 ]; then
		t_test_libvirtd_one ""
		U=$T_URI
		SOCK=$T_TMP/run/vcpackd.sock
		return 0
	fi
	for _tl_h; do
		t_test_libvirtd_one "$_tl_h"
		eval "U_$_tl_h=\$T_URI PID_$_tl_h=\$LVD_PID"
	done
}

# t_test_libvirtd_one NAME: one of t_test_libvirtd's; its URI in T_URI.
t_test_libvirtd_one() {
	start_libvirtd "$1" ||
		{ t_fail "start libvirtd${1:+ $1}"; t_done; exit 1; }
	T_URI="test+unix:///default?socket=$LVD_SOCK"
	hold_connection "$T_URI" ||
		{ t_fail "hold a connection${1:+ to $1}"; t_done; exit 1; }
}

# t_vcpack ARG...: the built vcpack on $U, asking the vcpackd at $SOCK
# (the test's own, or none: never the machine's). V is t_vcpack with the
# policy of t_policy, if any, unless a test defines its own V.
t_vcpack() { "$B/vcpack" --connect "$U" --daemon-socket "$SOCK" "$@"; }
V() { t_vcpack ${T_POLICY:+--policy "$T_POLICY"} "$@"; }

# t_enabled FILE: a vcpackd state file (--state FILE) that says what
# 'vcpack enable' says: vcpackd carries out its plan (until enabled it
# observes and plans only).
t_enabled() { printf '{"enabled": true, "enabled_since": 0}\n' >"$1"; }

# t_policy JSON: the policy file $T_TMP/policy.json (T_POLICY), which V
# passes with --policy.
t_policy() {
	T_POLICY=$T_TMP/policy.json
	printf '%s\n' "$1" >"$T_POLICY"
}

# dom_xml NAME VCPUS [TAG-ATTRS [EXTRA]]: write $T_TMP/NAME.xml, a
# test-driver domain of VCPUS vCPUs and DOM_MEM KiB (default 1 GiB),
# tagged <consolidation TAG-ATTRS/> when TAG-ATTRS is not empty, with the
# XML EXTRA (a <numatune>, say) after its <vcpu>.
dom_xml() {
	_dx_meta=""
	[ -n "${3:-}" ] &&
		_dx_meta="<metadata><v:consolidation xmlns:v='urn:vcpack:metadata:1' $3/></metadata>"
	printf "<domain type='test'><name>%s</name><memory>%s</memory><vcpu>%s</vcpu>%s%s<os><type>hvm</type></os></domain>\n" \
		"$1" "${DOM_MEM:-1048576}" "$2" "${4:-}" "$_dx_meta" >"$T_TMP/$1.xml"
}

# dom_define URI NAME VCPUS [TAG-ATTRS [EXTRA]]: dom_xml, defined on URI.
dom_define() {
	_dd_uri=$1
	shift
	dom_xml "$@" && virsh -q -c "$_dd_uri" define "$T_TMP/$1.xml" >/dev/null
}

# dom_start URI NAME VCPUS [TAG-ATTRS [EXTRA]]: defined and started.
dom_start() {
	dom_define "$@" && virsh -q -c "$1" start "$2" >/dev/null
}

# t_unfold TEXT: TEXT with the lines vcpack folded to 100 columns joined
# again (a line and the lines after it indented further, one space
# between), to match a message whole as --wide would print it
t_unfold() {
	printf '%s\n' "$1" | awk '{ match($0, /^ */); ind = RLENGTH
		if (NR > 1 && ind > base) { buf = buf " " substr($0, ind + 1); next }
		if (NR > 1) print buf
		buf = $0; base = ind }
		END { if (NR) print buf }'
}
