#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-boot.sh <kernelrelease>: install the packages make deb wrote to
# $BUILD/deb/ into a minimal Debian 12 (debootstrap, made once in
# $BUILD/deb/rootfs-base), as a user would with dpkg -i, build the three
# Kprobes samples out of tree against the installed linux-headers
# package, and boot that system under QEMU (TCG, 2 vCPUs) with the
# installed kernel and the initramfs its installation made.  Inside, it
# checks the kernel's name, the Kprobes list and its switch, a kprobe
# event that fires, and each sample's handlers.  Prints a line per check;
# exit status 0 when all passed.  The console is $BUILD/deb/boot.log.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
out=$BUILD/deb
ver=$1
base=$out/rootfs-base
root=$out/rootfs
img=$out/rootfs.img
log=$out/boot.log
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}

for p in debootstrap e2fsprogs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"$p" > /dev/null
done

if [ ! -f "$base/.done" ]; then
	echo "deb-boot: a minimal Debian 12 in $base (debootstrap, once)"
	rm -rf "$base"
	debootstrap --variant=minbase --include=initramfs-tools,kmod,zstd \
		bookworm "$base" "$mirror" > "$out/debootstrap.log" 2>&1 ||
		{ tail -20 "$out/debootstrap.log"; exit 1; }
	touch "$base/.done"
fi
rm -rf "$root"
cp -a "$base" "$root"

# Installed as a user would: dpkg -i, whose hooks make the initramfs.
echo "deb-boot: installing the packages into $root"
cp "$out/linux-image-${ver}"_*.deb "$out/linux-headers-${ver}"_*.deb "$root/tmp/"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2> /dev/null || true' EXIT
chroot "$root" sh -c 'dpkg -i /tmp/linux-*.deb' > "$out/install.log" 2>&1 ||
	{ tail -20 "$out/install.log"; echo "deb-boot: dpkg -i failed" >&2; exit 1; }
umount "$root/proc"
for f in "boot/vmlinuz-$ver" "boot/initrd.img-$ver" "usr/src/linux-headers-$ver/Makefile"; do
	[ -e "$root/$f" ] || { echo "deb-boot: the packages installed no /$f" >&2; exit 1; }
done

# The samples, as a user's module: built against the headers package.
mods=$out/samples
rm -rf "$mods"
mkdir -p "$mods"
cp "$top"/samples/kprobes/{kprobe,kretprobe,jprobe}_example.c "$mods/"
echo "obj-m := kprobe_example.o kretprobe_example.o jprobe_example.o" > "$mods/Kbuild"
make -s -C "$root/usr/src/linux-headers-$ver" M="$mods" modules > "$out/samples.log" 2>&1 ||
	{ cat "$out/samples.log"; echo "deb-boot: the samples did not build" >&2; exit 1; }
cp "$mods"/*.ko "$root/root/"

cat > "$root/kptest-init" <<EOF
#!/bin/sh
# The checks inside; each prints "deb-boot: ok <what>" or "deb-boot: FAIL <what>".
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs none /sys/kernel/debug
mount -t tracefs none /sys/kernel/tracing
check() { if eval "\$2"; then echo "deb-boot: ok \$1"; else echo "deb-boot: FAIL \$1"; fi; }
t=/sys/kernel/tracing
check "the kernel is $ver" '[ "\$(uname -r)" = "$ver" ]'
check "kprobes are enabled" '[ "\$(cat /sys/kernel/debug/kprobes/enabled)" = 1 ]'
echo 'p:deb_clone kernel_clone' >> \$t/kprobe_events
echo 1 > \$t/events/kprobes/deb_clone/enable
for i in 1 2 3; do /bin/true; done
check "a kprobe event at kernel_clone fires" 'grep -q deb_clone: \$t/trace'
grep kernel_clone /sys/kernel/debug/kprobes/list | sed 's/^/deb-boot: list: /'
check "it rides ftrace ([FTRACE])" 'grep -q "kernel_clone+0x[0-9a-f]* .*\[FTRACE\]" /sys/kernel/debug/kprobes/list'
echo 0 > \$t/events/kprobes/deb_clone/enable
echo '-:deb_clone' >> \$t/kprobe_events
for s in kprobe:pre_handler: kretprobe:returned jprobe:exit_signal; do
	m=\${s%%:*}_example
	dmesg -C
	insmod /root/\$m.ko
	for i in 1 2 3; do /bin/true; done
	rmmod \$m
	check "the \$m sample's handlers run" 'dmesg | grep -q "\${s#*:}"'
done
echo "deb-boot: done"
sync
echo o > /proc/sysrq-trigger
# Wait for the power-off in the shell alone: the disk goes away under it,
# and a command read from there would crash init first (a panic).
while :; do :; done
EOF
chmod 755 "$root/kptest-init"

size=$(( $(du -sm "$root" | cut -f1) + 512 ))
rm -f "$img"
mkfs.ext4 -q -F -L root -d "$root" "$img" "${size}M"

echo "deb-boot: booting $ver (console in $log)"
timeout 1200 qemu-system-x86_64 -accel tcg,thread=multi -smp 2 -m 2048 -cpu max \
	-nographic -no-reboot -kernel "$root/boot/vmlinuz-$ver" \
	-initrd "$root/boot/initrd.img-$ver" \
	-append "root=/dev/vda rw console=ttyS0 init=/kptest-init panic=-1" \
	-drive file="$img",format=raw,if=virtio > "$log" 2>&1 < /dev/null || true
tr -d '\r' < "$log" | grep '^deb-boot: ' || true
tr -d '\r' < "$log" | grep -q '^deb-boot: done' &&
	! tr -d '\r' < "$log" | grep -q '^deb-boot: FAIL' &&
	! grep -qE 'Kernel panic|BUG:|WARNING:|Oops' "$log" ||
	{ echo "deb-boot: FAILED (console in $log)" >&2; exit 1; }
echo "deb-boot: passed"
