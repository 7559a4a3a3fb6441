#!/bin/sh
# distro-kernel.sh DIR
#
# Fetches a distribution's own current kernel image with sched_ext, for
# the scx suite to boot beside the testbed's 6.12 build: Debian's newest
# amd64 kernel (the linux-binary-VERSION-amd64 package, the vmlinuz, and
# linux-base-VERSION-amd64, its config) from trixie-backports and sid,
# through apt with a private sources list and package lists under DIR
# (nothing of the machine's apt set-up is read or changed; nothing is
# installed: dpkg-deb -x unpacks the packages into DIR/VERSION/).
# The image is cached: DIR/VERSION/vmlinuz is fetched once, and when the
# archive cannot be reached the newest cached one is used.
#
# Prints the vmlinuz's path on stdout and exits 0; exits 77 with the
# reason on stderr when no image can be had (no network, no apt, a config
# without what the testbed boots on: sched_ext, BTF, the serial console,
# an initramfs).
#
# Environment:
#   DISTRO_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   DISTRO_SUITES  suites searched (default "trixie-backports sid")
#   DISTRO_KEYRING the archive keyring (default
#                  /usr/share/keyrings/debian-archive-keyring.gpg)
#   DISTRO_VERSION one version (7.3.4+deb13) instead of the newest
set -u

dir=${1:?usage: distro-kernel.sh DIR}
mirror=${DISTRO_MIRROR:-http://deb.debian.org/debian}
suites=${DISTRO_SUITES:-trixie-backports sid}
keyring=${DISTRO_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
want=${DISTRO_VERSION:-}

skip() {
	echo "distro-kernel: $*" >&2
	exit 77
}

mkdir -p "$dir/apt/etc" "$dir/apt/lists/partial" \
	"$dir/apt/cache/archives/partial" || skip "cannot create $dir"
dir=$(cd "$dir" && pwd)

# The newest cached image (versions sort as the directory names do).
cached() {
	for d in $(ls -d "$dir"/[0-9]*/ 2>/dev/null | sort -V -r); do
		d=${d%/}
		[ -f "$d/vmlinuz" ] && [ -f "$d/config" ] || continue
		[ -z "$want" ] || [ "${d##*/}" = "$want" ] || continue
		echo "${d##*/}"
		return 0
	done
	return 1
}

# What the testbed needs of the kernel's config: sched_ext and its BTF,
# the serial console and a gzip initramfs built in (no modules are
# loaded in the guest).
check_config() {
	for opt in SCHED_CLASS_EXT DEBUG_INFO_BTF BPF_SYSCALL SERIAL_8250 \
		SERIAL_8250_CONSOLE BLK_DEV_INITRD RD_GZIP DEVTMPFS TMPFS \
		CGROUPS; do
		grep -q "^CONFIG_$opt=y" "$1" ||
			{ echo "CONFIG_$opt is not built in ($1)"; return 1; }
	done
}

command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
	skip "no apt-get or dpkg-deb on this machine: cannot fetch Debian's kernel"
[ -r "$keyring" ] || skip "no Debian archive keyring $keyring (apt-get install debian-archive-keyring)"

printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
	"$mirror" "$suites" "$keyring" >"$dir/apt/etc/distro.sources"
A="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$dir/apt/etc
   -o Dir::State::Lists=$dir/apt/lists -o Dir::Cache=$dir/apt/cache
   -o APT::Sandbox::User=root -o Debug::NoLocking=1 -o Acquire::Retries=1"

# shellcheck disable=SC2086
if apt-get $A -q update >"$dir/apt/update.log" 2>&1 &&
   ! grep -q '^[WE]: .*\(Failed\|not signed\|NO_PUBKEY\)' "$dir/apt/update.log"; then
	if [ -n "$want" ]; then
		ver=$want
	else
		# linux-binary-7.3.4+deb13-amd64: the flavour "amd64" alone
		# (not cloud-amd64, rt-amd64, nor the unsigned twin)
		# shellcheck disable=SC2086
		ver=$(apt-cache $A pkgnames linux-binary- 2>/dev/null |
			sed -n 's/^linux-binary-\([0-9][^-]*\)-amd64$/\1/p' |
			sort -V | tail -1)
	fi
	[ -n "$ver" ] || skip "no linux-binary-*-amd64 package in $mirror $suites"
	if [ ! -f "$dir/$ver/vmlinuz" ] || [ ! -f "$dir/$ver/config" ]; then
		rm -rf "$dir/$ver.tmp" && mkdir -p "$dir/$ver.tmp/x" || exit 1
		# shellcheck disable=SC2086
		(cd "$dir/$ver.tmp" && apt-get $A -q download \
			"linux-binary-$ver-amd64" "linux-base-$ver-amd64") \
			>"$dir/$ver.tmp/download.log" 2>&1 ||
			skip "apt-get download linux-binary-$ver-amd64 linux-base-$ver-amd64 failed: $(tail -1 "$dir/$ver.tmp/download.log")"
		for deb in "$dir/$ver.tmp"/*.deb; do
			dpkg-deb -x "$deb" "$dir/$ver.tmp/x" ||
				skip "dpkg-deb -x $deb failed"
		done
		m=$(ls -d "$dir/$ver.tmp"/x/usr/lib/modules/*/ 2>/dev/null | head -1)
		[ -n "$m" ] && [ -f "$m/vmlinuz" ] && [ -f "$m/config" ] ||
			skip "linux-binary-$ver-amd64 has no usr/lib/modules/*/vmlinuz and config"
		mv "$m/vmlinuz" "$m/config" "$dir/$ver.tmp/" &&
			ls "$dir/$ver.tmp"/*.deb | sed 's|.*/||' >"$dir/$ver.tmp/packages" &&
			rm -rf "$dir/$ver.tmp/x" "$dir/$ver.tmp"/*.deb &&
			rm -rf "$dir/$ver" && mv "$dir/$ver.tmp" "$dir/$ver" || exit 1
	fi
else
	ver=$(cached) ||
		skip "cannot reach the Debian archive ($mirror: $(grep -m1 '^[WE]:' "$dir/apt/update.log")) and no image cached in $dir"
	echo "distro-kernel: the Debian archive cannot be reached; using the cached $ver" >&2
fi

why=$(check_config "$dir/$ver/config") ||
	skip "Debian's $ver kernel cannot run the scx suite: $why"
echo "$dir/$ver/vmlinuz"
