#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a test console: the KTAP documents in it and any kernel splat.

    ktap.py [LABEL=]<console.log>... [--expect FILE] [--problem TEXT]...

Prints one line per leaf test (ok / FAIL / SKIP), the cases listed in the
expectations file that did not run ("not built"), the splats found, and last
"N passed, N failed".  Exits non-zero on any failed case, any splat, a
missing required suite, or a missing end marker.  Several consoles (one per
boot) are judged one by one, their case names prefixed with LABEL/, and
the counts add up.

The expectations file has lines "require <suite>" (the suite must appear)
and "optional <suite>/<case>" (reported as not built when absent).  Each
--problem is one more failure found by the caller.
"""
import re
import sys

RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$')
PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')
SPLATS = re.compile(r'BUG:|WARNING:|Oops|Kernel panic|general protection fault|'
                    r'possible circular locking|possible recursive locking|'
                    r'KASAN:|UBSAN:|self-detected stall|rcu_.*stall|'
                    r'blocked for more than|Unrecoverable kprobe')
END_MARK = 'kptest: done'


def parse(lines):
    results = []
    for line in lines:
        m = RESULT.match(line)
        if m:
            indent, status, _, name, directive = m.groups()
            results.append((len(indent.expandtabs()), status, name.strip(),
                            (directive or '').strip()))
    # A result is a parent when the result just before it is deeper: the
    # last line of its own subtree.
    parent = [i > 0 and results[i - 1][0] > r[0] for i, r in enumerate(results)]
    leaves, stack = [], []
    for i in range(len(results) - 1, -1, -1):
        indent, status, name, directive = results[i]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = '/'.join([s[1] for s in reversed(stack)] + [name])
        if parent[i]:
            stack.append((indent, name))
        else:
            leaves.append((path, status, directive))
    leaves.reverse()
    return leaves


def judge(path, prefix, expect, problems):
    """Print the cases of one console; add its problems; return counts."""
    with open(path, errors='replace') as f:
        lines = [PREFIX.sub('', l.rstrip('\r\n')) for l in f]

    leaves = parse(lines)
    passed = failed = skipped = 0
    for name, status, directive in leaves:
        if directive.upper().startswith('SKIP'):
            skipped += 1
            print(f'  SKIP  {prefix}{name} # {directive}')
        elif status == 'ok':
            passed += 1
            print(f'  ok    {prefix}{name}')
        else:
            failed += 1
            print(f'  FAIL  {prefix}{name}')

    seen = {p for p, _, _ in leaves}
    suites = {p.split('/')[0] for p in seen} | {'/'.join(p.split('/')[:2]) for p in seen}
    if expect:
        for line in open(expect):
            words = line.split()
            if len(words) != 2 or words[0].startswith('#'):
                continue
            kind, want = words
            if kind == 'require' and want not in suites:
                problems.append(f'missing: {prefix}{want} did not report')
            elif kind == 'optional' and want not in seen:
                print(f'  n/a   {prefix}{want} # not built in this configuration')
    for line in lines:
        if SPLATS.search(line):
            problems.append(f'splat: {prefix}{line.strip()}')
    if not any(END_MARK in l for l in lines):
        problems.append(f'missing: {prefix}the run did not finish (no end marker)')
    if not leaves:
        problems.append(f'missing: {prefix}no KTAP results at all')

    return passed, failed, skipped


def main():
    args = sys.argv[1:]
    expect = None
    problems = []
    if '--expect' in args:
        i = args.index('--expect')
        expect = args[i + 1]
        del args[i:i + 2]
    while '--problem' in args:
        i = args.index('--problem')
        problems.append(args[i + 1])
        del args[i:i + 2]
    passed = failed = skipped = 0
    for arg in args:
        label, path = arg.split('=', 1) if '=' in arg else ('', arg)
        p, f, k = judge(path, label + '/' if label else '', expect, problems)
        passed, failed, skipped = passed + p, failed + f, skipped + k

    for p in problems[:20]:
        print(p)
    if skipped:
        print(f'{skipped} skipped')
    failed += len(problems)
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
