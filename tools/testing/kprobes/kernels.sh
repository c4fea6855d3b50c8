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
	*) echo "kernels.sh: no kernel named $1" >&2; return 1 ;;
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
