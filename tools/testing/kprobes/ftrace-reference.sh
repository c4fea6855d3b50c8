#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make ftrace-reference: upstream's own ftrace selftests for kprobe events
# (ftracetest, the cases mkinitramfs.sh packs) on pristine upstream built
# with the tracing kernel's fragments, and on our tracing kernel, side by
# side.  Upstream's results become ftracetest-upstream.txt, which make
# check holds our kernel to: a case that passes there must pass here.
# REF_KERNEL=clang (make ftrace-reference CLANG=1): both built by clang
# with the clang kernel's fragments, into ftracetest-upstream-clang.txt.
#   ftrace-reference.sh [--no-ours]
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
T=$top/tools/testing/kprobes
. "$T/kernels.sh"
upsrc=$(pristine_tree)
ref=${REF_KERNEL:-tracing}
configs=$(ftrace_reference_configs "$ref")
upobj=$BUILD/obj-upstream-$ref
out=$BUILD/ftrace-reference-$ref
mkdir -p "$out"

# results <console>: "RESULT<tab>case" for each ftracetest case.
results() {
	tr -d '\r' < "$1" | sed -n '/# Subtest: ftracetest/,/^ok\|^not ok/p' |
	python3 -c '
import re, sys
for line in sys.stdin:
    m = re.match(r"^    (ok|not ok) \d+ (.*?)\s*(?:#\s*(\S+).*)?$", line)
    if not m:
        continue
    status, name, d = m.group(1), m.group(2), (m.group(3) or "").upper()
    if d in ("SKIP", "XFAIL", "UNRESOLVED"):
        r = d
    elif status == "ok":
        r = "PASS"
    else:
        r = "FAIL" if not d else "ERROR"
    print(f"{r}\t{name}")
'
}

echo "ftrace-reference: building pristine upstream ($configs) in $upobj"
# Of the selftests' modules only one that pristine upstream can build (the
# others use jprobes or our exports); ftracetest needs none of them.
KERNEL=$ref SRC=$upsrc OBJ=$upobj CONFIGS="$configs" MODULES=kprobes_bench.o \
	MODSRC=$top/tools/testing/selftests/kprobes/test_modules \
	"$T/build.sh" > "$out/build-upstream.log" 2>&1 ||
	{ tail -n 20 "$out/build-upstream.log" >&2; exit 1; }
# Upstream often dies under TCG before the first case: a vCPU that keeps
# a translation of an int3 that text_poke_bp() already removed (the QEMU
# artifact arch/x86/kernel/kprobes/int3.c works around on ours) takes an
# "Oops: int3" while the cases toggle tracepoints.  Such a boot gives no
# results and is tried again; the last try has one vCPU, where no other
# CPU can keep a stale translation.  The file says which one gave them.
for cpus in 2 2 2 1; do
	echo "ftrace-reference: booting upstream with $cpus vCPUs"
	CPUS=$cpus SRC=$upsrc OBJ=$upobj SCRIPTS=$top/tools/testing/selftests/kprobes \
		"$T/run.sh" ftracetest "$out/upstream.log" > /dev/null || true
	results "$out/upstream.log" > "$out/upstream.txt"
	[ -s "$out/upstream.txt" ] && break
	grep -a -m1 'Oops' "$out/upstream.log" >&2 || true
done
[ -s "$out/upstream.txt" ] || { echo "ftrace-reference: no results from upstream" >&2; exit 1; }
{
	echo "# ftracetest on pristine upstream $(cat "$upobj/include/config/kernel.release"),"
	echo "# configs $configs, $cpus vCPUs under TCG: make ftrace-reference$([ "$ref" = clang ] && echo ' CLANG=1')."
	# check.sh refuses this file once either line no longer holds.
	# shellcheck disable=SC2086
	echo "# fragments: $(fragments_id $configs)"
	echo "# qemu: $(qemu_version)"
	cat "$out/upstream.txt"
} > "$(ftrace_reference "$ref")"

if [ "${1:-}" != --no-ours ]; then
	echo "ftrace-reference: booting ours (the $ref kernel)"
	KERNEL=$ref "$T/build.sh" > "$out/build-ours.log" 2>&1
	KERNEL=$ref "$T/run.sh" ftracetest "$out/ours.log" > /dev/null
	results "$out/ours.log" > "$out/ours.txt"
	printf '%-11s %-11s %s\n' upstream ours case
	python3 - "$out/upstream.txt" "$out/ours.txt" <<'PY'
import sys
up = dict(l.rstrip('\n').split('\t', 1)[::-1] for l in open(sys.argv[1]))
ours = dict(l.rstrip('\n').split('\t', 1)[::-1] for l in open(sys.argv[2]))
for name in list(up) + [n for n in ours if n not in up]:
    print(f'{up.get(name, "-"):<11} {ours.get(name, "-"):<11} {name}')
PY
fi
