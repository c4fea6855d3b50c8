# SPDX-License-Identifier: GPL-2.0
#
# gdb script of insn-count.sh: attach to QEMU's gdbstub (PORT), run to ARM
# once, then HITS times: stop at TARGET's first instruction, single-step
# until it has returned to its caller, and count the instructions by the
# function they belong to (module code, which gdb has no symbols for,
# counts as "(module)").  QEMU's gdbstub keeps interrupts from the
# stepped vCPU, so a count is the hit's own.
import collections
import os
import time

import gdb

gdb.execute("set pagination off")
gdb.execute("set confirm off")
for _ in range(120):
    try:
        gdb.execute("target remote :%s" % os.environ["PORT"], to_string=True)
        break
    except gdb.error:
        time.sleep(1)
else:
    raise SystemExit("insn-count: QEMU's gdbstub did not answer")


def reg(name):
    return int(gdb.parse_and_eval(name)) & (2**64 - 1)


def function_at(pc):
    words = gdb.execute("info symbol 0x%x" % pc, to_string=True).split()
    return words[0] if words and words[0] != "No" else "(module)"


arm = gdb.Breakpoint(os.environ["ARM"], internal=True)
gdb.execute("continue", to_string=True)
arm.delete()
target = os.environ.get("TARGET", "int_sqrt")
gdb.Breakpoint(target, internal=True)
hits = int(os.environ.get("HITS", "3"))
for hit in range(hits):
    gdb.execute("continue", to_string=True)
    sp = reg("$rsp")
    ret = int(gdb.parse_and_eval("*(unsigned long *)$rsp")) & (2**64 - 1)
    per = collections.OrderedDict()
    trace = []
    while True:
        pc = reg("$pc")
        # Back in the caller, with the return address popped.
        if pc == ret and reg("$rsp") == sp + 8:
            break
        name = function_at(pc)
        per[name] = per.get(name, 0) + 1
        trace.append("%x %s" % (pc, name))
        if len(trace) > 20000:
            raise SystemExit("insn-count: no return after 20000 steps")
        gdb.execute("stepi", to_string=True)
if os.environ.get("TRACE"):
    with open(os.environ["TRACE"], "w") as f:
        f.write("\n".join(trace) + "\n")
total = len(trace)
own = per.get(target, 0)
print("%d instructions in the hit, %d of them %s's own: %d for the probe"
      % (total, own, target, total - own))
for name, count in per.items():
    print("%6d  %s" % (count, name))
gdb.execute("kill")
