#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# samples/kprobes/kretprobe_example.ko times kernel_clone(): every fork
# from user space must report the child's pid as the return value and a
# duration; none after the module is gone.

. "$(dirname "$0")/functions.sh"

ktap_print_header
ktap_set_plan 5

clear_log
check "insmod kretprobe_example" insmod "$MODDIR/kretprobe_example.ko"
check "return probe planted" log_has "planted return probe at kernel_clone"

/bin/true &
pid=$!
wait
check "the return value is the child's pid" \
	log_has "kernel_clone returned $pid and took"

check "rmmod kretprobe_example" rmmod kretprobe_example
before=$(log_count "kernel_clone returned")
/bin/true & wait
check "no returns reported after unregister" \
	[ "$(log_count "kernel_clone returned")" -eq "$before" ]

ktap_finished
