#!/bin/sh
# deb.sh BUILD_DIR - `make deb`: the Debian package from debian/, built
# out of tree because dpkg-buildpackage writes its results next to the
# source directory: the working tree (without .git and build directories)
# is copied to BUILD_DIR/deb/src/ and built there with
# `dpkg-buildpackage -us -uc -b`; vcpack_*.deb, .buildinfo and .changes
# land in BUILD_DIR/deb/, the build's output in BUILD_DIR/deb/build.log.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
B=$(cd "$1" && pwd)
out=$B/deb
rm -rf "$out"
mkdir -p "$out/src"
# every build directory: build/, B if elsewhere in the tree
ex="--exclude=./.git --exclude=./build"
case $B in "$top"/*) ex="$ex --exclude=./${B#"$top"/}" ;; esac
# shellcheck disable=SC2086
tar -C "$top" $ex -cf - . | tar -C "$out/src" -xf -
rm -rf "$out/src/debian/build" "$out/src/debian/vcpack" "$out/src/debian/.debhelper"
# With make scx's tools and a sched_ext kernel's vmlinux in BUILD_DIR
# (make check builds them in check-scx, before the package), the build
# profile pkg.vcpack.scx adds vcpack-scx at the cost of compiling
# scx_vcpack alone (VCPACK_SCX_VMLINUX=FILE: another kernel's BTF);
# VCPACK_DEB_SCX=0 leaves it out, =1 requires it.
kb=$B/kernel
vm=${VCPACK_SCX_VMLINUX:-$kb/stock/vmlinux}
if [ "${VCPACK_DEB_SCX:-auto}" != 0 ] &&
	[ -f "$kb/scx-tools/build/obj/libbpf/libbpf.a" ] &&
	[ -x "$kb/scx-tools/build/sbin/bpftool" ] &&
	grep -q sched_ext_ops "$vm" 2>/dev/null; then
	export DEB_BUILD_PROFILES="pkg.vcpack.scx${DEB_BUILD_PROFILES:+ $DEB_BUILD_PROFILES}"
	export VCPACK_SCX_KBUILD="$kb" VCPACK_SCX_VMLINUX="$vm"
	echo "make deb: with vcpack-scx (profile pkg.vcpack.scx, tools from $kb)"
elif [ "${VCPACK_DEB_SCX:-auto}" = 1 ]; then
	echo "make deb: VCPACK_DEB_SCX=1 but no make scx build in $kb"
	exit 1
fi
t0=$(date +%s)
if ! (cd "$out/src" && dpkg-buildpackage -us -uc -b -jauto) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log"
	echo "make deb: dpkg-buildpackage failed; full output in $out/build.log"
	exit 1
fi
rm -rf "$out/src"
echo "make deb: $(ls "$out"/vcpack_*.deb "$out"/vcpack-scx_*.deb 2>/dev/null | tr '\n' ' ')built in $(($(date +%s) - t0)) s (log: $out/build.log)"
