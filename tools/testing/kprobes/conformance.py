#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make conformance's judge: what the guest side (selftests/kprobes/
conformance.sh) printed on our kernel beside what it printed on pristine
upstream, one kernel configuration at a time.  Every line must be the
same, except:
  - a line whose key (its first two words) the table "Where this core
    differs from upstream's" of Documentation/trace/kprobes.rst names
    as ``kpconf <key>``, where the difference is argued;
  - blacklist names of functions that only one of the two kernels has
    (the cores' own code);
  - the blacklist line of a function's padding (__pfx_f, __cfi_f) where
    both kernels list f itself: the padding goes with its function, which
    one kernel keeps in a section it lists whole;
  - acceptance: each place is judged on its own; a place upstream
    accepts and ours refuses fails, and so does one ours accepts that
    upstream refuses, or another errno, unless the table argues the
    instruction there as ``kpconf accept <class>``: its mnemonic ("hlt"),
    or "call*mem" / "jmp*mem" for an indirect call or jump through
    memory (objdump of upstream's vmlinux says which), or
    "static_call_tramp" for any byte of a static call's trampoline
    (__SCT__*).

    conformance.py <name> <kernel doc> <ours.log> <our build folder>
                   <upstream.log> <upstream's build folder>

Prints KTAP: one result per part, the differences as diagnostics.
"""
import re
import subprocess
import sys


def lines(console):
    """The lines between kpconf-begin and kpconf-end, or None."""
    out, inside = [], False
    with open(console, errors='replace') as f:
        for raw in f:
            line = raw.rstrip('\r\n')
            if line == 'kpconf-begin':
                inside, out = True, []
            elif line == 'kpconf-end' and inside:
                return out
            elif inside:
                out.append(line)
    return None


def argued(doc):
    """The keys the table of differences argues (``kpconf <key>``)."""
    with open(doc) as f:
        text = f.read()
    start = text.find("Where this core differs from upstream's")
    return set(re.findall(r'``kpconf ([^`]+)``', text[start:] if start >= 0 else ''))


def names(system_map):
    with open(system_map) as f:
        return {line.split()[2] for line in f if len(line.split()) == 3}


def insn_class(obj, system_map, place):
    """The class of the instruction at @place ("function+offset") in
    @obj's vmlinux (behind an endbr64, as a probe goes): its mnemonic, or
    call*mem / jmp*mem; static_call_tramp in a static call's
    trampoline."""
    fn, off = place.rsplit('+', 1)
    if fn.startswith('__SCT__'):
        return 'static_call_tramp'	# every byte of a static call's trampoline
    addr = None
    with open(system_map) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[2] == fn:
                addr = int(w[0], 16) + int(off)
                break
    if addr is None:
        return '?'
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn',
                          f'--start-address={addr:#x}', f'--stop-address={addr + 16:#x}',
                          f'{obj}/vmlinux'], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r'^\s*[0-9a-f]+:\t(.*)$', line)
        if not m:
            continue
        words = [w for w in m.group(1).split() if w not in ('lock', 'rep', 'repz', 'repnz', 'notrack', 'bnd', 'ds', 'cs')]
        if not words:
            return '?'
        op = words[0]
        if op.startswith('endbr'):
            continue	# a probe at a function's start goes behind it
        rest = ' '.join(words[1:])
        if op.startswith(('call', 'jmp')) and rest.startswith('*') and '(' in rest:
            return op[:4] + '*mem'
        return op
    return '?'


def key(line):
    return ' '.join(line.split()[:2])


def accept_results(ls):
    """{function: ({offset: errno} of the refused places, accepted count)}"""
    res = {}
    for line in ls:
        w = line.split()
        if w[0] != 'accept' or len(w) < 3:
            continue
        refused = {}
        for t in w[2:]:
            if t.startswith('accepted='):
                continue
            off, err = t.split(':')
            refused[int(off)] = int(err)
        res[w[1]] = refused
    return res


class Judge:
    def __init__(self, name, allowed):
        self.name, self.allowed, self.n, self.failed = name, allowed, 0, 0

    def result(self, part, problems, notes=()):
        self.n += 1
        for p in problems[:40]:
            print(f'# {self.name}/{part}: {p}')
        if len(problems) > 40:
            print(f'# {self.name}/{part}: ... and {len(problems) - 40} more')
        for p in notes:
            print(f'# {self.name}/{part}: {p}')
        if problems:
            self.failed += 1
            print(f'not ok {self.n} conformance/{self.name}/{part}')
        else:
            print(f'ok {self.n} conformance/{self.name}/{part}')


def compare_keyed(judge, part, ours, up, prefixes, ordered=True):
    """Lines whose first word is one of @prefixes, by key, in order; or
    sorted, where the order is a hash table's (the list file)."""
    o = [ln for ln in ours if ln.split()[:1] and ln.split()[0] in prefixes]
    u = [ln for ln in up if ln.split()[:1] and ln.split()[0] in prefixes]
    if not ordered:
        o, u = sorted(o), sorted(u)
    problems, notes = [], []
    for i in range(max(len(o), len(u))):
        a = o[i] if i < len(o) else '(nothing)'
        b = u[i] if i < len(u) else '(nothing)'
        if a == b:
            continue
        k = key(b if b != '(nothing)' else a)
        msg = f'ours "{a}" upstream "{b}"'
        if k in judge.allowed:
            notes.append(f'argued (kprobes.rst): {msg}')
        else:
            problems.append(msg)
    if not u:
        problems.append('upstream printed none of it')
    judge.result(part, problems, notes)


def main():
    name, doc, ours_log, ours_obj, up_log, up_obj = sys.argv[1:7]
    ours_map, up_map = f'{ours_obj}/System.map', f'{up_obj}/System.map'
    allowed = argued(doc)
    judge = Judge(name, allowed)
    ours, up = lines(ours_log), lines(up_log)
    print('KTAP version 1')
    if ours is None or up is None:
        print(f'# {name}: no complete output from '
              + ' and '.join(w for w, ls in (('ours', ours), ('upstream', up)) if ls is None))
        print(f'not ok 1 conformance/{name}')
        return 1

    compare_keyed(judge, 'errnos', ours, up, {'errno'})
    compare_keyed(judge, 'handler-context', ours, up, {'context'})
    compare_keyed(judge, 'pairing', ours, up, {'pair'})
    compare_keyed(judge, 'nmissed', ours, up, {'missed'})
    compare_keyed(judge, 'list', ours, up,
                  {'hold', 'list', 'list-unoptimized', 'list-disarmed', 'list-rearmed',
                   'list-after-rmmod', 'enabled-disarmed'}, ordered=False)
    compare_keyed(judge, 'enabled-and-sysctl', ours, up,
                  {'enabled', 'sysctl', 'sysctl-mode', 'enabled-mode'})

    # The blacklist: names that both kernels have must be listed alike.
    both = names(ours_map) & names(up_map)
    bo = {ln[len('blacklist '):] for ln in ours if ln.startswith('blacklist ')}
    bu = {ln[len('blacklist '):] for ln in up if ln.startswith('blacklist ')}
    problems, padding = [], 0

    def padding_of_both(n):
        f = re.sub(r'^__(pfx|cfi)_', '', n)
        return f != n and f in bo and f in bu

    for n in sorted(bu - bo):
        if n.split()[0] in both and not padding_of_both(n):
            problems.append(f'upstream lists {n}, ours does not')
    for n in sorted(bo - bu):
        if padding_of_both(n):
            padding += 1
        elif n.split()[0] in both:
            problems.append(f'ours lists {n}, upstream does not')
    if not bu:
        problems.append('upstream listed nothing')
    judge.result('blacklist', problems,
                 [f'{len(bo)} names on ours, {len(bu)} on upstream, '
                  f'{len(bo - bu) + len(bu - bo)} differ: in code one kernel has, or '
                  f'the padding of a function both list ({padding})'])

    # Acceptance, place by place.
    ao, au = accept_results(ours), accept_results(up)
    problems, notes = [], []
    refused_ours = refused_up = 0
    for fn in sorted(au):
        if fn not in ao:
            problems.append(f'{fn}: ours printed nothing')
            continue
        ro, ru = ao[fn], au[fn]
        refused_ours += len(ro)
        refused_up += len(ru)
        for off in sorted(set(ro) | set(ru)):
            a, b = ro.get(off, 0), ru.get(off, 0)
            if a == b:
                continue
            cls = insn_class(up_obj, up_map, f'{fn}+{off}')
            msg = f'{fn}+{off} ({cls}): ours {a}, upstream {b}'
            if f'accept {cls}' in allowed:
                notes.append(f'argued (kprobes.rst): {msg}')
            else:
                problems.append(msg)
    accepted = {ln.split()[1]: int(ln.split('accepted=')[1]) for ln in up
                if ln.startswith('accept ') and 'accepted=' in ln}
    accepted_o = {ln.split()[1]: int(ln.split('accepted=')[1]) for ln in ours
                  if ln.startswith('accept ') and 'accepted=' in ln}
    if not au:
        problems.append('upstream tried no place')
    judge.result('acceptance', problems,
                 notes + [f'{len(au)} functions; places accepted: ours {sum(accepted_o.values())}, '
                          f'upstream {sum(accepted.values())}; refused: ours {refused_ours}, '
                          f'upstream {refused_up}'])
    print(f'1..{judge.n}')
    print(f'# {name}: {judge.n - judge.failed} passed, {judge.failed} failed')
    return 1 if judge.failed else 0


if __name__ == '__main__':
    sys.exit(main())
