# gather-topo: the level 1 gather test on bigger or NUMA topologies
# (4x4, 2 NUMA nodes x 4 cores, 2 packages of 2 NUMA nodes each as with
# SNC/NPS2): three steady `pack` tasks end in one
# package, every other package idle >= 90%; at level 0 they spread.
. /scenarios/lib.sh

nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
echo "gather-topo: $(nproc) CPUs, $nodes NUMA node(s)"
vcp_have_knobs && vcp_set_level 0
vcp_steady3 topo-level0 pack
vcp_expect_spread topo-level0 2
vcp_need_knobs topo-level1-pack || exit 0
vcp_set_level 1
vcp_steady3 topo-level1-pack pack
vcp_expect_gathered topo-level1-pack
vcp_set_level 0
