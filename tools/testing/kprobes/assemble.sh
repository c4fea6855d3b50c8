#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the kernel tree we build: the pinned base, then the patch
# series of patches/series, one commit per patch.  patches/series says
# which patch adds each overlay file, which applies each patches/*.patch
# (changes to the base's own files) and which deletes upstream's
# implementation; patches/msg/<name> is each patch's message.
#
# The tree lives in $BUILD/src as a git repository.  The tag "base" is the
# pristine source.  The series is built as commits in a scratch index (no
# work tree involved) and then checked out as the branch "assembled"; git
# only rewrites the files that differ from the previous assembly, so
# kbuild sees unchanged mtimes everywhere else and rebuilds incrementally.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=$BUILD/src
TARBALL=/usr/src/linux-source-6.12.tar.xz

# Directories of the repository that mirror the kernel tree.
OVERLAY_DIRS="arch include kernel samples Documentation tools/testing/selftests/kprobes"

# The project's identity: every patch is its own work.
export GIT_AUTHOR_NAME="Seed c91b7ce1 maintainers"
export GIT_AUTHOR_EMAIL="maintainers@users.noreply.a-seed-c91b7ce1.example"
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

# Tracked and not-yet-committed overlay files alike, so that a work tree
# builds what it holds.
cd "$top"
overlay=$BUILD/assemble.files
env -u GIT_INDEX_FILE git ls-files -c -o --exclude-standard -- $OVERLAY_DIRS |
	while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done |
	sort -u > "$overlay"
python3 "$top/tools/testing/kprobes/series.py" plan "$top/patches" "$overlay" \
	> "$BUILD/assemble.plan"

add_file() {	# add_file <overlay path>: into the scratch index
	local mode=100644 blob
	[ -x "$top/$1" ] && mode=100755
	blob=$(git -C "$src" hash-object -w -- "$top/$1")
	printf '%s %s\t%s\n' "$mode" "$blob" "$1" | g update-index --index-info
}

# The plan: "patch <name>", then its steps, then "commit".
head=$(g rev-parse base)
while read -r op arg; do
	case "$op" in
	patch)	name=$arg ;;
	delete)	# The base's own files there, not ours added before.
		g ls-tree -r --name-only base -- "$arg" |
			xargs -r git -C "$src" rm -q -f --cached -- >/dev/null ;;
	add)	add_file "$arg" ;;
	diff)	g apply --cached --whitespace=nowarn "$top/patches/$arg" ||
			{ echo "assemble: patches/$arg does not apply" >&2; exit 1; } ;;
	commit)	head=$(commit "$head" "$(python3 "$top/tools/testing/kprobes/series.py" \
			message "$top/patches" "$name")") ;;
	esac
done < "$BUILD/assemble.plan"

unset GIT_INDEX_FILE
if [ "$(g rev-parse -q --verify HEAD || true)" != "$head" ]; then
	g checkout -q -f -B assembled "$head"
fi
echo "assemble: $src at $(g rev-parse --short HEAD)"
