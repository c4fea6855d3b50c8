#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every instruction boundary of the functions of some core kernel objects,
as "name offset" lines, for test-everyinsn.sh (kprobes_everyinsn.ko).

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
    """(name, start, [instruction addresses]) of each function of @obj's
    .text, in order."""
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-j', '.text', obj],
                         capture_output=True, text=True, check=True).stdout
    funcs = []
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            funcs.append((m.group(1), None, []))
            continue
        m = INSN.match(line)
        if m and funcs and '(bad)' not in m.group(2):
            name, start, addrs = funcs[-1]
            a = int(m.group(1), 16)
            addrs.append(a)
            if start is None:
                funcs[-1] = (name, a, addrs)
    return funcs


def boundaries(obj, padded, pad):
    """Each function's boundaries, as offsets.  In the object file the
    padding in front of a function (CALL_PADDING's nops) is listed at the
    end of the function before it; the linked kernel names it __pfx_<f>,
    where no probe may go, so it is left out."""
    funcs = functions(obj)
    for i, (name, start, addrs) in enumerate(funcs):
        end = None
        if i + 1 < len(funcs) and funcs[i + 1][1] is not None:
            nxt, nstart, _ = funcs[i + 1]
            if nxt in padded:
                end = nstart - pad
        for a in addrs:
            if end is None or a < end:
                yield name, a - start


def main():
    build = sys.argv[1]
    unique, padded, pad = text_symbols(os.path.join(build, 'System.map'))
    for o in OBJECTS:
        path = os.path.join(build, o)
        if not os.path.exists(path):
            continue
        for name, off in boundaries(path, padded, pad):
            if name in unique and not name.startswith(('__pfx_', '__cfi_')):
                print(name, off)


if __name__ == '__main__':
    main()
