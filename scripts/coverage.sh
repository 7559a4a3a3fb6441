#!/bin/sh
# coverage.sh BUILD_DIR COV_DIR [--report] - line coverage of the unit and
# integration suites (make coverage), and of the real libvirtd+QEMU suite
# where BUILD_DIR has its guest kernel (BUILD_DIR/kernel/stock, built by
# make check-kernel or check-real; COVERAGE_REAL=0 leaves it out): the
# libvirt edge's live-only paths (QEMU's pid, vCPU statistics, live
# migration) run only there. Everything is built once more with
# gcc --coverage in COV_DIR (its own tree: the normal build is not
# touched), old counters are dropped, the suites run against that build,
# then gcovr prints per-file line coverage of host-agent/src and two
# totals: the library (the program files cli*.c, daemon.c, powernice.c
# left out: integration tests drive them, but their option parsing and
# printing are not the pure logic the figure is about) and everything.
# The summary goes to COV_DIR/coverage.txt too. Exit 1 when a suite
# failed (the figures are still printed). --report: only the report, from
# the counters of the last run.
set -u
B=${1:-build}
C=${2:-$B/cov}
MAKE=${MAKE:-make}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
command -v gcovr >/dev/null || {
	echo "coverage: gcovr is missing (scripts/deps.sh installs it)" >&2; exit 2; }
mkdir -p "$C"
rc=0
if [ "${3:-}" != --report ]; then
	find "$C" -name '*.gcda' -delete
	$MAKE --no-print-directory B="$C" CFLAGS="-O0 -g --coverage" \
		LDFLAGS="--coverage" check-unit >"$C/unit.log" 2>&1 || rc=1
	tail -n 1 "$C/unit.log"
	$MAKE --no-print-directory B="$C" CFLAGS="-O0 -g --coverage" \
		LDFLAGS="--coverage" check-integration >"$C/integration.log" 2>&1 || rc=1
	tail -n 1 "$C/integration.log"
	kern=$(cd "$B" 2>/dev/null && pwd)/kernel/stock/arch/x86/boot/bzImage
	if [ "${COVERAGE_REAL:-1}" = 0 ]; then
		echo "coverage: the real libvirtd+QEMU suite left out (COVERAGE_REAL=0)"
	elif [ -r "$kern" ]; then
		$MAKE --no-print-directory B="$C" CFLAGS="-O0 -g --coverage" \
			LDFLAGS="--coverage" GUEST_KERNEL="$kern" check-real \
			>"$C/real.log" 2>&1 || rc=1
		tail -n 1 "$C/real.log"
	else
		echo "coverage: the real libvirtd+QEMU suite left out: no guest kernel $kern (make check-real B=$B builds it)"
	fi
	[ $rc = 0 ] || echo "coverage: a suite failed (logs: $C/unit.log, $C/integration.log, $C/real.log)"
fi

mains='host-agent/src/programs/'
# Line counts only. Processes that run at once (the fleet tests start
# many) can leave a branch counter at -1 in gcov's output, which gcovr
# 5.2 otherwise refuses as a parse error; the line counts are sound.
# gcovr's warnings go to COV_DIR/gcovr.log.
: >"$C/gcovr.log"
G() { gcovr -r . --object-directory "$C" --gcov-ignore-parse-errors "$@" \
	2>>"$C/gcovr.log"; }
{
	echo "== line coverage of host-agent/src, library (program files left out)"
	G -f 'host-agent/src/' -e "$mains" --sort-percentage || rc=1
	echo "== the program files"
	G -f "$mains" --sort-percentage | sed -n '/^File/,$p'
	echo "== everything under host-agent/src"
	G -f 'host-agent/src/' | tail -n 2 | head -n 1
} >"$C/coverage.txt"
cat "$C/coverage.txt"
exit $rc
