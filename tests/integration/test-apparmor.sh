#!/bin/sh
# test-apparmor.sh BUILD_DIR - the qemu hook runs under the AppArmor
# profiles that confine libvirt's daemons: Debian 12's and 13's libvirtd
# profile and upstream libvirt's libvirtd and virtqemud ones (Ubuntu
# 24.04 builds its profiles from those), kept in tests/data/apparmor/
# with where each came from, and the machine's own
# /etc/apparmor.d/usr.sbin.libvirtd where libvirt-daemon-system put one.
# For each, apparmor_parser (Debian's apparmor package) compiles the
# profile with the abstractions and tunables it includes, from a private
# base directory (nothing under /etc/apparmor.d is read by the parser or
# changed), and aaexec.py takes the exec rules of its expansion (-p) and
# shows that the file libvirtd executes for the hook - the installed
# /etc/libvirt/hooks/qemu.d/vcpack with symlinks resolved, as AppArmor
# judges it - is allowed, with which mode, and, when the hook inherits
# the daemon's profile, that the profile lets it read the policy and
# vcpackd's state, map its libraries and reach vcpackd's socket. No
# AppArmor kernel is needed (none is on these machines): nothing is
# loaded; what is checked is the policy, not a VM start under it.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
AAP=$(command -v apparmor_parser || echo /usr/sbin/apparmor_parser)
if [ ! -x "$AAP" ]; then
	echo "SKIP: apparmor_parser missing (Debian's apparmor package; scripts/deps.sh installs it)"
	echo "test-apparmor: $PASS passed, $FAIL failed, 1 skipped"
	exit 0
fi
command -v python3 >/dev/null || { t_fail "python3 missing (scripts/deps.sh)"; t_done; exit 1; }
AAX="python3 $here/aaexec.py"

