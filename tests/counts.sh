# counts.sh - sourced by the test runners and scripts/check.sh: the
# "N passed, N failed, N skipped" lines every suite ends with.
#
# A runner ends with one such line for the whole suite (optionally after
# a word and a colon: "integration: 120 passed, 0 failed, 2 skipped");
# `make check` takes each suite's last line of that form and sums them.
# ", N skipped" may be left out (0). A runner that adds a test only needs
# the test to print such a line; counts_of adds it in.

COUNTS_RE='[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?'

# counts_of FILE RC - the last counts line of FILE as
# "P passed, F failed, S skipped". A non-zero RC with no failure counted
# (a crash, a build error, a runner that stopped early) is one failure.
counts_of() {
	grep -Eo "$COUNTS_RE" "$1" 2>/dev/null | tail -n 1 |
		awk -v rc="$2" '
		{ p = $1; f = $3; s = ($5 == "" ? 0 : $5) }
		END {
			if (rc != 0 && f + 0 == 0) f = 1
			printf "%d passed, %d failed, %d skipped\n", p, f, s
		}'
}

# counts_sum - the sum of every counts line on stdin, in the same form.
counts_sum() {
	grep -Eo "$COUNTS_RE" | awk '
		{ p += $1; f += $3; s += ($5 == "" ? 0 : $5) }
		END { printf "%d passed, %d failed, %d skipped\n", p, f, s }'
}

# counts_failed LINE - exit 0 when LINE counts a failure
counts_failed() {
	case $1 in
	*" 0 failed"*) return 1 ;;
	*) return 0 ;;
	esac
}
