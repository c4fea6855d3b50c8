#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The control files: /sys/kernel/debug/kprobes/{list,enabled,blacklist} and
# /proc/sys/debug/kprobes-optimization, their formats, their effects and
# their permissions.

. "$(dirname "$0")/functions.sh"

OPT=/proc/sys/debug/kprobes-optimization

ktap_print_header
ktap_set_plan 29

check "list, enabled, blacklist exist" \
	[ -f $DEBUGFS/list -a -f $DEBUGFS/enabled -a -f $DEBUGFS/blacklist ]

clear_log
insmod "$MODDIR/kprobe_example.ko"
line=$(grep ' kernel_clone+' $DEBUGFS/list)
set -- $line
# As wide as the kernel's addresses (as kallsyms prints them): 16 hex
# digits on a 64-bit kernel, 8 on i386.
width=$(awk 'NR == 1 { print length($1) }' /proc/kallsyms)
check "list: an address as wide as kallsyms' ($width digits)" \
	sh -c "echo $1 | grep -qE '^[0-9a-f]{$width}\$' && [ $width -ge 8 ]"
check "list: type k" [ "$2" = k ]
check "list: symbol+offset" sh -c "echo $3 | grep -qE '^kernel_clone\+0x[0-9a-f]+\$'"
# At the entry, with ftrace, the one state is [FTRACE].
want="$1 $2 $3"
[ -n "$ENTRY_STATE" ] && want="$want [FTRACE]"
check "list: no module, no state for a plain armed probe" [ "$*" = "$want" ]
# Upstream's layout, which scripts split on: two blanks between the
# fields, a blank where a module's name would be, a blank, the states.
check "list: upstream's layout, blanks and all" \
	grep -qE "^[0-9a-f]+  k  kernel_clone\+0x[0-9a-f]+    $ENTRY_STATE\$" $DEBUGFS/list

check "enabled reads 1" [ "$(cat $DEBUGFS/enabled)" = 1 ]
echo 0 > $DEBUGFS/enabled
before=$(log_count "kernel_clone pre_handler")
/bin/true & wait
check "enabled 0: no hits" \
	[ "$(log_count "kernel_clone pre_handler")" -eq "$before" -a "$(cat $DEBUGFS/enabled)" = 0 ]
echo 1 > $DEBUGFS/enabled
/bin/true & wait
check "enabled 1: hits again" \
	[ "$(log_count "kernel_clone pre_handler")" -gt "$before" -a "$(cat $DEBUGFS/enabled)" = 1 ]
check "enabled refuses 2 and words kstrtobool does not take" \
	sh -c "! echo 2 > $DEBUGFS/enabled && ! echo maybe > $DEBUGFS/enabled &&
	       [ \"\$(cat $DEBUGFS/enabled)\" = 1 ]"
rmmod kprobe_example

# The list's other types and states.
insmod "$MODDIR/kretprobe_example.ko"
check "list: type r for a kretprobe" \
	grep -qE "  r  kernel_clone\+0x[0-9a-f]+    (\[OPTIMIZED\])?$ENTRY_STATE\$" $DEBUGFS/list
rmmod kretprobe_example
insmod "$MODDIR/jprobe_example.ko"
check "list: type j for a jprobe" \
	grep -qE "  j  kernel_clone\+0x[0-9a-f]*    $ENTRY_STATE\$" $DEBUGFS/list
rmmod jprobe_example
insmod "$MODDIR/kprobes_target.ko" probe_sym=int_sqrt sym_disabled=1
check "list: a probe registered disabled is [DISABLED]" \
	grep -q '  k  int_sqrt+0x[0-9a-f]*    \[DISABLED\]$' $DEBUGFS/list
echo 0 > $DEBUGFS/enabled
echo 1 > $DEBUGFS/enabled
check "enabled 0 then 1 leaves it [DISABLED]" \
	grep -q '  k  int_sqrt+0x[0-9a-f]*    \[DISABLED\]$' $DEBUGFS/list
rmmod kprobes_target

# A probe registered while everything is disarmed stays unarmed until 1.
echo 0 > $DEBUGFS/enabled
insmod "$MODDIR/kprobe_example.ko"
before=$(log_count "kernel_clone pre_handler")
/bin/true & wait
check "registered while disarmed: no hits" \
	[ "$(log_count "kernel_clone pre_handler")" -eq "$before" ]
echo 1 > $DEBUGFS/enabled
/bin/true & wait
check "enabled 1: it fires" [ "$(log_count "kernel_clone pre_handler")" -gt "$before" ]
rmmod kprobe_example

# The breakpoint handler (.kprobes.text) and the trap's caller (NOKPROBE).
if [ "$(uname -m)" = aarch64 ]; then
	bp_handler=kprobe_brk_handler bp_caller=do_el1_brk64
else
	bp_handler=kprobe_int3_handler bp_caller=do_int3
fi
check "blacklist lists .kprobes.text and NOKPROBE_SYMBOL functions" \
	sh -c "grep -q '	$bp_handler\$' $DEBUGFS/blacklist && grep -q '$bp_caller' $DEBUGFS/blacklist"
check "blacklist: a line per function, start-end and name, as upstream's" \
	sh -c "! grep -vqE '^0x[0-9a-f]+-0x[0-9a-f]+	[^ ]+( \[[^ ]+\])?\$' $DEBUGFS/blacklist"

check "optimization knob reads 1" [ "$(cat $OPT)" = 1 ]
echo 0 > $OPT
check "optimization knob takes 0" [ "$(cat $OPT)" = 0 ]
check "optimization knob refuses 2" sh -c "! echo 2 > $OPT"
echo 1 > $OPT

# A user other than root can neither read nor write the files.  debugfs'
# own root is 0700, which would refuse nobody before the files' modes are
# even looked at: open it up for the checks (and show that nobody now gets
# as far as the files), then close it again.
check "su runs commands as another user" su -s /bin/sh nobody -c "test \$(id -u) = 65534"
root_mode=$(stat -c %a /sys/kernel/debug)
chmod 755 /sys/kernel/debug
check "nobody can reach the files" su -s /bin/sh nobody -c "test -e $DEBUGFS/list"
check_fails "non-root cannot read list" su -s /bin/sh nobody -c "cat $DEBUGFS/list" 2>/dev/null
check_fails "non-root cannot read blacklist" \
	su -s /bin/sh nobody -c "cat $DEBUGFS/blacklist" 2>/dev/null
check_fails "non-root cannot read enabled" su -s /bin/sh nobody -c "cat $DEBUGFS/enabled" 2>/dev/null
check_fails "non-root cannot write enabled" su -s /bin/sh nobody -c "echo 0 > $DEBUGFS/enabled" 2>/dev/null
chmod "$root_mode" /sys/kernel/debug
check_fails "non-root cannot write the optimization knob" \
	su -s /bin/sh nobody -c "echo 0 > $OPT" 2>/dev/null
check "the knobs are unchanged" [ "$(cat $DEBUGFS/enabled)" = 1 -a "$(cat $OPT)" = 1 ]

ktap_finished
