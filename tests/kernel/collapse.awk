# collapse.awk - the emulator's collapse, found in a guest's result file
# (tests/kernel/run.sh; awk -f collapse.awk GUEST.result).
#
# The collapse (kernel/README.md, "The emulator's collapse"): most vCPUs
# stop making progress while the guest's scheduler thinks they run, and
# vcwork's threads on them, though "running", do almost no work. Seen two
# ways: the CPUs account almost no time at all in /proc/stat, idle or
# busy (the vCPUs did not run), or they spend nearly every tick in
# softirq context without running a softirq handler. It is the testbed
# failing, not the scheduler under test.
#
# Reads vcwork's per-CPU lines ("VCP-DATA RUN {"type":"cpu",...,
# "intr_pct":I,"acct_pct":A}") and prints one line for each vcwork run in
# which at least half the CPUs, and at least 2, are stuck: in interrupt
# context for >= LIMIT% (default 50) of the window, or accounting less
# than ACCT% (default 10) of it (a busy CPU accounts its time by ticks,
# and ticks a busy vCPU misses under TCG are not accounted: healthy
# guests' busy CPUs account 32-100% of the window, a collapse's 0.5%):
#   RUN: H of N CPUs stuck (CPU:intr I|acct A ...)
# Prints nothing when no run collapsed. Lines without intr_pct (an older
# vcwork) are ignored; without acct_pct only intr_pct counts.
BEGIN {
	if (limit == "")
		limit = 50
	if (acct == "")
		acct = 10
}
function num(s, key) {
	if (!match(s, "\"" key "\":[0-9.]+"))
		return ""
	return substr(s, RSTART + length(key) + 3, RLENGTH - length(key) - 3) + 0
}
$1 == "VCP-DATA" && index($0, "\"type\":\"cpu\"") && index($0, "\"intr_pct\":") {
	run = $2
	if (!(run in n))
		order[++nruns] = run
	n[run]++
	i = num($0, "intr_pct")
	a = num($0, "acct_pct")
	why = ""
	if (i >= limit)
		why = "intr " i
	else if (a != "" && a < acct)
		why = "acct " a
	if (why != "") {
		hot[run]++
		list[run] = list[run] (list[run] == "" ? "" : " ") num($0, "cpu") ":" why
	}
}
END {
	for (k = 1; k <= nruns; k++) {
		r = order[k]
		if (n[r] >= 2 && hot[r] >= 2 && 2 * hot[r] >= n[r])
			printf "%s: %d of %d CPUs stuck (%s)\n", r, hot[r], n[r], list[r]
	}
}
