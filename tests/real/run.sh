#!/bin/sh
# run.sh BUILD_DIR [KERNEL] - the real libvirtd + QEMU suites. KERNEL is
# the guests' bzImage (default: the testbed's stock build under
# BUILD_DIR/kernel, which `make check-kernel` has made). Each suite prints
# its own "N passed, N failed" line; the last line is their sum
# ("real: N passed, N failed, N skipped").
B=$(cd "${1:-build}" && pwd)
K=${2:-$B/kernel/stock/arch/x86/boot/bzImage}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../counts.sh"
tmp=$(mktemp "${TMPDIR:-/tmp}/vcp-real.XXXXXX")
trap 'rm -f "$tmp" "$tmp.rc" "$tmp.all"' EXIT
: >"$tmp.all"
if [ ! -r "$K" ]; then
	echo "real: no guest kernel at $K (make -C kernel stock builds it)"
	exit 1
fi
failed=0
passed=0
for t in "$here"/test-*.sh; do
	echo "== $(basename "$t")"
	{ sh "$t" "$B" "$K" 2>&1; echo $? >"$tmp.rc"; } | tee "$tmp"
	rc=$(cat "$tmp.rc")
	counts_of "$tmp" "$rc" >>"$tmp.all"
	if [ "$rc" = 0 ]; then passed=$((passed + 1)); else
		echo "FAILED: $(basename "$t")"; failed=$((failed + 1)); fi
done
echo "real libvirtd+QEMU suites: $passed passed, $failed failed"
echo "real: $(counts_sum <"$tmp.all")"
[ $failed -eq 0 ]
