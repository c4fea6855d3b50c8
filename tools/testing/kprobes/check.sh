#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot each kernel of KERNELS (kernels.sh; default "test") once per
# preemption model (PREEMPT_MODES, default "none full": the kernels are
# PREEMPT_DYNAMIC and take preempt= at boot), collect each console, and
# judge them: every KTAP document must parse with the base tree's
# kunit.py, and ktap.py prints each case, prefixed with its kernel and
# boot, and, last, "N passed, N failed" over all boots.  Exit status 0
# only when nothing failed.  JUDGE_ONLY=1 judges the consoles of the last
# run again, without booting (after a change to the judge).
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=$BUILD/src
T=$top/tools/testing/kprobes
. "$T/kernels.sh"
. "$T/ftrace-cases.sh"
. "$T/judge.sh"

# What one kernel must report: the static list, every selftest script, and
# (--cases-from) every case of the KUnit suites it builds, read from their
# sources.  Prints ktap.py's options for that kernel.
expectations() {	# expectations <obj> <mode> <tools: 0|1> <ftracetest: all|core> <kernel>
	local obj=$1 expect=$1/check-expected-$2.txt f
	{
		cat "$T/expected.txt"
		for t in "$top"/tools/testing/selftests/kprobes/test-*.sh; do
			echo "require $(basename "$t" .sh)"
		done
		# The torture test, last in every boot (TORTURE_DURATION 0: none).
		if [ "$TORTURE_DURATION" != 0 ]; then
			echo "require torture"
			grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$obj/.config" ||
				echo "skip-ok torture/kmemleak reports nothing allocated by Kprobes	# no kmemleak in this kernel"
		fi
		# The ftrace coexistence script needs the function tracer.
		grep -q '^CONFIG_FUNCTION_TRACER=y' "$obj/.config" ||
			echo "skip-ok test-ftrace	# no function tracer in this kernel"
		# With retpolines an indirect call goes through a thunk.
		grep -q '^CONFIG_MITIGATION_RETPOLINE=y' "$obj/.config" &&
			echo "skip-ok kprobes_x86_paths/indirect_call_through_memory	# retpolines: no call through memory to probe"
		grep -q '^CONFIG_FUNCTION_ERROR_INJECTION=y' "$obj/.config" ||
			echo "skip-ok kprobes_optimization/injectable_entry_stays_int3	# no error injection in this kernel"
		# The site interface: a probe alone at a breakpoint has a site.
		echo "skip-ok kprobes_return_jump/alone_probe_goes_bare	# x86: a probe alone at a breakpoint has a site"
		grep -q '^CONFIG_FAIL_FUNCTION=y' "$obj/.config" ||
			echo "skip-ok test-fail-function	# no fail_function in this kernel"
		grep -q '^CONFIG_PROVE_LOCKING=y' "$obj/.config" && {
			echo "skip-ok test-fail-function/the caller sees -5	# lockdep forbids should_fail()'s local lock in int3's NMI context"
			echo "skip-ok test-fail-function/and again (not a one-off)	# the same"
		}
		# Allocation failure needs failslab and fail_page_alloc; its
		# cases are named after the scenarios of kprobes_badinput.
		grep -q '^CONFIG_FAILSLAB=y' "$obj/.config" ||
			sed -n 's/^\t{ sc_[a-z0-9_]*, "\(.*\)" },$/\1/p' \
				"$top/tools/testing/selftests/kprobes/test_modules/badinput.c" |
			while read -r d; do
				echo "skip-ok test-bad-input/allocation failure: $d: each fails with ENOMEM, none leaves a trace, and it works after	# no failslab in this kernel"
			done
		[ "$3" = 1 ] ||
			echo "skip-ok test-tools	# perf and bpftrace ride only in a tracing kernel's preempt=$TOOLS_MODE boot"
		grep -q '^CONFIG_BPF_EVENTS=y' "$obj/.config" ||
			echo "skip-ok test-perf-pmu	# no kprobe PMU or BPF events in this kernel"
		# A BPF fentry program needs the kernel's BTF (test-tools).
		grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$obj/.config" || {
			echo "skip-ok test-tools/a BPF fentry program comes and goes over a probe while the other CPU reads	# no BTF in this kernel"
			echo "skip-ok test-tools/a probe comes and goes under a BPF fentry program while the other CPU reads	# the same"
			echo "skip-ok test-tools/the probe is called directly again once the program left	# the same"
		}
		# Upstream's ftrace selftests: what they gave on upstream.
		grep -q '^CONFIG_KPROBE_EVENTS=y' "$obj/.config" &&
			ftrace_expectations "$4" "$(ftrace_reference "$5")"
	} > "$expect"
	echo --expect "$expect"
	for f in arch/x86/kernel/kprobes/kprobes_kunit.c arch/x86/kernel/kprobes/opt_kunit.c \
		 arch/x86/kernel/kprobes/paths_kunit.c \
		 kernel/kprobes/kprobes_kunit.c lib/test_kprobes.c; do
		echo --cases-from "$src/$f"
	done
	if grep -q '^CONFIG_KPROBES_ON_FTRACE=y' "$obj/.config"; then
		echo --cases-from "$src/arch/x86/kernel/kprobes/ftrace_kunit.c"
	fi
}

