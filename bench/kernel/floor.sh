#!/bin/sh
# bench/kernel/floor.sh OUTDIR STOCK_IMG INITRD - the testbed's own floor.
#
# What single-threaded TCG does to wakeup latency, with no scheduler
# decision involved: one bursty thread pinned alone on CPU 0 (5 ms of CPU
# every 10 ms), beside 0, 1 and 3 spinning threads pinned on the other
# package, on the stock kernel, 2x4. Run on the unpaced testbed (the
# kernel's NO_HZ_IDLE), paced from a workload CPU (paced-inline: nohz=off
# skew_tick=1, RTC at 8192 Hz) and paced from a CPU of its own outside the
# topology, as run.sh does (paced). On real hardware all rows would read
# the same; here they show how much latency the emulator itself adds.
# Writes OUTDIR/floor.md and prints it.
set -eu
out=$1 img=$2 initrd=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/kernel/scenarios.sh"
mkdir -p "$out/floor"
a="--warmup 1 --duration 3 --seed 5 --mon-ms 1000 --vm name=a,threads=1,class=pack,duty=50,burst=5ms,work=cpu,pins=0"
{
	echo "alone/x/x/-/1/1 - $a"
	echo "spin1/x/x/-/1/1 - $a --vm name=b,threads=1,class=pack,pins=4"
	echo "spin3/x/x/-/1/1 - $a --vm name=b,threads=3,class=pack,pins=4/5/6"
} >"$out/floor/jobs"
sh "$top/bench/kernel/jobs-initrd.sh" "$initrd" "$out/floor/jobs" "$out/floor/boot.cpio"
tbs="nohz paced-inline paced"
for tb in $tbs; do
	PACE_CPU=$(testbed_pace_cpu $tb) APPEND=$(testbed_append $tb stock 2 4) INITRD=$out/floor/boot.cpio OUT=$out/floor/$tb MEM=512 TIMEOUT=300 \
		LABEL="floor $tb" sh "$top/kernel/testbed/run-guest.sh" "$img" bench 2x4 \
		2>>"$out/floor/run.log" || true
done
rm -f "$out/floor/boot.cpio"
{
	echo "| testbed | pacing CPU | spinning vCPUs elsewhere | p50 us | p99 us | max us | bursts done |"
	echo "|---|---|---|---|---|---|---|"
	for tb in $tbs; do
		pcpu=$(sed -n 's/^VCB-PACE .*"cpu":\([0-9]*\).*/\1/p' "$out/floor/$tb.result" 2>/dev/null)
		awk '/^VCB-JOB-BEGIN / { split($2, f, "/"); job = f[1] }
		     /"type":"class"/ && /"class":"pack"/ { print job, $0 }' \
			"$out/floor/$tb.result" |
		while read -r job line; do
			case $job in alone) n=0 ;; spin1) n=1 ;; spin3) n=3 ;; *) n=? ;; esac
			echo "$line" | jq -r --arg tb "$tb" --arg n "$n" --arg pc "${pcpu:--}" \
				'"| \($tb) | \($pc) | \($n) | \(.wake_p50_us | round) | \(.wake_p99_us | round) | \(.wake_max_us | round) | \(.bursts)/\(.bursts_due) |"'
		done
	done
} >"$out/floor.md"
cat "$out/floor.md"
