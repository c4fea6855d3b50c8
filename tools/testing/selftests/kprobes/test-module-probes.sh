#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Probes in a module: by symbol name, listed with the module's name, GONE
# once the module is unloaded, still unregistrable, and the module loads
# again afterwards.  A probe on a module's __init code fires while that code
# is there and turns GONE when the load completes and frees it, with its
# original bytes back for async init work still running.  A module's
# noinstr text is refused and listed in the blacklist, and so is its __init
# text once the module is live; within_kprobe_blacklist() says so of its
# noinstr, .kprobes.text and NOKPROBE_SYMBOL() code.  A module that goes
# with a probe in a function its async work still calls (between the
# GOING notifiers and the freeing of its text) runs that call right.

. "$(dirname "$0")/functions.sh"

# kprobes_everyinsn (x86-64's build) registers a probe by name and offset.
EV=0
[ -e "$MODDIR/kprobes_everyinsn.ko" ] && EV=1
EVDIR=/sys/kernel/debug/kprobes_everyinsn

# settles_optimized <symbol>: its probe is [OPTIMIZED] within 2 seconds.
settles_optimized() {
	i=0
	while [ $i -lt 20 ]; do
		grep " $1+0x[0-9a-f]*" $DEBUGFS/list | grep -q '\[OPTIMIZED\]$' &&
			return 0
		sleep 0.1
		i=$((i + 1))
	done
	grep " $1+" $DEBUGFS/list | sed 's/^/# /'
	return 1
}

ktap_print_header
ktap_set_plan $((26 + EV))

clear_log
check "insmod kprobes_target" insmod "$MODDIR/kprobes_target.ko"
check "probe on a module function by name" \
	insmod "$MODDIR/kprobe_example.ko" symbol=kprobes_target_func
cat /sys/kernel/debug/kprobes_target/call > /dev/null
check "the probe fires" log_has "kprobes_target_func pre_handler"
check "list shows the module" \
	grep -qE "kprobes_target_func\+0x[0-9a-f]*  kprobes_target $ENTRY_STATE\$" $DEBUGFS/list
check "the module unloads with a probe in it" rmmod kprobes_target
check "list shows the probe GONE" grep -q ' k .*\[GONE\]' $DEBUGFS/list
check "a gone probe unregisters" rmmod kprobe_example
check "the module loads again" sh -c "insmod $MODDIR/kprobes_target.ko && rmmod kprobes_target"

insmod "$MODDIR/kprobes_target.ko"
clear_log
check "probe by module:symbol" \
	insmod "$MODDIR/kprobe_example.ko" symbol=kprobes_target:kprobes_target_func
cat /sys/kernel/debug/kprobes_target/call > /dev/null
check "the module:symbol probe fires" log_has "kprobes_target_func pre_handler"
rmmod kprobe_example
rmmod kprobes_target


# gone_lines: how many probes the list shows GONE.
gone_lines() {
	grep -c ' k .*\[GONE\]' $DEBUGFS/list
}
check "a module probes its own __init code" \
	insmod "$MODDIR/kprobes_target.ko" init_probe=1
check "the __init probe fired" \
	test "$(cat /sys/kernel/debug/kprobes_target/init_hits)" = 1
check "the freed __init probe is GONE" test "$(gone_lines)" = 1
check "__init code run by async work after the probe went GONE runs right" \
	test "$(cat /sys/kernel/debug/kprobes_target/late_result)" = 9
check "the GONE __init probe did not fire there" \
	test "$(cat /sys/kernel/debug/kprobes_target/init_hits)" = 1
check "the module with a gone __init probe unloads" rmmod kprobes_target
check "no probe is left" test "$(wc -l < $DEBUGFS/list)" = 0

check "a module tries its noinstr and live __init code" \
	insmod "$MODDIR/kprobes_target.ko" refusals=1
check "its noinstr function is refused with -EINVAL" \
	grep -qx 'noinstr -22' /sys/kernel/debug/kprobes_target/refusals
check "its __init function, once live, is refused with -ENOENT" \
	grep -qx 'live_init -2' /sys/kernel/debug/kprobes_target/refusals
# listed <suffix>: the blacklist has a line for kprobes_target_<suffix>.
listed() {
	grep -q "^0x[0-9a-f]*-0x[0-9a-f]*	kprobes_target_$1 \[kprobes_target\]\$" \
		$DEBUGFS/blacklist
}
all_listed() {
	listed noinstr && listed kprobes_text && listed nokprobe
}
check "the blacklist lists its noinstr, .kprobes.text and NOKPROBE_SYMBOL functions" \
	all_listed
check "within_kprobe_blacklist() covers its noinstr, .kprobes.text and NOKPROBE_SYMBOL code, not a plain function" \
	grep -qx 'blacklisted 1 1 1 0' /sys/kernel/debug/kprobes_target/refusals
rmmod kprobes_target
check_fails "the blacklist forgets it with the module" \
	grep -q '\[kprobes_target\]' $DEBUGFS/blacklist

# Probes of ours in module text that async work still runs while the
# module goes: an int3 one (with a post_handler, never jump-optimized) in
# the body of kprobes_target_func(), and, where kprobes_everyinsn is
# built (not on i386), a jump-optimized one at kprobes_target_opt().
insmod "$MODDIR/kprobes_target.ko" exit_call=1
off=$(cat /sys/kernel/debug/kprobes_target/body_offset)
check "a probe in the body of a module function" \
	insmod "$MODDIR/kprobe_example.ko" symbol=kprobes_target_func offset="$off"
if [ $EV = 1 ]; then
	insmod "$MODDIR/kprobes_everyinsn.ko"
	echo "kprobes_target_opt 0" > $EVDIR/places
	echo register > $EVDIR/ctl
	check "a pre_handler-only probe on a module function turns OPTIMIZED" \
		settles_optimized kprobes_target_opt
fi
clear_log
check "the module unloads while its async work calls the probed functions" \
	rmmod kprobes_target
check "those calls ran right, after the probes went GONE" \
	log_has "kprobes_target: exit work: kprobes_target_func(4) = 13, kprobes_target_opt(4) = 6"
rmmod kprobe_example
if [ $EV = 1 ]; then
	echo unregister > $EVDIR/ctl
	rmmod kprobes_everyinsn
fi

ktap_finished
