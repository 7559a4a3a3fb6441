#!/bin/sh
# test-systemd-unit.sh BUILD_DIR - the installed vcpackd.service as
# systemd reads it: `make install` (PREFIX=/usr) into a DESTDIR, then
# `systemd-analyze verify` in a root made of that tree, the host's own
# unit files (for the targets it is ordered against) and /bin/kill, with
# the installed man pages on MANPATH so that Documentation= resolves;
# and `systemd-analyze security --offline` on the same root, whose
# overall exposure must stay "OK" or better (at most 3.9). Nothing of the
# host's systemd state is read or changed.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
if ! command -v systemd-analyze >/dev/null; then
	echo "$T_NAME: 0 passed, 0 failed, 1 skipped (no systemd-analyze)"
	exit 0
fi
D=$T_TMP/root
make -s -C "$top" B="$B" install PREFIX=/usr DESTDIR="$D" >"$T_TMP/install.log" 2>&1
t_eq "make install PREFIX=/usr: exit 0" 0 $?
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
unitdir=${unitdir:-/lib/systemd/system}
unit=$D$unitdir/vcpackd.service
u=$(cat "$unit" 2>&1)
t_match "Type=notify" '^Type=notify$' "$u"
t_match "a watchdog" '^WatchdogSec=[0-9]+s$' "$u"
t_match "reload is SIGHUP" '^ExecReload=/bin/kill -HUP \$MAINPID$' "$u"
t_match "Documentation= names vcpackd(8)" '^Documentation=man:vcpackd\(8\)' "$u"
t_match "ordered after both libvirt flavours" \
	'^After=.*libvirtd\.service.*virtqemud\.service.*virtqemud\.socket' "$u"
t_match "LimitNOFILE set" '^LimitNOFILE=[0-9]+$' "$u"
# pulling in virtqemud on a libvirtd host would stop libvirtd (Conflicts=)
t_nomatch "pulls in neither libvirt flavour" '^(Wants|Requires|BindsTo)=.*(virtqemud|libvirtd)' "$u"

# a root systemd-analyze can load the unit in
V=$T_TMP/vroot
cp -a "$D" "$V"
mkdir -p "$V$unitdir" "$V/bin"
for f in "$unitdir"/*.target "$unitdir"/*.socket "$unitdir"/*.slice \
	"$unitdir"/libvirtd.service "$unitdir"/virtqemud.service; do
	[ -f "$f" ] && [ ! -e "$V$unitdir/$(basename "$f")" ] && cp "$f" "$V$unitdir/"
done
cp /bin/kill "$V/bin/kill"
out=$(MANPATH=$V/usr/share/man systemd-analyze verify --root="$V" \
	"$V$unitdir/vcpackd.service" 2>&1)
t_eq "systemd-analyze verify: exit 0" 0 $?
t_eq "systemd-analyze verify: no complaint" "" "$out"
# the check has teeth: a unit naming a missing man page fails it
sed 's/man:vcpackd(8)/man:vcpackd-nonexistent(8)/' "$V$unitdir/vcpackd.service" \
	>"$V$unitdir/vcpackd-bad.service"
out=$(MANPATH=$V/usr/share/man systemd-analyze verify --root="$V" \
	"$V$unitdir/vcpackd-bad.service" 2>&1)
t_match "verify catches a Documentation= page that is not installed" \
	"man vcpackd-nonexistent\(8\).*failed" "$out"

out=$(systemd-analyze security --offline=true --root="$V" \
	"$V$unitdir/vcpackd.service" 2>&1)
score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for vcpackd.service: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p')
echo "systemd-analyze security: exposure $score"
t_match "security exposure is OK or better" '^([0-3]\.[0-9]) (OK|SAFE)$' "$score"

# ---- vcpack-fleet.service: the fleet standby loop (issue 14) ----
fu=$(cat "$D$unitdir/vcpack-fleet.service" 2>&1)
t_match "fleet unit: runs vcpack fleet run" '^ExecStart=/usr/bin/vcpack fleet run \$VCPACK_FLEET_OPTS$' "$fu"
t_match "fleet unit: SIGTERM to the loop only (it stops between steps)" '^KillMode=mixed$' "$fu"
t_match "fleet unit: its state in /var/lib/vcpack" '^StateDirectory=vcpack$' "$fu"
t_match "fleet unit: Documentation= names vcpack-fleet(5)" '^Documentation=.*man:vcpack-fleet\(5\)' "$fu"
out=$(MANPATH=$V/usr/share/man systemd-analyze verify --root="$V" \
	"$V$unitdir/vcpack-fleet.service" 2>&1)
t_eq "fleet unit: systemd-analyze verify: exit 0" 0 $?
t_eq "fleet unit: systemd-analyze verify: no complaint" "" "$out"
out=$(systemd-analyze security --offline=true --root="$V" \
	"$V$unitdir/vcpack-fleet.service" 2>&1)
score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for vcpack-fleet.service: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p')
echo "systemd-analyze security (vcpack-fleet): exposure $score"
t_match "fleet unit: security exposure is OK or better" '^([0-3]\.[0-9]) (OK|SAFE)$' "$score"
t_done
