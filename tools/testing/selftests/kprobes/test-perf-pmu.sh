#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The perf kprobe PMU, the path BCC and libbpf attach through:
# perf_event_open() on the "kprobe" PMU type makes a kprobe (config 0) or
# a kretprobe (config 1) on a function by name; the event counts exactly
# the calls this process makes, a BPF program attached with
# PERF_EVENT_IOC_SET_BPF runs on each, and the probe is gone after close
# (tools/kprobe_pmu.c).  Kernels without the PMU skip (exit 4).

. "$(dirname "$0")/functions.sh"

ktap_print_header
if [ ! -e /sys/bus/event_source/devices/kprobe/type ] ||
   [ ! -x "$(dirname "$0")/kprobe_pmu" ]; then
	ktap_skip_all "no kprobe PMU in this kernel"
	exit 4
fi
ktap_set_plan 8

FORKS=25
for kind in entry ret; do
	arg=
	[ $kind = ret ] && arg=ret
	out=$("$(dirname "$0")/kprobe_pmu" kernel_clone $FORKS $arg 2>&1)
	rc=$?
	[ $rc -eq 0 ] || echo "$out" | sed 's/^/# /'
	val() { echo "$out" | sed -n "s/^$1=//p"; }
	check "$kind: perf_event_open on the kprobe PMU lists the probe" \
		[ $rc -eq 0 -a "$(val listed)" = 1 ]
	check "$kind: the event counts exactly the $FORKS forks ($(val count))" \
		[ "$(val count)" = $FORKS ]
	check "$kind: the BPF program ran on each ($(val bpf))" \
		[ "$(val bpf)" = $FORKS ]
	check "$kind: the probe is gone after close" [ "$(val gone)" = 1 ]
done

ktap_finished
