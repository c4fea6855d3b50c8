#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the Kprobes benchmark (make bench) and of its smoke test.
#   bench.sh candidates <out> [n]    the first n (1300) function names worth
#                                    trying, sorted
#   bench.sh accept <in> <out>       those of them this kernel can probe
#   bench.sh run <syms> [hits]       every case, one line each
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
	t=$(( (on - off) * 10 / $1 ))
	echo "kprobe_event $((t / 10)).$((t % 10)) ns"
}

case "$1" in
candidates)
	# Core kernel functions, minus the machinery a probe hit or a
	# registration runs through itself: the same list on both kernels.
	grep ' [tT] ' /proc/kallsyms | grep -v '\[' | cut -d' ' -f3 |
		grep -v '\.' |
		grep -Ev 'kprobe|int3|text_poke|poke|rcu|sched|lock|irq|nmi|entry|idle|tick|timer|clock|cpu|apic|mce|trace|printk|console|serial|uart|tty|mutex|preempt|switch|fault|exc_|context|sync|flush|tlb|smp|time|tsc|native|paravirt|x86|sys_|mm_|mem|page|alloc|free|cache|slab|kmalloc|vmalloc|execmem|insn|jump_label|static_call|ftrace|debug|stack|unwind|orc|kallsyms|module|dump|panic|oops|die|bug|warn|notifier|signal|wake|task|thread|work|queue|kthread|pid|user|copy|strn|str|^__' |
		sort -u | head -n "${3:-1300}" > "$2"
	;;
accept)
	# Optimizing is not what is asked here, and it makes upstream slow.
	[ -e $OPT ] && echo 0 > $OPT
	bench cases=accept syms="$2" nsyms=100000 |
		sed -n 's/^accept //p' > "$3"
	[ -e $OPT ] && echo 1 > $OPT
	;;
run)
	syms=$2
	hits=${3:-100000}
	[ -e $OPT ] && echo 1 > $OPT
	bench cases=optwait,opt,mid,post,two,kretprobe,jprobe,register,batch \
		syms="$syms" hits="$hits"
	event "$hits"
	[ -e $OPT ] && echo 0 > $OPT
	bench cases=int3,kretprobe_int3 hits="$hits"
	[ -e $OPT ] && echo 1 > $OPT
	;;
*)
	echo "usage: $0 candidates|accept|run ..." >&2
	exit 2
	;;
esac
