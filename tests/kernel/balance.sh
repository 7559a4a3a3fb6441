# balance: the balancer bugs of series v1 (issue 15), each set up on
# 2x4 by starting a VM on a few CPUs and widening its affinity a second
# later (taskset), so every run starts from the same bad placement.
#  balance-spill-cap       level 2, a `spread` task pinned to CPU 1 and 5
#                          steady `pack` tasks released from CPU 0 to CPUs
#                          0 and 4-7 (6 tasks in a package of 4 cores,
#                          its idle CPUs 2-3 closed to them): the first
#                          pass that spills from CPU 0 moves the 2 tasks
#                          beyond the package's capacity (3 if a kworker
#                          runs in the package at that moment), although
#                          the package domain balances utilization
#                          there (migrate_util); v1 moves all but one.
#  balance-spill-no-active level 1, 5 `pack` tasks beside 4 `spread`
#                          tasks pinned to the second package (9 tasks,
#                          8 CPUs): the spill goes through the usual
#                          back-off, so no active balance is pushed at the
#                          package domain onto the busy CPUs.
#  balance-pinned-gather   level 1, a `pack` task pinned to CPU 7 and 2
#                          `pack` tasks released from CPUs 0-3: they are
#                          gathered beside the pinned one.
#  balance-keep-spread     level 1, 2 `pack` tasks on CPUs 0-2 and one
#                          `spread` task on CPU 3, released: the spread
#                          task is balanced to the idle package while the
#                          pack tasks stay.
. /scenarios/lib.sh

CHECKS="balance-spill-cap balance-spill-no-active balance-pinned-gather balance-keep-spread"
vcp_need_knobs $CHECKS || exit 0

# bal_run RUN WIDEN_VMS vcwork-args...: vcp_start_bg, every CPU, vcp_end_bg
bal_run() {
	vcp_start_bg "$@"
	vcp_widen_bg 0-7
	vcp_end_bg
}

# main packages of VM's threads in RUN, sorted, space-separated
vm_pkgs() { jsel "$1" thread main_pkg "$2" | sort -n | tr '\n' ' ' | sed 's/ $//'; }

# sum of alb_pushed (active balances that moved a task) over the domains
# spanning all 8 CPUs (mask ff) in /proc/schedstat (version 16 layout)
alb_pushed() {
	awk '$1 ~ /^domain/ && $2 == "ff" { s += $29 } END { print s + 0 }' /proc/schedstat
}

# first_spill TIDS: from sched_migrate_task in the trace, the first pass
# that moved one of TIDS from CPU 0 into package 1 (CPUs 4-7): the
# moves from CPU 0 to that pass's destination within 1 ms of its first
# (detach_tasks() and attach_tasks() move a pass's tasks under one lock,
# microseconds apart; the next pass is a balance interval later).
# Prints "N DEST" (0 -1 if none) and the moves as "VCP-DATA spill-cap
# mig TIME TID FROM TO".
first_spill() {
	awk -v tids=" $1 " '/sched_migrate_task:/ {
		pid = $0; sub(/.* pid=/, "", pid); sub(/ .*/, "", pid)
		if (index(tids, " " pid " ") == 0) next
		ts = $0; sub(/: sched_migrate_task:.*/, "", ts); sub(/.* /, "", ts)
		o = $0; sub(/.*orig_cpu=/, "", o); sub(/ .*/, "", o)
		d = $0; sub(/.*dest_cpu=/, "", d); sub(/ .*/, "", d)
		print "VCP-DATA spill-cap mig " ts " " pid " " o " " d > "/dev/stderr"
		if (o + 0 != 0 || d + 0 < 4 || d + 0 > 7) next
		if (dest == "") { dest = d; t0 = ts }
		if (d == dest && ts - t0 < 0.001) n++
	} END { print n + 0, (dest == "" ? -1 : dest) }' /sys/kernel/tracing/trace
}

