# bench: runs every job of /bench/jobs, one after the other, in the guest.
#
# /bench/jobs is appended to the initramfs by bench/kernel/run.sh (a second
# cpio archive: the kernel unpacks both). One job per line:
#   ID LEVEL VCWORK-ARGS...
# LEVEL is written to sched_mc_power_savings first ("-": leave the kernel
# alone; the stock kernel has no such file). LEVEL scx:N (the scx-L1 and
# scx-L2 runs, on the stock kernel with sched_ext): scx_vcpack runs at
# level N (started if it is not running, else its level is set), and each
# --vm's class is written for its cgroup (made here, before vcwork joins
# it) through the scheduler's pinned maps, as vcwork writes cpu.consolidate
# on the patched kernel. After the job a {"type":"scx"} line says whether
# the scheduler was still the one loaded (state enabled, ops vcpack, the
# same enable_seq): if not, it was ejected during the job, which then
# fails (its figures are not the scheduler's), and the next scx job
# starts it again. Each job: vcresid start (ftrace sched_switch on),
# vcwork ARGS, vcresid report over vcwork's window. Everything is printed
# between VCB-JOB-BEGIN ID and VCB-JOB-END ID, vcwork's and vcresid's JSON
# lines as they are, their stderr as "ERR ...". With vcpack.waits=1 on the
# command line, vcresid also traces sched_wakeup and, after its report,
# prints where the wakeups waited (vcresid waits) and what woke each
# package (vcresid opens); vcpack.waitslow=US
# adds each wait of at least US microseconds in detail, vcpack.waittrace=N
# the trace around the first N of them, vcpack.waitevents=SYS/EV,... more
# events in that trace.
knob=/sys/devices/system/cpu/sched_mc_power_savings
cgroot=${VCP_CG_ROOT:-/sys/fs/cgroup}
# scx_start/scx_stop/scx_running/scx_state/...: the helpers the scx test
# scenarios use too (tests/kernel/scx-lib.sh, linked here)
. /scenarios/scx-lib.sh

# scx_classes VCWORK-ARGS: each --vm's class written for its cgroup
# (cg=, default vcwork-NAME, as vcwork names it); prints how many
scx_classes() {
	_n=0
	while [ $# -gt 0 ]; do
		if [ "$1" = --vm ] && [ $# -gt 1 ]; then
			_name='' _cl='' _cg=''
			for _kv in $(echo "$2" | tr ',' ' '); do
				case $_kv in
				name=*) _name=${_kv#name=} ;;
				class=*) _cl=${_kv#class=} ;;
				cg=*) _cg=${_kv#cg=} ;;
				esac
			done
			_cg=${_cg:-vcwork-$_name}
			if [ -n "$_cl" ]; then
				mkdir -p "$cgroot/$_cg" &&
					scx_vcpack class "$cgroot/$_cg" "$_cl" >&2 ||
					return 1
				_n=$((_n + 1))
			fi
			shift
		fi
		shift
	done
	echo $_n
}

# scx_before LEVEL ARGS...: the scheduler at LEVEL, the classes written
scx_before() {
	_lv=$1
	shift
	if scx_running; then
		scx_vcpack level "$_lv" || { echo "ERR cannot set scx_vcpack's level $_lv"; return 1; }
	else
		# shellcheck disable=SC2086
		scx_start "$_lv" $scx_x || return 1
	fi
	scx_seq0=$(scx_seq)
	scx_ncl=$(scx_classes "$@" 2>/tmp/scx.err) || {
		sed 's/^/ERR scx_vcpack class: /' /tmp/scx.err
		return 1
	}
}

# scx_after LEVEL: the {"type":"scx"} line; 1 if the scheduler was ejected
scx_after() {
	_st=$(scx_state) _sq=$(scx_seq) _ops=$(scx_ops) _ej=false
	scx_running && [ "$_sq" = "$scx_seq0" ] || _ej=true
	echo "{\"type\":\"scx\",\"level\":$1,\"state\":\"$_st\",\"ops\":\"$_ops\",\"enable_seq\":\"$_sq\",\"enable_seq_before\":\"$scx_seq0\",\"classes\":$scx_ncl,\"ejected\":$_ej}"
	[ $_ej = false ] && return 0
	echo "ERR scx_vcpack was ejected during the job (state $_st, ops $_ops, enable_seq $scx_seq0 -> $_sq)"
	tail -5 "$SCX_LOG" | sed 's/^/ERR scx_vcpack: /'
	dmesg | grep -i sched_ext | tail -5 | sed 's/^/ERR dmesg: /'
	return 1
}
# vcpack.pace=HZ on the command line (default 8192, 0 = off): the RTC
# interrupt that paces single-threaded TCG (vcresid pace, BENCHMARKS.md).
# vcpack.pacecpu=CPU: the CPU to pace from, outside the measured topology
# (run.sh boots the guest with one more CPU, alone in a package, and
# isolcpus=domain,CPU where the kernel allows it): every task started
# here is kept off it, and vcwork and vcresid leave it out
# (VCPACK_PACE_CPU). Without it, the CPU this script runs on paces.
pace=8192 pacecpu="" scx_x="" waits="" slow=0 wtrace=0 wevents=""
for a in $(cat /proc/cmdline); do
	case $a in
	vcpack.pace=*) pace=${a#vcpack.pace=} ;;
	vcpack.pacecpu=*) pacecpu=${a#vcpack.pacecpu=} ;;
	vcpack.waits=1) waits=--wakeups ;;
	vcpack.waitslow=*) slow=${a#vcpack.waitslow=} ;;
	vcpack.waittrace=*) wtrace=${a#vcpack.waittrace=} ;;
	vcpack.waitevents=*) wevents="--events ${a#vcpack.waitevents=}" ;;
	esac
