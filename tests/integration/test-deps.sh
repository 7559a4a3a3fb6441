#!/bin/sh
# test-deps.sh BUILD_DIR - scripts/deps.sh waits for another apt-get or
# dpkg holding its lock instead of failing, and gives up after
# VCP_APT_LOCK_TIMEOUT. Runs deps.sh with stand-ins for dpkg-query (every
# package missing), id (root) and apt-get (the lock is held for the first
# N calls) first on PATH: nothing is installed, apt is never run.
# Then the sets: --demo (make demo) installs the build of vcpack and jq
# alone, without recommends (each pkg-config module of the Makefile from
# one of them; no Prometheus, pandoc, QEMU or clang), --kernel (make
# check) all of deps.sh's packages, and make demo builds vcpack alone.
B=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_setup
F=$T_TMP/bin
mkdir -p "$F"
printf '#!/bin/sh\nexit 1\n' >"$F/dpkg-query"
printf '#!/bin/sh\necho 0\n' >"$F/id"
# apt-get: the lists lock (update) or dpkg's frontend lock (install) is
# held for the first $LOCKED calls; records each call's arguments
cat >"$F/apt-get" <<'SH'
#!/bin/sh
n=$(($(cat "$CALLS.n" 2>/dev/null || echo 0) + 1))
echo $n >"$CALLS.n"
echo "$*" >>"$CALLS"
if [ "$n" -le "$LOCKED" ]; then
	case $* in
	*update*) echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2 ;;
	*) echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2 ;;
	esac
	exit 100
