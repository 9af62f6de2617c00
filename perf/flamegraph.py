#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Folds `perf script` output into stacks and draws a flame graph as SVG.

    perf script -i perf.data | perf/flamegraph.py [--comm NAME] [--title T] > flame.svg
    perf/flamegraph.py --fold < perf.script > stacks.folded

Debian ships no flame-graph package, so this is our own: each sample's
call chain (leaf last after reversal) is counted, then laid out root at the
bottom, one rectangle per frame, width proportional to samples. --comm
keeps only samples of one thread name (a progress thread is "fi_progress").
"""
import argparse
import html
import sys
from collections import defaultdict


def fold(lines, comm_filter=None):
    """Returns {"root;...;leaf": samples} from perf script text."""
    stacks = defaultdict(int)
    comm, frames = None, []

    def flush():
        if comm is not None and frames and (
                comm_filter is None or comm == comm_filter):
            stacks[";".join([comm] + frames[::-1])] += 1

    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            comm, frames = None, []
            continue
        if not line[0].isspace():
            # header: "comm pid/tid [cpu] time: period event:"
            flush()
            comm, frames = line.split()[0], []
            continue
        parts = line.strip().split(None, 1)
        if len(parts) == 2:
            sym = parts[1].rsplit(" (", 1)[0]
            sym = sym.split("+0x", 1)[0]
            frames.append(sym or "[unknown]")
    flush()
    return stacks


class Node:
    __slots__ = ("name", "count", "children")

    def __init__(self, name):
        self.name, self.count, self.children = name, 0, {}


def build_tree(stacks):
    root = Node("all")
    for stack, n in stacks.items():
        root.count += n
        node = root
        for frame in stack.split(";"):
            node = node.children.setdefault(frame, Node(frame))
            node.count += n
    return root


def color(name):
    h = sum(ord(c) for c in name)
    return f"rgb({205 + h % 50},{80 + h % 120},{30 + h % 40})"


def svg(root, title, width=1200, row=16):
    depth = 0

    def measure(n, d):
        nonlocal depth
        depth = max(depth, d)
        for c in n.children.values():
            measure(c, d + 1)

    measure(root, 0)
    height = (depth + 1) * row + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="monospace" font-size="11">',
           f'<text x="{width // 2}" y="16" text-anchor="middle" '
           f'font-size="14">{html.escape(title)}</text>']
    total = root.count or 1

    def draw(n, x, d):
        w = width * n.count / total
        y = height - (d + 1) * row
        label = f"{n.name} ({n.count} samples, {100.0 * n.count / total:.1f}%)"
        out.append(f'<g><title>{html.escape(label)}</title>'
                   f'<rect x="{x:.2f}" y="{y}" width="{max(w - 0.5, 0.1):.2f}" '
                   f'height="{row - 1}" fill="{color(n.name)}"/>')
        if w > 40:
            chars = int(w / 7)
            text = n.name if len(n.name) <= chars else n.name[:max(chars - 2, 1)] + ".."
            out.append(f'<text x="{x + 2:.2f}" y="{y + row - 4}">'
                       f'{html.escape(text)}</text>')
        out.append("</g>")
        cx = x
        for c in sorted(n.children.values(), key=lambda c: c.name):
            draw(c, cx, d + 1)
            cx += width * c.count / total

    draw(root, 0.0, 0)
    out.append("</svg>")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--comm", help="keep only samples of this thread name")
    ap.add_argument("--title", default="propel flame graph (cpu-clock)")
    ap.add_argument("--fold", action="store_true",
                    help="print folded stacks instead of SVG")
    args = ap.parse_args()
    stacks = fold(sys.stdin, args.comm)
    if not stacks:
        sys.exit("flamegraph: no samples (wrong --comm, or no call chains?)")
    if args.fold:
        for s, n in sorted(stacks.items()):
            print(f"{s} {n}")
        return
    print(svg(build_tree(stacks), args.title))


if __name__ == "__main__":
    main()
