#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure (only when the fragments changed) and build the assembled tree:
# the kernel, the in-tree modules (samples), and the selftests' modules.
#   BUILD    build folder (default: build/)
#   SRC      the tree to build (default: $BUILD/src)
#   KERNEL   one of kernels.sh's names: sets the two below (default: test)
#   OBJ      output folder of this kernel (default: the KERNEL's)
#   CONFIGS  fragments of configs/ on top of tinyconfig (default: the KERNEL's)
#   EXTRA_CONFIGS  more fragment files
#   MODSRC   external modules to build (default: the selftests' modules)
#   GUEST_ARCH  an architecture of arch-tools.sh to build for, with
#            Debian's cross compiler (default: x86_64, the host's)
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
. "$top/tools/testing/kprobes/kernels.sh"
src=${SRC:-$BUILD/src}
obj=${OBJ:-$(kernel_obj "${KERNEL:-test}")}
frags=
for c in ${CONFIGS:-$(kernel_configs "${KERNEL:-test}")}; do frags="$frags $top/configs/$c.config"; done
frags="$frags ${EXTRA_CONFIGS:-}"
karch=x86_64 cross= image=arch/x86/boot/bzImage
if [ "${GUEST_ARCH:-x86_64}" != x86_64 ]; then
	. "$top/tools/testing/kprobes/arch-tools.sh"
	arch_describe "$GUEST_ARCH" || { echo "build: no $GUEST_ARCH" >&2; exit 2; }
	arch_packages
fi
# shellcheck disable=SC2046
kmake() { make -s -C "$src" O="$obj" ARCH="$karch" ${cross:+CROSS_COMPILE="$cross"} $(kernel_make_vars "${KERNEL:-test}") "$@"; }

mkdir -p "$obj"
want=$(cat $frags | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ]; then
	echo "build: configuring $obj"
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $frags >/dev/null
	kmake olddefconfig
	# Every option the fragments ask for must have stuck.
	bad=0
	for f in $frags; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) grep -qxF "$line" "$obj/.config" ||
				{ echo "build: config: $line did not stick" >&2; bad=1; } ;;
			esac
		done < "$f"
	done
	[ $bad -eq 0 ] || exit 1
	echo "$want" > "$obj/.fragments"
fi

echo "build: kernel in $obj"
# Settle options that a Kconfig change brought in, without asking.
kmake olddefconfig
# What the build says on stderr goes to the terminal and to a log, for
# the objtool check below.
warnings=$obj/build-warnings.log
{ kmake -j"$(nproc)" "$(basename "$image")" modules 2>&1 1>&3 | tee "$warnings" >&2; } 3>&1

# Objtool's warnings about our code fail the build (a pristine tree, with
# none of our files, is not held to it): those about an object of ours,
# and those whose function (the first symbol named) one of our objects
# defines.  vmlinux.o's warnings name only the function.
our_objtool_warnings() {
	local syms line fn
	syms=$(cd "$obj" && for f in kernel/kprobes/*.o arch/"$karch"/kernel/kprobes/*.o \
					arch/x86/kernel/kprobes/*.o; do
		[ -f "$f" ] && nm --defined-only "$f"
	done 2>/dev/null | awk '$2 ~ /^[tT]$/ {print $3}' | sort -u)
	{ grep 'warning: objtool:' "$warnings" || true; } | while read -r line; do
		case "$line" in
		kernel/kprobes/*|arch/*/kprobes/*|arch/*/probes/*|samples/kprobes/*)
			echo "$line"
			continue ;;
		esac
		fn=$(sed -n 's/.*warning: objtool: \([^+: ]*\).*/\1/p' <<<"$line")
		[ -z "$fn" ] || ! grep -qxF "$fn" <<<"$syms" || echo "$line"
	done
}
if [ -f "$src/kernel/kprobes/register.c" ]; then
	bad=$(our_objtool_warnings)
	if [ -n "$bad" ]; then
		echo "build: objtool warns about our code:" >&2
		echo "$bad" >&2
		exit 1
	fi
fi
# The selftests' modules, built in a copy per kernel so that two kernels
# never share objects (rsync -c keeps unchanged files' times).
kst=${MODSRC:-$src/tools/testing/selftests/kprobes/test_modules}
if [ -d "$kst" ]; then
	mkdir -p "$obj/selftest-modules"
	rsync -rc "$kst/" "$obj/selftest-modules/"
	# A module's BTF is split BTF on top of vmlinux's, but kbuild links
	# an external module again only when the module changed: after a new
	# vmlinux the old .ko would be refused at load ("failed to validate
	# module BTF").
	if grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$obj/.config"; then
		find "$obj/selftest-modules" -name '*.ko' ! -newer "$obj/vmlinux" -delete
	fi
	# MODULES: only these (make bench builds just its module, which
	# pristine upstream can build too).
	kmake -j"$(nproc)" M="$obj/selftest-modules" ${MODULES:+KPROBES_MODULES="$MODULES"} modules
fi
# Every instruction boundary of some core functions, for test-everyinsn.sh.
[ "$karch" = x86_64 ] || exit 0
if [ ! "$obj/everyinsn.txt" -nt "$obj/vmlinux" ] ||
   [ "$top/tools/testing/kprobes/everyinsn.py" -nt "$obj/everyinsn.txt" ]; then
	python3 "$top/tools/testing/kprobes/everyinsn.py" "$obj" > "$obj/everyinsn.txt.tmp"
	mv "$obj/everyinsn.txt.tmp" "$obj/everyinsn.txt"
fi
