#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What `make` shows, in one screen: the three samples firing, kprobe
# events read through trace_pipe, the probe list with a probe at a
# function's entry ([FTRACE]) and one reached through a jump
# ([OPTIMIZED]), and the knob that turns the jumps back into int3s.
# Each step says what it shows.  On a kernel without ftrace or kprobe
# events (the test kernel) the steps that need them say so.

MODDIR=${KPROBES_MODDIR:-/lib/modules/kprobes}
DEBUGFS=/sys/kernel/debug/kprobes
TRACEFS=/sys/kernel/debug/tracing
SYSCTL=/proc/sys/debug/kprobes-optimization

step() {
	echo
	echo "### $*"
}

forks() {
	i=0
	while [ "$i" -lt "$1" ]; do
		/bin/true & wait
		i=$((i + 1))
	done
}

# The first instruction after @1's fentry call: a probe there is no
# ftrace probe, and a pre_handler-only one gets a jump.  Prints the
# offset, or nothing on a kernel without ftrace.
past_fentry() {
	local base fentry

	base=$(grep " [tT] $1\$" /proc/kallsyms | head -n1 | cut -d' ' -f1)
	fentry=$(grep " $1\$" $TRACEFS/available_filter_functions_addrs 2>/dev/null |
		 head -n1 | cut -d' ' -f1)
	[ -n "$base" ] && [ -n "$fentry" ] && echo $((0x$fentry - 0x$base + 5))
}

dmesg -c > /dev/null
step "1. A kprobe (samples/kprobes/kprobe_example.ko) on kernel_clone(), and a fork:"
echo "    its pre_handler (ip just past the probe), its post_handler (ip at the next instruction)"
insmod "$MODDIR/kprobe_example.ko"
forks 1
dmesg -c | grep -E "planted|handler" | head -n 3

off=$(past_fentry int_sqrt)
if [ -e $TRACEFS/kprobe_events ] && [ -n "$off" ]; then
	step "2. Kprobe events, as perf probe makes them, read through trace_pipe:"
	echo "    kernel_clone's entry and return (and int_sqrt+$off, for step 5)"
	echo "p:demo/clone kernel_clone" >> $TRACEFS/kprobe_events
	echo 'r:demo/clone_ret kernel_clone ret=$retval' >> $TRACEFS/kprobe_events
	echo "p:demo/sqrt int_sqrt+$off x=%di" >> $TRACEFS/kprobe_events
	echo 1 > $TRACEFS/events/demo/enable
	forks 1
	(timeout 2 cat $TRACEFS/trace_pipe | grep -v int_sqrt | head -n 2) 2> /dev/null
	# Only int_sqrt's stays (step 5).
	echo 0 > $TRACEFS/events/demo/clone/enable
	echo 0 > $TRACEFS/events/demo/clone_ret/enable
	echo "-:demo/clone" >> $TRACEFS/kprobe_events
	echo "-:demo/clone_ret" >> $TRACEFS/kprobe_events
else
	step "2. (no kprobe events or no ftrace in this kernel:"
	echo "    make boots the tracing kernel for them)"
	insmod "$MODDIR/kprobes_target.ko" probe_sym=int_sqrt
fi

step "3. A kretprobe (kretprobe_example.ko):"
echo "    kernel_clone()'s return value (the child's pid), its time"
insmod "$MODDIR/kretprobe_example.ko"
forks 1
dmesg -c | grep -E "returned"

step "4. A jprobe (jprobe_example.ko; upstream removed jprobes in 4.15): kernel_clone()'s arguments"
insmod "$MODDIR/jprobe_example.ko"
forks 1
dmesg -c | grep -E "jprobe"

step "5. /sys/kernel/debug/kprobes/list (k kprobe, r kretprobe, j jprobe): [FTRACE] where a probe"
echo "    rides the function's fentry call, [OPTIMIZED] where a jmp to a detour replaced its int3"
cat $DEBUGFS/list

step "6. echo 0 > $SYSCTL: the jump goes back to an int3"
echo 0 > $SYSCTL
grep -E "int_sqrt" $DEBUGFS/list
echo 1 > $SYSCTL

# Everything goes again.
if [ -e $TRACEFS/events/demo/enable ]; then
	echo 0 > $TRACEFS/events/demo/enable
	echo > $TRACEFS/kprobe_events
fi
rmmod kprobes_target 2> /dev/null
rmmod kprobe_example kretprobe_example jprobe_example
dmesg -c > /dev/null
