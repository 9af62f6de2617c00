#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The threshold sweeper for propel's shm provider: measures, on the
machine it runs on, where one protocol starts beating the next, and writes
a tuning profile with the crossover sizes.

  tuning/sweep_shm.py [--build build] [--out perf/results/shm-sweep.env] [--quick]

Crossovers measured (perf/fabric benchmarks, pinned, on propel):
  inline -> SAR   ping-pong latency with every size inline
                  (FI_SHM_INLINE_SIZE large) against every size through
                  bounce buffers (FI_SHM_INLINE_SIZE=0): the inline size is
                  the largest size up to which inline is not slower.
  SAR -> CMA      windowed bandwidth with CMA off (FI_SHM_DISABLE_CMA=1)
                  against CMA from the inline limit up
                  (FI_SHM_SAR_THRESHOLD=0): the SAR threshold is the
                  largest size below the first one where CMA wins.
The profile is read back with FI_TUNING_PROFILE=<file>; `fi_info -e`
then shows the values. Medians of repeated samples; numbers from a busy
machine move, so run it on a quiet one.
"""
import argparse
import os

from sweep_common import crossover, run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="perf/results/shm-sweep.env")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    bench = os.path.join(a.build, "perf", "fabric")
    lib = os.path.realpath(os.path.join(a.build, "lib"))
    reps = ["-r", "3", "-w", "1"] if a.quick else ["-r", "7", "-w", "2"]

    # inline against SAR, 64 B .. 4 KiB
    lat_args = ["-m", "64", "-M", "4096", "-i", "2000"] + reps
    pp = os.path.join(bench, "bench_fabric_pingpong")
    inl = run(pp, lat_args, {"FI_SHM_INLINE_SIZE": "4096"}, lib)["pingpong_msg"]
    sar = run(pp, lat_args, {"FI_SHM_INLINE_SIZE": "0"}, lib)["pingpong_msg"]
    sizes = sorted(inl)
    inline_size = crossover(sizes, inl, sar, lambda x, y: x <= y * 1.02) or 0

    # SAR against CMA, 4 KiB .. 4 MiB
    bw_args = ["-m", "4096", "-M", str(4 << 20), "-i", "1024"] + reps
    bw = os.path.join(bench, "bench_fabric_bw")
    sar_bw = run(bw, bw_args, {"FI_SHM_DISABLE_CMA": "1"}, lib)["bw_msg"]
    cma_bw = run(bw, bw_args, {"FI_SHM_SAR_THRESHOLD": "0"}, lib)["bw_msg"]
    bsizes = sorted(sar_bw)
    sar_threshold = crossover(bsizes, sar_bw, cma_bw, lambda x, y: x >= y)
    if sar_threshold is None:
        sar_threshold = 0

    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("# propel shm profile written by tuning/sweep_shm.py on "
                f"{os.uname().nodename}\n")
        f.write("# ping-pong half round trip (us), inline vs SAR:\n")
        for s in sizes:
            f.write(f"#   {s:>8} B  inline {inl[s]:8.3f}  sar {sar[s]:8.3f}\n")
        f.write("# windowed bandwidth (MB/s), SAR vs CMA:\n")
        for s in bsizes:
            f.write(f"#   {s:>8} B  sar {sar_bw[s]:10.1f}  cma "
                    f"{cma_bw.get(s, 0):10.1f}\n")
        f.write(f"export FI_SHM_INLINE_SIZE={inline_size}\n")
        f.write(f"export FI_SHM_SAR_THRESHOLD={sar_threshold}\n")
    print(open(a.out).read(), end="")
    print(f"sweep: wrote {a.out}; use it with FI_TUNING_PROFILE={a.out}")


if __name__ == "__main__":
    main()
