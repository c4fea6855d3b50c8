#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel once per preemption model (PREEMPT_MODES, default
# "none full": the kernel is PREEMPT_DYNAMIC and takes preempt= at boot),
# collect each console, and judge them: every KTAP document must parse
# with the base tree's kunit.py, and ktap.py prints each case, prefixed
# with its boot, and, last, "N passed, N failed" over both boots.  Exit
# status 0 only when nothing failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=$BUILD/src
T=$top/tools/testing/kprobes
obj=${OBJ:-$BUILD/obj}

# What must report: the static list, every selftest script, and (below,
# --cases-from) every case of the KUnit suites, read from their sources.
expect=$obj/check-expected.txt
{
	cat "$T/expected.txt"
	for t in "$top"/tools/testing/selftests/kprobes/test-*.sh; do
		echo "require $(basename "$t" .sh)"
	done
} > "$expect"
cases=()
for f in arch/x86/kernel/kprobes/kprobes_kunit.c arch/x86/kernel/kprobes/opt_kunit.c \
	 kernel/kprobes/kprobes_kunit.c lib/test_kprobes.c; do
	cases+=(--cases-from "$src/$f")
done

problems=()
runs=()
cpus=${CPUS:-2}
for mode in ${PREEMPT_MODES:-none full}; do
	log=$obj/check-$mode.log
	# Never judge an old console: remove every trace of the last run first.
	rm -f "$log" "$obj/check-$mode"-*.log "$obj/check-$mode"-*.parsed
	echo "check: booting the test kernel with preempt=$mode (console in $log)"
	start=$(date +%s)
	CPUS=$cpus "$T/run.sh" check "$log" "preempt=$mode" > /dev/null
	rc=$?
	echo "check: the guest ran for $(( $(date +%s) - start ))s"
	if [ $rc -ne 0 ]; then
		problems+=(--problem "preempt=$mode: the boot failed (run.sh exit status $rc)")
	fi
	if [ ! -s "$log" ]; then
		problems+=(--problem "preempt=$mode: no console at all")
		touch "$log"
	fi
	if ! grep -q "Dynamic Preempt: $mode" "$log"; then
		problems+=(--problem "preempt=$mode: the kernel did not switch to it")
	fi
	if ! grep -q "smp: Brought up 1 node, $cpus CPU" "$log"; then
		problems+=(--problem "preempt=$mode: the guest did not bring up $cpus CPUs")
	fi

	# The boot-time KUnit document, and the selftests' document after /init.
	sed '/Run \/init as init process/,$d' "$log" > "$obj/check-$mode-kunit.log"
	sed -n '/Run \/init as init process/,$p' "$log" > "$obj/check-$mode-selftests.log"
	for part in kunit selftests; do
		out=$obj/check-$mode-$part.parsed
		if python3 "$src/tools/testing/kunit/kunit.py" parse \
			"$obj/check-$mode-$part.log" > "$out" 2>&1; then
			echo "check: kunit.py parse (preempt=$mode, $part): $(tail -n1 "$out" | sed 's/^\[[0-9:]*\] //')"
		else
			problems+=(--problem "kunit.py parse (preempt=$mode, $part) failed: $(tail -n1 "$out" | sed 's/^\[[0-9:]*\] //')")
		fi
	done
	runs+=("preempt-$mode=$log")
done

python3 "$T/ktap.py" "${runs[@]}" --expect "$expect" "${cases[@]}" "${problems[@]}"
