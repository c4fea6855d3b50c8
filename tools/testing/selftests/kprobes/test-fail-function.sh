#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Error injection through Kprobes: /sys/kernel/debug/fail_function puts a
# probe at the entry of a function open to error injection, and its
# pre_handler makes the function return the injected error at once.  The
# caller must see it: through ftrace at a traced entry, through the int3
# path at a notrace one (whose entry is never optimized: the detour could
# not leave the function).  Kernels without fail_function skip (exit 4).
#
# With lockdep proving locks, the notrace function is probed but not
# called: fail_function's should_fail() draws a random number under a
# local lock, and lockdep reports any local lock taken in int3's NMI
# context (exc_int3 enters the kernel as an NMI), on upstream's Kprobes
# as on ours.  Those two cases report SKIP there.

. "$(dirname "$0")/functions.sh"

FF=/sys/kernel/debug/fail_function
T=/sys/kernel/debug/kprobes_target

ktap_print_header
if [ ! -d $FF ]; then
	ktap_skip_all "no fail_function in this kernel"
	exit 4
fi
ktap_set_plan 10

insmod "$MODDIR/kprobes_target.ko"

inject() {	# inject <function> <errno>
	echo "$1" > $FF/inject &&
		printf %#x "$2" > "$FF/$1/retval" &&
		echo 100 > $FF/probability && echo 1 > $FF/interval &&
		echo -1 > $FF/times && echo 0 > $FF/space &&
		echo N > $FF/task-filter && echo 0 > $FF/verbose
}
uninject() {
	echo "!$1" > $FF/inject
}

# A traced function: the probe goes through ftrace.
check "may_fail returns 0 before" [ "$(cat $T/may_fail)" = 0 ]
check "fail_function takes kprobes_target_may_fail, -ENOMEM" \
	inject kprobes_target_may_fail -12
check "its probe is in the list at the entry, through ftrace if traced" \
	grep -qE "  k  kprobes_target_may_fail\+0x[04]  kprobes_target $ENTRY_STATE\$" $DEBUGFS/list
check "the caller sees -12" [ "$(cat $T/may_fail)" = -12 ]
uninject kprobes_target_may_fail
check "uninjected, it returns 0 again" [ "$(cat $T/may_fail)" = 0 ]

# A notrace function: an int3 probe, which must stay one.
check "fail_function takes kprobes_target_may_fail_notrace, -EIO" \
	inject kprobes_target_may_fail_notrace -5
sleep 1
check "its probe is not on ftrace, and not optimized after a second" \
	sh -c "grep '  k  kprobes_target_may_fail_notrace+0x' $DEBUGFS/list |
	       grep -qvE 'OPTIMIZED|FTRACE'"
if [ -e /proc/lockdep ]; then
	skip "the caller sees -5" "lockdep: a local lock in NMI context"
	skip "and again (not a one-off)" "lockdep: a local lock in NMI context"
else
	check "the caller sees -5" [ "$(cat $T/may_fail_notrace)" = -5 ]
	check "and again (not a one-off)" [ "$(cat $T/may_fail_notrace)" = -5 ]
fi
uninject kprobes_target_may_fail_notrace
rmmod kprobes_target
check "all undone: nothing left in the list" \
	sh -c "! grep -q kprobes_target_may_fail $DEBUGFS/list"

ktap_finished