# (a) the spill cap, where the package domain balances utilization
if [ -d /sys/kernel/tracing/events/sched/sched_migrate_task ]; then
	tr=/sys/kernel/tracing
	# this shell, taskset and vcwork's monitor off package 0: a task
	# running there when the spill is decided counts against its capacity
	taskset -p -c 4-7 $$ >/dev/null
	vcp_set_level 2
	vcp_start_bg spill-cap a --warmup 4 --duration 2 \
		--vm name=s,threads=1,class=spread,duty=100,pins=1 \
		--vm name=a,threads=5,class=pack,duty=100,cpus=0
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	echo 1 >$tr/events/sched/sched_migrate_task/enable
	echo 1 >$tr/tracing_on
	vcp_widen_bg 0,4-7
	sleep 1
	echo 0 >$tr/tracing_on
	echo 0 >$tr/events/sched/sched_migrate_task/enable
	vcp_end_bg
	vcp_set_level 0
	taskset -p -c 0-7 $$ >/dev/null
	set -- $(first_spill "$(jsel spill-cap thread tid a | tr '\n' ' ')" 2>/tmp/spill-cap.mig)
	cat /tmp/spill-cap.mig
	echo >$tr/trace
	if vcp_check_run spill-cap; then
		if [ "$1" -ge 1 ] && [ "$1" -le 3 ]; then
			vcp_pass balance-spill-cap "the first spill moved $1 task(s) from CPU 0 to CPU $2 (capacity 4, 6 tasks); a in $(vm_pkgs spill-cap a)"
		else
			vcp_fail balance-spill-cap "want the first spill from CPU 0 to move 1 to 3 of VM a's 5 tasks there (6 tasks in the package, capacity 4, at most one kworker beside them), it moved $1 (to CPU $2); a in $(vm_pkgs spill-cap a)"
		fi
	fi
else
	vcp_skip balance-spill-cap "no sched_migrate_task trace event"
fi

# (b) no forced active balance for a spill
if [ -w /proc/sys/kernel/sched_schedstats ]; then
	echo 1 >/proc/sys/kernel/sched_schedstats
	vcp_set_level 1
	vcwork --warmup 3 --duration 6 \
		--vm name=s,threads=4,class=spread,duty=100,cpus=4-7 \
		--vm name=a,threads=5,class=pack,duty=100 >/tmp/spill-alb.out 2>/tmp/spill-alb.err &
	wp=$!
	sleep 4
	a0=$(alb_pushed)
	sleep 4
	a1=$(alb_pushed)
	wait $wp
	vcp_set_level 0
	echo 0 >/proc/sys/kernel/sched_schedstats
	sed "s/^/VCP-DATA spill-alb /" /tmp/spill-alb.out
	if vcp_check_run spill-alb; then
		n=$((a1 - a0))
		if [ "$n" = 0 ]; then
			vcp_pass balance-spill-no-active "no active balance at the package domain in 4 s: $(vcp_describe spill-alb)"
		else
			vcp_fail balance-spill-no-active "$n active balances pushed a task at the package domain in 4 s (want 0): $(vcp_describe spill-alb)"
		fi
	fi
else
	vcp_skip balance-spill-no-active "no /proc/sys/kernel/sched_schedstats"
fi

# (c) a pinned packable task does not block gathering
vcp_set_level 1
bal_run pinned a --warmup 4 --duration 5 \
	--vm name=p,threads=1,class=pack,duty=100,cpus=7 \
	--vm name=a,threads=2,class=pack,duty=100,cpus=0-3
vcp_set_level 0
if vcp_check_run pinned; then
	if [ "$(vm_pkgs pinned a)" = "1 1" ] && [ "$(pkgs_idle pinned 90)" -ge 1 ]; then
		vcp_pass balance-pinned-gather "gathered beside the pinned task: $(vcp_describe pinned)"
	else
		vcp_fail balance-pinned-gather "want VM a's threads in package 1 with the pinned one, package 0 idle >= 90%: a in $(vm_pkgs pinned a); $(vcp_describe pinned)"
	fi
fi

# (d) keep holds back packable tasks only, not the balancing of others
vcp_set_level 1
bal_run keep "a s" --warmup 4 --duration 5 \
	--vm name=a,threads=2,class=pack,duty=100,cpus=0-2 \
	--vm name=s,threads=1,class=spread,duty=100,cpus=3
vcp_set_level 0
if vcp_check_run keep; then
	pa=$(vm_pkgs keep a) ps=$(vm_pkgs keep s)
	if [ "$pa" = "0 0" ] && [ "$ps" = 1 ]; then
		vcp_pass balance-keep-spread "spread task balanced, pack kept: $(vcp_describe keep)"
	else
		vcp_fail balance-keep-spread "want pack threads in package 0 and the spread one in 1: a in $pa, s in $ps; $(vcp_describe keep)"
	fi
fi