done
if [ -n "$pacecpu" ]; then
	# every CPU but the pacing one, for this shell and all it starts
	keep=$(awk -v x="$pacecpu" '/^processor/ && $3 != x { printf "%s%s", s, $3; s = "," }' /proc/cpuinfo)
	taskset -pc "$keep" $$ >/dev/null || { echo "VCB-FAIL cannot keep off CPU $pacecpu"; exit 1; }
	export VCPACK_PACE_CPU="$pacecpu"
	# scx_vcpack leaves it out of its packages too
	scx_x="-x $pacecpu"
fi
if [ "$pace" != 0 ]; then
	rp=$(vcresid pace "$pace" ${pacecpu:+--cpu "$pacecpu"} 2>&1 | tr '\n' ' ')
	echo "VCB-PACE $rp"
	pacecpu=$(echo "$rp" | sed -n 's/.*"cpu":\([0-9]*\).*/\1/p')
else
	echo "VCB-PACE off"
fi
pacecpu=${pacecpu:--1}
echo "VCB-BOOT kernel=$(uname -r) knob=$([ -f $knob ] && echo yes || echo no) cpus=$(nproc) isolated=$(cat /sys/devices/system/cpu/isolated 2>/dev/null) affinity=$(taskset -p $$ | sed 's/.*: //') cmdline=$(cat /proc/cmdline | tr ' ' ',')"
[ -f /bench/jobs ] || { echo "VCB-FAIL no /bench/jobs"; exit 1; }
fails=0
while read -r id level args; do
	case $id in '' | '#'*) continue ;; esac
	echo "VCB-JOB-BEGIN $id level=$level"
	ok=1
	case $level in
	-) ;;
	scx:*)
		# shellcheck disable=SC2086
		scx_before "${level#scx:}" $args || ok=0 ;;
	*)
		if [ ! -f $knob ]; then
			echo "ERR no $knob on this kernel"
			ok=0
		elif ! echo "$level" >$knob; then
			echo "ERR cannot write $level to $knob"
			ok=0
		fi ;;
	esac
	if [ $ok = 1 ]; then
		# shellcheck disable=SC2086
		vcresid start $waits $wevents >/tmp/rs.out 2>/tmp/rs.err || ok=0
		# shellcheck disable=SC2086
		vcwork $args >/tmp/w.out 2>/tmp/w.err || ok=0
		vcresid report --window /tmp/w.out --slot-ms 250 >/tmp/r.out 2>/tmp/r.err || ok=0
		if [ -n "$waits" ]; then
			vcresid waits --window /tmp/w.out --slow "$slow" --slow-trace "$wtrace" \
				--pace-cpu "$pacecpu" >>/tmp/r.out 2>>/tmp/r.err || ok=0
			vcresid opens --window /tmp/w.out >>/tmp/r.out 2>>/tmp/r.err || ok=0
		fi
		cat /tmp/rs.out /tmp/w.out /tmp/r.out
		cat /tmp/rs.err /tmp/w.err /tmp/r.err | sed 's/^/ERR /'
		case $level in scx:*) scx_after "${level#scx:}" || ok=0 ;; esac
	fi
	[ $ok = 1 ] || fails=$((fails + 1))
	echo "VCB-JOB-END $id ok=$ok"
done </bench/jobs
if [ -n "$scx_pid" ]; then
	scx_stop
	echo "VCB-SCX unloaded rc=$? state=$(scx_state) enable_seq=$(scx_seq)"
fi
echo "VCB-DONE fails=$fails"
[ $fails = 0 ]
