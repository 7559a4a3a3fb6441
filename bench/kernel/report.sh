#!/bin/sh
# bench/kernel/report.sh DIR [MODEL] - the kernel benchmark's report.
#
# Reads DIR/results.jsonl (run.sh) and the power model (default
# bench/kernel/power-model.json); writes
#   DIR/summary.json   runs, rows (medians, min, max per topology,
#                      scenario, load and config), targets, the model
#   DIR/table.md       the markdown tables BENCHMARKS.md shows
#   DIR/plots/*.svg    residency and p99 against load, a bursty timeline
# and prints table.md. Exit 1 when a run failed or nothing was measured.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir=$1
model=${2:-$here/power-model.json}
[ -s "$dir/results.jsonl" ] || { echo "report.sh: no $dir/results.jsonl" >&2; exit 1; }
command -v jq >/dev/null || { echo "report.sh: jq is missing (scripts/deps.sh)" >&2; exit 1; }

jq -s --argjson model "$(cat "$model")" -f "$here/report.jq" \
	"$dir/results.jsonl" >"$dir/summary.json"

# ---- tables ----
jq -L "$here" -r 'include "fmt";
def f0: if . == null then "-" else (. | round | tostring) end;
def pct: if . == null then "-" else (. * 100 | round | tostring) + "%" end;
def spread: if .med == null then "-" else (.med | f1) + " [" + (.min | f1) + "-" + (.max | f1) + "]" end;
def us: if . == null or .med == null then "-" else (.med | f0) end;
def sav: if . == null then "" elif (. | fabs) < 0.005 then " (0%)" else " (" + (if . > 0 then "-" else "+" end) + ((. | fabs) * 100 | round | tostring) + "%)" end;
def pts: if . == null then "-" else (if . > 0 then "+" else "" end) + (. * 10 | round / 10 | tostring) end;
def ratio: if . == null then "-" else (. * 100 | round / 100 | tostring) + "x" end;
def ms: if . == null or .med == null then "-" else (.med / 100 | round / 10 | tostring) end;
def done: if . == null or .done.med == null then "-" else (.done.med | pct) end;
def rowof($t; $s; $l; $c): first(.rows[] | select(.topo == $t and .scenario == $s and .load == $l and .config == $c)) // null;
(.rows | map(.topo) | unique) as $topos |
(.runs | length) as $nruns |
(.runs | map(select(.ok | not)) | length) as $bad |
(.scx.ejected // 0) as $ej |
(.runs | map(select(.collapsed)) | length) as $col |
(if .passes.rows > 0 then " Run to run: the two passes of the whole benchmark differ in median residency by \(.passes.resid_median_diff | f1) points (median over rows; largest \(.passes.resid_max_diff | f1))." else "" end) as $pp |
"Runs: \($nruns) (\($bad) failed, lost events or the emulator collapsed\(if $col > 0 then " (\($col) collapsed: most CPUs stuck in interrupt context or accounting no time, not counted)" else "" end)\(if (.scx.runs // 0) > 0 then ", of which \($ej) scx runs whose scheduler was ejected or not recorded loaded during the job: not counted" else "" end)). Residency: share of the window in which every CPU of a package ran the idle task, mean over packages (ftrace sched_switch); [min-max] over repeats. Limit: the same for a perfect packer on the workload'"'"'s own schedule, instant (packages needed at each instant) / peak (packages needed for the peak demand, kept awake throughout). Deep: residency in idle stretches of at least \(.model.min_stretch). System: share of the window in which every CPU of the guest was idle at once (package C6 of an Intel Xeon needs it; \"-\": not measured by that run'"'"'s vcresid). p99: wakeup latency (us) pooled per class. Done: bursts completed of those due. Power: modelled, not measured (power-model.json: xeon, package C6 only while the whole system is idle; epyc, per-socket package state, unverified), change against stock in brackets.\($pp)",
"",
($topos[] as $t |
 "### \($t)", "",
 "| scenario | load | config | residency % | limit % instant / peak | of limit | deep % | system % | p99 spread | p99 pack | p99 balanced | done | xeon W (modelled) | epyc W (modelled) |",
 "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
 (.rows | map(select(.topo == $t)) | sort_by([(.scenario | ord), (.load // 0), (.config | cord)])[] |
  "| \(.scenario) | \(.load // "-") | \(.config) | \(.resid | spread) | \(.limit.med | f1) / \(.limit_peak | f1) | \(.of_limit | pct) | \(.resid_deep.med | f1) | \(.sys_resid | spread) | \(.classes.spread.p99 | us) | \(.classes.pack.p99 | us) | \(.classes.balanced.p99 | us) | \([.classes[] | .done.med] | map(select(. != null)) | if length > 0 then (min | pct) else "-" end) | \(.power.xeon.med | f1)\(.saving.xeon | sav) | \(.power.epyc.med | f1)\(.saving.epyc | sav) |"),
 ""),
(if (.scx.runs // 0) > 0 then
 "### sched_ext: scx_vcpack against the patched kernel", "",
 "The stock kernel (with sched_ext) running scx_vcpack, the BPF scheduler, at level 1 or 2 (scx-L1, scx-L2), beside the patched kernel at the same level (L1, L2) and stock, on the same jobs. Residency: median %; scx - patched in points. p99 pack: wakeup latency of pack tasks, ms. Done: bursts done, lowest class. Rows \(.scx.rows_vs_patched): scx - patched residency median \(.scx.resid_diff_median | pts) points (\(.scx.resid_diff_min | pts) to \(.scx.resid_diff_max | pts)).", "",
 "| topology | scenario | load | level | limit % | stock | patched | scx | scx - patched | p99 pack stock / patched / scx | scx p99 vs patched | done patched / scx |",
 "|---|---|---|---|---|---|---|---|---|---|---|---|",
 (. as $all | .rows | map(select(.config | test("^scx-"))) |
  sort_by([.topo, (.scenario | ord), (.load // 0), (.config | cord)])[] |
  . as $x | ($all | rowof($x.topo; $x.scenario; $x.load; "stock")) as $s |
  ($all | rowof($x.topo; $x.scenario; $x.load; $x.vs_patched.config // "")) as $p |
  def lowdone: [.classes[] | .done.med] | map(select(. != null)) | if length > 0 then (min | pct) else "-" end;
  "| \($x.topo) | \($x.scenario) | \($x.load // "-") | \($x.config | sub("^scx-L"; "")) | \($x.limit.med | f1) | \($s.resid.med | f1) | \($p.resid.med | f1) | \($x.resid | spread) | \($x.vs_patched.resid_diff | pts) | \($s.classes.pack.p99 | ms) / \($p.classes.pack.p99 | ms) / \($x.classes.pack.p99 | ms) | \($x.vs_patched.p99_ratio.pack | ratio) | \(if $p == null then "-" else ($p | lowdone) end) / \($x | lowdone) |"),
 ""
else empty end),
"### Targets", "",
"| target | topology | case | value | goal | met |",
"|---|---|---|---|---|---|",
(.targets[] |
 "| \(.target) | \(.topo) | \(.scenario)\(if .load != null then " " + (.load | tostring) + "%" else "" end) \(.config)\(if .class then " (" + .class + ")" else "" end) | \(if .value == null then "-" elif (.target | test("limit")) then (.value | pct) elif (.target | test("level 0 residency|work done")) then (.value | f1) + " pts" else (.value * 100 | round / 100 | tostring) + "x" end) | \(if (.target | test("limit")) then (.goal | pct) elif (.target | test("level 0 residency|work done")) then "<= " + (.goal | f1) + " pts" elif .goal == null then "ranges overlap" else "<= " + (.goal | tostring) + "x" end) | \(if .met then "yes" else "**no**" end) |")
' "$dir/summary.json" >"$dir/table.md"

# ---- plots ----
mkdir -p "$dir/plots"
if command -v gnuplot >/dev/null; then
	for t in $(jq -r '.rows | map(.topo) | unique | .[]' "$dir/summary.json"); do
		for c in stock stock-pin L0 L1 L2 scx-L1 scx-L2 limit; do
			jq -r --arg t "$t" --arg c "$c" '
				.rows | map(select(.topo == $t and .scenario == "ramp" and
					.config == (if $c == "limit" then "stock" else $c end))) |
				sort_by(.load)[] |
				if $c == "limit" then "\(.load) \(.limit.med) \(.limit.min) \(.limit.max) - - -"
				else "\(.load) \(.resid.med) \(.resid.min) \(.resid.max) \(.classes.pack.p99.med // "-") \(.classes.pack.p99.min // "-") \(.classes.pack.p99.max // "-")" end
			' "$dir/summary.json" >"$dir/plots/$t-$c.dat"
		done
		# scx_vcpack's lines, when the run had its configs
		scxr= scxp=
		for c in scx-L1 scx-L2; do
			[ -s "$dir/plots/$t-$c.dat" ] || continue
			scxr="$scxr, \\
     \"$dir/plots/$t-$c.dat\" u 1:2:3:4 w yerrorlines dt 2 t \"scx_vcpack, level ${c#scx-L}\" noenhanced"
			scxp="$scxp, \\
     \"$dir/plots/$t-$c.dat\" u 1:5:6:7 w yerrorlines dt 2 t \"scx_vcpack, level ${c#scx-L}\" noenhanced"
		done
		gnuplot <<EOF
set terminal svg size 720,440 dynamic font "sans,12"
set datafile missing "-"
set key top right
set grid
set xlabel "host load (% of CPUs, ramp scenario)"
set output "$dir/plots/residency-$t.svg"
set title "Package-idle residency against load, $t"
set ylabel "all-idle residency (% of package-time)"
set yrange [0:100]
plot "$dir/plots/$t-limit.dat" u 1:2 w lp lw 3 lc rgb "black" pt 7 t "limit (perfect packer)", \
     "$dir/plots/$t-stock.dat" u 1:2:3:4 w yerrorlines t "stock 6.12", \
     "$dir/plots/$t-stock-pin.dat" u 1:2:3:4 w yerrorlines t "stock + vcpack pins", \
     "$dir/plots/$t-L0.dat" u 1:2:3:4 w yerrorlines t "patched, level 0", \
     "$dir/plots/$t-L1.dat" u 1:2:3:4 w yerrorlines t "patched, level 1", \
     "$dir/plots/$t-L2.dat" u 1:2:3:4 w yerrorlines t "patched, level 2"$scxr
set output "$dir/plots/p99-$t.svg"
set title "p99 wakeup latency of packed (pack) tasks against load, $t"
set ylabel "p99 wakeup latency (us, guest time)"
set yrange [*:*]
set logscale y
plot "$dir/plots/$t-stock.dat" u 1:5:6:7 w yerrorlines t "stock 6.12", \
     "$dir/plots/$t-stock-pin.dat" u 1:5:6:7 w yerrorlines t "stock + vcpack pins", \
     "$dir/plots/$t-L0.dat" u 1:5:6:7 w yerrorlines t "patched, level 0", \
     "$dir/plots/$t-L1.dat" u 1:5:6:7 w yerrorlines t "patched, level 1", \
     "$dir/plots/$t-L2.dat" u 1:5:6:7 w yerrorlines t "patched, level 2"$scxp
EOF
	done
	# one bursty run, per-package timeline: stock against level 2
	t=$(jq -r '.rows | map(.topo) | unique | .[0]' "$dir/summary.json")
	for c in stock L2; do
		jq -r --arg j "$t/$c/bursty/-/1/1" \
			'select(.job == $j and .type == "rslot") | "\(.t_ms) \(.all_idle | gsub(","; " "))"' \
			"$dir/results.jsonl" >"$dir/plots/timeline-$c.dat"
	done
	np=$(awk 'NR == 1 { print NF - 1 }' "$dir/plots/timeline-stock.dat")
	if [ -n "$np" ]; then
		plots=
		for p in $(seq 0 $((np - 1))); do
			plots="$plots${plots:+, }\"$dir/plots/timeline-stock.dat\" u (\$1/1000):(\$$((p + 2))+$((p * 110))) w steps lc $((p + 1)) lw 1 t \"package $p, stock\", \"$dir/plots/timeline-L2.dat\" u (\$1/1000):(\$$((p + 2))+$((p * 110))) w steps lc $((p + 3)) lw 3 t \"package $p, level 2\""
		done
		gnuplot <<EOF
set terminal svg size 720,$((200 + np * 90)) dynamic font "sans,12"
set output "$dir/plots/timeline-bursty-$t.svg"
set title "One bursty run on $t: all-idle share of each package per 250 ms (offset 110 per package)"
set xlabel "time in the measurement window (s, guest time)"
set ylabel "all-idle % (package p drawn at +110 p)"
set key outside bottom horizontal
set grid
plot $plots
EOF
	fi
else
	echo "report.sh: gnuplot is missing: no plots (scripts/deps.sh --kernel)" >&2
fi

cat "$dir/table.md"
bad=$(jq '[.runs[] | select(.ok | not)] | length' "$dir/summary.json")
rows=$(jq '.rows | length' "$dir/summary.json")
[ "$bad" = 0 ] && [ "$rows" -gt 0 ]
