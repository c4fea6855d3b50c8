#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the assembled tree as a git format-patch series on the pristine
# base (build/patches/), then prove it: `git am` it onto a fresh checkout
# of the base and compare the resulting tree with the assembled one.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$top/build}
src=$BUILD/src
out=$BUILD/patches
check=$BUILD/am-check

rm -rf "$out"
git -C "$src" format-patch -q -o "$out" base..assembled
echo "patches: $(ls "$out" | wc -l) patches in $out"

git -C "$src" worktree remove --force "$check" 2>/dev/null || rm -rf "$check"
git -C "$src" worktree prune
git -C "$src" worktree add -q --detach "$check" base
git -C "$check" -c user.name=check -c user.email=check@localhost am -q "$out"/*.patch
want=$(git -C "$src" rev-parse 'assembled^{tree}')
got=$(git -C "$check" rev-parse 'HEAD^{tree}')
git -C "$src" worktree remove --force "$check"
if [ "$want" != "$got" ]; then
	echo "patches: the series does not reproduce the assembled tree" >&2
	exit 1
fi
echo "patches: the series applies with git am onto the pristine base"
