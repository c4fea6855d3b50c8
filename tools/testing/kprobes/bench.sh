#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the same benchmark module on our kernel and on pristine
# upstream, both built from the pinned base with configs/test.config, each
# in its own build folder (incremental).  BENCH_CONFIG=tracing builds both
# with configs/tracing.config on top (a probe at a function's entry then
# goes through ftrace on both; kprobe_mid is the first instruction after
# the fentry call), in folders and a result directory ending in -tracing.  Both boot under QEMU TCG with
# -icount shift=0,sleep=off: the guest clock advances one nanosecond per
# guest instruction, so every figure is an instruction count and repeats.
#
# Phase 1 (no icount): each kernel reports which candidate functions it can
# probe; the first 1,000 that both accept are the registration list, all
# of them the every-function list.
# Phase 2 (icount): every case on each kernel.  The table goes to stdout,
# CSV and JSON to build/bench/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
T=$top/tools/testing/kprobes
case "${BENCH_CONFIG:-test}" in
test)    configs=test; sfx= ;;
tracing) configs="test tracing"; sfx=-tracing ;;
*) echo "bench: BENCH_CONFIG is test or tracing" >&2; exit 1 ;;
esac
# ARCH=arm64 (make bench ARCH=arm64): both kernels built for arm64 with
# configs/arch/arm64-bench.config (its test configuration), booted under
# qemu-system-aarch64, in folders and a result directory ending in -arm64.
guest=${ARCH:-x86_64}
case "$guest" in
x86_64) ;;
arm64)
	[ "${BENCH_CONFIG:-test}" = test ] ||
		{ echo "bench: ARCH=arm64 has its own configuration" >&2; exit 1; }
	configs=arch/arm64-bench sfx=-arm64
	# ARM64_SITES=1: ours on the site interface (ARM64_KPROBE_SITES),
	# upstream as always; in folders ending in -arm64-sites.
	if [ "${ARM64_SITES:-0}" = 1 ]; then
		ours_configs="$configs arch/arm64-sites" sfx=-arm64-sites
	fi ;;
*) echo "bench: ARCH is x86_64 or arm64" >&2; exit 1 ;;
esac
out=$BUILD/bench$sfx
src=$BUILD/src
mkdir -p "$out"
. "$T/kernels.sh"
upsrc=$(pristine_tree)

# kernel <name>: the environment that builds and boots one of the two.
kernel_env() {
	case "$1" in
	ours)     echo "SRC=$src OBJ=$BUILD/obj-bench$sfx" ;;
	upstream) echo "SRC=$upsrc OBJ=$BUILD/obj-upstream$sfx" ;;
	esac
	echo "MODSRC=$mods MODULES=kprobes_bench.o GUEST_ARCH=$guest"
}

mods=$top/tools/testing/selftests/kprobes/test_modules
for k in ours upstream; do
	echo "bench: building the $k kernel"
	kconfigs=$configs
	[ "$k" = upstream ] || kconfigs=${ours_configs:-$configs}
	if ! env $(kernel_env $k) CONFIGS="$kconfigs" "$T/build.sh" > "$out/build-$k.log" 2>&1; then
		tail -n 20 "$out/build-$k.log" >&2
		echo "bench: the $k kernel or the benchmark module did not build" >&2
		exit 1
	fi
done

# kprobes_repoke=0: our core writes its text once, as on hardware.  It
# writes it again under QEMU's TCG, where a vCPU of another host thread
# can keep a translation that raced the write (arch/x86/kernel/kprobes/
# patch.c); under -icount one thread runs both vCPUs, so none races.
# Upstream's kernel hands the unknown option to init, which ignores it.
boot() {	# boot <kernel> <mode> <log>
	env $(kernel_env "$1") SCRIPTS="$top/tools/testing/selftests/kprobes" \
		EXTRA_FILES="$out/syms:kselftest/kprobes/bench-syms $out/all:kselftest/kprobes/bench-all" \
		"$T/run.sh" "$2" "$3" log_buf_len=8M kprobes_repoke=0 > /dev/null
}

echo "bench: phase 1, which functions each kernel can probe"
: > "$out/syms"
: > "$out/all"
# Probing every candidate on running code has crashed upstream's kernel
# (an oops in a probed function, now and then): its boot is run again, up
# to three times in all, and each crash stays in accept-upstream-<n>.log.
# Ours gets one boot: a crash of our kernel fails the benchmark.
accept_boot() {	# accept_boot <kernel>: 0 once a boot gave the whole list
	local k=$1 n tries=1

	[ "$k" = upstream ] && tries=3
	for n in $(seq "$tries"); do
		boot "$k" bench-accept "$out/accept-$k.log" || true
		if grep -q '^kpbench-wall-end' "$out/accept-$k.log"; then
			return 0
		fi
		cp "$out/accept-$k.log" "$out/accept-$k-$n.log"
		echo "bench: the $k kernel's phase-1 boot did not finish" \
		     "($(grep -m1 -E 'BUG:|Oops:|Kernel panic' "$out/accept-$k.log" |
		     tr -d '\r' || true); see accept-$k-$n.log)" >&2
	done
	return 1
}
for k in ours upstream; do
	if ! accept_boot $k; then
		echo "bench: the $k kernel did not finish phase 1" >&2
		exit 1
	fi
	sed -n '/^kpbench-accept-begin/,/^kpbench-accept-end/p' "$out/accept-$k.log" |
		grep -v '^kpbench-accept' | tr -d '\r' | sort > "$out/accept-$k"
	echo "bench: $k accepts $(wc -l < "$out/accept-$k") candidates"
done
comm -12 "$out/accept-ours" "$out/accept-upstream" > "$out/accept-both"
head -n 1000 "$out/accept-both" > "$out/syms"
cp "$out/accept-both" "$out/all"
echo "bench: $(wc -l < "$out/syms") functions accepted by both form the registration list"
echo "bench: $(wc -l < "$out/all") functions accepted by both are the every-function list"

echo "bench: phase 2, every case under -icount shift=0,sleep=off"
for k in ours upstream; do
	# Upstream's every-function case on the tracing config runs near
	# 100 G guest instructions, well past run.sh's usual 15 minutes.
	QEMU_EXTRA="-icount shift=0,sleep=off" TIMEOUT=${BENCH_TIMEOUT:-2400} \
		boot $k bench "$out/run-$k.log"
	sed -n '/^kpbench-begin/,/^kpbench-end/p' "$out/run-$k.log" |
		grep -v '^kpbench-' | tr -d '\r' > "$out/results-$k"
	# Phase 1's wall-clock runs of time_to_optimized: their median.
	sed -n '/^kpbench-wall-begin/,/^kpbench-wall-end/p' "$out/accept-$k.log" |
		grep '^time_to_optimized_wall ' | tr -d '\r' | sort -n -k2 |
		sed -n 2p >> "$out/results-$k"
done

python3 "$T/bench_table.py" "$out/results-upstream" "$out/results-ours" "$out"
