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

problems=()
runs=()
for mode in ${PREEMPT_MODES:-none full}; do
	log=$obj/check-$mode.log
	echo "check: booting the test kernel with preempt=$mode (console in $log)"
	start=$(date +%s)
	"$T/run.sh" check "$log" "preempt=$mode" > /dev/null
	echo "check: the guest ran for $(( $(date +%s) - start ))s"
	if ! grep -q "Dynamic Preempt: $mode" "$log"; then
		problems+=(--problem "preempt=$mode: the kernel did not switch to it")
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

python3 "$T/ktap.py" "${runs[@]}" --expect "$T/expected.txt" "${problems[@]}"
