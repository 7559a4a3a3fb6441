# bench: runs every job of /bench/jobs, one after the other, in the guest.
#
# /bench/jobs is appended to the initramfs by bench/kernel/run.sh (a second
# cpio archive: the kernel unpacks both). One job per line:
#   ID LEVEL VCWORK-ARGS...
# LEVEL is written to sched_mc_power_savings first ("-": leave the kernel
# alone; the stock kernel has no such file). Each job: vcresid start
# (ftrace sched_switch on), vcwork ARGS, vcresid report over vcwork's
# window. Everything is printed between VCB-JOB-BEGIN ID and VCB-JOB-END ID,
# vcwork's and vcresid's JSON lines as they are, their stderr as "ERR ...".
knob=/sys/devices/system/cpu/sched_mc_power_savings
# vcpack.pace=HZ on the command line (default 8192, 0 = off): the RTC
# interrupt that paces single-threaded TCG (vcresid pace, BENCHMARKS.md)
pace=8192
for a in $(cat /proc/cmdline); do
	case $a in vcpack.pace=*) pace=${a#vcpack.pace=} ;; esac
done
if [ "$pace" != 0 ]; then
	echo "VCB-PACE $(vcresid pace "$pace" 2>&1 | tr '\n' ' ')"
else
	echo "VCB-PACE off"
fi
echo "VCB-BOOT kernel=$(uname -r) knob=$([ -f $knob ] && echo yes || echo no) cpus=$(nproc) cmdline=$(cat /proc/cmdline | tr ' ' ',')"
[ -f /bench/jobs ] || { echo "VCB-FAIL no /bench/jobs"; exit 1; }
fails=0
while read -r id level args; do
	case $id in '' | '#'*) continue ;; esac
	echo "VCB-JOB-BEGIN $id level=$level"
	ok=1
	if [ "$level" != - ]; then
		if [ ! -f $knob ]; then
			echo "ERR no $knob on this kernel"
			ok=0
		elif ! echo "$level" >$knob; then
			echo "ERR cannot write $level to $knob"
			ok=0
		fi
	fi
	if [ $ok = 1 ]; then
		vcresid start >/tmp/rs.out 2>/tmp/rs.err || ok=0
		# shellcheck disable=SC2086
		vcwork $args >/tmp/w.out 2>/tmp/w.err || ok=0
		vcresid report --window /tmp/w.out --slot-ms 250 >/tmp/r.out 2>/tmp/r.err || ok=0
		cat /tmp/rs.out /tmp/w.out /tmp/r.out
		cat /tmp/rs.err /tmp/w.err /tmp/r.err | sed 's/^/ERR /'
	fi
	[ $ok = 1 ] || fails=$((fails + 1))
	echo "VCB-JOB-END $id ok=$ok"
done </bench/jobs
echo "VCB-DONE fails=$fails"
[ $fails = 0 ]
