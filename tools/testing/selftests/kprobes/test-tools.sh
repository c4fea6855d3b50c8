#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The tools people drive Kprobes with, as Debian ships them: perf (perf
# probe, perf stat, perf record -g) and bpftrace (kprobe:, kretprobe:,
# kstack, override()), on kernel and module functions, at entries (ftrace
# sites on a tracing kernel) and mid-function (int3, optimized).  Only a
# boot with the tools in its initramfs runs them (make check: the tracing
# kernel with preempt=full); the others skip (exit 4).

. "$(dirname "$0")/functions.sh"

ktap_print_header
if [ ! -x /usr/bin/perf ] || [ ! -x /usr/bin/bpftrace ]; then
	ktap_skip_all "no perf and bpftrace in this boot"
	exit 4
fi
ktap_set_plan 19

TR=/sys/kernel/tracing
[ -e "$TR/kprobe_events" ] || mount -t tracefs tracefs "$TR" 2>/dev/null
export HOME=/tmp PERF_PAGER=cat PATH=$PATH:/usr/bin
cd /tmp
N=20
insmod "$MODDIR/kprobes_target.ko"
has() {	# has <text> <extended regex>
	echo "$1" | grep -qE "$2"
}

# perf probe: an entry with an argument from a register, and %return,
# on kernel_clone (no debuginfo in the guest: raw registers).  Each fork
# of the shell's loop is one call; the return value is the child's pid.
# (perf names a return probe's event <name>__return.)
check "perf probe: kernel_clone args=%di:x64" \
	perf probe -q -a 'kpt_entry=kernel_clone args=%di:x64'
check "perf probe: kernel_clone%return pid=%ax:s64" \
	perf probe -q -a 'kpt_ret=kernel_clone%return pid=%ax:s64'
loop="i=0; while [ \$i -lt $N ]; do /bin/true; i=\$((i + 1)); done"
out=$(perf stat -x, -e probe:kpt_entry -e probe:kpt_ret__return -- sh -c "$loop" 2>&1)

e=$(echo "$out" | awk -F, '/probe:kpt_entry/ { print $1 }')
r=$(echo "$out" | awk -F, '/probe:kpt_ret__return/ { print $1 }')
check "perf stat counts exactly $N forks at entry ($e) and return ($r)" \
	[ "$e" = $N -a "$r" = $N ]
perf record -q -o /tmp/perf.data -e probe:kpt_entry -e probe:kpt_ret__return -- \
	sh -c '/bin/true; /bin/true; :' 2>/dev/null
perf script -i /tmp/perf.data > /tmp/perf.script 2>/dev/null
check "perf script: the argument (a pointer) and the return value (a pid)" \
	has "$(grep kpt_entry /tmp/perf.script | head -1)$(grep kpt_ret /tmp/perf.script | head -1)" \
	'args=0xffff[0-9a-f]+.*pid=[1-9][0-9]*'
check "perf record -g on probe:kpt_entry" \
	perf record -q -g -o /tmp/perf.data -e probe:kpt_entry -- sh -c '/bin/true; :'
perf script -i /tmp/perf.data -F ip,sym > /tmp/perf.script 2>/dev/null
check "the frame after kernel_clone is a clone/fork syscall" \
	has "$(grep -A1 ' kernel_clone' /tmp/perf.script | sed -n 2p)" \
	'__do_sys_(clone|clone3|fork|vfork)|__x64_sys_(clone|clone3|fork|vfork)'
perf probe -q -d 'probe:*'
check "perf left no probe behind" sh -c "! grep -q 'kernel_clone' $DEBUGFS/list"

# bpftrace: count, argument, retval, kstack; entry, mid-function, module.
bt() {	# bt <program> <command>: bpftrace prints the maps at exit
	timeout 120 bpftrace -q -e "$1" -c "$2" 2>&1
}

echo 'for i in 1 2 3 4 5; do /bin/true; done' > /tmp/forks.sh
out=$(bt 'kprobe:kernel_clone { @n = count(); }' "/bin/sh /tmp/forks.sh" | grep '^@')
check "bpftrace kprobe:kernel_clone counts the 5 forks ($out)" \
	has "$out" '^@n: 5$'
out=$(bt 'kprobe:kprobes_target_func { @x = arg0; } kretprobe:kprobes_target_func { @r = retval; }' \
	"/bin/cat /sys/kernel/debug/kprobes_target/call")
x=$(echo "$out" | sed -n 's/^@x: //p')
r=$(echo "$out" | sed -n 's/^@r: //p')
check "bpftrace on a module function: arg0 $x, retval $r = 3*arg0+1" \
	[ -n "$x" -a "$r" = "$((x * 3 + 1))" ]
out=$(bt 'kprobe:kprobes_target_func { @s[kstack(2)] = count(); }' \
	"/bin/cat /sys/kernel/debug/kprobes_target/call")
check "bpftrace kstack names the caller (call_show)" \
	has "$(echo "$out" | grep -A2 kprobes_target_func)" call_show
# The first instruction boundary past vfs_read's fentry call (+9 with an
# endbr), as kprobe_events finds it: a mid-function, int3 or jmp, probe.
off=9
while [ $off -lt 40 ] &&
      ! echo "p:kpt_mid vfs_read+$off" >> $TR/kprobe_events 2>/dev/null; do
	off=$((off + 1))
done
echo '-:kpt_mid' >> $TR/kprobe_events 2>/dev/null
out=$(bt "kprobe:vfs_read+$off { @n = count(); }" "/bin/cat /proc/version" | grep '^@')
check "bpftrace mid-function (vfs_read+$off) counts ($out)" \
	has "$out" '^@n: [1-9]'

