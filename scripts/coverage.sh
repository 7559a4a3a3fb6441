#!/bin/sh
# coverage.sh BUILD_DIR COV_DIR - line coverage of the unit and
# integration suites (make coverage). Everything is built once more with
# gcc --coverage in COV_DIR (its own tree: the normal build is not
# touched), old counters are dropped, both suites run against that build,
# then gcovr prints per-file line coverage of host-agent/src and two
# totals: the library (the program files cli*.c, daemon.c, powernice.c
# left out: integration tests drive them, but their option parsing and
# printing are not the pure logic the figure is about) and everything.
# The summary goes to COV_DIR/coverage.txt too. Exit 1 when a suite
# failed (the figures are still printed).
set -u
B=${1:-build}
C=${2:-$B/cov}
MAKE=${MAKE:-make}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
command -v gcovr >/dev/null || {
	echo "coverage: gcovr is missing (scripts/deps.sh installs it)" >&2; exit 2; }
mkdir -p "$C"
find "$C" -name '*.gcda' -delete
rc=0
$MAKE --no-print-directory B="$C" CFLAGS="-O0 -g --coverage" \
	LDFLAGS="--coverage" check-unit >"$C/unit.log" 2>&1 || rc=1
tail -n 1 "$C/unit.log"
$MAKE --no-print-directory B="$C" CFLAGS="-O0 -g --coverage" \
	LDFLAGS="--coverage" check-integration >"$C/integration.log" 2>&1 || rc=1
tail -n 1 "$C/integration.log"
[ $rc = 0 ] || echo "coverage: a suite failed (logs: $C/unit.log, $C/integration.log)"

mains='host-agent/src/(cli|cli-fleet|cli-trial|daemon|powernice)\.c'
{
	echo "== line coverage of host-agent/src, library (program files left out)"
	gcovr -r . --object-directory "$C" -f 'host-agent/src/' -e "$mains" \
		--sort-percentage
	echo "== the program files"
	gcovr -r . --object-directory "$C" -f "$mains" --sort-percentage |
		sed -n '/^File/,$p'
	echo "== everything under host-agent/src"
	gcovr -r . --object-directory "$C" -f 'host-agent/src/' |
		tail -n 2 | head -n 1
} 2>&1 | tee "$C/coverage.txt"
exit $rc
