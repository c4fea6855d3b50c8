#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# samples/kprobes/kprobe_example.ko puts a probe on kernel_clone(): every
# fork must show its pre_handler and post_handler lines, and none may
# appear once the module is gone.

. "$(dirname "$0")/functions.sh"

ktap_print_header
ktap_set_plan 6

clear_log
check "insmod kprobe_example" insmod "$MODDIR/kprobe_example.ko"
check "probe planted on kernel_clone" log_has "planted kprobe at kernel_clone+"

before=$(log_count "kernel_clone pre_handler")
for i in 1 2 3; do /bin/true & wait; done
after=$(log_count "kernel_clone pre_handler")
check "pre_handler fires on each fork" [ $((after - before)) -ge 3 ]
check "post_handler fires too" log_has "kernel_clone post_handler"

check "rmmod kprobe_example" rmmod kprobe_example
before=$(log_count "kernel_clone pre_handler")
/bin/true & wait
after=$(log_count "kernel_clone pre_handler")
check "no hits after unregister" [ "$after" -eq "$before" ]

ktap_finished
