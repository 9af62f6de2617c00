#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# 8 B tagged ping-pong latency of several libfabric builds, in alternating
# pairs (A B C, then C B A, ...), each run pinned (BF_PIN=1) to the two
# CPUs named, with the cache-line floor of those CPUs printed first. For
# each build: the median of its runs and the median of its per-pair ratio
# to the reference (and to the second build, when that is not the
# reference). The VM's state drifts within minutes (perf/README.md): the
# per-pair ratios are the figures to use, not two series' medians.
#
#   perf/latency_pairs.sh [-n PAIRS] [-c "CPU,CPU ..."] [-b BUILD] LIB...
#
# LIB: a directory that holds a libfabric.so.1 (build/lib for propel), or
# "ref" for the system library (Debian's libfabric1). -b names the build
# directory whose benchmark binaries run (default build). PP_ARGS replaces
# the ping-pong arguments (default "-r 3 -i 20000"); EXTRA_LD is appended
# to LD_LIBRARY_PATH (the reference's dependencies on a machine without
# them). Numbers are for reading, never for passing a test.
set -euo pipefail
pairs=10 cpus="0,1" build=build
while getopts "n:c:b:" o; do
	case $o in
	n) pairs=$OPTARG ;;
	c) cpus=$OPTARG ;;
	b) build=$OPTARG ;;
	*) echo "usage: $0 [-n PAIRS] [-c \"CPU,CPU ...\"] [-b BUILD] LIB..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$0: name at least one LIB (or ref)" >&2; exit 2; }
libs=("$@")
pp_bin="$build/perf/fabric/bench_fabric_pingpong"
floor_bin="$build/perf/shm/bench_cacheline_floor"

# one run: prints "library-path,median-us"
run_pp() {
	local lib=$1 set=$2 ld=""
	[ "$lib" = ref ] || ld=$(realpath "$lib")
	[ -n "${EXTRA_LD:-}" ] && ld="${ld:+$ld:}$EXTRA_LD"
	env ${ld:+LD_LIBRARY_PATH=$ld} BF_PIN=1 taskset -c "$set" "$pp_bin" \
		-p shm -t -m 8 -M 8 ${PP_ARGS:--r 3 -i 20000} 2>/dev/null |
		grep -v '^benchmark\|^#' | tail -1 | cut -d, -f2,5
}

for set in $cpus; do
	echo "== CPUs $set: $(taskset -c "$set" "$floor_bin" | tail -1)"
	results=$(mktemp)
	for i in $(seq 1 "$pairs"); do
		order=("${libs[@]}")
		if [ $((i % 2)) = 0 ]; then
			order=()
			for ((k = ${#libs[@]} - 1; k >= 0; k--)); do
				order+=("${libs[$k]}")
			done
		fi
		for lib in "${order[@]}"; do
			r=$(run_pp "$lib" "$set")
			echo "$i $lib ${r#*,} ${r%,*}" >>"$results"
		done
	done
	python3 - "$results" "${libs[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
libs = sys.argv[2:]
val = {l: {} for l in libs}
for pair, lib, us, path in rows:
    val[lib][int(pair)] = float(us)
    loaded = path
def ratio(a, b):
    r = [val[a][p] / val[b][p] for p in val[a] if p in val[b]]
    return statistics.median(r), min(r), max(r)
for l in libs:
    v = list(val[l].values())
    s = f"{l}: median {statistics.median(v):.3f} us (min {min(v):.3f} max {max(v):.3f}, {len(v)} runs)"
    if l != "ref" and "ref" in libs:
        m, lo, hi = ratio(l, "ref")
        s += f"; per-pair ratio to ref {m:.3f} (min {lo:.3f} max {hi:.3f})"
    print(s)
if len(libs) > 1 and libs[0] != "ref" and libs[1] != "ref":
    m, lo, hi = ratio(libs[0], libs[1])
    print(f"{libs[0]} / {libs[1]}: per-pair ratio {m:.3f} (min {lo:.3f} max {hi:.3f})")
PY
	# which library each run loaded (pl_bench_library_name)
	cut -d' ' -f2,4 "$results" | sort -u | sed 's/^/  loaded: /'
	rm -f "$results"
done
