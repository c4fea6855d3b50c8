#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the Kprobes benchmark (make bench) and of its smoke test.
#   bench.sh candidates <out>        the function names worth trying, sorted
#   bench.sh accept <in> <out>       those of them this kernel can probe
#   bench.sh wall                    time_to_optimized three times, for a
#                                    boot without icount
#   bench.sh run <syms> <all> [hits] every case, one line each; <syms> is the
#                                    registration list (1,000), <all> every
#                                    function both kernels accept;
#                                    KPBENCH_QUICK=1: one run of each
#                                    median, no wait for what is not
#                                    optimized (the smoke test's);
#                                    KPBENCH_CASES=A,B: only those cases
#                                    of the module (kpbench_cases=)
# Only API that upstream 6.12 has is used, so it runs on both kernels.

MODDIR=${KPROBES_MODDIR:-/lib/modules/kprobes}
OPT=/proc/sys/debug/kprobes-optimization
MOD=$MODDIR/kprobes_bench.ko

# bench <module args...>: load, collect the kpbench lines, unload.
bench() {
	dmesg -c > /dev/null
	insmod "$MOD" "$@" || return 1
	rmmod kprobes_bench
	dmesg | sed -n 's/.*kpbench: //p'
}

# event <hits>: a kprobe event on int_sqrt(), set up through tracefs as a
# user does (trace_kprobe writes a ring buffer record per hit); the
# module times the calls with the event off and on.
event() {
	ev=/sys/kernel/debug/tracing
	if [ ! -e $ev/kprobe_events ]; then
		echo "kprobe_event n/a no kprobe events"
		return
	fi
	off=$(bench cases=calls hits="$1" | sed -n 's/^calls \([0-9]*\) ns/\1/p')
	echo "p:kpbench/ev int_sqrt" >> $ev/kprobe_events &&
		echo 1 > $ev/events/kpbench/ev/enable
	on=$(bench cases=calls hits="$1" | sed -n 's/^calls \([0-9]*\) ns/\1/p')
	echo 0 > $ev/events/kpbench/ev/enable
	echo "-:kpbench/ev" >> $ev/kprobe_events
	if [ -z "$off" ] || [ -z "$on" ]; then
		echo "kprobe_event n/a the timing runs failed"
		return
	fi
	t=$(( (on - off) * 10 / $1 )) sign=
	# Noise can put it below zero without icount: print -1.5, not -1.-5.
	[ "$t" -lt 0 ] && t=$(( -t )) sign=-
	echo "kprobe_event $sign$((t / 10)).$((t % 10)) ns"
}

# now: the guest clock in ns, from the loaded benchmark module.
now() {
	cat /sys/module/kprobes_bench/parameters/now
}

# kb <field>: a /proc/meminfo figure, in kB, per-CPU counters folded first.
kb() {
	sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo
}
# vmalloc_bytes: the pages of every vmalloc'ed area (what VmallocUsed
# counts) but the tasks' stacks, which come and go with any fork or
# kworker and would swing the figure by 16 KiB each (the caller shown is
# kernel_clone() where alloc_thread_stack_node() is inlined).
vmalloc_bytes() {
	awk '!/alloc_thread_stack_node|kernel_clone/ {
		for (i = 1; i <= NF; i++)
			if (sub(/^pages=/, "", $i))
				n += $i
	} END { printf "%d\n", n * 4096 }' /proc/vmallocinfo
}
# settle: let deferred frees run (grace periods, work items, either
# kernel's), drop the page cache's dentries and inodes, and have every slab
# cache give back its empty slabs, so that Slab counts objects in use and
# not what an earlier case left cached.
settle() {
	sleep 1
	echo 3 > /proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 > "$f"
	done 2>/dev/null
}
# held_bytes: slab and vmalloc'ed bytes in use, as "<slab> <vmalloc>".
held_bytes() {
	settle
	echo 1 > /proc/sys/vm/stat_refresh 2>/dev/null
	echo "$(( $(kb Slab) * 1024 )) $(vmalloc_bytes)"
}

