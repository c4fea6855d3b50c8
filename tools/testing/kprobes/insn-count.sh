#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make insn-count: where the instructions of one probe hit go, function by
# function.  Boots make bench's tracing kernel (ours, or WHICH=upstream the
# pristine one; built here if needed, incrementally) with the benchmark
# module running one case (CASE, a name of kprobes_bench.c's run_case()),
# stops it under QEMU's gdbstub at the probed function's call, and
# single-steps the call to its return, HITS times (the last is printed;
# the first may still be warming up).  Counts are exact: a single-stepped
# instruction is one instruction, whatever the host.  The figure that make
# bench reports for the case is the total less the probed function's own.
#   CASE   opt (a kprobe at the entry; default), two, post, kretprobe,
#          direct_kprobe_floor, ...
#   ARM    a kernel symbol reached once before the hits to count (default:
#          kprobe_ftrace_direct_tramp on ours, kprobe_ftrace_handler upstream;
#          the floor case's trampoline is the module's: register_ftrace_direct)
#   HITS   hits stepped (default 3)
#   TRACE  where the last hit's instructions go, one per line (optional)
# Needs gdb (installed here when missing).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
T=$top/tools/testing/kprobes
which=${WHICH:-ours}
case=${CASE:-opt}
. "$T/kernels.sh"
mods=$top/tools/testing/selftests/kprobes/test_modules
case "$which" in
ours)     src=$BUILD/src obj=$BUILD/obj-bench-tracing arm=kprobe_ftrace_direct_tramp ;;
upstream) src=$(pristine_tree) obj=$BUILD/obj-upstream-tracing arm=kprobe_ftrace_handler ;;
*) echo "insn-count: WHICH is ours or upstream" >&2; exit 1 ;;
esac
[ "$case" = direct_kprobe_floor ] && arm=register_ftrace_direct
arm=${ARM:-$arm}

command -v gdb > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdb > /dev/null
env SRC="$src" OBJ="$obj" MODSRC="$mods" MODULES=kprobes_bench.o GUEST_ARCH=x86_64 \
	CONFIGS="test tracing" "$T/build.sh" > "$BUILD/insn-count-build.log" 2>&1 ||
	{ tail -n 20 "$BUILD/insn-count-build.log" >&2; exit 1; }

# The module's function lists are make bench's when it ran; a case that
# registers many probes (register, batch) needs them.
: > "$BUILD/insn-count-syms"
port=$(( 20000 + RANDOM % 10000 ))
env SRC="$src" OBJ="$obj" MODSRC="$mods" MODULES=kprobes_bench.o GUEST_ARCH=x86_64 \
	SCRIPTS="$top/tools/testing/selftests/kprobes" \
	EXTRA_FILES="$BUILD/insn-count-syms:kselftest/kprobes/bench-syms $BUILD/insn-count-syms:kselftest/kprobes/bench-all" \
	QEMU_EXTRA="-gdb tcp::$port -S" TIMEOUT=900 \
	"$T/run.sh" bench "$BUILD/insn-count-boot.log" nokaslr kpbench_cases="$case" \
	kprobes_repoke=0 > /dev/null 2>&1 &
qemu=$!
trap 'kill $qemu 2> /dev/null || true' EXIT

echo "insn-count: $which kernel, case $case, stepping after $arm"
PORT=$port ARM=$arm HITS=${HITS:-3} TRACE=${TRACE:-} \
	gdb -q -batch -x "$T/insn_count.py" "$obj/vmlinux" 2>&1 |
	grep -v -e '^0x' -e 'hit Breakpoint' -e '^$' -e '^\[Inferior'
