#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make patches: write the series of patches/series as git format-patch
# files on the pristine base (build/patches/, with the cover letter of
# patches/cover-letter as patch 0), then check it:
#   1. it applies with git am onto a fresh checkout of the base and gives
#      exactly the assembled tree;
#   2. scripts/checkpatch.pl --strict on each patch: no error, and no
#      warning unless the patch's message says why (a paragraph starting
#      "checkpatch:");
#   3. every step builds and boots: each kernel of make check (test,
#      tracing), configured from its fragments at that step, built
#      incrementally in build/src itself (each step checked out there in
#      turn, then the assembled tree again) and in make check's own object
#      folders, booted under QEMU to an
#      /init that prints a line and reboots (QEMU ends); after the switch to the
#      new core that /init also reads /sys/kernel/debug/kprobes/list.  A
#      step that only adds files no build reads (no Makefile, Kbuild or
#      Kconfig among them), or only changes Documentation/ or the
#      selftests, is the image of the step before, not rebuilt.  The
#      last step must have every option of the fragments, as make check's
#      kernels do (SERIES_BUILD=0 skips all of 3).  The last step is the
#      assembled tree, so the walk leaves make check's kernels built for
#      a make check after it.  The switch changes <linux/kprobes.h>,
#      which nine files in ten of either kernel include, so a kernel
#      built before it is built about twice.  SERIES_EARLY_KERNELS names
#      the kernels built before the switch (default: all; .ci/run's
#      choice is none: before the switch only patches 1, 2 and 8 change a
#      file a build compiles).
# Prints one line per patch: its size, checkpatch totals, build results.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
T=$top/tools/testing/kprobes
. "$T/kernels.sh"
src=$BUILD/src
out=$BUILD/patches
check=$BUILD/am-check
KERNELS=${SERIES_KERNELS:-test tracing}
# The kernels built at the steps before the switch (default: all).
early=${SERIES_EARLY_KERNELS-$KERNELS}
g() { git -C "$src" "$@"; }

rm -rf "$out"
g format-patch -q --cover-letter -o "$out" base..assembled
# The cover letter: subject and blurb from patches/cover-letter.
cover=$(ls "$out"/0000-*.patch)
python3 - "$cover" "$top/patches/cover-letter" <<'PY'
import sys
cover, src = sys.argv[1], sys.argv[2]
subject, _, blurb = open(src).read().partition("\n")
text = open(cover).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", blurb.strip("\n"))
open(cover, "w").write(text)
PY
n=$(ls "$out" | grep -vc '^0000-')
echo "patches: $n patches and a cover letter in $out"

