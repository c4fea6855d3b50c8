# SPDX-License-Identifier: GPL-2.0
#
# The kernels make check builds and boots, by name (sourced by build.sh
# and check.sh; $BUILD is set):
#   test     tinyconfig + configs/test.config + kunit.config   build/obj
#   tracing  the same + configs/tracing.config (ftrace, kprobe events,
#            perf, BPF, livepatch, the CPU mitigations)        build/obj-tracing
#   debug    the tracing kernel + configs/debug.config (lockdep, RCU and
#            list debugging) + configs/sanitizers.config (KASAN,
#            kmemleak, UBSAN); make check DEBUG=1              build/obj-debug
#   btf      the tracing kernel + configs/btf.config (DWARF and the
#            kernel's BTF, for BPF fentry programs); make check BTF=1
#                                                              build/obj-btf
#   clang    the tracing kernel + configs/clang.config (kCFI, IBT), built
#            with Debian's clang-16 and lld-16; make check CLANG=1
#                                                              build/obj-clang
#   kcsan    the test kernel + configs/kcsan.config (the data race
#            detector); make check KCSAN=1                   build/obj-kcsan

kernel_obj() {
	case "$1" in
	test) echo "$BUILD/obj" ;;
	*) echo "$BUILD/obj-$1" ;;
	esac
}

kernel_configs() {
	case "$1" in
	test) echo "test kunit" ;;
	tracing) echo "test kunit tracing" ;;
	debug) echo "test kunit tracing debug sanitizers" ;;
	btf) echo "test kunit tracing btf" ;;
	clang) echo "test kunit tracing clang" ;;
	kcsan) echo "test kunit kcsan" ;;
	*) echo "kernels.sh: no kernel named $1" >&2; return 1 ;;
	esac
}

# kernel_make_vars <name>: what make needs beyond ARCH for that kernel.
kernel_make_vars() {
	case "$1" in
	clang) echo "LLVM=-16" ;;
	esac
}

# The pristine upstream tree ($BUILD/src-upstream): a work tree of the
# assembled tree's "base" commit, made once.  Prints its path.
pristine_tree() {
	local up=$BUILD/src-upstream
	if [ ! -d "$up/.git" ] && [ ! -f "$up/.git" ]; then
		echo "checking out the pristine base in $up" >&2
		git -C "$BUILD/src" worktree add -q --detach "$up" base
	fi
	echo "$up"
}

# What a reference measurement depends on, recorded beside its results
# (ftracetest-upstream.txt) and compared by check.sh, which refuses a
# reference taken with other fragments or under another QEMU.
# ftrace_reference <kernel>: the file of pristine upstream's ftracetest
# results that make check holds that kernel to (make ftrace-reference
# writes it); ftrace_reference_configs <kernel>: the fragments upstream
# was built with for it.  The clang kernel is held to upstream built by
# the same clang, with the same kCFI: some of ftracetest's cases read
# kallsyms, where kCFI adds a __cfi_ symbol in front of each function.
ftrace_reference() {
	case "$1" in
	clang) echo "$top/tools/testing/kprobes/ftracetest-upstream-clang.txt" ;;
	*) echo "$top/tools/testing/kprobes/ftracetest-upstream.txt" ;;
	esac
}
ftrace_reference_configs() {
	case "$1" in
	clang) echo "test tracing clang" ;;
	*) echo "test tracing" ;;
	esac
}
# fragments_id <config names...>: a hash of those fragments' text.
fragments_id() {
	local c
	for c; do cat "$top/configs/$c.config"; done | sha256sum | cut -c1-16
}
# qemu_version: QEMU's version number, as "10.0.2".
qemu_version() {
	qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version \([0-9.]*\).*/\1/p'
}
