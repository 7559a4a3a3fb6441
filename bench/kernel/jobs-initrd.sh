#!/bin/sh
# bench/kernel/jobs-initrd.sh BASE.cpio.gz JOBS OUT - the initrd of one
# benchmark boot: the bench initramfs with JOBS appended as /bench/jobs in
# a second (uncompressed newc) archive. The kernel unpacks concatenated
# archives, but each must start on a 4-byte boundary: the compressed base
# is padded with zeros, which the kernel skips.
set -eu
base=$1 jobs=$2 out=$3
st=$(mktemp -d "$(dirname "$out")/jobs-initrd.XXXXXX")
trap 'rm -rf "$st"' EXIT
mkdir -p "$st/bench"
cp "$jobs" "$st/bench/jobs"
(cd "$st" && find bench | cpio -o -H newc --quiet -R 0:0) >"$st/jobs.cpio"
sz=$(wc -c <"$base")
{ cat "$base"; head -c $(( (512 - sz % 512) % 512 )) /dev/zero
  cat "$st/jobs.cpio"; } >"$out"
