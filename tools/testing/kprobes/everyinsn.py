#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every instruction boundary of the functions of some core kernel objects,
as "name offset" lines, for test-everyinsn.sh (kprobes_everyinsn.ko).
A third column, 1, marks the places of a function's entry block: from its
first instruction to the first that may send the CPU elsewhere (a jump,
call, return, trap, or a nop that a jump label or an alternative may turn
into a jump), and before the first that a jump of the function lands on,
which run each time the first one does.

    everyinsn.py <kernel build folder>   (writes to stdout)

The objects are the ones a workload of file I/O, fork/exec, memory mapping
and scheduling runs through.  Only functions whose name stands once in
System.map are kept (a probe by name must find that very function), and
only their .text: the boundaries are the ones objdump finds in the object
file, which are the linked kernel's before alternatives and jump labels
rewrite some of them at boot (the kernel may refuse those places: that is
counted, not failed).
"""
import collections
import os
import re
import subprocess
import sys

OBJECTS = [
    'fs/read_write.o', 'fs/open.o', 'fs/namei.o', 'fs/exec.o', 'fs/file.o',
    'fs/file_table.o', 'fs/dcache.o', 'kernel/fork.o', 'kernel/exit.o',
    'kernel/signal.o', 'mm/mmap.o', 'mm/vma.o', 'mm/memory.o',
    'mm/filemap.o', 'kernel/sched/core.o', 'kernel/sched/fair.o',
]

FUNC = re.compile(r'^[0-9a-f]+ <([^>]+)>:$')
INSN = re.compile(r'^\s+([0-9a-f]+):\t(\S.*)$')
TARGET = re.compile(r'^(?:\w+ )*(?:j\w+|loop\w*)\s+([0-9a-f]+) <')
RELOC = re.compile(r'^\s+[0-9a-f]+: R_X86_64_\w+\s+(\S+)')
# What ends an entry block: anything that may leave the straight line.
LEAVES = re.compile(r'^(?:\w+ )*(?:j\w+|call\w*|ret\w*|iret\w*|loop\w*|ud[0-9]|'
                    r'int3?|hlt|sys\w+|\S*nop\w*|xchg\s+%ax,%ax)\b')


def text_symbols(system_map):
    """The names that stand once in System.map; the functions that have a
    padding in front of them (__pfx_<f>, __cfi_<f>), even where the name
    stands more than once; and that padding's length, the most common
    distance from __pfx_<f> to <f>."""
    count = collections.Counter()
    addr = {}
    with open(system_map) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'tT':
                count[parts[2]] += 1
                addr[parts[2]] = int(parts[0], 16)
    unique = {name for name, n in count.items() if n == 1}
    padded = set()
    lengths = collections.Counter()
    for name in count:
        for prefix in ('__pfx_', '__cfi_'):
            if name.startswith(prefix):
                f = name[len(prefix):]
                padded.add(f)
                if name in unique and f in unique:
                    lengths[addr[f] - addr[name]] += 1
    pad = lengths.most_common(1)[0][0] if lengths else 0
    return unique, padded, pad


def functions(obj):
    """(name, start, [instruction addresses], entry block's end, [jump
    targets]) of each function of @obj's .text, in order; the end is the
    address of the entry block's last instruction."""
    out = subprocess.run(['objdump', '-dr', '--no-show-raw-insn', '-j', '.text', obj],
                         capture_output=True, text=True, check=True).stdout
    funcs = []
    open_block = False
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            funcs.append([m.group(1), None, [], None, []])
            open_block = True
            continue
        m = RELOC.match(line)
        if m and funcs and m.group(1).startswith('__fentry__') and funcs[-1][2] and \
           funcs[-1][3] == funcs[-1][2][-1]:
            # The call at the entry is ftrace's: the block goes on.
            funcs[-1][3] = None
            open_block = True
            continue
        m = INSN.match(line)
        if m and funcs and '(bad)' not in m.group(2):
            f = funcs[-1]
            a = int(m.group(1), 16)
            f[2].append(a)
            if f[1] is None:
                f[1] = a
            t = TARGET.match(m.group(2))
            if t:
                f[4].append(int(t.group(1), 16))
            if open_block and LEAVES.match(m.group(2)):
                f[3] = a
                open_block = False
    return [tuple(f) for f in funcs]


def boundaries(obj, padded, pad):
    """Each function's boundaries, as offsets.  In the object file the
    padding in front of a function (CALL_PADDING's nops) is listed at the
    end of the function before it; the linked kernel names it __pfx_<f>,
    where no probe may go, so it is left out."""
    funcs = functions(obj)
    for i, (name, start, addrs, block_end, targets) in enumerate(funcs):
        # Code a jump lands on may run more often than the entry.
        for t in targets:
            if block_end is not None and start < t <= block_end:
                block_end = max([a for a in addrs if a < t], default=None)
        end = None
        if i + 1 < len(funcs) and funcs[i + 1][1] is not None:
            nxt, nstart = funcs[i + 1][:2]
            if nxt in padded:
                end = nstart - pad
        for a in addrs:
            if end is None or a < end:
                yield name, a - start, block_end is not None and a <= block_end


def main():
    build = sys.argv[1]
    unique, padded, pad = text_symbols(os.path.join(build, 'System.map'))
    for o in OBJECTS:
        path = os.path.join(build, o)
        if not os.path.exists(path):
            continue
        for name, off, in_block in boundaries(path, padded, pad):
            if name in unique and not name.startswith(('__pfx_', '__cfi_')):
                print(name, off, 1) if in_block else print(name, off)


if __name__ == '__main__':
    main()
