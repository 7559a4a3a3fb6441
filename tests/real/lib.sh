# lib.sh - helpers for the real libvirtd + QEMU tests (POSIX sh), on top
# of tests/integration/lib.sh: a private qemu:///session libvirtd under an
# unprivileged user (no system configuration touched), small TCG guests
# booting a kernel from the testbed with a busybox initramfs and no disk,
# and the QEMU threads themselves (/proc/QPID/task/TID/status) to check
# pins on. Every daemon and guest is stopped by pid or by `virsh destroy`.

# the caller sets $here to tests/real
. "$here/../integration/lib.sh"

# guest_assets KERNEL: a world-readable kernel and initramfs in $T_TMP.
guest_assets() {
	a=$T_TMP/assets
	mkdir -p "$a/root/bin" "$a/root/proc" "$a/root/sys" "$a/root/dev"
	cp "$1" "$a/bzImage" || return 1
	cp "$(command -v busybox)" "$a/root/bin/busybox" || return 1
	cat >"$a/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
# /dev/null for what runs in the background (the shell opens it as its
# stdin: without it the memory writer below never ran)
/bin/busybox mount -t devtmpfs dev /dev
echo "vcpack-guest up: $(/bin/busybox nproc) CPUs"
# vcp.dirty on the command line (GUEST_APPEND): rewrite 4 MiB of non-zero
# memory without end, so a live migration of it never converges. (The
# guest's rootfs is a tmpfs of half its 38 MiB: two 8 MiB files and
# busybox overflowed it, and every copy ended in ENOSPC part way.) If
# the writer stops, the console says so.
case "$(/bin/busybox cat /proc/cmdline)" in *vcp.dirty*)
	/bin/busybox yes vcpack | /bin/busybox head -c 4194304 >/dirty.a &&
		/bin/busybox cp /dirty.a /dirty.b &&
		echo "vcp.dirty: rewriting 4 MiB" &&
		while /bin/busybox cp /dirty.a /dirty.b; do :; done &&
		echo "vcp.dirty: stopped" &
esac
# idle, as a lightly loaded guest is
while :; do /bin/busybox sleep 3600; done
INIT
	chmod 755 "$a/root/init"
	(cd "$a/root" && find . | cpio -o -H newc 2>/dev/null | gzip) >"$a/initrd.gz"
	chmod 644 "$a/bzImage" "$a/initrd.gz"
	chmod 755 "$a"
	# consoles: in a directory the daemon's user owns (it recreates them)
	GUEST_LOGS=$T_TMP/consoles
	mkdir -p "$GUEST_LOGS"
	[ "$(id -u)" = 0 ] && chown nobody "$GUEST_LOGS"
	GUEST_KERNEL=$a/bzImage
	GUEST_INITRD=$a/initrd.gz
}

# define_guest URI NAME VCPUS [TAG-ATTRS]: GUEST_EXTRA, if set, is XML
# put after its <vcpu> (a <cputune>, a <numatune>)
define_guest() {
	meta=""
	[ -n "${4:-}" ] && meta="<metadata><vcpack:consolidation xmlns:vcpack='urn:vcpack:metadata:1' $4/></metadata>"
	cat >"$T_TMP/$2.xml" <<XML
<domain type='qemu'>
  <name>$2</name>
  <memory unit='MiB'>64</memory>
  <vcpu>$3</vcpu>${GUEST_EXTRA:+
  $GUEST_EXTRA}
  $meta
  <os><type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$GUEST_KERNEL</kernel><initrd>$GUEST_INITRD</initrd>
    <cmdline>console=ttyS0 panic=-1 quiet${GUEST_APPEND:+ $GUEST_APPEND}</cmdline></os>
  <features><acpi/><apic/></features>
  <on_reboot>destroy</on_reboot>
  <devices><serial type='file'><source path='$GUEST_LOGS/$2.console'/></serial>
    <memballoon model='none'/></devices>
</domain>
XML
	virsh -q -c "$1" define "$T_TMP/$2.xml" >/dev/null
}

# wait_console NAME TEXT [TENTHS]: until the guest's console shows TEXT
# (default 60 s; a guest boots slowly under TCG on a loaded machine)
wait_console() {
	i=0
	until grep -q "$2" "$GUEST_LOGS/$1.console" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt "${3:-600}" ] && return 1
		sleep 0.1
	done
}

# qemu_pid NAME (session daemon started by start_libvirtd)
qemu_pid() { cat "$LVD_RUN/libvirt/qemu/run/$1.pid" 2>/dev/null; }

# pid_on RUN_DIR NAME: the QEMU pid of guest NAME of the session daemon
# whose XDG_RUNTIME_DIR is RUN_DIR (with several daemons)
pid_on() { cat "$1/libvirt/qemu/run/$2.pid" 2>/dev/null; }

# runs RUN_DIR NAME: is a live QEMU for NAME there?
runs() {
	p=$(pid_on "$1" "$2")
	[ -n "$p" ] && tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q "guest=$2"
}

# allowed NAME VCPU: Cpus_allowed_list of the guest's "CPU N/TCG" thread
allowed() {
	q=$(qemu_pid "$1") || return 1
	for t in /proc/"$q"/task/*; do
		if [ "$(cat "$t/comm" 2>/dev/null)" = "CPU $2/TCG" ]; then
			sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status"
			return 0
		fi
	done
	return 1
}

# emulator_allowed NAME: the QEMU main thread's CPUs
emulator_allowed() {
	q=$(qemu_pid "$1") || return 1
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$q/status"
}

# wait_allowed NAME VCPU EXPECTED [TENTHS]: until the thread's CPUs are
# EXPECTED (default 5 s); prints the tenths of a second it took.
wait_allowed() {
	i=0
	[ -n "$3" ] || { echo 0; return 1; }
	while [ $i -lt "${4:-50}" ]; do
		[ "$(allowed "$1" "$2")" = "$3" ] && { echo $i; return 0; }
		sleep 0.1; i=$((i + 1))
	done
	echo $i
	return 1
}

# destroy every domain of URI that is running (guests outlive libvirtd)
destroy_all() {
	for n in $(virsh -q -c "$1" list --name 2>/dev/null); do
		virsh -q -c "$1" destroy "$n" >/dev/null 2>&1
	done
}

# start_guest URI NAME: start it and have its QEMU stopped on exit
start_guest() {
	virsh -q -c "$1" start "$2" >/dev/null || return 1
	T_PIDS="$T_PIDS $(qemu_pid "$2")"
}

# qemu_host KERNEL: the usual set-up of a suite with one host: temp dir,
# guest assets, a private qemu:///session libvirtd; sets U, and on exit
# destroys its guests and stops everything. Exits the suite on failure.
qemu_host() {
	t_setup
	guest_assets "$1" || { t_fail "guest kernel '$1'"; t_done; exit 1; }
	LVD_PROBE=qemu+unix:///session
	start_libvirtd qemu || { t_fail "start libvirtd"; t_done; exit 1; }
	U="qemu+unix:///session?socket=$LVD_SOCK"
	trap 'destroy_all "$U"; t_cleanup' EXIT
}
