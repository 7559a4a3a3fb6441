#!/bin/sh
# run.sh --stock BZIMAGE --patched BZIMAGE --initrd INITRD --out DIR
#        [--only REGEX] [--kernels "stock patched"] [--jobs N]
#        [--scx BZIMAGE --matrix FILE]
#
# The host side of tests/kernel: boots every (kernel, guest) pair of the
# matrix below with kernel/testbed/run-guest.sh, at most --jobs (default 2)
# QEMUs at a time, and counts the guests' VCP-RESULT lines as
# "KERNEL/GUEST/CHECK". Each guest also yields a KERNEL/GUEST/dmesg check
# (no WARNING/BUG/lockdep line) and a boot failure or timeout is a FAIL;
# on a kernel with sched_ext (other than --scx) a KERNEL/GUEST/no-sched-ext
# check that no BPF scheduler was enabled, and a KERNEL/GUEST/testbed
# check: a guest in which the emulator collapsed (collapse.awk: most vCPUs
# stuck, in interrupt context or accounting no time) boots once more with
# vcpack.rerun=1 on its command line, and that boot's results count; the
# first boot's files are kept as NAME.run1.*; a collapse in both is a FAIL.
# KTEST_RUN_GUEST=FILE: the script that boots a guest, in place of
# kernel/testbed/run-guest.sh (tests/bench's stand-in).
# The last line is "N passed, N failed, N skipped"; exit 1 on any failure.
# --scx names the sched_ext kernel (kernel "scx"), --matrix replaces the
# matrix below (tests/kernel/scx.matrix is make check-scx's).
# Guest-side scenarios and their assertions are the other *.sh here.
set -u

here=$(cd "$(dirname "$0")" && pwd)
rg=${KTEST_RUN_GUEST:-$here/../../kernel/testbed/run-guest.sh}
stock= patched= initrd= out= only= kernels="patched stock" jobs=2
scx= matrix_file=
while [ $# -gt 0 ]; do
	case $1 in
	--stock) stock=$2 ;;
	--patched) patched=$2 ;;
	--initrd) initrd=$2 ;;
	--out) out=$2 ;;
	--only) only=$2 ;;
	--kernels) kernels=$2 ;;
	--jobs) jobs=$2 ;;
	--scx) scx=$2 ;;
	--matrix) matrix_file=$2 ;;
	*) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift 2
done
[ -n "$initrd" ] && [ -n "$out" ] || { echo "run.sh: --initrd and --out are required" >&2; exit 2; }

# GUEST  SCENARIOS  TOPOLOGY  CGROUP  TIMEOUT(s)  [KERNEL COMMAND LINE...]
# (longest first: schedwl about 85 s on the patched kernel, then 20-45 s
# each)
matrix="
schedwl       schedwl            2x4      v2 600
gather        gather             2x4      v2 500
smt           smt                2x4x2    v2 600
level2        level2             2x4      v2 500
overload      overload           2x4      v2 400
balance       balance            2x4      v2 400
wake          wake               2x4      v2 400
wake-nohzoff  wake               2x4      v2 400 nohz=off
wakellc       wakellc            2x4      v2 400 nohz=off skew_tick=1
busyspread    busyspread         3x4      v2 400
gather-4x4    gather-topo        4x4      v2 500
gather-numa   gather-topo        numa2x4  v2 400
gather-snc    gather-topo        snc2x4   v2 400
numa          numa               numa2x4  v2 600
stress        stress             2x4      v2 400
knobs-v2      knobs,kselftest    2x4      v2 400
knobs-v1      knobs              2x4      v1 400
"

