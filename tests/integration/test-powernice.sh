#!/bin/sh
# test-powernice.sh POWERNICE|BUILD_DIR - the real powernice binary on
# temp copies of tests/data/kroot/ (--root): run a command in a class, move
# a running `sleep` (killed by its pid on exit), print a class, refuse a
# kernel without cpu.consolidate (exit 1) and a bad class (exit 2), remove
# the group it made when the pid cannot be written into it (exit 1), when
# the class cannot be written after "+cpu" (taken back: "-cpu") and when
# the command cannot be run (126/127). On a
# stock kernel also the real root's refusal. Prints "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
PN=${1:-build}
[ -d "$PN" ] && PN=$PN/powernice
PN=$(cd "$(dirname "$PN")" && pwd)/$(basename "$PN")
KROOT=$(cd "$here/../data/kroot" && pwd)
if [ ! -x "$PN" ]; then
	echo "test-powernice: no powernice binary at $PN"; exit 1
fi
t_setup
NOKNOB="powernice: this kernel has no cpu.consolidate (needs the vcpack kernel patches); nothing changed"

fixture() { # NAME -> a fresh writable copy, path on stdout
	d=$(mktemp -d "$T_TMP/$1.XXXXXX") && cp -a "$KROOT/$1" "$d/" &&
		echo "$d/$1"
}

# ---- basics ----
out=$("$PN" --version); t_eq "--version: exit 0" 0 $?
t_match "--version: names the program" "^powernice \(vcpack\) [0-9]" "$out"
out=$("$PN" --help); t_eq "--help: exit 0" 0 $?
t_match "--help: usage" "^Usage: powernice CLASS COMMAND" "$out"
t_nomatch "--help: --root stays hidden" "--root" "$out"
out=$("$PN" 2>&1); t_eq "no arguments: exit 2" 2 $?
out=$("$PN" pack 2>&1); t_eq "CLASS without COMMAND: exit 2" 2 $?
t_match "CLASS without COMMAND: said" "no COMMAND" "$out"

# ---- bad class: exit 2, value named, valid ones listed, nothing read ----
R=$(fixture v1)
out=$("$PN" --root "$R" fast true 2>&1); t_eq "bad class: exit 2" 2 $?
t_eq "bad class: message" \
	"powernice: unknown class 'fast' (valid classes: spread, balanced, pack)" "$out"
out=$("$PN" --root "$R" -p 1 Pack 2>&1); t_eq "bad class with -p: exit 2" 2 $?
t_match "bad class with -p: names it" "'Pack'" "$out"
out=$("$PN" --root "$R" -p 0 2>&1); t_eq "pid 0: exit 2" 2 $?
out=$("$PN" --root "$R" -p 12x pack 2>&1); t_eq "pid 12x: exit 2" 2 $?
t_match "bad pid: names it" "invalid pid '12x'" "$out"

# ---- CLASS COMMAND on v1: a group of its own below the caller's ----
out=$("$PN" --root "$R" pack sh -c 'echo "$$ $0 $1" >"$2"' a0 a1 "$T_TMP/ran")
t_eq "run: exit 0" 0 $?
read -r cpid a0 a1 <"$T_TMP/ran"
t_eq "run: arguments passed on" "a0 a1" "$a0 $a1"
G=$R/sys/fs/cgroup/cpu/user.slice/powernice-$cpid
t_eq "run: new group below the caller's (/user.slice)" yes \
	"$([ -d "$G" ] && echo yes)"
t_eq "run: the command's pid in cgroup.procs" "$cpid" "$(cat "$G/cgroup.procs")"
t_eq "run: class written" pack "$(cat "$G/cpu.consolidate")"
t_eq "run: parent's class untouched" balanced \
	"$(cat "$R/sys/fs/cgroup/cpu/user.slice/cpu.consolidate")"
"$PN" --root "$R" spread sh -c 'exit 7'
t_eq "run: the command's exit status" 7 $?
out=$("$PN" --root "$R" pack ./no-such-command-here 2>&1)
t_eq "run: command not found: exit 127" 127 $?
t_match "run: command not found: said" "failed to run './no-such-command-here'" "$out"
out=$("$PN" --root "$R" pack "$KROOT" 2>&1)
t_eq "run: command not executable: exit 126" 126 $?
# the group made for a command that never ran does not stay behind
t_match "run: command not executable: group removed, said" \
	"failed to run '$KROOT': Permission denied; removed the new group again, nothing changed\$" "$out"
t_eq "run: 126/127: no group left for them" 2 \
	"$(find "$R/sys/fs/cgroup/cpu/user.slice" -name 'powernice-*' | wc -l)"

