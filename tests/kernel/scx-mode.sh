# scx-mode: scx_vcpack driven as vcpackd drives it (2x4), through
# vcp-scxdrive, a static program on vcpackd's own scx.c and scxstate.c:
# the state reader sees scx_vcpack loaded with its maps pinned; a class
# written for a VM's cgroup lands in the classes map (keyed by the
# cgroup's inode) and its child inherits it; 3 steady tasks already
# running there spread as balanced at level 1 before the class, and are
# gathered into one package after it (ops.tick re-reads the class of a
# running task and ends its slice to move it);
# after the loader stops, the reader says disabled and a write fails.
. /scenarios/lib.sh
. /scenarios/scx-lib.sh

CHECKS="state class-map existing-spread existing-tasks unloaded refused"
if ! scx_have || ! command -v vcp-scxdrive >/dev/null; then
	vcp_skip_all "no sched_ext, scx_vcpack or vcp-scxdrive" \
		$(for t in $CHECKS; do echo scx-drive-$t; done)
	exit 0
fi
if ! scx_start 1 -i 5; then
	vcp_fail scx-drive-load "state $(scx_state): $(tr '\n' ' ' <"$SCX_LOG")"
	exit 0
fi

st=$(vcp-scxdrive state 2>&1)
if [ "$st" = "enabled vcpack pinned" ]; then
	vcp_pass scx-drive-state "$st"
else
	vcp_fail scx-drive-state "want 'enabled vcpack pinned', got '$st'"
fi

# Three steady tasks start in scx-vm/late, which has no class yet
# (balanced: spread at level 1); 3 s later scx-vm gets `pack`.
vcwork --warmup 5 --duration 5 \
	--vm name=late,threads=3,duty=100,cg=scx-vm/late \
	>/tmp/existing-tasks.out 2>/tmp/existing-tasks.err &
wpid=$!
sleep 3
before=$(vcp-scxdrive get "$CGROOT/scx-vm/late" 2>&1)
vcp-scxdrive class "$CGROOT/scx-vm" pack
rc=$?
after=$(vcp-scxdrive get "$CGROOT/scx-vm/late" 2>&1)
id=$(stat -c %i "$CGROOT/scx-vm")
line=$(scx_vcpack show | grep "^cgroup $id ")
if [ $rc = 0 ] && [ "$before" = balanced ] && [ "$after" = pack ] &&
   [ "$line" = "cgroup $id pack" ]; then
	vcp_pass scx-drive-class-map "scx-vm (id $id): '$line'; scx-vm/late $before -> $after"
else
	vcp_fail scx-drive-class-map "class exit $rc; scx-vm/late before '$before' after '$after'; map line for id $id: '$line'"
fi
wait $wpid
vcp_show existing-tasks
if vcp_check_run existing-tasks; then
	early=$(vcp_slot_busy 1 2 /tmp/existing-tasks.out)
	busy=$(echo "$early" | awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i >= 15) n++; print n }')
	if [ "$busy" -ge 2 ]; then
		vcp_pass scx-drive-existing-spread "before the class: busy% $early (slots 1-2)"
	else
		vcp_fail scx-drive-existing-spread "balanced tasks not spread before the class: busy% $early (slots 1-2)"
	fi
	# The class reaches tasks already running: the window starts 2 s
	# after it was written, by when every thread is in one package.
	if [ "$(thread_pkgs existing-tasks)" = 1 ] &&
	   [ "$(pkgs_idle existing-tasks 90)" -ge 1 ]; then
		vcp_pass scx-drive-existing-tasks "gathered after the class: $(vcp_describe existing-tasks)"
	else
		vcp_fail scx-drive-existing-tasks "not gathered after the class: $(vcp_describe existing-tasks)"
	fi
fi

[ "$(scx_state)" = enabled ] || vcp_fail scx-drive-loaded "ejected: state $(scx_state)"
scx_stop
st=$(vcp-scxdrive state 2>&1)
if [ "$st" = "disabled - unpinned" ]; then
	vcp_pass scx-drive-unloaded "$st"
else
	vcp_fail scx-drive-unloaded "want 'disabled - unpinned', got '$st'"
fi
err=$(vcp-scxdrive level 2 2>&1)
if [ $? = 1 ] && echo "$err" | grep -q "no scx_vcpack running"; then
	vcp_pass scx-drive-refused "$err"
else
	vcp_fail scx-drive-refused "level 2 without the scheduler: '$err'"
fi
scx_show_log
