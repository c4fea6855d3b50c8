#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and boot an architecture other than x86-64 under QEMU (TCG, 2
# vCPUs) and check its Kprobes: at boot the KUnit suites that apply
# (upstream's lib/test_kprobes.c among them), then
#   i386: the selftests of tools/testing/selftests/kprobes/ that apply
#         there (the others need x86-64 assembly or the tracing kernel),
#         run by the test initramfs' own /init;
#   arm, arm64, ppc64le, riscv64, s390x: arch-init's checks of the samples, the control
#         files and the knobs (the selftests assume the site interface);
#         ppc64le and s390x have the function tracer, so their probes
#         at a function's entry go through ftrace; arm and ppc64le optimize probes with
#         their own detours (classic_opt.c);
#   x86_64-fp: x86-64 with the frame pointer unwinder instead of ORC (the
#         test kernel's configuration otherwise): every KUnit suite of
#         the test kernel, whose stack traces taken in return handlers
#         must find the probed function's caller, and two selftests.
# The console is kept in $BUILD/obj-<arch>/boot.log.
#   arch-boot.sh arm|arm64|ppc64le|riscv64|s390x|i386|x86_64-fp
#   ARCH_FRAGMENT=<file>  a config fragment on top, in obj-<arch>-<name>
#   ARCH_BOOT=0   build the kernel, its modules and the initramfs only
#                 (.ci/run builds them while another kernel boots)
#   ARCH_UPSTREAM=1  the same for pristine 6.12 ($BUILD/obj-<arch>-upstream,
#                 the same fragments, upstream's KUnit suite only), for
#                 an architecture checked by arch-init; then arch-init's
#                 results side by side with ours (an earlier boot of ours):
#                 any check that differs fails the run
#   ARCH_FTRACETEST=1  also upstream's ftrace kprobe selftests
#                 (ftrace-cases.sh) at the end of arch-init, with the
#                 arch's static bash, for a kernel with the function
#                 tracer (the default on ppc64le and s390x, 0 to leave
#                 them out); their results are kept, compared with
#                 ftracetest-upstream-<arch>.txt where there is one, and
#                 with ARCH_UPSTREAM=1 compared with ours as arch-init's
#                 are
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
arch=$1
src=${SRC:-$BUILD/src}
obj=$BUILD/obj-$arch
frags=$top/configs/arch/$arch.config
. "$top/tools/testing/kprobes/arch-tools.sh"
arch_describe "$arch" || { echo "arch-boot: no boot for $arch" >&2; exit 2; }
# What each boot checks: the KUnit suites, and for the site interface the
# selftests that apply and the modules they load (the others' /init is
# arch-init).
append="console=$console panic=-1"
suites="kprobes_test kprobes_return_jump"
selftests= modules=
case "$arch" in
# arm64: classic interface, jprobes through classic_jprobe.c.
# arm: classic interface, in ARM mode: arm's own jump optimization
#   (classic_opt.c), and its kretprobe trampoline.
# ppc64le: classic interface, with the function tracer: probes at ftrace
#   locations go through powerpc's own kprobe_ftrace_handler().
# s390x: classic interface, with the function tracer: probes at ftrace
#   locations go through s390's own kprobe_ftrace_handler(), kretprobes
#   through rethook.
# riscv64: classic interface, kretprobes through rethook.  Debian 12 has
#   no riscv64 busybox: it is built from Debian's source (arch-tools.sh).
arm64)
	# The classes of instruction a probe sits on (the arm64 suite), and
	# the site code's decoder held to arm64's own.
	suites="kprobes_test kprobes_return_jump kprobes_arm64_paths kprobes_arm64_site_decode"
	;;
arm64-sites)
	# arm64 on the site interface (ARM64_KPROBE_SITES): the same suites
	# through the site code, the selftests that need no x86 assembly,
	# and the torture with its arm64 targets, as x86-64's boots end.
	frags="$top/configs/arch/arm64.config $frags"
	suites="kprobes_test kprobes_return_jump kprobes_arm64_paths kprobes_arm64_site_decode"
	selftests="debugfs kprobe-example kretprobe-example jprobe-example module-probes optimization"
	modules="kprobes_target kprobes_torture"
	torture=${ARCH_TORTURE:-30}
	;;
i386)
	# The site interface, as x86-64: jprobes work.
	suites="kprobes_test kprobes_return_jump kprobes_x86_paths"
	selftests="debugfs kprobe-example kretprobe-example jprobe-example module-probes optimization kprobes-bench"
	modules="kprobes_target kprobes_bench"
	;;
