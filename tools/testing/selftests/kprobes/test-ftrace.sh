#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Probes at a function's entry share the function with ftrace: a kprobe
# event there goes through ftrace ([FTRACE] in the list), and the function
# tracer, function_graph and a livepatch work on the same function in
# either order of arming, each counting its own hits, with no WARNING and
# ftrace still alive at the end.  Kernels without the function tracer
# skip the whole script (exit 4).

. "$(dirname "$0")/functions.sh"

ktap_print_header
TR=/sys/kernel/tracing
[ -e "$TR/available_tracers" ] || mount -t tracefs tracefs "$TR" 2>/dev/null
if ! grep -qw function "$TR/available_tracers" 2>/dev/null; then
	ktap_skip_all "no function tracer in this kernel"
	exit 4
fi
ktap_set_plan 45

FORKS=20
forks() {
	i=0
	while [ $i -lt $FORKS ]; do
		/bin/busybox true
		i=$((i + 1))
	done
}

# hits <event>: the event's hit count from kprobe_profile.
hits() {
	awk -v e="$1" '$1 == e { print $2 }' "$TR/kprobe_profile"
}

# traced <function>: lines of the trace buffer that name the function.
traced() {
	grep -c "$1" "$TR/trace"
}

# graphed <function>: calls function_graph saw return: "name();" when
# nothing came between entry and return, else the closing "} /* name */"
# (funcgraph-tail) after other events (a kprobe event's line).
graphed() {
	grep -cE "$1\(\);|\} /\* $1 \*/" "$TR/trace"
}

probe_on() {
	echo "$1" >> "$TR/kprobe_events" &&
		echo 1 > "$TR/events/kprobes/$2/enable"
}

probe_off() {
	echo 0 > "$TR/events/kprobes/$1/enable" &&
		echo "-:$1" >> "$TR/kprobe_events"
}

tracer_on() {	# tracer_on <tracer> <function>
	echo 1 > "$TR/options/funcgraph-tail" 2>/dev/null
	echo "$2" > "$TR/set_ftrace_filter" &&
		echo > "$TR/trace" &&
		echo "$1" > "$TR/current_tracer"
}

tracer_off() {
	echo nop > "$TR/current_tracer" && echo > "$TR/set_ftrace_filter"
}

clear_log

# A kprobe at kernel_clone's entry is reached through ftrace.
check "p:kpt_clone kernel_clone is accepted" \
	probe_on "p:kpt_clone kernel_clone" kpt_clone
check "the list shows it [FTRACE], not optimized" \
	sh -c "grep 'kernel_clone+0x' $DEBUGFS/list | grep -F '[FTRACE]' | grep -vq OPTIMIZED"
h0=$(hits kpt_clone)
forks
h1=$(hits kpt_clone)
check "it counts every fork ($h0 -> $h1)" [ $((h1 - h0)) -ge $FORKS ]

# Order 1: the probe first, then the function tracer on the same function.
check "function tracer on kernel_clone after the probe" \
	tracer_on function kernel_clone
forks
h2=$(hits kpt_clone)
t=$(traced kernel_clone)
check "the tracer sees every fork ($t lines)" [ "$t" -ge $FORKS ]
check "the probe still counts them ($h1 -> $h2)" [ $((h2 - h1)) -ge $FORKS ]
check "the probe goes while the tracer stays" probe_off kpt_clone
echo > "$TR/trace"
forks
t=$(traced kernel_clone)
check "the tracer still works after the probe went ($t lines)" [ "$t" -ge $FORKS ]
check "the tracer goes" tracer_off

# Order 2: the function tracer first, then the probe.
check "function tracer on kernel_clone before the probe" \
	tracer_on function kernel_clone
check "p:kpt_clone kernel_clone joins it" \
	probe_on "p:kpt_clone kernel_clone" kpt_clone
h0=$(hits kpt_clone)
forks
h1=$(hits kpt_clone)
t=$(traced kernel_clone)
check "the tracer sees every fork ($t lines)" [ "$t" -ge $FORKS ]
check "the probe counts every fork ($h0 -> $h1)" [ $((h1 - h0)) -ge $FORKS ]
check "the tracer goes while the probe stays" tracer_off
forks
h2=$(hits kpt_clone)
check "the probe still counts after the tracer went ($h1 -> $h2)" \
	[ $((h2 - h1)) -ge $FORKS ]
check "the probe goes" probe_off kpt_clone

