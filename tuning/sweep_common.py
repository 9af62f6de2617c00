# SPDX-License-Identifier: BSD-2-Clause
"""What the threshold sweepers (sweep_shm.py, sweep_rxm.py) share:
running one perf/fabric benchmark on propel and reading its medians, and
the crossover rule that turns two curves into a threshold."""
import csv
import io
import os
import subprocess
import sys


def run(binary, args, env_extra, lib, clear_prefixes=()):
    """Medians by benchmark and size, from `binary args` on the propel
    library in `lib` with env_extra set. The caller's tuning profile and
    variables starting with one of clear_prefixes are removed first: a
    sweep measures the values it sets against the defaults, not against
    whatever the shell carries."""
    env = {k: v for k, v in os.environ.items()
           if k != "FI_TUNING_PROFILE" and not k.startswith(clear_prefixes)}
    env.update(env_extra)
    env["LD_LIBRARY_PATH"] = lib
    env["BF_PIN"] = "1"
    p = subprocess.run([binary] + args, env=env, capture_output=True,
                       text=True, timeout=900)
    if p.returncode:
        sys.exit(f"sweep: {os.path.basename(binary)} {' '.join(args)} with "
                 f"{env_extra} failed: {p.stderr.strip()[-300:]}")
    rows = {}
    for r in csv.DictReader(io.StringIO(p.stdout)):
        if not r["library"].startswith("propel"):
            sys.exit("sweep: the benchmark did not load propel "
                     f"({r['library']}); is {lib} a propel build?")
        rows.setdefault(r["benchmark"], {})[int(r["size"])] = float(r["median"])
    return rows


def crossover(sizes, first, second, first_better):
    """The largest size to give `first`: just below the smallest size from
    which `second` wins at that size and every larger one (a noisy sample
    in the middle of the range only moves the answer up, never makes it
    jump down). None when `second` wins everywhere; the largest size
    when it never wins for good."""
    sizes = [s for s in sizes if s in first and s in second]
    answer = sizes[-1] if sizes else None
    for s in reversed(sizes):
        if first_better(first[s], second[s]):
            break
        answer = None if s == sizes[0] else sizes[sizes.index(s) - 1]
    return answer
