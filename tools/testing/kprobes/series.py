#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The patch series as patches/series describes it.

patches/series is the one place that says which patch of the series each
overlay file and each patches/*.patch belongs to.  This reads it for
assemble.sh and patches.sh:

  series.py plan <patches dir> <overlay file list>
      the steps that build the series, one per line: "patch <name>",
      "delete <path>", "add <file>", "diff <patch file>", "commit";
      fails when an overlay file is in no patch or in two, when a
      patches/*.patch is in none or in two, or a message is missing
  series.py message <patches dir> <name>
      the commit message of one patch: patches/msg/<name>, then the
      project's Signed-off-by
  series.py names <patches dir>
      the patches' names, in order
"""
import fnmatch
import os
import sys

SIGNOFF = ("Signed-off-by: Seed c91b7ce1 maintainers "
           "<maintainers@users.noreply.a-seed-c91b7ce1.example>")


def parse(pdir):
    """[(name, [(op, arg), ...]), ...] from patches/series."""
    patches = []
    with open(os.path.join(pdir, "series")) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            op, args = line[0], line[1:]
            if op == "patch" and len(args) == 1:
                patches.append((args[0], []))
            elif op in ("add", "diff", "delete") and args and patches:
                patches[-1][1].extend((op, a) for a in args)
            else:
                sys.exit(f"series: patches/series:{n}: cannot read this line")
    return patches


def plan(pdir, overlay_list):
    with open(overlay_list) as f:
        overlay = [l.strip() for l in f if l.strip()]
    patches = parse(pdir)
    owner = {}
    used = {}
    bad = False
    out = []
    for name, steps in patches:
        if not os.path.isfile(os.path.join(pdir, "msg", name)):
            print(f"series: patch {name} has no message patches/msg/{name}",
                  file=sys.stderr)
            bad = True
        out.append(f"patch {name}")
        for op, arg in steps:
            if op == "delete":
                out.append(f"delete {arg}")
            elif op == "diff":
                if not os.path.isfile(os.path.join(pdir, arg)):
                    print(f"series: {name}: no patches/{arg}", file=sys.stderr)
                    bad = True
                if arg in used:
                    print(f"series: patches/{arg} is in {used[arg]} and {name}",
                          file=sys.stderr)
                    bad = True
                used[arg] = name
                out.append(f"diff {arg}")
            else:
                hits = [f for f in overlay if fnmatch.fnmatchcase(f, arg)]
                if not hits:
                    print(f"series: {name}: 'add {arg}' matches no file",
                          file=sys.stderr)
                    bad = True
                for f in hits:
                    if f in owner:
                        if owner[f] != name:
                            print(f"series: {f} is in {owner[f]} and {name}",
                                  file=sys.stderr)
                            bad = True
                        continue
                    owner[f] = name
                    out.append(f"add {f}")
        out.append("commit")
    for f in overlay:
        if f not in owner:
            print(f"series: {f} is in no patch: add it to patches/series",
                  file=sys.stderr)
            bad = True
    for p in sorted(os.listdir(pdir)):
        if p.endswith(".patch") and p not in used:
            print(f"series: patches/{p} is in no patch of patches/series",
                  file=sys.stderr)
            bad = True
    if bad:
        sys.exit(1)
    print("\n".join(out))


def message(pdir, name):
    with open(os.path.join(pdir, "msg", name)) as f:
        text = f.read().rstrip("\n")
    print(text + "\n\n" + SIGNOFF)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "plan":
        plan(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "message":
        message(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "names":
        for name, _ in parse(sys.argv[2]):
            print(name)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
