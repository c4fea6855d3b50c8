# SPDX-License-Identifier: GPL-2.0
#
# Upstream's ftrace selftests that make check runs, as paths under
# tools/testing/selftests/ftrace/ (sourced by mkinitramfs.sh and
# arch-boot.sh, which pack them, and check.sh, which expects their
# results):
#   FTRACE_CASES       the kprobe cases: test.d/kprobe/ and the kprobe
#                      cases of test.d/dynevent/.  ftracetest-upstream.txt
#                      has upstream's result for each.
#   FTRACE_CORE_CASES  of those, the ones that reach the Kprobes core in a
#                      way of their own: adding and removing, a busy
#                      event, the function tracer, every instruction
#                      boundary of a function, a module, multiprobes,
#                      optimized probes, kretprobes, probe points, hit
#                      counts and many events at once.  Left out: the
#                      cases of trace_kprobe's argument fetching, naming
#                      and error log, upstream's code that our series does
#                      not change, which run in the boot of the model
#                      upstream's reference ran in (check.sh).
FTRACE_CASES="test.d/kprobe test.d/dynevent/add_remove_kprobe.tc
	test.d/dynevent/clear_select_events.tc test.d/dynevent/generic_clear_event.tc"
FTRACE_CORE_CASES="test.d/kprobe/add_and_remove.tc test.d/kprobe/busy_check.tc
	test.d/kprobe/kprobe_ftrace.tc test.d/kprobe/kprobe_insn_boundary.tc
	test.d/kprobe/kprobe_module.tc test.d/kprobe/kprobe_multiprobe.tc
	test.d/kprobe/kprobe_opt_types.tc test.d/kprobe/kretprobe_args.tc
	test.d/kprobe/kretprobe_entry_arg.tc test.d/kprobe/multiple_kprobes.tc
	test.d/kprobe/probepoint.tc test.d/kprobe/profile.tc
	test.d/dynevent/add_remove_kprobe.tc"

# ftrace_cases_pack <tree> <root>: ftracetest, its functions and the cases
# above, from the tree's selftests, into <root>/kselftest/ftrace, with the
# two lists (cases, cases-core) the guests' /init reads.
ftrace_cases_pack() {
	local ft=$1/tools/testing/selftests/ftrace dst=$2/kselftest/ftrace c
	mkdir -p "$dst/test.d/dynevent"
	cp "$ft/ftracetest" "$dst/"
	cp "$ft/test.d/functions" "$dst/test.d/"
	for c in $FTRACE_CASES; do
		cp -r "$ft/$c" "$dst/$c"
	done
	echo $FTRACE_CASES > "$dst/cases"
	echo $FTRACE_CORE_CASES > "$dst/cases-core"
}
