# gather: placement of three steady tasks on a 2x4 guest by level and
# class. Stock and level 0: spread over both packages (stock 6.12);
# level 1 gathers `pack` only; `spread` is never gathered.
. /scenarios/lib.sh

vcp_have_knobs && vcp_set_level 0
vcp_steady level0-balanced balanced
vcp_expect_spread level0-balanced 2

vcp_need_knobs level0-pack level1-pack level1-balanced level1-spread ||
	exit 0
vcp_steady level0-pack pack
vcp_expect_spread level0-pack 2

vcp_set_level 1
vcp_steady level1-pack pack
vcp_expect_gathered level1-pack
vcp_steady level1-balanced balanced
vcp_expect_spread level1-balanced 2
vcp_steady level1-spread spread
vcp_expect_spread level1-spread 2
vcp_set_level 0
