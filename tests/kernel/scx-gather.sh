# scx-gather: scx_vcpack on the unpatched sched_ext kernel (2x4). It loads
# and stays loaded; level 1 gathers 3 steady `pack` tasks into one package
# (the other idle >= 90%), leaves `balanced` and `spread` spread, level 0
# spreads `pack`; a class set on a parent applies to children made later
# (every VM cgroup here is made by vcwork after the class was written);
# unloading returns every task to the fair class and they keep running.
# The matrix boots it with an empty socket slot (2x4+slot): CPUs 8-11
# possible but not present, which scx_vcpack once counted as a busy core
# of package 0.
. /scenarios/lib.sh
. /scenarios/scx-lib.sh

scx_need scx-load scx-level1-pack scx-level1-balanced scx-level1-spread \
	scx-level0-pack scx-stays-loaded scx-unload scx-bad-exclude || exit 0

# -x takes a CPU list; anything else is refused before anything loads
out=$(scx_vcpack -x 3-1 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "bad -x '3-1'" && [ "$(scx_state)" = disabled ]; then
	vcp_pass scx-bad-exclude "exit 1: $out"
else
	vcp_fail scx-bad-exclude "exit $rc, state $(scx_state): $out"
fi

if scx_start 1 -i 5 && [ "$(cat $SCX/root/ops)" = vcpack ]; then
	vcp_pass scx-load "state $(scx_state), ops $(cat $SCX/root/ops)"
else
	vcp_fail scx-load "state $(scx_state), loader: $(tr '\n' ' ' <"$SCX_LOG")"
	exit 0
fi
scx_class scx-pack pack
scx_class scx-spread spread

scx_steady3 level1-pack scx-pack/l1
onext=$(scx_tasks_on_ext)
vcp_expect_gathered level1-pack
scx_steady3 level1-balanced scx-bal/l1
vcp_expect_spread level1-balanced 2
scx_steady3 level1-spread scx-spread/l1
vcp_expect_spread level1-spread 2
scx_vcpack level 0
scx_steady3 level0-pack scx-pack/l0
vcp_expect_spread level0-pack 2

if [ "$(scx_state)" = enabled ] && kill -0 "$scx_pid" 2>/dev/null; then
	vcp_pass scx-stays-loaded "enabled after 4 runs, $onext tasks on sched_ext"
else
	vcp_fail scx-stays-loaded "state $(scx_state)"
fi

scx_stop
rc=$?
vcp_run after-unload --warmup 1 --duration 2 --vm "name=after,threads=2,duty=100,cg=scx-pack/after"
left=$(scx_tasks_on_ext)
if [ $rc = 0 ] && [ "$(scx_state)" = disabled ] && [ "$left" = 0 ] &&
   [ "$(jsel after-unload end failed_vms)" = 0 ]; then
	vcp_pass scx-unload "loader exit 0, state disabled, 0 tasks on sched_ext, load ran ($(pkg_summary after-unload))"
else
	vcp_fail scx-unload "loader exit $rc, state $(scx_state), $left tasks on sched_ext, failed_vms $(jsel after-unload end failed_vms)"
fi
scx_show_log