[ -z "$matrix_file" ] || matrix=$(cat "$matrix_file") ||
	{ echo "run.sh: cannot read --matrix '$matrix_file'" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
echo "$matrix" | grep -v -e '^$' -e '^#' >"$out/matrix"
start=$(date +%s)
running=
n_running=0

# Waits until fewer than $jobs guests run.
reap() {
	while [ "$n_running" -ge "$1" ]; do
		still=
		n_running=0
		for p in $running; do
			if kill -0 "$p" 2>/dev/null; then
				still="$still $p"
				n_running=$((n_running + 1))
			else
				wait "$p" 2>/dev/null
			fi
		done
		running=$still
		[ "$n_running" -ge "$1" ] && sleep 1
	done
}

while read -r id scen topo cg tmo append; do
	for k in $kernels; do
		eval img=\$$k
		[ -n "$img" ] || continue
		[ -z "$only" ] || echo "$k/$id" | grep -Eq "$only" || continue
		reap "$jobs"
		(
			f=$out/$k-$id
			# boot APPEND: one boot of this guest into $f.*
			boot() {
				LABEL=$k OUT=$f INITRD=$initrd TIMEOUT=$tmo CGROUP=$cg \
					APPEND=$1 sh "$rg" "$img" "$scen" "$topo" \
					</dev/null 2>"$f.stderr"
				echo $? >"$f.rc"
				sed "s/^/  /" "$f.stderr" >&2
			}
			boot "$append"
			# the emulator's collapse (collapse.awk): keep that run as
			# run1 and boot once more (another draw; vcpack.rerun=1
			# marks it on the command line)
			awk -f "$here/collapse.awk" "$f.result" >"$f.collapse"
			if [ -s "$f.collapse" ]; then
				for x in log result dmesg stderr rc; do
					mv "$f.$x" "$f.run1.$x"
				done
				sed "s|^|  $k/$id: emulator collapse, booting again: |" \
					"$f.collapse" >&2
				boot "$append vcpack.rerun=1"
				awk -f "$here/collapse.awk" "$f.result" >"$f.collapse2"
			fi
		) &
		running="$running $!"
		n_running=$((n_running + 1))
	done
done <"$out/matrix"
reap 1

# ---- tally ----
: >"$out/summary"
while read -r id scen topo cg tmo _; do
	for k in $kernels; do
		f=$out/$k-$id
		[ -f "$f.rc" ] || continue
		rc=$(cat "$f.rc")
		grep -a '^VCP-RESULT ' "$f.result" 2>/dev/null |
			while read -r _ st name rest; do
				echo "$st $k/$id/$name $rest"
			done >>"$out/summary"
		if [ "$rc" = 2 ] || [ "$rc" = 3 ]; then
			echo "FAIL $k/$id/boot no result: $(tail -1 "$f.stderr") (see $f.log)" >>"$out/summary"
		elif [ "$rc" != 0 ]; then
			echo "FAIL $k/$id/scenario exited non-zero (see $f.log)" >>"$out/summary"
		fi
		# a kernel built with sched_ext runs this matrix on the fair
		# class: no BPF scheduler enabled since boot (scx runs load one)
		sx=$(grep -a '^VCP-SCX ' "$f.result" 2>/dev/null | tail -1)
		if [ -n "$sx" ] && [ "$k" != scx ]; then
			case $sx in
			"VCP-SCX state=disabled enable_seq=0") echo "PASS $k/$id/no-sched-ext sched_ext built in, never enabled (${sx#VCP-SCX })" ;;
			*) echo "FAIL $k/$id/no-sched-ext a BPF scheduler was loaded: ${sx#VCP-SCX }" ;;
			esac >>"$out/summary"
		fi
		# one check per guest: the testbed held (see collapse.awk)
		if [ -s "$f.collapse2" ]; then
			echo "FAIL $k/$id/testbed emulator collapse in both boots: $(head -1 "$f.collapse2") (see $f.run1.log, $f.log)"
		elif [ -s "$f.collapse" ]; then
			echo "PASS $k/$id/testbed emulator collapse in the first boot ($(head -1 "$f.collapse")), none in the second (vcpack.rerun=1): its results count"
		else
			echo "PASS $k/$id/testbed no emulator collapse"
		fi >>"$out/summary"
		if [ "$rc" != 2 ] && [ "$rc" != 3 ]; then
			if [ -s "$f.dmesg" ]; then
				echo "FAIL $k/$id/dmesg $(head -2 "$f.dmesg" | tr '\n' ' ')" >>"$out/summary"
			else
				echo "PASS $k/$id/dmesg no WARNING/BUG/lockdep lines" >>"$out/summary"
			fi
		fi
	done
done <"$out/matrix"
# the schedwl guest: patched level 0 against stock (and figures of 1, 2)
if [ -f "$out/stock-schedwl.result" ] && [ -f "$out/patched-schedwl.result" ]; then
	sh "$here/wlcompare.sh" "$out/stock-schedwl.result" \
		"$out/patched-schedwl.result" >>"$out/summary"
fi
cat "$out/summary"
p=$(grep -c '^PASS ' "$out/summary")
f=$(grep -c '^FAIL ' "$out/summary")
s=$(grep -c '^SKIP ' "$out/summary")
echo "kernel tests: $(($(date +%s) - start)) s of guests; results in $out"
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
