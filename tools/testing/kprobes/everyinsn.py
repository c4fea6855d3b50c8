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


def unique_text_symbols(system_map):
    count = collections.Counter()
    with open(system_map) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'tT':
                count[parts[2]] += 1
    return {name for name, n in count.items() if n == 1}


def boundaries(obj):
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-j', '.text', obj],
                         capture_output=True, text=True, check=True).stdout
    name = start = None
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            name, start = m.group(1), None
            continue
        m = INSN.match(line)
        if m and name and '(bad)' not in m.group(2):
            addr = int(m.group(1), 16)
            if start is None:
                start = addr
            yield name, addr - start


def main():
    build = sys.argv[1]
    unique = unique_text_symbols(os.path.join(build, 'System.map'))
    for o in OBJECTS:
        path = os.path.join(build, o)
        if not os.path.exists(path):
            continue
        for name, off in boundaries(path):
            if name in unique and not name.startswith('__pfx_'):
                print(name, off)


if __name__ == '__main__':
    main()
