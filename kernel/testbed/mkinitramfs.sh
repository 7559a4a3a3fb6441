#!/bin/sh
# mkinitramfs.sh OUT VCWORK KSFT INIT SCENARIODIR [BIN...]
#
# Builds the testbed guest's initramfs (gzip'd newc cpio) at OUT:
# busybox-static with all its applets as symlinks, /bin/vcwork, the
# series' selftest as /bin/consolidate_test when KSFT exists, /init,
# every SCENARIODIR/*.sh under /scenarios, and each further BIN (static
# binaries: vcresid) in /bin. The standard scheduler workloads of
# rt-tests (hackbench, cyclictest; WORKLOADS names them, default
# /usr/bin/hackbench /usr/bin/cyclictest) come with the shared libraries
# ldd lists for them, at the same paths, where they exist on the build
# machine. OUT is replaced atomically; nothing outside OUT's directory
# is written.
set -eu

out=$1
vcwork=$2
ksft=$3
init=$4
scen=$5
shift 5
bb=${BUSYBOX:-/bin/busybox}

[ -x "$bb" ] || { echo "mkinitramfs: no static busybox at $bb (apt-get install busybox-static)" >&2; exit 1; }
file -L "$bb" 2>/dev/null | grep -q 'dynamically linked' &&
	{ echo "mkinitramfs: $bb is not static" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
stage=$(mktemp -d "$(dirname "$out")/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/sbin" "$stage/proc" "$stage/sys" \
	"$stage/dev" "$stage/tmp" "$stage/scenarios" "$stage/etc"
cp "$bb" "$stage/bin/busybox"
for a in $("$bb" --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done
cp "$vcwork" "$stage/bin/vcwork"
for b in "$@"; do
	cp "$b" "$stage/bin/"
done
for w in ${WORKLOADS-/usr/bin/hackbench /usr/bin/cyclictest}; do
	[ -x "$w" ] || continue
	mkdir -p "$stage$(dirname "$w")"
	cp "$w" "$stage$w"
	for l in $(ldd "$w" | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p; s|^[[:space:]]*\(/[^ ]*\) .*|\1|p'); do
		mkdir -p "$stage$(dirname "$l")"
		[ -e "$stage$l" ] || cp -L "$l" "$stage$l"
	done
done
[ -f "$ksft" ] && cp "$ksft" "$stage/bin/consolidate_test"
cp "$init" "$stage/init"
chmod 0755 "$stage/init"
cp "$scen"/*.sh "$stage/scenarios/"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -9 >"$out.tmp"
mv -f "$out.tmp" "$out"
echo "  INITRD  $out ($(wc -c <"$out") bytes$([ -f "$ksft" ] && echo ', with consolidate_test'))"
