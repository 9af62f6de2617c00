#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Summarises perf/compare.sh's raw rows: per benchmark and size, the
median over repetitions of each library's per-run median, the ratio
propel/reference and the spread (the range of the per-run medians, as a
percentage of their median). Writes compare.csv, compare.md and PNG plots
(gnuplot) into the output folder and prints the table."""
import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict

LOWER_IS_BETTER = {"us", "ms", "KiB", "%"}
# what the plots show: the size-swept latency and bandwidth series
PLOT_LATENCY = ("pingpong_msg", "pingpong_tagged", "put_lat", "get_lat")
PLOT_BANDWIDTH = ("bw_msg", "put_bw", "get_bw")


def load(path):
    runs = defaultdict(list)  # (bench, unit, size, lib) -> [median per run]
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) < 6:
                continue
            _rep, bench, library, size, unit, median = row[:6]
            lib = library.split(":", 1)[0]
            runs[(bench, unit, int(size), lib)].append(float(median))
    return runs


def summarise(runs):
    rows = []
    keys = sorted({(b, u, s) for (b, u, s, _l) in runs})
    for bench, unit, size in keys:
        row = {"benchmark": bench, "unit": unit, "size": size}
        for lib in ("reference", "propel", "socket-floor"):
            vals = runs.get((bench, unit, size, lib), [])
            if vals:
                med = statistics.median(vals)
                row[lib] = med
                row[lib + "_spread_pct"] = (
                    100.0 * (max(vals) - min(vals)) / med if med else 0.0)
                row[lib + "_runs"] = len(vals)
        if row.get("reference") and row.get("propel"):
            row["ratio"] = row["propel"] / row["reference"]
        # the plain-socket floor (perf/tcp/bench_tcp_floor), when run
        if row.get("socket-floor") and row.get("propel"):
            row["floor_ratio"] = row["propel"] / row["socket-floor"]
        rows.append(row)
    return rows


def fmt(v, digits=3):
    return "n/a" if v is None else f"{v:.{digits}g}"


def table(rows):
    lines = []
    for bench in sorted({r["benchmark"] for r in rows}):
        sel = [r for r in rows if r["benchmark"] == bench]
        unit = sel[0]["unit"]
        better = "lower" if unit in LOWER_IS_BETTER else "higher"
        floor = any("socket-floor" in r for r in sel)
        lines.append(f"### {bench} ({unit}, {better} is better; "
                     "ratio = propel / reference" +
                     ("; floor: a plain TCP socket)" if floor else ")"))
        lines.append("")
        if floor:
            lines.append("| size | reference | propel | ratio | floor | propel / floor | spread ref | spread propel |")
            lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
        else:
            lines.append("| size | reference | propel | ratio | spread ref | spread propel |")
            lines.append("|---:|---:|---:|---:|---:|---:|")
        for r in sel:
            cells = [r["size"], fmt(r.get("reference")), fmt(r.get("propel")),
                     fmt(r.get("ratio"))]
            if floor:
                cells += [fmt(r.get("socket-floor")), fmt(r.get("floor_ratio"))]
            cells += [
                fmt(r.get("reference_spread_pct"), 2) + "%" if "reference" in r else "n/a",
                fmt(r.get("propel_spread_pct"), 2) + "%" if "propel" in r else "n/a"]
            lines.append("| " + " | ".join(str(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def plot(rows, out):
    """latency.png: ping-pong and RMA latency; bandwidth.png: windowed
    bandwidth, two-sided and one-sided."""
    plots = {
        "latency.png": (PLOT_LATENCY, "latency (us): ping-pong half round trip, RMA per operation"),
        "bandwidth.png": (PLOT_BANDWIDTH, "bandwidth (MB/s)"),
    }
    for png, (benches, ylabel) in plots.items():
        series = []
        for bench in [b for b in benches if any(r["benchmark"] == b for r in rows)]:
            for lib in ("reference", "propel"):
                pts = [(r["size"], r[lib]) for r in rows
                       if r["benchmark"] == bench and lib in r]
                if not pts:
                    continue
                dat = os.path.join(out, f"{bench}.{lib}.dat")
                with open(dat, "w") as f:
                    for s, v in pts:
                        f.write(f"{s} {v}\n")
                series.append((dat, f"{bench} {lib}"))
        if not series:
            continue
        script = [
            "set terminal png size 900,560 noenhanced",
            f"set output '{os.path.join(out, png)}'",
            "set logscale x 2", "set logscale y 10", "set grid",
            "set format x '%.0b%B'",
            "set key left top", "set xlabel 'message size (bytes)'",
            f"set ylabel '{ylabel}'",
            "plot " + ", ".join(f"'{d}' using 1:2 with linespoints title '{t}'"
                                for d, t in series),
        ]
        try:
            subprocess.run(["gnuplot"], input="\n".join(script), text=True,
                           check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"plot {png}: {e}", file=sys.stderr)


def main():
    raw, out = sys.argv[1], sys.argv[2]
    rows = summarise(load(raw))
    fields = ["benchmark", "unit", "size", "reference", "propel", "ratio",
              "reference_spread_pct", "propel_spread_pct", "reference_runs",
              "propel_runs", "socket-floor", "floor_ratio"]
    with open(os.path.join(out, "compare.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})
    md = table(rows)
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write(md + "\n")
    plot(rows, out)
    print(md)
    print(f"wrote {out}/compare.csv, compare.md, latency.png, bandwidth.png")


if __name__ == "__main__":
    main()
