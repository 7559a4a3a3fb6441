# level2: aggressive consolidation on 2x4. Bursty `pack` and `balanced`
# load is gathered; four steady `pack` tasks fill one package; `spread`
# is still never gathered.
. /scenarios/lib.sh

vcp_need_knobs level2-bursty-pack level2-bursty-balanced level2-mixed \
	level2-steady4-pack level2-spread || exit 0
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
vcp_run level2-steady4-pack --warmup "$WARMUP" --duration "$DURATION" \
	--vm "name=level2-steady4-pack,threads=4,class=pack,duty=100"
vcp_expect_gathered level2-steady4-pack
vcp_steady3 level2-spread spread
vcp_expect_spread level2-spread 2
vcp_set_level 0
