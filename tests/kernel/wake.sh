# wake: the level-2 wakeup redirect (series patch 0006) on 2x4. Three
# steady `pack` tasks are pinned to CPUs 0, 1 and 2, so package 0 is the
# awake package with room that load balancing names (CPU 3 idle); a
# bursty `pack` VM (threads busy 2 ms every 20 ms) starts on CPUs 4-7, and
# a second later its affinity is widened. Where it ran: vcwork's per-CPU
# samples.
#  wake-busy-stays      2 bursty threads allowed on 0-2 and 4-7: every
#                       CPU of package 0 they may use is busy, so their
#                       wakeups are not redirected and they stay in
#                       package 1 (<= 1% of their samples on CPUs 0-2,
#                       <= 1 package migration in all). v1 redirected
#                       them onto CPU 0, beside a spinner, until load
#                       balancing took them back.
#  wake-idle-redirect   1 bursty thread allowed on 0-7: its wakeups go to
#                       CPU 3, the idle CPU of package 0 (>= 80% of its
#                       samples there, <= 5% on CPUs 0-2).
# run.sh boots it twice: with the kernel's NO_HZ_IDLE, and with nohz=off
# (guest wake-nohzoff), where the idle tick never stops: the redirect
# must not depend on the nohz accounting of busy CPUs, which then counts
# every CPU busy (series v2 before 2026-12-07 asked it whether the
# target's package was asleep, and never redirected under nohz=off).
. /scenarios/lib.sh

CHECKS="wake-busy-stays wake-idle-redirect"
vcp_need_knobs $CHECKS || exit 0

# wk_run RUN CPUS N: the spinners and the bursty VM `b` of N threads,
# which may run on CPUS from a second after it started. Output as vcp_run.
wk_run() {
	vcp_start_bg "$1" b --warmup 3 --duration 5 \
		--vm name=s,threads=3,class=pack,duty=100,pins=0/1/2 \
		--vm "name=b,threads=$3,class=pack,duty=10,burst=2ms,cpus=4-7"
	vcp_widen_bg "$2"
	vcp_end_bg
}

# b_share RUN CPUS: percentage of VM b's samples on CPUS (space-separated)
b_share() {
	jsel "$1" thread cpu_samples b | awk -v cpus="$2" '
	BEGIN { n = split(cpus, c, " "); for (i = 1; i <= n; i++) want[c[i]] = 1 }
	{
		k = split($0, v, ",")
		for (i = 1; i <= k; i++) {
			split(v[i], cv, ":"); all += cv[2]
			if (cv[1] in want) in_set += cv[2]
		}
	} END { print all ? int(100 * in_set / all) : -1 }'
}

# b_get RUN KEY: KEY of VM b's threads, space-separated
b_get() { jsel "$1" thread "$2" b | tr '\n' ' ' | sed 's/ $//'; }

# b_mig RUN: package migrations of VM b's threads, summed
b_mig() { thread_sum "$1" pkg_migrations b; }

b_describe() {
	echo "b ran $(b_get "$1" run_ms) ms, waited $(b_get "$1" wait_ms) ms, on $(b_get "$1" cpu_samples) (CPU:samples), $(b_mig "$1") package migrations, wake p99 $(b_get "$1" wake_p99_us) us; $(vcp_describe "$1")"
}

vcp_set_level 2
wk_run wake-busy 0-2,4-7 2
vcp_set_level 0
if vcp_check_run wake-busy; then
	busy=$(b_share wake-busy "0 1 2") mig=$(b_mig wake-busy)
	if [ "$busy" -ge 0 ] && [ "$busy" -le 1 ] && [ "$mig" -le 1 ]; then
		vcp_pass wake-busy-stays "not redirected onto busy CPUs ($busy% on CPUs 0-2): $(b_describe wake-busy)"
	else
		vcp_fail wake-busy-stays "want <= 1% of b's samples on the busy CPUs 0-2 and <= 1 package migration, got $busy% and $mig: $(b_describe wake-busy)"
	fi
fi

vcp_set_level 2
wk_run wake-idle 0-7 1
vcp_set_level 0
if vcp_check_run wake-idle; then
	busy=$(b_share wake-idle "0 1 2") idle=$(b_share wake-idle 3)
	if [ "$busy" -ge 0 ] && [ "$busy" -le 5 ] && [ "$idle" -ge 80 ]; then
		vcp_pass wake-idle-redirect "redirected onto the idle CPU 3 ($idle%, $busy% on CPUs 0-2): $(b_describe wake-idle)"
	else
		vcp_fail wake-idle-redirect "want >= 80% of b's samples on CPU 3 and <= 5% on CPUs 0-2, got $idle% and $busy%: $(b_describe wake-idle)"
	fi
fi
