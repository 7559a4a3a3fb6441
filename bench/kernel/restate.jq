# bench/kernel/restate.jq - restate a published summary.json's MODELLED
# savings under the per-vendor model (power-model.json), for runs made
# before vcresid reported the system all-idle residency.
#
#   jq -r --argjson model "$(cat bench/kernel/power-model.json)" \
#       -f bench/kernel/restate.jq bench/results/kernel/summary.json
#
# The published "xeon" figures assumed a package sleeps (sleep_w) for its
# whole deep all-idle residency r. Under the system-scope Xeon profile it
# sleeps only during the system all-idle residency s and gets cc6_floor_w
# for the rest of r. Those runs did not measure s, so the restatement takes
# s = 0: a host that is never idle as a whole, the case of a consolidation
# host carrying other load. Per package the power then rises by
# r * (cc6_floor_w - sleep_w); summed over n packages, from the row's
# medians: W' = W + n * r_deep * (cc6_floor_w - sleep_w). (Medians of W and
# r are taken over the same runs but need not come from one run: an
# approximation, good to the spread of the row.) EPYC keeps its
# per-socket profile (unverified): its published figures stand.
# Output: a markdown table, level 2 against stock: the patched kernel (L2)
# and, where the run had it, scx_vcpack on the stock kernel (scx-L2).

def pct: if . == null then "-" else
	((. * 100 | round) as $v | if $v == 0 then "0%"
	 elif $v > 0 then "-\($v)%" else "+\(- $v)%" end) end;
def prof($m; $n): $m.profiles | map(select(.name == $n)) | .[0];
def pkgs: capture("(?<p>[0-9]+)x") | .p | tonumber;
def ord: {"steady": 0, "bursty": 1, "mixed": 2, "ramp": 3}[.] // 9;
def cord: {"L2": 0, "scx-L2": 1}[.] // 9;

prof($model; "xeon") as $x | prof(.model; "xeon") as $old |
if $old == null or $x == null or $x.pc6_scope != "system" or
   ([$old.awake_idle_w, $old.sleep_w, $old.core_w] !=
    [$x.awake_idle_w, $x.sleep_w, $x.core_w])
then error("restate.jq: the published xeon profile differs from the model's; rerun the benchmark")
else . end |
($x.cc6_floor_w - $x.sleep_w) as $dw |
def sys0($r): $r.power.xeon.med +
	($r.topo | pkgs) * $r.resid_deep.med / 100 * $dw;
.rows as $rows |
"| topology | scenario | config | stock deep % | deep % | xeon, per-package PC6 (published, modelled) | xeon, PC6 only with the whole system idle, never idle (modelled) | epyc, per-socket (modelled, unverified) |",
"|---|---|---|---|---|---|---|---|",
($rows | map(select((.config == "L2" or .config == "scx-L2") and (.load // 0) <= 50)) |
 sort_by([.topo, (.scenario | ord), (.load // 0), (.config | cord)])[] as $r |
 ($rows | map(select(.topo == $r.topo and .scenario == $r.scenario and
	.load == $r.load and .config == "stock")) | .[0]) as $s |
 select($s != null) |
 "| \($r.topo) | \($r.scenario)\(if $r.load != null then " \($r.load)%" else "" end) | \($r.config) | \($s.resid_deep.med * 10 | round / 10) | \($r.resid_deep.med * 10 | round / 10) | \($r.saving.xeon | pct) | \(1 - sys0($r) / sys0($s) | pct) | \($r.saving.epyc | pct) |")