# 1. git am onto the pristine base.
g worktree remove --force "$check" 2>/dev/null || rm -rf "$check"
g worktree prune
g worktree add -q --detach "$check" base
git -C "$check" -c user.name=check -c user.email=check@localhost \
	am -q $(ls "$out"/*.patch | grep -v '/0000-')
want=$(g rev-parse 'assembled^{tree}')
got=$(git -C "$check" rev-parse 'HEAD^{tree}')
g worktree remove --force "$check"
if [ "$want" != "$got" ]; then
	echo "patches: the series does not reproduce the assembled tree" >&2
	exit 1
fi
echo "patches: the series applies with git am onto the pristine base and gives the assembled tree"

# 2. checkpatch, per patch.
fail=0
declare -A cp_line
for p in "$out"/*.patch; do
	base=$(basename "$p")
	case "$base" in 0000-*) continue ;; esac
	res=$("$src/scripts/checkpatch.pl" --strict --no-tree "$p" 2>/dev/null || true)
	tot=$(echo "$res" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p')
	set -- $tot
	e=${1:-?} w=${2:-?} c=${3:-?}
	echo "$res" > "$out/${base%.patch}.checkpatch"
	note=
	if [ "$e" != 0 ]; then
		note=" FAIL: errors"
		fail=1
	elif [ "$w" != 0 ] && ! sed -n '/^---$/q;p' "$p" | grep -q '^checkpatch:'; then
		note=" FAIL: warnings the message does not explain"
		fail=1
	fi
	cp_line[$base]="checkpatch $e errors, $w warnings, $c checks$note"
done

# 3. Every step builds and boots, each kernel of make check.
declare -A built

# A minimal initramfs: /init says it is up, shows whether Kprobes' debugfs
# list is there, and reboots (-no-reboot: QEMU ends).
boot_initrd() {
	local root=$BUILD/series-initrd
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/proc" "$root/sys"
	cp "${BUSYBOX:-/bin/busybox}" "$root/bin/busybox"
	cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -e /sys/kernel/debug/kprobes/list ]; then
	echo "series-boot: up, kprobes list readable"
	/bin/busybox cat /sys/kernel/debug/kprobes/list > /dev/null
else
	echo "series-boot: up, no kprobes list"
fi
/bin/busybox reboot -f
INIT
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) > "$BUILD/series-initrd.cpio"
}

# step_boots <obj> <log> <after switch>: the kernel reaches /init.
step_boots() {
	timeout --foreground 300 qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 512 \
		-nographic -no-reboot -kernel "$1/arch/x86/boot/bzImage" \
		-initrd "$BUILD/series-initrd.cpio" \
		-append "console=ttyS0 panic=-1" < /dev/null > "$2" 2>&1 || true
	if [ "$3" = 1 ]; then
		grep -q '^series-boot: up, kprobes list readable' "$2"
	else
		grep -q '^series-boot: up' "$2"
	fi
}

if [ "${SERIES_BUILD:-1}" = 1 ]; then
	boot_initrd
	switch=$(g log --format=%H --grep='^kprobes: Switch to the new implementation' base..assembled)
	after=0
	# The image each kernel last booted; the switch changes every image,
	# so an image booted before it never stands for a step after it.
	declare -A booted
	# What earlier versions of this script built the steps in.
	g worktree remove --force "$BUILD/series-src" 2>/dev/null || true
	g worktree prune
	rm -rf "$BUILD"/obj-series-*
	# The steps are checked out in build/src itself: git rewrites only
	# the files a step changes, so each kernel's build goes step by step
	# from the base to the assembled tree, incrementally, and make check
	# finds it built.  Whatever happens, build/src ends as assemble.sh
	# left it.
	trap 'g checkout -q -f assembled' EXIT
	# Until the walk has been through, no .config here is build.sh's: a
	# walk stopped midway must not leave one that says it is.
	declare -A configured
	for k in $KERNELS; do rm -f "$(kernel_obj "$k")/.fragments"; done
	i=0
	for c in $(g rev-list --reverse base..assembled); do
		i=$((i + 1))
		g checkout -q -f "$c"
		[ "$c" = "$switch" ] && after=1
		changes=$(g diff --name-status --no-renames "$c~1" "$c")
		paths=$(echo "$changes" | cut -f2)
		kconfig=0
		echo "$paths" | grep -qE '(^|/)Kconfig[^/]*$' && kconfig=1
		# A step the build cannot see: it only adds files, none of them
		# one the build system reads by name (Makefile, Kbuild,
		# Kconfig), or it changes only Documentation/ or the selftests.
		# No file of the step before changed, so nothing names the new
		# ones and make would relink the same image: it is the image of
		# the step before, built and booted there.
		unseen=1
		echo "$changes" | grep -v '^A' | cut -f2 |
			grep -qvE '^(Documentation/|tools/testing/selftests/)' && unseen=0
		echo "$paths" | grep -qE '(^|/)(Makefile|Kbuild|Kconfig[^/]*)$' && unseen=0
		[ "$i" = 1 ] && unseen=0
		for k in $KERNELS; do
			obj=$(kernel_obj "$k")
			log=$obj/series-step-$i.log
			mkdir -p "$obj"
			if [ "$after" = 0 ] && ! grep -qw "$k" <<<"$early"; then
				built[$i]="${built[$i]:-} $k not built (before the switch; SERIES_EARLY_KERNELS=\"$early\")"
				continue
			fi
			if [ "$unseen" = 1 ] && [ -n "${booted[$k]:-}" ]; then
				built[$i]="${built[$i]:-} $k ok (no file the build reads: the image of step $((i - 1)))"
				continue
			fi
			frags=
			for f in $(kernel_configs "$k"); do frags="$frags $top/configs/$f.config"; done
			# The fragments as this step's Kconfig reads them: options it
			# does not have yet drop out (no "did not stick" check here).
			# Only a step that changes a Kconfig file can change the
			# result, so the others keep the step before's .config.
			# A kernel's first step here configures it afresh too.
			if ( if [ "$kconfig" = 1 ] || [ -z "${configured[$k]:-}" ]; then
				make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig &&
				"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $frags &&
				make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig
			     fi &&
			     make -s -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" bzImage modules ) > "$log" 2>&1; then
				configured[$k]=1
				# A step that changes nothing the build reads (a file
				# no Makefile names yet) links no new image: the same
				# bytes booted at the step before, with the same /init
				# test, and booting them again would prove nothing.
				img=$(sha256sum < "$obj/arch/x86/boot/bzImage")
				if [ "$img" = "${booted[$k]:-}" ]; then
					built[$i]="${built[$i]:-} $k ok (the image of step $((i - 1)))"
				elif step_boots "$obj" "$obj/series-step-$i.boot" $after; then
					built[$i]="${built[$i]:-} $k ok"
					booted[$k]=$img
				else
					built[$i]="${built[$i]:-} $k BOOT FAILED ($obj/series-step-$i.boot)"
					# Where it stopped, for a log that is read
					# only from here (CI keeps no files).
					echo "patches: step $i, $k: the console's last lines:"
					tail -n 25 "$obj/series-step-$i.boot" | sed 's/^/  | /'
					# No image stands for the next steps now.
					booted[$k]=
					fail=1
				fi
			else
				built[$i]="${built[$i]:-} $k FAILED ($log)"
				booted[$k]=
				fail=1
			fi
		done
		echo "patches: step $i built and booted:${built[$i]}"
	done
	g checkout -q -f assembled
	trap - EXIT
	# The last step is make check's kernels: every option stuck.
	for k in $KERNELS; do
		for f in $(kernel_configs "$k"); do
			grep '^CONFIG_.*=' "$top/configs/$f.config" | while read -r line; do
				grep -qxF "$line" "$(kernel_obj "$k")/.config" ||
					echo "patches: $k: $line did not stick at the last step" >&2
			done
		done
	done 2>&1 | tee "$BUILD/series-config.err" >&2
	if [ -s "$BUILD/series-config.err" ]; then
		fail=1
	else
		# The .config is build.sh's, from the same fragments: say so,
		# so that make check does not configure it again.
		for k in $KERNELS; do
			for f in $(kernel_configs "$k"); do cat "$top/configs/$f.config"; done |
				sha256sum | cut -d' ' -f1 > "$(kernel_obj "$k")/.fragments"
		done
	fi
	if [ -z "$switch" ]; then
		echo "patches: no patch 'kprobes: Switch to the new implementation'" >&2
		fail=1
	fi
fi

# The summary, one line per patch.
echo "patches: the series"
i=0
for p in "$out"/*.patch; do
	base=$(basename "$p")
	case "$base" in 0000-*) continue ;; esac
	i=$((i + 1))
	lines=$(grep -c '^[+-][^+-]' "$p" || true)
	printf '  %-60s %6s lines  %s%s\n' "${base%.patch}" "$lines" "${cp_line[$base]}" \
		"${built[$i]:+, built and booted:${built[$i]}}"
done
if [ $fail -ne 0 ]; then
	echo "patches: FAILED (checkpatch reports in $out/*.checkpatch, build logs and consoles in build/obj*/series-step-*)" >&2
	exit 1
fi
echo "patches: all checks passed"
