#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the test initramfs: static busybox, /init, the samples' and the
# selftests' modules, and the selftest scripts with kselftest's KTAP helpers.
#   mkinitramfs.sh <output.cpio>
#   SCRIPTS  where the selftest scripts are (default: the assembled tree's)
#   BUSYBOX  a static busybox of the guest's architecture (default: the host's)
#   GUEST_ARCH  x86_64 (the default) or another (run.sh's): the programs
#            built or taken from the host (bash, ftracetest's cases, the
#            PMU tool) go only into an x86-64 guest's
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=${SRC:-$BUILD/src}
obj=${OBJ:-$BUILD/obj}
out=$1
root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc,lib/modules/kprobes,kselftest/kprobes}
cp "${BUSYBOX:-/bin/busybox}" "$root/bin/busybox"
install -m 755 "$top/tools/testing/kprobes/init" "$root/init"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
scripts=${SCRIPTS:-$src/tools/testing/selftests/kprobes}
find "$obj/samples/kprobes" "$obj/samples/livepatch" "$obj/selftest-modules" \
	-name '*.ko' -exec cp {} "$root/lib/modules/kprobes/" \; 2>/dev/null || true
cp "$scripts"/*.sh "$root/kselftest/kprobes/"
cp "$src/tools/testing/selftests/kselftest/ktap_helpers.sh" "$root/kselftest/kprobes/"
[ -f "$obj/everyinsn.txt" ] && cp "$obj/everyinsn.txt" "$root/kselftest/kprobes/"
# A kernel with kprobe events also gets upstream's ftrace selftests (the
# kprobe cases, ftrace-cases.sh; their list in cases, the core's in
# cases-core), the real bash ftracetest wants, and the trace-printk sample
# that its module case loads with modprobe.
. "$top/tools/testing/kprobes/ftrace-cases.sh"
if [ "${GUEST_ARCH:-x86_64}" = x86_64 ] &&
   grep -q '^CONFIG_KPROBE_EVENTS=y' "$obj/.config" 2>/dev/null; then
	ftrace_cases_pack "$src" "$root"
	cp /bin/bash-static "$root/bin/bash"
	krel=$(cat "$obj/include/config/kernel.release")
	if [ -f "$obj/samples/trace_printk/trace-printk.ko" ]; then
		mkdir -p "$root/lib/modules/$krel/extra"
		cp "$obj/samples/trace_printk/trace-printk.ko" "$root/lib/modules/$krel/extra/"
		touch "$root/lib/modules/$krel/"{modules.order,modules.builtin,modules.builtin.modinfo}
		/sbin/depmod -b "$root" "$krel"
	fi
	# The perf kprobe PMU check's program (static: the initramfs has no libc).
	pmu=$top/tools/testing/selftests/kprobes/tools/kprobe_pmu.c
	if [ ! "$obj/kprobe_pmu" -nt "$pmu" ]; then
		gcc -static -O2 -Wall -o "$obj/kprobe_pmu" "$pmu"
	fi
	cp "$obj/kprobe_pmu" "$root/kselftest/kprobes/"
fi
# GUEST_TOOLS=1: the host's perf and bpftrace, with the shared libraries they
# load, for test-tools.sh (about 220 MB: only the boot that runs them).
copy_with_libs() {	# copy_with_libs <program>
	local lib
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
	for lib in $(ldd "$1" | grep -oE '/[^ ]+'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
if [ "${GUEST_TOOLS:-0}" = 1 ]; then
	copy_with_libs /usr/bin/perf
	copy_with_libs /usr/bin/bpftrace
fi
# Extra files: EXTRA_FILES="host-path:initramfs-path ..."
for pair in ${EXTRA_FILES:-}; do
	cp "${pair%%:*}" "$root/${pair#*:}"
done
chmod -R go+rX "$root"
(cd "$root" && find . | cpio -o -H newc --quiet) > "$out"
