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
t0=$(date +%s)
if ! (cd "$out/src" && dpkg-buildpackage -us -uc -b -jauto) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log"
	echo "make deb: dpkg-buildpackage failed; full output in $out/build.log"
	exit 1
fi
rm -rf "$out/src"
echo "make deb: $(ls "$out"/vcpack_*.deb) built in $(($(date +%s) - t0)) s (log: $out/build.log)"
