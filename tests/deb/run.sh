#!/bin/sh
# tests/deb/run.sh BUILD_DIR - the Debian package `make deb` built in
# BUILD_DIR/deb/: unpacked into a throwaway root (dpkg -x), every file
# must be where Debian puts it and nothing else be there; the conffile,
# the maintainer scripts debhelper adds for the unit, the hook (a file in
# libvirt's hooks directory, for AppArmor: test-apparmor.sh),
# the programs running from that root, `man -k` after mandb, the unit
# verified by systemd-analyze, and lintian (pedantic) with nothing left
# but the tags debian/*.lintian-overrides justify.
# Last line: "deb: N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$top/tests/integration/lib.sh"
T_NAME=deb
t_setup
deb=$(ls "$B"/deb/vcpack_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	t_fail "no package in $B/deb (make deb)"
	echo "deb: $PASS passed, $FAIL failed, 0 skipped"
	exit 1
fi
R=$T_TMP/root
dpkg -x "$deb" "$R"
t_eq "dpkg -x: exit 0" 0 $?

# every file and symlink, exactly (directories aside)
expected="/etc/default/vcpackd
/etc/libvirt/hooks/qemu.d/vcpack
/lib/systemd/system/vcpack-fleet.service
/lib/systemd/system/vcpackd.service
/usr/bin/powernice
/usr/bin/vcpack
/usr/sbin/vcpackd
/usr/share/bash-completion/completions/powernice -> vcpack
/usr/share/bash-completion/completions/vcpack
/usr/share/doc/vcpack/changelog.gz
/usr/share/doc/vcpack/copyright
/usr/share/doc/vcpack/examples/policy-business-hours.json
/usr/share/doc/vcpack/examples/policy.json
/usr/share/doc/vcpack/examples/vcpackd.service.d/scx.conf
/usr/share/lintian/overrides/vcpack
/usr/share/man/man1/powernice.1.gz
/usr/share/man/man1/vcpack.1.gz
/usr/share/man/man5/vcpack-fleet.5.gz
/usr/share/man/man5/vcpack-policy.5.gz
/usr/share/man/man8/vcpackd.8.gz"
got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); l = $6;
	if ($7 == "->") l = l " -> " $8; print l }' | sort)
t_eq "the package's files, each where Debian puts it" "$expected" "$got"
for f in /usr/bin/vcpack /usr/bin/powernice /usr/sbin/vcpackd /etc/libvirt/hooks/qemu.d/vcpack; do
	if [ -x "$R$f" ]; then t_pass "$f is executable"; else t_fail "$f is not executable"; fi
done

# control: conffile, the unit enabled and started by debhelper's snippets
C=$T_TMP/control
dpkg-deb -e "$deb" "$C"
# (debhelper makes every file in /etc a conffile, the hook too: an
# admin's change to it is kept, and it stays until purge)
t_eq "conffiles" "/etc/default/vcpackd
/etc/libvirt/hooks/qemu.d/vcpack" "$(cat "$C/conffiles")"
t_match "postinst enables the unit" "deb-systemd-helper.*enable.*vcpackd.service" "$(cat "$C/postinst")"
t_match "postinst starts the unit (restarts it on upgrade)" \
	"_dh_action=start" "$(cat "$C/postinst")"
t_match "postinst invokes that action on the unit" \
	"deb-systemd-invoke \\\$_dh_action 'vcpackd.service'" "$(cat "$C/postinst")"
t_match "postinst has libvirt re-read its hooks" "try-reload-or-restart" "$(cat "$C/postinst")"
t_match "prerm stops the unit" "deb-systemd-invoke stop.*vcpackd.service" "$(cat "$C/prerm")"
# removal hands the host back (tests/real/test-deb-maint.sh runs it)
t_match "prerm puts every VM and the IRQs back on remove" \
	'"\$bin" --connect "\$uri" .*--policy "\$pol" restore' \
	"$(sed -e :a -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' "$C/prerm")"