# A short workload: file I/O, fork and exec, /proc.
workload() {
	i=0
	while [ $i -lt 10 ]; do
		ls -R /lib > /dev/null
		cat /proc/meminfo /proc/self/maps > /dev/null
		sh -c 'echo x > /tmp/kpbench-w; cat /tmp/kpbench-w' > /dev/null
		i=$((i + 1))
	done
}

# memory_once <syms> <n>: kernel memory (slab objects and vmalloc'ed
# pages: executable slots, per-function data) with <syms> registered and
# the optimizer settled, over the same module holding them unregistered,
# as "<slab> <vmalloc>" bytes.
memory_once() {
	insmod "$MOD" cases=alloc syms="$1" nsyms="$2" tag=mem > /dev/null || return
	set -- "$@" $(held_bytes)
	rmmod kprobes_bench
	insmod "$MOD" cases=hold syms="$1" nsyms="$2" tag=mem > /dev/null || return
	set -- "$@" $(held_bytes)
	rmmod kprobes_bench
	echo "$(($5 - $3)) $(($6 - $4))"
}

# memory <syms> <n> <tag> <runs>: memory_once per probe; of <runs> runs,
# the one with the median total: what else the kernel allocates or frees
# meanwhile can still move one run by a page or two, which matters for a
# thousand probes and hardly for every function.
memory() {
	r=0
	while [ $r -lt "$4" ]; do
		memory_once "$1" "$2" || return
		r=$((r + 1))
	done | awk '{ print $1 + $2, $1, $2 }' | sort -n |
		sed -n "$((($4 + 1) / 2))p" | {
		read -r total slab vm || return
		echo "$3_bytes_per_probe $((total / $2)) bytes"
		echo "$3_slab_bytes_per_probe $((slab / $2)) bytes"
		echo "$3_vmalloc_bytes_per_probe $((vm / $2)) bytes"
	}
}

# every <all>: one probe on every function of <all>, registered as one
# batch; the workload's extra guest time under them; one unregistration.
every() {
	n=$(wc -l < "$1")
	dmesg -c > /dev/null
	insmod "$MOD" cases= || return
	t0=$(now); workload; t1=$(now)
	rmmod kprobes_bench
	insmod "$MOD" cases=hold syms="$1" nsyms="$n" tag=every_function || return
	h0=$(cat /sys/module/kprobes_bench/parameters/hits_held)
	t2=$(now); workload; t3=$(now)
	h1=$(cat /sys/module/kprobes_bench/parameters/hits_held)
	rmmod kprobes_bench
	dmesg | sed -n 's/.*kpbench: //p'
	echo "every_function_hits $((h1 - h0)) hits"
	echo "every_function_workload $(( (t3 - t2) - (t1 - t0) )) ns"
	echo "every_function_workload_unprobed $((t1 - t0)) ns"
}

# events <syms>: a kprobe event at the entry of each function of <syms>,
# created and enabled one at a time through tracefs, as perf probe and
# bpftrace attach (each enable registers one kprobe), then disabled and
# removed one at a time: the guest time of each loop.  Both kernels refuse
# the same functions (those that are not ftrace locations, on a kernel
# with the function tracer: trace_kprobe's notrace check), in both loops.
events() {
	ev=/sys/kernel/debug/tracing
	if [ ! -e $ev/kprobe_events ]; then
		echo "event_register_1000 n/a no kprobe events"
		echo "event_unregister_1000 n/a no kprobe events"
		echo "event_buffer_reset_floor n/a no kprobe events"
		return
	fi
	dmesg -c > /dev/null
	insmod "$MOD" cases= || return
	n=0 ok=0
	t0=$(now)
	while read -r f; do
		echo "p:kpbreg/e$n $f" >> $ev/kprobe_events 2>/dev/null &&
			echo 1 > $ev/events/kpbreg/e$n/enable && ok=$((ok + 1))
		n=$((n + 1))
	done < "$1"
	t1=$(now)
	i=0
	while [ $i -lt $n ]; do
		if [ -e $ev/events/kpbreg/e$i ]; then
			echo 0 > $ev/events/kpbreg/e$i/enable
			echo "-:kpbreg/e$i" >> $ev/kprobe_events
		fi
		i=$((i + 1))
	done
	t2=$(now)
	# The floor of the removals: removing an event that was enabled
	# clears the trace buffers (tracing_reset_all_online_cpus(), grace
	# periods of the tracing core's own), as writing to trace does.
	i=0
	while [ $i -lt $ok ]; do
		echo > $ev/trace
		i=$((i + 1))
	done
	t3=$(now)
	rmmod kprobes_bench
	echo "event_register_1000 $((t1 - t0)) ns accepted=$ok"
	echo "event_unregister_1000 $((t2 - t1)) ns accepted=$ok"
	echo "event_buffer_reset_floor $((t3 - t2)) ns count=$ok"
}

