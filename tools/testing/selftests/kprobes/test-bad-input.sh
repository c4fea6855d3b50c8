#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bad input, each case with the errno the API documents and nothing
# changed: the list, debugfs "enabled" and the text the case could touch
# are the same after it as before (kprobes_badinput.ko runs the API cases
# one at a time; see its source for the list).  Then the control files
# with bad writes and non-root users, and last allocation failure: every
# allocation of a registration fails in turn (/proc/<pid>/fail-nth's
# mechanism, with failslab and fail_page_alloc), and each failed call
# must return -ENOMEM with nothing left behind, on kernels with fault
# injection; and where probes go through ftrace, a jprobe unregistered
# while its allocations fail in turn must leave no address of its in
# ftrace's IPMODIFY filter (kprobes_badinput's unregfail).  On a kernel
# with kmemleak, nothing allocated by Kprobes may leak from any of it.

. "$(dirname "$0")/functions.sh"

BI=/sys/kernel/debug/kprobes_badinput
SYSCTL=/proc/sys/debug/kprobes-optimization

ktap_print_header
insmod "$MODDIR/kprobes_badinput.ko" || { ktap_set_plan 1; ktap_test_fail "kprobes_badinput loads"; ktap_finished; }
ncases=$(wc -l < $BI/cases)
nscen=$(wc -l < $BI/failnth)
FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
unreg=0
[ -e $BI/unregfail ] && [ -d $FS ] && [ -d $FP ] && unreg=1
# Control files: 4 bad writes to enabled and 9 that upstream takes too,
# 7 bad writes to the sysctl, 6 non-root.
KML=/sys/kernel/debug/kmemleak
ktap_set_plan $((ncases + 13 + 7 + 6 + nscen + unreg + 2 + $([ -e $KML ] && echo 1 || echo 0)))
clear_log

# errno names of the values the cases expect
errname() {
	case $1 in
	0) echo "no error" ;; -2) echo ENOENT ;; -7) echo E2BIG ;;
	-12) echo ENOMEM ;; -16) echo EBUSY ;; -22) echo EINVAL ;;
	-84) echo EILSEQ ;; *) echo "$1" ;;
	esac
}

state() {
	cat $DEBUGFS/list $DEBUGFS/enabled
	[ -e $SYSCTL ] && cat $SYSCTL
}

# 1. The API, one case at a time.
while IFS="$(printf '\t')" read -r n want desc; do
	before=$(state)
	echo "$n" > $BI/run
	set -- $(cat $BI/run)	# <returned> <text> <left registered>
	after=$(state)
	if [ "$1" = "$want" ] && [ "$2" = same ] && [ "$3" = 0 ] && [ "$before" = "$after" ]; then
		ktap_test_pass "$desc: $(errname "$want"), nothing changed"
	else
		echo "# returned $1 ($(errname "$1")), text $2, $3 left registered"
		[ "$before" = "$after" ] || echo "# list or knobs changed"
		ktap_test_fail "$desc: $(errname "$want"), nothing changed"
	fi
done < $BI/cases

# 2. The control files: a bad write fails with EINVAL and changes nothing;
# enabled takes what kstrtobool() takes, as upstream's file does.
# bad_write <file> <description> <string>: echo (which reports a failed
# write, where printf's buffered output does not) writes it and a newline.
bad_write() {
	before=$(state)
	err=$( { echo "$3" > "$1"; } 2>&1 )
	rc=$?
	after=$(state)
	[ $rc -ne 0 ] || echo "# the write succeeded"
	[ -z "$err" ] || echo "# $err"
	check "$(basename "$1"): $2 is refused (EINVAL), nothing changed" \
		sh -c "[ $rc -ne 0 ] && echo '$err' | grep -q 'Invalid argument' && [ '$before' = '$after' ]"
}
long=$(head -c 5000 /dev/zero | tr '\0' '1')
for f in $DEBUGFS/enabled $SYSCTL; do
	bad_write $f '"2"' 2
	bad_write $f '"-1"' -1
	bad_write $f '"abc"' abc
	bad_write $f 'a lone newline' ''
