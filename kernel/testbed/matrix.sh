#!/bin/sh
# matrix.sh configs PATCHED_SRC OUTDIR BASE_FRAGMENT VARIANT.config...
# matrix.sh prefixes PRISTINE_SRC OUTDIR PATCHDIR BASE_FRAGMENT
#
# Compile-only checks of the patch series, beside the full testbed builds.
#
# configs: for each VARIANT (a small fragment applied over the testbed
# fragment with mkconfig.sh, so a lost option fails loudly), builds the
# scheduler objects (kernel/sched/, where the whole series' code lives)
# of the patched tree in OUTDIR/NAME, one O= directory per variant, so a
# second run only rebuilds what changed.
#
# prefixes: applies the series one patch at a time to OUTDIR/prefix-src (a
# hard-link copy of PRISTINE_SRC; the files the series touches are private
# copies) and after each patch compiles, on the testbed config in
# OUTDIR/prefix, the objects built from the C files the patch touches (the
# whole directory when it touches only headers), and the selftest sources
# it touches (cc -fsyntax-only). Documentation is not built. The walk is
# skipped while the checksum of the series and the fragment is unchanged.
#
# Everything is compiled with KCFLAGS=-Werror. One line per build:
# "matrix: WHAT ok|FAIL (N s)", the compiler's errors after a FAIL; exit 1
# if anything failed, after trying everything.
set -u

JOBS=${JOBS:-$(nproc)}
tb=$(cd "$(dirname "$0")" && pwd)
failed=0

die() {
	echo "matrix: $*" >&2
	exit 2
}

# kmake SRC O LOG TARGET...: a quiet, warning-free kbuild run
kmake() {
	src=$1 obj=$2 log=$3
	shift 3
	make -C "$src" O="$obj" -j"$JOBS" -s KCFLAGS=-Werror "$@" >"$log" 2>&1
}

# report WHAT START RC LOG
report() {
	t=$(($(date +%s) - $2))
	if [ "$3" = 0 ]; then
		echo "matrix: $1 ok ($t s)"
	else
		echo "matrix: $1 FAIL ($t s)"
		grep -E 'error|Error|warning' "$4" | head -20 | sed 's/^/  /'
		failed=1
	fi
}

configs() {
	src=$1 out=$2 base=$3
	shift 3
	[ -d "$src" ] || die "tree '$src' does not exist"
	for v in "$@"; do
		name=$(basename "$v" .config)
		obj=$out/$name
		start=$(date +%s)
		mkdir -p "$obj"
		if sh "$tb/mkconfig.sh" "$src" "$obj" "$base" "$v" 2>"$obj/.matrix.log"; then
			kmake "$src" "$obj" "$obj/.matrix.log" kernel/sched/
			rc=$?
		else
			rc=1
		fi
		report "config $name: kernel/sched/" "$start" "$rc" "$obj/.matrix.log"
	done
}

. "$tb/series.sh"

# The kbuild targets that compile FILE of TREE: its own object when the
# directory's Makefile names it, else the object of the .c file that
# #includes it (kernel/sched/build_*.c); a header: its directory.
kbuild_target() {
	tree=$1 f=$2
	d=${f%/*} b=${f##*/}
	case $b in
	*.h) echo "$d/" ;;
	*.c)
		o=${b%.c}.o
		if grep -Eq "(^|[[:space:]])$o([[:space:]]|\$)" "$tree/$d/Makefile" 2>/dev/null; then
			echo "$d/$o"
			return
		fi
		inc=$(grep -l "^# *include \"$b\"" "$tree/$d"/*.c 2>/dev/null | head -1)
		[ -n "$inc" ] || die "no object builds $f"
		inc=${inc##*/}
		echo "$d/${inc%.c}.o" ;;
	esac
}

