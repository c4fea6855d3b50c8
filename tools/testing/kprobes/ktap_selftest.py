#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The judge judged: ktap.py on small consoles whose verdict is known.

Each case is a console, an expectations file and the verdict ktap.py
must give (its exit status, and a line its output must hold).  make
check runs this first: a judge that lets a failure through would make
every later "passed" worthless.  Prints one KTAP line per case.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, console, expectations, exit status, a line of the output[,
# names of our functions, for --ours])
CASES = [
    ('a passing run passes',
     'KTAP version 1\n1..1\nok 1 test-a\nkptest: done\n',
     'require test-a\n', 0, '1 passed, 0 failed'),
    ('a failed case fails',
     'KTAP version 1\n1..1\nnot ok 1 test-a\nkptest: done\n',
     'require test-a\n', 1, '  FAIL  test-a'),
    ('a script\'s own SKIP after its cases passed must be allowed',
     'KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 case\n'
     'ok 1 test-a # SKIP no feature\nkptest: done\n',
     'require test-a\n', 1, 'skipped: test-a is not allowed to skip (SKIP no feature)'),
    ('... and passes where it is',
     'KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 case\n'
     'ok 1 test-a # SKIP no feature\nkptest: done\n',
     'require test-a\nskip-ok test-a # why\n', 0, '1 passed, 0 failed'),
    ('a known failure that passed does not excuse its parent',
     'KTAP version 1\n1..1\n    KTAP version 1\n    1..2\n    ok 1 known\n    ok 2 other\n'
     'not ok 1 ftracetest # exit code 1\nkptest: done\n',
     'require ftracetest\nknown-fail ftracetest/known # upstream\n', 1,
     'failed: ftracetest reported "not ok" itself'),
    ('a known failure that passed is news',
     'KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 known\n'
     'ok 1 ftracetest\nkptest: done\n',
     'require ftracetest\nknown-fail ftracetest/known # upstream\n', 0,
     'known-fail: ftracetest/known passed (known: upstream)'),
    ('a known failure explains exit code 1',
     'KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    not ok 1 known\n'
     'not ok 1 ftracetest # exit code 1\nkptest: done\n',
     'require ftracetest\nknown-fail ftracetest/known # upstream\n', 0,
     '  KNOWN ftracetest/known # upstream'),
    ('... but not any other exit code',
     'KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    not ok 1 known\n'
     'not ok 1 ftracetest # exit code 2\nkptest: done\n',
     'require ftracetest\nknown-fail ftracetest/known # upstream\n', 1,
     'failed: ftracetest exited with 2: its failed cases explain only 1'),
    ('a run without its end mark fails',
     'KTAP version 1\n1..1\nok 1 test-a\n',
     'require test-a\n', 1, 'missing: the run did not finish (no end marker)'),
    ('another end mark can be named',
     'KTAP version 1\n1..1\nok 1 test-a\narch-init: done\n',
     'require test-a\nend-mark arch-init: done\n', 0, '1 passed, 0 failed'),
    ('an arm64 splat fails',
     'KTAP version 1\n1..1\nok 1 test-a\nUnable to handle kernel paging request\nkptest: done\n',
     'require test-a\n', 1, 'splat: Unable to handle kernel paging request'),
    ('a kCFI failure fails',
     'KTAP version 1\n1..1\nok 1 test-a\n'
     'CFI failure at traps_per_hit+0x121/0x300 (target: kpt_rel_call+0x0/0x10; expected type: 0x12345678)\n'
     'kptest: done\n',
     'require test-a\n', 1,
     'splat: CFI failure at traps_per_hit+0x121/0x300 (target: kpt_rel_call+0x0/0x10; expected type: 0x12345678)'),
    ('a data race in our code fails',
     'KTAP version 1\n1..1\nok 1 test-a\n'
     'BUG: KCSAN: data-race in kprobe_site_find / register_kprobe\nkptest: done\n',
     'require test-a\n', 1,
     'splat: BUG: KCSAN: data-race in kprobe_site_find / register_kprobe',
     'kprobe_site_find arm_kprobe'),
    ('... one elsewhere is only said',
     'KTAP version 1\n1..1\nok 1 test-a\n'
     'BUG: KCSAN: data-race in tick_sched_do_timer / tick_nohz_next_event\nkptest: done\n',
     'require test-a\n', 0,
     'elsewhere: BUG: KCSAN: data-race in tick_sched_do_timer / tick_nohz_next_event',
     'kprobe_site_find arm_kprobe'),
]


def main():
    print('KTAP version 1')
    print(f'1..{len(CASES)}')
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, console, expect, status, line, *ours) in enumerate(CASES, 1):
            con, exp = os.path.join(tmp, 'console'), os.path.join(tmp, 'expect')
            with open(con, 'w') as f:
                f.write(console)
            with open(exp, 'w') as f:
                f.write(expect)
            extra = []
            if ours:
                names = os.path.join(tmp, 'ours')
                with open(names, 'w') as f:
                    f.write(ours[0])
                extra = ['--ours', names]
            run = subprocess.run([sys.executable, os.path.join(HERE, 'ktap.py'),
                                  '--expect', exp, con] + extra, capture_output=True, text=True)
            lines = run.stdout.splitlines()
            ok = run.returncode == status and line in lines
            if not ok:
                bad += 1
                print(f'# exit status {run.returncode} (want {status}); output:')
                print('\n'.join(f'#   {l}' for l in lines))
            print(f'{"ok" if ok else "not ok"} {n} {name}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