fi
echo "apt-get $*: done"
SH
chmod +x "$F"/*
export CALLS=$T_TMP/calls

# held for 2 calls (update twice), then free: waits, then installs
LOCKED=2 VCP_APT_LOCK_POLL=0.1 PATH=$F:$PATH sh "$top/scripts/deps.sh" \
	>"$T_TMP/out" 2>&1
t_eq "lock held for a while: deps.sh succeeds" 0 $?
t_eq "apt-get update retried until the lock was free, then install" \
	"update update update install" \
	"$(awk '{ for (i = 1; i <= NF; i++) if ($i == "update" || $i == "install") { printf "%s%s", s, $i; s = " " } }' "$CALLS")"
t_match "it says it waits" "waiting for another apt-get/dpkg" "$(cat "$T_TMP/out")"
t_match "install waits for dpkg's lock too (DPkg::Lock::Timeout)" \
	"DPkg::Lock::Timeout=900 install" "$(grep install "$CALLS")"

# a lock held for good: gives up after the timeout, with apt's message
rm -f "$CALLS" "$CALLS.n"
LOCKED=1000 VCP_APT_LOCK_TIMEOUT=1 VCP_APT_LOCK_POLL=0.2 PATH=$F:$PATH \
	sh "$top/scripts/deps.sh" >"$T_TMP/out" 2>&1
t_eq "lock never freed: deps.sh fails" 1 $?
t_match "and says why" "Could not get lock /var/lib/apt/lists/lock" "$(cat "$T_TMP/out")"

# another error is not waited for
rm -f "$CALLS" "$CALLS.n"
printf '#!/bin/sh\necho "E: Unable to locate package nosuch" >&2\nexit 100\n' >"$F/apt-get"
VCP_APT_LOCK_POLL=0.1 PATH=$F:$PATH sh "$top/scripts/deps.sh" >"$T_TMP/out" 2>&1
t_eq "another apt error fails at once" 1 $?
t_nomatch "without waiting" "waiting for another" "$(cat "$T_TMP/out")"

# ---- the sets: make demo installs what the demo needs, make check the
# rest (deps-kernel) ----
cat >"$F/apt-get" <<'SH'
#!/bin/sh
echo "$*" >>"$CALLS"
SH
chmod +x "$F/apt-get"
installs() { # ARGS...: the packages deps.sh asks apt-get to install
	rm -f "$CALLS"
	PATH=$F:$PATH sh "$top/scripts/deps.sh" "$@" >"$T_TMP/out" 2>&1
	echo $? >"$T_TMP/rc"
	sed -n 's/.* install -y -q //p' "$CALLS" | tr ' ' '\n' | grep . | sort
}
installs --demo >"$T_TMP/demo"
t_eq "deps.sh --demo: exit 0" 0 "$(cat "$T_TMP/rc")"
t_eq "deps.sh --demo: without recommends" 1 "$(grep -c -- '--no-install-recommends' "$CALLS")"
demo=$(grep -v '^--' "$T_TMP/demo" | tr '\n' ' ')
t_eq "deps.sh --demo: the build of vcpack and jq" \
	"build-essential jq libglib2.0-dev libjson-c-dev libvirt-dev libvirt-glib-1.0-dev libxml2-dev pkg-config " \
	"$demo"
for p in prometheus prometheus-node-exporter pandoc scdoc qemu-system-x86 \
	libvirt-daemon clang clang-19 llvm-19 linux-source-6.12 lintian python3; do
	case " $demo " in *" $p "*) t_fail "deps.sh --demo installs $p" ;; esac
done
t_pass "deps.sh --demo: no Prometheus, pandoc, scdoc, QEMU, libvirtd or clang"
installs --kernel >"$T_TMP/kernel"
t_eq "deps.sh --kernel: with recommends, as before" 0 "$(grep -c -- '--no-install-recommends' "$CALLS")"
t_eq "deps.sh --kernel (make check): the demo's packages too" "" \
	"$(grep -v '^--' "$T_TMP/demo" | comm -23 - "$T_TMP/kernel" | tr '\n' ' ')"
for p in prometheus pandoc scdoc qemu-system-x86 libcmocka-dev lintian \
	linux-source-6.12 clang-19 python3 fakeroot; do
	grep -qx "$p" "$T_TMP/kernel" || t_fail "deps.sh --kernel does not install $p"
done
t_pass "deps.sh --kernel: the tests', the man pages', the package's and the kernel's"
installs >"$T_TMP/all"
t_eq "deps.sh (make deps): nothing --kernel does not" "" \
	"$(comm -23 "$T_TMP/all" "$T_TMP/kernel" | tr '\n' ' ')"
t_eq "deps.sh --kernel: the kernel testbed's on top" \
	"bc bison clang-19 dwarves flex gnuplot-nox libelf-dev libssl-dev linux-source-6.12 llvm-19 rt-tests xz-utils zlib1g-dev " \
	"$(comm -13 "$T_TMP/all" "$T_TMP/kernel" | tr '\n' ' ')"
PATH=$F:$PATH sh "$top/scripts/deps.sh" --demo --kernel >"$T_TMP/out" 2>&1
t_eq "--demo with --kernel: refused" 2 $?
# the demo set holds what building vcpack needs: each pkg-config module
# of the Makefile comes from a package of the set (its .pc file's owner)
mods=$(sed -n 's/^PKGS := //p' "$top/Makefile")
n=0
for m in $mods; do
	pc=$(pkg-config --variable=pcfiledir "$m")/$m.pc
	owner=$(dpkg -S "$pc" 2>/dev/null | sed 's/:.*//')
	case " $demo " in
	*" $owner "*) n=$((n + 1)) ;;
	*) t_fail "pkg-config $m ($pc) comes from '$owner', not in the demo set" ;;
	esac
done
t_eq "each of the Makefile's pkg-config modules from the demo set" \
	"$(echo $mods | wc -w)" "$n"
t_match "scripts/demo.sh runs jq" '\| jq |\$\(jq ' "$(cat "$top/scripts/demo.sh")"
t_eq "make demo runs deps-demo, not deps" "demo: deps-demo" \
	"$(grep '^demo:' "$top/Makefile")"
# and builds vcpack alone: neither pandoc nor scdoc (make all runs them)
t_eq "make demo builds vcpack alone" '$(MAKE) --no-print-directory $(B)/vcpack' \
	"$(sed -n '/^demo:/,/^$/s/.*if \(\$(MAKE) [^>]*\) >.*/\1/p' "$top/Makefile")"
t_eq "building vcpack runs neither pandoc nor scdoc" 0 \
	"$(make -n -C "$top" B="$T_TMP/b" "$T_TMP/b/vcpack" 2>&1 | grep -c 'pandoc\|scdoc')"
t_match "make all runs them (the check has teeth)" 'pandoc|scdoc' \
	"$(make -n -C "$top" B="$T_TMP/b" all 2>&1)"
t_done