prefixes() {
	pristine=$1 out=$2 pdir=$3 base=$4
	tree=$out/prefix-src obj=$out/prefix
	[ -d "$pristine" ] || die "tree '$pristine' does not exist"
	patches=$(list_patches "$pdir") || exit 2
	# shellcheck disable=SC2086
	sum=$( { cat "$pdir/series" "$base"; for p in $patches; do cat "$p"; done; } |
		sha256sum | cut -d' ' -f1)
	if [ -f "$obj/.vcpack-prefix.sum" ] && [ "$(cat "$obj/.vcpack-prefix.sum")" = "$sum" ]; then
		echo "matrix: every prefix of the series unchanged since it built"
		return
	fi
	rm -f "$obj/.vcpack-prefix.sum"

	# back to pristine: every file the old or the new series touches
	[ -d "$tree" ] || cp -al "$pristine" "$tree"
	old=
	[ -f "$tree/.vcpack-files" ] && old=$(cat "$tree/.vcpack-files")
	# shellcheck disable=SC2086
	new=$(touched_files $patches)
	printf '%s\n' "$new" >"$tree/.vcpack-files"
	for f in $(printf '%s\n%s\n' "$old" "$new" | sort -u); do
		if [ -f "$pristine/$f" ]; then
			cp "$pristine/$f" "$tree/$f.vcpack-copy"
			mv -f "$tree/$f.vcpack-copy" "$tree/$f"
		else
			rm -f "$tree/$f"
		fi
	done

	mkdir -p "$obj"
	start=$(date +%s)
	sh "$tb/mkconfig.sh" "$tree" "$obj" "$base" 2>"$obj/.matrix.log"
	rc=$?
	[ "$rc" = 0 ] && { kmake "$tree" "$obj" "$obj/.matrix.log" prepare; rc=$?; }
	report "prefix 0: testbed config, make prepare" "$start" "$rc" "$obj/.matrix.log"
	[ "$rc" = 0 ] || return

	n=0
	for p in $patches; do
		n=$((n + 1))
		start=$(date +%s)
		log=$obj/.matrix-$n.log
		: >"$log"
		if ! patch -d "$tree" -p1 --batch --forward --no-backup-if-mismatch -s <"$p" >"$log" 2>&1; then
			report "prefix $n: $(basename "$p") applies" "$start" 1 "$log"
			return
		fi
		targets='' ksft='' other=''
		for f in $(touched_files "$p"); do
			case $f in
			tools/testing/selftests/*.c) ksft="$ksft $f" ;;
			tools/* | Documentation/* | */Makefile | *.gitignore | *.rst) other="$other $f" ;;
			*.c | *.h) targets="$targets $(kbuild_target "$tree" "$f")" ;;
			*) other="$other $f" ;;
			esac
		done
		# a header with C files: the C files' objects; a header alone: its directory
		# shellcheck disable=SC2086
		objs=$(printf '%s\n' $targets | grep '\.o$' | sort -u)
		# shellcheck disable=SC2086
		[ -n "$objs" ] || objs=$(printf '%s\n' $targets | sort -u)
		rc=0 what=''
		if [ -n "$objs" ]; then
			# shellcheck disable=SC2086
			kmake "$tree" "$obj" "$log" $objs || rc=1
			# shellcheck disable=SC2086,SC2116
			what=$(echo $objs)
		fi
		for f in $ksft; do
			d=$tree/${f%/*}
			cc -fsyntax-only -Wall -Werror -I"$tree/tools/testing/selftests" \
				-I"$d" "$tree/$f" >>"$log" 2>&1 || rc=1
			what="$what ${f##*/} (cc -fsyntax-only)"
		done
		[ -n "$what" ] || what="nothing to compile"
		report "prefix $n: $(basename "$p" .patch | cut -c1-40): $what" "$start" "$rc" "$log"
	done
	[ "$failed" = 0 ] && echo "$sum" >"$obj/.vcpack-prefix.sum"
}

mode=${1:-}
[ $# -ge 1 ] && shift
case $mode in
configs) [ $# -ge 4 ] || die "usage: matrix.sh configs SRC OUT BASE VARIANT..."; configs "$@" ;;
prefixes) [ $# -eq 4 ] || die "usage: matrix.sh prefixes SRC OUT PATCHDIR BASE"; prefixes "$@" ;;
*) die "usage: matrix.sh configs|prefixes ..." ;;
esac
[ "$failed" = 0 ]
