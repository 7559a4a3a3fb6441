# balance: the balancer bugs of series v1 (issue 15), each set up on
# 2x4 by starting a VM on a few CPUs and widening its affinity a second
# later (taskset), so every run starts from the same bad placement.
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

CHECKS="balance-spill-no-active balance-pinned-gather balance-keep-spread"
vcp_need_knobs $CHECKS || exit 0

# bal_run RUN WIDEN_VMS vcwork-args...: vcwork in the background; a
# second after each VM of WIDEN_VMS (space-separated names) has a process,
# all its threads may run on every CPU. Output as vcp_run.
bal_run() {
	rn=$1 widen=$2
	shift 2
	vcwork "$@" >"/tmp/$rn.out" 2>"/tmp/$rn.err" &
	wp=$!
	for vm in $widen; do
		n=0
		while ! grep -q . "$CGROOT/vcwork-$vm/cgroup.procs" 2>/dev/null &&
		    [ $n -lt 100 ]; do
			sleep 0.1; n=$((n + 1))
		done
	done
	sleep 1
	for vm in $widen; do
		for p in $(cat "$CGROOT/vcwork-$vm/cgroup.procs" 2>/dev/null); do
			taskset -a -p -c 0-7 "$p" >/dev/null 2>&1 ||
				echo "VCP-DATA $rn taskset -a -p -c 0-7 $p failed"
		done
	done
	wait $wp
	r=$?
	sed "s/^/VCP-DATA $rn /" "/tmp/$rn.out"
	sed "s/^/VCP-DATA $rn stderr: /" "/tmp/$rn.err"
	return $r
}

# main packages of VM's threads in RUN, sorted, space-separated
vm_pkgs() { jsel "$1" thread main_pkg "$2" | sort -n | tr '\n' ' ' | sed 's/ $//'; }

# sum of alb_pushed (active balances that moved a task) over the domains
# spanning all 8 CPUs (mask ff) in /proc/schedstat (version 16 layout)
alb_pushed() {
	awk '$1 ~ /^domain/ && $2 == "ff" { s += $29 } END { print s + 0 }' /proc/schedstat
}

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
