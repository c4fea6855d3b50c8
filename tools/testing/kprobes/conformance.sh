#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make conformance: our core beside pristine upstream, built from the same
# base with the same fragments (our own KUnit suite's option aside, which
# upstream lacks), for each kernel of CONF_KERNELS (default: test
# tracing).  Each boots once with kptest=conformance, which runs
# selftests/kprobes/conformance.sh and its module; conformance.py then
# compares the two consoles: errnos, handler context, pairing, nmissed,
# the debugfs files and knobs, the blacklist, and acceptance at every
# instruction boundary of CONF_FUNCTIONS (default 1,000) core functions
# of every size.  The test kernel boots with its default preemption
# (full), the tracing kernel with preempt=none: both models are seen.
# Ours are make check's kernels (built here if missing); upstream's go to
# build/obj-upstream-conf and build/obj-upstream-conf-tracing
# (CONF_BUILD_ONLY=1 builds only those, as .ci/run does beside other
# work).  Results, consoles and the places tried are in build/conformance/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
T=$top/tools/testing/kprobes
. "$T/kernels.sh"
upsrc=$(pristine_tree)
out=$BUILD/conformance
mkdir -p "$out"
mods=$top/tools/testing/selftests/kprobes/test_modules
# Upstream's kernels take the same fragments, without our KUnit suite.
grep -v '^CONFIG_KPROBES_KUNIT_TEST=' "$top/configs/kunit.config" > "$out/kunit-upstream.config"

st=0
for kernel in ${CONF_KERNELS:-test tracing}; do
	ours=$(kernel_obj "$kernel")
	case "$kernel" in
	test)    up=$BUILD/obj-upstream-conf extra=; args= ;;
	tracing) up=$BUILD/obj-upstream-conf-tracing extra=$top/configs/tracing.config
		 args=preempt=none ;;
	*) echo "conformance: CONF_KERNELS are test and tracing" >&2; exit 1 ;;
	esac
	echo "conformance: building upstream's $kernel kernel ($up)"
	SRC=$upsrc OBJ=$up CONFIGS=test EXTRA_CONFIGS="$out/kunit-upstream.config $extra" \
		MODULES=kprobes_conformance.o MODSRC=$mods \
		"$T/build.sh" > "$out/build-upstream-$kernel.log" 2>&1 ||
		{ tail -n 20 "$out/build-upstream-$kernel.log" >&2; exit 1; }
	[ "${CONF_BUILD_ONLY:-0}" = 1 ] && continue
	echo "conformance: building our $kernel kernel ($ours)"
	KERNEL=$kernel MODSRC=$mods "$T/build.sh" > "$out/build-ours-$kernel.log" 2>&1 ||
		{ tail -n 20 "$out/build-ours-$kernel.log" >&2; exit 1; }
	python3 "$T/conformance_places.py" "$ours" "$up" "${CONF_FUNCTIONS:-1000}" \
		> "$out/places-$kernel.txt"
	for who in ours upstream; do
		if [ $who = ours ]; then obj=$ours src=$BUILD/src; else obj=$up src=$upsrc; fi
		echo "conformance: booting $who ($kernel)"
		SRC=$src OBJ=$obj SCRIPTS=$top/tools/testing/selftests/kprobes \
			EXTRA_FILES="$out/places-$kernel.txt:kselftest/kprobes/kpconf-places" \
			TIMEOUT=${CONF_TIMEOUT:-1500} "$T/run.sh" conformance "$out/$kernel-$who.log" \
			kunit.enable=0 log_buf_len=8M $args > /dev/null || true
	done
	python3 "$T/conformance.py" "$kernel" "$top/Documentation/trace/kprobes.rst" \
		"$out/$kernel-ours.log" "$ours" \
		"$out/$kernel-upstream.log" "$up" | tee "$out/$kernel.txt" || st=1
done
exit $st
