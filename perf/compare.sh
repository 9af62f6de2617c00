#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The comparison runner (perf/README.md): runs each two-process benchmark on the
# reference libfabric and on propel, alternately (A B A B ...) in this one
# invocation, each run pinned (BF_PIN=1: rank r on CPU r), then prints per
# size the median of each library, the ratio and the spread, and writes a
# CSV and PNG plots (gnuplot). Each run is pinned (BF_PIN=1: rank r on
# CPU r) except the multi-threaded ones.
#
#   perf/compare.sh [--quick] [--reps N] [--prov shm|tcp|rxm] [--out DIR] [--build DIR]
#
# --prov tcp runs the FI_EP_MSG benchmarks (-e msg, over 127.0.0.1) and
# the plain-socket floor beside them (perf/tcp/bench_tcp_floor).
# --prov rxm runs the RDM benchmarks on 'tcp;ofi_rxm' (latency, bandwidth
# and message rate, the 2-thread FI_THREAD_SAFE rate, RMA), then once
# connections on demand at scale (bench_fabric_conn): 300 peers in 30
# processes on both libraries (rate and memory per peer side by side),
# and 10,000 peers in 10 processes on propel alone (the reference's
# helpers die with 40 endpoints each, prov/rxm/docs/provider.md).
#
# Installs what it needs and builds propel first (scripts/install-deps.sh,
# scripts/build.sh). Numbers are for reading, never for passing a test.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=3 prov=shm out=perf/results build=build quick=0 scale=()
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--reps) reps=$2; shift ;;
	--prov) prov=$2; shift ;;
	--out) out=$2; shift ;;
	--build) build=$2; shift ;;
	*) echo "usage: $0 [--quick] [--reps N] [--prov P] [--out DIR] [--build DIR]" >&2; exit 2 ;;
	esac
	shift
done

scripts/install-deps.sh
scripts/build.sh "$build"
bin="$build/perf/fabric"
lib=$(realpath "$build/lib")
mkdir -p "$out"
raw="$out/raw.csv"
: >"$raw"

# name|binary|args|pin: the benchmarks and their size ranges; pin=0 for
# a program whose threads need every CPU (it unsets BF_PIN itself anyway)
if [ "$quick" = 1 ]; then
	size_args="-M 65536 -r 3 -w 1 -i 500"
	bw_args="-M 1048576 -r 3 -w 1 -i 1024"
	rma_args="-M 1048576 -r 3 -w 1 -i 500"
	few="-r 3 -w 1"
else
	size_args="-M 4194304 -r 5 -w 2 -i 2000"
	bw_args="-M 4194304 -r 5 -w 2 -i 4096"
	rma_args="-M 4194304 -r 5 -w 2 -i 2000"
	few="-r 7 -w 2"
fi
if [ "$prov" = tcp ]; then
	# FI_EP_MSG: the connected benchmarks, and the plain-socket floor
	# (perf/tcp/bench_tcp_floor) measured in the same run
	benches=(
		"pingpong_msg|$bin/bench_fabric_pingpong|-p tcp -e msg $size_args|1"
		"pingpong_tagged|$bin/bench_fabric_pingpong|-p tcp -e msg -t $size_args|1"
		"bw_msg|$bin/bench_fabric_bw|-p tcp -e msg $bw_args|1"
	)
	floors=(
		"$build/perf/tcp/bench_tcp_floor pingpong $size_args"
		"$build/perf/tcp/bench_tcp_floor bw $bw_args"
	)
