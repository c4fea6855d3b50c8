# SPDX-License-Identifier: GPL-2.0
#
# What check.sh and arch-boot.sh both ask of a console before ktap.py
# judges its cases (sourced; $src is the assembled tree).
#
# kunit_parse <console> <label> <file prefix>: the boot-time KUnit
# document and the /init's document, each without the kernel's own
# messages that the console puts between their lines ("input: AT
# Translated Set 2 keyboard" between a plan and its first subtest made
# kunit.py report crashed tests), must each parse with the base tree's
# kunit.py.  KTAP lines begin with blank, '#', KTAP, TAP, 1.., ok or not
# ok.  kunit.py also fails a document with a failed case: that is
# ktap.py's to judge (an ftracetest case that fails on upstream too is
# KNOWN there); only a document it could not read, or one with a crashed
# test, is a problem here.  Prints what it found, one line per document;
# a problem's line begins with "problem: ".
kunit_parse() {
	local log=$1 label=$2 prefix=$3 part out last
	local ktap_only='/^\r\{0,1\}$\|^[ \t#]\|^K\{0,1\}TAP version\|^1\.\.\|^ok \|^not ok /p'
	sed '/Run \/init as init process/,$d' "$log" | tr -d '\r\0' | sed -n "$ktap_only" \
		> "$prefix-kunit.log"
	sed -n '/Run \/init as init process/,$p' "$log" | tr -d '\r\0' | sed -n "$ktap_only" \
		> "$prefix-selftests.log"
	for part in kunit selftests; do
		out=$prefix-$part.parsed
		if python3 "$src/tools/testing/kunit/kunit.py" parse "$prefix-$part.log" > "$out" 2>&1 ||
		   { last=$(grep 'Testing complete' "$out" | tail -n1) && [ -n "$last" ] &&
		     ! grep -qE 'crashed|errors' <<<"$last"; }; then
			echo "kunit.py parse ($label, $part): $(grep 'Testing complete' "$out" | tail -n1 | sed 's/^\[[0-9:]*\] //')"
		else
			echo "problem: kunit.py parse ($label, $part) failed: $(tail -n1 "$out" | sed 's/^\[[0-9:]*\] //')"
		fi
	done
}