t_eq "prerm: stops the services before it restores (line order)" yes \
	"$(awk '/deb-systemd-invoke stop "\$u"/ && !s { s = NR }
		/elif vcpack_restore; then/ && !r { r = NR }
		END { print (s && r && s < r) ? "yes" : "no" }' "$C/prerm")"
t_match "postrm removes the state directories on purge" \
	'rm -rf "\$\{DPKG_ROOT:-\}\$\{VCPACK_MAINT_STATE_DIR:-/var/lib/vcpack\}"' "$(cat "$C/postrm")"
t_match "postrm keeps debhelper's snippet (purge of the unit's state)" \
	"deb-systemd-helper purge 'vcpackd.service'" "$(cat "$C/postrm")"
for f in postinst prerm postrm; do
	t_eq "$f: sh -n" "0" "$(sh -n "$C/$f" 2>&1; echo $?)"
done
# the fleet loop's unit is shipped, never enabled or started by the
# package (it needs a fleet file with a "standby" object)
# (dh_installsystemd --no-enable: only re-enabled where the admin had it)
t_match "postinst enables the fleet loop only where it was" "deb-systemd-helper debian-installed 'vcpack-fleet.service'" "$(cat "$C/postinst")"
t_nomatch "postinst does not start the fleet loop" "deb-systemd-invoke .*vcpack-fleet.service" "$(cat "$C/postinst")"
t_match "depends on libvirt0 (shlibs)" "^Depends:.*libvirt0" "$(cat "$C/control")"

# the files themselves
t_match "unit: ExecStart in /usr/sbin with the options of /etc/default" \
	'^ExecStart=/usr/sbin/vcpackd \$VCPACKD_OPTS$' "$(cat "$R/lib/systemd/system/vcpackd.service")"
t_match "unit: Type=notify" '^Type=notify$' "$(cat "$R/lib/systemd/system/vcpackd.service")"
if cmp -s "$top/host-agent/policy.example.json" "$R/usr/share/doc/vcpack/examples/policy.json"; then
	t_pass "example policy is the shipped defaults"; else t_fail "example policy differs"; fi
t_eq "vcpack runs from the root" "vcpack 0.1" "$("$R/usr/bin/vcpack" --version 2>&1)"
t_match "vcpackd runs from the root" "^Usage: vcpackd" "$("$R/usr/sbin/vcpackd" --help 2>&1)"

if command -v mandb >/dev/null; then
	mandb -q "$R/usr/share/man" >/dev/null 2>&1
	t_eq "man -k finds every page" \
		"powernice(1) vcpack(1) vcpack-fleet(5) vcpack-policy(5) vcpackd(8)" \
		"$(MANPATH=$R/usr/share/man man -k 'vcpack|powernice' 2>&1 |
			sed 's/ (\([0-9]\)).*/(\1)/' | sort | tr '\n' ' ' | sed 's/ $//')"
fi

