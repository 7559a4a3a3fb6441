#!/bin/sh
# run.sh - schema tests for xml/ (libvirt's virschematest habit): every
# xml/examples/*.xml must validate against its RelaxNG schema, and every
# *-invalid.xml must fail. state-*.xml are checked against
# xml/vcpack-state.rng, host-*.xml against xml/vcpack-host.rng, all
# others against xml/vcpack-metadata.rng.
# The C parsers are held to the same examples by tests/unit/test_tags.c.
# Last line: "schema: N passed, N failed"; exit status 1 on any failure.
top=$(cd "$(dirname "$0")/../.." && pwd)
xml="$top/xml"
passed=0
failed=0

if ! command -v xmllint >/dev/null 2>&1; then
	echo "schema: xmllint not found (package libxml2-utils)" >&2
	exit 1
fi

ok() { passed=$((passed + 1)); }
ko() { echo "FAIL: $1"; failed=$((failed + 1)); }

for rng in "$xml"/*.rng; do
	if xmllint --noout "$rng" >/dev/null 2>&1; then ok
	else ko "$(basename "$rng") is not well-formed"; fi
done

n=0
for f in "$xml"/examples/*.xml; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	case "$name" in
	state-*) rng="$xml/vcpack-state.rng" ;;
	host-*) rng="$xml/vcpack-host.rng" ;;
	*) rng="$xml/vcpack-metadata.rng" ;;
	esac
	out=$(xmllint --noout --relaxng "$rng" "$f" 2>&1)
	rc=$?
	case "$name" in
	*-invalid.xml)
		if [ $rc -ne 0 ]; then ok
		else ko "$name validates against $(basename "$rng") but must not"; fi ;;
	*)
		if [ $rc -eq 0 ]; then ok
		else ko "$name does not validate against $(basename "$rng"): $out"; fi ;;
	esac
done
[ $n -gt 0 ] || ko "no examples in $xml/examples"

echo "schema: $passed passed, $failed failed"
[ $failed -eq 0 ]
