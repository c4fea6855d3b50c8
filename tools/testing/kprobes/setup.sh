#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the harness needs from Debian's archive: the pinned base
# kernel source and the build and boot tools.  Does nothing when all of it
# is already present, so every make target can call it.
set -euo pipefail

PIN=${KPROBES_BASE_VERSION:-6.12.117-1~deb12u1}
TARBALL=/usr/src/linux-source-6.12.tar.xz
TOOLS="gcc make flex bison bc libelf-dev libssl-dev cpio dwarves python3 rsync
       kmod qemu-system-x86 busybox-static bash-static xz-utils git
       linux-perf bpftrace libc6-dev"

missing=()
for p in $TOOLS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ -f "$TARBALL" ] || missing+=(linux-source-6.12)
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
echo "setup: installing ${missing[*]}"
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
$SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
