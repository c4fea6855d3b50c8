#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shared by the Kprobes selftests: KTAP output through kselftest's helpers,
# where the modules are, and small checks on the kernel log.

. "$(dirname "$0")/ktap_helpers.sh"

MODDIR=${KPROBES_MODDIR:-/lib/modules/kprobes}
DEBUGFS=/sys/kernel/debug/kprobes

# On a kernel with the function tracer a function's entry is its fentry
# call, and a probe there is reached through ftrace: its list line ends
# in "[FTRACE]" (ENTRY_STATE, a grep -E pattern).  Elsewhere nothing.
if grep -qw __fentry__ /proc/kallsyms; then
	ENTRY_STATE='\[FTRACE\]'
else
	ENTRY_STATE=
fi

# check <description> <command...>: one KTAP result from a command's status.
check() {
	desc=$1
	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

# check_fails <description> <command...>: passes when the command fails.
check_fails() {
	desc=$1
	shift
	if "$@"; then
		ktap_test_fail "$desc"
	else
		ktap_test_pass "$desc"
	fi
}

# skip <description> <reason>: a KTAP SKIP result that says why.
skip() {
	__ktap_test ok "$1" "SKIP $2"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

# log_count <pattern>: lines of the kernel log matching a fixed string.
log_count() {
	dmesg | grep -cF -- "$1"
}

# log_has <pattern>: the kernel log has at least one such line.
log_has() {
	[ "$(log_count "$1")" -gt 0 ]
}

# no_splat: the kernel log since clear_log has no splat (ktap.py's list,
# and the host judges the whole console too; this pins it on the script).
# A KCSAN report is the host's to judge: ours fail the run, one in the
# rest of the kernel is printed and not counted (check.sh).
no_splat() {
	! dmesg | grep -v 'BUG: KCSAN: ' | grep -qE 'BUG:|WARNING:|Oops|Kernel panic|general protection fault|possible circular locking|possible recursive locking|KASAN:|UBSAN:|self-detected stall|rcu_.*stall|blocked for more than|Unrecoverable kprobe|kmemleak: [0-9]+ new suspected'
}

# cmdline_reads_start: a loop in the background reads /proc/cmdline
# (cmdline_proc_show(), a function both CPUs can be made to call) until
# cmdline_reads_stop, which prints how many reads it made.
cmdline_reads_start() {
	rm -f /tmp/kpt-stop /tmp/kpt-reads
	( n=0
	  while [ ! -e /tmp/kpt-stop ]; do
		cat /proc/cmdline > /dev/null
		n=$((n + 1))
	  done
	  echo $n > /tmp/kpt-reads ) &
	rbg=$!
	sleep 1
}

cmdline_reads_stop() {
	sleep 1
	touch /tmp/kpt-stop
	wait $rbg
	# ash's wait can return early on another child's exit: the count.
	waited=0
	while [ ! -s /tmp/kpt-reads ] && [ $waited -lt 50 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	cat /tmp/kpt-reads
}

clear_log() {
	dmesg -c > /dev/null
}

# kmemleak_check <grep -E pattern>: one KTAP result, "kmemleak reports
# nothing allocated by Kprobes": two scans (an object is reported once it
# stayed unreferenced over one, and only once it is 5 s old), then no
# report whose allocation backtrace matches the pattern.
kmemleak_check() {
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	sleep 1
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /tmp/kmemleak.txt
	echo "# kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak.txt) unreferenced objects in all"
	check "kmemleak reports nothing allocated by Kprobes" \
		sh -c "! grep -qiE '$1' /tmp/kmemleak.txt"
	grep -qiE "$1" /tmp/kmemleak.txt &&
		sed 's/^/# /' /tmp/kmemleak.txt | head -n 60
	return 0
}
