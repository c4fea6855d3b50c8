#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# samples/kprobes/jprobe_example.ko prints kernel_clone()'s argument: a
# fork (exit signal SIGCHLD, 17) must show it, and forks must still work.

. "$(dirname "$0")/functions.sh"

ktap_print_header
ktap_set_plan 5

clear_log
check "insmod jprobe_example" insmod "$MODDIR/jprobe_example.ko"
check "jprobe planted" log_has "planted jprobe at kernel_clone+"

out=$(/bin/echo forked)
check "forks still work" [ "$out" = forked ]
check "the handler saw the fork's arguments" log_has "exit_signal 17"

check "rmmod jprobe_example" rmmod jprobe_example

ktap_finished
