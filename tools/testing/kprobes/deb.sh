#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the assembled tree, configured with Debian's own 6.12 config
# for the running architecture (package linux-config-6.12), built into
# installable linux-image and linux-headers packages (make bindeb-pkg) in
# $BUILD/deb/; then deb-boot.sh installs them into a minimal Debian 12
# and boots it under QEMU.
#   DEB_CONFIG   the config (default: Debian's, installed if missing)
#   DEB_MODULES  "all" (default): every module Debian's config builds;
#                "boot": only those the QEMU boot loads, a much shorter
#                build of the same built-in kernel (make localmodconfig)
#   DEB_BOOT=0   build the packages only
#   SRC          the tree (default: $BUILD/src)
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=${SRC:-$BUILD/src}
out=$BUILD/deb
obj=$out/obj
arch=$(dpkg --print-architecture)
pkg=linux-config-6.12
cfg=${DEB_CONFIG:-/usr/src/$pkg/config.${arch}_none_${arch}.xz}
modules=${DEB_MODULES:-all}
case "$arch" in
amd64) karch=x86_64 ;;
arm64) karch=arm64 ;;
*) echo "deb: no kernel architecture known for $arch" >&2; exit 1 ;;
esac

need=()
for p in $pkg dpkg-dev debhelper; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "deb: installing ${need[*]}"
	apt-get update -qq > /dev/null 2>&1 || true
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${need[@]}" > /dev/null
fi
[ -f "$cfg" ] || { echo "deb: no $cfg" >&2; exit 1; }

# LOCALVERSION set, empty: no "+" for a tree that is not at a tag.
kmake() { make -s -C "$src" O="$obj" ARCH="$karch" LOCALVERSION= "$@"; }

# The modules the boot of deb-boot.sh loads, as lsmod would list them:
# the disk, its file system and what they need; the rest of Debian's
# modules are left out with DEB_MODULES=boot.
boot_modules() {
	echo "Module Size Used by"
	for m in virtio_blk virtio_pci virtio_pci_modern_dev virtio_pci_legacy_dev \
		 virtio_ring virtio ext4 jbd2 mbcache crc16 crc32c_generic \
		 crc32c_intel libcrc32c; do
		echo "$m 16384 0"
	done
}

mkdir -p "$obj"
# Configure when the config, the choice of modules or this script changed.
want=$( { cat "$cfg" "$0"; echo "$modules"; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.deb" 2>/dev/null)" != "$want" ]; then
	echo "deb: configuring $obj from $(basename "$cfg") (modules: $modules)"
	case "$cfg" in
	*.xz) xz -dc "$cfg" > "$obj/.config" ;;
	*) cp "$cfg" "$obj/.config" ;;
	esac
	# Debian's certificates are not in this tree: the build makes its
	# own module signing key.  The name says whose kernel it is.
	"$src/scripts/config" --file "$obj/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str LOCALVERSION "-kprobes" --disable LOCALVERSION_AUTO
	kmake olddefconfig
	if [ "$modules" = boot ]; then
		boot_modules > "$out/lsmod"
		LSMOD="$out/lsmod" kmake localmodconfig < /dev/null > /dev/null 2>&1
		kmake olddefconfig
	fi
	for opt in KPROBES KRETPROBES OPTPROBES KPROBES_ON_FTRACE KPROBE_EVENTS; do
		grep -q "^CONFIG_$opt=y" "$obj/.config" ||
			{ echo "deb: CONFIG_$opt is not y with this config" >&2; exit 1; }
	done
	echo "$want" > "$obj/.deb"
fi

# The packages go to $obj's parent, $out.  No -dbg package: Debian's
# config has DWARF (for the kernel's BTF), and a copy of it for every
# module would double the time.
version=$(kmake -s kernelrelease)
echo "deb: building $version ($(grep -c '=m$' "$obj/.config") modules; nproc $(nproc))"
rm -f "$out"/linux-*.deb
t0=$(date +%s)
kmake -j"$(nproc)" bindeb-pkg DEB_BUILD_PROFILES=pkg.linux-upstream.nokerneldbg \
	KDEB_PKGVERSION="${version%-kprobes}-1" > "$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log"; echo "deb: the build failed ($out/build.log)" >&2; exit 1; }
echo "deb: built in $(( $(date +%s) - t0 )) s:"
ls -s --block-size=M "$out"/linux-*.deb | sed 's/^/  /'
for p in linux-image linux-headers; do
	ls "$out/$p-$version"_*.deb > /dev/null 2>&1 ||
		{ echo "deb: no $p package" >&2; exit 1; }
done

[ "${DEB_BOOT:-1}" = 0 ] || "$top/tools/testing/kprobes/deb-boot.sh" "$version"
