#!/bin/sh
# patch-tree.sh PRISTINE PATCHED PATCHDIR
#
# Keeps PATCHED = PRISTINE + the patches listed in PATCHDIR/series
# (patch -p1, in order). PATCHED is a hard-link copy of PRISTINE
# (cp -al); every file a patch touches is a private copy, so PRISTINE is
# never modified. PATCHED/.vcpack-series.sum holds the checksum of the
# series file and of every patch it lists: when it is unchanged this script
# does nothing. When it changed, the tree is re-created, and every file
# touched by the old or the new series gets a fresh mtime, so an O= build
# recompiles exactly those (a file the new series no longer touches goes
# back to pristine content with a new mtime, so make notices it too).
# Missing or empty series: PATCHED equals PRISTINE.
# Exit 0 when PATCHED is up to date, 1 with a message on stderr otherwise.
set -eu

pristine=$1
patched=$2
pdir=$3
series=$pdir/series

die() {
	echo "patch-tree: $*" >&2
	exit 1
}

. "$(cd "$(dirname "$0")" && pwd)/series.sh"

[ -d "$pristine" ] || die "pristine tree '$pristine' does not exist"
patches=
if [ -f "$series" ]; then
	patches=$(list_patches "$pdir") || exit 1
fi
# shellcheck disable=SC2086
sum=$( { [ -f "$series" ] && cat "$series"; for p in $patches; do cat "$p"; done; } |
	sha256sum | cut -d' ' -f1)
stamp=$patched/.vcpack-series.sum
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
	exit 0
fi

old_files=
[ -f "$patched/.vcpack-files" ] && old_files=$(cat "$patched/.vcpack-files")
# shellcheck disable=SC2086
new_files=$(touched_files $patches)

echo "patch-tree: (re)creating $patched from $pristine" >&2
tmp=$patched.new
rm -rf "$tmp"
cp -al "$pristine" "$tmp"
for f in $(printf '%s\n%s\n' "$old_files" "$new_files" | sort -u); do
	[ -f "$tmp/$f" ] || continue
	cp "$pristine/$f" "$tmp/$f.vcpack-copy"
	mv -f "$tmp/$f.vcpack-copy" "$tmp/$f"
done
for p in $patches; do
	echo "patch-tree: applying $(basename "$p")" >&2
	patch -d "$tmp" -p1 --batch --forward --no-backup-if-mismatch -s <"$p" ||
		die "'$(basename "$p")' does not apply"
done
printf '%s\n' "$new_files" >"$tmp/.vcpack-files"
echo "$sum" >"$tmp/.vcpack-series.sum"
rm -rf "$patched"
mv "$tmp" "$patched"