# Error injection from BPF: bpf_override_return() through bpftrace.
T=/sys/kernel/debug/kprobes_target
bpftrace -q --unsafe -e 'kprobe:kprobes_target_may_fail { override(-5); }' \
	> /tmp/bt.out 2>&1 &
bg=$!
w=0
while [ "$(cat $T/may_fail)" != -5 ] && [ $w -lt 600 ]; do
	sleep 0.1
	w=$((w + 1))
done
check "bpftrace override(-5): the caller of kprobes_target_may_fail sees -5" \
	[ "$(cat $T/may_fail)" = -5 ]
kill -INT $bg
# Once (CI, tracing kernel, preempt=full) bpftrace slept on after SIGINT,
# both CPUs idle, and the boot ran out of time in this wait: it gets 30 s,
# then SIGKILL, said as a diagnostic; the check below still holds.
w=0
while kill -0 $bg 2>/dev/null && [ $w -lt 300 ]; do
	sleep 0.1
	w=$((w + 1))
done
if kill -0 $bg 2>/dev/null; then
	echo "# bpftrace did not leave within 30 s of SIGINT: killed; its output:"
	sed 's/^/# /' /tmp/bt.out
	kill -KILL $bg
fi
wait $bg
check "the override is gone with bpftrace" [ "$(cat $T/may_fail)" = 0 ]
# At a notrace entry, kprobe events (and so the perf kprobe PMU, BPF and
# bpftrace) refuse the probe with -EINVAL on a kernel with
# KPROBES_ON_FTRACE ("Could not probe notrace function", trace_kprobe.c),
# as upstream does; fail_function reaches it (test-fail-function).
out=$(timeout 120 bpftrace -q --unsafe \
	-e 'kprobe:kprobes_target_may_fail_notrace { override(-7); }' -c /bin/true 2>&1)
check "bpftrace at a notrace entry is refused with EINVAL" \
	has "$out" 'cannot attach kprobe, Invalid argument'
check "bpftrace left no probe behind" sh -c "! grep -q kprobes_target $DEBUGFS/list"

# A BPF fentry program (bpftrace's kfunc:, a BPF trampoline reached by
# ftrace's direct call) and a probe on one function, cmdline_proc_show(),
# while the other CPU reads /proc/cmdline all along.  The probe stays
# while the program comes and goes (it takes the function's direct call
# over, and gives it back): every read is one hit of the probe.  The
# program stays while the probe comes and goes: every read is one run of
# the program.  fentry needs the kernel's BTF (CONFIG_DEBUG_INFO_BTF).
fentry_start() {
	rm -f /tmp/bt-fentry.out
	bpftrace -B line -e 'BEGIN { printf("ready\n"); }
		     kfunc:cmdline_proc_show { @n = count(); }' \
		> /tmp/bt-fentry.out 2>&1 &
	btbg=$!
	w=0
	while ! grep -q ready /tmp/bt-fentry.out && [ $w -lt 600 ]; do
		sleep 0.1
		w=$((w + 1))
	done
}
# fentry_stop: the program's count in $n (not in a subshell: only this
# shell can wait for bpftrace), and its output as diagnostics without one.
fentry_stop() {
	kill -INT $btbg
	wait $btbg
	n=$(sed -n 's/^@n: //p' /tmp/bt-fentry.out)
	[ -n "$n" ] || sed 's/^/# bpftrace: /' /tmp/bt-fentry.out
}
cmdline_hits() {
	awk '$1 == "kpt_fentry" { print $2 }' "$TR/kprobe_profile"
}
cmdline_probe_on() {
	echo 'p:kpt_fentry cmdline_proc_show' >> "$TR/kprobe_events" &&
		echo 1 > "$TR/events/kprobes/kpt_fentry/enable"
}
cmdline_probe_off() {
	echo 0 > "$TR/events/kprobes/kpt_fentry/enable" &&
		echo '-:kpt_fentry' >> "$TR/kprobe_events"
}
if [ ! -e /sys/kernel/btf/vmlinux ]; then
	skip "a BPF fentry program comes and goes over a probe while the other CPU reads" \
		"no BTF in this kernel (CONFIG_DEBUG_INFO_BTF)"
	skip "a probe comes and goes under a BPF fentry program while the other CPU reads" \
		"no BTF in this kernel (CONFIG_DEBUG_INFO_BTF)"
	skip "the probe is called directly again once the program left" \
		"no BTF in this kernel (CONFIG_DEBUG_INFO_BTF)"
else
	cmdline_probe_on
	h0=$(cmdline_hits)
	cmdline_reads_start
	fentry_start
	sleep 1
	fentry_stop
	r=$(cmdline_reads_stop)
	h1=$(cmdline_hits)
	check "a BPF fentry program comes and goes over a probe while the other CPU reads: $((h1 - h0)) hits, $r reads, the program saw $n" \
		[ $((h1 - h0)) -eq "$r" -a "${n:-0}" -gt 0 ]
	check "the probe is called directly again once the program left" \
		sh -c "grep -A1 '^cmdline_proc_show' $TR/enabled_functions |
		       grep -q 'direct-->kprobe_ftrace_direct_tramp'"
	cmdline_probe_off
	fentry_start
	cmdline_reads_start
	cmdline_probe_on
	sleep 1
	cmdline_probe_off
	r=$(cmdline_reads_stop)
	fentry_stop
	check "a probe comes and goes under a BPF fentry program while the other CPU reads: the program saw $n, $r reads" \
		[ "${n:-0}" -eq "$r" ]
fi
rmmod kprobes_target
check "no warning in the kernel log" sh -c "! dmesg | grep -E 'WARNING|Oops|BUG:'"

ktap_finished
