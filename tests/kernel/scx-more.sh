# scx-more: scx_vcpack at level 2 and under overload (2x4). Level 2
# gathers bursty `balanced` and 4 steady `pack` tasks (a full package) and
# leaves 3 steady `spread` tasks spread over both packages, also when
# they start in one package (pinned there, then let go), and keeps a pack
# task in its full package when a bound task takes its CPU for a moment;
# at level 1, 3 + 3 steady `pack` tasks spill over
# to the second package while 6 run and come back to one package after,
# without bouncing (as tests/kernel/overload.sh asks of the patch).
. /scenarios/lib.sh
. /scenarios/scx-lib.sh

scx_need scx-level2-bursty-balanced scx-level2-steady4-pack \
	scx-level2-spread scx-level2-spread-unpinned scx-putback-stays \
	scx-overload-spill scx-overload-return scx-overload-no-bounce || exit 0
if ! scx_start 2 -i 5; then
	vcp_fail scx-more-load "state $(scx_state): $(tr '\n' ' ' <"$SCX_LOG")"
	exit 0
fi
scx_class scx-pack pack
scx_class scx-spread spread

vcp_run level2-bursty-balanced --warmup "$WARMUP" --duration "$DURATION" \
	--vm "name=l2b,threads=3,duty=40,burst=10ms,pattern=bursty,cg=scx-bal/l2b"
vcp_expect_gathered level2-bursty-balanced
vcp_run level2-steady4-pack --warmup "$WARMUP" --duration "$DURATION" \
	--vm "name=l2p,threads=4,duty=100,cg=scx-pack/l2p"
vcp_expect_gathered level2-steady4-pack
# spread tasks are never gathered, at level 2 either: their threads are
# forked in quick succession, so this also checks that each fork sees the
# CPUs handed to the ones before it (claims) or that the re-placement in
# ops.tick evens the packages out after.
scx_steady3 level2-spread scx-spread/l2s
vcp_expect_spread level2-spread 2
# The same threads started in package 0 (pinned there) and let go after
# 1 s: running on without a wakeup, they are seen again only at their
# slice ends, where one of them must move (before the fix nothing ever
# moved them: ops.enqueue() took every current task for migration-
# disabled). The window starts 1 s after the unpinning.
vcwork --warmup "$WARMUP" --duration "$DURATION" \
	--vm "name=l2u,threads=3,duty=100,pins=0-3/0-3/0-3,cg=scx-spread/l2u" \
	>/tmp/level2-spread-unpinned.out 2>/tmp/level2-spread-unpinned.err &
wpid=$!
sleep 1
for t in $(cat "$CGROOT/scx-spread/l2u/cgroup.threads" 2>/dev/null); do
	taskset -p ff "$t" >/dev/null 2>&1
done
wait $wpid
sed "s/^/VCP-DATA level2-spread-unpinned /" /tmp/level2-spread-unpinned.out
vcp_expect_spread level2-spread-unpinned 2

# A pack task whose slice ends while a task bound to its CPU waits (a
# per-CPU kworker, here a pinned bursty thread) is put back. With its
# package full (3 pack tasks beside a pinned spread hog on CPU 3) it waits
# behind the short task on its own CPU instead of taking an idle CPU of
# the other package and being gathered back a slice later: before the
# fix every burst of w could move a pack task to package 1 and back (25
# and 22 package migrations in two runs, 0 and 0 with it). w comes every
# 200 ms: a task put back twice within 60 ms spills (WAIT_LOCAL_NS), and
# under TCG w's own wakeups are late by up to 100 ms, so at every 100 ms
# two put-backs came that close now and then (2-6 migrations with it).
vcp_run putback --warmup 1 --duration 6 \
	--vm "name=n,threads=1,duty=100,pins=3,cg=scx-spread/n" \
	--vm "name=w,threads=3,duty=4,burst=8ms,pins=0/1/2,cg=scx-spread/w" \
	--vm "name=a,threads=3,duty=100,cg=scx-pack/a"
if vcp_check_run putback; then
	mp=$(thread_sum putback pkg_migrations a)
	if [ "$mp" -le 6 ]; then
		vcp_pass scx-putback-stays "pack tasks stay in their package: package migrations $mp (<= 6)"
	else
		vcp_fail scx-putback-stays "pack tasks bounce behind a bound task: package migrations $mp (want <= 6); timelines: $(jsel putback thread timeline a | tr '\n' ' ')"
	fi
fi

scx_vcpack level 1
vcp_run overload --warmup 2 --duration 11 \
	--vm name=a,threads=3,duty=100,cg=scx-pack/a \
	--vm name=b,threads=3,duty=100,start=4s,stop=9s,cg=scx-pack/b
if vcp_check_run overload; then
	during=$(vcp_slot_busy 5 8 /tmp/overload.out)
	low=$(echo "$during" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
	if [ "$low" -ge 25 ]; then
		vcp_pass scx-overload-spill "6 pack tasks use both packages: busy% $during (slots 5-8)"
	else
		vcp_fail scx-overload-spill "6 pack tasks did not spill: busy% $during (slots 5-8)"
	fi
	after=$(vcp_slot_busy 11 12 /tmp/overload.out)
	idle=$(echo "$after" | awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i < 10) n++; print n }')
	if [ "$idle" -ge 1 ]; then
		vcp_pass scx-overload-return "back to one package: busy% $after (slots 11-12)"
	else
		vcp_fail scx-overload-return "still spread after the load dropped: busy% $after (slots 11-12)"
	fi
	# by VM name, as overload.sh does (the thread lines need not come in
	# VM order: b's came first)
	ma=$(thread_sum overload pkg_migrations a)
	mb=$(thread_sum overload pkg_migrations b)
	if [ "$ma" -le 6 ] && [ "$mb" -le 3 ]; then
		vcp_pass scx-overload-no-bounce "package migrations: a=$ma (<= 6) b=$mb (<= 3)"
	else
		vcp_fail scx-overload-no-bounce "tasks bounce: a=$ma (want <= 6) b=$mb (want <= 3); timelines: $(jsel overload thread timeline | tr '\n' ' '); package moves (ms:from>to): $(jsel overload thread pkg_moves | tr '\n' '|')"
	fi
fi
[ "$(scx_state)" = enabled ] || vcp_fail scx-more-loaded "ejected: state $(scx_state)"
scx_stop
scx_show_log