# An fprobe (an fprobe event) and a kprobe event on one function, both
# orders, each counting its hits, either one staying when the other goes.
fp_on() {
	echo 'f:kpt_fp kernel_clone' >> "$TR/dynamic_events" &&
		echo 1 > "$TR/events/fprobes/kpt_fp/enable"
}
fp_off() {
	echo 0 > "$TR/events/fprobes/kpt_fp/enable" &&
		echo '-:fprobes/kpt_fp' >> "$TR/dynamic_events"
}
fp_hits() {
	grep -c "kpt_fp:" "$TR/trace"
}
echo > "$TR/trace"
check "an fprobe event on kernel_clone" fp_on
check "p:kpt_clone kernel_clone joins it" \
	probe_on "p:kpt_clone kernel_clone" kpt_clone
h0=$(hits kpt_clone)
forks
h1=$(hits kpt_clone)
f=$(fp_hits)
check "both count every fork (fprobe $f, kprobe $h0 -> $h1)" \
	[ "$f" -ge $FORKS -a $((h1 - h0)) -ge $FORKS ]
probe_off kpt_clone
echo > "$TR/trace"
forks
f=$(fp_hits)
check "the fprobe still counts after the kprobe went ($f)" [ "$f" -ge $FORKS ]
fp_off
check "p:kpt_clone kernel_clone first" \
	probe_on "p:kpt_clone kernel_clone" kpt_clone
check "an fprobe event on kernel_clone joins it" fp_on
echo > "$TR/trace"
h0=$(hits kpt_clone)
forks
h1=$(hits kpt_clone)
f=$(fp_hits)
check "both count every fork (fprobe $f, kprobe $h0 -> $h1)" \
	[ "$f" -ge $FORKS -a $((h1 - h0)) -ge $FORKS ]
fp_off
h0=$(hits kpt_clone)
forks
h1=$(hits kpt_clone)
check "the kprobe still counts after the fprobe went ($h0 -> $h1)" \
	[ $((h1 - h0)) -ge $FORKS ]
probe_off kpt_clone

# function_graph and a return probe on the same entry, both orders.
check "r:kpt_clone_ret kernel_clone, then function_graph" \
	probe_on 'r:kpt_clone_ret kernel_clone ret=$retval' kpt_clone_ret
tracer_on function_graph kernel_clone
h0=$(hits kpt_clone_ret)
echo > "$TR/trace"
forks
h1=$(hits kpt_clone_ret)
t=$(graphed kernel_clone)
check "function_graph sees every fork return ($t)" [ "$t" -ge $FORKS ]
check "the return probe fires on every return ($h0 -> $h1)" \
	[ $((h1 - h0)) -ge $FORKS ]
# (In hex, or in decimal where BTF types $retval as the function's pid_t.)
check "the return values are pids" \
	sh -c "grep 'kpt_clone_ret:' $TR/trace | grep -qE 'ret=(0x[1-9a-f]|[1-9])'"
tracer_off
probe_off kpt_clone_ret

# A jprobe and function_graph on one entry, both orders: the jprobe's
# handler runs in the function's place, and function_graph's hook of the
# return must survive it.
jhits() {
	log_count "jprobe: kernel_clone("
}
check "jprobe_example on kernel_clone, then function_graph" \
	sh -c "insmod $MODDIR/jprobe_example.ko && grep -q '  j  kernel_clone+.*\[FTRACE\]' $DEBUGFS/list"
tracer_on function_graph kernel_clone
j0=$(jhits)
forks
j1=$(jhits)
t=$(graphed kernel_clone)
check "both see every fork (jprobe $j0 -> $j1, graph $t returns)" \
	[ $((j1 - j0)) -ge $FORKS -a "$t" -ge $FORKS ]
rmmod jprobe_example
tracer_off
tracer_on function_graph kernel_clone
check "function_graph on kernel_clone, then jprobe_example" \
	insmod $MODDIR/jprobe_example.ko
j0=$(jhits)
forks
j1=$(jhits)
t=$(graphed kernel_clone)
check "both see every fork (jprobe $j0 -> $j1, graph $t returns)" \
	[ $((j1 - j0)) -ge $FORKS -a "$t" -ge $FORKS ]
rmmod jprobe_example
tracer_off

