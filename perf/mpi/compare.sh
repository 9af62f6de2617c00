#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Open MPI on one node, side by side in one run (the same mpi_bench.c,
# two ranks): pml cm over propel's tcp;ofi_rxm (node-local peers through
# shm, FI_OFI_RXM_USE_SHM's default), Open MPI's own shared memory (pml
# ob1, btl self,vader), and pml cm over the reference libfabric's
# tcp;ofi_rxm (Debian's, loaded when LD_LIBRARY_PATH does not name ours).
# Prints the median of REPS repetitions of each figure and the ratios
#   8 B one-way latency:  propel / vader, propel / reference
#   1 MiB bandwidth:      propel / vader
# Proof of what ran: propel's run must show rxm's "peer reached over shm"
# line (FI_LOG_LEVEL=info), which the reference never prints.
# Usage: perf/mpi/compare.sh [--reps N] [--out DIR] [--lib DIR] [--no-ref]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=5 out= lib="$here/../../build/lib" ref=1
while [ $# -gt 0 ]; do
	case "$1" in
	--reps) reps=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--lib) lib=$2; shift 2 ;;
	--no-ref) ref=0; shift ;;
	*) echo "usage: $0 [--reps N] [--out DIR] [--lib DIR] [--no-ref]" >&2
	   exit 2 ;;
	esac
done
for tool in mpicc mpirun; do
	command -v "$tool" >/dev/null ||
		{ echo "missing: $tool (Debian packages openmpi-bin, libopenmpi-dev)" >&2; exit 2; }
done
lib=$(cd "$lib" && pwd) || exit 2
[ -e "$lib/libfabric.so.1" ] || { echo "no libfabric.so.1 in $lib" >&2; exit 2; }
out=${out:-$(mktemp -d /tmp/propel-mpi-compare.XXXXXX)}
mkdir -p "$out"
mpicc -O2 "$here/mpi_bench.c" -o "$out/mpi_bench" || exit 1

cm=(--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include 'tcp;ofi_rxm')
# run NAME MODE MPIRUN-ARGS...: the repetitions' figures in $out/NAME.MODE
run() {
	local name=$1 mode=$2
	shift 2
	timeout 900 mpirun --allow-run-as-root -np 2 "$@" \
		"$out/mpi_bench" "$mode" "$reps" >"$out/$name.$mode.log" 2>&1
	local rc=$?
	grep "^$mode " "$out/$name.$mode.log" | awk '{print $2}' \
		>"$out/$name.$mode"
	if [ $rc -ne 0 ] || [ ! -s "$out/$name.$mode" ]; then
		echo "$name $mode failed (exit $rc): $out/$name.$mode.log" >&2
		tail -5 "$out/$name.$mode.log" >&2
		return 1
	fi
}
median() {
	sort -g "$1" | awk '{v[NR]=$1} END {
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

status=0
for mode in lat bw; do
	run propel "$mode" "${cm[@]}" -x LD_LIBRARY_PATH="$lib" \
		-x FI_LOG_LEVEL=info -x FI_LOG_PROV=ofi_rxm || status=1
	if ! grep -q "peer reached over shm" "$out/propel.$mode.log"; then
		echo "propel $mode: no 'peer reached over shm' line: not propel over shm" >&2
		status=1
	fi
	run vader "$mode" --mca pml ob1 --mca btl self,vader || status=1
	if [ $ref = 1 ]; then
		run reference "$mode" "${cm[@]}" -x LD_LIBRARY_PATH= || status=1
		if grep -q "peer reached over shm" "$out/reference.$mode.log"; then
			echo "reference $mode: propel's log line seen" >&2
			status=1
		fi
	fi
done
[ $status -eq 0 ] || exit 1

{
	printf 'Open MPI, 2 ranks on one node, median of %s repetitions (%s)\n' \
		"$reps" "$(date -u +%Y-%m-%dT%H:%MZ)"
	lp=$(median "$out/propel.lat") lv=$(median "$out/vader.lat")
	bp=$(median "$out/propel.bw") bv=$(median "$out/vader.bw")
	printf '%-34s %12s %12s %12s\n' "" propel vader reference
	if [ $ref = 1 ]; then
		lr=$(median "$out/reference.lat") br=$(median "$out/reference.bw")
	else
		lr=- br=-
	fi
	printf '%-34s %12s %12s %12s\n' "8 B one-way latency (us)" "$lp" "$lv" "$lr"
	printf '%-34s %12s %12s %12s\n' "1 MiB bandwidth (MB/s)" "$bp" "$bv" "$br"
	awk -v a="$lp" -v b="$lv" 'BEGIN {printf "latency  propel/vader     %.3fx (goal <= 1.0)\n", a / b}'
	[ $ref = 1 ] && awk -v a="$lp" -v b="$lr" 'BEGIN {printf "latency  propel/reference %.4fx (goal <= 0.01)\n", a / b}'
	awk -v a="$bp" -v b="$bv" 'BEGIN {printf "bandwidth propel/vader    %.3fx (goal >= 1.0)\n", a / b}'
} | tee "$out/summary.txt"
