# gather-topo: the level 1 gather test on bigger or NUMA topologies
# (4x4, 2 NUMA nodes x 4 cores, 2 packages of 2 NUMA nodes each as with
# SNC/NPS2): three steady `pack` tasks end in one
# package, every other package idle >= 90%; at level 0 they spread. Level
# 2 on the same topologies: four steady `pack` tasks fill one package,
# three bursty ones (40% duty, 10 ms bursts) share one, every other
# package idle >= 90% (on 2x4 the level2 guest checks the same).
. /scenarios/lib.sh

nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
echo "gather-topo: $(nproc) CPUs, $nodes NUMA node(s)"
vcp_have_knobs && vcp_set_level 0
vcp_steady topo-level0 pack
vcp_expect_spread topo-level0 2
vcp_need_knobs topo-level1-pack topo-level2-steady4 topo-level2-bursty ||
	exit 0
vcp_set_level 1
vcp_steady topo-level1-pack pack
vcp_expect_gathered topo-level1-pack
vcp_set_level 2
vcp_steady topo-level2-steady4 pack 4
vcp_expect_gathered topo-level2-steady4
vcp_run topo-level2-bursty --warmup "$WARMUP" --duration "$DURATION" \
	--vm name=topo-level2-bursty,threads=3,class=pack,duty=40,burst=10ms
vcp_expect_gathered topo-level2-bursty
vcp_set_level 0
