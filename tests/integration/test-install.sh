#!/bin/sh
# test-install.sh BUILD_DIR - `make install` and `make install-hooks`
# honour PREFIX and DESTDIR and install every file where it belongs.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
D=$T_TMP/root
out=$(make -s -C "$top" B="$B" install install-hooks PREFIX=/opt/vcp DESTDIR="$D" 2>&1)
t_eq "make install: exit 0" 0 $?
for f in /opt/vcp/bin/vcpack /opt/vcp/bin/powernice /opt/vcp/sbin/vcpackd \
	/etc/libvirt/hooks/qemu.d/vcpack; do
	if [ -x "$D$f" ] && [ ! -L "$D$f" ]; then t_pass "installed $f"; else t_fail "missing $f"; fi
done
# the unit where systemd says units go (its fallback without systemd.pc)
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
unitdir=${unitdir:-/lib/systemd/system}
unit=$D$unitdir/vcpackd.service
t_match "unit in $unitdir points at the installed daemon" \
	'^ExecStart=/opt/vcp/sbin/vcpackd \$VCPACKD_OPTS$' "$(cat "$unit" 2>&1)"
t_match "unit reads /etc/default/vcpackd" '^EnvironmentFile=-/etc/default/vcpackd$' \
	"$(cat "$unit" 2>&1)"
t_nomatch "unit does not restore on every stop" 'restore-on-exit' \
	"$(grep -v '^#' "$unit" 2>&1)"
t_match "/etc/default/vcpackd: options empty, --restore-on-exit commented" \
	'^VCPACKD_OPTS=""$' "$(cat "$D/etc/default/vcpackd" 2>&1)"
t_match "/etc/default/vcpackd: the commented option" '^#VCPACKD_OPTS="--restore-on-exit"$' \
	"$(cat "$D/etc/default/vcpackd" 2>&1)"
# the qemu.d entry is the hook binary itself, whatever PREFIX (AppArmor:
# test-apparmor.sh), and nothing else of it is installed
if cmp -s "$B/vcpack-hook" "$D/etc/libvirt/hooks/qemu.d/vcpack"; then
	t_pass "qemu.d entry is the hook"; else t_fail "qemu.d entry is not the built hook"; fi
t_eq "no other copy of the hook" "/etc/libvirt/hooks/qemu.d/vcpack" \
	"$(cd "$D" && find . -name 'vcpack-hook*' -o -path '*/qemu.d/*' | sed 's/^\.//')"
# an older install-hooks' symlink is replaced, not written through
D2=$T_TMP/root2
mkdir -p "$D2/etc/libvirt/hooks/qemu.d" "$D2/opt/vcp/libexec/vcpack"
echo old >"$D2/opt/vcp/libexec/vcpack/vcpack-hook"
ln -s ../../../../opt/vcp/libexec/vcpack/vcpack-hook "$D2/etc/libvirt/hooks/qemu.d/vcpack"
make -s -C "$top" B="$B" install-hooks PREFIX=/opt/vcp DESTDIR="$D2" >/dev/null 2>&1
if [ ! -L "$D2/etc/libvirt/hooks/qemu.d/vcpack" ] &&
	cmp -s "$B/vcpack-hook" "$D2/etc/libvirt/hooks/qemu.d/vcpack"; then
	t_pass "install-hooks replaces an old symlink with the hook"
else t_fail "install-hooks left the old symlink"; fi
t_eq "the old symlink's target untouched" old "$(cat "$D2/opt/vcp/libexec/vcpack/vcpack-hook")"
ex=$D/opt/vcp/share/doc/vcpack/examples
# (tests/unit/test_policy.c holds the example to the built-in defaults)
if cmp -s "$top/host-agent/policy.example.json" "$ex/policy.json"; then
	t_pass "example policy (the defaults) installed"; else t_fail "example policy missing"; fi
if [ -f "$ex/policy-business-hours.json" ]; then t_pass "business-hours example installed"; else t_fail "business-hours example missing"; fi
for m in man1/vcpack.1 man1/powernice.1 man5/vcpack-policy.5 man5/vcpack-fleet.5 man8/vcpackd.8; do
	if [ -s "$D/opt/vcp/share/man/$m" ]; then t_pass "man page $m"; else t_fail "man page $m missing"; fi
done
# whatis entries: mandb on the installed tree (its index.db lands there)
if command -v mandb >/dev/null; then
	mandb -q "$D/opt/vcp/share/man" >/dev/null 2>&1
	t_eq "man -k vcpack finds every page" \
		"powernice(1) vcpack(1) vcpack-fleet(5) vcpack-policy(5) vcpackd(8)" \
		"$(MANPATH=$D/opt/vcp/share/man man -k 'vcpack|powernice' 2>&1 |
			sed 's/ (\([0-9]\)).*/(\1)/' | sort | tr '\n' ' ' | sed 's/ $//')"
fi
t_eq "installed vcpack runs" "vcpack" "$("$D/opt/vcp/bin/vcpack" --version | cut -d' ' -f1)"
# a second install keeps an edited /etc/default/vcpackd
echo 'VCPACKD_OPTS="--debug"' >"$D/etc/default/vcpackd"
make -s -C "$top" B="$B" install PREFIX=/opt/vcp DESTDIR="$D" >/dev/null 2>&1
t_eq "reinstall keeps /etc/default/vcpackd" 'VCPACKD_OPTS="--debug"' "$(cat "$D/etc/default/vcpackd")"
t_done
