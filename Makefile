# vcpack - power-aware consolidation of KVM guests onto few CPU packages.
#
#   make            build vcpack, powernice and the libvirt hook
#   make demo       the main job on libvirt's test driver (installs deps)
#   make check      every test (installs deps; includes check-kernel)
#   make check-unit | check-schema | check-bench | check-integration |
#        check-kernel | check-scx | check-real
#   make scx        the sched_ext mode: stock 6.12 + sched_ext, scx_vcpack
#   make bench-planner | bench-daemon | bench-fleet | bench-kernel |
#        bench-kernel-quick | bench (all, ~75 min) | bench-quick (~5 min)
#   make install [PREFIX=/usr/local] [DESTDIR=]   make install-hooks
#
# Plain GNU make; one build directory ($(B)); no recursion.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
HOOKDIR ?= $(SYSCONFDIR)/libvirt/hooks
SYSTEMDUNITDIR ?= /lib/systemd/system
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
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE \
	-DVCP_SYSCONFDIR='"$(SYSCONFDIR)"' -Ihost-agent/src $(PKG_CFLAGS)
LDLIBS = $(PKG_LIBS) -lm

SRC := host-agent/src
# Program files (they print; mains and the CLI's parts). Everything else
# is the library.
MAINS := $(SRC)/cli.c $(SRC)/cli-fleet.c $(SRC)/powernice.c $(SRC)/daemon.c
LIB_SRCS := $(filter-out $(MAINS),$(wildcard $(SRC)/*.c))
LIB_OBJS := $(patsubst $(SRC)/%.c,$(B)/obj/%.o,$(LIB_SRCS))
LIB := $(B)/libvcp.a

PROGS := $(B)/vcpack $(B)/powernice $(B)/vcpackd $(B)/vcpack-hook

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
BENCH_SRCS := $(wildcard bench/bench_*.c)
BENCH_BINS := $(patsubst bench/%.c,$(B)/bench/%,$(BENCH_SRCS))

DEPS_STAMP := $(B)/.deps-ok

.PHONY: all deps demo check check-unit check-schema check-integration \
	check-kernel check-scx scx check-real check-bench check-deps kernel bench bench-quick bench-planner \
	bench-daemon bench-fleet bench-kernel bench-kernel-quick bench-kernel-build \
	bench-kernel-publish \
	install install-hooks clean format-check

all: $(PROGS)

# Install the packages only when something is missing (scripts/deps.sh
# is idempotent and quick when all is there).
$(DEPS_STAMP): scripts/deps.sh
	@scripts/deps.sh --check >/dev/null 2>&1 || scripts/deps.sh
	@mkdir -p $(B) && touch $@

deps: $(DEPS_STAMP)

$(B)/obj/%.o: $(SRC)/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/obj/hook/%.o: libvirt-hooks/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/vcpack: $(B)/obj/cli.o $(B)/obj/cli-fleet.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/powernice: $(B)/obj/powernice.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/vcpackd: $(B)/obj/daemon.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The hook runs inside every VM start: link only what it uses.
$(B)/vcpack-hook: $(B)/obj/hook/hook.o $(LIB)
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DVCP_SRCDIR='"$(CURDIR)"' -o $@ $< $(LIB) \
		$(LDLIBS) $(CMOCKA_LIBS)

$(B)/bench/%: bench/%.c $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DVCP_SRCDIR='"$(CURDIR)"' -o $@ $< $(LIB) \
		$(LDLIBS)

-include $(LIB_OBJS:.o=.d) $(B)/obj/cli.d $(B)/obj/cli-fleet.d $(B)/obj/powernice.d \
	$(B)/obj/daemon.d $(B)/obj/hook/hook.d

# ---- the main job ----
demo: $(B)/vcpack
	@sh scripts/demo.sh $(B)/vcpack

# ---- tests ----
check: check-unit check-schema check-bench check-integration check-kernel check-scx check-real
	@echo "make check: all test suites passed"

check-unit: $(UNIT_BINS)
	@sh tests/run-unit.sh $(UNIT_BINS)

check-schema: $(DEPS_STAMP)
	@sh tests/schema/run.sh

# the kernel benchmark's arithmetic (vcresid, report.jq) on worked inputs
check-bench: $(DEPS_STAMP)
	@sh tests/bench/run.sh $(B)

check-integration: $(PROGS)
	@sh tests/integration/run.sh $(B)

# vcpackd and the hook against a private libvirtd running real QEMU (TCG)
# guests, which boot the testbed's stock kernel (built when missing).
GUEST_KERNEL := $(abspath $(B))/kernel/stock/arch/x86/boot/bzImage

check-real: $(PROGS) $(KDEPS_STAMP)
	@if [ ! -r $(GUEST_KERNEL) ]; then \
		$(MAKE) -C kernel stock B=$(abspath $(B)); fi
	@sh tests/real/run.sh $(B) $(GUEST_KERNEL)

# The kernel testbed (kernel/README.md). Builds patched and stock 6.12.
KDEPS_STAMP := $(B)/.kdeps-ok
$(KDEPS_STAMP): scripts/deps.sh
	@scripts/deps.sh --check --kernel >/dev/null 2>&1 || scripts/deps.sh --kernel
	@mkdir -p $(B) && touch $@

check-kernel: $(KDEPS_STAMP)
	$(MAKE) -C kernel check B=$(abspath $(B))

kernel: $(KDEPS_STAMP)
	$(MAKE) -C kernel all B=$(abspath $(B))

# The sched_ext mode (kernel/README.md, "sched_ext mode"): an unpatched
# 6.12 with sched_ext, libbpf/bpftool from its tools/, the scx_vcpack BPF
# scheduler, and its tests in QEMU (one extra kernel build, ~5 min).
scx: $(KDEPS_STAMP)
	$(MAKE) -C kernel scx B=$(abspath $(B))

check-scx: $(KDEPS_STAMP)
	$(MAKE) -C kernel check-scx B=$(abspath $(B))

# ---- benchmarks (print figures; not tests) ----
bench-planner: $(BENCH_BINS)
	$(B)/bench/bench_planner

# The fleet (issue 5): the pure fleet planner, then status and plan over
# 100 and 1000 simulated hosts (private test-driver libvirtds).
bench-fleet: $(BENCH_BINS) $(PROGS)
	$(B)/bench/bench_fleetplan
	@sh bench/fleet.sh $(B)

# vcpackd and hook figures (issue 6): hook latency, idle RSS/CPU with 50
# VMs, re-plan time for 100 VMs, all on libvirt's test driver.
bench-daemon: $(PROGS)
	@sh bench/daemon.sh $(B) $(BENCH_SECONDS)

# The kernel benchmark (BENCHMARKS.md): package-idle residency from ftrace,
# the perfect-packer limit, wakeup latency and modelled power of stock 6.12,
# stock + vcpack's pins and the patched kernel at levels 0/1/2, on 2x4, 4x4
# and 2-NUMA-node TCG guests. Results, tables and plots go to
# $(B)/bench/kernel/{full,quick}/ (results.jsonl, summary.json, table.md,
# plots/*.svg). bench-kernel: about 70 min on 2 cores (2 passes x 3
# repeats); bench-kernel-quick: 2x4 only, 2 repeats, about 5 min.
KBENCH := $(abspath $(B))/bench/kernel
KBENCH_K := $(abspath $(B))/kernel
KBENCH_RUN = sh bench/kernel/run.sh --stock $(KBENCH_K)/stock-bench/arch/x86/boot/bzImage \
	--patched $(KBENCH_K)/patched-bench/arch/x86/boot/bzImage \
	--initrd $(KBENCH_K)/bench-initramfs.cpio.gz --vcpack $(abspath $(B))/vcpack

bench-kernel-build: $(KDEPS_STAMP) $(PROGS)
	$(MAKE) -C kernel stock patched bench-initramfs FLAVOUR=bench B=$(abspath $(B))

bench-kernel: bench-kernel-build
	@rm -rf $(KBENCH)/full
	@s=0; $(KBENCH_RUN) --out $(KBENCH)/full --passes 2 || s=1; \
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

bench: bench-planner bench-daemon bench-fleet bench-kernel

bench-quick: bench-planner
	@$(MAKE) --no-print-directory bench-daemon BENCH_SECONDS=10
	@$(MAKE) --no-print-directory bench-kernel-quick

# ---- install ----
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(B)/vcpack $(DESTDIR)$(BINDIR)/vcpack
	install -m 0755 $(B)/powernice $(DESTDIR)$(BINDIR)/powernice
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0755 $(B)/vcpackd $(DESTDIR)$(SBINDIR)/vcpackd
	sed 's|@SBINDIR@|$(SBINDIR)|g' host-agent/vcpackd.service.in \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/vcpackd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/vcpackd.service
	install -d $(DESTDIR)$(SYSCONFDIR)/vcpack
	install -m 0644 host-agent/policy.example.json \
		$(DESTDIR)$(SYSCONFDIR)/vcpack/policy.example.json
	for m in host-agent/man/*.1; do \
		[ -f "$$m" ] && install -m 0644 "$$m" $(DESTDIR)$(MANDIR)/man1/; \
	done; true

# libvirtd notices a qemu hook only if one existed when it started, unless
# told with SIGHUP (by its pid file, never by name).
install-hooks: $(B)/vcpack-hook
	install -d $(DESTDIR)$(HOOKDIR)/qemu.d
	install -m 0755 $(B)/vcpack-hook $(DESTDIR)$(HOOKDIR)/qemu.d/vcpack
	@if [ -z "$(DESTDIR)" ] && [ -s /run/libvirtd.pid ] && \
	    kill -HUP "$$(cat /run/libvirtd.pid)" 2>/dev/null; then \
		echo "install-hooks: sent SIGHUP to libvirtd (pid $$(cat /run/libvirtd.pid)) so it picks up the hook"; \
	fi

format-check:
	clang-format --dry-run --Werror $(SRC)/*.c $(SRC)/*.h

clean:
	rm -rf $(B)
