#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""cg_paths.py REF1 REF2 PROPEL1 PROPEL2: per-call instructions of the
library calls Debian's fi_pingpong client makes per message (cg_pingpong.sh).

fi_pingpong is stripped, and so is Debian's libfabric: the paths are found
by their callers in fi_pingpong (one function posts the send, one reposts
the receive, one spins in fi_cq_read), and each callee's inclusive cost
and call count are read from callgrind_annotate --tree=calling. A run of
N iterations reads N completions (fi_inject reports none); the other reads
were empty. Two runs per library with different empty-read counts give
the cost of a read that finds a completion (c_full) and of an empty one
(c_empty): total = N * c_full + (calls - N) * c_empty.
"""
import re
import subprocess
import sys

# fi_pingpong 1.17 (Debian) functions, by address: the callers of the
# library's data calls
CALLERS = {'0x0000000000005760': 'cq_read', '0x00000000000068c0': 'send',
           '0x0000000000005db0': 'recv'}


def paths(path):
    out = subprocess.run(['callgrind_annotate', '--inclusive=yes',
                          '--tree=calling', path], capture_output=True,
                         text=True, check=True).stdout
    cur, res = None, {}
    for line in out.splitlines():
        m = re.match(r'\s*[\d,]+ \(.*\)\s+\*\s+\?\?\?:(0x[0-9a-f]+) '
                     r'\[/usr/bin/fi_pingpong\]', line)
        if m:
            cur = CALLERS.get(m.group(1))
            continue
        if not line.strip():
            cur = None
            continue
        m = re.match(r'\s*([\d,]+) \(.*\)\s+>\s+(\S+) \(([\d,]+)x\) '
                     r'\[[^\]]*libfabric[^\]]*\]', line)
        if cur and m:
            res[cur] = (int(m.group(1).replace(',', '')),
                        int(m.group(3).replace(',', '')), m.group(2))
    return res


def iters(path):
    return int(re.search(r'_(\d+)\.out$', path).group(1))


def solve(a, b):
    """Two runs: (Ir, calls, N) each; returns (c_full, c_empty)."""
    (ir1, c1, n1), (ir2, c2, n2) = a, b
    e1, e2 = c1 - n1, c2 - n2
    det = n1 * e2 - n2 * e1
    if det == 0:
        return None, None
    return (ir1 * e2 - ir2 * e1) / det, (n1 * ir2 - n2 * ir1) / det


def main(argv):
    table = {}
    for lib, files in (('reference', argv[1:3]), ('propel', argv[3:5])):
        runs = [(paths(f), iters(f)) for f in files]
        row = {}
        for k in ('send', 'recv'):
            per = [r[k][0] / r[k][1] for r, _ in runs if k in r]
            row[k] = min(per) if per else None
        cq = [(r['cq_read'][0], r['cq_read'][1], n) for r, n in runs]
        row['cq_full'], row['cq_empty'] = solve(cq[0], cq[1])
        row['cq_calls'] = ['%d calls for %d completions' % (c, n)
                           for _, c, n in cq]
        table[lib] = row
    print('%-28s %10s %10s %7s' % ('instructions per call', 'reference',
                                   'propel', 'ratio'))
    for k, name in (('send', 'fi_inject (8 B)'),
                    ('recv', 'fi_recv (repost)'),
                    ('cq_full', 'fi_cq_read, a completion'),
                    ('cq_empty', 'fi_cq_read, empty')):
        r, p = table['reference'][k], table['propel'][k]
        if r is None or p is None:
            print('%-28s %10s %10s' % (name, r, p))
            continue
        print('%-28s %10.0f %10.0f %7.2f' % (name, r, p, p / r))
    r = sum(table['reference'][k] for k in ('send', 'recv', 'cq_full'))
    p = sum(table['propel'][k] for k in ('send', 'recv', 'cq_full'))
    print('%-28s %10.0f %10.0f %7.2f' % ('per message (3 calls)', r, p,
                                         p / r))
    for lib in table:
        print(lib, '; '.join(table[lib]['cq_calls']))


if __name__ == '__main__':
    main(sys.argv)
