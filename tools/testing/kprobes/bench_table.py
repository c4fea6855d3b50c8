#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side-by-side table of two kpbench result files, plus CSV and JSON.

    bench_table.py <upstream results> <ours results> <output dir>

A results line is "<case> <value> <unit> [traps=N] [note]" or
"<case> n/a <why>".  The ratio is ours / upstream: below 1 means ours is
cheaper.
"""
import json
import sys

ORDER = ['kprobe', 'kprobe_mid', 'kprobe_event', 'kprobe_int3', 'kprobe_post', 'two_kprobes', 'kretprobe',
         'kretprobe_int3', 'jprobe', 'ftrace_ops_floor', 'direct_call_floor',
         'direct_call_kprobe_floor',
         'time_to_optimized',
         'time_to_optimized_after_removal', 'time_to_optimized_reregistered',
         'time_to_optimized_wall',
         'single_register_1000', 'single_unregister_1000',
         'batch_register_1000', 'batch_unregister_1000',
         'ftrace_floor', 'ftrace_floor_sites', 'ftrace_floor_register',
         'ftrace_floor_unregister',
         'event_register_1000', 'event_unregister_1000',
         'event_buffer_reset_floor',
         'batch_1000_bytes_per_probe', 'every_function_count',
         'every_function_register', 'every_function_optimized',
         'every_function_workload', 'every_function_workload_unprobed',
         'every_function_hits', 'every_function_unregister',
         'every_function_bytes_per_probe']


def base(name):
    """every_function_register_7213 -> every_function_register."""
    w = name.rsplit('_', 1)
    return w[0] if name.startswith('every_function_') and w[1].isdigit() else name


def load(path):
    res = {}
    for line in open(path):
        w = line.split()
        if len(w) < 2 or w[0] in ('done', 'register:'):
            continue
        w[0] = base(w[0])
        if w[1] == 'n/a':
            res[w[0]] = {'value': None, 'note': ' '.join(w[2:])}
            continue
        traps = next((x.split('=')[1] for x in w[3:] if x.startswith('traps=')), None)
        note = ' '.join(x for x in w[3:] if not x.startswith('traps='))
        res[w[0]] = {'value': float(w[1]), 'unit': w[2], 'traps': traps,
                     'note': note}
    return res


def cell(r):
    if not r or r['value'] is None:
        return 'n/a'
    v = r['value']
    s = f'{v:.1f}' if r.get('unit') == 'ns' and v < 100000 else f'{v:.0f}'
    if r.get('traps') is not None:
        s += f' ({r["traps"]} trap{"s" if r["traps"] != "1" else ""})'
    if r.get('note') == 'optimized':
        s += ' opt'
    elif r.get('note', '').startswith('optimized='):
        s += f' ({r["note"].split("=")[1]} opt)'
    return s


def main():
    up, ours, outdir = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
    names = [n for n in ORDER if n in up or n in ours]
    names += sorted(n for n in set(up) | set(ours) if n not in names)
    rows = []
    for n in names:
        u, o = up.get(n), ours.get(n)
        ratio = None
        if u and o and u['value'] and o['value'] is not None:
            ratio = o['value'] / u['value']
        rows.append({'case': n, 'upstream': u, 'ours': o, 'ratio': ratio})

    print('Extra guest instructions per hit over an unprobed call (per-hit'
          ' cases), guest ns = instructions (registration, workload); traps per'
          ' hit in parentheses; bytes of kernel memory per probe; every_function:'
          ' one probe on each function both kernels accept.')
    w = max(len(n) for n in names) + 2
    print(f'{"case":<{w}}{"upstream":>24}{"ours":>24}{"ours/upstream":>15}')
    for r in rows:
        ratio = f'{r["ratio"]:.2f}' if r['ratio'] is not None else 'n/a'
        print(f'{r["case"]:<{w}}{cell(r["upstream"]):>24}{cell(r["ours"]):>24}{ratio:>15}')

    with open(f'{outdir}/results.json', 'w') as f:
        json.dump(rows, f, indent=1)
    with open(f'{outdir}/results.csv', 'w') as f:
        f.write('case,upstream,upstream_traps,ours,ours_traps,ratio\n')
        for r in rows:
            def v(x, k):
                return '' if not x or x.get(k) is None else str(x[k])
            f.write(','.join([r['case'], v(r['upstream'], 'value') or 'n/a',
                              v(r['upstream'], 'traps'), v(r['ours'], 'value') or 'n/a',
                              v(r['ours'], 'traps'),
                              '' if r['ratio'] is None else f'{r["ratio"]:.3f}']) + '\n')
    print(f'(also {outdir}/results.csv and results.json)')


if __name__ == '__main__':
    main()