done
bad_write $SYSCTL '5000 characters' "$long"
bad_write $SYSCTL '"1x"' 1x
# A write at an offset: dd seeks before it writes.  proc_sysctl's strict
# writes ignore a write past the start.
before=$(state)
printf 0 | dd of=$SYSCTL bs=1 seek=1 conv=notrunc 2> /dev/null
check "$(basename $SYSCTL): a write at offset 1 changes nothing" \
	[ "$before" = "$(state)" ]
# good_write <description> <state it leaves> <string>
good_write() {
	err=$( { echo "$3" > $DEBUGFS/enabled; } 2>&1 )
	rc=$?
	[ -z "$err" ] || echo "# $err"
	check "enabled: $1 is taken, and reads back $2" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(cat $DEBUGFS/enabled)\" = $2 ]"
}
good_write '"N"' 0 N
good_write '"Y"' 1 Y
good_write '"n"' 0 n
good_write '"y"' 1 y
good_write '"off"' 0 off
good_write '"on"' 1 on
echo 0 > $DEBUGFS/enabled
good_write '"1x" (kstrtobool reads the first character)' 1 1x
echo 0 > $DEBUGFS/enabled
good_write '5000 characters of 1' 1 "$long"
# The offset is not looked at: "0" at offset 1 turns it off.
printf 0 | dd of=$DEBUGFS/enabled bs=1 seek=1 conv=notrunc 2> /dev/null
rc=$?
check "enabled: a write at offset 1 is taken as at 0" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(cat $DEBUGFS/enabled)\" = 0 ]"
echo 1 > $DEBUGFS/enabled

# 3. Non-root: debugfs and its files are root's; the sysctl is read-only.
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
before=$(state)
for f in list enabled blacklist; do
	check_fails "non-root cannot read $f" \
		su -s /bin/sh nobody -c "cat $DEBUGFS/$f > /dev/null 2>&1"
done
check_fails "non-root cannot write enabled" \
	sh -c "su -s /bin/sh nobody -c 'echo 0 > $DEBUGFS/enabled' 2>/dev/null"
check "non-root reads the sysctl" sh -c "su -s /bin/sh nobody -c 'cat $SYSCTL' | grep -qx '[01]'"
check "non-root cannot write the sysctl, and nothing changed" \
	sh -c "! su -s /bin/sh nobody -c 'echo 0 > $SYSCTL' 2>/dev/null && [ '$before' = \"\$(cat $DEBUGFS/list $DEBUGFS/enabled $SYSCTL)\" ]"

# 4. Allocation failure, every allocation of each scenario in turn.
if [ -d $FS ] && [ -d $FP ]; then
	for d in $FS $FP; do
		echo 0 > $d/ignore-gfp-wait
		echo 0 > $d/verbose
	done
	echo 0 > $FP/min-order
	while IFS="$(printf '\t')" read -r n desc; do
		echo "$n" > $BI/failnth
		res=$(cat $BI/result)
		echo "# $desc: $res"
		check "allocation failure: $desc: each fails with ENOMEM, none leaves a trace, and it works after" \
			sh -c "echo '$res' | grep -q ' wrong=0 ' && echo '$res' | grep -q 'works_after=1' &&
			       ! echo '$res' | grep -q ' failed=0 '"
	done < $BI/failnth
	if [ $unreg = 1 ]; then
		echo 1 > $BI/unregfail
		res=$(cat $BI/unregfail)
		echo "# unregister_jprobe() at an ftrace entry: $res"
		check "allocation failure in unregister_jprobe() at an ftrace entry: the function is free for a livepatch after" \
			sh -c "echo '$res' | grep -q ' wrong=0 '"
	fi
	for d in $FS $FP; do
		echo 1 > $d/ignore-gfp-wait
	done
else
	while IFS="$(printf '\t')" read -r n desc; do
		skip "allocation failure: $desc: each fails with ENOMEM, none leaves a trace, and it works after" \
			"no failslab and fail_page_alloc in this kernel"
	done < $BI/failnth
fi

rmmod kprobes_badinput
check "nothing is left in the list" sh -c "! grep -q . $DEBUGFS/list"
check "no splat in the kernel log" no_splat
[ -e $KML ] && kmemleak_check 'kprobe|kretprobe|jprobe|insn_slot|kbi_|badinput'
ktap_finished
