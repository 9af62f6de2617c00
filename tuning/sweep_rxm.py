#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The threshold sweeper for propel's ofi_rxm provider: measures, on the
machine it runs on, where rendezvous starts beating the buffered
protocols, and writes a tuning profile with the crossover size.

  tuning/sweep_rxm.py [--build build] [--out perf/results/rxm-sweep.env] [--quick]

Crossover measured (perf/fabric benchmarks, pinned, on propel, provider
'tcp;ofi_rxm' over 127.0.0.1):
  buffered -> rendezvous
      every size through receive buffers, eager or segmented
      (FI_OFI_RXM_SAR_LIMIT=2^40, the largest rxm accepts) against every
      size by rendezvous (FI_OFI_RXM_SAR_LIMIT=1, the smallest: 0 is
      refused), in windowed bandwidth (bench_fabric_bw) and ping-pong
      half round trip (bench_fabric_pingpong). Rendezvous wins at a size
      when the factor it gains in bandwidth is larger than the factor it
      loses in latency, bw_rndv / bw_sar * lat_sar / lat_rndv > 1: a
      stream and a lone message weigh the same. The SAR limit is the
      largest size below the first one from which rendezvous wins at
      every larger size (tuning/sweep_common.crossover); it is never set
      below the smallest size swept, under which a rendezvous's extra
      round trip was not measured against anything.
FI_OFI_RXM_BUFFER_SIZE (the eager size and segment size) is not swept:
it has no crossover to find. A larger buffer only moves more per
segment, so every benchmark here prefers the largest one, while its cost,
msg_rx_size buffers on each connection of each endpoint, grows with the
number of peers, which a two-process benchmark cannot see; picking it is
a memory budget, not a measurement. The SAR limit is measured at the
buffer size in effect: the default, since the sweep clears FI_OFI_RXM_*
from its environment.
The profile is read back with FI_TUNING_PROFILE=<file>; `fi_info -e`
then shows the value. fi_getinfo does not: ofi_rxm's max_msg_size is the
larger of the SAR limit and the core's (unlimited on tcp). Medians of
repeated samples; numbers from a busy machine move, so run it on a quiet
one.
"""
import argparse
import os
import re
import subprocess
import sys

from sweep_common import crossover, run

PROV = "tcp;ofi_rxm"
# rxm_params.c reads FI_OFI_RXM_SAR_LIMIT within [1, 2^40]; a value
# outside is refused and the default used, which would measure nothing
SAR_LIMIT_MAX = 1 << 40
SAR_LIMIT_MIN = 1


def rxm_default(build, lib):
    """The build's default SAR limit, from its own `fi_info -e`; exits when
    the build does not know the variable (then setting it would change
    nothing and both curves would be the same protocol)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FI_OFI_RXM_", "FI_TUNING_PROFILE"))}
    env["LD_LIBRARY_PATH"] = lib
    p = subprocess.run([os.path.join(build, "tuning", "fi_info"), "-e"],
                       env=env, capture_output=True, timeout=120)
    out = p.stdout.decode(errors="replace")
    m = re.search(r"^# FI_OFI_RXM_SAR_LIMIT: size_t\n# ofi_rxm: .*"
                  r"\(default: (\d+)\)$", out, re.M)
    if not m:
        sys.exit("sweep: this build's fi_info -e does not list "
                 "FI_OFI_RXM_SAR_LIMIT")
    return int(m.group(1))


def rndv_gain(buffered, rndv):
    """What rendezvous gains over the buffered protocols at one size, from
    their (bandwidth, latency) pairs: > 1 when it wins."""
    return rndv[0] / buffered[0] * buffered[1] / rndv[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="perf/results/rxm-sweep.env")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    bench = os.path.join(a.build, "perf", "fabric")
    lib = os.path.realpath(os.path.join(a.build, "lib"))
    default = rxm_default(a.build, lib)
    if a.quick:
        # sizes on both sides of the crossovers seen on loopback (16 or
        # 32 KiB, prov/rxm/docs/provider.md), in a few seconds
        args = ["-m", "4096", "-M", str(256 << 10), "-i", "500",
                "-r", "3", "-w", "1"]
    else:
        args = ["-m", "1024", "-M", str(1 << 20), "-r", "7", "-w", "2"]
    args = ["-p", PROV] + args

    curves = {}
    for name, limit in (("sar", SAR_LIMIT_MAX), ("rndv", SAR_LIMIT_MIN)):
        # the core's protocols over tcp: node-local peers would go
        # through shm otherwise (FI_OFI_RXM_USE_SHM, on by default)
        env = {"FI_OFI_RXM_SAR_LIMIT": str(limit),
               "FI_OFI_RXM_USE_SHM": "0"}
        bw = run(os.path.join(bench, "bench_fabric_bw"), args, env, lib,
                 ("FI_OFI_RXM_",))["bw_msg"]
        lat = run(os.path.join(bench, "bench_fabric_pingpong"), args, env,
                  lib, ("FI_OFI_RXM_",))["pingpong_msg"]
        curves[name] = {s: (bw[s], lat[s]) for s in bw if s in lat}
    sar, rndv = curves["sar"], curves["rndv"]
    sizes = sorted(s for s in sar if s in rndv)
    if not sizes:
        sys.exit("sweep: the benchmarks measured no size twice")

    limit = crossover(sizes, sar, rndv, lambda s, r: rndv_gain(s, r) <= 1)
    if limit is None:
        limit = sizes[0]

    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("# propel ofi_rxm profile written by tuning/sweep_rxm.py on "
                f"{os.uname().nodename}\n")
        f.write(f"# {PROV} on 127.0.0.1, FI_OFI_RXM_BUFFER_SIZE at its "
                f"default; the build's SAR limit default: {default}\n")
        f.write("# buffered (eager/segmented) vs rendezvous: windowed "
                "bandwidth (MB/s), ping-pong half round trip (us), and\n"
                "# rendezvous's gain, bw_rndv/bw_sar * lat_sar/lat_rndv "
                "(> 1: rendezvous wins):\n")
        for s in sizes:
            f.write(f"#   {s:>8} B  bw {sar[s][0]:9.1f} {rndv[s][0]:9.1f}"
                    f"  lat {sar[s][1]:8.2f} {rndv[s][1]:8.2f}"
                    f"  gain {rndv_gain(sar[s], rndv[s]):6.2f}\n")
        f.write(f"export FI_OFI_RXM_SAR_LIMIT={limit}\n")
    print(open(a.out).read(), end="")
    print(f"sweep: wrote {a.out}; use it with FI_TUNING_PROFILE={a.out}")


if __name__ == "__main__":
    main()