elif [ "$prov" = rxm ]; then
	# FI_EP_RDM over tcp: the provider pair by its fi_info name; the
	# two processes share this host, so propel's rxm would reach its
	# peer through shm (FI_OFI_RXM_USE_SHM, on by default): off here,
	# both libraries measured over tcp (perf/mpi/compare.sh measures
	# the shm path)
	rxm='tcp;ofi_rxm'
	export FI_OFI_RXM_USE_SHM=0
	benches=(
		"pingpong_msg|$bin/bench_fabric_pingpong|-p $rxm $size_args|1"
		"pingpong_tagged|$bin/bench_fabric_pingpong|-p $rxm -t $size_args|1"
		"bw_msg|$bin/bench_fabric_bw|-p $rxm $bw_args|1"
		"mt_rate|$bin/bench_fabric_mt_rate|-p $rxm -T 2 -i 16384 $few|0"
		"rma|$bin/bench_fabric_rma|-p $rxm $rma_args|1"
	)
	scale=(
		"both|$bin/bench_fabric_conn|-p $rxm -P 300 -T 30"
		"propel|$bin/bench_fabric_conn|-p $rxm -P 10000 -T 10"
	)
	floors=()
else
	benches=(
		"pingpong_msg|$bin/bench_fabric_pingpong|-p $prov $size_args|1"
		"pingpong_tagged|$bin/bench_fabric_pingpong|-p $prov -t $size_args|1"
		"bw_msg|$bin/bench_fabric_bw|-p $prov $bw_args|1"
		"rma|$bin/bench_fabric_rma|-p $prov $rma_args|1"
		"mt_rate|$bin/bench_fabric_mt_rate|-p $prov -T 2 -i 16384 $few|0"
		"progress|$bin/bench_fabric_progress|-p $prov $few|0"
		"startup|$bin/bench_fabric_startup|-p $prov $few|1"
		"mem|$bin/bench_fabric_mem|-p $prov -P 32|1"
	)
	floors=()
fi

# run_one LIBRARY NAME BINARY ARGS: appends the CSV rows, tagged with the
# repetition, to $raw; a library that cannot run the benchmark is reported.
run_one() {
	local library=$1 name=$2 binary=$3 args=$4 rep=$5 pin=$6 envs=()
	[ "$library" = propel ] && envs=(LD_LIBRARY_PATH="$lib")
	[ "$pin" = 1 ] && envs+=(BF_PIN=1)
	local tmp
	tmp=$(mktemp)
	if env "${envs[@]}" timeout 600 "$binary" $args >"$tmp" 2>"$tmp.err"; then
		# data rows only: not the header, not "# ... n/a" lines
		{ grep -v '^benchmark,\|^#' "$tmp" || true; } | sed "s/^/$rep,/" >>"$raw"
		grep '^#' "$tmp" | sed "s/^/  $library: /" >&2 || true
	else
		echo "  $library: $name failed: $(tail -1 "$tmp.err")" >&2
	fi
	rm -f "$tmp" "$tmp.err"
}

for entry in "${benches[@]}"; do
	IFS='|' read -r name binary args pin <<<"$entry"
	for rep in $(seq 1 "$reps"); do
		echo "== $name: repetition $rep of $reps (reference, then propel)" >&2
		run_one reference "$name" "$binary" "$args" "$rep" "$pin"
		run_one propel "$name" "$binary" "$args" "$rep" "$pin"
	done
done

# once each (a run opens its peers' connections; its sockets then hold
# ports in TIME_WAIT for a minute): who|binary|args
for entry in "${scale[@]}"; do
	IFS='|' read -r who binary args <<<"$entry"
	echo "== scale: $args (once)" >&2
	[ "$who" = both ] && run_one reference conn "$binary" "$args" 1 0
	run_one propel conn "$binary" "$args" 1 0
done

for rep in $(seq 1 "$reps"); do
	for floor in "${floors[@]}"; do
		echo "== floor: $floor (repetition $rep of $reps)" >&2
		tmp=$(mktemp)
		if BF_PIN=1 timeout 600 $floor >"$tmp" 2>&1; then
			{ grep -v '^benchmark,\|^#' "$tmp" || true; } |
				sed "s/^/$rep,/" >>"$raw"
		else
			echo "  floor failed: $(tail -1 "$tmp")" >&2
		fi
		rm -f "$tmp"
	done
done

python3 perf/compare_report.py "$raw" "$out"