# Each ftracetest case as upstream's reference run found it
# (ftracetest-upstream.txt, written by make ftrace-reference): a case
# that passed there must pass here; one that was unsupported there may
# skip; one that failed there too is listed as KNOWN.
# ftrace_expectations <all|core> <reference>: of all cases, or only of
# the core's (ftrace-cases.sh), by the description each case file gives.
ftrace_expectations() {
	local result name core= ref=$2
	echo "require ftracetest"
	if [ "$1" = core ]; then
		core=$(for c in $FTRACE_CORE_CASES; do
			sed -n 's/^# description: //p' "$src/tools/testing/selftests/ftrace/$c"
		done)
	fi
	grep -v '^#' "$ref" | while IFS=$'\t' read -r result name; do
		[ -z "$core" ] || grep -qxF "$name" <<<"$core" || continue
		case "$result" in
		PASS|XFAIL) echo "require ftracetest/$name" ;;
		SKIP) echo "skip-ok ftracetest/$name # SKIP on upstream too" ;;
		*) echo "known-fail ftracetest/$name # $result on upstream too" ;;
		esac
	done
	# A core case that upstream's run does not name (renamed since, or a
	# slip in ftrace-cases.sh) is still required, not dropped unseen.
	while read -r name; do
		[ -z "$name" ] || cut -f2 "$ref" | grep -qxF "$name" ||
			echo "require ftracetest/$name"
	done <<<"$core"
}

problems=()
args=()
cpus=${CPUS:-2}
# Seconds of torture test at the end of every boot (0: none); TORTURE_SEED
# replays a run.
TORTURE_DURATION=${TORTURE_DURATION:-30}

# The judge first: ktap.py on consoles whose verdict is known.
if ! python3 "$T/ktap_selftest.py" > "$BUILD/check-judge.log" 2>&1; then
	problems+=(--problem "the judge: ktap_selftest.py failed ($(grep -c '^not ok' "$BUILD/check-judge.log") cases; see $BUILD/check-judge.log)")
fi

# A reference holds our kernel to upstream's results only if they were
# measured as ours are now: with the same fragments, under the same QEMU
# (ftrace-reference.sh records both).
# reference_problem <kernel>
reference_problem() {
	local ref want have
	ref=$(ftrace_reference "$1")
	# shellcheck disable=SC2046
	want="$(fragments_id $(ftrace_reference_configs "$1")) $(qemu_version)"
	have="$(sed -n 's/^# fragments: //p' "$ref" 2>/dev/null) $(sed -n 's/^# qemu: //p' "$ref" 2>/dev/null)"
	[ "$have" = "$want" ] && return
	echo -n "$(basename "$ref") was measured with fragments and QEMU \"$have\", not \"$want\": run make ftrace-reference"
	[ "$1" != clang ] || echo -n " CLANG=1"
	echo
}
for kernel in ${KERNELS:-test}; do
	grep -q '^CONFIG_KPROBE_EVENTS=y' "$(kernel_obj "$kernel")/.config" 2>/dev/null || continue
	why=$(reference_problem "$kernel")
	[ -z "$why" ] || problems+=(--problem "$why")
