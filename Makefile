# vcpack - power-aware consolidation of KVM guests onto few CPU packages.
#
#   make            build vcpack, powernice, the libvirt hook and the man
#                   pages (never installs packages; V=1 shows full lines)
#   make deps       install the build and test packages (scripts/deps.sh)
#   make deps-demo  only what make demo needs (the build of vcpack, jq)
#   make deps-kernel  also the kernel testbed's packages
#   make demo       the main job on libvirt's test driver (runs deps-demo
#                   first; builds vcpack alone, not the man pages)
#   make check      every test (runs deps-kernel first; includes
#                   check-kernel); one summary line, logs in $(B)/log/
#   make check-unit | check-schema | check-bench | check-integration |
#        check-kernel | check-scx | check-real | check-fuzz [FUZZ_SECONDS=5] |
#        check-asan (the unit tests under ASan+UBSan) | fuzz-long
#        [FUZZ_SECONDS=600] (the fuzzers, longer)
#   make coverage   line coverage of the unit + integration suites (gcovr)
#   make bench-planner | bench-power | bench-daemon | bench-fleet | bench-kernel |
#   make scx        the sched_ext mode: stock 6.12 + sched_ext, scx_vcpack
#        bench-kernel-quick | bench (all, ~75 min) | bench-quick (~5 min)
#   make install [PREFIX=/usr/local] [DESTDIR=]   make install-hooks
#   make deb | check-deb   the Debian package (debian/), and its test
#   make scx-pkg [SCX_VMLINUX=FILE] | install-scx   scx_vcpack without a
#                   kernel build, for the vcpack-scx package (debian/rules)
#
# Plain GNU make; one build directory ($(B)); no recursion.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/vcpack
SYSCONFDIR ?= /etc
HOOKDIR ?= $(SYSCONFDIR)/libvirt/hooks
# systemd's own answer, as Debian's packages use it
ifeq ($(origin SYSTEMDUNITDIR),undefined)
SYSTEMDUNITDIR := $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
SYSTEMDUNITDIR := $(if $(SYSTEMDUNITDIR),$(SYSTEMDUNITDIR),/lib/systemd/system)
endif
# bash-completion's own answer under PREFIX (its README's advice): the
# completions load from PREFIX/share too
ifeq ($(origin BASHCOMPDIR),undefined)
BASHCOMPDIR := $(shell pkg-config --define-variable=datadir=$(PREFIX)/share \
	--variable=completionsdir bash-completion 2>/dev/null)
BASHCOMPDIR := $(if $(BASHCOMPDIR),$(BASHCOMPDIR),$(PREFIX)/share/bash-completion/completions)
endif
DESTDIR ?=

B ?= build
CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libvirt libvirt-glib-1.0 glib-2.0 json-c libxml-2.0

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(CPPFLAGS) -D_GNU_SOURCE \
	-DVCP_SYSCONFDIR='"$(SYSCONFDIR)"' $(SRC_INC) $(PKG_CFLAGS)
LDLIBS = $(PKG_LIBS) -lm

# Quiet build, kbuild style: "  CC      file"; V=1 prints the commands.
V ?= 0
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n'
endif
# make -s: not even those
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
msg = @true
endif

SRC := host-agent/src
# The library's folders, one part of the pipeline each (which does what:
# host-agent/src/README.md); programs/ holds the program files (they
# print; mains and the CLI's parts). A header is included by its name
# alone ("x.h": every folder is on the include path) and an object is
# named by its file alone ($(B)/obj/x.o), so no two files of different
# folders share a name.
LIB_DIRS := $(addprefix $(SRC)/,common observe plan apply show libvirt \
	kernel daemon fleet)
SRC_DIRS := $(LIB_DIRS) $(SRC)/programs
SRC_INC := $(SRC_DIRS:%=-I%)
vpath %.c $(SRC_DIRS)
# `vcpack fleet ...`: cli-fleet.c and its commands' files (cli-fleet.h)
CLI_FLEET := cli-fleet cli-fleet-status cli-fleet-plan cli-fleet-apply \
	cli-fleet-run
