#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the test initramfs: static busybox, /init, the samples' and the
# selftests' modules, and the selftest scripts with kselftest's KTAP helpers.
#   mkinitramfs.sh <output.cpio>
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=${SRC:-$BUILD/src}
obj=${OBJ:-$BUILD/obj}
out=$1
root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc,lib/modules/kprobes,kselftest/kprobes}
cp /bin/busybox "$root/bin/busybox"
install -m 755 "$top/tools/testing/kprobes/init" "$root/init"
find "$obj/samples/kprobes" "$src/tools/testing/selftests/kprobes" \
	-name '*.ko' -exec cp {} "$root/lib/modules/kprobes/" \; 2>/dev/null || true
cp "$src"/tools/testing/selftests/kprobes/*.sh "$root/kselftest/kprobes/"
cp "$src/tools/testing/selftests/kselftest/ktap_helpers.sh" "$root/kselftest/kprobes/"
(cd "$root" && find . | cpio -o -H newc --quiet) > "$out"