# A livepatch of cmdline_proc_show() and a probe on it, both orders.
LP=$MODDIR/livepatch-sample.ko
lp_off() {
	echo 0 > /sys/kernel/livepatch/livepatch_sample/enabled || return 1
	waited=0
	while [ -d /sys/kernel/livepatch/livepatch_sample ] &&
	      [ "$(cat /sys/kernel/livepatch/livepatch_sample/transition 2>/dev/null)" = 1 ]; do
		waited=$((waited + 1))
		[ $waited -gt 300 ] && return 1
		sleep 0.1
	done
	rmmod livepatch_sample
}
patched() {
	grep -q "this has been live patched" /proc/cmdline
}
cmdline_hits() {	# cat /proc/cmdline 5 times; the probe's new hits
	a=$(hits kpt_cmdline)
	for i in 1 2 3 4 5; do cat /proc/cmdline > /dev/null; done
	echo $(( $(hits kpt_cmdline) - a ))
}
check "p:kpt_cmdline cmdline_proc_show, then the livepatch sample" \
	sh -c "echo 'p:kpt_cmdline cmdline_proc_show' >> $TR/kprobe_events &&
	       echo 1 > $TR/events/kprobes/kpt_cmdline/enable && insmod $LP"
check "the function is patched" patched
n=$(cmdline_hits)
check "the probe counts the patched calls ($n)" [ "$n" -ge 5 ]
check "the livepatch goes, the probe stays" lp_off
n=$(cmdline_hits)
check "the probe counts the original calls ($n)" \
	sh -c "[ $n -ge 5 ] && ! grep -q 'live patched' /proc/cmdline"
check "the livepatch sample again, over the probed function" \
	sh -c "insmod $LP && grep -q 'live patched' /proc/cmdline"
probe_off kpt_cmdline
check "a probe added under the live patch counts, the patch holds" \
	sh -c "echo 'p:kpt_cmdline cmdline_proc_show' >> $TR/kprobe_events &&
	       echo 1 > $TR/events/kprobes/kpt_cmdline/enable &&
	       grep -q 'live patched' /proc/cmdline"
n=$(cmdline_hits)
probe_off kpt_cmdline
lp_off
check "the probe under the patch counted ($n), all is undone" \
	sh -c "[ $n -ge 5 ] && ! grep -q 'live patched' /proc/cmdline &&
	       ! grep -q cmdline_proc_show $DEBUGFS/list"

# The same two orders with the other CPU reading /proc/cmdline all along:
# the livepatch comes over the probe, or leaves it, and every read is one
# hit of the probe (each call of the function runs it once, whichever way
# ftrace reaches it meanwhile).  Alone on the function, the probe is
# reached through its direct call where the kernel has them.
echo 'p:kpt_cmdline cmdline_proc_show' >> $TR/kprobe_events
echo 1 > $TR/events/kprobes/kpt_cmdline/enable
direct=
grep -A1 '^cmdline_proc_show' $TR/enabled_functions | grep -q 'direct-->kprobe_ftrace_direct_tramp' &&
	direct=", called directly"
h0=$(hits kpt_cmdline)
cmdline_reads_start
insmod $LP
r=$(cmdline_reads_stop)
h1=$(hits kpt_cmdline)
check "the livepatch comes while the other CPU reads: $((h1 - h0)) hits, $r reads$direct" \
	[ $((h1 - h0)) -eq "$r" ]
cmdline_reads_start
lp_off
r=$(cmdline_reads_stop)
h2=$(hits kpt_cmdline)
check "the livepatch leaves while the other CPU reads: $((h2 - h1)) hits, $r reads" \
	sh -c "[ $((h2 - h1)) -eq $r ] && ! grep -q 'live patched' /proc/cmdline"
probe_off kpt_cmdline

# Arming and disarming patch text that the other CPU runs (kernel_clone's
# ftrace site; the sched_switch tracepoint's jump label in __schedule(),
# which enabling an event turns on).  Under QEMU's TCG a CPU could keep
# taking an int3 that was gone, with interrupts off, and hang the next
# text_poke_sync(): the int3 path now carries out such patched
# instructions itself (arch/x86/kernel/kprobes/int3.c).
toggles() {
	( while :; do /bin/busybox true; done ) &
	bg=$!
	n=0
	while [ $n -lt 100 ]; do
		echo 1 > "$TR/events/kprobes/kpt_clone/enable" &&
			echo 0 > "$TR/events/kprobes/kpt_clone/enable" || break
		n=$((n + 1))
	done
	kill $bg
	wait $bg 2>/dev/null
	[ $n -eq 100 ]
}
echo 'p:kpt_clone kernel_clone' >> "$TR/kprobe_events"
check "an event on kernel_clone toggled 100 times while the other CPU forks" \
	toggles
echo '-:kpt_clone' >> "$TR/kprobe_events"

check "the kernel log has no warning, oops or ftrace failure" \
	sh -c "! dmesg | grep -E 'WARNING|Oops|BUG:|ftrace faulted|ftrace failed'"
check "ftrace is alive: set_ftrace_filter still takes a function" \
	sh -c "echo kernel_clone > $TR/set_ftrace_filter && echo > $TR/set_ftrace_filter"

ktap_finished