MAINS := $(wildcard $(SRC)/programs/*.c)
LIB_SRCS := $(wildcard $(LIB_DIRS:%=%/*.c))
LIB_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(notdir $(LIB_SRCS)))
SRC_NAMES := $(notdir $(MAINS) $(LIB_SRCS) $(wildcard $(SRC_DIRS:%=%/*.h)))
SRC_TWICE := $(sort $(foreach n,$(SRC_NAMES),$(if $(word 2,$(filter \
	$(n),$(SRC_NAMES))),$(n))))
ifneq ($(SRC_TWICE),)
$(error $(SRC): $(SRC_TWICE) in two folders (an object is named by its file))
endif
LIB := $(B)/libvcp.a

PROGS := $(B)/vcpack $(B)/powernice $(B)/vcpackd $(B)/vcpack-hook

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
BENCH_SRCS := $(wildcard bench/bench_*.c)
BENCH_BINS := $(patsubst bench/%.c,$(B)/bench/%,$(BENCH_SRCS))

.PHONY: all deps deps-demo deps-kernel demo check deb check-deb check-unit check-schema check-integration \
	check-fuzz fuzz-long check-asan check-kernel check-scx scx check-real check-bench check-deps kernel bench bench-quick bench-planner bench-power \
	bench-daemon bench-fleet bench-kernel bench-kernel-quick bench-kernel-build \
	bench-kernel-publish \
	install install-hooks clean format-check coverage

MANS := $(B)/man/vcpack.1 $(B)/man/powernice.1 $(B)/man/vcpackd.8 \
	$(B)/man/vcpack-policy.5 $(B)/man/vcpack-fleet.5

all: $(PROGS) $(MANS)

# Installing packages is explicit: `make deps` (or `make deps-demo`,
# `make deps-kernel`); `make demo` runs deps-demo first (the demo's
# packages alone), `make check` deps-kernel (everything). scripts/deps.sh does
# nothing when all is there and waits for apt/dpkg locks held by others.
deps:
	@scripts/deps.sh --check >/dev/null 2>&1 || scripts/deps.sh

deps-demo:
	@scripts/deps.sh --check --demo >/dev/null 2>&1 || scripts/deps.sh --demo

deps-kernel:
	@scripts/deps.sh --check --kernel >/dev/null 2>&1 || scripts/deps.sh --kernel

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(msg) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/obj/hook/%.o: libvirt-hooks/%.c
	@mkdir -p $(@D)
	$(msg) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(msg) AR $@
	$(Q)$(AR) rcs $@ $^

$(B)/vcpack: $(B)/obj/cli.o $(CLI_FLEET:%=$(B)/obj/%.o) $(B)/obj/cli-trial.o $(B)/obj/cli-watch.o $(B)/obj/cli-list.o $(LIB)
	$(msg) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/powernice: $(B)/obj/powernice.o $(LIB)
	$(msg) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/vcpackd: $(B)/obj/daemon.o $(LIB)
	$(msg) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The hook runs inside every VM start: link only what it uses.
$(B)/vcpack-hook: $(B)/obj/hook/hook.o $(LIB)
	$(msg) LD $@
	$(Q)$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(LDLIBS)

# tests/unit/fixture.c: set-up shared by the unit tests, linked into each
$(B)/tests/obj/fixture.o: tests/unit/fixture.c tests/unit/fixture.h
	@mkdir -p $(@D)
	$(msg) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/unit/%.c $(B)/tests/obj/fixture.o $(LIB)
	@mkdir -p $(@D)
	$(msg) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -DVCP_SRCDIR='"$(CURDIR)"' -o $@ $< \
		$(B)/tests/obj/fixture.o $(LIB) $(LDLIBS) $(CMOCKA_LIBS)

$(B)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(@D)
	$(msg) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -DVCP_SRCDIR='"$(CURDIR)"' -o $@ $< $(LIB) \
		$(LDLIBS)

# Man pages: markdown through pandoc (no smart quotes: options keep their
# ASCII dashes and quotes), scdoc sources through scdoc; no roff is
# written by hand.
$(B)/man/%.1: host-agent/man/%.1.md
	@mkdir -p $(@D)
	$(msg) PANDOC $@
	$(Q)pandoc -s -f markdown-smart -t man -o $@ $<

$(B)/man/%: host-agent/man/%.scd
	@mkdir -p $(@D)
	$(msg) SCDOC $@
	$(Q)scdoc <$< >$@.tmp && mv $@.tmp $@

-include $(LIB_OBJS:.o=.d) $(B)/obj/cli.d $(CLI_FLEET:%=$(B)/obj/%.d) $(B)/obj/cli-trial.d $(B)/obj/cli-watch.d $(B)/obj/cli-list.d $(B)/obj/powernice.d \
	$(B)/obj/daemon.d $(B)/obj/hook/hook.d

# ---- the main job ----
# The build's lines go to $(B)/log/build.log: the demo opens with its story.
demo: deps-demo
	@mkdir -p $(B)/log
	@if $(MAKE) --no-print-directory $(B)/vcpack >$(B)/log/build.log 2>&1; then \
		echo "built $(B)/vcpack (compiler output: $(B)/log/build.log)"; \
	else tail -n 30 $(B)/log/build.log; \
		echo "make demo: the build failed; full output in $(B)/log/build.log"; exit 1; fi
	@sh scripts/demo.sh $(B)/vcpack

# ---- tests ----
# Every suite, each logged to $(B)/log/check-SUITE.log; the last line is
# "total: N passed, N failed, N skipped" (scripts/check.sh). A new suite:
# add its name here and make its runner end with such a line. The order:
# first those that need no kernel, while scripts/check.sh builds the
# kernels in the background; deb last (it packages scx_vcpack when the
# scx suite's tools were built).
CHECK_SUITES := unit schema bench integration fuzz asan kernel scx real deb

check:
	@MAKE="$(MAKE)" sh scripts/check.sh $(B) $(CHECK_SUITES)

check-unit: $(UNIT_BINS)
	@sh tests/run-unit.sh $(UNIT_BINS)

check-schema:
	@sh tests/schema/run.sh

# the kernel benchmark's arithmetic (vcresid, report.jq) on worked inputs
check-bench:
	@sh tests/bench/run.sh $(B)

check-integration: $(PROGS)
	@sh tests/integration/run.sh $(B)

# libFuzzer harnesses (tests/fuzz/fuzz_NAME.c, seeds in
# tests/fuzz/corpus/NAME/), built with clang, ASan and UBSan against the
# library built once more in $(B)/fuzz/obj; check-fuzz replays each
# one's seeds, then fuzzes it FUZZ_SECONDS (default 5: about 60-90 s in
# all with the build); new inputs go to $(B)/fuzz/corpus-NAME, a failing
# one to $(B)/fuzz/NAME-crash-*. fuzz-long: FUZZ_SECONDS=600 each.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 5
FUZZ_CC ?= clang
FUZZ_CFLAGS := -g -O1 -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -std=gnu11 -D_GNU_SOURCE \
	-DVCP_SYSCONFDIR='"$(SYSCONFDIR)"' $(SRC_INC) $(PKG_CFLAGS)
# the library modules the harnesses link (a harness of a new parser adds
# its module and what that needs here)
FUZZ_MODS := clock control cpuset errmsg fleetcfg fleetwatts irq irqbal jsonfile jsonstrict rdfile kernel model \
	policy power powerfixture powerread powerreading proto scx scxstate standbycfg sysfile tags topology
FUZZ_OBJS := $(patsubst %,$(B)/fuzz/obj/%.o,$(FUZZ_MODS))

$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(msg) FUZZCC $<
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP \
		-c -o $@ $<

$(B)/fuzz/libvcp.a: $(FUZZ_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(B)/fuzz/libvcp.a
	$(msg) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
		-DVCP_SRCDIR='"$(CURDIR)"' -o $@ $< \
		$(B)/fuzz/libvcp.a $(LDLIBS)

-include $(FUZZ_OBJS:.o=.d)

check-fuzz: $(FUZZ_BINS)
	@sh tests/fuzz/run.sh $(B) $(FUZZ_SECONDS) $(FUZZ_BINS)

fuzz-long:
	@$(MAKE) --no-print-directory check-fuzz FUZZ_SECONDS=$(if \
		$(filter command line,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),600)

# The unit suite once more with ASan and UBSan (gcc), library and tests
# built in $(A); any report fails the test binary, a leak too.
A := $(B)/asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
ASAN_OBJS := $(patsubst %.c,$(A)/obj/%.o,$(notdir $(LIB_SRCS)))
ASAN_BINS := $(patsubst tests/unit/%.c,$(A)/tests/%,$(UNIT_SRCS))

$(A)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(msg) ASANCC $<
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(ASAN_FLAGS) -MMD -MP -c -o $@ $<

$(A)/libvcp.a: $(ASAN_OBJS)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(A)/tests/obj/fixture.o: tests/unit/fixture.c tests/unit/fixture.h
	@mkdir -p $(@D)
	$(msg) ASANCC $<
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(ASAN_FLAGS) -c -o $@ $<

$(A)/tests/%: tests/unit/%.c $(A)/tests/obj/fixture.o $(A)/libvcp.a
	@mkdir -p $(@D)
	$(msg) ASANCC $@
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(ASAN_FLAGS) -DVCP_SRCDIR='"$(CURDIR)"' \
		-o $@ $< $(A)/tests/obj/fixture.o $(A)/libvcp.a $(LDLIBS) \
		$(CMOCKA_LIBS)

-include $(ASAN_OBJS:.o=.d)

check-asan: $(ASAN_BINS)
	@ASAN_OPTIONS=detect_leaks=1 VCP_SUITE=asan \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		sh tests/run-unit.sh $(ASAN_BINS)

# Line coverage: the unit and integration suites, and the real
# libvirtd+QEMU suite where $(B) has its guest kernel, run once more
# against a build with gcc --coverage in $(B)/cov; gcovr then prints
# per-file line coverage of host-agent/src and the totals
# (scripts/coverage.sh). Not in make check: it repeats the suites (about
# 4 min on 2 cores, 7 with the real suite).
coverage:
	@MAKE="$(MAKE)" sh scripts/coverage.sh $(B) $(B)/cov

# vcpackd and the hook against a private libvirtd running real QEMU (TCG)
# guests, which boot the testbed's stock kernel (built when missing).
GUEST_KERNEL := $(abspath $(B))/kernel/stock/arch/x86/boot/bzImage

check-real: $(PROGS)
	@if [ ! -r $(GUEST_KERNEL) ]; then \
		$(MAKE) -C kernel stock B=$(abspath $(B)); fi
	@sh tests/real/run.sh $(B) $(GUEST_KERNEL)

# The kernel testbed (kernel/README.md). Builds patched and stock 6.12.
check-kernel:
	$(MAKE) -C kernel check B=$(abspath $(B))

kernel:
	$(MAKE) -C kernel all B=$(abspath $(B))

# The sched_ext mode (kernel/README.md, "sched_ext mode"): the testbed's
# stock kernel (an unpatched 6.12 built with sched_ext, the one the kernel
# and real suites boot: no kernel build of its own once those built it),
# libbpf/bpftool from its tools/, the scx_vcpack BPF scheduler, and its
# tests in QEMU.
scx: $(B)/tests/vcp-scxdrive
	$(MAKE) -C kernel scx B=$(abspath $(B))

check-scx: $(B)/tests/vcp-scxdrive
	$(MAKE) -C kernel check-scx B=$(abspath $(B))

# scx_vcpack for the Debian package vcpack-scx (debian/rules, build
# profile pkg.vcpack.scx): built from SCX_VMLINUX's BTF (a vmlinux or
# /sys/kernel/btf/vmlinux of a kernel with sched_ext) with libbpf and
# bpftool from the 6.12 source, no kernel build, into $(SCX_PKG_OUT);
# install-scx puts it in SBINDIR, its man page, and the scx drop-in in
# the unit's drop-in directory (installing vcpack-scx is the opt-in).
SCX_PKG_OUT ?= $(abspath $(B))/scx-pkg
SCX_VMLINUX ?= /sys/kernel/btf/vmlinux
.PHONY: scx-pkg install-scx
scx-pkg: $(B)/man/scx_vcpack.8
	@grep -q sched_ext_ops $(SCX_VMLINUX) 2>/dev/null || { echo "scx-pkg: $(SCX_VMLINUX) has no sched_ext (struct sched_ext_ops): give SCX_VMLINUX=FILE, a vmlinux or BTF file of a kernel built with CONFIG_SCHED_CLASS_EXT" >&2; exit 1; }
	$(MAKE) -C kernel scx-sched B=$(abspath $(B)) SCX_OUT=$(SCX_PKG_OUT) \
		SCX_VMLINUX=$(abspath $(SCX_VMLINUX)) SCX_CFLAGS="$(SCX_PKG_CFLAGS)"

install-scx:
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(SYSTEMDUNITDIR)/vcpackd.service.d \
		$(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(SCX_PKG_OUT)/scx_vcpack $(DESTDIR)$(SBINDIR)/scx_vcpack
	install -m 0644 $(B)/man/scx_vcpack.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 host-agent/vcpackd-scx.conf \
		$(DESTDIR)$(SYSTEMDUNITDIR)/vcpackd.service.d/scx.conf

# The scx guests drive scx_vcpack through vcpackd's own scx.c (static:
# the initramfs has no libc; scx.mk puts it in /bin).
SCXDRIVE_SRCS := tests/kernel/scxdrive.c \
	$(addprefix $(SRC)/,kernel/scx.c kernel/scxstate.c kernel/sysfile.c \
		common/model.c common/cpuset.c common/clock.c common/rdfile.c \
		common/errmsg.c)

$(B)/tests/vcp-scxdrive: $(SCXDRIVE_SRCS) $(wildcard $(SRC)/kernel/scx*.h) \
	$(SRC)/common/model.h $(SRC)/common/clock.h
	@mkdir -p $(@D)
	$(msg) CC $@
	$(Q)$(CC) -std=gnu11 $(WARN) -O2 -static -D_GNU_SOURCE $(SRC_INC) -o $@ \
		$(SCXDRIVE_SRCS)

# ---- benchmarks (print figures; not tests) ----
bench-planner: $(BENCH_BINS)
	$(B)/bench/bench_planner

# One read of every power counter (powerread.c) on a 2-socket, 256-CPU
# fixture tree built in $TMPDIR; target < 5 ms.
bench-power: $(BENCH_BINS)
	$(B)/bench/bench_power

# The fleet (issue 5): the pure fleet planner, then status and plan over
# 100 and 1000 simulated hosts (private test-driver libvirtds).
bench-fleet: $(BENCH_BINS) $(PROGS)
	$(B)/bench/bench_fleetplan
	@sh bench/fleet.sh $(B)

# Fleet host standby (issue 14): a modelled day over 100 and 1000
# simulated hosts, vcpack's standby loop against three baselines; table,
# CSV and plot under $(B)/bench/fleetsim/ (about 15 min on 2 cores).
# Part of make bench.
.PHONY: bench-fleet-sim
bench: bench-fleet-sim
bench-fleet-sim: $(BENCH_BINS)
	@sh bench/fleetsim.sh $(B)

# vcpackd and hook figures (issue 6): hook latency, idle RSS/CPU with 50
# VMs, re-plan time for 100 VMs, all on libvirt's test driver.
bench-daemon: $(PROGS)
	@sh bench/daemon.sh $(B) $(BENCH_SECONDS)

# The kernel benchmark (BENCHMARKS.md): package-idle residency from ftrace,
# the perfect-packer limit, wakeup latency and modelled power of stock 6.12,
# stock + vcpack's pins, the patched kernel at levels 0/1/2 and scx_vcpack
# (the sched_ext scheduler, on the same stock kernel) at levels 1/2, on 2x4,
# 3x4, 4x4, 2-NUMA-node, SNC-like (snc2x4: 2 NUMA nodes in each of 2
# packages) and SMT (2x4x2) TCG guests. Results, tables and plots go to
# $(B)/bench/kernel/{full,quick}/ (results.jsonl, summary.json, table.md,
# plots/*.svg). bench-kernel: about 105 min on 2 cores (2 passes x 3
# repeats) before the scx configs, which add a third guest per topology
# (about 140 min with them; KBENCH_PASSES=1 halves it);
# bench-kernel-quick: 2x4 only, 2 repeats, about 5 min (12 with scx).
# Both print a progress line on stderr as each guest boot ends.
# KBENCH_CONFIGS="stock stock-pin L0 L1 L2" leaves the scx runs out.
KBENCH := $(abspath $(B))/bench/kernel
KBENCH_K := $(abspath $(B))/kernel
KBENCH_CONFIGS ?= stock stock-pin L0 L1 L2 scx-L1 scx-L2
# Passes of the whole run (each with its own phase seeds, 3 repeats of
# every job): with all 7 configs one pass took 68 min (2026-12-06), 43
# min with the pacing CPU outside the workload (2026-12-07); 2x4x2,
# added since, took 14 min alone; without the scx configs the five
# topologies took 53 min, and snc2x4, added after, about 10 more.
KBENCH_PASSES ?= 2
KBENCH_RUN = sh bench/kernel/run.sh --stock $(KBENCH_K)/stock-bench/arch/x86/boot/bzImage \
	--patched $(KBENCH_K)/patched-bench/arch/x86/boot/bzImage \
	--initrd $(KBENCH_K)/bench-initramfs.cpio.gz --vcpack $(abspath $(B))/vcpack \
	--configs "$(KBENCH_CONFIGS)"

# The initramfs carries scx_vcpack, built on stock-bench/'s BTF: the
# kernels first, then (a second make, which sees the new vmlinux) the
# libbpf/bpftool tools, scx_vcpack and the initramfs.
bench-kernel-build: $(PROGS)
	$(MAKE) -C kernel stock patched FLAVOUR=bench B=$(abspath $(B))
	$(MAKE) -C kernel bench-initramfs FLAVOUR=bench B=$(abspath $(B))

bench-kernel: bench-kernel-build
	@rm -rf $(KBENCH)/full
	@s=0; $(KBENCH_RUN) --out $(KBENCH)/full --passes $(KBENCH_PASSES) || s=1; \
		sh bench/kernel/report.sh $(KBENCH)/full || s=1; \
		sh bench/kernel/floor.sh $(KBENCH)/full \
			$(KBENCH_K)/stock-bench/arch/x86/boot/bzImage \
			$(KBENCH_K)/bench-initramfs.cpio.gz || s=1; exit $$s

# Copies the last full run's tables, plots and summary (without the
# per-run records) to bench/results/kernel/, which BENCHMARKS.md shows.
bench-kernel-publish:
	@test -s $(KBENCH)/full/table.md || { echo "no full run in $(KBENCH)/full (make bench-kernel)"; exit 1; }
	@mkdir -p bench/results/kernel
	cp $(KBENCH)/full/table.md $(KBENCH)/full/floor.md $(KBENCH)/full/plots/*.svg bench/results/kernel/
	jq 'del(.runs)' $(KBENCH)/full/summary.json >bench/results/kernel/summary.json

bench-kernel-quick: bench-kernel-build
	@rm -rf $(KBENCH)/quick
	@s=0; $(KBENCH_RUN) --out $(KBENCH)/quick --quick --topos 2x4 --repeats 2 || s=1; \
		sh bench/kernel/report.sh $(KBENCH)/quick || s=1; exit $$s

bench: bench-planner bench-power bench-daemon bench-fleet bench-kernel

bench-quick: bench-planner bench-power
	@$(MAKE) --no-print-directory bench-daemon BENCH_SECONDS=10
	@$(MAKE) --no-print-directory bench-kernel-quick

# ---- install ----
# PREFIX/bin: vcpack, powernice; PREFIX/sbin: vcpackd (the hook is
# install-hooks' job: below); the unit in systemd's unit directory; /etc/default/vcpackd (never
# overwritten); the example policies in DOCDIR/examples/; man pages;
# the bash completion (powernice's is the same file, linked).
# The scx drop-in (host-agent/vcpackd-scx.conf) goes to DOCDIR/examples/
# vcpackd.service.d/scx.conf, for copying to /etc/systemd/system/.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(SYSTEMDUNITDIR) \
		$(DESTDIR)$(SYSCONFDIR)/default $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(B)/vcpack $(B)/powernice $(DESTDIR)$(BINDIR)/
	install -m 0755 $(B)/vcpackd $(DESTDIR)$(SBINDIR)/vcpackd
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		-e 's|@BINDIR@|$(BINDIR)|g' host-agent/vcpackd.service.in >$(DESTDIR)$(SYSTEMDUNITDIR)/vcpackd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/vcpackd.service
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		host-agent/vcpack-fleet.service.in >$(DESTDIR)$(SYSTEMDUNITDIR)/vcpack-fleet.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/vcpack-fleet.service
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/vcpackd ] || \
		install -m 0644 host-agent/vcpackd.default $(DESTDIR)$(SYSCONFDIR)/default/vcpackd
	install -m 0644 host-agent/policy.example.json $(DESTDIR)$(DOCDIR)/examples/policy.json
	install -m 0644 host-agent/policy-business-hours.example.json \
		$(DESTDIR)$(DOCDIR)/examples/policy-business-hours.json
	install -d $(DESTDIR)$(DOCDIR)/examples/vcpackd.service.d
	install -m 0644 host-agent/vcpackd-scx.conf \
		$(DESTDIR)$(DOCDIR)/examples/vcpackd.service.d/scx.conf
	install -m 0644 $(filter %.1,$(MANS)) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(filter %.5,$(MANS)) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(filter %.8,$(MANS)) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 host-agent/vcpack.bash-completion $(DESTDIR)$(BASHCOMPDIR)/vcpack
	ln -sfn vcpack $(DESTDIR)$(BASHCOMPDIR)/powernice

# The hook binary itself is HOOKDIR/qemu.d/vcpack, not a symlink, for
# AppArmor: it judges the target of a symlink, and the profiles that
# confine libvirtd (Debian 12's and 13's, upstream libvirt's, which
# Ubuntu builds) and virtqemud (upstream) let the daemon execute only
# /etc/libvirt/hooks/** (rmix: the hook inherits the daemon's profile,
# whose /** rwmkl lets it read the policy and vcpackd's state, map its
# libraries and connect to vcpackd's socket), /bin, /sbin, /usr/bin and
# /usr/sbin (PUx), libvirt's own /usr/lib/libvirt and a few named
# helpers. The former target, LIBEXECDIR/vcpack/vcpack-hook, matched no
# rule: a confined libvirtd could not run it, and a failed prepare hook
# stops the VM's start. /usr/sbin would work for the package but not
# for PREFIX=/usr/local (no rule covers /usr/local); the hooks directory
# works for every PREFIX and needs no change to the profiles (their
# local/ overrides are the admin's). The price: an ELF file in /etc (the
# package's lintian override says why) that dpkg treats as a conffile.
# tests/integration/test-apparmor.sh checks it against each profile.
# libvirtd (or, with the modular daemons, virtqemud) notices a hook only
# if one existed when it started, unless told with SIGHUP: sent to
# whichever runs, by its pid file under /run, never by name. A symlink
# left by an older install-hooks is replaced, not written through.
install-hooks: $(B)/vcpack-hook
	install -d $(DESTDIR)$(HOOKDIR)/qemu.d
	rm -f $(DESTDIR)$(HOOKDIR)/qemu.d/vcpack
	install -m 0755 $(B)/vcpack-hook $(DESTDIR)$(HOOKDIR)/qemu.d/vcpack
	@[ -z "$(DESTDIR)" ] || exit 0; \
	for d in libvirtd virtqemud; do \
		p=$$(cat /run/$$d.pid 2>/dev/null) || continue; \
		[ -n "$$p" ] && kill -HUP "$$p" 2>/dev/null && \
		echo "install-hooks: sent SIGHUP to $$d (pid $$p) so it picks up the hook"; \
	done; true

# ---- the Debian package (debian/) ----
# Built out of tree: dpkg-buildpackage writes to the parent of the source
# directory, so a copy of the tree goes to $(B)/deb/src and the package
# to $(B)/deb/. check-deb unpacks it in a throwaway root and checks every
# file is where Debian puts it, and runs lintian.
deb:
	@sh scripts/deb.sh $(B)

# (without the package's own unit-test run: make check runs check-unit)
check-deb:
	@DEB_BUILD_OPTIONS="nocheck $${DEB_BUILD_OPTIONS:-}" sh scripts/deb.sh $(B)
	@sh tests/deb/run.sh $(B)

# Kernel style: .clang-format is the kernel's own. The tree predates it,
# and reformatting all of it would rewrite about 1,100 lines in 40 files
# (a third of them in cli.c, cli-fleet.c and daemon.c, which most
# branches edit), so format-check judges the lines changed since
# FORMAT_BASE: by default where this branch left main (on main itself:
# the uncommitted changes). The lines come from git diff -M, so a file
# moved to another folder is not new; clang-format-diff judges them, and
# `make format-fix` rewrites them.
FORMAT_BASE ?= $(shell git merge-base HEAD main 2>/dev/null || echo HEAD)
FORMAT_PATHS := $(SRC) libvirt-hooks tests/unit bench
FORMAT_DIFF = git diff -M -U0 --no-color --no-ext-diff --src-prefix=a/ \
	--dst-prefix=b/ $(FORMAT_BASE) -- $(FORMAT_PATHS)
.PHONY: format-fix
format-check:
	@d=$$($(FORMAT_DIFF)) || exit 1; \
	out=$$(printf '%s\n' "$$d" | clang-format-diff -p1 -regex '.*\.[ch]') || \
		exit 1; \
	if [ -z "$$out" ]; then \
		echo "format-check: lines changed since $(FORMAT_BASE) are kernel style"; \
	else printf '%s\n' "$$out"; \
		echo "format-check: run 'make format-fix FORMAT_BASE=$(FORMAT_BASE)' to fix"; \
		exit 1; \
	fi

format-fix:
	@$(FORMAT_DIFF) | clang-format-diff -p1 -regex '.*\.[ch]' -i

clean:
	rm -rf $(B)
