#!/usr/bin/env python3
"""The oracle of a sample profile: the same profile with exact counts.

    pgo-oracle.py PROFILE COVERAGE.json DWARFDUMP.txt > ORACLE.prof

PROFILE is a text sample profile (sbx profgen's), COVERAGE.json what
`llvm-cov export -format=text` writes for a coverage build of the same
source (-fprofile-instr-generate -fcoverage-mapping), DWARFDUMP.txt what
`llvm-dwarfdump --debug-info` prints for the profiled binary (the
functions' declaration lines). Every line of the profile gets the number of
times its source line ran, and lines the samples missed are added: the
profile a perfect sampler would have written, in the same shape (the same
functions, inline sites and discriminators). Built with it, a program shows
what sample PGO can do with right counts; the distance between that and the
build with sbx's profile is what the samples lack, not what the compiler
does with them.

Approximations, all in the oracle's favour or neutral: each discriminator of
a line gets the line's count; an inlined function's lines get their count
times the share of its calls made from that site (its call line's count over
its entry count); call targets get their line's count.
"""
import collections
import json
import re
import sys


def coverage(path):
    """line counts by (file, line); each function's entry count and line range"""
    data = json.load(open(path))["data"][0]
    counts = {}
    for f in data["files"]:
        segs = collections.defaultdict(list)
        for s in f["segments"]:
            segs[s[0]].append(s)
        wrapped = None
        for line in range(1, max(segs, default=0) + 1):
            here = segs.get(line, [])
            starts = [s for s in here if s[3] and s[4] and not s[5]]
            if starts:
                counts[(f["filename"], line)] = max(s[2] for s in starts)
            elif wrapped is not None and wrapped[3]:
                counts[(f["filename"], line)] = wrapped[2]
            if here:
                wrapped = here[-1]
    funcs = {}
    for fn in data["functions"]:
        name = fn["name"].split(":")[-1]  # static functions: "file.c:name"
        lines = [r[0] for r in fn["regions"]] + [r[2] for r in fn["regions"]]
        if lines:
            funcs[name] = (fn["filenames"][0], min(lines), max(lines), fn["count"])
    return counts, funcs


def decl_lines(path):
    """function name -> declaration line, from llvm-dwarfdump's subprograms"""
    decl, name, line, linkage = {}, None, None, None

    def flush():
        for n in (name, linkage):
            if n and line is not None:
                decl.setdefault(n, line)

    for text in open(path, errors="replace"):
        if "DW_TAG_" in text:
            flush()
            name = line = linkage = None
            continue
        m = re.search(r'DW_AT_(linkage_name|name)\s*\("([^"]*)"\)', text)
        if m:
            if m.group(1) == "name":
                name = m.group(2)
            else:
                linkage = m.group(2)
        m = re.search(r"DW_AT_decl_line\s*\((\d+)\)", text)
        if m:
            line = int(m.group(1))
    flush()
    return decl


class Func:
    def __init__(self, name, total, head, depth):
        self.name, self.total, self.head, self.depth = name, total, head, depth
        self.lines = []  # (offset, discriminator or None, count, [(callee, n)])
        self.sites = []  # (offset, discriminator or None, Func)


def parse(path):
    top, stack = [], []
    for raw in open(path):
        raw = raw.rstrip("\n")
        if not raw.strip() or raw.lstrip().startswith("!"):
            continue
        depth = (len(raw) - len(raw.lstrip(" ")))
        body = raw.strip()
        m = re.match(r"^(\S+):(\d+):(\d+)$", body)
        if depth == 0 and m:
            f = Func(m.group(1), int(m.group(2)), int(m.group(3)), 0)
            top.append(f)
            stack = [f]
            continue
        while stack and stack[-1].depth >= depth:
            stack.pop()
        parent = stack[-1]
        m = re.match(r"^(\d+)(?:\.(\d+))?: (\S+):(\d+)$", body)
        if m:  # an inline site
            g = Func(m.group(3), int(m.group(4)), 0, depth)
            parent.sites.append((int(m.group(1)), m.group(2), g))
            stack.append(g)
            continue
        m = re.match(r"^(\d+)(?:\.(\d+))?: (\d+)((?: \S+:\d+)*)$", body)
        if not m:
            sys.exit(f"pgo-oracle: cannot read profile line '{raw}'")
        calls = [(c.rsplit(":", 1)[0], int(c.rsplit(":", 1)[1])) for c in m.group(4).split()]
        parent.lines.append((int(m.group(1)), m.group(2), int(m.group(3)), calls))
    return top


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().split("\n\n")[1])
    counts, funcs = coverage(sys.argv[2])
    decl = decl_lines(sys.argv[3])
    top = parse(sys.argv[1])

    def exact(f, off, scale):
        if f.name not in decl or f.name not in funcs:
            return None
        c = counts.get((funcs[f.name][0], decl[f.name] + off))
        return None if c is None else int(round(c * scale))

    def rewrite(f, scale, add_missing):
        known = {(o, d) for o, d, _, _ in f.lines}
        lines = []
        for o, d, c, calls in f.lines:
            e = exact(f, o, scale)
            e = c if e is None else e
            lines.append((o, d, e, [(n, e) for n, _ in calls]))
        if add_missing and f.name in funcs and f.name in decl:
            file, first, last, _ = funcs[f.name]
            for line in range(first, last + 1):
                o = line - decl[f.name]
                if o >= 0 and (o, None) not in known and (file, line) in counts and \
                        not any(s[0] == o for s in f.sites):
                    lines.append((o, None, int(round(counts[(file, line)] * scale)), []))
        f.lines = sorted(lines, key=lambda x: (x[0], int(x[1] or 0)))
        for i, (o, d, g) in enumerate(f.sites):
            site = exact(f, o, scale)
            entry = funcs.get(g.name, (None, 0, 0, 0))[3]
            s = site / entry if site and entry else 0
            rewrite(g, s, True)
        f.total = sum(c for _, _, c, _ in f.lines) + sum(g.total for _, _, g in f.sites)

    for f in top:
        rewrite(f, 1.0, True)
        if f.name in funcs:
            f.head = funcs[f.name][3]

    def emit(f, indent):
        pad = " " * indent
        items = [(o, int(d or 0), 0, (o, d, c, calls)) for o, d, c, calls in f.lines] + \
                [(o, int(d or 0), 1, (o, d, g)) for o, d, g in f.sites]
        for _, _, kind, it in sorted(items, key=lambda x: x[:3]):
            if kind == 0:
                o, d, c, calls = it
                tail = "".join(f" {n}:{k}" for n, k in calls)
                print(f"{pad}{o}{'.' + d if d else ''}: {c}{tail}")
            else:
                o, d, g = it
                print(f"{pad}{o}{'.' + d if d else ''}: {g.name}:{g.total}")
                emit(g, indent + 1)

    for f in top:
        print(f"{f.name}:{f.total}:{f.head}")
        emit(f, 1)


main()
