#!/bin/sh
# test-deps.sh BUILD_DIR - scripts/deps.sh waits for another apt-get or
# dpkg holding its lock instead of failing, and gives up after
# VCP_APT_LOCK_TIMEOUT. Runs deps.sh with stand-ins for dpkg-query (every
# package missing), id (root) and apt-get (the lock is held for the first
# N calls) first on PATH: nothing is installed, apt is never run.
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
t_done
