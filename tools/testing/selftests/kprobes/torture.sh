#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The torture test (kprobes_torture.ko, see its source), run by make
# torture and at the end of every boot of make check (init's run_torture;
# see tools/testing/kprobes/README.md): random
# registration work on both CPUs while readers check every result and CPU 1
# goes offline and online; meanwhile this script loads and unloads
# kprobes_target (which the torture probes) and flips the two knobs,
# debug.kprobes-optimization and debugfs "enabled".  The run must end in
# SUCCESS with calls, hits, refusals and hotplug cycles all counted, and
# leave nothing behind: no probe in the list, both knobs on, CPU 1 online,
# and, on a kernel with kmemleak, no leaked object allocated by Kprobes.
#   KPROBES_TORTURE_DURATION  seconds (default 10; make torture sets it)
#   KPROBES_TORTURE_SEED      replay a run (default: a random seed)

. "$(dirname "$0")/functions.sh"

duration=${KPROBES_TORTURE_DURATION:-10}
seed=${KPROBES_TORTURE_SEED:-0}
CPU1=/sys/devices/system/cpu/cpu1/online
FLIP_GEN=/sys/module/kprobes_torture/parameters/flip_gen

ktap_print_header
ktap_set_plan 17

clear_log
stop=/tmp/torture.stop
rm -f $stop
# kprobes_target comes and goes while the torture probes it.
(
	while [ ! -e $stop ]; do
		insmod "$MODDIR/kprobes_target.ko" 2>/dev/null
		sleep 0.1
		# Its function, probed or not: once while loaded.
		cat /sys/kernel/debug/kprobes_target/call > /dev/null 2>&1
		sleep 0.2
		rmmod kprobes_target 2>/dev/null
		sleep 0.2
	done
) &
loader=$!
(
	flips=0
	# The first flip waits for the module's parameter (see above).
	while [ ! -e $FLIP_GEN ] && [ ! -e $stop ]; do sleep 0.05; done
	while [ ! -e $stop ]; do
		# Off one step in four (optimization) and in three (all
		# probes): on long enough between for the optimizer to finish.
		# flip_gen is odd while the knobs change (the module's checks
		# of armed text hold off then).
		echo $((2 * flips + 1)) > $FLIP_GEN
		[ -e /proc/sys/debug/kprobes-optimization ] &&
			echo $(( flips % 4 != 3 )) > /proc/sys/debug/kprobes-optimization
		echo $(( flips % 3 != 2 )) > $DEBUGFS/enabled
		echo $((2 * flips + 2)) > $FLIP_GEN
		flips=$((flips + 1))
		sleep 0.$((flips % 3 + 1))
	done
	[ -e /proc/sys/debug/kprobes-optimization ] &&
		echo 1 > /proc/sys/debug/kprobes-optimization
	echo 1 > $DEBUGFS/enabled
	echo "# knob flips: $flips"
) &
knobs=$!
insmod "$MODDIR/kprobes_torture.ko" duration="$duration" seed="$seed"
rc=$?
touch $stop
wait $loader $knobs
rmmod kprobes_target 2>/dev/null

dmesg | grep 'kprobes_torture:' > /tmp/torture.log
cat /tmp/torture.log | sed 's/^/# /'
# The module's init returns 0 after a FAILURE too (busybox's insmod would
# load it a second time); the verdict is its log line.
# The value of one counter of the summary: stat <name>
stat() {
	sed -n "s/.* $1=\([0-9-]*\).*/\1/p" /tmp/torture.log | head -n1
}
check "the run ends in SUCCESS" \
	sh -c "grep -o 'kprobes_torture: \(SUCCESS\|FAILURE\)' /tmp/torture.log | head -n1 | grep -q SUCCESS"
# Each run ends with one verdict line; the start of an hour's run may have
# left the kernel's log buffer by then, its end has not.
check "the module ran once (not again after a failure)" \
	[ "$(grep -c 'kprobes_torture: \(SUCCESS\|FAILURE\)' /tmp/torture.log)" = 1 ]
check "and its load returns 0" [ $rc -eq 0 ]
check "the readers made calls, none wrong" \
	sh -c "[ '$(stat calls)' -gt 0 ] && [ '$(stat wrong)' = 0 ]"
check "probes were registered and hit" \
	sh -c "[ '$(stat registered)' -gt 0 ] && [ '$(stat hits)' -gt 0 ]"
if [ -e /proc/sys/debug/kprobes-optimization ]; then
	check "some hits came through a jump (optimized)" [ "$(stat optimized_hits)" -gt 0 ]
else
	ktap_test_skip "some hits came through a jump (optimized)"
fi
# The module checks each of these on every hit; here, that they happened.
check "post_handlers ran on their pre_handler's CPU" [ "$(stat paired)" -gt 0 ]
check "none left out, none alone, no hit between a pair" [ "$(stat unpaired)" = 0 ]
check "disabled probes were silent once their hits were over" [ "$(stat silenced)" -gt 0 ]
check "hits inside handlers were counted in nmissed" [ "$(stat nested_missed)" -gt 0 ]
check "kretprobes and jprobes fired" \
	sh -c "[ '$(stat kretprobe)' -gt 0 ] && [ '$(stat jprobe)' -gt 0 ]"
# x86 answers EILSEQ inside an instruction; arm64 EINVAL for an address
# that is not a word's, as upstream's arm64 code does.
if [ "$(uname -m)" = aarch64 ]; then
	check "places that are not instruction boundaries were refused (EINVAL)" \
		grep -q ' -22:[0-9]' /tmp/torture.log
else
	check "places that are not instruction boundaries were refused (EILSEQ)" \
		grep -q ' -84:[0-9]' /tmp/torture.log
fi
check "CPU 1 went offline and back, and is online" \
	sh -c "[ '$(stat onoff)' -gt 0 ] && [ \"\$(cat $CPU1)\" = 1 ]"
rmmod kprobes_torture 2>/dev/null
check "nothing is left in the list" sh -c "! grep -q . $DEBUGFS/list"
check "both knobs flipped back on" \
	sh -c "[ \"\$(cat $DEBUGFS/enabled)\" = 1 ] &&
	       { [ ! -e /proc/sys/debug/kprobes-optimization ] ||
	         [ \"\$(cat /proc/sys/debug/kprobes-optimization)\" = 1 ]; }"

check "no splat in the kernel log" no_splat

if [ -e /sys/kernel/debug/kmemleak ]; then
	kmemleak_check 'kprobe|kretprobe|jprobe|insn_slot|torture'
else
	ktap_test_skip "kmemleak reports nothing allocated by Kprobes"
fi

ktap_finished
