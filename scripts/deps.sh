#!/bin/sh
# deps.sh - install what vcpack's build and tests need on Debian 12.
#
#   scripts/deps.sh           install whatever is missing (needs root):
#                             the build, the man pages, the package and
#                             the tests but the kernel's (make deps)
#   scripts/deps.sh --demo    only what `make demo` needs (make deps-demo)
#   scripts/deps.sh --kernel  also the kernel testbed's (make check)
#   scripts/deps.sh --check [--demo|--kernel]
#                             exit 0 if that set is there, 1 otherwise
#
# Idempotent: a second run installs nothing. Another apt-get or dpkg
# holding its lock (unattended-upgrades, a second make) is waited for,
# up to VCP_APT_LOCK_TIMEOUT seconds (default 900), instead of failing.
set -eu

# `make demo`: what builds build/vcpack (the compiler and the development
# files of the libraries the Makefile's pkg-config names; libvirt0, which
# libvirt-dev pulls in, holds libvirt's test driver) and jq, which
# scripts/demo.sh runs. Installed without their recommends (gnupg, image
# libraries for libc-devtools' memusage, ...): the demo uses none.
DEMO_PKGS="build-essential pkg-config libvirt-dev libvirt-glib-1.0-dev
libglib2.0-dev libjson-c-dev libxml2-dev jq"
# the rest of `make` (the man pages: scdoc, pandoc), `make deb` (debhelper,
# dpkg-dev, lintian; fakeroot and libfile-fcntllock-perl, dpkg-dev's
# recommends that the demo set leaves out, for dpkg-buildpackage as
# another user than root) and the tests (private libvirtds and QEMU
# guests, cmocka, xmllint, ...)
PKGS="$DEMO_PKGS libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
libcmocka-dev libxml2-utils qemu-system-x86 busybox-static cpio time scdoc
pandoc man-db systemd debhelper lintian dpkg-dev fakeroot
libfile-fcntllock-perl"
# promtool checks the metrics output (tests/integration/test-metrics.sh)
PKGS="$PKGS prometheus"
# make check-fuzz (libFuzzer harnesses)
PKGS="$PKGS clang"
KPKGS="linux-source-6.12 xz-utils bc bison flex libelf-dev libssl-dev gnuplot-nox
rt-tests
clang-19 llvm-19 dwarves zlib1g-dev"
# clang-format (and its clang-format-diff): make format-check, format-fix
PKGS="$PKGS clang-format"
# tmux: test-watch.sh draws `vcpack status --watch` in a pane,
# test-term-width.sh runs status and plan at 80 and 200 columns;
# bash-completion: its completionsdir (pkg-config) and test-completion.sh
PKGS="$PKGS tmux bash-completion"
# make coverage (line coverage of the unit and integration suites)
PKGS="$PKGS gcovr"
# python3: test-hostile.sh's tag file, test-hostile-output.sh's byte check, both ends of irqbalance's socket
# in test-irq.sh and test-irqbalance.sh (tests/integration/irqbsock.py)
PKGS="$PKGS python3"
# apparmor: apparmor_parser and the abstractions libvirt's profiles
# include, for test-apparmor.sh (it compiles the profiles, loads nothing:
# without AppArmor in the kernel the package's unit does nothing)
PKGS="$PKGS apparmor"

check=0
set_name=all
recommends=""
for a in "$@"; do
	case "$a" in
	--check) check=1 ;;
	--kernel | --demo)
		if [ "$set_name" != all ]; then
			echo "deps.sh: $a: one of --demo and --kernel" >&2
			exit 2
		fi
		set_name=${a#--} ;;
	*) echo "deps.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done
case $set_name in
kernel) PKGS="$PKGS $KPKGS" ;;
demo) PKGS=$DEMO_PKGS; recommends=--no-install-recommends ;;
esac

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi
if [ "$check" = 1 ]; then
	echo "deps.sh: missing packages:$missing" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing; run 'scripts/deps.sh' as root" >&2
	exit 1
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
wait_s=${VCP_APT_LOCK_TIMEOUT:-900}
lock="-o DPkg::Lock::Timeout=$wait_s"

# apt_retry CMD...: DPkg::Lock::Timeout makes apt wait for dpkg's frontend
# lock, but `apt-get update` takes the lists lock without waiting: retry
# while the error is a lock held by another process.
apt_retry() {
	t0=$(date +%s)
	while :; do
		# stdout passes through (fd 3); stderr is kept to look at
		if { err=$("$@" 2>&1 1>&3 3>&-); } 3>&1; then
			[ -z "$err" ] || echo "$err" >&2
			return 0
		fi
		case $err in
		*"Could not get lock"* | *"Unable to acquire the dpkg frontend lock"* | *"Unable to lock directory"*)
			if [ $(($(date +%s) - t0)) -ge "$wait_s" ]; then
				echo "$err" >&2
				return 1
			fi
			echo "deps.sh: waiting for another apt-get/dpkg to finish" >&2
			sleep "${VCP_APT_LOCK_POLL:-5}" ;;
		*) echo "$err" >&2; return 1 ;;
		esac
	done
}
# shellcheck disable=SC2086
apt_retry apt-get $lock update -q
# shellcheck disable=SC2086
apt_retry apt-get $lock install -y -q $recommends $missing
