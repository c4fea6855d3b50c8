#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile the Kprobes core and each architecture's own Kprobes code for
# every architecture that selects HAVE_KPROBES and has a cross compiler in
# Debian: tinyconfig plus KPROBES and the function tracer (KRETPROBES,
# OPTPROBES and KPROBES_ON_FTRACE follow where the arch has them), then
# kernel/kprobes/ and the arch's Kprobes objects only, which is what our
# series can break.
#
# First the same configuration of pristine 6.12 ($BUILD/src-upstream,
# kernels.sh): every Kprobes option (KPROBES, KRETPROBES, OPTPROBES,
# KPROBES_ON_FTRACE, KRETPROBE_ON_RETHOOK, their HAVE_*) that upstream
# turns on must be on with ours, or the architecture fails, unless the
# gap is in known_gaps below, which prints it as a GAP on every run.
# Prints one line per architecture and exits non-zero if any failed.
#   cross-check.sh [name ...]   (default: all of the table's)
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=${SRC:-$BUILD/src}
. "$top/tools/testing/kprobes/kernels.sh"
up=${UPSTREAM_SRC:-$(pristine_tree)}

# What our series does not carry yet: each entry ("<name> <OPTION>") is
# printed as a GAP, not passed over in silence; remove it with the work
# that closes it.  Empty since classic_opt.c (arm, powerpc).
known_gaps=""

# name  ARCH  CROSS_COMPILE  Debian package  extra options.  Not here:
# 64-bit parisc, whose own ptrace.c and unaligned.c do not assemble with
# Debian 12's hppa64 binutils whatever Kprobes does (its kprobes.o and
# kernel/kprobes/ do build); csky and loongarch, with no cross compiler
# in Debian 12.
table="
arm       arm      arm-linux-gnueabihf-     gcc-arm-linux-gnueabihf     CONFIG_MMU=y CONFIG_ARCH_MULTI_V7=y CONFIG_ARCH_VIRT=y CONFIG_THUMB2_KERNEL=n
arm64     arm64    aarch64-linux-gnu-       gcc-aarch64-linux-gnu       -
ppc64le   powerpc  powerpc64le-linux-gnu-   gcc-powerpc64le-linux-gnu   CONFIG_PPC64=y CONFIG_CPU_LITTLE_ENDIAN=y
ppc64     powerpc  powerpc64-linux-gnu-     gcc-powerpc64-linux-gnu     CONFIG_PPC64=y CONFIG_CPU_BIG_ENDIAN=y
ppc32     powerpc  powerpc-linux-gnu-       gcc-powerpc-linux-gnu       -
riscv64   riscv    riscv64-linux-gnu-       gcc-riscv64-linux-gnu       CONFIG_64BIT=y CONFIG_MMU=y
s390x     s390     s390x-linux-gnu-         gcc-s390x-linux-gnu         -
mips64el  mips     mips64el-linux-gnuabi64- gcc-mips64el-linux-gnuabi64 CONFIG_64BIT=y CONFIG_CPU_MIPS64_R2=y
sparc64   sparc    sparc64-linux-gnu-       gcc-sparc64-linux-gnu       CONFIG_64BIT=y
sh4       sh       sh4-linux-gnu-           gcc-sh4-linux-gnu           CONFIG_MMU=y
parisc    parisc   hppa-linux-gnu-          gcc-hppa-linux-gnu          -
arc       arc      arc-linux-gnu-           gcc-arc-linux-gnu           -
"
want=${*:-$(awk 'NF {print $1}' <<<"$table")}
# arch_kprobes_objects <srcarch> <.config>: as kbuild targets, a folder
# of probes code (arch/*/probes/, .../kprobes/) whole, as its Makefile's
# conditionals pick its objects; elsewhere the objects and folders a
# Makefile adds under obj-$(CONFIG_<a Kprobes option>) when that option is
# y (continuation lines joined).
arch_kprobes_objects() {
	local mf
	(cd "$src" && grep -rlE 'obj-\$\(CONFIG_[A-Z0-9_]*(KPROBE|OPTPROBE|RETHOOK)' --include=Makefile "arch/$1") |
	while read -r mf; do
		case "$mf" in
		*/probes/Makefile|*/kprobes/Makefile) echo "$(dirname "$mf")/"; continue ;;
		esac
		sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$src/$mf" |
		awk -v dir="$(dirname "$mf")" -v cfg="$2" '
			BEGIN { while ((getline l < cfg) > 0) if (l ~ /=y$/) { sub(/=y$/, "", l); on[l] = 1 } }
			match($0, /^obj-\$\(CONFIG_[A-Z0-9_]+\)/) {
				opt = substr($0, 7, RLENGTH - 7)
				if (opt !~ /KPROBE|OPTPROBE|RETHOOK/ || !on[opt]) next
				for (i = 2; i <= NF; i++)
					if ($i ~ /\.o$|\/$/) print dir "/" $i
			}'
	done | sort -u | tr '\n' ' '
}
# The Kprobes options of a .config that are on, one per line.
kprobes_options() {
	grep -E '^CONFIG_(HAVE_)?[A-Z0-9_]*(KPROBE|KRETPROBE|OPTPROBE|RETHOOK)[A-Z0-9_]*=y' "$1" |
		sed 's/^CONFIG_//; s/=y$//' | sort
}