if command -v systemd-analyze >/dev/null; then
	V=$T_TMP/vroot
	cp -a "$R" "$V"
	mkdir -p "$V/bin"
	for f in /lib/systemd/system/*.target /lib/systemd/system/*.socket \
		/lib/systemd/system/*.slice; do
		[ -f "$f" ] && [ ! -e "$V$f" ] && cp "$f" "$V$f"
	done
	cp /bin/kill "$V/bin/kill"
	out=$(MANPATH=$V/usr/share/man systemd-analyze verify --root="$V" \
		"$V/lib/systemd/system/vcpackd.service" 2>&1)
	t_eq "systemd-analyze verify on the packaged unit" "0:" "$?:$out"
fi

# ---- installed, as the README says, into a throwaway root ----
# dpkg itself unpacks and registers the package in a root of its own
# (its database, the conffile); the maintainer scripts are not run:
# they talk to this machine's systemd and libvirt. apt resolves the
# README's `apt install ./build/deb/vcpack_*.deb` against Debian's
# archive (simulated: nothing is installed here).
I=$T_TMP/installroot
mkdir -p "$I/var/lib/dpkg/info" "$I/var/lib/dpkg/updates" "$I/var/lib/dpkg/triggers"
: >"$I/var/lib/dpkg/status"
: >"$I/var/lib/dpkg/available"
dpkg --root="$I" --log=/dev/null --force-depends --unpack "$deb" >/dev/null 2>&1
t_eq "dpkg --root: the package unpacks and registers" 0 $?
t_eq "dpkg --root: its status" "install ok unpacked" \
	"$(dpkg --root="$I" -s vcpack 2>/dev/null | sed -n 's/^Status: //p')"
# (unpacked, not configured: the conffile waits as .dpkg-new)
t_match "dpkg --root: the conffile registered" '^ /etc/default/vcpackd (newconffile|[0-9a-f]{32})$' \
	"$(dpkg --root="$I" -s vcpack 2>/dev/null | sed -n '/^Conffiles:/,/^[A-Z]/p')"
if command -v apt-get >/dev/null; then
	out=$(apt-get -s -o Debug::NoLocking=1 install "$deb" 2>&1)
	t_eq "apt install of the .deb resolves on this Debian (simulated)" 0 $?
	t_match "apt would configure vcpack" '^Conf vcpack ' "$out"
fi

# ---- the README's "On a real KVM host" says what the package does ----
RM=$(sed -n '/^## On a real KVM host/,/^## /p' "$top/README.md")
t_match "README: build with make deb" '^    make deps && make deb ' "$RM"
t_match "README: install with apt" '^    apt install \./build/deb/vcpack_\*\.deb$' "$RM"
if [ "$B" = "$top/build" ]; then
	t_eq "README: its glob names the package make deb built" "$deb" \
		"$(cd "$top" && ls ./build/deb/vcpack_*.deb | sed "s|^\./|$top/|")"
fi
# every path in the table's first column is in the package, but the
# policy the README says the package leaves to the admin
n=0
for f in $(echo "$RM" | grep '^| `/' | grep -o '`/[^`]*`' | tr -d '`'); do
	n=$((n + 1))
	case $f in
	/etc/vcpack/policy.json)
		if [ ! -e "$I$f" ]; then t_pass "README: $f is the admin's, not shipped"
		else t_fail "README says $f is not shipped, the package has it"; fi ;;
	*)
		if [ -e "$I$f" ] || [ -L "$I$f" ] || [ -e "$I$f.dpkg-new" ]; then
			t_pass "README: $f is installed"
		else t_fail "README names $f, the package has no such file"; fi ;;
	esac
done
if [ $n -ge 7 ]; then t_pass "README: $n paths in its table"; else t_fail "README: only $n paths found in its table"; fi
for m in $(echo "$RM" | sed -n 's/^| man pages | //p' | grep -o '[a-z-]*([0-9])'); do
	name=${m%(*}; sec=$(echo "$m" | tr -dc 0-9)
	if [ -e "$I/usr/share/man/man$sec/$name.$sec.gz" ]; then t_pass "README: man page $m installed"
	else t_fail "README names $m, not in the package"; fi
done

if command -v lintian >/dev/null; then
	out=$(lintian --pedantic -I "$deb" 2>&1 | grep -v '^running with root privileges')
	t_eq "lintian: no tag but the overridden ones" "" "$out"
else
	t_fail "lintian is not installed (make deps)"
fi

# ---- vcpack-scx: built only with the build profile pkg.vcpack.scx ----
# (make deb adds it where make scx's tools are in BUILD_DIR; the default
# dpkg-buildpackage -us -uc -b builds vcpack alone)
SKIP=0
t_eq "debian/control: vcpack alone without a profile" "vcpack" \
	"$(cd "$top" && dh_listpackages 2>&1)"
t_eq "debian/control: vcpack and vcpack-scx with pkg.vcpack.scx" "vcpack vcpack-scx" \
	"$(cd "$top" && DEB_BUILD_PROFILES=pkg.vcpack.scx dh_listpackages 2>&1 | tr '\n' ' ' | sed 's/ $//')"
(cd "$top" && dpkg-checkbuilddeps -P pkg.vcpack.scx) >"$T_TMP/bdeps" 2>&1
rc=$?
if "$top/scripts/deps.sh" --check --kernel >/dev/null 2>&1; then
	t_eq "the profile's build dependencies parse and are met (deps.sh --kernel)" \
		"0:" "$rc:$(cat "$T_TMP/bdeps")"
else
	# (make deps alone: they parse, some are missing)
	out=$(grep -v '^dpkg-checkbuilddeps: error: Unmet build dependencies: ' "$T_TMP/bdeps")
	t_eq "the profile's build dependencies parse (nothing said but what is missing)" "" "$out"
fi
sdeb=$(ls "$B"/deb/vcpack-scx_*.deb 2>/dev/null | head -n 1)
if [ -z "$sdeb" ]; then
	echo "skip - vcpack-scx not built (no make scx tools in $B/kernel)"
	SKIP=1
else
	expected="/lib/systemd/system/vcpackd.service.d/scx.conf
/usr/sbin/scx_vcpack
/usr/share/doc/vcpack-scx/changelog.gz
/usr/share/doc/vcpack-scx/copyright
/usr/share/lintian/overrides/vcpack-scx
/usr/share/man/man8/scx_vcpack.8.gz"
	got=$(dpkg-deb -c "$sdeb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort)
	t_eq "vcpack-scx: its files, each where Debian puts it" "$expected" "$got"
	SR=$T_TMP/scxroot
	dpkg -x "$sdeb" "$SR"
	if cmp -s "$top/host-agent/vcpackd-scx.conf" "$SR/lib/systemd/system/vcpackd.service.d/scx.conf"; then
		t_pass "vcpack-scx: the drop-in is the example vcpack ships"
	else t_fail "vcpack-scx: its drop-in differs from host-agent/vcpackd-scx.conf"; fi
	t_match "vcpack-scx: scx_vcpack runs from the root" '^usage: scx_vcpack' \
		"$("$SR/usr/sbin/scx_vcpack" -h 2>&1)"
	SC=$T_TMP/scxcontrol
	dpkg-deb -e "$sdeb" "$SC"
	t_match "vcpack-scx: depends on this very vcpack" \
		"^Depends:.*vcpack \\(= $(dpkg-deb -f "$deb" Version)\\)" "$(cat "$SC/control")"
	t_match "vcpack-scx: linked with Debian's libelf (shlibs)" '^Depends:.*libelf1' "$(cat "$SC/control")"
	t_match "vcpack-scx: postinst has systemd read the drop-in" 'daemon-reload' "$(cat "$SC/postinst")"
	t_match "vcpack-scx: postrm has systemd forget it" 'daemon-reload' "$(cat "$SC/postrm")"
	if [ -n "${V:-}" ] && [ -d "$V" ]; then
		dpkg -x "$sdeb" "$V"
		out=$(MANPATH=$V/usr/share/man systemd-analyze verify --root="$V" \
			"$V/lib/systemd/system/vcpackd.service" 2>&1)
		t_eq "vcpack-scx: vcpackd.service with its drop-in verifies" "0:" "$?:$out"
		out=$(systemd-analyze security --offline=true --root="$V" vcpackd.service 2>&1)
		t_match "vcpack-scx: the drop-in is in force (bpf allowed)" 'e\.g\. bpf is allowed' "$out"
		echo "systemd-analyze security (vcpack + vcpack-scx): $(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for vcpackd.service: //p')"
	fi
	out=$(lintian --pedantic -I "$sdeb" 2>&1 | grep -v '^running with root privileges')
	t_eq "vcpack-scx: lintian: no tag but the overridden ones" "" "$out"
fi
echo "deb: $PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" -eq 0 ]
