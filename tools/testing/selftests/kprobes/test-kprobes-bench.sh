#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark module must keep building and running: every case once,
# with tiny counts, no timing asserted.

. "$(dirname "$0")/functions.sh"

ktap_print_header
ktap_set_plan 4

sh ./bench.sh candidates /tmp/kpb-cand
head -n 40 /tmp/kpb-cand > /tmp/kpb-cand40
sh ./bench.sh accept /tmp/kpb-cand40 /tmp/kpb-acc
check "some candidate functions can be probed" [ -s /tmp/kpb-acc ]

sh ./bench.sh run /tmp/kpb-acc 100 > /tmp/kpb-out
check "every case reported" [ "$(grep -c . /tmp/kpb-out)" -ge 11 ]
check "per-hit figures for kprobes" grep -q "^kprobe [0-9]" /tmp/kpb-out
check "registration figures" grep -q "^batch_register_[0-9]* [0-9]" /tmp/kpb-out
cat /tmp/kpb-out | sed 's/^/# /'

ktap_finished
