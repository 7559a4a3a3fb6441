#!/bin/sh
# run.sh BUILD_DIR [KERNEL] - the real libvirtd + QEMU suites. KERNEL is
# the guests' bzImage (default: the testbed's stock build under
# BUILD_DIR/kernel, which `make check-kernel` has made). Each suite prints
# its own "N passed, N failed" line.
B=$(cd "${1:-build}" && pwd)
K=${2:-$B/kernel/stock/arch/x86/boot/bzImage}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -r "$K" ]; then
	echo "real: no guest kernel at $K (make -C kernel stock builds it)"
	exit 1
fi
failed=0
passed=0
for t in "$here"/test-*.sh; do
	echo "== $(basename "$t")"
	if sh "$t" "$B" "$K"; then passed=$((passed + 1)); else
		echo "FAILED: $(basename "$t")"; failed=$((failed + 1)); fi
done
echo "real libvirtd+QEMU suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
