# SPDX-License-Identifier: GPL-2.0
#
# The project's driver (not the kernel's Makefile).  Every target sets up
# what is missing, assembles the tree in build/, and builds incrementally.
#
#   make / make demo   boot the tracing kernel and show the samples, a kprobe
#                      event, the list and the knob (DEMO_KERNEL=test: the
#                      test kernel); then the last make bench's figures
#   make check         boot and run every test suite; last line "N passed, N failed"
#   make shell         boot into an interactive shell
#   make torture       the torture test, DURATION=<seconds> (default 600),
#                      SEED=<n> to replay a run; prints its summary; make
#                      check runs it for TORTURE_DURATION=30 s at the end
#                      of every boot
#   make arch-check    boot i386, arm64, ppc64le, arm, s390x, riscv64 and x86-64 with frame pointers under
#                      QEMU with our core (KUnit with upstream's
#                      test_kprobes, samples, control files)
#   make cross-check   compile the core and each other architecture's own
#                      Kprobes code (ARCHS="arm riscv ..." for some)
#   make patches       write the patch series to build/patches/
#   make bench         the benchmark on our kernel and on pristine upstream
#                      (BENCH_CONFIG=tracing: the tracing kernels;
#                      ARCH=arm64: both built for arm64)
#   make insn-count    one hit of a bench case single-stepped on the tracing
#                      kernel, instructions by function (CASE=opt|two|post|
#                      kretprobe|..., WHICH=ours|upstream)
#   make ftrace-reference  upstream's ftrace kprobe selftests on pristine
#                      upstream and on ours; rewrites the reference make
#                      check holds ours to (ftracetest-upstream.txt;
#                      with CLANG=1 both built by clang: -clang.txt)
#   make conformance   our core beside pristine upstream (same base and
#                      fragments): errnos, handler context, debugfs files,
#                      knobs, acceptance at every instruction boundary of
#                      1,000 functions; differences must be argued in
#                      Documentation/trace/kprobes.rst
#   make debian-compile  compile what builds on Kprobes (our core, kernel/trace,
#                      kernel/bpf, livepatch, fail_function, the samples,
#                      test_kprobes) with Debian's own 6.12 config
#   make deb           Debian's own 6.12 config, our series: linux-image and
#                      linux-headers packages in build/deb/, installed into
#                      a minimal Debian 12 booted under QEMU (DEB_MODULES=boot:
#                      only the modules that boot loads; DEB_BOOT=0: no boot)
#   DEBUG=1            build and test the lockdep kernel (build/obj-debug)
#   KCSAN=1            build and test the data race kernel (build/obj-kcsan)
#   BTF=1              build and test the tracing kernel with its BTF
#                      (build/obj-btf): BPF fentry programs beside probes
#   CLANG=1            build and test the tracing kernel built by clang-16
#                      with kCFI (build/obj-clang)
#   KERNELS="test"     build and test only these kernels (kernels.sh)

T := tools/testing/kprobes
export BUILD ?= $(CURDIR)/build

# The kernels make check builds and boots (tools/testing/kprobes/kernels.sh):
# the test kernel and the tracing kernel; with DEBUG=1 the debug kernel (the
# tracing kernel with lockdep and friends).  make shell boots the first.
ifeq ($(KCSAN),1)
export KERNELS := kcsan
else ifeq ($(DEBUG),1)
export KERNELS := debug
else ifeq ($(BTF),1)
export KERNELS := btf
else ifeq ($(CLANG),1)
export KERNELS := clang
else
export KERNELS ?= test tracing
endif
FIRST := $(firstword $(KERNELS))

.PHONY: all demo check arch-check cross-check shell torture patches bench insn-count ftrace-reference conformance debian-compile deb setup assemble build clean

all: demo

setup:
	@$(T)/setup.sh

assemble: setup
	@$(T)/assemble.sh

build: assemble
	@for k in $(KERNELS); do KERNEL=$$k $(T)/build.sh || exit 1; done

# The demo boots the tracing kernel: probes at a function's entry ride
# ftrace there, and kprobe events exist.
DEMO_KERNEL ?= tracing
demo: assemble
	@KERNEL=$(DEMO_KERNEL) $(T)/build.sh
	@KERNEL=$(DEMO_KERNEL) $(T)/run.sh demo $(BUILD)/demo.log | \
		sed -n '/^### /,/^kptest: done/{/^kptest: done/d;p}'
	@$(T)/bench-line.sh

check: build
	@$(T)/check.sh

shell: assemble
	@KERNEL=$(FIRST) $(T)/build.sh
	@KERNEL=$(FIRST) $(T)/run.sh shell

DURATION ?= 600
SEED ?= 0
torture: assemble
	@KERNEL=$(FIRST) $(T)/build.sh
	@TIMEOUT=$$(( $(DURATION) + 600 )) KERNEL=$(FIRST) $(T)/run.sh torture $(BUILD)/torture.log \
		kptorture_duration=$(DURATION) kptorture_seed=$(SEED) | \
		sed -n 's/\r$$//; /kprobes_torture: \(start\|seed=\|calls=\|SUCCESS\|FAILURE\|wrong\|first\)/p; /^\(not \)\{0,1\}ok 1 torture/p'
	@grep -q '^ok 1 torture' $(BUILD)/torture.log

ARCH_BOOTS ?= i386 arm64 arm64-sites ppc64le arm s390x riscv64 x86_64-fp
# Pristine 6.12 booted too, after ours, arch-init's and ftracetest's
# results compared with ours.
ARCH_BESIDE ?= ppc64le s390x
arch-check: assemble
	@st=0; for a in $(ARCH_BOOTS); do $(T)/arch-boot.sh $$a || st=1; done; \
	for a in $(ARCH_BESIDE); do \
		ARCH_UPSTREAM=1 $(T)/arch-boot.sh $$a || st=1; \
	done; exit $$st

cross-check: assemble
	@$(T)/cross-check.sh $(ARCHS)

patches: assemble
	@$(T)/patches.sh

bench: assemble
	@$(T)/bench.sh

insn-count: assemble
	@$(T)/insn-count.sh

ftrace-reference: assemble
	@REF_KERNEL=$(if $(filter clang,$(KERNELS)),clang,tracing) $(T)/ftrace-reference.sh

conformance: assemble
	@$(T)/conformance.sh

debian-compile: assemble
	@$(T)/debian-compile.sh

deb: assemble
	@$(T)/deb.sh

clean:
	rm -rf $(BUILD)
