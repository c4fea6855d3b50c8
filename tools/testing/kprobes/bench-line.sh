#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One line per make bench run found in $BUILD (bench, bench-tracing,
# bench-arm64): a plain kprobe's and a kretprobe's cost per hit, ours
# beside pristine upstream's, from its results.csv; nothing when make
# bench never ran.  make demo prints it last.
set -uo pipefail
BUILD=${BUILD:-$(cd "$(dirname "$0")/../../.." && pwd)/build}

for csv in "$BUILD"/bench/results.csv "$BUILD"/bench-*/results.csv; do
	[ -f "$csv" ] || continue
	name=$(basename "$(dirname "$csv")")
	awk -F, -v name="$name" -v when="$(date -r "$csv" +%F)" '
		$1 == "kprobe" || $1 == "kretprobe" {
			s = s sprintf("%s%s %s vs %s (%.2f)", s ? ", " : "", $1, $4, $2, $6)
		}
		END {
			if (s)
				printf "make bench (%s, %s), instructions per hit, ours vs upstream: %s\n",
				       name, when, s
		}' "$csv"
done
