# stress: level flips, class flips, cgroup create/remove with tasks moving
# in and out, CPU offline/online and taskset affinity changes, all under
# load (vcwork: 2 VMs, steady and bursty). Passes when the load finishes
# on time, every CPU is back online, and dmesg has no WARNING/BUG/lockdep
# splat. Runs on both kernels (the knob flips only where the knobs exist).
. /scenarios/lib.sh
ROUNDS=${VCP_STRESS_ROUNDS:-12}
knobs=0
vcp_have_knobs && knobs=1
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)

vcwork --warmup 0 --duration $((ROUNDS * 2 + 4)) --keep \
	--vm name=sa,threads=3,class=pack,duty=100 \
	--vm name=sb,threads=3,class=balanced,pattern=mixed,duty=30,burst=5ms \
	>/tmp/stress.out 2>/tmp/stress.err &
wpid=$!
sleep 1
pids=$(cat $CGROOT/vcwork-sa/cgroup.procs $CGROOT/vcwork-sb/cgroup.procs 2>/dev/null)
i=0
errs=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	cpu=$(( (i % (ncpu - 1)) + 1 ))
	if [ $knobs = 1 ]; then
		echo $((i % 3)) >$LEVEL || errs=$((errs + 1))
		case $((i % 3)) in
		0) c=pack ;; 1) c=spread ;; *) c=balanced ;;
		esac
		echo $c >$CGROOT/vcwork-sb/cpu.consolidate || errs=$((errs + 1))
	fi
	# a cgroup that gets a busy task, loses it and goes away
	class=
	[ $knobs = 1 ] && class=pack
	vcp_churn_round $i $cpu $CGROOT/stress-$i $class
done
[ $knobs = 1 ] && echo 0 >$LEVEL
wait $wpid
rc=$?
sed 's/^/VCP-DATA stress /' /tmp/stress.err
rmdir $CGROOT/vcwork-sa $CGROOT/vcwork-sb 2>/dev/null
off=$(grep -l 0 /sys/devices/system/cpu/cpu*/online 2>/dev/null | wc -l)
if [ $rc = 0 ] && grep -q '"type":"end","failed_vms":0' /tmp/stress.out &&
   [ $errs = 0 ] && [ $off = 0 ]; then
	vcp_pass stress-run "$ROUNDS rounds (knobs: $knobs): load finished, all CPUs online"
else
	vcp_fail stress-run "vcwork rc=$rc, $errs failed operations, $off CPUs offline"
fi
s=$(vcp_splats)
if [ -z "$s" ]; then
	vcp_pass stress-dmesg "no WARNING/BUG/lockdep lines in dmesg"
else
	vcp_fail stress-dmesg "$(echo "$s" | head -3 | tr '\n' ' ')"
fi
