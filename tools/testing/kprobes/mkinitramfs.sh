#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the test initramfs: static busybox, /init, the samples' and the
# selftests' modules, and the selftest scripts with kselftest's KTAP helpers.
#   mkinitramfs.sh <output.cpio>
#   SCRIPTS  where the selftest scripts are (default: the assembled tree's)
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
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
scripts=${SCRIPTS:-$src/tools/testing/selftests/kprobes}
find "$obj/samples/kprobes" "$obj/samples/livepatch" "$obj/selftest-modules" \
	-name '*.ko' -exec cp {} "$root/lib/modules/kprobes/" \; 2>/dev/null || true
cp "$scripts"/*.sh "$root/kselftest/kprobes/"
cp "$src/tools/testing/selftests/kselftest/ktap_helpers.sh" "$root/kselftest/kprobes/"
# Extra files: EXTRA_FILES="host-path:initramfs-path ..."
for pair in ${EXTRA_FILES:-}; do
	cp "${pair%%:*}" "$root/${pair#*:}"
done
chmod -R go+rX "$root"
(cd "$root" && find . | cpio -o -H newc --quiet) > "$out"
