# knobs: the two interfaces of the series, on the cgroup hierarchy the
# guest mounted (v2, or the v1 cpu hierarchy with vcpack.cgroup=v1).
# Bad writes fail with EINVAL and change nothing; good ones read back;
# cpu.consolidate is hierarchical (v2 semantics, on v1 too): a group reads
# back its own class ("inherit" by default), its effective class is that
# of the nearest ancestor that set one, and a write on a parent leaves a
# child's own class alone (checked by where the child's tasks run).
. /scenarios/lib.sh
m=${VCP_CG_MODE:-v2}

# try FILE VALUE: writes VALUE and a newline in one write(2) (as echo
# does) and prints "ok" or the errno name (EINVAL ...).
try() { vcwork --write "$1" "$2"; }

if vcp_have_level; then
	bad=0; why=
	for v in 0 1 2; do
		[ "$(try $LEVEL "$v")" = ok ] && [ "$(cat $LEVEL)" = "$v" ] ||
			{ bad=1; why="$why good write '$v' not read back;"; }
	done
	echo 1 >$LEVEL
	for v in 3 -1 10 abc "" "1 2" 0x1 " " "2x"; do
		r=$(try $LEVEL "$v")
		case $r in
		EINVAL*) ;;
		*) bad=1; why="$why '$v' gave '$r';" ;;
		esac
		[ "$(cat $LEVEL)" = 1 ] || { bad=1; why="$why '$v' changed the level to $(cat $LEVEL);"; }
	done
	echo 0 >$LEVEL
	[ $bad = 0 ] && vcp_pass level-writes-$m "0/1/2 read back; 9 bad values -> EINVAL, level unchanged" ||
		vcp_fail level-writes-$m "$why"
else
	vcp_skip level-writes-$m "knob absent (stock kernel)"
fi

if ! vcp_have_class; then
	vcp_skip class-writes-$m "cpu.consolidate absent (stock kernel)"
	vcp_skip class-inherit-$m "cpu.consolidate absent (stock kernel)"
	vcp_skip class-effective-own-$m "cpu.consolidate absent (stock kernel)"
	vcp_skip class-effective-inherit-$m "cpu.consolidate absent (stock kernel)"
	exit 0
fi

g=$CGROOT/kt
# on v2 a group's children get cpu files only with +cpu in its subtree
enable() { [ "$m" = v2 ] && echo +cpu >"$1/cgroup.subtree_control"; true; }
mkdir -p $g && enable $g
cat $g/cpu.consolidate | grep -qx inherit && def=ok || def="default is '$(cat $g/cpu.consolidate)'"
bad=0; why=
[ "$def" = ok ] || { bad=1; why="$def;"; }
for v in spread pack balanced inherit; do
	[ "$(try $g/cpu.consolidate "$v")" = ok ] && [ "$(cat $g/cpu.consolidate)" = "$v" ] ||
		{ bad=1; why="$why good write '$v' not read back;"; }
done
echo pack >$g/cpu.consolidate
for v in packed PACK "" " " "pack spread" 1 spreadx; do
	r=$(try $g/cpu.consolidate "$v")
	case $r in
	EINVAL*) ;;
	*) bad=1; why="$why '$v' gave '$r';" ;;
	esac
	[ "$(cat $g/cpu.consolidate)" = pack ] || { bad=1; why="$why '$v' changed the class to $(cat $g/cpu.consolidate);"; echo pack >$g/cpu.consolidate; }
done
# the root group: no file, or a refused write (decided by the series)
if [ -f $CGROOT/cpu.consolidate ]; then
	r=$(try $CGROOT/cpu.consolidate pack)
	root="root file present, write -> $r"
else
	root="no root file"
fi
[ $bad = 0 ] && vcp_pass class-writes-$m "default inherit; 4 values read back; 7 bad values -> EINVAL, class unchanged; $root" ||
	vcp_fail class-writes-$m "$why $root"

# own values: c1 made before the write, c2 after, c2/d below c2; each
# group reads back its own class, a parent's write changes no child's
echo inherit >$g/cpu.consolidate
mkdir $g/c1
enable $g
echo pack >$g/cpu.consolidate
mkdir $g/c2 && enable $g/c2 && mkdir $g/c2/d
got="c1=$(cat $g/c1/cpu.consolidate) c2=$(cat $g/c2/cpu.consolidate) d=$(cat $g/c2/d/cpu.consolidate)"
echo spread >$g/c1/cpu.consolidate
got2="g=$(cat $g/cpu.consolidate) c1=$(cat $g/c1/cpu.consolidate) c2=$(cat $g/c2/cpu.consolidate)"
echo balanced >$g/cpu.consolidate
got3="c1=$(cat $g/c1/cpu.consolidate) d=$(cat $g/c2/d/cpu.consolidate)"
if [ "$got" = "c1=inherit c2=inherit d=inherit" ] &&
   [ "$got2" = "g=pack c1=spread c2=inherit" ] &&
   [ "$got3" = "c1=spread d=inherit" ]; then
	vcp_pass class-inherit-$m "children read their own class (inherit); a child's own write stays local; a parent's write leaves it alone"
else
	vcp_fail class-inherit-$m "after pack on parent: $got (want all inherit); after spread on c1: $got2; after balanced on parent: $got3 (want c1=spread d=inherit)"
fi
rmdir $g/c2/d $g/c2 $g/c1 $g

# effective classes, by placement at level 1 (3 steady tasks on 2x4):
# h/own sets spread, then h is set to pack. h/own keeps spread (its tasks
# spread over both packages; v1 of the series overwrote it with pack and
# gathered them); h/inh inherits pack (gathered in one package).
if vcp_have_level; then
	h=$CGROOT/kh
	mkdir -p $h && enable $h && mkdir -p $h/own $h/inh
	echo spread >$h/own/cpu.consolidate
	echo pack >$h/cpu.consolidate
	vcp_set_level 1
	vcp_run class-effective-own-$m --warmup "$WARMUP" --duration "$DURATION" \
		--cgroup-root "$CGROOT" --vm "name=own,threads=3,duty=100,cg=kh/own"
	vcp_run class-effective-inherit-$m --warmup "$WARMUP" --duration "$DURATION" \
		--cgroup-root "$CGROOT" --vm "name=inh,threads=3,duty=100,cg=kh/inh"
	vcp_set_level 0
	vcp_expect_spread class-effective-own-$m 2
	vcp_expect_gathered class-effective-inherit-$m
	rmdir $h/own $h/inh $h 2>/dev/null || :
else
	vcp_skip class-effective-own-$m "knob absent (stock kernel)"
	vcp_skip class-effective-inherit-$m "knob absent (stock kernel)"
fi
