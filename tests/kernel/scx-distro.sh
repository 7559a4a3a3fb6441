# scx-distro: scx_vcpack on a distribution's own kernel (make check-scx
# boots Debian's current kernel image with it, kernel/testbed/
# distro-kernel.sh; on the testbed's 6.12 build it runs as well). The same
# scx_vcpack object as on 6.12 loads and attaches (state enabled, ops
# vcpack), a loader that finds no sched_ext, no kernel BTF or another
# scheduler loaded says so and loads nothing, level 1 gathers 3 steady `pack` tasks into
# one package and level 0 spreads them, and unloading returns every task
# to the fair class. A reduced form of scx-gather, for one boot of a kernel the
# testbed did not build.
. /scenarios/lib.sh
. /scenarios/scx-lib.sh

echo "VCP-DATA kernel $(uname -r)"
scx_need scx-distro-no-sched-ext scx-distro-no-btf scx-distro-load \
	scx-distro-second level1-pack level0-pack scx-distro-unload || exit 0

# a kernel without sched_ext, as the loader sees one: /sys/kernel hidden
# in a mount namespace of its own; it must say so and load nothing
out=$(unshare -m sh -c 'mount -t tmpfs none /sys/kernel &&
	exec timeout 20 scx_vcpack -d /sys/fs/bpf/vcpack-none' 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "this kernel has no sched_ext (no /sys/kernel/sched_ext)" &&
   [ "$(scx_state)" = disabled ] && [ "$(scx_seq)" = 0 ]; then
	vcp_pass scx-distro-no-sched-ext "exit 1: $out"
else
	vcp_fail scx-distro-no-sched-ext "exit $rc, state $(scx_state), enable_seq $(scx_seq): $out"
fi

# sched_ext without the kernel's BTF (/sys/kernel/btf hidden): the loader
# must say that, not blame the kernel's config
out=$(unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf &&
	exec timeout 20 scx_vcpack -d /sys/fs/bpf/vcpack-none' 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "cannot read this kernel's BTF" &&
   ! echo "$out" | grep -q CONFIG_SCHED_CLASS_EXT &&
   [ "$(scx_state)" = disabled ] && [ "$(scx_seq)" = 0 ]; then
	vcp_pass scx-distro-no-btf "exit 1: $(echo "$out" | tail -1)"
else
	vcp_fail scx-distro-no-btf "exit $rc, state $(scx_state), enable_seq $(scx_seq): $(echo "$out" | tr '\n' ' ')"
fi

if scx_start 1 -i 5; then
	vcp_pass scx-distro-load "$(uname -r): state $(scx_state), ops $(scx_ops)"
else
	vcp_fail scx-distro-load "$(uname -r): state $(scx_state), loader: $(tr '\n' ' ' <"$SCX_LOG")"
	exit 0
fi

# a second loader must fail and say why: the running scheduler's name
out=$(scx_vcpack -d /sys/fs/bpf/vcpack2 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "another sched_ext scheduler.*vcpack" &&
   scx_running; then
	vcp_pass scx-distro-second "exit 1: $out"
else
	vcp_fail scx-distro-second "exit $rc, state $(scx_state): $out"
fi

scx_class scx-pack pack
scx_steady3 level1-pack scx-pack/l1
vcp_expect_gathered level1-pack
scx_vcpack level 0
scx_steady3 level0-pack scx-pack/l0
vcp_expect_spread level0-pack 2

scx_stop
rc=$?
left=$(scx_tasks_on_ext)
if [ $rc = 0 ] && [ "$(scx_state)" = disabled ] && [ "$left" = 0 ]; then
	vcp_pass scx-distro-unload "loader exit 0, state disabled, 0 tasks on sched_ext"
else
	vcp_fail scx-distro-unload "loader exit $rc, state $(scx_state), $left tasks on sched_ext"
fi
scx_show_log