done
# Debian's perf and bpftrace (about 220 MB with their libraries) go into
# the initramfs of one boot per kernel with BPF events: this mode's.
TOOLS_MODE=${TOOLS_MODE:-full}
# Every ftracetest case runs in the boot with the model upstream's
# reference ran in (ftrace-reference.sh boots the kernel's default,
# preempt=full); the other boots, and a KASAN kernel's, where the whole
# set takes minutes, run the core's cases (ftrace-cases.sh).
FTRACE_ALL_MODE=${FTRACE_ALL_MODE:-full}
for kernel in ${KERNELS:-test}; do
obj=$(kernel_obj "$kernel")
for mode in ${PREEMPT_MODES:-none full}; do
	tools=0
	[ "$mode" = "$TOOLS_MODE" ] && grep -q '^CONFIG_BPF_EVENTS=y' "$obj/.config" && tools=1
	ftrace=core
	[ "$mode" = "$FTRACE_ALL_MODE" ] && ! grep -q '^CONFIG_KASAN=y' "$obj/.config" && ftrace=all
	# shellcheck disable=SC2207
	args+=($(expectations "$obj" "$mode" $tools $ftrace "$kernel"))
	run="$kernel/preempt=$mode"
	log=$obj/check-$mode.log
	rc=0
	if [ "${JUDGE_ONLY:-0}" != 1 ]; then
		# Never judge an old console: remove every trace of the last run first.
		rm -f "$log" "$obj/check-$mode"-*.log "$obj/check-$mode"-*.parsed
		echo "check: booting the $kernel kernel with preempt=$mode (console in $log)"
		start=$(date +%s)
		mem=1024
		[ $tools = 1 ] && mem=2048
		GUEST_TOOLS=$tools MEM=$mem KERNEL=$kernel CPUS=$cpus \
		TIMEOUT=$(( ${TIMEOUT:-900} + TORTURE_DURATION )) \
			"$T/run.sh" check "$log" "preempt=$mode" kpftrace=$ftrace \
			kptorture_duration="$TORTURE_DURATION" kptorture_seed="${TORTURE_SEED:-0}" > /dev/null
		rc=$?
		echo "check: the guest ran for $(( $(date +%s) - start ))s; $(tr -d '\r' < "$log" |
			grep -o 'kprobes_torture: \(SUCCESS\|FAILURE\).*' | head -n1)"
	fi
	if [ $rc -ne 0 ]; then
		problems+=(--problem "$run: the boot failed (run.sh exit status $rc)")
	fi
	if [ ! -s "$log" ]; then
		problems+=(--problem "$run: no console at all")
		touch "$log"
	fi
	if ! grep -q "Dynamic Preempt: $mode" "$log"; then
		problems+=(--problem "$run: the kernel did not switch to it")
	fi
	if ! grep -q "smp: Brought up 1 node, $cpus CPU" "$log"; then
		problems+=(--problem "$run: the guest did not bring up $cpus CPUs")
	fi

	while read -r line; do
		case "$line" in
		problem:*) problems+=(--problem "${line#problem: }") ;;
		*) echo "check: $line" ;;
		esac
	done < <(kunit_parse "$log" "$run" "$obj/check-$mode")
	args+=("$kernel/preempt-$mode=$log")
done
done

# On a kernel with KCSAN, a data race is ours to fix when it names one of
# our functions: those of the core, the x86 code and the test modules.
ours=()
for kernel in ${KERNELS:-test}; do
	obj=$(kernel_obj "$kernel")
	grep -q '^CONFIG_KCSAN=y' "$obj/.config" || continue
	nm --defined-only "$obj"/kernel/kprobes/*.o "$obj"/arch/x86/kernel/kprobes/*.o \
		"$obj"/selftest-modules/*.o 2>/dev/null |
		awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u > "$BUILD/check-ours.txt"
	ours=(--ours "$BUILD/check-ours.txt")
done

python3 "$T/ktap.py" "${args[@]}" "${ours[@]}" "${problems[@]}"
