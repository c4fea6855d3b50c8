#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel, collect the console, and judge it: every KTAP
# document must parse with the base tree's kunit.py, and ktap.py prints
# each case and, last, "N passed, N failed".  Exit status 0 only when
# nothing failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=$BUILD/src
T=$top/tools/testing/kprobes
obj=${OBJ:-$BUILD/obj}
log=$obj/check.log

echo "check: booting the test kernel (console in $log)"
start=$(date +%s)
"$T/run.sh" check "$log" > /dev/null
echo "check: the guest ran for $(( $(date +%s) - start ))s"

# The boot-time KUnit document, and the selftests' document after /init.
sed '/Run \/init as init process/,$d' "$log" > "$obj/check-kunit.log"
sed -n '/Run \/init as init process/,$p' "$log" > "$obj/check-selftests.log"

problems=()
for part in kunit selftests; do
	out=$obj/check-$part.parsed
	if python3 "$src/tools/testing/kunit/kunit.py" parse \
		"$obj/check-$part.log" > "$out" 2>&1; then
		echo "check: kunit.py parse ($part): $(tail -n1 "$out" | sed 's/^\[[0-9:]*\] //')"
	else
		problems+=(--problem "kunit.py parse ($part) failed: $(tail -n1 "$out" | sed 's/^\[[0-9:]*\] //')")
	fi
done

python3 "$T/ktap.py" "$log" --expect "$T/expected.txt" "${problems[@]}"
