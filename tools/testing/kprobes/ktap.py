#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a test console: the KTAP documents in it and any kernel splat.

    ktap.py [--expect FILE] [--cases-from SRC]... [LABEL=]<console.log>...
            [--expect FILE2 ...] [--problem TEXT]...

Prints one line per leaf test (ok / FAIL / SKIP), the cases listed in the
expectations file that did not run ("not built"), the splats found, KUnit's
report of each failed expectation ("why"), and last "N passed, N failed".  Exits non-zero on any failed case, any splat, a
missing required suite or case, a skip that is not allowed, a test whose
own result is "not ok" while its subtests passed, a (sub)test document
whose plan ("1..N") does not match the results it gave, or a missing end
marker.  Several consoles (one per boot) are judged one by one, their case
names prefixed with LABEL/, and the counts add up.

The expectations file has lines "require <suite>[/<case>]" (it must
report), "optional <suite>/<case>" (reported as not built when absent) and
"skip-ok <suite>/<case>" (it may report SKIP; a comment says why) and
"known-fail <suite>/<case>" (a failure is listed as KNOWN and not counted:
a peer's case that fails on upstream too; a comment says why; one that
passes is listed too, as news) and "end-mark <text>" (the line that says
the run finished; default "kptest: done").  A test with subtests is judged as they
are: its own SKIP must be allowed unless every subtest skipped, and its
own "not ok" is explained only by a subtest that failed and, when it
says "exit code N", by N = 1 (kselftest's and ftracetest's code for
failed cases; anything else is the script's own failure).  Case names
may contain spaces and slashes (ftracetest's descriptions).  Every
--cases-from is a KUnit source file: each case of each suite defined there
is required, so the list cannot fall behind the suites.  Both apply to the
consoles after them; a new --expect starts a new group (another kernel,
other suites built).  Each --problem is one more failure found by the
caller.  With --ours FILE (function names, one per word), a data race
that KCSAN reports is a failure only when one of the functions it names
is in FILE; others are listed as "elsewhere" and not counted.
"""
import re
import sys

RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')
PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')
SPLATS = re.compile(r'BUG:|WARNING:|Oops|Kernel panic|general protection fault|'
                    r'possible circular locking|possible recursive locking|'
                    r'KASAN:|UBSAN:|self-detected stall|rcu_.*stall|'
                    r'blocked for more than|Unrecoverable kprobe|CFI failure')
END_MARK = 'kptest: done'
# Where a splat starts on x86 and on the other architectures booted.
SPLATS_OTHER = re.compile(r'Unable to handle kernel|Call trace:|Internal error:')
# KCSAN's title line names the two functions (or one) that raced.
KCSAN_RACE = re.compile(r'BUG: KCSAN: data-race in (.*)$')


def is_skip(directive):
    return directive.upper().startswith('SKIP')


FAILED_AT = re.compile(r'(EXPECTATION|ASSERTION) FAILED at ')


def failure_lines(since):
    """KUnit's report of a failed expectation, from the lines since the
    previous result: each "... FAILED at file:line" and the lines that
    follow it up to the next diagnostic ("#") line."""
    out, inside = [], False
    for line in since:
        text = line.strip()
        if FAILED_AT.search(text):
            inside = True
        elif text.startswith('#') or not text:
            inside = False
        if inside:
            out.append(text)
    return out


def parse(lines, details=None):
    """Return (leaves, parents): (path, status, directive) of each leaf, and
    of each test that has subtests, with its own result.  When @details is
    a dict, it gets the KUnit failure report of each failed leaf."""
    results, since = [], []
    for line in lines:
        m = RESULT.match(line)
        if m:
            indent, status, _, name, directive = m.groups()
            results.append((len(indent.expandtabs()), status, name.strip(),
                            (directive or '').strip(),
                            failure_lines(since) if status != 'ok' else []))
            since = []
        else:
            since.append(line)
    # A result is a parent when the result just before it is deeper: the
    # last line of its own subtree.
    parent = [i > 0 and results[i - 1][0] > r[0] for i, r in enumerate(results)]
    leaves, parents, stack = [], [], []
    for i in range(len(results) - 1, -1, -1):
        indent, status, name, directive, report = results[i]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = '/'.join([s[1] for s in reversed(stack)] + [name])
        if parent[i]:
            stack.append((indent, name))
            parents.append((path, status, directive))
        else:
            leaves.append((path, status, directive))
            if details is not None and report:
                details[path] = report
    leaves.reverse()
    return leaves, parents


def plan_mismatches(lines):
    """Each "1..N" opens a document or subtest at its indent; count the
    results at that indent until something shallower (its parent's result)
    or another plan at the same indent closes it."""
    bad, stack = [], []

    def close(entry, closer):
        indent, want, got, where = entry
        if got != want:
            bad.append(f'{closer or "a document"} planned {want} results and '
                       f'gave {got} (plan on console line {where})')

    for n, line in enumerate(lines, 1):
        m = PLAN.match(line)
        if m:
            indent = len(m.group(1).expandtabs())
            while stack and stack[-1][0] >= indent:
                close(stack.pop(), None)
            stack.append([indent, int(m.group(2)), 0, n])
            continue
        m = RESULT.match(line)
        if not m:
            continue
        indent = len(m.group(1).expandtabs())
        while stack and stack[-1][0] > indent:
            close(stack.pop(), m.group(4).strip())
        if stack and stack[-1][0] == indent:
            stack[-1][2] += 1
    while stack:
        close(stack.pop(), None)
    return bad


def kunit_cases(path):
    """'suite/case' for every case of every KUnit suite defined in @path."""
    text = open(path, errors='replace').read()
    arrays = {}
    for m in re.finditer(r'struct kunit_case\s+(\w+)\s*\[\s*\]\s*=\s*\{(.*?)\};',
                         text, re.S):
        arrays[m.group(1)] = re.findall(r'KUNIT_CASE\w*\(\s*(\w+)', m.group(2))
    cases = []
    for m in re.finditer(r'struct kunit_suite\s+\w+\s*=\s*\{(.*?)\};', text, re.S):
        name = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
        arr = re.search(r'\.test_cases\s*=\s*(\w+)', m.group(1))
        if name and arr:
            cases += [f'{name.group(1)}/{c}' for c in arrays.get(arr.group(1), [])]
    if not cases:
        sys.exit(f'ktap.py: no KUnit suite found in {path}')
    return cases


# Why each known failure is known: its expectation's comment.
KNOWN_WHY = {}


def read_expect(expect, cases_from):
    """(kind, what) pairs from the expectations file and the KUnit sources."""
    wants = []
    if expect:
        for line in open(expect):
            if line.lstrip().startswith('#'):
                continue
            parts = re.split(r'\s#', line, 1)
            words = parts[0].split(None, 1)
            if len(words) == 2:
                wants.append((words[0], words[1].strip()))
                if words[0] == 'known-fail' and len(parts) == 2:
                    KNOWN_WHY[words[1].strip()] = parts[1].strip()
    for src in cases_from:
        wants += [('require', c) for c in kunit_cases(src)]
    return wants


WEDGE_MARK = 'kptest: wedged: '
FRAME = re.compile(r'^\s+(?:\? )?([\w.]+\+0x[0-9a-f]+)/0x[0-9a-f]+')


def wedge_digest(lines):
    """A line per CPU and per blocked task from the report of a wedged
    run (init's report_wedge: SysRq w and l), and the report's own lines:
    where each CPU was, as "RIP <- caller <- ...", innermost first."""
    out, who, frames, in_nmi, rip = [], None, [], False, None

    def flush():
        if who:
            out.append(f'{who}: ' + ' <- '.join(([f'RIP {rip}'] if rip else []) + frames[:6]))

    for line in lines:
        m = re.search(r'NMI backtrace for cpu (\d+)( skipped: idling at (\S+))?', line)
        t = re.search(r'task:(\S+)\s+state:(\S+)', line)
        if m or t or WEDGE_MARK in line:
            flush()
            who, frames, in_nmi, rip = None, [], False, None
        if m and m.group(2):
            out.append(f'cpu{m.group(1)}: idle at {m.group(3)}')
        elif m:
            who = f'cpu{m.group(1)}'
        elif t:
            who = f'task {t.group(1)} ({t.group(2)})'
        elif WEDGE_MARK in line:
            text = line.split(WEDGE_MARK, 1)[1]
            if not text.startswith('ps:') or (' R ' in text and ' ps ' not in text):
                out.append(text)
        elif who:
            c = re.search(r'^CPU: \d+ .*Comm: (\S+)', line)
            if c and who.startswith('cpu'):
                who += f' ({c.group(1)})'
            r = re.search(r'RIP: 0010:(\S+)', line)
            if r and rip is None and not in_nmi:
                rip = r.group(1)
            if '<NMI>' in line:
                in_nmi = True
            elif '</NMI>' in line:
                in_nmi = False
            else:
                f = FRAME.match(line)
                if f and not in_nmi and not line.lstrip().startswith('?'):
                    frames.append(f.group(1))
    flush()
    return out


def judge(path, prefix, wants, problems, reports, news, ours=None, notes=None):
    """Print the cases of one console; add its problems, the KUnit
    reports of its failed cases to @reports, and what changed for the
    better to @news; return counts."""
    with open(path, errors='replace') as f:
        lines = [PREFIX.sub('', l.rstrip('\r\n')) for l in f]

    details = {}
    leaves, parents = parse(lines, details)
    skip_ok = {w for k, w in wants if k == 'skip-ok'}
    known_fail = {w for k, w in wants if k == 'known-fail'}
    end_mark = next((w for k, w in wants if k == 'end-mark'), END_MARK)
    passed = failed = skipped = 0
    for name, status, directive in leaves:
        if status != 'ok' and name in known_fail:
            print(f'  KNOWN {prefix}{name} # {KNOWN_WHY.get(name, "known to fail")}'
                  f'{" (" + directive + ")" if directive else ""}')
        elif is_skip(directive):
            skipped += 1
            print(f'  SKIP  {prefix}{name} # {directive}')
            if name not in skip_ok:
                problems.append(f'skipped: {prefix}{name} is not allowed to skip ({directive})')
        elif status == 'ok':
            passed += 1
            if name in known_fail:
                print(f'  ok    {prefix}{name} # listed as known to fail, passed')
                news.append(f'known-fail: {prefix}{name} passed '
                            f'(known: {KNOWN_WHY.get(name, "to fail")})')
            else:
                print(f'  ok    {prefix}{name}')
        else:
            failed += 1
            print(f'  FAIL  {prefix}{name}')
            if name in details:
                reports.append(f'{prefix}{name}:')
                reports += [f'      {d}' for d in details[name]]

    # A test's own result counts even when each of its subtests passed.
    for name, status, directive in parents:
        below = [(st, d) for p, st, d in leaves if p.startswith(name + '/')]
        if is_skip(directive):
            if name not in skip_ok and not (below and all(is_skip(d) for _, d in below)):
                problems.append(f'skipped: {prefix}{name} is not allowed to skip '
                                f'({directive})')
            continue
        if status == 'ok':
            continue
        # Only a failed subtest (a KNOWN one too) explains it, and only
        # with the exit code that failed cases give.
        failed_below = [1 for st, d in below if st != 'ok' and not is_skip(d)]
        code = re.search(r'exit code (\d+)', directive)
        if not failed_below:
            problems.append(f'failed: {prefix}{name} reported "not ok" itself')
        elif code and code.group(1) != '1':
            problems.append(f'failed: {prefix}{name} exited with {code.group(1)}: '
                            f'its failed cases explain only 1')
    for text in plan_mismatches(lines):
        problems.append(f'plan: {prefix}{text}')

    seen = {p for p, _, _ in leaves}
    suites = {p.split('/')[0] for p in seen} | {'/'.join(p.split('/')[:2]) for p in seen}
    finished = any(end_mark in l for l in lines)
    missing = []
    # "optional" wins over a "require" of the same case (--cases-from
    # requires every case its source has, under #ifdef or not).
    optional = {w for k, w in wants if k == 'optional'}
    for kind, want in wants:
        if kind == 'require' and want in optional:
            continue
        if kind == 'require' and want not in suites and want not in seen:
            missing.append(want)
        elif kind == 'optional' and want not in seen:
            print(f'  n/a   {prefix}{want} # not built in this configuration')
    if finished or len(missing) < 3:
        problems += [f'missing: {prefix}{want} did not report' for want in missing]
    else:
        # What a wedged run never reached says little one by one.
        problems.append(f'missing: {prefix}{len(missing)} expected results did not report, '
                        f'from {missing[0]} to {missing[-1]}')
    for line in lines:
        race = KCSAN_RACE.search(line)
        if race and ours is not None and not ours & {
                f.split('+')[0].strip() for f in race.group(1).split('/')}:
            # Another subsystem's race: said, not ours to fix.
            notes.append(f'elsewhere: {prefix}{line.strip()}')
        elif SPLATS.search(line) or SPLATS_OTHER.search(line):
            problems.append(f'splat: {prefix}{line.strip()}')
    if not finished:
        problems.append(f'missing: {prefix}the run did not finish (no end marker)')
        problems += [f'wedged: {prefix}{w}' for w in wedge_digest(lines)]
    if not leaves:
        problems.append(f'missing: {prefix}no KTAP results at all')

    return passed, failed, skipped


def main():
    # Options apply to the consoles that follow them: each --expect starts
    # a new group (one kernel) with its own expectations and KUnit sources.
    args = sys.argv[1:]
    problems, runs, ours = [], [], None
    expect, cases_from = None, []
    i = 0
    while i < len(args):
        a = args[i]
        if a == '--expect':
            expect, cases_from = args[i + 1], []
            i += 2
        elif a == '--cases-from':
            cases_from.append(args[i + 1])
            i += 2
        elif a == '--problem':
            problems.append(args[i + 1])
            i += 2
        elif a == '--ours':
            with open(args[i + 1]) as f:
                ours = set(f.read().split())
            i += 2
        else:
            runs.append((a, expect, list(cases_from)))
            i += 1
    passed = failed = skipped = 0
    reports, news, notes = [], [], []
    for arg, exp, srcs in runs:
        label, path = arg.split('=', 1) if '=' in arg else ('', arg)
        wants = read_expect(exp, srcs)
        p, f, k = judge(path, label + '/' if label else '', wants, problems,
                        reports, news, ours, notes)
        passed, failed, skipped = passed + p, failed + f, skipped + k

    # A wedged run's report goes last, where a short tail of the output
    # still shows it.
    problems.sort(key=lambda p: p.startswith('wedged: '))
    for p in problems[:40] + [p for p in problems[40:] if p.startswith('wedged: ')]:
        print(p)
    if len(problems) > 40:
        print(f'... and {len(problems) - 40} more problems')
    # Why each KUnit case failed, near the end where CI's tail shows it.
    for r in reports[:30]:
        print(f'  why   {r}')
    if len(reports) > 30:
        print(f'  why   ... and {len(reports) - 30} more lines')
    for n in news:
        print(n)
    # Another subsystem's data races: once each, not counted.
    for n in sorted(set(notes)):
        print(n)
    if skipped:
        print(f'{skipped} skipped')
    # The report of a wedged run explains a failure counted above.
    failed += len([p for p in problems if not p.startswith('wedged: ')])
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
