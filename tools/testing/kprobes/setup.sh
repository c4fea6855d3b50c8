#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the harness needs from Debian's archive: the pinned base
# kernel source and the build and boot tools.  Does nothing when all of it
# is already present, so every make target can call it.
#
# QEMU (x86, and arm and ppc for make arch-check) comes from Debian's
# bookworm-backports suite (10.x), which setup adds to apt's sources when
# it is not there.  Debian 12's own 7.2 leaves a vector in service that
# the guest never saw: under -icount the test kernel's KUnit stalled on
# CPU 1 with the reschedule IPI (253) in ISR and its timer behind it in
# IRR; the same kernel and command booted and passed under 10.0.2.
set -euo pipefail

PIN=${KPROBES_BASE_VERSION:-6.12.117-1~deb12u1}
TARBALL=/usr/src/linux-source-6.12.tar.xz
TOOLS="gcc make flex bison bc libelf-dev libssl-dev cpio dwarves python3 rsync
       kmod busybox-static bash-static xz-utils git
       linux-perf bpftrace libc6-dev"
# The clang kernel (make check CLANG=1) is built by Debian's clang-16.
case " ${KERNELS:-} " in
*" clang "*) TOOLS="$TOOLS clang-16 lld-16 llvm-16" ;;
esac
QEMU_PKGS="qemu-system-x86 qemu-system-arm qemu-system-ppc qemu-system-s390x qemu-system-riscv"
QEMU_MIN=1:10

missing=()
for p in $TOOLS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ -f "$TARBALL" ] || missing+=(linux-source-6.12)
qemu_old=()
for p in $QEMU_PKGS; do
	v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) &&
		dpkg --compare-versions "$v" ge "$QEMU_MIN" || qemu_old+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ ${#qemu_old[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
echo "setup: installing ${missing[*]} ${qemu_old[*]}"
if [ ${#qemu_old[@]} -gt 0 ] &&
   ! grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "deb http://deb.debian.org/debian bookworm-backports main" |
		$SUDO tee /etc/apt/sources.list.d/kprobes-backports.list > /dev/null
fi
$SUDO apt-get update -qq
pkgs=()
for p in "${missing[@]}"; do
	if [ "$p" = linux-source-6.12 ]; then
		# Not "| grep -q": with pipefail, apt-cache's SIGPIPE when
		# grep stops reading early would read as "not found".
		if apt-cache madison linux-source-6.12 | grep -F "$PIN" >/dev/null; then
			p="linux-source-6.12=$PIN"
		else
			echo "setup: WARNING: base $PIN is gone from the archive;" \
			     "falling back to the newest linux-source-6.12" >&2
		fi
	fi
	pkgs+=("$p")
done
[ ${#pkgs[@]} -eq 0 ] ||
	$SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
if [ ${#qemu_old[@]} -gt 0 ]; then
	# Both at once: they share qemu-system-common, one version for all.
	$SUDO apt-get install -y -qq --no-install-recommends \
		-t bookworm-backports $QEMU_PKGS > /dev/null
fi
