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

# Three forks of our own, and at least two more by the command
# substitution that counts (its subshell, and dmesg in it).
pre=$(log_count "kernel_clone pre_handler")
post=$(log_count "kernel_clone post_handler")
for i in 1 2 3; do /bin/true & wait; done
pre=$(( $(log_count "kernel_clone pre_handler") - pre ))
post=$(( $(log_count "kernel_clone post_handler") - post ))
check "pre_handler fires on each fork ($pre)" [ $pre -ge 5 ]
check "post_handler fires on each of them too ($post)" [ $post -ge 5 ]

check "rmmod kprobe_example" rmmod kprobe_example
before=$(log_count "kernel_clone pre_handler")
/bin/true & wait
after=$(log_count "kernel_clone pre_handler")
check "no hits after unregister" [ "$after" -eq "$before" ]

ktap_finished
