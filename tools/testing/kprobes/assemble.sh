#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the kernel tree we build: the pinned base, minus upstream's
# Kprobes implementation, plus our overlay, plus patches/.
#
# The tree lives in $BUILD/src as a git repository.  The tag "base" is the
# pristine source.  The assembled state is built as commits in a scratch
# index (no work tree involved) and then checked out; git only rewrites the
# files that differ from the previous assembly, so kbuild sees unchanged
# mtimes everywhere else and rebuilds incrementally.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=$BUILD/src
TARBALL=/usr/src/linux-source-6.12.tar.xz

# Directories of the repository that mirror the kernel tree.
OVERLAY_DIRS="arch include kernel samples Documentation tools/testing/selftests/kprobes"

# Upstream's implementation: deleted so that nothing of it is compiled.
UPSTREAM_FILES="
kernel/kprobes.c
include/linux/kprobes.h
arch/x86/include/asm/kprobes.h
arch/x86/kernel/kprobes
samples/kprobes
Documentation/trace/kprobes.rst
"

export GIT_AUTHOR_NAME="Kprobes assembly" GIT_AUTHOR_EMAIL="kprobes@localhost"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
# Fixed dates keep commit ids stable when nothing changed.
export GIT_AUTHOR_DATE="2024-11-17T00:00:00Z" GIT_COMMITTER_DATE="2024-11-17T00:00:00Z"

g() { git -C "$src" "$@"; }

extract_base() {
	echo "assemble: extracting $TARBALL (once)"
	rm -rf "$src" "$BUILD/extract"
	mkdir -p "$BUILD/extract"
	tar -C "$BUILD/extract" -xf "$TARBALL"
	mv "$BUILD/extract"/linux-source-6.12 "$src"
	rmdir "$BUILD/extract"
	g init -q -b base-branch
	g config core.autocrlf false
	g config gc.auto 0
	g add -A -f .
	g commit -q -m "base" --no-verify
	g tag base
}

g rev-parse -q --verify refs/tags/base >/dev/null 2>&1 || extract_base

# Build the assembled commits in a scratch index.
export GIT_INDEX_FILE=$BUILD/assemble.index
rm -f "$GIT_INDEX_FILE"
g read-tree base

commit() {	# commit <parent> <message>: commit the scratch index
	local tree
	tree=$(g write-tree)
	g commit-tree "$tree" -p "$1" -m "$2"
}

for f in $UPSTREAM_FILES; do
	g rm -r -q -f --cached --ignore-unmatch -- "$f" >/dev/null
done
head=$(commit base "kprobes: remove the upstream implementation

Our own Kprobes core replaces these files; nothing of them is built.")

# Tracked and not-yet-committed overlay files alike, so that a work tree
# builds what it holds.
cd "$top"
git ls-files -c -o --exclude-standard -- $OVERLAY_DIRS | while read -r f; do
	[ -f "$f" ] || continue
	mode=100644
	[ -x "$f" ] && mode=100755
	blob=$(git -C "$src" hash-object -w -- "$top/$f")
	echo "$mode $blob	$f"
done | g update-index --index-info
head=$(commit "$head" "kprobes: add an independent Kprobes implementation

The generic core in kernel/kprobes/, the x86-64 part in
arch/x86/kernel/kprobes/, the samples, the documentation and the tests.")

while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	subj=$(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$top/patches/$p" | head -n1)
	g apply --cached --whitespace=nowarn "$top/patches/$p" ||
		{ echo "assemble: patches/$p does not apply" >&2; exit 1; }
	head=$(commit "$head" "${subj:-$p}")
done < "$top/patches/series"

unset GIT_INDEX_FILE
if [ "$(g rev-parse -q --verify HEAD || true)" != "$head" ]; then
	g checkout -q -f -B assembled "$head"
fi
echo "assemble: $src at $(g rev-parse --short HEAD)"
