# level2: aggressive consolidation on 2x4. Bursty `pack` and `balanced`
# load is gathered; four steady `pack` tasks fill one package; `spread`
# is still never gathered; at half load (8 tasks at 50% duty) level 2
# does the work level 0 does: it gathers only what fits.
. /scenarios/lib.sh

vcp_need_knobs level2-bursty-pack level2-bursty-balanced level2-mixed \
	level2-steady4-pack level2-spread level2-halfload-stays \
	level2-halfload-done || exit 0
bursty() {	# RUN CLASS PATTERN
	vcp_run "$1" --warmup "$WARMUP" --duration "$DURATION" \
		--vm "name=$1,threads=3,class=$2,duty=40,burst=10ms,pattern=$3"
}
vcp_set_level 2
bursty level2-bursty-pack pack bursty
vcp_expect_gathered level2-bursty-pack
bursty level2-bursty-balanced balanced bursty
vcp_expect_gathered level2-bursty-balanced
bursty level2-mixed pack mixed
vcp_expect_gathered level2-mixed
vcp_steady level2-steady4-pack pack 4
vcp_expect_gathered level2-steady4-pack
vcp_steady level2-spread spread
vcp_expect_spread level2-spread 2

# Half load: 4 pack VMs of 2 vCPUs each running 20 ms of CPU time every
# 40 ms. Gathered into the 4 cores of one package they need all of it:
# they queue behind each other, the package spills, the next pass
# gathers again (level 2 before it fitted by utilization: 78-104 package
# migrations in the window here, 81-85% of the bursts in the benchmark's
# 50% ramp against stock's 93-97%). Level 2 must leave them where they
# are (at most 4 package migrations per thread; 2-15 in all measured)
# and do the work level 0 does on the same schedule in the same guest,
# within 5 points (this unpaced testbed's timers cost both levels a
# quarter of the bursts, so it resolves no finer).
halfload() {	# RUN
	vcp_run "$1" --warmup "$WARMUP" --duration "$DURATION" --seed 7 \
		--vm "name=$1-a,threads=2,class=pack,duty=50,burst=20ms,work=cpu" \
		--vm "name=$1-b,threads=2,class=pack,duty=50,burst=20ms,work=cpu" \
		--vm "name=$1-c,threads=2,class=pack,duty=50,burst=20ms,work=cpu" \
		--vm "name=$1-d,threads=2,class=pack,duty=50,burst=20ms,work=cpu"
}
vcp_set_level 0
halfload level2-halfload-l0
vcp_set_level 2
halfload level2-halfload-l2
if vcp_check_run level2-halfload-l0 && vcp_check_run level2-halfload-l2; then
	m0=$(pkg_migrations level2-halfload-l0)
	m2=$(pkg_migrations level2-halfload-l2)
	msg="package migrations level 0 $m0, level 2 $m2 (want <= 32); level 2: $(vcp_describe level2-halfload-l2)"
	if [ "$m2" -le 32 ]; then
		vcp_pass level2-halfload-stays "$msg"
	else
		vcp_fail level2-halfload-stays "$msg"
	fi
	d0=$(class_done level2-halfload-l0 pack)
	d2=$(class_done level2-halfload-l2 pack)
	msg="bursts done level 0 $d0%, level 2 $d2% (want >= level 0 - 5)"
	if awk -v a="$d0" -v b="$d2" 'BEGIN { exit !(a != "-" && b != "-" && b >= a - 5) }'; then
		vcp_pass level2-halfload-done "$msg"
	else
		vcp_fail level2-halfload-done "$msg"
	fi
fi
vcp_set_level 0
