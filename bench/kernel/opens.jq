# bench/kernel/opens.jq - a run.sh --waits run's results.jsonl as a table
# of what wakes each package (vcresid opens): per topology, config,
# scenario and load, summed over the repeats and packages, how often a
# package's all-idle stretch was ended per second of window, and the
# share of the packages' awake time that followed each cause: a thread
# woken where it last ran, a wakeup moved into the package, a thread the
# balancer moved while runnable, a thread first seen, another task, or
# awake as the window opened. The median residency of the same runs is
# beside it (a --waits run's residency is not the benchmark's).
#   jq -r -s -f opens.jq DIR/results.jsonl
def med: sort | if length == 0 then null
	else (if length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end) end;
def pct($n; $d): if $d == 0 then "-" else ($n * 100 / $d | round | tostring) end;
["wake_home", "wake_moved", "pulled", "first", "other", "at_start"] as $causes
| "| topology | config | scenario | load % | residency % | opens / s | awake time %: woken home / wakeup moved in / pulled / first / other / at start | other tasks |",
  "|---|---|---|---|---|---|---|---|",
  ( [ .[] | select(.type == "wopen" or .type == "wopentotal" or .type == "rtotal") ]
    | group_by([.topo, .config, .scenario, .load])[]
    | . as $g
    | [ $g[] | select(.type == "wopen") ] as $o
    | select($o | length > 0)
    | ([ $g[] | select(.type == "wopentotal") | .window_ms ] | add) as $win
    | ([ $causes[] as $c | $o | map(.["ms_" + $c]) | add ] | add) as $awake
    | ([ $causes[] as $c | select($c != "at_start") | $o | map(.["n_" + $c]) | add ] | add) as $n
    | "| \($g[0].topo) | \($g[0].config) | \($g[0].scenario) | \($g[0].load // "-") | \([ $g[] | select(.type == "rtotal") | .all_idle_pct ] | med) | "
      + (if $win > 0 then ($n * 1000 / $win * 10 | round / 10 | tostring) else "-" end)
      + " | "
      + ([ $causes[] as $c | pct($o | map(.["ms_" + $c]) | add; $awake) ] | join(" / "))
      + " | \([ $g[] | select(.type == "wopentotal") | .other_comms | select(. != "") ] | join(","))"
      + " |" )