x86_64-fp)
	# The test kernel, its unwinder switched (the last fragment).
	frags="$top/configs/test.config $top/configs/kunit.config $frags"
	suites="kprobes_test kprobes_return_jump kprobes_x86_paths kprobes_core kprobes_optimization"
	selftests="kretprobe-example module-probes"
	modules="kprobes_target"
	;;
esac
# ARCH_FRAGMENT=<file>: one more fragment on top (a debug option, say),
# in a folder of its own.
if [ -n "${ARCH_FRAGMENT:-}" ]; then
	frags="$frags $(realpath "$ARCH_FRAGMENT")"
	obj=$obj-$(basename "$ARCH_FRAGMENT" .config)
fi
[ -z "$selftests" ] ||
	append="$append watchdog_thresh=5 kpscripts=$(echo $selftests | tr ' ' ,)"
[ -z "${torture:-}" ] || append="$append kptorture_duration=$torture"
# ftracetest where probes at a function's entry go through the function
# tracer of the architecture's own code.
case "$arch" in
ppc64le|s390x) ftracetest=${ARCH_FTRACETEST:-1} ;;
*) ftracetest=${ARCH_FTRACETEST:-0} ;;
esac

upstream=${ARCH_UPSTREAM:-0}
if [ "$upstream" = 1 ]; then
	[ -z "$selftests" ] || { echo "arch-boot: no upstream boot for $arch" >&2; exit 2; }
	. "$top/tools/testing/kprobes/kernels.sh"
	src=$(pristine_tree)
	obj=$BUILD/obj-$arch-upstream
	suites=kprobes_test
	# Our KUnit suites' option is not upstream's.
	mkdir -p "$obj"
	grep -v '^CONFIG_KPROBES_KUNIT_TEST=' $frags > "$obj/upstream.config"
	frags=$obj/upstream.config
fi

arch_packages
arch_busybox "$arch"

# static_bash <path>: Debian's bash-static of the architecture there
# (once), for ftracetest, which wants a real bash.
static_bash() {
	local b=$BUILD/bash-$arch tmp
	if [ ! -x "$b" ]; then
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -qq "bash-static:$debarch")
		dpkg-deb -x "$tmp"/bash-static_*.deb "$tmp/x"
		cp "$tmp/x/bin/bash-static" "$b"
		rm -rf "$tmp"
	fi
	cp "$b" "$1"
}