# ---- the pid cannot be written into the new group: it does not stay ----
# A non-root user outside its delegated tree gets EACCES/ENOENT/EBUSY
# there; here RLIMIT_FSIZE 0 (SIGXFSZ ignored) gives EFBIG. Without the
# parent's class the fixture's new group holds only its empty
# cgroup.procs, so making it succeeds and the write is what fails.
nowrite() { # ROOT CLASS COMMAND... -> powernice's output, its status
	(r=$1; shift; trap '' XFSZ; ulimit -f 0; "$PN" --root "$r" "$@" 2>&1)
}
R5=$(fixture v1)
U=$R5/sys/fs/cgroup/cpu/user.slice
rm "$U/cpu.consolidate"
out=$(nowrite "$R5" pack true); t_eq "pid write refused: exit 1" 1 $?
t_match "pid write refused: group named, removed again" \
	"^powernice: cannot move pid [0-9]+ into cgroup /user.slice/powernice-[0-9]+: File too large; removed the new group again, nothing changed\$" "$out"
t_eq "pid write refused: no group left" "" "$(find "$U" -name 'powernice-*')"
if chattr +a "$U" 2>/dev/null; then	# append-only: no rmdir below it
	out=$(nowrite "$R5" spread true); st=$?
	left=$(find "$U" -name 'powernice-*')
	chattr -a "$U"
	t_eq "pid write and rmdir refused: exit 1" 1 "$st"
	t_match "pid write and rmdir refused: the empty group stays, its path" \
		"; the new empty group $U/powernice-[0-9]+ stays \(rmdir: Operation not permitted\)\$" "$out"
	t_match "pid write and rmdir refused: the group is there" \
		"^$U/powernice-[0-9]+\$" "$left"
	rm -rf "$left"
else
	echo "# chattr +a refused here: the failed rmdir is not checked"
