# bench/kernel/opens.jq - a run.sh --waits run's results.jsonl as a table
# of what wakes each package (vcresid opens), per topology, config,
# scenario and load, summed over the repeats and packages: how often a
# package's all-idle stretch ended (per second of window), how many of
# those openings came while another package was awake (what a packer that
# fits the load into fewer packages avoids) and what made them: a thread
# woken where it last ran, a wakeup moved into the package, a thread the
# balancer moved while runnable, a thread first seen, another task; the
# awake time that followed them (ms per second of window); and the share
# of the woken-home openings whose CPU had been idle under 0.5 ms (the
# task cache-hot there). The median residency of the same runs is beside
# it (a --waits run's residency is not the benchmark's).
#   jq -r -s -f opens.jq DIR/results.jsonl
def med: sort | if length == 0 then null
	else (if length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end) end;
def pct($n; $d): if $d == 0 then "-" else ($n * 100 / $d | round | tostring) end;
def r1: . * 10 | round / 10 | tostring;
["wake_home", "wake_moved", "pulled", "first", "other"] as $causes
| "| topology | config | scenario | load % | residency % | opens / s | % over another package | of those, %: woken home / moved in / pulled / first / other | awake ms / s after them | woken home: % hot |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ( [ .[] | select(.type == "wopen" or .type == "wopentotal" or .type == "rtotal") ]
    | group_by([.topo, .config, .scenario, .load])[]
    | . as $g
    | [ $g[] | select(.type == "wopen") ] as $o
    | select($o | length > 0)
    | ([ $g[] | select(.type == "wopentotal") | .window_ms ] | add / 1000) as $win
    | ([ $causes[] as $c | $o | map(.["n_" + $c]) | add ] | add) as $n
    | ([ $causes[] as $c | $o | map(.["n_over_" + $c]) | add ] | add) as $nover
    | ([ $causes[] as $c | $o | map(.["ms_over_" + $c]) | add ] | add) as $msover
    | "| \($g[0].topo) | \($g[0].config) | \($g[0].scenario) | \($g[0].load // "-") | \([ $g[] | select(.type == "rtotal") | .all_idle_pct ] | med) | "
      + (if $win > 0 then ($n / $win | r1) else "-" end)
      + " | \(pct($nover; $n)) | "
      + ([ $causes[] as $c | pct($o | map(.["n_over_" + $c]) | add; $nover) ] | join(" / "))
      + " | " + (if $win > 0 then ($msover / $win | r1) else "-" end)
      + " | \(pct($o | map(.n_home_hot) | add; $o | map(.n_wake_home) | add)) |" )
