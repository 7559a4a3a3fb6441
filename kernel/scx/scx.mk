# kernel/scx/scx.mk - the sched_ext mode's build, included by kernel/Makefile.
#
#   make -C kernel scx          stock kernel, libbpf + bpftool,
#                               vmlinux.h, scx_vcpack, scx initramfs
#   make -C kernel check-scx    scx + the tests/kernel scx scenarios in QEMU,
#                               on the stock 6.12 and on Debian's current
#                               kernel (check-scx-distro: that one alone)
#
# Under $(KBUILD_DIR):
#   stock/         the testbed's stock kernel (kernel/Makefile), an
#                  unpatched 6.12 with config/vcpack.config +
#                  config/scx.config: it has sched_ext
#   scx-tools/     libbpf.a, its headers and bpftool, built from the
#                  extracted tree's tools/ through tools/sched_ext/Makefile
#                  (Debian 12's libbpf 1.1 predates what sched_ext needs);
#                  build/include/vmlinux.h from stock/vmlinux's BTF
#   scx/           scx_vcpack.bpf.o, its skeleton, scx_vcpack (static)
#   scx-initramfs.cpio.gz   the testbed initramfs plus /bin/scx_vcpack
#   distro/        Debian's kernel image (testbed/distro-kernel.sh):
#                  apt's private lists, VERSION/vmlinuz and its config
# With FLAVOUR=bench the same build runs on stock-bench/ (the benchmark's
# stock kernel, which has sched_ext too) into scx-tools-bench/ and
# scx-bench/: bench-initramfs.cpio.gz takes that scx_vcpack, built from
# the BTF of the very kernel it runs on.

CLANG ?= clang-19
SCX_O := $(STOCK_O)
# The BTF that vmlinux.h comes from: the testbed's stock kernel, or
# (SCX_VMLINUX=FILE, as the Debian package's pkg.vcpack.scx profile
# does) any vmlinux or raw BTF (/sys/kernel/btf/vmlinux) of a kernel
# with sched_ext: then no kernel is built, only the tools and scx_vcpack.
SCX_VMLINUX ?= $(SCX_O)/vmlinux
# the loader's extra compiler and linker flags: static for the testbed
# guest (no libc there); the package links dynamically, hardened
SCX_CFLAGS ?= -static
SCX_IMG := $(SCX_O)/arch/x86/boot/bzImage
SCX_TOOLS := $(KB)/scx-tools$(SFX)
SCX_TOOLS_OUT := $(SCX_TOOLS)/build
SCX_LIBBPF := $(SCX_TOOLS_OUT)/obj/libbpf/libbpf.a
SCX_BPFTOOL := $(SCX_TOOLS_OUT)/sbin/bpftool
SCX_INC := $(SCX_TOOLS_OUT)/include
SCX_VMLINUX_H := $(SCX_INC)/vmlinux.h
SCX_OUT ?= $(KB)/scx$(SFX)
SCX_BIN := $(SCX_OUT)/scx_vcpack
SCX_INITRD := $(KB)/scx-initramfs$(SFX).cpio.gz
SCX_SRC := $(CURDIR)/scx
SCX_TREE := $(SRC)/tools/sched_ext

