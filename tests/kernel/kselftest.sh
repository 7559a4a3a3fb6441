# kselftest: the series' own selftest (tools/testing/selftests/sched/
# consolidate_test.c, built static from the patched tree). Exit 0 PASS,
# 4 (KSFT_SKIP, the knobs are absent) SKIP, anything else FAIL.
. /scenarios/lib.sh
if [ ! -x /bin/consolidate_test ]; then
	vcp_skip kselftest "the series has no consolidate_test.c"
	exit 0
fi
cd /sys/fs/cgroup 2>/dev/null
/bin/consolidate_test >/tmp/ksft.out 2>&1
r=$?
sed 's/^/VCP-DATA kselftest /' /tmp/ksft.out
case $r in
0) vcp_pass kselftest "consolidate_test: $(grep -c '^ok' /tmp/ksft.out) ok" ;;
4) vcp_skip kselftest "consolidate_test exited KSFT_SKIP" ;;
*) vcp_fail kselftest "consolidate_test exited $r: $(grep '^not ok' /tmp/ksft.out | head -3 | tr '\n' ' ')" ;;
esac