kmake() { make -s -C "$src" O="$obj" ARCH="$karch" ${cross:+CROSS_COMPILE="$cross"} "$@"; }
# Every option of the last fragment must stick (an earlier one may be
# overridden by it).
frag=${frags##* }
mkdir -p "$obj"
want=$(cat $frags | sha256sum | cut -d' ' -f1)
if [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ]; then
	echo "arch-boot: configuring $obj"
	kmake tinyconfig > /dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $frags > /dev/null
	kmake olddefconfig
	while read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF "$line" "$obj/.config" ||
			{ echo "arch-boot: config: $line did not stick" >&2; exit 1; } ;;
		esac
	done < "$frag"
	echo "$want" > "$obj/.fragments"
fi
echo "arch-boot: building $obj"
kmake -j"$(nproc)" "$(basename "$image")" modules 2>&1 | tee "$obj/build.log"
# A compiler warning in our files fails the boot (on a fresh build: an
# incremental one shows only what it compiles again).
if grep -E '(kernel/kprobes/|include/linux/kprobes)[^ :]*:[0-9]+:[0-9]+: warning' "$obj/build.log"; then
	echo "arch-boot: the compiler warns about our files ($obj/build.log)" >&2
	exit 1
fi

if [ -n "$selftests" ]; then
	# The test initramfs of x86-64's boots, with this architecture's
	# busybox and the selftest modules that build here.
	mkdir -p "$obj/selftest-modules"
	cp "$src"/tools/testing/selftests/kprobes/test_modules/* "$obj/selftest-modules/"
	kmake -j"$(nproc)" M="$obj/selftest-modules" \
		KPROBES_MODULES="$(printf '%s.o ' $modules)" modules
	OBJ=$obj SRC=$src BUSYBOX=$bb "$top/tools/testing/kprobes/mkinitramfs.sh" "$obj/initramfs.cpio"
	done_line='kptest: done'
else
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,proc,sys,dev,lib/modules/kprobes}
	cp "$bb" "$root/bin/busybox"
	for t in sh mount dmesg insmod rmmod grep cat reboot true; do ln -s busybox "$root/bin/$t"; done
	install -m 755 "$top/tools/testing/kprobes/arch-init" "$root/init"
	if [ "$ftracetest" = 1 ]; then
		. "$top/tools/testing/kprobes/ftrace-cases.sh"
		ftrace_cases_pack "$src" "$root"
		# On s390x under QEMU, kprobe_insn_boundary.tc (an event on
		# every instruction of kernel_clone(), all enabled) oopses
		# pristine upstream as it does ours, the same way: an
		# operation exception at the breakpoint of kernel_clone+0x4e,
		# the instruction after a stepped tmlh, that no handler
		# takes.  The oops ends the run; without the case, the
		# others run on both.
		# On ppc64le, multiple_kprobes.tc (events at +8 of the first
		# 256 text functions that take one, all enabled) wedges
		# pristine upstream as it does ours, at the same event: the
		# one at do_program_check+8, which the program check of its
		# own breakpoint calls again before any Kprobes code runs.
		[ "$arch" != s390x ] ||
			rm "$root/kselftest/ftrace/test.d/kprobe/kprobe_insn_boundary.tc"
		[ "$arch" != ppc64le ] ||
			rm "$root/kselftest/ftrace/test.d/kprobe/multiple_kprobes.tc"
		static_bash "$root/bin/bash"
	fi
	find "$obj/samples/kprobes" -name '*.ko' -exec cp {} "$root/lib/modules/kprobes/" \;
	(cd "$root" && find . | cpio -o -H newc --quiet) > "$obj/initramfs.cpio"
	done_line='arch-init: done'
fi

[ "${ARCH_BOOT:-1}" = 1 ] || exit 0

log=$obj/boot.log
# ftracetest's kprobe cases take a minute or two more under TCG.
boot_timeout=600
[ "$ftracetest" = 1 ] && boot_timeout=900
echo "arch-boot: booting $arch (console in $log)"
timeout --foreground "${TIMEOUT:-$boot_timeout}" "${qemu[@]}" -append "$append" -accel tcg,thread=multi -smp 2 -m 512 -nographic -no-reboot \
	-kernel "$obj/$image" -initrd "$obj/initramfs.cpio" < /dev/null > "$log" 2>&1 || true

# The verdict, by make check's judge (judge.sh, ktap.py): both documents
# (KUnit at boot, then the /init's) parse with kunit.py; every case of
# each suite and every /init check reported and passed, or skipped where
# the list below allows it; each plan kept; the /init reached its end; 2
# CPUs came up; nothing splatted.
. "$top/tools/testing/kprobes/judge.sh"
suite_source() {
	case "$1" in
	kprobes_test) echo lib/test_kprobes.c ;;
	kprobes_return_jump) echo kernel/kprobes/kprobes_kunit.c ;;
	kprobes_core) echo arch/x86/kernel/kprobes/kprobes_kunit.c ;;
	kprobes_optimization) echo arch/x86/kernel/kprobes/opt_kunit.c ;;
	kprobes_x86_paths) echo arch/x86/kernel/kprobes/paths_kunit.c ;;
	kprobes_arm64_paths) echo arch/arm64/kernel/probes/paths_kunit.c ;;
	kprobes_arm64_site_decode) echo arch/arm64/kernel/probes/site_decode_kunit.c ;;
	esac
}
expect=$obj/boot-expected.txt
{
	echo "end-mark $done_line"
	if [ -n "$selftests" ]; then
		for s in $selftests; do echo "require test-$s"; done
		[ -z "${torture:-}" ] || {
			echo "require torture"
			grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$obj/.config" ||
				echo "skip-ok torture/kmemleak reports nothing allocated by Kprobes	# no kmemleak in this kernel"
		}
	else
		sed -n 's/^ok "\([^"]*\)".*/require \1/p' "$top/tools/testing/kprobes/arch-init"
	fi
	# Upstream's stack trace cases are built where the arch unwinds
	# through a kretprobe's trampoline (x86, arm64...), not elsewhere.
	grep -q '^CONFIG_ARCH_CORRECT_STACKTRACE_ON_KRETPROBE=y' "$obj/.config" || {
		echo "optional kprobes_test/test_stacktrace_on_kretprobe"
		echo "optional kprobes_test/test_stacktrace_on_nested_kretprobe"
	}
	grep -q '^CONFIG_OPTPROBES=y' "$obj/.config" ||
		echo "skip-ok kprobes_return_jump/optimized_probe_fires_through_jump	# no jump optimization on this architecture"
	grep -q '^CONFIG_FUNCTION_ERROR_INJECTION=y' "$obj/.config" ||
		echo "skip-ok kprobes_optimization/injectable_entry_stays_int3	# no error injection in this kernel"
	# Bare probes at breakpoints: a classic arch with neither ftrace's
	# probes nor jump optimization (include/linux/kprobes.h).
	grep -q '^CONFIG_KPROBES_CLASSIC_ARCH=y' "$obj/.config" &&
		! grep -qE '^CONFIG_(OPTPROBES|KPROBES_ON_FTRACE)=y' "$obj/.config" ||
		echo "skip-ok kprobes_return_jump/alone_probe_goes_bare	# a probe alone at a breakpoint has a site here"
	grep -q '^CONFIG_HAVE_KPROBE_SITES=y' "$obj/.config" ||
		echo "skip-ok kprobes_arm64_paths/boosted_hit_takes_one_trap	# the classic interface steps every copy"
	[ "$karch" = x86_64 ] || {
		echo "skip-ok kprobes_return_jump/static_call_site_refused	# no inline static calls here"
		echo "skip-ok kprobes_return_jump/static_call_trampoline_refused	# no static call trampolines here"
		echo "skip-ok kprobes_return_jump/site_is_a_small_slab_object	# the size checked is x86-64's"
	}
} > "$expect"
judge=(--expect "$expect")
for suite in $suites; do judge+=(--cases-from "$src/$(suite_source "$suite")"); done
grep -qE 'Brought up .* 2 CPUs' "$log" || judge+=(--problem "$arch: the guest did not bring up 2 CPUs")
while read -r line; do
	case "$line" in
	problem:*) judge+=(--problem "$arch: ${line#problem: }") ;;
	esac
