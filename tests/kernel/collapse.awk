# collapse.awk - the emulator's collapse, found in a guest's result file
# (tests/kernel/run.sh; awk -f collapse.awk GUEST.result).
#
# The collapse (kernel/README.md, "The emulator's collapse"): most CPUs,
# idle ones too, spend nearly every tick in softirq context without
# running a softirq handler, and vcwork's threads, though "running", do
# almost no work. It is the testbed failing, not the scheduler under
# test, and deterministic for a kernel image, initramfs and command line.
#
# Reads vcwork's per-CPU lines ("VCP-DATA RUN {"type":"cpu",...,
# "intr_pct":P}") and prints one line for each vcwork run in which at
# least half the CPUs, and at least 2, spent >= LIMIT% (default 50) of the
# window in interrupt context:
#   RUN: H of N CPUs in interrupt context >= LIMIT% of the window (CPU:P ...)
# Prints nothing when no run collapsed. Results of a vcwork without
# intr_pct are ignored.
BEGIN {
	if (limit == "")
		limit = 50
}
$1 == "VCP-DATA" && index($0, "\"type\":\"cpu\"") && index($0, "\"intr_pct\":") {
	run = $2
	if (!(run in n))
		order[++nruns] = run
	s = $0
	match(s, /"cpu":[0-9]+/)
	cpu = substr(s, RSTART + 6, RLENGTH - 6)
	match(s, /"intr_pct":[0-9.]+/)
	p = substr(s, RSTART + 11, RLENGTH - 11) + 0
	n[run]++
	if (p >= limit) {
		hot[run]++
		list[run] = list[run] (list[run] == "" ? "" : " ") cpu ":" p
	}
}
END {
	for (i = 1; i <= nruns; i++) {
		r = order[i]
		if (n[r] >= 2 && hot[r] >= 2 && 2 * hot[r] >= n[r])
			printf "%s: %d of %d CPUs in interrupt context >= %s%% of the window (%s)\n",
			       r, hot[r], n[r], limit, list[r]
	}
}
