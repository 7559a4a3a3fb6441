# busyspread: level 2 on three packages (3x4) with a busy task that is
# not packable beside light packable ones. One steady `spread` task and 5
# bursty `pack` tasks (4 busy 2 ms every 20 ms, 1 busy 6 ms every 20 ms:
# 0.7 CPU in all) fit in one package beside the spread task, so two
# packages can idle. Package-idle residency from the scheduler's own
# events (vcresid: every CPU of the package ran the idle task).
#  busyspread-idle-pkg   at least one package all-idle >= 90% of the
#                        window. v1 left every package busy (all-idle
#                        55/55/83, 56/57/82, 53/56/74% per package in
#                        three runs of this guest): the spread
#                        task's package was emptied of packable tasks and
#                        the spread task moved to an idle package, so
#                        tasks went round the packages.
# The stock kernel has no level 2: SKIP.
. /scenarios/lib.sh

vcp_need_knobs busyspread-idle-pkg || exit 0

rn=busyspread
vcp_set_level 2
ok=1
vcresid start >"/tmp/$rn-rs.out" 2>"/tmp/$rn-rs.err" || ok=0
vcwork --warmup 3 --duration 6 \
	--vm name=sp,threads=1,class=spread,duty=100 \
	--vm name=pk,threads=4,class=pack,duty=10,burst=2ms \
	--vm name=pm,threads=1,class=pack,duty=30,burst=6ms \
	>"/tmp/$rn.out" 2>"/tmp/$rn.err" || ok=0
vcresid report --window "/tmp/$rn.out" --slot-ms 500 \
	>"/tmp/$rn-r.out" 2>"/tmp/$rn-r.err" || ok=0
vcp_set_level 0
for f in "$rn.out" "$rn.err" "$rn-rs.out" "$rn-rs.err" "$rn-r.out" "$rn-r.err"; do
	sed "s/^/VCP-DATA $rn /" "/tmp/$f"
done

if [ $ok = 0 ] || ! vcp_check_run $rn; then
	[ $ok = 1 ] || vcp_fail busyspread-idle-pkg "vcwork or vcresid failed: $(cat "/tmp/$rn.err" "/tmp/$rn-rs.err" "/tmp/$rn-r.err" | head -3 | tr '\n' ' ')"
	exit 0
fi
cp "/tmp/$rn-r.out" "/tmp/$rn-resid.out"
idle=$(jsel "$rn-resid" resid all_idle_pct | awk '{ printf "%s%.0f", (NR > 1 ? "/" : ""), $1 }')
best=$(jsel "$rn-resid" resid all_idle_pct | awk 'BEGIN { m = -1 } $1 > m { m = $1 } END { print m }')
what="package all-idle % $idle; $(vcp_describe $rn)"
if awk -v m="$best" 'BEGIN { exit !(m >= 90) }'; then
	vcp_pass busyspread-idle-pkg "a package idles: $what"
else
	vcp_fail busyspread-idle-pkg "want one package all-idle >= 90%: $what"
fi