done < <(kunit_parse "$log" "$arch" "$obj/boot")
st=0
verdict=$(python3 "$top/tools/testing/kprobes/ktap.py" "${judge[@]}" "$arch=$log") || st=$?
# The cases that passed are many; what did not, and the counts.
grep -v '^  ok ' <<<"$verdict" | sed "s/^/arch-boot: /"

# arch-init's results, as "ok <name>" or "not ok <name>", for comparing.
init_results() {
	sed -n 's/^\(not ok\|ok\) [0-9][0-9]* \(.*\)$/\1 \2/p' "$1" |
		grep -F -f <(sed -n 's/^[[:space:]]*\(\[ .* \] && \)\{0,1\}ok "\([^"]*\)".*/\2/p' \
			"$top/tools/testing/kprobes/arch-init") || true
}
if [ -z "$selftests" ]; then
	init_results "$log" > "$obj/init-results.txt"
fi
# ftracetest's lines (arch-init), as "RESULT<tab>case" (ARCH_FTRACETEST=1).
if [ "$ftracetest" = 1 ]; then
	tr -d '\r' < "$log" |
		sed -n 's/^ftracetest: \[[0-9]*\] \(.*[^[:space:]]\)[[:space:]]*\[\([A-Z]*\)\]$/\2	\1/p' \
		> "$obj/ftracetest-results.txt"
	if [ -s "$obj/ftracetest-results.txt" ]; then
		echo "arch-boot: ftracetest: $(cut -f1 "$obj/ftracetest-results.txt" | sort | uniq -c |
			awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')"
	else
		echo "arch-boot: ftracetest: no results"
		st=1
	fi
	# Pristine upstream's results on this architecture, as its boot
	# beside ours gave them (ftracetest-upstream-<arch>.txt): ours must
	# be the same, and upstream's still what the file says.
	ref=$top/tools/testing/kprobes/ftracetest-upstream-$arch.txt
	if [ -f "$ref" ]; then
		if diff -u <(grep -v '^#' "$ref") "$obj/ftracetest-results.txt" > "$obj/ftracetest-reference.diff"; then
			echo "arch-boot: ftracetest: the same $(grep -vc '^#' "$ref") results as upstream's reference"
		else
			echo "arch-boot: ftracetest: results differ from upstream's reference (reference -, this boot +):"
			sed -n '3,$p' "$obj/ftracetest-reference.diff" | sed 's/^/arch-boot:   /'
			st=1
		fi
	fi
fi
# compare_beside <results file> <what>: this boot's results against
# ours (an earlier boot, $BUILD/obj-<arch>), line by line; a difference
# is printed as a diff and fails the run.
compare_beside() {
	local ours=$BUILD/obj-$arch/$1 what=$2 d=$obj/beside-${1%.txt}.diff

	if [ ! -s "$ours" ]; then
		echo "arch-boot: beside upstream: no ${what}results of ours ($ours): boot ours first"
		st=1
	elif diff -u "$ours" "$obj/$1" > "$d"; then
		echo "arch-boot: beside upstream: the same $(wc -l < "$ours") ${what}results on $arch"
	else
		echo "arch-boot: beside upstream: ${what}results on $arch differ (ours -, upstream +):"
		sed -n '3,$p' "$d" | sed 's/^/arch-boot:   /'
		st=1
	fi
}
if [ "$upstream" = 1 ]; then
	compare_beside init-results.txt ""
	[ "$ftracetest" = 1 ] && compare_beside ftracetest-results.txt "ftracetest "
fi
exit $st
