#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Jump optimization as the list shows it: a probe with only a pre_handler
# turns [OPTIMIZED] by itself; debug.kprobes-optimization = 0 takes the
# flag away before the write returns, 1 brings it back; so do debugfs'
# enabled 0 and 1.  A post_handler probe at the same place keeps it away.
# (The list shows [OPTIMIZED] once the optimizer has taken the site, as
# upstream's does; that the jmp then goes in, and hits take no trap, is
# the KUnit suite kprobes_optimization's to show.)

. "$(dirname "$0")/functions.sh"

OPT=/proc/sys/debug/kprobes-optimization
SYM=int_sqrt

ktap_print_header
ktap_set_plan 11

# optimized: the probe's list line ends in [OPTIMIZED].
optimized() {
	grep " $SYM+0x[0-9a-f]*" $DEBUGFS/list | grep -q '\[OPTIMIZED\]$'
}

# not_optimized: the probe is listed, and not [OPTIMIZED].
not_optimized() {
	grep -q " $SYM+0x[0-9a-f]*" $DEBUGFS/list && ! optimized
}

# settles_optimized: it does within two seconds (the optimizer is delayed).
settles_optimized() {
	i=0
	while [ $i -lt 20 ]; do
		optimized && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

check "a pre_handler-only probe" \
	insmod "$MODDIR/kprobes_target.ko" probe_sym=$SYM
check "turns OPTIMIZED" settles_optimized
check "its slot page is named in /proc/kallsyms" \
	grep -qE ' t kprobe_insn_page[[:space:]]+\[__builtin__kprobes\]' /proc/kallsyms
echo 0 > $OPT
check "sysctl 0: not OPTIMIZED once the write returns" not_optimized
sleep 0.3
check "sysctl 0: stays so" not_optimized
echo 1 > $OPT
check "sysctl 1: OPTIMIZED again" settles_optimized
echo 0 > $DEBUGFS/enabled
check "enabled 0: not OPTIMIZED" not_optimized
echo 1 > $DEBUGFS/enabled
check "enabled 1: OPTIMIZED again" settles_optimized
# At the same place: past the fentry call on a kernel with ftrace.
off=$(grep -o " $SYM+0x[0-9a-f]*" $DEBUGFS/list | head -n1 | sed 's/.*+//')
insmod "$MODDIR/kprobe_example.ko" symbol=$SYM offset=$((off))
check "a post_handler probe joins: not OPTIMIZED" not_optimized
rmmod kprobe_example
check "it leaves: OPTIMIZED again" settles_optimized
check "unload" rmmod kprobes_target

ktap_finished
