#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make conformance: everything a module or a script can
# observe of the Kprobes core, as lines between "kpconf-begin" and
# "kpconf-end", the same on pristine upstream and on ours
# (tools/testing/kprobes/conformance.sh compares them).  Uses only what
# upstream 6.12 has.
#   conformance.sh [places file]   the places file: the acceptance sweep's
#                                  "name offset offset ..." lines

MOD=${KPROBES_MODDIR:-/lib/modules/kprobes}/kprobes_conformance.ko
D=/sys/kernel/debug/kprobes
OPT=/proc/sys/debug/kprobes-optimization
places=${1:-}

# module <args...>: load it, print what it wrote, unload it.
module() {
	if ! insmod "$MOD" "$@"; then
		echo "module $* insmod failed"
		return
	fi
	cat /sys/kernel/debug/kprobes_conformance/out
	rmmod kprobes_conformance
}

# list <tag>: the list file, its addresses masked.
list() {
	sed -e 's/^[0-9a-f]\{8,16\}  /ADDR  /' -e "s/^/$1 /" $D/list
}

# settle: wait until the optimizers are done (each at its own pace:
# upstream's starts 5 ticks after a change, ours at once), that is until
# the list's [OPTIMIZED] count has held for two seconds, 20 s at most.
settle() {
	prev=x same=0
	for i in $(seq 20); do
		n=$(grep -c OPTIMIZED $D/list)
		if [ "$n" = "$prev" ]; then
			same=$((same + 1))
			[ $same -ge 2 ] && return
		else
			same=0
		fi
		prev=$n
		sleep 1
	done
}

# write <file> <tag> <value>: write the value as given (no newline) and
# with a newline; whether each write was taken and what the file says.
write() {
	for nl in no yes; do
		echo "$4" > "$1"
		if [ $nl = yes ]; then
			printf '%s\n' "$3" > "$1" 2> /dev/null
		else
			printf '%s' "$3" > "$1" 2> /dev/null
		fi
		rc=$?
		echo "$2 [$3] newline=$nl rc=$rc now=$(cat "$1")"
	done
}

echo "kpconf-begin"
echo 1 > $OPT
module cases=errno,context,missed,pair

insmod "$MOD" cases=hold
settle
cat /sys/kernel/debug/kprobes_conformance/out
list list
echo 0 > $OPT
settle
list list-unoptimized
echo 1 > $OPT
settle
echo 0 > $D/enabled
settle
list list-disarmed
echo "enabled-disarmed $(cat $D/enabled)"
echo 1 > $D/enabled
settle
list list-rearmed
rmmod kprobes_conformance
list list-after-rmmod

for v in 1 0 y n Y N yes no on off ON OFF On oF 1x 0x 2 -1 t f true false \
	 01 10 '' ' ' ' 1' '1 ' 'n1' 'y0' 'o' 'onx' '0x1'; do
	write $D/enabled enabled "$v" 1
done
echo 1 > $D/enabled
for v in 0 1 2 -1 01 00 0x1 ' 1' '1 ' '1 0' '' abc 1x 2147483647 2147483648 \
	 -2147483648 +1; do
	write $OPT sysctl "$v" 1
done
echo 1 > $OPT
echo "sysctl-mode $(stat -c %a $OPT)"
echo "enabled-mode $(stat -c %a $D/enabled) list-mode $(stat -c %a $D/list) blacklist-mode $(stat -c %a $D/blacklist)"

# The blacklist as names ("func" or "func [mod]"), sorted.
sed 's/^0x[0-9a-f]*-0x[0-9a-f]*\t//' $D/blacklist | sort -u | sed 's/^/blacklist /'
grep -c . $D/blacklist | sed 's/^/blacklist-lines /'

if [ -s "$places" ]; then
	# Acceptance, not optimizing: each probe is registered disabled.
	echo 0 > $OPT
	module cases=accept places="$places"
	echo 1 > $OPT
fi
echo "kpconf-end"
