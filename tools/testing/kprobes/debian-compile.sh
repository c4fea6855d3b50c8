#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile, with Debian's own 6.12 config for amd64 (package
# linux-config-6.12: thousands of options, Kprobes with everything around
# it), every part of the assembled tree that builds on Kprobes: our core
# and x86 code, the tracing core, BPF, livepatch, fail_function, the
# samples and upstream's lib/test_kprobes.  Not a kernel to boot: a check
# that the series compiles where a distribution turns everything on, and
# that none of our files warns (objtool's warnings about our objects
# included).
#   BUILD  build folder (default: build/); objects in $BUILD/obj-debian
#   SRC    the tree (default: $BUILD/src, the assembled tree)
#   DEBIAN_CONFIG  the config (default: the package's, installed if missing)
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=${SRC:-$BUILD/src}
obj=$BUILD/obj-debian
pkg=linux-config-6.12
cfg=${DEBIAN_CONFIG:-/usr/src/$pkg/config.amd64_none_amd64.xz}

if [ ! -f "$cfg" ]; then
	echo "debian-compile: installing $pkg"
	apt-get update -qq > /dev/null 2>&1 || true
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" > /dev/null
fi
[ -f "$cfg" ] || { echo "debian-compile: no $cfg" >&2; exit 1; }

kmake() { make -s -C "$src" O="$obj" ARCH=x86_64 "$@"; }

mkdir -p "$obj"
# Configure only when Debian's config or this script changed.
want=$(cat "$cfg" "$0" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.debian" 2>/dev/null)" != "$want" ]; then
	echo "debian-compile: configuring $obj from $(basename "$cfg")"
	xz -dc "$cfg" > "$obj/.config"
	# Debian's own certificates are not in this tree; the samples,
	# upstream's Kprobes test, error injection and fail_function are what
	# Debian does not build.
	"$src/scripts/config" --file "$obj/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--enable SAMPLES --module SAMPLE_KPROBES --module SAMPLE_KRETPROBES \
		--enable KUNIT --module KPROBES_SANITY_TEST \
		--enable FUNCTION_ERROR_INJECTION --enable BPF_KPROBE_OVERRIDE \
		--enable FAULT_INJECTION --enable FAULT_INJECTION_DEBUG_FS \
		--enable FAIL_FUNCTION
	kmake olddefconfig
	for opt in KPROBES KRETPROBES OPTPROBES KPROBES_ON_FTRACE KPROBE_EVENTS \
		   BPF_EVENTS FAIL_FUNCTION LIVEPATCH; do
		grep -q "^CONFIG_$opt=y" "$obj/.config" ||
			{ echo "debian-compile: CONFIG_$opt is not y with Debian's config" >&2; exit 1; }
	done
	echo "$want" > "$obj/.debian"
fi

# The parts that build on Kprobes, and what the compiler and objtool say.
targets=(kernel/kprobes/ arch/x86/kernel/kprobes/ kernel/trace/ kernel/bpf/
	 kernel/livepatch/ kernel/fail_function.o samples/kprobes/ lib/test_kprobes.o)
log=$obj/compile.log
echo "debian-compile: compiling ${targets[*]}"
start=$(date +%s)
{ kmake -j"$(nproc)" prepare "${targets[@]}" 2>&1 1>&3 | tee "$log" >&2; } 3>&1
echo "debian-compile: compiled in $(( $(date +%s) - start )) s"

# A warning about one of our files fails it: the series' own files are
# the ones upstream does not have.
ours=$(git -C "$top" ls-files kernel/kprobes arch/x86/kernel/kprobes samples/kprobes \
	include/linux/kprobes.h include/linux/kprobes_arch.h)
bad=0
while read -r f; do
	[ -n "$f" ] || continue
	base=${f%.*}
	if grep -E "(^|/)$base\.(c|h|S|o)[:(]" "$log" | grep -qiE 'warning|error'; then
		grep -E "(^|/)$base\.(c|h|S|o)[:(]" "$log" >&2
		bad=1
	fi
done <<<"$ours"
if [ $bad -ne 0 ]; then
	echo "debian-compile: FAIL: warnings in our files" >&2
	exit 1
fi
echo "debian-compile: $(grep -ciE 'warning' "$log" || true) warnings in all, none in our files"
