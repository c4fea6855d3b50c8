#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A probe at every instruction boundary of the core kernel functions a
# workload runs through (kprobes_everyinsn.ko; the boundaries come from
# the build's objdump, everyinsn.txt).  First a probe at each function's
# entry finds which functions a workload of file I/O, fork/exec, memory
# mapping and scheduling calls, on both CPUs; then every boundary of
# those functions is probed, a batch per function, left to be optimized
# where allowed, and the workload runs again under them.  The counts
# accepted and refused (by errno) are printed; the workload's results
# must not change, and nothing may be left in the list afterwards.

. "$(dirname "$0")/functions.sh"

EV=/sys/kernel/debug/kprobes_everyinsn
LIST=$(dirname "$0")/everyinsn.txt
# 220 functions, the smallest of those the workload calls (some 2,500
# places): at least 200 of them must be hit again.
MAX_FUNCS=${EVERYINSN_MAX_FUNCS:-220}
NEED=200

ktap_print_header
if [ ! -s "$LIST" ]; then
	ktap_skip_all "no everyinsn.txt in this initramfs"
	exit 4
fi
ktap_set_plan 11

# The workload: two of it at once, one per CPU.  Each copies a file,
# checksums it, forks and execs, and maps (exec, /proc/self/maps).
workload() {
	rm -f /tmp/ev.[12] /tmp/ev.[12].copy
	for w in 1 2; do
		(
			i=0
			while [ $i -lt 5 ]; do
				dd if=/dev/urandom of=/tmp/ev.$w bs=4k count=8 2>/dev/null
				cp /tmp/ev.$w /tmp/ev.$w.copy
				[ "$(md5sum < /tmp/ev.$w)" = "$(md5sum < /tmp/ev.$w.copy)" ] ||
					echo bad >> /tmp/ev.bad
				[ "$(sh -c 'echo $((6 * 7))')" = 42 ] || echo bad >> /tmp/ev.bad
				grep -q ' r-xp .*/busybox' /proc/self/maps || echo bad >> /tmp/ev.bad
				i=$((i + 1))
			done
		) &
	done
	wait
}

stat() {	# stat <name>: a count of the stats' first line
	head -n1 $EV/stats | sed -n "s/.*[ ^]$1=\([0-9]*\).*/\1/p"
}

rm -f /tmp/ev.bad
clear_log
insmod "$MODDIR/kprobes_everyinsn.ko"

# Phase 1: which functions does the workload call?
awk '$2 == 0' "$LIST" > $EV/places
start=$(date +%s)
echo register-all > $EV/ctl
echo "# entries registered in $(( $(date +%s) - start ))s"
workload
# Functions called at least 10 times (ten rounds of the workload ran, so
# they are on its paths, not one-offs), the smallest first: registration
# decodes a function once per probe in it (see Documentation), so the
# largest would cost most of the time without covering more paths.
sed -n 's/^hit //p' $EV/stats | awk '$2 >= 10 { print $1 }' > /tmp/ev.called
awk 'NR == FNR { called[$1] = 1; next }
     ($1 in called) { n[$1]++ }
     END { for (f in n) print n[f], f }' /tmp/ev.called "$LIST" |
	sort -n | head -n "$MAX_FUNCS" | cut -d' ' -f2 > /tmp/ev.funcs
echo "# entries: $(head -n1 $EV/stats)"
echo unregister > $EV/ctl
echo clear > $EV/ctl
nfuncs=$(wc -l < /tmp/ev.funcs)
check "the workload ran through at least $NEED of the functions ($nfuncs kept)" [ "$nfuncs" -ge $NEED ]

# Phase 2: every boundary of those functions.
awk 'NR == FNR { want[$1] = 1; next } want[$1]' /tmp/ev.funcs "$LIST" > $EV/places
start=$(date +%s)
echo register > $EV/ctl
echo "# registered in $(( $(date +%s) - start ))s: $(head -n1 $EV/stats)"
sleep 2
probes=$(grep -c '  k  ' $DEBUGFS/list)
optimized=$(grep -c 'OPTIMIZED' $DEBUGFS/list)
echo "# in the list: $probes probes, $optimized optimized"
accepted=$(stat accepted)
places=$(stat places)
check "most places accepted, a batch per function" \
	[ "${accepted:-0}" -gt $(( ${places:-0} / 2 )) ]
check "the list shows every accepted probe" [ "$probes" = "${accepted:-x}" ]
if [ -e /proc/sys/debug/kprobes-optimization ]; then
	check "some were optimized" [ "$optimized" -gt 0 ]
else
	ktap_test_skip "some were optimized"
fi
# Each place's own count from here, where all are armed (a busy function
# is called meanwhile: its ftrace entry and its int3s are armed apart).
echo zero > $EV/ctl
start=$(date +%s)
workload
echo "# workload under the probes in $(( $(date +%s) - start ))s"
check "the workload's results are unchanged" [ ! -e /tmp/ev.bad ]
hit=$(stat hit_functions)
check "the probes of at least $NEED functions were hit (${hit:-none})" [ "${hit:-0}" -ge $NEED ]
echo "# every boundary: $(head -n1 $EV/stats)"
# Each place of a function's entry block (everyinsn.txt's third column)
# runs each time the function's first instruction does: its hits and
# misses must add up to the entry's, give or take a CPU that was between
# the two when their breakpoints went in or out (4: two CPUs, twice).
cat $EV/hits > /tmp/ev.hits
awk 'NR == FNR { if ($3 == 1) block[$1 " " $2] = 1; next }
     { n[$1 " " $2] = $3 + $4 }
     END {
	for (p in n) {
		if (!(p in block)) continue
		split(p, a, " ")
		e = a[1] " 0"
		if (a[2] == 0 || !(e in n) || n[e] == 0) continue
		checked++
		d = n[p] - n[e]
		if (d < -4 || d > 4) {
			if (++bad <= 5) print "# " p ": " n[p] " hits, its entry " n[e]
		}
	}
	print "# entry blocks: " checked + 0 " places compared, " bad + 0 " off"
	print (bad + 0) " " (checked + 0) > "/tmp/ev.block"
     }' "$LIST" /tmp/ev.hits
read -r off compared < /tmp/ev.block
check "every place of an entry block fired as often as its entry ($compared places)" \
	[ "$off" = 0 -a "$compared" -ge 100 ]
start=$(date +%s)
check "all unregistered as one batch" sh -c "echo unregister > $EV/ctl"
echo "# unregistered in $(( $(date +%s) - start ))s"
check "nothing is left in the list" sh -c "! grep -q . $DEBUGFS/list"
echo clear > $EV/ctl
check "the module unloads" rmmod kprobes_everyinsn
check "no splat in the kernel log" no_splat

ktap_finished