case "$1" in
candidates)
	# Core kernel functions, minus the machinery a probe hit or a
	# registration runs through itself: the same list on both kernels.
	grep ' [tT] ' /proc/kallsyms | grep -v '\[' | cut -d' ' -f3 |
		grep -v '\.' |
		grep -Ev 'kprobe|int3|text_poke|poke|rcu|sched|lock|irq|nmi|entry|idle|tick|timer|clock|cpu|apic|mce|trace|printk|console|serial|uart|tty|mutex|preempt|switch|fault|exc_|context|sync|flush|tlb|smp|time|tsc|native|paravirt|x86|sys_|mm_|mem|page|alloc|free|cache|slab|kmalloc|vmalloc|execmem|insn|jump_label|static_call|ftrace|debug|stack|unwind|orc|kallsyms|module|dump|panic|oops|die|bug|warn|notifier|signal|wake|task|thread|work|queue|kthread|pid|user|copy|strn|str|^__' |
		sort -u > "$2"
	;;
accept)
	# Optimizing is not what is asked here, and it makes upstream slow.
	[ -e $OPT ] && echo 0 > $OPT
	bench cases=accept syms="$2" nsyms="$(wc -l < "$2")" |
		sed -n 's/^accept //p' > "$3"
	[ -e $OPT ] && echo 1 > $OPT
	;;
wall)
	# The time until a new probe is optimized, in wall-clock terms:
	# run without icount, where the guest clock follows the host's.
	[ -e $OPT ] && echo 1 > $OPT
	for i in 1 2 3; do
		bench cases=optwait | sed -n 's/^time_to_optimized /time_to_optimized_wall /p'
	done
	;;
run)
	syms=$2
	all=$3
	hits=${4:-100000}
	# Only the module's cases named (the kernel's kpbench_cases=).
	if [ -n "${KPBENCH_CASES:-}" ]; then
		bench cases="$KPBENCH_CASES" syms="$syms" hits="$hits"
		exit 0
	fi
	runs=3 quick=0
	[ -n "${KPBENCH_QUICK:-}" ] && runs=1 quick=1
	[ -e $OPT ] && echo 1 > $OPT
	bench cases=optwait,opt,mid,post,two,kretprobe,jprobe,register,batch,ftrace_floor,ftrace_ops_floor,direct_floor,direct_kprobe_floor \
		syms="$syms" hits="$hits" quick=$quick
	event "$hits"
	# A thousand trace events: not for the smoke test.
	[ $quick = 1 ] || events "$syms"
	[ -e $OPT ] && echo 0 > $OPT
	bench cases=int3,kretprobe_int3 hits="$hits" optimizing=0 quick=$quick
	[ -e $OPT ] && echo 1 > $OPT
	every "$all"
	memory "$syms" "$(wc -l < "$syms")" batch_1000 $runs
	memory "$all" "$(wc -l < "$all")" every_function 1
	;;
*)
	echo "usage: $0 candidates|accept|run ..." >&2
	exit 2
	;;
esac
