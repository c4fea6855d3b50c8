# SPDX-License-Identifier: GPL-2.0
#
# What booting another architecture under QEMU takes, shared by
# arch-boot.sh (the checks) and bench.sh (make bench ARCH=arm64).  Sourced;
# $BUILD must be set.
#   arch_describe <arch>  sets karch, cross, image, debarch, pkgs, qemu
#                         (QEMU's command and machine, without -append) and
#                         console (its kernel argument)
#   arch_packages         installs what $pkgs names and is missing
#   arch_busybox <arch>   a static busybox of it in $BUILD/busybox-<arch>
#                         (once), set in $bb

arch_describe() {
	karch=$1
	case "$1" in
	arm64|arm64-sites)
		karch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image debarch=arm64
		pkgs="gcc-aarch64-linux-gnu qemu-system-arm"
		qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57) console=ttyAMA0
		;;
	arm)
		karch=arm cross=arm-linux-gnueabihf- image=arch/arm/boot/zImage debarch=armhf
		pkgs="gcc-arm-linux-gnueabihf qemu-system-arm"
		qemu=(qemu-system-arm -M virt -cpu cortex-a15) console=ttyAMA0
		;;
	ppc64le)
		karch=powerpc cross=powerpc64le-linux-gnu- image=vmlinux debarch=ppc64el
		pkgs="gcc-powerpc64le-linux-gnu qemu-system-ppc"
		qemu=(qemu-system-ppc64 -M pseries -cpu power9) console=hvc0
		;;
	s390x)
		karch=s390 cross=s390x-linux-gnu- image=arch/s390/boot/bzImage debarch=s390x
		pkgs="gcc-s390x-linux-gnu qemu-system-s390x"
		qemu=(qemu-system-s390x -M s390-ccw-virtio -cpu max) console=ttysclp0
		;;
	riscv64)
		karch=riscv cross=riscv64-linux-gnu- image=arch/riscv/boot/Image debarch=riscv64
		pkgs="gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-system-riscv"
		qemu=(qemu-system-riscv64 -M virt -cpu rv64) console=ttyS0
		;;
	i386)
		cross= image=arch/x86/boot/bzImage debarch=i386
		pkgs="gcc qemu-system-x86"
		qemu=(qemu-system-i386 -cpu max,vendor=GenuineIntel) console=ttyS0
		;;
	x86_64-fp)
		karch=x86_64 cross= image=arch/x86/boot/bzImage debarch=amd64
		pkgs="gcc qemu-system-x86"
		qemu=(qemu-system-x86_64 -cpu max) console=ttyS0
		;;
	*) return 1 ;;
	esac
}

arch_packages() {
	local p missing= backports=

	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	echo "arch: installing$missing"
	# QEMU from bookworm-backports, as setup.sh installs it (its parts
	# share one qemu-system-common).
	grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ &&
		backports="-t bookworm-backports"
	apt-get install -y -qq --no-install-recommends $backports $missing > /dev/null
}

# build_busybox <dir>: a static busybox with the applets arch-init uses,
# from Debian's source of its busybox, by the cross compiler (a few
# seconds), for an architecture Debian 12 has no package of.
build_busybox() {
	local dir=$1 o
	grep -rqs '^deb-src.*debian bookworm main' /etc/apt/sources.list /etc/apt/sources.list.d/ || {
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
			> /etc/apt/sources.list.d/kprobes-src.list
		apt-get update -qq > /dev/null 2>&1 || true
	}
	(cd "$dir" && apt-get source --download-only -qq busybox > /dev/null 2>&1)
	tar -xjf "$dir"/busybox_*.orig.tar.bz2 -C "$dir"
	(
		cd "$dir"/busybox-*/
		make -s allnoconfig > /dev/null
		for o in STATIC BUSYBOX SH_IS_ASH ASH ASH_ECHO ASH_TEST FEATURE_SH_MATH \
			 MOUNT DMESG INSMOD RMMOD GREP CAT REBOOT HALT TRUE; do
			sed -i "s/^# CONFIG_$o is not set/CONFIG_$o=y/" .config
		done
		{ yes "" || true; } | make -s oldconfig > /dev/null 2>&1
		make -s CROSS_COMPILE="$cross" -j"$(nproc)" > /dev/null 2>&1
	)
	cp "$dir"/busybox-*/busybox "$bb"
}

# From Debian's archive (once), or built (riscv64); the host's own for its
# own architecture.  arch_describe first.
arch_busybox() {
	local tmp

	bb=$BUILD/busybox-$1
	if [ ! -x "$bb" ] && [ -x /bin/busybox ] &&
	   [ "$debarch" = "$(dpkg --print-architecture)" ]; then
		cp /bin/busybox "$bb"
	fi
	if [ ! -x "$bb" ] && [ "$debarch" = riscv64 ]; then
		# Not a release architecture of Debian 12: no package to fetch.
		tmp=$(mktemp -d)
		build_busybox "$tmp"
		rm -rf "$tmp"
	fi
	if [ ! -x "$bb" ]; then
		dpkg --print-foreign-architectures | grep -qx "$debarch" ||
			dpkg --add-architecture "$debarch"
		# An index of the archive may be mid-sync (seen for
		# bookworm-security's i386 one): the download below says whether
		# what we need is there.
		apt-get update -qq > /dev/null 2>&1 || true
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -qq "busybox-static:$debarch")
		dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/x"
		cp "$tmp/x/bin/busybox" "$bb"
		rm -rf "$tmp"
	fi
}
