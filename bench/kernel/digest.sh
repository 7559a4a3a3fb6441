#!/bin/sh
# bench/kernel/digest.sh SUMMARY.JSON - the two tables BENCHMARKS.md's
# "Latest results" shows, from report.sh's summary.json: residency
# (median % of package-time, every config, the system all-idle share of
# stock and L2) and the packed p99 (the worst packable class, pack or
# balanced, in ms, and its ratio to the same run's stock), for steady,
# bursty, mixed, busyspread and the 15/30/50% ramps. Prints markdown.
set -eu
[ -s "$1" ] || { echo "digest.sh: no summary '$1' (report.sh writes it)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
jq -L "$here" -r 'include "fmt";
def name: if .load == null then .scenario else "\(.scenario) \(.load)%" end;
def worst: [.classes | to_entries[] | select(.key == "pack" or .key == "balanced") | .value.p99.med // empty] | max;
def wratio: [.p99_vs_stock // {} | to_entries[] | select(.key == "pack" or .key == "balanced") | .value] | max;
(.rows | map(select(.load == null or .load == 15 or .load == 30 or .load == 50))) as $rows |
($rows | map(.config) | unique | sort_by(cord)) as $confs |
($rows | map({topo, scenario, load}) | unique | sort_by(.topo, (.scenario | ord), .load)) as $keys |
def row($k; $c): first($rows[] | select(.topo == $k.topo and .scenario == $k.scenario and .load == $k.load and .config == $c)) // null;
"#### Residency (median %)",
"",
"| topology | scenario | limit % | " + ($confs | join(" | ")) + " | system all-idle % stock / L2 |",
"|---|---|---|" + ($confs | map("---|") | join("")) + "---|",
($keys[] as $k |
	"| \($k.topo) | \($k | name) | \(row($k; "stock").limit.med // row($k; "L2").limit.med | f1) | " +
	($confs | map(row($k; .).resid.med | f1) | join(" | ")) +
	" | \(row($k; "stock").sys_resid.med | f1) / \(row($k; "L2").sys_resid.med | f1) |"),
"",
"#### Packed p99 wakeup latency (ms; x the same run'"'"'s stock)",
"",
"| topology | scenario | " + ($confs | join(" | ")) + " |",
"|---|---|" + ($confs | map("---|") | join("")),
($keys[] as $k |
	"| \($k.topo) | \($k | name) | " +
	($confs | map(. as $c | row($k; $c) | if . == null then "-" else
		((worst // null) / 1000 | f1) + (if $c == "stock" then "" else " (\(wratio * 100 | round / 100)x)" end) end) | join(" | ")) + " |")
' "$1"
