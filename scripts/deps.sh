#!/bin/sh
# deps.sh - install what vcpack's build and tests need on Debian 12.
#
#   scripts/deps.sh           install whatever is missing (needs root)
#   scripts/deps.sh --check   exit 0 if everything is there, 1 otherwise
#   scripts/deps.sh --kernel  also the kernel testbed's packages
#
# Idempotent: a second run installs nothing.
set -eu

PKGS="build-essential pkg-config libvirt-dev libvirt-daemon
libvirt-daemon-driver-qemu libvirt-clients libvirt-glib-1.0-dev
libglib2.0-dev libjson-c-dev libcmocka-dev libxml2-dev libxml2-utils jq
qemu-system-x86 busybox-static cpio time"
KPKGS="linux-source-6.12 xz-utils bc bison flex libelf-dev libssl-dev gnuplot-nox
clang-19 llvm-19 dwarves zlib1g-dev"

check=0
for a in "$@"; do
	case "$a" in
	--check) check=1 ;;
	--kernel) PKGS="$PKGS $KPKGS" ;;
	*) echo "deps.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done

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
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q $missing
