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
	if [ -x "$D$f" ]; then t_pass "installed $f"; else t_fail "missing $f"; fi
done
t_match "unit points at the installed daemon" "^ExecStart=/opt/vcp/sbin/vcpackd " \
	"$(cat "$D/lib/systemd/system/vcpackd.service")"
if [ -f "$D/etc/vcpack/policy.example.json" ]; then t_pass "policy example installed"; else t_fail "policy example missing"; fi
t_eq "installed vcpack runs" "vcpack" "$("$D/opt/vcp/bin/vcpack" --version | cut -d' ' -f1)"
t_done