# clang's own system include directories, as tools/sched_ext does, for
# the BPF target (asm/types.h and friends)
SCX_SYS_INC = $(shell $(CLANG) -v -E - </dev/null 2>&1 | sed -n \
	'/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
# -Wno-missing-declarations: a vmlinux.h that 6.12's bpftool dumps from a
# newer kernel's BTF (SCX_VMLINUX=, the package's build) has members
# such as "struct slock_owned;" that declare nothing (7.3's BTF has six)
SCX_BPF_CFLAGS = -g -O2 -mcpu=v3 -target bpf -D__TARGET_ARCH_x86 \
	-mlittle-endian -Wall -Werror -Wno-compare-distinct-pointer-types \
	-Wno-missing-declarations \
	-I$(SCX_TREE)/include -I$(SCX_TREE)/include/bpf-compat -I$(SCX_INC) \
	-I$(SRC)/tools/include/uapi -I$(SRC)/tools/include $(SCX_SYS_INC)

.PHONY: scx scx-kernel scx-tools scx-sched scx-initramfs check-scx

scx: scx-kernel
	@$(MAKE) --no-print-directory scx-sched scx-initramfs

scx-kernel:
	@$(MAKE) --no-print-directory stock

# bpftool's own BPF programs are built against VMLINUX_BTF: the kernel
# built above, so that nothing depends on the build machine's kernel.
scx-tools: $(SCX_LIBBPF) $(SCX_BPFTOOL)

$(SCX_LIBBPF) $(SCX_BPFTOOL) &: $(SRC)/.vcpack-extracted | $(SCX_VMLINUX)
	@mkdir -p $(SCX_TOOLS)
	$(MAKE) -C $(SCX_TREE) -s O=$(SCX_TOOLS) VMLINUX_BTF=$(SCX_VMLINUX) \
		CLANG=$(CLANG) $(SCX_LIBBPF) $(SCX_BPFTOOL)
	@touch $(SCX_LIBBPF) $(SCX_BPFTOOL)

# Only when the BTF is missing: the stock kernel was not built first.
$(SCX_VMLINUX):
	@echo "scx: no $@: build the stock kernel first (make -C kernel stock$(if $(FLAVOUR), FLAVOUR=$(FLAVOUR)))" >&2
	@exit 1

$(SCX_VMLINUX_H): $(SCX_VMLINUX) $(SCX_BPFTOOL)
	$(SCX_BPFTOOL) btf dump file $(SCX_VMLINUX) format c >$@.tmp
	@mv -f $@.tmp $@

$(SCX_OUT)/scx_vcpack.bpf.o: $(SCX_SRC)/scx_vcpack.bpf.c $(SCX_SRC)/scx_vcpack.h \
		$(SCX_SRC)/scx_vcpack_compat.bpf.h \
		$(SCX_VMLINUX_H) $(SCX_LIBBPF)
	@mkdir -p $(SCX_OUT)
	$(CLANG) $(SCX_BPF_CFLAGS) -c $< -o $@

$(SCX_OUT)/scx_vcpack.bpf.skel.h: $(SCX_OUT)/scx_vcpack.bpf.o $(SCX_BPFTOOL)
	$(SCX_BPFTOOL) gen object $(SCX_OUT)/scx_vcpack.linked.o $<
	$(SCX_BPFTOOL) gen skeleton $(SCX_OUT)/scx_vcpack.linked.o \
		name scx_vcpack >$@.tmp
	@mv -f $@.tmp $@

# The tree's headers are -isystem: our warnings apply to our code only.
$(SCX_BIN): $(SCX_SRC)/scx_vcpack.c $(SCX_SRC)/scx_vcpack.h \
		$(SCX_OUT)/scx_vcpack.bpf.skel.h $(SCX_LIBBPF)
	$(CC) -std=gnu11 $(WARN) -O2 -g $(SCX_CFLAGS) -D_GNU_SOURCE \
		-I$(SCX_OUT) -isystem $(SCX_INC) -isystem $(SCX_TREE)/include \
		-isystem $(SRC)/tools/include/uapi -o $@ $< $(SCX_LIBBPF) \
		-lelf -lz -lpthread

scx-sched: $(SCX_BIN)

scx-initramfs: $(SCX_INITRD)

SCX_DRIVE := $(wildcard $(B)/tests/vcp-scxdrive)
$(SCX_INITRD): $(VCWORK) $(VCRESID) $(SCX_BIN) $(TB)/mkinitramfs.sh \
		$(TB)/init $(wildcard $(TOP)/tests/kernel/*.sh) $(SCX_DRIVE)
	@sh $(TB)/mkinitramfs.sh $@ $(VCWORK) none $(TB)/init \
		$(TOP)/tests/kernel $(VCRESID) $(SCX_BIN) $(SCX_DRIVE)

# the benchmark's initramfs carries scx_vcpack (kernel/Makefile)
$(BENCH_INITRD): $(SCX_BIN)

# The same initramfs (the same scx_vcpack) also boots a distribution's
# own current kernel: Debian's newest amd64 image, fetched into
# $(SCX_DISTRO)/ (cached) by testbed/distro-kernel.sh, one guest of
# tests/kernel/scx-distro.matrix (about 30 s). When no image can be had
# (no network, no apt) that guest is one SKIP with the reason, and the
# 6.12 results still count.
SCX_DISTRO := $(KB)/distro
SCX_RESULTS := $(KB)/results-scx $(KB)/results-scx-distro
# The last line sums both runs (scripts/check.sh counts a suite's last
# "N passed, N failed, N skipped" line).
check-scx: scx
	@rc=0; sh $(TOP)/tests/kernel/run.sh --scx $(SCX_IMG) --kernels scx \
		--matrix $(TOP)/tests/kernel/scx.matrix \
		--initrd $(SCX_INITRD) --out $(KB)/results-scx || rc=1; \
	$(MAKE) --no-print-directory check-scx-distro || rc=1; \
	cat $(addsuffix /summary,$(SCX_RESULTS)) 2>/dev/null | awk \
		'/^PASS /{p++} /^FAIL /{f++} /^SKIP /{s++} END {printf "scx suite, 6.12 and distribution kernel: %d passed, %d failed, %d skipped\n", p, f, s}'; \
	exit $$rc

.PHONY: check-scx-distro
check-scx-distro: $(SCX_INITRD)
	@out=$(KB)/results-scx-distro; \
	img=$$(sh $(TB)/distro-kernel.sh $(SCX_DISTRO)); \
	case $$? in \
	0) sh $(TOP)/tests/kernel/run.sh --scx $$img --kernels scx \
		--matrix $(TOP)/tests/kernel/scx-distro.matrix \
		--initrd $(SCX_INITRD) --out $$out ;; \
	77) rm -rf $$out && mkdir -p $$out && \
		echo "SKIP scx/scx-debian/fetch no distribution kernel to boot (reason above)" >$$out/summary && \
		cat $$out/summary && echo "0 passed, 0 failed, 1 skipped" ;; \
	*) rm -rf $$out && mkdir -p $$out && \
		echo "FAIL scx/scx-debian/fetch testbed/distro-kernel.sh failed" >$$out/summary && \
		cat $$out/summary && echo "0 passed, 1 failed, 0 skipped" && exit 1 ;; \
	esac