# parity <name> <ours> <upstream's .config>: 0 when ours has every
# Kprobes option upstream has, but for known gaps; prints what differs.
parity() {
	local a=$1 opt st=0
	for opt in $(comm -13 <(kprobes_options "$2") <(kprobes_options "$3")); do
		if awk -v a="$a" -v o="$opt" '$1 == a && $2 == o {f = 1} END {exit !f}' <<<"$known_gaps"; then
			echo "cross-check: $a: GAP $opt is on upstream, off with ours (known_gaps)"
		else
			echo "cross-check: $a: FAIL $opt is on upstream, off with ours"
			st=1
		fi
	done
	return $st
}

# The missing compilers in one apt-get call (one package at a time below
# only if that fails).
missing=
for a in $want; do
	pkg=$(awk -v a="$a" '$1 == a {print $4}' <<<"$table")
	[ -n "$pkg" ] || continue
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $pkg"
done
[ -z "$missing" ] ||
	apt-get install -y -qq --no-install-recommends $missing > /dev/null 2>&1 || true

# check_arch <name>: configure and compile one architecture in
# $BUILD/cross-<name>; one line on stdout, and the exit status.
check_arch() {
	local a=$1 karch cross pkg extra obj log frag targets
	read -r _ karch cross pkg extra < <(awk -v a="$a" '$1 == a' <<<"$table")
	obj=$BUILD/cross-$a
	log=$obj/build.log
	mkdir -p "$obj"
	k() { make -s -C "$src" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross" "$@" >> "$log" 2>&1; }
	: > "$log"
	frag=$obj/kprobes.config
	printf '%s\n' CONFIG_MODULES=y CONFIG_KPROBES=y CONFIG_KALLSYMS=y CONFIG_SMP=y \
		CONFIG_JUMP_LABEL=y CONFIG_DEBUG_FS=y CONFIG_FTRACE=y \
		CONFIG_FUNCTION_TRACER=y CONFIG_DYNAMIC_FTRACE=y > "$frag"
	[ "$extra" = - ] || printf '%s\n' $extra >> "$frag"
	k tinyconfig && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" >> "$log" 2>&1 &&
		k olddefconfig
	if ! grep -q '^CONFIG_KPROBES=y' "$obj/.config"; then
		echo "cross-check: $a: FAIL (KPROBES could not be turned on)"
		return 1
	fi
	# The same configuration of pristine 6.12, in a folder of its own.
	local uobj=$BUILD/cross-$a-upstream
	mkdir -p "$uobj"
	ku() { make -s -C "$up" O="$uobj" ARCH="$karch" CROSS_COMPILE="$cross" "$@" >> "$log" 2>&1; }
	if ! { ku tinyconfig && "$up/scripts/kconfig/merge_config.sh" -m -O "$uobj" "$uobj/.config" "$frag" >> "$log" 2>&1 &&
	       ku olddefconfig; }; then
		echo "cross-check: $a: FAIL (upstream's configuration, see $log)"
		return 1
	fi
	parity "$a" "$obj/.config" "$uobj/.config" || return 1
	# The arch's Kprobes code: each object (or folder) that one of its
	# Makefiles adds for a Kprobes option this config has (KPROBES,
	# OPTPROBES, KPROBES_ON_FTRACE, RETHOOK, ...), not the whole folder
	# around it: most of arch/*/kernel/ is not ours to break, and building
	# it took a third of each architecture's time.
	targets="kernel/kprobes/ $(arch_kprobes_objects "$karch" "$obj/.config")"
	# Where the arch's probes at ftrace locations are handled in its
	# ftrace code (s390, parisc, loongarch), that object too.
	if grep -q '^CONFIG_KPROBES_ON_FTRACE=y' "$obj/.config"; then
		targets="$targets $(cd "$src" && grep -rl '^void kprobe_ftrace_handler' --include='*.c' "arch/$karch" |
			sed 's/\.c$/.o/' | tr '\n' ' ')"
	fi
	if k -j"$(nproc)" prepare && k -j"$(nproc)" -k $targets; then
		echo "cross-check: $a: ok ($(grep -c '=y' "$obj/.config" | tr -d ' ') options; Kprobes options: $(kprobes_options "$obj/.config" | grep -v '^HAVE_' | tr '\n' ' '); built: $targets)"
	else
		echo "cross-check: $a: FAIL (see $log)"
		grep -m5 -E 'error' "$log" | sed 's/^/    /'
		return 1
	fi
}

# The architectures, $(nproc) at a time: configuring one (kconfig runs
# on one core, a third of an architecture's time) leaves a core to the
# other's compiles.  Each prints its line when it is done.
failed=0
running=0
for a in $want; do
	read -r _ karch _ pkg _ < <(awk -v a="$a" '$1 == a' <<<"$table")
	if [ -z "${karch:-}" ]; then
		echo "cross-check: $a: no such entry"
		failed=$((failed + 1))
		continue
	fi
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
		apt-get install -y -qq --no-install-recommends "$pkg" > /dev/null 2>&1 ||
			{ echo "cross-check: $a: SKIP (no $pkg)"; continue; }
	fi
	if [ $running -ge "$(nproc)" ]; then
		wait -n || failed=$((failed + 1))
		running=$((running - 1))
	fi
	check_arch "$a" &
	running=$((running + 1))
done
while [ $running -gt 0 ]; do
	wait -n || failed=$((failed + 1))
	running=$((running - 1))
done
[ "$failed" -eq 0 ]
