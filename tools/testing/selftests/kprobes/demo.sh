#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What `make` shows: the samples firing, then the control files.

MODDIR=${KPROBES_MODDIR:-/lib/modules/kprobes}
DEBUGFS=/sys/kernel/debug/kprobes

step() {
	echo
	echo "### $*"
}

show_file() {
	if [ -e "$1" ]; then
		echo "\$ cat $1"
		cat "$1"
	else
		echo "($1 is not there yet)"
	fi
}

dmesg -c > /dev/null
step "insmod kprobe_example.ko: a kprobe on kernel_clone()"
insmod "$MODDIR/kprobe_example.ko"
step "three forks"
for i in 1 2 3; do /bin/true & wait; done
dmesg -c | grep -E "kprobe|handler"

step "rmmod kprobe_example"
rmmod kprobe_example
dmesg -c | grep -E "kprobe|handler"

step "insmod kretprobe_example.ko: the return value and duration of kernel_clone()"
insmod "$MODDIR/kretprobe_example.ko"
for i in 1 2; do /bin/true & wait; done
dmesg -c | grep -E "return probe|returned"

step "insmod jprobe_example.ko: kernel_clone()'s argument, seen by a jprobe"
insmod "$MODDIR/jprobe_example.ko"
for i in 1 2; do /bin/true & wait; done
dmesg -c | grep -E "jprobe"

step "the probe list and the knobs"
show_file $DEBUGFS/list
show_file $DEBUGFS/enabled
show_file /proc/sys/debug/kprobes-optimization

step "rmmod kretprobe_example jprobe_example"
rmmod kretprobe_example jprobe_example
dmesg -c | grep -E "probe"

step "jump optimization: a pre_handler-only probe on int_sqrt()"
insmod "$MODDIR/kprobes_target.ko" probe_sym=int_sqrt
sleep 0.5
show_file $DEBUGFS/list
echo '$ echo 0 > /proc/sys/debug/kprobes-optimization'
echo 0 > /proc/sys/debug/kprobes-optimization
show_file $DEBUGFS/list
echo 1 > /proc/sys/debug/kprobes-optimization
rmmod kprobes_target
