#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The places make conformance's acceptance sweep tries on both kernels:
core kernel functions that stand once in each kernel, with the same size
and the same instruction boundaries in both (the same code, apart from
displacements), taken evenly across the range of their sizes.  Each line:
"name off off ...", every boundary and one offset inside an instruction.

    conformance_places.py <our build folder> <upstream's> [count]
"""
import re
import subprocess
import sys

INSN = re.compile(r'^\s*([0-9a-f]+):\t')
FUNC = re.compile(r'^([0-9a-f]+) <([^>]+)>:$')


def sized_functions(obj):
    """{name: (address, size)} of the text symbols that stand once."""
    out = subprocess.run(['nm', '-S', '--defined-only', f'{obj}/vmlinux'],
                         capture_output=True, text=True, check=True).stdout
    seen, funcs = {}, {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in 'tT':
            continue
        name = parts[3]
        seen[name] = seen.get(name, 0) + 1
        funcs[name] = (int(parts[0], 16), int(parts[1], 16))
    return {n: v for n, v in funcs.items() if seen[n] == 1}


def boundaries(obj, wanted):
    """{name: [offsets]} of the instructions of the @wanted functions
    ({name: (address, size)}), from one pass of objdump over .text."""
    by_addr = {a: (n, s) for n, (a, s) in wanted.items()}
    out = {}
    proc = subprocess.Popen(['objdump', '-d', '--no-show-raw-insn', '-j', '.text',
                             f'{obj}/vmlinux'], stdout=subprocess.PIPE, text=True)
    cur = None
    for line in proc.stdout:
        m = FUNC.match(line)
        if m:
            a = int(m.group(1), 16)
            cur = (a,) + by_addr[a] if a in by_addr else None
            if cur:
                out[cur[1]] = []
            continue
        if cur:
            m = INSN.match(line)
            if m:
                off = int(m.group(1), 16) - cur[0]
                if 0 <= off < cur[2]:
                    out[cur[1]].append(off)
    proc.wait()
    return out


def main():
    ours, upstream = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    a, b = sized_functions(ours), sized_functions(upstream)
    common = {n: a[n] for n in a
              if n in b and a[n][1] == b[n][1] and a[n][1] > 0 and '.' not in n
              and not n.startswith(('__pfx_', '__cfi_'))}
    # Twice as many as needed by size, so that those whose code differs
    # can be left out; then evenly across the sizes.
    names = sorted(common, key=lambda n: (common[n][1], n))
    step = max(1, len(names) // (2 * count))
    cand = {n: common[n] for n in names[::step]}
    ba = boundaries(ours, cand)
    bb = boundaries(upstream, {n: b[n] for n in cand})
    same = [n for n in sorted(cand, key=lambda n: (cand[n][1], n))
            if ba.get(n) and ba.get(n) == bb.get(n)]
    step = max(1, len(same) / count)
    picked = [same[int(i * step)] for i in range(min(count, len(same)))]
    for n in picked:
        offs = ba[n]
        ends = offs[1:] + [cand[n][1]]
        longest = max(range(len(offs)), key=lambda i: ends[i] - offs[i])
        inside = [offs[longest] + 1] if ends[longest] - offs[longest] > 1 else []
        print(n, ' '.join(str(o) for o in offs + inside))
    print(f'conformance_places: {len(picked)} functions of {len(common)} alike, '
          f'sizes {cand[picked[0]][1]}..{cand[picked[-1]][1]} bytes', file=sys.stderr)


if __name__ == '__main__':
    main()
