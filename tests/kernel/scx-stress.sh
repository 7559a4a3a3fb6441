# scx-stress: with scx_vcpack loaded, 12 rounds of level flips, class
# flips, cgroup create/move/remove, CPU offline/online and `taskset -a`
# changes under load (as tests/kernel/stress.sh does to the patch). Passes
# when the load finishes, every CPU is back online, the scheduler is still
# loaded (or was ejected cleanly: state disabled and the loader said so),
# and dmesg has no WARNING/BUG/lockdep line.
. /scenarios/lib.sh
. /scenarios/scx-lib.sh
ROUNDS=${VCP_STRESS_ROUNDS:-12}

scx_need scx-stress-run scx-stress-loaded scx-stress-dmesg || exit 0
if ! scx_start 1 -i 5; then
	vcp_fail scx-stress-run "not loaded: state $(scx_state): $(tr '\n' ' ' <"$SCX_LOG")"
	exit 0
fi
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
scx_class scx-pack pack
scx_class scx-flip balanced
vcwork --warmup 0 --duration $((ROUNDS * 2 + 4)) --keep \
	--vm name=sa,threads=3,duty=100,cg=scx-pack/sa \
	--vm name=sb,threads=3,pattern=mixed,duty=30,burst=5ms,cg=scx-flip/sb \
	>/tmp/stress.out 2>/tmp/stress.err &
wpid=$!
sleep 1
pids=$(cat $CGROOT/scx-pack/sa/cgroup.procs $CGROOT/scx-flip/sb/cgroup.procs 2>/dev/null)
i=0
errs=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	cpu=$(( (i % (ncpu - 1)) + 1 ))
	scx_vcpack level $((i % 3)) || errs=$((errs + 1))
	case $((i % 3)) in
	0) c=pack ;; 1) c=spread ;; *) c=balanced ;;
	esac
	scx_vcpack class $CGROOT/scx-flip $c || errs=$((errs + 1))
	# a classed cgroup that gets a busy task, loses it and goes away
	vcp_churn_round $i $cpu $CGROOT/scx-pack/churn-$i
done
wait $wpid
rc=$?
sed 's/^/VCP-DATA scx-stress /' /tmp/stress.err
rmdir $CGROOT/scx-pack/sa $CGROOT/scx-flip/sb 2>/dev/null
off=$(grep -l 0 /sys/devices/system/cpu/cpu*/online 2>/dev/null | wc -l)
if [ $rc = 0 ] && grep -q '"type":"end","failed_vms":0' /tmp/stress.out &&
   [ $errs = 0 ] && [ $off = 0 ]; then
	vcp_pass scx-stress-run "$ROUNDS rounds: load finished, all CPUs online"
else
	vcp_fail scx-stress-run "vcwork rc=$rc, $errs failed operations, $off CPUs offline"
fi
st=$(scx_state)
if [ "$st" = enabled ] && kill -0 "$scx_pid" 2>/dev/null; then
	scx_stop && vcp_pass scx-stress-loaded "still loaded after $ROUNDS rounds, unloaded cleanly" ||
		vcp_fail scx-stress-loaded "loaded, but the loader did not exit 0 on SIGINT"
elif [ "$st" = disabled ] && grep -q 'ejected' "$SCX_LOG"; then
	vcp_pass scx-stress-loaded "ejected cleanly: $(grep ejected "$SCX_LOG")"
	scx_pid=
else
	vcp_fail scx-stress-loaded "state $st, loader: $(tr '\n' ' ' <"$SCX_LOG")"
fi
s=$(vcp_splats)
if [ -z "$s" ]; then
	vcp_pass scx-stress-dmesg "no WARNING/BUG/lockdep lines in dmesg"
else
	vcp_fail scx-stress-dmesg "$(echo "$s" | head -3 | tr '\n' ' ')"
fi
dmesg | grep -i 'sched_ext' | sed 's/^/VCP-DATA scx-stress dmesg: /'
scx_show_log
