# numa: gathering meets NUMA balancing (issue 15: "a task whose memory is
# on the sleeping node"). numa2x4: two packages, one NUMA node each. VM
# `home` (2 steady `pack` threads) has its memory on node 0, VM `away`
# (1 steady `pack` thread) on node 1: each thread writes a line of a new
# page of its 16 MB buffer with every unit of work (vcwork mem=,
# memnode=). Stock placement keeps `away` next to its memory; gathering
# moves it to node 0, and NUMA balancing (kernel.numa_balancing=1) then
# either moves the task back to its memory (and the packages never rest)
# or moves the memory to the task. Level 1 is set 5 s into each run, when
# NUMA balancing has seen `away` on node 1 for a few scan periods. Per
# run: where `away` ran (package per 1 s slot), its package migrations,
# its pages per node after the first touch and at the end, the packages'
# busy shares and their idle shares over the second half of the window,
# as VCP-INFO lines; checks:
#   numa-l0:     level 0 with NUMA balancing: `away` stays on node 1
#                with its memory (the unpatched behaviour).
#   numa-l1:     level 1 with NUMA balancing: gathered (one package idle
#                >= 90% over the second half of the window), and the
#                memory followed the tasks (>= 90% of all threads' pages
#                on the awake node at the end): the two do not fight.
#   numa-l1-off: level 1 without NUMA balancing: gathered; the memory
#                stays where it was (figures only).
. /scenarios/lib.sh

NB=/proc/sys/kernel/numa_balancing
DUR=${VCP_NUMA_DURATION:-16}
nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
echo "numa: $(nproc) CPUs, $nodes NUMA node(s)"
if [ "$nodes" -lt 2 ] || [ ! -f "$NB" ]; then
	vcp_skip numa "needs 2 NUMA nodes and CONFIG_NUMA_BALANCING (nodes $nodes)"
	exit 0
fi

# numa_run NAME [LEVEL]: the two VMs; with LEVEL, that level is set
# 5 s into the run (after NUMA balancing has seen `away` on node 1 for
# a few scan periods: its preferred node is 1 by then).
numa_run() {
	[ -n "${2:-}" ] && (sleep 5; vcp_set_level "$2") &
	vcp_run "$1" --warmup 2 --duration "$DUR" --slot-ms 1000 \
		--vm "name=home,threads=2,class=pack,duty=100,mem=16,memnode=0" \
		--vm "name=away,threads=1,class=pack,duty=100,mem=16,memnode=1"
	wait
}

# away_field RUN KEY: the `away` thread's KEY.
away_field() { jsel "$1" thread "$2" away; }

# node_pct "N0,N1" NODE: NODE's share of the pages, in percent.
node_pct() {
	echo "$1" | awk -F, -v n="$2" '{
		for (i = 1; i <= NF; i++) t += $i
		print t ? int(100 * $(n + 1) / t) : 0 }'
}

# pages_on RUN NODE: the share (%) of all threads' pages on NODE at the end.
pages_on() {
	awk -v n="$2" 'index($0, "\"type\":\"thread\"") &&
		match($0, /"mem_nodes_end":"[0-9,]*"/) {
		k = split(substr($0, RSTART + 17, RLENGTH - 18), c, ",")
		for (i = 1; i <= k; i++) { t += c[i]; if (i == n + 1) on += c[i] }
	}
	END { print t ? int(100 * on / t) : 0 }' "/tmp/$1.out"
}

# late_idle RUN: per package, its idle share over the second half of the
# window from the slot lines (pkg_busy per 1 s slot), "idle0/idle1".
late_idle() {
	awk -v w=2000 -v d="$DUR" '
	index($0, "\"type\":\"slot\"") && index($0, "\"warmup\":false") {
		match($0, /"t_ms":[0-9]+/); t = substr($0, RSTART + 7, RLENGTH - 7) + 0
		if (t < w + d * 500) next
		match($0, /"pkg_busy":"[^"]*"/)
		n = split(substr($0, RSTART + 12, RLENGTH - 13), b, ",")
		for (i = 1; i <= n; i++) { s[i] += b[i]; } k++
	}
	END {
		for (i = 1; i <= n; i++)
			printf "%s%d", (i > 1 ? "/" : ""), (k ? 100 - s[i] / k : 0)
	}' "/tmp/$1.out"
}

numa_info() { # RUN
	echo "VCP-INFO $1 away: timeline=$(away_field "$1" timeline) pkg-migrations=$(away_field "$1" pkg_migrations) pages start=$(away_field "$1" mem_nodes_start) end=$(away_field "$1" mem_nodes_end); pkg busy%=$(pkg_summary "$1") late idle%=$(late_idle "$1")"
}

# ---- level 0 (or stock) with NUMA balancing ----
echo 1 >"$NB"
vcp_have_knobs && vcp_set_level 0
numa_run numa-l0
numa_info numa-l0
if vcp_check_run numa-l0; then
	end=$(away_field numa-l0 mem_nodes_end)
	if [ "$(away_field numa-l0 main_pkg)" = 1 ] &&
	   [ "$(node_pct "$end" 1)" -ge 90 ]; then
		vcp_pass numa-l0 "away ran on node 1 with its memory (pages $end)"
	else
		vcp_fail numa-l0 "away left its memory: main package $(away_field numa-l0 main_pkg), pages $end"
	fi
fi
if ! vcp_need_knobs numa-l1; then
	echo 0 >"$NB"
	exit 0
fi

# ---- level 1 with NUMA balancing, raised from 0 during the run ----
vcp_set_level 0
numa_run numa-l1 1
numa_info numa-l1
if vcp_check_run numa-l1; then
	li=$(late_idle numa-l1)
	end=$(away_field numa-l1 mem_nodes_end)
	awake=$(echo "$li" | awk -F/ '{ print ($1 >= 90 ? 1 : 0) }')
	idle=$(echo "$li" | awk -F/ '{ print (($1 >= 90 || $2 >= 90) ? 1 : 0) }')
	on=$(pages_on numa-l1 "$awake")
	if [ "$idle" = 1 ] && [ "$on" -ge 90 ]; then
		vcp_pass numa-l1 "gathered into node $awake, memory followed: late idle% $li, $on% of all pages there (away's $end)"
	else
		vcp_fail numa-l1 "gathering and NUMA balancing disagree: late idle% $li, $on% of all pages on node $awake (away's $end; want one package idle >= 90% and >= 90% of the pages on the other node)"
	fi
fi

# ---- level 1 without NUMA balancing: figures only ----
echo 0 >"$NB"
vcp_set_level 0
numa_run numa-l1-off 1
numa_info numa-l1-off
vcp_set_level 0
