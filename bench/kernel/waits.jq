# bench/kernel/waits.jq - a run.sh --waits run's results.jsonl as a table:
# per topology, config, load and packable class, the median over repeats
# of vcwork's wakeup p99 (timer to running) and of the trace's wait p99
# (sched_wakeup to running), the share of wakeups queued on each kind of
# CPU (vcresid waits), and where the waits at or above each repeat's p99
# were queued, summed over the repeats; the share of wakeups queued on the
# CPU that takes the testbed's pacing interrupt, how many of the tail
# waits were, and the median p99 of the waits queued elsewhere.
#   jq -r -s -f waits.jq DIR/results.jsonl
def med: sort | if length == 0 then null
	else (if length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end) end;
def r1: if . == null then "-" else (. * 10 | round / 10 | tostring) end;
def ms: if . == null then "-" else (. / 100 | round / 10 | tostring) end;
def pct($n; $d): if $d == 0 then "-" else ($n * 100 / $d | round | tostring) end;
["idle", "idle_taken", "pkg_idle", "pkg_full", "all_busy"] as $cats
| "| topology | config | load % | class | wake p99 ms (vcwork) | wait p99 ms (trace) | wakeups | % on idle / idle, taken / busy, package idle / busy, package full / none idle | p99 tail: idle / idle, taken / busy, pkg idle / pkg full / none idle (behind a vcwork thread) | % on the pacing CPU | p99 tail on it | wait p99 ms elsewhere |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ( [ .[] | select(.type == "wclass" or (.type == "class")) ]
    | group_by([.topo, .config, .load, .class])[]
    | select(.[0].class == "pack" or .[0].class == "balanced")
    | . as $g
    | [ $g[] | select(.type == "wclass") ] as $w
    | select($w | length > 0)
    | [ $g[] | select(.type == "class") | .wake_p99_us ] as $vp
    | ($w | map(.wakeups) | add) as $n
    | "| \($g[0].topo) | \($g[0].config) | \($g[0].load) | \($g[0].class) | \($vp | med | ms) | \($w | map(.p99_us) | med | ms) | \($n) | "
      + ([ $cats[] as $c | pct($w | map(.["n_" + $c] // 0) | add; $n) ] | join(" / "))
      + " | "
      + ([ $cats[] as $c | ($w | map(.["tail_" + $c] // 0) | add | tostring) ] | join(" / "))
      + " (\($w | map(.tail_behind_thread) | add)) | "
      + "\(pct($w | map(.n_on_pace // 0) | add; $n)) | \($w | map(.tail_on_pace // 0) | add) | \($w | map(.p99_off_pace_us // null) | map(select(. != null)) | med | ms) |" )