# The private base: the abstractions, tunables and abi files of Debian's
# apparmor package (copied from where it installed them), and an empty
# local/ override for each profile, as libvirt-daemon-system's postinst
# makes one (Debian 12's profile includes it unconditionally).
BASE=$T_TMP/apparmor.d
mkdir -p "$BASE/local"
dpkg -L apparmor 2>/dev/null |
	grep -E '^/etc/apparmor\.d/(abstractions|tunables|abi)/' |
	while read -r f; do
		r=$BASE/${f#/etc/apparmor.d/}
		if [ -d "$f" ]; then mkdir -p "$r"; continue; fi
		[ -f "$f" ] || continue
		mkdir -p "$(dirname "$r")"
		cp "$f" "$r"
	done
t_match "the apparmor package's abstractions in the private base" \
	'^abstractions/base$' "$(cd "$BASE" && ls -d abstractions/base tunables/global 2>&1)"
: >"$BASE/local/usr.sbin.libvirtd"
: >"$BASE/local/usr.sbin.virtqemud"

# the install under test: the package's prefix and make's default one
for prefix in /usr /usr/local; do
	D=$T_TMP/root$(echo "$prefix" | tr / _)
	make -s -C "$top" B="$B" install install-hooks PREFIX="$prefix" \
		DESTDIR="$D" >"$T_TMP/install.log" 2>&1
	t_eq "make install install-hooks PREFIX=$prefix: exit 0" 0 $?
done
# resolve ROOT PATH: PATH under ROOT with its symlinks followed as they
# would be on the installed system (an absolute target is under ROOT
# too), printed without ROOT: the file libvirtd actually executes
resolve() {
	f=$1$2 n=0
	while [ -L "$f" ] && [ $n -lt 40 ]; do
		t=$(readlink "$f")
		case $t in
		/*) f=$1$t ;;
		*) f=$(dirname "$f")/$t ;;
		esac
		n=$((n + 1))
	done
	f=$(cd "$(dirname "$f")" 2>/dev/null && pwd -P)/$(basename "$f")
	echo "${f#"$1"}"
}
D=$T_TMP/root_usr
run=$(resolve "$D" /etc/libvirt/hooks/qemu.d/vcpack)
hook=$D$run
t_eq "PREFIX=/usr: libvirtd executes the hook at" /etc/libvirt/hooks/qemu.d/vcpack "$run"
t_eq "PREFIX=/usr/local: the same path" "$run" \
	"$(resolve "$T_TMP/root_usr_local" /etc/libvirt/hooks/qemu.d/vcpack)"
if [ -x "$hook" ] && cmp -s "$hook" "$B/vcpack-hook"; then
	t_pass "that file is the hook, executable"
else
	t_fail "$run is not the built hook, executable"
fi

# what the hook needs when it inherits the daemon's profile
libs=$(ldd "$B/vcpack-hook" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	while read -r l; do readlink -f "$l"; done | sort -u)
t_match "the hook's libraries (ldd)" 'libc\.so' "$libs"
needs="--read /etc/vcpack/policy.json --read /var/lib/vcpack/state.json
--socket /run/vcpack/vcpackd.sock"
for l in $libs; do needs="$needs --map $l"; done
t_eq "the hook's socket is vcpackd's" '#define VCP_CTL_SOCKET "/run/vcpack/vcpackd.sock"' \
	"$(grep '^#define VCP_CTL_SOCKET ' "$top/host-agent/src/daemon/ctl.h")"
t_eq "the hook's state file is vcpackd's" \
	'#define VCP_CONTROL_STATE "/var/lib/vcpack/state.json"' \
	"$(grep '^#define VCP_CONTROL_STATE ' "$top/host-agent/src/daemon/control.h")"

# check_profile LABEL FILE NAME: parse, then the hook's exec rule
check_profile() {
	label=$1 f=$2 name=$3
	"$AAP" -Q -K -b "$BASE" -I "$BASE" "$f" >/dev/null 2>&1
	t_eq "$label: apparmor_parser -Q compiles it" 0 $?
	"$AAP" -p -b "$BASE" -I "$BASE" "$f" >"$T_TMP/pp" 2>/dev/null
	t_eq "$label: apparmor_parser -p expands it" 0 $?
	# shellcheck disable=SC2086
	out=$($AAX "$T_TMP/pp" "$name" "$run" $needs 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s/^/    $label: /"
	t_eq "$label: $name may execute $run" 0 $rc
	t_match "$label: by the hooks rule, inheriting $name's profile" \
		"^exec $run: '/etc/libvirt/hooks/\*\* rmix' -> inherit \(ix\)$" "$out"
	t_match "$label: which lets it read the policy" \
		"^  read /etc/vcpack/policy.json: '" "$out"
	t_match "$label: and vcpackd's state" "^  read /var/lib/vcpack/state.json: '" "$out"
	t_match "$label: and connect to vcpackd's socket" \
		"^  connect \(file write\) /run/vcpack/vcpackd.sock: '" "$out"
	t_match "$label: over a unix stream socket" "^  unix send: '" "$out"
	t_match "$label: and map libc" "^  mmap /[^ ]*/libc\.so[^ ]*: '" "$out"
	t_nomatch "$label: nothing refused" "not allowed|denied" "$out"
	# the checker can say no: the old layout's target, /usr/local/sbin
	# (no rule), and apparmor_parser itself (an audit deny)
	for bad in /usr/libexec/vcpack/vcpack-hook /usr/local/sbin/vcpack-hook; do
		out=$($AAX "$T_TMP/pp" "$name" "$bad" 2>&1)
		t_eq "$label: $bad refused (exit 1)" "1 exec $bad: no exec rule matches" "$? $out"
	done
	out=$($AAX "$T_TMP/pp" "$name" /usr/sbin/apparmor_parser 2>&1)
	t_match "$label: a deny rule wins" "^exec /usr/sbin/apparmor_parser: denied by 'audit deny" "$out"
	out=$($AAX "$T_TMP/pp" "$name" /usr/lib/libvirt/libvirt_iohelper 2>&1)
	t_match "$label: an exact exec rule wins over a glob" \
		"^exec /usr/lib/libvirt/libvirt_iohelper: '/usr/lib/libvirt/libvirt_iohelper ix' -> inherit" "$out"
	out=$($AAX "$T_TMP/pp" "$name" /usr/sbin/vcpackd 2>&1)
	t_match "$label: /usr/sbin/* runs unconfined" "^exec /usr/sbin/vcpackd: '/usr/sbin/\* PUx' -> unconfined \(PUx\)$" "$out"
}

d=$top/tests/data/apparmor
check_profile "Debian 12 libvirtd" "$d/debian12.usr.sbin.libvirtd" libvirtd
check_profile "Debian 13 libvirtd" "$d/debian13.usr.sbin.libvirtd" libvirtd
check_profile "upstream libvirtd" "$d/upstream.usr.sbin.libvirtd" libvirtd
check_profile "upstream virtqemud" "$d/upstream.usr.sbin.virtqemud" virtqemud
# the machine's own, where libvirt-daemon-system is installed
own=/etc/apparmor.d/usr.sbin.libvirtd
if dpkg -S "$own" >/dev/null 2>&1; then
	[ -f /etc/apparmor.d/local/usr.sbin.libvirtd ] &&
		cp /etc/apparmor.d/local/usr.sbin.libvirtd "$BASE/local/"
	check_profile "this machine's libvirtd" "$own" libvirtd
else
	echo "(no $own from a package here: the copies above only)"
fi
t_done