fi
# a group that was there before is not removed: the pid is powernice's,
# which execs in sh -c, so its group can be made in advance
out=$(sh -c 'mkdir -p "$1/powernice-$$/cgroup.procs" && echo $$ >"$2" &&
	exec "$3" --root "$4" pack true' sh "$U" "$T_TMP/pid5" "$PN" "$R5" 2>&1)
t_eq "pid write refused, group was there: exit 1" 1 $?
p5=$(cat "$T_TMP/pid5")
t_eq "pid write refused, group was there: nothing changed" \
	"powernice: cannot move pid $p5 into cgroup /user.slice/powernice-$p5: Is a directory; nothing changed" "$out"
t_eq "pid write refused, group was there: it stays" yes \
	"$([ -d "$U/powernice-$p5/cgroup.procs" ] && echo yes)"

# ---- CLASS COMMAND on v2: the child inherits, then gets the class ----
R2=$(fixture v2)
S=/user.slice/user-0.slice/session-1.scope
"$PN" --root "$R2" spread sh -c 'echo $$ >"$0"' "$T_TMP/ran2"
t_eq "v2 run: exit 0" 0 $?
cpid=$(cat "$T_TMP/ran2")
G=$R2/sys/fs/cgroup$S/powernice-$cpid
t_eq "v2 run: pid in the new group" "$cpid" "$(cat "$G/cgroup.procs" 2>&1)"
t_eq "v2 run: class written" spread "$(cat "$G/cpu.consolidate" 2>&1)"

# ---- -p PID CLASS: move a running sleep ----
sleep 300 &
sp=$!
T_PIDS="$T_PIDS $sp"
mkdir -p "$R/proc/$sp"
echo "4:cpu:/user.slice" >"$R/proc/$sp/cgroup"
out=$("$PN" --root "$R" -p "$sp" pack); t_eq "-p PID pack: exit 0" 0 $?
t_eq "-p PID pack: says where" "$sp: pack (cgroup /user.slice/powernice-pack)" "$out"
G=$R/sys/fs/cgroup/cpu/user.slice/powernice-pack
t_eq "-p PID pack: pid in cgroup.procs" "$sp" "$(cat "$G/cgroup.procs" 2>&1)"
t_eq "-p PID pack: class written" pack "$(cat "$G/cpu.consolidate" 2>&1)"
# the fixture's /proc does not follow the move: say where it is now
echo "4:cpu:/user.slice/powernice-pack" >"$R/proc/$sp/cgroup"
out=$("$PN" --root "$R" -p "$sp"); t_eq "-p PID: exit 0" 0 $?
t_eq "-p PID: prints" "$sp: pack (cgroup /user.slice/powernice-pack)" "$out"
out=$("$PN" --root "$R" -p "$sp" spread)
t_eq "-p PID spread from powernice-pack: a sibling, not nested" \
	"$sp: spread (cgroup /user.slice/powernice-spread)" "$out"
t_eq "-p PID spread: class written" spread \
	"$(cat "$R/sys/fs/cgroup/cpu/user.slice/powernice-spread/cpu.consolidate" 2>&1)"
t_eq "-p PID spread: the emptied powernice-pack removed" no \
	"$([ -d "$G" ] && echo yes || echo no)"
kill "$sp" 2>/dev/null

# ---- -p on a libvirt guest: printed as the VM's group, never moved ----
out=$("$PN" --root "$R" -p 4242); t_eq "-p guest: exit 0" 0 $?
t_eq "-p guest: the VM's group" "4242: pack (cgroup /machine/qemu-1-web.libvirt-qemu)" "$out"
out=$("$PN" --root "$R" -p 4242 spread 2>&1); t_eq "-p guest CLASS: exit 1" 1 $?
t_match "-p guest CLASS: points to vcpack tag" "libvirt guest .*vcpack tag" "$out"
t_eq "-p guest CLASS: nothing created" "" \
	"$(find "$R/sys/fs/cgroup/cpu/machine" -name 'powernice-*')"
out=$("$PN" --root "$R" -p 999999 2>&1); t_eq "-p gone pid: exit 1" 1 $?
t_match "-p gone pid: said" "cannot find the cpu cgroup of pid 999999" "$out"

# ---- cgroup v2 where the caller's group cannot enable cpu for children ----
R3=$(fixture v2)
mkdir "$R3/sys/fs/cgroup/system.slice"
: >"$R3/sys/fs/cgroup/system.slice/cgroup.procs"
echo balanced >"$R3/sys/fs/cgroup/cpu.consolidate"
echo "0::/system.slice" >"$R3/proc/self/cgroup"
out=$("$PN" --root "$R3" pack true 2>&1); t_eq "v2 no cpu below the group: exit 1" 1 $?
t_match "v2 no cpu below the group: said" \
	"cannot enable the cpu controller below cgroup /system.slice: .*; removed the new group again, nothing changed\$" "$out"
t_eq "v2 no cpu below the group: no group left" "" \
	"$(find "$R3/sys/fs/cgroup/system.slice" -name 'powernice-*')"
t_match "v2 no cpu below the group: moved back" "^[0-9]+$" \
	"$(cat "$R3/sys/fs/cgroup/system.slice/cgroup.procs")"

# ---- cgroup v2: +cpu enabled, then the class write fails: all undone ----
# The fixture's parent has no class, so the new child has none either:
# "+cpu" goes into the parent's cgroup.subtree_control and the class
# write finds no file. powernice must take its "+cpu" back ("-cpu"): on
# cgroupfs a group with +cpu cannot take the process back.
R6=$(fixture v2)
mkdir "$R6/sys/fs/cgroup/system.slice"
: >"$R6/sys/fs/cgroup/system.slice/cgroup.procs"
: >"$R6/sys/fs/cgroup/system.slice/cgroup.subtree_control"
echo "0::/system.slice" >"$R6/proc/self/cgroup"
out=$("$PN" --root "$R6" pack true 2>&1); t_eq "v2 class write fails: exit 1" 1 $?
t_match "v2 class write fails: said, all undone" \
	"cannot write cpu.consolidate=pack in cgroup /system.slice/powernice-[0-9]+: .*; disabled the cpu controller below /system.slice again, removed the new group again, nothing changed\$" "$out"
t_eq "v2 class write fails: +cpu taken back" "-cpu" \
	"$(cat "$R6/sys/fs/cgroup/system.slice/cgroup.subtree_control")"
t_eq "v2 class write fails: no group left" "" \
	"$(find "$R6/sys/fs/cgroup/system.slice" -name 'powernice-*')"

# ---- no cpu.consolidate: exit 1, the message, nothing changed ----
for f in v1-stock v2-stock nocpu; do
	R4=$(fixture $f)
	before=$(cd "$R4" && find . | sort)
	out=$("$PN" --root "$R4" pack true 2>&1); t_eq "$f: run: exit 1" 1 $?
	t_eq "$f: run: message" "$NOKNOB" "$out"
	out=$("$PN" --root "$R4" -p 4242 pack 2>&1); t_eq "$f: -p CLASS: exit 1" 1 $?
	t_eq "$f: -p CLASS: message" "$NOKNOB" "$out"
	out=$("$PN" --root "$R4" -p 4242 2>&1); t_eq "$f: -p: exit 1" 1 $?
	t_eq "$f: nothing changed" "$before" "$(cd "$R4" && find . | sort)"
done
out=$("$PN" --root "$T_TMP/no-such-root" pack true 2>&1)
t_eq "unreadable mountinfo: exit 1" 1 $?
t_match "unreadable mountinfo: names the file" "no-such-root/proc/self/mountinfo" "$out"

# ---- the real root ----
if [ -e /sys/fs/cgroup/cpu.consolidate ] || [ -e /sys/fs/cgroup/cpu/cpu.consolidate ]; then
	echo "# the real root has cpu.consolidate: stock-kernel check skipped"
else
	out=$("$PN" pack true 2>&1); t_eq "real root (stock kernel): exit 1" 1 $?
	t_eq "real root (stock kernel): message" "$NOKNOB" "$out"
	out=$("$PN" -p $$ 2>&1); t_eq "real root -p: exit 1" 1 $?
fi

t_done
