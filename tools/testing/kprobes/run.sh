#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the built kernel under QEMU (TCG, 2 vCPUs) with the test initramfs.
#   run.sh <check|demo|shell> [log file] [extra kernel arguments...]
# The console goes to stdout (and to the log file when given).
#   QEMU_EXTRA  more QEMU options (make bench adds -icount)
#   TIMEOUT     seconds before the machine is stopped (default 900)
#   CPUS        vCPUs (default 2)
#   MEM         guest memory in MiB (default 1024)
#   GUEST_TOOLS=1  perf and bpftrace in the initramfs (mkinitramfs.sh)
#   TCG_THREAD  multi (default): a host thread per vCPU, so that both run
#               at once; single: one thread takes turns between them
#   KERNEL, OBJ which kernel (kernels.sh; default: test, build/obj)
#   GUEST_ARCH  the kernel's architecture, one of arch-tools.sh's
#               (default: x86_64), with that architecture's busybox
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
. "$top/tools/testing/kprobes/kernels.sh"
obj=${OBJ:-$(kernel_obj "${KERNEL:-test}")}
mode=$1
log=${2:-}
shift $(( $# > 1 ? 2 : 1 ))

qemu=(qemu-system-x86_64 -cpu max) console=ttyS0 image=arch/x86/boot/bzImage
guest=${GUEST_ARCH:-x86_64}
if [ "$guest" != x86_64 ]; then
	. "$top/tools/testing/kprobes/arch-tools.sh"
	arch_describe "$guest" || { echo "run: no $guest" >&2; exit 2; }
	arch_packages
	arch_busybox "$guest"
	export BUSYBOX=$bb
fi
initrd=$obj/initramfs.cpio
OBJ="$obj" GUEST_ARCH=$guest "$top/tools/testing/kprobes/mkinitramfs.sh" "$initrd"

# A guest that wedges reports where, a minute before QEMU is stopped
# (init's report_wedge); not under -icount, whose guest clock is not the
# host's.
wedge=
case "${QEMU_EXTRA:-}" in
*icount*) ;;
*) [ "$mode" = shell ] || [ "${TIMEOUT:-900}" -le 120 ] ||
	wedge="kpwedge=$(( ${TIMEOUT:-900} - 60 ))" ;;
esac

# -icount counts one instruction stream: QEMU refuses it with a thread
# per vCPU.
thread=${TCG_THREAD:-multi}
case "${QEMU_EXTRA:-}" in *icount*) thread=single ;; esac
cmd=("${qemu[@]}" -accel "tcg,thread=$thread" -smp "${CPUS:-2}" -m "${MEM:-1024}"
     -nographic -no-reboot -kernel "$obj/$image"
     -initrd "$initrd"
     -append "console=$console panic=-1 watchdog_thresh=5 kptest=$mode $wedge $*"
     ${QEMU_EXTRA:-})

if [ "$mode" = shell ]; then
	exec "${cmd[@]}"
fi
if [ -z "$log" ]; then
	exec timeout --foreground "${TIMEOUT:-900}" "${cmd[@]}" < /dev/null 2>&1
fi

if [ "$guest" != x86_64 ]; then
	rc=0
	timeout --foreground "${TIMEOUT:-900}" "${cmd[@]}" < /dev/null 2>&1 | tee "$log" || rc=$?
	exit $rc
fi
# A guest that wedges so that no CPU runs its /init any more cannot report
# itself: 20 s before the timeout, QEMU's monitor says where each vCPU is
# (qemu_regs.py, x86's registers), after the console in the log.
mon=$(mktemp -u /tmp/kprobes-qemu-mon.XXXXXX)
cmd+=(-monitor "unix:$mon,server=on,wait=off")
python3 "$top/tools/testing/kprobes/qemu_regs.py" $(( ${TIMEOUT:-900} - 20 )) \
	"$mon" "$obj/System.map" > "$log.host" 2>/dev/null &
regs=$!
rc=0
timeout --foreground "${TIMEOUT:-900}" "${cmd[@]}" < /dev/null 2>&1 | tee "$log" || rc=$?
kill $regs 2>/dev/null || true
wait $regs 2>/dev/null || true
cat "$log.host" >> "$log"
rm -f "$mon" "$log.host"
exit $rc
