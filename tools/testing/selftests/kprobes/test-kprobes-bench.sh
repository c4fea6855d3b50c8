#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark module must keep building and running: every case once,
# with tiny counts, no timing asserted.

. "$(dirname "$0")/functions.sh"

ktap_print_header
ktap_set_plan 4

sh ./bench.sh candidates /tmp/kpb-cand
head -n 40 /tmp/kpb-cand > /tmp/kpb-cand40
sh ./bench.sh accept /tmp/kpb-cand40 /tmp/kpb-acc
check "some candidate functions can be probed" [ -s /tmp/kpb-acc ]

# The same 40 stand in for the list of every function; one run of each
# median is enough to see a figure.
KPBENCH_QUICK=1 sh ./bench.sh run /tmp/kpb-acc /tmp/kpb-acc 100 > /tmp/kpb-out
# figure <case>: the case has a number, not "n/a" (a difference of two
# timings, as the workload's, can be negative without icount).
figure() {
	grep -qE "^$1 -?[0-9.]+ ns" /tmp/kpb-out
}
missing=
for c in kprobe kprobe_mid kprobe_int3 kprobe_post two_kprobes kretprobe kretprobe_int3 \
	 jprobe time_to_optimized time_to_optimized_after_removal time_to_optimized_reregistered \
	 batch_register_[0-9]* batch_unregister_[0-9]* \
	 single_register_[0-9]* single_unregister_[0-9]* \
	 every_function_register_[0-9]* every_function_optimized_[0-9]* \
	 every_function_unregister_[0-9]* every_function_workload; do
	figure "$c" || missing="$missing $c"
done
for c in batch_1000_bytes_per_probe every_function_bytes_per_probe; do
	grep -qE "^$c -?[0-9]+ bytes" /tmp/kpb-out || missing="$missing $c"
done
grep -qE "^every_function_hits [1-9][0-9]* hits" /tmp/kpb-out ||
	missing="$missing every_function_hits"
# A kprobe event needs a kernel with kprobe events.
if [ -e /sys/kernel/debug/tracing/kprobe_events ]; then
	figure kprobe_event || missing="$missing kprobe_event"
fi
# The floors of an entry probe need ftrace (and direct calls) built in.
grep -qE "^ftrace_ops_floor (-?[0-9.]+ ns|n/a no dynamic ftrace)" /tmp/kpb-out ||
	missing="$missing ftrace_ops_floor"
grep -qE "^direct_call_floor (-?[0-9.]+ ns|n/a no direct calls)" /tmp/kpb-out ||
	missing="$missing direct_call_floor"
grep -qE "^direct_call_kprobe_floor (-?[0-9.]+ ns|n/a no direct calls)" /tmp/kpb-out ||
	missing="$missing direct_call_kprobe_floor"
check "every case has a figure${missing:+ (missing:$missing)}" [ -z "$missing" ]
# Without icount a hit's figure is a difference of two short timings and
# can come out below zero; what must be there is the figure with the traps
# the probe takes, as the table prints it.
check "per-hit figures for kprobes" grep -qE "^kprobe -?[0-9]+\.[0-9] ns traps=[0-3] " /tmp/kpb-out
check "registration figures" grep -q "^batch_register_[0-9]* [0-9]" /tmp/kpb-out
cat /tmp/kpb-out | sed 's/^/# /'

ktap_finished
